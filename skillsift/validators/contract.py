"""The contract a check module keeps, and the table the runner loads check modules from.

A check module has ``run(ws)``: every diagnostic of its codes over the whole workspace.  One
that can limit itself to some files (``skillsift validate PATH...``, the hooks) also has
``run_paths(ws, paths)``; the others run whole and the runner drops their findings on other
files.  Both are :class:`typing.Protocol` types, and each loader below returns its module as
one of them, so mypy checks every module against the contract (a missing ``run``, a wrong
argument or return type fails ``mypy skillsift``).

The protocols are not called ``Check``: that name is the registry row
(:class:`skillsift.config.checks.Check`: code, severity, scope, module), which names the module
a row's codes come from.  A module is imported only when the runner calls its loader, so a
hook that needs one check does not import the others.  ``tests/validators/test_contract.py``
checks that this table and the registry name the same modules and that a module has
``run_paths`` exactly when it is listed in :data:`BY_PATH`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..diagnostics import Diagnostic
from .workspace import Workspace


class CheckModule(Protocol):
    """A check module: ``run`` over the whole workspace."""

    def run(self, ws: Workspace) -> list[Diagnostic]: ...


class PathCheckModule(CheckModule, Protocol):
    """A check module that can also run on some files only (relative ``/`` paths, sorted)."""

    def run_paths(self, ws: Workspace, paths: list[str]) -> list[Diagnostic]: ...


def _agent_fields() -> PathCheckModule:
    from . import agent_fields
    return agent_fields


def _body() -> PathCheckModule:
    from . import body
    return body


def _frontmatter() -> PathCheckModule:
    from . import frontmatter
    return frontmatter


def _paths() -> PathCheckModule:
    from . import paths
    return paths


def _secrets() -> PathCheckModule:
    from . import secrets
    return secrets


def _security() -> PathCheckModule:
    from . import security
    return security


def _skill_links() -> PathCheckModule:
    from . import skill_links
    return skill_links


def _spec() -> PathCheckModule:
    from . import spec
    return spec


def _suppress() -> PathCheckModule:
    from . import suppress
    return suppress


def _yaml_checks() -> PathCheckModule:
    from . import yaml_checks
    return yaml_checks


def _cases() -> CheckModule:
    from . import cases
    return cases


def _catalog_paths() -> CheckModule:
    from . import catalog_paths
    return catalog_paths


def _config() -> CheckModule:
    from . import config
    return config


def _duplicates() -> CheckModule:
    from . import duplicates
    return duplicates


def _gates() -> CheckModule:
    from . import gates
    return gates


def _index() -> CheckModule:
    from . import index
    return index


def _listing() -> CheckModule:
    from . import listing
    return listing


def _served() -> CheckModule:
    from . import served
    return served


def _sources() -> CheckModule:
    from . import sources
    return sources


def _withheld() -> CheckModule:
    from . import withheld
    return withheld


BY_PATH: dict[str, Callable[[], PathCheckModule]] = {
    "agent_fields": _agent_fields,
    "body": _body,
    "frontmatter": _frontmatter,
    "paths": _paths,
    "secrets": _secrets,
    "security": _security,
    "skill_links": _skill_links,
    "spec": _spec,
    "suppress": _suppress,
    "yaml_checks": _yaml_checks,
}
"""The check modules with ``run_paths``, by the name the registry gives them."""

WHOLE: dict[str, Callable[[], CheckModule]] = {
    "cases": _cases,
    "catalog_paths": _catalog_paths,
    "config": _config,
    "duplicates": _duplicates,
    "gates": _gates,
    "index": _index,
    "listing": _listing,
    "served": _served,
    "sources": _sources,
    "withheld": _withheld,
}
"""The check modules that always run over the whole workspace."""


def run_module(name: str, ws: Workspace, paths: list[str] | None) -> list[Diagnostic]:
    """The diagnostics of the check module ``name``: ``run_paths`` when paths are given and the
    module has it, else ``run``.  A name in neither table is a registry error (KeyError)."""
    if name in BY_PATH:
        module = BY_PATH[name]()
        return module.run(ws) if paths is None else module.run_paths(ws, paths)
    return WHOLE[name]().run(ws)
