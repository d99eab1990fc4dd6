"""SKILL.md parsing (reference §1.2, §4.3, §10.8), discovery, the catalog and scoping."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillsift.catalog.discovery import TOP_ROOTS
from skillsift.catalog.load import (
    Catalog,
    catalog_from_skills,
    discover,
    domain_of,
    list_value,
    load_catalog,
    parse_skill,
    read_skill,
    select,
    string_list,
)
from skillsift.catalog.skill import Skill
from skillsift.config import Config
from skillsift.diagnostics import SkillsiftError
from tests.conftest import corpora


def write_skill(root: Path, rel: str, name: str | None = None, extra: str = "", body: str = "Body\n") -> Path:
    path = root / rel
    if path.name != "SKILL.md":
        path = path / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    front = f"name: {name}\n" if name else ""
    path.write_text(f"---\n{front}description: about {name or path.parent.name}\n{extra}---\n{body}")
    return path


# ----------------------------------------------------------------------------- §1.2 examples


def test_full_frontmatter():
    text = (
        "---\nname: deploy\ndescription: Ship it\ntriggers: [go live, ship]\nkeywords: a, b\n---\n"
        "# Body\ntext\n"
    )
    skill, diags = parse_skill(text, "dir-id")
    assert diags == []
    assert skill.name == "deploy" and skill.description == "Ship it"
    assert skill.body == "# Body\ntext"
    assert skill.triggers == ("go live", "ship")
    assert skill.keywords == ("a", "b")
    assert skill.dir_id == "dir-id"
    assert skill.frontmatter_line == 2
    assert skill.frontmatter["triggers"] == ["go live", "ship"]


def test_frontmatter_without_name_falls_back_to_the_folder():
    skill, diags = parse_skill("---\nfoo: bar\n---\nbody", "dir-id")
    assert diags == []
    assert (skill.name, skill.description, skill.body) == ("dir-id", "dir-id", "body")
    assert skill.frontmatter == {"foo": "bar"}


def test_plain_text_has_no_frontmatter():
    skill, diags = parse_skill("just text", "dir-id")
    assert diags == []
    assert (skill.name, skill.description, skill.body) == ("dir-id", "dir-id", "just text")
    assert skill.frontmatter_line == 0 and skill.frontmatter == {}


def test_crlf_is_normalised():
    skill, _ = parse_skill("---\r\nname: x\r\ndescription: d\r\n---\r\nb", "dir-id")
    assert (skill.name, skill.description, skill.body) == ("x", "d", "b")


def test_unclosed_block_keeps_the_whole_text_untrimmed():
    skill, [d] = parse_skill("---\nname: x\n", "dir-id", path="s/dir-id/SKILL.md")
    assert skill.name == "dir-id"
    assert skill.body == "---\nname: x\n"
    assert skill.frontmatter_line == 0
    assert (d.code, d.severity, d.file, d.line) == ("SK001", "error", "s/dir-id/SKILL.md", 1)
    assert "no closing ---" in d.message


# ----------------------------------------------------------------------------- §4.3 / §10.8 examples


def test_dash_run_inside_block_scalar():
    skill, diags = parse_skill("---\nname: demo\ndescription: |\n  text\n  ----\n  more\n---\nBody\n", "d")
    assert diags == []
    assert skill.name == "demo" and skill.body == "Body"
    assert skill.description == "text\n----\nmore\n"


def test_empty_frontmatter_keeps_the_rule_in_the_body():
    skill, diags = parse_skill("---\n---\nText\n\n---\n\nrule above\n", "d")
    assert diags == []
    assert skill.frontmatter == {} and skill.name == "d"
    assert skill.body == "Text\n\n---\n\nrule above"


def test_explicit_null_frontmatter_keeps_the_whole_text():
    text = "---\nnull\n---\n  body  \n"
    skill, diags = parse_skill(text, "d")
    assert diags == []
    assert skill.frontmatter == {} and skill.body == text and skill.frontmatter_line == 0


def test_yaml_error_keeps_the_whole_text_and_reports_the_file_line():
    text = "---\nname: x\ndescription: d\ntriggers: [a, b\nkeywords: : :\n---\n body \n"
    skill, diags = parse_skill(text, "d", path="skills/d/SKILL.md")
    assert skill.name == "d" and skill.body == text
    assert [(x.code, x.file) for x in diags] == [("SK001", "skills/d/SKILL.md")]
    assert diags[0].line in (5, 6)  # the flow sequence opened on line 5 runs into line 6


def test_yaml_error_line_is_a_file_line():
    text = "---\nname: x\ndescription: d\nbad: a: b\n---\nbody\n"
    _, [d] = parse_skill(text, "d", path="p/SKILL.md")
    assert d.line == 4 and d.column == 7


def test_list_frontmatter_is_a_diagnostic_and_whole_text():
    text = "---\n- a\n- b\n---\nbody"
    skill, [d] = parse_skill(text, "d", path="p")
    assert skill.body == text and skill.name == "d"
    assert d.code == "SK001" and "not a list" in d.message and d.line == 2


def test_bom_and_crlf_together():
    skill, diags = parse_skill("\ufeff---\r\nname: x\r\n---\r\n\r\nbody line\r\nmore\r\n", "d")
    assert diags == []
    assert skill.name == "x" and skill.body == "body line\nmore"


# ----------------------------------------------------------------------------- fields


@pytest.mark.parametrize(
    "value, expected",
    [
        ("name: 123", "dir-id"),
        ("name: '   '", "dir-id"),
        ("name: [a, b]", "dir-id"),
        ("name: ''", "dir-id"),
        ("name: ' spaced '", " spaced "),  # used as written, not trimmed
        ("name: on", "on"),  # YAML 1.2: a string, not a boolean
    ],
)
def test_name_rules(value, expected):
    skill, _ = parse_skill(f"---\n{value}\n---\nb", "dir-id")
    assert skill.name == expected


def test_blank_description_falls_back_to_the_name():
    skill, _ = parse_skill("---\nname: n\ndescription: '  '\n---\nb", "d")
    assert skill.description == "n"
    skill, _ = parse_skill("---\nname: n\ndescription: 5\n---\nb", "d")
    assert skill.description == "n"


def test_list_value_rules():
    assert list_value([" a ", "", "  ", 3, None, "b", ["c"]]) == ("a", "b")
    assert list_value(" a , ,b,") == ("a", "b")
    assert list_value({"a": 1}) == ()
    assert list_value(7) == ()
    assert list_value(None) == ()


def test_string_list_rules():
    assert string_list("refund my order, please") == ("refund my order, please",)
    assert string_list(["  one  ", "", 2, "two"]) == ("one", "two")
    assert string_list("   ") == ()
    assert string_list({"a": "b"}) == ()


def test_every_list_field_is_read():
    text = (
        "---\nname: n\ndescription: d\ntriggers: deploy, ship it\nkeywords: [k8s, helm]\n"
        "tags: [ops, Release]\nroles: reviewer, ops\nexamples:\n  - ship the build, now\n  - roll out\n"
        "not_for: write a haiku\nlicense: MIT\n---\nbody\n"
    )
    skill, diags = parse_skill(text, "d", domain="ops")
    assert diags == []
    assert skill.triggers == ("deploy", "ship it")
    assert skill.keywords == ("k8s", "helm")
    assert skill.tags == ("ops", "Release")
    assert skill.roles == ("reviewer", "ops")
    assert skill.examples == ("ship the build, now", "roll out")
    assert skill.not_for == ("write a haiku",)
    assert skill.domain == "ops"
    assert skill.frontmatter["license"] == "MIT"  # kept, ignored


def test_trimming_uses_unicode_white_space_only():
    text = '---\nname: n\ntriggers: ["\\u3000a\\u00a0", "\\x1fb"]\n---\n\u2003body\x1f\n'
    skill, diags = parse_skill(text, "d")
    assert diags == []
    assert skill.triggers == ("a", "\x1fb")
    assert skill.body == "body\x1f"


def test_digest_is_sha256_of_the_text():
    text = "---\nname: n\n---\nbody\n"
    skill, _ = parse_skill(text, "d")
    assert skill.digest == "sha256:" + hashlib.sha256(text.encode()).hexdigest()


# ----------------------------------------------------------------------------- read_skill


def test_read_skill_sets_path_dir_id_and_digest(tmp_path):
    path = tmp_path / "skills" / "deploy" / "SKILL.md"
    path.parent.mkdir(parents=True)
    data = b"---\r\nname: deploy\r\ndescription: Ship\r\n---\r\nbody\r\n"
    path.write_bytes(data)
    skill, diags = read_skill(path, tmp_path, domain="ops")
    assert diags == []
    assert skill.path == "skills/deploy/SKILL.md"
    assert skill.dir_id == "deploy" and skill.domain == "ops"
    assert skill.digest == "sha256:" + hashlib.sha256(data).hexdigest()
    assert skill.body == "body"


def test_read_skill_invalid_utf8_is_a_diagnostic_with_position(tmp_path):
    path = tmp_path / "skills" / "x" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"---\nname: x\ndescription: caf\xe9\n---\n")
    skill, [d] = read_skill(path, tmp_path)
    assert skill is None
    assert d.file == "skills/x/SKILL.md" and d.code == "SK001" and d.severity == "error"
    assert (d.line, d.column) == (3, 17)
    assert "UTF-8" in d.message and "0xe9" in d.message


def test_read_skill_unreadable_path_is_a_diagnostic(tmp_path):
    path = tmp_path / "skills" / "x" / "SKILL.md"
    path.mkdir(parents=True)  # a directory where the file should be
    skill, [d] = read_skill(path, tmp_path)
    assert skill is None
    assert d.file == "skills/x/SKILL.md" and d.code == "SK001"
    assert d.message.startswith("cannot read SKILL.md")
    skill, [d] = read_skill(tmp_path / "missing" / "SKILL.md", tmp_path)
    assert skill is None and d.file == "missing/SKILL.md"


# ----------------------------------------------------------------------------- discovery


def test_every_default_layout_is_discovered_with_domains(tmp_path):
    rels = [
        ".claude/skills/a",
        ".agents/skills/b",
        ".codex/skills/c",
        "skills/d",
        ".ai-rulez/skills/e",
        ".ai-rulez/domains/ops/skills/f",
        ".ai-rulez/domains/billing/skills/g",
        "plugins/tools/skills/h",
        ".github/skills/i",
        ".cursor/skills/j",
        ".gemini/skills/k",
        ".opencode/skills/l",
        "plugins/solo",  # a plugin that is itself a skill
        "packages/web/.claude/skills/m",  # a monorepo package's own skills
        "apps/api/.agents/skills/n",
    ]
    for rel in rels:
        write_skill(tmp_path, rel)
    found = discover(tmp_path)
    got = [(p.relative_to(tmp_path).as_posix(), d) for p, d in found]
    assert got == sorted(
        [
            (".agents/skills/b/SKILL.md", ""),
            (".ai-rulez/domains/billing/skills/g/SKILL.md", "billing"),
            (".ai-rulez/domains/ops/skills/f/SKILL.md", "ops"),
            (".ai-rulez/skills/e/SKILL.md", ""),
            (".claude/skills/a/SKILL.md", ""),
            (".codex/skills/c/SKILL.md", ""),
            ("plugins/tools/skills/h/SKILL.md", ""),
            ("skills/d/SKILL.md", ""),
            (".github/skills/i/SKILL.md", ""),
            (".cursor/skills/j/SKILL.md", ""),
            (".gemini/skills/k/SKILL.md", ""),
            (".opencode/skills/l/SKILL.md", ""),
            ("plugins/solo/SKILL.md", ""),
            ("packages/web/.claude/skills/m/SKILL.md", ""),
            ("apps/api/.agents/skills/n/SKILL.md", ""),
        ]
    )
    assert len(TOP_ROOTS) == 12
    catalog = load_catalog(tmp_path)
    assert catalog.names == ("b", "g", "f", "e", "a", "c", "j", "k", "i", "l", "n", "m", "solo", "h", "d")
    assert catalog.get("f").domain == "ops" and catalog.get("a").domain == ""
    assert catalog.diagnostics == ()


def test_domain_of():
    assert domain_of((".ai-rulez", "domains", "x", "skills", "s", "SKILL.md")) == "x"
    assert domain_of(("vendor", ".ai-rulez", "domains", "y", "skills", "c", "s", "SKILL.md")) == "y"
    assert domain_of((".ai-rulez", "domains", "x", "other", "s", "SKILL.md")) == ""
    assert domain_of(("skills", "s", "SKILL.md")) == ""


def test_nested_category_folders_are_read(tmp_path):
    write_skill(tmp_path, "skills/ops/deploy")
    write_skill(tmp_path, "skills/ops/rollback")
    write_skill(tmp_path, "skills/top")
    write_skill(tmp_path, "skills/top/inner")  # under a skill folder: not a separate skill
    write_skill(tmp_path, "skills/a/b/c")  # two levels of categories
    write_skill(tmp_path, "skills/1/2/3/4/5/six")  # six folders below the root: Codex's depth
    write_skill(tmp_path, "skills/1/2/3/4/5/6/seven")  # too deep
    rels = [p.relative_to(tmp_path).as_posix() for p, _ in discover(tmp_path)]
    assert rels == ["skills/1/2/3/4/5/six/SKILL.md", "skills/a/b/c/SKILL.md", "skills/ops/deploy/SKILL.md",
                    "skills/ops/rollback/SKILL.md", "skills/top/SKILL.md"]


def test_skipped_folders(tmp_path):
    write_skill(tmp_path, "skills/ok")
    write_skill(tmp_path, "skills/.hidden")
    write_skill(tmp_path, "skills/node_modules/pkg")
    write_skill(tmp_path, "skills/.git/x")
    (tmp_path / "skills" / "not-a-skill").mkdir()
    (tmp_path / "skills" / "README.md").write_text("hi")
    assert [p.parent.name for p, _ in discover(tmp_path)] == ["ok"]
    found = discover(tmp_path, ["**/SKILL.md"])
    assert [p.relative_to(tmp_path).as_posix() for p, _ in found] == ["skills/ok/SKILL.md"]


def test_discovery_order_is_sorted_and_independent_of_creation(tmp_path):
    names = ["zeta", "alpha", "mid", "a-b", "a"]
    for name in names:
        write_skill(tmp_path, f"skills/{name}")
    first = [p.parent.name for p, _ in discover(tmp_path)]
    assert first == ["a", "a-b", "alpha", "mid", "zeta"]
    assert [p.parent.name for p, _ in discover(tmp_path)] == first


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this platform")
def test_symlinks_out_of_the_root_are_not_followed(tmp_path):
    root = tmp_path / "repo"
    outside = tmp_path / "outside"
    write_skill(outside, "skills/leak")
    write_skill(root, "skills/ok")
    (root / "skills" / "link").symlink_to(outside / "skills" / "leak")
    (root / ".claude").mkdir()
    (root / ".claude" / "skills").symlink_to(outside / "skills")
    assert [p.parent.name for p, _ in discover(root)] == ["ok"]
    assert discover(root, [str(outside / "skills")]) == []


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this platform")
def test_symlinked_skills_root_inside_the_repo_is_read_once(tmp_path):
    write_skill(tmp_path, ".agents/skills/deploy", name="deploy")
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "skills").symlink_to(tmp_path / ".agents" / "skills")
    catalog = load_catalog(tmp_path)
    assert catalog.names == ("deploy",)
    assert catalog.get("deploy").path == ".agents/skills/deploy/SKILL.md"
    assert catalog.diagnostics == ()


def test_configured_patterns(tmp_path):
    write_skill(tmp_path, "agents/one")
    write_skill(tmp_path, "agents/two")
    write_skill(tmp_path, "extra/solo")
    write_skill(tmp_path, "misc/file-only")
    write_skill(tmp_path, "lib/a/skills/x")
    write_skill(tmp_path, "lib/b/skills/y")
    write_skill(tmp_path, "skills/default-only")
    patterns = ["agents", "extra/solo", "misc/file-only/SKILL.md", "lib/*/skills", str(tmp_path / "agents")]
    rels = [p.relative_to(tmp_path).as_posix() for p, _ in discover(tmp_path, patterns)]
    assert rels == [
        "agents/one/SKILL.md",
        "agents/two/SKILL.md",
        "extra/solo/SKILL.md",
        "lib/a/skills/x/SKILL.md",
        "lib/b/skills/y/SKILL.md",
        "misc/file-only/SKILL.md",
    ]


def test_configured_domain_layout_keeps_its_domain(tmp_path):
    write_skill(tmp_path, "vendor/.ai-rulez/domains/pay/skills/refund")
    [(path, domain)] = discover(tmp_path, ["vendor/.ai-rulez/domains/*/skills"])
    assert domain == "pay" and path.parent.name == "refund"


def test_config_patterns_replace_defaults_and_empty_ones_warn(tmp_path):
    write_skill(tmp_path, "skills/default-only")
    write_skill(tmp_path, "mine/s")
    catalog = load_catalog(tmp_path, Config(skills=("mine", "nowhere/*")))
    assert catalog.names == ("s",)
    [d] = catalog.diagnostics
    assert d.code == "SK003" and d.severity == "warning" and "nowhere/*" in d.message


def test_empty_or_missing_root(tmp_path):
    assert discover(tmp_path) == []
    assert discover(tmp_path / "missing") == []
    catalog = load_catalog(tmp_path)
    assert len(catalog) == 0 and catalog.diagnostics == ()


# ----------------------------------------------------------------------------- catalog


def test_catalog_accessors(tmp_path):
    write_skill(tmp_path, "skills/b", name="beta")
    write_skill(tmp_path, "skills/a", name="alpha")
    catalog = load_catalog(tmp_path)
    assert isinstance(catalog, Catalog)
    assert catalog.root == str(tmp_path)
    assert catalog.names == ("alpha", "beta")
    assert len(catalog) == 2
    assert [s.name for s in catalog] == ["alpha", "beta"]
    assert catalog.get("beta").path == "skills/b/SKILL.md"
    assert catalog.get("nope") is None
    assert catalog.by_name["alpha"].description == "about alpha"
    with pytest.raises(TypeError):
        catalog.by_name["x"] = catalog.get("alpha")


def test_duplicate_names_keep_the_first_and_name_both_files(tmp_path):
    write_skill(tmp_path, ".claude/skills/one", name="deploy")
    write_skill(tmp_path, "skills/two", name="deploy")
    write_skill(tmp_path, "skills/three", name="other")
    catalog = load_catalog(tmp_path)
    assert catalog.names == ("deploy", "other")
    assert catalog.get("deploy").path == ".claude/skills/one/SKILL.md"
    [d] = catalog.diagnostics
    assert (d.code, d.severity, d.file) == ("SK002", "error", "skills/two/SKILL.md")
    assert d.message == (
        'skill name "deploy" is used by .claude/skills/one/SKILL.md and skills/two/SKILL.md; rename one'
    )


def test_three_copies_give_two_errors_against_the_first():
    skills = [Skill(name="x", description="d", path=f"s/{i}/SKILL.md") for i in range(3)]
    catalog = catalog_from_skills(skills)
    assert len(catalog) == 1 and catalog.skills[0].path == "s/0/SKILL.md"
    assert [d.message for d in catalog.diagnostics] == [
        'skill name "x" is used by s/0/SKILL.md and s/1/SKILL.md; rename one',
        'skill name "x" is used by s/0/SKILL.md and s/2/SKILL.md; rename one',
    ]


def test_broken_files_are_diagnostics_and_the_rest_loads(tmp_path):
    write_skill(tmp_path, "skills/good", name="good")
    bad = tmp_path / "skills" / "bad-yaml" / "SKILL.md"
    bad.parent.mkdir(parents=True)
    bad.write_text("---\nname: bad\ndescription: fine\nextra: a: b\n---\nbody\n")
    latin = tmp_path / "skills" / "latin" / "SKILL.md"
    latin.parent.mkdir(parents=True)
    latin.write_bytes(b"---\nname: latin\n---\n\xff\n")
    (tmp_path / "skills" / "dir" / "SKILL.md").mkdir(parents=True)
    catalog = load_catalog(tmp_path)
    assert catalog.names == ("bad-yaml", "good")  # the bad YAML falls back to its folder name
    by_file = {d.file: d for d in catalog.diagnostics}
    assert set(by_file) == {"skills/bad-yaml/SKILL.md", "skills/latin/SKILL.md", "skills/dir/SKILL.md"}
    assert by_file["skills/bad-yaml/SKILL.md"].line == 4
    assert by_file["skills/latin/SKILL.md"].line == 4
    assert all(d.code == "SK001" and d.severity == "error" for d in catalog.diagnostics)


# ----------------------------------------------------------------------------- select


def _scope_catalog() -> Catalog:
    def sk(name, domain="", tags=(), roles=()):
        return Skill(name=name, description=name, domain=domain, tags=tuple(tags), roles=tuple(roles))

    return catalog_from_skills(
        [
            sk("deploy-prod", domain="ops", tags=("ops", "Release")),
            sk("deploy-staging", domain="ops", tags=("ops",)),
            sk("refund", domain="billing", roles=("support",)),
            sk("write-docs", tags=("docs",), roles=("writer", "support")),
            sk("review-code", roles=("reviewer",)),
        ]
    )


def test_select_without_scope_admits_everything():
    assert select(_scope_catalog()) == [0, 1, 2, 3, 4]


def test_select_role_from_config_globs_and_frontmatter():
    catalog = _scope_catalog()
    roles = {"ops": ("deploy-*",), "support": ("review-code",), "docs": {"skills": ["write-docs"]}}
    assert select(catalog, roles=roles, role="ops") == [0, 1]
    assert select(catalog, roles=roles, role="support") == [2, 3, 4]  # frontmatter + config
    assert select(catalog, roles=roles, role="docs") == [3]
    assert select(catalog, role="writer") == [3]  # declared only in frontmatter


def test_select_unknown_role_names_the_known_ones():
    with pytest.raises(SkillsiftError) as err:
        select(_scope_catalog(), roles={"ops": ("deploy-*",)}, role="nope")
    assert err.value.message == 'unknown role "nope" (known roles: ops, reviewer, support, writer)'
    with pytest.raises(SkillsiftError, match="none are defined"):
        select(catalog_from_skills([Skill(name="a", description="a")]), role="x")


def test_select_domain():
    catalog = _scope_catalog()
    assert select(catalog, domain="ops") == [0, 1]
    assert select(catalog, domain="root") == [3, 4]
    assert select(catalog, domain=["root", "billing"]) == [2, 3, 4]
    assert select(catalog, domain="none") == []


def test_select_tags_need_all_of_them():
    catalog = _scope_catalog()
    assert select(catalog, tags=["ops"]) == [0, 1]
    assert select(catalog, tags=["ops", "release"]) == [0]
    assert select(catalog, tags=["ops", "docs"]) == []


def test_select_allow_and_deny_with_deny_winning():
    catalog = _scope_catalog()
    assert select(catalog, allow=["deploy-*", "refund"]) == [0, 1, 2]
    assert select(catalog, deny=["deploy-*"]) == [2, 3, 4]
    assert select(catalog, allow=["deploy-*"], deny=["*-prod"]) == [1]
    assert select(catalog, allow=["deploy-prod"], deny=["deploy-prod"]) == []
    assert select(catalog, roles={"ops": ["deploy-*"]}, role="ops", tags=["release"], domain="ops") == [0]


# ----------------------------------------------------------------------------- corpus, import cost


@pytest.mark.slow  # the whole corpus of real skills
def test_real_corpus_loads():
    real = corpora()
    config = Config(skills=("*",))  # corpora/<repository>/<skill>/SKILL.md
    catalog = load_catalog(real, config)
    assert len(catalog) > 2000
    assert len(set(catalog.names)) == len(catalog)
    codes = {d.code for d in catalog.diagnostics}
    assert "SK002" in codes  # names repeat across the four repositories
    assert all(s.name and s.description and s.digest.startswith("sha256:") for s in catalog)
    assert all(s.path.endswith("/SKILL.md") and not s.path.startswith("/") for s in catalog)
    again = load_catalog(real, config)
    assert again.names == catalog.names and again.diagnostics == catalog.diagnostics


def test_importing_the_catalog_stays_light():
    code = (
        "import sys, skillsift.catalog.load\n"
        "print(sorted(m for m in ('yaml', 'numpy', 'jsonschema') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_skill_paths_are_what_relative_path_gives_for_every_way_to_name_the_root(tmp_path, monkeypatch):
    from skillsift.catalog.load import load_catalog, relative_path
    from tests.conftest import write_skill

    repo = tmp_path / "repo"
    for name in ("alpha", "beta"):
        write_skill(repo, name, f"The {name} skill")
    write_skill(repo, "gamma", "Nested", layout="skills/group")
    monkeypatch.chdir(tmp_path)
    for root in (repo, "repo", "./repo/", "repo/../repo", str(repo) + "/"):
        catalog = load_catalog(root)
        want = sorted(relative_path(p, root) for p in repo.rglob("SKILL.md"))
        assert sorted(s.path for s in catalog.skills) == want == [
            ".claude/skills/alpha/SKILL.md", ".claude/skills/beta/SKILL.md", "skills/group/gamma/SKILL.md"]
    monkeypatch.chdir(repo)
    assert [s.path for s in load_catalog(".").skills][0] == ".claude/skills/alpha/SKILL.md"


def test_split_blocks_turns_crlf_into_lf_and_keeps_a_text_without_cr():
    from skillsift.catalog.load import split_blocks

    crlf = "---\r\nname: a\r\ndescription: b\r\n---\r\nBody\r\nend\rx\n"
    lf, block = split_blocks(crlf)
    assert lf == "---\nname: a\ndescription: b\n---\nBody\nend\rx\n"  # a lone CR stays
    assert block.closed and block.body == "Body\nend\rx\n"
    plain = "---\nname: a\ndescription: b\n---\nBody\n"
    lf, block = split_blocks(plain)
    assert lf is plain and block.body == "Body\n"
