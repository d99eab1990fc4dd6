"""The rules' walk (skillsift.docschema.check) against the walk it replaced, which made every node's
message fields whether or not it had a problem (tests/support/cases_parse_reference.py): the same cleaned
documents and the same problems, in order, for random documents against every shipped table of rules (the
config's, a skill's frontmatter, a cases file), fitting and not."""

from __future__ import annotations

import math
import random

import pytest

from skillsift.casefile.frontmatter import FRONTMATTER
from skillsift.casefile.rules import CASES
from skillsift.config.tables import _TABLES, document_rule
from skillsift.docschema import Context, Nothing, Rule, Written, check
from tests.support import cases_parse_reference as reference

_ALL_FIELDS = "{label}|{where}|{key}|{words}|{choices}|{shape}"
# a rule whose messages name every field, through an "either" (whose fields are its own, not its option's)
SYNTHETIC = Rule("table", keys={
    "n": Rule("either", choices=("a", "b"), options=(
        Rule("int", low=1, high=3, between=True, messages={"between": _ALL_FIELDS}),
        Rule("choice", choices=("x", "y"), messages={"choice": _ALL_FIELDS}),
        Rule("list", items=Rule("string"), min_items=2, messages={"few": _ALL_FIELDS}))),
    "s": Rule("text", nonblank=True, nullable=True, messages={"kind": _ALL_FIELDS}),
    "f": Rule("number", messages={"finite": _ALL_FIELDS}),
    "c": Rule("list", check=lambda value, names, _ctx: [((), "|".join(f"{k}={v}" for k, v in sorted(names.items())))]
              if len(value) == 1 else [])})
RULES = [("synthetic", SYNTHETIC), ("cases", CASES), ("frontmatter", FRONTMATTER),
         ("config", document_rule(tuple(_TABLES))),
         ("ai-rulez", document_rule(tuple(_TABLES), ai_rulez=True))] + sorted(_TABLES.items())
KEYS = ["a", "x y", "0", "mode", "query", "id", "weights", "role", "skills"]


def _scalar(rng: random.Random):
    return rng.choice(["", " ", "text", "hybrid", "lexical", "top1=0.6", "[a-", "SK001", "claude-code", "OPENAI_KEY",
                       "https://example.org", "../out", Written("007"), Written("3"), Nothing("~"), Nothing(""), None,
                       True, False, 0, 1, -2, 10**9, 0.5, -1.5, math.inf, math.nan])


def _value(rule: Rule, rng: random.Random, depth: int = 0):
    """A value for ``rule``: of its kind most of the time, anything else otherwise."""
    if depth > 6 or rng.random() < 0.15:
        return _scalar(rng) if rng.random() < 0.7 else rng.choice([[], {}, [_scalar(rng)], {"k": _scalar(rng)}])
    kind = rule.kind
    if kind == "either":
        return _value(rng.choice(rule.options), rng, depth)
    if kind == "table":
        out = {}
        for key, sub in (rule.keys or {}).items():
            if rng.random() < 0.6:
                out[key] = _value(sub, rng, depth + 1)
        if rule.values is not None:
            for key in rng.sample(KEYS, rng.randrange(0, 3)):
                out[key] = _value(rule.values, rng, depth + 1)
        if rng.random() < 0.2:
            out[rng.choice(KEYS)] = _scalar(rng)
        return out
    if kind == "list":
        items = rule.items
        return [_value(items, rng, depth + 1) if items is not None else _scalar(rng)
                for _ in range(rng.choice([0, 1, 2, 3, 70]) if rng.random() < 0.1 else rng.randrange(0, 4))]
    if kind == "number":
        return rng.choice([1.5, math.inf, -math.inf, math.nan, 3])
    if kind == "choice" and rule.choices:
        return rng.choice(list(rule.choices) + ["", "nope"])
    if kind in ("int", "number"):
        low = 0 if rule.low is None else rule.low
        return rng.choice([low, low - 1, (rule.high or 10) + 1, rule.high or 3, Written("12"), 2.5])
    return _scalar(rng)


def _run(walk, value, rule: Rule):
    context = Context(values={"codes": frozenset({"SK001", "SK002", "AR001"})})
    cleaned, problems = walk(value, rule, label=rng_label(rule), context=context)
    return repr(cleaned), [(p.path, p.message, p.at_key) for p in problems]


def rng_label(rule: Rule) -> str:
    return "" if rule is CASES else "doc"


@pytest.mark.parametrize("name,rule", RULES, ids=[name for name, _rule in RULES])
def test_the_walk_finds_what_it_found(name, rule):
    rng = random.Random(name)
    kinds = 0
    for _ in range(400):
        value = _value(rule, rng)
        got, want = _run(check, value, rule), _run(reference.check, value, rule)
        assert got == want, value
        kinds += bool(want[1])
    assert kinds > 20  # documents with problems, of many rules
