"""Tokenizer and stemmer: the reference's tables (§2.1, §2.2) plus properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsift.ranker.tokenize import STOPWORDS, lower, stem, tokenize, words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Run the Migrations", ["run", "migration"]),
        ("refunding customers", ["refund", "customer"]),
        ("policies and queries", ["policy", "query"]),
        ("the of and", []),
        ("CamelCase-and_snake 42", ["camelcas", "snak", "42"]),
        ("", []),
    ],
)
def test_reference_tokenize_table(text, expected):
    assert tokenize(text) == expected


@pytest.mark.parametrize(
    "group",
    [
        ["image", "images"],
        ["template", "templates"],
        ["service", "services"],
        ["database", "databases"],
        ["release", "releases", "releasing", "released"],
        ["cache", "caches", "cached", "caching"],
        ["migration", "migrations"],
        ["match", "matches"],
        ["process", "processes", "processing"],
        ["policy", "policies"],
    ],
)
def test_stem_conflates_inflections_of_one_word(group):
    assert {stem(w) for w in group} == {stem(group[0])}


def test_stem_pinned_values():
    assert stem("image") == "imag"
    assert stem("release") == "releas"
    assert stem("cache") == "cach"
    assert stem("deploying") == "deploy"
    assert stem("class") == "class"  # a double s is not a plural
    assert stem("clasp") == "clasp"
    assert stem("class") != stem("clasp")
    assert stem("image") != stem("migration")
    assert stem("use") == "use"  # short words are left alone


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("wishes", "wish"),  # "es" after a sibilant: plural ending
        ("matches", "match"),
        ("services", "servic"),  # "es" elsewhere: the "e" belongs to the word
        ("boxes", "boxe"),  # 5 bytes: too short for "es" (needs > 5), so the "s" rule applies
        ("supplied", "supply"),  # "ied" -> "y", nothing else
        ("copied", "copi"),  # 6 bytes: too short for "ied" (needs > 6), so "ed" comes off
        ("queries", "query"),
        ("access", "access"),  # "ss" ends the word: unchanged, no silent-e drop either
        ("sing", "sing"),  # too short for "ing"
        ("riding", "riding"),
        ("uses", "uses"),  # too short for "es" and for "s"
        ("bases", "base"),  # "s" off, then "base" is too short to lose its e
        ("store", "stor"),  # no suffix: silent e dropped from 5+ bytes
        ("tree", "tree"),  # 4 bytes: kept
    ],
)
def test_stem_rules(word, expected):
    assert stem(word) == expected


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        # Lengths are UTF-8 bytes: 5 characters but 7 bytes, so "ing" (needs > 6) comes off.
        ("ññing", "ññ"),
        ("ççies", "ççy"),
        # 4 characters but 6 bytes: the silent e (needs > 4) is dropped.
        ("ééte", "éét"),
        # 4 characters, 5 bytes: "es" needs > 5, "s" needs > 4 -> "s" rule applies.
        ("ñits", "ñit"),
    ],
)
def test_stem_measures_utf8_bytes(word, expected):
    assert stem(word) == expected


def test_stopwords_are_the_33_of_the_reference():
    assert len(STOPWORDS) == 33
    assert {"a", "use", "want", "need", "when", "should", "you", "with"} <= STOPWORDS
    for w in STOPWORDS:
        assert tokenize(w.upper()) == []


def test_stopwords_are_dropped_before_stemming():
    # "thising" is no stopword; its stem happens to be one and is kept, as in the reference.
    assert tokenize("thising") == ["this"]
    assert tokenize("uses") == ["uses"]


def test_duplicates_are_kept():
    assert tokenize("deploy Deploy DEPLOYING") == ["deploy", "deploy", "deploy"]


def test_lowercase_is_one_code_point_per_code_point():
    # Python's str.lower() turns U+0130 into "i" + U+0307 (two code points), splitting the word.
    assert "İSTANBUL".lower() != "istanbul"
    assert lower("İSTANBUL") == "istanbul"
    assert tokenize("İSTANBUL") == ["istanbul"]
    # A final capital sigma is always lowercased to σ, never to the final form ς.
    assert "ΟΔΟΣ".lower().endswith("ς")
    assert tokenize("ΟΔΟΣ") == ["οδοσ"]
    assert tokenize("ΣΟΦΟΣ ΣΟΦΟΣ") == ["σοφοσ", "σοφοσ"]
    assert tokenize("Straße ÅNGSTRÖM") == ["straß", "ångström"]


def test_splits_on_everything_but_letters_and_decimal_digits():
    assert tokenize("deploy-to_prod/now.v2") == ["deploy", "prod", "now", "v2"]
    assert tokenize("don't") == ["don", "t"]
    assert tokenize("x²y") == ["x", "y"]  # superscript two is a number, not a decimal digit
    assert tokenize("Ⅻ ½ ⅓") == []  # letter-like numbers (Nl) and fractions (No) separate
    assert tokenize("١٢٣ ४२") == ["١٢٣", "४२"]  # other scripts' decimal digits are digits
    assert tokenize("一二 日本語") == ["一二", "日本語"]  # CJK ideographs are letters (Lo)
    assert tokenize("café—bar") == ["café", "bar"]
    assert tokenize("e\u0301") == ["e"]  # a combining mark (Mn) separates
    assert tokenize("\x00deploy\x00") == ["deploy"]


def test_words_of_ascii_and_unicode_text():
    assert words("a-b c_d") == ["a", "b", "c", "d"]
    assert words("über→straße") == ["über", "straße"]


def _reference_tokenize(text: str) -> list[str]:
    """The definition, one character at a time (slow, obviously right)."""
    out, current = [], []
    for ch in text:
        ch = "i" if ch == "\u0130" else ch.lower()  # one code point each, see above
        if ch.isalpha() or ch.isdecimal():
            current.append(ch)
        elif current:
            out.append("".join(current))
            current = []
    if current:
        out.append("".join(current))
    return [stem(w) for w in out if w not in STOPWORDS]


_text = st.lists(
    st.one_of(
        st.text(max_size=4),
        st.sampled_from(list("İΣσςÅß²½Ⅻ١-_ '.\x00") + ["ing", "ies", "es", "s", "e", " the ", " use ", "Deploy"]),
    ),
    max_size=20,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(_text)
def test_tokenize_properties(text):
    tokens = tokenize(text)
    assert tokens == _reference_tokenize(text)
    assert tokens == tokenize(text)  # deterministic
    assert len(lower(text)) == len(text)
    for t in tokens:
        assert t
        assert lower(t) == t
        assert all(c.isalpha() or c.isdecimal() for c in t)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(sorted(STOPWORDS)), max_size=8), st.sampled_from([" ", "-", ", ", "\n"]))
def test_stopword_only_text_has_no_tokens(stops, sep):
    assert tokenize(sep.join(s.upper() if i % 2 else s for i, s in enumerate(stops))) == []


def test_stem_equals_the_reference_on_random_words_and_every_last_character():
    """The stem of a word whose last letter no suffix or silent e ends with is the word itself: the reference
    (tests/support/stem_reference.py) on random words of suffix letters, multi-byte letters and lengths
    around the byte limits, and on words ending in each of the first 0x3000 code points."""
    import random

    from skillsift.ranker.tokenize import _stem
    from tests.support.stem_reference import stem as reference

    rng = random.Random(9)
    letters = ["a", "e", "s", "d", "g", "i", "n", "y", "x", "z", "c", "h", "ss", "es", "ing", "ied", "ies", "é", "日",
               "İ"]
    words = ["", "s", "e", "es", "ing"]
    words += ["".join(rng.choice(letters) for _ in range(rng.randint(1, 7))) for _ in range(20000)]
    words += [stem + chr(c) for c in range(0x3000) for stem in ("", "ab", "abcde", "日本")]
    changed = 0
    for word in words:
        assert _stem(word) == reference(word), word
        changed += _stem(word) != word
    assert changed > 3000


def test_terms_of_is_the_term_of_each_word():
    """``terms_of`` (each word's term, the words that are their own term at once) is :func:`term` word by word:
    on the runs of random texts of suffix letters, stopwords, digits, multi-byte letters and the letters whose
    lowering differs, and on words ending in each letter or digit of the first 0x3000 code points."""
    import random

    from skillsift.ranker.tokenize import STOPWORDS, lower, term, terms_of, words

    rng = random.Random(31)
    pieces = ["a", "e", "s", "d", "g", "i", "n", "y", "ss", "es", "ing", "ied", "ies", "ed", "é", "日", "İ", "Σ", "2",
              "²", "_", " ", "-", *sorted(STOPWORDS)]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(5000)]
    texts += [f"ab{chr(c)} abcde{chr(c)} {chr(c)}" for c in range(0x3000)]
    distinct = set().union(*(words(lower(text)) for text in texts))
    made = terms_of(distinct)
    assert made == {word: term(word) for word in distinct}
    assert list(made) == list(distinct)
    assert STOPWORDS <= set(made) and sum(made[word] != word for word in distinct) > 1000
    assert terms_of(set()) == {}
