"""SK021: a file of a skill's folder that is a symbolic link leaving the folder, or dangling.

A skill is installed as its folder alone and read by agents file by file.  A link inside it
(``scripts/run.sh -> ../../../.env``, ``notes.md -> /etc/passwd``, ``ref.md -> ../other/ref.md``)
either breaks where the skill is installed, points at a file the repository does not hold (a
link to an ignored ``.env`` dangles on a CI checkout) or hands an agent a file from elsewhere.
Every such link is a finding, never a silent skip (docs/checks-skills.md, "SK021 — a skill file
that is a link").  A link whose target is a file or folder inside the same skill folder is
fine.  The SKILL.md itself is SK020's (skillsift/catalog/discovery.py).

The links come from the workspace's one walk of the folder
(:meth:`~skillsift.validators.workspace.Workspace.skill_folder_links`: links not followed, the same
skipped names and bounds as the folder's files).
"""

from __future__ import annotations

import os

from ..config.checks import check
from ..diagnostics import ERROR, Diagnostic
from ..validators.workspace import Workspace, posix_parent

LINK_OUT = check("SK021", "skill-file-link-out", ERROR, triggers=("skill", "skill-file"),
                 files="the files of a skill's folder",
                 summary="a file of a skill's folder that is a link resolves inside that folder (not dangling, not "
                         "outside)")
CODE = LINK_OUT.code


def _inside(real: str, folder: str) -> bool:
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


def link_problem(path: str, folder_real: str, root_real: str) -> str | None:
    """Why the link at ``path`` (in the skill folder whose real path is ``folder_real``) is a finding, else None."""
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    name = os.path.basename(path)
    real = os.path.realpath(path)
    if not os.path.exists(real):
        return f"{name} is a symbolic link (to {target}) to nothing (it dangles)"
    if _inside(real, folder_real):
        return None
    if not _inside(real, root_real):
        return f"{name} is a symbolic link (to {target}) to a file outside the repository"
    rel = os.path.relpath(real, root_real).replace(os.sep, "/")
    if ".git" in rel.split("/"):
        return f"{name} is a symbolic link (to {target}) into .git/"
    return f"{name} is a symbolic link (to {target}) that leaves the skill's folder (to {rel})"


def folder_links(ws: Workspace, skill_rel: str) -> list[tuple[str, str]]:
    """``(link, problem)`` for every link of the folder of SKILL.md ``skill_rel`` that is a finding, bounded."""
    links = ws.skill_folder_links(skill_rel)
    if not links:  # most folders hold none: no real path is taken
        return []
    root_real = os.path.realpath(ws.root)
    folder_real = os.path.realpath(ws.abspath(posix_parent(skill_rel)))
    out = []
    for link in links:
        problem = link_problem(ws.abspath(link), folder_real, root_real)
        if problem:
            out.append((link, problem))
    return out


def _diagnostics(ws: Workspace, skill_rel: str) -> list[Diagnostic]:
    return [LINK_OUT.report(
        file=link, message=f"{problem}; a skill is installed as its folder alone, so it is not part of the skill",
        hint=f"replace the link {link} with the file itself (git rm it, add the file), or remove it")
            for link, problem in folder_links(ws, skill_rel)]


def run(ws: Workspace) -> list[Diagnostic]:
    return run_paths(ws, ws.skill_paths)


def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
    # a file of a skill's folder stands for its skill (the runner keeps the findings on the given paths)
    skills = sorted({p if p.endswith("SKILL.md") else (ws.skill_of(p) or "") for p in paths} - {""})
    served = set(ws.skill_paths)
    out: list[Diagnostic] = []
    for skill in skills:
        if skill in served:
            out.extend(_diagnostics(ws, skill))
    return out
