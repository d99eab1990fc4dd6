"""How names and descriptions read to people: Unicode forms, case, look-alike letters, invisible characters.

* :func:`skeleton` folds a name the way a reader sees it: NFKC (as skills-ref normalises names,
  ``skills_ref/validator.py``), case-folded, invisible characters dropped, and the Cyrillic and
  Greek letters that look like Latin ones taken as those (a small table after Unicode's
  confusables list, UTS #39).  SK002 compares names by it, so ``Deploy``, ``ｄｅｐｌｏｙ`` and a
  ``deploy`` spelled with a Cyrillic ``е`` are one name.
* :func:`invisible` lists the characters a reader cannot see: zero-width characters, the
  bidirectional controls that reorder text ("Trojan Source", CVE-2021-42574) and Unicode tag
  characters (U+E0000-U+E007F, which can carry hidden text to a model).
* :func:`mixed_script` tells whether a name mixes Latin letters with Cyrillic or Greek ones.

Pure functions, ``unicodedata`` only.
"""

from __future__ import annotations

import unicodedata

from ..cache import regexes

_ZERO_WIDTH = {0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER", 0x200D: "ZERO WIDTH JOINER",
               0x2060: "WORD JOINER", 0xFEFF: "ZERO WIDTH NO-BREAK SPACE", 0x00AD: "SOFT HYPHEN",
               0x180E: "MONGOLIAN VOWEL SEPARATOR"}
_BIDI = {0x200E, 0x200F, 0x061C, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}
_TAGS = range(0xE0000, 0xE0080)

# Cyrillic and Greek letters drawn like Latin ones (lowercase, after case folding), from UTS #39's
# confusables table; enough for names, which are lowercase letters, digits and hyphens.
_LOOK_ALIKE = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i", "ј": "j", "к": "k", "м": "m",
    "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "ԁ": "d", "ԛ": "q",
    "ԝ": "w", "ӏ": "l", "ɡ": "g",
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
    "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j",
})


_ANY_INVISIBLE = regexes.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff"
                            "\U000e0000-\U000e007f]")


def invisible(text: str) -> list[tuple[int, str]]:
    """(offset, what it is) of every invisible character in ``text``."""
    out: list[tuple[int, str]] = []
    if text.isascii() or _ANY_INVISIBLE.search(text) is None:  # (every invisible character is past ASCII)
        return out
    for offset, char in enumerate(text):
        code = ord(char)
        if code in _ZERO_WIDTH:
            out.append((offset, _ZERO_WIDTH[code].lower()))
        elif code in _BIDI:
            out.append((offset, "bidirectional control " + unicodedata.name(char, f"U+{code:04X}").lower()))
        elif code in _TAGS:
            out.append((offset, "Unicode tag character"))
    return out


def strip_invisible(text: str) -> str:
    if text.isascii():  # every invisible character is past ASCII
        return text
    return "".join(c for c in text if not (ord(c) in _ZERO_WIDTH or ord(c) in _BIDI or ord(c) in _TAGS))


def skeleton(name: str) -> str:
    """``name`` as a reader takes it: NFKC, case-folded, invisible characters dropped, look-alikes Latin."""
    if name.isascii():  # NFKC keeps ASCII, case folding lowers it, nothing to drop or take as Latin
        return name.strip().lower()
    text = unicodedata.normalize("NFKC", strip_invisible(name).strip()).casefold()
    return text.translate(_LOOK_ALIKE)


def _script(char: str) -> str:
    if not char.isalpha():
        return ""
    if char.isascii():
        return "Latin"
    label = unicodedata.name(char, "")
    for script in ("LATIN", "CYRILLIC", "GREEK"):
        if label.startswith(script):
            return script.title()
    return "other"


def mixed_script(name: str) -> tuple[str, ...]:
    """The scripts a name mixes when it holds Latin letters and Cyrillic or Greek ones (else ())."""
    if name.isascii():  # Latin letters at most
        return ()
    scripts = {_script(c) for c in name} - {""}
    if "Latin" in scripts and scripts & {"Cyrillic", "Greek"}:
        return tuple(sorted(scripts))
    return ()
