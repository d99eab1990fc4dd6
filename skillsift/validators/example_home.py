"""SK324: a path into the home folder of an example user (``/Users/username/...``, ``/home/user/...``).

SK311 (:mod:`.paths`) reports a home folder with a real-looking user name and leaves placeholder
names alone, as examples.  Written as a literal path, a placeholder still names a folder that exists
on no one's machine: an agent that runs ``cat /Users/username/.config/app.json`` gets "No such file".
``~/`` or ``$HOME/`` work for every user.  Peers report the same path (claude-skills-doctor's
absolute-path rule and agnix's CC-SK-021 take any user name); the corpus measurement in
docs/validate.md decides the preset.
"""

from __future__ import annotations

import re

from ..config.checks import STRICT, check
from ..diagnostics import NOTE, Diagnostic
from .parsed import parsed_skills
from .workspace import Workspace

EXAMPLE_HOME = check("SK324", "example-home-path", NOTE, preset=STRICT,
                     summary="the body names no home folder of an example user (/Users/username/..., /home/user/...)",
                     details="A home-folder path whose user is a common example name (``/Users/username/``, "
                             "``/Users/john/``, ``/home/user/``, ``C:\\Users\\YourName\\``; the names SK311 treats "
                             "as placeholders, plus ``/home/<name>``): as a literal path it exists on no one's "
                             "machine, so a command that uses it fails. Write ``~/...`` or ``$HOME/...``. Opt-in "
                             "(strict preset): most such paths in the corpus show where a file goes, for a person to "
                             "adapt (docs/validate.md, \"SK321-SK324\").")
EXAMPLE_USERS = frozenset({"username", "user", "you", "your", "yourname", "your-name", "your_name", "yourusername",
                           "your-username", "your_username", "name", "me", "myuser", "myname", "example", "john",
                           "jane", "johndoe", "jdoe", "foo", "bob", "alice", "x", "xxx", "someone", "USERNAME"})
_HOME = re.compile(r"(?<![\w/.~-])(?:/Users/([A-Za-z0-9._-]+)/|/home/([A-Za-z0-9._-]+)/|"
                   r"[A-Za-z]:\\Users\\([A-Za-z0-9._-]+)\\)")


def check_example_home(parsed) -> list[Diagnostic]:
    """SK324 of one parsed SKILL.md (the first such path of each line)."""
    body = parsed.body
    if "/Users/" not in body and "/home/" not in body and ":\\Users" not in body:
        return []
    out: list[Diagnostic] = []
    for number, line in enumerate(body.split("\n")):
        for hit in _HOME.finditer(line):
            user = hit.group(1) or hit.group(2) or hit.group(3) or ""
            if user.lower() not in EXAMPLE_USERS:
                continue
            out.append(EXAMPLE_HOME.report(
                file=parsed.path, line=parsed.body_line + number,
                message=f"{hit.group(0)} is the home folder of an example user; as written it exists on no machine",
                hint="write ~/ or $HOME/ (%USERPROFILE%\\ on Windows), which every user's shell expands"))
            break
    return out


def run(ws: Workspace) -> list[Diagnostic]:
    return run_paths(ws, ws.skill_paths)


def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for parsed in parsed_skills(ws, paths):
        out.extend(check_example_home(parsed))
    return out
