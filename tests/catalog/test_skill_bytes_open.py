"""``read_skill_bytes`` opens a SKILL.md that is no link without an lstat first, and reads every other
kind of path (links in and out of the folder, dangling links, folders, missing files) as before."""

from __future__ import annotations

import errno
import os
import stat

import pytest

from skillsift import files
from skillsift.files import MAX_SKILL_BYTES, _read_fd, read_skill_bytes, skill_file_problem


def _before(path, max_bytes=MAX_SKILL_BYTES, real_root=None) -> bytes:
    """The reader as it was: an lstat decides between the plain open and the checked one."""
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        plain = not stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        plain = True
    if plain and real_root is None:
        real = os.fspath(path)
    else:
        problem = skill_file_problem(path, real_root)
        if problem is not None:
            raise OSError(errno.EACCES, problem, os.fspath(path))
        real = os.path.realpath(path)
    fd = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | nofollow)
    try:
        return _read_fd(fd, max_bytes, os.fspath(path))
    finally:
        os.close(fd)


def _outcome(read, path, **kwargs):
    try:
        return ("bytes", read(path, **kwargs))
    except OSError as exc:
        return ("error", exc.errno, exc.strerror, exc.filename)


@pytest.fixture
def tree(tmp_path):
    skill = tmp_path / "skill"
    skill.mkdir()
    (skill / "body.md").write_bytes(b"---\nname: x\n---\nbody\n")
    (tmp_path / "outside.md").write_bytes(b"outside")
    names = {}
    names["plain"] = skill / "SKILL.md"
    names["plain"].write_bytes("---\nname: \u00e9\n---\n".encode())
    names["big"] = skill / "big.md"
    names["big"].write_bytes(b"x" * 50)
    names["inside_link"] = skill / "in.md"
    names["inside_link"].symlink_to("body.md")
    names["outside_link"] = skill / "out.md"
    names["outside_link"].symlink_to("../outside.md")
    names["dangling"] = skill / "dangling.md"
    names["dangling"].symlink_to("nothing.md")
    names["loop"] = skill / "loop.md"
    names["loop"].symlink_to("loop.md")
    names["missing"] = skill / "missing.md"
    names["folder"] = skill
    names["under_a_file"] = skill / "body.md" / "SKILL.md"
    return tmp_path, names


@pytest.mark.parametrize("name", ["plain", "big", "inside_link", "outside_link", "dangling", "loop", "missing",
                                  "folder", "under_a_file"])
@pytest.mark.parametrize("as_string", [True, False])
def test_every_kind_of_path_reads_as_before(tree, name, as_string):
    root, names = tree
    path = str(names[name]) if as_string else names[name]
    for kwargs in ({}, {"max_bytes": 10}, {"real_root": os.path.realpath(root)}):
        assert _outcome(read_skill_bytes, path, **kwargs) == _outcome(_before, path, **kwargs), kwargs


@pytest.mark.skipif(not getattr(os, "O_NOFOLLOW", 0), reason="without O_NOFOLLOW every SKILL.md is lstat'ed first")
def test_a_plain_skill_file_is_opened_without_an_lstat(tree, monkeypatch):
    _root, names = tree
    calls = []
    real_lstat = os.lstat
    monkeypatch.setattr(files.os, "lstat", lambda *a, **k: calls.append(a) or real_lstat(*a, **k))
    assert read_skill_bytes(str(names["plain"])) == "---\nname: \u00e9\n---\n".encode()
    assert calls == []
    assert read_skill_bytes(str(names["inside_link"])) == b"---\nname: x\n---\nbody\n"
    assert calls  # a link takes the checked way


def test_the_workspace_digests_the_bytes_it_read_without_keeping_them(tmp_path):
    import hashlib

    from skillsift.validators.workspace import Workspace

    folder = tmp_path / ".claude" / "skills" / "deploy"
    folder.mkdir(parents=True)
    data = "\ufeff---\r\nname: d\u00e9ploy\r\ndescription: Ship it\r\n---\r\nbody \U0001f600\n".encode()
    (folder / "SKILL.md").write_bytes(data)
    ws = Workspace(str(tmp_path))
    rel = ".claude/skills/deploy/SKILL.md"
    assert ws.read_text(rel) == data.decode("utf-8")
    assert not any(type(v) is bytes for v in vars(ws).values())
    skill, problems = ws.parsed(rel)
    assert problems == [] and skill.name == "d\u00e9ploy"
    assert type(vars(skill)["digest"]) is not str  # not taken yet: no bytes are held for it
    assert skill.digest == "sha256:" + hashlib.sha256(data).hexdigest()
