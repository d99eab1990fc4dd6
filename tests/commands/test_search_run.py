"""``skillsift search`` without click (commands/search_run.py) parses and prints what click would."""

from __future__ import annotations

import random

import click
import pytest

from skillsift.commands import group, search_run
from skillsift.commands.search_cmd import search
from tests.conftest import ACME
from tests.support.plain_commands import assert_tables_are_the_commands, click_params, random_argv, run_piped

WORDS = ["deploy", "refund", "-", "", "k8s", "a b", "é", "x=y", "-5", "--", "-h", "--help", "--lim", "--foo",
         "--explain=1", "--allow-exec=", "-x", "--limit=", "--=x"]
NUMBERS = ["0", "1", "5", "20", "21", "05", " 5", "+5", "1_0", "\u0665", "-1", "999", "1000", "10000", "10001",
           "10000000", "10000001", "x", ""]


def _values(tmp_path) -> dict[str, list[str]]:
    folder, file = tmp_path / "folder", tmp_path / "file.toml"
    folder.mkdir(exist_ok=True)
    file.write_text("", encoding="utf-8")
    paths = [str(folder), str(file), str(tmp_path / "missing"), ".", "-", "-dash", "a\x00b"]
    return {"limit": NUMBERS, "width": NUMBERS, "context_window": NUMBERS, "root": paths, "config_file": paths,
            "mode": ["lexical", "hybrid", "vector", "Lexical", "lex", ""],
            "fmt": ["text", "json", "JSON", "sarif", ""], "view_name": ["full", "listing", "Full", ""],
            "role": ["ops", "", "-r", "a=b"], "domain": ["root", "", "-d"], "tags": ["python", "", "-t"],
            "allow": ["a*", ""], "deny": ["b*", "-"], "agent": ["codex", "nobody", ""]}


def _clicks(args: list[str]) -> dict | None:
    """The parameters click gives the command for ``args``, or None when it refuses them (or shows help)."""
    return click_params(search, "search", args)


def test_what_is_parsed_without_click_is_what_click_parses(tmp_path, capsys):
    rng = random.Random(45)
    values = _values(tmp_path)
    taken = refused = 0
    for _ in range(4000):
        args = random_argv(rng, search_run, values, WORDS[:6], WORDS, 0.35)
        mine = search_run.parse(args)
        if mine is None:
            refused += 1
            continue
        taken += 1
        assert mine == _clicks(args), args
    assert taken > 600 and refused > 1000  # both sides of the rule were tried
    capsys.readouterr()  # (click's help and errors)


def test_the_table_is_the_commands_own():
    params = {p.name: p for p in search.params}
    assert set(params) == {*search_run.DEFAULTS, "query"}
    assert _clicks(["x"]) == {**search_run.DEFAULTS, "query": ("x",)}
    assert_tables_are_the_commands(search, search_run)
    ranges = {p.name: (p.type.min, p.type.max) for p in search.params if isinstance(p.type, click.IntRange)}
    assert ranges == search_run.RANGES
    assert not any(p.type.min_open or p.type.max_open or p.type.clamp for p in search.params
                   if isinstance(p.type, click.IntRange))


@pytest.mark.parametrize("args", [
    ["deploy", "to", "staging"],
    ["refund", "--format", "json", "--explain", "--limit=20"],
    ["--explain", "--width", "40", "customer", "refund"],
    ["release", "--view", "listing", "--agent", "codex", "--context-window", "200000"],
    ["release", "--tag", "ops", "--deny", "r*", "--allow", "*"],
    ["the", "a", "of"],
    ["deploy", "--agent", "nobody"],
    ["deploy", "--mode", "hybrid"],
    ["deploy", "--root", "missing-folder"],
    ["deploy", "--config", "missing.toml"],
    ["deploy", "--role", "nobody"],
])
def test_a_search_without_click_prints_what_click_prints(monkeypatch, args):
    monkeypatch.chdir(ACME)
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    monkeypatch.delenv("SKILLSIFT_SEARCH_MODE", raising=False)
    plain = run_piped(monkeypatch, lambda: search_run.main(args))
    clicked = run_piped(monkeypatch, lambda: group.main(["search", *args]))
    assert plain[0] is not None  # parsed without click
    assert plain == clicked
    assert plain[1] or plain[2]


def test_click_prints_what_it_parses_otherwise(monkeypatch):
    monkeypatch.chdir(ACME)
    for args in (["--help"], [], ["deploy", "--limit", "0"], ["deploy", "--", "--limit"], ["deploy", "-h"]):
        assert run_piped(monkeypatch, lambda args=args: search_run.main(args))[0] is None
    monkeypatch.setenv(search_run.COMPLETE_VAR, "")
    assert run_piped(monkeypatch, lambda: search_run.main(["deploy"]))[0] is None


def test_echo_drops_what_click_echo_drops_off_a_terminal(monkeypatch):
    text = "a\033[31mred\033[0m b\033]8;;x\033\\ \033[?25l c"
    plain = run_piped(monkeypatch, lambda: search_run.echo(text, err=True))
    clicked = run_piped(monkeypatch, lambda: click.echo(text, err=True))
    assert plain == clicked and plain[2].startswith(b"ared b")
