"""The ``examples`` and ``not_for`` of a SKILL.md frontmatter, read as strictly as an examples file.

A skill's frontmatter ``examples`` are known requests: they steer ranking exactly as the
requests of an examples file do, so they obey the same rules (docs/query-mining.md,
docs/evaluation.md "Strict YAML").  The frontmatter block is composed once more with the
strict node reader (:mod:`skillsift.docschema.yaml_nodes`) and, under these two keys (and at the
top level, where a merge key or a repeated key could bring them in), what YAML offers
beyond plain data is a problem with its line: a tag, a merge key (``<<``), a key written
twice, nesting deeper than the reader reads, an alias bomb.  The values then go through one
table of rules (:data:`FRONTMATTER`, applied by :mod:`skillsift.docschema`): a list or one
string; each entry a string or a mapping of ``query``/``role``/``also`` (``instead`` for
``not_for``); no null, number, list or blank query, none longer than
:data:`~skillsift.casefile.rules.MAX_QUERY_BYTES` bytes.  Every problem carries the file
line of the SKILL.md.

:func:`read_fields` is the one reader: the ranker's known requests
(:func:`skillsift.ranker.known.known_requests`), validate and the hooks (AR9D2), the gate
review of ``skillsift ci`` and ``eval --from-skills`` all call it, so a frontmatter one of
them refuses is refused by all.  Pure: text in, entries and problems out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..docschema import Rule, check, quoted, text_of
from .rules import MAX_QUERY_BYTES

EXAMPLE_KEYS = ("query", "role", "also")
NOT_FOR_KEYS = ("query", "role", "instead")
FIELDS = {"examples": ("example", EXAMPLE_KEYS, "also"), "not_for": ("not-for", NOT_FOR_KEYS, "instead")}
MAX_ENTRIES = 1000  # entries one field may list (a frontmatter is a few requests, not a log)
HINT = ("examples and not_for take a list of queries, each a string or a mapping "
        "{query, role, also} / {query, role, instead}; see docs/query-mining.md")


# -- the rules of the two fields, declared once ---------------------------------------------------


def _field_rule(allowed: tuple[str, ...], names_key: str) -> Rule:
    names = Rule("list", one_or_list=True, items=Rule("string", nonblank=True), messages={
        "kind": "{where}: " + names_key + " must be a skill name or a list of skill names (got {shape})"})
    return Rule("list", one_or_list=True, nullable=True, entries="indexed", max_items=MAX_ENTRIES,
                messages={"kind": "{label} must be a list of queries (got {shape})",
                          "many": "{label} lists more than {high} entries"},
                items=Rule("either", messages={
                    "kind": "{label} must be a query (a string) or a mapping with query (got {shape})"}, options=(
                    Rule("string"),
                    Rule("table", strict=True, unknown="first", keys={
                        "query": Rule("string", required=True, messages={
                            "kind": "{where}: query must be a string (got {shape})",
                            "required": "{where}: query is required"}),
                        "role": Rule("string", nonblank=True,
                                     messages={"kind": "{where}: role must be a role name (got {shape})"}),
                        names_key: names,
                    }, messages={"unknown": '{where}: unknown key "{key}" (want ' + ", ".join(allowed) + ")"}))))


FRONTMATTER = Rule("table", unknown="allow", keys={name: _field_rule(allowed, names_key)
                                                    for name, (_word, allowed, names_key) in FIELDS.items()})


# -- what was read ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One entry of ``examples`` or ``not_for`` that passed the rules."""

    field: str
    number: int  # 1-based
    query: str  # trimmed
    role: str = ""
    names: tuple[str, ...] = ()  # ``also`` / ``instead``
    line: int = 0
    role_line: int = 0
    names_line: int = 0


@dataclass(frozen=True)
class Fields:
    """The entries of a frontmatter's two fields, and every problem (file line, message) and note."""

    entries: tuple[Entry, ...] = ()
    problems: tuple[tuple[int, str], ...] = ()
    notes: tuple[tuple[int, str], ...] = ()

    def of(self, name: str) -> tuple[Entry, ...]:
        return tuple(e for e in self.entries if e.field == name)

    def problems_of(self, name: str) -> tuple[tuple[int, str], ...]:
        """The problems of one field (its own, and those of the frontmatter as a whole)."""
        other = [f for f in FIELDS if f != name]
        return tuple(p for p in self.problems if not any(p[1].startswith(f) for f in other))


def has_fields(front: Mapping | None) -> bool:
    """Whether a frontmatter (as the catalog read it) lists ``examples`` or ``not_for``."""
    return bool(front) and any(k in front for k in FIELDS)  # type: ignore[operator]


# -- where entries are in the file, and what YAML beyond plain data they use ------------------------


@dataclass
class _Strict:
    lines: dict = field(default_factory=dict)  # node path -> file line
    problems: list = field(default_factory=list)  # (file line, message)
    typed: list = field(default_factory=list)  # (node path, file line, words): plain scalars YAML reads as numbers


def _label(path: tuple) -> str:
    if not path:
        return "the frontmatter"
    if len(path) == 1:
        return str(path[0])
    return f"{path[0]} entry {path[1] + 1}" if isinstance(path[1], int) else f"{path[0]}.{path[1]}"


def _strict(text: str) -> _Strict:
    """File lines of the nodes under the two fields and the strict YAML problems there."""
    import yaml

    from ..catalog.frontmatter import split_frontmatter
    from ..docschema.yaml_nodes import compose, tree

    out = _Strict()
    block = split_frontmatter(text.replace("\r\n", "\n"))
    if not block.closed:
        return out
    offset = block.yaml_start_line - 1
    try:
        doc = tree(compose(block.raw))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        out.problems.append(((mark.line + 1 if mark else 1) + offset, "the frontmatter does not read as plain YAML: "
                             + ": ".join(p for p in (exc.context, exc.problem) if p)))
        return out
    except yaml.YAMLError as exc:
        out.problems.append((1 + offset, f"the frontmatter does not read as plain YAML: {str(exc).strip()}"))
        return out
    if not isinstance(doc.value, dict):
        return out

    def mine(path: tuple) -> bool:
        return bool(path) and path[0] in FIELDS

    for path, line in doc.lines.items():
        if mine(path):
            out.lines[path] = line + offset
    for path, line, message in doc.refused:
        if mine(path) or (path == () and "merge key" in message):
            out.problems.append((line + offset, f"{_label(path)}: {message}"))
    for path, key, line, first in doc.duplicates:
        if mine(path) or (path == () and key in FIELDS):
            where = _label(path + (key,)) if path == () else _label(path)
            out.problems.append((line + offset, f"{where}: the key {quoted(key)} is written twice (first at line "
                                                f"{first + offset}); write it once"))
    out.typed = [(path, doc.line(path) + offset, words, quoted(text_of(_at(doc.value, path))))
                 for path, words in doc.typed.items() if mine(path)]
    return out


def _at(value, path: tuple):
    for step in path:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return None
    return value


# -- the one reader -----------------------------------------------------------------------------------


def read_fields(front: Mapping | None, text: str | None, *, first_line: int = 0) -> Fields:
    """The entries of ``examples`` and ``not_for`` and every problem, each with its SKILL.md line.

    ``front``: the frontmatter as the catalog read it (``Skill.frontmatter``); ``text``: the
    SKILL.md text (None: unknown; every problem then points at ``first_line``, and the
    strict YAML checks do not run).  Problems are messages without the skill's name.
    """
    front = front or {}
    if not has_fields(front):
        return Fields()
    strict = _strict(text) if text is not None else _Strict()

    def line_of(path: tuple) -> int:
        while path and path not in strict.lines:
            path = path[:-1]
        return strict.lines.get(path, first_line)

    problems: list[tuple[int, str]] = list(strict.problems)
    notes: list[tuple[int, str]] = []
    doc = {name: front[name] for name in FIELDS if name in front}
    ignored = _ignore_other_shapes(doc, line_of, notes)
    _cleaned, found = check(doc, FRONTMATTER)
    problems += [(line_of(p.path), p.message) for p in found]
    bad = {p.path[:2] for p in found}
    # `- 1:30`, `query: 1_000`: text to the catalog's reader, a number to YAML 1.1 (as in a cases file)
    typed = [t for t in strict.typed if t[0][:2] not in bad and t[0][:1] not in bad]
    problems += [(line, f"{_label(path)}: {text} is {words}, not text; quote it") for path, line, words, text in typed]
    bad |= {path[:2] for path, *_rest in typed}
    out = _entries(doc, bad, ignored, line_of, problems)
    problems.sort(key=lambda p: p[0])
    return Fields(tuple(out), tuple(problems), tuple(notes))


def _ignore_other_shapes(doc: dict, line_of, notes: list) -> set[int]:
    """Another shape public skills use for examples ({title, input, output}): not a query, a note.

    Such entries become ``"ignored"`` in ``doc`` (so the schema passes them) and their numbers are returned.
    """
    ignored: set[int] = set()
    if isinstance(doc.get("examples"), list):
        entries = list(doc["examples"])
        for i, entry in enumerate(entries):
            if isinstance(entry, dict) and entry and not set(map(str, entry)) & set(EXAMPLE_KEYS):
                keys = ", ".join(sorted(map(str, entry)))
                notes.append((line_of(("examples", i)), f"examples entry {i + 1} is a mapping of {keys}, not a "
                                                        "search query: ignored"))
                ignored.add(i)
                entries[i] = "ignored"
        doc["examples"] = entries
    return ignored


def _entries(doc: dict, bad: set, ignored: set[int], line_of, problems: list) -> list[Entry]:
    """The valid entries of every field, in order; a blank or too long query is a problem instead."""
    out: list[Entry] = []
    for name, (_word, _allowed, names_key) in FIELDS.items():
        raw = doc.get(name)
        if (name,) in bad:
            continue
        entries = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
        for n, entry in enumerate(entries[:MAX_ENTRIES], start=1):
            if (name, n - 1) in bad or (name == "examples" and n - 1 in ignored):
                continue
            given = entry if isinstance(entry, dict) else {"query": entry}
            path = (name, n - 1) if isinstance(raw, list) else (name,)
            line = line_of(path)
            query = given["query"]
            if not query.strip():
                problems.append((line, f"{name} entry {n}: the query is blank"))
                continue
            if len(query.encode("utf-8", "surrogatepass")) > MAX_QUERY_BYTES:
                problems.append((line, f"{name} entry {n}: the query is longer than {MAX_QUERY_BYTES} bytes"))
                continue
            others = given.get(names_key, [])
            others = (others,) if isinstance(others, str) else tuple(others)
            out.append(Entry(field=name, number=n, query=query.strip(), role=given.get("role", ""), names=others,
                             line=line, role_line=line_of(path + ("role",)) if "role" in given else 0,
                             names_line=line_of(path + (names_key,)) if names_key in given else line))
    return out
