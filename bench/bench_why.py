"""What ``skillsift eval --why`` costs on top of the evaluation it explains (lexical mode).

    python bench/bench_why.py [--repeat 3] [--metatool ../shared/benchmarks/metatool-dev]

For the example repository and (when present) the MetaTool development split, times,
best of ``--repeat``, in one process: the lexical evaluation alone (every case ranked
and scored, with intervals), then the why-not report on its result (explanations of the
misses plus every trigger phrase checked by ranking the cases again).  Prints the ratio
of the two and the phrases checked, so the figure does not depend on the machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from harness import ROOT

from skillsift.catalog.load import load_catalog
from skillsift.config import load_config
from skillsift.evaluate.cases import load_cases
from skillsift.evaluate.run import evaluate
from skillsift.evaluate.whynot import why_not
from skillsift.ranker.search import Ranker


def best(fn, repeat: int):
    result, times = None, []
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return result, min(times)


def measure(label: str, root: Path, cases_path: Path, repeat: int) -> None:
    config = load_config(str(root))
    catalog = load_catalog(str(root), config)
    case_file = load_cases(str(cases_path))
    ranker = Ranker(catalog, config)
    result, t_eval = best(lambda: evaluate(case_file, ranker, k=case_file.effective_k(), modes=["lexical"]), repeat)
    report, t_why = best(lambda: why_not(result, case_file.cases, catalog, config, ranker), repeat)
    checked = sum(sp.tried for sp in report.proposals)
    shown = sum(1 for sp in report.proposals if sp.proposals)
    print(f"{label}: {len(catalog)} skills, {result.n} cases, {len(report.misses)} misses, "
          f"{checked} phrases checked for {len(report.proposals)} skills ({shown} with a passing phrase)")
    print(f"  why / eval: {t_why / t_eval:.1f}x   per phrase checked / eval: {t_why / max(checked, 1) / t_eval:.3f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--metatool", type=Path, default=ROOT.parent / "shared" / "benchmarks" / "metatool-dev")
    args = parser.parse_args()
    acme = ROOT / "examples" / "acme"
    measure("examples/acme", acme, acme / "search-cases.yaml", args.repeat)
    if (args.metatool / "cases.yaml").is_file():
        measure("MetaTool dev split", args.metatool, args.metatool / "cases.yaml", 1)
    else:
        print(f"MetaTool dev split not found at {args.metatool}: skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
