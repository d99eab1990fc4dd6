"""Write a file atomically: readers see the old bytes or the new ones, never a mix.

The bytes go to a temporary file in the target's directory (``<name>.tmp-<random>``),
which is flushed to disk, given the target's mode (``0644`` for a new file) and renamed
over the target.  The temporary file is removed when any step fails.  A target that
already holds exactly the bytes is left alone, so its modification time does not move.

Every file skillsift rewrites goes through here (``mine --into``, ``tune --write``,
``validate --fix``, the baselines, reports, the index files), so each keeps its mode, and a
read-only target (no write bit, or one this user may not write) is refused unless the
caller forces it (``--force``; docs/development.md, "Rewriting files").
"""

from __future__ import annotations

import os

from ..diagnostics import SkillsiftError

FILE_MODE = 0o644


class AtomicWriteError(SkillsiftError):
    """A file could not be written; the target is unchanged and no temporary file is left."""


class ReadOnlyTarget(AtomicWriteError):
    """A read-only file skillsift would rewrite: refused, nothing written."""


def current_mode(path: str, force: bool | None) -> int | None:
    """The permission bits of the regular file ``path`` (None: none there); refuses a read-only one.

    ``force``: True rewrites it anyway (keeping its mode); False refuses, naming ``--force``;
    None refuses, for callers without that option.
    """
    import stat

    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    mode = stat.S_IMODE(info.st_mode)
    if not force and (not mode & 0o222 or not os.access(path, os.W_OK)):
        how = f"make it writable (chmod u+w {path})" + (", or pass --force to rewrite it keeping its mode"
                                                         if force is False else "")
        raise ReadOnlyTarget(f"{path} is read-only (mode {mode:04o}); it was not rewritten", hint=how)
    return mode


def same_bytes(path: str | os.PathLike, data: bytes) -> bool:
    """True when ``path`` is a regular file holding exactly ``data``."""
    try:
        if os.stat(path).st_size != len(data):
            return False
        with open(path, "rb") as handle:
            return handle.read(len(data) + 1) == data
    except OSError:
        return False


def write_atomic(path: str | os.PathLike, data: bytes, *, mode: int | None = None,
                 force: bool | None = False) -> bool:
    """Write ``data`` to ``path`` atomically; returns False (nothing written) when unchanged.

    Raises :class:`AtomicWriteError` naming the file when a step fails (:func:`write_files_atomic`).
    """
    return write_files_atomic([(path, data)], mode=mode, force=force)[0]


def write_files_atomic(files, *, mode: int | None = None, force: bool | None = False) -> list[bool]:
    """Write several ``(path, bytes)`` pairs, each atomically, renaming them in the given order.

    Every temporary file is written and flushed before the first rename, so the renames
    follow each other closely.  Files whose bytes are unchanged are skipped; the result
    says, per file, whether it was written.  On failure every remaining temporary file
    is removed and :class:`AtomicWriteError` is raised (files already renamed stay).

    An existing file keeps its mode (``mode``, else 0644, is a new file's); a read-only one
    is refused before anything is written (:class:`ReadOnlyTarget`) unless ``force`` is True.
    """
    pending = []  # (temporary path, target path)
    written = []
    try:
        changed: list[tuple[str, bytes, int] | None] = []
        for path, data in files:
            path = os.fspath(path)
            if same_bytes(path, data):
                changed.append(None)
                continue
            current = current_mode(path, force)
            changed.append((path, data, current if current is not None else FILE_MODE if mode is None else mode))
        for item in changed:
            if item is None:
                written.append(False)
                continue
            path, data, file_mode = item
            pending.append((_prepare(path, data, file_mode), path))
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
        import tempfile  # here: validate, search and the hooks load this module and seldom write (shutil, random)

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


def write_output(path: str | os.PathLike, data: bytes, *, append: bool = False, force: bool | None = False) -> None:
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
    if info is not None and append:
        if info.st_size > MAX_APPEND_BYTES:
            raise AtomicWriteError(f"cannot append to {path}: it holds more than {MAX_APPEND_BYTES >> 20} MiB",
                                   hint=f"start from an empty {path}")
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_APPEND_BYTES + 1) + data
        except OSError as exc:
            raise _failure(path, exc) from exc
    # appended to: the runner's files, rewritten as they are set up; a report written anew: refused when read-only
    write_files_atomic([(path, data)], force=True if append else force)
