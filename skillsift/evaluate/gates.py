"""Gates: ``--min`` floors, baselines and the cases that flipped against them (AR9D4)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# The floors are parsed in config (which checks `[validate] min`); re-exported here for the gate callers.
from ..config.minimums import GATE_METRICS as GATE_METRICS
from ..config.minimums import canonical_metric as canonical_metric
from ..config.minimums import parse_minimums as parse_minimums
from ..diagnostics import SkillsiftError
from ..files import read_bounded
from ..jsonio import JSONDocumentError, read_json
from ..words import plural
from . import EVAL_REGRESSION, SCHEMA_VERSION

BASELINE_MAX_BYTES = 64 << 20


@dataclass(frozen=True)
class Flips:
    """Cases whose hit@k changed against a baseline (ids sorted)."""

    regressed: tuple[str, ...] = ()
    fixed: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"regressed": list(self.regressed), "fixed": list(self.fixed)}


@dataclass(frozen=True)
class RankChange:
    """A case whose rank of its first relevant skill moved against the baseline (None: not retrieved)."""

    id: str
    was: int | None
    now: int | None

    @property
    def dropped(self) -> bool:
        return self.was is not None and (self.now is None or self.now > self.was)

    def text(self) -> str:
        def rank(value):
            return "not retrieved" if value is None else str(value)

        return f"{self.id} ({rank(self.was)} -> {rank(self.now)})"


def _baseline_rank(case: Mapping):
    """The rank a baseline case recorded: an int >= 1, None (not retrieved), or ... when it has none."""
    if "rank" not in case:
        return ...
    rank = case["rank"]
    if rank is None or (isinstance(rank, int) and not isinstance(rank, bool) and rank >= 1):
        return rank
    return ...


def rank_changes(baseline: Mapping, cases: Sequence) -> list[RankChange]:
    """Cases in both runs whose rank changed, by id; flips stay defined by hit@k (:func:`compare_baseline`)."""
    was = {}
    for case in baseline.get("cases") or []:
        rank = _baseline_rank(case)
        if rank is not ...:
            was[case.get("id", "")] = rank
    out = [RankChange(case.id, was[case.id], case.rank) for case in cases
           if case.id in was and was[case.id] != case.rank]
    return sorted(out, key=lambda change: change.id)


def gate_failures(metrics: Mapping[str, float], minimums: Mapping[str, float], flips: Flips | None = None,
                  max_flips: int = -1, *, rank_changes: Sequence[RankChange] = (),
                  max_rank_drops: int = -1) -> list[str]:
    """Every failed gate as an AR9D4 message; [] means the run passes.

    ``metrics`` holds the primary mode's values by gate name (``Metrics.gated()``);
    a value equal to its floor passes.  ``max_flips < 0`` disables the flip gate,
    ``max_rank_drops < 0`` the gate on cases whose rank got worse (docs/evaluation.md).
    """
    failed = []
    for name in sorted(minimums):
        if name not in metrics:
            failed.append(f"{EVAL_REGRESSION}: {name} cannot be checked: no case is graded")
            continue
        if metrics[name] < minimums[name]:
            failed.append(f"{EVAL_REGRESSION}: {name} is {metrics[name]:.4f}, "
                          f"below the minimum {minimums[name]:.4f}")
    if flips is not None and max_flips >= 0 and len(flips.regressed) > max_flips:
        failed.append(f"{EVAL_REGRESSION}: {plural(len(flips.regressed), 'case')} regressed against the baseline "
                      f"(max {max_flips}): {', '.join(flips.regressed)}")
    drops = [change for change in rank_changes if change.dropped]
    if max_rank_drops >= 0 and len(drops) > max_rank_drops:
        failed.append(f"{EVAL_REGRESSION}: {plural(len(drops), 'case')} dropped in rank against the baseline "
                      f"(max {max_rank_drops}): {', '.join(change.text() for change in drops)}")
    return failed


# -- baselines -----------------------------------------------------------------------------------


def load_baseline(path: str) -> dict:
    """Read a result written by an earlier run (``--output``); only what flips need is checked."""
    import os

    if os.path.isdir(path):
        raise SkillsiftError(f"baseline {path} is not a file", hint="Pass the JSON file --output wrote")
    try:
        raw = read_bounded(path, BASELINE_MAX_BYTES + 1)
    except IsADirectoryError:
        raise SkillsiftError(f"baseline {path} is not a file",
                             hint="Pass the JSON file --output wrote") from None
    except OSError as exc:
        raise SkillsiftError(f"cannot read baseline {path}: {exc.strerror or exc}",
                             hint="Save one with 'skillsift eval CASES --output FILE'") from None

    try:
        doc = read_json(raw, source=f"baseline {path}", max_bytes=BASELINE_MAX_BYTES)
    except JSONDocumentError as exc:
        if exc.kind == "syntax":
            message = f"baseline {path} is not valid JSON: line {exc.line}: {exc.reason}"
        elif exc.kind == "encoding":
            message = f"baseline {path} is not UTF-8 JSON"
        else:
            message = str(exc)
        raise SkillsiftError(message, hint="Pass the JSON file --output wrote") from None
    return check_baseline(doc, path)


def check_baseline(doc, path: str = "<baseline>") -> dict:
    """Validate the parts of a baseline document that flips use; return it."""
    if not isinstance(doc, dict):
        raise SkillsiftError(f"baseline {path} is not a JSON object")
    version = doc.get("schema_version", 0)
    if version != SCHEMA_VERSION or isinstance(version, bool):
        raise SkillsiftError(f"baseline {path} has schema_version {json.dumps(version)}; "
                             f"this build reads {SCHEMA_VERSION}")
    mode = doc.get("mode", "")
    if not isinstance(mode, str):
        raise SkillsiftError(f"baseline {path}: mode must be a string")
    k = doc.get("k", 0)
    if not isinstance(k, int) or isinstance(k, bool):
        raise SkillsiftError(f"baseline {path}: k must be an integer")
    cases = doc.get("cases")
    if cases is None:
        cases = []
    if not isinstance(cases, list):
        raise SkillsiftError(f"baseline {path}: cases must be a list")
    for i, case in enumerate(cases):
        if (not isinstance(case, dict) or not isinstance(case.get("id", ""), str)
                or not isinstance(case.get("hit", False), bool)):
            raise SkillsiftError(f"baseline {path}: cases[{i}] must be an object "
                                 "with a string id and a boolean hit")
        # what the pull-request comparison reads too (evaluate/outcomes.py)
        if not isinstance(case.get("query", ""), str):
            raise SkillsiftError(f"baseline {path}: cases[{i}].query must be a string")
        for key in ("expected", "got"):
            names = case.get(key)
            if names is not None and (not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
                raise SkillsiftError(f"baseline {path}: cases[{i}].{key} must be a list of skill names")
    return doc


def compare_baseline(baseline: Mapping, *, mode: str, k: int, cases: Sequence) -> Flips:
    """Flips of the primary mode's ``cases`` (objects with ``id`` and ``hit``) against a baseline.

    Refused (SkillsiftError, exit 1) when the baseline was ranked in another mode (a
    baseline without a mode is lexical) or evaluated at another k: every flip would be an
    artifact of the flag.  Cases present in only one of the two runs are ignored.
    """
    base_mode = baseline.get("mode") or "lexical"
    run_mode = mode or "lexical"
    if base_mode != run_mode:
        raise SkillsiftError(f"the baseline was ranked in {base_mode} mode but this run uses {run_mode}",
                             hint=f"rerun with --mode {base_mode}, or save a new baseline with --output")
    base_k = baseline.get("k", 0)
    if base_k != k:
        raise SkillsiftError(f"the baseline was evaluated at k={base_k} but this run uses k={k}",
                             hint=f"rerun with --k {base_k}, or save a new baseline with --output")
    was = {c.get("id", ""): bool(c.get("hit", False)) for c in baseline.get("cases") or []}
    regressed, fixed = [], []
    for case in cases:
        if case.id not in was:
            continue
        if was[case.id] and not case.hit:
            regressed.append(case.id)
        elif not was[case.id] and case.hit:
            fixed.append(case.id)
    return Flips(regressed=tuple(sorted(regressed)), fixed=tuple(sorted(fixed)))
