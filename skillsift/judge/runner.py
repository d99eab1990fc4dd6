"""Calling the judge: one bounded subprocess per prompt, many under a budget, a deadline and ``-j``.

One call (docs/judge.md, "Calls"): the configured argv, no shell, working directory the
repository root, the environment of the embedding command (``PATH``, ``HOME`` and a few system
variables, plus ``[judge] pass_env``), the prompt on stdin as UTF-8, standard output kept up to
:data:`MAX_STDOUT` bytes (more kills the program), standard error up to 4 KiB, and a timeout that
kills the program's whole process group.  Every way a call can fail becomes an
:class:`~skillsift.judge.answer.Answer` with no choice and its reason; nothing here raises.

Many calls: the distinct prompts not in the cache are taken in case order; the first ``budget``
are asked (the rest are reported as not asked), by ``jobs`` threads, each result stored under its
key, so the answers do not depend on ``jobs``.  Past ``deadline`` no new call starts.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..embed.command import (
    _RUNNING,
    _RUNNING_LOCK,
    EXIT_GRACE,
    _exit_text,
    _kill_group,
    _Output,
    _read_stderr,
    _read_stdout,
    _write_stdin,
)
from ..secrets.scan import detect_secret
from ..words import plural
from .answer import Answer, failed, parse_answer

MAX_STDOUT = 1024 * 1024  # bytes of an answer read; more is "too much output"


@dataclass(frozen=True)
class Call:
    key: str
    prompt: str
    names: tuple[str, ...]  # the listing's names: what a valid answer may be


def run_command(argv: Sequence[str], prompt: str, *, root: str, env: dict, timeout: float,
                max_stdout: int = MAX_STDOUT) -> tuple[bytes | None, str]:
    """``(stdout, "")`` when the program exited 0, else ``(None, reason)``: one call, bounded in time and size."""
    import os

    name = os.path.basename(argv[0]) if argv else "?"
    kwargs: dict = {"start_new_session": True} if os.name == "posix" else {
        "creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    try:
        proc = subprocess.Popen(list(argv), cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, **kwargs)
    except (OSError, ValueError) as exc:
        return None, f"the judge command {name} could not be started: {getattr(exc, 'strerror', None) or exc}"
    with _RUNNING_LOCK:
        _RUNNING.add(proc)
    try:
        out = _Output(max_stdout)
        threads = [threading.Thread(target=_write_stdin, args=(proc.stdin, prompt.encode("utf-8")), daemon=True),
                   threading.Thread(target=_read_stdout, args=(proc.stdout, out, lambda: _kill_group(proc)),
                                    daemon=True),
                   threading.Thread(target=_read_stderr, args=(proc.stderr, out), daemon=True)]
        for thread in threads:
            thread.start()
        try:
            proc.wait(timeout=max(timeout, 0.001))
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.wait()
            return None, f"timeout: no answer in {timeout:g}s"
        grace_end = time.monotonic() + EXIT_GRACE
        for thread in threads[1:]:
            thread.join(max(0.0, grace_end - time.monotonic()))
        if out.overflow.is_set():
            return None, f"the judge command wrote more than {plural(max_stdout, 'byte')}"
        if proc.returncode != 0:
            with out.lock:
                err = bytes(out.stderr).decode("utf-8", errors="replace").strip().splitlines()
            detail = f": {err[-1][:200]}" if err else ""
            if detail and detect_secret(detail) is not None:  # never repeat a credential the agent printed
                detail = ": (its last line of stderr looks like it holds a secret and is not shown)"
            return None, f"the judge command failed: {_exit_text(proc.returncode)}{detail}"
        return out.snapshot(), ""
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(proc)


def ask_command(argv: Sequence[str], *, root: str, env: dict, timeout: float) -> Callable[[Call, float], Answer]:
    """``ask(call, seconds_left) -> Answer``: one call of ``argv``, its output read strictly."""

    def ask(call: Call, seconds_left: float) -> Answer:
        limit = min(timeout, seconds_left)
        stdout, problem = run_command(argv, call.prompt, root=root, env=env, timeout=limit)
        if stdout is None:
            if problem.startswith("timeout") and limit < timeout:
                problem = f"timeout: --max-seconds reached after {limit:.3g}s of this call"
            return failed(problem)
        return parse_answer(stdout, call.names)

    return ask


@dataclass
class Asked:
    """What a batch of calls did."""

    answers: dict  # key -> Answer, for every call made
    made: int = 0  # calls started
    over_budget: tuple[str, ...] = ()  # keys not asked: the budget was spent
    over_time: tuple[str, ...] = ()  # keys not asked: the deadline passed


def ask_all(calls: Sequence[Call], ask: Callable[[Call, float], Answer], *, jobs: int = 1, budget: int = 0,
            max_seconds: float = 0.0) -> Asked:
    """Ask each call once (the first ``budget`` when it is set), ``jobs`` at a time, none started after
    ``max_seconds`` (0: no limit)."""
    import concurrent.futures

    unique = list({call.key: call for call in calls}.values())
    chosen = unique[:budget] if budget > 0 else unique
    over_budget = tuple(call.key for call in unique[len(chosen):])
    start = time.monotonic()
    answers: dict[str, Answer] = {}
    late: list[str] = []
    lock = threading.Lock()

    def one(call: Call) -> None:
        left = max_seconds - (time.monotonic() - start) if max_seconds > 0 else float("inf")
        if left <= 0:
            with lock:
                late.append(call.key)
            return
        answer = ask(call, left)
        with lock:
            answers[call.key] = answer

    if jobs <= 1:
        for call in chosen:
            one(call)
    else:
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(one, chosen))
    order = {call.key: i for i, call in enumerate(chosen)}
    return Asked(answers=answers, made=len(answers), over_budget=over_budget,
                 over_time=tuple(sorted(late, key=order.__getitem__)))
