"""Reading the base's own gate (its ``[validate]`` table, baseline, cases file and examples files) for ``skillsift ci``.

The comparison ranks the base with the head's config and cases; what the pull request
changed in them is listed beside it (skillsift/evaluate/gate_changes.py).  The requests of
the examples files (``[search] examples``) steer ranking, so the base's own examples files
are read too and compared with the head's.  Everything is read with the bounded readers
the rest of skillsift uses, and a file that a link takes out of the base's tree (or into
its ``.git/``) is not read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..config import index_path
from ..config.ranking import ranking_values
from ..config.sources import project_source
from ..diagnostics import SkillsiftError
from ..evaluate.cases import load_cases
from ..evaluate.examples import file_requests, frontmatter_requests
from ..evaluate.gate_changes import (
    CASE,
    GateChange,
    all_changes,
    baseline_change,
    case_changes,
    config_changes,
    example_changes,
    index_changes,
    lock_change,
    pin_changes,
    ranking_changes,
    with_base_results,
)
from ..evaluate.gates import BASELINE_MAX_BYTES
from ..files import link_leaves, read_bounded
from ..index.manifest import MANIFEST_FILE, MAX_MANIFEST_BYTES
from ..jsonio import read_json
from ..skill_sources.lockfile import LOCK_FILE


def _document(root: str, config_file: str | None) -> dict:
    """The project config document at ``root`` (``{}`` when there is none or it cannot be read)."""

    problems: list = []
    try:
        source = project_source(Path(root), config_file, problems)
    except (OSError, ValueError):
        return {}
    return source.doc if source is not None and isinstance(source.doc, dict) else {}


def _table(doc: dict, name: str) -> dict | None:
    table = doc.get(name)
    return table if isinstance(table, dict) else None


def _validate_table(root: str, config_file: str | None) -> dict | None:
    return _table(_document(root, config_file), "validate")


def _example_patterns(search: dict | None) -> list[str]:
    value = (search or {}).get("examples")
    values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [v for v in values if isinstance(v, str) and v.strip() and "\x00" not in v]


def _read(path: str, root: str) -> bytes | None:
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
    search: dict | None = None  # the base's own [search] table
    doc: dict = field(default_factory=dict)  # the base's own config document
    examples: tuple | None = ()  # the requests of the base's examples files; None = they could not be read
    cases_rel: str = ""  # the cases file, relative to the root: not an examples file here (its cases are listed)

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

    def changes(self, head_root: str, opts, prepared, results, base_catalog=None) -> list[GateChange]:
        """Every change to the gate and to what steers ranking (``base_catalog``: the base's skills as
        the head's config finds them, None when they could not be read)."""

        head_doc = _document(head_root, opts.config_file)
        config = config_changes(self.validate, _table(head_doc, "validate"))
        config += ranking_changes(ranking_values(self.doc), ranking_values(head_doc))
        baselines = []
        for rel, base_bytes in sorted(self.baselines.items()):
            baselines += baseline_change(rel, base_bytes, _read(os.path.join(head_root, rel), head_root))
        cases = with_base_results(self._case_changes(prepared.case_file), results)
        head_config = prepared.config
        head_patterns = list(head_config.search.examples) if head_config is not None else []
        head_catalog = getattr(prepared, "catalog", None)
        examples: list[GateChange] = []
        if self.examples is not None:
            try:
                head_requests = _requests(head_root, head_patterns, self.cases_rel)
            except SkillsiftError:
                head_requests = None  # the head's evaluation reports it; nothing is compared
            if head_requests is not None and (base_catalog is None) == (head_catalog is None):
                examples = example_changes((*self.examples, *_frontmatter(base_catalog)),
                                           (*head_requests, *_frontmatter(head_catalog)))
        pins: list[GateChange] = []
        if base_catalog is not None and head_catalog is not None and prepared.case_file is not None:
            pins = pin_changes(prepared.case_file.cases, [s.name for s in base_catalog.skills],
                               [s.name for s in head_catalog.skills])
        index = _index_changes(self.base_root, head_root, head_config)

        lock = lock_change(LOCK_FILE, _read(os.path.join(self.base_root, LOCK_FILE), self.base_root),
                           _read(os.path.join(head_root, LOCK_FILE), head_root))
        return all_changes(config, baselines, lock, cases, examples, index, pins)


def _frontmatter(catalog) -> tuple:
    """The known requests of the skills' frontmatter ``examples``, each with its SKILL.md and line (none
    without a catalog; none of a skill whose examples break a rule, as a search leaves them out)."""
    if catalog is None:
        return ()

    return tuple(r for skill in catalog.skills for r in frontmatter_requests(skill, catalog.root))


def _manifest_fields(path: str, root: str) -> dict | None:
    """``provider`` and ``model`` of the index manifest at ``path`` (None: absent or unreadable)."""

    if not os.path.isfile(path) or link_leaves(path, root):
        return None
    try:
        doc = read_json(read_bounded(path, MAX_MANIFEST_BYTES), source=MANIFEST_FILE,
                        max_bytes=MAX_MANIFEST_BYTES)
    except (OSError, ValueError, SkillsiftError):
        return None
    return {k: doc.get(k) for k in ("provider", "model")} if isinstance(doc, dict) else None


def _index_changes(base_root: str, head_root: str, head_config) -> list[GateChange]:
    """The committed index's provider and model, base against head (the head's ``index_dir`` on both sides)."""
    if head_config is None:
        return []

    rel = _inside(os.path.join(str(index_path(head_config)), MANIFEST_FILE), head_root)
    if not rel:
        return []
    return index_changes(rel, _manifest_fields(os.path.join(base_root, rel), base_root),
                         _manifest_fields(os.path.join(head_root, rel), head_root))


def _requests(root: str, patterns: list[str], cases_rel: str) -> tuple:
    """The requests of the examples files ``patterns`` names at ``root``, the cases file left out."""
    if not patterns:
        return ()

    return file_requests(root, patterns, leave_out=(cases_rel,) if cases_rel else ())


def read_base_gate(base_root: str, head_root: str, opts, notes: list[str]) -> BaseGate:
    """The base's own ``[validate]`` table, cases file and baseline bytes (before anything is copied there)."""
    gate = BaseGate(base_root=base_root)
    if opts.config_file and not _inside(opts.config_file, head_root):
        # a config file outside the repository is the same file on both sides: nothing the pull
        # request changed there (its cases, baselines and examples files are still the base's own)
        base_doc = _document(head_root, opts.config_file)
    elif opts.config_file:
        config_file = os.path.join(base_root, _inside(opts.config_file, head_root))
        base_doc = _document(base_root, config_file) if os.path.isfile(config_file) else {}
    else:
        base_doc = _document(base_root, None)
    gate.validate, gate.search, gate.doc = _table(base_doc, "validate"), _table(base_doc, "search"), base_doc
    head_validate = _validate_table(head_root, opts.config_file) or {}
    for table in (gate.validate or {}, head_validate):
        path = table.get("baseline")
        if isinstance(path, str) and path.strip() and _inside(os.path.join(head_root, path), head_root):
            rel = _inside(os.path.join(head_root, path), head_root)
            gate.baselines[rel] = _read(os.path.join(base_root, rel), base_root)
    rel_cases = _inside(opts.cases, head_root)
    gate.cases_rel = rel_cases
    try:
        gate.examples = _requests(base_root, _example_patterns(gate.search), rel_cases)
    except SkillsiftError as exc:
        gate.examples = None
        notes.append("The base's examples files could not be read, so the known requests the pull request added, "
                     f"removed or moved are not listed: {exc.message.replace(base_root, '<base>')}")
    if rel_cases:
        path = os.path.join(base_root, rel_cases)

        if os.path.isfile(path) and not link_leaves(path, base_root):
            try:
                gate.cases = load_cases(path)
            except SkillsiftError:
                notes.append(f"The base's cases file {rel_cases} is not valid there, so cases the pull request "
                             "removed or changed are not listed.")
    return gate
