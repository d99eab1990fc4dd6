"""``index.lock``: one index build at a time per index directory.

The lock is a file created exclusively (mode 0600) holding ``"<pid> <unix-nanos>\\n"``,
this run's token.  A lock whose modification time is less than ten minutes old (by the
injected clock) refuses a second build; an older one belongs to a dead run and is
removed and taken over.  While held, a heartbeat thread refreshes the modification time
every two minutes as long as the file still holds this run's token, so a long build is
never mistaken for a dead one.  Release removes the file only if it still holds this
run's token, and may be called any number of times.
"""

from __future__ import annotations

import os
import threading
import time

from ..diagnostics import SkillsiftError

LOCK_FILE = "index.lock"
STALE_AFTER = 10 * 60.0  # seconds without a heartbeat after which a lock is a dead run's
HEARTBEAT = STALE_AFTER / 5  # seconds between two refreshes of a held lock

_token_guard = threading.Lock()
_last_nanos = 0


class IndexLocked(SkillsiftError):
    """Another build holds the index directory's lock."""

    def __init__(self, path: str, holder_pid: int | None):
        who = f"pid {holder_pid}" if holder_pid is not None else "an unknown process"
        super().__init__(
            f"another 'skillsift index' run ({who}) holds {path}",
            hint=f"wait for it to finish, or remove {path} if no build is running",
        )
        self.path = path
        self.holder_pid = holder_pid


class LockError(SkillsiftError):
    """The lock file could not be created (permissions, a missing disk...)."""


def _new_token() -> str:
    """``"<pid> <unix-nanos>\\n"``, unique within this process even on a coarse clock."""
    global _last_nanos
    with _token_guard:
        _last_nanos = max(time.time_ns(), _last_nanos + 1)
        return f"{os.getpid()} {_last_nanos}\n"


def read_holder(path: str) -> int | None:
    """The pid written in a lock file, or None when the file is unreadable or malformed."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            first = handle.read(64).split()
        return int(first[0]) if first else None
    except (OSError, ValueError):
        return None


class IndexLock:
    """A held ``index.lock``; :meth:`release` (or leaving the ``with`` block) gives it up."""

    def __init__(self, path: str, token: str, clock, heartbeat: float):
        self.path = path
        self.token = token
        self._clock = clock
        self._stop = threading.Event()
        self._released = False
        self._guard = threading.Lock()
        self._thread = threading.Thread(
            target=self._beat, args=(heartbeat,), name="index-lock-heartbeat", daemon=True
        )
        self._thread.start()

    def owned(self) -> bool:
        """True while the lock file still holds this run's token."""
        try:
            with open(self.path, "rb") as handle:
                return handle.read(len(self.token) + 1) == self.token.encode("ascii")
        except OSError:
            return False

    def _beat(self, interval: float) -> None:
        while not self._stop.wait(interval):
            if self.owned():
                now = self._clock()
                try:
                    os.utime(self.path, (now, now))
                except OSError:
                    pass  # the next beat tries again

    def release(self) -> None:
        """Stop the heartbeat and remove the lock file if it is still this run's."""
        with self._guard:
            if self._released:
                return
            self._released = True
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join()
        if self.owned():
            try:
                os.unlink(self.path)
            except OSError:
                pass

    @property
    def released(self) -> bool:
        return self._released

    def __enter__(self) -> IndexLock:
        return self

    def __exit__(self, *exc_info) -> None:
        self.release()


def acquire_lock(
    index_dir: str | os.PathLike,
    *,
    clock=time.time,
    heartbeat: float = HEARTBEAT,
    stale_after: float = STALE_AFTER,
) -> IndexLock:
    """Take ``<index_dir>/index.lock`` (creating the directory 0750 when needed).

    ``clock`` returns the current time in seconds since the epoch; it decides staleness
    and stamps the heartbeat.  Raises :class:`IndexLocked` when a live lock exists and
    :class:`LockError` when the file cannot be created.
    """
    index_dir = os.fspath(index_dir)
    try:
        os.makedirs(index_dir, mode=0o750, exist_ok=True)
    except OSError as exc:
        raise LockError(f"cannot create the index directory {index_dir}: {exc.strerror or exc}") from exc
    path = os.path.join(index_dir, LOCK_FILE)
    token = _new_token()
    for _attempt in range(2):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            try:
                age = clock() - os.stat(path).st_mtime
            except OSError:
                continue  # gone meanwhile: try again
            if age < stale_after:
                raise IndexLocked(path, read_holder(path)) from None
            try:
                os.unlink(path)  # a dead run's lock
            except OSError:
                pass
            continue
        except OSError as exc:
            raise LockError(f"cannot create {path}: {exc.strerror or exc}") from exc
        try:
            os.write(fd, token.encode("ascii"))
        finally:
            os.close(fd)
        return IndexLock(path, token, clock, heartbeat)
    raise IndexLocked(path, read_holder(path))
