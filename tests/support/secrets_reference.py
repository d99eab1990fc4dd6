"""AR001's findings in a SKILL.md as skill_findings made them before its values were read apart and
its loop skipped: the reference of tests/secrets/test_skill_findings_differential.py.  Kept verbatim
but for one change that makes it independent of the needle sets: each text (the file, each value)
is scanned on its own with scan_values, as before scan_many read them together."""

from __future__ import annotations

import re

from skillsift.secrets.scan import ALLOW_MARKER, SecretFinding, scan_values


def _strings(value):
    """Every string inside a parsed frontmatter value (lists and tables included)."""
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
    """The 1-based line of frontmatter ``key:`` in ``text`` (``first`` when not found)."""
    pattern = re.compile(r"[ \t]*[\"']?" + re.escape(key) + r"[\"']?[ \t]*:")
    for number, line in enumerate(text.split("\n")[: 4000], start=1):
        if number >= first and pattern.match(line):
            return number
    return first


def skill_findings(text: str, extra_patterns=(), *, skill=None, embedded: str = "") -> list[tuple[SecretFinding, str]]:
    if skill is None and not embedded:
        return scan_values(text, extra_patterns)
    texts: list[tuple[str, str]] = []
    if skill is not None:
        for key, value in (skill.frontmatter or {}).items():
            texts.extend((str(key), item) for item in _strings(value))
    if embedded:
        texts.extend((line.split(":", 1)[0], line) for line in embedded.split("\n"))
    found, *parts = [scan_values(part, extra_patterns) for part in [text, *(part for _key, part in texts)]]
    covered = [value for _finding, value in found]
    first = max(getattr(skill, "frontmatter_line", 0) or 1, 1)
    lines = None
    for (key, _part), part_found in zip(texts, parts, strict=True):
        for finding, value in part_found:
            if any(value in seen or seen in value for seen in covered):
                continue
            covered.append(value)
            offset = text.find(value)
            if offset >= 0:
                line = text.count("\n", 0, offset) + 1
                column = offset - (text.rfind("\n", 0, offset) + 1) + 1
            else:
                line, column = _key_line(text, key, first), None
            if lines is None:
                lines = text.split("\n")
            allowed = finding.allowed or ALLOW_MARKER in (lines[line - 1] if line <= len(lines) else "")
            found.append((SecretFinding(kind=finding.kind, label=finding.label, line=line, column=column or 0,
                                        masked=finding.masked, allowed=allowed), value))
    found.sort(key=lambda item: (item[0].line, item[0].column))
    return found
