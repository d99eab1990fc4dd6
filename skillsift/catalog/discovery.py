"""Finding the SKILL.md files of a repository the way the agents do, bounded.

:func:`discover_all` is the one discovery function (the catalog and validation call it):

* **Skills roots.** Every folder an agent profile reads (skillsift/catalog/agents.py): ``.agents/skills``,
  ``.claude/skills``, ``.codex/skills``, ``.cursor/skills``, ``.gemini/skills``,
  ``.github/skills``, ``.opencode/skills``, ``skills``, plugins (``plugins/*/skills`` and a
  plugin that is itself a skill, ``plugins/*/SKILL.md``), and skillsift's ``.ai-rulez/skills``
  and ``.ai-rulez/domains/<domain>/skills``.
* **Nested roots.** The roots that agents also read below the top (``.agents/skills``,
  ``.claude/skills``, ``.codex/skills``: a monorepo package's own skills) are looked for in
  every folder up to :data:`NESTED_DEPTH` below the root, at most :data:`NESTED_MAX_DIRS`
  folders, skipping dot folders, ``.git``, ``node_modules``, skills roots and skill folders.
* **Inside a root.** A folder holding ``SKILL.md`` is a skill (its own subfolders are not
  searched); any other folder is a category, searched to :data:`~skillsift.catalog.agents.SCAN_DEPTH`
  folders below the root (Codex's depth), at most
  :data:`~skillsift.catalog.agents.MAX_DIRS_PER_ROOT` folders per root, dot entries, ``.git`` and
  ``node_modules`` skipped (as Codex does).
* A ``SKILL.md`` is served only when its real path lies inside its own (resolved) skill
  folder and not under ``.git``: a linked skill folder is served, a ``SKILL.md`` that is a
  link to another skill's file, to ``.env`` or ``.git/config``, or one that dangles, is
  not, and is listed in :attr:`Discovery.refused` (SK020, an error).
* Nothing outside the root is read through a symlink; each such link is reported in
  :attr:`Discovery.notes` (skillsift validate shows it as SK012), as is a root whose folder
  limit was reached.  A file reached twice (a symlinked root inside the repository) is kept
  once.  Results are sorted by relative path.

* **Plugin manifests.** The skills folders that ``.claude-plugin/marketplace.json`` and
  ``.claude-plugin/plugin.json`` name (skillsift/catalog/manifests.py) are searched like the
  roots above; :attr:`Discovery.plugins` says which skills they hold and under which plugin.

Configured paths (``[catalog] skills``) replace the default roots: paths or globs relative
to the root naming a skills root, a skill folder or a ``SKILL.md``.

Longer than 450 lines because the walk of a skills root, the nested roots and the note on dot
folders share one bounded scan state (:class:`_Scan`: its budgets, the real paths walked, the
links refused), which is clearer read in one place than passed between modules.
"""

from __future__ import annotations

import os
import stat
from collections import deque

from skillsift.catalog.agents import MAX_DIRS_PER_ROOT, NESTED_ROOTS, SCAN_DEPTH
from skillsift.catalog.limits import check_files_size
from skillsift.diagnostics import ERROR, Diagnostic, SkillsiftError
from skillsift.files import SKILL_LINK_HINT, GlobLimitError, as_posix, posix_parts, repo_glob, skill_file_problem

from ..records import field, record

TYPE_CHECKING = False  # (mypy reads it as true; pathlib is not imported on the hooks' path)
if TYPE_CHECKING:
    from pathlib import Path

SKILL_FILE = "SKILL.md"
SKIP_DIRS = frozenset({".git", "node_modules"})
_SEP_SKILL_FILE = os.sep + SKILL_FILE
TOP_ROOTS = (
    ".agents/skills",
    ".claude/skills",
    ".codex/skills",
    ".cursor/skills",
    ".gemini/skills",
    ".github/skills",
    ".opencode/skills",
    "skills",
    ".ai-rulez/skills",
    ".ai-rulez/domains/*/skills",
    "plugins/*/skills",
    "plugins/*/SKILL.md",
)
NESTED_DEPTH = 4
NESTED_MAX_DIRS = 10_000
#: Folders read at most, in all, to list the SKILL.md files dot folders hold (SK013), and how many are named.
DOT_MAX_DIRS = 500
DOT_MAX_NAMED = 20
#: Folders per root that validation walks: the agents stop at MAX_DIRS_PER_ROOT, validation
#: checks the skills past that too (they are still in the repository), up to this ceiling.
CHECK_MAX_DIRS = 100_000


@record(frozen=True)
class Discovery:
    """What one discovery found: ``found`` as ``(relative path parts, domain)``, sorted;
    ``empty`` configured patterns that yielded nothing; ``searched`` the skills roots
    looked in (relative, ``/``); ``notes`` ``(relative path, why it is not served)``;
    ``stray`` SKILL.md files seen outside every root (not served); ``dot_skipped`` SKILL.md
    files inside dot folders, which neither skillsift nor the agents read (SK013 names them);
    ``unserved`` the configured patterns in which an agent finds no SKILL.md (within its folder
    limit: what a discovery of that pattern alone serves, SK003)."""

    root: str
    found: tuple[tuple[tuple[str, ...], str], ...] = ()
    empty: tuple[str, ...] = ()
    searched: tuple[str, ...] = ()
    notes: tuple[tuple[str, str], ...] = ()
    refused: tuple[tuple[str, str], ...] = ()  # (relative SKILL.md path, why it is not read): SK020
    stray: tuple[str, ...] = ()
    dot_skipped: tuple[str, ...] = ()
    unserved: tuple[str, ...] = ()
    roots: dict = field(default_factory=dict, compare=False)  # relative root -> skills found there
    # found parts -> os.stat_result of the SKILL.md, taken when it was found (not a symlink);
    # the skill cache's stamp of the file, so it is not stat'ed twice
    stats: dict = field(default_factory=dict, compare=False, repr=False)
    # found parts past an agent's folder limit: checked by validation, not served
    beyond_cap: frozenset = frozenset()
    # found parts whose path from the root passes through no symbolic link (their real path is the path
    # as written): a check that resolves paths from the skill's folder needs no realpath for them
    direct: frozenset = field(default=frozenset(), compare=False, repr=False)
    # SKILL.md path ("/") -> the plugin whose manifest names its folder (Claude Code loads them as that plugin's)
    plugins: dict = field(default_factory=dict, compare=False)

    def paths(self) -> list[tuple[Path, str]]:
        from pathlib import Path

        base = Path(self.root)
        return [(base.joinpath(*parts), domain) for parts, domain in self.found]


def domain_of(parts) -> str:
    """The domain named by a ``.ai-rulez/domains/<domain>/skills/...`` path, else ""."""
    parts = tuple(parts)
    if ".ai-rulez" not in parts:
        return ""
    for i in range(len(parts) - 3):
        if parts[i] == ".ai-rulez" and parts[i + 1] == "domains" and parts[i + 3] == "skills":
            return parts[i + 2]
    return ""


class _Scan:
    """One discovery's state: hits by parts, real paths seen, notes."""

    def __init__(self, root: str, max_dirs: int | None = None):
        self.root = root
        self.max_dirs = max(max_dirs or 0, MAX_DIRS_PER_ROOT)
        self.beyond: set[tuple[str, ...]] = set()
        self.past_cap = False
        self.real_root = os.path.realpath(root)
        self.prefix = self.real_root.rstrip(os.sep) + os.sep
        self.hits: dict[tuple[str, ...], str] = {}  # parts -> real path
        self.in_cap = 0  # files added within the agents' folder limit (a pattern's count for SK003)
        self.notes: list[tuple[str, str]] = []
        self.refused: list[tuple[str, str]] = []
        self.roots: dict[str, int] = {}
        self.searched: list[str] = []
        self.stray: list[str] = []
        self.dot_skipped: list[str] = []
        self.dot_budget = DOT_MAX_DIRS
        self.stats: dict[tuple[str, ...], os.stat_result] = {}

    def inside(self, real: str) -> bool:
        return real == self.real_root or real.startswith(self.prefix)

    def real_of(self, parts: tuple[str, ...]) -> str | None:
        """Real path of ``parts`` under the root when it lies inside (None when it leaves)."""
        try:
            real = os.path.realpath(os.path.join(self.root, *parts))
        except (OSError, ValueError):
            return None
        return real if self.inside(real) else None

    def outside(self, parts: tuple[str, ...], what: str) -> None:
        rel = "/".join(parts)
        self.notes.append((rel, f"{rel} is a symlink to outside the repository; the {what} it points to is "
                                "not served"))

    def add(self, parts: tuple[str, ...], real: str) -> None:
        if not self.past_cap:
            self.in_cap += 1
        elif parts not in self.hits:
            self.beyond.add(parts)
        self.hits.setdefault(parts, real)

    def linked_skill(self, parts: tuple[str, ...]) -> str | None:
        """The real path of the SKILL.md ``parts`` that is (or sits in) a link, or None when it
        is refused (recorded for SK020: it dangles, leaves its own skill folder, or lies under .git)."""
        path = os.path.join(self.root, *parts)
        problem = skill_file_problem(path, self.real_root)
        if problem is None and not self.inside(os.path.realpath(path)):
            problem = f"{SKILL_FILE} resolves to a file outside the repository; it is not read"
        if problem is not None:
            self.refused.append(("/".join(parts), problem))
            return None
        return os.path.realpath(path)

    def scan_root(self, parts: tuple[str, ...]) -> int:
        """Every skill under the skills root ``parts`` (bounded); returns how many were found."""
        real = self.real_of(parts)
        if real is None:
            if os.path.islink(os.path.join(self.root, *parts)):
                self.outside(parts, "skills folder")
            return 0
        rel = "/".join(parts)
        self.searched.append(rel)
        if os.path.lexists(os.path.join(real, SKILL_FILE)):
            skill_real = self.linked_skill((*parts, SKILL_FILE))
            if skill_real is None:
                return 0
            self.add((*parts, SKILL_FILE), skill_real)
            self.roots[rel] = self.roots.get(rel, 0) + 1
            return 1
        found = self.walk_root(parts, real, rel)
        self.roots[rel] = self.roots.get(rel, 0) + found
        return found

    def over_cap(self, folders: int, rel: str) -> bool:
        """Note the folder counts the agents and this walk stop at; True past the walk's own bound."""
        if folders == MAX_DIRS_PER_ROOT + 1:
            self.notes.append((rel, f"{rel} holds more than {MAX_DIRS_PER_ROOT:,} folders; the agents stop "
                                    "there, so skills beyond them are not served"))
            self.past_cap = True
        if folders > self.max_dirs:
            self.notes.append((rel, f"{rel} holds more than {self.max_dirs:,} folders; skills beyond them "
                                    "are not checked either"))
            return True
        return False

    def walk_root(self, parts: tuple[str, ...], real: str, rel: str) -> int:
        """The skills in the folders under a skills root (depth first, by name); returns how many."""
        found = 0
        folders = 0
        # every path on the stack is a real path (links are resolved), so a link back to a folder
        # already walked (a loop, or a second way in) is recognised and walked once
        walked = {real}
        stack = [(parts, real, 0)]
        self.past_cap = False
        while stack:
            cur, cur_real, depth = stack.pop()
            folders += 1
            if self.over_cap(folders, rel):
                break
            children = []
            try:
                with os.scandir(cur_real) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            # os.path.join(cur_real, name) for the names of one folder (no separator in a name)
            head = cur_real if cur_real.endswith(os.sep) else cur_real + os.sep
            for entry in entries:
                folder = self.child_folder(entry, cur, head, walked)
                if folder is None:
                    continue
                child, child_real, link = folder
                taken = self.take_skill(child, child_real, link)
                if taken is not None:
                    found += taken
                elif depth + 1 < SCAN_DEPTH:
                    children.append((child, child_real, depth + 1))
            stack.extend(reversed(children))
        self.past_cap = False
        return found

    def child_folder(self, entry, cur: tuple[str, ...], head: str, walked: set[str]):
        """``(parts, real path, is a link)`` of a subfolder to look into, or None (hidden, skipped, not a
        folder, a link leaving the repository, or a folder already walked)."""
        name = entry.name
        if name.startswith(".") or name in SKIP_DIRS:
            return None
        try:
            if not entry.is_dir():
                return None
            link = entry.is_symlink()
        except OSError:
            return None
        child = (*cur, name)
        child_real = head + name
        if link:
            child_real = os.path.realpath(child_real)
            if not self.inside(child_real):
                self.outside(child, "skill folder")
                return None
        if child_real in walked:
            return None
        walked.add(child_real)
        return child, child_real, link

    def take_skill(self, child: tuple[str, ...], child_real: str, link: bool) -> int | None:
        """Add the SKILL.md of a folder: 1 when added, 0 when one is there but not read, None when the folder
        holds none (look into its subfolders)."""
        skill = child_real + _SEP_SKILL_FILE if not child_real.endswith(os.sep) else child_real + SKILL_FILE
        # one lstat answers os.path.exists and os.path.islink for a file that is no link
        try:
            info: os.stat_result | None = os.lstat(skill)
        except (OSError, ValueError):
            info = None
        if info is None:
            return None
        try:
            if link or stat.S_ISLNK(info.st_mode):
                # a linked SKILL.md, or one in a linked folder: read only when it is a
                # file of its own (resolved) folder, never under .git (SK020)
                real_skill = self.linked_skill((*child, SKILL_FILE))
                if real_skill is None:
                    return 0
                self.add((*child, SKILL_FILE), real_skill)
                return 1
            self.add((*child, SKILL_FILE), skill)
            self.stats.setdefault((*child, SKILL_FILE), info)
            return 1
        except OSError:
            return 0

    def nested(self, skip: set[tuple[str, ...]]) -> None:
        """Agent roots in subfolders (monorepo packages), bounded; SKILL.md files seen
        outside every root are kept as strays."""
        queue: deque[tuple[tuple[str, ...], str, int]] = deque([((), self.real_root, 0)])
        visited = 0
        while queue:
            cur, cur_real, depth = queue.popleft()
            visited += 1
            if visited > NESTED_MAX_DIRS:
                break
            try:
                with os.scandir(cur_real) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            names = {e.name for e in entries}
            if cur:
                for nested_root in NESTED_ROOTS:
                    head, tail = nested_root.split("/")
                    if head in names and os.path.isdir(os.path.join(cur_real, head, tail)):
                        self.scan_root((*cur, head, tail))
                if SKILL_FILE in names:
                    # a folder served through a symlink (.claude/skills/x -> ../../x) is no stray
                    if os.path.join(cur_real, SKILL_FILE) not in set(self.hits.values()) and len(self.stray) < 100:
                        self.stray.append("/".join((*cur, SKILL_FILE)))
                    continue
            if depth >= NESTED_DEPTH:
                continue
            for entry in entries:
                name = entry.name
                if name in SKIP_DIRS:
                    continue
                child = (*cur, name)
                if name.startswith("."):
                    try:
                        dot_dir = child not in skip and not entry.is_symlink() and entry.is_dir()
                    except OSError:
                        dot_dir = False
                    if dot_dir:
                        self.dot_folder(child, os.path.join(cur_real, name), skip)
                    continue
                if child in skip:
                    continue
                try:
                    if entry.is_symlink() or not entry.is_dir():
                        continue
                except OSError:
                    continue
                queue.append((child, os.path.join(cur_real, name), depth + 1))


    def dot_folder(self, parts: tuple[str, ...], real: str, skip) -> None:
        """SKILL.md files under a dot folder that no root covers (bounded by :data:`DOT_MAX_DIRS` in all)."""
        served = set(self.hits.values())
        searched = set(self.searched)
        stack = [(parts, real, 0)]
        while stack and self.dot_budget > 0 and len(self.dot_skipped) < DOT_MAX_NAMED:
            cur, cur_real, depth = stack.pop()
            self.dot_budget -= 1
            try:
                with os.scandir(cur_real) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            children = []
            for entry in entries:
                try:
                    if entry.is_symlink():
                        continue
                    if entry.name == SKILL_FILE and entry.is_file():
                        if os.path.join(cur_real, SKILL_FILE) not in served:
                            self.dot_skipped.append("/".join((*cur, SKILL_FILE)))
                    elif (entry.is_dir() and entry.name not in SKIP_DIRS and depth < NESTED_DEPTH
                          and (*cur, entry.name) not in skip and "/".join((*cur, entry.name)) not in searched):
                        children.append(((*cur, entry.name), os.path.join(cur_real, entry.name), depth + 1))
                except OSError:
                    continue
            stack.extend(reversed(children))


def _expand(root: str, real_root: str, pattern: str) -> list[tuple[str, ...]]:
    """Relative path parts of what ``pattern`` names under the root, sorted."""
    pattern = pattern.strip()
    if not pattern:
        return []
    # One bounded glob (files.repo_glob): ``**`` does not walk into linked folders, so a
    # link loop under a configured pattern ends (docs/bounded-input.md, "Globs").
    try:
        if os.path.isabs(pattern):
            anchor = os.path.splitdrive(pattern)[0] + os.sep
            matches = [os.path.relpath(os.path.join(anchor, m), os.path.abspath(root))
                       for m in repo_glob(os.path.relpath(pattern, anchor), anchor)]
        else:
            matches = repo_glob(pattern, root)
    except GlobLimitError as exc:
        raise SkillsiftError(f'catalog.skills: {exc.strerror}',
                             hint="name the skill folders more narrowly (skills/*/ rather than **)",
                             exit_code=1) from None
    out = set()
    for match in matches:
        parts = tuple(p for p in posix_parts(as_posix(match)) if p not in ("", "."))
        if not parts or parts[0] == ".." or os.path.isabs(match) or SKIP_DIRS.intersection(parts):
            continue
        out.add(parts)
    return sorted(out)


def _scan_match(scan: _Scan, root: str, parts: tuple[str, ...]) -> int:
    """The skills a pattern's match holds: a SKILL.md itself, or a folder scanned as a skills root."""
    if parts[-1] == SKILL_FILE:
        if scan.real_of(parts[:-1]) is None:
            if os.path.islink(os.path.join(root, *parts[:-1])):
                scan.outside(parts[:-1], "skill folder")
            return 0
        real = scan.linked_skill(parts)
        if real is None:
            return 0
        scan.add(parts, real)
        scan.searched.append("/".join(parts[:-1]))
        return 1
    if os.path.isdir(os.path.join(root, *parts)) or os.path.islink(os.path.join(root, *parts)):
        return scan.scan_root(parts)
    return 0


def _served(scan: _Scan, extra: tuple) -> list[tuple[tuple[str, ...], str]]:
    """``(parts, domain)`` of each file found once: the repository's own by path, then each of ``extra``'s."""
    extra_parts = [tuple(folder.split("/")) for folder in extra]

    def order(parts: tuple[str, ...]) -> tuple:
        source = next((i for i, folder in enumerate(extra_parts, 1) if parts[:len(folder)] == folder), 0)
        return source, parts

    found = []
    seen: set[str] = set()
    for parts in sorted(scan.hits, key=order) if extra_parts else sorted(scan.hits):  # (no extra: by path alone)
        real = scan.hits[parts]
        if real in seen:
            continue
        seen.add(real)
        found.append((parts, domain_of(parts)))
    return found


def discover_all(root=".", patterns=(), *, max_dirs: int | None = None, extra=()) -> Discovery:
    """Every SKILL.md under ``root`` (module docstring), with what was searched and skipped.

    ``max_dirs`` above the agents' limit (validation passes :data:`CHECK_MAX_DIRS`) walks on
    past it: the skills found there are in ``found`` and in ``beyond_cap``.  ``extra``: folders
    read besides ``patterns`` (or the default layouts), the mounted skill sources (docs/sources.md);
    their skills come last in ``found``, in the order of ``extra``, so the repository's own come first.
    """
    root = os.fspath(root)
    patterns = tuple(patterns)
    extra = tuple(extra)
    if not os.path.isdir(root):
        return Discovery(root=root, empty=patterns, unserved=patterns)
    scan = _Scan(root, max_dirs)
    empty: list[str] = []
    unserved: list[str] = []
    for i, pattern in enumerate((patterns or TOP_ROOTS) + extra):
        in_cap = scan.in_cap
        count = sum(_scan_match(scan, root, parts) for parts in _expand(root, scan.real_root, pattern))
        if patterns and not count and pattern not in extra:
            empty.append(pattern)
        if i < len(patterns) and scan.in_cap == in_cap:
            unserved.append(pattern)
    plugins: dict[tuple[str, ...], str] = {}  # SKILL.md parts -> plugin name, the skills a plugin manifest names
    if not patterns:
        from skillsift.catalog.manifests import scan_manifests

        plugins = scan_manifests(scan)
        skip = {tuple(r.split("/")) for r in scan.searched}
        skip |= {parts[:-1] for parts in scan.hits}
        scan.nested(skip)
    found = _served(scan, extra)
    searched = sorted(dict.fromkeys(scan.searched))

    check_files_size(root, [parts for parts, _domain in found], scan.stats)  # docs/bounded-input.md
    return Discovery(root=root, found=tuple(found), empty=tuple(empty), searched=tuple(searched),
                     notes=tuple(sorted(dict.fromkeys(scan.notes))),
                     refused=tuple(sorted(dict.fromkeys(scan.refused))), stray=tuple(scan.stray),
                     dot_skipped=tuple(scan.dot_skipped[:DOT_MAX_NAMED]), unserved=tuple(unserved),
                     roots=dict(scan.roots), stats={parts: scan.stats[parts] for parts, _ in found
                                                    if parts in scan.stats},
                     beyond_cap=frozenset(p for p, _ in found if p in scan.beyond),
                     direct=frozenset(p for p, _ in found if scan.hits[p] == scan.prefix + os.sep.join(p)),
                     plugins={"/".join(p): plugins[p] for p, _ in found if p in plugins})


def refused_findings(discovery: Discovery) -> list:
    """SK020 errors for the SKILL.md files ``discovery`` refused to read (docs/validate.md)."""

    return [Diagnostic(file=rel, code="SK020", severity=ERROR, message=message, hint=SKILL_LINK_HINT)
            for rel, message in discovery.refused]


def layouts_searched(patterns=()) -> tuple[str, ...]:
    """The skills roots a discovery with ``patterns`` looks in, for people (SK013)."""
    if patterns:
        return tuple(patterns)
    return (*TOP_ROOTS, *(f"<package>/{r}" for r in NESTED_ROOTS))
