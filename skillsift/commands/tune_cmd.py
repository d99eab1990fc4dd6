"""``skillsift tune``: choose the hybrid setting of this repository from its own cases."""

from __future__ import annotations

from pathlib import Path

import click

from ..render.registry import names
from ._common import config_option, context_window_option, force_option, root_option, view_option

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


def _project_file(root: str, config_file: str | None) -> tuple[Path, str]:
    """The file ``--write`` edits and the table name in it."""
    from ..diagnostics import SkillsiftError

    if config_file:
        path = Path(config_file)
        return path, "tool.skillsift.search" if path.name == "pyproject.toml" else "search"
    base = Path(root)
    own = base / "skillsift.toml"
    if own.is_file():
        return own, "search"
    py = base / "pyproject.toml"
    if py.is_file() and "tool.skillsift" in py.read_text(encoding="utf-8", errors="replace"):
        return py, "tool.skillsift.search"
    if (base / ".ai-rulez" / "config.toml").is_file():
        raise SkillsiftError("tune --write edits skillsift.toml or [tool.skillsift] in pyproject.toml; this "
                             "repository is configured by .ai-rulez/config.toml",
                             hint="create skillsift.toml (it takes precedence) or pass --config FILE")
    return own, "search"


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
    from ..config.tomledit import set_table_keys
    from ..diagnostics import SkillsiftError
    from ..embed.base import EmbedError
    from ..embed.factory import make_provider
    from ..evaluate.cases import check_k, load_checked
    from ..evaluate.tune_run import document, run
    from ..index.atomic import current_mode, write_atomic
    from ._common import open_project, say

    check_k(k_override)
    if write:  # a read-only config is refused before the run, not after it
        current_mode(str(_project_file(root, config_file)[0]), force)
    project = open_project(root, config_file, allow_exec=allow_exec, agent=agent, view=view_name,
                           context_window=context_window, agent_in_full=False)
    config, view, catalog = project.config, project.view, project.catalog
    case_file = load_checked(cases, view.full.names, roles_configured=True, resolve=lambda _r: list(view.full.names))
    if judge:  # the agent's own choices as labels (docs/judge.md, "Calibration that feeds back")
        from ..judge.session import agent_labels

        before = len(case_file.cases)
        case_file, _judged = agent_labels(root, config, case_file)
        say(f"tune --judge: {len(case_file.cases)} of {before} cases labelled by the agent's cached answers "
            f"({before - len(case_file.cases)} without a choice or an answer)")
    if view.listing is not None:
        from ..render.views import view_words

        say(f"view: {view_words(view.to_dict() or {})}")
    if not catalog.skills:  # nothing is ranked: no setting can be scored
        where = f"the listing of {view.agent} serves no skill" if view.listing is not None else "no skill was found"
        raise SkillsiftError(f"nothing to tune: {where}",
                             hint=f"see 'skillsift list --agent {view.agent}' for why each skill is not listed"
                             if view.listing is not None else "check [catalog] skills in skillsift.toml")
    try:
        provider = make_provider(config, root=root)
    except EmbedError as exc:
        raise SkillsiftError(f"tune needs an embedding provider: {exc.message}",
                             hint=getattr(exc, "hint", "") or "pip install 'skillsift[embed]'") from None
    index = None
    try:
        from ..ranker.setup import attach

        index, _problem, _p = attach(config, provider=provider)
    except Exception:  # noqa: BLE001 - an unusable index only means nothing is reused
        index = None
    try:
        result = run(catalog, config, case_file, provider, index=index, k=case_file.effective_k(k_override),
                     folds=folds, progress_factory=_progress_factory(fmt))
    except EmbedError as exc:
        raise SkillsiftError(f"tune could not embed: {exc.message}", hint=getattr(exc, "hint", "")) from None
    finally:
        while _bars:
            _bars.pop().__exit__(None, None, None)
    from ..render.index import withheld_line

    for item in result.withheld:  # as skillsift index warns: never sent, not used
        say(withheld_line(item))
    doc = document(result)
    if view.listing is not None:
        doc["view"] = view.to_dict()
    keys: dict = {}
    if doc["change"]:
        keys.update(result.result.settings[result.result.winner].search_keys())
    weight = doc["example_weight"]
    if weight.get("change"):
        keys["example_weight"] = float(weight["winner"])
    if write and keys:
        path, table = _project_file(root, config_file)
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        try:
            new = set_table_keys(text, table, keys)
        except ValueError as exc:
            raise SkillsiftError(f"tune --write cannot edit {path}: {exc}",
                                 hint="set the keys printed above by hand") from None
        write_atomic(str(path), new.encode("utf-8"), force=force)
        doc["wrote"] = str(path)
    elif write:
        say("tune: nothing written, the current setting is kept")
    from ..render.registry import render

    click.echo(render("tune", fmt, doc), nl=False)
    return 0
