"""How much a per-skill bound over the known requests' vectors could spare, on real text.

    python bench/bench_request_bounds.py [--metatool ../shared/benchmarks/metatool-dev] [--corpora ../shared/corpora]
                                         [--cache /tmp/skillsift-quality-cache] [--queries 300]

The bound (docs/ranking-speed.md, "A per-skill bound over known requests"): for a skill whose
requests have the vectors ``x_j``, centroid ``c`` and radius ``r = max_j |x_j - c|``, every
request cosine of a unit query ``q`` lies in ``[q.c - r, q.c + r]``, so the skill's evidence
``e`` (the mean of its two best request cosines) does too, and its lifted score
``own + w max(0, e - own)`` lies in ``[own, own + w max(0, q.c + r - own)]``.  A skill whose
upper bound is below the ``k``-th largest lower bound cannot enter the top ``k``: its requests
need not be read.

Data: both development sets with the local model (embeddings cached as in bench/transfer.py).
The known requests are the real requests of half A (each case's query, under its expected
skills: MetaTool's user queries, the real-skills set's "when to use" lines); the queries are
the first ``--queries`` cases of half B.  Printed per set: the requests' radii, and for k = 10
and 50 the share of skills with requests (and of request rows) whose bound cannot rule them
out, i.e. what an exact top-k would still have to read.  Only the top-k is counted: the
ranks a hit reports in the complete vector list, and the list's least score, need more.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import harness  # noqa: F401  (the checkout's skillsift on the path)
import numpy as np
import transfer
from examples_heldout import halves
from transfer import DEFAULT_CACHE, DEFAULT_CORPORA, DEFAULT_METATOOL, EmbedCache

from skillsift.config.values import DEFAULT_EXAMPLE_WEIGHT
from skillsift.evaluate import tune
from skillsift.ranker.centring import CENTRE_SHRINK, centre


def measure(name: str, sig, queries: int) -> dict:
    q = np.asarray(sig.queries, dtype=np.float64)
    docs = np.asarray(sig.docs[tune.NAME_FREE], dtype=np.float64)
    m = len(docs)
    a = halves(len(q))
    rows, owners = [], []
    for i in np.flatnonzero(a).tolist():
        for t in sig.expected[i]:
            rows.append(i)
            owners.append(t)
    x = q[rows]
    owner = np.asarray(owners)
    has = np.zeros(m, bool)
    cen = np.zeros((m, q.shape[1]))
    radius = np.zeros(m)
    count = np.zeros(m, dtype=np.int64)
    for s in np.unique(owner).tolist():
        xs = x[owner == s]
        c = xs.mean(axis=0)
        cen[s], radius[s], count[s], has[s] = c, np.linalg.norm(xs - c, axis=1).max(), len(xs), True
    own_all = q @ centre(docs, range(m), CENTRE_SHRINK).astype(np.float64).T
    w = DEFAULT_EXAMPLE_WEIGHT
    out = {"requests": len(x), "skills with requests": int(has.sum()),
           "radius median": float(np.median(radius[has])), "radius of skills with 2+": float(
               np.median(radius[count >= 2])) if (count >= 2).any() else 0.0}
    for k in (10, 50):
        skills_read, rows_read = [], []
        for i in np.flatnonzero(~a)[:queries].tolist():
            own = own_all[i]
            upper = own + w * np.where(has, np.maximum(cen @ q[i] + radius - own, 0.0), 0.0)
            kth = np.partition(own, m - k)[m - k]  # the k-th largest lower bound (a lift is never negative)
            maybe = has & (upper >= kth)
            skills_read.append(maybe.sum() / has.sum())
            rows_read.append(count[maybe].sum() / len(x))
        out[f"top{k}: skills to read"] = float(np.mean(skills_read))
        out[f"top{k}: rows to read"] = float(np.mean(rows_read))
    print(f"{name}: " + ", ".join(f"{key} {v:.3f}" if isinstance(v, float) else f"{key} {v}"
                                  for key, v in out.items()), flush=True)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--metatool", type=Path, default=DEFAULT_METATOOL)
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args(argv)
    from skillsift.embed.local import LocalProvider

    transfer.VARIANTS = {"name-free": tune.NAME_FREE}
    cache = EmbedCache(args.cache, LocalProvider())
    _skills, _queries, sig = transfer.metatool(args.metatool, cache)
    measure("MetaTool", sig, args.queries)
    _skills, _queries, sig, _ds = transfer.real_skills(args.corpora, cache)
    measure("real skills", sig, args.queries)
    return 0


if __name__ == "__main__":
    sys.exit(main())
