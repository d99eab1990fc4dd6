"""SK101-SK108: the Agent Skills specification's rules, one code per rule.

The rules and their limits are the specification's (agentskills.io/specification) as its
reference validator applies them (skills-ref, ``skills_ref/validator.py``); docs/validate.md
lists each with its source.

* SK101 ``name``: at most 64 characters, lowercase, letters, digits and hyphens only, no
  leading, trailing or doubled hyphen (after trimming and NFKC normalisation);
* SK102 ``name`` differs from its folder's name (both NFKC);
* SK103 ``description`` longer than 1,024 characters;
* SK104 ``compatibility`` not a string, or longer than 500 characters;
* SK105 a field neither in the specification nor read by skillsift or a targeted agent (note);
* SK106 ``metadata`` not a map of string keys to string values;
* SK107 SKILL.md longer than the recommended 500 lines (note);
* SK108 a relative link to a file that does not exist.

A missing or blank ``name``/``description`` is SK005/SK006 (:mod:`.frontmatter`), a file
that does not parse SK001; these checks run only on a file that parses to a mapping.
Pure functions over a file's text; :func:`run` feeds them from the workspace.
"""

from __future__ import annotations

import os
import re
import unicodedata
from bisect import bisect_right

from ..cache import regexes
from ..catalog.agents import known_fields
from ..config.checks import check
from ..diagnostics import NOTE, WARNING, Diagnostic
from ..validators.grouped import group_repeated
from ..validators.parsed import fenced_blocks, marks, parsed_skills
from ..validators.text_cache import active, cached, save
from ..validators.workspace import Workspace, posix_name, posix_parent
from .frontmatter import value_kind

NAME_FORMAT = check("SK101", "spec-name-format", WARNING,
                    summary="name is at most 64 characters, lowercase letters, digits and single inner hyphens "
                            "(specification)")
NAME_FOLDER = check("SK102", "spec-name-folder", WARNING, summary="name equals its folder's name (specification)")
DESCRIPTION_LONG = check("SK103", "spec-description-length", WARNING,
                         summary="description is at most 1,024 characters (specification)")
COMPATIBILITY = check("SK104", "spec-compatibility", WARNING,
                      summary="compatibility, when set, is a string of at most 500 characters (specification)")
UNKNOWN_FIELD = check("SK105", "spec-unknown-field", NOTE, triggers=("skill", "config"),
                      summary="every field is in the specification or read by skillsift or a targeted agent")
METADATA = check("SK106", "spec-metadata", WARNING,
                 summary="metadata, when set, maps string keys to string values (specification)")
TOO_MANY_LINES = check("SK107", "spec-too-many-lines", NOTE,
                       summary="SKILL.md stays under the recommended 500 lines (specification)")
MISSING_FILE = check("SK108", "spec-missing-file", WARNING,
                     summary="every relative link of SKILL.md points to a file that exists")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
MAX_LINES = 500
MAX_LINKS = 1000  # links checked per file at most

_CANDIDATE = regexes.compile(r"\]\(|\]:")  # searched for its "]" at C speed, faster than "](" with str.find
_CODE_SPAN = regexes.compile(r"`+[^`]*`+")
# No part of a link may run over a "[" (where the next link could start): every character of
# a line is then scanned by one match attempt at most, so a line of 100,000 "[" or "](" is read
# in linear time (docs/validate.md, SK108).  A target holding "[" is not checked.  An image's "!"
# is not matched: a link's target is the same without it (no match ends at a "!", so none holds one
# and not the "[" after it), and a pattern that starts with "[" is tried only where one is (with an
# optional "!" first, at every character of the line).
_INLINE_LINK = regexes.compile(
    r"\[[^\[\]\n]*\]\(\s*(<[^>\[\n]*>|[^)\s\[]+)(?:\s+(?:\"[^\"\[]*\"|'[^'\[]*'))?\s*\)")
# a link reference definition; a footnote ("[^1]: text") is not one
_REF_DEF = regexes.compile(r"^\s{0,3}\[(?!\^)[^\]\n]+\]:\s*(<[^>\n]*>|\S+)")
_SCHEME = regexes.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_ASCII_NAME = regexes.compile(r"[A-Za-z0-9-]*")


def normal_name(text: str) -> str:
    """A name as the specification compares it: trimmed, NFKC-normalised."""
    return unicodedata.normalize("NFKC", text.strip())


def name_problems(name: str) -> list[str]:
    """What is wrong with the format of a (non-blank) ``name``, in the specification's words."""
    name = normal_name(name)
    out = []
    if len(name) > MAX_NAME:
        out.append(f"is {len(name)} characters, over the {MAX_NAME} allowed")
    if name != name.lower():
        out.append("has capitals (names are lowercase)")
    if name.startswith("-") or name.endswith("-"):
        out.append("starts or ends with a hyphen")
    if "--" in name:
        out.append("holds a doubled hyphen")
    # a name of ASCII letters, digits and hyphens (nearly every one) holds no other character
    bad = [] if _ASCII_NAME.fullmatch(name) else sorted({c for c in name if not (c.isalnum() or c == "-")})
    if bad:
        shown = ", ".join(repr(c) for c in bad[:5])
        out.append(f"holds {shown} (only letters, digits and hyphens are allowed)")
    return out


def suggest_name(name: str) -> str:
    """The nearest valid name: lowercase, runs of other characters as one hyphen, cut at 64."""
    text = normal_name(name).lower()
    text = "".join(c if c.isalnum() else "-" for c in text)
    text = re.sub(r"-{2,}", "-", text).strip("-")
    return text[:MAX_NAME].rstrip("-") or "skill"


#: Words a stand-in file name is made of (``script_name.py``, ``your-file.md``, ``path/to/file.py``).
_STAND_IN_PARTS = frozenset({
    "script", "scripts", "name", "file", "filename", "your", "my", "example", "sample", "foo", "bar", "baz", "xxx",
    "xyz", "something", "placeholder", "path", "some", "new", "tool", "module", "skill", "dir", "folder", "here",
    "other", "another", "doc", "document", "reference", "helper", "template",
})
_STEM_PARTS = regexes.compile(r"[-_\s]+")
_STAND_IN_ALONE = frozenset({"placeholder", "xxx", "foo", "something", "filename", "your", "example", "sample"})


def placeholder_path(target: str) -> bool:
    """A path written as a stand-in, not a file: under ``path/to/``, or a file name made only of generic
    words, two or more (``script_name.py``, ``your_file.md``) or one that is a stand-in itself (``foo.py``)."""
    if target.startswith(("path/to/", "./path/to/")) or "/path/to/" in target:
        return True
    stem = target.rstrip("/").rsplit("/", 1)[-1].split(".", 1)[0]
    words = [word for word in _STEM_PARTS.split(stem.lower()) if word]
    if not words or not all(word in _STAND_IN_PARTS for word in words):
        return False
    return len(words) >= 2 or words[0] in _STAND_IN_ALONE


def relative_links(body: str, first_line: int) -> list[tuple[int, str]]:
    """(file line, target) of each relative link in the markdown ``body`` (fenced code skipped)."""
    out: list[tuple[int, str]] = []
    held = marks(body)
    if "](" not in held and "]:" not in held:
        return out
    fences = fenced_blocks(body).lines  # every fence line opens or closes a block here
    line_end = -1  # where the last line read ends: later hits before it are on that line
    line_no, counted = 0, 0  # the line number of offset ``counted``, counted on only for a link kept
    for hit in _CANDIDATE.finditer(body):
        at = hit.start()
        if at < line_end:
            continue  # the line was read already
        start = body.rfind("\n", 0, at) + 1
        end = body.find("\n", at)
        line_end = len(body) if end < 0 else end
        if fences and bisect_right(fences, start) % 2:
            continue  # inside a fenced block
        line = body[start:line_end]
        text = _CODE_SPAN.sub("", line) if "`" in line else line  # (a line without a backtick has no span)
        targets = _INLINE_LINK.findall(text)  # (its one group: each target)
        ref = _REF_DEF.match(text)
        if ref:
            targets.append(ref.group(1))
        for target in targets:
            target = target.strip("<>").strip()
            if (not target or target.startswith(("#", "/", "~", "{", "$", "\\")) or _SCHEME.match(target)
                    or "{{" in target):
                continue
            target = target.split("#", 1)[0].split("?", 1)[0]
            if "%" in target:  # unquote leaves a target without "%" as it is (urllib.parse loads only then)
                from urllib.parse import unquote

                target = unquote(target)
            if target and not placeholder_path(target):
                line_no += body.count("\n", counted, start)
                counted = start
                out.append((first_line + line_no, target))
                if len(out) >= MAX_LINKS:
                    return out
    return out


LINKS_CHECK = "links"  # the text-check cache's name for the relative links of a SKILL.md


def links_of(ws, rel: str, body: str, body_line: int) -> list[tuple[int, str]]:
    """:func:`relative_links` of one SKILL.md, found once per workspace (SK108 and the path checks read them).

    When ``body`` is the body of the workspace's parsed view of ``rel`` (:mod:`.parsed`), the links
    come from the text-check cache, when the workspace keeps one: they depend on the file's text alone.
    There each is kept as a diagnostic of code ``links`` (its line, and the target as its message);
    nothing reports those.
    """
    memo = ws.__dict__.setdefault("_relative_links", {})
    if rel not in memo:
        view = ws.__dict__.get("_parsed_views", {}).get(rel)
        if view is not None and view.body is body and view.body_line == body_line and active(ws):
            kept = cached(ws, LINKS_CHECK, view, _links_as_diagnostics)
            memo[rel] = [(d.line, d.message) for d in kept]
        else:
            memo[rel] = relative_links(body, body_line)
    return memo[rel]


def _links_as_diagnostics(parsed) -> list[Diagnostic]:
    return [Diagnostic(file=parsed.path, line=line, code=LINKS_CHECK, severity=NOTE, message=target)
            for line, target in relative_links(parsed.body, parsed.body_line)]


def _folder_fix(name: str, folder: str, valid_name: bool) -> str:
    """How to make a skill's name and its folder's equal, by which of the two is a valid name."""
    valid_folder = not name_problems(folder)
    if valid_folder and valid_name:
        return f"rename the folder to {normal_name(name)}, or set `name: {folder}`"
    if valid_folder:
        return f"set `name: {folder}`"
    if valid_name:
        return f"rename the folder to {normal_name(name)}"
    return f"use one valid name for both, e.g. `name: {suggest_name(name)}` in a folder of that name"


def _name_findings(path: str, front: dict, key_line) -> list[Diagnostic]:
    """SK101 (the name's format) and SK102 (the name differs from the folder's)."""
    name = front.get("name")
    if not (isinstance(name, str) and name.strip()):
        return []
    out = []
    folder = posix_name(posix_parent(path))
    line = key_line("name")
    problems = name_problems(name)
    if problems:
        out.append(NAME_FORMAT.report(
            file=path, line=line,
            message=f'name "{name.strip()}" ' + "; ".join(problems),
            hint=f"rename it to `name: {suggest_name(name)}` (and the folder to match)"))
    if folder and normal_name(folder) != normal_name(name):
        out.append(NAME_FOLDER.report(
            file=path, line=line,
            message=f'name "{name.strip()}" differs from its folder "{folder}"; the specification '
                    "requires them to be equal",
            hint=_folder_fix(name, folder, not problems)))
    return out


def _compatibility_findings(path: str, front: dict, key_line) -> list[Diagnostic]:
    if "compatibility" not in front:
        return []
    value = front["compatibility"]
    if not isinstance(value, str):
        return [COMPATIBILITY.report(
            file=path, line=key_line("compatibility"),
            message=f"compatibility must be a string, not {value_kind(value)}",
            hint='write one line of text, e.g. `compatibility: "Requires git and Python 3.11+"`')]
    if len(value) > MAX_COMPATIBILITY:
        return [COMPATIBILITY.report(
            file=path, line=key_line("compatibility"),
            message=f"compatibility is {len(value)} characters, over the specification's {MAX_COMPATIBILITY}",
            hint=f"cut it by {len(value) - MAX_COMPATIBILITY} characters; put details in the body")]
    return []


def _metadata_findings(path: str, front: dict, key_line) -> list[Diagnostic]:
    if "metadata" not in front:
        return []
    value = front["metadata"]
    bad = None
    if not isinstance(value, dict):
        bad = f"metadata must be a map of string keys to string values, not {value_kind(value)}"
    else:
        nested = sorted(str(k) for k, v in value.items() if isinstance(v, (dict, list)) or v is None)
        if nested:
            bad = f"metadata values must be strings; {', '.join(nested[:5])} " + (
                "is not" if len(nested) == 1 else "are not")
    if not bad:
        return []
    return [METADATA.report(
        file=path, line=key_line("metadata"), message=bad,
        hint='write one `key: "text"` line per entry under metadata:, e.g. `metadata: {author: "me"}`')]


def check_spec(path: str, text: str, front: dict, *, known_fields, key_line, body: str = "", body_line: int = 0,
               exists=None, locate=None, links=None) -> list[Diagnostic]:
    """Every SK101-SK108 finding of one parsed SKILL.md.

    ``front`` is its frontmatter mapping, ``key_line(key)`` the file line of a top-level key,
    ``body`` the text after the frontmatter starting at file line ``body_line``, and
    ``exists(rel)`` tells whether a path relative to the repository root exists (SK108);
    ``locate(folder, target)``, when given, resolves a link as the OS does instead (a symlinked
    folder is followed before ``..``): ``(relative path, exists)``, or None outside the repository.
    """
    out: list[Diagnostic] = _name_findings(path, front, key_line)
    description = front.get("description")
    if isinstance(description, str) and len(description) > MAX_DESCRIPTION:
        out.append(DESCRIPTION_LONG.report(
            file=path, line=key_line("description"),
            message=f"description is {len(description)} characters, over the specification's {MAX_DESCRIPTION}",
            hint=f"cut it by {len(description) - MAX_DESCRIPTION} characters: say what the skill does and when "
                 "to use it; move details into the body"))
    out += _compatibility_findings(path, front, key_line)
    for key in front:
        if str(key) not in known_fields:
            out.append(UNKNOWN_FIELD.report(
                file=path, line=key_line(str(key)),
                message=f'field "{key}" is not in the Agent Skills specification and no targeted agent or '
                        "skillsift reads it",
                hint=f"move it under `metadata:` (e.g. `metadata: {{{key}: ...}}`) or remove it"))
    out += _metadata_findings(path, front, key_line)
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if lines > MAX_LINES:
        out.append(TOO_MANY_LINES.report(
            file=path, line=MAX_LINES + 1,
            message=f"SKILL.md has {lines} lines; the specification recommends under {MAX_LINES}",
            hint="move reference material into references/<topic>.md and link it from SKILL.md"))
    if (exists is not None or locate is not None) and body:
        out.extend(missing_links(path, relative_links(body, body_line) if links is None else links,
                                 exists=exists, locate=locate))
    return out


def missing_links(path: str, links, *, exists=None, locate=None) -> list[Diagnostic]:
    """SK108 for the ``links`` ((file line, target) pairs) of SKILL.md ``path``; ``exists`` and ``locate``
    as for :func:`check_spec` (which runs this when it is given either and a body)."""
    out: list[Diagnostic] = []
    if exists is not None or locate is not None:
        base = posix_parent(path)
        for line_no, target in links:
            rel = os.path.normpath(os.path.join(base, target)).replace(os.sep, "/")
            if locate is not None:
                # resolved as the OS does: through a symlinked folder first, then ".."
                found = locate(base, target)
                if found is None:
                    continue  # outside the repository: not read
                rel, present = found
                if present:
                    continue
            elif rel == ".." or rel.startswith("../"):
                continue  # outside the repository: not read
            elif exists(rel):
                continue
            out.append(MISSING_FILE.report(
                file=path, line=line_no,
                message=f"link to {target} points to a file that does not exist ({rel})",
                hint=f"create {rel} or fix the link (paths are relative to the skill's folder)"))
    return out


def locate_link(root: str, base: str, target: str, linked: bool = True, lexists=None):
    """``(path relative to the root, exists)`` of link ``target`` from folder ``base``, resolved by the OS
    (a symlinked skill folder is followed, then ``..``); None when it resolves outside ``root``.

    ``linked``: whether the path to ``base`` passes through a symlink; when it does not, the lexical
    path is the OS's and no ``realpath`` is taken.  ``lexists(rel)``: ``os.path.lexists`` of a path
    relative to the root (the workspace's, which a folder listing may answer), asked for a ``target``
    that the OS resolves as written (no ``..``, no trailing ``/``)."""
    joined = os.path.join(root, base, target)
    if not linked:
        rel = os.path.normpath(os.path.join(base, target)).replace(os.sep, "/")
        if rel == ".." or rel.startswith("../"):
            return None
        if lexists is not None and not target.endswith("/") and ".." not in target.split("/"):
            return rel, lexists(rel)
        return rel, os.path.lexists(joined)
    real_root = os.path.realpath(root)
    try:
        real = os.path.realpath(joined)
    except (OSError, ValueError):
        return None
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        return None
    rel = os.path.relpath(real, real_root).replace(os.sep, "/")
    return rel, os.path.lexists(joined) or os.path.lexists(real)




def run(ws: Workspace) -> list[Diagnostic]:
    return run_paths(ws, ws.skill_paths)


def run_paths(ws: Workspace, paths: list[str]) -> list[Diagnostic]:
    """SK101-SK108 on the SKILL.md files among ``paths``.

    SK101-SK107 depend on the file's text and the known fields alone, so they are kept in the
    text-check cache (:mod:`.text_cache`); SK108 asks the file system on every run.
    """

    fields = known_fields(ws.settings.agents)
    settings = tuple(sorted(str(f) for f in fields))

    def text_findings(p) -> list[Diagnostic]:
        return check_spec(p.path, p.text, p.front, known_fields=fields, key_line=p.line)

    def locate(base: str, target: str):
        skill = ws.skill_folders.get(base)
        return locate_link(ws.root, base, target, ws.folder_linked(base),
                           lexists=lambda rel: ws.lexists(rel, skill))

    out: list[Diagnostic] = []
    for parsed in parsed_skills(ws, paths):
        out.extend(cached(ws, "spec", parsed, text_findings, extra=settings))
        if parsed.body:
            out.extend(missing_links(parsed.path, links_of(ws, parsed.path, parsed.body, parsed.body_line),
                                     locate=locate))
    save(ws)

    return group_repeated(out, (MISSING_FILE.code,))
