"""What the hooks and ``skillsift --help`` must not import, each in a fresh interpreter.

A hook is a fresh process per commit (pre-commit starts one per hook), so every module it
imports is paid on every commit; ``--help`` is the first thing a user runs.  The modules
below were measured as costly and are not needed on those paths (bench/README.md and
bench/results/2026-12-06-hook-imports.md: ``python -X importtime``, CPU of a regular
install).  Moving an import to the top of a module (issue 40) must leave these deferred:
add a module here rather than drop one, unless a measurement says it costs nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, write_skill

#: Never imported by ``skillsift hook frontmatter`` / ``hook secrets`` on simple SKILL.md files,
#: with the user caches written (a first run) or off.  ``dataclasses`` brings ``inspect``, ``ast``,
#: ``dis`` and ``tokenize`` (about 13 ms); ``yaml`` is read only for frontmatter the simple reader
#: leaves to it; ``tempfile`` brings ``shutil`` with ``bz2`` and ``lzma``; ``re2`` only past 64 KiB of text;
#: ``argparse`` (with ``gettext`` and ``locale``, about 5 ms) only for ``--help`` and usage errors;
#: ``hashlib`` (OpenSSL, about 11M instructions) only past a quarter megabyte hashed (``cache.base.sha256``);
#: ``pathlib`` (with ``urllib.parse``, ``ipaddress`` and ``ntpath``, about 18M instructions): the hooks' path
#: names files with strings (``skillsift.files.path_str``), and ``urllib`` loads only for a ``%`` in a link.
HOOK_NEVER = ("numpy", "jsonschema", "click", "dataclasses", "inspect", "ast", "dis", "tokenize", "yaml", "re2",
              "tempfile", "shutil", "bz2", "lzma", "random", "subprocess", "socket", "ssl", "threading", "logging",
              "asyncio", "concurrent", "email", "http", "sqlite3", "onnxruntime", "tokenizers", "mcp", "argparse",
              "gettext", "locale", "hashlib", "_hashlib", "pathlib", "urllib", "ipaddress", "ntpath")
#: Never imported by ``skillsift --help`` (click's group, the command table, no command module).
#: Not imported either once the config is read from its cache (a second commit): ``tomllib`` imports ``typing``.
WARM_NEVER = ("typing", "tomllib", "tomli")
HELP_NEVER = ("numpy", "jsonschema", "yaml", "re2", "dataclasses", "hashlib", "tempfile", "subprocess", "socket",
              "ssl", "asyncio", "sqlite3", "onnxruntime", "tokenizers", "mcp")

_PROBE = (
    "import json, sys\n"
    "from skillsift.cli import main\n"
    "try:\n"
    "    code = main(sys.argv[1:])\n"
    "except SystemExit as exc:\n"
    "    code = exc.code\n"
    "sys.stdout.flush()\n"
    "sys.stderr.write('\\nIMPORTED ' + json.dumps(sorted(sys.modules)) + '\\n')\n"
)


def _imported_modules(args: list[str], cwd, env_extra: dict) -> tuple[set[str], str]:
    """(every module imported, standard output) of ``skillsift ARGS`` in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), **env_extra}
    proc = subprocess.run([sys.executable, "-c", _PROBE, *args], cwd=cwd, capture_output=True, text=True,
                          env=env, check=False)
    line = next(x for x in proc.stderr.splitlines() if x.startswith("IMPORTED "))
    return set(json.loads(line[len("IMPORTED "):])), proc.stdout


def _imported(args: list[str], cwd, env_extra: dict) -> tuple[set[str], str]:
    """(the top-level packages imported, standard output) of ``skillsift ARGS``."""
    modules, out = _imported_modules(args, cwd, env_extra)
    return {m.split(".")[0] for m in modules}, out


def _repo(tmp_path):
    """Three skills with the frontmatter most SKILL.md files have: plain and quoted scalars, lists, one map."""
    repo = tmp_path / "repo"
    for name in ("deploy-staging", "issue-refund", "page-on-call"):
        words = name.replace("-", " ")
        write_skill(repo, name, f"Use when asked to {words}",
                    extra=f"tags: [ops, team]\ntriggers:\n  - {words} now\nmetadata:\n  owner: platform")
    (repo / "skillsift.toml").write_text("[validate]\nignore = [\"SK104\"]\n", encoding="utf-8")
    return repo


@pytest.mark.parametrize("hook", ["frontmatter", "secrets"])
@pytest.mark.parametrize("caches", ["written", "off"])
def test_a_hook_imports_none_of_the_heavy_modules(tmp_path, hook, caches):
    repo = _repo(tmp_path)
    env = {"SKILLSIFT_CACHE_DIR": str(tmp_path / "cache")}
    if caches == "off":
        env["SKILLSIFT_CACHE"] = "off"
    files = [".claude/skills/deploy-staging/SKILL.md", ".claude/skills/issue-refund/SKILL.md"]
    imported, out = _imported(["hook", hook, *files], repo, env)
    assert sorted(imported & set(HOOK_NEVER)) == []
    assert out == ""  # the hook ran and found nothing (it would print any finding)
    if caches == "written":
        assert any((tmp_path / "cache").rglob("*")), "the run wrote its caches"
        again, out = _imported(["hook", hook, *files], repo, env)  # the next commit: the config from its cache
        assert sorted(again & set(HOOK_NEVER + WARM_NEVER)) == [] and out == ""


def test_a_hook_still_reads_yaml_it_needs(tmp_path):
    """The list above is about simple frontmatter (a folded block scalar is simple): an anchor still goes
    through PyYAML and is checked."""
    repo = _repo(tmp_path)
    write_skill(repo, "folded", extra="description: >-\n  Use when a folded\n  description is written")
    imported, out = _imported(["hook", "frontmatter", ".claude/skills/folded/SKILL.md"], repo,
                              {"SKILLSIFT_CACHE": "off"})
    assert "yaml" not in imported and out == ""
    write_skill(repo, "anchored", "Use when an anchor is written", extra="metadata: &m {author: me}")
    imported, out = _imported(["hook", "frontmatter", ".claude/skills/anchored/SKILL.md"], repo,
                              {"SKILLSIFT_CACHE": "off"})
    assert "yaml" in imported and out == ""


def test_help_imports_none_of_the_heavy_modules(tmp_path):
    imported, out = _imported(["--help"], tmp_path, {"SKILLSIFT_CACHE_DIR": str(tmp_path / "cache")})
    assert "Usage:" in out and "validate" in out
    assert sorted(imported & set(HELP_NEVER)) == []


def test_help_imports_no_command_module(tmp_path):
    """The command list comes from skillsift.commands.group.SUMMARIES: a command module (and what it imports
    at its top for its command) loads only when that command runs."""
    modules, out = _imported_modules(["--help"], tmp_path, {"SKILLSIFT_CACHE_DIR": str(tmp_path / "cache")})
    assert "  search    Rank the skills for QUERY" in out
    assert sorted(m for m in modules if m.startswith("skillsift.commands.")) == ["skillsift.commands.group"]
    assert not any(m.startswith(("skillsift.usecases", "skillsift.validators", "skillsift.ranker")) for m in modules)


def test_a_lexical_search_imports_no_numpy(tmp_path):
    """A lexical search ranks no vector row: neither the model nor numpy loads (the check of the rows a search
    hands out runs only when rows ranked; docs/vector-index.md, "Rows checked at search time")."""
    repo = _repo(tmp_path)
    imported, out = _imported(["search", "issue a refund"], repo, {"SKILLSIFT_CACHE_DIR": str(tmp_path / "cache")})
    assert "issue-refund" in out
    assert sorted(imported & {"numpy", "onnxruntime", "tokenizers", "jsonschema"}) == []


_COLLECTOR = (
    "import gc, sys\n"
    "from skillsift.cli import main\n"
    "sys.argv = ['skillsift'] + sys.argv[2:]\n"
    "code = main(None if sys.argv[1:2] != ['--host'] else sys.argv[2:])\n"
    "sys.stdout.flush()\n"
    "sys.stderr.write(f'\\nCOLLECTOR {code} {gc.isenabled()} {gc.get_freeze_count() > 0}\\n')\n"
)


@pytest.mark.parametrize("host", [False, True])
def test_the_console_script_freezes_what_it_made_and_a_host_keeps_its_collector(tmp_path, host):
    """As the whole process (``main()``), a hook runs with the collector on and leaves everything frozen, so
    the collections at exit walk nothing; called with arguments (a host, a test), the collector is untouched."""
    repo = _repo(tmp_path)
    args = ["hook", "frontmatter", ".claude/skills/deploy-staging/SKILL.md"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SKILLSIFT_CACHE": "off"}
    proc = subprocess.run([sys.executable, "-c", _COLLECTOR, "x", *(["--host"] if host else []), *args], cwd=repo,
                          capture_output=True, text=True, env=env, check=False)
    line = next(x for x in proc.stderr.splitlines() if x.startswith("COLLECTOR "))
    assert line.split()[1:] == ["0", "True", str(not host)]
    assert proc.stdout == ""


#: Never imported by ``skillsift search`` with plain arguments once its caches are written (a second search):
#: click parses only what commands/search_run.py leaves to it, and the lexical path makes no dataclass.
SEARCH_NEVER = ("click", "dataclasses", "inspect", "ast", "dis", "tokenize", "typing", "numpy", "jsonschema",
                "yaml", "tempfile", "subprocess", "onnxruntime", "tokenizers", "mcp")


def test_a_plain_search_imports_none_of_the_heavy_modules(tmp_path):
    repo = _repo(tmp_path)
    env = {"SKILLSIFT_CACHE_DIR": str(tmp_path / "cache")}
    first, out = _imported(["search", "deploy", "--limit", "2", "--format=json"], repo, env)
    again, again_out = _imported(["search", "deploy", "--limit", "2", "--format=json"], repo, env)
    assert json.loads(out)["results"][0]["name"] == "deploy-staging" and again_out == out
    assert sorted(again & set(SEARCH_NEVER)) == []
    assert "click" in _imported(["search", "deploy", "--limit", "0"], repo, env)[0]  # refused: click says why


_PARSES = (
    "import json, sys\n"
    "import re._parser as parser\n"
    "real, callers = parser.parse, []\n"
    "def parse(*args, **kwargs):\n"
    "    frame = sys._getframe(1)\n"
    "    while frame.f_code.co_filename.replace('\\\\', '/').rsplit('/', 2)[-2:-1] == ['re']:\n"
    "        frame = frame.f_back\n"
    "    callers.append(frame.f_code.co_filename)\n"
    "    return real(*args, **kwargs)\n"
    "parser.parse = parse\n"
    "from skillsift.cli import main\n"
    "sys.argv = ['skillsift'] + sys.argv[1:]\n"
    "code = main()\n"
    "sys.stdout.flush()\n"
    "sys.stderr.write('\\nPARSED ' + json.dumps(callers) + '\\n')\n"
)


@pytest.mark.parametrize("hook", ["frontmatter", "secrets"])
def test_the_next_run_of_a_hook_compiles_none_of_its_patterns(tmp_path, hook):
    """The console script keeps the patterns it compiled (skillsift/cache/regexes.py): a second commit's hook
    takes every pattern of skillsift from the cache (the standard library's own, json's, are compiled as ever)."""
    repo = _repo(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SKILLSIFT_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("SKILLSIFT_CACHE", None)
    files = [".claude/skills/deploy-staging/SKILL.md", ".claude/skills/issue-refund/SKILL.md"]
    callers = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", _PARSES, "hook", hook, *files], cwd=repo, capture_output=True,
                              text=True, env=env, check=False)
        line = next(x for x in proc.stderr.splitlines() if x.startswith("PARSED "))
        callers.append([c.replace("\\", "/") for c in json.loads(line[len("PARSED "):])])
        assert proc.stdout == ""
    ours = [[c for c in run if "/skillsift/" in c] for run in callers]
    assert len(ours[0]) > 10  # the first run compiled the checks' patterns
    assert ours[1] == []
    assert any((tmp_path / "cache" / "regex").glob("*.json"))
