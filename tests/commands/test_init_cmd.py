"""`skillsift init` end to end: detection, the diff of its dry run, the files it writes or completes
(merged, never clobbered), the gate it turns on, and that a second run changes nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
import yaml

import skillsift
from skillsift.usecases.starter.snippets import REPOSITORY_URL
from tests.conftest import ACME, write_skill
from tests.support.cli import run

TAG = f"v{skillsift.__version__}"
ACTION = REPOSITORY_URL.removeprefix("https://github.com/")


@pytest.fixture
def lexical(monkeypatch):
    """The local model taken away, as on a machine without the embed extra."""
    from skillsift.embed import local

    monkeypatch.setattr(local, "local_model_available", lambda: (False, "onnxruntime not installed"))


@pytest.fixture
def bare(tmp_path):
    """The example's skills alone: no config, no cases, no index."""
    root = tmp_path / "repo"
    shutil.copytree(ACME / ".claude", root / ".claude")
    return root


def _snapshot(root):
    out = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            out[os.path.relpath(path, root)] = (open(path, "rb").read(), os.stat(path).st_mtime_ns)
    return out


def _git(root, *args):
    return subprocess.run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid", "-c",
                           "commit.gpgsign=false", *args], cwd=root, capture_output=True, text=True, check=True)


def _validate_config(path):
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "validate-config", str(path)], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_dry_run_shows_a_diff_and_writes_nothing(bare, lexical, capsys):
    before = _snapshot(bare)
    code, out, err = run(capsys, "init", "--root", bare)
    assert code == 0, err
    assert _snapshot(bare) == before
    assert "would write skillsift.toml (the configuration):" in out
    assert "+++ b/skillsift.toml" in out and '+mode = "lexical"' in out
    assert "+++ b/.pre-commit-config.yaml" in out and f"+  - repo: {REPOSITORY_URL}" in out
    assert "OWNER" not in out
    assert "would evaluate search-cases.yaml and write eval-baseline.json" in out
    assert out.rstrip().endswith("dry run: nothing written; apply with skillsift init --write")


def test_init_writes_a_config_and_draft_cases_that_validate_and_evaluate(bare, lexical, capsys):
    code, out, err = run(capsys, "init", "--root", bare, "--write")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "skillsift init: 27 skills under .claude/skills (read by claude-code, copilot, opencode)"
    assert "wrote skillsift.toml (the configuration)" in lines
    assert any(line.startswith("search mode: lexical: hybrid search (by meaning too) needs the local model: "
                               "pip install 'skillsift[embed]'") for line in lines)
    config = (bare / "skillsift.toml").read_text(encoding="utf-8")
    assert '# skills = [".claude/skills"]' in config and 'agents = ["claude-code", "copilot", "opencode"]' in config
    assert 'cases = "search-cases.yaml"' in config and 'mode = "lexical"' in config
    assert 'baseline = "eval-baseline.json"' in config and "\nmax_flips = 0\n" in config
    assert '# Floors on the metrics are yours to set once the cases are reviewed: min = ' in config
    cases = yaml.safe_load((bare / "search-cases.yaml").read_text(encoding="utf-8"))
    drafts = cases["cases"]
    assert drafts and all(case["tags"] == ["draft"] for case in drafts)
    assert all(case["id"].startswith("draft-") and len(case["expect"]) == 1 for case in drafts)
    by_skill = {case["expect"][0]: case["query"] for case in drafts}
    # deploy-staging's description: "... Use before a release candidate goes to production or when QA asks ..."
    assert by_skill["deploy-staging"] == ("a release candidate goes to production or when QA asks for a fresh "
                                          "staging build")
    assert len(by_skill) == 27  # every skill has a draft
    text = (bare / "search-cases.yaml").read_text(encoding="utf-8")
    assert text.count("# review: drafted from .claude/skills/") == len(drafts)
    # the baseline and the guard lines close the report
    assert f"wrote eval-baseline.json ({len(drafts)} cases evaluated in lexical mode," in out
    assert any(line.startswith("next: review the drafts in search-cases.yaml") for line in lines)
    # init's last lines say what is guarded
    assert lines[-3:] == [
        "guarded: the skillsift-eval hook and the Action rank the cases of search-cases.yaml (lexical) on every "
        "change",
        "  a case found in the top k in eval-baseline.json that drops out fails them (max_flips = 0)",
        '  floors on the metrics are yours to set: [validate] min = "top1=0.6,mrr=0.7"']
    assert ("guarded: the skillsift-eval hook and the Action rank the cases of search-cases.yaml (lexical) on every "
            "change") in lines
    assert "  a case found in the top k in eval-baseline.json that drops out fails them (max_flips = 0)" in lines
    # what init wrote passes validate, and eval runs on it with the gates
    assert run(capsys, "validate", "--root", bare)[0] == 0
    code, out, err = run(capsys, "eval", bare / "search-cases.yaml", "--root", bare)
    assert code == 0, err
    assert out.startswith(f"cases: {len(drafts)} (+0 negative), k=5, mode: lexical")


def test_a_second_write_changes_no_byte(bare, lexical, capsys):
    assert run(capsys, "init", "--root", bare, "--write")[0] == 0
    before = _snapshot(bare)
    code, out, _ = run(capsys, "init", "--root", bare, "--write")
    assert code == 0 and "wrote" not in out and "updated" not in out
    assert "kept skillsift.toml: it has what init adds" in out
    assert "kept search-cases.yaml: it exists" in out
    assert _snapshot(bare) == before
    code, out, _ = run(capsys, "init", "--root", bare)
    assert "would write" not in out and "would update" not in out


PRE_COMMIT = """\
# Our hooks. Keep them fast.
default_stages: [pre-commit]
repos:
-   repo: https://github.com/pre-commit/pre-commit-hooks
    rev: v4.6.0  # pinned on purpose
    hooks:
    -   id: trailing-whitespace
    # the YAML checker comes second
    -   id: check-yaml
-   repo: local
    hooks:
    -   id: lint-docs
        name: lint docs
        entry: python -c "print('ok')"
        language: system
        files: \\.md$
# end of the repos
"""


def test_an_existing_pre_commit_config_gains_skillsift_and_keeps_every_line(bare, lexical, capsys):
    path = bare / ".pre-commit-config.yaml"
    path.write_text(PRE_COMMIT, encoding="utf-8")
    code, out, _ = run(capsys, "init", "--root", bare)
    assert "would update .pre-commit-config.yaml" in out and f"+-   repo: {REPOSITORY_URL}" in out
    assert path.read_text(encoding="utf-8") == PRE_COMMIT  # the dry run wrote nothing
    code, out, _ = run(capsys, "init", "--root", bare, "--write")
    assert code == 0 and f"updated .pre-commit-config.yaml (the pre-commit hooks, pinned to {TAG})" in out
    text = path.read_text(encoding="utf-8")
    # every line kept, in order; skillsift's entry inserted after the last hook, before the closing comment
    assert text.startswith(PRE_COMMIT.removesuffix("# end of the repos\n"))
    assert text.endswith("\n# end of the repos\n")
    doc = yaml.safe_load(text)
    assert doc["default_stages"] == ["pre-commit"]
    assert [repo["repo"] for repo in doc["repos"]] == ["https://github.com/pre-commit/pre-commit-hooks", "local",
                                                        REPOSITORY_URL]
    assert doc["repos"][1]["hooks"][0]["entry"] == "python -c \"print('ok')\""
    assert doc["repos"][2]["rev"] == TAG
    assert [hook["id"] for hook in doc["repos"][2]["hooks"]] == ["skillsift-secrets", "skillsift-frontmatter",
                                                                 "skillsift-cases", "skillsift-eval"]
    _validate_config(path)
    after = path.read_bytes()
    assert run(capsys, "init", "--root", bare, "--write")[0] == 0
    assert path.read_bytes() == after


def test_an_existing_skillsift_entry_is_updated_in_place(bare, lexical, capsys):
    path = bare / ".pre-commit-config.yaml"
    original = ("repos:\n"
                "  - repo: https://github.com/OWNER/skillsift\n"
                "    rev: 'v0.0.1'   # the old pin\n"
                "    hooks:\n"
                "      - id: skillsift-eval\n"
                "        stages: [pre-push]   # ours: only on push\n"
                "  - repo: local\n"
                "    hooks:\n"
                "      - {id: mine, name: mine, entry: 'true', language: system}\n")
    path.write_text(original, encoding="utf-8")
    assert run(capsys, "init", "--root", bare, "--write")[0] == 0
    text = path.read_text(encoding="utf-8")
    assert text.startswith(f"repos:\n  - repo: {REPOSITORY_URL}\n    rev: '{TAG}'   # the old pin\n")
    assert "        stages: [pre-push]   # ours: only on push\n" in text
    doc = yaml.safe_load(text)
    assert [hook["id"] for hook in doc["repos"][0]["hooks"]] == ["skillsift-eval", "skillsift-secrets",
                                                                 "skillsift-frontmatter", "skillsift-cases"]
    assert doc["repos"][1] == {"repo": "local", "hooks": [{"id": "mine", "name": "mine", "entry": "true",
                                                            "language": "system"}]}
    _validate_config(path)


@pytest.mark.parametrize("text", [
    "repos: []\n",  # a flow-style list
    "repos:\n- &hooks\n  repo: local\n  hooks: []\n",  # an anchor
    "repos:\r\n  - repo: local\r\n    hooks: []\r\n",  # carriage returns
    "repos:\n  - repo: local\n    hooks: [\n",  # does not parse
    "---\nrepos: []\n---\nrepos: []\n",  # two documents
    "repos:\n  - repo: local\n    hooks: " + "[" * 5000 + "]" * 5000 + "\n",  # nests deeper than a text edit reads
    "repos:\n  - repo: local\n    hooks: []\n" + "# padding\n" * 30_000,  # larger than a config is
])
def test_yaml_that_cannot_be_edited_safely_is_left_byte_for_byte(bare, lexical, capsys, text):
    path = bare / ".pre-commit-config.yaml"
    path.write_bytes(text.encode("utf-8"))
    code, out, _ = run(capsys, "init", "--root", bare, "--write")
    assert code == 0
    assert path.read_bytes() == text.encode("utf-8")
    assert "kept .pre-commit-config.yaml: " in out
    assert f"add to .pre-commit-config.yaml by hand:\n  - repo: {REPOSITORY_URL}" in out
    assert f"    rev: {TAG}\n" in out and "      - id: skillsift-eval" in out


def test_an_existing_workflow_gains_the_job_or_its_pin(bare, lexical, capsys):
    path = bare / ".github" / "workflows" / "skills.yml"
    path.parent.mkdir(parents=True)
    original = ("name: checks   # the team's\non:\n  pull_request:\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
                "    steps:\n      - run: make test\n")
    path.write_text(original, encoding="utf-8")
    assert run(capsys, "init", "--root", bare, "--write")[0] == 0
    text = path.read_text(encoding="utf-8")
    assert text.startswith(original)
    doc = yaml.safe_load(text)
    assert list(doc["jobs"]) == ["test", "skillsift"]
    assert doc["jobs"]["skillsift"]["steps"][1]["uses"] == f"{ACTION}@{TAG}"
    # a pinned older Action is moved to this tag in place
    path.write_text(original.replace("      - run: make test\n",
                                     "      - uses: OWNER/skillsift@v0.0.1   # ours\n"), encoding="utf-8")
    assert run(capsys, "init", "--root", bare, "--write")[0] == 0
    assert f"      - uses: {ACTION}@{TAG}   # ours\n" in path.read_text(encoding="utf-8")
    assert "skillsift:" not in path.read_text(encoding="utf-8").split("jobs:")[1].split("test:")[0]


def test_a_hand_written_config_gains_its_search_and_validate_settings(tmp_path, lexical, capsys):
    root = tmp_path / "repo"
    write_skill(root, "pdf-tools", "Extract text and tables from PDF files.", layout="scientific-skills")
    write_skill(root, "csv-tools", "Clean and join CSV files. Use when an export has broken rows.",
                layout="scientific-skills")
    original = '# ours\n[catalog]\nskills = ["scientific-skills"]   # where they live\n'
    (root / "skillsift.toml").write_text(original, encoding="utf-8")
    code, out, err = run(capsys, "init", "--root", root, "--write")
    assert code == 0, err
    text = (root / "skillsift.toml").read_text(encoding="utf-8")
    assert text.startswith(original)
    assert '\n[search]\n' in text and 'mode = "lexical"' in text
    assert 'cases = "search-cases.yaml"' in text and 'baseline = "eval-baseline.json"' in text
    assert "# The gate init turned on" in text
    assert (root / "eval-baseline.json").is_file()
    before = _snapshot(root)
    assert run(capsys, "init", "--root", root, "--write")[0] == 0
    assert _snapshot(root) == before


def test_when_to_use_items_of_the_body_become_drafts_with_their_lines(tmp_path, lexical, capsys):
    root = tmp_path / "repo"
    write_skill(root, "rotate-keys", "Rotate the signing keys of a service.",
                body="# Rotate keys\n\n## When to use\n\nApply this skill when:\n\n- a signing key leaked in a log\n"
                     "- the quarterly key rotation is due\n* a **new** region needs its own keys\n- no\n")
    write_skill(root, "plain", "Does one thing.")
    code, out, err = run(capsys, "init", "--root", root, "--write")
    assert code == 0, err
    assert "wrote search-cases.yaml (4 draft cases from 2 skills: review them)" in out
    cases = yaml.safe_load((root / "search-cases.yaml").read_text(encoding="utf-8"))["cases"]
    assert [case["query"] for case in cases] == ["Does one thing", "a signing key leaked in a log",
                                                 "the quarterly key rotation is due", "a new region needs its own keys"]
    assert "# review: drafted from .claude/skills/rotate-keys/SKILL.md:" in (root / "search-cases.yaml").read_text()
    code, out, _ = run(capsys, "validate", "--root", root, "--format", "json")
    assert "AR9D0" not in out and "AR9D2" not in out


def test_a_repository_without_skills_is_an_error(tmp_path, capsys):
    code, _out, err = run(capsys, "init", "--root", tmp_path)
    assert code == 1 and "init found no SKILL.md" in err and ".claude/skills" in err
    assert list(tmp_path.iterdir()) == []


def test_skills_outside_the_agents_folders_are_named_with_the_line_that_serves_them(tmp_path, capsys):
    root = tmp_path / "repo"
    write_skill(root, "one", "Do one thing well.", layout="science/skills-here")
    code, _out, err = run(capsys, "init", "--root", root)
    assert code == 1
    assert "1 SKILL.md lie outside the agents' folders (under science/skills-here)" in err
    assert '[catalog] skills = ["science/skills-here"]' in err
    for name in ("two", "three"):
        write_skill(root, name, "Do one more thing well.", layout="science/skills-here")
    code, out, _ = run(capsys, "validate", "--root", root, "--format", "json")
    found = sorted((d for d in json.loads(out)["diagnostics"] if d["code"] in ("SK012", "SK013")),
                   key=lambda d: d["code"])
    # one cause, one finding: the three strays are one SK012 note naming the line that serves them
    assert [d["code"] for d in found] == ["SK012", "SK013"]
    assert found[0]["message"].startswith("3 SKILL.md under science/skills-here are outside every folder")
    assert '`[catalog] skills = ["science/skills-here"]`' in found[0]["hint"]
    assert '`[catalog] skills = ["science/skills-here"]`' in found[1]["hint"]


def test_a_link_in_the_way_is_kept_and_never_followed(bare, tmp_path, lexical, capsys):
    outside = tmp_path / "outside.yaml"
    os.symlink(outside, bare / "search-cases.yaml")  # dangling: opening it for writing would create outside.yaml
    os.symlink(tmp_path, bare / ".github")  # a folder that leaves the repository
    code, out, _ = run(capsys, "init", "--root", bare, "--write")
    assert code == 0
    assert "kept search-cases.yaml: it exists" in out
    assert "kept .github/workflows/skills.yml: its folder leaves the repository" in out
    assert not outside.exists() and not (tmp_path / "workflows").exists()


def test_a_pyproject_config_gains_its_settings_under_tool_skillsift(bare, lexical, capsys):
    original = '[project]\nname = "x"\n\n[tool.skillsift.catalog]\nskills = [".claude/skills"]  # ours\n'
    (bare / "pyproject.toml").write_text(original, encoding="utf-8")
    code, out, _ = run(capsys, "init", "--root", bare, "--write")
    assert code == 0 and "updated pyproject.toml (the configuration)" in out
    text = (bare / "pyproject.toml").read_text(encoding="utf-8")
    assert text.startswith(original)
    assert "[tool.skillsift.search]" in text and "[tool.skillsift.validate]" in text
    assert not (bare / "skillsift.toml").exists()


def test_guarded_from_the_first_commit_a_passing_draft_that_fails_fails_the_eval_hook(bare, lexical, capsys):
    assert run(capsys, "init", "--root", bare, "--write")[0] == 0
    _git(bare, "init", "-q")
    _git(bare, "add", "-A")
    _git(bare, "commit", "-q", "-m", "skillsift init")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ACME.parent.parent),
                                                                      os.environ.get("PYTHONPATH")]))}
    hook = [sys.executable, "-m", "skillsift", "hook", "eval"]
    proc = subprocess.run(hook, cwd=bare, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the draft "any PagerDuty alert or reported outage" finds oncall-triage first; a rewrite loses it
    skill = bare / ".claude" / "skills" / "oncall-triage" / "SKILL.md"
    skill.write_text("---\nname: oncall-triage\ndescription: Bake sourdough bread with a long cold proof.\n---\n"
                     "# Bread\n\nMix flour and water.\n", encoding="utf-8")
    proc = subprocess.run([*hook, ".claude/skills/oncall-triage/SKILL.md"], cwd=bare, env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert 'AR9D4 case "draft-oncall-triage-1" regressed against the baseline' in proc.stdout


def test_with_the_local_model_init_writes_hybrid_and_a_fresh_index(tmp_path, capsys):
    from skillsift.embed.local import local_model_available

    if not local_model_available()[0]:
        pytest.skip("the embed extra is not installed: the lexical path is tested above")
    root = tmp_path / "repo"
    for name in ("deploy-staging", "issue-refund", "rollback-release", "code-review"):
        shutil.copytree(ACME / ".claude" / "skills" / name, root / ".claude" / "skills" / name)
    code, out, err = run(capsys, "init", "--root", root, "--write")
    assert code == 0, err
    assert 'mode = "hybrid"' in (root / "skillsift.toml").read_text(encoding="utf-8")
    assert "built the index .skillsift/index/ (4 skills): commit it with the skills" in out
    assert "commit .skillsift/index/ with the skills" in out
    assert "evaluated in hybrid mode" in out
    doc = yaml.safe_load((root / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert "skillsift-index" in [hook["id"] for hook in doc["repos"][0]["hooks"]]
    code, out, _ = run(capsys, "status", "--root", root, "--format", "json")
    assert '"state": "fresh"' in out
    before = _snapshot(root)
    assert run(capsys, "init", "--root", root, "--write")[0] == 0
    assert _snapshot(root) == before


def test_a_config_that_cannot_be_edited_is_left_with_the_lines_to_paste_and_no_gate(bare, lexical, capsys):
    original = b'[search\nmode = 1\n'
    (bare / "skillsift.toml").write_bytes(original)
    code, out, _ = run(capsys, "init", "--root", bare, "--write")
    assert code == 0
    assert (bare / "skillsift.toml").read_bytes() == original
    assert "kept skillsift.toml: it does not parse as TOML" in out
    pasted = out.split("add to skillsift.toml by hand:\n", 1)[1]
    assert pasted.startswith("[search]\n") and "\n[validate]\n" in pasted and "baseline" not in pasted
    assert not (bare / "eval-baseline.json").exists()
    assert "not guarded: the configuration does not load" in out


def test_a_file_in_the_way_of_a_folder_or_a_file_that_is_a_folder_is_reported_not_a_crash(bare, lexical, capsys):
    (bare / ".github").write_text("not a folder\n", encoding="utf-8")
    (bare / ".pre-commit-config.yaml").mkdir()
    (bare / "skillsift.toml").write_text("# ours\n", encoding="utf-8")
    (bare / "skillsift.toml.skillsift-init.tmp").write_text("someone's\n", encoding="utf-8")
    code, out, _ = run(capsys, "init", "--root", bare, "--write")
    assert code == 0
    assert "kept .github/workflows/skills.yml: it could not be written (Not a directory)" in out
    assert "kept .pre-commit-config.yaml: it is a link or not a regular file" in out
    assert "kept skillsift.toml: it could not be written (File exists)" in out
    assert (bare / "skillsift.toml.skillsift-init.tmp").read_text(encoding="utf-8") == "someone's\n"
    assert (bare / "skillsift.toml").read_text(encoding="utf-8") == "# ours\n"
