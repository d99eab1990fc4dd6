"""A project of the corpus's skills with 20,000 real known requests: what bench_oneshot_search.py and
bench_request_lexicon_build.py ``--root`` read.

Usage: python bench/make_known_project.py PROJECT [--corpus ../shared/corpora] [--requests 20000]
                                          [--cache /tmp/skillsift-quality-cache]

Copies ``--corpus`` into ``PROJECT`` (which must not exist), writes ``skillsift.toml`` (every folder a skill,
hybrid mode, ``examples = ["known-*.yaml"]``) and the known requests: the texts of
``bench_hybrid.request_texts`` that hold a word and are distinct once normalised, the first ``--requests``,
each under the skill whose vector is closest to its own (the local model; the rule of
``bench_hybrid.real_index``), in examples files of at most 10,000 cases (the cases-file limit).  Then
``skillsift index --root PROJECT`` builds the index with the local model (offline).  Embeddings come from and go
to ``--cache`` (shared with bench/transfer.py), so a second project costs no model run for the requests.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import harness  # noqa: F401  (the checkout's skillsift on the path)
import numpy as np
import yaml
from bench_hybrid import request_texts
from transfer import DEFAULT_CACHE, DEFAULT_CORPORA, EmbedCache

from skillsift.catalog.embedtext import embedded_text
from skillsift.catalog.load import load_catalog
from skillsift.config import load_config
from skillsift.embed import local
from skillsift.ranker.model.lift import normalised

PER_FILE = 10_000


def unit(m) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    if args.project.exists():
        parser.error(f"{args.project} exists: name a new folder")
    shutil.copytree(args.corpus, args.project, symlinks=True)
    root = str(args.project)
    Path(root, "skillsift.toml").write_text('[catalog]\nskills = ["*"]\n\n[search]\nmode = "hybrid"\n'
                                            'examples = ["known-*.yaml"]\n', encoding="utf-8")
    skills = load_catalog(root, load_config(root)).skills
    provider = local.LocalProvider()
    provider.load()
    embed = EmbedCache(args.cache, provider)
    matrix = unit(embed.get([embedded_text(s) for s in skills], "skills"))
    seen: dict[str, str] = {}
    texts = [t for t in request_texts(args.corpus) if normalised(t) and seen.setdefault(normalised(t), t) is t]
    texts = texts[:args.requests]
    vectors = unit(embed.get(texts, "requests"))
    owner = np.concatenate([np.argmax(vectors[i:i + 8192] @ matrix.T, axis=1) for i in range(0, len(texts), 8192)])
    pairs = enumerate(zip(texts, owner.tolist(), strict=True))
    cases = [{"id": f"k{i}", "query": t, "expect": [skills[o].name]} for i, (t, o) in pairs]
    for n, start in enumerate(range(0, len(cases), PER_FILE), 1):
        Path(root, f"known-{n}.yaml").write_text(
            yaml.safe_dump({"version": 1, "cases": cases[start:start + PER_FILE]}, allow_unicode=True,
                           sort_keys=False, width=10**6), encoding="utf-8")
    print(f"{len(skills)} skills, {len(cases)} known requests in {args.project}")
    return subprocess.run([sys.executable, "-m", "skillsift", "index", "--root", root], check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
