"""Fetching a git source with the real ``git``, into the user cache, and laying out one commit.

Every call runs ``git`` as a subprocess (no shell) with a bounded time, no terminal prompt
(``GIT_TERMINAL_PROMPT=0``, an askpass that answers nothing), no LFS smudge, no hooks, no
submodules, and only the transports named in :data:`PROTOCOLS` (``GIT_ALLOW_PROTOCOL``: never
``ext::``). A source's objects live in a bare repository of its own,
``<cache>/sources/<name>-<hash of the URL>/repo.git``; a fetch is shallow (``--depth 1``) and
keeps what it fetched under ``refs/skillsift/`` so git never collects it.

A commit is laid out with ``git ls-tree`` and ``git cat-file`` (no checkout): regular files only;
a symbolic link (mode 120000) or a submodule entry is reported and never written, so a source can
never point outside itself. The layout is written to a temporary folder and renamed into
``trees/<commit>`` whole, so a failure (network, disk, a bound) leaves the last good cache as it was.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

PROTOCOLS = "file:git:http:https:ssh"
GIT_TIMEOUT = float(os.environ.get("SKILLSIFT_GIT_TIMEOUT", "300") or 300)
MAX_TREE_FILES = 50_000
MAX_TREE_BYTES = 512 * 1024 * 1024
MAX_BLOB_BYTES = 16 * 1024 * 1024


class GitError(RuntimeError):
    """A git step failed; ``str()`` says which and why (git's own last line)."""


@dataclass
class Layout:
    """A commit laid out on disk: its folder and the entries left out."""

    folder: Path
    links: list[str] = field(default_factory=list)  # symbolic links and submodules, never written


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="true", SSH_ASKPASS="true", GCM_INTERACTIVE="never",
               GIT_LFS_SKIP_SMUDGE="1", GIT_ALLOW_PROTOCOL=PROTOCOLS, GIT_CONFIG_NOSYSTEM="1",
               GIT_SSH_COMMAND=os.environ.get("GIT_SSH_COMMAND", "ssh -o BatchMode=yes"), LC_ALL="C")
    return env


def run_git(args: list[str], *, cwd: Path | None = None, timeout: float = GIT_TIMEOUT,
            what: str = "") -> subprocess.CompletedProcess:
    """``git -c core.hooksPath=/dev/null ARGS``; raises :class:`GitError` on failure or timeout."""
    command = ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.askPass=true", "-c", "submodule.recurse=false",
               "-c", "fetch.recurseSubmodules=false", "-c", "protocol.ext.allow=never", *args]
    try:
        proc = subprocess.run(command, cwd=cwd, env=git_env(), capture_output=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed: sources need git on PATH") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"{what or 'git ' + args[0]}: no answer within {timeout:g} s") from None
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"{what or 'git ' + args[0]} failed: {err[-1] if err else 'exit ' + str(proc.returncode)}")
    return proc


def source_dir(cache: Path, name: str, url: str) -> Path:
    """The cache folder of the source ``name`` fetched from ``url``."""
    return cache / "sources" / f"{name}-{hashlib.sha256(url.encode('utf-8')).hexdigest()[:16]}"


def _repo(folder: Path) -> Path:
    repo = folder / "repo.git"
    if not (repo / "HEAD").is_file():
        folder.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".repo-", dir=folder))
        run_git(["init", "-q", "--bare", str(tmp)], what="git init")
        try:
            os.replace(tmp, repo)
        except OSError:  # another run made it first
            shutil.rmtree(tmp, ignore_errors=True)
    return repo


def has_commit(folder: Path, commit: str) -> bool:
    repo = folder / "repo.git"
    if not commit or not (repo / "HEAD").is_file():
        return False
    try:
        run_git(["--git-dir", str(repo), "cat-file", "-e", f"{commit}^{{commit}}"], what="git cat-file")
    except GitError:
        return False
    return True


def fetch(folder: Path, url: str, rev: str) -> str:
    """Fetch ``rev`` of ``url`` (shallow) into the source's cache; return the commit it names."""
    repo = _repo(folder)
    run_git(["--git-dir", str(repo), "fetch", "--quiet", "--depth", "1", "--no-tags", "--no-recurse-submodules",
             "--", url, rev], what=f"fetching {rev} from {url}")
    commit = run_git(["--git-dir", str(repo), "rev-parse", "--verify", "FETCH_HEAD^{commit}"],
                     what="git rev-parse").stdout.decode().strip()
    run_git(["--git-dir", str(repo), "update-ref", f"refs/skillsift/{commit}", commit], what="git update-ref")
    return commit


def lay_out(folder: Path, commit: str, subdir: str) -> Layout:
    """The tree of ``commit`` under ``subdir``, as regular files in ``trees/<commit>/<subdir hash>``."""
    repo = folder / "repo.git"
    key = hashlib.sha256(subdir.encode("utf-8")).hexdigest()[:12]
    target = folder / "trees" / f"{commit}-{key}"
    links_file = target / ".skillsift-links"
    if target.is_dir():
        kept = links_file.read_text(encoding="utf-8").splitlines() if links_file.is_file() else []
        return Layout(target / "tree", kept)
    spec = [f"{commit}:{subdir.strip('/')}"] if subdir.strip("/") else [commit]
    listing = run_git(["--git-dir", str(repo), "ls-tree", "-r", "-z", "--full-tree", *spec],
                      what=f"reading {subdir or 'the root'} of {commit[:12]}").stdout
    entries = [e for e in listing.split(b"\0") if e]
    if len(entries) > MAX_TREE_FILES:
        raise GitError(f"the source holds more than {MAX_TREE_FILES} files under {subdir or 'its root'}")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tree-", dir=target.parent))
    try:
        links: list[str] = []
        total = 0
        blobs: list[tuple[str, str, bool]] = []
        for entry in entries:
            meta, _, raw_path = entry.partition(b"\t")
            mode, kind, sha = meta.decode().split()
            path = raw_path.decode("utf-8", "surrogateescape")
            parts = path.split("/")
            if any(p in ("", ".", "..", ".git") for p in parts):
                links.append(path)
                continue
            if kind != "blob" or mode not in ("100644", "100755"):
                links.append(path)  # a symbolic link (120000) or a submodule (160000): never written
                continue
            blobs.append((path, sha, mode == "100755"))
        if blobs:
            batch = "".join(f"{sha}\n" for _, sha, _ in blobs).encode()
            out = _cat_batch(repo, batch)
            offset = 0
            for path, _sha, executable in blobs:
                header_end = out.index(b"\n", offset)
                header = out[offset:header_end].decode().split()
                size = int(header[2])
                if size > MAX_BLOB_BYTES:
                    raise GitError(f"{path} is larger than {MAX_BLOB_BYTES} bytes")
                total += size
                if total > MAX_TREE_BYTES:
                    raise GitError(f"the source is larger than {MAX_TREE_BYTES} bytes under {subdir or 'its root'}")
                data = out[header_end + 1:header_end + 1 + size]
                offset = header_end + 1 + size + 1
                dest = tmp / "tree" / path
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
                if executable:
                    dest.chmod(0o755)
        (tmp / "tree").mkdir(exist_ok=True)
        (tmp / ".skillsift-links").write_text("".join(f"{p}\n" for p in sorted(links)), encoding="utf-8")
        try:
            os.replace(tmp, target)
        except OSError:  # another run laid it out first: theirs is the same commit
            shutil.rmtree(tmp, ignore_errors=True)
        return Layout(target / "tree", sorted(links))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _cat_batch(repo: Path, batch: bytes) -> bytes:
    command = ["git", "--git-dir", str(repo), "cat-file", "--batch"]
    try:
        proc = subprocess.run(command, input=batch, env=git_env(), capture_output=True, timeout=GIT_TIMEOUT,
                              check=False)
    except subprocess.TimeoutExpired:
        raise GitError(f"git cat-file: no answer within {GIT_TIMEOUT:g} s") from None
    if proc.returncode != 0:
        raise GitError("git cat-file failed: " + proc.stderr.decode("utf-8", "replace").strip()[-200:])
    return proc.stdout
