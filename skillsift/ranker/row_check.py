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

import os
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from ..catalog.embedtext import embedded_text, text_digest
from ..embed.base import EmbedError
from ..index.store import RefusedRow, without_rows
from ..index.verify import TOLERANCE, VERIFIED_PROVIDER_PREFIX, VerifiedRows, _model_id, verifiable
from .degraded import refused_note

KEEP_ROWS = 200_000  # rows remembered in all (validate and ci keep what they checked; a search adds)
MAX_ROUNDS = 4  # searches at most: each refusal may bring new rows to the top, checked in turn
_MEMO: dict = {}  # (root, model id) -> VerifiedRows kept for the process (a server checks a row once)
_MEMO_MAX = 16


def checked_search(ranker, query: str, *, shown: Callable | None = None, first=None, **options):
    """``ranker.search(query, **options)`` whose shown hits were re-embedded and matched (module docstring).

    ``shown(result)`` gives the hits the caller hands out (default: the result's hits, at most
    ``limit``).  Rows that fail are added to ``ranker.index_refused`` and the search runs again.
    ``first`` is the result of ``ranker.search(query, **options)`` when the caller has it already.
    """
    result = first if first is not None else ranker.search(query, **options)
    start = len(ranker.rows_refused_now)
    for _round in range(MAX_ROUNDS - 1):
        hits = shown(result) if shown is not None else result.hits
        bad = check_hits(ranker, result, [h.name for h in hits])
        if not bad:
            break
        drop(ranker, bad)
        result = ranker.search(query, **options)
    # what a door prints for the rows this search refused
    ranker.rows_refused_note = refused_note(ranker.rows_refused_now[start:])
    return result


def _checkable(ranker, result) -> bool:

    provider = ranker.provider
    return (result.ranking in ("hybrid", "vector") and not result.degraded and ranker.index is not None
            and verifiable(ranker.index) and hasattr(provider, "embed")
            and str(getattr(provider, "fingerprint", "")).startswith(VERIFIED_PROVIDER_PREFIX))


class _Rows:
    """Per skill name, the rows a hit of it brings (its own, its known requests') as
    ``(key, name, row, kind, text)``; built once per ranker, index and requests, each skill's
    keys computed on its first hit (a warm query then costs a few dictionary lookups)."""

    def __init__(self, ranker, model_id: str):
        self.index, self.known, self.model_id = ranker.index, ranker._known, model_id
        self.ranker = ranker
        self.positions = {skill.name: i for i, skill in enumerate(ranker.skills)}
        self.request_rows: dict[str, dict] = {}  # skill -> text digest -> row (no hashing here: done per hit)
        for row, item in self.index.example_items():
            self.request_rows.setdefault(item.id, {})[item.text_digest] = row
        self.texts: dict[str, list[str]] = {}
        for name, text in self.known:
            if name in self.request_rows and text.strip():
                self.texts.setdefault(name, []).append(text)
        self.done: dict[str, list] = {}

    def of(self, name: str) -> list:
        found = self.done.get(name)
        if found is None:
            found = self.done[name] = self._build(name)
        return found

    def _build(self, name: str) -> list:

        out = []
        index, s = self.index, self.ranker.config.search
        position = self.positions.get(name)
        vectors = self.ranker.vectors
        if position is not None and vectors is not None and hasattr(vectors, "rows"):
            row = vectors.rows()[position]
            if row >= 0:  # a current row: its text digest is the skill's present text's
                skill = self.ranker.skills[position]
                text = embedded_text(skill, s.fields, s.index_body, s.body_chars)
                key = VerifiedRows.key(self.model_id, index.items[row].text_digest, index.matrix[row].tobytes())
                out.append((key, name, row, "skill", text))

        rows = self.request_rows.get(name, {})
        for text in self.texts.get(name, ()):
            digest = text_digest(text)
            row = rows.get(digest, -1)
            if row >= 0:
                out.append((VerifiedRows.key(self.model_id, digest, index.matrix[row].tobytes()), name, row,
                            "example", text))
        return out


def _rows_of(ranker, model_id: str) -> _Rows:
    held = getattr(ranker, "_row_check", None)
    if held is None or held.index is not ranker.index or held.known is not ranker._known or held.model_id != model_id:
        held = ranker._row_check = _Rows(ranker, model_id)
    return held


def check_hits(ranker, result, names: Sequence[str]) -> tuple:
    """The rows of ``names`` (their own and their known requests') that differ from their text re-embedded,
    as :class:`~skillsift.index.store.RefusedRow` (positions in ``ranker.index``); () when all match."""
    if not names or not _checkable(ranker, result):
        return ()

    model_id = _model_id(ranker.provider)
    prepared = _rows_of(ranker, model_id)
    cache = _cache(ranker.config.root, model_id)
    todo = [entry for name in dict.fromkeys(names) for entry in prepared.of(name)
            if entry[0] not in cache.memo and not cache.seen(entry[0])]
    if not todo:
        return ()
    return _embed_and_compare(ranker, todo, cache)


def _embed_and_compare(ranker, todo: list, cache) -> tuple:


    index = ranker.index
    try:
        vectors = np.asarray(ranker.provider.embed([entry[4] for entry in todo]), dtype=np.float32)
    except (EmbedError, OSError, TimeoutError):
        return ()  # the search ranked already; the next one checks again
    stored = index.matrix[[entry[2] for entry in todo]]
    if vectors.shape != stored.shape:
        return ()
    deviation = np.abs(vectors - stored).max(axis=1)
    bad = []
    for (key, name, row, kind, _text), dev in zip(todo, deviation.tolist(), strict=True):
        if dev > TOLERANCE:
            bad.append(RefusedRow(kind, index.items[row].domain, name, row,
                                  f"it is not the embedding of its text: embedded again on this machine, a "
                                  f"component differs by {dev:.3g} (at most {TOLERANCE:g} is rounding)"))
        else:
            cache.memo.add(key)
            cache.add(key)
    cache.save(keep_unused=KEEP_ROWS)
    return tuple(bad)


def _cache(root: str, model_id: str):


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
    ranker.index = without_rows(ranker.index, [r.row for r in refused])
    if ranker.refresh is not None:
        ranker.refresh = replace(ranker.refresh, index=ranker.index)
    ranker._vectors = None
    if ranker._known:
        ranker.use_examples(ranker._known)
    ranker.index_refused = tuple(ranker.index_refused) + tuple(refused)
    ranker.rows_refused_now = tuple(getattr(ranker, "rows_refused_now", ())) + tuple(refused)
