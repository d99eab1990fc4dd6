"""Cases derived from the skills themselves: frontmatter ``examples`` and ``not_for``.

A skill may list the queries it must answer and the ones it must not win::

    examples:
      - refund the duplicate charge on order 1042
      - query: customer wants their money back
        role: billing              # rank only the skills this role serves
        also: [invoice-correction] # other skills that answer it too
    not_for:
      - dispute a chargeback from the bank
      - query: the customer disputes the charge with their bank
        instead: chargeback-dispute  # the skill (or skills) that should answer it

``examples`` entry N becomes case ``<skill>/example-N`` expecting the skill (and ``also``);
``not_for`` entry N becomes ``<skill>/not-for-N`` that avoids the skill and expects
``instead`` (nothing when absent: a negative case).  Every case is tagged ``from-skills``.
A single string counts as a one-entry list.

Problems (a wrong type, a blank or too long query, an unknown key, an unknown skill or
role) are AR9D2 diagnostics on the SKILL.md with the line of the offending entry, all
reported together: the two fields' rules are a table (:data:`FRONTMATTER`) applied by the
one interpreter (:mod:`skillsift.docschema`), then what a table cannot say (a name unknown to the
catalog, with "did you mean", a role that does not serve it) is checked entry by entry.
:func:`skill_cases` is pure: the SKILL.md text is only used to find lines.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from ..catalog import frontmatter
from ..diagnostics import NOTE, Diagnostic, SkillsiftError, sort_diagnostics
from ..docschema import Rule, check, near
from ..files import MAX_SKILL_BYTES, read_bounded
from . import CASES_INVALID
from .cases import MAX_QUERY_BYTES, Case, CaseFile, Expected

TAG = "from-skills"
EXAMPLE_KEYS = ("query", "role", "also")
NOT_FOR_KEYS = ("query", "role", "instead")
FIELDS = {"examples": ("example", EXAMPLE_KEYS, "also"), "not_for": ("not-for", NOT_FOR_KEYS, "instead")}
HINT = ("examples and not_for take a list of queries, each a string or a mapping "
        "{query, role, also} / {query, role, instead}; see docs/query-mining.md")
NO_CASES = "no skill lists examples or not_for, so --from-skills derives no case"
NO_CASES_HINT = "add `examples: [a query the skill must answer]` to a SKILL.md frontmatter"


@dataclass(frozen=True)
class RoleCheck:
    """What the derivation needs to know about roles.

    ``resolve(role)`` returns the names a role serves and raises (SkillsiftError,
    KeyError or ValueError) for an unknown role.
    """

    configured: bool = False
    resolve: Callable[[str], Collection[str]] | None = None


# -- where entries are in the file ----------------------------------------------------------------


@dataclass(frozen=True)
class _Lines:
    key: int = 0  # line of the key (examples:/not_for:)
    items: tuple[int, ...] = ()  # line of each list entry
    fields: tuple[Mapping[str, int], ...] = ()  # per entry: sub-key -> line of its value


def _frontmatter_lines(text: str | None) -> dict[str, _Lines]:
    """File lines of the ``examples`` / ``not_for`` entries in a SKILL.md text ({} when unknown)."""
    if not text:
        return {}
    import yaml

    block = frontmatter.split_frontmatter(text.replace("\r\n", "\n"))
    if not block.closed:
        return {}
    try:
        root = yaml.compose(block.raw, Loader=getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader)
    except yaml.YAMLError:
        return {}
    if not isinstance(root, yaml.MappingNode):
        return {}
    offset = block.yaml_start_line
    out: dict[str, _Lines] = {}
    for key_node, value in root.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.value not in FIELDS:
            continue
        items: list[int] = []
        fields: list[dict[str, int]] = []
        if isinstance(value, yaml.SequenceNode):
            for item in value.value:
                items.append(item.start_mark.line + offset)
                sub: dict[str, int] = {}
                if isinstance(item, yaml.MappingNode):
                    for k, v in item.value:
                        if isinstance(k, yaml.ScalarNode):
                            sub[k.value] = v.start_mark.line + offset
                fields.append(sub)
        else:
            items.append(value.start_mark.line + offset)
            fields.append({})
        out[key_node.value] = _Lines(key=key_node.start_mark.line + offset, items=tuple(items),
                                     fields=tuple(fields))
    return out


# -- the rules of the two fields, declared once ---------------------------------------------------


def _field_rule(allowed: tuple[str, ...], names_key: str) -> Rule:
    names = Rule("list", one_or_list=True, items=Rule("string", nonblank=True), messages={
        "kind": "{where}: " + names_key + " must be a skill name or a list of skill names (got {shape})"})
    return Rule("list", one_or_list=True, nullable=True, entries="indexed",
                messages={"kind": "{label} must be a list of queries (got {shape})"},
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


FRONTMATTER = Rule("table", unknown="allow", keys={field: _field_rule(allowed, names_key)
                                                    for field, (_word, allowed, names_key) in FIELDS.items()})


# -- derivation -----------------------------------------------------------------------------------


def _line_of(lines: dict[str, _Lines], path: tuple) -> int:
    """The line of a node path of the frontmatter (field, entry index, key); 0 when unknown."""
    where = lines.get(path[0], _Lines())
    if len(path) == 1 or not where.items:
        return where.key
    index = path[1]
    line = where.items[index] if index < len(where.items) else where.key
    if len(path) > 2 and index < len(where.fields):
        return where.fields[index].get(str(path[2]), line)
    return line


def skill_cases(skill, text: str | None = None, *, known: Collection[str] = (),
                roles: RoleCheck = RoleCheck()) -> tuple[list[Case], list[Diagnostic]]:
    """The cases ``skill``'s frontmatter ``examples`` and ``not_for`` describe, and their problems.

    ``text`` is the SKILL.md text (for line numbers; without it problems point at the
    frontmatter's first line); ``known`` the catalog's skill names.
    """

    front = skill.frontmatter or {}
    lines = _frontmatter_lines(text) if any(k in front for k in FIELDS) else {}
    known = set(known) | {skill.name}
    problems: list[Diagnostic] = []

    def problem(line: int, message: str) -> None:
        problems.append(Diagnostic(file=skill.path, line=line or skill.frontmatter_line or None,
                                   code=CASES_INVALID, message=f'skill "{skill.name}": {message}', hint=HINT))

    doc = {field: front[field] for field in FIELDS if field in front}
    ignored: set[int] = set()
    if isinstance(doc.get("examples"), list):
        # another shape public skills use for examples ({title, input, output}): not a query, a note
        allowed = FIELDS["examples"][1]
        entries = list(doc["examples"])
        for i, entry in enumerate(entries):
            if isinstance(entry, dict) and entry and not set(map(str, entry)) & set(allowed):
                keys = ", ".join(sorted(map(str, entry)))
                line = _line_of(lines, ("examples", i))
                problems.append(Diagnostic(file=skill.path, line=line or skill.frontmatter_line or None,
                                           code=CASES_INVALID, severity=NOTE,
                                           message=f'skill "{skill.name}": examples entry {i + 1} is a mapping of '
                                                   f"{keys}, not a search query: ignored"))
                ignored.add(i)
                entries[i] = "ignored"
        doc["examples"] = entries
    _cleaned, found = check(doc, FRONTMATTER)
    for p in found:
        problem(_line_of(lines, p.path), p.message)
    bad = {p.path[:2] for p in found}
    cases: list[Case] = []
    served_cache: dict[str, frozenset[str] | None] = {}
    for field, (id_word, _allowed, names_key) in FIELDS.items():
        raw = doc.get(field)
        entries = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
        for n, entry in enumerate(entries, start=1):
            if (field,) in bad or (field, n - 1) in bad or (field == "examples" and n - 1 in ignored):
                continue
            case = _entry_case(skill, field, id_word, names_key, n, entry, lines, known, roles, served_cache,
                               problem)
            if case is not None:
                cases.append(case)
    return cases, sorted(problems, key=lambda d: d.line or 0)


def _entry_case(skill, field, id_word, names_key, n, entry, lines, known, roles, served_cache, problem):
    """The case of one entry that passed the rules, or None after its problems (what a table cannot say)."""
    line = _line_of(lines, (field, n - 1))
    label = f"{field} entry {n}"
    given = entry if isinstance(entry, dict) else {"query": entry}
    query, role = given["query"], given.get("role", "")
    others = given.get(names_key, [])
    others = [others] if isinstance(others, str) else list(others)
    if not query.strip():
        problem(line, f"{label}: the query is blank")
        return None
    if len(query.encode("utf-8", "surrogatepass")) > MAX_QUERY_BYTES:
        problem(line, f"{label}: the query is longer than {MAX_QUERY_BYTES} bytes")
        return None
    names_line = _line_of(lines, (field, n - 1, names_key)) or line
    role_line = _line_of(lines, (field, n - 1, "role")) if "role" in given else 0
    ok = True
    for other in others:
        if other == skill.name:
            problem(names_line, f'{label}: {names_key} names the skill itself')
            ok = False
        elif other not in known:
            problem(names_line, f'{label}: {names_key} names unknown skill "{other}"{near(other, known)}')
            ok = False
    if len(set(others)) != len(others):
        problem(names_line, f"{label}: {names_key} lists a skill twice")
        ok = False
    if role:
        served = _served_by(role, role_line or line, label, roles, served_cache, problem)
        if served is None:
            ok = False
        else:
            wanted = ([skill.name] if field == "examples" else []) + others
            for name in wanted:
                if name in known and name not in served:
                    problem(role_line or line, f'{label}: role "{role}" does not serve "{name}"')
                    ok = False
    if not ok:
        return None
    if field == "examples":
        expect = (Expected(id=skill.name, line=line),) + tuple(Expected(id=o, line=line) for o in others)
        avoid: tuple[str, ...] = ()
    else:
        expect = tuple(Expected(id=o, line=line) for o in others)
        avoid = (skill.name,)
    return Case(id=f"{skill.name}/{id_word}-{n}", query=query.strip(), expect=expect, avoid=avoid, role=role,
                tags=(TAG,), line=line, avoid_lines=(line,) * len(avoid), role_line=role_line)


def _served_by(role, line, label, roles, served_cache, problem):
    if role not in served_cache:
        if not roles.configured or roles.resolve is None:
            problem(line, f'{label} sets role "{role}", but no roles are configured')
            served_cache[role] = None
        else:
            try:
                served_cache[role] = frozenset(roles.resolve(role))
            except (SkillsiftError, KeyError, ValueError):
                problem(line, f'{label}: unknown role "{role}"')
                served_cache[role] = None
    return served_cache[role]


def derive_cases(skills: Iterable, texts: Mapping[str, str] | None = None, *, known: Collection[str] = (),
                 roles: RoleCheck = RoleCheck()) -> tuple[list[Case], list[Diagnostic]]:
    """The derived cases of every skill, in catalog order, and every problem (sorted by file and line).

    ``texts`` maps a skill's name to its SKILL.md text (for line numbers).
    """
    texts = texts or {}
    cases: list[Case] = []
    problems: list[Diagnostic] = []
    for skill in skills:
        got, bad = skill_cases(skill, texts.get(skill.name), known=known, roles=roles)
        cases.extend(got)
        problems.extend(bad)
    return cases, sort_diagnostics(problems)


def examples_error(problems: list[Diagnostic]) -> SkillsiftError:
    """One AR9D2 error listing every problem as ``file:line: message``."""
    text = "; ".join(f"{d.location()}: {d.message}" for d in problems)
    return SkillsiftError(f"{CASES_INVALID}: invalid examples in SKILL.md frontmatter: {text}",
                          diagnostics=problems, hint=HINT, exit_code=1)


def skill_cases_and_notes(catalog, roles: RoleCheck = RoleCheck()) -> tuple[list[Case], list[Diagnostic]]:
    """Read the SKILL.md of each skill that lists examples or not_for and derive its cases, with the
    notes on entries it ignored (an ``examples`` entry of another shape, such as ``{title, input,
    output}``), each with its file and line.

    Raises the AR9D2 :class:`SkillsiftError` when any entry is invalid.
    """
    import os

    texts: dict[str, str] = {}
    listed = [s for s in catalog.skills if any(k in (s.frontmatter or {}) for k in FIELDS)]
    for skill in listed:
        try:
            texts[skill.name] = read_bounded(os.path.join(catalog.root, skill.path),
                                             MAX_SKILL_BYTES).decode("utf-8", "replace")
        except OSError:
            pass  # lines then fall back to the frontmatter's first line
    cases, problems = derive_cases(listed, texts, known=catalog.names, roles=roles)
    errors = [p for p in problems if p.severity != NOTE]
    if errors:
        raise examples_error(errors)
    return cases, [p for p in problems if p.severity == NOTE]


def merge_cases(case_file: CaseFile | None, derived: Iterable[Case],
                path: str = "from-skills") -> tuple[CaseFile, int, int]:
    """The file's cases followed by the derived ones whose id is not taken.

    Returns ``(case file, derived count, skipped count)``.
    """
    derived = list(derived)
    base = list(case_file.cases) if case_file is not None else []
    taken = {c.id for c in base}
    added = [c for c in derived if c.id not in taken]
    merged = CaseFile(version=1, k=case_file.k if case_file is not None else 0, cases=tuple(base + added),
                      path=case_file.path if case_file is not None else path)
    return merged, len(added), len(derived) - len(added)
