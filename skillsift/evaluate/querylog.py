"""The query log and its mining: real requests turned into labelled cases.

Writing (the MCP server): when ``[search] log_queries`` is on (user config or
``SKILLSIFT_LOG_QUERIES`` only), every ``find_skill`` query and every ``load_skill`` load
is appended as one JSON line to ``<root>/.skillsift/local/search-queries.jsonl``::

    {"v":1,"ts":"2026-10-06T12:00:00Z","event":"query","session":"1a2b3c4d5e6f",
     "query":"customer wants money back","ranking":"lexical","results":["issue-refund"]}
    {"v":1,"ts":"2026-10-06T12:00:03Z","event":"loaded","session":"1a2b3c4d5e6f","skill":"issue-refund"}

The file is opened append-only, never through a symbolic link, created with mode 0600.
The session is the first 6 bytes of the SHA-256 of the session id (12 hex characters),
never the id itself.  Queries are whitespace-collapsed and cut to 512 bytes at a UTF-8
boundary; blank queries and queries in which the secret scanner finds a credential are
never written.  Once the file is larger than 8 MiB nothing more is appended and one
warning per process says so.

Mining (``skillsift mine``): :func:`mine` labels each query with the first known skill its
session loaded before its next query; a query whose labels tie is ambiguous; the others
become cases tagged ``mined``.  Everything except :class:`QueryLog` and :func:`read_log`
is pure.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from skillsift.config import local_dir
from skillsift.diagnostics import SkillsiftError
from skillsift.secrets.scan import detect_secret, redact
from skillsift.words import plural

LOG_NAME = "search-queries.jsonl"
LOG_VERSION = 1
MAX_LOG_BYTES = 8 << 20
MAX_QUERY_BYTES = 512
MAX_LINE_BYTES = 64 << 10  # one event line read back
MAX_READ_BYTES = 2 * MAX_LOG_BYTES  # what reading the log takes in at most
TOP_RESULTS = 5
SESSION_BYTES = 6
EVENT_QUERY = "query"
EVENT_LOADED = "loaded"
EVENTS = (EVENT_QUERY, EVENT_LOADED)
MINED_TAG = "mined"
FULL_WARNING = ("The search query log is full; not recording more queries "
                "(mine it, then run 'skillsift mine --purge')")

# One warning per process for a full log (many logs may be opened as the config changes).
_full_warned = False


# ---------------------------------------------------------------------------------------------
# Pure helpers
# ---------------------------------------------------------------------------------------------


def collapse(text: str) -> str:
    """``text`` with every run of white space made one space, and none at the ends."""
    return " ".join(text.split())


def cut_utf8(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, never inside a character."""
    data = text.encode("utf-8", "replace")  # a lone surrogate becomes "?"
    if len(data) <= limit:
        return data.decode("utf-8")
    return data[:limit].decode("utf-8", "ignore")


def hash_session(session_id: str) -> str:
    """The first 6 bytes of SHA-256 of ``session_id`` as 12 hex characters; "" for no session."""
    if not session_id:
        return ""
    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).digest()
    return digest[:SESSION_BYTES].hex()


def format_ts(moment: datetime) -> str:
    """UTC RFC 3339 with whole seconds: ``2026-10-06T12:00:00Z``."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def clean_query(query: str) -> str:
    """What a query is logged as: whitespace-collapsed, at most 512 bytes ("" = do not log)."""
    return cut_utf8(collapse(query), MAX_QUERY_BYTES)


def make_entry(event: str, ts: str, *, session: str = "", query: str = "", ranking: str = "",
               results: Iterable[str] = (), skill: str = "") -> dict:
    """One log line as a dict, keys in the documented order, empty fields left out."""
    entry: dict = {"v": LOG_VERSION, "ts": ts, "event": event}
    results = list(results)[:TOP_RESULTS]
    for key, value in (("session", session), ("query", query), ("ranking", ranking), ("results", results),
                       ("skill", skill)):
        if value:
            entry[key] = value
    return entry


def entry_line(entry: dict) -> bytes:
    return (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8", "replace")


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class QueryLog:
    """Appends query and load events to one file.

    ``QueryLog(None)`` is a log that records nothing, so callers never test whether
    logging is on.  ``clock`` returns the current time (UTC); ``warn`` receives the
    one-line warnings (stderr by default); ``extra_patterns`` are the configured secret
    patterns, added to the built-in ones.  Writing never raises: a failure is warned
    about once and the event is dropped.
    """

    def __init__(self, path: str | os.PathLike | None, *, session_id: str = "",
                 clock: Callable[[], datetime] = utc_now, extra_patterns=(),
                 warn: Callable[[str], None] = _stderr):
        self.path = Path(path) if path is not None else None
        self.session = hash_session(session_id)
        self.clock = clock
        self.extra_patterns = tuple(extra_patterns)
        self.warn = warn
        self._failed = False

    @property
    def enabled(self) -> bool:
        """False when the log is off (no path): nothing is ever written."""
        return self.path is not None

    def record_query(self, query: str, ranking: str = "", results: Iterable[str] = ()) -> bool:
        """Log a ``find_skill`` query; False when nothing was written (off, blank, secret, full)."""
        if not self.enabled:
            return False
        text = clean_query(query)
        if not text:
            return False

        # The whole query is scanned: a credential cut in half by the 512-byte cap is still one.
        if any(detect_secret(t, self.extra_patterns) is not None for t in (query, text)):
            return False
        # A served skill's name can hold a secret too: such a name is written masked.
        patterns = self.extra_patterns
        results = [name if detect_secret(name, patterns) is None else redact(name, extra_patterns=patterns)
                   for name in results]
        entry = make_entry(EVENT_QUERY, format_ts(self.clock()), session=self.session, query=text,
                           ranking=ranking, results=results)
        return self._append(entry_line(entry))

    def record_load(self, skill: str) -> bool:
        """Log a ``load_skill`` load; False when nothing was written (off, blank, a name holding a secret)."""
        if not self.enabled or not skill:
            return False

        if detect_secret(skill, self.extra_patterns) is not None:
            return False
        entry = make_entry(EVENT_LOADED, format_ts(self.clock()), session=self.session, skill=skill)
        return self._append(entry_line(entry))

    def _append(self, line: bytes) -> bool:
        global _full_warned
        assert self.path is not None
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(self.path, flags, 0o600)
        except OSError as exc:
            self._fail(exc)
            return False
        try:
            if os.fstat(fd).st_size > MAX_LOG_BYTES:
                if not _full_warned:
                    _full_warned = True
                    self.warn(FULL_WARNING)
                return False
            os.write(fd, line)
            return True
        except OSError as exc:
            self._fail(exc)
            return False
        finally:
            os.close(fd)

    def _fail(self, exc: OSError) -> None:
        if self._failed:
            return
        self._failed = True
        reason = exc.strerror or type(exc).__name__
        if self.path is not None and os.path.islink(self.path):
            reason = "it is a symbolic link, which the log never follows"
        self.warn(f"cannot write the search query log {self.path}: {reason}; not recording queries")


def log_path(config) -> Path:
    """``<root>/.skillsift/local/search-queries.jsonl``."""

    return local_dir(config) / LOG_NAME


def open_log(config, session_id: str = "", **kwargs) -> QueryLog:
    """The query log of ``config``: recording only when ``config.search.log_queries`` is on."""
    if not config.search.log_queries:
        return QueryLog(None)
    return QueryLog(log_path(config), session_id=session_id, extra_patterns=config.secret_patterns, **kwargs)


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One event read back from the log."""

    event: str
    session: str = ""
    query: str = ""
    ranking: str = ""
    results: tuple[str, ...] = ()
    skill: str = ""
    ts: str = ""


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def scan_log(text: str) -> tuple[list[Entry], int]:
    """(the events of a log's text, how many non-blank lines are not a JSON object).

    Every line goes through the bounded JSON reader (docs/bounded-input.md): a damaged,
    hostile or oversized line is counted and skipped, never fatal.
    """
    from skillsift.jsonio import JSONDocumentError, read_json

    entries = []
    bad = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            doc = read_json(line, source="query log line", max_bytes=MAX_LINE_BYTES)
        except JSONDocumentError:
            bad += 1
            continue
        if not isinstance(doc, dict):
            bad += 1
            continue
        if doc.get("event") not in EVENTS:
            continue
        results = doc.get("results")
        entries.append(Entry(
            event=doc["event"], session=_text(doc.get("session")), query=_text(doc.get("query")),
            ranking=_text(doc.get("ranking")),
            results=tuple(r for r in results if isinstance(r, str)) if isinstance(results, list) else (),
            skill=_text(doc.get("skill")), ts=_text(doc.get("ts")),
        ))
    return entries, bad


def read_log(path: str | os.PathLike) -> list[Entry]:
    """The events of the log at ``path``; a missing file is an empty log."""
    return read_log_counted(path)[0]


def read_log_counted(path: str | os.PathLike) -> tuple[list[Entry], int]:
    """(the events of the log at ``path``, lines skipped as not JSON); reads at most MAX_READ_BYTES."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_READ_BYTES)
    except FileNotFoundError:
        return [], 0
    except OSError as exc:
        raise SkillsiftError(f"cannot read the query log {path}: {exc.strerror or exc}",
                             hint="remove it or pass --purge after fixing its permissions") from None
    return scan_log(data.decode("utf-8", "replace"))


def purge_log(path: str | os.PathLike) -> bool:
    """Delete the log; True when a file was removed (a missing file is fine)."""
    try:
        os.unlink(path)
        return True
    except FileNotFoundError:
        return False


# ---------------------------------------------------------------------------------------------
# Mining
# ---------------------------------------------------------------------------------------------


def normalise(query: str) -> str:
    """The key queries are grouped by: lowercase, whitespace-collapsed."""
    return collapse(query).lower()


def mined_id(normalised: str) -> str:
    """``mined-`` and the first 4 bytes of SHA-256 of the normalised query, as 8 hex characters."""
    return "mined-" + hashlib.sha256(normalised.encode("utf-8", "surrogatepass")).digest()[:4].hex()


@dataclass
class MineResult:
    """The cases mined from a log and why the other queries gave none."""

    cases: list = field(default_factory=list)  # evaluate.cases.Case, in first-seen order
    queries: int = 0  # distinct normalised queries
    unlabelled: int = 0  # never followed by a load of a known skill
    ambiguous: int = 0  # the two most frequent labels tie
    below: int = 0  # the top label was seen fewer than min_count times

    def stats_line(self) -> str:
        queries = plural(self.queries, "distinct query", "distinct queries")
        return (f"mined {plural(len(self.cases), 'case')} from {queries} "
                f"({self.unlabelled} never followed by a load, {self.ambiguous} ambiguous, "
                f"{self.below} below --min-count); labels are weak: review before gating")


def mine(entries: Iterable[Entry], known: Collection[str], min_count: int = 1) -> MineResult:
    """Label queries with the skills loaded after them and turn the clear ones into cases.

    Walk the events in order.  A query sets its session's current query and clears the
    session's label; a load labels the current query once, with the first loaded skill
    that ``known`` holds (later loads before the next query are ignored; unknown skills
    neither count nor use up the label).  Per distinct normalised query: unlabelled when
    never labelled; ambiguous when its two most frequent labels tie; below when the top
    label's count is under ``min_count``; otherwise a case expecting the top label.
    """
    from skillsift.evaluate.cases import Case, Expected

    if min_count < 1:
        raise ValueError("min_count must be at least 1")
    known = set(known)
    first_text: dict[str, str] = {}
    labels: dict[str, Counter] = {}
    current: dict[str, str] = {}  # session -> normalised current query
    labelled: dict[str, bool] = {}
    for entry in entries:
        if entry.event == EVENT_QUERY:
            text = collapse(entry.query)
            if not text:
                continue
            key = normalise(text)
            first_text.setdefault(key, text)
            labels.setdefault(key, Counter())
            current[entry.session] = key
            labelled[entry.session] = False
        elif entry.event == EVENT_LOADED:
            current_key = current.get(entry.session)
            if current_key is None or labelled.get(entry.session) or entry.skill not in known:
                continue
            labels[current_key][entry.skill] += 1
            labelled[entry.session] = True
    result = MineResult(queries=len(first_text))
    for key, text in first_text.items():
        counts = labels[key]
        if not counts:
            result.unlabelled += 1
            continue
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
            result.ambiguous += 1
            continue
        skill, count = ranked[0]
        if count < min_count:
            result.below += 1
            continue
        result.cases.append(Case(id=mined_id(key), query=text, expect=(Expected(id=skill),), tags=(MINED_TAG,)))
    return result
