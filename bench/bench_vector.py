"""Benchmark vector and hybrid ranking: 100k-row search, hybrid latency, index build, evaluation.

    python bench/bench_vector.py [--rows 100000] [--dims 384] [--queries 200]
                                 [--corpus ../shared/corpora] [--example examples/acme]
                                 [--build-skills 1000] [--cases 2000] [--skip PART,...]

Parts (``--skip`` takes their names):

* ``scale``: a synthetic catalog of ``--rows`` skills (recombined from the real corpus when
  it is present, else generated words) with random unit vectors (fixed seed) in a float32
  and a float16 index.  Each query runs through ``Ranker.search`` (limit 10) in vector mode
  and in hybrid mode with the fusions auto, rrf and blend; the query vectors are computed
  beforehand and served from the ranker's query cache by a tiny provider, so the figures
  exclude the query embedding.  Half of the query vectors are a skill's vector plus noise
  (a paraphrase that has one clear answer), half are random directions.  Floors for the
  ratios: numpy alone (``matrix @ q`` in float32 plus ``argpartition`` of the 50 best), and
  the lexical search of the same query text (which every non-lexical search also runs).
* ``acme``: hybrid search on ``examples/acme`` with its committed index and the local model
  (needs ``skillsift[embed]``), warm: including the query embedding (query cache emptied
  before each search) and excluding it (query vector cached).
* ``build``: ``skillsift index``'s build step (plan + embed + assemble) with the local model
  over the first ``--build-skills`` real skills of the corpus.
* ``eval``: the evaluation of ``--cases`` labelled queries (derived from the corpus as
  ``bench_eval.py`` derives them) in the modes lexical, vector and hybrid, with an index
  built by a deterministic hashing embedder (words hashed into 384 dimensions), so the
  run measures ranking, not a model.

Parts whose inputs are missing are skipped with the reason.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import random
import re
import statistics
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from harness import CORPORA, ROOT

from skillsift.catalog.embedtext import embedded_text, text_digest
from skillsift.catalog.load import catalog_from_skills
from skillsift.catalog.skill import Skill
from skillsift.config import Config, SearchConfig
from skillsift.index.manifest import ManifestItem
from skillsift.index.store import new_index
from skillsift.ranker.search import Ranker

SEED = 20250607
DEFAULT_CORPUS = CORPORA
DEFAULT_EXAMPLE = ROOT / "examples" / "acme"
PARTS = ("scale", "acme", "build", "eval")


# -- helpers -------------------------------------------------------------------------------------


def _ms(seconds: list[float]) -> tuple[float, float]:
    """Median and p90 in milliseconds."""
    ordered = sorted(seconds)
    return statistics.median(ordered) * 1000, ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))] * 1000


def _timed(fn, items, rounds: int = 1) -> list[float]:
    """Per-item wall times of ``fn(item)``; with several rounds, the fastest round of each item."""
    best = [float("inf")] * len(items)
    for _ in range(rounds):
        for i, item in enumerate(items):
            start = time.perf_counter()
            fn(item)
            best[i] = min(best[i], time.perf_counter() - start)
    return best


class FixedVectors:
    """A provider that answers with vectors computed beforehand (text -> vector)."""

    fingerprint = "bench@fixed"
    model = "fixed"
    networked = False
    external = False
    max_batch = 256

    def __init__(self, vectors: dict[str, np.ndarray], dims: int):
        self.vectors = vectors
        self.dims = dims

    def embed(self, texts):
        return np.vstack([self.vectors[t] for t in texts]).astype(np.float32)


class HashingEmbedder:
    """Deterministic and cheap: each lowercase word adds +-1 to two of ``dims`` hashed slots."""

    fingerprint = "bench@hashing"
    model = "hashing-v1"
    networked = False
    external = False
    max_batch = 512
    _WORD = re.compile(r"[a-z0-9]+")

    def __init__(self, dims: int = 384):
        self.dims = dims
        self._slots: dict[str, tuple[int, float, int, float]] = {}

    def _slot(self, word: str):
        slot = self._slots.get(word)
        if slot is None:
            h = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
            slot = (h[0] | h[1] << 8) % self.dims, 1.0 if h[2] & 1 else -1.0, \
                (h[3] | h[4] << 8) % self.dims, 0.5 if h[5] & 1 else -0.5
            self._slots[word] = slot
        return slot

    def embed(self, texts):
        out = np.zeros((len(texts), self.dims), dtype=np.float64)
        for row, text in enumerate(texts):
            for word in self._WORD.findall(text.lower()):
                a, sa, b, sb = self._slot(word)
                out[row, a] += sa
                out[row, b] += sb
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return (out / norms).astype(np.float32)


def _index_for(skills, vectors, dtype: str, provider, config: Config):
    s = config.search
    items = [ManifestItem(sk.name, sk.domain, sk.digest,
                          text_digest(embedded_text(sk, s.fields, s.index_body, s.body_chars)))
             for sk in skills]
    return new_index(provider=provider.fingerprint, model=provider.model, items=items, vectors=vectors,
                     dtype=dtype, fields=s.fields)


# -- part 1: 100k rows ---------------------------------------------------------------------------


def synthetic_catalog(n: int, corpus: Path) -> tuple[list[Skill], list[str], str]:
    """``n`` skills and query texts; recombined from the corpus when present."""
    if corpus.is_dir() and any(corpus.rglob("SKILL.md")):
        from bench_lexical import load_skills, make_queries, synthesise

        base = load_skills(corpus)
        return synthesise(base, n), make_queries(base, 4000), f"recombined from {len(base):,} real skills"
    rng = random.Random(SEED)
    vocab = [f"w{i:04d}" for i in range(5000)]
    skills = [Skill(f"skill-{i:06d}", " ".join(rng.choice(vocab) for _ in range(rng.randint(6, 24))),
                    keywords=tuple(rng.choice(vocab) for _ in range(3))) for i in range(n)]
    queries = [" ".join(rng.choice(vocab) for _ in range(rng.randint(2, 5))) for _ in range(4000)]
    return skills, queries, "generated words (no corpus)"


def part_scale(args) -> None:
    n, dims = args.rows, args.dims
    print(f"\n== vector search over {n:,} x {dims} ==")
    start = time.perf_counter()
    skills, texts, origin = synthetic_catalog(n, args.corpus)
    rng = np.random.default_rng(SEED)
    docs = rng.standard_normal((n, dims), dtype=np.float32)
    docs /= np.linalg.norm(docs, axis=1, keepdims=True)
    texts = list(dict.fromkeys(texts))[: args.queries]
    qvecs = {}
    for i, text in enumerate(texts):
        if i % 2 == 0:  # a paraphrase of one skill: its vector plus noise
            v = docs[rng.integers(n)] + 0.08 * rng.standard_normal(dims, dtype=np.float32)
        else:
            v = rng.standard_normal(dims, dtype=np.float32)
        qvecs[text] = (v / np.linalg.norm(v)).astype(np.float32)
    provider = FixedVectors(qvecs, dims)
    print(f"catalog: {origin}, built in {time.perf_counter() - start:.1f} s; {len(texts)} queries, "
          f"limit 10, candidates 50")
    rows = []
    for dtype in ("float32", "float16"):
        config = Config(search=replace(SearchConfig(mode="hybrid")))
        start = time.perf_counter()
        index = _index_for(skills, docs, dtype, provider, config)
        built = time.perf_counter() - start
        matrix = index.matrix
        qs = [qvecs[t] for t in texts]

        def floor(q, m=matrix):
            s = m @ q
            top = np.argpartition(s, len(s) - 50)[len(s) - 50:]
            return top[np.argsort(-s[top], kind="stable")]

        floor_t = _ms(_timed(floor, qs, args.rounds))
        rankers = {}
        for label, mode, fusion in (("vector", "vector", "auto"), ("hybrid auto", "hybrid", "auto"),
                                    ("hybrid rrf", "hybrid", "rrf"), ("hybrid blend", "hybrid", "blend")):
            cfg = Config(search=replace(SearchConfig(mode=mode, fusion=fusion)))
            ranker = Ranker(catalog_from_skills(skills), cfg, index=index, provider=provider, query_timeout_ms=0)
            start = time.perf_counter()
            ranker.warm_queries(texts)
            ranker.search(texts[0], limit=10)  # per-ranker preparation (digests, arrays, centring)
            prep = time.perf_counter() - start
            rankers[label] = ranker
            gc.collect()
            times = _ms(_timed(lambda t, r=ranker: r.search(t, limit=10), texts, args.rounds))
            rows.append((dtype, label, times, floor_t, prep))
        lexical = rankers["vector"]
        lex_t = _ms(_timed(lambda t, r=lexical: r.search(t, limit=10, mode="lexical"), texts, args.rounds))
        rows.append((dtype, "lexical (same texts)", lex_t, floor_t, None))
        rows.append((dtype, "numpy floor (matmul + argpartition)", floor_t, floor_t, None))
        print(f"{dtype} index built in {built:.1f} s")
        del rankers
        gc.collect()
    print("\n| index | search | median | p90 | median / numpy floor | ranker setup |")
    print("|---|---|---|---|---|---|")
    for dtype, label, (med, p90), (fmed, _), prep in rows:
        setup = "" if prep is None else f"{prep:.2f} s"
        print(f"| {dtype} | {label} | {med:.2f} ms | {p90:.2f} ms | {med / fmed:.2f}x | {setup} |")


# -- part 2: hybrid latency on the example ---------------------------------------------------------


def part_acme(args) -> None:
    print(f"\n== hybrid query latency on {args.example} ==")
    if not (args.example / ".skillsift" / "index" / "manifest.json").is_file():
        print(f"skipped: {args.example} has no committed index")
        return
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError:
        print("skipped: the local model needs skillsift[embed] (onnxruntime, tokenizers)")
        return
    from skillsift.catalog.load import load_catalog
    from skillsift.config import load_config
    from skillsift.evaluate.cases import load_cases

    config = load_config(str(args.example))
    catalog = load_catalog(str(args.example), config)
    queries = [c.query for c in load_cases(str(args.example / "search-cases.yaml")).cases]
    print(f"{len(catalog.skills)} skills, {len(queries)} queries (the example's cases), limit 5, "
          f"{args.rounds} rounds")
    print("\n| fusion | including the query embedding: median | p90 | excluding it: median | p90 |")
    print("|---|---|---|---|---|")
    for fusion in ("auto", "rrf", "blend"):
        cfg = replace(config, search=replace(config.search, mode="hybrid", fusion=fusion))
        ranker = Ranker.open(catalog, cfg, mode="hybrid")
        if ranker.index is None or ranker.provider is None or isinstance(ranker.provider, BaseException):
            print(f"skipped: no usable index or provider ({ranker.index_problem or ranker.provider})")
            return
        ranker.search("warm up the model and the ranker", limit=5)

        def cold(q, r=ranker):
            r.query_cache = type(r.query_cache)()
            r.search(q, limit=5)

        with_embed = _ms(_timed(cold, queries, args.rounds))
        ranker.warm_queries(queries)
        without = _ms(_timed(lambda q, r=ranker: r.search(q, limit=5), queries, args.rounds))
        print(f"| {fusion} | {with_embed[0]:.2f} ms | {with_embed[1]:.2f} ms | {without[0]:.3f} ms | "
              f"{without[1]:.3f} ms |")


# -- part 3: index build throughput ----------------------------------------------------------------


def _corpus_catalog(corpus: Path):
    from bench_eval import load_catalog

    return load_catalog(corpus)


def part_build(args) -> None:
    print(f"\n== index build with the local model, {args.build_skills:,} real skills ==")
    if not args.corpus.is_dir():
        print(f"skipped: no corpus at {args.corpus}")
        return
    try:
        from skillsift.embed.local import LocalProvider, clear_cache, local_model_available
    except ImportError as exc:
        print(f"skipped: {exc}")
        return
    ok, why = local_model_available()
    if not ok:
        print(f"skipped: the local model is unavailable ({why})")
        return
    from skillsift.index.build import build_index, plan_build

    skills = list(_corpus_catalog(args.corpus).skills)[: args.build_skills]
    provider = LocalProvider()
    clear_cache()  # measure a fresh load even when an earlier part used the model
    start = time.perf_counter()
    provider.load()
    load = time.perf_counter() - start
    start = time.perf_counter()
    plan = plan_build(skills, None, provider=provider)
    planned = time.perf_counter() - start
    start = time.perf_counter()
    result = build_index(plan, provider)
    took = time.perf_counter() - start
    rows = len(result.index) if result.index is not None else 0
    print(f"model load {load:.2f} s; plan {planned * 1000:.0f} ms; build {took:.1f} s for {rows:,} rows: "
          f"{rows / took:.0f} skills/s (batches of 64 in catalog order)")
    texts = [item.text for item in plan.to_embed]
    start = time.perf_counter()
    provider.embed(texts)  # one call: the provider groups texts of similar length into its batches
    grouped = time.perf_counter() - start
    print(f"the same {len(texts):,} texts in one call (batched by length): {grouped:.1f} s, "
          f"{len(texts) / grouped:.0f} texts/s")


# -- part 4: evaluation in three modes -------------------------------------------------------------


def part_eval(args) -> None:
    print(f"\n== evaluation of {args.cases:,} cases in lexical, vector and hybrid modes ==")
    if not args.corpus.is_dir():
        print(f"skipped: no corpus at {args.corpus}")
        return
    from bench_eval import NEGATIVES, derive_query

    from skillsift.evaluate.cases import check_catalog, parse_cases
    from skillsift.evaluate.run import evaluate
    from skillsift.index.build import build_index, plan_build

    catalog = _corpus_catalog(args.corpus)
    skills = list(catalog.skills)
    lines = ["version: 1", "k: 5", "cases:"]
    count = 0
    for skill in skills:
        query = derive_query(skill.name, skill.description)
        if query is None:
            continue
        lines += [f"  - id: c{count:05d}", f"    query: {query!r}", f"    expect: [{skill.name!r}]"]
        count += 1
        if count >= args.cases:
            break
    for i, query in enumerate(NEGATIVES):
        lines += [f"  - id: neg{i}", f"    query: {query!r}", "    expect: []"]
    case_file = parse_cases("\n".join(lines) + "\n", "bench-cases.yaml")
    check_catalog(case_file, catalog.names)
    embedder = HashingEmbedder(args.dims)
    start = time.perf_counter()
    index = build_index(plan_build(skills, None, provider=embedder), embedder).index
    built = time.perf_counter() - start
    config = Config(search=SearchConfig(mode="hybrid"))
    print(f"catalog {len(skills):,} skills; {len(case_file.cases):,} cases; hashing index built in {built:.2f} s")
    print("\n| modes | fusion | wall | top1 per mode (lexical, vector, hybrid) |")
    print("|---|---|---|---|")
    for fusion in ("auto", "rrf", "blend"):
        cfg = replace(config, search=replace(config.search, fusion=fusion))
        ranker = Ranker(catalog, cfg, index=index, provider=HashingEmbedder(args.dims), query_timeout_ms=0)
        start = time.perf_counter()
        result = evaluate(case_file, ranker, k=5, modes=["lexical", "vector", "hybrid"])
        took = time.perf_counter() - start
        top1 = ", ".join(f"{result.by_mode[m].metrics.top1:.4f}" for m in ("lexical", "vector", "hybrid"))
        print(f"| lexical, vector, hybrid | {fusion} | {took:.2f} s | {top1} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3, help="timing rounds; each item keeps its fastest")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--example", type=Path, default=DEFAULT_EXAMPLE)
    parser.add_argument("--build-skills", type=int, default=1000)
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--skip", default="", help=f"comma-separated parts to skip: {', '.join(PARTS)}")
    args = parser.parse_args(argv)
    skip = {p.strip() for p in args.skip.split(",") if p.strip()}
    unknown = skip - set(PARTS)
    if unknown:
        parser.error(f"unknown parts {sorted(unknown)}; parts: {', '.join(PARTS)}")
    for name in PARTS:
        if name not in skip:
            globals()[f"part_{name}"](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
