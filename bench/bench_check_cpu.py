"""CPU of the secrets check (AR001) and of SK002/SK009 on the corpus of real skills, caches off, and of
the whole cold ``validate``, for one or more checkouts, in one run (before/after of a change).

Usage: python bench/bench_check_cpu.py [--runs 3] [--corpus ../shared/corpora] [--bytecode] TREE [TREE ...]

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
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import CORPORA, child_times

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
    """CPU seconds of one fresh process (user + system), its output discarded."""
    return child_times(argv, cwd=tempfile.gettempdir(), env=env)[1] / 1000

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--corpus", default=str(CORPORA))
    parser.add_argument("--bytecode", action="store_true",
                        help="keep .pyc files (in a temporary folder, after one warm-up), as an install has them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        config = Path(work) / "corpus.toml"
        config.write_text('[catalog]\nskills = ["*"]\n', encoding="utf-8")
        base_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        base_env["SKILLSIFT_CACHE"] = "off"
        validate = [sys.executable, "-m", "skillsift", "validate", "--root", args.corpus, "--config", str(config)]
        if args.bytecode:  # without it, a shell that sets PYTHONDONTWRITEBYTECODE measures every compile
            base_env.pop("PYTHONDONTWRITEBYTECODE", None)
            base_env["PYTHONPYCACHEPREFIX"] = str(Path(work) / "pyc")
            for tree in args.trees:
                _child_cpu(validate, dict(base_env, PYTHONPATH=str(Path(tree).resolve())))
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
                whole[tree].append(_child_cpu(validate, env))
    base = statistics.median(floor)
    print(f"python -c pass: {base * 1000:.1f} ms CPU (median of {len(floor)})")
    for tree in args.trees:
        cpu = statistics.median(whole[tree])
        print(f"{tree}: validate {cpu * 1000:.0f} ms CPU = {cpu / base:.1f}x; "
              + "; ".join(f"{name} {statistics.median(values) * 1000:.0f} ms ({findings[tree][name]} findings)"
                          for name, values in checks[tree].items()))
    if len(args.trees) > 1:
        first = statistics.median(whole[args.trees[0]])
        print("against the first tree: " + ", ".join(f"{tree} x{statistics.median(whole[tree]) / first:.2f}"
                                                     for tree in args.trees[1:])
              + f"; load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
