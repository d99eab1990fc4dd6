"""The sources of a project against its lock: update, fetch, status, and the folders to read skills from.

Three moves, one rule each (docs/sources.md):

* :func:`update` resolves each configured source (``git``: fetch ``rev`` and take the commit it
  names; ``path``: read the folder), digests its skills and rewrites ``skillsift.lock``. With
  ``offline`` it fetches nothing and uses the cache; with ``frozen`` it refuses any change of the
  lock (what CI runs). The lock is written only when every named source resolved, atomically, under
  a lock of the cache, so a failure mid-way leaves the last good lock and cache as they were.
* :func:`fetch_locked` makes the cache hold every locked commit (fetching ``rev`` again when a
  commit is missing, and refusing a ``rev`` that now names another commit): the lock never changes.
* :func:`read_sources` is what the catalog uses: for each locked source, the folder to read skills
  from and the skills the lock admits. It never fetches. A skill whose digest differs from the lock,
  or that the lock does not name, is refused; a source not in the cache is reported, not read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..cache.base import cache_dir
from ..config.model import Config, SkillSource
from ..index.atomic import write_atomic
from ..index.lock import IndexLocked, acquire_lock
from .git import GitError, fetch, has_commit, lay_out, source_dir
from .lockfile import LOCK_FILE, Lock, LockedSource, LockFileError, parse_lock
from .tree import SourceTooLarge, walk

MAX_LOCK_READ = 16 * 1024 * 1024


class SourcesError(RuntimeError):
    """A sources step could not be done; the message names the source and the fix."""


@dataclass(frozen=True)
class SourceProblem:
    """Something about a source or one of its skills, with the check code it is reported as."""

    source: str
    code: str  # SK050 digest or unlocked, SK051 lock and config disagree, SK052 a link, SK053 not fetched
    message: str
    skill: str = ""  # the skill folder, relative to the source root ("" = the whole source)


@dataclass(frozen=True)
class SourceRoot:
    """A source as the catalog reads it: the folder and the skill folders the lock admits."""

    name: str
    folder: Path  # the folder holding the skills (``subdir`` applied)
    admitted: tuple[str, ...]  # skill folders, relative to ``folder``
    commit: str = ""
    digests: dict[str, str] = field(default_factory=dict)  # admitted skill folder -> digest


@dataclass
class SourcesView:
    roots: list[SourceRoot] = field(default_factory=list)
    problems: list[SourceProblem] = field(default_factory=list)


def lock_path(config: Config) -> Path:
    return Path(config.root) / LOCK_FILE


def read_lock(config: Config) -> Lock | None:
    """The project's lock, None when there is none; raises :class:`LockFileError` when it is damaged."""
    path = lock_path(config)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise LockFileError(f"{LOCK_FILE}: not a regular file; remove it and run `skillsift sources update`")
    if not path.exists():
        return None
    with open(path, "rb") as handle:
        data = handle.read(MAX_LOCK_READ + 1)
    return parse_lock(data, source=LOCK_FILE)


def _cache(cache: Path | None) -> Path:
    if cache is None:
        raise SourcesError("no cache folder: set SKILLSIFT_CACHE_DIR (or HOME) so git sources can be fetched")
    return cache


def _path_root(config: Config, spec: SkillSource) -> Path:
    base = Path(spec.path)
    if not base.is_absolute():
        base = Path(config.root) / base
    return base / spec.subdir if spec.subdir else base


def _matches(spec: SkillSource, locked: LockedSource | None) -> bool:
    return locked is not None and (locked.git, locked.path, locked.rev, locked.subdir) == (
        spec.git, spec.path, spec.rev, spec.subdir)


def _resolve_one(config: Config, spec: SkillSource, locked: LockedSource | None, cache: Path | None, *,
                 offline: bool) -> LockedSource:
    """The lock entry ``spec`` resolves to now (fetching unless ``offline``)."""
    if spec.path:
        folder = _path_root(config, spec)
        if not folder.is_dir():
            raise SourcesError(f'source "{spec.name}": {folder} is not a folder; fix path/subdir in [[sources]]')
        commit = ""
    else:
        where = source_dir(_cache(cache), spec.name, spec.git)
        if offline:
            if not _matches(spec, locked) or not has_commit(where, locked.commit):  # type: ignore[union-attr]
                raise SourcesError(f'source "{spec.name}": {spec.rev} of {spec.git} is not in the cache, and '
                                   "--offline fetches nothing; run `skillsift sources update` with the network")
            commit = locked.commit  # type: ignore[union-attr]
        else:
            try:
                commit = fetch(where, spec.git, spec.rev)
            except GitError as exc:
                raise SourcesError(f'source "{spec.name}": {exc}; the lock and the cache are unchanged') from None
        try:
            folder = lay_out(where, commit, spec.subdir).folder
        except GitError as exc:
            raise SourcesError(f'source "{spec.name}": {exc}') from None
        if spec.subdir and not folder.is_dir():
            raise SourcesError(f'source "{spec.name}": {spec.subdir} is not a folder at {commit[:12]}')
    try:
        tree = walk(str(folder))
    except SourceTooLarge as exc:
        raise SourcesError(f'source "{spec.name}": {exc}') from None
    return LockedSource(name=spec.name, git=spec.git, path=spec.path, rev=spec.rev, subdir=spec.subdir,
                        commit=commit, skills={s.path: s.digest for s in tree.skills})


def update(config: Config, cache: Path | None, *, names: tuple[str, ...] = (), offline: bool = False,
           frozen: bool = False) -> tuple[Lock, bool]:
    """Resolve the sources (all, or ``names``) and write the lock; returns ``(lock, changed)``."""
    specs = {s.name: s for s in config.skill_sources}
    unknown = [n for n in names if n not in specs]
    if unknown:
        raise SourcesError(f'no source named "{unknown[0]}" in [[sources]] (configured: '
                           f'{", ".join(specs) or "none"})')
    try:
        old = read_lock(config) or Lock()
    except LockFileError as exc:
        if frozen:
            raise SourcesError(str(exc)) from None
        old = Lock()
    try:
        guard = acquire_lock(_cache(cache) / "sources") if any(s.git for s in specs.values()) else None
    except IndexLocked as exc:
        raise SourcesError(f"another skillsift run is updating sources ({exc.path}); wait for it, or remove "
                           "that file if none is running") from None
    try:
        new = dict(old.sources)
        for name in [n for n in new if n not in specs]:
            del new[name]  # a source no longer configured leaves the lock
        for name, spec in specs.items():
            if names and name not in names and name in new:
                continue
            new[name] = _resolve_one(config, spec, old.sources.get(name), cache, offline=offline)
        lock = Lock(new)
        data = lock.dumps()
        path = lock_path(config)
        current = path.read_bytes() if path.is_file() else b""
        if data == current:
            return lock, False
        if frozen:
            raise SourcesError(f"--frozen: {LOCK_FILE} would change ({_what_changed(old, lock)}); run `skillsift "
                               "sources update` and commit the lock")
        write_atomic(path, data)
        return lock, True
    finally:
        if guard is not None:
            guard.release()


def _what_changed(old: Lock, new: Lock) -> str:
    names = sorted(set(old.sources) | set(new.sources))
    changed = [n for n in names if old.sources.get(n) != new.sources.get(n)]
    return "sources " + ", ".join(changed) if changed else "format"


def fetch_locked(config: Config, cache: Path | None, *, as_locked: bool = False) -> list[str]:
    """Make the cache hold every locked git commit; returns what was fetched. Never changes the lock.

    ``as_locked``: every source the lock pins, whatever ``[[sources]]`` says (a base commit's lock).
    """
    lock = _lock_or_fail(config)
    fetched = []
    for spec in (locked_specs(lock) if as_locked else config.skill_sources):
        locked = lock.sources.get(spec.name)
        if not _matches(spec, locked):
            raise SourcesError(f'source "{spec.name}": {LOCK_FILE} does not match [[sources]]; run `skillsift '
                               "sources update` and commit the lock")
        assert locked is not None
        if not spec.git:
            continue
        where = source_dir(_cache(cache), spec.name, spec.git)
        if has_commit(where, locked.commit):
            continue
        try:
            commit = fetch(where, spec.git, spec.rev)
        except GitError as exc:
            raise SourcesError(f'source "{spec.name}": {exc}; the lock and the cache are unchanged') from None
        if commit != locked.commit:
            raise SourcesError(f'source "{spec.name}": {spec.rev} now names {commit[:12]}, the lock says '
                               f"{locked.commit[:12]}: the source was rewritten under the same name; review it, "
                               "then `skillsift sources update`")
        fetched.append(spec.name)
    return fetched


def _lock_or_fail(config: Config) -> Lock:
    try:
        lock = read_lock(config)
    except LockFileError as exc:
        raise SourcesError(str(exc)) from None
    if lock is None:
        raise SourcesError(f"no {LOCK_FILE}: run `skillsift sources update` and commit it")
    return lock


def locked_specs(lock: Lock) -> tuple[SkillSource, ...]:
    """The sources as ``lock`` pins them (what a commit's own lock served, whatever the config says now)."""
    return tuple(SkillSource(name=e.name, git=e.git, path=e.path, rev=e.rev, subdir=e.subdir)
                 for e in (lock.sources[n] for n in sorted(lock.sources)))


def read_sources(config: Config, cache: Path | None, *, as_locked: bool = False) -> SourcesView:
    """The folders the catalog reads source skills from, and every problem met. Never fetches.

    ``as_locked``: read every source the lock pins, as it pins it, whatever ``[[sources]]`` says
    (``skillsift ci`` evaluates the base commit so: the skills its agents were served).
    """
    view = SourcesView()
    if not config.skill_sources and not as_locked:
        return view
    try:
        lock = read_lock(config)
    except LockFileError as exc:
        view.problems.append(SourceProblem("", "SK051", f"{exc}: no source skill is read"))
        return view
    specs = locked_specs(lock) if as_locked and lock is not None else config.skill_sources
    for spec in specs:
        locked = lock.sources.get(spec.name) if lock else None
        if not _matches(spec, locked):
            view.problems.append(SourceProblem(spec.name, "SK051", f'source "{spec.name}" is not in {LOCK_FILE} as '
                                               "configured: run `skillsift sources update` and commit the lock"))
            continue
        assert locked is not None
        if spec.path:
            folder = _path_root(config, spec)
            if not folder.is_dir():
                view.problems.append(SourceProblem(spec.name, "SK051", f'source "{spec.name}": {folder} is not a '
                                                   "folder"))
                continue
            links: list[str] = []
        else:
            where = source_dir(cache, spec.name, spec.git) if cache is not None else None
            if where is None or not has_commit(where, locked.commit):
                view.problems.append(SourceProblem(spec.name, "SK053", f'source "{spec.name}" ({locked.commit[:12]}) '
                                                   "is not in the cache: run `skillsift sources fetch`"))
                continue
            try:
                layout = lay_out(where, locked.commit, spec.subdir)
            except GitError as exc:
                view.problems.append(SourceProblem(spec.name, "SK051", f'source "{spec.name}": {exc}'))
                continue
            folder, links = layout.folder, layout.links
        try:
            tree = walk(str(folder))
        except (SourceTooLarge, OSError) as exc:
            view.problems.append(SourceProblem(spec.name, "SK051", f'source "{spec.name}": {exc}'))
            continue
        for link in sorted(set(links) | set(tree.links)):
            view.problems.append(SourceProblem(spec.name, "SK052", f'source "{spec.name}": {link} is a link (or '
                                               "submodule); it is never followed", skill=link))
        admitted = []
        found = {s.path: s.digest for s in tree.skills}
        for rel in sorted(found):
            want = locked.skills.get(rel)
            if want is None:
                view.problems.append(SourceProblem(spec.name, "SK050", f'source "{spec.name}": skill {rel} is not in '
                                                   f"{LOCK_FILE}; it is refused until `skillsift sources update`",
                                                   skill=rel))
            elif want != found[rel]:
                view.problems.append(SourceProblem(spec.name, "SK050", f'source "{spec.name}": skill {rel} differs '
                                                   f"from its digest in {LOCK_FILE}; it is refused", skill=rel))
            else:
                admitted.append(rel)
        for rel in sorted(set(locked.skills) - set(found)):
            view.problems.append(SourceProblem(spec.name, "SK051", f'source "{spec.name}": skill {rel} of '
                                               f"{LOCK_FILE} is missing", skill=rel))
        view.roots.append(SourceRoot(spec.name, folder, tuple(admitted), locked.commit,
                                     {rel: found[rel] for rel in admitted}))
    return view


@dataclass(frozen=True)
class SourceStatus:
    name: str
    state: str  # "ok", "stale" (config and lock differ), "missing" (not fetched), "changed" (digests differ)
    commit: str
    detail: str


def status(config: Config, cache: Path | None) -> list[SourceStatus]:
    """One line per configured source (and per locked source no longer configured)."""
    try:
        lock = read_lock(config) or Lock()
    except LockFileError as exc:
        return [SourceStatus("", "damaged", "", str(exc))]
    view = read_sources(config, cache)
    by_source: dict[str, list[SourceProblem]] = {}
    for problem in view.problems:
        by_source.setdefault(problem.source, []).append(problem)
    out = []
    for spec in config.skill_sources:
        locked = lock.sources.get(spec.name)
        problems = by_source.get(spec.name, [])
        if not _matches(spec, locked):
            out.append(SourceStatus(spec.name, "stale", "", "not locked as configured: `skillsift sources update`"))
        elif any(p.code == "SK053" for p in problems):
            out.append(SourceStatus(spec.name, "missing", locked.commit if locked else "",
                                    "not fetched: `skillsift sources fetch`"))
        elif any(p.code in ("SK050", "SK051") for p in problems):
            out.append(SourceStatus(spec.name, "changed", locked.commit if locked else "",
                                    f"{sum(p.code in ('SK050', 'SK051') for p in problems)} skill(s) differ from "
                                    "the lock"))
        else:
            root = next(r for r in view.roots if r.name == spec.name)
            out.append(SourceStatus(spec.name, "ok", locked.commit if locked else "",
                                    f"{len(root.admitted)} skill(s)"))
    for name in sorted(set(lock.sources) - {s.name for s in config.skill_sources}):
        out.append(SourceStatus(name, "stale", lock.sources[name].commit, "locked but no longer configured"))
    return out


def cache_folder(env=None) -> Path | None:
    """Where fetched sources live: the user cache folder. ``SKILLSIFT_CACHE=off`` turns off the caches
    that only save time; the fetched sources are the data a lock pins, so they are kept and read."""

    env = dict(os.environ if env is None else env)
    env.pop("SKILLSIFT_CACHE", None)
    return cache_dir(env)
