"""What a pull request changed in its own gate: the ``[validate]`` table, the baseline and the cases (pure).

``skillsift ci`` ranks the base with the head's config and cases, so case ids line up; a pull
request could then delete the case it regresses, accept more skills for it, or add
``ignore = ["AR001"]`` beside a token, and the comparison would not show it.  This module
compares the base's own config table and cases file with the head's and lists every such
change, for the report (docs/github-action.md, "Changes to the gate").

Everything else that steers ranking is listed too, since the base is ranked with the head's
config: the known requests (the examples files' and the skills' frontmatter ``examples``)
added, removed or moved to another skill (:func:`example_changes`); every ranking key of the
config (:func:`ranking_changes`, the keys :mod:`skillsift.config.ranking` declares); the
committed index's provider and model (:func:`index_changes`); and the exact-id pins of the
cases' queries (:func:`pin_changes`).

Each change is one :class:`GateChange`; each source has a function of the same shape (two
parsed documents in, changes out), and :func:`all_changes` is where they are joined.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from ..config.ranking import RANKING
from ..ranker.examples import normalised
from ..ranker.pin import PinIndex
from ..skill_sources.lockfile import Lock, LockFileError, parse_lock

CONFIG, BASELINE, CASE, CASES_FILE, EXAMPLE = "config", "baseline", "case", "cases-file", "example"
INDEX, PIN, LOCK = "index", "pin", "lock"
# the [validate] keys that decide what fails: reported first, in this order
GATE_KEYS = ("ignore", "severity", "min", "max_flips", "max_rank_drops", "cases", "baseline", "mode", "k",
             "fail_on_gate_change")


@dataclass(frozen=True)
class GateChange:
    """One change the pull request makes to its own gate.

    ``subject``: the ``[validate]`` key, the baseline path, the case id or the known request;
    ``before`` and ``after``: short renderings ("" = absent); ``base_result``: for a removed or
    changed case, how the base ranked the case as the base's cases file wrote it; ``file``
    and ``line``: where the change is written (the examples file of a request; a case's line
    is in the cases file).
    """

    kind: str
    subject: str
    before: str
    after: str
    what: str
    base_result: str = ""
    line: int = 0
    file: str = ""

    def to_dict(self) -> dict:
        out: dict = {"kind": self.kind, "subject": self.subject, "before": self.before, "after": self.after,
               "what": self.what}
        if self.base_result:
            out["base_result"] = self.base_result
        if self.file:
            out["file"] = self.file
        if self.line:
            out["line"] = self.line
        return out


def _show(value) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def config_changes(base: Mapping | None, head: Mapping | None, *, table: str = "validate",
                   only: tuple[str, ...] = ()) -> list[GateChange]:
    """Every key of ``[table]`` (``[validate]``; or only the keys ``only``) whose value differs between the
    base's table and the head's."""
    base = base if isinstance(base, Mapping) else {}
    head = head if isinstance(head, Mapping) else {}
    keys = (set(base) | set(head)) & set(only) if only else set(base) | set(head)
    order = [k for k in GATE_KEYS if k in keys] + sorted(k for k in keys if k not in GATE_KEYS)
    out = []
    for key in order:
        before, after = base.get(key), head.get(key)
        if before == after:
            continue
        what = "added" if before is None else "removed" if after is None else "changed"
        out.append(GateChange(CONFIG, f"{table}.{key}", _show(before), _show(after), what))
    return out


def ranking_changes(base: Mapping, head: Mapping) -> list[GateChange]:
    """Every ranking key (:data:`skillsift.config.ranking.RANKING`) whose value differs between the base's
    config and the head's; ``base`` and ``head`` are :func:`skillsift.config.ranking.ranking_values`.

    The comparison ranks both sides with the head's config, so these changes move nothing
    there: they are listed here instead, in the order the keys are declared.
    """

    def order(path: str) -> tuple[int, str]:
        table = path.split(".", 1)[0]
        exact = RANKING.index(path) if path in RANKING else RANKING.index(f"{table}.*")
        return exact, path

    out = []
    for path in sorted(set(base) | set(head), key=order):
        before, after = base.get(path), head.get(path)
        if before == after:
            continue
        what = "added" if before is None else "removed" if after is None else "changed"
        out.append(GateChange(CONFIG, path, _show(before), _show(after), what))
    return out


def index_changes(file: str, base: Mapping | None, head: Mapping | None) -> list[GateChange]:
    """The committed index's ``provider`` and ``model`` (``file``: its manifest), base against head.

    ``base``/``head``: those two fields of each side's manifest, None when that side has no
    readable index (no change is listed then: the comparison says what it could rank).
    """
    if base is None or head is None:
        return []
    out = []
    for key in ("provider", "model"):
        before, after = str(base.get(key) or ""), str(head.get(key) or "")
        if before != after:
            out.append(GateChange(INDEX, f"index {key}", before, after, "changed", file=file))
    return out


def pin_changes(cases, base_names, head_names) -> list[GateChange]:
    """The cases whose query an exact-id pin (docs/ranking-quality.md) gives another skill at the head.

    A skill named after a gated query (``refund-a-customer``) is put first wherever the pin
    applies; listed per case (by id, in file order) with the skill that pins at each side.
    """

    base_names, head_names = sorted(set(base_names)), sorted(set(head_names))
    base_index, head_index = PinIndex(base_names), PinIndex(head_names)
    base_set, head_set = set(base_names), set(head_names)
    out = []
    for case in cases:
        before = base_index.pin(case.query, base_set) or ""
        after = head_index.pin(case.query, head_set) or ""
        if before != after:
            what = "pin added" if not before else "pin removed" if not after else "pin changed"
            out.append(GateChange(PIN, case.id, before, after, what, line=case.line))
    return out


def baseline_change(path: str, base_bytes: bytes | None, head_bytes: bytes | None) -> list[GateChange]:
    """The baseline file the gate compares with, rewritten by the pull request."""
    if base_bytes == head_bytes or head_bytes is None and base_bytes is None:
        return []
    what = "added" if base_bytes is None else "removed" if head_bytes is None else "rewritten"
    return [GateChange(BASELINE, path, "" if base_bytes is None else f"{len(base_bytes):,} bytes",
                       "" if head_bytes is None else f"{len(head_bytes):,} bytes", what)]


def lock_change(path: str, base_bytes: bytes | None, head_bytes: bytes | None) -> list[GateChange]:
    """The lock of the skill sources (``skillsift.lock``), per source: added, removed, or moved to another
    commit, with the skills it adds, removes or changes (docs/sources.md). A lock that does not parse is
    one change of the file as a whole."""

    if base_bytes == head_bytes:
        return []
    try:
        base = parse_lock(base_bytes, source=path) if base_bytes is not None else Lock()
        head = parse_lock(head_bytes, source=path) if head_bytes is not None else Lock()
    except LockFileError:
        return [GateChange(LOCK, c.subject, c.before, c.after, c.what) for c in baseline_change(path, base_bytes,
                                                                                                  head_bytes)]
    out = []
    for name in sorted(set(base.sources) | set(head.sources)):
        old, new = base.sources.get(name), head.sources.get(name)
        if old == new:
            continue
        before = "" if old is None else (old.commit[:12] or old.path)
        after = "" if new is None else (new.commit[:12] or new.path)
        what = [_source_change(old, new), *_skill_changes(old.skills if old is not None else {},
                                                          new.skills if new is not None else {})]
        out.append(GateChange(LOCK, f"{path}: {name}", before, after, "; ".join(what), file=path))
    return out


def _source_change(old, new) -> str:
    """How a lock's source changed: added, removed, or moved (with its old and new revision when it differs)."""
    what = "source added" if old is None else "source removed" if new is None else "source moved"
    if old is not None and new is not None and (old.rev, old.git, old.path, old.subdir) != (
            new.rev, new.git, new.path, new.subdir):
        what += f" ({old.rev or old.path} -> {new.rev or new.path})"
    return what


def _skill_changes(old_skills: dict, new_skills: dict) -> list[str]:
    """The skills a lock's source adds, removes and changes, five of each named."""
    parts = []
    for word, names in (("added", sorted(set(new_skills) - set(old_skills))),
                        ("removed", sorted(set(old_skills) - set(new_skills))),
                        ("changed", sorted(k for k in set(old_skills) & set(new_skills)
                                           if old_skills[k] != new_skills[k]))):
        if names:
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            parts.append(f"skills {word}: {shown}")
    return parts


def _expect(case) -> str:
    parts = [e.id if not e.graded else f"{e.id}:{e.grade}" for e in case.expect]
    return ", ".join(parts) or "nothing (negative)"


def case_changes(base_file, head_file) -> list[GateChange]:
    """Cases the base's cases file has that the head's lacks or asks less of (by id, in base order).

    A case is *changed* when its query, expected skills (or grades), avoided skills or role
    differ; the file's ``k`` is one change of its own.  Cases only the head has weaken
    nothing and are left to the comparison's "only in the head".
    """
    if base_file is None:
        return []
    head_cases = {c.id: c for c in head_file.cases} if head_file is not None else {}
    out = []
    if head_file is not None and base_file.k != head_file.k:
        out.append(GateChange(CASES_FILE, "k", str(base_file.k), str(head_file.k), "changed"))
    for case in base_file.cases:
        now = head_cases.get(case.id)
        if now is None:
            out.append(GateChange(CASE, case.id, _expect(case), "", "removed", line=case.line))
            continue
        diffs = []
        if now.query != case.query:
            diffs.append("query")
        if now.expect != _without_lines(now, case.expect):
            diffs.append("expect")
        if tuple(now.avoid) != tuple(case.avoid):
            diffs.append("avoid")
        if now.role != case.role:
            diffs.append("role")
        if diffs:
            out.append(GateChange(CASE, case.id, _expect(case), _expect(now), "changed: " + ", ".join(diffs),
                                  line=now.line))
    return out


def _without_lines(now, expect):
    """``expect`` with the lines of ``now``'s entries, so only ids and grades are compared."""
    from dataclasses import replace

    lines = {e.id: e.line for e in now.expect}
    return tuple(replace(e, line=lines.get(e.id, e.line)) for e in expect)


def with_base_results(changes: list[GateChange], results: Mapping[str, str]) -> list[GateChange]:
    """The case changes with how the base ranked each case (``results``: case id -> text)."""
    from dataclasses import replace

    return [replace(c, base_result=results.get(c.subject, "")) if c.kind == CASE else c for c in changes]


def example_changes(base, head) -> list[GateChange]:
    """The known requests the pull request added, removed or moved between skills.

    ``base`` and ``head``: the requests of each side (the examples files' and the skills'
    frontmatter ``examples``), each with ``skill``, ``text``, ``source`` (the file) and
    ``line`` (:class:`skillsift.evaluate.examples.KnownRequest`); ``base`` None when the
    base's could not be read (nothing is listed).  Requests are compared by their normalised
    text (:func:`skillsift.ranker.examples.normalised`, the text ranking and the leakage rule
    compare), each with the set of skills it is a request of: only in the head is *added*,
    only in the base *removed*, on both sides with other skills *moved* (a request moved to
    another file, or reworded to the same normalised text, is no change).  The file and line
    shown are where the change is written: for a moved request, the first place that names a
    skill it gained (else the first place it is written).  Order: removed (in the base's file
    order), moved, then added (in the head's), each by file and line.
    """
    if base is None:
        return []

    def by_text(requests) -> dict[str, tuple[set, list]]:
        out: dict[str, tuple[set, list]] = {}
        for r in requests:
            key = normalised(r.text)
            if not key:
                continue
            skills, places = out.setdefault(key, (set(), []))
            skills.add(r.skill)
            places.append(r)
        return out

    def first(places, skills=None):
        chosen = [r for r in places if skills is None or r.skill in skills] or places
        return min(chosen, key=lambda q: (q.source, q.line, q.text))

    before, after = by_text(base), by_text(head or ())
    removed, moved, added = [], [], []
    for key, (skills, places) in before.items():
        now = after.get(key)
        if now is None:
            at = first(places)
            removed.append(_request(at, "request removed", skills, set(), at))
        elif now[0] != skills:
            at = first(now[1], now[0] - skills)
            moved.append(_request(at, "request moved", skills, now[0], at))
    for key, (skills, places) in after.items():
        if key not in before:
            at = first(places)
            added.append(_request(at, "request added", set(), skills, at))

    def where(c: GateChange):
        return (c.file, c.line, c.subject)

    return sorted(removed, key=where) + sorted(moved, key=where) + sorted(added, key=where)


def _request(shown, what: str, before: set, after: set, at) -> GateChange:
    return GateChange(EXAMPLE, shown.text, ", ".join(sorted(before)), ", ".join(sorted(after)), what,
                      line=at.line, file=at.source)


def all_changes(*groups: list[GateChange]) -> list[GateChange]:
    """The changes of every source, in the order given (config, baseline, cases, examples, index, pins)."""
    return [change for group in groups for change in group]
