"""The cases file: labelled queries, parsed strictly, every problem reported with its line.

The YAML is composed into a node tree (never constructed into Python objects) and read as
plain values with one map from node path to line (:mod:`skillsift.docschema.yaml_nodes`); the
file's rules (:mod:`.rules`, declared once) are applied by the one interpreter, then
the checks across fields run while the cases are built.  Every problem of the file is
reported at once in one AR9D2 error, each with its line; the checks against the catalog
(unknown skills with "did you mean", roles) join the same round through
:func:`with_catalog_problems`.  Scalars are read as written: YAML 1.1 typing (``yes`` ->
true, ``0x10`` -> 16) never changes what a field means.

Pure: text in, cases out.  Reading a cases file from disk, bounded, is
:func:`skillsift.evaluate.cases.load_cases`; the examples files the ranker reads are parsed here
too (:mod:`skillsift.ranker.known`), which is why this sits below both.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any

from ..diagnostics import Diagnostic, SkillsiftError
from ..docschema import check, is_null, near, text_of
from . import CASES_INVALID
from .rules import (  # noqa: F401  (the names other modules import from here)
    CASE_KEYS,
    CASES,
    DEFAULT_K,
    MAX_CASES,
    MAX_EXPECTED,
    MAX_GRADE,
    MAX_K,
    MAX_QUERY_BYTES,
    TOP_KEYS,
    case_label,
)

MAX_FILE_BYTES = 4 << 20
MAX_LISTED = 1000  # problems one AR9D2 error lists for a file; the others are counted on one more line
MAX_SUGGESTED = 100  # unknown names given a "did you mean" (each compares the name with every skill)
HINT = "Fix the lines listed; the format is described in docs/evaluation.md"

Problem = tuple[int, str]  # (1-based line, message)


@dataclass(frozen=True)
class Expected:
    """One relevant skill of a case.  A bare name has grade 1 and is ungraded."""

    id: str
    grade: int = 1
    graded: bool = False
    line: int = 0


@dataclass(frozen=True)
class Case:
    """One labelled query.  No expected skill makes it a negative case."""

    id: str
    query: str
    expect: tuple[Expected, ...] = ()
    avoid: tuple[str, ...] = ()
    role: str = ""
    tags: tuple[str, ...] = ()
    line: int = 0  # line of the case's first key
    avoid_lines: tuple[int, ...] = ()
    role_line: int = 0

    @property
    def expect_ids(self) -> tuple[str, ...]:
        return tuple(e.id for e in self.expect)

    @property
    def negative(self) -> bool:
        return not self.expect

    @property
    def graded(self) -> bool:
        return any(e.graded for e in self.expect)


@dataclass(frozen=True)
class CaseFile:
    version: int
    k: int
    cases: tuple[Case, ...]
    path: str = ""

    def effective_k(self, override: int = 0) -> int:
        """The cut-off: ``override`` when positive, else the file's k, else 5."""
        if override > 0:
            return min(override, MAX_K)
        if self.k > 0:
            return self.k
        return DEFAULT_K


# -- errors --------------------------------------------------------------------------------------


class CasesInvalid(SkillsiftError):
    """An invalid cases file: every problem, and the cases as far as they read (``partial``).

    ``partial`` lets the checks against the catalog (unknown skills and roles) run in the same
    round: :func:`with_catalog_problems`.
    """

    def __init__(self, message: str, *, problems: tuple[Problem, ...] = (), partial: CaseFile | None = None,
                 **kwargs):
        super().__init__(message, **kwargs)
        self.problems, self.partial = problems, partial


EXAMPLES_HINT = "Fix the lines listed (the examples file has the cases-file format, docs/evaluation.md)"


def cases_error(path: str, problems: Iterable[Problem], partial: CaseFile | None = None,
                what: str = "cases") -> CasesInvalid:
    """One AR9D2 error listing every problem with its line, in line order (``what``: cases or examples)."""
    ordered = sorted(problems, key=lambda p: p[0])
    listed = listed_problems(ordered)
    text = "; ".join(f"line {line}: {msg}" for line, msg in listed)
    diags = [Diagnostic(file=path, line=line, code=CASES_INVALID, message=msg) for line, msg in listed]
    return CasesInvalid(f"{CASES_INVALID}: invalid {what} file: {path}: {text}", diagnostics=diags,
                        hint=HINT if what == "cases" else EXAMPLES_HINT, exit_code=1, problems=tuple(ordered),
                        partial=partial)


def listed_problems(ordered: list[Problem]) -> list[Problem]:
    """The first :data:`MAX_LISTED` of ``ordered`` and, past them, one problem counting the rest.

    A file of 10,000 cases naming 50 unknown skills each would otherwise be 500,000 lines of
    report: the output stays bounded by the limit, not by what a file can hold."""
    if len(ordered) <= MAX_LISTED:
        return list(ordered)
    rest = len(ordered) - MAX_LISTED
    return list(ordered[:MAX_LISTED]) + [(ordered[MAX_LISTED][0], f"{rest} more problems from this line on are not "
                                                                   "listed; fix these and check again")]


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


# -- parsing -------------------------------------------------------------------------------------


def parse_cases(data: str | bytes, path: str = "<cases>", what: str = "cases") -> CaseFile:
    """Parse the text of a cases file; raise one AR9D2 :class:`SkillsiftError` listing every problem.

    ``what``: the kind of file the message names (``examples``: an examples file, the same format)."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise cases_error(path, [(line, "the file is not UTF-8 text")], what=what) from None
    else:
        text = data
    if text.startswith("\ufeff"):
        text = text[1:]
    from ..docschema.yaml_nodes import tree

    plain = tree(_compose(text, path, what))
    ranked = _problems(plain)
    version, k, cases = _build(plain, ranked)
    problems = [(line, message) for line, _rank, message in sorted(ranked, key=lambda p: p[:2])]
    case_file = CaseFile(version=version, k=k, cases=tuple(cases), path=path)
    if problems:
        raise cases_error(path, problems, partial=case_file, what=what)
    return case_file


def _compose(text: str, path: str, what: str):
    import yaml

    from ..docschema.yaml_nodes import compose

    try:
        return compose(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        parts = [p for p in (exc.context, exc.problem) if p]
        raise cases_error(path, [(line, ": ".join(parts) or "the YAML does not parse")], what=what) from None
    except yaml.reader.ReaderError as exc:  # a character YAML refuses (a NUL, an escape): the line it is on
        line = text[: max(0, exc.position)].count("\n") + 1
        raise cases_error(path, [(line, f"unacceptable character #x{exc.character:04x}: control characters "
                                        "are not allowed (write it as an escape in a double-quoted string)")],
                          what=what) from None
    except yaml.YAMLError as exc:
        raise cases_error(path, [(1, str(exc).strip() or "the YAML does not parse")], what=what) from None


# -- the rules, then what a table cannot say -------------------------------------------------------


def _problems(tree) -> list[tuple[int, tuple[int, int], str]]:
    """Every problem of the plain tree: duplicate keys, the rules of :data:`CASES`, the cross-field checks."""

    _cleaned, found = check(tree.value, CASES)
    problems = [(tree.line(p.path, p.at_key), _rank(p.path, p.at_key), p.message) for p in found]
    problems += [(line, _rank(path, False), f"{_dup_prefix(tree.value, path)}mapping key {_q(key)} already "
                                           f"defined at line {first}")
                 for path, key, line, first in tree.duplicates if _dup_prefix(tree.value, path) is not None]
    problems += [(line, _rank(path, False), _prefix(tree.value, path) + message)
                 for path, line, message in tree.refused]
    return problems


# within one line, a case's problems come in this order: its keys, its fields, then the checks across them
_RANKS = {"id": 2, "query": 3, "role": 4, "expect": 7, "avoid": 8, "tags": 9}  # 5, 6: id and query checks


def _rank(path: tuple, at_key: bool) -> tuple[int, int]:
    """(case index, order within the case) of a problem at ``path``: the top level comes first."""
    if len(path) < 2 or path[0] != "cases" or not isinstance(path[1], int):
        return (-1, 0)
    if len(path) == 2:
        return (path[1], 0)
    return (path[1], 1 if at_key and len(path) == 3 else _RANKS.get(path[2], 1))


def _prefix(doc, path: tuple) -> str:
    """``case "<id>": `` for a node inside a case, else ""."""
    if len(path) >= 2 and path[0] == "cases" and isinstance(path[1], int) and isinstance(doc, dict) and isinstance(
            doc.get("cases"), list) and path[1] < len(doc["cases"]):
        return case_label(doc["cases"][path[1]], path[1] + 1) + ": "
    return ""


def _dup_prefix(doc, path: tuple) -> str | None:
    if path == ():
        return ""
    if len(path) == 2 and path[0] == "cases" and isinstance(path[1], int):
        return f"case {path[1] + 1}: "
    if len(path) == 4 and path[0] == "cases" and isinstance(path[1], int) and path[2] == "expect" and isinstance(
            path[3], int):
        return case_label(doc["cases"][path[1]], path[1] + 1) + ": "
    return None


def _build(tree, problems: list) -> tuple[int, int, list[Case]]:
    """(version, k, cases) as far as they read; adds the checks across fields to ``problems``."""
    doc = tree.value if isinstance(tree.value, dict) else {}
    version: Any = doc.get("version")
    k: Any = doc.get("k")
    k = k if _is_int(k) and 0 <= k <= MAX_K else 0
    items = doc.get("cases")
    cases: list[Case] = []
    seen: set[str] = set()
    for index, item in enumerate(items if isinstance(items, list) else [], start=1):
        if isinstance(item, dict):
            cases.append(_build_case(tree, ("cases", index - 1), item, index, seen, problems))
    return int(version) if _is_int(version) else 0, int(k), cases


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value) -> str:
    return "" if is_null(value) or isinstance(value, (dict, list)) else text_of(value)


# a line break or another control character in an id would make one id several lines of
# ``regressed-cases`` and of every report (docs/evaluation.md, "The cases file")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _entries(value) -> list:
    return value if isinstance(value, list) else []


def _build_case(tree, path: tuple, item: dict, index: int, seen: set[str], problems: list) -> Case:
    start = tree.line(path)

    def where() -> str:  # the case's label: made only for a problem (most cases have none)
        return case_label(item, index)

    def at(key: str) -> int:
        return tree.line(path + (key,)) if key in item else start

    case_id, query, role = _text(item.get("id")), _text(item.get("query")), _text(item.get("role"))
    if not case_id.strip():
        problems.append((at("id"), (index - 1, 5), f"{where()}: id is required"))
    elif case_id in seen:
        problems.append((at("id"), (index - 1, 5), f"{where()}: duplicate id"))
    elif _CONTROL.search(case_id):
        problems.append((at("id"), (index - 1, 5), f"{where()}: id holds a control character such as a line break; "
                                                     "an id is one line of printable text"))
    seen.add(case_id)
    if not query.strip():
        problems.append((at("query"), (index - 1, 6), f"{where()}: query is required"))
    elif path + ("query",) in tree.typed:  # `query: 12`, `query: true`: YAML reads a number, not the words
        problems.append((at("query"), (index - 1, 6), f"{where()}: query is {tree.typed[path + ('query',)]}, not "
                                                        f"text; quote it ({_q(query)})"))
    if len(query.encode("utf-8", "surrogatepass")) > MAX_QUERY_BYTES:
        problems.append((at("query"), (index - 1, 6), f"{where()}: query is longer than {MAX_QUERY_BYTES} bytes"))
    expect: list[Expected] = []
    for n, entry in enumerate(_entries(item.get("expect"))):
        got = _expected(entry, tree.line(path + ("expect", n)))
        if got is None:
            continue
        if not got.id.strip():
            problems.append((got.line, (index - 1, 7), f"{where()}: an expect entry has no id"))
        elif got.id in {e.id for e in expect}:
            problems.append((got.line, (index - 1, 7), f"{where()}: {_q(got.id)} is listed twice in expect"))
        if got.graded and not 1 <= got.grade <= MAX_GRADE:
            problems.append((got.line, (index - 1, 7),
                             f"{where()}: grade of {_q(got.id)} must be between 1 and {MAX_GRADE}"))
        expect.append(got)
    expected_ids = {e.id for e in expect}
    avoid: list[str] = []
    avoid_lines: list[int] = []
    for n, entry in enumerate(_entries(item.get("avoid"))):
        if isinstance(entry, (dict, list)) or is_null(entry) or not _text(entry).strip():
            continue  # the rules reported it
        line = tree.line(path + ("avoid", n))
        if _text(entry) in expected_ids:
            problems.append((line, (index - 1, 8), f"{where()}: {_q(_text(entry))} is both expected and avoided"))
        avoid.append(_text(entry))
        avoid_lines.append(line)
    tags = tuple(_text(t) for t in _entries(item.get("tags")) if not isinstance(t, (dict, list)) and not is_null(t))
    return Case(id=case_id, query=query, expect=tuple(expect), avoid=tuple(avoid), role=role, tags=tags,
                line=start, avoid_lines=tuple(avoid_lines), role_line=at("role") if "role" in item else 0)


def _expected(entry, line: int) -> Expected | None:
    """One expect entry as far as it reads (None: the rules reported it)."""
    if isinstance(entry, dict):
        skill, grade = entry.get("id"), entry.get("grade")  # type: Any, Any
        if set(entry) - {"id", "grade"} or isinstance(skill, (dict, list)) or (
                "grade" in entry and not _is_int(grade)):
            return None
        return Expected(id=_text(skill), grade=int(grade) if "grade" in entry else 1, graded="grade" in entry,
                        line=line)
    if isinstance(entry, list):
        return None
    return Expected(id=_text(entry), grade=1, graded=False, line=line)


# -- checks against the catalog ------------------------------------------------------------------


def skill_problems(case_file: CaseFile, known: Collection[str]) -> list[Problem]:
    """Expected or avoided skills that the catalog does not hold."""
    have = set(known)
    names = sorted(have)
    suggested: dict[str, str] = {}

    def close(name: str) -> str:  # "did you mean" for the first MAX_SUGGESTED unknown names (difflib is slow)
        if name not in suggested and len(suggested) < MAX_SUGGESTED:
            suggested[name] = near(name, names)
        return suggested.get(name, "")

    problems: list[Problem] = []
    for case in case_file.cases:
        for entry in case.expect:
            if entry.id not in have:
                problems.append((entry.line or case.line,
                                 f"case {_q(case.id)} expects unknown skill {_q(entry.id)}{close(entry.id)}"))
        lines = case.avoid_lines
        if len(lines) != len(case.avoid):
            lines = (case.line,) * len(case.avoid)
        for name, line in zip(case.avoid, lines, strict=True):
            if name not in have:
                problems.append((line or case.line,
                                 f"case {_q(case.id)} avoids unknown skill {_q(name)}{close(name)}"))
    return problems


def role_problems(
    case_file: CaseFile, known: Collection[str], roles_configured: bool,
    resolve: Callable[[str], Collection[str]],
) -> tuple[dict[str, frozenset[str]], list[Problem]]:
    """Resolve every role the cases name; return (role -> served skill names, problems).

    ``resolve(role)`` returns the names a role serves and raises (``SkillsiftError``,
    ``KeyError`` or ``ValueError``) for an unknown role.
    """
    have = set(known)
    served: dict[str, frozenset[str]] = {}
    bad: set[str] = set()
    problems: list[Problem] = []
    for case in case_file.cases:
        if not case.role:
            continue
        line = case.role_line or case.line
        if not roles_configured:
            problems.append((line, f"case {_q(case.id)} sets role {_q(case.role)}, "
                                   "but no roles are configured"))
            continue
        if case.role in bad:
            problems.append((line, f"case {_q(case.id)}: unknown role {_q(case.role)}"))
            continue
        if case.role not in served:
            try:
                served[case.role] = frozenset(resolve(case.role))
            except (SkillsiftError, KeyError, ValueError):
                bad.add(case.role)
                problems.append((line, f"case {_q(case.id)}: unknown role {_q(case.role)}"))
                continue
        for entry in case.expect:
            if entry.id in have and entry.id not in served[case.role]:
                problems.append((entry.line or line, f"case {_q(case.id)} expects {_q(entry.id)}, "
                                                     f"which role {_q(case.role)} does not serve"))
    return served, problems


def check_catalog(case_file: CaseFile, known: Collection[str], *, roles_configured: bool = False,
                  resolve: Callable[[str], Collection[str]] | None = None) -> dict[str, frozenset[str]]:
    """Unknown skills and roles, as one AR9D2 error; returns role -> served names."""
    problems = skill_problems(case_file, known)
    served, more = role_problems(case_file, known, roles_configured, resolve or _no_roles)
    problems.extend(more)
    if problems:
        raise cases_error(case_file.path or "<cases>", problems)
    return served


def with_catalog_problems(error: SkillsiftError, known: Collection[str], *, roles_configured: bool = False,
                          resolve: Callable[[str], Collection[str]] | None = None) -> SkillsiftError:
    """``error`` (an invalid cases file) with the catalog's problems of the cases as far as they read.

    So a file's mistakes come in one round: its structure and its unknown skills and roles.
    Any other error comes back as it is.
    """
    if not isinstance(error, CasesInvalid) or error.partial is None:
        return error
    partial = error.partial
    more = skill_problems(partial, known)
    more += role_problems(partial, known, roles_configured, resolve or _no_roles)[1]
    if not more:
        return error
    return cases_error(partial.path or "<cases>", list(error.problems) + more, partial=partial)


def _no_roles(role: str) -> Collection[str]:
    raise KeyError(role)
