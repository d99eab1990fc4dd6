"""``skillsift search``: what an agent would get for a request."""

from __future__ import annotations

import shutil
import sys

import click

from ..config.values import MODES
from ..diagnostics import SkillsiftError
from ..render.registry import names, render
from ._common import (
    agent_option,
    config_option,
    context_window_option,
    open_project,
    root_option,
    say,
    view_option,
)


@click.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 20), help="Number of hits (1-20).")
@click.option("--mode", type=click.Choice(list(MODES)), default=None,
              help="Ranking mode (default: config, else SKILLSIFT_SEARCH_MODE, else lexical).")
@click.option("--format", "fmt", type=click.Choice(names("search")), default="text", show_default=True)
@click.option("--explain", is_flag=True, help="Show per hit the BM25F breakdown and the lexical/vector ranks.")
@click.option("--width", type=click.IntRange(0, 10_000), default=None, metavar="COLUMNS",
              help="Cut text lines to COLUMNS (0: never cut). Default: the terminal's width; piped, never cut.")
@click.option("--role", default=None, help="Rank only the skills of this role ([roles.<name>] in config).")
@click.option("--domain", default=None, help="Rank only the skills of this domain ('root' = no domain).")
@click.option("--tag", "tags", multiple=True, help="Rank only skills carrying this tag (repeatable: all must match).")
@click.option("--allow", multiple=True, help="Glob on skill names to admit (repeatable).")
@click.option("--deny", multiple=True, help="Glob on skill names to exclude (repeatable; deny wins).")
@click.option("--allow-exec", is_flag=True,
              help="Let a command embedding provider named in the repository config run.")
@agent_option
@view_option
@context_window_option
@root_option
@config_option
def search(query, limit, mode, fmt, explain, width, role, domain, tags, allow, deny, allow_exec, agent, view_name,
           context_window, root, config_file):
    """Rank the skills for QUERY (all arguments joined with one space).

    \b
    Exit codes: 0 ranked (also when nothing matches); 1 bad usage or config.
    """
    from ..render.search import degraded_line

    text = " ".join(query)
    if not text.strip():
        raise SkillsiftError("search needs a query", hint='skillsift search "deploy to staging"')
    from ..ranker.view_vectors import open_view_ranker

    project = open_project(root, config_file, mode=mode, allow_exec=allow_exec, agent=agent, view=view_name,
                           context_window=context_window)
    config, view = project.config, project.view
    if view.listing is not None:
        from ..render.views import view_words

        say(f"view: {view_words(view.to_dict() or {})}")
    ranker = open_view_ranker(view, config, one_shot=True, embed_stale=True)
    index_doc = _index_notes(ranker, project.mode)
    # the ranker ranks in the project's mode (config.search.mode, where --mode was folded in)
    result = ranker.search(text, limit=limit, role=role, domain=domain, tags=tags, allow=allow, deny=deny,
                           explain=explain)
    if result.degraded:
        say(degraded_line(result.degraded))
        for note in result.notes:
            say(note, "  ")
    if width is None:  # a terminal: its width; piped (| cat, a CI log): whole descriptions
        width = shutil.get_terminal_size((80, 24)).columns if sys.stdout.isatty() else 0
    shown = view.to_dict() if view.listing is not None else None
    click.echo(render("search", fmt, result, width=width, explain=explain, min_sim=config.search.vector_min_sim,
                      view=shown, sources=project.sources, index=index_doc or None,
                      examples_problem=ranker.examples_problem), nl=False)
    return 0


def _index_notes(ranker, mode: str) -> dict:
    """Say what the ranker could not use (the index, refused rows, a bad examples file, refreshed vectors);
    return the ``index`` object of the JSON report (empty when there is nothing to say)."""
    from ..ranker.setup import refused_json, refused_note

    index_doc: dict = {}
    if ranker.index_problem and mode != "lexical":
        say(ranker.index_problem, "note: ")
        index_doc["problem"] = ranker.index_problem
    if ranker.index_refused:
        say(refused_note(ranker.index_refused))
        index_doc["refused"] = refused_json(ranker.index_refused)
    if ranker.examples_problem:  # an invalid examples file is left out, never used silently
        say(ranker.examples_problem, "note: ")
    for line in ranker.refresh.notes() if ranker.refresh is not None else ():
        say(line)
    return index_doc
