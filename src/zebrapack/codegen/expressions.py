"""Python source for the parts of the model that are Python objects: annotations
(typing objects) and zero values (values and factories), as ``schema.classes`` makes them."""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any

from ..schema.classes import ArrayZero
from ..values.ext import Ext
from ..values.gotime import GO_ZERO_TIME
from .model import StructRef, alias_of

#: How the module spells the objects it imports, and the import each needs.
_IMPORTED: Mapping[Any, tuple[str, str]] = MappingProxyType({
    typing.Any: ("typing.Any", "typing"),
    datetime: ("datetime", "datetime"),
    Ext: ("zebrapack.Ext", "zebrapack"),
})
_BUILTINS = (bool, int, float, complex, str, bytes, list, dict)


class SourceWriter:
    """Spells annotations and zero values as source, inside one class.

    ``aliased``: struct names this class refers to through their alias.
    ``imports`` collects the names (``typing``, ``datetime``, ``timezone``,
    ``field``, ``zebrapack``) the spelled source needs imported.
    """

    def __init__(self, aliased: frozenset[str], imports: set[str]) -> None:
        self._aliased = aliased
        self.imports = imports

    def annotation(self, hint: Any) -> str:
        if hint is type(None):
            return "None"
        if isinstance(hint, type) and issubclass(hint, StructRef):
            return self.class_name(hint)
        if hint in _IMPORTED:
            spelling, module = _IMPORTED[hint]
            self.imports.add(module)
            return spelling
        origin = typing.get_origin(hint)
        if origin in (typing.Union, types.UnionType):
            args = typing.get_args(hint)
            # None last, as in "Inner | None"
            ordered = [arg for arg in args if arg is not type(None)] + [arg for arg in args if arg is type(None)]
            return " | ".join(self.annotation(arg) for arg in ordered)
        if origin in (list, dict):
            return f"{origin.__name__}[{', '.join(self.annotation(arg) for arg in typing.get_args(hint))}]"
        if hint in _BUILTINS:
            return str(hint.__name__)
        raise AssertionError(f"no source for the annotation {hint!r}")

    def class_name(self, ref: type) -> str:
        assert issubclass(ref, StructRef)
        return alias_of(ref.__name__) if ref.struct_name in self._aliased else ref.__name__

    def value(self, value: Any) -> str:
        """An immutable zero value."""
        if value is GO_ZERO_TIME:
            self.imports.update(("datetime", "timezone"))
            return "datetime(1, 1, 1, tzinfo=timezone.utc)"
        if isinstance(value, bytes):
            assert not any(value), value
            return f"bytes({len(value)})" if value else 'b""'
        if isinstance(value, str):
            assert value == "", value
            return '""'
        if value is None or isinstance(value, (bool, int, float, complex)):
            return repr(value)
        raise AssertionError(f"no source for the zero value {value!r}")

    def factory(self, factory: Any) -> str:
        """A ``default_factory``: a class, or a lambda making the zero."""
        if factory in (list, dict):
            return str(factory.__name__)
        if isinstance(factory, type) and issubclass(factory, StructRef):
            return self.class_name(factory)
        return f"lambda: {self._make(factory)}"

    def _make(self, factory: Any) -> str:
        """An expression making a fresh zero."""
        if factory is list:
            return "[]"
        if factory is dict:
            return "{}"
        if isinstance(factory, type) and issubclass(factory, StructRef):
            return f"{self.class_name(factory)}()"
        assert isinstance(factory, ArrayZero), factory
        if factory.immutable:
            return f"[{self.value(factory.zero)}] * {factory.length}"
        element = self._make(factory.zero)
        return f"[{element} for {_unused_name(element)} in range({factory.length})]"


def _unused_name(expression: str) -> str:
    """A comprehension variable the expression does not name: ``_``, or as many underscores
    as it takes (a struct may be called ``_``, and its alias ``__``)."""
    names = set(re.findall(r"\w+", expression))
    name = "_"
    while name in names:
        name += "_"
    return name
