"""Vectors of the listing view: the index's rows for what an agent shows (docs/views.md, "Views").

A skill of the listing view carries only its shown text, so its embedded text differs from
the one ``skillsift index`` stored whenever the listing drops or cuts a field: the stored
vector is stale for it.  :func:`skillsift.ranker.setup.view_index` (vector-side setup, which a
lexical search does not load) makes an index in memory whose rows embed the view's texts: a
stored row whose text is the same is reused, the others are embedded with the configured
provider when it runs on this machine (a provider that sends text out is not used for it: the
view then has no vectors and a vector search degrades, saying why).  A skill whose view text is
empty (name only, with the name not embedded) has no row, as ``skillsift index`` leaves such a
skill out.  Nothing is written.
"""

from __future__ import annotations

from .search import Ranker


def open_view_ranker(view, config, *, mode: str | None = None, query_timeout_ms: int | None = None,
                     one_shot: bool = False, embed_stale: bool = False):
    """A :class:`~skillsift.ranker.search.Ranker` over ``view.catalog`` (a :class:`~skillsift.catalog.listing.View`).

    The full view is ``Ranker.open``; the listing view attaches :func:`~skillsift.ranker.setup.view_index` of the
    configured index when ``mode`` needs vectors.
    """

    ranker = Ranker.open(view.catalog, config, mode=mode, query_timeout_ms=query_timeout_ms, one_shot=one_shot,
                         embed_stale=embed_stale and view.listing is None)
    if view.listing is None or ranker.index is None:
        return ranker
    from . import setup  # loaded already: the ranker has an index

    index, problem = setup.view_index(ranker.index, ranker.provider, view.catalog.skills, config)
    out = Ranker(view.catalog, config, index=index, provider=ranker.provider, query_timeout_ms=query_timeout_ms,
                 index_problem=problem, one_shot=one_shot)
    out.index_refused = ranker.index_refused
    return out
