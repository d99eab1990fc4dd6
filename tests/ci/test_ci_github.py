"""What the runner reads: $GITHUB_OUTPUT, annotations, the step summary; and the action's install plan."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsift.ci import install_plan
from skillsift.ci.github import (
    case_annotations,
    format_outputs,
    outputs_of,
    relocate,
    render_annotations,
    summary_text,
)
from skillsift.diagnostics import Diagnostic
from skillsift.index.atomic import write_output
from skillsift.render.pull_request import SUMMARY_LIMIT
from tests.ci.test_ci_report import golden_run
from tests.conftest import ROOT
from tests.support.github_outputs import parse_outputs
from tests.support.sarif import MINIMAL_SARIF, official_sarif_schema


def append(path, text: str) -> None:
    """Append as ``skillsift ci`` does to $GITHUB_OUTPUT and the step summary."""
    write_output(str(path), text.encode("utf-8"), append=True)


def test_outputs_single_and_multiline():
    text = format_outputs([("top1", "0.5000"), ("cases", "a\nb"), ("empty", "")])
    assert text == "top1=0.5000\ncases<<SKILLSIFT_EOF\na\nb\nSKILLSIFT_EOF\nempty=\n"
    assert parse_outputs(text) == {"top1": "0.5000", "cases": "a\nb", "empty": ""}


def test_a_value_holding_the_delimiter_gets_another_one():
    value = "SKILLSIFT_EOF\nx\nSKILLSIFT_EOF_1"
    text = format_outputs([("v", value)])
    assert text.startswith("v<<SKILLSIFT_EOF_2\n")
    assert parse_outputs(text) == {"v": value}


def test_bad_output_names_are_refused():
    for key in ("a=b", "a\nb", "", "a b", "x<<y"):
        with pytest.raises(ValueError):
            format_outputs([(key, "1")])


@settings(deadline=None)  # a loaded machine must not turn a slow example into a failure
@given(st.dictionaries(st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True),
                       st.lists(st.sampled_from(["\n", "\r", "SKILLSIFT_EOF", "=", "<<", "x"])
                                | st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8),
                                max_size=8).map("".join), max_size=6))
def test_outputs_round_trip(values):
    assert parse_outputs(format_outputs(values.items())) == values


def test_outputs_of_a_run():
    run = golden_run()
    out = dict(outputs_of(run, "/tmp/report.md"))
    assert out["verdict"] == "failed"
    assert (out["regressed"], out["fixed"], out["rank-changes"]) == ("2", "1", "5")
    assert out["regressed-cases"] == "refund\nrollback" and out["fixed-cases"] == "pipes"
    assert (out["top1"], out["mrr"], out["k"]) == ("0.5000", "0.6250", "3")
    assert out["findings"] == "3" and out["report-path"] == "/tmp/report.md"


def test_outputs_of_a_run_that_could_not_evaluate(tmp_path):
    from skillsift.evaluate.verdict import CiRun

    path = tmp_path / "out"
    path.write_text("earlier=1\n", encoding="utf-8")
    append(path, format_outputs(outputs_of(CiRun(error="no cases"))))
    out = parse_outputs(path.read_text(encoding="utf-8"))
    assert out["earlier"] == "1" and out["verdict"] == "error"
    assert (out["top1"], out["regressed"], out["fixed"], out["regressed-cases"]) == ("", "0", "0", "")


def test_case_annotations_point_at_the_cases_lines():
    run = golden_run()
    diags = case_annotations(run, "search-cases.yaml")
    assert [(d.severity, d.line, d.message.split('"')[1]) for d in diags] == [
        ("error", 7, "refund"), ("error", 10, "rollback"), ("note", 13, "pipes")]
    assert diags[0].message == ('case "refund" regressed against the base: expected refund-policy, rank 1 -> rank 4; '
                                '"billing-faq" ranks first now')
    run.max_flips = 2
    assert {d.severity for d in case_annotations(run, "search-cases.yaml")[:2]} == {"warning"}


def test_annotations_are_relative_to_the_repository_and_escaped():
    run = golden_run()
    text = render_annotations(run, prefix="agents")
    lines = text.splitlines()
    assert lines[0].startswith("::error file=agents/search-cases.yaml,line=7,title=AR9D4::case \"refund\"")
    assert "::error file=agents/.claude/skills/billing-faq/SKILL.md,line=5,title=AR001::possible secret" in text
    assert "%0Ahint: remove it" in text  # the hint on its own line, escaped
    assert "::warning title=AR9D1::no committed index" in text  # no file: no path to prefix
    assert relocate([Diagnostic(file="a.md")], "sub/")[0].file == "sub/a.md"


def test_annotations_are_capped_per_kind():
    from skillsift.evaluate.verdict import CiRun

    findings = [Diagnostic(file=f"s{i}/SKILL.md", line=1, code="SK006", message="no description") for i in range(15)]
    text = render_annotations(CiRun(findings=findings))
    assert text.count("::error ") == 10
    assert "5 errors not annotated" in text


def test_summary_is_appended_within_what_is_left(tmp_path):
    path = tmp_path / "summary.md"
    path.write_text("earlier step\n", encoding="utf-8")
    written = summary_text(str(path), "## report\n" + "line\n" * 10, limit=SUMMARY_LIMIT)
    append(path, written)
    assert path.read_text(encoding="utf-8") == "earlier step\n## report\n" + "line\n" * 10
    assert written.startswith("## report")
    big = "| row |\n" * 300_000
    path.write_text("x" * 1000, encoding="utf-8")
    append(path, summary_text(str(path), big))
    assert 1000 < path.stat().st_size <= SUMMARY_LIMIT
    assert "this summary was cut" in path.read_text(encoding="utf-8")


# -- the install plan ------------------------------------------------------------------------------


def test_extras_are_validated_and_normalised():
    assert install_plan.parse_extras("") == []
    assert install_plan.parse_extras(" embed, MCP embed ") == ["embed", "mcp"]
    for bad in ("embed;rm", "x]", "-a", "a b/c"):
        with pytest.raises(ValueError):
            install_plan.parse_extras(bad)
    assert install_plan.requirement(ROOT, []) == str(ROOT)
    assert install_plan.requirement(ROOT, ["embed", "mcp"]) == f"{ROOT}[embed,mcp]"


def test_cache_key_follows_the_dependencies():
    kw = {"system": "Linux", "machine": "x86_64", "python": "3.12"}
    key, restore = install_plan.cache_key(b"[project]\n", ["embed"], **kw)
    assert key.startswith(restore) and restore == "skillsift-pip-Linux-x86_64-py3.12-"
    assert key != install_plan.cache_key(b"[project]\nx\n", ["embed"], **kw)[0]
    assert key != install_plan.cache_key(b"[project]\n", [], **kw)[0]
    assert install_plan.cache_key(b"[project]\n", ["embed"], **kw) == (key, restore)


def test_install_plan_runs_by_path_without_skillsift_importable(tmp_path):
    """The action runs it before skillsift is installed: -S hides site-packages (and the package)."""
    script = ROOT / "skillsift" / "ci" / "install_plan.py"
    proc = subprocess.run([sys.executable, "-S", "-I", str(script), "--extras", "embed"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = parse_outputs(proc.stdout)
    assert set(out) == {"requirement", "cache-dir", "cache-key", "restore-key"}
    assert out["requirement"] == f"{ROOT}[embed]"
    assert out["cache-key"].startswith(out["restore-key"]) and out["cache-dir"]
    bad = subprocess.run([sys.executable, "-S", "-I", str(script), "--extras", "x;y"], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 1 and "not an extra name" in bad.stderr


def test_every_output_written_is_declared_by_the_action_and_the_reverse():
    import yaml

    from skillsift.evaluate.verdict import CiRun

    declared = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["outputs"]
    for run in (golden_run(), CiRun(error="no cases")):
        assert sorted(name for name, _ in outputs_of(run)) == sorted(declared)


def test_the_sarif_file_holds_the_annotations_and_follows_sarif_2_1_0():
    import json

    import jsonschema

    from skillsift.ci.github import render_sarif

    run = golden_run()
    log = json.loads(render_sarif(run, prefix="agents/"))
    jsonschema.Draft202012Validator(MINIMAL_SARIF).validate(log)
    results = log["runs"][0]["results"]
    assert len(results) == len(case_annotations(run, run.cases_path)) + len(run.findings)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results if "locations" in r}
    assert "agents/search-cases.yaml" in uris and "agents/.claude/skills/billing-faq/SKILL.md" in uris
    jsonschema.Draft4Validator(official_sarif_schema()).validate(log)
