"""``json.dumps(doc, indent=2, ensure_ascii=False)`` of a report, written by plain recursion.

The standard library writes an indented document through a chain of generators, one per level, so
every token is yielded up through each level above it; a SARIF log of a large catalog (tens of
thousands of nested objects) spent most of its rendering there.  :func:`indented` writes the same
text, each container joined from the texts of its items: the same separators and indentation,
strings through the same ``encode_basestring``, numbers through ``int.__repr__`` and
``float.__repr__`` (``NaN``, ``Infinity``), keys converted as ``json`` converts them, the types tried
in json's order.  A document holding anything else (another type, a key of another type, a cycle, a
nesting deeper than the interpreter recurses) is left to ``json.dumps``, so its errors are json's own
(tests/render/test_json_indent.py).
"""

from __future__ import annotations

_INT = int.__repr__
_FLOAT = float.__repr__
_INFINITY = float("inf")


class _Unwritten(Exception):
    """A value this module does not write (json.dumps decides)."""


def indented(doc, encode=None, clean=None) -> str:
    """``json.dumps(doc, indent=2, ensure_ascii=False)``, each string written by ``encode`` (default: json's
    ``encode_basestring``) and the text of ``json.dumps``, when it decides, passed through ``clean``.

    ``encode`` may change a string's text only as ``clean`` changes the whole text (characters inside
    strings, each string alone): the one document either way.
    """
    import json
    from json.encoder import encode_basestring

    try:
        return _text(doc, "\n", encode or encode_basestring)
    except (_Unwritten, RecursionError):
        text = json.dumps(doc, indent=2, ensure_ascii=False)
        return text if clean is None else clean(text)


def written(value, newline: str, encode) -> str:
    """``value`` as :func:`indented` writes it at the indentation ``newline`` ends with, each string through
    ``encode``; raises for a value it leaves to ``json.dumps``."""
    return _text(value, newline, encode)


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return _FLOAT(value)


def _text(value, newline: str, encode) -> str:
    """``value`` written at the indentation ``newline`` ends with: the common exact types first, then
    json's own order of ``isinstance`` tests (subclasses, booleans, None, floats, tuples)."""
    kind = type(value)
    if kind is str:
        return encode(value)
    if kind is dict:
        return _dict(value, newline, encode)
    if kind is list:
        return _list(value, newline, encode)
    if kind is int:
        return _INT(value)
    if isinstance(value, str):
        return encode(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return _INT(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, (list, tuple)):
        return _list(value, newline, encode)
    if isinstance(value, dict):
        return _dict(value, newline, encode)
    raise _Unwritten


def _list(items, newline: str, encode) -> str:
    if not items:
        return "[]"
    inner = newline + "  "
    return ("[" + inner
            + ("," + inner).join([encode(v) if type(v) is str else _text(v, inner, encode) for v in items])
            + newline + "]")


def _key(key) -> str:
    """A key as json writes it: a string as it is; a number, a boolean or None as its JSON text."""
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _float(key)
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return _INT(key)
    raise _Unwritten


def _dict(mapping, newline: str, encode) -> str:
    if not mapping:
        return "{}"
    inner = newline + "  "
    return ("{" + inner
            + ("," + inner).join([encode(k if type(k) is str else _key(k)) + ": "
                                  + (encode(v) if type(v) is str else _text(v, inner, encode))
                                  for k, v in mapping.items()])
            + newline + "}")
