"""``skillsift validate``: run every check over the repository (or the checks some paths affect)."""

from __future__ import annotations

import os

import click

from ..render.registry import names
from ._common import config_option, force_option, root_option

FORMATS = names("diagnostics")
USAGE_EXIT = 2
PRESETS = ("recommended", "strict")  # skillsift.config.checks.PRESETS (not imported: --help stays cheap)


class _UsageExit2(click.Command):
    """Usage errors of this command exit 2 (validate reserves 1 for "errors found")."""

    def parse_args(self, ctx, args):
        from ..diagnostics import SkillsiftError

        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            raise SkillsiftError(exc.format_message(), hint="see 'skillsift validate --help'",
                                 exit_code=USAGE_EXIT) from None


def _usage(message: str, hint: str = ""):
    from ..diagnostics import SkillsiftError

    return SkillsiftError(message, hint=hint, exit_code=USAGE_EXIT)


def resolve_paths(ws, paths) -> list[str]:
    """Command-line paths as paths relative to the root (a directory stands for the files under it)."""
    from ..validators.workspace import rel_posix

    out: list[str] = []
    for given in paths:
        absolute = os.path.abspath(given)
        rel = rel_posix(absolute, ws.root)
        if os.path.isabs(rel) or rel.startswith("../"):
            raise _usage(f"{given} is outside the repository root {ws.root}", "pass --root or a path inside it")
        if os.path.isdir(absolute):
            prefix = "" if rel == "." else rel.rstrip("/") + "/"
            inside = [p for p in (*ws.skill_paths, *ws.cases_paths) if p.startswith(prefix)]
            out.extend(inside or [rel])
        elif os.path.lexists(absolute):  # a dangling link is checked too (SK021)
            out.append(rel)
        else:
            raise _usage(f"{given}: no such file", "pass existing files, or no path to check the whole repository")
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
    from ..index.atomic import write_atomic
    from ..validators.secrets import baseline_bytes, baseline_document, current_findings, skill_files
    from ..validators.workspace import rel_posix

    findings = current_findings(ws, skill_files(ws, ws.skill_paths))
    from ..diagnostics import SkillsiftError

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


def apply_fixes(ws, paths, *, write: bool, show_diff: bool, force: bool = False) -> list[str]:
    """Plan (and with ``write`` apply) the safe fixes of skillsift/validators/fixes.py; returns the lines to print."""
    import re

    from ..index.atomic import write_atomic
    from ..validators.fixes import case_fix, chmod_fixes, plan, unified_diff

    lines: list[str] = []
    renamed: list[tuple[str, str]] = []
    for rel in paths if paths is not None else ws.skill_paths:
        if not rel.endswith("SKILL.md"):
            continue
        text = ws.read_text(rel)
        if text is None:
            continue
        skill, problems = ws.parsed(rel)
        front = None if problems or skill is None else skill.frontmatter
        fixes = plan(rel, text, front, exists=lambda r: os.path.lexists(ws.abspath(r)))
        if front is not None:
            fixes += chmod_fixes(rel, text, lambda r: os.path.isfile(ws.abspath(r)),
                                 lambda r: os.access(ws.abspath(r), os.X_OK))
        for fix in fixes:
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
            if fix.old_name and fix.new_name:
                renamed.append((fix.old_name.strip(), fix.new_name))
    from ..validators.paths import wrong_case_files

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


def list_checks() -> str:
    from ..validators import CHECKS

    lines = [f"{'CODE':<6} {'SEVERITY':<8} {'SCOPE':<5} {'PRESET':<11} NAME"]
    for check in CHECKS:
        lines.append(f"{check.code:<6} {check.severity:<8} {check.scope:<5} {check.preset:<11} {check.name}: "
                     f"{check.summary}")
    return "\n".join(lines) + "\n"


def _shown_root(root: str) -> str:
    """The root as the JSON report shows it: relative to the current directory, with /, so
    the same command gives the same bytes on every machine (docs/validate.md)."""
    try:
        rel = os.path.relpath(root)
    except ValueError:  # another drive (Windows): no relative form, so no root
        return ""
    return rel.replace(os.sep, "/")


@click.command("validate", cls=_UsageExit2)
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@root_option
@config_option
@click.option("--select", "select", multiple=True, metavar="CODES",
              help="Run only these checks: codes or prefixes, comma-separated (e.g. AR001,SK).")
@click.option("--ignore", "ignore", multiple=True, metavar="CODES", help="Skip these checks (codes or prefixes).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--strict", is_flag=True, help="Warnings fail too (exit 1).")
@click.option("--preset", type=click.Choice(PRESETS), default=None,
              help="Checks to run: recommended or strict (the opt-in checks too); default: [validate] preset.")
@click.option("--output", default=None, type=click.Path(dir_okay=False, path_type=str),
              help="Write the report to this file instead of stdout.")
@click.option("--update-secrets-baseline", "update_baseline", is_flag=True,
              help="Accept every current secret finding: write them to the secrets baseline and exit.")
@click.option("--list", "list_only", is_flag=True, help="List the checks and exit.")
@click.option("--fix", "fix", is_flag=True,
              help="Apply the safe mechanical fixes (docs/validate.md), then report what is left.")
@click.option("--diff", "show_diff", is_flag=True, help="Show the fixes as a diff; without --fix nothing is written.")
@click.option("--quiet", "-q", "quiet", is_flag=True,
              help="Text: only the findings that fail (errors; warnings too with --strict) and the summary line.")
@force_option
def validate_command(paths, root, config_file, select, ignore, fmt, strict, preset, output, update_baseline,
                     list_only, fix, show_diff, quiet, force):
    """Check the skills, the config, the cases, the committed index and the gates.

    With PATHs, only findings on those files are reported, plus the repository-level
    rules those files affect (duplicate names, cases, the index, the gates).

    \b
    Exit codes: 0 no error (warnings allowed unless --strict); 1 errors found
    (or warnings with --strict); 2 usage error or unusable config (AR9D0).
    """
    from ..render.diagnostics import summary_line
    from ..render.registry import render
    from ..render.sanitise import plain, plain_lines
    from ..validators.runner import run_checks, select_codes
    from ..validators.workspace import Workspace

    if list_only:
        click.echo(list_checks(), nl=False)
        return 0
    from ..config import RootNotFound

    ws = Workspace(root, config_file=config_file)
    try:
        ws.config  # noqa: B018 - loads it
    except RootNotFound as exc:
        exc.exit_code = USAGE_EXIT
        raise
    if ws.config is not None and not quiet:
        for note in ws.config.notes:
            click.echo(f"note: {plain(note)}", err=True)
    if update_baseline:
        if ws.config is None:
            diagnostics = run_checks(ws)
            click.echo(render("diagnostics", "text", diagnostics), nl=False, err=True)
            return 2
        click.echo(plain(update_secrets_baseline(ws, force)))
        return 0
    codes, unknown = select_codes(select, ignore, ws.settings.ignore if ws.config is not None else (),
                                  preset=preset or (ws.settings.preset if ws.config is not None else "recommended"))
    if unknown:
        from ..validators import CODES

        raise _usage(f"unknown check code {', '.join(repr(u) for u in unknown)}",
                     f"codes are {', '.join(CODES)} (or a prefix such as SK)")
    wanted = resolve_paths(ws, paths) if paths else None
    if (fix or show_diff) and ws.config is not None:
        for line in apply_fixes(ws, wanted, write=fix, show_diff=show_diff, force=force):
            # the report owns stdout after --fix; a preview (--diff alone) prints the diff there
            click.echo(plain_lines(line), err=fix or line.startswith(("fixed:", "would fix:", "note:")))
        if not fix:
            return 0
        ws = Workspace(root, config_file=config_file)
        wanted = resolve_paths(ws, [p for p in paths if os.path.lexists(p)]) if paths else None
    diagnostics = run_checks(ws, codes=codes, paths=wanted)
    checked = len(ws.skill_paths) if ws.config is not None else None
    if quiet and fmt == "text":
        failing = [d for d in diagnostics if d.severity == "error" or (strict and d.severity == "warning")]
        report = (render("diagnostics", fmt, failing, root=_shown_root(ws.root)).rsplit("\n", 2)[0] + "\n"
                  if failing else "")
        report = report.lstrip("\n") + summary_line(diagnostics, checked) + "\n"
    else:
        report = render("diagnostics", fmt, diagnostics, root=_shown_root(ws.root), checked=checked)
    if output:
        from ..index.atomic import AtomicWriteError, write_output

        try:
            write_output(output, report.encode("utf-8"), force=force)
        except AtomicWriteError as exc:
            raise _usage(f"--output: {exc.message}", exc.hint) from None
        click.echo(summary_line(diagnostics, checked), err=True)
    else:
        click.echo(report, nl=False)
    return exit_code(diagnostics, strict=strict)
