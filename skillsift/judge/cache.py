"""The judge's answers, kept per key (docs/judge.md, "The cache").

A key (:func:`~skillsift.judge.prompt.cache_key`) covers the command, the agent profile, the
template version, the listing's digest and the request, so an answer is replayed only for the
same question to the same agent.  The file is JSON Lines, one answer per line in key order
(sorted keys inside each line), so the same answers give the same bytes and a change reads
well in a diff:

* ``repository`` (default): ``.skillsift/judge-cache.jsonl`` in the repository, meant to be
  committed so CI replays answers without calling any agent.  A path that links out of the
  repository is neither read nor written.
* ``user``: ``<user cache>/judge/<sha256 of the repository's real path>.jsonl``, read and
  written under the rules of the user cache (docs/configuration.md, "The user cache").
* ``off``: nothing is read or kept.

Reading is bounded (32 MiB); a line that is not an answer is skipped and counted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from ..cache.base import cache_dir, read_trusted, write_atomic
from ..files import link_leaves, read_bounded
from ..index.atomic import AtomicWriteError, write_output
from .answer import Answer

REPOSITORY_FILE = ".skillsift/judge-cache.jsonl"
MAX_BYTES = 32 * 1024 * 1024
_KEY = re.compile(r"^[0-9a-f]{64}$")


class JudgeCache:
    """Answers by key, read from one file and written back whole."""

    def __init__(self, path: Path | None, *, where: str, folders: tuple = (), user: bool = False):
        self.path = path  # None: no cache (off, or a path refused)
        self.where = where  # as shown: ".skillsift/judge-cache.jsonl", "the user cache", "off"
        self.folders = folders
        self.user = user
        self.records: dict[str, dict] = {}
        self.skipped = 0  # lines that were not answers
        self.added = 0
        self.problem = ""  # why the file was not read ("" when it was, or is absent)

    # -- reading ---------------------------------------------------------------------------------
    def load(self) -> JudgeCache:
        if self.path is None:
            return self
        data = self._read()
        if data is None:
            return self
        for line in data.decode("utf-8", errors="replace").splitlines():
            self._take(line)
        return self

    def _read(self) -> bytes | None:
        assert self.path is not None
        if self.user:
            return read_trusted(self.path, self.folders, MAX_BYTES)

        try:
            return read_bounded(self.path, MAX_BYTES)
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.problem = f"{self.where} was not read: {exc.strerror or exc}"
            return None

    def _take(self, line: str) -> None:
        if not line.strip():
            return
        try:
            doc = json.loads(line)
        except (ValueError, RecursionError):
            self.skipped += 1
            return
        key = doc.get("key") if isinstance(doc, dict) else None
        if not isinstance(key, str) or not _KEY.match(key) or Answer.from_dict(doc) is None:
            self.skipped += 1
            return
        self.records[key] = {k: doc[k] for k in ("key", "case", "request", "agent", "status", "choice", "reason",
                                                 "answer") if isinstance(doc.get(k), str)}

    def merge(self, other: JudgeCache) -> None:
        """Add the answers of ``other`` this cache does not hold (a base checkout's file)."""
        for key, record in other.records.items():
            self.records.setdefault(key, record)

    def get(self, key: str) -> Answer | None:
        record = self.records.get(key)
        return Answer.from_dict(record) if record is not None else None

    # -- writing ---------------------------------------------------------------------------------
    def put(self, key: str, answer: Answer, *, case: str, request: str, agent: str) -> None:
        self.records[key] = {"key": key, "case": case, "request": request, "agent": agent, **answer.to_dict()}
        self.added += 1

    def text(self) -> str:
        return "".join(json.dumps(self.records[key], sort_keys=True, ensure_ascii=False) + "\n"
                       for key in sorted(self.records))

    def save(self) -> str:
        """Write the file when an answer was added; "" when done (or nothing to do), else why not."""
        if self.path is None or not self.added:
            return ""
        payload = self.text().encode("utf-8")
        if self.user:
            return "" if write_atomic(self.path, payload, self.folders, MAX_BYTES) else \
                f"the answers were not kept: {self.where} could not be written"

        try:
            os.makedirs(self.path.parent, exist_ok=True)
            write_output(self.path, payload)
        except (OSError, AtomicWriteError) as exc:
            return f"the answers were not kept: {getattr(exc, 'message', None) or exc}"
        return ""


def open_cache(root, where: str, env=None) -> JudgeCache:
    """The cache ``[judge] cache`` names for the repository at ``root`` (read)."""
    if where == "off":
        return JudgeCache(None, where="off")
    if where == "user":
        base = cache_dir(env)
        if base is None:
            return JudgeCache(None, where="the user cache (off)")
        digest = hashlib.sha256(os.path.realpath(os.fspath(root)).encode("utf-8")).hexdigest()
        folder = base / "judge"
        return JudgeCache(folder / f"{digest}.jsonl", where=f"the user cache ({folder})", folders=(base, folder),
                          user=True).load()

    path = Path(os.fspath(root)) / REPOSITORY_FILE
    if link_leaves(path, root):
        cache = JudgeCache(None, where=REPOSITORY_FILE)
        cache.problem = f"{REPOSITORY_FILE} links outside the repository: it is neither read nor written"
        return cache
    return JudgeCache(path, where=REPOSITORY_FILE).load()
