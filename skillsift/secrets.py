"""The secret scanner: AR001 findings, AR9D3 withholding and the query-log filter.

One scanner serves three callers: ``validate`` reports every finding (AR001), the
index build withholds a skill whose embedded text holds a secret from any provider
whose text leaves the process (AR9D3, :func:`withhold`), and the query log drops
queries that hold one (:func:`detect_secret`).

Patterns
    The built-in patterns are the reference's RE2 expressions translated to Python
    ``re``.  RE2 differs from Python in three ways that matter here, and the
    translation keeps RE2's meaning:

    * ``\\b`` is ASCII-only in RE2: every pattern is compiled with ``re.ASCII``.
    * ``\\s`` is ``[\\t\\n\\f\\r ]`` in RE2 (no vertical tab): written out.
    * ``(?i)`` folds case with Unicode simple folding in RE2, so ``k`` also matches
      the Kelvin sign and ``s`` the long s, but ``i`` matches only ``i``/``I``
      (Python's Unicode mode would also take the Turkish dotted/dotless i).  The one
      case-insensitive pattern spells each letter as an explicit class instead.

Placeholders
    A match is not a secret when its value is obviously a stand-in (see
    :func:`is_placeholder`): a placeholder word (``your``, ``example``,
    ``changeme``...), template syntax (``<token>``, ``${VAR}``, ``$VAR``,
    ``{{ var }}``), masking (``***``, ``xxxx``), a run of one repeated character or
    an elision right after the match (``sk-abc...``).

Allowance
    A finding whose line holds ``skillsift: allow-secret`` (in any comment style) is
    still reported, with ``allowed=True``, so validate can count allowances; it
    neither fails validation nor withholds the skill.

Only ``re`` is imported; patterns are compiled once, on first use.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "BUILTIN_PATTERNS",
    "SecretFinding",
    "detect_secret",
    "is_placeholder",
    "mask",
    "redact",
    "scan_text",
    "withhold",
]

ALLOW_MARKER = "skillsift: allow-secret"
GENERIC_KIND = "generic-credential"


def _fold(word: str) -> str:
    """``word`` as RE2 ``(?i)`` reads it: each ASCII letter becomes its simple-fold orbit."""
    extra = {"k": "\u212a", "s": "\u017f"}
    out = []
    for ch in word:
        if ch.isascii() and ch.isalpha():
            out.append(f"[{ch.lower()}{ch.upper()}{extra.get(ch.lower(), '')}]")
        else:
            out.append(re.escape(ch))
    return "".join(out)


_SPACE = r"[\t\n\f\r ]"  # RE2's \s
_GENERIC = (
    r"\b(?:"
    + "|".join(
        (
            _fold("api") + "[_-]?" + _fold("key"),
            _fold("secret"),
            _fold("token"),
            _fold("passwd"),
            _fold("password"),
            _fold("client") + "[_-]?" + _fold("secret"),
        )
    )
    + r")\b[\"']?"
    + _SPACE
    + r"*[:=]"
    + _SPACE
    + r"*[\"']([A-Za-z0-9/+_.=\u017f\u212a-]{20,})[\"']"
)

# (kind, label, regex): kind is the stable id callers report (AR9D3 names it), label the
# human name of the AR001 message.  Order is priority: when two patterns match the same
# characters, the earlier one names the finding.
BUILTIN_PATTERNS: tuple[tuple[str, str, str], ...] = (
    ("aws-access-key", "AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("github-token", "GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    ("npm-token", "npm access token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("github-fine-grained-token", "GitHub fine-grained token", r"\bgithub_pat_[A-Za-z0-9_]{22,}\b"),
    ("slack-token", "Slack token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b"),
    ("google-api-key", "Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
    ("stripe-live-key", "Stripe live key", r"\b[sr]k_live_[0-9A-Za-z]{24,}\b"),
    ("anthropic-api-key", "Anthropic API key", r"\bsk-ant-[A-Za-z0-9_-]{20,}\b"),
    ("openai-api-key", "OpenAI API key", r"\bsk-(?:proj-)?[A-Za-z0-9_-]{40,}\b"),
    ("private-key", "private key block", r"-{5}BEGIN (?:[A-Z]+ )*PRIVATE KEY(?: BLOCK)?-{5}"),
    (
        "jwt",
        "JSON web token",
        r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b",
    ),
    (GENERIC_KIND, "hard-coded credential", _GENERIC),
)


# Literal text every match of a built-in pattern contains: a cheap test that skips the
# regex on texts that cannot match (most skills).  The generic pattern's needles are
# checked against the case-folded text, which also folds the Kelvin sign and the long s.
_NEEDLES: dict[str, tuple[str, ...]] = {
    "aws-access-key": ("AKIA", "ASIA"),
    "github-token": ("gh",),
    "npm-token": ("npm_",),
    "github-fine-grained-token": ("github_pat_",),
    "slack-token": ("xox",),
    "google-api-key": ("AIza",),
    "stripe-live-key": ("k_live_",),
    "anthropic-api-key": ("sk-ant-",),
    "openai-api-key": ("sk-",),
    "private-key": ("PRIVATE KEY",),
    "jwt": ("eyJ",),
    GENERIC_KIND: ("key", "secret", "token", "passw"),
}


@dataclass(frozen=True)
class SecretFinding:
    """One secret: where it is and a masked excerpt that is safe to print."""

    kind: str  # pattern id: "aws-access-key", ..., or the name of a configured pattern
    label: str  # human name used in messages
    line: int  # 1-based line of the secret's first character
    column: int  # 1-based column (in characters) of the secret's first character
    masked: str  # first 4 characters + "****" + " (N characters)", or all "*" when N <= 8
    allowed: bool = False  # the line carries the "skillsift: allow-secret" marker

    @property
    def message(self) -> str:
        from .words import with_article

        return f"looks like {with_article(self.label)} ({self.masked})"


@dataclass(frozen=True)
class _Pattern:
    kind: str
    label: str
    regex: re.Pattern
    letter_and_digit: bool = False  # the value must hold an ASCII letter and an ASCII digit
    needles: tuple[str, ...] = ()  # a match needs one of these in the (case-folded) text
    folded: bool = False  # needles are checked against text.casefold()


@lru_cache(maxsize=1)
def _builtin() -> tuple[_Pattern, ...]:
    return tuple(
        _Pattern(
            kind,
            label,
            re.compile(src, re.ASCII),
            letter_and_digit=kind == GENERIC_KIND,
            needles=_NEEDLES[kind],
            folded=kind == GENERIC_KIND,
        )
        for kind, label, src in BUILTIN_PATTERNS
    )


@lru_cache(maxsize=32)
def _compile_extra(extra: tuple[tuple[str, str], ...]) -> tuple[_Pattern, ...]:
    out = []
    for name, src in extra:
        try:
            regex = re.compile(src)
        except re.error as exc:
            raise ValueError(
                f"secret pattern {name!r} is not a valid regular expression ({exc}); "
                "fix or remove it in the [secrets] patterns of the config"
            ) from None
        out.append(_Pattern(name, name, regex))
    return tuple(out)


def _patterns(extra_patterns) -> tuple[_Pattern, ...]:
    extra = tuple((str(name), str(src)) for name, src in extra_patterns)
    return _builtin() + (_compile_extra(extra) if extra else ())


def mask(value: str) -> str:
    """The printable stand-in of a secret value."""
    n = len(value)
    if n <= 8:
        return "*" * n
    return f"{value[:4]}**** ({n} characters)"


# --- placeholders -----------------------------------------------------------------------
# Known prefixes are removed before the repeated-character rule so that "ghp_" + 36 "x"
# is judged on its 36 "x".
_PLACEHOLDER_WORDS = (
    r"your|example|sample|dummy|placeholder|changeme|change[_-]me|replace[_-]?(?:me|with)|redacted|"
    r"fake|xxxx|\*\*\*|\.\.\.|\u2026"
)


@dataclass(frozen=True)
class _PlaceholderRules:
    prefixes: re.Pattern
    words: re.Pattern
    template: re.Pattern
    repeated: re.Pattern
    elision: re.Pattern


@lru_cache(maxsize=1)
def _rules() -> _PlaceholderRules:
    return _PlaceholderRules(
        prefixes=re.compile(
            r"^(?:AKIA|ASIA|gh[pousr]_|npm_|github_pat_|xox[abprs]-|AIza|[sr]k_live_|sk-ant-|sk-proj-|sk-)"
        ),
        words=re.compile(_PLACEHOLDER_WORDS, re.IGNORECASE | re.ASCII),
        template=re.compile(r"<[^<>]*>|\$\{[^}]*\}|\{\{[^}]*\}\}|^\$[A-Za-z_][A-Za-z0-9_]*$|%\([^)]*\)s|%s"),
        repeated=re.compile(r"(.)\1{5,}", re.DOTALL),
        elision=re.compile(r"\.\.\.|\u2026|\*{3}"),
    )


@lru_cache(maxsize=1)
def _letter_and_digit() -> re.Pattern:
    return re.compile(r"[A-Za-z].*[0-9]|[0-9].*[A-Za-z]", re.DOTALL)


def is_placeholder(value: str, following: str = "") -> bool:
    """True when ``value`` is a stand-in for a secret rather than a secret.

    ``following`` is the text right after the match (an elision there, as in
    ``sk-proj-abc...``, marks a shortened example).  The rules, in order:

    1. a placeholder word or masking anywhere in the value (case-insensitive):
       ``your``, ``example``, ``sample``, ``dummy``, ``placeholder``, ``changeme``,
       ``replace_me``/``replace_with``, ``redacted``, ``fake``, ``xxxx``, ``***``,
       ``...``;
    2. template syntax: ``<...>``, ``${...}``, ``{{...}}``, a bare ``$VAR``, ``%s``;
    3. after a known key prefix, one character repeated six or more times in a row,
       or (in ten or more characters) fewer than five distinct characters;
    4. an elision (``...``, ``…``, ``***``) right after the match, possibly after
       white space (a private key header followed by a ``...`` line).
    """
    rules = _rules()
    if rules.words.search(value) or rules.template.search(value):
        return True
    body = rules.prefixes.sub("", value, count=1)
    if rules.repeated.search(body) or (len(body) >= 10 and len(set(body)) < 5):
        return True
    return bool(rules.elision.match(following))


# --- scanning ---------------------------------------------------------------------------


def _line_starts(text: str) -> list[int]:
    starts = [0]
    pos = text.find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    return starts


def _locate(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based (line, column) of ``offset``."""
    index = bisect_right(starts, offset) - 1
    return index + 1, offset - starts[index] + 1


def _line_text(text: str, starts: list[int], line: int) -> str:
    begin = starts[line - 1]
    end = starts[line] - 1 if line < len(starts) else len(text)
    return text[begin:end]


def _matches(text: str, extra_patterns, *, placeholders: bool = False) -> list[tuple[int, int, _Pattern]]:
    """(start, end, pattern) of every secret value in ``text``; placeholders only on request."""
    claimed: list[tuple[int, int]] = []
    found: list[tuple[int, int, _Pattern]] = []
    folded = None
    for pattern in _patterns(extra_patterns):
        if pattern.needles:
            if pattern.folded and folded is None:
                folded = text.casefold()
            haystack = folded if pattern.folded else text
            if not any(needle in haystack for needle in pattern.needles):
                continue
        for m in pattern.regex.finditer(text):
            group = 1 if pattern.regex.groups >= 1 and m.start(1) != -1 else 0
            start, end = m.start(group), m.end(group)
            if pattern.letter_and_digit and not _letter_and_digit().search(text[start:end]):
                continue
            if start == end or any(start < c_end and c_start < end for c_start, c_end in claimed):
                continue
            claimed.append((start, end))  # a placeholder also claims its characters
            if not placeholders and is_placeholder(text[start:end], text[end : end + 16].lstrip()[:3]):
                continue
            found.append((start, end, pattern))
    return sorted(found, key=lambda f: (f[0], f[1]))


def scan_text(text: str, extra_patterns=()) -> list[SecretFinding]:
    """Every secret in ``text``, in text order.

    ``extra_patterns`` are ``(name, regex)`` pairs (Python ``re`` syntax) checked after
    the built-in ones; a pattern with a group reports its first group as the secret.
    The whole text is matched at once (a ``password:`` and its value may sit on two
    lines); line and column point at the secret value.  Raises ``ValueError`` naming
    the pattern when a configured regex does not compile.
    """
    if not text:
        return []
    found = _matches(text, extra_patterns)
    if not found:
        return []
    starts = _line_starts(text)
    findings = []
    for start, end, pattern in found:
        line, column = _locate(starts, start)
        allowed = ALLOW_MARKER in _line_text(text, starts, line)
        findings.append(
            SecretFinding(
                kind=pattern.kind,
                label=pattern.label,
                line=line,
                column=column,
                masked=mask(text[start:end]),
                allowed=allowed,
            )
        )
    return findings


def redact(text: str, values=(), extra_patterns=()) -> str:
    """``text`` with every secret replaced by its mask and each of ``values`` by ``****``.

    For text skillsift did not write (a command's stderr, an error from elsewhere) that
    may be shown to the user.  Erring on the safe side, anything shaped like a secret is
    masked, placeholders included.  ``values`` are known sensitive strings (the values of
    passed environment variables); those shorter than 4 characters are left alone.
    """
    if not text:
        return text
    for value in sorted({v for v in values if v and len(v) >= 4}, key=len, reverse=True):
        text = text.replace(value, "****")
    pieces, last = [], 0
    for start, end, _pattern in _matches(text, extra_patterns, placeholders=True):
        pieces.append(text[last:start])
        pieces.append(mask(text[start:end]))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def detect_secret(text: str, extra_patterns=()) -> str | None:
    """The kind of the first secret in ``text`` that is not allowed, else None."""
    for finding in scan_text(text, extra_patterns):
        if not finding.allowed:
            return finding.kind
    return None


def withhold(texts_by_name, extra_patterns=()) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Split the texts an index build would send into (allowed, withheld).

    ``texts_by_name`` maps skill name to its embedded text (any ordered mapping or an
    iterable of pairs).  ``allowed`` keeps the input order; ``withheld`` lists
    ``(name, kind)`` for every text holding a secret, in input order.  The caller
    emits one AR9D3 warning per withheld skill and never sends its text.
    """
    items = texts_by_name.items() if hasattr(texts_by_name, "items") else texts_by_name
    allowed: dict[str, str] = {}
    withheld: list[tuple[str, str]] = []
    for name, text in items:
        kind = detect_secret(text, extra_patterns)
        if kind is None:
            allowed[name] = text
        else:
            withheld.append((name, kind))
    return allowed, withheld
