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

#: Largest SKILL.md read (agents load the whole file into context; a larger one is refused).
MAX_SKILL_BYTES = 4 << 20


def read_bounded(path: str | os.PathLike, max_bytes: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes``; OSError otherwise."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        return _read_fd(fd, max_bytes, os.fspath(path))
    finally:
        os.close(fd)


def _read_fd(fd: int, max_bytes: int, path: str) -> bytes:
    """The bytes of the open regular file ``fd``, at most ``max_bytes``; OSError otherwise."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, "not a regular file", path)
    if info.st_size > max_bytes:
        raise OSError(errno.EFBIG, f"larger than {max_bytes:,} bytes", path)
    # The first read asks for the whole file and one byte more (one call, no joining
    # copy for a file that does not grow); later reads take 1 MiB at a time.
    chunks, size, want = [], 0, info.st_size + 1
    while True:
        chunk = os.read(fd, min(want, max_bytes + 1 - size))
        want = 1 << 20
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:  # it grew while being read
            raise OSError(errno.EFBIG, f"larger than {max_bytes:,} bytes", path)
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
    that dangles, is refused (docs/validate.md, "SK020 — a SKILL.md that is a link").
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


def read_skill_bytes(path: str | os.PathLike, max_bytes: int = MAX_SKILL_BYTES,
                     real_root: str | None = None) -> bytes:
    """:func:`read_bounded` of a SKILL.md, refused (OSError) when :func:`skill_file_problem` objects.

    The file opened is the checked real path, opened without following a link there, so a
    link swapped in after the check is not followed either.
    """
    nofollow = getattr(os, "O_NOFOLLOW", 0)
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
    fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | nofollow)
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
    they end.  A path given outside the root to begin with is the user's choice and is not
    refused here.
    """
    absolute = os.path.abspath(path)
    lexical_root = os.path.abspath(root)
    real_root = os.path.realpath(root)
    inside = os.path.commonpath([lexical_root, absolute]) == lexical_root
    if not inside or not os.path.lexists(absolute):
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
