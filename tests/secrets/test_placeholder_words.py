"""The placeholder words of is_placeholder, tested as substrings, against the one regex of their
alternation that skillsift compiled before (the reference: the same forms, the same truth)."""

from __future__ import annotations

import random
import re

from skillsift.secrets import scan


def _reference_regex() -> re.Pattern:
    """The regex is_placeholder searched a value with (kept verbatim from skillsift.secrets.scan)."""
    forms: set[str] = set()
    for word in scan._PLACEHOLDER_WORDS:
        forms.update((word, word.upper(), word.capitalize()))
    return re.compile("|".join(re.escape(w) for w in sorted(forms, key=lambda w: (-len(w), w)))
                      + r"|\*\*\*|\.\.\.|\u2026", re.ASCII)


def _holds_form(value: str) -> bool:
    return any(form in value for form in scan._PLACEHOLDER_FORMS)


def _values(seed: int, count: int) -> list[str]:
    """Random values made of pieces of the placeholder words (in every case), masking and noise."""
    rng = random.Random(seed)
    pieces = [*scan._PLACEHOLDER_WORDS, "*", "**", ".", "..", "\u2026", "_", "-", "\u212a", "\u017f", "\u0130"]
    out = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(0, 6)):
            piece = rng.choice(pieces)
            if rng.random() < 0.6:
                start = rng.randint(0, len(piece))
                piece = piece[start : rng.randint(start, len(piece))]
            case = rng.randint(0, 4)
            piece = (piece, piece.upper(), piece.capitalize(), piece.swapcase(),
                     "".join(ch.upper() if rng.random() < 0.5 else ch for ch in piece))[case]
            parts.append(piece)
            parts.append("".join(rng.choice("abcXYZ019_-.*") for _ in range(rng.randint(0, 3))))
        out.append("".join(parts))
    return out


def test_forms_match_the_reference_regex_on_random_values():
    regex = _reference_regex()
    values = _values(20261207, 30000)
    held = [v for v in values if regex.search(v)]
    assert 1000 < len(held) < len(values) - 1000  # both answers are well represented
    for value in values:
        assert _holds_form(value) == bool(regex.search(value)), value


def test_each_form_and_its_near_misses():
    regex = _reference_regex()
    for form in scan._PLACEHOLDER_FORMS:
        assert _holds_form("sk-" + form + "123") and regex.search("sk-" + form + "123")
        for probe in (form[:-1], form[1:], form.swapcase() if form.lower() != form.upper() else form[:-1]):
            assert _holds_form(probe) == bool(regex.search(probe)), probe
    assert not _holds_form("yOuR-token-abcdef0123456789")
    assert scan.is_placeholder("ghp_YOUR_TOKEN_HERE_0000000000000000000")
    assert not scan.is_placeholder("ghp_Zq81kLm02PxR7vTnYw5cB3dHjU9eAfGs4iKo")
