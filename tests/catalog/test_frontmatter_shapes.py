"""The fast frontmatter reader's nested mappings, block scalars, escapes and scalars that are not strings
against the YAML loader itself: seeded random documents built of those shapes and of their near misses.
Wherever the fast reader answers, it answers what the loader builds (compared by ``repr``, so ``1`` and
``True``, ``0.0`` and ``-0.0`` differ); everywhere, ``read_yaml`` answers what it answered before
(tests/support/frontmatter_reference.py)."""

from __future__ import annotations

import random

import pytest

from skillsift.catalog import frontmatter
from tests.support import frontmatter_reference as reference

yaml = pytest.importorskip("yaml")
LOADER = frontmatter._loader_class()

_KEYS = ("name", "description", "tags", "metadata", "a-b", "x_y", "true", "null", "Name", "k1")
_PLAIN = ("deploy", "Ship it", "12", "-3", "+4", "0", "00", "-0", "0_1", "017", "09", "0b101", "-0b11", "0x1F",
          "0x_", "1_000", "2.0", "-1.5e3", "1e5", ".5", "+.5", "1.", "1__0.5", ".inf", "-.Inf", ".nan", "NaN",
          "true", "False", "TRUE", "yes", "on", "null", "Null", "~", "2026-03-05", "12:30", "1:2", "<<", "v1.0",
          "a:b", "a #b", "x # c", "caf\u00e9", "\U0001f600", "-", "-x", "- x", "?", "? x", ":x", "a: b",
          "@x", "`x`", "!tag x", "&a x", "*a", "{a: b}", "%x", "x\t y", "end:")
_QUOTED = ('"quoted"', "'single'", '"a \\"b\\" c"', '"t\\tab\\n\\\\"', '"\\u00e9\\u2019"', '"\\ud800"', '"\\x41"',
           '"\\q"', '"\\/"', '"end\\"', "'it''s'", '""', "''", '"a"b"', "'a", '"#x"', '"\\u12"', '"a\\u0000b"')
_FLOWS = ("[a, b]", "[]", "[ a , b ]", '["a b", c]', '["a\\"b"]', "[1, 2]", "[a, [b]]", "[a,]", "[a b, c]",
          "{}", "{a: b}", "{a:b}", '{"a":"b"}', '{"a":b}', "{'a':1}", '{"a": [x, {"b": null}]}', "{a: }", "{a}",
          "{a: b, a: c}", "[a: b]", "[a:b, N:M x]", "[:a]", "[a:]", "[http://x.y/z?q]", "[a, , b]", "[ ]",
          "{ a : b }", '["ray[data]", x]', "[it's]", "[a #b]", "[a]x", "{true: 1}", "{1: a}", "[-a, -1]",
          "[a, [b, [c, [d]]]]", "[\u00e9, \U0001f600]", "{a: [b], c: {d: e}}", "[a ,b]", "[a, b ]")
_MULTI = ("one\n  two", "one\n\n  two\n   three", "one\n# c\n  two", "one\n  - two", "one\n  two: x",
          "one\n two", "one\n  'two'", "1\n  2", "one\n  #two", "one\n  two #c", "'a\n  b'", "'a\n\n  b\n  '",
          "'a\n  b' c", "'a\n  b''c'", "'a\nb'", '"a\n  b"', '"a\\\n  b"', '"a \\u00e9\n\n  \\"b\\""', "'a  \n   b  '",
          "'a\n  \tb'", '"a', "'\n  a'", "'a\n\n'")
_HEADERS = ("|", "|-", ">", ">-", "|+", ">+", "|2", "| # c", ">1-", "|  ")
_TEXTS = ("one", "two words", "  indented more", "# not a comment", "x: y", "- z", "tab\there", "trail  ",
          "\u00e9t\u00e9", "'q'", "\"d\"")


def _scalar(rng: random.Random) -> str:
    return rng.choice(_PLAIN if rng.random() < 0.6 else _QUOTED)


def _block_scalar(rng: random.Random, column: int) -> list[str]:
    inner = column + rng.choice((2, 2, 2, 1, 4, 0))
    lines = []
    if rng.random() < 0.05:
        lines.append(" " * rng.choice((0, inner, inner + 2)))
    for _ in range(rng.randint(0, 4)):
        roll = rng.random()
        if roll < 0.15:
            lines.append(" " * rng.choice((0, 1, inner, inner + 1)))
        else:
            lines.append(" " * (inner + (2 if roll > 0.93 else 0)) + rng.choice(_TEXTS))
    return lines


def _mapping(rng: random.Random, column: int, depth: int) -> list[str]:
    lines = []
    for _ in range(rng.randint(1, 4)):
        key = rng.choice(_KEYS)
        pad = " " * column
        shape = rng.random()
        if shape < 0.35:
            lines.append(f"{pad}{key}: {_scalar(rng)}")
        elif shape < 0.45:
            lines.append(f"{pad}{key}: {rng.choice(_FLOWS)}")
        elif shape < 0.52:
            lines.append(f"{pad}{key}: {rng.choice(_HEADERS)}")
            lines += _block_scalar(rng, column)
        elif shape < 0.6:
            more = " " * (column + rng.choice((1, 2, 2, 0)))
            lines += (f"{pad}{key}: " + rng.choice(_MULTI).replace("\n  ", "\n" + more)).split("\n")
        elif shape < 0.75:
            lines.append(f"{pad}{key}:")
            dash = column + rng.choice((0, 2, 2, 4))
            for _ in range(rng.randint(1, 3)):
                if rng.random() < 0.25 and depth < 4:  # a mapping in the list
                    inner = _mapping(rng, dash + 2, depth + 1)
                    lines.append(" " * dash + "- " + inner[0].lstrip(" "))
                    lines += inner[1:]
                else:
                    lines.append(" " * dash + "- " + (rng.choice(_FLOWS) if rng.random() < 0.15 else _scalar(rng)))
        elif shape < 0.9 and depth < 4:
            lines.append(f"{pad}{key}:")
            lines += _mapping(rng, column + rng.choice((2, 2, 1, 4)), depth + 1)
        else:
            lines.append(f"{pad}{key}:")
        if rng.random() < 0.12:
            lines.append(rng.choice(("", "# note", "  ", "\t", " " * (column + 1) + "x", "  # c", "...")))
    return lines


def _document(rng: random.Random) -> str:
    lines = _mapping(rng, 0, 0)
    if rng.random() < 0.1:  # an odd indentation somewhere
        at = rng.randrange(len(lines))
        lines[at] = " " + lines[at]
    text = "\n".join(lines)
    return text if rng.random() < 0.05 else text + "\n"


def _loaded(raw: str):
    try:
        return repr(yaml.load(raw, Loader=LOADER))
    except Exception as exc:  # noqa: BLE001 - any failure: the fast reader must not answer
        return f"error {type(exc).__name__}"


def _fast(raw: str, loader=None):
    """The fast reader's answer (read_yaml takes a failure, such as ``int("", 16)`` of ``0x_``, as None)."""
    try:
        return frontmatter._simple_mapping(raw, loader)
    except ValueError:
        return None


def test_the_fast_reader_builds_what_the_loader_builds():
    rng = random.Random(48)
    taken = 0
    for _ in range(12_000):
        raw = _document(rng)
        fast = _fast(raw, LOADER)
        if fast is not None:
            taken += 1
            assert repr(fast) == _loaded(raw), repr(raw)
            assert repr(_fast(raw)) == repr(fast), repr(raw)  # without PyYAML alike
    assert taken > 1_000  # the shapes are taken, not all left to the loader


def test_read_yaml_answers_as_before_on_these_shapes():
    rng = random.Random(49)
    for _ in range(3_000):
        raw = _document(rng)
        got = frontmatter.read_yaml(raw, file="f/SKILL.md", first_line=2)
        expected = reference.read_yaml(raw, file="f/SKILL.md", first_line=2)
        assert (repr(got.value), got.empty, got.diagnostics) == \
            (repr(expected.value), expected.empty, expected.diagnostics), repr(raw)


@pytest.mark.parametrize("raw", [
    "a: |\n  x\n\n  y\n",
    "a: >\n  x\n  y\n\n\n  z\n",
    "a: >-\n  x\n  y\nb: 1\n",
    "a:\n  b:\n    c:\n      - 1\n      - x\n  d: ~\n",
    "a:\n- 0b11\n- -0x1f\n- 0_17\n- 1_0.5\n",
    'a: "\\u00e9 \\"q\\" \\\\ \\/ \\t"\n',
    "a:\nb:\n",
    "a: x\n  b\n",
])
def test_named_shapes_are_taken_and_match(raw):
    fast = frontmatter._simple_mapping(raw, LOADER)
    assert fast is not None
    assert repr(fast) == _loaded(raw)


@pytest.mark.parametrize("raw", [
    "a: |\n  x",  # no line break after the last line
    "a: |\n\n  x\n",  # a blank first line
    "a: >\n  x\n    more\n",  # a folded line indented further
    "a: |\n  x\n     \n",  # a line of spaces longer than the indentation
    "a: |+\n  x\n",
    "a: |2\n   x\n",
    "a: .inf\n",
    'a: "\\x41"\n',
    "a:\n  b: 1\n c: 2\n",
    "a:\n  - x\n  b: 1\n",
    "a: 1\rb: 2\n",
])
def test_near_misses_go_to_the_loader(raw):
    assert frontmatter._simple_mapping(raw, LOADER) is None


def test_the_unprintable_class_is_yamls_printable_set_turned_around():
    """The fast reader refuses the characters outside YAML's printable set, the line breaks other than LF
    and the BOM: its class names them one by one, and is that set, code point for code point."""
    import re

    frontmatter._simple_mapping("a: b\n")  # compiles the reader's patterns
    printable = re.compile("[\t\n\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
    refused = {"\r", "\x85", "\u2028", "\u2029", "\ufeff"}
    for point in range(0x110000):
        char = chr(point)
        expected = char in refused or not printable.match(char)
        assert bool(frontmatter._NOT_PRINTABLE.match(char)) == expected, hex(point)


def test_every_unprintable_character_is_refused_and_others_read_as_the_loader_reads_them():
    """The reader looks for those characters only in the lines Python does not call printable."""
    frontmatter._simple_mapping("a: b\n")
    refused = [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, *range(0xD800, 0xE000),
               0xFEFF, 0xFFFE, 0xFFFF]
    for point in sorted({*refused, *range(0, 0x110000, 89)}):
        char = chr(point)
        if char == "\n":
            continue
        raw = f"a: x{char}y\nb: [{char}z]\n"
        fast = _fast(raw, LOADER)
        if frontmatter._NOT_PRINTABLE.match(char):
            assert fast is None, hex(point)
        elif fast is not None:
            assert repr(fast) == _loaded(raw), hex(point)
