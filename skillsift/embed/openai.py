"""The ``openai`` provider: any OpenAI-compatible ``/embeddings`` endpoint.

OpenAI, Ollama, vLLM, LM Studio and Gemini's compatible endpoint all accept
``POST {base_url}/embeddings`` with ``{"model": ..., "input": [...]}`` and answer
``{"data": [{"index": i, "embedding": [...]}, ...], "usage": {...}}``.

The HTTP client is the standard library's ``urllib.request``: one JSON POST per batch
needs no connection pooling or async, and skillsift adds no dependency for it.  The
``transport`` argument is the seam tests and callers use instead of the network (like
a mock transport): a callable taking an :class:`HttpRequest` and returning an
:class:`HttpResponse`, raising ``TimeoutError`` on timeouts and ``OSError`` when the
endpoint cannot be reached.

Error messages name the endpoint's host and the HTTP status only: never the key, the
full URL (it may carry a key in its query) or a response body.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from .._version import __version__
from ..jsonio import JSONDocumentError, read_json
from ..words import plural
from .base import EmbedTimeout, InputRejected, ProviderBroken, ProviderUnavailable
from .fingerprint import endpoint_host, provider_fingerprint
from .normalise import VectorError, unit_rows

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_BATCH = 2048  # the OpenAI API's limit of inputs per request
MAX_RESPONSE_BYTES = 256 * 1024 * 1024
REJECTED_STATUSES = frozenset({400, 413, 422})
AUTH_STATUSES = frozenset({401, 403})


@dataclass(frozen=True)
class HttpRequest:
    url: str
    headers: dict
    body: bytes
    timeout: float
    method: str = "POST"


@dataclass(frozen=True)
class HttpResponse:
    status: int
    body: bytes = b""
    headers: dict = field(default_factory=dict)  # lower-cased names


class _Deadline:
    """The end of one request: at ``seconds`` from now its sockets are shut down.

    Socket timeouts bound each read, not the request: a server sending a byte every
    half second would hold a call for as long as it likes.  A timer shuts the request's
    sockets down when the time is up, which ends any read blocked on them; the caller
    then reports a timeout (``expired``).
    """

    def __init__(self, seconds: float):
        import threading

        self.seconds = seconds
        self._end = time.monotonic() + seconds
        self.expired = False
        self._sockets: list = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(0.0, seconds), self._expire)
        self._timer.daemon = True

    def __enter__(self):
        self._timer.start()
        return self

    def __exit__(self, *exc):
        self._timer.cancel()
        return False

    def remaining(self) -> float:
        return max(0.001, self._end - time.monotonic())

    def watch(self, sock) -> None:
        with self._lock:
            self._sockets.append(sock)
            expired = self.expired
        if expired:
            _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)


def _shut(sock) -> None:
    import socket

    try:  # the plain socket's shutdown, also under TLS: it only ends the blocked reads
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass


def _opener(deadline: _Deadline):
    """A urllib opener that follows no redirect and hands each new socket to ``deadline``."""
    import http.client
    import urllib.request

    class _Watched(http.client.HTTPConnection):
        def connect(self):
            super().connect()
            # HTTPS connects through here before its TLS handshake, which then runs with this
            # timeout as one deadline (the standard library bounds a handshake as a whole)
            self.sock.settimeout(deadline.remaining())
            deadline.watch(self.sock)

    class _WatchedHTTPS(http.client.HTTPSConnection, _Watched):
        def connect(self):
            super().connect()
            deadline.watch(self.sock)  # the TLS socket: the plain one was handed over to it

    class _HTTP(urllib.request.HTTPHandler):
        def http_open(self, req):
            return self.do_open(_Watched, req)

    class _HTTPS(urllib.request.HTTPSHandler):
        def https_open(self, req):
            return self.do_open(_WatchedHTTPS, req)

    class _NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req, fp, code, msg, headers, newurl):
            return None  # the body (and key) must not follow a redirect to another host

    return urllib.request.build_opener(_NoRedirect, _HTTP, _HTTPS)


def urllib_transport(request: HttpRequest) -> HttpResponse:
    """Send ``request`` with ``urllib.request``; redirects are not followed.

    ``request.timeout`` bounds the whole request (connecting, sending, the status line,
    the headers and the body), not each socket operation: see :class:`_Deadline`.
    """
    import http.client
    import urllib.error
    import urllib.request

    req = urllib.request.Request(
        request.url, data=request.body, headers=request.headers, method=request.method
    )
    with _Deadline(request.timeout) as deadline:
        try:
            response = _exchange(_opener(deadline), req, request.timeout)
        except urllib.error.URLError as exc:
            if deadline.expired or isinstance(exc.reason, TimeoutError):
                raise TimeoutError("timed out") from None
            raise ConnectionError(_reason_text(exc.reason)) from None
        except (http.client.HTTPException, OSError) as exc:
            if deadline.expired or isinstance(exc, TimeoutError):
                raise TimeoutError("timed out") from None
            if isinstance(exc, http.client.HTTPException):
                raise ConnectionError(type(exc).__name__) from None
            raise
        if deadline.expired:  # a read ended by the shutdown looks like the end of the body
            raise TimeoutError("timed out")
        return response


def _exchange(opener, req, timeout: float) -> HttpResponse:
    import urllib.error

    try:
        resp = opener.open(req, timeout=timeout)
    except urllib.error.HTTPError as exc:
        resp = exc
    with resp:
        status = getattr(resp, "status", None) or resp.code
        headers = {k.lower(): v for k, v in resp.headers.items()} if resp.headers else {}
        chunks, size = [], 0
        while True:
            chunk = resp.read(1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_RESPONSE_BYTES:
                raise ConnectionError(f"the response is larger than {MAX_RESPONSE_BYTES} bytes")
            chunks.append(chunk)
        return HttpResponse(status, b"".join(chunks), headers)


def _reason_text(reason) -> str:
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return type(reason).__name__ if isinstance(reason, BaseException) else str(reason)


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


class OpenAIProvider:
    """Embeddings from an OpenAI-compatible endpoint (text leaves the process)."""

    networked = True
    external = True

    def __init__(
        self,
        base_url: str = "",
        model: str = "",
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        max_retries: int = 3,
        batch_size: int = DEFAULT_BATCH,
        transport=None,
        sleep=time.sleep,
        seed: int = 0,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        retry_after_max: float = 60.0,
        dims: int | None = None,
    ):
        if not model:
            raise ProviderUnavailable(
                "no embedding model is configured",
                hint='set [embeddings] model in the user config, e.g. model = "text-embedding-3-small"',
            )
        url = base_url or DEFAULT_BASE_URL
        scheme = urlsplit(url).scheme.lower()
        if scheme not in ("http", "https") or not urlsplit(url).hostname:
            raise ProviderUnavailable(
                "the embeddings base_url must be an http:// or https:// address",
                hint="set [embeddings] base_url in the user config, e.g. https://api.openai.com/v1",
            )
        self.host = endpoint_host(base_url)
        self.fingerprint = provider_fingerprint("openai", base_url=base_url)
        self.model = model
        self.dims = dims
        self.max_batch = max(1, int(batch_size))
        self.last_usage: int | None = None  # prompt tokens the endpoint reported for the last embed()
        self._url = url.rstrip("/") + "/embeddings"
        self._api_key = api_key or None
        self._timeout = float(timeout)
        self._max_retries = max(0, int(max_retries))
        self._transport = transport or urllib_transport
        self._sleep = sleep
        self._rng = random.Random(seed)
        self._backoff_base = backoff_base
        self._backoff_max = backoff_max
        self._retry_after_max = retry_after_max

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIProvider(fingerprint={self.fingerprint!r}, model={self.model!r})"

    # --- public -------------------------------------------------------------------------
    def embed(self, texts: list[str]):
        import numpy as np

        texts = list(texts)
        self.last_usage = None
        if not texts:
            return np.zeros((0, self.dims or 0), dtype=np.float32)
        parts: list = []
        usage: int | None = 0
        for start in range(0, len(texts), self.max_batch):
            rows, used = self._call(texts[start : start + self.max_batch])
            parts.append(rows)
            usage = None if usage is None or used is None else usage + used
        self.last_usage = usage
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    # --- one request --------------------------------------------------------------------
    def _headers(self) -> dict:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": f"skillsift/{__version__}",
        }
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _error(self, cls, message: str, *, status: int | None = None, hint: str = ""):
        exc = cls(f"the embedding endpoint at {self.host} {message}", hint=hint)
        exc.http_status = status
        return exc

    def _call(self, texts: list[str]):
        body = json.dumps({"model": self.model, "input": texts}, ensure_ascii=False).encode("utf-8")
        request = HttpRequest(self._url, self._headers(), body, self._timeout)
        attempts = self._max_retries + 1
        for attempt in range(attempts):
            retry_after = None
            try:
                response = self._transport(request)
            except TimeoutError:
                raise self._error(EmbedTimeout, f"did not answer within {self._timeout:g}s") from None
            except OSError as exc:
                failure: int | str = _reason_text(exc)
            else:
                status = response.status
                if 200 <= status < 300:
                    return self._parse(response.body, len(texts))
                if not (status == 429 or status >= 500):
                    raise self._status_error(status)
                failure = status
                retry_after = parse_retry_after(response.headers.get("retry-after"))
            if attempt + 1 >= attempts:
                tail = f" (gave up after {attempts} attempts)" if attempts > 1 else ""
                if isinstance(failure, int):
                    raise self._error(ProviderUnavailable, f"answered HTTP {failure}{tail}", status=failure)
                raise self._error(ProviderUnavailable, f"could not be reached ({failure}){tail}")
            self._sleep(self._delay(attempt, retry_after))
        raise AssertionError("unreachable")  # pragma: no cover

    def _status_error(self, status: int):
        if status in REJECTED_STATUSES:
            return self._error(InputRejected, f"refused the input (HTTP {status})", status=status)
        if status in AUTH_STATUSES:
            return self._error(
                ProviderUnavailable,
                f"refused the credentials (HTTP {status})",
                status=status,
                hint="check the key in the environment variable named by [embeddings] api_key_env",
            )
        if 300 <= status < 400:
            return self._error(
                ProviderUnavailable,
                f"answered with a redirect (HTTP {status}), which is not followed",
                status=status,
                hint="set [embeddings] base_url to the final address",
            )
        if status == 404:
            return self._error(
                ProviderUnavailable,
                "answered HTTP 404",
                status=status,
                hint="check [embeddings] base_url (it usually ends in /v1) and model",
            )
        return self._error(ProviderUnavailable, f"answered HTTP {status}", status=status)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self._retry_after_max)
        ceiling = min(self._backoff_max, self._backoff_base * (2**attempt))
        return ceiling * (0.5 + 0.5 * self._rng.random())

    def _parse(self, body: bytes, count: int):
        def malformed(what: str):
            return self._error(ProviderUnavailable, f"returned a malformed response ({what})")

        try:
            payload = read_json(body, source="the response", max_bytes=MAX_RESPONSE_BYTES)
        except JSONDocumentError as exc:
            if exc.kind in ("constant", "float"):  # NaN, 1e999: an answer that cannot be trusted
                raise self._error(ProviderBroken, f"returned unusable vectors ({exc.problem})") from None
            raise malformed("not JSON" if exc.kind in ("syntax", "encoding") else exc.problem) from None
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
            raise malformed('no "data" list')
        if len(data) != count:
            raise self._error(ProviderBroken, f"returned {plural(len(data), 'vector')} for {plural(count, 'text')}")
        indexes = [item.get("index") for item in data]
        if all(i is None for i in indexes):
            ordered = data
        else:
            valid = [i for i in indexes if isinstance(i, int) and not isinstance(i, bool)]
            if sorted(valid) != list(range(count)):
                raise malformed('the "index" values are not 0..n-1')
            ordered = sorted(data, key=lambda item: item["index"])
        rows = [item.get("embedding") for item in ordered]
        if not all(isinstance(row, list) for row in rows):
            raise malformed('an "embedding" is not a list of numbers')
        try:
            vectors = unit_rows(rows, dims=self.dims)
        except VectorError as exc:
            if self.dims is not None and "expected" in str(exc):
                raise self._error(
                    ProviderBroken,
                    f"returned vectors of {len(rows[0])} dimensions after {self.dims}; the model changed",
                ) from None
            if exc.hard:
                raise self._error(ProviderBroken, f"returned a malformed response ({exc})") from None
            raise malformed(str(exc)) from None
        if self.dims is None:
            self.dims = int(vectors.shape[1])
        return vectors, _prompt_tokens(payload)


def _prompt_tokens(payload: dict) -> int | None:
    usage = payload.get("usage")
    if not isinstance(usage, dict):
        return None
    tokens = usage.get("prompt_tokens", usage.get("total_tokens"))
    if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 0:
        return tokens
    return None
