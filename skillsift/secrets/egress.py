"""Which texts may leave the process: the rule every path that hands text to an embedding provider
applies (AR9D3, docs/secrets.md).

A provider that runs in this process (the local model) is given any text; one that hands text to
something outside it (an OpenAI-compatible server, a command) never gets a text in which the scanner
finds a secret.  Kept apart from the index build so that a command that only asks the question,
such as the index hook counting the rows a build would make, does not load the build's planning code.
"""

from __future__ import annotations


def sends_text_out(provider) -> bool:
    """True when ``provider`` hands text to something outside this process."""
    return bool(getattr(provider, "networked", False) or getattr(provider, "external", False))


def secret_scan(provider, patterns=()):
    """The scan that withholds a text from ``provider`` (AR9D3): ``scan(text)`` returns the kind of
    secret the text holds, or None; None (nothing is withheld) for a provider that runs in this
    process.  ``patterns`` are the configured ``[secrets] patterns``.  Every path that sends skill
    text or known requests to a provider scans with it (docs/secrets.md).
    """
    if not sends_text_out(provider):
        return None
    from .scan import detect_secret

    extra = tuple(patterns)

    def scan(text: str) -> str | None:
        return detect_secret(text, extra)

    return scan
