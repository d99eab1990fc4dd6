"""Options shared by the commands, and the one printer of their messages on stderr."""

from __future__ import annotations

import click

from ..render.sanitise import plain
from ..render.stderr_lines import message_line

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


view_option = click.option(
    "--view", "view_name", type=click.Choice(["full", "listing"]), default="full", show_default=True,
    help="What is ranked: every field (full) or exactly the text the agent lists (listing; see --agent).",
)
context_window_option = click.option(
    "--context-window", "context_window", type=click.IntRange(1000, 10_000_000), default=None, metavar="TOKENS",
    help="Listing view: the agent's context window in tokens (default: the agent's).",
)


def say(text: object, prefix: str = "") -> None:
    """One line on stderr: skillsift's own ``prefix``, then ``text`` made safe for a terminal and a
    step's log (render/sanitise.py, ``plain``).

    The one printer of the doors' messages: a repository can name a skill folder with an
    escape sequence, and nothing it holds reaches the terminal raw.
    """
    click.echo(prefix + plain(text), err=True)


def print_message(message) -> None:
    """Print a :class:`~skillsift.usecases.project.Message` on stderr: ``note: TEXT``, ``warning: TEXT``
    or ``TEXT`` (after the message's ``lead``), TEXT sanitised."""
    click.echo(message_line(message), err=True)


def print_messages(messages, *, quiet: bool = False) -> None:
    """:func:`print_message` of each message; ``quiet`` leaves out the notes."""
    for message in messages:
        if not (quiet and message.severity == "note"):
            print_message(message)


def open_project(root: str, config_file: str | None = None, *, quiet: bool = False, **options):
    """:func:`skillsift.usecases.project.open_project`, its messages printed (``quiet``: warnings only).

    Config errors raise SkillsiftError (exit 1).  Catalog problems (a file that does not
    parse, two skills with one name) are printed as warnings: the command goes on with
    what loaded, and ``skillsift validate`` is where they fail.
    """
    from ..usecases.project import open_project as open_

    project = open_(root, config_file, **options)
    print_messages(project.messages, quiet=quiet)
    return project
