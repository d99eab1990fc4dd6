"""``skillsift validate`` without click (commands/validate_run.py) parses and prints what click would."""

from __future__ import annotations

import random

import click
import pytest

from skillsift.commands import group, plain_run, validate_run
from skillsift.commands.validate_cmd import validate_command
from skillsift.diagnostics import SkillsiftError
from tests.conftest import ACME
from tests.support.plain_commands import assert_tables_are_the_commands, click_params, random_argv, run_piped

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


def _clicks(args: list[str]) -> dict | None:
    """The parameters click gives the command for ``args``, or None when it refuses them (or shows help)."""
    return click_params(validate_command, "validate", args, (SkillsiftError,))


def test_what_is_parsed_without_click_is_what_click_parses(tmp_path, capsys):
    rng = random.Random(54)
    values = _values(tmp_path)
    paths = [*values["root"], "SKILL.md", "skills/a"]
    taken = refused = 0
    for _ in range(4000):
        args = random_argv(rng, validate_run, values, paths, WORDS, 0.2)
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
    assert_tables_are_the_commands(validate_command, validate_run)
    path_types = {p.name: p.type for p in validate_command.params if isinstance(p.type, click.Path)}
    assert {name: kind.dir_okay for name, kind in path_types.items() if name != "paths"} == validate_run.PATHS
    assert all(kind.file_okay and kind.readable and not kind.exists and not kind.allow_dash and
               not kind.resolve_path for kind in path_types.values())
    assert path_types["paths"].dir_okay


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
        ran = run_piped(monkeypatch, lambda call=call, given=given: call(given))
        outputs.append((ran, written.read_bytes() if written.exists() else None))
    plain, clicked = outputs
    assert plain[0][0] is not None  # parsed without click
    assert plain == clicked
    assert plain[0][1] or plain[0][2]


def test_click_parses_what_is_not_plain(monkeypatch):
    monkeypatch.chdir(ACME)
    for args in (["--help"], ["-q"], ["--format", "JSON"], ["--", "x"], ["--root"], ["--root", "--strict"]):
        assert run_piped(monkeypatch, lambda args=args: validate_run.main(args))[0] is None
    monkeypatch.setenv(plain_run.COMPLETE_VAR, "")
    assert run_piped(monkeypatch, lambda: validate_run.main([]))[0] is None
