"""The one-pass needle test (an RE2 set, used past the first megabyte a process scans) finds
exactly what each rule's own substring test finds: same matches, same order, on every kind of
planted secret, its near misses, the example skills and texts whose case folding changes length."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from skillsift.secrets import scan
from tests.support.secret_samples import GENERATORS, sample
from tests.support.set_gates import read_with_sets

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
    read_with_sets(monkeypatch, scan.NEEDLE_SETS, False)
    each = [scan._matches(text, ()) for text in texts]
    read_with_sets(monkeypatch, scan.NEEDLE_SETS, True)
    assert scan._needles_held("token: x") is not None  # the set is used from here on
    one_pass = [scan._matches(text, ()) for text in texts]
    assert one_pass == each
    assert sum(1 for found in each if found) > len(GENERATORS)  # the texts do hold secrets


def _folded_forms(needle: str) -> list[str]:
    """``needle`` as a text may hold it: upper case, capitalised, with the long s, the Kelvin sign or
    the sharp s (which folds to "ss")."""
    forms = [needle, needle.upper(), needle.capitalize(), needle.replace("s", "\u017f"),
             needle.replace("k", "\u212a"), needle.replace("ss", "\u00df"), needle.replace("ss", "\u1e9e")]
    return list(dict.fromkeys(forms))


def test_the_set_reports_every_needle_a_text_holds():
    """Each needle of a rule without a prefilter (a prefilter alone calls for its rule), alone and in other
    forms, reads back as the substring tests read it: a plain needle in the text, a folded one in its
    case folding."""
    needled = [rule for rule in scan.PATTERNS if not rule.prefilter]
    plain_needles = sorted({n for rule in needled if not rule.folded for n in rule.needles})
    folded_needles = sorted({n for rule in needled if rule.folded for n in rule.needles})
    assert "AKIA" in plain_needles and ":" not in plain_needles and "heroku" in folded_needles
    everything = {n for rule in scan.PATTERNS for n in rule.needles}
    texts = [f"x{needle}y é" for needle in sorted(everything)]
    texts += [f"x{needle}y é" for needle in plain_needles]
    texts += [f"x{form}y é" for needle in folded_needles for form in _folded_forms(needle)]
    texts += ["\ufb01\ufb02", "pa\u00dfword", "PA\u1e9eWORD", "\u0130", "\udcff token", ""]
    for text in texts:
        plain, folded, _kinds = scan._set_held(text)
        assert plain == {n for n in plain_needles if n in text}, text
        assert folded == {n for n in folded_needles if n in text.casefold()}, text


def test_the_long_folds_are_every_character_whose_folding_holds_ascii():
    """The set reads a folded needle letter by letter: each character folding to one ASCII character is
    that character in either case, the long s or the Kelvin sign (what _fold_bytes spells out), and
    every other character whose folding holds an ASCII character is one of _LONG_FOLDS."""
    single, longer = {}, []
    for code in range(0x110000):
        ch = chr(code)
        if ch.isascii() or 0xD800 <= code < 0xE000:
            continue
        folded = ch.casefold()
        assert folded, ch
        if any(c.isascii() for c in folded):
            if len(folded) == 1:
                single[ch] = folded
            else:
                longer.append(ch)
    assert single == {"\u017f": "s", "\u212a": "k"}
    assert scan._LONG_FOLDS == "".join(longer)


def test_every_rule_declares_where_its_matches_can_be():
    """Every built-in rule has needles or a prefilter (nothing runs on every text), every prefilter
    compiles in the set, and each rule whose needle is in most texts (":", ".") or that has none
    has a prefilter."""
    import re2

    for rule in scan.PATTERNS:
        assert rule.needles or rule.prefilter, rule.kind
        if rule.prefilter:
            assert rule.prefilter.isascii(), rule.kind
            options = re2.Options()
            options.encoding = re2.Options.Encoding.LATIN1
            re2.compile(rule.prefilter.encode("ascii"), options)
        if any(len(needle) < 2 for needle in rule.needles) or not rule.needles:
            assert rule.prefilter, rule.kind
    entries = [entry for group in scan._set_entries() for entry in group]
    assert {name for what, name, _e in entries if what == "prefilter"} == {r.kind for r in scan.PATTERNS
                                                                          if r.prefilter}


@pytest.mark.parametrize("kind", sorted(rule.kind for rule in scan.PATTERNS if rule.prefilter))
def test_a_prefilter_holds_every_match_of_its_rule(kind, monkeypatch):
    """A prefilter spares its rule's regex only where no match can be: each planted secret of the
    kind is still found with the one-pass test, and in several surroundings its rule matches where
    its regex alone matches."""
    import re2

    rule = next(r for r in scan.PATTERNS if r.kind == kind)
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    prefilter = re2.compile(rule.prefilter.encode("ascii"), options)
    regex = next(c for c in scan._builtin() if c.kind == kind)
    rng = random.Random(kind)
    read_with_sets(monkeypatch, scan.NEEDLE_SETS, True)
    for _ in range(20):
        line, value = sample(kind, rng)
        found = scan._matches(line, ())
        assert any(pattern.kind == kind for _s, _e, pattern in found), (kind, line)
        for text in (line, f"x = {value}\n", f"\u00e9 {value} \u00e9", f"({value})", line.upper(), line.lower()):
            if any(True for _m in regex.finditer(text)):
                assert prefilter.search(text.encode("utf-8", "surrogatepass")), (kind, text)


def test_holds_nul_reads_the_bytes_as_the_text(monkeypatch):
    """Past the threshold a NUL is looked for in the kept UTF-8 bytes: the same answer as the text's
    own test, on random texts of one- to four-byte characters, lone surrogates and NULs."""
    rng = random.Random(4545)
    pieces = ["a", "token: x", "\0", "é", "€", "😀", "\udcff", "\ud800", "\u0100", "\x00\x00", " "]
    texts = ["", "\0", "é\0", "\udcff"] + ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
                                            for _ in range(3000)]
    read_with_sets(monkeypatch, scan.NEEDLE_SETS, True)
    answers = []
    for text in texts:
        other = text + "x"  # another text in between: the kept bytes are those of the text asked about
        assert scan._utf8(other) == other.encode("utf-8", "surrogatepass")
        answers.append(scan.holds_nul(text))
        assert answers[-1] == ("\0" in text), text
        assert scan._utf8(text) == text.encode("utf-8", "surrogatepass")
    assert 500 < sum(answers) < len(texts) - 500


def test_read_with_sets_uses_the_sets_from_the_first_text(monkeypatch):
    """validate's whole catalog reads the needles with the sets from its first text (same findings:
    the tests above); a process that did not ask keeps the substring tests for its first 64 KiB."""
    monkeypatch.setattr(scan.NEEDLE_SETS, "scanned", 0)
    monkeypatch.setattr(scan.NEEDLE_SETS, "always", False)
    assert scan._needles_held("token: x") is None
    assert scan.holds_nul("a\0b") and not scan.holds_nul("ab")
    scan.NEEDLE_SETS.open()
    assert scan._needles_held("token: x") is not None
    assert scan.holds_nul("a\0b") and not scan.holds_nul("ab")
