"""Frontmatter splitting and YAML reading as :mod:`skillsift.catalog.frontmatter` did them before the
closing fence was found with ``str.find`` and before the fast reader was tried without the depth and
blank tests: kept word for word as the reference the faster code is compared with
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
    _block,
    _expands_beyond,
    _flow_list,
    _loader_class,
    _nesting_bound,
    _plain_string,
    _position,
    _resolvers,
    _scalar,
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




_simple_mapping_new = __import__("skillsift.catalog.frontmatter", fromlist=["_simple_mapping"])._simple_mapping
_simple_mapping_new("a: b\n")  # compiles the line patterns _block reads from its module
