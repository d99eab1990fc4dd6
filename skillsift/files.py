"""One bounded reader for the files a repository holds (docs/bounded-input.md).

A repository can hold anything where a file is expected: a FIFO named ``SKILL.md`` (``open``
would wait for a writer forever), a device, or a file of gigabytes.  :func:`read_bounded`
opens without blocking, reads only regular files, and stops past a size limit; every
refusal is an :class:`OSError` whose ``strerror`` says why, so callers report it the way they
report an unreadable file.
"""

from __future__ import annotations

import errno
import os
import stat
import sys

#: Largest SKILL.md read (agents load the whole file into context; a larger one is refused).
MAX_SKILL_BYTES = 4 << 20


def path_str(path: str | os.PathLike) -> str:
    """``str(Path(path))`` without importing :mod:`pathlib` on POSIX (it brings ``urllib.parse`` and
    ``ipaddress``: about 18M instructions of a hook): repeated and trailing ``/`` and ``.`` parts dropped,
    one or two leading ``/`` kept (three or more are one), ``.`` for nothing left.  ``..`` stays as written."""
    text = os.fspath(path)
    if os.name != "posix" or type(text) is not str:
        from pathlib import Path

        return str(Path(text))
    root = ""
    if text.startswith("/"):
        root = "//" if text.startswith("//") and not text.startswith("///") else "/"
    parts = [p for p in text.split("/") if p and p != "."]
    return (root + "/".join(parts)) or "."


def as_posix(path: str | os.PathLike) -> str:
    """``Path(path).as_posix()`` (:func:`path_str` with ``/`` for the separator)."""
    text = path_str(path)
    return text if os.sep == "/" else text.replace(os.sep, "/")


def posix_parts(rel: str) -> tuple[str, ...]:
    """``PurePosixPath(rel).parts`` without :mod:`pathlib`: the names between the ``/`` but ``""`` and ``.``,
    after the root (``/``, or ``//`` for two leading slashes exactly) of an absolute ``rel``."""
    names = tuple(p for p in rel.split("/") if p and p != ".")
    if not rel.startswith("/"):
        return names
    return ("//" if rel.startswith("//") and not rel.startswith("///") else "/",) + names


def resolved(path: str | os.PathLike) -> str:
    """``str(Path(path).resolve())``: :func:`os.path.realpath`, and up to Python 3.12 the RuntimeError
    pathlib raises for a symbolic link loop."""
    if os.name != "posix":
        from pathlib import Path

        return str(Path(path).resolve())
    real = path_str(os.path.realpath(path_str(path)))
    if sys.version_info < (3, 13):
        try:
            os.stat(real)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise RuntimeError(f"Symlink loop from {exc.filename!r}") from None
    return real


def relative_inside(path: str, root: str) -> str | None:
    """``Path(path).resolve().relative_to(root).as_posix()`` for the resolved ``root`` (the string of
    ``skillsift.config.root_folder``), None where pathlib raises ValueError (outside ``root``).

    Both sides are resolved, so the part after the root's prefix is what pathlib gives.  Elsewhere
    than on POSIX the pathlib way is taken."""
    if os.name != "posix":
        from pathlib import Path

        try:
            return Path(path).resolve().relative_to(root).as_posix()
        except ValueError:
            return None
    real = resolved(path)
    root = path_str(root)
    if real == root:
        return "."
    prefix = root if root.endswith("/") else root + "/"
    return real[len(prefix):] if real.startswith(prefix) else None


def is_absolute(path: str) -> bool:
    """``Path(path).is_absolute()`` (on POSIX: a leading ``/``)."""
    if os.name == "posix":
        return path.startswith("/")
    from pathlib import Path

    return Path(path).is_absolute()


def parent_name(path: str | os.PathLike) -> str:
    """``Path(path).parent.name``: the name of the folder holding ``path`` ("" for none)."""
    if os.name != "posix":
        from pathlib import Path

        return Path(path).parent.name
    return os.path.basename(os.path.dirname(path_str(path)))


#: The errors ``Path.exists`` and ``Path.is_file`` read as "not there" up to Python 3.12 (others are raised).
_MISSING_ERRNOS = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)


def path_mode(path: str | os.PathLike) -> int | None:
    """``st_mode`` of ``path`` (links followed), None where ``Path(path).exists()`` is False: the answers of
    ``exists``, ``is_file`` and ``is_dir`` without :mod:`pathlib`, any other OSError raised as pathlib does
    (Python 3.13 and later, where pathlib asks :mod:`os.path`, read every OSError as "not there")."""
    try:
        return os.stat(path_str(path)).st_mode  # Path(path): "" is ".", "f/" is "f"
    except OSError as exc:
        if (sys.version_info >= (3, 13) or exc.errno in _MISSING_ERRNOS
                or getattr(exc, "winerror", None) in (21, 123, 1921)):
            return None
        raise
    except ValueError:
        return None


#: How the readers below open a file: read only, never waiting (a FIFO opens at once, then fails the
#: regular-file test), not inherited by a child process; and, for a file a listing gave, not through a link.
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
#: What :func:`read_bounded` raises for a file that is not the one its folder's listing numbered.
NOT_LISTED = errno.ESTALE


def read_bounded(path: str | os.PathLike, max_bytes: int, *, inode: int | None = None) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes``; OSError otherwise.

    ``inode``: the number a listing of its folder gave a regular file there (``DirEntry.inode()``): the
    file is then opened without following a link at ``path`` and must be that file (an OSError
    :data:`NOT_LISTED` otherwise: the file, or a folder on the way, was swapped since it was listed)."""
    fd = os.open(path, _READ_FLAGS | (_NO_FOLLOW if inode is not None else 0))
    try:
        return _read_fd(fd, max_bytes, os.fspath(path), inode)
    finally:
        os.close(fd)


def read_head(path: str | os.PathLike, size: int) -> bytes:
    """The first ``size`` bytes of the regular file ``path`` (a file a folder's listing gave), b"" when it
    cannot be read: opened without blocking and without following a link, so a FIFO or a link put in its
    place since is neither waited for nor followed."""
    try:
        fd = os.open(path, _READ_FLAGS | _NO_FOLLOW)
    except OSError:
        return b""
    try:
        return os.read(fd, size) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    except OSError:
        return b""
    finally:
        os.close(fd)


def _read_fd(fd: int, max_bytes: int, path: str, inode: int | None = None) -> bytes:
    """The bytes of the open regular file ``fd``, at most ``max_bytes``; OSError otherwise."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, "not a regular file", path)
    if inode is not None and info.st_ino != inode:
        raise OSError(NOT_LISTED, "not the file its folder's listing gave", path)
    if info.st_size > max_bytes:
        raise OSError(errno.EFBIG, f"larger than {max_bytes:,} bytes", path)
    # The first read asks for the whole file and one byte more (one call, no joining
    # copy for a file that does not grow); later reads take 1 MiB at a time.
    chunks: list[bytes] = []
    size, want = 0, info.st_size + 1
    while True:
        ask = min(want, max_bytes + 1 - size)
        chunk = os.read(fd, ask)
        want = 1 << 20
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:  # it grew while being read
            raise OSError(errno.EFBIG, f"larger than {max_bytes:,} bytes", path)
        if size == info.st_size and len(chunk) < ask:
            # every byte fstat counted, and the read that asked for more stopped there: the end of the
            # file (no second read to hear it say so; a file still growing reads on, as above)
            break
    return b"".join(chunks)


#: What to do about a SKILL.md that is a link to something other than a file of its own folder.
SKILL_LINK_HINT = ("make SKILL.md a regular file in the skill's folder (git rm the link, add the file itself), "
                   "or link the whole skill folder instead")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def skill_file_problem(path: str | os.PathLike, real_root: str | None = None) -> str | None:
    """Why the SKILL.md at ``path`` must not be read, or None when it may.

    A SKILL.md is read only when its real path lies inside the real path of its own skill
    folder (the folder may itself be a link: ``.claude/skills/x -> ../../x`` is served), is
    not under a ``.git`` folder of ``real_root`` (the resolved repository root, when given)
    and exists.  A link to another skill's SKILL.md, to ``.env`` or ``.git/config``, or one
    that dangles, is refused (docs/checks-skills.md, "SK020 — a SKILL.md that is a link").
    """
    path = os.fspath(path)
    folder = os.path.realpath(os.path.dirname(path) or ".")
    real = os.path.realpath(path)
    name = os.path.basename(path)
    try:
        target = os.readlink(path) if os.path.islink(path) else ""
    except OSError:
        target = ""
    shown = f" (to {target})" if target else ""
    if not os.path.lexists(path):
        return f"{name} is missing"
    if not os.path.exists(real):
        return f"{name} is a symbolic link{shown} to nothing (it dangles); it is not read"
    if not _inside(real, folder) or real == folder:
        return (f"{name} is a symbolic link{shown} to a file outside its own skill folder; only a {name} inside "
                "the skill's folder is read")
    if real_root is not None and _inside(real, real_root):
        parts = os.path.relpath(real, real_root).split(os.sep)
        if ".git" in parts:
            return f"{name} resolves to a file under .git/{shown}; it is not read"
    return None


#: What opening a link with ``O_NOFOLLOW`` fails with (ELOOP; EMLINK on FreeBSD and NetBSD).
_LINK_ERRNOS = (errno.ELOOP, errno.EMLINK)


def read_skill_bytes(path: str | os.PathLike, max_bytes: int = MAX_SKILL_BYTES,
                     real_root: str | None = None) -> bytes:
    """:func:`read_bounded` of a SKILL.md, refused (OSError) when :func:`skill_file_problem` objects.

    The file opened is the checked real path, opened without following a link there, so a
    link swapped in after the check is not followed either.
    """
    flags = _READ_FLAGS | _NO_FOLLOW
    if _NO_FOLLOW and real_root is None:
        # A file that is no link opens as it is, without the lstat below (one system call less per
        # SKILL.md of a catalog); opening a link fails (ELOOP, EMLINK on some BSDs) and takes the
        # checked way, as does every other failure, which is then the same call's own.
        try:
            fd = os.open(os.fspath(path), flags)
        except OSError as exc:
            if exc.errno not in _LINK_ERRNOS:
                raise
        else:
            try:
                return _read_fd(fd, max_bytes, os.fspath(path))
            finally:
                os.close(fd)
    try:
        plain = not stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        plain = True  # the open below says why it cannot be read
    if plain and real_root is None:
        real = os.fspath(path)  # not a link: it lies in its own folder by construction
    else:
        problem = skill_file_problem(path, real_root)
        if problem is not None:
            raise OSError(errno.EACCES, problem, os.fspath(path))
        real = os.path.realpath(path)
    fd = os.open(real, flags)
    try:
        return _read_fd(fd, max_bytes, os.fspath(path))
    finally:
        os.close(fd)


def refused_target(path: str | os.PathLike, root: str | os.PathLike) -> str | None:
    """The real path ``path`` reaches when links take it outside ``root`` or under its ``.git/``, else None.

    A file the repository names (its config, its cases files, its examples files, its
    baselines) must not be a link to a file elsewhere on the machine, nor to git's own files
    (on a CI checkout ``.git/config`` can hold an authorization header): reading it would
    parse, and echo in errors, a file the repository does not hold.  Every component is
    resolved, so link chains, a linked parent folder and a dangling link are judged by where
    they end; a path that does not exist yet (a file or folder skillsift is about to write) by
    where its linked parent folders take it.  A path given outside the root to begin with is
    the user's choice and is not refused here.
    """
    absolute = os.path.abspath(path)
    lexical_root = os.path.abspath(root)
    real_root = os.path.realpath(root)
    inside = os.path.commonpath([lexical_root, absolute]) == lexical_root
    if not inside:
        return None
    real = os.path.realpath(absolute)
    if os.path.commonpath([real_root, real]) != real_root:
        return real
    git = os.path.join(real_root, ".git")
    if os.path.commonpath([git, real]) == git:
        return real
    return None


def link_leaves(path: str | os.PathLike, root: str | os.PathLike) -> bool:
    """True when ``path`` sits inside ``root`` but links take it outside (or into ``.git/``)."""
    return refused_target(path, root) is not None


#: Directory entries one :func:`repo_glob` call may look at before it gives up.
GLOB_MAX_ENTRIES = 200_000


class GlobLimitError(OSError):
    """A glob pattern that would visit more than :data:`GLOB_MAX_ENTRIES` directory entries."""


def repo_glob(pattern: str, root_dir: str | os.PathLike, *, max_entries: int = GLOB_MAX_ENTRIES) -> list[str]:
    """The paths under ``root_dir`` that ``pattern`` names, relative with ``/``, sorted.

    The rules of ``glob.glob(pattern, root_dir=root_dir, recursive=True)`` (``*``, ``?``,
    ``[...]`` in a part; ``**`` as a whole part for any number of folders; names starting with
    a dot matched only by a part that starts with a dot, never by ``**``), with two
    differences that keep it bounded whatever the repository holds (docs/bounded-input.md,
    "Globs"): ``**`` does not descend into a symbolic link to a folder (the link itself is
    matched; a loop such as ``skills/x -> .`` would otherwise be walked until the path is too
    long, with a fan-out of every link at every level), and at most ``max_entries`` directory
    entries are looked at (:class:`GlobLimitError` past it). A part without wildcards, and a
    part with them but not ``**``, may pass through a linked folder: each consumes one part of
    the pattern, so the pattern's length bounds them. Matches are returned without a trailing
    ``/``; the root itself is never a match.
    """
    import fnmatch

    base = os.fspath(root_dir)
    parts = [p for p in pattern.replace("\\", "/").split("/") if p not in ("", ".")]
    only_dirs_at_end = pattern.endswith("/")
    budget = [max_entries]

    def entries(rel: str, dirs_only: bool) -> list[tuple[str, bool, bool]]:
        """(name, is a folder (links followed), is a real folder (not a link)) of the folder ``rel``."""
        try:
            with os.scandir(os.path.join(base, rel) if rel else base) as it:
                out = []
                for entry in it:
                    budget[0] -= 1
                    if budget[0] < 0:
                        raise GlobLimitError(errno.E2BIG, f'the pattern "{pattern}" looks at more than '
                                             f"{max_entries:,} folder entries", base)
                    try:
                        is_dir = entry.is_dir()
                        real_dir = is_dir and not entry.is_symlink()
                    except OSError:
                        is_dir = real_dir = False
                    if dirs_only and not is_dir:
                        continue
                    out.append((entry.name, is_dir, real_dir))
                return out
        except GlobLimitError:
            raise
        except OSError:
            return []

    def join(rel: str, name: str) -> str:
        return f"{rel}/{name}" if rel else name

    def below(rel: str, dirs_only: bool) -> list[str]:
        """``rel`` and every path under it reached through real folders, no hidden name, for ``**``."""
        found, stack = [rel], [rel]
        while stack:
            cur = stack.pop()
            for name, _is_dir, real_dir in entries(cur, dirs_only):
                if name.startswith("."):
                    continue
                path = join(cur, name)
                found.append(path)
                if real_dir:
                    stack.append(path)
        return found

    def is_dir(rel: str) -> bool:
        return os.path.isdir(os.path.join(base, rel) if rel else base)

    current = [""]
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        dirs_only = not last or only_dirs_at_end
        nxt: list[str] = []
        for rel in current:
            if part == "**":
                nxt.extend(below(rel, dirs_only) if is_dir(rel) else [])
            elif glob_magic(part):
                hidden_ok = part.startswith(".")
                for name, _is_dir, _real in entries(rel, dirs_only):
                    if (hidden_ok or not name.startswith(".")) and fnmatch.fnmatchcase(name, part):
                        nxt.append(join(rel, name))
            else:
                path = join(rel, part)
                full = os.path.join(base, path)
                if (os.path.isdir(full) if dirs_only else os.path.lexists(full)):
                    nxt.append(path)
        # A path reached twice (``**/**``, ``a/**/**/b``) is one match.
        current = list(dict.fromkeys(nxt))
        if not current:
            return []
    return sorted(p for p in current if p)


def glob_magic(text: str) -> bool:
    """True when ``text`` holds a glob wildcard (``*``, ``?`` or ``[``)."""
    return any(c in text for c in "*?[")
