"""AR9D4: the labelled cases fail the configured gates, or cases regressed against the baseline.

The gates are those of ``skillsift eval`` (reference §6.9), taken from ``[validate]``:
``min`` floors on the primary mode's metrics, and with ``baseline`` (a result saved by
``skillsift eval --output``) at most ``max_flips`` cases that were found in the top k and
no longer are.  Nothing is checked when neither is configured, nor for a cases file that
is itself invalid (AR9D2 reports that).  A run that cannot measure what was asked (a
vector/hybrid mode without a usable index, fallbacks to lexical, a baseline from another
mode or k) is an AR9D4 error too: a gate that cannot run does not pass.
"""

from __future__ import annotations

from ..diagnostics import ERROR, Diagnostic, SkillsiftError

CODE = "AR9D4"


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


def evaluate_gates(*, rel: str, case_file, ranker, settings, mode: str, baseline=None,
                   index_info=None) -> list[Diagnostic]:
    """Run ``case_file`` through ``ranker`` in ``mode`` and return every failed gate as AR9D4.

    ``baseline`` is the loaded baseline document (or None); ``index_info`` describes the
    index a vector/hybrid run uses.
    """
    from ..evaluate.gates import compare_baseline, gate_failures
    from ..evaluate.run import degraded_message, evaluate

    def error(message: str, line: int | None = None, hint: str = "") -> Diagnostic:
        return Diagnostic(file=rel, line=line, code=CODE, severity=ERROR, message=message, hint=hint)

    k = case_file.effective_k(settings.k)
    result = evaluate(case_file, ranker, k=k, modes=[mode], index_info=index_info)
    degraded = degraded_message(result)
    if degraded:
        return [error(degraded, hint="check 'skillsift status' and the [embeddings] settings")]
    flips = None
    if baseline is not None:
        try:
            flips = compare_baseline(baseline, mode=result.mode, k=result.k, cases=result.primary.cases)
        except SkillsiftError as exc:
            return [error(f"cannot compare with the baseline {settings.baseline}: {exc.message}", hint=exc.hint)]
    failures = gate_failures(result.primary.metrics.gated(), settings.minimums, flips,
                             settings.max_flips if baseline is not None else -1)
    out = [error(_strip(message), hint="see which cases missed with 'skillsift eval " + rel + "'")
           for message in failures]
    if flips is not None and len(flips.regressed) > settings.max_flips:
        out += [error(message, line=line or None) for line, message in regressed_cases(result, case_file,
                                                                                          flips.regressed)]
    return out


def _ranker(ws, mode: str):
    """(ranker, index_info) for ``mode``; index_info None when a vector mode has no usable index."""
    if mode == "lexical":
        from ..ranker.search import Ranker

        return Ranker(ws.catalog, ws.config), None
    from ..commands.eval_cmd import open_ranker

    ranker = open_ranker(ws.catalog, ws.config, True)
    return ranker, ranker.index_info()


def run(ws) -> list[Diagnostic]:
    settings = ws.settings
    if ws.config is None or not settings.gates_configured:
        return []
    import os

    from ..evaluate.cases import check_catalog
    from ..evaluate.gates import load_baseline

    baseline = None
    if settings.baseline:
        path = ws.abspath(settings.baseline)
        if not os.path.isfile(path):
            return []  # AR9D0 names the missing file
        try:
            baseline = load_baseline(path)
        except SkillsiftError as exc:
            return [Diagnostic(file=settings.baseline, code=CODE, severity=ERROR,
                               message=exc.message.replace(path, settings.baseline), hint=exc.hint)]
    mode = settings.mode or ws.config.search.mode
    out: list[Diagnostic] = []
    ranker = index_info = None
    for rel in ws.cases_paths:
        if not os.path.isfile(ws.abspath(rel)):
            continue
        case_file, failure = ws.case_file(rel)
        if failure is not None:
            continue
        try:
            check_catalog(case_file, ws.catalog.names, roles_configured=True,
                          resolve=lambda role: _role_names(ws, role))
        except SkillsiftError:
            continue  # AR9D2
        if ranker is None:
            ranker, index_info = _ranker(ws, mode)
        if mode != "lexical" and index_info is None:
            out.append(Diagnostic(file=rel, code=CODE, severity=ERROR,
                                  message=f"{mode} evaluation needs an embedding index, and none is usable",
                                  hint="run 'skillsift index' first, or set [validate] mode = \"lexical\""))
            continue
        out += evaluate_gates(rel=rel, case_file=case_file, ranker=ranker, settings=settings, mode=mode,
                              baseline=baseline, index_info=index_info)
    return out


def _role_names(ws, role: str):
    from ..catalog import select

    return [ws.catalog.skills[i].name for i in select(ws.catalog, roles=ws.config.roles, role=role)]
