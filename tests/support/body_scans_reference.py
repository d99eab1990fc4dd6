"""The body scans of the spec, body and path checks as they were before ``str.find`` searches
replaced their regex passes over every line and their repeated substring tests: the reference of
tests/checks/test_body_scans_differential.py (kept verbatim but for the imports; the body check's
gates around its line checks, which are the module's own)."""

from __future__ import annotations

import re
from bisect import bisect_right

from skillsift.checks.body import _ARGUMENT, _SCAFFOLD_DESCRIPTION, EMPTY, SCAFFOLD, _line_checks, _too_long
from skillsift.checks.paths import (
    _HOME,
    _PLACEHOLDER,
    _PLACEHOLDER_USERS,
    _RUNNER_BEFORE,
    _SCRIPT_AT,
    ABSOLUTE,
    NO_SCRIPT,
    NOT_EXECUTABLE,
    _body_line,
    _Run,
)
from skillsift.checks.spec import _CODE_SPAN, _REF_DEF, _SCHEME, MAX_LINKS, placeholder_path
from skillsift.diagnostics import Diagnostic

_FENCE_HEAD = re.compile(r" {0,3}(`{3,}|~{3,})([^\n]*)")
_FENCE_LINE = re.compile(r"\n {0,3}(`{3,}|~{3,})([^\n]*)")
_CANDIDATE = re.compile(r"\]\(|\]:")
# (an image's "!" matched too, as the spec check's pattern did)
_INLINE_LINK = re.compile(
    r"!?\[[^\[\]\n]*\]\(\s*(<[^>\[\n]*>|[^)\s\[]+)(?:\s+(?:\"[^\"\[]*\"|'[^'\[]*'))?\s*\)")


def _fence_lines(text: str) -> list:
    if "```" not in text and "~~~" not in text:
        return []
    head = _FENCE_HEAD.match(text)
    out = [(0, head)] if head else []
    out += [(match.start() + 1, match) for match in _FENCE_LINE.finditer(text, head.end() if head else 0)]
    return out


def relative_links(body: str, first_line: int) -> list[tuple[int, str]]:
    """(file line, target) of each relative link in the markdown ``body`` (fenced code skipped)."""
    out: list[tuple[int, str]] = []
    if "](" not in body and "]:" not in body:
        return out
    fences = [start for start, _match in _fence_lines(body)]
    line_end = -1  # where the last line read ends: later hits before it are on that line
    line_no, counted = 0, 0
    for hit in _CANDIDATE.finditer(body):
        if hit.start() < line_end:
            continue  # the line was read already
        start = body.rfind("\n", 0, hit.start()) + 1
        end = body.find("\n", start)
        line_end = len(body) if end < 0 else end
        if bisect_right(fences, start) % 2:
            continue  # inside a fenced block
        line_no += body.count("\n", counted, start)
        counted = start
        text = _CODE_SPAN.sub("", body[start:] if end < 0 else body[start:end])
        targets = [m.group(1) for m in _INLINE_LINK.finditer(text)]
        ref = _REF_DEF.match(text)
        if ref:
            targets.append(ref.group(1))
        for target in targets:
            target = target.strip("<>").strip()
            if (not target or target.startswith(("#", "/", "~", "{", "$", "\\")) or _SCHEME.match(target)
                    or "{{" in target):
                continue
            target = target.split("#", 1)[0].split("?", 1)[0]
            if "%" in target:  # unquote leaves a target without "%" as it is (urllib.parse loads only then)
                from urllib.parse import unquote

                target = unquote(target)
            if target and not placeholder_path(target):
                out.append((first_line + line_no, target))
                if len(out) >= MAX_LINKS:
                    return out
    return out


def script_runs(body: str, dot_only: bool = False) -> list[_Run]:
    """Each ``scripts/``, ``bin/`` or ``tools/`` path the body runs (after python/bash/... or ``./``),
    found with ``str.find`` and a look at the few characters before it (no regex over the whole text)."""
    hits: list[_Run] = []
    for word in ("scripts/", "bin/", "tools/"):
        at = body.find(word)
        while at >= 0 and len(hits) < 1000:
            before = body[max(0, at - 12):at]
            if (before.endswith("./") and not (len(before) > 2 and (before[-3].isalnum() or before[-3] in "/._"))
                    if dot_only else _RUNNER_BEFORE.search(before)):
                match = _SCRIPT_AT.match(body, at)
                if match:
                    hits.append(_Run(match.group(0), at))
            at = body.find(word, at + len(word))
    return sorted(hits, key=lambda h: h.offset)


def check_body(parsed) -> list[Diagnostic]:
    """SK301-SK306 of one parsed SKILL.md."""
    path, body, first = parsed.path, parsed.body, parsed.body_line
    out: list[Diagnostic] = _too_long(path, body, first)
    if not body.strip():
        out.append(EMPTY.report(
            file=path, line=max(first, 1),
            message="the body is empty: an agent that uses this skill gets no instructions",
            hint="write the steps the agent should follow below the frontmatter"))
        return out
    description = parsed.front.get("description")
    if isinstance(description, str) and _SCAFFOLD_DESCRIPTION.match(description):
        out.append(SCAFFOLD.report(
            file=path, line=parsed.line("description"),
            message=f'the description is a template placeholder ("{description.strip()[:40]}")',
            hint="say what the skill does and when to use it"))
    fenced = "```" in body or "~~~" in body
    scaffold = "TODO" in body
    argument = "$" in body and _ARGUMENT.search(body) is not None
    bang = "!`" in body
    if not (fenced or scaffold or argument or bang):  # whole-text looks first: most bodies need no line pass
        return out
    return out + _line_checks(path, body, first, scaffold=scaffold, argument=argument, bang=bang)


def _home_paths(parsed) -> list[Diagnostic]:
    """SK311: a path under one person's home folder."""
    body = parsed.body
    if "/Users/" not in body and ":\\Users" not in body:
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
    if "scripts/" not in body and "bin/" not in body and "tools/" not in body:
        return []
    out = []
    for match in script_runs(body):
        script = match.group(1)
        if _PLACEHOLDER.search(script) or placeholder_path(script):
            continue
        rel = f"{base}/{script}"
        if not is_file(rel):
            out.append(NO_SCRIPT.report(
                file=path, line=_body_line(parsed, match.start()),
                message=f"the body runs {script}, which is not in the skill's folder ({rel})",
                hint=f"add {rel}, or fix the path (scripts run from the skill's folder)"))
    for match in script_runs(body, dot_only=True):
        rel = f"{base}/{match.group(1)}"
        if is_file(rel) and not is_executable(rel):
            out.append(NOT_EXECUTABLE.report(
                file=path, line=_body_line(parsed, match.start()),
                message=f"the body runs ./{match.group(1)}, but the file is not executable",
                hint=f"run `chmod +x {rel}` and commit it (git keeps the bit), or "
                     "`skillsift validate --fix`"))
    return out


_KEY = re.compile(r"^( *)(?:- +)?([\"']?)([^\s\"'#:][^:#]*?)\2\s*:(?:\s|$)")


def repeated_key_lines(raw: str) -> bool:
    """True when a block key repeats at one indent before the block closes (a cheap first look)."""
    seen: dict[int, set[str]] = {}
    for line in raw.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY.match(line)
        indent = len(line) - len(line.lstrip(" "))
        for deeper in [i for i in seen if i > indent]:
            del seen[deeper]
        if line.lstrip().startswith("- "):
            seen.pop(indent + 2, None)
            continue
        if match is None:
            continue
        keys = seen.setdefault(indent, set())
        if match.group(3) in keys:
            return True
        keys.add(match.group(3))
    return False
