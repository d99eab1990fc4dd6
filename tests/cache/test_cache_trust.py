"""A user-cache file is trusted only when it and its folders are the user's and not writable by others.

The attack: another user of the machine plants a secret-scan cache entry saying that a
file holding a token is clean.  ``validate`` must still report the token (AR001).
"""

from __future__ import annotations

import json
import os
import stat

import pytest

from skillsift.cli import main

TOKEN = "ghp_" + "Zq8Xw2Lm5Np7Rt1Vb4Yc6Hd9Jf3Kg0Ps2Ua5Ee"

pytestmark = pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")


def make_repo(root):
    skill = root / ".claude" / "skills" / "deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: deploy\ndescription: Deploys the service to staging. Use when the user asks to ship a build.\n"
        f"---\n\n# Deploy\n\nRun the deploy script with the token {TOKEN} set.\n", encoding="utf-8")
    return root


def codes(capsys, root, notes: list | None = None) -> list[str]:
    from skillsift.cache import base

    base._noted = False  # one note per run: each call here is a run
    main(["validate", "--root", str(root), "--format", "json"])
    out, err = capsys.readouterr()
    if notes is not None:
        notes.extend(line for line in err.splitlines() if "the cache" in line and "is ignored" in line)
    return [d["code"] for d in json.loads(out)["diagnostics"]]


def plant_clean_entries(cache_dir) -> os.PathLike:
    """Rewrite every secret-scan entry to "no match", as another user could."""
    (path,) = list((cache_dir / "secrets").iterdir())
    doc = json.loads(path.read_bytes())
    assert doc["entries"] and any(doc["entries"].values())  # the real scan found the token
    doc["entries"] = {key: [] for key in doc["entries"]}
    path.write_text(json.dumps(doc, separators=(",", ":")), encoding="ascii")
    return path


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_private_entry_of_the_user_is_used(tmp_path, cache_dir, capsys):
    root = make_repo(tmp_path / "repo")
    notes: list = []
    assert "AR001" in codes(capsys, root, notes)
    assert notes == []  # a first run (no cache folder yet) is an ordinary miss: nothing to say
    path = plant_clean_entries(cache_dir)
    os.chmod(path, 0o600)
    # The near miss: the user's own 0600 entry is trusted (here, to show it is read, a doctored one).
    assert "AR001" not in codes(capsys, root)


def test_an_entry_writable_by_others_is_never_read_and_is_replaced(tmp_path, cache_dir, capsys):
    root = make_repo(tmp_path / "repo")
    assert "AR001" in codes(capsys, root)
    path = plant_clean_entries(cache_dir)
    os.chmod(path, 0o666)
    notes: list = []
    assert "AR001" in codes(capsys, root, notes)
    assert len(notes) == 1 and str(path) in notes[0]  # said once, naming the file
    # The run's own scan replaced the planted file (never wrote through it): private, and right again.
    assert mode(path) == 0o600
    assert any(json.loads(path.read_bytes())["entries"].values())
    assert "AR001" in codes(capsys, root)


@pytest.mark.parametrize("folder", ["secrets", "."])
def test_an_entry_in_a_group_writable_folder_is_never_read_nor_written(tmp_path, cache_dir, capsys, folder):
    root = make_repo(tmp_path / "repo")
    assert "AR001" in codes(capsys, root)
    path = plant_clean_entries(cache_dir)
    os.chmod(path, 0o600)
    os.chmod(cache_dir / folder, 0o770)
    planted = path.read_bytes()
    notes: list = []
    assert "AR001" in codes(capsys, root, notes)
    assert len(notes) == 1  # once per run, though both the read and the write met it
    assert path.read_bytes() == planted  # nothing written into a folder others can write
    os.chmod(cache_dir / folder, 0o700)
    assert "AR001" not in codes(capsys, root)  # the same file, trusted again once the folder is private


def test_a_linked_cache_file_is_not_followed(tmp_path, cache_dir, capsys):
    root = make_repo(tmp_path / "repo")
    assert "AR001" in codes(capsys, root)
    path = plant_clean_entries(cache_dir)
    elsewhere = tmp_path / "elsewhere.json"
    os.replace(path, elsewhere)
    os.chmod(elsewhere, 0o600)
    os.symlink(elsewhere, path)
    assert "AR001" in codes(capsys, root)
