"""Fusion candidates measured channel by channel, on half A of both development sets; half B reported after.

    python bench/fusion_channels.py [--metatool ../shared/benchmarks/metatool-dev] [--corpora ../shared/corpora]
                                    [--cache /tmp/skillsift-quality-cache] [--json FILE] [--markdown FILE]
                                    [--families F,...] [--only SET] [--no-tune] [--curve]

Sets: the MetaTool development split and the real-skills set (``bench/skills_devset.py``),
split into half A and half B by the seeded permutation of ``bench/examples_heldout.py``
(seed 20240613).  The channels of a (case, skill) pair are computed once: the plain and
the centred cosine of the skill's own text (the local model, name-free fields), the BM25F
score of skillsift's lexical ranker, and, when known requests are used, ``e``: the mean of
the two best cosines between the case and the skill's known requests (the best alone with
one).  A candidate fusion is a function of those channels; the candidate set is the union
of the first 50 of the vector list and of the lexical list, ties by name (as the ranker).

Protocol, so that nothing is chosen on half B:

* **no known requests**: every candidate is scored on half A, on half B and on the full set;
* **known requests**: for half B, the requests of half A are the known requests; for half A
  (where the choice is made), half A is split again in two by the same seeded rule, each
  inner half's requests rank the other inner half;
* **leakage**: half A ranked with half A's own requests (a case's own request text left out,
  as ``eval`` does) is compared with half B ranked with half A's requests.

Every row is printed (top1 / MRR on A and B of each set); the selection rule is in
:func:`choose`: a candidate replaces the shipped fusion only when it is at least as good on
half A of both sets (MRR and top1) and strictly better on one.  It ran against ``blend`` (the
first row, the default until 2026-12-06) and chose :data:`DEFAULT`, shipped as ``fusion =
"zscore"`` (``skillsift.ranker.model.fusion.zscore_trust``); the script also runs it against that
default.  The third round (2026-12-07, :func:`third_candidates`) starts every candidate from that
default; with known requests it also computes, per case, BM25 over each skill's known requests alone
(:func:`request_lexical`).  Embeddings are cached in ``--cache`` (shared with bench/transfer.py): a second run
embeds nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import harness  # noqa: F401  (the checkout's skillsift on the path)
import numpy as np
import transfer
from examples_heldout import SPLIT_SEED, Evidence, bm25f, halves
from transfer import DEFAULT_CACHE, DEFAULT_CORPORA, DEFAULT_METATOOL, EmbedCache

from skillsift.evaluate import tune
from skillsift.ranker.centring import CENTRE_SHRINK, centre
from skillsift.ranker.lexical import LexicalIndex
from skillsift.ranker.model.fusion import BLEND_SCALE
from skillsift.ranker.model.lift import combine, normalised
from skillsift.ranker.postings import FIELDS
from skillsift.ranker.tokenize import tokenize

CAND = 50
TUNE = True  # run tune's selection on half A (--no-tune: not)
EXAMPLE_WEIGHT = 0.6  # the shipped [search] example_weight


class Channels:
    """The channels of one set for a block of case rows."""

    def __init__(self, plain, centred, lex, coverage, tie, expected, best=None, has=None, nterms=None,
                 lex_examples=None):
        self.plain, self.centred, self.lex = plain, centred, lex
        self.coverage = coverage  # per case: share of the query's terms the top lexical match holds
        self.nterms = nterms  # per case: the number of distinct query terms
        self.lex_examples = lex_examples  # weight -> BM25F with the known requests as a field (None: none known)
        self.tie, self.expected = tie, expected
        self.best, self.has = best, has
        top = lex.max(axis=1, keepdims=True)
        self.top = top
        self.lexnorm = np.where(lex > 0, lex / np.where(top > 0, top, 1.0), 0.0)
        srt = -np.sort(-lex, axis=1)[:, :2]
        self.peak = np.where(srt[:, 0] > 0, (srt[:, 0] - srt[:, 1]) / np.where(srt[:, 0] > 0, srt[:, 0], 1), 0.0)

    def sig(self) -> tune.Signals:
        return tune.Signals(self.lex, {}, self.tie, self.expected)

    def chosen(self, vec):
        return tune._top_mask(vec, self.tie, CAND) | tune._top_mask(self.lex, self.tie, CAND, self.lex > 0)

    def series(self, score, returned) -> tune.Series:
        return tune.Series.of(tune.ranks(np.round(score, 9), returned, self.sig()))


# -- the candidates --------------------------------------------------------------------------------
# Each takes Channels and returns (score, returned): what would be ranked.


def lexical_only(ch):
    return ch.lex, ch.lex > 0


def cosine_only(ch, centred=False):
    c = ch.centred if centred else ch.plain
    return np.round(c, 6), np.ones_like(c, bool)


def _own(ch, use_examples, which="centred", w=EXAMPLE_WEIGHT):
    c = ch.centred if which == "centred" else ch.plain
    if use_examples and ch.best is not None:
        return combine(c, ch.best, ch.has, w)
    return c


def blend(bonus, use_examples=True, which="centred", w=EXAMPLE_WEIGHT):
    def f(ch):
        vec = _own(ch, use_examples, which, w)
        return vec + bonus * ch.lexnorm, ch.chosen(vec)
    return f


def blend_adaptive(b0, b1, feature, use_examples=True):
    """bonus = b0 + b1 * feature (per query): the lexical weight follows the lexical evidence."""
    def f(ch):
        vec = _own(ch, use_examples)
        g = {"peak": ch.peak, "coverage": ch.coverage, "both": ch.peak * ch.coverage}[feature]
        bonus = (b0 + b1 * g)[:, None]
        return vec + bonus * ch.lexnorm, ch.chosen(vec)
    return f


def _z(values, mask):
    m = np.where(mask, values, np.nan)
    mu = np.nanmean(m, axis=1, keepdims=True)
    sd = np.nanstd(m, axis=1, keepdims=True)
    sd = np.where(sd > 0, sd, 1.0)
    return np.where(mask, (values - np.nan_to_num(mu)) / sd, 0.0)


def _minmax(values, mask):
    lo = np.where(mask, values, np.inf).min(axis=1, keepdims=True)
    hi = np.where(mask, values, -np.inf).max(axis=1, keepdims=True)
    span = hi - lo
    return np.where(mask, np.where(span > 0, (values - lo) / np.where(span > 0, span, 1), 1.0), 0.0)


def zscore(a, use_examples=True):
    """z(cos over the candidates) + a * z(bm25 over the lexical candidates)."""
    def f(ch):
        vec = _own(ch, use_examples)
        chosen = ch.chosen(vec)
        lm = tune._top_mask(ch.lex, ch.tie, CAND, ch.lex > 0)
        return _z(vec, chosen) + a * _z(ch.lex, lm), chosen
    return f


def minmax(a, use_examples=True, mnz=False):
    """min-max(cos) + a * min-max(bm25) over each list's candidates; CombMNZ: times lists holding it."""
    def f(ch):
        vec = _own(ch, use_examples)
        vm = tune._top_mask(vec, ch.tie, CAND)
        lm = tune._top_mask(ch.lex, ch.tie, CAND, ch.lex > 0)
        s = _minmax(vec, vm) + a * _minmax(ch.lex, lm)
        if mnz:
            s = s * (vm.astype(int) + lm.astype(int))
        return s, vm | lm
    return f


def rrf(k=60, wl=1.0, use_examples=True):
    def f(ch):
        vec = _own(ch, use_examples)
        vm = tune._top_mask(vec, ch.tie, CAND)
        lm = tune._top_mask(ch.lex, ch.tie, CAND, ch.lex > 0)
        rv, rl = tune._ranks_in_list(vec, ch.tie, vm), tune._ranks_in_list(ch.lex, ch.tie, lm)
        return np.where(vm, 1 / (k + rv), 0) + np.where(lm, wl / (k + rl), 0), vm | lm
    return f


def spread_bonus(a, lexical_spread=False, floor=0.05, use_examples=True):
    """blend with a per-query bonus ``a * sd(cos over the catalog)`` (``/ sd(bm25/top over the lexical
    candidates)`` with ``lexical_spread``): the lexical channel scaled to the cosine's spread."""
    def f(ch):
        vec = _own(ch, use_examples)
        bonus = a * ch.centred.std(axis=1)
        if lexical_spread:
            lm = tune._top_mask(ch.lex, ch.tie, CAND, ch.lex > 0)
            sd = np.sqrt(np.where(lm, (ch.lexnorm - np.where(lm, ch.lexnorm, 0).sum(1, keepdims=True)
                                       / np.maximum(lm.sum(1, keepdims=True), 1)) ** 2, 0).sum(1)
                         / np.maximum(lm.sum(1), 1))
            bonus = bonus / np.maximum(sd, floor)
        return vec + bonus[:, None] * ch.lexnorm, ch.chosen(vec)
    return f


def zscore_adaptive(a0, a1, feature, use_examples=True):
    def f(ch):
        g = {"peak": ch.peak, "coverage": ch.coverage}[feature]
        vec = _own(ch, use_examples)
        chosen = ch.chosen(vec)
        lm = tune._top_mask(ch.lex, ch.tie, CAND, ch.lex > 0)
        return _z(vec, chosen) + (a0 + a1 * g)[:, None] * _z(ch.lex, lm), chosen
    return f


def channels(wd, we, bonus, which="centred", reduce="top2", floor="own"):
    """Three channels: wd * description cosine + we * best request cosine + bonus * bm25/top.

    A skill without requests takes its own cosine as its request channel (``floor="own"``)."""
    def f(ch):
        c = ch.centred if which == "centred" else ch.plain
        if ch.best is None:
            vec = c
        else:
            e = np.where(ch.has, ch.best, c if floor == "own" else 0.0)
            vec = (wd * c + we * e) / (wd + we)
        return vec + bonus * ch.lexnorm, ch.chosen(vec)
    return f


def candidates():
    """(label, function, family) in a fixed order; the first is the shipped fusion."""
    out = [("blend 0.12, c + 0.6 max(0, e - c) (the default before 2026-12-06)", blend(BLEND_SCALE), "shipped"),
           ("lexical only", lexical_only, "part"),
           ("cosine only (plain, vector mode)", cosine_only, "part"),
           ("cosine only, centred", lambda ch: cosine_only(ch, True), "part"),
           ("cosine only, with requests (vector mode)", lambda ch: (_own(ch, True, "plain"),
                                                                    np.ones_like(ch.plain, bool)), "part")]
    for b in (0.04, 0.08, 0.16, 0.20):
        out.append((f"blend, fixed bonus {b}", blend(b), "bonus"))
    for w in (0.4, 0.8, 1.0):
        out.append((f"blend 0.12, example weight {w}", blend(BLEND_SCALE, w=w), "example weight"))
    for b0, b1 in ((0.04, 0.12), (0.06, 0.12), (0.0, 0.2), (0.08, 0.08)):
        out.append((f"blend, bonus {b0} + {b1} x peakedness", blend_adaptive(b0, b1, "peak"), "adaptive"))
    for b0, b1 in ((0.0, 0.12), (0.0, 0.16), (0.04, 0.12), (0.0, 0.2)):
        out.append((f"blend, bonus {b0} + {b1} x query terms matched", blend_adaptive(b0, b1, "coverage"),
                    "adaptive"))
    for b0, b1 in ((0.04, 0.16), (0.06, 0.12)):
        out.append((f"blend, bonus {b0} + {b1} x peakedness x terms matched", blend_adaptive(b0, b1, "both"),
                    "adaptive"))
    for a in (0.3, 0.5, 0.8):
        out.append((f"z-score: z(cos) + {a} z(bm25)", zscore(a), "normalised"))
    for a in (0.2, 0.35, 0.4):
        out.append((f"z-score: z(cos) + {a} z(bm25)", zscore(a), "normalised"))
    for a0, a1 in ((0.0, 0.5), (0.0, 0.8), (0.1, 0.4), (0.1, 0.6), (0.2, 0.4), (0.0, 1.0), (0.15, 0.5)):
        out.append((f"z-score: z(cos) + ({a0} + {a1} x query terms matched) z(bm25)",
                    zscore_adaptive(a0, a1, "coverage"), "normalised adaptive"))
    for a0, a1 in ((0.2, 0.3), (0.1, 0.5)):
        out.append((f"z-score: z(cos) + ({a0} + {a1} x peakedness) z(bm25)", zscore_adaptive(a0, a1, "peak"),
                    "normalised adaptive"))
    for a in (1.0, 1.5, 2.0, 3.0):
        out.append((f"blend, bonus {a} x sd(centred cos over the catalog)", spread_bonus(a), "spread"))
    for a in (0.3, 0.5, 0.8):
        out.append((f"blend, bonus {a} x sd(cos) / sd(bm25/top over lexical candidates)",
                    spread_bonus(a, True), "spread"))
    for a in (0.3, 0.5):
        out.append((f"min-max: mm(cos) + {a} mm(bm25)", minmax(a), "normalised"))
        out.append((f"CombMNZ: (mm(cos) + {a} mm(bm25)) x lists", minmax(a, mnz=True), "normalised"))
    for k, wl in ((60, 1.0), (60, 0.5), (10, 0.5)):
        out.append((f"RRF k={k} w_lex={wl}", rrf(k, wl), "rrf"))
    for wd, we, b in ((0.5, 0.5, 0.0), (0.5, 0.5, 0.06), (0.5, 0.5, 0.12), (0.6, 0.4, 0.12), (0.4, 0.6, 0.12)):
        out.append((f"channels: {wd} desc + {we} request + {b} bm25/top (centred)", channels(wd, we, b),
                    "channels"))
    out.append(("sketch: 0.5 plain desc + 0.5 best request, no lexical",
                channels(0.5, 0.5, 0.0, "plain"), "channels"))
    return out + new_candidates() + third_candidates()


# -- candidates added on 2026-12-06 (second round) --------------------------------------------------


def _members(ch):
    return tune._top_mask(ch.lex, ch.tie, CAND, ch.lex > 0)


def agreement(ch, vec, depth=10, how="overlap"):
    """Per case, how much the first ``depth`` of the vector list and of the lexical list agree:
    ``overlap``, the share of the vector list's first ``depth`` also among the lexical list's first
    ``depth``; ``average``, the mean of that share over the depths 1..``depth`` (top-weighted)."""
    vm = tune._top_mask(vec, ch.tie, depth)
    lm = tune._top_mask(ch.lex, ch.tie, depth, ch.lex > 0)
    if how == "overlap":
        return (vm & lm).sum(axis=1) / depth
    rv = tune._ranks_in_list(vec, ch.tie, vm)
    rl = tune._ranks_in_list(ch.lex, ch.tie, lm)
    both = vm & lm
    deep = np.maximum(rv, rl)  # an item counts in the overlap from this depth on
    return sum(((both & (deep <= d)).sum(axis=1) / d) for d in range(1, depth + 1)) / depth


def zscore_agreement(a0, a1, how="overlap", times_coverage=False):
    """zscore whose lexical weight follows the two lists' agreement: ``a0 + a1 * agreement``."""
    def f(ch):
        vec = _own(ch, True)
        chosen = ch.chosen(vec)
        w = a0 + a1 * agreement(ch, vec, how=how)
        if times_coverage:
            w = w * ch.coverage
        return _z(vec, chosen) + w[:, None] * _z(ch.lex, _members(ch)), chosen
    return f


def blend_agreement(b0, b1, how="overlap"):
    def f(ch):
        vec = _own(ch, True)
        bonus = b0 + b1 * agreement(ch, vec, how=how)
        return vec + bonus[:, None] * ch.lexnorm, ch.chosen(vec)
    return f


def zscore_length(a0, a1, terms=4, times_coverage=True):
    """zscore whose lexical weight follows the query's length: ``a0 + a1 * min(1, terms / T)`` (times
    the terms matched with ``times_coverage``): a longer query gives BM25F more to go on."""
    def f(ch):
        vec = _own(ch, True)
        chosen = ch.chosen(vec)
        w = a0 + a1 * np.minimum(1.0, ch.nterms / terms)
        if times_coverage:
            w = w * ch.coverage
        return _z(vec, chosen) + w[:, None] * _z(ch.lex, _members(ch)), chosen
    return f


def _gap(values, mask, depth=10):
    """``(v - mean) / (first - depth-th)`` among the masked values of each row (0 elsewhere): centred like a
    z-score, scaled by the gap between the best and the ``depth``-th candidate instead of the sd."""
    m = np.where(mask, values, -np.inf)
    srt = -np.sort(-m, axis=1)
    count = mask.sum(axis=1)
    kth = srt[np.arange(len(values)), np.clip(np.minimum(depth, count) - 1, 0, None)]
    gap = srt[:, 0] - kth
    mu = np.where(mask, values, 0).sum(axis=1) / np.maximum(count, 1)
    gap = np.where(np.isfinite(gap) & (gap > 0), gap, 1.0)
    return np.where(mask, (values - mu[:, None]) / gap[:, None], 0.0)


def gapnorm(a, coverage=True, depth=10):
    """Each list centred and scaled by the gap between its best and ``depth``-th candidate."""
    def f(ch):
        vec = _own(ch, True)
        chosen = ch.chosen(vec)
        w = a * (ch.coverage if coverage else 1.0)
        w = np.broadcast_to(np.asarray(w, dtype=float), (len(vec),))
        return _gap(vec, chosen, depth) + w[:, None] * _gap(ch.lex, _members(ch), depth), chosen
    return f


def zscore_examples(a1=1.0, w=None, separate=None):
    """zscore with the known requests combined otherwise: ``w``: the example weight of ``c + w max(0, e - c)``
    (1.0: the better of the description's and the best request's cosine); ``separate = b``: the requests as a
    z-scored channel of their own, ``(z(c) + b z(e)) / (1 + b)`` with ``e`` the best request's cosine (the
    description's for a skill without requests)."""
    def f(ch):
        if separate is None:
            vec = _own(ch, True, w=EXAMPLE_WEIGHT if w is None else w)
            chosen = ch.chosen(vec)
            zv = _z(vec, chosen)
        else:
            c = ch.centred
            e = c if ch.best is None else np.where(ch.has, ch.best, c)
            vec = _own(ch, True)  # the candidates as the ranker draws them
            chosen = ch.chosen(vec)
            zv = (_z(c, chosen) + separate * _z(e, chosen)) / (1 + separate)
        return zv + (a1 * ch.coverage)[:, None] * _z(ch.lex, _members(ch)), chosen
    return f


def zscore_lexical_examples(weight, a1=1.0, length=False):
    """zscore over a BM25F with the known requests as one more field at ``weight`` (candidates and
    the terms matched as without it); ``length``: the lexical weight of DEFAULT instead of ``a1`` x terms matched."""
    def f(ch):
        vec = _own(ch, True)
        lex = ch.lex if ch.lex_examples is None else ch.lex_examples[weight]
        chosen = ch.chosen(vec) | tune._top_mask(lex, ch.tie, CAND, lex > 0)
        lm = tune._top_mask(lex, ch.tie, CAND, lex > 0)
        w = (0.5 + 0.7 * np.minimum(1.0, ch.nterms / 4)) if length else a1
        return _z(vec, chosen) + (w * ch.coverage)[:, None] * _z(lex, lm), chosen
    return f


def _tied_ranks(values, mask):
    """1-based competition ranks among the masked values of each row (equal values share the best rank)."""
    out = np.zeros(values.shape, dtype=np.float64)
    for r in range(len(values)):
        idx = np.flatnonzero(mask[r])
        if not len(idx):
            continue
        v = values[r, idx]
        srt = np.sort(-v)
        out[r, idx] = np.searchsorted(srt, -v, side="left") + 1
    return out


def rrf_tied(k=60, wl=1.0, coverage=False):
    """RRF where equal scores share a rank (a lexical tie is no evidence for either member);
    ``coverage``: the lexical term times the terms matched."""
    def f(ch):
        vec = _own(ch, True)
        vm = tune._top_mask(vec, ch.tie, CAND)
        lm = _members(ch)
        rv, rl = _tied_ranks(np.round(vec, 6), vm), _tied_ranks(ch.lex, lm)
        w = wl * (ch.coverage if coverage else np.ones(len(vec)))
        return np.where(vm, 1 / (k + rv), 0) + np.where(lm, w[:, None] / (k + rl), 0), vm | lm
    return f


def new_candidates():
    out = []
    for a0, a1, how in ((0.2, 0.6, "overlap"), (0.5, -0.4, "overlap"), (0.1, 0.8, "average"), (0.6, -0.5, "average")):
        out.append((f"z-score: z(cos) + ({a0} + {a1} x top-10 {how} agreement) z(bm25)",
                    zscore_agreement(a0, a1, how), "agreement"))
    for a0, a1 in ((0.6, 0.8), (1.0, 0.5), (1.2, -0.5)):
        out.append((f"z-score: z(cos) + ({a0} + {a1} x top-10 overlap) x terms matched x z(bm25)",
                    zscore_agreement(a0, a1, "overlap", True), "agreement"))
    for b0, b1 in ((0.06, 0.12), (0.12, -0.08)):
        out.append((f"blend, bonus {b0} + {b1} x top-10 overlap", blend_agreement(b0, b1), "agreement"))
    for a0, a1, t in ((0.5, 0.7, 4), (0.7, 0.5, 6), (1.3, -0.5, 4)):
        out.append((f"z-score: z(cos) + ({a0} + {a1} x min(1, query terms / {t})) x terms matched x z(bm25)",
                    zscore_length(a0, a1, t), "length"))
    for a in (0.6, 1.0, 1.5):
        out.append((f"top-gap: g(cos) + {a} x terms matched x g(bm25), g = (s - mean) / (s1 - s10)",
                    gapnorm(a), "gap"))
    out.append(("top-gap: g(cos) + 0.5 g(bm25)", gapnorm(0.5, coverage=False), "gap"))
    for w in (0.8, 1.0):
        out.append((f"zscore (terms matched), example weight {w}", zscore_examples(w=w), "examples"))
    for b in (0.5, 1.0):
        out.append((f"zscore (terms matched), requests as a z-scored channel (z(c) + {b} z(e)) / {1 + b:g}",
                    zscore_examples(separate=b), "examples"))
    for w in LEX_EXAMPLE_FIELD_WEIGHTS:
        out.append((f"zscore (terms matched), BM25F with the requests as a field at {w}",
                    zscore_lexical_examples(w), "lexical examples"))
    for k, wl, cov in ((60, 1.0, False), (60, 0.5, False), (20, 1.0, True)):
        out.append((f"RRF, tied scores share a rank, k={k} w_lex={wl}" + (" x terms matched" if cov else ""),
                    rrf_tied(k, wl, cov), "rrf tied"))
    return out


LEX_EXAMPLE_FIELD_WEIGHTS = (0.5, 1.0, 2.0)


# -- candidates added on 2026-12-07 (third round) ---------------------------------------------------
# Every one starts from DEFAULT (zscore, lexical weight by length and terms matched, requests lifting the
# similarity at 0.6) and changes one thing; without known requests the request-driven ones equal DEFAULT.

THIRD_FAMILIES = ("request channel", "closeness", "max", "peak", "request lexical", "mnz", "request lexical close",
                  "request lexical kept", "mnz + request lexical", "population")


def _default_parts(ch, w=EXAMPLE_WEIGHT, vec=None):
    """DEFAULT's pieces: the ranked similarity, the candidates, z(similarity), the lexical weight, z(bm25)."""
    vec = _own(ch, True, w=w) if vec is None else vec
    chosen = ch.chosen(vec)
    wl = (0.5 + 0.7 * np.minimum(1.0, ch.nterms / 4)) * ch.coverage
    return vec, chosen, _z(vec, chosen), wl, _z(ch.lex, _members(ch))


def _closeness(x, t0, t1):
    return np.clip((x - t0) / (t1 - t0), 0.0, 1.0)


def request_channel(k, t0, t1, best="top2"):
    """DEFAULT plus the known requests as a z-scored channel of their own, ``g z(e)`` over the candidates,
    whose weight ``g = k x closeness`` follows how close the query's best request is (over every skill):
    0 below cosine ``t0``, ``k`` from ``t1`` on.  ``e``: the skill's request evidence (``top2``) or its
    single best request (``max``); a skill without requests takes its own similarity."""
    def f(ch):
        vec, chosen, zv, wl, zl = _default_parts(ch)
        if ch.best is None:
            return zv + wl[:, None] * zl, chosen
        b = ch.best if best == "top2" else ch.best_one
        e = np.where(ch.has, b, ch.centred)
        top = np.where(ch.has, b, -np.inf).max(axis=1)
        g = k * _closeness(np.where(np.isfinite(top), top, 0.0), t0, t1)
        return zv + wl[:, None] * zl + g[:, None] * _z(e, chosen), chosen
    return f


def closeness_weight(w0, t0, t1):
    """DEFAULT with a per-skill example weight following how close its requests are:
    ``c + w max(0, e - c)`` with ``w = w0 + (1 - w0) x closeness(e)`` (``w0`` below cosine ``t0``, 1 from ``t1``)."""
    def f(ch):
        if ch.best is None:
            vec = ch.centred
        else:
            w = w0 + (1 - w0) * _closeness(ch.best, t0, t1)
            vec = np.where(ch.has, ch.centred + w * np.maximum(0.0, ch.best - ch.centred), ch.centred)
        vec, chosen, zv, wl, zl = _default_parts(ch, vec=vec)
        return zv + wl[:, None] * zl, chosen
    return f


def max_channels(wr=1.0):
    """DEFAULT with the vector channel ``max(z(c), wr z(e))``: the description or the requests, whichever
    stands out more among the candidates (a skill without requests: z(c))."""
    def f(ch):
        vec, chosen, zv, wl, zl = _default_parts(ch)
        if ch.best is not None:
            zc = _z(ch.centred, chosen)
            ze = _z(np.where(ch.has, ch.best, ch.centred), chosen)
            zv = np.where(ch.has, np.maximum(zc, wr * ze), zc)
        return zv + wl[:, None] * zl, chosen
    return f


def _peak(z, mask, depth=1):
    """Per row: the best masked z-score minus the (1 + depth)-th (0 with fewer members)."""
    m = -np.sort(-np.where(mask, z, -np.inf), axis=1)
    gap = m[:, 0] - m[:, depth]
    return np.where(np.isfinite(gap), gap, 0.0)


def peak_weight(alpha, depth=1, lo=0.5, hi=2.0):
    """DEFAULT with the lexical weight times ``((1 + peak(bm25)) / (1 + peak(cos)))^alpha`` (clipped to
    [lo, hi]): the list whose leader stands further above the next counts more, per query."""
    def f(ch):
        vec, chosen, zv, wl, zl = _default_parts(ch)
        ratio = (1 + _peak(zl, _members(ch), depth)) / (1 + _peak(zv, chosen, depth))
        wl = wl * np.clip(ratio ** alpha, lo, hi)
        return zv + wl[:, None] * zl, chosen
    return f


def request_lexical_channel(k, gated=False, extend=True, mnz=0.0):
    """DEFAULT plus BM25 over the known requests alone (a document per skill: its requests' text), z-scored
    over its first 50 matches, at ``k`` times the share of the query's terms its top match holds; ``gated``:
    times only that share's excess over the skills' own top lexical match (the requests add a lexical
    channel only when they hold more of the query than the skills' text does)."""
    def f(ch):
        vec, chosen, zv, wl, zl = _default_parts(ch)
        both = tune._top_mask(vec, ch.tie, CAND) & _members(ch)
        if ch.best is None:
            return zv + wl[:, None] * zl + mnz * both, chosen
        lr = ch.lex_req
        rm = tune._top_mask(lr, ch.tie, CAND, lr > 0)
        g = k * (np.maximum(0.0, ch.cov_req - ch.coverage) if gated else ch.cov_req)
        if extend:
            chosen = chosen | rm
            zv = _z(vec, chosen)
        return zv + wl[:, None] * zl + g[:, None] * _z(lr, rm) + mnz * both, chosen
    return f


def request_lexical_close(k, t0, t1, gated=True):
    """:func:`request_lexical_channel` with its weight also times the closeness of the query's single best
    request (cosine ``t0``..``t1``): the requests' words count when a request is also close in meaning."""
    def f(ch):
        vec, chosen, zv, wl, zl = _default_parts(ch)
        if ch.best is None:
            return zv + wl[:, None] * zl, chosen
        lr = ch.lex_req
        rm = tune._top_mask(lr, ch.tie, CAND, lr > 0)
        top = np.where(ch.has, ch.best_one, -np.inf).max(axis=1)
        close = _closeness(np.where(np.isfinite(top), top, 0.0), t0, t1)
        g = k * close * (np.maximum(0.0, ch.cov_req - ch.coverage) if gated else ch.cov_req)
        chosen = chosen | rm
        return _z(vec, chosen) + wl[:, None] * zl + g[:, None] * _z(lr, rm), chosen
    return f


def mnz_bonus(m, depth=CAND):
    """DEFAULT plus ``m`` for a candidate in both lists' first ``depth`` (CombMNZ's count of lists, added in
    z units instead of multiplied: z-scores are signed)."""
    def f(ch):
        vec, chosen, zv, wl, zl = _default_parts(ch)
        both = tune._top_mask(vec, ch.tie, depth) & tune._top_mask(ch.lex, ch.tie, depth, ch.lex > 0)
        return zv + wl[:, None] * zl + m * both, chosen
    return f


def _z_from(values, ref, mask, robust=False):
    """``values`` standardised by the mean and sd (``robust``: median and 1.4826 x MAD) of ``values`` over ``ref``,
    0 outside ``mask``."""
    m = np.where(ref, values, np.nan)
    if robust:
        mu = np.nanmedian(m, axis=1, keepdims=True)
        sd = 1.4826 * np.nanmedian(np.abs(m - mu), axis=1, keepdims=True)
    else:
        mu = np.nanmean(m, axis=1, keepdims=True)
        sd = np.nanstd(m, axis=1, keepdims=True)
    mu = np.nan_to_num(mu)
    sd = np.where(np.nan_to_num(sd) > 0, sd, 1.0)
    return np.where(mask, (values - mu) / sd, 0.0)


def population(own_list=True, robust=False, mnz=0.0, which="both"):
    """DEFAULT with the similarity standardised over the vector list's own first 50 (``own_list``) instead of
    every candidate (lexical candidates far down the vector list no longer widen its spread); ``robust``: the
    channels (``which``: both, or only the ``lexical`` or ``vector`` one) by median and MAD instead of mean
    and sd; ``mnz``: plus the additive CombMNZ bonus."""
    def f(ch):
        vec, chosen, zv, wl, zl = _default_parts(ch)
        vm = tune._top_mask(vec, ch.tie, CAND)
        lm = _members(ch)
        zv = _z_from(vec, vm if own_list else chosen, chosen, robust and which != "lexical")
        if robust and which != "vector":
            zl = _z_from(ch.lex, lm, lm, True)
        return zv + wl[:, None] * zl + mnz * (vm & lm), chosen
    return f


def request_lexical(queries, rows, ev):
    """BM25 (k1 1.2, b 0.75) of ``queries[rows]`` against one document per skill, the text of its known requests
    in ``ev`` (a request with the case's own normalised text left out, the statistics kept), and per case the
    share of its terms that its top match's requests hold."""
    import math

    m = ev.n_skills
    texts: list = [[] for _ in range(m)]
    for i, o in zip(ev.rows.tolist(), ev.owner.tolist(), strict=True):
        texts[o].append(i)
    toks = [[tokenize(queries[i]) for i in t] for t in texts]
    tf = []
    for parts in toks:
        d: dict = {}
        for p in parts:
            for t in p:
                d[t] = d.get(t, 0) + 1
        tf.append(d)
    lengths = np.asarray([sum(d.values()) for d in tf], dtype=np.float64)
    avg = lengths[lengths > 0].mean() if (lengths > 0).any() else 1.0
    df: dict = {}
    for d in tf:
        for t in d:
            df[t] = df.get(t, 0) + 1
    n = int((lengths > 0).sum()) or 1

    def score(d, length, terms):
        norm = 1.2 * (0.25 + 0.75 * length / avg)
        out = 0.0
        for t in terms:
            x = d.get(t)
            if x and t in df:
                out += math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) * x * 2.2 / (x + norm)
        return out

    owned = [set(d) for d in tf]
    own: dict = {}
    for i, o in zip(ev.rows.tolist(), ev.owner.tolist(), strict=True):
        own.setdefault(normalised(queries[i]), set()).add(o)
    lex = np.zeros((len(rows), m))
    cov = np.zeros(len(rows))
    for r, i in enumerate(rows):
        terms = LexicalIndex.query_terms(queries[i])
        key = normalised(queries[i])
        for o in range(m):
            if lengths[o] and owned[o].intersection(terms):
                lex[r, o] = score(tf[o], lengths[o], terms)
        for o in own.get(key, ()):
            kept = [queries[j] for j in texts[o] if normalised(queries[j]) != key]
            d = {}
            for q in kept:
                for t in tokenize(q):
                    d[t] = d.get(t, 0) + 1
            lex[r, o] = score(d, sum(d.values()), terms) if d else 0.0
        if terms and lex[r].max() > 0:
            top = int(np.argmax(lex[r]))
            words = set()
            for q in texts[top]:
                if normalised(queries[q]) != key:
                    words.update(tokenize(queries[q]))
            cov[r] = len(set(terms) & words) / len(set(terms))
    return lex, cov


def third_candidates():
    out = []
    for k, t0, t1, how in ((0.5, 0.5, 0.8, "top2"), (1.0, 0.5, 0.8, "top2"), (1.0, 0.6, 0.9, "top2"),
                           (2.0, 0.6, 0.9, "top2"), (1.0, 0.6, 0.9, "max"), (0.5, 0.0, 0.01, "top2")):
        out.append((f"third: + g z(e), g = {k} x closeness({how} best request; {t0}..{t1})",
                    request_channel(k, t0, t1, how), "request channel"))
    for w0, t0, t1 in ((0.6, 0.6, 0.9), (0.4, 0.5, 0.9), (0.6, 0.5, 0.8), (0.3, 0.6, 0.9)):
        out.append((f"third: example weight {w0} + {1 - w0:g} x closeness(e; {t0}..{t1})",
                    closeness_weight(w0, t0, t1), "closeness"))
    for wr in (1.0, 0.8):
        out.append((f"third: vector channel max(z(c), {wr} z(e))", max_channels(wr), "max"))
    for alpha, depth in ((0.5, 1), (1.0, 1), (0.5, 4)):
        out.append((f"third: lexical weight x ((1 + peak bm25) / (1 + peak cos))^{alpha}, peak = z1 - z{1 + depth}",
                    peak_weight(alpha, depth), "peak"))
    for k, gated in ((0.3, False), (0.6, False), (1.0, False), (0.6, True), (1.0, True), (1.5, True)):
        out.append((f"third: + {k} x {'excess of ' if gated else ''}requests' terms matched x z(BM25 over requests)",
                    request_lexical_channel(k, gated), "request lexical"))
    for k, gated in ((0.6, True), (1.0, True), (1.5, True), (0.3, False), (0.6, False)):
        out.append((f"third: + {k} x {'excess of ' if gated else ''}requests' terms matched x z(BM25 over requests), "
                    "candidates kept", request_lexical_channel(k, gated, extend=False), "request lexical kept"))
    for m, k in ((0.25, 1.0), (0.5, 1.0), (0.25, 0.6)):
        out.append((f"third: + {m} when in both lists' first 50 + {k} x excess of requests' terms matched x "
                    "z(BM25 over requests), candidates kept", request_lexical_channel(k, True, False, m),
                    "mnz + request lexical"))
    for m, depth in ((0.25, 50), (0.5, 50), (0.25, 10), (0.5, 10), (0.5, 20), (1.0, 20)):
        out.append((f"third: + {m} when in both lists' first {depth} (additive CombMNZ)", mnz_bonus(m, depth), "mnz"))
    for w in LEX_EXAMPLE_FIELD_WEIGHTS:
        out.append((f"third: DEFAULT over BM25F with the requests as a field at {w}",
                    zscore_lexical_examples(w, length=True), "lexical examples default"))
    for own_list, robust, m in ((True, False, 0.0), (False, True, 0.0), (True, True, 0.0), (True, False, 0.25)):
        out.append((f"third: similarity z-scored over {'the vector list' if own_list else 'the candidates'}"
                    f"{', median/MAD' if robust else ''}{f', + {m} in both first 50' if m else ''}",
                    population(own_list, robust, m), "population"))
    for which in ("lexical", "vector"):
        out.append((f"third: median/MAD for the {which} list only (the other by mean and sd), over the candidates",
                    population(False, True, 0.0, which), "population"))
    for k, t0, t1, gated in ((1.0, 0.6, 0.9, True), (1.0, 0.7, 0.9, True), (0.6, 0.6, 0.9, False),
                             (1.0, 0.7, 0.9, False), (1.5, 0.7, 0.95, True)):
        out.append((f"third: + {k} x closeness(best request; {t0}..{t1}) x {'excess of ' if gated else ''}requests' "
                    "terms matched x z(BM25 over requests)", request_lexical_close(k, t0, t1, gated),
                    "request lexical close"))
    return out


# -- the protocol ----------------------------------------------------------------------------------


def load(which: str, args, cache):
    if which == "MetaTool":
        skills, queries, sig = transfer.metatool(args.metatool, cache)
    else:
        skills, queries, sig, _ds = transfer.real_skills(args.corpora, cache)
    return skills, queries, sig


coverage_of = transfer.coverage_of


def lexical_with_examples(skills, queries, rows, ev, w) -> np.ndarray:
    """BM25F of ``queries[rows]`` with the known requests of ``ev`` as one more field at ``w``
    (``examples_heldout.bm25f``); a request with a case's own (normalised) text is left out of that
    case's scores (the leakage rule of ``eval``), the index statistics kept as built."""
    m = len(skills)
    texts = [[] for _ in range(m)]
    for i, o in zip(ev.rows.tolist(), ev.owner.tolist(), strict=True):
        texts[o].append(i)
    test_queries = [queries[i] for i in rows]
    out = bm25f(skills, test_queries, [[queries[i] for i in t] for t in texts], w)
    own = {}
    for i, o in zip(ev.rows.tolist(), ev.owner.tolist(), strict=True):
        own.setdefault(normalised(queries[i]), set()).add(o)
    base = None
    for r, i in enumerate(rows):
        owners = own.get(normalised(queries[i]))
        if not owners:
            continue
        if base is None:  # the statistics of the index with every request
            base = _bm25f_stats(skills, [[queries[j] for j in t] for t in texts], w)
        key = normalised(queries[i])
        for o in owners:
            kept = [queries[j] for j in texts[o] if normalised(queries[j]) != key]
            out[r, o] = _bm25f_one(skills[o], kept, w, queries[i], base)
    return out


def _doc_tf(skill, extra, w):
    tf: dict = {}
    length = 0.0
    parts = [(getattr(skill, f) if isinstance(getattr(skill, f), str) else " ".join(getattr(skill, f)), fw)
             for f, fw in FIELDS]
    if w > 0:
        parts.append((" ".join(extra), w))
    for text, fw in parts:
        for t in tokenize(text or ""):
            tf[t] = tf.get(t, 0.0) + fw
            length += fw
    return tf, length


def _bm25f_stats(skills, extras, w):
    df: dict = {}
    total = 0.0
    for s, extra in zip(skills, extras, strict=True):
        tf, length = _doc_tf(s, extra, w)
        total += length
        for t in tf:
            df[t] = df.get(t, 0) + 1
    return len(skills), total / len(skills), df


def _bm25f_one(skill, extra, w, query, stats) -> float:
    import math

    n, avg, df = stats
    tf, length = _doc_tf(skill, extra, w)
    norm = 1.2 * (0.25 + 0.75 * length / avg)
    score = 0.0
    for t in LexicalIndex.query_terms(query):
        x = tf.get(t)
        if x and t in df:
            score += math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) * x * 2.2 / (x + norm)
    return score


def run_set(name, skills, queries, sig, table, cands):
    n, m = len(queries), len(skills)
    nterms = np.asarray(sig.terms, dtype=np.float64)  # distinct query terms
    lex_fields = any(fam.startswith("lexical examples") for _l, _f, fam in cands)
    third = any(fam in THIRD_FAMILIES for _l, _f, fam in cands)
    q = np.asarray(sig.queries, dtype=np.float64)
    docs = np.asarray(sig.docs[tune.NAME_FREE], dtype=np.float64)
    plain = q @ docs.T
    cen = q @ centre(docs, range(m), CENTRE_SHRINK).astype(np.float64).T
    lex = sig.lexical
    cov = coverage_of(skills, queries, lex)
    a = halves(n)
    inner = np.zeros(n, bool)
    ia = np.flatnonzero(a)
    inner[ia[halves(len(ia), SPLIT_SEED + 1)]] = True  # half A split again: A1 (inner) and A2

    def block(rows, ev=None):
        rows = np.asarray(rows)
        best = has = lex_ex = None
        if ev is not None:
            best, has = ev.best("top2")
            if lex_fields:
                lex_ex = {w: lexical_with_examples(skills, queries, rows.tolist(), ev, w)
                          for w in LEX_EXAMPLE_FIELD_WEIGHTS}
        ch = Channels(plain[rows], cen[rows], lex[rows], cov[rows], sig.tie, [sig.expected[i] for i in rows],
                      best, has, nterms[rows], lex_ex)
        if ev is not None and third:
            ch.best_one = ev.best("max")[0]
            ch.lex_req, ch.cov_req = request_lexical(queries, rows.tolist(), ev)
        return ch

    def stitched(parts):
        rr = np.concatenate([s.rr for s in parts])
        t1 = np.concatenate([s.top1 for s in parts])
        return float(t1.mean()), float(rr.mean())

    a1, a2 = inner, a & ~inner
    views = {
        "A": [block(np.flatnonzero(a))],
        "B": [block(np.flatnonzero(~a))],
        "full": [block(np.arange(n))],
        "A, requests known (inner halves)": [block(np.flatnonzero(a2), Evidence(q, sig.expected, m, a1, a2, queries)),
                                            block(np.flatnonzero(a1), Evidence(q, sig.expected, m, a2, a1, queries))],
        "B, A's requests known": [block(np.flatnonzero(~a), Evidence(q, sig.expected, m, a, ~a, queries))],
        "A on itself (leakage check)": [block(np.flatnonzero(a), Evidence(q, sig.expected, m, a, a, queries))],
    }
    for label, fn, family in cands:
        row = table.setdefault(label, {"family": family})
        for view, blocks in views.items():
            row[f"{name} {view}"] = stitched([ch.series(*fn(ch)) for ch in blocks])
        print(f"{name} | {label} | " + " | ".join(f"{v}: {row[f'{name} {v}'][0]:.3f}/{row[f'{name} {v}'][1]:.3f}"
                                                  for v in views), flush=True)
    return {"cases": n, "skills": m, "half A": int(a.sum()), "half B": int((~a).sum()),
            "tune": tune_on_half_a(name, sig, cov, a) if TUNE else None}


def per_skill_curve(name, skills, queries, sig) -> dict:
    """Half B ranked with at most ``n`` of half A's requests per skill known (n = 0, 1, 2, 4, 8): the
    default blend and zscore, top1 / MRR, and how many requests the skills with some have on average."""
    n, m = len(queries), len(skills)
    q = np.asarray(sig.queries, dtype=np.float64)
    docs = np.asarray(sig.docs[tune.NAME_FREE], dtype=np.float64)
    plain, cen, lex = q @ docs.T, q @ centre(docs, range(m), CENTRE_SHRINK).astype(np.float64).T, sig.lexical
    cov = coverage_of(skills, queries, lex)
    a = halves(n)
    order = np.random.default_rng(SPLIT_SEED).permutation(n)  # which of a skill's requests come first
    test = np.flatnonzero(~a)
    out = {}
    for per in (0, 1, 2, 4, 8):
        train = np.zeros(n, bool)
        taken = np.zeros(m, dtype=np.int64)
        for i in order.tolist():
            if a[i] and per and all(taken[t] < per for t in sig.expected[i]):
                train[i] = True
                taken[sig.expected[i]] += 1
        best = has = None
        if per:
            best, has = Evidence(q, sig.expected, m, train, ~a, queries).best("top2")
        ch = Channels(plain[test], cen[test], lex[test], cov[test], sig.tie, [sig.expected[i] for i in test],
                      best, has, np.asarray(sig.terms, dtype=np.float64)[test])
        row = {"requests per skill with some": float(taken[taken > 0].mean()) if per else 0.0}
        for label, fn in (("blend (the default before)", blend(BLEND_SCALE)),
                          ("zscore (the default)", zscore_length(0.5, 0.7, 4))):
            series = ch.series(*fn(ch))
            row[label] = (float(series.top1.mean()), float(series.rr.mean()))
        out[per] = row
        print(f"{name} | at most {per} requests per skill (mean {row['requests per skill with some']:.2f}) | "
              + " | ".join(f"{k}: {v[0]:.3f}/{v[1]:.3f}" for k, v in row.items() if isinstance(v, tuple)),
              flush=True)
    return out


def tune_on_half_a(name, sig, cov, a) -> dict:
    """``skillsift tune``'s selection run on half A's cases only (name-free fields, the grid of
    ``tune.grid``, the shipped default as the current setting), then the chosen setting and the
    default scored on half B."""
    docs = {tune.NAME_FREE: sig.docs[tune.NAME_FREE]}

    def part(rows):
        out = tune.signals_from(sig.lexical[rows], docs, sig.queries[rows], [""] * len(sig.tie),
                                [sig.expected[i] for i in rows])
        out.tie, out.coverage, out.terms = sig.tie, cov[rows], sig.terms[rows]
        return out

    half_a, half_b = part(np.flatnonzero(a)), part(np.flatnonzero(~a))
    from skillsift.config import SearchConfig
    from skillsift.evaluate.tune_run import current_setting

    settings = tune.grid((tune.NAME_FREE,))
    current = settings.index(current_setting(SearchConfig(mode="hybrid")))  # the shipped default
    cosine = settings.index(tune.Setting("auto", tune.NAME_FREE, 1.0, 50))
    result = tune.cross_validate(settings, half_a, current, cosine)
    chosen = settings[result.winner] if result.change() else settings[current]
    tuned, default = tune.series_of(chosen, half_b), tune.series_of(settings[current], half_b)
    out = {"winner": settings[result.winner].label(), "writes": bool(result.change()),
           "B tuned": (float(tuned.top1.mean()), float(tuned.rr.mean())),
           "B default": (float(default.top1.mean()), float(default.rr.mean()))}
    print(f"{name} | tune on half A -> {out['winner']} (writes: {out['writes']}) | half B tuned "
          f"{out['B tuned'][0]:.3f}/{out['B tuned'][1]:.3f}, default {out['B default'][0]:.3f}/"
          f"{out['B default'][1]:.3f}", flush=True)
    return out


ZSCORE = "z-score: z(cos) + (0.0 + 1.0 x query terms matched) z(bm25)"  # fusion = "zscore" as first measured
# fusion = "zscore" from 2026-12-06 on (skillsift.ranker.model.fusion.zscore_trust)
DEFAULT = "z-score: z(cos) + (0.5 + 0.7 x min(1, query terms / 4)) x terms matched x z(bm25)"


def choose(table, sets, baseline=None) -> dict:
    """The candidates at least as good as ``baseline`` (the first row, the blend, by default) on half A
    of both sets, in both settings (no requests, requests known), and strictly better somewhere; best
    by summed MRR."""
    ship = table[baseline or next(iter(table))]
    views = [f"{s} {v}" for s in sets for v in ("A", "A, requests known (inner halves)")]
    ok = []
    for label, row in table.items():
        if row["family"] in ("shipped", "part") or row is ship:
            continue
        diffs = [(row[v][0] - ship[v][0], row[v][1] - ship[v][1]) for v in views]
        if all(d[0] >= -0.0005 and d[1] >= -0.0005 for d in diffs) and any(d[1] > 0.0005 for d in diffs):
            ok.append((sum(d[1] for d in diffs), label))
    ok.sort(reverse=True)
    return {"eligible": [label for _s, label in ok], "winner": ok[0][1] if ok else None}


def markdown(table, sets) -> str:
    views = ("A", "B", "full", "A, requests known (inner halves)", "B, A's requests known",
             "A on itself (leakage check)")
    head = "| candidate | " + " | ".join(f"{s} {v}" for s in sets for v in views) + " |"
    lines = [head, "|" + "---|" * (1 + len(sets) * len(views))]
    for label, row in table.items():
        lines.append(f"| {label} | " + " | ".join(f"{row[f'{s} {v}'][0]:.3f} / {row[f'{s} {v}'][1]:.3f}"
                                                  for s in sets for v in views) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--metatool", type=Path, default=DEFAULT_METATOOL)
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--families", help="comma-separated candidate families to run (the shipped row always)")
    parser.add_argument("--only", choices=("MetaTool", "real skills"))
    parser.add_argument("--curve", action="store_true",
                        help="only the curve: half B with at most 1, 2, 4, 8 of half A's requests per skill")
    parser.add_argument("--no-tune", action="store_true", help="leave out tune's selection run on half A")
    args = parser.parse_args(argv)
    from skillsift.embed.local import LocalProvider

    global TUNE
    TUNE = not args.no_tune

    transfer.VARIANTS = {"name-free": tune.NAME_FREE}  # the default embedded fields only
    cache = EmbedCache(args.cache, LocalProvider())
    table: dict = {}
    sets = {}
    cands = candidates()
    if args.families:
        keep = {"shipped", "part", *args.families.split(",")}
        cands = [c for c in cands if c[2] in keep]
    for name in ("MetaTool", "real skills") if not args.only else (args.only,):
        skills, queries, sig = load(name, args, cache)
        if args.curve:
            sets[name] = per_skill_curve(name, skills, queries, sig)
            continue
        sets[name] = run_set(name, skills, queries, sig, table, cands)
    if args.curve:
        if args.json:
            args.json.write_text(json.dumps({"split_seed": SPLIT_SEED, "curve": sets}, indent=1) + "\n",
                                 encoding="utf-8")
        return 0
    pick = choose(table, sets)
    for label, row in (("against zscore as first measured", ZSCORE), ("against the default", DEFAULT)):
        if row in table:
            pick[label] = choose(table, sets, row)
    print(json.dumps(pick, indent=1))
    if args.json:
        args.json.write_text(json.dumps({"split_seed": SPLIT_SEED, "sets": sets, "rows": table, "choice": pick},
                                        indent=1) + "\n", encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(markdown(table, list(sets)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
