"""Reading the base's own gate (its ``[validate]`` table, baseline and cases file) for ``skillsift ci``.

The comparison ranks the base with the head's config and cases; what the pull request
changed in them is listed beside it (skillsift/evaluate/gate_changes.py).  Everything is
read with the bounded readers the rest of skillsift uses, and a file that a link takes
out of the base's tree is not read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import SkillsiftError
from ..evaluate.gate_changes import (
    CASE,
    GateChange,
    all_changes,
    baseline_change,
    case_changes,
    config_changes,
    with_base_results,
)


def _validate_table(root: str, config_file: str | None) -> dict | None:
    from ..config.sources import project_source

    problems: list = []
    try:
        source = project_source(Path(root), config_file, problems)
    except (OSError, ValueError):
        return None
    if source is None:
        return None
    table = source.doc.get("validate")
    return table if isinstance(table, dict) else None


def _read(path: str, root: str) -> bytes | None:
    from ..evaluate.gates import BASELINE_MAX_BYTES
    from ..files import link_leaves, read_bounded

    if link_leaves(path, root):
        return None
    try:
        return read_bounded(path, BASELINE_MAX_BYTES)
    except OSError:
        return None


def _inside(path: str, root: str) -> str:
    """``path`` relative to ``root`` with ``/`` when it lies inside, else ""."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    return "" if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel) else rel.replace(os.sep, "/")


@dataclass
class BaseGate:
    base_root: str
    validate: dict | None = None
    cases: object = None  # the base's CaseFile, None when it has none or it cannot be read
    baselines: dict = field(default_factory=dict)  # baseline path -> the base's bytes (None = absent)

    @property
    def fail_on_change(self) -> bool:
        return bool(self.validate and self.validate.get("fail_on_gate_change") is True)

    def _case_changes(self, head_cases) -> list[GateChange]:
        return case_changes(self.cases, head_cases)

    def weakened_cases(self, head_cases):
        """A CaseFile of the base's cases the head removed or changed (to rank at the base), or None."""
        changed = {c.subject for c in self._case_changes(head_cases) if c.kind == CASE}
        if self.cases is None or not changed:
            return None
        from dataclasses import replace

        return replace(self.cases, cases=tuple(c for c in self.cases.cases if c.id in changed))

    def changes(self, head_root: str, opts, prepared, results) -> list[GateChange]:
        head_validate = _validate_table(head_root, opts.config_file)
        config = config_changes(self.validate, head_validate)
        baselines = []
        for rel, base_bytes in sorted(self.baselines.items()):
            baselines += baseline_change(rel, base_bytes, _read(os.path.join(head_root, rel), head_root))
        cases = with_base_results(self._case_changes(prepared.case_file), results)
        return all_changes(config, baselines, cases)


def read_base_gate(base_root: str, head_root: str, opts, notes: list[str]) -> BaseGate:
    """The base's own ``[validate]`` table, cases file and baseline bytes (before anything is copied there)."""
    gate = BaseGate(base_root=base_root)
    config_file = None
    if opts.config_file:
        rel = _inside(opts.config_file, head_root)
        if not rel:
            return gate  # the same file on both sides: nothing the pull request changed
        config_file = os.path.join(base_root, rel)
        if not os.path.isfile(config_file):
            config_file = None
    gate.validate = _validate_table(base_root, config_file) if config_file or not opts.config_file else None
    head_validate = _validate_table(head_root, opts.config_file) or {}
    for table in (gate.validate or {}, head_validate):
        path = table.get("baseline")
        if isinstance(path, str) and path.strip() and _inside(os.path.join(head_root, path), head_root):
            rel = _inside(os.path.join(head_root, path), head_root)
            gate.baselines[rel] = _read(os.path.join(base_root, rel), base_root)
    rel_cases = _inside(opts.cases, head_root)
    if rel_cases:
        path = os.path.join(base_root, rel_cases)
        from ..files import link_leaves

        if os.path.isfile(path) and not link_leaves(path, base_root):
            from ..evaluate.cases import load_cases

            try:
                gate.cases = load_cases(path)
            except SkillsiftError:
                notes.append(f"The base's cases file {rel_cases} is not valid there, so cases the pull request "
                             "removed or changed are not listed.")
    return gate
