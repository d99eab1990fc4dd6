"""One diagnostics model for every check skillsift runs.

A :class:`Diagnostic` is a plain value: validators return lists of them, reporters
render them, commands map them to exit codes.  Nothing here does I/O.
"""

from __future__ import annotations

from .records import field, record

ERROR = "error"
WARNING = "warning"
NOTE = "note"
SEVERITIES = (ERROR, WARNING, NOTE)


@record(frozen=True, order=True)
class Diagnostic:
    """A finding: ``file:line:column: CODE message`` plus an optional hint."""

    file: str = ""
    line: int | None = None
    column: int | None = None
    code: str = ""
    message: str = ""
    severity: str = field(default=ERROR)
    hint: str = ""
    rule: str = field(default="", compare=False)  # a finer rule within the code (AR001: the secret's kind)

    def location(self) -> str:
        parts = [self.file] if self.file else []
        if self.file and self.line:
            parts.append(str(self.line))
            if self.column:
                parts.append(str(self.column))
        return ":".join(parts)

    def render(self) -> str:
        loc = self.location()
        head = f"{loc}: " if loc else ""
        text = f"{head}{self.code} {self.message}" if self.code else f"{head}{self.message}"
        return text

    def to_dict(self) -> dict:
        out: dict = {"code": self.code, "severity": self.severity, "message": self.message}
        if self.file:
            out["file"] = self.file
        if self.line:
            out["line"] = self.line
        if self.column:
            out["column"] = self.column
        if self.hint:
            out["hint"] = self.hint
        return out


def sort_key(d) -> tuple:
    """File, then line, then column, then code, then message: the order every reporter prints."""
    return (d.file, d.line or 0, d.column or 0, d.code, d.message)


def sort_diagnostics(diagnostics):
    """The findings in :func:`sort_key` order."""
    return sorted(diagnostics, key=sort_key)


class SkillsiftError(Exception):
    """An error a command reports to the user and exits with ``exit_code`` for.

    ``diagnostics`` carries the structured findings when there are any.
    """

    exit_code = 1

    def __init__(self, message: str, *, diagnostics=(), hint: str = "", exit_code: int | None = None):
        super().__init__(message)
        self.message = message
        self.diagnostics = list(diagnostics)
        self.hint = hint
        if exit_code is not None:
            self.exit_code = exit_code
