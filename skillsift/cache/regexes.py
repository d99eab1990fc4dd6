"""A cache of compiled regular expressions, so that a short-lived process does not compile them again.

Python compiles a regular expression in Python code (the parser and the code generator of
:mod:`re`), and a pre-commit hook compiles about thirty of them (the checks' patterns at
import, the secret scanner's at its first file): about 20M instructions of a 190M-instruction
hook, a tenth of its start-up.  What the compiler makes is a list of integers handed to the
regular-expression engine (``_sre.compile``), which checks the list before it uses it.  This
cache keeps that list for each pattern and flags a process compiled, keyed by them, in a file
stamped with the exact Python build (its version string, the engine's format number and word
size, the byte order) and the layout of an entry.  So a hit hands the engine exactly
the list compiling would make: the pattern object is equal to the one :func:`re.compile`
returns (a compiled pattern's equality compares its code) and matches the same.  A pattern
the engine refuses, an entry that does not check out, a Python whose compiler is not laid
out as 3.11's: each is compiled by :func:`re.compile` as before.

One JSON file per installed copy of skillsift in the user's cache folder
(``regex/<sha256 of the package folder>.json``, the rules of :mod:`skillsift.cache.base`:
trusted only when private, bounded, written atomically); ``SKILLSIFT_CACHE=off`` turns it off.
Only the console script reads and writes it (``skillsift._command_line``, set by
:func:`skillsift.cli.main`; :func:`save` at the end of a run that compiled a pattern it did not
hold): a program or a test that imports skillsift compiles with :func:`re.compile` and never has
a file read or written for it.
"""

from __future__ import annotations

import os
import re
import sys

import skillsift
from skillsift.cache.base import JsonCache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The layout of an entry (:func:`_compiled`); what else an entry depends on is the Python build alone.
ENTRY_FORMAT = 1
#: Patterns a file keeps: every pattern of skillsift's commands, hooks and configured secret patterns.
MAX_ENTRIES = 2000
_NOT_CACHED = re.DEBUG | re.TEMPLATE if hasattr(re, "TEMPLATE") else re.DEBUG


def _engine():
    """``(_sre, re._compiler, re._parser)`` and what the cached code depends on (this Python and its
    engine), or None when this Python has no such engine (its compiler is laid out otherwise)."""
    try:
        import _sre  # type: ignore[import-not-found]
        from re import _compiler, _parser

        _compiler._code, _parser.parse, _sre.compile  # noqa: B018 - what compile() uses
        if _sre.CODESIZE != memoryview(b"").cast("I").itemsize:  # (4 on every CPython build)
            return None
        return (_sre, _compiler, _parser), f"{sys.version}\0{_sre.MAGIC}\0{_sre.CODESIZE}\0{sys.byteorder}"
    except (ImportError, AttributeError):
        return None


class RegexCache(JsonCache):
    """The compiled code of the patterns compiled through :func:`compile`; one file per install."""

    folder = "regex"

    def __init__(self, build: str, *, env=None):
        self.build = build
        super().__init__(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), env=env)

    def _stamp(self) -> list:
        """The entry layout and the Python build: an entry is the compiler's output for its pattern and
        flags, whatever skillsift's version (no module of skillsift is stat'ed for it)."""
        return [ENTRY_FORMAT, self.build]


_state: dict[str, Any] = {}


def _cache() -> RegexCache | None:
    if "cache" not in _state:
        found = _engine()
        _state["cache"] = None
        if found is not None:
            _state["engine"], build = found
            _state["cache"] = RegexCache(build)
    return _state["cache"]


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:  # noqa: A001 - re.compile's name, as a drop-in
    """``re.compile(pattern, flags)``, the compiled code taken from the cache when it holds it."""
    flags = int(flags)
    cache = _cache() if skillsift._command_line and type(pattern) is str and not flags & _NOT_CACHED else None
    if cache is None or cache.path is None:
        return re.compile(pattern, flags)
    key = f"{flags}\0{pattern}"
    entry = cache.entries.get(key)
    if entry is not None:
        compiled = _from_entry(pattern, entry)
        if compiled is not None:
            cache.hits += 1
            cache.fresh[key] = entry
            return compiled
    compiled, entry = _compiled(pattern, flags)
    if entry is not None:
        cache.misses += 1
        cache.fresh[key] = entry
    return compiled


def _compiled(pattern: str, flags: int) -> tuple[re.Pattern[str], list | None]:
    """The pattern as :func:`re.compile` makes it, and the entry that makes it again (None: not kept).

    What ``re._compiler.compile`` does: parse, generate the code, map the group names both
    ways, hand them to the engine.  Errors are the parser's own (:class:`re.error`).
    """
    sre, compiler, parser = _state["engine"]
    parsed = parser.parse(pattern, flags)
    code = compiler._code(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    words = b"".join(word.to_bytes(sre.CODESIZE, sys.byteorder) for word in code)
    entry = [flags | parsed.state.flags, words.hex(), parsed.state.groups - 1, groupindex, indexgroup]
    try:
        compiled = sre.compile(pattern, entry[0], code, entry[2], groupindex, tuple(indexgroup))
    except (TypeError, ValueError, RuntimeError, OverflowError):  # an engine laid out otherwise
        return re.compile(pattern, flags), None
    if compiled != re.compile(pattern, flags):  # (never seen: the same steps as re.compile)
        return re.compile(pattern, flags), None
    return compiled, entry


def _from_entry(pattern: str, entry) -> re.Pattern[str] | None:
    """The compiled pattern an entry of :func:`_compiled` describes, or None when it does not check out."""
    if type(entry) is not list or len(entry) != 5:
        return None
    flags, text, groups, groupindex, indexgroup = entry
    if type(flags) is not int or type(text) is not str or type(groups) is not int or type(groupindex) is not dict \
            or type(indexgroup) is not list or len(indexgroup) != groups + 1 \
            or not all(type(k) is str and type(v) is int for k, v in groupindex.items()) \
            or not all(v is None or type(v) is str for v in indexgroup):
        return None
    sre = _state["engine"][0]
    try:
        data = bytes.fromhex(text)
        if len(data) % sre.CODESIZE:
            return None
        return sre.compile(pattern, flags, memoryview(data).cast("I").tolist(), groups, groupindex,
                           tuple(indexgroup))
    except (TypeError, ValueError, RuntimeError, OverflowError):  # the engine refuses code it cannot run
        return None


def save() -> bool:
    """Write the file when this process compiled a pattern it did not hold; True when written."""
    cache = _state.get("cache")
    return cache is not None and cache.save(keep_unused=MAX_ENTRIES)
