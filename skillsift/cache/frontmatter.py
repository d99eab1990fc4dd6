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

The parser and the document type come from the caller (:mod:`skillsift.catalog`), so this
module imports nothing above the cache base.
"""

from __future__ import annotations

from skillsift.cache.base import JsonCache, diag_from_json, diag_to_json, json_exact, sha256

_PARSERS = ("catalog/frontmatter.py", "diagnostics.py", "cache/frontmatter.py", "cache/base.py", "_version.py")


class YamlCache(JsonCache):
    """``read_yaml`` results of one repository root; :meth:`read_yaml` stands in for it.

    ``parse`` is :func:`skillsift.catalog.frontmatter.read_yaml` and ``document`` its result
    type (:class:`~skillsift.catalog.frontmatter.YamlDocument`), given by the caller.
    """

    parsers = _PARSERS

    def __init__(self, root, *, parse, document, env=None):
        self.parse, self.document = parse, document
        super().__init__(root, env=env)

    @staticmethod
    def _key(raw: str, file: str, first_line: int) -> str:
        text = f"{file}\0{first_line}\0{raw}".encode("utf-8", "surrogatepass")
        return sha256(text).hexdigest()

    def read_yaml(self, raw: str, *, file: str = "", first_line: int = 1):
        """What ``read_yaml(raw, file=file, first_line=first_line)`` returns."""
        read_yaml = self.parse
        if self.path is None:
            return read_yaml(raw, file=file, first_line=first_line)
        key = self._key(raw, file, first_line)
        entry = self.entries.get(key)
        if entry is not None:
            doc = _decode(entry, self.document)
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



def _encode(doc) -> dict | None:
    if not json_exact(doc.value):
        return None
    return {"value": doc.value, "empty": doc.empty, "diagnostics": [diag_to_json(d) for d in doc.diagnostics]}


def _decode(entry, YamlDocument):
    if type(entry) is not dict or type(entry.get("empty")) is not bool or type(entry.get("diagnostics")) is not list:
        return None
    value = entry.get("value")
    if not json_exact(value):
        return None
    diagnostics = tuple(diag_from_json(d) for d in entry["diagnostics"])
    if any(d is None for d in diagnostics):
        return None
    return YamlDocument(value=value, empty=entry["empty"], diagnostics=diagnostics)
