"""``skillsift search`` without click, when its arguments are plain (issue 45, "Speed at commit time").

Importing click and building the command's options was about a tenth of a warm search on
2,000 skills (11 ms CPU of 126).  :func:`main` parses the common calls itself: words, and the
command's own long options (``--limit 3``, ``--format=json``), each value one the option's
type takes as it is.  Anything else goes to click, which parses and reports it as it always
did: ``--help``, ``--``, a short or unknown option, a value click would refuse or might read
otherwise (not plain digits, not one of the choices, starting with ``-``, a path click would
refuse), a shell-completion request, and output streams click would wrap (not plain text
files, or ASCII).  What :func:`parse` gives is what click gives for the same arguments
(tests/commands/test_search_run.py holds the two equal on random argument lists), and
:func:`echo` prints as ``click.echo`` prints to such streams.  :func:`run` is the command's
body, for both paths.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from ..config.values import MODES
from ..render.registry import names, render
from ..render.stderr_lines import message_line
from ..usecases.run_search import SearchRequest, run_search
from .plain_run import COMPLETE_VAR, echo, options, path_taken, plain_streams, reported  # noqa: F401 (COMPLETE_VAR: read here)

#: Each parameter of the command (the names of search_cmd.py's function) and its default.
DEFAULTS: dict = {"limit": 5, "mode": None, "fmt": "text", "explain": False, "width": None, "role": None,
                  "domain": None, "tags": (), "allow": (), "deny": (), "allow_exec": False, "agent": None,
                  "view_name": "full", "context_window": None, "root": ".", "config_file": None}
FLAGS = {"--explain": "explain", "--allow-exec": "allow_exec"}
VALUES = {"--limit": "limit", "--mode": "mode", "--format": "fmt", "--width": "width", "--role": "role",
          "--domain": "domain", "--tag": "tags", "--allow": "allow", "--deny": "deny", "--agent": "agent",
          "--view": "view_name", "--context-window": "context_window", "--root": "root", "--config": "config_file"}
MULTIPLE = ("tags", "allow", "deny")
#: The inclusive bounds of the integer options (click.IntRange).
RANGES = {"limit": (1, 20), "width": (0, 10_000), "context_window": (1000, 10_000_000)}
VIEWS = ("full", "listing")
#: The options whose value is a path, and whether click.Path takes a folder there (dir_okay).
PATHS = {"root": True, "config_file": False}


def choices() -> dict[str, tuple[str, ...]]:
    """The options whose value is one of a list (click.Choice), and the list."""
    return {"mode": tuple(MODES), "fmt": tuple(names("search")), "view_name": VIEWS}


def parse(args: list[str]) -> dict | None:
    """The command's parameters (``query`` and :data:`DEFAULTS`'s) for ``args``, or None when click must parse them."""
    parsed = options(args, DEFAULTS, FLAGS, VALUES, MULTIPLE, listed=choices(), ranges=RANGES, paths=PATHS)
    if parsed is None or not parsed[1]:
        return None
    params, query = parsed
    params["query"] = tuple(query)
    return params


def run(query, limit, mode, fmt, explain, width, role, domain, tags, allow, deny, allow_exec, agent, view_name,
        context_window, root, config_file, *, echo: Callable[..., None], notify: Callable) -> int:
    """The search command's body (parameters as click gives them): rank, render, print; 0."""
    outcome = run_search(SearchRequest(
        query=" ".join(query), limit=limit, mode=mode, explain=explain, role=role, domain=domain, tags=tags,
        allow=allow, deny=deny, allow_exec=allow_exec, agent=agent, view=view_name, context_window=context_window,
        root=root, config_file=config_file), notify=notify)
    if width is None:  # a terminal: its width; piped (| cat, a CI log): whole descriptions
        width = 0
        if sys.stdout.isatty():
            import shutil  # only for a terminal (it imports bz2, lzma and fnmatch)

            width = shutil.get_terminal_size((80, 24)).columns
    echo(render("search", fmt, outcome.result, width=width, explain=explain, min_sim=outcome.min_sim,
                view=outcome.view, sources=outcome.sources, index=outcome.index or None,
                examples_problem=outcome.examples_problem), nl=False)
    return 0


def main(args: list[str]) -> int | None:
    """``skillsift search ARGS`` without click; None when click must run it (the module's docstring)."""
    if not plain_streams():
        return None
    params = parse(args)
    if params is None:
        return None
    return reported(lambda: run(**params, echo=echo, notify=lambda message: echo(message_line(message), err=True)))
