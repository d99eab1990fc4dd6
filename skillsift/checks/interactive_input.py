"""SK322: a script of a skill that waits for someone to type (``read -p``, ``input()``, ``Read-Host``).

An agent runs a skill's scripts through its shell tool, with no one at a terminal: a command that
waits on interactive input hangs until the tool's timeout, then fails (anthropics/claude-code#292,
"Bash: Interactive commands hang"; #30555: "Command needing stdin → hangs → times out → fails").
The check reads the text files of a skill's folder that are scripts (by extension or ``#!``) and the
shell code blocks of its SKILL.md.  A script that tests for a terminal first (``[ -t 0 ]``,
``isatty()``, ``-t 0``) is taken to handle the agent's case and is not reported.
"""

from __future__ import annotations

import re

from ..config.checks import check
from ..diagnostics import WARNING, Diagnostic
from ..validators.parsed import marks, parsed_skills
from ..validators.workspace import Workspace

INTERACTIVE = check("SK322", "interactive-script", WARNING, triggers=("skill", "skill-file"),
                    files="SKILL.md and the skill's scripts",
                    summary="no script of the skill waits for typed input (read -p, input(), Read-Host)",
                    details="A script of the skill's folder (``.sh``, ``.bash``, ``.zsh``, ``.py``, ``.ps1`` or a "
                            "``#!`` file) or a shell block of SKILL.md that waits for someone to type: ``read`` "
                            "with a prompt (``read -p``; not ``while read`` over a pipe or a file), Python's "
                            "``input()`` or ``getpass()``, PowerShell's ``Read-Host``. An agent runs scripts with "
                            "no terminal, so the command hangs until its timeout, then fails "
                            "(anthropics/claude-code#292, #30555). A script that tests for a terminal first "
                            "(``[ -t 0 ]``, ``isatty()``) is not reported. Take the value as an argument or an "
                            "environment variable, with a default.")
# "read" with an option cluster holding p ("read -p", "read -rp", "read -r -s -p"), options before it kept short
_SHELL_READ = re.compile(r"(?<![\w$.-])read[ \t]+(?:-[a-zA-Z]{1,8}[ \t]+){0,6}-[a-zA-Z]{0,8}p\b")
_READ_OPTION = re.compile(r"read[ \t]+-")  # what every _SHELL_READ match holds
#: Longest line read (a script line longer than this is data, not a prompt).
MAX_LINE = 4000
_READ_HOST = re.compile(r"\bRead-Host\b", re.IGNORECASE)
_PY_INPUT = re.compile(r"(?<![\w.])(?:input|raw_input|getpass(?:\.getpass)?)\(")
_TTY_TEST = re.compile(r"-t 0\b|-t 1\b|isatty\(|\bstdin\.isTTY\b|\[Environment\]::UserInteractive")
_SCRIPT_EXT = {".sh": "shell", ".bash": "shell", ".zsh": "shell", ".py": "python", ".ps1": "powershell"}
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_SHELL_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})\s*(?:sh|bash|zsh|shell|console|powershell|pwsh|ps1)?\s*$")
#: Largest script read (bytes); a bigger file is not a script an agent runs step by step.
MAX_SCRIPT = 512 * 1024


def _kind(rel: str, text: str) -> str | None:
    name = rel.rsplit("/", 1)[-1]
    for ext, kind in _SCRIPT_EXT.items():
        if name.endswith(ext):
            return kind
    first = text.split("\n", 1)[0]
    if first.startswith("#!"):
        return "python" if "python" in first else "shell" if re.search(r"\b(?:ba|z|k|da)?sh\b", first) else None
    return None


def waits(kind: str, line: str) -> str | None:
    """What in ``line`` of a ``kind`` script waits for input ("read -p", "input()", "Read-Host"), else None."""
    stripped = line.strip()
    if not stripped or stripped.startswith("#") or len(line) > MAX_LINE:
        return None
    if kind in ("shell", "any") and "read" in line:
        hit = _SHELL_READ.search(line)
        if hit and not re.match(r"^\s*(?:while|until)\b", line) and not re.search(r"\|\s*" + re.escape(hit.group(0)),
                                                                                  line) and "<" not in line[hit.end():]:
            return hit.group(0).strip()
    if kind in ("powershell", "shell", "any") and _READ_HOST.search(line):
        return "Read-Host"
    if kind == "python":
        hit = _PY_INPUT.search(line)
        if hit:
            return hit.group(0) + ")"
    return None


def script_problems(rel: str, text: str) -> list[Diagnostic]:
    """SK322 of one script file (the first waiting line)."""
    kind = _kind(rel, text)
    if kind is None or _TTY_TEST.search(text):
        return []
    for number, line in enumerate(text.split("\n"), 1):
        what = waits(kind, line)
        if what:
            return [INTERACTIVE.report(
                file=rel, line=number,
                message=f"{what} waits for someone to type; an agent runs this script with no terminal, so it hangs "
                        "until the tool's timeout",
                hint="take the value as an argument or an environment variable (with a default), or test for a "
                     "terminal first ([ -t 0 ])")]
    return []


def skill_problems(parsed) -> list[Diagnostic]:
    """SK322 of the shell code blocks of one SKILL.md (one pass over its lines)."""
    body = parsed.body
    held = marks(body)  # found once for every check: most bodies hold no mark of a prompt, and are not read
    # (what a _READ_OPTION match starts with: "read", a blank, then "-" or another blank)
    reads = "read -" in held or "read  " in held or "read \t" in held or "read\t" in held
    if not (reads and _READ_OPTION.search(body) or "ead-Host" in held or "ead-host" in held) or _TTY_TEST.search(body):
        return []
    out: list[Diagnostic] = []
    fence, shell = "", False  # the open fence's marker, whether its block is shell
    for number, line in enumerate(body.split("\n")):
        opener = _FENCE_LINE.match(line)
        if opener and (not fence or (opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence)
                                     and not opener.group(2).strip())):
            if fence:
                fence = ""
            else:
                fence, shell = opener.group(1), bool(_SHELL_FENCE.match(line))
            continue
        what = waits("any", line) if fence and shell else None
        if what:
            out.append(INTERACTIVE.report(
                file=parsed.path, line=parsed.body_line + number,
                message=f"{what} waits for someone to type; an agent runs this command with no terminal, so it "
                        "hangs until the tool's timeout",
                hint="pass the value on the command line or in an environment variable"))
    return out


def run(ws: Workspace) -> list[Diagnostic]:
    return run_paths(ws, [*ws.skill_paths, *(rel for skill in ws.skill_paths for rel in ws.skill_folder_files(skill))])


def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    skills = [rel for rel in paths if rel.rsplit("/", 1)[-1] == "SKILL.md"]
    for parsed in parsed_skills(ws, skills):
        out.extend(skill_problems(parsed))
    wanted = set(paths)
    for skill in ws.skill_paths:
        for rel in ws.skill_folder_files(skill):
            name = rel.rsplit("/", 1)[-1]
            if rel not in wanted or not (name.endswith(tuple(_SCRIPT_EXT)) or "." not in name):
                continue
            text = ws.read_text(rel)
            if text is None or len(text) > MAX_SCRIPT:
                continue
            out.extend(script_problems(rel, text))
    return out
