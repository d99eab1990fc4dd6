"""SK201-SK204: the rules of the agents' own fields."""

from __future__ import annotations

import random

from skillsift.catalog.agents import PROFILES
from skillsift.checks import agent_fields
from skillsift.validators.parsed import Parsed


def test_a_frontmatter_setting_no_field_of_the_rules_has_no_finding():
    """run_paths skips a skill whose frontmatter sets no field any targeted agent's rules name: check_fields
    finds nothing there, on random frontmatter of rule fields, other keys and odd values, and the fields it
    does set give findings (the premise is not vacuous)."""
    with_rules = [agent for agent in PROFILES if agent.field_rules]
    assert with_rules
    fields = sorted({rule.field for agent in with_rules for rule in agent.field_rules})
    assert "context" in fields
    keys = [*fields, "name", "description", "license", "metadata", "version", "tags"]
    values = [True, False, "true", "fork", "opus", "x", "", None, 3, ["Read", "Bogus"], {"PreToolUse": []},
              {"Nope": 1}, "Read Bash(git:*) Nope"]
    rng = random.Random(5)
    skipped = found = 0
    for _ in range(3000):
        front = {key: rng.choice(values) for key in rng.sample(keys, rng.randint(0, 5))}
        parsed = Parsed(path="skills/a/SKILL.md", text="", front=front, raw="", raw_line=2,
                        body=rng.choice(("", "Do it.", "one two three four five six seven eight nine")),
                        body_line=5, lines={})
        out = [d for agent in with_rules for d in agent_fields.check_fields(parsed, agent.field_rules, agent.name)]
        if frozenset(fields).isdisjoint(front):
            assert out == [], front
            skipped += 1
        found += bool(out)
    assert skipped > 300 and found > 1000
