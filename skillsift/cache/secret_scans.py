"""Where the secret rules matched a text, between runs (docs/configuration.md).

Only offsets and rule numbers are stored, never a secret value.
"""

from __future__ import annotations

import json

from skillsift.cache.base import JsonCache, sha256


class ScanCache(JsonCache):
    """Where the built-in and configured secret rules matched a text, by the text's SHA-256.

    An entry is the list of ``[start, end, rule number]`` of the secret values
    :func:`skillsift.secrets.scan.scan_values` found (offsets into the text, never the values,
    so no secret is copied into the cache); the caller rebuilds every finding from the
    text it holds.  Keyed by the text and the configured patterns; valid only for the
    scanner that wrote it.
    """

    folder = "secrets"
    parsers = ("secrets/scan.py", "cache/secret_scans.py", "cache/base.py", "_version.py")

    @staticmethod
    def key(text: str, extra: tuple) -> str:
        h = sha256(text.encode("utf-8", "surrogatepass"))
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
