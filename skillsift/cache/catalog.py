"""A cache of parsed frontmatter, so that a later command skips the YAML parser.

Reading a catalog is mostly YAML parsing.  This cache keeps, per repository root, the
result of :func:`skillsift.catalog.frontmatter.read_yaml` for each frontmatter block it saw, keyed
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

Longer than 450 lines because it holds the four caches of a cold run (frontmatter, whole
skills, secret-scan spans, SK009 outcomes), which share one file discipline and its checks.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import zlib

from skillsift.cache.base import (
    FORMAT,
    MAX_BYTES,
    cache_dir,
)
from skillsift.cache.base import (
    JsonCache as _JsonCache,
)
from skillsift.cache.base import (
    diag_from_json as _diag_from_json,
)
from skillsift.cache.base import (
    diag_to_json as _diag_to_json,
)
from skillsift.cache.base import (
    json_exact as _json_exact,
)
from skillsift.cache.base import (
    parser_stamp as _parser_stamp,
)
from skillsift.cache.base import (
    refuse as _refuse,
)
from skillsift.diagnostics import Diagnostic

_PARSERS = ("catalog/frontmatter.py", "diagnostics.py", "cache/catalog.py", "cache/base.py", "_version.py")
__all__ = ["FORMAT", "MAX_BYTES", "cache_dir", "_parser_stamp"]


class YamlCache(_JsonCache):
    """``read_yaml`` results of one repository root; :meth:`read_yaml` stands in for it."""

    parsers = _PARSERS

    @staticmethod
    def _key(raw: str, file: str, first_line: int) -> str:
        text = f"{file}\0{first_line}\0{raw}".encode("utf-8", "surrogatepass")
        return hashlib.sha256(text).hexdigest()

    def read_yaml(self, raw: str, *, file: str = "", first_line: int = 1):
        """What ``read_yaml(raw, file=file, first_line=first_line)`` returns."""
        from skillsift.catalog.frontmatter import read_yaml

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


class CheckCache(_JsonCache):
    """Results of whole-catalog checks (SK009), keyed by the SHA-256 of their inputs as JSON.

    The caller checks an entry's shape before using it and stores only what it can
    rebuild the check's diagnostics from; valid only for the checking code that wrote it.
    """

    folder = "checks"
    parsers = ("validators/duplicates.py", "ranker/tokenize.py", "diagnostics.py", "cache/catalog.py",
               "_version.py")

    @staticmethod
    def key(name: str, inputs) -> str:
        text = json.dumps([name, inputs], separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(text.encode("ascii")).hexdigest()

    def get(self, key: str):
        return self.entries.get(key) if self.path is not None else None

    def keep(self, key: str) -> None:
        self.hits += 1
        self.fresh[key] = self.entries[key]

    def put(self, key: str, value) -> None:
        if self.path is not None:
            self.misses += 1
            self.fresh[key] = value


class ScanCache(_JsonCache):
    """Where the built-in and configured secret rules matched a text, by the text's SHA-256.

    An entry is the list of ``[start, end, rule number]`` of the secret values
    :func:`skillsift.secrets.scan.scan_values` found (offsets into the text, never the values,
    so no secret is copied into the cache); the caller rebuilds every finding from the
    text it holds.  Keyed by the text and the configured patterns; valid only for the
    scanner that wrote it.
    """

    folder = "secrets"
    parsers = ("secrets/scan.py", "cache/catalog.py", "_version.py")

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
    from skillsift.catalog.frontmatter import YamlDocument

    if type(entry) is not dict or type(entry.get("empty")) is not bool or type(entry.get("diagnostics")) is not list:
        return None
    value = entry.get("value")
    if not _json_exact(value):
        return None
    diagnostics = tuple(_diag_from_json(d) for d in entry["diagnostics"])
    if any(d is None for d in diagnostics):
        return None
    return YamlDocument(value=value, empty=entry["empty"], diagnostics=diagnostics)


_STRINGS = ("name", "description", "domain", "body", "path", "dir_id", "digest")
_LISTS = ("triggers", "keywords", "tags", "roles", "examples", "not_for")
#: A file changed this recently may still be written to within its mtime's resolution;
#: its entry is not stored (the next run reads it again), as git does for "racily clean" files.
SETTLE_NS = 2_000_000_000


class CollectorPause:
    """The cyclic garbage collector paused while a catalog is built from the caches.

    Discovery, the skill cache's JSON and the skills made from it are thousands of
    containers with no reference cycles, and collections among them were 3.5 ms of a cold
    search on 2,000 skills.  :meth:`resume` (called before a file is parsed: a YAML loader
    holds cycles) or the end of the ``with`` block turns it back on, the objects made
    meanwhile moved to the oldest generation (1.5 ms less: the first young collection would
    walk them all); a collector already off is left off.
    """

    def __init__(self):
        self.paused = gc.isenabled()
        if self.paused:
            gc.disable()

    def resume(self) -> None:
        if self.paused:
            self.paused = False
            if not gc.get_freeze_count():  # (never thaw what a host application froze)
                gc.freeze()  # and thaw: what was made meanwhile joins the oldest generation, so
                gc.unfreeze()  # the next young collection does not walk all of it once more
            gc.enable()

    def __enter__(self) -> CollectorPause:
        return self

    def __exit__(self, *exc) -> None:
        self.resume()


def file_stamp(path) -> list | None:
    """``[size, mtime_ns, ctime_ns, inode, device]`` of a regular file, None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


class SkillCache(_JsonCache):
    """Whole skills read from SKILL.md files, keyed by path and the file's size, times and inode.

    A hit skips reading, decoding, hashing and parsing the file: the entry holds the
    :class:`~skillsift.catalog.skill.Skill` (every field, the frontmatter included) and the
    diagnostics reading it gave.  A file whose size, mtime, ctime, inode or device
    differ, or whose domain differs, is read again; so is one whose entry does not check
    out field by field.  A file modified less than :data:`SETTLE_NS` before the run is not
    stored.  Used by :func:`skillsift.catalog.load.read_all_skills` (search, list, index, eval).
    """

    folder = "skills"
    parsers = ("catalog/load.py", "catalog/frontmatter.py", "catalog/skill.py", "diagnostics.py", "cache/catalog.py",
               "_version.py")

    # The file is one line of JSON (the entries, each body as [start, end, CRC-32] of its
    # bytes in what follows; the size of what follows) and then the bodies as UTF-8: a body
    # read back is one slice checked and decoded when it is first read (skill.EncodedText),
    # not an escaped JSON string.  A slice that fails its CRC or does not decode is read
    # from the skill's file again (:func:`_body_from_file`).

    def _load(self) -> dict:
        data = self._read()
        cut = -1 if data is None else data.find(b"\n")
        if data is None or cut < 0:
            return {}
        try:
            doc = json.loads(data[:cut], parse_constant=_refuse)
        except (ValueError, RecursionError):
            return {}
        if not self._ours(doc) or doc.get("body_bytes") != len(data) - cut - 1:
            return {}
        self.data, self.base, self.bodies = data, cut + 1, memoryview(data)[cut + 1:]
        return doc["entries"]

    def save(self, keep_unused: int = 0) -> bool:
        """Write the entries this run used (others are dropped); True when written."""
        if self.path is None or (not self.misses and len(self.fresh) == len(self.entries)):
            return False
        entries, parts, size = {}, [], 0
        try:
            for key in sorted(self.fresh):
                entry = dict(self.fresh[key])
                body = entry.pop("body_text", None)
                if entry["skill"] is not None:
                    if body is None:  # an entry read back from the file: its body is in the old file
                        body = self.body_of(entry)
                        if body is None:  # damaged there: left out, so the next run reads the file
                            continue
                    raw = body.encode("utf-8")
                    entry["skill"] = {**entry["skill"], "body": [size, size + len(raw), zlib.crc32(raw)]}
                    parts.append(raw)
                    size += len(raw)
                entries[key] = entry
            doc = {"format": FORMAT, "root": self.root_id, "parser": self.stamp, "entries": entries,
                   "body_bytes": size}
            head = json.dumps(doc, separators=(",", ":")).encode("ascii")  # ASCII: lone surrogates survive
        except (TypeError, ValueError, UnicodeError, RecursionError, AttributeError):
            return False
        return self._write(head + b"\n" + b"".join(parts))

    data: bytes = b""
    base = 0
    bodies: memoryview = memoryview(b"")

    def span_of(self, entry: dict) -> tuple[int, int, int] | None:
        """``(start, end, CRC-32)`` of the body of an entry read from the file (offsets into
        :attr:`data`), or None when it points outside the bodies or is not three integers."""
        fields = entry.get("skill")
        span = fields.get("body") if type(fields) is dict else None
        if (type(span) is not list or len(span) != 3 or type(span[0]) is not int or type(span[1]) is not int
                or type(span[2]) is not int or not 0 <= span[0] <= span[1] <= len(self.bodies)):
            return None
        return self.base + span[0], self.base + span[1], span[2]

    def body_of(self, entry: dict) -> str | None:
        """The body an entry read from the file points at, or None when it points outside the bodies
        or at bytes that fail their CRC-32 or are not UTF-8."""
        span = self.span_of(entry)
        if span is None:
            return None
        view = memoryview(self.data)[span[0]:span[1]]
        if zlib.crc32(view) != span[2]:
            return None
        try:
            return str(view, "utf-8")
        except UnicodeDecodeError:
            return None

    def __init__(self, root, *, env=None):
        super().__init__(root, env=env)
        import time

        self.now_ns = time.time_ns()

    def get(self, rel: str, stamp: list | None, domain: str):
        """``(skill or None, diagnostics)`` stored for ``rel`` with this stamp and domain, else None."""
        if self.path is None or stamp is None:
            return None
        entry = self.entries.get(rel)
        if type(entry) is not dict or entry.get("stamp") != stamp or entry.get("domain") != domain:
            return None
        decoded = _decode_read(entry, rel, self)
        if decoded is None:
            return None
        self.hits += 1
        self.fresh[rel] = entry
        return decoded

    def put(self, rel: str, stamp: list | None, domain: str, skill, diagnostics) -> None:
        if self.path is None or stamp is None:
            return
        self.misses += 1
        if self.now_ns - stamp[1] < SETTLE_NS or self.now_ns - stamp[2] < SETTLE_NS:
            return  # may still be changing within the clock's resolution
        entry = _encode_read(skill, diagnostics)
        if entry is not None:
            entry["stamp"], entry["domain"] = stamp, domain
            if skill is not None:
                entry["body_text"] = skill.body
            self.fresh[rel] = entry


def _full_diag_to_json(d: Diagnostic) -> dict:
    return {**_diag_to_json(d), "rule": d.rule}


def _full_diag_from_json(data) -> Diagnostic | None:
    diag = _diag_from_json(data)
    if diag is None or type(data.get("rule")) is not str:
        return None
    from dataclasses import replace

    return replace(diag, rule=data["rule"])


def _encode_read(skill, diagnostics) -> dict | None:
    out: dict = {"diagnostics": [_full_diag_to_json(d) for d in diagnostics], "skill": None}
    if not _json_exact(out["diagnostics"]):
        return None
    if skill is not None:
        if not _json_exact(skill.frontmatter) or type(skill.frontmatter) is not dict:
            return None
        fields = {name: getattr(skill, name) for name in _STRINGS if name != "body"}
        fields.update({name: list(getattr(skill, name)) for name in _LISTS})
        fields["frontmatter_line"] = skill.frontmatter_line
        fields["frontmatter"] = skill.frontmatter
        if not _json_exact(fields):
            return None
        out["skill"] = fields
    return out


def _body_from_file(root: str, rel: str, domain: str, digest: str) -> str:
    """The body of ``rel`` read from its file, for a cached body that failed its check.

    The entry matched the file's stamp, so the file holds what the entry was made from
    (its digest says so); if it changed since, the rest of the cached skill is no longer
    what it holds, and the run stops rather than mix the two.
    """
    from skillsift.catalog.load import read_skill
    from skillsift.diagnostics import SkillsiftError

    skill, _problems = read_skill(os.path.join(root, rel), root, domain, rel=rel)
    if skill is None or skill.digest != digest:
        raise SkillsiftError(f"{rel}: its entry in the skill cache is damaged and the file changed while it was "
                             "in use", hint="run the command again")
    return skill.body


def _decode_read(entry: dict, rel: str, cache: SkillCache):
    from functools import partial

    from skillsift.catalog.skill import EncodedText, restore

    raw = entry.get("diagnostics")
    if type(raw) is not list:
        return None
    diagnostics = []
    for given in raw:
        diag = _full_diag_from_json(given)
        if diag is None:
            return None
        diagnostics.append(diag)
    fields = entry.get("skill")
    if fields is None:
        return None if not diagnostics else (None, diagnostics)
    if type(fields) is not dict or fields.get("path") != rel:
        return None
    span = cache.span_of(entry)
    if span is None:
        return None
    name, description, domain, dir_id, digest = (fields.get("name"), fields.get("description"),
                                                 fields.get("domain"), fields.get("dir_id"), fields.get("digest"))
    if (type(name) is not str or type(description) is not str or type(domain) is not str
            or type(dir_id) is not str or type(digest) is not str):
        return None
    lists = []
    for field_name in _LISTS:
        value = fields.get(field_name)
        if type(value) is not list:
            return None
        for item in value:
            if type(item) is not str:
                return None
        lists.append(tuple(value))
    line, front = fields.get("frontmatter_line"), fields.get("frontmatter")
    # The entries were read with NaN and Infinity refused, so anything JSON gave is JSON-exact.
    if type(line) is not int or type(front) is not dict:
        return None
    triggers, keywords, tags, roles, examples, not_for = lists
    # The body is checked (CRC-32, UTF-8) when first read; if it fails, it comes from the file.
    body = EncodedText(cache.data, *span, partial(_body_from_file, cache.root_id, rel, domain, digest))
    skill = restore(name, description, triggers, keywords, tags, roles, examples, not_for, domain, body, rel,
                    dir_id, digest, line, front)
    return skill, diagnostics
