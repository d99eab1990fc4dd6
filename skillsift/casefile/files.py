"""Reading a cases or examples file from disk: bounded, and parsed once per process for the same bytes.

The one reader of both kinds (docs/evaluation.md, "Strict YAML"): :func:`read_bounded` refuses
what is not a regular file and what is too large before parsing; :func:`load_file` parses
with :func:`skillsift.casefile.parse.parse_cases` and keeps the result for the same bytes, in the
process and, for a large file, in the user cache (:mod:`skillsift.cache.cases`).
"""

from __future__ import annotations

from .. import catalog
from ..cache.cases import MIN_BYTES, ParsedFiles
from ..diagnostics import SkillsiftError
from .parse import MAX_FILE_BYTES, Case, CaseFile, CasesInvalid, Expected, cases_error, parse_cases


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
    digest keys the parse, so the same text is parsed once and an edited one again.  A file
    of at least :data:`~skillsift.cache.cases.MIN_BYTES` is parsed once per content across
    runs too (:func:`parsed`).
    """
    import hashlib

    shown = shown or path
    raw = read_bounded(path, what, shown, hint)
    digest = hashlib.sha256(raw).hexdigest()
    key = (digest, shown, what)
    found = _PARSED.get(key)
    if found is None:
        found = parsed(raw, shown, what, digest)
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[key] = found
    if isinstance(found, CasesInvalid):
        raise found
    return found


def parsed(raw: bytes, shown: str, what: str, digest: str, *, store: ParsedFiles | None = None,
           min_bytes: int = MIN_BYTES) -> CaseFile | CasesInvalid:
    """What :func:`parse_cases` gives for ``raw`` (the :class:`CasesInvalid` it raises, returned), taken
    from the user cache of parsed files when it holds ``digest`` (the SHA-256 of ``raw``, hex) and
    saved there when it did not; a file under ``min_bytes`` is parsed without the cache."""
    if len(raw) < min_bytes:
        store = None
    elif store is None:
        store = ParsedFiles()
    if store is not None and store.on:
        body = store.load(digest)
        if body is not None:
            got = decoded(body, shown, what)
            if got is not None:
                return got
    found = _parse(raw, shown, what)
    if store is not None and store.on:
        store.save(digest, encoded(found))
    return found


def _parse(raw: bytes, shown: str, what: str) -> CaseFile | CasesInvalid:
    """:func:`parse_cases`, on the command line with the cyclic collector paused
    (:data:`skillsift.catalog.collector_pause`): a file of 10,000 cases is a few hundred thousand
    nodes, values and cases with no cycle among them, and the collections they set off, each
    walking everything the search holds by then, were half of the parse."""
    with catalog.collector_paused():
        try:
            return parse_cases(raw, shown, what)
        except CasesInvalid as exc:
            return exc


# -- a parse result as JSON, and back ------------------------------------------------------------


def encoded(found: CaseFile | CasesInvalid) -> dict:
    """``found`` as plain JSON values: ``file`` (version, k, cases; None: the file did not read as far as
    cases) and ``problems`` (line, message), which :func:`decoded` turns back into the same result."""
    if isinstance(found, CasesInvalid):
        case_file, problems = found.partial, [[line, message] for line, message in found.problems]
    else:
        case_file, problems = found, []
    file = None if case_file is None else [case_file.version, case_file.k, [_case(c) for c in case_file.cases]]
    return {"file": file, "problems": problems}


def _case(case: Case) -> list:
    return [case.id, case.query, [[e.id, e.grade, e.graded, e.line] for e in case.expect], list(case.avoid),
            case.role, list(case.tags), case.line, list(case.avoid_lines), case.role_line]


def decoded(body, shown: str, what: str) -> CaseFile | CasesInvalid | None:
    """What :func:`encoded` wrote, as parsing ``shown`` (a ``what`` file) gave it; None when any field
    is not what it writes (a damaged or foreign entry: the file is parsed again)."""
    try:
        return _decoded(body, shown, what)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        return None


def _decoded(body, shown: str, what: str) -> CaseFile | CasesInvalid | None:
    if type(body) is not dict or set(body) != {"file", "problems"} or type(body["problems"]) is not list:
        return None
    problems = []
    for item in body["problems"]:
        if type(item) is not list or len(item) != 2 or type(item[0]) is not int or type(item[1]) is not str:
            return None
        problems.append((item[0], item[1]))
    file = body["file"]
    case_file = None
    if file is not None:
        if type(file) is not list or len(file) != 3 or not _ints(file[:2]) or type(file[2]) is not list:
            return None
        cases = [_decoded_case(item) for item in file[2]]
        if any(case is None for case in cases):
            return None
        case_file = CaseFile(version=file[0], k=file[1], cases=tuple(cases), path=shown)  # type: ignore[arg-type]
    if not problems:
        return case_file
    return cases_error(shown, problems, partial=case_file, what=what)


def _ints(values) -> bool:
    return all(type(v) is int for v in values)


def _strs(values) -> bool:
    return all(type(v) is str for v in values)


_CASE_TYPES = (str, str, list, list, str, list, int, list, int)  # what _case writes, field by field
_EXPECTED_TYPES = (str, int, bool, int)


def _decoded_case(item) -> Case | None:
    if type(item) is not list or tuple(map(type, item)) != _CASE_TYPES:
        return None
    case_id, query, expect, avoid, role, tags, line, avoid_lines, role_line = item
    if (avoid and not _strs(avoid)) or (tags and not _strs(tags)) or (avoid_lines and not _ints(avoid_lines)):
        return None
    entries = []
    for entry in expect:
        if type(entry) is not list or tuple(map(type, entry)) != _EXPECTED_TYPES:
            return None
        entries.append(Expected(id=entry[0], grade=entry[1], graded=entry[2], line=entry[3]))
    return Case(id=case_id, query=query, expect=tuple(entries), avoid=tuple(avoid), role=role, tags=tuple(tags),
                line=line, avoid_lines=tuple(avoid_lines), role_line=role_line)
