"""RE2 sets over a text's UTF-8 bytes, and when a process starts reading texts with them.

Three scans ask which of many strings a text holds: the body checks' marks
(:func:`skillsift.validators.parsed.marks`), the security checks' words
(:func:`skillsift.checks.security.words_held`) and the secret scanner's needles
(:mod:`skillsift.secrets.scan`).  One RE2 set pass answers for every string at once, where each
substring test is a pass of its own; but importing RE2 and compiling a set costs a few
milliseconds, more than the substring tests of a hook's few small files.  So each scan reads its
first 64 KiB with substring tests and every text after that with its set (a :class:`SetGate`
each), and a caller about to read a whole catalog (validate) opens a gate from the first text on.
The answers are the same either way.

Nothing is imported here: RE2 only when a set is compiled (:func:`byte_set`).
"""

from __future__ import annotations


class SetGate:
    """Whether a scan reads a text with its RE2 set: past ``after`` characters counted in this process
    (the substring tests serve the first ones), or from the first text on once :meth:`open` was called."""

    __slots__ = ("after", "always", "scanned")

    def __init__(self, after: int = 1 << 16):
        self.after = after
        self.scanned = 0
        self.always = False

    def count(self, size: int) -> bool:
        """Count a text of ``size`` characters; whether the set reads it."""
        self.scanned += size
        return self.always or self.scanned > self.after

    @property
    def on(self) -> bool:
        """Whether the set reads the next text (:meth:`count` counted so far)."""
        return self.always or self.scanned > self.after

    def open(self) -> None:
        """The set reads every text from the next one on."""
        self.always = True


def byte_set(patterns: list[bytes]):
    """``patterns`` compiled into one RE2 set searched over UTF-8 bytes read byte for byte, entry ``n``
    being ``patterns[n]`` (its ``Match(data)`` gives the entries found anywhere in ``data``)."""
    import re2

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1  # the UTF-8 bytes, read byte for byte
    options.never_capture = True
    options.log_errors = False
    found = re2.Set.SearchSet(options)
    for pattern in patterns:
        found.Add(pattern)
    found.Compile()
    return found
