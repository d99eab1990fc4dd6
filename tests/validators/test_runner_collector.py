"""On the command line (``skillsift.catalog.collector_pause`` set, as ``cli.main`` sets it) the runner pauses
the cyclic garbage collector while the check modules run and leaves it as it found it (enabled, or disabled by
the caller), also when a check raises; a library call leaves the host's collector alone."""

from __future__ import annotations

import gc

import pytest

from skillsift import catalog
from skillsift.cli import CollectorPause
from skillsift.validators import runner
from tests.support.validators_support import raw_skill, workspace


@pytest.fixture
def command_line(monkeypatch):
    monkeypatch.setattr(catalog, "collector_pause", CollectorPause)


@pytest.fixture
def ws(tmp_path):
    raw_skill(tmp_path, "alpha", "---\nname: alpha\ndescription: Deploys the app. Use when shipping.\n---\nSteps.\n")
    return workspace(tmp_path)


def _restore(enabled: bool) -> None:
    (gc.enable if enabled else gc.disable)()


@pytest.mark.parametrize("before", [True, False])
def test_the_checks_run_with_the_collector_paused_and_it_is_restored(ws, monkeypatch, before, command_line):
    seen: list[bool] = []
    real = runner.run_module

    def spying(name, workspace_, paths):
        seen.append(gc.isenabled())
        return real(name, workspace_, paths)

    monkeypatch.setattr(runner, "run_module", spying)
    was = gc.isenabled()
    _restore(before)
    try:
        found = runner.run_checks(ws)
        after = gc.isenabled()
    finally:
        _restore(was)
    assert seen and not any(seen)
    assert after is before
    assert isinstance(found, list)


def test_the_collector_is_restored_when_a_check_raises(ws, monkeypatch, command_line):
    def failing(name, workspace_, paths):
        raise RuntimeError("boom")

    monkeypatch.setattr(runner, "run_module", failing)
    was = gc.isenabled()
    gc.enable()
    try:
        with pytest.raises(RuntimeError):
            runner.run_checks(ws)
        assert gc.isenabled()
    finally:
        _restore(was)


def test_a_library_call_leaves_the_collector_alone(ws, monkeypatch):
    monkeypatch.setattr(catalog, "collector_pause", None)
    seen: list[bool] = []
    real = runner.run_module

    def spying(name, workspace_, paths):
        seen.append(gc.isenabled())
        return real(name, workspace_, paths)

    monkeypatch.setattr(runner, "run_module", spying)
    was = gc.isenabled()
    gc.enable()
    try:
        runner.run_checks(ws)
    finally:
        _restore(was)
    assert seen and all(seen)
