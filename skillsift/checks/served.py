"""SK012 and SK013: what discovery could not serve, and a repository where it found nothing.

* SK012 (note) a skill that is not served although it sits in the repository: a skills
  folder, skill folder or SKILL.md that is a symlink to outside the repository (never
  followed), a skills root over the agents' folder limit, or a SKILL.md outside every
  folder skillsift and the agents read;
* SK020 (error) a SKILL.md that is a symbolic link to nothing, to a file outside its own
  skill folder (another skill's SKILL.md, ``.env``) or to a file under ``.git``: it is
  never read, by any command or the MCP server;
* SK013 (warning) no skill was found at all; the message lists the folders searched, so a
  green run can never mean "nothing was checked".  The hooks fail on it.
"""

from __future__ import annotations

from ..catalog.discovery import layouts_searched, refused_findings
from ..config.checks import check
from ..diagnostics import ERROR, NOTE, WARNING, Diagnostic
from ..validators.workspace import Workspace

NOT_SERVED = check("SK012", "skill-not-served", NOTE, scope="repo", triggers=("skill", "config"),
                   files="SKILL.md, skills folders",
                   summary="no skill in the repository is left unserved (a symlink to outside, a folder limit, a stray "
                           "SKILL.md)")
NOTHING = check("SK013", "no-skill-found", WARNING, scope="repo", triggers=("any",), files="the skills folders",
                summary="at least one skill is found (the message lists the folders searched); the hooks fail on it")
LINK = check("SK020", "skill-file-link", ERROR, scope="repo",
             summary="a SKILL.md that is a link resolves to a file inside its own skill folder, not under .git (never "
                     "read)")


def refused_links(discovery) -> list[Diagnostic]:
    """SK020: a SKILL.md that is a link to nothing, to outside its own skill folder or under .git."""

    return refused_findings(discovery)


def not_served(discovery) -> list[Diagnostic]:
    out = [NOT_SERVED.report(file=rel, message=message,
                             hint="copy the skill into the repository, or point [catalog] skills at a folder inside it")
           for rel, message in discovery.notes]
    by_root: dict[str, list[str]] = {}
    for rel in discovery.stray:  # one finding per folder holding them (one cause, one finding)
        by_root.setdefault(_skills_root(rel), []).append(rel)
    for root, rels in by_root.items():
        if len(rels) == 1:
            out.append(NOT_SERVED.report(
                file=rels[0],
                message=f"{rels[0]} is outside every folder skillsift and the agents read; it is not served",
                hint="move the skill folder under .agents/skills, .claude/skills or skills (README, "
                     "\"Where skills are found\"), or list it in [catalog] skills"))
            continue
        shown = ", ".join(rels[:5]) + (f" and {len(rels) - 5} more" if len(rels) > 5 else "")
        out.append(NOT_SERVED.report(
            file=rels[0],
            message=f"{len(rels)} SKILL.md under {root} are outside every folder skillsift and the agents read; "
                    f"they are not served: {shown}",
            hint=f'to serve them, set `[catalog] skills = ["{root}"]` in skillsift.toml, or move the folders under '
                 ".agents/skills, .claude/skills or skills (README, \"Where skills are found\")"))
    return out


def nothing_found(discovery, patterns=()) -> list[Diagnostic]:
    if discovery.found:
        return []

    where = ", ".join(layouts_searched(patterns))
    stray = f"; SKILL.md found outside them: {', '.join(discovery.stray[:5])}" if discovery.stray else ""
    hint = ("put each skill in <folder>/<name>/SKILL.md under one of those folders, or set [catalog] skills "
            "in skillsift.toml")
    if discovery.stray:
        roots = sorted({_skills_root(rel) for rel in discovery.stray})
        listed = ", ".join(f'"{r}"' for r in roots[:5])
        hint = f"to serve them, set `[catalog] skills = [{listed}]` in skillsift.toml; or " + hint
    dots = getattr(discovery, "dot_skipped", ())
    if dots:
        more = f" and {len(dots) - 5} more" if len(dots) > 5 else ""
        stray += (f"; SKILL.md skipped in dot folders (the agents skip them too): {', '.join(dots[:5])}{more}")
        roots = sorted({_skills_root(rel) for rel in dots})
        listed = ", ".join(f'"{r}"' for r in roots[:5])
        hint = f"to check them, set `[catalog] skills = [{listed}]` in skillsift.toml; or " + hint
    return [NOTHING.report(

        message=f"no skill found, so nothing was checked (searched: {where}){stray}", hint=hint)]


def _skills_root(rel: str) -> str:
    """The folder holding a skipped skill's folder (what [catalog] skills would name)."""
    parts = rel.split("/")[:-1]  # the skill's folder
    return "/".join(parts[:-1]) if len(parts) > 1 else parts[0]


def run(ws: Workspace) -> list[Diagnostic]:
    if ws.config is None:
        return []
    return refused_links(ws.discovery) + not_served(ws.discovery) + nothing_found(ws.discovery, tuple(ws.config.skills))
