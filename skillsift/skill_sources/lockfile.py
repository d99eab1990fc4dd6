"""``skillsift.lock``: what each configured source resolved to, committed beside the config.

The file is JSON (``skillsift/schemas/lock.v1.json``), written with sorted keys and two-space
indents so the same lock is the same bytes::

    {
      "lock_version": 1,
      "sources": {
        "org": {
          "commit": "<40 hex digits>",          # git sources: the commit rev resolved to ("" for a path)
          "git": "https://example.org/org/skills.git",
          "path": "",
          "rev": "v3",
          "skills": {"deploy": "sha256:<hex>", ...},  # skill folder (relative to subdir) -> digest
          "subdir": "skills"
        }
      }
    }

Reading is strict and bounded: at most :data:`MAX_LOCK_BYTES`, no duplicate key, every field of
its kind; a problem is a :class:`LockFileError` naming the file and line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ..jsonio import JSONDocumentError, read_json

LOCK_FILE = "skillsift.lock"
LOCK_VERSION = 1
MAX_LOCK_BYTES = 16 * 1024 * 1024
_COMMIT = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")


class LockFileError(ValueError):
    """The lock file cannot be used; ``str()`` names the file (and line) and what to do."""


@dataclass(frozen=True)
class LockedSource:
    """One source as the lock records it."""

    name: str
    git: str = ""
    path: str = ""
    rev: str = ""
    subdir: str = ""
    commit: str = ""
    skills: dict[str, str] = field(default_factory=dict)  # skill folder -> digest

    def as_json(self) -> dict:
        return {"commit": self.commit, "git": self.git, "path": self.path, "rev": self.rev,
                "skills": dict(sorted(self.skills.items())), "subdir": self.subdir}


@dataclass(frozen=True)
class Lock:
    sources: dict[str, LockedSource] = field(default_factory=dict)

    def dumps(self) -> bytes:
        doc = {"lock_version": LOCK_VERSION,
               "sources": {name: self.sources[name].as_json() for name in sorted(self.sources)}}
        return (json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def _line_of(text: str, needle: str) -> int:
    at = text.find(needle)
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _no_duplicates(pairs):
    seen: dict = {}
    for key, value in pairs:
        if key in seen:
            raise LockFileError(f'duplicate key "{key}"')
        seen[key] = value
    return seen


def parse_lock(data: bytes, *, source: str = LOCK_FILE) -> Lock:
    """The lock in ``data``; raises :class:`LockFileError` naming ``source`` and the line."""
    fix = "run `skillsift sources update` to write it again"
    try:
        read_json(data, source=source, max_bytes=MAX_LOCK_BYTES, max_depth=8)
        text = data.decode("utf-8")
        doc = json.loads(text, object_pairs_hook=_no_duplicates)
    except JSONDocumentError as exc:
        raise LockFileError(f"{exc}; {fix}") from None
    except LockFileError as exc:
        raise LockFileError(f"{source}: {exc}; {fix}") from None
    if not isinstance(doc, dict) or set(doc) != {"lock_version", "sources"}:
        raise LockFileError(f"{source}:1: expected an object with lock_version and sources; {fix}")
    if doc["lock_version"] != LOCK_VERSION:
        raise LockFileError(f"{source}:{_line_of(text, 'lock_version')}: lock_version {doc['lock_version']!r} "
                            f"is not {LOCK_VERSION}; {fix}")
    if not isinstance(doc["sources"], dict):
        line = _line_of(text, '"sources"')
        raise LockFileError(f"{source}:{line}: sources must be an object; {fix}")
    out: dict[str, LockedSource] = {}
    keys = {"commit", "git", "path", "rev", "skills", "subdir"}
    for name, entry in doc["sources"].items():
        line = _line_of(text, json.dumps(name))
        where = f"{source}:{line}: source {name!r}"
        if not isinstance(entry, dict) or set(entry) != keys:
            raise LockFileError(f"{where} must have exactly {', '.join(sorted(keys))}; {fix}")
        if not all(isinstance(entry[k], str) for k in keys - {"skills"}) or not isinstance(entry["skills"], dict):
            raise LockFileError(f"{where}: commit, git, path, rev and subdir are strings, skills an object; {fix}")
        if entry["git"] and not _COMMIT.match(entry["commit"]):
            raise LockFileError(f"{where}: commit {entry['commit'][:80]!r} is not a full commit id; {fix}")
        for rel, digest in entry["skills"].items():
            if not isinstance(digest, str) or not _DIGEST.match(digest) or not rel or rel.startswith("/") \
                    or ".." in rel.split("/"):
                raise LockFileError(f"{where}: skill {rel[:80]!r} needs a relative folder and a sha256 digest; "
                                    f"{fix}")
        out[name] = LockedSource(name=name, git=entry["git"], path=entry["path"], rev=entry["rev"],
                                 subdir=entry["subdir"], commit=entry["commit"], skills=dict(entry["skills"]))
    return Lock(out)
