"""The check contract: every registered module keeps the protocol of ``contract.py`` (``run``, and
``run_paths`` when it has one, with their parameters and annotations), and the runner uses
``run_paths`` only with paths."""

from __future__ import annotations

import importlib
import inspect

from skillsift.diagnostics import Diagnostic
from skillsift.validators import CHECKS, contract
from skillsift.validators.workspace import Workspace

EXPECTED = {"run": (["ws"], {"ws": Workspace, "return": list[Diagnostic]}),
            "run_paths": (["ws", "paths"], {"ws": Workspace, "paths": list[str], "return": list[Diagnostic]})}


def test_every_registered_module_keeps_the_protocol():
    for name in sorted({check.module for check in CHECKS}):
        module = importlib.import_module(f"skillsift.{name}")
        assert callable(getattr(module, "run", None)), f"{name} has no run(ws)"
        for attr, (params, hints) in EXPECTED.items():
            func = getattr(module, attr, None)
            if func is None:
                continue
            assert list(inspect.signature(func).parameters) == params, f"{name}.{attr}"
            assert inspect.get_annotations(func, eval_str=True) == hints, f"{name}.{attr}"


def test_load_returns_the_module_the_registry_names():
    for name in sorted({check.module for check in CHECKS}):
        assert contract.load(name) is importlib.import_module(f"skillsift.{name}"), name


class _Recorder:
    def __init__(self):
        self.calls = []

    def run(self, ws):
        self.calls.append(("run", ws))
        return []

    def run_paths(self, ws, paths):
        self.calls.append(("run_paths", ws, paths))
        return []


class _Whole:
    def __init__(self):
        self.calls = []

    def run(self, ws):
        self.calls.append(("run", ws))
        return []


def test_run_module_calls_run_paths_only_when_paths_are_given(monkeypatch):
    recorder, whole = _Recorder(), _Whole()
    monkeypatch.setattr(contract, "load", lambda name: {"spec": recorder, "listing": whole}[name])
    contract.run_module("spec", "WS", None)
    contract.run_module("spec", "WS", ["a/SKILL.md"])
    assert recorder.calls == [("run", "WS"), ("run_paths", "WS", ["a/SKILL.md"])]
    contract.run_module("listing", "WS", ["a/SKILL.md"])
    assert whole.calls == [("run", "WS")]
