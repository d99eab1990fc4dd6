"""SK002 duplicate names and SK009 near-duplicate descriptions.

Both are computed over every skill of the repository and reported on each file involved,
so that ``skillsift validate PATH`` shows the problem whichever of the files it is given.

Near-duplicates are measured two ways:

* lexically: the cosine of the two descriptions' term sets (skillsift's tokenizer, so
  stemmed and without stopwords), ``|A ∩ B| / sqrt(|A| |B|)``; all pairs above the
  threshold are found with prefix filtering (terms ordered rarest first, a pair must share
  a term within each set's prefix), so a catalog of thousands of skills costs no
  quadratic scan;
* by meaning, when a usable index exists: the cosine of the stored vectors of skills whose
  embedded text has not changed since the index was built.

Short descriptions one word apart are paired too (:func:`one_word_apart`).

Longer than 450 lines because the catalog-wide pair searches (prefix filtering with bit masks,
the few candidates compared one by one, the one-word blanking limited to the halves another text
shares) each carry the argument that they find every pair the plain search finds, and the
listing reads their masks directly: split apart, the bounds and the code that relies on them
would drift.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections import Counter, defaultdict
from itertools import chain

from ..cache import regexes
from ..catalog.embedtext import embedded_text, text_digest
from ..catalog.listing import namespace as listing_namespace
from ..config.checks import check
from ..diagnostics import ERROR, NOTE, WARNING, Diagnostic
from ..validators.names import skeleton
from ..validators.workspace import Workspace

DUPLICATE = check("SK002", "duplicate-name", ERROR, summary="no two skills share a name")
NEAR = check("SK009", "near-duplicate-description", WARNING, triggers=("skill", "config"),
             files="SKILL.md (and the committed index, for cosine)",
             summary="no two skills have near-identical descriptions (lexical, and cosine when an index exists)")
COPIES = check("SK014", "identical-copies", NOTE, scope="repo",
               summary="byte-identical copies of one skill (several plugins, one folder per agent) are one note for"
                       " the group")
MIN_TERMS = 3  # descriptions with fewer distinct terms are too short to compare


def _no_line(_skill, _key: str) -> int | None:
    return None


def namespace(skill) -> str:
    """The plugin a skill belongs to (``plugins/<plugin>/...``, or a ``.claude-plugin`` manifest's plugin),
    else "": Claude Code calls a plugin's skills ``<plugin>:<name>``, so they never clash with the
    repository's own skills (the listing keys its served names the same way, so ``validate`` and
    ``list`` agree)."""

    return listing_namespace(skill)


def duplicate_names(skills, line_of=_no_line, text_of=None) -> list[Diagnostic]:
    """One SK002 per file of each name used more than once in one namespace (path order; the first
    is served), and one SK014 note per group of byte-identical copies of one skill.

    Names are compared as agents and people read them: NFKC, case-folded, look-alike letters of
    other scripts taken as the Latin ones (:func:`skillsift.validators.names.skeleton`).  A plugin's
    skills are their own namespace (:func:`namespace`).  ``line_of(skill, key)`` gives the file line
    of a frontmatter key (None when unknown); ``text_of(skill)`` its file's text (copies are found only
    with it).
    """

    out = []
    representatives = list(skills)
    if text_of is not None:
        dropped: set[int] = set()
        for group in _copies(skills, text_of):
            dropped.update(id(s) for s in group[1:])
            others = ", ".join(s.path for s in group[1:])
            out.append(COPIES.report(
                file=group[0].path, line=line_of(group[0], "name"),
                message=f'skill "{group[0].name}" has {len(group) - 1} byte-identical '
                        f'cop{"y" if len(group) == 2 else "ies"}: {others}; whichever is served, it is the same '
                        "skill",
                hint="keep one copy and link the others to it (a symlink), or leave them when each is "
                     "shipped on its own (plugins)"))
        representatives = [s for s in skills if id(s) not in dropped]
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for skill in representatives:
        groups[(namespace(skill), skeleton(skill.name))].append(skill)
    for (_plugin, _key), group in groups.items():
        if len(group) < 2:
            continue
        paths = [s.path for s in group]
        for skill in group:
            alike = [s for s in group if s.name != skill.name]
            others = ", ".join(p for p in paths if p != skill.path)
            served = ("this one is served" if skill is group[0] else f"only {paths[0]} is served") + (
                " (the first in path order)")
            if alike:
                message = (f'skill name "{skill.name}" reads the same as "{alike[0].name}" once Unicode forms, case '
                           f"and look-alike letters are folded (used by {others}); agents load both, and neither "
                           "people nor models can tell them apart")
            else:
                message = f'skill name "{skill.name}" is also used by {others}; {served}'
            out.append(DUPLICATE.report(
                file=skill.path, line=line_of(skill, "name"), message=message,
                hint="a skill's name is its id: give each skill its own `name:` in the frontmatter"))
    return out


def _copies(skills, text_of) -> list[list]:
    """The groups of two or more ``skills`` of one name and one text (``text_of``, None: unread), each in
    the order of ``skills``, ordered by their first skill.  Texts are compared only within one name and
    one length, so the texts of a catalog are not hashed (megabytes) to find a few copies."""
    sized: dict[tuple[str, int], list[tuple[int, object, str]]] = defaultdict(list)
    for n, skill in enumerate(skills):
        text = text_of(skill)
        if text is not None:
            sized[(skill.name, len(text))].append((n, skill, text))
    groups: list[tuple[int, list]] = []
    for alike in sized.values():
        if len(alike) < 2:
            continue
        same: dict[str, list[tuple[int, object]]] = defaultdict(list)
        for n, skill, text in alike:
            same[text].append((n, skill))
        groups.extend((group[0][0], [skill for _n, skill in group]) for group in same.values() if len(group) > 1)
    return [group for _first, group in sorted(groups, key=lambda item: item[0])]


def term_sets(texts) -> list[frozenset[str]]:
    """``frozenset(tokenize(text))`` of each text (:func:`_terms_and_words`)."""
    return _terms_and_words(list(texts))[0]


# A byte of a lowered ASCII text: kept when it is a letter or digit, else a blank (every other byte).
_LETTERS_AND_DIGITS = bytes(c if c < 0x80 and chr(c).isalnum() else 0x20 for c in range(256))


def _terms_and_words(texts) -> tuple[list[frozenset[str]], list[tuple[str, ...]]]:
    """(:func:`term_sets`, the lowered ``\\w+`` words :func:`one_word_apart` compares) of ``texts``, each
    text split once for both where it can be (:func:`_lower_words`).

    The terms are ``tokenize``'s (its words, stopwords dropped, stemmed), each distinct word of the
    catalog made a term once; an ASCII text's words are the ``[a-z0-9]+`` runs of its lowered text
    (``tokenize``'s letter and digit runs there): its bytes lowered, every other byte made a blank by one
    table, then split on blanks (no regex step per word).
    """
    from ..ranker.tokenize import lower, terms_of, words

    split = [(text.encode("ascii").lower().translate(_LETTERS_AND_DIGITS).decode("ascii").split()
              if text.isascii() else words(lower(text))) if text else [] for text in texts]
    made = terms_of(set().union(*split))  # word -> its term ("" for a stopword)
    sets = [frozenset(filter(None, map(made.__getitem__, runs))) for runs in split]  # (a stopword's term is "")
    # The words of an ASCII text without an underscore are the tokenizer's runs of it (``\w`` is ``[^\W_]``
    # and underscore, and both lowerings agree on ASCII); :func:`_lower_words` finds the others'.
    return sets, [tuple(runs) if text and text.isascii() and "_" not in text else _lower_words(text)
                  for text, runs in zip(texts, split, strict=True)]


def lexical_partners(sets, threshold: float, rank=None) -> list[dict[float, int]]:
    """Every pair of ``sets`` whose set cosine is at least ``threshold``: for each skill ``j``, a map of
    each value to the bit mask of the skills paired with ``j`` at that value (bit ``rank[i]`` for skill
    ``i``, ``i`` by default; both ways).  Sets smaller than MIN_TERMS are skipped.

    Prefix filtering: with terms sorted rarest first, a pair with cosine >= t shares at least
    ceil(t^2 |A|) terms with A, so it shares one within A's first |A| - ceil(t^2 |A|) + 1 terms
    (and likewise for B).  A skill's candidates are the OR of the masks of its prefix terms, less the
    sizes the length filter rules out; a few are compared one by one (:func:`_pair_by_pair`), more
    have their overlaps counted at once (:func:`_overlap_digits`), each (overlap, size) one value for
    every skill it holds.  Skills of one size holding the same terms but for those no other skill
    holds are one class (:func:`_term_masks`), searched once: a templated family (the template and a
    name of its own in each description) costs one search, not one per skill.
    """
    tiers: list[dict[float, int]] = [{} for _ in sets]
    if threshold <= 0:
        return tiers
    return _fill_tiers(sets, threshold, list(range(len(sets))) if rank is None else rank, tiers)


def _term_masks(sets, t2: float, rank: list[int]):
    """(classes, term -> skills holding it, term -> skills holding it in their prefix, size -> skills),
    terms numbered rarest first (ties by term).

    A term held by one skill alone pairs it with none, so it is left out of the masks, of the
    ``shared`` terms whose overlaps are counted and of the prefixes (whose length still counts it):
    with terms numbered rarest first, a skill's terms of one holder are its lowest numbers.  The skills
    of one size and one tuple of shared terms are a class ``(skills, their bits, size, shared terms,
    prefix)``: every other skill overlaps each of them by as many terms, two of them overlap by their
    shared terms, and they have one prefix.
    """
    frequency = Counter(chain.from_iterable(sets))
    vocabulary = sorted(sorted(frequency), key=frequency.__getitem__)
    number = dict(zip(vocabulary, range(len(vocabulary)), strict=True))
    alone = Counter(frequency.values())[1]  # the first numbers: the terms of one skill
    members: dict[tuple[int, tuple[int, ...]], list[int]] = defaultdict(list)  # (size, shared terms) -> skills
    for j, terms in enumerate(sets):
        size = len(terms)
        if size >= MIN_TERMS:
            ordered = sorted(map(number.__getitem__, terms))
            members[(size, tuple(ordered[bisect.bisect_left(ordered, alone):]))].append(j)
    has = [0] * len(vocabulary)  # term -> the skills holding it
    prefixed = [0] * len(vocabulary)  # term -> the skills holding it in their prefix
    of_size: dict[int, int] = defaultdict(int)
    classes = []
    for (size, shared), skills in members.items():
        bits = 0
        for j in skills:
            bits |= 1 << rank[j]
        # a skill's first size - ceil(t2 size) + 1 terms, less its size - len(shared) terms of one holder
        prefix = shared[:max(0, len(shared) - math.ceil(t2 * size - 1e-9) + 1)]
        classes.append((skills, bits, size, shared, prefix))
        for term in shared:
            has[term] |= bits
        for term in prefix:
            prefixed[term] |= bits
        of_size[size] |= bits
    return classes, has, prefixed, of_size


def _overlap_digits(terms, has: list[int], candidates: int) -> list[int]:
    """Each candidate's overlap with ``terms``, bit-sliced: mask k holds those with binary digit k set."""
    digits: list[int] = []
    for term in terms:
        carry = has[term] & candidates
        for k in range(len(digits)):
            if not carry:
                break
            digits[k], carry = digits[k] ^ carry, digits[k] & carry
        if carry:
            digits.append(carry)
    return digits


#: Candidates of one skill up to which their overlaps are counted pair by pair (set intersections)
#: rather than bit-sliced over the skill's terms: most skills have a few, a templated family hundreds.
FEW_CANDIDATES = 16


def _fill_tiers(sets, threshold: float, rank: list[int], tiers: list[dict[float, int]]) -> list[dict[float, int]]:
    t2 = threshold * threshold
    bar = threshold - 1e-12
    classes, has, prefixed, of_size = _term_masks(sets, t2, rank)
    by_size = sorted(of_size.items())
    numbered = [0] * len(rank)  # the skill of each bit
    for i, bit in enumerate(rank):
        numbered[bit] = i
    # size -> (the skills of the sizes the length filter pairs with it, (size, skills) of each such size)
    windows: dict[int, tuple[int, list[tuple[int, int]]]] = {}
    for skills, bits, size, shared, prefix in classes:
        if not prefix:
            continue
        candidates = 0
        for term in prefix:
            candidates |= prefixed[term]
        window = windows.get(size)
        if window is None:
            window = windows[size] = _length_window(by_size, t2, size)
        candidates &= window[0] & ~bits  # the class's own skills pair with one another below
        found: dict[float, int] = {}
        if not candidates:
            pass
        elif candidates.bit_count() <= FEW_CANDIDATES:
            _pair_by_pair(sets, skills[0], candidates, numbered, bar, found)
        else:
            _bit_sliced(window[1], size, _overlap_digits(shared, has, candidates), candidates, bar, found)
        _share(found, skills, bits, len(shared) / math.sqrt(size * size), bar, rank, tiers)
    return tiers


def _share(found: dict[float, int], skills: list[int], bits: int, value: float, bar: float, rank: list[int],
           tiers: list[dict[float, int]]) -> None:
    """Give each of a class's ``skills`` (``bits``) the partners ``found`` for the class, and the class's
    other skills at ``value`` (the cosine of two of them, as :func:`_pair_by_pair` computes it) when it
    reaches ``bar``."""
    if len(skills) == 1:
        tiers[skills[0]] = found
        return
    for j in skills:
        own = dict(found)
        if value >= bar:
            own[value] = own.get(value, 0) | (bits ^ (1 << rank[j]))
        tiers[j] = own


def _length_window(by_size: list[tuple[int, int]], t2: float, size: int) -> tuple[int, list[tuple[int, int]]]:
    """(the skills whose size the length filter pairs with ``size``, the ``(size, skills)`` of ``by_size``
    it pairs with it): t2 |A| <= |B| (1 + 1e-9) both ways."""
    low, high = t2 * size, size * (1 + 1e-9)
    paired = [(other, members) for other, members in by_size if t2 * other <= high and low <= other * (1 + 1e-9)]
    window = 0
    for _other, members in paired:
        window |= members
    return window, paired


def _pair_by_pair(sets, j: int, candidates: int, numbered: list[int], bar: float, found: dict[float, int]) -> None:
    """Add to ``found`` (skill ``j``'s tiers) each of ``candidates`` whose set cosine with it reaches ``bar``,
    its overlap counted by a set intersection (the value is the one :func:`_bit_sliced` computes)."""
    terms = sets[j]
    size = len(terms)
    while candidates:
        low = candidates & -candidates
        candidates ^= low
        other = sets[numbered[low.bit_length() - 1]]
        overlap = len(terms & other)
        if overlap:
            value = overlap / math.sqrt(len(other) * size)
            if value >= bar:
                found[value] = found.get(value, 0) | low


def _bit_sliced(by_size: list[tuple[int, int]], size: int, digits: list[int], candidates: int, bar: float,
                found: dict[float, int]) -> None:
    """Add to ``found`` (a skill's tiers) the ``candidates`` of each (overlap, size) whose cosine reaches
    ``bar``, the overlaps read from ``digits`` (:func:`_overlap_digits`, complemented once here); ``by_size``:
    the ``(size, skills)`` the length filter pairs with ``size``."""
    complements = [~digit for digit in digits]
    for other, members in by_size:
        members &= candidates
        if not members:
            continue
        root = math.sqrt(other * size)
        for overlap in range(min(other, size), 0, -1):
            value = overlap / root
            if value < bar:
                break
            if overlap >> len(digits):
                continue
            exact = members
            for k, digit in enumerate(digits):
                exact &= digit if overlap >> k & 1 else complements[k]
                if not exact:
                    break
            if exact:
                found[value] = found.get(value, 0) | exact


#: Descriptions of more words are left to the cosine (one word apart there is well above 0.9).
ONE_WORD_MAX = 40
_WORD = None


def _set_cosine(a: frozenset, b: frozenset) -> float:
    return len(a & b) / math.sqrt(len(a) * len(b)) if a and b else 0.0


def one_word_apart(texts, words: list[tuple[str, ...]] | None = None) -> list[tuple[int, int]]:
    """Pairs (i < j) of texts of 3 to :data:`ONE_WORD_MAX` words whose lowercase words differ by
    one word replaced, added or dropped; found by hashing each text with one word blanked or
    left out (no pairwise scan).

    Only the words where a partner can differ are blanked (:func:`_half_key`): two word lists one word
    apart agree on the first or the last half of the shorter, so a text whose first half no other
    text of its length shares has no partner of its length that differs in its last half (and
    likewise the other way), and one whose halves no text one word shorter shares loses no word to
    become another.  A blanked text is keyed by the position blanked and the words on each side.
    ``words``: each text's lowered words (:func:`_lower_words`), when the caller has them.
    """
    if words is None:
        words = [_lower_words(text) for text in texts]
    compared = [(n, w) for n, w in enumerate(words) if 3 <= len(w) <= ONE_WORD_MAX]
    keys = [(_half_key(w, len(w), True), _half_key(w, len(w), False)) for _n, w in compared]
    halves: dict[tuple, int] = defaultdict(int)  # how many texts have each half key of their own length
    for first, last in keys:
        halves[first] += 1
        halves[last] += 1
    blanked: dict[tuple, list[int]] = defaultdict(list)
    whole: dict[tuple, list[int]] = defaultdict(list)
    for (n, w), (first, last) in zip(compared, keys, strict=True):
        whole[w].append(n)
        half = len(w) // 2
        # a partner one word apart at k >= half shares the first half, at k < half the last
        low = 0 if halves[last] > 1 else half
        high = len(w) if halves[first] > 1 else half
        for k in range(low, high):
            blanked[(k, w[:k], w[k + 1:])].append(n)
    out: set[tuple[int, int]] = set()
    for group in blanked.values():
        if 1 < len(group) <= 50:  # a template shared by more is SK009's cosine business
            for a in range(len(group)):
                for b in range(a + 1, len(group)):
                    if words[group[a]] != words[group[b]]:
                        out.add((group[a], group[b]))
    for n, w in enumerate(words):
        if 4 <= len(w) <= ONE_WORD_MAX + 1 and (_half_key(w, len(w) - 1, True) in halves
                                                 or _half_key(w, len(w) - 1, False) in halves):
            for k in range(len(w)):
                for m in whole.get(w[:k] + w[k + 1:], ()):
                    out.add((min(n, m), max(n, m)))
    return sorted(out)


def _lower_words(text) -> tuple[str, ...]:
    """The ``\\w+`` runs of ``text`` lowered (() for a non-text)."""
    global _WORD
    if not isinstance(text, str):
        return ()
    if _WORD is None:
        _WORD = regexes.compile(r"\w+")
    return tuple(_WORD.findall(text.lower()))


def _half_key(w: tuple, size: int, first: bool) -> tuple:
    """The first ``size // 2`` words of ``w``, or its last ``size - size // 2``, keyed with ``size``.

    With ``size`` = len(w): two texts of that length that differ in one word (at k) agree on the first
    half (k >= size // 2) or the last (k < size // 2).  With ``size`` = len(w) - 1: a text of ``size``
    words that is ``w`` less its word k agrees with ``w`` on the first half (k >= size // 2) or on the
    last ``size - size // 2`` words (k < size // 2 leaves more after it)."""
    half = size // 2
    return (size, first, w[:half]) if first else (size, first, w[len(w) - (size - half):])


def vector_pairs(matrix, threshold: float) -> list[tuple[int, int, float]]:
    """Pairs (i < j) of unit rows whose cosine is at least ``threshold`` (numpy)."""
    import numpy as np

    if threshold <= 0 or len(matrix) < 2:
        return []
    sims = np.asarray(matrix, dtype=np.float32) @ np.asarray(matrix, dtype=np.float32).T
    upper = np.triu(sims >= threshold, k=1)
    rows, cols = np.nonzero(upper)
    return sorted((int(i), int(j), float(sims[i, j])) for i, j in zip(rows, cols, strict=True))


MAX_NAMED = 3  # other skills named per diagnostic


def near_duplicates(skills, *, threshold: float, cosine_pairs=(), line_of=_no_line) -> list[Diagnostic]:
    """SK009: one diagnostic per skill that has near-identical descriptions elsewhere.

    ``cosine_pairs`` are ``(i, j, cosine)`` over the same ``skills`` list (from the index).
    Each diagnostic names the most similar other skills (at most three, then "and N more"), the
    strongest first, then by name, path and position.

    The lexical pairs (hundreds of thousands in a templated catalog) stay masks whose bits number the
    skills in (name, path, position) order: a skill's partners at one value, in the order a diagnostic
    names them, are its lowest bits (:func:`_strongest`); the one-word and cosine pairs are listed.
    """
    descriptions = [s.description for s in skills]
    sets, words = _terms_and_words(descriptions)
    names = [skill.name for skill in skills]
    paths = [skill.path for skill in skills]
    order = sorted(range(len(skills)), key=lambda i: (names[i], paths[i], i))
    rank = [0] * len(skills)
    for position, i in enumerate(order):
        rank[i] = position
    tiers = lexical_partners(sets, threshold, rank)

    def lexical(i: int, j: int) -> bool:
        return any(mask >> rank[i] & 1 for mask in tiers[j].values())

    # short descriptions one word apart sit below the cosine threshold (4 of 5 terms: 0.8)
    one_word = [(i, j) for i, j in one_word_apart(descriptions, words) if not lexical(i, j)] if (
        threshold > 0) else []
    apart = set(one_word)
    cosine = {(min(i, j), max(i, j)): v for i, j, v in cosine_pairs}
    listed: dict[int, dict[int, float]] = defaultdict(dict)  # the pairs not in the masks, with their strength
    for i, j in one_word:
        listed[i][j] = listed[j][i] = _set_cosine(sets[i], sets[j])
    taken = [0] * len(skills)  # the bits of the pairs moved from the masks to ``listed``
    for (i, j), value in cosine.items():
        found = lexical(i, j)
        strength = _set_cosine(sets[i], sets[j]) if found else listed[i].get(j, 0.0)
        listed[i][j] = listed[j][i] = max(strength, value)
        if found:
            taken[i] |= 1 << rank[j]
            taken[j] |= 1 << rank[i]
    same_name: dict[str, int] = defaultdict(int)
    for i, name in enumerate(names):
        same_name[name] |= 1 << rank[i]

    def how(i: int, j: int, strength: float) -> str:
        key = (min(i, j), max(i, j))
        if key in apart:
            return f"one word apart, lexical {_set_cosine(sets[i], sets[j]):.2f}"
        if not cosine:
            return f"lexical {strength:.2f}"
        measures = []
        if lexical(i, j):
            measures.append(f"lexical {_set_cosine(sets[i], sets[j]):.2f}")
        if key in cosine:
            measures.append(f"cosine {cosine[key]:.2f}")
        return ", ".join(measures)

    out = []
    for i in range(len(skills)):
        if not tiers[i] and i not in listed:
            continue
        drop = ~(same_name[names[i]] | taken[i])  # SK002 already says it; a cosine pair is listed
        extra = [(-strength, names[j], paths[j], j) for j, strength in listed[i].items() if names[j] != names[i]] \
            if i in listed else []
        count, ranked = _strongest(tiers[i], drop, extra, order, names, paths)
        if not count:
            continue
        named = [f'"{names[j]}" ({paths[j]}; {how(i, j, -negated)})' for negated, _n, _p, j in ranked]
        more = count - len(named)
        out.append(near_diagnostic(skills[i], ", ".join(named) + (f" and {more} more" if more else ""), line_of))
    return out


def _strongest(tiers: dict[float, int], drop: int, extra: list, order: list[int], names, paths) -> tuple[int, list]:
    """(how many partners, the MAX_NAMED strongest as ``(-strength, name, path, number)``) of one skill:
    its masks by value (less the bits ``drop`` clears) and the ``extra`` partners listed one by one."""
    ranked = list(extra)
    count = len(ranked)
    picked = 0
    for value in sorted(tiers, reverse=True):
        mask = tiers[value] & drop
        count += mask.bit_count()
        while mask and picked < MAX_NAMED:
            low = mask & -mask
            j = order[low.bit_length() - 1]
            ranked.append((-value, names[j], paths[j], j))
            mask ^= low
            picked += 1
    return count, heapq.nsmallest(MAX_NAMED, ranked)


def near_diagnostic(skill, listing: str, line_of=_no_line) -> Diagnostic:
    """The SK009 of ``skill``, whose near-duplicates ``listing`` names."""
    return NEAR.report(
        file=skill.path, line=line_of(skill, "description"),
        message=f'description of "{skill.name}" is nearly the same as that of {listing}; '
                "agents cannot tell them apart",
        hint="say in each description what sets the skill apart and when to use the other one, "
             "or merge the skills")


_LISTING_AT = 'is nearly the same as that of '


def cached_near_duplicates(ws, skills, *, threshold: float, cosine_pairs=(), line_of=_no_line) -> list[Diagnostic]:
    """:func:`near_duplicates` through the user cache: the same inputs give the stored listings.

    The key is the SHA-256 of the threshold, every skill's name, path and description in
    order, and the cosine pairs; an entry is the ``[skill number, listing]`` of each SK009
    (docs/configuration.md).  Line numbers come from ``line_of`` as they would.
    """
    from ..cache.checks import CheckCache

    cache = CheckCache(ws.root)
    if cache.path is None:  # the caches are off: no key to hash, no listing to store
        return near_duplicates(skills, threshold=threshold, cosine_pairs=cosine_pairs, line_of=line_of)
    inputs = [threshold, "one-word-apart", [[s.name, s.path, s.description] for s in skills],
              [[i, j, v] for i, j, v in cosine_pairs]]
    key = cache.key("SK009", inputs)
    entry = cache.get(key)
    if entry is not None and type(entry) is list and all(
            type(item) is list and len(item) == 2 and type(item[0]) is int and 0 <= item[0] < len(skills)
            and type(item[1]) is str for item in entry):
        cache.keep(key)
        return [near_diagnostic(skills[i], str(listing), line_of) for i, listing in entry]
    out = near_duplicates(skills, threshold=threshold, cosine_pairs=cosine_pairs, line_of=line_of)
    numbers = {id(skill): n for n, skill in enumerate(skills)}
    by_path = {skill.path: skill for skill in skills}
    stored: list[tuple[int, str]] = []
    for diag in out:
        skill = by_path[diag.file]
        start = diag.message.index(_LISTING_AT) + len(_LISTING_AT)
        stored.append((numbers[id(skill)], diag.message[start:diag.message.rindex("; agents cannot tell")]))
    if [near_diagnostic(skills[i], listing, line_of) for i, listing in stored] == out:
        cache.put(key, [list(pair) for pair in stored])
        cache.save()
    return out


def index_cosine_pairs(ws, skills, threshold: float) -> list[tuple[int, int, float]]:
    """Cosine pairs from the index in ``ws`` for skills whose indexed text is current; [] without one."""
    if threshold <= 0 or not ws.index_exists():
        return []
    result = ws.index_load
    if result.index is None:
        return []
    index = result.index
    config = ws.config
    if index.unusable_reason(fields=config.search.fields, index_body=config.search.index_body,
                             body_chars=config.search.body_chars):
        return []

    positions, rows = [], []
    for position, skill in enumerate(skills):
        row = index.row(skill.domain, skill.name)
        if row < 0:
            continue
        digest = text_digest(embedded_text(skill, config.search.fields, config.search.index_body,
                                           config.search.body_chars))
        if index.items[row].text_digest != digest:
            continue
        positions.append(position)
        rows.append(row)
    if len(rows) < 2:
        return []
    matrix = index.matrix[rows]
    return [(positions[i], positions[j], v) for i, j, v in vector_pairs(matrix, threshold)]


def run(ws: Workspace) -> list[Diagnostic]:
    def line_of(skill, key: str) -> int | None:
        split = ws.split_text(skill.path)
        return split[2].get(key) if split is not None else None

    skills = ws.all_skills
    out = duplicate_names(skills, line_of, lambda skill: ws.read_text(skill.path))
    settings = ws.settings
    unique = list(ws.catalog.skills)
    cosine = index_cosine_pairs(ws, unique, settings.near_duplicate_cosine) if ws.config is not None else []
    out += cached_near_duplicates(ws, unique, threshold=settings.near_duplicate_threshold, cosine_pairs=cosine,
                                  line_of=line_of)
    return out
