"""Every key of the project config is classified once: it steers ranking (a change is listed among a pull
request's gate changes), it does not (with the reason), or it is the ``[validate]`` gate itself."""

from __future__ import annotations

from skillsift.config.ranking import GATE_TABLE, NOT_RANKING, RANKING, ranking_values
from skillsift.config.tables import PROJECT, document_rule


def _paths(rule, prefix: str = "") -> list[str]:
    """Every declared key path of a config rule; a free table (roles) is ``table.*``."""
    out = []
    for key, sub in (rule.keys or {}).items():
        path = f"{prefix}.{key}" if prefix else key
        if prefix and (sub.kind != "table" or not sub.keys):
            out.append(path)
        elif sub.keys:
            out += _paths(sub, path) if not prefix else [path]
        elif sub.kind == "table":
            out.append(f"{path}.*")
        else:  # a top-level value that is no table ([[sources]])
            out.append(path)
    if rule.values is not None and prefix:
        out.append(f"{prefix}.*")
    return out


def test_every_project_key_is_classified_exactly_once():
    keys = _paths(PROJECT)
    assert "search.example_weight" in keys and "roles.*" in keys and "embeddings.model" in keys
    gate = {k for k in keys if k.startswith(GATE_TABLE + ".")}
    rest = [k for k in keys if k not in gate]
    unclassified = [k for k in rest if k not in RANKING and k not in NOT_RANKING]
    assert unclassified == [], f"classify these keys in skillsift/config/ranking.py: {unclassified}"
    assert not set(RANKING) & set(NOT_RANKING)
    assert sorted(set(RANKING) | set(NOT_RANKING)) == sorted(rest)  # nothing classified that is not a key
    assert len(RANKING) == len(set(RANKING))


def test_an_ai_rulez_document_has_the_same_keys():
    ai = _paths(document_rule(("search",), ai_rulez=True))
    extra = [k for k in ai if k not in _paths(PROJECT)]
    assert extra == ["search.embeddings"]  # read as [embeddings] by ranking_values
    assert ranking_values({"search": {"embeddings": {"model": "m", "command": ["x"]}, "fusion": "rrf"}}) == {
        "search.fusion": "rrf", "embeddings.model": "m", "embeddings.command": ["x"]}


def test_ranking_values_expands_free_tables_and_skips_other_keys():
    doc = {"search": {"example_weight": 0.9, "batch_size": 8}, "roles": {"b": {"skills": ["x"]}, "a": {"skills": []}},
           "validate": {"min": "top1=0.5"}, "secrets": {"patterns": []}}
    assert ranking_values(doc) == {"search.example_weight": 0.9, "roles.a": {"skills": []},
                                   "roles.b": {"skills": ["x"]}}
    assert ranking_values(None) == {} and ranking_values({"search": "not a table"}) == {}
    assert ranking_values({"sources": [{"name": "a", "path": "x"}]}) == {"sources": [{"name": "a", "path": "x"}]}
