"""Every file skillsift rewrites keeps its mode; a read-only one is refused unless ``--force``.

Through the real CLI: ``mine --into`` and ``--output``, ``validate --fix`` and ``--output``,
``eval --output``, ``tune --write`` (refused before it ranks anything) and ``index``
(docs/development.md, "Rewriting files").
"""

from __future__ import annotations

import json
import stat

import pytest

from skillsift.index.atomic import ReadOnlyTarget, write_atomic
from tests.conftest import write_skill
from tests.evaluate.test_mine import KNOWN, ld, q, write_log
from tests.support.cli import run, set_user_config
from tests.support.concept_embedder import user_config
from tests.support.validators_support import raw_skill


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _mine_project(tmp_path):
    for name in KNOWN:
        write_skill(tmp_path, name, f"The {name} skill")
    write_log(tmp_path, [q("s1", "money back"), ld("s1", "issue-refund")])
    into = tmp_path / "search-examples.yaml"
    into.write_text('version: 1\ncases:\n  - id: old\n    query: "open a dispute"\n    expect: [dispute-charge]\n',
                    encoding="utf-8")
    return into


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_mine_into_refuses_a_read_only_file_and_keeps_the_mode_when_forced(tmp_path, capsys, fmt):
    into = _mine_project(tmp_path)
    before = into.read_bytes()
    into.chmod(0o444)
    code, _out, err = run(capsys, "mine", "--root", tmp_path, "--into", into)
    assert code == 1 and "is read-only (mode 0444); it was not rewritten" in err and "--force" in err
    assert into.read_bytes() == before and _mode(into) == 0o444
    code, _out, err = run(capsys, "mine", "--root", tmp_path, "--into", into, "--force")
    assert code == 0, err
    assert into.read_bytes().startswith(before) and b"money back" in into.read_bytes()
    assert _mode(into) == 0o444  # forced: rewritten, and still read-only


def test_mine_into_keeps_a_group_writable_mode(tmp_path, capsys):
    into = _mine_project(tmp_path)
    into.chmod(0o664)
    code, _out, err = run(capsys, "mine", "--root", tmp_path, "--into", into)
    assert code == 0 and b"money back" in into.read_bytes(), err
    assert _mode(into) == 0o664


def test_mine_output_a_new_file_is_0644_and_an_existing_one_keeps_its_mode(tmp_path, capsys):
    _mine_project(tmp_path)
    out = tmp_path / "mined.yaml"
    code, _out, err = run(capsys, "mine", "--root", tmp_path, "--output", out)
    assert code == 0 and _mode(out) == 0o644, err
    out.write_text("old\n", encoding="utf-8")
    out.chmod(0o600)
    code, _out, err = run(capsys, "mine", "--root", tmp_path, "--output", out)
    assert code == 0 and _mode(out) == 0o600 and "money back" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_validate_fix_keeps_the_mode_and_refuses_a_read_only_skill(tmp_path, capsys, fmt):
    text = "---\nname: demo\ndescription: Deploy it: always, carefully\n---\n# Demo\n"
    path = raw_skill(tmp_path, "demo", text, "skills")
    path.chmod(0o444)
    code, out, err = run(capsys, "validate", "--root", tmp_path, "--fix", "--format", fmt)
    assert code != 0 and "read-only (mode 0444)" in out + err
    assert path.read_text(encoding="utf-8") == text
    path.chmod(0o640)
    code, out, err = run(capsys, "validate", "--root", tmp_path, "--fix", "--format", fmt)
    assert code == 0, out + err
    assert 'description: "Deploy it: always, carefully"' in path.read_text(encoding="utf-8")
    assert _mode(path) == 0o640
    if fmt == "json":
        assert json.loads(out)["summary"]["errors"] == 0


def test_validate_fix_force_rewrites_a_read_only_skill_keeping_its_mode(tmp_path, capsys):
    text = "---\nname: demo\ndescription: Deploy it: always, carefully\n---\n# Demo\n"
    path = raw_skill(tmp_path, "demo", text, "skills")
    path.chmod(0o444)
    code, out, err = run(capsys, "validate", "--root", tmp_path, "--fix", "--force")
    assert code == 0, out + err
    assert 'description: "Deploy it: always, carefully"' in path.read_text(encoding="utf-8")
    assert _mode(path) == 0o444


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_report_outputs_keep_the_mode_and_refuse_a_read_only_file(tmp_path, capsys, fmt):
    write_skill(tmp_path, "issue-refund", "Reimburse a customer for a returned purchase")
    (tmp_path / "cases.yaml").write_text("version: 1\ncases:\n  - id: a\n    query: reimburse a purchase\n"
                                         "    expect: [issue-refund]\n", encoding="utf-8")
    report = tmp_path / "report.out"
    report.write_text("old\n", encoding="utf-8")
    report.chmod(0o600)
    code, _out, err = run(capsys, "validate", "--root", tmp_path, "--format", fmt, "--output", report)
    assert code == 0 and _mode(report) == 0o600 and report.read_text(encoding="utf-8") != "old\n", err
    code, _out, err = run(capsys, "eval", tmp_path / "cases.yaml", "--root", tmp_path, "--format", fmt,
                          "--output", report)
    assert code == 0 and _mode(report) == 0o600 and json.loads(report.read_text(encoding="utf-8")), err
    report.write_text("stale\n", encoding="utf-8")  # unchanged bytes would need no rewrite at all
    report.chmod(0o400)
    written = report.read_bytes()
    code, _out, err = run(capsys, "eval", tmp_path / "cases.yaml", "--root", tmp_path, "--format", fmt,
                          "--output", report)
    assert code == 1 and "read-only (mode 0400)" in err and report.read_bytes() == written
    code, _out, err = run(capsys, "validate", "--root", tmp_path, "--format", fmt, "--output", report)
    assert code == 2 and "read-only (mode 0400)" in err
    code, _out, err = run(capsys, "eval", tmp_path / "cases.yaml", "--root", tmp_path, "--format", fmt,
                          "--output", report, "--force")
    assert code == 0 and _mode(report) == 0o400, err


def test_tune_write_refuses_a_read_only_config_before_it_ranks(tmp_path, capsys):
    write_skill(tmp_path, "issue-refund", "Reimburse a customer for a returned purchase")
    (tmp_path / "cases.yaml").write_text("version: 1\ncases:\n  - id: a\n    query: reimburse a purchase\n"
                                         "    expect: [issue-refund]\n", encoding="utf-8")
    config = tmp_path / "skillsift.toml"
    config.write_text('[search]\nmode = "hybrid"\n', encoding="utf-8")
    config.chmod(0o444)
    code, _out, err = run(capsys, "tune", tmp_path / "cases.yaml", "--root", tmp_path, "--write")
    assert code == 1 and "skillsift.toml is read-only (mode 0444)" in err and "--force" in err
    assert config.read_text(encoding="utf-8") == '[search]\nmode = "hybrid"\n'


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_index_files_keep_their_mode_and_read_only_ones_need_force(tmp_path, capsys, fmt):
    write_skill(tmp_path, "issue-refund", "Reimburse a customer for a returned purchase")
    write_skill(tmp_path, "dispute-charge", "Handle a chargeback dispute from a bank")
    (tmp_path / "skillsift.toml").write_text('[search]\nmode = "vector"\n', encoding="utf-8")
    set_user_config(user_config())
    code, _out, err = run(capsys, "index", "--root", tmp_path, "--format", fmt)
    assert code == 0, err
    index = tmp_path / ".skillsift" / "index"
    vectors, manifest = index / "vectors.bin", index / "manifest.json"
    vectors.chmod(0o640)
    manifest.chmod(0o444)
    write_skill(tmp_path, "git-workflow", "Branching and pull request conventions")  # the index must change
    before = manifest.read_bytes()
    code, _out, err = run(capsys, "index", "--root", tmp_path, "--format", fmt)
    assert code == 1 and "manifest.json is read-only (mode 0444)" in err and manifest.read_bytes() == before
    code, out, err = run(capsys, "index", "--root", tmp_path, "--format", fmt, "--force")
    assert code == 0, err
    assert manifest.read_bytes() != before and _mode(manifest) == 0o444 and _mode(vectors) == 0o640


def test_one_write_refuses_before_writing_anything(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.write_bytes(b"a")
    second.write_bytes(b"b")
    second.chmod(0o444)
    from skillsift.index.atomic import write_files_atomic

    with pytest.raises(ReadOnlyTarget):
        write_files_atomic([(first, b"A"), (second, b"B")])
    assert first.read_bytes() == b"a" and sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]
    assert write_atomic(second, b"b") is False  # unchanged bytes: nothing to refuse, nothing written
    assert write_files_atomic([(first, b"A"), (second, b"B")], force=True) == [True, True]
    assert _mode(second) == 0o444 and _mode(first) == 0o644
