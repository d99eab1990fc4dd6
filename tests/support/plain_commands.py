"""What the tests of a command run without click (commands/search_run.py, commands/validate_run.py) share: random
argument lists over a command's option tables, the parameters click gives for them, a run with piped streams, and
the check that a command's option tables are its click command's own."""

from __future__ import annotations

import io
import random
import sys

import click


def random_argv(rng: random.Random, run_module, values: dict[str, list[str]], positionals: list[str],
                words: list[str], positional_share: float) -> list[str]:
    """Up to seven arguments: a positional from ``positionals`` (share ``positional_share``), an odd word from
    ``words`` (a tenth), else one of ``run_module``'s options with a value from ``values`` (by parameter), given as
    ``--name=value``, ``--name value`` or, now and then, without its value."""
    options = [*run_module.VALUES, *run_module.FLAGS]
    args: list[str] = []
    for _ in range(rng.randint(0, 7)):
        roll = rng.random()
        if roll < positional_share:
            args.append(rng.choice(positionals))
        elif roll < positional_share + 0.1:
            args.append(rng.choice(words))
        else:
            name = rng.choice(options)
            if name in run_module.FLAGS:
                args.append(name)
                continue
            value = rng.choice(values[run_module.VALUES[name]])
            args.extend([f"{name}={value}"] if rng.random() < 0.3 else [name, value][:2 - (rng.random() < 0.03)])
    return args


def click_params(command: click.Command, name: str, args: list[str], refused: tuple = ()) -> dict | None:
    """The parameters click gives ``command`` for ``args``, or None when it refuses them (or shows help);
    ``refused``: further exceptions that mean a refusal."""
    try:
        with command.make_context(name, list(args)) as ctx:
            return dict(ctx.params)
    except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort, *refused):
        return None


def run_piped(monkeypatch, call) -> tuple[int | None, bytes, bytes]:
    """``call()`` with stdout and stderr plain text files (as a process has them, piped); (code, out, err)."""
    out, err = io.BytesIO(), io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True))
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace",
                                                        write_through=True))
    code = call()
    sys.stdout.flush()
    sys.stderr.flush()
    return code, out.getvalue(), err.getvalue()


def assert_tables_are_the_commands(command: click.Command, run_module) -> None:
    """``run_module``'s long options, repeatable and flag parameters and choices are ``command``'s."""
    longs = {opt: p.name for p in command.params for opt in p.opts if opt.startswith("--")}
    assert longs == {**run_module.VALUES, **run_module.FLAGS}
    assert {p.name for p in command.params if getattr(p, "multiple", False)} == set(run_module.MULTIPLE)
    assert {p.name for p in command.params if getattr(p, "is_flag", False)} == set(run_module.FLAGS.values())
    choices = {p.name: tuple(p.type.choices) for p in command.params if isinstance(p.type, click.Choice)}
    assert choices == run_module.choices()
