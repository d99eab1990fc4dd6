"""``skillsift mine``: turn the query log into labelled cases to review."""

from __future__ import annotations

import click

from ._common import config_option, root_option

NONE_LABELLED = "# no query could be labelled\n"
HEADER = ("Cases mined from the search query log by 'skillsift mine'.\n"
          "Each query is labelled with the skill its session loaded next: review before gating.")


@click.command("mine")
@root_option
@config_option
@click.option("--min-count", type=int, default=1, show_default=True,
              help="Times the top label must have been seen for a query to become a case.")
@click.option("--output", default=None, type=click.Path(dir_okay=False, path_type=str),
              help="Write the cases YAML here instead of standard output.")
@click.option("--purge", is_flag=True, help="Delete the query log after reading it.")
def mine_command(root, config_file, min_count, output, purge):
    """Label the logged queries with the skills loaded after them; print a cases file.

    The log (.skillsift/local/search-queries.jsonl) is written by 'skillsift mcp' when
    [search] log_queries = true is set in the user config or SKILLSIFT_LOG_QUERIES=1.

    \b
    Exit codes: 0 mined (also when nothing could be labelled); 1 bad usage or config.
    """
    from ..diagnostics import SkillsiftError
    from ..evaluate.cases_yaml import cases_to_yaml
    from ..evaluate.querylog import log_path, mine, purge_log, read_log_counted
    from ._common import load_project

    if min_count < 1:
        raise SkillsiftError("--min-count must be at least 1", hint="--min-count 2 keeps labels seen twice or more")
    config, catalog = load_project(root, config_file)
    path = log_path(config)
    entries, bad = read_log_counted(path)
    if bad:
        click.echo(f"note: skipped {bad} line{'s' if bad != 1 else ''} of {path} that "
                   f"{'are' if bad != 1 else 'is'} not a JSON event", err=True)
    if not entries:
        click.echo(f"note: the query log {path} is empty or missing; 'skillsift mcp' writes it when "
                   "[search] log_queries = true is set in the user config or SKILLSIFT_LOG_QUERIES=1", err=True)
    result = mine(entries, catalog.names, min_count)
    text = cases_to_yaml(result.cases, header=HEADER) if result.cases else NONE_LABELLED
    if output:
        from ..index.atomic import write_atomic

        write_atomic(output, text.encode("utf-8"))
    else:
        click.echo(text, nl=False)
    click.echo(result.stats_line(), err=True)
    if purge and purge_log(path):
        click.echo(f"purged {path}", err=True)
    return 0
