"""Agent profiles, `skillsift list --agent`, `--agent` on search, and the planted repository.

The planted repository holds the 13 problems skill linters are compared on (docs/validate.md)
next to 60 clean synthesised skills: `skillsift validate` with default settings must report
each problem on its file and nothing on the clean skills but the listing overflow.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from skillsift.catalog.agents import BY_NAME, NAMES, layout_of, serves
from skillsift.cli import main
from tests.support.cli import load_schema

SCHEMA = load_schema("listing.v1.json")

TOPICS = ("invoice", "kubernetes", "terraform", "postgres", "graphql", "webpack", "android", "swift", "latex",
          "pandas", "kafka", "redis", "nginx", "oauth", "stripe", "figma", "jira", "slack", "sentry", "grafana",
          "docker", "ansible", "helm", "rust", "golang", "django", "rails", "laravel", "flutter", "unity",
          "blender", "ffmpeg", "opencv", "pytorch", "spark", "airflow", "dbt", "snowflake", "bigquery", "mongodb",
          "elastic", "vault", "consul", "istio", "jenkins", "gitlab", "bazel", "gradle", "maven", "npm", "vite",
          "svelte", "angular", "vue", "react", "tailwind", "storybook", "cypress", "playwright", "jest")
VERBS = ("configure", "debug", "migrate", "audit", "optimise", "document")


def clean_skill(root: Path, i: int) -> None:
    topic = TOPICS[i]
    name = f"{topic}-helper"
    words = " ".join(f"{topic}{k}" for k in range(12))
    description = (f"{VERBS[i % 6].capitalize()} {topic} projects with {words}. Use when the user works with {topic} "
                   f"and asks for {topic} setup, {topic} fixes or {topic} reviews.")
    path = root / ".claude" / "skills" / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n# {topic}\n\nSteps for {topic}.\n",
                    encoding="utf-8")


def skill(root: Path, folder: str, front: str, body: str = "# Notes\n\nPlain steps.\n", layout=".claude/skills"):
    path = root / layout / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{front}\n---\n{body}", encoding="utf-8")
    return f"{layout}/{folder}/SKILL.md"


def words(n: int, stem: str) -> str:
    out, k = [], 0
    while len(" ".join(out)) < n:
        out.append(f"{stem}{k}")
        k += 1
    return " ".join(out)[:n].rstrip()


def planted(root: Path) -> dict[str, str]:
    """The 13 problems; returns {problem: the file it must be reported on ("" = the repository)}."""
    for i in range(60):
        clean_skill(root, i)
    long_name = "n" * 70
    where = {
        "capitals-and-spaces": skill(root, "pdf-filler", "name: PDF Filler Tool\ndescription: Fill PDF forms."),
        "name-folder": skill(root, "csv-cleaner", "name: csv-tidier\ndescription: Tidy CSV files."),
        "name-70": skill(root, long_name, f"name: {long_name}\ndescription: Handle long names."),
        "description-1100": skill(root, "essay-writer", f"name: essay-writer\ndescription: {words(1100, 'essay')}"),
        "description-1700": skill(root, "saga-writer", f"name: saga-writer\ndescription: {words(1700, 'saga')}"),
        "description-when-1536": skill(root, "poem-writer", f"name: poem-writer\ndescription: {words(900, 'poem')}\n"
                                                            f"when_to_use: {words(700, 'verse')}"),
        "unknown-field": skill(root, "logo-maker", "name: logo-maker\ndescription: Draw logos.\ncolour: blue"),
        "missing-description": skill(root, "chart-maker", "name: chart-maker"),
        "broken-yaml": skill(root, "yaml-breaker", "name: yaml-breaker\ndescription: a: b: c"),
        "duplicate-name": skill(root, "release-notes", "name: release-notes\ndescription: Draft release notes.",
                                layout=".agents/skills"),
        "body-500": skill(root, "big-manual", "name: big-manual\ndescription: A long manual.",
                          body="".join(f"Step {k}.\n" for k in range(520))),
        "missing-reference": skill(root, "api-guide", "name: api-guide\ndescription: Explain the API.",
                                   body="# API\n\nRead [the details](references/details.md).\n"),
        "listing-over-8000": "",
    }
    skill(root, "release-notes", "name: release-notes\ndescription: Write a changelog entry.")
    return where


EXPECTED = {
    "capitals-and-spaces": "SK101", "name-folder": "SK102", "name-70": "SK101", "description-1100": "SK103",
    "description-1700": "SK103", "description-when-1536": "SK007", "unknown-field": "SK105",
    "missing-description": "SK006", "broken-yaml": "SK001", "duplicate-name": "SK002", "body-500": "SK107",
    "missing-reference": "SK108", "listing-over-8000": "SK011",
}


def test_planted_repository_all_13_problems_on_their_files_and_nothing_on_clean_skills(tmp_path, capsys):
    where = planted(tmp_path)
    assert main(["validate", "--root", str(tmp_path), "--format", "json"]) == 1  # SK001, SK002, SK006 are errors
    doc = json.loads(capsys.readouterr().out)
    found = {(d.get("file", ""), d["code"]) for d in doc["diagnostics"]}
    for problem, file in where.items():
        assert (file, EXPECTED[problem]) in found, problem
    sk007 = [d for d in doc["diagnostics"] if d["code"] == "SK007" and "saga-writer" in d.get("file", "")]
    assert any("claude-code keeps only the first 1536" in d["message"] for d in sk007)
    clean = [d for d in doc["diagnostics"] if "-helper/" in d.get("file", "")]
    assert clean == []
    [overflow] = [d for d in doc["diagnostics"] if d["code"] == "SK011"]
    assert overflow["message"].startswith("claude-code's skill listing needs ")
    assert "over its 8,000-character budget (1% of a 200,000-token window)" in overflow["message"]


def listing(root: Path, agent: str, *extra: str) -> dict:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["list", "--agent", agent, "--root", str(root), "--format", "json", *extra]) == 0
    doc = json.loads(out.getvalue())
    jsonschema.validate(doc, SCHEMA)
    return doc


def test_list_claude_code_shows_name_only_truncated_and_hidden(tmp_path):
    planted(tmp_path)
    skill(tmp_path, "quiet", "name: quiet\ndescription: Run quietly.\ndisable-model-invocation: true")
    doc = listing(tmp_path, "claude-code")
    assert (doc["agent"], doc["context_window"], doc["budget_chars"]) == ("claude-code", 200_000, 8000)
    assert doc["used_chars"] <= 8000
    by = {s["path"]: s for s in doc["skills"]}
    saga = by[".claude/skills/saga-writer/SKILL.md"]
    assert saga["description_chars"] == 1700 and saga["listed"] in ("truncated", "name-only")
    assert by[".claude/skills/poem-writer/SKILL.md"]["listed"] in ("truncated", "name-only")
    assert by[".claude/skills/quiet/SKILL.md"]["listed"] == "hidden"
    states = [s["listed"] for s in doc["skills"]]
    assert "name-only" in states and "full" in states
    names = [s["name"] for s in doc["skills"] if s["listed"] == "name-only"]
    kept = [s["name"] for s in doc["skills"] if s["listed"] in ("full", "truncated") and s["shown_chars"]]
    assert max(kept) < min(names)  # descriptions are dropped from the last names first
    assert by[".agents/skills/release-notes/SKILL.md"]["listed"] == "not-loaded"
    big = listing(tmp_path, "claude-code", "--context-window", "2000000")
    big_by = {s["path"]: s for s in big["skills"]}
    assert big["budget_chars"] == 80_000
    assert big_by[".claude/skills/saga-writer/SKILL.md"]["listed"] == "truncated"
    assert big_by[".claude/skills/saga-writer/SKILL.md"]["shown_chars"] == 1536
    assert "name-only" not in [s["listed"] for s in big["skills"]]


def test_list_codex_refuses_long_names_and_descriptions(tmp_path):
    long_name = "n" * 70
    skill(tmp_path, long_name, f"name: {long_name}\ndescription: Long name.", layout=".agents/skills")
    skill(tmp_path, "saga", f"name: saga\ndescription: {words(1700, 'saga')}", layout=".agents/skills")
    skill(tmp_path, "fine", "name: fine\ndescription: Fine.", layout=".agents/skills")
    skill(tmp_path, "elsewhere", "name: elsewhere\ndescription: Not for codex.", layout=".github/skills")
    doc = listing(tmp_path, "codex")
    assert doc["budget_chars"] == 8000 and doc["context_window"] is None
    by = {s["name"]: s for s in doc["skills"]}
    assert by[long_name]["listed"] == "not-loaded" and "over codex's 64" in by[long_name]["reason"]
    assert by["saga"]["listed"] == "not-loaded" and "over codex's 1024" in by["saga"]["reason"]
    assert by["fine"]["listed"] == "full" and by["fine"]["shown_chars"] == 5
    assert by["elsewhere"]["listed"] == "not-loaded"
    assert listing(tmp_path, "codex", "--context-window", "400000")["budget_chars"] == 32_000


def test_list_text_and_unknown_agent(tmp_path, capsys):
    skill(tmp_path, "fine", "name: fine\ndescription: Fine.")
    assert main(["list", "--agent", "claude-code", "--root", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "fine" in out and "Claude Code: 1 full; used" in out and "budget 8,000 characters" in out
    assert main(["list", "--agent", "nobody", "--root", str(tmp_path)]) == 1
    assert 'unknown agent "nobody"' in capsys.readouterr().err


def test_search_agent_ranks_only_what_the_agent_loads(tmp_path, capsys):
    skill(tmp_path, "deploy-claude", "name: deploy-claude\ndescription: Deploy the service to staging.")
    skill(tmp_path, "deploy-codex", "name: deploy-codex\ndescription: Deploy the service to staging.",
          layout=".agents/skills")
    assert main(["search", "deploy staging", "--root", str(tmp_path), "--format", "json", "--agent", "codex"]) == 0
    names = [h["name"] for h in json.loads(capsys.readouterr().out)["results"]]
    assert names == ["deploy-codex"]
    assert main(["search", "deploy staging", "--root", str(tmp_path), "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["results"]) == 2


def test_validate_agents_setting_limits_the_profiles(tmp_path, capsys):
    skill(tmp_path, "essay", f"name: essay\ndescription: {words(1100, 'essay')}")
    (tmp_path / "skillsift.toml").write_text('[validate]\nagents = ["claude-code"]\n')
    assert main(["validate", "--root", str(tmp_path), "--select", "SK007"]) == 0
    assert "SK007" not in capsys.readouterr().out  # 1,100 fits Claude Code's 1,536
    (tmp_path / "skillsift.toml").write_text('[validate]\nagents = ["claud"]\n')
    assert main(["validate", "--root", str(tmp_path)]) == 2
    assert 'unknown agent "claud"' in capsys.readouterr().out


@pytest.mark.parametrize("path, layout", [
    (".claude/skills/a/SKILL.md", (".claude/skills", False)),
    ("pkg/web/.agents/skills/a/SKILL.md", (".agents/skills", True)),
    ("skills/cat/a/SKILL.md", ("skills", False)),
    ("plugins/p/skills/a/SKILL.md", ("plugins/*/skills", False)),
    ("plugins/p/SKILL.md", ("plugins/*/SKILL.md", False)),
    (".ai-rulez/skills/a/SKILL.md", ("", False)),
])
def test_layout_of(path, layout):
    assert layout_of(path) == layout


def test_profiles_table():
    assert NAMES == ("claude-code", "codex", "copilot", "cursor", "gemini-cli", "opencode")
    claude, codex = BY_NAME["claude-code"], BY_NAME["codex"]
    assert claude.budget_chars() == 8000 and claude.entry_cap == 1536
    assert claude.entry_fields == ("description", "when_to_use")
    assert codex.budget_chars() == 8000 and codex.budget_chars(100_000) == 8000
    assert (codex.name_max, codex.description_max) == (64, 1024)
    assert serves(claude, "apps/x/.claude/skills/a/SKILL.md")
    assert not serves(BY_NAME["cursor"], "x/.agents/skills/a/SKILL.md")
    assert serves(BY_NAME["copilot"], ".github/skills/a/SKILL.md")


def test_mcp_service_and_eval_serve_only_the_agents_skills(tmp_path, capsys):
    from skillsift.mcpserver.service import SkillService

    skill(tmp_path, "deploy-claude", "name: deploy-claude\ndescription: Deploy the service to staging.")
    skill(tmp_path, "deploy-codex", "name: deploy-codex\ndescription: Deploy the service to staging.",
          layout=".agents/skills")
    service = SkillService(str(tmp_path), warn=lambda _m: None, agent="codex")
    service.refresh()
    assert service.catalog.names == ("deploy-codex",)
    cases = tmp_path / "cases.yaml"
    cases.write_text("version: 1\ncases:\n  - id: c1\n    query: deploy to staging\n    expect: [deploy-claude]\n",
                     encoding="utf-8")
    assert main(["eval", str(cases), "--root", str(tmp_path), "--agent", "claude-code", "--format", "json"]) == 0
    assert main(["eval", str(cases), "--root", str(tmp_path), "--agent", "codex"]) == 1
    assert "deploy-claude" in capsys.readouterr().err
