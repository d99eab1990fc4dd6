"""``skillsift tune`` choosing ``[search] example_weight``, measured on both development sets.

    python bench/tune_example_weight.py [--metatool ../shared/benchmarks/metatool-dev]
                                        [--corpora ../shared/corpora] [--cache /tmp/skillsift-quality-cache]

Protocol: the halves of bench/examples_heldout.py (seed 20240613).  The requests of half A
become the known requests and half B is the cases file that tune is given; then the halves
swap.  On the scored half tune's pure selection (:func:`skillsift.evaluate.tune.tune_example_weight`,
the shipped blend setting, 5 fixed folds) chooses the weight; the script prints, per direction,
the weight chosen, its cross-validated MRR and the paired difference against the shipped 0.6,
and whether ``--write`` would write it.  The evidence is :func:`skillsift.evaluate.tune.example_evidence`
(a request with the case's own normalised text is left out).  Embeddings are cached in
``--cache`` (shared with bench/transfer.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import harness  # noqa: F401  (the checkout's skillsift on the path)
import numpy as np
import transfer
from examples_heldout import halves
from transfer import DEFAULT_CACHE, DEFAULT_CORPORA, DEFAULT_METATOOL, EmbedCache, metatool, real_skills

from skillsift.config.values import DEFAULT_EXAMPLE_WEIGHT
from skillsift.evaluate import tune
from skillsift.evaluate.holdout import plan
from skillsift.ranker.examples import normalised


def fmt(d) -> str:
    return f"{d[0]:+.3f} [{d[1]:+.3f}, {d[2]:+.3f}]"


def run_set(name: str, queries, sig: tune.Signals) -> None:
    q = np.asarray(sig.queries, dtype=np.float64)
    docs = np.asarray(sig.docs[tune.NAME_FREE], dtype=np.float64)
    n, m = len(queries), docs.shape[0]
    a = halves(n)
    setting = tune.Setting("blend", tune.NAME_FREE, 1.0, 50)
    print(f"\n{name}: {n} cases, {m} skills; setting {setting.label()}")
    print("| known requests | cases | weights chosen per fold | winner | MRR at 0.6 | cross-validated MRR "
          "| paired vs 0.6 | writes? |")
    print("|---|---|---|---|---|---|---|---|")
    for label, train, test in (("half A", a, ~a), ("half B", ~a, a)):
        rows, owners = [], []
        for i in np.flatnonzero(train).tolist():
            for t in sig.expected[i]:
                rows.append(i)
                owners.append(t)
        order = np.lexsort((np.asarray(rows), np.asarray(owners)))
        rows_a = np.asarray(rows, dtype=np.intp)[order]
        owner = np.asarray(owners, dtype=np.intp)[order]
        t = np.flatnonzero(test)
        cos = q[t] @ q[rows_a].T
        keys = [normalised(queries[i]) for i in rows_a.tolist()]
        case_keys = [normalised(queries[i]) for i in t.tolist()]
        names = [str(j) for j in range(m)]
        rule = plan([(queries[i], [str(e) for e in sig.expected[i]]) for i in t.tolist()],
                    [(str(o), queries[i]) for o, i in zip(owner.tolist(), rows_a.tolist(), strict=True)])
        best, has = tune.example_evidence(cos, owner, keys, case_keys, m, rule=rule, names=names)
        sub = tune.Signals(sig.lexical[t], {tune.NAME_FREE: q[t] @ docs.T}, sig.tie, [sig.expected[i] for i in t],
                           docs={tune.NAME_FREE: docs}, queries=q[t])
        w = tune.tune_example_weight(setting, sub, best, has, DEFAULT_EXAMPLE_WEIGHT)
        base = w.series[w.current]
        d = w.held_out.versus(base)["mrr"]
        print(f"| {label} | {len(t)} | {', '.join(f'{w.weights[i]:g}' for i in w.chosen_per_fold)} "
              f"| {w.weights[w.winner]:g} | {base.rr.mean():.3f} | {w.held_out.rr.mean():.3f} | {fmt(d)} "
              f"| {'yes' if w.change() else 'no'} |", flush=True)
        for weight, s in sorted(zip(w.weights, w.series, strict=True)):
            print(f"    w={weight:g}: MRR {s.rr.mean():.3f}, paired vs 0.6 {fmt(s.versus(base)['mrr'])}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--metatool", type=Path, default=DEFAULT_METATOOL)
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--only", choices=("metatool", "skills"))
    args = parser.parse_args(argv)
    from skillsift.embed.local import LocalProvider

    transfer.VARIANTS = {"name-free": tune.NAME_FREE}  # the default embedded fields only
    cache = EmbedCache(args.cache, LocalProvider())
    if args.only != "skills":
        _skills, queries, sig = metatool(args.metatool, cache)
        run_set("MetaTool dev", queries, sig)
    if args.only != "metatool":
        _skills, queries, sig, _ds = real_skills(args.corpora, cache)
        run_set("real skills", queries, sig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
