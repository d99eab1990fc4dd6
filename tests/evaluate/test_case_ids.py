"""A case id is one line of printable text (AR9D2): a line break would turn one id into several
in ``regressed-cases`` and every report."""

from __future__ import annotations

import json

import pytest

from skillsift.diagnostics import SkillsiftError
from skillsift.evaluate.cases import parse_cases
from tests.conftest import write_skill
from tests.support.cli import run


@pytest.mark.parametrize("case_id", ["a\nb", "a\rb", "tab\there", "esc\x1b[31m", "nel\x85x", "ls\u2028x"])
def test_an_id_with_a_control_character_is_refused(case_id):
    text = f"version: 1\ncases:\n  - id: {json.dumps(case_id)}\n    query: q\n    expect: []\n"
    with pytest.raises(SkillsiftError) as info:
        parse_cases(text, "c.yaml")
    assert "control character" in info.value.message and "line 3" in info.value.message


def test_the_cases_check_reports_it_with_its_line(tmp_path, capsys):
    write_skill(tmp_path, "deploy-prod", "Deploy to production")
    (tmp_path / "search-cases.yaml").write_text(
        'version: 1\ncases:\n  - id: ok\n    query: deploy\n    expect: [deploy-prod]\n'
        '  - id: "one\\ntwo"\n    query: deploy\n    expect: [deploy-prod]\n', encoding="utf-8")
    code, out, _err = run(capsys, "validate", "--root", tmp_path, "--select", "AR9D2")
    assert code == 1
    assert "search-cases.yaml:6: AR9D2" in out and "control character" in out
    assert parse_cases("version: 1\ncases:\n  - id: fine-id\n    query: q\n    expect: []\n").cases[0].id == "fine-id"
