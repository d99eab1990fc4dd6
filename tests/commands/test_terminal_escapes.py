"""No control character a repository holds reaches the user's terminal from ``search``, ``eval`` or ``tune``.

A skill folder may be named with an escape sequence (``bad\\x1b[31mred``) and hold text that
is not UTF-8: the catalog then reports the file by its path, and every door prints that
report through its one sanitising printer (render/sanitise.py, ``plain``).  The CLI runs
as a user runs it, in its own process, with stdout and stderr each on a terminal (a
pseudo-terminal in raw mode): click strips colour sequences on a pipe, never on a terminal.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from tests.conftest import write_skill
from tests.support.cli import set_user_config
from tests.support.concept_embedder import user_config

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

# a colour (what click strips on a pipe) and an OSC 8 link ended by BEL (what it does not)
HOSTILE_FOLDERS = ("bad\x1b[31mred", "osc\x1b]8;;https:\x07link")


def hostile_repo(root):
    """Two skills to rank, and two folders named with escape sequences holding non-UTF-8 text."""
    write_skill(root, "issue-refund", "Refund a customer order", triggers=["refund", "money back"])
    write_skill(root, "deploy-staging", "Deploy the service to the staging cluster", triggers=["deploy", "staging"])
    for folder in HOSTILE_FOLDERS:
        path = root / ".claude" / "skills" / folder / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_bytes(b"---\nname: x\xff\xfe\n---\nnot utf-8 \xff\n")
    cases = root / "search-cases.yaml"
    cases.write_text("version: 1\ncases:\n"
                     + "".join(f"  - id: c{i}\n    query: {q}\n    expect: [{s}]\n" for i, (q, s) in enumerate(
                         [("refund my order", "issue-refund"), ("money back please", "issue-refund"),
                          ("deploy to staging", "deploy-staging"), ("staging cluster rollout", "deploy-staging")])),
                     encoding="utf-8")
    return cases


def run_on_terminals(*argv, cwd) -> tuple[int, bytes, bytes]:
    """``python -m skillsift ARGV`` with stdout and stderr each on a raw pseudo-terminal; (code, out, err)."""
    import pty
    import tty

    ends = [pty.openpty() for _ in range(2)]
    for _master, slave in ends:
        tty.setraw(slave)  # no LF -> CR LF: the bytes read are the bytes written
    proc = subprocess.Popen([sys.executable, "-m", "skillsift", *map(str, argv)], cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=ends[0][1], stderr=ends[1][1])
    for _master, slave in ends:
        os.close(slave)
    got: list[list[bytes]] = [[], []]

    def drain(index: int) -> None:
        while True:
            try:
                chunk = os.read(ends[index][0], 65536)
            except OSError:  # EIO: the process closed its end
                return
            if not chunk:
                return
            got[index].append(chunk)

    readers = [threading.Thread(target=drain, args=(i,)) for i in range(2)]
    for reader in readers:
        reader.start()
    code = proc.wait(timeout=300)
    for reader in readers:
        reader.join(timeout=60)
    for master, _slave in ends:
        os.close(master)
    return code, b"".join(got[0]), b"".join(got[1])


def assert_no_raw_control(data: bytes) -> None:
    text = data.decode("utf-8")
    bad = sorted({c for c in text if (ord(c) < 32 and c != "\n") or 0x7f <= ord(c) <= 0x9f})
    assert not bad, f"raw control characters {bad!r} in {text!r}"


def assert_folders_named_escaped(err: bytes) -> None:
    """The catalog's findings still name each folder, its escape sequence shown as text."""
    text = err.decode("utf-8")
    assert "bad\\x1b[31mred/SKILL.md" in text and "SK001" in text, text
    assert "osc\\x1b]8;;https:\\x07link/SKILL.md" in text, text


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_search_prints_no_raw_escape_from_a_folder_name(tmp_path, fmt):
    hostile_repo(tmp_path)
    code, out, err = run_on_terminals("search", "refund", "--root", tmp_path, "--format", fmt, cwd=tmp_path)
    assert code == 0, err
    assert_no_raw_control(out)
    assert_no_raw_control(err)
    assert_folders_named_escaped(err)
    assert b"issue-refund" in out
    if fmt == "json":
        assert json.loads(out)["results"][0]["name"] == "issue-refund"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_eval_prints_no_raw_escape_from_a_folder_name(tmp_path, fmt):
    cases = hostile_repo(tmp_path)
    code, out, err = run_on_terminals("eval", cases, "--root", tmp_path, "--format", fmt, cwd=tmp_path)
    assert code == 0, err
    assert_no_raw_control(out)
    assert_no_raw_control(err)
    assert_folders_named_escaped(err)
    if fmt == "json":
        assert json.loads(out)["n"] == 4


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_tune_prints_no_raw_escape_from_a_folder_name(tmp_path, fmt):
    cases = hostile_repo(tmp_path)
    set_user_config(user_config())  # a command provider: no model to load
    code, out, err = run_on_terminals("tune", cases, "--root", tmp_path, "--folds", "2", "--format", fmt,
                                      cwd=tmp_path)
    assert code == 0, err
    assert_no_raw_control(out)
    assert_no_raw_control(err)
    assert_folders_named_escaped(err)
    if fmt == "json":
        assert json.loads(out)["schema_version"] == 1
