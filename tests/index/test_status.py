"""`skillsift status` (reference §5.10): the pure report, its text, and the command on disk."""

from __future__ import annotations

import json
import sys
from dataclasses import replace

import pytest

from skillsift.catalog.skill import Skill
from skillsift.index.build import build_index, plan_build
from skillsift.index.status import status_report
from skillsift.index.store import LoadResult, load_index, write_index
from skillsift.render.status import render_status
from tests.conftest import write_refund_catalog
from tests.support.cli import run, set_user_config
from tests.support.concept_embedder import ConceptEmbedder, refund_catalog, user_config

KEYS_LOADED = ["schema_version", "mode", "index_dir", "committed", "state", "provider", "model", "index_provider",
               "index_model", "dims", "dtype", "rows", "bytes", "skills", "current", "drifted", "stale", "missing",
               "orphaned"]


def built(skills=None, embedder=None):
    embedder = embedder or ConceptEmbedder()
    plan = plan_build(refund_catalog() if skills is None else skills, None, provider=embedder)
    return build_index(plan, embedder).index


def report(loaded, skills, **options):
    base = dict(provider="test@local", model="concepts-v1", mode="hybrid", index_dir=".skillsift/index",
                committed=True)
    base.update(options)
    return status_report(loaded, skills, **base)


# --------------------------------------------------------------------------- the pure report


def test_none():
    doc = report(LoadResult(None), refund_catalog())
    assert doc["state"] == "none"
    assert list(doc) == ["schema_version", "mode", "index_dir", "committed", "state", "provider", "model", "rows",
                         "bytes", "skills", "current", "drifted", "stale", "missing", "orphaned", "hint"]
    assert doc["hint"] == "run 'skillsift index'"
    assert doc["missing"] == ["deploy-staging", "dispute-charge", "git-workflow", "issue-refund"]
    assert (doc["rows"], doc["bytes"], doc["current"], doc["skills"]) == (0, 0, 0, 4)


def test_unreadable_carries_the_load_reason():
    loaded = LoadResult(None, ".skillsift/index/vectors.bin: does not match the manifest's vectors_digest",
                        found=True)
    doc = report(loaded, refund_catalog())
    assert doc["state"] == "unreadable"
    assert doc["reason"].endswith("does not match the manifest's vectors_digest")
    assert doc["hint"] == "rebuild with 'skillsift index --rebuild'"
    assert list(doc)[:6] == ["schema_version", "mode", "index_dir", "committed", "state", "reason"]


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"model": "concepts-v2"}, 'the model changed (index "concepts-v1", config "concepts-v2")'),
        ({"provider": "openai@default"}, 'the provider changed (index "test@local", config "openai@default")'),
        ({"fields": ("name",)}, "the embedded fields changed"),
        ({"index_body": True}, "index_body or body_chars changed"),
    ],
)
def test_incompatible(options, reason):
    doc = report(LoadResult(built(), found=True), refund_catalog(), **options)
    assert doc["state"] == "incompatible" and doc["reason"] == reason
    assert doc["hint"] == "rebuild with 'skillsift index --rebuild'"
    assert doc["rows"] == 4 and doc["index_model"] == "concepts-v1" and doc["current"] == 0
    assert len(doc["missing"]) == 4


def test_stale_pinned_classification():
    index = built()
    skills = refund_catalog()
    skills = [
        replace(skills[0], description="Reimburse a customer, including partial credit"),
        replace(skills[1], digest="sha256:edited-body"),
        skills[2],
        Skill("new-skill", "Something new", digest="sha256:new"),
    ]
    doc = report(LoadResult(index, found=True), skills)
    assert doc["state"] == "stale"
    assert doc["stale"] == ["issue-refund"] and doc["missing"] == ["new-skill"]
    assert doc["orphaned"] == ["git-workflow"]
    assert doc["current"] == 2 and doc["drifted"] == 1
    assert doc["hint"] == "run 'skillsift index' to embed the changed and missing skills"
    assert list(doc) == KEYS_LOADED + ["hint"]


def test_fresh():
    doc = report(LoadResult(built(), found=True), refund_catalog())
    assert doc["state"] == "fresh" and "hint" not in doc and "reason" not in doc
    assert list(doc) == KEYS_LOADED
    assert (doc["rows"], doc["dims"], doc["dtype"], doc["bytes"]) == (4, 5, "float32", 80)
    assert (doc["current"], doc["drifted"], doc["stale"], doc["missing"], doc["orphaned"]) == (4, 0, [], [], [])


def test_text_lines():
    index = built()
    skills = refund_catalog()
    skills = [replace(skills[0], description="Pay the customer back"), replace(skills[1], digest="sha256:x"),
              skills[2], Skill("new-skill", "Something new")]
    text = render_status(report(LoadResult(index, found=True), skills))
    lines = text.splitlines()
    assert lines[0] == "index      .skillsift/index  (committed location)"
    assert lines[1] == "state      stale"
    assert lines[2] == "mode       hybrid"
    assert lines[3] == "provider   test@local   model concepts-v1   (config)"
    assert lines[4] == "built with test@local   model concepts-v1   5 dims   float32   4 rows   0.1 KiB"
    assert lines[5] == ("skills     4 served   2 current   1 changed   1 not indexed   1 no longer served")
    assert lines[6].startswith("drift      1 current skills changed outside their embedded text")
    assert "changed: issue-refund" in lines and "not indexed: new-skill" in lines
    assert "no longer served: git-workflow" in lines
    assert lines[-1] == "next       run 'skillsift index' to embed the changed and missing skills"


def test_text_of_a_missing_index_has_no_built_line_and_a_machine_local_dir():
    text = render_status(report(LoadResult(None), refund_catalog(), index_dir=".skillsift/local/index",
                                committed=False))
    assert text.splitlines()[0] == "index      .skillsift/local/index"
    assert "built with" not in text and "reason" not in text


# --------------------------------------------------------------------------- the command


@pytest.fixture
def project(tmp_path):
    """The refund catalog on disk with the concept embedder as the user's command provider."""
    root = tmp_path / "proj"
    write_refund_catalog(root)
    set_user_config(user_config())
    return root


def status(capsys, root, *extra):
    return run(capsys, "status", "--root", root, *extra)


def index(capsys, root, *extra):
    return run(capsys, "index", "--root", root, *extra)[0]


def test_command_reports_every_state(project, capsys, skill_writer):
    code, out, _ = status(capsys, project, "--format", "json")
    assert code == 0 and json.loads(out)["state"] == "none"
    code, out, _ = status(capsys, project)
    assert code == 0 and "state      none" in out and "next       run 'skillsift index'" in out

    assert index(capsys, project) == 0
    code, out, _ = status(capsys, project, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["state"] == "fresh" and doc["rows"] == 4
    assert doc["provider"] == f"command:{sys.executable}" == doc["index_provider"]
    assert doc["index_dir"] == ".skillsift/index" and doc["committed"] is True

    skill_writer(project, "issue-refund", "Pay a customer back for a returned purchase")
    (project / ".claude/skills/git-workflow/SKILL.md").unlink()
    skill_writer(project, "new-skill", "Something new")
    code, out, _ = status(capsys, project, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["state"] == "stale"
    assert (doc["stale"], doc["missing"], doc["orphaned"]) == (["issue-refund"], ["new-skill"], ["git-workflow"])
    code, out, _ = status(capsys, project)
    assert "changed: issue-refund" in out and "not indexed: new-skill" in out

    (project / "skillsift.toml").write_text('[search]\nfields = ["name", "description"]\n')
    code, out, _ = status(capsys, project, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["state"] == "incompatible" and doc["reason"] == "the embedded fields changed"
    (project / "skillsift.toml").unlink()

    vectors = project / ".skillsift/index/vectors.bin"
    vectors.write_bytes(vectors.read_bytes()[:-4])
    code, out, _ = status(capsys, project, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["state"] == "unreadable" and "vectors.bin" in doc["reason"]
    code, out, _ = status(capsys, project)
    assert "state      unreadable" in out and "next       rebuild with 'skillsift index --rebuild'" in out


def test_status_reads_files_only(project, capsys, tmp_path):
    log = tmp_path / "calls.jsonl"
    set_user_config(user_config("--log", str(log)))
    assert index(capsys, project) == 0
    calls = log.read_text()
    code, _, _ = status(capsys, project)
    assert code == 0 and log.read_text() == calls  # no embedding call
    assert not (project / ".skillsift/index/index.lock").exists()


def test_status_of_a_written_index_matches_loading_it(project, capsys):
    skills = refund_catalog()
    embedder = ConceptEmbedder(fingerprint=f"command:{sys.executable}", model="")
    write_index(project / ".skillsift/index", build_index(plan_build(skills, None, provider=embedder), embedder).index)
    assert load_index(project / ".skillsift/index").ok
    code, out, _ = status(capsys, project, "--format", "json")
    doc = json.loads(out)
    # skills on disk have other file digests than the in-memory ones: same text, so drifted, still current
    assert doc["state"] == "fresh" and doc["current"] == 4 and doc["drifted"] == 4
