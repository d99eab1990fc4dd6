"""``skillsift validate``: run every check over the repository (or the checks some paths affect)."""

from __future__ import annotations

import click

from ..diagnostics import SkillsiftError
from ..render.registry import names
from ._common import config_option, force_option, root_option
from .validate_run import PRESETS, run

FORMATS = names("diagnostics")
USAGE_EXIT = 2


class _UsageExit2(click.Command):
    """Usage errors of this command exit 2 (validate reserves 1 for "errors found")."""

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            raise SkillsiftError(exc.format_message(), hint="see 'skillsift validate --help'",
                                 exit_code=USAGE_EXIT) from None


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
    return run(paths, root, config_file, select, ignore, fmt, strict, preset, output, update_baseline, list_only, fix,
               show_diff, quiet, force, echo=click.echo)
