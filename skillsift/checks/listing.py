"""SK011: an agent's skill listing is over its budget, so some skills lose their description.

For each targeted agent (``[validate] agents``) with a documented listing budget, the
listing is built as :mod:`skillsift.catalog.listing` does; when the entries need more characters
than the budget, one warning names the agent, the overflow and the skills that are listed
by name only.
"""

from __future__ import annotations

from ..catalog.agents import BY_NAME
from ..catalog.listing import NAME_ONLY, overflowing_listing
from ..config.checks import check
from ..diagnostics import WARNING, Diagnostic
from ..validators.workspace import Workspace

CODE = check("SK011", "listing-overflow", WARNING, scope="repo", triggers=("skill", "config"),
             files="SKILL.md, the config ([validate] agents)",
             summary="each agent's skill listing fits its budget, so no skill loses its description")
MAX_NAMED = 10


def overflow_diagnostics(skills, agents) -> list[Diagnostic]:
    out = []
    for name in agents:
        agent = BY_NAME.get(name)
        if agent is None:
            continue
        listing = overflowing_listing(skills, agent)
        if listing is None:
            continue
        lost = [e.name for e in listing.entries if e.listed == NAME_ONLY]
        named = ", ".join(lost[:MAX_NAMED]) + (f" and {len(lost) - MAX_NAMED} more" if len(lost) > MAX_NAMED else "")
        window = f" ({agent.budget_share:.0%} of a {listing.context_window:,}-token window)" if (
            agent.budget_share and listing.context_window) else ""
        order = " (standing in name order for the agent's usage order)" if agent.order == "usage" else ""
        out.append(CODE.report(
            message=f"{name}'s skill listing needs {listing.needed_chars:,} characters, {listing.overflow:,} over its "
                    f"{listing.budget_chars:,}-character budget{window}; {len(lost)} skill"
                    f"{'s lose their' if len(lost) != 1 else ' loses its'} description{order}: {named}",
            hint=f"shorten descriptions by {listing.overflow:,} characters in all, or hide rarely used skills; "
                 f"`skillsift list --agent {name}` shows every entry"))
    return out


def run(ws: Workspace) -> list[Diagnostic]:
    if ws.config is None:
        return []
    return overflow_diagnostics(ws.all_skills, ws.settings.agents)
