"""Reading a cases or examples file from disk: bounded, and parsed once per process for the same bytes.

The one reader of both kinds (docs/evaluation.md, "Strict YAML"): :func:`read_bounded` refuses
what is not a regular file and what is too large before parsing; :func:`load_file` parses
with :func:`skillsift.casefile.parse.parse_cases` and keeps the result for the same bytes.
"""

from __future__ import annotations

from ..diagnostics import SkillsiftError
from .parse import MAX_FILE_BYTES, CaseFile, CasesInvalid, parse_cases


def read_bounded(path: str, what: str, shown: str = "", hint: str = "") -> bytes:
    """The bytes of the ``what`` file at ``path`` (``shown`` in messages), read bounded.

    A path that is not a regular file (a directory, a FIFO, a device), one larger than
    :data:`MAX_FILE_BYTES` or one that cannot be opened is a :class:`SkillsiftError` naming
    the file (not AR9D2: the text was not read).  The one reader of the cases and the
    examples files (docs/evaluation.md, "Strict YAML").
    """
    import os
    import stat

    shown = shown or path
    try:
        info = os.stat(path)
    except OSError as exc:
        raise SkillsiftError(f"cannot read {what} file {shown}: {exc.strerror or exc}", hint=hint,
                             exit_code=1) from None
    if not stat.S_ISREG(info.st_mode):
        raise SkillsiftError(f"{what} file {shown} is not a regular file", hint=hint, exit_code=1)
    if info.st_size > MAX_FILE_BYTES:
        raise SkillsiftError(f"{what} file {shown} is larger than {MAX_FILE_BYTES} bytes (4 MiB)",
                             hint=f"Split the {what} into several files", exit_code=1)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise SkillsiftError(f"cannot read {what} file {shown}: {exc.strerror or exc}", hint=hint,
                             exit_code=1) from None
    if len(raw) > MAX_FILE_BYTES:  # it grew while it was read
        raise SkillsiftError(f"{what} file {shown} is larger than {MAX_FILE_BYTES} bytes (4 MiB)",
                             hint=f"Split the {what} into several files", exit_code=1)
    return raw


_PARSED: dict = {}  # (sha256 of the bytes, shown, what) -> CaseFile or the CasesInvalid it raised
_PARSED_MAX = 16


def load_file(path: str, what: str, shown: str = "", hint: str = "") -> CaseFile:
    """:func:`read_bounded` then :func:`parse_cases`, parsed once per process for the same bytes.

    ``validate`` reads an examples file for AR9D2 and again for the index check, a search for
    its known requests and its index: the file is read each time (bounded, cheap) and its
    digest keys the parse, so the same text is parsed once and an edited one again.
    """
    import hashlib

    shown = shown or path
    raw = read_bounded(path, what, shown, hint)
    key = (hashlib.sha256(raw).digest(), shown, what)
    found = _PARSED.get(key)
    if found is None:
        try:
            found = parse_cases(raw, shown, what)
        except CasesInvalid as exc:
            found = exc
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[key] = found
    if isinstance(found, CasesInvalid):
        raise found
    return found
