"""What ``zscore-mnz`` adds to a warm hybrid query with known requests: the two fusions alternated per query in one
process, so the machine's load moves both alike.

Usage: python bench/bench_request_lexical.py [--corpus ../shared/corpora] [--examples 20000] [--rounds 5]
                                             [--cache /tmp/skillsift-quality-cache]

The world of ``bench/bench_hybrid.py --examples N`` (the corpus's skills, N real known requests, the local
model's vectors from ``--cache``); each query's vector is cached by a first search, then every query is ranked
under ``zscore`` and ``zscore-mnz`` in turn (the order alternating), ``Ranker.search(mode="hybrid", limit=10)``
timed in CPU time and wall time.  Prints each fusion's median, the median of the paired CPU differences and the
CPU time of building the known requests' BM25 index once (what the first query pays).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from bench_hybrid import local_world, queries_of, real_index
from harness import CORPORA


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPORA)
    parser.add_argument("--examples", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/skillsift-quality-cache"))
    args = parser.parse_args(argv)
    import numpy as np

    from skillsift.config import Config, SearchConfig
    from skillsift.ranker.request_lexicon import RequestLexicon
    from skillsift.ranker.search import Ranker

    world = local_world(args.corpus, 2164)
    if world is None:
        return 2
    catalog, provider, _runtime = world
    index, pairs = real_index(catalog, provider, args.examples, args.cache)
    configs = {f: Config(search=replace(SearchConfig(mode="hybrid"), fusion=f)) for f in ("zscore", "zscore-mnz")}
    ranker = Ranker(catalog, configs["zscore"], index=index, provider=provider)
    assert ranker.use_examples(pairs) == args.examples
    queries = queries_of(catalog, args.queries)
    for q in queries:  # each query's vector cached, the ranker's arrays and the requests' index built
        for config in configs.values():
            ranker.config = config
            ranker.search(q, mode="hybrid", limit=10)
    ex = ranker.vectors.examples
    started = time.process_time()
    RequestLexicon(np.asarray(ex.owner).tolist(), ex.texts, len(catalog.skills))
    build = time.process_time() - started
    cpu: dict = {f: [] for f in configs}
    wall: dict = {f: [] for f in configs}
    for r in range(args.rounds):
        for i, q in enumerate(queries):
            for f in (list(configs) if (i + r) % 2 == 0 else list(configs)[::-1]):
                ranker.config = configs[f]
                c, w = time.process_time(), time.perf_counter()
                ranker.search(q, mode="hybrid", limit=10)
                cpu[f].append(time.process_time() - c)
                wall[f].append(time.perf_counter() - w)
    print(f"{len(catalog.skills)} skills, {args.examples} known requests, {len(queries)} queries x {args.rounds}")
    print(f"building the known requests' BM25 index once: {build * 1e3:.0f} ms CPU")
    for f in configs:
        print(f"{f:11s} ranking alone (vector cached): CPU median {statistics.median(cpu[f]) * 1e3:.3f} ms, "
              f"wall median {statistics.median(wall[f]) * 1e3:.3f} ms")
    paired = [a - b for a, b in zip(cpu["zscore-mnz"], cpu["zscore"], strict=True)]
    print(f"paired CPU difference, zscore-mnz - zscore: median {statistics.median(paired) * 1e3:+.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
