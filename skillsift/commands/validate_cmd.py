"""``skillsift validate``: run every check over the repository (or the checks some paths affect)."""

from __future__ import annotations

import click

from ..diagnostics import SkillsiftError
from ..index.atomic import AtomicWriteError, write_output
from ..render.diagnostics import summary_line
from ..render.registry import names, render
from ..render.sanitise import plain, plain_lines
from ..usecases.validate import ValidateRequest, exit_code, run_validate, shown_root, usage
from ..validators import CHECKS
from ._common import config_option, force_option, root_option

FORMATS = names("diagnostics")
USAGE_EXIT = 2
PRESETS = ("recommended", "strict")  # skillsift.config.checks.PRESETS (not imported: --help stays cheap)


class _UsageExit2(click.Command):
    """Usage errors of this command exit 2 (validate reserves 1 for "errors found")."""

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            raise SkillsiftError(exc.format_message(), hint="see 'skillsift validate --help'",
                                 exit_code=USAGE_EXIT) from None


def _report(diagnostics, checked, fmt: str, root: str, *, quiet: bool, strict: bool) -> str:
    """The report in ``fmt``; ``--quiet`` text keeps the failing findings and the summary line."""
    if not (quiet and fmt == "text"):
        return render("diagnostics", fmt, diagnostics, root=root, checked=checked)
    failing = [d for d in diagnostics if d.severity == "error" or (strict and d.severity == "warning")]
    report = render("diagnostics", fmt, failing, root=root).rsplit("\n", 2)[0] + "\n" if failing else ""
    return report.lstrip("\n") + summary_line(diagnostics, checked) + "\n"


def list_checks() -> str:
    lines = [f"{'CODE':<6} {'SEVERITY':<8} {'SCOPE':<5} {'PRESET':<11} NAME"]
    for check in CHECKS:
        lines.append(f"{check.code:<6} {check.severity:<8} {check.scope:<5} {check.preset:<11} {check.name}: "
                     f"{check.summary}")
    return "\n".join(lines) + "\n"


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
    checks those files affect (duplicate names, cases, the index, the gates).

    \b
    Exit codes: 0 no error (warnings allowed unless --strict); 1 errors found
    (or warnings with --strict); 2 usage error or unusable config (AR9D0).
    """
    if list_only:
        click.echo(list_checks(), nl=False)
        return 0

    def notify(message) -> None:
        if message.severity == "note":
            if not quiet:
                click.echo(f"note: {plain(message.text)}", err=True)
        else:
            click.echo(plain_lines(message.text), err=message.severity != "stdout")

    outcome = run_validate(ValidateRequest(root, config_file, tuple(paths), tuple(select), tuple(ignore), preset, fix,
                                           show_diff, force, update_baseline), notify)
    if outcome.stop is not None:
        if outcome.baseline_line:
            click.echo(plain(outcome.baseline_line))
        elif outcome.diagnostics:
            click.echo(render("diagnostics", "text", outcome.diagnostics), nl=False, err=True)
        return outcome.stop
    diagnostics, checked = outcome.diagnostics, outcome.checked
    report = _report(diagnostics, checked, fmt, shown_root(outcome.workspace.root), quiet=quiet, strict=strict)
    if output:
        try:
            write_output(output, report.encode("utf-8"), force=force)
        except AtomicWriteError as exc:
            raise usage(f"--output: {exc.message}", exc.hint) from None
        click.echo(summary_line(diagnostics, checked), err=True)
    else:
        click.echo(report, nl=False)
    return exit_code(diagnostics, strict=strict)
