"""Cold catalog load on ~2,000 skills against a floor measured in the same run.

Builds a repository from the shared corpus (about 2,000 distinct skills: most under
``skills/<folder>``, a tenth under ``.claude/skills``, a tenth in a monorepo package's
``.agents/skills``, some in category folders), then times in fresh processes:

* floor: ``os.walk`` of the repository reading every SKILL.md (no parsing);
* discover: ``skillsift.catalog.load.discover`` alone;
* load: ``skillsift.catalog.load.load_catalog`` (discover + read + parse).

Prints the best of N calls of each and the ratios discover/floor and load/floor.
``python bench/bench_discovery.py [--corpus ../shared/corpora] [--runs 5]``
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import CORPORA

FLOOR = """
import os
def run():
    n = 0
    for d, dirs, files in os.walk(ROOT):
        dirs[:] = [x for x in dirs if x not in ('.git', 'node_modules')]
        if 'SKILL.md' in files:
            with open(os.path.join(d, 'SKILL.md'), 'rb') as fh:
                fh.read()
            n += 1
    return n
"""
DISCOVER = """
from skillsift.catalog.load import discover
def run():
    return len(discover(ROOT))
"""
LOAD = """
from skillsift.catalog.load import load_catalog
def run():
    return len(load_catalog(ROOT))
"""
LOOP = """
import time
best = None
for _ in range(RUNS):
    t = time.perf_counter()
    n = run()
    t = time.perf_counter() - t
    best = t if best is None else min(best, t)
print(best, n)
"""


def build(corpus: Path, root: Path) -> int:
    seen = set()
    n = 0
    for path in sorted(corpus.glob("*/*/SKILL.md")):
        folder = path.parent.name
        if folder in seen:
            continue
        seen.add(folder)
        if n % 10 == 0:
            dest = root / ".claude" / "skills" / folder
        elif n % 10 == 1:
            dest = root / "packages" / "pkg" / ".agents" / "skills" / folder
        elif n % 10 == 2:
            dest = root / "skills" / f"cat{n % 7}" / folder
        else:
            dest = root / "skills" / folder
        dest.mkdir(parents=True)
        shutil.copyfile(path, dest / "SKILL.md")
        n += 1
    for i in range(200):  # ordinary source folders a walk must cross
        (root / "src" / f"mod{i}" / "sub").mkdir(parents=True)
    return n


def timed(code: str, root: Path, runs: int) -> tuple[float, int]:
    """Best of ``runs`` calls in one fresh process (nothing is cached between calls)."""
    out = subprocess.run([sys.executable, "-c", f"ROOT = {str(root)!r}\nRUNS = {runs}\n" + code + LOOP],
                         capture_output=True, text=True, check=True, cwd=root.parent).stdout.split()
    return float(out[0]), int(out[1])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=str(CORPORA))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(f"corpus not found: {corpus}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        written = build(corpus, root)
        floor, n_floor = timed(FLOOR, root, args.runs)
        disc, n_disc = timed(DISCOVER, root, args.runs)
        load, n_load = timed(LOAD, root, args.runs)
    print(f"skills written {written}; found: floor {n_floor}, discover {n_disc}, catalog {n_load}")
    print(f"floor {floor * 1000:.1f} ms  discover {disc * 1000:.1f} ms  load {load * 1000:.1f} ms")
    print(f"discover/floor {disc / floor:.2f}x  load/floor {load / floor:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
