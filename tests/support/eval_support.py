"""Shared by the evaluation tests (no tests here): a scripted ranker, the schema check and case files."""

from __future__ import annotations

import json
from functools import lru_cache

from skillsift.ranker.result import Hit, SearchResult
from tests.support.cli import load_schema


@lru_cache(maxsize=1)
def _validator():
    import jsonschema

    schema = load_schema("search-eval.v1.json")
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def validate_eval_json(doc) -> dict:
    """Validate a result document (dict or JSON text) against search-eval.v1; return the dict."""
    if isinstance(doc, str):
        doc = json.loads(doc)
    errors = sorted(_validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)
    return doc


class ScriptedRanker:
    """Returns, per mode and query, a fixed ranking [(name, score), ...].

    ``degraded``/``top_sim``/``abstained`` map (mode, query) to what the search reports;
    ``roles`` maps a role to the names it serves (hits outside it are dropped).
    """

    def __init__(self, rankings, *, degraded=None, top_sim=None, abstained=None, roles=None):
        self.rankings = rankings
        self.degraded = degraded or {}
        self.top_sim = top_sim or {}
        self.abstained = abstained or {}
        self.roles = roles or {}
        self.calls = []

    def search(self, query, limit=None, mode=None, *, role=None):
        self.calls.append((query, limit, mode, role))
        mode = mode or "lexical"
        table = self.rankings.get(mode, self.rankings.get("lexical", {}))
        if self.degraded.get((mode, query)):
            table = self.rankings.get("lexical", {})
        entries = list(table.get(query, ()))
        if role is not None:
            entries = [(n, s) for n, s in entries if n in self.roles[role]]
        if self.abstained.get((mode, query)):
            entries = []
        hits = tuple(Hit(name=n, score=s) for n, s in entries)
        if limit is not None:
            hits = hits[:limit]
        degraded = self.degraded.get((mode, query))
        return SearchResult(
            query=query,
            ranking="lexical" if degraded else mode,
            hits=hits,
            degraded=degraded,
            top_sim=self.top_sim.get((mode, query), 0.0),
            abstained=bool(self.abstained.get((mode, query))),
        )


# The reference's evalEnv catalog and the lexical rankings its queries get (names, BM25F-like scores).
EVAL_ENV_NAMES = ("deploy-staging", "deploy-prod", "refund-policy", "git-workflow")
EVAL_ENV_LEXICAL = {
    "customer wants money back": [("refund-policy", 2.1)],
    "deploy to staging": [("deploy-staging", 2.4), ("deploy-prod", 0.4)],
    "deploy": [("deploy-staging", 0.9), ("deploy-prod", 0.7)],
    "zebra": [],
    "weather tomorrow": [],
    "deploy service": [("deploy-prod", 2.011325), ("deploy-staging", 1.942032)],
    "deploy to production": [("deploy-prod", 1.5), ("deploy-staging", 0.5)],
    "weather": [],
    "deploy refund": [("deploy-staging", 0.9), ("deploy-prod", 0.7), ("refund-policy", 0.6)],
}

METRICS_CASES = """\
version: 1
k: 2
cases:
  - id: refund
    query: customer wants money back
    expect: [refund-policy]
    tags: [paraphrase]
  - id: staging
    query: deploy to staging
    expect: [deploy-staging]
  - id: second
    query: deploy
    expect: [deploy-prod]
  - id: miss
    query: zebra
    expect: [git-workflow]
  - id: neg
    query: weather tomorrow
    expect: []
    tags: [negative]
"""


# A case file with ten mistakes (the case-file tests and the eval command report them all).
TEN_MISTAKES = """\
version: 2
colour: blue
cases:
  - id: one
    query: ""
    expect: [a, a]
  - id: one
    query: fine
    expect: [{id: b, grade: 12}]
    avoid: [b]
    nope: true
  - query: no id here
    expect: [{id: c, weight: 1}]
"""
