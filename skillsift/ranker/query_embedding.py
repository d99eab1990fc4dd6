"""A query's vector: the provider call under ``query_timeout_ms``, the cache, the batch warm-up.

The time limit bounds embedding the query, not getting the provider ready: a provider
with a ``load()`` (the local model) is loaded first, outside the limit (``docs/embeddings.md``).
A provider with ``embed_within(texts, seconds)`` (the local model) bounds the call itself
on the calling thread and raises TimeoutError past the limit (docs/local-model.md,
"Threads").  Another provider's call runs on one worker thread kept for the embedder's
life: starting a thread per query cost about a millisecond.  The thread is a daemon: a
call that overruns the limit is abandoned with its thread (the next query gets a new one),
and the process does not wait for it at exit, so a command that fell back to
lexical ranking ends right after printing.

A query longer than the model's window (:meth:`QueryEmbedder.is_long`) is embedded, with
``long_query = "max-piece"``, as the pieces of :func:`~skillsift.ranker.vector.query_pieces`
in one provider call under the same time limit; its vector is then the pieces x dims
matrix, and the cache key the tuple of its pieces (docs/ranking-quality.md, "Long queries").
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

from ..embed.base import EmbedError, EmbedTimeout, ProviderUnavailable
from ..embed.order import length_order
from .degraded import PROVIDER_UNAVAILABLE, Degraded
from .vector import (
    DEFAULT_PIECE_WORDS,
    LONG_QUERY_CAP_BYTES,
    QUERY_CAP_BYTES,
    QueryCache,
    cap_query,
    normalise_query,
    query_pieces,
)


@dataclass(frozen=True)
class QueryVector:
    """A normalised query vector and the facts of the call that made it."""

    vector: object  # numpy float32 (dims,), or (pieces, dims) for a long query
    embedded: bool  # False: it came from the cache
    tokens: int  # estimated input tokens of the call (0 from the cache)
    ms: float  # the embedding call's wall time (0 from the cache)


class _Worker:
    """One daemon thread running the calls handed to it, one at a time."""

    def __init__(self):
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        thread = threading.Thread(target=self._loop, name="skillsift-query", daemon=True)
        thread.start()

    def _loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            fn, args, box, done = job
            try:
                box.append((True, fn(*args)))
            except BaseException as exc:  # handed back to the caller, raised there
                box.append((False, exc))
            done.set()

    def run(self, fn, args, timeout: float):
        """``fn(*args)`` on the thread; raises TimeoutError when it has not returned in ``timeout`` s."""
        box: list = []
        done = threading.Event()
        self._jobs.put((fn, args, box, done))
        if not done.wait(timeout):
            raise TimeoutError
        ok, value = box[0]
        if not ok:
            raise value
        return value

    def retire(self) -> None:
        """Let the thread end once its current call returns."""
        self._jobs.put(None)


class QueryEmbedder:
    """Turns queries into normalised vectors with ``provider`` (a Provider, the EmbedError why none
    could be made, or None), within ``timeout_ms`` per call (0 or None: no limit).

    ``long_query`` (``"max-piece"`` or ``"truncate"``) and ``piece_words`` say how a query
    longer than the model's window is embedded (``[search] long_query``, ``long_query_words``).
    """

    def __init__(self, provider, timeout_ms: int | None, *, long_query: str = "max-piece",
                 piece_words: int = DEFAULT_PIECE_WORDS):
        self.provider = provider
        self.timeout_ms = timeout_ms or 0
        self.long_query = long_query
        self.piece_words = piece_words or DEFAULT_PIECE_WORDS
        self.cache = QueryCache()
        self._problem: EmbedError | None = None  # why loading failed
        self._loaded = False
        self._worker: _Worker | None = None
        self._lock = threading.Lock()

    def unavailable(self) -> Degraded | None:
        """Why no query can be embedded (the degraded search), or None when the provider can be called."""
        if self.provider is None:
            return Degraded(PROVIDER_UNAVAILABLE)
        if isinstance(self.provider, BaseException):
            return Degraded.of(self.provider)
        return None

    def load(self) -> Degraded | None:
        """Get the provider ready (the local model loads here), outside any time limit; once.

        Returns why it cannot run (also on later calls), or None.
        """
        problem = self.unavailable()
        if problem is not None:
            return problem
        with self._lock:
            if not self._loaded:
                self._loaded = True
                load = getattr(self.provider, "load", None)
                if callable(load):
                    try:
                        load()
                    except EmbedError as exc:
                        self._problem = exc
        return Degraded.of(self._problem) if self._problem is not None else None

    def is_long(self, query: str) -> bool:
        """Whether ``query`` is longer than the model reads.

        A provider that counts tokens and says its window (the local model: 256 tokens) is
        asked for texts of at least that many UTF-8 bytes (a shorter text cannot fill the
        window: every word piece holds at least one byte); the query is long when its count
        reaches the window.  Another provider's query is long when it passes the 2 KB cap a
        query is cut at.
        """
        size = len(query.encode("utf-8"))
        window = getattr(self.provider, "window_tokens", None)
        count = getattr(self.provider, "count_tokens", None)
        if isinstance(window, int) and window > 2 and callable(count):
            if size < window - 2:
                return False
            try:
                counted = list(count([cap_query(query, LONG_QUERY_CAP_BYTES)]))
            except EmbedError:
                return False  # the embedding call reports the problem
            return len(counted) == 1 and counted[0] >= window
        return size > QUERY_CAP_BYTES

    def key(self, query: str) -> str | tuple[str, ...]:
        """What is embedded for ``query``, and its cache key: the capped text, or a long query's pieces."""
        if self.long_query == "max-piece" and self.is_long(query):
            pieces = query_pieces(cap_query(query, LONG_QUERY_CAP_BYTES), self.piece_words)
            if len(pieces) > 1:
                return pieces
        return cap_query(query)

    def embed(self, query: str, dims: int) -> QueryVector:
        """The normalised vector of ``query`` (capped), ``dims`` wide, or the pieces x dims matrix
        of a long query's pieces; raises EmbedError."""
        import numpy as np

        key = self.key(query)
        cached = self.cache.get(key)
        if cached is not None:
            return QueryVector(cached, False, 0, 0.0)
        if self._problem is not None:
            raise self._problem
        texts = list(dict.fromkeys(key)) if isinstance(key, tuple) else [key]  # a repeated piece once
        start = time.perf_counter()
        vecs = np.asarray(self._call(texts))
        ms = (time.perf_counter() - start) * 1000.0
        if vecs.ndim != 2 or vecs.shape[0] != len(texts):
            raise ProviderUnavailable("the provider returned the wrong number of vectors for the query")
        if not np.all(np.isfinite(vecs)):
            raise ProviderUnavailable("the query vector holds NaN or infinite values")
        if vecs.shape[1] != dims:
            raise ProviderUnavailable(f"the query vector has {vecs.shape[1]} dimensions, the index {dims}")
        if isinstance(key, tuple):
            by_text = dict(zip(texts, (normalise_query(v) for v in vecs), strict=True))
            vec = np.vstack([by_text[piece] for piece in key])
        else:
            vec = normalise_query(vecs[0])
        self.cache.put(key, vec)
        return QueryVector(vec, True, sum((len(t.encode("utf-8")) + 2) // 3 for t in texts), ms)

    def _call(self, texts: list[str]):
        """One provider call for ``texts`` (a query, or all the pieces of a long one) under the time limit."""
        if not self.timeout_ms:
            return self.provider.embed(texts)
        seconds = self.timeout_ms / 1000.0
        within = getattr(self.provider, "embed_within", None)
        if callable(within):  # the provider bounds its own call on this thread (the local model)
            try:
                return within(texts, seconds)
            except TimeoutError:
                raise self._timeout() from None
        with self._lock:
            if self._worker is None:
                self._worker = _Worker()
            worker = self._worker
        try:
            return worker.run(self.provider.embed, (texts,), seconds)
        except TimeoutError:
            with self._lock:
                if self._worker is worker:
                    self._worker = None
            worker.retire()
            raise self._timeout() from None

    def _timeout(self) -> EmbedTimeout:
        return EmbedTimeout(
            f"the query embedding did not finish within query_timeout_ms ({self.timeout_ms} ms)",
            hint="raise [search] query_timeout_ms in skillsift.toml or the user config "
                 "(loading the model does not count against it)",
        )

    def warm(self, queries: Iterable[str], dims: int, batch: int) -> int:
        """Embed the uncached ``queries`` in batches of ``batch`` and cache them; how many were embedded.

        Evaluation calls this once so that N cases cost N/batch provider calls.  Any
        provider error is left for the per-query search to report as a degraded reason.
        """
        import numpy as np

        if self.unavailable() is not None or self.load() is not None:
            return 0

        keys = list(dict.fromkeys(k for k in map(self.key, queries) if self.cache.get(k) is None))
        # every distinct text once (a query, or a piece of a long one), shortest first
        todo = list(dict.fromkeys(t for k in keys for t in (k if isinstance(k, tuple) else (k,))))
        todo = [todo[i] for i in length_order(self.provider, todo)]
        # Hold every warmed query: the per-mode passes that follow must not re-embed them.
        self.cache.size = max(self.cache.size, len(self.cache) + len(keys))
        vectors: dict = {}  # text -> its normalised vector
        for start in range(0, len(todo), batch):
            chunk = todo[start:start + batch]
            try:
                vecs = np.asarray(self.provider.embed(chunk))
            except EmbedError:
                break
            if vecs.ndim != 2 or vecs.shape[0] != len(chunk) or vecs.shape[1] != dims:
                break
            for text, vec in zip(chunk, vecs, strict=True):
                if np.all(np.isfinite(vec)):
                    vectors[text] = normalise_query(vec)
        done = 0
        for key in keys:  # a query is cached when all its texts were embedded
            texts = key if isinstance(key, tuple) else (key,)
            if all(t in vectors for t in texts):
                self.cache.put(key, np.vstack([vectors[t] for t in texts]) if isinstance(key, tuple)
                               else vectors[key])
                done += 1
        return done
