"""The SKILL.md files a file-level check reads: those among the paths that parse to a mapping.

Shared by the checks of :mod:`.agent_fields`, :mod:`.yaml_checks`, :mod:`.body`,
:mod:`.paths` and :mod:`.security`; each gets a :class:`Parsed` per file, from the
workspace's one read and one parse of it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from functools import lru_cache

from ..bytesets import SetGate, byte_set
from ..cache import regexes
from ..diagnostics import Diagnostic
from ..records import record
from .workspace import Workspace


@record(frozen=True)
class Parsed:
    """One SKILL.md: its path, LF text, frontmatter mapping, raw YAML and its first line,
    body and its first line, and the file line of each top-level key."""

    path: str
    text: str
    front: dict
    raw: str
    raw_line: int
    body: str
    body_line: int
    lines: dict

    def line(self, key: str) -> int:
        return self.lines.get(key, 1)

    @property
    def folder(self) -> str:
        return self.path.rsplit("/", 1)[0] if "/" in self.path else "."


def parsed_skills(ws, paths):
    """A :class:`Parsed` for each SKILL.md among ``paths`` that exists and parses to a mapping
    (built once per workspace and file: every check module of a run shares them)."""
    memo = ws.__dict__.setdefault("_parsed_views", {})
    for rel in paths:
        if rel in memo:
            if memo[rel] is not None:
                yield memo[rel]
            continue
        memo[rel] = None
        if rel.rsplit("/", 1)[-1] != "SKILL.md" or not ws.is_file(rel):
            continue
        skill, problems = ws.parsed(rel)
        split = ws.split_text(rel)
        if skill is None or problems or split is None:
            continue
        lf, block, lines = split
        if not block.closed or not isinstance(skill.frontmatter, dict):
            continue
        memo[rel] = Parsed(path=rel, text=lf, front=skill.frontmatter, raw=block.raw, raw_line=block.yaml_start_line,
                           body=block.body, body_line=block.body_line, lines=lines)
        yield memo[rel]


# What :func:`memoised` keeps within :func:`shared_views`: (what, id of the text) -> (the text, the value).
_memo: dict | None = None


@contextmanager
def shared_views():
    """Within it, what :func:`memoised` computes of a text is computed once for every check module
    (the runner opens it around a run); after it, forgotten.

    The body check, the spec check and SK307 each read a body's fence lines, and SK008 and the
    security checks its lowered text: the same text object (a parsed view's body), the same value.
    """
    global _memo
    outer = _memo
    if outer is None:
        _memo = {}
    try:
        yield
    finally:
        if outer is None:
            _memo = None


def memoised(what: str, text: str, compute: Callable[[str], object]):
    """``compute(text)``, remembered by the identity of ``text`` within :func:`shared_views` (the memo
    holds the text, so its id is never another's while kept); outside it, computed each time.
    ``compute`` must be a pure function of the text, and its value is shared: never changed."""
    memo = _memo
    if memo is None:
        return compute(text)
    key = (what, id(text))
    kept = memo.get(key)
    if kept is not None and kept[0] is text:
        return kept[1]
    value = compute(text)
    memo[key] = (text, value)
    return value


#: The marks the body checks look for before they read a line: links (``](``, ``]:``), fences (and an
#: indented one's `` ```` ``), SK303's ``TODO``, SK304's ``$``, SK305's ``!```, the script folders SK315
#: reads, the ``Users`` of a home folder (SK311, SK324) and a Linux one's ``/home/`` (SK324), what a prompt
#: for typed input starts with (SK322: ``read``, blanks and an option, ``Read-Host``), the two characters
#: whose lowercase holds an ASCII letter (the security checks), and the two others that IGNORECASE matches
#: to an ASCII letter (SK008, :data:`FOLDING`: the long s and the dotless i).
MARKS = ("](", "]:", "```", " ```", "~~~", "TODO", "$", "!`", "scripts/", "bin/", "tools/", "Users", "\u0130",
         "\u212a", "read -", "read  ", "read \t", "read\t", "ead-Host", "ead-host", "/home/", "\u017f", "\u0131")
#: The words the security checks look for in a lowercased body (their ``_WORDS``: SK401's phrases, the
#: commands of SK402 and SK403, what SK402's PowerShell pipes into), read by the same RE2 set pass in any case
#: (see :func:`caseless_words`).
WORDS = ("ignore", "disregard", "forget", "override", "the user", "you are now", "system prompt", "instruction",
         "prompt", "rules", "messages", "tell the user", "inform the user", "alert the user", "notify the user",
         "telling the user", "informing the user", "notifying the user", "alerting the user", "curl", "wget", "iwr",
         "irm", "invoke-", "npx", "dlx", "bunx", "pipx", "uvx", "iex", "invoke-expression")
_WORD_SET = frozenset(WORDS)
#: SK008's trigger words (:mod:`skillsift.checks.frontmatter`), each letter matched as IGNORECASE matches it:
#: its two cases and the characters of :data:`FOLDING`; read by the same RE2 set pass (see :func:`trigger_words`).
#: "when" is looked for in the phrases that hold it, not alone (most bodies hold it in prose).
TRIGGER_WORDS = ("use when", "when to ", "when should ", "when this skill", "trigger", "activation", "use this skill",
                 "use it ")
#: Every character IGNORECASE matches to an ASCII letter besides its two cases (each is a mark): the dotted
#: capital I and the dotless i, the Kelvin sign, the long s.
FOLDING = {"i": "\u0130\u0131", "k": "\u212a", "s": "\u017f"}
#: The substring tests serve the first 64 KiB of marks a process looks for, one RE2 set pass per text after
#: that (:mod:`skillsift.bytesets`): a hook over a few small files does not import RE2.
MARK_SETS = SetGate()


class _Substrings:
    """``mark in held``: a substring test of the text, when it is asked (the first 64 KiB)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __contains__(self, mark: str) -> bool:
        return mark in self.text


def marks(text: str):
    """Which of :data:`MARKS` ``text`` holds, as a container (``"TODO" in marks(body)``); found once per
    text within :func:`shared_views`.

    Past the first 64 KiB, one RE2 set pass over the text's UTF-8 bytes (:func:`utf8`, which the
    security checks read too) answers for every mark at once, where each substring test is a pass
    of its own (a body that holds none of a dozen marks was read a dozen times): a string is in a
    text exactly when its UTF-8 bytes are in the text's (the encoding is self-synchronising).
    """
    return memoised("marks", text, _marks)


def _marks(text: str):
    if not MARK_SETS.count(len(text)):
        return _Substrings(text)
    return frozenset(_ENTRIES[n] for n in _mark_set().Match(utf8(text)) or ())


def marks_by_set(text: str) -> bool:
    """Whether ``text``'s marks were read by the RE2 set (past the first 64 KiB): then its UTF-8 bytes
    (:func:`utf8`) are made, and a check may read them instead of a lowered copy of the text."""
    return isinstance(marks(text), frozenset)


def caseless_words(text: str) -> frozenset[str] | None:
    """The :data:`WORDS` that ``text`` holds in any case of their ASCII letters, when its marks were read by
    the RE2 set (past the first 64 KiB; None before).

    ``text.lower()`` holds the same words unless ``text`` holds a dotted capital I or a Kelvin sign,
    the two characters whose lowercase holds an ASCII letter (both are marks): a word's letters are
    ASCII, so in the lowercased text each comes from that letter in either case, and its other
    characters from themselves.
    """
    return marks(text) & _WORD_SET if marks_by_set(text) else None


def trigger_words(text: str) -> tuple[list[str], bool] | None:
    """The :data:`TRIGGER_WORDS` that ``text`` holds (in their order), each letter in a case IGNORECASE
    matches it with, and whether it holds a character of :data:`FOLDING`, when its marks were read by
    the RE2 set (past the first 64 KiB; None before)."""
    if not marks_by_set(text):
        return None
    held = marks(text)
    return [word for word in TRIGGER_WORDS if word in held], any(c in held for c in _FOLDED_CHARACTERS)


_FOLDED_CHARACTERS = "".join(FOLDING.values())
_ENTRIES = MARKS + WORDS + TRIGGER_WORDS


@lru_cache(maxsize=1)
def _mark_set():
    """:data:`MARKS`, :data:`WORDS` and :data:`TRIGGER_WORDS` compiled into one RE2 set over UTF-8 bytes,
    entry ``n`` being ``_ENTRIES[n]``: a mark as it is written, a word with each letter in either case, a
    trigger word with each letter as IGNORECASE matches it.  (SK008 read its words in a set pass of its own
    over the bodies it reads: about 110M instructions on the corpus of real skills, where the larger set
    costs 2M more than this one without them.)

    (Measured on the corpus of real skills: reading the marks in the same pass as the secret scanner's
    first needle set, over the whole SKILL.md it encodes anyway, takes 160M fewer instructions of a
    cold validate's 8.3G but no less time, as the larger automaton misses the caches more; handing the
    body checks the end of those bytes instead of encoding the body again, 40M fewer and no time
    measurably saved.  Both were left out for the coupling they cost.)"""
    import re

    def folded(c: str) -> bytes:  # a letter as IGNORECASE matches it, in its UTF-8 forms
        if not c.isalpha():
            return re.escape(c).encode("ascii")
        return b"(?:" + b"|".join(x.encode("utf-8") for x in c + c.upper() + FOLDING.get(c, "")) + b")"

    return byte_set([re.escape(mark.encode("utf-8")) for mark in MARKS]
                    + ["".join(f"[{c}{c.upper()}]" if c.isalpha() else re.escape(c) for c in word).encode("ascii")
                       for word in WORDS]
                    + [b"".join(map(folded, word)) for word in TRIGGER_WORDS])


def utf8(text: str) -> bytes:
    """The UTF-8 bytes of ``text`` (lone surrogates passed through), encoded once per text within
    :func:`shared_views`."""
    return memoised("utf-8", text, _utf8)


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


# A fence line, ``^ {0,3}(`{3,}|~{3,})([^\n]*)`` with MULTILINE: at the text's start, or after a newline.
_FENCE_HEAD = regexes.compile(r" {0,3}(`{3,}|~{3,})([^\n]*)")
_FENCE_LINE = regexes.compile(r"\n {0,3}(`{3,}|~{3,})([^\n]*)")
# The same in a text holding no "~~~" and no " ```" (1,770 of the corpus's 1,892 fenced bodies): a fence
# line is then a run of backticks at a line's start, and "\n``" is searched for as a whole (the engine is
# entered at a line break followed by two backticks, not at every line break).
_BACKTICK_HEAD = regexes.compile(r"(```+)([^\n]*)")
_BACKTICK_LINE = regexes.compile(r"\n(```+)([^\n]*)")


class FencedBlocks:
    """The fenced code of a text, by offsets: ``lines`` the offset of each fence line (``^ {0,3}(`{3,}|~{3,})``
    with MULTILINE), in order; ``opens`` and ``closes`` the offsets of the opening and the closing fence
    line of each block (a fence line closes the open block when it repeats the opening character at
    least as often and holds nothing else); a block left open closes past the text's end, ``unclosed``
    being the offset of its opening line (else None)."""

    __slots__ = ("lines", "opens", "closes", "unclosed")

    def __init__(self, lines: list[int], opens: list[int], closes: list[int], unclosed: int | None):
        self.lines, self.opens, self.closes, self.unclosed = lines, opens, closes, unclosed

    def code_at(self, start: int) -> bool:
        """Whether the line that starts at offset ``start`` lies inside a block (between its fence lines)."""
        k = bisect_left(self.opens, start) - 1
        return k >= 0 and start < self.closes[k]


_NO_BLOCKS = FencedBlocks([], [], [], None)


def fenced_blocks(text: str) -> FencedBlocks:
    """The :class:`FencedBlocks` of ``text`` (found once per text within :func:`shared_views`; shared,
    never changed): what the spec check's links (every fence line), the body checks (the blocks and an
    unclosed one) and SK307 read of a body's fences.

    Found by one regex pass over the text, so a body of many lines costs no Python loop per
    line: the first line's fence, then each ``\\n`` followed by one (a pattern that starts with
    a character is searched for it at C speed, where ``^`` with MULTILINE is tried at every
    position), and one Python step per fence line, which also pairs the blocks' fences.  Blocks
    are kept by offsets, so no line is counted unless a check reports on it.  (Searching each fence
    run with ``str.find`` instead, and matching only the lines where one starts, takes a quarter
    fewer instructions on the corpus but a fifth more time: a Python step per fence line costs more
    than the engine's try at each line break.)
    """
    return memoised("fenced blocks", text, _fenced_blocks)


def _fenced_blocks(text: str) -> FencedBlocks:
    held = marks(text)
    tildes = "~~~" in held
    if "```" not in held and not tildes:
        return _NO_BLOCKS
    first, then = (_FENCE_HEAD, _FENCE_LINE) if tildes or " ```" in held else (_BACKTICK_HEAD, _BACKTICK_LINE)
    head = first.match(text)  # a fence on the first line opens a block
    lines: list[int] = [0] if head else []
    opens: list[int] = []
    closes: list[int] = []
    opened, mark = (0, head.group(1)) if head else (-1, "")
    for match in then.finditer(text, head.end() if head else 0):
        start = match.start() + 1  # after the line break that leads the match
        lines.append(start)
        run, rest = match.groups()
        if opened < 0:
            opened, mark = start, run
        elif run[0] == mark[0] and len(run) >= len(mark) and (not rest or rest.isspace()):  # (not rest.strip())
            opens.append(opened)
            closes.append(start)
            opened = -1
    if opened < 0:
        return FencedBlocks(lines, opens, closes, None)
    opens.append(opened)
    closes.append(len(text) + 1)
    return FencedBlocks(lines, opens, closes, opened)


def located_lines_holding(text: str, needles) -> list[tuple[int, int, str]]:
    """(line number from 0, offset where the line starts, line) of each line of ``text`` holding one of
    ``needles`` (none holds a line break), in order: :func:`lines_holding` with each line's offset, which
    :meth:`FencedBlocks.code_at` reads."""
    out = []
    rfind = text.rfind
    for number, end in _numbered_ends(text, needles):
        start = rfind("\n", 0, end) + 1
        out.append((number, start, text[start:end]))
    return out


def line_ends_holding(text: str | bytes, needles) -> list[tuple[int, int]]:
    """(line number from 0, offset where the line ends: its line break, or the text's end) of each line of
    ``text`` holding one of ``needles`` (none holds a line break), in order: :func:`line_numbers_holding`
    with each line's end, from which a reader slices only the lines it reads.  ``text`` may be bytes."""
    return _numbered_ends(text, needles)


def line_numbers_holding(text: str | bytes, needles) -> list[int]:
    """The number (from 0) of each line of ``text`` holding one of ``needles`` (none holds a line break),
    in order: each needle found with ``str.find``, the rest of a line skipped after a hit, so the lines
    holding none of them cost no Python step.  ``text`` may be bytes (``needles`` then are too)."""
    return [number for number, _end in _numbered_ends(text, needles)]


def lines_holding(text: str, needles) -> list[tuple[int, str]]:
    """(line number from 0, line) of each line of ``text`` holding one of ``needles`` (none holds a line
    break), in order: found with ``str.find``, each line read once, the others never visited."""
    rfind = text.rfind
    return [(number, text[rfind("\n", 0, end) + 1:end]) for number, end in _numbered_ends(text, needles)]


def _numbered_ends(text, needles) -> list[tuple[int, int]]:
    """(line number from 0, offset where the line ends: its line break, or the text's end) of each line of
    ``text`` (a text, or bytes) holding one of ``needles``, in order.  A line is known by its end, which the
    search for the next hit needs anyway (its start is looked for only for a line that is read)."""
    ends: set[int] = set()
    find = text.find
    newline = b"\n" if isinstance(text, bytes) else "\n"
    for needle in needles:
        at = find(needle)
        while at >= 0:
            end = find(newline, at)
            if end < 0:
                ends.add(len(text))
                break
            ends.add(end)
            at = find(needle, end + 1)
    out = []
    number, counted = 0, 0
    for end in sorted(ends):
        number += text.count(newline, counted, end)
        counted = end
        out.append((number, end))
    return out


def _fenced(body: str):
    """(offset in the body, line number from 0, line, inside fenced code) of every line but the fences."""
    in_code = False
    fence = ""
    offset = 0
    for number, line in enumerate(body.split("\n")):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")) and len(line) - len(stripped) <= 3:
            mark = stripped[:3]
            if not in_code:
                in_code, fence = True, mark
            elif mark == fence:
                in_code = False
        else:
            yield offset, number, line, in_code
        offset += len(line) + 1


def outside_code(body: str):
    """(offset in the body, line number from 0, line) of every body line outside fenced code."""
    return ((offset, number, line) for offset, number, line, in_code in _fenced(body) if not in_code)


def per_skill(check_one: Callable[[Parsed], Iterable[Diagnostic]]):
    """The ``run`` and ``run_paths`` of a check module whose check reads one parsed SKILL.md at a time
    (:mod:`.contract`): ``run, run_paths = per_skill(check_one)``."""

    def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
        out: list[Diagnostic] = []
        for parsed in parsed_skills(ws, paths):
            out.extend(check_one(parsed))
        return out

    def run(ws: Workspace) -> list[Diagnostic]:
        return run_paths(ws, ws.skill_paths)

    return run, run_paths
