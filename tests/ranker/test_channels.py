"""``--explain``: each channel's share of a blend or zscore score (description, known requests, lexical)."""

from __future__ import annotations

import json

import jsonschema
import pytest

from skillsift.ranker.fusion import BlendRequest, channel_shares
from skillsift.render.search import render_search_json, render_text
from tests.ranker.reference import make_world, rankers
from tests.ranker.test_fusion_differential import _known_world
from tests.support.cli import load_schema


def _request(fusion="blend", bonus=0.12, weight=0.0):
    return BlendRequest("q", 50, bonus, None, lambda _q, _ids: None, fusion=fusion, lexical_weight=weight)


def test_blend_shares_split_the_score():
    shares = dict(channel_shares(_request(), 0.55, 3.0, True, [6.0, 3.0], lift=0.1))
    assert shares == {"description": pytest.approx(0.39), "requests": 0.1, "lexical": 0.06}
    assert dict(channel_shares(_request(), 0.3, None, False, [6.0])) == {"vector": 0.3, "lexical": 0.0}


def test_zscore_lexical_share_is_the_weighted_z_score_in_the_cut_only():
    cut = [9.0, 5.0, 1.0]  # z-scores +1.2247, 0, -1.2247
    inside = dict(channel_shares(_request("zscore", weight=0.5), 2.0, 9.0, True, cut))
    assert inside["lexical"] == pytest.approx(0.5 * 1.224745, abs=1e-6)
    assert inside["vector"] + inside["lexical"] == pytest.approx(2.0, abs=2e-6)
    outside = dict(channel_shares(_request("zscore", weight=0.5), 1.5, 1.0, False, cut))
    assert outside == {"vector": 1.5, "lexical": 0.0}  # a match past the cut adds nothing


@pytest.mark.parametrize("fusion", ["blend", "zscore"])
def test_explained_hits_carry_shares_that_add_up_and_plain_hits_do_not(fusion):
    world = make_world(7, n=150, shared=0.5, queries=6)
    new, _ = rankers(world, fusion=fusion, candidates=20)
    for text in world[2].table:
        plain = new.search(text, limit=5)
        explained = new.search(text, limit=5, explain=True)
        assert [h.name for h in plain.hits] == [h.name for h in explained.hits]
        assert all(h.channels is None for h in plain.hits)
        for h in explained.hits:
            shares = dict(h.channels)
            assert set(shares) == {"vector", "lexical"}
            assert sum(shares.values()) == pytest.approx(h.score, abs=3e-6)
            if not h.lexical_rank:
                assert shares["lexical"] == 0.0
        doc = json.loads(render_search_json(explained))
        assert all("channels" in r for r in doc["results"])
        jsonschema.validate(doc, load_schema("search.v1.json"))
        assert "channels: vector" in render_text(explained, explain=True)


def test_zscore_requests_share_is_the_lift_over_the_spread():
    # the vector z-score (s - mean) / sd of a similarity s = own + lift splits into (own - mean) / sd and lift / sd
    shares = dict(channel_shares(_request("zscore", weight=0.5), 2.0, None, False, [9.0], lift=0.02, spread=0.04))
    assert shares == {"description": 1.5, "requests": 0.5, "lexical": 0.0}
    flat = dict(channel_shares(_request("zscore"), 0.0, None, False, [9.0], lift=0.02, spread=0.0))
    assert flat == {"description": 0.0, "requests": 0.0, "lexical": 0.0}  # equal similarities: every z-score 0
    assert set(dict(channel_shares(_request("zscore"), 1.0, None, False, [9.0], lift=0.02))) == {"vector", "lexical"}


@pytest.mark.parametrize("fusion", ["blend", "zscore"])
def test_known_requests_get_their_own_share(fusion):
    world, pairs, rows = _known_world(2, n=150)
    new, _ = rankers(world, fusion=fusion, candidates=10)
    new.vectors.use_examples(pairs, extra=rows)
    lifted = 0
    for text in world[2].table:
        for h in new.search(text, limit=5, explain=True).hits:
            shares = dict(h.channels)
            assert set(shares) == {"description", "requests", "lexical"}
            assert shares["requests"] >= 0.0
            assert sum(shares.values()) == pytest.approx(h.score, abs=3e-6)
            lifted += shares["requests"] > 0
    assert lifted  # some hit was lifted by its requests
