"""A cache of parsed frontmatter, so that a later command skips the YAML parser.

Reading a catalog is mostly YAML parsing.  This cache keeps, per repository root, the
result of :func:`skillsift.frontmatter.read_yaml` for each frontmatter block it saw, keyed
by the SHA-256 of the block's text, the file and the first line (the three inputs of
``read_yaml``), so a hit gives exactly what parsing would: every other step of reading a
SKILL.md (bytes, digest, body, names, diagnostics) still runs on the file as it is now.

One JSON file per root in the user's cache folder (``$SKILLSIFT_CACHE_DIR``, else
``$XDG_CACHE_HOME/skillsift``, else ``~/.cache/skillsift``): ``catalog/<sha256 of the
resolved root>.json``; nothing is written inside the repository.  ``SKILLSIFT_CACHE=off``
turns it off.  It is valid only for the skillsift version and parsing modules that wrote
it.  A document JSON cannot carry exactly (dates, non-string keys) is parsed every time.

Safe: the file is read only below :data:`MAX_BYTES`, every entry is checked field by field
(anything unexpected is a miss), only blocks read in the last run are written back (so it
is bounded by the catalog), writes go to a temporary file renamed into place (0600, folders
0700), and a failure to read or write only costs the parse.  See docs/configuration.md.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from pathlib import Path

from .diagnostics import Diagnostic

FORMAT = 2
MAX_BYTES = 32 * 1024 * 1024
_DIAG_FIELDS = ("file", "code", "message", "severity", "hint")
_PARSERS = ("frontmatter.py", "diagnostics.py", "catalog_cache.py", "_version.py")


def cache_dir(env=None) -> Path | None:
    env = os.environ if env is None else env
    if env.get("SKILLSIFT_CACHE", "").strip().lower() in ("off", "0", "no", "false"):
        return None
    explicit = env.get("SKILLSIFT_CACHE_DIR", "")
    if explicit:
        return Path(explicit)
    xdg = env.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "skillsift"
    home = env.get("HOME", "") or os.path.expanduser("~")
    if not home or home == "~":
        return None
    return Path(home) / ".cache" / "skillsift"


def _parser_stamp(parsers=_PARSERS) -> list:
    """What the parsing code is: skillsift's version and its parsing modules' sizes and mtimes."""
    from ._version import __version__

    here = Path(__file__).resolve().parent
    stamp: list = [__version__]
    for name in parsers:
        try:
            st = os.stat(here / name)
        except OSError:
            stamp.append(None)
            continue
        stamp.append([st.st_size, st.st_mtime_ns])
    return stamp


def _json_exact(value, depth: int = 0) -> bool:
    """True when JSON gives ``value`` back with the same types and values."""
    if depth > 64:
        return False
    kind = type(value)
    if value is None or kind in (str, bool, int):
        return True
    if kind is float:
        return math.isfinite(value)
    if kind is list:
        return all(_json_exact(v, depth + 1) for v in value)
    if kind is dict:
        return all(type(k) is str and _json_exact(v, depth + 1) for k, v in value.items())
    return False


def _diag_to_json(d: Diagnostic) -> dict:
    return {"file": d.file, "line": d.line, "column": d.column, "code": d.code, "message": d.message,
            "severity": d.severity, "hint": d.hint}


def _diag_from_json(data) -> Diagnostic | None:
    if type(data) is not dict:
        return None
    if any(type(data.get(name)) is not str for name in _DIAG_FIELDS):
        return None
    line, column = data.get("line"), data.get("column")
    if (line is not None and type(line) is not int) or (column is not None and type(column) is not int):
        return None
    return Diagnostic(file=data["file"], line=line, column=column, code=data["code"], message=data["message"],
                      severity=data["severity"], hint=data["hint"])


class _JsonCache:
    """One JSON file of entries per repository root, checked on load and written atomically.

    ``folder`` names the cache (``catalog``, ``secrets``); ``parsers`` the modules whose
    sizes and mtimes, with skillsift's version, stamp what wrote it.  Entries are kept
    only when this run used them (:attr:`fresh`), so the file is bounded by the catalog.
    """

    folder = "catalog"
    parsers: tuple[str, ...] = _PARSERS

    def __init__(self, root, *, env=None):
        self.path: Path | None = None
        self.entries: dict = {}
        self.fresh: dict = {}
        self.hits = 0
        self.misses = 0
        base = cache_dir(env)
        if base is None:
            return
        try:
            real_root = os.path.realpath(os.fspath(root))
        except (OSError, ValueError):
            return
        self.root_id = real_root
        self.stamp = _parser_stamp(self.parsers)
        digest = hashlib.sha256(real_root.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        self.path = base / self.folder / f"{digest}.json"
        self.entries = self._load()

    def _load(self) -> dict:
        try:
            with open(self.path, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        except OSError:
            return {}
        if len(data) > MAX_BYTES:
            return {}
        try:
            doc = json.loads(data)
        except (ValueError, RecursionError):
            return {}
        if (type(doc) is not dict or doc.get("format") != FORMAT or doc.get("root") != self.root_id
                or doc.get("parser") != self.stamp or type(doc.get("entries")) is not dict):
            return {}
        return doc["entries"]

    def save(self) -> bool:
        """Write the entries this run used (others are dropped); True when written."""
        if self.path is None or (not self.misses and len(self.fresh) == len(self.entries)):
            return False
        doc = {"format": FORMAT, "root": self.root_id, "parser": self.stamp,
               "entries": {key: self.fresh[key] for key in sorted(self.fresh)}}
        try:
            payload = json.dumps(doc, separators=(",", ":")).encode("ascii")  # ASCII: lone surrogates survive
        except (TypeError, ValueError, UnicodeError, RecursionError):
            return False
        if len(payload) > MAX_BYTES:
            return False
        folder = self.path.parent
        tmp = None
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
            os.replace(tmp, self.path)
            tmp = None
        except OSError:
            return False
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
        return True


class YamlCache(_JsonCache):
    """``read_yaml`` results of one repository root; :meth:`read_yaml` stands in for it."""

    @staticmethod
    def _key(raw: str, file: str, first_line: int) -> str:
        text = f"{file}\0{first_line}\0{raw}".encode("utf-8", "surrogatepass")
        return hashlib.sha256(text).hexdigest()

    def read_yaml(self, raw: str, *, file: str = "", first_line: int = 1):
        """What ``read_yaml(raw, file=file, first_line=first_line)`` returns."""
        from .frontmatter import read_yaml

        if self.path is None:
            return read_yaml(raw, file=file, first_line=first_line)
        key = self._key(raw, file, first_line)
        entry = self.entries.get(key)
        if entry is not None:
            doc = _decode(entry)
            if doc is not None:
                self.hits += 1
                self.fresh[key] = entry
                return doc
        self.misses += 1
        doc = read_yaml(raw, file=file, first_line=first_line)
        encoded = _encode(doc)
        if encoded is not None:
            self.fresh[key] = encoded
        return doc


class ScanCache(_JsonCache):
    """Where the built-in and configured secret rules matched a text, by the text's SHA-256.

    An entry is the list of ``[start, end, rule number]`` of the secret values
    :func:`skillsift.secrets.scan_values` found (offsets into the text, never the values,
    so no secret is copied into the cache); the caller rebuilds every finding from the
    text it holds.  Keyed by the text and the configured patterns; valid only for the
    scanner that wrote it.
    """

    folder = "secrets"
    parsers = ("secrets.py", "catalog_cache.py", "_version.py")

    @staticmethod
    def key(text: str, extra: tuple) -> str:
        h = hashlib.sha256(text.encode("utf-8", "surrogatepass"))
        if extra:
            h.update(b"\0" + json.dumps(extra).encode("ascii"))
        return h.hexdigest()

    def get(self, key: str, size: int, rules: int) -> list | None:
        """The spans stored for ``key`` when they fit a text of ``size`` and ``rules`` rules, else None."""
        if self.path is None:
            return None
        entry = self.entries.get(key)
        if type(entry) is not list:
            return None
        for span in entry:
            if (type(span) is not list or len(span) != 3 or any(type(v) is not int for v in span)
                    or not (0 <= span[0] < span[1] <= size) or not (0 <= span[2] < rules)):
                return None
        self.hits += 1
        self.fresh[key] = entry
        return entry

    def put(self, key: str, spans: list) -> None:
        if self.path is None:
            return
        self.misses += 1
        self.fresh[key] = [list(span) for span in spans]


def _encode(doc) -> dict | None:
    if not _json_exact(doc.value):
        return None
    return {"value": doc.value, "empty": doc.empty, "diagnostics": [_diag_to_json(d) for d in doc.diagnostics]}


def _decode(entry):
    from .frontmatter import YamlDocument

    if type(entry) is not dict or type(entry.get("empty")) is not bool or type(entry.get("diagnostics")) is not list:
        return None
    value = entry.get("value")
    if not _json_exact(value):
        return None
    diagnostics = tuple(_diag_from_json(d) for d in entry["diagnostics"])
    if any(d is None for d in diagnostics):
        return None
    return YamlDocument(value=value, empty=entry["empty"], diagnostics=diagnostics)
