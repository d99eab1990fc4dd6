"""SKILL.md frontmatter: where the YAML block is, and reading it without ever raising.

Fence rules (shared by the catalog, the validators and evaluation):

- a leading UTF-8 BOM is dropped;
- the first line must be a fence: ``---`` once trailing spaces, tabs and a CR are removed
  (``--- `` is a fence; `` ---``, ``----`` and ``---foo`` are not), and it must end with a
  newline (a document that is only ``---`` has no frontmatter);
- the closing fence is the first later fence line, so a dash run or a markdown rule inside
  the YAML never closes the block and an empty block ``---\\n---`` stays empty;
- the raw YAML is the lines in between, each ending in ``\\n``, a trailing CR removed;
- the body is the text after the closing fence line with its original line endings; without
  a closed block it is the whole text.

YAML is read with PyYAML's safe loader (the C one when available) using YAML 1.2 scalar
rules, as the reference's YAML library does: only ``true``/``false`` are booleans (``on``,
``yes``, ``no`` stay strings), ``12:30`` is a string, not a base-60 number, and dates stay
strings.  Hostile input is refused with a diagnostic instead of crashing the process: the
nesting depth is checked on the event stream before anything is built (the C composer
recurses on the machine stack), and the built value may not expand, through aliases, to more
than :data:`MAX_VALUES` values.

Longer than 450 lines because the fast reader of simple frontmatter (:func:`_simple_mapping`)
must build exactly what the YAML loader builds, so it lives beside the loader's resolvers
and limits that it mirrors.  It reads every frontmatter block of the corpus of real skills, so
a cold run over such a catalog never imports PyYAML (about 20 ms of a run).
"""

from __future__ import annotations

import re
import sys

from skillsift.diagnostics import ERROR, Diagnostic

from ..cache import regexes
from ..records import record

BOM = "\ufeff"
FENCE = "---"
PARSE_CODE = "SK001"
MAX_DEPTH = 64
MAX_VALUES = 100_000

_HINT_DEFAULT = (
    "fix the YAML between the --- fences; quote a value that contains ': ' or ' #', "
    "or that starts with one of [ ] { } * & ! | > ' \" % @ `"
)
_HINT_TAB = "indent YAML with spaces; a tab cannot start a token"
_HINTS = (
    ("cannot start any token", 'quote a value that starts with @ or ` (for example description: "@x ...")'),
    (
        "mapping values are not allowed",
        'quote the value (for example description: "...") when it contains ": "',
    ),
    ("could not find expected ':'", "write one `key: value` per line; quote values that span lines"),
    ("found undefined alias", "define the anchor (&name) before using the alias (*name), or quote the text"),
    ("document start", "remove the '...' document end marker from the frontmatter"),
    ("expected a single document", "remove the '...' document end marker from the frontmatter"),
)


@record(frozen=True)
class Frontmatter:
    """Where a document's frontmatter block is.

    ``present``: the first line is a fence (closed or not).  ``closed``: a closing fence was
    found.  ``raw``: the YAML lines between the fences, CR removed.  ``body``: the text after
    the closing fence line (original line endings), else the whole text without its BOM.
    ``yaml_start_line``: the 1-based file line of the first YAML line (0 when not present).
    ``body_line``: the 1-based file line where ``body`` starts (0 unless closed).
    """

    present: bool = False
    closed: bool = False
    raw: str = ""
    body: str = ""
    yaml_start_line: int = 0
    body_line: int = 0


def is_fence(line: str) -> bool:
    """True for a line that is ``---`` once trailing spaces, tabs and CR are removed."""
    return line.rstrip(" \t\r") == FENCE


def split_frontmatter(text: str) -> Frontmatter:
    """Split the leading frontmatter block from ``text`` (rules in the module docstring).

    Only lines that start with ``---`` can close the block, so the closing fence is looked for
    with ``str.find`` from one such line to the next instead of line by line; the YAML lines
    between are one slice, their CR LF made LF (exactly the CR each line ending loses).
    """
    if text.startswith(BOM):
        text = text[1:]
    first_end = text.find("\n")
    if first_end < 0 or not is_fence(text[:first_end]):
        return Frontmatter(body=text)
    start = first_end + 1
    at = text.find("\n---", first_end)
    while at >= 0:
        line_start = at + 1
        end = text.find("\n", line_start)
        if is_fence(text[line_start:] if end < 0 else text[line_start:end]):
            raw = text[start:line_start]
            return Frontmatter(
                present=True,
                closed=True,
                raw=raw.replace("\r\n", "\n") if "\r" in raw else raw,
                body="" if end < 0 else text[end + 1 :],
                yaml_start_line=2,
                body_line=3 + raw.count("\n"),
            )
        if end < 0:
            break
        at = text.find("\n---", end)
    raw = text[start : text.rfind("\n") + 1]  # every line that ends in LF (none: rfind finds the first line's)
    return Frontmatter(present=True, closed=False, raw=raw.replace("\r\n", "\n") if "\r" in raw else raw,
                       body=text, yaml_start_line=2)


_TOP_KEY = regexes.compile(r"^([A-Za-z_][\w-]*)\s*:")


def key_lines(raw_yaml: str, first_line: int) -> dict[str, int]:
    """File line of each top-level key of the frontmatter (first occurrence), the raw YAML
    starting at file line ``first_line``."""
    out: dict[str, int] = {}
    for offset, line in enumerate(raw_yaml.split("\n")):
        match = _TOP_KEY.match(line)
        if match and match.group(1) not in out:
            out[match.group(1)] = first_line + offset
    return out


@record(frozen=True)
class YamlDocument:
    """The outcome of reading one YAML text: ``value`` (None on error), ``empty`` (the
    text holds no node at all: blank or only comments) and the diagnostics."""

    value: object = None
    empty: bool = False
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.diagnostics


def not_a_mapping(value: object, *, file: str, line: int) -> Diagnostic:
    """The SK001 diagnostic for frontmatter that parsed to something other than a mapping."""
    return Diagnostic(
        file=file,
        line=line or None,
        code=PARSE_CODE,
        severity=ERROR,
        message=f"frontmatter must be a mapping of keys to values, not {_kind(value)}",
        hint="write `name: ...` and `description: ...` lines between the --- fences",
    )


def read_yaml(raw: str, *, file: str = "", first_line: int = 1) -> YamlDocument:
    """Read one YAML document safely (see the module docstring).  Never raises.

    Simple frontmatter (:func:`_simple_mapping`) is read without importing PyYAML, which is
    most of a hook's cost on a changed SKILL.md; the result is what the loader builds.
    """
    # (no depth or blank test first: a mapping the fast reader builds nests _MAX_LEVELS levels and a list at
    # most, far below MAX_DEPTH, and it builds none of a blank or comment-only text)
    try:
        simple = _simple_mapping(raw)
    except Exception:  # the path below reports it
        simple = None
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
# Every line of a block of key lines: spaces, ``key:``, then nothing or spaces and the value (to its line's end)
_KEY_LINES = None
# Characters YAML does not allow in a stream (outside its printable set), line breaks other than LF, the BOM
_NOT_PRINTABLE = None
#: What the fast reader returns for a text it leaves to the loader (None is a value it can build: ``key:``).
_NO = object()
#: Nesting the fast reader builds at most (the loader's limit, :data:`MAX_DEPTH`, is far above it).
_MAX_LEVELS = 8
#: The escapes of a double-quoted scalar the fast reader decodes (others go to the loader).
_ESCAPES = {"\\": "\\", '"': '"', "/": "/", "n": "\n", "t": "\t"}
_HEX = frozenset("0123456789abcdefABCDEF")
#: The block scalar headers the fast reader takes: literal or folded, clipped or stripped.
_BLOCK_HEADERS = {"|": (False, True), "|-": (False, False), ">": (True, True), ">-": (True, False)}


def _simple_mapping(raw: str, loader=None) -> dict | None:
    """The mapping of simple frontmatter, built without PyYAML's constructor; else None.

    Most SKILL.md frontmatter is block mappings nested a few levels deep whose values are
    one-line scalars (plain, single-quoted, or double-quoted with the common escapes), plain
    or quoted scalars continued on deeper lines, one-line flow collections (``tags: [a, b]``,
    ``metadata: {"k": ["v"]}``), block lists of scalars, flow collections or mappings
    (``- key: value`` lines), literal or folded block scalars (``|``, ``|-``, ``>``, ``>-``),
    or nothing (null); building those in Python costs a fraction of the loader.  Anything
    else (an anchor, an alias, a tag, a comment after a value, a block scalar with an
    indentation indicator or more-indented folded lines, an escaped line break, a tab, ...)
    returns None and the real loader decides, so the result always equals what the loader
    builds (tested against it on the real corpus and on generated frontmatter).  Plain
    scalars resolve as the loader resolves them (strings, and the YAML 1.2 core booleans,
    integers, floats and null, constructed as its SafeConstructor does).  Without a
    ``loader`` the scalars resolve by :func:`_resolvers`, the same table without PyYAML.
    """
    global _KEY_LINE, _ITEM_LINE, _KEY_LINES, _NOT_PRINTABLE
    if _KEY_LINE is None:
        _KEY_LINE = regexes.compile(r"( *)([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?")
        _ITEM_LINE = regexes.compile(r"( *)- +(.*)")
        _KEY_LINES = regexes.compile(r"(?m)^( *)([A-Za-z_][A-Za-z0-9_-]*):(?: +([^\n]*))?\n")
        # outside YAML's printable set (tab, LF, U+0020-U+007E, U+00A0-U+D7FF, U+E000-U+FFFD, past U+FFFF),
        # line breaks other than LF (CR, NEL, U+2028, U+2029) and the BOM, named as the characters themselves:
        # the negated class of the printable ranges costs the regular-expression compiler about 10 ms
        _NOT_PRINTABLE = regexes.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
    resolvers = _resolvers() if loader is None else loader.yaml_implicit_resolvers
    keyed = _key_lines_mapping(raw, resolvers)
    return _line_by_line(raw, resolvers) if keyed is _NO else keyed


def _line_by_line(raw: str, resolvers: dict) -> dict | None:
    """:func:`_simple_mapping` of any text, read line by line (what the reader did before it took blocks of
    key lines at once, and what decides for the blocks :func:`_key_lines_mapping` leaves)."""
    lines = raw.split("\n")
    # A line Python calls printable holds none of those (they are all control, format, separator,
    # surrogate or unassigned characters to it), and asking is a table look-up per character: the
    # pattern's search, about 50 instructions a character, is left to the lines that are not (a tab).
    assert _NOT_PRINTABLE is not None, "compiled by _simple_mapping, the only caller"
    not_printable = _NOT_PRINTABLE.search
    for line in lines:
        if not line.isprintable() and not_printable(line):
            return None
    i = _next_node(lines, 0)
    if i == len(lines):
        return None  # a blank document is the loader's to read (None, not {})
    value, i = _mapping(lines, i, 0, resolvers, 1)
    if value is _NO or i < len(lines):
        return None
    return value


def _key_lines_mapping(raw: str, resolvers: dict):
    """The mapping of a block of key lines, or _NO when ``raw`` is not one or holds what the line by line
    reading (:func:`_mapping`) must decide.

    A block of key lines is one ``key: value`` or ``key:`` line after another, with no blank, comment or
    list line: flat mappings, and mappings nested under a ``key:`` line, their keys indented alike.  That
    is most frontmatter, and one search of the block finds every line's indentation, key and value; the
    values are then read as :func:`_mapping` reads them on such lines (a plain or quoted one-line scalar,
    a one-line flow collection, or nothing: null, or the mapping of the deeper lines after it), with a
    fraction of its calls.  A key line is one of the block's lines only from its start (``^``), so as many
    lines found as lines (each ending in a line break) means every line is one.  Whatever else a line may
    hold (a character outside YAML's printable set, a block scalar header, a quote that does not close on
    its line, a key the loader reads as no string, a line indented between two levels, a deeper line
    after a value, a failure such as ``int("_", 16)`` of ``0x_``, ...) is left to :func:`_mapping` by
    returning _NO, so this answers only where it answers the same (tests/catalog/test_frontmatter_key_lines.py
    holds the two equal)."""
    assert _KEY_LINES is not None, "compiled by _simple_mapping, the only caller"
    if raw[-1:] != "\n" or raw[:1] == " ":  # a last line without a line break, or an indented first line
        return _NO
    found = _KEY_LINES.findall(raw)
    if len(found) != raw.count("\n"):
        return _NO
    try:
        return _key_lines(found, resolvers)
    except ValueError:
        return _NO


def _key_lines(found: list[tuple[str, str, str]], resolvers: dict):
    """The mapping of the key lines ``found`` (indentation, key, value text), or _NO (:func:`_key_lines_mapping`)."""
    every_key = None in resolvers  # (resolvers for any first character: none in the tables used here)
    out: dict = {}
    opened = [(0, out)]  # the mappings open: the column of their keys, the dict
    column, into = 0, out
    empty = None  # the key of the line before when it had no value: a deeper line opens its mapping
    for spaces, key, text in found:
        if len(spaces) != column:
            if len(spaces) > column:
                if empty is None or len(opened) >= _MAX_LEVELS:
                    return _NO
                child: dict = {}
                into[empty] = child
                column, into = len(spaces), child
                opened.append((column, into))
            else:
                while opened[-1][0] > len(spaces):
                    opened.pop()
                column, into = opened[-1]
                if column != len(spaces):  # between two levels
                    return _NO
        if (every_key or key[0] in resolvers) and not _plain_string(key, resolvers):
            return _NO
        if text[-1:] == " ":
            text = text.rstrip(" ")
        empty = None
        if not text:
            value = None
            empty = key
        elif not text.isprintable():  # (a tab, or a character the reader refuses)
            return _NO
        else:
            first = text[0]
            if first in "'\"":
                value = _value(text, resolvers)
            elif first in "[{":
                value = _flow(text, resolvers)
            elif not _plain_ok(text):  # (nor is a block scalar's header: its first character is | or >)
                return _NO
            elif every_key or first in resolvers:
                value = _resolved(text, resolvers)
            else:  # no resolver for its first character: a string (as :func:`_resolved` finds)
                value = text
            if value is _NO:
                return _NO
        into[key] = value
    return out


def _next_node(lines: list[str], i: int) -> int:
    """The index of the first line from ``lines[i]`` that is neither blank (spaces only) nor a comment
    starting at the first column (``len(lines)`` when there is none)."""
    end = len(lines)
    while i < end:
        line = lines[i]
        if line[:1] != "#" and line.strip(" "):
            return i
        i += 1
    return end


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _mapping(lines: list[str], i: int, indent: int, resolvers: dict, level: int):
    """The block mapping whose keys start at column ``indent`` from ``lines[i]`` (a node's line):
    (the dict, the index of the first node line after it) or (_NO, i)."""
    key_line = _KEY_LINE
    assert key_line is not None, "compiled by _simple_mapping, the only caller"
    out: dict = {}
    end = len(lines)
    while i < end:
        match = key_line.fullmatch(lines[i].rstrip(" "))
        if match is None or len(match.group(1)) != indent or not _plain_string(match.group(2), resolvers):
            return _NO, i
        text = match.group(3)
        if text is None:
            value, i = _nested(lines, _next_node(lines, i + 1), indent, resolvers, level)
        elif text in _BLOCK_HEADERS:
            value, i = _block_scalar(lines, i + 1, indent, text)
            i = _next_node(lines, i)
        else:
            value, i = _inline(lines, i, indent, text, resolvers)
        if value is _NO:
            return _NO, i
        out[match.group(2)] = value
        if i < end:
            below = _indent(lines[i]) if lines[i][:1] == " " else 0
            if below < indent:
                break
            if below > indent:  # a line indented between two levels, or after a value that ended
                return _NO, i
    return out, i


def _inline(lines: list[str], i: int, indent: int, text: str, resolvers: dict):
    """The value that starts with ``text`` on the line ``lines[i]`` of a mapping entry at column ``indent``:
    a flow collection, a quoted scalar (on more lines when it is not closed on this one), or a plain
    scalar (continued on the lines indented deeper); (value, index of the next node line) or (_NO, i)."""
    first = text[0]
    if first in "[{":
        return _flow(text, resolvers), _next_node(lines, i + 1)
    if first in "'\"":
        value = _value(text, resolvers)
        if value is _NO and _closing(text[1:], first) < 0:
            value, i = _quoted_lines(lines, i, indent, text)
            return value, _next_node(lines, i)
        return value, _next_node(lines, i + 1)
    if not _plain_ok(text):
        return _NO, i
    return _plain_lines(lines, i + 1, indent, text, resolvers)


def _nested(lines: list[str], i: int, indent: int, resolvers: dict, level: int):
    """The value of a ``key:`` line at column ``indent`` whose next node line is ``lines[i]``: a block
    list, a deeper mapping, a plain scalar on the deeper lines, or null when the next line is not deeper
    (nor a list at the same column)."""
    if i == len(lines):
        return None, i
    line = lines[i]
    column = _indent(line)
    if line.startswith("-", column) and column >= indent:
        return _sequence(lines, i, column, resolvers, level)
    if column <= indent:
        return None, i
    if level >= _MAX_LEVELS:
        return _NO, i
    assert _KEY_LINE is not None, "compiled by _simple_mapping, the only caller"
    if _KEY_LINE.fullmatch(line.rstrip(" ")) is None:
        text = line.strip(" ")
        return _plain_lines(lines, i + 1, indent, text, resolvers) if _plain_ok(text) else (_NO, i)
    return _mapping(lines, i, column, resolvers, level + 1)


def _sequence(lines: list[str], i: int, column: int, resolvers: dict, level: int):
    """The block list whose ``-`` are at ``column`` from ``lines[i]``, of one-line scalars, flow
    collections and mappings (``- key: value`` and the keys under it): (list, next node line) or (_NO, i)."""
    item_line, key_line = _ITEM_LINE, _KEY_LINE
    assert item_line is not None and key_line is not None, "compiled by _simple_mapping, the only caller"
    items: list = []
    end = len(lines)
    while i < end:
        line = lines[i].rstrip(" ")
        item = item_line.fullmatch(line)
        if item is None or len(item.group(1)) != column:
            return _NO, i
        text = item.group(2)
        if key_line.fullmatch(text):
            if level >= _MAX_LEVELS:
                return _NO, i
            keys = len(line) - len(text)  # the column of its keys
            lines[i] = " " * keys + text  # (the list is the reader's own)
            value, i = _mapping(lines, i, keys, resolvers, level + 1)
        else:
            value = _flow(text, resolvers) if text[0] in "[{" else _value(text, resolvers)
            i = _next_node(lines, i + 1)
        if value is _NO:
            return _NO, i
        items.append(value)
        if i < end:
            below = _indent(lines[i])
            if below < column or (below == column and not lines[i].startswith("-", column)):
                break
            if below > column:
                return _NO, i
    return items, i


def _plain_lines(lines: list[str], i: int, indent: int, first: str, resolvers: dict):
    """A plain scalar whose first line's text is ``first`` (:func:`_plain_ok`), continued on the lines from
    ``lines[i]`` indented deeper than ``indent``: (its value, index of the next node line) or (_NO, i).

    A single line break between two lines reads as a space, ``n`` blank lines as ``n`` breaks, and the
    joined text resolves as one scalar.  A continued line that starts with an indicator (``-``, ``#``,
    a quote, a bracket, ...) or holds ``: `` or `` #`` is left to the loader."""
    end = len(lines)
    if i < end and lines[i][:1] not in (" ", ""):  # the next line starts at the first column: not continued
        return _resolved(first, resolvers), _next_node(lines, i)
    parts = [first]
    blank = 0
    while i < end:
        line = lines[i]
        text = line.strip(" ")
        if not text:
            blank += 1
            i += 1
            continue
        if _indent(line) <= indent:
            break
        if text[0] in _MAYBE_FIRST or not _plain_ok(text):
            return _NO, i
        parts.append(" " if blank == 0 else "\n" * blank)
        parts.append(text)
        blank = 0
        i += 1
    value = "".join(parts)
    return _resolved(value, resolvers), _next_node(lines, i)


def _quoted_lines(lines: list[str], i: int, indent: int, text: str):
    """A quoted scalar that opens with ``text`` on ``lines[i]`` (a mapping entry's at column ``indent``) and
    closes at the end of a later line indented deeper: (the str, index of the line after it) or (_NO, i).

    White space around each line break is dropped; a single break reads as a space, ``n`` blank lines as
    ``n`` breaks.  A tab, a line ending in a backslash (an escaped break) or anything after the closing
    quote is left to the loader."""
    quote = text[0]
    pieces = [text[1:]]
    end = len(lines)
    blank = 0
    j = i + 1
    while j < end:
        line = lines[j]
        if "\t" in line:
            return _NO, i
        inner = line.strip(" ")
        if not inner:
            blank += 1
            j += 1
            continue
        if _indent(line) <= indent:
            return _NO, i
        pieces.append(" " if blank == 0 else "\n" * blank)
        blank = 0
        close = _closing(inner, quote)
        if close >= 0:
            if close != len(inner) - 1 or "\t" in pieces[0] or any(p.endswith("\\") for p in pieces):
                return _NO, i
            pieces.append(inner[:-1])
            body = "".join(pieces)
            return (_double_quoted if quote == '"' else _single_quoted)(quote + body + quote), j + 1
        pieces.append(inner)
        j += 1
    return _NO, i


def _block_scalar(lines: list[str], i: int, indent: int, header: str):
    """The block scalar of a mapping entry at column ``indent`` with ``header`` (``|``, ``|-``, ``>``,
    ``>-``), its text starting at ``lines[i]``: (the str, index of the first line after it) or (_NO, i).

    Its lines are those indented by at least the first line's indentation, which must be deeper than
    the entry's; blank lines among them keep their line breaks.  Literal: the lines joined by line
    breaks; folded: a single break between two lines becomes a space, ``n`` blank lines ``n`` breaks.
    Clipped: one final line break; stripped: none.  Left to the loader: a blank first line, a line of
    spaces longer than the indentation, a tab, a folded line indented further (kept as written), and a
    last line without a line break (the end of a text without one)."""
    folded, clip = _BLOCK_HEADERS[header]
    end = len(lines)
    if i >= end or not lines[i].strip(" "):
        return _NO, i
    column = _indent(lines[i])
    if column <= indent:
        return _NO, i  # an empty scalar
    parts: list[str] = []
    blank = 0
    while i < end:
        line = lines[i]
        if "\t" in line:
            return _NO, i
        if not line.strip(" "):
            if len(line) > column:
                return _NO, i
            blank += 1
            i += 1
            continue
        if _indent(line) < column:
            break
        text = line[column:]
        if folded and text.startswith(" "):
            return _NO, i
        if parts:
            parts.append((" " if blank == 0 else "\n" * blank) if folded else "\n" * (blank + 1))
        parts.append(text)
        blank = 0
        i += 1
    last = i - 1 - blank  # the last line of text
    if last == end - 1:
        return _NO, i  # no line break after it
    if clip:
        parts.append("\n")
    return "".join(parts), i


def _flow(text: str, resolvers: dict):
    """The one-line flow collection ``text`` (``[a, "b c", 2]``, ``{"k": [x]}``, nested), or _NO.

    Plain scalars in it end before ``, [ ] { }`` and before a ``:`` followed by a space, one of those or
    the end (``a:b`` and ``http://x`` are one scalar each, as in the loader); a mapping's plain key needs a
    space after its ``:``, a quoted key does not (``{"k":"v"}``).  A ``#``, a ``?``, a tab, a trailing
    comma, an empty entry, a quote inside a plain scalar, a single pair in a list (``[a: b]``) and a
    key that is not a string are left to the loader."""
    if "#" in text or "?" in text or "\t" in text:
        return _NO
    words = _plain_words(text, resolvers)
    return _flow_read(text, resolvers) if words is _NO else words


def _flow_read(text: str, resolvers: dict):
    """:func:`_flow` of a text with no ``#``, ``?`` or tab, read node by node."""
    value, at = _flow_node(text, 0, resolvers, 0)
    return _NO if at != len(text) else value


#: A flow list of plain words: no quote, colon or bracket inside its brackets (nor ``#``, ``?`` or a tab: :func:`_flow`)
_WORDS_LIST = None


def _plain_words(text: str, resolvers: dict):
    """The list of a flow list of plain words (``[python, testing]``, ``[rube]``: the common one), read by one
    split at its commas; _NO for any other text, or a word :func:`_flow_read` must decide (an empty one, or
    one whose first character is an indicator).  Each word is what :func:`_flow_node` reads: the text between
    two commas, spaces around it dropped, resolved as a plain scalar (tests/catalog/test_frontmatter_flow_words.py
    holds the two equal)."""
    global _WORDS_LIST
    if _WORDS_LIST is None:
        _WORDS_LIST = regexes.compile(r"\[([^\[\]{}:'\"]*)\]")
    simple = _WORDS_LIST.fullmatch(text)
    if simple is None:
        return _NO
    inner = simple.group(1)
    if not inner.strip(" "):
        return []
    every = None in resolvers  # (resolvers for any first character: none in the tables used here)
    words = []
    for word in inner.split(","):
        word = word.strip(" ")
        if not word or word[0] in _NEVER_FIRST or word[0] in _MAYBE_FIRST:
            return _NO
        value = _resolved(word, resolvers) if every or word[0] in resolvers else word
        if value is _NO:  # (.inf, .nan, a merge key: the loader's)
            return _NO
        words.append(value)
    return words


#: Where a plain scalar in a flow collection ends: before ``, [ ] { }``, or a ``:`` followed by a space,
#: one of those or the end.
_FLOW_PLAIN_END = None


def _flow_node(text: str, at: int, resolvers: dict, depth: int):
    """The flow node at ``text[at]`` (not a space): (value, index after it and the spaces after it) or
    (_NO, at)."""
    first = text[at:at + 1]
    if first in ("[", "{"):
        return _flow_collection(text, at, resolvers, depth + 1) if depth < _MAX_LEVELS else (_NO, at)
    if first in ("'", '"'):
        close = _closing(text[at + 1:], first)
        if close < 0:
            return _NO, at
        end = at + close + 2
        value = _value(text[at:end], resolvers)
    else:
        global _FLOW_PLAIN_END
        if _FLOW_PLAIN_END is None:
            _FLOW_PLAIN_END = regexes.compile(r"[,\[\]{}]|:(?=[ ,\[\]{}]|$)")
        stop = _FLOW_PLAIN_END.search(text, at)
        end = len(text) if stop is None else stop.start()
        piece = text[at:end].rstrip(" ")
        # (a ``-``, ``?`` or ``:`` first is an indicator there, for the loader to read)
        value = _NO if not piece or piece[0] in "-?:" or "'" in piece or '"' in piece else _value(piece, resolvers)
    while text[end:end + 1] == " ":
        end += 1
    return value, end


def _flow_collection(text: str, at: int, resolvers: dict, depth: int):
    """The flow list or mapping that opens at ``text[at]``: (value, index after it and its spaces) or (_NO, at)."""
    mapping = text[at] == "{"
    close = "}" if mapping else "]"
    pairs: dict = {}
    items: list = []
    at += 1
    while text[at:at + 1] == " ":
        at += 1
    if text[at:at + 1] == close:
        at += 1
    else:
        while True:
            start = at
            node, at = _flow_node(text, at, resolvers, depth)
            if node is _NO:
                return _NO, at
            if mapping:
                if type(node) is not str or text[at:at + 1] != ":" \
                        or (text[start] not in "'\"" and text[at + 1:at + 2] != " "):
                    return _NO, at
                at += 1
                while text[at:at + 1] == " ":
                    at += 1
                value, at = _flow_node(text, at, resolvers, depth)
                if value is _NO:
                    return _NO, at
                pairs[node] = value
            elif text[at:at + 1] == ":":
                return _NO, at  # a single pair
            else:
                items.append(node)
            ch = text[at:at + 1]
            at += 1
            if ch == close:
                break
            while text[at:at + 1] == " ":
                at += 1
            if ch != "," or text[at:at + 1] in (close, ""):
                return _NO, at
    while text[at:at + 1] == " ":
        at += 1
    return (pairs if mapping else items), at


def _closing(text: str, quote: str) -> int:
    """The index in ``text`` (what follows an opening ``quote``) of the quote that closes it, or -1."""
    at = 0
    while True:
        found = text.find(quote, at)
        if found < 0:
            return -1
        if quote == "'":
            if text[found + 1:found + 2] != "'":
                return found
            at = found + 2  # '' is a quote inside
            continue
        escape = text.find("\\", at, found)
        if escape < 0:
            return found
        at = escape + 2  # the escaped character is not a closing quote


def _value(value: str, resolvers: dict):
    """A one-line scalar: a quoted string, or a plain scalar as the loader resolves and constructs it
    (a string, a boolean, an integer, a float or None); _NO for anything else."""
    first = value[0]
    if first == '"':
        return _double_quoted(value)
    if first == "'":
        return _single_quoted(value)
    return _resolved(value, resolvers) if _plain_ok(value) else _NO


#: The characters that cannot start a plain scalar; ``-``, ``?`` and ``:`` can, before a character that
#: is not white space (a continued line of one starting with them is left to the loader).
_NEVER_FIRST = ",[]{}#&*!|>'\"%@`"
_MAYBE_FIRST = "-?:"


def _plain_ok(value: str) -> bool:
    """True when ``value`` (one line, no white space at either end) is a plain scalar the fast reader
    takes: no indicator first, no ``: `` or `` #`` inside, no ``:`` last, no tab."""
    first = value[0]
    if first in _NEVER_FIRST or ": " in value or " #" in value or value.endswith(":") or "\t" in value:
        return False
    return not (first in _MAYBE_FIRST and (len(value) < 2 or value[1] in " ,[]{}"))


def _resolved(value: str, resolvers: dict):
    """The plain scalar ``value`` as the loader resolves and constructs it."""
    tag = _plain_tag(value, resolvers)
    return value if tag is None else _construct(tag, value)


def _single_quoted(value: str):
    """A single-quoted scalar (``''`` is a quote inside), or _NO."""
    inner = value[1:-1]
    if len(value) < 2 or value[-1] != "'" or "'" in inner.replace("''", ""):
        return _NO
    return inner.replace("''", "'")


def _double_quoted(value: str):
    """A one-line double-quoted scalar whose escapes are among :data:`_ESCAPES` and ``\\uXXXX`` (not a
    surrogate), decoded; else _NO."""
    if len(value) < 2 or value[-1] != '"':
        return _NO
    inner = value[1:-1]
    if "\\" not in inner:
        return _NO if '"' in inner else inner
    out, start = [], 0
    while True:
        at = inner.find("\\", start)
        chunk = inner[start:] if at < 0 else inner[start:at]
        if '"' in chunk:
            return _NO
        out.append(chunk)
        if at < 0:
            return "".join(out)
        code = inner[at + 1:at + 2]
        if code == "u":
            digits = inner[at + 2:at + 6]
            if len(digits) != 4 or not _HEX.issuperset(digits) or 0xD800 <= int(digits, 16) <= 0xDFFF:
                return _NO
            out.append(chr(int(digits, 16)))
            start = at + 6
        elif code in _ESCAPES:
            out.append(_ESCAPES[code])
            start = at + 2
        else:
            return _NO


def _construct(tag: str, value: str):
    """The value the loader's SafeConstructor builds of the plain scalar ``value`` resolved to ``tag``
    (its ``construct_yaml_bool``, ``_int``, ``_float``; ``.inf``, ``.nan`` and merge keys left to it)."""
    kind = tag.rsplit(":", 1)[-1]
    if kind == "null":
        return None
    if kind == "bool":
        return value.lower() == "true"  # (the resolver takes true and false only)
    if kind not in ("int", "float"):
        return _NO
    digits = value.replace("_", "")
    sign = -1 if digits[0] == "-" else 1
    if digits[0] in "+-":
        digits = digits[1:]
    if kind == "float":
        digits = digits.lower()
        return _NO if digits in (".inf", ".nan") else sign * float(digits)
    if digits == "0":
        return 0
    if digits.startswith("0b"):
        return sign * int(digits[2:], 2)
    if digits.startswith("0x"):
        return sign * int(digits[2:], 16)
    return sign * int(digits, 8 if digits[0] == "0" else 10)


def _plain_tag(value: str, resolvers: dict) -> str | None:
    """The tag the loader resolves the plain scalar ``value`` to, None for a string."""
    entries = resolvers.get(value[0] if value else "", ())
    if None in resolvers:  # (resolvers for any first character: none in the tables used here)
        entries = [*entries, *resolvers[None]]
    for tag, regexp in entries:
        if regexp.match(value):
            return tag
    return None


def _plain_string(value: str, resolvers: dict) -> bool:
    """True when the loader would read the plain scalar ``value`` as a string."""
    return _plain_tag(value, resolvers) is None


def _nesting_bound(raw: str) -> int:
    """An upper bound of the nesting depth ``raw`` can reach.

    Flow collections need a bracket per level; block collections need one more column
    of indentation, or one more ``-``/``?``/``:`` indicator, per level on some line.
    """
    flow = raw.count("[") + raw.count("{")
    block = 0
    for line in raw.split("\n"):
        prefix = len(line) - len(line.lstrip(" \t-?:"))
        if prefix > block:
            block = prefix
    return flow + block + 1


def _blank_or_comments(raw: str) -> bool:
    return all(not line.strip() or line.lstrip().startswith("#") for line in raw.split("\n"))


def _scan_events(raw: str, loader) -> tuple[bool, object]:
    """Walk the event stream: (the text holds a node, start mark of a too-deep collection)."""
    import yaml

    opening = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
    closing = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    nodes = (yaml.ScalarEvent, yaml.AliasEvent)
    has_node = False
    depth = 0
    parser = loader(raw)
    try:
        while parser.check_event():
            event = parser.get_event()
            if isinstance(event, opening):
                has_node = True
                depth += 1
                if depth > MAX_DEPTH:
                    return True, event.start_mark
            elif isinstance(event, closing):
                depth -= 1
            elif isinstance(event, nodes):
                has_node = True
    finally:
        parser.dispose()
    return has_node, None


def _expands_beyond(value: object, limit: int) -> bool:
    """True when walking ``value`` (aliases followed, so shared parts count each time they
    are reached) visits more than ``limit`` values; a cyclic value always does."""
    stack = [value]
    seen = 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > limit:
            return True
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set)):
            stack.extend(item)
    return False


def _yaml_error(exc, raw: str, file: str, first_line: int) -> Diagnostic:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None)
    if not problem:
        lines = str(exc).strip().splitlines()
        problem = lines[0] if lines else ""
    context = getattr(exc, "context", None)
    text = f"{problem} ({context})" if context and problem else (problem or context or "unknown error")
    hint = _HINT_DEFAULT
    for needle, specific in _HINTS:
        if needle in text:
            hint = specific
            break
    line, column = (first_line or None), None
    if mark is not None:
        line, column = _position(raw, mark, first_line)
        if raw[mark.index : mark.index + 1] == "\t":
            hint = _HINT_TAB
    return Diagnostic(
        file=file,
        line=line,
        column=column,
        code=PARSE_CODE,
        severity=ERROR,
        message=f"frontmatter is not valid YAML: {text}",
        hint=hint,
    )


def _position(raw: str, mark, first_line: int) -> tuple[int, int]:
    """File line and 1-based column of a parser mark, counting only LF as a line break
    (the parser also breaks lines at a lone CR, NEL, U+2028 and U+2029; a file's lines
    do not)."""
    index = min(max(mark.index, 0), len(raw))
    start = raw.rfind("\n", 0, index) + 1
    return first_line + raw.count("\n", 0, index), index - start + 1


def _unreadable(exc: BaseException, file: str, first_line: int, raw: str = "") -> Diagnostic:
    detail = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
    line, hint = first_line or None, _HINT_DEFAULT
    if isinstance(exc, ValueError) and "integer string conversion" in detail:
        # Python's own message advises sys.set_int_max_str_digits(); the author needs the line
        import re

        long = re.search(r"[0-9][0-9_]{" + str(sys.get_int_max_str_digits() - 1) + ",}", raw)
        if long is not None:
            line = first_line + raw.count("\n", 0, long.start())
        detail = f"a number of more than {sys.get_int_max_str_digits():,} digits cannot be read"
        hint = "quote the number to keep it as text, or shorten it"
    return Diagnostic(
        file=file,
        line=line,
        code=PARSE_CODE,
        severity=ERROR,
        message=f"frontmatter could not be read: {detail}",
        hint=hint,
    )


def _kind(value: object) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return f"a {type(value).__name__}"


_LOADER_CLASS = None
# YAML 1.2 core scalar resolution: (tag, pattern, first characters), the loader's implicit resolvers
_RESOLVED: tuple[tuple[str, str, str | tuple[str, ...]], ...] = (
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$",
     "-+0123456789"),
    ("tag:yaml.org,2002:float", r"^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?"
                                r"|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+"
                                r"|[-+]?\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?"
                                r"|[-+]?\.(?:inf|Inf|INF)"
                                r"|\.(?:nan|NaN|NAN))$", "-+0123456789."),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ("~", "n", "N", "")),
    ("tag:yaml.org,2002:merge", r"^(?:<<)$", "<"),
)
_RESOLVERS: dict | None = None


def _resolvers() -> dict:
    """The loader's ``yaml_implicit_resolvers`` (first character -> [(tag, regex)]), built without PyYAML."""
    global _RESOLVERS
    if _RESOLVERS is None:
        import re

        out: dict = {}
        for tag, pattern, first in _RESOLVED:
            regexp = re.compile(pattern)
            for ch in first:
                out.setdefault(ch, []).append((tag, regexp))
        _RESOLVERS = out
    return _RESOLVERS


def _loader_class():
    """A safe loader (C when available) with YAML 1.2 core scalar resolution."""
    global _LOADER_CLASS
    if _LOADER_CLASS is not None:
        return _LOADER_CLASS
    import yaml

    base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader

    class FrontmatterLoader(base):
        yaml_implicit_resolvers: dict = {}

    for tag, pattern, first in _RESOLVED:
        FrontmatterLoader.add_implicit_resolver(tag, re.compile(pattern), list(first))
    _LOADER_CLASS = FrontmatterLoader
    return FrontmatterLoader
