"""The exact-id pin (reference §3.7)."""

from __future__ import annotations

import pytest

from skillsift.ranker.model.pin import exact_pin, pin_tokens

IDS = ["deploy", "deploy-staging", "stage", "test"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("use the deploy-staging skill", "deploy-staging"),
        ("Deploy Staging please", "deploy-staging"),
        ("how do I deploy", None),
        ("use the deploy skill", "deploy"),
        ("the skill deploy please", "deploy"),
        ("staging deployments", None),
        ("nothing relevant here", None),
        ("write the failing test first", None),
        ("use the test skill", "test"),
    ],
)
def test_reference_pin_table(query, expected):
    assert exact_pin(query, IDS) == expected
    assert exact_pin(query, list(reversed(IDS))) == expected  # candidate order does not matter


def test_pin_tokens_split_on_ascii_only():
    assert pin_tokens("Deploy_Staging v2") == ["deploy", "staging", "v2"]
    assert pin_tokens("  --a--b  ") == ["a", "b"]
    assert pin_tokens("café-bar") == ["café", "bar"]
    assert pin_tokens("naïve—tool") == ["naïve—tool"]  # non-ASCII characters stay inside tokens
    assert pin_tokens("İNDEX") == ["index"]  # simple lowercasing, one code point each
    assert pin_tokens("") == []


def test_multi_word_id_needs_its_words_in_sequence():
    assert exact_pin("deploy to staging", ["deploy-staging"]) is None
    assert exact_pin("staging deploy", ["deploy-staging"]) is None
    assert exact_pin("please DEPLOY__STAGING.", ["deploy-staging"]) == "deploy-staging"
    assert exact_pin("redeploy staging", ["deploy-staging"]) is None  # whole words only


def test_single_word_id_pins_only_next_to_skill():
    assert exact_pin("build skill", ["build"]) == "build"
    assert exact_pin("skill: build", ["build"]) == "build"
    assert exact_pin("build the skill", ["build"]) is None
    assert exact_pin("skills build", ["build"]) is None
    assert exact_pin("build", ["build"]) is None


def test_longest_joined_id_wins_then_smaller_id():
    ids = ["deploy", "deploy-staging", "deploy-staging-eu"]
    assert exact_pin("use the deploy skill: deploy staging eu", ids) == "deploy-staging-eu"
    # "a-b" and "a_b" join to the same "a b": equal length, the smaller id wins.
    assert exact_pin("run a b now", ["a_b", "a-b"]) == "a-b"
    assert exact_pin("run a b now", ["a_b"]) == "a_b"
    # Length is measured in UTF-8 bytes: "é x" (4 bytes) beats "e x" (3 bytes) though both have
    # 3 characters, and ties with "ab x" (4 bytes), which is the smaller id.
    assert exact_pin("é x e x", ["e-x", "é-x"]) == "é-x"
    assert exact_pin("é x ab x", ["é-x", "ab-x"]) == "ab-x"


def test_only_candidates_pin_and_empty_ids_never_do():
    assert exact_pin("use the deploy-staging skill", ["deploy"]) is None
    assert exact_pin("use the deploy-staging skill", []) is None
    assert exact_pin("use the --- skill", ["---", ""]) is None


def test_an_ids_pin_form_is_worked_out_once_across_queries():
    from skillsift.ranker.model import pin

    ids = ["deploy-staging", "build", "issue_refund"]
    assert exact_pin("please deploy staging now", ids) == "deploy-staging"
    before = pin._id_form.cache_info().hits
    assert exact_pin("use the build skill", ids) == "build"
    assert pin._id_form.cache_info().hits - before == len(ids)


def test_the_pin_index_answers_as_exact_pin_on_random_catalogs_and_queries():
    import random

    from skillsift.ranker.model.pin import PinIndex

    rng = random.Random(16)
    words = ["deploy", "staging", "skill", "test", "build", "café", "v2", "Skill", "DEPLOY", "a", "x_y"]
    seps = [" ", "-", "_", "  ", ".", "--"]
    decided = 0
    for _ in range(300):
        ids = list(dict.fromkeys(rng.choice(seps).join(rng.choice(words) for _ in range(rng.randint(1, 4)))
                                 for _ in range(rng.randint(1, 25))))
        ids += ["___", ""]  # no pin tokens: never pin
        index = PinIndex(ids)
        for _ in range(10):
            query = rng.choice(seps).join(rng.choice(words) for _ in range(rng.randint(0, 9)))
            candidates = [i for i in ids if rng.random() < 0.7]
            expected = exact_pin(query, candidates)
            assert index.pin(query, set(candidates)) == expected, (query, candidates)
            decided += expected is not None
    assert decided > 200  # the queries name ids often enough to test the choice among several


def test_a_query_too_long_for_the_pin_index_is_answered_over_the_candidates(monkeypatch):
    """A very long id and a long query would make the word runs quadratic: exact_pin answers instead."""
    import random

    from skillsift.ranker.model import pin
    from skillsift.ranker.model.pin import PinIndex

    long_id = "-".join(["a"] * 3000)
    ids = [long_id, "deploy-staging", "a-a", "build"]
    index = PinIndex(ids)
    query = " ".join(["a"] * 5000) + " deploy staging"
    assert index._named(query) is None  # over the budget: no runs are joined
    assert index.pin(query, set(ids)) == exact_pin(query, ids) == long_id
    assert index.pin_position(query, {1, 2}) == 1  # "deploy staging" is longer than "a a"
    assert index.pin_position(query, {2, 3}) == 2  # "build" is not called a skill
    rng = random.Random(4)
    monkeypatch.setattr(pin, "RUN_BUDGET", 0)  # every query takes the candidates' way
    for _ in range(200):
        query = " ".join(rng.choice(["a", "deploy", "staging", "build", "skill"]) for _ in range(rng.randint(0, 8)))
        chosen = [i for i in range(len(ids)) if rng.random() < 0.6]
        expected = exact_pin(query, [ids[i] for i in chosen])
        assert index.pin(query, {ids[i] for i in chosen}) == expected
        assert index.pin_position(query, set(chosen)) == (None if expected is None else ids.index(expected))
