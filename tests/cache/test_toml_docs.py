"""The parsed-config cache (skillsift/cache/toml_docs.py): a hit is exactly what the TOML parser
gives, a warm hook does not import the parser, and what JSON cannot carry or what does not parse
is never taken from the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from skillsift.cache.toml_docs import TomlCache
from skillsift.config import load_config
from skillsift.config.sources import toml_module
from skillsift.diagnostics import SkillsiftError

CONFIG = """\
[search]
mode = "lexical"
rrf_k = 7

[validate]
ignore = ["SK012"]
"""


def counting_parser(calls: list):
    def parse(text):
        calls.append(text)
        return toml_module().loads(text)

    return parse


def test_a_hit_gives_what_the_parser_gives_and_does_not_parse(tmp_path, cache_dir):
    calls: list = []
    first = TomlCache(tmp_path).loads(CONFIG, counting_parser(calls))
    second = TomlCache(tmp_path).loads(CONFIG, counting_parser(calls))
    assert first == second == toml_module().loads(CONFIG)
    assert len(calls) == 1  # the second came from the file the first wrote
    assert list((cache_dir / "config").iterdir())


def test_a_changed_text_is_parsed_again(tmp_path, cache_dir):
    calls: list = []
    TomlCache(tmp_path).loads(CONFIG, counting_parser(calls))
    changed = CONFIG.replace("rrf_k = 7", "rrf_k = 8")
    assert TomlCache(tmp_path).loads(changed, counting_parser(calls))["search"]["rrf_k"] == 8
    assert calls == [CONFIG, changed]
    # both texts are kept: switching back (a branch checkout) is a hit
    assert TomlCache(tmp_path).loads(CONFIG, counting_parser(calls))["search"]["rrf_k"] == 7
    assert len(calls) == 2


@pytest.mark.parametrize("text", ['when = 1979-05-27T07:32:00Z\n', "x = inf\n", "x = nan\n", 'd = 07:32:00\n'])
def test_a_document_json_cannot_carry_is_parsed_every_time(tmp_path, cache_dir, text):
    calls: list = []
    for _ in range(2):
        assert TomlCache(tmp_path).loads(text, counting_parser(calls)).keys() == toml_module().loads(text).keys()
    assert len(calls) == 2


def test_a_syntax_error_is_the_parsers_own_on_every_run(tmp_path, cache_dir):
    (tmp_path / "skillsift.toml").write_text("[search]\nmode = \n", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(SkillsiftError) as raised:
            load_config(tmp_path)
        problems = raised.value.diagnostics
        assert [(p.code, p.line) for p in problems] == [("AR9D0", 2)]
        assert "is not valid TOML" in problems[0].message
    assert not (cache_dir / "config").exists() or not any((cache_dir / "config").iterdir())


def test_an_entry_of_another_shape_is_a_miss(tmp_path, cache_dir):
    calls: list = []
    TomlCache(tmp_path).loads(CONFIG, counting_parser(calls))
    (path,) = list((cache_dir / "config").iterdir())
    doc = json.loads(path.read_bytes())
    doc["entries"] = {key: ["not", "a", "table"] for key in doc["entries"]}
    path.write_text(json.dumps(doc), encoding="ascii")
    os.chmod(path, 0o600)
    assert TomlCache(tmp_path).loads(CONFIG, counting_parser(calls)) == toml_module().loads(CONFIG)
    assert len(calls) == 2


def test_caches_off_parses_every_time(tmp_path, cache_dir, monkeypatch):
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    calls: list = []
    for _ in range(2):
        TomlCache(tmp_path).loads(CONFIG, counting_parser(calls))
    assert len(calls) == 2
    assert not cache_dir.exists()


def test_the_config_read_from_the_cache_equals_the_one_parsed(tmp_path, cache_dir, monkeypatch):
    (tmp_path / "skillsift.toml").write_text(CONFIG, encoding="utf-8")
    cold = load_config(tmp_path)
    warm = load_config(tmp_path)
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    off = load_config(tmp_path)
    assert cold.search == warm.search == off.search
    assert cold.validate == warm.validate == off.validate
    assert cold.search.rrf_k == 7


def test_a_warm_hook_does_not_import_the_toml_parser(tmp_path, cache_dir):
    skill = tmp_path / ".claude" / "skills" / "deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: deploy\ndescription: Deploys the service to staging. Use when "
                                    "the user asks to ship a build.\n---\n\n# Deploy\n", encoding="utf-8")
    (tmp_path / "skillsift.toml").write_text(CONFIG, encoding="utf-8")
    code = ("import sys\nfrom skillsift.cli import main\n"
            "code = main(['hook', 'frontmatter', '.claude/skills/deploy/SKILL.md'])\n"
            "print(code, 'tomllib' in sys.modules or 'tomli' in sys.modules)")
    env = {**os.environ, "SKILLSIFT_CACHE_DIR": str(cache_dir)}
    runs = [subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                           check=True).stdout.split()[-2:] for _ in range(2)]
    assert runs == [["0", "True"], ["0", "False"]]
