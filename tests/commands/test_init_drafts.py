"""The drafts of ``skillsift init``: one for every skill, never a bare lead-in, sentences split with
abbreviations in mind (docs/init.md, "The draft cases")."""

from __future__ import annotations

import re

import pytest
import yaml

from skillsift.catalog.frontmatter import split_frontmatter
from skillsift.usecases.starter.drafts import (
    fallback_draft,
    first_clause,
    sentences,
    skill_drafts,
    unique_queries,
    without_lead_in,
)
from tests.conftest import ACME, corpora

#: What a draft must never be: a lead-in with nothing after it.
BARE = re.compile(r"^\W*(?:(?:this|the) skill\b.*\b(?:used|applied|invoked)|(?:use|apply|invoke)\b(?: this skill| it)?)"
                  r"(?: (?:when(?:ever)?|for|if|before|after))?(?: (?:working|dealing) with| the user (?:asks|wants)"
                  r"(?: to)?)?\W*$", re.IGNORECASE)
LEAD = re.compile(r"^(?:this skill should be used|apply this skill|use this skill) ", re.IGNORECASE)


def _drafts_of(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    block = split_frontmatter(text)
    try:
        meta = yaml.safe_load(block.raw) if block.closed else None
    except yaml.YAMLError:
        meta = None
    if not isinstance(meta, dict):
        return None
    name = str(meta.get("name") or path.parent.name)
    return skill_drafts(name, str(meta.get("description") or ""), block.body, block.body_line, str(path))


def _check_every_skill(paths):
    checked = 0
    for path in paths:
        drafts = _drafts_of(path)
        if drafts is None:
            continue  # a frontmatter that does not parse: init drafts nothing from it (SK001)
        checked += 1
        assert drafts, path
        for draft in drafts:
            assert not BARE.match(draft.query), (path, draft.query)
            assert not LEAD.match(draft.query), (path, draft.query)
            assert draft.query.strip(), path
    return checked


def test_every_skill_of_the_example_gets_a_draft():
    assert _check_every_skill(sorted((ACME / ".claude" / "skills").glob("*/SKILL.md"))) == 27


@pytest.mark.slow
def test_every_skill_of_the_real_corpora_gets_a_draft_and_none_is_a_bare_lead_in():
    paths = sorted(corpora().glob("*/*/SKILL.md"))
    assert len(paths) > 2000
    assert _check_every_skill(paths) > 2000


def test_sentences_end_where_a_sentence_ends_not_at_an_abbreviation():
    assert sentences("Files taxes in the U.S. and the U.K. only. Use e.g. for VAT. Then stop!") == [
        "Files taxes in the U.S. and the U.K. only.", "Use e.g. for VAT.", "Then stop!"]
    assert sentences("Compare vs. last year, i.e. the baseline. Done") == [
        "Compare vs. last year, i.e. the baseline.", "Done"]
    assert sentences("Version 2.5 ships. next line stays.") == ["Version 2.5 ships. next line stays."]


def test_a_use_when_sentence_with_an_abbreviation_is_drafted_whole():
    [draft] = skill_drafts("us-tax", "File sales tax. Use when a customer in the U.S. asks for an invoice.", "", 0,
                           "s/SKILL.md")
    assert draft.query == "a customer in the U.S. asks for an invoice"


@pytest.mark.parametrize(("body", "expected"), [
    ("## When to use\n\nApply this skill when:\n- a build fails on CI\n- the cache is stale\n",
     ["a build fails on CI", "the cache is stale"]),
    ("## When to Use\n\nThis skill should be used when working with protein structures in scenarios such as:\n\n"
     "- Retrieving predictions by UniProt ID\n",
     ["working with protein structures", "Retrieving predictions by UniProt ID"]),
    ("## When to use\n\nThis skill should be used when:\n- Working with the REST API of Benchling\n",
     ["Working with the REST API of Benchling"]),
])
def test_lead_ins_are_taken_off_and_a_bare_one_is_no_draft(body, expected):
    drafts = skill_drafts("x", "Does x.", body, 5, "x/SKILL.md")
    assert [d.query for d in drafts] == expected


def test_a_skill_without_use_when_gets_its_description_first_clause_or_its_name():
    description = ("This skill should be used when working with annotated data matrices in Python; it covers "
                   "h5ad files.")
    assert first_clause(description) == "working with annotated data matrices in Python"
    [draft] = skill_drafts("brainstorming", "You MUST use this before any creative work - creating features, "
                           "building components.", "", 0, "b/SKILL.md")
    assert draft.query == "any creative work - creating features, building components"
    assert fallback_draft("brainstorming", "Ideas.", "b/SKILL.md").query == "brainstorming"
    assert fallback_draft("pdf-to-text", "", "p/SKILL.md").source == "p/SKILL.md (name)"
    assert fallback_draft("pdf-to-text", "", "p/SKILL.md").query == "pdf to text"
    assert without_lead_in("Apply this skill when:") == ""
    assert without_lead_in("This skill should be used when working with") == ""


def test_a_skill_whose_only_draft_another_skill_shares_keeps_one_from_its_name():
    one = skill_drafts("alpha-tool", "Process data files quickly.", "", 0, "a/SKILL.md")
    two = skill_drafts("beta-tool", "Process data files quickly.", "", 0, "b/SKILL.md")
    kept = unique_queries([*one, *two])
    assert [(d.skill, d.query, d.source) for d in kept] == [("alpha-tool", "alpha tool", "a/SKILL.md (name)"),
                                                            ("beta-tool", "beta tool", "b/SKILL.md (name)")]
