"""The manifest's items read at once when every field has its type, field by field otherwise: the same items and
the same refusals either way (seeded random entries: fields missing, null, of another type, bools for the row,
extra keys), and a real manifest's items equal to the field-by-field reading."""

from __future__ import annotations

import json
import random

import pytest

from skillsift.index import manifest as manifest_module
from skillsift.index.manifest import ManifestInvalid, parse_manifest

FIELDS = ("id", "kind", "domain", "item_digest", "text_digest", "row", "row_digest")
ODD = (None, True, False, 0, 1, -3, 2.5, "", "x", [], {}, ["a"], {"k": 1})


def _entry(rng: random.Random, row: int):
    if rng.random() < 0.05:
        return rng.choice((None, [], "item", 7))
    entry = {"id": f"skill-{row}", "kind": "skill", "domain": "", "item_digest": "sha256:aa",
             "text_digest": "sha256:bb", "row": row, "row_digest": "sha256:cc"}
    for name in FIELDS:
        roll = rng.random()
        if roll < 0.08:
            del entry[name]
        elif roll < 0.16:
            entry[name] = rng.choice(ODD)
    if rng.random() < 0.1:
        entry["extra"] = rng.choice(ODD)
    return entry


def _outcome(call):
    try:
        return ("ok", call())
    except ManifestInvalid as exc:
        return ("invalid", str(exc))


@pytest.mark.parametrize("seed", range(300))
def test_an_entry_reads_as_field_by_field(seed, monkeypatch):
    rng = random.Random(seed)
    entry = _entry(rng, rng.randrange(5))
    position = rng.randrange(5)
    fast = _outcome(lambda: _fast_item(entry, position, monkeypatch))
    slow = _outcome(lambda: manifest_module._item(entry, position))
    assert fast == slow


def _fast_item(entry, position, monkeypatch):
    """parse_manifest's reading of one entry, through a manifest that holds it at ``position`` (the other entries
    plain), with the checks after the items (rows, order, keys) left out."""
    doc = {"schema_version": 3, "provider": "p", "model": "m", "dims": 2, "dtype": "float32", "vectors_digest": "d",
           "items": [{"id": f"s{i}", "kind": "skill", "row": i} for i in range(position)] + [entry]}
    captured = []
    monkeypatch.setattr(manifest_module, "check_items", lambda items, version=0: captured.append(items))
    parse_manifest(json.dumps(doc).encode())
    return captured[0][position]


def test_a_real_manifest_reads_as_field_by_field(tmp_path):
    from tests.index.test_index_store import sample_index

    raw = sample_index("float32").to_bytes()[0]
    parsed = parse_manifest(raw)
    entries = json.loads(raw)["items"]
    assert parsed.items and list(parsed.items) == [manifest_module._item(e, i) for i, e in enumerate(entries)]
