"""One ``skillsift index`` and one ``skillsift status``: the request in, the outcome out (docs/vector-index.md).

:func:`run_index` opens the project, plans the build (:mod:`.index_build`), and unless it is a
dry run builds and writes the index.  :func:`run_status` reads the index and says how it
stands against the served skills (verifying the rows the local model can embed again).
Neither prints: what a person should see comes to ``notify`` as
:class:`~skillsift.usecases.project.Message` data, in the order it happens (the skills kept
back from a provider are told before a build that fails), and the door renders the
outcome.  A problem that stops the command raises SkillsiftError (exit 1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import committed_index, index_path
from ..evaluate.examples import indexed_example_pairs
from ..index.configured import ConfiguredProvider
from ..index.status import status_report
from ..index.store import load_index
from ..index.verify import local_verifier, verifiable, verify_rows
from . import index_build
from .project import Message, open_project


@dataclass(frozen=True)
class IndexRequest:
    """The flags of one ``skillsift index`` (see the command's help)."""

    dry_run: bool = False
    rebuild: bool = False
    items: str | None = None  # --items a,b: re-embed these skills even if unchanged
    allow_exec: bool = False
    root: str = "."
    config_file: str | None = None
    force: bool = False  # rewrite a read-only index file (its mode kept)


@dataclass(frozen=True)
class IndexOutcome:
    """What the run planned and, unless ``dry_run``, built.

    ``result``, ``written`` and ``index_dir`` are None, False and None for a dry run;
    ``closing``: the lines said after the report (refusals, nothing embedded, an early stop).
    """

    plan: Any
    provider: Any
    dry_run: bool
    allow_network: bool
    result: Any = None
    written: bool = False
    index_dir: Path | None = None
    exit_code: int = 0
    closing: tuple[Message, ...] = ()


def run_index(request: IndexRequest, notify: Callable[[Message], None], progress=None) -> IndexOutcome:
    """Plan, and unless a dry run build, the index ``request`` asks for; ``progress`` as
    :func:`.index_build.build` takes it."""
    from ..render.index import build_notes, withheld_lines

    project = open_project(request.root, request.config_file, allow_exec=request.allow_exec)
    for message in project.messages:
        notify(message)
    config, catalog = project.config, project.catalog
    again = index_build.parse_items(request.items, catalog)
    prepared = index_build.prepare(config, catalog, rebuild=request.rebuild, force=again, dry_run=request.dry_run)
    for line in withheld_lines(prepared.plan):
        notify(Message("", line))
    if request.dry_run:
        return IndexOutcome(prepared.plan, prepared.provider, dry_run=True, allow_network=prepared.allow_network)
    built = index_build.build(prepared, progress=progress, force_write=request.force)
    return IndexOutcome(built.plan, built.provider, dry_run=False, allow_network=prepared.allow_network,
                        result=built.result, written=built.written, index_dir=built.index_dir,
                        exit_code=built.exit_code,
                        closing=tuple(Message("", line) for line in build_notes(built.result)))


@dataclass(frozen=True)
class StatusRequest:
    """The flags of one ``skillsift status`` (see the command's help)."""

    root: str = "."
    config_file: str | None = None
    verify: bool = True  # embed the current rows again with the local model (when installed) and compare


def run_status(request: StatusRequest, notify: Callable[[Message], None]):
    """The :func:`~skillsift.index.status.status_report` of the project's index."""
    project = open_project(request.root, request.config_file)
    for message in project.messages:
        notify(message)
    config, catalog = project.config, project.catalog
    identity = ConfiguredProvider.from_config(config, repository_command=True)
    s = config.search
    loaded = load_index(index_path(config))
    examples = indexed_example_pairs(config, catalog, identity)
    verification = None
    if request.verify and loaded.index is not None and verifiable(loaded.index):
        index = loaded.index
        verification = verify_rows(index, catalog.skills, lambda: local_verifier(index), fields=s.fields,
                                   index_body=s.index_body, body_chars=s.body_chars, root=str(config.root),
                                   requests=examples)
    return status_report(
        loaded, catalog, provider=identity.fingerprint, model=identity.model,
        mode=s.mode, index_dir=s.index_dir, committed=committed_index(config), fields=s.fields,
        index_body=s.index_body, body_chars=s.body_chars, verification=verification,
        examples=examples, dims=identity.dims,
    )
