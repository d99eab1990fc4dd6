"""``skillsift eval``: measure the ranking on labelled queries and gate on it."""

from __future__ import annotations

import click

from ..render.evaluation_line import render_quiet
from ..render.registry import names, render
from ..render.sanitise import for_stdout, plain_lines
from ..usecases.run_eval import EvalRequest, run_eval
from ._common import config_option, force_option, print_message, root_option, say
from .judge_cmd import judge_options, judge_request

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
    outcome = run_eval(EvalRequest(
        cases=cases, root=root, config_file=config_file, mode_spec=mode_spec, k=k_override, min_spec=min_spec,
        baseline=baseline, max_flips=max_flips, max_rank_drops=max_rank_drops, output=output, fmt=fmt,
        from_skills=from_skills, agent=agent, view=view_name, context_window=context_window, why=why,
        why_skills=why_skills, quiet=quiet, allow_exec=allow_exec, force=force, judge=judge,
        judge_options=judge_request(agent=None, context_window=None, budget=budget, max_seconds=max_seconds,
                                    jobs=jobs, timeout=timeout, dry_run=dry_run, fetch=fetch)), notify=print_message)
    result = outcome.result
    if outcome.html_written:
        pass  # the report is the --output file
    elif why:
        click.echo(for_stdout(render("why", fmt, result, outcome.why, hybrid_hint=outcome.hybrid_hint), fmt), nl=False)
    elif quiet:
        click.echo(plain_lines(render_quiet(result)), nl=False)
    else:
        click.echo(for_stdout(render("evaluation", fmt, result, hybrid_hint=outcome.hybrid_hint), fmt), nl=False)
        judge_text = render("judge", "text", outcome.judged) if outcome.judged is not None else ""
        if judge_text and fmt == "text":
            click.echo("\n" + judge_text, nl=False)
    if outcome.degraded:
        for line in (outcome.degraded, outcome.degraded_hint):
            say(line)
        return 1
    for line in (*outcome.failures, outcome.hint):
        if line:
            say(line)
    return 2 if outcome.failures else 0
