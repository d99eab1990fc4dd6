"""What ``skillsift index`` prints: the dry-run receipt, the JSON summary, the build report.

Pure functions of the plan, the provider identity and the build outcome
(:mod:`skillsift.usecases.index_build`); the command and the hook print what they return.
:func:`render_index_text` and :func:`render_index_json` are the ``index`` family of the
renderer registry.
"""

from __future__ import annotations

from ..secrets.scan import redact
from ..words import plural
from .sanitise import json_text, plain_lines

SUMMARY_SCHEMA_VERSION = 1


def _shown(name: str) -> str:
    """A skill name as printed: a secret in it is masked (docs/secrets.md)."""
    return redact(name)


def withheld_line(item) -> str:
    """The AR9D3 line of one planned item (a skill or a known request) kept back from a provider
    outside the process; ``index`` and ``tune`` print it alike."""
    if item.kind == "example":
        return (f'AR9D3: a known request of skill "{_shown(item.id)}" was not embedded: its text looks like it '
                f"holds a secret ({item.secret}); it is not used")
    if item.kind == "query":  # tune: a case's query
        return (f'AR9D3: the query of case "{_shown(item.id)}" was not embedded: it looks like it holds a secret '
                f"({item.secret}); it is scored without vectors, as a search ranks it lexically")
    return (f'AR9D3: skill "{_shown(item.id)}" was not embedded: its text looks like it holds a secret '
            f"({item.secret}); it ranks lexically only")


def withheld_lines(plan) -> list[str]:
    """One AR9D3 line per skill or known request kept back from a provider outside the process."""
    return [withheld_line(item) for item in plan.withheld]


def _cost_text(cost: float | None) -> str:
    return "unknown" if cost is None else f"${cost:.6f}"


def _bills(provider) -> bool:
    """True for a provider reached over the network, the only kind with a price (the local model and a
    command cost nothing, so no cost is printed for them)."""
    return bool(getattr(provider, "networked", False))


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _kib(size: int) -> str:
    return f"{size / 1024:.1f} KiB"


def _line(label: str, value: str) -> str:
    return f"{label:<10} {value}"


def dry_run_text(plan, provider, allow_network: bool) -> str:
    """The receipt of ``skillsift index --dry-run`` (docs/vector-index.md)."""
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
        egress = f"{plural(n, 'text')}, {size} -> {getattr(provider, 'host', '') or provider.fingerprint}"
    elif getattr(provider, "external", False):
        egress = f"{plural(n, 'text')}, {size} -> {provider.fingerprint} (a program on this machine)"
    else:
        egress = f"none: the {plural(n, 'text')} ({size}) are embedded in this process"
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


def summary(plan, provider, *, dry_run: bool, result=None, written: bool = False) -> dict:
    """The JSON summary of ``skillsift index`` (dry run or build), keys in file order."""
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


def render_index_text(plan, provider, *, result=None, written: bool = False, shown_dir: str = "",
                      allow_network: bool = False) -> str:
    """What ``skillsift index`` prints as text, made safe for a terminal: the dry-run receipt when
    ``result`` is None, else the line of the build (``shown_dir``: the index directory as the user sees it)."""

    if result is None:
        return plain_lines(dry_run_text(plan, provider, allow_network))
    return plain_lines(build_text(plan, provider, result, written, shown_dir))


def render_index_json(plan, provider, *, result=None, written: bool = False) -> str:
    """The :func:`summary` of a dry run (``result`` None) or of a build, as JSON text."""

    return json_text(summary(plan, provider, dry_run=result is None, result=result, written=written))


def build_text(plan, provider, result, written: bool, shown_dir: str) -> str:
    """The stdout text of a build ("" when nothing was built)."""
    if result.index is None:
        return ""
    known = sum(1 for item in plan.items if item.kind == "example")
    total = plural(plan.total, "skill") if not known else (
        f"{plural(plan.total - known, 'skill')} and {plural(known, 'known request')}")
    cost = "" if not _bills(provider) else f", cost {_cost_text(result.cost_usd)}"
    return (f"embedded {len(result.embedded)}, reused {result.reused}, withheld {len(plan.withheld)} of "
            f"{total}   ({_count(result.calls, 'call')}, {plural(result.tokens, 'token')}"
            f"{cost})\n"
            + (f"wrote {shown_dir}\n" if written else "index is current, nothing written\n"))


def build_notes(result) -> list[str]:
    """The stderr lines of a build, whatever the format: refusals, nothing embedded, an early stop."""
    err = [f'skillsift index: the provider rejected skill "{skill_id}" even alone ({reason}); '
           "it ranks lexically only" for skill_id, reason in result.rejected]
    hint = getattr(result.stop_error, "hint", "")
    if result.index is None:
        err.append(f"error: nothing was embedded: {result.stopped}")
        if hint:
            err.append(f"hint: {hint}")
        return err
    if result.rejected:
        names = ", ".join(sorted(i for i, _ in result.rejected))
        err.append(f"skillsift index skipped {plural(len(result.rejected), 'skill')} the provider rejected: {names}")
    if result.stopped:
        err.append(f"skillsift index stopped early: {result.stopped}")
        if hint:
            err.append(f"hint: {hint}")
        missing = result.missing
        verb = "has no vector and ranks" if len(missing) == 1 else "have no vector and rank"
        err.append(f"  {plural(len(missing), 'skill')} {verb} lexically: {', '.join(map(_shown, missing))}")
    return err
