"""SK211-SK215: frontmatter that parses here but misleads an agent or its other readers.

Duplicate keys: the parsed frontmatter is cached between runs (skillsift/cache/frontmatter.py)
and PyYAML's result hides repeats, so a line scan looks for a key repeated at one indent in
one block; only then is the YAML composed again (bounded: the text already parsed, at most
:data:`MAX_NODES` nodes walked) to confirm it and find each repeat's line.
"""

from __future__ import annotations

import re

from ..config.checks import check
from ..diagnostics import ERROR, NOTE, WARNING, Diagnostic
from ..validators.text_cache import run_cached
from ..validators.workspace import Workspace
from .frontmatter import value_kind

DUPLICATE_KEY = check("SK211", "duplicate-key", ERROR,
                      summary="no frontmatter key is written twice (agents' JavaScript parsers reject the file)",
                      details="A key written twice in one mapping: PyYAML keeps the last value, the JavaScript YAML"
                              " parsers agents use reject the whole file (``Map keys must be unique``), so the "
                              "skill is not loaded.")
RESERVED = check("SK212", "reserved-word-name", NOTE, summary="the name holds no reserved word (claude, anthropic)",
                 details="A name holding a reserved word (``claude``, ``anthropic``): Claude's skill upload refuses"
                         " it (Claude's skills overview, \"Skill structure\").")
XML_TAG = check("SK213", "description-xml-tag", WARNING, summary="the description holds no XML tag",
                details="An XML tag in the description (refused by the same rules; agents splice the description "
                        "into their own XML-tagged listing).")
EMPTY_COMPAT = check("SK214", "compatibility-empty", WARNING, summary="compatibility, when set, is not empty",
                     details="``compatibility`` set but empty (the specification asks for 1-500 characters).")
LICENSE = check("SK215", "license-not-string", WARNING, summary="license, when set, is a string",
                details="``license`` that is not a string (a number or a list: readers expect one name or file).")
RESERVED_WORDS = ("anthropic", "claude")
MAX_NODES = 20_000
_KEY = re.compile(r"^( *)(?:- +)?([\"']?)([^\s\"'#:][^:#]*?)\2\s*:(?:\s|$)")
# _KEY at each line start of a whole block (a line's own characters only: no "\n" in a class or \s), for
# findall: (quote, key) of every line _KEY matches, in order.
_KEYS = re.compile(r"^ *(?:- +)?([\"']?)([^\s\"'#:][^:#\n]*?)\1[^\S\n]*:(?:[^\S\n]|$)", re.MULTILINE)
_XML = re.compile(r"</?[A-Za-z][\w.-]*(?:\s[^<>]*)?/?>")


def repeated_key_lines(raw: str) -> bool:
    """True when a block key repeats at one indent before the block closes (a cheap first look).

    A key the line scan finds twice is written on two lines, so a block whose lines write no key
    twice (nearly every frontmatter) is answered by one regex pass, without a Python step per line.
    """
    written = [key for _quote, key in _KEYS.findall(raw)]
    if len(set(written)) == len(written):
        return False
    seen: dict[int, set[str]] = {}
    for line in raw.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY.match(line)
        indent = len(line) - len(line.lstrip(" "))
        for deeper in [i for i in seen if i > indent]:
            del seen[deeper]
        if line.lstrip().startswith("- "):
            seen.pop(indent + 2, None)
            continue
        if match is None:
            continue
        keys = seen.setdefault(indent, set())
        if match.group(3) in keys:
            return True
        keys.add(match.group(3))
    return False


def duplicate_keys(raw: str, first_line: int) -> list[tuple[int, str, int]]:
    """(file line, key, line of its first occurrence) of every repeated key of every mapping in ``raw``."""
    import yaml

    try:
        node = yaml.compose(raw, Loader=yaml.SafeLoader)
    except Exception:  # noqa: BLE001 - the parse already succeeded; a compose failure says nothing new
        return []
    out: list[tuple[int, str, int]] = []
    stack = [node] if node is not None else []
    walked = 0
    while stack and walked < MAX_NODES:
        current = stack.pop()
        walked += 1
        if isinstance(current, yaml.MappingNode):
            first: dict[str, int] = {}
            for key, value in current.value:
                if isinstance(key, yaml.ScalarNode):
                    line = first_line + key.start_mark.line
                    if key.value in first:
                        out.append((line, key.value, first[key.value]))
                    else:
                        first[key.value] = line
                stack.append(value)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)
    return sorted(out)


def check_yaml(parsed) -> list[Diagnostic]:
    """SK211-SK215 of one parsed SKILL.md."""
    front, path = parsed.front, parsed.path
    out: list[Diagnostic] = []
    if repeated_key_lines(parsed.raw):
        for line, key, first in duplicate_keys(parsed.raw, parsed.raw_line):
            out.append(DUPLICATE_KEY.report(
                file=path, line=line,
                message=f'key "{key}" is written twice (first on line {first}); this parser keeps the last, the '
                        "JavaScript YAML parsers agents use reject the whole file",
                hint=f'keep one "{key}:" line and delete the other'))
    name = front.get("name")
    if isinstance(name, str):
        words = [w for w in RESERVED_WORDS if w in name.lower()]
        if words:
            out.append(RESERVED.report(
                file=path, line=parsed.line("name"),
                message=f'name "{name.strip()}" holds the reserved word "{words[0]}"; Claude\'s API refuses to '
                        "upload a skill so named (Claude Code loads it)",
                hint=f"rename it without \"{words[0]}\", e.g. `name: {_without(name, words[0])}`"))
    description = front.get("description")
    if isinstance(description, str) and "<" in description:
        tag = _XML.search(description)
        if tag:
            out.append(XML_TAG.report(
                file=path, line=parsed.line("description"),
                message=f"description holds the XML tag {tag.group(0)[:40]}; Claude refuses XML tags in a "
                        "description (agents put it inside their own tagged listing)",
                hint="write the words without angle brackets, or wrap a literal in backticks outside the "
                     "description"))
    if "compatibility" in front:
        value = front["compatibility"]
        if value is None or (isinstance(value, str) and not value.strip()):
            out.append(EMPTY_COMPAT.report(
                file=path, line=parsed.line("compatibility"),
                message="compatibility is set but empty; the specification asks for 1-500 characters",
                hint='say what the skill needs (`compatibility: "Requires git and Python 3.11+"`) or remove it'))
    if "license" in front and not isinstance(front["license"], str):
        out.append(LICENSE.report(
            file=path, line=parsed.line("license"),
            message=f"license must be a string (a license name or a file), not {value_kind(front['license'])}",
            hint='write `license: "MIT"` or `license: "Complete terms in LICENSE.txt"`'))
    return out


def _without(name: str, word: str) -> str:
    text = re.sub(re.escape(word), "", name.strip(), flags=re.IGNORECASE)
    return re.sub(r"-{2,}", "-", text).strip("-") or "my-skill"


def run(ws: Workspace) -> list[Diagnostic]:
    return run_paths(ws, ws.skill_paths)


def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
    return run_cached(ws, paths, "yaml_checks", check_yaml)
