"""A one-shot ``skillsift search`` in a project with many known requests (what an agent calling the CLI pays
on every query): CPU (user + system) and peak RSS of the process, against another tree of skillsift.

Usage: python bench/bench_oneshot_search.py --root PROJECT --base TREE [--query TEXT] [--rounds 3] [--parts]

``PROJECT`` is a repository with ``[search] examples`` files and a built index (the known requests of the
result file: the corpus's 2,022 served skills and 20,000 real requests in two examples files); ``TREE`` a
checkout of skillsift to compare with (the one before a change).  Each round runs the search of both trees
in alternating order, each in a fresh process, in two states: ``cold`` (``SKILLSIFT_CACHE=off``) and
``warm`` (a cache folder of the tree's own, filled by one run before the rounds).  The outputs of the two
trees (``--format json --explain``, times masked) must be the same bytes.  ``--parts``: one profiled run of
each tree and state (cProfile), the cumulative seconds of the parts a one-shot search spends most in.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
PARTS = {"examples files read and checked": "load_examples_files", "cases files parsed": "parse_cases",
         "parsed files from the cache": "decoded", "index load": "load_index", "centring": "centre",
         "centred screen": "CentredScreen.__init__", "use_examples": "use_examples", "model load": "_load_runtime"}


def _command(query: str, root: str) -> list[str]:
    return ["search", query, "--root", root, "--format", "json", "--explain"]


def run_once(tree: Path, args: list[str], env: dict) -> tuple[float, float, int, bytes]:
    """``(user s, system s, peak RSS KiB, stdout with times masked)`` of one ``skillsift`` process of ``tree``."""
    env = {**env, "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    proc = subprocess.Popen([sys.executable, "-m", "skillsift", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=tempfile.gettempdir())  # not a tree: PYTHONPATH picks
    out = proc.stdout.read() if proc.stdout else b""
    _pid, _status, usage = os.wait4(proc.pid, 0)
    assert b'"query"' in out, f"{tree}: no search output"
    proc.returncode = 0
    return usage.ru_utime, usage.ru_stime, usage.ru_maxrss, re.sub(rb"[0-9]+(\.[0-9]+)? ?ms", b"N ms", out)


def parts(tree: Path, args: list[str], env: dict, profile: str) -> dict[str, float]:
    """Cumulative seconds of :data:`PARTS` in one profiled run."""
    import pstats

    env = {**env, "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "cProfile", "-o", profile, "-m", "skillsift", *args], env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=tempfile.gettempdir())
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    total = max(ct for (_cc, _nc, _tt, ct, _callers) in stats.values())
    out = {"total": total}
    for label, name in PARTS.items():
        owner, _, func = name.rpartition(".")
        out[label] = sum(ct for (file, _line, fn), (_cc, _nc, _tt, ct, _callers) in stats.items()
                         if fn == (func if owner else name) and (not owner or "screens" in file))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--query", default="summarise a pdf report")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--parts", action="store_true")
    args = parser.parse_args(argv)
    trees = {"base": args.base.resolve(), "this": HERE}
    command = _command(args.query, args.root)
    with tempfile.TemporaryDirectory() as work:
        envs = {}
        for name in trees:
            cold = {**os.environ, "SKILLSIFT_CACHE": "off", "SKILLSIFT_CACHE_DIR": os.path.join(work, f"off-{name}")}
            warm = {**os.environ, "SKILLSIFT_CACHE_DIR": os.path.join(work, f"cache-{name}")}
            warm.pop("SKILLSIFT_CACHE", None)
            envs[name] = {"cold": cold, "warm": warm}
            run_once(trees[name], command, warm)  # fills the tree's cache
        times: dict[tuple[str, str], list[tuple[float, float, int]]] = {}
        outputs: set[bytes] = set()
        for n in range(args.rounds):
            order = list(trees) if n % 2 == 0 else list(reversed(trees))
            for state in ("cold", "warm"):
                for name in order:
                    user, system, rss, out = run_once(trees[name], command, envs[name][state])
                    times.setdefault((name, state), []).append((user, system, rss))
                    outputs.add(out)
        same = len(outputs) == 1
        print(f"{args.rounds} rounds, alternating; query {args.query!r}; outputs {'the same' if same else 'DIFFER'}")
        print("| tree | state | CPU user+sys s (median) | user s | sys s | peak RSS MB (median) |")
        print("|---|---|---:|---:|---:|---:|")
        for (name, state), rows in sorted(times.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            user = statistics.median(r[0] for r in rows)
            system = statistics.median(r[1] for r in rows)
            cpu = statistics.median(r[0] + r[1] for r in rows)
            rss = statistics.median(r[2] for r in rows) / 1024
            print(f"| {name} | {state} | {cpu:.2f} | {user:.2f} | {system:.2f} | {rss:.0f} |")
        if args.parts:
            print("\ncProfile, cumulative seconds (one run each):")
            for state in ("cold", "warm"):
                for name in trees:
                    got = parts(trees[name], command, envs[name][state], os.path.join(work, "prof.out"))
                    print(f"- {name} {state}: " + "; ".join(f"{k} {v:.2f}" for k, v in got.items()))
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
