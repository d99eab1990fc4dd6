"""The whole result of one ``skillsift ci`` run as JSON: ``ci.v1`` (schema in ``skillsift/schemas/ci.v1.json``).

Everything the Markdown report shows, as data: the verdict and exit code, what was
compared, each check with its outcome, the metrics of both sides with the paired
differences, every regressed, fixed and moved case, the changes the pull request made to
its own gate, and every finding (with whether it fails the run and whether the pull
request changed its file).  Pure; the same run gives the same bytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._version import __version__
from .sanitise import json_text

if TYPE_CHECKING:
    from ..evaluate.verdict import CiRun

SCHEMA_VERSION = 1


def _change(ch) -> dict:
    return {"id": ch.id, "line": ch.line, "query": ch.query, "expected": list(ch.expected), "base_rank": ch.before,
            "head_rank": ch.after, "first_base": ch.first_before, "first_head": ch.first_after}


def ci_document(run: CiRun) -> dict:
    c = run.comparison
    blocking = set(run.blocking_findings())
    changed = run.changed_files
    doc: dict = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "skillsift", "version": __version__},
        "status": run.status,
        "exit_code": run.exit_code(),
        "verdict": run.verdict(),
        "error": {"message": run.error, "hint": run.error_hint} if run.error else None,
        "cases_path": run.cases_path,
        "mode": run.mode,
        "k": run.k,
        "compared_with": run.base_label if c is not None else "",
        "base_word": run.base_word,
        "notes": list(run.notes),
        "failures": run.failures(),
        "checks": [{"name": name, "passed": ok, "detail": detail} for name, ok, detail in run.checks()],
        "metrics": None,
        "regressed": [],
        "fixed": [],
        "moved": [],
        "only_in_head": [],
        "only_in_base": [],
        "gate_changes": None if run.gate_changes is None else [g.to_dict() for g in run.gate_changes],
        "fail_on_gate_change": run.fail_on_gate_change,
        "fail_on": run.fail_on,
        "findings": [],
    }
    if run.head is not None:
        head = run.head_side()
        metrics: dict = {"head": head.metrics(), "base": c.base.metrics() if c is not None else None,
                         "paired": {k: d.to_dict() for k, d in sorted(c.paired.items())} if c is not None else {}}
        doc["metrics"] = metrics
    if c is not None:
        doc["regressed"] = [_change(ch) for ch in c.regressed]
        doc["fixed"] = [_change(ch) for ch in c.fixed]
        doc["moved"] = [{**_change(ch), "worse": ch.worse} for ch in c.moved]
        doc["only_in_head"], doc["only_in_base"] = list(c.added), list(c.removed)
    if run.judge_compared and run.judge_max_flips >= 0:
        doc["judge"] = {"max_flips": run.judge_max_flips, "regressed": list(run.judge_regressed),
                        "fixed": list(run.judge_fixed), "unknown": list(run.judge_unknown),
                        "base_unanswered": run.judge_base_unanswered}
    for d in run.findings:
        item = d.to_dict()
        item["fails_run"] = d in blocking
        if changed is not None:
            item["on_changed_file"] = bool(d.file) and run.prefix + d.file in changed
        doc["findings"].append(item)
    return doc


def render_ci_json(run: CiRun) -> str:
    return json_text(ci_document(run))
