"""The fast frontmatter reader's blocks of key lines (``key: value`` and ``key:`` lines, flat or nested, read
by one search of the block) against its line by line reading, the way it read every block before: seeded
random blocks of key lines and of the lines that make a block something else, and the real corpus.
Wherever the reading of key lines answers, it answers what the line by line reading answers (compared by
``repr``: ``1`` and ``True`` differ); and ``_simple_mapping`` always answers (or fails) as the line by line
reading does."""

from __future__ import annotations

import random

import pytest

from skillsift.catalog import frontmatter
from tests.conftest import corpora

_KEYS = ("name", "description", "tags", "version", "a-b", "x_y", "_k", "Name", "n1", "license", "allowed-tools",
         "metadata")
_NOT_STRINGS = ("true", "False", "null", "NULL")  # keys the loader reads as no string
_VALUES = ("deploy", "Ship it", "Use when: x", "a: b", "x # c", "a #b", "end:", "12", "-3", "0x1F", "0x_", "1_000",
           "2.0", ".inf", "true", "False", "null", "~", "yes", "2026-03-05", "12:30", "<<", "-", "-x", "- x", "?",
           "? x", ":x", "@x", "`x`", "!t x", "&a x", "*a", "%x", "#x", "|", "|-", ">", ">-", "|+", "caf\u00e9",
           "\U0001f600", "x\ty", "a\u00a0b", "a\rb", "a\x85b", "a\u2028b", "a\ufeffb", "a\x00b",
           "\u00e9t\u00e9 \u2019s",
           '"quoted"', '"a \\"b\\" c"', '"\\u00e9\\t"', '"\\x41"', '"open', '"a"b"', "'single'", "'it''s'", "'open",
           '""', "''", "[a, b]", "[]", "[ ]", "[a,]", "{a: b}", '{"k": [x, {"b": null}]}', "[http://x.y]", "[a b, 1]",
           "[x] y", "{a}", "[0x_]", "")
_COMMON = ("deploy", "Ship it, then check", "12", "2.0", "true", "null", "caf\u00e9 \u2019s", '"quoted: yes"',
           "'single'", "[a, b]", '["x", 2]', "", "", "")
_ODD = ("", "# note", "x", "- z", "key:value", "\t", "...", "---", "k: v # c", "'k': v", "? k", "k :v",
        "K\u00e9y: v", "   ", "-")


def _mapping(rng: random.Random, column: int, depth: int) -> list[str]:
    lines = []
    for _ in range(rng.randint(1, 4)):
        key = rng.choice(_KEYS if rng.random() < 0.97 else _NOT_STRINGS)
        deeper = rng.random() < 0.3 and depth < 10  # the mapping of deeper lines (or lines after a value)
        value = "" if deeper and rng.random() < 0.85 else rng.choice(_COMMON if rng.random() < 0.85 else _VALUES)
        spaces = " " * rng.choice((1, 1, 1, 2, 0)) if value else ""
        trail = " " * rng.choice((0, 0, 0, 1, 3))
        lines.append(f"{' ' * column}{key}:{spaces}{value}{trail}")
        if deeper:
            lines += _mapping(rng, column + rng.choice((2, 2, 1, 4)), depth + 1)
    return lines


def _block(rng: random.Random) -> str:
    lines = _mapping(rng, 0, 0)
    if rng.random() < 0.1:  # an odd indentation somewhere
        at = rng.randrange(len(lines))
        lines[at] = " " * rng.choice((1, 2, 3)) + lines[at]
    if rng.random() < 0.2:  # a line that makes the block no block of key lines (or no mapping at all)
        lines.insert(rng.randint(0, len(lines)), " " * rng.choice((0, 0, 2)) + rng.choice(_ODD))
    text = "\n".join(lines)
    return text if rng.random() < 0.05 else text + "\n"


def _answer(read, raw: str, resolvers: dict):
    """``read``'s answer; a failure (``int("_", 16)`` of ``0x_``) as its type."""
    try:
        return read(raw, resolvers)
    except ValueError as exc:
        return type(exc)


def _compare(rng: random.Random, count: int, resolvers: dict) -> tuple[int, int]:
    """(blocks the reading of key lines answered, those of them with nested lines)."""
    taken = nested = 0
    for _ in range(count):
        raw = _block(rng)
        keyed = _answer(frontmatter._key_lines_mapping, raw, resolvers)
        lines = _answer(frontmatter._line_by_line, raw, resolvers)
        if keyed is not frontmatter._NO:
            taken += 1
            nested += "\n " in raw
            assert repr(keyed) == repr(lines), repr(raw)
        whole = _answer(frontmatter._simple_mapping, raw, None)
        assert repr(whole) == repr(_answer(frontmatter._line_by_line, raw, frontmatter._resolvers())), repr(raw)
    return taken, nested


def test_a_block_of_key_lines_reads_as_line_by_line():
    frontmatter._simple_mapping("a: b\n")  # compiles the reader's patterns
    taken, nested = _compare(random.Random(50), 20_000, frontmatter._resolvers())
    assert taken > 4_000 and nested > 1_000  # they are taken, not all left to the line by line reading


def test_the_loaders_table_reads_them_alike_and_the_loader_builds_the_same():
    yaml = pytest.importorskip("yaml")
    frontmatter._simple_mapping("a: b\n")
    loader = frontmatter._loader_class()
    _compare(random.Random(51), 3_000, loader.yaml_implicit_resolvers)
    rng = random.Random(55)
    taken = 0
    for _ in range(3_000):
        raw = _block(rng)
        keyed = _answer(frontmatter._key_lines_mapping, raw, loader.yaml_implicit_resolvers)
        if keyed is not frontmatter._NO:
            taken += 1
            assert repr(keyed) == repr(yaml.load(raw, Loader=loader)), repr(raw)
    assert taken > 500


@pytest.mark.parametrize("raw", [
    "name: x\ndescription: Ship it\n",
    "name: x\nversion: 1.0\ntags: [a, b]\n",
    'name: "x"\nlicense:\nmeta: {"k": [1]}\n',
    "name: x  \nempty:   \n",
    "name: x\nrequires:\n  mcp: [rube]\n",
    "a:\n  b:\n    c: 1\n  d: ~\ne: f\n",
    "a:\n b:\n     c: 1\n d:\n",
    "a: 1\nb: 2\na:\n  x: y\n",  # a repeated key: its place is the first one's, its value the last one's
])
def test_these_blocks_are_taken(raw):
    frontmatter._simple_mapping("a: b\n")
    keyed = frontmatter._key_lines_mapping(raw, frontmatter._resolvers())
    assert keyed is not frontmatter._NO
    assert repr(keyed) == repr(frontmatter._line_by_line(raw, frontmatter._resolvers()))


@pytest.mark.parametrize("raw", [
    "name: x\n  more\n",  # a continued line
    "name: x\n  b: c\n",  # a deeper line after a value
    "a:\n    b: 1\n  c: 2\n",  # a line between two levels
    " name: x\n",
    "name: x\n# c\n",
    "name: x\n\n",
    "name: x\n- y\n",
    "a:\n- y\n",
    "- name: x\n",
    "name: x",  # no final line break
    "true: x\n",
    "name: |\n  b: c\n",  # a block scalar of key-like lines
    "name: 'open\n  b: c'\n",
    "name: a\tb\n",
    "name: a\rb\n",
    "k: v # c\n",
    "a: 0x_\n",
    "a:\n b:\n  c:\n   d:\n    e:\n     f:\n      g:\n       h:\n        i: 1\n",  # deeper than the reader builds
])
def test_these_are_left_to_the_line_by_line_reading(raw):
    frontmatter._simple_mapping("a: b\n")
    assert frontmatter._key_lines_mapping(raw, frontmatter._resolvers()) is frontmatter._NO


@pytest.mark.slow  # the whole corpus of real skills
def test_the_corpus_blocks_of_key_lines_read_as_line_by_line():
    frontmatter._simple_mapping("a: b\n")
    resolvers = frontmatter._resolvers()
    taken = 0
    for path in sorted(corpora().glob("*/*/SKILL.md")):
        block = frontmatter.split_frontmatter(path.read_text("utf-8", errors="replace").replace("\r\n", "\n"))
        keyed = _answer(frontmatter._key_lines_mapping, block.raw, resolvers)
        if keyed is not frontmatter._NO:
            taken += 1
            assert repr(keyed) == repr(_answer(frontmatter._line_by_line, block.raw, resolvers)), path
    assert taken > 1_500
