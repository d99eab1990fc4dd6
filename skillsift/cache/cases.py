"""A cache of parsed cases and examples files, so that a search over thousands of known requests skips the parse.

A search reads the configured examples files on every run, and parsing one strictly (YAML
composed into nodes, the rules checked at every node, the cases built with their lines) is
most of a one-shot search's time when the files hold thousands of cases.  This cache keeps
what parsing a file's bytes gave (its version, k, cases with every line, and its problems
with their lines) in one file per content: ``cases/<sha256 of the bytes>.json`` under the
cache folder, so a hit is exactly what parsing gives and any file with the same bytes (a
copy, a branch switched back) shares it.  The path a file is shown by and the kind of file
are not part of it: they only name the file in what the caller builds.

The rules of :mod:`skillsift.cache.base`: trusted only when private, at most
:data:`~skillsift.cache.base.MAX_BYTES`, written atomically (0600, folders 0700), and
``SKILLSIFT_CACHE=off`` turns it off.  An entry is valid only for the skillsift version and
parsing modules that wrote it and the YAML library that parsed it (:func:`stamp`).  Bounded:
the folder keeps the :data:`KEEP` files used last (a hit refreshes its file's time).  What
an entry holds is checked by the caller (:mod:`skillsift.casefile.files`), field by field;
anything that does not check out is a miss and the file is parsed again.
"""

from __future__ import annotations

import json
import os

from skillsift.cache.base import cache_folder, parser_stamp, read_trusted, refuse, trusted, write_atomic

FORMAT = 1
FOLDER = "cases"
KEEP = 16
"""How many files the folder keeps: the examples files of a few projects and branches."""

MIN_BYTES = 64 * 1024
"""Files smaller than this are parsed every time (a few hundred cases parse faster than a cache
file is opened and checked)."""

_PARSERS = ("casefile/parse.py", "casefile/rules.py", "casefile/__init__.py", "casefile/files.py",
            "docschema/__init__.py", "docschema/yaml_nodes.py", "docschema/json_schema.py", "diagnostics.py",
            "cache/cases.py", "cache/base.py", "_version.py")


def stamp() -> list:
    """What wrote an entry: :func:`~skillsift.cache.base.parser_stamp` of the parsing modules, and the
    YAML library's files (its version and whether libyaml composes: their messages and lines differ)."""
    return parser_stamp(_PARSERS) + [_yaml_files()]


def _yaml_files() -> list:
    """Name, size and mtime of each file of the ``yaml`` package folder, found without importing it."""
    from importlib.util import find_spec

    try:
        spec = find_spec("yaml")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.origin:
        return []
    folder = os.path.dirname(spec.origin)
    out = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    for name in names:
        try:
            st = os.stat(os.path.join(folder, name))
        except OSError:
            continue
        if not os.path.isdir(os.path.join(folder, name)):
            out.append([name, st.st_size, st.st_mtime_ns])
    return out


class ParsedFiles:
    """The cache folder's parsed files: :meth:`load` an entry by its bytes' digest, :meth:`save` one."""

    def __init__(self, *, env=None):
        base = cache_folder(env)
        self.folder = None if base is None else os.path.join(base, FOLDER)
        self.folders: tuple[str, ...] = () if base is None else (base, os.path.join(base, FOLDER))
        self._stamp: list | None = None

    @property
    def on(self) -> bool:
        return self.folder is not None

    def stamp(self) -> list:
        if self._stamp is None:
            self._stamp = stamp()
        return self._stamp

    def _path(self, digest: str) -> str:
        assert self.folder is not None
        return os.path.join(self.folder, f"{digest}.json")

    def load(self, digest: str) -> dict | None:
        """The ``body`` saved for ``digest`` by this code, or None (missing, untrusted, damaged, another stamp)."""
        if self.folder is None:
            return None
        path = self._path(digest)
        data = read_trusted(path, self.folders)
        if data is None:
            return None
        try:
            doc = json.loads(data, parse_constant=refuse)
        except (ValueError, RecursionError):
            return None
        if (type(doc) is not dict or doc.get("format") != FORMAT or doc.get("digest") != digest
                or doc.get("parser") != self.stamp() or type(doc.get("body")) is not dict):
            return None
        try:
            os.utime(path)  # used now: the last to be dropped
        except OSError:
            pass
        return doc["body"]

    def save(self, digest: str, body: dict) -> bool:
        """Write ``body`` for ``digest`` (atomically), then drop all but the :data:`KEEP` files used last."""
        if self.folder is None:
            return False
        doc = {"format": FORMAT, "digest": digest, "parser": self.stamp(), "body": body}
        try:
            payload = json.dumps(doc, separators=(",", ":")).encode("ascii")  # ASCII: lone surrogates survive
        except (TypeError, ValueError, UnicodeError, RecursionError):
            return False
        if not write_atomic(self._path(digest), payload, self.folders):
            return False
        self._prune()
        return True

    def _prune(self) -> None:
        folder = self.folder
        if folder is None or not trusted(self.folders):
            return
        try:
            names = [n for n in os.listdir(folder) if n.endswith(".json")]
        except OSError:
            return
        if len(names) <= KEEP:
            return
        timed = []
        for name in names:
            try:
                timed.append((os.stat(os.path.join(folder, name)).st_mtime_ns, name))
            except OSError:
                continue
        for _when, name in sorted(timed)[:max(0, len(timed) - KEEP)]:
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass
