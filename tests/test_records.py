"""``skillsift.records.record`` behaves as ``dataclasses.dataclass`` for what the package uses.

The same class body is made both ways and every behaviour a caller can see is compared:
construction (positional, keywords, defaults, factories, ``init=False``, ``__post_init__``),
repr, equality and ordering over the compared fields, hashing, frozen assignment, and
``dataclasses.replace`` / ``fields`` / ``asdict`` / ``is_dataclass``.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from skillsift import records


def _make(decorator, field):
    @decorator(frozen=True, order=True)
    class Finding:
        file: str
        code: str
        line: int | None = None
        severity: str = field(default="error")
        rule: str = field(default="", compare=False)
        tags: dict = field(default_factory=dict, compare=False, repr=False)
        size: int = field(init=False, default=0)

        def __post_init__(self):
            object.__setattr__(self, "size", len(self.file))

    return Finding


DC = _make(dataclasses.dataclass, dataclasses.field)
REC = _make(records.record, records.field)

ARGS = [("a.md", "SK001"), ("a.md", "SK001", 3), ("b.md", "SK002", None, "warning", "kind"),
        ("a.md", "SK001", 3, "error", "other", {"k": 1})]


def _order(a, b) -> list:
    out = []
    for op in ("__lt__", "__le__", "__gt__", "__ge__"):
        try:
            out.append(getattr(a, op)(b))
        except TypeError:  # None against an int, as the tuples compare
            out.append(TypeError)
    return out


@pytest.mark.parametrize("args", ARGS)
def test_a_record_is_built_printed_compared_and_hashed_as_a_dataclass(args):
    d, r = DC(*args), REC(*args)
    assert repr(r) == repr(d).replace(DC.__qualname__, REC.__qualname__)
    assert vars(r) == vars(d)
    assert r.size == len(args[0])
    for other in ARGS:
        d2, r2 = DC(*other), REC(*other)
        assert (r == r2) == (d == d2)
        assert _order(r, r2) == _order(d, d2)
        assert (hash(r) == hash(r2)) == (hash(d) == hash(d2))
    assert hash(r) == hash(d)  # the same tuple of fields
    assert r != d and (r == 1) is False


def test_keywords_defaults_and_factories():
    r = REC(code="X", file="f", tags={"a": 1})
    assert (r.file, r.code, r.line, r.severity, r.rule, r.tags) == ("f", "X", None, "error", "", {"a": 1})
    assert REC("f", "X").tags is not REC("f", "X").tags  # a fresh dict each time
    with pytest.raises(TypeError):
        REC("f")  # code is required
    with pytest.raises(TypeError):
        REC("f", "X", size=3)  # init=False


def test_a_frozen_record_refuses_assignment_as_a_dataclass_does():
    r = REC("f", "X")
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'file'"):
        r.file = "g"
    with pytest.raises(dataclasses.FrozenInstanceError):
        del r.code


def test_replace_fields_asdict_and_pickle_work_on_a_record():
    r = REC("f", "X", 2, rule="k")
    assert dataclasses.is_dataclass(r)
    assert [f.name for f in dataclasses.fields(r)] == [f.name for f in dataclasses.fields(DC)]
    assert dataclasses.asdict(r) == dataclasses.asdict(DC("f", "X", 2, rule="k"))
    for replace in (dataclasses.replace, records.replace):
        moved = replace(r, file="longer.md")
        assert (moved.file, moved.code, moved.line, moved.rule, moved.size) == ("longer.md", "X", 2, "k", 9)
        with pytest.raises(ValueError, match="init=False"):
            replace(r, size=1)
    assert records.replace(DC("f", "X"), code="Y") == DC("f", "Y")  # a plain dataclass too
    from skillsift.diagnostics import Diagnostic  # a record of the package, importable by name

    diag = Diagnostic(file="a.md", code="SK001", message="m", line=2, rule="k")
    assert pickle.loads(pickle.dumps(diag)) == diag and copy.deepcopy(diag) == diag
    assert copy.copy(r) == r


def test_a_mutable_record_has_no_hash_and_takes_assignment():
    @records.record
    class Box:
        items: list = records.field(default_factory=list)
        name: str = "x"

    box = Box()
    box.name = "y"
    assert box == Box(name="y") and Box.__hash__ is None
    with pytest.raises(TypeError):
        hash(box)


def test_what_a_record_does_not_support_is_refused_at_import():
    with pytest.raises(TypeError, match="does not inherit"):
        @records.record
        class Child(DC):
            extra: int = 0
    with pytest.raises(ValueError, match="mutable default"):
        @records.record
        class Bad:
            items: list = []  # noqa: RUF012
    with pytest.raises(TypeError, match="non-default argument"):
        @records.record
        class Order:
            a: int = 0
            b: int


class _Lazy:
    """A data descriptor as a field's default (the way ``Skill.body`` is declared)."""

    def __get__(self, instance, owner=None):
        return "" if instance is None else instance.__dict__["text"].upper()

    def __set__(self, instance, value):
        instance.__dict__["text"] = value


def test_a_descriptor_default_gives_its_own_default_as_in_a_dataclass():
    def declare(decorator):
        @decorator(frozen=True)
        class Note:
            name: str
            text: _Lazy = _Lazy()

        return Note

    made, reference = declare(records.record), declare(dataclasses.dataclass)
    for cls in (made, reference):
        assert cls("a").text == ""  # the descriptor's default, read through the class
        assert cls("a", "shout").text == "SHOUT"
        assert dataclasses.replace(cls("a", "x"), name="b").text == "X"
    assert repr(made("a", "q")).split("(", 1)[1] == repr(reference("a", "q")).split("(", 1)[1]


def test_an_init_from_the_compiled_table_is_the_one_exec_makes(monkeypatch):
    """``skillsift/record_inits.py`` (generated) gives a record the ``__init__`` compiling its source gives:
    the same defaults, factories, frozen assignment and ``__post_init__``; a source it lacks is compiled."""
    from tests.generated import inits_source

    def finding(decorator, field):
        return _make(decorator, field)

    compiled = finding(records.record, records.field)  # REC's source is not in the package's table
    src = next(s for s, modules in records.SOURCES.items() if __name__ in modules and "size" in s)
    scope: dict = {}
    exec(compile(inits_source([src]), "<table>", "exec"), scope)  # noqa: S102 - the generator's own output
    monkeypatch.setitem(records._INITS, src, scope["INITS"][src])
    tabled = finding(records.record, records.field)
    assert tabled.__init__.__code__ is not compiled.__init__.__code__
    assert tabled.__init__.__code__.co_filename == "<table>"  # made by the factory
    for args in ARGS:
        a, b = compiled(*args), tabled(*args)
        assert vars(a) == vars(b) and repr(a).split("(", 1)[1] == repr(b).split("(", 1)[1]
    assert tabled("f", "X").tags is not tabled("f", "X").tags
    with pytest.raises(dataclasses.FrozenInstanceError):
        tabled("f", "X").code = "Y"
    with pytest.raises(TypeError):
        tabled("f", "X", size=3)


def test_the_package_records_compile_nothing_at_import():
    """Every record class of the hooks' path takes its ``__init__`` from the generated table."""
    import subprocess
    import sys

    code = ("import builtins\nseen = []\nexec_ = builtins.exec\n"
            "def spy(src, *a, **k):\n    seen.append(src)\n    return exec_(src, *a, **k)\n"
            "builtins.exec = spy\n"
            "import skillsift.hooks.frontmatter, skillsift.hooks.secrets, skillsift.catalog.load\n"
            "from skillsift import records\n"
            "print(len([s for s in seen if isinstance(s, str)]), len(records.SOURCES))\n")
    from tests.conftest import ROOT

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": ""}).stdout.split()
    assert out[0] == "0" and int(out[1]) >= 20


def _slotted(decorator, field):
    @decorator(slots=True)
    class Hit:
        name: str
        score: float
        domain: str = ""
        channels: tuple | None = field(default=None, compare=False)

    return Hit


SLOT_DC = _slotted(dataclasses.dataclass, dataclasses.field)
SLOT_REC = _slotted(records.record, records.field)


@pytest.mark.parametrize("args", [("a", 1.0), ("a", 1.0, "ops"), ("a", 1.0, "ops", (("lexical", 1.0),))])
def test_a_slotted_record_is_a_slotted_dataclass(args):
    d, r = SLOT_DC(*args), SLOT_REC(*args)
    assert SLOT_REC.__slots__ == SLOT_DC.__slots__ == ("name", "score", "domain", "channels")
    assert not hasattr(r, "__dict__") and not hasattr(d, "__dict__")
    assert SLOT_REC.__hash__ is None and SLOT_REC.__qualname__ == SLOT_DC.__qualname__
    assert repr(r) == repr(d)
    assert SLOT_REC.__match_args__ == SLOT_DC.__match_args__
    assert (r == SLOT_REC(*args[:3], channels=None)) == (d == SLOT_DC(*args[:3], channels=None)) is True
    assert (r == SLOT_REC("b", *args[1:])) is (d == SLOT_DC("b", *args[1:])) is False
    with pytest.raises(AttributeError):
        r.other = 1  # type: ignore[attr-defined]
    assert records.replace(r, domain="x") == SLOT_REC(args[0], args[1], "x")
    assert dataclasses.replace(r, score=2.0).score == 2.0
    assert [f.name for f in dataclasses.fields(r)] == [f.name for f in dataclasses.fields(d)]
    assert copy.deepcopy(r) == r and copy.copy(r) == r
    assert SLOT_REC.domain.__class__ is SLOT_DC.domain.__class__  # a slot, no class default


def test_a_record_is_not_both_frozen_and_slotted():
    with pytest.raises(TypeError, match="frozen and slotted"):
        @records.record(frozen=True, slots=True)
        class Both:
            name: str
