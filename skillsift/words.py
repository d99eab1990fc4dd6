"""Counted nouns and articles for the messages every command prints (pure)."""

from __future__ import annotations

import re

from .cache import regexes

# Acronyms and words read with a leading vowel sound although they start with a consonant
# letter, or the reverse ("an AWS key", "a user"); everything else follows its first letter.
_AN = regexes.compile(r"(?:npm\b|[AEIO]|[FHLMNRSX](?:[A-Z0-9]|\b)|[aeiou]|hour|honest)")
_A = regexes.compile(r"(?:uni|use|usu|uti|ura|eu|one\b|once)", re.IGNORECASE)


def plural(n: int, word: str, many: str = "") -> str:
    """``1 case`` / ``2 cases`` (``many`` for an irregular plural)."""
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"


def article(word: str) -> str:
    """``a`` or ``an`` for ``word``, by sound: ``an AWS key``, ``a GitHub token``, ``an RSA key``."""
    return "an" if _AN.match(word) and not _A.match(word) else "a"


def with_article(word: str) -> str:
    return f"{article(word)} {word}"
