"""A 4 KB query in hybrid mode with the local model: max-piece and truncate against one 128-token window.

Usage: python bench/bench_long_query.py [--skills 2164] [--queries 20] [--rounds 3] [--corpus ../shared/corpora]

The catalog and its index are those of ``bench/bench_hybrid.py`` (the first ``--skills``
SKILL.md of the corpus, random unit vectors under the local model's fingerprint).  Each
query is about 4 KB: a request taken from a skill's description inside the generic task
sentences of ``bench/transfer.py`` (seeded).  Per query, alternating, with the query cache
emptied first:

* **floor**: the local model's tokenizer and onnxruntime session on one 128-token window of
  the query (tokenize, cut to 128 ids, run, mean-pool): one short query's model cost;
* **max-piece**: ``Ranker.search(query, mode="hybrid", limit=10)`` with the default
  ``[search] long_query = "max-piece"`` (all pieces embedded in one call, best piece per skill);
* **truncate**: the same with ``long_query = "truncate"`` (the first 2 KB, cut by the model at
  256 tokens).

Printed: the ratios of the medians per round (median round), and the pieces per query.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from bench_hybrid import CORPORA, local_world, random_index


def long_texts(catalog, count: int, size: int = 4000) -> list[str]:
    import numpy as np
    from transfer import BOILERPLATE

    rng = np.random.default_rng(11)
    out = []
    skills = [s for s in catalog.skills if len(s.description.split()) >= 6]
    for i in range(count):
        request = skills[(i * 37) % len(skills)].description
        pad = ""
        while True:
            sentence = BOILERPLATE[int(rng.integers(len(BOILERPLATE)))]
            if len(pad) + len(sentence) + len(request) > size:
                break
            pad = f"{pad} {sentence}".strip()
        out.append(f"{request} {pad}" if i % 2 else f"{pad} Task: {request}")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=2164)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--corpus", type=Path, default=CORPORA)
    args = parser.parse_args(argv)
    world = local_world(args.corpus, args.skills)
    if world is None:
        return 2
    catalog, provider, runtime = world
    import numpy as np

    from skillsift.config import Config, SearchConfig
    from skillsift.embed import local
    from skillsift.ranker.search import Ranker

    index = random_index(catalog, local.DIMS)
    base = SearchConfig(mode="hybrid", query_timeout_ms=0)  # measured whole, not cut by the limit
    rankers = {how: Ranker(catalog, Config(search=replace(base, long_query=how)), index=index, provider=provider)
               for how in ("max-piece", "truncate")}
    queries = long_texts(catalog, args.queries)
    pieces = [len(rankers["max-piece"].embedder.key(q)) for q in queries]

    def floor(query: str) -> None:
        enc = runtime.tokenizer.encode(query)
        ids = np.asarray([enc.ids[:127] + enc.ids[-1:]], dtype=np.int64)  # [CLS] ... [SEP], 128 ids
        mask = np.ones_like(ids)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = runtime.session.run(None, {k: feed[k] for k in runtime.input_names})[0]
        local.pool_and_normalise(hidden, mask)

    def search(how: str, query: str) -> None:
        ranker = rankers[how]
        ranker.query_cache = type(ranker.query_cache)()
        result = ranker.search(query, mode="hybrid", limit=10)
        assert not result.degraded, result.degraded

    for q in queries[:4]:  # warm-up: the first search builds the ranker's arrays
        floor(q)
        search("max-piece", q)
        search("truncate", q)
    rounds = []
    for _ in range(args.rounds):
        times: dict[str, list[float]] = {"floor": [], "max-piece": [], "truncate": []}
        for q in queries:
            t0 = time.perf_counter()
            floor(q)
            t1 = time.perf_counter()
            search("max-piece", q)
            t2 = time.perf_counter()
            search("truncate", q)
            t3 = time.perf_counter()
            times["floor"].append(t1 - t0)
            times["max-piece"].append(t2 - t1)
            times["truncate"].append(t3 - t2)
        rounds.append({k: statistics.median(v) * 1e3 for k, v in times.items()})
    rounds.sort(key=lambda r: r["max-piece"] / r["floor"])
    mid = rounds[len(rounds) // 2]
    print(f"4 KB hybrid query, local model, {len(catalog.skills)} skills, {len(queries)} queries x {args.rounds}; "
          f"pieces per query: median {statistics.median(pieces)}, {min(pieces)}-{max(pieces)}; "
          f"query bytes median {statistics.median(len(q.encode()) for q in queries)}")
    for r in rounds:
        print(f"  round: floor {r['floor']:.2f} ms, max-piece {r['max-piece']:.2f} ms, truncate {r['truncate']:.2f} ms")
    print(f"max-piece / one 128-token window (median round): {mid['max-piece'] / mid['floor']:.2f}x")
    print(f"truncate / one 128-token window: {mid['truncate'] / mid['floor']:.2f}x")
    print(f"max-piece / truncate: {mid['max-piece'] / mid['truncate']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
