"""One ``skillsift search``: the request in, the outcome out (docs/ranking-quality.md).

:func:`run_search` opens the project, ranks the query in the project's mode and gathers
what the report shows beside the hits (the view, the index problem and refused rows, the
``--explain`` data).  It prints nothing: what a person should see on the way comes to
``notify`` as :class:`~skillsift.usecases.project.Message` data, in the order it happens,
and the door renders the :class:`SearchOutcome`.  A problem that stops the search raises
SkillsiftError (exit 1).
"""

from __future__ import annotations

from collections.abc import Callable

from ..catalog.listing import FULL_VIEW
from ..diagnostics import NOTE, SkillsiftError
from ..ranker.degraded import refused_json, refused_note
from ..ranker.view_index import open_view_ranker
from ..records import record
from ..render.search import degraded_line
from .project import Message, open_project

TYPE_CHECKING = False  # (mypy reads it as true; typing is not imported on the search path)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class SearchRequest:
    """The flags of one ``skillsift search`` (see the command's help)."""

    query: str
    limit: int = 5
    mode: str | None = None
    explain: bool = False
    role: str | None = None
    domain: str | None = None
    tags: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    allow_exec: bool = False
    agent: str | None = None
    view: str = FULL_VIEW
    context_window: int | None = None
    root: str = "."
    config_file: str | None = None


@record(frozen=True)
class SearchOutcome:
    """What the search found, and what the report shows beside it.

    ``view``: the listing view's description (None for the full view); ``index``: the
    ``index`` object of the JSON report (empty when there is nothing to say).
    """

    result: Any
    min_sim: float
    view: dict | None
    sources: dict[str, str]
    index: dict
    examples_problem: str = ""


def run_search(request: SearchRequest, notify: Callable[[Message], None]) -> SearchOutcome:
    """Rank ``request.query``; messages go to ``notify`` as they come."""
    if not request.query.strip():
        raise SkillsiftError("search needs a query", hint='skillsift search "deploy to staging"')
    project = open_project(request.root, request.config_file, mode=request.mode, allow_exec=request.allow_exec,
                           agent=request.agent, view=request.view, context_window=request.context_window)
    for message in project.messages:
        notify(message)
    config, view = project.config, project.view
    if view.listing is not None:
        from ..render.views import view_words

        notify(Message("", f"view: {view_words(view.to_dict() or {})}"))
    ranker = open_view_ranker(view, config, one_shot=True, embed_stale=True)
    index_doc = _index_notes(ranker, project.mode, notify)
    # the ranker ranks in the project's mode (config.search.mode, where --mode was folded in)
    # the rows of the hits handed out are re-embedded once per machine (docs/vector-index.md)
    result = ranker.checked_search(request.query, limit=request.limit, role=request.role, domain=request.domain,
                                   tags=request.tags, allow=request.allow, deny=request.deny, explain=request.explain)
    if ranker.rows_refused_now:  # rows that are not their text's, found by embedding them again
        notify(Message("", ranker.rows_refused_note))
        index_doc["refused"] = refused_json(ranker.index_refused)
    if result.degraded:
        notify(Message("", degraded_line(result.degraded)))
        for note in result.notes:
            notify(Message("", note, lead="  "))
    return SearchOutcome(result=result, min_sim=config.search.vector_min_sim,
                         view=view.to_dict() if view.listing is not None else None, sources=project.sources,
                         index=index_doc, examples_problem=ranker.examples_problem)


def _index_notes(ranker, mode: str, notify: Callable[[Message], None]) -> dict:
    """Say what the ranker could not use (the index, refused rows, a bad examples file, refreshed vectors);
    return the ``index`` object of the JSON report (empty when there is nothing to say)."""
    index_doc: dict = {}
    if ranker.index_problem and mode != "lexical":
        notify(Message(NOTE, ranker.index_problem))
        index_doc["problem"] = ranker.index_problem
    if ranker.index_refused:
        notify(Message("", refused_note(ranker.index_refused)))
        index_doc["refused"] = refused_json(ranker.index_refused)
    if ranker.examples_problem:  # an invalid examples file is left out, never used silently
        notify(Message(NOTE, ranker.examples_problem))
    for line in ranker.refresh.notes() if ranker.refresh is not None else ():
        notify(Message("", line))
    return index_doc
