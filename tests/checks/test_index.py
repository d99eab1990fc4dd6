"""AR9D1: the committed index (reference §8 messages, with skillsift's command names)."""

from __future__ import annotations

from skillsift.checks.index import check_workspace
from tests.conftest import write_skill
from tests.support.validators_support import build_index, check, three_skills, workspace

HYBRID = '[search]\nmode = "hybrid"\n'


def messages(root, **kw):
    return [d.message for d in check(root, select=["AR9D1"], **kw)]


def test_lexical_repository_without_an_index_has_nothing_to_report(tmp_path):
    three_skills(tmp_path)
    assert messages(tmp_path) == []


def test_missing_committed_index_when_the_mode_needs_one(tmp_path):
    three_skills(tmp_path)
    (tmp_path / "skillsift.toml").write_text(HYBRID)
    [diag] = check(tmp_path, select=["AR9D1"])
    assert (diag.code, diag.severity, diag.file) == ("AR9D1", "warning", ".skillsift/index/manifest.json")
    assert diag.message == ('search: index_dir ".skillsift/index" is a committed location but holds no index; '
                            "run 'skillsift index' and commit it")


def test_machine_local_index_dir_is_not_checked(tmp_path):
    three_skills(tmp_path)
    (tmp_path / "skillsift.toml").write_text(HYBRID + 'index_dir = ".skillsift/local/search"\n')
    assert messages(tmp_path) == []


def test_fresh_index_passes(tmp_path):
    three_skills(tmp_path)
    build_index(tmp_path)
    assert messages(tmp_path) == []


def test_unusable_index_names_the_load_error(tmp_path):
    three_skills(tmp_path)
    index = build_index(tmp_path)
    vectors = index / "vectors.bin"
    vectors.write_bytes(vectors.read_bytes()[:-4])
    [message] = messages(tmp_path)
    assert message.startswith('search: the committed index in ".skillsift/index" is damaged and cannot be used '
                              "(.skillsift/index/vectors.bin: is ")
    assert message.endswith("); rebuild it with 'skillsift index'")


def test_out_of_date_with_the_repository_model_and_fields(tmp_path):
    three_skills(tmp_path)
    build_index(tmp_path, model="old-model")
    (tmp_path / "skillsift.toml").write_text('[embeddings]\nmodel = "new-model"\n')
    # another model: nothing vouches for its rows, an error (a changed field list is only out of date)
    [diag] = check(tmp_path, select=["AR9D1"])
    assert (diag.severity, diag.message) == (
        "error", 'search: the committed index was not built by the configured provider and model: the model changed '
                 "(index \"old-model\", config \"new-model\"); rebuild it with 'skillsift index'")
    (tmp_path / "skillsift.toml").write_text('[search]\nfields = ["name"]\n')
    assert messages(tmp_path) == ["search: the committed index is out of date: the embedded fields changed; "
                                  "rebuild it with 'skillsift index'"]


def test_changed_skills_are_named_sorted_five_at_most(tmp_path):
    names = [f"skill-{c}" for c in "gfedcba"]
    for name in names:
        write_skill(tmp_path, name, f"Does {name} things")
    build_index(tmp_path)
    assert messages(tmp_path) == []
    for name in names:
        write_skill(tmp_path, name, f"Does {name} things, differently")
    assert messages(tmp_path) == ["search: the committed index no longer matches the skills (changed: skill-a, "
                                  "skill-b, skill-c, skill-d, skill-e and 2 more); rebuild it with 'skillsift index'"]


def test_a_skill_without_a_row_is_reported_and_removed_rows_only_with_coverage(tmp_path):
    three_skills(tmp_path)
    build_index(tmp_path, skip=("git-workflow",), extra=("old-skill",))
    # a committed index that lacks a served skill never passes silently; a leftover row is harmless
    assert messages(tmp_path) == ["search: the committed index does not cover the skills (not indexed: "
                                  "git-workflow); rebuild it with 'skillsift index'"]
    [diag] = check_workspace(workspace(tmp_path), coverage=True)
    assert diag.message == ("search: the committed index does not cover the skills (not indexed: git-workflow; "
                            "no longer present: old-skill); rebuild it with 'skillsift index'")


def test_a_skill_withheld_for_a_secret_is_not_counted_as_missing(tmp_path):
    three_skills(tmp_path)
    write_skill(tmp_path, "cloud-keys", "Rotate the key AKIAQWERTYUIOPASDFGH for the bucket")
    build_index(tmp_path, skip=("cloud-keys",))
    (tmp_path / "skillsift.toml").write_text('[embeddings]\nprovider = "command"\n')
    assert messages(tmp_path) == []
    (tmp_path / "skillsift.toml").write_text("")  # local: nothing is withheld, so the row is missing
    assert messages(tmp_path) == ["search: the committed index does not cover the skills (not indexed: "
                                  "cloud-keys); rebuild it with 'skillsift index'"]


def test_an_index_dir_that_is_a_symlink_is_reported(tmp_path):
    three_skills(tmp_path)
    outside = tmp_path.parent / (tmp_path.name + "-outside")
    outside.mkdir()
    (tmp_path / ".skillsift").mkdir()
    (tmp_path / ".skillsift" / "index").symlink_to(outside)
    [diag] = check(tmp_path, select=["AR9D1"])
    # refused when the config is loaded (docs/bounded-input.md, "Files a repository holds"): AR9D0, reported
    # whatever is selected, before the index check runs
    assert (diag.code, diag.file) == ("AR9D0", ".skillsift/index")
    assert diag.message.startswith('search.index_dir ".skillsift/index" leads outside the repository')
    assert "replace the link .skillsift/index with a folder of the repository" in diag.hint
