"""Fusion of the lexical and vector candidate lists (docs/configuration.md, ``fusion``).

Inputs are ranked lists of ``(id, score)``: the lexical list carries BM25F scores,
the vector list raw cosine similarities, both already in rank order and truncated
to ``candidates`` (pass ``candidates=`` to have the functions cut them).  Outputs
are unsorted :class:`FusedItem` lists; :func:`sort_fused` puts them in result order.

:func:`rrf` and :func:`weighted` are the reference's.  skillsift's own fusions are defined
here over complete lists: :func:`blend` (cosine plus a bounded lexical bonus,
docs/ranking-quality.md), the one named reference, and :func:`zscore`.  The ranker never calls
those two; its fast paths (:mod:`~skillsift.ranker.blend_exact`, :mod:`~skillsift.ranker.blend_top`,
:mod:`~skillsift.ranker.request_screen`) compute the same items from the pieces here
(:class:`BlendRequest`, :func:`with_lexical_bonus`, :func:`zscore_scores`,
:func:`blend_bonus_scale`), and tests/ranker/test_fusion_differential.py holds every one of them
to these definitions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from ..rounding import FUSED_DIGITS, SCORE_DIGITS, round_half_away

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


@dataclass(frozen=True)
class BlendRequest:
    """What the blend's fast paths need beside the similarities and the lexical list.

    ``query`` (for the exact-id pin), ``candidates`` (entries kept per list), ``bonus`` (the
    lexical bonus of the top lexical match, :func:`blend_bonus_scale`), ``limit`` (the hits the
    caller keeps; None or < 1: all) and ``pin(query, skill indexes)``, the skill among them whose
    id the query names (:meth:`~skillsift.ranker.model.pin.PinIndex.pin_position`).  With ``fusion``
    ``"zscore"`` the candidates are the same and scored by :func:`zscore_scores` instead.
    """

    query: str
    candidates: int
    bonus: float
    limit: int | None
    pin: Callable[[str, Collection[int]], int | None]
    fusion: str = "blend"  # or "zscore": the candidates' z-scores (:func:`zscore_scores`)
    lexical_weight: float = 0.0  # zscore: the weight of the lexical z-score (:func:`zscore_lexical_weight`)
    # zscore-mnz (fusion "zscore" with these set, :func:`mnz_extra`): the bonus of a candidate in both lists'
    # first mnz_depth, and per skill index what the known requests' lexical channel adds (its weight times
    # its z-score); None: plain zscore
    mnz: float = 0.0
    mnz_depth: int = 0
    request_words: Mapping[int, float] | None = None

    def __post_init__(self) -> None:
        if self.candidates < 1:
            raise ValueError(f"candidates must be at least 1, got {self.candidates}")


def with_lexical_bonus(similarity: float, bonus: float, points: float, top: float) -> float:
    """A blend candidate's score before rounding: its similarity plus ``bonus * points / top``
    when it is a lexical match (``points > 0``) of a query with one (``top > 0``), else the
    similarity unchanged.  The reference :func:`blend` and every fast path
    compute exactly this (``blend_top`` in numpy, the same operations in the same order)."""
    if top > 0 and points > 0:
        return similarity + bonus * (points / top)
    return similarity


#: zscore: the lexical z-score's weight is ``(ZSCORE_BASE + ZSCORE_LENGTH * min(1, terms / ZSCORE_TERMS))``
#: times the share of the query's terms its top lexical match holds: 0.5 for a one-word query whose
#: word the match holds, 1.2 from four words on (chosen on half A of both development sets,
#: docs/ranking-quality.md, "Fusion channels").
ZSCORE_BASE = 0.5
ZSCORE_LENGTH = 0.7
ZSCORE_TERMS = 4


def zscore_trust(coverage: float, terms: int) -> float:
    """How far the zscore fusion trusts the lexical list of a query with ``terms`` distinct terms
    whose top lexical match holds the share ``coverage`` of them: ``(ZSCORE_BASE + ZSCORE_LENGTH *
    min(1, terms / ZSCORE_TERMS)) * coverage``.  A query whose words a skill holds leans on BM25F, a
    query in other words than the skills' on the cosine; a longer query's words say more than one
    word does."""
    return (ZSCORE_BASE + ZSCORE_LENGTH * min(1.0, terms / ZSCORE_TERMS)) * coverage


def zscore_lexical_weight(coverage: float, terms: int, w_lex: float = 1.0, w_vec: float = 1.0) -> float:
    """The zscore fusion's lexical weight: ``zscore_trust(coverage, terms) * w_lex / w_vec``.

    ``coverage`` is the share of the query's terms that its top lexical match holds
    (:meth:`~skillsift.ranker.lexical_hits.LexicalList.coverage`), ``terms`` the number of the
    query's distinct terms (:meth:`~skillsift.ranker.lexical.LexicalIndex.query_terms`).
    """
    if w_vec <= 0 or w_lex < 0:
        raise ValueError(f"zscore fusion needs w_vec > 0 and w_lex >= 0, got {w_lex}, {w_vec}")
    return zscore_trust(coverage, terms) * w_lex / w_vec


#: The fusions scored by :func:`zscore_scores`: ``zscore`` and ``zscore-mnz`` (zscore plus :func:`mnz_extra`).
ZSCORE_FUSIONS = ("zscore", "zscore-mnz")

#: zscore-mnz: the known requests' lexical channel weighs ``REQUEST_LEXICAL * max(0, requests' coverage - coverage)``
#: (:func:`request_words_weight`), chosen on half A of both development sets with the bonus of ``MNZ_BONUS`` for
#: a candidate in both lists' first ``MNZ_DEPTH`` (bench/results/2026-12-07-fusion-quality.md).
MNZ_BONUS = 0.25
MNZ_DEPTH = 50
REQUEST_LEXICAL = 0.6


def request_words_weight(request_coverage: float, coverage: float, weight: float = REQUEST_LEXICAL) -> float:
    """The weight of the known requests' lexical z-score: ``weight`` times the share of the query's terms
    the requests' top match holds beyond the share the skills' own top lexical match holds (0 when the
    requests hold no more of the query than the skills' text does: then they add no lexical evidence)."""
    return weight * max(0.0, request_coverage - coverage)


def request_words(first: Sequence[tuple[int, float]], weight: float) -> dict[int, float]:
    """What the requests' lexical channel adds per skill: ``weight`` times the z-score of its BM25 over
    its requests among ``first`` (the channel's first matches, ``(skill, score)``); {} when ``weight``
    is 0."""
    if not weight or not first:
        return {}
    z = _standardised([score for _, score in first])
    return {skill: weight * value for (skill, _), value in zip(first, z, strict=True)}


def mnz_extra(request: BlendRequest, skill: int, both: bool) -> float:
    """zscore-mnz's addition to a candidate's zscore score: ``request.mnz`` when it is in both lists'
    first ``request.mnz_depth``, plus its requests' lexical share."""
    words = request.request_words or {}
    return (request.mnz if both else 0.0) + words.get(skill, 0.0)


def _mean_sd(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    mean = math.fsum(values) / n
    return mean, math.sqrt(math.fsum([(v - mean) * (v - mean) for v in values]) / n)


def _standardised(values: Sequence[float]) -> list[float]:
    """``(v - mean) / sd`` of each value (population sd; all 0.0 when sd is 0), with exact sums
    (``math.fsum``), so the result does not depend on the order the values come in."""
    n = len(values)
    if n == 0:
        return []
    mean, sd = _mean_sd(values)
    if not sd > 0:
        return [0.0] * n
    return [(v - mean) / sd for v in values]


def similarity_spread(similarities: Sequence[float]) -> float:
    """The sd :func:`zscore_scores` divides the candidates' ``similarities`` by (0.0 for none): what
    one unit of similarity is worth in a zscore score, so a known request's lift of ``x`` adds
    ``x / spread`` (:func:`channel_shares`)."""
    return _mean_sd(similarities)[1] if len(similarities) else 0.0


def zscore_scores(similarities: Sequence[float], lexical: Sequence[float | None], weight: float,
                  extra: Sequence[float] | None = None) -> list[float]:
    """The zscore fusion's scores of the candidates, before rounding.

    ``similarities``: each candidate's similarity (the least of the vector list for one without
    a vector, as in blend); ``lexical``: its BM25F score when it is in the lexical list's cut,
    None otherwise.  A candidate scores the z-score of its similarity among the candidates plus
    ``weight`` times the z-score of its BM25F score among the lexical cut (0 outside it).  Both
    z-scores are per query, so neither list's scale (cosines near 0.3, BM25F growing with the
    catalog and the query) decides; every fast path and the reference call this one function.
    ``extra`` (zscore-mnz, :func:`mnz_extra`): each candidate's addition, added last.
    """
    z_vec = _standardised(list(similarities))
    members = [v for v in lexical if v is not None]
    z_members = iter(_standardised(members))
    z_lex = [0.0 if v is None else next(z_members) for v in lexical]
    if extra is not None:
        return [v + weight * x + e for v, x, e in zip(z_vec, z_lex, extra, strict=True)]
    return [v + weight * x for v, x in zip(z_vec, z_lex, strict=True)]


def channel_shares(request: BlendRequest, score: float, points: float | None, in_cut: bool, cut: Sequence[float],
                   lift: float | None = None, spread: float | None = None,
                   extra: tuple[float, float] | None = None) -> tuple[tuple[str, float], ...]:
    """Each channel's share of a blend or zscore ``score`` (``--explain``), rounded to 6 decimals.

    ``points``: the skill's BM25F score (None without a lexical match); ``in_cut``: whether the
    skill is among the lexical list's first ``candidates``, whose BM25F scores are ``cut`` (best
    first); ``lift``: what its known requests added to its similarity (blend with known requests;
    None without them).  The lexical share is what the fusion adds for BM25F (blend: ``bonus *
    points / top``; zscore: its weight times the z-score of ``points`` among ``cut``, 0 outside
    it); the rest is the vector's, split into the description's and the known requests'
    (blend: ``lift``; zscore: ``lift / spread``, ``spread`` being the sd its similarities were
    standardised by, :func:`similarity_spread`).  ``extra`` (zscore-mnz): the hit's ``(agreement,
    request words)``, the bonus of being in both lists' first ``mnz_depth`` and the known requests'
    lexical share (:func:`mnz_extra`), two more channels.  The shares add up to the score within rounding.
    """
    top = cut[0] if cut else 0.0
    if request.fusion == "zscore":
        members = list(cut)
        z = 0.0
        if in_cut and points is not None and points in members:  # equal scores have equal z-scores
            z = _standardised(members)[members.index(points)]
        lexical = request.lexical_weight * z
        more: tuple[tuple[str, float], ...] = ()
        added = 0.0
        if extra is not None:
            added = extra[0] + extra[1]
            more = (("agreement", round(extra[0], 6)), ("request words", round(extra[1], 6)))
        if lift is not None and spread is not None:
            requests = lift / spread if spread > 0 else 0.0
            return (("description", round(score - lexical - requests - added, 6)), ("requests", round(requests, 6)),
                    ("lexical", round(lexical, 6)), *more)
        return (("vector", round(score - lexical - added, 6)), ("lexical", round(lexical, 6)), *more)
    lexical = with_lexical_bonus(0.0, request.bonus, points or 0.0, top)
    vector = score - lexical
    if lift is not None:
        return (("description", round(vector - lift, 6)), ("requests", round(lift, 6)),
                ("lexical", round(lexical, 6)))
    return (("vector", round(vector, 6)), ("lexical", round(lexical, 6)))


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
        score = with_lexical_bonus(floor if sim is None else sim, bonus, lex_scores.get(item, 0.0), top)
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


def zscore(
    lexical: Ranked,
    vector: Ranked,
    weight: float,
    *,
    candidates: int,
    cosines: dict | None = None,
    mnz: float = 0.0,
    mnz_depth: int = 0,
    words: Mapping[str, float] | None = None,
) -> list[FusedItem]:
    """The zscore fusion over complete lists: the candidates of :func:`blend` (the first
    ``candidates`` of each list), each scoring the z-score of its similarity among the candidates
    (the least similarity of the vector list without one) plus ``weight`` times the z-score of its
    BM25F score among the lexical list's first ``candidates`` (0 outside them).  Means and
    variances are population ones with exact sums; a spread of 0 gives z-scores of 0.

    zscore-mnz (``words`` given, id -> what the known requests' lexical channel adds,
    :func:`request_words`): plus ``mnz`` for a candidate in both lists' first ``min(mnz_depth,
    candidates)``, plus its ``words`` value, added last."""
    z = _standardised
    lex_rank = _ranks(lexical, "lexical")
    vec_rank = _ranks(vector, "vector")
    chosen = list(dict.fromkeys([*(i for i, _ in vector[:candidates]), *(i for i, _ in lexical[:candidates])]))
    sims = dict(vector)
    shown = sims if cosines is None else cosines
    floor = min(sims.values()) if sims else 0.0
    cut = dict(lexical[:candidates])
    z_vec = z([sims.get(i, floor) for i in chosen])
    z_cut = dict(zip(cut, z(list(cut.values())), strict=True))
    depth = min(mnz_depth, candidates)
    both = {i for i, _ in vector[:depth]} & {i for i, _ in lexical[:depth]}

    def score(i, zv):
        if words is None:
            return zv + weight * z_cut.get(i, 0.0)
        return zv + weight * z_cut.get(i, 0.0) + ((mnz if i in both else 0.0) + words.get(i, 0.0))

    return [FusedItem(id=i, score=round_half_away(score(i, zv), FUSED_DIGITS),
                      lexical_rank=lex_rank.get(i, 0), vector_rank=vec_rank.get(i, 0),
                      vector_sim=None if shown.get(i) is None else round_half_away(shown[i], SCORE_DIGITS))
            for i, zv in zip(chosen, z_vec, strict=True)]


def blend_bonus_scale(w_lex: float = 1.0, w_vec: float = 1.0) -> float:
    """The lexical bonus of the top lexical match: ``BLEND_SCALE * w_lex / w_vec``."""
    if w_vec <= 0 or w_lex < 0:
        raise ValueError(f"blend fusion needs w_vec > 0 and w_lex >= 0, got {w_lex}, {w_vec}")
    return BLEND_SCALE * w_lex / w_vec


def vector_only(vector: Ranked, *, candidates: int | None = None) -> list[FusedItem]:
    """Vector-mode items: the score is the cosine rounded to 6 decimals (no lexical list)."""
    vector = _cut(vector, candidates)
    return _items((), vector, {item: round_half_away(sim, SCORE_DIGITS) for item, sim in vector})


def sort_fused(items: Sequence[FusedItem], pinned: str | None = None) -> list[FusedItem]:
    """Result order: the pinned id first (if present), then score descending, then id ascending."""
    return sorted(items, key=lambda it: (it.id != pinned, -it.score, it.id))
