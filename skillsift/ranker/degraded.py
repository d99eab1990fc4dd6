"""Why a search ranked lexically instead of with vectors: the degraded reason and its notes.

A reason comes from the index (``no_index``) or from the embedding side: any
:class:`~skillsift.embed.base.EmbedError` carries its own ``reason`` (``provider_unavailable``,
``timeout``, ``budget``, ``network_disabled``, or one a provider or gate adds), a message and
a hint.  :meth:`Degraded.of` turns such an error into what a search reports, so a new reason
needs no change here.  The lines a door prints for each reason live with the door.

The rows of the index a search could not use (refused by the loader or by the row check) are said
by :func:`refused_note`, here rather than with the index's loader (:mod:`skillsift.ranker.setup`) so
that a lexical search, which prints it too, loads none of the index, embedding or numpy modules.
"""

from __future__ import annotations

from dataclasses import dataclass

NO_INDEX = "no_index"
PROVIDER_UNAVAILABLE = "provider_unavailable"


@dataclass(frozen=True)
class Degraded:
    """A reason (``SearchResult.degraded``) and what failed and how to fix it (``notes``)."""

    reason: str
    notes: tuple[str, ...] = ()

    @classmethod
    def of(cls, problem: BaseException) -> Degraded:
        """The degraded search an embedding error (or any exception) causes: its reason, message and hint."""
        notes: tuple[str, ...] = (getattr(problem, "message", str(problem)),)
        hint = getattr(problem, "hint", "")
        if hint:
            notes += (f"hint: {hint}",)
        return cls(getattr(problem, "reason", PROVIDER_UNAVAILABLE), notes)


def refused_note(refused) -> str:
    """The warning a door prints for rows the loader refused ("" when none)."""
    if not refused:
        return ""
    from ..index.store import LoadResult, refused_phrase  # rows were refused: the index is loaded already

    n = len(refused)
    summary = LoadResult(None, refused=tuple(refused)).refused_summary()
    return (f"warning: {refused_phrase(n).replace(' row', ' row of the search index', 1)} not used "
            f"({summary}): a skill without its row ranks by words only (or by a vector embedded for this run), a "
            "known request without its row is not used; rebuild it with 'skillsift index' and review who changed "
            "the index")


def refused_json(refused) -> list[dict]:
    return [r.to_json() for r in refused]
