"""Calibration of ``[search] vector_min_sim`` from the best cosines of the cases.

The threshold proposed is the one, between two observed cosines, that answers the most
positive cases while abstaining on the most negative ones (the sum of both counts); a
tie keeps the threshold that answers more positives, then the lower one.  It is advice
from a sample: the run should be repeated with the value set before committing it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .metrics import round_half_away

# Fewer negative cases than this make the proposed threshold a rough guess (docs/evaluation.md,
# "Several modes"): a handful of negatives cannot place a cut-off between two cosines.
ROUGH_NEGATIVES = 20


@dataclass(frozen=True)
class Calibration:
    mode: str
    min_sim: float
    positives: int
    positives_kept: int
    negatives: int
    negatives_abstained: int

    def to_dict(self) -> dict:
        return {"mode": self.mode, "min_sim": self.min_sim, "positives": self.positives,
                "positives_kept": self.positives_kept, "negatives": self.negatives,
                "negatives_abstained": self.negatives_abstained, "rough": self.rough}

    @property
    def rough(self) -> bool:
        """True when too few negative cases back the threshold (fewer than ROUGH_NEGATIVES)."""
        return self.negatives < ROUGH_NEGATIVES

    def sentence(self) -> str:
        text = (f"calibration ({self.mode}): vector_min_sim = {self.min_sim:.3f} answers "
                f"{self.positives_kept} of {self.positives} positive cases and abstains on "
                f"{self.negatives_abstained} of {self.negatives} negative cases")
        if self.rough:
            text += (f"; a rough guess from fewer than {ROUGH_NEGATIVES} negative cases: add negatives "
                     "(expect: []) before setting it")
        return text


def calibrate(positives: Sequence[float], negatives: Sequence[float], mode: str = "") -> Calibration | None:
    """The best threshold, or None when a list is empty or nothing beats abstaining on nothing."""
    if not positives or not negatives:
        return None
    values = sorted(set(positives) | set(negatives))
    best_t, best_kept, best_abs = 0.0, 0, 0
    for low, high in zip(values, values[1:], strict=False):
        t = round_half_away((low + high) / 2, 3)
        kept = sum(1 for p in positives if p >= t)
        abstained = sum(1 for n in negatives if n < t)
        score = kept + abstained
        if score > best_kept + best_abs or (score == best_kept + best_abs and kept > best_kept):
            best_t, best_kept, best_abs = t, kept, abstained
    if best_kept + best_abs <= len(positives) or best_t <= 0:
        return None
    return Calibration(mode=mode, min_sim=best_t, positives=len(positives), positives_kept=best_kept,
                       negatives=len(negatives), negatives_abstained=best_abs)


def calibrate_modes(by_mode: Mapping, modes: Sequence[str]) -> Calibration | None:
    """Calibrate from the vector mode when it ran, else from hybrid (no fall-through).

    ``by_mode`` maps a mode to an object with ``cases`` and ``negatives`` (the per-case
    results, carrying ``degraded`` and ``top_sim``).
    """
    for mode in ("vector", "hybrid"):
        if mode not in modes or mode not in by_mode:
            continue
        result = by_mode[mode]
        pos = [c.top_sim for c in result.cases if not c.degraded and c.top_sim > 0]
        neg = [n.top_sim for n in result.negatives if not n.degraded and n.top_sim > 0]
        return calibrate(pos, neg, mode)
    return None
