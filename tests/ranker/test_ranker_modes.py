"""Hybrid, vector and auto ranking with the concepts-v1 test embedder (reference §3, §10.3)."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from skillsift.catalog.load import catalog_from_skills
from skillsift.config import DEFAULT_FIELDS, Config, SearchConfig
from skillsift.embed.base import BudgetExceeded, EmbedTimeout, NetworkDisabled, ProviderUnavailable
from skillsift.index.build import build_index, plan_build
from skillsift.ranker.search import Ranker
from tests.support.concept_embedder import ConceptEmbedder, refund_catalog


@pytest.fixture(scope="module")
def built_index():
    embedder = ConceptEmbedder()
    return build_index(plan_build(refund_catalog(), None, provider=embedder, fields=DEFAULT_FIELDS), embedder).index


def make_ranker(index, *, skills=None, provider="default", roles=None, query_timeout_ms=0, **search):
    skills = skills or refund_catalog()
    # the reference's hybrid settings (all four fields embedded, fusion auto): its worked examples use them
    reference = SearchConfig(mode="hybrid", fields=DEFAULT_FIELDS, fusion="auto")
    config = Config(search=replace(reference, **search), roles=roles or {})
    if provider == "default":
        provider = ConceptEmbedder()
    return Ranker(catalog_from_skills(skills), config, index=index, provider=provider,
                  query_timeout_ms=query_timeout_ms)


def edit(skills, name, **changes):
    return [replace(s, **changes) if s.name == name else s for s in skills]


def test_hybrid_rrf_finds_what_lexical_cannot(built_index):
    ranker = make_ranker(built_index, fusion="rrf")
    assert ranker.search("money back", mode="lexical").hits == ()
    result = ranker.search("money back")
    assert result.ranking == "hybrid" and result.degraded is None
    assert result.hits[0].name == "issue-refund"
    assert result.embedded and result.hits[0].vector_rank > 0


@pytest.mark.parametrize(
    ("index_present", "provider", "reason"),
    [
        (False, "default", "no_index"),
        (True, None, "provider_unavailable"),
        (True, ConceptEmbedder(fail_at={1: ProviderUnavailable("boom")}), "provider_unavailable"),
        (True, ConceptEmbedder(fail_at={1: NetworkDisabled("off")}), "network_disabled"),
        (True, ConceptEmbedder(fail_at={1: BudgetExceeded("spent")}), "budget"),
        (True, ConceptEmbedder(fail_at={1: EmbedTimeout("late")}), "timeout"),
        (True, ProviderUnavailable("no model"), "provider_unavailable"),
    ],
)
def test_degraded_search_is_exactly_the_lexical_one(built_index, index_present, provider, reason):
    ranker = make_ranker(built_index if index_present else None, provider=provider, fusion="rrf")
    lexical = ranker.search("staging rollout", mode="lexical")
    result = ranker.search("staging rollout")
    assert result.degraded == reason
    assert result.ranking == "lexical"
    assert result.hits == lexical.hits and result.hits


def test_lexical_mode_never_embeds(built_index):
    embedder = ConceptEmbedder()
    ranker = make_ranker(built_index, provider=embedder)
    ranker.search("money back", mode="lexical")
    assert embedder.calls == []


def test_slow_embedder_hits_the_query_timeout(built_index):
    class Slow(ConceptEmbedder):
        def embed(self, texts):
            time.sleep(0.5)
            return super().embed(texts)

    ranker = make_ranker(built_index, provider=Slow(), query_timeout_ms=20)
    result = ranker.search("money back")
    assert result.degraded == "timeout" and result.ranking == "lexical"


def test_query_cache(built_index):
    embedder = ConceptEmbedder()
    ranker = make_ranker(built_index, provider=embedder)
    first = ranker.search("refund the customer")
    second = ranker.search("refund the customer")
    assert len(embedder.calls) == 1
    assert first.embedded and not second.embedded and second.embed_tokens == 0
    assert first.hits == second.hits
    for i in range(306):
        ranker.search(f"query number {i}")
    assert len(ranker.query_cache) <= 256


def test_stale_item_is_flagged_and_ranks_lexically(built_index):
    skills = edit(refund_catalog(), "issue-refund", description="Reimburse a customer, including partial credit")
    ranker = make_ranker(built_index, skills=skills, fusion="rrf")
    result = ranker.search("reimburse customer")
    flagged = [h.name for h in result.hits if h.stale_vector]
    assert flagged == ["issue-refund"]
    hit = next(h for h in result.hits if h.name == "issue-refund")
    assert hit.vector_rank == 0 and hit.lexical_rank == 1
    assert ranker.index_info()["stale_items"] == 1


def test_exact_pin_in_hybrid_but_not_in_vector_mode(built_index):
    query = "use the deploy-staging skill to handle a chargeback dispute from a bank"
    ranker = make_ranker(built_index, fusion="rrf")
    assert ranker.search(query).hits[0].name == "deploy-staging"
    vector = ranker.search(query, mode="vector")
    assert vector.hits[0].name == "dispute-charge"
    sims = {h.name: h.vector_sim for h in vector.hits}
    assert sims["dispute-charge"] == 0.832096 and sims["deploy-staging"] == 0.555063


def test_vector_mode_scores_by_cosine(built_index):
    result = make_ranker(built_index).search("reimburse", mode="vector")
    assert result.ranking == "vector"
    top = result.hits[0]
    assert top.name == "issue-refund" and top.score == top.vector_sim and top.lexical_rank == 0


def test_vector_mode_appends_stale_items_lexically(built_index):
    skills = edit(refund_catalog(), "issue-refund", description="Reimburse a customer, including partial credit")
    result = make_ranker(built_index, skills=skills).search("reimburse customer", mode="vector")
    assert result.ranking == "vector"
    last = result.hits[-1]
    assert last.name == "issue-refund" and last.stale_vector and last.vector_rank == 0 and last.lexical_rank == 1
    assert last.score == 0


def test_every_item_stale_degrades_without_embedding(built_index):
    skills = [replace(s, description=s.description + " (edited)") for s in refund_catalog()]
    embedder = ConceptEmbedder()
    result = make_ranker(built_index, skills=skills, provider=embedder).search("reimburse customer", mode="vector")
    assert result.degraded == "no_index" and result.ranking == "lexical"
    assert embedder.calls == []


def test_role_scope_excludes_skills(built_index):
    ranker = make_ranker(built_index, roles={"ops": ("deploy-staging", "dispute-charge", "git-workflow")})
    assert "issue-refund" not in ranker.search("money back", role="ops").names
    assert ranker.search("money back").names[0] == "issue-refund"


def test_auto_fusion(built_index):
    query = "customer wants money back"
    fresh = make_ranker(built_index)
    result = fresh.search(query)
    assert result.ranking == "vector" and result.hits[0].name == "issue-refund" and result.degraded is None
    assert make_ranker(built_index, fusion="rrf").search(query).ranking == "hybrid"
    assert make_ranker(built_index, fusion="weighted").search(query).ranking == "hybrid"
    skills = edit(refund_catalog(), "deploy-staging", description="Roll it out")
    stale = make_ranker(built_index, skills=skills).search(query)
    assert stale.ranking == "hybrid" and stale.degraded is None
    pinned = "customer wants money back, use deploy-staging"
    assert fresh.search(pinned, mode="vector").hits[0].name == "issue-refund"
    auto = fresh.search(pinned)
    assert auto.ranking == "vector" and auto.hits[0].name == "deploy-staging"
    sims = {h.name: h.vector_sim for h in fresh.search(pinned, mode="vector").hits}
    assert sims["issue-refund"] == 0.831933 and sims["deploy-staging"] == 0.555136


def test_abstention(built_index):
    vec = make_ranker(built_index, vector_min_sim=0.5)
    weather = vec.search("weather today", mode="vector")
    assert weather.hits == () and weather.abstained and weather.ranking == "vector"
    assert weather.top_sim == 0.059892 and weather.degraded is None
    assert vec.search("money back", mode="vector").hits
    auto = vec.search("weather today")
    assert auto.abstained and auto.ranking == "vector" and auto.top_sim > 0
    rrf = make_ranker(built_index, vector_min_sim=0.5, fusion="rrf").search("weather today")
    assert rrf.abstained and rrf.ranking == "hybrid" and rrf.degraded is None
    plain = make_ranker(built_index).search("weather today", mode="vector")
    assert plain.hits and not plain.abstained
    git = make_ranker(built_index, vector_min_sim=0.99, fusion="rrf").search("git")
    assert git.hits[0].name == "git-workflow" and not git.abstained
    skills = edit(refund_catalog(), "deploy-staging", description="Roll it out")
    stale = make_ranker(built_index, skills=skills, vector_min_sim=0.5).search("entirely", mode="vector")
    assert stale.abstained and stale.hits == ()


def test_rrf_scores_and_ranks_are_reported(built_index):
    result = make_ranker(built_index, fusion="rrf").search("deploy staging rollout")
    top = result.hits[0]
    assert top.name == "deploy-staging"
    assert top.lexical_rank == 1 and top.vector_rank == 1
    assert top.score == round(1 / 61 + 1 / 61, 9)


def test_warm_queries_embeds_in_batches_and_feeds_the_search(built_index):
    embedder = ConceptEmbedder(max_batch=2)
    ranker = make_ranker(built_index, provider=embedder)
    queries = [f"money back {i}" for i in range(300)] + ["money back 0"]
    assert ranker.warm_queries(queries) == 300
    assert embedder.call_sizes == [2] * 150
    for q in queries:
        assert not ranker.search(q).embedded
    assert len(embedder.calls) == 150


def test_warm_queries_embeds_each_distinct_query_once_shortest_first():
    class Counting(ConceptEmbedder):
        def count_tokens(self, texts):
            return [len(t.split()) for t in texts]

    embedder = Counting(max_batch=4)
    index = build_index(plan_build(refund_catalog(), None, provider=embedder), embedder).index
    embedder.calls.clear()
    ranker = make_ranker(index, provider=embedder)
    queries = ["refund a duplicate charge now", "refund", "money back", "refund", "deploy to staging please"]
    assert ranker.warm_queries(queries) == 4
    sent = [text for call in embedder.calls for text in call]
    assert sent == ["refund", "money back", "deploy to staging please", "refund a duplicate charge now"]
