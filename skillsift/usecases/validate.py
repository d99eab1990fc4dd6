"""One ``skillsift validate`` run: the request in, the findings out (docs/validate.md).

:func:`run_validate` opens the workspace, accepts the current secret findings
(``--update-secrets-baseline``), applies or previews the safe fixes (``--fix``, ``--diff``), selects the
checks (``--select``, ``--ignore``, the preset) and runs them over the repository or the paths given.
It prints nothing: the config's notes and the fixes' lines come to ``notify`` as
:class:`~skillsift.usecases.project.Message` data in the order they happen, and the door renders the
:class:`ValidateOutcome` and chooses the exit code (:func:`exit_code`).  A usage problem raises
SkillsiftError with exit code 2.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from ..checks.fixes import case_fix, chmod_fixes, plan, unified_diff
from ..checks.paths import wrong_case_files
from ..checks.secrets import baseline_bytes, baseline_document, current_findings, skill_files
from ..config import RootNotFound
from ..diagnostics import NOTE, SkillsiftError
from ..index.atomic import write_atomic
from ..validators import CODES
from ..validators.runner import run_checks, select_codes
from ..validators.workspace import Workspace, rel_posix
from .project import Message

USAGE_EXIT = 2


@dataclass(frozen=True)
class ValidateRequest:
    """The flags of one ``skillsift validate`` run (see the command's help)."""

    root: str = "."
    config_file: str | None = None
    paths: tuple[str, ...] = ()
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    preset: str | None = None
    fix: bool = False
    show_diff: bool = False
    force: bool = False
    update_baseline: bool = False


@dataclass
class ValidateOutcome:
    """What the run found: the findings, the skills checked, and where it stopped early (``stop``)."""

    workspace: object = None
    diagnostics: list = field(default_factory=list)
    checked: int | None = None
    stop: int | None = None  # an exit code when the run ended before the checks (baseline written, a preview)
    baseline_line: str = ""  # --update-secrets-baseline: the one line to print on stdout


def usage(message: str, hint: str = "") -> SkillsiftError:
    """A usage problem of ``validate`` (exit 2: it reserves 1 for \"errors found\")."""
    return SkillsiftError(message, hint=hint, exit_code=USAGE_EXIT)


def resolve_paths(ws, paths) -> list[str]:
    """Command-line paths as paths relative to the root (a directory stands for the files under it)."""

    out: list[str] = []
    for given in paths:
        absolute = os.path.abspath(given)
        rel = rel_posix(absolute, ws.root)
        if os.path.isabs(rel) or rel.startswith("../"):
            raise usage(f"{given} is outside the repository root {ws.root}", "pass --root or a path inside it")
        if os.path.isdir(absolute):
            prefix = "" if rel == "." else rel.rstrip("/") + "/"
            inside = [p for p in (*ws.skill_paths, *ws.cases_paths) if p.startswith(prefix)]
            out.extend(inside or [rel])
        elif os.path.lexists(absolute):  # a dangling link is checked too (SK021)
            out.append(rel)
        else:
            raise usage(f"{given}: no such file", "pass existing files, or no path to check the whole repository")
    return sorted(dict.fromkeys(out))


def exit_code(diagnostics, *, strict: bool) -> int:
    """2 when the config is unusable (AR9D0), 1 for errors (or warnings with ``strict``), else 0."""
    if any(d.code == "AR9D0" for d in diagnostics):
        return 2
    if any(d.severity == "error" for d in diagnostics):
        return 1
    if strict and any(d.severity == "warning" for d in diagnostics):
        return 1
    return 0


def update_secrets_baseline(ws, force: bool = False) -> str:
    """Write the secrets baseline accepting every current finding; returns a one-line report."""

    findings = current_findings(ws, skill_files(ws, ws.skill_paths))

    rel = rel_posix(ws.settings.secrets_baseline, ws.root)
    path = ws.abspath(rel)
    real_root = os.path.realpath(ws.root)
    if os.path.islink(path) or os.path.commonpath([real_root, os.path.realpath(path)]) != real_root:
        raise SkillsiftError(f"[validate] secrets_baseline {rel} is outside the repository (or a symbolic link); "
                             "skillsift writes it only inside the repository",
                             hint="point secrets_baseline at a file inside the repository")
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    changed = write_atomic(path, baseline_bytes(baseline_document(findings)), force=force)
    state = "wrote" if changed else "unchanged:"
    return f"{state} {rel} ({len(findings)} accepted finding{'s' if len(findings) != 1 else ''})"


def _skill_fixes(ws, rel: str, text: str) -> list:
    """The fixes planned for one SKILL.md (the executable bits only when its frontmatter parses)."""

    skill, problems = ws.parsed(rel)
    front = None if problems or skill is None else skill.frontmatter
    fixes = plan(rel, text, front, exists=lambda r: os.path.lexists(ws.abspath(r)))
    if front is not None:
        fixes += chmod_fixes(rel, text, lambda r: os.path.isfile(ws.abspath(r)),
                             lambda r: os.access(ws.abspath(r), os.X_OK))
    return fixes


def _apply_fix(ws, rel: str, text: str, fix, lines: list[str], *, write: bool, show_diff: bool, force: bool) -> str:
    """Show and (with ``write``) apply one fix of ``rel``; returns the file's text after it."""

    if fix.chmod is not None and write:
        mode = os.stat(ws.abspath(fix.chmod)).st_mode
        os.chmod(ws.abspath(fix.chmod), mode | ((mode & 0o444) >> 2))  # x wherever r is set
    if fix.new_text is not None:
        if show_diff:
            lines.append(unified_diff(rel, text, fix.new_text).rstrip("\n"))
        if write:
            write_atomic(ws.abspath(rel), fix.new_text.encode("utf-8"), force=force)
        text = fix.new_text  # a later fix of the file builds on this one
    if fix.rename_to is not None:
        folder = rel.rsplit("/", 1)[0]
        if show_diff:
            lines.append(f"rename {folder}/ -> {fix.rename_to}/")
        if write:
            os.rename(ws.abspath(folder), ws.abspath(fix.rename_to))
    lines.append(f"{'fixed' if write else 'would fix'}: {rel}: {fix.code} {fix.summary}")
    return text


def _case_fixes(ws, paths, lines: list[str], *, write: bool, show_diff: bool) -> None:
    """Rename the files whose name differs from the expected one only in case."""

    for rel in wrong_case_files(ws):
        if paths is not None and rel not in paths:
            continue
        found = case_fix(rel, lambda r: os.path.lexists(ws.abspath(r)))
        if found is not None and found.rename_file_to is not None:
            if show_diff:
                lines.append(f"rename {rel} -> {found.rename_file_to}")
            if write:
                os.rename(ws.abspath(rel), ws.abspath(found.rename_file_to))
            lines.append(f"{'fixed' if write else 'would fix'}: {rel}: {found.code} {found.summary}")


def _renamed_notes(ws, renamed: list[tuple[str, str]]) -> list[str]:
    """A note for each renamed skill still named by its old name in the cases or the index."""
    import re

    lines = []
    for old, new in renamed:
        pattern = re.compile(rf"(?<![\w-]){re.escape(old)}(?![\w-])")
        users = [p for p in ws.cases_paths if pattern.search(ws.read_text(p) or "")]
        manifest = f"{ws.index_dir.rstrip('/')}/manifest.json"
        if pattern.search(ws.read_text(manifest) or ""):
            users.append(manifest + " (run 'skillsift index')")
        if users:
            lines.append(f'note: skill "{old}" is now "{new}"; still named "{old}" in {", ".join(users)}: '
                         "update them (skillsift did not)")
    return lines


def apply_fixes(ws, paths, *, write: bool, show_diff: bool, force: bool = False) -> list[str]:
    """Plan (and with ``write`` apply) the safe fixes of skillsift/checks/fixes.py; returns the lines to print."""
    lines: list[str] = []
    renamed: list[tuple[str, str]] = []
    for rel in paths if paths is not None else ws.skill_paths:
        if not rel.endswith("SKILL.md"):
            continue
        text = ws.read_text(rel)
        if text is None:
            continue
        for fix in _skill_fixes(ws, rel, text):
            text = _apply_fix(ws, rel, text, fix, lines, write=write, show_diff=show_diff, force=force)
            if fix.old_name and fix.new_name:
                renamed.append((fix.old_name.strip(), fix.new_name))
    _case_fixes(ws, paths, lines, write=write, show_diff=show_diff)
    return lines + _renamed_notes(ws, renamed)


def shown_root(root: str) -> str:
    """The root as the JSON report shows it: relative to the current directory, with /, so
    the same command gives the same bytes on every machine (docs/validate.md)."""
    try:
        rel = os.path.relpath(root)
    except ValueError:  # another drive (Windows): no relative form, so no root
        return ""
    return rel.replace(os.sep, "/")


def run_validate(request: ValidateRequest, notify: Callable[[Message], None]) -> ValidateOutcome:
    """Run the checks ``request`` asks for (module docstring); messages go to ``notify``.

    A fix line is a :class:`Message` whose severity is ``"stdout"`` when it belongs on standard output
    (the diff of a preview), else ``""`` (standard error); config notes are notes.
    """

    ws = Workspace(request.root, config_file=request.config_file)
    try:
        ws.config  # noqa: B018 - loads it
    except RootNotFound as exc:
        exc.exit_code = USAGE_EXIT
        raise
    if ws.config is not None:
        for note in ws.config.notes:
            notify(Message(NOTE, note))
    if request.update_baseline:
        if ws.config is None:
            return ValidateOutcome(ws, run_checks(ws), stop=2)
        return ValidateOutcome(ws, stop=0, baseline_line=update_secrets_baseline(ws, request.force))
    configured = ws.settings.ignore if ws.config is not None else ()
    preset = request.preset or (ws.settings.preset if ws.config is not None else "recommended")
    codes, unknown = select_codes(request.select, request.ignore, configured, preset=preset)
    if unknown:
        raise usage(f"unknown check code {', '.join(repr(u) for u in unknown)}",
                     f"codes are {', '.join(CODES)} (or a prefix such as SK)")
    paths = request.paths
    wanted = resolve_paths(ws, paths) if paths else None
    if (request.fix or request.show_diff) and ws.config is not None:
        for line in apply_fixes(ws, wanted, write=request.fix, show_diff=request.show_diff, force=request.force):
            # the report owns stdout after --fix; a preview (--diff alone) prints the diff there
            to_stderr = request.fix or line.startswith(("fixed:", "would fix:", "note:"))
            notify(Message("" if to_stderr else "stdout", line))
        if not request.fix:
            return ValidateOutcome(ws, stop=0)
        ws = Workspace(request.root, config_file=request.config_file)
        wanted = resolve_paths(ws, [p for p in paths if os.path.lexists(p)]) if paths else None
    diagnostics = run_checks(ws, codes=codes, paths=wanted)
    return ValidateOutcome(ws, diagnostics, len(ws.skill_paths) if ws.config is not None else None)
