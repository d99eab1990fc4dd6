"""The hooks through the real pre-commit, in temporary git repositories.

The hook repository is a temporary copy of this checkout's working tree (tracked and new
files), committed, so the hooks under test are the ones being written.  pre-commit
installs it once for the module (one environment, PRE_COMMIT_HOME in a temporary
directory); every scenario then makes a project repository, installs the git hook and
runs real ``git commit``s.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import skillsift
from skillsift.hooks.specs import HOOK_SPECS
from tests.conftest import FIXTURES, ROOT, write_skill
from tests.test_release import release_tag_step

pytestmark = pytest.mark.slow  # real pre-commit builds its hook environments: out of the quick loop

EMBEDDER = FIXTURES / "hook_embedder.py"
REAL_PIP_CACHE = os.environ.get("PIP_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "pip")
HOOKS = tuple(spec.id for spec in HOOK_SPECS)
SECRET = "AKIAQWERTYUIOPASDFGH"


def _run(args, cwd, env, check=True, timeout=600):
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"{args} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def _git(cwd, env, *args, check=True):
    return _run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid", "-c",
                 "commit.gpgsign=false", *args], cwd, env, check=check)


@pytest.fixture(scope="module")
def hook_env(tmp_path_factory):
    """Environment of every git / pre-commit call: isolated homes, one PRE_COMMIT_HOME per module."""
    base = tmp_path_factory.mktemp("precommit")
    home = base / "home"
    xdg = home / ".config"
    (xdg / "skillsift").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SKILLSIFT_", "GIT_", "PRE_COMMIT"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(xdg), PRE_COMMIT_HOME=str(base / "cache"),
               PIP_CACHE_DIR=REAL_PIP_CACHE, GIT_CONFIG_NOSYSTEM="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory, hook_env):
    """A committed copy of this checkout's working tree: (path, commit)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    dest = tmp_path_factory.mktemp("skillsift-checkout")
    for rel in filter(None, listed):
        source = ROOT / rel
        if not source.is_file():
            continue  # deleted in the working tree
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    _git(dest, hook_env, "init", "-q")
    _git(dest, hook_env, "add", "-A")
    _git(dest, hook_env, "commit", "-q", "-m", "snapshot")
    sha = _git(dest, hook_env, "rev-parse", "HEAD").stdout.strip()
    return dest, sha


def _config_yaml(repo: Path, sha: str, hooks=HOOKS, deps: dict | None = None, stages: dict | None = None) -> str:
    lines = ["repos:", f"  - repo: {repo}", f"    rev: {sha}", "    hooks:"]
    for hook in hooks:
        lines.append(f"      - id: {hook}")
        if deps and hook in deps:
            lines.append(f"        additional_dependencies: {json.dumps(deps[hook])}")
        if stages and hook in stages:
            lines.append(f"        stages: {json.dumps(stages[hook])}")
    return "\n".join(lines) + "\n"


CASES = textwrap.dedent("""\
    version: 1
    k: 3
    cases:
      - id: staging
        query: deploy to staging
        expect: [deploy-staging]
      - id: refund
        query: refund an order
        expect: [issue-refund]
      - id: postmortem
        query: write a postmortem
        expect: [write-postmortem]
      - id: qa
        query: a build for the QA testers
        expect: [deploy-staging]
    """)


def make_project(path: Path, env, hook_repo, *, config: str = "", hooks=HOOKS, deps: dict | None = None,
                 stages: dict | None = None) -> Path:
    """A small skills repository with the hooks installed and everything committed."""
    write_skill(path, "deploy-staging", "Deploy a service to the staging cluster for QA.",
                triggers=["deploy to staging"])
    write_skill(path, "issue-refund", "Refund an order from the billing console.", triggers=["refund an order"])
    write_skill(path, "write-postmortem", "Write a blameless postmortem after an incident.",
                triggers=["write a postmortem"])
    (path / "search-cases.yaml").write_text(CASES, encoding="utf-8")
    (path / "skillsift.toml").write_text(config, encoding="utf-8")
    repo, sha = hook_repo
    (path / ".pre-commit-config.yaml").write_text(_config_yaml(repo, sha, hooks, deps, stages), encoding="utf-8")
    _git(path, env, "init", "-q")
    _git(path, env, "add", "-A")
    _git(path, env, "commit", "-q", "-m", "initial")
    _run([sys.executable, "-m", "pre_commit", "install"], path, env)
    return path


def commit(path: Path, env, message: str = "change"):
    """``git commit`` through the installed pre-commit hook; the completed process."""
    return _git(path, env, "commit", "-m", message, check=False)


def _out(proc) -> str:
    return proc.stdout + proc.stderr


def _head(path, env) -> str:
    return _git(path, env, "rev-parse", "HEAD").stdout.strip()


def test_clean_repository_passes_every_hook(tmp_path, hook_env, hook_repo):
    project = make_project(tmp_path, hook_env, hook_repo, config='[validate]\nmin = "top1=1"\n')
    # runs every hook over every file once: the environment gets installed here
    proc = _run([sys.executable, "-m", "pre_commit", "run", "--all-files"], project, hook_env, check=False)
    assert proc.returncode == 0, _out(proc)
    for hook in ("skillsift validate", "skillsift secrets", "skillsift frontmatter", "skillsift cases",
                 "skillsift eval"):
        assert hook in proc.stdout and "Passed" in proc.stdout
    skill = project / ".claude/skills/issue-refund/SKILL.md"
    skill.write_text(skill.read_text() + "\nAlso check the invoice.\n", encoding="utf-8")
    _git(project, hook_env, "add", "-A")
    before = _head(project, hook_env)
    proc = commit(project, hook_env)
    assert proc.returncode == 0, _out(proc)
    assert _head(project, hook_env) != before


def test_planted_secret_fails_the_commit_with_file_and_line(tmp_path, hook_env, hook_repo):
    project = make_project(tmp_path, hook_env, hook_repo)
    skill = project / ".claude/skills/deploy-staging/SKILL.md"
    lines = skill.read_text().splitlines()
    lines.append(f"Use the key {SECRET} for the bucket.")
    skill.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _git(project, hook_env, "add", "-A")
    before = _head(project, hook_env)
    proc = commit(project, hook_env)
    assert proc.returncode != 0
    out = _out(proc)
    assert f".claude/skills/deploy-staging/SKILL.md:{len(lines)}:13: AR001" in out
    assert SECRET not in out  # only the masked excerpt is printed
    assert "AKIA**** (20 characters)" in out
    assert _head(project, hook_env) == before
    # the inline allowance lets it through
    lines[-1] += "  <!-- skillsift: allow-secret -->"
    skill.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _git(project, hook_env, "add", "-A")
    proc = commit(project, hook_env)
    assert proc.returncode == 0, _out(proc)


def test_a_committed_link_that_leaves_its_skill_or_dangles_fails_the_commit(tmp_path, hook_env, hook_repo):
    """pre-commit passes no link to a hook that does not ask for them: skillsift-validate does (SK020, SK021)."""
    project = make_project(tmp_path, hook_env, hook_repo, hooks=("skillsift-validate",))
    folder = project / ".claude/skills/deploy-staging"
    (folder / "scripts").mkdir()
    os.symlink("../../../../.env", folder / "scripts" / "env.sh")  # .env is ignored: it dangles on a checkout
    _git(project, hook_env, "add", "-A")
    before = _head(project, hook_env)
    proc = commit(project, hook_env)
    assert proc.returncode != 0, _out(proc)
    assert ".claude/skills/deploy-staging/scripts/env.sh: SK021" in _out(proc) and "dangles" in _out(proc)
    assert _head(project, hook_env) == before
    _git(project, hook_env, "rm", "-q", "--cached", ".claude/skills/deploy-staging/scripts/env.sh")
    (folder / "scripts" / "env.sh").unlink()
    (project / ".claude/skills/leak").mkdir()
    os.symlink("../../../.env", project / ".claude/skills/leak/SKILL.md")
    _git(project, hook_env, "add", "-A")
    proc = commit(project, hook_env)
    assert proc.returncode != 0, _out(proc)
    assert ".claude/skills/leak/SKILL.md: SK020" in _out(proc)


def test_a_link_in_a_skill_folder_outside_skills_fails_the_commit(tmp_path, hook_env, hook_repo):
    """A `[catalog] skills` folder no `files:` pattern names: the hook's own walk of the staged links finds it."""
    project = make_project(tmp_path, hook_env, hook_repo, hooks=("skillsift-validate",),
                           config='[catalog]\nskills = [".claude/skills/*", "agents/*"]\n')
    write_skill(project, "tools", "Run the maintenance tools.", layout="agents")
    _git(project, hook_env, "add", "-A")
    assert commit(project, hook_env).returncode == 0
    os.symlink("../../../outside.sh", project / "agents/tools/run.sh")
    _git(project, hook_env, "add", "-A")
    before = _head(project, hook_env)
    proc = commit(project, hook_env)
    assert proc.returncode != 0, _out(proc)
    assert "agents/tools/run.sh: SK021" in _out(proc)
    assert _head(project, hook_env) == before


def test_broken_cases_file_fails_with_its_lines(tmp_path, hook_env, hook_repo):
    project = make_project(tmp_path, hook_env, hook_repo)
    cases = project / "search-cases.yaml"
    cases.write_text(CASES + "  - id: refund\n    query: money back\n    expect: [ghost]\n", encoding="utf-8")
    _git(project, hook_env, "add", "-A")
    proc = commit(project, hook_env)
    assert proc.returncode != 0
    out = _out(proc)
    assert "skillsift cases" in out
    assert 'search-cases.yaml:16: AR9D2 case "refund": duplicate id' in out


def test_a_hostile_examples_file_fails_the_commit_with_its_lines(tmp_path, hook_env, hook_repo):
    """An examples file of [search] examples is checked like a cases file: tags, merge keys, alias bombs."""
    project = make_project(tmp_path, hook_env, hook_repo, config='[search]\nexamples = ["known.yaml"]\n')
    laughs = "".join(f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]\n" for n in range(1, 9))
    (project / "known.yaml").write_text(
        'version: 1\nl0: &l0 "lol"\n' + laughs + "cases:\n  - id: a\n    query: !!python/object/apply:os.system [x]\n"
        "    expect: [issue-refund]\n  - <<: {id: b}\n    query: refund\n", encoding="utf-8")
    _git(project, hook_env, "add", "-A")
    before = _head(project, hook_env)
    proc = commit(project, hook_env)
    out = _out(proc)
    assert proc.returncode != 0 and _head(project, hook_env) == before, out
    assert "skillsift cases" in out
    assert "known.yaml:6: AR9D2 aliases repeat more than 10000 nodes" in out
    assert 'known.yaml:13: AR9D2 case "a": the tag !!python/object/apply:os.system is not allowed' in out
    assert "known.yaml:15: AR9D2 case 2: a merge key (<<) is not allowed" in out


def test_deleting_a_skill_named_by_the_cases_fails(tmp_path, hook_env, hook_repo):
    project = make_project(tmp_path, hook_env, hook_repo, hooks=("skillsift-cases", "skillsift-validate"))
    _git(project, hook_env, "rm", "-q", "-r", ".claude/skills/write-postmortem")
    proc = commit(project, hook_env)
    assert proc.returncode != 0
    out = _out(proc)
    assert 'AR9D2 case "postmortem" expects unknown skill "write-postmortem"' in out


def test_gate_regression_fails_skillsift_eval(tmp_path, hook_env, hook_repo):
    project = make_project(tmp_path, hook_env, hook_repo, hooks=("skillsift-eval",))
    # save a baseline where every case hits, and gate on it
    baseline = project / "eval-baseline.json"
    from skillsift.cli import main

    assert main(["eval", str(project / "search-cases.yaml"), "--root", str(project), "--output",
                 str(baseline), "--format", "json"]) == 0
    (project / "skillsift.toml").write_text('[validate]\nmin = "top1=0.6"\nbaseline = "eval-baseline.json"\n',
                                            encoding="utf-8")
    _git(project, hook_env, "add", "-A")
    proc = commit(project, hook_env, "gates")
    assert proc.returncode == 0, _out(proc)
    # the staging skill no longer mentions QA: the "qa" case stops finding it
    write_skill(project, "deploy-staging", "Deploy a service to the staging cluster.",
                triggers=["deploy to staging"])
    _git(project, hook_env, "add", "-A")
    proc = commit(project, hook_env, "regress")
    assert proc.returncode != 0
    out = _out(proc)
    assert "skillsift eval" in out and "Failed" in out
    assert 'search-cases.yaml:13: AR9D4 case "qa" regressed against the baseline: expected deploy-staging, ' \
           "now not retrieved" in out
    assert "hint: 1 case regressed, at most 0 may; if the change is intended" in out
    assert "1 error, 0 warnings in 1 file" in out  # one regressed case, one error


def test_eval_and_validate_hooks_report_a_regression_once(tmp_path, hook_env, hook_repo):
    project = make_project(tmp_path, hook_env, hook_repo, hooks=("skillsift-validate", "skillsift-eval"))
    from skillsift.cli import main

    assert main(["eval", str(project / "search-cases.yaml"), "--root", str(project), "--output",
                 str(project / "eval-baseline.json"), "--format", "json"]) == 0
    (project / "skillsift.toml").write_text('[validate]\nbaseline = "eval-baseline.json"\n', encoding="utf-8")
    _git(project, hook_env, "add", "-A")
    assert commit(project, hook_env, "gates").returncode == 0
    write_skill(project, "deploy-staging", "Deploy a service to the staging cluster.",
                triggers=["deploy to staging"])
    _git(project, hook_env, "add", "-A")
    proc = commit(project, hook_env, "regress")
    assert proc.returncode != 0
    out = _out(proc)
    assert out.count('AR9D4 case "qa" regressed against the baseline') == 1, out
    assert out.count("1 case regressed, at most 0 may") == 1, out
    assert ("save a new baseline: skillsift eval search-cases.yaml --mode lexical --k 3 "
            "--output eval-baseline.json") in out
    # skipping the eval hook hands AR9D4 back to the validate hook
    proc = _git(project, {**hook_env, "SKIP": "skillsift-eval"}, "commit", "-m", "regress", check=False)
    out = _out(proc)
    assert proc.returncode != 0 and out.count('AR9D4 case "qa" regressed against the baseline') == 1, out


def test_a_regression_never_passes_because_the_eval_hook_runs_at_another_stage(tmp_path, hook_env, hook_repo):
    """skillsift-validate leaves AR9D4 to skillsift-eval only when that hook runs in the same invocation."""
    project = make_project(tmp_path, hook_env, hook_repo, hooks=("skillsift-validate", "skillsift-eval"),
                           stages={"skillsift-eval": ["manual"]})
    from skillsift.cli import main

    assert main(["eval", str(project / "search-cases.yaml"), "--root", str(project), "--output",
                 str(project / "eval-baseline.json"), "--format", "json"]) == 0
    (project / "skillsift.toml").write_text('[validate]\nbaseline = "eval-baseline.json"\n', encoding="utf-8")
    _git(project, hook_env, "add", "-A")
    assert commit(project, hook_env, "gates").returncode == 0
    write_skill(project, "deploy-staging", "Deploy a service to the staging cluster.",
                triggers=["deploy to staging"])
    _git(project, hook_env, "add", "-A")
    before = _head(project, hook_env)
    proc = commit(project, hook_env, "regress")  # the eval hook is manual: it does not run on commit
    out = _out(proc)
    assert proc.returncode != 0 and _head(project, hook_env) == before, out
    assert out.count('AR9D4 case "qa" regressed against the baseline') == 1, out
    # the eval hook at every stage, but only the validate hook asked for: it still checks the gate
    (project / ".pre-commit-config.yaml").write_text(
        _config_yaml(*hook_repo, ("skillsift-validate", "skillsift-eval")), encoding="utf-8")
    _git(project, hook_env, "add", "-A")
    proc = _run([sys.executable, "-m", "pre_commit", "run", "skillsift-validate"], project, hook_env, check=False)
    out = _out(proc)
    assert proc.returncode != 0 and out.count('AR9D4 case "qa" regressed against the baseline') == 1, out
    # a pre-push run where the eval hook runs only on commit: the validate hook checks the gate
    (project / ".pre-commit-config.yaml").write_text(
        _config_yaml(*hook_repo, ("skillsift-validate", "skillsift-eval"), stages={"skillsift-eval": ["pre-commit"]}),
        encoding="utf-8")
    _git(project, hook_env, "add", "-A")
    proc = _run([sys.executable, "-m", "pre_commit", "run", "--hook-stage", "pre-push", "--all-files"], project,
                hook_env, check=False)
    out = _out(proc)
    assert proc.returncode != 0 and out.count('AR9D4 case "qa" regressed against the baseline') == 1, out


@pytest.fixture
def command_provider(hook_env):
    """A user config selecting the deterministic embedding command (an offline provider the hook rebuilds with)."""
    user = Path(hook_env["XDG_CONFIG_HOME"]) / "skillsift" / "config.toml"
    user.write_text(f'[embeddings]\nprovider = "command"\ncommand = ["{sys.executable}", "{EMBEDDER}"]\n',
                    encoding="utf-8")
    yield hook_env
    user.unlink()


def _build_index(project: Path, env) -> None:
    proc = _run([sys.executable, "-m", "skillsift", "index", "--root", str(project)], project, env, check=False)
    assert proc.returncode == 0, _out(proc)


def test_index_hook_rebuilds_after_a_description_edit_then_passes(tmp_path, command_provider, hook_repo):
    hook_env = command_provider
    project = make_project(tmp_path, hook_env, hook_repo, config='[search]\nmode = "hybrid"\n',
                           hooks=("skillsift-index",))
    _build_index(project, hook_env)
    _git(project, hook_env, "add", "-A")
    proc = commit(project, hook_env, "index")
    assert proc.returncode == 0, _out(proc)
    manifest = project / ".skillsift/index/manifest.json"
    committed = manifest.read_bytes()
    write_skill(project, "issue-refund", "Refund an order, fully or partly, from the billing console.",
                triggers=["refund an order"])
    _git(project, hook_env, "add", "-A")
    proc = commit(project, hook_env, "edit")
    assert proc.returncode != 0
    out = _out(proc)
    assert "skillsift-index: rebuilt .skillsift/index" in out
    assert "changed: issue-refund" in out
    assert "rebuild it with" not in out  # says what it did, once
    assert manifest.read_bytes() != committed  # rebuilt in the working tree, not staged yet
    _git(project, hook_env, "add", ".skillsift/index")
    proc = commit(project, hook_env, "edit")
    assert proc.returncode == 0, _out(proc)


def test_a_frontmatter_typo_fails_one_hook_and_rebuilds_nothing(tmp_path, command_provider, hook_repo):
    hook_env = command_provider
    project = make_project(tmp_path, hook_env, hook_repo, config='[search]\nmode = "hybrid"\n',
                           hooks=("skillsift-frontmatter", "skillsift-index", "skillsift-eval"))
    from skillsift.cli import main

    _build_index(project, hook_env)
    assert main(["eval", str(project / "search-cases.yaml"), "--root", str(project), "--mode", "lexical",
                 "--output", str(project / "eval-baseline.json"), "--format", "json"]) == 0
    (project / "skillsift.toml").write_text('[search]\nmode = "hybrid"\n[validate]\nmode = "lexical"\n'
                                            'baseline = "eval-baseline.json"\n', encoding="utf-8")
    _git(project, hook_env, "add", "-A")
    proc = commit(project, hook_env, "gates")
    assert proc.returncode == 0, _out(proc)
    manifest = project / ".skillsift/index/manifest.json"
    committed = manifest.read_bytes()
    skill = project / ".claude/skills/deploy-staging/SKILL.md"
    skill.write_text(skill.read_text().replace("triggers:", "triggers: [", 1), encoding="utf-8")  # a YAML typo
    _git(project, hook_env, "add", "-A")
    proc = commit(project, hook_env, "typo")
    out = _out(proc)
    assert proc.returncode != 0
    assert out.count("Failed") == 1, out  # the frontmatter hook, for the one cause
    assert "SK001" in out and "save a new baseline" not in out and "AR9D4" not in out
    assert manifest.read_bytes() == committed  # nothing was built from the broken text
    # what the two passing hooks said (pre-commit shows the output of failing hooks only)
    # (--verbose shows them; a hook leaves the one failure to the frontmatter hook only when that hook
    # runs in the same pre-commit invocation, docs/hooks.md "One finding, one hook")
    proc = _run([sys.executable, "-m", "pre_commit", "run", "--verbose"], project, hook_env, check=False)
    out = _out(proc)
    assert out.count("Failed") == 1 and "fix the frontmatter first" in out, out
    for said in ("the index was not rebuilt", "the gates were not run"):
        assert said in out, out
    assert manifest.read_bytes() == committed


def test_index_hook_without_the_local_model_writes_nothing_and_says_how_to_add_it(tmp_path, hook_env, hook_repo):
    pytest.importorskip("onnxruntime")
    from skillsift.embed.local import local_model_available

    if not local_model_available()[0]:
        pytest.skip("the local model cannot run here to build the committed index")
    project = make_project(tmp_path, hook_env, hook_repo, config='[search]\nmode = "hybrid"\n',
                           hooks=("skillsift-index", "skillsift-validate"))
    env = {**hook_env, "PYTHONPATH": str(ROOT)}
    _build_index(project, env)  # this environment has the model; pre-commit's (no extra) has not
    _git(project, hook_env, "add", "-A")
    assert commit(project, hook_env, "index").returncode == 0
    folder = project / ".skillsift/index"
    before = {name: (folder / name).read_bytes() for name in ("manifest.json", "vectors.bin")}
    write_skill(project, "issue-refund", "Refund an order, fully or partly, from the billing console.",
                triggers=["refund an order"])
    _git(project, hook_env, "add", "-A")
    proc = commit(project, hook_env, "edit")
    assert proc.returncode != 0
    out = _out(proc)
    assert "skillsift-index: the index was not refreshed and nothing was written" in out
    assert 'additional_dependencies: ["skillsift[embed]"]' in out
    assert {name: (folder / name).read_bytes() for name in before} == before  # not 2 of 3 rows


def test_deleting_a_skill_triggers_the_index_hook(tmp_path, command_provider, hook_repo):
    hook_env = command_provider
    project = make_project(tmp_path, hook_env, hook_repo, config='[search]\nmode = "hybrid"\n',
                           hooks=("skillsift-index",))
    _build_index(project, hook_env)
    _git(project, hook_env, "add", "-A")
    assert commit(project, hook_env, "index").returncode == 0
    _git(project, hook_env, "rm", "-q", "-r", ".claude/skills/write-postmortem")
    proc = commit(project, hook_env, "delete")
    assert proc.returncode != 0
    out = _out(proc)
    assert "no longer present: write-postmortem" in out
    assert b"write-postmortem" not in (project / ".skillsift/index/manifest.json").read_bytes()
    _git(project, hook_env, "add", ".skillsift/index")
    proc = commit(project, hook_env, "delete")
    assert proc.returncode == 0, _out(proc)


def _documented_index_dependencies() -> list[list[str]]:
    """The ``additional_dependencies`` of the skillsift-index hook in every snippet of the README and docs/hooks.md."""
    import re

    import yaml

    forms = []
    for path in (ROOT / "README.md", ROOT / "docs" / "hooks.md"):
        found = []
        for block in re.findall(r"```yaml\n(.*?)```", path.read_text(encoding="utf-8"), re.S):
            for match in re.finditer(r"- id: skillsift-index[^\n]*\n\s+additional_dependencies: (\[[^\n]*\])", block):
                found.append(yaml.safe_load(match.group(1)))
        assert found, f"{path.name} shows the skillsift-index hook without its additional_dependencies"
        forms += found
    return forms


def test_the_documented_index_hook_runs_the_local_model_inside_pre_commit(tmp_path, hook_env, hook_repo):
    pytest.importorskip("onnxruntime", reason="skillsift[embed] is not installed")
    forms = _documented_index_dependencies()
    assert all(form == forms[0] for form in forms), forms  # one form, everywhere
    project = make_project(tmp_path, hook_env, hook_repo, config='[search]\nmode = "hybrid"\n',
                           hooks=("skillsift-index",), deps={"skillsift-index": forms[0]})
    write_skill(project, "issue-refund", "Refund an order, fully or partly, from the billing console.",
                triggers=["refund an order"])
    _git(project, hook_env, "add", "-A")
    proc = commit(project, hook_env, "edit")
    assert proc.returncode != 0
    out = _out(proc)
    assert "skillsift-index: rebuilt .skillsift/index" in out, out
    manifest = json.loads((project / ".skillsift/index/manifest.json").read_text(encoding="utf-8"))
    assert manifest["provider"] == "local@all-MiniLM-L6-v2" and len(manifest["items"]) == 3
    _git(project, hook_env, "add", ".skillsift/index")
    proc = commit(project, hook_env, "index")
    assert proc.returncode == 0, _out(proc)


def test_the_hooks_file_describes_every_hook():
    import yaml

    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == set(HOOKS)
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["entry"].startswith("skillsift hook ")
    # a deleted skill is never passed as a file, so these must run on every commit
    for name in ("skillsift-validate", "skillsift-cases", "skillsift-index", "skillsift-eval"):
        assert hooks[name]["always_run"] is True
    for name in ("skillsift-index", "skillsift-eval"):
        assert hooks[name]["pass_filenames"] is False
        assert hooks[name]["require_serial"] is True
    assert hooks["skillsift-secrets"]["require_serial"] is False
    from importlib.metadata import version

    minimums = {hook["minimum_pre_commit_version"] for hook in hooks.values()}
    assert minimums == {"3.0.0"}
    assert tuple(int(part) for part in version("pre-commit").split(".")[:2]) >= (3, 0)  # the one tested here
    import re

    assert re.search(hooks["skillsift-frontmatter"]["files"], ".claude/skills/a/SKILL.md")
    assert not re.search(hooks["skillsift-frontmatter"]["files"], "README.md")
    assert re.search(hooks["skillsift-cases"]["files"], "search-cases.yaml")
    assert re.search(hooks["skillsift-secrets"]["files"], ".claude/skills/a/references/setup.md")
    assert skillsift.__version__


def _readme_pre_commit_yaml() -> str:
    """The README's ``.pre-commit-config.yaml`` snippet, verbatim."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [block for block in text.split("```yaml\n")[1:] if block.startswith("repos:")]
    assert len(blocks) == 1
    return blocks[0].split("```", 1)[0]


def test_the_readme_snippet_works_verbatim_against_a_clone_with_the_release_tag(tmp_path, hook_env, hook_repo):
    """What a new user copies: ``repo: https://github.com/skillsift/skillsift``, ``rev: v<version>``.

    The hook repository is a clone carrying the release tag, as the release makes it
    (docs/development.md, "Releasing"); git's ``insteadOf`` sends the README's URL to it, so not one
    character of the snippet is changed."""
    repo, _sha = hook_repo
    tag = f"v{skillsift.__version__}"
    clone = tmp_path / "skillsift-clone"
    _git(tmp_path, hook_env, "clone", "-q", str(repo), str(clone))
    # the tag is made as the release workflow makes it: its own step, run in the clone
    step = release_tag_step()
    made = _run(["bash", "-c", step], clone, {**hook_env, "GITHUB_OUTPUT": str(tmp_path / "step-output")})
    assert f"created tag {tag}" in made.stdout
    assert (tmp_path / "step-output").read_text(encoding="utf-8") == f"tag={tag}\ncreated=true\n"
    snippet = _readme_pre_commit_yaml()
    url = snippet.split("repo:", 1)[1].split()[0]
    assert f"rev: {tag}" in snippet and url == "https://github.com/skillsift/skillsift"
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f'[url "{clone.as_uri()}"]\n\tinsteadOf = {url}\n', encoding="utf-8")
    env = {**hook_env, "HOME": str(home)}
    project = make_project(tmp_path / "project", env, hook_repo, hooks=("skillsift-secrets",))
    (project / ".pre-commit-config.yaml").write_text(snippet, encoding="utf-8")
    _git(project, env, "add", "-A")
    _git(project, env, "commit", "-q", "--no-verify", "-m", "the README's hooks")
    proc = _run([sys.executable, "-m", "pre_commit", "run", "--all-files"], project, env, check=False)
    out = _out(proc)
    assert proc.returncode == 0, out
    for hook in ("skillsift secrets", "skillsift frontmatter", "skillsift cases", "skillsift index",
                 "skillsift eval"):
        assert hook in out
    assert "Failed" not in out and out.count("Passed") == 5, out


EXISTING_CONFIG = """\
# The team's hooks: keep this comment.
repos:
  - repo: local
    hooks:
      - id: team-check   # ours, runs first
        name: team check
        entry: "true"
        language: system
        pass_filenames: false
# trailing notes stay too
"""


def test_init_merges_into_an_existing_config_and_guards_from_the_first_commit(tmp_path, hook_env, hook_repo,
                                                                                monkeypatch, capsys):
    """The first hour, with real pre-commit and git: ``init --write`` merges skillsift into the team's
    config (comments and the local hook kept, ``validate-config`` passes, a second run changes no byte),
    the hooks pass at once, and a commit that loses a passing draft is refused by the eval hook."""
    from skillsift.cli import main
    from skillsift.embed import local
    from skillsift.usecases.starter.snippets import REPOSITORY_URL
    from tests.conftest import ACME

    monkeypatch.setattr(local, "local_model_available", lambda: (False, "not installed"))  # lexical
    repo, _sha = hook_repo
    tag = f"v{skillsift.__version__}"
    clone = tmp_path / "skillsift-clone"
    _git(tmp_path, hook_env, "clone", "-q", str(repo), str(clone))
    _git(clone, hook_env, "tag", "-f", tag)  # the README test's release step may have pushed it already
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f'[url "{clone.as_uri()}"]\n\tinsteadOf = {REPOSITORY_URL}\n', encoding="utf-8")
    env = {**hook_env, "HOME": str(home)}
    project = tmp_path / "project"
    shutil.copytree(ACME / ".claude", project / ".claude")
    (project / ".pre-commit-config.yaml").write_text(EXISTING_CONFIG, encoding="utf-8")
    _git(project, env, "init", "-q")
    _git(project, env, "add", "-A")
    _git(project, env, "commit", "-q", "-m", "skills")
    assert main(["init", "--root", str(project), "--write"]) == 0
    capsys.readouterr()
    config = (project / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert config.startswith(EXISTING_CONFIG.removesuffix("# trailing notes stay too\n"))
    assert config.endswith("# trailing notes stay too\n") and f"  - repo: {REPOSITORY_URL}" in config
    _run([sys.executable, "-m", "pre_commit", "validate-config", ".pre-commit-config.yaml"], project, env)
    written = {p: p.read_bytes() for p in project.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert main(["init", "--root", str(project), "--write"]) == 0
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file() and ".git" not in p.parts} == written
    _run([sys.executable, "-m", "pre_commit", "install"], project, env)
    _git(project, env, "add", "-A")
    proc = commit(project, env, "skillsift init")
    assert proc.returncode == 0, _out(proc)
    assert "team check" in _out(proc) and "skillsift eval" in _out(proc)
    # the draft "any PagerDuty alert or reported outage" finds oncall-triage; a rewrite loses it
    skill = project / ".claude" / "skills" / "oncall-triage" / "SKILL.md"
    skill.write_text("---\nname: oncall-triage\ndescription: Bake sourdough bread with a long cold proof.\n---\n"
                     "# Bread\n\nMix flour and water.\n", encoding="utf-8")
    _git(project, env, "add", "-A")
    head = _head(project, env)
    proc = commit(project, env, "rewrite")
    assert proc.returncode != 0
    assert 'AR9D4 case "draft-oncall-triage-1" regressed against the baseline' in _out(proc)
    assert _head(project, env) == head
