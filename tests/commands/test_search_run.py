"""``skillsift search`` without click (commands/search_run.py) parses and prints what click would."""

from __future__ import annotations

import io
import random
import sys

import click
import pytest

from skillsift.commands import group, search_run
from skillsift.commands.search_cmd import search
from tests.conftest import ACME

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


def _argv(rng: random.Random, values: dict[str, list[str]]) -> list[str]:
    options = [*search_run.VALUES, *search_run.FLAGS]
    args: list[str] = []
    for _ in range(rng.randint(0, 7)):
        roll = rng.random()
        if roll < 0.35:
            args.append(rng.choice(WORDS[:6]))
        elif roll < 0.45:
            args.append(rng.choice(WORDS))
        else:
            name = rng.choice(options)
            if name in search_run.FLAGS:
                args.append(name)
                continue
            value = rng.choice(values[search_run.VALUES[name]])
            args.extend([f"{name}={value}"] if rng.random() < 0.3 else [name, value][:2 - (rng.random() < 0.03)])
    return args


def _clicks(args: list[str]) -> dict | None:
    """The parameters click gives the command for ``args``, or None when it refuses them (or shows help)."""
    try:
        with search.make_context("search", list(args)) as ctx:
            return dict(ctx.params)
    except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
        return None


def test_what_is_parsed_without_click_is_what_click_parses(tmp_path, capsys):
    rng = random.Random(45)
    values = _values(tmp_path)
    taken = refused = 0
    for _ in range(4000):
        args = _argv(rng, values)
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
    longs = {opt: p.name for p in search.params for opt in p.opts if opt.startswith("--")}
    assert longs == {**search_run.VALUES, **search_run.FLAGS}
    assert {p.name for p in search.params if getattr(p, "multiple", False)} == set(search_run.MULTIPLE)
    assert {p.name for p in search.params if getattr(p, "is_flag", False)} == set(search_run.FLAGS.values())
    choices = {p.name: tuple(p.type.choices) for p in search.params if isinstance(p.type, click.Choice)}
    assert choices == search_run.choices()
    ranges = {p.name: (p.type.min, p.type.max) for p in search.params if isinstance(p.type, click.IntRange)}
    assert ranges == search_run.RANGES
    assert not any(p.type.min_open or p.type.max_open or p.type.clamp for p in search.params
                   if isinstance(p.type, click.IntRange))


def _run(monkeypatch, call) -> tuple[int | None, bytes, bytes]:
    """``call()`` with stdout and stderr plain text files (as a process has them, piped); (code, out, err)."""
    out, err = io.BytesIO(), io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True))
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace",
                                                        write_through=True))
    code = call()
    sys.stdout.flush()
    sys.stderr.flush()
    return code, out.getvalue(), err.getvalue()


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
    plain = _run(monkeypatch, lambda: search_run.main(args))
    clicked = _run(monkeypatch, lambda: group.main(["search", *args]))
    assert plain[0] is not None  # parsed without click
    assert plain == clicked
    assert plain[1] or plain[2]


def test_click_prints_what_it_parses_otherwise(monkeypatch):
    monkeypatch.chdir(ACME)
    for args in (["--help"], [], ["deploy", "--limit", "0"], ["deploy", "--", "--limit"], ["deploy", "-h"]):
        assert _run(monkeypatch, lambda args=args: search_run.main(args))[0] is None
    monkeypatch.setenv(search_run.COMPLETE_VAR, "")
    assert _run(monkeypatch, lambda: search_run.main(["deploy"]))[0] is None


def test_echo_drops_what_click_echo_drops_off_a_terminal(monkeypatch):
    text = "a\033[31mred\033[0m b\033]8;;x\033\\ \033[?25l c"
    plain = _run(monkeypatch, lambda: search_run.echo(text, err=True))
    clicked = _run(monkeypatch, lambda: click.echo(text, err=True))
    assert plain == clicked and plain[2].startswith(b"ared b")
