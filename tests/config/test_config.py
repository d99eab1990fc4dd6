"""Configuration: files, precedence (reference §9.3), trust, AR9D0 validation (§9.2, §10.6, §10.10)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from skillsift.config import (
    DEFAULT_FIELDS,
    Config,
    SearchConfig,
    committed_index,
    find_key_line,
    index_path,
    load_config,
    local_dir,
    resolve,
    user_config_file,
    validate_embeddings_table,
    validate_search_table,
)
from skillsift.diagnostics import SkillsiftError
from tests.conftest import ROOT

DOCS = ROOT / "docs" / "configuration.md"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def load(root: Path, *, user: str | None = None, env=None, **kwargs) -> Config:
    """load_config with an explicit (possibly absent) user file and an explicit environment."""
    user_path = root.parent / f"{root.name}-user.toml"
    if user is not None:
        write(user_path, user)
    return load_config(root, env={} if env is None else env, user_config_path=user_path, **kwargs)


def failure(root: Path, **kwargs) -> SkillsiftError:
    with pytest.raises(SkillsiftError) as info:
        load(root, **kwargs)
    assert info.value.exit_code == 1
    assert info.value.message.startswith("AR9D0: ")
    assert all(d.code == "AR9D0" for d in info.value.diagnostics)
    return info.value


# --- §9.2: every problem message, exactly, in the validation order -----------------------------------------

SEARCH_PROBLEMS = [
    ({"mode": "semantic"}, 'search.mode "semantic" must be lexical, hybrid or vector'),
    ({"fusion": "sum"}, 'search.fusion "sum" must be auto, rrf, weighted, blend, zscore or zscore-mnz'),
    ({"dtype": "int8"}, 'search.dtype "int8" must be float32 or float16'),
    ({"fields": ["body"]}, 'search.fields entry "body" must be name, triggers, keywords or description'),
    ({"body_chars": 20001}, "search.body_chars must be between 0 and 20000"),
    ({"body_chars": -1}, "search.body_chars must be between 0 and 20000"),
    ({"rrf_k": -1}, "search.rrf_k must not be negative"),
    ({"weights": {"lexical": -0.5}}, "search.weights must not be negative"),
    ({"weights": {"vector": -1}}, "search.weights must not be negative"),
    ({"vector_min_sim": 1.5}, "search.vector_min_sim must be between 0 and 1"),
    ({"vector_min_sim": -0.1}, "search.vector_min_sim must be between 0 and 1"),
    ({"candidates": 1001}, "search.candidates must be between 0 and 1000"),
    ({"batch_size": 2049}, "search.batch_size must be between 0 and 2048"),
    ({"query_timeout_ms": -1}, "search.query_timeout_ms must be between 0 and 60000"),
    ({"query_timeout_ms": 60001}, "search.query_timeout_ms must be between 0 and 60000"),
    ({"index_dir": "/tmp/x"}, "search.index_dir must be a relative path inside the config directory"),
    ({"index_dir": "\\share\\x"}, "search.index_dir must be a relative path inside the config directory"),
    ({"index_dir": "C:/index"}, "search.index_dir must be a relative path inside the config directory"),
    ({"index_dir": "a\x00b"}, "search.index_dir must be a relative path inside the config directory"),
    ({"index_dir": "../elsewhere"}, "search.index_dir must stay inside the config directory"),
    ({"index_dir": "a/../../b"}, "search.index_dir must stay inside the config directory"),
    ({"index_dir": "a/../b"}, "search.index_dir must stay inside the config directory"),
    ({"index_dir": "."}, "search.index_dir must stay inside the config directory"),
    ({"index_dir": ".."}, "search.index_dir must stay inside the config directory"),
]


@pytest.mark.parametrize(("table", "message"), SEARCH_PROBLEMS)
def test_each_search_problem_has_the_reference_message(table, message):
    assert validate_search_table(table) == [message]


def test_valid_search_tables_have_no_problem():
    assert validate_search_table({}) == []
    zero = {
        "mode": "",
        "fusion": "",
        "dtype": "",
        "fields": [],
        "body_chars": 0,
        "rrf_k": 0,
        "weights": {"lexical": 0, "vector": 0},
        "vector_min_sim": 0,
        "candidates": 0,
        "batch_size": 0,
        "query_timeout_ms": 0,
        "index_dir": "",
        "index_body": False,
        "log_queries": False,
    }
    assert validate_search_table(zero) == []
    full = {
        "mode": "hybrid",
        "fusion": "weighted",
        "dtype": "float16",
        "fields": ["description", "name"],
        "body_chars": 20000,
        "rrf_k": 10,
        "weights": {"lexical": 0.5, "vector": 2},
        "vector_min_sim": 1,
        "candidates": 1000,
        "batch_size": 2048,
        "query_timeout_ms": 60000,
        "index_dir": "search-index/v1",
        "index_body": True,
        "log_queries": True,
    }
    assert validate_search_table(full) == []


def test_search_problems_come_in_reference_order_then_unknown_keys():
    table = {
        "zzz": 1,
        "index_dir": "../x",
        "query_timeout_ms": -1,
        "batch_size": -1,
        "candidates": -1,
        "vector_min_sim": 2,
        "weights": {"lexical": -1, "extra": 1},
        "rrf_k": -1,
        "body_chars": -1,
        "fields": ["body", "title"],
        "dtype": "int8",
        "fusion": "sum",
        "mode": "semantic",
    }
    assert validate_search_table(table) == [
        'search.mode "semantic" must be lexical, hybrid or vector',
        'search.fusion "sum" must be auto, rrf, weighted, blend, zscore or zscore-mnz',
        'search.dtype "int8" must be float32 or float16',
        'search.fields entry "body" must be name, triggers, keywords or description',
        'search.fields entry "title" must be name, triggers, keywords or description',
        "search.body_chars must be between 0 and 20000",
        "search.rrf_k must not be negative",
        "search.weights must not be negative",
        "search.vector_min_sim must be between 0 and 1",
        "search.candidates must be between 0 and 1000",
        "search.batch_size must be between 0 and 2048",
        "search.query_timeout_ms must be between 0 and 60000",
        "search.index_dir must stay inside the config directory",
        'search.weights: unknown key "extra"',
        'search: unknown key "zzz"',
    ]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"candidates": "50"}, "search.candidates must be an integer"),
        ({"candidates": 50.0}, "search.candidates must be an integer"),
        ({"candidates": True}, "search.candidates must be an integer"),
        ({"mode": 1}, "search.mode must be a string"),
        ({"fields": "name"}, "search.fields must be a list of strings"),
        ({"fields": ["name", 2]}, "search.fields must be a list of strings"),
        ({"index_body": "yes"}, "search.index_body must be true or false"),
        ({"log_queries": 1}, "search.log_queries must be true or false"),
        ({"weights": 1.0}, "search.weights must be a table"),
        ({"weights": {"lexical": "high"}}, "search.weights.lexical must be a number"),
        ({"vector_min_sim": "0.5"}, "search.vector_min_sim must be a number"),
        ({"vector_min_sim": False}, "search.vector_min_sim must be a number"),
    ],
)
def test_wrong_toml_types_are_named(table, message):
    assert validate_search_table(table) == [message]


def test_integers_are_accepted_where_numbers_are_expected():
    assert validate_search_table({"vector_min_sim": 1, "weights": {"lexical": 2}}) == []


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"provider": "x"}, 'embeddings.provider "x" must be local, openai or command'),
        ({"command": [" "]}, "embeddings.command must start with a program"),
        ({"command": "embed"}, "embeddings.command must be a list of strings"),
        ({"pass_env": ["OK", "A=B"]}, 'embeddings.pass_env holds an invalid variable name "A=B"'),
        ({"pass_env": [" "]}, 'embeddings.pass_env holds an invalid variable name " "'),
        ({"pass_env": ["NUL\x00"]}, 'embeddings.pass_env holds an invalid variable name "NUL\x00"'),
        ({"max_calls": -1}, "embeddings.max_calls must not be negative"),
        ({"max_tokens": -5}, "embeddings.max_tokens must not be negative"),
        ({"max_cost_usd": -0.01}, "embeddings.max_cost_usd must not be negative"),
        ({"price_input_per_mtok": -1}, "embeddings.price_input_per_mtok must not be negative"),
        ({"timeout_seconds": -1}, "embeddings.timeout_seconds must not be negative"),
        ({"max_retries": 11}, "embeddings.max_retries must be between 0 and 10"),
        ({"max_calls": 1.5}, "embeddings.max_calls must be an integer"),
        ({"allow_network": "yes"}, "embeddings.allow_network must be true or false"),
        (
            {"base_url": "api.openai.com/v1"},
            'embeddings.base_url "api.openai.com/v1" must start with http:// or https://',
        ),
        ({"api_key_env": "A=B"}, 'embeddings.api_key_env holds an invalid variable name "A=B"'),
        ({"dims": 384}, 'embeddings: unknown key "dims"'),
    ],
)
def test_embeddings_problems(table, message):
    assert validate_embeddings_table(table) == [message]


def test_valid_embeddings_table():
    table = {
        "provider": "openai",
        "model": "text-embedding-3-small",
        "base_url": "http://127.0.0.1:11434/v1",
        "api_key_env": "OPENAI_API_KEY",
        "command": [],
        "pass_env": ["EMBED_TOKEN"],
        "allow_network": True,
        "max_calls": 10,
        "max_tokens": 1000,
        "max_cost_usd": 0.5,
        "price_input_per_mtok": 0.02,
        "timeout_seconds": 30,
        "max_retries": 0,
        "cache": False,
    }
    assert validate_embeddings_table(table) == []


# --- AR9D0 from files: all problems together, with files and lines -----------------------------------------


def test_all_problems_are_raised_together_with_file_and_line(tmp_path):
    write(
        tmp_path / "skillsift.toml",
        """
        # project settings
        [search]
        mode = "semantic"
        candidates = "50"
        weights = { lexical = -1, vector = 1 }
        bogus = true

        [search.extra]
        x = 1

        [embeddings]
        provider = "x"
        command = [" "]

        [catalog]
        skills = ["skills", ""]

        [roles.ops]
        skills = ["deploy-*"]
        members = ["x"]

        [secrets]
        patterns = [{ name = "internal", regex = "tok_[" }]

        [oops]
        a = 1
    """,
    )
    error = failure(tmp_path)
    found = [(d.file, d.line, d.message) for d in error.diagnostics]
    assert found == [
        ("skillsift.toml", 3, 'search.mode "semantic" must be lexical, hybrid or vector'),
        ("skillsift.toml", 5, "search.weights must not be negative"),
        ("skillsift.toml", 4, "search.candidates must be an integer"),
        ("skillsift.toml", 6, 'search: unknown key "bogus"'),
        ("skillsift.toml", 8, 'search: unknown key "extra"'),
        ("skillsift.toml", 12, 'embeddings.provider "x" must be local, openai or command'),
        ("skillsift.toml", 13, "embeddings.command must start with a program"),
        ("skillsift.toml", 16, "catalog.skills holds a blank entry"),
        ("skillsift.toml", 20, 'roles.ops: unknown key "members"'),
        ("skillsift.toml", 23, found[9][2]),
        (
            "skillsift.toml",
            25,
            'unknown key "oops" '
            "(known tables: search, embeddings, catalog, roles, secrets, validate, sources, judge)",
        ),
    ]
    assert found[9][2].startswith("secrets.patterns entry 1: regex does not compile: ")
    assert error.message == "AR9D0: " + "; ".join(m for _f, _l, m in found)


def test_problems_of_both_files_and_of_the_environment_are_reported_at_once(tmp_path):
    write(tmp_path / "skillsift.toml", '[search]\nmode = "semantic"\n')
    error = failure(
        tmp_path,
        user='[search]\n\nrrf_k = -3\n[catalog]\nskills = ["x"]\n',
        env={"SKILLSIFT_SEARCH_MODE": " fuzzy "},
    )
    user_file = str(tmp_path.parent / f"{tmp_path.name}-user.toml")
    assert [(d.file, d.line, d.message) for d in error.diagnostics] == [
        ("skillsift.toml", 2, 'search.mode "semantic" must be lexical, hybrid or vector'),
        (user_file, 3, "search.rrf_k must not be negative"),
        (user_file, 4, 'unknown key "catalog" (known tables: search, embeddings, secrets, judge)'),
        ("", None, 'SKILLSIFT_SEARCH_MODE "fuzzy" must be lexical, hybrid or vector'),
    ]


def test_the_flag_mode_is_the_one_checked_when_given(tmp_path):
    # the reference validates the mode that takes effect: --mode over the environment
    config = load(tmp_path, env={"SKILLSIFT_SEARCH_MODE": "fuzzy"}, mode=" vector ")
    assert config.search.mode == "vector"
    error = failure(tmp_path, env={"SKILLSIFT_SEARCH_MODE": "fuzzy"}, mode="deep")
    assert [(d.file, d.line, d.message) for d in error.diagnostics] == [
        ("", None, '--mode "deep" must be lexical, hybrid or vector'),
    ]


@pytest.mark.parametrize(
    ("where", "kwargs", "needle"),
    [
        ("repo", {}, 'search.mode "semantic"'),
        ("flag", {"mode": "semantic"}, '--mode "semantic"'),
        ("env", {"env": {"SKILLSIFT_SEARCH_MODE": "semantic"}}, 'SKILLSIFT_SEARCH_MODE "semantic"'),
    ],
)
def test_bad_mode_from_repo_flag_or_env_is_ar9d0_naming_its_source(tmp_path, where, kwargs, needle):
    write(tmp_path / "skillsift.toml", '[search]\nmode = "semantic"\n' if where == "repo" else "[search]\n")
    error = failure(tmp_path, **kwargs)
    assert "AR9D0" in error.message and needle in error.message


def test_index_dir_outside_the_root_is_ar9d0(tmp_path):
    write(tmp_path / "skillsift.toml", '[search]\nindex_dir = "../x"\n')
    error = failure(tmp_path)
    assert error.message == "AR9D0: search.index_dir must stay inside the config directory"
    assert error.diagnostics[0].line == 2


def test_toml_syntax_error_is_ar9d0_with_file_and_line(tmp_path):
    write(tmp_path / "skillsift.toml", '[search]\nmode = "hybrid"\ncandidates = \n')
    error = failure(tmp_path)
    (diag,) = error.diagnostics
    assert (diag.file, diag.line, diag.column) == ("skillsift.toml", 3, 14)
    assert diag.message.startswith("skillsift.toml is not valid TOML (line 3): ")
    assert diag.hint


def test_toml_syntax_error_in_the_user_file_is_reported(tmp_path):
    error = failure(tmp_path, user='[search]\nmode = "hybrid\n')
    (diag,) = error.diagnostics
    assert diag.file.endswith("-user.toml") and diag.line == 2


def test_missing_config_file_given_explicitly_is_an_error(tmp_path):
    error = failure(tmp_path, config_file=tmp_path / "nope.toml")
    assert error.diagnostics[0].message == "config file nope.toml does not exist"


# --- where the project config comes from -------------------------------------------------------------------


def test_skillsift_toml_is_read_into_typed_fields(tmp_path):
    write(
        tmp_path / "skillsift.toml",
        """
        [search]
        mode = "hybrid"
        [catalog]
        skills = ["skills", "plugins/*/skills"]
        [roles.backend]
        skills = ["api-*", "db-migrate"]
        [roles.analyst]
        skills = ["sql-*"]
        [secrets]
        patterns = [{ name = "internal-token", regex = "itk_[a-z0-9]{20}" }]
        [validate]
        max_flips = 2
    """,
    )
    config = load(tmp_path, user='[secrets]\npatterns = [{ name = "mine", regex = "m_[0-9]+" }]\n')
    assert config.search.mode == "hybrid"
    assert config.skills == ("skills", "plugins/*/skills")
    assert config.roles == {"analyst": ("sql-*",), "backend": ("api-*", "db-migrate")}
    assert list(config.roles) == ["analyst", "backend"]
    assert config.secret_patterns == (("internal-token", "itk_[a-z0-9]{20}"), ("mine", "m_[0-9]+"))
    assert config.validate.max_flips == 2
    assert config.project_file == "skillsift.toml"
    assert config.user_file == str(tmp_path.parent / f"{tmp_path.name}-user.toml")
    assert config.sources == ("skillsift.toml", str(tmp_path.parent / f"{tmp_path.name}-user.toml"))
    assert config.root == str(tmp_path.resolve())


def test_pyproject_tool_table_is_read_with_lines_in_pyproject(tmp_path):
    write(
        tmp_path / "pyproject.toml",
        """
        [project]
        name = "demo"

        [tool.skillsift.search]
        mode = "vector"
        candidates = 20

        [tool.skillsift.embeddings]
        model = "all-MiniLM-L6-v2"
    """,
    )
    config = load(tmp_path)
    assert (config.search.mode, config.search.candidates) == ("vector", 20)
    assert config.embeddings.model == "all-MiniLM-L6-v2"
    assert config.sources == ("pyproject.toml",)

    write(
        tmp_path / "pyproject.toml", '[project]\nname = "demo"\n\n[tool.skillsift.search]\nfusion = "sum"\n'
    )
    (diag,) = failure(tmp_path).diagnostics
    assert (diag.file, diag.line) == ("pyproject.toml", 5)


def test_pyproject_without_a_skillsift_table_is_skipped(tmp_path):
    write(tmp_path / "pyproject.toml", '[project]\nname = "demo"\n[tool.ruff]\nline-length = 100\n')
    write(tmp_path / ".ai-rulez" / "config.toml", '[search]\nmode = "hybrid"\n')
    config = load(tmp_path)
    assert config.search.mode == "hybrid"
    assert config.sources == (".ai-rulez/config.toml",)


def test_a_broken_pyproject_that_does_not_mention_skillsift_is_not_ours_to_report(tmp_path):
    write(tmp_path / "pyproject.toml", "[project\n")
    assert load(tmp_path).sources == ()
    write(tmp_path / "pyproject.toml", "[tool.skillsift.search\n")
    assert failure(tmp_path).diagnostics[0].file == "pyproject.toml"


def test_skillsift_toml_wins_over_pyproject_and_ai_rulez(tmp_path):
    write(tmp_path / "skillsift.toml", '[search]\nmode = "lexical"\n')
    write(tmp_path / "pyproject.toml", '[tool.skillsift.search]\nmode = "vector"\n')
    write(tmp_path / ".ai-rulez" / "config.toml", '[search]\nmode = "hybrid"\n')
    assert load(tmp_path).search.mode == "lexical"
    (tmp_path / "skillsift.toml").unlink()
    assert load(tmp_path).search.mode == "vector"


def test_ai_rulez_config_search_table_is_mapped(tmp_path):
    write(
        tmp_path / ".ai-rulez" / "config.toml",
        """
        [llm]
        provider = "gemini"

        [search]
        mode = "hybrid"
        weights = { lexical = 2.0, vector = 1.0 }
        index_dir = "search-index"

        [search.embeddings]
        command = ["/bin/embed", "--fast"]
        model = "my-model"
        pass_env = ["EMBED_TOKEN"]
    """,
    )
    config = load(tmp_path, allow_exec=True)
    assert config.search.mode == "hybrid"
    assert config.search.weight_lexical == 2.0
    assert config.search.index_dir == ".ai-rulez/search-index"
    assert index_path(config) == tmp_path.resolve() / ".ai-rulez" / "search-index"
    assert committed_index(config)
    assert config.embeddings.provider == "command"
    assert config.embeddings.command == ("/bin/embed", "--fast")
    assert config.embeddings.pass_env == ("EMBED_TOKEN",)
    assert config.embeddings.model == "my-model"
    assert config.repository_model == "my-model"
    assert config.repository_command == ("/bin/embed", "--fast")


def test_ai_rulez_problems_use_its_table_names_and_lines(tmp_path):
    write(
        tmp_path / ".ai-rulez" / "config.toml",
        """
        [search]
        index_dir = "local/search"
        dtype = "int8"

        [search.embeddings]
        command = [""]
        provider = "openai"
    """,
    )
    error = failure(tmp_path)
    assert [(d.file, d.line, d.message) for d in error.diagnostics] == [
        (".ai-rulez/config.toml", 3, 'search.dtype "int8" must be float32 or float16'),
        (".ai-rulez/config.toml", 6, "search.embeddings.command must start with a program"),
        (".ai-rulez/config.toml", 7, 'search.embeddings: unknown key "provider"'),
    ]


def test_ai_rulez_local_index_is_machine_local(tmp_path):
    write(tmp_path / ".ai-rulez" / "config.toml", '[search]\nindex_dir = "local/search"\n')
    config = load(tmp_path)
    assert config.search.index_dir == ".ai-rulez/local/search"
    assert not committed_index(config)


def test_ai_rulez_config_given_with_config_flag_keeps_its_directory(tmp_path):
    other = write(tmp_path / "vendor" / ".ai-rulez" / "config.toml", '[search]\nindex_dir = "idx"\n')
    config = load(tmp_path, config_file=other)
    assert config.search.index_dir == "vendor/.ai-rulez/idx"
    assert config.sources == ("vendor/.ai-rulez/config.toml",)


def test_ai_rulez_config_without_search_table_is_not_a_source(tmp_path):
    write(tmp_path / ".ai-rulez" / "config.toml", '[llm]\nprovider = "gemini"\n')
    config = load(tmp_path)
    assert config.sources == () and config.search == SearchConfig()


def test_config_file_flag_replaces_the_discovery(tmp_path):
    write(tmp_path / "skillsift.toml", '[search]\nmode = "lexical"\n')
    other = write(tmp_path / "ci" / "search.toml", '[search]\nmode = "vector"\n')
    config = load(tmp_path, config_file=other)
    assert config.search.mode == "vector"
    assert config.sources == ("ci/search.toml",)
    outside = write(tmp_path.parent / "elsewhere.toml", '[search]\nmode = "hybrid"\n')
    assert load(tmp_path, config_file=outside).sources == (str(outside),)
    pyproject = write(tmp_path / "sub" / "pyproject.toml", '[tool.skillsift.search]\nmode = "hybrid"\n')
    assert load(tmp_path, config_file=pyproject).search.mode == "hybrid"


def test_no_config_at_all_gives_the_defaults(tmp_path):
    config = load(tmp_path)
    assert config.search == SearchConfig()
    assert config.search.index_dir == ".skillsift/index"
    assert config.notes == () and config.sources == ()
    assert (config.project_file, config.user_file, config.repository_model) == ("", "", "")


# --- user config location ----------------------------------------------------------------------------------


def test_user_config_location_follows_xdg_then_home(tmp_path):
    assert user_config_file({"XDG_CONFIG_HOME": "/x/cfg", "HOME": "/h"}) == Path(
        "/x/cfg/skillsift/config.toml"
    )
    assert user_config_file({"XDG_CONFIG_HOME": "relative", "HOME": "/h"}) == Path(
        "/h/.config/skillsift/config.toml"
    )
    assert user_config_file({"HOME": "/h"}) == Path("/h/.config/skillsift/config.toml")
    assert user_config_file({}) is None


def test_user_config_is_read_from_xdg_config_home(tmp_path):
    xdg = tmp_path / "xdg"
    write(xdg / "skillsift" / "config.toml", '[search]\nmode = "vector"\n')
    project = tmp_path / "project"
    project.mkdir()
    config = load_config(project, env={"XDG_CONFIG_HOME": str(xdg)})
    assert config.search.mode == "vector"
    assert config.sources == (str(xdg / "skillsift" / "config.toml"),)
    home = tmp_path / "home"
    write(home / ".config" / "skillsift" / "config.toml", '[search]\nmode = "hybrid"\n')
    assert load_config(project, env={"HOME": str(home)}).search.mode == "hybrid"


# --- §9.3 precedence ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("repo", "user", "env", "flag", "expected"),
    [
        ("hybrid", "vector", None, None, "vector"),  # user over repository
        ("hybrid", None, None, None, "hybrid"),
        ("hybrid", "", None, None, "hybrid"),  # an empty user value is not set
        ("vector", "hybrid", None, "lexical", "lexical"),  # --mode lexical over user
        ("vector", "hybrid", "lexical", None, "lexical"),  # env lexical over user
        ("vector", "hybrid", "  hybrid ", None, "hybrid"),  # env trimmed
        ("vector", None, "   ", None, "vector"),  # blank env ignored
        ("vector", None, "hybrid", "lexical", "lexical"),  # flag over env
        (None, None, None, None, "lexical"),
    ],
)
def test_mode_precedence(tmp_path, repo, user, env, flag, expected):
    write(tmp_path / "skillsift.toml", f'[search]\nmode = "{repo}"\n' if repo else "")
    config = load(
        tmp_path,
        user=f'[search]\nmode = "{user}"\n' if user is not None else None,
        env={"SKILLSIFT_SEARCH_MODE": env} if env is not None else {},
        mode=flag,
    )
    assert config.search.mode == expected


@pytest.mark.parametrize(
    ("user", "expected"),
    [
        (None, 1.0),  # user unset -> repository
        ("[search]\nvector_min_sim = 0.4\n", 0.4),
        ("[search]\nvector_min_sim = 0\n", 0.0),  # explicit 0 switches the repository threshold off
        ('[search]\nmode = "hybrid"\n', 1.0),  # user table without the key
    ],
)
def test_vector_min_sim_precedence(tmp_path, user, expected):
    write(tmp_path / "skillsift.toml", "[search]\nvector_min_sim = 1\n")
    assert load(tmp_path, user=user).search.vector_min_sim == expected


def test_user_values_win_key_by_key_only_when_set(tmp_path):
    write(
        tmp_path / "skillsift.toml",
        """
        [search]
        fusion = "rrf"
        dtype = "float16"
        fields = ["name", "description"]
        index_body = true
        body_chars = 500
        rrf_k = 30
        candidates = 20
        query_timeout_ms = 300
        batch_size = 16
        index_dir = "search-index"
        weights = { lexical = 2.0, vector = 3.0 }
    """,
    )
    user = """
        [search]
        fusion = ""
        fields = []
        index_body = false
        body_chars = 0
        rrf_k = 90
        candidates = 0
        batch_size = 8
        index_dir = ""
        weights = { lexical = 0.0, vector = 0.5 }
    """
    s = load(tmp_path, user=user).search
    assert (s.fusion, s.dtype, s.fields) == ("rrf", "float16", ("name", "description"))
    assert s.index_body is True  # OR-ed: a user cannot turn it off
    assert (s.body_chars, s.rrf_k, s.candidates, s.query_timeout_ms, s.batch_size) == (500, 90, 20, 300, 8)
    assert s.index_dir == "search-index"
    assert (s.weight_lexical, s.weight_vector) == (2.0, 0.5)  # component-wise


def test_user_can_turn_index_body_on_and_replace_lists(tmp_path):
    write(tmp_path / "skillsift.toml", '[search]\nfields = ["name"]\nfusion = "rrf"\n')
    s = load(
        tmp_path,
        user='[search]\nindex_body = true\nfields = ["description"]\nfusion = "weighted"\n'
        'index_dir = "mine/index"\n',
    ).search
    assert (s.index_body, s.fields, s.fusion, s.index_dir) == (
        True,
        ("description",),
        "weighted",
        "mine/index",
    )


def test_zero_and_empty_values_resolve_to_defaults(tmp_path):
    write(
        tmp_path / "skillsift.toml",
        """
        [search]
        mode = ""
        fields = []
        body_chars = 0
        rrf_k = 0
        candidates = 0
        query_timeout_ms = 0
        batch_size = 0
        weights = { lexical = 0, vector = 0 }
        index_dir = ""
        [embeddings]
        timeout_seconds = 0
    """,
    )
    config = load(tmp_path)
    assert config.search == SearchConfig()
    assert config.search.fields == ("description", "triggers", "keywords")  # the name is not embedded
    assert set(config.search.fields) < set(DEFAULT_FIELDS) and config.search.fusion == "zscore-mnz"
    assert (config.search.body_chars, config.search.rrf_k, config.search.candidates) == (1200, 60, 50)
    assert (config.search.query_timeout_ms, config.search.batch_size) == (800, 64)
    assert (config.search.weight_lexical, config.search.weight_vector) == (1.0, 1.0)
    assert config.embeddings.timeout_seconds == 60.0


def test_index_dir_is_normalised(tmp_path):
    write(tmp_path / "skillsift.toml", '[search]\nindex_dir = "./search-index//v1/"\n')
    assert load(tmp_path).search.index_dir == "search-index/v1"


# --- trust -------------------------------------------------------------------------------------------------

NETWORK_NOTE = (
    "embeddings.allow_network in the repository config is ignored: a repository cannot open the network; "
    "set it in the user config file or SKILLSIFT_ALLOW_NETWORK=1"
)
LOG_NOTE = (
    "search.log_queries in the repository config is ignored: a repository cannot start recording queries; "
    "set it in the user config file or SKILLSIFT_LOG_QUERIES=1"
)
COMMAND_NOTE = (
    "embeddings.command in the repository config is ignored: a repository cannot run a program; "
    "set it in the user config file or pass --allow-exec"
)


def test_repository_cannot_open_the_network(tmp_path):
    write(
        tmp_path / "skillsift.toml",
        """
        [embeddings]
        provider = "openai"
        allow_network = true
        base_url = "http://127.0.0.1:11434/v1"
        api_key_env = "REPO_KEY"
        price_input_per_mtok = 0
    """,
    )
    config = load(tmp_path)
    e = config.embeddings
    assert e.provider == "openai"
    assert (e.allow_network, e.base_url, e.api_key_env, e.price_input_per_mtok) == (False, "", "", None)
    assert config.notes == (
        NETWORK_NOTE,
        "embeddings.base_url in the repository config is ignored: "
        "a repository cannot choose where text is sent; set it in the user config file",
        "embeddings.api_key_env in the repository config is ignored: "
        "a repository cannot choose which key is sent; set it in the user config file",
        "embeddings.price_input_per_mtok in the repository config is ignored: "
        "a repository cannot change the price the budget counts; set it in the user config file",
    )


def test_user_config_can_open_the_network_and_the_repository_note_stays(tmp_path):
    write(
        tmp_path / "skillsift.toml",
        '[embeddings]\nallow_network = true\nbase_url = "https://repo.example/v1"\n',
    )
    config = load(
        tmp_path,
        user="""
        [embeddings]
        allow_network = true
        base_url = "https://gw.example/v1"
        api_key_env = "GW_KEY"
        price_input_per_mtok = 0.02
    """,
    )
    e = config.embeddings
    assert (e.allow_network, e.base_url, e.api_key_env, e.price_input_per_mtok) == (
        True,
        "https://gw.example/v1",
        "GW_KEY",
        0.02,
    )
    assert config.notes.count(NETWORK_NOTE) == 1
    assert len(config.notes) == 2


def test_repository_false_values_make_no_note(tmp_path):
    write(
        tmp_path / "skillsift.toml",
        '[search]\nlog_queries = false\n[embeddings]\nallow_network = false\nbase_url = ""\n',
    )
    assert load(tmp_path).notes == ()


def test_loopback_gets_no_exemption(tmp_path):
    config = load(tmp_path, user='[embeddings]\nprovider = "openai"\nbase_url = "http://127.0.0.1:8080/v1"\n')
    assert config.embeddings.base_url == "http://127.0.0.1:8080/v1"
    assert config.embeddings.allow_network is False


@pytest.mark.parametrize(
    ("user", "env", "expected"),
    [
        (None, None, False),
        ("true", None, True),
        ("false", "1", True),
        ("true", "0", False),  # env overrides the file
        (None, "TRUE", True),
        (None, "yes", False),  # any other non-empty value is off
        ("true", "", True),  # empty env is not set
    ],
)
def test_allow_network_from_user_and_env(tmp_path, user, env, expected):
    config = load(
        tmp_path,
        user=f"[embeddings]\nallow_network = {user}\n" if user else None,
        env={"SKILLSIFT_ALLOW_NETWORK": env} if env is not None else {},
    )
    assert config.embeddings.allow_network is expected


@pytest.mark.parametrize(
    ("repo", "user", "env", "expected", "noted"),
    [
        (True, None, None, False, True),  # repository alone: off, with a note
        (None, True, None, True, False),  # user on
        (None, None, "1", True, False),  # env 1 on
        (None, True, "0", False, False),  # env 0 off, over the user file
        (None, None, " true ", True, False),
        (None, None, None, False, False),  # default off
        (True, True, None, True, True),
    ],
)
def test_log_queries_is_user_scope_or_env(tmp_path, repo, user, env, expected, noted):
    write(tmp_path / "skillsift.toml", "[search]\nlog_queries = true\n" if repo else "")
    config = load(
        tmp_path,
        user="[search]\nlog_queries = true\n" if user else None,
        env={"SKILLSIFT_LOG_QUERIES": env} if env is not None else {},
    )
    assert config.search.log_queries is expected
    assert (LOG_NOTE in config.notes) is noted
    assert config.notes.count(LOG_NOTE) <= 1


def test_repository_command_is_ignored_without_allow_exec(tmp_path):
    write(
        tmp_path / "skillsift.toml",
        '[embeddings]\nprovider = "command"\ncommand = ["/bin/embed", "--x"]\npass_env = ["EMBED_TOKEN"]\n',
    )
    config = load(tmp_path)
    assert config.embeddings.command == () and config.embeddings.pass_env == ()
    assert config.embeddings.provider == "command"
    assert COMMAND_NOTE in config.notes
    assert any("cannot run a program" in n for n in config.notes)
    assert (
        "embeddings.pass_env in the repository config is ignored: a repository cannot choose what a program "
        "sees; set it in the user config file or pass --allow-exec"
    ) in config.notes

    allowed = load(tmp_path, allow_exec=True)
    assert allowed.embeddings.command == ("/bin/embed", "--x")
    assert allowed.embeddings.pass_env == ("EMBED_TOKEN",)
    assert allowed.notes == ()


def test_user_command_and_pass_env_replace_the_repository_ones(tmp_path):
    write(tmp_path / "skillsift.toml", '[embeddings]\ncommand = ["/repo/embed"]\npass_env = ["REPO_VAR"]\n')
    user = '[embeddings]\nprovider = "command"\ncommand = ["/bin/embed"]\n'
    config = load(tmp_path, user=user, allow_exec=True)
    assert config.embeddings.command == ("/bin/embed",)
    assert config.embeddings.pass_env == ()
    assert config.embeddings.provider == "command"
    config = load(tmp_path, user=user + 'pass_env = ["MY_TOKEN"]\n')
    assert config.embeddings.pass_env == ("MY_TOKEN",)


@pytest.mark.parametrize(
    ("repo", "user", "expected"),
    [
        (100, 0, 100),
        (100, 500, 100),  # a repository can only tighten
        (500, 100, 100),
        (0, 200, 200),
        (0, 0, 0),
    ],
)
def test_budget_limits_lower_non_zero_wins(tmp_path, repo, user, expected):
    write(
        tmp_path / "skillsift.toml",
        f"[embeddings]\nmax_calls = {repo}\nmax_tokens = {repo * 10}\nmax_cost_usd = {repo / 100}\n",
    )
    config = load(
        tmp_path,
        user=f"[embeddings]\nmax_calls = {user}\nmax_tokens = {user * 10}\nmax_cost_usd = {user / 100}\n",
    )
    e = config.embeddings
    assert (e.max_calls, e.max_tokens, e.max_cost_usd) == (expected, expected * 10, expected / 100)
    assert config.notes == ()


def test_provider_model_and_tuning_come_from_either_scope_user_first(tmp_path):
    write(
        tmp_path / "skillsift.toml",
        '[embeddings]\nprovider = "openai"\nmodel = "text-embedding-3-small"\n'
        "timeout_seconds = 20\nmax_retries = 1\ncache = false\n",
    )
    e = load(tmp_path).embeddings
    assert (e.provider, e.model, e.timeout_seconds, e.max_retries, e.cache) == (
        "openai",
        "text-embedding-3-small",
        20.0,
        1,
        False,
    )
    e = load(tmp_path, user='[embeddings]\nmodel = "other"\nmax_retries = 0\ncache = true\n').embeddings
    assert (e.provider, e.model, e.max_retries, e.cache) == ("openai", "other", 0, True)
    e = load(tmp_path, user='[embeddings]\nprovider = "local"\nmodel = ""\n').embeddings
    assert (e.provider, e.model) == ("local", "text-embedding-3-small")


def test_resolve_is_pure_over_documents():
    config = resolve(
        {"search": {"mode": "hybrid"}, "embeddings": {"allow_network": True}},
        {"search": {"candidates": 7}},
        env={"SKILLSIFT_LOG_QUERIES": "1"},
        mode="vector",
    )
    assert (config.search.mode, config.search.candidates, config.search.log_queries) == ("vector", 7, True)
    assert config.embeddings.allow_network is False and config.notes == (NETWORK_NOTE,)


# --- paths -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("index_dir", "committed"),
    [
        ("search-index", True),
        (".skillsift/index", True),
        ("", True),  # the default is the committed .skillsift/index
        (".skillsift/local", False),
        (".skillsift/local/index", False),
        (".skillsift/localish", True),
        (".ai-rulez/local/search", False),
    ],
)
def test_committed_index(index_dir, committed):
    assert committed_index(Config(search=SearchConfig(index_dir=index_dir))) is committed


def test_index_and_local_paths(tmp_path):
    write(tmp_path / "skillsift.toml", '[search]\nindex_dir = "search-index"\n')
    config = load(tmp_path)
    assert index_path(config) == tmp_path.resolve() / "search-index"
    assert local_dir(config) == tmp_path.resolve() / ".skillsift" / "local"
    sub = tmp_path / "sub"
    sub.mkdir()
    assert index_path(load(sub)) == sub.resolve() / ".skillsift" / "index"


# --- find_key_line -----------------------------------------------------------------------------------------

TOML_TEXT = """\
# comment: mode = "not this"
[tool.skillsift.search]
mode = "hybrid"
weights = { lexical = 1, vector = 2 }
'fields' = ["name"]
"quoted key" = 1
description = \"\"\"
candidates = 5 inside a string
\"\"\"

[tool.skillsift]
embeddings.model = "m"

[tool.skillsift.roles.ops]
skills = ["deploy-*"]

[[tool.skillsift.secrets.patterns]]
name = "a"
[[tool.skillsift.secrets.patterns]]
name = "b"
regex = "x"
"""


@pytest.mark.parametrize(
    ("table", "key", "line"),
    [
        ("tool.skillsift.search", "mode", 3),
        ("tool.skillsift.search", "weights", 4),
        ("tool.skillsift.search", "weights.vector", 4),  # inside an inline table
        ("tool.skillsift.search.weights", "lexical", 4),
        ("tool.skillsift.search", "fields", 5),
        ("tool.skillsift.search", '"quoted key"', 6),
        ("tool.skillsift.search", "candidates", None),  # only inside a multi-line string
        ("tool.skillsift", "embeddings.model", 12),
        ("tool.skillsift.embeddings", "model", 12),
        ("tool.skillsift.roles.ops", "", 14),
        ("tool.skillsift.roles", "ops.skills", 15),
        ("tool.skillsift.secrets.patterns", "", 17),
        ("tool.skillsift.search", "fusion", None),
        ("search", "mode", None),
    ],
)
def test_find_key_line(table, key, line):
    from skillsift.config.sources import toml_module

    assert toml_module().loads(TOML_TEXT)["tool"]["skillsift"]["search"]["weights"]["vector"] == 2
    assert find_key_line(TOML_TEXT, table, key) == line


def test_problem_lines_fall_back_to_the_table_header(tmp_path):
    write(
        tmp_path / "skillsift.toml",
        '# roles\n[roles.ops]\nmembers = ["x"]\n\n[search]\nweights.lexical = -1\n',
    )
    error = failure(tmp_path)
    assert [(d.line, d.message) for d in error.diagnostics] == [
        (6, "search.weights must not be negative"),
        (2, "roles.ops needs skills = [names or globs]"),
        (3, 'roles.ops: unknown key "members"'),
    ]


def test_array_of_tables_entries_get_their_own_lines(tmp_path):
    write(
        tmp_path / "skillsift.toml",
        """
        [[secrets.patterns]]
        name = "ok"
        regex = "ok_[0-9]+"

        [[secrets.patterns]]
        name = "broken"
        regex = "(unclosed"
        flags = "i"
    """,
    )
    error = failure(tmp_path)
    assert [(d.line, d.message.split(":")[0]) for d in error.diagnostics] == [
        (7, "secrets.patterns entry 2"),
        (8, "secrets.patterns entry 2"),
    ]
    assert "regex does not compile" in error.diagnostics[0].message
    assert error.diagnostics[1].message == 'secrets.patterns entry 2: unknown key "flags"'


# --- docs and import cost ----------------------------------------------------------------------------------


def test_docs_name_every_key_and_their_full_example_loads(tmp_path):
    from skillsift.config.schema import EMBEDDINGS, RANGES, SEARCH

    text = DOCS.read_text(encoding="utf-8")
    numbers = text.split("### Numbers", 1)[1].split("\n## ", 1)[0]
    for key, (low, high) in RANGES.items():  # every numeric bound is documented, as written in the code
        [row] = [line for line in numbers.splitlines() if line.startswith("|") and f"`{key}`" in line]
        assert f"`{low}`..`{high}`" in row, key
    for key in (
        list(SEARCH.keys or ())
        + list(EMBEDDINGS.keys or ())
        + ["SKILLSIFT_SEARCH_MODE", "SKILLSIFT_LOG_QUERIES", "SKILLSIFT_ALLOW_NETWORK"]
    ):
        assert f"`{key}`" in text, key
    examples = text.split("```toml\n")[1:]
    assert examples, "docs/configuration.md has TOML examples"
    for block in examples:
        body = block.split("```", 1)[0]
        if "# skillsift.toml" in body:
            write(tmp_path / "skillsift.toml", body)
            assert load(tmp_path, allow_exec=True).sources == ("skillsift.toml",)
        elif "# ~/.config/skillsift/config.toml" in body:
            assert load(tmp_path, user=body).user_file


def test_importing_the_config_module_stays_cheap():
    code = (
        "import sys, skillsift.config; "
        "print(','.join(m for m in ('yaml', 'numpy', 'jsonschema', 'tomllib', 'tomli') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ""
