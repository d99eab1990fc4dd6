"""The secret-scan cache: validate gives the same bytes with and without it, and it holds no secret."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillsift.cache import secret_scans as catalog_cache
from skillsift.cli import main
from skillsift.secrets import scan as secrets
from tests.support.secret_samples import write_planted


def validate(capsys, root, *extra) -> tuple[int, str]:
    code = main(["validate", "--root", str(root), "--format", "json", *extra])
    out, _err = capsys.readouterr()
    return code, out


def scans(monkeypatch) -> list:
    calls: list = []
    real = secrets._matches
    monkeypatch.setattr(secrets, "_matches", lambda text, *a, **k: calls.append(text) or real(text, *a, **k))
    return calls


def test_validate_is_byte_identical_with_the_cache_and_scans_only_changed_texts(tmp_path, cache_dir, capsys,
                                                                               monkeypatch):
    root = tmp_path / "repo"
    entries = write_planted(root)
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    uncached = validate(capsys, root)
    monkeypatch.delenv("SKILLSIFT_CACHE")
    first = validate(capsys, root)
    calls = scans(monkeypatch)
    readings: list = []
    real_held = secrets._needles_held
    monkeypatch.setattr(secrets, "_needles_held", lambda text, *parts: readings.append(text) or real_held(text, *parts))
    second = validate(capsys, root)
    assert uncached == first == second
    assert uncached[0] == 1 and json.loads(uncached[1])["diagnostics"]
    assert calls == []  # every text was scanned before
    assert readings == []  # and no needle reading is made for texts the cache answers
    # The cache keeps offsets, never a secret value.
    stored = "\n".join(p.read_text(encoding="utf-8") for p in (cache_dir / "secrets").iterdir())
    for _id, _placement, _kind, _line, value in entries:
        assert len(value) < 12 or value not in stored
    # An edited file is scanned again, and the result follows the edit.
    path = root / ".claude/skills" / entries[0][0] / "SKILL.md"
    path.write_text(path.read_text(encoding="utf-8").replace("Deploys the service", "Ships the service"),
                    encoding="utf-8")
    third = validate(capsys, root)
    assert calls and third != second
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    assert validate(capsys, root) == third


@pytest.mark.parametrize("entry", [
    "not a list", [[0, 10**9, 0]], [[5, 2, 0]], [[0, 4, 10**6]], [["0", 4, 0]], [[0, 4]], [[-1, 4, 0]],
])
def test_a_damaged_entry_is_scanned_again(tmp_path, cache_dir, entry):
    text = "token = 'Zq8vN3xL1pR7tY2wK9mB'\n"
    truth = secrets.scan_values(text)
    cache = catalog_cache.ScanCache(tmp_path)
    assert secrets.scan_values(text, cache=cache) == truth and cache.save()
    doc = json.loads(Path(cache.path).read_text(encoding="utf-8"))
    key = next(iter(doc["entries"]))
    doc["entries"][key] = entry
    Path(cache.path).write_text(json.dumps(doc), encoding="utf-8")
    again = catalog_cache.ScanCache(tmp_path)
    assert secrets.scan_values(text, cache=again) == truth
    assert again.misses == 1 and again.hits == 0


def test_configured_patterns_are_part_of_the_key(tmp_path, cache_dir):
    text = "ticket ACME-73915062 here\n"
    cache = catalog_cache.ScanCache(tmp_path)
    assert secrets.scan_values(text, cache=cache) == []
    extra = (("acme-ticket", r"ACME-[0-9]{8}"),)
    found = secrets.scan_values(text, extra, cache=cache)
    assert [f.kind for f, _v in found] == ["acme-ticket"] and found == secrets.scan_values(text, extra)
