"""AR9D4: the labelled cases fail the configured gates, or cases regressed against the baseline.

The gates are those of ``skillsift eval`` (docs/evaluation.md, "Gates, baselines and exit
codes"), taken from ``[validate]``: ``min`` floors on the primary mode's metrics, and with
``baseline`` (a result saved by ``skillsift eval --output``) at most ``max_flips`` cases
that were found in the top k and no longer are. Nothing is checked when neither is
configured, nor for a cases file that is itself invalid (AR9D2 reports that). A run that
cannot measure what was asked (a vector/hybrid mode without a usable index, fallbacks to
lexical, a baseline from another mode or k) is an AR9D4 error too: a gate that cannot run
does not pass.
"""

from __future__ import annotations

import re

from ..config.checks import check
from ..diagnostics import ERROR, NOTE, Diagnostic, SkillsiftError
from ..validators.workspace import Workspace
from ..words import plural

REGRESSION = check("AR9D4", "search-eval-regression", ERROR, scope="repo",
                   triggers=("cases", "skill", "config", "baseline"),
                   files="the cases files, SKILL.md, the config, the [validate] baseline",
                   summary="the labelled cases pass the configured floors and regress no more cases than allowed")
CODE = REGRESSION.code

_ONE = re.compile(r'^case "(.+)" regressed against the baseline: ')
_ALL = re.compile(r"^\d+ cases? regressed against the baseline \(max \d+\): (.+)$")
_DROPS = re.compile(r"^\d+ cases? dropped in rank against the baseline \(max \d+\): (.+)$")
_DROP = re.compile(r"^(.*) \((?:\d+|not retrieved) -> (?:\d+|not retrieved)\)$")


def dropped_ids(diag: Diagnostic) -> tuple[str, ...]:
    """The case ids of an AR9D4 ``max_rank_drops`` finding; () for any other finding."""
    if diag.code != CODE:
        return ()
    every = _DROPS.match(diag.message)
    if not every:
        return ()
    out = []
    for part in every.group(1).split(", "):
        one = _DROP.match(part)
        if one is None:
            return ()
        out.append(one.group(1))
    return tuple(out)


def regressed_ids(diag: Diagnostic) -> tuple[str, ...]:
    """The case ids an AR9D4 baseline-regression finding of this module is about; () for any other finding."""
    if diag.code != CODE:
        return ()
    one = _ONE.match(diag.message)
    if one:
        return (one.group(1),)
    every = _ALL.match(diag.message)
    return tuple(every.group(1).split(", ")) if every else ()


def _strip(message: str) -> str:
    return message.replace(f"{CODE}: ", "", 1)


def _rank_text(rank) -> str:
    return f"rank {rank}" if rank else "not retrieved"


def regressed_cases(result, case_file, regressed) -> list[tuple[int, str]]:
    """(line of the case, what happened) for each regressed case id, naming the skill that took its place."""
    lines = {case.id: case.line for case in case_file.cases}
    by_id = {case.id: case for case in result.primary.cases}
    out = []
    for case_id in regressed:
        scored = by_id.get(case_id)
        if scored is None:
            continue
        got = list(scored.got)
        top = f'; "{got[0]}" now ranks first' if got else ""
        out.append((lines.get(case_id, 0),
                    f'case "{case_id}" regressed against the baseline: expected {", ".join(scored.expected)}, '
                    f"now {_rank_text(scored.rank)}{top}"))
    return out


def evaluate_gates(*, rel: str, case_file, catalog, config, settings, mode: str, baseline=None,
                   ranker=None) -> list[Diagnostic]:
    """Run ``case_file`` in ``mode`` through one evaluation run and return every failed gate as AR9D4.

    ``baseline`` is the loaded baseline document (or None); ``ranker`` an open ranker to reuse.
    """
    from ..evaluate import session as evals

    def error(message: str, line: int | None = None, hint: str = "") -> Diagnostic:
        return REGRESSION.report(file=rel, line=line, message=message, hint=hint)

    try:
        evaluation = evals.run_evaluation(catalog, config, case_file, modes=[mode], k_override=settings.k,
                                          minimums=settings.minimums, baseline=baseline,
                                          max_flips=settings.max_flips, max_rank_drops=settings.max_rank_drops,
                                          strict=False, ranker=ranker)
    except evals.NeedsIndex:
        return [error(f"{mode} evaluation needs an embedding index, and none is usable",
                      hint="run 'skillsift index' first, or set [validate] mode = \"lexical\"")]
    except evals.BaselineMismatch as exc:
        return [error(f"cannot compare with the baseline {settings.baseline}: {exc.message}", hint=exc.hint)]
    result = evaluation.result
    if evaluation.degraded:
        return [error(evaluation.degraded,
                      hint=evaluation.degraded_hint or "check 'skillsift status' and the [embeddings] settings")]
    refresh = (evals.regression_hint(rel, settings.baseline, mode=result.mode, k=result.k)
               if evaluation.baseline_gate_failed else "")
    flips = evaluation.flips
    per_case = (regressed_cases(result, case_file, flips.regressed)
                if flips is not None and len(flips.regressed) > settings.max_flips else [])
    out = []
    for message in evaluation.gate_failures:
        if per_case and _ALL.match(_strip(message)):
            continue  # each regressed case is one finding below: one case, one error
        baseline_gate = "against the baseline" in message
        out.append(error(_strip(message), hint=refresh if baseline_gate and refresh
                         else "see which cases missed with 'skillsift eval " + rel + "'"))
    if per_case:
        assert flips is not None
        allowed = (f"{plural(len(flips.regressed), 'case')} regressed, at most {settings.max_flips} may"
                   + (f"; {refresh}" if refresh else ""))
        out += [error(message, line=line or None, hint=allowed) for line, message in per_case]
    return out


def unparsable_note(paths) -> str:
    """Why the gates were not run: skills whose frontmatter does not parse (SK001) rank as something else."""
    shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    verb = "does" if len(paths) == 1 else "do"
    return (f"the gates were not run: {shown} {verb} not parse (SK001), so the rankings would measure "
            "text nobody wrote; fix the frontmatter first (no new baseline is needed for it)")


def run(ws: Workspace) -> list[Diagnostic]:
    settings = ws.settings
    if ws.config is None or not settings.gates_configured:
        return []
    import os

    from ..evaluate import session as evals
    from ..evaluate.gates import load_baseline

    if ws.unparsable:
        return [REGRESSION.report(file=ws.unparsable[0], level=NOTE, message=unparsable_note(ws.unparsable),
                                  hint="the SK001 finding says what to fix")]
    baseline = None
    if settings.baseline:
        path = ws.abspath(settings.baseline)
        if not os.path.isfile(path):
            return []  # AR9D0 names the missing file
        try:
            baseline = load_baseline(path)
        except SkillsiftError as exc:
            return [REGRESSION.report(file=settings.baseline,
                                      message=exc.message.replace(path, settings.baseline), hint=exc.hint)]
    mode = settings.mode or ws.config.search.mode
    catalog, config = ws.catalog, ws.config
    out: list[Diagnostic] = []
    ranker = None
    for rel in ws.cases_paths:
        if not os.path.isfile(ws.abspath(rel)):
            continue
        case_file, failure = ws.case_file(rel)
        if failure is not None:
            continue
        try:
            evals.check_cases(case_file, catalog, config.roles)
        except SkillsiftError:
            continue  # AR9D2
        if ranker is None:
            ranker = evals.open_ranker(catalog, config, mode != "lexical")
        out += evaluate_gates(rel=rel, case_file=case_file, catalog=catalog, config=config, settings=settings,
                              mode=mode, baseline=baseline, ranker=ranker)
    return out
