"""``skillsift validate`` without click (commands/validate_run.py) parses and prints what click would."""

from __future__ import annotations

import io
import random
import sys

import click
import pytest

from skillsift.commands import group, plain_run, validate_run
from skillsift.commands.validate_cmd import validate_command
from skillsift.diagnostics import SkillsiftError
from tests.conftest import ACME

WORDS = ["skills", ".claude/skills/x/SKILL.md", "-", "", "a b", "\u00e9", "x=y", "-5", "--", "-h", "--help", "-q",
         "--str", "--foo", "--strict=1", "--list=", "-x", "--format=", "--=x"]


def _values(tmp_path) -> dict[str, list[str]]:
    folder, file = tmp_path / "folder", tmp_path / "file.toml"
    folder.mkdir(exist_ok=True)
    file.write_text("", encoding="utf-8")
    paths = [str(folder), str(file), str(tmp_path / "missing"), ".", "-", "-dash", "a\x00b", ""]
    return {"root": paths, "config_file": paths, "output": paths,
            "select": ["SK001", "SK,AR", "", "-S"], "ignore": ["SK0", "", "-"],
            "fmt": ["text", "json", "sarif", "JSON", "github", ""], "preset": ["recommended", "strict", "Strict", ""]}


def _argv(rng: random.Random, values: dict[str, list[str]], paths: list[str]) -> list[str]:
    options = [*validate_run.VALUES, *validate_run.FLAGS]
    args: list[str] = []
    for _ in range(rng.randint(0, 7)):
        roll = rng.random()
        if roll < 0.2:
            args.append(rng.choice(paths))
        elif roll < 0.3:
            args.append(rng.choice(WORDS))
        else:
            name = rng.choice(options)
            if name in validate_run.FLAGS:
                args.append(name)
                continue
            value = rng.choice(values[validate_run.VALUES[name]])
            args.extend([f"{name}={value}"] if rng.random() < 0.3 else [name, value][:2 - (rng.random() < 0.03)])
    return args


def _clicks(args: list[str]) -> dict | None:
    """The parameters click gives the command for ``args``, or None when it refuses them (or shows help)."""
    try:
        with validate_command.make_context("validate", list(args)) as ctx:
            return dict(ctx.params)
    except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort, SkillsiftError):
        return None


def test_what_is_parsed_without_click_is_what_click_parses(tmp_path, capsys):
    rng = random.Random(54)
    values = _values(tmp_path)
    paths = [*values["root"], "SKILL.md", "skills/a"]
    taken = refused = 0
    for _ in range(4000):
        args = _argv(rng, values, paths)
        mine = validate_run.parse(args)
        if mine is None:
            refused += 1
            continue
        taken += 1
        assert mine == _clicks(args), args
    assert taken > 600 and refused > 1000  # both sides of the rule were tried
    capsys.readouterr()  # (click's help and errors)


def test_the_table_is_the_commands_own():
    params = {p.name: p for p in validate_command.params}
    assert set(params) == set(validate_run.DEFAULTS)
    assert _clicks([]) == validate_run.DEFAULTS == validate_run.parse([])
    longs = {opt: p.name for p in validate_command.params for opt in p.opts if opt.startswith("--")}
    assert longs == {**validate_run.VALUES, **validate_run.FLAGS}
    assert {p.name for p in validate_command.params if getattr(p, "multiple", False)} == set(validate_run.MULTIPLE)
    assert {p.name for p in validate_command.params if getattr(p, "is_flag", False)} == set(validate_run.FLAGS.values())
    choices = {p.name: tuple(p.type.choices) for p in validate_command.params if isinstance(p.type, click.Choice)}
    assert choices == validate_run.choices()
    path_types = {p.name: p.type for p in validate_command.params if isinstance(p.type, click.Path)}
    assert {name: kind.dir_okay for name, kind in path_types.items() if name != "paths"} == validate_run.PATHS
    assert all(kind.file_okay and kind.readable and not kind.exists and not kind.allow_dash and
               not kind.resolve_path for kind in path_types.values())
    assert path_types["paths"].dir_okay


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
    [],
    ["--format", "json", "--preset=strict"],
    ["--format=sarif", "--strict"],
    ["--quiet", "--strict"],
    ["--select", "SK0,AR", "--ignore=SK001", "--select", "SK1"],
    [".claude/skills/deploy-staging/SKILL.md"],
    ["--list"],
    ["--root", "missing-folder"],
    ["--config", "missing.toml"],
    ["--select", "ZZ999"],
    ["--output", "OUTPUT"],
])
def test_a_validate_without_click_prints_what_click_prints(monkeypatch, tmp_path, args):
    monkeypatch.chdir(ACME)
    monkeypatch.setenv("SKILLSIFT_CACHE", "off")
    outputs = []
    for call in (validate_run.main, lambda args: group.main(["validate", *args])):
        written = tmp_path / f"report-{len(outputs)}.txt"
        given = [str(written) if a == "OUTPUT" else a for a in args]
        ran = _run(monkeypatch, lambda call=call, given=given: call(given))
        outputs.append((ran, written.read_bytes() if written.exists() else None))
    plain, clicked = outputs
    assert plain[0][0] is not None  # parsed without click
    assert plain == clicked
    assert plain[0][1] or plain[0][2]


def test_click_parses_what_is_not_plain(monkeypatch):
    monkeypatch.chdir(ACME)
    for args in (["--help"], ["-q"], ["--format", "JSON"], ["--", "x"], ["--root"], ["--root", "--strict"]):
        assert _run(monkeypatch, lambda args=args: validate_run.main(args))[0] is None
    monkeypatch.setenv(plain_run.COMPLETE_VAR, "")
    assert _run(monkeypatch, lambda: validate_run.main([]))[0] is None
