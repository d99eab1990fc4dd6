"""AR001: a credential sits in a skill; SK010: the file of accepted findings is unusable.

Findings come from :mod:`skillsift.secrets.scan` (the rules of docs/secrets.md plus the
configured ``[secrets] patterns``; placeholders such as ``your-key-here`` are not secrets),
over a SKILL.md's raw lines and its parsed values (:func:`skill_findings`).  A finding
is not reported when

* its line carries ``skillsift: allow-secret`` (in any comment style): it is then a
  note, which fails nothing but keeps the allowance visible; or
* it is listed in the secrets baseline (``[validate] secrets_baseline``, default
  ``.skillsift/secrets-baseline.json``), which ``skillsift validate
  --update-secrets-baseline`` writes from the current findings.

The baseline never holds a secret: an entry is the file, the pattern kind, the masked
excerpt and ``sha256:`` of ``file NUL kind NUL value``, so the entry stays valid when the
line moves and stops matching when the value changes.  Only ``re`` and ``json`` are imported
(the pre-commit hook starts fast; its few digests come from :func:`skillsift.cache.base.sha256`).
"""

from __future__ import annotations

import json
import re

from ..cache.base import sha256
from ..catalog.embedtext import embedded_text
from ..config.checks import check
from ..diagnostics import ERROR, NOTE, Diagnostic
from ..secrets.scan import ALLOW_MARKER, NEEDLE_SETS, SecretFinding, holds_nul, scan_many, scan_values
from ..validators.workspace import Workspace, rel_posix

TYPE_CHECKING = False  # (mypy reads it as true; typing is not imported on the hooks' path)
if TYPE_CHECKING:
    from ..secrets.scan import SecretFinding

SECRET = check("AR001", "secret-detected", ERROR, triggers=("skill", "skill-file", "secrets-baseline"),
               files="every file of a skill folder (text files up to 4 MiB)",
               summary="no credential sits in a skill (placeholders, allowed lines and baselined findings excepted)")
BASELINE_INVALID = check("SK010", "secrets-baseline-invalid", ERROR, scope="repo",
                         triggers=("secrets-baseline", "config"),
                         files="the [validate] secrets_baseline file (default .skillsift/secrets-baseline.json)",
                         summary="the file of accepted secret findings is valid JSON of the expected shape")
CODE = SECRET.code
BASELINE_VERSION = 1
BASELINE_MAX_BYTES = 16 << 20
HINT = ("remove it from the skill and rotate it; if it is not a secret, add `skillsift: allow-secret` to the "
        "line, or accept it with 'skillsift validate --update-secrets-baseline'")
def fingerprint(file: str, kind: str, value: str) -> str:
    """The baseline key of one finding: ``sha256:`` of ``file NUL kind NUL value``."""
    data = "\0".join((file, kind, value)).encode("utf-8", "surrogatepass")
    return "sha256:" + sha256(data).hexdigest()


def _strings(value):
    """Every string inside a parsed frontmatter value (lists and tables included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key in value:
            yield from _strings(key)
            yield from _strings(value[key])
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _key_line(text: str, key: str, first: int) -> int:
    """The 1-based line of frontmatter ``key:`` in ``text`` (``first`` when not found)."""
    pattern = re.compile(r"[ \t]*[\"']?" + re.escape(key) + r"[\"']?[ \t]*:")
    for number, line in enumerate(text.split("\n")[: 4000], start=1):
        if number >= first and pattern.match(line):
            return number
    return first


def skill_findings(text: str, extra_patterns=(), *, skill=None, embedded: str = "",
                   cache=None) -> list[tuple[SecretFinding, str]]:
    """(finding, value) of every secret in a SKILL.md: its raw lines and its parsed values.

    The raw text is what the file shows; the parsed values (each string of the
    frontmatter, and ``embedded``, the text an index build would send) are what an
    escaped YAML string such as ``"api_key = \\"...\\""`` or ``"\\x41KIA..."`` really
    holds.  A value found only when parsed is reported where it appears in the file, or
    at its frontmatter key when the file only holds it escaped.  So AR001 reports every
    secret AR9D3 withholds (docs/secrets.md).
    """

    if skill is None and not embedded:
        return scan_values(text, extra_patterns, cache)
    keys: list = []  # each value's frontmatter key (None for a line of the embedded text: its label)
    values: list[str] = []
    if skill is not None:
        for key, value in (skill.frontmatter or {}).items():
            if isinstance(value, str):
                keys.append(key)
                values.append(value)
            else:
                for item in _strings(value):
                    keys.append(key)
                    values.append(item)
    if embedded:
        labelled = embedded.split("\n")
        keys.extend([None] * len(labelled))
        values.extend(labelled)
    # one reading of the needles for the file and its values (scan_many)
    found, *parts = scan_many([text, *values], extra_patterns, cache)
    if not any(parts):
        return found  # (in text order, as sorted below)
    covered = [value for _finding, value in found]
    first = max(getattr(skill, "frontmatter_line", 0) or 1, 1)
    lines = None
    for key, part, part_found in zip(keys, values, parts, strict=True):
        for finding, value in part_found:
            if any(value in seen or seen in value for seen in covered):
                continue
            covered.append(value)
            offset = text.find(value)
            if offset >= 0:
                line = text.count("\n", 0, offset) + 1
                column = offset - (text.rfind("\n", 0, offset) + 1) + 1
            else:
                line, column = _key_line(text, part.split(":", 1)[0] if key is None else str(key), first), None
            if lines is None:
                lines = text.split("\n")
            allowed = finding.allowed or ALLOW_MARKER in (lines[line - 1] if line <= len(lines) else "")
            found.append((SecretFinding(kind=finding.kind, label=finding.label, line=line, column=column or 0,
                                        masked=finding.masked, allowed=allowed), value))
    found.sort(key=lambda item: (item[0].line, item[0].column))
    return found


def scan(file: str, text: str, extra_patterns=(), *, allowed: bool = False, skill=None,
         embedded: str = "", cache=None) -> list[tuple[SecretFinding, str]]:
    """(finding, fingerprint) for every finding in ``text``; those on allowed lines only with ``allowed``.

    With ``skill`` (the parsed SKILL.md) and ``embedded`` (its embedded text), the parsed
    values are scanned too (:func:`skill_findings`).
    """
    out = []
    for finding, value in skill_findings(text, extra_patterns, skill=skill, embedded=embedded, cache=cache):
        if finding.allowed and not allowed:
            continue
        out.append((finding, fingerprint(file, finding.kind, value)))
    return out


def check_text(file: str, text: str, *, extra_patterns=(), accepted=frozenset(), skill=None,
               embedded: str = "", cache=None) -> list[Diagnostic]:
    """AR001 for each finding of ``text`` that is not in ``accepted``.

    A finding on a line marked ``skillsift: allow-secret`` is kept as a note (it fails
    nothing, and the allowances stay visible); one in ``accepted`` is dropped.
    """
    out = []
    for finding, key in scan(file, text, extra_patterns, allowed=True, skill=skill, embedded=embedded,
                             cache=cache):
        column = finding.column or None
        if finding.allowed:
            out.append(SECRET.report(file=file, line=finding.line, column=column, level=NOTE,
                                     message=f"{finding.message}, allowed on this line", rule=finding.kind))
        elif key not in accepted:
            out.append(SECRET.report(file=file, line=finding.line, column=column,
                                     message=finding.message, hint=HINT, rule=finding.kind))
    return out


# -- the baseline of accepted findings -----------------------------------------------------------


def parse_baseline(raw: str, file: str) -> tuple[frozenset[str], list[Diagnostic]]:
    """The accepted fingerprints of a baseline file's text, or SK010 problems."""

    def problem(message: str, line: int | None = None) -> tuple[frozenset[str], list[Diagnostic]]:
        return frozenset(), [BASELINE_INVALID.report(
            file=file, line=line, message=message,
            hint="regenerate it with 'skillsift validate --update-secrets-baseline'")]

    from ..jsonio import JSONDocumentError, read_json

    try:
        doc = read_json(raw, source="the secrets baseline", max_bytes=BASELINE_MAX_BYTES)
    except JSONDocumentError as exc:
        if exc.kind == "syntax":
            return problem(f"the secrets baseline is not valid JSON: {exc.reason}", exc.line)
        return problem(str(exc), exc.line)
    if not isinstance(doc, dict) or doc.get("schema_version") != BASELINE_VERSION:
        return problem(f"the secrets baseline must be an object with schema_version {BASELINE_VERSION}")
    entries = doc.get("accepted", [])
    if not isinstance(entries, list):
        return problem("the secrets baseline's accepted must be a list")
    keys = set()
    for position, entry in enumerate(entries):
        key = entry.get("fingerprint") if isinstance(entry, dict) else None
        if not isinstance(key, str) or not key.startswith("sha256:"):
            return problem(f"accepted entry {position + 1} has no sha256: fingerprint")
        keys.add(key)
    return frozenset(keys), []


def baseline_document(findings) -> dict:
    """The baseline accepting ``findings`` (``(file, finding, fingerprint)``), sorted, without secrets."""
    entries = {}
    for file, finding, key in findings:
        entries[key] = {"file": file, "kind": finding.kind, "masked": finding.masked, "fingerprint": key}
    ordered = sorted(entries.values(), key=lambda e: (e["file"], e["kind"], e["fingerprint"]))
    return {"schema_version": BASELINE_VERSION, "accepted": ordered}


def baseline_bytes(document: dict) -> bytes:
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def load_accepted(ws) -> tuple[frozenset[str], list[Diagnostic]]:
    """The accepted fingerprints of the workspace's secrets baseline ({} when the file is absent)."""
    import os

    rel = rel_posix(ws.settings.secrets_baseline, ws.root)
    if not os.path.exists(ws.abspath(rel)):
        return frozenset(), []
    if os.path.isfile(ws.abspath(rel)) and os.path.getsize(ws.abspath(rel)) > BASELINE_MAX_BYTES:
        return frozenset(), [BASELINE_INVALID.report(
            file=rel, message=f"the secrets baseline is larger than {BASELINE_MAX_BYTES} bytes",
            hint="regenerate it with 'skillsift validate --update-secrets-baseline'")]
    raw = ws.read_text(rel)
    if raw is None:
        return frozenset(), [BASELINE_INVALID.report(
            file=rel, message="the secrets baseline cannot be read as UTF-8 text")]
    return parse_baseline(raw, rel)


def extra_patterns(ws) -> tuple:
    return tuple(ws.config.secret_patterns) if ws.config is not None else ()


def _escaped_frontmatter(text: str) -> bool:
    """The frontmatter holds a backslash: its parsed values may differ from its raw lines."""
    if not text.startswith("---"):
        return False
    end = text.find("\n---", 3)
    return "\\" in text[: end if end >= 0 else len(text)]


def parsed_parts(ws, rel: str, text: str, *, parse: bool) -> tuple[object, str]:
    """(skill, embedded text) of a SKILL.md for :func:`skill_findings`, or (None, "").

    With ``parse`` every SKILL.md is read as YAML; without it (the hook) only one whose
    frontmatter holds an escape, the one case where the parsed text differs from the lines.
    """
    if rel.rsplit("/", 1)[-1] != "SKILL.md" or not (parse or _escaped_frontmatter(text)):
        return None, ""
    skill = ws.skill_at(rel)
    if skill is None or ws.config is None:
        return skill, ""

    s = ws.config.search
    return skill, embedded_text(skill, s.fields, s.index_body, s.body_chars)


def current_findings(ws, files, *, parse: bool = True) -> list[tuple[str, SecretFinding, str]]:
    """(file, finding, fingerprint) for every not-allowed finding in ``files`` (for the baseline)."""
    out: list[tuple[str, SecretFinding, str]] = []
    for rel in files:
        text = ws.read_text(rel)
        if text is None:
            continue
        skill, embedded = parsed_parts(ws, rel, text, parse=parse)
        out.extend((rel, finding, key) for finding, key in scan(rel, text, extra_patterns(ws), skill=skill,
                                                                 embedded=embedded))
    return out


def check_files(ws, files, *, parse: bool = False, cache=None) -> list[Diagnostic]:
    """AR001/SK010 over ``files`` (relative paths; unreadable or non-UTF-8 files are skipped).

    ``parse`` scans the parsed values of every SKILL.md too (see :func:`parsed_parts`).
    ``cache``: a :class:`~skillsift.cache.secret_scans.ScanCache` of earlier scans (same findings).
    """
    accepted, out = load_accepted(ws)
    patterns = extra_patterns(ws)
    for rel in files:
        text = ws.read_text(rel)
        # (holds_nul keeps the text's bytes for the needle sets, which a scan cache may not need)
        if text is None or (holds_nul(text) if cache is None else "\0" in text):
            continue  # unreadable, over the size bound, not UTF-8, or binary
        try:
            skill, embedded = parsed_parts(ws, rel, text, parse=parse)
            out.extend(check_text(rel, text, extra_patterns=patterns, accepted=accepted, skill=skill,
                                  embedded=embedded, cache=cache))
        except ValueError as exc:  # a configured pattern that does not compile
            from .config import INVALID

            return out + [INVALID.report(file=ws.project_file, message=str(exc))]
    if cache is not None:
        cache.save()
    return out


def skill_files(ws, skill_paths) -> list[str]:
    """Each SKILL.md of ``skill_paths`` followed by every other file of its folder (bounded,
    :meth:`~skillsift.validators.workspace.Workspace.skill_folder_files`)."""
    out: list[str] = []
    for rel in skill_paths:
        out.append(rel)
        out.extend(ws.skill_folder_files(rel))
    return list(dict.fromkeys(out))


def run(ws: Workspace) -> list[Diagnostic]:
    """AR001 over every file of every skill folder (text files up to the size bound; binary and
    non-UTF-8 files skipped), the scans of unchanged texts taken from the cache (docs/configuration.md)."""
    from ..cache.secret_scans import ScanCache

    NEEDLE_SETS.open()  # a whole catalog: the needle sets from its first file on
    cache = ScanCache(ws.root)
    return check_files(ws, skill_files(ws, ws.skill_paths), parse=True,
                       cache=cache if cache.path is not None else None)  # (none kept: no key to hash)


def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
    """AR001 over the SKILL.md files among ``paths`` and the files of a skill folder (and SK010 for the baseline)."""
    import os

    return check_files(ws, [rel for rel in paths if (rel.rsplit("/", 1)[-1] == "SKILL.md" or ws.skill_of(rel))
                            and os.path.isfile(ws.abspath(rel))], parse=True)
