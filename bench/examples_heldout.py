"""Known requests (examples) as ranking evidence, measured on held-out halves of both development sets.

    python bench/examples_heldout.py [--metatool ../shared/benchmarks/metatool-dev] [--corpora ../shared/corpora]
                                     [--cache /tmp/skillsift-quality-cache] [--json FILE]

Protocol (docs/ranking-quality.md, "Known requests"): the cases of each set are split in two
halves by a seeded permutation (seed :data:`SPLIT_SEED`).  The requests of half A, each
labelled with its expected skills, become the examples; half B is scored; then the halves
swap.  Every case is therefore scored exactly once, by a ranking that never saw its own
request, and each row's figures are over all cases of the set.  Rows are paired with the
issue's sketch (``0.5 x description cosine + 0.5 x best example cosine``) and with the
ranking without examples, with 95% bootstrap intervals (``skillsift.evaluate.intervals``).

Signals: the local model (all-MiniLM-L6-v2 int8) embeds the skills (the default embedded
fields, name-free) and the requests once; an example's vector is its request's vector,
embedded as an index embeds example text.  Hybrid rows are the shipped blend (centred
cosine plus ``0.12 * bm25 / top bm25``, candidates 50) with the vector part replaced by
the combination named in the row.  Lexical rows add the examples as a BM25F field at a
weight (0 = no examples field, skillsift's lexical mode).  Embeddings are cached in
``--cache`` (shared with bench/transfer.py), so a second run embeds nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import harness  # noqa: F401  (the checkout's skillsift on the path)
import numpy as np
import transfer
from transfer import DEFAULT_CACHE, DEFAULT_CORPORA, DEFAULT_METATOOL, EmbedCache, metatool, real_skills

from skillsift.config.values import DEFAULT_EXAMPLE_WEIGHT
from skillsift.evaluate import tune
from skillsift.ranker.centring import CENTRE_SHRINK, centre
from skillsift.ranker.model.fusion import BLEND_SCALE
from skillsift.ranker.model.lift import combine, example_best, normalised
from skillsift.ranker.postings import FIELDS
from skillsift.ranker.tokenize import tokenize

SPLIT_SEED = 20240613
CANDIDATES = 50
WEIGHTS = (0.25, 0.4, 0.5, 0.6, 0.75)  # [search] example_weight candidates (the default: DEFAULT_EXAMPLE_WEIGHT)
LEX_EXAMPLE_WEIGHTS = (0.0, 0.25, 0.5, 1.0, 1.5, 2.5)


# -- the halves ------------------------------------------------------------------------------------


def halves(n: int, seed: int = SPLIT_SEED) -> np.ndarray:
    """True for the cases of half A."""
    perm = np.random.default_rng(seed).permutation(n)
    a = np.zeros(n, bool)
    a[perm[: n // 2]] = True
    return a


class Evidence:
    """For the scored rows, every example cosine of the other half, grouped per skill."""

    def __init__(self, q: np.ndarray, expected, n_skills: int, train: np.ndarray, test: np.ndarray, queries):
        rows, owners = [], []
        for i in np.flatnonzero(train).tolist():
            for t in expected[i]:
                rows.append(i)
                owners.append(t)
        order = np.lexsort((np.asarray(rows), np.asarray(owners)))
        self.rows = np.asarray(rows, dtype=np.intp)[order]
        self.owner = np.asarray(owners, dtype=np.intp)[order]
        self.n_skills = n_skills
        self.test = np.flatnonzero(test)
        self.cos = q[self.test] @ q[self.rows].T  # scored cases x examples (sorted by owner)
        # the leakage rule: an example with the case's own (normalised) text is left out
        cols: dict = {}
        for c, i in enumerate(self.rows.tolist()):
            cols.setdefault(normalised(queries[i]), []).append(c)
        for r, i in enumerate(self.test.tolist()):
            for c in cols.get(normalised(queries[i]), ()):
                self.cos[r, c] = -np.inf
        self.left_out = int(np.isinf(self.cos).sum())

    def best(self, how: str = "max", temperature: float = 0.05):
        return example_best(self.cos, self.owner, self.n_skills, how=how, temperature=temperature)


# -- lexical with an examples field ------------------------------------------------------------------


def bm25f(skills, queries, example_texts, w_examples: float) -> np.ndarray:
    """BM25F with the reference's fields and weights plus ``examples`` at ``w_examples`` (k1 1.2, b 0.75)."""
    docs = []
    for s, extra in zip(skills, example_texts, strict=True):
        tf: dict = {}
        length = 0.0
        parts = [(getattr(s, f) if isinstance(getattr(s, f), str) else " ".join(getattr(s, f)), w)
                 for f, w in FIELDS]
        if w_examples > 0:
            parts.append((" ".join(extra), w_examples))
        for text, w in parts:
            for t in tokenize(text or ""):
                tf[t] = tf.get(t, 0.0) + w
                length += w
        docs.append((tf, length))
    n = len(docs)
    avg = sum(length for _, length in docs) / n
    postings: dict = {}
    for di, (tf, length) in enumerate(docs):
        norm = 1.2 * (0.25 + 0.75 * length / avg)
        for t, x in tf.items():
            postings.setdefault(t, []).append((di, x, norm))
    out = np.zeros((len(queries), n))
    from skillsift.ranker.lexical import LexicalIndex

    for qi, q in enumerate(queries):
        for t in LexicalIndex.query_terms(q):
            plist = postings.get(t)
            if not plist:
                continue
            idf = math.log(1 + (n - len(plist) + 0.5) / (len(plist) + 0.5))
            for di, x, norm in plist:
                out[qi, di] += idf * x * 2.2 / (x + norm)
    return out


# -- scoring ---------------------------------------------------------------------------------------


def blend_series(vec: np.ndarray, lex: np.ndarray, sig: tune.Signals, plain_rank=None) -> tune.Series:
    """The blend of ``vec`` (the ranked similarity) and ``lex``: candidates 50 by each, ties by name."""
    matched = lex > 0
    chosen = tune._top_mask(vec if plain_rank is None else plain_rank, sig.tie, CANDIDATES) | tune._top_mask(
        lex, sig.tie, CANDIDATES, matched)
    top = lex.max(axis=1, keepdims=True)
    top[top <= 0] = 1.0
    score = np.round(vec + BLEND_SCALE * np.where(matched, lex / top, 0.0), 9)
    return tune.Series.of(tune.ranks(score, chosen, sig))


def vector_series(vec: np.ndarray, sig: tune.Signals) -> tune.Series:
    return tune.Series.of(tune.ranks(np.round(vec, 6), np.ones_like(vec, bool), sig))


def lexical_series(lex: np.ndarray, sig: tune.Signals) -> tune.Series:
    return tune.Series.of(tune.ranks(lex, lex > 0, sig))


def sub_signals(sig: tune.Signals, rows) -> tune.Signals:
    return tune.Signals(sig.lexical[rows], {}, sig.tie, [sig.expected[i] for i in rows])


def stitched(parts) -> tune.Series:
    """One series over all cases from (rows, series of those rows) pairs."""
    n = sum(len(r) for r, _ in parts)
    rr, top1, hit = np.zeros(n), np.zeros(n), np.zeros(n)
    for rows, s in parts:
        rr[rows], top1[rows], hit[rows] = s.rr, s.top1, s.hit
    return tune.Series(rr, top1, hit)


def fmt(d) -> str:
    return f"{d[0]:+.3f} [{d[1]:+.3f}, {d[2]:+.3f}]"


def run_set(name: str, skills, queries, sig: tune.Signals, out: dict) -> None:
    n, m = len(queries), len(skills)
    q = np.asarray(sig.queries, dtype=np.float64)
    docs = np.asarray(sig.docs[tune.NAME_FREE], dtype=np.float64)
    plain_all = q @ docs.T
    cen_docs = centre(docs, range(m), CENTRE_SHRINK).astype(np.float64)
    cen_all = q @ cen_docs.T
    a = halves(n)
    directions = [(a, ~a), (~a, a)]
    rows: dict[str, list] = {}

    def add(label, rows_series):
        rows.setdefault(label, []).append(rows_series)

    for train, test in directions:
        ev = Evidence(q, sig.expected, m, train, test, queries)
        t = ev.test
        ss = sub_signals(sig, t)
        plain, cen, lex = plain_all[t], cen_all[t], sig.lexical[t]
        best, has = ev.best("max")
        add("cosine only (vector mode), no examples", (t, vector_series(plain, ss)))
        add("hybrid (blend), no examples", (t, blend_series(cen, lex, ss)))
        add("lexical, no examples", (t, lexical_series(lex, ss)))
        # the sketch: 0.5 x description cosine + 0.5 x best example cosine
        sketch = 0.5 * plain + 0.5 * np.where(has, best, plain)
        add("sketch: 0.5 cos + 0.5 best example cos (vector)", (t, vector_series(sketch, ss)))
        add("sketch + lexical blend bonus (hybrid)", (t, blend_series(sketch, lex, ss)))
        sketch0 = 0.5 * plain + 0.5 * np.where(has, best, 0.0)
        add("sketch, no example counts 0 (vector)", (t, vector_series(sketch0, ss)))
        top2, _ = ev.best("top2")
        for w in WEIGHTS:
            mark = " (shipped)" if w == DEFAULT_EXAMPLE_WEIGHT else ""
            add(f"c + w max(0, e - c), e = best example, w={w} (vector)",
                (t, vector_series(combine(plain, best, has, w), ss)))
            add(f"c + w max(0, e - c), e = best example, centred c, w={w} (hybrid)",
                (t, blend_series(combine(cen, best, has, w), lex, ss)))
            add(f"c + w max(0, e - c), e = mean of the two best, w={w}{mark} (vector)",
                (t, vector_series(combine(plain, top2, has, w), ss)))
            add(f"c + w max(0, e - c), e = mean of the two best, centred c, w={w}{mark} (hybrid)",
                (t, blend_series(combine(cen, top2, has, w), lex, ss)))
        for w in (0.5,):
            mix = (1 - w) * cen + w * np.where(has, best, cen)
            add(f"linear mixture (no max floor), centred, w={w} (hybrid)", (t, blend_series(mix, lex, ss)))
            add("max(centred cos, best ex) (hybrid)", (t, blend_series(np.maximum(cen, np.where(has, best, -1)),
                                                                       lex, ss)))
            for temp in (0.02, 0.05):
                soft, _ = ev.best("softmax", temp)
                add(f"log-sum-exp of example cosines T={temp}, centred, w=0.5 (hybrid)",
                    (t, blend_series(combine(cen, soft, has, 0.5), lex, ss)))
            # example cosines centred on the mean example vector
            ex_mean = q[ev.rows].mean(axis=0)
            qc = q[t] - 0.9 * ex_mean
            ec = q[ev.rows] - 0.9 * ex_mean
            qc /= np.linalg.norm(qc, axis=1, keepdims=True)
            ec /= np.linalg.norm(ec, axis=1, keepdims=True)
            cbest, _ = example_best(np.where(np.isinf(ev.cos), -np.inf, qc @ ec.T), ev.owner, m)
            add("example cosines centred on the examples' mean, w=0.5 (hybrid)",
                (t, blend_series(combine(cen, cbest, has, 0.5), lex, ss)))
            # examples as a third ranked list in RRF (lexical, description cosine, best example cosine)
            ex_rank = np.where(has, best, -np.inf)
            r_lex = tune._ranks_in_list(lex, sig.tie, tune._top_mask(lex, sig.tie, CANDIDATES, lex > 0))
            r_vec = tune._ranks_in_list(plain, sig.tie, tune._top_mask(plain, sig.tie, CANDIDATES))
            r_ex = tune._ranks_in_list(ex_rank, sig.tie, tune._top_mask(ex_rank, sig.tie, CANDIDATES, has))
            rrf = sum(np.where(r > 0, 1.0 / (60 + r), 0.0) for r in (r_lex, r_vec, r_ex))
            add("RRF k=60 of lexical, cosine and best-example lists (hybrid)",
                (t, tune.Series.of(tune.ranks(np.round(rrf, 9), rrf > 0, ss))))
        # lexical: examples as a BM25F field
        texts = [[] for _ in range(m)]
        for i, o in zip(ev.rows.tolist(), ev.owner.tolist(), strict=True):
            texts[o].append(queries[i])
        test_queries = [queries[i] for i in t.tolist()]
        for w in LEX_EXAMPLE_WEIGHTS:
            lx = bm25f(skills, test_queries, texts, w)
            if w == 0:
                assert np.allclose(lx, lex, atol=1e-9), "the harness BM25F must equal the ranker's"
            add(f"lexical, examples as a BM25F field at weight {w}", (t, lexical_series(lx, ss)))
            if w > 0:
                add(f"shipped hybrid with the lexical examples field at {w}",
                    (t, blend_series(combine(cen, top2, has, DEFAULT_EXAMPLE_WEIGHT), lx, ss)))

    series = {label: stitched(parts) for label, parts in rows.items()}
    sketch = series["sketch + lexical blend bonus (hybrid)"]
    shipped = series[f"c + w max(0, e - c), e = mean of the two best, centred c, w={DEFAULT_EXAMPLE_WEIGHT} "
                     "(shipped) (hybrid)"]
    base_h = series["hybrid (blend), no examples"]
    base_l = series["lexical, no examples"]
    print(f"\n{name}: {n} cases ({a.sum()} / {(~a).sum()} per half), {m} skills; every case scored once, "
          "with the other half's requests as examples")
    print("| ranking | top1 | MRR | dtop1 vs sketch (hybrid) | dMRR vs sketch (hybrid) | dMRR vs shipped (hybrid) "
          "| dMRR vs no examples (same mode) |")
    print("|---|---|---|---|---|---|---|")
    out[name] = {}
    for label, s in series.items():
        vs = s.versus(sketch)
        vv = s.versus(shipped)["mrr"]
        base = base_l if label.startswith("lexical") else (
            series["cosine only (vector mode), no examples"] if label.endswith("(vector)") or "vector mode" in label
            else base_h)
        vb = s.versus(base)["mrr"]
        out[name][label] = {"top1": float(s.top1.mean()), "mrr": float(s.rr.mean()), "dtop1_vs_sketch": vs["top1"],
                            "dmrr_vs_sketch": vs["mrr"], "dmrr_vs_shipped": vv, "dmrr_vs_no_examples": vb}
        print(f"| {label} | {s.top1.mean():.3f} | {s.rr.mean():.3f} | {fmt(vs['top1'])} | {fmt(vs['mrr'])} "
              f"| {fmt(vv)} | {fmt(vb)} |", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--metatool", type=Path, default=DEFAULT_METATOOL)
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--only", choices=("metatool", "skills"))
    args = parser.parse_args(argv)
    from skillsift.embed.local import LocalProvider

    transfer.VARIANTS = {"name-free": tune.NAME_FREE}  # the default embedded fields only
    cache = EmbedCache(args.cache, LocalProvider())
    out: dict = {"split_seed": SPLIT_SEED}
    if args.only != "skills":
        skills, queries, sig = metatool(args.metatool, cache)
        run_set("MetaTool dev", skills, queries, sig, out)
    if args.only != "metatool":
        skills, queries, sig, _ds = real_skills(args.corpora, cache)
        run_set("real skills", skills, queries, sig, out)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
