"""The command provider: the protocol of reference §9.5 and every error path."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from skillsift.embed.base import EmbedTimeout, InputRejected, ProviderBroken, ProviderUnavailable
from skillsift.embed.command import MAX_STDOUT, CommandProvider, command_env
from tests.conftest import FIXTURES

SCRIPT = str(FIXTURES / "embed_cmds" / "embedder.py")
BASE_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process-group tests use POSIX signals")


def provider(mode, *args, root=".", env=None, **kwargs):
    return CommandProvider(
        [sys.executable, SCRIPT, mode, *map(str, args)],
        root=root,
        env=BASE_ENV if env is None else env,
        **kwargs,
    )


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


def test_vectors_come_back_normalised_in_order():
    vectors = provider("ok").embed(["a", "bbbb"])
    assert vectors.dtype == np.float32 and vectors.shape == (2, 3)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(vectors[0], np.array([1, 1, 2]) / np.sqrt(6), rtol=1e-6)
    np.testing.assert_allclose(vectors[1], np.array([4, 1, 2]) / np.sqrt(21), rtol=1e-6)


def test_stdin_env_and_working_directory(tmp_path):
    record = tmp_path / "record.json"
    root = tmp_path / "project"
    root.mkdir()
    source = {
        **BASE_ENV,
        "HOME": "/home/someone",
        "OTHER": "must-not-pass",
        "PASSED": "yes",
        "EMPTY_PASSED": "",
        "NOT_LISTED": "no",
    }
    p = provider("record", record, root=root, env=source, pass_env=("PASSED", "EMPTY_PASSED", "UNSET"))
    p.embed(["a", "b"])
    seen = json.loads(record.read_text())
    assert json.loads(seen["stdin"]) == {"input": ["a", "b"]}
    assert '"input": ["a", "b"]' in seen["stdin"]
    env = {k: v for k, v in seen["env"].items() if k not in ("LC_CTYPE", "__CF_USER_TEXT_ENCODING")}
    assert env == {"PATH": BASE_ENV["PATH"], "HOME": "/home/someone", "PASSED": "yes"}
    assert os.path.realpath(seen["cwd"]) == os.path.realpath(root)


def test_windows_base_variables_pass_when_set():
    source = {
        "PATH": BASE_ENV["PATH"],
        "HOME": "/h",
        "SYSTEMROOT": "C:\\Windows",
        "PATHEXT": ".EXE",
        "TEMP": "/tmp",
        "USERPROFILE": "C:\\Users\\me",
        "OTHER": "x",
    }
    assert command_env((), source) == {k: v for k, v in source.items() if k != "OTHER"}


def test_non_zero_exit_reports_redacted_stderr():
    source = {**BASE_ENV, "PASSED_SECRET": "hunter2-very-private"}
    p = provider("fail", env=source, pass_env=("PASSED_SECRET",))
    with pytest.raises(InputRejected) as info:
        p.embed(["a"])
    message = str(info.value)
    assert message.startswith(f"the embedding command {sys.executable} failed: exit status 3: boom")
    assert info.value.rejected is True
    assert "hunter2-very-private" not in message  # passed variable values are redacted
    assert "Q7x9" * 9 not in message and "ghp_" in message  # the token is masked
    assert "ghp_**** (40 characters)" in message


def test_output_that_is_not_json():
    with pytest.raises(InputRejected, match=r'did not print \{"vectors": \[\[\.\.\.\]\]\}'):
        provider("badjson").embed(["a"])


def test_wrong_number_of_vectors():
    with pytest.raises(ProviderBroken, match="the embedding command returned 1 vector for 2 texts") as info:
        provider("count").embed(["a", "b"])
    assert info.value.hard and not info.value.rejected


def test_stdout_over_the_cap():
    with pytest.raises(InputRejected, match="wrote more than 1000 bytes"):
        provider("huge", 5000, max_stdout=1000).embed(["a"])


def test_stdout_over_the_default_64_mib_cap():
    start = time.monotonic()
    with pytest.raises(InputRejected, match=f"wrote more than {MAX_STDOUT} bytes"):
        provider("huge", MAX_STDOUT + 1).embed(["a"])
    assert time.monotonic() - start < 20


def test_nan_and_changed_dims():
    with pytest.raises(ProviderBroken, match="NaN") as info:
        provider("nan").embed(["a"])
    assert info.value.hard and not info.value.rejected
    p = provider("dims", 4)
    assert p.embed(["a"]).shape == (1, 4) and p.dims == 4
    p.argv = (*p.argv[:-1], "5")
    with pytest.raises(ProviderBroken, match="5 dimensions after 4") as info:
        p.embed(["a"])
    assert info.value.hard and info.value.reason == "provider_unavailable"


def test_timeout_kills_the_process_group(tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    p = provider("hang", pidfile, timeout=0.4)
    start = time.monotonic()
    with pytest.raises(EmbedTimeout, match=r"did not finish in 0\.4s") as info:
        p.embed(["a"])
    assert time.monotonic() - start < 6
    assert info.value.reason == "timeout" and not info.value.rejected
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 3
    while alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(grandchild), "the grandchild holding stdout survived the timeout"


def test_exited_program_with_grandchild_holding_stdout_succeeds(tmp_path):
    pidfile = tmp_path / "orphan.pid"
    p = provider("orphan", pidfile, timeout=10)
    start = time.monotonic()
    try:
        vectors = p.embed(["abc", "d"])
        elapsed = time.monotonic() - start
    finally:
        if pidfile.exists():
            try:
                os.kill(int(pidfile.read_text()), signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert vectors.shape == (2, 3)
    assert elapsed < 3, f"waited {elapsed:.1f}s for a grandchild's stdout"


def test_large_input_does_not_deadlock():
    texts = ["x" * 100_000 for _ in range(20)]  # 2 MB on stdin, far beyond a pipe buffer
    assert provider("ok").embed(texts).shape == (20, 3)


def test_fingerprint_leaves_arguments_out():
    p = CommandProvider(["/opt/embed", "--secret-flag"], env=BASE_ENV)
    assert p.fingerprint == "command:/opt/embed"
    assert "--secret-flag" not in repr(p)
    assert p.networked is False and p.external is True


@pytest.mark.parametrize("argv", [[], [" "], None])
def test_empty_command(argv):
    with pytest.raises(ProviderUnavailable, match="the embedding command is empty"):
        CommandProvider(argv)


def test_missing_program_is_unavailable_not_a_rejection(tmp_path):
    p = CommandProvider([str(tmp_path / "no-such-program")], env=BASE_ENV)
    with pytest.raises(ProviderUnavailable, match="could not be started") as info:
        p.embed(["a"])
    assert info.value.rejected is False


def test_no_texts_no_run(tmp_path):
    p = CommandProvider([str(tmp_path / "no-such-program")], env=BASE_ENV)
    assert p.embed([]).shape[0] == 0


def test_a_trickling_program_is_cut_off_at_the_timeout():
    # one byte of output every 0.5 s: the timeout bounds the whole run, not each read
    trickle = "import sys, time\nfor _ in range(200):\n    sys.stdout.write(' '); sys.stdout.flush(); time.sleep(0.5)\n"
    p = CommandProvider([sys.executable, "-c", trickle], env=BASE_ENV, timeout=1.0)
    start = time.monotonic()
    with pytest.raises(EmbedTimeout, match=r"did not finish in 1s"):
        p.embed(["a"])
    assert time.monotonic() - start < 8
