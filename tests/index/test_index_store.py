"""The index files: manifest bytes, vectors.bin, normalisation, validated loading, usability
and the classification of skills (reference §5.2-§5.5, §5.10 and §10.5)."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
import struct

import numpy as np
import pytest

from skillsift.catalog.embedtext import embedded_text, text_digest
from skillsift.catalog.skill import Skill
from skillsift.config import DEFAULT_EMBED_FIELDS, DEFAULT_FIELDS
from skillsift.index import manifest as manifest_module
from skillsift.index import store
from skillsift.index.classify import Served, classify, classify_skills
from skillsift.index.manifest import Manifest, ManifestItem, encode_json, parse_manifest, unusable_reason
from skillsift.index.store import (
    Index,
    IndexDataError,
    IndexReadError,
    encode_vectors,
    load_index,
    new_index,
    normalize_rows,
    squared_norms,
    write_index,
)
from tests.support.concept_embedder import refund_catalog

ITEMS = (
    ManifestItem("b", item_digest="sha256:b", text_digest="sha256:tb"),
    ManifestItem("a", domain="d", item_digest="sha256:a", text_digest="sha256:ta"),
)
VECTORS = ([1, 2, 3], [0.5, -1, 0.25])

FLOAT32_DIGEST = "sha256:864dc0c86cd9479cd81f8d7ded3b6265f530a55265016ddb9cc5dae96bf5ef46"
FLOAT16_DIGEST = "sha256:b6f40556fe44f0029a1d550eece8c11f077e834c7648f012975e3a89053b5357"

EXPECTED_MANIFEST = """{
  "schema_version": 3,
  "doc_template_version": 1,
  "provider": "test@local",
  "model": "m",
  "dims": 3,
  "dtype": "float32",
  "normalized": true,
  "fields": [
    "name"
  ],
  "index_body": false,
  "vectors_digest": "VECTORS_DIGEST",
  "items": [
    {
      "id": "b",
      "kind": "skill",
      "domain": "",
      "item_digest": "sha256:b",
      "text_digest": "sha256:tb",
      "row": 0,
      "row_digest": "sha256:29dc47a1945ba066290dec0730021f55e61d3f6ddf7e45cf7ffc49a95732a00b"
    },
    {
      "id": "a",
      "kind": "skill",
      "domain": "d",
      "item_digest": "sha256:a",
      "text_digest": "sha256:ta",
      "row": 1,
      "row_digest": "sha256:f8ce8c526e1c166de3452edd396000aba0396ec23460161136ec9545a7616b7d"
    }
  ]
}
""".replace("VECTORS_DIGEST", FLOAT32_DIGEST)


def sample_index(dtype: str = "float32", **overrides) -> Index:
    options = dict(
        provider="test@local", model="m", dims=3, dtype=dtype, fields=("name",), items=ITEMS, vectors=VECTORS
    )
    options.update(overrides)
    return new_index(**options)


def write_raw(directory, manifest: dict, vectors: bytes, *, digest: str | None = None) -> None:
    """Write an index by hand (the writer refuses what these tests need to store)."""
    directory.mkdir(parents=True, exist_ok=True)
    manifest = dict(manifest)
    manifest["vectors_digest"] = digest or "sha256:" + hashlib.sha256(vectors).hexdigest()
    if manifest.get("schema_version") == 3 and vectors:  # seal each row as the writer does
        header = parse_manifest(encode_json({**manifest, "items": []}))
        stride = len(vectors) // max(len(manifest["items"]), 1)
        manifest["items"] = [dict(item, row_digest=store.row_digest(
            header, ManifestItem(item["id"], item["domain"], text_digest=item["text_digest"], kind=item["kind"]),
            vectors[i * stride:(i + 1) * stride])) for i, item in enumerate(manifest["items"])]
    (directory / "vectors.bin").write_bytes(vectors)
    (directory / "manifest.json").write_bytes(encode_json(manifest))


def raw_manifest(rows: int, dims: int, dtype: str = "float32", **extra) -> dict:
    out = {
        "schema_version": 3,
        "doc_template_version": 1,
        "provider": "p",
        "model": "m",
        "dims": dims,
        "dtype": dtype,
        "normalized": True,
        "fields": ["name"],
        "index_body": False,
        "items": [
            {"id": f"s{i}", "kind": "skill", "domain": "", "item_digest": "", "text_digest": "", "row": i}
            for i in range(rows)
        ],
    }
    out.update(extra)
    return out


def unit_rows(rows: int, dims: int) -> np.ndarray:
    matrix = np.zeros((rows, dims), dtype=np.float32)
    matrix[np.arange(rows), np.arange(rows) % dims] = 1.0
    return matrix


# --------------------------------------------------------------------------- bytes


def test_computed_example_of_the_reference_float32():
    index = sample_index()
    assert index.matrix.dtype == np.float32
    assert index.matrix.tolist() == [
        [np.float32(0.26726124), np.float32(0.5345225), np.float32(0.8017837)],
        [np.float32(0.4364358), np.float32(-0.8728716), np.float32(0.2182179)],
    ]
    manifest, vectors = index.to_bytes()
    assert len(vectors) == 24
    assert "sha256:" + hashlib.sha256(vectors).hexdigest() == FLOAT32_DIGEST
    assert index.manifest.vectors_digest == FLOAT32_DIGEST
    assert manifest.decode("utf-8") == EXPECTED_MANIFEST


def test_computed_example_of_the_reference_float16():
    index = sample_index("float16")
    manifest, vectors = index.to_bytes()
    assert len(vectors) == 2 * 3 * 2
    assert "sha256:" + hashlib.sha256(vectors).hexdigest() == FLOAT16_DIGEST
    assert json.loads(manifest)["vectors_digest"] == FLOAT16_DIGEST
    # the in-memory rows are already quantised: exactly what a load gives back
    assert index.matrix[0].tolist() == [0.267333984375, 0.53466796875, 0.8017578125]
    assert len(sample_index("float32").to_bytes()[1]) == 2 * len(vectors)


def test_vectors_are_little_endian_row_major():
    index = sample_index()
    _, vectors = index.to_bytes()
    assert vectors[:4] == struct.pack("<f", index.matrix[0, 0])
    assert vectors[4:8] == struct.pack("<f", index.matrix[0, 1])
    assert np.frombuffer(vectors, dtype="<f4").reshape(2, 3).tolist() == index.matrix.tolist()


def test_bytes_are_deterministic():
    first, second = sample_index("float16"), sample_index("float16")
    assert first.to_bytes() == second.to_bytes()
    reversed_input = sample_index("float16", items=ITEMS[::-1], vectors=VECTORS[::-1])
    assert reversed_input.to_bytes() == first.to_bytes()


def test_body_chars_is_written_only_with_index_body():
    with_body = json.loads(sample_index(index_body=True, body_chars=300).to_bytes()[0])
    assert list(with_body)[8:11] == ["index_body", "body_chars", "vectors_digest"]
    assert with_body["body_chars"] == 300
    assert json.loads(sample_index(index_body=True, body_chars=0).to_bytes()[0])["body_chars"] == 1200
    without = json.loads(sample_index(index_body=False, body_chars=300).to_bytes()[0])
    assert "body_chars" not in without


def test_fields_are_recorded_in_configured_order_and_never_null():
    reordered = sample_index(fields=("triggers", "name")).to_bytes()[0]
    assert json.loads(reordered)["fields"] == ["triggers", "name"]
    assert b'"fields": [],' in sample_index(fields=()).to_bytes()[0]
    empty = new_index(provider="p", model="m", dims=2, items=[], vectors=[])
    assert empty.to_bytes()[0].endswith(b'"items": []\n}\n')


def test_json_escapes_html_characters_like_the_reference():
    index = sample_index(provider="a<b>&c", model='é\u2028\u2029\x01\t"\\')
    raw = index.to_bytes()[0]
    assert b'"provider": "a\\u003cb\\u003e\\u0026c",' in raw
    assert '"model": "é\\u2028\\u2029\\u0001\\t\\"\\\\",'.encode() in raw
    assert parse_manifest(raw).provider == "a<b>&c"


def test_items_sorted_by_domain_then_id_in_byte_order():
    items = [
        ManifestItem("z"),
        ManifestItem("a", domain="ops"),
        ManifestItem("é"),
        ManifestItem("Z"),
        ManifestItem("b", domain=""),
    ]
    index = new_index(provider="p", model="m", items=items, vectors=unit_rows(5, 5))
    assert [(it.domain, it.id, it.row) for it in index.items] == [
        ("", "Z", 0),
        ("", "b", 1),
        ("", "z", 2),
        ("", "é", 3),
        ("ops", "a", 4),
    ]
    # each vector travelled with its item
    assert index.vector(index.row("ops", "a")).tolist() == [0, 1, 0, 0, 0]
    assert index.vector(index.row("", "é")).tolist() == [0, 0, 1, 0, 0]


# --------------------------------------------------------------------------- normalisation


def test_normalisation_rules():
    rows = np.array([[3, 4], [0, 0], [0.6, 0.8], [1, 0], [1e-20, 0]], dtype=np.float32)
    out = normalize_rows(rows)
    assert out.dtype == np.float32
    assert out[0].tolist() == [np.float32(0.6), np.float32(0.8)]
    assert out[1].tolist() == [0, 0]  # zero rows are left alone
    assert out[2].tobytes() == rows[2].tobytes()  # already unit within 1e-5: bits untouched
    assert out[3].tolist() == [1, 0]
    assert out[4].tolist() == [1, 0]


def test_normalisation_scales_by_a_float32_inverse():
    rng = np.random.default_rng(3)
    rows = rng.normal(size=(50, 7)).astype(np.float32)
    out = normalize_rows(rows)
    for source, got in zip(rows, out, strict=True):
        total = 0.0
        for x in source.tolist():
            total += x * x
        inverse = np.float32(1 / math.sqrt(total))
        assert got.tolist() == [np.float32(np.float32(x) * inverse) for x in source.tolist()]


def test_squared_norms_sum_left_to_right_in_float64():
    rng = np.random.default_rng(11)
    rows = (rng.normal(size=(40, 33)) * rng.uniform(1e-3, 1e3, size=(40, 1))).astype(np.float32)
    sums = squared_norms(rows, chunk_rows=7)
    for row, got in zip(rows, sums, strict=True):
        total = 0.0
        for x in row.tolist():
            total += x * x
        assert got == total


# --------------------------------------------------------------------------- constructor


@pytest.mark.parametrize(
    ("items", "vectors", "message"),
    [
        ([ManifestItem("a")], [[1.0]], "dimensions"),
        ([ManifestItem("a")], [[1.0, math.nan]], "NaN"),
        ([ManifestItem("a")], [[1.0, math.inf]], "infinite"),
        ([ManifestItem("a")], [[1.0, 1e39]], "infinite"),
        ([ManifestItem("a"), ManifestItem("a")], [[1, 0], [0, 1]], "twice"),
        ([ManifestItem("a")], [[1, 0], [0, 1]], "1 items but 2 vectors"),
        ([ManifestItem("a")], [[[1, 0]]], "flat"),
    ],
)
def test_new_index_rejects_bad_input(items, vectors, message):
    with pytest.raises(IndexDataError, match=message):
        new_index(provider="p", model="m", dims=2, items=items, vectors=vectors)


def test_new_index_rules_on_dims_and_dtype():
    with pytest.raises(IndexDataError, match="needs dims"):
        new_index(provider="p", model="m", items=[], vectors=[])
    with pytest.raises(IndexDataError, match="out of range"):
        new_index(provider="p", model="m", dims=16385, items=[], vectors=[])
    with pytest.raises(IndexDataError, match="dtype"):
        sample_index("int8")
    assert new_index(provider="p", model="m", items=[ManifestItem("a")], vectors=[[0, 2, 0, 0]]).dims == 4


def test_same_id_in_two_domains_is_two_rows():
    index = new_index(
        provider="p",
        model="m",
        items=[ManifestItem("a"), ManifestItem("a", domain="x")],
        vectors=[[1, 0], [0, 1]],
    )
    assert (index.row("", "a"), index.row("x", "a")) == (0, 1)


def test_float16_overflow_is_an_error():
    with pytest.raises(IndexDataError, match="component 1e\\+09 does not fit float16"):
        encode_vectors(np.array([[1e9, 0, 0]], dtype=np.float32), "float16")
    with pytest.raises(IndexDataError, match="does not fit float16"):
        encode_vectors(np.array([[0.5, 65520]], dtype=np.float32), "float16")
    assert len(encode_vectors(np.array([[0.5, 65504]], dtype=np.float32), "float16")) == 4


def test_writing_an_overflowing_float16_index_writes_nothing(tmp_path):
    index = sample_index("float16")
    broken = Index(index.manifest, np.array([[1e9, 0, 0], [1, 0, 0]], dtype=np.float32))
    with pytest.raises(IndexDataError, match="does not fit float16"):
        write_index(tmp_path / "idx", broken)
    assert not (tmp_path / "idx").exists()


def test_index_matrix_is_read_only_and_rows_resolve():
    index = sample_index()
    with pytest.raises(ValueError):
        index.matrix[0, 0] = 1.0
    assert len(index) == 2
    assert index.row("d", "a") == 1 and index.row("", "a") == -1
    assert index.info() == {"provider": "test@local", "model": "m", "dims": 3, "dtype": "float32", "rows": 2,
                            "bytes": 24}
    assert sample_index("float16").info()["bytes"] == 12


# --------------------------------------------------------------------------- write and load


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_write_load_round_trip(tmp_path, dtype):
    index = sample_index(dtype)
    assert write_index(tmp_path, index) is True
    result = load_index(tmp_path)
    assert result.ok and result.reason == "" and result.found
    loaded = result.index
    assert loaded.manifest == index.manifest
    assert len(loaded) == 2
    assert loaded.row("d", "a") == 1
    assert loaded.row("", "b") == 0
    assert loaded.row("", "missing") == -1
    assert loaded.matrix.dtype == np.float32
    assert loaded.matrix.view(np.uint32).tolist() == index.matrix.view(np.uint32).tolist()
    assert loaded.to_bytes() == index.to_bytes()


def test_write_modes_and_unchanged_rewrite(tmp_path):
    target = tmp_path / "nested" / "index"
    assert write_index(target, sample_index()) is True
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o750 & ~umask
    for name in ("manifest.json", "vectors.bin"):
        assert stat.S_IMODE((target / name).stat().st_mode) == 0o644
    before = {name: (target / name).stat() for name in ("manifest.json", "vectors.bin")}
    assert write_index(target, sample_index()) is False
    after = {name: (target / name).stat() for name in ("manifest.json", "vectors.bin")}
    for name, old in before.items():
        assert (after[name].st_ino, after[name].st_mtime_ns) == (old.st_ino, old.st_mtime_ns)
    assert sorted(os.listdir(target)) == ["manifest.json", "vectors.bin"]


def test_only_the_changed_file_is_rewritten(tmp_path):
    write_index(tmp_path, sample_index())
    vectors_before = (tmp_path / "vectors.bin").stat()
    edited = list(ITEMS)
    edited[0] = ManifestItem("b", item_digest="sha256:edited-body", text_digest="sha256:tb")
    assert write_index(tmp_path, sample_index(items=edited)) is True
    vectors_after = (tmp_path / "vectors.bin").stat()
    assert vectors_after.st_ino == vectors_before.st_ino
    assert load_index(tmp_path).index.items[0].item_digest == "sha256:edited-body"


def test_vectors_are_written_before_the_manifest(tmp_path, monkeypatch):
    from skillsift.index import atomic

    order = []
    real = atomic.os.replace

    def recording(src, dst):
        order.append(os.path.basename(dst))
        return real(src, dst)

    monkeypatch.setattr(atomic.os, "replace", recording)
    write_index(tmp_path, sample_index())
    assert order == ["vectors.bin", "manifest.json"]


def test_absent_index_is_no_index_not_found(tmp_path):
    for directory in (tmp_path / "absent", tmp_path):
        result = load_index(directory)
        assert result.index is None and not result.found
        assert "manifest.json is missing" in result.reason
        assert "skillsift index" in result.hint
    (tmp_path / "file").write_text("x")
    assert not load_index(tmp_path / "file").found  # a path below a file is no index either


def _damage_truncate(d):
    raw = (d / "vectors.bin").read_bytes()
    (d / "vectors.bin").write_bytes(raw[:-4])


def _damage_flip(d):
    raw = bytearray((d / "vectors.bin").read_bytes())
    raw[0] ^= 1
    (d / "vectors.bin").write_bytes(bytes(raw))


def _damage_key(d):
    raw = (d / "manifest.json").read_bytes()
    assert raw[5:19] == b"schema_version"
    (d / "manifest.json").write_bytes(raw[:15] + b"9" + raw[16:])


def _rewrite_manifest(change):
    def damage(d):
        data = json.loads((d / "manifest.json").read_bytes())
        change(data)
        (d / "manifest.json").write_bytes(encode_json(data))

    return damage


DAMAGE = {
    "vectors truncated": (_damage_truncate, "the manifest needs 24"),
    "vectors flipped bit": (_damage_flip, "does not match the manifest's vectors_digest"),
    "vectors missing": (lambda d: (d / "vectors.bin").unlink(), "cannot be read"),
    "vectors is a directory": (
        lambda d: ((d / "vectors.bin").unlink(), (d / "vectors.bin").mkdir()),
        "not a regular file",
    ),
    "manifest not json": (lambda d: (d / "manifest.json").write_bytes(b"{"), "does not parse"),
    "manifest not utf-8": (lambda d: (d / "manifest.json").write_bytes(b'{"provider": "\xff"}'), "not UTF-8"),
    "manifest is a list": (lambda d: (d / "manifest.json").write_bytes(b"[]"), "JSON object"),
    "manifest is a directory": (
        lambda d: ((d / "manifest.json").unlink(), (d / "manifest.json").mkdir()),
        "not a regular file",
    ),
    "schema_version key corrupted": (_damage_key, "schema_version is 0"),
    "schema_version 4": (_rewrite_manifest(lambda m: m.update(schema_version=4)), "schema_version is 4"),
    "dtype int8": (_rewrite_manifest(lambda m: m.update(dtype="int8")), 'dtype "int8"'),
    "dims 0": (_rewrite_manifest(lambda m: m.update(dims=0)), "dims 0 is out of range"),
    "dims 16385": (_rewrite_manifest(lambda m: m.update(dims=16385)), "dims 16385 is out of range"),
    "dims a string": (_rewrite_manifest(lambda m: m.update(dims="3")), "dims must be int"),
    "dims a float": (_rewrite_manifest(lambda m: m.update(dims=3.0)), "dims must be int"),
    "index_body a number": (_rewrite_manifest(lambda m: m.update(index_body=1)), "index_body must be bool"),
    "items not a list": (_rewrite_manifest(lambda m: m.update(items={})), "items must be list"),
    "item id a number": (
        _rewrite_manifest(lambda m: m["items"][0].update(id=5)),
        "items\\[0\\].id must be str",
    ),
    "wrong row numbers": (_rewrite_manifest(lambda m: m["items"][1].update(row=0)), "has row 0, want 1"),
    "duplicate ids": (
        _rewrite_manifest(lambda m: m["items"][1].update(id="b", domain="")),
        'lists "b" twice',
    ),
    "digest of another file": (
        _rewrite_manifest(lambda m: m.update(vectors_digest="sha256:" + "0" * 64)),
        "vectors_digest",
    ),
    "one item more": (
        _rewrite_manifest(lambda m: m["items"].append(dict(m["items"][1], id="c", row=2))),
        "the manifest needs 36",
    ),
    "NaN literal": (
        lambda d: (d / "manifest.json").write_bytes(
            (d / "manifest.json").read_bytes().replace(b'"dims": 3', b'"dims": NaN')
        ),
        "not JSON",
    ),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_load_rejects_damage(tmp_path, case):
    damage, reason = DAMAGE[case]
    write_index(tmp_path, sample_index())
    assert load_index(tmp_path).ok
    damage(tmp_path)
    result = load_index(tmp_path)
    assert result.index is None
    assert result.found
    assert "rebuild" in result.hint
    assert re.search(reason, result.reason), result.reason


def test_unknown_manifest_keys_are_ignored(tmp_path):
    write_index(tmp_path, sample_index())
    _rewrite_manifest(lambda m: m.update(built_at="2026-01-01", extra={"a": 1}))(tmp_path)
    assert load_index(tmp_path).ok


def test_nan_and_infinite_rows_are_refused_at_load(tmp_path):
    for bad in (math.nan, math.inf, -math.inf):
        vectors = np.array([[1, 0, 0], [bad, 0, 0]], dtype="<f4").tobytes()
        write_raw(tmp_path, raw_manifest(2, 3), vectors)  # with row digests that match: only the values are bad
        result = load_index(tmp_path)
        assert [(r.id, r.row, r.reason) for r in result.refused] == [("s1", 1, "it holds a NaN or infinite component")]
        assert [item.id for item in result.index.items] == ["s0"] and result.index.matrix.tolist() == [[1, 0, 0]]


def test_unit_length_tolerances(tmp_path):
    def load(row, dtype):
        matrix = np.array([row], dtype=np.float32)
        data = encode_vectors(matrix, dtype) if dtype == "float16" else matrix.astype("<f4").tobytes()
        write_raw(tmp_path, raw_manifest(1, 2, dtype), data)
        result = load_index(tmp_path)
        assert result.ok
        return [r.reason for r in result.refused]

    assert load([1.0005, 0], "float32") == []
    assert load([1.002, 0], "float32") == ["it is not unit length (norm 1.002)"]
    assert load([0, 0], "float32") == ["it is all zeros"]  # a zero row ranks nothing: refused
    assert load([1.005, 0], "float16") == []
    assert load([1.02, 0], "float16") != []
    assert load([0.5, 0.5], "float16") != []


def test_zero_items_load(tmp_path):
    write_raw(tmp_path, raw_manifest(0, 4), b"")
    result = load_index(tmp_path)
    assert result.ok and len(result.index) == 0 and result.index.matrix.shape == (0, 4)


def test_oversize_manifest_is_not_read(tmp_path, monkeypatch):
    write_index(tmp_path, sample_index())
    with open(tmp_path / "manifest.json", "r+b") as handle:
        handle.truncate((64 << 20) + 1)  # sparse: costs no disk
    monkeypatch.setattr(store, "_read", lambda path: pytest.fail(f"read {path}"))
    result = load_index(tmp_path)
    assert result.index is None and "the limit is 67108864" in result.reason


def test_oversize_vectors_are_not_read(tmp_path, monkeypatch):
    rows, dims = 1601, 16384  # 1601 * 16384 * 4 bytes is just over 100 MiB
    write_raw(tmp_path, raw_manifest(rows, dims), b"", digest="sha256:x")
    with open(tmp_path / "vectors.bin", "r+b") as handle:
        handle.truncate(rows * dims * 4)
    real_read = store._read

    def read_manifest_only(path):
        if not path.endswith(".json"):
            pytest.fail(f"read {path}")
        return real_read(path)

    monkeypatch.setattr(store, "_read", read_manifest_only)
    result = load_index(tmp_path)
    assert result.index is None and "limit 104857600" in result.reason


def test_more_than_a_million_items_is_refused():
    header = {"schema_version": 1, "dtype": "float32", "dims": 1}
    raw = json.dumps({**header, "items": [None] * 1_000_001}).encode()
    with pytest.raises(manifest_module.ManifestInvalid, match="1000001 rows, the limit is 1000000"):
        parse_manifest(raw)


def test_other_io_errors_on_the_manifest_are_real_errors(tmp_path, monkeypatch):
    write_index(tmp_path, sample_index())
    real_stat = os.stat

    def refusing(path, *args, **kwargs):
        if os.fspath(path).endswith("manifest.json"):
            raise PermissionError(13, "Permission denied")
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(store.os, "stat", refusing)
    with pytest.raises(IndexReadError, match="manifest.json: Permission denied"):
        load_index(tmp_path)


def test_null_values_read_as_zero_values():
    manifest = parse_manifest(
        b'{"schema_version": 1, "dtype": "float32", "dims": 2, "provider": null, '
        b'"fields": null, "items": [null]}'
    )
    assert manifest.provider == "" and manifest.fields == ()
    assert manifest.items == (ManifestItem("", kind="", row=0),)


# --------------------------------------------------------------------------- usability


REASONS = [
    ({}, ""),
    ({"model": "n"}, 'the model changed (index "m", config "n")'),
    ({"provider": "x@y"}, 'the provider changed (index "test@local", config "x@y")'),
    ({"fields": ("name",)}, "the embedded fields changed"),
    ({"fields": ("keywords", "name", "triggers", "description")}, "the embedded fields changed"),
    ({"index_body": True}, "index_body or body_chars changed"),
    ({"provider": "", "model": ""}, ""),
    ({"fields": ()}, "the embedded fields changed"),  # () means the default, which leaves the name out
]


def test_empty_fields_mean_the_default_embedded_fields():
    setup = dict(provider="test@local", model="m", fields=(), index_body=False, body_chars=1200)
    assert unusable_reason(sample_index(fields=DEFAULT_EMBED_FIELDS), **setup) == ""


@pytest.mark.parametrize(("change", "reason"), REASONS)
def test_unusable_reason_table(change, reason):
    index = sample_index(fields=DEFAULT_FIELDS)
    setup = dict(provider="test@local", model="m", fields=DEFAULT_FIELDS, index_body=False, body_chars=1200)
    setup.update(change)
    assert unusable_reason(index, **setup) == reason
    assert unusable_reason(index.manifest, **setup) == reason
    assert index.unusable_reason(**setup) == reason


def test_unusable_reason_template_body_chars_and_order():
    index = sample_index(fields=DEFAULT_FIELDS, index_body=True, body_chars=300)
    setup = dict(provider="test@local", model="m", fields=DEFAULT_FIELDS, index_body=True, body_chars=300)
    assert unusable_reason(index, **setup) == ""
    assert unusable_reason(index, **{**setup, "body_chars": 400}) == "index_body or body_chars changed"
    assert unusable_reason(index, **{**setup, "index_body": False}) == "index_body or body_chars changed"
    old = Manifest(**{**index.manifest.__dict__, "doc_template_version": 99})
    assert unusable_reason(old, **setup) == "the text template changed (index 99, build 1)"
    # the template is checked before anything else, the provider before the model
    assert "template" in unusable_reason(old, **{**setup, "provider": "x@y", "model": "n"})
    assert "provider" in unusable_reason(index, **{**setup, "provider": "x@y", "model": "n"})
    default_chars = sample_index(fields=DEFAULT_FIELDS, index_body=True, body_chars=0)
    assert unusable_reason(default_chars, **{**setup, "body_chars": 0}) == ""


# --------------------------------------------------------------------------- classification


def index_of(skills) -> Index:
    items = [
        ManifestItem(
            s.name,
            domain=s.domain,
            item_digest=s.digest,
            text_digest=text_digest(embedded_text(s, DEFAULT_FIELDS)),
        )
        for s in skills
    ]
    return new_index(
        provider="test@local",
        model="concepts-v1",
        items=items,
        vectors=unit_rows(len(items), 5),
        fields=DEFAULT_FIELDS,
    )


def test_classification_pinned_example():
    catalog = refund_catalog()
    index = index_of(catalog)
    now = list(catalog)
    now[0] = Skill(**{**catalog[0].__dict__, "description": "Something else entirely"})  # text changed
    now[1] = Skill(**{**catalog[1].__dict__, "digest": "sha256:new"})  # digest only: drifted
    now = now[:3] + [Skill(name="new-skill", description="new-skill")]  # git-workflow dropped
    result = classify_skills(index.items, now, fields=DEFAULT_FIELDS)
    assert result.stale == ("issue-refund",)
    assert result.missing == ("new-skill",)
    assert result.orphaned == ("git-workflow",)
    assert (result.current, result.drifted, result.rows) == (2, 1, 4)
    assert not result.fresh


def test_classification_fresh_and_lists_sorted():
    catalog = refund_catalog()
    index = index_of(catalog)
    assert classify_skills(index.items, catalog[::-1], fields=DEFAULT_FIELDS).fresh
    served = [Served("zeta"), Served("alpha"), Served("mid", domain="d")]
    result = classify(index.items, served)
    assert result.missing == ("alpha", "mid", "zeta")
    assert result.orphaned == ("deploy-staging", "dispute-charge", "git-workflow", "issue-refund")
    assert result.current == 0


def test_classification_keys_on_domain_and_ignores_unknown_digests():
    items = [ManifestItem("a", domain="ops", item_digest="sha256:1", text_digest="t")]
    assert classify(items, [Served("a", domain="", text_digest="t")]).missing == ("a",)
    same = classify(items, [Served("a", domain="ops", digest="", text_digest="t")])
    assert (same.current, same.drifted, same.fresh) == (1, 0, True)
    drifted = classify(items, [Served("a", domain="ops", digest="sha256:2", text_digest="t")])
    assert (drifted.current, drifted.drifted, drifted.fresh) == (1, 1, True)


def test_light_modules_do_not_import_numpy():
    import subprocess
    import sys

    code = (
        "import sys, skillsift.index, skillsift.index.lock, skillsift.index.atomic, "
        "skillsift.index.manifest, skillsift.index.classify, skillsift.catalog.embedtext; "
        "print('numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
