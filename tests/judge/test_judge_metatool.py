"""MetaTool's half B (the held-out half of bench/proposals_heldout.py) judged by the word-overlap fake judge:
the report's agreement and agent top1 equal counts made here from the answers file and a separate ranking."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, SHARED
from tests.judge.conftest import use_judge
from tests.support.cli import run

# ``SKILLSIFT_METATOOL`` moves the development split (as SKILLSIFT_CORPORA moves the corpus)
METATOOL = Path(os.environ.get("SKILLSIFT_METATOOL") or SHARED / "benchmarks" / "metatool-dev")


@pytest.mark.slow  # one judge process per case (686 cases)
def test_agreement_on_metatool_half_b_equals_an_independent_count(capsys, tmp_path, monkeypatch):
    if not METATOOL.is_dir():
        reason = f"MetaTool's development split is absent ({METATOOL}; set SKILLSIFT_METATOOL to move it)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason}: it is required under CI=true")
        pytest.skip(reason)
    sys.path.insert(0, str(ROOT / "bench"))
    from proposals_heldout import halves

    from skillsift.evaluate.cases import load_cases

    root = tmp_path / "metatool"
    for skill in sorted((METATOOL / "skills").iterdir()):  # under .claude/skills: Claude Code serves every one
        shutil.copytree(skill, root / ".claude" / "skills" / skill.name)
    cases = [c for c in load_cases(str(METATOOL / "cases.yaml")).cases if not c.negative]
    _a, half_b = halves(cases)
    lines = ["version: 1", "k: 5", "cases:"]
    for c in half_b:
        lines += [f"  - id: {c.id}", f"    query: {json.dumps(c.query)}",
                  f"    expect: {json.dumps(list(c.expect_ids))}"]
    (root / "cases.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setenv("SKILLSIFT_ALLOW_NETWORK", "1")
    monkeypatch.delenv("CI", raising=False)
    use_judge("overlap.py")
    code, out, err = run(capsys, "judge", root / "cases.yaml", "--root", root, "--format", "json", "-j", "2")
    assert code == 0, err
    report = json.loads(out)
    assert report["counts"]["cases"] == len(half_b) > 600
    assert report["calls"] == len({c.query.strip() for c in half_b})
    # independently: the agent's choices from the answers file (by request), the ranker's firsts from eval
    answers = {}
    for line in (root / ".skillsift" / "judge-cache.jsonl").read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        assert doc["status"] in ("chosen", "none")  # the overlap judge always answers validly
        answers[doc["request"]] = doc["choice"]
    code, out, _ = run(capsys, "eval", root / "cases.yaml", "--root", root, "--agent", "claude-code",
                       "--format", "json")
    firsts = {c["id"]: (c["got"][0] if c["got"] else "") for c in json.loads(out)["cases"]}
    agree = sum(answers[c.query.strip()] == firsts[c.id] for c in half_b)
    right = sum(answers[c.query.strip()] in c.expect_ids for c in half_b)
    assert report["figures"]["agreement"]["value"] == round(agree / len(half_b), 4)
    assert report["figures"]["agreement"]["n"] == len(half_b)
    assert report["figures"]["agent_top1"]["value"] == round(right / len(half_b), 4)
    assert len(report["disagreements"]) == len(half_b) - agree
