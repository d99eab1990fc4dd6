"""An OpenAI-compatible embeddings server on 127.0.0.1 for the provider tests (a real HTTP server).

The root conftest serves it as the ``server`` fixture.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

from skillsift.embed.openai import OpenAIProvider

API_KEY = "test-key-0123456789abcdef"


def fake_vector(text: str, dims: int) -> list[float]:
    """A deterministic, not normalised vector for ``text``."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [(digest[i % len(digest)] - 127.5) / 10.0 for i in range(dims)]


def expected_unit(text: str, dims: int) -> np.ndarray:
    v = np.array(fake_vector(text, dims), dtype=np.float32)
    return v / np.float32(np.sqrt(np.square(v.astype(np.float64)).sum()))


class EmbeddingServer:
    """A threaded HTTP server answering POST /v1/embeddings; records every request.

    ``script`` holds actions for the next requests (consumed one per request): a
    callable ``(inputs, body) -> (status, headers, bytes)``, or a tuple
    ``(status, headers, bytes)``.  With no action left it answers correctly, data in
    reverse order (so clients must sort by index), ``dims`` wide.
    """

    def __init__(self, dims: int = 8):
        self.dims = dims
        self.requests: list[dict] = []
        self.script: deque = deque()
        self.delay = 0.0
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                status, headers, payload = owner.answer(self.path, dict(self.headers), body)
                if owner.delay:
                    time.sleep(owner.delay)
                try:
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def bodies(self) -> list[bytes]:
        return [r["body"] for r in self.requests]

    @property
    def inputs(self) -> list[list[str]]:
        return [r["json"]["input"] for r in self.requests]

    def answer(self, path, headers, body):
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        with self.lock:
            self.requests.append({"path": path, "headers": headers, "body": body, "json": parsed})
            action = self.script.popleft() if self.script else None
        inputs = parsed["input"] if isinstance(parsed, dict) else []
        if callable(action):
            return action(inputs, parsed)
        if action is not None:
            return action
        return 200, {"Content-Type": "application/json"}, self.ok(inputs)

    def ok(self, inputs, dims=None):
        dims = dims or self.dims
        data = [{"index": i, "embedding": fake_vector(t, dims)} for i, t in enumerate(inputs)]
        data.reverse()
        tokens = sum(len(t.split()) for t in inputs)
        return json.dumps({"data": data, "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}).encode()


class Sleeps(list):
    """An injected sleep that records instead of waiting."""

    def __call__(self, seconds):
        self.append(seconds)


def openai_provider(server, **kwargs) -> OpenAIProvider:
    """The openai provider on ``server`` (model ``test-embed``), sleeping into a :class:`Sleeps` by default."""
    kwargs.setdefault("sleep", Sleeps())
    return OpenAIProvider(server.base_url, "test-embed", API_KEY, **kwargs)
