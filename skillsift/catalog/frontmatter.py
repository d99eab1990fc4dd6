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
and limits that it mirrors.
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
    # (no depth or blank test first: a mapping the fast reader builds nests three levels at most, and it
    # builds none of a blank or comment-only text)
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
# Characters YAML does not allow in a stream (outside its printable set), plus the BOM; and those of them
# in ASCII (a shorter class, searched faster, for the common ASCII frontmatter)
_NOT_PRINTABLE = None
_NOT_PRINTABLE_ASCII = None


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
    global _KEY_LINE, _ITEM_LINE, _NOT_PRINTABLE, _NOT_PRINTABLE_ASCII
    if _KEY_LINE is None:
        _KEY_LINE = regexes.compile(r"( *)([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?")
        _ITEM_LINE = regexes.compile(r"( *)- +(.*)")
        _NOT_PRINTABLE = regexes.compile(  # outside YAML's printable set, line breaks other than LF/CR, the BOM
            "[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|\ufeff"
        )
        _NOT_PRINTABLE_ASCII = regexes.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
    if (_NOT_PRINTABLE_ASCII if raw.isascii() else _NOT_PRINTABLE).search(raw):
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
