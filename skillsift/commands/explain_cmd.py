"""``skillsift explain CODE``: what one check looks for, its severity and how to silence it."""

from __future__ import annotations

import click

from ..diagnostics import SkillsiftError
from ..validators import BY_CODE, CODES
from ..validators.explain import explain


@click.command("explain")
@click.argument("code")
def explain_command(code):
    """Print the documentation of the check CODE (e.g. SK304), from the registry of checks.

    \b
    Exit codes: 0 printed; 2 unknown code.
    """
    check = BY_CODE.get(code.strip().upper())
    if check is None:
        near = [c for c in CODES if c.startswith(code.strip().upper()[:3])][:8]
        raise SkillsiftError(f'unknown check "{code}"',
                             hint="codes are listed by 'skillsift validate --list'" + (
                                 f"; close ones: {', '.join(near)}" if near else ""), exit_code=2)
    click.echo(explain(check), nl=False)
