"""What every hook shares: its arguments, the deleted skills of a commit, printing and exit codes.

Hooks are thin: each parses ``[--root R] [--config F] [--format F] [FILES...]``, builds a
:class:`~skillsift.validators.workspace.Workspace` and runs a few checks.  Only ``argparse``
and ``subprocess`` are imported here, so a hook pays only for the checks it runs.
"""

from __future__ import annotations

import argparse
import os
import sys

FORMATS = ("text", "json", "github", "sarif")


def parse_args(name: str, argv, description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=f"skillsift hook {name}", description=description)
    parser.add_argument("files", nargs="*", help="files to check (pre-commit passes the staged ones)")
    parser.add_argument("--root", default=".", help="repository root (default: the current directory)")
    parser.add_argument("--config", dest="config_file", default=None, help="config file to use")
    parser.add_argument("--format", dest="fmt", choices=FORMATS, default="text")
    return parser.parse_args(list(argv))


def workspace(args):
    from ..validators.workspace import Workspace

    return Workspace(args.root, config_file=args.config_file)


def relative(args, files) -> list[str]:
    """The given files relative to the root, with ``/`` (pre-commit passes them that way already)."""
    from ..validators.workspace import rel_posix

    root = os.path.abspath(args.root)
    return sorted(dict.fromkeys(rel_posix(os.path.abspath(f), root) for f in files))


def staged_deletions(root: str) -> list[str]:
    """Files the commit being made deletes (``git diff --cached --diff-filter=D``); [] outside git."""
    import subprocess

    try:
        proc = subprocess.run(["git", "diff", "--cached", "--name-only", "--diff-filter=D", "-z"], cwd=root,
                              capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    if proc.returncode != 0:
        return []
    prefix = _git_prefix(root)
    out = []
    for name in proc.stdout.decode("utf-8", "replace").split("\0"):
        if name and (not prefix or name.startswith(prefix)):
            out.append(name[len(prefix):])
    return out


def _git_prefix(root: str) -> str:
    """Path of ``root`` inside its work tree ("" at the top), with a trailing ``/``."""
    import subprocess

    try:
        proc = subprocess.run(["git", "rev-parse", "--show-prefix"], cwd=root, capture_output=True, timeout=30,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return proc.stdout.decode("utf-8", "replace").strip() if proc.returncode == 0 else ""


def report(diagnostics, fmt: str, *, root: str = "", out=None) -> None:
    """Print the diagnostics (nothing at all when there are none, as formatters stay quiet)."""
    if not diagnostics and fmt == "text":
        return
    from ..render.diagnostics import render

    (out or sys.stdout).write(render(diagnostics, fmt, root=root))


def apply_settings(ws, diagnostics) -> list:
    """The diagnostics less the codes ``[validate] ignore`` or ``[validate.severity]`` turn off,
    each at its configured severity."""
    from dataclasses import replace

    from ..validators import expand_codes

    ignored, _unknown = expand_codes(ws.settings.ignore)
    severity = ws.settings.severity
    out = []
    for diag in diagnostics:
        level = severity.get(diag.code)
        if diag.code in ignored or level == "off":
            continue
        out.append(replace(diag, severity=level) if level and level != diag.severity else diag)
    return out


def nothing_to_check(ws, files) -> list:
    """Errors for a hook that would otherwise pass on nothing: a staged SKILL.md that no
    folder skillsift reads holds (SK012), or a repository where no skill is found (SK013)."""
    from dataclasses import replace

    from ..diagnostics import ERROR, Diagnostic
    from ..validators import expand_codes
    from ..validators.served import NOT_SERVED, nothing_found

    served = set(ws.skill_paths)
    out = []
    for rel in files:
        if rel.endswith("SKILL.md") and rel not in served and os.path.isfile(ws.abspath(rel)):
            out.append(Diagnostic(
                file=rel, code=NOT_SERVED, severity=ERROR,
                message=f"{rel} is outside every folder skillsift and the agents read, so it was not checked",
                hint="move the skill folder under .agents/skills, .claude/skills or skills (README, \"Where skills "
                     "are found\"), or list it in [catalog] skills"))
    patterns = tuple(ws.config.skills) if ws.config is not None else ()
    out += [replace(d, severity=ERROR) for d in nothing_found(ws.discovery, patterns)]
    ignored, _unknown = expand_codes(ws.settings.ignore)
    off = {code for code, level in ws.settings.severity.items() if level == "off"} | ignored
    return [d for d in out if d.code not in off]  # [validate] can still turn them off


def exit_code(diagnostics) -> int:
    """2 for an unusable config (AR9D0), 1 for any error or warning a hook checks, else 0."""
    if any(d.code == "AR9D0" for d in diagnostics):
        return 2
    return 1 if any(d.severity == "error" or d.code == "SK013" for d in diagnostics) else 0
