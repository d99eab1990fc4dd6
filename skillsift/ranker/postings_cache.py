"""A cache of the lexical postings, so that a one-shot search skips tokenizing the catalog.

Building the postings of a catalog (:func:`skillsift.ranker.postings.build_postings`) is a
pure function of the four ranked fields of its skills, in order.  This cache keeps, per
repository root, the postings of the last catalog searched there, keyed by the SHA-256 of
those field texts: a hit gives exactly the postings a build would (same terms in the same
order, the same document ids and float64 weights), so rankings and scores are unchanged.

One file per root in the user's cache folder (the folder of docs/caches.md, "The
skill cache"): ``lexical/<sha256 of the resolved root>.bin``, replaced atomically (0600,
folders 0700) whenever the catalog's texts change, so it is bounded by the catalog.  It
holds one line of JSON (format, the stamp of skillsift's version and tokenizing modules,
the key, the section sizes and the SHA-256 of what follows) and then the terms and the
postings as packed arrays.  Anything that does not check out is a miss and the postings
are built as without the cache; ``SKILLSIFT_CACHE=off`` turns it off.
"""

from __future__ import annotations

import hashlib
import json
import sys
from array import array
from collections.abc import Sequence
from operator import lt as _less

from skillsift.cache.base import JsonCache as _JsonCache
from skillsift.cache.base import refuse as _refuse
from skillsift.ranker.postings import PYTHON_BUILD_MAX_DOCS, Postings, build_postings, field_texts

FORMAT = 1  # offsets and document ids are array("q"), weights and lengths array("d"), in this machine's byte order


def texts_key(texts: list[list[str]]) -> str:
    """SHA-256 of the field texts: per field, the number of texts, the length of each (in code points,
    so no two lists share a key) and then all of them, one after the other (hashed in three calls a
    field, not two a text)."""
    h = hashlib.sha256()
    for column in texts:
        h.update(b"\x00field\x00%d\x00" % len(column))
        h.update(array("q", map(len, column)).tobytes())
        h.update("".join(column).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


class _PackedLists(Sequence):
    """Per-term ``(document ids, weighted tfs)`` lists cut from packed arrays on first use."""

    def __init__(self, bounds: array, docs: array, tfs: array):
        self._bounds, self._docs, self._tfs = bounds, docs, tfs
        self._made: dict[int, tuple[list[int], list[float]]] = {}

    def __len__(self) -> int:
        return len(self._bounds) - 1

    def __getitem__(self, tid):  # ints only: Postings indexes by term id
        got = self._made.get(tid)
        if got is None:
            if not 0 <= tid < len(self._bounds) - 1:
                raise IndexError(tid)
            lo, hi = self._bounds[tid], self._bounds[tid + 1]
            got = self._made[tid] = (self._docs[lo:hi].tolist(), self._tfs[lo:hi].tolist())
        return got


class PostingsCache(_JsonCache):
    """The postings of one repository root's last searched catalog."""

    folder = "lexical"
    parsers = ("ranker/tokenize.py", "ranker/postings.py", "ranker/postings_cache.py", "cache/base.py",
               "_version.py")

    def __init__(self, root, *, env=None):
        super().__init__(root, env=env)
        if self.path is not None:
            self.path = self.path[:-len(".json")] + ".bin"  # <digest>.json -> <digest>.bin

    def _load(self) -> dict:
        return {}  # read on demand by :meth:`get`, which knows the key it wants

    def get(self, key: str, n_docs: int) -> Postings | None:
        """The cached postings for ``key`` over ``n_docs`` documents, or None."""
        data = self._read()
        cut = -1 if data is None else data.find(b"\n")
        if data is None or cut < 0:
            return None
        try:
            head = json.loads(data[:cut], parse_constant=_refuse)
        except (ValueError, RecursionError):
            return None
        if (not self._ours(head, fmt=FORMAT, entries=False) or head.get("key") != key
                or head.get("n_docs") != n_docs or head.get("byteorder") != sys.byteorder):
            return None
        sizes = head.get("sizes")
        if type(sizes) is not list or len(sizes) != 5 or any(type(v) is not int or v < 0 for v in sizes):
            return None
        body = memoryview(data)[cut + 1:]
        if sum(sizes) != len(body) or head.get("sha256") != hashlib.sha256(body).hexdigest():
            return None
        try:
            return _unpack(body, sizes, n_docs)
        except (ValueError, UnicodeDecodeError, IndexError):
            return None

    def put(self, key: str, postings: Postings) -> bool:
        """Store ``postings`` (a pure-Python build) under ``key``; True when written."""
        if self.path is None or postings.csr is not None:
            return False
        try:
            sections = _pack(postings)
        except (ValueError, UnicodeError, OverflowError):
            return False
        body = b"".join(sections)
        head = {"format": FORMAT, "root": self.root_id, "parser": self.stamp, "key": key,
                "n_docs": postings.n_docs, "byteorder": sys.byteorder, "sizes": [len(s) for s in sections],
                "sha256": hashlib.sha256(body).hexdigest()}
        try:
            line = json.dumps(head, separators=(",", ":")).encode("ascii")
        except (TypeError, ValueError):
            return False
        return self._write(line + b"\n" + body)


def _pack(postings: Postings) -> list[bytes]:
    terms = list(postings.vocab)
    bounds, docs, tfs = array("q", [0]), array("q"), array("d")
    for tid in range(len(terms)):
        d, t = postings.lists(tid)
        docs.extend(d)
        tfs.extend(t)
        bounds.append(len(docs))
    lengths = array("d", postings.doc_len_list())
    return ["\n".join(terms).encode("utf-8", "surrogatepass"), bounds.tobytes(), docs.tobytes(), tfs.tobytes(),
            lengths.tobytes()]


def _unpack(body: memoryview, sizes: list[int], n_docs: int) -> Postings | None:
    parts, at = [], 0
    for size in sizes:
        parts.append(body[at:at + size])
        at += size
    raw_terms, raw_bounds, raw_docs, raw_tfs, raw_lengths = parts
    terms = str(raw_terms, "utf-8", "surrogatepass").split("\n") if len(raw_terms) else []
    bounds, docs, tfs, lengths = array("q"), array("q"), array("d"), array("d")
    bounds.frombytes(raw_bounds)
    docs.frombytes(raw_docs)
    tfs.frombytes(raw_tfs)
    lengths.frombytes(raw_lengths)
    vocab = dict(zip(terms, range(len(terms)), strict=True))
    # The checks a corrupt file would fail: every term once, offsets from 0 rising to the
    # postings' end, document ids in range, weights positive and finite, one length a document.
    if (len(vocab) != len(terms) or "" in vocab or len(bounds) != len(terms) + 1 or bounds[0] != 0
            or bounds[-1] != len(docs) or len(tfs) != len(docs) or len(lengths) != n_docs):
        return None
    if not all(map(_less, bounds, bounds[1:])):  # each term's offset below the next one's
        return None
    # min(docs) < 0 or max(docs) >= n_docs, in one pass: read unsigned, a negative id is above any n_docs
    if docs and (max(memoryview(docs).cast("B").cast("Q")) >= n_docs
                 or not 0 < min(tfs) <= max(tfs) < float("inf")):
        return None
    if lengths and not 0 <= min(lengths) <= max(lengths) < float("inf"):
        return None
    return Postings(vocab, n_docs, lengths.tolist(), lists=_PackedLists(bounds, docs, tfs))


def cached_postings(root, docs: Sequence, *, python_max_docs: int | None = None, env=None) -> Postings:
    """:func:`build_postings` of ``docs``, from the cache of ``root`` when its texts are unchanged."""
    limit = PYTHON_BUILD_MAX_DOCS if python_max_docs is None else python_max_docs
    cache = PostingsCache(root, env=env)
    if cache.path is None or len(docs) > limit or not docs:
        return build_postings(docs, python_max_docs=python_max_docs)
    texts = field_texts(docs)
    key = texts_key(texts)
    got = cache.get(key, len(docs))
    if got is not None:
        return got
    postings = build_postings(docs, python_max_docs=python_max_docs)
    cache.put(key, postings)
    return postings
