"""The strict reading of one judge answer (docs/judge.md, "Answers").

The answer is the command's standard output: plain text, or a JSON object whose ``result``
(Claude Code's ``--output-format json``) or ``response`` (Gemini CLI's) is the text.  The text,
stripped, must be one line: a name the listing holds (optionally in one pair of backticks or
quotes) or ``none`` (any case).  Anything else (an empty answer, a name not in the listing,
several words or lines) is "no choice" with its reason, and so is a call that failed (timeout,
non-zero exit, too much output): :class:`Answer` never raises.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

CHOSEN, NONE, NO_CHOICE = "chosen", "none", "no-choice"
EXCERPT = 200  # characters of the answer kept in the report and the cache
_QUOTES = ("`", '"', "'")


@dataclass(frozen=True)
class Answer:
    status: str  # chosen | none | no-choice
    choice: str = ""  # the skill chosen ("" unless chosen)
    reason: str = ""  # why there is no choice ("" otherwise)
    text: str = ""  # the answer's text, cut at EXCERPT characters
    call_failed: bool = False  # the call itself failed (timeout, exit status, output): never cached

    @property
    def final(self) -> bool:
        """True when this is the agent's answer to keep (cached): a choice, none, or a reply read as neither;
        not a failed call or an empty answer."""
        return not self.call_failed and (self.answered or bool(self.text))

    @property
    def answered(self) -> bool:
        """True when the agent gave a valid answer (a listed skill or none)."""
        return self.status in (CHOSEN, NONE)

    def to_dict(self) -> dict:
        return {"status": self.status, "choice": self.choice, "reason": self.reason, "answer": self.text}

    @classmethod
    def from_dict(cls, data) -> Answer | None:
        if not isinstance(data, dict):
            return None
        status, choice, reason, text = (data.get(k) for k in ("status", "choice", "reason", "answer"))
        if not (isinstance(status, str) and isinstance(choice, str) and isinstance(reason, str)
                and isinstance(text, str)) or status not in (CHOSEN, NONE, NO_CHOICE):
            return None
        if (status == CHOSEN) != bool(choice):
            return None
        return cls(status, choice, reason, text)


def failed(reason: str, text: str = "") -> Answer:
    """No choice because the call failed (not cached: the next run asks again)."""
    return Answer(NO_CHOICE, reason=reason, text=text[:EXCERPT], call_failed=True)


def _excerpt(text: str) -> str:
    return text[:EXCERPT]


def _unwrap(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in _QUOTES:
        return text[1:-1].strip()
    return text


def answer_text(stdout: bytes) -> tuple[str | None, str]:
    """``(text, problem)``: the answer's text, or None and why it has none."""
    try:
        raw = stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None, "the answer is not UTF-8 text"
    stripped = raw.strip()
    if stripped.startswith("{"):
        try:
            doc = json.loads(stripped)
        except (ValueError, RecursionError):
            return stripped, ""  # not JSON after all: read as text
        if not isinstance(doc, dict):
            return None, "the answer is JSON but not an object"
        if doc.get("is_error") is True:
            return None, "the agent reported an error: " + str(doc.get("result", ""))[:EXCERPT]
        for key in ("result", "response"):
            if isinstance(doc.get(key), str):
                return doc[key].strip(), ""
        return None, "the answer is a JSON object without a result or response text"
    return stripped, ""


def parse_answer(stdout: bytes, names) -> Answer:
    """The agent's choice among ``names`` (the listing's names), strictly read from its output."""
    text, problem = answer_text(stdout)
    if text is None:
        return Answer(NO_CHOICE, reason=problem)
    if not text:
        return Answer(NO_CHOICE, reason="empty answer")
    if "\n" in text:
        return Answer(NO_CHOICE, reason="the answer is more than one line", text=_excerpt(text))
    word = _unwrap(text)
    if word in set(names):
        return Answer(CHOSEN, choice=word, text=_excerpt(text))
    if word.lower() == "none":
        return Answer(NONE, text=_excerpt(text))
    if word and len(word) <= 200 and not any(ch.isspace() for ch in word):
        return Answer(NO_CHOICE, reason=f'answered "{word}", which the listing does not hold', text=_excerpt(text))
    return Answer(NO_CHOICE, reason="the answer is not one skill name or none", text=_excerpt(text))
