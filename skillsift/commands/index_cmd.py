"""``skillsift index`` (build the vector index) and ``skillsift status`` (how it stands)."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

import click

from ..render.registry import names, render
from ..usecases.run_index import IndexRequest, StatusRequest, run_index, run_status
from ._common import config_option, force_option, print_message, print_messages, root_option

PROGRESS_MIN_BATCHES = 4  # a progress bar is drawn only for more than three batches


# --------------------------------------------------------------------------- index


@click.command("index")
@click.option("--dry-run", is_flag=True, help="Show what would be embedded, sent and spent; call nothing.")
@click.option("--rebuild", is_flag=True, help="Re-embed every skill, reusing no stored vector.")
@click.option("--items", default=None, metavar="A,B", help="Re-embed these skills even if unchanged.")
@click.option("--format", "fmt", type=click.Choice(names("index")), default="text", show_default=True)
@click.option("--allow-exec", is_flag=True, help="Let the repository config's embedding command run.")
@root_option
@config_option
@force_option
def index_command(dry_run, rebuild, items, fmt, allow_exec, root, config_file, force):
    """Embed the served skills into the vector index ([search] index_dir, default .skillsift/index).

    Skills whose embedded text is unchanged keep their stored vectors; a skill whose text
    holds a secret is never sent to a provider outside this process (AR9D3).

    \b
    Exit codes: 0 the index is complete (or current); 1 nothing could be built
    (config, provider, network disabled, lock held, provider error); 2 written, but
    some skills were refused by the provider or the build stopped early.
    """
    outcome = run_index(IndexRequest(dry_run=dry_run, rebuild=rebuild, items=items, allow_exec=allow_exec, root=root,
                                     config_file=config_file, force=force), notify=print_message, progress=_progress)
    if outcome.dry_run:
        click.echo(render("index", fmt, outcome.plan, outcome.provider, allow_network=outcome.allow_network), nl=False)
        return 0
    click.echo(render("index", fmt, outcome.plan, outcome.provider, result=outcome.result, written=outcome.written,
                      shown_dir=_display_path(outcome.index_dir)), nl=False)
    print_messages(outcome.closing)
    return outcome.exit_code


def _display_path(path) -> str:
    path = os.fspath(path)
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _progress_bar(batches: int, total: int):
    """A click progress bar on stderr when it is a terminal and the build is long, else None."""
    stream = sys.stderr
    if batches < PROGRESS_MIN_BATCHES or not (hasattr(stream, "isatty") and stream.isatty()):
        return None
    return click.progressbar(length=total, label="embedding", file=stream)


@contextmanager
def _progress(batches: int, total: int):
    bar = _progress_bar(batches, total)
    if bar is None:
        yield None
        return
    with bar:
        yield bar.update


# --------------------------------------------------------------------------- status


@click.command("status")
@click.option("--format", "fmt", type=click.Choice(names("status")), default="text", show_default=True)
@click.option("--verify/--no-verify", default=True, show_default=True,
              help="Embed the current rows again with the local model (when installed) and compare.")
@root_option
@config_option
def status_command(fmt, verify, root, config_file):
    """Show how the vector index stands against the served skills.

    It reads files only, except that an index built with the local model is verified
    when that model is installed: each current row is embedded again and compared
    (rows verified before on this machine are not; --no-verify skips it).

    \b
    States: none, unreadable, incompatible, stale, fresh.
    Exit codes: 0 reported (whatever the state); 1 the config or a file could not be read.
    """
    report = run_status(StatusRequest(root=root, config_file=config_file, verify=verify), notify=print_message)
    click.echo(render("status", fmt, report), nl=False)
    return 0
