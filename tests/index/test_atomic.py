"""Atomic file writes and their failure modes (reference §5.6 write rules, §10.6 atomic item)."""

from __future__ import annotations

import os
import stat
import tempfile

import pytest

from skillsift.index import atomic
from skillsift.index.atomic import AtomicWriteError, write_atomic
from skillsift.index.manifest import ManifestItem
from skillsift.index.store import load_index, new_index, write_index


def leftovers(directory) -> list[str]:
    return sorted(name for name in os.listdir(directory) if ".tmp-" in name)


def test_writes_the_bytes_with_mode_0644(tmp_path):
    target = tmp_path / "file.bin"
    assert write_atomic(target, b"abc") is True
    assert target.read_bytes() == b"abc"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert leftovers(tmp_path) == []


def test_unchanged_bytes_are_not_written(tmp_path):
    target = tmp_path / "file.bin"
    write_atomic(target, b"abc")
    os.utime(target, (1_000_000, 1_000_000))
    before = target.stat()
    assert write_atomic(target, b"abc") is False
    after = target.stat()
    assert (after.st_ino, after.st_mtime) == (before.st_ino, 1_000_000)


def test_changed_bytes_replace_the_file(tmp_path):
    target = tmp_path / "file.bin"
    write_atomic(target, b"abc")
    assert write_atomic(target, b"abd") is True
    assert target.read_bytes() == b"abd"
    assert write_atomic(target, b"ab") is True  # same prefix, shorter
    assert target.read_bytes() == b"ab"
    assert write_atomic(target, b"") is True
    assert target.read_bytes() == b""
    assert leftovers(tmp_path) == []


def test_target_is_a_directory(tmp_path):
    target = tmp_path / "manifest.json"
    target.mkdir()
    with pytest.raises(AtomicWriteError) as info:
        write_atomic(target, b"{}")
    assert str(target) in info.value.message
    assert "not a directory" in info.value.hint
    assert leftovers(tmp_path) == []
    assert target.is_dir()


def test_missing_directory(tmp_path):
    with pytest.raises(AtomicWriteError, match="cannot write"):
        write_atomic(tmp_path / "absent" / "file.bin", b"x")
    assert not (tmp_path / "absent").exists()


def test_failure_mid_write_keeps_the_old_bytes(tmp_path, monkeypatch):
    target = tmp_path / "file.bin"
    write_atomic(target, b"old")

    def failing_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", failing_fsync)
    with pytest.raises(AtomicWriteError, match="No space left on device"):
        write_atomic(target, b"new")
    assert target.read_bytes() == b"old"
    assert leftovers(tmp_path) == []


def test_index_write_fails_cleanly_when_the_manifest_path_is_a_directory(tmp_path):
    index = new_index(provider="p", model="m", items=[ManifestItem("a")], vectors=[[1.0, 0.0]])
    (tmp_path / "manifest.json").mkdir()
    with pytest.raises(AtomicWriteError, match="manifest.json"):
        write_index(tmp_path, index)
    assert leftovers(tmp_path) == []
    assert (tmp_path / "manifest.json").is_dir()


def test_a_failed_manifest_write_leaves_the_previous_index_loadable(tmp_path, monkeypatch):
    old = new_index(provider="p", model="m", items=[ManifestItem("a")], vectors=[[1.0, 0.0]])
    write_index(tmp_path, old)
    new = new_index(provider="p", model="m", items=[ManifestItem("a")], vectors=[[0.0, 1.0]])
    real_replace = os.replace

    def failing_on_manifest(src, dst):
        if str(dst).endswith("manifest.json"):
            raise OSError(5, "Input/output error")
        return real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", failing_on_manifest)
    with pytest.raises(AtomicWriteError):
        write_index(tmp_path, new)
    assert leftovers(tmp_path) == []
    # vectors.bin was replaced first, so the old manifest no longer matches it: "no index", never a crash
    result = load_index(tmp_path)
    assert result.index is None and "vectors_digest" in result.reason


def test_several_files_are_all_prepared_before_the_first_rename(tmp_path, monkeypatch):
    events = []
    real_mkstemp, real_replace = tempfile.mkstemp, atomic.os.replace

    def mkstemp(*args, **kwargs):
        events.append(("prepare", kwargs["prefix"].split(".tmp-")[0]))
        return real_mkstemp(*args, **kwargs)

    def replace(src, dst):
        events.append(("rename", os.path.basename(dst)))
        return real_replace(src, dst)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(atomic.os, "replace", replace)
    (tmp_path / "same").write_bytes(b"s")
    files = [(tmp_path / "one", b"1"), (tmp_path / "same", b"s"), (tmp_path / "two", b"2")]
    written = atomic.write_files_atomic(files)
    assert written == [True, False, True]
    assert events == [("prepare", "one"), ("prepare", "two"), ("rename", "one"), ("rename", "two")]


def test_a_failure_preparing_the_manifest_keeps_the_previous_index(tmp_path, monkeypatch):
    old = new_index(provider="p", model="m", items=[ManifestItem("a")], vectors=[[1.0, 0.0]])
    write_index(tmp_path, old)
    before = {name: (tmp_path / name).read_bytes() for name in ("manifest.json", "vectors.bin")}
    new = new_index(provider="p", model="m", items=[ManifestItem("a")], vectors=[[0.0, 1.0]])
    real_mkstemp = tempfile.mkstemp

    def full_disk_for_the_manifest(*args, **kwargs):
        if kwargs["prefix"].startswith("manifest.json"):
            raise OSError(28, "No space left on device")
        return real_mkstemp(*args, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", full_disk_for_the_manifest)
    with pytest.raises(AtomicWriteError, match="manifest.json: No space left on device"):
        write_index(tmp_path, new)
    assert leftovers(tmp_path) == []
    assert {name: (tmp_path / name).read_bytes() for name in before} == before
    assert load_index(tmp_path).index.matrix.tolist() == [[1.0, 0.0]]


def test_importing_the_writer_loads_no_tempfile():
    """validate, search and the hooks load this module and seldom write: tempfile (shutil, random, bz2, lzma)
    is imported by the first write only."""
    import subprocess
    import sys

    code = "import sys, skillsift.index.atomic; print('tempfile' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
