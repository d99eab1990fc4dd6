"""SK050-SK054: the skills of other repositories and folders (``[[sources]]``, docs/sources.md).

SK050-SK053 are found when the project's sources are attached (:mod:`skillsift.skill_sources.attach`):
a skill that differs from its lock digest or is not locked (refused), a lock that disagrees with the
config, a link inside a source (never followed), a locked source not in the cache. SK054 is a source
skill whose name the repository or an earlier source already serves (not served).
"""

from __future__ import annotations

from ..diagnostics import Diagnostic
from .workspace import Workspace


def run(ws: Workspace) -> list[Diagnostic]:
    if ws.config is None or not ws.config.skill_sources:
        return []
    return list(ws.config.source_findings) + list(ws.source_clashes)
