"""The text of a skill that is sent to an embedding provider, and its digest.

The text is a fixed template (version :data:`DOC_TEMPLATE_VERSION`) over the configured
fields, so one skill always embeds the same bytes; the digest of that text keys the
reuse of stored vectors.  Pure functions, no I/O.
"""

from __future__ import annotations

import re

from ..cache import regexes
from ..cache.base import sha256

#: What is embedded by default: the name is matched lexically, not embedded (docs/ranking-quality.md).
#: Defined here, below the config (which re-exports it), so the catalog imports nothing of the config.
DEFAULT_EMBED_FIELDS = ("description", "triggers", "keywords")

#: Version of the template below; an index built with another version is rebuilt.
DOC_TEMPLATE_VERSION = 1

#: Body characters embedded when ``body_chars`` is not positive.
DEFAULT_BODY_CHARS = 1200

# Characters with the Unicode White_Space property.  ``str.split()`` also splits on
# U+001C..U+001F, which are not white space, so the set is spelled out.
_WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_SPACE_RUN = regexes.compile("[" + re.escape(_WHITE_SPACE) + "]+")


#: The characters ``str.split()`` splits on that are not white space (the rest are exactly _WHITE_SPACE);
#: collapse_whitespace spells them out.
_SPLIT_NOT_SPACE = ("\x1c", "\x1d", "\x1e", "\x1f")


def collapse_whitespace(value: str) -> str:
    """Split ``value`` on runs of Unicode white space and join the pieces with one space.

    ``str.split()`` does it at C speed when ``value`` holds none of the four separators it alone
    splits on (the regular expression took about 20,000 instructions for a description)."""
    if "\x1c" not in value and "\x1d" not in value and "\x1e" not in value and "\x1f" not in value:
        return " ".join(value.split())
    return " ".join(piece for piece in _SPACE_RUN.split(value) if piece)


def resolve_fields(fields) -> tuple[str, ...]:
    """The embedded fields as configured; an empty selection means the default (description,
    triggers, keywords: the name is matched lexically, docs/ranking-quality.md)."""
    resolved = tuple(fields or ())
    return resolved or DEFAULT_EMBED_FIELDS


def resolve_body_chars(body_chars: int) -> int:
    """``body_chars`` with a non-positive value resolved to the default (1200)."""
    return body_chars if body_chars > 0 else DEFAULT_BODY_CHARS


def embedded_text(
    skill, fields=DEFAULT_EMBED_FIELDS, index_body: bool = False, body_chars: int = DEFAULT_BODY_CHARS
) -> str:
    """The exact text embedded for ``skill``.

    One ``label: value`` line per selected field that is not blank, always in the
    order name, description, triggers (joined with ``"; "``), keywords (joined with
    ``", "``), then the first ``body_chars`` code points of the body when
    ``index_body`` is on.  Each value is whitespace-collapsed after joining and
    truncation; lines are joined with ``\\n`` and there is no trailing newline.
    """
    selected = set(resolve_fields(fields))
    candidates = []
    if "name" in selected:
        candidates.append(("name", skill.name))
    if "description" in selected:
        candidates.append(("description", skill.description))
    if "triggers" in selected:
        candidates.append(("triggers", "; ".join(skill.triggers)))
    if "keywords" in selected:
        candidates.append(("keywords", ", ".join(skill.keywords)))
    if index_body:
        candidates.append(("body", (skill.body or "")[: resolve_body_chars(body_chars)]))
    lines = []
    for label, value in candidates:
        collapsed = collapse_whitespace(value or "")
        if collapsed:
            lines.append(f"{label}: {collapsed}")
    return "\n".join(lines)


def text_digest(text: str) -> str:
    """``sha256:<lowercase hex>`` of the UTF-8 bytes of ``text``."""
    return "sha256:" + sha256(text.encode("utf-8")).hexdigest()
