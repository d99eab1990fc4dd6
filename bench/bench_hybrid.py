"""A warm hybrid query with the local model against raw onnxruntime on the same query.

Usage: python bench/bench_hybrid.py [--skills 2164] [--queries 200] [--rounds 3] [--corpus ../shared/corpora]
                                    [--examples 20000] [--minimal] [--ranking]

The catalog is the first ``--skills`` parseable SKILL.md of the corpus (sorted paths); its
index holds random unit vectors (fixed seed) under the local model's fingerprint, so no
build is needed and the query is embedded by the real model.  Each query is timed twice,
alternating: **floor**, the local model's own tokenizer and onnxruntime session on the
query (tokenize, run, mean-pool: what any caller of the model pays), and **search**,
``Ranker.search(query, mode="hybrid", limit=10)`` with the query cache emptied first (embed
the query, rank lexically and by vector, fuse).  The figure is the ratio of the medians
(search / floor) per round; the script prints the median round.

``--examples N`` gives the index N known requests too (random unit vectors, fixed seed, spread
over the skills round-robin, each with its own text), so the search ranks with them
(docs/ranking-quality.md, "Known requests"): one more product over N rows and the
per-skill reduction.

``--minimal`` times a third thing in the same rounds: **minimal**, the floor plus the least a
numpy blend can do on top of the model, with none of the exactness a search keeps (one
float32 product with every row, the centred similarities derived from it, a partition for
the 50 best, the lexical top 50, the fusion of those candidates in Python and ten hits).  Its
ratio to the floor says how far below the search's ratio numpy code could go at this size.

``--checked`` times ``Ranker.checked_search`` (what ``skillsift search`` and the MCP server call:
the search, then the rows of the ten hits looked up among the rows this machine re-embedded and
matched, docs/vector-index.md) in place of ``Ranker.search``, every row remembered as matched (the
warm state; the bench's rows are random, re-embedding would refuse them).  Run it beside a run
without it: the two ratios to the floor should be the same within noise.

``--ranking`` times a fourth thing in the same rounds: **ranking**, the model on the query (not
timed: it leaves the caches as a real query does) and then the same ``Ranker.search`` with the
query's vector already cached, so only the ranking above the model is timed.  Printed in ms and
as ``1 + ranking / floor`` (what the search's ratio would be with an embedding call costing
exactly the floor): less noisy than the search's ratio on a loaded machine.  With ``--examples``
it also times, in the same rounds and after the same model run, **one read of the known
requests**: a single float32 product of the query with every request row (the least any exact
ranking with them must do: each request's cosine depends on all of its components), printed as a
ratio to the floor next to the goal's share (0.3x for the whole ranking above the model).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from harness import CORPORA


def corpus_catalog(corpus: Path, count: int):
    from skillsift.catalog.load import catalog_from_skills, read_skill

    skills, seen = [], set()
    for path in sorted(corpus.rglob("SKILL.md")):
        skill, _ = read_skill(path, corpus)
        if skill is None or not skill.description or skill.name in seen:
            continue
        seen.add(skill.name)
        skills.append(skill)
        if len(skills) >= count:
            break
    return catalog_from_skills(skills, root=corpus)


def random_index(catalog, dims: int, examples: int = 0):
    import numpy as np

    from skillsift.catalog.embedtext import embedded_text, text_digest
    from skillsift.embed.local import MODEL_NAME
    from skillsift.index.manifest import ManifestItem
    from skillsift.index.store import new_index

    rng = np.random.default_rng(16)
    matrix = rng.standard_normal((len(catalog.skills), dims)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    items = [ManifestItem(s.name, s.domain, s.digest, text_digest(embedded_text(s))) for s in catalog.skills]
    if examples:
        extra = rng.standard_normal((examples, dims)).astype(np.float32)
        extra /= np.linalg.norm(extra, axis=1, keepdims=True)
        matrix = np.vstack([matrix, extra])
        items += [ManifestItem(name, "", "", text_digest(text), kind="example") for name, text in
                  example_pairs(catalog, examples)]
    return new_index(provider=f"local@{MODEL_NAME}", model=MODEL_NAME, items=items, vectors=list(matrix),
                     dims=dims, dtype="float32")


def example_pairs(catalog, count: int) -> list[tuple[str, str]]:
    """``count`` (skill, request) pairs, round-robin over the skills, each text its own."""
    skills = catalog.skills
    return [(skills[i % len(skills)].name, f"known request {i} for {skills[i % len(skills)].name}")
            for i in range(count)]


def queries_of(catalog, count: int) -> list[str]:
    out = []
    for i, skill in enumerate(catalog.skills):
        words = skill.description.split()
        if len(words) >= 4:
            out.append(" ".join(words[i % 3: i % 3 + 4 + i % 6]))
        if len(out) >= count:
            break
    return list(dict.fromkeys(out))


def local_world(corpus: Path, skills: int):
    """``(catalog, loaded local provider, its raw runtime)`` for the first ``skills`` of ``corpus``,
    or None (with the reason on stderr) without the model or the corpus."""
    from skillsift.embed import local

    ok, reason = local.local_model_available()
    if not ok:
        print(f"local model unavailable: {reason}", file=sys.stderr)
        return None
    if not corpus.is_dir():
        print(f"the skill corpora are absent ({corpus}); nothing to measure", file=sys.stderr)
        return None
    catalog = corpus_catalog(corpus, skills)
    provider = local.LocalProvider()
    provider.load()
    return catalog, provider, local._load_runtime(provider.threads)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=2164)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--corpus", type=Path, default=CORPORA)
    parser.add_argument("--minimal", action="store_true", help="also time the minimal numpy blend (no exactness)")
    parser.add_argument("--examples", type=int, default=0, help="known requests in the index (0 = none)")
    parser.add_argument("--ranking", action="store_true", help="also time the ranking alone, query vector cached")
    parser.add_argument("--checked", action="store_true",
                        help="time Ranker.checked_search (what the search command and the MCP server call) instead "
                             "of Ranker.search, every row already remembered as matching its text (the warm state)")
    args = parser.parse_args(argv)
    world = local_world(args.corpus, args.skills)
    if world is None:
        return 2
    catalog, provider, runtime = world

    from skillsift.config import Config, SearchConfig
    from skillsift.embed import local
    from skillsift.ranker.search import Ranker

    ranker = Ranker(catalog, Config(search=SearchConfig(mode="hybrid")),
                    index=random_index(catalog, local.DIMS, args.examples), provider=provider)
    if args.examples:
        assert ranker.use_examples(example_pairs(catalog, args.examples)) == args.examples
    queries = queries_of(catalog, args.queries)
    run_search = ranker.search
    if args.checked:
        remember_every_row(ranker)
        run_search = ranker.checked_search

    def floor(query: str) -> None:
        model_vector(runtime, query)

    minimal = minimal_blend(ranker, runtime) if args.minimal else None

    def search(query: str) -> None:
        ranker.query_cache = type(ranker.query_cache)()
        result = run_search(query, mode="hybrid", limit=10)
        assert not result.degraded, result.degraded
        assert not ranker.rows_refused_now

    for q in queries[:20]:  # warm-up: first search builds the ranker's arrays
        floor(q)
        search(q)
        if minimal is not None:
            minimal(q)
    def ranking(query: str) -> float:
        model_vector(runtime, query)  # the model's run evicts the caches, as before a real search
        t = time.perf_counter()
        result = run_search(query, mode="hybrid", limit=10)  # the vector cached by search(query)
        spent = time.perf_counter() - t
        assert not result.embedded and not result.degraded
        return spent

    examples = ranker.vectors.examples if args.examples and args.ranking else None

    def read_requests(query: str) -> float:
        """One float32 product of the query with every known request, after the model's run."""
        import numpy as np

        q = model_vector(runtime, query)
        t = time.perf_counter()
        np.matmul(examples.matrix, q)
        return time.perf_counter() - t

    rounds, ranks, reads = [], [], []
    for _ in range(args.rounds):
        a, b, c, d, e = [], [], [], [], []
        for q in queries:
            t0 = time.perf_counter()
            floor(q)
            t1 = time.perf_counter()
            search(q)
            t2 = time.perf_counter()
            a.append(t1 - t0)
            b.append(t2 - t1)
            if minimal is not None:
                minimal(q)
                c.append(time.perf_counter() - t2)
            if args.ranking:
                d.append(ranking(q))
            if examples is not None:
                e.append(read_requests(q))
        if d:
            ranks.append((statistics.median(a) * 1e3, statistics.median(d) * 1e3))
        if e:
            reads.append((statistics.median(a) * 1e3, statistics.median(e) * 1e3))
        rounds.append((statistics.median(a) * 1e3, statistics.median(b) * 1e3,
                       statistics.median(c) * 1e3 if c else None))
    rounds.sort(key=lambda r: r[1] / r[0])
    f, s, m = rounds[len(rounds) // 2]
    known = f", {args.examples} known requests" if args.examples else ""
    print(f"warm hybrid query, local model, {len(catalog.skills)} skills{known}, {len(queries)} queries x "
          f"{args.rounds}")
    for f_ms, s_ms, m_ms in rounds:
        extra = "" if m_ms is None else f"; minimal blend {m_ms:.2f} ms = {m_ms / f_ms:.2f}x"
        print(f"  round: floor median {f_ms:.2f} ms, search median {s_ms:.2f} ms = {s_ms / f_ms:.2f}x{extra}")
    goal = "1.3x" if args.examples else "1.15x"
    print(f"search / raw onnxruntime on the query (median round): {s / f:.2f}x (goal <= {goal})")
    if m is not None:
        print(f"minimal numpy blend, no exactness / raw onnxruntime (same round): {m / f:.2f}x")
    if ranks:
        for f_ms, r_ms in ranks:
            print(f"  round: ranking alone (vector cached) median {r_ms:.2f} ms, 1 + ranking / floor = "
                  f"{1 + r_ms / f_ms:.2f}x")
        r_ms = statistics.median(r for _, r in ranks)
        print(f"ranking alone, median of the rounds: {r_ms:.2f} ms; "
              f"1 + ranking / floor (median round): {statistics.median(1 + r / f for f, r in ranks):.2f}x")
    if reads:
        r_ms = statistics.median(r for _, r in reads)
        share = statistics.median(r / f for f, r in reads)
        print(f"one read of the {len(examples)} known requests (float32 product after the model's run): "
              f"{r_ms:.2f} ms = {share:.2f}x the floor (the goal leaves {0.3:.2f}x for the whole ranking)")
    return 0


def remember_every_row(ranker) -> None:
    """Mark every row of the bench's index as matching its text, in the process (its rows are random: re-embedding
    would refuse them), so ``checked_search`` runs as it does warm on a machine that checked them once."""
    from skillsift.index.verify import _model_id
    from skillsift.ranker.row_check import _cache, _rows_of

    model_id = _model_id(ranker.provider)
    cache, prepared = _cache(ranker.config.root, model_id), _rows_of(ranker, model_id)
    for skill in ranker.skills:
        cache.memo.update(entry[0] for entry in prepared.of(skill.name))


def model_vector(runtime, query: str):
    """The raw model on ``query``: its tokenizer, its onnxruntime session, mean-pooling (float32, dims)."""
    import numpy as np

    from skillsift.embed import local

    enc = runtime.tokenizer.encode(query)
    ids = np.asarray([enc.ids], dtype=np.int64)
    mask = np.asarray([enc.attention_mask], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    hidden = runtime.session.run(None, {k: feed[k] for k in runtime.input_names})[0]
    return local.pool_and_normalise(hidden, mask)[0].astype(np.float32)


def minimal_blend(ranker, runtime):
    """``query -> None``: the model on the query, then the least a numpy blend does (see the docstring).

    Built from the index matrix alone (the centring's mean and norms computed here), so it
    shares no code with the ranker but the lexical top; its results are not exact and are
    not checked.
    """
    import numpy as np

    from skillsift.ranker.centring import CENTRE_SHRINK
    from skillsift.ranker.lexical_hits import LexicalList
    from skillsift.ranker.result import Hit

    matrix = ranker.index.matrix
    skills = ranker.skills
    rows = np.asarray([ranker.index.row(s.domain, s.name) for s in skills], dtype=np.intp)
    plain = matrix[rows]  # catalog order
    shift = plain.astype(np.float64).mean(axis=0) * (len(rows) / (len(rows) + CENTRE_SHRINK))
    inv = 1.0 / np.linalg.norm(plain.astype(np.float64) - shift, axis=1)
    names = [s.name for s in skills]

    def run(query: str) -> None:
        q = model_vector(runtime, query)
        products = plain @ q
        centred = (products.astype(np.float64) - float(shift @ q.astype(np.float64))) * inv
        best = np.argpartition(centred, len(centred) - 50)[-50:] if len(centred) > 50 else np.arange(len(centred))
        best = best[np.argsort(-centred[best])]
        lexical = LexicalList(ranker._hits, query, None, False).top_scored(50)
        score = dict(zip(best.tolist(), centred[best].tolist(), strict=True))
        least = float(centred.min())
        top = lexical[0][1] if lexical else 1.0
        for i, points in lexical:
            score[i] = score.get(i, least) + 0.12 * points / top
        chosen = sorted(score, key=lambda i: (-score[i], names[i]))[:10]
        cosines = products[chosen].tolist()
        [Hit(names[i], score[i], skills[i].description, skills[i].domain, skills[i].digest, 1, vector_sim=cos)
         for i, cos in zip(chosen, cosines, strict=True)]

    return run


if __name__ == "__main__":
    sys.exit(main())
