"""Benchmark ``skillsift eval`` on about 2,000 labelled queries over the real corpus.

    python bench/bench_eval.py [--corpus ../shared/corpora] [--cases 2000] [--k 5] [--repeat 3]

Reads every SKILL.md under ``--corpus`` with skillsift's own parser (the first skill of
a name is kept), derives one labelled query per skill from its description (a few of
its content words, chosen with a generator seeded by the skill's name, so the set is
the same on every run), writes them as a cases file and times, best of ``--repeat``:

* parsing the cases file (strict YAML walk) and checking it against the catalog;
* the lexical evaluation: every case ranked over the full catalog, scored, aggregated,
  with bootstrap intervals (1000 resamples) for top1, recall@k and MRR;
* the ranker's share of it (the same full rankings without scoring);
* rendering the text and JSON reports;
* the interval machinery alone at the size of a three-mode run (the same cases' series
  three times, and two paired differences).

The evaluation figure is the one to compare with the 2 s target.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
import zlib
from pathlib import Path

from harness import ROOT

from skillsift.catalog.load import catalog_from_skills, read_skill
from skillsift.config import Config
from skillsift.evaluate.cases import check_catalog, parse_cases
from skillsift.evaluate.intervals import bootstrap, paired
from skillsift.evaluate.metrics import series
from skillsift.evaluate.run import evaluate
from skillsift.ranker.search import Ranker
from skillsift.render.evaluation import render_json, render_text

WORD = re.compile(r"[a-z][a-z0-9]+")
COMMON = frozenset(
    "the and for with from that this into your when what which use using used can will are was has have "
    "skill skills tool tools help helps any all its their them they you via also only more most such "
    "each other about over then than".split()
)
NEGATIVES = (
    "what is the weather in berlin tomorrow",
    "recipe for sourdough bread with rye",
    "who won the football world cup in 1998",
    "translate this poem into latin verse",
    "best hiking trails near the alps",
)


def load_catalog(corpus: Path):
    skills = []
    for path in sorted(corpus.rglob("SKILL.md")):
        skill, _ = read_skill(path, corpus)
        if skill is not None and skill.description:
            skills.append(skill)
    return catalog_from_skills(skills, root=str(corpus))


def derive_query(name: str, description: str) -> str | None:
    """3 to 6 content words of the description, in their order, chosen by a name-seeded generator."""
    words = [w for w in WORD.findall(description.lower()) if len(w) > 3 and w not in COMMON]
    words = list(dict.fromkeys(words))
    if len(words) < 3:
        return None
    rng = random.Random(zlib.crc32(name.encode("utf-8")))
    size = min(len(words), rng.randint(3, 6))
    picked = sorted(rng.sample(range(len(words)), size))
    return " ".join(words[i] for i in picked)


def cases_yaml(catalog, n: int, k: int) -> str:
    derived = []
    for skill in sorted(catalog.skills, key=lambda s: s.name):
        query = derive_query(skill.name, skill.description)
        if query:
            derived.append((skill.name, query))
    random.Random(7).shuffle(derived)
    lines = ["version: 1", f"k: {k}", "cases:"]
    for i, (name, query) in enumerate(derived[:n]):
        lines.append(f"  - {{id: c{i:05d}, query: {json.dumps(query)}, expect: [{json.dumps(name)}], "
                     f"tags: [{'long' if len(query.split()) > 4 else 'short'}]}}")
    for i, query in enumerate(NEGATIVES):
        lines.append(f"  - {{id: neg{i}, query: {json.dumps(query)}}}")
    return "\n".join(lines) + "\n"


def best_of(repeat: int, fn):
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), value


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpora")
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"corpus {args.corpus} not found; pass --corpus", file=sys.stderr)
        return 1

    t_load, catalog = best_of(1, lambda: load_catalog(args.corpus))
    text = cases_yaml(catalog, args.cases, args.k)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench-cases.yaml"
        path.write_text(text, encoding="utf-8")
        t_parse, case_file = best_of(args.repeat, lambda: parse_cases(path.read_bytes(), str(path)))
    t_check, _ = best_of(args.repeat, lambda: check_catalog(case_file, catalog.names))
    t_ranker, ranker = best_of(1, lambda: Ranker(catalog, Config()))
    k = case_file.effective_k(0)
    t_eval, result = best_of(args.repeat, lambda: evaluate(case_file, ranker, k=k, modes=["lexical"]))
    def rank_only():
        for case in case_file.cases:
            ranker.search(case.query, limit=None, mode="lexical")

    t_search, _ = best_of(args.repeat, rank_only)
    t_render, _ = best_of(args.repeat, lambda: (render_text(result), render_json(result)))
    values = series(result.primary.cases)

    def three_modes():
        for _ in range(3):
            bootstrap(values)
        for _ in range(2):
            paired(values, values)

    from skillsift.evaluate.intervals import resample_indexes

    resample_indexes.cache_clear()
    t_intervals, _ = best_of(1, three_modes)

    m = result.primary.metrics
    print(f"catalog: {len(catalog.skills)} skills from {args.corpus} (read in {t_load:.2f} s)")
    print(f"cases: {result.n} positive + {result.n_negative} negative, k={k}")
    print(f"parse cases file ({len(text.encode()) // 1024} KiB): {t_parse * 1000:.0f} ms; "
          f"catalog check: {t_check * 1000:.1f} ms; ranker build: {t_ranker * 1000:.0f} ms")
    print(f"evaluation (rank {result.n + result.n_negative} queries, score, intervals): {t_eval:.3f} s "
          f"(target < 2 s)")
    print(f"  of which the ranker's full rankings: {t_search:.3f} s; scoring, aggregates and intervals: "
          f"{max(t_eval - t_search, 0) * 1000:.0f} ms")
    print(f"render text + json: {t_render * 1000:.0f} ms")
    print(f"intervals alone, 3 modes x {len(values)} metrics + 2 paired at n={result.n}: "
          f"{t_intervals * 1000:.0f} ms")
    print(f"top1 {m.top1:.4f}  recall@{k} {m.recall_at_k:.4f}  hit@{k} {m.hit_at_k:.4f}  mrr {m.mrr:.4f}  "
          f"(95% CI mrr {result.primary.ci95['mrr'].low:.4f}-{result.primary.ci95['mrr'].high:.4f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
