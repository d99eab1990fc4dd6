"""The contract a check module keeps, and how the runner loads a check module.

A check module has ``run(ws)``: every diagnostic of its codes over the whole workspace.  One
that can limit itself to some files (``skillsift validate PATH...``, the hooks) also has
``run_paths(ws, paths)``; the others run whole and the runner drops their findings on other
files.  Both are :class:`typing.Protocol` types.

The registry row of a check (:class:`skillsift.config.checks.Check`, generated from the
module's own declarations) names its module, and :func:`load` imports
``skillsift.<module>`` by that name (``checks.spec``), so a new check module needs no line here: adding a
check is one module plus its fixtures (docs/development.md, "The check contract").  A module is
imported only when one of its codes runs, so a hook that needs one check does not import the
others.  Because the module is found by name, mypy cannot see which protocol it keeps;
``tests/validators/test_contract.py`` checks every registered module against the protocols
(``run`` and, when present, ``run_paths``, with these parameters and annotations).
"""

from __future__ import annotations

import importlib
from typing import Protocol, cast

from ..diagnostics import Diagnostic
from .workspace import Workspace

PACKAGE = "skillsift"


class CheckModule(Protocol):
    """A check module: ``run`` over the whole workspace."""

    def run(self, ws: Workspace) -> list[Diagnostic]: ...


class PathCheckModule(CheckModule, Protocol):
    """A check module that can also run on some files only (relative ``/`` paths, sorted)."""

    def run_paths(self, ws: Workspace, paths: list[str]) -> list[Diagnostic]: ...


def load(name: str) -> CheckModule:
    """The check module the registry names ``name`` (ImportError for a name with no module)."""
    return cast(CheckModule, importlib.import_module(f"{PACKAGE}.{name}"))


def run_module(name: str, ws: Workspace, paths: list[str] | None) -> list[Diagnostic]:
    """The diagnostics of the check module ``name``: ``run_paths`` when paths are given and the
    module has it, else ``run``."""
    module = load(name)
    if paths is not None and hasattr(module, "run_paths"):
        return cast(PathCheckModule, module).run_paths(ws, paths)
    return module.run(ws)
