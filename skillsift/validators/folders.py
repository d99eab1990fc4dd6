"""The walk of a skill's folder, bounded, one per folder and run, and what its listings tell of the file system.

Every check that looks at the files of a skill's folder (secrets, paths, security, interactive
input, the links inside it) reads them from one walk (:meth:`FolderWalks.walk`), and the checks
that ask whether a path exists (SK108 links, SK312 scripts) are answered from the listings that walk
made (:meth:`FolderWalks.seen`) wherever a listing can tell, instead of a ``stat`` or ``lstat``
each.  A walk does not follow a symbolic link; it lists each folder by its path as written, so a
name it lists is what the OS finds at that path, as long as nothing on the way is a link, a folder
the walk did not list, or ``..``.  The inode number a listing gives a regular file (``d_ino``, no
system call) lets a reader check that the file it opened is the one listed
(:func:`skillsift.files.read_bounded`).
"""

from __future__ import annotations

import os
from functools import cached_property

from ..files import NOT_LISTED, read_bounded, refused_target

SKILL_FILE = "SKILL.md"
#: Files listed per skill folder at most, and folders below it walked (docs/checks-repository.md, "AR001 — secrets").
MAX_FOLDER_FILES = 500
MAX_FOLDER_DEPTH = 6
_SKIP_IN_FOLDER = frozenset({".git", "node_modules", "__pycache__"})
#: Whether a listing may answer for the file system and give inode numbers (POSIX paths, ``d_ino``).
LISTINGS = os.name == "posix"
#: The listing of most skill folders, kept as this one dict (never changed) rather than a copy per folder.
_SKILL_FILE_ONLY = {SKILL_FILE: "f"}


def plain_path(rel: str) -> bool:
    """Whether ``rel`` is a relative path that pathlib keeps as written: not empty, no leading or
    trailing ``/``, no ``//`` and no ``.`` part (then its name and parent are plain string cuts)."""
    return (bool(rel) and rel[0] != "/" and rel[-1] != "/" and "//" not in rel and "/./" not in rel
            and not rel.startswith("./") and not rel.endswith("/.") and rel != ".")


def simple_path(rel: str) -> bool:
    """Whether the file system resolves ``rel`` from the root one name after the other as written: a
    :func:`plain_path` with no ``..`` (which the OS takes after the link before it, not lexically)."""
    return (plain_path(rel) and rel != ".." and not rel.startswith("../") and "/../" not in rel
            and not rel.endswith("/.."))


def _fold(name: str) -> str:
    """``name`` as a case-insensitive (or normalising) file system may compare it."""
    if name.isascii():
        return name.lower()
    import unicodedata  # only for a name that is not ASCII (the hooks' path imports it nowhere else)
    return unicodedata.normalize("NFC", name).casefold()


class FolderWalks:
    """The folder walks of one workspace (``root``: its absolute root) and the listings they made."""

    def __init__(self, root: str):
        self.root = root
        self.walks: dict[str, tuple[list[str], list[str]]] = {}  # SKILL.md -> (other files of its folder, links)
        # relative folder ("." for the root) -> {name: kind} of every entry, for each folder a walk listed whole:
        # "f" a regular file, "l" a symbolic link, "d" a folder, "o" anything else, "?" not known
        self._listings: dict[str, dict[str, str]] = {}
        self._folded: dict[str, frozenset] = {}  # relative folder -> its listed names, folded (_fold)
        self._inodes: dict[str, int] = {}  # relative path of a regular file a walk listed -> its inode number
        self._linked: dict[str, bool] = {}  # relative folder -> reached through a symbolic link

    @cached_property
    def _real_root(self) -> str:
        return os.path.realpath(self.root)

    def read(self, rel: str, max_bytes: int) -> bytes:
        """The bytes of the file ``rel`` (:func:`~skillsift.files.read_bounded`).  A file a walk listed is read
        only as the file listed (not a link put in its place since, nor one reached through a folder swapped
        for a link), or, where the file system numbers it otherwise, when its real path lies inside the root."""
        path = os.path.join(self.root, rel)
        inode = self._inodes.get(rel)
        try:
            return read_bounded(path, max_bytes, inode=inode)
        except OSError as exc:
            if inode is None or exc.errno != NOT_LISTED or refused_target(path, self.root) is not None:
                raise
        return read_bounded(path, max_bytes)

    def linked(self, folder: str, direct=None) -> bool:
        """Whether the path from the root to ``folder`` passes through a symbolic link, asked once per folder:
        not when ``direct()`` says it is known not to, else one ``realpath``."""
        if folder not in self._linked:
            absolute = os.path.abspath(os.path.join(self.root, folder))
            self._linked[folder] = not (direct is not None and direct()) and os.path.realpath(absolute) != (
                os.path.join(self._real_root, os.path.relpath(absolute, self.root)))
        return self._linked[folder]

    def walk(self, rel: str, folder: str) -> tuple[list[str], list[str]]:
        """(files, links) of ``folder``, the folder of SKILL.md ``rel``, each sorted: one walk per SKILL.md.

        Symbolic links are listed, never followed; ``.git``, ``node_modules`` and ``__pycache__`` are not
        walked; at most :data:`MAX_FOLDER_FILES` entries and :data:`MAX_FOLDER_DEPTH` folders deep."""
        if rel not in self.walks:
            files: list[str] = []
            links: list[str] = []
            stack = [(folder, 0)]
            while stack and len(files) + len(links) < MAX_FOLDER_FILES:
                cur, depth = stack.pop()
                try:
                    with os.scandir(os.path.join(self.root, cur)) as it:
                        entries = sorted(it, key=lambda e: e.name)
                except OSError:
                    continue
                subfolders = []
                kinds: dict[str, str] = {}  # the folder's listing, kept when it is whole
                whole = True
                for entry in entries:
                    name = entry.name
                    child = f"{cur}/{name}" if cur not in ("", ".") else name
                    if len(files) + len(links) >= MAX_FOLDER_FILES:
                        whole = False
                        break
                    kind = "?"
                    try:
                        if entry.is_symlink():
                            kind = "l"
                            if child != rel:
                                links.append(child)
                        elif entry.is_dir():
                            kind = "d"
                            if name not in _SKIP_IN_FOLDER and depth + 1 < MAX_FOLDER_DEPTH:
                                subfolders.append((child, depth + 1))
                        elif entry.is_file():
                            kind = "f"
                            if child != rel:
                                files.append(child)
                                if LISTINGS:
                                    self._inodes[child] = entry.inode()  # (d_ino: no system call on POSIX)
                        else:
                            kind = "o"
                    except OSError:
                        pass
                    kinds[name] = kind
                if whole and LISTINGS:
                    listing = _SKILL_FILE_ONLY if kinds == _SKILL_FILE_ONLY else kinds
                    self._listings.setdefault(cur if cur else ".", listing)
                stack.extend(reversed(subfolders))
            self.walks[rel] = (sorted(files), sorted(links))
        return self.walks[rel]

    def seen(self, rel: str) -> str | None:
        """What the walks listed at ``rel``: its kind (as in ``_listings``), "" when nothing can be there (the
        nearest listed folder has no such name, or there is a file where a folder would be on the way), None
        when no listing tells (no walk reached it, a link or a folder not walked on the way, a name that a
        case-insensitive file system could take for one listed, a path not :func:`simple_path`)."""
        if not self._listings or not simple_path(rel):
            return None
        parts = rel.split("/")
        for end in range(len(parts) - 1, -1, -1):
            folder = "/".join(parts[:end]) or "."
            kinds = self._listings.get(folder)
            if kinds is not None:
                break
        else:
            return None
        name = parts[end]
        kind = kinds.get(name)
        if kind is None:
            if folder not in self._folded:
                self._folded[folder] = frozenset(_fold(n) for n in kinds)
            return None if _fold(name) in self._folded[folder] else ""
        if kind == "?" or end == len(parts) - 1:
            return None if kind == "?" else kind
        return "" if kind in ("f", "o") else None  # below a file (ENOTDIR); else a link or a folder not listed
