"""The renderer registry (skillsift/render/registry.py): the --format choices and the dispatch."""

from __future__ import annotations

import inspect
import subprocess
import sys

import click
import pytest

from skillsift.commands.group import cli
from skillsift.diagnostics import ERROR, Diagnostic
from skillsift.hooks._common import FORMATS as HOOK_FORMATS
from skillsift.render import diagnostics as diagnostics_render
from skillsift.render.registry import RENDERERS, names, render

# The --format option of each command and the family its choices come from.
COMMAND_FAMILIES = {"validate": "diagnostics", "eval": "evaluation", "ci": "ci", "search": "search",
                    "list": "list", "index": "index", "status": "status", "tune": "tune", "judge": "judge"}


def _format_choices(command: str) -> tuple[str, ...]:
    loaded = cli.get_command(click.Context(cli), command)
    assert loaded is not None
    option = next(p for p in loaded.params if p.name == "fmt")
    assert isinstance(option.type, click.Choice)
    return tuple(option.type.choices)


@pytest.mark.parametrize("command", sorted(COMMAND_FAMILIES))
def test_every_format_choice_comes_from_the_registry(command):
    assert _format_choices(command) == names(COMMAND_FAMILIES[command])


def test_the_documented_orders_hold():
    assert names("diagnostics") == ("text", "json", "github", "sarif") == HOOK_FORMATS
    assert names("evaluation") == ("text", "json", "junit", "markdown", "html")
    assert names("ci") == ("markdown", "json") and names("why") == ("text", "json")


def test_every_renderer_resolves_and_takes_its_options():
    for family, table in RENDERERS.items():
        for name, renderer in table.items():
            function = renderer.load()
            params = inspect.signature(function).parameters
            for option in renderer.options:
                assert option in params, (family, name, option)


def test_render_passes_only_the_options_a_renderer_takes():
    diag = Diagnostic(code="SK001", severity=ERROR, message="no frontmatter", file="skills/a/SKILL.md", line=1)
    assert render("diagnostics", "sarif", [diag], root="x", checked=3) == diagnostics_render.render_sarif([diag])
    assert (render("diagnostics", "json", [diag], root="x", checked=3)
            == diagnostics_render.render_json([diag], root="x", checked=3))
    assert render("diagnostics", "text", [diag], root="x", checked=3) == diagnostics_render.render_text([diag],
                                                                                                         checked=3)
    with pytest.raises(KeyError, match="formats are text, json, github, sarif"):
        render("diagnostics", "junit", [diag])


def test_reading_the_choices_imports_no_renderer():
    code = ("import sys; from skillsift.render.registry import names; names('evaluation'); "
            "print(sorted(m for m in sys.modules if m.startswith('skillsift.render.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['skillsift.render.registry']"


@pytest.mark.parametrize(("page", "family"), [
    ("docs/validate.md", "diagnostics"), ("docs/hooks.md", "diagnostics"), ("docs/evaluation.md", "evaluation"),
    ("docs/validate.md", "list"), ("docs/vector-index.md", "index"), ("docs/vector-index.md", "status"),
    ("README.md", "search"),
])
def test_the_docs_list_the_registry_formats(page, family):
    from tests.conftest import ROOT

    assert f"--format {'|'.join(names(family))}" in (ROOT / page).read_text(encoding="utf-8")


def test_the_search_family_renders_what_search_prints():
    import json

    from skillsift.ranker.result import Hit, SearchResult

    hit = Hit(name="issue-refund", score=1.25, description="Refund a charge.\x1b[31m", domain="billing")
    result = SearchResult(query="refund", ranking="lexical", hits=(hit,))
    doc = json.loads(render("search", "json", result, view={"agent": "codex"}, width=40, explain=False))
    assert doc["results"][0]["name"] == "issue-refund" and doc["view"] == {"agent": "codex"}
    assert "view" not in json.loads(render("search", "json", result, view=None))
    text = render("search", "text", result, width=40, view={"agent": "codex"}, min_sim=0.2)
    assert text.splitlines()[1].split()[:4] == ["1", "1.2500", "issue-refund", "billing"]
    assert "\x1b" not in text  # made safe for a terminal


def test_the_list_family_renders_what_list_prints():
    import json

    from skillsift.catalog.listing import Entry, Listing

    entries = (Entry("deploy", ".claude/skills/deploy/SKILL.md", "full", 40, 40, "", 52),
               Entry("refund", ".claude/skills/refund/SKILL.md", "truncated", 300, 120, "over the budget", 130))
    listing = Listing("claude-code", 200_000, 1_000, 182, 352, entries)
    assert json.loads(render("list", "json", listing, label="Claude Code")) == listing.to_dict()
    lines = render("list", "text", listing, label="Claude Code").splitlines()
    assert lines[0].split() == ["NAME", "LISTED", "SHOWN/DESC", "PATH"]
    assert lines[2].split() == ["refund", "truncated", "120/300", ".claude/skills/refund/SKILL.md"]
    assert lines[3].strip() == "over the budget"
    assert lines[-1] == ("Claude Code: 1 full, 1 truncated; used 182 characters, budget 1,000 characters, "
                         "context window 200,000 tokens")


def test_the_status_family_renders_the_report():
    import json

    report = {"schema_version": 1, "mode": "lexical", "index_dir": ".skillsift/index", "committed": True,
              "state": "none", "provider": "local@all-MiniLM-L6-v2", "model": "all-MiniLM-L6-v2", "rows": 0,
              "bytes": 0, "skills": 2, "current": 0, "drifted": 0, "stale": [], "missing": ["a", "b\x1b"],
              "orphaned": [], "hint": "run 'skillsift index'"}
    assert json.loads(render("status", "json", report)) == report
    assert list(json.loads(render("status", "json", report))) == list(report)  # the report's key order
    lines = render("status", "text", report).splitlines()
    assert lines[:2] == ["index      .skillsift/index  (committed location)", "state      none"]
    assert lines[-2:] == ["not indexed: a, b\\x1b", "next       run 'skillsift index'"]


def test_the_index_family_renders_a_dry_run_and_a_build(tmp_path):
    import json
    import shutil
    from types import SimpleNamespace

    from skillsift.usecases import index_build as service
    from skillsift.usecases.project import open_project
    from tests.conftest import ROOT

    root = tmp_path / "acme"
    shutil.copytree(ROOT / "examples" / "acme", root, ignore=shutil.ignore_patterns(".skillsift"))
    project = open_project(str(root))
    config, catalog = project.config, project.catalog
    prepared = service.prepare(config, catalog, dry_run=True)
    plan, provider = prepared.plan, prepared.provider
    dry = json.loads(render("index", "json", plan, provider, allow_network=False, shown_dir="ignored"))
    assert dry["dry_run"] is True and dry["written"] is False and dry["to_embed"] == plan.total > 0
    receipt = render("index", "text", plan, provider, allow_network=False).splitlines()
    assert [line.split()[0] for line in receipt] == ["provider", "model", "items", "fields", "egress"]
    built = SimpleNamespace(index=object(), embedded=["a"] * plan.total, reused=0, calls=1, tokens=10, cost_usd=None,
                            missing=[], rejected=[], stopped="")
    doc = json.loads(render("index", "json", plan, provider, result=built, written=True, shown_dir="ignored"))
    assert doc["dry_run"] is False and doc["written"] is True and doc["embedded"] == plan.total
    text = render("index", "text", plan, provider, result=built, written=True, shown_dir=".skillsift/index")
    assert text.splitlines()[-1] == "wrote .skillsift/index"
    nothing = SimpleNamespace(**{**vars(built), "index": None})
    assert render("index", "text", plan, provider, result=nothing, written=False) == ""


@pytest.mark.parametrize("door", ["search_cmd", "list_cmd", "index_cmd", "tune_cmd", "judge_cmd"])
def test_these_doors_do_not_choose_a_renderer_by_format(door):
    """``render(family, fmt, ...)`` chooses: the door never compares ``fmt`` with a format name."""
    import ast

    from tests.conftest import ROOT

    tree = ast.parse((ROOT / "skillsift" / "commands" / f"{door}.py").read_text(encoding="utf-8"))
    compared = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Compare)
                and any(isinstance(n, ast.Name) and n.id == "fmt" for n in [node.left, *node.comparators])]
    assert compared == [], f"{door} compares fmt on lines {compared}"
