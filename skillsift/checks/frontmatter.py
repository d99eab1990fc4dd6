"""SK001, SK004-SK008: one SKILL.md on its own.

Pure functions over the file's text; :func:`run` feeds them from the workspace.

Longer than 450 lines because SK008's search for trigger passages reads a body in its lowered text or
in its UTF-8 bytes after one RE2 set pass, each with the argument that it finds the lines the
IGNORECASE regexes find (the characters that fold to the words' letters): split apart, the folds and
the code relying on them would drift.
"""

from __future__ import annotations

import re

from ..cache import regexes
from ..cache.base import sha256
from ..catalog import frontmatter as catalog_frontmatter
from ..catalog.agents import BY_NAME, serves
from ..catalog.frontmatter import key_lines as key_lines
from ..catalog.load import parse_skill
from ..config.checks import check
from ..diagnostics import ERROR, WARNING, Diagnostic
from ..validators.parsed import (
    FOLDING,
    TRIGGER_WORDS,
    Parsed,
    line_ends_holding,
    line_numbers_holding,
    marks,
    memoised,
    trigger_words,
    utf8,
)
from ..validators.text_cache import active, cached, known_digest, save
from ..validators.workspace import Workspace, posix_name, posix_parent

check("SK001", "frontmatter-invalid", ERROR,
      summary="the file is UTF-8 and its frontmatter block is closed and parses to a mapping",
      details="The file is not UTF-8, or its frontmatter is unclosed, not YAML or not a mapping (found by the "
              "catalog parser, reported here with file and line).")
MISSING = check("SK004", "frontmatter-missing", ERROR, summary="SKILL.md starts with a --- frontmatter block",
                details="There is no frontmatter block at all.")
NO_NAME = check("SK005", "name-missing", WARNING,
                summary="the frontmatter sets a name (else agents fall back to the folder name)",
                details="The frontmatter has no usable ``name`` (agents fall back to the folder name).")
NO_DESCRIPTION = check("SK006", "description-missing", ERROR,
                       summary="the frontmatter sets a description (agents choose skills by it)",
                       details="The frontmatter has no usable ``description`` (agents choose skills by it).")
TOO_LONG = check("SK007", "description-too-long", WARNING, triggers=("skill", "config"),
                 summary="the description fits every configured agent's listing limit, so no agent cuts it",
                 details="The description is longer than an agent keeps in its skill listing, so its end is cut.")
TRIGGER_IN_BODY = check("SK008", "trigger-only-in-body", WARNING,
                        summary="trigger phrases (\"Use when ...\", \"Triggers: ...\") in the body also appear in the "
                                "description",
                        details="The body says when to use the skill (\"Use when ...\", \"Triggers: ...\", a \"When to "
                                "use\" section) but the description does not: agents choose from the description and"
                                " never see the body before choosing.")
#: Share of a trigger passage's terms the description must hold for SK008 to stay quiet.
TRIGGER_COVERAGE = 0.5
_SECTION_LINES = 15

# A line's leading blanks are skipped before matching (``_inline``) and every other blank run
# is one ``\s*`` with no second one beside it to share it with, so a line of 100,000 spaces
# before "use" is read in linear time (possessive quantifiers would say the same, but need
# Python 3.11).
_LEAD = r"(?:[-*+](?=\s)|\d+[.)](?=\s)|>)?\s*(?:(?:\*\*|__|\*|_)\s*)?"
_INLINE = regexes.compile(
    _LEAD + r"(use (?:this skill|it) (?:when|whenever|if|for)\b|use when(?:ever)?\b|"
    r"triggers?(?: phrases?| words?)?\s*(?:(?:\*\*|__)\s*)?:|when to use(?: this skill)?\s*(?:(?:\*\*|__)\s*)?:)",
    re.IGNORECASE,
)
# A heading's start; its title is the rest without trailing blanks and closing #s, taken
# in Python (a lazy title before ``\s*#*\s*$`` took cubic time on a line of spaces).
_HEADING = regexes.compile(r"^\s{0,3}#{1,6}\s+")
_TRIGGER_HEADING = regexes.compile(
    r"^(?:when (?:to|should (?:i|you)) (?:use|invoke|activate|apply)(?: (?:this|the) (?:skill|workflow)| it| me)?|"
    r"use (?:this skill )?when|triggers|trigger (?:phrases|words|conditions)|activation(?: triggers)?|"
    r"when this skill (?:applies|activates|triggers))\s*:?$",
    re.IGNORECASE,
)
# A description that already says when to use the skill.
_WHEN_CLAUSE = regexes.compile(
    # "Use when", "Use this skill for", and with an adverb: "Use proactively when", "Use PROACTIVELY for"
    r"\b(?:use (?:this skill |it |this )?(?:[a-z]+ly )?(?:when|whenever|for|if|to|on|after|before)|"
    r"when (?:the )?(?:user|you|asked)|"
    r"triggers?|trigger (?:on|when)|invoke (?:when|for)|applies when|use cases?|activate[sd]? (?:when|on|for))\b",
    re.IGNORECASE,
)
# What every clause :data:`_WHEN_CLAUSE` finds starts with, in the lowered text (its alternatives'
# first words), so a description without any (most of those that say no "when") is not searched.
_WHEN_WORDS = ("use ", "when ", "trigger", "invoke ", "applies when", "activate")
_FENCE = regexes.compile(r"^\s{0,3}(```|~~~)")
# What a line needs to matter to :func:`trigger_passages`: a fence run, or a word that every
# trigger heading's title (:data:`_TRIGGER_HEADING`) or inline marker (:data:`_INLINE`) holds:
# "use when", "when to ", "when should ", "when this skill" (each alternative holding "when" holds
# one, its blanks written as spaces), "trigger", "activation", "use this skill" or "use it ".  A
# heading without one is no trigger heading and no marker, so "#" alone is not looked for, nor "use"
# or "when" alone (in most lines of prose: a body holding "when" in none of the phrases is done
# without reading a line, and the fences after its last trigger line are never visited).  Lines
# without any are never visited.  Each is
# looked for with ``str.find`` in the lower-cased text (a regex of them all, or with IGNORECASE,
# tries most positions: "a" and "t" open two of them); the case folding of IGNORECASE is kept by
# :data:`_FOLDS` (see :func:`_lowered`).
_FENCE_RUNS = ("```", "~~~")
_TRIGGER_WORDS = TRIGGER_WORDS  # (kept beside the marks, whose RE2 set pass reads them)
# The characters that IGNORECASE matches to a letter of those words and that ``str.lower``
# does not lower to it: the long s and the dotless i (its case equivalences), and the dotted
# capital I (which the engine lowers to "i" and ``str.lower`` to "i" and a combining dot).
_FOLDS = (("\u017f", "s"), ("\u0131", "i"), ("\u0130", "i"))
# Every character IGNORECASE matches to a letter of those words besides its two cases: those of
# :data:`_FOLDS` and the Kelvin sign (which ``str.lower`` lowers to "k").
_ODD = FOLDING  # (kept beside the marks, which hold each of them)


def text_key_lines(text: str) -> dict[str, int]:
    """File line of each top-level frontmatter key of a SKILL.md text ({} without frontmatter)."""
    block = catalog_frontmatter.split_frontmatter(text.replace("\r\n", "\n"))
    return key_lines(block.raw, block.yaml_start_line) if block.present else {}


def value_kind(value) -> str:
    """What a frontmatter value is, in words for a message ("a list", "empty", "blank", ...)."""
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if value is None:
        return "empty"
    if isinstance(value, str):
        return "a string" if value.strip() else "blank"
    return type(value).__name__


def entry_text(front: dict, fields=("description",)) -> str:
    """The listing text an agent builds from ``fields`` (trimmed strings joined by a space)."""
    parts = [p.strip() for p in map(front.get, fields) if isinstance(p, str)]
    # (one string, most often the description alone: itself, trimmed, even when it is blank)
    return parts[0] if len(parts) == 1 else " ".join(p for p in parts if p)


#: Every field an agent's listing entry reads (:func:`entry_text`; an agent without a profile reads the description).
_ENTRY_FIELDS = tuple(sorted({"description"}.union(*(profile.entry_fields for profile in BY_NAME.values()))))


def _under_every_limit(front: dict, limits: dict) -> bool:
    """Whether no listing entry can be over a limit set: none is longer than the strings of every field an
    entry may read, a space between each (most skills are far under the shortest limit)."""
    shortest = min((limit for limit in limits.values() if limit), default=0)
    strings = [value for value in map(front.get, _ENTRY_FIELDS) if isinstance(value, str)]
    return not shortest or sum(map(len, strings)) + len(strings) - 1 <= shortest


def entry_limit_problems(path: str, line: int, front: dict, limits: dict, plugin: str = "") -> list[Diagnostic]:
    """SK007, one per agent whose limit the skill's listing entry exceeds.

    A profiled agent measures its own entry (Claude Code: description plus ``when_to_use``)
    and says what it does past the limit (cut, or not loaded for Codex), and only counts when
    it reads the skill's folder; any other name in ``limits`` cuts the trimmed description.
    """

    if _under_every_limit(front, limits):
        return []
    texts: dict[tuple[str, ...], str] = {}  # fields -> their entry text (most agents read the description alone)
    over = []
    for agent, limit in sorted(limits.items()):
        if not limit:
            continue
        profile = BY_NAME.get(agent)
        fields = profile.entry_fields if profile is not None else ("description",)
        text = texts.get(fields)
        if text is None:
            text = texts[fields] = entry_text(front, fields)
        if len(text) > limit:
            over.append((agent, limit, profile, fields, text))
    if not over:
        return []
    out = []
    # An agent that does not read the skill's folder never lists it; when none of the
    # targeted agents does (a configured path), every one is checked (asked only of an entry over a limit).
    readers = {a for a in limits if a in BY_NAME and serves(BY_NAME[a], path, plugin)}
    for agent, limit, profile, fields, text in over:
        if readers and profile is not None and agent not in readers:
            continue
        what = "description" if fields == ("description",) or not front.get("when_to_use") else (
            "description + when_to_use")
        verb = "are" if "+" in what else "is"
        if profile is not None and profile.description_max == limit and profile.entry_cap is None:
            message = (f"{what} {verb} {len(text)} characters; {agent} does not load a skill whose description "
                       f"is over {limit}")
            hint = f"cut the description by {len(text) - limit} characters, or {agent} never sees the skill"
        else:
            cut = " ".join(text[limit:].split())
            cut = cut if len(cut) <= 50 else cut[:49] + "…"
            message = f'{what} {verb} {len(text)} characters; {agent} keeps only the first {limit}, so "{cut}" is cut'
            hint = (f"cut {len(text) - limit} characters (what it does, then when to use it); move details into "
                    "the body")
        out.append(TOO_LONG.report(file=path, line=line, message=message, hint=hint))
    return out


def _is_fence(line: str) -> bool:
    return ("```" in line or "~~~" in line) and _FENCE.match(line) is not None


def _heading(line: str) -> str | None:
    """The title of a markdown ATX heading line (closing #s removed), else None."""
    match = _HEADING.match(line) if "#" in line else None
    if match is None:
        return None
    return line[match.end():].rstrip().rstrip("#").rstrip()


def _inline(line: str):
    """:data:`_INLINE`'s match; an ASCII line without "use" or "trigger" cannot match (every marker holds one)."""
    if line.isascii():
        lowered = line.lower()
        if "use" not in lowered and "trigger" not in lowered:
            return None
    return _INLINE.match(line, len(line) - len(line.lstrip()))


def _lowered(lines: list[str] | None, text: str | None) -> str:
    """The lines joined by line feeds (``text`` when given) lowered as the line regexes fold case.

    :data:`_FOLDS` are made plain first, then the text is lowered: lowering never adds or removes a
    line break, so the line numbers of the lowered text are those of ``lines``.  A body's lowered
    text is the one the security checks read, computed once
    (:func:`~skillsift.validators.parsed.memoised`).
    """
    joined = "\n".join(lines or ()) if text is None else text
    folded = _folded(joined)
    return memoised("lowered", joined, str.lower) if folded is joined else folded.lower()


def _folded(text: str) -> str:
    """``text`` with the characters of :data:`_FOLDS` made plain (``text`` itself when it holds none)."""
    if not text.isascii():
        for odd, plain in _FOLDS:
            if odd in text:
                text = text.replace(odd, plain)
    return text


def _says_when(description: str) -> bool:
    """Whether :data:`_WHEN_CLAUSE` finds a clause in ``description``: never when its text lowered as the
    regex folds case (:data:`_FOLDS`) holds none of :data:`_WHEN_WORDS`.

    In an ASCII description, the lowered text's characters are at the description's offsets, and a clause
    starts where one of those words does (each alternative of the regex starts with one): the regex is
    tried there alone (``\\b`` reads the character before), not at every character as a search does.
    """
    lowered = _folded(description).lower()
    if not any(word in lowered for word in _WHEN_WORDS):
        return False
    if not description.isascii():
        return _WHEN_CLAUSE.search(description) is not None
    match = _WHEN_CLAUSE.match
    for word in _WHEN_WORDS:
        at = lowered.find(word)
        while at >= 0:
            if match(description, at):
                return True
            at = lowered.find(word, at + 1)
    return False


def trigger_passages(lines: list[str], first_line: int, text: str | None = None) -> list[tuple[int, str, str]]:
    """(file line, the line as written, the passage text) of each place the body says when to use it.

    ``lines`` are the body lines, the first at file line ``first_line``.  Fenced code is
    skipped.  A trigger heading's passage is the text under it, up to the next heading
    (at most 15 lines); an inline marker's passage is the rest of its line.  Each regex
    runs only on lines holding the characters it needs (a fence, a word of a trigger heading or
    marker), and only those lines are visited (:func:`_trigger_lines`).  ``text``: the lines
    joined by line feeds, when the caller has it.
    """
    candidates = _trigger_lines(_lowered(lines, text))
    return _passages(lines, first_line, candidates) if candidates else []


def body_trigger_passages(body: str, first_line: int) -> list[tuple[int, str, str]]:
    """:func:`trigger_passages` of a body's text, read only when it holds a trigger word: in its UTF-8
    bytes, where only the lines a passage reads are decoded (:class:`_LinesOfBytes`), else split into lines."""
    ends = _body_trigger_ends(body)
    if ends is None:
        candidates = _trigger_lines(_lowered(None, body))
        return _passages(body.split("\n"), first_line, candidates) if candidates else []
    return _passages(_LinesOfBytes(utf8(body), ends), first_line, [n for n, _end in ends]) if ends else []


def _body_trigger_ends(body: str) -> list[tuple[int, int]] | None:
    """(number, end offset in the UTF-8 bytes) of each line of :func:`_trigger_lines` of a body, read in its
    UTF-8 bytes when its marks were read by the RE2 set (past the first 64 KiB,
    :func:`~skillsift.validators.parsed.marks`): no lowered copy of the text.  None when the body is to be
    read as text.

    The marks' one RE2 set pass over the bytes (:func:`~skillsift.validators.parsed.utf8`, which the other
    body checks read too) says which words of :data:`_TRIGGER_WORDS` the body holds in any case, each letter
    matched as IGNORECASE matches it (:data:`_ODD`), and whether it holds a character of :data:`_ODD`
    (:func:`~skillsift.validators.parsed.trigger_words`): most bodies hold no word and are done.  Without
    such a character, the bytes with their ASCII letters lowered hold a word (or a fence run) on the lines
    where the lowered text holds it: every other character lowers to no ASCII character, and each byte of
    its UTF-8 form is 0x80 or above.  A body holding one is read as text.
    """
    found = trigger_words(body)
    if found is None or found[1]:
        return None
    words = [word.encode("ascii") for word in found[0]]
    if not words:
        return []
    held = marks(body)  # (a fence run the body does not hold is not looked for: most hold no "~~~")
    fences = [run.encode("ascii") for run in _FENCE_RUNS if run in held]
    return line_ends_holding(_up_to_the_last_word(utf8(body).lower(), words), (*fences, *words))


class _LinesOfBytes:
    """``lines.get(n)``: line ``n`` of UTF-8 bytes as text (None past the last), for :func:`_passages`, which
    reads the candidate lines (their ends given) and, after a trigger heading, the lines that follow it in
    order: only those are decoded (a line of the bytes is a line of the text: a line feed's byte is in no
    other character's UTF-8 form), and the lines are never counted."""

    __slots__ = ("data", "ends")

    def __init__(self, data: bytes, ends: list[tuple[int, int]]):
        self.data = data
        self.ends = dict(ends)  # line number -> offset of its end

    def get(self, number: int) -> str | None:
        data, ends = self.data, self.ends
        end = ends.get(number)
        if end is None:  # the line after one read before
            start = ends[number - 1] + 1
            if start > len(data):
                return None
            end = data.find(b"\n", start)
            end = ends[number] = len(data) if end < 0 else end
        return data[data.rfind(b"\n", 0, end) + 1:end].decode("utf-8", "surrogatepass")


def _trigger_lines(lowered: str) -> list[int]:
    """The numbers of the lines of ``lowered`` that can change a passage, in order.

    Those holding a fence run or a word of :data:`_TRIGGER_WORDS`, each found with ``str.find`` (the
    rest of a line skipped after a hit), so the lines holding none cost no Python step: they can only
    matter as a trigger section's text, which is read line by line.  None in a text without a word
    (fences alone say nothing), and no fence after the last line holding one (a fence only tells
    whether the lines after it are code; a trigger section reads its own lines).
    """
    words = [word for word in _TRIGGER_WORDS if word in lowered]
    return line_numbers_holding(_up_to_the_last_word(lowered, words), (*_FENCE_RUNS, *words)) if words else []


def _up_to_the_last_word(lowered, words):
    """``lowered`` (a text, or bytes) up to the end of the last line holding one of ``words`` (those it holds)."""
    last = max(map(lowered.rfind, words))
    end = lowered.find(b"\n" if isinstance(lowered, bytes) else "\n", last)
    return lowered if end < 0 else lowered[:end]


def _passages(lines: list[str] | _LinesOfBytes, first_line: int, candidates: list[int]) -> list[tuple[int, str, str]]:
    out = []
    in_code = False
    resume = 0  # the first line not yet consumed by a trigger section
    line_at = lines.get if isinstance(lines, _LinesOfBytes) else _listed(lines)
    for i in candidates:
        if i < resume:
            continue
        line = line_at(i) or ""  # (a candidate line is always there)
        if _is_fence(line):
            in_code = not in_code
            continue
        if in_code:
            continue
        heading = _heading(line)
        if heading is not None:
            title = heading.strip("*_ ").strip()
            if _TRIGGER_HEADING.match(title):
                passage: list[str] = []
                j = i + 1
                while len(passage) < _SECTION_LINES:
                    following = line_at(j)
                    if following is None or _heading(following) is not None or _is_fence(following):
                        break
                    if following.strip():
                        passage.append(following.strip())
                    j += 1
                if passage:
                    out.append((first_line + i, line, " ".join(passage)))
                resume = j
                continue
        inline = _inline(line)
        if inline:
            rest = line[inline.end():].strip(" *_:")
            if rest:
                out.append((first_line + i, line, rest))
    return out


def _listed(lines: list[str]):
    """``line_at(n)``: line ``n`` of ``lines``, None past the last (as :meth:`_LinesOfBytes.get`)."""
    return lambda number: lines[number] if number < len(lines) else None


def coverage(passage: str, description: str) -> float:
    """Share of the passage's terms (skillsift's tokenizer: stemmed, stopwords dropped) in the description."""
    return _coverages([passage], description)[0]


def _coverages(passages: list[str], description: str) -> list[float]:
    """:func:`coverage` of each passage, the description tokenized once (when a passage has a term)."""
    from ..ranker.tokenize import tokenize

    out = []
    described: set[str] | None = None
    for passage in passages:
        terms = set(tokenize(passage))
        if not terms:
            out.append(1.0)
            continue
        if described is None:
            described = set(tokenize(description))
        out.append(len(terms & described) / len(terms))
    return out


def _excerpt(line: str, width: int = 60) -> str:
    text = " ".join(line.strip().split())
    return text if len(text) <= width else text[: width - 1] + "…"


def check_skill_text(path: str, text: str, *, limits: dict, parsed=None, split=None,
                     plugin: str = "") -> list[Diagnostic]:
    """Every SK001/SK004-SK008 finding of one SKILL.md ``text`` (``path`` relative, ``/``).

    ``parsed`` is ``(skill, SK001 diagnostics)`` from the catalog parser when the caller
    already has it; the text is parsed otherwise.  ``split`` is ``(LF text, block, key
    lines)`` of ``text`` when the caller has it (:meth:`Workspace.split_text`).  ``plugin``: the
    plugin whose manifest names the skill's folder ("" none; docs/validate.md, "Plugin manifests").
    """
    if parsed is None:
        dir_id = posix_name(posix_parent(path)) or path
        parsed = parse_skill(text, dir_id, path=path)
    skill, parse_problems = parsed
    if parse_problems:
        return list(parse_problems)
    if split is None:
        block = catalog_frontmatter.split_frontmatter(text.replace("\r\n", "\n"))
        lines = key_lines(block.raw, block.yaml_start_line) if block.present else {}
    else:
        _lf, block, lines = split
    if not block.present:
        return [MISSING.report(file=path, line=1,
                           message="SKILL.md has no frontmatter: agents find skills by the name and description "
                                   "in a leading --- block",
                           hint="start the file with ---, name: <skill-name>, description: <what it does and "
                                "when to use it>, ---")]
    front = skill.frontmatter if skill is not None else {}
    fence_line = 1
    out: list[Diagnostic] = []
    name = front.get("name")
    folder = posix_name(posix_parent(path))
    if not (isinstance(name, str) and name.strip()):
        if "name" in front:
            message = f"name must be a non-empty string, not {value_kind(name)}"
        else:
            message = f'frontmatter has no name; agents fall back to the folder name "{folder}"'
        out.append(NO_NAME.report(file=path, line=lines.get("name", fence_line),
                              message=message, hint=f"add `name: {folder}` to the frontmatter"))
    description = front.get("description")
    if not (isinstance(description, str) and description.strip()):
        if "description" in front:
            message = f"description must be a non-empty string, not {value_kind(description)}"
        else:
            message = "frontmatter has no description; agents choose a skill by its description"
        out.append(NO_DESCRIPTION.report(file=path, line=lines.get("description", fence_line),
                              message=message,
                              hint="add `description: <what it does>. Use when <situations>.`"))
        return out
    out.extend(entry_limit_problems(path, lines.get("description", fence_line), front, limits, plugin))
    # A description that already says when to use the skill silences SK008: no passage is looked for.
    if block.closed and not _says_when(description):
        passages = body_trigger_passages(block.body, block.body_line)
        shares = _coverages([passage for _n, _line, passage in passages], description)
        for (line_no, line, _passage), share in zip(passages, shares, strict=True):
            if share < TRIGGER_COVERAGE:
                out.append(TRIGGER_IN_BODY.report(
                    file=path, line=line_no,
                    message=f'the body says when to use this skill ("{_excerpt(line)}") but the description '
                            "does not; agents choose skills from the description alone",
                    hint='add the situations to the description, e.g. "... Use when <situations>."'))
    return out


def run(ws: Workspace) -> list[Diagnostic]:
    return run_paths(ws, ws.skill_paths)


def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
    """:func:`run` limited to the SKILL.md files among ``paths`` (only those files are parsed).

    The findings of a file that parses depend on its text and the description limits alone,
    so they are kept in the text-check cache (:mod:`.text_cache`) keyed by both: an unchanged
    file costs no check on the next run.
    """
    limits = ws.settings.description_limits
    settings = sorted((str(k), v) for k, v in limits.items())
    # whether the findings are kept in the text-check cache (else no digest is made): asked at the first
    # file checked, so a run over no SKILL.md opens no cache
    keep: bool | None = None
    out: list[Diagnostic] = []
    for rel in paths:
        if posix_name(rel) != "SKILL.md" or not ws.exists(rel):
            continue
        text = ws.read_text(rel)
        skill, problems = ws.parsed(rel)
        if text is None or skill is None:
            out.extend(problems)
            continue
        split = ws.split_text(rel)

        plugin = ws.discovery.plugins.get(rel, "")

        if keep is None:
            keep = active(ws)
        if not keep:
            out.extend(check_skill_text(rel, text, limits=limits, parsed=(skill, problems), split=split, plugin=plugin))
            continue

        def compute(_p: Parsed, rel=rel, text=text, skill=skill, problems=problems, split=split,
                    plugin=plugin) -> list:
            return check_skill_text(rel, text, limits=limits, parsed=(skill, problems), split=split, plugin=plugin)

        # line endings matter too: the digest of the text as read (the skill's, when it was parsed from it)
        raw = known_digest(ws, rel, text) or sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        view = Parsed(path=rel, text=text, front={}, raw="", raw_line=0, body="", body_line=0, lines={})
        out.extend(cached(ws, "frontmatter", view, compute, extra=(raw, settings, plugin)))
    save(ws)
    return out
