"""The whole-skill cache: unchanged files are not read again, and the catalog is the same byte for byte."""

from __future__ import annotations

import json
import os

import pytest

from skillsift.cache import skills as catalog_cache
from skillsift.catalog import load as catalog
from skillsift.catalog.load import load_catalog
from tests.catalog.test_catalog_cache import make_repo, snapshot


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("SKILLSIFT_CACHE_DIR", str(folder))
    monkeypatch.delenv("SKILLSIFT_CACHE", raising=False)
    monkeypatch.setattr(catalog_cache, "SETTLE_NS", 0)  # the test's files are seconds old
    return folder


def reads(monkeypatch) -> list:
    calls: list = []
    real = catalog.read_skill
    monkeypatch.setattr(catalog, "read_skill", lambda path, *a, **k: calls.append(str(path)) or real(path, *a, **k))
    return calls


def at(field: str) -> int:
    """Where ``field`` sits in an entry of the skill cache file."""
    return catalog_cache.ENTRY.index(field)


def full(cat) -> tuple:
    """Everything a catalog holds, the skills' frontmatter and the diagnostics' rule included."""
    skills, diagnostics = snapshot(cat)
    return skills, [(d, d.rule) for d in diagnostics], json.dumps([s.frontmatter for s in cat.skills])


def test_unchanged_files_are_not_read_and_give_the_same_catalog(tmp_path, cache_dir, monkeypatch):
    root = make_repo(tmp_path / "repo")
    (root / ".claude/skills/bad-utf8").mkdir(parents=True)
    (root / ".claude/skills/bad-utf8/SKILL.md").write_bytes(b"---\nname: x\n---\n\xff body\n")
    (root / ".claude/skills/emoji").mkdir(parents=True)
    (root / ".claude/skills/emoji/SKILL.md").write_text("---\nname: emoji\ndescription: d\n---\n\U0001f680 é ok\r\n",
                                                        encoding="utf-8")
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    uncached = full(load_catalog(root))
    monkeypatch.delenv("SKILLSIFT_CACHE")
    first = full(load_catalog(root))
    calls = reads(monkeypatch)
    second = full(load_catalog(root))
    assert uncached == first == second
    assert uncached[1]  # the unclosed YAML, the non-UTF-8 file
    assert calls == [str(root / ".claude/skills/deploy/SKILL.md")]  # its frontmatter has a date JSON cannot carry
    # A changed file is read again: another size, or the same size with another mtime.
    path = root / ".claude/skills/refund/SKILL.md"
    path.write_text(path.read_text(encoding="utf-8").replace("Refund", "Return"), encoding="utf-8")
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    calls.clear()
    third = load_catalog(root)
    assert str(path) in calls and "Return a customer" in [s.description for s in third.skills]
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    assert full(load_catalog(root)) == full(third)


def test_a_file_written_just_now_is_read_again(tmp_path, cache_dir, monkeypatch):
    monkeypatch.setattr(catalog_cache, "SETTLE_NS", 3600 * 10**9)
    root = make_repo(tmp_path / "repo")
    load_catalog(root)
    calls = reads(monkeypatch)
    load_catalog(root)
    assert len(calls) == 5


@pytest.mark.parametrize("damage", ["garbage", "offsets", "bytes", "fields", "header", "nan", "letter", "crc"])
def test_a_damaged_skill_cache_is_a_miss_not_a_crash(tmp_path, cache_dir, monkeypatch, damage):
    root = make_repo(tmp_path / "repo")
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    uncached = full(load_catalog(root))
    monkeypatch.delenv("SKILLSIFT_CACHE")
    load_catalog(root)
    path = next((cache_dir / "skills").iterdir())
    data = path.read_bytes()
    head, _sep, bodies = data.partition(b"\n")
    doc = json.loads(head)
    if damage == "garbage":
        data = b"\x00garbage"
    elif damage == "header":
        data = head + b"\n" + bodies + b"extra"
    elif damage == "bytes":
        data = head + b"\n" + b"\xff" * len(bodies)
    elif damage == "letter":  # still UTF-8, same length: only the bodies' CRC-32 tells
        data = head + b"\n" + bodies.replace(b"body", b"bodY")
        assert data != head + b"\n" + bodies
    else:
        for entry in doc["entries"].values():
            if len(entry) == len(catalog_cache.ENTRY):
                if damage == "offsets":
                    entry[at("body_start"):] = [5, 10**9, 0]
                elif damage == "crc":
                    entry[at("body_crc")] ^= 1
                elif damage == "nan":
                    entry[at("frontmatter")] = {"name": float("nan")}
                else:
                    entry[at("triggers")] = [1]
                    entry[at("diagnostics")] = [{"file": 3}]
        data = json.dumps(doc).encode() + b"\n" + bodies
    path.write_bytes(data)
    assert full(load_catalog(root)) == uncached
    assert full(load_catalog(root)) == uncached  # and the rewritten cache serves the same


_MISSING = object()
_EXTRA = object()
_HOSTILE = [(field, value) for field in ("triggers", "keywords", "tags", "roles", "examples", "not_for")
            for value in ([1], ["ok", None], ["ok", ["nested"]], [{"a": "b"}], [True], "a string", None)] + [
    (field, value) for field in ("name", "description", "domain", "dir_id", "digest")
    for value in (1, ["x"], {"x": "y"}, True)] + [(field, None) for field in ("domain", "dir_id", "digest")] + [
    ("frontmatter_line", True), ("frontmatter_line", "2"), ("frontmatter_line", 2.0), ("frontmatter", ["x"]),
    ("frontmatter", None), ("stamp", None), ("stamp", [1, 2]), ("stamp", "x"), ("key_domain", None),
    ("key_domain", "elsewhere"), ("diagnostics", None), ("diagnostics", {}), ("diagnostics", [None]),
    ("diagnostics", [{"file": "f"}])] + [
    (field, value) for field in ("body_start", "body_end", "body_crc") for value in (None, "1", 1.0, True, [1])] + [
    ("body_start", -1), ("body_end", 10**9), ("body_start", 10**9)]


def cached(root, cache_dir, monkeypatch):
    """After one load with the caches off and one with them on: (the skills as the files give them, the
    skill cache file, its header line, its bodies)."""
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    uncached = full(load_catalog(root))
    monkeypatch.delenv("SKILLSIFT_CACHE")
    load_catalog(root)
    path = next((cache_dir / "skills").iterdir())
    head, _sep, bodies = path.read_bytes().partition(b"\n")
    return uncached, path, head, bodies


def test_every_field_of_an_entry_is_tried():
    assert sorted({name for name, _value in _HOSTILE}) == sorted(catalog_cache.ENTRY)


@pytest.mark.parametrize("field", catalog_cache.ENTRY)
def test_a_cached_skill_with_one_field_of_the_wrong_shape_is_read_from_its_file(tmp_path, cache_dir, monkeypatch,
                                                                                 field):
    root = make_repo(tmp_path / "repo")
    uncached, path, head, bodies = cached(root, cache_dir, monkeypatch)
    values = [value for name, value in _HOSTILE if name == field] + [_MISSING, _EXTRA]
    for value in values:
        doc = json.loads(head)
        for entry in doc["entries"].values():
            if len(entry) == len(catalog_cache.ENTRY):
                if value is _MISSING:
                    del entry[at(field)]
                elif value is _EXTRA:
                    entry.insert(at(field), entry[at(field)])
                else:
                    entry[at(field)] = value
        path.write_bytes(json.dumps(doc).encode() + b"\n" + bodies)
        calls = reads(monkeypatch)
        assert full(load_catalog(root)) == uncached, (field, value)
        assert len(calls) == 5, (field, value)  # every entry refused: each file read again
        monkeypatch.undo()
        monkeypatch.setenv("SKILLSIFT_CACHE_DIR", str(cache_dir))
        monkeypatch.setattr(catalog_cache, "SETTLE_NS", 0)


@pytest.mark.parametrize("shape", ["object", "empty", "short", "string", "null", "no-skill-no-diagnostics"])
def test_an_entry_that_is_not_an_entry_is_read_from_its_file(tmp_path, cache_dir, monkeypatch, shape):
    root = make_repo(tmp_path / "repo")
    uncached, path, head, bodies = cached(root, cache_dir, monkeypatch)
    doc = json.loads(head)
    for key, entry in doc["entries"].items():
        named = dict(zip(catalog_cache.ENTRY, entry, strict=False))  # the shape format 2 had
        doc["entries"][key] = {"object": named, "empty": [], "short": entry[:2],
                               "string": "entry", "null": None, "no-skill-no-diagnostics": entry[:2] + [[]]}[shape]
    path.write_bytes(json.dumps(doc).encode() + b"\n" + bodies)
    calls = reads(monkeypatch)
    assert full(load_catalog(root)) == uncached
    assert len(calls) == 5


@pytest.mark.parametrize("field", ["name", "description"])
@pytest.mark.parametrize("given", [_MISSING, None, 1, ["x"], {"x": "y"}])
def test_a_name_taken_from_the_frontmatter_must_be_a_string_there(tmp_path, cache_dir, monkeypatch, field, given):
    """A name or description equal to the frontmatter's is stored as null; if the frontmatter
    holds no such string, the entry is refused."""
    root = make_repo(tmp_path / "repo")
    uncached, path, head, bodies = cached(root, cache_dir, monkeypatch)
    doc = json.loads(head)
    entries = [entry for entry in doc["entries"].values() if len(entry) == len(catalog_cache.ENTRY)]
    served = [entry for entry in entries if entry[at(field)] is None]  # the frontmatter's: not stored twice
    assert len(entries) == 4 and len(served) >= 2
    for entry in served:
        if given is _MISSING:
            del entry[at("frontmatter")][field]
        else:
            entry[at("frontmatter")][field] = given
    path.write_bytes(json.dumps(doc).encode() + b"\n" + bodies)
    calls = reads(monkeypatch)
    assert full(load_catalog(root)) == uncached
    assert len(calls) == 1 + len(served)  # deploy (a date: never stored) and each one changed


def test_a_name_unlike_the_frontmatter_one_is_stored_as_it_is(tmp_path, cache_dir, monkeypatch):
    from tests.conftest import write_skill

    root = tmp_path / "repo"
    write_skill(root, "alpha", "Deploys alpha.", layout="skills")
    path = next(root.rglob("SKILL.md"))
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("name: alpha", "name: '   '"), encoding="utf-8")  # blank: the folder's name
    os.utime(path, ns=(2_000_000_000, 2_000_000_000))
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    (skill,) = load_catalog(root).skills
    uncached = full(load_catalog(root))
    monkeypatch.delenv("SKILLSIFT_CACHE")
    load_catalog(root)
    head = next((cache_dir / "skills").iterdir()).read_bytes().partition(b"\n")[0]
    (entry,) = json.loads(head)["entries"].values()
    assert entry[at("frontmatter")]["name"] == "   " and skill.name == entry[at("name")] == "alpha"
    calls = reads(monkeypatch)
    assert full(load_catalog(root)) == uncached and calls == []


def test_a_cache_file_of_the_earlier_format_is_ignored_and_written_again(tmp_path, cache_dir, monkeypatch):
    """Format 2 held each skill as an object with named fields; its entries are never read."""
    root = make_repo(tmp_path / "repo")
    uncached, path, head, bodies = cached(root, cache_dir, monkeypatch)
    doc = json.loads(head)
    assert doc["format"] == catalog_cache.SKILLS_FORMAT == 3
    doc["format"] = 2
    path.write_bytes(json.dumps(doc).encode() + b"\n" + bodies)
    calls = reads(monkeypatch)
    assert full(load_catalog(root)) == uncached
    assert len(calls) == 5  # nothing taken from it
    assert json.loads(path.read_bytes().partition(b"\n")[0])["format"] == 3  # written again
    calls.clear()
    assert full(load_catalog(root)) == uncached
    assert calls == [str(root / ".claude/skills/deploy/SKILL.md")]  # served again (deploy: a date)


def test_a_cached_body_is_decoded_when_first_read_and_equals_the_parsed_one(tmp_path, cache_dir, monkeypatch):
    import copy
    import pickle

    from skillsift.catalog.skill import EncodedText

    root = make_repo(tmp_path / "repo")
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    parsed = {s.path: s for s in load_catalog(root).skills}
    monkeypatch.delenv("SKILLSIFT_CACHE")
    load_catalog(root)
    cached = [s for s in load_catalog(root).skills if s.name != "deploy"]  # deploy: read again (a date)
    assert len(cached) == 4 and all(type(vars(s)["body"]) is EncodedText for s in cached)  # nothing decoded yet
    first = cached[0]
    assert copy.deepcopy(first) == parsed[first.path]  # a copy carries the text, not the block
    assert pickle.loads(pickle.dumps(first)).body == parsed[first.path].body
    for skill in cached:
        assert skill == parsed[skill.path] and hash(skill) == hash(parsed[skill.path])
        assert type(skill.body) is str and skill.body == parsed[skill.path].body
        assert type(vars(skill)["body"]) is str  # decoded once, then kept


def test_restore_makes_the_skill_init_makes():
    import dataclasses
    import inspect
    import zlib

    from skillsift.catalog.skill import EncodedText, Skill, restore

    names = [f.name for f in dataclasses.fields(Skill)]
    assert list(inspect.signature(restore).parameters) == names  # every field, in order
    values = dict(name="n", description="d", triggers=("t",), keywords=("k",), tags=("x", "y"), roles=("r",),
                  examples=("e",), not_for=("no",), domain="ops", body="b é", path="a/SKILL.md", dir_id="a",
                  digest="sha256:0", frontmatter_line=2, frontmatter={"name": "n", "meta": [1]})
    made, restored = Skill(**values), restore(**values)
    assert restored == made and hash(restored) == hash(made) and repr(restored) == repr(made)
    assert vars(restored) == vars(made) and list(vars(restored)) == list(vars(made)) == names
    encoded = restore(**{**values, "body": EncodedText(b"xb \xc3\xa9", 1, 5, zlib.crc32(b"b \xc3\xa9"), str)})
    assert encoded == made and encoded.body == "b é"
    with pytest.raises(dataclasses.FrozenInstanceError):
        encoded.name = "other"  # type: ignore[misc]


@pytest.mark.parametrize("pattern", ["*", "packs/../packs/*", "./packs/a"])
def test_skill_paths_are_relative_paths_with_or_without_the_cache(tmp_path, cache_dir, monkeypatch, pattern):
    from skillsift.catalog.load import relative_path
    from skillsift.config import load_config
    from tests.conftest import write_skill

    root = tmp_path / "repo"
    for name in ("a", "b"):
        write_skill(root, name, f"Does {name}.", layout="packs")
    (root / "skillsift.toml").write_text(f'[catalog]\nskills = ["{pattern}"]\n', encoding="utf-8")
    config = load_config(str(root))
    expected = sorted(relative_path(p, str(root)) for p in root.glob("packs/*/SKILL.md"))
    if pattern == "./packs/a":
        expected = expected[:1]
    for cache in ("off", "on", "on"):
        monkeypatch.setenv("SKILLSIFT_CACHE", cache)
        assert [s.path for s in load_catalog(str(root), config).skills] == expected


def repo_with_refund_body(root):
    make_repo(root)
    path = root / ".claude/skills/refund/SKILL.md"
    path.write_text(path.read_text(encoding="utf-8").replace("Body text.", "Body of refund."), encoding="utf-8")
    os.utime(path, ns=(2_000_000_000, 2_000_000_000))
    return root


def damage_bodies(cache_dir, old: bytes, new: bytes) -> None:
    """Replace ``old`` by ``new`` (same length) in the bodies of the skill cache file."""
    path = next((cache_dir / "skills").iterdir())
    head, _sep, bodies = path.read_bytes().partition(b"\n")
    assert len(old) == len(new) and old in bodies
    path.write_bytes(head + b"\n" + bodies.replace(old, new))


def cached_with_a_damaged_body(tmp_path, cache_dir, monkeypatch):
    """A repository whose skill cache holds a damaged body for ``refund``; (root, its skills uncached)."""
    root = repo_with_refund_body(tmp_path / "repo")
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    uncached = full(load_catalog(root))
    monkeypatch.delenv("SKILLSIFT_CACHE")
    load_catalog(root)
    damage_bodies(cache_dir, b"Body of refund", b"Body of refunD")
    return root, uncached


def test_a_damaged_body_is_read_from_its_file_when_first_read(tmp_path, cache_dir, monkeypatch):
    root, uncached = cached_with_a_damaged_body(tmp_path, cache_dir, monkeypatch)
    calls = reads(monkeypatch)
    cat = load_catalog(root)
    assert calls == [str(root / ".claude/skills/deploy/SKILL.md")]  # nothing else read yet
    assert full(cat) == uncached
    assert calls[1:] == [os.path.join(os.path.realpath(root), ".claude/skills/refund/SKILL.md")]


def test_a_damaged_body_of_a_file_changed_since_stops_the_run(tmp_path, cache_dir, monkeypatch):
    from skillsift.diagnostics import SkillsiftError

    root = repo_with_refund_body(tmp_path / "repo")
    load_catalog(root)
    damage_bodies(cache_dir, b"Body of refund", b"Body of refunD")
    cat = load_catalog(root)
    path = root / ".claude/skills/refund/SKILL.md"
    path.write_text(path.read_text(encoding="utf-8") + "more\n", encoding="utf-8")
    refund = next(s for s in cat.skills if s.name == "refund")
    with pytest.raises(SkillsiftError, match="refund/SKILL.md: its entry in the skill cache is damaged"):
        refund.body  # noqa: B018
    assert "more" in next(s for s in load_catalog(root).skills if s.name == "refund").body  # read again


def test_a_damaged_body_is_left_out_when_the_cache_is_written_again(tmp_path, cache_dir, monkeypatch):
    root, uncached = cached_with_a_damaged_body(tmp_path, cache_dir, monkeypatch)
    path = root / ".claude/skills/odd/SKILL.md"
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))  # a miss: the cache is written again
    load_catalog(root)
    head = json.loads(next((cache_dir / "skills").iterdir()).read_bytes().partition(b"\n")[0])
    assert ".claude/skills/refund/SKILL.md" not in head["entries"]
    calls = reads(monkeypatch)
    assert full(load_catalog(root)) == uncached
    assert str(root / ".claude/skills/refund/SKILL.md") in calls


def test_the_collector_is_paused_while_the_cache_serves_and_on_when_a_file_is_parsed(tmp_path, cache_dir,
                                                                                     monkeypatch):
    """The command line's pause (a library call gets none: tests/cache/test_collector.py)."""
    import gc

    import skillsift.catalog
    from skillsift.cli import CollectorPause

    monkeypatch.setattr(skillsift.catalog, "collector_pause", CollectorPause)  # as skillsift.cli.main sets it
    root = make_repo(tmp_path / "repo")
    load_catalog(root)
    seen: list = []
    real_get, real_read = catalog_cache.SkillCache.get, catalog.read_skill
    monkeypatch.setattr(catalog_cache.SkillCache, "get",
                        lambda self, *a: seen.append(("get", gc.isenabled())) or real_get(self, *a))
    monkeypatch.setattr(catalog, "read_skill",
                        lambda *a, **k: seen.append(("read", gc.isenabled())) or real_read(*a, **k))
    assert gc.isenabled()
    load_catalog(root)
    assert gc.isenabled()
    # broken comes with the collector off; deploy (its frontmatter has a date: parsed every
    # time) is read with it on, and it stays on
    assert seen[:3] == [("get", False), ("get", False), ("read", True)] and seen[-1] == ("get", True)
    gc.disable()
    try:
        load_catalog(root)
        assert not gc.isenabled()  # left as it was
    finally:
        gc.enable()
    monkeypatch.setattr(catalog, "read_skill", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        load_catalog(root)
    assert gc.isenabled()


def test_the_pause_thaws_nothing_a_host_froze(tmp_path, cache_dir):
    import gc

    root = make_repo(tmp_path / "repo")
    load_catalog(root)
    assert gc.get_freeze_count() == 0  # the pause moved what it made to the oldest generation
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        load_catalog(root)
        assert gc.get_freeze_count() == frozen and gc.isenabled()
    finally:
        gc.unfreeze()


def test_the_bodies_are_read_from_the_file_loaded_when_a_body_is_first_read(tmp_path, cache_dir, monkeypatch):
    """A load reads the header line only; the bodies come from the file it opened (a run that writes the
    cache renames a new file over it), once, when a body is first read."""
    import shutil

    root = repo_with_refund_body(tmp_path / "repo")
    shutil.rmtree(root / ".claude/skills/deploy")  # (a date: never cached, so every run would write the cache)
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    uncached = full(load_catalog(root))
    monkeypatch.delenv("SKILLSIFT_CACHE")
    load_catalog(root)
    opened: list = []
    real_read = catalog_cache._read_at
    monkeypatch.setattr(catalog_cache, "_read_at", lambda *a: opened.append(a) or real_read(*a))
    cat = load_catalog(root)
    assert opened == []  # nothing but the header read yet
    path = next((cache_dir / "skills").iterdir())
    head, _sep, bodies = path.read_bytes().partition(b"\n")
    replacement = path.with_name("new")
    replacement.write_bytes(head + b"\n" + bodies.replace(b"Body of refund", b"Body of refunD"))
    os.replace(replacement, path)
    calls = reads(monkeypatch)
    assert full(cat) == uncached  # the bodies of the file the header came from, every CRC-32 good
    assert calls == [] and len(opened) == 1 and opened[0][1:] == (len(head) + 1, len(bodies))
    blocks = {vars(s)["body"].data for s in load_catalog(root).skills if not isinstance(vars(s)["body"], str)}
    assert len(blocks) == 1 and blocks.pop().read().count(b"Body of refunD") == 1  # the new file's, as it is


def test_the_entry_check_is_the_reference_one_on_random_damage(tmp_path, cache_dir, monkeypatch):
    """The unrolled entry check accepts and gives exactly what the looped one (tests/support) does."""
    import copy
    import random

    from skillsift.catalog.load import read_skill
    from skillsift.catalog.skill import EncodedText, restore
    from tests.support.skill_cache_reference import decode_read

    root = make_repo(tmp_path / "repo")
    load_catalog(root)
    cache = catalog_cache.SkillCache(root, read_skill=read_skill, restore=restore, encoded_text=EncodedText)
    entries = list(cache.entries.items())
    values = [value for _field, value in _HOSTILE] + [
        None, "", "x", 0, 1, -1, 2.5, True, False, [], [""], ["a", "b"], {}, {"name": "n"}, {"description": 1},
        {"name": "n", "description": "d"}, [{"file": "f", "line": None, "column": None, "code": "SK1",
                                            "message": "m", "severity": "note", "hint": "", "rule": "r"}]]
    rng = random.Random(45)
    accepted = refused = 0
    for _ in range(3000):
        rel, entry = rng.choice(entries)
        entry = copy.deepcopy(entry)
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            at_ = rng.randrange(len(entry) + 1)
            roll = rng.random()
            if roll < 0.1 and entry:
                del entry[min(at_, len(entry) - 1)]
            elif roll < 0.15:
                entry.insert(at_, rng.choice(values))
            elif entry:
                entry[min(at_, len(entry) - 1)] = copy.deepcopy(rng.choice(values))
        mine, theirs = catalog_cache._decode_read(entry, rel, cache), decode_read(entry, rel, cache)
        assert (mine is None) == (theirs is None), entry
        if mine is not None:
            accepted += 1
            (a, a_diagnostics), (b, b_diagnostics) = mine, theirs
            assert a_diagnostics == b_diagnostics and (a is None) == (b is None)
            if a is not None:  # every field the same (a body is compared as the text it reads as)
                assert {k: v for k, v in vars(a).items() if k != "body"} == {
                    k: v for k, v in vars(b).items() if k != "body"} and a.body == b.body
        else:
            refused += 1
    assert accepted > 300 and refused > 1000
