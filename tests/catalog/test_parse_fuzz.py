"""Property tests: no input makes parsing raise; every outcome is a skill or a diagnostic."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillsift.catalog.frontmatter import split_frontmatter
from skillsift.catalog.load import parse_skill, read_skill
from skillsift.catalog.skill import Skill
from skillsift.diagnostics import Diagnostic
from tests.support.frontmatter_mapping import parse_yaml_mapping

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Characters that matter to YAML and to the fence rules, plus some of everything else.
YAML_ALPHABET = st.sampled_from(
    list("-:#[]{}&*!|>'\"%@`,?~ \t\r\n")
    + ["---", "\n---\n", "  - ", "name: ", "description: ", "\ufeff", "é", "\x00"]
)
yamlish = st.lists(st.one_of(YAML_ALPHABET, st.text(max_size=4)), max_size=60).map("".join)


def _check_skill(skill: Skill, diags: list[Diagnostic], dir_id: str) -> None:
    assert isinstance(skill, Skill)
    assert skill.name and skill.description
    if dir_id:
        assert skill.name == dir_id or skill.frontmatter.get("name") == skill.name
    assert isinstance(skill.frontmatter, dict)
    assert all(isinstance(t, str) and t for t in skill.triggers + skill.keywords + skill.tags + skill.roles)
    for d in diags:
        assert isinstance(d, Diagnostic) and d.code == "SK001" and d.severity == "error"
        assert d.file == "skills/x/SKILL.md"
    if diags:
        assert skill.frontmatter == {}


@FAST
@given(text=st.text(max_size=400), dir_id=st.text(min_size=1, max_size=12))
def test_any_text(text, dir_id):
    skill, diags = parse_skill(text, dir_id, path="skills/x/SKILL.md")
    _check_skill(skill, diags, dir_id)


@FAST
@given(raw=yamlish, body=st.text(max_size=40), crlf=st.booleans())
def test_random_frontmatter(raw, body, crlf):
    text = f"---\n{raw}\n---\n{body}"
    if crlf:
        text = text.replace("\n", "\r\n")
    skill, diags = parse_skill(text, "x", path="skills/x/SKILL.md")
    _check_skill(skill, diags, "x")
    for d in diags:
        assert d.line is not None and 1 <= d.line <= text.count("\n") + 1


@FAST
@given(raw=yamlish, first_line=st.integers(min_value=1, max_value=50))
def test_yaml_mapping_lines_stay_in_the_block(raw, first_line):
    data, diags = parse_yaml_mapping(raw, file="f", first_line=first_line)
    assert (data is None) == bool(diags)
    if data is not None:
        assert isinstance(data, dict)
    for d in diags:
        assert first_line <= d.line <= first_line + raw.count("\n") + 1


@FAST
@given(text=st.one_of(yamlish, st.text(max_size=200)))
def test_split_invariants(text):
    fm = split_frontmatter(text)
    plain = text[1:] if text.startswith("\ufeff") else text
    assert fm.closed <= fm.present
    if not fm.closed:
        assert fm.body == plain
    else:
        assert plain.endswith(fm.body)
        assert fm.yaml_start_line == 2 and fm.body_line == fm.raw.count("\n") + 3
        assert all(not line.endswith("\r") for line in fm.raw.split("\n"))


@settings(max_examples=200, deadline=None)
@given(
    data=st.binary(max_size=300),
    prefix=st.sampled_from([b"", b"---\n", b"---\nname: x\n---\n", b"\xef\xbb\xbf---\r\n"]),
)
def test_any_bytes_from_disk(data, prefix):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "skills" / "x" / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_bytes(prefix + data)
        skill, diags = read_skill(path, tmp)
    if skill is None:
        [d] = diags
        assert d.file == "skills/x/SKILL.md" and d.code == "SK001" and d.line >= 1
    else:
        _check_skill(skill, diags, "x")
