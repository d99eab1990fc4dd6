"""``skillsift eval --why``: explanations of misses and trigger proposals that are checked."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from conftest import ROOT

from skillsift.catalog import catalog_from_skills
from skillsift.cli import main
from skillsift.config import Config
from skillsift.evaluate import whynot
from skillsift.evaluate.cases import load_cases
from skillsift.ranker.search import Ranker
from skillsift.skill import Skill

ACME = ROOT / "examples" / "acme"


def _ranker(skills):
    return Ranker(catalog_from_skills(skills), Config())


def test_a_miss_is_explained_by_terms_and_points():
    skills = [Skill("refund", "Give money back for an order"), Skill("report", "Monthly order report")]
    case_file = load_cases_text("- id: c1\n  query: monthly order\n  expect: [refund]\n")
    ranker = _ranker(skills)
    misses = whynot.explain(ranker, case_file.cases, "lexical", ranker.lexical.query_terms)
    assert len(misses) == 1
    m = misses[0]
    assert m.winner.name == "report" and m.expected.name == "refund" and m.expected.rank == 2
    assert dict(m.winner.terms)["monthly"] > 0
    assert m.missing_terms == ("monthly",) and m.winner_only_terms == ("monthly",)


def test_a_proposal_that_breaks_a_case_is_not_kept():
    skills = [Skill("refund", "Give money back"), Skill("report", "Monthly orders")]
    text = ("- id: miss\n  query: monthly orders\n  expect: [refund]\n"
            "- id: good\n  query: orders, monthly\n  expect: [report]\n")
    case_file = load_cases_text(text)
    ranker = _ranker(skills)
    misses = whynot.explain(ranker, case_file.cases, "lexical", ranker.lexical.query_terms)
    kept, rejected, checked = whynot.propose(skills, case_file.cases, misses, "lexical", _ranker, ranker)
    assert checked == 1 and kept == []
    assert rejected[0].fixes == ("miss",) and rejected[0].breaks == ("good",)


def load_cases_text(body: str):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cases.yaml"
        path.write_text("version: 1\ncases:\n" + "\n".join("  " + line if line else line
                                                            for line in body.splitlines()) + "\n")
        return load_cases(str(path))


def _misses(capsys, root, *extra):
    code = main(["eval", str(root / "search-cases.yaml"), "--root", str(root), "--format", "json", *extra])
    doc = json.loads(capsys.readouterr().out)
    assert code in (0, 2)
    return {c["id"] for c in doc["cases"] if c["rank"] != 1}


def _add_trigger(root, skill: str, trigger: str) -> None:
    path = root / ".claude" / "skills" / skill / "SKILL.md"
    text = path.read_text()
    if "\ntriggers:\n" in text:
        text = text.replace("\ntriggers:\n", f"\ntriggers:\n  - {json.dumps(trigger)}\n", 1)
    else:
        text = text.replace("\n---\n", f"\ntriggers:\n  - {json.dumps(trigger)}\n---\n", 1)
    path.write_text(text)


@pytest.mark.parametrize("mode", ["lexical", "hybrid"])
def test_proposals_on_the_example_fix_a_miss_and_add_none(tmp_path, capsys, mode):
    if mode != "lexical":
        pytest.importorskip("onnxruntime", reason="skillsift[embed] is not installed")
    root = tmp_path / "acme"
    shutil.copytree(ACME, root)
    extra = ["--mode", mode]
    before = _misses(capsys, root, *extra)
    code = main(["eval", str(root / "search-cases.yaml"), "--root", str(root), "--why", *extra])
    out = capsys.readouterr().out
    assert code in (0, 2)
    assert "why not (" + mode + ")" in out and "skills with no triggers and no examples" in out
    proposals = re.findall(r"^- ([a-z0-9-]+): add trigger (['\"])(.+?)\2 \(fixes ([^)]*)\)$", out, re.M)
    assert proposals, out
    skill, _q, trigger, fixes = proposals[0]
    _add_trigger(root, skill, trigger)
    if mode != "lexical":
        assert main(["index", "--root", str(root)]) == 0
        capsys.readouterr()
    after = _misses(capsys, root, *extra)
    fixed = set(fixes.split(", "))
    assert fixed and fixed <= before and not (fixed & after)
    assert after <= before  # no new miss
    assert before - after == fixed


def test_why_needs_the_text_format(capsys):
    code = main(["eval", str(ACME / "search-cases.yaml"), "--root", str(ACME), "--why", "--format", "json"])
    assert code == 1
    assert "--why prints text" in capsys.readouterr().err
