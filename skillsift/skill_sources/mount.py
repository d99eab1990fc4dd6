"""The skills a lock admits, copied where every reader of the catalog finds them.

A source's admitted skills are copied (regular files only) to
``<root>/.skillsift/local/sources/<name>/<skill folder>/``: machine-local and git-ignored like
the rest of ``.skillsift/local``, inside the repository, so the catalog, the validators, the
secret scan and the MCP server read them as they read any skill, and a source never needs a
path outside the repository at run time. A stamp (``.mounted.json``: the commit and the digests)
makes a second run a no-op; a change is copied into a temporary folder and swapped in whole.
Nothing here fetches: :func:`skillsift.skill_sources.sync.read_sources` says what may be read.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from ..catalog.agents import SOURCES_MOUNT
from .sync import SourceRoot

MOUNT_DIR = SOURCES_MOUNT
STAMP = ".mounted.json"


def mount_folder(name: str) -> str:
    """The folder (relative to the repository root, ``/``-separated) source ``name`` is mounted at."""
    return f"{MOUNT_DIR}/{name}"


def _copy_regular(src: Path, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    with os.scandir(src) as it:
        for entry in sorted(it, key=lambda e: e.name):
            if entry.is_symlink():
                continue  # never followed (reported by read_sources as SK052)
            target = dest / entry.name
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in (".git", "node_modules"):
                    _copy_regular(Path(entry.path), target)
            elif entry.is_file(follow_symlinks=False):
                shutil.copyfile(entry.path, target, follow_symlinks=False)


def mount(root: str | os.PathLike, roots: list[SourceRoot]) -> list[str]:
    """Copy each source's admitted skills under ``MOUNT_DIR``; return the mounted folders (relative).

    Sources no longer configured are removed from ``MOUNT_DIR``.
    """
    base = Path(root) / MOUNT_DIR
    mounted: list[str] = []
    wanted = {r.name for r in roots}
    if base.is_dir() and not base.is_symlink():
        for stale in sorted(base.iterdir()):
            if stale.name not in wanted and not stale.name.startswith("."):
                shutil.rmtree(stale, ignore_errors=True)
    for source in roots:
        stamp = {"commit": source.commit, "skills": dict(sorted(source.digests.items()))}
        target = base / source.name
        current = target / STAMP
        try:
            if current.is_file() and json.loads(current.read_text(encoding="utf-8")) == stamp:
                mounted.append(mount_folder(source.name))
                continue
        except (OSError, ValueError):
            pass
        base.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{source.name}-", dir=base))
        try:
            for rel in source.admitted:
                _copy_regular(source.folder / rel if rel != "." else source.folder, tmp / rel)
            (tmp / STAMP).write_text(json.dumps(stamp, sort_keys=True), encoding="utf-8")
            old = base / f".{source.name}.old"
            shutil.rmtree(old, ignore_errors=True)
            if target.exists():
                os.replace(target, old)
            os.replace(tmp, target)
            shutil.rmtree(old, ignore_errors=True)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        mounted.append(mount_folder(source.name))
    return mounted
