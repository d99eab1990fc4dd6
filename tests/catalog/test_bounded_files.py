"""What a repository can plant where a SKILL.md is expected: a FIFO, a huge file, a loop of links."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from skillsift.catalog.load import load_catalog
from skillsift.files import read_bounded
from tests.conftest import write_skill


def test_the_reader_refuses_what_is_not_a_small_regular_file(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        read_bounded(fifo, 100)  # returns at once: opened without blocking
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    with pytest.raises(OSError, match="larger than 100 bytes"):
        read_bounded(big, 100)
    with pytest.raises(OSError, match="not a regular file"):
        read_bounded(tmp_path, 100)
    assert read_bounded(big, 101) == b"x" * 101


def test_the_reader_reads_to_the_end_in_one_call_and_on_when_a_read_stops_short(tmp_path, monkeypatch):
    from skillsift import files

    data = bytes(range(256)) * 40
    path = tmp_path / "f"
    path.write_bytes(data)
    calls: list[int] = []
    read = os.read

    def counted(fd, n):
        calls.append(n)
        return read(fd, n)

    monkeypatch.setattr(files.os, "read", counted)
    assert read_bounded(path, 1 << 20) == data
    assert calls == [len(data) + 1]  # the short read at the size fstat gave is the end: no second read
    calls.clear()
    monkeypatch.setattr(files.os, "read", lambda fd, n: counted(fd, min(n, 1000)))  # a file system's short reads
    assert read_bounded(path, 1 << 20) == data and len(calls) == 11  # short of the size fstat gave: read on
    real_fstat = os.fstat

    def shrunk(fd):  # the file grew after fstat measured it: every byte is read, up to the bound
        info = real_fstat(fd)
        return os.stat_result((info.st_mode, *info[1:6], 100, *info[7:]))

    monkeypatch.setattr(files.os, "read", read)
    monkeypatch.setattr(files.os, "fstat", shrunk)
    assert read_bounded(path, 1 << 20) == data
    with pytest.raises(OSError, match="larger than 5,000 bytes"):
        read_bounded(path, 5000)


def test_a_fifo_or_an_oversized_skill_is_reported_not_waited_for(tmp_path):
    write_skill(tmp_path, "ok", "A fine skill")
    fifo_dir = tmp_path / ".claude/skills/pipe"
    fifo_dir.mkdir(parents=True)
    os.mkfifo(fifo_dir / "SKILL.md")
    huge = tmp_path / ".claude/skills/huge/SKILL.md"
    huge.parent.mkdir(parents=True)
    huge.write_bytes(b"---\nname: huge\ndescription: big\n---\n" + b"x" * (5 << 20))
    # in a subprocess with a timeout: before, the FIFO made every command wait forever
    code = ("import sys; from skillsift.cli import main; "
            f"sys.exit(main(['validate', '--root', {str(tmp_path)!r}, '--format', 'json']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "Traceback" not in proc.stderr
    assert ".claude/skills/pipe/SKILL.md" in proc.stdout and "not a regular file" in proc.stdout
    assert ".claude/skills/huge/SKILL.md" in proc.stdout and "larger than 4,194,304 bytes" in proc.stdout
    assert [s.name for s in load_catalog(tmp_path).skills] == ["ok"]


def test_a_loop_of_links_is_walked_once(tmp_path):
    write_skill(tmp_path, "alpha", "Alpha", layout="skills")
    loop = tmp_path / "skills" / "group"
    loop.mkdir()
    (loop / "back").symlink_to("..")  # skills/group/back -> skills
    (tmp_path / "skills" / "outside").symlink_to("/")
    catalog = load_catalog(tmp_path)
    assert [s.name for s in catalog.skills] == ["alpha"]
    notes = [d.file for d in catalog.diagnostics if d.code == "SK012"]
    assert notes == ["skills/outside"]  # said once, not once per way round the loop


def test_a_fifo_baseline_or_pre_commit_config_does_not_hang(tmp_path):
    from skillsift.diagnostics import SkillsiftError
    from skillsift.evaluate.gates import load_baseline
    from skillsift.hooks._common import sibling_hooks

    os.mkfifo(tmp_path / "baseline.json")
    with pytest.raises(SkillsiftError, match="not a regular file"):
        load_baseline(str(tmp_path / "baseline.json"))
    os.mkfifo(tmp_path / ".pre-commit-config.yaml")
    assert sibling_hooks(str(tmp_path), env={}, run=("pre-commit", "")) == set()


def test_a_file_that_holds_what_fstat_said_is_read_in_one_call(tmp_path, monkeypatch):
    """A read that gives fewer bytes than asked for met the end of the file: no second read to see it;
    a file that grows past what fstat said is still read to its end (and refused past the limit)."""
    import skillsift.files as files

    path = tmp_path / "f"
    reads = []
    real_read = os.read

    def counted(fd, n):
        reads.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(files.os, "read", counted)
    for data in (b"", b"x", b"\xc3\xa9" * 1000):
        path.write_bytes(data)
        reads.clear()
        assert read_bounded(path, 10_000) == data
        assert len(reads) == 1

    real_fstat = os.fstat
    path.write_bytes(b"0123456789")
    monkeypatch.setattr(files.os, "fstat", lambda fd: os.stat_result((*real_fstat(fd)[:6], 4, *real_fstat(fd)[7:])))
    assert read_bounded(path, 10_000) == b"0123456789"  # grew after the fstat: read on to the end
    with pytest.raises(OSError):
        read_bounded(path, 8)
