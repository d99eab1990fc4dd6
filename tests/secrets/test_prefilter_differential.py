"""The scan with its needles and prefilters finds exactly what every rule's regex finds when run on
every text: the oracle below turns both gates off (each rule runs on each text).  Random texts built
from the pieces secrets are made of (hypothesis), the planted secret of every kind, the example
skills and every text of the corpus of real skills."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillsift.secrets import scan
from tests.conftest import corpora
from tests.support.secret_samples import GENERATORS, sample
from tests.support.set_gates import read_with_sets

ROOT = Path(__file__).resolve().parents[2]

_EVERY_PLAIN = frozenset(n for rule in scan.PATTERNS if not rule.folded for n in rule.needles)
_EVERY_FOLDED = frozenset(n for rule in scan.PATTERNS if rule.folded for n in rule.needles)
_EVERY_KIND = frozenset(rule.kind for rule in scan.PATTERNS)


def _spans(found) -> list[tuple[int, int, str]]:
    return [(start, end, pattern.kind) for start, end, pattern in found]


def _both(texts, monkeypatch, *, placeholders: bool = False):
    """(spans with the gates as they are, spans with every rule run on every text)."""
    read_with_sets(monkeypatch, scan.NEEDLE_SETS, True)  # the one-pass sets, as past the first 64 KiB a process scans
    gated = [_spans(scan._matches(text, (), placeholders=placeholders)) for text in texts]
    with monkeypatch.context() as m:
        m.setattr(scan, "_needles_held", lambda _text, *_parts: (_EVERY_PLAIN, _EVERY_FOLDED, _EVERY_KIND))
        full = [_spans(scan._matches(text, (), placeholders=placeholders)) for text in texts]
    return gated, full


def _pieces() -> list[str]:
    rng = random.Random(4545)
    out = sorted(_EVERY_PLAIN | _EVERY_FOLDED)
    out += ["://", "user", ":", "@", "host", "=", ": ", " = ", "'", '"', "\n", "\t", " ", "-", "_", ".", "/", "+",
            "Basic ", "Bearer ", "api_key", "password", "pa\u00dfword", "\u017fecret", "\u212aey", "\u0130", "\ufb01",
            "\u00e9", "\U0001f600", "\udcff", "ghp_", "xoxb-", "AKIA", "eyJ", "-us1", "AC", "SK", "pat"]
    for alphabet in ("0123456789abcdef", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                     "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+_-"):
        for n in (6, 12, 20, 32, 36, 40):
            out.append("".join(rng.choice(alphabet) for _ in range(n)))
    for kind in sorted(GENERATORS):
        line, value = sample(kind, rng)
        out += [line, value, value[: len(value) // 2]]
    return out


_PIECES = _pieces()


@settings(max_examples=400, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(_PIECES), max_size=30))
def test_gated_scan_equals_the_full_scan_on_random_texts(monkeypatch, parts):
    text = "".join(parts)
    gated, full = _both([text], monkeypatch)
    assert gated == full
    gated, full = _both([text], monkeypatch, placeholders=True)
    assert gated == full


def test_gated_scan_equals_the_full_scan_on_planted_secrets_and_examples(monkeypatch):
    rng = random.Random(45)
    texts = []
    for kind in sorted(GENERATORS):
        for _ in range(5):
            line, value = sample(kind, rng)
            texts += [line, f"x = {value}\n", f"\u00e9 {value} \u00e9", f"({value})", line.upper(), line.lower()]
    texts += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").rglob("*.md"))]
    gated, full = _both(texts, monkeypatch)
    assert gated == full
    assert sum(1 for found in full if found) > len(GENERATORS)  # the texts do hold secrets


def test_gated_scan_equals_the_full_scan_on_the_corpus(monkeypatch):
    """A quarter of the corpus's SKILL.md files (every fourth in path order): the full scan runs every
    rule on every text, about 8 s of CPU over the whole corpus."""
    texts = []
    for path in sorted(corpora().rglob("SKILL.md"))[::4]:
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            if "\0" not in text:
                texts.append(text)
    assert len(texts) > 400
    gated, full = _both(texts, monkeypatch, placeholders=True)
    assert gated == full
    assert any(gated)  # (placeholders included, the corpus holds matches)


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=12), max_size=8))
def test_texts_read_together_find_what_each_finds_alone(monkeypatch, groups):
    """scan_many (one reading of the sets for a file and its values; nothing run when no rule is
    called for) gives each text's own scan_values."""
    read_with_sets(monkeypatch, scan.NEEDLE_SETS, True)
    texts = ["".join(parts) for parts in groups]
    assert scan.scan_many(texts) == [scan.scan_values(text) for text in texts]


def test_texts_read_together_on_the_planted_secrets(monkeypatch):
    read_with_sets(monkeypatch, scan.NEEDLE_SETS, True)
    rng = random.Random(7)
    groups = [["name: x", "description: plain words", sample(kind, rng)[0], "é ß"] for kind in sorted(GENERATORS)]
    groups += [["name: x", "description: plain words only", "body text"]]
    kinds = sorted(GENERATORS)
    for number, kind in enumerate(kinds):  # the first text calls for a rule; the others for their own, or none
        line, value = sample(kind, rng)
        other = sample(kinds[(number * 7 + 3) % len(kinds)], rng)[0]
        groups += [[f"---\n{line}\n---\nbody", "description: plain words", value, other, "token: abc"],
                   [f"body {value} text", "plain", "words only"]]
    for texts in groups:
        together = scan.scan_many(texts)
        assert together == [scan.scan_values(text) for text in texts]
    assert sum(1 for texts in groups for found in scan.scan_many(texts) if found) >= len(GENERATORS)
