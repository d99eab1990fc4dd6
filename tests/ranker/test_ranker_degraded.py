"""Degraded searches: any reason an embedding error carries reaches the result, with its message and hint."""

from __future__ import annotations

import pytest

from skillsift.catalog.load import catalog_from_skills
from skillsift.config import Config, SearchConfig
from skillsift.embed.base import EmbedError
from skillsift.index.build import build_index, plan_build
from skillsift.ranker.degraded import Degraded
from skillsift.ranker.search import Ranker
from tests.support.concept_embedder import ConceptEmbedder, refund_catalog


class HeldBack(EmbedError):
    """A reason the ranker does not know: a gate in front of the provider refused the query."""

    reason = "held_back"


class Gate(ConceptEmbedder):
    def embed(self, texts):
        if any("password" in t for t in texts):
            raise HeldBack("the query was not sent", hint="remove the password from the query")
        return super().embed(texts)


@pytest.fixture(scope="module")
def index():
    embedder = ConceptEmbedder()
    return build_index(plan_build(refund_catalog(), None, provider=embedder), embedder).index


@pytest.mark.parametrize("timeout_ms", [0, 5000])  # called directly, and on the worker thread
def test_a_reason_from_the_provider_layer_reaches_the_result(index, timeout_ms):
    config = Config(search=SearchConfig(mode="hybrid"))
    ranker = Ranker(catalog_from_skills(refund_catalog()), config, index=index, provider=Gate(),
                    query_timeout_ms=timeout_ms)
    lexical = ranker.search("refund my password", mode="lexical")
    held = ranker.search("refund my password")
    assert (held.ranking, held.degraded) == ("lexical", "held_back")
    assert held.notes == ("the query was not sent", "hint: remove the password from the query")
    assert held.hits == lexical.hits
    assert ranker.search("refund the customer").degraded is None  # the next query is sent


def test_degraded_of_any_error():
    assert Degraded.of(HeldBack("m")) == Degraded("held_back", ("m",))
    assert Degraded.of(ValueError("boom")) == Degraded("provider_unavailable", ("boom",))
