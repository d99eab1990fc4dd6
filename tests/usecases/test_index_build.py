"""The build use case (skillsift.usecases.index_build) through its public functions, without a CLI."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from skillsift.catalog.load import load_catalog
from skillsift.config import load_config
from skillsift.index.configured import IndexDirRefused
from skillsift.index.store import load_index
from skillsift.usecases import index_build as service
from tests.support.cli import set_user_config
from tests.support.concept_embedder import user_config


@pytest.fixture
def project(tmp_path, skill_writer):
    root = tmp_path / "proj"
    skill_writer(root, "issue-refund", "Reimburse a customer for a returned purchase")
    skill_writer(root, "deploy-staging", "Roll a service out to the staging cluster")
    skill_writer(root, "git-workflow", "Branching and pull request conventions")
    set_user_config(user_config(extra="[search]\nbatch_size = 1\n"))
    return root


def load(root):
    config = load_config(str(root))
    return config, load_catalog(str(root), config)


def test_build_reports_progress_and_writes_once(project):
    config, catalog = load(project)
    seen = []

    @contextmanager
    def progress(batches, total):
        seen.append(("start", batches, total))
        yield lambda n: seen.append(("done", n))

    outcome = service.build(service.prepare(config, catalog), progress=progress)
    assert outcome.written and outcome.exit_code == 0
    assert seen == [("start", 3, 3), ("done", 1), ("done", 1), ("done", 1)]
    assert load_index(outcome.index_dir).ok
    again = service.build(service.prepare(config, catalog))
    assert not again.written and again.exit_code == 0 and again.result.calls == 0


def test_drift_only_ignores_file_digests_of_unchanged_text(project, skill_writer):
    config, catalog = load(project)
    first = service.build(service.prepare(config, catalog))
    old = load_index(first.index_dir).index
    skill_writer(project, "git-workflow", "Branching and pull request conventions", body="Another body.\n")
    config, catalog = load(project)
    prepared = service.prepare(config, catalog)
    assert [item.action for item in prepared.plan.items] == ["reuse"] * 3
    outcome = service.build(prepared)
    assert not outcome.written
    assert service.drift_only(old, outcome.result.index)
    assert not service.drift_only(None, outcome.result.index)


def test_an_index_dir_outside_the_root_is_refused_before_the_lock(project, tmp_path):
    import dataclasses

    from skillsift.diagnostics import SkillsiftError

    config, catalog = load(project)
    (project / "elsewhere").symlink_to(tmp_path)
    (project / "skillsift.toml").write_text('[search]\nindex_dir = "elsewhere/index"\n', encoding="utf-8")
    with pytest.raises(SkillsiftError, match="leads outside the repository"):
        load(project)  # the config loader refuses it first (every command)
    # a Config made without the loader: the index service still refuses it before taking the lock
    config = dataclasses.replace(config, search=dataclasses.replace(config.search, index_dir="elsewhere/index"))
    with pytest.raises(IndexDirRefused, match="outside the repository"):
        service.prepare(config, catalog)
    assert not (tmp_path / "index").exists()
