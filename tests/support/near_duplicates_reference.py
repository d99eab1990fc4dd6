"""SK009 as it was computed before the masks of ``lexical_partners``: every similar pair a tuple
(prefix filtering), the one-word pairs looked up by bisection, each skill's partners ranked with
``heapq``.  Kept word for word as the reference the faster listing is compared with
(tests/checks/test_near_duplicates_differential.py).  :func:`one_word_apart` blanks every word of every
text, as before only the words where a partner can differ were (the same pairs).  :func:`term_sets` is
``tokenize``'s, as the check's were before it numbered them."""

from __future__ import annotations

import bisect
import heapq
import math
import re
from collections import defaultdict

from skillsift.checks.duplicates import (
    MAX_NAMED,
    MIN_TERMS,
    ONE_WORD_MAX,
    _no_line,
    _set_cosine,
    near_diagnostic,
)
from skillsift.diagnostics import Diagnostic
from skillsift.ranker.tokenize import tokenize

_WORD = re.compile(r"\w+")


def term_sets(texts) -> list[frozenset[str]]:
    """Each text's terms, straight from the tokenizer (not the numbered sets the check builds)."""
    return [frozenset(tokenize(text)) for text in texts]


def one_word_apart(texts) -> list[tuple[int, int]]:
    """Pairs (i < j) of texts of 3 to :data:`ONE_WORD_MAX` words whose lowercase words differ by
    one word replaced, added or dropped; found by hashing each text with one word blanked or
    left out (no pairwise scan)."""
    words = [tuple(_WORD.findall(text.lower())) if isinstance(text, str) else () for text in texts]
    blanked: dict[tuple, list[int]] = defaultdict(list)
    whole: dict[tuple, list[int]] = defaultdict(list)
    for n, w in enumerate(words):
        if 3 <= len(w) <= ONE_WORD_MAX:
            whole[w].append(n)
            for k in range(len(w)):
                blanked[(*w[:k], "\0", *w[k + 1:])].append(n)
    out: set[tuple[int, int]] = set()
    for group in blanked.values():
        if 1 < len(group) <= 50:  # a template shared by more is SK009's cosine business
            for a in range(len(group)):
                for b in range(a + 1, len(group)):
                    if words[group[a]] != words[group[b]]:
                        out.add((group[a], group[b]))
    for n, w in enumerate(words):
        if 4 <= len(w) <= ONE_WORD_MAX + 1:
            for k in range(len(w)):
                for m in whole.get((*w[:k], *w[k + 1:]), ()):
                    out.add((min(n, m), max(n, m)))
    return sorted(out)


def similar_pairs(sets, threshold: float) -> list[tuple[int, int, float]]:
    """Every pair (i < j) whose set cosine is at least ``threshold``, with its value.

    Prefix filtering: with terms sorted rarest first, a pair with cosine >= t shares at
    least ceil(t^2 |A|) terms with A, so it shares one within A's first
    |A| - ceil(t^2 |A|) + 1 terms (and likewise for B).  Sets smaller than MIN_TERMS are
    skipped.  Pairs come sorted by (i, j).
    """
    if threshold <= 0:
        return []
    frequency: dict[str, int] = defaultdict(int)
    for terms in sets:
        for term in terms:
            frequency[term] += 1
    ordered = [sorted(terms, key=lambda t: (frequency[t], t)) for terms in sets]
    postings: dict[str, list[int]] = defaultdict(list)
    t2 = threshold * threshold
    # The length filter's two sides, computed once per set (the same float expressions as
    # ``t2 * len(a) <= len(b) * (1 + 1e-9)``).
    sizes = [len(terms) for terms in sets]
    low = [t2 * n for n in sizes]
    high = [n * (1 + 1e-9) for n in sizes]
    sqrt = math.sqrt
    bar = threshold - 1e-12
    found: list[tuple[int, int, float]] = []
    for j, terms in enumerate(ordered):
        size = sizes[j]
        if size < MIN_TERMS:
            continue
        prefix = size - math.ceil(t2 * size - 1e-9) + 1
        candidates: set[int] = set()
        for term in terms[:prefix]:
            candidates.update(postings[term])
            postings[term].append(j)
        b, low_j, high_j = sets[j], low[j], high[j]
        for i in candidates:  # the pairs are sorted at the end
            if not (low[i] <= high_j and low_j <= high[i]):
                continue
            value = len(sets[i] & b) / sqrt(sizes[i] * size)
            if value >= bar:
                found.append((i, j, value))
    found.sort()
    return found


def _listed(pairs: list[tuple[int, int, float]], i: int, j: int) -> bool:
    """Whether ``(i, j)`` is a pair of ``pairs`` (sorted by (i, j), as :func:`similar_pairs` gives them)."""
    at = bisect.bisect_left(pairs, (i, j))
    return at < len(pairs) and pairs[at][0] == i and pairs[at][1] == j


def near_duplicates(skills, *, threshold: float, cosine_pairs=(), line_of=_no_line) -> list[Diagnostic]:
    """SK009: one diagnostic per skill that has near-identical descriptions elsewhere.

    ``cosine_pairs`` are ``(i, j, cosine)`` over the same ``skills`` list (from the index).
    Each diagnostic names the most similar other skills (at most three, then "and N more").
    """
    sets = term_sets(s.description for s in skills)
    pairs = similar_pairs(sets, threshold)
    # ``pairs`` is sorted by (i, j): a one-word pair already found is looked up by bisection (a
    # templated catalog holds hundreds of thousands of pairs, and only a few hundred one-word ones).
    one_word = [(i, j) for i, j in one_word_apart([s.description for s in skills]) if not _listed(pairs, i, j)] if (
        threshold > 0) else []
    if one_word:
        # short descriptions one word apart sit below the cosine threshold (4 of 5 terms: 0.8)
        pairs = sorted(pairs + [(i, j, _set_cosine(sets[i], sets[j])) for i, j in one_word])
    apart = set(one_word)
    cosine = {(min(i, j), max(i, j)): v for i, j, v in cosine_pairs}
    lexical = {(i, j): v for i, j, v in pairs} if cosine else {}
    # A templated catalog can hold hundreds of thousands of pairs: collect plain tuples,
    # ordered as the diagnostic names them (strongest, then name, then path), and describe
    # only the pairs a diagnostic names.
    names = [skill.name for skill in skills]
    paths = [skill.path for skill in skills]
    if cosine:
        strengths = [(i, j, max(lexical.get((i, j), 0.0), cosine.get((i, j), 0.0)))
                     for i, j in (lexical.keys() | cosine.keys())]
    else:
        strengths = pairs
    partners: dict[int, list[tuple[float, str, str, int]]] = defaultdict(list)
    for i, j, strength in strengths:
        if names[i] == names[j]:
            continue  # SK002 already says it
        partners[i].append((-strength, names[j], paths[j], j))
        partners[j].append((-strength, names[i], paths[i], i))

    def how(i: int, j: int, strength: float) -> str:
        key = (min(i, j), max(i, j))
        if key in apart:
            return f"one word apart, lexical {_set_cosine(sets[i], sets[j]):.2f}"
        if not cosine:
            return f"lexical {strength:.2f}"
        measures = []
        if key in lexical:
            measures.append(f"lexical {lexical[key]:.2f}")
        if key in cosine:
            measures.append(f"cosine {cosine[key]:.2f}")
        return ", ".join(measures)

    out = []
    for i in sorted(partners):
        ranked = heapq.nsmallest(MAX_NAMED, partners[i])
        named = [f'"{skills[j].name}" ({skills[j].path}; {how(i, j, -negated)})' for negated, _n, _p, j in ranked]
        more = len(partners[i]) - len(named)
        out.append(near_diagnostic(skills[i], ", ".join(named) + (f" and {more} more" if more else ""), line_of))
    return out
