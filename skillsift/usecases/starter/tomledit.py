"""The settings ``skillsift init`` adds to a TOML configuration people wrote, as text (pure).

Each wanted key a table lacks is inserted, with its comment lines, after the table's last line
(a table the file does not have is added at its end); every other line, comment and order stays.
The result is parsed again and must equal the file's data plus exactly those keys; a table the
file defines without its own header (dotted keys, an inline table) or a file that does not parse
raises :class:`~skillsift.usecases.starter.yamledit.Unsafe` and the file is left as it is.
"""

from __future__ import annotations

import copy
import re
import sys
from dataclasses import dataclass

from .yamledit import Unsafe

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_HEADER = re.compile(r"^[ \t]*\[\[?[ \t]*([^\[\]#]+?)[ \t]*\]\]?[ \t]*(?:#.*)?$")


@dataclass(frozen=True)
class Setting:
    """One key ``init`` wants: its table (``search``), key, TOML value and the comment lines above it."""

    table: str
    key: str
    value: str
    comments: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        return [*self.comments, f"{self.key} = {self.value}"]


def _table_name(raw: str) -> str:
    return ".".join(part.strip().strip('"').strip("'") for part in raw.split("."))


def missing_settings(text: str, settings, prefix: str = "") -> list[Setting]:
    """The ``settings`` whose key the file's table (``prefix`` + table) does not set."""
    data = _load(text)
    out = []
    for setting in settings:
        table = _lookup(data, prefix + setting.table)
        if not isinstance(table, dict) or setting.key not in table:
            out.append(setting)
    return out


def _load(text: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise Unsafe(f"it does not parse as TOML ({exc})") from None
    except RecursionError:
        raise Unsafe("it nests too deeply") from None


def _lookup(data: dict, dotted: str):
    cur = data
    for part in dotted.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return None
        cur = cur[part]
    return cur


def _table_end(lines: list[str], headers: list[tuple[int, str]], name: str) -> int:
    """The index of the last setting line of table ``name`` (before its trailing blank and comment lines)."""
    at = [i for i, header in headers if header == name]
    if len(at) != 1:
        raise Unsafe(f"[{name}] is set without a header of its own")
    following = [i for i, _header in headers if i > at[0]]
    end = (following[0] if following else len(lines)) - 1
    while end > at[0] and (not lines[end].strip() or lines[end].lstrip().startswith("#")):
        end -= 1
    return end


def merge_settings(text: str, settings, prefix: str = "") -> str:
    """``text`` with each of ``settings`` its tables lack; raises :class:`Unsafe`."""
    data = _load(text)
    expected = copy.deepcopy(data)
    lines = text.split("\n")
    headers = [(i, _table_name(m.group(1))) for i, line in enumerate(lines) if (m := _HEADER.match(line))]
    inserts: dict[int, list[str]] = {}
    appended: dict[str, list[str]] = {}
    for setting in missing_settings(text, settings, prefix):
        name = prefix + setting.table
        table = _lookup(data, name)
        target = _lookup(expected, name) if table is not None else None
        if table is None:
            if _lookup(data, name.rsplit(".", 1)[0]) is not None and "." in name and not isinstance(
                    _lookup(data, name.rsplit(".", 1)[0]), dict):
                raise Unsafe(f"{name.rsplit('.', 1)[0]} is not a table")
            appended.setdefault(name, []).extend(setting.lines())
            cur = expected
            for part in name.split("."):
                cur = cur.setdefault(part, {})
            cur[setting.key] = tomllib.loads(f"v = {setting.value}")["v"]
            continue
        if not isinstance(table, dict):
            raise Unsafe(f"{name} is not a table")
        inserts.setdefault(_table_end(lines, headers, name), []).extend(setting.lines())
        assert target is not None
        target[setting.key] = tomllib.loads(f"v = {setting.value}")["v"]
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(line)
        out.extend(inserts.get(i, ()))
    new = "\n".join(out)
    for name, block in appended.items():
        new = new.rstrip("\n") + ("\n\n" if new.strip() else "") + f"[{name}]\n" + "\n".join(block) + "\n"
    if new != text and _load(new) != expected:
        raise Unsafe("an edit as text would change more than the added settings")
    return new
