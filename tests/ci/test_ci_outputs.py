"""Every output file of ``skillsift ci`` is written at once or not at all, with a clear error;
and ``ci`` reads no config or cases file that a link takes outside the repository."""

from __future__ import annotations

import os

import pytest

from tests.conftest import write_skill
from tests.support.cli import run
from tests.support.github_outputs import parse_outputs

CASES = "version: 1\ncases:\n  - id: deploy\n    query: deploy to production\n    expect: [deploy-prod]\n"


@pytest.fixture(autouse=True)
def _not_on_github(monkeypatch):
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_BASE_REF", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    write_skill(root, "deploy-prod", "Deploy the service to production")
    (root / "search-cases.yaml").write_text(CASES, encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def test_an_unwritable_output_is_an_error_and_the_others_are_still_written(project, tmp_path, capsys):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x", encoding="utf-8")
    outputs, sarif = tmp_path / "outputs.txt", tmp_path / "out.sarif"
    outputs.write_text("earlier=1\n", encoding="utf-8")
    code, out, err = run(capsys, "ci", "--baseline", "none", "--summary", blocker / "summary.md",
                         "--github-output", outputs, "--sarif-file", sarif, "--report-file", "/dev/full")
    assert code == 1, err
    assert "Traceback" not in err
    assert f"error: cannot write an output file: --summary: cannot write {blocker / 'summary.md'}: Not a directory" \
        in err
    assert "error: cannot write an output file: --report-file: cannot write /dev/full: No space left on device" in err
    assert "hint: check that each output path is a writable file" in err
    assert out.rstrip().endswith("skillsift ci: ✅ passed: no base to compare with")
    written = parse_outputs(outputs.read_text(encoding="utf-8"))
    assert written["earlier"] == "1" and written["verdict"] == "passed"  # appended, earlier lines kept
    assert written["report-path"] == "" and written["sarif-path"] == str(sarif)
    assert sarif.is_file()
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


def test_a_failing_run_keeps_its_exit_code_when_an_output_fails(project, tmp_path, capsys):
    code, _out, err = run(capsys, "ci", "--baseline", "none", "--min", "top1=1.1", "--github-output",
                          tmp_path / "missing-dir" / "o.txt")
    assert code == 1 and "value must be a number between 0 and 1" in err  # could not run: 1 either way
    code, _out, err = run(capsys, "ci", "--baseline", "none", "--fail-on", "warning", "--github-output",
                          tmp_path / "missing-dir" / "o.txt")
    assert "cannot write an output file: --github-output" in err


def test_the_summary_is_appended_whole(project, tmp_path, capsys):
    summary = tmp_path / "summary.md"
    summary.write_text("# an earlier step\n", encoding="utf-8")
    os.chmod(summary, 0o600)
    code, _out, err = run(capsys, "ci", "--baseline", "none", "--summary", summary)
    assert code == 0, err
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("# an earlier step\n## skillsift ci · ✅ passed")
    assert oct(os.stat(summary).st_mode & 0o777) == "0o600"


@pytest.mark.parametrize("name", ["skillsift.toml", "search-cases.yaml"])
def test_a_config_or_cases_link_out_of_the_repository_is_refused(project, tmp_path, capsys, name):
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("secret_key_name_from_outside: 1\n", encoding="utf-8")
    target = project / name
    if target.exists():
        target.unlink()
    target.symlink_to(outside)
    code, out, err = run(capsys, "ci", "--baseline", "none")
    assert code == 1
    assert f"{name} is a symbolic link to a file outside the repository" in err
    assert "secret_key_name_from_outside" not in out + err
    inside = project / "real-cases.yaml"
    inside.write_text(CASES, encoding="utf-8")
    if name == "search-cases.yaml":
        target.unlink()
        target.symlink_to(inside)  # a link that stays inside is read
        code, out, err = run(capsys, "ci", "--baseline", "none")
        assert code == 0, err


def test_validate_and_eval_output_files_fail_with_a_clear_error(project, tmp_path, capsys):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x", encoding="utf-8")
    code, _out, err = run(capsys, "validate", "--output", blocker / "report.json", "--format", "json")
    assert code == 2 and f"error: --output: cannot write {blocker / 'report.json'}: Not a directory" in err
    code, _out, err = run(capsys, "validate", "--output", "/dev/full")
    assert code == 2 and "cannot write /dev/full: No space left on device" in err
    code, _out, err = run(capsys, "eval", "search-cases.yaml", "--output", blocker / "baseline.json")
    assert code == 1 and "error: --output: cannot write" in err and "Traceback" not in err
    good = tmp_path / "baseline.json"
    code, _out, err = run(capsys, "eval", "search-cases.yaml", "--output", good, "--format", "json")
    assert code == 0 and json_ok(good)
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


def json_ok(path) -> bool:
    import json

    return json.loads(path.read_text(encoding="utf-8"))["schema_version"] == 1
