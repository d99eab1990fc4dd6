"""SK321: a relative path written with backslashes in a SKILL.md's body (``scripts\\setup.py``).

A skill runs wherever its user works: on macOS and Linux a backslash is not a path separator, so
``python scripts\\setup.py`` names a file that does not exist; Windows accepts ``/`` as well, so a
forward slash works everywhere (the Agent Skills specification writes every path with ``/``).  SK312
(:mod:`.paths`) reads links; this check reads the rest of the body, code included.
"""

from __future__ import annotations

import re

from ..config.checks import check
from ..diagnostics import WARNING, Diagnostic
from .parsed import parsed_skills
from .workspace import Workspace

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


# a Windows absolute path still open before a hit: "C:\\Program Files\\Some App\\x.exe" (names may hold spaces)
_IN_WINDOWS_PATH = re.compile(r"(?:[A-Za-z]:|%\w+%|\$env:\w+|\\\\[\w.-]+)\\[^\"'`<>|\n]*$")


def check_backslashes(parsed) -> list[Diagnostic]:
    """SK321 of one parsed SKILL.md (the first such path of each line)."""
    body = parsed.body
    if "\\" not in body or str(parsed.front.get("shell", "")).strip().lower() == "powershell":
        return []
    out: list[Diagnostic] = []
    for number, line in enumerate(body.split("\n")):
        if "\\" not in line:
            continue
        hit = next((h for h in _PATH.finditer(line) if not _IN_WINDOWS_PATH.search(line, 0, h.start())), None)
        if hit:
            forward = hit.group(0).replace("\\", "/")
            out.append(BACKSLASH_PATH.report(
                file=parsed.path, line=parsed.body_line + number,
                message=f"{hit.group(0)[:60]} is written with backslashes; on macOS and Linux it names no file",
                hint=f"write it with / ({forward[:60]}), which Windows accepts too"))
    return out


def run(ws: Workspace) -> list[Diagnostic]:
    return run_paths(ws, ws.skill_paths)


def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for parsed in parsed_skills(ws, paths):
        out.extend(check_backslashes(parsed))
    return out
