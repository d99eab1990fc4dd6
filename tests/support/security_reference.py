"""The text scans of SK401-SK403 as they were before one word set replaced their ~20 substring
passes: the reference of tests/checks/test_security_differential.py (kept verbatim)."""

from __future__ import annotations

import re

from skillsift.checks.body import fences
from skillsift.checks.security import PIPE_SHELL, UNPINNED
from skillsift.diagnostics import Diagnostic

_INJECTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?"
    r"(?:previous|prior|above|earlier|preceding|system)\s+(?:instructions|prompts?|rules|messages)\b|"
    r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|notify)\s+the\s+user\b|"
    r"\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+user\b|"
    r"\byou\s+are\s+now\s+(?:in\s+)?(?:DAN|developer\s+mode|jailbroken)\b|"
    r"\b(?:reveal|print|output)\s+(?:your\s+|the\s+)?system\s+prompt\b",
    re.IGNORECASE)
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|'[^'\n]{8,}'|`[^`\n]*`")
_PIPE = re.compile(r"\b(?:curl|wget)\b[^|\n]{0,300}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|"
                   r"\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b[^|\n]{0,300}\|\s*(?:iex|Invoke-Expression)\b",
                   re.IGNORECASE)
_NPX = re.compile(r"(?<![\w-])(?:npx|pnpm\s+dlx|bunx)\s+(?:(?:-y|--yes|-p|--package(?:=\S+)?)\s+)*"
                  r"((?:@[\w.-]+/)?[A-Za-z0-9][\w.-]*)(@\S+)?")
_PIPX = re.compile(r"(?<![\w-])(?:pipx\s+run|uvx)\s+(?:--\S+\s+)*([A-Za-z0-9][\w.\[\]-]*)((?:==|@)\S+)?")
# literal words every match holds, looked for with `in` (C speed) before any regex runs
_RUN_WORDS = ("npx", "dlx", "bunx", "pipx", "uvx")
_PIPE_WORDS = ("curl", "wget", "iwr", "irm", "invoke-")
_VERBS = ("ignore", "disregard", "forget", "override")
_OBJECTS = ("instruction", "prompt", "rules", "messages")
_USER = ("tell the user", "inform the user", "alert the user", "notify the user", "telling the user",
         "informing the user", "notifying the user", "alerting the user")


def _may_inject(lowered: str) -> bool:
    """Whether ``lowered`` holds the words an injection phrase needs (a cheap look before the regex)."""
    return ((any(v in lowered for v in _VERBS) and any(o in lowered for o in _OBJECTS))
            or ("the user" in lowered and any(u in lowered for u in _USER))
            or "you are now" in lowered or "system prompt" in lowered)


def injections(text: str, first_line: int, lowered: str | None = None):
    """(file line, phrase) of each prompt-injection phrase of ``text`` outside code and quotes.

    Only the lines holding one of the words a phrase needs are read (found with ``str.find``
    in the lowercased text), so a long body without them costs one pass in C.
    """
    lowered = text.lower() if lowered is None else lowered
    if not _may_inject(lowered):  # most skills hold none of the words
        return
    starts: set[int] = set()
    for word in (*_VERBS, "the user", "you are now", "system prompt"):
        at = lowered.find(word)
        while at >= 0 and len(starts) < 1000:
            starts.add(lowered.rfind("\n", 0, at) + 1)
            at = lowered.find(word, at + len(word))

    inside = None
    for start in sorted(starts):
        end = text.find("\n", start)
        line = text[start:] if end < 0 else text[start:end]
        if len(line) > 4000:
            continue
        bare = _QUOTED.sub(" ", line)
        match = _INJECTION.search(bare)
        if match is None:
            continue
        number = text.count("\n", 0, start)
        if inside is None:
            inside = fences(text)[0]
        if not inside[number]:
            yield first_line + number, match.group(0)


def _lines_with(text: str, lowered: str, words) -> list[tuple[int, str]]:
    """(line number from 0, line) of each line of ``text`` holding one of ``words`` (found in ``lowered``)."""
    starts: set[int] = set()
    for word in words:
        at = lowered.find(word)
        while at >= 0 and len(starts) < 1000:
            starts.add(lowered.rfind("\n", 0, at) + 1)
            at = lowered.find(word, at + len(word))
    out = []
    for start in sorted(starts):
        end = text.find("\n", start)
        line = text[start:] if end < 0 else text[start:end]
        if len(line) <= 4000:
            out.append((text.count("\n", 0, start), line))
    return out


def shell_problems(file: str, text: str, first_line: int = 1, lowered: str | None = None) -> list[Diagnostic]:
    """SK402 and SK403 of one text (a SKILL.md body or a file of the skill's folder); only the lines
    holding ``curl``, ``npx`` and kin are read."""
    out: list[Diagnostic] = []
    lowered = text.lower() if lowered is None else lowered
    for number, line in _lines_with(text, lowered, _PIPE_WORDS) if "|" in text else ():
        hit = _PIPE.search(line) if "|" in line else None
        if hit:
            out.append(PIPE_SHELL.report(
                file=file, line=first_line + number,
                message=f"a remote script is piped into a shell ({hit.group(0)[:60]}); whatever the server sends runs",
                hint="download the script, check its checksum or signature, then run it; or install a pinned "
                     "package"))
    for number, line in _lines_with(text, lowered, _RUN_WORDS):
        for pattern, how in ((_NPX, "@<version>"), (_PIPX, "==<version>")):
            for match in pattern.finditer(line):
                if match.group(2) or match.group(1).startswith("-"):
                    continue
                out.append(UNPINNED.report(
                    file=file, line=first_line + number,
                    message=f"{match.group(0).strip()[:50]} runs the newest {match.group(1)} each time; its code can "
                            "change under the skill",
                    hint=f"pin it: {match.group(1)}{how}"))
    return sorted(out, key=lambda d: (d.line or 0, d.code))
