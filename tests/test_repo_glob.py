"""files.repo_glob: the rules of the standard glob, bounded whatever links a repository holds."""

from __future__ import annotations

import glob
import os
import posixpath
import random
import subprocess
import sys

import pytest

from skillsift.files import GlobLimitError, repo_glob

PATTERNS = ["*", "**", "a/*", "a/**", "**/SKILL.md", "*/SKILL.md", "a/**/b", "**/b/*", "?", "[ab]*", ".h*",
            "**/.h*", "a/*/", "**/", "a/**/**/c", "b/**/*.md", "*/*/*", "x", "a/b", "a//b", "./a/*", "**/*.yaml"]


def _tree(root, rng: random.Random, depth: int = 0) -> None:
    for _ in range(rng.randint(0, 4)):
        name = rng.choice(["a", "b", "c", ".h", "SKILL.md", "x.yaml", "ab", "d.md"])
        path = os.path.join(root, name)
        if os.path.exists(path):
            continue
        if depth < 4 and rng.random() < 0.55 and "." not in name.lstrip("."):
            os.mkdir(path)
            _tree(path, rng, depth + 1)
        else:
            with open(path, "w") as fh:
                fh.write("x")


def _std(pattern: str, root) -> list[str]:
    """The standard glob's matches, less its one quirk: ``a/**`` names the file ``a`` as ``a/``."""
    out = set()
    for m in glob.glob(pattern, root_dir=root, recursive=True):
        if m.endswith("/") and not os.path.isdir(os.path.join(root, m)):
            continue
        if m.rstrip("/"):
            out.add(posixpath.normpath(m))  # "a//b" and "./a" as the one path they name
    return sorted(out)


@pytest.mark.parametrize("seed", range(25))
def test_same_matches_as_the_standard_glob_where_no_link_is(tmp_path, seed):
    rng = random.Random(seed)
    _tree(tmp_path, rng)
    for pattern in PATTERNS:
        assert repo_glob(pattern, tmp_path) == _std(pattern, tmp_path), pattern


def _loops(tmp_path):
    skills = tmp_path / "skills"
    (skills / "a").mkdir(parents=True)
    (skills / "a" / "SKILL.md").write_text("---\nname: a\ndescription: d\n---\n")
    os.symlink(".", skills / "here")          # skills/here -> skills
    os.symlink("..", skills / "a" / "up")     # skills/a/up -> skills
    os.symlink("../..", skills / "a" / "top")  # skills/a/top -> the root
    return skills


def test_link_loops_end_and_the_links_themselves_match(tmp_path):
    _loops(tmp_path)
    assert repo_glob("skills/**", tmp_path) == ["skills", "skills/a", "skills/a/SKILL.md", "skills/a/top",
                                                "skills/a/up", "skills/here"]
    assert repo_glob("**/SKILL.md", tmp_path) == ["skills/a/SKILL.md"]
    # A part without ** may pass through a linked folder: the pattern's length bounds it.
    assert repo_glob("skills/here/a/SKILL.md", tmp_path) == ["skills/here/a/SKILL.md"]
    assert repo_glob("skills/*/a", tmp_path) == ["skills/here/a"]


def test_the_entries_looked_at_are_bounded(tmp_path):
    for i in range(30):
        (tmp_path / f"f{i:02d}").write_text("x")
    assert len(repo_glob("**", tmp_path, max_entries=30)) == 30
    with pytest.raises(GlobLimitError) as err:
        repo_glob("**", tmp_path, max_entries=29)
    assert "looks at more than 29 folder entries" in err.value.strerror


def _run(root, *args, timeout=60):
    return subprocess.run([sys.executable, "-m", "skillsift", *args, "--root", str(root)], capture_output=True,
                          text=True, timeout=timeout)


def test_commands_end_on_a_repository_whose_configured_globs_meet_link_loops(tmp_path):
    """A hang before: the standard glob walked skills/here/here/... with a fan-out of three."""
    _loops(tmp_path)
    (tmp_path / "skillsift.toml").write_text('[catalog]\nskills = ["skills/**"]\n\n[search]\n'
                                             'examples = ["**/*.yaml"]\n')
    search = _run(tmp_path, "search", "d")
    assert search.returncode == 0, search.stderr
    assert search.stdout.splitlines()[1].split()[2] == "a"
    validate = _run(tmp_path, "validate")
    assert "Traceback" not in validate.stderr
    assert "1 skill checked" in validate.stdout + validate.stderr
