"""Run the cases through a ranker, once per mode, and assemble the result.

The ranker is anything with ``search(query, limit=None, mode=..., role=...)`` returning a
:class:`~skillsift.ranker.result.SearchResult` (``limit=None`` = the full ranking), so the
per-mode machinery works the same with the real ranker and with a test double.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from ..diagnostics import SkillsiftError
from ..ranker.result import SearchResult
from ..words import plural
from . import SCHEMA_VERSION
from .calibrate import Calibration, calibrate_modes
from .cases import Case, CaseFile
from .gates import Flips
from .intervals import Diff, Interval, bootstrap, paired
from .metrics import (
    CaseResult,
    Metrics,
    NegativeResult,
    abstain_rate,
    aggregate,
    misses,
    score_case,
    score_negative,
    series,
    tag_metrics,
)

LEXICAL, VECTOR, HYBRID = "lexical", "vector", "hybrid"
MODES = (LEXICAL, VECTOR, HYBRID)
NEEDS_INDEX_HINT = "Run 'skillsift index' first"


class SearchFn(Protocol):
    def search(self, query: str, limit: int | None = None, mode: str | None = None, *,
               role: str | None = None) -> SearchResult: ...


def parse_modes(spec: str | None, configured: str = LEXICAL) -> list[str]:
    """``--mode``: a comma list of lexical/vector/hybrid (trimmed, de-duplicated) or ``all``.

    Empty means the configured mode.  The first mode is the primary one.
    """
    if spec is None or not spec.strip():
        return [configured or LEXICAL]
    if spec.strip() == "all":
        return list(MODES)
    modes: list[str] = []
    for part in spec.split(","):
        mode = part.strip()
        if mode not in MODES:
            raise SkillsiftError(f"--mode {_quote(spec)}: each mode must be lexical, hybrid or vector, "
                                 "or use all")
        if mode not in modes:
            modes.append(mode)
    return modes


def needs_index_error(modes: Sequence[str]) -> SkillsiftError:
    return SkillsiftError(f"{'/'.join(modes)} evaluation needs an embedding index, and none is usable",
                          hint=NEEDS_INDEX_HINT)


def _quote(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False)


@dataclass
class ModeResult:
    """Everything measured in one ranking mode."""

    mode: str
    metrics: Metrics
    tags: dict[str, Metrics]
    ci95: dict[str, Interval]
    cases: list[CaseResult]
    misses: list[CaseResult]
    negatives: list[NegativeResult]
    degraded_cases: int = 0

    def degraded_reason(self) -> str:
        """The first degraded positive case's reason, else the first degraded negative's."""
        items: list[CaseResult | NegativeResult] = [*self.cases, *self.negatives]
        for item in items:
            if item.degraded:
                return item.degraded
        return ""

    def to_dict(self) -> dict:
        out: dict = {"metrics": self.metrics.to_dict()}
        if self.tags:
            out["tags"] = {t: m.to_dict() for t, m in sorted(self.tags.items())}
        out["ci95"] = {name: iv.to_dict() for name, iv in sorted(self.ci95.items())}
        out["cases"] = [c.to_dict() for c in self.cases]
        out["misses"] = [c.to_dict() for c in self.misses]
        if self.negatives:
            out["negatives"] = [n.to_dict() for n in self.negatives]
        if self.degraded_cases:
            out["degraded_cases"] = self.degraded_cases
        return out


@dataclass
class EvalResult:
    """The outcome of an evaluation; the primary mode (``mode``) fills the top-level fields."""

    k: int
    mode: str
    modes: list[str]  # evaluated, primary first, in the order asked
    by_mode: dict[str, ModeResult]
    paired: dict[str, dict[str, Diff]] = field(default_factory=dict)
    index: dict | None = None
    flips: Flips | None = None
    rank_changes: list = field(default_factory=list)  # gates.RankChange against the baseline (text/markdown)
    calibration: Calibration | None = None
    gate_failures: list[str] = field(default_factory=list)
    cases_path: str = ""
    view: dict | None = None  # the listing view ranked (agent, window, budget); None: the full view
    views: dict[str, EvalResult] = field(default_factory=dict)  # ``--view all``: the listing view's result
    paired_views: dict[str, dict[str, Diff]] = field(default_factory=dict)  # per mode: listing minus full
    gates_note: str = ""  # whether the [validate] gates were applied ("" when none is configured)
    examples_note: str = ""  # how known requests entered the ranking (docs/evaluation.md, "Known requests")
    judge: dict | None = None  # ``eval --judge``: the judge.v1 document (docs/judge.md)

    @property
    def primary(self) -> ModeResult:
        return self.by_mode[self.mode]

    @property
    def n(self) -> int:
        return len(self.primary.cases)

    @property
    def n_negative(self) -> int:
        return len(self.primary.negatives)

    @property
    def degraded(self) -> bool:
        return any(mr.degraded_cases for mr in self.by_mode.values())

    def report_modes(self) -> list[str]:
        """Primary first, then lexical, vector, hybrid among those evaluated."""
        return [self.mode] + [m for m in MODES if m in self.by_mode and m != self.mode]

    def to_dict(self) -> dict:
        p = self.primary
        out: dict = {
            "schema_version": SCHEMA_VERSION,
            "k": self.k,
            "n": self.n,
            "n_negative": self.n_negative,
            "mode": self.mode,
            "modes": {m: self.by_mode[m].metrics.to_dict() for m in sorted(self.by_mode)},
        }
        if p.tags:
            out["tags"] = {t: m.to_dict() for t, m in sorted(p.tags.items())}
        out["ci95"] = {name: iv.to_dict() for name, iv in sorted(p.ci95.items())}
        out["cases"] = [c.to_dict() for c in p.cases]
        out["misses"] = [c.to_dict() for c in p.misses]
        if p.negatives:
            out["negatives"] = [n.to_dict() for n in p.negatives]
        out["by_mode"] = {m: self.by_mode[m].to_dict() for m in sorted(self.by_mode)}
        out.update(self._comparisons_dict())
        out.update(self._views_dict())
        return out

    def _comparisons_dict(self) -> dict:
        """The optional keys comparing this run with others: paired differences, index, flips, calibration, gate."""
        out: dict = {}
        if self.paired:
            out["paired_vs_lexical"] = {
                m: {name: d.to_dict() for name, d in sorted(diffs.items())}
                for m, diffs in sorted(self.paired.items())
            }
        if self.index is not None:
            out["index"] = dict(self.index)
        if self.flips is not None:
            out["flips_vs_baseline"] = self.flips.to_dict()
        if self.calibration is not None:
            out["calibration"] = self.calibration.to_dict()
        if self.gate_failures:
            out["gate_failures"] = list(self.gate_failures)
        return out

    def _views_dict(self) -> dict:
        """The optional keys of the views, the known-request note and the judge."""
        out: dict = {}
        if self.view is not None:
            out["view"] = dict(self.view)
        if self.views:
            out["views"] = {name: {"view": dict(other.view or {}),
                                   "modes": {m: other.by_mode[m].metrics.to_dict() for m in sorted(other.by_mode)},
                                   "paired_vs_full": {m: {key: d.to_dict() for key, d in sorted(diffs.items())}
                                                      for m, diffs in sorted(self.paired_views.items())}}
                            for name, other in sorted(self.views.items())}
        if self.examples_note:
            out["examples"] = self.examples_note
        if self.judge is not None:
            out["judge"] = self.judge
        return out


def evaluate_mode(cases: Sequence[Case], ranker: SearchFn, mode: str, k: int) -> ModeResult:
    """Rank every case in ``mode`` (over the full ranking) and score it at ``k``."""
    positives: list[CaseResult] = []
    negatives: list[NegativeResult] = []
    degraded_cases = 0
    for case in cases:
        result = ranker.search(case.query, limit=None, mode=mode, role=case.role or None)
        degraded = (result.degraded or "") if mode != LEXICAL else ""
        if degraded:
            degraded_cases += 1
        ranked = [h.name for h in result.hits]
        top_sim = float(result.top_sim or 0.0) if mode != LEXICAL else 0.0
        if case.negative:
            top_score = float(result.hits[0].score) if result.hits else 0.0
            negatives.append(score_negative(case, ranked, top_score, degraded=degraded, top_sim=top_sim,
                                            abstained=bool(result.abstained)))
        else:
            positives.append(score_case(case, ranked, k, degraded=degraded, top_sim=top_sim))
    metrics = aggregate(positives, negatives)
    if mode != LEXICAL and negatives:
        metrics = replace(metrics, abstain_rate=abstain_rate(negatives))
    return ModeResult(mode=mode, metrics=metrics, tags=tag_metrics(positives),
                      ci95=bootstrap(series(positives)), cases=positives, misses=misses(positives),
                      negatives=negatives, degraded_cases=degraded_cases)


def paired_vs_lexical(by_mode: Mapping[str, ModeResult]) -> dict[str, dict[str, Diff]]:
    """Each other mode against lexical over the same positive cases; {} without lexical or a second mode."""
    base = by_mode.get(LEXICAL)
    if base is None or len(by_mode) < 2:
        return {}
    ref = series(base.cases)
    out = {}
    for mode in sorted(by_mode):
        other = by_mode[mode]
        if mode == LEXICAL or len(other.cases) != len(base.cases) or not other.cases:
            continue
        out[mode] = paired(ref, series(other.cases))
    return out


def evaluate(case_file: CaseFile, ranker: SearchFn, *, k: int, modes: Sequence[str],
             index_info: Mapping | None = None) -> EvalResult:
    """Evaluate every mode; the first is primary.  ``index_info`` describes the index used (if any)."""
    modes = list(dict.fromkeys(modes)) or [LEXICAL]
    uses_vectors = any(m != LEXICAL for m in modes)
    warm = getattr(ranker, "warm_queries", None)
    if uses_vectors and callable(warm):
        warm([case.query for case in case_file.cases])  # one batched embedding pass, not one call per case
    by_mode = {mode: evaluate_mode(case_file.cases, ranker, mode, k) for mode in modes}
    index = None
    if uses_vectors and index_info is not None:
        index = {key: index_info.get(key, 0 if key not in ("model", "dtype") else "")
                 for key in ("model", "dims", "dtype", "rows", "stale_items", "missing_items")}
        refused = getattr(ranker, "index_refused", ())
        if refused:  # rows the loader left out (docs/index-format.md, "Format 3: row digests")
            index["refused"] = [r.to_json() for r in refused]
    return EvalResult(k=k, mode=modes[0], modes=modes, by_mode=by_mode, paired=paired_vs_lexical(by_mode),
                      index=index, calibration=calibrate_modes(by_mode, modes), cases_path=case_file.path)


def pair_views(full: EvalResult, listing: EvalResult) -> dict[str, dict[str, Diff]]:
    """Per mode, the listing view minus the full view over the same positive cases (paired intervals)."""
    out = {}
    for mode in sorted(full.by_mode):
        a, b = full.by_mode[mode], listing.by_mode.get(mode)
        if b is None or not a.cases or [c.id for c in a.cases] != [c.id for c in b.cases]:
            continue
        out[mode] = paired(series(a.cases), series(b.cases))
    return out


def degraded_message(result: EvalResult) -> str:
    """Why a run with fallbacks measures nothing; "" when no case of a non-lexical mode degraded."""
    parts = []
    for mode in sorted(result.by_mode):
        mr = result.by_mode[mode]
        if mr.degraded_cases:
            parts.append(f"{mode}: {plural(mr.degraded_cases, 'case')} fell back to lexical ({mr.degraded_reason()})")
    if not parts:
        return ""
    return ("the embeddings were unavailable, so the result does not measure the requested ranking: "
            + "; ".join(parts))


DEGRADED_HINT = "Check 'skillsift status' and the [embeddings] budget and network settings"
EMBED_EXTRA_HINT = ("install the embed extra: in the GitHub Action set `extras: embed`; locally "
                    "pip install 'skillsift[embed]'")


def degraded_hint(config) -> str:
    """What to do about a run whose embeddings fell back: the missing extra when that is why."""
    provider = (config.embeddings.provider or "local").strip().lower() if config is not None else "local"
    if provider == "local":
        from ..embed.local import local_model_available

        available, why = local_model_available()
        if not available and "not installed" in why:
            return EMBED_EXTRA_HINT
    return DEGRADED_HINT
