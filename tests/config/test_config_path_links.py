"""Every file a config key names is refused before parsing when links take it outside the
repository or into ``.git/`` (one check in the config loading, ``config.sources.link_problems``)."""

from __future__ import annotations

import os

import pytest

from tests.conftest import write_skill
from tests.support.cli import run

CASES = "version: 1\ncases:\n  - id: deploy\n    query: deploy to production\n    expect: [deploy-prod]\n"
SECRET = "secret_key_name_from_outside: 1\n"


@pytest.fixture(autouse=True)
def _not_on_github(monkeypatch):
    for var in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_BASE_REF", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    write_skill(root, "deploy-prod", "Deploy the service to production")
    (root / "search-cases.yaml").write_text(CASES, encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text(SECRET, encoding="utf-8")
    monkeypatch.chdir(root)
    return root


def _config(root, table, key, value):
    (root / "skillsift.toml").write_text(f"[{table}]\n{key} = {value}\n", encoding="utf-8")


KEYS = [("validate", "cases", '["c.yaml"]', "c.yaml"), ("validate", "cases", '"c.yaml"', "c.yaml"),
        ("validate", "baseline", '"c.yaml"', "c.yaml"), ("validate", "secrets_baseline", '"c.yaml"', "c.yaml"),
        ("search", "examples", '["c.yaml"]', "c.yaml"), ("search", "examples", '["ex/*.yaml"]', "ex/c.yaml")]


def _outside(tmp_path):
    target = tmp_path / "elsewhere.yaml"
    target.write_text(SECRET, encoding="utf-8")
    return target


@pytest.mark.parametrize(("table", "key", "value", "link"), KEYS)
@pytest.mark.parametrize("command", [["validate"], ["ci", "--baseline", "none"], ["search", "deploy"]])
def test_a_config_path_linked_out_is_refused_by_every_command(project, tmp_path, capsys, table, key, value, link,
                                                             command):
    _config(project, table, key, value)
    (project / link).parent.mkdir(exist_ok=True)
    (project / link).symlink_to(_outside(tmp_path))
    code, out, err = run(capsys, *command)
    assert code == (2 if command == ["validate"] else 1), (out, err)  # validate: a finding (exit 2)
    text = out + err
    assert f'{table}.{key} names "{link}", a symbolic link outside the repository' in text
    assert "elsewhere.yaml" in text and f"replace the link {link} with the file itself" in text
    assert "secret_key_name_from_outside" not in text


@pytest.mark.parametrize("how", ["direct", "chain", "parent-folder", "dangling", "directory"])
def test_links_are_judged_by_where_they_end(project, tmp_path, capsys, how):
    outside = _outside(tmp_path)
    if how == "direct":
        (project / "c.yaml").symlink_to(project / ".git" / "config")
        where = "into .git/"
    elif how == "chain":  # inside -> inside -> outside
        (project / "b.yaml").symlink_to(outside)
        (project / "c.yaml").symlink_to("b.yaml")
        where = "outside the repository"
    elif how == "parent-folder":
        (tmp_path / "dir").mkdir()
        (tmp_path / "dir" / "c.yaml").write_text(SECRET, encoding="utf-8")
        (project / "sub").symlink_to(tmp_path / "dir")
        _config(project, "validate", "cases", '["sub/c.yaml"]')
        code, out, err = run(capsys, "validate")
        assert code == 2 and 'validate.cases names "sub/c.yaml", a symbolic link outside' in out + err
        return
    elif how == "dangling":
        (project / "c.yaml").symlink_to(tmp_path / "nothing-here.yaml")
        where = "outside the repository"
    else:
        (project / "c.yaml").symlink_to(tmp_path)
        where = "outside the repository"
    _config(project, "validate", "cases", '["c.yaml"]')
    code, out, err = run(capsys, "validate")
    assert code == 2
    assert f'validate.cases names "c.yaml", a symbolic link {where}' in out + err
    assert "secret_key_name_from_outside" not in out + err


def test_near_miss_links_inside_the_repository_keep_working(project, capsys):
    os.makedirs(project / "cases")
    (project / "cases" / "real.yaml").write_text(CASES, encoding="utf-8")
    (project / "c.yaml").symlink_to(os.path.join("cases", "real.yaml"))
    (project / "gitlike").mkdir()  # a folder merely named like git's is no .git/
    (project / "gitlike" / "x.yaml").write_text(CASES, encoding="utf-8")
    _config(project, "validate", "cases", '["c.yaml", "gitlike/x.yaml"]')
    code, out, err = run(capsys, "validate")
    assert "symbolic link" not in out + err
    assert code == 0, (out, err)
