"""``skillsift mine``: turn the query log into labelled cases to review."""

from __future__ import annotations

import click

from ..render.sanitise import plain_lines
from ..usecases.run_mine import MineRequest, run_mine
from ._common import config_option, force_option, print_message, print_messages, root_option


@click.command("mine")
@root_option
@config_option
@click.option("--min-count", type=int, default=1, show_default=True,
              help="Times the top label must have been seen for a query to become a case.")
@click.option("--output", default=None, type=click.Path(dir_okay=False, path_type=str),
              help="Write the cases YAML here instead of standard output.")
@click.option("--into", "into", default=None, type=click.Path(dir_okay=False, path_type=str),
              help="Merge the new labelled requests into this examples file (created when missing).")
@click.option("--max-per-skill", type=int, default=20, show_default=True,
              help="With --into: at most this many requests per skill in the file.")
@click.option("--purge", is_flag=True, help="Delete the query log after reading it.")
@force_option
def mine_command(root, config_file, min_count, output, into, max_per_skill, purge, force):
    """Label the logged queries with the skills loaded after them; print a cases file.

    The log (.skillsift/local/search-queries.jsonl) is written by 'skillsift mcp' when
    [search] log_queries = true is set in the user config or SKILLSIFT_LOG_QUERIES=1.

    With --into FILE the labelled requests are merged into an examples file
    ([search] examples): duplicates, requests holding a secret and requests past a
    skill's cap are left out; nothing new leaves the file as it is.

    \b
    Exit codes: 0 mined (also when nothing could be labelled); 1 bad usage, config or examples file.
    """
    outcome = run_mine(MineRequest(root=root, config_file=config_file, min_count=min_count, output=output, into=into,
                                   max_per_skill=max_per_skill, purge=purge, force=force), notify=print_message)
    if outcome.text is not None:
        # YAML written by cases_to_yaml: risky characters only as escapes; the terminal sanitiser still guards
        click.echo(plain_lines(outcome.text), nl=False)
    print_messages(outcome.closing)
    return 0
