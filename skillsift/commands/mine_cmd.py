"""``skillsift mine``: turn the query log into labelled cases to review."""

from __future__ import annotations

import click

from ..diagnostics import SkillsiftError
from ..render.sanitise import plain as safe_text
from ..render.sanitise import plain_lines as safe_lines
from ._common import config_option, force_option, open_project, root_option

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
    from ..evaluate.cases_yaml import cases_to_yaml
    from ..evaluate.querylog import log_path, mine, purge_log

    _check_flags(min_count, into, output, max_per_skill)
    project = open_project(root, config_file)
    config, catalog = project.config, project.catalog
    path = log_path(config)
    entries = _read_log(path)
    result = mine(entries, catalog.names, min_count)
    for flag, target in (("--into", into), ("--output", output)):
        if target:
            _refuse_link_out(flag, target, config.root)
    if into:
        _merge_into(into, result.cases, config, max_per_skill, force)
        click.echo(result.stats_line(), err=True)
        if purge and purge_log(path):
            click.echo(f"purged {path}", err=True)
        return 0
    text = cases_to_yaml(result.cases, header=HEADER) if result.cases else NONE_LABELLED
    if output:
        from ..index.atomic import write_atomic

        write_atomic(output, text.encode("utf-8"), force=force)
    else:
        # YAML written by cases_to_yaml: risky characters only as escapes; the terminal sanitiser still guards
        click.echo(plain_lines(text), nl=False)
    click.echo(result.stats_line(), err=True)
    if purge and purge_log(path):
        click.echo(f"purged {path}", err=True)
    return 0


def _check_flags(min_count: int, into, output, max_per_skill: int) -> None:
    """Exit 1 on flags that do not go together or out of range (before anything is read)."""
    if min_count < 1:
        raise SkillsiftError("--min-count must be at least 1", hint="--min-count 2 keeps labels seen twice or more")
    if into and output:
        raise SkillsiftError("--into and --output cannot be used together",
                             hint="--output writes a new cases file; --into merges into an examples file")
    if max_per_skill < 1:
        raise SkillsiftError("--max-per-skill must be at least 1")


def _read_log(path) -> list:
    """The query log's events; lines that are not events, and an empty or missing log, are said on stderr."""
    from ..evaluate.querylog import read_log_counted

    entries, bad = read_log_counted(path)
    if bad:
        click.echo(f"note: skipped {bad} line{'s' if bad != 1 else ''} of {path} that "
                   f"{'are' if bad != 1 else 'is'} not a JSON event", err=True)
    if not entries:
        click.echo(f"note: the query log {path} is empty or missing; 'skillsift mcp' writes it when "
                   "[search] log_queries = true is set in the user config or SKILLSIFT_LOG_QUERIES=1", err=True)
    return entries


def _refuse_link_out(flag: str, target: str, root: str) -> None:
    """Exit 1 when a file of the repository that ``mine`` would write is a link (or under a linked folder)
    leading outside the repository or into ``.git/`` (docs/bounded-input.md, "Files a repository holds")."""
    from ..files import refused_target

    real = refused_target(target, root)
    if real is not None:
        raise SkillsiftError(f"{flag} {target}: links take it outside the repository or into .git/ (to {real}); "
                             "nothing was written", hint="replace the link with a file or folder of the repository")


def plain(text: str) -> str:
    return safe_text(text)


def plain_lines(text: str) -> str:
    return safe_lines(text)


def _merge_into(into: str, cases, config, cap: int, force: bool) -> None:
    import os

    from ..evaluate.cases import parse_cases, read_bounded
    from ..evaluate.mine_into import merge_into
    from ..index.atomic import write_atomic
    from ..secrets.scan import detect_secret

    existing = None
    if os.path.lexists(into):
        if os.path.islink(into):
            raise SkillsiftError(f"--into {into}: not a regular file", hint="Name an examples file (YAML)")
        raw = read_bounded(into, "examples", hint="Name an examples file (YAML)")  # the one bounded reader
        try:
            existing = raw.decode("utf-8")
        except UnicodeDecodeError:
            parse_cases(raw, into, "examples")  # AR9D2, naming the line that is not UTF-8
            raise
    patterns = tuple(config.secret_patterns)
    merged = merge_into(existing, cases, cap=cap, scan=lambda text: detect_secret(text, patterns), path=into)
    if merged.text is not None:
        write_atomic(into, merged.text.encode("utf-8"), force=force)
    for note in merged.notes(into, cap):
        click.echo(plain(f"note: {note}"), err=True)
