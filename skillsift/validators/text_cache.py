"""The findings of the checks that read one SKILL.md's text alone, kept between runs.

The body, YAML, agent-field and security checks of a SKILL.md depend on its path, its
text and the targeted agents only, so their diagnostics are stored per file in the user
cache (docs/caches.md, "The text-check cache"), keyed by the SHA-256 of the check's name, the
path, the text and those settings, and stamped with the size and mtime of the checking
modules: a change to any of them, or to skillsift's version, drops every entry.  An entry is
the list of the file's diagnostics; one that does not read back as diagnostics is ignored
and the file checked again.
"""

from __future__ import annotations

import json
import os

from .._version import __version__
from ..cache.base import FORMAT as _FORMAT
from ..cache.base import JsonCache as _JsonCache
from ..cache.base import diag_from_json as _diag_from_json
from ..cache.base import diag_to_json as _diag_to_json
from ..cache.base import sha256 as _sha256
from .parsed import parsed_skills

#: The modules whose code decides these findings (the stamp of what wrote an entry).
MODULES = ("skillsift.checks.body", "skillsift.checks.security", "skillsift.checks.yaml_checks",
           "skillsift.validators.names", "skillsift.validators.parsed", "skillsift.checks.agent_fields",
           "skillsift.checks.frontmatter", "skillsift.catalog.agents", "skillsift.diagnostics",
           "skillsift.checks.spec", "skillsift.catalog.frontmatter",
           "skillsift.validators.text_cache", "skillsift.cache.base")


def _stamp() -> list:
    import importlib

    out: list = [__version__]
    for name in MODULES:
        try:
            st = os.stat(importlib.import_module(name).__file__ or "")
        except (OSError, ImportError):
            out.append(None)
            continue
        out.append([st.st_size, st.st_mtime_ns])
    return out


class TextCheckCache(_JsonCache):
    folder = "text-checks"

    def __init__(self, root, *, env=None):
        super().__init__(root, env=env)
        if self.path is not None:
            self.stamp = _stamp()  # by module, wherever the modules live
            self.entries = self._load()
        # what the file holds: the entries loaded, then those of the last write (see save)
        self._saved_count = len(self.entries)
        self._saved_misses = 0

    @staticmethod
    def key(check: str, path: str, text_digest: str, extra=()) -> str:
        """SHA-256 of the compact JSON of ``[check, extra]`` followed by that of ``[path, text_digest]``
        (two JSON arrays one after the other read back one way only)."""
        data = (json.dumps([check, list(extra)], separators=(",", ":"), ensure_ascii=True)
                + json.dumps([path, text_digest], separators=(",", ":"), ensure_ascii=True))
        return _sha256(data.encode("ascii")).hexdigest()

    def fast_key(self, check: str, path: str, text_digest: str, extra=()) -> str:
        """:meth:`key`, with the JSON of ``[check, extra]`` made once per check and settings and that of
        ``[path, text_digest]`` once per file (each check of a file hashes the two strings joined)."""
        memo = self.__dict__.setdefault("_json_memo", {})
        try:
            probe = (check, extra if type(extra) is tuple else tuple(extra))
            head = memo.get(probe)
        except TypeError:  # settings that are not hashable: no memo
            probe, head = None, None
        if head is None:
            head = json.dumps([check, list(extra)], separators=(",", ":"), ensure_ascii=True)
            if probe is not None:
                memo[probe] = head
        files = self.__dict__.setdefault("_file_json_memo", {})
        tail = files.get((path, text_digest))
        if tail is None:
            tail = files[(path, text_digest)] = json.dumps([path, text_digest], separators=(",", ":"),
                                                          ensure_ascii=True)
        return _sha256((head + tail).encode("ascii")).hexdigest()

    def diagnostics(self, key: str):
        """The stored diagnostics of ``key`` (None when absent or damaged)."""
        if self.path is None:
            return None
        entry = self.entries.get(key)
        if type(entry) is not list:
            return None
        out = [_diag_from_json(item) for item in entry]
        if any(d is None for d in out):
            return None
        self.hits += 1
        self.fresh[key] = entry
        return out

    def store(self, key: str, diagnostics) -> None:
        if self.path is not None:
            self.misses += 1
            self.fresh[key] = [_diag_to_json(d) for d in diagnostics]

    def save(self, keep_unused: int = 0) -> bool:
        """Write the entries this run used, unless the file holds exactly those already.

        Each check module saves after its pass, so a run saves several times: the file is
        written when this run stored an entry since the last write or used a different number
        of entries than the file holds.  (A warm full run then writes nothing, and the last
        module's entries are never left out of the file.)  ``keep_unused`` is not used here.
        """
        if self.path is None or (self.misses == self._saved_misses and len(self.fresh) == self._saved_count):
            return False
        doc = {"format": _FORMAT, "root": self.root_id, "parser": self.stamp,
               "entries": {key: self.fresh[key] for key in sorted(self.fresh)}}
        try:
            payload = json.dumps(doc, separators=(",", ":")).encode("ascii")  # ASCII: lone surrogates survive
        except (TypeError, ValueError, UnicodeError, RecursionError):
            return False
        written = self._write(payload)
        if written:
            self._saved_count, self._saved_misses = len(self.fresh), self.misses
        return written


def known_digest(ws, rel: str, text: str) -> str | None:
    """The SHA-256 (hex) of ``text`` when it is the very text the workspace read and parsed for ``rel``:
    the skill's digest is of those UTF-8 bytes already (None otherwise)."""
    texts, parsed = ws.__dict__.get("_texts"), ws.__dict__.get("_parsed")
    if not texts or not parsed or texts.get(rel) is not text or rel not in parsed:
        return None
    skill = parsed[rel][0]
    digest = getattr(skill, "digest", "")
    return digest[7:] if isinstance(digest, str) and digest.startswith("sha256:") and len(digest) == 71 else None


def _cache(ws) -> TextCheckCache | None:
    """The workspace's :class:`TextCheckCache`, opened on first use; None when it keeps none
    (``ws.text_check_cache`` false, or the user caches off: then no key is made)."""
    if not getattr(ws, "text_check_cache", True):
        return None
    cache = ws.__dict__.get("_text_check_cache")
    if cache is None:
        cache = ws.__dict__["_text_check_cache"] = TextCheckCache(ws.root)
    return cache if cache.path is not None else None


def active(ws) -> bool:
    """Whether :func:`cached` keeps findings in this workspace (a caller may skip making an ``extra`` otherwise)."""
    return _cache(ws) is not None


def cached(ws, check: str, parsed, compute, extra=()) -> list:
    """``compute(parsed)`` for one parsed SKILL.md, through the workspace's :class:`TextCheckCache`
    (computed directly when the workspace keeps none: ``ws.text_check_cache`` false or the caches off)."""
    cache = _cache(ws)
    if cache is None:
        return compute(parsed)
    digests = ws.__dict__.setdefault("_text_digests", {})
    digest = digests.get(parsed.path)
    if digest is None:
        digest = digests[parsed.path] = known_digest(ws, parsed.path, parsed.text) or _sha256(
            parsed.text.encode("utf-8", "surrogatepass")).hexdigest()
    key = cache.fast_key(check, parsed.path, digest, extra)
    found = cache.diagnostics(key)
    if found is not None:
        return found
    out = compute(parsed)
    cache.store(key, out)
    return out


def save(ws, *, final: bool = False) -> None:
    """Write the workspace's text-check cache; while :func:`deferred` holds, only when ``final``."""
    if ws.__dict__.get("_text_check_save_deferred") and not final:
        return
    cache = ws.__dict__.get("_text_check_cache")
    if cache is not None:
        cache.save()


class deferred:
    """Within this block the check modules' saves wait, and the cache is written once at its end
    (a full run has five modules of text checks: one write instead of five)."""

    def __init__(self, ws):
        self.ws = ws

    def __enter__(self):
        self.outer = self.ws.__dict__.get("_text_check_save_deferred", False)
        self.ws.__dict__["_text_check_save_deferred"] = True
        return self

    def __exit__(self, *exc) -> None:
        self.ws.__dict__["_text_check_save_deferred"] = self.outer
        if not self.outer:
            save(self.ws, final=True)


def run_cached(ws, paths, check: str, compute) -> list:
    """``compute(parsed)`` over the parsed skills of ``paths``, each answer kept in the cache as ``check``."""

    out: list = []
    for parsed in parsed_skills(ws, paths):
        out.extend(cached(ws, check, parsed, compute))
    save(ws)
    return out
