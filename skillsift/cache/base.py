"""What every user-cache file shares: where it lives, when it is trusted, how it is read and written.

The caches (docs/configuration.md, "The user cache") are files in the user's cache folder
(``$SKILLSIFT_CACHE_DIR``, else ``$XDG_CACHE_HOME/skillsift``, else ``~/.cache/skillsift``),
one per cache and repository root: ``<folder>/<sha256 of the resolved root>.json``.

* **Trusted only when private** (:func:`trusted`): a cache file is read only when it and
  every folder from the cache folder down to it are owned by the current user and not
  writable by group or others (POSIX).  Anything else (a file planted with mode 0666, a
  folder made group-writable, a file of another user, a symbolic link) is a miss: it is
  never read, and nothing is written into an untrusted folder.  A miss only costs the work
  the cache would have saved.  Where :func:`os.getuid` does not exist (Windows) ownership
  cannot be checked this way and the files are trusted as the folder's access rules leave
  them.
* **Bounded** (:data:`MAX_BYTES`): a file larger than that is a miss.
* **Atomic** (:func:`write_atomic`): written to a temporary file (0600) in a folder made
  0700, then renamed into place; a failure to write only costs the next run the work.

:class:`JsonCache` is one JSON file of entries per root, checked on load; each cache
module (:mod:`.toml_docs`, :mod:`.frontmatter`, :mod:`.skills`, :mod:`.secret_scans`, :mod:`.checks`, and the
caches of validators/text_cache.py, ranker/postings_cache.py, index/verify.py) builds on it.
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat

from skillsift._version import __version__
from skillsift.diagnostics import Diagnostic
from skillsift.files import _read_fd, path_str

TYPE_CHECKING = False  # (mypy reads it as true; pathlib is not imported on the hooks' path)
if TYPE_CHECKING:
    from pathlib import Path

FORMAT = 2
MAX_BYTES = 32 * 1024 * 1024
_DIAG_FIELDS = ("file", "code", "message", "severity", "hint")


#: Bytes a process hashes with Python's own SHA-256 before it loads OpenSSL's (:func:`sha256`).
OWN_SHA256_BYTES = 1 << 18
_own: list = [None, 0]  # Python's own sha256 (False: none), the bytes it has hashed


def sha256(data: bytes = b""):
    """``hashlib.sha256(data)``, from Python's own implementation while a process has hashed little.

    Importing :mod:`hashlib` loads OpenSSL (about 11M instructions, a twentieth of a hook's run); Python's
    own SHA-256 module loads for almost nothing but hashes about seven times slower.  So the first
    :data:`OWN_SHA256_BYTES` a process hashes (a hook's few files, its config) go through Python's own,
    and everything after (a catalog's thousands of files) through OpenSSL's.  The digest is the same.
    """
    own = _own[0]
    if own is None:
        own = _own[0] = _own_sha256()
    if own and _own[1] < OWN_SHA256_BYTES:
        _own[1] += len(data)
        return own(data)
    import hashlib

    return hashlib.sha256(data)


def _own_sha256():
    for name in ("_sha2", "_sha256"):  # Python 3.12 and later, then 3.10 and 3.11
        try:
            return __import__(name).sha256
        except (ImportError, AttributeError):
            continue
    return False


def cache_dir(env=None) -> Path | None:
    """The user's cache folder, or None when the caches are off (``SKILLSIFT_CACHE=off``) or there is no home."""
    folder = cache_folder(env)
    if folder is None:
        return None
    from pathlib import Path

    return Path(folder)


def cache_folder(env=None) -> str | None:
    """``str(cache_dir(env))`` without :mod:`pathlib` (:func:`skillsift.files.path_str`), or None."""
    env = os.environ if env is None else env
    if env.get("SKILLSIFT_CACHE", "").strip().lower() in ("off", "0", "no", "false"):
        return None
    explicit = env.get("SKILLSIFT_CACHE_DIR", "")
    if explicit:
        return path_str(explicit)
    xdg = env.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return path_str(os.path.join(xdg, "skillsift"))
    home = env.get("HOME", "") or os.path.expanduser("~")
    if not home or home == "~":
        return None
    return path_str(os.path.join(home, ".cache", "skillsift"))


def _private(info: os.stat_result) -> bool:
    """True when ``info`` is owned by the current user and not writable by group or others."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # no POSIX owners here (Windows): trusted as the folder's access rules leave it
        return True
    return info.st_uid == getuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


_noted = False


def note_untrusted(path) -> None:
    """Say once per process (on stderr) that an untrusted cache file or folder is ignored."""
    global _noted
    if _noted:
        return
    _noted = True
    import sys

    shown = os.fspath(path).encode("unicode_escape", "backslashreplace").decode("ascii")
    try:
        sys.stderr.write(f"note: the cache {shown} is ignored: it is not yours or others can write it "
                         "(fix: remove it, or chmod go-w it; see docs/configuration.md, \"The user cache\")\n")
    except (OSError, ValueError):
        pass


def trusted(folders) -> bool:
    """True when every folder of ``folders`` exists, is a folder and is private (:func:`_private`).

    A missing folder is an ordinary miss; one that exists and is not private is noted
    (:func:`note_untrusted`, once per process).
    """
    for folder in folders:
        try:
            info = os.stat(folder)
        except (OSError, ValueError):
            return False
        if not stat.S_ISDIR(info.st_mode) or not _private(info):
            note_untrusted(folder)
            return False
    return True


def read_trusted(path: str | os.PathLike, folders, max_bytes: int | None = None) -> bytes | None:
    """The bytes of the cache file ``path`` when it and ``folders`` are trusted, else None.

    The file is opened without following a link and checked on the open descriptor (a
    regular file of at most ``max_bytes``, private), so what is checked is what is read.
    """
    opened = open_trusted(path, folders)
    if opened is None:
        return None
    fd, _info = opened
    try:
        return _read_fd(fd, MAX_BYTES if max_bytes is None else max_bytes, os.fspath(path))
    except OSError:
        return None
    finally:
        os.close(fd)


def open_trusted(path: str | os.PathLike, folders) -> tuple[int, os.stat_result] | None:
    """``(descriptor, its fstat)`` of the cache file ``path`` opened for reading when it and
    ``folders`` are trusted, else None; the caller closes the descriptor.

    The file is opened without following a link and checked on the open descriptor (private),
    so what is checked is what is read; :func:`read_trusted` reads it whole.
    """
    if not trusted(folders):
        return None

    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError) as exc:
        if getattr(exc, "errno", None) == errno.ELOOP:  # a symbolic link: never followed
            note_untrusted(path)
        return None
    try:
        info = os.fstat(fd)
    except OSError:
        os.close(fd)
        return None
    if not _private(info):
        os.close(fd)
        note_untrusted(path)
        return None
    return fd, info


def write_atomic(path: str | os.PathLike, payload: bytes, folders, max_bytes: int | None = None) -> bool:
    """Replace the cache file ``path`` with ``payload`` atomically (0600 in 0700 folders); True when written.

    Nothing is written when a folder of ``folders`` (made when missing) is not trusted: an
    untrusted file in a trusted folder is replaced, never written through.
    """
    if len(payload) > (MAX_BYTES if max_bytes is None else max_bytes):
        return False
    folder = os.path.dirname(os.fspath(path)) or os.curdir  # Path(path).parent, the same folder
    tmp = None
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if not trusted(folders):
            return False
        fd, tmp = _new_file(folder)
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        os.replace(tmp, path)
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


def _new_file(folder) -> tuple[int, str]:
    """A new file ``.tmp-<random>`` in ``folder``, made 0600 and opened for writing: what
    :func:`tempfile.mkstemp` does, without its imports (:mod:`shutil` with ``bz2`` and ``lzma``,
    :mod:`random`: about 3 ms of a hook that writes a cache)."""
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
             | getattr(os, "O_BINARY", 0))
    for _ in range(100):
        name = os.path.join(folder, ".tmp-" + os.urandom(8).hex())
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no new temporary file name in {folder}")


def parser_stamp(parsers) -> list:
    """What the code behind a cache is: skillsift's version and the sizes and mtimes of ``parsers``
    (paths relative to the package folder)."""

    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # the package folder: the paths below
    stamp: list = [__version__]                                              # are relative to it
    for name in parsers:
        try:
            st = os.stat(os.path.join(here, name))
        except OSError:
            stamp.append(None)
            continue
        stamp.append([st.st_size, st.st_mtime_ns])
    return stamp


def json_exact(value, depth: int = 0) -> bool:
    """True when JSON gives ``value`` back with the same types and values."""
    if depth > 64:
        return False
    kind = type(value)
    if value is None or kind in (str, bool, int):
        return True
    if kind is float:
        return math.isfinite(value)
    if kind is list:
        return all(json_exact(v, depth + 1) for v in value)
    if kind is dict:
        return all(type(k) is str and json_exact(v, depth + 1) for k, v in value.items())
    return False


def refuse(name: str):
    """``parse_constant`` for :func:`json.loads`: NaN and Infinity are not JSON."""
    raise ValueError(f"{name} is not JSON")


def diag_to_json(d: Diagnostic) -> dict:
    return {"file": d.file, "line": d.line, "column": d.column, "code": d.code, "message": d.message,
            "severity": d.severity, "hint": d.hint}


def diag_from_json(data) -> Diagnostic | None:
    """The diagnostic ``data`` holds, or None when any field is not what :func:`diag_to_json` writes."""
    if type(data) is not dict:
        return None
    if any(type(data.get(name)) is not str for name in _DIAG_FIELDS):
        return None
    line, column = data.get("line"), data.get("column")
    if (line is not None and type(line) is not int) or (column is not None and type(column) is not int):
        return None
    return Diagnostic(file=data["file"], line=line, column=column, code=data["code"], message=data["message"],
                      severity=data["severity"], hint=data["hint"])


class JsonCache:
    """One JSON file of entries per repository root, checked on load and written atomically.

    ``folder`` names the cache (``catalog``, ``secrets``); ``parsers`` the modules whose
    sizes and mtimes, with skillsift's version, stamp what wrote it.  Entries are kept
    only when this run used them (:attr:`fresh`), so the file is bounded by the catalog.
    """

    folder = "catalog"
    parsers: tuple[str, ...] = ("cache/base.py", "diagnostics.py", "_version.py")

    def __init__(self, root, *, env=None):
        self.path: str | None = None  # the cache file (a string: no pathlib on the hooks' path)
        self.entries: dict = {}
        self.fresh: dict = {}
        self.hits = 0
        self.misses = 0
        base = cache_folder(env)
        if base is None:
            return
        try:
            real_root = os.path.realpath(os.fspath(root))
        except (OSError, ValueError):
            return
        self.root_id = real_root
        self.stamp = self._stamp()
        digest = sha256(real_root.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        self.path = os.path.join(base, self.folder, f"{digest}.json")
        self.folders: tuple[str, ...] = (base, os.path.join(base, self.folder))
        self.entries = self._load()

    def _stamp(self) -> list:
        """What wrote the file: :func:`parser_stamp` of :attr:`parsers` (a cache adds what its entries depend on)."""
        return parser_stamp(self.parsers)

    def _read(self) -> bytes | None:
        """The cache file's bytes (a trusted regular file of at most MAX_BYTES), or None."""
        if self.path is None:
            return None
        return read_trusted(self.path, self.folders)

    def _ours(self, doc, *, fmt: object = FORMAT, entries: bool = True) -> bool:
        """True when ``doc`` is a header this version wrote for this root (with an entries table)."""
        return (type(doc) is dict and doc.get("format") == fmt and doc.get("root") == self.root_id
                and doc.get("parser") == self.stamp and (not entries or type(doc.get("entries")) is dict))

    def _load(self) -> dict:
        data = self._read()
        if data is None:
            return {}
        try:
            doc = json.loads(data)
        except (ValueError, RecursionError):
            return {}
        return doc["entries"] if self._ours(doc) else {}

    def save(self, keep_unused: int = 0) -> bool:
        """Write the entries this run used (others are dropped); True when written.

        ``keep_unused``: also keep the entries this run did not use, up to that many
        entries in all (a run that took most files from another cache used few of these).
        """
        if self.path is None or (not self.misses and len(self.fresh) == len(self.entries)):
            return False
        if keep_unused and not self.misses:
            return False
        entries = dict(self.fresh)
        for key in sorted(self.entries):
            if len(entries) >= keep_unused:
                break
            entries.setdefault(key, self.entries[key])
        doc = {"format": FORMAT, "root": self.root_id, "parser": self.stamp,
               "entries": {key: entries[key] for key in sorted(entries)}}
        try:
            payload = json.dumps(doc, separators=(",", ":")).encode("ascii")  # ASCII: lone surrogates survive
        except (TypeError, ValueError, UnicodeError, RecursionError):
            return False
        return self._write(payload)

    def _write(self, payload: bytes) -> bool:
        """Replace the cache file with ``payload`` atomically (:func:`write_atomic`); True when written."""
        if self.path is None:
            return False
        return write_atomic(self.path, payload, self.folders)
