"""One ``skillsift eval`` run: the request in, the outcome out (docs/evaluation.md).

:func:`run_eval` checks the flags together, opens the project, applies the configured gates
(docs/evaluation.md, "Gates, baselines and exit codes"), reads the cases (and those the
skills list), ranks each view, writes ``--output`` and, with ``--why``, explains the cases
not ranked first.  It prints nothing: what a person should see on the way comes to
``notify`` as :class:`~skillsift.usecases.project.Message` data, in the order it happens (so
a message met before an error still reaches the user), and the door renders the
:class:`EvalOutcome` and chooses the exit code from it.  A problem that stops the run
raises SkillsiftError (exit 1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..catalog.listing import FULL_VIEW, LISTING_VIEW
from ..diagnostics import NOTE, SkillsiftError
from ..evaluate import session as evals
from ..evaluate.cases import check_k
from ..evaluate.gates import load_baseline, parse_minimums
from ..evaluate.querylog import log_path, mine, read_log
from ..evaluate.run import LEXICAL, degraded_hint, pair_views, parse_modes
from ..evaluate.whynot import why_not
from ..index.atomic import AtomicWriteError, write_output
from ..ranker.degraded import refused_note
from ..render.evaluation import render_json
from ..render.evaluation_html import render_html
from ..render.judge import judge_document
from ..render.registry import names
from ..words import plural
from .judge_run import run_judge
from .project import Message, open_project

ALL_VIEWS = "all"  # --view all: the full view primary, the listing view beside it


@dataclass(frozen=True)
class EvalRequest:
    """The flags of one ``skillsift eval`` run (see the command's help)."""

    cases: str | None = None
    root: str = "."
    config_file: str | None = None
    mode_spec: str | None = None
    k: int = 0
    min_spec: str = ""
    baseline: str | None = None
    max_flips: int | None = None
    max_rank_drops: int | None = None
    output: str | None = None
    fmt: str = "text"
    from_skills: bool = False
    agent: str | None = None
    view: str = FULL_VIEW  # full, listing or all
    context_window: int | None = None
    why: bool = False
    why_skills: int = 40
    quiet: bool = False
    allow_exec: bool = False
    force: bool = False  # --output rewrites a read-only file too (its mode kept)
    judge: bool = False  # ask the agent of [judge] beside the ranker (docs/judge.md)
    judge_options: Any = None  # skillsift.usecases.judge_run.JudgeOptions (budget, time, jobs, dry run, fetch)

    def check(self) -> None:
        """Raise SkillsiftError for flags that do not go together (before anything is read)."""
        if self.cases is None and not self.from_skills:
            raise SkillsiftError("eval needs a cases file, --from-skills, or both",
                                 hint="skillsift eval search-cases.yaml, or skillsift eval --from-skills")
        check_k(self.k)
        if self.why and self.fmt not in names("why"):
            raise SkillsiftError(f"--why works with --format text or json, not {self.fmt}")
        if self.quiet and (self.why or self.fmt != "text"):
            raise SkillsiftError("--quiet is the one-line text report: leave out --why and --format")
        for flag, value in (("--max-flips", self.max_flips), ("--max-rank-drops", self.max_rank_drops)):
            if value is not None and self.baseline is None:
                raise SkillsiftError(f"{flag} needs --baseline: it limits the cases that regressed against one",
                                     hint="Save a baseline with --output, then pass --baseline FILE")
            if value is not None and value < 0:
                raise SkillsiftError(f"{flag} must not be negative, got {value}")

    def check_judge(self) -> None:
        """Raise SkillsiftError for judge flags that do not go with the others."""
        if self.judge and (self.why or self.quiet or self.fmt not in ("text", "json", "html")):
            raise SkillsiftError("--judge reports in text, json or html, without --why or --quiet")
        opts = self.judge_options
        if not self.judge and opts is not None and (opts.dry_run or opts.budget is not None or opts.fetch is not None
                                                    or opts.max_seconds or opts.timeout or opts.jobs != 1):
            raise SkillsiftError("--budget, --max-seconds, -j, --timeout, --dry-run, --fetch and --cache-only need "
                                 "--judge")


@dataclass
class EvalOutcome:
    """What the run measured, and what the door shows of it.

    ``result`` is the primary view's result (the listing view's beside it with ``--view all``);
    ``why`` the ``--why`` report; ``html_written`` says the report went to ``--output``
    (nothing on stdout).  ``degraded`` and ``degraded_hint``: the embeddings fell back, so
    the numbers measure nothing asked for (exit 1).  ``failures``: the gates that failed
    (exit 2), with ``hint`` under them.  ``judged``: the ``--judge`` report (also in ``result.judge``).
    """

    result: Any
    config: Any
    why: Any = None
    judged: Any = None
    html_written: bool = False
    degraded: str = ""
    degraded_hint: str = ""
    failures: tuple[str, ...] = ()
    hint: str = ""

    @property
    def hybrid_hint(self) -> bool:
        """Whether the report suggests hybrid ranking (the configured mode is lexical)."""
        return self.config.search.mode == LEXICAL


def run_eval(request: EvalRequest, notify: Callable[[Message], None]) -> EvalOutcome:
    """Run ``request``; messages go to ``notify`` as they come (``quiet``: no notes)."""
    request.check()

    def tell(message: Message) -> None:
        if not (request.quiet and (message.severity == NOTE or message.text.startswith("note:"))):
            notify(message)

    minimums = parse_minimums(request.min_spec)
    if request.view == ALL_VIEWS and request.why:
        raise SkillsiftError("--why explains one view: pass --view full or --view listing with it")
    request.check_judge()
    project = open_project(request.root, request.config_file, agent=request.agent,
                           view=LISTING_VIEW if request.view == LISTING_VIEW else FULL_VIEW,
                           context_window=request.context_window, agent_in_full=request.view != ALL_VIEWS,
                           allow_exec=request.allow_exec)
    for message in project.messages:
        tell(message)
    config, view = project.config, project.view
    modes = parse_modes(request.mode_spec, project.mode)
    gates = _gates(request, config, modes[0], minimums)
    case_file = _cases(request, view, config, notify)
    evaluation = evals.run_view_evaluation(view, config, case_file, modes=modes, k_override=gates.k,
                                           minimums=gates.minimums,
                                           baseline=load_baseline(gates.baseline) if gates.baseline else None,
                                           max_flips=gates.max_flips, max_rank_drops=gates.max_rank_drops)
    refused = getattr(evaluation.ranker, "index_refused", ())
    if refused:
        notify(Message("", refused_note(refused)))  # shown with --quiet too
    refresh = getattr(evaluation.ranker, "refresh", None)
    for line in refresh.notes() if refresh is not None else ():
        tell(Message("", line))
    result = evaluation.result
    if request.view == ALL_VIEWS:
        # the same files as the full view: their findings were told with it
        listing = open_project(request.root, config=config, view=LISTING_VIEW, agent=request.agent,
                               context_window=request.context_window).view
        other = evals.run_view_evaluation(listing, config, case_file, modes=modes, k_override=gates.k)
        if other.degraded and not evaluation.degraded:
            evaluation.degraded = other.degraded
        result.views = {"listing": other.result}
        result.paired_views = pair_views(result, other.result)
    result.gate_failures = evaluation.gate_failures
    result.gates_note = gates.note
    judged = None
    if request.judge:  # the agent beside the ranker, over the same cases (docs/judge.md)

        judged = run_judge(request.root, config, case_file, result, request.judge_options)
        for note in judged.notes:
            notify(Message(NOTE, note))
        result.judge = judge_document(judged)
    outcome = EvalOutcome(result=result, config=config, judged=judged,
                          html_written=_write_output(request, result, evaluation, tell, first=gates.first))
    if request.why and not outcome.html_written:
        assert case_file is not None  # a cases file, --from-skills, or both (EvalRequest.check)
        mined = mine(read_log(log_path(config)), view.catalog.names).cases
        outcome.why = why_not(result, case_file.cases, view.catalog, config, evaluation.ranker, mined=mined,
                              view=view, max_skills=request.why_skills)
    if evaluation.degraded:  # the numbers would not measure the ranking asked for: never a pass, never a baseline
        outcome.degraded = evaluation.degraded
        outcome.degraded_hint = (f"hint: {evaluation.degraded_hint}" if evaluation.degraded_hint
                                 else degraded_hint(config))
        return outcome
    outcome.failures = tuple(result.gate_failures)
    if evaluation.baseline_gate_failed:
        outcome.hint = _baseline_hint(request, view, result, gates.shown_baseline)
    return outcome


@dataclass(frozen=True)
class _Gates:
    """The gates this run applies: the flags', or the configured ones (``note``: why none)."""

    minimums: dict
    baseline: str | None
    shown_baseline: str | None  # the baseline a hint names (the configured path when configured)
    max_flips: int | None
    max_rank_drops: int | None
    k: int
    note: str = ""
    first: bool = False  # this run's --output writes the configured baseline, not there yet


def _gates(request: EvalRequest, config, mode: str, minimums: dict) -> _Gates:
    """The flags' gates, or the ``[validate]`` ones the hooks and ``ci`` apply (docs/evaluation.md,
    "Gates, baselines and exit codes") when the flags set none."""
    explicit = bool(minimums) or request.baseline is not None
    configured = evals.configured_gates(config, request.cases, mode, explicit=explicit)
    if not configured.applied:
        return _Gates(minimums, request.baseline, request.baseline, request.max_flips, request.max_rank_drops,
                      request.k, configured.note)
    if _first_baseline(configured, request.output, request.cases, config.validate.baseline):
        # this run writes the configured baseline, which is not there yet: nothing to compare with
        note = configured.note.replace(
            f"baseline {config.validate.baseline} (at most {configured.max_flips} regressed)",
            f"baseline {config.validate.baseline} (none yet: this run writes the first)")
        return _Gates(configured.minimums, None, config.validate.baseline, None, None, request.k or configured.k,
                      note, first=True)
    return _Gates(configured.minimums, configured.baseline or None, config.validate.baseline, configured.max_flips,
                  configured.max_rank_drops, request.k or configured.k, configured.note)


def _first_baseline(gates, output: str | None, cases: str | None, configured: str) -> bool:
    """True when the configured baseline applies, is not there yet, and this run's ``--output`` writes it.

    Raises the missing baseline's error when the run does not write it, with the command that
    would (docs/evaluation.md, "The first baseline").
    """
    import os

    path = gates.baseline if gates.applied else ""
    if not path or os.path.lexists(path):
        return False
    if output and os.path.realpath(output) == os.path.realpath(path):
        return True
    shown = os.path.relpath(path)
    raise SkillsiftError(f"cannot read baseline {configured} ([validate] baseline): it does not exist yet",
                         hint=f"write the first one: skillsift eval {cases or 'CASES'} --output {shown}")


def _cases(request: EvalRequest, view, config, notify: Callable[[Message], None]):
    """The cases file checked against the skills, plus the skills' own cases with ``--from-skills``."""
    case_file = (evals.load_checked_cases(request.cases, view.full, config.roles)
                 if request.cases is not None else None)
    if request.from_skills:
        notes: list = []
        case_file, added, skipped = evals.with_skill_cases(case_file, view.full, config, notes)
        for note in notes:  # shown with --quiet too
            notify(Message(NOTE, f"{note.location()}: {note.message}"))
        if not request.quiet:
            notify(Message("", f"from-skills: {plural(added, 'case')} derived, {skipped} skipped (id taken)"))
    return case_file


def _baseline_hint(request: EvalRequest, view, result, shown_baseline: str | None) -> str:
    """The hint under a failed baseline gate: fix a skill that does not parse, or save a new baseline."""
    broken = [d.file for d in view.full.diagnostics if d.code == "SK001" and d.severity == "error" and d.file]
    if broken:
        return (f"hint: {', '.join(broken)} does not parse (SK001): fix the frontmatter first; "
                "no new baseline is needed for it")
    assert shown_baseline is not None  # a baseline gate ran: --baseline, or the configured one
    source = ([request.cases] if request.cases is not None else []) + (["--from-skills"] if request.from_skills else [])
    return "hint: " + evals.regression_hint(source, shown_baseline, mode=result.mode, k=result.k)


def _write_output(request: EvalRequest, result, evaluation, tell: Callable[[Message], None], *,
                  first: bool = False) -> bool:
    """Write ``--output``: the HTML report (True: nothing goes to stdout), else the JSON result as a
    baseline, never for a run whose embeddings fell back.  An output that cannot be written raises
    SkillsiftError naming it (exit 1) before anything else is printed."""
    if not request.output or (request.fmt != "html" and evaluation.degraded):
        return False

    if request.fmt == "html":
        data = render_html(result).encode("utf-8")  # a page for people, not a baseline
    else:
        data = render_json(result).encode("utf-8")
    try:
        write_output(request.output, data, force=request.force)
    except AtomicWriteError as exc:
        raise SkillsiftError(f"--output: {exc.message}", hint=exc.hint) from None
    if request.fmt == "html":
        tell(Message("", request.output, lead="wrote "))
        return True
    if first:
        tell(Message("", f"wrote the first baseline {request.output} ([validate] baseline): later runs, the hooks and "
                         "ci compare with it; commit it"))
    return False
