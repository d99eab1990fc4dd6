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


# -- the folders skillsift writes in (config.folder_link_problems) ------------------------------------------------

FOLDER_LINKS = [(".skillsift", ".skillsift/index"), (".skillsift/index", ".skillsift/index"),
                (".skillsift/local", ".skillsift/local")]


@pytest.mark.parametrize(("link", "folder"), FOLDER_LINKS)
@pytest.mark.parametrize("command", [["index"], ["search", "deploy"], ["status"], ["validate"]])
def test_a_written_folder_linked_out_is_refused_and_nothing_is_written_there(project, tmp_path, capsys, link,
                                                                            folder, command):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / link).parent.mkdir(parents=True, exist_ok=True)
    (project / link).symlink_to(elsewhere, target_is_directory=True)
    code, out, err = run(capsys, *command)
    assert code == (2 if command == ["validate"] else 1), (out, err)
    text = out + err
    assert f'"{folder}" leads outside the repository (to {elsewhere}' in text
    assert f"through the symbolic link {link}" in text and f"replace the link {link}" in text
    assert list(elsewhere.iterdir()) == []  # no index, lock, query log or cache file landed outside


def test_a_folder_linked_into_git_is_refused(project, capsys):
    (project / ".skillsift").symlink_to(project / ".git", target_is_directory=True)
    code, out, err = run(capsys, "index")
    assert code == 1
    assert '"\x2eskillsift/index" leads into .git/' in out + err
    assert sorted(p.name for p in (project / ".git").iterdir()) == ["config"]


def test_index_dir_inside_git_is_a_config_error_on_its_line(project, capsys):
    (project / "skillsift.toml").write_text('[search]\nmode = "lexical"\nindex_dir = ".git/idx"\n', encoding="utf-8")
    code, out, err = run(capsys, "index")
    assert code == 1
    assert "skillsift.toml:3: AR9D0 search.index_dir must not be inside .git/" in out + err
    assert not (project / ".git" / "idx").exists()


def test_a_link_that_stays_inside_the_repository_is_fine(project, capsys):
    (project / "store").mkdir()
    (project / ".skillsift").symlink_to(project / "store", target_is_directory=True)
    code, out, err = run(capsys, "search", "deploy")
    assert code == 0, err
    assert "deploy-prod" in out


def test_a_file_to_be_written_under_a_linked_out_folder_is_refused(project, tmp_path, capsys):
    """The baseline does not exist yet: where its linked parent folder ends decides (it used to pass)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / "base").symlink_to(elsewhere, target_is_directory=True)
    _config(project, "validate", "baseline", '"base/baseline.json"')
    code, out, err = run(capsys, "search", "deploy")
    assert code == 1
    assert 'validate.baseline names "base/baseline.json", a symbolic link outside the repository' in out + err


@pytest.mark.parametrize("flag", ["--into", "--output"])
def test_mine_writes_nothing_through_a_link_out_of_the_repository(project, tmp_path, capsys, flag):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / "examples").symlink_to(elsewhere, target_is_directory=True)
    code, out, err = run(capsys, "mine", flag, "examples/search-examples.yaml")
    assert code == 1
    assert f"{flag} examples/search-examples.yaml: links take it outside the repository" in err
    assert "nothing was written" in err and list(elsewhere.iterdir()) == []
    (project / "examples").unlink()
    (project / "examples").mkdir()
    code, out, err = run(capsys, "mine", flag, "examples/search-examples.yaml")
    assert code == 0, err  # a plain folder of the repository: accepted (--output writes even an empty result)
    assert (project / "examples" / "search-examples.yaml").is_file() == (flag == "--output")
