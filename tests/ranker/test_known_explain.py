"""--explain with known requests: the requests are screened once per search, and the closest request
shown is the one the exact cosines give."""

from __future__ import annotations

import numpy as np
import pytest

from skillsift.ranker.examples import ExampleRows
from skillsift.ranker.request_screen import RequestScreen
from skillsift.ranker.screens import exact_dots
from tests.ranker.test_ranker_modes import built_index, make_ranker  # noqa: F401 (a fixture)
from tests.support.concept_embedder import ConceptEmbedder

REQUESTS = [("issue-refund", "money back for my order"), ("issue-refund", "refund a purchase"),
            ("dispute-charge", "the bank charged me twice"), ("deploy-staging", "ship the build to staging")]


@pytest.mark.parametrize("fusion", ["blend", "rrf"])
def test_explain_reads_the_cosines_the_ranking_computed(built_index, monkeypatch, fusion):  # noqa: F811
    ranker = make_ranker(built_index, fusion=fusion)
    vectors = ranker.vectors
    texts = [t for _, t in REQUESTS]
    vectors.examples = ExampleRows.of(ConceptEmbedder().embed(texts), [vectors.position(n) for n, _ in REQUESTS],
                                      texts)
    plain = ranker.search("money back", explain=False)
    calls = []
    screen = RequestScreen.screen

    def counted(self, *args, **kwargs):
        calls.append(args)
        return screen(self, *args, **kwargs)

    monkeypatch.setattr(RequestScreen, "screen", counted)
    result = ranker.search("money back", explain=True)
    assert len(calls) == 1  # one screen of the requests; --explain reads the hits' requests exactly
    assert [(h.name, h.score) for h in result.hits] == [(h.name, h.score) for h in plain.hits]
    ex = vectors.examples
    q = ranker.embedder.embed("money back", vectors.dims).vector
    cos = exact_dots(ex.matrix, np.arange(len(ex)), q)  # the definition's cosines
    for hit in result.hits:
        assert hit.known_request == ex.closest(cos, vectors.position(hit.name))
    refund = next(h for h in result.hits if h.name == "issue-refund")
    assert refund.known_request is not None and refund.known_request[0] in texts[:2]
    assert np.isfinite(refund.known_request[1])
