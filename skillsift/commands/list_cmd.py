"""``skillsift list --agent NAME``: what one agent lists of the repository's skills."""

from __future__ import annotations

import click

from ..render.registry import names
from ._common import config_option, root_option


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
    import os

    from ..catalog.agents import BY_NAME, NAMES
    from ..catalog.listing import build_listing
    from ..catalog.load import read_all_skills
    from ..config import load_config
    from ..diagnostics import SkillsiftError
    from ..render.registry import render
    from ..render.sanitise import plain

    profile = BY_NAME.get(agent)
    if profile is None:
        raise SkillsiftError(f'unknown agent "{agent}"', hint=f"agents are {', '.join(NAMES)}")
    if not os.path.isdir(root):
        raise SkillsiftError(f"--root {root} is not a directory", hint="pass the repository holding the skills")
    config = load_config(root, config_file=config_file)
    skills, problems = read_all_skills(root, config)
    for diag in problems:
        click.echo(f"warning: {plain(diag.render())}", err=True)
    listing = build_listing(skills, profile, context_window)
    click.echo(render("list", fmt, listing, label=profile.label), nl=False)
    return 0

