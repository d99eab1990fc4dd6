"""The release steps (scripts/release.py) and the workflows that run them (docs/development.md, "Releasing").

The release workflow's tag step is read from ``.github/workflows/release.yml`` and run as it is in
temporary git repositories; tests/hooks/test_precommit.py runs the same step in a clone of this checkout
and then installs the hooks through real pre-commit at the tag it made.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "release.py"
WORKFLOWS = ROOT / ".github" / "workflows"
# What scripts/release.py reads: a copy of these is a release checkout in miniature.
RELEASE_FILES = ("pyproject.toml", "skillsift/_version.py", "README.md", "docs/hooks.md", "docs/github-action.md",
                 ".pre-commit-hooks.yaml", "action.yml", "scripts/release.py")


def _steps(workflow: str) -> list[dict]:
    doc = yaml.safe_load((WORKFLOWS / workflow).read_text(encoding="utf-8"))
    return [step for job in doc["jobs"].values() for step in job["steps"]]


def release_tag_step() -> str:
    """The shell line of the release workflow's tag step, verbatim."""
    step = next(s for s in _steps("release.yml") if s.get("id") == "tag")
    assert "scripts/release.py tag" in step["run"]
    return step["run"]


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid", "-c",
                           "commit.gpgsign=false", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=True)


def _checkout(tmp_path: Path) -> tuple[Path, Path]:
    """A bare "origin" and a clone of it holding the release files: (origin, clone)."""
    seed = tmp_path / "seed"
    for rel in RELEASE_FILES:
        (seed / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, seed / rel)
    _git(seed, "init", "-q", "-b", "main")
    _git(seed, "add", "-A")
    _git(seed, "commit", "-q", "-m", "release files")
    origin = tmp_path / "origin.git"
    _git(tmp_path, "clone", "-q", "--bare", str(seed), str(origin))
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(origin), str(clone))
    return origin, clone


def _run_step(clone: Path, output: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GITHUB_OUTPUT=str(output), PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}")
    return subprocess.run(["bash", "-c", release_tag_step()], cwd=clone, env=env, capture_output=True, text=True,
                          timeout=120)


def _version() -> str:
    import skillsift

    return skillsift.__version__


def test_every_pin_of_this_checkout_names_the_version():
    proc = subprocess.run([sys.executable, str(SCRIPT), "check"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"every pin names v{_version()}"


def test_a_pin_that_disagrees_is_named_with_its_file_and_line(tmp_path):
    _origin, clone = _checkout(tmp_path)
    readme = clone / "README.md"
    lines = readme.read_text(encoding="utf-8").splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines, 1) if line.strip().startswith("rev: v"))
    lines[number - 1] = lines[number - 1].replace(f"v{_version()}", "v9.9.9")
    readme.write_text("".join(lines), encoding="utf-8")
    proc = subprocess.run([sys.executable, str(clone / "scripts" / "release.py"), "check"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1
    assert f"README.md:{number}: pins v9.9.9, not the release tag v{_version()}" in proc.stderr
    # and the tag step refuses to tag such a checkout
    step = _run_step(clone, tmp_path / "out")
    assert step.returncode == 1 and f"README.md:{number}" in step.stderr
    assert _git(clone, "tag", "--list").stdout == ""


def test_a_hook_the_readme_names_must_exist(tmp_path):
    _origin, clone = _checkout(tmp_path)
    hooks = clone / ".pre-commit-hooks.yaml"
    hooks.write_text(hooks.read_text(encoding="utf-8").replace("id: skillsift-eval", "id: skillsift-evaluate"),
                     encoding="utf-8")
    proc = subprocess.run([sys.executable, str(clone / "scripts" / "release.py"), "check"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1
    assert "hook skillsift-eval is not in .pre-commit-hooks.yaml" in proc.stderr


def test_the_workflow_step_tags_pushes_and_is_safe_to_run_again(tmp_path):
    origin, clone = _checkout(tmp_path)
    tag = f"v{_version()}"
    first = _run_step(clone, tmp_path / "first")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == f"created tag {tag}"
    assert (tmp_path / "first").read_text(encoding="utf-8") == f"tag={tag}\ncreated=true\n"
    head = _git(clone, "rev-parse", "HEAD").stdout.strip()
    assert _git(origin, "rev-parse", f"refs/tags/{tag}").stdout.strip() == head  # pushed to origin
    again = _run_step(clone, tmp_path / "again")
    assert again.returncode == 0 and again.stdout.strip() == f"kept tag {tag}"
    assert (tmp_path / "again").read_text(encoding="utf-8") == f"tag={tag}\ncreated=false\n"
    # a new commit without a new version: the tag names another commit, so the step fails
    (clone / "NEWS").write_text("more\n", encoding="utf-8")
    _git(clone, "add", "NEWS")
    _git(clone, "commit", "-q", "-m", "more")
    stale = _run_step(clone, tmp_path / "stale")
    assert stale.returncode == 1
    assert f"tag {tag} already names" in stale.stderr and "raise the version" in stale.stderr


def test_the_release_workflow_runs_on_a_version_change_and_publishes_only_a_new_tag():
    doc = yaml.safe_load((WORKFLOWS / "release.yml").read_text(encoding="utf-8"))
    trigger = doc.get("on", doc.get(True))
    assert trigger["push"]["branches"] == ["main"] and trigger["push"]["paths"] == ["pyproject.toml"]
    steps = _steps("release.yml")
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert str(checkout["with"]["fetch-depth"]) == "0"  # the existing tags are seen
    runs = [s.get("run", "") for s in steps]
    assert runs.index("python scripts/release.py check") < runs.index(release_tag_step())
    publish = next(s for s in steps if "gh release create" in s.get("run", ""))
    assert publish["if"] == "steps.tag.outputs.created == 'true'"


def test_the_ci_workflow_runs_what_ci_runs_and_dogfoods_the_hooks_and_the_action():
    steps = _steps("ci.yml")
    runs = [s.get("run", "") for s in steps]
    assert "bash .ci/run" in runs and "bash .ci/dogfood" in runs
    action = next(s for s in steps if s.get("uses") == "./")
    assert action["with"]["working-directory"] == "examples/acme"
