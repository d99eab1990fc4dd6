"""``--view listing``: ranking exactly the text an agent lists (skillsift/catalog/listing.py, View)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from skillsift.catalog.agents import BY_NAME
from skillsift.catalog.listing import LISTED, NAME_ONLY, build_listing
from skillsift.catalog.load import read_all_skills
from skillsift.catalog.views import load_view
from skillsift.config import load_config
from skillsift.evaluate.cases import load_cases
from skillsift.evaluate.session import run_view_evaluation
from skillsift.ranker.view_index import open_view_ranker
from tests.conftest import ACME
from tests.support.cli import load_schema, run

SMALL_WINDOW = 20_000  # Claude Code's budget is then 800 characters: the acme listing overflows


def _acme_view(window=SMALL_WINDOW):
    config = load_config(str(ACME))
    return config, load_view(str(ACME), config, "listing", agent="claude-code", context_window=window)


def test_listing_view_carries_exactly_the_shown_characters():
    config, view = _acme_view()
    skills, _ = read_all_skills(str(ACME), config)
    listing = build_listing(skills, BY_NAME["claude-code"], SMALL_WINDOW)
    entries = {e.name: e for e in listing.entries if e.listed in LISTED}
    assert {s.name for s in view.catalog.skills} == set(entries)
    states = {e.listed for e in entries.values()}
    assert NAME_ONLY in states and len(states) > 1  # the window overflows: some keep their description
    originals = {s.name: s for s in skills}
    for skill in view.catalog.skills:
        entry = entries[skill.name]
        assert len(skill.description) == entry.shown_chars
        assert skill.triggers == () and skill.keywords == () and skill.body == ""
        front = originals[skill.name].frontmatter
        full = " ".join(str(front[f]).strip() for f in ("description", "when_to_use") if front.get(f))
        assert full.startswith(skill.description)
        if entry.listed == NAME_ONLY:
            assert skill.description == ""


def test_name_only_skills_are_ranked_by_their_name_alone():
    config, view = _acme_view()
    ranker = open_view_ranker(view, config)
    name_only = [s for s in view.catalog.skills if s.description == ""]
    assert name_only
    full = {s.name: s for s in view.full.skills}
    seen = 0
    for skill in name_only:
        # a query made of the skill's description words finds it only through words its name has
        query = full[skill.name].description
        result = ranker.search(query, limit=None, mode="lexical", explain=True)
        for hit in result.hits:
            if hit.name == skill.name:
                seen += 1
                assert hit.explanation is not None
                assert {f for t in hit.explanation.terms for f, _ in t.fields} <= {"name"}
        # and its name alone ranks it first
        top = ranker.search(skill.name.replace("-", " "), limit=1, mode="lexical")
        assert top.hits and top.hits[0].name == skill.name
    # a description word in no name ranks nothing among the name-only skills
    only_description = ranker.search("reconcile mismatched ledger", limit=None, mode="lexical")
    assert not any(h.name in {s.name for s in name_only} for h in only_description.hits)
    assert seen > 0  # some descriptions share a word with their name: only that word counts


def test_search_json_matches_the_list_command(capsys):
    code, out, _ = run(capsys, "list", "--agent", "claude-code", "--root", ACME, "--context-window", SMALL_WINDOW,
                       "--format", "json")
    assert code == 0
    shown = {e["name"]: e["shown_chars"] for e in json.loads(out)["skills"] if e["listed"] in LISTED}
    code, out, err = run(capsys, "search", "--root", ACME, "--view", "listing", "--agent", "claude-code",
                         "--context-window", SMALL_WINDOW, "--limit", 20, "--format", "json",
                         "deploy release invoice refund test review")
    assert code == 0 and "view: listing (claude-code, context window 20,000 tokens)" in err
    doc = json.loads(out)
    jsonschema.Draft202012Validator(load_schema("search.v1.json")).validate(doc)
    assert doc["view"]["agent"] == "claude-code" and doc["view"]["budget_chars"] == 800
    assert doc["results"]
    for hit in doc["results"]:
        assert len(hit["description"]) == shown[hit["name"]]


def test_default_view_is_unchanged(capsys):
    plain = run(capsys, "eval", ACME / "search-cases.yaml", "--root", ACME, "--format", "json")
    full = run(capsys, "eval", ACME / "search-cases.yaml", "--root", ACME, "--format", "json", "--view", "full")
    assert plain == full and '"view"' not in plain[1]


def _repo(tmp_path: Path) -> Path:
    def skill(folder: str, name: str, description: str, extra: str = "") -> None:
        path = tmp_path / folder / name / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\nBody.\n", encoding="utf-8")

    skill(".claude/skills", "deploy-staging", "Deploy a branch to staging.", "triggers: [ship it to qa]\n")
    skill(".claude/skills", "secret-rotation", "Rotate leaked credentials.", "disable-model-invocation: true\n")
    skill(".codex/skills", "codex-only", "Format the changelog.")
    skill(".claude/skills", "long-one", "Review code. " + "x" * 1600 + " zebra")
    (tmp_path / "search-cases.yaml").write_text(
        "version: 1\nk: 3\ncases:\n"
        "  - {id: staging, query: deploy a branch to staging, expect: [deploy-staging]}\n"
        "  - {id: qa, query: ship it to qa, expect: [deploy-staging]}\n"
        "  - {id: rotate, query: rotate leaked credentials, expect: [secret-rotation]}\n"
        "  - {id: changelog, query: format the changelog, expect: [codex-only]}\n"
        "  - {id: zebra, query: zebra, expect: [long-one]}\n", encoding="utf-8")
    return tmp_path


def test_hidden_not_loaded_and_cut_text_are_misses_of_the_listing_view(tmp_path, capsys):
    root = _repo(tmp_path)
    config = load_config(str(root))
    case_file = load_cases(str(root / "search-cases.yaml"))
    full = run_view_evaluation(load_view(str(root), config), config, case_file, modes=["lexical"])
    listing = run_view_evaluation(load_view(str(root), config, "listing", agent="claude-code"), config, case_file,
                                  modes=["lexical"])
    hits = {c.id: c.hit for c in full.result.primary.cases}
    assert hits == {"staging": True, "qa": True, "rotate": True, "changelog": True, "zebra": True}
    seen = {c.id: c.hit for c in listing.result.primary.cases}
    # triggers are not listed, the hidden and the Codex-only skill are not there, "zebra" is past the 1,536 cap
    assert seen == {"staging": True, "qa": False, "rotate": False, "changelog": False, "zebra": False}
    assert listing.result.view["agent"] == "claude-code"
    code, out, _ = run(capsys, "eval", root / "search-cases.yaml", "--root", root, "--view", "listing")
    assert code == 0 and out.splitlines()[0].endswith("view: listing (claude-code, context window 200,000 tokens)")


def test_view_all_puts_both_views_side_by_side(capsys):
    code, out, _ = run(capsys, "eval", ACME / "search-cases.yaml", "--root", ACME, "--view", "all",
                       "--context-window", SMALL_WINDOW, "--format", "json")
    assert code == 0
    doc = json.loads(out)
    jsonschema.Draft202012Validator(load_schema("search-eval.v1.json")).validate(doc)
    listing = doc["views"]["listing"]
    assert listing["view"]["agent"] == "claude-code"
    diff = listing["paired_vs_full"]["lexical"]["top1"]
    assert diff["diff"] == pytest.approx(listing["modes"]["lexical"]["top1"] - doc["modes"]["lexical"]["top1"])
    assert diff["low"] <= diff["diff"] <= diff["high"]
    assert diff["diff"] < 0  # most descriptions are dropped at this window
    code, text, _ = run(capsys, "eval", ACME / "search-cases.yaml", "--root", ACME, "--view", "all",
                        "--context-window", SMALL_WINDOW)
    assert "view: full, listing beside it" in text.splitlines()[0]
    assert "  lexical   top1" in text


def test_unknown_agent_is_refused(capsys):
    code, _, err = run(capsys, "search", "--root", ACME, "--view", "listing", "--agent", "nope", "deploy")
    assert code == 1 and 'unknown agent "nope"' in err


def test_mcp_find_skill_ranks_the_listing(tmp_path):
    from skillsift.mcpserver.service import SkillService

    root = _repo(tmp_path)
    service = SkillService(str(root), view="listing", agent="claude-code", warn=lambda _m: None)
    doc = service.find_skill("ship it to qa")
    assert doc["view"]["agent"] == "claude-code"
    assert doc["results"] == []  # the phrase is only in triggers, which Claude Code does not list
    assert service.find_skill("deploy staging")["results"][0]["name"] == "deploy-staging"
    full = SkillService(str(root), warn=lambda _m: None)
    assert full.find_skill("ship it to qa")["results"][0]["name"] == "deploy-staging"
    assert "view" not in full.find_skill("ship it to qa")


def _fields_rows() -> list[str]:
    from skillsift.catalog.agents import PROFILES, SKILLSIFT_FIELDS

    rows = []
    for p in PROFILES:
        assert "triggers" not in p.entry_fields and "keywords" not in p.entry_fields
        cap = f"{p.entry_cap:,}" if p.entry_cap else "—"
        ranked_only = [f for f in ("triggers", "keywords") if f in SKILLSIFT_FIELDS]
        rows.append(f"| `{p.name}` | name, {' + '.join(p.entry_fields)} | {cap} | {', '.join(ranked_only)} |")
    return rows


@pytest.mark.parametrize("page", ["README.md", "docs/views.md"])
def test_the_fields_table_is_the_agent_profiles(page):
    from tests.conftest import ROOT

    text = (ROOT / page).read_text(encoding="utf-8")
    block = text[text.index("<!-- fields-table: begin -->"):text.index("<!-- fields-table: end -->")]
    assert block.splitlines()[3:] == _fields_rows()
