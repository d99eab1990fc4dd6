"""``_stem`` as skillsift.ranker.tokenize computed it before a word whose last letter no suffix or silent e
ends with was returned at once: kept word for word as the oracle of tests/ranker/test_tokenize.py."""

from __future__ import annotations

_SUFFIXES = ("ing", "ied", "ies", "ed", "es", "s")
_SIBILANTS = ("s", "x", "z", "ch", "sh")


def _byte_len(word: str) -> int:
    return len(word) if word.isascii() else len(word.encode("utf-8"))


def _drop_silent_e(word: str, nbytes: int) -> str:
    if nbytes > 4 and word.endswith("e"):
        return word[:-1]
    return word


def stem(word: str) -> str:
    nbytes = _byte_len(word)
    for suffix in _SUFFIXES:
        if nbytes <= len(suffix) + 3 or not word.endswith(suffix):
            continue
        base = word[: -len(suffix)]
        if suffix in ("ies", "ied"):
            return base + "y"
        if suffix == "es" and not base.endswith(_SIBILANTS):
            base = word[:-1]  # "images": the "e" belongs to the word
        elif suffix == "s" and word.endswith("ss"):
            return word  # "class", "access": not a plural
        return _drop_silent_e(base, nbytes - (len(word) - len(base)))
    return _drop_silent_e(word, nbytes)
