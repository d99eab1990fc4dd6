"""The cases file of an evaluation: read from disk (bounded), checked against the catalog, ``--k``.

The format and its parser are :mod:`skillsift.casefile` (the ranker's examples files share
them); every name of :mod:`skillsift.casefile.parse` and :mod:`skillsift.casefile.rules` that
the evaluation uses is importable from here as well.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from ..casefile.files import load_file, read_bounded  # noqa: F401  (read_bounded: imported from here too)
from ..casefile.parse import (  # noqa: F401  (the names other modules import from here)
    CASE_KEYS,
    CASES,
    DEFAULT_K,
    HINT,
    MAX_CASES,
    MAX_EXPECTED,
    MAX_FILE_BYTES,
    MAX_GRADE,
    MAX_K,
    MAX_QUERY_BYTES,
    TOP_KEYS,
    Case,
    CaseFile,
    CasesInvalid,
    Expected,
    Problem,
    case_label,
    cases_error,
    check_catalog,
    parse_cases,
    role_problems,
    skill_problems,
    with_catalog_problems,
)
from ..diagnostics import SkillsiftError


def load_cases(path: str) -> CaseFile:
    """Read and check a cases file.  File problems (missing, not a file, too large) are not AR9D2."""
    return load_file(path, "cases", hint="Pass the path of a YAML cases file")


def load_checked(path: str, known: Collection[str], *, roles_configured: bool = False,
                 resolve: Callable[[str], Collection[str]] | None = None) -> CaseFile:
    """:func:`load_cases` then :func:`check_catalog`, every problem of both in one AR9D2 error."""
    try:
        case_file = load_cases(path)
    except SkillsiftError as exc:
        raise with_catalog_problems(exc, known, roles_configured=roles_configured, resolve=resolve) from None
    check_catalog(case_file, known, roles_configured=roles_configured, resolve=resolve)
    return case_file


def check_k(override: int) -> None:
    """``--k``: 0 means the file's k; negative or above 100 is an error (never clamped)."""
    if override < 0:
        raise SkillsiftError("--k must not be negative", hint="Use --k 0 for the file's k")
    if override > MAX_K:
        raise SkillsiftError(f"--k must be between 1 and {MAX_K} (or 0 for the file's k), got {override}")
