"""Counted nouns and articles in messages."""

from __future__ import annotations

import pytest

from skillsift.secrets.scan import BUILTIN_PATTERNS
from skillsift.words import article, plural


def test_plural():
    assert [plural(n, "case") for n in (0, 1, 2)] == ["0 cases", "1 case", "2 cases"]
    assert plural(1, "query", "queries") == "1 query" and plural(3, "query", "queries") == "3 queries"


@pytest.mark.parametrize(("word", "expected"), [
    ("AWS access key id", "an"), ("acme-key", "an"), ("RSA key", "an"), ("SSH key", "an"), ("HTTP token", "an"),
    ("OpenAI API key", "an"), ("Anthropic API key", "an"), ("npm access token", "an"), ("unknown key", "an"),
    ("GitHub token", "a"), ("Slack token", "a"), ("URL", "a"), ("user key", "a"), ("JSON web token", "a"),
    ("private key block", "a"), ("hard-coded credential", "a"), ("Google API key", "a"), ("Unix socket", "a"),
])
def test_article_follows_the_sound(word, expected):
    assert article(word) == expected


def test_every_builtin_secret_label_reads_right():
    labels = {label: article(label) for _, label, _ in BUILTIN_PATTERNS}
    assert labels["AWS access key id"] == "an" and labels["GitHub token"] == "a"
