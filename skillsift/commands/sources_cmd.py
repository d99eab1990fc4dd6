"""``skillsift sources update|fetch|status``: the [[sources]] of the config against skillsift.lock."""

from __future__ import annotations

import json

import click

from ..config import load_config
from ..render.sanitise import plain
from ..skill_sources.sync import SourcesError, cache_folder, fetch_locked, status, update
from ._common import config_option, root_option


def _config(root, config_file):
    """The resolved config alone: these commands read and write the sources themselves, so the project's
    sources are not attached first (that would walk and digest every source once more)."""

    return load_config(root, config_file=config_file)


def _fail(message: str) -> None:
    click.echo(f"skillsift sources: {plain(message)}", err=True)
    raise SystemExit(1)


@click.group("sources")
def sources_command():
    """Skills from other repositories or folders ([[sources]] in the config, docs/sources.md)."""


@sources_command.command("update")
@click.argument("names", nargs=-1)
@click.option("--offline", is_flag=True, help="Fetch nothing: resolve from the cache only.")
@click.option("--frozen", is_flag=True, help="Refuse any change of skillsift.lock (what CI runs).")
@root_option
@config_option
def update_command(names, offline, frozen, root, config_file):
    """Resolve the sources (all, or NAMES), digest their skills and write skillsift.lock.

    \b
    Exit codes: 0 done; 1 it could not be done (config, lock, git, network, --frozen refusing a change)."""
    config = _config(root, config_file)
    if not config.skill_sources:
        _fail("no [[sources]] in the config; docs/sources.md shows how to add one")
    try:
        lock, changed = update(config, cache_folder(), names=tuple(names), offline=offline, frozen=frozen)
    except SourcesError as exc:
        _fail(str(exc))
    for name in sorted(lock.sources):
        entry = lock.sources[name]
        where = entry.commit[:12] if entry.commit else entry.path
        click.echo(plain(f"{name}: {len(entry.skills)} skill(s) at {where}"))
    click.echo("skillsift.lock " + ("written" if changed else "unchanged"))



@sources_command.command("fetch")
@root_option
@config_option
def fetch_command(root, config_file):
    """Fetch every locked commit into the cache; never changes skillsift.lock.

    \b
    Exit codes: 0 done; 1 it could not be done (config, lock, git, network, --frozen refusing a change)."""
    config = _config(root, config_file)
    try:
        fetched = fetch_locked(config, cache_folder())
    except SourcesError as exc:
        _fail(str(exc))
    click.echo(plain(f"fetched: {', '.join(fetched)}") if fetched else "every locked source is in the cache")


@sources_command.command("status")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@root_option
@config_option
def status_command(fmt, root, config_file):
    """What is stale, missing or changed against skillsift.lock (fetches nothing).

    \b
    Exit codes: 0 every source is locked, fetched and unchanged; 1 the config could not be read;
    2 a source is stale, missing or changed."""
    config = _config(root, config_file)
    rows = status(config, cache_folder())
    if fmt == "json":
        click.echo(json.dumps({"sources": [{"name": r.name, "state": r.state, "commit": r.commit,
                                            "detail": r.detail} for r in rows]}, indent=2, sort_keys=True))
    else:
        if not rows:
            click.echo("no [[sources]] configured")
        for r in rows:
            click.echo(plain(f"{r.name}: {r.state}{' at ' + r.commit[:12] if r.commit else ''} - {r.detail}"))
    raise SystemExit(0 if all(r.state == "ok" for r in rows) else 2)
