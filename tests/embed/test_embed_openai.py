"""The openai provider against a real HTTP server on 127.0.0.1 speaking /v1/embeddings."""

from __future__ import annotations

import json
import socket
import threading
import time

import numpy as np
import pytest

from skillsift.embed.base import EmbedError, EmbedTimeout, InputRejected, ProviderUnavailable
from skillsift.embed.openai import (
    HttpResponse,
    OpenAIProvider,
    endpoint_host,
    parse_retry_after,
)
from tests.support.embedding_server import API_KEY, EmbeddingServer, Sleeps, expected_unit
from tests.support.embedding_server import openai_provider as make


def test_batching_order_and_normalisation(server):
    texts = [f"skill text number {i}" for i in range(5)]
    p = make(server, batch_size=2)
    vectors = p.embed(texts)
    assert server.inputs == [texts[0:2], texts[2:4], texts[4:5]]
    assert [r["path"] for r in server.requests] == ["/v1/embeddings"] * 3
    assert all(r["json"] == {"model": "test-embed", "input": r["json"]["input"]} for r in server.requests)
    assert server.requests[0]["headers"]["Authorization"] == f"Bearer {API_KEY}"
    assert vectors.dtype == np.float32 and vectors.shape == (5, 8)
    for text, row in zip(texts, vectors, strict=True):
        np.testing.assert_allclose(row, expected_unit(text, 8), rtol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
    assert p.dims == 8
    assert p.last_usage == sum(len(t.split()) for t in texts)
    assert p.networked is True and p.max_batch == 2


def test_fingerprint_names_the_host_only():
    assert OpenAIProvider("http://127.0.0.1:8080/v1", "m").fingerprint == "openai@127.0.0.1:8080"
    with_secrets = OpenAIProvider("https://user:pw@API.example.com/v1?key=zzz", "m")
    assert with_secrets.fingerprint == "openai@api.example.com"
    assert OpenAIProvider("", "m").fingerprint == "openai@default"
    assert endpoint_host("") == "default"
    p = OpenAIProvider("https://api.example.com/v1", "m", "sekrit-key-value")
    assert "sekrit-key-value" not in repr(p)


def test_no_model_or_bad_url_is_unavailable():
    with pytest.raises(ProviderUnavailable, match="no embedding model is configured"):
        OpenAIProvider("http://127.0.0.1:1/v1", "")
    with pytest.raises(ProviderUnavailable, match="http:// or https://"):
        OpenAIProvider("ftp://example.com/v1", "m")


def test_429_then_success_honours_retry_after(server):
    server.script.extend([(429, {"Retry-After": "2"}, b"slow down"), (429, {"Retry-After": "0.5"}, b"")])
    sleeps = Sleeps()
    p = make(server, sleep=sleeps)
    vectors = p.embed(["alpha", "beta"])
    assert vectors.shape == (2, 8)
    assert sleeps == [2.0, 0.5]
    assert server.inputs == [["alpha", "beta"]] * 3


def test_5xx_exhausts_retries_into_a_typed_error(server):
    marker = b"INTERNAL-BODY-MARKER"
    server.script.extend([(503, {}, marker)] * 10)
    sleeps = Sleeps()
    p = make(server, sleep=sleeps, max_retries=3, seed=42)
    with pytest.raises(ProviderUnavailable) as info:
        p.embed(["alpha"])
    assert len(server.requests) == 4
    message = str(info.value)
    assert "HTTP 503" in message and "gave up after 4 attempts" in message
    assert "INTERNAL-BODY-MARKER" not in message and API_KEY not in message
    assert info.value.rejected is False and info.value.reason == "provider_unavailable"
    # jittered exponential backoff: attempt n waits within [base*2^n/2, base*2^n]
    assert len(sleeps) == 3
    for n, s in enumerate(sleeps):
        assert 0.5 * 2**n / 2 <= s <= 0.5 * 2**n
    # seeded: the same seed gives the same delays
    server.script.extend([(500, {}, b"")] * 4)
    again = Sleeps()
    with pytest.raises(ProviderUnavailable):
        make(server, sleep=again, max_retries=3, seed=42).embed(["alpha"])
    assert again == sleeps


def test_400_is_a_rejection_and_not_retried(server):
    def refuse_long(inputs, _body):
        if any("poison" in t for t in inputs):
            return 400, {}, b'{"error": {"message": "maximum context length exceeded: poison"}}'
        return 200, {}, server.ok(inputs)

    server.script.extend([refuse_long] * 3)
    p = make(server)
    with pytest.raises(InputRejected) as info:
        p.embed(["fine", "poison pill"])
    assert info.value.rejected is True and "HTTP 400" in str(info.value)
    assert "poison" not in str(info.value) and "context length" not in str(info.value)
    assert len(server.requests) == 1
    assert p.embed(["fine"]).shape == (1, 8)


@pytest.mark.parametrize("status", [413, 422])
def test_other_input_refusals(server, status):
    server.script.append((status, {}, b""))
    with pytest.raises(InputRejected, match=f"HTTP {status}"):
        make(server).embed(["x"])


@pytest.mark.parametrize("status", [401, 403])
def test_auth_failure_stops_without_retry(server, status):
    server.script.extend([(status, {}, b'{"error": "invalid key ' + API_KEY.encode() + b'"}')] * 3)
    with pytest.raises(ProviderUnavailable) as info:
        make(server).embed(["x"])
    assert len(server.requests) == 1
    assert not info.value.rejected
    assert API_KEY not in str(info.value) and API_KEY not in info.value.hint
    assert "api_key_env" in info.value.hint


def test_redirects_are_not_followed(server):
    server.script.append((307, {"Location": "http://127.0.0.1:1/elsewhere"}, b""))
    with pytest.raises(ProviderUnavailable, match="redirect"):
        make(server).embed(["x"])
    assert len(server.requests) == 1


def _rows(*embeddings: str) -> bytes:
    items = ", ".join(f'{{"index": {i}, "embedding": {e}}}' for i, e in enumerate(embeddings))
    return f'{{"data": [{items}]}}'.encode()


def _bad(payload: bytes):
    return lambda inputs, body: (200, {"Content-Type": "application/json"}, payload)


@pytest.mark.parametrize(
    "payload, match, hard",
    [
        (b"<html>oops</html>", "malformed response", False),
        (b'{"object": "list"}', "malformed response", False),
        (_rows("[1.0, 2.0]"), "returned 1 vector for 2 texts", True),
        (_rows("[1.0, 2.0]", "[1.0]"), "dimensions", True),
        (_rows("[NaN, 1.0]", "[1.0, 1.0]"), "NaN", True),
        (_rows("[1e999, 1.0]", "[1.0, 1.0]"), "NaN", True),
        (_rows("[0, 0]", "[1.0, 1.0]"), "zero", False),
        (_rows('"AAAA"', "[1.0, 1.0]"), "malformed", False),
        (b'{"data": [{"index": 0, "embedding": [1, 2]}, {"index": 0, "embedding": [1.0, 1.0]}]}', "index", False),
    ],
)
def test_bad_responses_are_errors(server, payload, match, hard):
    server.script.append(_bad(payload))
    with pytest.raises(EmbedError, match=match) as info:
        make(server).embed(["a", "b"])
    assert not info.value.rejected and info.value.reason == "provider_unavailable"
    assert info.value.hard is hard  # a broken contract: an index build writes nothing
    assert b"oops" not in str(info.value).encode()


def test_dims_are_fixed_by_the_first_response(server):
    p = make(server)
    p.embed(["a"])
    server.script.append(lambda inputs, body: (200, {}, server.ok(inputs, dims=4)))
    with pytest.raises(EmbedError, match="4 dimensions after 8; the model changed") as info:
        p.embed(["b"])
    assert info.value.hard


def test_slow_server_times_out(server):
    server.delay = 1.5
    p = make(server, timeout=0.3)
    start = time.monotonic()
    with pytest.raises(EmbedTimeout) as info:
        p.embed(["x"])
    assert time.monotonic() - start < 1.4
    assert info.value.reason == "timeout" and "0.3s" in str(info.value)
    assert len(server.requests) == 1  # timeouts are not retried


def test_unreachable_endpoint_retries_then_fails():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again below: nothing listens there
    sleeps = Sleeps()
    p = OpenAIProvider(f"http://127.0.0.1:{port}/v1", "m", sleep=sleeps, max_retries=2)
    with pytest.raises(ProviderUnavailable, match="could not be reached.*gave up after 3 attempts"):
        p.embed(["x"])
    assert len(sleeps) == 2


def test_no_key_sends_no_authorization(server):
    OpenAIProvider(server.base_url, "m").embed(["x"])
    assert "Authorization" not in server.requests[0]["headers"]


def test_empty_input_makes_no_request(server):
    assert make(server).embed([]).shape[0] == 0
    assert server.requests == []


def test_transport_seam_needs_no_network():
    seen = []

    def transport(request):
        seen.append(request)
        inputs = json.loads(request.body)["input"]
        data = [{"index": i, "embedding": [3.0, 4.0]} for i, _ in enumerate(inputs)]
        return HttpResponse(200, json.dumps({"data": data}).encode(), {})

    p = OpenAIProvider("https://api.example.com/v1", "m", "k", transport=transport, timeout=7)
    vectors = p.embed(["one"])
    np.testing.assert_allclose(vectors, [[0.6, 0.8]], rtol=1e-6)
    assert seen[0].url == "https://api.example.com/v1/embeddings" and seen[0].timeout == 7
    assert p.last_usage is None  # the endpoint reported none


def test_parse_retry_after():
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 1.5 ") == 1.5
    assert parse_retry_after("-4") == 0.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None
    when = "Wed, 21 Oct 2015 07:28:00 GMT"
    assert parse_retry_after(when, now=1445412470.0) == pytest.approx(10.0)


def test_retry_after_is_capped(server):
    server.script.append((503, {"Retry-After": "3600"}, b""))
    sleeps = Sleeps()
    make(server, sleep=sleeps, retry_after_max=5).embed(["x"])
    assert sleeps == [5]


class TricklingServer:
    """A raw HTTP server on 127.0.0.1 that sends its answer one byte every ``pause`` seconds.

    ``what`` is ``"head"`` (the status line and headers trickle) or ``"body"`` (the headers
    arrive at once, then a 200-byte body trickles).  Sending all of it takes far longer
    than the timeouts the tests set.
    """

    def __init__(self, what: str, pause: float = 0.5):
        self.what, self.pause = what, pause
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.base_url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.sock.close()

    def _serve(self):
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(5)
            try:
                conn.recv(65536)
                body = b'{"data": [' + b" " * 200 + b"]}"
                head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
                if self.what == "body":
                    conn.sendall(head.encode())
                    trickle = body
                else:
                    trickle = head.encode() + body
                for i in range(len(trickle)):
                    if self.stop.wait(self.pause):
                        return
                    conn.sendall(trickle[i:i + 1])
            except OSError:
                return


@pytest.mark.parametrize("what", ["head", "body"])
def test_a_trickling_endpoint_is_cut_off_at_the_timeout(what):
    # one byte every 0.5 s: no socket read ever waits 1 s, so only a bound on the whole
    # request stops it (the answer would take over 40 s)
    with TricklingServer(what) as srv:
        p = OpenAIProvider(srv.base_url, "test-embed", API_KEY, timeout=1.0, sleep=Sleeps())
        start = time.monotonic()
        with pytest.raises(EmbedTimeout) as info:
            p.embed(["x"])
        elapsed = time.monotonic() - start
    assert elapsed < 6.0, elapsed
    assert info.value.reason == "timeout" and "did not answer within 1s" in str(info.value)


class TricklingTLSServer(TricklingServer):
    """The trickling server over TLS (a certificate from a test CA); ``what`` may also be
    ``"handshake"``: the TLS handshake itself trickles and never completes."""

    def __init__(self, what: str, ca, pause: float = 0.5):
        super().__init__(what, pause)
        import ssl

        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ca.issue_cert("127.0.0.1").configure_cert(self.context)
        self.base_url = self.base_url.replace("http://", "https://")

    def _serve(self):
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            if self.what == "handshake":
                for _ in range(100):
                    if self.stop.wait(self.pause):
                        return
                    try:
                        conn.send(b"\x16")
                    except OSError:
                        return
                return
            try:
                tls = self.context.wrap_socket(conn, server_side=True)
                tls.settimeout(5)
                tls.recv(65536)
                body = b'{"data": [' + b" " * 200 + b"]}"
                head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                if self.what == "body":
                    tls.sendall(head)
                    trickle = body
                else:
                    trickle = head + body
                for i in range(len(trickle)):
                    if self.stop.wait(self.pause):
                        return
                    tls.sendall(trickle[i:i + 1])
            except OSError:
                return


@pytest.mark.parametrize("what", ["handshake", "head", "body"])
def test_a_trickling_https_endpoint_is_cut_off_at_the_timeout(what, tmp_path, monkeypatch):
    import trustme

    ca = trustme.CA()
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))  # the client trusts the test CA
    with TricklingTLSServer(what, ca) as srv:
        p = OpenAIProvider(srv.base_url, "test-embed", API_KEY, timeout=1.0, sleep=Sleeps())
        start = time.monotonic()
        with pytest.raises(EmbedTimeout, match="did not answer within 1s"):
            p.embed(["x"])
        elapsed = time.monotonic() - start
    assert elapsed < 6.0, elapsed


def test_an_https_endpoint_answers_through_the_watched_connection(tmp_path, monkeypatch):
    import ssl

    import trustme

    ca = trustme.CA()
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    server = EmbeddingServer()
    server.httpd.socket = context.wrap_socket(server.httpd.socket, server_side=True)
    with server as srv:
        p = OpenAIProvider(srv.base_url.replace("http://", "https://"), "test-embed", API_KEY, timeout=10)
        vectors = p.embed(["a", "b"])
    assert vectors.shape == (2, 8)
    np.testing.assert_allclose(vectors[0], expected_unit("a", 8), rtol=1e-6)
