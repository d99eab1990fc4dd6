"""The exact-id pin: a query that names a skill gets that skill first.

README, "Hybrid search: embeddings and the index", describes it.

An id of several words (``deploy-staging``) pins when its words appear in the query
as a consecutive sequence; a one-word id (``test``, ``build``) is also an ordinary
English word, so it pins only when the query calls it a skill (``"use the build
skill"``, ``"the skill build"``).  Only ids pin, so stuffing a description with
words gains nothing.  The pin applies in hybrid fusion and auto-vector ranking, not
in pure vector or lexical mode; the caller decides that.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from functools import lru_cache

from ..tokenize import lower

# Separators: every ASCII character other than a-z and 0-9.  Non-ASCII characters
# never separate (they stay inside tokens).
#: Word runs a query may look up in a :class:`PinIndex` (query words x the longest id's words).
RUN_BUDGET = 4096

_SEPARATORS = re.compile(r"[\x00-\x2f\x3a-\x60\x7b-\x7f]+")


def pin_tokens(text: str) -> list[str]:
    """Lowercase ``text`` and split it on ASCII characters that are not ``a-z``/``0-9``.

    ``"Deploy_Staging v2" -> ["deploy", "staging", "v2"]``; ``"café-bar" -> ["café", "bar"]``.
    """
    return [t for t in _SEPARATORS.split(lower(text)) if t]


@lru_cache(maxsize=1 << 16)
def _id_form(cid: str) -> tuple[str, int, bool]:
    """An id's joined pin tokens, their UTF-8 size and whether it has several words (kept per id:
    every hybrid query checks each of its candidates)."""
    tokens = pin_tokens(cid)
    joined = " ".join(tokens)
    return joined, len(joined.encode("utf-8")), len(tokens) > 1


def _pins(padded_query: str, joined_id: str, multi_word: bool) -> bool:
    if multi_word:
        return f" {joined_id} " in padded_query
    return f" {joined_id} skill " in padded_query or f" skill {joined_id} " in padded_query


def exact_pin(query: str, candidate_ids: Iterable[str]) -> str | None:
    """The candidate id the query names, or ``None``.

    When several ids match, the one whose joined tokens are longest (in UTF-8 bytes)
    wins; equal lengths go to the smaller id.  Only ids among ``candidate_ids`` (the
    fused candidate set) can pin.
    """
    padded = " " + " ".join(pin_tokens(query)) + " "
    forms = ((cid, _id_form(cid)) for cid in candidate_ids)
    return best_pin((cid, size) for cid, (joined, size, multi_word) in forms
                    if joined and _pins(padded, joined, multi_word))


class PinIndex:
    """:func:`exact_pin` over the ids of one catalog, answered from the query's word runs.

    The ids are indexed once by their joined pin tokens; a query then looks up its runs of
    consecutive tokens (up to the longest id's number of words) and the words next to
    ``skill``, instead of testing every candidate id.  A query whose runs would exceed
    :data:`RUN_BUDGET` (a long query, or a catalog holding a very long id) is answered by
    :func:`exact_pin` over the candidates, whose cost grows with their number only.  Same
    answer as :func:`exact_pin` for every query and candidate set (tests/ranker/test_pin.py).
    """

    def __init__(self, ids: Sequence[str]):
        self._ids = ids
        self._multi: dict[str, list[tuple[str, int, int]]] = {}  # joined tokens of a several-word id -> its ids
        self._single: dict[str, list[tuple[str, int, int]]] = {}  # the token of a one-word id -> its ids
        longest = 0
        for position, cid in enumerate(ids):
            tokens = pin_tokens(cid)
            if not tokens:
                continue
            joined = " ".join(tokens)
            entry = (cid, position, len(joined.encode("utf-8")))
            (self._multi if len(tokens) > 1 else self._single).setdefault(joined, []).append(entry)
            longest = max(longest, len(tokens))
        self._longest = longest

    def pin(self, query: str, candidate_ids: Collection[str]) -> str | None:
        """The candidate id the query names, or ``None``."""
        named = self._named(query)
        if named is None:
            return exact_pin(query, candidate_ids)
        return best_pin((cid, size) for cid, _, size in named if cid in candidate_ids)

    def pin_position(self, query: str, positions: Collection[int]) -> int | None:
        """The position (in the ids) of the candidate the query names, among ``positions``, or ``None``."""
        named = self._named(query)
        if named is None:
            pinned = exact_pin(query, [self._ids[i] for i in positions])
            return None if pinned is None else next(i for i in positions if self._ids[i] == pinned)
        offered = [(cid, i, size) for cid, i, size in named if i in positions]
        pinned = best_pin((cid, size) for cid, _, size in offered)
        return None if pinned is None else next(i for cid, i, _ in offered if cid == pinned)

    def _named(self, query: str) -> list[tuple[str, int, int]] | None:
        """``(id, position, size)`` of every id ``query`` names (size: its joined tokens in UTF-8
        bytes); None when looking its runs up would cost more than :data:`RUN_BUDGET`."""
        tokens = pin_tokens(query)
        if len(tokens) * min(len(tokens), self._longest) > RUN_BUDGET:
            return None
        named: list[tuple[str, int, int]] = []
        if self._multi:
            for start in range(len(tokens) - 1):
                for stop in range(start + 2, min(len(tokens), start + self._longest) + 1):
                    named += self._multi.get(" ".join(tokens[start:stop]), ())
        if self._single:
            for k, token in enumerate(tokens):
                if (k + 1 < len(tokens) and tokens[k + 1] == "skill") or (k > 0 and tokens[k - 1] == "skill"):
                    named += self._single.get(token, ())
        return named


def best_pin(named: Iterable[tuple[str, int]]) -> str | None:
    """Of ``(id, size)`` pairs, the id with the longest joined tokens; equal sizes go to the smaller id."""
    best: str | None = None
    best_len = 0
    for cid, size in named:
        if best is None or size > best_len or (size == best_len and cid < best):
            best, best_len = cid, size
    return best
