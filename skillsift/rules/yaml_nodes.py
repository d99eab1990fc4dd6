"""A composed YAML node tree as plain values, read as written, and the one map from node path to line.

Scalars keep their text: a plain scalar of digits is a :class:`~skillsift.rules.Written`
integer (``007`` stays ``007`` where text is wanted), a plain null a
:class:`~skillsift.rules.Nothing`, everything else a string (``yes`` is the text ``yes``:
YAML 1.1 typing never changes what a field means).  A key written twice in one mapping is
kept at its first place and reported by the caller (:attr:`Tree.duplicates`).

The walk stops at :data:`MAX_DEPTH`: no document rule looks deeper, and an alias-built
tree can be exponentially large when expanded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import Nothing, Written

_INT = re.compile(r"[-+]?[0-9]+\Z")
_NULL_TAG = "tag:yaml.org,2002:null"
MAX_DEPTH = 8


@dataclass
class Tree:
    """The plain value of a document, where each node is written, and its duplicate keys."""

    value: object = None
    lines: dict = field(default_factory=dict)  # path -> line of the value (a null value: of its key)
    key_lines: dict = field(default_factory=dict)  # path -> line of the key that holds it
    duplicates: list = field(default_factory=list)  # (mapping path, key, line, line of the first)

    def line(self, path: tuple, at_key: bool = False) -> int:
        """The line of ``path`` (its key's line when ``at_key``), else of the nearest node holding it."""
        path = tuple(path)
        if at_key and path in self.key_lines:
            return self.key_lines[path]
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path, 1)


def tree(root) -> Tree:
    """The :class:`Tree` of a composed node (``None``: an empty document)."""
    out = Tree()
    if root is None:
        out.value, out.lines[()] = Nothing(""), 1
        return out
    out.value = _plain(root, (), out, 0)
    out.lines[()] = _line(root)
    return out


def _line(node) -> int:
    return node.start_mark.line + 1


def _plain(node, path: tuple, out: Tree, depth: int):
    import yaml

    if isinstance(node, yaml.ScalarNode):
        if node.tag == _NULL_TAG and not node.style:
            return Nothing(node.value)
        if not node.style and _INT.match(node.value):
            return Written(node.value)
        return node.value
    if depth >= MAX_DEPTH:
        return {} if isinstance(node, yaml.MappingNode) else []
    if isinstance(node, yaml.SequenceNode):
        items = []
        for index, item in enumerate(node.value):
            out.lines[path + (index,)] = _line(item)
            items.append(_plain(item, path + (index,), out, depth + 1))
        return items
    mapping: dict = {}
    seen: dict = {}
    for key_node, value in node.value:
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else "<" + key_node.id + ">"
        key_line = _line(key_node)
        if key in seen:
            out.duplicates.append((path, key, key_line, seen[key]))
            continue
        seen[key] = key_line
        sub = path + (key,)
        out.key_lines[sub] = key_line
        mapping[key] = _plain(value, sub, out, depth + 1)
        out.lines[sub] = key_line if isinstance(mapping[key], Nothing) else _line(value)
    return mapping
