"""The fast frontmatter reader's flat blocks (one ``key: value`` line after another, read by one search of
the block) against its line by line reading, the way it read every block before: seeded random blocks of
flat lines and of the lines that make a block not flat, and the real corpus.  Wherever the flat reading
answers, it answers what the line by line reading answers (compared by ``repr``: ``1`` and ``True`` differ);
and ``_simple_mapping`` always answers as the line by line reading does."""

from __future__ import annotations

import random

import pytest

from skillsift.catalog import frontmatter
from tests.conftest import corpora

_KEYS = ("name", "description", "tags", "version", "a-b", "x_y", "_k", "true", "False", "null", "NULL", "Name",
         "n1", "license", "allowed-tools")
_VALUES = ("deploy", "Ship it", "Use when: x", "a: b", "x # c", "a #b", "end:", "12", "-3", "0x1F", "1_000", "2.0",
           ".inf", "true", "False", "null", "~", "yes", "2026-03-05", "12:30", "<<", "-", "-x", "- x", "?", "? x",
           ":x", "@x", "`x`", "!t x", "&a x", "*a", "%x", "#x", "|", "|-", ">", ">-", "|+", "caf\u00e9", "\U0001f600",
           "x\ty", "a\u00a0b", "a\rb", "a\x85b", "a\u2028b", "a\ufeffb", "a\x00b", "\u00e9t\u00e9 \u2019s",
           '"quoted"', '"a \\"b\\" c"', '"\\u00e9\\t"', '"\\x41"', '"open', '"a"b"', "'single'", "'it''s'", "'open",
           '""', "''", "[a, b]", "[]", "[ ]", "[a,]", "{a: b}", '{"k": [x, {"b": null}]}', "[http://x.y]", "[a b, 1]",
           "[x] y", "{a}", "")
_COMMON = ("deploy", "Ship it, then check", "12", "2.0", "true", "null", "caf\u00e9 \u2019s", '"quoted: yes"', "'single'",
           "[a, b]", '["x", 2]', "")
_ODD = ("", "# note", "  x", " y: 1", "- z", "key:value", "\t", "...", "---", "k: v # c", "  - a", "x", "'k': v",
        "? k", "k :v", "K\u00e9y: v")


def _line(rng: random.Random) -> str:
    key = rng.choice(_KEYS)
    value = rng.choice(_COMMON if rng.random() < 0.7 else _VALUES)
    spaces = " " * rng.choice((1, 1, 1, 2, 0)) if value else ""
    trail = " " * rng.choice((0, 0, 0, 1, 3))
    return f"{key}:{spaces}{value}{trail}"


def _block(rng: random.Random) -> str:
    lines = [_line(rng) for _ in range(rng.randint(1, 6))]
    if rng.random() < 0.25:  # a line that makes the block not flat (or not a mapping at all)
        lines.insert(rng.randint(0, len(lines)), rng.choice(_ODD))
    text = "\n".join(lines)
    return text if rng.random() < 0.05 else text + "\n"


def _both(raw: str, resolvers: dict):
    """(flat reading or _NO, line by line reading); a failure of either (``int("0x_", 16)``) as its type."""
    answers = []
    for read in (frontmatter._flat_mapping, frontmatter._line_by_line):
        try:
            answers.append(read(raw, resolvers))
        except ValueError as exc:
            answers.append(type(exc))
    return answers


def test_a_flat_block_reads_as_line_by_line():
    frontmatter._simple_mapping("a: b\n")  # compiles the reader's patterns
    resolvers = frontmatter._resolvers()
    rng = random.Random(50)
    taken = 0
    for _ in range(20_000):
        raw = _block(rng)
        flat, lines = _both(raw, resolvers)
        if flat is not frontmatter._NO:
            taken += 1
            assert repr(flat) == repr(lines), repr(raw)
        try:
            whole = frontmatter._simple_mapping(raw)
        except ValueError as exc:
            whole = type(exc)
        assert repr(whole) == repr(lines), repr(raw)
    assert taken > 2_000  # flat blocks are taken, not all left to the line by line reading


def test_the_loaders_table_reads_flat_blocks_alike():
    yaml = pytest.importorskip("yaml")
    assert yaml
    loader = frontmatter._loader_class()
    rng = random.Random(51)
    for _ in range(3_000):
        raw = _block(rng)
        flat, lines = _both(raw, loader.yaml_implicit_resolvers)
        if flat is not frontmatter._NO:
            assert repr(flat) == repr(lines), repr(raw)


@pytest.mark.parametrize("raw", [
    "name: x\ndescription: Ship it\n",
    "name: x\nversion: 1.0\ntags: [a, b]\n",
    'name: "x"\nlicense:\nmeta: {"k": [1]}\n',
    "name: x  \nempty:   \n",
])
def test_these_flat_blocks_are_taken(raw):
    frontmatter._simple_mapping("a: b\n")
    flat = frontmatter._flat_mapping(raw, frontmatter._resolvers())
    assert flat is not frontmatter._NO
    assert repr(flat) == repr(frontmatter._line_by_line(raw, frontmatter._resolvers()))


@pytest.mark.parametrize("raw", [
    "name: x\n  more\n",  # a continued line (not flat: the reader does not even try)
    "name: x\n# c\n",
    "name: x\n\n",
    "name: x\n- y\n",
    "- name: x\n",
    "name: x",  # no final line break
    "true: x\n",
    "name: |\n",
    "name: 'open\n",
    "name: a\tb\n",
    "name: a\rb\n",
    "k: v # c\n",
])
def test_these_are_left_to_the_line_by_line_reading(raw):
    frontmatter._simple_mapping("a: b\n")
    assert frontmatter._flat_mapping(raw, frontmatter._resolvers()) is frontmatter._NO


@pytest.mark.slow  # the whole corpus of real skills
def test_the_corpus_flat_blocks_read_as_line_by_line():
    frontmatter._simple_mapping("a: b\n")
    resolvers = frontmatter._resolvers()
    taken = 0
    for path in sorted(corpora().glob("*/*/SKILL.md")):
        block = frontmatter.split_frontmatter(path.read_text("utf-8", errors="replace").replace("\r\n", "\n"))
        flat, lines = _both(block.raw, resolvers)
        if flat is not frontmatter._NO:
            taken += 1
            assert repr(flat) == repr(lines), path
    assert taken > 500
