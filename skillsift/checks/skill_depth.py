"""SK323: a skill nested two folders (or more) below its skills root (``.claude/skills/group/x/SKILL.md``).

Claude Code loads the skills one folder below a skills root (``.claude/skills/<name>/SKILL.md``) and
does not look into category folders: a skill at ``.claude/skills/frontend/code-review/SKILL.md`` is
"Unknown skill" (anthropics/claude-code#20979 and #39138, the same layout reported against
vercel-labs/agent-skills#122); Codex scans category folders (its documentation, and #20979).  So
the check reports such a skill in an agent's folder unless Codex is the only agent targeted
(``[validate] agents``).  A folder given in ``[catalog] skills`` is a library laid out on purpose
(a catalog an installer copies into place, such as a component library of category folders) and is
not reported.  skillsift itself reads category folders as Codex does, to check every skill it can find.
"""

from __future__ import annotations

from ..catalog.agents import layout_of
from ..config.checks import check
from ..diagnostics import WARNING, Diagnostic
from ..validators.workspace import Workspace

TOO_DEEP = check("SK323", "skill-nested-too-deep", WARNING, triggers=("skill", "config"),
                 summary="each skill sits one folder below its skills root (<root>/<name>/SKILL.md)",
                 details="A SKILL.md two or more folders below an agent's skills root "
                         "(``.claude/skills/frontend/code-review/SKILL.md``, ``skills/group/x/SKILL.md``): Claude "
                         "Code lists only the skills one folder below a root and never loads this one "
                         "(anthropics/claude-code#20979, #39138); Codex reads category folders, so it is not "
                         "reported when Codex is the only agent in ``[validate] agents``, nor under a folder of "
                         "``[catalog] skills`` (a library laid out on purpose). Move the folder up one level, or give "
                         "each group its own plugin.")
#: Agents that read category folders below a skills root
#: (docs/checks-skills.md, "SK205, SK307, SK321-SK324 — the peers' checks").
READS_CATEGORIES = frozenset({"codex"})


def depth_problems(paths, roots) -> list[Diagnostic]:
    """SK323 of the SKILL.md ``paths`` (relative, ``/``) found under the skills ``roots`` (relative, ``/``)."""
    ordered = sorted((r for r in roots if r not in ("", ".")), key=len, reverse=True)
    out: list[Diagnostic] = []
    for rel in paths:
        root = next((r for r in ordered if rel.startswith(r + "/")), None)
        if root is None or not layout_of(rel)[0]:
            continue  # a configured [catalog] path is a library the user laid out, not a folder an agent loads
        between = rel[len(root) + 1:].split("/")[:-1]  # the folders from the root to the SKILL.md
        if len(between) < 2:
            continue
        out.append(TOO_DEEP.report(
            file=rel, line=1,
            message=f"this skill is {len(between)} folders below the skills root {root}/ ({'/'.join(between)}/); "
                    "Claude Code loads only the skills one folder below a root, so it never lists this one",
            hint=f"move it to {root}/{between[-1]}/ (or give the group {between[0]}/ its own plugin)"))
    return out


def run(ws: Workspace) -> list[Diagnostic]:
    return run_paths(ws, ws.skill_paths)


def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
    if ws.config is None or set(ws.settings.agents) <= READS_CATEGORIES:
        return []
    skills = [rel for rel in paths if rel.rsplit("/", 1)[-1] == "SKILL.md"]
    return depth_problems(skills, ws.discovery.roots)
