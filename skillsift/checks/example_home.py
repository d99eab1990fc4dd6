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
from ..validators.parsed import marks, per_skill

EXAMPLE_HOME = check("SK324", "example-home-path", NOTE, preset=STRICT,
                     summary="the body names no home folder of an example user (/Users/username/..., /home/user/...)",
                     details="A home-folder path whose user is a common example name (``/Users/username/``, "
                             "``/Users/john/``, ``/home/user/``, ``C:\\Users\\YourName\\``; the names SK311 treats "
                             "as placeholders, plus ``/home/<name>``): as a literal path it exists on no one's "
                             "machine, so a command that uses it fails. Write ``~/...`` or ``$HOME/...``. Opt-in "
                             "(strict preset): most such paths in the corpus show where a file goes, for a person to "
                             "adapt (docs/checks-skills.md, \"SK321-SK324\").")
EXAMPLE_USERS = frozenset({"username", "user", "you", "your", "yourname", "your-name", "your_name", "yourusername",
                           "your-username", "your_username", "name", "me", "myuser", "myname", "example", "john",
                           "jane", "johndoe", "jdoe", "foo", "bob", "alice", "x", "xxx", "someone", "USERNAME"})
# each starts with a literal ("/" or ":"), which the regex engine finds fast; the character before is checked
# apart: a path such as "/srv/home/user/" or "~/Users/x/" is not a home folder
_UNIX_HOME = re.compile(r"/(?:Users|home)/([A-Za-z0-9._-]+)/")
_WINDOWS_HOME = re.compile(r":\\Users\\([A-Za-z0-9._-]+)\\")
_BEFORE = re.compile(r"[\w/.~-]")


def _homes(body: str):
    """(offset, the path's text, its user) of every home-folder path of ``body``, in order."""
    hits = []
    if "/Users/" in body or "/home/" in body:
        hits += [(m.start(), m.group(0), m.group(1)) for m in _UNIX_HOME.finditer(body)
                 if m.start() == 0 or not _BEFORE.match(body[m.start() - 1])]
    if ":\\Users\\" in body:
        hits += [(m.start() - 1, body[m.start() - 1] + m.group(0), m.group(1)) for m in _WINDOWS_HOME.finditer(body)
                 if m.start() >= 1 and body[m.start() - 1].isalpha() and (
                     m.start() == 1 or not _BEFORE.match(body[m.start() - 2]))]
    return sorted(hits)


def check_example_home(parsed) -> list[Diagnostic]:
    """SK324 of one parsed SKILL.md (the first such path of each line)."""
    body = parsed.body
    held = marks(body)  # found once for every check: most bodies hold neither mark
    if ("Users" not in held or ("/Users/" not in body and ":\\Users" not in body)) and "/home/" not in held:
        return []
    out: list[Diagnostic] = []
    reported = -1
    for offset, text, user in _homes(body):  # over the whole body at once, then the line of each example
        if user.lower() not in EXAMPLE_USERS:
            continue
        number = body.count("\n", 0, offset)
        if number == reported:
            continue  # the first such path of each line
        reported = number
        out.append(EXAMPLE_HOME.report(
            file=parsed.path, line=parsed.body_line + number,
            message=f"{text} is the home folder of an example user; as written it exists on no machine",
            hint="write ~/ or $HOME/ (%USERPROFILE%\\ on Windows), which every user's shell expands"))
    return out


run, run_paths = per_skill(check_example_home)
