"""``skillsift init --write``: the plan written, the index built, the drafts evaluated and the gate on.

Order matters: the configuration first (without the gate), then the cases, the index (hybrid
mode), the evaluation of the cases as the eval hook runs it, the baseline, and only then the
gate's settings, so a configuration never names a baseline that was not written.  Every line of
the report is returned for the door to print (docs/init.md, "Guarded from the first commit").
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from ...catalog.load import load_catalog
from ...config import load_config
from ...diagnostics import SkillsiftError
from ...evaluate import session as evals
from ...render.evaluation import render_json
from ...words import plural
from .. import index_build as service
from .project import BASELINE_FILE, HYBRID, Change, Plan, _decoded, _read, config_text, guard_summary, write_change
from .tomledit import merge_settings
from .yamledit import Unsafe


@dataclass(frozen=True)
class Applied:
    lines: tuple[str, ...]  # one per file or step, for people
    guarded: tuple[str, ...]  # what the gates guard (:func:`~skillsift.usecases.starter.project.guard_summary`)


def _line(change: Change, outcome: str) -> str:
    if outcome in ("wrote", "updated"):
        return f"{outcome} {change.path} ({change.what})"
    if outcome == "unchanged":
        return f"kept {change.path}: it has what init adds"
    return f"kept {change.path}{outcome.removeprefix('kept')}"


def _config_stage(plan: Plan, change: Change, settings) -> Change:
    if change.old is None:
        return replace(change, new=config_text(plan.layout, settings))
    try:
        return replace(change, new=merge_settings(_decoded(change.old), settings, plan.config_prefix))
    except Unsafe as exc:  # pragma: no cover - the plan merged the same text with more settings
        return replace(change, new=None, why=str(exc))


def build_index(root: str) -> str:
    """Build (or refresh) the index with the local model; the report line."""

    config = load_config(root)
    catalog = load_catalog(root, config)
    outcome = service.build(service.prepare(config, catalog))
    if outcome.result.index is None:
        return "the index could not be built: run skillsift index to see why"
    shown = os.path.relpath(outcome.index_dir, root).replace(os.sep, "/")
    state = "built" if outcome.written else "kept"
    return f"{state} the index {shown}/ ({plural(len(catalog.skills), 'skill')}): commit it with the skills"


def write_baseline(root: str, cases_rel: str, baseline_rel: str) -> tuple[bool, str]:
    """Evaluate ``cases_rel`` as the eval hook does and write the result to ``baseline_rel``."""

    try:
        config = load_config(root)
        catalog = load_catalog(root, config)
    except SkillsiftError as exc:
        return False, f"no baseline: the configuration does not load ({exc.message})"
    mode = config.validate.mode or config.search.mode or "lexical"
    try:
        case_file = evals.load_checked_cases(os.path.join(root, *cases_rel.split("/")), catalog, config.roles)
        evaluation = evals.run_evaluation(catalog, config, case_file, modes=[mode], k_override=config.validate.k)
    except SkillsiftError as exc:
        return False, f"no baseline: {cases_rel} could not be evaluated ({exc.message})"
    if evaluation.degraded:
        return False, f"no baseline: {evaluation.degraded}"
    result = evaluation.result
    found = sum(1 for case in result.primary.cases if case.rank and case.rank <= result.k)
    path = os.path.join(root, *baseline_rel.split("/"))
    change = Change(baseline_rel, None, render_json(result), "")
    if os.path.lexists(path):
        return True, f"kept {baseline_rel}: it exists"
    outcome = write_change(root, change)
    if outcome != "wrote":
        return False, f"no baseline: {baseline_rel} {outcome.removeprefix('kept: ')}"
    return True, (f"wrote {baseline_rel} ({plural(len(result.primary.cases), 'case')} evaluated in {result.mode} "
                  f"mode, {found} found in the top {result.k})")


def apply(plan: Plan) -> Applied:
    """Write ``plan`` (module docstring)."""
    root = plan.layout.root
    lines: list[str] = []
    config_change = next((c for c in plan.changes if c.path == plan.config_path), None)
    for change in plan.changes:
        if change is config_change and plan.guard_settings:
            change = _config_stage(plan, change, plan.settings)
        lines.append(_line(change, write_change(root, change)))
    lines += plan.notes
    mode = plan.mode
    if mode == HYBRID:
        try:
            lines.append(build_index(root))
        except SkillsiftError as exc:
            lines.append(f"the index could not be built: {exc.message}")
    if plan.baseline_file and plan.guard_settings and config_change is not None and config_change.new is not None:
        cases_there = os.path.isfile(os.path.join(root, *plan.cases_file.split("/")))
        ok, line = write_baseline(root, plan.cases_file, BASELINE_FILE) if cases_there else (False, "")
        if line:
            lines.append(line)
        if ok:
            old, why = _read(root, config_change.path)
            if old is not None and not why:
                try:
                    new = merge_settings(_decoded(old), plan.guard_settings, plan.config_prefix)
                except Unsafe as exc:
                    lines.append(f"kept {config_change.path}: {exc}; the gate is not on")
                else:
                    outcome = write_change(root, Change(config_change.path, old, new, "the gate"))
                    if outcome.startswith("kept"):
                        lines.append(f"{config_change.path}: the gate is not on ({outcome.removeprefix('kept: ')})")
    return Applied(lines=tuple(lines), guarded=tuple(guard_summary(root)))
