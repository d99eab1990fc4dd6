"""What a command run without click needs, when its arguments are plain (commands/search_run.py,
commands/validate_run.py): whether click would write to the streams as they are, ``click.echo`` to such
streams, a path option's check as ``click.Path`` makes it, and the exit codes and error output of
:func:`skillsift.commands.group.main` (tests/commands/test_search_run.py and test_validate_run.py hold each
command's two ways equal)."""

from __future__ import annotations

import codecs
import errno
import io
import os
import stat
import sys
from collections.abc import Callable

from ..diagnostics import SkillsiftError
from ..render.stderr_lines import error_lines

#: What click.echo takes away from the text it writes to a stream that is not a terminal (click 8.5).
_ANSI = r"\033\[[0-?]*[ -/]*[@-~]"
#: Set, the variable asks click for shell completions (``_<PROG>_COMPLETE``).
COMPLETE_VAR = "_SKILLSIFT_COMPLETE"


def path_taken(path: str, dir_okay: bool) -> bool:
    """True when click.Path (readable, ``dir_okay``) takes ``path`` as it is."""
    try:
        info = os.stat(path)
    except OSError:
        return True  # a path that does not exist is taken (exists=False)
    except ValueError:  # a NUL in it: click does not catch what os.stat raises
        return False
    if not dir_okay and stat.S_ISDIR(info.st_mode):
        return False
    return os.access(path, os.R_OK)


def options(args: list[str], defaults: dict, flags: dict[str, str], values: dict[str, str], multiple, *,
            listed: dict[str, tuple[str, ...]], ranges: dict[str, tuple[int, int]] | None = None,
            paths: dict[str, bool] | None = None) -> tuple[dict, list[str]] | None:
    """``(params, positionals)`` of ``args`` read by a command's option tables, as click reads the plain ones, or
    None when click must parse them: an option not in ``flags`` (a flag's name -> its parameter) or ``values``
    (an option taking a value -> its parameter), a missing value, or one :func:`_value` refuses, or a path option
    click.Path would refuse (``paths``: the parameter -> whether a folder is taken there).  ``multiple``: the
    parameters an option may give many times (a tuple of them, in order); ``defaults``: every parameter's value
    when no option gives it."""
    params, positionals = dict(defaults), []
    many: dict[str, list] = {dest: [] for dest in multiple}
    at = 0
    while at < len(args):
        token = args[at]
        at += 1
        if token[:1] != "-" or token == "-":
            positionals.append(token)
            continue
        if token in flags:
            params[flags[token]] = True
            continue
        name, equals, text = token.partition("=")
        dest = values.get(name)
        if dest is None:
            return None
        if not equals:
            if at == len(args):
                return None
            text = args[at]
            at += 1
        taken = _value(dest, text, listed, ranges or {})
        if taken is None:
            return None
        if dest in many:
            many[dest].append(taken)
        else:
            params[dest] = taken
    params.update({dest: tuple(found) for dest, found in many.items()})
    if not all(params[dest] is None or path_taken(params[dest], dir_okay) for dest, dir_okay in (paths or {}).items()):
        return None
    return params, positionals


def _value(dest: str, text: str, listed: dict[str, tuple[str, ...]], ranges: dict[str, tuple[int, int]]):
    """The option's value for ``text``, or None when click might read it otherwise or refuse it: a text starting
    with ``-``, an integer option's (click.IntRange, ``ranges``) text that is not plain digits within its bounds, a
    choice's (click.Choice, ``listed``) text that is not one of its choices."""
    if text.startswith("-"):
        return None
    bounds = ranges.get(dest)
    if bounds is not None:
        if not (text.isascii() and text.isdigit()) or not bounds[0] <= int(text) <= bounds[1]:
            return None
        return int(text)
    if dest in listed and text not in listed[dest]:
        return None
    return text


def plain_streams() -> bool:
    """True when click would write to stdout and stderr as they are (:func:`_plain_stream`) and no shell
    completion is asked for: the only case a command runs without click."""
    return COMPLETE_VAR not in os.environ and _plain_stream(sys.stdout) and _plain_stream(sys.stderr)


def _plain_stream(stream) -> bool:
    """True when click.echo writes to ``stream`` as it is: a text file whose encoding is not ASCII."""
    if type(stream) is not io.TextIOWrapper or not stream.errors:
        return False
    try:
        return codecs.lookup(stream.encoding).name != "ascii"
    except LookupError:
        return True


def echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    """``click.echo(text, err=err, nl=nl)`` to a plain stream (:func:`_plain_stream`)."""
    stream = sys.stderr if err else sys.stdout
    out = text + "\n" if nl else text
    if not out:
        stream.flush()
        return
    if "\033" in out and not _isatty(stream):
        import re

        out = re.sub(_ANSI, "", out)
    stream.write(out)
    stream.flush()


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except Exception:  # what click.echo does: a stream that cannot say is not a terminal
        return False


def reported(call: Callable[[], int]) -> int:
    """``call()``'s exit code, its errors reported as commands/group.py's ``main`` reports them."""
    try:
        return call()
    except SkillsiftError as exc:  # as commands/group.py's main reports it
        for line in error_lines(exc):
            echo(line, err=True)
        return exc.exit_code
    except (EOFError, KeyboardInterrupt):  # click: a blank line, then "aborted"
        sys.stderr.write("\n")
        sys.stderr.flush()
        echo("aborted", err=True)
        return 1
    except OSError as exc:  # a closed pipe: exit 1, and no complaint when the streams are flushed at exit
        if exc.errno != errno.EPIPE:
            raise
        sys.stdout, sys.stderr = _Pacified(sys.stdout), _Pacified(sys.stderr)
        return 1


class _Pacified:
    """A stream whose flush ignores a closed pipe (click's _PacifyFlushWrapper)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise

    def __getattr__(self, attr):
        return getattr(self.wrapped, attr)
