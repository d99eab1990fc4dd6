"""The assignment hint searched by RE2 in the UTF-8 bytes of lower-cased text starts where
Python's engine finds it in the string: random texts of hint words, separators, quotes,
spaces and non-ASCII characters (two- to four-byte, lone surrogates), and the example skills."""

from __future__ import annotations

import random
from pathlib import Path

from skillsift.secrets import scan
from tests.support.secret_samples import GENERATORS, sample

ROOT = Path(__file__).resolve().parents[2]


def _reference(lowered: str) -> list[int]:
    return [m.start() for m in scan._assignment_hint(True).finditer(lowered)]


def test_hint_starts_equal_python_regex_on_random_texts():
    rng = random.Random(4545)
    pieces = ["key", "secret", "token", "word", "wd", "phrase", "pass", "credential", "credentials", "creds", "pas",
              ":", "=", ":=", "=>", "'", '"', " ", "\t", "\n", "\r", "\f", "\v", "é", "€", "😀", "\udcff", "ß", "x",
              "_", "-", "api", "k", "ey"]
    hits = 0
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 25)))
        want = _reference(text)
        assert scan._lowered_hint_starts(text) == want, text
        hits += bool(want)
    assert hits > 1000


def test_hint_starts_equal_python_regex_on_samples_and_examples():
    rng = random.Random(45)
    texts = [sample(kind, rng)[0].lower() for kind in sorted(GENERATORS)]
    texts += [p.read_text(encoding="utf-8").lower() for p in sorted((ROOT / "examples").rglob("*.md"))]
    texts += ["é" * 40 + "password: 'Zq8vN2mKp4Lx7Rt1' 😀 token = abc", "ключ token=x\udcff secret :=y"]
    for text in texts:
        assert scan._lowered_hint_starts(text) == _reference(text)
    assert any(_reference(text) for text in texts)
