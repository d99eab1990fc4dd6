"""The lexical tokenizer: lowercase, split into letter/digit runs, drop stopwords, stem.

Behaviour (README, "How the lexical ranker scores"), kept identical so rankings carry over:

* lowercasing is the simple one-code-point-to-one-code-point mapping (U+0130 ``İ``
  becomes ``i``, a capital sigma is always ``σ``), not Python's full ``str.lower``;
* tokens are maximal runs of Unicode letters (categories L*) and decimal digits
  (Nd); everything else separates;
* the 33 :data:`STOPWORDS` are dropped *before* stemming;
* :func:`stem` strips one inflectional suffix, measuring lengths in UTF-8 bytes.
"""

from __future__ import annotations

import re

STOPWORDS = frozenset(
    "a an and are as at be by do for from how i in is it me my of on or that the this to use want we "
    "with you need when should".split()
)

# ``[^\W_]`` is "alphanumeric" as Python's ``str.isalnum`` means it; for ASCII text that
# is exactly letters and decimal digits.  Elsewhere it also admits other numeric
# characters (superscripts, fractions, Roman numerals), which :func:`words` splits on.
_ALNUM_RUN = re.compile(r"[^\W_]+")

# The two places where Python's full lowercasing differs from the simple mapping.
_SIMPLE_LOWER = str.maketrans({"\u0130": "i", "\u03a3": "\u03c3"})

_SUFFIXES = ("ing", "ied", "ies", "ed", "es", "s")
_SIBILANTS = ("s", "x", "z", "ch", "sh")
# The last letters of a word :func:`_stem` can change: those of the suffixes, and the silent e.
_ENDS = frozenset({*(suffix[-1] for suffix in _SUFFIXES), "e"})
# Each of those letters -> the suffixes ending with it, in :data:`_SUFFIXES`' order (the only ones a word
# ending with it can end with; none for the silent e).
_SUFFIXES_ENDING = {end: tuple(suffix for suffix in _SUFFIXES if suffix[-1] == end) for end in sorted(_ENDS)}

_CACHE_LIMIT = 1 << 19
_stems: dict[str, str] = {}
# raw lowercase word -> its term (the stem), or "" for a stopword
_terms: dict[str, str] = {}


def _is_word_char(c: str) -> bool:
    return c.isalpha() or c.isdecimal()


def _split_numerics(run: str) -> list[str]:
    """Split an alphanumeric run on its characters that are neither letters nor decimal digits."""
    parts, start = [], 0
    for i, c in enumerate(run):
        if not _is_word_char(c):
            if i > start:
                parts.append(run[start:i])
            start = i + 1
    if start < len(run):
        parts.append(run[start:])
    return parts


def lower(text: str) -> str:
    """Lowercase ``text`` one code point at a time (never changes its length)."""
    if text.isascii():
        return text.lower()
    if "\u0130" in text or "\u03a3" in text:
        text = text.translate(_SIMPLE_LOWER)
    return text.lower()


def words(lowered: str) -> list[str]:
    """The letter/digit runs of already lowercased text (no stopword removal, no stemming)."""
    runs = _ALNUM_RUN.findall(lowered)
    if lowered.isascii():
        return runs
    out: list[str] = []
    for run in runs:
        if run.isascii() or all(map(_is_word_char, run)):
            out.append(run)
        else:
            out.extend(_split_numerics(run))
    return out


def _byte_len(word: str) -> int:
    return len(word) if word.isascii() else len(word.encode("utf-8"))


def _drop_silent_e(word: str, nbytes: int) -> str:
    if nbytes > 4 and word.endswith("e"):
        return word[:-1]
    return word


def _stem(word: str) -> str:
    suffixes = _SUFFIXES_ENDING.get(word[-1:])
    if suffixes is None:  # no suffix to strip and no silent e: most words of a catalog
        return word
    nbytes = _byte_len(word)
    for suffix in suffixes:
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


def stem(word: str) -> str:
    """Strip one inflectional suffix from a lowercase word (README, "How the lexical ranker scores").

    ``images -> imag``, ``caching -> cach``, ``policies -> policy``, ``class -> class``.
    """
    result = _stems.get(word)  # (a lookup, not a KeyError caught: most words of a cold run are new)
    if result is not None:
        return result
    if len(_stems) >= _CACHE_LIMIT:
        _stems.clear()
    result = _stems[word] = _stem(word)
    return result


def term(word: str) -> str:
    """The term a raw lowercase word indexes under: its stem, or ``""`` for a stopword."""
    result = _terms.get(word)
    if result is not None:
        return result
    if len(_terms) >= _CACHE_LIMIT:
        _terms.clear()
    result = _terms[word] = "" if word in STOPWORDS else stem(word)
    return result


def terms_of(distinct: set[str]) -> dict[str, str]:
    """``{word: term(word)}`` for a set of distinct raw lowercase words (:func:`words`' runs), each word that
    is its own term (neither a stopword nor ending in a letter a suffix or the silent e ends with: about half
    the words of a catalog's descriptions) taken as it is, at C speed, and only the others looked up one by
    one (SK009 makes each distinct word of a catalog a term once)."""
    made = dict(zip(distinct, distinct, strict=True))
    for word in [word for word in distinct if word[-1:] in _ENDS]:
        made[word] = stem(word)  # (a stopword is made "" below)
    for word in STOPWORDS.intersection(distinct):
        made[word] = ""
    return made


def tokenize(text: str) -> list[str]:
    """Lowercase, split, drop stopwords and stem; duplicates are kept.

    ``"Run the Migrations" -> ["run", "migration"]``; ``"the of and" -> []``.
    """
    if not text:
        return []
    get = _terms.get
    out = []
    for word in words(lower(text)):
        t = get(word)
        if t is None:
            t = term(word)
        if t:
            out.append(t)
    return out
