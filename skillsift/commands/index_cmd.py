"""``skillsift index`` (build the vector index) and ``skillsift status`` (how it stands)."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

import click

from ._common import config_option, dump_json, load_project, root_option

SUMMARY_SCHEMA_VERSION = 1
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


def _cost_text(cost: float | None) -> str:
    return "unknown" if cost is None else f"${cost:.6f}"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _kib(size: int) -> str:
    return f"{size / 1024:.1f} KiB"


def _line(label: str, value: str) -> str:
    return f"{label:<10} {value}"


def _dry_run_text(plan, provider, allow_network: bool) -> str:
    if getattr(provider, "networked", False):
        where = f"(allow_network={'true' if allow_network else 'false'})"
    elif getattr(provider, "external", False):
        where = "(no network)"
    else:
        where = "(in process, no network)"
    cost = plan.cost_usd
    cost_text = (f"<= ${cost:.6f}" if cost is not None
                 else "unknown (no price for this model; set price_input_per_mtok in the user config)")
    body = f"first {plan.body_chars} characters" if plan.index_body else "no"
    n, size = len(plan.to_embed), _kib(plan.bytes)
    if getattr(provider, "networked", False):
        egress = f"{n} texts, {size} -> {getattr(provider, 'host', '') or provider.fingerprint}"
    elif getattr(provider, "external", False):
        egress = f"{n} texts, {size} -> {provider.fingerprint} (a program on this machine)"
    else:
        egress = f"none: the {n} texts ({size}) are embedded in this process"
    lines = [
        _line("provider", f"{provider.fingerprint}   {where}"),
        _line("model", provider.model or "(none configured)"),
        _line("items", f"{plan.total}   cached {len(plan.reused)}   to embed {n}   withheld {len(plan.withheld)}   "
                       f"est. tokens {plan.tokens}   est. cost {cost_text}"),
        _line("fields", f"{', '.join(plan.fields)}   body: {body}"),
        _line("egress", egress),
    ]
    if plan.rebuild_reason:
        lines.append(_line("rebuild", f"the existing index cannot be reused: {plan.rebuild_reason}"))
    return "\n".join(lines) + "\n"


def _summary(plan, provider, *, dry_run: bool, result=None, written: bool = False) -> dict:
    doc: dict = {
        "schema_version": SUMMARY_SCHEMA_VERSION,
        "dry_run": dry_run,
        "provider": provider.fingerprint,
        "host": (getattr(provider, "host", "") or "") if getattr(provider, "networked", False) else "",
        "model": provider.model,
        "total": plan.total,
        "reused": len(plan.reused),
        "embedded": len(result.embedded) if result is not None else 0,
        "to_embed": len(plan.to_embed),
        "withheld": [{"id": item.id, "kind": item.secret} for item in plan.withheld],
        "missing": (result.missing if result is not None
                    else sorted(item.id for item in plan.items if item.action in ("withheld", "empty"))),
        "bytes": plan.bytes,
        "tokens": result.tokens if result is not None else plan.tokens,
        "cost_usd": result.cost_usd if result is not None else plan.cost_usd,
        "calls": result.calls if result is not None else 0,
    }
    if plan.rebuild_reason:
        doc["rebuild_reason"] = plan.rebuild_reason
    if result is not None and result.stopped:
        doc["stopped"] = result.stopped
    doc["rejected"] = [{"id": i, "reason": r} for i, r in (result.rejected if result is not None else [])]
    doc["written"] = written
    return doc


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
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--allow-exec", is_flag=True, help="Let the repository config's embedding command run.")
@root_option
@config_option
def index_command(dry_run, rebuild, items, fmt, allow_exec, root, config_file):
    """Embed the served skills into the vector index ([search] index_dir, default .skillsift/index).

    Skills whose embedded text is unchanged keep their stored vectors; a skill whose text
    holds a secret is never sent to a provider outside this process (AR9D3).

    \b
    Exit codes: 0 the index is complete (or current); 1 nothing could be built
    (config, provider, network disabled, lock held, provider error); 2 written, but
    some skills were refused by the provider or the build stopped early.
    """
    from ..index import service

    config, catalog = load_project(root, config_file, allow_exec=allow_exec)
    force = service.parse_items(items, catalog)
    prepared = service.prepare(config, catalog, rebuild=rebuild, force=force, dry_run=dry_run)
    plan, provider = prepared.plan, prepared.provider
    _warn_withheld(plan)
    if dry_run:
        if fmt == "json":
            click.echo(dump_json(_summary(plan, provider, dry_run=True)), nl=False)
        else:
            click.echo(_dry_run_text(plan, provider, prepared.allow_network), nl=False)
        return 0
    outcome = service.build(prepared, progress=_progress)
    return _report(outcome.plan, provider, outcome.result, outcome.written, outcome.index_dir, fmt)


def _warn_withheld(plan) -> None:
    for item in plan.withheld:
        click.echo(f'AR9D3: skill "{item.id}" was not embedded: its text looks like it holds a secret '
                   f"({item.secret}); it ranks lexically only", err=True)


@contextmanager
def _progress(batches: int, total: int):
    bar = _progress_bar(batches, total)
    if bar is None:
        yield None
        return
    with bar:
        yield bar.update


def _report(plan, provider, result, written: bool, index_dir, fmt) -> int:
    for skill_id, reason in result.rejected:
        click.echo(f'skillsift index: the provider rejected skill "{skill_id}" even alone ({reason}); '
                   "it ranks lexically only", err=True)
    if fmt == "json":
        click.echo(dump_json(_summary(plan, provider, dry_run=False, result=result, written=written)), nl=False)
    elif result.index is not None:
        click.echo(f"embedded {len(result.embedded)}, reused {result.reused}, withheld {len(plan.withheld)} of "
                   f"{plan.total} skills   ({_count(result.calls, 'call')}, {result.tokens} tokens, "
                   f"cost {_cost_text(result.cost_usd)})")
        click.echo(f"wrote {_display_path(index_dir)}" if written else "index is current, nothing written")
    if result.index is None:
        click.echo(f"error: nothing was embedded: {result.stopped}", err=True)
        hint = getattr(result.stop_error, "hint", "")
        if hint:
            click.echo(f"hint: {hint}", err=True)
        return 1
    code = 0
    if result.rejected:
        names = ", ".join(sorted(i for i, _ in result.rejected))
        click.echo(f"skillsift index skipped {len(result.rejected)} skills the provider rejected: {names}", err=True)
        code = 2
    if result.stopped:
        click.echo(f"skillsift index stopped early: {result.stopped}", err=True)
        hint = getattr(result.stop_error, "hint", "")
        if hint:
            click.echo(f"hint: {hint}", err=True)
        missing = result.missing
        click.echo(f"  {len(missing)} skills have no vector and rank lexically: {', '.join(missing)}", err=True)
        code = 2
    return code


# --------------------------------------------------------------------------- status


@click.command("status")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@root_option
@config_option
def status_command(fmt, root, config_file):
    """Show how the vector index stands against the served skills (reads files only).

    \b
    States: none, unreadable, incompatible, stale, fresh.
    Exit codes: 0 reported (whatever the state); 1 the config or a file could not be read.
    """
    from ..config import committed_index, index_path
    from ..index.service import ConfiguredProvider
    from ..index.status import render_status, status_report
    from ..index.store import load_index

    config, catalog = load_project(root, config_file)
    identity = ConfiguredProvider.from_config(config, repository_command=True)
    s = config.search
    report = status_report(
        load_index(index_path(config)), catalog, provider=identity.fingerprint, model=identity.model,
        mode=s.mode, index_dir=s.index_dir, committed=committed_index(config), fields=s.fields,
        index_body=s.index_body, body_chars=s.body_chars,
    )
    if fmt == "json":
        click.echo(dump_json(report), nl=False)
    else:
        click.echo(render_status(report), nl=False)
    return 0
