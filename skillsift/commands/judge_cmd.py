"""``skillsift judge``: ask the agent itself which skill it would use, beside the ranker (docs/judge.md)."""

from __future__ import annotations

import click

from ..config import check_root
from ..diagnostics import SkillsiftError
from ..evaluate import session as evals
from ..evaluate.cases import check_k
from ..evaluate.run import parse_modes
from ..index.atomic import AtomicWriteError, write_output
from ..render.registry import names, render
from ..skill_sources.configured import open_config
from ..usecases.judge_run import JudgeOptions, evaluate_and_judge
from ..usecases.project import catalog_messages, config_messages
from ._common import config_option, open_project, print_messages, root_option, say


def judge_options(function):
    """The options ``judge`` and ``eval --judge`` share: the budget, the limits, the dry run, the cache policy."""
    for option in reversed((
        click.option("--budget", "budget", type=click.IntRange(0, None), default=None, metavar="N",
                     help="Call the agent at most N times (default: [judge] max_calls; 0 = unlimited). "
                          "Cached answers cost nothing."),
        click.option("--max-seconds", "max_seconds", type=click.FloatRange(0, None), default=0.0, metavar="S",
                     help="Start no call after S seconds, and cut a running one there (0 = no limit)."),
        click.option("-j", "--jobs", "jobs", type=click.IntRange(1, 64), default=1, show_default=True,
                     help="Calls at a time (the answers are the same as with -j 1)."),
        click.option("--timeout", "timeout", type=click.FloatRange(0, 3600), default=0.0, metavar="S",
                     help="Seconds per call (default: [judge] timeout_seconds, 120)."),
        click.option("--dry-run", "dry_run", is_flag=True,
                     help="Print the prompt and the number of calls that would be made; send nothing."),
        click.option("--fetch/--cache-only", "fetch", default=None,
                     help="Call the agent for a missing answer, or only read the cache (default: fetch, "
                          "except with CI=true unless [judge] fetch_in_ci = true)."),
        click.option("--allow-exec", "allow_exec", is_flag=True,
                     help="Let the repository's [judge] command run (a user config's command always may)."),
    )):
        function = option(function)
    return function


def judge_request(*, agent, context_window, budget, max_seconds, jobs, timeout, dry_run, fetch):
    return JudgeOptions(agent=agent or "", context_window=context_window, budget=budget, max_seconds=max_seconds,
                        jobs=jobs, timeout=timeout, dry_run=dry_run, fetch=fetch)


@click.command("judge")
@click.argument("cases", type=click.Path(path_type=str))
@root_option
@config_option
@click.option("--agent", default=None, metavar="NAME",
              help="The agent whose listing the prompt holds (default: [judge] agent, claude-code).")
@click.option("--context-window", "context_window", type=click.IntRange(1000, 10_000_000), default=None,
              metavar="TOKENS", help="The agent's context window in tokens (default: the agent's).")
@click.option("--mode", "mode_spec", default=None, metavar="MODE",
              help="The ranker's mode (lexical, vector or hybrid; default: the configured mode).")
@click.option("--k", "k_override", type=int, default=0, show_default=True,
              help="Cut-off of the ranking (0 = the file's).")
@click.option("--view", "view_name", type=click.Choice(["full", "listing"]), default="full", show_default=True,
              help="What the ranker ranks: every field of the skills the agent lists (full), or exactly its "
                   "listing (listing).")
@judge_options
@click.option("--format", "fmt", type=click.Choice(names("judge")), default="text", show_default=True)
@click.option("--output", default=None, type=click.Path(dir_okay=False, path_type=str),
              help="Also write the JSON report here.")
def judge_command(cases, root, config_file, agent, context_window, mode_spec, k_override, view_name, budget,
                  max_seconds, jobs, timeout, dry_run, fetch, allow_exec, fmt, output):
    """Ask the agent which skill it would use for each case of CASES, and compare with the ranker.

    One prompt per case: the agent's listing as `skillsift list --agent NAME` computes it
    (skills holding a secret withheld), the request, and an instruction to answer with one
    skill name or none.  Answers are cached per (command, agent, template, listing, request).

    \b
    Exit codes: 0 reported (missing answers are listed, not an error); 1 the run could not
    start (no [judge] command, bad cases file or flags, unknown agent, a degraded ranking).
    """
    check_root(root)
    check_k(k_override)
    config = open_config(root, config_file, allow_exec=allow_exec)  # first: its [judge] agent is the view's
    print_messages(config_messages(config) + catalog_messages(config.source_findings))
    judge_agent = agent or config.judge.agent
    view = open_project(root, config_file, agent=judge_agent, view=view_name, context_window=context_window,
                        config=config).view
    modes = parse_modes(mode_spec, config.search.mode)[:1]
    case_file = evals.load_checked_cases(cases, view.full, config.roles)
    opts = judge_request(agent=judge_agent, context_window=context_window, budget=budget, max_seconds=max_seconds,
                         jobs=jobs, timeout=timeout, dry_run=dry_run, fetch=fetch)
    evaluation, run = evaluate_and_judge(root, view, config, case_file, modes=modes, k_override=k_override, opts=opts)
    if evaluation.degraded:
        raise SkillsiftError(evaluation.degraded, hint=evaluation.degraded_hint or None)
    for note in run.notes:
        say(note, "note: ")
    if output and not dry_run:
        try:
            write_output(output, render("judge", "json", run).encode("utf-8"))
        except AtomicWriteError as exc:
            raise SkillsiftError(f"--output: {exc.message}", hint=exc.hint) from None
    click.echo(render("judge", fmt, run), nl=False)
    return 0
