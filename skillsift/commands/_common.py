"""Options and loading shared by the commands (config, catalog, warnings on stderr)."""

from __future__ import annotations

import click

from ..render.sanitise import plain

root_option = click.option(
    "--root", default=".", show_default=True, type=click.Path(path_type=str),
    help="Repository root holding the skills and the config.",
)
config_option = click.option(
    "--config", "config_file", default=None, type=click.Path(dir_okay=False, path_type=str),
    help="Config file to use instead of skillsift.toml / pyproject.toml.",
)


force_option = click.option(
    "--force", is_flag=True,
    help="Rewrite a file that is read-only too (its mode is kept; without it a read-only file is refused).",
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
        click.echo(f"note: {plain(note)}", err=True)
    catalog = load_catalog(root, config, agent=agent)
    for diag in catalog.diagnostics:
        if not (quiet and diag.severity == "note"):  # --quiet keeps the warnings
            click.echo(f"{'note' if diag.severity == 'note' else 'warning'}: {plain(diag.render())}", err=True)
    return config, catalog


view_option = click.option(
    "--view", "view_name", type=click.Choice(["full", "listing"]), default="full", show_default=True,
    help="What is ranked: every field (full) or exactly the text the agent lists (listing; see --agent).",
)
context_window_option = click.option(
    "--context-window", "context_window", type=click.IntRange(1000, 10_000_000), default=None, metavar="TOKENS",
    help="Listing view: the agent's context window in tokens (default: the agent's).",
)


def load_view_project(root: str, config_file: str | None = None, mode: str | None = None, *,
                      allow_exec: bool = False, agent: str | None = None, view: str = "full",
                      context_window: int | None = None, full_agent: bool = True, quiet: bool = False):
    """``(config, View)``: :func:`load_project` for a view (skillsift/catalog/listing.py, :class:`View`).

    Full view: ``agent`` keeps only that agent's listed skills (``full_agent``; else every skill).
    Listing view: ``agent`` is whose listing is ranked.  Notes and findings go to stderr.
    """
    from ..catalog.views import load_view
    from ..config import load_config

    config = load_config(root, config_file=config_file, mode=mode, allow_exec=allow_exec)
    for note in () if quiet else config.notes:
        click.echo(f"note: {note}", err=True)
    chosen = load_view(root, config, view, agent=agent if (view != "full" or full_agent) else None,
                       context_window=context_window)
    for diag in chosen.full.diagnostics:
        if not (quiet and diag.severity == "note"):  # --quiet keeps the warnings
            click.echo(f"{'note' if diag.severity == 'note' else 'warning'}: {diag.render()}", err=True)
    return config, chosen


def dump_json(doc) -> str:
    """JSON with no raw control character (render/sanitise.py)."""
    from ..render.sanitise import json_text

    return json_text(doc)
