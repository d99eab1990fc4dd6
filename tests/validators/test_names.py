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
