"""SK003: a configured ``[catalog] skills`` path holds no SKILL.md."""

from __future__ import annotations

from ..catalog.load import discover
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


def found_by_the_workspace(ws, pattern: str) -> bool | None:
    """Whether :func:`~skillsift.catalog.load.discover` finds a SKILL.md for ``pattern``, answered by the
    workspace's own discovery when it can tell (None when it cannot): a second walk of the root saved.

    That discovery read the configured patterns (and the sources' folders after them) past the
    agents' folder limit.  A pattern it found nothing for is empty for a walk that stops at the limit
    too (the same folders, in the same order, fewer of them).  When the config names one pattern and
    no source, what it found is that pattern's; a skill found before the limit (not ``beyond_cap``) is
    one the shorter walk finds as well.
    """
    found = ws.discovery
    if pattern in found.empty:
        return False
    if list(ws.config.skills) == [pattern] and not ws.config.source_folders and any(
            parts not in found.beyond_cap for parts, _domain in found.found):
        return True
    return None


def run(ws: Workspace) -> list[Diagnostic]:
    if ws.config is None or not ws.config.skills:
        return []

    def found_for(pattern: str) -> bool:
        known = found_by_the_workspace(ws, pattern)
        return bool(discover(ws.root, [pattern])) if known is None else known

    empty = empty_paths(ws.config.skills, found_for)
    return diagnostics(empty, file=ws.project_file, line=ws.key_line("catalog", "skills"))
