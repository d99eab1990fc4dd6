"""``skillsift.cache.base.sha256``: Python's own SHA-256 for the first bytes a process hashes, then OpenSSL's,
with the same digests either way."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from skillsift.cache import base
from tests.conftest import ROOT


@pytest.mark.parametrize("size", [0, 1, 63, 64, 65, 1000, 100_000])
def test_the_digest_is_hashlibs(monkeypatch, size):
    data = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
    for hashed in (0, base.OWN_SHA256_BYTES):  # from Python's own module, then from OpenSSL's
        monkeypatch.setattr(base, "_own", [None, hashed])
        made = base.sha256(data)
        assert made.hexdigest() == hashlib.sha256(data).hexdigest()
        made.update(b"more")
        assert made.digest() == hashlib.sha256(data + b"more").digest()


def test_a_process_loads_openssl_only_past_the_bytes_it_hashes_itself():
    code = ("import sys\nfrom skillsift.cache.base import OWN_SHA256_BYTES, sha256\n"
            "sha256(b'x' * (OWN_SHA256_BYTES - 1)); print('hashlib' in sys.modules)\n"
            "sha256(b'x'); print('hashlib' in sys.modules)\n"
            "sha256(b'x'); print('hashlib' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": ""}).stdout.split()
    assert out == ["False", "False", "True"]
