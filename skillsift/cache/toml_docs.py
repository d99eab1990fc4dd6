"""A cache of parsed config files, so that a later command skips importing the TOML parser.

Every command and hook reads its config first, and importing Python's TOML parser (with the
``datetime`` and ``string`` modules and the regular expressions it compiles at import) costs
a short-lived process such as a pre-commit hook more than the rest of reading its config.
This cache keeps, per folder holding a config file, what the parser returned for each text
it saw, keyed by the SHA-256 of that text and the Python version (whose parser it was), so a
hit gives exactly what parsing would.  Only documents JSON carries exactly are kept (a TOML
date or time, or a float that is not finite, is parsed every time), and only documents that
parsed: a file with a syntax error is parsed again on every run, so its error and line are
always the parser's own.

One JSON file per folder in the user's cache folder (``config/<sha256 of the folder>.json``,
the rules of :mod:`skillsift.cache.base`: trusted only when private, bounded, written
atomically); ``SKILLSIFT_CACHE=off`` turns it off.  The parser comes from the caller
(:mod:`skillsift.config.sources`), so this module imports nothing above the cache base.
"""

from __future__ import annotations

import sys

from skillsift.cache.base import JsonCache, json_exact, sha256

_PARSERS = ("cache/toml_docs.py", "cache/base.py", "_version.py")


class TomlCache(JsonCache):
    """Parsed TOML documents of the config files in one folder; :meth:`loads` stands in for the parser."""

    folder = "config"
    parsers = _PARSERS

    @staticmethod
    def _key(text: str) -> str:
        data = f"{sys.version}\0{text}".encode("utf-8", "surrogatepass")
        return sha256(data).hexdigest()

    def loads(self, text: str, parse) -> dict:
        """What ``parse(text)`` returns (the parser's errors are raised as they are); a new document is saved."""
        if self.path is None:
            return parse(text)
        key = self._key(text)
        entry = self.entries.get(key)
        if type(entry) is dict and json_exact(entry):
            self.hits += 1
            self.fresh[key] = entry
            return entry
        self.misses += 1
        doc = parse(text)
        if type(doc) is dict and json_exact(doc):
            self.fresh[key] = doc
            # the other texts seen lately stay (a branch switch brings an older config back)
            self.save(keep_unused=KEEP)
        return doc


KEEP = 8
"""How many documents a folder's file keeps: the current text and a few earlier ones."""
