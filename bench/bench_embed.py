"""Benchmark of the local embedding provider (all-MiniLM-L6-v2 int8 ONNX).

Measures, on this machine:

* model load: importing onnxruntime + tokenizers, hashing and verifying the model file,
  creating the session (cold, in a fresh process);
* per-query latency: one query per call, median and p90 over N short queries;
* throughput: the embedded text (reference §4.1, default fields) of M real skills from
  ../shared/corpora, in batches of the provider's max_batch, texts per second.

Usage: python bench/bench_embed.py [--queries 200] [--skills 1000] [--threads 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from harness import CORPORA, ROOT, percentile

_LOAD_PROBE = r"""
import json, sys, time
t0 = time.perf_counter()
import onnxruntime, tokenizers  # noqa: F401
t1 = time.perf_counter()
from skillsift.embed import local
path = local.locate_model()
local._read_verified(path, local.MODEL_SHA256)
t2 = time.perf_counter()
provider = local.LocalProvider(threads=int(sys.argv[1]))
provider.load()
t3 = time.perf_counter()
provider.embed(["warm up"])
t4 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "verify_s": t2 - t1, "session_s": t3 - t2, "first_embed_s": t4 - t3}))
"""


def read_skill(path: Path):
    """A Skill from a SKILL.md, or None when its frontmatter does not parse (bench only)."""
    import yaml

    from skillsift.catalog.skill import Skill

    text = path.read_text(encoding="utf-8", errors="replace").lstrip("\ufeff")
    lines = text.splitlines()
    if not lines or lines[0].rstrip() != "---":
        return None
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].rstrip() == "---")
        meta = yaml.safe_load("\n".join(lines[1:end])) or {}
    except (StopIteration, yaml.YAMLError):
        return None
    if not isinstance(meta, dict):
        return None

    def listed(value) -> tuple[str, ...]:
        if isinstance(value, str):
            return tuple(v.strip() for v in value.split(",") if v.strip())
        if isinstance(value, list):
            return tuple(str(v) for v in value if v is not None)
        return ()

    name = str(meta.get("name") or path.parent.name)
    return Skill(
        name=name,
        description=str(meta.get("description") or ""),
        triggers=listed(meta.get("triggers")),
        keywords=listed(meta.get("keywords")),
    )


def corpus_skills(limit: int) -> list:
    paths = sorted(CORPORA.rglob("SKILL.md"))
    skills = []
    for p in paths:
        skill = read_skill(p)
        if skill is not None and skill.description:
            skills.append(skill)
        if len(skills) >= limit:
            break
    return skills


def skill_text(skill) -> str:
    from skillsift.catalog.embedtext import embedded_text

    return embedded_text(skill)


def short_queries(skills: list, count: int) -> list[str]:
    """Query-like strings: the first 4 to 11 words of skill descriptions (deterministic)."""
    out = []
    for i, skill in enumerate(skills):
        words = skill.description.split()
        if len(words) >= 4:
            out.append(" ".join(words[: 4 + i % 8]))
        if len(out) >= count:
            break
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    from skillsift.embed.local import LocalProvider, local_model_available

    ok, reason = local_model_available()
    if not ok:
        print(f"local model unavailable: {reason}", file=sys.stderr)
        return 2
    if not CORPORA.is_dir():
        print(f"the skill corpora are absent ({CORPORA}); nothing to measure", file=sys.stderr)
        return 2

    probe = subprocess.run(
        [sys.executable, "-c", _LOAD_PROBE, str(args.threads)],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )
    load = json.loads(probe.stdout)

    provider = LocalProvider(threads=args.threads)
    provider.load()
    skills = corpus_skills(max(args.skills, args.queries))
    queries = short_queries(skills, args.queries)
    provider.embed(queries[:5])  # warm-up

    latencies = []
    for q in queries:
        t0 = time.perf_counter()
        provider.embed([q])
        latencies.append((time.perf_counter() - t0) * 1000.0)

    texts = [skill_text(s) for s in skills[: args.skills]]
    tokens = provider.count_tokens(texts)
    t0 = time.perf_counter()
    vectors = provider.embed(texts)
    elapsed = time.perf_counter() - t0

    figures = {
        "machine": {"cpus": os.cpu_count(), "threads": provider.threads, "python": sys.version.split()[0]},
        "load": {k: round(v, 3) for k, v in load.items()},
        "load_total_s": round(load["import_s"] + load["verify_s"] + load["session_s"], 3),
        "query_latency_ms": {
            "n": len(latencies),
            "median": round(statistics.median(latencies), 2),
            "p90": round(percentile(latencies, 0.9), 2),
            "max": round(max(latencies), 2),
        },
        "throughput": {
            "skills": len(texts),
            "seconds": round(elapsed, 2),
            "texts_per_s": round(len(texts) / elapsed, 1),
            "tokens_median": statistics.median(tokens),
            "tokens_p90": percentile(tokens, 0.9),
            "truncated_at_256": sum(t >= 256 for t in tokens),
            "batch": provider.max_batch,
        },
        "shape": list(vectors.shape),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    lt, tp = figures["query_latency_ms"], figures["throughput"]
    print(f"machine: {figures['machine']['cpus']} CPUs, {provider.threads} onnxruntime threads")
    print(
        f"load (fresh process): {figures['load_total_s']:.3f} s = import {load['import_s']:.3f} s"
        f" + verify SHA-256 {load['verify_s']:.3f} s + session/tokenizer {load['session_s']:.3f} s"
    )
    print(
        f"query latency over {lt['n']} queries: median {lt['median']} ms, p90 {lt['p90']} ms,"
        f" max {lt['max']} ms"
    )
    print(
        f"throughput: {tp['skills']} skills in {tp['seconds']} s = {tp['texts_per_s']} texts/s"
        f" (tokens median {tp['tokens_median']}, p90 {tp['tokens_p90']}, {tp['truncated_at_256']} truncated)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
