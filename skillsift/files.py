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
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        if info.st_size > max_bytes:
            raise OSError(errno.EFBIG, f"larger than {max_bytes:,} bytes", os.fspath(path))
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
                raise OSError(errno.EFBIG, f"larger than {max_bytes:,} bytes", os.fspath(path))
        return b"".join(chunks)
    finally:
        os.close(fd)


def link_leaves(path: str | os.PathLike, root: str | os.PathLike) -> bool:
    """True when ``path`` sits inside ``root`` but a symbolic link takes it outside.

    A file the repository names (its config, its cases file) must not be a link to a file
    elsewhere on the machine: reading it would parse, and echo in errors, a file the
    repository does not hold.  A path given outside the root to begin with is the user's
    choice and is not refused here.
    """
    absolute = os.path.abspath(path)
    real_root = os.path.realpath(root)
    inside = os.path.commonpath([os.path.abspath(root), absolute]) == os.path.abspath(root)
    if not inside or not os.path.lexists(absolute):
        return False
    real = os.path.realpath(absolute)
    return os.path.commonpath([real_root, real]) != real_root
