"""The Markdown report of `skillsift ci`: a reviewed golden file, escaping, row and size caps."""

from __future__ import annotations

import os
import re

import pytest

from skillsift.diagnostics import ERROR, WARNING, Diagnostic
from skillsift.evaluate.cases import parse_cases
from skillsift.evaluate.compare import compare
from skillsift.evaluate.gates import gate_failures
from skillsift.evaluate.outcomes import Outcome, Side, side_from_result
from skillsift.evaluate.run import evaluate
from skillsift.evaluate.verdict import CiRun
from skillsift.render.pull_request import SUMMARY_LIMIT, SUMMARY_ROWS, cap_summary, render_markdown
from tests.conftest import GOLDEN
from tests.support.eval_support import ScriptedRanker

UPDATE = os.environ.get("SKILLSIFT_UPDATE_GOLDEN") == "1"

CASES = """\
version: 1
k: 3
cases:
  - id: staging
    query: deploy to staging
    expect: [deploy-staging]
  - id: refund
    query: customer wants money back
    expect: [refund-policy]
  - id: rollback
    query: roll back a bad release
    expect: [deploy-prod]
  - id: pipes
    query: "grep | sort in a <pipeline>"
    expect: [shell-tips]
  - id: branch
    query: branch naming
    expect: [{id: git-workflow, grade: 2}]
  - id: changelog
    query: write the changelog
    expect: [release-notes]
  - id: weather
    query: weather tomorrow
"""
BASE = {
    "deploy to staging": [("deploy-staging", 3.0)],
    "customer wants money back": [("refund-policy", 2.0), ("billing-faq", 1.0)],
    "roll back a bad release": [("release-notes", 2.0), ("deploy-prod", 1.5)],
    "grep | sort in a <pipeline>": [("git-workflow", 0.5)],
    "branch naming": [("git-workflow", 2.0), ("release-notes", 1.0)],
    "write the changelog": [("deploy-prod", 2.0), ("git-workflow", 1.5), ("release-notes", 1.0)],
    "weather tomorrow": [],
}
HEAD = {
    "deploy to staging": [("deploy-staging", 3.0)],
    "customer wants money back": [("billing-faq", 3.0), ("shell-tips", 2.0), ("deploy-prod", 1.0),
                                  ("refund-policy", 0.5)],
    "roll back a bad release": [("release-notes", 2.0)],
    "grep | sort in a <pipeline>": [("shell-tips", 2.5), ("git-workflow", 0.5)],
    "branch naming": [("release-notes", 2.1), ("git-workflow", 2.0)],
    "write the changelog": [("release-notes", 2.4), ("deploy-prod", 2.0)],
    "weather tomorrow": [("billing-faq", 0.2)],
}
FINDINGS = [
    Diagnostic(file=".claude/skills/billing-faq/SKILL.md", line=5, code="AR001", severity=ERROR,
               message="possible secret (aws-access-key) in the skill", hint="remove it, or allow the line"),
    Diagnostic(file=".claude/skills/shell-tips/SKILL.md", line=3, code="SK007", severity=WARNING,
               message="description is 1,180 characters; claude-code lists 1,024"),
    Diagnostic(code="AR9D1", severity=WARNING, message="no committed index at .skillsift/index"),
]


def golden_run(*, findings=FINDINGS, min_spec=None, max_flips=0) -> CiRun:
    case_file = parse_cases(CASES, "search-cases.yaml")
    base = evaluate(case_file, ScriptedRanker({"lexical": BASE}), k=3, modes=["lexical"])
    head = evaluate(case_file, ScriptedRanker({"lexical": HEAD, "hybrid": BASE}), k=3, modes=["lexical", "hybrid"])
    label = "base 1a2b3c4 (merge-base with origin/main)"
    comparison = compare(side_from_result(base, label), side_from_result(head, "head"),
                         {c.id: c.line for c in case_file.cases})
    floors = gate_failures(head.primary.metrics.gated(), min_spec or {"top1": 0.9, "mrr": 0.5})
    return CiRun(cases_path="search-cases.yaml", mode=head.mode, k=head.k, head=head, comparison=comparison,
                 base_label=label, floor_failures=floors, findings=list(findings), max_flips=max_flips)


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"missing {path}; run with SKILLSIFT_UPDATE_GOLDEN=1 and review it"
    assert text == path.read_text(encoding="utf-8")


def test_report_matches_the_reviewed_golden_file():
    run = golden_run()
    text = render_markdown(run)
    check_golden("ci-report.md", text)
    assert render_markdown(golden_run()) == text  # deterministic
    assert run.exit_code() == 2


def test_golden_run_sections_say_what_a_reviewer_needs():
    text = render_markdown(golden_run())
    lines = text.splitlines()
    assert lines[0] == ("## skillsift ci · ❌ failed: 2 cases regressed against the base (max 0); "
                        "top1 is 0.5000, below the minimum 0.9000; validation found 1 error")
    headings = [line for line in lines if line.startswith("### ")]
    assert headings == ["### Failed checks", "### Regressed (2)", "### Fixed (1)", "### Other rank changes (2)",
                        "### Validation (3)"]
    assert "| `refund` | 7 | customer wants money back | refund-policy | 1 | 4 | `billing-faq` |" in lines
    assert "| `rollback` | 10 | roll back a bad release | deploy-prod | 2 | not retrieved | `release-notes` |" in lines
    assert r"| `pipes` | 13 | grep \| sort in a &lt;pipeline&gt; | shell-tips | not retrieved | 1 |" in lines
    moved = [line for line in lines if line.endswith(" worse |") or line.endswith(" better |")]
    assert [m.split(" | ")[0] for m in moved] == ["| `branch`", "| `changelog`"]  # worse first
    assert "| ndcg@3 |" in text and "| **error** | AR001 | `.claude/skills/billing-faq/SKILL.md:5` |" in text
    assert "<details><summary>Every mode evaluated at the head</summary>" in text


def test_passing_run_without_changes():
    case_file = parse_cases(CASES, "search-cases.yaml")
    base = evaluate(case_file, ScriptedRanker({"lexical": BASE}), k=3, modes=["lexical"])
    c = compare(side_from_result(base, "base"), side_from_result(base, "head"))
    run = CiRun(cases_path="search-cases.yaml", mode="lexical", k=3, head=base, comparison=c, base_label="base x")
    text = render_markdown(run)
    assert text.startswith("## skillsift ci · ✅ passed: no ranking change\n")
    assert "| top1 | 0.5000 (0.17–0.83) | 0.5000 (0.17–0.83) | +0.0000 | +0.0000 to +0.0000 | no net change |" in text
    assert "### Regressed" not in text and "No findings." in text
    assert run.exit_code() == 0


def test_error_run_reports_the_reason_and_the_findings():
    run = CiRun(cases_path="search-cases.yaml", error="AR9D2: invalid cases file: search-cases.yaml: line 4: x",
                error_hint="Fix the lines listed",
                findings=[Diagnostic(file="search-cases.yaml", line=4, code="AR9D2", message="x")])
    text = render_markdown(run)
    assert text.splitlines()[0] == "## skillsift ci · ⚠️ could not evaluate: AR9D2: invalid cases file: " \
                                   "search-cases.yaml: line 4: x"
    assert "> **Error:**" in text and "| **error** | AR9D2 | `search-cases.yaml:4` | x |" in text
    assert run.exit_code() == 1


def _big_comparison(n: int, query_len: int = 300) -> CiRun:
    """n cases, every one regressed from rank 1 to not retrieved, with long queries."""
    from skillsift.evaluate.cases import Case, CaseFile, Expected

    cases = tuple(Case(id=f"case-{i:05d}", query=f"query {i} " + "x" * query_len,
                       expect=(Expected(id="skill-a"),), line=3 + 3 * i) for i in range(n))
    case_file = CaseFile(version=1, k=5, cases=cases, path="search-cases.yaml")
    head = evaluate(case_file, ScriptedRanker({"lexical": {}}), k=5, modes=["lexical"])
    base = Side(label="base", mode="lexical", k=5, cases=tuple(
        Outcome(id=c.id, query=c.query, expected=("skill-a",), rank=1, hit=True, first="skill-a",
                values={"top1": 1.0, "recall_at_k": 1.0, "hit_at_k": 1.0, "mrr": 1.0}) for c in cases))
    comparison = compare(base, side_from_result(head, "head"), {c.id: c.line for c in cases})
    return CiRun(cases_path="search-cases.yaml", mode="lexical", k=5, head=head, comparison=comparison,
                 base_label="base 1a2b3c4")


def test_ten_thousand_regressions_stay_under_one_mebibyte_with_a_note():
    run = _big_comparison(10_000)
    full = render_markdown(run)
    assert len(full.encode("utf-8")) > SUMMARY_LIMIT  # the uncut report would not fit
    assert full.count("| not retrieved |") == 10_000
    summary = cap_summary(render_markdown(run, max_rows=SUMMARY_ROWS))
    assert len(summary.encode("utf-8")) < SUMMARY_LIMIT
    assert summary.count("| not retrieved |") == SUMMARY_ROWS
    assert "_… and 9,900 more in the full report._" in summary
    cut = cap_summary(full)
    assert len(cut.encode("utf-8")) <= SUMMARY_LIMIT
    assert cut.startswith(full[:2000])
    note = cut.rstrip("\n").splitlines()[-1]
    assert re.fullmatch(r"> \*\*Note:\*\* this summary was cut to [\d,]+ of [\d,]+ bytes: .*report-path.*", note)
    body = cut[: cut.rindex("> **Note:**")]
    assert all(line.count(" | ") >= 5 for line in body.splitlines() if line.startswith("| `case-"))  # whole rows


@pytest.mark.parametrize("limit", [5_000, 100_000])
def test_cap_keeps_whole_lines_and_closes_details(limit):
    text = "## title\n\n<details><summary>x</summary>\n\n" + "".join(f"| row {i} | é |\n" for i in range(20_000))
    cut = cap_summary(text, limit)
    assert len(cut.encode("utf-8")) <= limit
    assert "this summary was cut" in cut
    kept = cut[: cut.index("> **Note:**")]
    assert set(kept.splitlines()) <= set(text.splitlines()) | {"</details>"}
    assert kept.count("</details>") == kept.count("<details>") == 1
    assert cap_summary("short\n", limit) == "short\n"


def test_cap_with_almost_no_room_left():
    text = "x\n" * 100_000
    assert "did not fit" in cap_summary(text, 200) and len(cap_summary(text, 200).encode()) <= 200
    assert cap_summary(text, 20) == ""


def test_long_queries_are_shortened_in_tables():
    run = _big_comparison(3, query_len=2_000)
    text = render_markdown(run)
    rows = [line for line in text.splitlines() if line.startswith("| `case-")]
    assert len(rows) == 3 and all("…" in row and len(row) < 400 for row in rows)


def test_interval_column_says_worse_when_the_whole_interval_is_below_zero():
    text = "version: 1\nk: 3\ncases:\n" + "".join(f"  - id: c{i}\n    query: q{i}\n    expect: [s]\n" for i in range(8))
    case_file = parse_cases(text, "c.yaml")
    base = evaluate(case_file, ScriptedRanker({"lexical": {f"q{i}": [("s", 1.0)] for i in range(8)}}), k=3,
                    modes=["lexical"])
    head = evaluate(case_file, ScriptedRanker({"lexical": {f"q{i}": [("t", 1.0)] for i in range(8)}}), k=3,
                    modes=["lexical"])
    comparison = compare(side_from_result(base, "base x"), side_from_result(head, "head"), {})
    run = CiRun(cases_path="c.yaml", mode="lexical", k=3, head=head, comparison=comparison, base_label="base x")
    rows = [line for line in render_markdown(run).splitlines() if line.startswith("| top1 ")]
    assert rows and rows[0].endswith("| **worse** |")


def test_findings_on_files_the_pull_request_did_not_change_are_folded_below():
    run = golden_run()
    run.changed_files, run.prefix = frozenset({"proj/.claude/skills/shell-tips/SKILL.md"}), "proj/"
    text = render_markdown(run)
    section = text[text.index("### Validation (3)"):]
    # the AR001 error fails the run, so it is never folded, whichever file it is on
    assert "**error** | AR001" in section.split("_Findings")[0] and "<details><summary>" not in section.split(
        "_Findings")[0]
    run.fail_on = "never"
    section = render_markdown(run)[render_markdown(run).index("### Validation (3)"):]
    assert "On the files this pull request changed, and every finding that fails the run: 2 findings." in section
    shown, folded = section.split("<details><summary>1 finding on files this pull request did not change</summary>")
    assert "SK007" in shown and "AR9D1" in shown and "AR001" not in shown  # a finding on no file stays shown
    assert "error | AR001" in folded.split("</details>")[0]
    run.changed_files = None
    assert "<details><summary>" not in render_markdown(run).split("### Validation")[1].split("_Findings")[0]
