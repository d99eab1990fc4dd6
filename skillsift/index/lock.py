"""``index.lock``: one index build at a time per index directory.

The lock is a file created exclusively (mode 0600) holding ``"<pid> <unix-nanos> <host>\\n"``,
this run's token.  An existing lock is taken over (removed and created anew) when its
holder is provably gone: it names this host and its pid is no longer running (a build
killed with SIGKILL).  Otherwise a lock whose modification time is less than ten minutes
old (by the injected clock) refuses a second build and an older one belongs to a dead run
and is taken over; a modification time more than a minute in the future is no heartbeat
(nothing could have stamped it) and counts as stale.  While held, a heartbeat thread refreshes the modification time
every two minutes as long as the file still holds this run's token, so a long build is
never mistaken for a dead one.  Release removes the file only if it still holds this
run's token, and may be called any number of times.
"""

from __future__ import annotations

import os
import socket
import threading
import time

from ..diagnostics import SkillsiftError

LOCK_FILE = "index.lock"
STALE_AFTER = 10 * 60.0  # seconds without a heartbeat after which a lock is a dead run's
HEARTBEAT = STALE_AFTER / 5  # seconds between two refreshes of a held lock
FUTURE_SLACK = 60.0  # seconds a lock's mtime may be ahead of the clock (another host's clock)

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


def _host() -> str:
    """This machine's name as a lock records it (no spaces), "" when unknown."""
    try:
        return "".join(socket.gethostname().split())[:200]
    except OSError:
        return ""


def _new_token() -> str:
    """``"<pid> <unix-nanos> <host>\\n"``, unique within this process even on a coarse clock."""
    global _last_nanos
    with _token_guard:
        _last_nanos = max(time.time_ns(), _last_nanos + 1)
        host = _host()
        return f"{os.getpid()} {_last_nanos} {host}\n" if host else f"{os.getpid()} {_last_nanos}\n"


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(512)
    except OSError:
        return None


def _fields(content: bytes | None) -> list[str]:
    return content.decode("utf-8", errors="replace").split() if content else []


def read_holder(path: str) -> int | None:
    """The pid written in a lock file, or None when the file is unreadable or malformed."""
    fields = _fields(_read(path))
    try:
        return int(fields[0]) if fields else None
    except ValueError:
        return None


def _pid_running(pid: int) -> bool:
    """False only when no process ``pid`` exists on this machine (a permission error means one does)."""
    if pid <= 0:
        return True  # 0 and negatives name process groups: nothing is proved
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True
    return True


def holder_gone(content: bytes | None) -> bool:
    """True when a lock's content names this host and a pid that is not running.

    A lock written by another host, or in the older two-field form, proves nothing: it is
    judged by its age alone.
    """
    fields = _fields(content)
    if len(fields) < 3 or not fields[0].isdigit():
        return False
    host = _host()
    if not host or fields[2] != host:
        return False
    pid = int(fields[0])
    return pid != os.getpid() and not _pid_running(pid)


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
            content = _read(path)
            try:
                age = clock() - os.stat(path).st_mtime
            except OSError:
                continue  # gone meanwhile: try again
            live = -FUTURE_SLACK <= age < stale_after
            if live and not holder_gone(content):
                raise IndexLocked(path, read_holder(path)) from None
            if _read(path) != content:
                continue  # another run took it over meanwhile: look again
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
