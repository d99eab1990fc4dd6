"""The egress gate (network switch, budget, response cache), the factory and secret withholding,
end to end against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import os
import stat
import sys
import threading
import types
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from skillsift.config import Config, EmbeddingsConfig
from skillsift.embed.base import (
    BudgetExceeded,
    InputRejected,
    NetworkDisabled,
    Provider,
    ProviderUnavailable,
)
from skillsift.embed.command import CommandProvider
from skillsift.embed.factory import make_provider
from skillsift.embed.gate import (
    Budget,
    GatedProvider,
    ResponseCache,
    cache_key,
    estimate_tokens,
    price_per_mtok,
)
from skillsift.embed.openai import OpenAIProvider
from skillsift.secrets.scan import withhold
from tests.conftest import FIXTURES
from tests.support.embedding_server import API_KEY, expected_unit
from tests.support.embedding_server import openai_provider as openai
from tests.support.secret_samples import planted_lines

SCRIPT = str(FIXTURES / "embed_cmds" / "embedder.py")


def gated(server, *, allow_network=True, budget=None, cache=None, **kwargs):
    return GatedProvider(openai(server, **kwargs), allow_network=allow_network, budget=budget, cache=cache)


# --- network switch ------------------------------------------------------------------------


def test_network_disabled_sends_nothing(server, tmp_path):
    cache = ResponseCache(tmp_path / "cache")
    p = gated(server, allow_network=False, cache=cache)
    with pytest.raises(NetworkDisabled) as info:
        p.embed(["deploy to staging", "refund a customer"])
    assert info.value.reason == "network_disabled"
    assert "2 texts" in str(info.value) and f"127.0.0.1:{server.port}" in str(info.value)
    assert server.requests == []
    assert not (tmp_path / "cache").exists()


def test_loopback_is_not_exempt_and_enabling_works(server):
    p = gated(server, allow_network=False)
    with pytest.raises(NetworkDisabled):
        p.embed(["x"])
    p.allow_network = True
    assert p.embed(["x"]).shape == (1, 8)
    assert len(server.requests) == 1


def test_a_command_provider_needs_no_network_switch():
    inner = CommandProvider([sys.executable, SCRIPT, "ok"], env={"PATH": os.environ.get("PATH", "")})
    p = GatedProvider(inner, allow_network=False)
    assert p.embed(["ab"]).shape == (1, 3)
    assert p.networked is False and p.external is True


# --- budget --------------------------------------------------------------------------------


def test_budget_stops_the_call_after_max_calls(server):
    budget = Budget(max_calls=3)
    p = gated(server, budget=budget, batch_size=1)
    texts = [f"text {i}" for i in range(5)]
    with pytest.raises(BudgetExceeded) as info:
        p.embed(texts)
    assert info.value.reason == "budget"
    assert server.inputs == [[t] for t in texts[:3]]  # the 4th call never left
    assert budget.calls == 3
    with pytest.raises(BudgetExceeded):
        p.embed(["another"])
    assert len(server.requests) == 3


def test_tokens_reserve_the_worst_case_and_settle_the_reported_usage(server):
    text = "a" * 30  # 10 tokens worst case; the server reports 1 (one word)
    budget = Budget(max_tokens=25)
    p = gated(server, budget=budget)
    p.embed([text])
    p.embed([text + "b"])
    assert budget.tokens == 2  # settled with what the endpoint reported
    budget2 = Budget(max_tokens=25)
    p2 = gated(server, budget=budget2)
    with pytest.raises(BudgetExceeded, match="could use 34 tokens, over max_tokens = 25"):
        p2.embed(["b" * 100])
    assert len(server.requests) == 2


def test_cost_limit_without_a_price_refuses(server):
    p = gated(server, budget=Budget(max_cost_usd=1.0, price_per_mtok=None))
    with pytest.raises(BudgetExceeded, match="no price is known") as info:
        p.embed(["x"])
    assert "price_input_per_mtok" in info.value.hint
    assert server.requests == []


def test_cost_limit_with_a_price(server):
    # 3,000,000 bytes = 1,000,000 tokens worst case = $2 at $2/Mtok
    budget = Budget(max_cost_usd=1.0, price_per_mtok=2.0)
    p = gated(server, budget=budget)
    with pytest.raises(BudgetExceeded, match=r"could cost \$2\.000000"):
        p.embed(["z" * 3_000_000])
    assert server.requests == []
    p.embed(["small text"])
    assert budget.cost_usd == pytest.approx(2 * 2.0 / 1e6)  # 2 words reported = 2 tokens


def test_clean_rejection_releases_tokens_but_counts_the_call(server):
    server.script.append((400, {}, b""))
    server.script.append((503, {}, b""))
    budget = Budget()
    p = gated(server, budget=budget, max_retries=0)
    with pytest.raises(InputRejected):
        p.embed(["a" * 300])
    assert (budget.calls, budget.tokens) == (1, 0)
    with pytest.raises(ProviderUnavailable):
        p.embed(["b" * 300])
    assert (budget.calls, budget.tokens) == (2, 100)  # a 5xx stays charged at the worst case


def test_budget_unit_rules():
    b = Budget(max_calls=2, max_tokens=100)
    r1 = b.reserve(["x" * 90])  # 30 tokens
    r2 = b.reserve(["y" * 150])  # 50 tokens: 80 held
    with pytest.raises(BudgetExceeded):  # a third call while two are held
        b.reserve(["z"])
    b.settle(r1, used_tokens=-5)  # implausible: the worst case is charged
    b.settle(r2, used_tokens=10**9)  # implausible too
    assert (b.calls, b.tokens) == (2, 80)
    assert estimate_tokens("") == 0 and estimate_tokens("abcd") == 2 and estimate_tokens("é") == 1
    assert Budget().cost_usd is None and Budget(price_per_mtok=0.0).cost_usd == 0.0


def test_budget_is_thread_safe():
    b = Budget(max_calls=50)
    granted = []

    def worker():
        for _ in range(20):
            try:
                granted.append(b.reserve(["t"]))
            except BudgetExceeded:
                return

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(granted) == 50


def test_prices():
    assert price_per_mtok("text-embedding-3-small") == 0.02
    assert price_per_mtok("openai/text-embedding-3-large") == 0.13
    assert price_per_mtok("nomic-embed-text") is None
    assert price_per_mtok("nomic-embed-text", 0.5) == 0.5


# --- cache ---------------------------------------------------------------------------------


def test_cached_texts_are_not_sent_again(server, tmp_path):
    cache = ResponseCache(tmp_path / "embed-cache")
    p = gated(server, cache=cache)
    first = p.embed(["alpha", "beta"])
    assert server.inputs == [["alpha", "beta"]]
    second = p.embed(["beta", "gamma", "alpha"])
    assert server.inputs == [["alpha", "beta"], ["gamma"]]  # only the new text left
    np.testing.assert_array_equal(second[0], first[1])
    np.testing.assert_array_equal(second[2], first[0])
    np.testing.assert_allclose(second[1], expected_unit("gamma", 8), rtol=1e-6)
    # a fresh process (new provider objects) reads the same files
    again = gated(server, cache=ResponseCache(tmp_path / "embed-cache"))
    again.embed(["gamma", "alpha"])
    assert len(server.requests) == 2 and again.cache_hits == 2 and again.sent_texts == 0


def test_duplicates_in_one_call_are_sent_once(server):
    out = gated(server).embed(["same", "other", "same"])
    assert server.inputs == [["same", "other"]]
    np.testing.assert_array_equal(out[0], out[2])


def test_cache_files_are_private_and_hold_no_key_or_text(server, tmp_path):
    root = tmp_path / "cache"
    p = gated(server, cache=ResponseCache(root))
    p.embed(["some distinctive skill text"])
    files = [f for f in root.rglob("*") if f.is_file()]
    assert len(files) == 1 and files[0].suffix == ".f32"
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(files[0].parent.stat().st_mode) == 0o700
    data = files[0].read_bytes()
    assert API_KEY.encode() not in data and b"distinctive" not in data
    assert len(data) == 8 * 4
    assert not [f for f in root.rglob(".tmp-*")]


def test_cache_key_separates_provider_model_and_text():
    keys = {
        cache_key("openai@a", "m", "t"),
        cache_key("openai@b", "m", "t"),
        cache_key("openai@a", "m2", "t"),
        cache_key("openai@a", "m", "t2"),
        cache_key("openai@a", "mt", ""),
    }
    assert len(keys) == 5


def test_corrupt_cache_entries_are_misses(server, tmp_path):
    cache = ResponseCache(tmp_path / "c")
    p = gated(server, cache=cache)
    p.embed(["alpha"])
    (entry,) = [f for f in (tmp_path / "c").rglob("*.f32")]
    entry.write_bytes(b"\x00\x01\x02")  # not a whole float32
    p.embed(["alpha"])
    assert len(server.requests) == 2
    assert cache.get("0" * 64) is None


def test_cached_vectors_of_other_dims_are_refreshed(server, tmp_path):
    cache = ResponseCache(tmp_path / "c")
    inner = openai(server)
    cache.put(cache_key(inner.fingerprint, inner.model, "old"), np.ones(4, dtype=np.float32) / 2)
    p = GatedProvider(inner, allow_network=True, cache=cache)
    out = p.embed(["old", "new"])
    assert out.shape == (2, 8)
    assert server.inputs == [["new"], ["old"]]
    np.testing.assert_allclose(out[0], expected_unit("old", 8), rtol=1e-6)


def test_cache_under_the_local_state_dir(tmp_path):
    cache = ResponseCache.under(tmp_path)
    assert Path(cache.directory) == tmp_path / ".skillsift" / "local" / "embed-cache"


# --- secrets never leave ------------------------------------------------------------------------


def test_withheld_skills_never_reach_the_server(server, tmp_path):
    lines = planted_lines(seed=11)
    secrets_by_kind = {kind: value for kind, (_line, value) in lines.items()}
    texts = {}
    for i, (_kind, (line, _secret)) in enumerate(sorted(lines.items())):
        texts[f"leaky-{i:02d}"] = f"leaky-{i:02d}\nUse it like this: {line} and deploy.\nDeploys the app."
    for i in range(5):
        texts[f"clean-{i}"] = f"clean-{i}\nPlans release number {i} and writes notes."
    allowed, withheld = withhold(texts)
    assert sorted(kind for _, kind in withheld) == sorted(secrets_by_kind)
    assert list(allowed) == [f"clean-{i}" for i in range(5)]
    p = gated(server, cache=ResponseCache(tmp_path / "c"), batch_size=2)
    vectors = p.embed(list(allowed.values()))
    assert vectors.shape == (5, 8)
    seen = b"".join(server.bodies)
    assert seen and b"clean-4" in seen
    for secret in secrets_by_kind.values():
        assert secret.encode() not in seen
        assert secret[:12].encode() not in seen
    assert b"leaky" not in seen


# --- factory -----------------------------------------------------------------------------------


def config(tmp_path, **emb) -> Config:
    return Config(root=str(tmp_path), embeddings=EmbeddingsConfig(**emb))


def test_factory_openai_is_gated_and_offline_by_default(server, tmp_path):
    cfg = config(tmp_path, provider="openai", base_url=server.base_url, model="m", api_key_env="EMBED_KEY")
    p = make_provider(cfg, env={"EMBED_KEY": "k-123456"})
    assert isinstance(p, GatedProvider) and isinstance(p.inner, OpenAIProvider)
    assert isinstance(p, Provider) and isinstance(p.inner, Provider)
    assert p.fingerprint == f"openai@127.0.0.1:{server.port}" and p.networked
    with pytest.raises(NetworkDisabled):
        p.embed(["x"])
    assert server.requests == []


def test_factory_openai_with_network_budget_and_cache(server, tmp_path):
    cfg = config(
        tmp_path,
        provider="openai",
        base_url=server.base_url,
        model="m",
        api_key_env="EMBED_KEY",
        allow_network=True,
        max_calls=1,
    )
    p = make_provider(cfg, env={"EMBED_KEY": "k-123456"})
    p.embed(["x"])
    assert server.requests[0]["headers"]["Authorization"] == "Bearer k-123456"
    p.embed(["x"])  # cached: no call, so the budget of one call is not touched
    with pytest.raises(BudgetExceeded):
        p.embed(["y"])
    assert len(server.requests) == 1
    assert list((tmp_path / ".skillsift" / "local" / "embed-cache").rglob("*.f32"))
    uncached = replace(cfg, embeddings=replace(cfg.embeddings, cache=False))
    no_cache = make_provider(uncached, env={"EMBED_KEY": "k"})
    assert no_cache.cache is None


def test_factory_openai_key_problems(tmp_path):
    cfg = config(tmp_path, provider="openai", base_url="http://127.0.0.1:9/v1", model="m", api_key_env="NOPE")
    with pytest.raises(ProviderUnavailable, match="NOPE named by \\[embeddings\\] api_key_env is not set"):
        make_provider(cfg, env={})
    with pytest.raises(ProviderUnavailable, match="no API key"):
        make_provider(config(tmp_path, provider="openai", model="m"), env={})
    # a local server needs no key
    keyless = config(tmp_path, provider="openai", model="m", base_url="http://127.0.0.1:9/v1")
    assert "Authorization" not in make_provider(keyless, env={}).inner._headers()


def test_factory_command(tmp_path):
    cfg = config(tmp_path, provider="command", command=(sys.executable, SCRIPT, "ok"), pass_env=("X",))
    p = make_provider(cfg, env={"PATH": os.environ.get("PATH", "")})
    assert isinstance(p, GatedProvider) and isinstance(p.inner, CommandProvider)
    assert isinstance(p.inner, Provider)
    assert p.fingerprint == f"command:{sys.executable}" and not p.networked
    assert p.inner.root == str(tmp_path)
    assert p.embed(["abc"]).shape == (1, 3)
    assert p.budget.cost_usd == 0.0
    with pytest.raises(ProviderUnavailable, match="command is empty"):
        make_provider(config(tmp_path, provider="command"))


def test_factory_unknown_provider(tmp_path):
    with pytest.raises(ProviderUnavailable, match='unknown embeddings provider "cohere"'):
        make_provider(config(tmp_path, provider="cohere"))


def test_factory_local_is_lazy_and_ungated(tmp_path, monkeypatch):
    class LocalProvider:
        networked = False

        def __init__(self, model="all-MiniLM-L6-v2"):
            self.model = model

    fake = types.ModuleType("skillsift.embed.local")
    fake.LocalProvider = LocalProvider
    monkeypatch.setitem(sys.modules, "skillsift.embed.local", fake)
    p = make_provider(config(tmp_path))
    assert isinstance(p, LocalProvider) and p.model == "all-MiniLM-L6-v2"
    assert make_provider(config(tmp_path, model="other")).model == "other"
    monkeypatch.setitem(sys.modules, "skillsift.embed.local", None)  # import fails: extra missing
    with pytest.raises(ProviderUnavailable) as info:
        make_provider(config(tmp_path))
    assert "skillsift[embed]" in info.value.hint


def test_a_text_holding_a_secret_is_refused_before_anything_is_sent(server, tmp_path):
    from skillsift.embed.base import SECRET_WITHHELD, SecretWithheld

    cache = ResponseCache(tmp_path / "c")
    p = GatedProvider(openai(server), allow_network=True, cache=cache,
                      secret_patterns=(("house-token", r"\bhtk_[a-z0-9]{12}\b"),))
    line, value = planted_lines(seed=3)["github-token"]
    for text in (f"deploy with {line}", "rotate htk_a1b2c3d4e5f6 now"):
        with pytest.raises(SecretWithheld) as caught:
            p.embed(["clean text", text])
        assert caught.value.reason == SECRET_WITHHELD and caught.value.hard
        assert value not in caught.value.message and "not sent to 127.0.0.1" in caught.value.message
    assert server.requests == [] and not list((tmp_path / "c").rglob("*.f32"))
    assert p.budget.calls == 0
    assert p.embed(["clean text"]).shape == (1, 8)


def test_the_factory_gate_scans_with_the_configured_patterns(server, tmp_path):
    from skillsift.config import Config, EmbeddingsConfig
    from skillsift.embed.base import SecretWithheld

    cfg = Config(root=str(tmp_path), secret_patterns=(("house-token", r"\bhtk_[a-z0-9]{12}\b"),),
                 embeddings=EmbeddingsConfig(provider="openai", base_url=server.base_url, model="m",
                                             api_key_env="EMBED_KEY", allow_network=True))
    p = make_provider(cfg, env={"EMBED_KEY": "k-123456"})
    with pytest.raises(SecretWithheld):
        p.embed(["rotate htk_a1b2c3d4e5f6 now"])
    assert server.requests == []


def test_the_response_cache_never_writes_through_a_link_out_of_the_repository(tmp_path):
    import numpy as np

    from skillsift.embed.gate import ResponseCache

    outside = tmp_path / "outside"
    outside.mkdir()
    repo = tmp_path / "repo"
    (repo / ".skillsift").mkdir(parents=True)
    (repo / ".skillsift" / "local").symlink_to(outside)  # committed by the repository
    cache = ResponseCache.under(repo)
    assert cache.put("ab" + "0" * 62, np.ones(4, dtype=np.float32)) is False
    assert cache.get("ab" + "0" * 62) is None
    assert list(outside.rglob("*")) == []
    inside = ResponseCache.under(tmp_path / "plain")
    assert inside.put("cd" + "0" * 62, np.ones(4, dtype=np.float32)) is True
    assert inside.get("cd" + "0" * 62).tolist() == [1.0] * 4
