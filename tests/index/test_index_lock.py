"""index.lock: exclusive, stale takeover, heartbeat, token-checked release (reference §5.7, §10.6)."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone

import pytest

from skillsift.index.lock import LOCK_FILE, IndexLock, IndexLocked, acquire_lock

NOON = datetime(2026, 10, 6, 12, 0, tzinfo=timezone.utc).timestamp()


def at(hour: int, minute: int):
    moment = datetime(2026, 10, 6, hour, minute, tzinfo=timezone.utc).timestamp()
    return lambda: moment


def age(path, seconds_ago: float) -> None:
    then = time.time() - seconds_ago
    os.utime(path, (then, then))


def test_lock_file_content_and_mode(tmp_path):
    lock = acquire_lock(tmp_path / "idx")
    try:
        path = tmp_path / "idx" / LOCK_FILE
        content = path.read_text()
        pid, nanos, host = content.rstrip("\n").split(" ")
        assert content.endswith("\n") and int(pid) == os.getpid() and int(nanos) > 0
        assert host == "".join(socket.gethostname().split())
        assert content == lock.token
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert lock.owned()
    finally:
        lock.release()
    assert not path.exists()


def test_second_lock_is_refused_naming_the_holder_and_the_fix(tmp_path):
    with acquire_lock(tmp_path):
        with pytest.raises(IndexLocked) as info:
            acquire_lock(tmp_path)
    error = info.value
    path = str(tmp_path / LOCK_FILE)
    assert error.holder_pid == os.getpid()
    assert f"pid {os.getpid()}" in error.message and path in error.message
    assert "wait for it to finish" in error.hint and f"remove {path}" in error.hint
    assert error.exit_code == 1
    with acquire_lock(tmp_path):  # released: a new lock works
        pass


def test_holder_in_another_process(tmp_path):
    code = (
        "import sys, time\n"
        "from skillsift.index.lock import acquire_lock\n"
        "lock = acquire_lock(sys.argv[1])\n"
        "print('held', flush=True)\n"
        "sys.stdin.readline()\n"
        "lock.release()\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout.readline().strip() == "held"
        with pytest.raises(IndexLocked, match=f"pid {child.pid}"):
            acquire_lock(tmp_path)
    finally:
        child.stdin.write("\n")
        child.stdin.close()
        child.wait(timeout=10)
    assert child.returncode == 0
    assert not (tmp_path / LOCK_FILE).exists()
    acquire_lock(tmp_path).release()


def test_unreadable_holder_is_reported_as_unknown(tmp_path):
    (tmp_path / LOCK_FILE).write_text("garbage")
    with pytest.raises(IndexLocked, match="an unknown process"):
        acquire_lock(tmp_path)


def test_an_hour_old_lock_is_taken_over(tmp_path):
    path = tmp_path / LOCK_FILE
    path.write_text("4242 1\n")
    age(path, 3600)
    lock = acquire_lock(tmp_path)
    try:
        assert path.read_text() == lock.token
    finally:
        lock.release()


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped) on this machine."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    return child.pid


HOST = "".join(socket.gethostname().split())


def test_a_fresh_lock_of_a_dead_pid_on_this_host_is_taken_over(tmp_path):
    path = tmp_path / LOCK_FILE
    pid = dead_pid()
    path.write_text(f"{pid} 1 {HOST}\n")  # mtime: now, so age alone would refuse
    lock = acquire_lock(tmp_path)
    try:
        assert path.read_text() == lock.token
    finally:
        lock.release()


def test_a_fresh_lock_of_a_dead_pid_on_another_host_is_honoured(tmp_path):
    path = tmp_path / LOCK_FILE
    path.write_text(f"{dead_pid()} 1 {HOST}-elsewhere\n")
    with pytest.raises(IndexLocked):
        acquire_lock(tmp_path)


def test_a_fresh_lock_of_a_running_pid_on_this_host_is_honoured(tmp_path):
    path = tmp_path / LOCK_FILE
    path.write_text(f"{os.getppid()} 1 {HOST}\n")
    with pytest.raises(IndexLocked, match=f"pid {os.getppid()}"):
        acquire_lock(tmp_path)


def test_a_lock_stamped_in_the_future_is_no_heartbeat(tmp_path):
    path = tmp_path / LOCK_FILE
    path.write_text("4242 1\n")
    later = NOON + 3600
    os.utime(path, (later, later))
    lock = acquire_lock(tmp_path, clock=at(12, 0))
    try:
        assert path.read_text() == lock.token
    finally:
        lock.release()


def test_a_lock_a_few_seconds_ahead_is_still_live(tmp_path):
    path = tmp_path / LOCK_FILE
    path.write_text("4242 1\n")
    os.utime(path, (NOON + 30, NOON + 30))
    with pytest.raises(IndexLocked):
        acquire_lock(tmp_path, clock=at(12, 0))


def test_injected_clock_decides_staleness(tmp_path):
    path = tmp_path / LOCK_FILE
    path.write_text("4242 1\n")
    os.utime(path, (NOON, NOON))
    with pytest.raises(IndexLocked, match="pid 4242"):
        acquire_lock(tmp_path, clock=at(12, 5))
    assert path.read_text() == "4242 1\n"
    lock = acquire_lock(tmp_path, clock=at(12, 11))
    try:
        assert path.read_text() == lock.token
    finally:
        lock.release()


def test_exactly_ten_minutes_is_stale(tmp_path):
    path = tmp_path / LOCK_FILE
    path.write_text("4242 1\n")
    os.utime(path, (NOON, NOON))
    with pytest.raises(IndexLocked):
        acquire_lock(tmp_path, clock=at(12, 9))
    acquire_lock(tmp_path, clock=at(12, 10)).release()


def wait_for(condition, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


def test_heartbeat_refreshes_an_aged_lock(tmp_path):
    lock = acquire_lock(tmp_path, heartbeat=0.01)
    path = tmp_path / LOCK_FILE
    try:
        age(path, 3600)
        assert time.time() - path.stat().st_mtime > 3000
        assert wait_for(lambda: time.time() - path.stat().st_mtime < 60)
        with pytest.raises(IndexLocked):
            acquire_lock(tmp_path)
    finally:
        lock.release()


def test_heartbeat_stamps_with_the_injected_clock(tmp_path):
    lock = acquire_lock(tmp_path, clock=at(12, 30), heartbeat=0.01)
    path = tmp_path / LOCK_FILE
    try:
        assert wait_for(lambda: path.stat().st_mtime == at(12, 30)())
    finally:
        lock.release()


def test_heartbeat_leaves_a_file_that_is_no_longer_ours(tmp_path):
    lock = acquire_lock(tmp_path, heartbeat=0.01)
    path = tmp_path / LOCK_FILE
    try:
        path.write_text("99999 7\n")
        age(path, 3600)
        time.sleep(0.1)  # ten heartbeats
        assert time.time() - path.stat().st_mtime > 3000
    finally:
        lock.release()


def test_release_only_removes_its_own_lock_and_twice_is_fine(tmp_path):
    lock = acquire_lock(tmp_path)
    path = tmp_path / LOCK_FILE
    path.write_text("99999 7\n")  # another run took the lock over
    lock.release()
    assert path.read_text() == "99999 7\n"
    lock.release()
    assert path.read_text() == "99999 7\n"
    path.unlink()
    again = acquire_lock(tmp_path)
    again.release()
    again.release()
    assert not path.exists()


def test_a_stale_own_lock_taken_over_in_the_same_process_keeps_the_new_owner(tmp_path):
    clock = at(12, 0)
    first = acquire_lock(tmp_path, clock=clock)
    os.utime(tmp_path / LOCK_FILE, (NOON - 3600, NOON - 3600))
    second = acquire_lock(tmp_path, clock=clock)
    assert first.token != second.token
    first.release()
    assert (tmp_path / LOCK_FILE).read_text() == second.token
    second.release()
    assert not (tmp_path / LOCK_FILE).exists()


def test_context_manager_releases(tmp_path):
    with acquire_lock(tmp_path) as lock:
        assert isinstance(lock, IndexLock) and (tmp_path / LOCK_FILE).exists()
    assert not (tmp_path / LOCK_FILE).exists()


def test_directory_is_created(tmp_path):
    target = tmp_path / "a" / "b"
    with acquire_lock(target):
        assert target.is_dir()


def test_threads_racing_get_exactly_one_lock(tmp_path):
    winners, losers = [], []
    start = threading.Barrier(8)

    def contend():
        start.wait()
        try:
            winners.append(acquire_lock(tmp_path))
        except IndexLocked:
            losers.append(1)

    threads = [threading.Thread(target=contend) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (len(winners), len(losers)) == (1, 7)
    winners[0].release()
