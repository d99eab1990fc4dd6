"""The document schemas: a :class:`Rule` per node, declared once, one interpreter, every problem at once.

A document (``skillsift.toml``, a cases file, a skill's ``examples``) is described by one
table of rules: for each node its kind, range, allowed values, default, whether it is
required and how unknown keys are reported.  :func:`check` walks a parsed document against
its rule and returns every problem as ``(node path, message)``; the caller turns paths into
lines through the one map it built while reading the file (TOML: the key index of
:mod:`skillsift.config.sources`; YAML: the node marks, :mod:`skillsift.docschema.yaml_nodes`).
The shipped JSON Schemas are generated from the same rules (:mod:`skillsift.docschema.json_schema`).

Kinds: ``table`` (declared ``keys`` and/or one rule for every ``values``), ``list``
(``items``), ``string``, ``text`` (a YAML scalar read as written), ``int``, ``number``,
``bool``, ``choice`` (a string of ``choices``), ``either`` (the first of ``options`` whose
kind fits).  What a table cannot say (a regex that must compile, a skill listed twice) is a
named ``check`` function on the node, run once its kind and range passed.

Messages are templates (``{label}``, ``{where}``, ``{key}``, ``{value}``, ``{got}``,
``{shown}``, ``{shape}``, ``{low}``, ``{high}``, ``{choices}``, ``{words}``); each rule may override any of them.
Nothing here imports beyond the standard library: every command reads its configuration
through this module at start-up.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from ..records import field, record

TYPE_CHECKING = False  # (mypy reads it as true; typing is not imported on the hooks' path)
if TYPE_CHECKING:
    from typing import Any, NamedTuple

KIND_WORDS = {"string": "a string", "text": "a string", "int": "an integer", "number": "a number",
              "bool": "true or false", "table": "a table", "list": "a list", "choice": "a string",
              "strings": "a list of strings"}
MESSAGES = {
    "kind": "{label} must be {words}",
    "finite": "{label} must be a finite number",
    "between": "{label} must be between {low} and {high}",
    "low": "{label} must not be negative",
    "high": "{label} must be at most {high}",
    "choice": '{label} "{value}" must be {choices}',
    "unknown": '{label}: unknown key "{key}"',
    "required": "{label} is required",
    "few": "{label} is empty",
    "many": "{label} holds more than {high} entries",
}
_EMPTY: dict[str, Any] = {"string": "", "text": "", "choice": "", "int": 0, "number": 0, "list": [],
                          "table": {}, "bool": False}


if TYPE_CHECKING:
    class Problem(NamedTuple):
        """One problem: the node path it is about, the message, and whether the key (not its value) is meant."""

        path: tuple
        message: str
        at_key: bool = False
else:  # the same named tuple, without importing typing (about 4 ms of a hook)
    from collections import namedtuple

    Problem = namedtuple("Problem", ("path", "message", "at_key"), defaults=(False,), module=__name__)
    Problem.__doc__ = ("One problem: the node path it is about, the message, and whether the key (not its value) is "
                       "meant.")


@record(frozen=True)
class Rule:
    """What one node of a document may hold (see the module docstring for the kinds)."""

    kind: str
    doc: str = ""  # one line for the JSON Schema's description
    keys: Mapping[str, Rule] | None = None  # table: the declared keys, in the order problems are reported
    values: Rule | None = None  # table: the rule of every key not declared (a free table)
    items: Rule | None = None  # list: the rule of each entry
    options: tuple[Rule, ...] = ()  # either: the shapes the node may take
    choices: tuple = ()
    empty_ok: bool = True  # choice: "" means the default
    low: float | None = None
    high: float | None = None
    between: bool = False  # a range problem names both bounds ("must be between")
    finite: bool = True  # number: inf and nan are refused
    nonblank: bool = False  # string or text: blank is refused ("blank" message, else "kind")
    nullable: bool = False  # YAML null reads as the kind's empty value
    schema_null: bool | None = None  # the JSON Schema accepts null (None: when nullable; False: the empty value fails)
    one_or_list: bool = False  # list: a single entry counts as a one-entry list
    required: bool = False  # table key: reported on the table when missing
    min_items: int = 0
    max_items: int | None = None
    entries: str = "list"  # list: problems of an entry on the list's path ("list") or the entry's ("indexed")
    unknown: str = "last"  # table: unknown keys "first", "last", passed "up" to the table holding it, or "allow"ed
    strict: bool = False  # table: an unknown key makes the whole table fail
    same_label: bool = False  # the node's messages use the label of the node holding it
    default: Any = None
    # extra rule, run once kind and range passed: (value, names, context) -> [(sub path, message)];
    # ``names`` holds label, where (the label of the node holding it) and key
    check: Callable[[Any, Mapping[str, Any], Context], list] | None = None
    key_names: Callable[[Context], Any] | None = None  # free table: the keys allowed (None: any)
    label: Callable[[Any, int, str], str] | None = None  # list entry: (value, 1-based index, list label) -> label
    messages: Mapping[str, str] = field(default_factory=dict)
    schema: Mapping[str, Any] = field(default_factory=dict)  # extra JSON Schema keywords (same meaning)

    def message(self, name: str, **values) -> str:
        template = self.messages.get(name) or (self.messages.get("kind") if name in ("blank", "item") else None)
        return (template or MESSAGES[name]).format(**values)


@record
class Context:
    """What the checks of one walk may read (known codes, agent names...) and the problems found."""

    values: Mapping[str, Any] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    near_left: int = 100  # unknown keys still given a "did you mean" in this walk (difflib is slow)


_BAD = object()  # a node that failed its rule: dropped from the cleaned document


def either(values) -> str:
    """``a, b or c``."""
    values = list(values)
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " or " + values[-1]


def quoted(text) -> str:
    """``text`` as a JSON string (``ensure_ascii=False``): printable ASCII without a quote or a backslash,
    which JSON writes as it is, without the encoder (a cases file labels every case with it)."""
    text = str(text)
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    import json

    return json.dumps(text, ensure_ascii=False)


def got(value) -> str:
    """How a value is shown in a "(got ...)" message: a scalar as written (quoted), else its shape."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a sequence"
    return quoted(text_of(value))


def described(value) -> str:
    """A value's kind in words, as a "(got ...)" says it of a parsed document: ``a number``, ``a mapping``."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"


def shown(value) -> str:
    """A scalar as written, else ``<mapping>`` / ``<sequence>``, quoted."""
    if isinstance(value, dict):
        return quoted("<mapping>")
    if isinstance(value, list):
        return quoted("<sequence>")
    return quoted(text_of(value))


def near(name: str, known) -> str:
    """`` (did you mean "x"?)`` for the closest of ``known`` to ``name``, or ""."""
    import difflib

    found = difflib.get_close_matches(str(name), [str(k) for k in known], n=1, cutoff=0.75)
    return f" (did you mean {quoted(found[0])}?)" if found else ""


class Nothing:
    """A YAML null, remembering how it was written (``~``, ``null``, nothing)."""

    __slots__ = ("text",)

    def __init__(self, text: str = ""):
        self.text = text

    def __repr__(self) -> str:
        return f"Nothing({self.text!r})"


def is_null(value) -> bool:
    return value is None or isinstance(value, Nothing)


class Written(int):
    """An integer read from a plain YAML scalar, remembering the text it was written as (``007``)."""

    text: str

    def __new__(cls, text: str):
        self = super().__new__(cls, int(text))
        self.text = text
        return self


def text_of(value) -> str:
    if isinstance(value, (Written, Nothing)):
        return value.text
    return value if isinstance(value, str) else str(value)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _fits(value, rule: Rule) -> bool:
    kind = rule.kind
    if kind in ("string", "choice"):
        return isinstance(value, str)
    if kind == "text":
        return isinstance(value, (str, Written))
    if kind == "int":
        return _is_int(value)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "table":
        return isinstance(value, dict)
    if kind == "list":
        if not isinstance(value, list):
            return False
        # a list of strings fails as a whole: "must be a list of strings"
        return rule.items is None or rule.items.kind not in ("string", "choice") or all(
            isinstance(v, str) for v in value)
    if kind == "either":
        return any(_fits(value, option) for option in rule.options)
    raise ValueError(f"unknown rule kind {kind!r}")


def _words(rule: Rule) -> str:
    if rule.kind == "list" and rule.items is not None and rule.items.kind in ("string", "choice"):
        return KIND_WORDS["strings"]
    return KIND_WORDS.get(rule.kind, rule.kind)


def check(value, rule: Rule, *, label: str = "", context: Context | None = None):
    """``(cleaned value, problems)`` of ``value`` against ``rule``.

    The cleaned value drops every node that failed (so defaults apply in its place).  Problems
    come in the rule's key order; each table's unknown keys first or last as it declares.
    """
    context = context or Context()
    unknown: list[Problem] = []
    cleaned = _walk(value, rule, (), label, "", context, unknown)
    return (None if cleaned is _BAD else cleaned), context.problems + unknown


def _walk(value, rule: Rule, path: tuple, label: str, where: str, ctx: Context, unknown: list[Problem]):
    out = ctx.problems
    if rule.same_label:
        label = where
    written, declared = value, rule  # as the node came (``rule`` becomes the fitting option of an "either")

    def fmt() -> dict:  # the message fields: made only for a problem or a check (most nodes have neither)
        return {"label": label, "where": where, "key": path[-1] if path else "", "words": _words(declared),
                "choices": either(declared.choices) if declared.choices else "", "shape": described(written)}

    value = _shaped(value, rule)
    if not _fits(value, rule):
        out.append(Problem(path, rule.message("kind", value=value, got=got(value), shown=shown(value), **fmt())))
        return _BAD
    if rule.kind == "either":
        rule = next(option for option in rule.options if _fits(value, option))
    if rule.kind == "text":
        value = text_of(value)
    if rule.kind == "number" and rule.finite and isinstance(value, float) and not math.isfinite(value):
        out.append(Problem(path, rule.message("finite", **fmt())))
        return _BAD
    problem = _value_problem(value, rule, fmt)
    if problem:
        out.append(Problem(path, problem))
        return _BAD
    if rule.kind == "table":
        value = _walk_table(value, rule, path, label, ctx, unknown)
    elif rule.kind == "list":
        value = _walk_list(value, rule, path, label, ctx, unknown)
    if rule.check is not None and value is not _BAD:
        found = rule.check(value, fmt(), ctx)
        out.extend(Problem(path + tuple(sub), message) for sub, message in found)
        if found:
            return _BAD
    return value


def _shaped(value, rule: Rule):
    """The value as ``rule`` reads it: null as its kind's empty value (when nullable), one text as a list of one."""
    if is_null(value) and rule.nullable:
        value = _EMPTY.get(rule.options[0].kind if rule.kind == "either" else rule.kind)
    if rule.kind == "list" and rule.one_or_list and isinstance(value, (str, Written)):
        value = [value]
    return value


def _value_problem(value, rule: Rule, fmt: Callable[[], dict]) -> str | None:
    """The problem of ``value``'s range, choice or blankness under ``rule``, or None (``fmt``: the message fields)."""
    kind = rule.kind
    if kind == "choice" and not (value == "" and rule.empty_ok) and value not in rule.choices:
        return rule.message("choice", value=value, **fmt())
    if kind in ("string", "text") and rule.nonblank and not value.strip():
        return rule.message("blank", value=value, **fmt())
    if kind in ("int", "number") and (rule.low is not None or rule.high is not None):
        low = -math.inf if rule.low is None else rule.low
        high = math.inf if rule.high is None else rule.high
        if not low <= value <= high:
            bounds = {"low": rule.low, "high": rule.high, "value": value, **fmt()}
            if rule.between:
                return rule.message("between", **bounds)
            return rule.message("low" if value < low else "high", **bounds)
    if kind == "list":
        if rule.items is not None and rule.items.nonblank and rule.items.kind in ("string", "choice") and any(
                not v.strip() for v in value):
            return rule.message("blank", **fmt())
        if len(value) < rule.min_items:
            return rule.message("few", **fmt())
    return None


def _unknown_keys(value: dict, rule: Rule, path: tuple, label: str, ctx: Context) -> list[Problem]:
    """The problems of the keys a table does not declare (with "did you mean" for a near one, for the
    first :attr:`Context.near_left` of the walk: a document of 400,000 unknown keys stays fast)."""
    keys = rule.keys or {}
    if rule.values is not None or rule.unknown == "allow":
        return []
    out = []
    for key in value:
        if key not in keys:
            ctx.near_left -= 1
            out.append(Problem(path + (key,), rule.message("unknown", label=label, key=key, qkey=quoted(key),
                                                           where=label) + (near(key, keys) if ctx.near_left >= 0
                                                                           else ""), at_key=True))
    return out


def _walk_table(value: dict, rule: Rule, path: tuple, label: str, ctx: Context, unknown: list[Problem]):
    mine = _unknown_keys(value, rule, path, label, ctx)
    below: list[Problem] = []  # unknown keys passed up by the tables it holds
    keys = rule.keys or {}
    if rule.unknown == "first":
        ctx.problems.extend(mine)
    cleaned: dict = {}
    for key, sub in keys.items():
        if key in value:
            got_value = _walk(value[key], sub, path + (key,), _join(label, key), label, ctx, below)
            if got_value is not _BAD:
                cleaned[key] = got_value
        elif sub.required:
            ctx.problems.append(Problem(path, sub.message("required", label=_join(label, key), where=label, key=key)))
    if rule.values is not None:
        cleaned.update(_walk_values(value, rule, path, label, ctx, below))
    if rule.unknown == "up":
        unknown.extend(below + mine)
    else:
        ctx.problems.extend(below if rule.unknown == "first" else below + mine)
    return _BAD if rule.strict and mine else cleaned


def _walk_values(value: dict, rule: Rule, path: tuple, label: str, ctx: Context, below: list[Problem]) -> dict:
    """The keys of a free table not declared: each against ``rule.values`` (and ``key_names``, if any)."""
    cleaned: dict = {}
    allowed = rule.key_names(ctx) if rule.key_names is not None else None
    for key, item in value.items():
        if key in (rule.keys or {}):
            continue
        if allowed is not None and key not in allowed:
            ctx.problems.append(Problem(path + (key,), rule.message("unknown", label=label, key=key, qkey=quoted(key),
                                                                     where=label)))
            continue
        assert rule.values is not None
        got_value = _walk(item, rule.values, path + (key,), _join(label, str(key)), label, ctx, below)
        if got_value is not _BAD:
            cleaned[key] = got_value
    return cleaned


def _walk_list(value: list, rule: Rule, path: tuple, label: str, ctx: Context, unknown: list[Problem]):
    items = rule.items
    if rule.max_items is not None and len(value) > rule.max_items:
        ctx.problems.append(Problem(path, rule.message("many", label=label, high=rule.max_items)))
    if items is None:
        return value
    cleaned = []
    for index, entry in enumerate(value):
        if rule.entries == "indexed":
            entry_path = path + (index,)
            entry_label = (label if items.same_label else items.label(entry, index + 1, label) if items.label
                           else f"{label} entry {index + 1}")
        else:
            entry_path, entry_label = path, f"{label} entry"
        got_value = _walk(entry, items, entry_path, entry_label, label, ctx, unknown)
        if got_value is not _BAD:
            cleaned.append(got_value)
    return cleaned


def _join(label: str, key: str) -> str:
    return f"{label}.{key}" if label else str(key)
