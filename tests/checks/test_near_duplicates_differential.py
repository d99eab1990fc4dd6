"""SK009's listing from the masks of ``lexical_partners`` is the listing of the pair-by-pair
computation it replaced (tests/support/near_duplicates_reference.py), message for message: random
catalogs (templated families, shared names, short descriptions, cosine pairs from an index) at
several thresholds, and the corpus of real skills."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillsift.catalog.skill import Skill
from skillsift.checks.duplicates import lexical_partners, near_duplicates, one_word_apart, term_sets
from tests.conftest import corpora
from tests.support import near_duplicates_reference as reference

THRESHOLDS = (0.0, 0.3, 0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0)


def _catalog(rng: random.Random, size: int) -> list[Skill]:
    vocab = [f"w{i}" for i in range(rng.randint(6, 40))]
    template = rng.sample(vocab, min(len(vocab), rng.randint(3, 14)))
    skills = []
    for n in range(size):
        shape = rng.random()
        if shape < 0.4:  # a family: the template with one or two words changed, added or dropped
            words = list(template)
            for _ in range(rng.randint(0, 2)):
                move = rng.random()
                if move < 0.4 and words:
                    words[rng.randrange(len(words))] = rng.choice(vocab)
                elif move < 0.7:
                    words.insert(rng.randrange(len(words) + 1), rng.choice(vocab))
                elif words:
                    del words[rng.randrange(len(words))]
        else:
            words = rng.sample(vocab, min(len(vocab), rng.randint(1, 12)))
        name = f"s{rng.randrange(size)}" if rng.random() < 0.15 else f"s{n}"  # some names used twice
        skills.append(Skill(name=name, description=" ".join(words), path=f"skills/{rng.randrange(3)}/{n}/SKILL.md"))
    return skills


def _cosine(rng: random.Random, size: int) -> list[tuple[int, int, float]]:
    if size < 2 or rng.random() < 0.5:
        return []
    pairs = {tuple(rng.sample(range(size), 2)) for _ in range(rng.randint(1, size))}
    return [(i, j, round(rng.uniform(0.5, 1.0), 3)) for i, j in sorted(pairs)]


def _same(skills, threshold, cosine) -> None:
    got = near_duplicates(skills, threshold=threshold, cosine_pairs=cosine)
    want = reference.near_duplicates(skills, threshold=threshold, cosine_pairs=cosine)
    assert got == want


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.integers(0, 60), st.sampled_from(THRESHOLDS))
def test_the_listing_equals_the_pair_by_pair_listing_on_random_catalogs(seed, size, threshold):
    rng = random.Random(seed)
    skills = _catalog(rng, size)
    _same(skills, threshold, _cosine(rng, size))


def test_the_random_catalogs_do_hold_every_kind_of_pair():
    """(The catalogs above are not vacuous: lexical pairs, one-word pairs, cosine pairs, shared names.)"""
    rng = random.Random(3)
    messages = []
    for _ in range(40):
        skills = _catalog(rng, 50)
        messages += [d.message for d in near_duplicates(skills, threshold=0.8, cosine_pairs=_cosine(rng, 50))]
    text = " ".join(messages)
    assert "lexical" in text and "one word apart" in text and "cosine" in text and " more" in text


@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_the_masks_hold_the_pairs_of_the_prefix_filter(threshold):
    rng = random.Random(int(threshold * 100))
    sets = term_sets(s.description for s in _catalog(rng, 150))
    want = reference.similar_pairs(sets, threshold)
    tiers = lexical_partners(sets, threshold)
    got = sorted((i, j, value) for j, tier in enumerate(tiers) for value, mask in tier.items()
                 for i in range(j) if mask >> i & 1)
    assert got == want
    # both ways: skill i's tiers hold j where skill j's hold i
    for j, tier in enumerate(tiers):
        for value, mask in tier.items():
            assert all(tiers[i].get(value, 0) >> j & 1 for i in range(len(sets)) if mask >> i & 1)


def _families(rng: random.Random, size: int) -> list[Skill]:
    """Templated families: a template with a word of each skill's own (``own<n>...``, a term no other skill
    holds) in one place, or two or three, some copies of a description, near misses (a template word dropped,
    changed or added, an own word more) and skills of other words, so that classes of skills of one size
    and one set of shared terms are many and large."""
    vocab = [f"w{i}" for i in range(rng.randint(8, 30))]
    templates = [rng.sample(vocab, rng.randint(3, min(12, len(vocab)))) for _ in range(rng.randint(1, 2))]
    skills = []
    for n in range(size):
        shape = rng.random()
        words = list(rng.choice(templates))
        if shape < 0.55:
            for _ in range(1 if shape < 0.45 else rng.randint(2, 3)):
                words.insert(rng.randrange(len(words) + 1), f"own{n}x{len(words)}")
        elif shape < 0.65 and skills:
            words = skills[rng.randrange(len(skills))].description.split()
        elif shape < 0.85:
            move = rng.random()
            if move < 0.3:
                del words[rng.randrange(len(words))]
            elif move < 0.6:
                words[rng.randrange(len(words))] = rng.choice(vocab)
            else:
                words.append(rng.choice(vocab))
            words.insert(rng.randrange(len(words) + 1), f"own{n}")
        else:
            words = rng.sample(vocab, rng.randint(1, 8))
        skills.append(Skill(name=f"s{n}", description=" ".join(words), path=f"skills/{n}/SKILL.md"))
    return skills


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.integers(0, 120), st.sampled_from(THRESHOLDS))
def test_templated_families_find_the_pairs_of_the_prefix_filter(seed, size, threshold):
    """Skills of one size and one set of shared terms are searched once for the class: the pairs (values
    included) and the listing are those of the pair-by-pair search."""
    rng = random.Random(seed)
    skills = _families(rng, size)
    sets = term_sets(s.description for s in skills)
    rank = list(range(len(sets)))
    rng.shuffle(rank)
    tiers = lexical_partners(sets, threshold, rank)
    got = sorted((i, j, value) for j, tier in enumerate(tiers) for value, mask in tier.items()
                 for i in range(j) if mask >> rank[i] & 1)
    assert got == reference.similar_pairs(sets, threshold)
    _same(skills, threshold, _cosine(rng, size))


def test_the_templated_families_do_hold_large_classes_and_near_misses():
    """(The families above are not vacuous: classes of over FEW_CANDIDATES skills pair within and with
    near misses outside the class, and skills below the threshold sit among them.)"""
    from skillsift.checks.duplicates import FEW_CANDIDATES, _term_masks

    rng = random.Random(11)
    skills = _families(rng, 120)
    sets = term_sets(s.description for s in skills)
    classes = _term_masks(sets, 0.81, list(range(len(sets))))[0]
    assert max(len(members) for members, *_rest in classes) > FEW_CANDIDATES
    pairs = reference.similar_pairs(sets, 0.8)
    sizes = {(len(sets[i]), len(sets[j])) for i, j, _v in pairs}
    assert any(a != b for a, b in sizes) and len(pairs) > 1000
    assert len(reference.similar_pairs(sets, 0.5)) > len(pairs)


@pytest.mark.slow  # the whole corpus of real skills
def test_the_listing_equals_the_pair_by_pair_listing_on_the_corpus(tmp_path):
    from skillsift.validators.workspace import Workspace

    config = tmp_path / "skillsift.toml"  # the corpus is read-only: name its layout in a config kept elsewhere
    config.write_text('[catalog]\nskills = ["*"]\n', encoding="utf-8")
    skills = list(Workspace(corpora(), config_file=config).catalog.skills)
    cosine = [(i, i + 3, 0.93) for i in range(0, len(skills) - 3, 11)]
    for threshold, pairs in ((0.9, ()), (0.8, cosine), (0.95, cosine[:5])):
        got = near_duplicates(skills, threshold=threshold, cosine_pairs=pairs)
        assert got == reference.near_duplicates(skills, threshold=threshold, cosine_pairs=pairs)
        assert len(got) > 500


def _one_word_texts(rng: random.Random, size: int) -> list:
    """Texts of 2 to 42 words in families one or two words apart (some families over 50 strong, some
    texts repeated or differing only in case), with a few non-texts."""
    vocab = [f"w{i}" for i in range(rng.randint(3, 30))]
    templates = [[rng.choice(vocab) for _ in range(rng.choice((2, 3, 4, 5, 20, 39, 40, 41, 42)))]
                 for _ in range(rng.randint(1, 4))]
    texts: list = []
    for _ in range(size):
        if rng.random() < 0.03:
            texts.append(None)
            continue
        words = list(rng.choice(templates))
        for _ in range(rng.choice((0, 1, 1, 1, 2))):
            move = rng.random()
            if move < 0.4 and words:
                words[rng.randrange(len(words))] = rng.choice(vocab)
            elif move < 0.7:
                words.insert(rng.randrange(len(words) + 1), rng.choice(vocab))
            elif words:
                del words[rng.randrange(len(words))]
        text = " ".join(words)
        texts.append(text.upper() if rng.random() < 0.1 else text)
    return texts


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.sampled_from((0, 1, 2, 5, 30, 60, 130)))
def test_one_word_apart_finds_the_pairs_of_blanking_every_text(seed, size):
    texts = _one_word_texts(random.Random(seed), size)
    assert one_word_apart(texts) == reference.one_word_apart(texts)


def test_the_one_word_texts_do_hold_pairs_and_crowded_templates():
    """(The texts above are not vacuous: pairs replaced, added and dropped, and groups over 50.)"""
    rng = random.Random(5)
    found = [reference.one_word_apart(_one_word_texts(rng, 130)) for _ in range(30)]
    assert sum(map(len, found)) > 1000
    crowded = ["a b c " + str(n) for n in range(60)] + ["a b c"]
    assert one_word_apart(crowded) == reference.one_word_apart(crowded) == [(n, 60) for n in range(60)]


@pytest.mark.slow  # the whole corpus of real skills
def test_one_word_apart_finds_the_pairs_of_blanking_every_text_on_the_corpus(tmp_path):
    from skillsift.validators.workspace import Workspace

    config = tmp_path / "skillsift.toml"
    config.write_text('[catalog]\nskills = ["*"]\n', encoding="utf-8")
    texts = [s.description for s in Workspace(corpora(), config_file=config).catalog.skills]
    got = one_word_apart(texts)
    assert got == reference.one_word_apart(texts)
    assert len(got) > 10


def _reference_terms_and_words(texts):
    from skillsift.ranker.tokenize import tokenize

    return ([frozenset(tokenize(text)) for text in texts],
            [tuple(re.findall(r"\w+", text.lower())) if isinstance(text, str) else () for text in texts])


def test_terms_and_words_are_the_tokenizer_terms_and_the_lowered_words():
    """Each text split once for SK009's term sets and its one-word pairs: the tokenizer's terms and the
    ``\\w+`` words of the lowered text, on random texts of ASCII and other letters, underscores, digits and
    other numerals, stopwords, inflections and the letters whose lowering differs (İ, Σ)."""
    from skillsift.checks.duplicates import _terms_and_words

    rng = random.Random(23)
    pieces = ["Deploy", "deploys", "DEPLOYING", "the", "and", "use", "when", "classes", "policies", "a_b", "_x", "x_",
              "2024", "v2", "x²", "Ⅻ", "İstanbul", "ΣΟΦΙΑ", "naïve", "日本語", "—", "-", ".", ",", " ", "\t", "\n", "ß"]
    texts: list = [None, "", " ", "_", "a b c"]
    for _ in range(3000):
        texts.append("".join(rng.choice(pieces) + rng.choice(("", " ", " ", "-")) for _ in range(rng.randint(0, 12))))
    assert _terms_and_words(texts) == _reference_terms_and_words(texts)
    assert sum(text.isascii() for text in texts[1:]) > 200 and sum(not t.isascii() for t in texts[1:]) > 200


def test_an_ascii_text_splits_on_every_character_but_letters_and_digits():
    """The byte table of an ASCII text: each of the 128 ASCII characters between letters and digits."""
    from skillsift.checks.duplicates import _terms_and_words

    texts = [f"Ab{chr(c)}cD{chr(c) * 2}9x {chr(c)}Deploys{chr(c)}" for c in range(128)]
    assert _terms_and_words(texts) == _reference_terms_and_words(texts)
    assert sum(len(words) == 2 for words in _terms_and_words(texts)[1]) == 63  # letters, digits and "_" join


@pytest.mark.slow  # the whole corpus of real skills
def test_terms_and_words_on_the_corpus(tmp_path):
    from skillsift.checks.duplicates import _terms_and_words
    from skillsift.validators.workspace import Workspace

    config = tmp_path / "skillsift.toml"
    config.write_text('[catalog]\nskills = ["*"]\n', encoding="utf-8")
    texts = [s.description for s in Workspace(corpora(), config_file=config).catalog.skills]
    assert _terms_and_words(texts) == _reference_terms_and_words(texts)
