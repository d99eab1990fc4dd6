"""One provider fingerprint rule: a built provider and the configured one described without building agree."""

from __future__ import annotations

import sys

import pytest

from skillsift.config import Config, EmbeddingsConfig
from skillsift.embed.factory import make_provider
from skillsift.embed.fingerprint import endpoint_host, provider_fingerprint
from skillsift.index.configured import ConfiguredProvider

CONFIGS = [
    EmbeddingsConfig(provider="local"),
    EmbeddingsConfig(provider="openai", base_url="http://127.0.0.1:8080/v1", model="m"),
    EmbeddingsConfig(provider="openai", base_url="https://user:secret@Example.com/v1?key=abc", model="m"),
    EmbeddingsConfig(provider="command", command=(sys.executable, "--token", "secret")),
]


@pytest.mark.parametrize("emb", CONFIGS, ids=lambda e: e.provider + (e.base_url and "@" + e.base_url[:12]))
def test_built_and_described_providers_have_one_fingerprint(tmp_path, emb):
    config = Config(root=str(tmp_path), embeddings=emb)
    built = make_provider(config, root=tmp_path, env={})
    described = ConfiguredProvider.from_config(config)
    assert built.fingerprint == described.fingerprint
    assert "secret" not in built.fingerprint and "key=" not in built.fingerprint


def test_the_rule():
    assert provider_fingerprint("local", model="all-MiniLM-L6-v2") == "local@all-MiniLM-L6-v2"
    assert provider_fingerprint("openai", base_url="") == "openai@default"
    assert provider_fingerprint("OpenAI", base_url="https://api.example.com:8443/v1") == "openai@api.example.com:8443"
    assert provider_fingerprint("command", argv=("/opt/embed", "--key", "k")) == "command:/opt/embed"
    assert provider_fingerprint("command") == "command:"
    assert provider_fingerprint("other") == "other@default"
    assert endpoint_host("http://[::1]:9000/v1") == "[::1]:9000"
