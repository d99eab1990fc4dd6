"""Cross-validated proposals of ``eval --why`` for the field the view reads (skillsift/evaluate/proposals.py)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import jsonschema
import pytest
import yaml

from skillsift.catalog.agents import AgentProfile
from skillsift.catalog.listing import build_listing
from skillsift.catalog.load import read_all_skills
from skillsift.config import load_config
from skillsift.evaluate.proposals import DESCRIPTION, edit_skill, listing_effect, phrases
from tests.conftest import ACME
from tests.support.cli import load_schema, run

SKILLS = {
    "oncall-triage": "Triage a production incident, find the failing service and page its owner.",
    "write-postmortem": "Write the postmortem once an incident is resolved.",
    "deploy-staging": "Deploy a branch or build to the staging environment.",
    "rotate-credentials": "Rotate leaked or expiring credentials and API keys.",
    "issue-refund": "Refund an order in full or in part.",
}
CASES = """\
version: 1
k: 3
cases:
  - {id: lit-triage, query: "triage a production incident", expect: [oncall-triage]}
  - {id: pager-night, query: "the pager went off at night", expect: [oncall-triage]}
  - {id: pager-woke, query: "pager alert woke me up", expect: [oncall-triage]}
  - {id: pager-checkout, query: "pager is screaming about checkout", expect: [oncall-triage]}
  - {id: lit-postmortem, query: "write the postmortem", expect: [write-postmortem]}
  - {id: lit-staging, query: "deploy to staging", expect: [deploy-staging]}
  - {id: lit-rotate, query: "rotate the API keys", expect: [rotate-credentials]}
  - {id: money-back, query: "customer wants money back", expect: [issue-refund]}
"""


@pytest.fixture
def pager(tmp_path) -> Path:
    """Paraphrases that share a word ("pager"): a phrase fitted on some of them carries to the others."""
    for name, description in SKILLS.items():
        path = tmp_path / ".claude" / "skills" / name / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(f"---\nname: {name}\ndescription: {description}\n---\nSteps.\n", encoding="utf-8")
    (tmp_path / "search-cases.yaml").write_text(CASES, encoding="utf-8")
    return tmp_path


def _why(capsys, root: Path, *extra) -> dict:
    code, out, err = run(capsys, "eval", root / "search-cases.yaml", "--root", root, "--format", "json", "--why",
                         *extra)
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.Draft202012Validator(load_schema("search-eval.v1.json")).validate(doc)
    jsonschema.Draft202012Validator(load_schema("search-why.v4.json")).validate(doc["why"])
    return doc


def _eval(capsys, root: Path, *extra) -> dict:
    code, out, err = run(capsys, "eval", root / "search-cases.yaml", "--root", root, "--format", "json", *extra)
    assert code == 0, err
    return json.loads(out)


def _write(skill_md: Path, field: str, text: str) -> None:
    """Write a proposal into the SKILL.md as an author would."""
    raw = skill_md.read_text(encoding="utf-8")
    _, front, body = raw.split("---\n", 2)
    data = yaml.safe_load(front)
    if field == "triggers":
        data["triggers"] = [*(data.get("triggers") or []), text]
    else:
        data["description"] = data["description"].rstrip() + " " + text
    skill_md.write_text("---\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True) + "---\n" + body,
                        encoding="utf-8")


def _holds(before: dict, after: dict, proposal: dict) -> None:
    old = {c["id"]: c for c in before["cases"]}
    new = {c["id"]: c for c in after["cases"]}
    for fix in proposal["fixes"]:
        assert not old[fix["id"]]["hit"] and new[fix["id"]]["hit"] and new[fix["id"]]["rank"] == fix["rank"]
    for case_id in proposal["held_out"]["fixed"]:
        assert not old[case_id]["hit"] and new[case_id]["hit"]
    k, inf = before["k"], float("inf")
    for case_id, was in old.items():
        now = new[case_id]
        assert now["hit"] or not was["hit"], case_id
        if was["rank"] is not None and was["rank"] <= k:
            assert (now["rank"] or inf) <= was["rank"], case_id
    assert after["modes"]["lexical"]["top1"] > before["modes"]["lexical"]["top1"]


@pytest.mark.parametrize(("view", "field"), [("full", "triggers"), ("listing", DESCRIPTION)])
def test_a_cross_validated_proposal_carries_to_held_out_cases_when_written_in(pager, capsys, view, field):
    before = _why(capsys, pager, "--view", view)
    why = before["why"]
    assert why["view"] == view
    oncall = next(sp for sp in why["proposals"] if sp["skill"] == "oncall-triage")
    assert oncall["field"] == field and oncall["proposals"]
    best = oncall["proposals"][0]
    # the word several requests share comes first, and it fixes cases it was not fitted on
    assert best["phrase"] == "pager" and best["support"] >= 2
    assert best["held_out"]["fixed"] and best["held_out"]["cases"] >= len(best["held_out"]["fixed"])
    if view == "listing":
        assert best["text"] == 'Use it for "pager".'
        assert "claude-code" in best["agents"] and "codex" not in best["agents"]  # codex reads no .claude/skills
        claude = next(c for c in best["listing"] if c["agent"] == "claude-code")
        assert claude["entry_chars"] == len(SKILLS["oncall-triage"]) + 1 + len(best["text"])
        assert claude["entry_cap"] == 1536 and claude["used_chars"] <= claude["budget_chars"]
    else:
        assert best["text"] == "pager" and best["agents"] == []  # no agent lists triggers
    refund = next(sp for sp in why["proposals"] if sp["skill"] == "issue-refund")
    assert refund["proposals"] == [] and "too few cases" in refund["skipped"]
    copy = pager.parent / f"written-{view}"
    shutil.copytree(pager, copy)
    _write(copy / ".claude" / "skills" / "oncall-triage" / "SKILL.md", field, best["text"])
    _holds(before, _eval(capsys, copy, "--view", view), best)


def test_the_text_report_shows_field_support_held_out_effect_and_listing(pager, capsys):
    code, out, _ = run(capsys, "eval", pager / "search-cases.yaml", "--root", pager, "--why", "--view", "listing")
    assert code == 0
    assert "why not (lexical, listing view, k=3): 4 cases not ranked first (4 missed at k, 0 ranked 2-3)" in out
    assert ('    + description: "Use it for \\"pager\\"." (shared by 2 requests, from pager-night; '
            'write it into .claude/skills/oncall-triage/SKILL.md)') in out
    assert "      held out: 3 fixed of 4 cases;" in out
    assert "      changes the listing of claude-code, copilot, opencode (claude-code 94/1,536 entry, " in out
    assert "no proposal for 1 skill, too few cases to check one on held-out cases (each needs 2; add cases or " \
           "examples): issue-refund" in out


def test_a_phrase_that_makes_another_case_worse_is_not_proposed(tmp_path, capsys):
    for name, description in (("alpha", "first thing"), ("beta", "gamma work")):
        path = tmp_path / ".claude" / "skills" / name / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n", encoding="utf-8")
    (tmp_path / "search-cases.yaml").write_text(
        "version: 1\nk: 1\ncases:\n"
        "  - {id: a1, query: gamma delta one, expect: [alpha]}\n"
        "  - {id: a2, query: gamma delta two, expect: [alpha]}\n"
        "  - {id: a3, query: gamma delta three, expect: [alpha]}\n"
        "  - {id: b, query: gamma, expect: [beta]}\n", encoding="utf-8")
    why = _why(capsys, tmp_path)["why"]
    (alpha,) = [sp for sp in why["proposals"] if sp["skill"] == "alpha"]
    shown = [p["phrase"] for p in alpha["proposals"]]
    assert shown and shown[0] == "delta"  # shared by the requests of the other folds
    assert all("gamma" not in p.split() for p in shown)  # alpha would take "gamma" from beta


def test_mined_queries_are_phrase_sources(pager, capsys):
    def oncall(doc):
        return next(sp for sp in doc["why"]["proposals"] if sp["skill"] == "oncall-triage")

    plain = _why(capsys, pager)
    log = pager / ".skillsift" / "local" / "search-queries.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text(
        '{"v":1,"ts":"2026-10-06T12:00:00Z","event":"query","session":"aa","query":"sev1 bridge is open"}\n'
        '{"v":1,"ts":"2026-10-06T12:00:03Z","event":"loaded","session":"aa","skill":"oncall-triage"}\n',
        encoding="utf-8")
    doc = _why(capsys, pager)
    assert doc["why"]["mined_queries"] == 1
    assert oncall(doc)["tried"] > oncall(plain)["tried"]
    assert {c["id"] for c in doc["cases"]} == {c["id"] for c in plain["cases"]}  # never a case


def _profile(name: str = "tight", **kw) -> AgentProfile:
    return AgentProfile(name=name, label=name, folders=(".claude/skills",), nested=True,
                        fields=("name", "description"), **kw)


def test_a_description_edit_never_pushes_a_listing_past_its_cap_or_budget(pager):
    config = load_config(str(pager))
    skills, _ = read_all_skills(str(pager), config)
    target = next(s for s in skills if s.name == "oncall-triage")
    edited = edit_skill(target, DESCRIPTION, "pager")
    grown = len(edited.description) - len(target.description)
    used = build_listing(skills, _profile(budget_when_unknown=100_000)).used_chars
    roomy = listing_effect(skills, edited, [_profile(budget_when_unknown=used + grown)], None, "tight")
    assert roomy is not None and roomy[0].used_chars == used + grown and roomy[0].changes
    # one character short of the budget: a description would be dropped to name-only
    assert listing_effect(skills, edited, [_profile(budget_when_unknown=used + grown - 1)], None, "tight") is None
    # a cap the edited entry would pass: its new text would be cut
    cap = len(edited.description) - 1
    assert listing_effect(skills, edited, [_profile(entry_cap=cap)], None, "tight") is None
    # another agent's listing breaking is enough to refuse it too
    assert listing_effect(skills, edited, [_profile(), _profile(name="other", entry_cap=cap)], None, "tight") is None


def test_phrases_prefer_what_several_requests_share():
    found = phrases(frozenset({"triag"}), set(), [("a", "the pager went off at night"),
                                                   ("b", "pager alert woke me up")])
    assert found[0].phrase == "pager" and found[0].support == 2
    assert "went" not in [p.phrase for p in found]  # a single word only when shared
    assert not any("night pager" in p.phrase for p in found)


def test_why_explains_every_case_not_ranked_first_at_k5_in_both_formats(capsys):
    doc = _why(capsys, ACME)
    assert doc["k"] == 5
    missed = [c["id"] for c in doc["cases"] if not c["hit"]]
    behind = [c["id"] for c in sorted((c for c in doc["cases"] if c["hit"] and c["rank"] != 1),
                                      key=lambda c: c["rank"])]
    assert behind, "the example has cases ranked 2..k"
    explained = doc["why"]["misses"]
    assert [m["id"] for m in explained] == missed + behind
    assert all(m["missed"] is (m["id"] in missed) for m in explained)
    code, text, _ = run(capsys, "eval", ACME / "search-cases.yaml", "--root", ACME, "--why")
    assert code == 0
    why = text[text.index("why not (lexical, k=5):"):]
    assert why.startswith(f"why not (lexical, k=5): {len(missed) + len(behind)} cases not ranked first "
                          f"({len(missed)} missed at k, {len(behind)} ranked 2-5)")
    for m in explained:
        where = "missed" if m["missed"] else f"rank {m['rank']}"
        assert f"  {m['id']}{' (role ' + m['role'] + ')' if m.get('role') else ''} [{where}]: " in why


def test_the_documented_listing_example_is_what_the_pager_cases_print(pager, capsys):
    import re

    from tests.conftest import ROOT

    section = (ROOT / "docs" / "why-not.md").read_text(encoding="utf-8")
    block = re.findall(r"```text\n(.*?)\n```", section, re.S)[1]
    code, out, _ = run(capsys, "eval", pager / "search-cases.yaml", "--root", pager, "--why", "--view", "listing")
    assert code == 0
    printed = out.splitlines()
    for line in block.splitlines():
        assert line in printed, line


def test_the_description_clause_adds_no_term_of_its_own():
    """Only the phrase's terms reach the ranking: a template word would lift the skill for every query
    holding it (a clause with "requests like" made other skills' cases worse and was refused)."""
    from skillsift.evaluate.proposals import CLAUSE
    from skillsift.ranker.tokenize import tokenize

    assert tokenize(CLAUSE.format(phrase="")) == []
    assert tokenize(CLAUSE.format(phrase="pager alert")) == tokenize("pager alert")


def test_tail_sentences_are_the_ends_a_clause_may_replace_never_the_first_sentence():
    from skillsift.evaluate.proposals import tail_sentences

    text = 'Triage an incident. Page its owner! Say "why?" Then\nwrite it up'
    assert tail_sentences(text) == ["write it up", 'Then\nwrite it up', 'Say "why?" Then\nwrite it up']
    assert tail_sentences(text, 1) == ["write it up"]
    assert tail_sentences("One sentence only.") == []
    assert tail_sentences("Version 1.2 is fine. Ends here.") == ["Ends here."]  # no gap after "1." in "1.2"
    # a long run of spaces (a hostile description; SKILL.md may hold 4 MB) is read once, not once per space:
    # a pattern trying the run again from each space took about 0.4 s for 20,000 spaces, quadratic
    spaced = "Triage it. Then" + " " * 1_000_000 + "wait.\nPage the owner."
    assert tail_sentences(spaced) == ["Page the owner.", spaced[len("Triage it. "):]]


def test_an_edit_replaces_only_an_end_the_description_has(pager):
    config = load_config(str(pager))
    skills, _ = read_all_skills(str(pager), config)
    target = next(s for s in skills if s.name == "write-postmortem")
    with pytest.raises(ValueError):
        edit_skill(target, DESCRIPTION, "pager", "Nothing like this.")
    with pytest.raises(ValueError):  # the whole description: nothing would be left before the clause
        edit_skill(target, DESCRIPTION, "pager", SKILLS["write-postmortem"])


def _budget_window(root: Path, agent: str) -> tuple[int, int]:
    """``(window, budget)``: the smallest context window whose listing budget holds every entry of ``root``."""
    from skillsift.catalog.agents import BY_NAME

    profile = BY_NAME[agent]
    skills, _ = read_all_skills(str(root), load_config(str(root)))
    used = build_listing(skills, profile, 10_000_000).used_chars
    window = 1000
    while profile.budget_chars(window) < used:
        window += 1
    return window, profile.budget_chars(window) - used


def test_a_clause_that_does_not_fit_the_budget_replaces_the_last_sentence_and_holds_when_written(pager, capsys):
    """A listing exactly at its budget: the clause added would drop a description to name-only, so it
    takes the place of the description's last sentence, which no case needs."""
    extra = " Works with any monitoring stack."
    skill_md = pager / ".claude" / "skills" / "oncall-triage" / "SKILL.md"
    skill_md.write_text(skill_md.read_text(encoding="utf-8").replace(SKILLS["oncall-triage"],
                                                                        SKILLS["oncall-triage"] + extra),
                        encoding="utf-8")
    window, room = _budget_window(pager, "claude-code")
    assert room < len(' Use it for "pager".')  # the clause added does not fit
    args = ("--view", "listing", "--agent", "claude-code", "--context-window", str(window))
    before = _why(capsys, pager, *args)
    oncall = next(sp for sp in before["why"]["proposals"] if sp["skill"] == "oncall-triage")
    best = oncall["proposals"][0]
    assert best["phrase"] == "pager" and best["text"] == 'Use it for "pager".'
    assert best["replaces"] == extra.strip()
    claude = next(c for c in best["listing"] if c["agent"] == "claude-code")
    assert claude["entry_chars"] == len(SKILLS["oncall-triage"]) + 1 + len(best["text"])
    assert claude["used_chars"] <= claude["budget_chars"]
    assert best["held_out"]["fixed"]
    # the text report says what it replaces
    code, text, _ = run(capsys, "eval", pager / "search-cases.yaml", "--root", pager, "--why", *args)
    assert code == 0
    assert f'    + description: "Use it for \\"pager\\"." in place of "{extra.strip()}" ' in text
    # written in as proposed (the end deleted, the clause appended): the listing keeps every description
    # and the cases it claims move as it says
    copy = pager.parent / "written-replaced"
    shutil.copytree(pager, copy)
    md = copy / ".claude" / "skills" / "oncall-triage" / "SKILL.md"
    raw = md.read_text(encoding="utf-8")
    md.write_text(raw.replace(extra, " " + best["text"]), encoding="utf-8")
    code, out, _ = run(capsys, "list", "--root", copy, "--agent", "claude-code", "--context-window", str(window),
                       "--format", "json")
    assert code == 0 and all(s["listed"] == "full" for s in json.loads(out)["skills"])
    _holds(before, _eval(capsys, copy, *args), best)


def test_an_added_clause_that_fits_replaces_nothing(pager, capsys):
    why = _why(capsys, pager, "--view", "listing")["why"]
    best = next(sp for sp in why["proposals"] if sp["skill"] == "oncall-triage")["proposals"][0]
    assert best["replaces"] == ""


def test_a_replacement_may_bring_a_cut_entry_under_its_cap(pager):
    config = load_config(str(pager))
    skills, _ = read_all_skills(str(pager), config)
    target = next(s for s in skills if s.name == "oncall-triage")
    tail = " It also knows every dashboard the team keeps, and who owns each of them."
    long = replace(target, description=target.description + tail,
                   frontmatter={**target.frontmatter, "description": target.description + tail})
    skills = [long if s.name == "oncall-triage" else s for s in skills]
    cap = len(long.description) - 5  # the entry is cut at its cap before any edit
    agent = _profile(entry_cap=cap)
    assert next(e for e in build_listing(skills, agent).entries if e.path == long.path).listed == "truncated"
    added = edit_skill(long, DESCRIPTION, "pager")
    assert listing_effect(skills, added, [agent], None, "tight") is None  # still cut: the clause is not shown
    swapped = edit_skill(long, DESCRIPTION, "pager", tail.strip())
    effect = listing_effect(skills, swapped, [agent], None, "tight")
    assert effect is not None and effect[0].entry_chars == len(swapped.description) <= cap
    # a replacement still too long for the cap leaves the entry cut: refused
    assert listing_effect(skills, swapped, [_profile(entry_cap=len(swapped.description) - 1)], None, "tight") is None
