"""The one-pass needle test (an RE2 set, used past the first megabyte a process scans) finds
exactly what each rule's own substring test finds: same matches, same order, on every kind of
planted secret, its near misses, the example skills and texts whose case folding changes length."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from skillsift.secrets import scan
from tests.support.secret_samples import GENERATORS, sample

ROOT = Path(__file__).resolve().parents[2]


def _texts() -> list[str]:
    rng = random.Random(45)
    out = []
    for kind in sorted(GENERATORS):
        line, _value = sample(kind, rng)
        out += [line, f"prefix {line} suffix", line.upper(), line.lower(), line[:-1], line[1:]]
    out += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").rglob("*.md"))]
    # case folding: the long s and the Kelvin sign fold to ASCII letters, the sharp s to "ss"
    out += ["PAẞWORD = 'Zq8vN2mKp4Lx7Rt1'", "paßword: 'Zq8vN2mKp4Lx7Rt1'", "ſecret_\u212aey = 'Zq8vN2mKp4Lx7Rt1'",
            "BASIC dXNlcjpwYXNzd29yZA==", "token=\udcff\udc80 'Zq8vN2mKp4Lx7Rt1'", "", "é" * 50]
    return out


def test_the_needle_set_finds_what_each_rule_finds(monkeypatch):
    texts = _texts()
    monkeypatch.setattr(scan, "_NEEDLE_SET_AFTER", 1 << 62)
    each = [scan._matches(text, ()) for text in texts]
    monkeypatch.setattr(scan, "_NEEDLE_SET_AFTER", -1)
    assert scan._needles_held("token: x") is not None  # the set is used from here on
    one_pass = [scan._matches(text, ()) for text in texts]
    assert one_pass == each
    assert sum(1 for found in each if found) > len(GENERATORS)  # the texts do hold secrets


@pytest.mark.parametrize("folded", [False, True])
def test_the_set_reports_every_needle_a_text_holds(folded):
    pair = scan._needle_sets()[folded]
    needles = sorted({n for rule in scan.PATTERNS if rule.folded == folded for n in rule.needles})
    assert pair[1] == needles
    for needle in needles:
        text = f"x{needle}y é"
        assert scan._held(pair, text) == {n for n in needles if n in text}


@pytest.mark.parametrize("kind", sorted(rule.kind for rule in scan.PATTERNS if rule.prefilter))
def test_a_prefilter_holds_every_match_of_its_rule(kind, monkeypatch):
    """A prefilter spares its rule's regex only where no match can be: each planted secret of the
    kind, in several surroundings, is still found with the one-pass test."""
    rng = random.Random(kind)
    monkeypatch.setattr(scan, "_NEEDLE_SET_AFTER", -1)
    for _ in range(20):
        line, value = sample(kind, rng)
        for text in (line, f"x = {value}\n", f"é {value} é", f"({value})"):
            found = scan._matches(text, ())
            assert any(pattern.kind == kind for _s, _e, pattern in found), (kind, text)
