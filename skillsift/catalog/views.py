"""One view of the skills read from a repository: every field (``full``) or what one agent lists.

:func:`load_view` reads the skills (:mod:`skillsift.catalog.load`) and makes the
:class:`~skillsift.catalog.listing.View` a ranking ranks; the listing itself is built, pure,
by :mod:`skillsift.catalog.listing`, which imports neither this module nor the reading.
"""

from __future__ import annotations

from skillsift.catalog.agents import BY_NAME, NAMES
from skillsift.catalog.listing import FULL_VIEW, LISTING_VIEW, VIEWS, View, listed_skills
from skillsift.catalog.load import Catalog, catalog_from_skills, load_catalog, read_all_skills
from skillsift.diagnostics import SkillsiftError


def load_view(root, config, view: str = FULL_VIEW, agent: str | None = None,
              context_window: int | None = None) -> View:
    """Read the skills under ``root`` and make ``view`` of them.

    ``agent`` (listing view): a profile name, default the first of ``[validate] agents``; in
    the full view it keeps only that agent's listed skills, as ``load_catalog`` does.  An
    unknown view or agent raises SkillsiftError.
    """
    if view not in VIEWS:
        raise SkillsiftError(f'unknown view "{view}"', hint=f"views are {', '.join(VIEWS)}")
    if view == FULL_VIEW:
        catalog = load_catalog(root, config, agent=agent, context_window=context_window)
        return View(name=FULL_VIEW, catalog=catalog, full=catalog)
    if not agent:
        agents = tuple(getattr(getattr(config, "validate", None), "agents", ()) or NAMES)
        agent = agents[0]
    profile = BY_NAME.get(agent)
    if profile is None:
        raise SkillsiftError(f'unknown agent "{agent}"', hint=f"agents are {', '.join(NAMES)}")
    skills, diagnostics = read_all_skills(root, config)
    full = catalog_from_skills(skills, root=root)
    full = Catalog(root=full.root, skills=full.skills, diagnostics=(*diagnostics, *full.diagnostics))
    listing, shown = listed_skills(skills, profile, context_window)
    catalog = Catalog(root=full.root, skills=catalog_from_skills(shown, root=root).skills)
    return View(name=LISTING_VIEW, catalog=catalog, full=full, skills=tuple(skills), agent=profile.name,
                listing=listing)
