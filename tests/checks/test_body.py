"""checks/body.py: the fences of a body, found by searching fence runs, equal a fence regex tried at every line."""

from __future__ import annotations

import random
import re

import pytest

from skillsift.checks.body import fences
from tests.conftest import corpora
from tests.support.body_checks_reference import fence_spans


def _same(body: str) -> None:
    inside, unclosed = fences(body)
    assert (inside.spans, unclosed) == fence_spans(body), body


def test_fences_of_hand_made_bodies():
    for body in ("", "text", "```\ncode\n```", "   ```py\nx\n   ```", "    ```\nnot a fence (4 spaces)\n",
                 "a ``` b\n```\nin\n```  \nout", "~~~\n```\n~~~~\n", "````\n```\n````", "```\nno close",
                 "x```\n``````\ny\n```` trailing\n`````", " \t```\n", "~~```\n```~~~\nz\n```", "```\r\nx\r\n```\r\n",
                 "\n\n  ~~~~ a\nb\n  ~~~~\n"):
        _same(body)


def test_fences_equal_the_line_regex_on_random_bodies():
    rng = random.Random(20261206)
    pieces = ["```", "````", "~~~", "~~~~~", "``", "~", " ", "  ", "    ", "\t", "\n", "\n", "\n", "x", "py", "`", "\r"]
    for _ in range(3000):
        _same("".join(rng.choice(pieces) for _ in range(rng.randint(0, 40))))


@pytest.mark.slow  # the whole corpus of real skills
def test_fences_equal_the_line_regex_on_the_corpus():
    for path in sorted(corpora().rglob("SKILL.md")):
        _same(path.read_text("utf-8", "replace"))


def _reference_lines_holding(text: str, needles) -> list[tuple[int, str]]:
    return [(number, line) for number, line in enumerate(text.split("\n")) if any(n in line for n in needles)]


def test_fence_lines_and_lines_holding_equal_a_pass_over_every_line():
    """The fence lines (as the spec check's link scan reads them) and the lines holding the body check's
    markers, found by searching, equal a regex or a test tried on every line."""
    from skillsift.validators.parsed import fenced_blocks, lines_holding, located_lines_holding

    rng = random.Random(45)
    pieces = ["```", "~~~", "``", "~", " ", "  ", "    ", "\n", "\n", "x", "TODO", "TO", "DO", "$", "!", "`", "!`"]
    for _ in range(3000):
        body = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        starts = [m.start() for m in re.finditer(r"^ {0,3}(?:```|~~~)", body, re.MULTILINE)]
        assert fenced_blocks(body).lines == starts, body
        for needles in (["TODO", "$", "!`"], ["$"], ["!`", "TODO"], []):
            assert lines_holding(body, needles) == _reference_lines_holding(body, needles), body
            found = located_lines_holding(body, needles)
            assert [(number, line) for number, _start, line in found] == _reference_lines_holding(body, needles)
            assert all(body[start:].split("\n", 1)[0] == line for _number, start, line in found), body
