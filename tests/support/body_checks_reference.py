"""Per-file body checks as they were before they read the shared marks, fence lines and line lists
(SK307, SK321, SK322, the spec and path checks' scans): the reference of
tests/checks/test_body_checks_differential.py, kept verbatim but for the imports and the fences, which
are read here line by line as the body check's first version read them."""

from __future__ import annotations

import re

from skillsift.checks.backslash_paths import _PATH, BACKSLASH_PATH, MAX_LINE, _inside_windows_paths
from skillsift.checks.bang_position import _LITERAL_BANG, _SPAN, NOT_RUN
from skillsift.checks.body import (
    _FENCE,
    MAX_SPAN_LINE,
    UNCLOSED,
    _argument_in_line,
    _bang_in_line,
    _scaffold_in_line,
)
from skillsift.checks.example_home import EXAMPLE_HOME, EXAMPLE_USERS, _homes
from skillsift.checks.interactive_input import (
    _FENCE_LINE,
    _READ_OPTION,
    _SHELL_FENCE,
    _TTY_TEST,
    INTERACTIVE,
    waits,
)
from skillsift.checks.spec import MAX_NAME, normal_name
from skillsift.diagnostics import Diagnostic

_FENCE_ANY = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)", re.MULTILINE)


def fence_spans(body: str) -> tuple[list[tuple[int, int]], int | None]:
    """(each fenced block's (first line inside, line after) from 0, the line of an unclosed fence or None),
    by the body check's first reading of fences: one regex pass, each fence line closing the open
    block when it repeats its character at least as often and holds nothing else."""
    spans: list[tuple[int, int]] = []
    opened, mark = None, ""
    for match in _FENCE_ANY.finditer(body):
        line = body.count("\n", 0, match.start())
        run, rest = match.group(1), match.group(2)
        if opened is None:
            opened, mark = line, run
        elif run[0] == mark[0] and len(run) >= len(mark) and not rest.strip():
            spans.append((opened + 1, line))
            opened = None
    if opened is not None:
        spans.append((opened + 1, body.count("\n") + 1))
    return spans, opened


def inside_lines(body: str) -> tuple[list[bool], int | None]:
    """(whether each line of ``body`` lies inside fenced code, the line of an unclosed fence or None),
    from :func:`fence_spans`."""
    spans, opened = fence_spans(body)
    inside = [False] * (body.count("\n") + 1)
    for first, after in spans:
        for number in range(first, min(after, len(inside))):
            inside[number] = True
    return inside, opened


def check_positions(parsed) -> list[Diagnostic]:
    """SK307 of one parsed SKILL.md."""
    body = parsed.body
    if "!`" not in body:
        return []
    inside, _unclosed = inside_lines(body)
    out: list[Diagnostic] = []
    for number, line in enumerate(body.split("\n")):
        if "!`" not in line or inside[number] or len(line) > MAX_SPAN_LINE:
            continue
        for hit in _LITERAL_BANG.finditer(line):
            # a "!`" inside a wider code span (``a!`b` ``) is code, SK305's
            if any(span.start() < hit.start() < span.end() for span in _SPAN.finditer(line)):
                continue
            out.append(NOT_RUN.report(
                file=parsed.path, line=parsed.body_line + number,
                message=f"{hit.group(0)[:40]} follows \"{line[hit.start() - 1]}\", so Claude Code does not run it: "
                        "the model reads the command, not its output",
                hint="put a space (or a line break) before the !, e.g. \"Branch: !`git branch --show-current`\""))
            break
    return out


def skill_problems(parsed) -> list[Diagnostic]:
    """SK322 of the shell code blocks of one SKILL.md (one pass over its lines)."""
    body = parsed.body
    if not (_READ_OPTION.search(body) or "ead-Host" in body or "ead-host" in body) or _TTY_TEST.search(body):
        return []  # most bodies: one look at the whole text (a literal first, which the regex engine finds fast)
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


def check_backslashes(parsed) -> list[Diagnostic]:
    """SK321 of one parsed SKILL.md (the first such path of each line)."""
    body = parsed.body
    if "\\" not in body or str(parsed.front.get("shell", "")).strip().lower() == "powershell":
        return []
    out: list[Diagnostic] = []
    at = body.find("\\")
    while at >= 0:  # each line holding a backslash, found by str.find (most lines have none)
        start = body.rfind("\n", 0, at) + 1
        end = body.find("\n", at)
        end = len(body) if end < 0 else end
        at = body.find("\\", end)
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


def _line_checks(path: str, body: str, first: int, *, scaffold: bool, argument: bool, bang: bool) -> list[Diagnostic]:
    """SK303-SK306, line by line: placeholders outside code, arguments and commands inside it, an unclosed fence."""
    out: list[Diagnostic] = []
    inside, unclosed = inside_lines(body)
    needles = [needle for needle, wanted in (("TODO", scaffold), ("$", argument), ("!`", bang)) if wanted]
    for number, line in enumerate(body.split("\n")):
        if not any(needle in line for needle in needles):
            continue
        code = inside[number]
        if not code:
            out += _scaffold_in_line(path, first + number, line)
        if argument and "$" in line:
            out += _argument_in_line(path, first + number, line, code)
        if bang and "!`" in line:
            out += _bang_in_line(path, first + number, line, code)
    if unclosed is not None:
        opener = body.split("\n")[unclosed]
        out.append(UNCLOSED.report(
            file=path, line=first + unclosed,
            message="this code fence is never closed, so the rest of the file is code",
            hint=f"close it with a line of {_FENCE.match(opener).group(1)}"))  # type: ignore[union-attr]
    return out


def name_problems(name: str) -> list[str]:
    """What is wrong with the format of a (non-blank) ``name``, in the specification's words."""
    name = normal_name(name)
    out = []
    if len(name) > MAX_NAME:
        out.append(f"is {len(name)} characters, over the {MAX_NAME} allowed")
    if name != name.lower():
        out.append("has capitals (names are lowercase)")
    if name.startswith("-") or name.endswith("-"):
        out.append("starts or ends with a hyphen")
    if "--" in name:
        out.append("holds a doubled hyphen")
    bad = sorted({c for c in name if not (c.isalnum() or c == "-")})
    if bad:
        shown = ", ".join(repr(c) for c in bad[:5])
        out.append(f"holds {shown} (only letters, digits and hyphens are allowed)")
    return out


def check_example_home(parsed) -> list[Diagnostic]:
    """SK324 of one parsed SKILL.md (the first such path of each line)."""
    body = parsed.body
    if "/Users/" not in body and "/home/" not in body and ":\\Users" not in body:
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
