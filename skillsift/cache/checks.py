"""The results of whole-catalog checks (SK009) between runs (docs/configuration.md).
"""

from __future__ import annotations

import json

from skillsift.cache.base import JsonCache, sha256


class CheckCache(JsonCache):
    """Results of whole-catalog checks (SK009), keyed by the SHA-256 of their inputs as JSON.

    The caller checks an entry's shape before using it and stores only what it can
    rebuild the check's diagnostics from; valid only for the checking code that wrote it.
    """

    folder = "checks"
    parsers = ("checks/duplicates.py", "ranker/tokenize.py", "diagnostics.py", "cache/checks.py", "cache/base.py",
               "_version.py")

    @staticmethod
    def key(name: str, inputs) -> str:
        text = json.dumps([name, inputs], separators=(",", ":"), ensure_ascii=True)
        return sha256(text.encode("ascii")).hexdigest()

    def get(self, key: str):
        return self.entries.get(key) if self.path is not None else None

    def keep(self, key: str) -> None:
        self.hits += 1
        self.fresh[key] = self.entries[key]

    def put(self, key: str, value) -> None:
        if self.path is not None:
            self.misses += 1
            self.fresh[key] = value
