"""Cold start of skillsift commands: validate and the hooks on examples/acme, search on
examples/acme and on the ~2,100 real skills of ../shared/corpora, and ``skillsift mcp``
answering initialize and one find_skill on examples/acme (lexical).

Usage: python bench/bench_startup.py [--runs 15] [--corpus ../shared/corpora] [--json] [--keep-env]
       [--baseline OTHER-VENV/bin/python] [--install] [--baseline-ref GIT-REF]

``--install`` measures a regular install of this checkout, as a user and pre-commit get it:
the script makes a virtual environment in a temporary folder, ``pip install``s the checkout
into it (dependencies from pip's cache or index) and runs itself again with that
environment's interpreter.  ``--baseline-ref REF`` does the same with ``git archive REF`` of
this repository and uses it as ``--baseline``: ``--install --baseline-ref main`` is the
before/after of a change, both regular installs, in one run.  The issue's goals (ratios to
``python -c pass``: each hook <= 4x, ``search`` on the corpus <= 10x, ``validate`` on the
corpus <= 40x with the user caches off, a fresh process) are printed at the end, met or not.

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
import time
from pathlib import Path

from harness import ACME, CORPORA, ROOT, child_times
from harness import ratio as harness_ratio

# The goals, CPU ratios to ``python -c pass`` from a regular install (issue 45, "Speed at commit
# time"): "cold, with no cache" is read as a fresh process with skillsift's user caches off
# (SKILLSIFT_CACHE=off: a first run, or every file changed); the same command with warm caches is
# printed beside it.  Python's own bytecode cache is warm in both (pip writes it at install).
TARGETS_X = {"hook secrets": 4, "hook frontmatter": 4, "search (real corpus)": 10,
             "validate (corpus, caches off)": 40, "mcp first answer (lexical)": 15}
GOALS = ("hook frontmatter", "hook secrets", "search (real corpus)", "validate (corpus, caches off)")
# the cases --baseline runs with the other install too
BASELINE_CASES = ("skillsift --version", "hook secrets", "hook frontmatter", "hook index",
                  "validate (full, no embeddings)", "search (acme)", "search (real corpus)", "validate (real corpus)",
                  "search (corpus, caches off)", "validate (corpus, caches off)")
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


def regular_install(source: Path, folder: Path) -> str:
    """A virtual environment in ``folder`` with ``source`` installed by ``pip install`` (not editable);
    returns its interpreter."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python = str(folder / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", str(source)], check=True)
    return python


def ref_source(ref: str, folder: Path) -> Path:
    """``git archive REF`` of this repository, unpacked in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def _short(ref: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", ref], capture_output=True, text=True,
                          check=False).stdout.strip()


def reinvoke_installed(args, argv: list[str]) -> int:
    """Run this script again with a regular install of the checkout (and of ``--baseline-ref``)."""
    import tempfile

    work = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    try:
        python = regular_install(ROOT, work / "this")
        rest = [a for a in argv if a != "--install"]
        if args.baseline_ref:
            i = rest.index("--baseline-ref")
            del rest[i:i + 2]
            baseline = regular_install(ref_source(args.baseline_ref, work / "ref"), work / "baseline")
            rest += ["--baseline", baseline]
            print(f"baseline: a regular install of {args.baseline_ref} ({_short(args.baseline_ref)})")
        print(f"this checkout: a regular install ({_short('HEAD')}, uncommitted changes included)")
        sys.stdout.flush()
        return subprocess.run([python, str(Path(__file__).resolve()), *rest], check=False).returncode
    finally:
        shutil.rmtree(work, ignore_errors=True)


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
    parser.add_argument("--install", action="store_true",
                        help="measure a regular install (pip install .) of this checkout, made in a temporary folder")
    parser.add_argument("--baseline-ref", metavar="REF",
                        help="with --install: a regular install of this git REF (git archive) is the --baseline")
    args = parser.parse_args()
    if args.baseline_ref and not args.install:
        parser.error("--baseline-ref needs --install")
    if args.install:
        return reinvoke_installed(args, sys.argv[1:])
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
    args.corpus = args.corpus.resolve()  # the cases run in examples/acme: a relative path would name nothing there
    if args.corpus.is_dir():
        # The corpus is read-only and has its own layout: name it in a config kept elsewhere.
        config = Path(tempfile.mkdtemp()) / "skillsift.toml"
        config.write_text('[catalog]\nskills = ["*"]\n', encoding="utf-8")
        cases["search (real corpus)"] = cmd + ["search", "deploy kubernetes cluster", "--root", str(args.corpus),
                                               "--config", str(config)]
        cases["validate (real corpus)"] = cmd + ["validate", "--root", str(args.corpus), "--config", str(config)]
        # The same with skillsift's user caches off: what a first run (or a changed file) costs.
        off = {"SKILLSIFT_CACHE": "off"}
        cases["search (corpus, caches off)"] = (cases["search (real corpus)"], None, off)
        cases["validate (corpus, caches off)"] = (cases["validate (real corpus)"], None, off)
    paired = [name for name in BASELINE_CASES if name in cases]
    if args.baseline:
        base_cmd = [str(Path(args.baseline).parent / "skillsift")]
        base_env = {"SKILLSIFT_CACHE_DIR": tempfile.mkdtemp(prefix="bench-cache-baseline-")}
        for name in paired:
            case = cases[name] if isinstance(cases[name], tuple) else (cases[name],)
            argv, stdin, env = case[0], (case[1:2] or [None])[0], (case[2:3] or [{}])[0]
            cases[f"{name} [baseline]"] = (base_cmd + argv[len(cmd):], stdin, {**env, **base_env})
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
        ratio = harness_ratio(figures["median_ms"], floor)
        cpu_ratio = harness_ratio(figures["cpu_median_ms"], cpu_floor)
        print(f"  {name:<32} {figures['median_ms']:>7.1f} ms  {figures['p90_ms']:>7.1f} ms  "
              f"{figures['cpu_median_ms']:>7.1f} ms  x{ratio:5.1f} / x{cpu_ratio:5.1f} python{note}")
    for hook, modules in heavy.items():
        print(f"  hook {hook} imports: {', '.join(modules) if modules else 'neither numpy nor jsonschema'}")
    if args.baseline:
        print(f"this install / the baseline's ({args.baseline}), CPU medians of the same run:")
        for name in paired:
            ours, theirs = results[name]["cpu_median_ms"], results[f"{name} [baseline]"]["cpu_median_ms"]
            print(f"  {name:<32} x{ours / theirs:5.2f}" if theirs else f"  {name:<32} n/a")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    print(f"the issue's goals, CPU ratio to python -c pass of this run (load average {load:.1f}, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}):")
    for name in GOALS:
        if name not in results:
            print(f"  {name:<32} not measured (no corpus)")
            continue
        ratio = harness_ratio(results[name]["cpu_median_ms"], cpu_floor)
        base = results.get(f"{name} [baseline]")
        before = f"  (baseline x{base['cpu_median_ms'] / cpu_floor:.1f})" if base and cpu_floor else ""
        verdict = "met" if ratio <= TARGETS_X[name] else "NOT met"
        print(f"  {name:<32} x{ratio:5.1f}  goal <= {TARGETS_X[name]}x: {verdict}{before}")
    for python, label in ((sys.executable, "this install"), (args.baseline, "the baseline")):
        if python and editable_install(python):
            print(f"note: {label} is an editable install: its python -c pass imports the editable finder, so "
                  "its floor costs about 2.5x a regular install's and every ratio to it looks smaller; "
                  "measure a regular install (pip install .) to compare with the figures in bench/README.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
