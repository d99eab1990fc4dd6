"""``skillsift index`` (build the vector index) and ``skillsift status`` (how it stands)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

import click

from ._common import config_option, dump_json, load_project, root_option

SUMMARY_SCHEMA_VERSION = 1
PROGRESS_MIN_BATCHES = 4  # a progress bar is drawn only for more than three batches


# --------------------------------------------------------------------------- shared


@dataclass(frozen=True)
class ConfiguredProvider:
    """The provider the config names, described without building or calling it.

    Used by ``status`` (which never runs a provider) and by ``index --dry-run`` when
    the provider cannot be built (the plan needs only its identity).
    """

    fingerprint: str
    model: str
    networked: bool = False
    external: bool = False
    host: str = ""
    max_batch: int | None = None
    dims: int | None = None

    def embed(self, texts):  # pragma: no cover - a plan-only stand-in is never called
        from ..embed.base import ProviderUnavailable

        raise ProviderUnavailable("this provider is described only; it cannot embed")

    @classmethod
    def from_config(cls, config, *, repository_command: bool = False) -> ConfiguredProvider:
        """The identity ``config.embeddings`` describes.

        ``repository_command``: when no command is in effect, take the one the project
        config names (ignored for running without ``--allow-exec``, still its identity).
        """
        emb = config.embeddings
        name = (emb.provider or "local").strip().lower()
        if name == "openai":
            from ..embed.openai import endpoint_host

            host = endpoint_host(emb.base_url)
            return cls(f"openai@{host}", emb.model, networked=True, external=True, host=host)
        if name == "command":
            argv = tuple(emb.command)
            if not argv and repository_command:
                raw = (config.raw.get("project") or {}).get("embeddings") or {}
                command = raw.get("command") if isinstance(raw, dict) else None
                argv = tuple(command) if isinstance(command, list) else ()
            return cls(f"command:{argv[0] if argv else ''}", emb.model, external=True)
        if name == "local":
            from ..embed.local import MODEL_NAME

            return cls(f"local@{MODEL_NAME}", MODEL_NAME)
        return cls(f"{name}@default", emb.model)


def _display_path(path) -> str:
    path = os.fspath(path)
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


# --------------------------------------------------------------------------- index


def _parse_items(value: str | None, catalog) -> tuple[str, ...]:
    from ..diagnostics import SkillsiftError

    if value is None:
        return ()
    names = tuple(dict.fromkeys(name.strip() for name in value.split(",") if name.strip()))
    if not names:
        raise SkillsiftError("--items needs at least one skill name", hint="--items deploy-staging,issue-refund")
    for name in names:
        if catalog.get(name) is None:
            raise SkillsiftError(f'--items "{name}": no such served skill',
                                 hint="list the served skills with 'skillsift status' or 'skillsift search'")
    return names


def _price(provider, config) -> float | None:
    """Input price per million tokens: 0 for providers that do not bill, else the known price."""
    if not getattr(provider, "networked", False):
        return 0.0
    budget = getattr(provider, "budget", None)
    if budget is not None:
        return budget.price_per_mtok
    from ..embed.gate import price_per_mtok

    return price_per_mtok(provider.model, config.embeddings.price_input_per_mtok)


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
        "withheld": [{"id": _shown(item.id), "kind": item.secret} for item in plan.withheld],
        "missing": ([_shown(i) for i in result.missing] if result is not None
                    else sorted(_shown(item.id) for item in plan.items if item.action in ("withheld", "empty"))),
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


def _make_plan(config, catalog, provider, *, rebuild: bool, force, index_dir):
    from ..diagnostics import SkillsiftError
    from ..index.build import plan_build, sends_text_out
    from ..index.store import LoadResult, load_index
    from ..secrets import detect_secret

    try:
        loaded = load_index(index_dir)
    except (OSError, SkillsiftError) as exc:  # an old index that cannot be read is no old index
        loaded = LoadResult(None, getattr(exc, "message", None) or str(exc), found=True)
    scan = None
    if sends_text_out(provider):
        patterns = tuple(config.secret_patterns)

        def scan(text):
            return detect_secret(text, patterns)

    s = config.search
    return plan_build(
        catalog, loaded.index, provider=provider, fields=s.fields, index_body=s.index_body, body_chars=s.body_chars,
        rebuild=rebuild, force=force, scan=scan, price_per_mtok=_price(provider, config),
        old_problem=loaded.reason if loaded.found and loaded.index is None else "",
    )


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
    from ..config import index_path
    from ..diagnostics import SkillsiftError
    from ..embed.base import EmbedError
    from ..embed.factory import make_provider

    config, catalog = load_project(root, config_file, allow_exec=allow_exec)
    force = _parse_items(items, catalog)
    try:
        provider = make_provider(config, root=config.root)
    except EmbedError as exc:
        if not dry_run:
            raise SkillsiftError(exc.message, hint=exc.hint) from None
        provider = ConfiguredProvider.from_config(config, repository_command=True)
    index_dir = index_path(config)
    plan = _make_plan(config, catalog, provider, rebuild=rebuild, force=force, index_dir=index_dir)
    _warn_withheld(plan)
    allow_network = bool(getattr(provider, "allow_network", config.embeddings.allow_network))
    if dry_run:
        if fmt == "json":
            click.echo(dump_json(_summary(plan, provider, dry_run=True)), nl=False)
        else:
            click.echo(_dry_run_text(plan, provider, allow_network), nl=False)
        return 0
    _refuse_network(plan, provider, allow_network)
    return _build_and_write(config, catalog, provider, plan, index_dir, rebuild=rebuild, force=force, fmt=fmt)


def _shown(name: str) -> str:
    """A skill name as printed: a secret in it is masked (docs/secrets.md)."""
    from ..secrets import redact

    return redact(name)


def _warn_withheld(plan) -> None:
    for item in plan.withheld:
        click.echo(f'AR9D3: skill "{_shown(item.id)}" was not embedded: its text looks like it holds a secret '
                   f"({item.secret}); it ranks lexically only", err=True)


def _refuse_network(plan, provider, allow_network: bool) -> None:
    from ..config import ENV_ALLOW_NETWORK, user_config_file
    from ..diagnostics import SkillsiftError

    if not plan.to_embed or not getattr(provider, "networked", False) or allow_network:
        return
    host = getattr(provider, "host", "") or provider.fingerprint
    where = user_config_file() or "the user config file"
    raise SkillsiftError(
        f"skillsift index would send {len(plan.to_embed)} texts ({plan.bytes} bytes) to {host}, "
        "but the network is disabled",
        hint=f"set allow_network = true in the [embeddings] table of {where} (or {ENV_ALLOW_NETWORK}=1), "
             "or check first what would be sent with 'skillsift index --dry-run'",
    )


def _build_and_write(config, catalog, provider, plan, index_dir, *, rebuild, force, fmt) -> int:
    from ..index.build import build_index, effective_batch_size
    from ..index.lock import acquire_lock
    from ..index.store import write_index

    with acquire_lock(index_dir):
        # plan again under the lock: another build may have finished since the first look
        plan = _make_plan(config, catalog, provider, rebuild=rebuild, force=force, index_dir=index_dir)
        size = effective_batch_size(config.search.batch_size, getattr(provider, "max_batch", None))
        batches = -(-len(plan.to_embed) // size)
        bar = _progress_bar(batches, len(plan.to_embed))
        if bar is None:
            result = build_index(plan, provider, dtype=config.search.dtype, batch_size=config.search.batch_size)
        else:
            with bar:
                result = build_index(plan, provider, dtype=config.search.dtype,
                                     batch_size=config.search.batch_size, progress=bar.update)
        written = False
        if result.index is not None:
            written = write_index(index_dir, result.index)
    return _report(plan, provider, result, written, index_dir, fmt)


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
        click.echo(f"  {len(missing)} skills have no vector and rank lexically: {', '.join(map(_shown, missing))}",
                   err=True)
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
