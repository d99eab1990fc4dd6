"""Whole skills read from SKILL.md files, between runs (docs/configuration.md).

A hit skips reading, decoding, hashing and parsing a SKILL.md.  What makes a skill
(:func:`skillsift.catalog.load.read_skill`, :func:`skillsift.catalog.skill.restore`,
:class:`skillsift.catalog.skill.EncodedText`) comes from the caller, so this module
imports nothing above the cache base.
"""

from __future__ import annotations

import json
import os
import stat
import zlib
from functools import partial as _partial

from skillsift.cache.base import MAX_BYTES, JsonCache, diag_from_json, diag_to_json, json_exact, open_trusted, refuse
from skillsift.diagnostics import Diagnostic, SkillsiftError

#: The skill cache's own format: entries are arrays in the order of :data:`ENTRY`.  A file of
#: another format (the format 2 one held each skill as an object with named fields) is ignored
#: and written again.
SKILLS_FORMAT = 3
#: One entry, by position: the file's stamp (:func:`file_stamp`), the domain it was read for,
#: the diagnostics reading it gave; then, when it gave a skill, the skill's fields (its path is
#: the entry's key) and its body as ``start, end, CRC-32`` of its bytes after the header line.
#: An entry without a skill stops after the diagnostics.  A name or description that is the
#: frontmatter's own (a str, the same text) is stored as null and taken from the frontmatter
#: when read: the frontmatter is not stored twice.
ENTRY = ("stamp", "key_domain", "diagnostics", "name", "description", "domain", "dir_id", "digest", "triggers",
         "keywords", "tags", "roles", "examples", "not_for", "frontmatter_line", "frontmatter", "body_start",
         "body_end", "body_crc")
_NO_SKILL = ENTRY.index("diagnostics") + 1  # the length of an entry that holds no skill
_STRINGS = ("name", "description", "domain", "dir_id", "digest")
_LISTS = ("triggers", "keywords", "tags", "roles", "examples", "not_for")
#: A file changed this recently may still be written to within its mtime's resolution;
#: its entry is not stored (the next run reads it again), as git does for "racily clean" files.
SETTLE_NS = 2_000_000_000
_JOIN = "".join
#: The header line is read this many bytes at a time (it is about 600 bytes a skill).
HEAD_CHUNK = 1 << 19


def file_stamp(path) -> list | None:
    """``[size, mtime_ns, ctime_ns, inode, device]`` of a regular file, None when it cannot be stat'ed."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


class SkillCache(JsonCache):
    """Whole skills read from SKILL.md files, keyed by path and the file's size, times and inode.

    A hit skips reading, decoding, hashing and parsing the file: the entry holds the
    :class:`~skillsift.catalog.skill.Skill` (every field, the frontmatter included) and the
    diagnostics reading it gave.  A file whose size, mtime, ctime, inode or device
    differ, or whose domain differs, is read again; so is one whose entry does not check
    out field by field.  A file modified less than :data:`SETTLE_NS` before the run is not
    stored.  Used by :func:`skillsift.catalog.load.read_all_skills` (search, list, index, eval).
    """

    folder = "skills"
    parsers = ("catalog/load.py", "catalog/frontmatter.py", "catalog/skill.py", "diagnostics.py", "cache/skills.py",
               "cache/base.py", "_version.py")

    # The file is one line of JSON (the entries, arrays laid out as :data:`ENTRY`, each body as
    # start, end, CRC-32 of its bytes in what follows; the size of what follows) and then the
    # bodies as UTF-8: a body read back is one slice checked and decoded when it is first read
    # (skill.EncodedText), not an escaped JSON string.  A slice that fails its CRC or does not decode is read
    # from the skill's file again (:func:`_body_from_file`).  Only the header line is read at load: the
    # bodies (nine tenths of the file) are read when a body is first read (:class:`BodyBlock`), which a
    # search never does.

    def _load(self) -> dict:
        opened = open_trusted(self.path, self.folders) if self.path is not None else None
        if opened is None:
            return {}
        fd, info = opened
        block = None
        try:
            head = _first_line(fd, info)
            if head is None:
                return {}
            try:
                doc = json.loads(head, parse_constant=refuse)
            except (ValueError, RecursionError):
                return {}
            size = info.st_size - len(head) - 1
            if not self._ours(doc, fmt=SKILLS_FORMAT) or doc.get("body_bytes") != size:
                return {}
            block = self.block = BodyBlock(fd, len(head) + 1, size)
            self.body_bytes = size
            return doc["entries"]
        finally:
            if block is None:
                os.close(fd)

    def save(self, keep_unused: int = 0) -> bool:
        """Write the entries this run used (others are dropped); True when written."""
        if self.path is None or (not self.misses and len(self.fresh) == len(self.entries)):
            return False
        entries, parts, size = {}, [], 0
        try:
            for key in sorted(self.fresh):
                entry, body = self.fresh[key]
                if len(entry) != _NO_SKILL:
                    if body is None:  # an entry read back from the file: its body is in the old file
                        body = self.body_of(entry)
                        if body is None:  # damaged there: left out, so the next run reads the file
                            continue
                    raw = body.encode("utf-8")
                    entry = entry[:-3] + [size, size + len(raw), zlib.crc32(raw)]
                    parts.append(raw)
                    size += len(raw)
                entries[key] = entry
            doc = {"format": SKILLS_FORMAT, "root": self.root_id, "parser": self.stamp, "entries": entries,
                   "body_bytes": size}
            head = json.dumps(doc, separators=(",", ":")).encode("ascii")  # ASCII: lone surrogates survive
        except (TypeError, ValueError, UnicodeError, RecursionError, AttributeError):
            return False
        return self._write(head + b"\n" + b"".join(parts))

    block: BodyBlock | None = None
    body_bytes = 0

    def span_of(self, entry: list) -> tuple[int, int, int] | None:
        """``(start, end, CRC-32)`` of the body of an entry read from the file (offsets into
        :attr:`block`), or None when it points outside the bodies or is not three integers."""
        start, end, crc = entry[-3:]
        if (type(start) is not int or type(end) is not int or type(crc) is not int
                or not 0 <= start <= end <= self.body_bytes):
            return None
        return start, end, crc

    def body_of(self, entry: list) -> str | None:
        """The body an entry read from the file points at, or None when it points outside the bodies
        or at bytes that fail their CRC-32 or are not UTF-8."""
        span = self.span_of(entry)
        if span is None or self.block is None:
            return None
        view = memoryview(self.block.read())[span[0]:span[1]]
        if zlib.crc32(view) != span[2]:
            return None
        try:
            return str(view, "utf-8")
        except UnicodeDecodeError:
            return None

    def __init__(self, root, *, read_skill, restore, encoded_text, env=None):
        self.read_skill, self.restore, self.encoded_text = read_skill, restore, encoded_text
        super().__init__(root, env=env)
        import time

        self.now_ns = time.time_ns()

    def get(self, rel: str, stamp: list | None, domain: str):
        """``(skill or None, diagnostics)`` stored for ``rel`` with this stamp and domain, else None."""
        if self.path is None or stamp is None:
            return None
        entry = self.entries.get(rel)
        if type(entry) is not list or len(entry) < _NO_SKILL or entry[0] != stamp or entry[1] != domain:
            return None
        decoded = _decode_read(entry, rel, self)
        if decoded is None:
            return None
        self.hits += 1
        self.fresh[rel] = (entry, None)
        return decoded

    def put(self, rel: str, stamp: list | None, domain: str, skill, diagnostics) -> None:
        if self.path is None or stamp is None:
            return
        self.misses += 1
        if self.now_ns - stamp[1] < SETTLE_NS or self.now_ns - stamp[2] < SETTLE_NS:
            return  # may still be changing within the clock's resolution
        entry = _encode_read(rel, stamp, domain, skill, diagnostics)
        if entry is not None:
            self.fresh[rel] = (entry, None if skill is None else skill.body)


def _first_line(fd: int, info: os.stat_result) -> bytes | None:
    """The first line of the open cache file ``fd`` (without its newline), or None when the file is not a
    regular file of at most :data:`~skillsift.cache.base.MAX_BYTES` or holds no newline."""
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
        return None
    chunks: list[bytes] = []
    left = info.st_size
    try:
        while left > 0:
            chunk = os.read(fd, min(HEAD_CHUNK, left))
            if not chunk:
                return None
            cut = chunk.find(b"\n")
            if cut >= 0:
                chunks.append(chunk[:cut])
                return _JOIN_BYTES(chunks)
            chunks.append(chunk)
            left -= len(chunk)
    except OSError:
        return None
    return None


_JOIN_BYTES = b"".join


class BodyBlock:
    """The bodies of a skill cache file, read from its open descriptor when a body is first read.

    The descriptor stays open until then (or until the block is dropped): the cache is
    replaced by renaming a new file over it, never written in place, so what is read later
    is what the header that was read describes.  A read that fails gives no bytes: every
    body then fails its CRC-32 and is read from its skill's file.
    """

    __slots__ = ("_data", "_fd", "_lock", "_offset", "_size")

    def __init__(self, fd: int, offset: int, size: int):
        import _thread

        self._fd: int | None = fd
        self._offset, self._size, self._data = offset, size, b""
        self._lock = _thread.allocate_lock()

    def read(self) -> bytes:
        """The bodies' bytes (read once, then kept)."""
        with self._lock:
            fd = self._fd
            if fd is not None:
                self._fd = None
                try:
                    self._data = _read_at(fd, self._offset, self._size)
                finally:
                    os.close(fd)
            return self._data

    def __del__(self, _close=os.close):  # (os.close bound now: the module may be gone at interpreter exit)
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                _close(fd)
            except OSError:
                pass


def _read_at(fd: int, offset: int, size: int) -> bytes:
    """``size`` bytes of ``fd`` from ``offset``; fewer (b"" at worst) when the file is shorter or a read fails."""
    chunks, got = [], 0
    try:
        os.lseek(fd, offset, os.SEEK_SET)
        while got < size:
            chunk = os.read(fd, size - got)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    except OSError:
        return b""
    return _JOIN_BYTES(chunks)


def _fulldiag_to_json(d: Diagnostic) -> dict:
    return {**diag_to_json(d), "rule": d.rule}


def _fulldiag_from_json(data) -> Diagnostic | None:
    diag = diag_from_json(data)
    if diag is None or type(data.get("rule")) is not str:
        return None
    from dataclasses import replace

    return replace(diag, rule=data["rule"])


def _encode_read(rel: str, stamp: list, domain: str, skill, diagnostics) -> list | None:
    """The entry (:data:`ENTRY`) for what reading ``rel`` gave, its body span left as zeros (the
    body is placed when the file is written); None when JSON cannot carry it exactly."""
    out: list = [stamp, domain, [_fulldiag_to_json(d) for d in diagnostics]]
    if skill is not None:
        if type(skill.frontmatter) is not dict or skill.path != rel:
            return None
        out.extend(getattr(skill, name) for name in _STRINGS)
        out.extend(list(getattr(skill, name)) for name in _LISTS)
        for at, key in ((3, "name"), (4, "description")):  # the frontmatter's own: not stored twice
            given = skill.frontmatter.get(key)
            if type(given) is str and given == out[at]:
                out[at] = None
        out += [skill.frontmatter_line, skill.frontmatter, 0, 0, 0]
    return out if json_exact(out) else None


def _body_from_file(read_skill, root: str, rel: str, domain: str, digest: str) -> str:
    """The body of ``rel`` read from its file, for a cached body that failed its check.

    The entry matched the file's stamp, so the file holds what the entry was made from
    (its digest says so); if it changed since, the rest of the cached skill is no longer
    what it holds, and the run stops rather than mix the two.
    """
    skill, _problems = read_skill(os.path.join(root, rel), root, domain, rel=rel)
    if skill is None or skill.digest != digest:
        raise SkillsiftError(f"{rel}: its entry in the skill cache is damaged and the file changed while it was "
                             "in use", hint="run the command again")
    return skill.body


def _decode_diagnostics(raw) -> list | None:
    """The diagnostics of an entry, or None when any of them is damaged."""
    if type(raw) is not list:
        return None
    diagnostics = []
    for given in raw:
        diag = _fulldiag_from_json(given)
        if diag is None:
            return None
        diagnostics.append(diag)
    return diagnostics


def _string_lists(values) -> bool:
    """Every value is a list of exact strs.  The entries were read with NaN and Infinity refused, so
    anything JSON gave is JSON-exact, and ``"".join`` of a list that holds anything but a str raises
    TypeError: one call checks a list's items."""
    try:
        for value in values:
            if type(value) is not list:
                return False
            _JOIN(value)
    except TypeError:
        return False
    return True


def _decode_read(entry: list, rel: str, cache: SkillCache):
    """``(skill or None, diagnostics)`` of an entry that checks out field by field, else None.

    (The checks are written out, not looped over: this runs once per skill of every warm run;
    tests/support/skill_cache_reference.py keeps the looped form, and a test holds the two equal.)
    """
    raw = entry[2]
    diagnostics = [] if type(raw) is list and not raw else _decode_diagnostics(raw)
    if diagnostics is None:
        return None
    if len(entry) == _NO_SKILL:
        return None if not diagnostics else (None, diagnostics)
    try:
        (_stamp, key_domain, _diagnostics, name, description, domain, dir_id, digest, triggers, keywords, tags, roles,
         examples, not_for, line, front, start, end, crc) = entry
    except ValueError:  # another length
        return None
    if type(front) is not dict:
        return None
    if name is None:  # the frontmatter's own
        name = front.get("name")
    if description is None:
        description = front.get("description")
    str_, int_ = str, int  # (exact types: a bool is not an int here)
    if not (type(name) is str_ and type(description) is str_ and type(domain) is str_ and type(dir_id) is str_
            and type(digest) is str_ and type(line) is int_ and type(start) is int_ and type(end) is int_
            and type(crc) is int_ and 0 <= start <= end <= cache.body_bytes
            and _string_lists((triggers, keywords, tags, roles, examples, not_for))):
        return None
    # The body is checked (CRC-32, UTF-8) when first read; if it fails, it comes from the file.
    reread = _partial(_body_from_file, cache.read_skill, cache.root_id, rel, key_domain, digest)
    body = cache.encoded_text(cache.block, start, end, crc, reread)
    skill = cache.restore(name, description, tuple(triggers), tuple(keywords), tuple(tags), tuple(roles),
                          tuple(examples), tuple(not_for), domain, body, rel, dir_id, digest, line, front)
    return skill, diagnostics
