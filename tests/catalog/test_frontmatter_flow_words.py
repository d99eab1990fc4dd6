"""The fast frontmatter reader's flow lists of plain words (``[python, testing]``, split at their commas)
against its node by node reading of flow collections, the way it read every one before: seeded random
flow texts.  Wherever the split answers, it answers what the node by node reading answers (compared by
``repr``: ``1`` and ``True`` differ); and ``_flow`` always answers (or fails) as the node by node reading."""

from __future__ import annotations

import random

import pytest

from skillsift.catalog import frontmatter

_WORDS = ("python", "a b", "x", "12", "0x1F", "0x_", "1_0", "2.5", ".inf", "-.5", "true", "False", "null", "~", "Null",
          "caf\u00e9", "\U0001f600", "torch>=2.0", "a&b", "-x", "-", "?x", "&a", "*a", "!t", "|x", ">x", "%x", "@x",
          "`x`", "a.b/c", "a-b", "a_b", "", " ", "http", "<<", "y", "n", "on", "\u00a0a\u00a0", "b\u3000")
_ODD = ("a:b", "http://x", "'q'", '"d"', "[b]", "{c}", "a: b", ":x", "a#b", "a #b", "?", "a\tb", "{", "]")


def _text(rng: random.Random) -> str:
    words = [rng.choice(_WORDS if rng.random() < 0.95 else _ODD) for _ in range(rng.randint(0, 5))]
    words = [" " * rng.choice((0, 0, 1, 2)) + w + " " * rng.choice((0, 0, 1)) for w in words]
    text = "[" + ",".join(words) + "]"
    if rng.random() < 0.05:
        text = rng.choice(("{", "[[", "")) + text + rng.choice(("", "]", " x", ","))
    return text


def _answer(read, text: str, resolvers: dict):
    try:
        return read(text, resolvers)
    except ValueError as exc:  # int("_", 16) of 0x_
        return type(exc)


@pytest.mark.parametrize("table", ["own", "loader"])
def test_a_list_of_plain_words_reads_as_node_by_node(table):
    if table == "loader":
        pytest.importorskip("yaml")
        resolvers = frontmatter._loader_class().yaml_implicit_resolvers
    else:
        resolvers = frontmatter._resolvers()
    rng = random.Random(53)
    taken = 0
    for _ in range(20_000):
        text = _text(rng)
        if "#" in text or "?" in text or "\t" in text:
            continue  # (refused by _flow before either reading)
        words = _answer(frontmatter._plain_words, text, resolvers)
        nodes = _answer(frontmatter._flow_read, text, resolvers)
        if words is not frontmatter._NO:
            taken += 1
            assert repr(words) == repr(nodes), repr(text)
        assert repr(_answer(frontmatter._flow, text, resolvers)) == repr(nodes), repr(text)
    assert taken > 5_000


@pytest.mark.parametrize("text", ["[rube]", "[a, b]", "[ a , b c ]", "[]", "[ ]", "[1, true, null, 2.5]"])
def test_these_lists_are_split(text):
    resolvers = frontmatter._resolvers()
    words = frontmatter._plain_words(text, resolvers)
    assert words is not frontmatter._NO and repr(words) == repr(frontmatter._flow_read(text, resolvers))


@pytest.mark.parametrize("text", ["[a,]", "[,a]", "[a,,b]", "[-a]", "[&a]", "[a:b]", "['a']", "[[a]]", "{a: b}",
                                  "[a] x", "[a, @b]"])
def test_these_are_left_to_the_node_by_node_reading(text):
    assert frontmatter._plain_words(text, frontmatter._resolvers()) is frontmatter._NO


def test_the_loader_builds_the_split_lists():
    yaml = pytest.importorskip("yaml")
    loader = frontmatter._loader_class()
    rng = random.Random(56)
    taken = 0
    for _ in range(3_000):
        text = _text(rng)
        if "#" in text or "?" in text or "\t" in text:
            continue
        words = _answer(frontmatter._plain_words, text, loader.yaml_implicit_resolvers)
        if words is not frontmatter._NO and words is not ValueError:
            taken += 1
            assert repr(words) == repr(yaml.load(f"k: {text}\n", Loader=loader)["k"]), repr(text)
    assert taken > 500
