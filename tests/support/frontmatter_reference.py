"""Frontmatter splitting and YAML reading as :mod:`skillsift.catalog.frontmatter` did them before the
closing fence was found with ``str.find``, before the fast reader was tried without the depth and
blank tests, and before it took nested mappings, block scalars, escapes and scalars that are not strings:
kept word for word as the reference the faster code is compared with
(tests/catalog/test_frontmatter_differential.py)."""

from __future__ import annotations

from skillsift.cache import regexes
from skillsift.catalog.frontmatter import (
    MAX_DEPTH,
    MAX_VALUES,
    PARSE_CODE,
    Frontmatter,
    YamlDocument,
    _blank_or_comments,
    _expands_beyond,
    _loader_class,
    _nesting_bound,
    _position,
    _resolvers,
    _scan_events,
    _unreadable,
    _yaml_error,
    is_fence,
)
from skillsift.diagnostics import ERROR, Diagnostic

BOM = "\ufeff"


def split_frontmatter(text: str) -> Frontmatter:
    """Split the leading frontmatter block from ``text`` (rules in the module docstring)."""
    if text.startswith(BOM):
        text = text[1:]
    first_end = text.find("\n")
    if first_end < 0 or not is_fence(text[:first_end]):
        return Frontmatter(body=text)
    raw_lines: list[str] = []
    start = first_end + 1
    line = 2
    size = len(text)
    while True:
        end = text.find("\n", start)
        current = text[start:] if end < 0 else text[start:end]
        if is_fence(current):
            stop = start + len(current)
            return Frontmatter(
                present=True,
                closed=True,
                raw="".join(raw_lines),
                body=text[stop + 1 :] if stop < size else "",
                yaml_start_line=2,
                body_line=line + 1,
            )
        if end < 0:
            break
        raw_lines.append((current[:-1] if current.endswith("\r") else current) + "\n")
        start = end + 1
        line += 1
    return Frontmatter(present=True, closed=False, raw="".join(raw_lines), body=text, yaml_start_line=2)


def read_yaml(raw: str, *, file: str = "", first_line: int = 1) -> YamlDocument:
    """Read one YAML document safely (see the module docstring).  Never raises.

    Simple frontmatter (:func:`_simple_mapping`) is read without importing PyYAML, which is
    most of a hook's cost on a changed SKILL.md; the result is what the loader builds.
    """
    try:
        shallow = _nesting_bound(raw) <= MAX_DEPTH and not _blank_or_comments(raw)
    except Exception:  # the path below reports it
        shallow = False
    if shallow:
        simple = _simple_mapping(raw)
        if simple is not None:
            return YamlDocument(value=simple)
    import yaml

    loader = _loader_class()
    try:
        if _nesting_bound(raw) <= MAX_DEPTH:
            # Cannot nest too deep: skip the event pass (it doubles the parse cost).
            has_node, deep = not _blank_or_comments(raw), None
        else:
            has_node, deep = _scan_events(raw, loader)
    except yaml.YAMLError as exc:
        return YamlDocument(diagnostics=(_yaml_error(exc, raw, file, first_line),))
    except Exception as exc:  # the contract is "never raise"
        return YamlDocument(diagnostics=(_unreadable(exc, file, first_line),))
    if deep is not None:
        line, column = _position(raw, deep, first_line)
        return YamlDocument(
            diagnostics=(
                Diagnostic(
                    file=file,
                    line=line,
                    column=column,
                    code=PARSE_CODE,
                    severity=ERROR,
                    message=f"frontmatter nests deeper than {MAX_DEPTH} levels",
                    hint="flatten the frontmatter: skills need a few plain keys, not deep structures",
                ),
            )
        )
    if not has_node:
        return YamlDocument(empty=True)
    if not shallow:  # (a shallow document was tried above)
        simple = _simple_mapping(raw, loader)
        if simple is not None:
            return YamlDocument(value=simple)
    try:
        value = yaml.load(raw, Loader=loader)  # a safe loader subclass
    except yaml.YAMLError as exc:
        return YamlDocument(diagnostics=(_yaml_error(exc, raw, file, first_line),))
    except Exception as exc:  # RecursionError, ValueError from odd tags, ...
        return YamlDocument(diagnostics=(_unreadable(exc, file, first_line, raw),))
    if "*" in raw and _expands_beyond(value, MAX_VALUES):  # only aliases can blow up
        return YamlDocument(
            diagnostics=(
                Diagnostic(
                    file=file,
                    line=first_line or None,
                    code=PARSE_CODE,
                    severity=ERROR,
                    message=f"frontmatter expands to more than {MAX_VALUES:,} values (aliases or a cycle)",
                    hint="write the values out instead of repeating anchors (&name / *name)",
                ),
            )
        )
    return YamlDocument(value=value)


_KEY_LINE = None
_ITEM_LINE = None
# Characters YAML does not allow in a stream (outside its printable set), plus the BOM.
_NOT_PRINTABLE = None


def _simple_mapping(raw: str, loader=None) -> dict | None:
    """The mapping of simple frontmatter, built without PyYAML's constructor; else None.

    Most SKILL.md frontmatter is a handful of ``key: scalar`` lines, flow lists of plain
    words (``tags: [a, b]``), block lists (``- item`` lines) or one nested level of
    ``key: scalar`` lines, and building those in Python costs a fraction of the loader.
    Anything outside that narrow form (a block scalar, a continuation line, an escape, a
    comment after a value, a scalar that resolves to something other than a string)
    returns None and the real loader decides, so the result always equals what the
    loader builds (tested on the real corpus and on generated frontmatter).  Without a
    ``loader`` the scalars resolve by :func:`_resolvers`, the same table without PyYAML.
    """
    global _KEY_LINE, _ITEM_LINE, _NOT_PRINTABLE
    if _KEY_LINE is None:
        _KEY_LINE = regexes.compile(r"( *)([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?")
        _ITEM_LINE = regexes.compile(r"( *)- +(.*)")
        _NOT_PRINTABLE = regexes.compile(  # outside YAML's printable set, line breaks other than LF/CR, the BOM
            "[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|\ufeff"
        )
    if _NOT_PRINTABLE.search(raw):
        return None
    resolvers = _resolvers() if loader is None else loader.yaml_implicit_resolvers
    lines = [line.rstrip(" ") for line in raw.split("\n") if line.strip(" ") and not line.startswith("#")]
    out: dict = {}
    i = 0
    while i < len(lines):
        match = _KEY_LINE.fullmatch(lines[i])
        if match is None or match.group(1) or not _plain_string(match.group(2), resolvers):
            return None
        key, value = match.group(2), match.group(3)
        i += 1
        if value is not None:
            value = _flow_list(value, resolvers) if value.startswith("[") else _scalar(value, resolvers)
        else:
            value, i = _block(lines, i, resolvers)
        if value is None:
            return None
        out[key] = value
    return out or None  # a blank document is the loader's to read (None, not {})


def _block(lines: list[str], i: int, resolvers: dict):
    """A block list or a one-level mapping of scalars starting at ``lines[i]``: (value, next i)."""
    item_line, key_line = _ITEM_LINE, _KEY_LINE
    assert item_line is not None and key_line is not None, "compiled by _simple_mapping, the only caller"
    if i >= len(lines):
        return None, i
    first = item_line.fullmatch(lines[i])
    if first is not None:
        indent, items = first.group(1), []
        while i < len(lines):
            item = item_line.fullmatch(lines[i])
            if item is None or item.group(1) != indent:
                break
            value = _scalar(item.group(2), resolvers)
            if value is None:
                return None, i
            items.append(value)
            i += 1
        if i < len(lines) and lines[i].startswith(" "):
            return None, i
        return items, i
    head = key_line.fullmatch(lines[i])
    if head is None or not head.group(1):
        return None, i
    indent, mapping = head.group(1), {}
    while i < len(lines) and lines[i].startswith(" "):
        entry = key_line.fullmatch(lines[i])
        if entry is None or entry.group(1) != indent or entry.group(3) is None \
                or not _plain_string(entry.group(2), resolvers):
            return None, i
        text = entry.group(3)
        field = _flow_list(text, resolvers) if text.startswith("[") else _scalar(text, resolvers)
        if field is None:
            return None, i
        mapping[entry.group(2)] = field
        i += 1
    return mapping, i


def _flow_list(value: str, resolvers: dict) -> list | None:
    """``[a, b c, d]`` of plain words, or ``["a b", 'c']`` of quoted ones (no escape, no comma, no
    quote inside), as a list of strings, or None.  ``& * ! | > % @ ` ?`` start a node's property, an
    alias or a block scalar only at its first character; inside a plain word (``torch>=2.0``) they are
    text."""
    if not value.endswith("]") or any(c in value[1:-1] for c in "[]{}#"):
        return None
    # YAML's white space is the space (a tab is refused below); str.strip() would also eat
    # characters such as U+00A0 that YAML keeps as content
    inner = value[1:-1].strip(" ")
    if not inner:
        return []
    items = []
    for part in inner.split(","):
        item = part.strip(" ")
        if "\t" in item:
            return None
        if item[:1] in ("'", '"'):
            quoted = _scalar(item, resolvers)  # the whole item one quoted scalar, else None
            if quoted is None:
                return None
            items.append(quoted)
            continue
        if not item or item[0] in "-:&*!|>%@`?" or ":" in item or "'" in item or '"' in item \
                or not _plain_string(item, resolvers):
            return None
        items.append(item)
    return items


def _scalar(value: str, resolvers: dict) -> str | None:
    """A one-line quoted (without escapes) or plain scalar that reads as a string, or None."""
    if value[0] == '"':
        if len(value) < 2 or value[-1] != '"' or '"' in value[1:-1] or "\\" in value:
            return None
        return value[1:-1]
    if value[0] == "'":
        if len(value) < 2 or value[-1] != "'" or "'" in value[1:-1]:
            return None
        return value[1:-1]
    if value[0] in ",[]{}#&*!|>'\"%@`" or ": " in value or " #" in value or value.endswith(":") \
            or "\t" in value or not _plain_string(value, resolvers):
        return None
    if value[0] in "-?:" and (len(value) < 2 or value[1] in " ,[]{}"):
        return None  # an indicator, not the start of a plain scalar
    return value


def _plain_string(value: str, resolvers: dict) -> bool:
    """True when the loader would read the plain scalar ``value`` as a string."""
    for _tag, regexp in resolvers.get(value[0] if value else "", []) + resolvers.get(None, []):
        if regexp.match(value):
            return False
    return True
