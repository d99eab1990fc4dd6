"""The SKILL.md files a file-level check reads: those among the paths that parse to a mapping.

Shared by the checks of :mod:`.agent_fields`, :mod:`.yaml_checks`, :mod:`.body`,
:mod:`.paths` and :mod:`.security`; each gets a :class:`Parsed` per file, from the
workspace's one read and one parse of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import contextmanager

from ..cache import regexes
from ..diagnostics import Diagnostic
from ..records import record
from .workspace import Workspace


@record(frozen=True)
class Parsed:
    """One SKILL.md: its path, LF text, frontmatter mapping, raw YAML and its first line,
    body and its first line, and the file line of each top-level key."""

    path: str
    text: str
    front: dict
    raw: str
    raw_line: int
    body: str
    body_line: int
    lines: dict

    def line(self, key: str) -> int:
        return self.lines.get(key, 1)

    @property
    def folder(self) -> str:
        return self.path.rsplit("/", 1)[0] if "/" in self.path else "."


def parsed_skills(ws, paths):
    """A :class:`Parsed` for each SKILL.md among ``paths`` that exists and parses to a mapping
    (built once per workspace and file: every check module of a run shares them)."""
    memo = ws.__dict__.setdefault("_parsed_views", {})
    for rel in paths:
        if rel in memo:
            if memo[rel] is not None:
                yield memo[rel]
            continue
        memo[rel] = None
        if rel.rsplit("/", 1)[-1] != "SKILL.md" or not ws.is_file(rel):
            continue
        skill, problems = ws.parsed(rel)
        split = ws.split_text(rel)
        if skill is None or problems or split is None:
            continue
        lf, block, lines = split
        if not block.closed or not isinstance(skill.frontmatter, dict):
            continue
        memo[rel] = Parsed(path=rel, text=lf, front=skill.frontmatter, raw=block.raw, raw_line=block.yaml_start_line,
                           body=block.body, body_line=block.body_line, lines=lines)
        yield memo[rel]


# What :func:`memoised` keeps within :func:`shared_views`: (what, id of the text) -> (the text, the value).
_memo: dict | None = None


@contextmanager
def shared_views():
    """Within it, what :func:`memoised` computes of a text is computed once for every check module
    (the runner opens it around a run); after it, forgotten.

    The body check, the spec check and SK307 each read a body's fence lines, and SK008 and the
    security checks its lowered text: the same text object (a parsed view's body), the same value.
    """
    global _memo
    outer = _memo
    if outer is None:
        _memo = {}
    try:
        yield
    finally:
        if outer is None:
            _memo = None


def memoised(what: str, text: str, compute: Callable[[str], object]):
    """``compute(text)``, remembered by the identity of ``text`` within :func:`shared_views` (the memo
    holds the text, so its id is never another's while kept); outside it, computed each time.
    ``compute`` must be a pure function of the text, and its value is shared: never changed."""
    memo = _memo
    if memo is None:
        return compute(text)
    key = (what, id(text))
    kept = memo.get(key)
    if kept is not None and kept[0] is text:
        return kept[1]
    value = compute(text)
    memo[key] = (text, value)
    return value


# A fence line, ``^ {0,3}(`{3,}|~{3,})([^\n]*)`` with MULTILINE, matched at the start of a line.
_FENCE_HEAD = regexes.compile(r" {0,3}(`{3,}|~{3,})([^\n]*)")


def fence_lines(text: str) -> list:
    """(offset of the line, its match: the fence run, then the rest of the line) of each line of
    ``text`` that is a fence line (``^ {0,3}(`{3,}|~{3,})`` with MULTILINE), in order (found once
    per text within :func:`shared_views`; the list is shared, never changed).

    Each run of three backticks or tildes is found with ``str.find``, and only a line where one
    starts within its first four characters is matched (a fence line's first run does), the rest
    of a line skipped after a hit: a body of many lines costs no Python step, nor a regex step,
    per line, only per fence run.
    """
    return memoised("fence lines", text, _fence_lines)


def _fence_lines(text: str) -> list:
    starts = []
    find, rfind = text.find, text.rfind
    for mark in ("```", "~~~"):
        at = find(mark)
        while at >= 0:
            start = rfind("\n", 0, at) + 1
            if at - start <= 3:
                starts.append(start)
            end = find("\n", at)
            if end < 0:
                break
            at = find(mark, end + 1)
    if not starts:
        return starts
    match = _FENCE_HEAD.match
    return [(start, found) for start in sorted(set(starts)) if (found := match(text, start))]


def line_numbers_holding(text: str, needles) -> list[int]:
    """The number (from 0) of each line of ``text`` holding one of ``needles`` (none holds a line break),
    in order: each needle found with ``str.find``, the rest of a line skipped after a hit, so the lines
    holding none of them cost no Python step."""
    return [number for number, _start in _numbered_starts(text, needles)]


def lines_holding(text: str, needles) -> list[tuple[int, str]]:
    """(line number from 0, line) of each line of ``text`` holding one of ``needles`` (none holds a line
    break), in order: found with ``str.find``, each line read once, the others never visited."""
    find = text.find
    out = []
    for number, start in _numbered_starts(text, needles):
        end = find("\n", start)
        out.append((number, text[start:] if end < 0 else text[start:end]))
    return out


def _numbered_starts(text: str, needles) -> list[tuple[int, int]]:
    """(line number from 0, offset of the line) of each line of ``text`` holding one of ``needles``, in order."""
    starts: set[int] = set()
    find, rfind = text.find, text.rfind
    for needle in needles:
        at = find(needle)
        while at >= 0:
            starts.add(rfind("\n", 0, at) + 1)
            end = find("\n", at)
            if end < 0:
                break
            at = find(needle, end + 1)
    out = []
    number, counted = 0, 0
    for start in sorted(starts):
        number += text.count("\n", counted, start)
        counted = start
        out.append((number, start))
    return out


def _fenced(body: str):
    """(offset in the body, line number from 0, line, inside fenced code) of every line but the fences."""
    in_code = False
    fence = ""
    offset = 0
    for number, line in enumerate(body.split("\n")):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")) and len(line) - len(stripped) <= 3:
            mark = stripped[:3]
            if not in_code:
                in_code, fence = True, mark
            elif mark == fence:
                in_code = False
        else:
            yield offset, number, line, in_code
        offset += len(line) + 1


def outside_code(body: str):
    """(offset in the body, line number from 0, line) of every body line outside fenced code."""
    return ((offset, number, line) for offset, number, line, in_code in _fenced(body) if not in_code)


def per_skill(check_one: Callable[[Parsed], Iterable[Diagnostic]]):
    """The ``run`` and ``run_paths`` of a check module whose check reads one parsed SKILL.md at a time
    (:mod:`.contract`): ``run, run_paths = per_skill(check_one)``."""

    def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
        out: list[Diagnostic] = []
        for parsed in parsed_skills(ws, paths):
            out.extend(check_one(parsed))
        return out

    def run(ws: Workspace) -> list[Diagnostic]:
        return run_paths(ws, ws.skill_paths)

    return run, run_paths
