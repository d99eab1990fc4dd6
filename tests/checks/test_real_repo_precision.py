"""Precision on real repositories: footnotes are no links, placeholder paths no missing files, and one
missing file several skills name is one finding (docs/checks-skills.md, "Precision on real repositories")."""

from __future__ import annotations

import pytest

from skillsift.checks.spec import placeholder_path, relative_links
from skillsift.validators.grouped import group_repeated
from tests.support.validators_support import check, raw_skill


def _skill(root, name, body):
    return raw_skill(root, name, f"---\nname: {name}\ndescription: Does {name} things.\n---\n{body}", "skills")


def test_a_footnote_is_not_a_link_but_a_reference_definition_is(tmp_path):
    body = ("Results vary [^1].\n\n[^1]: Smith et al. 2020, https://doi.org/10.1000/x\n"
            "[^note]: see the appendix\n[guide]: references/guide.md\n")
    assert relative_links(body, 1) == [(5, "references/guide.md")]
    _skill(tmp_path, "cites", body)
    found = check(tmp_path, select=["SK108"])
    assert [d.message.split(" points")[0] for d in found] == ["link to references/guide.md"]


@pytest.mark.parametrize("path", ["scripts/script_name.py", "scripts/your_script.sh", "path/to/file.py",
                                  "references/file_name.md", "scripts/foo.py", "tools/my-tool.py"])
def test_a_stand_in_path_is_a_placeholder(path):
    assert placeholder_path(path)


@pytest.mark.parametrize("path", ["scripts/build.py", "scripts/train.py", "references/api.md", "scripts/script.py",
                                  "scripts/name_mapper.py", "tools/lint.sh"])
def test_a_real_looking_path_is_not(path):
    assert not placeholder_path(path)


def test_placeholder_paths_give_no_missing_file_but_a_real_one_still_does(tmp_path):
    _skill(tmp_path, "runner", "Run `python scripts/script_name.py --help` for any script.\n"
                               "See [your file](references/your_file.md).\n"
                               "Then run `python scripts/build.py`, see [api](references/api.md).\n")
    found = check(tmp_path, select=["SK108", "SK315"])
    assert sorted((d.code, d.message.split(",")[0].split(" points")[0]) for d in found) == [
        ("SK108", "link to references/api.md"), ("SK315", "the body runs scripts/build.py")]


def test_one_missing_file_named_by_many_skills_is_one_finding(tmp_path):
    for i in range(4):
        _skill(tmp_path, f"s{i}", "Run `python ../shared/scripts/setup.py` first; see [the guide](../shared/guide.md)"
                                  " and [notes](notes.md).\n")
    found = check(tmp_path, select=["SK108", "SK315"])
    shared = [d for d in found if "shared/guide.md" in d.message]
    assert len(shared) == 1 and shared[0].file == "skills/s0/SKILL.md"
    assert shared[0].message.endswith("named by 4 skills: skills/s0/SKILL.md, skills/s1/SKILL.md, "
                                      "skills/s2/SKILL.md, skills/s3/SKILL.md")
    # a file missing from each skill's own folder stays one finding per skill: each folder lacks it
    assert len([d for d in found if "notes.md" in d.message]) == 4


def test_grouping_keeps_order_and_leaves_other_codes():
    from skillsift.diagnostics import Diagnostic

    diags = [Diagnostic(file=f"s{i}/SKILL.md", code="SK108", message="link to x points to a file that does not "
                                                                     "exist (x)") for i in range(3)]
    other = Diagnostic(file="s0/SKILL.md", code="SK101", message="name (x)")
    out = group_repeated([other, *diags], ("SK108",))
    assert out[0] is other and len(out) == 2 and "named by 3 skills" in out[1].message
