"""The index build: plan, reuse, withholding, batching, refusals, stops and hard errors
(reference §5.6, §5.9 and the build list of §10.6), with the concepts-v1 test embedder."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from skillsift.catalog.embedtext import embedded_text
from skillsift.catalog.skill import Skill
from skillsift.config import DEFAULT_FIELDS
from skillsift.embed.base import BudgetExceeded, EmbedTimeout, InputRejected, NetworkDisabled, ProviderUnavailable
from skillsift.index.build import (
    BuildError,
    build_index,
    cost_of,
    effective_batch_size,
    estimate_tokens,
    plan_build,
)
from skillsift.index.store import load_index, write_index
from skillsift.ranker.screens import normalise_query
from skillsift.secrets.egress import sends_text_out
from skillsift.secrets.scan import detect_secret
from tests.ranker.reference import cosine_list
from tests.support.concept_embedder import ConceptEmbedder, concept_vector, refund_catalog, unit

AWS_KEY = "AKIAQ3ZR7T2MWX9PLK4N"


def edit(skills, which, **changes):
    return [replace(s, **changes) if s.name == which else s for s in skills]


def full_build(skills=None, embedder=None, **plan_options):
    skills = refund_catalog() if skills is None else skills
    embedder = embedder or ConceptEmbedder()
    plan = plan_build(skills, None, provider=embedder, **plan_options)
    result = build_index(plan, embedder)
    assert result.index is not None
    return result.index


def rebuild(old, skills, embedder=None, *, dtype="float32", batch_size=None, **plan_options):
    embedder = embedder or ConceptEmbedder()
    plan = plan_build(skills, old, provider=embedder, **plan_options)
    return embedder, build_index(plan, embedder, dtype=dtype, batch_size=batch_size)


def ids(index) -> list[str]:
    return [item.id for item in index.items]


# --------------------------------------------------------------------------- the test embedder


def test_concept_embedder_reproduces_the_reference_cosines():
    catalog = {s.name: s for s in refund_catalog()}
    query = unit(concept_vector("use the deploy-staging skill to handle a chargeback dispute from a bank"))
    sims = {
        name: float(np.dot(query, unit(concept_vector(embedded_text(catalog[name], DEFAULT_FIELDS)))))
        for name in ("dispute-charge", "deploy-staging")
    }
    assert sims["dispute-charge"] == pytest.approx(0.832096, abs=1e-6)
    assert sims["deploy-staging"] == pytest.approx(0.555063, abs=1e-6)
    weather = unit(concept_vector("weather today"))
    best = max(float(np.dot(weather, unit(concept_vector(embedded_text(s, DEFAULT_FIELDS))))) for s in catalog.values())
    assert best == pytest.approx(0.059892, abs=1e-6)


# --------------------------------------------------------------------------- estimates


def test_token_estimate_and_cost():
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens("abc") == 1
    assert estimate_tokens("abcd") == 2
    assert estimate_tokens("é" * 3) == 2  # 6 UTF-8 bytes
    assert cost_of(1_000_000, 0.15) == pytest.approx(0.15)
    assert cost_of(1627, 0.15) == pytest.approx(0.00024405)
    assert cost_of(10, None) is None


def test_effective_batch_size():
    assert effective_batch_size(None, None) == 64
    assert effective_batch_size(0, None) == 64
    assert effective_batch_size(3, None) == 3
    assert effective_batch_size(64, 1) == 1
    assert effective_batch_size(None, 10) == 10
    assert effective_batch_size(5, 10) == 5


def test_which_providers_send_text_out():
    assert not sends_text_out(ConceptEmbedder())
    assert sends_text_out(ConceptEmbedder(external=True))
    assert sends_text_out(ConceptEmbedder(networked=True))


# --------------------------------------------------------------------------- builds and reuse


def test_first_build_embeds_everything_in_catalog_order():
    embedder = ConceptEmbedder()
    plan = plan_build(refund_catalog(), None, provider=embedder)
    result = build_index(plan, embedder)
    assert result.embedded == ["issue-refund", "deploy-staging", "dispute-charge", "git-workflow"]
    assert embedder.call_sizes == [4]
    # the default embedded fields leave the name out (docs/ranking-quality.md)
    assert embedder.sent[0] == "description: Reimburse a customer for a returned purchase\nkeywords: reimburse"
    index = result.index
    assert ids(index) == ["deploy-staging", "dispute-charge", "git-workflow", "issue-refund"]
    assert index.manifest.provider == "test@local" and index.manifest.model == "concepts-v1"
    assert index.dims == 5 and result.complete and result.missing == []
    assert [item.item_digest for item in index.items][0] == "sha256:deploy-staging"
    assert result.tokens == sum(estimate_tokens(t) for t in embedder.sent)


def test_incremental_build_embeds_only_the_changed_text_and_refreshes_digests():
    old = full_build()
    skills = edit(refund_catalog(), "issue-refund", description="Reimburse a customer, including partial credit")
    skills = edit(skills, "deploy-staging", digest="sha256:edited-body")
    embedder, result = rebuild(old, skills)
    assert result.embedded == ["issue-refund"] and result.reused == 3
    assert embedder.calls == [[embedded_text(skills[0])]]
    assert "partial credit" in embedder.sent[0]
    index = result.index
    assert index.items[index.row("", "deploy-staging")].item_digest == "sha256:edited-body"
    # the reused vector is the old one, bit for bit
    np.testing.assert_array_equal(index.vector(index.row("", "dispute-charge")),
                                  old.vector(old.row("", "dispute-charge")))


def test_unchanged_rebuild_makes_no_call_and_writes_identical_bytes(tmp_path):
    old = full_build()
    assert write_index(tmp_path, old) is True
    manifest, vectors = (tmp_path / "manifest.json").read_bytes(), (tmp_path / "vectors.bin").read_bytes()
    loaded = load_index(tmp_path).index
    embedder, result = rebuild(loaded, refund_catalog())
    assert embedder.calls == [] and result.calls == 0 and result.reused == 4
    assert result.index.to_bytes() == (manifest, vectors)
    assert write_index(tmp_path, result.index) is False


def drifting_half_rows(count: int) -> list[list[float]]:
    """Unit 5-dim rows whose half-precision form moves when normalised and quantised again."""
    from skillsift.index import float16
    from skillsift.index.store import normalize_rows

    rng = np.random.default_rng(7)
    rows = normalize_rows(rng.normal(size=(500, 5)).astype(np.float32))
    half = float16.from_half_bits(float16.to_half_bits(rows))
    again = float16.from_half_bits(float16.to_half_bits(normalize_rows(half)))
    moved = np.flatnonzero((half != again).any(axis=1))
    assert len(moved) >= count
    return [rows[i].tolist() for i in moved[:count]]


def test_unchanged_float16_rebuild_keeps_reused_rows_bit_for_bit(tmp_path):
    fixed = drifting_half_rows(4)
    embedder = ConceptEmbedder(transform=lambda rows, texts: [fixed[len(embedder.sent) - len(texts) + i]
                                                              for i in range(len(texts))])
    plan = plan_build(refund_catalog(), None, provider=embedder)
    write_index(tmp_path, build_index(plan, embedder, dtype="float16").index)
    before = (tmp_path / "vectors.bin").read_bytes()
    loaded = load_index(tmp_path).index
    skills = edit(refund_catalog(), "git-workflow", description="Branching, pull request and git conventions")
    _, result = rebuild(loaded, skills, dtype="float16")
    assert result.embedded == ["git-workflow"]
    assert write_index(tmp_path, result.index) is True
    after = (tmp_path / "vectors.bin").read_bytes()
    for name in ("deploy-staging", "dispute-charge", "issue-refund"):
        row_old, row_new = loaded.row("", name), result.index.row("", name)
        assert before[row_old * 10:(row_old + 1) * 10] == after[row_new * 10:(row_new + 1) * 10]
    again = load_index(tmp_path).index
    _, result = rebuild(again, skills, dtype="float16")
    assert result.calls == 0 and write_index(tmp_path, result.index) is False


def test_rename_reuses_the_vector_when_the_name_is_not_embedded():
    fields = ("description",)
    old = full_build(fields=fields)
    skills = edit(refund_catalog(), "issue-refund", name="refund-customer")
    embedder, result = rebuild(old, skills, fields=fields)
    assert embedder.calls == [] and result.reused == 4
    assert result.index.row("", "refund-customer") >= 0
    assert result.index.row("", "issue-refund") == -1
    np.testing.assert_array_equal(result.index.vector(result.index.row("", "refund-customer")),
                                  old.vector(old.row("", "issue-refund")))


def test_rename_with_the_name_embedded_re_embeds_it():
    old = full_build(fields=DEFAULT_FIELDS)
    skills = edit(refund_catalog(), "issue-refund", name="refund-customer")
    embedder, result = rebuild(old, skills, fields=DEFAULT_FIELDS)
    assert result.embedded == ["refund-customer"] and result.reused == 3


@pytest.mark.parametrize(
    "change",
    [
        {"embedder": {"model": "concepts-v2"}},
        {"embedder": {"fingerprint": "other@local"}},
        {"plan": {"fields": ("name",)}},
        {"plan": {"index_body": True}},
        {"plan": {"rebuild": True}},
    ],
    ids=["model", "provider", "fields", "index_body", "rebuild"],
)
def test_invalidation_re_embeds_everything(change):
    old = full_build()
    embedder = ConceptEmbedder(**change.get("embedder", {}))
    plan = plan_build(refund_catalog(), old, provider=embedder, **change.get("plan", {}))
    result = build_index(plan, embedder)
    assert len(result.embedded) == 4 and result.reused == 0
    assert embedder.call_sizes == [4]
    if "rebuild" not in change.get("plan", {}):
        assert plan.rebuild_reason
    else:
        assert plan.rebuild_reason == ""


def test_forcing_one_skill_re_embeds_only_that_one():
    old = full_build()
    embedder, result = rebuild(old, refund_catalog(), force={"git-workflow"})
    assert result.embedded == ["git-workflow"] and result.reused == 3
    assert embedder.calls == [[embedded_text(refund_catalog()[3])]]


def test_plan_needs_no_call_and_counts_what_would_be_sent():
    old = full_build()
    skills = edit(refund_catalog(), "dispute-charge", description="Answer a chargeback dispute raised by a bank")
    embedder = ConceptEmbedder()
    plan = plan_build(skills, old, provider=embedder, price_per_mtok=0.15)
    assert embedder.calls == []
    text = embedded_text(skills[2])
    assert (plan.total, len(plan.reused), len(plan.to_embed)) == (4, 3, 1)
    assert plan.bytes == len(text.encode()) > 0
    assert plan.tokens == estimate_tokens(text) > 0
    assert plan.cost_usd == pytest.approx(plan.tokens * 0.15 / 1e6)
    other = plan_build(skills, old, provider=ConceptEmbedder(model="another"))
    assert "model changed" in other.rebuild_reason
    assert len(other.to_embed) == 4 and not other.reused


def test_an_old_index_that_did_not_load_is_the_rebuild_reason():
    plan = plan_build(refund_catalog(), None, provider=ConceptEmbedder(), old_problem="vectors.bin is 3 bytes")
    assert plan.rebuild_reason == "vectors.bin is 3 bytes" and len(plan.to_embed) == 4


def test_empty_text_is_not_sent_and_a_catalog_of_only_empty_texts_cannot_be_indexed():
    skills = [Skill("a", "x"), Skill("b", "y", keywords=("deploy",))]
    embedder = ConceptEmbedder()
    plan = plan_build(skills, None, provider=embedder, fields=("keywords",))
    assert [item.action for item in plan.items] == ["empty", "embed"]
    result = build_index(plan, embedder)
    assert embedder.sent == ["keywords: deploy"] and result.missing == ["a"]
    nothing = plan_build(skills[:1], None, provider=embedder, fields=("keywords",))
    with pytest.raises(BuildError, match="nothing to index"):
        build_index(nothing, embedder)


# --------------------------------------------------------------------------- withholding


def test_withheld_skill_is_never_sent():
    skills = edit(refund_catalog(), "deploy-staging",
                  description=f"Roll a service out to staging with key {AWS_KEY}")
    embedder = ConceptEmbedder(external=True)
    plan = plan_build(skills, None, provider=embedder,
                      scan=lambda text: "aws-access-key" if "AKIA" in text else None)
    assert [(i.id, i.secret) for i in plan.withheld] == [("deploy-staging", "aws-access-key")]
    result = build_index(plan, embedder)
    assert len(result.embedded) == 3 and result.missing == ["deploy-staging"]
    assert not any("AKIA" in text for text in embedder.sent)
    assert result.index.row("", "deploy-staging") == -1
    assert result.complete  # withholding alone is not a failure


def test_withholding_uses_the_real_scanner():
    skills = edit(refund_catalog(), "git-workflow", description=f"Branching rules; ci uses {AWS_KEY}")
    plan = plan_build(skills, None, provider=ConceptEmbedder(external=True), scan=detect_secret)
    assert [(i.id, i.secret) for i in plan.withheld] == [("git-workflow", "aws-access-key")]


def test_without_a_scanner_nothing_is_withheld():
    skills = edit(refund_catalog(), "deploy-staging", description=f"key {AWS_KEY}")
    plan = plan_build(skills, None, provider=ConceptEmbedder())
    assert not plan.withheld and len(plan.to_embed) == 4


# --------------------------------------------------------------------------- stops


def test_budget_stop_at_the_second_batch_keeps_the_first():
    embedder = ConceptEmbedder(fail_at={2: BudgetExceeded("the embeddings budget is spent")})
    plan = plan_build(refund_catalog(), None, provider=embedder)
    result = build_index(plan, embedder, batch_size=2)
    assert isinstance(result.stop_error, BudgetExceeded) and result.stop_error.reason == "budget"
    assert result.stopped == "the embeddings budget is spent"
    assert result.embedded == ["issue-refund", "deploy-staging"]
    assert len(result.index) == 2
    assert result.missing == ["dispute-charge", "git-workflow"]
    assert result.rejected == [] and not result.complete


def test_budget_before_any_vector_gives_no_index_and_no_exception():
    embedder = ConceptEmbedder(fail_at={1: BudgetExceeded("the embeddings budget is spent")})
    plan = plan_build(refund_catalog(), None, provider=embedder)
    result = build_index(plan, embedder)
    assert result.index is None and result.stop_error.reason == "budget"
    assert result.missing == sorted(s.name for s in refund_catalog())


def test_a_stop_before_any_new_vector_builds_nothing_even_with_reused_rows():
    old = full_build()
    skills = edit(refund_catalog(), "issue-refund", description="Pay a customer back")
    embedder = ConceptEmbedder(fail_at={1: EmbedTimeout("the provider did not answer in 60s")})
    _, result = rebuild(old, skills, embedder)
    assert result.stopped and result.index is None  # not an index of the three reused rows
    assert result.embedded == [] and result.reused == 3


def test_a_later_stop_keeps_reused_rows_and_the_finished_batch():
    old = full_build()
    skills = edit(refund_catalog(), "issue-refund", description="Pay a customer back")
    skills = edit(skills, "git-workflow", description="Branching, pull request and git conventions")
    embedder = ConceptEmbedder(fail_at={2: EmbedTimeout("the provider did not answer in 60s")})
    _, result = rebuild(old, skills, embedder, batch_size=1)
    assert result.stopped and result.index is not None
    assert ids(result.index) == ["deploy-staging", "dispute-charge", "issue-refund"]
    assert result.missing == ["git-workflow"]


@pytest.mark.parametrize(
    "error",
    [
        BudgetExceeded("budget spent"),
        NetworkDisabled("the network is disabled"),
        ProviderUnavailable("the embedding endpoint at api.example answered HTTP 401"),
        ProviderUnavailable("the embedding endpoint at api.example answered HTTP 503"),
        EmbedTimeout("the embedding endpoint did not answer"),
    ],
    ids=["budget", "network", "auth", "503", "timeout"],
)
def test_stop_errors_stop_without_a_rejected_list(error):
    embedder = ConceptEmbedder(fail_at={1: error})
    plan = plan_build(refund_catalog(), None, provider=embedder)
    result = build_index(plan, embedder, batch_size=4)
    assert result.stopped == error.message and result.stop_error is error
    assert result.rejected == [] and embedder.call_sizes == [4]
    assert result.index is None


# --------------------------------------------------------------------------- refusals


def test_refused_item_is_isolated_by_halving():
    embedder = ConceptEmbedder(reject=lambda text: "staging" in text)
    plan = plan_build(refund_catalog(), None, provider=embedder)
    result = build_index(plan, embedder, batch_size=4)
    assert embedder.call_sizes == [4, 2, 1, 1, 2]
    assert not result.stopped
    assert len(result.embedded) == 3
    assert [name for name, _ in result.rejected] == ["deploy-staging"]
    assert "HTTP 400" in result.rejected[0][1]
    assert result.missing == ["deploy-staging"]
    assert result.index is not None and len(result.index) == 3


def test_everything_refused_stops_after_exactly_five():
    skills = [Skill(f"skill-{i:02d}", f"Skill number {i}") for i in range(10)]
    embedder = ConceptEmbedder(reject=lambda text: True)
    plan = plan_build(skills, None, provider=embedder)
    result = build_index(plan, embedder, batch_size=1)
    assert len(result.rejected) == 5 and embedder.call_sizes == [1] * 5
    assert result.stopped == "the provider rejected 5 skills in a row"
    assert result.index is None


def test_a_success_resets_the_refusal_streak():
    skills = [Skill(f"skill-{i:02d}", f"Skill number {i}") for i in range(12)]
    bad = {f"skill-{i:02d}" for i in range(12) if i % 3 != 2}  # two refused, one accepted, ...
    embedder = ConceptEmbedder(reject=lambda text: text.split("\n")[0][6:] in bad)  # "name: skill-NN"
    plan = plan_build(skills, None, provider=embedder, fields=DEFAULT_FIELDS)
    result = build_index(plan, embedder, batch_size=1)
    assert not result.stopped and len(result.rejected) == 8 and len(result.embedded) == 4


def test_every_skill_refused_below_the_streak_is_a_stop():
    embedder = ConceptEmbedder(reject=lambda text: True)
    plan = plan_build(refund_catalog()[:3], None, provider=embedder)
    result = build_index(plan, embedder, batch_size=4)
    assert result.index is None
    assert result.stopped == "the provider rejected every skill: deploy-staging, dispute-charge, issue-refund"


def test_refusal_reasons_are_redacted():
    token = "gh" + "p_" + "Q7x9Lm2k" * 5
    embedder = ConceptEmbedder(fail_at={1: InputRejected(f"HTTP 400: bad input near {token}")})
    plan = plan_build(refund_catalog()[:1], None, provider=embedder)
    result = build_index(plan, embedder)
    assert token not in result.rejected[0][1] and "HTTP 400" in result.rejected[0][1]


# --------------------------------------------------------------------------- batching


def test_config_batch_size_one_makes_one_call_per_skill():
    embedder = ConceptEmbedder()
    result = build_index(plan_build(refund_catalog(), None, provider=embedder), embedder, batch_size=1)
    assert embedder.call_sizes == [1, 1, 1, 1] and len(result.embedded) == 4


@pytest.mark.parametrize("batch_size", [None, 64, 3])
def test_provider_max_batch_lowers_the_batch(batch_size):
    embedder = ConceptEmbedder(max_batch=1)
    result = build_index(plan_build(refund_catalog(), None, provider=embedder), embedder, batch_size=batch_size)
    assert embedder.call_sizes == [1, 1, 1, 1] and len(result.embedded) == 4


def test_progress_counts_every_settled_skill():
    seen = []
    embedder = ConceptEmbedder(reject=lambda text: "staging" in text)
    plan = plan_build(refund_catalog(), None, provider=embedder)
    build_index(plan, embedder, batch_size=2, progress=seen.append)
    assert sum(seen) == 4


# --------------------------------------------------------------------------- hard errors


def test_mixed_dimensions_are_a_hard_error():
    def truncate_second(rows, texts):
        rows = [list(r) for r in rows]
        rows[1] = rows[1][:2]
        return rows

    embedder = ConceptEmbedder(transform=truncate_second)
    plan = plan_build(refund_catalog(), None, provider=embedder)
    with pytest.raises(BuildError, match="dimensions") as info:
        build_index(plan, embedder)
    assert "nothing was written" in info.value.message


def test_new_vectors_must_match_the_reused_rows():
    old = full_build()
    skills = edit(refund_catalog(), "git-workflow", description="Git branching")
    embedder = ConceptEmbedder(transform=lambda rows, texts: [r[:3] for r in rows])
    with pytest.raises(BuildError, match="3 dimensions .* after 5"):
        rebuild(old, skills, embedder)


def test_wrong_vector_count_is_a_hard_error():
    embedder = ConceptEmbedder(transform=lambda rows, texts: rows[:-1])
    with pytest.raises(BuildError, match="3 vectors for 4 texts"):
        build_index(plan_build(refund_catalog(), None, provider=embedder), embedder)


def test_wrong_vector_count_behind_the_gate_writes_nothing():
    from skillsift.embed.gate import GatedProvider

    inner = ConceptEmbedder(transform=lambda rows, texts: rows[:-1])
    gated = GatedProvider(inner, allow_network=True)
    with pytest.raises(BuildError, match="3 vectors for 4 texts; nothing was written"):
        build_index(plan_build(refund_catalog(), None, provider=gated), gated)


def test_nan_is_a_hard_error():
    embedder = ConceptEmbedder(transform=lambda rows, texts: [[float("nan")] * 5 for _ in rows])
    with pytest.raises(BuildError, match="NaN"):
        build_index(plan_build(refund_catalog(), None, provider=embedder), embedder)


# --------------------------------------------------------------------------- float16


def test_float16_build_is_written_loaded_and_searched(tmp_path):
    embedder = ConceptEmbedder()
    result = build_index(plan_build(refund_catalog(), None, provider=embedder), embedder, dtype="float16")
    assert result.index.manifest.dtype == "float16"
    write_index(tmp_path, result.index)
    loaded = load_index(tmp_path).index
    assert loaded is not None and loaded.manifest.dtype == "float16"
    assert (tmp_path / "vectors.bin").stat().st_size == 4 * 5 * 2
    np.testing.assert_array_equal(loaded.matrix, result.index.matrix)
    query = normalise_query(concept_vector("money back"))
    names = [item.id for item in loaded.items]
    ranked = cosine_list(loaded.matrix, list(range(len(names))), names, query)
    assert names[ranked[0][0]] == "issue-refund"


def test_an_interrupt_stops_the_build_and_keeps_finished_batches():
    embedder = ConceptEmbedder(fail_at={2: KeyboardInterrupt()})
    plan = plan_build(refund_catalog(), None, provider=embedder)
    result = build_index(plan, embedder, batch_size=2)
    assert result.stopped == "the build was interrupted" and result.stop_error is None
    assert result.embedded == ["issue-refund", "deploy-staging"] and len(result.index) == 2
