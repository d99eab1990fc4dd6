"""Mechanical, safe fixes for ``skillsift validate --fix`` (``--diff`` previews them).

Pure: :func:`plan` takes one SKILL.md (path and text) and returns the edits; the command
writes them.  A fix is offered only when its result is checked to be what was meant:

* **SK001, a value holding ``: ``** (``description: Use it: always``): the plain value of a
  top-level ``key: value`` line is double-quoted, and kept only when the frontmatter then
  parses and the key's value is exactly the text that was written;
* **SK102, name and folder differ only in case** (equal case-folded) while one of them is a
  valid name: the value of a one-line ``name:`` is set to the folder's name when the folder's
  is valid (quotes, comment and line ending kept; kept only when the frontmatter then parses to
  it with every other key unchanged), else the folder is renamed to the name (never over an
  existing folder).  A skill whose name changes is
  reported with every cases file and index that still uses the old name;
* **SK201, a boolean written as a string** (``disable-model-invocation: 'true'``): the line
  is set to the bare ``true``/``false``, kept only when it then parses to that boolean;
* **SK316, a script run as ``./scripts/x`` without its executable bit**: the bit is set
  (for whoever may read the file);
* **SK319, ``skill.md`` in another case**: the file is renamed to ``SKILL.md`` (never over
  an existing one).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from ..catalog import frontmatter
from .paths import script_runs
from .spec import name_problems, normal_name

# The value is taken greedily and its trailing blanks stripped in Python: a lazy value before
# ``[ \t]*$`` took quadratic time on a line of many spaces.
_PLAIN = re.compile(r"^([A-Za-z_][\w-]*):[ \t]+(.+)$")


@dataclass(frozen=True)
class Fix:
    path: str  # the SKILL.md (relative, /)
    code: str
    summary: str
    new_text: str | None = None  # the whole new text of the file
    rename_to: str | None = None  # new folder path (relative, /)
    old_name: str = ""
    new_name: str = ""
    chmod: str | None = None  # a file (relative, /) to make executable
    rename_file_to: str | None = None  # new path of the file itself (relative, /)


#: Claude Code's boolean fields (skillsift/catalog/agents.py, CLAUDE_CODE_FIELD_RULES).
BOOLEAN_FIELDS = ("disable-model-invocation", "user-invocable")


def unquote_booleans(text: str, front: dict) -> tuple[str, list[str]] | None:
    """The text with each boolean field written as the string "true"/"false" set to the bare
    boolean; None when there is none or the result would not parse to those booleans."""
    found = _frontmatter_lines(text)
    if found is None:
        return None
    lines, start, count, newline = found
    fixed: list[tuple[str, bool]] = []
    for key in BOOLEAN_FIELDS:
        value = front.get(key)
        if not (isinstance(value, str) and value.strip().lower() in ("true", "false")):
            continue
        wanted = value.strip().lower() == "true"
        for i in range(start, start + count):
            if re.match(rf"^{re.escape(key)}:[ \t]", lines[i]):
                lines[i] = f"{key}: {'true' if wanted else 'false'}"
                fixed.append((key, wanted))
                break
    if not fixed:
        return None
    raw = "\n".join(lines[start:start + count]) + "\n"
    if not all(_parses_to(raw, key, value) for key, value in fixed):
        return None
    return newline.join(lines), [key for key, _v in fixed]


def chmod_fixes(path: str, body: str, is_file, is_executable) -> list[Fix]:
    """SK316: the scripts the body runs as ``./scripts/x`` that exist without their executable bit."""

    base = PurePosixPath(path).parent.as_posix()
    out: list[Fix] = []
    seen: set[str] = set()
    for match in script_runs(body, dot_only=True):
        rel = f"{base}/{match.group(1)}"
        if rel not in seen and is_file(rel) and not is_executable(rel):
            seen.add(rel)
            out.append(Fix(path, "SK316", f"made {match.group(1)} executable", chmod=rel))
    return out


def case_fix(rel: str, exists) -> Fix | None:
    """SK319: rename a wrongly cased ``skill.md`` to ``SKILL.md`` when none is there."""
    target = (PurePosixPath(rel).parent / "SKILL.md").as_posix()
    if PurePosixPath(rel).name == "SKILL.md" or exists(target):
        return None
    return Fix(rel, "SK319", f"renamed {PurePosixPath(rel).name} to SKILL.md", rename_file_to=target)


def _parses_to(raw: str, key: str, value: object) -> bool:
    doc = frontmatter.read_yaml(raw)
    return not doc.diagnostics and isinstance(doc.value, dict) and doc.value.get(key) == value


def _frontmatter_lines(text: str):
    """(all lines of the LF text, index of the first YAML line, number of YAML lines, newline) or None."""
    newline = "\r\n" if "\r\n" in text else "\n"
    lf = text.replace("\r\n", "\n")
    block = frontmatter.split_frontmatter(lf)
    if not block.closed:
        return None
    yaml_lines = block.raw.split("\n")
    if block.raw.endswith("\n"):
        yaml_lines = yaml_lines[:-1]
    return lf.split("\n"), block.yaml_start_line - 1, len(yaml_lines), newline


def quote_colon_values(text: str) -> tuple[str, list[str]] | None:
    """The text with each top-level plain value holding ``: `` double-quoted, and the keys
    quoted; None when nothing is to be done or the result would not parse to the same text."""
    found = _frontmatter_lines(text)
    if found is None:
        return None
    lines, start, count, newline = found
    keys = []
    for i in range(start, start + count):
        match = _PLAIN.match(lines[i])
        if not match:
            continue
        key, value = match.group(1), match.group(2).rstrip(" \t")
        if not value:
            continue
        if ": " not in value or value[0] in "\"'[{|>&*!%@`#" or " #" in value:
            continue
        lines[i] = f"{key}: {json.dumps(value, ensure_ascii=False)}"
        keys.append((key, value))
    if not keys:
        return None
    raw = "\n".join(lines[start:start + count]) + "\n"
    if not all(_parses_to(raw, key, value) for key, value in keys):
        return None
    return newline.join(lines), [k for k, _v in keys]


# A quoted one-line value and what may follow it on its line (blanks, then a comment).
_QUOTED = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^']|'')*'""")
_AFTER = re.compile(r"[ \t]*(?:#.*)?")


def _name_span(line: str) -> tuple[int, int] | None:
    """Where the value of a one-line ``name: value`` (without its line ending) starts and ends,
    quotes excluded; None for any other form."""
    match = re.match(r"name:[ \t]+", line)
    if match is None:
        return None
    lo = match.end()
    if line[lo:lo + 1] in ("'", '"'):
        quoted = _QUOTED.match(line, lo)
        if quoted is None or not _AFTER.fullmatch(line, quoted.end()):
            return None
        return lo + 1, quoted.end() - 1
    if not line[lo:] or line[lo] in "|>&*!%@`#{[,?:-":
        return None  # a block or folded scalar, an anchor, a tag, a flow collection...
    value = line[lo:]
    for mark in (" #", "\t#"):
        if mark in value:
            value = value[:value.index(mark)]
    return lo, lo + len(value.rstrip(" \t"))


def set_name(text: str, name: str) -> str | None:
    """The text with the value of its top-level ``name:`` frontmatter line set to ``name``,
    every other byte kept (the quotes, a comment, the line ending); None without a one-line
    name (none, a block or folded scalar, a value continued on the next lines) or when the
    frontmatter would not then parse to that name with every other key unchanged."""
    found = _frontmatter_lines(text)
    if found is None:
        return None
    lf_lines, start, count, _newline = found
    lines = text.split("\n")  # same line numbering as the LF text; a CR stays with its line
    for i in range(start, start + count):
        if not re.match(r"^name:(?:[ \t]|$)", lf_lines[i]):
            continue
        following = lf_lines[i + 1] if i + 1 < start + count else ""
        if following[:1] in (" ", "\t") and following.strip() and not following.lstrip().startswith("#"):
            return None  # the value goes on over more lines
        line = lines[i]
        cr = "\r" if line.endswith("\r") else ""
        span = _name_span(line[:len(line) - len(cr)])
        if span is None:
            return None
        lo, hi = span
        lines[i] = line[:lo] + name + line[hi:]
        new_text = "\n".join(lines)
        return new_text if _same_but_name(text, new_text, name) else None
    return None


def _same_but_name(old: str, new: str, name: str) -> bool:
    before, after = (_frontmatter_lines(t) for t in (old, new))
    if before is None or after is None:
        return False
    docs = [frontmatter.read_yaml("\n".join(lines[start:start + count]) + "\n")
            for lines, start, count, _n in (before, after)]
    old_value, new_value = docs[0].value, docs[1].value
    if docs[0].diagnostics or docs[1].diagnostics or not (isinstance(old_value, dict) and isinstance(new_value, dict)):
        return False
    old_value, new_value = dict(old_value), dict(new_value)
    if new_value.pop("name", None) != name:
        return False
    old_value.pop("name", None)
    return old_value == new_value


def plan(path: str, text: str, front: dict | None, exists=lambda _rel: False) -> list[Fix]:
    """The safe fixes for one SKILL.md (``front``: its parsed frontmatter, None when it does not parse)."""

    out: list[Fix] = []
    if front is None:
        quoted = quote_colon_values(text)
        if quoted is not None:
            new_text, keys = quoted
            out.append(Fix(path, "SK001", f"quoted the value of {', '.join(keys)} (it holds ': ')",
                           new_text=new_text))
        return out
    booleans = unquote_booleans(text, front)
    if booleans is not None:
        text, keys = booleans
        out.append(Fix(path, "SK201", f"wrote {', '.join(keys)} as a boolean, not a string", new_text=text))
    name = front.get("name")
    folder_path = PurePosixPath(path).parent
    folder = folder_path.name
    if not (isinstance(name, str) and name.strip()) or not folder:
        return out
    if normal_name(name) == normal_name(folder) or not _only_case_differs(normal_name(name), normal_name(folder)):
        return out
    if not name_problems(folder):
        renamed = set_name(text, folder)
        if renamed is not None:
            out.append(Fix(path, "SK102", f'set name "{name.strip()}" to its folder\'s "{folder}"', new_text=renamed,
                           old_name=name, new_name=folder))
    elif not name_problems(name):
        target = (folder_path.parent / normal_name(name)).as_posix()
        if not exists(target):
            out.append(Fix(path, "SK102", f'renamed folder "{folder}" to "{normal_name(name)}"', rename_to=target))
    return out


def _only_case_differs(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are the same letters in other cases, letter for letter: case folding
    alone would also pair "ß" with "ss" (a spelling, not a case, and not a certain fix)."""
    return len(a) == len(b) and all(x == y or x.lower() == y.lower() or x.upper() == y.upper()
                                    for x, y in zip(a, b, strict=True))


def unified_diff(path: str, old: str, new: str) -> str:
    import difflib

    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"a/{path}", tofile=f"b/{path}"))
