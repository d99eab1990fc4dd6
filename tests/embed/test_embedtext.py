"""The embedded text template and its digest (reference §4.1, §4.2)."""

from __future__ import annotations

import hashlib
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillsift.catalog.embedtext import (
    DOC_TEMPLATE_VERSION,
    collapse_whitespace,
    embedded_text,
    text_digest,
)
from skillsift.catalog.skill import Skill
from skillsift.config import DEFAULT_FIELDS

EXAMPLE = Skill(
    name="n",
    description="d  with   spaces",
    triggers=("t1", "t2"),
    keywords=("k1", "k2"),
    body="the body text",
)
EXAMPLE_TEXT = "name: n\ndescription: d with spaces\ntriggers: t1; t2\nkeywords: k1, k2"


def test_reference_examples():
    assert embedded_text(EXAMPLE, DEFAULT_FIELDS) == EXAMPLE_TEXT
    assert embedded_text(EXAMPLE, ["name"]) == "name: n"
    assert embedded_text(EXAMPLE, ["name"], index_body=True, body_chars=5) == "name: n\nbody: the b"


def test_reference_digest():
    expected = "sha256:b6d81ac8cdfb23b91046cac2ef69ddd4df899b16fb907e9cdc89943bd5ec2aa4"
    assert text_digest(EXAMPLE_TEXT) == expected
    assert text_digest("") == "sha256:" + hashlib.sha256(b"").hexdigest()
    assert text_digest("é") == "sha256:" + hashlib.sha256("é".encode()).hexdigest()


def test_template_version_is_one():
    assert DOC_TEMPLATE_VERSION == 1


def test_line_order_is_fixed_whatever_the_configured_order():
    text = embedded_text(EXAMPLE, ["keywords", "description", "name", "triggers"])
    assert text == EXAMPLE_TEXT
    assert embedded_text(EXAMPLE, ["keywords", "name"]) == "name: n\nkeywords: k1, k2"


def test_empty_fields_mean_the_default_fields():
    # the default leaves the name out of the embedded text (docs/ranking-quality.md)
    name_free = EXAMPLE_TEXT.split("\n", 1)[1]
    assert embedded_text(EXAMPLE, ()) == name_free
    assert embedded_text(EXAMPLE, None) == name_free
    assert embedded_text(EXAMPLE, DEFAULT_FIELDS) == EXAMPLE_TEXT


def test_blank_values_are_left_out():
    skill = Skill(name="solo", description=" \t\n ", triggers=(), keywords=("  ",))
    assert embedded_text(skill, DEFAULT_FIELDS) == "name: solo"
    assert embedded_text(Skill(name="solo", description="only"), ["description"]) == "description: only"
    assert embedded_text(Skill(name="x", description="", body="   "), ["description"], index_body=True) == ""


def test_collapse_happens_after_joining():
    # joined first, so the space a value ends with survives before the separator
    skill = Skill(
        name="  spaced\tname ",
        description="multi\nline\r\n text",
        triggers=("  go  live ", "ship\n"),
        keywords=(" a ", "b  c"),
    )
    assert embedded_text(skill, DEFAULT_FIELDS) == (
        "name: spaced name\ndescription: multi line text\ntriggers: go live ; ship\nkeywords: a , b c"
    )


def test_body_is_truncated_to_code_points_before_collapsing():
    skill = Skill(name="n", description="d", body="é🙂x  y z")
    assert embedded_text(skill, ["name"], index_body=True, body_chars=2) == "name: n\nbody: é🙂"
    # "é🙂x  " holds 5 code points: truncation keeps the two spaces, the collapse then drops them
    assert embedded_text(skill, ["name"], index_body=True, body_chars=5) == "name: n\nbody: é🙂x"
    assert embedded_text(skill, ["name"], index_body=True, body_chars=6) == "name: n\nbody: é🙂x y"


def test_body_only_with_index_body_and_non_positive_chars_mean_1200():
    skill = Skill(name="n", description="d", body="x" * 1300)
    assert "body" not in embedded_text(skill, DEFAULT_FIELDS)
    for chars in (0, -5):
        text = embedded_text(skill, ["name"], index_body=True, body_chars=chars)
        assert text == "name: n\nbody: " + "x" * 1200
    assert embedded_text(skill, ["name"], index_body=True) == "name: n\nbody: " + "x" * 1200


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("a\u00a0b", "a b"),  # no-break space
        ("a\u3000\u2028b\u2029c", "a b c"),  # ideographic space, line and paragraph separators
        ("a\x85b\x0bc\x0cd", "a b c d"),  # NEL, vertical tab, form feed
        ("a\u2000\u200ab", "a b"),
        ("a\x1fb", "a\x1fb"),  # a unit separator is not white space (Python's split() would split it)
        ("a\u200bb", "a\u200bb"),  # a zero-width space is not white space either
        ("  ", ""),
    ],
)
def test_unicode_white_space(value, expected):
    assert collapse_whitespace(value) == expected


def test_str_split_splits_on_white_space_and_four_separators_alone():
    """collapse_whitespace uses str.split() when a value holds none of the four: the two agree."""
    from skillsift.catalog import embedtext

    split_on = {chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()}
    assert split_on == set(embedtext._WHITE_SPACE) | set(embedtext._SPLIT_NOT_SPACE)


@given(st.text(alphabet=st.sampled_from(list("ab é\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2028\u3000\u200b")
                                        + ["\U0001f600", "\udcff"]), max_size=40))
def test_collapse_equals_the_regular_expression(value):
    from skillsift.catalog import embedtext

    assert collapse_whitespace(value) == " ".join(piece for piece in embedtext._SPACE_RUN.split(value) if piece)


@given(
    name=st.text(min_size=1, max_size=20),
    description=st.text(max_size=40),
    triggers=st.lists(st.text(max_size=10), max_size=3),
    body=st.text(max_size=30),
    chars=st.integers(min_value=-2, max_value=40),
)
def test_shape_of_any_text(name, description, triggers, body, chars):
    skill = Skill(name=name, description=description, triggers=tuple(triggers), body=body)
    text = embedded_text(skill, DEFAULT_FIELDS, index_body=True, body_chars=chars)
    lines = text.split("\n") if text else []
    labels = [line.split(": ", 1)[0] for line in lines]
    assert labels == [label for label in ("name", "description", "triggers", "body") if label in labels]
    for line in lines:
        value = line.split(": ", 1)[1]
        assert value and value == collapse_whitespace(value)
    assert not text.endswith("\n")
    assert embedded_text(skill, DEFAULT_FIELDS, index_body=True, body_chars=chars) == text
