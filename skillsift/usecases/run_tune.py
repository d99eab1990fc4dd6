"""One ``skillsift tune`` run: the request in, the ``tune.v1`` document out (docs/evaluation.md).

:func:`run_tune` opens the project, reads the cases, makes the embedding provider, scores
every setting (:func:`skillsift.evaluate.tune_run.run`) and, with ``--write``, writes the
chosen keys into the project config.  It prints nothing: what a person should see on the way
goes to ``notify`` as :class:`~skillsift.usecases.project.Message` data in the order it
happens, and the progress of the embedding to the ``progress_factory`` the door passes (a
bar on a terminal).  A problem that stops the run raises SkillsiftError (exit 1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config.tomledit import set_table_keys
from ..diagnostics import SkillsiftError
from ..embed.base import EmbedError
from ..embed.factory import make_provider
from ..evaluate.cases import check_k, load_checked
from ..evaluate.tune_run import document, run
from ..index.atomic import current_mode, write_atomic
from ..ranker.setup import attach
from ..render.index import withheld_line
from ..render.views import view_words
from .judge_run import agent_labels
from .project import Message, open_project


@dataclass(frozen=True)
class TuneRequest:
    """The flags of one ``skillsift tune`` run (see the command's help)."""

    cases: str
    root: str = "."
    config_file: str | None = None
    folds: int = 5
    k: int = 0
    write: bool = False
    allow_exec: bool = False
    agent: str | None = None
    view: str = "full"
    context_window: int | None = None
    judge: bool = False  # label each case with the agent's cached choice (docs/judge.md)
    force: bool = False  # --write rewrites a read-only config too (its mode kept)


def run_tune(request: TuneRequest, notify: Callable[[Message], None],
             progress_factory: Callable[[int], Any] | None = None) -> dict:
    """Run ``request``; returns the ``tune.v1`` document (with ``view`` and ``wrote`` when they apply)."""

    check_k(request.k)
    if request.write:  # a read-only config is refused before the run, not after it

        current_mode(str(project_file(request.root, request.config_file)[0]), request.force)
    project = open_project(request.root, request.config_file, allow_exec=request.allow_exec, agent=request.agent,
                           view=request.view, context_window=request.context_window, agent_in_full=False)
    for message in project.messages:
        notify(message)
    config, view, catalog = project.config, project.view, project.catalog
    case_file = load_checked(request.cases, view.full.names, roles_configured=True,
                             resolve=lambda _r: list(view.full.names))
    if request.judge:  # the agent's own choices as labels (docs/judge.md, "Calibration that feeds back")

        before = len(case_file.cases)
        case_file, _judged = agent_labels(request.root, config, case_file)
        notify(Message("", f"tune --judge: {len(case_file.cases)} of {before} cases labelled by the agent's cached "
                           f"answers ({before - len(case_file.cases)} without a choice or an answer)"))
    if view.listing is not None:
        notify(Message("", f"view: {view_words(view.to_dict() or {})}"))
    if not catalog.skills:  # nothing is ranked: no setting can be scored
        where = f"the listing of {view.agent} serves no skill" if view.listing is not None else "no skill was found"
        raise SkillsiftError(f"nothing to tune: {where}",
                             hint=f"see 'skillsift list --agent {view.agent}' for why each skill is not listed"
                             if view.listing is not None else "check [catalog] skills in skillsift.toml")
    try:
        provider = make_provider(config, root=request.root)
    except EmbedError as exc:
        raise SkillsiftError(f"tune needs an embedding provider: {exc.message}",
                             hint=getattr(exc, "hint", "") or "pip install 'skillsift[embed]'") from None
    try:
        result = run(catalog, config, case_file, provider, index=_reusable_index(config, provider),
                     k=case_file.effective_k(request.k), folds=request.folds, progress_factory=progress_factory)
    except EmbedError as exc:
        raise SkillsiftError(f"tune could not embed: {exc.message}", hint=getattr(exc, "hint", "")) from None
    for item in result.withheld:  # as skillsift index warns: never sent, not used
        notify(Message("", withheld_line(item)))
    doc = document(result)
    if view.listing is not None:
        doc["view"] = view.to_dict()
    keys = chosen_keys(doc, result)
    if request.write and keys:
        doc["wrote"] = write_keys(request.root, request.config_file, keys, force=request.force)
    elif request.write:
        notify(Message("", "tune: nothing written, the current setting is kept"))
    return doc


def _reusable_index(config, provider):
    """The configured index when it can be read with ``provider`` (its vectors are reused), else None."""
    try:
        index, _problem, _p = attach(config, provider=provider)
    except Exception:  # noqa: BLE001 - an unusable index only means nothing is reused
        return None
    return index


def chosen_keys(doc: dict, result) -> dict:
    """The ``[search]`` keys to write: the winning setting's when it changes, and ``example_weight``."""
    keys: dict = {}
    if doc["change"]:
        keys.update(result.result.settings[result.result.winner].search_keys())
    weight = doc["example_weight"]
    if weight.get("change"):
        keys["example_weight"] = float(weight["winner"])
    return keys


def write_keys(root: str, config_file: str | None, keys: dict, *, force: bool = False) -> str:
    """Write ``keys`` into the project config's ``[search]`` table, every other line kept; returns the path."""

    path, table = project_file(root, config_file)
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    try:
        new = set_table_keys(text, table, keys)
    except ValueError as exc:
        raise SkillsiftError(f"tune --write cannot edit {path}: {exc}", hint="set the keys printed above by hand") \
            from None
    write_atomic(str(path), new.encode("utf-8"), force=force)
    return str(path)


def project_file(root: str, config_file: str | None) -> tuple[Path, str]:
    """The file ``--write`` edits and the table name in it."""
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
