"""Draft cases from what the skills already say about when to use them (pure).

Each skill's trigger passages, found by the SK008 parser
(:func:`skillsift.validators.frontmatter.trigger_passages`: a "When to use" section, a
"Use when ..." line), and the "Use when / for / before ..." sentences of its description become
queries expected to find that skill.  They are drafts: the phrasing is the skill author's, not a
user's, so ``skillsift init`` writes them tagged ``draft`` with a comment asking for review
(docs/init.md, "The draft cases").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PER_SKILL = 3  # drafts kept per skill
MIN_WORDS, MAX_WORDS = 3, 30
MAX_QUERY_CHARS = 300

_ITEM = re.compile(r"(?:^|\s)(?:[-*+]|\d{1,2}[.)])\s+(?:\[[ xX]\]\s+)?")
_DESCRIPTION_USE = re.compile(
    r"(?:^|(?<=[.!?])\s+)use(?: this skill| it)? (?:when(?:ever)?|for|before|after|if|to)\b[,:]?\s*([^.!?\n]+)",
    re.IGNORECASE)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_NEGATIVE = re.compile(r"^\W*(?:do not|don't|never|not for|avoid)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Draft:
    """One draft case: ``query`` should find ``skill``; ``source`` says where it was read (path:line)."""

    skill: str
    query: str
    source: str


def clean(text: str) -> str:
    """Markdown emphasis, code marks and links removed, blanks collapsed, closing punctuation dropped."""
    text = _LINK.sub(r"\1", text)
    for mark in ("**", "__", "`"):
        text = text.replace(mark, "")
    text = " ".join(text.split()).strip(" *_")
    return text.rstrip(":.;,!").strip()


def _keep(text: str) -> bool:
    words = len(text.split())
    return MIN_WORDS <= words <= MAX_WORDS and len(text) <= MAX_QUERY_CHARS and not _NEGATIVE.match(text)


def passage_items(passage: str) -> list[str]:
    """A passage split into its list items (one item when it is no list)."""
    pieces = [piece for piece in _ITEM.split(passage) if piece.strip()]
    return pieces or [passage]


def skill_drafts(name: str, description: str, body: str, body_line: int, path: str) -> list[Draft]:
    """At most PER_SKILL drafts for one skill, in document order (description first), no two alike."""
    from ..validators.frontmatter import trigger_passages

    found: list[tuple[str, int]] = []
    for match in _DESCRIPTION_USE.finditer(description or ""):
        found.append((match.group(1), 0))
    for line_no, _line, passage in trigger_passages((body or "").split("\n"), body_line):
        found += [(item, line_no) for item in passage_items(passage)]
    out: list[Draft] = []
    seen: set[str] = set()
    for text, line_no in found:
        query = clean(text)
        key = query.lower()
        if not _keep(query) or key in seen:
            continue
        seen.add(key)
        where = f"{path}:{line_no}" if line_no else f"{path} (description)"
        out.append(Draft(skill=name, query=query, source=where))
        if len(out) == PER_SKILL:
            break
    return out


def unique_queries(drafts: list[Draft]) -> list[Draft]:
    """The drafts whose query no other skill's draft repeats (a query two skills claim tests nothing)."""
    owners: dict[str, set[str]] = {}
    for draft in drafts:
        owners.setdefault(draft.query.lower(), set()).add(draft.skill)
    return [draft for draft in drafts if len(owners[draft.query.lower()]) == 1]
