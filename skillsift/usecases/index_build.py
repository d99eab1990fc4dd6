"""The build use case behind ``skillsift index`` and the ``skillsift-index`` hook.

plan -> refuse the network -> lock -> plan again -> build -> write, with a progress
callback and no printing: the doors render what :func:`build` returns (docs/vector-index.md).

What is written, and when (docs/vector-index.md, "Writing and the lock"):

* the index directory must be a real directory inside the repository: a symlinked
  ``index_dir``, or a parent that resolves outside the root, is refused before anything
  (the lock included) is created (:func:`checked_index_dir`);
* a hard provider error on any batch (wrong vector count, width change, NaN) raises
  :class:`~.build.BuildError`: nothing is written;
* a build that stopped before any new vector came back (the provider could not run)
  writes nothing (``result.index`` is None);
* a result that differs from the index on disk only in the file digests of skills whose
  embedded text did not change (drift) is not written: an unchanged catalog leaves the
  files, bytes and modification times, as they are.
"""

from __future__ import annotations

import os
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import ENV_ALLOW_NETWORK, user_config_file
from ..diagnostics import SkillsiftError
from ..embed.base import EmbedError
from ..embed.factory import make_provider
from ..embed.gate import price_per_mtok
from ..evaluate.examples import example_pairs
from ..index.atomic import current_mode
from ..index.build import build_index, effective_batch_size, plan_build
from ..index.configured import ConfiguredProvider, checked_index_dir
from ..index.lock import acquire_lock
from ..index.manifest import MANIFEST_FILE, VECTORS_FILE
from ..index.store import Index, LoadResult, load_index, write_index
from ..index.verify import verifiable, verify_rows
from ..secrets.egress import secret_scan
from ..words import plural

if TYPE_CHECKING:
    from ..config import Config
    from ..index.build import BuildResult, Plan


def parse_items(value: str | None, catalog) -> tuple[str, ...]:
    """The skill names of ``--items a,b`` (each must be served), or () when not given."""
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


def price(provider, config) -> float | None:
    """Input price per million tokens: 0 for providers that do not bill, else the known price."""
    if not getattr(provider, "networked", False):
        return 0.0
    budget = getattr(provider, "budget", None)
    if budget is not None:
        return budget.price_per_mtok

    return price_per_mtok(provider.model, config.embeddings.price_input_per_mtok)


def _load_old(index_dir):
    try:
        return load_index(index_dir)
    except (OSError, SkillsiftError) as exc:  # an old index that cannot be read is no old index
        return LoadResult(None, getattr(exc, "message", None) or str(exc), found=True)


def make_plan(config, catalog, provider, *, rebuild: bool, force, index_dir):
    """The plan of a build against the index in ``index_dir`` (no provider call)."""

    loaded = _load_old(index_dir)
    scan = secret_scan(provider, config.secret_patterns)
    s = config.search
    return plan_build(
        catalog, loaded.index, provider=provider, fields=s.fields, index_body=s.index_body, body_chars=s.body_chars,
        rebuild=rebuild, force=force, scan=scan, price_per_mtok=price(provider, config),
        old_problem=loaded.reason if loaded.found and loaded.index is None else "",
        examples=example_pairs(config, catalog),
    )


def refuse_network(plan, provider, allow_network: bool) -> None:
    """Raise before any call when a networked provider would be sent text with the network off."""

    if not plan.to_embed or not getattr(provider, "networked", False) or allow_network:
        return
    host = getattr(provider, "host", "") or provider.fingerprint
    where = user_config_file() or "the user config file"
    raise SkillsiftError(
        f"skillsift index would send {plural(len(plan.to_embed), 'text')} ({plural(plan.bytes, 'byte')}) to {host}, "
        "but the network is disabled",
        hint=f"set allow_network = true in the [embeddings] table of {where} (or {ENV_ALLOW_NETWORK}=1), "
             "or check first what would be sent with 'skillsift index --dry-run'",
    )


@dataclass
class Prepared:
    """A build ready to run (or to show as a dry run): provider, first plan and where it goes."""

    config: Config
    catalog: object
    provider: object
    plan: Plan
    index_dir: Path
    allow_network: bool
    rebuild: bool = False
    force: tuple[str, ...] = ()


def prepare(config, catalog, *, rebuild: bool = False, force=(), dry_run: bool = False) -> Prepared:
    """Build the provider and plan; a dry run plans with the configured identity when it cannot be built."""

    try:
        provider = make_provider(config, root=config.root)
    except EmbedError as exc:
        if not dry_run:
            raise SkillsiftError(exc.message, hint=exc.hint) from None
        provider = ConfiguredProvider.from_config(config, repository_command=True)
    index_dir = checked_index_dir(config)
    if not rebuild and not dry_run:
        force = (*tuple(force), *doctored_rows(config, catalog, provider, index_dir))
    plan = make_plan(config, catalog, provider, rebuild=rebuild, force=force, index_dir=index_dir)
    allow_network = bool(getattr(provider, "allow_network", config.embeddings.allow_network))
    return Prepared(config, catalog, provider, plan, index_dir, allow_network, rebuild, tuple(force))


def doctored_rows(config, catalog, provider, index_dir) -> tuple[str, ...]:
    """Skills whose stored row is not the embedding of their text (re-embedded with a local provider).

    A build would otherwise reuse such a row; naming them in ``force`` embeds them again
    (docs/index-format.md, "Verifying the committed vectors").  Only a provider whose vectors
    are recomputed exactly (the local model) is asked; rows verified before are not embedded again.
    """

    fingerprint = getattr(provider, "fingerprint", "")
    old = _load_old(index_dir).index
    if old is None or not verifiable(old) or old.manifest.provider != fingerprint:
        return ()
    s = config.search
    if old.unusable_reason(fields=s.fields, index_body=s.index_body, body_chars=s.body_chars):
        return ()
    found = verify_rows(old, catalog.skills, provider, fields=s.fields, index_body=s.index_body,
                        body_chars=s.body_chars, root=str(config.root))
    return found.mismatched


@dataclass
class Outcome:
    """What :func:`build` did: the plan it ran, the build result and whether files changed."""

    plan: Plan
    provider: object
    result: BuildResult
    written: bool
    index_dir: Path

    @property
    def exit_code(self) -> int:
        """0 complete or current; 1 nothing built; 2 written, but refusals or an early stop (docs/vector-index.md)."""
        if self.result.index is None:
            return 1
        return 2 if self.result.rejected or self.result.stopped else 0


def drift_only(old, new) -> bool:
    """True when ``new`` equals ``old`` but for the file digests of rows whose embedded text is the same."""
    if old is None or new is None:
        return False
    digests = {(item.domain, item.id, item.text_digest): item.item_digest for item in old.items}
    items = tuple(replace(item, item_digest=digests.get((item.domain, item.id, item.text_digest), item.item_digest))
                  for item in new.manifest.items)
    try:
        return old.to_bytes() == Index(replace(new.manifest, items=items), new.matrix).to_bytes()
    except SkillsiftError:
        return False


def build(prepared: Prepared, *, progress=None, force_write: bool | None = None) -> Outcome:
    """Run the build ``prepared`` describes and write the index when it changed.

    ``progress(batches, total)`` (optional) returns a context manager yielding a
    callable ``update(n)`` (or None for no progress), entered around the provider calls.
    Raises :class:`SkillsiftError` (exit 1) for a refused network, a held lock, a
    refused index directory, a hard provider error or a failed write.  A read-only index file
    is refused before anything is embedded, unless ``force_write`` (``skillsift index --force``).
    """

    config, catalog, provider = prepared.config, prepared.catalog, prepared.provider
    refuse_network(prepared.plan, provider, prepared.allow_network)
    index_dir = checked_index_dir(config)

    for name in (VECTORS_FILE, MANIFEST_FILE):
        current_mode(os.path.join(index_dir, name), force_write)
    with acquire_lock(index_dir):
        # plan again under the lock: another build may have finished since the first look
        plan = make_plan(config, catalog, provider, rebuild=prepared.rebuild, force=prepared.force,
                         index_dir=index_dir)
        size = effective_batch_size(config.search.batch_size, getattr(provider, "max_batch", None))
        batches = -(-len(plan.to_embed) // size)
        watch = progress(batches, len(plan.to_embed)) if progress is not None else None
        with watch if watch is not None else nullcontext(None) as update:
            result = build_index(plan, provider, dtype=config.search.dtype, batch_size=config.search.batch_size,
                                 progress=update)
        written = False
        new = result.index
        if isinstance(new, Index) and not drift_only(_load_old(index_dir).index, new):
            written = write_index(index_dir, new, force=force_write)
    return Outcome(plan, provider, result, written, index_dir)
