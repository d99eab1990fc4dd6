"""The outcome of one ``skillsift ci`` run, its verdict and its exit code (pure).

Exit codes: 0 passed; 1 the evaluation could not run (bad flags, config, cases file,
base or baseline); 2 a check failed: a ``--min`` floor, more regressed cases than
``--max-flips``, or a validation finding at or above ``--fail-on``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, NOTE, WARNING, Diagnostic
from ..words import plural
from . import EVAL_REGRESSION
from .compare import Comparison
from .outcomes import side_from_result

if TYPE_CHECKING:
    from .run import EvalResult

FAIL_ON = ("error", "warning", "note", "never")
_BLOCKING = {"error": (ERROR,), "warning": (ERROR, WARNING), "note": (ERROR, WARNING, NOTE), "never": ()}
PASSED, FAILED, NOT_RUN = "passed", "failed", "error"
_ICONS = {PASSED: "✅", FAILED: "❌", NOT_RUN: "⚠️"}


@dataclass
class CiRun:
    """Everything one run found; the renderers and the exit code read only this."""

    cases_path: str = ""  # as shown, relative to the root
    mode: str = ""
    k: int = 0
    head: EvalResult | None = None  # the head's EvalResult (every mode asked), None when it could not run
    comparison: Comparison | None = None
    base_label: str = ""  # what the head was compared with, e.g. "base 1a2b3c4 (merge-base with origin/main)"
    base_word: str = "base"  # "base" or "baseline", as the report names it
    floor_failures: list[str] = field(default_factory=list)  # --min floors that failed (AR9D4 messages)
    findings: list[Diagnostic] = field(default_factory=list)  # validation, sorted
    fail_on: str = "error"
    max_flips: int = 0
    notes: list[str] = field(default_factory=list)  # what limited the run (no base, base not evaluable...)
    error: str = ""  # why the head could not be evaluated
    error_hint: str = ""
    # files the pull request changed, relative to the repository's top level; None = not known
    changed_files: frozenset[str] | None = None
    prefix: str = ""  # the root's path inside the repository ("" or "a/b/")
    minimums: dict = field(default_factory=dict)  # the --min floors (gate name -> floor)
    # what the pull request changed in its own gate (evaluate/gate_changes.py); None = not compared
    gate_changes: list | None = None
    fail_on_gate_change: bool = False
    validate_gates: str = ""  # the [validate] gates validation applied (AR9D4), in words; "" = none
    # failed [validate] gates whose cases the comparison already lists (not repeated as findings)
    gate_failures: list[str] = field(default_factory=list)
    # the agent as judge against the base (docs/judge.md, "The gate"): -1 = no judge gate
    judge_max_flips: int = -1
    judge_regressed: list[str] = field(default_factory=list)  # chosen right on the base, wrong on the head
    judge_fixed: list[str] = field(default_factory=list)
    judge_unknown: list[str] = field(default_factory=list)  # chosen right on the base, no head answer cached
    judge_compared: bool = False  # base and head answers were compared
    judge_base_unanswered: int = 0  # positive cases with no cached base answer (not compared)

    @property
    def judge_failed(self) -> bool:
        return self.judge_compared and self.judge_max_flips >= 0 and (
            len(self.judge_regressed) > self.judge_max_flips or bool(self.judge_unknown))

    def judge_summary(self) -> str:
        """``1 case regressed, 2 fixed, 1 without a head answer`` for the agent's choices, "" when not compared."""
        if not self.judge_compared:
            return ""
        parts = [f"{plural(len(self.judge_regressed), 'case')} regressed", f"{len(self.judge_fixed)} fixed"]
        if self.judge_unknown:
            parts.append(f"{len(self.judge_unknown)} without a cached head answer")
        if self.judge_base_unanswered:
            parts.append(f"{self.judge_base_unanswered} without a cached {self.base_word} answer (not compared)")
        return ", ".join(parts)

    def head_side(self):
        """The head's outcomes in the primary mode (the comparison's head side when there is one)."""
        if self.comparison is not None:
            return self.comparison.head

        return side_from_result(self.head, "head")

    def findings_by_change(self) -> tuple[list[Diagnostic], list[Diagnostic]]:
        """The findings on files the pull request changed (those on no file and those that fail the run
        too), then the others.

        Without a list of changed files every finding is in the first list.
        """
        if self.changed_files is None:
            return list(self.findings), []
        touched: list[Diagnostic] = []
        other: list[Diagnostic] = []
        blocking = set(self.blocking_findings())  # never folded away: they decide the run
        for d in self.findings:
            shown = not d.file or self.prefix + d.file in self.changed_files or d in blocking
            (touched if shown else other).append(d)
        return touched, other

    # -- checks ---------------------------------------------------------------------------
    def blocking_findings(self) -> list[Diagnostic]:
        levels = _BLOCKING.get(self.fail_on, (ERROR,))
        return [d for d in self.findings if d.severity in levels]

    @property
    def regressed(self) -> int:
        return len(self.comparison.regressed) if self.comparison is not None else 0

    @property
    def fixed(self) -> int:
        return len(self.comparison.fixed) if self.comparison is not None else 0

    @property
    def flips_failed(self) -> bool:
        return self.regressed > self.max_flips

    def failures(self) -> list[str]:
        """Each failed check as one phrase (empty when the run passes)."""
        out = []
        if self.flips_failed:
            out.append(f"{plural(self.regressed, 'case')} regressed against the {self.base_word} "
                       f"(max {self.max_flips})")
        if self.judge_failed and len(self.judge_regressed) > self.judge_max_flips:
            out.append(f"{plural(len(self.judge_regressed), 'case')} the agent chose right on the {self.base_word} "
                       f"chosen wrong on the head (judge, max {self.judge_max_flips})")
        if self.judge_failed and self.judge_unknown:
            out.append(f"{plural(len(self.judge_unknown), 'case')} the agent chose right on the {self.base_word} "
                       "without a cached head answer (run skillsift judge and commit its cache)")
        out += [f.replace("AR9D4: ", "", 1) for f in self.floor_failures]
        out += [f"[validate] {f}" for f in self.gate_failures]
        if self.fail_on_gate_change and self.gate_changes:
            out.append(f"the pull request changes its own gate ({plural(len(self.gate_changes), 'change')})")
        blocking = self.blocking_findings()
        if blocking:
            counts = {level: sum(1 for d in blocking if d.severity == level) for level in (ERROR, WARNING, NOTE)}
            parts = [plural(n, level) for level, n in counts.items() if n]
            out.append("validation found " + ", ".join(parts))
        return out

    def checks(self) -> list[tuple[str, bool, str]]:
        """Every check this run applied, passed or not: ``(name, passed, detail)``, in report order."""
        out: list[tuple[str, bool, str]] = []
        if self.comparison is not None:
            out.append((f"regressed cases against the {self.base_word}", not self.flips_failed,
                        f"{self.regressed} (max {self.max_flips})"))
        if self.judge_compared and self.judge_max_flips >= 0:
            out.append((f"agent's choices against the {self.base_word} (judge)", not self.judge_failed,
                        f"{self.judge_summary()} (max {self.judge_max_flips})"))
        if self.minimums and self.head is not None:
            values = self.head.primary.metrics.gated()
            for name in sorted(self.minimums):
                value, floor = values.get(name), self.minimums[name]
                detail = f"{value:.4f} (min {floor:.4f})" if value is not None else f"not measured (min {floor:.4f})"
                out.append((f"--min {name}", value is not None and value >= floor, detail))  # as gate_failures
        if self.validate_gates:
            gate_failed = bool(self.gate_failures) or any(d.code == EVAL_REGRESSION and d.severity == ERROR
                                                          for d in self.findings)
            out.append(("[validate] gates", not gate_failed, self.validate_gates))
        if self.gate_changes is not None:
            n = len(self.gate_changes)
            ok = not (self.fail_on_gate_change and n)
            out.append(("changes to the gate", ok, (plural(n, "change") if n else "none")
                        + ("" if self.fail_on_gate_change else " (reported, not gated)")))
        blocking = self.blocking_findings()
        if self.fail_on != "never":
            out.append((f"validation findings at or above {self.fail_on}", not blocking, str(len(blocking))))
        return out

    @property
    def status(self) -> str:
        if self.error:
            return NOT_RUN
        return FAILED if self.failures() else PASSED

    def exit_code(self) -> int:
        return {PASSED: 0, FAILED: 2, NOT_RUN: 1}[self.status]

    # -- words ----------------------------------------------------------------------------
    def change_summary(self) -> str:
        """``no ranking change`` / ``1 case fixed, 2 regressed, 3 other rank changes`` / why nothing was compared."""
        c = self.comparison
        if c is None:
            return f"no {self.base_word} to compare with"
        if not c.changed:
            return "no ranking change"
        parts = []
        if c.regressed:
            parts.append(f"{plural(len(c.regressed), 'case')} regressed")
        if c.fixed:
            parts.append(f"{plural(len(c.fixed), 'case')} fixed" if not parts else f"{len(c.fixed)} fixed")
        if c.moved:
            parts.append(plural(len(c.moved), "other rank change"))
        return ", ".join(parts)

    def verdict(self) -> str:
        """The one-line verdict: ``✅ passed: no ranking change``."""
        status = self.status
        if status == NOT_RUN:
            text = f"could not evaluate: {self.error}"
        elif status == FAILED:
            text = "failed: " + "; ".join(self.failures())
        else:
            text = "passed: " + self.change_summary()
            if self.gate_changes:  # what the comparison cannot show (it ranked both sides with the head's gate)
                text += f"; {plural(len(self.gate_changes), 'change')} to the gate (reported, not gated)"
        return f"{_ICONS[status]} {text}"
