"""SK311-SK320: the paths a skill names and the files its folder holds.

A skill is installed as its folder alone (copied to ``~/.claude/skills``, packed into a
plugin, uploaded), so what works in the repository may not work where it runs:

* SK311 an absolute path into someone's home folder (``/Users/ana/...``,
  ``C:\\Users\\ana\\...``; placeholder names such as ``username`` are examples) in the body;
* SK312 a link written with backslashes (``references\\guide.md``): it resolves on Windows only;
* SK313 a relative link that leaves the skill's folder (``../shared/x.md``): it works in the
  repository, not when the skill is installed alone;
* SK314 (note) a reference that links to another reference: agents read a linked file when
  needed, and a chain of them is read partly or not at all (Claude's skill authoring best
  practices: "keep references one level deep");
* SK315 a script the body runs (``python scripts/x.py``, ``bash scripts/x.sh``,
  ``./scripts/x``) that is not in the skill's folder;
* SK316 a script run as ``./scripts/x`` without its executable bit (``--fix`` sets it);
* SK317 a ``.env`` file in a skill folder: it ships with the skill, secrets and all;
* SK318 (note) a binary file (an executable, an archive) in a skill folder;
* SK319 ``skill.md`` in another case than ``SKILL.md``: agents look for ``SKILL.md`` exactly,
  so the skill is not loaded (``--fix`` renames it);
* SK320 a SKILL.md inside another skill's folder: agents stop at the first SKILL.md of a
  folder, so the inner skill is never loaded.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import PurePosixPath

from ..config.checks import check
from ..diagnostics import ERROR, NOTE, WARNING, Diagnostic
from ..files import read_head
from ..validators.grouped import group_repeated
from ..validators.parsed import marks, parsed_skills
from ..validators.workspace import Workspace, posix_name
from . import spec
from .spec import placeholder_path

ABSOLUTE = check("SK311", "absolute-path", WARNING,
                 summary="the body names no path into one person's home folder (/Users/ana/..., C:\\Users\\ana\\...)")
BACKSLASH = check("SK312", "backslash-link", WARNING, summary="links use / (a backslash resolves on Windows only)")
LEAVES = check("SK313", "link-leaves-skill", WARNING,
               summary="relative links stay inside the skill's folder (it is installed on its own)")
CHAIN = check("SK314", "reference-chain", NOTE,
              summary="a linked reference does not link on to another (references one level deep)")
NO_SCRIPT = check("SK315", "script-missing", WARNING,
                  summary="every script the body runs (python scripts/x.py, ./scripts/x) is in the skill's folder")
NOT_EXECUTABLE = check("SK316", "script-not-executable", WARNING, triggers=("skill", "skill-file"),
                       files="SKILL.md, the skill's scripts", summary="a script run as ./x has its executable bit")
ENV_FILE = check("SK317", "env-file-in-skill", WARNING, triggers=("skill", "skill-file"),
                 files="files of a skill folder",
                 summary="no .env file sits in a skill's folder")
BINARY = check("SK318", "binary-in-skill", NOTE, triggers=("skill", "skill-file"), files="files of a skill folder",
               summary="no binary (executable, archive) sits in a skill's folder")
WRONG_CASE = check("SK319", "skill-file-case", ERROR, scope="repo", triggers=("any",), files="the skills folders",
                   summary="a skill's file is named SKILL.md exactly (skill.md is not loaded)")
NESTED = check("SK320", "nested-skill", WARNING, triggers=("skill", "skill-file"), files="files of a skill folder",
               summary="no SKILL.md sits inside another skill's folder (it is never loaded)")
# a macOS or Windows home folder with a real-looking user name (placeholders such as "username",
# "you", "<name>" or "$USER" are examples, and /home/ubuntu is a server's own path)
_HOME = re.compile(r"(?<![\w/.~-])(?:/Users/([A-Za-z0-9._-]+)/|[A-Za-z]:\\Users\\([A-Za-z0-9._-]+)\\)")
_PLACEHOLDER_USERS = frozenset({"username", "user", "you", "your", "yourname", "your-name", "your_name", "name",
                                "me", "myuser", "myname", "shared", "public", "default", "example", "john", "jane",
                                "foo", "bob", "alice", "x", "xxx", "runner", "admin"})
_PLACEHOLDER = re.compile(r"[<{$*]")
_SCRIPT_AT = re.compile(r"(?:scripts|bin|tools)/[\w./-]+\w")
_RUNNER_BEFORE = re.compile(r"(?:(?<![\w-])(?:python3?|bash|sh|node|ruby|perl|uv run|deno run)[ \t]+|(?<![\w/.])\./)$")


class _Run:
    """A script run found in a body: ``group(1)`` its path, ``start()`` its offset."""

    def __init__(self, path: str, start: int):
        self.path, self.offset = path, start

    def group(self, _n: int) -> str:
        return self.path

    def start(self) -> int:
        return self.offset


def script_runs(body: str, dot_only: bool = False) -> list[_Run]:
    """Each ``scripts/``, ``bin/`` or ``tools/`` path the body runs (after python/bash/... or ``./``),
    found with ``str.find`` and a look at the few characters before it (no regex over the whole text);
    ``dot_only``: those run as ``./path`` alone."""
    return _script_runs(body)[dot_only]


def _script_runs(body: str) -> tuple[list[_Run], list[_Run]]:
    """(:func:`script_runs` of ``body``, the same with ``dot_only``), from one search of each word:
    at most 1,000 runs in each, as two searches would find them."""
    runs: list[_Run] = []
    dot_runs: list[_Run] = []
    held = marks(body)
    words = [word for word in ("scripts/", "bin/", "tools/") if word in held]
    for word in words:
        at = body.find(word)
        while at >= 0 and (len(runs) < 1000 or len(dot_runs) < 1000):
            before = body[max(0, at - 12):at]
            # what a runner and its blank, or "./", end with (or a line break after them, where "$" matches too)
            if not before.endswith((" ", "\t", "./", "\n")):
                at = body.find(word, at + len(word))
                continue
            run = len(runs) < 1000 and _RUNNER_BEFORE.search(before) is not None
            dot = (len(dot_runs) < 1000 and before.endswith("./")
                   and not (len(before) > 2 and (before[-3].isalnum() or before[-3] in "/._")))
            if run or dot:
                match = _SCRIPT_AT.match(body, at)
                if match:
                    hit = _Run(match.group(0), at)
                    if run:
                        runs.append(hit)
                    if dot:
                        dot_runs.append(hit)
            at = body.find(word, at + len(word))
    if len(words) < 2:  # the runs of one word are found in order
        return runs, dot_runs
    return sorted(runs, key=_offset), sorted(dot_runs, key=_offset)


def _offset(run: _Run) -> int:
    return run.offset


BINARY_SUFFIXES = (".exe", ".dll", ".so", ".dylib", ".bin", ".jar", ".class", ".zip", ".tar", ".gz", ".tgz",
                   ".7z", ".rar", ".whl", ".pyc", ".o", ".a")
MAX_ROOT_DIRS = 2000


def _links(parsed, ws=None):
    if ws is None:
        return spec.relative_links(parsed.body, parsed.body_line)
    return spec.links_of(ws, parsed.path, parsed.body, parsed.body_line)


def _body_line(parsed, offset: int) -> int:
    """The file line of an offset into the body."""
    return parsed.body_line + parsed.body.count("\n", 0, offset)


def _home_paths(parsed) -> list[Diagnostic]:
    """SK311: a path under one person's home folder."""
    body = parsed.body
    if "Users" not in marks(body) or ("/Users/" not in body and ":\\Users" not in body):
        return []
    out = []
    for hit in _HOME.finditer(body):
        if (hit.group(1) or hit.group(2) or "").lower() in _PLACEHOLDER_USERS:
            continue
        out.append(ABSOLUTE.report(
            file=parsed.path, line=_body_line(parsed, hit.start()),
            message=f"{hit.group(0)} is a path on one person's machine; it does not exist where the skill runs",
            hint="write the path relative to the skill's folder (scripts/x.py) or to the project, or use ~"))
    return out


def _script_problems(parsed, is_file, is_executable) -> list[Diagnostic]:
    """A script the body runs that is not in the folder, or is not executable."""

    path, base, body = parsed.path, parsed.folder, parsed.body
    runs, dot_runs = _script_runs(body)
    out = []
    line, counted = parsed.body_line, 0  # the file line of offset ``counted`` (the runs come in order)
    for match in runs:
        script = match.group(1)
        if _PLACEHOLDER.search(script) or placeholder_path(script):
            continue
        rel = f"{base}/{script}"
        if not is_file(rel):
            line += body.count("\n", counted, match.start())
            counted = match.start()
            out.append(NO_SCRIPT.report(
                file=path, line=line,
                message=f"the body runs {script}, which is not in the skill's folder ({rel})",
                hint=f"add {rel}, or fix the path (scripts run from the skill's folder)"))
    for match in dot_runs:
        rel = f"{base}/{match.group(1)}"
        if is_file(rel) and not is_executable(rel):
            out.append(NOT_EXECUTABLE.report(
                file=path, line=_body_line(parsed, match.start()),
                message=f"the body runs ./{match.group(1)}, but the file is not executable",
                hint=f"run `chmod +x {rel}` and commit it (git keeps the bit), or "
                     "`skillsift validate --fix`"))
    return out


def _chain(path: str, line_no: int, target: str, joined: str, in_folder: set, direct: set,
           read_text) -> Diagnostic | None:
    """SK316: a reference in the folder that links on to another one SKILL.md does not link."""
    text = read_text(joined)
    if text is None:
        return None
    ref_base = PurePosixPath(joined).parent.as_posix()
    for _line, inner in spec.relative_links(text, 1)[:50]:
        inner_rel = os.path.normpath(os.path.join(ref_base, inner)).replace(os.sep, "/")
        if inner_rel.endswith(".md") and inner_rel in in_folder and inner_rel not in direct and (
                inner_rel != path):
            return CHAIN.report(
                file=path, line=line_no,
                message=f"{target} links on to {inner_rel}; agents may read only part of a chain of "
                        "references",
                hint=f"link {inner_rel} from SKILL.md directly (keep references one level deep)")
    return None


def _link_problem(parsed, line_no: int, target: str, in_folder: set, direct: set, read_text) -> Diagnostic | None:
    """A link with backslashes, one leaving the skill's folder, or one starting a chain of references."""
    path, base = parsed.path, parsed.folder
    if "\\" in target:
        return BACKSLASH.report(
            file=path, line=line_no,
            message=f"link {target} uses backslashes; it resolves on Windows only",
            hint=f"write it with /: {target.replace(chr(92), '/')}")
    joined = os.path.normpath(os.path.join(base, target)).replace(os.sep, "/")
    if joined == ".." or joined.startswith("../"):
        return None  # outside the repository: SK108's business
    if not (joined == base or joined.startswith(base.rstrip("/") + "/")):
        return LEAVES.report(
            file=path, line=line_no,
            message=f"link {target} leaves the skill's folder ({joined}); it breaks when the skill is "
                    "installed on its own",
            hint="copy the file into the skill's folder (references/) and link it from there")
    if joined.endswith(".md") and joined in in_folder:
        return _chain(path, line_no, target, joined, in_folder, direct, read_text)
    return None


def check_paths(parsed, *, folder_files, is_file, is_executable, read_text, ws=None) -> list[Diagnostic]:
    """SK311-SK316 of one parsed SKILL.md.  ``folder_files`` are the other files of its folder
    (relative to the repository), the callables answer for paths relative to the repository."""
    out = _home_paths(parsed) + _script_problems(parsed, is_file, is_executable)
    links = _links(parsed, ws)
    if not links:  # (most skills link no file)
        return out
    in_folder = set(folder_files)
    # the files SKILL.md links, which a chain of references (SK314) is read against: only for a folder
    # holding a markdown file besides SKILL.md, the only place a chain can start
    direct = ({os.path.normpath(os.path.join(parsed.folder, t)).replace(os.sep, "/") for _n, t in links}
              if any(rel.endswith(".md") for rel in in_folder) else set())
    for line_no, target in links:
        problem = _link_problem(parsed, line_no, target, in_folder, direct, read_text)
        if problem is not None:
            out.append(problem)
    return out


def folder_problems(skill_path: str, folder_files, *, head) -> list[Diagnostic]:
    """SK317, SK318 and SK320 for the files of one skill's folder; ``head(rel)`` gives a file's first bytes."""
    out: list[Diagnostic] = []
    for rel in folder_files:
        name = posix_name(rel)
        if name == ".env" or (name.startswith(".env.") and not name.endswith((".example", ".sample", ".template"))):
            out.append(ENV_FILE.report(
                file=rel,
                message=f"{name} sits in the skill's folder and ships with the skill, with whatever secrets it holds",
                hint="move it out of the skill, or keep a .env.example with placeholders instead"))
        elif name == "SKILL.md":
            out.append(NESTED.report(
                file=rel,
                message=f"this skill sits inside the folder of {skill_path}; agents stop at the outer SKILL.md, "
                        "so it is never loaded",
                hint="move its folder next to the outer skill's, under the skills folder"))
        elif name.lower().endswith(BINARY_SUFFIXES) or _is_executable_binary(head(rel)):
            out.append(BINARY.report(
                file=rel,
                message=f"{name} is a binary file inside a skill; it ships with the skill and cannot be reviewed",
                hint="build it where it is used, or fetch a pinned release with a checksum"))
    return out


def _is_executable_binary(data: bytes) -> bool:
    return data.startswith((b"\x7fELF", b"MZ", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe"))


def wrong_case_files(ws) -> list[str]:
    """``skill.md`` files (any case but ``SKILL.md``) in a skill-shaped folder of a searched root that holds no
    SKILL.md, bounded by :data:`MAX_ROOT_DIRS` folders per root."""
    out: list[str] = []
    served = ws.skill_folders  # folders holding a SKILL.md that was found: nothing to look at there
    for root in ws.discovery.searched:
        stack, walked = [(root, 0)], 0
        while stack and walked < MAX_ROOT_DIRS:
            cur, depth = stack.pop()
            walked += 1
            try:
                with os.scandir(ws.abspath(cur)) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            names = {e.name for e in entries}
            if "SKILL.md" in names:
                continue
            for entry in entries:
                try:
                    if entry.name.lower() == "skill.md" and entry.is_file():
                        out.append(f"{cur}/{entry.name}")
                    elif (f"{cur}/{entry.name}" not in served and entry.is_dir() and not entry.is_symlink()
                          and not entry.name.startswith(".") and entry.name != "node_modules" and depth < 5):
                        stack.append((f"{cur}/{entry.name}", depth + 1))
                except OSError:
                    continue
    return sorted(set(out))


def wrong_case(ws) -> list[Diagnostic]:
    """SK319 for every wrongly cased skill file of the searched roots."""
    return [WRONG_CASE.report(
        file=rel,
        message=f"{PurePosixPath(rel).name} is not SKILL.md: agents look for SKILL.md exactly (case matters on "
                "Linux), so this skill is not loaded",
        hint=f"rename it to {PurePosixPath(rel).parent.as_posix()}/SKILL.md (`skillsift validate --fix`)")
        for rel in wrong_case_files(ws)]


def run(ws: Workspace) -> list[Diagnostic]:
    return run_paths(ws, ws.skill_paths) + wrong_case(ws)


def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
    def is_file(rel: str) -> bool:
        return ws.is_file(rel)  # from the listing of the skill's folder (walked below, before it is asked)

    def is_executable(rel: str) -> bool:
        try:
            return bool(os.stat(ws.abspath(rel)).st_mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))
        except OSError:
            return False

    def head(rel: str) -> bytes:
        return read_head(ws.abspath(rel), 4)  # a file the folder walk listed: a FIFO or link swapped in is not opened

    out: list[Diagnostic] = []
    # a file of a skill's folder stands for its skill (its findings are kept by the runner's path filter)
    skills = sorted({p if p.endswith("SKILL.md") else (ws.skill_of(p) or p) for p in paths})
    if any(posix_name(p).lower() == "skill.md" and not p.endswith("SKILL.md") for p in paths):
        out.extend(wrong_case(ws))
    for parsed in parsed_skills(ws, skills):
        files = ws.skill_folder_files(parsed.path)
        out.extend(check_paths(parsed, folder_files=files, is_file=is_file, is_executable=is_executable,
                               read_text=ws.read_text, ws=ws))
        out.extend(folder_problems(parsed.path, files, head=head))

    return group_repeated(out, (NO_SCRIPT.code,))
