"""SK050-SK054: the skills of other repositories and folders (``[[sources]]``, docs/sources.md).

SK050-SK053 are found when the project's sources are attached (:mod:`skillsift.skill_sources.attach`):
a skill that differs from its lock digest or is not locked (refused), a lock that disagrees with the
config, a link inside a source (never followed), a locked source not in the cache. SK054 is a source
skill whose name the repository or an earlier source already serves (not served).
"""

from __future__ import annotations

from ..config.checks import check
from ..diagnostics import ERROR, WARNING, Diagnostic
from ..validators.workspace import Workspace

CHECKS = (  # declared here; the findings are made where the sources are attached, with Diagnostic(...)
    check("SK050", "source-skill-changed", ERROR, scope="repo", triggers=("any",), files="skillsift.lock",
          summary="a skill of a [[sources]] entry matches its digest in skillsift.lock; one that differs or is not "
                  "locked is refused"),
    check("SK051", "source-lock-stale", ERROR, scope="repo", triggers=("any",), files="skillsift.lock",
          summary="skillsift.lock records every [[sources]] entry as configured (run skillsift sources update)"),
    check("SK052", "source-link", WARNING, scope="repo", triggers=("any",), files="skillsift.lock",
          summary="a source holds no symbolic link or submodule (never followed)"),
    check("SK053", "source-not-fetched", WARNING, scope="repo", triggers=("any",), files="skillsift.lock",
          summary="every locked git source is in the cache (run skillsift sources fetch)"),
    check("SK054", "source-name-clash", WARNING, scope="repo", triggers=("any",), files="skillsift.lock",
          summary="a source skill's name is not already served by the repository or an earlier source"),
)


def run(ws: Workspace) -> list[Diagnostic]:
    if ws.config is None or not ws.config.skill_sources:
        return []
    return list(ws.config.source_findings) + list(ws.source_clashes)
