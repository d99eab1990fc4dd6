"""Why a search ranked lexically instead of with vectors: the degraded reason and its notes.

A reason comes from the index (``no_index``) or from the embedding side: any
:class:`~skillsift.embed.base.EmbedError` carries its own ``reason`` (``provider_unavailable``,
``timeout``, ``budget``, ``network_disabled``, or one a provider or gate adds), a message and
a hint.  :meth:`Degraded.of` turns such an error into what a search reports, so a new reason
needs no change here.  The lines a door prints for each reason live with the door.
"""

from __future__ import annotations

from ..records import record

NO_INDEX = "no_index"
PROVIDER_UNAVAILABLE = "provider_unavailable"


@record(frozen=True)
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
