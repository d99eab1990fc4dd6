"""The ``skillsift`` console script.

``skillsift hook NAME ...`` (what pre-commit runs, once per hook and commit) goes straight
to the hook's module, which parses its own arguments: click, the command table and their
imports are left out of that path.  So do ``skillsift search`` and ``skillsift validate`` with
plain arguments (:mod:`skillsift.commands.search_run`, :mod:`skillsift.commands.validate_run`).
Everything else runs the click group of :mod:`skillsift.commands.group`, whose subcommands are
imported only when run.
"""

from __future__ import annotations

import gc
import sys

import skillsift

from . import catalog
from ._version import __version__
from .diagnostics import SkillsiftError
from .hooks.specs import HOOK_NAMES

__all__ = ["__version__", "main"]


def main(argv=None) -> int:
    """Run the CLI and return its exit code (see :func:`skillsift.commands.group.main`)."""

    earlier, catalog.collector_pause = catalog.collector_pause, CollectorPause
    if argv is None:  # the console script: its patterns come from the compiled-regex cache
        skillsift._command_line = True
    # the console script (or ``python -m skillsift``): this call is the whole process
    own_collector = argv is None and gc.isenabled() and not gc.get_freeze_count()
    try:
        args = sys.argv[1:] if argv is None else list(argv)
        skillsift._one_shot = argv is None and args[:1] != ["mcp"]  # (the server answers many searches)
        if len(args) >= 2 and args[0] == "hook" and args[1] in HOOK_NAMES:
            return _hook(args[1], args[2:], own_collector=own_collector)
        if args[:1] in (["search"], ["validate"]):  # the common calls, without click (commands/<name>_run.py)
            plain_run = _quietly(lambda: _plain_run(args[0])) if own_collector else _plain_run(args[0])
            code = plain_run.main(args[1:])
            if code is not None:
                return code
        group = _imported_quietly(args) if own_collector else _group()
        return group.main(argv)
    finally:
        catalog.collector_pause = earlier
        skillsift._one_shot = False
        if argv is None:
            _save_regexes()
        if own_collector and gc.isenabled():
            gc.freeze()  # the process ends: the collections at its exit walk nothing it made


def _save_regexes() -> None:
    """The console script keeps the patterns it compiled for the next run (:mod:`skillsift.cache.regexes`).

    Looked up among the loaded modules, not imported: a run that compiled none (``--version``,
    ``--help``) loads nothing for it.
    """
    regexes = sys.modules.get(f"{__package__}.cache.regexes")
    if regexes is not None:
        regexes.save()
    skillsift._command_line = False


class CollectorPause:
    """The cyclic garbage collector paused while a catalog is built from the caches (command line only).

    Discovery, the skill cache's JSON and the skills made from it are thousands of
    containers with no reference cycles, and collections among them were 3.5 ms of a cold
    search on 2,000 skills.  :meth:`resume` (called before a file is parsed: a YAML loader
    holds cycles) or the end of the ``with`` block turns it back on, the objects made
    meanwhile moved to the oldest generation (1.5 ms less: the first young collection would
    walk them all); a collector already off is left off.  Only the command line sets it
    (:func:`main`, through :data:`skillsift.catalog.collector_pause`): a library call
    such as ``load_catalog`` leaves the host's collector as it is.
    """

    def __init__(self):
        self.paused = gc.isenabled()
        if self.paused:
            gc.disable()

    def resume(self) -> None:
        if self.paused:
            self.paused = False
            if not gc.get_freeze_count():  # (never thaw what a host application froze)
                gc.freeze()  # and thaw: what was made meanwhile joins the oldest generation, so
                gc.unfreeze()  # the next young collection does not walk all of it once more
            gc.enable()

    def __enter__(self) -> CollectorPause:
        return self

    def __exit__(self, *exc) -> None:
        self.resume()


def _hook(name: str, args: list[str], *, own_collector: bool = False) -> int:
    """``skillsift hook NAME ARGS``, with the exit codes and error output of the click path.

    ``own_collector``: the hook is the whole process, whose cyclic garbage collector it may
    set.  The collector is then off while the hook's modules load (they make no garbage, and
    the collections their objects set off were about 4% of a hook's instructions) and what
    they made is frozen (:func:`gc.freeze`): no collection of the run walks it again.
    """
    import importlib

    try:
        try:
            if own_collector:
                gc.disable()
            hook = importlib.import_module(f"{__package__}.hooks.{name}")
            if own_collector:
                gc.freeze()
                gc.enable()
            return hook.main(args)
        except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
            return exc.code if isinstance(exc.code, int) else 2
    except (EOFError, KeyboardInterrupt):
        print(file=sys.stderr)
        print("aborted", file=sys.stderr)
        return 1
    except SkillsiftError as exc:
        from .render.sanitise import plain

        lines = [plain(diag.render()) for diag in exc.diagnostics] + [f"error: {plain(exc.message)}"]
        if exc.hint:
            lines.append(f"hint: {plain(exc.hint)}")
        sys.stderr.write("".join(f"{line}\n" for line in lines))
        sys.stderr.flush()
        return exc.exit_code


def _imported_quietly(args: list[str]):
    """:mod:`skillsift.commands.group` and the module of the command ``args`` name, imported with the
    cyclic collector off, then what they made moved to the oldest generation (as :meth:`CollectorPause.resume`).

    Imports make thousands of functions, classes and dicts and no garbage, and the young collections
    they set off walked them again and again: about 15 ms of a cold ``validate``.  The command's
    module is the one :meth:`~skillsift.commands.group.LazyGroup.get_command` imports; a name that is
    no command, or a module that fails to import, is left to click (which reports it as before).
    """
    import importlib

    def load():
        group = _group()
        target = group.COMMANDS.get(args[0]) if args else None
        if target is not None:
            try:
                importlib.import_module(target[0])
            except Exception:  # noqa: BLE001 - get_command imports it again and reports the failure
                pass
        return group

    return _quietly(load)


def _quietly(load):
    """``load()`` (imports) with the cyclic collector off, then what it made moved to the oldest generation."""
    gc.disable()
    try:
        return load()
    finally:
        gc.freeze()  # and thaw: what the imports made joins the oldest generation, where only a full
        gc.unfreeze()  # collection walks it (a frozen count would keep CollectorPause from doing the same)
        gc.enable()


def _plain_run(command: str):
    """The module running ``command``'s common calls without click: :mod:`skillsift.commands.search_run` or
    :mod:`skillsift.commands.validate_run`."""
    if command == "search":
        from .commands import search_run

        return search_run
    from .commands import validate_run

    return validate_run


def _group():
    """:mod:`skillsift.commands.group`, the click side: a hook's path (:func:`_hook`) never loads it."""
    from .commands import group

    return group


def __getattr__(name: str):
    """``cli``, ``COMMANDS`` and ``LazyGroup`` still come from here (they need click)."""
    if name in ("cli", "COMMANDS", "LazyGroup"):
        return getattr(_group(), name)
    raise AttributeError(f"module 'skillsift.cli' has no attribute {name!r}")
