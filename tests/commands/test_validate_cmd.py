"""``skillsift validate`` and ``skillsift hook``: exit codes, selection, paths, formats."""

from __future__ import annotations

import json

import jsonschema

from tests.conftest import ROOT, write_skill
from tests.support.cli import load_schema, run
from tests.support.extras import require_embed
from tests.support.validators_support import build_index, three_skills

KEY = "AKIAQWERTYUIOPASDFGH"


def test_the_example_repository_is_clean(capsys):
    code, out, _err = run(capsys, "validate", "--root", str(ROOT / "examples/acme"))
    assert code == 0
    summary = out.splitlines()[-1]
    assert summary.endswith("(27 skills checked)")
    assert summary.startswith(("no problems found", "0 errors"))


def test_errors_exit_1_and_warnings_only_with_strict(tmp_path, capsys):
    three_skills(tmp_path)
    write_skill(tmp_path, "demo", "Deploy the demo.", body="## When to use\n- on release night\n")
    code, out, _ = run(capsys, "validate", "--root", str(tmp_path))
    assert code == 0 and "SK008" in out and "0 errors, 1 warning" in out
    code, _out, _ = run(capsys, "validate", "--root", str(tmp_path), "--strict")
    assert code == 1
    write_skill(tmp_path, "leak", "Leaky", body=f"{KEY}\n")
    code, out, _ = run(capsys, "validate", "--root", str(tmp_path))
    assert code == 1 and ".claude/skills/leak/SKILL.md:5:1: AR001" in out


def test_usage_and_config_problems_exit_2(tmp_path, capsys):
    three_skills(tmp_path)
    code, _out, err = run(capsys, "validate", "--root", str(tmp_path), "--format", "xml")
    assert code == 2 and "Invalid value for '--format'" in err
    code, _out, err = run(capsys, "validate", "--root", str(tmp_path), "--select", "SK999")
    assert code == 2 and "unknown check code 'SK999'" in err
    code, _out, err = run(capsys, "validate", "--root", str(tmp_path), "--bogus")
    assert code == 2
    code, _out, err = run(capsys, "validate", "--root", str(tmp_path), str(tmp_path / "missing.md"))
    assert code == 2 and "no such file" in err
    (tmp_path / "skillsift.toml").write_text('[search]\nmode = "semantic"\n')
    code, out, _ = run(capsys, "validate", "--root", str(tmp_path))
    assert code == 2
    assert out.startswith('skillsift.toml:2: AR9D0 search.mode "semantic" must be lexical, hybrid or vector')


def test_select_and_ignore(tmp_path, capsys):
    three_skills(tmp_path)
    write_skill(tmp_path, "demo", "Deploy the demo.", body=f"## When to use\n- on release night\n\n{KEY}\n")
    _code, out, _ = run(capsys, "validate", "--root", str(tmp_path), "--select", "AR001")
    assert "AR001" in out and "SK008" not in out
    _code, out, _ = run(capsys, "validate", "--root", str(tmp_path), "--ignore", "AR,SK009")
    assert "SK008" in out and "AR001" not in out
    code, out, _ = run(capsys, "validate", "--root", str(tmp_path), "--select", "SK", "--ignore", "SK008")
    assert code == 0 and out.startswith("no problems found")


def test_paths_limit_file_findings_but_keep_repository_rules(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_skill(tmp_path, "alpha", "First skill")
    write_skill(tmp_path, "beta", "")  # SK006 on beta
    write_skill(tmp_path, "alpha", "Same name elsewhere", layout="skills")  # SK002 on both alphas
    (tmp_path / "search-cases.yaml").write_text("version: 1\ncases:\n  - id: a\n    query: q\n    expect: [gone]\n")
    _code, out, _ = run(capsys, "validate", ".claude/skills/alpha/SKILL.md")
    assert "SK006" not in out  # beta's finding is not about this file
    # the duplicate name is reported on the given file, naming the other one
    assert '.claude/skills/alpha/SKILL.md:2: SK002 skill name "alpha" is also used by skills/alpha/SKILL.md' in out
    assert not any(line.startswith("skills/alpha/SKILL.md") for line in out.splitlines())
    assert 'search-cases.yaml:5: AR9D2 case "a" expects unknown skill "gone"' in out  # a SKILL.md affects cases
    (tmp_path / "README.md").write_text("unrelated\n")
    _code, out, _ = run(capsys, "validate", "README.md")
    assert out == "no problems found (3 skills checked)\n"
    _code, out, _ = run(capsys, "validate", ".claude/skills")  # a directory stands for its skills
    assert "SK006" in out and "SK002" in out


def test_output_file_and_json_format(tmp_path, capsys):
    three_skills(tmp_path)
    write_skill(tmp_path, "nodesc", "")
    report = tmp_path / "report.json"
    code, out, err = run(capsys, "validate", "--root", str(tmp_path), "--format", "json", "--output", str(report))
    assert code == 1 and out == "" and "1 error" in err
    doc = json.loads(report.read_text())
    schema = load_schema("diagnostics.v1.json")
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert [d["code"] for d in doc["diagnostics"]] == ["SK006"]


def test_github_format_annotates(tmp_path, capsys):
    write_skill(tmp_path, "leak", "Leaky", body=f"key {KEY}\n")
    code, out, _ = run(capsys, "validate", "--root", str(tmp_path), "--format", "github")
    assert code == 1
    assert out.splitlines()[0] == ("::error file=.claude/skills/leak/SKILL.md,line=5,col=5,title=AR001::looks like an "
                                   "AWS access key id (AKIA**** (20 characters))%0Ahint: remove it from the skill and "
                                   "rotate it; if it is not a secret, add `skillsift: allow-secret` to the line, or "
                                   "accept it with 'skillsift validate --update-secrets-baseline'")


def test_list_shows_every_check(capsys):
    code, out, _ = run(capsys, "validate", "--list")
    from skillsift.validators import CODES

    assert code == 0 and all(code_ in out for code_ in CODES)
    rows = {line.split()[0]: line.split()[3] for line in out.splitlines()[1:]}
    assert rows["SK402"] == "strict" and rows["SK302"] == "recommended"  # which preset holds each check


# -- the hook entry, in process --------------------------------------------------------------------


def test_hook_entry_dispatches_and_reports(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    three_skills(tmp_path)
    write_skill(tmp_path, "leak", "Leaky", body=f"key {KEY}\n")
    code, out, _ = run(capsys, "hook", "secrets", ".claude/skills/leak/SKILL.md",
                       ".claude/skills/git-workflow/SKILL.md")
    assert code == 1 and out.startswith(".claude/skills/leak/SKILL.md:5:5: AR001")
    code, out, _ = run(capsys, "hook", "secrets", ".claude/skills/git-workflow/SKILL.md")
    assert (code, out) == (0, "")  # silent when clean
    code, out, _ = run(capsys, "hook", "frontmatter", ".claude/skills/leak/SKILL.md")
    assert (code, out) == (0, "")
    code, _out, err = run(capsys, "hook", "nope")
    assert code == 2 and "unknown hook 'nope'" in err
    code, _out, _err = run(capsys, "hook", "secrets", "--format", "xml")
    assert code == 2


def test_hook_validate_only_runs_for_relevant_files(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_skill(tmp_path, "nodesc", "")
    code, out, _ = run(capsys, "hook", "validate")
    assert (code, out) == (0, "")  # nothing staged that concerns skills
    code, out, _ = run(capsys, "hook", "validate", ".claude/skills/nodesc/SKILL.md")
    assert code == 1 and "SK006" in out


def test_index_hook_with_the_local_provider_rebuilds_then_passes(tmp_path, capsys, monkeypatch):
    require_embed()
    monkeypatch.chdir(tmp_path)
    three_skills(tmp_path)
    (tmp_path / "skillsift.toml").write_text('[search]\nmode = "hybrid"\n')
    code, _out, _ = run(capsys, "hook", "index")
    assert code == 1  # no index yet: built, to be staged
    manifest = (tmp_path / ".skillsift/index/manifest.json").read_bytes()
    assert b"all-MiniLM-L6-v2" in manifest
    code, out, _ = run(capsys, "hook", "index")
    assert (code, out) == (0, "")
    write_skill(tmp_path, "git-workflow", "Branching, rebasing and pull request conventions")
    code, out, _ = run(capsys, "hook", "index")
    assert code == 1 and "changed: git-workflow" in out and "git add .skillsift/index" in out
    assert run(capsys, "hook", "index")[0] == 0


def test_index_hook_with_a_remote_provider_only_reports(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    three_skills(tmp_path)
    build_index(tmp_path, model="text-embedding-3-small")
    user = tmp_path.parent / "user-config"
    (user / "skillsift").mkdir(parents=True)
    (user / "skillsift/config.toml").write_text(
        '[embeddings]\nprovider = "openai"\nmodel = "text-embedding-3-small"\nbase_url = "https://127.0.0.1:9/v1"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(user))
    assert run(capsys, "hook", "index")[0] == 0
    write_skill(tmp_path, "git-workflow", "Branching, rebasing and pull request conventions")
    before = (tmp_path / ".skillsift/index/manifest.json").read_bytes()
    code, out, err = run(capsys, "hook", "index")
    assert code == 1
    assert ".skillsift/index/manifest.json: AR9D1 search: the committed index no longer matches the skills " \
           "(changed: git-workflow)" in out
    assert "run 'skillsift index' and commit the index directory" in err
    assert (tmp_path / ".skillsift/index/manifest.json").read_bytes() == before


def test_secrets_and_frontmatter_hooks_import_neither_numpy_nor_jsonschema(tmp_path):
    import subprocess
    import sys

    three_skills(tmp_path)
    files = [".claude/skills/deploy-staging/SKILL.md", ".claude/skills/git-workflow/SKILL.md"]
    for hook in ("secrets", "frontmatter"):
        code = (f"import sys\nfrom skillsift.cli import main\nrc = main(['hook', {hook!r}] + {files!r})\n"
                "print(rc, sorted(m for m in ('numpy', 'jsonschema') if m in sys.modules))")
        proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
        assert proc.stdout.strip().splitlines()[-1] == "0 []", hook


def test_hooks_of_a_project_without_sources_import_no_source_reader_nor_re2(tmp_path):
    """Commit-time cost: the [[sources]] readers (git, the lock, copying folders) load only when a
    config names sources, and the secret scanner's RE2 sets only past 64 KiB of text."""
    import subprocess
    import sys

    three_skills(tmp_path)
    files = [".claude/skills/deploy-staging/SKILL.md", ".claude/skills/git-workflow/SKILL.md"]
    unwanted = ("skillsift.skill_sources.sync", "skillsift.skill_sources.git", "skillsift.skill_sources.mount",
                "skillsift.skill_sources.lockfile", "re2")
    for hook in ("secrets", "frontmatter"):
        code = (f"import sys\nfrom skillsift.cli import main\nrc = main(['hook', {hook!r}] + {files!r})\n"
                f"print(rc, sorted(m for m in {unwanted!r} if m in sys.modules))")
        proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
        assert proc.stdout.strip().splitlines()[-1] == "0 []", hook


def test_sibling_hooks_read_the_pre_commit_config_and_skip(tmp_path, monkeypatch):
    from skillsift.hooks import _common
    from skillsift.hooks._common import codes_left_to_siblings, sibling_hooks

    commit = ("pre-commit", "")
    monkeypatch.chdir(tmp_path)
    assert sibling_hooks(str(tmp_path), run=commit) == set()
    (tmp_path / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: x\n    rev: y\n    hooks:\n      - id: skillsift-eval\n      - id: skillsift-validate\n"
        "      - id: black\n", encoding="utf-8")
    assert sibling_hooks(str(tmp_path), env={}, run=commit) == {"skillsift-eval", "skillsift-validate"}
    assert sibling_hooks(str(tmp_path), env={"SKIP": "black,skillsift-eval"}, run=commit) == {"skillsift-validate"}
    monkeypatch.delenv("SKIP", raising=False)
    monkeypatch.setattr(_common, "invocation", lambda: commit)
    assert codes_left_to_siblings(str(tmp_path), "skillsift-validate") == {"AR9D4"}
    # not started by pre-commit (or another runner): no sibling is assumed, every code is checked
    assert sibling_hooks(str(tmp_path), env={}, run=None) == set()
    (tmp_path / ".pre-commit-config.yaml").write_text("repos: [[[\n", encoding="utf-8")
    assert sibling_hooks(str(tmp_path), run=commit) == set()


def test_a_sibling_counts_only_at_the_stage_being_run(tmp_path, monkeypatch):
    from skillsift.hooks._common import invocation, sibling_hooks

    monkeypatch.chdir(tmp_path)
    (tmp_path / ".pre-commit-config.yaml").write_text(
        "default_stages: [pre-commit, pre-push]\nrepos:\n  - repo: x\n    rev: y\n    hooks:\n"
        "      - id: skillsift-validate\n      - id: skillsift-eval\n        stages: [manual]\n"
        "      - id: skillsift-cases\n      - id: skillsift-index\n        stages: [push]\n", encoding="utf-8")
    assert sibling_hooks(".", env={}, run=("pre-commit", "")) == {"skillsift-validate", "skillsift-cases"}
    assert sibling_hooks(".", env={}, run=("pre-push", "")) == {"skillsift-validate", "skillsift-cases",
                                                                 "skillsift-index"}
    assert sibling_hooks(".", env={}, run=("manual", "")) == {"skillsift-eval"}
    assert sibling_hooks(".", env={}, run=("pre-commit", "skillsift-validate")) == {"skillsift-validate"}
    py = "/usr/bin/python3"
    assert invocation([py, "-mpre_commit", "hook-impl", "--config=.pre-commit-config.yaml", "--hook-type=pre-push",
                       "--hook-dir", "/r/.git/hooks", "--", "origin", "url"]) == ("pre-push", "")
    assert invocation([py, "/venv/bin/pre-commit", "run", "skillsift-validate", "--files", "a", "b"]) == (
        "pre-commit", "skillsift-validate")
    assert invocation([py, "-m", "pre_commit", "run", "--hook-stage", "manual", "-a"]) == ("manual", "")
    assert invocation([py, "-m", "pre_commit", "run", "--hook-stage=push"]) == ("pre-push", "")
    assert invocation(["bash", "-c", "skillsift hook validate"]) is None


def test_hooks_skip_click_and_answer_as_the_click_command_does(tmp_path, capsys):
    """``skillsift hook NAME`` goes straight to the hook: same output and exit code as the click command."""
    import subprocess
    import sys

    from skillsift.commands.group import main as click_main

    three_skills(tmp_path)
    write_skill(tmp_path, "leak", "Leaky", body=f"{KEY}\n")
    files = [".claude/skills/leak/SKILL.md", ".claude/skills/git-workflow/SKILL.md"]
    cases = [["secrets", "--root", str(tmp_path), *[str(tmp_path / f) for f in files]],
             ["frontmatter", "--root", str(tmp_path), "--format", "json", str(tmp_path / files[1])],
             ["secrets", "--root", str(tmp_path / "missing")],
             ["frontmatter", "--format", "xml"], ["validate", "--help"]]
    for args in cases:
        fast = run(capsys, "hook", *args)
        slow = (click_main(["hook", *args]), *capsys.readouterr())
        assert fast == slow, args
    assert run(capsys, "hook", "secrets", "--root", str(tmp_path))[0] == 1
    assert run(capsys, "hook", "secrets", "--root", str(tmp_path / "missing"))[0] == 2
    code = (f"import sys\nfrom skillsift.cli import main\nrc = main(['hook', 'frontmatter', {files[1]!r}])\n"
            "print(rc, 'click' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines()[-1] == "0 False"


def test_the_secrets_baseline_is_never_written_outside_the_repository(tmp_path, capsys):
    from skillsift.cli import main

    repo = tmp_path / "repo"
    write_skill(repo, "ok", "A fine skill")
    (repo / "skillsift.toml").write_text('[validate]\nsecrets_baseline = "../escaped.json"\n', encoding="utf-8")
    code = main(["validate", "--root", str(repo), "--update-secrets-baseline"])
    err = capsys.readouterr().err
    assert code != 0 and "outside the repository" in err
    assert not (tmp_path / "escaped.json").exists()


def test_quiet_prints_only_what_fails_and_the_summary(tmp_path, capsys):
    from tests.conftest import write_skill
    from tests.support.cli import run as run_cli

    write_skill(tmp_path, "good-skill", "Does one thing well.")
    write_skill(tmp_path, "no-description")  # SK006, an error
    write_skill(tmp_path, "long-one", "word " * 400)  # SK007, a warning
    code, full, _ = run_cli(capsys, "validate", "--root", tmp_path)
    assert code == 1 and "SK006" in full and "SK007" in full
    code, out, _ = run_cli(capsys, "validate", "--root", tmp_path, "--quiet")
    assert code == 1
    assert "SK006" in out and "SK007" not in out
    assert out.splitlines()[-1] == full.splitlines()[-1]  # the summary still counts everything
    code, out, _ = run_cli(capsys, "validate", "--root", tmp_path, "--quiet", "--strict")
    assert "SK007" in out
