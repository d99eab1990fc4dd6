"""``--min`` floors (``top1=0.6,mrr=0.7``): the metric names a gate knows and their parser.

Config reads them to check ``[validate] min``; ``evaluate/gates.py`` applies them (and re-exports them).
"""

from __future__ import annotations

import json
import math

from ..diagnostics import SkillsiftError

GATE_METRICS = ("top1", "recall", "hit", "mrr", "ndcg")
_ALIASES = {
    "top1": "top1", "top-1": "top1",
    "recall": "recall", "recall@k": "recall", "recall_at_k": "recall",
    "hit": "hit", "hit@k": "hit", "hit_at_k": "hit",
    "mrr": "mrr",
    "ndcg": "ndcg", "ndcg@k": "ndcg", "ndcg_at_k": "ndcg",
}


def canonical_metric(name: str) -> str:
    """The gate name of a metric (``recall@k`` -> ``recall``), or "" when unknown."""
    return _ALIASES.get(name.strip().lower(), "")


def parse_minimums(spec: str | None) -> dict[str, float]:
    """Parse ``top1=0.6,mrr=0.7`` into floors; "" -> {}.  Later duplicates win."""
    out: dict[str, float] = {}
    if spec is None or not spec.strip():
        return out
    for part in spec.split(","):
        key, sep, value = part.strip().partition("=")
        metric = canonical_metric(key)
        if not sep or not metric:
            raise SkillsiftError(
                f"--min {json.dumps(part)}: want metric=value pairs such as top1=0.6,mrr=0.7 "
                "(metrics: top1, recall, hit, mrr, ndcg)")
        try:
            floor = float(value.strip())
        except ValueError:
            floor = math.nan
        if not 0 <= floor <= 1:
            raise SkillsiftError(f"--min {json.dumps(part)}: value must be a number between 0 and 1")
        out[metric] = floor
    return out
