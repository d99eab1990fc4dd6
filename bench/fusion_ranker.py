"""The shipped ranker on the halves of both development sets: what ``bench/fusion_channels.py`` computes from
channel arrays, ranked end to end by :class:`skillsift.ranker.search.Ranker`.

    python bench/fusion_ranker.py [--metatool ../shared/benchmarks/metatool-dev] [--corpora ../shared/corpora]
                                  [--cache /tmp/skillsift-quality-cache] [--fusions zscore,zscore-mnz]
                                  [--only SET] [--json FILE] [--markdown FILE]

Data, vectors and halves as ``bench/fusion_channels.py`` (the local model, name-free fields, candidates 50,
seed 20240613, embeddings from ``--cache``): the skills' vectors are put in an in-memory index, each query's
cached vector is what the provider answers, and a known request's vector is its case's query vector (as the
script's).  Per fusion and set, hybrid search with ``limit=None`` ranks each case; top1 and MRR are read off
the first expected skill's position.  Views: half A and half B without requests (full = both), half A
with its inner halves' requests (each ranked with the other's), half B with half A's requests, half A on
itself (the leakage check).  A case's own request text is no evidence for it: the ranker's own rule
(``VectorSearch.own_evidence``), given every skill with a known request of that text (the script's rule).

The script does not model the ranker's exact-id pin (a query that names a skill's id puts that skill first,
docs/ranking-quality.md): on real skills, whose queries often hold a skill's id ("creating incident response
procedures"), the pin moves some cases, so ``--no-pin`` ranks without it (what the script computes; a
bench-only switch, not a setting) and the default ranks as shipped.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import harness  # noqa: F401  (the checkout's skillsift on the path)
import numpy as np
import transfer
from examples_heldout import SPLIT_SEED, halves
from fusion_channels import load
from transfer import DEFAULT_CACHE, DEFAULT_CORPORA, DEFAULT_METATOOL, EmbedCache

from skillsift.catalog.embedtext import embedded_text, text_digest
from skillsift.catalog.load import catalog_from_skills
from skillsift.config import Config, SearchConfig
from skillsift.evaluate import tune
from skillsift.index.manifest import ManifestItem
from skillsift.index.store import new_index
from skillsift.ranker.model.lift import normalised
from skillsift.ranker.screens import cap_query
from skillsift.ranker.search import Ranker

PIN = True  # the exact-id pin as shipped (--no-pin: none, as bench/fusion_channels.py)
VIEWS = ("A", "B", "full", "A, requests known (inner halves)", "B, A's requests known", "A on itself (leakage check)")


class Answers:
    """The embedding provider of the bench: each query's cached vector (text -> vector)."""

    fingerprint = "bench@cached"
    model = "cached"
    networked = False
    external = False
    max_batch = 64

    def __init__(self, table, dims):
        self.table, self.dims = table, dims

    def embed(self, texts):
        return np.vstack([self.table[t] for t in texts]).astype(np.float32)


def ranker_of(skills, queries, sig, fusion: str) -> Ranker:
    fields = SearchConfig().fields
    docs = np.asarray(sig.docs[tune.NAME_FREE], dtype=np.float32)
    items = [ManifestItem(s.name, s.domain, s.digest, text_digest(embedded_text(s, fields))) for s in skills]
    index = new_index(provider=Answers.fingerprint, model=Answers.model, items=items, vectors=docs, fields=fields)
    table = {cap_query(q): np.asarray(v, dtype=np.float32) for q, v in zip(queries, sig.queries, strict=True)}
    config = Config(search=replace(SearchConfig(mode="hybrid"), fusion=fusion))
    ranker = Ranker(catalog_from_skills(skills), config, index=index, provider=Answers(table, docs.shape[1]),
                    query_timeout_ms=0)
    ranker.warm_queries(list(queries))
    if not PIN:
        assert ranker.vectors is not None
        ranker.vectors._pin_index = NoPin()
    return ranker


class NoPin:
    """A pin index that names no skill (``--no-pin``)."""

    @staticmethod
    def pin_position(_query, _ids):
        return None

    @staticmethod
    def pin(_query, _ids):
        return None


def with_known(ranker: Ranker, skills, queries, sig, train) -> Ranker:
    """``ranker`` ranking with the requests of the ``train`` cases (each under its expected skills), a request's
    text no evidence for a case of the same normalised text (every skill with such a request)."""
    pairs, rows, own = [], {}, {}
    for i in np.flatnonzero(train).tolist():
        for t in sig.expected[i]:
            name = skills[t].name
            pairs.append((name, queries[i]))
            rows[(name, text_digest(queries[i]))] = np.asarray(sig.queries[i], dtype=np.float32)
            own.setdefault(normalised(queries[i]), set()).add(t)
    other = ranker.with_requests(pairs, rows)
    assert other.vectors is not None
    other.vectors.own_evidence = {k: frozenset(v) for k, v in own.items()}
    return other


def scored(ranker: Ranker, skills, queries, sig, rows) -> tuple[np.ndarray, np.ndarray]:
    """Per case of ``rows``: top1 (0/1) and reciprocal rank of its first expected skill (0 when not returned)."""
    top1, rr = np.zeros(len(rows)), np.zeros(len(rows))
    for k, i in enumerate(rows):
        expected = {skills[t].name for t in sig.expected[i]}
        hits = ranker.search(queries[i], limit=None, mode="hybrid").hits
        for position, h in enumerate(hits, start=1):
            if h.name in expected:
                rr[k] = 1.0 / position
                top1[k] = position == 1
                break
    return top1, rr


def run_set(name, skills, queries, sig, fusion) -> dict:
    n = len(queries)
    a = halves(n)
    inner = np.zeros(n, bool)
    ia = np.flatnonzero(a)
    inner[ia[halves(len(ia), SPLIT_SEED + 1)]] = True
    a1, a2 = inner, a & ~inner
    base = ranker_of(skills, queries, sig, fusion)
    started = time.perf_counter()
    parts = {
        "A": [(base, np.flatnonzero(a))],
        "B": [(base, np.flatnonzero(~a))],
        "A, requests known (inner halves)": [(with_known(base, skills, queries, sig, a1), np.flatnonzero(a2)),
                                             (with_known(base, skills, queries, sig, a2), np.flatnonzero(a1))],
        "B, A's requests known": [(with_known(base, skills, queries, sig, a), np.flatnonzero(~a))],
        "A on itself (leakage check)": [(with_known(base, skills, queries, sig, a), np.flatnonzero(a))],
    }
    out: dict = {}
    series: dict = {}
    for view, blocks in parts.items():
        got = [scored(r, skills, queries, sig, rows.tolist()) for r, rows in blocks]
        series[view] = (np.concatenate([g[0] for g in got]), np.concatenate([g[1] for g in got]))
    series["full"] = tuple(np.concatenate([series["A"][j], series["B"][j]]) for j in range(2))
    for view in VIEWS:
        t1, rr = series[view]
        out[view] = (float(t1.mean()), float(rr.mean()))
    print(f"{name} | {fusion} | " + " | ".join(f"{v}: {out[v][0]:.3f}/{out[v][1]:.3f}" for v in VIEWS)
          + f" | {time.perf_counter() - started:.0f} s", flush=True)
    return out


def markdown(table: dict, sets) -> str:
    head = "| fusion (the shipped ranker) | " + " | ".join(f"{s} {v}" for s in sets for v in VIEWS) + " |"
    lines = [head, "|" + "---|" * (1 + len(sets) * len(VIEWS))]
    for fusion, row in table.items():
        lines.append(f"| {fusion} | " + " | ".join(f"{row[s][v][0]:.3f} / {row[s][v][1]:.3f}"
                                                  for s in sets for v in VIEWS) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--metatool", type=Path, default=DEFAULT_METATOOL)
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--fusions", default="zscore,zscore-mnz")
    parser.add_argument("--only", choices=("MetaTool", "real skills"))
    parser.add_argument("--no-pin", action="store_true", help="rank without the exact-id pin (as the script)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)
    global PIN
    PIN = not args.no_pin
    from skillsift.embed.local import LocalProvider

    transfer.VARIANTS = {"name-free": tune.NAME_FREE}
    cache = EmbedCache(args.cache, LocalProvider())
    sets = ("MetaTool", "real skills") if not args.only else (args.only,)
    table: dict = {}
    for name in sets:
        skills, queries, sig = load(name, args, cache)
        for fusion in args.fusions.split(","):
            table.setdefault(fusion, {})[name] = run_set(name, skills, queries, sig, fusion)
    if args.json:
        args.json.write_text(json.dumps({"split_seed": SPLIT_SEED, "rows": table}, indent=1) + "\n",
                             encoding="utf-8")
    if args.markdown:
        args.markdown.write_text(markdown(table, sets), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
