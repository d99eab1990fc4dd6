"""The base commit of a pull request, and a temporary worktree holding it (git, no network).

The base is the merge-base of ``HEAD`` and the base branch: on GitHub the branch named by
``GITHUB_BASE_REF`` (tried as ``origin/<ref>``, then as given), or the ``--base REF`` of the
command line (tried as given, then as ``origin/<ref>``).  Only local refs are read: the
checkout must hold the history (``actions/checkout`` with ``fetch-depth: 0``).

The worktree is made with ``git worktree add --detach`` in a temporary directory and
removed afterwards.  Hooks are disabled for it, Git LFS does not download anything, and
``GIT_INDEX_FILE`` (set while a git hook runs) is dropped so the main index is never
touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from ..diagnostics import SkillsiftError

GIT_TIMEOUT_S = 300
HISTORY_HINT = ("Check out the full history: actions/checkout with 'fetch-depth: 0' "
                "(locally: git fetch the base branch)")
_DROPPED_ENV = ("GIT_INDEX_FILE",)


@dataclass(frozen=True)
class RepoPlace:
    """Where a directory sits in its repository: the top level and the path to it (``a/b/`` or "")."""

    toplevel: str
    prefix: str


@dataclass(frozen=True)
class BaseCommit:
    sha: str
    ref: str  # the ref it was found from (``origin/main``)

    @property
    def short(self) -> str:
        return self.sha[:7]


def git_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    out = dict(os.environ if env is None else env)
    for name in _DROPPED_ENV:
        out.pop(name, None)
    out["GIT_LFS_SKIP_SMUDGE"] = "1"
    out["GIT_TERMINAL_PROMPT"] = "0"
    return out


def git(cwd: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run ``git args`` in ``cwd``; a failure raises SkillsiftError naming the command and git's message."""
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, env=git_env(), capture_output=True, text=True,
                              timeout=GIT_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise SkillsiftError("git is not installed (comparing with the base commit needs it)",
                             hint="install git, or pass --baseline FILE / --baseline none") from None
    except subprocess.TimeoutExpired:
        raise SkillsiftError(f"git {' '.join(args)} did not finish in {GIT_TIMEOUT_S} s") from None
    if check and proc.returncode != 0:
        message = (proc.stderr or proc.stdout).strip().splitlines()
        raise SkillsiftError(f"git {' '.join(args)} failed: {message[-1] if message else proc.returncode}")
    return proc


def locate(root: str) -> RepoPlace | None:
    """The repository holding ``root``, or None when it is not inside a git work tree."""
    try:
        proc = git(root, "rev-parse", "--show-toplevel", "--show-prefix", check=False)
    except SkillsiftError:
        return None
    if proc.returncode != 0:
        return None
    lines = proc.stdout.splitlines()
    if not lines:
        return None
    prefix = lines[1].strip() if len(lines) > 1 else ""
    return RepoPlace(toplevel=lines[0].strip(), prefix=prefix)


def base_candidates(explicit: str | None, env_base_ref: str | None) -> list[str]:
    """The refs to try for the base branch, in order; [] when neither is set.

    ``--base REF`` wins: REF, then ``origin/REF``.  Else ``GITHUB_BASE_REF``:
    ``origin/<ref>`` (what a pull-request checkout has), then the ref itself.
    """
    explicit = (explicit or "").strip()
    if explicit:
        out = [explicit]
        if not explicit.startswith(("origin/", "refs/")):
            out.append(f"origin/{explicit}")
        return out
    env_ref = (env_base_ref or "").strip()
    if env_ref:
        return [f"origin/{env_ref}", env_ref]
    return []


def _commit_of(root: str, ref: str) -> str:
    proc = git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}", check=False)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def find_base(root: str, candidates: list[str]) -> BaseCommit:
    """The merge-base of HEAD and the first candidate ref that exists."""
    for ref in candidates:
        if not _commit_of(root, ref):
            continue
        proc = git(root, "merge-base", "HEAD", ref, check=False)
        sha = proc.stdout.strip()
        if proc.returncode != 0 or not sha:
            raise SkillsiftError(f"HEAD and {ref} have no common commit in this checkout", hint=HISTORY_HINT)
        return BaseCommit(sha=sha, ref=ref)
    tried = ", ".join(candidates)
    raise SkillsiftError(f"the base branch was not found in this checkout (tried {tried})", hint=HISTORY_HINT)


def changed_files(root: str, sha: str) -> frozenset[str]:
    """The files that differ between ``sha`` and the working tree (untracked ones included).

    Paths are relative to the repository's top level, as annotations use them.
    """
    diff = git(root, "diff", "--name-only", "--no-renames", "-z", sha, "--")
    untracked = git(root, "ls-files", "--others", "--exclude-standard", "--full-name", "-z")
    return frozenset(p for p in (diff.stdout + untracked.stdout).split("\0") if p)


@contextmanager
def worktree(root: str, sha: str) -> Iterator[str]:
    """A detached worktree of ``sha`` in a temporary directory; yields its top level, then removes it."""
    holder = tempfile.mkdtemp(prefix="skillsift-base-")
    path = os.path.join(holder, "tree")
    no_hooks = os.path.join(holder, "no-hooks")
    os.mkdir(no_hooks)
    added = False
    try:
        git(root, "-c", f"core.hooksPath={no_hooks}", "worktree", "add", "--detach", "--quiet", path, sha)
        added = True
        yield path
    finally:
        if added:
            git(root, "worktree", "remove", "--force", path, check=False)
        shutil.rmtree(holder, ignore_errors=True)
        git(root, "worktree", "prune", check=False)
