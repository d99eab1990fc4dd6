"""The configuration read bounded and checked whole, once, for every command; the one --root check."""

from __future__ import annotations

import json
import math
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillsift.config import MAX_TOML_DEPTH, RootNotFound, check_root, load_config
from skillsift.diagnostics import SkillsiftError
from tests.support.cli import run

DEEP_ARRAY = "x = " + "[" * 500 + "]" * 500 + "\n"
DEEP_TABLE = "x = " + "{a = " * 500 + "1" + "}" * 500 + "\n"
LONG_INT = "[search]\nrrf_k = " + "7" * 5000 + "\n"

SOURCES = {
    "skillsift.toml": lambda body: ("skillsift.toml", body),
    "pyproject.toml": lambda body: ("pyproject.toml", "[tool.skillsift]\n" + body),
    ".ai-rulez/config.toml": lambda body: (".ai-rulez/config.toml", "[search]\n" + body),
}


def config_problems(root, **kwargs):
    with pytest.raises(SkillsiftError) as info:
        load_config(root, env={}, **kwargs)
    return [(d.code, d.file, d.line, d.message) for d in info.value.diagnostics]


# -- item 2: deep TOML -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("body", [DEEP_ARRAY, DEEP_TABLE], ids=["arrays", "inline tables"])
def test_deep_toml_is_ar9d0_naming_the_file(tmp_path, source, body):
    name, text = SOURCES[source](body)
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(text, encoding="utf-8")
    [(code, file, line, message)] = config_problems(tmp_path)
    assert (code, file) == ("AR9D0", name)
    assert message == f"{name} nests arrays or inline tables deeper than {MAX_TOML_DEPTH} levels (line {line})"


def test_deep_user_config_is_ar9d0(tmp_path):
    user = tmp_path.parent / f"{tmp_path.name}-user.toml"
    user.write_text(DEEP_ARRAY, encoding="utf-8")
    [(code, file, _line, message)] = config_problems(tmp_path, user_config_path=user)
    assert code == "AR9D0" and file == str(user) and "deeper than" in message


def test_deep_toml_on_the_cli(tmp_path, capsys):
    (tmp_path / "skillsift.toml").write_text(DEEP_ARRAY, encoding="utf-8")
    for argv in (["search", "x"], ["status"], ["index", "--dry-run"], ["mine"]):
        code, _, err = run(capsys, *argv, "--root", tmp_path)
        assert code == 1 and "AR9D0" in err and "skillsift.toml nests arrays" in err, argv


def test_depth_within_the_limit_and_brackets_in_strings_pass(tmp_path):
    nested = "[" * MAX_TOML_DEPTH + "]" * MAX_TOML_DEPTH
    text = (f'# {"[" * 200}\n[catalog]\nskills = ["[[[[", \'{{{{\', """\n{"[" * 300}\n"""]\n'
            f"[search]\nmode = \"lexical\"\n")
    (tmp_path / "skillsift.toml").write_text(text, encoding="utf-8")
    assert load_config(tmp_path, env={}).skills == ("[[[[", "{{", "[" * 300 + "\n")
    (tmp_path / "skillsift.toml").write_text(f"[catalog]\nskills = {nested}\n", encoding="utf-8")
    assert any("catalog.skills" in m for *_, m in config_problems(tmp_path))


def test_integer_too_long_for_python_is_ar9d0(tmp_path):
    (tmp_path / "skillsift.toml").write_text(LONG_INT, encoding="utf-8")
    assert config_problems(tmp_path) == [
        ("AR9D0", "skillsift.toml", 2, "skillsift.toml holds an integer too long to read (line 2)")]


def test_oversized_config_is_ar9d0(tmp_path):
    (tmp_path / "skillsift.toml").write_text("# " + "x" * (1 << 20) + "\n", encoding="utf-8")
    [(_, file, _, message)] = config_problems(tmp_path)
    assert file == "skillsift.toml" and "is larger than" in message


# -- item 3: numbers ---------------------------------------------------------------------------------------------

NUMERIC = [
    ("search", "body_chars"), ("search", "rrf_k"), ("search", "vector_min_sim"), ("search", "candidates"),
    ("search", "query_timeout_ms"), ("search", "batch_size"), ("search", "long_query_words"),
    ("embeddings", "max_calls"),
    ("embeddings", "max_tokens"), ("embeddings", "max_cost_usd"), ("embeddings", "timeout_seconds"),
    ("embeddings", "max_retries"), ("validate", "max_flips"), ("validate", "k"),
    ("validate", "near_duplicate_threshold"), ("validate", "near_duplicate_cosine"),
]


@pytest.mark.parametrize("table, key", NUMERIC)
@pytest.mark.parametrize("value", ["inf", "nan", "-inf", "1e300", "9223372036854775807"])
def test_every_numeric_key_is_finite_and_bounded(tmp_path, table, key, value):
    (tmp_path / "skillsift.toml").write_text(f"[{table}]\n\n{key} = {value}\n", encoding="utf-8")
    problems = config_problems(tmp_path)
    assert [(c, f, line) for c, f, line, _ in problems] == [("AR9D0", "skillsift.toml", 3)]
    assert problems[0][3].startswith(f"{table}.{key} ")


@pytest.mark.parametrize("key", ["weights.lexical", "weights.vector"])
@pytest.mark.parametrize("value", ["inf", "nan", "1e300"])
def test_weights_are_finite_and_bounded(tmp_path, key, value):
    (tmp_path / "skillsift.toml").write_text(f"[search]\n{key} = {value}\n", encoding="utf-8")
    [(_, _, line, message)] = config_problems(tmp_path)
    assert line == 2 and message.startswith(f"search.{key} must be")


@pytest.mark.parametrize("key, value", [("price_input_per_mtok", "inf"), ("timeout_seconds", "1e300"),
                                        ("max_cost_usd", "nan")])
def test_user_config_numbers_too(tmp_path, key, value):
    user = tmp_path.parent / f"{tmp_path.name}-user.toml"
    user.write_text(f"[embeddings]\n{key} = {value}\n", encoding="utf-8")
    [(code, file, line, message)] = config_problems(tmp_path, user_config_path=user)
    assert (code, file, line) == ("AR9D0", str(user), 2) and message.startswith(f"embeddings.{key} must be")


def test_infinite_timeout_fails_validate_and_index_cleanly(tmp_path, capsys, skill_writer):
    skill_writer(tmp_path, "alpha", "Process refund requests")
    (tmp_path / "skillsift.toml").write_text("[embeddings]\ntimeout_seconds = inf\n", encoding="utf-8")
    code, out, _ = run(capsys, "validate", "--root", tmp_path)
    assert code == 2 and "skillsift.toml:2: AR9D0 embeddings.timeout_seconds must be a finite number" in out
    code, _, err = run(capsys, "index", "--root", tmp_path)
    assert code == 1 and "embeddings.timeout_seconds must be a finite number" in err


def test_bounds_within_range_load(tmp_path):
    (tmp_path / "skillsift.toml").write_text(
        "[search]\nrrf_k = 10000\nweights = { lexical = 1000, vector = 0.5 }\n"
        "[embeddings]\ntimeout_seconds = 3600\nmax_calls = 1000000\nmax_cost_usd = 1e6\n"
        "[validate]\nmax_flips = 100000\n", encoding="utf-8")
    config = load_config(tmp_path, env={})
    assert config.search.rrf_k == 10000 and config.embeddings.timeout_seconds == 3600.0
    assert math.isfinite(config.embeddings.max_cost_usd) and config.validate.max_flips == 100000


# -- item 17: the whole configuration, once, for every command ------------------------------------------------


CASES = {
    "skillsift.toml is a directory": (lambda root: (root / "skillsift.toml").mkdir(),
                                      "skillsift.toml is not a file"),
    "[tool] skillsift = 5": (lambda root: (root / "pyproject.toml").write_text("[tool]\nskillsift = 5\n"),
                             "tool.skillsift must be a table"),
    "bad [validate]": (lambda root: (root / "skillsift.toml").write_text('[validate]\nk = "x"\nnope = 1\n'),
                       "validate.k must be between 0 and 100"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_command_reports_the_whole_config(cli_project, capsys, case):
    make, message = CASES[case]
    make(cli_project)
    (cli_project / "cases.yaml").write_text("version: 1\ncases:\n  - {id: a, query: refund, expect: []}\n")
    for argv in (["search", "refund"], ["status"], ["index", "--dry-run"], ["mine"],
                 ["eval", cli_project / "cases.yaml"], ["judge", cli_project / "cases.yaml"]):
        code, _, err = run(capsys, *argv, "--root", cli_project)
        assert code == 1 and "AR9D0" in err and message in err, (argv, err)
    code, out, _ = run(capsys, "validate", "--root", cli_project)
    assert code == 2 and message in out
    for hook in ("frontmatter", "secrets", "cases"):
        code, out, _ = run(capsys, "hook", hook, "--root", cli_project)
        assert code == 2 and message in out, hook


def test_bad_validate_table_reports_every_problem_with_lines(tmp_path):
    (tmp_path / "skillsift.toml").write_text('[search]\nmode = "x"\n[validate]\nk = "x"\nnope = 1\n')
    assert sorted((line, message) for _, _, line, message in config_problems(tmp_path)) == [
        (2, 'search.mode "x" must be lexical, hybrid or vector'),
        (4, "validate.k must be between 0 and 100 (0 = the cases file's k)"),
        (5, 'validate: unknown key "nope"'),
    ]


def test_config_is_typed_and_not_mutated(tmp_path):
    (tmp_path / "skillsift.toml").write_text('[embeddings]\nmodel = "m"\ncommand = ["/bin/e"]\n'
                                             "[validate]\nmax_flips = 3\n")
    config = load_config(tmp_path, env={})
    assert not hasattr(config, "raw")
    assert (config.project_file, config.repository_model, config.repository_command) == (
        "skillsift.toml", "m", ("/bin/e",))
    assert config.validate.max_flips == 3 and config.embeddings.command == ()


# -- item 13: one --root check ------------------------------------------------------------------------------------

COMMANDS = [
    (["search", "x"], 1), (["status"], 1), (["index"], 1), (["index", "--dry-run"], 1), (["mine"], 1),
    (["eval", "cases.yaml"], 1), (["judge", "cases.yaml"], 1), (["ci"], 1), (["validate"], 2), (["mcp"], 1),
    (["hook", "validate"], 2), (["hook", "frontmatter"], 2), (["hook", "secrets"], 2), (["hook", "cases"], 2),
    (["hook", "index"], 2), (["hook", "eval"], 2),
]


@pytest.mark.parametrize("argv, exit_code", COMMANDS, ids=[" ".join(a) for a, _ in COMMANDS])
@pytest.mark.parametrize("kind", ["missing", "file"])
def test_every_command_refuses_a_root_that_is_not_a_directory(tmp_path, capsys, monkeypatch, argv, exit_code,
                                                              kind):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cases.yaml").write_text("version: 1\ncases:\n  - {id: a, query: refund, expect: []}\n")
    root = tmp_path / "nope"
    if kind == "file":
        root.write_text("x")
    code, out, err = run(capsys, *argv, "--root", root)
    assert code == exit_code
    assert f"error: --root {root} is not a directory" in err
    assert ("does not exist" if kind == "missing" else "is a file") in err
    assert "Traceback" not in out + err


def test_check_root(tmp_path):
    assert check_root(tmp_path) == tmp_path.resolve()
    with pytest.raises(RootNotFound, match="is not a directory") as info:
        check_root(tmp_path / "missing")
    assert info.value.exit_code == 1


# -- hostile TOML in every config file --------------------------------------------------------------------------

toml_text = st.one_of(
    st.text(alphabet="[]{}=\"'#.,\n abcx0123456789eE+-_infa", max_size=200),
    st.integers(min_value=1, max_value=2000).map(lambda n: "x = " + "[" * n),
    st.integers(min_value=1, max_value=2000).map(lambda n: "x = " + "{a=" * n),
    st.integers(min_value=1, max_value=6000).map(lambda n: "x = " + "9" * n),
    st.sampled_from(["[search]\nrrf_k = ", "[embeddings]\ntimeout_seconds = ", "[validate]\nk = "]).flatmap(
        lambda head: st.sampled_from(["inf", "nan", "-inf", "1e999", "-0", "1" * 30]).map(lambda v: head + v)),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(text=toml_text, where=st.sampled_from(["skillsift.toml", "pyproject.toml", ".ai-rulez/config.toml",
                                              "user"]))
def test_hostile_toml_is_a_config_or_ar9d0(tmp_path_factory, text, where):
    root = tmp_path_factory.mktemp("hostile")
    user = root.parent / f"{root.name}-user.toml"
    path = user if where == "user" else root / where
    path.parent.mkdir(parents=True, exist_ok=True)
    if where == "pyproject.toml":
        text = "[tool.skillsift]\n" + text
    path.write_text(text, encoding="utf-8")
    try:
        config = load_config(root, env={}, user_config_path=user)
    except SkillsiftError as exc:
        assert exc.diagnostics and all(d.code == "AR9D0" for d in exc.diagnostics)
        return
    for value in (config.search.rrf_k, config.embeddings.timeout_seconds, config.search.weight_lexical):
        assert math.isfinite(value)
    json.dumps(config.validate.__dict__)


def test_hostile_toml_on_the_cli_has_no_traceback(tmp_path, capsys):
    for text in (DEEP_ARRAY, DEEP_TABLE, LONG_INT, "[embeddings]\ntimeout_seconds = 1e300\n"):
        (tmp_path / "skillsift.toml").write_text(text, encoding="utf-8")
        code, out, err = run(capsys, "search", "x", "--root", tmp_path)
        assert code == 1 and "AR9D0" in err and "Traceback" not in err
    assert sys.getrecursionlimit() >= 1000


def test_mcp_refuses_to_start_with_an_invalid_config(cli_project, capsys):
    (cli_project / "skillsift.toml").write_text('[validate]\nk = "x"\n', encoding="utf-8")
    code, _, err = run(capsys, "mcp", "--root", cli_project)
    assert code == 1 and "AR9D0" in err and "validate.k must be between 0 and 100" in err
