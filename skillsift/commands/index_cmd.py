"""``skillsift index`` (build the vector index) and ``skillsift status`` (how it stands)."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

import click

from ..config import committed_index, index_path
from ..render.index import build_notes, withheld_lines
from ..render.registry import names, render
from ._common import config_option, force_option, open_project, root_option, say

PROGRESS_MIN_BATCHES = 4  # a progress bar is drawn only for more than three batches


# --------------------------------------------------------------------------- shared


def _display_path(path) -> str:
    path = os.fspath(path)
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


# --------------------------------------------------------------------------- index


def _progress_bar(batches: int, total: int):
    """A click progress bar on stderr when it is a terminal and the build is long, else None."""
    stream = sys.stderr
    if batches < PROGRESS_MIN_BATCHES or not (hasattr(stream, "isatty") and stream.isatty()):
        return None
    return click.progressbar(length=total, label="embedding", file=stream)


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
    from ..usecases import index_build as service

    project = open_project(root, config_file, allow_exec=allow_exec)
    config, catalog = project.config, project.catalog
    again = service.parse_items(items, catalog)
    prepared = service.prepare(config, catalog, rebuild=rebuild, force=again, dry_run=dry_run)
    plan, provider = prepared.plan, prepared.provider
    _warn_withheld(plan)
    if dry_run:
        click.echo(render("index", fmt, plan, provider, allow_network=prepared.allow_network), nl=False)
        return 0
    outcome = service.build(prepared, progress=_progress, force_write=force)
    click.echo(render("index", fmt, outcome.plan, outcome.provider, result=outcome.result, written=outcome.written,
                      shown_dir=_display_path(outcome.index_dir)), nl=False)
    for line in build_notes(outcome.result):
        say(line)
    return outcome.exit_code


def _shown(name: str) -> str:
    """A skill name as printed: a secret in it is masked (docs/secrets.md)."""
    from ..secrets.scan import redact

    return redact(name)


def _warn_withheld(plan) -> None:
    for line in withheld_lines(plan):
        say(line)


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
    from ..evaluate.examples import indexed_example_pairs
    from ..index.configured import ConfiguredProvider
    from ..index.status import status_report
    from ..index.store import load_index

    project = open_project(root, config_file)
    config, catalog = project.config, project.catalog
    identity = ConfiguredProvider.from_config(config, repository_command=True)
    s = config.search
    loaded = load_index(index_path(config))
    examples = indexed_example_pairs(config, catalog, identity)
    verification = None
    if verify and loaded.index is not None:
        from ..index.verify import local_verifier, verifiable, verify_rows

        if verifiable(loaded.index):
            index = loaded.index
            verification = verify_rows(index, catalog.skills, lambda: local_verifier(index), fields=s.fields,
                                       index_body=s.index_body, body_chars=s.body_chars, root=str(config.root),
                                       requests=examples)
    report = status_report(
        loaded, catalog, provider=identity.fingerprint, model=identity.model,
        mode=s.mode, index_dir=s.index_dir, committed=committed_index(config), fields=s.fields,
        index_body=s.index_body, body_chars=s.body_chars, verification=verification,
        examples=examples, dims=identity.dims,
    )
    click.echo(render("status", fmt, report), nl=False)
    return 0
