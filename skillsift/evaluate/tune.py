"""Choosing the hybrid setting from labelled cases: pure scoring and selection (numpy, no I/O).

A *setting* is what the ``[search]`` keys of hybrid search say: the fusion, its lexical
weight, the embedded fields and the candidate count.  Every setting is scored on the same
signals, computed once: the BM25F score of every (case, skill) pair, and the plain and the
centred cosine of every (case, skill) pair for each embedded-field variant.  The fusions
are the ranker's (:mod:`skillsift.ranker.model.fusion`): the candidate set is the union of the
first ``candidates`` of the lexical and of the vector list; ties break by name.  What
this does not model: the exact-id pin and ``vector_min_sim`` (only positive cases are
scored).  See docs/ranking-quality.md ("tune").

Selection is k-fold cross-validation with fixed folds: case ``i`` belongs to fold
``perm[i] % k`` for a permutation drawn from ``numpy.random.default_rng(seed)``.  For
each fold the best setting on the other folds (highest MRR, then top1, then the order of
the grid) ranks the held-out fold; those held-out results are the honest estimate of
what tuning gives, and their paired difference against the current setting decides
whether a change is worth writing.

``[search] example_weight`` is chosen the same way for one setting (:func:`tune_example_weight`):
the cosines are lifted by the cases' known-request evidence (:func:`example_evidence`, which
holds out a case's own evidence by the rule of eval and ci, :mod:`skillsift.evaluate.holdout`)
at each weight of :data:`EXAMPLE_WEIGHTS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..ranker.centring import CENTRE_SHRINK, centre
from ..ranker.lexical import LexicalIndex
from ..ranker.model.fusion import BLEND_SCALE, MNZ_BONUS, MNZ_DEPTH, ZSCORE_TERMS, zscore_trust
from ..ranker.model.lift import REDUCTION, combine, example_best
from .holdout import FOLD_SEED, FOLDS, Holdout, fold_of  # noqa: F401  (fold_of: the names others import from here)
from .intervals import interval, paired

NAME_FREE = ("description", "triggers", "keywords")
ALL_FIELDS = ("name", "triggers", "keywords", "description")
# Up to a bonus of 0.72: on the real-skills development set BM25F alone beats the default blend, and
# its half A prefers bonuses of 0.36 to 0.72 (docs/ranking-quality.md, "Fusion channels").
BLEND_WEIGHTS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
RRF_WEIGHTS = (0.5, 1.0)
ZSCORE_WEIGHTS = (0.5, 1.0, 2.0)
MNZ_BONUSES = (0.25, 0.5)  # zscore-mnz: the bonus of a candidate in both lists' first mnz_depth
CANDIDATES = (50, 100)


@dataclass(frozen=True)
class Setting:
    """One hybrid setting: ``fusion`` auto (cosine only), blend, rrf, weighted, zscore or zscore-mnz (zscore plus
    ``mnz`` in both lists' first ``mnz_depth``; its known requests' words are not modelled, no more than the pin)."""

    fusion: str
    fields: tuple[str, ...] = ALL_FIELDS
    weight_lexical: float = 1.0
    candidates: int = 50
    rrf_k: int = 60
    mnz: float = MNZ_BONUS
    mnz_depth: int = MNZ_DEPTH

    def label(self) -> str:
        fields = "name-free" if set(self.fields) == set(NAME_FREE) else (
            "all fields" if set(self.fields) == set(ALL_FIELDS) else "+".join(self.fields))
        if self.fusion == "auto":
            core = "cosine only"
        elif self.fusion == "blend":
            core = f"blend w={self.weight_lexical:g} (bonus {BLEND_SCALE * self.weight_lexical:.2f})"
        elif self.fusion == "rrf":
            core = f"rrf k={self.rrf_k} w={self.weight_lexical:g}"
        elif self.fusion == "zscore":
            core = f"zscore w={self.weight_lexical:g}"
        elif self.fusion == "zscore-mnz":
            core = f"zscore-mnz w={self.weight_lexical:g} mnz={self.mnz:g}"
        else:
            core = f"weighted w={self.weight_lexical:g}"
        return f"{core}, {fields}, candidates {self.candidates}"

    def search_keys(self) -> dict:
        """The ``[search]`` keys that select this setting (``weights`` as a table)."""
        mnz = {"mnz_bonus": float(self.mnz)} if self.fusion == "zscore-mnz" else {}
        return {"mode": "hybrid", "fusion": self.fusion, "fields": list(self.fields), "candidates": self.candidates,
                "rrf_k": self.rrf_k, **mnz, "weights": {"lexical": float(self.weight_lexical), "vector": 1.0}}

    def to_dict(self) -> dict:
        return {"label": self.label(), **self.search_keys()}


def grid(fields_variants: Sequence[tuple[str, ...]] = (ALL_FIELDS, NAME_FREE),
         candidates: Sequence[int] = CANDIDATES) -> list[Setting]:
    """The settings ``tune`` compares, in a fixed order (ties go to the earlier one)."""
    out = []
    for fields in fields_variants:
        for cand in candidates:
            out.append(Setting("auto", tuple(fields), candidates=cand))
            out.extend(Setting("blend", tuple(fields), w, cand) for w in BLEND_WEIGHTS)
            out.extend(Setting("rrf", tuple(fields), w, cand) for w in RRF_WEIGHTS)
            out.append(Setting("weighted", tuple(fields), 1.0, cand))
            out.extend(Setting("zscore", tuple(fields), w, cand) for w in ZSCORE_WEIGHTS)
            out.extend(Setting("zscore-mnz", tuple(fields), w, cand, mnz=m)
                       for w in ZSCORE_WEIGHTS for m in MNZ_BONUSES)
    return out


@dataclass
class Signals:
    """What every setting is scored from: ``lexical`` (cases x skills BM25F, 0 = no match),
    ``cosine[fields]`` (plain cosines), ``tie`` (each skill's position in name order) and
    ``expected`` (per case, the skill indexes that count as right); ``coverage`` (per case, the
    share of its query terms its top lexical match holds) and ``terms`` (per case, its distinct query
    terms; None: long): the zscore fusion's lexical weight (:func:`~skillsift.ranker.model.fusion.zscore_trust`)."""

    lexical: np.ndarray
    cosine: dict
    tie: np.ndarray
    expected: list
    _centred: dict = field(default_factory=dict)
    docs: dict = field(default_factory=dict)  # fields -> document matrix (for the centred cosines)
    queries: np.ndarray | None = None
    coverage: np.ndarray | None = None
    terms: np.ndarray | None = None

    def centred(self, fields) -> np.ndarray:
        key = tuple(fields)
        if key not in self._centred:
            docs = np.asarray(self.docs[key], dtype=np.float64)
            c = centre(docs, range(len(docs)), CENTRE_SHRINK).astype(np.float64)
            self._centred[key] = np.asarray(self.queries, dtype=np.float64) @ c.T
        return self._centred[key]


def use_best_piece(sig: Signals, pieces: dict) -> None:
    """Give the long queries of ``sig`` their best-piece cosines, as the ranker scores them.

    ``pieces``: case row -> its pieces' normalised vectors (pieces x dims); each skill's plain
    and centred cosines on that row become the largest over the pieces
    (docs/ranking-quality.md, "Long queries").
    """
    if not pieces:
        return
    for fields, docs in sig.docs.items():
        d = np.asarray(docs, dtype=np.float64)
        c = centre(d, range(len(d)), CENTRE_SHRINK).astype(np.float64)
        centred = sig.centred(fields)
        for row, vectors in pieces.items():
            pv = np.asarray(vectors, dtype=np.float64)
            sig.cosine[fields][row] = (pv @ d.T).max(axis=0)
            centred[row] = (pv @ c.T).max(axis=0)


def signals_from(lexical, docs: dict, queries, names: Sequence[str], expected) -> Signals:
    """Signals from a lexical score matrix, document matrices per fields and query vectors."""
    q = np.asarray(queries, dtype=np.float64)
    cosine = {tuple(f): q @ np.asarray(m, dtype=np.float64).T for f, m in docs.items()}
    order = sorted(range(len(names)), key=lambda i: names[i])
    tie = np.empty(len(names), dtype=np.int64)
    tie[np.asarray(order, dtype=np.int64)] = np.arange(len(names))
    return Signals(np.asarray(lexical, dtype=np.float64), cosine, tie, [list(e) for e in expected],
                   docs={tuple(f): m for f, m in docs.items()}, queries=q)


def _top_mask(scores: np.ndarray, tie: np.ndarray, k: int, eligible=None) -> np.ndarray:
    """Per row, the first ``k`` items by score descending then name (only ``eligible`` ones)."""
    q, n = scores.shape
    if k >= n and eligible is None:
        return np.ones((q, n), bool)
    s = scores if eligible is None else np.where(eligible, scores, -np.inf)
    order = np.lexsort((np.broadcast_to(tie, (q, n)), -s), axis=1)[:, :k]
    mask = np.zeros((q, n), bool)
    np.put_along_axis(mask, order, True, axis=1)
    if eligible is not None:
        mask &= eligible
    return mask


def _ranks_in_list(scores: np.ndarray, tie: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """1-based rank of each masked item among the masked items of its row (0 elsewhere)."""
    q, n = scores.shape
    s = np.where(mask, scores, -np.inf)
    order = np.lexsort((np.broadcast_to(tie, (q, n)), -s), axis=1)
    ranks = np.empty((q, n), dtype=np.int64)
    np.put_along_axis(ranks, order, np.broadcast_to(np.arange(1, n + 1), (q, n)), axis=1)
    return np.where(mask, ranks, 0)


def fused(setting: Setting, sig: Signals) -> tuple[np.ndarray, np.ndarray]:
    """(scores, returned) of ``setting`` for every (case, skill): what the ranker ranks."""
    cos = sig.cosine[tuple(setting.fields)]
    lex = sig.lexical
    cand = setting.candidates
    matched = lex > 0
    if setting.fusion == "auto":
        return np.round(cos, 6), _top_mask(cos, sig.tie, cand)
    if setting.fusion in ("zscore", "zscore-mnz"):
        ranked = sig.centred(setting.fields)
        lex_cut = _top_mask(lex, sig.tie, cand, matched)
        chosen = _top_mask(ranked, sig.tie, cand) | lex_cut
        share = np.zeros(len(lex)) if sig.coverage is None else np.asarray(sig.coverage, dtype=np.float64)
        terms = np.full(len(lex), ZSCORE_TERMS) if sig.terms is None else np.asarray(sig.terms)
        trust = np.asarray([zscore_trust(c, t) for c, t in zip(share.tolist(), terms.tolist(), strict=True)],
                           dtype=np.float64)
        weight = setting.weight_lexical * trust[:, None]
        score = _standardised(ranked, chosen) + weight * _standardised(lex, lex_cut)
        if setting.fusion == "zscore-mnz":  # + mnz in both lists' first mnz_depth
            depth = min(setting.mnz_depth, cand)
            score = score + setting.mnz * (_top_mask(ranked, sig.tie, depth) & _top_mask(lex, sig.tie, depth, matched))
        return np.round(score, 9), chosen
    if setting.fusion == "blend":
        ranked = sig.centred(setting.fields)
        chosen = _top_mask(ranked, sig.tie, cand) | _top_mask(lex, sig.tie, cand, matched)
        top = lex.max(axis=1, keepdims=True)
        top[top <= 0] = 1.0
        score = ranked + BLEND_SCALE * setting.weight_lexical * np.where(matched, lex / top, 0.0)
        return np.round(score, 9), chosen
    vec_mask = _top_mask(cos, sig.tie, cand)
    lex_mask = _top_mask(lex, sig.tie, cand, matched)
    if setting.fusion == "rrf":
        k = float(setting.rrf_k)
        rl, rv = _ranks_in_list(lex, sig.tie, lex_mask), _ranks_in_list(cos, sig.tie, vec_mask)
        score = np.where(lex_mask, setting.weight_lexical / (k + rl), 0.0) + np.where(vec_mask, 1.0 / (k + rv), 0.0)
        return np.round(score, 9), lex_mask | vec_mask
    if setting.fusion == "weighted":
        a = setting.weight_lexical / (setting.weight_lexical + 1.0)

        def norm(values, mask):
            lo = np.where(mask, values, np.inf).min(axis=1, keepdims=True)
            hi = np.where(mask, values, -np.inf).max(axis=1, keepdims=True)
            span = hi - lo
            safe = np.where(span > 0, span, 1.0)
            out = np.where(span > 0, (values - lo) / safe, 1.0)
            return np.where(mask, out, 0.0)

        score = a * norm(lex, lex_mask) + (1 - a) * norm(cos, vec_mask)
        return np.round(score, 9), lex_mask | vec_mask
    raise ValueError(f"unknown fusion {setting.fusion!r}")


def _standardised(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per row, the z-score of each masked value among the masked values of its row (0 elsewhere,
    and 0 for a row whose masked values do not spread)."""
    count = np.maximum(mask.sum(axis=1, keepdims=True), 1)
    mean = np.where(mask, values, 0.0).sum(axis=1, keepdims=True) / count
    sd = np.sqrt(np.where(mask, (values - mean) ** 2, 0.0).sum(axis=1, keepdims=True) / count)
    return np.where(mask & (sd > 0), (values - mean) / np.where(sd > 0, sd, 1.0), 0.0)


def coverage(queries: Sequence[str], lexical: np.ndarray, tie: np.ndarray, terms) -> np.ndarray:
    """Per case, the share of its query terms held by its top lexical match (0 without one).

    ``lexical``: cases x skills BM25F (0 = no match); ``terms(i)``: skill ``i``'s terms
    (:meth:`~skillsift.ranker.lexical_hits.LexicalHits.terms`); ties break by name (``tie``).
    """

    out = np.zeros(len(queries))
    for qi, query in enumerate(queries):
        row = lexical[qi]
        if not len(row) or row.max() <= 0:
            continue
        best = np.flatnonzero(row == row.max())
        top = int(best[np.argmin(tie[best])])
        wanted = LexicalIndex.query_terms(query)
        if wanted:
            held = terms(top)
            out[qi] = sum(1 for t in wanted if t in held) / len(wanted)
    return out


def lexical_only(sig: Signals) -> tuple[np.ndarray, np.ndarray]:
    return sig.lexical, sig.lexical > 0


def ranks(scores: np.ndarray, returned: np.ndarray, sig: Signals) -> np.ndarray:
    """Per case, the 1-based rank of its best-ranked expected skill (0 = not returned)."""
    out = np.zeros(len(sig.expected), dtype=np.int64)
    for qi, expected in enumerate(sig.expected):
        row, ok = scores[qi], returned[qi]
        best = 0
        for t in expected:
            if not ok[t]:
                continue
            ahead = ok & ((row > row[t]) | ((row == row[t]) & (sig.tie < sig.tie[t])))
            r = int(np.count_nonzero(ahead)) + 1
            best = r if best == 0 else min(best, r)
        out[qi] = best
    return out


@dataclass(frozen=True)
class Series:
    """Per-case reciprocal rank, top1 and hit@k of one ranking."""

    rr: np.ndarray
    top1: np.ndarray
    hit: np.ndarray

    @classmethod
    def of(cls, r: np.ndarray, k: int = 5) -> Series:
        return cls(np.where(r > 0, 1.0 / np.maximum(r, 1), 0.0), (r == 1).astype(float),
                   ((r > 0) & (r <= k)).astype(float))

    def summary(self) -> dict:
        mrr_iv, top_iv = interval(self.rr), interval(self.top1)
        return {"top1": _r4(self.top1.mean()), "top1_ci": [top_iv.low, top_iv.high],
                "mrr": _r4(self.rr.mean()), "mrr_ci": [mrr_iv.low, mrr_iv.high],
                "hit_at_k": _r4(self.hit.mean())}

    def versus(self, base: Series) -> dict:
        """Paired difference ``self - base`` with 95% intervals: {"mrr": [d, lo, hi], "top1": ...}."""
        d = paired({"mrr": list(base.rr), "top1": list(base.top1)}, {"mrr": list(self.rr), "top1": list(self.top1)})
        return {name: [v.diff, v.low, v.high] for name, v in d.items()}


def _r4(x) -> float:
    return float(f"{float(x):.4f}")


def series_of(setting: Setting | None, sig: Signals, k: int = 5) -> Series:
    """The series of ``setting`` (None = lexical ranking)."""
    scores, returned = lexical_only(sig) if setting is None else fused(setting, sig)
    return Series.of(ranks(scores, returned, sig), k)


def _best(candidates: Sequence[Series], mask) -> int:
    """Index of the best series on ``mask``: highest MRR, then top1, then the earlier one."""
    best, key = 0, None
    for i, s in enumerate(candidates):
        k = (round(float(s.rr[mask].mean()), 12), round(float(s.top1[mask].mean()), 12))
        if key is None or k > key:
            best, key = i, k
    return best


@dataclass
class TuneResult:
    settings: list
    series: list  # Series per setting, all cases
    folds: np.ndarray
    chosen_per_fold: list  # index of the setting chosen on the other folds, per fold
    held_out: Series  # each case ranked by the setting chosen without its fold
    winner: int  # the setting chosen on all cases
    current: int  # index of the current setting in ``settings``
    cosine: int  # index of cosine only with the current fields (auto)

    def change(self) -> bool:
        """True when the winner differs from the current setting and tuning's held-out MRR beats it
        with a paired 95% interval that excludes 0."""
        if self.winner == self.current:
            return False
        low = self.held_out.versus(self.series[self.current])["mrr"][1]
        return low > 0


def cross_validate(settings: Sequence[Setting], sig: Signals, current: int, cosine: int, *, k: int = 5,
                   folds: int = FOLDS, seed: int = FOLD_SEED, progress=None) -> TuneResult:
    """Score every setting, choose per fold on the other folds, and on all cases."""
    all_series = []
    for setting in settings:
        all_series.append(series_of(setting, sig, k))
        if progress is not None:
            progress(1)
    fold, chosen, held, winner = _select(all_series, len(sig.expected), current, folds, seed)
    return TuneResult(list(settings), all_series, fold, chosen, held, winner, current, cosine)


def _select(all_series: Sequence[Series], n: int, current: int, folds: int, seed: int):
    """(folds, chosen per fold, held-out series, winner on all cases) of a choice among ``all_series``."""
    fold = fold_of(n, folds, seed)
    rr, top1, hit = np.zeros(n), np.zeros(n), np.zeros(n)
    chosen = []
    for f in range(int(fold.max()) + 1 if n else 0):
        test = fold == f
        train = ~test if (~test).any() else test
        best = _best(all_series, train)
        chosen.append(best)
        rr[test], top1[test], hit[test] = (all_series[best].rr[test], all_series[best].top1[test],
                                           all_series[best].hit[test])
    winner = _best(all_series, np.ones(n, bool)) if n else current
    return fold, chosen, Series(rr, top1, hit), winner


# -- the weight of known requests (``[search] example_weight``) ------------------------------------

EXAMPLE_WEIGHTS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def example_evidence(cos, owner, keys: Sequence[str], case_keys: Sequence[str], n_skills: int, *,
                     rule: Holdout, names: Sequence[str]):
    """Per case and skill, ``e`` (the known requests' evidence) and which skills have one, without leakage.

    ``cos``: cases x requests cosines, the columns sorted by ``owner`` (the skill position of
    each request, ``names[owner]`` its name); ``keys`` each request's normalised text,
    ``case_keys`` each case query's.  A request ``rule`` holds out for a case (its own
    evidence, or that of a case of its fold: :mod:`skillsift.evaluate.holdout`, the rule
    ``eval`` and ``skillsift ci`` rank by) is never its evidence; requests of other skills
    with the same text count, as a live search counts them.
    """

    cos = np.array(cos, dtype=np.float64, copy=True)
    if rule.overlap:
        column: dict[str, list[int]] = {}
        for j, key in enumerate(keys):
            column.setdefault(key, []).append(j)
        for i, key in enumerate(case_keys):
            cols = [j for k in sorted(rule.keys_of_fold[rule.fold(key)]) for j in column.get(k, ())
                    if rule.held(key, names[int(owner[j])], k)]
            if cols:
                cos[i, np.asarray(cols, dtype=np.intp)] = -np.inf
    return example_best(cos, owner, n_skills, how=REDUCTION)


def with_examples(sig: Signals, best, has, weight: float) -> Signals:
    """``sig`` with every skill's plain and centred cosines lifted by its known requests, as the
    ranker does (:func:`skillsift.ranker.model.lift.combine`)."""

    cosine = {f: combine(c, best, has, weight) for f, c in sig.cosine.items()}
    centred = {f: combine(sig.centred(f), best, has, weight) for f in sig.docs}
    return Signals(sig.lexical, cosine, sig.tie, sig.expected, centred, sig.docs, sig.queries, sig.coverage,
                   sig.terms)


@dataclass
class WeightResult:
    """The cross-validated choice of ``example_weight`` for one setting."""

    setting: Setting
    weights: list  # in selection order: the current weight first (ties go to it)
    series: list
    chosen_per_fold: list
    held_out: Series
    winner: int
    current: int = 0

    def change(self) -> bool:
        """As :meth:`TuneResult.change`: another weight, with a held-out MRR gain whose 95% interval excludes 0."""
        if self.winner == self.current:
            return False
        return self.held_out.versus(self.series[self.current])["mrr"][1] > 0


def tune_example_weight(setting: Setting, sig: Signals, best, has, current: float, *, k: int = 5,
                        folds: int = FOLDS, seed: int = FOLD_SEED,
                        weights: Sequence[float] = EXAMPLE_WEIGHTS) -> WeightResult:
    """Score ``setting`` at every weight of known requests and choose by k-fold cross-validation
    (the same folds as the settings); the current weight comes first, so ties keep it."""
    order = list(dict.fromkeys([float(current), *(float(w) for w in weights)]))
    series = [series_of(setting, with_examples(sig, best, has, w), k) for w in order]
    _fold, chosen, held, winner = _select(series, len(sig.expected), 0, folds, seed)
    return WeightResult(setting, order, series, chosen, held, winner, 0)
