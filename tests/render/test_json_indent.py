"""``indented`` writes what ``json.dumps(doc, indent=2, ensure_ascii=False)`` writes: random documents
of every JSON-able type (odd strings, every kind of key, NaN and the infinities, huge integers,
tuples, subclasses, empty and deep containers), and the errors of what json refuses are json's own."""

from __future__ import annotations

import enum
import json
import random
from collections import OrderedDict

import pytest

from skillsift.render.json_indent import indented

_STRINGS = ["", "a", "é", "\x00", "\x1f", "\x7f", "\u2028", "\ud800", "\U0001f600", '"', "\\", "##[", "::", " \t\n"]


class _Level(enum.IntEnum):
    LOW = 1


class _Text(str):
    pass


def _scalar(rng: random.Random):
    return rng.choice([
        None, True, False, 0, -1, 2**70, -(2**64), _Level.LOW, 0.0, -0.0, 1.5, 1e300, 1e-300, float("nan"),
        float("inf"), float("-inf"), rng.random(), _Text("sub"),
        "".join(rng.choice(_STRINGS) for _ in range(rng.randint(0, 4))),
    ])


def _key(rng: random.Random):
    return rng.choice(["k", "", "é", "\x00", "a\"b", 1, -2, 2**65, 1.5, float("nan"), float("inf"), True, False, None,
                       "".join(rng.choice(_STRINGS) for _ in range(rng.randint(0, 3)))])


def _doc(rng: random.Random, depth: int):
    if depth <= 0 or rng.random() < 0.3:
        return _scalar(rng)
    size = rng.choice([0, 1, 2, 5])
    kind = rng.random()
    if kind < 0.4:
        return {_key(rng): _doc(rng, depth - 1) for _ in range(size)}
    if kind < 0.5:
        return OrderedDict((str(n), _doc(rng, depth - 1)) for n in range(size))
    items = [_doc(rng, depth - 1) for _ in range(size)]
    return tuple(items) if kind < 0.6 else items


@pytest.mark.parametrize("seed", range(300))
def test_indented_equals_json_dumps_on_random_documents(seed):
    rng = random.Random(seed)
    doc = _doc(rng, rng.randint(0, 6))
    assert indented(doc) == json.dumps(doc, indent=2, ensure_ascii=False)


def test_a_deep_and_a_wide_document():
    deep: object = "leaf"
    for n in range(200):
        deep = [deep] if n % 2 else {"k": deep}
    wide = {"diagnostics": [{"code": f"SK{n:03d}", "line": n, "hint": "é" * (n % 3)} for n in range(2000)]}
    for doc in (deep, wide, [], {}, [[]], {"a": {}}, "x", 3, None):
        assert indented(doc) == json.dumps(doc, indent=2, ensure_ascii=False)


def test_what_json_refuses_raises_what_json_raises():
    cycle: list = []
    cycle.append(cycle)
    for doc, error in (({"a": object()}, TypeError), ({(1, 2): 1}, TypeError), ([{1, 2}], TypeError),
                       (cycle, ValueError)):
        with pytest.raises(error) as ours:
            indented(doc)
        with pytest.raises(error) as theirs:
            json.dumps(doc, indent=2, ensure_ascii=False)
        assert str(ours.value) == str(theirs.value)
