"""SK307: a `` !`cmd` `` that Claude Code does not run, because of where it is written.

Claude Code runs a `` !`cmd` `` of a skill before the model sees it, and puts the command's output
in its place; the inline form is recognised only where the ``!`` starts a line or follows
whitespace, so ``branch:!`git branch` `` or ``(!`date`)`` stays literal text (Claude Code's skills
documentation, "Inject dynamic context"; docs/checks-skills.md, "SK205, SK307, SK321-SK324 — the peers'
checks").  The author meant the output to be there, and the model gets the command's text instead.
Inside code the opposite holds: the command is run anyway, which is SK305's (:mod:`.body`), so only
text outside code is read here.
"""

from __future__ import annotations

import re

from ..config.checks import check
from ..diagnostics import WARNING, Diagnostic
from ..validators.parsed import lines_holding, marks, per_skill
from .body import MAX_SPAN_LINE, fences

NOT_RUN = check("SK307", "bang-command-not-run", WARNING,
                summary="every !`command` outside code starts a line or follows a space, where Claude Code runs it",
                details="A `` !`cmd` `` outside code whose ``!`` follows another character (``branch:!`git "
                        "branch` ``, ``(!`date`)``): Claude Code recognises the inline form only where the ``!`` "
                        "starts a line or follows whitespace, so the command is not run and the model reads its "
                        "text instead of its output (code.claude.com/docs/en/skills, \"Inject dynamic context\"). "
                        "A ``!`` after a word and before a code span that is not a command (``Done!`x` ``) is rare "
                        "in skills; the corpus measurement is in docs/checks-skills.md.")
# a "!`...`" whose "!" follows a character that is not whitespace (the positions Claude Code leaves literal)
_LITERAL_BANG = re.compile(r"(?<=[^\s!])!`[^`\n]+`")
_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def check_positions(parsed) -> list[Diagnostic]:
    """SK307 of one parsed SKILL.md."""
    body = parsed.body
    if "!`" not in marks(body):  # the marks found once for every check (most bodies hold none)
        return []
    inside, _unclosed = fences(body)  # (lines counted only for the few bodies holding one)
    out: list[Diagnostic] = []
    for number, line in lines_holding(body, ("!`",)):  # the lines holding none are never visited
        if inside[number] or len(line) > MAX_SPAN_LINE:
            continue
        for hit in _LITERAL_BANG.finditer(line):
            # a "!`" inside a wider code span (``a!`b` ``) is code, SK305's
            if any(span.start() < hit.start() < span.end() for span in _SPAN.finditer(line)):
                continue
            out.append(NOT_RUN.report(
                file=parsed.path, line=parsed.body_line + number,
                message=f"{hit.group(0)[:40]} follows \"{line[hit.start() - 1]}\", so Claude Code does not run it: "
                        "the model reads the command, not its output",
                hint="put a space (or a line break) before the !, e.g. \"Branch: !`git branch --show-current`\""))
            break
    return out


run, run_paths = per_skill(check_positions)
