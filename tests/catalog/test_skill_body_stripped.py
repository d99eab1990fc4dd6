"""A parsed skill's body is trimmed when it is first read (``Stripped``), and reads as ``trim`` of the text
after the frontmatter did when parse_skill trimmed at once."""

from __future__ import annotations

import copy
import pickle
import random

from skillsift.catalog.load import parse_skill, split_blocks, trim
from skillsift.catalog.skill import Stripped
from skillsift.records import replace

SPACES = ("", " ", "\n", "\t", "\r\n", "\u3000", "\x85", "\u2028", "\x1c", "\xa0\n")


def _texts(seed: int = 7, n: int = 400):
    rng = random.Random(seed)
    for _ in range(n):
        head = rng.choice(("---\nname: x\n---", "---\n---", "---\n# only a comment\n---", "no frontmatter",
                           "---\nname: [unclosed\n---", "---\r\nname: y\r\n---\r"))
        body = rng.choice(("", "body", "two\nlines", "\u00e9t\u00e9", "\U0001f600 x"))
        yield head + rng.choice(SPACES) + rng.choice(SPACES) + body + rng.choice(SPACES) + rng.choice(SPACES)


def _eager_body(text: str) -> str:
    """What parse_skill made the body before: the text after a parsed block, trimmed; else the whole text."""
    skill, problems = parse_skill(text, "d")
    lf, block = split_blocks(text)
    if skill.frontmatter_line:
        return trim(block.body)
    return lf[1:] if lf.startswith("\ufeff") else lf


def test_the_body_reads_as_the_trimmed_text_after_the_frontmatter():
    for text in _texts():
        skill, _problems = parse_skill(text, "d")
        assert skill.body == _eager_body(text), repr(text)
        assert type(vars(skill)["body"]) is str  # kept as the str once read


def test_the_trimmed_copy_is_made_on_first_read_only():
    skill, _problems = parse_skill("---\nname: x\n---\n\nbody\n", "d")
    assert type(vars(skill)["body"]) is Stripped
    assert skill.body == "body" and vars(skill)["body"] == "body"
    untouched, _problems = parse_skill("---\nname: x\n---\nbody", "d")
    assert type(vars(untouched)["body"]) is str  # nothing to trim: the block's body itself


def test_copies_pickles_replacements_and_equality_see_the_trimmed_body():
    text = "---\nname: x\n---\n\u3000body \U0001f600\n\n"
    for make in (copy.copy, copy.deepcopy, lambda s: pickle.loads(pickle.dumps(s)), lambda s: replace(s, plugin="p")):
        skill, _problems = parse_skill(text, "d")
        other = make(skill)
        assert other.body == "body \U0001f600" and type(vars(other)["body"]) is str
    first, _problems = parse_skill(text, "d")
    second, _problems = parse_skill(text, "d")
    assert first == second and hash(first.body) == hash(second.body)
