"""The provider interface and its typed errors.

Every provider turns a batch of texts into L2-normalised float32 vectors.  Errors carry
a ``reason`` that maps to the degraded reasons of a search (``provider_unavailable``,
``timeout``, ``budget``, ``network_disabled``, ``secret_withheld``) and a ``rejected`` flag that tells an
index build to split the batch (the provider refused these inputs) rather than stop.
Messages never contain API keys or response bodies.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

PROVIDER_UNAVAILABLE = "provider_unavailable"
TIMEOUT = "timeout"
BUDGET = "budget"
NETWORK_DISABLED = "network_disabled"
SECRET_WITHHELD = "secret_withheld"


class EmbedError(Exception):
    """A provider failed; ``reason`` is the degraded reason a search reports."""

    reason = PROVIDER_UNAVAILABLE
    rejected = False  # True: the provider refused these inputs (split the batch and go on)
    hard = False  # True: the provider broke its contract; a build must write nothing

    def __init__(self, message: str, *, hint: str = ""):
        super().__init__(message)
        self.message = message
        self.hint = hint


class ProviderUnavailable(EmbedError):
    reason = PROVIDER_UNAVAILABLE


class EmbedTimeout(EmbedError):
    reason = TIMEOUT


class BudgetExceeded(EmbedError):
    reason = BUDGET


class NetworkDisabled(EmbedError):
    reason = NETWORK_DISABLED


class SecretWithheld(EmbedError):
    """A text to send looks like it holds a secret; nothing was sent (docs/secrets.md).

    A search degrades with ``secret_withheld`` and ranks lexically; an index build,
    which withholds such skills before it calls the provider, writes nothing.
    """

    reason = SECRET_WITHHELD
    hard = True

    def __init__(self, message: str, *, kind: str = "", hint: str = ""):
        super().__init__(message, hint=hint)
        self.kind = kind


class ProviderBroken(EmbedError):
    """The provider broke its contract (wrong vector count, width changed mid-run).

    A search degrades with ``provider_unavailable``; an index build writes nothing.
    """

    reason = PROVIDER_UNAVAILABLE
    hard = True


class InputRejected(EmbedError):
    """The provider refused the inputs themselves (HTTP 400/413/422, context length, command failure)."""

    reason = PROVIDER_UNAVAILABLE
    rejected = True


@runtime_checkable
class Provider(Protocol):
    fingerprint: str  # local@<model> | openai@<host> | command:<argv0>
    model: str
    dims: int | None  # known before the first call, or None
    networked: bool  # True when text leaves the process
    max_batch: int | None  # largest batch one call accepts, or None

    def embed(self, texts: list[str]):  # -> numpy.ndarray float32 (len(texts), dims), unit rows
        ...
