"""The ``command`` provider: a program the user names turns texts into vectors.

Protocol (one run per batch):

* argv exactly as configured, no shell; working directory = the project root;
* environment = only ``PATH, HOME, SYSTEMROOT, WINDIR, COMSPEC, PATHEXT, TEMP, TMP,
  USERPROFILE`` and the configured ``pass_env`` names, each only when set non-empty;
* stdin ``{"input": ["text", ...]}``; stdout ``{"vectors": [[...], ...]}``, one vector
  per input, in order;
* a timeout (30 s) that kills the program's whole process group, a 64 MiB cap on
  stdout, and stderr kept up to 4 KiB with secrets and passed variable values redacted.

When the program exits, what it printed is used even if a process it started still
holds stdout open (that process is left alone; it is not waited for).

The text leaves skillsift (``external``) but not necessarily the machine, so the
network gate does not apply (``networked`` is False); the index build still withholds
skills holding secrets from it, and only the user config may configure it.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import threading
import time

from ..jsonio import JSONDocumentError, read_json
from ..secrets.scan import redact
from ..words import plural
from .base import EmbedTimeout, InputRejected, ProviderBroken, ProviderUnavailable
from .fingerprint import provider_fingerprint
from .normalise import VectorError, unit_rows

BASE_ENV = ("PATH", "HOME", "SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP", "USERPROFILE")
DEFAULT_TIMEOUT = 30.0
MAX_STDOUT = 64 * 1024 * 1024
STDERR_KEEP = 4096
EXIT_GRACE = 0.5  # seconds to wait for stdout to close once the program has exited
_CHUNK = 1 << 16


# Programs running now: killed (with their process groups) when skillsift exits, so a call
# abandoned at the query time limit does not leave its program behind (docs/embeddings.md).
_RUNNING: set = set()
_RUNNING_LOCK = threading.Lock()


def _kill_running() -> None:
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for proc in running:
        _kill_group(proc)


atexit.register(_kill_running)


def command_env(pass_env=(), source=None) -> dict[str, str]:
    """The environment the program runs with, taken from ``source`` (default: ours)."""
    source = os.environ if source is None else source
    env = {}
    for name in (*BASE_ENV, *pass_env):
        value = source.get(name)
        if value:
            env[name] = value
    return env


class _Output:
    """What the program wrote, collected by reader threads."""

    def __init__(self, cap: int):
        self.cap = cap
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.overflow = threading.Event()
        self.lock = threading.Lock()

    def snapshot(self) -> bytes:
        with self.lock:
            return bytes(self.stdout)


# The reader threads own their pipe objects and close them at the end: a thread may
# outlive the call (a leftover process still holds the pipe), and holding the object
# keeps its descriptor from being closed and reused under the thread.


def _read_stdout(pipe, out: _Output, on_overflow) -> None:
    try:
        while True:
            chunk = os.read(pipe.fileno(), _CHUNK)
            if not chunk:
                return
            with out.lock:
                if len(out.stdout) + len(chunk) > out.cap:
                    out.overflow.set()
                else:
                    out.stdout += chunk
            if out.overflow.is_set():
                on_overflow()
                return
    except OSError:
        return
    finally:
        pipe.close()


def _read_stderr(pipe, out: _Output) -> None:
    try:
        while True:
            chunk = os.read(pipe.fileno(), _CHUNK)
            if not chunk:
                return
            with out.lock:
                room = STDERR_KEEP - len(out.stderr)
                if room > 0:
                    out.stderr += chunk[:room]
    except OSError:
        return
    finally:
        pipe.close()


def _write_stdin(pipe, payload: bytes) -> None:
    try:
        pipe.write(payload)
    except OSError:  # the program exited or closed stdin without reading it all
        pass
    finally:
        try:
            pipe.close()
        except OSError:
            pass


class CommandProvider:
    """Embeddings from a user-configured program speaking JSON over stdin/stdout."""

    networked = False
    external = True
    max_batch = None

    def __init__(
        self,
        argv,
        *,
        root=".",
        pass_env=(),
        model: str = "",
        timeout: float = DEFAULT_TIMEOUT,
        max_stdout: int = MAX_STDOUT,
        env=None,
        dims: int | None = None,
    ):
        argv = tuple(str(a) for a in (argv or ()))
        if not argv or not argv[0].strip():
            raise ProviderUnavailable(
                "the embedding command is empty",
                hint='set [embeddings] command in the user config, e.g. command = ["/opt/embed", "--json"]',
            )
        self.argv = argv
        self.name = argv[0]
        self.fingerprint = provider_fingerprint("command", argv=argv)  # never the arguments
        self.model = model
        self.dims = dims
        self.root = os.fspath(root)
        self.pass_env = tuple(pass_env)
        self.timeout = float(timeout)
        self.max_stdout = int(max_stdout)
        self._source_env = env
        self.last_usage = 0  # a command costs nothing

    def __repr__(self) -> str:  # arguments stay out of logs
        return f"CommandProvider(fingerprint={self.fingerprint!r})"

    def embed(self, texts: list[str]):
        import numpy as np

        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dims or 0), dtype=np.float32)
        payload = json.dumps({"input": texts}, ensure_ascii=False).encode("utf-8")
        stdout = self._run(payload)
        vectors = self._parse(stdout, len(texts))
        if self.dims is None:
            self.dims = int(vectors.shape[1])
        return vectors

    # --- running ------------------------------------------------------------------------
    def _env(self) -> dict[str, str]:
        return command_env(self.pass_env, self._source_env)

    def _run(self, payload: bytes) -> bytes:
        env = self._env()
        kwargs: dict = {}
        if os.name == "posix":
            kwargs["start_new_session"] = True  # its own process group, killed as a whole
        else:  # pragma: no cover - exercised on Windows only
            kwargs["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
        try:
            proc = subprocess.Popen(
                self.argv,
                cwd=self.root,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                **kwargs,
            )
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise ProviderUnavailable(
                f"the embedding command {self.name} could not be started: {reason}",
                hint="check [embeddings] command in the user config",
            ) from None

        with _RUNNING_LOCK:
            _RUNNING.add(proc)
        try:
            return self._collect(proc, payload)
        finally:
            with _RUNNING_LOCK:
                _RUNNING.discard(proc)

    def _collect(self, proc, payload: bytes) -> bytes:
        out = _Output(self.max_stdout)
        threads = [
            threading.Thread(target=_write_stdin, args=(proc.stdin, payload), daemon=True),
            threading.Thread(
                target=_read_stdout, args=(proc.stdout, out, lambda: _kill_group(proc)), daemon=True
            ),
            threading.Thread(target=_read_stderr, args=(proc.stderr, out), daemon=True),
        ]
        for t in threads:
            t.start()
        try:
            proc.wait(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.wait()
            message = f"the embedding command {self.name} did not finish in {self.timeout:g}s"
            raise EmbedTimeout(message) from None
        # The program is gone; give its output a moment to drain, but do not wait for a
        # process it left behind that still holds the pipes.
        grace_end = time.monotonic() + EXIT_GRACE
        for t in threads[1:]:
            t.join(max(0.0, grace_end - time.monotonic()))
        if out.overflow.is_set():
            raise InputRejected(f"the embedding command {self.name} wrote more than {self.max_stdout} bytes")
        if proc.returncode != 0:
            err = _exit_text(proc.returncode)
            detail = self._stderr_text(out)
            message = f"the embedding command {self.name} failed: {err}"
            raise InputRejected(f"{message}: {detail}" if detail else message)
        return out.snapshot()

    def _stderr_text(self, out: _Output) -> str:
        with out.lock:
            raw = bytes(out.stderr[:STDERR_KEEP])
        text = raw.decode("utf-8", errors="replace").strip()
        secrets = [v for name, v in self._env().items() if name in self.pass_env]
        return redact(text, secrets)

    # --- parsing ------------------------------------------------------------------------
    def _parse(self, stdout: bytes, count: int):
        shape = 'did not print {"vectors": [[...]]}'

        try:
            payload = read_json(stdout, source="its output", max_bytes=max(self.max_stdout, MAX_STDOUT))
        except JSONDocumentError as exc:
            if exc.kind in ("constant", "float"):  # NaN, 1e999: an answer that cannot be trusted
                raise ProviderBroken(f"the embedding command {self.name} printed unusable vectors: "
                                    f"{exc.problem}") from None
            if exc.kind not in ("syntax", "encoding"):  # past a limit of the JSON reader: a broken provider
                raise ProviderBroken(f"the embedding command {self.name} printed unusable JSON: "
                                     f"{exc.problem}") from None
            reason = exc.reason if exc.kind == "syntax" else "not UTF-8"
            raise InputRejected(f"the embedding command {self.name} {shape}: {reason}") from None
        vectors = payload.get("vectors") if isinstance(payload, dict) else None
        if not isinstance(vectors, list):
            raise InputRejected(f'the embedding command {self.name} {shape}: no "vectors" list')
        if len(vectors) != count:
            raise ProviderBroken(f"the embedding command returned {plural(len(vectors), 'vector')} "
                                f"for {plural(count, 'text')}")
        if not all(isinstance(v, list) for v in vectors):
            raise InputRejected(f"the embedding command {self.name} {shape}: a vector is not a list")
        try:
            return unit_rows(vectors, dims=self.dims)
        except VectorError as exc:
            if self.dims is not None and "expected" in str(exc):
                raise ProviderBroken(
                    f"the embedding command {self.name} returned vectors of {len(vectors[0])} dimensions "
                    f"after {self.dims}; the model changed"
                ) from None
            message = f"the embedding command {self.name} printed unusable vectors: {exc}"
            if exc.hard:
                raise ProviderBroken(message) from None
            raise InputRejected(message) from None


def _exit_text(code: int) -> str:
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the program and everything in its process group."""
    if os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
            return
        except (ProcessLookupError, PermissionError):
            pass
    try:
        proc.kill()
    except OSError:
        pass
