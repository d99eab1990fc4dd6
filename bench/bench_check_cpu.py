"""CPU of the secrets check (AR001) and of SK002/SK009 on the corpus of real skills, caches off, and of
the whole cold ``validate``, for one or more checkouts, in one run (before/after of a change).

Usage: python bench/bench_check_cpu.py [--runs 3] [--corpus ../shared/corpora] TREE [TREE ...]

Each TREE is a checkout put first on ``PYTHONPATH``.  Per check: a fresh process opens the corpus
(reading and parsing every skill first, outside the measure) and times the check's first run in that
process (as ``validate`` runs it: its imports, compilations and first readings included).  Whole run:
``python -m skillsift validate`` with ``SKILLSIFT_CACHE=off``, its CPU (user + system of the child)
as a ratio to ``python -c pass`` measured in the same run.  Every case is interleaved across the
trees, ``--runs`` times; medians are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, sys, time
from skillsift.validators.workspace import Workspace
from skillsift.checks import duplicates, secrets
ws = Workspace(sys.argv[1], config_file=sys.argv[2])
ws.all_skills, ws.catalog
for rel in secrets.skill_files(ws, ws.skill_paths):
    ws.read_text(rel)
for rel in ws.skill_paths:
    ws.skill_at(rel)
out = {}
for name, check in (("secrets", secrets.run), ("duplicates", duplicates.run)):
    start = time.process_time()
    found = check(ws)
    out[name] = [time.process_time() - start, len(found)]
print(json.dumps(out))
"""


def _child_cpu(argv: list[str], env: dict) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, cwd=tempfile.gettempdir(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpora"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        config = Path(work) / "corpus.toml"
        config.write_text('[catalog]\nskills = ["*"]\n', encoding="utf-8")
        base_env = dict(os.environ, SKILLSIFT_CACHE="off")
        floor: list[float] = []
        checks: dict[str, dict[str, list[float]]] = {t: {"secrets": [], "duplicates": []} for t in args.trees}
        whole: dict[str, list[float]] = {t: [] for t in args.trees}
        findings: dict[str, dict] = {}
        for _ in range(args.runs):
            floor.append(_child_cpu([sys.executable, "-c", "pass"], base_env))
            for tree in args.trees:
                env = dict(base_env, PYTHONPATH=str(Path(tree).resolve()))
                done = subprocess.run([sys.executable, "-c", _CHILD, args.corpus, str(config)], env=env,
                                      capture_output=True, text=True, check=True)
                measured = json.loads(done.stdout)
                for name, (seconds, count) in measured.items():
                    checks[tree][name].append(seconds)
                    findings.setdefault(tree, {})[name] = count
                whole[tree].append(_child_cpu([sys.executable, "-m", "skillsift", "validate", "--root", args.corpus,
                                               "--config", str(config)], env))
    base = statistics.median(floor)
    print(f"python -c pass: {base * 1000:.1f} ms CPU (median of {len(floor)})")
    for tree in args.trees:
        cpu = statistics.median(whole[tree])
        print(f"{tree}: validate {cpu * 1000:.0f} ms CPU = {cpu / base:.1f}x; "
              + "; ".join(f"{name} {statistics.median(values) * 1000:.0f} ms ({findings[tree][name]} findings)"
                          for name, values in checks[tree].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
