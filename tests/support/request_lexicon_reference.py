"""The known requests' BM25 postings as skillsift.ranker.request_lexicon built them before the words were cut in
UTF-8 bytes and counted with numpy (a :class:`~collections.Counter` per skill's document, a Python list per
posting): kept word for word as the oracle of tests/ranker/test_request_lexicon.py."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from skillsift.ranker.tokenize import tokenize

K1 = 1.2
B = 0.75


class ReferencePostings:
    """``vocab``, ``post_skill``, ``post_tf``, ``starts``, ``df``, ``length``, ``documents``, ``average`` and
    ``norm`` of :class:`~skillsift.ranker.request_lexicon.RequestLexicon`, built as it built them."""

    def __init__(self, owner: Sequence[int], texts: Sequence[str], n_skills: int):
        owner = [int(o) for o in owner]
        texts = list(texts)
        requests_of: dict[int, list[int]] = {}
        for r, o in enumerate(owner):
            requests_of.setdefault(o, []).append(r)
        vocab: dict[str, int] = {}
        term_ids, skills, counts = [], [], []
        self.length = np.zeros(n_skills)
        for o in sorted(requests_of):  # a skill's document: its requests' terms (a text per line)
            held = Counter(tokenize("\n".join(texts[r] for r in requests_of[o])))
            self.length[o] = sum(held.values())
            for t, c in held.items():
                term_ids.append(vocab.setdefault(t, len(vocab)))
                skills.append(o)
                counts.append(c)
        self.vocab = vocab
        # postings: (term, skill) pairs sorted by term then skill, each with its count
        order = np.lexsort((np.asarray(skills, dtype=np.intp), np.asarray(term_ids, dtype=np.intp)))
        self.post_skill = np.asarray(skills, dtype=np.intp)[order]
        self.post_tf = np.asarray(counts, dtype=np.float64)[order]
        self.starts = np.searchsorted(np.asarray(term_ids, dtype=np.intp)[order], np.arange(len(vocab) + 1))
        self.df = np.diff(self.starts)
        held_any = self.length > 0
        self.documents = int(np.count_nonzero(held_any))
        self.average = float(self.length[held_any].mean()) if self.documents else 1.0
        self.norm = K1 * ((1 - B) + B * self.length / self.average)
