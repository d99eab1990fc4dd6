"""``skillsift hook NAME [FILES...]``: the single console entry the pre-commit hooks run."""

from __future__ import annotations

import click

from ..hooks.specs import HOOK_NAMES

HOOK_MODULES = {name: f"skillsift.hooks.{name}" for name in HOOK_NAMES}


@click.command(
    "hook",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False, "help_option_names": []},
    add_help_option=False,
)
@click.argument("name", required=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def hook_command(name, args):
    """Run one pre-commit hook: validate, secrets, frontmatter, cases, index or eval.

    Arguments after NAME go to the hook ([--root R] [--config F] [--format F] [FILES...];
    `skillsift hook NAME --help` lists them).  See docs/hooks.md.

    \b
    Exit codes: 0 clean; 1 findings (or, for index, the index was rebuilt and must be
    staged); 2 unusable config or usage error.
    """
    import importlib

    if name in (None, "--help", "-h"):
        click.echo(click.get_current_context().get_help())
        return 0 if name else 2
    module = HOOK_MODULES.get(name)
    if module is None:
        click.echo(f"error: unknown hook {name!r}; hooks are {', '.join(HOOK_MODULES)}", err=True)
        return 2
    try:
        return importlib.import_module(module).main(list(args))
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else 2
