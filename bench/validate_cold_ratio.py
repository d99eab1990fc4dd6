"""CPU of ``skillsift validate`` on the corpus with the user caches off, for two source trees, against
``python -c pass``: interleaved fresh processes, CPU by ``getrusage(RUSAGE_CHILDREN)``, medians.

Usage: python bench/validate_cold_ratio.py BEFORE-TREE AFTER-TREE [--runs 5] [--corpus ../shared/corpora]
       [--bytecode] [-- EXTRA VALIDATE ARGUMENTS]

Each tree is a checkout run from source (``PYTHONPATH=<tree>``).  ``--bytecode`` keeps .pyc files (in a
temporary folder, after one warm-up run of each command), as an installed package has them; without it
the children inherit the environment as it is (with ``PYTHONDONTWRITEBYTECODE`` set, each run compiles
every module it imports).  bench/bench_startup.py measures regular installs instead.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile


def _cpu(cmd: list[str], env: dict, cwd: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str]) -> int:
    extra: list[str] = []
    if "--" in argv:
        argv, extra = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--corpus", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpora"))
    parser.add_argument("--bytecode", action="store_true")
    args = parser.parse_args(argv)
    work = tempfile.mkdtemp(prefix="validate-cold-")
    config = os.path.join(work, "corpus.toml")
    with open(config, "w", encoding="utf-8") as handle:
        handle.write('[catalog]\nskills = ["*"]\n')
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["SKILLSIFT_CACHE"] = "off"
    if args.bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(work, "pyc")
    validate = [sys.executable, "-m", "skillsift", "validate", "--root", os.path.abspath(args.corpus),
                "--config", config, *extra]
    trees = {"before": os.path.abspath(args.before), "after": os.path.abspath(args.after)}
    floor = [sys.executable, "-c", "pass"]
    if args.bytecode:  # one warm-up of each, writing the .pyc files
        _cpu(floor, env, work)
        for tree in trees.values():
            _cpu(validate, {**env, "PYTHONPATH": tree}, work)
    times: dict[str, list[float]] = {"pass": [], "before": [], "after": []}
    for _ in range(args.runs):
        times["pass"].append(_cpu(floor, env, work))
        for name, tree in trees.items():
            times[name].append(_cpu(validate, {**env, "PYTHONPATH": tree}, work))
    floor_cpu = statistics.median(times["pass"])
    print(f"python -c pass: {floor_cpu * 1000:.1f} ms CPU (median of {args.runs})")
    for name in trees:
        cpu = statistics.median(times[name])
        runs = ", ".join(f"{t:.3f}" for t in times[name])
        print(f"{name}: {cpu:.3f} s CPU, {cpu / floor_cpu:.1f}x python -c pass ({runs})")
    print(f"after / before: x{statistics.median(times['after']) / statistics.median(times['before']):.2f}; "
          f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
