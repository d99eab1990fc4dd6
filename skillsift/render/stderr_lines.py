"""The lines a command prints on stderr for a message or an error, each made safe by :func:`~.sanitise.plain`.

One wording for both ways a command runs: through click (commands/_common.py, commands/group.py) and
``skillsift search`` without it (commands/search_run.py).
"""

from __future__ import annotations

from .sanitise import plain


def message_line(message) -> str:
    """``note: TEXT``, ``warning: TEXT`` or ``TEXT`` after the message's ``lead``, for a
    :class:`~skillsift.usecases.project.Message`."""
    return (f"{message.severity}: " if message.severity else "") + message.lead + plain(message.text)


def error_lines(exc) -> list[str]:
    """What a :class:`~skillsift.diagnostics.SkillsiftError` prints: its diagnostics, ``error: MESSAGE``
    and ``hint: HINT`` when it has one."""
    lines = [plain(diag.render()) for diag in exc.diagnostics]
    lines.append(f"error: {plain(exc.message)}")
    if exc.hint:
        lines.append(f"hint: {plain(exc.hint)}")
    return lines
