"""The one bounded JSON reader: every JSON document skillsift reads from disk or a process.

``json.loads`` on hostile bytes can raise ``RecursionError`` (deep nesting), a bare
``ValueError`` (an integer of more than 4300 digits) or return ``inf`` (``1e999``).
:func:`read_json` bounds all of it before and while parsing and raises one typed error,
:class:`JSONDocumentError`, naming the document and what was wrong (docs/bounded-input.md):

* size: at most ``max_bytes`` bytes;
* nesting: at most ``max_depth`` levels of arrays and objects, checked by a scan of the
  brackets outside strings before the parser runs (no recursion);
* numbers: integers of at most ``max_int_digits`` digits, finite floats only, no
  ``NaN``/``Infinity`` literals;
* text: strict UTF-8, and no lone surrogate escape (``"\\ud800"``), which no output can encode.
"""

from __future__ import annotations

import json
import math
import re

MAX_BYTES = 64 << 20
MAX_DEPTH = 64
MAX_INT_DIGITS = 64

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abAB]")


class JSONDocumentError(ValueError):
    """A JSON document that is not valid or exceeds a limit.

    ``source`` names the document (a path, ``manifest.json``, ``the response of ...``);
    ``kind`` is one of ``size``, ``encoding``, ``syntax``, ``depth``, ``integer``,
    ``float``, ``constant``, ``text``; ``reason`` is the detail, ``line``/``column`` where it was found
    (1-based, None when unknown).  ``str(error)`` is ``"<source> <problem>"``.
    """

    def __init__(self, source: str, kind: str, reason: str, line: int | None = None, column: int | None = None):
        self.source, self.kind, self.reason, self.line, self.column = source, kind, reason, line, column
        super().__init__(f"{source} {self.problem}")

    @property
    def problem(self) -> str:
        at = f" at line {self.line} column {self.column}" if self.line is not None else ""
        if self.kind == "syntax":
            return f"does not parse: {self.reason}{at}"
        return f"{self.reason}{at}"


class _Reject(Exception):
    def __init__(self, kind: str, reason: str, needle: str = ""):
        super().__init__(reason)
        self.kind, self.reason, self.needle = kind, reason, needle


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _exceeds(brackets: str, limit: int) -> bool:
    depth = 0
    for char in brackets:
        if char in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


_NOT_BRACKET_BYTES = bytes(b for b in range(256) if b not in b"[]{}")


def _too_deep(text: str, limit: int, data: bytes | None = None) -> int | None:
    """The offset of the first bracket that opens level ``limit + 1`` outside strings, else None.

    ``data``: the UTF-8 bytes of ``text`` when the caller has them.
    """
    if text.count("[") + text.count("{") <= limit:
        return None
    # counting the brackets inside strings too can only overstate the depth: when even that
    # stays within the limit, no string needs to be looked at
    raw = data if data is not None else text.encode("utf-8", "surrogatepass")
    if not _exceeds(raw.translate(None, _NOT_BRACKET_BYTES).decode("ascii"), limit):
        return None
    if not _exceeds(_NOT_BRACKET.sub("", _STRING.sub("", text)), limit):
        return None
    return first_too_deep(_TOKEN.finditer(text), limit)  # find where, on the slow path only


def first_too_deep(tokens, limit: int) -> int | None:
    """The offset of the first opening bracket among ``tokens`` (regex matches of brackets,
    strings and comments) that nests deeper than ``limit``, or None; a stray closing
    bracket does not lower the depth below 0 (the TOML reader shares this)."""
    depth = 0
    for match in tokens:
        char = match.group()[0]
        if char in "[{":
            depth += 1
            if depth > limit:
                return match.start()
        elif char in "]}":
            depth = max(0, depth - 1)
    return None


def _lone_surrogate(value) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def read_json(data: bytes | str, *, source: str, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH,
              max_int_digits: int = MAX_INT_DIGITS):
    """The parsed document of ``data`` (UTF-8 bytes or text); raises :class:`JSONDocumentError`."""
    if isinstance(data, bytes) or len(data) * 4 <= max_bytes:
        size = len(data)
    else:
        size = len(data.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise JSONDocumentError(source, "size", f"is larger than {max_bytes} bytes")
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONDocumentError(source, "encoding", f"is not UTF-8 (byte {exc.start})") from None
    else:
        text = data
    deep = _too_deep(text, max_depth, data if isinstance(data, bytes) else None)
    if deep is not None:
        line, column = _line_column(text, deep)
        raise JSONDocumentError(source, "depth", f"is nested deeper than {max_depth} levels", line, column)

    def parse_int(digits: str) -> int:
        if len(digits) - digits.startswith("-") > max_int_digits:
            raise _Reject("integer", f"holds an integer of more than {max_int_digits} digits", digits)
        return int(digits)

    def parse_float(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):
            shown = literal[:20] + ("..." if len(literal) > 20 else "")
            raise _Reject("float", f"holds {shown}, which overflows a float (NaN and infinities are refused)",
                          literal)
        return value

    def parse_constant(name: str):
        raise _Reject("constant", f"holds {name}, which is not JSON", name)

    try:
        value = json.loads(text, parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant)
    except _Reject as exc:
        offset = text.find(exc.needle) if exc.needle else -1
        at: tuple[int | None, int | None] = _line_column(text, offset) if offset >= 0 else (None, None)
        raise JSONDocumentError(source, exc.kind, exc.reason, *at) from None
    except json.JSONDecodeError as exc:
        raise JSONDocumentError(source, "syntax", exc.msg, exc.lineno, exc.colno) from None
    except RecursionError:  # a backstop: the depth scan above should have refused it
        raise JSONDocumentError(source, "depth", "is nested too deeply") from None
    if _SURROGATE_ESCAPE.search(text) and _lone_surrogate(value):
        raise JSONDocumentError(source, "text", "holds a lone surrogate escape, which is not Unicode text")
    return value
