"""``skillsift tune``: choose the hybrid setting of this repository from its own cases."""

from __future__ import annotations

import click

from ..render.registry import names, render
from ..usecases.run_tune import TuneRequest, run_tune
from ._common import config_option, context_window_option, force_option, print_message, root_option, view_option

PROGRESS_MIN_TEXTS = 256  # a progress bar is drawn on a terminal for more texts than this


def _progress_factory(fmt: str):
    import sys

    stream = sys.stderr

    def make(total: int):
        if total <= PROGRESS_MIN_TEXTS or not (hasattr(stream, "isatty") and stream.isatty()):
            return None
        bar = click.progressbar(length=total, label="embedding", file=stream)
        bar.__enter__()
        _bars.append(bar)
        return bar.update

    return make


_bars: list = []


def _close_bars() -> None:
    while _bars:
        _bars.pop().__exit__(None, None, None)


@click.command("tune")
@click.argument("cases", type=click.Path(exists=True, dir_okay=False, path_type=str))
@root_option
@config_option
@click.option("--folds", type=click.IntRange(2, 20), default=5, show_default=True,
              help="Number of cross-validation folds (fixed, seeded).")
@click.option("--k", "k_override", type=int, default=0, help="Cut-off of hit@k (0 = the file's k, else 5).")
@click.option("--write", is_flag=True,
              help="Write the chosen [search] keys into the project config (only when the change is "
                   "significant; every other line of the file is kept).")
@click.option("--format", "fmt", type=click.Choice(names("tune")), default="text", show_default=True)
@click.option("--allow-exec", is_flag=True, help="Let the repository config's embedding command run.")
@click.option("--agent", default=None, metavar="NAME",
              help="Listing view: the agent whose listing is ranked (default: the first of [validate] agents).")
@click.option("--judge", "judge", is_flag=True,
              help="Label each case with the agent's cached choice instead of its expect (docs/judge.md; for a "
                   "repository with few cases; off by default, nothing is asked).")
@view_option
@context_window_option
@force_option
def tune_command(cases, root, config_file, folds, k_override, write, fmt, allow_exec, agent, view_name,
                 context_window, judge, force):
    """Choose fusion, lexical weight, embedded fields, candidates and example_weight from CASES.

    Every setting is scored on the positive cases of CASES; k-fold cross-validation with
    fixed folds measures what choosing by these cases gives on cases it did not see. The
    current setting is kept unless that cross-validated MRR gain has a 95% interval
    above 0. With known requests (hybrid or vector mode), example_weight is chosen
    the same way; a case is never scored with its own request as evidence. Embeds
    the catalog (once per embedded-field variant), the queries and the known requests
    with the configured provider: no network unless the config allows it.

    \b
    Exit codes: 0 done; 1 could not run (bad cases file or config, no embedding
    provider, a provider error, a config file --write cannot edit).
    """
    request = TuneRequest(cases=cases, root=root, config_file=config_file, folds=folds, k=k_override, write=write,
                          allow_exec=allow_exec, agent=agent, view=view_name, context_window=context_window,
                          judge=judge, force=force)

    def notify(message) -> None:
        _close_bars()  # the embedding is over: its bar ends before the next line
        print_message(message)

    try:
        doc = run_tune(request, notify=notify, progress_factory=_progress_factory(fmt))
    finally:
        _close_bars()
    click.echo(render("tune", fmt, doc), nl=False)
    return 0
