"""Attach the configured vector index and embedding provider to a ranker (I/O edge).

Only a ranker of another mode than lexical loads this module (:meth:`skillsift.ranker.search.Ranker.open`):
a lexical search imports none of the index, embedding or numpy modules it imports.  The notes on
refused rows every door prints are in :mod:`skillsift.ranker.degraded`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..blocks import small_pages
from ..catalog.embedtext import embedded_text, text_digest
from ..config import index_path
from ..embed.base import EmbedError
from ..embed.factory import make_provider
from ..index.build import plan_build, withhold_requests
from ..index.manifest import EXAMPLE_KIND, ITEM_KIND, ManifestItem
from ..index.store import Index, IndexReadError, load_index, new_index
from ..secrets.egress import secret_scan, sends_text_out
from .embed_in_memory import embed_texts
from .known import known_requests

VIEW_BATCH = 64  # texts per provider call when the listing view is embedded (view_index)


def attach(config, *, provider=None):
    """Return ``(index or None, problem, provider or EmbedError)`` for ``config``.

    The index is attached only when it loads and was built for this provider, model and
    embedded fields; otherwise ``problem`` says why (the search then degrades with
    ``no_index``).  A provider that cannot be made is returned as its error so the
    search degrades with that error's reason instead of failing.
    """
    small_pages()  # (a one-shot command: its arrays are made for one search)
    if provider is None:
        try:
            provider = make_provider(config, root=config.root)
        except EmbedError as exc:
            provider = exc
    loaded = load_index(index_path(config))
    if loaded.index is None:
        problem = f"The search index cannot be used: {loaded.reason}; rebuild it with 'skillsift index --rebuild'"
        return None, problem if loaded.found else "", provider
    if isinstance(provider, BaseException):
        return loaded.index, "", provider
    s = config.search
    reason = loaded.index.unusable_reason(provider=provider.fingerprint, model=provider.model, fields=s.fields,
                                          index_body=s.index_body, body_chars=s.body_chars,
                                          dims=getattr(provider, "dims", None))
    if reason:
        return None, f"The search index is not usable: {reason}; run 'skillsift index --rebuild'", provider
    return loaded.index, "", provider


def refused_rows(config) -> tuple:
    """The rows of the configured index that the loader refused (:class:`~skillsift.index.store.RefusedRow`).

    :func:`~skillsift.index.store.load_index` keeps its result for the process, so this reads
    nothing again after :func:`attach`.
    """
    try:
        return load_index(index_path(config)).refused
    except IndexReadError:
        return ()


def known_pairs(catalog, config) -> tuple[str, list[tuple[str, str]]]:
    """``(problem, pairs)``: the known requests a vector search ranks with, as ``(skill, text)`` pairs.

    An invalid examples file is left out and ``problem`` says why (search and find_skill print it;
    ``eval`` refuses to run: docs/evaluation.md, "Strict YAML").
    """
    known = known_requests(catalog, config, skip_bad=True)
    return known.problem, [(r.skill, r.text) for r in known.requests]


@dataclass(frozen=True)
class Refresh:
    """What :func:`refresh_stale` did with the skills whose vector is stale or missing.

    ``index`` is the index to rank with (the attached one, or a copy in memory with the new
    rows); ``embedded`` the skills embedded for this run; ``outdated`` those that still rank by
    words only (a provider outside the process is never sent skill text for a search), with
    ``problem`` saying why when the provider failed.
    """

    index: object
    embedded: tuple[str, ...] = ()
    outdated: tuple[str, ...] = ()
    problem: str = ""
    requests_embedded: int = 0  # known requests without a current row, embedded in memory for this run
    requests_outdated: int = 0  # known requests without a row that rank without their vector
    request_rows: dict = field(default_factory=dict, compare=False, repr=False)  # (skill, digest) -> row

    def notes(self) -> list[str]:
        """The stderr lines of a door (none when every vector was current)."""
        out = []
        if self.requests_embedded:
            out.append(f"note: the index has no vector for {_requests(self.requests_embedded)} of the examples "
                       "files: embedded in memory for this run; run 'skillsift index' and commit the index to keep "
                       "them")
        if self.requests_outdated:
            why = f"; {self.problem}" if self.problem and not self.outdated else ""
            out.append(f"warning: the index has no vector for {_requests(self.requests_outdated)} of the examples "
                       f"files, so they are not used{why}; run 'skillsift index' and commit the index")
        if self.embedded:
            out.append(f"note: the index has no current vector for {_count(self.embedded)} "
                       f"({_shown(self.embedded)}): embedded in memory for this run; run 'skillsift index' and "
                       "commit the index to keep them")
        if self.outdated:
            why = f"; {self.problem}" if self.problem else ""
            out.append(f"warning: the index has no current vector for {_count(self.outdated)} "
                       f"({_shown(self.outdated)}), ranked by words only{why}; run 'skillsift index' and commit "
                       "the index")
        return out


def _requests(n: int) -> str:
    return "1 known request" if n == 1 else f"{n} known requests"


def refresh_requests(refresh: Refresh, requests, config, provider) -> Refresh:
    """``refresh`` with the known ``requests`` (``(skill, text)`` pairs) that have no row in its index
    embedded in memory, as :func:`refresh_stale` does for skills (docs/query-mining.md, "Edited
    examples files").

    Only a provider that runs in this process is called; with any other the requests are
    counted as outdated (they rank without their vector until ``skillsift index``), except those
    the build withholds from it for a secret (AR9D3, :func:`~skillsift.index.build.withhold_requests`),
    which rightly have no row.  The rows
    are normalised and quantised as the index stores them (:func:`~skillsift.index.store.new_index`),
    so a search ranks as it will once the index is rebuilt.
    """
    index: Any = refresh.index  # an Index (Refresh keeps it untyped)
    if index is None or provider is None or isinstance(provider, BaseException):
        return refresh
    known = {(item.id, item.text_digest) for _row, item in index.example_items()}
    # a request that would be withheld from the provider (AR9D3) rightly has no row: not counted
    kept, _withheld = withhold_requests(requests, secret_scan(provider, config.secret_patterns))
    todo: dict[tuple[str, str], str] = {}
    for name, text in kept:
        key = (name, text_digest(text))
        if key not in known and text.strip():
            todo.setdefault(key, text)
    if not todo:
        return refresh
    if sends_text_out(provider):
        return replace(refresh, requests_outdated=len(todo))
    out, problem = request_rows(index, [(name, todo[(name, digest)]) for name, digest in sorted(todo)], provider,
                                batch_size=config.search.batch_size)
    if out is None:
        return replace(refresh, requests_outdated=len(todo), problem=refresh.problem or problem)
    return replace(refresh, requests_embedded=len(out), request_rows=out)


def request_rows(index, requests, provider, *, batch_size: int | None = None):
    """``(rows, problem)``: the known ``requests`` (``(skill, text)`` pairs) embedded in memory with
    ``provider``, normalised and quantised as ``index`` stores its rows, keyed ``(skill, text digest)``;
    ``(None, why)`` when the provider fails.  The caller decides whether the provider may be called."""
    keyed = {(name, text_digest(text)): text for name, text in requests}
    if not keyed:
        return {}, ""
    keys = sorted(keyed)
    rows, problem = embed_texts(provider, [keyed[k] for k in keys], batch_size=batch_size, dims=index.dims)
    if rows is None:
        return None, problem
    items = [ManifestItem(name, "", digest, digest, kind=EXAMPLE_KIND) for name, digest in keys]
    built = new_index(provider=index.manifest.provider, model=index.manifest.model, items=items, vectors=rows,
                      dims=index.dims, dtype=index.manifest.dtype)
    return {(item.id, item.text_digest): built.vector(row) for row, item in built.example_items()}, ""


def _count(names) -> str:
    return "1 skill" if len(names) == 1 else f"{len(names)} skills"


def _shown(names, most: int = 10) -> str:
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def refresh_stale(index, skills, config, provider) -> Refresh:
    """Embed, in memory for this run, the ``skills`` whose row in ``index`` is stale or missing.

    Only a provider that runs in this process (the local model) is called: a search never sends
    skill text out (a remote provider's budget and the network gate are for ``skillsift index``),
    so with any other provider the skills are listed as ``outdated``.  Skills that rightly have no
    row (an empty embedded text) are not counted.  The other rows of ``index`` (whatever their
    kind) are kept as they are; nothing is written.
    """
    if index is None or provider is None or isinstance(provider, BaseException):
        return Refresh(index)
    s = config.search
    # a skill that would be withheld from the provider (AR9D3) rightly has no row
    scan = secret_scan(provider, config.secret_patterns)
    plan = plan_build(skills, index, provider=provider, fields=s.fields, index_body=s.index_body,
                      body_chars=s.body_chars, scan=scan)
    todo = plan.to_embed
    if not todo or plan.old is None:
        return Refresh(index)
    names = tuple(sorted(item.id for item in todo))
    if sends_text_out(provider):
        return Refresh(index, outdated=names)
    built, problem = _embedded(plan, index, provider, s.batch_size)
    if built is None:
        return Refresh(index, outdated=names, problem=problem)
    fresh = {(item.domain, item.id): item for item in todo}
    merged, embedded = _with_rows(index, built, fresh)
    left = tuple(sorted(set(names) - set(embedded)))
    return Refresh(merged, embedded=tuple(sorted(embedded)), outdated=left, problem=problem)


def _embedded(plan, index, provider, batch_size):
    """``(index or None, problem)``: the planned rows embedded in memory (:func:`.embed_in_memory.embed_texts`)."""
    todo = plan.to_embed
    rows, problem = embed_texts(provider, [item.text for item in todo], batch_size=batch_size, dims=index.dims)
    if rows is None:
        return None, problem
    items = [ManifestItem(item.id, item.domain, item.item_digest, item.text_digest, kind=item.kind) for item in todo]
    return new_index(provider=plan.provider, model=plan.model, items=items, vectors=rows, dims=index.dims,
                     dtype=index.manifest.dtype, fields=plan.fields, index_body=plan.index_body,
                     body_chars=plan.body_chars), ""


def _with_rows(index, built, fresh):
    """A copy of ``index`` whose stale skill rows hold the vectors of ``built`` and with the missing ones
    appended: ``(index, names embedded)``."""
    items = list(index.items)
    matrix = np.array(index.matrix, dtype=np.float32, copy=True)
    added_items, added_rows, embedded = [], [], []
    for key, planned in fresh.items():
        row = built.row(*key)
        if row < 0:
            continue  # the provider rejected it: it stays outdated
        embedded.append(planned.id)
        vector = built.vector(row)
        old = index.row(*key)
        if old >= 0:
            matrix[old] = vector
            items[old] = replace(items[old], item_digest=planned.item_digest, text_digest=planned.text_digest)
        else:
            added_items.append(ManifestItem(planned.id, planned.domain, planned.item_digest, planned.text_digest,
                                            len(items) + len(added_items), ITEM_KIND))
            added_rows.append(vector)
    if added_rows:
        matrix = np.vstack([matrix, np.asarray(added_rows, dtype=np.float32)])
    manifest = replace(index.manifest, items=tuple(items + added_items))
    return Index(manifest, matrix), embedded


def view_index(index, provider, skills: Sequence, config):
    """``(index or None, problem)``: ``index`` with one row per skill of ``skills`` embedding its view text."""
    s = config.search
    items: list = []
    vectors: list = []
    todo: list[int] = []
    texts = []
    for skill in skills:
        text = embedded_text(skill, s.fields, s.index_body, s.body_chars)
        if not text:
            continue
        digest = text_digest(text)
        row = index.row(skill.domain, skill.name)
        if row >= 0 and index.items[row].text_digest == digest:
            vectors.append(np.asarray(index.vector(row), dtype=np.float32))
        else:
            todo.append(len(vectors))
            vectors.append(None)
        items.append(ManifestItem(skill.name, skill.domain, skill.digest, digest))
        texts.append(text)
    if todo:
        if provider is None or isinstance(provider, BaseException):
            return None, "the listing view's texts cannot be embedded: the embedding provider is unavailable"
        if sends_text_out(provider):
            return None, ("the listing view's texts are not embedded: the configured provider sends text off "
                          "this machine")
        rows, problem = embed_texts(provider, [texts[i] for i in todo], batch_size=VIEW_BATCH, dims=index.dims)
        if rows is None:
            if problem.startswith("embedding failed"):
                return None, "embedding the listing view failed" + problem[len("embedding failed"):]
            return None, "the provider returned unusable vectors for the listing view"
        for i, row in zip(todo, rows, strict=True):
            vectors[i] = row
    m = index.manifest
    if not items:
        return None, "no skill of the listing view has text to embed"
    return new_index(provider=m.provider, model=m.model, items=items, vectors=vectors, dtype=m.dtype,
                     fields=m.fields, index_body=m.index_body, body_chars=m.body_chars,
                     doc_template_version=m.doc_template_version), ""
