"""What the benchmark scripts share: where the repository and the data are, timing a child process,
percentiles and ratios.

A script imports it plainly (``from harness import ROOT``): Python puts a script's own folder first on
``sys.path``, so ``python bench/<script>.py`` finds it, from any working folder. Importing it also makes
``import skillsift`` find this checkout when skillsift is not installed, so no script touches ``sys.path``.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent  # the repository
SHARED = ROOT.parent / "shared"  # the data next to the checkout, read-only
CORPORA = SHARED / "corpora"  # the real-skills corpus (about 2,100 skills)
METATOOL = SHARED / "benchmarks" / "metatool-dev"  # the MetaTool development split
ACME = ROOT / "examples" / "acme"

if str(ROOT) not in sys.path:  # the checkout's skillsift, installed or not (the one place bench/ does this)
    sys.path.insert(1, str(ROOT))


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank percentile ``q`` (0 to 1) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def ratio(value: float, floor: float) -> float:
    """``value / floor``, 0.0 when there is no floor (a benchmark prints speed as ratios, never as times)."""
    return value / floor if floor else 0.0


def child_times(argv: Sequence[str], *, cwd: Path | str | None = None, stdin: str | None = None,
                env: Mapping[str, str] | None = None) -> tuple[float, float]:
    """Run ``argv`` once, its output discarded: (wall ms, CPU ms of the child, user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(list(argv), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                   env=None if env is None else dict(env), input=stdin.encode() if stdin is not None else None)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def without_git_variables() -> dict[str, str]:
    """This environment without ``GIT_*`` (a hook's variables would point git at another repository)."""
    return {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
