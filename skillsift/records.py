"""``@record``: the dataclasses of the hooks' path, made at import for a fraction of the cost.

Every ``skillsift hook`` process imports about 25 model classes (the config, the skills, the
discovery, the diagnostics, the listing).  As :func:`dataclasses.dataclass`, each one costs
about 0.8 ms to make (one ``exec`` per generated method, and :mod:`inspect` for a docstring),
and :mod:`dataclasses` itself imports :mod:`inspect`, :mod:`ast`, :mod:`dis` and :mod:`tokenize`:
together about a third of a hook's CPU.  :func:`record` makes the same methods from one
generated source per class (``__init__`` with the defaults and factories, ``__repr__``,
``__eq__``, ``__hash__``, the ordering methods, the frozen ``__setattr__``/``__delattr__``), the
way :mod:`dataclasses` writes them, so instances behave alike: equality and ordering compare
the same field tuples, the repr reads the same, a frozen instance refuses assignment with
:class:`dataclasses.FrozenInstanceError`.

``dataclasses.replace``, ``fields``, ``asdict`` and ``is_dataclass`` work on a record: its
``__dataclass_fields__`` is built (with :mod:`dataclasses` imported) the first time it is read;
:func:`replace` here does the same without importing :mod:`dataclasses`.
For mypy a record *is* a dataclass (``TYPE_CHECKING`` below), so the types stay checked.

``slots=True`` makes the class again with ``__slots__`` of its fields, as dataclasses does (not
with ``frozen``).  Not supported (a class asking for them is refused at import): inheriting fields
from another dataclass or record, ``InitVar``, ``kw_only``, ``unsafe_hash``, ``slots`` with ``frozen``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (mypy reads this name as true; ``typing`` is not imported for it)

if TYPE_CHECKING:
    from dataclasses import dataclass as record
    from dataclasses import field, replace
else:
    _MISSING = object()

    class _Field:
        __slots__ = ("default", "default_factory", "init", "repr", "hash", "compare", "name", "type")

        def __init__(self, default=_MISSING, default_factory=_MISSING, init=True, repr=True, hash=None,
                     compare=True):
            if default is not _MISSING and default_factory is not _MISSING:
                raise ValueError("cannot specify both default and default_factory")
            self.default, self.default_factory = default, default_factory
            self.init, self.repr, self.hash, self.compare = init, repr, hash, compare
            self.name = self.type = None

    def field(*, default=_MISSING, default_factory=_MISSING, init=True, repr=True, hash=None, compare=True):
        """:func:`dataclasses.field` for a :func:`record` (the same arguments, less ``metadata`` and ``kw_only``)."""
        return _Field(default, default_factory, init, repr, hash, compare)

    class _DataclassFields:
        """``cls.__dataclass_fields__``, made the first time it is read (``dataclasses.replace``, ``fields``)."""

        def __get__(self, _instance, owner):
            import dataclasses

            out = {}
            for f in owner.__record_fields__:
                real = dataclasses.field(
                    default=dataclasses.MISSING if f.default is _MISSING else f.default,
                    default_factory=dataclasses.MISSING if f.default_factory is _MISSING else f.default_factory,
                    init=f.init, repr=f.repr, hash=f.hash, compare=f.compare)
                real.name, real.type = f.name, f.type
                real._field_type = dataclasses._FIELD  # type: ignore[attr-defined]
                out[f.name] = real
            owner.__dataclass_fields__ = out
            return out

    def _frozen_error(name):
        from dataclasses import FrozenInstanceError

        return FrozenInstanceError(f"cannot assign to field {name!r}")

    def _key(names):
        """The tuple of the named fields, as dataclasses compares and hashes it."""
        if len(names) == 1:
            one = names[0]
            return lambda self: (getattr(self, one),)
        if not names:
            return lambda self: ()
        from operator import attrgetter

        return attrgetter(*names)

    def _eq(a, b):
        return a == b

    def _lt(a, b):
        return a < b

    def _le(a, b):
        return a <= b

    def _gt(a, b):
        return a > b

    def _ge(a, b):
        return a >= b

    def _compare(key, op):
        def method(self, other):
            if other.__class__ is self.__class__:
                return op(key(self), key(other))
            return NotImplemented

        return method

    def _hash(key):
        def __hash__(self):
            return hash(key(self))

        return __hash__

    def _repr(names):
        def __repr__(self):
            inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
            return f"{self.__class__.__qualname__}({inner})"

        return __repr__

    def _frozen(cls, names):
        def __setattr__(self, name, value):
            if type(self) is cls or name in names:
                raise _frozen_error(name)
            super(cls, self).__setattr__(name, value)

        def __delattr__(self, name):
            if type(self) is cls or name in names:
                raise _frozen_error(name)
            super(cls, self).__delattr__(name)

        return {"__setattr__": __setattr__, "__delattr__": __delattr__}


    def _declared_fields(cls):
        """The class's fields in order, as dataclasses reads them (defaults through the class)."""
        for base in cls.__mro__[1:]:
            if "__dataclass_fields__" in base.__dict__ or "__record_fields__" in base.__dict__:
                raise TypeError(f"{cls.__name__}: a record does not inherit fields")
        fields = []
        for name, annotation in cls.__dict__.get("__annotations__", {}).items():
            kind = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
            if kind.startswith(("ClassVar", "typing.ClassVar")):
                continue
            if kind.startswith(("InitVar", "dataclasses.InitVar", "KW_ONLY", "dataclasses.KW_ONLY")):
                raise TypeError(f"{cls.__name__}.{name}: InitVar and KW_ONLY are not supported by a record")
            value = cls.__dict__.get(name, _MISSING)
            # as dataclasses reads a default: through the class, so a descriptor gives its own default
            f = value if isinstance(value, _Field) else _Field(default=getattr(cls, name, _MISSING))
            if isinstance(f.default, (list, dict, set)):
                raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: "
                                 "use default_factory")
            f.name, f.type = name, annotation
            if isinstance(value, _Field):
                if f.default is _MISSING:
                    delattr(cls, name)
                else:
                    setattr(cls, name, f.default)
            fields.append(f)
        return fields

    def _field_init(f, scope, seen_default):
        """One field's ``__init__`` parameter (or None) and the expression it is set to (or None)."""
        if f.init:
            if f.default is not _MISSING:
                scope[f"__default_{f.name}"] = f.default
                return f"{f.name}=__default_{f.name}", f.name
            if f.default_factory is not _MISSING:
                scope[f"__factory_{f.name}"] = f.default_factory
                return f"{f.name}=__MISSING", f"__factory_{f.name}() if {f.name} is __MISSING else {f.name}"
            if seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
            return f.name, f.name
        if f.default_factory is not _MISSING:
            scope[f"__factory_{f.name}"] = f.default_factory
            return None, f"__factory_{f.name}()"
        if f.default is not _MISSING:
            scope[f"__default_{f.name}"] = f.default
            return None, f"__default_{f.name}"
        return None, None

    def _init(cls, fields, frozen):
        """The ``__init__`` made from the fields' source, as dataclasses makes it."""
        scope = {"__MISSING": _MISSING, "__setattr": object.__setattr__}
        params, body, seen_default = [], [], False
        for f in fields:
            param, value = _field_init(f, scope, seen_default)
            if param is not None:
                params.append(param)
                seen_default = seen_default or "=" in param
            if value is not None:
                body.append(f"  __setattr(self,{f.name!r},{value})" if frozen else f"  self.{f.name}={value}")
        if hasattr(cls, "__post_init__"):
            body.append("  self.__post_init__()")
        src = f"def __init__(self,{','.join(params)}):\n" + "\n".join(body or ["  pass"])
        return _compiled(cls, src, scope)

    #: The ``__init__`` source of each record made in this process -> the modules of its classes
    #: (``tests/generated.py`` writes the table of skillsift's from it).
    SOURCES: dict[str, set] = {}

    def _compiled(cls, src, scope):
        """``__init__`` from ``src``: made by its factory in :mod:`skillsift.record_inits` (compiled with the
        package) when that table has it, else compiled here.

        Compiling the source was most of what a record cost to make (about 1M instructions per class, 12%
        of a hook's).  A factory holds the same source in a function whose parameters are the names the
        source reads (``__MISSING``, ``__setattr``, the defaults and factories), so the ``__init__`` it
        returns reads them as ``exec`` in ``scope`` would.
        """
        SOURCES.setdefault(src, set()).add(cls.__module__)
        factory = _INITS.get(src)
        if factory is not None:
            return factory(**scope)
        exec(src, scope)  # noqa: S102 - the source is made from the class's field names
        return scope["__init__"]

    def _methods(cls, fields, frozen, eq, order):
        """The methods a record gets: ``__init__``, ``__repr__`` and what ``eq``, ``order``, ``frozen`` ask."""
        methods = {"__init__": _init(cls, fields, frozen), "__repr__": _repr([f.name for f in fields if f.repr])}
        key = _key([f.name for f in fields if f.compare])
        if eq:
            methods["__eq__"] = _compare(key, _eq)
        if order:
            for name, op in (("__lt__", _lt), ("__le__", _le), ("__gt__", _gt), ("__ge__", _ge)):
                if name in cls.__dict__:
                    raise TypeError(f"cannot overwrite attribute {name} in class {cls.__name__}")
                methods[name] = _compare(key, op)
        explicit_hash = "__hash__" in cls.__dict__ and cls.__dict__["__hash__"] is not None
        if eq and frozen and not explicit_hash:
            methods["__hash__"] = _hash(_key([f.name for f in fields if (f.compare if f.hash is None else f.hash)]))
        if frozen:
            methods.update(_frozen(cls, frozenset(f.name for f in fields)))
        return methods

    def _slotted(cls, fields):
        """``cls`` made again with ``__slots__`` of its fields, as :func:`dataclasses.dataclass` makes it
        (``slots=True``): the defaults are ``__init__``'s, no longer class attributes."""
        names = tuple(f.name for f in fields)
        if "__slots__" in cls.__dict__:
            raise TypeError(f"{cls.__name__} already specifies __slots__")
        namespace = {key: value for key, value in cls.__dict__.items()
                     if key not in names and key not in ("__dict__", "__weakref__")}
        namespace["__slots__"] = names
        made = type(cls)(cls.__name__, cls.__bases__, namespace)
        made.__qualname__ = cls.__qualname__
        return made

    def _make(cls, frozen, eq, order, slots=False):
        if slots and frozen:
            raise TypeError(f"{cls.__name__}: a record is not both frozen and slotted")
        fields = _declared_fields(cls)
        cls.__record_fields__ = tuple(fields)
        cls.__dataclass_fields__ = _DataclassFields()
        cls.__match_args__ = tuple(f.name for f in fields if f.init)
        for name, fn in _methods(cls, fields, frozen, eq, order).items():
            fn.__qualname__ = f"{cls.__qualname__}.{name}"
            if name in ("__init__", "__repr__", "__eq__") and name in cls.__dict__:
                continue  # the class's own, as dataclasses keeps it
            setattr(cls, name, fn)
        if eq and not frozen and "__hash__" not in cls.__dict__:
            cls.__hash__ = None  # type: ignore[assignment]
        return _slotted(cls, fields) if slots else cls

    def record(cls=None, /, *, frozen=False, eq=True, order=False, slots=False):
        """:func:`dataclasses.dataclass` (``frozen``, ``eq``, ``order``, ``slots``) at a fraction of its import
        cost."""
        if order and not eq:
            raise ValueError("eq must be true if order is true")

        def wrap(cls):
            return _make(cls, frozen, eq, order, slots)

        return wrap if cls is None else wrap(cls)

    def replace(obj, /, **changes):
        """:func:`dataclasses.replace` without importing :mod:`dataclasses` for a record."""
        fields = getattr(type(obj), "__record_fields__", None)
        if fields is None:
            import dataclasses

            return dataclasses.replace(obj, **changes)
        for f in fields:
            if not f.init:
                if f.name in changes:
                    raise ValueError(f"field {f.name} is declared with init=False, it cannot be specified with "
                                     "replace()")
                continue
            if f.name not in changes:
                changes[f.name] = getattr(obj, f.name)
        return obj.__class__(**changes)


    from .record_inits import INITS as _INITS

__all__ = ["field", "record", "replace"]
