"""Which hybrid setting transfers: every candidate on two development sets, with intervals.

    python bench/transfer.py [--metatool ../shared/benchmarks/metatool-dev] [--corpora ../shared/corpora]
                             [--cache /tmp/skillsift-quality-cache] [--json FILE] [--long]

Sets: the MetaTool development split (199 tools, 1,468 queries) and the real-skills set of
``bench/skills_devset.py`` (every skill of ../shared/corpora, queries from their "When to
use" sections, leaks removed; see that file).  Each setting is scored with
``skillsift.evaluate.tune`` on the same signals: the reference BM25F of skillsift's
lexical ranker (so the lexical row is exactly skillsift's lexical mode) and the cosines of
the local model (all-MiniLM-L6-v2 int8), for each embedded-field variant.  Every row has
95% bootstrap intervals and paired MRR differences against cosine only (all fields, the
``auto`` fusion) and against the setting docs/ranking-quality.md recommended before
(blend 0.08, name-free fields).

Embeddings are cached in ``--cache`` (one ``.npz`` per model, keyed by the sha256 of each
text), so a second run embeds nothing.  ``--long`` adds the long-query experiment: the
queries of both sets, as they are and padded into task instructions of about 1.7 and 4 KB
by generic task sentences (seeded), embedded as the ranker does with ``[search] long_query``
``"truncate"`` and ``"max-piece"`` (see :func:`long_queries`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np
from harness import METATOOL
from skills_devset import DEFAULT_CORPORA
from skills_devset import build as build_devset

from skillsift.catalog.embedtext import embedded_text
from skillsift.catalog.load import load_catalog
from skillsift.config import Config
from skillsift.evaluate import tune
from skillsift.evaluate.cases import load_cases
from skillsift.ranker.centring import centre
from skillsift.ranker.lexical import LexicalIndex
from skillsift.ranker.screens import cap_query, normalise_query

DEFAULT_METATOOL = METATOOL
DEFAULT_CACHE = Path("/tmp/skillsift-quality-cache")
VARIANTS = {
    "all fields": tune.ALL_FIELDS,
    "name-free": tune.NAME_FREE,
    "name+description": ("name", "description"),
    "description only": ("description",),
}


class EmbedCache:
    """Vectors by sha256 of the text, one ``.npz`` per model under ``root``."""

    def __init__(self, root: Path, provider):
        self.root, self.provider = root, provider
        root.mkdir(parents=True, exist_ok=True)
        self.file = root / "all-MiniLM-L6-v2-int8.npz"
        self.vectors: dict[str, np.ndarray] = {}
        if self.file.is_file():
            data = np.load(self.file)
            self.vectors = dict(zip(data["keys"].tolist(), data["vecs"], strict=True))

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def get(self, texts: list[str], label: str) -> np.ndarray:
        keys = [self.key(t) for t in texts]
        todo = list(dict.fromkeys(k for k in keys if k not in self.vectors))
        if todo:
            by_key = dict(zip(keys, texts, strict=True))
            started = time.perf_counter()
            for i in range(0, len(todo), 64):
                batch = todo[i:i + 64]
                vecs = np.asarray(self.provider.embed([by_key[k] for k in batch]), dtype=np.float32)
                self.vectors.update(zip(batch, vecs, strict=True))
            print(f"  embedded {len(todo)} texts ({label}) in {time.perf_counter() - started:.1f} s", flush=True)
            keys_arr = np.asarray(list(self.vectors))
            np.savez(self.file, keys=keys_arr, vecs=np.vstack([self.vectors[k] for k in keys_arr.tolist()]))
        return np.vstack([self.vectors[k] for k in keys])


def unit(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float64)
    n = np.linalg.norm(m, axis=1, keepdims=True)
    n[n == 0] = 1.0
    return (m / n).astype(np.float32)


def lexical_matrix(skills, queries) -> np.ndarray:
    index = LexicalIndex(skills)
    out = np.zeros((len(queries), len(skills)))
    for qi, q in enumerate(queries):
        for i, score in index.rank(q):
            out[qi, i] = score
    return out


def coverage_of(skills, queries, lex) -> np.ndarray:
    """Per case: the share of its query terms found in the ranked fields of its top lexical match
    (the zscore fusion's lexical weight, as :meth:`~skillsift.ranker.lexical_hits.LexicalList.coverage`)."""
    from skillsift.ranker.postings import FIELDS
    from skillsift.ranker.tokenize import tokenize

    terms_of: dict = {}
    out = np.zeros(len(queries))
    for qi, q in enumerate(queries):
        terms = set(LexicalIndex.query_terms(q))
        if not terms or lex[qi].max() <= 0:
            continue
        top = int(np.argmax(lex[qi]))
        if top not in terms_of:
            s = skills[top]
            words: set = set()
            for f, _w in FIELDS:
                v = getattr(s, f)
                words.update(tokenize(v if isinstance(v, str) else " ".join(v or ())))
            terms_of[top] = words
        out[qi] = len(terms & terms_of[top]) / len(terms)
    return out


def signals(skills, queries, expected, cache: EmbedCache, label: str, query_vectors=None) -> tune.Signals:
    docs = {}
    for name, fields in VARIANTS.items():
        docs[fields] = unit(cache.get([embedded_text(s, fields) for s in skills], f"{label} docs, {name}"))
    if query_vectors is None:
        raw = cache.get([cap_query(q) for q in queries], f"{label} queries")
        query_vectors = np.vstack([normalise_query(v) for v in raw])
    lexical = lexical_matrix(skills, queries)
    sig = tune.signals_from(lexical, docs, query_vectors, [s.name for s in skills], expected)
    sig.coverage = coverage_of(skills, queries, lexical)
    sig.terms = np.asarray([len(LexicalIndex.query_terms(q)) for q in queries], dtype=np.int64)
    return sig


def metatool(data: Path, cache: EmbedCache):
    config = Config(root=str(data), skills=("skills/*",))
    skills = list(load_catalog(str(data), config).skills)
    position = {s.name: i for i, s in enumerate(skills)}
    cases = [c for c in load_cases(str(data / "cases.yaml")).cases if not c.negative]
    queries = [c.query for c in cases]
    expected = [[position[n] for n in c.expect_ids] for c in cases]
    return skills, queries, signals(skills, queries, expected, cache, "metatool")


def real_skills(corpora: Path, cache: EmbedCache):
    ds = build_devset(corpora)
    skills = list(ds.skills)
    position = {s.name: i for i, s in enumerate(skills)}
    queries = [c.query for c in ds.cases]
    expected = [[position[c.skill]] for c in ds.cases]
    print(f"real-skills set: {len(skills)} skills, {len(queries)} cases (digest {ds.digest()})")
    return skills, queries, signals(skills, queries, expected, cache, "real skills"), ds


BONUSES = (0.02, 0.04, 0.06, 0.08, 0.10, 0.12, 0.14, 0.16, 0.24)  # the blend's bonus at its top lexical match
TODAY = tune.Setting("blend", tune.NAME_FREE, 0.08 / tune.BLEND_SCALE, 50)  # recommended before: bonus 0.08
COSINE = tune.Setting("auto", tune.ALL_FIELDS, 1.0, 50)


def candidates() -> list[tune.Setting]:
    out = []
    for fields in VARIANTS.values():
        out.append(tune.Setting("auto", fields))
        out.extend(tune.Setting("blend", fields, b / tune.BLEND_SCALE) for b in BONUSES)
        out.extend(tune.Setting("rrf", fields, w) for w in (0.25, 0.5, 1.0))
        out.extend(tune.Setting("weighted", fields, w) for w in (0.25, 0.5, 1.0))
        out.extend(tune.Setting("zscore", fields, w) for w in tune.ZSCORE_WEIGHTS)
        out.extend(tune.Setting("zscore-mnz", fields, w) for w in tune.ZSCORE_WEIGHTS)
    for fields in (tune.ALL_FIELDS, tune.NAME_FREE):
        for cand in (20, 100, 200):
            out.append(tune.Setting("blend", fields, 0.08 / tune.BLEND_SCALE, cand))
            out.append(tune.Setting("blend", fields, 1.0, cand))
    return out


def fmt(d) -> str:
    return f"{d[0]:+.4f} [{d[1]:+.4f}, {d[2]:+.4f}]"


def table(name: str, sig: tune.Signals, settings) -> dict:
    rows = {}
    lexical = tune.series_of(None, sig)
    cosine = tune.series_of(COSINE, sig)
    today = tune.series_of(TODAY, sig)
    print(f"\n{name}: {len(sig.expected)} cases, {sig.lexical.shape[1]} skills")
    print("| setting | top1 (95% CI) | MRR (95% CI) | hit@5 | dMRR vs cosine only | dMRR vs blend 0.08 name-free |")
    print("|---|---|---|---|---|---|")
    for label, s in [("lexical (reference BM25F)", lexical)] + [(st.label(), tune.series_of(st, sig))
                                                                 for st in settings]:
        summ = s.summary()
        dc, dt = s.versus(cosine)["mrr"], s.versus(today)["mrr"]
        rows[label] = {**summ, "dmrr_vs_cosine": dc, "dmrr_vs_today": dt, "dtop1_vs_cosine": s.versus(cosine)["top1"]}
        print(f"| {label} | {summ['top1']:.3f} ({summ['top1_ci'][0]:.3f}-{summ['top1_ci'][1]:.3f}) "
              f"| {summ['mrr']:.3f} ({summ['mrr_ci'][0]:.3f}-{summ['mrr_ci'][1]:.3f}) | {summ['hit_at_k']:.3f} "
              f"| {fmt(dc)} | {fmt(dt)} |", flush=True)
    return rows


def choose(results: dict, settings) -> None:
    """Settings never worse than cosine only on either set (paired MRR and top1 interval low >= 0... or
    containing 0), ordered by their worse set's MRR gain."""
    print("\nsettings whose paired MRR and top1 intervals vs cosine only do not lie below 0 on both sets, "
          "by the smaller MRR gain of the two sets:")
    ok = []
    for st in settings:
        label = st.label()
        rs = [results[name][label] for name in results]
        if all(r["dmrr_vs_cosine"][2] >= 0 and r["dtop1_vs_cosine"][2] >= 0 for r in rs) and all(
                r["dmrr_vs_cosine"][1] > -0.005 for r in rs):
            ok.append((min(r["dmrr_vs_cosine"][0] for r in rs), label, rs))
    ok.sort(key=lambda t: -t[0])
    for gain, label, rs in ok[:15]:
        print(f"  {label:60s} min gain {gain:+.4f}  " + "  ".join(
            f"{n}: {fmt(r['dmrr_vs_cosine'])} (vs today {fmt(r['dmrr_vs_today'])})"
            for n, r in zip(results, rs, strict=True)))


BOILERPLATE = (
    "You are working in a large repository with many packages and a continuous integration pipeline.",
    "Read the relevant files before you change anything and keep the existing style of the code.",
    "Run the test suite after every change and make sure that it passes before you report back.",
    "Do not add new dependencies unless they are strictly necessary for the task.",
    "Write clear commit messages that explain what changed and why.",
    "If something is unclear, state your assumptions explicitly in the final summary.",
    "The environment has no network access, so everything must work offline.",
    "Keep the changes minimal and focused on what was asked; avoid unrelated refactoring.",
    "Document any new behaviour in the appropriate place so that other people can find it.",
    "Prefer small, well-tested functions over large ones and handle errors gracefully.",
    "When you are done, list the files you touched and summarise how you verified the result.",
    "The team reviews every change carefully, so make the reasoning easy to follow.",
    "Time is limited: finish the most important part first and leave notes about the rest.",
    "Respect the configuration files that are already present and do not overwrite user settings.",
    "Check the output carefully and compare it with what was expected before you finish.",
    "Use the tools that are available in the workspace and avoid manual steps where possible.",
    "Some files are generated; do not edit them by hand but regenerate them with the provided scripts.",
    "Security matters: never print secrets or credentials, and do not weaken existing checks.",
    "Performance is important for this project, so avoid needless work in hot paths.",
    "The previous attempt at this task was abandoned halfway, so some files may be inconsistent.",
)
# (label, cases sampled per set, boilerplate characters, seed): pieces cost about 5 (1.7 KB) and
# 11 (4 KB) embeddings per case
LONG_SHAPES = (("~1.7 KB", 300, 1700, 7), ("~4 KB", 150, 3900, 8))


def padded(queries, size: int, count: int, seed: int) -> tuple[np.ndarray, list[str]]:
    """A seeded sample of ``queries``, each inside ``size`` characters of generic task text.

    The 1.7 KB shape is the earlier experiment's (20 sentences drawn without replacement,
    seed 7); the 4 KB one draws the sentences with replacement.  The request comes first
    or last, half each, as an agent's task instruction reads.
    """
    rng = np.random.default_rng(seed)
    chosen = np.sort(rng.permutation(len(queries))[:count])
    texts = []
    for i in chosen:
        pad = ""
        if size <= 1800:
            for j in rng.permutation(len(BOILERPLATE)):
                if len(pad) + len(BOILERPLATE[j]) > size:
                    break
                pad = f"{pad} {BOILERPLATE[j]}".strip()
        else:
            while True:
                sentence = BOILERPLATE[int(rng.integers(len(BOILERPLATE)))]
                if len(pad) + len(sentence) > size:
                    break
                pad = f"{pad} {sentence}".strip()
        q = queries[i]
        texts.append(f"{q}. {pad}" if rng.random() < 0.5 else f"{pad} Task: {q}.")
    return chosen, texts


def query_signals(skills, texts, expected, cache: EmbedCache, docs: dict, how: str, embedder, label: str,
                  lex=None, key=None) -> tune.Signals:
    """Signals of ``texts`` embedded as the ranker does with ``[search] long_query = how``.

    ``truncate``: the capped text (the model reads its first 256 tokens).  ``max-piece``: a
    text the ranker's rule finds long is embedded in the ranker's pieces, and each skill's
    plain and centred cosines are its best piece's (what ``VectorSearch`` computes exactly).
    ``key``: another way to cut a long text (the sweep of :func:`long_sweep`).
    """
    from skillsift.ranker.centring import CENTRE_SHRINK

    key = key or embedder.key
    keys = [cap_query(t) if how == "truncate" else key(t) for t in texts]
    flat = list(dict.fromkeys(x for k in keys for x in (k if isinstance(k, tuple) else (k,))))
    vec = dict(zip(flat, (normalise_query(v) for v in cache.get(flat, f"{label}, {how}")), strict=True))
    first = np.vstack([vec[k[0] if isinstance(k, tuple) else k] for k in keys])
    lex = lexical_matrix(skills, texts) if lex is None else lex
    sig = tune.signals_from(lex, docs, first, [s.name for s in skills], expected)
    long_rows = [i for i, k in enumerate(keys) if isinstance(k, tuple)]
    for f, d in docs.items():
        d64 = np.asarray(d, dtype=np.float64)
        cen = centre(d64, range(len(d64)), CENTRE_SHRINK).astype(np.float64)
        sig._centred[f] = sig.centred(f)
        for i in long_rows:
            pv = np.vstack([vec[p] for p in keys[i]]).astype(np.float64)
            sig.cosine[f][i] = (pv @ d64.T).max(axis=0)
            sig._centred[f][i] = (pv @ cen.T).max(axis=0)
    sig.long_count = len(long_rows)
    sig.pieces = sum(len(keys[i]) for i in long_rows)
    return sig


def long_queries(sets: dict, cache: EmbedCache) -> dict:
    """Truncation vs max-piece as the ranker ships them, on both sets, normal and padded queries.

    ``sets``: name -> (skills, queries, normal-query signals).  For the normal queries the
    truncated signals are the tables' own; the max-piece ones differ only in the queries the
    ranker's rule finds long.  Each padded shape is a seeded sample per set
    (:data:`LONG_SHAPES`).  Rows: cosine only over all fields and the shipped blend (bonus
    0.12, name-free fields); paired MRR difference max-piece minus truncate.
    """
    from skillsift.ranker.query_embedding import QueryEmbedder

    embedder = QueryEmbedder(cache.provider, 0)
    shipped = tune.Setting("blend", tune.NAME_FREE, 1.0)
    out: dict = {}
    print("\nlong queries: truncate vs max-piece ([search] long_query), MRR and paired max-piece - truncate")
    print("| set | queries | long by the rule (pieces) | setting | truncate MRR | max-piece MRR "
          "| paired dMRR (95% CI) |")
    print("|---|---|---|---|---|---|---|")
    for name, (skills, queries, sig) in sets.items():
        docs = {f: sig.docs[f] for f in (tune.ALL_FIELDS, tune.NAME_FREE)}
        shapes = [("normal", queries, sig.expected, sig, None)]
        for label, count, size, seed in LONG_SHAPES:
            chosen, texts = padded(queries, size, count, seed)
            expected = [sig.expected[i] for i in chosen]
            shapes.append((label, texts, expected, None, lexical_matrix(skills, texts)))
        for label, texts, expected, trunc, lex in shapes:
            if trunc is None:
                trunc = query_signals(skills, texts, expected, cache, docs, "truncate", embedder,
                                      f"{name} {label}", lex)
            piece = query_signals(skills, texts, expected, cache, docs, "max-piece", embedder,
                                  f"{name} {label}", trunc.lexical)
            for st in (COSINE, shipped):
                a, b = tune.series_of(st, trunc), tune.series_of(st, piece)
                d = b.versus(a)["mrr"]
                row = {"queries": len(texts), "long": piece.long_count, "pieces": piece.pieces,
                       "truncate": a.summary(), "max_piece": b.summary(), "dmrr": d}
                out[f"{name} / {label} / {st.label()}"] = row
                print(f"| {name} | {label} ({len(texts)}) | {piece.long_count} ({piece.pieces}) | {st.label()} "
                      f"| {a.rr.mean():.3f} | {b.rr.mean():.3f} | {fmt(d)} |", flush=True)
    return out


def long_sweep(sets: dict, cache: EmbedCache) -> dict:
    """Piece size and overlap, on the ~1.7 KB padded queries of both sets (paired vs the shipped 80 words)."""
    from skillsift.ranker.query_embedding import QueryEmbedder
    from skillsift.ranker.screens import LONG_QUERY_CAP_BYTES, MAX_PIECES, query_pieces

    embedder = QueryEmbedder(cache.provider, 0)

    def cut(words: int, overlap: int):
        def key(text: str):
            if not embedder.is_long(text):
                return cap_query(text)
            if not overlap:
                return query_pieces(cap_query(text, LONG_QUERY_CAP_BYTES), words)
            tokens = cap_query(text, LONG_QUERY_CAP_BYTES).split()
            return tuple(" ".join(tokens[i:i + words]) for i in range(0, len(tokens), words - overlap))[:MAX_PIECES]
        return key

    variants = {f"{w} words{f', overlap {o}' if o else ''}": cut(w, o)
                for w, o in ((40, 0), (60, 0), (100, 0), (120, 0), (160, 0), (80, 20))}
    label, count, size, seed = LONG_SHAPES[0]
    out: dict = {}
    print(f"\nlong-query piece sweep ({label} padded queries; paired MRR vs the shipped 80 words, no overlap):")
    for name, (skills, queries, sig) in sets.items():
        docs = {f: sig.docs[f] for f in (tune.ALL_FIELDS, tune.NAME_FREE)}
        chosen, texts = padded(queries, size, count, seed)
        expected = [sig.expected[i] for i in chosen]
        lex = lexical_matrix(skills, texts)
        ref = query_signals(skills, texts, expected, cache, docs, "max-piece", embedder, f"{name} {label}", lex)
        for vname, key in variants.items():
            vs = query_signals(skills, texts, expected, cache, docs, "max-piece", embedder,
                               f"{name} {label} {vname}", lex, key=key)
            for st in (COSINE, tune.Setting("blend", tune.NAME_FREE, 1.0)):
                a, b = tune.series_of(st, ref), tune.series_of(st, vs)
                d = b.versus(a)["mrr"]
                out[f"{name} / {vname} / {st.label()}"] = {"mrr": float(b.rr.mean()), "pieces": vs.pieces, "dmrr": d}
                print(f"| {name} | {vname} ({vs.pieces} pieces) | {st.label()} | {b.rr.mean():.3f} | {fmt(d)} |",
                      flush=True)
    return out


def ideas(results_sigs: dict) -> dict:
    """Other fusions of the same signals, each on both sets (paired MRR vs the shipped blend)."""
    shipped = tune.Setting("blend", tune.NAME_FREE, 1.0)
    nf = tune.NAME_FREE

    def lexnorm(sig):
        top = sig.lexical.max(axis=1, keepdims=True)
        top[top <= 0] = 1.0
        return sig.lexical / top

    def zblend(a):
        def f(sig):
            c = sig.centred(nf)
            z = (c - c.mean(axis=1, keepdims=True)) / c.std(axis=1, keepdims=True)
            return z + a * lexnorm(sig), np.ones_like(c, bool)
        return f

    def spread(w):
        def f(sig):
            c = sig.centred(nf)
            top = -np.sort(-c, axis=1)
            return c + w * (top[:, :1] - top[:, 9:10]) * lexnorm(sig), np.ones_like(c, bool)
        return f

    rows = {}
    print("\nideas (name-free fields; paired MRR vs the shipped blend, bonus 0.12):")
    for label, fn in ([(f"z-scored centred cosine + {a} * bm25/max", zblend(a)) for a in (1.0, 1.5, 2.0)]
                      + [(f"bonus {w} x the query's top-10 cosine spread", spread(w)) for w in (0.5, 1.0, 1.5)]):
        parts = []
        for name, sig in results_sigs.items():
            scores, returned = fn(sig)
            s = tune.Series.of(tune.ranks(scores, returned, sig))
            d = s.versus(tune.series_of(shipped, sig))["mrr"]
            rows.setdefault(label, {})[name] = {**s.summary(), "dmrr_vs_shipped": d}
            parts.append(f"{name}: MRR {s.rr.mean():.3f} {fmt(d)}")
        print(f"| {label} | " + " | ".join(parts) + " |", flush=True)
    return rows


def tune_check(sigs: dict) -> dict:
    """What ``skillsift tune`` chooses on each set, cross-validated, and fitted on one half.

    The grid and the current setting are tune's own (the shipped default is current).
    Half split: seeded permutation (20240613); tune's choice on half A ranks half B, which
    is compared with the best fixed setting on B (chosen on B itself, an oracle) and with
    the shipped default.
    """
    from skillsift.config import SearchConfig
    from skillsift.evaluate.tune_run import current_setting, settings_for

    out = {}
    print("\ntune on each set (5 fixed folds; half split seed 20240613):")
    for name, sig in sigs.items():
        current = current_setting(SearchConfig(mode="hybrid"))
        settings, cur, cos = settings_for(current, sig.lexical.shape[1])
        res = tune.cross_validate(settings, sig, cur, cos)
        n = len(sig.expected)
        perm = np.random.default_rng(20240613).permutation(n)
        a = np.zeros(n, bool)
        a[perm[: n // 2]] = True
        pick_a = tune._best(res.series, a)
        oracle_b = tune._best(res.series, ~a)
        on_b = _rows(res.series[pick_a], ~a)
        rec = {"winner": settings[res.winner].label(), "cv": res.held_out.summary(),
               "cv_vs_default": res.held_out.versus(res.series[cur])["mrr"],
               "cv_vs_cosine": res.held_out.versus(res.series[cos])["mrr"], "change": res.change(),
               "half_A_choice": settings[pick_a].label(), "half_B_mrr": _r(on_b.rr.mean()),
               "half_B_best_fixed": settings[oracle_b].label(),
               "half_B_best_fixed_mrr": _r(res.series[oracle_b].rr[~a].mean()),
               "half_B_default_mrr": _r(res.series[cur].rr[~a].mean()),
               "half_B_vs_best_fixed": on_b.versus(_rows(res.series[oracle_b], ~a))["mrr"]}
        out[name] = rec
        print(f"  {name}: winner {rec['winner']}; cross-validated MRR {rec['cv']['mrr']:.4f} "
              f"vs shipped default {fmt(rec['cv_vs_default'])}, vs cosine only {fmt(rec['cv_vs_cosine'])}; "
              f"would write: {rec['change']}")
        print(f"    fitted on half A: {rec['half_A_choice']} -> MRR on B {rec['half_B_mrr']:.4f}; best fixed on B "
              f"({rec['half_B_best_fixed']}) {rec['half_B_best_fixed_mrr']:.4f}, "
              f"paired {fmt(rec['half_B_vs_best_fixed'])}; "
              f"shipped default on B {rec['half_B_default_mrr']:.4f}", flush=True)
    return out


def _rows(series: tune.Series, mask) -> tune.Series:
    """The cases of ``mask`` of ``series``."""
    return tune.Series(series.rr[mask], series.top1[mask], series.hit[mask])


def _r(x) -> float:
    return float(f"{float(x):.4f}")


ds_root = DEFAULT_CORPORA


def main(argv=None) -> int:
    global ds_root
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--metatool", type=Path, default=DEFAULT_METATOOL)
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--long", action="store_true")
    parser.add_argument("--tune-only", action="store_true", help="only the tune check (and --long)")
    parser.add_argument("--long-only", action="store_true", help="only the long-query experiment")
    parser.add_argument("--long-sweep", action="store_true", help="with --long: piece sizes and overlap")
    args = parser.parse_args(argv)
    ds_root = args.corpora
    from skillsift.embed.local import LocalProvider

    cache = EmbedCache(args.cache, LocalProvider())
    settings = candidates()
    results = {}
    if args.tune_only or args.long_only:
        settings = []
    _skills, _q, sig = metatool(args.metatool, cache)
    sig_metatool = sig
    sigs = {"MetaTool dev": sig}
    results["MetaTool dev"] = table("MetaTool development split", sig, settings)
    skills, _q2, sig2, _ds = real_skills(args.corpora, cache)
    results["real skills"] = table("real-skills development set", sig2, settings)
    sigs["real skills"] = sig2
    choose(results, settings)
    out = {"results": results}
    if not args.long_only:
        out.update({"ideas": ideas(sigs), "tune": tune_check(sigs)})
    if args.long or args.long_only:
        long_sets = {"MetaTool dev": (_skills, _q, sig_metatool), "real skills": (skills, _q2, sig2)}
        out["long"] = long_queries(long_sets, cache)
        if args.long_sweep:
            out["long_sweep"] = long_sweep(long_sets, cache)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
