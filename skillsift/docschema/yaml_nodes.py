"""A composed YAML node tree as plain values, read as written, and the one map from node path to line.

Scalars keep their text: a plain scalar of digits is a :class:`~skillsift.docschema.Written`
integer (``007`` stays ``007`` where text is wanted), a plain null a
:class:`~skillsift.docschema.Nothing`, everything else a string (``yes`` is the text ``yes``:
YAML 1.1 typing never changes what a field means).  A key written twice in one mapping is
kept at its first place and reported by the caller (:attr:`Tree.duplicates`).

The document is data, so what YAML offers beyond plain data is refused, each with its line
(:attr:`Tree.refused`; docs/evaluation.md, "Strict YAML"):

* a tag (``!!str``, ``!!python/object``, ``!custom``): :func:`compose` resolves every node
  with a loader that marks the tags it gave itself, so a tag written in the file is told apart;
* a merge key (``<<: *base``);
* nesting deeper than :data:`MAX_DEPTH` (no document rule looks deeper);
* aliases that repeat more than :data:`MAX_ALIAS_NODES` nodes in all: an alias is walked
  again wherever it is used, so a "billion laughs" document (aliases of aliases) would be
  exponentially large; the walk stops at the budget, so reading costs at most the size of
  the file plus the budget.

The composer itself (libyaml, or PyYAML's own) shares aliased nodes and refuses more than
1,000 nesting levels; the pure-Python composer's recursion limit is caught by :func:`compose`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import Nothing, Written

_INT = re.compile(r"[-+]?[0-9]+\Z")
_TAG_START = re.compile(r"(?:^|[\s\[{,:])!", re.MULTILINE)  # where a tag property can begin
_YAML = "tag:yaml.org,2002:"
IMPLICIT = "tag:skillsift.invalid,2026:implicit/"  # the prefix of every tag the loader resolved itself
MAX_DEPTH = 8
MAX_ALIAS_NODES = 10_000
# the tags the safe loader resolves by itself: without the marking loader, any other is a tag the file wrote
_RESOLVED = frozenset(_YAML + kind for kind in ("str", "int", "float", "bool", "null", "map", "seq", "merge",
                                                 "timestamp", "value"))
_TYPED = {"int": "a number", "float": "a number"}  # `yes` stays the text yes (docs/evaluation.md)


@dataclass
class Tree:
    """The plain value of a document, where each node is written, and its duplicate keys."""

    value: object = None
    lines: dict = field(default_factory=dict)  # path -> line of the value (a null value: of its key)
    key_lines: dict = field(default_factory=dict)  # path -> line of the key that holds it
    duplicates: list = field(default_factory=list)  # (mapping path, key, line, line of the first)
    refused: list = field(default_factory=list)  # (path, line, message): tags, merge keys, depth, alias bombs
    typed: dict = field(default_factory=dict)  # path -> "a number": a plain scalar YAML 1.1 reads as a number
    aliased: int = 0  # nodes walked again through aliases

    def line(self, path: tuple, at_key: bool = False) -> int:
        """The line of ``path`` (its key's line when ``at_key``), else of the nearest node holding it."""
        path = tuple(path)
        if at_key and path in self.key_lines:
            return self.key_lines[path]
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path, 1)


_LOADER: list = []


def loader():
    """The safe loader (libyaml's when present) whose implicit tags carry :data:`IMPLICIT`."""
    if not _LOADER:
        import yaml

        base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader

        resolve = base.resolve

        class _Marked(base):
            def resolve(self, kind, value, implicit):
                return IMPLICIT + resolve(self, kind, value, implicit)

        _LOADER.append(_Marked)
    return _LOADER[0]


def compose(text: str) -> tuple:
    """``(root node, marked)`` of ``text`` (root ``None``: an empty document); raises ``yaml.YAMLError``.

    ``marked``: composed by :func:`loader`, so a tag the file writes is told apart.  A text
    with no ``!`` where a tag can start (the start of a line, after a space, ``[``, ``{``,
    ``,`` or ``:``) holds no tag, and is composed by the plain safe loader (faster).  A
    document nested past the pure-Python composer's recursion limit is a ``yaml.YAMLError``
    too (libyaml stops at 1,000 levels itself).
    """
    import yaml

    marked = "!" in text and _TAG_START.search(text) is not None
    try:
        if marked:
            return yaml.compose(text, Loader=loader()), True
        return yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader), False
    except RecursionError:
        raise yaml.YAMLError(f"nested deeper than {MAX_DEPTH} levels") from None


def tree(composed: tuple) -> Tree:
    """The :class:`Tree` of :func:`compose`'s ``(root, marked)`` (root ``None``: an empty document)."""
    root, marked = composed
    out = Tree()
    if root is None:
        out.value, out.lines[()] = Nothing(""), 1
        return out
    walk = _Walk(out, IMPLICIT if marked else "")
    out.value = walk.plain(root, (), 0, _line(root))
    out.lines[()] = _line(root)
    return out


def _line(node) -> int:
    return node.start_mark.line + 1


def _short(tag: str) -> str:
    return "!!" + tag[len(_YAML):] if tag.startswith(_YAML) else tag


class _Walk:
    def __init__(self, out: Tree, prefix: str):
        import yaml

        self.out = out
        self.prefix = prefix  # what starts every tag the loader gave itself ("": the file holds no tag)
        self.merge = prefix + _YAML + "merge"
        self.null = prefix + _YAML + "null"
        self.typed = {prefix + _YAML + kind: words for kind, words in _TYPED.items()}
        self.scalar, self.sequence = yaml.ScalarNode, yaml.SequenceNode
        self.seen: set[int] = set()  # collection nodes walked once (a second visit is an alias)
        self.over = False  # the alias budget is spent

    def tag_problem(self, tag: str, path: tuple, line: int) -> None:
        if not tag.startswith(self.prefix) if self.prefix else tag not in _RESOLVED:
            self.refuse(path, line, f"the tag {_short(tag)} is not allowed: the file holds plain values "
                                    "(remove the tag)")

    def refuse(self, path: tuple, line: int, message: str) -> None:
        self.out.refused.append((path, line, message))

    def spent(self, path: tuple, line: int) -> bool:
        """Count one repeated node; True when the alias budget is (or now becomes) spent."""
        if self.over:  # the budget is spent: no alias is walked any more
            return True
        self.out.aliased += 1
        if self.out.aliased > MAX_ALIAS_NODES:
            self.over = True
            self.refuse(path, line, f"aliases repeat more than {MAX_ALIAS_NODES} nodes (an alias bomb?); "
                                    "write the values out")
            return True
        return False

    def plain(self, node, path: tuple, depth: int, line: int, repeat: bool = False):
        if repeat and self.spent(path, line):
            return Nothing("")
        if not repeat:
            self.tag_problem(node.tag, path, _line(node))
        if isinstance(node, self.scalar):
            return self.scalar_value(node, path, repeat)
        if id(node) in self.seen:
            repeat = True
        self.seen.add(id(node))
        if depth >= MAX_DEPTH:
            if not repeat:
                self.refuse(path, _line(node), f"nested deeper than {MAX_DEPTH} levels")
            return [] if isinstance(node, self.sequence) else {}
        if isinstance(node, self.sequence):
            return self.items(node, path, depth, line, repeat)
        return self.mapping(node, path, depth, line, repeat)

    def scalar_value(self, node, path: tuple, repeat: bool):
        tag = node.tag
        if node.style:
            return node.value
        if tag == self.null:
            return Nothing(node.value)
        if tag in self.typed and not repeat:
            self.out.typed[path] = self.typed[tag]
        if _INT.match(node.value):
            return Written(node.value)
        return node.value

    def items(self, node, path: tuple, depth: int, line: int, repeat: bool) -> list:
        items = []
        for index, item in enumerate(node.value):
            if repeat and self.over:
                break
            at = line if repeat else _line(item)
            if not repeat:
                self.out.lines[path + (index,)] = at
            items.append(self.plain(item, path + (index,), depth + 1, at, repeat or id(item) in self.seen))
        return items

    def mapping(self, node, path: tuple, depth: int, line: int, repeat: bool) -> dict:
        out = self.out
        mapping: dict = {}
        seen: dict = {}
        for key_node, value in node.value:
            if repeat and self.over:
                break
            key = key_node.value if isinstance(key_node, self.scalar) else "<" + key_node.id + ">"
            key_line = line if repeat else _line(key_node)
            if not self.usable_key(key_node, key, key_line, path, seen, repeat):
                continue
            seen[key] = key_line
            sub = path + (key,)
            if not repeat:
                out.key_lines[sub] = key_line
            alias = id(value) in self.seen
            mapping[key] = self.plain(value, sub, depth + 1, key_line, repeat or alias)
            if not repeat:  # an alias's value: the line of its key (the node's own is the anchor's)
                out.lines[sub] = key_line if alias or isinstance(mapping[key], Nothing) else _line(value)
        return mapping

    def usable_key(self, key_node, key, key_line: int, path: tuple, seen: dict, repeat: bool) -> bool:
        """False for a merge key and a repeated key (each reported once, not under an alias)."""
        if key_node.tag == self.merge:
            if not repeat:
                self.refuse(path, key_line, "a merge key (<<) is not allowed: write the keys out")
            return False
        if not repeat:
            self.tag_problem(key_node.tag, path, key_line)
        if key in seen:
            if not repeat:
                self.out.duplicates.append((path, key, key_line, seen[key]))
            return False
        return True
