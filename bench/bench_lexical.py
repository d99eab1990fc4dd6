"""Benchmark skillsift's BM25F ranker against tantivy and bm25s.

    python bench/bench_lexical.py [--corpus ../shared/corpora] [--queries 1000]
                                  [--synthetic 100000] [--rounds 3]

Loads the real SKILL.md files under ``--corpus`` (frontmatter only), synthesises a
large catalog from them (deterministic), and for each catalog builds three indexes
over the same four fields (name, triggers, keywords, description):

* skillsift: :class:`skillsift.ranker.lexical.LexicalIndex` (field weights 3/2.5/2/1);
* tantivy: one text field per skill field (English stemmer), weights as query boosts;
* bm25s: the four fields concatenated into one text (English stopwords).

It then times the same queries (2 to 6 consecutive words of real descriptions and
triggers) one at a time on each engine, top 10 hits per query, and prints the build
time and the per-query median and p90 (median over ``--rounds`` passes), with the
ratio skillsift / peer.  The "all hits" row is skillsift returning its complete
ranking (every matching skill), which is what evaluation uses.  Peers come from the
``bench`` extra (``pip install tantivy bm25s``); a missing peer is skipped.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import re
import statistics
import sys
import time
from pathlib import Path

from harness import ROOT

from skillsift.catalog.load import catalog_from_skills
from skillsift.catalog.skill import Skill
from skillsift.config import Config
from skillsift.ranker import tokenize as _tokenize
from skillsift.ranker.lexical import LexicalIndex
from skillsift.ranker.search import Ranker

FIELDS = ("name", "triggers", "keywords", "description")
BOOSTS = {"name": 3.0, "triggers": 2.5, "keywords": 2.0, "description": 1.0}
TOP = 10
SEED = 20240917


# -- catalog -------------------------------------------------------------------------------------


def _as_list(value) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(p.strip() for p in value.split(",") if p.strip())
    if isinstance(value, list):
        return tuple(v.strip() for v in value if isinstance(v, str) and v.strip())
    return ()


def load_skills(corpus: Path) -> list[Skill]:
    """Parse the frontmatter of every SKILL.md under ``corpus``; duplicate names get a suffix."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    skills: list[Skill] = []
    seen: dict[str, int] = {}
    for path in sorted(corpus.rglob("SKILL.md")):
        text = path.read_text(encoding="utf-8", errors="replace").lstrip("\ufeff").replace("\r\n", "\n")
        if not text.startswith("---\n"):
            continue
        end = text.find("\n---", 3)
        if end < 0:
            continue
        try:
            meta = yaml.load(text[4:end], Loader=loader)
        except yaml.YAMLError:
            continue
        if not isinstance(meta, dict):
            continue
        name = meta.get("name") if isinstance(meta.get("name"), str) and meta["name"].strip() else path.parent.name
        description = meta.get("description")
        description = description if isinstance(description, str) and description.strip() else name
        count = seen.get(name, 0)
        seen[name] = count + 1
        if count:
            name = f"{name}-{count + 1}"
        skills.append(
            Skill(
                name=name,
                description=description,
                triggers=_as_list(meta.get("triggers")),
                keywords=_as_list(meta.get("keywords") or meta.get("tags")),
            )
        )
    return skills


def synthesise(base: list[Skill], n: int, seed: int = SEED) -> list[Skill]:
    """``n`` skills recombined from ``base``: names from name words, descriptions spliced from two."""
    rng = random.Random(seed)
    name_words = sorted({w for s in base for w in re.split(r"[^A-Za-z0-9]+", s.name) if len(w) > 1})
    words = [s.description.split() for s in base]
    out: list[Skill] = []
    seen: dict[str, int] = {}
    for _ in range(n):
        a, b = rng.randrange(len(base)), rng.randrange(len(base))
        wa, wb = words[a], words[b]
        description = " ".join(wa[: rng.randint(1, max(1, len(wa)))] + wb[rng.randint(0, len(wb)) :])
        name = "-".join(rng.choice(name_words).lower() for _ in range(rng.randint(2, 3)))
        count = seen.get(name, 0)
        seen[name] = count + 1
        if count:
            name = f"{name}-{count + 1}"
        out.append(Skill(name, description, triggers=base[a].triggers, keywords=base[b].keywords))
    return out


def make_queries(base: list[Skill], n: int, seed: int = SEED) -> list[str]:
    """``n`` queries of 2-6 consecutive words from descriptions and triggers (every one matchable)."""
    rng = random.Random(seed + 1)
    sources = [s.description for s in base] + [t for s in base for t in s.triggers]
    queries: list[str] = []
    while len(queries) < n:
        text = rng.choice(sources)
        words = re.findall(r"[A-Za-z0-9]+", text)
        if len(words) < 2:
            continue
        k = rng.randint(2, min(6, len(words)))
        start = rng.randint(0, len(words) - k)
        queries.append(" ".join(words[start : start + k]))
    return queries


# -- engines -------------------------------------------------------------------------------------


class Skillsift:
    name = "skillsift"

    def build(self, skills):
        _tokenize._terms.clear()  # a fresh process starts with empty tokenizer caches
        _tokenize._stems.clear()
        # The public API: a Ranker over the catalog builds its LexicalIndex (what the build times).
        self.ranker = Ranker(catalog_from_skills(skills), Config())
        self.index: LexicalIndex = self.ranker.lexical

    def search(self, query):
        return self.index.rank(query, limit=TOP)

    def search_ranker(self, query):
        return self.ranker.search(query, limit=TOP, mode="lexical").hits

    def search_all(self, query):
        return self.index.rank(query)


class Tantivy:
    name = "tantivy"

    def build(self, skills):
        import tantivy

        builder = tantivy.SchemaBuilder()
        for f in FIELDS:
            builder.add_text_field(f, stored=False, tokenizer_name="en_stem", index_option="freq")
        schema = builder.build()
        self.index = tantivy.Index(schema)
        writer = self.index.writer(heap_size=256_000_000, num_threads=1)
        for s in skills:
            writer.add_document(
                tantivy.Document(
                    name=s.name,
                    triggers=" ".join(s.triggers),
                    keywords=" ".join(s.keywords),
                    description=s.description,
                )
            )
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()

    def search(self, query):
        # Only letters and digits reach the query parser (its syntax uses punctuation).
        text = " ".join(re.findall(r"[^\W_]+", query.lower()))
        parsed = self.index.parse_query(text, list(FIELDS), field_boosts=BOOSTS)
        return self.searcher.search(parsed, TOP, count=False).hits


class Bm25s:
    name = "bm25s"

    def build(self, skills):
        import bm25s

        self.bm25s = bm25s
        texts = [" ".join((s.name, " ".join(s.triggers), " ".join(s.keywords), s.description)) for s in skills]
        tokens = bm25s.tokenize(texts, stopwords="en", show_progress=False)
        self.retriever = bm25s.BM25()
        self.retriever.index(tokens, show_progress=False)
        self.vocab = tokens.vocab

    def search(self, query):
        words = [w for w in self.bm25s.tokenize(query, stopwords="en", return_ids=False, show_progress=False)[0]
                 if w in self.vocab]
        if not words:
            return []
        docs, scores = self.retriever.retrieve([words], k=TOP, show_progress=False, n_threads=1)
        return docs[0]


# -- measurement ---------------------------------------------------------------------------------


def _timed(fn, *args) -> float:
    gc.collect()
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def _latencies(searches: dict, queries: list[str], rounds: int) -> dict[str, list[list[float]]]:
    """Per-query latencies (microseconds): each round runs every engine over all queries in turn.

    An engine runs its queries back to back (as in a real process, with its own data
    in the CPU caches); several rounds spread the machine's background noise evenly.
    """
    clock = time.perf_counter_ns
    out: dict[str, list[list[float]]] = {name: [] for name in searches}
    for _ in range(rounds):
        for name, search in searches.items():
            for q in queries[: min(200, len(queries))]:  # warm-up
                search(q)
            lat = []
            gc.disable()
            try:
                for q in queries:
                    t0 = clock()
                    search(q)
                    lat.append((clock() - t0) / 1000.0)
            finally:
                gc.enable()
            out[name].append(lat)
    return out


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def _hwm_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1e3
    return float("nan")


def _memory(engine, skills, queries) -> tuple[float, float] | None:
    """(resident MB an index keeps after its build and 200 queries, peak MB during them) over the process before.

    Measured in a forked child (Linux), so each engine starts from the same process and
    frees nothing another engine allocated.
    """
    if not hasattr(os, "fork") or not os.path.exists("/proc/self/clear_refs"):
        return None
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: build, query, report, exit
        try:
            os.close(read)
            gc.collect()
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")  # reset the peak resident size
            base = _rss_mb()
            engine.build(skills)
            for q in queries[:200]:
                engine.search(q)
            gc.collect()
            os.write(write, f"{_rss_mb() - base} {_hwm_mb() - base}".encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as f:
        text = f.read()
    os.waitpid(pid, 0)
    if not text:
        return None
    kept, peak = map(float, text.split())
    return kept, peak


def _ratio(a, b) -> str:
    return f"{a / b:.2f}x" if a is not None and b else "-"


def run_catalog(label: str, skills: list[Skill], queries: list[str], rounds: int, peers: tuple[str, ...]) -> list[dict]:
    builds: dict[str, float | None] = {}
    memory: dict[str, tuple[float, float] | None] = {}
    searches = {}
    engines = [Skillsift()] + [cls() for cls in (Tantivy, Bm25s) if cls.name in peers]
    for engine in engines:
        try:
            memory[engine.name] = _memory(engine, skills, queries)
            builds[engine.name] = _timed(engine.build, skills)
        except ImportError as exc:
            print(f"  {engine.name}: not installed ({exc.name}); pip install tantivy bm25s", file=sys.stderr)
            continue
        searches[engine.name] = engine.search
        if isinstance(engine, Skillsift):
            searches["Ranker.search"] = engine.search_ranker
            searches["skillsift (all hits)"] = engine.search_all
    rows = [
        {
            "engine": name,
            "build": builds.get(name),
            "memory": memory.get(name),
            "median": statistics.median(statistics.median(lat) for lat in per_round),
            "p90": statistics.median(_p90(lat) for lat in per_round),
        }
        for name, per_round in _latencies(searches, queries, rounds).items()
    ]
    print(f"\n{label}: {len(skills):,} skills, {len(queries):,} queries x {rounds} rounds, top {TOP} per query")
    print(f"  {'engine':<22}{'build':>10}{'median':>12}{'p90':>12}{'memory':>10}{'peak':>10}")
    for row in rows:
        build = f"{row['build']:.3f} s" if row["build"] is not None else "-"
        kept, peak = (f"{m:.0f} MB" for m in row["memory"]) if row["memory"] else ("-", "-")
        print(f"  {row['engine']:<22}{build:>10}{row['median']:>9.1f} us{row['p90']:>9.1f} us{kept:>10}{peak:>10}")
    by_name = {row["engine"]: row for row in rows}
    for peer in ("tantivy", "bm25s"):
        theirs = by_name.get(peer)
        if theirs is None:
            continue
        print(f"  ratios to {peer} (build, median, p90, memory kept):")
        for name in ("skillsift", "Ranker.search", "skillsift (all hits)"):
            ours = by_name[name]
            mem = _ratio(ours["memory"][0], theirs["memory"][0]) if ours["memory"] and theirs["memory"] else "-"
            build = _ratio(by_name["skillsift"]["build"], theirs["build"]) if name == "skillsift" else "-"
            print(f"    {name:<22}{build:>8}{_ratio(ours['median'], theirs['median']):>8}"
                  f"{_ratio(ours['p90'], theirs['p90']):>8}{mem if name == 'skillsift' else '-':>8}")
    return rows


def _preload() -> None:
    """Import what the engines import, so that no engine's memory figure holds a module."""
    import importlib

    for name in ("numpy", "tantivy", "bm25s"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpora")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--synthetic", default="100000",
                        help="sizes of the synthesised catalogs, comma-separated (0: none)")
    parser.add_argument("--peers", default="tantivy,bm25s", help="peers to run, comma-separated")
    parser.add_argument("--rounds", type=int, default=3, help="passes over the queries per engine (median taken)")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}: pass --corpus DIR holding SKILL.md files", file=sys.stderr)
        return 2
    real = load_skills(args.corpus)
    if not real:
        print(f"no parseable SKILL.md under {args.corpus}", file=sys.stderr)
        return 2
    queries = make_queries(real, args.queries)
    _preload()
    print(f"python {sys.version.split()[0]}; corpus {args.corpus} ({len(real):,} skills)")
    peers = tuple(p.strip() for p in args.peers.split(",") if p.strip())
    run_catalog("real skills", real, queries, args.rounds, peers)
    for size in (int(x) for x in args.synthetic.split(",") if x.strip()):
        if size:
            run_catalog("synthesised", synthesise(real, size), queries, args.rounds, peers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
