"""What an agent lists: each skill's entry in its skill listing, the budget and its use.

Pure: :func:`build_listing` takes the skills (with their frontmatter and paths) and an
:class:`~skillsift.catalog.agents.AgentProfile`.  Rules (docs/validate.md, "What each agent lists"):

* a skill outside the agent's folders, or whose name another served skill already has (the
  first in path order is served), or over the agent's load limits is ``not-loaded``;
* a skill with the agent's hide field set (Claude Code: ``disable-model-invocation: true``)
  is ``hidden``: loaded, but not in the model's listing;
* an entry is ``- <name>: <text>`` where text is the agent's entry fields joined by a space,
  cut at its per-entry cap (``truncated``), else ``full``;
* when the entries exceed the listing budget, descriptions are dropped (names kept,
  ``name-only``) until it fits.  Claude Code drops them from the least-used skills first;
  skillsift has no usage data and stands in reverse name order (the last names lose theirs
  first), so the result is deterministic.
"""

from __future__ import annotations

from skillsift.catalog.agents import CLAUDE_PLUGIN, AgentProfile, serves, source_name

from ..records import record

TYPE_CHECKING = False  # (mypy reads it as true; typing is not imported on the hooks' path)
if TYPE_CHECKING:
    from typing import Any

FULL, TRUNCATED, NAME_ONLY, HIDDEN, NOT_LOADED = "full", "truncated", "name-only", "hidden", "not-loaded"
#: The states in which the model sees a skill and can choose it.
LISTED = (FULL, TRUNCATED, NAME_ONLY)


@record(frozen=True)
class Entry:
    name: str
    path: str
    listed: str
    description_chars: int
    shown_chars: int
    reason: str
    cost: int  # characters the entry takes in the listing (0 when not listed)

    def to_dict(self) -> dict:
        out = {"name": self.name, "path": self.path, "listed": self.listed,
               "description_chars": self.description_chars, "shown_chars": self.shown_chars,
               "reason": self.reason}
        source = source_name(self.path)
        if source:
            out["source"] = source  # a skill of another repository (docs/sources.md)
        return out


@record(frozen=True)
class Listing:
    agent: str
    context_window: int | None
    budget_chars: int | None
    used_chars: int
    needed_chars: int  # what the entries would take with every description kept
    entries: tuple[Entry, ...]

    @property
    def overflow(self) -> int:
        return max(0, self.needed_chars - self.budget_chars) if self.budget_chars is not None else 0

    def to_dict(self) -> dict:
        return {"schema_version": 1, "agent": self.agent, "context_window": self.context_window,
                "budget_chars": self.budget_chars, "used_chars": self.used_chars,
                "skills": [e.to_dict() for e in self.entries]}


def entry_text(front: dict, fields) -> str:
    parts = [front.get(f) for f in fields]
    return " ".join(p.strip() for p in parts if isinstance(p, str) and p.strip())


def _plugin_of(path: str) -> str:
    """The plugin of a ``plugins/<plugin>/...`` skill, else "" (Claude Code names its skills ``<plugin>:<name>``)."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "plugins" else ""


def namespace(skill) -> str:
    """The Claude Code plugin a skill is loaded as: the one whose ``.claude-plugin`` manifest names its folder,
    else :func:`_plugin_of` ("" for the repository's own skills)."""

    plugin = getattr(skill, "plugin", "")
    return plugin if plugin.startswith(CLAUDE_PLUGIN + ":") else _plugin_of(skill.path)


def _cost(name: str, shown: int) -> int:
    return len(name) + shown + 5 if shown else len(name) + 3  # "- name: text\n" / "- name\n"


def build_listing(skills, agent: AgentProfile, context_window: int | None = None) -> Listing:
    """The listing ``agent`` builds from ``skills`` (in any order; entries come in name order)."""
    drafts, needed = _drafts(skills, agent)
    return _listing(drafts, needed, agent, context_window)


def overflowing_listing(skills, agent: AgentProfile, context_window: int | None = None) -> Listing | None:
    """:func:`build_listing` when its entries need more than the budget (its ``overflow``), else None: the
    entries are made only then (a catalog's listing mostly fits, or the agent serves none of its skills)."""
    budget = agent.budget_chars(context_window)
    if budget is None:
        return None
    drafts, needed = _drafts(skills, agent)
    return _listing(drafts, needed, agent, context_window) if needed > budget else None


def _drafts(skills, agent: AgentProfile) -> tuple[list[list], int]:
    """(a row ``[name, path, listed, description_chars, shown, reason]`` of each skill in path order, the
    characters the listed entries need with every description kept).  A skill's entry text is made only
    when the agent loads it."""
    served: dict[tuple[str, str], str] = {}  # (plugin, name) -> the path served: a plugin is its own namespace
    drafts: list[list] = []
    needed = 0
    outside = f"not in a folder {agent.name} reads ({', '.join(agent.folders)})"
    for skill in sorted(skills, key=lambda s: s.path):
        front = skill.frontmatter if isinstance(skill.frontmatter, dict) else {}
        description = front.get("description")
        description = description.strip() if isinstance(description, str) else ""
        row = [skill.name, skill.path, FULL, len(description), 0, ""]
        drafts.append(row)
        if not serves(agent, skill.path, getattr(skill, "plugin", "")):
            row[2], row[5] = NOT_LOADED, outside
            continue
        key = (namespace(skill), skill.name)
        if key in served:
            row[2] = NOT_LOADED
            row[5] = f"name also used by {served[key]}, which is served (first in path order)"
        elif agent.name_max is not None and len(skill.name) > agent.name_max:
            row[2], row[5] = NOT_LOADED, f"name is {len(skill.name)} characters, over {agent.name}'s {agent.name_max}"
        elif agent.description_max is not None and len(description) > agent.description_max:
            row[2], row[5] = NOT_LOADED, (f"description is {len(description)} characters, over {agent.name}'s "
                                          f"{agent.description_max}")
        elif agent.hide_field and front.get(agent.hide_field) is True:
            row[2], row[5] = HIDDEN, f"{agent.hide_field}: true keeps it out of the model's listing"
            served[key] = skill.path
        else:
            served[key] = skill.path
            length = len(entry_text(front, agent.entry_fields))
            shown = length if agent.entry_cap is None else min(length, agent.entry_cap)
            row[4] = shown
            if shown < length:
                row[2], row[5] = TRUNCATED, f"entry cut at {agent.entry_cap} of {length} characters"
            needed += _cost(skill.name, shown)
    return drafts, needed


def _listing(drafts: list[list], needed: int, agent: AgentProfile, context_window: int | None) -> Listing:
    """The :class:`Listing` of :func:`_drafts`' rows: in name order, descriptions dropped from the last names
    while the entries need more than the budget."""
    window = context_window or agent.context_window
    budget = agent.budget_chars(context_window)
    drafts.sort(key=lambda r: (r[0], r[1]))
    used = needed
    if budget is not None and used > budget:
        for r in reversed(drafts):
            if used <= budget:
                break
            if r[2] not in (FULL, TRUNCATED) or r[4] == 0:
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


# -- the listing view: rank each skill by exactly the text its listing shows ----------------------

FULL_VIEW, LISTING_VIEW = "full", "listing"
VIEWS = (FULL_VIEW, LISTING_VIEW)


@record(frozen=True)
class View:
    """What a ranking ranks: every field of each skill (``full``) or what one agent lists (``listing``).

    ``catalog`` holds the skills to rank; in the listing view each is a copy of the read skill
    whose ``description`` is exactly the text of its listing entry (the agent's entry fields
    cut at ``shown_chars``, "" for a name-only entry) and whose other ranked fields are empty,
    so every ranker mode ranks what the agent reads.  ``full`` is the catalog every field of
    which is ranked (the cases are checked against it); ``skills`` every skill read, served or
    not (what a description edit is checked against); ``listing`` the agent's listing.
    """

    name: str
    catalog: Any
    full: Any
    skills: tuple = ()
    agent: str = ""
    listing: Listing | None = None

    def describe(self) -> str:
        """The words a report header uses: "" for the full view."""
        if self.listing is None:
            return ""
        window = f", context window {self.listing.context_window:,} tokens" if self.listing.context_window else ""
        return f"listing ({self.agent}{window})"

    def to_dict(self) -> dict | None:
        if self.listing is None:
            return None
        return {"name": self.name, "agent": self.agent, "context_window": self.listing.context_window,
                "budget_chars": self.listing.budget_chars, "used_chars": self.listing.used_chars}


def shown_text(skill, agent: AgentProfile, entry: Entry) -> str:
    """The characters of ``skill``'s entry the model reads (the description part of ``- name: text``)."""
    front = skill.frontmatter if isinstance(skill.frontmatter, dict) else {}
    return entry_text(front, agent.entry_fields)[:entry.shown_chars]


def entry_line(name: str, shown: str) -> str:
    """One line of the listing as the model reads it: ``- name: text``, or ``- name`` (name-only); :func:`_cost`
    counts these characters and the newline."""
    return f"- {name}: {shown}" if shown else f"- {name}"


def listing_lines(skills, agent: AgentProfile, listing: Listing) -> list[tuple[Entry, Any, str]]:
    """``(entry, skill, line)`` for each entry of ``listing`` the model reads (full, truncated, name-only), in the
    listing's order: the text ``agent`` puts before the model (the judge's prompt, docs/judge.md)."""
    by_path = {skill.path: skill for skill in skills}
    out = []
    for entry in listing.entries:
        skill = by_path.get(entry.path)
        if entry.listed not in LISTED or skill is None:
            continue
        out.append((entry, skill, entry_line(entry.name, shown_text(skill, agent, entry))))
    return out


def listed_skills(skills, agent: AgentProfile, context_window: int | None = None):
    """``(listing, skills)``: the listing ``agent`` builds and, in the order of ``skills``, a copy of each
    listed skill carrying only its shown text (:class:`View`)."""
    from dataclasses import replace

    listing = build_listing(skills, agent, context_window)
    entries = {e.path: e for e in listing.entries if e.listed in LISTED}
    out = []
    for skill in skills:
        entry = entries.get(skill.path)
        if entry is None:
            continue
        out.append(replace(skill, description=shown_text(skill, agent, entry), triggers=(), keywords=(),
                           examples=(), not_for=(), body=""))
    return listing, tuple(out)
