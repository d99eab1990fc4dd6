"""The skill catalog: finding SKILL.md files and reading them into skills.

:mod:`.load` (the :class:`~.load.Catalog`, reading, parsing and scoping), :mod:`.skill`
(one skill), :mod:`.frontmatter` (the YAML block), :mod:`.discovery` (where skills are
looked for), :mod:`.agents` (each agent's profile), :mod:`.listing` (what an agent lists),
:mod:`.views` (the skills read as one view: every field, or an agent's listing) and
:mod:`.embedtext` (the text of a skill sent to an embedding provider).  Nothing is
imported here, so that importing one module does not import the others.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (mypy reads it as true; typing is not imported on the hooks' path)

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

#: Made around the reading of a catalog when set (:func:`skillsift.catalog.load.read_all_skills`):
#: the command line sets its garbage-collector pause here (:class:`skillsift.cli.CollectorPause`);
#: a library call leaves the host's collector alone.
collector_pause: Callable[[], Any] | None = None


def collector_paused():
    """The context of :data:`collector_pause` when the command line set one, else one that does nothing
    (what the callers that make many short-lived objects enter: the checks, the cases files' parse, the
    known requests' reading)."""
    if collector_pause is None:
        from contextlib import nullcontext

        return nullcontext()
    return collector_pause()
