"""The rows a search hands out, re-embedded once per machine (docs/vector-index.md, "Rows checked at search time").

Every digest of a committed index can be recomputed by whoever rewrites a row
(docs/index-format.md): only embedding the text again shows that a row is not its text's.
``validate``, ``status`` and ``ci`` re-embed every row (:mod:`skillsift.index.verify`); a
search or the MCP server re-embeds only the rows that reach the hits it returns (each hit's
own row and the rows of its known requests), once per machine: a row that matched is
remembered in the user cache (``verified/``, the cache :mod:`skillsift.index.verify` keeps,
digests only), and in the process, so a warm query embeds nothing and reads nothing.

A row that does not match its text is refused: it is left out of the ranker (the skill ranks
by words; a known request is not used), the search runs again, and the door says which row
and why, as for a row the loader refused.  Only an index built by the ``local`` model, with
that model attached as the provider, is checked (remote and command providers are not known
to be deterministic, and checking would send the texts again).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

KEEP_ROWS = 200_000  # rows remembered in all (validate and ci keep what they checked; a search adds)
MAX_ROUNDS = 4  # searches at most: each refusal may bring new rows to the top, checked in turn
_MEMO: dict = {}  # (root, model id) -> VerifiedRows kept for the process (a server checks a row once)
_MEMO_MAX = 16


def checked_search(ranker, query: str, *, shown: Callable | None = None, **options):
    """``ranker.search(query, **options)`` whose shown hits were re-embedded and matched (module docstring).

    ``shown(result)`` gives the hits the caller hands out (default: the result's hits, at most
    ``limit``).  Rows that fail are added to ``ranker.index_refused`` and the search runs again.
    """
    result = ranker.search(query, **options)
    for _round in range(MAX_ROUNDS - 1):
        hits = shown(result) if shown is not None else result.hits
        bad = check_hits(ranker, result, [h.name for h in hits])
        if not bad:
            break
        drop(ranker, bad)
        result = ranker.search(query, **options)
    return result


def _checkable(ranker, result) -> bool:
    from ..index.verify import VERIFIED_PROVIDER_PREFIX, verifiable

    provider = ranker.provider
    return (result.ranking in ("hybrid", "vector") and not result.degraded and ranker.index is not None
            and verifiable(ranker.index) and hasattr(provider, "embed")
            and str(getattr(provider, "fingerprint", "")).startswith(VERIFIED_PROVIDER_PREFIX))


def check_hits(ranker, result, names: Sequence[str]) -> tuple:
    """The rows of ``names`` (their own and their known requests') that differ from their text re-embedded,
    as :class:`~skillsift.index.store.RefusedRow` (positions in ``ranker.index``); () when all match."""
    if not names or not _checkable(ranker, result):
        return ()
    import numpy as np

    from ..embed.base import EmbedError
    from ..index.verify import TOLERANCE, VerifiedRows, _model_id, current_rows, request_rows

    index, s = ranker.index, ranker.config.search
    wanted = set(names)
    skills = [skill for skill in ranker.skills if skill.name in wanted]
    rows = [(name, row, text, digest, "skill") for name, row, text, digest in
            current_rows(index, skills, fields=s.fields, index_body=s.index_body, body_chars=s.body_chars)]
    requests = [(name, text) for name, text in ranker._known if name in wanted]
    by_row = {row: item for row, item in index.example_items()}
    rows += [(by_row[row].id, row, text, digest, "example") for _label, row, text, digest in
             request_rows(index, requests)]
    if not rows:
        return ()
    model_id = _model_id(ranker.provider)
    cache = _cache(ranker.config.root, model_id)
    keys = [VerifiedRows.key(model_id, digest, index.matrix[row].tobytes()) for _n, row, _t, digest, _k in rows]
    todo = [i for i, key in enumerate(keys) if not cache.seen(key) and key not in cache.memo]
    if not todo:
        return ()
    try:
        vectors = np.asarray(ranker.provider.embed([rows[i][2] for i in todo]), dtype=np.float32)
    except (EmbedError, OSError, TimeoutError):
        return ()  # the search ranked already; the next one checks again
    stored = index.matrix[[rows[i][1] for i in todo]]
    if vectors.shape != stored.shape:
        return ()
    deviation = np.abs(vectors - stored).max(axis=1)
    from ..index.store import RefusedRow

    bad = []
    for i, dev in zip(todo, deviation.tolist(), strict=True):
        name, row, _text, _digest, kind = rows[i]
        if dev > TOLERANCE:
            item = index.items[row]
            bad.append(RefusedRow(kind, item.domain, name, row,
                                  f"it is not the embedding of its text: embedded again on this machine, a "
                                  f"component differs by {dev:.3g} (at most {TOLERANCE:g} is rounding)"))
        else:
            cache.memo.add(keys[i])
            cache.add(keys[i])
    cache.save(keep_unused=KEEP_ROWS)
    return tuple(bad)


def _cache(root: str, model_id: str):
    import os

    from ..index.verify import VerifiedRows

    key = (os.path.abspath(root), model_id)
    cache = _MEMO.get(key)
    if cache is None:
        cache = VerifiedRows(root)
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[key] = cache
    return cache


def drop(ranker, refused) -> None:
    """Leave the ``refused`` rows out of ``ranker`` (its index, vectors and known requests) and record them."""
    from ..index.store import without_rows

    ranker.index = without_rows(ranker.index, [r.row for r in refused])
    if ranker.refresh is not None:
        from dataclasses import replace

        ranker.refresh = replace(ranker.refresh, index=ranker.index)
    ranker._vectors = None
    if ranker._known:
        ranker.use_examples(ranker._known)
    ranker.index_refused = tuple(ranker.index_refused) + tuple(refused)
    ranker.rows_refused_now = tuple(getattr(ranker, "rows_refused_now", ())) + tuple(refused)
