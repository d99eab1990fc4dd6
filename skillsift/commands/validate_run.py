"""``skillsift validate`` without click, when its arguments are plain (as commands/search_run.py runs search).

Importing click and building the command's options is about 60 M instructions of a cold validate, a
run that needs neither.  :func:`main` parses the common calls itself: paths, and the command's own long
options (``--format sarif``, ``--preset=strict``, ``--strict``), each value one the option's type takes as
it is.  Anything else goes to click, which parses and reports it as it always did: ``--help``, ``--``, a
short or unknown option, a value click would refuse or might read otherwise (starting with ``-``, not one
of the choices, a path click would refuse), a shell-completion request, and output streams click would
wrap (commands/plain_run.py).  What :func:`parse` gives is what click gives for the same arguments
(tests/commands/test_validate_run.py holds the two equal on random argument lists).  :func:`run` is the
command's body, for both paths.
"""

from __future__ import annotations

from ..index.atomic import AtomicWriteError, write_output
from ..render.diagnostics import summary_line
from ..render.registry import names, render
from ..render.sanitise import plain, plain_lines
from ..usecases.validate import ValidateRequest, exit_code, run_validate, shown_root, usage
from ..validators import CHECKS
from .plain_run import echo, options, path_taken, plain_streams, reported

#: Each parameter of the command (the names of validate_cmd.py's function) and its default.
DEFAULTS: dict = {"paths": (), "root": ".", "config_file": None, "select": (), "ignore": (), "fmt": "text",
                  "strict": False, "preset": None, "output": None, "update_baseline": False, "list_only": False,
                  "fix": False, "show_diff": False, "quiet": False, "force": False}
FLAGS = {"--strict": "strict", "--update-secrets-baseline": "update_baseline", "--list": "list_only", "--fix": "fix",
         "--diff": "show_diff", "--quiet": "quiet", "--force": "force"}
VALUES = {"--root": "root", "--config": "config_file", "--select": "select", "--ignore": "ignore", "--format": "fmt",
          "--preset": "preset", "--output": "output"}
MULTIPLE = ("select", "ignore")
PRESETS = ("recommended", "strict")  # skillsift.config.checks.PRESETS (not imported: --help stays cheap)
#: The options whose value is a path, and whether click.Path takes a folder there (dir_okay).
PATHS = {"root": True, "config_file": False, "output": False}


def choices() -> dict[str, tuple[str, ...]]:
    """The options whose value is one of a list (click.Choice), and the list."""
    return {"fmt": tuple(names("diagnostics")), "preset": PRESETS}


def parse(args: list[str]) -> dict | None:
    """The command's parameters (:data:`DEFAULTS`'s) for ``args``, or None when click must parse them."""
    parsed = options(args, DEFAULTS, FLAGS, VALUES, MULTIPLE, listed=choices(), paths=PATHS)
    if parsed is None or not all(path_taken(path, True) for path in parsed[1]):
        return None
    params, paths = parsed
    params["paths"] = tuple(paths)
    return params


def report(diagnostics, checked, fmt: str, root: str, *, quiet: bool, strict: bool) -> str:
    """The report in ``fmt``; ``--quiet`` text keeps the failing findings and the summary line."""
    if not (quiet and fmt == "text"):
        return render("diagnostics", fmt, diagnostics, root=root, checked=checked)
    failing = [d for d in diagnostics if d.severity == "error" or (strict and d.severity == "warning")]
    text = render("diagnostics", fmt, failing, root=root).rsplit("\n", 2)[0] + "\n" if failing else ""
    return text.lstrip("\n") + summary_line(diagnostics, checked) + "\n"


def list_checks() -> str:
    lines = [f"{'CODE':<6} {'SEVERITY':<8} {'SCOPE':<5} {'PRESET':<11} NAME"]
    for check in CHECKS:
        lines.append(f"{check.code:<6} {check.severity:<8} {check.scope:<5} {check.preset:<11} {check.name}: "
                     f"{check.summary}")
    return "\n".join(lines) + "\n"


def run(paths, root, config_file, select, ignore, fmt, strict, preset, output, update_baseline, list_only, fix,
        show_diff, quiet, force, *, echo):
    """The validate command's body (parameters as click gives them, ``echo`` as click.echo): check, render,
    print; the exit code."""
    if list_only:
        echo(list_checks(), nl=False)
        return 0

    def notify(message) -> None:
        if message.severity == "note":
            if not quiet:
                echo(f"note: {plain(message.text)}", err=True)
        else:
            echo(plain_lines(message.text), err=message.severity != "stdout")

    outcome = run_validate(ValidateRequest(root, config_file, tuple(paths), tuple(select), tuple(ignore), preset, fix,
                                           show_diff, force, update_baseline), notify)
    if outcome.stop is not None:
        if outcome.baseline_line:
            echo(plain(outcome.baseline_line))
        elif outcome.diagnostics:
            echo(render("diagnostics", "text", outcome.diagnostics), nl=False, err=True)
        return outcome.stop
    diagnostics, checked = outcome.diagnostics, outcome.checked
    text = report(diagnostics, checked, fmt, shown_root(outcome.workspace.root), quiet=quiet, strict=strict)
    if output:
        try:
            write_output(output, text.encode("utf-8"), force=force)
        except AtomicWriteError as exc:
            raise usage(f"--output: {exc.message}", exc.hint) from None
        echo(summary_line(diagnostics, checked), err=True)
    else:
        echo(text, nl=False)
    return exit_code(diagnostics, strict=strict)


def main(args: list[str]) -> int | None:
    """``skillsift validate ARGS`` without click; None when click must run it (the module's docstring)."""
    if not plain_streams():
        return None
    params = parse(args)
    if params is None:
        return None
    return reported(lambda: run(**params, echo=echo))
