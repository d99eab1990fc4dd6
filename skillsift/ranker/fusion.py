"""Fusion of the lexical and vector candidate lists (docs/configuration.md, ``fusion``).

Inputs are ranked lists of ``(id, score)``: the lexical list carries BM25F scores,
the vector list raw cosine similarities, both already in rank order and truncated
to ``candidates`` (pass ``candidates=`` to have the functions cut them).  Outputs
are unsorted :class:`FusedItem` lists; :func:`sort_fused` puts them in result order.

:func:`rrf` and :func:`weighted` are the reference's; :func:`blend` is skillsift's
score-aware fusion (cosine plus a bounded lexical bonus), see docs/ranking-quality.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .rounding import FUSED_DIGITS, SCORE_DIGITS, round_half_away

Ranked = Sequence[tuple[str, float]]  # (skill name, score)


@dataclass(frozen=True)
class FusedItem:
    """One fused candidate: ranks are 1-based within the (truncated) lists, 0 when absent."""

    id: str
    score: float  # fused score, rounded to 9 decimals (the cosine, to 6, for vector-only)
    lexical_rank: int = 0
    vector_rank: int = 0
    vector_sim: float | None = None  # cosine rounded to 6 decimals; None when not in the vector list


def _cut(ranked: Ranked, candidates: int | None) -> Ranked:
    if candidates is None:
        return ranked
    if candidates < 1:
        raise ValueError(f"candidates must be at least 1, got {candidates}")
    return ranked[:candidates]


def _ranks(ranked: Ranked, which: str) -> dict:
    ranks: dict = {}
    for position, (item, _score) in enumerate(ranked, start=1):
        if item in ranks:
            raise ValueError(f"{which} list names {item!r} twice (positions {ranks[item]} and {position})")
        ranks[item] = position
    return ranks


def _items(lexical: Ranked, vector: Ranked, scores: dict) -> list[FusedItem]:
    lex_rank = _ranks(lexical, "lexical")
    vec_rank = _ranks(vector, "vector")
    sims = {item: sim for item, sim in vector}
    out = []
    for item in {**dict.fromkeys(i for i, _ in vector), **dict.fromkeys(i for i, _ in lexical)}:
        sim = sims.get(item)
        out.append(
            FusedItem(
                id=item,
                score=round_half_away(scores.get(item, 0.0), FUSED_DIGITS),
                lexical_rank=lex_rank.get(item, 0),
                vector_rank=vec_rank.get(item, 0),
                vector_sim=None if sim is None else round_half_away(sim, SCORE_DIGITS),
            )
        )
    return out


def rrf(
    lexical: Ranked,
    vector: Ranked,
    k: int = 60,
    w_lex: float = 1.0,
    w_vec: float = 1.0,
    *,
    candidates: int | None = None,
) -> list[FusedItem]:
    """Reciprocal-rank fusion: ``w_lex/(k + lexical_rank) + w_vec/(k + vector_rank)``.

    A term counts only when the item is in that list; the sum is rounded to 9 decimals.
    """
    lexical, vector = _cut(lexical, candidates), _cut(vector, candidates)
    kf = float(k)
    scores: dict = {}
    for position, (item, _s) in enumerate(lexical, start=1):
        scores[item] = 0.0 + w_lex / (kf + position)
    for position, (item, _s) in enumerate(vector, start=1):
        scores[item] = scores.get(item, 0.0) + w_vec / (kf + position)
    return _items(lexical, vector, scores)


def _normaliser(values: list[float]):
    if not values:
        return lambda _s: 0.0
    lo, hi = min(values), max(values)
    if hi == lo:
        return lambda _s: 1.0
    span = hi - lo
    return lambda s: (s - lo) / span


def weighted(
    lexical: Ranked,
    vector: Ranked,
    w_lex: float = 1.0,
    w_vec: float = 1.0,
    *,
    candidates: int | None = None,
) -> list[FusedItem]:
    """Weighted fusion of min-max normalised scores.

    Each list's own scores map to ``[0, 1]`` (all equal -> every member 1); an item
    scores ``a*lexnorm + (1-a)*vecnorm`` with ``a = w_lex/(w_lex + w_vec)``, a term
    counting only when the item is in that list; rounded to 9 decimals.
    """
    if w_lex + w_vec == 0:
        raise ValueError("weighted fusion needs w_lex + w_vec > 0")
    lexical, vector = _cut(lexical, candidates), _cut(vector, candidates)
    a = w_lex / (w_lex + w_vec)
    lex_norm = _normaliser([s for _, s in lexical])
    vec_norm = _normaliser([s for _, s in vector])
    scores: dict = {}
    for item, s in lexical:
        scores[item] = 0.0 + a * lex_norm(s)
    for item, s in vector:
        scores[item] = scores.get(item, 0.0) + (1 - a) * vec_norm(s)
    return _items(lexical, vector, scores)


#: With equal weights, the lexical bonus of the best lexical match, in cosine units.
#: Chosen on two development sets (MetaTool and real SKILL.md skills, docs/ranking-quality.md):
#: MetaTool is flat between 0.06 and 0.12, real skills gain up to 0.16 and more.
BLEND_SCALE = 0.12


def blend_bonus_scale(w_lex: float = 1.0, w_vec: float = 1.0) -> float:
    """The lexical bonus of the top lexical match: ``BLEND_SCALE * w_lex / w_vec``."""
    if w_vec <= 0 or w_lex < 0:
        raise ValueError(f"blend fusion needs w_vec > 0 and w_lex >= 0, got {w_lex}, {w_vec}")
    return BLEND_SCALE * w_lex / w_vec


def blend(
    lexical: Ranked,
    vector: Ranked,
    w_lex: float = 1.0,
    w_vec: float = 1.0,
    *,
    candidates: int | None = None,
    cosines: dict | None = None,
) -> list[FusedItem]:
    """Score-aware fusion: ``cosine + scale * bm25 / top_bm25`` with ``scale = BLEND_SCALE * w_lex / w_vec``.

    ``lexical`` and ``vector`` are the complete ranked lists (every lexical match, every
    scored vector); ``candidates`` picks the candidate set, the union of the first
    ``candidates`` entries of each, as in RRF.  A candidate is then scored with what is
    known about it, not with its rank: its cosine (an item without one, stale or missing,
    counts as the least similar item of the vector list, 0 when that list is empty) plus
    its BM25F score divided by the best BM25F score, times ``scale``.  So the cosine
    decides among semantically close skills, and a strong lexical match lifts a skill by
    at most ``scale``.  Ranks reported are positions in the complete lists; the sum is
    rounded to 9 decimals.  ``cosines`` (id -> cosine), when given, is what the items
    report as ``vector_sim`` while ``vector`` holds the similarity that ranks (the ranker
    passes centred similarities, see :mod:`skillsift.ranker.centring`).
    """
    bonus = blend_bonus_scale(w_lex, w_vec)
    lex_rank = _ranks(lexical, "lexical")
    vec_rank = _ranks(vector, "vector")
    chosen = dict.fromkeys(item for item, _ in _cut(vector, candidates))
    chosen.update(dict.fromkeys(item for item, _ in _cut(lexical, candidates)))
    sims = dict(vector)
    shown = sims if cosines is None else cosines
    lex_scores = dict(lexical)
    floor = min(sims.values()) if sims else 0.0
    top = max(lex_scores.values()) if lex_scores else 0.0
    out = []
    for item in chosen:
        sim = sims.get(item)
        score = floor if sim is None else sim
        lex = lex_scores.get(item, 0.0)
        if top > 0 and lex > 0:
            score += bonus * (lex / top)
        out.append(
            FusedItem(
                id=item,
                score=round_half_away(score, FUSED_DIGITS),
                lexical_rank=lex_rank.get(item, 0),
                vector_rank=vec_rank.get(item, 0),
                vector_sim=None if shown.get(item) is None else round_half_away(shown[item], SCORE_DIGITS),
            )
        )
    return out


def vector_only(vector: Ranked, *, candidates: int | None = None) -> list[FusedItem]:
    """Vector-mode items: the score is the cosine rounded to 6 decimals (no lexical list)."""
    vector = _cut(vector, candidates)
    return _items((), vector, {item: round_half_away(sim, SCORE_DIGITS) for item, sim in vector})


def sort_fused(items: Sequence[FusedItem], pinned: str | None = None) -> list[FusedItem]:
    """Result order: the pinned id first (if present), then score descending, then id ascending."""
    return sorted(items, key=lambda it: (it.id != pinned, -it.score, it.id))
