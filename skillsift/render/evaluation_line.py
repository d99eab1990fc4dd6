"""``skillsift eval --quiet``: the evaluation as one line (docs/evaluation.md, "Output formats")."""

from __future__ import annotations

from ..evaluate.run import EvalResult
from ..words import plural
from .evaluation import status_word


def render_quiet(result: EvalResult) -> str:
    """The verdict, the counts and the primary mode's top1 and MRR (and the ``[validate]`` gates note)."""
    m = result.primary.metrics
    gates = f"; {result.gates_note}" if result.gates_note else ""
    return (f"{status_word(result)}: {plural(result.n, 'case')} (+{result.n_negative} negative), k={result.k}, "
            f"mode {result.mode}: top1 {m.top1:.4f}, mrr {m.mrr:.4f}{gates}\n")
