"""The lexical postings cache: a hit gives the postings a build gives, and anything off is a miss."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from skillsift.ranker import postings_cache as lexical_cache
from skillsift.ranker.lexical import LexicalIndex
from skillsift.ranker.postings import build_postings
from skillsift.ranker.postings_cache import PostingsCache, cached_postings

ROOT = Path(__file__).resolve().parents[2]
ACME = ROOT / "examples" / "acme"


def docs() -> list:
    return [
        SimpleNamespace(name="deploy-app", description="Deploy the app to Kubernetes clusters with Helm charts.",
                        triggers=["ship it", "roll out"], keywords=["k8s", "helm"]),
        SimpleNamespace(name="refund", description="Refund a customer's order; policies and images.",
                        triggers=[], keywords=None),
        SimpleNamespace(name="grüße", description="Straße İstanbul ΣΊΣΥΦΟΣ \U0001f680 caching classes",
                        triggers=["übersetzen"], keywords=["ünïcode"]),
        SimpleNamespace(name="empty", description="", triggers=None, keywords=[]),
    ]


def dump(postings) -> tuple:
    return list(postings.vocab.items()), list(postings.items()), postings.doc_len_list(), postings.n_docs


@pytest.fixture
def env(tmp_path) -> dict:
    return {"SKILLSIFT_CACHE_DIR": str(tmp_path / "cache")}


def test_a_hit_gives_the_built_postings_and_the_same_rankings(tmp_path, env, monkeypatch):
    built = build_postings(docs())
    first = cached_postings(tmp_path, docs(), env=env)  # a miss: built and stored
    calls = []
    monkeypatch.setattr(lexical_cache, "build_postings", lambda *a, **k: calls.append(1))
    second = cached_postings(tmp_path, docs(), env=env)  # a hit: nothing built
    assert calls == []
    assert dump(built) == dump(first) == dump(second)
    plain, cached = LexicalIndex(docs()), LexicalIndex(docs(), postings=cached_postings(tmp_path, docs(), env=env))
    for query in ("deploy kubernetes", "refund images policy", "straße istanbul σίσυφος", "caching class", "helm"):
        assert plain.rank(query) == cached.rank(query)
        assert plain.explain(query, 0) == cached.explain(query, 0)


def test_changed_texts_or_another_count_miss(tmp_path, env):
    cached_postings(tmp_path, docs(), env=env)
    changed = docs()
    changed[1].description = "Return a customer's order."
    assert dump(cached_postings(tmp_path, changed, env=env)) == dump(build_postings(changed))
    fewer = docs()[:3]
    assert dump(cached_postings(tmp_path, fewer, env=env)) == dump(build_postings(fewer))
    # Moving text between fields is another key, though the words are the same.
    moved = docs()
    moved[0].triggers, moved[0].keywords = moved[0].keywords, moved[0].triggers
    assert dump(cached_postings(tmp_path, moved, env=env)) == dump(build_postings(moved))


def _file(tmp_path, env) -> Path:
    name = PostingsCache(tmp_path, env=env).path  # a string (the caches name their files without pathlib)
    assert name is not None and Path(name).is_file()
    return Path(name)


@pytest.mark.parametrize("damage", ["truncate", "flip", "header", "empty", "garbage"])
def test_a_damaged_file_is_a_miss(tmp_path, env, damage):
    cached_postings(tmp_path, docs(), env=env)
    path = _file(tmp_path, env)
    data = path.read_bytes()
    cut = data.index(b"\n")
    if damage == "truncate":
        data = data[:-5]
    elif damage == "flip":
        data = data[:-3] + bytes([data[-3] ^ 0xFF]) + data[-2:]
    elif damage == "header":
        head = json.loads(data[:cut])
        head["n_docs"] = 99
        data = json.dumps(head).encode() + data[cut:]
    elif damage == "empty":
        data = b""
    else:
        data = b"\x00\xff" * 100
    path.write_bytes(data)
    hit = PostingsCache(tmp_path, env=env).get(lexical_cache.texts_key(lexical_cache.field_texts(docs())), 4)
    assert hit is None
    assert dump(cached_postings(tmp_path, docs(), env=env)) == dump(build_postings(docs()))


def test_a_consistent_but_wrong_body_is_refused(tmp_path, env):
    """Sections rewritten with a matching digest still have to check out (document ids in range)."""
    cached_postings(tmp_path, docs(), env=env)
    path = _file(tmp_path, env)
    data = path.read_bytes()
    cut = data.index(b"\n")
    head, body = json.loads(data[:cut]), bytearray(data[cut + 1:])
    start = head["sizes"][0] + head["sizes"][1]
    body[start:start + 8] = (10_000).to_bytes(8, sys.byteorder, signed=True)  # the first document id
    import hashlib

    head["sha256"] = hashlib.sha256(body).hexdigest()
    path.write_bytes(json.dumps(head, separators=(",", ":")).encode() + b"\n" + bytes(body))
    assert PostingsCache(tmp_path, env=env).get(head["key"], 4) is None


def test_off_writes_nothing(tmp_path):
    env = {"SKILLSIFT_CACHE_DIR": str(tmp_path / "cache"), "SKILLSIFT_CACHE": "off"}
    assert dump(cached_postings(tmp_path, docs(), env=env)) == dump(build_postings(docs()))
    assert not (tmp_path / "cache").exists()


def test_the_file_is_private_and_one_per_root(tmp_path, env):
    cached_postings(tmp_path / "a", docs(), env=env)
    cached_postings(tmp_path / "a", docs()[:2], env=env)
    cached_postings(tmp_path / "b", docs(), env=env)
    folder = Path(env["SKILLSIFT_CACHE_DIR"]) / "lexical"
    files = sorted(folder.iterdir())
    assert len(files) == 2
    assert all(f.stat().st_mode & 0o777 == 0o600 for f in files)
    assert folder.stat().st_mode & 0o777 == 0o700


def test_search_json_is_the_same_with_and_without_the_cache(tmp_path):
    environ = {k: v for k, v in os.environ.items() if k != "SKILLSIFT_CACHE"}
    environ["SKILLSIFT_CACHE_DIR"] = str(tmp_path / "cache")
    environ["PYTHONPATH"] = str(ROOT)
    argv = [sys.executable, "-m", "skillsift", "search", "roll back the last release", "--format", "json",
            "--explain", "--limit", "10"]

    def run(extra: dict) -> bytes:
        done = subprocess.run(argv, cwd=ACME, env={**environ, **extra}, capture_output=True, check=True)
        return done.stdout

    uncached = run({"SKILLSIFT_CACHE": "off"})
    first, second = run({}), run({})
    assert (tmp_path / "cache" / "lexical").is_dir()
    assert uncached == first == second
    assert json.loads(uncached)["results"]


def _old_checks_pass(bounds, docs, tfs, n_docs: int, n_terms: int) -> bool:
    """The range checks of _unpack as first written (the generator and the two passes over the ids)."""
    if any(bounds[i] >= bounds[i + 1] for i in range(n_terms)):
        return False
    return not (docs and (min(docs) < 0 or max(docs) >= n_docs or not 0 < min(tfs) <= max(tfs) < float("inf")))


@pytest.mark.parametrize("seed", range(3))
def test_the_range_checks_refuse_what_the_first_ones_refused(seed):
    """Offsets, document ids and weights packed at random, some out of range: _unpack refuses exactly the
    bodies the looped checks refused (and gives the postings of the others)."""
    import random
    from array import array

    rng = random.Random(seed)
    refused = taken = 0
    for _ in range(400):
        n_docs, n_terms = rng.randint(1, 40), rng.randint(1, 12)
        cuts = sorted(rng.sample(range(1, 60), n_terms))
        bounds = array("q", [0, *cuts])
        if rng.random() < 0.3:  # an offset that does not rise
            at = rng.randrange(1, len(bounds) - 1) if len(bounds) > 2 else 1
            bounds[at] = bounds[at - 1] - rng.choice((0, 1))
            bounds[-1] = max(bounds[-1], 0)
        size = bounds[-1]
        docs = array("q", [rng.randrange(n_docs) for _ in range(size)])
        if size and rng.random() < 0.3:
            docs[rng.randrange(size)] = rng.choice((-1, -(2**63), n_docs, n_docs + 7, 2**63 - 1))
        tfs = array("d", [rng.uniform(0.5, 9.0) for _ in range(size)])
        if size and rng.random() < 0.2:
            tfs[rng.randrange(size)] = rng.choice((0.0, -1.0, float("inf")))
        lengths = array("d", [float(rng.randint(0, 30)) for _ in range(n_docs)])
        terms = [f"t{i}" for i in range(n_terms)]
        sections = ["\n".join(terms).encode(), bounds.tobytes(), docs.tobytes(), tfs.tobytes(), lengths.tobytes()]
        got = lexical_cache._unpack(memoryview(b"".join(sections)), [len(s) for s in sections], n_docs)
        expected = len(bounds) == n_terms + 1 and bounds[-1] == len(docs) and _old_checks_pass(
            bounds, docs, tfs, n_docs, n_terms)
        assert (got is not None) == expected, (list(bounds), list(docs), list(tfs))
        refused += got is None
        taken += got is not None
    assert refused > 50 and taken > 50


def test_the_key_tells_where_one_text_ends():
    key = lexical_cache.texts_key
    assert key([["ab", ""]]) != key([["a", "b"]]) != key([["", "ab"]])
    assert key([["a"], ["b"]]) != key([["a", "b"], []]) != key([["ab"], []])
    assert key([["\ud800x"]]) != key([["\ud801x"]])  # lone surrogates are text too
    assert key([["é"]]) == key([["é"]]) and len(key([[]])) == 64
