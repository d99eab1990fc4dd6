"""Options and loading shared by the commands (config, catalog, warnings on stderr)."""

from __future__ import annotations

import click

root_option = click.option(
    "--root", default=".", show_default=True, type=click.Path(path_type=str),
    help="Repository root holding the skills and the config.",
)
config_option = click.option(
    "--config", "config_file", default=None, type=click.Path(dir_okay=False, path_type=str),
    help="Config file to use instead of skillsift.toml / pyproject.toml.",
)


agent_option = click.option(
    "--agent", default=None, metavar="NAME",
    help="Use only the skills this agent lists (claude-code, codex, copilot, cursor, gemini-cli, opencode).",
)


def load_project(root: str, config_file: str | None = None, mode: str | None = None, *, allow_exec: bool = False,
                 agent: str | None = None, quiet: bool = False):
    """Resolve the config and load the catalog; notes and catalog findings go to stderr.

    Config errors raise SkillsiftError (exit 1).  Catalog problems (a file that does not
    parse, two skills with one name) are reported as warnings: the command goes on with
    what loaded, and ``skillsift validate`` is where they fail.
    """
    from ..catalog.load import load_catalog
    from ..config import load_config

    config = load_config(root, config_file=config_file, mode=mode, allow_exec=allow_exec)
    for note in () if quiet else config.notes:
        click.echo(f"note: {note}", err=True)
    catalog = load_catalog(root, config, agent=agent)
    for diag in catalog.diagnostics:
        if not (quiet and diag.severity == "note"):  # --quiet keeps the warnings
            click.echo(f"{'note' if diag.severity == 'note' else 'warning'}: {diag.render()}", err=True)
    return config, catalog


def dump_json(doc) -> str:
    import json

    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
