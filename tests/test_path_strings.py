"""The string path computations of the hooks' path give what the pathlib ones they replaced gave.

``pathlib`` (with ``urllib.parse``, ``ipaddress`` and ``ntpath``) left the pre-commit hooks' imports
(tests/hooks/test_hook_imports.py): the names, parents, parts, resolved and relative paths it computed
are now made with strings and :mod:`os.path`.  Each is compared here with the pathlib code it replaced
(tests/support/path_reference.py) on seeded random paths full of the odd cases (repeated, leading and
trailing ``/``, ``.`` and ``..`` parts, symbolic links in and out of the root, link loops, dangling
links, a file used as a folder, names that are not UTF-8) and on the paths of the real corpus.
"""

from __future__ import annotations

import os
import random
import stat
from pathlib import Path, PurePosixPath

import pytest

from skillsift.cache.base import cache_folder
from skillsift.catalog.load import relative_path
from skillsift.config import RootNotFound, root_folder
from skillsift.config.sources import _display
from skillsift.config.user_file import user_config_name
from skillsift.files import as_posix, is_absolute, parent_name, path_mode, path_str, posix_parts, relative_inside
from tests.conftest import corpora
from tests.support import path_reference as ref

pytestmark = pytest.mark.skipif(os.name != "posix", reason="elsewhere the string versions call pathlib itself")

_ODD = ["a", "b", "f", ".", "..", "", "x\udcff", "in", "out", "loop", "gone", "SKILL.md", " s p ", "\\"]


def _random_path(rng: random.Random, prefixes=("", "/", "//", "///")) -> str:
    parts = [rng.choice(_ODD) for _ in range(rng.randrange(0, 6))]
    text = rng.choice(prefixes) + rng.choice(["/", "//"]).join(parts)
    return text + rng.choice(["", "", "/", "/.", "//"])


def _pairs(rng: random.Random, n: int):
    edge = ["", ".", "..", "/", "//", "///", "./", "a/", "a//b", "/a/./b/", "//a", "a/..", "x\udcff/SKILL.md"]
    return edge + [_random_path(rng) for _ in range(n)]


def test_the_pure_string_computations_are_pathlibs():
    rng = random.Random(45)
    for text in _pairs(rng, 20_000):
        assert path_str(text) == str(Path(text)), text
        assert as_posix(text) == Path(text).as_posix(), text
        assert parent_name(text) == Path(text).parent.name, text
        assert posix_parts(text) == PurePosixPath(text).parts, text
        assert tuple(p for p in posix_parts(as_posix(text)) if p not in ("", ".")) == ref.match_parts(text), text
    assert path_str(Path("a//b/")) == "a/b"  # a Path is taken too


def test_the_folders_named_by_the_environment_are_pathlibs():
    rng = random.Random(7)
    names = ["SKILLSIFT_CACHE", "SKILLSIFT_CACHE_DIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "HOME", "USERPROFILE"]
    values = ["", "off", "0", "on", "~", "rel/dir", "/abs/dir/", "//abs//x/.", "/a/../b", "./c"]
    for _ in range(3_000):
        env = {name: rng.choice(values) for name in names if rng.random() < 0.6}
        env.setdefault("HOME", "/home/u")  # else os.path.expanduser reads the real one: the same in both
        assert cache_folder(env) == ref.cache_dir(env), env
        assert user_config_name(env) == ref.user_config_file(env), env


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A root with folders, a file, links in and out of it, a loop and a dangling link; cwd is the root."""
    root = tmp_path / "root"
    (root / "a" / "b").mkdir(parents=True)
    (root / "f").write_text("x", encoding="utf-8")
    (root / "a" / "b" / "SKILL.md").write_text("x", encoding="utf-8")
    os.mkdir(os.path.join(os.fsencode(root), b"x\xff"))
    (tmp_path / "outside" / "a").mkdir(parents=True)
    (root / "in").symlink_to(root / "a")
    (root / "out").symlink_to(tmp_path / "outside")
    (root / "loop").symlink_to(root / "loop")
    (root / "gone").symlink_to(root / "missing")
    (tmp_path / "via").symlink_to(root)  # the root reached through a link
    monkeypatch.chdir(root)
    return root


def _outcome(call, *args):
    """What ``call(*args)`` returns, or the name of the OSError it raises."""
    try:
        return call(*args)
    except (OSError, RuntimeError) as exc:
        return type(exc).__name__, str(exc)


def test_stat_answers_relative_and_displayed_names_are_pathlibs(tree):
    rng = random.Random(2026)
    base = str(tree)
    roots = [base, str(tree.parent / "via"), base + "/a"]
    prefixes = ("", "", "/", "//", base + "/", str(tree.parent) + "/via/", str(tree.parent) + "/")
    for text in [_random_path(rng, prefixes) for _ in range(6_000)] + ["", ".", "f/", "f/x", "loop/x", "in/.."]:
        path = Path(text)
        assert _outcome(lambda t=text: path_mode(t) is not None) == _outcome(path.exists), text
        assert _outcome(lambda t=text: stat.S_ISREG(path_mode(t) or 0)) == _outcome(path.is_file), text
        assert _outcome(lambda t=text: stat.S_ISDIR(path_mode(t) or 0)) == _outcome(path.is_dir), text
        root = root_folder(rng.choice(roots))
        assert _outcome(_display, text, root) == _outcome(ref.display, text, root), (text, root)
        got = _outcome(relative_inside, text, root)
        assert (got if type(got) is tuple else got is not None) == _outcome(ref.inside, text, root), (text, root)
        assert _outcome(_user_display, text, root) == _outcome(ref.user_display, text, root), (text, root)
        folder = os.path.dirname(path_str(text)) or os.curdir
        assert _outcome(_ai_rulez_base, folder, root) == _outcome(ref.ai_rulez_base, text, root), (text, root)


def _user_display(text: str, root: str) -> str:
    """The display name ``user_source`` gives the user config at ``text`` (its code, on POSIX)."""
    rel = relative_inside(text, root) if is_absolute(text) else None
    return path_str(text) if rel is None else rel


def _ai_rulez_base(folder: str, root: str) -> str:
    """The ``index_base`` ``project_source`` gives the ai-rulez config in ``folder`` (its code)."""
    base = relative_inside(folder, root) or ""
    return "" if base == "." else base


def test_the_root_is_resolved_and_refused_as_pathlib_did(tree):
    rng = random.Random(3)
    prefixes = ("", "/", str(tree) + "/", str(tree.parent) + "/via/", str(tree.parent) + "/")
    for text in [_random_path(rng, prefixes) for _ in range(3_000)] + ["", ".", "..", "f", "gone", "loop"]:
        want = _outcome(ref.check_root, text)
        try:
            got = root_folder(text)
        except RootNotFound as exc:
            got = ("error", f"{exc}; {exc.hint.split(';')[0]}")
        except OSError as exc:
            got = type(exc).__name__
        assert got == want, text


def test_relative_paths_are_pathlibs(tree):
    rng = random.Random(11)
    roots = ["", ".", str(tree), str(tree) + "/a", "a", "in", "..", str(tree.parent) + "/via"]
    prefixes = ("", "/", str(tree) + "/", str(tree.parent) + "/via/")
    for text in [_random_path(rng, prefixes) for _ in range(4_000)]:
        root = rng.choice(roots)
        assert relative_path(text, root) == ref.relative_path(text, root), (text, root)


def test_the_paths_of_the_real_corpus_are_named_as_pathlib_named_them():
    corpus = corpora()
    root = root_folder(corpus)
    assert root == str(corpus.resolve())
    seen = 0
    for folder, _dirs, files in os.walk(corpus):
        for name in files:
            full = os.path.join(folder, name)
            rel = os.path.relpath(full, corpus)
            for text in (full, rel, "./" + rel, full + "/"):
                assert path_str(text) == str(Path(text)) and parent_name(text) == Path(text).parent.name
                assert posix_parts(text) == PurePosixPath(text).parts
            assert _display(full, root) == ref.display(full, root)
            assert relative_path(full, corpus) == ref.relative_path(full, corpus)
            seen += 1
    assert seen > 2000
