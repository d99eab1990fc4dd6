"""Shared by the validator tests (no tests here): skill files, a workspace, the checks run over it."""

from __future__ import annotations

from pathlib import Path

from skillsift.validators.runner import run_checks
from skillsift.validators.workspace import Workspace
from tests.conftest import write_skill


def raw_skill(root: Path, folder: str, text: str, layout: str = ".claude/skills") -> Path:
    """Write ``text`` as ``<root>/<layout>/<folder>/SKILL.md`` exactly."""
    path = root / layout / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def workspace(root: Path, user_config: str | None = None) -> Workspace:
    """A workspace on ``root`` whose user config is ``user_config`` (text) or none at all."""
    user = root.parent / f"{root.name}-user.toml"
    if user_config is not None:
        user.write_text(user_config, encoding="utf-8")
    return Workspace(root, env={}, user_config_path=user)


def codes(diagnostics) -> list[str]:
    return [d.code for d in diagnostics]


def check(root: Path, select=None, paths=None, user_config=None):
    """Run the checks whose codes are in ``select`` (default all) over ``root``."""
    ws = workspace(root, user_config)
    return run_checks(ws, codes=set(select) if select else None, paths=paths)


def three_skills(root: Path) -> Path:
    write_skill(root, "deploy-staging", "Deploy a service to the staging cluster", triggers=["deploy to staging"])
    write_skill(root, "issue-refund", "Refund a customer order from the billing console",
                triggers=["refund an order"])
    write_skill(root, "git-workflow", "Branching and pull request conventions")
    return root


def build_index(root: Path, *, model: str = "m", fields=None, skip=(), extra=()) -> Path:
    """Write an index for the skills under ``root`` (one-hot vectors), as a build would.

    ``skip``: skill names left out; ``extra``: names of rows for skills that do not exist.
    """
    from skillsift.catalog.embedtext import embedded_text, text_digest
    from skillsift.catalog.load import load_catalog
    from skillsift.config import load_config
    from skillsift.index.manifest import ManifestItem
    from skillsift.index.store import new_index, write_index

    config = load_config(root, env={}, user_config_path=root / "no-user-config.toml")
    fields = config.search.fields if fields is None else fields
    skills = [s for s in load_catalog(root, config).skills if s.name not in skip]
    items = [ManifestItem(id=s.name, text_digest=text_digest(embedded_text(s, fields)), item_digest=s.digest)
             for s in skills]
    items += [ManifestItem(id=name, text_digest="sha256:gone") for name in extra]
    dims = len(items) + 1
    vectors = [[1.0 if d == i else 0.0 for d in range(dims)] for i in range(len(items))]
    index = new_index(provider="test@local", model=model, items=items, vectors=vectors, fields=fields)
    target = root / config.search.index_dir
    write_index(target, index)
    return target
