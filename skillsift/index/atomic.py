"""Write a file atomically: readers see the old bytes or the new ones, never a mix.

The bytes go to a temporary file in the target's directory (``<name>.tmp-<random>``),
which is flushed to disk, made ``0644`` and renamed over the target.  The temporary
file is removed when any step fails.  A target that already holds exactly the bytes
is left alone, so its modification time does not move.
"""

from __future__ import annotations

import os
import tempfile

from ..diagnostics import SkillsiftError

FILE_MODE = 0o644


class AtomicWriteError(SkillsiftError):
    """A file could not be written; the target is unchanged and no temporary file is left."""


def same_bytes(path: str | os.PathLike, data: bytes) -> bool:
    """True when ``path`` is a regular file holding exactly ``data``."""
    try:
        if os.stat(path).st_size != len(data):
            return False
        with open(path, "rb") as handle:
            return handle.read(len(data) + 1) == data
    except OSError:
        return False


def write_atomic(path: str | os.PathLike, data: bytes, *, mode: int = FILE_MODE) -> bool:
    """Write ``data`` to ``path`` atomically; returns False (nothing written) when unchanged.

    Raises :class:`AtomicWriteError` naming the file when a step fails.
    """
    return write_files_atomic([(path, data)], mode=mode)[0]


def write_files_atomic(files, *, mode: int = FILE_MODE) -> list[bool]:
    """Write several ``(path, bytes)`` pairs, each atomically, renaming them in the given order.

    Every temporary file is written and flushed before the first rename, so the renames
    follow each other closely.  Files whose bytes are unchanged are skipped; the result
    says, per file, whether it was written.  On failure every remaining temporary file
    is removed and :class:`AtomicWriteError` is raised (files already renamed stay).
    """
    pending = []  # (temporary path, target path)
    written = []
    try:
        for path, data in files:
            path = os.fspath(path)
            if same_bytes(path, data):
                written.append(False)
                continue
            pending.append((_prepare(path, data, mode), path))
            written.append(True)
        while pending:
            tmp, path = pending[0]
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise _failure(path, exc) from exc
            pending.pop(0)
            _sync_directory(os.path.dirname(path) or ".")
    finally:
        for tmp, _path in pending:
            _remove(tmp)
    return written


def _prepare(path: str, data: bytes, mode: int) -> str:
    """A flushed temporary file beside ``path`` holding ``data``, with ``mode``."""
    directory, name = os.path.split(path)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=name + ".tmp-", dir=directory or ".")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        return tmp
    except BaseException as exc:
        if tmp is not None:
            _remove(tmp)
        if isinstance(exc, OSError):
            raise _failure(path, exc) from exc
        raise


def _failure(path: str, exc: OSError) -> AtomicWriteError:
    return AtomicWriteError(
        f"cannot write {path}: {exc.strerror or exc}",
        hint=f"check that {path} is a writable file path (not a directory) and that the disk has room",
    )


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _sync_directory(directory: str) -> None:
    """Flush the rename to disk where the platform allows opening a directory."""
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


MAX_APPEND_BYTES = 256 << 20  # a file appended to (the job summary, step outputs) is copied up to this size


def write_output(path: str | os.PathLike, data: bytes, *, append: bool = False) -> None:
    """Write a report or output file: atomically when it is (or will be) a regular file.

    ``append`` keeps the file's current bytes in front (the runner's ``$GITHUB_OUTPUT`` and
    ``$GITHUB_STEP_SUMMARY``); the whole file is then replaced at once, keeping its mode.  A
    target that exists and is no regular file (``/dev/stdout``, a pipe) is written in place,
    never replaced.  Every failure raises :class:`AtomicWriteError` naming the file; the file is
    then unchanged.
    """
    import stat

    path = os.fspath(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise _failure(path, exc) from exc
    if info is not None and not stat.S_ISREG(info.st_mode):
        try:
            with open(path, "ab" if append else "wb") as handle:
                handle.write(data)
                handle.flush()
        except OSError as exc:
            raise _failure(path, exc) from exc
        return
    mode = FILE_MODE
    if info is not None and append:
        mode = stat.S_IMODE(info.st_mode)
        if info.st_size > MAX_APPEND_BYTES:
            raise AtomicWriteError(f"cannot append to {path}: it holds more than {MAX_APPEND_BYTES >> 20} MiB",
                                   hint=f"start from an empty {path}")
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_APPEND_BYTES + 1) + data
        except OSError as exc:
            raise _failure(path, exc) from exc
    write_files_atomic([(path, data)], mode=mode)
