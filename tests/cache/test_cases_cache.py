"""The user cache of parsed cases and examples files (skillsift/cache/cases.py, casefile/files.py): a hit
is exactly what parsing gives (the cases with every line, the problems with theirs, the AR9D2 error) on
seeded random files, valid and not, and on the repository's own examples; a damaged, foreign, planted or
stale cache file is parsed again without a crash; the folder stays bounded; SKILLSIFT_CACHE=off writes
nothing."""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path

import pytest

from skillsift.cache import cases as cases_cache
from skillsift.cache.cases import ParsedFiles
from skillsift.casefile.files import decoded, encoded, load_file, parsed
from skillsift.casefile.parse import CaseFile, CasesInvalid, parse_cases
from tests.support.random_cases import random_cases_file

REPO = Path(__file__).resolve().parents[2]
def _same(a, b) -> None:
    """``a`` and ``b`` give the same: the same case file, or the same error field by field."""
    assert type(a) is type(b)
    if isinstance(a, CaseFile):
        assert a == b
        return
    assert (a.message, a.problems, a.partial, a.diagnostics, a.hint, a.exit_code) == (
        b.message, b.problems, b.partial, b.diagnostics, b.hint, b.exit_code)


def _parse(raw: bytes, shown: str, what: str):
    try:
        return parse_cases(raw, shown, what)
    except CasesInvalid as exc:
        return exc


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


@pytest.mark.parametrize("seed", range(60))
def test_a_hit_is_what_parsing_gives_on_random_files(seed, cache_dir):
    rng = random.Random(seed)
    raw = random_cases_file(rng)
    store = ParsedFiles()
    for what in ("cases", "examples"):
        want = _parse(raw, f"f{seed}.yaml", what)
        first = parsed(raw, f"f{seed}.yaml", what, _digest(raw), store=store, min_bytes=0)
        assert (cache_dir / "cases" / f"{_digest(raw)}.json").is_file()
        again = parsed(raw, f"f{seed}.yaml", what, _digest(raw), store=store, min_bytes=0)
        _same(want, first)
        _same(want, again)
        _same(want, decoded(json.loads(json.dumps(encoded(want))), f"f{seed}.yaml", what))


def test_random_files_cover_valid_and_invalid_ones():
    kinds = {type(_parse(random_cases_file(random.Random(seed)), "f", "cases")).__name__ for seed in range(60)}
    assert kinds == {"CaseFile", "CasesInvalid"}


@pytest.mark.parametrize("name", ["examples/acme/search-examples.yaml", "examples/acme/search-cases.yaml",
                                  "examples/sources/search-cases.yaml"])
def test_a_hit_is_what_parsing_gives_on_real_files(name, cache_dir):
    raw = (REPO / name).read_bytes()
    want = _parse(raw, name, "examples")
    assert isinstance(want, CaseFile) and want.cases
    store = ParsedFiles()
    parsed(raw, name, "examples", _digest(raw), store=store, min_bytes=0)
    hit = parsed(raw, "another/name.yaml", "examples", _digest(raw), store=store, min_bytes=0)
    _same(_parse(raw, "another/name.yaml", "examples"), hit)  # the shown path is the caller's, not the entry's


def _big(n: int = 3000) -> bytes:
    rows = ["version: 1", "cases:"]
    for i in range(n):
        rows += [f"- id: c{i}", f"  query: find the tool number {i} for me", "  expect:", f"  - skill-{i % 7}"]
    return ("\n".join(rows) + "\n").encode()


def test_load_file_uses_the_cache_for_a_large_file_only(tmp_path, cache_dir, monkeypatch):
    big, small = tmp_path / "big.yaml", tmp_path / "small.yaml"
    big.write_bytes(_big())
    small.write_bytes(b"version: 1\ncases:\n- id: a\n  query: q\n")
    assert big.stat().st_size >= cases_cache.MIN_BYTES > small.stat().st_size
    monkeypatch.setattr("skillsift.casefile.files._PARSED", {})
    first = load_file(str(big), "examples", "big.yaml")
    load_file(str(small), "examples", "small.yaml")
    assert [p.name for p in (cache_dir / "cases").iterdir()] == [f"{_digest(big.read_bytes())}.json"]
    monkeypatch.setattr("skillsift.casefile.files._PARSED", {})
    monkeypatch.setattr("skillsift.casefile.files.parse_cases", _refused)
    assert load_file(str(big), "examples", "big.yaml") == first  # from the cache: the parser is not called


def _refused(*_args, **_kwargs):
    raise AssertionError("parsed again")


def _damaged(text: str) -> list[str]:
    doc = json.loads(text)
    body = doc["body"]
    out = [text[: len(text) // 2], "", "[]", "{}", "null", text.replace('"format":1', '"format":2'),
           text.replace(doc["digest"], "0" * 64), json.dumps({**doc, "parser": ["other"]}),
           json.dumps({**doc, "body": []}), json.dumps({**doc, "body": {**body, "problems": [[1]]}}),
           json.dumps({**doc, "body": {**body, "problems": [["1", "x"]]}}),
           json.dumps({**doc, "body": {**body, "file": [1, 0]}}),
           json.dumps({**doc, "body": {**body, "file": [1, 0, [["c"]]]}}),
           json.dumps({**doc, "body": {**body, "file": [True, 0, []]}}),
           json.dumps({**doc, "body": {**body, "extra": 1}}), text.replace("NaN", "x") + "NaN"]
    case = body["file"][2][0]
    for i, bad in ((0, 1), (2, [["s", 1, 1, 3]]), (2, [["s", 1.0, False, 3]]), (2, "s"), (3, [1]), (5, [None]),
                   (6, "3"), (7, ["1"]), (8, None)):
        broken = list(case)
        broken[i] = bad
        out.append(json.dumps({**doc, "body": {**body, "file": [1, 0, [broken] + body["file"][2][1:]]}}))
    return out


def test_a_damaged_cache_file_is_parsed_again(cache_dir):
    raw = _big(50)
    digest = _digest(raw)
    want = _parse(raw, "k.yaml", "examples")
    store = ParsedFiles()
    parsed(raw, "k.yaml", "examples", digest, store=store, min_bytes=0)
    path = cache_dir / "cases" / f"{digest}.json"
    good = path.read_text()
    for bad in _damaged(good):
        path.write_text(bad)
        os.chmod(path, 0o600)
        assert store.load(digest) is None or decoded(store.load(digest), "k.yaml", "examples") is None, bad[:80]
        _same(want, parsed(raw, "k.yaml", "examples", digest, store=store, min_bytes=0))
        assert path.read_text() == good  # written again by the parse


def test_a_planted_cache_file_is_not_read(cache_dir):
    raw = _big(20)
    digest = _digest(raw)
    store = ParsedFiles()
    parsed(raw, "k.yaml", "examples", digest, store=store, min_bytes=0)
    path = cache_dir / "cases" / f"{digest}.json"
    os.chmod(path, 0o666)
    assert store.load(digest) is None
    os.chmod(path, 0o600)
    assert store.load(digest) is not None


def test_the_folder_keeps_the_files_used_last(cache_dir):
    store = ParsedFiles()
    digests = []
    for i in range(cases_cache.KEEP + 5):
        raw = _big(3 + i)
        digests.append(_digest(raw))
        parsed(raw, "k.yaml", "examples", digests[-1], store=store, min_bytes=0)
        os.utime(cache_dir / "cases" / f"{digests[-1]}.json", ns=(i * 10**9, i * 10**9))
    kept = sorted(p.stem for p in (cache_dir / "cases").iterdir())
    assert len(kept) == cases_cache.KEEP
    assert set(kept) <= set(digests) and digests[-1] in kept and digests[0] not in kept


def test_cache_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("SKILLSIFT_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    raw = _big(10)
    store = ParsedFiles()
    assert not store.on
    _same(_parse(raw, "k", "examples"), parsed(raw, "k", "examples", _digest(raw), store=store, min_bytes=0))
    assert not (tmp_path / "c").exists()


def test_the_stamp_names_the_yaml_library():
    names = [entry[0] for entry in cases_cache.stamp()[-1]]
    assert "__init__.py" in names


def test_the_parse_runs_in_the_command_lines_collector_pause(tmp_path, cache_dir, monkeypatch):
    import skillsift.catalog

    made = []

    class Pause:
        def __init__(self):
            made.append(self)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

    path = tmp_path / "big.yaml"
    path.write_bytes(_big())
    monkeypatch.setattr("skillsift.casefile.files._PARSED", {})
    monkeypatch.setattr(skillsift.catalog, "collector_pause", Pause)
    first = load_file(str(path), "examples", "big.yaml")
    assert len(made) == 1
    monkeypatch.setattr("skillsift.casefile.files._PARSED", {})
    assert load_file(str(path), "examples", "big.yaml") == first
    assert len(made) == 1  # a hit parses nothing
    monkeypatch.setattr(skillsift.catalog, "collector_pause", None)  # a library call: the collector as it is
    _same(_parse(b"cases: [", "x", "cases"), parsed(b"cases: [", "x", "cases", _digest(b"cases: [")))
