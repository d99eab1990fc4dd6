"""One daemon thread that stops model runs at their deadline (a query's ``query_timeout_ms``).

The local model embeds a query on the calling thread and hands onnxruntime a ``RunOptions``;
the watchdog sets its ``terminate`` flag when the deadline passes, and onnxruntime ends the
run between two operators (docs/local-model.md, "Threads").
"""

from __future__ import annotations

import threading
import time
from typing import Any


class Watchdog:
    """One daemon thread setting ``terminate`` on the run options whose deadline has passed.

    Arming costs no wake-up while the thread already waits for an earlier deadline (the
    common case: queries a few milliseconds apart under the same limit).
    """

    def __init__(self):
        self._cond = threading.Condition()
        self._armed: dict[int, tuple[float, Any]] = {}  # id(options) -> (deadline, options)
        self._until = float("inf")  # the deadline the thread waits for
        threading.Thread(target=self._loop, name="skillsift-query-deadline", daemon=True).start()

    def arm(self, deadline: float, options) -> None:
        with self._cond:
            self._armed[id(options)] = (deadline, options)
            if deadline < self._until:
                self._cond.notify()

    def disarm(self, options) -> None:
        with self._cond:
            self._armed.pop(id(options), None)

    def _loop(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                for key, (deadline, options) in list(self._armed.items()):
                    if deadline <= now:
                        options.terminate = True
                        del self._armed[key]
                self._until = min((d for d, _ in self._armed.values()), default=float("inf"))
                self._cond.wait(None if self._until == float("inf") else self._until - now)


_WATCHDOG: list[Watchdog] = []
_LOCK = threading.Lock()


def run_watchdog() -> Watchdog:
    with _LOCK:
        if not _WATCHDOG:
            _WATCHDOG.append(Watchdog())
        return _WATCHDOG[0]

