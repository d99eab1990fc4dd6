"""``skillsift search``: what an agent would get for a request.

The console script runs the common calls without click (search_run.py, :func:`~.search_run.main`); click
parses the others here, and both run :func:`~.search_run.run`.
"""

from __future__ import annotations

import click

from ..config.values import MODES
from ..render.registry import names
from ._common import (
    agent_option,
    config_option,
    context_window_option,
    print_message,
    root_option,
    view_option,
)
from .search_run import run


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
    return run(query, limit, mode, fmt, explain, width, role, domain, tags, allow, deny, allow_exec, agent,
               view_name, context_window, root, config_file, echo=click.echo, notify=print_message)
