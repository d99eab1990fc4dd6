"""A catalog over the ceilings of skillsift/catalog/limits.py is refused with a clear error by every command
(docs/bounded-input.md, "Catalog size"); below them nothing changes.

The ceilings are lowered for the test (the real ones are 128 MiB of SKILL.md files and 8 MiB of ranked text:
generating that much is a benchmark's job, see the figures in docs/bounded-input.md).
"""

from __future__ import annotations

import random

import pytest

from skillsift.catalog import limits
from tests.conftest import write_skill
from tests.support.cli import run


def distinct_words(rng: random.Random, n: int, start: int) -> str:
    return " ".join("".join(rng.choice("abcdefghij") for _ in range(5)) + str(start + i) for i in range(n))


@pytest.fixture
def wordy(tmp_path):
    """40 skills whose descriptions are ~1 KB of distinct words each (about 40 KB of ranked text)."""
    rng = random.Random(3)
    for i in range(40):
        write_skill(tmp_path, f"skill-{i:02d}", distinct_words(rng, 90, i * 1000))
    return tmp_path


def test_every_command_refuses_a_catalog_over_the_ranked_text_ceiling(wordy, capsys, monkeypatch):
    code, out, err = run(capsys, "search", "deploy", "--root", wordy)
    assert code == 0, err  # under the real ceiling
    monkeypatch.setattr(limits, "MAX_RANKED_BYTES", 20_000)
    for argv in (["search", "deploy"], ["validate"], ["index", "--dry-run"], ["status"],
                 ["list", "--agent", "claude-code"]):
        code, out, err = run(capsys, *argv, "--root", wordy)
        assert code == 1, (argv, out, err)
        assert "add up to more than 20,000 bytes" in err and "hint: keep descriptions" in err, (argv, err)
        assert "Traceback" not in err
    code, _out, err = run(capsys, "mcp", "--root", wordy)
    assert code == 1 and "more than 20,000 bytes" in err


def test_a_catalog_over_the_file_ceiling_is_refused_before_any_file_is_read(wordy, capsys, monkeypatch):
    from skillsift.catalog import load as catalog

    monkeypatch.setattr(limits, "MAX_CATALOG_BYTES", 30_000)
    read: list = []
    real = catalog.read_skill
    monkeypatch.setattr(catalog, "read_skill", lambda *a, **k: read.append(a) or real(*a, **k))
    code, out, err = run(capsys, "search", "deploy", "--root", wordy)
    assert code == 1 and "SKILL.md files found hold more than 30,000 bytes (40 files)" in err
    assert read == []
    code, out, err = run(capsys, "validate", "--root", wordy)
    assert code == 1 and "more than 30,000 bytes" in err


def test_the_ranked_size_counts_utf8_bytes_exactly_at_the_ceiling(monkeypatch):
    """ASCII fields are counted by their length, the others by their UTF-8 bytes: the ceiling falls where
    the bytes reach it, for ASCII, accented, emoji and lone-surrogate text alike."""
    from skillsift.catalog import limits
    from skillsift.catalog.skill import Skill

    for text in ("plain", "caf\u00e9", "\U0001f600 x", "lone \udc80"):
        size = len(text.encode("utf-8", "surrogatepass"))
        skills = [Skill(name=text, description=text, triggers=(text, 3), keywords=(text,))]  # a non-str is not counted
        monkeypatch.setattr(limits, "MAX_RANKED_BYTES", 4 * size)
        limits.check_ranked_size(skills)
        monkeypatch.setattr(limits, "MAX_RANKED_BYTES", 4 * size - 1)
        with pytest.raises(limits.CatalogTooLarge):
            limits.check_ranked_size(skills)
