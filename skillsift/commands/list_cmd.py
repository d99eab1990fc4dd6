"""``skillsift list --agent NAME``: what one agent lists of the repository's skills."""

from __future__ import annotations

import click

from ..catalog.agents import BY_NAME
from ..render.registry import names, render
from ._common import config_option, open_project, root_option


@click.command("list")
@click.option("--agent", required=True, metavar="NAME",
              help="Agent profile: claude-code, codex, copilot, cursor, gemini-cli or opencode.")
@click.option("--context-window", "context_window", type=click.IntRange(1000, 10_000_000), default=None,
              metavar="TOKENS", help="Context window in tokens (default: the agent's, where known).")
@click.option("--format", "fmt", type=click.Choice(names("list")), default="text", show_default=True)
@root_option
@config_option
def list_command(agent, context_window, fmt, root, config_file):
    """Show each skill as AGENT lists it: full, truncated, name-only, hidden or not-loaded.

    Entries come in name order; where the agent drops descriptions by usage (Claude Code),
    skillsift stands in reverse name order: the last names lose theirs first.

    \b
    Exit codes: 0 listed; 1 unknown agent, missing root or bad config.
    """

    project = open_project(root, config_file, view="listing", agent=agent, context_window=context_window)
    view = project.view
    click.echo(render("list", fmt, view.listing, label=BY_NAME[view.agent].label), nl=False)
    return 0
