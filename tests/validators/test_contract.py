"""The check contract: the loader table and the registry name the same modules, each module
keeps the contract it is listed under, and the runner uses ``run_paths`` only with paths."""

from __future__ import annotations

import importlib
import inspect

from skillsift.validators import CHECKS, contract


def test_the_loader_table_names_exactly_the_registered_modules():
    registered = {check.module for check in CHECKS}
    assert set(contract.BY_PATH).isdisjoint(contract.WHOLE)
    assert set(contract.BY_PATH) | set(contract.WHOLE) == registered


def test_a_module_has_run_paths_exactly_when_it_is_listed_by_path():
    for name in sorted(set(contract.BY_PATH) | set(contract.WHOLE)):
        module = importlib.import_module(f"skillsift.validators.{name}")
        assert callable(getattr(module, "run", None)), name
        assert hasattr(module, "run_paths") == (name in contract.BY_PATH), name


def test_each_loader_returns_its_own_module():
    for table in (contract.BY_PATH, contract.WHOLE):
        for name, load in table.items():
            assert load() is importlib.import_module(f"skillsift.validators.{name}"), name


def test_every_check_function_types_its_workspace_argument():
    from skillsift.validators.workspace import Workspace

    for name in sorted(set(contract.BY_PATH) | set(contract.WHOLE)):
        module = importlib.import_module(f"skillsift.validators.{name}")
        for attr in ("run", "run_paths"):
            func = getattr(module, attr, None)
            if func is None:
                continue
            hints = inspect.get_annotations(func, eval_str=True)
            assert hints.get("ws") is Workspace, f"{name}.{attr}"


class _Recorder:
    def __init__(self):
        self.calls = []

    def run(self, ws):
        self.calls.append(("run", ws))
        return []

    def run_paths(self, ws, paths):
        self.calls.append(("run_paths", ws, paths))
        return []


def test_run_module_calls_run_paths_only_when_paths_are_given(monkeypatch):
    recorder = _Recorder()
    monkeypatch.setitem(contract.BY_PATH, "spec", lambda: recorder)
    contract.run_module("spec", "WS", None)
    contract.run_module("spec", "WS", ["a/SKILL.md"])
    assert recorder.calls == [("run", "WS"), ("run_paths", "WS", ["a/SKILL.md"])]
    whole = _Recorder()
    monkeypatch.setitem(contract.WHOLE, "listing", lambda: whole)
    contract.run_module("listing", "WS", ["a/SKILL.md"])
    assert whole.calls == [("run", "WS")]
