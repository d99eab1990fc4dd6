"""``mixed_script`` (SK407): an ASCII name is answered without looking at its letters one by one,
which is exact because every ASCII character is a Latin letter or no letter."""

from __future__ import annotations

from skillsift.validators.names import _script, mixed_script


def test_every_ascii_character_is_latin_or_no_letter():
    assert {_script(chr(code)) for code in range(128)} == {"", "Latin"}


def test_mixed_names_are_found_and_ascii_ones_are_not():
    assert mixed_script("p\u0430ypal") == ("Cyrillic", "Latin")  # a Cyrillic a
    assert mixed_script("\u03b1lpha-tool") == ("Greek", "Latin")
    assert mixed_script("paypal-helper_2") == ()
    assert mixed_script("\u043f\u0440\u0438\u0432\u0435\u0442") == ()  # Cyrillic alone
    assert mixed_script("caf\u00e9") == ()  # Latin beyond ASCII


def test_the_ascii_shortcuts_equal_the_full_computations():
    """skeleton, invisible and strip_invisible of ASCII text (returned without the Unicode steps) equal
    the full computations, on every ASCII character and random ASCII and wider names."""
    import random
    import unicodedata

    from skillsift.validators import names

    def skeleton(name):
        text = unicodedata.normalize("NFKC", "".join(
            c for c in name if not (ord(c) in names._ZERO_WIDTH or ord(c) in names._BIDI or ord(c) in names._TAGS)
        ).strip()).casefold()
        return text.translate(names._LOOK_ALIKE)

    def invisible(text):
        return [(offset, what) for offset, char in enumerate(text)
                for what in [names._ZERO_WIDTH.get(ord(char), "").lower() or (
                    "bidirectional control " + unicodedata.name(char, f"U+{ord(char):04X}").lower()
                    if ord(char) in names._BIDI else "Unicode tag character" if ord(char) in names._TAGS else "")]
                if what]

    rng = random.Random(45)
    alphabet = [chr(c) for c in range(128)] + ["е", "Ｄ", "\u200b", "\u202e", "\U000e0041", "ß", "\u00ad", "İ"]
    texts = [chr(c) for c in range(128)] + [" Deploy-Prod\t", "\x00A b\x7f"]
    texts += ["".join(rng.choice(alphabet[:128] if n % 2 else alphabet) for _ in range(rng.randint(0, 10)))
              for n in range(4000)]
    for text in texts:
        assert names.skeleton(text) == skeleton(text), repr(text)
        assert names.invisible(text) == invisible(text), repr(text)
        assert names.strip_invisible(text) == "".join(c for c in text if not invisible(c)), repr(text)
    assert names.skeleton(" DEPLOY ") == "deploy" and names.invisible("a\u200bb") == [(1, "zero width space")]
