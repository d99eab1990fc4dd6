"""SearchResult and Hit: the fast constructor equals the dataclass one."""

from __future__ import annotations

from dataclasses import replace

import pytest


def test_a_lexical_result_made_at_once_equals_the_dataclass_one():
    from dataclasses import FrozenInstanceError, asdict

    from skillsift.ranker.result import Hit, SearchResult

    hits = (Hit("deploy", 1.5, "Deploy it", lexical_rank=1), Hit("review", 0.25, lexical_rank=2))
    for stopword_only in (False, True):
        fast = SearchResult.lexical("ship it", hits, stopword_only)
        slow = SearchResult(query="ship it", ranking="lexical", hits=hits, stopword_only=stopword_only)
        assert fast == slow and repr(fast) == repr(slow) and asdict(fast) == asdict(slow)
        assert list(vars(fast)) == list(vars(slow))  # same attribute order: same JSON and pickles
        with pytest.raises(FrozenInstanceError):
            fast.query = "other"  # type: ignore[misc]
        assert replace(fast, hits=hits[:1]).hits == hits[:1]
