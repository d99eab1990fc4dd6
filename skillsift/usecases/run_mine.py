"""One ``skillsift mine``: the request in, the outcome out (docs/query-mining.md).

:func:`run_mine` checks the flags, opens the project, reads the query log, labels its
queries (:func:`~skillsift.evaluate.querylog.mine`) and writes what ``--output`` or
``--into`` names (and, with ``--purge``, deletes the log).  It prints nothing: what a
person should see on the way comes to ``notify`` as
:class:`~skillsift.usecases.project.Message` data, and the door prints the
:class:`MineOutcome`'s cases file and closing lines.  A problem that stops the run raises
SkillsiftError (exit 1).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from ..diagnostics import SkillsiftError
from ..evaluate.cases import parse_cases, read_bounded
from ..evaluate.cases_yaml import cases_to_yaml
from ..evaluate.mine_into import merge_into
from ..evaluate.querylog import log_path, mine, purge_log, read_log_counted
from ..files import refused_target
from ..index.atomic import write_atomic
from ..secrets.scan import detect_secret
from .project import Message, open_project

NONE_LABELLED = "# no query could be labelled\n"
HEADER = ("Cases mined from the search query log by 'skillsift mine'.\n"
          "Each query is labelled with the skill its session loaded next: review before gating.")


@dataclass(frozen=True)
class MineRequest:
    """The flags of one ``skillsift mine`` (see the command's help)."""

    root: str = "."
    config_file: str | None = None
    min_count: int = 1
    output: str | None = None
    into: str | None = None
    max_per_skill: int = 20
    purge: bool = False
    force: bool = False  # rewrite a read-only --output or --into file (its mode kept)

    def check(self) -> None:
        """Raise SkillsiftError on flags that do not go together or out of range (before anything is read)."""
        if self.min_count < 1:
            raise SkillsiftError("--min-count must be at least 1",
                                 hint="--min-count 2 keeps labels seen twice or more")
        if self.into and self.output:
            raise SkillsiftError("--into and --output cannot be used together",
                                 hint="--output writes a new cases file; --into merges into an examples file")
        if self.max_per_skill < 1:
            raise SkillsiftError("--max-per-skill must be at least 1")


@dataclass(frozen=True)
class MineOutcome:
    """``text``: the cases file for standard output (None when it went to ``--output`` or ``--into``);
    ``closing``: the lines said after it (the counts, the purged log)."""

    text: str | None
    closing: tuple[Message, ...]


def run_mine(request: MineRequest, notify: Callable[[Message], None]) -> MineOutcome:
    """Mine the query log as ``request`` says; messages go to ``notify`` as they come."""
    request.check()
    project = open_project(request.root, request.config_file)
    for message in project.messages:
        notify(message)
    config, catalog = project.config, project.catalog
    path = log_path(config)
    result = mine(_read_log(path, notify), catalog.names, request.min_count)
    for flag, target in (("--into", request.into), ("--output", request.output)):
        if target:
            _refuse_link_out(flag, target, config.root)
    text: str | None = None
    if request.into:
        _merge_into(request.into, result.cases, config, request.max_per_skill, request.force, notify)
    else:
        text = cases_to_yaml(result.cases, header=HEADER) if result.cases else NONE_LABELLED
        if request.output:
            write_atomic(request.output, text.encode("utf-8"), force=request.force)
            text = None
    closing = [Message("", result.stats_line())]
    if request.purge and purge_log(path):
        closing.append(Message("", f"purged {path}"))
    return MineOutcome(text=text, closing=tuple(closing))


def _read_log(path, notify: Callable[[Message], None]) -> list:
    """The query log's events; lines that are not events, and an empty or missing log, are told."""
    entries, bad = read_log_counted(path)
    if bad:
        notify(Message("", f"note: skipped {bad} line{'s' if bad != 1 else ''} of {path} that "
                           f"{'are' if bad != 1 else 'is'} not a JSON event"))
    if not entries:
        notify(Message("", f"note: the query log {path} is empty or missing; 'skillsift mcp' writes it when "
                           "[search] log_queries = true is set in the user config or SKILLSIFT_LOG_QUERIES=1"))
    return entries


def _refuse_link_out(flag: str, target: str, root) -> None:
    """Raise when a file of the repository that ``mine`` would write is a link (or under a linked folder)
    leading outside the repository or into ``.git/`` (docs/bounded-input.md, "Files a repository holds")."""
    real = refused_target(target, root)
    if real is not None:
        raise SkillsiftError(f"{flag} {target}: links take it outside the repository or into .git/ (to {real}); "
                             "nothing was written", hint="replace the link with a file or folder of the repository")


def _merge_into(into: str, cases, config, cap: int, force: bool, notify: Callable[[Message], None]) -> None:
    """Merge ``cases`` into the examples file ``into`` (created when missing); its notes go to ``notify``."""
    existing = None
    if os.path.lexists(into):
        if os.path.islink(into):
            raise SkillsiftError(f"--into {into}: not a regular file", hint="Name an examples file (YAML)")
        raw = read_bounded(into, "examples", hint="Name an examples file (YAML)")  # the one bounded reader
        try:
            existing = raw.decode("utf-8")
        except UnicodeDecodeError:
            parse_cases(raw, into, "examples")  # AR9D2, naming the line that is not UTF-8
            raise
    patterns = tuple(config.secret_patterns)
    merged = merge_into(existing, cases, cap=cap, scan=lambda text: detect_secret(text, patterns), path=into)
    if merged.text is not None:
        write_atomic(into, merged.text.encode("utf-8"), force=force)
    for note in merged.notes(into, cap):
        notify(Message("", f"note: {note}"))
