"""The ``id`` of a JSON-RPC line that cannot be parsed (docs/mcp.md, "Every request gets an answer").

A line cut short, nested too deeply for the parser or too long to read still gets an error
carrying its request's ``id``, so the client that waits for that id is answered.  The id is
looked for without a parser, in bounded time: the first :data:`ID_SCAN_BYTES` of the line
token by token, then its end for a last ``"id"`` key (the official MCP client writes ``id``
after ``params``).
"""

from __future__ import annotations

import json
import re

ID_SCAN_BYTES = 1 << 16  # the start (and end) of a line that cannot be read, searched for its id

_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}:,]', re.DOTALL)
_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")


_LAST_ID = re.compile(r'[{,]\s*"id"\s*:\s*(-?(?:0|[1-9][0-9]{0,17})|"[^"\\]*(?:\\.[^"\\]*)*")\s*}\s*\Z')


def request_id(text: str, size: int = ID_SCAN_BYTES):
    """The top-level ``"id"`` (a string or an integer) of a line that cannot be parsed, or None.

    The first ``size`` characters are scanned (:func:`_first_id`); when the id is not there,
    the line's end is matched for a last key ``"id"`` closing the outermost object (the
    official MCP client writes ``id`` after ``params``).  Bounded: at most ``2 * size``
    characters are looked at, whatever the line's length or nesting.
    """
    rid = _first_id(text[:size])
    if rid is None:
        found = _LAST_ID.search(text[-size:])
        if found:
            value = found.group(1)
            rid = _string(value) if value.startswith('"') else int(value)
    return rid


def _first_id(text: str):
    """The value of the first ``"id"`` key of the outermost object, by one pass over the tokens
    (strings matched whole, brackets counted; no recursion); the text need not be valid JSON."""
    depth, rid = 0, None
    key = None  # the last key read at depth 1
    value_at = -1  # where the value of "id" starts (after its colon); -2 once it was read
    expect_key = False
    for match in _TOKEN.finditer(text):
        token = match.group()
        if depth == 1 and value_at >= 0:
            raw = text[value_at:match.start()].strip()
            if token[0] == '"' and not raw:
                rid = _string(token)
            elif _INT.fullmatch(raw):
                rid = int(raw)
            value_at = -2
        if value_at == -2:
            break
        if token in "[{":
            depth += 1
            expect_key = depth == 1 and token == "{"
        elif token in "]}":
            depth = max(0, depth - 1)
        elif depth == 1:
            if token == ",":
                expect_key = True
            elif token == ":":
                if key == "id" and value_at == -1:
                    value_at = match.end()
                key = None
            elif expect_key:
                key, expect_key = _string(token), False
    if depth == 1 and value_at >= 0 and _INT.fullmatch(text[value_at:].strip()):  # a line cut after the id
        rid = int(text[value_at:].strip())
    return rid


def _string(token: str):
    try:
        return json.loads(token)
    except ValueError:
        return None
