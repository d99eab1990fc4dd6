"""The strict parse of a cases file as skillsift.casefile.parse and skillsift.docschema did it before the
message fields and case labels were made only for a problem: the rules' walk (check and the walks under it)
and the build of the cases, kept word for word as the oracle of tests/casefile/test_parse_differential.py."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from skillsift.casefile.parse import _RANKS, Case, CaseFile, Expected, _compose, _q, cases_error
from skillsift.casefile.rules import CASES, MAX_GRADE, MAX_K, MAX_QUERY_BYTES, case_label
from skillsift.docschema import (
    _BAD,
    _EMPTY,
    Context,
    Problem,
    Rule,
    Written,
    _fits,
    _words,
    described,
    either,
    got,
    is_null,
    near,
    shown,
    text_of,
)


def quoted(text) -> str:
    return json.dumps(str(text), ensure_ascii=False)


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def check(value, rule: Rule, *, label: str = "", context: Context | None = None):
    """``(cleaned value, problems)`` of ``value`` against ``rule``.

    The cleaned value drops every node that failed (so defaults apply in its place).  Problems
    come in the rule's key order; each table's unknown keys first or last as it declares.
    """
    context = context or Context()
    unknown: list[Problem] = []
    cleaned = _walk(value, rule, (), label, "", context, unknown)
    return (None if cleaned is _BAD else cleaned), context.problems + unknown


def _walk(value, rule: Rule, path: tuple, label: str, where: str, ctx: Context, unknown: list[Problem]):
    out = ctx.problems
    if rule.same_label:
        label = where
    fmt = {"label": label, "where": where, "key": path[-1] if path else "", "words": _words(rule),
           "choices": either(rule.choices) if rule.choices else "", "shape": described(value)}
    value = _shaped(value, rule)
    if not _fits(value, rule):
        out.append(Problem(path, rule.message("kind", value=value, got=got(value), shown=shown(value), **fmt)))
        return _BAD
    if rule.kind == "either":
        rule = next(option for option in rule.options if _fits(value, option))
    if rule.kind == "text":
        value = text_of(value)
    if rule.kind == "number" and rule.finite and isinstance(value, float) and not math.isfinite(value):
        out.append(Problem(path, rule.message("finite", **fmt)))
        return _BAD
    problem = _value_problem(value, rule, fmt)
    if problem:
        out.append(Problem(path, problem))
        return _BAD
    if rule.kind == "table":
        value = _walk_table(value, rule, path, label, ctx, unknown)
    elif rule.kind == "list":
        value = _walk_list(value, rule, path, label, ctx, unknown)
    if rule.check is not None and value is not _BAD:
        found = rule.check(value, fmt, ctx)
        out.extend(Problem(path + tuple(sub), message) for sub, message in found)
        if found:
            return _BAD
    return value


def _shaped(value, rule: Rule):
    """The value as ``rule`` reads it: null as its kind's empty value (when nullable), one text as a list of one."""
    if is_null(value) and rule.nullable:
        value = _EMPTY.get(rule.options[0].kind if rule.kind == "either" else rule.kind)
    if rule.kind == "list" and rule.one_or_list and isinstance(value, (str, Written)):
        value = [value]
    return value


def _value_problem(value, rule: Rule, fmt: dict) -> str | None:
    kind = rule.kind
    if kind == "choice" and not (value == "" and rule.empty_ok) and value not in rule.choices:
        return rule.message("choice", value=value, **fmt)
    if kind in ("string", "text") and rule.nonblank and not value.strip():
        return rule.message("blank", value=value, **fmt)
    if kind in ("int", "number") and (rule.low is not None or rule.high is not None):
        low = -math.inf if rule.low is None else rule.low
        high = math.inf if rule.high is None else rule.high
        if not low <= value <= high:
            bounds = {"low": rule.low, "high": rule.high, "value": value, **fmt}
            if rule.between:
                return rule.message("between", **bounds)
            return rule.message("low" if value < low else "high", **bounds)
    if kind == "list":
        if rule.items is not None and rule.items.nonblank and rule.items.kind in ("string", "choice") and any(
                not v.strip() for v in value):
            return rule.message("blank", **fmt)
        if len(value) < rule.min_items:
            return rule.message("few", **fmt)
    return None


def _unknown_keys(value: dict, rule: Rule, path: tuple, label: str, ctx: Context) -> list[Problem]:
    """The problems of the keys a table does not declare (with "did you mean" for a near one, for the
    first :attr:`Context.near_left` of the walk: a document of 400,000 unknown keys stays fast)."""
    keys = rule.keys or {}
    if rule.values is not None or rule.unknown == "allow":
        return []
    out = []
    for key in value:
        if key not in keys:
            ctx.near_left -= 1
            out.append(Problem(path + (key,), rule.message("unknown", label=label, key=key, qkey=quoted(key),
                                                           where=label) + (near(key, keys) if ctx.near_left >= 0
                                                                           else ""), at_key=True))
    return out


def _walk_table(value: dict, rule: Rule, path: tuple, label: str, ctx: Context, unknown: list[Problem]):
    mine = _unknown_keys(value, rule, path, label, ctx)
    below: list[Problem] = []  # unknown keys passed up by the tables it holds
    keys = rule.keys or {}
    if rule.unknown == "first":
        ctx.problems.extend(mine)
    cleaned: dict = {}
    for key, sub in keys.items():
        if key in value:
            got_value = _walk(value[key], sub, path + (key,), _join(label, key), label, ctx, below)
            if got_value is not _BAD:
                cleaned[key] = got_value
        elif sub.required:
            ctx.problems.append(Problem(path, sub.message("required", label=_join(label, key), where=label, key=key)))
    if rule.values is not None:
        cleaned.update(_walk_values(value, rule, path, label, ctx, below))
    if rule.unknown == "up":
        unknown.extend(below + mine)
    else:
        ctx.problems.extend(below if rule.unknown == "first" else below + mine)
    return _BAD if rule.strict and mine else cleaned


def _walk_values(value: dict, rule: Rule, path: tuple, label: str, ctx: Context, below: list[Problem]) -> dict:
    """The keys of a free table not declared: each against ``rule.values`` (and ``key_names``, if any)."""
    cleaned: dict = {}
    allowed = rule.key_names(ctx) if rule.key_names is not None else None
    for key, item in value.items():
        if key in (rule.keys or {}):
            continue
        if allowed is not None and key not in allowed:
            ctx.problems.append(Problem(path + (key,), rule.message("unknown", label=label, key=key, qkey=quoted(key),
                                                                     where=label)))
            continue
        assert rule.values is not None
        got_value = _walk(item, rule.values, path + (key,), _join(label, str(key)), label, ctx, below)
        if got_value is not _BAD:
            cleaned[key] = got_value
    return cleaned


def _walk_list(value: list, rule: Rule, path: tuple, label: str, ctx: Context, unknown: list[Problem]):
    items = rule.items
    if rule.max_items is not None and len(value) > rule.max_items:
        ctx.problems.append(Problem(path, rule.message("many", label=label, high=rule.max_items)))
    if items is None:
        return value
    cleaned = []
    for index, entry in enumerate(value):
        if rule.entries == "indexed":
            entry_path = path + (index,)
            entry_label = (label if items.same_label else items.label(entry, index + 1, label) if items.label
                           else f"{label} entry {index + 1}")
        else:
            entry_path, entry_label = path, f"{label} entry"
        got_value = _walk(entry, items, entry_path, entry_label, label, ctx, unknown)
        if got_value is not _BAD:
            cleaned.append(got_value)
    return cleaned


def _join(label: str, key: str) -> str:
    return f"{label}.{key}" if label else str(key)


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
    from skillsift.docschema.yaml_nodes import tree

    plain = tree(_compose(text, path, what))
    ranked = _problems(plain)
    version, k, cases = _build(plain, ranked)
    problems = [(line, message) for line, _rank, message in sorted(ranked, key=lambda p: p[:2])]
    case_file = CaseFile(version=version, k=k, cases=tuple(cases), path=path)
    if problems:
        raise cases_error(path, problems, partial=case_file, what=what)
    return case_file


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


def _entries(value) -> list:
    return value if isinstance(value, list) else []


def _build_case(tree, path: tuple, item: dict, index: int, seen: set[str], problems: list) -> Case:
    where = case_label(item, index)
    start = tree.line(path)

    def at(key: str) -> int:
        return tree.line(path + (key,)) if key in item else start

    case_id, query, role = _text(item.get("id")), _text(item.get("query")), _text(item.get("role"))
    if not case_id.strip():
        problems.append((at("id"), (index - 1, 5), f"{where}: id is required"))
    elif case_id in seen:
        problems.append((at("id"), (index - 1, 5), f"{where}: duplicate id"))
    elif _CONTROL.search(case_id):
        problems.append((at("id"), (index - 1, 5), f"{where}: id holds a control character such as a line break; "
                                                     "an id is one line of printable text"))
    seen.add(case_id)
    if not query.strip():
        problems.append((at("query"), (index - 1, 6), f"{where}: query is required"))
    elif path + ("query",) in tree.typed:  # `query: 12`, `query: true`: YAML reads a number, not the words
        problems.append((at("query"), (index - 1, 6), f"{where}: query is {tree.typed[path + ('query',)]}, not "
                                                        f"text; quote it ({_q(query)})"))
    if len(query.encode("utf-8", "surrogatepass")) > MAX_QUERY_BYTES:
        problems.append((at("query"), (index - 1, 6), f"{where}: query is longer than {MAX_QUERY_BYTES} bytes"))
    expect: list[Expected] = []
    for n, entry in enumerate(_entries(item.get("expect"))):
        got = _expected(entry, tree.line(path + ("expect", n)))
        if got is None:
            continue
        if not got.id.strip():
            problems.append((got.line, (index - 1, 7), f"{where}: an expect entry has no id"))
        elif got.id in {e.id for e in expect}:
            problems.append((got.line, (index - 1, 7), f"{where}: {_q(got.id)} is listed twice in expect"))
        if got.graded and not 1 <= got.grade <= MAX_GRADE:
            problems.append((got.line, (index - 1, 7),
                             f"{where}: grade of {_q(got.id)} must be between 1 and {MAX_GRADE}"))
        expect.append(got)
    expected_ids = {e.id for e in expect}
    avoid: list[str] = []
    avoid_lines: list[int] = []
    for n, entry in enumerate(_entries(item.get("avoid"))):
        if isinstance(entry, (dict, list)) or is_null(entry) or not _text(entry).strip():
            continue  # the rules reported it
        line = tree.line(path + ("avoid", n))
        if _text(entry) in expected_ids:
            problems.append((line, (index - 1, 8), f"{where}: {_q(_text(entry))} is both expected and avoided"))
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
