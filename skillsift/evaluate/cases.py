"""The cases file: labelled queries, read strictly, every problem reported with its line.

The YAML is composed into a node tree (never constructed into Python objects), and the
tree is walked by hand, so each problem carries the line it is on and every problem of
the file is reported at once in one AR9D2 error.  Scalars are read as written: YAML 1.1
typing (``yes`` -> true, ``0x10`` -> 16) never changes what a field means.

Longer than 450 lines because every field of a case is checked by hand against the node
tree (to keep each problem's line); the checks against the catalog (:func:`check_catalog`)
are the last 80 lines.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from ..diagnostics import Diagnostic, SkillsiftError
from . import CASES_INVALID

DEFAULT_K = 5
MAX_K = 100
MAX_FILE_BYTES = 4 << 20
MAX_CASES = 10_000
MAX_QUERY_BYTES = 4096
MAX_EXPECTED = 50
MAX_GRADE = 9

TOP_KEYS = ("version", "k", "cases")
CASE_KEYS = ("id", "query", "expect", "avoid", "role", "tags")
HINT = "Fix the lines listed; the format is described in docs/evaluation.md"

_INT = re.compile(r"[-+]?[0-9]+\Z")
_NULL_TAG = "tag:yaml.org,2002:null"

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


def cases_error(path: str, problems: Iterable[Problem]) -> SkillsiftError:
    """One AR9D2 error listing every problem with its line, in line order."""
    ordered = sorted(problems, key=lambda p: p[0])
    text = "; ".join(f"line {line}: {msg}" for line, msg in ordered)
    diags = [Diagnostic(file=path, line=line, code=CASES_INVALID, message=msg) for line, msg in ordered]
    return SkillsiftError(f"{CASES_INVALID}: invalid cases file: {path}: {text}", diagnostics=diags,
                          hint=HINT, exit_code=1)


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


# -- loading -------------------------------------------------------------------------------------


def load_cases(path: str) -> CaseFile:
    """Read and check a cases file.  File problems (missing, not a file, too large) are not AR9D2."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise SkillsiftError(f"cannot read cases file {path}: {exc.strerror or exc}",
                             hint="Pass the path of a YAML cases file") from None
    if not stat.S_ISREG(info.st_mode):
        raise SkillsiftError(f"cases file {path} is not a regular file",
                             hint="Pass the path of a YAML cases file")
    if info.st_size > MAX_FILE_BYTES:
        raise SkillsiftError(f"cases file {path} is larger than {MAX_FILE_BYTES} bytes (4 MiB)",
                             hint="Split the cases into several files")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise SkillsiftError(f"cannot read cases file {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise SkillsiftError(f"cases file {path} is larger than {MAX_FILE_BYTES} bytes (4 MiB)")
    return parse_cases(raw, path)


def parse_cases(data: str | bytes, path: str = "<cases>") -> CaseFile:
    """Parse the text of a cases file; raise one AR9D2 :class:`SkillsiftError` listing every problem."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise cases_error(path, [(line, "the file is not UTF-8 text")]) from None
    else:
        text = data
    if text.startswith("\ufeff"):
        text = text[1:]
    root = _compose(text, path)
    problems: list[Problem] = []
    version, k, cases = _walk_file(root, problems)
    if problems:
        raise cases_error(path, problems)
    return CaseFile(version=version, k=k, cases=tuple(cases), path=path)


def _compose(text: str, path: str):
    import yaml

    loader = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    try:
        return yaml.compose(text, Loader=loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        parts = [p for p in (exc.context, exc.problem) if p]
        raise cases_error(path, [(line, ": ".join(parts) or "the YAML does not parse")]) from None
    except yaml.YAMLError as exc:
        raise cases_error(path, [(1, str(exc).strip() or "the YAML does not parse")]) from None


# -- walking the node tree -----------------------------------------------------------------------


def _line(node) -> int:
    return node.start_mark.line + 1


def _is_null(node) -> bool:
    import yaml

    return isinstance(node, yaml.ScalarNode) and node.tag == _NULL_TAG and not node.style


def _is_scalar(node) -> bool:
    import yaml

    return isinstance(node, yaml.ScalarNode)


def _pairs(node, problems: list[Problem], prefix: str):
    """(key text, key line, value node) of a mapping; duplicate keys are problems."""
    import yaml

    seen: dict[str, int] = {}
    for key_node, value in node.value:
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else "<" + key_node.id + ">"
        kline = _line(key_node)
        if key in seen:
            problems.append((kline, f"{prefix}mapping key {_q(key)} already defined at line {seen[key]}"))
            continue
        seen[key] = kline
        yield key, kline, value


def _int_field(node, message: str, problems: list[Problem]) -> int | None:
    """The integer a plain scalar holds (null is 0); anything else is a problem and None."""
    if _is_null(node):
        return 0
    if _is_scalar(node) and not node.style and _INT.match(node.value):
        return int(node.value)
    shown = _q(node.value) if _is_scalar(node) else f"a {node.id}"
    problems.append((_line(node), f"{message} (got {shown})"))
    return None


def _walk_file(root, problems: list[Problem]):
    import yaml

    version, k = 0, 0
    cases: list[Case] = []
    if root is None or _is_null(root):
        problems.append((1, "version must be 1 (got 0)"))
        problems.append((1, "cases is empty"))
        return version, k, cases
    if not isinstance(root, yaml.MappingNode):
        problems.append((_line(root), "the cases file must be a mapping with version, k and cases"))
        return version, k, cases
    start = _line(root)
    fields = {}
    for key, kline, value in _pairs(root, problems, ""):
        if key not in TOP_KEYS:
            problems.append((kline, f"unknown key {_q(key)} (want version, k and cases)"))
            continue
        fields[key] = value
    node = fields.get("version")
    if node is None:
        problems.append((start, "version must be 1 (got 0)"))
    else:
        got = _int_field(node, "version must be 1", problems)
        if got is not None and got != 1:
            problems.append((_line(node), f"version must be 1 (got {got})"))
        version = got if got is not None else 0
    node = fields.get("k")
    if node is not None:
        got = _int_field(node, f"k must be between 1 and {MAX_K}", problems)
        if got is not None and (got < 0 or got > MAX_K):
            problems.append((_line(node), f"k must be between 1 and {MAX_K}"))
        k = got if got is not None and 0 <= got <= MAX_K else 0
    node = fields.get("cases")
    if node is None or _is_null(node):
        problems.append((start if node is None else _line(node), "cases is empty"))
        return version, k, cases
    if not isinstance(node, yaml.SequenceNode):
        problems.append((_line(node), "cases must be a list of cases"))
        return version, k, cases
    if not node.value:
        problems.append((_line(node), "cases is empty"))
    if len(node.value) > MAX_CASES:
        problems.append((_line(node), f"more than {MAX_CASES} cases"))
    seen: set[str] = set()
    for index, item in enumerate(node.value, start=1):
        case = _walk_case(item, index, seen, problems)
        if case is not None:
            cases.append(case)
    return version, k, cases


def _text_field(node, where: str, name: str, problems: list[Problem]) -> str:
    if _is_null(node):
        return ""
    if _is_scalar(node):
        return node.value
    problems.append((_line(node), f"{where}: {name} must be a string"))
    return ""


def _list_field(node, where: str, name: str, problems: list[Problem]) -> list:
    import yaml

    if _is_null(node):
        return []
    if not isinstance(node, yaml.SequenceNode):
        problems.append((_line(node), f"{where}: {name} must be a list"))
        return []
    return node.value


# a line break or another control character in an id would make one id several lines of
# ``regressed-cases`` and of every report (docs/evaluation.md, "The cases file")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _walk_case(node, index: int, seen: set[str], problems: list[Problem]) -> Case | None:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        problems.append((_line(node), f"case {index}: a case is a mapping with id, query and expect"))
        return None
    start = _line(node)
    raw: dict = {}
    fields: dict = {}
    lines: dict = {}
    for key, kline, value in _pairs(node, problems, f"case {index}: "):
        raw[key] = (kline, value)
    id_node = raw.get("id", (0, None))[1]
    case_id = id_node.value if id_node is not None and _is_scalar(id_node) and not _is_null(id_node) else ""
    where = f"case {_q(case_id)}" if case_id != "" else f"case {index}"
    for key, (kline, value) in raw.items():
        if key not in CASE_KEYS:
            problems.append((kline, f"{where}: unknown key {_q(key)} (want {', '.join(CASE_KEYS)})"))
            continue
        fields[key] = value
        lines[key] = _line(value) if not _is_null(value) else kline

    case_id = _text_field(fields["id"], where, "id", problems) if "id" in fields else ""
    query = _text_field(fields["query"], where, "query", problems) if "query" in fields else ""
    role = _text_field(fields["role"], where, "role", problems) if "role" in fields else ""

    # id and query
    id_line = lines.get("id", start)
    if not case_id.strip():
        problems.append((id_line, f"{where}: id is required"))
    elif case_id in seen:
        problems.append((id_line, f"{where}: duplicate id"))
    elif _CONTROL.search(case_id):
        problems.append((id_line, f"{where}: id holds a control character such as a line break; an id is one "
                                  "line of printable text"))
    seen.add(case_id)
    query_line = lines.get("query", start)
    if not query.strip():
        problems.append((query_line, f"{where}: query is required"))
    if len(query.encode("utf-8", "surrogatepass")) > MAX_QUERY_BYTES:
        problems.append((query_line, f"{where}: query is longer than {MAX_QUERY_BYTES} bytes"))

    # expect
    expect: list[Expected] = []
    entries = _list_field(fields["expect"], where, "expect", problems) if "expect" in fields else []
    if len(entries) > MAX_EXPECTED:
        problems.append((lines["expect"], f"{where}: more than {MAX_EXPECTED} expected skills"))
    expected_ids: set[str] = set()
    for entry in entries:
        got = _expect_entry(entry, where, problems)
        if got is None:
            continue
        if not got.id.strip():
            problems.append((got.line, f"{where}: an expect entry has no id"))
        elif got.id in expected_ids:
            problems.append((got.line, f"{where}: {_q(got.id)} is listed twice in expect"))
        expected_ids.add(got.id)
        if got.graded and not 1 <= got.grade <= MAX_GRADE:
            problems.append((got.line, f"{where}: grade of {_q(got.id)} must be between 1 and {MAX_GRADE}"))
        expect.append(got)

    # avoid
    avoid: list[str] = []
    avoid_lines: list[int] = []
    for entry in _list_field(fields["avoid"], where, "avoid", problems) if "avoid" in fields else []:
        if not _is_scalar(entry) or _is_null(entry) or not entry.value.strip():
            problems.append((_line(entry), f"{where}: an avoid entry is a skill name"))
            continue
        if entry.value in expected_ids:
            problems.append((_line(entry), f"{where}: {_q(entry.value)} is both expected and avoided"))
        avoid.append(entry.value)
        avoid_lines.append(_line(entry))

    # tags
    tags: list[str] = []
    for entry in _list_field(fields["tags"], where, "tags", problems) if "tags" in fields else []:
        if not _is_scalar(entry) or _is_null(entry):
            problems.append((_line(entry), f"{where}: a tag is a string"))
            continue
        tags.append(entry.value)

    return Case(id=case_id, query=query, expect=tuple(expect), avoid=tuple(avoid), role=role,
                tags=tuple(tags), line=start, avoid_lines=tuple(avoid_lines), role_line=lines.get("role", 0))


def _expect_entry(node, where: str, problems: list[Problem]) -> Expected | None:
    import yaml

    line = _line(node)
    if _is_scalar(node):
        return Expected(id="" if _is_null(node) else node.value, grade=1, graded=False, line=line)
    if not isinstance(node, yaml.MappingNode):
        problems.append((line, f"{where}: an expect entry is a skill name or {{id, grade}}"))
        return None
    skill, grade, graded, ok = "", 1, False, True
    for key, kline, value in _pairs(node, problems, f"{where}: "):
        if key == "id":
            if _is_scalar(value):
                skill = "" if _is_null(value) else value.value
            else:
                problems.append((_line(value), f"{where}: the id of an expect entry must be a skill name"))
                ok = False
        elif key == "grade":
            text = value.value if _is_scalar(value) else ""
            if _is_scalar(value) and not value.style and _INT.match(text):
                grade, graded = int(text), True
            else:
                shown = text if _is_scalar(value) else f"<{value.id}>"
                problems.append((_line(value), f"{where}: grade {_q(shown)} is not an integer"))
                ok = False
        else:
            problems.append((kline, f"{where}: unknown key {_q(key)} in an expect entry "
                                    "(want id and grade)"))
            ok = False
    if not ok:
        return None
    return Expected(id=skill, grade=grade, graded=graded, line=line)


# -- checks against the catalog ------------------------------------------------------------------


def skill_problems(case_file: CaseFile, known: Collection[str]) -> list[Problem]:
    """Expected or avoided skills that the catalog does not hold."""
    have = set(known)
    problems: list[Problem] = []
    for case in case_file.cases:
        for entry in case.expect:
            if entry.id not in have:
                problems.append((entry.line or case.line,
                                 f"case {_q(case.id)} expects unknown skill {_q(entry.id)}"))
        lines = case.avoid_lines
        if len(lines) != len(case.avoid):
            lines = (case.line,) * len(case.avoid)
        for name, line in zip(case.avoid, lines, strict=True):
            if name not in have:
                problems.append((line or case.line, f"case {_q(case.id)} avoids unknown skill {_q(name)}"))
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


def _no_roles(role: str) -> Collection[str]:
    raise KeyError(role)


def check_k(override: int) -> None:
    """``--k``: 0 means the file's k; negative or above 100 is an error (never clamped)."""
    if override < 0:
        raise SkillsiftError("--k must not be negative", hint="Use --k 0 for the file's k")
    if override > MAX_K:
        raise SkillsiftError(f"--k must be between 1 and {MAX_K} (or 0 for the file's k), got {override}")
