"""``skillsift eval``: measure the ranking on labelled queries and gate on it."""

from __future__ import annotations

import click

from ..render.registry import names
from ..words import plural
from ._common import config_option, force_option, root_option
from .judge_cmd import judge_options

FORMATS = names("evaluation")


@click.command("eval")
@click.argument("cases", type=click.Path(path_type=str), required=False)
@root_option
@config_option
@click.option("--mode", "mode_spec", default=None, metavar="MODES",
              help="Comma list of lexical, vector, hybrid, or all; the first is primary (gated). "
                   "Default: the configured mode.")
@click.option("--k", "k_override", type=int, default=0, show_default=True,
              help="Cut-off of recall@k, hit@k and ndcg@k (1-100; 0 = the file's k, else 5).")
@click.option("--min", "min_spec", default="", metavar="METRIC=V,...",
              help="Floors on the primary mode, e.g. top1=0.6,mrr=0.7 (top1, recall, hit, mrr, ndcg).")
@click.option("--baseline", default=None, type=click.Path(path_type=str),
              help="A result saved with --output: list cases that regressed or got fixed.")
@click.option("--max-flips", type=int, default=None,
              help="Most cases allowed to regress against --baseline (default 0).")
@click.option("--max-rank-drops", type=int, default=None,
              help="Most cases allowed to drop in rank against --baseline (default: no limit).")
@click.option("--output", default=None, type=click.Path(dir_okay=False, path_type=str),
              help="Write the JSON result here (never for a run whose embeddings fell back); with --format html, "
                   "the HTML report.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--from-skills", is_flag=True,
              help="Add the cases the skills list in their frontmatter (examples / not_for); "
                   "alone, CASES may be left out.")
@click.option("--agent", default=None, metavar="NAME",
              help="Full view: rank only the skills this agent lists. Listing view: the agent whose listing "
                   "is ranked (default: the first of [validate] agents).")
@click.option("--view", "view_name", type=click.Choice(["full", "listing", "all"]), default="full",
              show_default=True,
              help="What is ranked: every field (full), exactly what the agent lists (listing), or both side "
                   "by side with paired intervals (all; the full view is primary).")
@click.option("--context-window", "context_window", type=click.IntRange(1000, 10_000_000), default=None,
              metavar="TOKENS", help="Listing view: the agent's context window in tokens (default: the agent's).")
@click.option("--why", "why", is_flag=True,
              help="Explain every case not ranked first and propose edits of the field the view reads "
                   "(triggers, or known requests in hybrid and vector mode; the description in the listing "
                   "view), cross-validated over each skill's cases (text or json; see docs/evaluation.md).")
@click.option("--why-skills", "why_skills", type=click.IntRange(0, None), default=40, show_default=True,
              metavar="N", help="--why: propose for at most N skills (name order; 0: every skill with a case "
                                "not ranked first).")
@click.option("--quiet", "-q", "quiet", is_flag=True,
              help="Text: one result line (verdict, top1, MRR); stderr keeps warnings and gate failures, not notes.")
@click.option("--judge", "judge", is_flag=True,
              help="Also ask the agent of [judge] which skill it would use per case, beside the ranker "
                   "(docs/judge.md; text, json and html).")
@judge_options
@force_option
def eval_command(cases, root, config_file, mode_spec, k_override, min_spec, baseline, max_flips, max_rank_drops,
                 output, fmt, from_skills, agent, view_name, context_window, why, why_skills, quiet, judge, budget,
                 max_seconds, jobs, timeout, dry_run, fetch, allow_exec, force):
    """Rank the labelled queries of CASES (YAML) and report top1, recall@k, hit@k, MRR, nDCG.

    With --from-skills, each skill's frontmatter `examples` (queries it must answer) and
    `not_for` (queries it must not rank first for) become cases too, with ids
    <skill>/example-N and <skill>/not-for-N, tagged from-skills.

    \b
    Exit codes: 0 every gate passed; 1 the evaluation could not run (bad flags,
    invalid cases file (AR9D2), unknown skill, unreadable or incomparable baseline,
    a vector/hybrid mode without a usable index, or any case whose embeddings fell
    back to lexical); 2 a gate failed (AR9D4 on stderr).
    """
    from ..diagnostics import SkillsiftError
    from ..evaluate import session as evals
    from ..evaluate.cases import check_k
    from ..evaluate.gates import load_baseline, parse_minimums
    from ..evaluate.run import LEXICAL, degraded_hint, parse_modes
    from ..render.evaluation import render_json
    from ..render.registry import render
    from ..render.sanitise import for_stdout as _safe
    from ..render.sanitise import plain_lines
    from ._common import open_project, say

    if cases is None and not from_skills:
        raise SkillsiftError("eval needs a cases file, --from-skills, or both",
                             hint="skillsift eval search-cases.yaml, or skillsift eval --from-skills")
    check_k(k_override)
    if why and fmt not in names("why"):
        raise SkillsiftError(f"--why works with --format text or json, not {fmt}")
    if quiet and (why or fmt != "text"):
        raise SkillsiftError("--quiet is the one-line text report: leave out --why and --format")
    for flag, value in (("--max-flips", max_flips), ("--max-rank-drops", max_rank_drops)):
        if value is not None and baseline is None:
            raise SkillsiftError(f"{flag} needs --baseline: it limits the cases that regressed against one",
                                 hint="Save a baseline with --output, then pass --baseline FILE")
        if value is not None and value < 0:
            raise SkillsiftError(f"{flag} must not be negative, got {value}")
    minimums = parse_minimums(min_spec)
    if view_name == "all" and why:
        raise SkillsiftError("--why explains one view: pass --view full or --view listing with it")
    if judge and (why or quiet or fmt not in ("text", "json", "html")):
        raise SkillsiftError("--judge reports in text, json or html, without --why or --quiet")
    if not judge and (dry_run or budget is not None or fetch is not None or max_seconds or timeout or jobs != 1):
        raise SkillsiftError("--budget, --max-seconds, -j, --timeout, --dry-run, --fetch and --cache-only need --judge")
    project = open_project(root, config_file, agent=agent, view="listing" if view_name == "listing" else "full",
                           context_window=context_window, agent_in_full=view_name != "all", quiet=quiet,
                           allow_exec=allow_exec)
    config, view, catalog = project.config, project.view, project.catalog
    modes = parse_modes(mode_spec, config.search.mode)
    shown_baseline = baseline
    gates = evals.configured_gates(config, cases, modes[0], explicit=bool(minimums) or baseline is not None)
    if gates.applied:  # the same gates as the hooks and ci (docs/evaluation.md, "Gates, baselines and exit codes")
        minimums, baseline = gates.minimums, gates.baseline or None
        shown_baseline = config.validate.baseline
        max_flips, max_rank_drops = gates.max_flips, gates.max_rank_drops
        k_override = k_override or gates.k
    first = _first_baseline(gates, output, cases, config.validate.baseline)
    if first:  # this run writes the configured baseline, which is not there yet: nothing to compare with
        baseline, max_flips, max_rank_drops = None, None, None
        from dataclasses import replace

        gates = replace(gates, note=gates.note.replace(
            f"baseline {config.validate.baseline} (at most {gates.max_flips} regressed)",
            f"baseline {config.validate.baseline} (none yet: this run writes the first)"))
    case_file = evals.load_checked_cases(cases, view.full, config.roles) if cases is not None else None
    if from_skills:
        notes: list = []
        case_file, added, skipped = evals.with_skill_cases(case_file, view.full, config, notes)
        for note in notes:
            say(f"{note.location()}: {note.message}", "note: ")
        if not quiet:
            say(f"from-skills: {plural(added, 'case')} derived, {skipped} skipped (id taken)")
    evaluation = evals.run_view_evaluation(view, config, case_file, modes=modes, k_override=k_override,
                                           minimums=minimums, baseline=load_baseline(baseline) if baseline else None,
                                           max_flips=max_flips, max_rank_drops=max_rank_drops)
    refused = getattr(evaluation.ranker, "index_refused", ())
    if refused:
        from ..ranker.setup import refused_note

        say(refused_note(refused))
    refresh = getattr(evaluation.ranker, "refresh", None)
    for line in refresh.notes() if refresh is not None else ():
        if not (quiet and line.startswith("note:")):
            say(line)
    result = evaluation.result
    if view_name == "all":
        from ..evaluate.run import pair_views
        from ..usecases.project import open_project as open_view

        # the same files as the full view: their findings were printed with it
        listing_view = open_view(root, config=config, view="listing", agent=agent, context_window=context_window).view
        other = evals.run_view_evaluation(listing_view, config, case_file, modes=modes, k_override=k_override)
        if other.degraded and not evaluation.degraded:
            evaluation.degraded = other.degraded
        result.views = {"listing": other.result}
        result.paired_views = pair_views(result, other.result)
    result.gate_failures = evaluation.gate_failures
    result.gates_note = gates.note
    judge_text = ""
    if judge:  # the agent beside the ranker, over the same cases (docs/judge.md)
        from ..judge.session import run_judge
        from ..render.judge import judge_document
        from .judge_cmd import judge_request

        judged = run_judge(root, config, case_file, result, judge_request(
            agent=None, context_window=None, budget=budget, max_seconds=max_seconds, jobs=jobs, timeout=timeout,
            dry_run=dry_run, fetch=fetch))
        for note in judged.notes:
            say(note, "note: ")
        result.judge, judge_text = judge_document(judged), render("judge", "text", judged)
    if output and fmt == "html":
        from ..index.atomic import AtomicWriteError, write_output
        from ..render.evaluation_html import render_html

        try:  # a page for people, not a baseline
            write_output(output, render_html(result).encode("utf-8"), force=force)
        except AtomicWriteError as exc:
            raise SkillsiftError(f"--output: {exc.message}", hint=exc.hint) from None
        say(output, "wrote ")
    elif output and not evaluation.degraded:
        from ..index.atomic import AtomicWriteError, write_output

        try:  # a baseline: written at once, or an error naming it (exit 1) before anything else is printed
            write_output(output, render_json(result).encode("utf-8"), force=force)
        except AtomicWriteError as exc:
            raise SkillsiftError(f"--output: {exc.message}", hint=exc.hint) from None
        if first:
            say(f"wrote the first baseline {output} ([validate] baseline): later runs, the hooks and ci compare "
                "with it; commit it")
    if output and fmt == "html":
        pass
    elif why:
        from ..evaluate.querylog import log_path, mine, read_log
        from ..evaluate.whynot import why_not
        mined = mine(read_log(log_path(config)), catalog.names).cases
        report = why_not(result, case_file.cases, catalog, config, evaluation.ranker, mined=mined, view=view,
                         max_skills=why_skills)
        click.echo(_safe(render("why", fmt, result, report, hybrid_hint=config.search.mode == LEXICAL), fmt),
                   nl=False)
    elif quiet:
        from ..render.evaluation_line import render_quiet

        click.echo(plain_lines(render_quiet(result)), nl=False)
    else:
        click.echo(_safe(render("evaluation", fmt, result, hybrid_hint=config.search.mode == LEXICAL), fmt), nl=False)
        if judge_text and fmt == "text":
            click.echo("\n" + judge_text, nl=False)
    if evaluation.degraded:
        # The numbers would not measure the ranking asked for: never a pass, never a baseline.
        say(evaluation.degraded)
        say(f"hint: {evaluation.degraded_hint}" if evaluation.degraded_hint else degraded_hint(config))
        return 1
    for failure in result.gate_failures:
        say(failure)
    broken = [d.file for d in view.full.diagnostics if d.code == "SK001" and d.severity == "error" and d.file]
    if evaluation.baseline_gate_failed and broken:
        say(f"hint: {', '.join(broken)} does not parse (SK001): fix the frontmatter first; "
            "no new baseline is needed for it")
    elif evaluation.baseline_gate_failed:
        source = ([cases] if cases is not None else []) + (["--from-skills"] if from_skills else [])
        say(evals.regression_hint(source, shown_baseline, mode=result.mode, k=result.k), "hint: ")
    return 2 if result.gate_failures else 0


def _first_baseline(gates, output: str | None, cases: str | None, configured: str) -> bool:
    """True when the configured baseline applies, is not there yet, and this run's ``--output`` writes it.

    Raises the missing baseline's error when the run does not write it, with the command that
    would (docs/evaluation.md, "The first baseline").
    """
    import os

    from ..diagnostics import SkillsiftError

    path = gates.baseline if gates.applied else ""
    if not path or os.path.lexists(path):
        return False
    if output and os.path.realpath(output) == os.path.realpath(path):
        return True
    shown = os.path.relpath(path)
    raise SkillsiftError(f"cannot read baseline {configured} ([validate] baseline): it does not exist yet",
                         hint=f"write the first one: skillsift eval {cases or 'CASES'} --output {shown}")
