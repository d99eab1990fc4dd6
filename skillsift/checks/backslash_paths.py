"""SK321: a relative path written with backslashes in a SKILL.md's body (``scripts\\setup.py``).

A skill runs wherever its user works: on macOS and Linux a backslash is not a path separator, so
``python scripts\\setup.py`` names a file that does not exist; Windows accepts ``/`` as well, so a
forward slash works everywhere (the Agent Skills specification writes every path with ``/``).  SK312
(:mod:`.paths`) reads links; this check reads the rest of the body, code included.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from ..config.checks import check
from ..diagnostics import WARNING, Diagnostic
from ..validators.parsed import per_skill

BACKSLASH_PATH = check("SK321", "backslash-path", WARNING,
                       summary="relative paths in the body use / (scripts\\setup.py is not found on macOS or Linux)",
                       details="A relative path with backslashes in the body, in code or prose (``scripts\\setup.py``"
                               ", ``.\\tools\\run.ps1``, ``references\\api.md``): on macOS and Linux the backslash is "
                               "part of a file name, so the command or reference fails, while Windows accepts ``/`` "
                               "too. Windows absolute paths (``C:\\...``, ``%APPDATA%\\...``, ``\\\\server``), "
                               "doubled backslashes (string escapes), markdown escapes (``\\_``) and skills that set "
                               "``shell: powershell`` are not reported.")
# segments of letters, digits, "_", "." and "-" joined by single backslashes, ending in a file name with an
# extension; not preceded by a drive, a variable, another separator or a word character
_PATH = re.compile(r"(?<![\w\\/:%$.~-])(?:\.{1,2}\\)?(?:[A-Za-z0-9][\w.-]*\\)+"
                   r"[A-Za-z0-9][\w-]*\.[A-Za-z][A-Za-z0-9]{0,5}\b(?![\\/(])")

# what every _PATH match holds: a backslash after a character of a name and before a letter or digit (the
# backslash before the file name); led by the backslash, which the regex engine finds fast
_NAME_BACKSLASH = re.compile(r"\\(?<=[\w.-]\\)(?=[A-Za-z0-9])")

# where a Windows absolute path opens ("C:\\", "%APPDATA%\\", "$env:HOME\\", "\\\\server\\") and what ends one
# (its names may hold spaces: "C:\\Program Files\\Some App\\x.exe")
_WINDOWS_OPEN = re.compile(r"(?:[A-Za-z]:|%\w{1,64}%|\$env:\w{1,64}|\\\\[\w.-]{1,255})\\")
_WINDOWS_END = re.compile(r"[\"'`<>|]")
#: Longest line read (a longer one is not prose an agent follows; the scan stays linear below it).
MAX_LINE = 4000


def _inside_windows_paths(line: str):
    """A function telling whether an offset of ``line`` lies inside a Windows absolute path."""
    opens = [m.start() for m in _WINDOWS_OPEN.finditer(line)]
    ends = [m.start() for m in _WINDOWS_END.finditer(line)]

    def inside(offset: int) -> bool:
        k = bisect_right(opens, offset) - 1
        if k < 0:
            return False
        j = bisect_right(ends, opens[k])  # the first end after the last opening before the offset
        return j >= len(ends) or ends[j] > offset

    return inside


def check_backslashes(parsed) -> list[Diagnostic]:
    """SK321 of one parsed SKILL.md (the first such path of each line)."""
    body = parsed.body
    if "\\" not in body or str(parsed.front.get("shell", "")).strip().lower() == "powershell":
        return []
    out: list[Diagnostic] = []
    end = -1  # where the last line read ends
    # each line holding a backslash between a name and a letter or digit, where a path can be (most lines
    # holding a backslash hold none: LaTeX, escapes, Windows drives)
    for candidate in _NAME_BACKSLASH.finditer(body):
        at = candidate.start()
        if at < end:
            continue  # on the line read last
        start = body.rfind("\n", 0, at) + 1
        end = body.find("\n", at)
        end = len(body) if end < 0 else end
        line = body[start:end]
        if len(line) > MAX_LINE:
            continue
        inside = _inside_windows_paths(line)
        hit = next((h for h in _PATH.finditer(line) if not inside(h.start())), None)
        if hit:
            forward = hit.group(0).replace("\\", "/")
            out.append(BACKSLASH_PATH.report(
                file=parsed.path, line=parsed.body_line + body.count("\n", 0, start),
                message=f"{hit.group(0)[:60]} is written with backslashes; on macOS and Linux it names no file",
                hint=f"write it with / ({forward[:60]}), which Windows accepts too"))
    return out


run, run_paths = per_skill(check_backslashes)
