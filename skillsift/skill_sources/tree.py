"""The skills of a source folder and their content digests, read without following a link.

A source's skills are the folders holding a ``SKILL.md`` below its root (``subdir`` of the
checkout or of the configured path), found to :data:`MAX_DEPTH` folders down (:data:`MAX_FOLDERS` read at
the most), :data:`MAX_SKILLS`
skills and :data:`MAX_FILES` files at most. A symbolic link inside a source is never followed,
in or out of it: it is reported (``links``) and left out of the skill, so a source cannot reach a
file of the machine through a link.

A skill's digest is ``sha256:`` over its regular files in path order: for each, its path relative
to the skill folder, its size and its bytes, separated by NUL bytes. A change of any byte, a file
added, removed or renamed, changes it; the lock file records it (docs/sources.md).
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field

SKILL_FILE = "SKILL.md"
MAX_DEPTH = 6  # folders below a source root searched for SKILL.md (as the catalog's discovery)
MAX_SKILLS = 5000
MAX_FOLDERS = 20_000  # folders read while looking for skills, per source (a path such as "/" stops here)
MAX_FILES = 50_000  # files read for digests, per source
MAX_FILE_BYTES = 16 * 1024 * 1024
SKIPPED = (".git", "node_modules")


class SourceTooLarge(ValueError):
    """A source holds more than a bound allows; the message names the bound."""


@dataclass(frozen=True)
class SourceSkill:
    """One skill of a source: its folder relative to the source root (``/``-separated) and digest."""

    path: str
    digest: str


@dataclass
class SourceTree:
    """What one walk of a source root found."""

    skills: list[SourceSkill] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # links met (relative paths), never followed


def _entries(folder: str) -> list[os.DirEntry]:
    try:
        with os.scandir(folder) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []


def skill_digest(folder: str, rel: str, tree: SourceTree, budget: list[int]) -> str:
    """The digest of the skill folder ``folder`` (``rel`` is its path for reports)."""
    digest = hashlib.sha256()
    stack = [("", folder)]
    files: list[tuple[str, str]] = []
    while stack:
        prefix, current = stack.pop()
        for entry in _entries(current):
            name = f"{prefix}{entry.name}"
            if entry.is_symlink():
                tree.links.append(f"{rel}/{name}")
                continue
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIPPED:
                    stack.append((name + "/", entry.path))
            elif entry.is_file(follow_symlinks=False):
                files.append((name, entry.path))
    for name, path in sorted(files):
        budget[0] -= 1
        if budget[0] < 0:
            raise SourceTooLarge(f"more than {MAX_FILES} files")
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                continue
            if info.st_size > MAX_FILE_BYTES:
                raise SourceTooLarge(f"{rel}/{name} is larger than {MAX_FILE_BYTES} bytes")
            data = handle.read(MAX_FILE_BYTES + 1)
        digest.update(name.encode("utf-8", "surrogateescape") + b"\0" + str(len(data)).encode() + b"\0")
        digest.update(data)
    return "sha256:" + digest.hexdigest()


def walk(root: str) -> SourceTree:
    """The skills below ``root`` with their digests, links reported and never followed."""
    tree = SourceTree()
    budget = [MAX_FILES]
    stack: list[tuple[str, str, int]] = [("", root, 0)]
    found: list[tuple[str, str]] = []
    folders = 0
    while stack:
        rel, folder, depth = stack.pop()
        folders += 1
        if folders > MAX_FOLDERS:
            raise SourceTooLarge(f"more than {MAX_FOLDERS} folders to look through for skills; point subdir (or path) "
                                 "at the folder that holds them")
        entries = _entries(folder)
        skill = next((e for e in entries if e.name == SKILL_FILE), None)
        if skill is not None and not skill.is_symlink() and skill.is_file(follow_symlinks=False):
            found.append((rel or ".", folder))  # "." : the source is one skill
            continue
        if skill is not None and skill.is_symlink():
            tree.links.append(f"{rel}/{SKILL_FILE}" if rel else SKILL_FILE)
        if depth >= MAX_DEPTH:
            continue
        for entry in reversed(entries):
            if entry.name.startswith(".") and entry.name not in (".claude", ".agents", ".codex", ".github",
                                                                  ".cursor", ".gemini", ".opencode"):
                continue
            if entry.name in SKIPPED:
                continue
            if entry.is_symlink():
                if entry.is_dir():  # a linked folder: reported, never entered
                    tree.links.append(f"{rel}/{entry.name}" if rel else entry.name)
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append((f"{rel}/{entry.name}" if rel else entry.name, entry.path, depth + 1))
    found.sort()
    if len(found) > MAX_SKILLS:
        raise SourceTooLarge(f"more than {MAX_SKILLS} skills")
    for rel, folder in found:
        tree.skills.append(SourceSkill(rel, skill_digest(folder, rel, tree, budget)))
    tree.links.sort()
    return tree
