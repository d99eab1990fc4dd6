"""The egress gate every external provider is called through.

:class:`GatedProvider` wraps a provider and, for each ``embed`` call:

1. refuses at once (:class:`NetworkDisabled`, before any connection or cache read) when
   the provider sends text over the network and the user has not enabled the network;
2. refuses at once (:class:`SecretWithheld`) when one of the texts looks like it holds
   a secret (the scanner of AR001/AR9D3, with the configured ``[secrets] patterns``):
   an index build has already withheld such skills, so this catches the query of a
   hybrid or vector search, which the search then ranks lexically (docs/secrets.md);
3. serves what it can from the on-disk :class:`ResponseCache` and sends only the other
   texts, each distinct text once;
4. sends them in batches no larger than the provider accepts, reserving each batch's
   worst case against the :class:`Budget` first (fail closed) and settling it after;
5. stores the new vectors in the cache.

The budget counts provider calls, estimated tokens (one token per three UTF-8 bytes,
rounded up, per text) and cost (tokens x price per million).  A clean refusal (the
provider rejected the input or the credentials: HTTP 400/401/403/404/422) gives the
tokens and cost back but still counts the call; any other failure stays charged.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass

from ..config import ENV_ALLOW_NETWORK, LOCAL_DIR
from ..secrets.scan import detect_secret
from ..words import plural
from .base import BudgetExceeded, InputRejected, NetworkDisabled, ProviderBroken, SecretWithheld

# Input prices in US dollars per million tokens, used when the user config sets no
# price_input_per_mtok.  Estimates for the dry run and the cost limit only.
KNOWN_PRICES_PER_MTOK = {
    "text-embedding-3-small": 0.02,
    "text-embedding-3-large": 0.13,
    "text-embedding-ada-002": 0.10,
    "gemini-embedding-001": 0.15,
}
CLEAN_REFUSALS = frozenset({400, 401, 403, 404, 422})
CACHE_SUBDIR = "embed-cache"


def estimate_tokens(text: str) -> int:
    """Worst-case prompt tokens of one text: ceil(UTF-8 bytes / 3)."""
    return (len(text.encode("utf-8")) + 2) // 3


def price_per_mtok(model: str, override: float | None = None) -> float | None:
    """The input price for ``model``: the configured override, else the built-in table."""
    if override is not None:
        return float(override)
    name = model.rsplit("/", 1)[-1]
    return KNOWN_PRICES_PER_MTOK.get(name)


# --- budget -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reservation:
    tokens: int
    cost: float | None
    texts: int
    bytes: int


class Budget:
    """Limits on calls, tokens and cost; 0 means unlimited.  Thread-safe.

    ``calls``, ``tokens`` and ``cost_usd`` are what was spent so far (``cost_usd`` is
    None when no price is known).
    """

    def __init__(
        self,
        max_calls: int = 0,
        max_tokens: int = 0,
        max_cost_usd: float = 0.0,
        price_per_mtok: float | None = None,
    ):
        self.max_calls = int(max_calls or 0)
        self.max_tokens = int(max_tokens or 0)
        self.max_cost_usd = float(max_cost_usd or 0.0)
        self.price_per_mtok = price_per_mtok
        self.calls = 0
        self.tokens = 0
        self._cost = 0.0
        self._held_calls = 0
        self._held_tokens = 0
        self._held_cost = 0.0
        self._lock = threading.Lock()

    @property
    def cost_usd(self) -> float | None:
        return None if self.price_per_mtok is None else self._cost

    def _cost_of(self, tokens: int) -> float | None:
        return None if self.price_per_mtok is None else tokens * self.price_per_mtok / 1e6

    def reserve(self, texts) -> Reservation:
        """Hold the worst case of sending ``texts`` in one call, or raise BudgetExceeded."""
        sizes = [len(t.encode("utf-8")) for t in texts]
        tokens = sum((n + 2) // 3 for n in sizes)
        cost = self._cost_of(tokens)
        hint = "raise the limit in the [embeddings] table of the user config"
        with self._lock:
            if self.max_calls and self.calls + self._held_calls + 1 > self.max_calls:
                raise BudgetExceeded(
                    f"the embeddings budget is spent: max_calls = {plural(self.max_calls, 'call')} already made",
                    hint=hint,
                )
            if self.max_tokens and self.tokens + self._held_tokens + tokens > self.max_tokens:
                raise BudgetExceeded(
                    f"the next embedding call could use {plural(tokens, 'token')}, over max_tokens = {self.max_tokens} "
                    f"({self.tokens} used)",
                    hint=hint,
                )
            if self.max_cost_usd:
                if cost is None:
                    raise BudgetExceeded(
                        "max_cost_usd is set but no price is known for this model",
                        hint="set price_input_per_mtok in the [embeddings] table of the user config",
                    )
                if self._cost + self._held_cost + cost > self.max_cost_usd + 1e-12:
                    raise BudgetExceeded(
                        f"the next embedding call could cost ${cost:.6f}, over max_cost_usd = "
                        f"${self.max_cost_usd:.6f} (${self._cost:.6f} spent)",
                        hint=hint,
                    )
            self._held_calls += 1
            self._held_tokens += tokens
            self._held_cost += cost or 0.0
        return Reservation(tokens=tokens, cost=cost, texts=len(sizes), bytes=sum(sizes))

    def settle(self, reservation: Reservation, *, used_tokens: int | None = None, release: bool = False):
        """Turn a reservation into spending.

        ``used_tokens`` is what the provider reported; missing or implausible values
        (negative, or more than one token per byte plus a few per text) charge the
        worst case.  ``release`` (a clean refusal) charges the call but no tokens.
        """
        if release:
            tokens = 0
        elif isinstance(used_tokens, int) and 0 <= used_tokens <= reservation.bytes + 16 * reservation.texts:
            tokens = used_tokens
        else:
            tokens = reservation.tokens
        with self._lock:
            self._held_calls -= 1
            self._held_tokens -= reservation.tokens
            self._held_cost -= reservation.cost or 0.0
            self.calls += 1
            self.tokens += tokens
            self._cost += self._cost_of(tokens) or 0.0


# --- response cache -----------------------------------------------------------------------


def cache_key(fingerprint: str, model: str, text: str) -> str:
    """sha256 over provider fingerprint, model and text (NUL-separated)."""
    h = hashlib.sha256()
    for part in (fingerprint, model, text):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


class ResponseCache:
    """Vectors on disk, one file per key: ``<dir>/<key[:2]>/<key>.f32`` (little-endian float32).

    Files hold vectors only (no text, no key, no URL), are written atomically (temporary
    file in the same folder, then rename) with mode 0600 in 0700 folders.  A file that
    cannot be read or has the wrong size is a miss.  Write failures are ignored: the
    cache saves calls, it is never required.
    """

    def __init__(self, directory, *, enabled: bool = True):
        self.directory = os.fspath(directory)
        self.enabled = enabled  # False: every get misses and nothing is written

    @classmethod
    def under(cls, root) -> ResponseCache:
        """The cache of ``root`` (``.skillsift/local/embeddings``); switched off when that folder,
        through a symbolic link the repository holds, resolves outside the repository."""

        directory = os.path.join(os.fspath(root), LOCAL_DIR, CACHE_SUBDIR)
        real_root = os.path.realpath(os.fspath(root))
        real = os.path.realpath(directory)
        inside = os.path.commonpath([real_root, real]) == real_root
        return cls(directory, enabled=inside)

    def _path(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key + ".f32")

    def get(self, key: str):
        import numpy as np

        if not self.enabled:
            return None
        try:
            with open(self._path(key), "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        if not data or len(data) % 4:
            return None
        vector = np.frombuffer(data, dtype="<f4").astype(np.float32)
        if not np.isfinite(vector).all():
            return None
        return vector

    def put(self, key: str, vector) -> bool:
        import tempfile

        import numpy as np

        if not self.enabled:
            return False
        folder = os.path.dirname(self._path(key))
        payload = np.asarray(vector, dtype="<f4").tobytes()
        tmp = None
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)  # created 0600
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self._path(key))
            return True
        except OSError:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
            return False


# --- the gate -----------------------------------------------------------------------------


def _released(exc: Exception) -> bool:
    return isinstance(exc, InputRejected) or getattr(exc, "http_status", None) in CLEAN_REFUSALS


class GatedProvider:
    """``inner`` behind the network switch, the budget and the response cache."""

    def __init__(
        self, inner, *, allow_network: bool, budget: Budget | None = None, cache: ResponseCache | None = None,
        secret_patterns=(),
    ):
        self.inner = inner
        self.secret_patterns = tuple(secret_patterns)
        self.allow_network = bool(allow_network)
        self.budget = budget if budget is not None else Budget()
        self.cache = cache
        self.fingerprint = inner.fingerprint
        self.model = inner.model
        self.networked = bool(getattr(inner, "networked", False))
        self.external = bool(getattr(inner, "external", self.networked))
        self.max_batch = getattr(inner, "max_batch", None)
        self.host = getattr(inner, "host", None)
        self.sent_texts = 0  # texts actually handed to the provider
        self.cache_hits = 0

    @property
    def dims(self) -> int | None:
        return self.inner.dims

    def __repr__(self) -> str:
        return f"GatedProvider({self.inner!r}, allow_network={self.allow_network})"

    def check_network(self, count: int = 0) -> None:
        """Raise NetworkDisabled when this provider may not send text now."""
        if self.networked and not self.allow_network:
            where = self.host or self.fingerprint
            what = f" {plural(count, 'text')}" if count else " text"
            raise NetworkDisabled(
                f"the network is disabled ([embeddings] allow_network = false): not sending{what} to {where}",
                hint="set allow_network = true in the [embeddings] table of the user config "
                f"(or {ENV_ALLOW_NETWORK}=1) to allow it",
            )

    def check_secrets(self, texts) -> None:
        """Raise SecretWithheld when a text to send looks like it holds a secret."""
        if not (self.external or self.networked):
            return

        for text in texts:
            kind = detect_secret(text, self.secret_patterns)
            if kind is not None:
                where = self.host or self.fingerprint
                raise SecretWithheld(
                    f"the text looks like it holds a secret ({kind}): not sent to {where}",
                    kind=kind,
                    hint="remove the credential from the query (it was not sent and not logged)",
                )

    def embed(self, texts: list[str]):
        import numpy as np

        texts = list(texts)
        self.check_network(len(texts))
        self.check_secrets(texts)
        if not texts:
            return np.zeros((0, self.dims or 0), dtype=np.float32)
        unique = list(dict.fromkeys(texts))
        vectors: dict[str, np.ndarray] = {}
        keys = {}
        if self.cache is not None:
            keys = {t: cache_key(self.fingerprint, self.model, t) for t in unique}
            for t in unique:
                hit = self.cache.get(keys[t])
                if hit is not None:
                    vectors[t] = hit
            if len({v.shape[0] for v in vectors.values()}) > 1:
                vectors = {}  # inconsistent entries: trust none of them
            self.cache_hits += len(vectors)
        misses = [t for t in unique if t not in vectors]
        cached = [t for t in unique if t in vectors]
        fresh_dims = self._send(misses, vectors, keys)
        cached_dims = {vectors[t].shape[0] for t in cached}
        if fresh_dims is not None and cached_dims and cached_dims != {fresh_dims}:
            # the cached vectors predate a change of the model behind this name
            stale = cached
            self.cache_hits -= len(stale)
            self._send(stale, vectors, keys)
        return np.stack([vectors[t] for t in texts]).astype(np.float32, copy=False)

    def _send(self, texts: list[str], vectors: dict, keys: dict) -> int | None:
        """Embed ``texts`` in budgeted batches into ``vectors``; return their dims."""
        dims = None
        step = self.max_batch or len(texts) or 1
        for start in range(0, len(texts), step):
            batch = texts[start : start + step]
            reservation = self.budget.reserve(batch)
            try:
                rows = self.inner.embed(batch)
            except Exception as exc:
                self.budget.settle(reservation, release=_released(exc))
                raise
            self.budget.settle(reservation, used_tokens=getattr(self.inner, "last_usage", None))
            self.sent_texts += len(batch)
            if len(rows) != len(batch):  # a provider bug, not an input problem
                raise ProviderBroken(
                    f"the embedding provider {self.fingerprint} returned {plural(len(rows), 'vector')} "
                    f"for {plural(len(batch), 'text')}"
                )
            for text, row in zip(batch, rows, strict=True):
                vectors[text] = row
                if self.cache is not None:
                    self.cache.put(keys.get(text) or cache_key(self.fingerprint, self.model, text), row)
            dims = int(rows.shape[1])
        return dims
