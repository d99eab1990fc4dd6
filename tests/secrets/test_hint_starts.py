"""The assignment hint and the runs of the ``aws-secret-key`` rule searched by RE2 in a text's UTF-8
bytes start where Python's engine finds them in the string (the hint in the lower-cased text): random
texts of hint words, separators, quotes, spaces, base64 runs and non-ASCII characters (two- to
four-byte, lone surrogates, the Kelvin sign, the long s, characters whose lower case is longer), the
planted secrets, the example skills and the corpus of real skills."""

from __future__ import annotations

import random
import sys
from pathlib import Path

from skillsift.secrets import scan
from tests.conftest import corpora
from tests.support.secret_samples import GENERATORS, sample

ROOT = Path(__file__).resolve().parents[2]
_AWS = scan._builtin()[[rule.kind for rule in scan.PATTERNS].index("aws-secret-key")]


def _aws_reference(text: str) -> list[tuple[int, int]]:
    return [m.span(1) for m in _AWS.regex.finditer(text)]


def _aws_runs(text: str) -> list[tuple[int, int]]:
    return [m.span(1) for m in scan._base64_keys(_AWS.regex, text)]


def _agree(text: str) -> tuple[int, int]:
    """(1 when the hint is found, 1 when the rule matches), after asserting both ways agree."""
    want = scan._python_hint_starts(text)
    assert scan._hint_starts(text) == want, text
    runs = _aws_reference(text)
    assert _aws_runs(text) == runs, text
    return int(bool(want)), int(bool(runs))


def test_starts_equal_python_regex_on_random_texts():
    rng = random.Random(4545)
    pieces = ["key", "secret", "token", "word", "wd", "phrase", "pass", "credential", "credentials", "creds", "pas",
              "KEY", "Secret", "TOKEN", "Pass", "\u212aey", "\u017fecret", "pa\u017f\u017f", "\u0130", "\u00df",
              ":", "=", ":=", "=>", "'", '"', " ", "\t", "\n", "\r", "\f", "\v", "é", "€", "😀", "\udcff", "x",
              "_", "-", "api", "k", "ey", "/", "+", "A" * 39, "b" * 40, "Zq8v" * 10, "=", "9" * 41]
    hits = [_agree("".join(rng.choice(pieces) for _ in range(rng.randint(0, 25)))) for _ in range(5000)]
    assert sum(hint for hint, _run in hits) > 1000
    assert sum(run for _hint, run in hits) > 500


def test_starts_equal_python_regex_on_samples_examples_and_the_corpus():
    rng = random.Random(45)
    texts = [sample(kind, rng)[0] for kind in sorted(GENERATORS)]
    texts += [text.upper() for text in texts]
    texts += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "examples").rglob("*.md"))]
    texts += ["é" * 40 + "password: 'Zq8vN2mKp4Lx7Rt1' 😀 token = abc", "ключ token=x\udcff secret :=y",
              "\u0130 API_\u212aEY = " + "Zq8vN2mKp4Lx7Rt1" * 3, "İ " + "a1B2" * 10 + " x"]
    for path in sorted(corpora().rglob("SKILL.md"))[::3]:
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, OSError):
            continue
    hits = [_agree(text) for text in texts]
    assert sum(hint for hint, _run in hits) > 100
    assert sum(run for _hint, run in hits) > 5


def test_only_the_kelvin_sign_lowers_into_ascii_from_outside_it():
    """The hint's reasoning: ``lower`` maps no other character outside ASCII to one ASCII character."""
    into_ascii = [chr(c) for c in range(128, sys.maxunicode + 1)
                  if len(chr(c).lower()) == 1 and chr(c).lower().isascii()]
    assert into_ascii == ["\u212a"]
