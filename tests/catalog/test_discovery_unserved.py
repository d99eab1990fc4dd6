"""SK003's answer from the one discovery of every configured pattern (``Discovery.unserved``) against the
discovery of each pattern alone, which it replaces: random trees (links, a SKILL.md that is a link, a folder
limit reached, a pattern repeated or also a source folder), one fixed seed."""

from __future__ import annotations

import os
import random

import pytest

from skillsift.catalog import discovery
from skillsift.catalog.discovery import CHECK_MAX_DIRS, discover_all
from tests.conftest import write_skill

PATTERNS = ("skills", "skills/*", "skills/*/", "skills/**/SKILL.md", "pack/*", "pack", "nowhere/*", "a*",
            "linked", "linked/*", "loose/SKILL.md", "deep/**", "*", ".hidden/skills")


def _tree(root, rng: random.Random) -> None:
    for top in ("skills", "pack", "deep/x/y", ".hidden/skills", "aside"):
        for i in range(rng.randrange(0, 4)):
            folder = root / top / f"f{i}"
            folder.mkdir(parents=True, exist_ok=True)
            kind = rng.random()
            if kind < 0.5:
                write_skill(root, f"f{i}", "Does things.", layout=f"{top}")
            elif kind < 0.7:
                (folder / "sub" / "deeper").mkdir(parents=True)
                if rng.random() < 0.5:
                    write_skill(root, "deeper", "Does things.", layout=f"{top}/f{i}/sub")
    if rng.random() < 0.5:
        write_skill(root, "loose", "Does loose things.", layout=".")
    if hasattr(os, "symlink") and rng.random() < 0.6:
        os.symlink(root / "skills", root / "linked", target_is_directory=True)
    if hasattr(os, "symlink") and rng.random() < 0.3:
        (root / "pack" / "bad").mkdir(parents=True, exist_ok=True)
        os.symlink(root / "aside", root / "pack" / "bad" / "SKILL.md")  # refused (SK020): counts nothing


@pytest.mark.parametrize("seed", range(12))
def test_unserved_is_the_patterns_each_discovery_alone_finds_nothing_in(tmp_path, monkeypatch, seed):
    rng = random.Random(seed)
    monkeypatch.setattr(discovery, "MAX_DIRS_PER_ROOT", rng.choice((1, 2, 3, 2000)))
    _tree(tmp_path, rng)
    patterns = tuple(rng.sample(PATTERNS, rng.randrange(1, 6)))
    patterns += patterns[:1]  # a pattern written twice
    extra = (patterns[0],) if rng.random() < 0.3 else ()
    together = discover_all(tmp_path, patterns, max_dirs=CHECK_MAX_DIRS, extra=extra)
    alone = tuple(p for p in patterns if not discover_all(tmp_path, [p]).found)
    assert together.unserved == alone


def test_a_pattern_whose_skills_lie_past_the_agents_folder_limit_is_unserved(tmp_path, monkeypatch):
    monkeypatch.setattr(discovery, "MAX_DIRS_PER_ROOT", 2)
    for name in ("a", "b", "c"):
        (tmp_path / "skills" / f"cat-{name}").mkdir(parents=True)
    write_skill(tmp_path, "late", "Does late things.", layout="skills/cat-c")
    result = discover_all(tmp_path, ["skills"], max_dirs=CHECK_MAX_DIRS)
    assert [parts for parts, _ in result.found] == [("skills", "cat-c", "late", "SKILL.md")]  # checked
    assert result.unserved == ("skills",) and result.empty == ()  # but no agent is served it


def test_every_pattern_is_unserved_when_the_root_is_no_folder(tmp_path):
    assert discover_all(tmp_path / "gone", ["skills", "x/*"]).unserved == ("skills", "x/*")
