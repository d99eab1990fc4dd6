"""The compiled-regex cache (skillsift/cache/regexes.py): a hit is the pattern re.compile makes (equal
code, the same matches), a damaged entry or a cache turned off compiles as before, and only a run
that compiled something new writes the file."""

from __future__ import annotations

import json
import random
import re
import sys

import pytest

import skillsift
from skillsift.cache import regexes
from skillsift.catalog import embedtext
from skillsift.catalog import frontmatter as catalog_frontmatter
from skillsift.checks import frontmatter, spec
from skillsift.secrets import scan
from skillsift.validators import grouped, names, parsed, suppress

pytestmark = pytest.mark.skipif(regexes._engine() is None, reason="a Python whose regex compiler is laid out otherwise")


def _module_patterns() -> list[tuple[str, int]]:
    """Every compiled pattern the converted modules hold, and the secret scanner's rule patterns."""
    out = []
    for module in (embedtext, catalog_frontmatter, frontmatter, spec, grouped, names, parsed, suppress, scan):
        for value in vars(module).values():
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                out.append((value.pattern, value.flags & ~re.UNICODE))
    out += [(rule.regex, re.ASCII) for rule in scan.PATTERNS]
    return sorted(set(out))


PATTERNS = _module_patterns()
# what the patterns meet: markdown, frontmatter, keys, odd letters (the long s, the Kelvin sign, the dotless i)
ALPHABET = "abcdefkisuwxyzAKIS019 _-:#`~[]()<>!*\n\t\u017f\u212a\u0131\u0130\u00a0\u200b"


def _texts(seed: int, count: int = 40) -> list[str]:
    rng = random.Random(seed)
    words = ["use when", "Use this skill for", "triggers:", "## When to use", "```", "[a](b)", "AKIA", "name:",
             "skillsift: ignore SK001", "key = ", "ghp_", "https://x.test/a"]
    out = []
    for _ in range(count):
        parts = [rng.choice(words) if rng.random() < 0.4 else
                 "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 12))) for _ in range(rng.randint(1, 8))]
        out.append(" ".join(parts))
    return out


@pytest.fixture
def fresh(monkeypatch, cache_dir):
    """The module's state as in a new console-script process, the caches in the test's own folder."""
    monkeypatch.setattr(regexes, "_state", {})
    monkeypatch.setattr(skillsift, "_command_line", True)
    return cache_dir


def _new_process(monkeypatch):
    monkeypatch.setattr(regexes, "_state", {})


def test_the_modules_patterns_are_found():
    assert len(PATTERNS) > 40
    assert any(flags & re.IGNORECASE for _p, flags in PATTERNS)


def test_a_miss_and_a_hit_give_the_pattern_re_compile_makes(fresh, monkeypatch):
    first = [regexes.compile(p, f) for p, f in PATTERNS]
    cache = regexes._state["cache"]
    assert cache.misses == len(PATTERNS) and cache.hits == 0
    assert regexes.save()
    _new_process(monkeypatch)
    second = [regexes.compile(p, f) for p, f in PATTERNS]
    cache = regexes._state["cache"]
    assert cache.hits == len(PATTERNS) and cache.misses == 0
    assert not regexes.save()  # nothing new: nothing written
    texts = _texts(45)
    for (pattern, flags), a, b in zip(PATTERNS, first, second, strict=True):
        expected = re.compile(pattern, flags)
        # equality of compiled patterns compares the pattern, the flags and the engine's code
        assert a == expected and b == expected, pattern
        assert (b.groups, b.groupindex, b.flags) == (expected.groups, expected.groupindex, expected.flags)
        for text in texts:
            assert [m.span() for m in b.finditer(text)] == [m.span() for m in expected.finditer(text)], pattern


def test_named_groups_and_flags_come_back(fresh, monkeypatch):
    pattern = r"(?P<key>[a-z]+)\s*=\s*(?P<value>\S+)|(?i:use) (when)"
    regexes.compile(pattern, re.MULTILINE)
    regexes.save()
    _new_process(monkeypatch)
    hit = regexes.compile(pattern, re.MULTILINE)
    assert regexes._state["cache"].hits == 1
    assert hit.groupindex == {"key": 1, "value": 2} and hit.groups == 3
    assert hit.match("name = x").group("value") == "x"
    assert hit == re.compile(pattern, re.MULTILINE)


def _damage(folder, change) -> None:
    (path,) = (folder / "regex").glob("*.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    for key in doc["entries"]:
        doc["entries"][key] = change(doc["entries"][key])
    path.write_text(json.dumps(doc), encoding="utf-8")


@pytest.mark.parametrize("change", [
    lambda e: [e[0], (999).to_bytes(4, sys.byteorder).hex(), e[2], e[3], e[4]],  # code the engine refuses
    lambda e: [e[0], e[1][:-2], e[2], e[3], e[4]],  # not a whole number of words
    lambda e: [e[0], "zz", e[2], e[3], e[4]],  # not hex
    lambda e: [e[0], e[1], e[2] + 5, e[3], e[4]],  # a group count that does not fit
    lambda e: e[:3],
    lambda e: {"code": e},
], ids=["refused-code", "cut-word", "not-hex", "groups", "short", "not-a-list"])
def test_a_damaged_entry_is_compiled_again(fresh, monkeypatch, change):
    pattern = r"^\s{0,3}\[(?!\^)[^\]\n]+\]:\s*(<[^>\n]*>|\S+)"
    regexes.compile(pattern)
    regexes.save()
    _damage(fresh, change)
    _new_process(monkeypatch)
    again = regexes.compile(pattern)
    cache = regexes._state["cache"]
    assert cache.hits == 0 and cache.misses == 1
    assert again == re.compile(pattern)
    assert again.match("[ref]: https://x.test/a").group(1) == "https://x.test/a"


def test_caches_off_compile_as_re_does_and_write_nothing(fresh, monkeypatch):
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    assert regexes.compile(r"\bkey\b", re.IGNORECASE) == re.compile(r"\bkey\b", re.IGNORECASE)
    assert not regexes.save()
    assert not (fresh / "regex").exists()


def test_bytes_and_errors_are_re_compiles(fresh):
    assert regexes.compile(b"[\x80-\xff]") == re.compile(b"[\x80-\xff]")  # type: ignore[arg-type]
    with pytest.raises(re.error) as ours:
        regexes.compile(r"(unclosed")
    with pytest.raises(re.error) as theirs:
        re.compile(r"(unclosed")
    assert str(ours.value) == str(theirs.value)
    assert not regexes.save()  # neither is kept


def test_another_python_build_does_not_read_the_file(fresh, monkeypatch):
    regexes.compile(r"[a-z]+ly", re.IGNORECASE)
    regexes.save()
    _new_process(monkeypatch)
    engine, build = regexes._engine()
    monkeypatch.setattr(regexes, "_engine", lambda: (engine, build + "-other"))
    regexes.compile(r"[a-z]+ly", re.IGNORECASE)
    assert regexes._state["cache"].hits == 0


def test_outside_the_console_script_nothing_is_read_or_written(fresh, monkeypatch):
    """A program (or a test) that imports skillsift compiles as re does: no cache file is opened."""
    regexes.compile(r"[a-z]+ly", re.IGNORECASE)
    assert regexes.save()
    _new_process(monkeypatch)
    monkeypatch.setattr(skillsift, "_command_line", False)
    assert regexes.compile(r"[a-z]+ly", re.IGNORECASE) == re.compile(r"[a-z]+ly", re.IGNORECASE)
    assert "cache" not in regexes._state and not regexes.save()
