"""An agent's listing with each skill's row drafted apart from its entry, and its entry text made only
when the agent loads the skill (:func:`skillsift.catalog.listing.build_listing`), and SK011's
:func:`~skillsift.catalog.listing.overflowing_listing`, against the listing as it was built before
(tests/support/listing_reference.py): random catalogs of every layout, shared names, plugins, hidden
skills, long names, descriptions and entries, in budgets that fit and budgets that overflow; and the
corpus of real skills."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from skillsift.catalog.agents import CLAUDE_PLUGIN, PROFILES, SOURCES_MOUNT
from skillsift.catalog.listing import build_listing, overflowing_listing
from tests.conftest import corpora
from tests.support.listing_reference import build_listing as reference

FOLDERS = (".claude/skills", ".codex/skills", ".agents/skills", ".github/skills", "skills", "plugins/p/skills",
           "plugins/q/skills", "docs", ".cursor/skills", ".gemini/skills", SOURCES_MOUNT + "/s")
NAMES = ("deploy", "Deploy", "review", "a" * 70, "ship-it", "lint", "x")
TEXTS = (None, "", "  ", 7, "Deploys the app.", "  Padded text.  ", "w " * 600, "y" * 1100, "z" * 1600)


def _catalog(rng: random.Random) -> list:
    skills = []
    for n in range(rng.randint(0, 40)):
        folder = rng.choice(FOLDERS)
        nested = "/deep" if rng.random() < 0.2 else ""
        front = {key: rng.choice(TEXTS) for key in ("description", "when_to_use") if rng.random() < 0.8}
        if rng.random() < 0.2:
            front["disable-model-invocation"] = rng.choice((True, "true", False))
        skills.append(SimpleNamespace(
            name=rng.choice(NAMES), path=f"{folder}{nested}/s{n}/SKILL.md",
            frontmatter=front if rng.random() < 0.95 else ["not", "a", "mapping"],
            plugin=rng.choice(("", "", "", f"{CLAUDE_PLUGIN}:p", "gemini-extension.json:g"))))
    rng.shuffle(skills)
    return skills


def _same(skills, agent, window) -> bool:
    listing = build_listing(skills, agent, window)
    assert listing == reference(skills, agent, window)
    over = overflowing_listing(skills, agent, window)
    assert over == (listing if listing.budget_chars is not None and listing.overflow else None)
    return over is not None


def test_build_listing_equals_the_reference_on_random_catalogs():
    rng = random.Random(23)
    overflowing = 0
    for _ in range(600):
        skills = _catalog(rng)
        for agent in PROFILES:
            overflowing += _same(skills, agent, rng.choice((None, 500, 2000, 20_000)))
    assert overflowing > 200


@pytest.mark.slow  # the whole corpus of real skills
def test_build_listing_equals_the_reference_on_the_corpus(tmp_path):
    from skillsift.validators.workspace import Workspace

    config = tmp_path / "skillsift.toml"
    config.write_text('[catalog]\nskills = ["*"]\n', encoding="utf-8")
    skills = Workspace(corpora(), config_file=config).all_skills
    moved = [SimpleNamespace(name=s.name, path=f".claude/skills/{s.path}", frontmatter=s.frontmatter, plugin="")
             for s in skills]
    for agent in PROFILES:
        for window in (None, 20_000, 200_000):
            _same(skills, agent, window)
            _same(moved, agent, window)
