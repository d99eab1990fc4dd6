"""Frontmatter fences (reference §4.3) and safe YAML reading."""

from __future__ import annotations

import pytest
import yaml

from skillsift.catalog.frontmatter import (
    MAX_DEPTH,
    Frontmatter,
    _loader_class,
    is_fence,
    read_yaml,
    split_frontmatter,
)
from tests.support.frontmatter_mapping import parse_yaml_mapping

# ----------------------------------------------------------------------------- fences


@pytest.mark.parametrize(
    "line, expected",
    [
        ("---", True),
        ("--- ", True),
        ("---\t", True),
        ("---\r", True),
        ("--- \t \r", True),
        (" ---", False),
        ("----", False),
        ("---foo", False),
        ("--", False),
        ("", False),
        ("- --", False),
    ],
)
def test_is_fence(line, expected):
    assert is_fence(line) is expected


def test_block_scalar_holding_a_dash_run_does_not_close():
    text = "---\nname: demo\ndescription: |\n  text\n  ----\n  more\n---\nBody\n"
    fm = split_frontmatter(text)
    assert fm == Frontmatter(
        present=True,
        closed=True,
        raw="name: demo\ndescription: |\n  text\n  ----\n  more\n",
        body="Body\n",
        yaml_start_line=2,
        body_line=8,
    )


def test_empty_block_closes_at_the_first_fence():
    fm = split_frontmatter("---\n---\nText\n\n---\n\nrule above\n")
    assert fm.closed and fm.raw == ""
    assert fm.body == "Text\n\n---\n\nrule above\n"
    assert fm.body_line == 3


def test_longer_dash_run_is_yaml_not_a_fence():
    fm = split_frontmatter("---\na: 1\n----\nb: 2\n---\nx")
    assert fm.closed
    assert fm.raw == "a: 1\n----\nb: 2\n"
    assert fm.body == "x"


def test_leading_blank_line_is_not_frontmatter():
    text = "\n---\na: 1\n---\n"
    fm = split_frontmatter(text)
    assert not fm.present and not fm.closed
    assert fm.body == text
    assert fm.yaml_start_line == 0


def test_lone_fence_is_not_frontmatter():
    assert split_frontmatter("---") == Frontmatter(body="---")
    assert not split_frontmatter("--- \r").present


def test_closing_fence_at_end_of_file_gives_empty_body():
    fm = split_frontmatter("---\na: 1\n---")
    assert fm.closed and fm.raw == "a: 1\n" and fm.body == ""
    fm = split_frontmatter("---\na: 1\n--- \t")
    assert fm.closed and fm.body == ""


@pytest.mark.parametrize("opening", [" ---", "----", "---foo", "-- -"])
def test_non_fence_first_line_means_no_frontmatter(opening):
    text = f"{opening}\nname: x\n---\nbody"
    fm = split_frontmatter(text)
    assert not fm.present
    assert fm.body == text


def test_fence_with_trailing_blanks_opens_and_closes():
    fm = split_frontmatter("--- \t\nname: x\n---   \nbody")
    assert fm.closed and fm.raw == "name: x\n" and fm.body == "body"


def test_bom_is_dropped_and_crlf_kept_in_body_but_not_in_raw():
    fm = split_frontmatter("\ufeff---\r\nname: x\r\ndescription: d\r\n---\r\nline1\r\nline2\r\n")
    assert fm.closed
    assert fm.raw == "name: x\ndescription: d\n"
    assert fm.body == "line1\r\nline2\r\n"
    assert fm.yaml_start_line == 2 and fm.body_line == 5


def test_bom_dropped_without_frontmatter_too():
    assert split_frontmatter("\ufeffjust text").body == "just text"


def test_unclosed_block_is_present_not_closed_and_body_is_whole_text():
    text = "---\nname: x\n"
    fm = split_frontmatter(text)
    assert fm.present and not fm.closed
    assert fm.body == text
    assert fm.raw == "name: x\n"
    assert fm.yaml_start_line == 2 and fm.body_line == 0


def test_huge_unclosed_block_splits_in_linear_time():
    import time

    text = "---\n" + "key: value\n" * 200_000
    start = time.perf_counter()
    fm = split_frontmatter(text)
    assert not fm.closed and fm.raw.count("\n") == 200_000
    assert time.perf_counter() - start < 2.0


# ----------------------------------------------------------------------------- YAML


def test_uses_the_c_loader_when_available():
    base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    assert issubclass(_loader_class(), base)
    assert issubclass(_loader_class(), yaml.constructor.SafeConstructor)


def test_mapping_is_returned():
    data, diags = parse_yaml_mapping("name: x\ntriggers: [a, b]\n", file="f", first_line=2)
    assert diags == []
    assert data == {"name": "x", "triggers": ["a", "b"]}


@pytest.mark.parametrize("raw", ["", "\n\n", "# only a comment\n", "null\n", "~\n"])
def test_blank_comment_or_null_document_is_an_empty_mapping(raw):
    assert parse_yaml_mapping(raw, file="f", first_line=2) == ({}, [])


def test_read_yaml_tells_an_empty_document_from_an_explicit_null():
    assert read_yaml("# c\n").empty is True
    assert read_yaml("").empty is True
    null = read_yaml("null\n")
    assert null.empty is False and null.value is None and null.ok


def test_syntax_error_reports_the_file_line_and_column():
    raw = "name: x\ndescription: ok\nbroken: a: b\n"
    data, diags = parse_yaml_mapping(raw, file="skills/x/SKILL.md", first_line=2)
    assert data is None
    [d] = diags
    assert (d.file, d.code, d.severity) == ("skills/x/SKILL.md", "SK001", "error")
    assert d.line == 4  # third YAML line, file line 2 + 2
    assert d.column == 10  # the second ':' on that line
    assert "mapping values are not allowed" in d.message
    assert "quote" in d.hint
    # the same text further down the file moves the line with it
    _, [d2] = parse_yaml_mapping(raw, file="f", first_line=12)
    assert d2.line == 14


def test_tab_indentation_gets_the_tab_hint():
    _, [d] = parse_yaml_mapping("name: x\n\tdescription: y\n", file="f", first_line=2)
    assert d.line == 3 and d.column == 1
    assert "tab" in d.hint


def test_unclosed_flow_sequence_points_past_the_problem():
    _, [d] = parse_yaml_mapping("name: x\ntriggers: [a, b\nkeywords: c\n", file="f", first_line=2)
    assert d.code == "SK001" and d.line >= 3
    assert d.message.startswith("frontmatter is not valid YAML: ")


@pytest.mark.parametrize(
    "raw, kind",
    [("- a\n- b\n", "a list"), ("just words\n", "a string"), ("42\n", "a number"), ("true\n", "a boolean")],
)
def test_document_that_is_not_a_mapping_is_a_diagnostic(raw, kind):
    data, [d] = parse_yaml_mapping(raw, file="f", first_line=2)
    assert data is None
    assert d.code == "SK001" and d.line == 2
    assert d.message == f"frontmatter must be a mapping of keys to values, not {kind}"


def test_yaml_1_2_scalars_match_the_reference_library():
    data, diags = parse_yaml_mapping(
        "k: [on, off, yes, no, y, 12:30, 2024-01-01, true, False, 7, 0x1f, 1.5, 1e3, ~]\n",
        file="f",
        first_line=2,
    )
    assert diags == []
    assert data["k"] == [
        "on",
        "off",
        "yes",
        "no",
        "y",
        "12:30",
        "2024-01-01",
        True,
        False,
        7,
        31,
        1.5,
        1000.0,
        None,
    ]


def test_python_tags_are_refused():
    _, [d] = parse_yaml_mapping("a: !!python/object/apply:os.system ['true']\n", file="f", first_line=2)
    assert d.code == "SK001"


def test_deep_nesting_is_refused_without_building_it():
    depth = 200_000  # enough to overflow the machine stack if the C composer saw it
    raw = "a: " + "[" * depth + "]" * depth + "\n"
    data, [d] = parse_yaml_mapping(raw, file="f", first_line=2)
    assert data is None
    # refused by the depth check, or earlier by a libyaml that has its own nesting limit
    assert f"deeper than {MAX_DEPTH}" in d.message or "nesting depth" in d.message
    assert d.line == 2


def test_moderate_nesting_is_fine():
    depth = MAX_DEPTH - 1
    data, diags = parse_yaml_mapping("a: " + "[" * depth + "]" * depth + "\n", file="f", first_line=2)
    assert diags == [] and isinstance(data["a"], list)


def test_alias_bomb_is_refused():
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdefg", "bcdefgh", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    data, [d] = parse_yaml_mapping("\n".join(lines) + "\n", file="f", first_line=2)
    assert data is None and "expands to more than" in d.message


def test_recursive_alias_is_refused():
    data, [d] = parse_yaml_mapping("x: &a [*a]\n", file="f", first_line=2)
    assert data is None and "cycle" in d.message


def test_small_aliases_are_fine():
    data, diags = parse_yaml_mapping("base: &b [a, b]\ntriggers: *b\n", file="f", first_line=2)
    assert diags == [] and data["triggers"] == ["a", "b"]


@pytest.mark.parametrize(
    "raw",
    [
        "a: !!timestamp 2024-13-45\n",  # ValueError inside the constructor
        "a: 0b_\n",  # ValueError from int()
        "? [a, b]\n: c\n",  # unhashable key
        "a: 1\n...\nb: 2\n",  # document end marker then more
        "a: *undefined\n",
        "a: !!binary '%%%'\n",
        "a: " + "9" * 10_000 + "\n",  # int() digit limit on Python >= 3.11
        "\x00\x01: x\n",
    ],
)
def test_odd_documents_give_a_diagnostic_never_an_exception(raw):
    data, diags = parse_yaml_mapping(raw, file="f", first_line=2)
    if data is None:
        assert len(diags) == 1 and diags[0].code == "SK001" and diags[0].file == "f"
        assert diags[0].line is not None and diags[0].line >= 2
    else:
        assert diags == [] and isinstance(data, dict)
