"""Set keys of one table of a TOML file, keeping every other line as it is (pure text in, text out).

``skillsift tune --write`` uses it to write the ``[search]`` keys it chose into a project
config without touching comments, order or the other tables.  Only what that needs is
supported: top-level values that are strings, numbers, booleans or lists of strings
(a list may span lines), and the ``weights`` sub-table, written where the file keeps it
(``[search.weights]``, dotted ``weights.lexical`` keys, or an inline table).  The result
is parsed back and checked; a file it cannot edit safely raises ``ValueError``.
"""

from __future__ import annotations

import json
import re
import sys

# The name keeps its spaces (``_norm`` strips them): a lazy name between two ``\s*`` took
# quadratic time on a long line of spaces.
_HEADER = re.compile(r"^\s*\[([^\[\]]+)\]\s*(?:#.*)?$")
_ARRAY_HEADER = re.compile(r"^\s*\[\[")


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_value(x)}" for k, x in v.items()) + " }"
    raise ValueError(f"cannot write a value of type {type(v).__name__}")


def _norm(name: str) -> str:
    return ".".join(p.strip().strip('"').strip("'") for p in name.split("."))


def _tables(lines: list[str]) -> list[tuple[str, int, int]]:
    """(table name, header line index, end index exclusive) of every ``[table]``; "" for the top."""
    heads = []
    for i, line in enumerate(lines):
        if _ARRAY_HEADER.match(line):
            heads.append(("[[array]]", i))
            continue
        m = _HEADER.match(line)
        if m:
            heads.append((_norm(m.group(1)), i))
    out = [("", -1, heads[0][1] if heads else len(lines))]
    for j, (name, i) in enumerate(heads):
        out.append((name, i, heads[j + 1][1] if j + 1 < len(heads) else len(lines)))
    return out


def _balance(text: str) -> int:
    depth, quote, escape = 0, "", False
    for ch in text:
        if quote:
            if escape:
                escape = False
            elif ch == "\\" and quote == '"':
                escape = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            break
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
    return depth


def _put(lines: list[str], head: int, end: int, key: str, value) -> None:
    """Set ``key = value`` in the table whose header is line ``head`` and which ends before ``end``:
    its line is replaced, or a line is added after the table's last key."""
    span = _key_span(lines, head + 1, end, key)
    line = f"{key} = {_value(value)}"
    if span:
        lines[span[0]:span[1]] = [line]
    else:
        lines.insert(_insert_at(lines, head + 1, end), line)


def _key_span(lines: list[str], start: int, end: int, key: str) -> tuple[int, int] | None:
    pattern = re.compile(rf"^\s*(?:{re.escape(key)}|\"{re.escape(key)}\")\s*=")
    for i in range(start, end):
        if pattern.match(lines[i]):
            j, depth = i, _balance(lines[i].split("=", 1)[1])
            while depth > 0 and j + 1 < end:
                j += 1
                depth += _balance(lines[j])
            return i, j + 1
    return None


def _insert_at(lines: list[str], start: int, end: int) -> int:
    """Where a new key goes in the table body ``start..end``: after its last non-blank line."""
    at = end
    while at > start and not lines[at - 1].strip():
        at -= 1
    return at


def set_table_keys(text: str, table: str, keys: dict) -> str:
    """``text`` with ``keys`` set in ``[table]`` (created at the end when absent).

    A ``dict`` value (``weights``) goes into the file's ``[table.key]`` sub-table when
    there is one, else into dotted ``key.sub`` lines when the table uses them, else it
    replaces or adds an inline table.
    """
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines()
    for key, value in keys.items():
        tables = _tables(lines)
        own = [t for t in tables if t[0] == table]
        if len(own) > 1:
            raise ValueError(f"[{table}] appears twice")
        if isinstance(value, dict):
            sub = [t for t in tables if t[0] == f"{table}.{key}"]
            if sub:
                _, head, end = sub[0]
                for k, v in value.items():
                    _put(lines, head, end, k, v)
                    _, head, end = [t for t in _tables(lines) if t[0] == f"{table}.{key}"][0]
                continue
        if not own:
            if lines and lines[-1].strip():
                lines.append("")
            lines.append(f"[{table}]")
            lines.append(f"{key} = {_value(value)}")
            continue
        _, head, end = own[0]
        if isinstance(value, dict):
            dotted = [_key_span(lines, head + 1, end, f"{key}.{k}") for k in value]
            if any(dotted):
                for k, v in value.items():
                    _, head, end = [t for t in _tables(lines) if t[0] == table][0]
                    _put(lines, head, end, f"{key}.{k}", v)
                continue
        _put(lines, head, end, key, value)
    out = newline.join(lines) + newline
    _check(out, table, keys)
    return out


def _check(text: str, table: str, keys: dict) -> None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10
        import tomli as tomllib
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"the edited file would not parse: {exc}") from None
    node = doc
    for part in table.split("."):
        node = node.get(part, {}) if isinstance(node, dict) else {}
    for key, value in keys.items():
        got = node.get(key)
        want = dict(value) if isinstance(value, dict) else (list(value) if isinstance(value, tuple) else value)
        if isinstance(want, dict) and isinstance(got, dict):
            got = {k: got.get(k) for k in want}
        if got != want:
            raise ValueError(f"{table}.{key} did not read back as written ({got!r} != {want!r})")
