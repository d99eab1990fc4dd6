"""The parsed-frontmatter cache: same catalog as parsing, byte for byte; safe on bad cache files."""

from __future__ import annotations

import json
import os
import stat

import pytest

from skillsift.cache import base as cache_base
from skillsift.catalog import frontmatter
from skillsift.catalog.load import load_catalog
from tests.conftest import write_skill


def snapshot(catalog):
    return ([(s, s.frontmatter, s.body, s.digest, s.frontmatter_line) for s in catalog.skills],
            list(catalog.diagnostics))


def make_repo(root):
    write_skill(root, "refund", "Refund a customer", triggers=["money back"], keywords=["billing"])
    write_skill(root, "deploy", "Deploy to staging", extra="when: 2024-01-02\n1: one\nmeta:\n  owner: ops\n  n: 3")
    write_skill(root, "broken", "x", extra="bad: [unclosed")
    (root / ".claude/skills/nofront").mkdir(parents=True)
    (root / ".claude/skills/nofront/SKILL.md").write_text("just a body\n", encoding="utf-8")
    write_skill(root, "odd", "Escapes \\ud800 and unicode é",
                extra='quoted: "tab\\tand \\u00e9"\nlist: [1, 2.5, true, null]')
    return root


def test_a_cached_catalog_equals_a_parsed_one(tmp_path, cache_dir, monkeypatch):
    root = make_repo(tmp_path / "repo")
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    parsed = snapshot(load_catalog(root))
    monkeypatch.delenv("SKILLSIFT_CACHE")
    first = snapshot(load_catalog(root))
    files = list((cache_dir / "catalog").iterdir())
    assert len(files) == 1 and stat.S_IMODE(files[0].stat().st_mode) == 0o600
    calls = []
    real = frontmatter.read_yaml
    monkeypatch.setattr(frontmatter, "read_yaml", lambda *a, **k: calls.append(a) or real(*a, **k))
    second = snapshot(load_catalog(root))
    assert parsed == first == second
    assert len(calls) == 1  # only the frontmatter with a non-string key is parsed again
    assert not (root / ".skillsift").exists()  # nothing written in the repository


def test_an_edited_file_is_parsed_again(tmp_path, cache_dir):
    root = make_repo(tmp_path / "repo")
    load_catalog(root)
    write_skill(root, "refund", "Refund a customer quickly", triggers=["cash back"])
    skill = next(s for s in load_catalog(root).skills if s.name == "refund")
    assert skill.description == "Refund a customer quickly" and skill.triggers == ("cash back",)


@pytest.mark.parametrize("content", [
    b"not json",
    b"\xff\xfe",
    b"[]",
    json.dumps({"format": 2, "entries": []}).encode(),
    None,  # entries of the wrong shape, with the right header
])
def test_a_damaged_cache_file_is_a_miss_not_a_crash(tmp_path, cache_dir, monkeypatch, content):
    root = make_repo(tmp_path / "repo")
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    parsed = snapshot(load_catalog(root))
    monkeypatch.delenv("SKILLSIFT_CACHE")
    load_catalog(root)
    path = next((cache_dir / "catalog").iterdir())
    if content is None:
        doc = json.loads(path.read_text())
        for n, key in enumerate(sorted(doc["entries"])):
            doc["entries"][key] = [None, {"value": {"name": 3}}, {"empty": "no", "diagnostics": []},
                                   {"value": None, "empty": False, "diagnostics": [{"file": 1}]}][n % 4]
        content = json.dumps(doc).encode()
    path.write_bytes(content)
    assert snapshot(load_catalog(root)) == parsed
    assert snapshot(load_catalog(root)) == parsed  # and the rewritten cache serves the same


def test_the_cache_can_be_turned_off_and_skips_oversized_files(tmp_path, cache_dir, monkeypatch):
    root = make_repo(tmp_path / "repo")
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    load_catalog(root)
    assert not cache_dir.exists()
    monkeypatch.delenv("SKILLSIFT_CACHE")
    monkeypatch.setattr(cache_base, "MAX_BYTES", 10)
    load_catalog(root)
    assert not cache_dir.exists() or not any((cache_dir / "catalog").iterdir())


def test_an_unwritable_cache_folder_costs_only_the_parse(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("SKILLSIFT_CACHE_DIR", str(blocker / "sub"))
    root = make_repo(tmp_path / "repo")
    assert len(load_catalog(root).skills) == 5
    assert os.path.isfile(blocker)
