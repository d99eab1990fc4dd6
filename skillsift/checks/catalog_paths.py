"""SK003: a configured ``[catalog] skills`` path holds no SKILL.md."""

from __future__ import annotations

from ..config.checks import check
from ..diagnostics import WARNING, Diagnostic
from ..validators.workspace import Workspace

CODE = check("SK003", "skills-path-empty", WARNING, scope="repo", triggers=("config",), files="the config",
             summary="every configured [catalog] skills path holds a SKILL.md")


def empty_paths(patterns, found_for) -> list[str]:
    """The patterns for which ``found_for(pattern)`` finds nothing, in the configured order."""
    return [pattern for pattern in patterns if not found_for(pattern)]


def diagnostics(empty, *, file: str = "", line: int | None = None) -> list[Diagnostic]:
    return [
        CODE.report(file=file, line=line,
                   message=f'configured skills path "{pattern}" holds no SKILL.md',
                   hint="fix the path in [catalog] skills, relative to the repository root")
        for pattern in empty
    ]


def run(ws: Workspace) -> list[Diagnostic]:
    if ws.config is None or not ws.config.skills:
        return []

    # the workspace's one discovery of every pattern says which of them an agent finds nothing in
    # (each pattern counted on its own, within the agents' folder limit), so none is walked again
    unserved = set(ws.discovery.unserved)
    empty = empty_paths(ws.config.skills, lambda pattern: pattern not in unserved)
    return diagnostics(empty, file=ws.project_file, line=ws.key_line("catalog", "skills"))
