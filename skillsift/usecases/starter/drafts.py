"""Draft cases from what the skills already say about when to use them (pure).

Each skill's trigger passages, found by the SK008 parser
(:func:`skillsift.checks.frontmatter.trigger_passages`: a "When to use" section, a
"Use when ..." line), and the "Use when / for / before ..." sentences of its description become
queries expected to find that skill.  A lead-in ("This skill should be used when working with",
"Apply this skill when:") is taken off the front and a list's lead-in ("... such as:") off the
end, so no draft is a bare lead-in.  A skill that says none of that gets one draft from its
description's first clause, or from its name when the description gives none.  Sentences are split
where a sentence ends, not at an abbreviation ("e.g.", "U.S.").  They are drafts: the phrasing is
the skill author's, not a user's, so ``skillsift init`` writes them tagged ``draft`` with a comment
asking for review (docs/init.md, "The draft cases").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...checks.frontmatter import trigger_passages

PER_SKILL = 3  # drafts kept per skill
MIN_WORDS, MAX_WORDS = 3, 30
MAX_QUERY_CHARS = 300

_ITEM = re.compile(r"(?:^|\s)(?:[-*+]|\d{1,2}[.)])\s+(?:\[[ xX]\]\s+)?")
#: A lead-in: who should use the skill and when, before what the skill is for.
_LEAD = re.compile(
    r"^\W*(?:(?:you|claude|agents?)\s+(?:must|should|can|may)\s+(?:always\s+)?)?"
    r"(?:(?:this|the) skill\s+(?:should|must|can|may)\s+(?:also\s+)?be\s+(?:used|invoked|applied|triggered|"
    r"loaded|activated)|(?:use|apply|invoke|load|activate|trigger)(?:\s+(?:this skill|the skill|this|it|me))?)"
    r"(?:\s+(?:proactively|always|only|automatically|also))?"
    r"\s+(?:when(?:ever)?|for|before|after|if|to|during|while)\b[,:]?\s*", re.IGNORECASE)
#: What a lead-in may still carry after its conjunction ("... when the user asks to").
_LEAD_REST = re.compile(r"^(?:(?:the )?(?:user|users|you|someone|claude)\s+(?:asks?|wants?|needs?|requests?)"
                        r"(?:\s+(?:to|for|about))?|(?:working|dealing)\s+with|any of the following|:)\W*$",
                        re.IGNORECASE)
#: A list's lead-in at the end of a passage ("in scenarios such as:").
_LIST_TAIL = re.compile(r"(?:,?\s+(?:in\s+(?:scenarios|cases|situations)\s+)?(?:such as|including|like|"
                        r"for example|e\.g\.?)\s*:?|\s*:)\s*$", re.IGNORECASE)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_NEGATIVE = re.compile(r"^\W*(?:do not|don't|never|not for|avoid)\b", re.IGNORECASE)
#: Words a period follows without ending the sentence (lower case, without their last period).
ABBREVIATIONS = frozenset({
    "e.g", "i.e", "etc", "vs", "cf", "al", "approx", "incl", "esp", "fig", "no", "nos", "dr", "mr", "mrs", "ms",
    "st", "jr", "sr", "inc", "ltd", "co", "corp", "dept", "est", "min", "max", "avg", "ref", "vol", "ver", "v",
})
_INITIALS = re.compile(r"(?:[a-z]\.)+[a-z]|[a-z]")  # U.S, a.k.a, a single initial
_SENTENCE_END = re.compile(r"[.!?]+(?=[\s\"')\]]|$)")
_CLAUSE = re.compile(r"\s*(?:;|:|\s[-\u2013\u2014]\s|\u2014)\s*")


@dataclass(frozen=True)
class Draft:
    """One draft case: ``query`` should find ``skill``; ``source`` says where it was read (path:line)."""

    skill: str
    query: str
    source: str
    path: str = ""  # the SKILL.md it was drafted from


def clean(text: str) -> str:
    """Markdown emphasis, code marks and links removed, blanks collapsed, closing punctuation dropped."""
    text = _LINK.sub(r"\1", text)
    for mark in ("**", "__", "`"):
        text = text.replace(mark, "")
    text = " ".join(text.split()).strip(" *_")
    return text.rstrip(":.;,!?").strip()


def _keep(text: str) -> bool:
    words = len(text.split())
    return MIN_WORDS <= words <= MAX_WORDS and len(text) <= MAX_QUERY_CHARS and not _NEGATIVE.match(text)


def sentences(text: str) -> list[str]:
    """``text`` split into sentences: a period after an abbreviation ("e.g.", "U.S.") or before a
    lower-case word ends none."""
    out: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        if match.group() == ".":
            before = text[start:match.start()].split()
            token = before[-1].lower().lstrip("(\"'") if before else ""
            following = text[match.end():].lstrip(" \"')]")[:1]
            if token in ABBREVIATIONS or _INITIALS.fullmatch(token) or following.islower():
                continue
        piece = text[start:match.end()].strip()
        if piece:
            out.append(piece)
        start = match.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def without_lead_in(text: str) -> str:
    """``text`` without a lead-in in front ("This skill should be used when") nor a list's lead-in at its
    end ("such as:"); "" when nothing but a lead-in is left."""
    text = text.strip()
    lead = _LEAD.match(text)
    if lead:
        text = text[lead.end():]
    text = _LIST_TAIL.sub("", text).strip()
    return "" if not text or _LEAD_REST.match(text) else text


def clip(text: str) -> str:
    """At most MAX_WORDS words: cut after the last comma that keeps MIN_WORDS, else after MAX_WORDS words."""
    words = text.split()
    if len(words) <= MAX_WORDS:
        return text
    head = " ".join(words[:MAX_WORDS])
    comma = head.rfind(",")
    if comma > 0 and len(head[:comma].split()) >= MIN_WORDS:
        return head[:comma]
    return head


def passage_items(passage: str) -> list[str]:
    """A passage split into its list items (one item when it is no list)."""
    pieces = [piece for piece in _ITEM.split(passage) if piece.strip()]
    return pieces or [passage]


def first_clause(description: str) -> str:
    """The description's first clause (its first sentence, cut at ``;``, ``:`` or a dash), lead-in removed."""
    for sentence in sentences(" ".join((description or "").split())):
        text = without_lead_in(sentence)
        if not text:
            continue
        parts = [part for part in _CLAUSE.split(text) if part.strip()]
        head = parts[0] if parts and len(parts[0].split()) >= MIN_WORDS else text
        return clip(clean(head))
    return ""


def name_query(name: str) -> str:
    """The skill's name as words (``pdf-to-text`` -> ``pdf to text``)."""
    return " ".join(re.split(r"[-_.\s]+", name)).strip()


def skill_drafts(name: str, description: str, body: str, body_line: int, path: str) -> list[Draft]:
    """At most PER_SKILL drafts for one skill, in document order (description first), no two alike;
    at least one (the description's first clause, else the name)."""

    found: list[tuple[str, int]] = []
    for sentence in sentences(" ".join((description or "").split())):
        if _LEAD.match(sentence):
            found.append((sentence, 0))
    for line_no, _line, passage in trigger_passages((body or "").split("\n"), body_line):
        found += [(item, line_no) for item in passage_items(passage)]
    out: list[Draft] = []
    seen: set[str] = set()
    for text, line_no in found:
        query = clip(clean(without_lead_in(clean(text))))
        key = query.lower()
        if not _keep(query) or key in seen:
            continue
        seen.add(key)
        where = f"{path}:{line_no}" if line_no else f"{path} (description)"
        out.append(Draft(skill=name, query=query, source=where, path=path))
        if len(out) == PER_SKILL:
            break
    if not out:
        out.append(fallback_draft(name, description, path))
    return out


def fallback_draft(name: str, description: str, path: str) -> Draft:
    """The draft of a skill that says nothing about when to use it: its description's first clause, or its name."""
    clause = first_clause(description)
    if _keep(clause):
        return Draft(skill=name, query=clause, source=f"{path} (description)", path=path)
    return Draft(skill=name, query=name_query(name) or name, source=f"{path} (name)", path=path)


def unique_queries(drafts: list[Draft]) -> list[Draft]:
    """The drafts whose query no other skill's draft repeats (a query two skills claim tests nothing); a skill
    left with none keeps one drafted from its name."""
    owners: dict[str, set[str]] = {}
    for draft in drafts:
        owners.setdefault(draft.query.lower(), set()).add(draft.skill)
    kept: dict[str, list[Draft]] = {}
    for draft in drafts:
        kept.setdefault(draft.skill, [])
        if len(owners[draft.query.lower()]) == 1:
            kept[draft.skill].append(draft)
    out: list[Draft] = []
    for skill, own in kept.items():
        if not own:
            first = next(draft for draft in drafts if draft.skill == skill)
            own = [Draft(skill=skill, query=name_query(skill) or skill, source=f"{first.path} (name)", path=first.path)]
        out += own
    return out
