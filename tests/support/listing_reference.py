"""The listing an agent builds as :func:`skillsift.catalog.listing.build_listing` built it before its rows
were drafted apart from its entries (the entry text of every skill made, served or not): the oracle of
tests/catalog/test_listing_differential.py."""

from __future__ import annotations

from skillsift.catalog.agents import AgentProfile, serves
from skillsift.catalog.listing import (
    FULL,
    HIDDEN,
    NAME_ONLY,
    NOT_LOADED,
    TRUNCATED,
    Entry,
    Listing,
    _cost,
    entry_text,
    namespace,
)


def build_listing(skills, agent: AgentProfile, context_window: int | None = None) -> Listing:
    """The listing ``agent`` builds from ``skills`` (in any order; entries come in name order)."""
    window = context_window or agent.context_window
    budget = agent.budget_chars(context_window)
    served: dict[tuple[str, str], str] = {}  # (plugin, name) -> the path served: a plugin is its own namespace
    drafts: list[list] = []  # [name, path, listed, description_chars, shown, reason, text_len]
    for skill in sorted(skills, key=lambda s: s.path):
        front = skill.frontmatter if isinstance(skill.frontmatter, dict) else {}
        description = front.get("description")
        description = description.strip() if isinstance(description, str) else ""
        text = entry_text(front, agent.entry_fields)
        row = [skill.name, skill.path, FULL, len(description), 0, "", len(text)]
        if not serves(agent, skill.path, getattr(skill, "plugin", "")):
            row[2], row[5] = NOT_LOADED, f"not in a folder {agent.name} reads ({', '.join(agent.folders)})"
        elif (namespace(skill), skill.name) in served:
            row[2] = NOT_LOADED
            row[5] = (f"name also used by {served[(namespace(skill), skill.name)]}, which is served (first in "
                      "path order)")
        elif agent.name_max is not None and len(skill.name) > agent.name_max:
            row[2], row[5] = NOT_LOADED, f"name is {len(skill.name)} characters, over {agent.name}'s {agent.name_max}"
        elif agent.description_max is not None and len(description) > agent.description_max:
            row[2], row[5] = NOT_LOADED, (f"description is {len(description)} characters, over {agent.name}'s "
                                          f"{agent.description_max}")
        elif agent.hide_field and front.get(agent.hide_field) is True:
            row[2], row[5] = HIDDEN, f"{agent.hide_field}: true keeps it out of the model's listing"
            served[(namespace(skill), skill.name)] = skill.path
        else:
            served[(namespace(skill), skill.name)] = skill.path
            shown = len(text) if agent.entry_cap is None else min(len(text), agent.entry_cap)
            row[4] = shown
            if shown < len(text):
                row[2], row[5] = TRUNCATED, f"entry cut at {agent.entry_cap} of {len(text)} characters"
        drafts.append(row)
    drafts.sort(key=lambda r: (r[0], r[1]))
    listed = [r for r in drafts if r[2] in (FULL, TRUNCATED)]
    needed = sum(_cost(r[0], r[4]) for r in listed)
    used = needed
    if budget is not None and used > budget:
        for r in reversed(listed):
            if used <= budget:
                break
            if r[4] == 0:
                continue
            used -= _cost(r[0], r[4]) - _cost(r[0], 0)
            r[5] = f"description dropped: the listing is over its {budget:,}-character budget"
            r[2], r[4] = NAME_ONLY, 0
    entries = tuple(
        Entry(name=r[0], path=r[1], listed=r[2], description_chars=r[3], shown_chars=r[4], reason=r[5],
              cost=_cost(r[0], r[4]) if r[2] in (FULL, TRUNCATED, NAME_ONLY) else 0)
        for r in drafts)
    return Listing(agent=agent.name, context_window=window, budget_chars=budget, used_chars=used,
                   needed_chars=needed, entries=entries)
