"""Known requests: the examples files of ``[search] examples`` and the skills' frontmatter ``examples``.

An examples file is a cases file (docs/evaluation.md, "The cases file"): each case's query is a
request its expected skills are known to answer.  It is read as strictly as a cases file
(:func:`skillsift.casefile.parse.parse_cases`: every problem at once, AR9D2, file and line),
and every skill it names must be served (an unknown name is reported with the closest
served name).  Negative cases (no ``expect``) and ``avoid`` say nothing about what a skill
answers and are not examples.  A skill's frontmatter ``examples`` (strings) count as well.

The requests of one skill are deduplicated by their normalised text
(:func:`skillsift.ranker.model.lift.normalised`), first occurrence kept; the result is sorted
by (skill, text), so the same files give the same examples in the same order.

Here, below the evaluation, because :meth:`skillsift.ranker.search.Ranker.open` ranks with
them; the evaluation's held-out ranking of them is :mod:`skillsift.evaluate.examples`, which
re-exports these names.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .. import catalog as catalog_package
from ..casefile import CASES_INVALID
from ..casefile.files import load_file
from ..casefile.frontmatter import read_fields
from ..casefile.parse import EXAMPLES_HINT, MAX_SUGGESTED, CaseFile, listed_problems, skill_problems
from ..diagnostics import Diagnostic, SkillsiftError
from ..files import MAX_SKILL_BYTES, GlobLimitError, glob_magic, read_bounded, refused_target, repo_glob
from .model.lift import normalised

MAX_FILES = 64  # examples files one configuration may name (globs expanded)
HINT = EXAMPLES_HINT


@dataclass(frozen=True)
class KnownRequest:
    """One request ``skill`` is known to answer, and where it was written."""

    skill: str
    text: str
    source: str  # the examples file, or the skill's SKILL.md, relative to the repository
    line: int = 0


@dataclass(frozen=True)
class KnownRequests:
    requests: tuple[KnownRequest, ...] = ()
    files: tuple[str, ...] = ()  # the examples files read, relative to the repository, sorted
    cases: tuple[CaseFile, ...] = ()  # each file as a cases file (for the k-fold rule of eval)
    problem: str = ""  # why some examples files were left out (``skip_bad``): "" when none was

    def __len__(self) -> int:
        return len(self.requests)

    def digest(self) -> str:
        """sha256 over every (skill, text) pair: what the index's example rows must match."""
        h = hashlib.sha256()
        for r in self.requests:
            h.update(f"{r.skill}\x1f{r.text}\x1e".encode())
        return "sha256:" + h.hexdigest()

    def without(self, keys: Iterable[str]) -> KnownRequests:
        """These requests minus those whose normalised text is in ``keys``."""
        drop = set(keys)
        return KnownRequests(tuple(r for r in self.requests if normalised(r.text) not in drop), self.files,
                             self.cases, self.problem)


def example_files(root: str, patterns: Sequence[str]) -> list[str]:
    """The files ``patterns`` (paths or globs relative to ``root``) name, relative with ``/``, sorted.

    A plain path that names no file is an error; a glob that matches nothing is not.  A
    file that resolves outside ``root`` (a symlink out) is refused.
    """
    base = Path(root).resolve()
    found: set[str] = set()
    for pattern in patterns:
        clean = pattern.replace("\\", "/").strip()
        if glob_magic(clean):
            try:
                matches = repo_glob(clean, base)
            except GlobLimitError as exc:
                raise SkillsiftError(f"search.examples: {exc.strerror}",
                                     hint="name the examples files more narrowly", exit_code=1) from None
        else:
            if not (base / clean).exists():
                raise SkillsiftError(f'search.examples names "{pattern}", which does not exist',
                                     hint="Create the file (docs/query-mining.md) or remove it from [search] examples",
                                     exit_code=1)
            matches = [clean]
        for rel in matches:
            if refused_target(base / rel, base) is not None:
                raise SkillsiftError(f'search.examples: "{rel}" resolves outside the repository or into .git/',
                                     hint=f"replace the link {rel} with the file itself", exit_code=1)
            full = (base / rel).resolve()
            try:
                full.relative_to(base)
            except ValueError:
                raise SkillsiftError(f'search.examples: "{rel}" resolves outside the repository',
                                     hint="Examples files must be files of the repository", exit_code=1) from None
            if full.is_file():
                found.add(full.relative_to(base).as_posix())
            elif not glob_magic(clean):  # a directory or a FIFO where the named file should be
                raise SkillsiftError(f'search.examples names "{pattern}", which is not a regular file',
                                     hint="Name a YAML examples file (docs/query-mining.md)", exit_code=1)
    if len(found) > MAX_FILES:
        raise SkillsiftError(f"search.examples names {len(found)} files, the limit is {MAX_FILES}",
                             hint="Merge the examples into fewer files", exit_code=1)
    return sorted(found)


def _suggest(problem: tuple[int, str], known: Sequence[str]) -> tuple[int, str]:
    line, message = problem
    marker = 'unknown skill "'
    if marker not in message:
        return problem
    name = message.split(marker, 1)[1].rsplit('"', 1)[0]
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return (line, f'{message} (did you mean "{close[0]}"?)' if close else message)


def example_problems(case_file: CaseFile) -> list[tuple[int, str]]:
    """The examples file's own rules, beyond the cases file's (docs/evaluation.md, "The cases file").

    A known request is matched by its words (:func:`skillsift.ranker.model.lift.normalised`):
    a query with none (only punctuation or symbols) would be left out without a word.
    """
    return [(case.line, f"case {json.dumps(case.id, ensure_ascii=False)}: the query has no words; a known request "
                        "is matched by its words")
            for case in case_file.cases if case.expect and not normalised(case.query)]


def load_examples_files(root: str, patterns: Sequence[str], known: Sequence[str], *,
                        skip_bad: bool = False) -> KnownRequests:
    """Read and check every examples file; one AR9D2 error lists every problem of every file.

    ``skip_bad`` (a search): a file that does not read or holds a problem is left out as a
    whole, the others count, and :attr:`KnownRequests.problem` says which and why
    (docs/evaluation.md, "Strict YAML").
    """
    try:
        files = example_files(root, patterns)
    except SkillsiftError as exc:
        if not skip_bad:
            raise
        return KnownRequests(problem=f"the examples files are not used: {exc.message}")
    with catalog_package.collector_paused():
        return _load_examples_files(root, files, known, skip_bad)


def _load_examples_files(root: str, files: list[str], known: Sequence[str], skip_bad: bool) -> KnownRequests:
    names = sorted(set(known))
    requests: list[KnownRequest] = []
    cases: list[CaseFile] = []
    errors: list[SkillsiftError] = []
    bad: list[SkillsiftError] = []  # files that do not read at all
    for rel in files:
        try:
            case_file = load_file(os.path.join(root, rel), "examples", rel)
        except SkillsiftError as exc:
            if not exc.diagnostics and not skip_bad:
                raise
            (errors if exc.diagnostics else bad).append(exc)
            continue
        found = skill_problems(case_file, names)
        problems = [_suggest(p, names) for p in found[:MAX_SUGGESTED]] + found[MAX_SUGGESTED:]
        problems += example_problems(case_file)
        if problems:
            errors.append(_error(rel, problems))
            continue
        cases.append(case_file)
        for case in case_file.cases:
            for skill in case.expect_ids:
                requests.append(KnownRequest(skill, case.query, rel, case.line))
    if (errors or bad) and not skip_bad:
        raise _merged(errors)
    used = tuple(f for f in files if f in {c.path for c in cases})
    return KnownRequests(tuple(requests), used, tuple(cases), _left_out(bad + errors))


def _left_out(errors: list[SkillsiftError]) -> str:
    """Which files a search leaves out and the first problem of each: one line."""
    if not errors:
        return ""
    parts = []
    for exc in errors:
        diags = exc.diagnostics
        if diags:
            first = diags[0]
            more = f" (and {len(diags) - 1} more)" if len(diags) > 1 else ""
            parts.append(f"{first.file}: line {first.line}: {first.message}{more}")
        else:
            parts.append(exc.message)
    return ("known requests of an invalid examples file are not used (`skillsift validate` lists every problem): "
            + "; ".join(parts))


def file_requests(root: str, patterns: Sequence[str], *, leave_out: Sequence[str] = ()) -> tuple[KnownRequest, ...]:
    """The requests the examples files of ``patterns`` hold, in file and line order, skills not checked.

    For reading one tree's examples beside another's (the gate review of ``skillsift ci``):
    the files are found and refused as :func:`example_files` does and parsed as strictly as
    a cases file (a SkillsiftError, AR9D2, when one is not valid); whether the skills exist
    is the evaluation's check, not this one.  Files in ``leave_out`` (relative, ``/``) are
    skipped.
    """
    out: list[KnownRequest] = []
    errors: list[SkillsiftError] = []
    for rel in example_files(root, patterns):
        if rel in leave_out:
            continue
        try:
            case_file = load_file(os.path.join(root, rel), "examples", rel)
        except SkillsiftError as exc:
            errors.append(exc)
            continue
        out += [KnownRequest(skill, case.query, rel, case.line)
                for case in case_file.cases for skill in case.expect_ids]
    if errors:
        raise _merged(errors)
    return tuple(out)


def _error(path: str, problems) -> SkillsiftError:
    ordered = listed_problems(sorted(problems, key=lambda p: p[0]))
    text = "; ".join(f"line {line}: {msg}" for line, msg in ordered)
    diags = [Diagnostic(file=path, line=line, code=CASES_INVALID, message=msg) for line, msg in ordered]
    return SkillsiftError(f"{CASES_INVALID}: invalid examples file: {path}: {text}", diagnostics=diags, hint=HINT,
                          exit_code=1)


def _merged(errors: list[SkillsiftError]) -> SkillsiftError:
    if len(errors) == 1:
        return errors[0]
    diags = [d for e in errors for d in e.diagnostics]
    text = " | ".join(str(e.message) if hasattr(e, "message") else str(e) for e in errors)
    return SkillsiftError(text, diagnostics=diags, hint=HINT, exit_code=1)


def known_requests(catalog, config, *, skip_bad: bool = False) -> KnownRequests:
    """Every known request of ``catalog``: the configured examples files, then frontmatter ``examples``.

    ``skip_bad``: an invalid examples file, or a skill whose frontmatter ``examples`` break a
    rule, is left out, with the reason in ``problem`` (:func:`load_examples_files`), instead of
    stopping the caller; without it, one AR9D2 error lists every problem with its file and line.
    """
    skills = list(catalog.skills)
    loaded = load_examples_files(config.root, config.search.examples, [s.name for s in skills], skip_bad=skip_bad) \
        if config.search.examples else KnownRequests()
    requests = list(loaded.requests)
    bad: list[Diagnostic] = []
    for skill in skills:
        found, problems = skill_requests(skill, catalog.root)
        if problems:
            bad.extend(problems)
            continue
        requests.extend(found)
    problem = loaded.problem
    if bad and not skip_bad:
        raise frontmatter_error(bad)
    if bad:
        left = sorted({d.file for d in bad})
        first = bad[0]
        problem = "; ".join(p for p in (problem, (
            f"the frontmatter examples of {len(left)} skill{'s' if len(left) != 1 else ''} are not used "
            f"(`skillsift validate` lists every problem): {first.file}: line {first.line}: {first.message}"
            + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""))) if p)
    with catalog_package.collector_paused():
        return KnownRequests(dedupe(requests), loaded.files, loaded.cases, problem)


_READ: dict = {}  # (root, path, digest) -> (requests, problems): a SKILL.md is read once per process
_READ_MAX = 4096


def skill_requests(skill, root: str = ".") -> tuple[tuple[KnownRequest, ...], tuple[Diagnostic, ...]]:
    """The known requests of ``skill``'s frontmatter ``examples`` (each with its SKILL.md line) and
    the problems that keep them out (AR9D2, SKILL.md file and line).

    Read by the one reader of the field (:func:`skillsift.casefile.frontmatter.read_fields`), as
    strictly as an examples file: the SKILL.md text is read again (bounded) for the strict YAML
    checks and the lines; a skill listing no ``examples`` costs nothing.
    """
    front = skill.frontmatter
    if not isinstance(front, dict) or "examples" not in front:
        return (), ()
    key = (os.path.abspath(root), skill.path, skill.digest)
    found = _READ.get(key)
    if found is None:
        found = _read_skill_requests(skill, root)
        if len(_READ) >= _READ_MAX:
            _READ.clear()
        _READ[key] = found
    return found


def _read_skill_requests(skill, root: str) -> tuple[tuple[KnownRequest, ...], tuple[Diagnostic, ...]]:
    text = None
    if skill.path:
        try:
            text = read_bounded(os.path.join(root, skill.path), MAX_SKILL_BYTES).decode("utf-8")
        except (OSError, UnicodeDecodeError, ValueError):
            text = None  # the catalog reports an unreadable SKILL.md; lines fall back to the frontmatter's
    read = read_fields({"examples": skill.frontmatter["examples"]}, text, first_line=skill.frontmatter_line)
    problems = list(read.problems_of("examples"))
    requests = []
    for entry in read.of("examples"):
        if not normalised(entry.query):
            problems.append((entry.line, f"examples entry {entry.number}: the query has no words; a known request "
                                         "is matched by its words"))
            continue
        requests.append(KnownRequest(skill.name, entry.query, skill.path, entry.line))
    diags = tuple(Diagnostic(file=skill.path, line=line or skill.frontmatter_line or None, code=CASES_INVALID,
                             message=f"skill {json.dumps(skill.name, ensure_ascii=False)}: {message}", hint=FM_HINT)
                  for line, message in sorted(problems, key=lambda p: p[0]))
    return tuple(requests), diags


FM_HINT = ("fix the lines listed: frontmatter examples are known requests, read as strictly as an examples file "
           "(docs/query-mining.md)")


def frontmatter_error(problems: Sequence[Diagnostic]) -> SkillsiftError:
    """One AR9D2 error listing every problem of the skills' frontmatter ``examples`` as ``file:line: message``."""
    listed = list(problems)[:1000]
    text = "; ".join(f"{d.location()}: {d.message}" for d in listed)
    return SkillsiftError(f"{CASES_INVALID}: invalid examples in SKILL.md frontmatter: {text}",
                          diagnostics=listed, hint=FM_HINT, exit_code=1)


def frontmatter_requests(skill, root: str = ".") -> list[KnownRequest]:
    """The known requests of a skill's frontmatter ``examples``, each with its SKILL.md line
    (none when a problem keeps them out: :func:`skill_requests`)."""
    found, problems = skill_requests(skill, root)
    return [] if problems else list(found)


def dedupe(requests: Iterable[KnownRequest]) -> tuple[KnownRequest, ...]:
    """One request per (skill, normalised text), the first kept; sorted by (skill, text)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for r in requests:
        key = (r.skill, normalised(r.text))
        if not key[1] or key in seen:
            continue
        seen.add(key)
        out.append(r)
    return tuple(sorted(out, key=lambda r: (r.skill, r.text)))
