"""A skill folder changed between the walk that listed it and the reads of its files: a file swapped for a
link or a FIFO, a folder swapped for a link to a folder outside the repository.  What was listed as a
regular file is read only as that file; nothing is followed out of the repository, nothing waited for."""

from __future__ import annotations

import os

import pytest

from skillsift import files
from skillsift.files import read_bounded, read_head
from skillsift.validators.workspace import Workspace

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink") or not hasattr(os, "mkfifo") or os.name != "posix",
                                reason="symlinks, FIFOs and listings' inode numbers are POSIX")

SKILL = "---\nname: one\ndescription: Does one thing.\n---\nBody.\n"


def _repo(tmp_path):
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (outside / "scripts").mkdir(parents=True)
    (outside / "secret.txt").write_text("TOKEN=outside\n", encoding="utf-8")
    (outside / "scripts" / "run.sh").write_text("TOKEN=outside\n", encoding="utf-8")
    folder = root / "skills" / "one"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (folder / "notes.txt").write_text("inside\n", encoding="utf-8")
    (folder / "tool.bin").write_bytes(b"\x7fELF....")
    (folder / "scripts" / "run.sh").write_text("echo inside\n", encoding="utf-8")
    ws = Workspace(root)
    assert ws.skill_folder_files("skills/one/SKILL.md") == [
        "skills/one/notes.txt", "skills/one/scripts/run.sh", "skills/one/tool.bin"]
    return ws, folder, outside


def test_files_read_as_listed_when_nothing_changed(tmp_path):
    ws, _folder, _outside = _repo(tmp_path)
    assert ws.read_text("skills/one/notes.txt") == "inside\n"
    assert ws.read_text("skills/one/scripts/run.sh") == "echo inside\n"
    assert read_head(ws.abspath("skills/one/tool.bin"), 4) == b"\x7fELF"


def test_a_file_swapped_for_a_link_after_the_listing_is_not_followed(tmp_path):
    ws, folder, outside = _repo(tmp_path)
    (folder / "notes.txt").unlink()
    os.symlink(outside / "secret.txt", folder / "notes.txt")
    assert ws.read_text("skills/one/notes.txt") is None
    (folder / "tool.bin").unlink()
    os.symlink(outside / "secret.txt", folder / "tool.bin")
    assert read_head(ws.abspath("skills/one/tool.bin"), 4) == b""


def test_a_file_swapped_for_a_fifo_after_the_listing_is_not_waited_for(tmp_path):
    ws, folder, _outside = _repo(tmp_path)
    for name in ("notes.txt", "tool.bin"):
        (folder / name).unlink()
        os.mkfifo(folder / name)
    assert ws.read_text("skills/one/notes.txt") is None  # returns at once: opened without blocking
    assert read_head(ws.abspath("skills/one/tool.bin"), 4) == b""


def test_a_folder_swapped_for_a_link_outside_after_the_listing_is_not_read_through(tmp_path):
    ws, folder, _outside = _repo(tmp_path)
    (folder / "scripts" / "run.sh").unlink()
    (folder / "scripts").rmdir()
    os.symlink(tmp_path / "outside" / "scripts", folder / "scripts", target_is_directory=True)
    assert ws.read_text("skills/one/scripts/run.sh") is None  # not the file listed, and outside the root


def test_a_file_numbered_otherwise_than_listed_is_read_when_it_lies_inside(tmp_path):
    """A file system whose listing gives other inode numbers than fstat: the file is read once its real
    path is known to lie inside the root (and only then)."""
    ws, folder, _outside = _repo(tmp_path)
    ws.folders._inodes = {rel: inode + 1 for rel, inode in ws.folders._inodes.items()}
    assert ws.read_text("skills/one/notes.txt") == "inside\n"
    (folder / "scripts" / "run.sh").unlink()
    (folder / "scripts").rmdir()
    os.symlink(tmp_path / "outside" / "scripts", folder / "scripts", target_is_directory=True)
    assert ws.read_text("skills/one/scripts/run.sh") is None


def test_the_reader_refuses_a_file_that_is_not_the_one_listed(tmp_path):
    path = tmp_path / "f"
    path.write_text("x", encoding="utf-8")
    inode = os.stat(path).st_ino
    assert read_bounded(path, 10, inode=inode) == b"x"
    with pytest.raises(OSError) as caught:
        read_bounded(path, 10, inode=inode + 1)
    assert caught.value.errno == files.NOT_LISTED
    os.symlink(path, tmp_path / "link")
    with pytest.raises(OSError):
        read_bounded(tmp_path / "link", 10, inode=inode)  # a link: not followed
    assert read_bounded(tmp_path / "link", 10) == b"x"  # (a file the walk did not list: followed as before)
