"""``skillsift search``: what an agent would get for a request."""

from __future__ import annotations

import shutil
import sys

import click

from ..config.values import MODES
from ..render.registry import names, render
from ..usecases.run_search import SearchRequest, run_search
from ._common import (
    agent_option,
    config_option,
    context_window_option,
    print_message,
    root_option,
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
    outcome = run_search(SearchRequest(
        query=" ".join(query), limit=limit, mode=mode, explain=explain, role=role, domain=domain, tags=tags,
        allow=allow, deny=deny, allow_exec=allow_exec, agent=agent, view=view_name, context_window=context_window,
        root=root, config_file=config_file), notify=print_message)
    if width is None:  # a terminal: its width; piped (| cat, a CI log): whole descriptions
        width = shutil.get_terminal_size((80, 24)).columns if sys.stdout.isatty() else 0
    click.echo(render("search", fmt, outcome.result, width=width, explain=explain, min_sim=outcome.min_sim,
                      view=outcome.view, sources=outcome.sources, index=outcome.index or None,
                      examples_problem=outcome.examples_problem), nl=False)
    return 0
