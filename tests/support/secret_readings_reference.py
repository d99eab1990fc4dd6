"""How the secret scanner read a file and its values before the readings were made apart: the
reference of tests/secrets/test_readings_differential.py.

Kept verbatim from skillsift/secrets/scan.py and skillsift/checks/secrets.py (``skill_findings``) but
for the names of what they import: a SKILL.md and its values were joined with NUL and read by both
needle sets at once (every rule's needles in the first set), the file scanned for the rules the
whole reading called for, the values read again together when it called for one; two rules were
searched by Python's engine through the whole text (:func:`finditer`).  The rules' regexes, their
value checks and the placeholders are the scanner's own."""

from __future__ import annotations

import re
from functools import lru_cache

from skillsift.bytesets import SetGate, byte_set
from skillsift.secrets.scan import (
    _LONG_FOLDS,
    _SECOND_SET,
    ALLOW_MARKER,
    PATTERNS,
    SecretFinding,
    _builtin,
    _fold_bytes,
    _line_starts,
    _line_text,
    _locate,
    _patterns,
    _value_span,
    is_placeholder,
    mask,
)

NEEDLE_SETS = SetGate()
NEEDLE_SETS.open()


def _set_entries() -> tuple[list[tuple[str, str, str]], ...]:
    first: list[tuple[str, str, str]] = []
    for needle in sorted({n for rule in PATTERNS if not rule.folded for n in rule.needles}):
        first.append(("plain", needle, re.escape(needle)))
    for needle in sorted({n for rule in PATTERNS if rule.folded for n in rule.needles}):
        first.append(("folded", needle, _fold_bytes(needle)))
    first.append(("long-fold", "", "(?:" + "|".join(
        "".join(f"\\x{b:02x}" for b in ch.encode("utf-8")) for ch in _LONG_FOLDS) + ")"))
    second: list[tuple[str, str, str]] = []
    for rule in PATTERNS:
        if rule.prefilter:
            (second if rule.kind in _SECOND_SET else first).append(("prefilter", rule.kind, rule.prefilter))
    return first, second


@lru_cache(maxsize=1)
def _needle_sets():
    return tuple((byte_set([expression.encode("ascii") for _what, _name, expression in entries]), entries)
                 for entries in _set_entries())


def _set_held(text: str, parts: list[str] | None = None) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    if parts is None:
        data = _utf8(text)
    else:
        data = b"\0".join([_utf8(parts[0]), *(["\0".join(parts[1:]).encode("utf-8", "surrogatepass")]
                                              if len(parts) > 1 else [])])
    held: dict[str, set[str]] = {"plain": set(), "folded": set(), "prefilter": set(), "long-fold": set()}
    for found, entries in _needle_sets():
        for number in found.Match(data) or ():
            what, name, _expression = entries[number]
            held[what].add(name)
    folded = held["folded"]
    if held["long-fold"]:
        haystack = text.casefold()
        folded = {n for n in _rule_index()[1] if n in haystack}
    return frozenset(held["plain"]), frozenset(folded), frozenset(held["prefilter"])


@lru_cache(maxsize=1)
def _rule_index() -> tuple[dict[str, tuple[int, ...]], dict[str, tuple[int, ...]], frozenset[int]]:
    by_needle: tuple[dict[str, list[int]], dict[str, list[int]]] = ({}, {})
    for n, rule in enumerate(PATTERNS):
        for needle in rule.needles:
            by_needle[rule.folded].setdefault(needle, []).append(n)
    plain, folded = ({k: tuple(v) for k, v in table.items()} for table in by_needle)
    return plain, folded, frozenset(n for n, rule in enumerate(PATTERNS) if not rule.needles)


@lru_cache(maxsize=256)
def _candidates(plain: frozenset[str], folded: frozenset[str], prefiltered: frozenset[str]):
    by_plain, by_folded, needleless = _rule_index()
    numbers = set(needleless)
    for needle in plain:
        numbers.update(by_plain.get(needle, ()))
    for needle in folded:
        numbers.update(by_folded.get(needle, ()))
    compiled = _builtin()
    return tuple(compiled[n] for n in sorted(numbers)
                 if not compiled[n].rule.prefilter or compiled[n].rule.kind in prefiltered)


def _needles_held(text: str, parts: list[str] | None = None):
    if not NEEDLE_SETS.count(len(text)):
        return None
    return _set_held(text, parts)


_last_utf8: tuple[str, bytes] = ("", b"")


def _utf8(text: str) -> bytes:
    global _last_utf8
    if _last_utf8[0] is not text:
        _last_utf8 = (text, text.encode("utf-8", "surrogatepass"))
    return _last_utf8[1]


_UNSET = object()


def _matches(text: str, extra_patterns, *, placeholders: bool = False, held=_UNSET):
    claimed: list[tuple[int, int]] = []
    found = []
    folded = None
    if held is _UNSET:
        held = _needles_held(text)
    patterns = _patterns(extra_patterns)
    if held is not None:
        patterns = _candidates(*held) + patterns[len(PATTERNS):]
    for pattern in patterns:
        rule = pattern.rule
        if held is None and rule.needles:
            if rule.folded:
                if folded is None:
                    folded = text.casefold()
                haystack = folded
            else:
                haystack = text
            if not any(needle in haystack for needle in rule.needles):
                continue
        for m in finditer(pattern, text):
            if pattern.configured:
                group = 1 if pattern.regex.groups >= 1 and m.start(1) != -1 else 0
                span: tuple[int, int] | None = (m.start(group), m.end(group))
            else:
                span = _value_span(m, rule)
            if span is None:
                continue
            start, end = span
            if start == end or any(start < c_end and c_start < end for c_start, c_end in claimed):
                continue
            claimed.append((start, end))
            if not placeholders and is_placeholder(text[start:end], text[end : end + 16].lstrip()[:3],
                                                   elidable=rule.elidable):
                continue
            found.append((start, end, pattern))
    return sorted(found, key=lambda f: (f[0], f[1]))


#: The rules the scanner now tries only where a match can begin (its ``_STARTS``).
SEARCHED = ("notion-token", "basic-auth")


def finditer(pattern, text: str):
    """The scanner's ``_Compiled.finditer``, its rules of :data:`SEARCHED` searched by Python's engine as
    before (the loop of a bounded rule: its regex without the leading word boundary, checked instead)."""
    if pattern.kind not in SEARCHED:
        yield from pattern.finditer(text)
        return
    search, pos, n = pattern.regex.search, 0, len(text)
    while pos <= n:
        m = search(text, pos)
        if m is None:
            return
        start = m.start()
        if start and _word_char(text[start - 1]):
            pos = start + 1
            continue
        yield m
        pos = m.end() if m.end() > start else start + 1


def _word_char(ch: str) -> bool:
    return ch == "_" or ("a" <= ch <= "z") or ("A" <= ch <= "Z") or ("0" <= ch <= "9")


def scan_values(text: str, extra_patterns=()):
    return _values(text, extra_patterns, _UNSET)


def scan_many(texts, extra_patterns=()):
    texts = list(texts)
    held: object = _UNSET
    if len(texts) > 1:
        held = _needles_held("\0".join(texts), texts)
        if isinstance(held, tuple) and not extra_patterns:
            if not _candidates(*held):
                return [[] for _text in texts]
            first = _values(texts[0], extra_patterns, held)
            rest = _needles_held("\0".join(texts[1:]))
            return [first] + [_values(text, extra_patterns, rest) for text in texts[1:]]
    return [_values(text, extra_patterns, held) for text in texts]


def _values(text: str, extra_patterns, held):
    if not text:
        return []
    found = _matches(text, extra_patterns, held=held)
    if not found:
        return []
    starts = _line_starts(text)
    out = []
    for start, end, pattern in found:
        line, column = _locate(starts, start)
        allowed = ALLOW_MARKER in _line_text(text, starts, line)
        value = text[start:end]
        out.append((SecretFinding(kind=pattern.kind, label=pattern.label, line=line, column=column,
                                  masked=mask(value), allowed=allowed), value))
    return out


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key in value:
            yield from _strings(key)
            yield from _strings(value[key])
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _key_line(text: str, key: str, first: int) -> int:
    pattern = re.compile(r"[ \t]*[\"']?" + re.escape(key) + r"[\"']?[ \t]*:")
    for number, line in enumerate(text.split("\n")[: 4000], start=1):
        if number >= first and pattern.match(line):
            return number
    return first


def skill_findings(text: str, extra_patterns=(), *, skill=None, embedded: str = ""):
    if skill is None and not embedded:
        return scan_values(text, extra_patterns)
    keys: list = []
    values: list[str] = []
    if skill is not None:
        for key, value in (skill.frontmatter or {}).items():
            if isinstance(value, str):
                keys.append(key)
                values.append(value)
            else:
                for item in _strings(value):
                    keys.append(key)
                    values.append(item)
    if embedded:
        labelled = embedded.split("\n")
        keys.extend([None] * len(labelled))
        values.extend(labelled)
    found, *parts = scan_many([text, *values], extra_patterns)
    if not any(parts):
        return found
    covered = [value for _finding, value in found]
    first = max(getattr(skill, "frontmatter_line", 0) or 1, 1)
    lines = None
    for key, part, part_found in zip(keys, values, parts, strict=True):
        for finding, value in part_found:
            if any(value in seen or seen in value for seen in covered):
                continue
            covered.append(value)
            offset = text.find(value)
            if offset >= 0:
                line = text.count("\n", 0, offset) + 1
                column = offset - (text.rfind("\n", 0, offset) + 1) + 1
            else:
                line, column = _key_line(text, part.split(":", 1)[0] if key is None else str(key), first), None
            if lines is None:
                lines = text.split("\n")
            allowed = finding.allowed or ALLOW_MARKER in (lines[line - 1] if line <= len(lines) else "")
            found.append((SecretFinding(kind=finding.kind, label=finding.label, line=line, column=column or 0,
                                        masked=finding.masked, allowed=allowed), value))
    found.sort(key=lambda item: (item[0].line, item[0].column))
    return found
