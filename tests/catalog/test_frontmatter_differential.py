"""The faster frontmatter split and YAML read against the code they replaced
(tests/support/frontmatter_reference.py): seeded random documents and the corpus of real skills."""

from __future__ import annotations

import random

import pytest

from skillsift.catalog import frontmatter
from skillsift.catalog.load import parse_skill
from tests.conftest import corpora
from tests.support import frontmatter_reference as reference

_PIECES = ("---", "--- ", "---\t", "---\r", "----", " ---", "---x", "-- -", "\n", "\n", "\r\n", "\r", "\ufeff",
           "name: x", "a", " ", "\t", "-", "")


def _block(block) -> tuple:
    return (block.present, block.closed, block.raw, block.body, block.yaml_start_line, block.body_line)


def _document(doc) -> tuple:
    return (repr(doc.value), doc.empty, doc.diagnostics)


def test_split_agrees_on_random_texts():
    rng = random.Random(45)
    for _ in range(40_000):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 14)))
        assert _block(frontmatter.split_frontmatter(text)) == _block(reference.split_frontmatter(text)), repr(text)


_KEYS = ("name", "description", "tags", "true", "null", "x_y", "a-b", "1a", "metadata", "Name")
_VALUES = ("deploy", "Ship it", '"quoted"', "'single'", "[a, b]", "[]", '["a b", c]', "[a, [b]]", "2.0", "12",
           "true", "null", "~", "", "a: b", "x # c", ">-", "|", "&a x", "*a", "-", "- x", "? x", "\u00e9t\u00e9",
           "caf\u00e9 [1]", "\t", "\x07bell", "d\x7fel", "c1\x85", "ls\u2028", "\x0cff", "\ufeffbom", "'it''s'",
           '"esc\\"aped"', "{a: b}", "@x", "`x`", "[a,")


def _yaml_line(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.45:
        return f"{rng.choice(_KEYS)}: {rng.choice(_VALUES)}".rstrip(" ") if rng.random() < 0.9 \
            else f"{rng.choice(_KEYS)}:{rng.choice(_VALUES)}"
    if kind < 0.6:
        return f"{rng.choice(_KEYS)}:"
    if kind < 0.75:
        return " " * rng.choice((1, 2, 2, 4)) + rng.choice(("- ", "")) + rng.choice(_VALUES)
    if kind < 0.85:
        return " " * rng.choice((2, 4)) + f"{rng.choice(_KEYS)}: {rng.choice(_VALUES)}"
    return rng.choice(("", "# note", "  # indented", "\t", "...", "---", "[" * 70, "- " * 40 + "x",
                       " " * 70 + "x: y"))


_SAFE_VALUES = ("deploy", "Ship it now", '"quoted: yes"', "'single'", "[a, b]", "[]", '["a b", c]', "2.0", "12",
                "true", "caf\u00e9", "a-b_c", "x.y", "'#1'", "v1", "use when: x")


def _simple_document(rng: random.Random) -> str:
    """Mostly the forms the fast reader takes: top-level keys, block lists, one nested mapping."""
    lines = []
    for _ in range(rng.randint(1, 6)):
        key = rng.choice(_KEYS)
        shape = rng.random()
        if shape < 0.6:
            lines.append(f"{key}: {rng.choice(_SAFE_VALUES)}")
        elif shape < 0.8:
            indent = rng.choice(("", "  "))
            lines += [f"{key}:"] + [f"{indent}- {rng.choice(_SAFE_VALUES)}" for _ in range(rng.randint(1, 3))]
        else:
            lines += [f"{key}:"] + [f"  {rng.choice(_KEYS)}: {rng.choice(_SAFE_VALUES)}"
                                    for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.1:
            lines.append(rng.choice(("", "# note", _yaml_line(rng))))
    return "".join(line + "\n" for line in lines)


def test_read_yaml_agrees_on_random_frontmatter():
    rng = random.Random(46)
    for _ in range(8_000):
        raw = _simple_document(rng) if rng.random() < 0.5 else \
            "".join(_yaml_line(rng) + "\n" for _ in range(rng.randint(0, 7)))
        got = frontmatter.read_yaml(raw, file="f/SKILL.md", first_line=2)
        assert _document(got) == _document(reference.read_yaml(raw, file="f/SKILL.md", first_line=2)), repr(raw)


def test_parse_skill_digests_the_bytes_it_is_given():
    for text in ("---\nname: x\n---\nbody\n", "\ufeff---\r\nname: \u00e9\r\n---\r\n", "", "plain \U0001f600"):
        assert parse_skill(text, "d", data=text.encode("utf-8")) == parse_skill(text, "d")


@pytest.mark.slow  # the whole corpus of real skills
def test_split_and_read_agree_on_the_real_corpus():
    files = sorted(corpora().glob("*/*/SKILL.md"))
    assert files
    for path in files:
        data = path.read_bytes()
        text = data.decode("utf-8", errors="replace")
        for variant in (text, text.replace("\r\n", "\n")):
            block = frontmatter.split_frontmatter(variant)
            assert _block(block) == _block(reference.split_frontmatter(variant)), path
            assert _document(frontmatter.read_yaml(block.raw)) == _document(reference.read_yaml(block.raw)), path
        if text.encode("utf-8") == data:
            assert parse_skill(text, "d", data=data) == parse_skill(text, "d"), path


def test_flow_list_words_with_indicators_inside_read_as_the_loader_reads_them():
    """``& * ! | > % @ ` ?`` inside a plain flow item are text (``torch>=2.0``); at its start they are not
    the fast reader's to read."""
    from skillsift.catalog.frontmatter import _loader_class, _simple_mapping

    yaml = pytest.importorskip("yaml")
    loader = _loader_class()
    rng = random.Random(47)
    taken = 0
    for _ in range(4_000):
        words = ["".join(rng.choice("ab>=&*!|%@`?.-_ 1:#'\"") for _ in range(rng.randint(0, 6)))
                 for _ in range(rng.randint(1, 3))]
        raw = f"deps: [{', '.join(words)}]\n"
        fast = _simple_mapping(raw)
        if fast is not None:
            taken += 1
            assert fast == yaml.load(raw, Loader=loader), repr(raw)
    assert taken > 400
