"""The command list of ``skillsift --help`` comes from a table (skillsift/commands/group.py, ``SUMMARIES``) so
that ``--help`` imports no command module; the table is held here to each command's own help."""

from __future__ import annotations

import importlib

import click
import pytest

from skillsift.commands.group import COMMANDS, SUMMARIES, cli


def _real(name: str) -> click.Command:
    module, attr = COMMANDS[name]
    return getattr(importlib.import_module(module), attr)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_summary_is_the_first_sentence_of_the_commands_help(name):
    assert SUMMARIES[name] == _real(name).get_short_help_str(limit=10**6)


def test_every_command_has_a_summary_and_no_summary_is_left_over():
    assert sorted(SUMMARIES) == sorted(COMMANDS)


class _LoadingGroup(click.Group):
    """click's own command list: every command loaded and asked for its short help."""

    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, cmd_name):
        return _real(cmd_name)


@pytest.mark.parametrize("width", [40, 60, 80, 120, 300])
def test_help_lists_the_commands_as_click_does_at_every_width(width):
    """The command list (click's layout needs only the command names and the terminal's width)."""
    loading = _LoadingGroup(name=cli.name, help=cli.help)
    want = loading.get_help(click.Context(loading, info_name="skillsift", terminal_width=width))
    got = cli.get_help(click.Context(cli, info_name="skillsift", terminal_width=width))
    assert got.partition("\nCommands:\n")[2] == want.partition("\nCommands:\n")[2]
    assert "  validate  Check the skills" in got.partition("\nCommands:\n")[2]


def test_the_summaries_shorten_as_the_help_does():
    """Shortened once more to fit the terminal, a summary gives what click makes of the whole help."""
    for name in COMMANDS:
        for limit in (20, 45, 70):
            assert (click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit)
                    == _real(name).get_short_help_str(limit)), (name, limit)
