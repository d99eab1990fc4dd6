"""What a pull request changed in its own gate: the ``[validate]`` table, the baseline and the cases (pure).

``skillsift ci`` ranks the base with the head's config and cases, so case ids line up; a pull
request could then delete the case it regresses, accept more skills for it, or add
``ignore = ["AR001"]`` beside a token, and the comparison would not show it.  This module
compares the base's own config table and cases file with the head's and lists every such
change, for the report (docs/github-action.md, "Changes to the gate").

The requests of the examples files (``[search] examples``) steer ranking too: a request
added, removed or moved to another skill there is a change of its own (:func:`example_changes`).

Each change is one :class:`GateChange`; each source has a function of the same shape (two
parsed documents in, changes out), and :func:`all_changes` is where they are joined.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

CONFIG, BASELINE, CASE, CASES_FILE, EXAMPLE = "config", "baseline", "case", "cases-file", "example"
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


def baseline_change(path: str, base_bytes: bytes | None, head_bytes: bytes | None) -> list[GateChange]:
    """The baseline file the gate compares with, rewritten by the pull request."""
    if base_bytes == head_bytes or head_bytes is None and base_bytes is None:
        return []
    what = "added" if base_bytes is None else "removed" if head_bytes is None else "rewritten"
    return [GateChange(BASELINE, path, "" if base_bytes is None else f"{len(base_bytes):,} bytes",
                       "" if head_bytes is None else f"{len(head_bytes):,} bytes", what)]


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
    """The known requests of the examples files the pull request added, removed or moved between skills.

    ``base`` and ``head``: the requests of each side's examples files, each with ``skill``,
    ``text``, ``source`` (the file) and ``line`` (:class:`skillsift.evaluate.examples.KnownRequest`);
    ``base`` None when the base's files could not be read (nothing is listed).  Requests are
    compared by their normalised text (:func:`skillsift.ranker.examples.normalised`, the
    text ranking and the leakage rule compare), each with the set of skills it is a request
    of: only in the head is *added*, only in the base *removed*, on both sides with other
    skills *moved* (a request moved to another file, or reworded to the same normalised text,
    is no change).  Order: removed (in the base's file order), moved, then added (in the
    head's), each by file and line.
    """
    if base is None:
        return []
    from ..ranker.examples import normalised

    def by_text(requests) -> dict[str, tuple[set, object]]:
        out: dict[str, tuple[set, object]] = {}
        for r in requests:
            key = normalised(r.text)
            if not key:
                continue
            skills, first = out.get(key, (set(), r))
            skills.add(r.skill)
            first = min(first, r, key=lambda q: (q.source, q.line, q.text))
            out[key] = (skills, first)
        return out

    before, after = by_text(base), by_text(head or ())
    removed, moved, added = [], [], []
    for key, (skills, first) in before.items():
        now = after.get(key)
        if now is None:
            removed.append(_request(first, "request removed", skills, set(), first))
        elif now[0] != skills:
            moved.append(_request(now[1], "request moved", skills, now[0], now[1]))
    for key, (skills, first) in after.items():
        if key not in before:
            added.append(_request(first, "request added", set(), skills, first))

    def where(c: GateChange):
        return (c.file, c.line, c.subject)

    return sorted(removed, key=where) + sorted(moved, key=where) + sorted(added, key=where)


def _request(shown, what: str, before: set, after: set, at) -> GateChange:
    return GateChange(EXAMPLE, shown.text, ", ".join(sorted(before)), ", ".join(sorted(after)), what,
                      line=at.line, file=at.source)


def all_changes(*groups: list[GateChange]) -> list[GateChange]:
    """The changes of every source, in the order given (config, baseline, cases, examples)."""
    return [change for group in groups for change in group]
