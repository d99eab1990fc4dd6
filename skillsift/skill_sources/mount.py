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


class MountRefused(OSError):
    """The mount folder cannot be used safely (a link on its way, or a file where a folder belongs)."""


def _mount_base(root: str | os.PathLike) -> Path:
    """``<root>/.skillsift/local/sources``, made folder by folder; none of them may be a link or a file.

    A repository can commit anything, a link named ``.skillsift/local`` included: following one would
    copy into, and clean up, a folder outside the repository.
    """
    base = Path(root)
    for part in MOUNT_DIR.split("/"):
        base = base / part
        if base.is_symlink() or (base.exists() and not base.is_dir()):
            raise MountRefused(f"{base} is a link or not a folder; skillsift copies sources only into a folder of "
                               "the repository's own")
        if not base.exists():
            base.mkdir()
    return base


def _remove(path: Path) -> None:
    """Remove a mounted source (a folder of ours) or whatever else stands in its place, never through a link."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path, ignore_errors=True)


def _stamp_of(target: Path):
    stamp = target / STAMP
    if target.is_symlink() or stamp.is_symlink() or not stamp.is_file():
        return None
    try:
        return json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def mount(root: str | os.PathLike, roots: list[SourceRoot]) -> list[str]:
    """Copy each source's admitted skills under ``MOUNT_DIR``; return the mounted folders (relative).

    Sources no longer configured are removed from ``MOUNT_DIR``. Raises :class:`MountRefused` (an
    OSError) when a folder on the way is a link or a file.
    """
    wanted = {r.name for r in roots}
    if not roots and not (Path(root) / MOUNT_DIR).exists():
        return []
    base = _mount_base(root)
    mounted: list[str] = []
    for stale in sorted(base.iterdir()):
        if stale.name not in wanted and not stale.name.startswith("."):
            _remove(stale)
    for source in roots:
        stamp = {"commit": source.commit, "skills": dict(sorted(source.digests.items()))}
        target = base / source.name
        if _stamp_of(target) == stamp:
            mounted.append(mount_folder(source.name))
            continue
        tmp = Path(tempfile.mkdtemp(prefix=f".{source.name}-", dir=base))
        try:
            for rel in source.admitted:
                _copy_regular(source.folder / rel if rel != "." else source.folder, tmp / rel)
            (tmp / STAMP).write_text(json.dumps(stamp, sort_keys=True), encoding="utf-8")
            old = base / f".{source.name}.old"
            _remove(old)
            if target.is_symlink() or target.exists():
                os.replace(target, old)
            os.replace(tmp, target)
            _remove(old)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        mounted.append(mount_folder(source.name))
    return mounted
