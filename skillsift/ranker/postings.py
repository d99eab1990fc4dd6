"""Inverted index of the lexical ranker: term -> (documents, weighted term frequency).

Each document has four weighted fields (:data:`FIELDS`); a term's weighted
frequency in a document is the sum of the field weights over its occurrences, and a
document's weighted length the same sum over all its tokens.  Weights are multiples
of 0.5, so every such sum is exact in float64 whatever the order of addition.

Two builders produce the same postings: a pure-Python one for small catalogs (no
numpy import, the common case of a repository with a few dozen skills) and a
vectorised one for large catalogs (100k skills in about a second).  Either kind
serves a term's postings as Python lists or as numpy arrays on request.
"""

from __future__ import annotations

import math
import sys
from array import array
from collections.abc import Sequence

from .tokenize import lower, term, tokenize, words

TYPE_CHECKING = False  # (mypy reads it as true; typing is not imported on the search path)
if TYPE_CHECKING:
    from typing import Any

FIELDS = (("name", 3.0), ("triggers", 2.5), ("keywords", 2.0), ("description", 1.0))
FIELD_NAMES = tuple(name for name, _ in FIELDS)
WEIGHTS = tuple(weight for _, weight in FIELDS)

# Catalogs up to this size are indexed without numpy.
PYTHON_BUILD_MAX_DOCS = 500
# The vectorised build splits each field's texts into words this many documents at a time.
BUILD_CHUNK_DOCS = 4096

_STOP = -1
_SEPARATOR = -2
# Never produced by tokenizing lowercased text, so it can mark document boundaries.
_SEPARATOR_WORD = "Q"


def field_text(doc, field: str) -> str:
    """The text of one field of a document; list fields are joined with single spaces."""
    return _text(getattr(doc, field, None))


def _text(value) -> str:
    if not value:
        return ""
    return value if isinstance(value, str) else " ".join(value)


def field_texts(docs: Sequence) -> list[list[str]]:
    """Per field (in :data:`FIELDS` order), the text of every document."""
    out = []
    for name in FIELD_NAMES:
        try:
            values = [getattr(d, name) for d in docs]
        except AttributeError:
            values = [getattr(d, name, None) for d in docs]
        out.append([v if v.__class__ is str else _text(v) for v in values])
    return out


class Postings:
    """Term postings of one document list (document ids ascending within a term).

    Held either as per-term Python lists (pure-Python build) or as CSR numpy arrays
    ``csr = (offsets, docs, tfs)``, term ``t`` owning ``docs[offsets[t]:offsets[t + 1]]``.
    """

    def __init__(self, vocab: dict[str, int], n_docs: int, doc_len, *,
                 lists: Sequence[tuple[list[int], list[float]]] | None = None, csr=None):
        self.vocab = vocab  # term -> term id
        self.n_docs = n_docs
        # The offsets in a stdlib array, which indexes as Python ints (a numpy scalar costs more);
        # csr[0] is a numpy view of the same memory.
        self.bounds: Any = None  # array('q') of the offsets, set with csr
        if csr is not None:
            import numpy as np

            self.bounds = array("q", np.ascontiguousarray(csr[0], dtype=np.int64).tobytes())
            csr = (np.frombuffer(self.bounds, dtype=np.int64), *csr[1:])
        self.csr = csr
        self._lists: Sequence[tuple[list[int], list[float]]] = lists or []
        self._doc_len_list: list[float] | None = doc_len if isinstance(doc_len, list) else None
        self._doc_len_array: Any = None if isinstance(doc_len, list) else doc_len

    def df(self, tid: int) -> int:
        """Number of documents holding term ``tid``."""
        if self.csr is not None:
            bounds = self.bounds
            return bounds[tid + 1] - bounds[tid]
        return len(self._lists[tid][0])

    def lists(self, tid: int) -> tuple[list[int], list[float]]:
        """(document ids, weighted tfs) of term ``tid`` as Python lists (callers cache)."""
        if self.csr is None:
            return self._lists[tid]
        _offsets, docs, tfs = self.csr
        lo, hi = self.bounds[tid], self.bounds[tid + 1]
        return docs[lo:hi].tolist(), widen(tfs[lo:hi]).tolist()

    def arrays(self, tid: int):
        """(document ids, weighted tfs) of term ``tid`` as numpy arrays (int32 or int64, float64)."""
        if self.csr is not None:
            _offsets, docs, tfs = self.csr
            lo, hi = self.bounds[tid], self.bounds[tid + 1]
            return docs[lo:hi], widen(tfs[lo:hi])
        import numpy as np

        d, t = self._lists[tid]
        return np.array(d, dtype=np.int64), np.array(t, dtype=np.float64)

    def doc_len(self, d: int) -> float:
        """Weighted length of document ``d``."""
        if self._doc_len_list is not None:
            return self._doc_len_list[d]
        return float(self._doc_len_array[d])

    def doc_len_total(self, members=None) -> float:
        """Sum of the weighted lengths (of ``members`` when given), exact: they are multiples of 0.5."""
        if self._doc_len_list is not None:
            lengths = self._doc_len_list
            return math.fsum(lengths if members is None else (lengths[d] for d in members))
        import numpy as np

        array_lengths = self._doc_len_array
        if members is not None:
            array_lengths = array_lengths[np.fromiter(members, dtype=np.int64, count=len(members))]
        return float(array_lengths.sum())  # every partial sum is a multiple of 0.5 below 2**52: exact in any order

    def doc_len_list(self) -> list[float]:
        if self._doc_len_list is None:
            assert self._doc_len_array is not None  # the constructor sets one of the two forms
            self._doc_len_list = self._doc_len_array.tolist()
        return self._doc_len_list

    def doc_len_array(self):
        if self._doc_len_array is None:
            import numpy as np

            self._doc_len_array = np.array(self._doc_len_list, dtype=np.float64)
        return self._doc_len_array

    def items(self):
        """Every (term, document ids, weighted tfs), for tests and diagnostics."""
        for t, tid in self.vocab.items():
            docs, tfs = self.lists(tid)
            yield t, docs, tfs


def build_postings(docs: Sequence, *, python_max_docs: int | None = None) -> Postings:
    """Index ``docs`` (objects with ``name``, ``description``, ``triggers``, ``keywords``).

    Catalogs of at most ``python_max_docs`` documents (default
    :data:`PYTHON_BUILD_MAX_DOCS`) are indexed in pure Python, larger ones with numpy.
    """
    texts = field_texts(docs)
    if len(docs) <= (PYTHON_BUILD_MAX_DOCS if python_max_docs is None else python_max_docs):
        return _build_python(texts, len(docs))
    return _build_numpy(texts, len(docs))


def _build_python(texts: list[list[str]], n: int) -> Postings:
    vocab: dict[str, int] = {}
    lists: list[tuple[list[int], list[float]]] = []
    doc_len = [0.0] * n
    for d in range(n):
        tf: dict[str, float] = {}
        length = 0.0
        for weight, column in zip(WEIGHTS, texts, strict=True):
            for t in tokenize(column[d]):
                tf[t] = tf.get(t, 0.0) + weight
                length += weight
        doc_len[d] = length
        for t, value in tf.items():
            tid = vocab.get(t)
            if tid is None:
                tid = vocab[t] = len(lists)
                lists.append(([], []))
            entry = lists[tid]
            entry[0].append(d)
            entry[1].append(value)
    return Postings(vocab, n, doc_len, lists=lists)


# -- vectorised build ---------------------------------------------------------------------------
#
# Each field's texts are joined into one string with a NUL between documents, split
# into words in a few C-level passes, and the NULs become a separator word that
# marks document boundaries.  Texts that are pure ASCII take the fastest route
# (``str.translate`` lowercases and blanks separators, ``str.split`` cuts); the
# others go through UTF-8 bytes the same way, and only their words holding non-ASCII
# characters are re-split with the exact Unicode rules.

_ASCII_TABLE = str.maketrans({i: chr(i).lower() if chr(i).isalnum() or i == 0 else " " for i in range(128)})
_BYTES_TABLE = bytes(
    (ord(chr(i).lower()) if chr(i).isalnum() or i == 0 else 0x20) if i < 128 else i for i in range(256)
)


class _WordIds(dict):
    """Raw word (``str``, or ASCII ``bytes``) -> term id, ``_STOP`` for stopwords; learns new terms."""

    def __init__(self, vocab: dict[str, int]):
        super().__init__({_SEPARATOR_WORD: _SEPARATOR, _SEPARATOR_WORD.encode(): _SEPARATOR})
        self.vocab = vocab

    def __missing__(self, word) -> int:
        t = term(word.decode() if word.__class__ is bytes else word)
        value = self.vocab.setdefault(t, len(self.vocab)) if t else _STOP
        self[word] = value
        return value


def _ascii_words(texts: list[str]) -> list[str]:
    joined = "\x00".join(texts)
    if joined.count("\x00") != len(texts) - 1:  # a text holds a NUL itself
        return f" {_SEPARATOR_WORD} ".join(" ".join(words(t.lower())) for t in texts).split()
    return joined.translate(_ASCII_TABLE).replace("\x00", f" {_SEPARATOR_WORD} ").split()


def _unicode_words(texts: list[str]) -> list:
    joined = "\x00".join(texts)
    if joined.count("\x00") != len(texts) - 1:
        return f" {_SEPARATOR_WORD} ".join(" ".join(words(lower(t))) for t in texts).split()
    raw = joined.encode("utf-8", "surrogatepass").translate(_BYTES_TABLE)
    out: list = []
    append, extend = out.append, out.extend
    for w in raw.replace(b"\x00", f" {_SEPARATOR_WORD} ".encode()).split():
        if w.isascii():
            append(w)
        else:
            extend(words(lower(w.decode("utf-8", "surrogatepass"))))
    return out


def _field_keys(np, word_ids: _WordIds, group_words: list, group_docs, doc_len, weight, code, n):
    """Sort keys ``((term * n + doc) * 4 + field)`` of one group of documents' words."""
    ids = np.fromiter(map(word_ids.__getitem__, group_words), dtype=np.int64, count=len(group_words))
    local = np.cumsum(ids == _SEPARATOR)
    keep = ids >= 0
    ids, local = ids[keep], local[keep]
    doc = local if group_docs is None else group_docs[local]
    if group_docs is None:
        doc_len += np.bincount(doc, minlength=n) * weight
    else:
        doc_len[group_docs] += np.bincount(local, minlength=len(group_docs)) * weight
    ids *= n
    ids += doc
    ids *= 4
    ids += code
    return ids


def _build_numpy(texts: list[list[str]], n: int) -> Postings:
    import numpy as np

    vocab: dict[str, int] = {}
    word_ids = _WordIds(vocab)
    keys = []
    doc_len = np.zeros(n, dtype=np.float64)
    for code, (weight, field) in enumerate(zip(WEIGHTS, texts, strict=True)):
        flags = np.array([t.isascii() for t in field], dtype=bool)
        for want, split in ((True, _ascii_words), (False, _unicode_words)):
            docs = np.flatnonzero(flags == want)
            # In chunks: the words of a whole field at once would be millions of short-lived
            # strings, and the few the tokenizer caches keep would pin their memory (docs/ranking-speed.md).
            for start in range(0, len(docs), BUILD_CHUNK_DOCS):
                chunk = docs[start:start + BUILD_CHUNK_DOCS]
                group = [field[d] for d in chunk.tolist()]
                keys.append(_field_keys(np, word_ids, split(group), chunk, doc_len, weight, code, n))
    key = np.sort(np.concatenate(keys))
    weights = np.array(WEIGHTS, dtype=np.float64)[key & 3]
    key >>= 2  # term * n + doc
    if len(key):
        first = np.empty(len(key), dtype=bool)
        first[0] = True
        np.not_equal(key[1:], key[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        tfs = np.add.reduceat(weights, starts)
        pairs = key[starts]
    else:
        tfs = np.zeros(0, dtype=np.float64)
        pairs = key
    term_of, docs = np.divmod(pairs, n)
    del pairs
    offsets = np.zeros(len(vocab) + 1, dtype=np.int64)
    np.cumsum(np.bincount(term_of, minlength=len(vocab)), out=offsets[1:])
    del term_of
    csr = (offsets, *_compact(np, docs, tfs, n))
    return Postings(vocab, n, doc_len, csr=csr)


def release_freed_memory() -> None:
    """Hand the build's freed scratch memory back to the system (glibc ``malloc_trim``; elsewhere nothing).

    The build's temporary arrays (hundreds of MB at 100k skills) are freed, but glibc keeps
    most of them in the process heap under the long-lived index arrays, so the resident
    size would stay at the build's peak (docs/ranking-speed.md).
    """
    global _malloc_trim
    if _malloc_trim is None:
        _malloc_trim = False
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                _malloc_trim = ctypes.CDLL(None).malloc_trim
            except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
                pass
    if _malloc_trim:
        _malloc_trim(0)


_malloc_trim: Any = None


# Weighted term frequencies are multiples of 0.5: float32 holds them exactly below 2**23.
_FLOAT32_EXACT_TF = float(2**22)


def _compact(np, docs, tfs, n: int):
    """Postings in the smallest exact dtypes: int32 document ids; weighted tfs as uint16 halves.

    A weighted tf is a multiple of 0.5, so ``2 * tf`` is an integer: uint16 when every one
    is below 65,536, else float32 (exact below 2**22), else float64.  A third of the memory
    of int64/float64 (docs/ranking-speed.md); :func:`widen` turns them back into the same
    float64 values, so every score is computed from the same doubles.
    """
    if n < 2**31:
        docs = docs.astype(np.int32)
    top = float(tfs.max()) if len(tfs) else 0.0
    if 2 * top < 65536:
        tfs = (tfs * 2).astype(np.uint16)
    elif top < _FLOAT32_EXACT_TF:
        tfs = tfs.astype(np.float32)
    return docs, tfs


def widen(tfs):
    """Stored weighted tfs (:func:`_compact`) as float64, exactly."""
    import numpy as np

    if tfs.dtype == np.uint16:
        out = tfs.astype(np.float64)
        out *= 0.5  # exact: halves of small integers
        return out
    return tfs.astype(np.float64)
