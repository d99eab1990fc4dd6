"""SK301-SK306: the body of a SKILL.md, what an agent loads when it uses the skill.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from ..catalog.agents import CHARS_PER_TOKEN
from ..config.checks import check
from ..diagnostics import NOTE, WARNING, Diagnostic
from ..validators.parsed import fenced_blocks, located_lines_holding, marks, memoised
from ..validators.text_cache import run_cached
from ..validators.workspace import Workspace

TOO_LONG = check("SK301", "body-over-token-budget", NOTE,
                 summary="the body fits the ~5,000 tokens Claude Code keeps of a skill after compaction (characters"
                         " / 4)",
                 details="The body is over about 5,000 tokens: after compacting a conversation Claude Code keeps "
                         "the first 5,000 tokens of each skill it re-attaches, so the rest is lost "
                         "(code.claude.com/docs/en/skills).  Tokens are estimated as characters / 4, the same "
                         "estimate as the listing budgets (skillsift/catalog/agents.py), which runs high for prose "
                         "and low for code.")
EMPTY = check("SK302", "body-empty", WARNING, summary="the body holds instructions",
              details="The body is empty: a skill used gives the model nothing to follow.")
SCAFFOLD = check("SK303", "template-scaffold", WARNING,
                 summary="no template placeholder ([TODO: ...], a TODO description) is left in the body or "
                         "description",
                 details="A template scaffold was left in: ``[TODO: ...]`` or a ``TODO:`` line in the body (outside"
                         " code), a description that is a placeholder (``TODO``, \"Replace with ...\").")
ARG_IN_CODE = check("SK304", "argument-in-code", WARNING,
                    summary="no $ARGUMENTS / $1 sits inside code, where Claude Code would substitute it",
                    details="``$ARGUMENTS``, ``$ARGUMENTS[N]`` or ``$N`` inside code: Claude Code substitutes the "
                            "invocation's arguments everywhere in the text, so a shell example's ``$1`` is replaced"
                            " (move the script into ``scripts/`` and run it from there).")
BANG_IN_CODE = check("SK305", "bang-command-in-code", WARNING,
                     summary="no !`command` sits inside code, where Claude Code still runs it",
                     details="`` !`cmd` `` inside code (a fenced block or a code span): Claude Code's preprocessor "
                             "runs every `` !`cmd` `` in the text before the model sees it, code included "
                             "(anthropics/claude-code#39864, #27149), so an example is run and a failing one stops "
                             "the skill loading.")
UNCLOSED = check("SK306", "unclosed-fence", WARNING, summary="every code fence is closed",
                 details="A code fence that is never closed: the rest of the file renders as code.")
#: Tokens of a skill Claude Code keeps after compaction (characters per token: the agents' estimate).
KEPT_TOKENS = 5000
#: Longest line searched for code spans (their regexes backtrack; longer lines are not read for spans).
MAX_SPAN_LINE = 4000
# "[TODO: ...]" or a line that starts "TODO:" (outside code and code spans).  Bracketed "[Your Product]"
# is not one: copywriting skills show such templates for the agent to fill.
_SCAFFOLD = re.compile(r"\[TODO\b[^\]\n]{0,200}\]?|^\s*(?:[-*]\s+)?TODO\s*:")
_SCAFFOLD_DESCRIPTION = re.compile(r"^\s*(?:TODO\b|\[TODO|TBD\b|(?i:replace with|describe (?:what|your)|"
                                   r"a (?:brief|short) description of))")
_ARGUMENT = re.compile(r"\$ARGUMENTS(?:\[\d+\])?|\$\d\b")
_BANG = re.compile(r"!`[^`\n]+`")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_WIDE_SPAN = re.compile(r"(`{2,})(.+?)\1")  # a code span that can hold a backtick


class _Inside:
    """``inside[n]``: whether body line ``n`` lies between an opening and a closing fence."""

    def __init__(self, spans):
        self.starts = [a for a, _b in spans]
        self.spans = spans

    def __getitem__(self, number: int) -> bool:
        k = bisect_right(self.starts, number) - 1
        return k >= 0 and number < self.spans[k][1]


def fences(body: str):
    """(``inside``, the line number from 0 of an unclosed fence or None) of a body, where
    ``inside[n]`` tells whether line ``n`` is inside code (what the security checks read).

    The blocks are :func:`~skillsift.validators.parsed.fenced_blocks`' (one search per line holding
    a fence run), their lines counted here; the value is shared within a run
    (:func:`~skillsift.validators.parsed.memoised`).
    """
    return memoised("fences", body, _fences)


def _fences(body: str):
    blocks = fenced_blocks(body)
    spans: list[tuple[int, int]] = []  # (first line inside, first line after)
    line, counted = 0, 0
    count = body.count
    for opened, closed in zip(blocks.opens, blocks.closes, strict=True):
        line += count("\n", counted, opened)
        counted = opened
        first = line + 1
        if closed > len(body):  # left open: to the end
            spans.append((first, line + count("\n", counted) + 1))
            break
        line += count("\n", counted, closed)
        counted = closed
        spans.append((first, line))
    unclosed = None if blocks.unclosed is None else spans[-1][0] - 1
    return _Inside(spans), unclosed


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def _too_long(path: str, body: str, first: int) -> list[Diagnostic]:
    """SK301: a body over the tokens kept after compaction."""
    tokens = estimate_tokens(body)
    if tokens <= KEPT_TOKENS:
        return []
    cut = first + body[: KEPT_TOKENS * CHARS_PER_TOKEN].count("\n")
    return [TOO_LONG.report(
        file=path, line=cut,
        message=f"the body is about {tokens:,} tokens (characters / 4); after compaction Claude Code keeps "
                f"the first {KEPT_TOKENS:,}, so what follows this line is lost",
        hint="move reference material into references/<topic>.md, linked from the body, and keep the steps "
             "first")]


def _scaffold_in_line(path: str, line_no: int, line: str) -> list[Diagnostic]:
    """SK303 of one line outside code."""
    bare = _SPAN.sub(" ", line) if "`" in line and len(line) <= MAX_SPAN_LINE else line
    match = _SCAFFOLD.search(bare) if "TODO" in line else None
    if not match:
        return []
    return [SCAFFOLD.report(
        file=path, line=line_no,
        message=f'a template placeholder was left in the body ("{match.group(0).strip()[:40]}")',
        hint="replace it with the real instruction, or delete it")]


def _argument_in_line(path: str, line_no: int, line: str, code: bool) -> list[Diagnostic]:
    """SK304 of one line: an argument inside code (the line is in a fence, or the argument in a code span)."""
    spans = [line] if code else [m.group(2) for m in _SPAN.finditer(line)] if len(line) <= MAX_SPAN_LINE else []
    hit = next((m for text in spans for m in _ARGUMENT.finditer(text)), None)
    if not hit:
        return []
    return [ARG_IN_CODE.report(
        file=path, line=line_no,
        message=f"{hit.group(0)} inside code is replaced by the invocation's arguments in Claude Code, "
                "so this example does not run as written",
        hint="move the script into scripts/ and tell the agent to run it, or use a named shell variable")]


def _bang_in_line(path: str, line_no: int, line: str, code: bool) -> list[Diagnostic]:
    """SK305 of one line: a !`command` inside code."""
    in_span = code or (len(line) <= MAX_SPAN_LINE and any("!`" in m.group(2) for m in _WIDE_SPAN.finditer(line)))
    hit = _BANG.search(line)
    if not (hit and (code or in_span)):
        return []
    return [BANG_IN_CODE.report(
        file=path, line=line_no,
        message=f"{hit.group(0)[:40]} inside code is still run by Claude Code before the model sees the "
                "skill; a failing command stops the skill loading",
        hint="write the example without the leading ! (e.g. \"! `git status`\" with a space), or move it "
             "into a reference file")]


def _line_checks(path: str, body: str, first: int, *, scaffold: bool, argument: bool, bang: bool) -> list[Diagnostic]:
    """SK303-SK306, line by line: placeholders outside code, arguments and commands inside it, an unclosed fence."""
    out: list[Diagnostic] = []
    blocks = fenced_blocks(body)
    needles = [needle for needle, wanted in (("TODO", scaffold), ("$", argument), ("!`", bang)) if wanted]
    for number, start, line in located_lines_holding(body, needles):  # the lines holding none are never visited
        code = blocks.code_at(start)
        if not code:
            out += _scaffold_in_line(path, first + number, line)
        if argument and "$" in line:
            out += _argument_in_line(path, first + number, line, code)
        if bang and "!`" in line:
            out += _bang_in_line(path, first + number, line, code)
    if blocks.unclosed is not None:
        end = body.find("\n", blocks.unclosed)
        opener = body[blocks.unclosed:] if end < 0 else body[blocks.unclosed:end]
        out.append(UNCLOSED.report(
            file=path, line=first + body.count("\n", 0, blocks.unclosed),
            message="this code fence is never closed, so the rest of the file is code",
            hint=f"close it with a line of {_FENCE.match(opener).group(1)}"))  # type: ignore[union-attr]
    return out


def check_body(parsed) -> list[Diagnostic]:
    """SK301-SK306 of one parsed SKILL.md."""
    path, body, first = parsed.path, parsed.body, parsed.body_line
    out: list[Diagnostic] = _too_long(path, body, first)
    if not body or body.isspace():  # (what body.strip() would test, without copying the body)
        out.append(EMPTY.report(
            file=path, line=max(first, 1),
            message="the body is empty: an agent that uses this skill gets no instructions",
            hint="write the steps the agent should follow below the frontmatter"))
        return out
    description = parsed.front.get("description")
    if isinstance(description, str) and _SCAFFOLD_DESCRIPTION.match(description):
        out.append(SCAFFOLD.report(
            file=path, line=parsed.line("description"),
            message=f'the description is a template placeholder ("{description.strip()[:40]}")',
            hint="say what the skill does and when to use it"))
    held = marks(body)  # one pass for every mark the checks of a run look for
    fenced = bool(fenced_blocks(body).lines)  # found once for the checks that read fences (spec's, SK307)
    scaffold = "TODO" in held
    argument = "$" in held and _ARGUMENT.search(body) is not None
    bang = "!`" in held
    if not (fenced or scaffold or argument or bang):  # whole-text looks first: most bodies need no line pass
        return out
    return out + _line_checks(path, body, first, scaffold=scaffold, argument=argument, bang=bang)


def run(ws: Workspace) -> list[Diagnostic]:
    return run_paths(ws, ws.skill_paths)


def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
    return run_cached(ws, paths, "body", check_body)
