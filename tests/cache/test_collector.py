"""``load_catalog`` (a library call) leaves the host's garbage collector alone; the CLI may pause it."""

from __future__ import annotations

import gc

from skillsift import catalog as catalog_pkg
from skillsift.catalog.load import load_catalog
from skillsift.cli import main

ACME = "examples/acme"


def _record(monkeypatch) -> list[str]:
    calls: list[str] = []
    for name in ("disable", "enable", "freeze", "unfreeze", "set_threshold", "collect"):
        real = getattr(gc, name)
        monkeypatch.setattr(gc, name, lambda *a, _n=name, _r=real: calls.append(_n) or _r(*a))
    return calls


def test_load_catalog_leaves_the_collector_untouched(monkeypatch, tmp_path):
    monkeypatch.setenv("SKILLSIFT_CACHE_DIR", str(tmp_path / "cache"))
    enabled, threshold, frozen = gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()
    calls = _record(monkeypatch)
    for _ in range(2):  # cold, then from the caches
        catalog = load_catalog(ACME)
        assert catalog.skills
    assert calls == []
    assert (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()) == (enabled, threshold, frozen)


def test_the_command_line_pauses_it_and_restores_it(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("SKILLSIFT_CACHE_DIR", str(tmp_path / "cache"))
    enabled, threshold = gc.isenabled(), gc.get_threshold()
    calls = _record(monkeypatch)
    assert main(["search", "--root", ACME, "deploy"]) == 0
    assert "disable" in calls and calls[-1] == "enable"
    assert (gc.isenabled(), gc.get_threshold()) == (enabled, threshold)
    assert catalog_pkg.collector_pause is None  # a later library call in this process is left alone
    calls.clear()
    load_catalog(ACME)
    assert calls == []


def test_the_console_script_imports_its_command_with_the_collector_off(monkeypatch):
    """The group and the command's module are imported with the collector off, then what they made moved to
    the oldest generation (frozen and thawed): the collector is on again and nothing stays frozen."""
    import sys

    from skillsift import cli

    monkeypatch.delitem(sys.modules, "skillsift.commands.explain_cmd", raising=False)
    enabled, frozen = gc.isenabled(), gc.get_freeze_count()
    calls = _record(monkeypatch)
    group = cli._imported_quietly(["explain", "SK001"])
    assert "skillsift.commands.explain_cmd" in sys.modules
    assert group.COMMANDS["explain"][0] == "skillsift.commands.explain_cmd"
    assert calls == ["disable", "freeze", "unfreeze", "enable"]
    assert (gc.isenabled(), gc.get_freeze_count()) == (True, frozen)
    calls.clear()
    assert cli._imported_quietly(["no-such-command"]) is group and cli._imported_quietly([]) is group
    assert calls == ["disable", "freeze", "unfreeze", "enable"] * 2
    if not enabled:
        gc.disable()
