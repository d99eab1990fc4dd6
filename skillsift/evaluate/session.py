"""One evaluation run, shared by every door that evaluates labelled cases.

``skillsift eval``, ``skillsift ci`` (head and base), ``skillsift validate`` (AR9D4) and the
``skillsift-eval`` hook all run the same sequence through :func:`run_evaluation`:

roles -> check the cases against the catalog -> open the ranker -> refuse a vector mode
without a usable index -> evaluate -> compare with the baseline -> gates.

The doors only parse their arguments, render the :class:`Evaluation` and choose the exit code
(docs/evaluation.md).  Nothing here prints.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..catalog.load import select
from ..diagnostics import SkillsiftError
from ..ranker.result import SearchResult
from ..words import plural
from .cases import check_catalog, load_checked
from .cases import with_catalog_problems as add

if TYPE_CHECKING:
    from .gates import Flips, RankChange
    from .run import EvalResult


class NeedsIndex(SkillsiftError):
    """A vector or hybrid evaluation was asked for and no index is usable."""


class BaselineMismatch(SkillsiftError):
    """The baseline was ranked in another mode or at another k: nothing can be compared."""


def roles_configured(catalog, roles) -> bool:
    """True when roles exist at all: a ``[roles]`` table (``config.roles``) or a skill naming its roles."""
    return bool(roles) or any(skill.roles for skill in catalog.skills)


def role_resolver(catalog, roles):
    """``resolve(role) -> [skill names]``: the skills a role serves (``roles`` = ``config.roles``), as a search
    selects them; the one resolver of every cases check."""

    def resolve(role: str):
        return [catalog.skills[i].name for i in select(catalog, roles=roles or {}, role=role)]

    return resolve


def check_cases(case_file, catalog, roles) -> None:
    """Refuse (SkillsiftError, AR9D2) a case naming a skill or role the catalog does not have."""

    check_catalog(case_file, catalog.names, roles_configured=roles_configured(catalog, roles),
                  resolve=role_resolver(catalog, roles))


def with_catalog_problems(error, catalog, roles):
    """An invalid cases file's error with the unknown skills and roles of its cases (one round)."""

    return add(error, catalog.names, roles_configured=roles_configured(catalog, roles),
               resolve=role_resolver(catalog, roles))


def load_checked_cases(path, catalog, roles):
    """The cases file at ``path``, checked against the catalog; every problem of both in one AR9D2 error."""

    return load_checked(path, catalog.names, roles_configured=roles_configured(catalog, roles),
                        resolve=role_resolver(catalog, roles))


def open_ranker(catalog, config, want_vectors: bool):
    """The ranker the evaluation runs through.

    This is the single place where a vector index and an embedding provider are attached
    for vector/hybrid evaluation; without them ``index_info()`` is None and such a run
    is refused before any case is ranked.
    """
    from ..ranker.search import Ranker

    if not want_vectors:
        return Ranker(catalog, config)
    # The evaluation waits for each query embedding as long as the provider allows:
    # a per-query deadline would turn a slow machine into degraded cases.
    # A stale or missing vector is embedded for the run with the local model, else it makes the run degraded.
    return Ranker.open(catalog, config, mode="hybrid", query_timeout_ms=0, embed_stale=True)


def with_skill_cases(case_file, catalog, config, notes: list | None = None):
    """``(merged, added, skipped)``: ``case_file`` (or None) plus the cases the skills' frontmatter lists.

    ``notes``, when given, receives the notes on ignored entries (file, line, message).
    """
    from .from_skills import NO_CASES, NO_CASES_HINT, RoleCheck, merge_cases, skill_cases_and_notes

    check = RoleCheck(configured=roles_configured(catalog, config.roles),
                      resolve=role_resolver(catalog, config.roles))
    derived, ignored = skill_cases_and_notes(catalog, check)
    if notes is not None:
        notes.extend(ignored)
    merged, added, skipped = merge_cases(case_file, derived)
    if not merged.cases:
        raise SkillsiftError(NO_CASES, hint=NO_CASES_HINT)
    return merged, added, skipped


class _SkipUnknownRole:
    """A ranker for a catalog that may lack a role the cases name: such a case ranks nothing there."""

    def __init__(self, ranker):
        self.ranker = ranker
        self.warm_queries = getattr(ranker, "warm_queries", None)

    def search(self, query, limit=None, mode=None, *, role=None):
        try:
            return self.ranker.search(query, limit=limit, mode=mode, role=role)
        except SkillsiftError:
            if role is None:
                raise
            return SearchResult(query=query, ranking=mode or "lexical")


@dataclass
class Evaluation:
    """What one evaluation run measured and decided."""

    result: EvalResult
    degraded: str = ""  # why the numbers measure nothing ("" when they do)
    degraded_hint: str = ""  # what to do about it ("" = the embeddings hint)
    flips: Flips | None = None  # against the baseline, or None
    max_flips: int = -1  # the flip gate (-1: off)
    max_rank_drops: int = -1  # the rank-drop gate (-1: off)
    rank_changes: list[RankChange] = field(default_factory=list)  # against the baseline
    gate_failures: list[str] = field(default_factory=list)  # AR9D4 messages; [] passes
    ranker: Any = None  # the ranker the cases were ranked with (reused by ``eval --why``)

    @property
    def drops(self) -> list[RankChange]:
        """The rank changes that are drops (a flip is one too)."""
        return [change for change in self.rank_changes if change.dropped]

    @property
    def baseline_gate_failed(self) -> bool:
        """True when the flip gate or the rank-drop gate failed (a new baseline would accept it)."""
        flips = self.flips
        return bool((flips is not None and self.max_flips >= 0 and len(flips.regressed) > self.max_flips)
                    or (self.max_rank_drops >= 0 and len(self.drops) > self.max_rank_drops))


STALE_HINT = "run 'skillsift index' and commit the index, or rank with the local model (it embeds them for the run)"


def outdated_message(refresh, modes) -> str:
    """Why a vector evaluation with skills that kept a stale or missing vector measures nothing."""
    names = ", ".join(refresh.outdated[:10]) + (f" and {len(refresh.outdated) - 10} more"
                                                 if len(refresh.outdated) > 10 else "")
    vector_modes = "/".join(mode for mode in modes if mode != "lexical")
    return (f"{vector_modes}: {plural(len(refresh.outdated), 'skill')} ranked by words only, the index has no "
            f"current vector for them ({names})")


def run_evaluation(catalog, config, case_file, *, modes, k_override: int = 0, minimums=None, baseline=None,
                   max_flips: int | None = None, max_rank_drops: int | None = None, strict: bool = True,
                   lenient_roles: bool = False, ranker=None) -> Evaluation:
    """Evaluate ``case_file`` over ``catalog`` in ``modes`` (the first is gated) and apply the gates.

    ``baseline`` is a loaded baseline document (or None); ``max_flips`` / ``max_rank_drops``
    apply only with one (None: 0 flips, no rank-drop gate).  ``strict``: refuse a case
    naming an unknown skill or role (SkillsiftError); ``lenient_roles``: a case whose role
    this catalog lacks ranks nothing instead (a base commit).  ``ranker``: reuse an open one.
    Raises :class:`NeedsIndex` for a vector mode without a usable index and
    :class:`BaselineMismatch` for a baseline of another mode or k.
    """
    from .gates import compare_baseline, gate_failures, rank_changes
    from .run import LEXICAL, degraded_message, evaluate, needs_index_error

    if strict:
        check_cases(case_file, catalog, config.roles)
    want_vectors = any(mode != LEXICAL for mode in modes)
    if ranker is None:
        ranker = open_ranker(catalog, config, want_vectors)
    if getattr(ranker, "examples_problem", ""):  # an evaluation never runs without its known requests
        from .examples import known_requests

        known_requests(catalog, config)  # raises the examples files' AR9D2 error, every problem with its line
        raise SkillsiftError(ranker.examples_problem, hint="Fix the examples file (docs/evaluation.md)")
    index_info = ranker.index_info() if want_vectors else None
    if want_vectors and index_info is None:
        error = needs_index_error(modes)
        raise NeedsIndex(error.message, hint=error.hint)
    note = ""
    if want_vectors:
        from .examples import HeldOutExamples, held_out

        ranker = held_out(ranker, case_file)
        note = ranker.note() if isinstance(ranker, HeldOutExamples) else ""
    opened = ranker
    if lenient_roles:
        ranker = _SkipUnknownRole(ranker)
    result = evaluate(case_file, ranker, k=case_file.effective_k(k_override), modes=modes, index_info=index_info)
    result.examples_note = note
    evaluation = Evaluation(result=result, degraded=degraded_message(result), ranker=opened)
    refresh = getattr(opened, "refresh", None)
    if want_vectors and refresh is not None and refresh.outdated:
        evaluation.degraded = "; ".join(filter(None, (evaluation.degraded, outdated_message(refresh, modes))))
        evaluation.degraded_hint = STALE_HINT
    if baseline is not None:
        try:
            evaluation.flips = compare_baseline(baseline, mode=result.mode, k=result.k, cases=result.primary.cases)
        except SkillsiftError as exc:
            raise BaselineMismatch(exc.message, hint=exc.hint) from None
        result.flips = evaluation.flips
        evaluation.rank_changes = rank_changes(baseline, result.primary.cases)
        result.rank_changes = evaluation.rank_changes
        evaluation.max_flips = max_flips if max_flips is not None else 0
        evaluation.max_rank_drops = max_rank_drops if max_rank_drops is not None else -1
    evaluation.gate_failures = gate_failures(result.primary.metrics.gated(), minimums or {}, evaluation.flips,
                                             evaluation.max_flips, rank_changes=evaluation.rank_changes,
                                             max_rank_drops=evaluation.max_rank_drops)
    return evaluation


def refresh_command(cases, baseline: str, *, mode: str, k: int) -> str:
    """The command that saves a new baseline when a regression is intended.

    ``cases``: the words naming the cases (a file, ``--from-skills``, or both).
    """
    words = ["skillsift", "eval", *([cases] if isinstance(cases, str) else cases), "--mode", mode or "lexical",
             "--k", str(k), "--output", baseline]
    return " ".join(shlex.quote(word) for word in words)


def regression_hint(cases, baseline: str, *, mode: str, k: int) -> str:
    """The hint under a failed baseline gate: how to accept the change on purpose."""
    return f"if the change is intended, save a new baseline: {refresh_command(cases, baseline, mode=mode, k=k)}"


def run_view_evaluation(view, config, case_file, *, modes, **kwargs) -> Evaluation:
    """:func:`run_evaluation` over ``view`` (a :class:`~skillsift.catalog.listing.View`).

    The full view is :func:`run_evaluation` itself.  In the listing view the cases are
    checked against every skill read (a case may expect a skill the agent hides or does not
    load: it is then a miss, which is what the view measures), the ranker ranks the shown
    texts (:func:`~skillsift.ranker.view_vectors.open_view_ranker`), and the result says which
    view ranked.
    """
    from .run import LEXICAL

    if view.listing is None:
        return run_evaluation(view.catalog, config, case_file, modes=modes, **kwargs)
    from ..ranker.view_vectors import open_view_ranker

    check_cases(case_file, view.full, config.roles)
    want_vectors = any(mode != LEXICAL for mode in modes)
    ranker = kwargs.pop("ranker", None) or open_view_ranker(view, config, mode="hybrid" if want_vectors else LEXICAL,
                                                             query_timeout_ms=0)
    kwargs.pop("strict", None)
    kwargs.pop("lenient_roles", None)
    evaluation = run_evaluation(view.catalog, config, case_file, modes=modes, strict=False, lenient_roles=True,
                                ranker=ranker, **kwargs)
    evaluation.result.view = view.to_dict()
    return evaluation


@dataclass(frozen=True)
class ConfiguredGates:
    """The ``[validate]`` gates an ``eval`` run applies, or why it applies none (``note``)."""

    applied: bool = False
    minimums: dict = field(default_factory=dict)
    baseline: str = ""  # a path to load ("" = none)
    max_flips: int | None = None
    max_rank_drops: int | None = None
    k: int = 0
    note: str = ""  # one sentence for the result line ("" when [validate] sets no gate)


def configured_gates(config, cases_path: str | None, mode: str, *, explicit: bool) -> ConfiguredGates:
    """The ``[validate]`` gates (``min``, ``baseline``, ``max_flips``, ``max_rank_drops``) that the hooks and
    ``ci`` apply to ``cases_path``, for an ``eval`` run whose primary mode is ``mode``.

    They apply when ``[validate]`` sets a gate, the run names no gate of its own (``explicit``), the cases
    file is one the hooks check and the mode is the one they rank in; otherwise ``note`` says why not.
    """
    import os

    settings = config.validate
    if not settings.gates_configured:
        return ConfiguredGates()
    gated_mode = settings.mode or config.search.mode or "lexical"
    root = os.fspath(config.root)
    wanted = settings.cases if settings.cases_configured else ("search-cases.yaml",)
    checked = {os.path.realpath(os.path.join(root, rel)) for rel in wanted}
    not_applied = "the [validate] gates of the hooks and ci were not applied: "
    if explicit:
        return ConfiguredGates(note=not_applied + "this run sets its own (--min, --baseline)")
    if cases_path is None or os.path.realpath(cases_path) not in checked:
        return ConfiguredGates(note=not_applied + f"they gate {', '.join(wanted)}, not this cases file")
    if mode != gated_mode:
        return ConfiguredGates(note=not_applied + f"they rank in {gated_mode} mode, this run in {mode}")
    baseline = os.path.join(root, settings.baseline) if settings.baseline else ""
    parts = [f"min {settings.min_spec}"] if settings.minimums else []
    if baseline:
        parts.append(f"baseline {settings.baseline} (at most {settings.max_flips} regressed)")
    return ConfiguredGates(applied=True, minimums=dict(settings.minimums), baseline=baseline,
                           max_flips=settings.max_flips if baseline else None,
                           max_rank_drops=(settings.max_rank_drops if baseline and settings.max_rank_drops >= 0
                                           else None),
                           k=settings.k, note="the [validate] gates of the hooks and ci were applied: "
                           + ", ".join(parts))
