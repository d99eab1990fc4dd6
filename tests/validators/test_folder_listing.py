"""The listing of a skill's folder, walked once and shared: what it answers for the file system
(``Workspace.is_file``, ``exists``, ``lexists``) against :mod:`os.path` asking it, on random folders
holding links (inside, to a folder outside the repository, dangling), a FIFO, skipped and too-deep
folders, names in another case or Unicode form."""

from __future__ import annotations

import os
import random
import unicodedata

import pytest

from skillsift.validators import folders as folders_module
from skillsift.validators.workspace import Workspace

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink") or not hasattr(os, "mkfifo"),
                                reason="symlinks and FIFOs are POSIX")

SKILL = "---\nname: {name}\ndescription: Does {name}.\n---\nRun scripts/run.sh.\n"
NAMES = ("run.sh", "README.md", "notes.txt", "Caf\u00e9.md", "data.json", "x")


def _skill(folder, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(SKILL.format(name=name), encoding="utf-8")


def _fill(folder, rng: random.Random, outside, depth: int = 0) -> None:
    for name in rng.sample(NAMES, rng.randrange(0, 4)):
        if rng.random() < 0.3 and not name.isascii():
            name = unicodedata.normalize("NFD", name)  # a name written in the other Unicode form
        (folder / name).write_text("text\n", encoding="utf-8")
    roll = rng.random()
    if roll < 0.15:
        os.symlink(outside, folder / "out", target_is_directory=True)  # a link to a folder outside
    elif roll < 0.3:
        os.symlink(folder / "missing", folder / "dangling")
    elif roll < 0.4:
        os.mkfifo(folder / "pipe.md")
    elif roll < 0.5:
        os.symlink("README.md", folder / "alias.md")
    if rng.random() < 0.2:
        (folder / "Run.sh").write_text("other case\n", encoding="utf-8")
    if rng.random() < 0.2:
        (folder / "node_modules" / "pkg").mkdir(parents=True)
        (folder / "node_modules" / "pkg" / "index.js").write_text("x\n", encoding="utf-8")
    if depth < 7 and rng.random() < 0.6:
        sub = folder / rng.choice(("scripts", "references", "a"))
        sub.mkdir(exist_ok=True)
        _fill(sub, rng, outside, depth + 1)
    if depth == 1 and rng.random() < 0.15:
        _skill(folder / "inner", "inner")  # a skill inside a skill's folder


def _tree(tmp_path, rng: random.Random):
    root, outside = tmp_path / "repo", tmp_path / "outside"
    (outside / "scripts").mkdir(parents=True)
    (outside / "secret.txt").write_text("TOKEN=outside\n", encoding="utf-8")
    (outside / "scripts" / "run.sh").write_text("echo\n", encoding="utf-8")
    skills = []
    for i in range(rng.randrange(1, 5)):
        folder = root / ".claude" / "skills" / f"s{i}"
        _skill(folder, f"s{i}")
        _fill(folder, rng, outside)
        skills.append(f".claude/skills/s{i}/SKILL.md")
    if rng.random() < 0.3:
        os.symlink(outside, root / ".claude" / "skills" / "s0" / "linked-in", target_is_directory=True)
    return root, skills


def _queries(root, skills) -> list[str]:
    """Every path the tree holds (links not followed) and paths near them that it does not."""
    out = set()
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        for name in dirs + files:
            path = name if rel == "." else f"{rel}/{name}"
            out.update({path, f"{path}/x", f"{path}/scripts/run.sh", f"{path}/secret.txt", path.upper(),
                        unicodedata.normalize("NFC", path), f"{path}/", f"{path}/../{name}", f"{path}//x"})
    for skill in skills:
        base = skill.rsplit("/", 1)[0]
        out.update(f"{base}/{tail}" for tail in ("missing.py", "scripts/missing.sh", "run.sh", "Run.sh", "RUN.SH",
                                                 "out/secret.txt", "out/scripts/run.sh", "dangling", "pipe.md",
                                                 "./run.sh", "a/a/a/a/a/a/a/x", "../s0/run.sh"))
    return sorted(out)


@pytest.mark.parametrize("seed", range(16))
def test_listing_answers_what_the_file_system_answers(tmp_path, monkeypatch, seed):
    rng = random.Random(seed)
    cut = rng.random() < 0.3
    if cut:
        monkeypatch.setattr(folders_module, "MAX_FOLDER_FILES", rng.randrange(1, 4))  # listings cut short
    if rng.random() < 0.3:
        monkeypatch.setattr(folders_module, "MAX_FOLDER_DEPTH", rng.randrange(1, 3))
    root, skills = _tree(tmp_path, rng)
    queries = _queries(root, skills)
    ws = Workspace(root)
    for skill in skills:
        ws.skill_folder_files(skill)  # the walk the folder checks share
    assert cut or ws.folders._listings  # the walks listed something, so the answers below come from it where they can
    for rel in queries:
        full = os.path.join(root, rel)
        assert ws.lexists(rel, skills[0]) == os.path.lexists(full), rel
        assert ws.is_file(rel) == os.path.isfile(full), rel
        assert ws.exists(rel) == os.path.exists(full), rel


def test_a_listed_folder_answers_without_a_system_call(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    folder = root / "skills" / "one"
    _skill(folder, "one")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "run.sh").write_text("echo\n", encoding="utf-8")
    os.symlink(tmp_path, folder / "out", target_is_directory=True)
    ws = Workspace(root)
    assert ws.skill_folder_files("skills/one/SKILL.md") == ["skills/one/scripts/run.sh"]
    asked: list[str] = []
    for name in ("stat", "lstat"):
        real = getattr(os, name)
        monkeypatch.setattr(os, name, lambda path, *a, real=real, **k: asked.append(path) or real(path, *a, **k))
    assert ws.is_file("skills/one/scripts/run.sh") and not ws.is_file("skills/one/scripts")
    assert not ws.is_file("skills/one/missing.py") and not ws.exists("skills/one/nothing/run.sh")
    assert not ws.lexists("skills/one/SKILL.md/x") and ws.lexists("skills/one/out")
    assert asked == []
    assert not ws.is_file("skills/one/out/secret")  # through a link: the file system is asked
    assert asked and asked[-1].endswith("skills/one/out/secret")


def _linked_by_realpath(ws, folder: str) -> bool:
    """The answer SK108 took before discovery told it: a realpath of the folder against the root's."""
    absolute = os.path.abspath(ws.abspath(folder))
    return os.path.realpath(absolute) != os.path.join(os.path.realpath(ws.root), os.path.relpath(absolute, ws.root))


@pytest.mark.parametrize("seed", range(8))
def test_folder_linked_from_discovery_is_the_realpath_answer(tmp_path, seed):
    rng = random.Random(seed)
    root = tmp_path / "repo"
    for i in range(3):
        _skill(root / "skills" / f"s{i}", f"s{i}")
        _skill(root / "store" / f"t{i}", f"t{i}")
    (root / ".claude").mkdir()
    if rng.random() < 0.5:
        os.symlink(root / "store", root / ".claude" / "skills", target_is_directory=True)  # a linked skills root
    else:
        (root / ".claude" / "skills").mkdir()
        os.symlink(root / "store" / "t0", root / ".claude" / "skills" / "t0", target_is_directory=True)
    if rng.random() < 0.5:  # a SKILL.md that links to a file of its own folder
        (root / "skills" / "s1" / "SKILL.md").rename(root / "skills" / "s1" / "real.md")
        os.symlink("real.md", root / "skills" / "s1" / "SKILL.md")
    ws = Workspace(root)
    folders = [path.rsplit("/", 1)[0] for path in ws.skill_paths]
    assert folders and any(not ws.folder_linked(f) for f in folders) and any(ws.folder_linked(f) for f in folders)
    for folder in folders:
        assert ws.folder_linked(folder) == _linked_by_realpath(ws, folder), folder
