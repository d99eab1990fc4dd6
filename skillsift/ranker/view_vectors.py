"""Vectors of the listing view: the index's rows for what an agent shows (docs/views.md, "Views").

A skill of the listing view carries only its shown text, so its embedded text differs from
the one ``skillsift index`` stored whenever the listing drops or cuts a field: the stored
vector is stale for it.  :func:`view_index` makes an index in memory whose rows embed the
view's texts: a stored row whose text is the same is reused, the others are embedded with the
configured provider when it runs on this machine (a provider that sends text out is not used
for it: the view then has no vectors and a vector search degrades, saying why).  A skill whose
view text is empty (name only, with the name not embedded) has no row, as ``skillsift index``
leaves such a skill out.  Nothing is written.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..catalog.embedtext import embedded_text, text_digest
from .search import Ranker

VIEW_BATCH = 64


def view_index(index, provider, skills: Sequence, config):
    """``(index or None, problem)``: ``index`` with one row per skill of ``skills`` embedding its view text."""
    import numpy as np

    from ..index.manifest import ManifestItem
    from ..index.store import new_index
    from ..secrets.egress import sends_text_out

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
        from .embed_memory import embed_texts

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


def open_view_ranker(view, config, *, mode: str | None = None, query_timeout_ms: int | None = None,
                     one_shot: bool = False, embed_stale: bool = False):
    """A :class:`~skillsift.ranker.search.Ranker` over ``view.catalog`` (a :class:`~skillsift.catalog.listing.View`).

    The full view is ``Ranker.open``; the listing view attaches :func:`view_index` of the
    configured index when ``mode`` needs vectors.
    """

    ranker = Ranker.open(view.catalog, config, mode=mode, query_timeout_ms=query_timeout_ms, one_shot=one_shot,
                         embed_stale=embed_stale and view.listing is None)
    if view.listing is None or ranker.index is None:
        return ranker
    index, problem = view_index(ranker.index, ranker.provider, view.catalog.skills, config)
    out = Ranker(view.catalog, config, index=index, provider=ranker.provider, query_timeout_ms=query_timeout_ms,
                 index_problem=problem, one_shot=one_shot)
    out.index_refused = ranker.index_refused
    return out
