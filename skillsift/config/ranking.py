"""Which config keys steer ranking, declared once: every key of the project config is in one list.

``skillsift ci`` ranks the base with the head's config, so a change to a key that steers
ranking (a weight, the fusion, a role, the provider) moves nothing in the comparison: both
sides use the new value.  Each such change is therefore listed as a change to the gate
(docs/github-action.md, "Changes to the gate").  :data:`RANKING` names those keys,
:data:`NOT_RANKING` every other key with the reason it does not steer ranking, and the
``[validate]`` table (:data:`GATE_TABLE`) is the gate itself, listed key by key.  A test
walks the project config's rules (:mod:`.tables`) and fails on a key in no list or in two,
so a new setting is classified when it is added.  The ``[judge]`` keys count as steering: every
one of them (the agent, its command, the answer cache, the call budget, the timeout) changes
which of the judge gate's cases are answered and compared.

A path ``table.key`` names one key; ``table.*`` every key of a free table (each role); a
path without a dot a top-level value that is not a table (``[[sources]]``, a list).
"""

from __future__ import annotations

from collections.abc import Mapping

GATE_TABLE = "validate"

#: The keys whose value changes what a search ranks, or how, or what the agent judge answers (the judge
#: gate of ``skillsift ci`` compares its cached choices: docs/judge.md).
RANKING = (
    "search.mode", "search.fusion", "search.dtype", "search.fields", "search.body_chars", "search.rrf_k",
    "search.weights", "search.vector_min_sim", "search.candidates", "search.query_timeout_ms", "search.index_dir",
    "search.index_body", "search.long_query", "search.long_query_words", "search.examples", "search.example_weight",
    "search.mnz_bonus", "search.mnz_depth", "search.request_lexical_weight",
    "embeddings.provider", "embeddings.model", "embeddings.command", "embeddings.pass_env",
    "catalog.skills", "roles.*", "sources",
    "judge.command", "judge.pass_env", "judge.agent", "judge.timeout_seconds", "judge.cache", "judge.fetch_in_ci",
    "judge.max_calls",
)

#: Every other key of the project config, and why it steers nothing.
NOT_RANKING = {
    "search.batch_size": "texts per embedding call while building the index; the vectors are the same",
    "search.log_queries": "records queries on the user's machine (user scope only)",
    "embeddings.base_url": "user scope only: a repository's value is ignored",
    "embeddings.api_key_env": "user scope only: a repository's value is ignored",
    "embeddings.allow_network": "user scope only: a repository's value is ignored",
    "embeddings.max_calls": "a budget: a run over it stops, it does not rank otherwise",
    "embeddings.max_tokens": "a budget: a run over it stops, it does not rank otherwise",
    "embeddings.max_cost_usd": "a budget: a run over it stops, it does not rank otherwise",
    "embeddings.price_input_per_mtok": "user scope only: the price used to estimate spend",
    "embeddings.timeout_seconds": "how long one request to the endpoint may take",
    "embeddings.max_retries": "retries of a failed request; the vectors are the same",
    "embeddings.cache": "the on-disk response cache; the vectors are the same",
    "secrets.patterns": "extra secret patterns of validation (AR001), not ranking",
}


def ranking_values(doc: Mapping | None) -> dict[str, object]:
    """``path -> value`` of every :data:`RANKING` key ``doc`` (a config document) sets.

    ``table.*`` gives one entry per key of that table (``roles.oncall``).  An ai-rulez
    document's ``[search.embeddings]`` counts as ``[embeddings]``.
    """
    if not isinstance(doc, Mapping):
        return {}
    tables = {name: value for name, value in doc.items() if isinstance(value, Mapping)}
    search: Mapping = tables.get("search", {})
    if "embeddings" not in tables and isinstance(search.get("embeddings"), Mapping):
        tables["embeddings"] = search["embeddings"]
    out: dict[str, object] = {}
    for path in RANKING:
        if "." not in path:
            if path in doc:
                out[path] = doc[path]
            continue
        table, key = path.split(".", 1)
        values = tables.get(table)
        if not isinstance(values, Mapping):
            continue
        if key == "*":
            for name in sorted(values, key=str):
                out[f"{table}.{name}"] = values[name]
        elif key in values:
            out[path] = values[key]
    return out
