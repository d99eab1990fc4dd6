"""The URL rule searched in a window after each ``://`` finds exactly what one search from
each ``://`` to the end of the text finds: same matches, same order (random texts of many URLs,
with and without passwords, schemes of every length, and the example skills)."""

from __future__ import annotations

import random
from pathlib import Path

from skillsift.secrets import scan

ROOT = Path(__file__).resolve().parents[2]


def _reference_urls(full, text: str):
    """Every ``://`` searched from 21 characters before it to the end of the text."""
    last_end, pos = 0, text.find("://")
    while pos != -1:
        m = full.search(text, max(last_end, pos - 21))
        if m is None:
            return
        yield m
        last_end = m.end()
        pos = text.find("://", max(last_end, pos + 1))


def _spans(matches) -> list[tuple[int, int, tuple]]:
    return [(m.start(), m.end(), m.groups()) for m in matches]


def _url_rule():
    return next(c for c in scan._builtin() if c.rule.check == "url").regex


def test_url_windows_equal_the_search_to_the_end_on_random_texts():
    full = _url_rule()
    rng = random.Random(2026)
    pieces = ["://", "://", "https", "postgres", "a", "x" * 19, "y" * 20, "z" * 25, "user", ":", "@", "@", "db",
              "pa55word", "w" * 70, "v" * 130, " ", "\n", "/", "[", "é", ".", "-", "+", "1", "_",
              "postgres://app:s3cret@db", "redis://:pw@cache", "x://u:p@h",
              "mongodb+srv://" + "u" * 64 + ":" + "p" * 128 + "@h", "u" * 64 + ":" + "p" * 127, "q" * 21]
    found = 0
    for _ in range(4000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        want = _spans(_reference_urls(full, text))
        assert _spans(scan._urls(full, text)) == want, text
        found += bool(want)
    assert found > 500  # the texts do hold passwords in URLs


def test_url_windows_equal_the_search_to_the_end_on_the_examples():
    full = _url_rule()
    texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").rglob("*.md"))]
    texts.append(" ".join(f"see https://host{n}.example/path and postgres://app:s3cretpw{n}@db{n}:5432/x"
                          for n in range(300)))
    for text in texts:
        assert _spans(scan._urls(full, text)) == _spans(_reference_urls(full, text))
