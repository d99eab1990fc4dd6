"""Cold start of skillsift commands: validate and the hooks on examples/acme, search on
examples/acme and on the ~2,100 real skills of ../shared/corpora, and ``skillsift mcp``
answering initialize and one find_skill on examples/acme (lexical).

Usage: python bench/bench_startup.py [--runs 15] [--corpus ../shared/corpora] [--json] [--keep-env]
       [--baseline OTHER-VENV/bin/python]

The cases run interleaved, each ``--runs`` times.  Each figure is a fresh process (as
pre-commit starts one per hook), timed from spawn to exit (wall) and by the CPU time it used
(user + system, which other load on the machine disturbs less); median and 90th percentile
over ``--runs`` runs after one warm-up (so the file cache is warm, .pyc files exist and the
parsed-frontmatter cache is filled, as on a developer's machine).  ``python -c pass`` is
measured in the same run: the floor any Python tool pays here, and every figure is printed
as a ratio to it.  The script also reports whether numpy or jsonschema were imported by
the hooks that must not need them.

The corpus cases also run with ``SKILLSIFT_CACHE=off`` (no parsed-frontmatter, skill,
secret-scan or SK009 cache: the cost of a first run).

The floor depends on how skillsift is installed: an editable install (``pip install -e``)
makes every interpreter of its environment import the editable finder, ``python -c pass``
included, which here costs about 2.5 times a regular install's floor; the script says so
when it measures one.  ``--baseline OTHER/bin/python`` runs the hooks, ``--version``,
``validate`` and ``search`` on acme with another environment's skillsift too (an earlier
version installed with ``pip install .``), interleaved, each side with its own user-cache
folder, and prints this install's CPU as a ratio to the baseline's: the "not slower" check
of a change, independent of the floor.

The children run without ``PYTHONDONTWRITEBYTECODE`` (an installed package has its .pyc
files: pip writes them at install), so the warm-up leaves .pyc files as it says; with
``--keep-env`` they inherit the environment as it is, and a shell that sets it measures
every run compiling skillsift's sources again.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from harness import ACME, CORPORA, child_times

TARGETS_X = {"hook secrets": 3.5, "hook frontmatter": 3.5, "search (real corpus)": 10, "validate (real corpus)": 45,
             "mcp first answer (lexical)": 15}
# the cases --baseline runs with the other install too
BASELINE_CASES = ("skillsift --version", "hook secrets", "hook frontmatter", "hook index",
                  "validate (full, no embeddings)", "search (acme)", "search (real corpus)", "validate (real corpus)")
# initialize, initialized, one find_skill: the server answers, reads the end of its input and exits,
# so the process's CPU is what a client waits for before its first tool result (issue: MCP start-up)
MCP_REQUESTS = "".join(json.dumps(m) + "\n" for m in (
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
     "params": {"name": "find_skill", "arguments": {"query": "roll back the last release"}}},
))


def editable_install(python: str) -> bool:
    """True when ``python``'s skillsift is an editable install (``pip install -e``).

    Such an environment imports the editable finder (pathlib, fnmatch, urllib.parse, ...) in
    *every* interpreter it starts, ``python -c pass`` included: there the floor costs about
    2.5 times what it costs in a regular install, and every ratio to it looks that much smaller.
    """
    # -I: the working folder is not on the path, so the skillsift found is the installed one
    code = ("import os, sysconfig, skillsift\n"
            "site = os.path.realpath(sysconfig.get_paths()['purelib'])\n"
            "print(not os.path.realpath(skillsift.__file__).startswith(site + os.sep))")
    proc = subprocess.run([python, "-I", "-c", code], capture_output=True, text=True, check=False)
    return proc.stdout.strip() == "True"


def skillsift_argv() -> list[str]:
    """The console script next to this interpreter (what a pre-commit environment runs).

    A ``skillsift`` found first on PATH may be a version-manager shim that starts a shell
    before Python; that cost is not skillsift's, so the interpreter's own script is used.
    """
    script = Path(sys.executable).parent / "skillsift"
    if script.is_file():
        return [str(script)]
    found = shutil.which("skillsift")
    return [found] if found else [sys.executable, "-m", "skillsift"]


CHILD_ENV: dict | None = None  # None: the environment as it is


def timed(argv, cwd) -> tuple[float, float]:
    """(wall ms, CPU ms of the child: user + system).

    ``argv`` may be ``(argv, text for its stdin)`` or ``(argv, text or None, extra environment)``.
    """
    stdin = None
    env = CHILD_ENV
    if isinstance(argv, tuple):
        argv, stdin, *extra = argv
        if extra:
            env = {**(os.environ if CHILD_ENV is None else CHILD_ENV), **extra[0]}
    return child_times(argv, cwd=cwd, stdin=stdin, env=env)


def _p90(values: list[float]) -> float:
    return values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]


def measure_all(cases: dict, cwd, runs: int) -> dict:
    """Every case ``runs`` times, interleaved (case 1, case 2, ..., then again), after one warm-up each.

    Interleaving spreads the machine's other load over every case alike, so the ratios to
    ``python -c pass`` measured in the same run hold even when absolute times do not.
    """
    for argv in cases.values():
        timed(argv, cwd)  # warm-up: file cache, .pyc files, the parsed-frontmatter cache
    samples = {name: [] for name in cases}
    for _ in range(runs):
        for name, argv in cases.items():
            samples[name].append(timed(argv, cwd))
    out = {}
    for name, pairs in samples.items():
        walls, cpus = zip(*pairs, strict=True)
        walls, cpus = sorted(walls), sorted(cpus)
        out[name] = {"median_ms": round(statistics.median(walls), 1), "p90_ms": round(_p90(walls), 1),
                     "cpu_median_ms": round(statistics.median(cpus), 1)}
    return out


def _bytecode_written() -> bool:
    env = os.environ if CHILD_ENV is None else CHILD_ENV
    return not env.get("PYTHONDONTWRITEBYTECODE")


def heavy_modules(hook: str, files: list[str]) -> list[str]:
    """Which of numpy / jsonschema a hook imports (run in a fresh interpreter)."""
    code = (f"import sys\nfrom skillsift.cli import main\nmain(['hook', {hook!r}] + {files!r})\n"
            "print(','.join(m for m in ('numpy', 'jsonschema') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ACME, capture_output=True, text=True, check=False)
    last = proc.stdout.strip().splitlines()[-1:] or [""]
    return [m for m in last[0].split(",") if m]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--corpus", type=Path, default=CORPORA)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep-env", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE if set (every run then compiles the sources)")
    parser.add_argument("--baseline", metavar="PYTHON",
                        help="the interpreter of another environment with skillsift installed (an earlier "
                             "version): its hooks, --version, search and validate on acme run interleaved "
                             "with this one's, and each is printed as a ratio to the baseline's")
    args = parser.parse_args()
    global CHILD_ENV
    import tempfile

    # The children's own user-cache folder: the user's caches (written by another install of skillsift,
    # whose parser stamp differs) never decide a figure, and the warm-up fills this one.
    CHILD_ENV = {k: v for k, v in os.environ.items() if args.keep_env or k != "PYTHONDONTWRITEBYTECODE"}
    CHILD_ENV["SKILLSIFT_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-cache-")
    files = sorted(p.relative_to(ACME).as_posix() for p in ACME.glob(".claude/skills/*/SKILL.md"))
    cmd = skillsift_argv()
    cases = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "skillsift --version": cmd + ["--version"],
        "hook secrets": cmd + ["hook", "secrets", *files],
        "hook frontmatter": cmd + ["hook", "frontmatter", *files],
        "validate (full, no embeddings)": cmd + ["validate"],
        "validate --format sarif": cmd + ["validate", "--format", "sarif"],
        "search (acme)": cmd + ["search", "roll back the last release"],
        "hook index": cmd + ["hook", "index"],
        "mcp first answer (lexical)": (cmd + ["mcp"], MCP_REQUESTS),
    }
    if args.corpus.is_dir():
        # The corpus is read-only and has its own layout: name it in a config kept elsewhere.
        config = Path(tempfile.mkdtemp()) / "skillsift.toml"
        config.write_text('[catalog]\nskills = ["*"]\n', encoding="utf-8")
        cases["search (real corpus)"] = cmd + ["search", "deploy kubernetes cluster", "--root", str(args.corpus),
                                               "--config", str(config)]
        cases["validate (real corpus)"] = cmd + ["validate", "--root", str(args.corpus), "--config", str(config)]
        # The same with skillsift's user caches off: what a first run (or a changed file) costs.
        off = ["env", "SKILLSIFT_CACHE=off"]
        cases["search (corpus, caches off)"] = off + cases["search (real corpus)"]
        cases["validate (corpus, caches off)"] = off + cases["validate (real corpus)"]
    paired = [name for name in BASELINE_CASES if name in cases]
    if args.baseline:
        base_cmd = [str(Path(args.baseline).parent / "skillsift")]
        base_env = {"SKILLSIFT_CACHE_DIR": tempfile.mkdtemp(prefix="bench-cache-baseline-")}
        for name in paired:
            argv = cases[name]
            cases[f"{name} [baseline]"] = (base_cmd + argv[len(cmd):], None, base_env)
    results = measure_all(cases, ACME, args.runs)
    floor = results["python -c pass"]["median_ms"]
    cpu_floor = results["python -c pass"]["cpu_median_ms"]
    heavy = {hook: heavy_modules(hook, files) for hook in ("secrets", "frontmatter")}
    if args.json:
        print(json.dumps({"runs": args.runs, "skills": len(files), "results": results, "heavy_imports": heavy,
                          "cpus": os.cpu_count(), "bytecode_written": _bytecode_written()}, indent=2))
        return 0
    print(f"{len(files)} skills, {args.runs} runs each, interleaved (fresh process; wall median / wall p90 / "
          "CPU median; ratios to python -c pass in this run: wall, CPU); .pyc files "
          + ("written" if _bytecode_written() else "NOT written (PYTHONDONTWRITEBYTECODE kept)"))
    for name, figures in results.items():
        target = TARGETS_X.get(name)
        note = f"   goal <= {target}x" if target else ""
        ratio = figures["median_ms"] / floor if floor else 0.0
        cpu_ratio = figures["cpu_median_ms"] / cpu_floor if cpu_floor else 0.0
        print(f"  {name:<32} {figures['median_ms']:>7.1f} ms  {figures['p90_ms']:>7.1f} ms  "
              f"{figures['cpu_median_ms']:>7.1f} ms  x{ratio:5.1f} / x{cpu_ratio:5.1f} python{note}")
    for hook, modules in heavy.items():
        print(f"  hook {hook} imports: {', '.join(modules) if modules else 'neither numpy nor jsonschema'}")
    if args.baseline:
        print(f"this install / the baseline's ({args.baseline}), CPU medians of the same run:")
        for name in paired:
            ours, theirs = results[name]["cpu_median_ms"], results[f"{name} [baseline]"]["cpu_median_ms"]
            print(f"  {name:<32} x{ours / theirs:5.2f}" if theirs else f"  {name:<32} n/a")
    for python, label in ((sys.executable, "this install"), (args.baseline, "the baseline")):
        if python and editable_install(python):
            print(f"note: {label} is an editable install: its python -c pass imports the editable finder, so "
                  "its floor costs about 2.5x a regular install's and every ratio to it looks smaller; "
                  "measure a regular install (pip install .) to compare with the figures in bench/README.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
