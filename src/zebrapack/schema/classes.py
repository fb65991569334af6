"""Building the dataclasses of a schema at run time (``schema.types``).

One ``@dataclass(slots=True)`` per struct (a ``GeneratedRecord``, which makes it
and its instances pickle once bound to a schema): attributes are the Go field names
in zid order (Skip fields have none), annotations and defaults follow the
mapping table of tests/vectors/README.md. ``zero_factory`` gives the zero of
any type (the compiled core's make_zero follows the same rule for absent
fields; tests check that an empty record decodes to each class's default).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..values.ext import Ext
from .model import (
    BYTE_KINDS,
    IMMUTABLE_ZEROS,
    INTEGER_KINDS,
    UNKNOWN_ATTR,
    Kind,
    SchemaDef,
    StructDef,
    TypeRef,
    python_name,
    value_dependency_order,
)
from .pickling import GeneratedRecord

_SCALAR_ANNOTATIONS: dict[Kind, Any] = {
    Kind.BYTES: bytes, Kind.STRING: str, Kind.FLOAT32: float, Kind.FLOAT64: float,
    Kind.COMPLEX64: complex, Kind.COMPLEX128: complex, Kind.BOOL: bool, Kind.TIME: datetime,
    Kind.INTF: Any, Kind.IDENT_IFACE: Any, Kind.EXT: Ext | None,
    Kind.RAW: bytes, Kind.NUMBER: int | float,
}


def zero_factory(type_ref: TypeRef, classes: Mapping[str, type]) -> tuple[bool, Any]:
    """(True, value) when the zero is immutable, else (False, a callable making one)."""
    kind = type_ref.kind
    if kind in IMMUTABLE_ZEROS:
        return True, IMMUTABLE_ZEROS[kind]
    if kind in INTEGER_KINDS:
        return True, 0
    if kind == Kind.SLICE:
        return False, list
    if kind == Kind.MAP:
        return False, dict
    if kind == Kind.STRUCT:
        return False, classes[type_ref.name]
    if kind == Kind.ARRAY:
        elem = type_ref.elem_type
        if elem.kind in BYTE_KINDS:
            return True, bytes(type_ref.length)
        return False, ArrayZero(type_ref.length, *zero_factory(elem, classes))
    raise AssertionError(f"no zero for {type_ref}")


class ArrayZero:
    """Makes the zero of ``[N]T``: a list of N zeros of T (fresh ones if T is mutable)."""

    __slots__ = ("length", "immutable", "zero")

    def __init__(self, length: int, immutable: bool, zero: Any) -> None:
        self.length = length
        self.immutable = immutable
        self.zero = zero

    def __call__(self) -> list[Any]:
        if self.immutable:
            return [self.zero] * self.length
        return [self.zero() for _ in range(self.length)]

    def __repr__(self) -> str:
        return f"<zero of a {self.length}-element array>"


def annotation(type_ref: TypeRef, classes: Mapping[str, type], field_level: bool = False) -> Any:
    """The Python annotation of a type (``field_level``: a struct field's own type)."""
    kind = type_ref.kind
    if kind == Kind.TIME and field_level:
        return datetime | None
    if kind in _SCALAR_ANNOTATIONS:
        return _SCALAR_ANNOTATIONS[kind]
    if kind == Kind.STRUCT:
        return classes[type_ref.name]
    if kind == Kind.POINTER:
        return annotation(type_ref.elem_type, classes) | None
    if kind == Kind.SLICE:
        return list[annotation(type_ref.elem_type, classes)]  # type: ignore[misc]
    if kind == Kind.ARRAY:
        if type_ref.elem_type.kind in BYTE_KINDS:
            return bytes
        return list[annotation(type_ref.elem_type, classes)]  # type: ignore[misc]
    if kind == Kind.MAP:
        key = annotation(type_ref.key, classes) if type_ref.key is not None else Any
        return dict[key, annotation(type_ref.elem_type, classes)]  # type: ignore[misc,valid-type]
    return int


def field_default(type_ref: TypeRef, classes: Mapping[str, type]) -> Any:
    """The ``dataclasses.field`` of a struct field of this type."""
    if type_ref.kind == Kind.TIME:
        return dataclasses.field(default=None)
    immutable, zero = zero_factory(type_ref, classes)
    if immutable:
        return dataclasses.field(default=zero)
    return dataclasses.field(default_factory=zero)


def _docstring(struct: StructDef, package: str) -> str:
    lines = [f"Go struct {struct.name} of ZebraPack schema package {package!r}.", "", "Fields (zid, name, Go type):"]
    for f in sorted(struct.fields, key=lambda item: item.zid):
        if f.skip:
            lines.append(f"    {f.zid} {f.go_name} (skipped{', deprecated' if f.deprecated else ''})")
        elif f.unusable:
            lines.append(f"    {f.zid} {f.go_name} {f.go_spelling} (unusable, always None: {f.unusable})")
        else:
            assert f.type is not None
            flags = ", deprecated" if f.deprecated else ""
            lines.append(f"    {f.zid} {f.go_name} {f.type.go}{flags}")
    return "\n".join(lines)


def unknown_field() -> Any:
    """The dataclass field holding unknown entries: {zid or tag: raw msgpack value}.

    Not an __init__ argument, not compared, not shown: it only rides along so
    that encode writes the entries back.
    """
    return dataclasses.field(default=None, init=False, repr=False, compare=False)


def build_dataclasses(schema: SchemaDef, module: str | None = None, preserve_unknown: bool = False,
                      given: Mapping[str, type] | None = None) -> dict[str, type]:
    """One slots dataclass per struct of the schema, by struct name, except those in
    ``given`` (the user's own classes, which the generated ones then refer to).

    ``preserve_unknown`` adds the ``zebrapack_unknown`` field (see ``unknown_field``).
    """
    package = schema.source_package
    module = module or f"zebrapack.schemas.{package or 'anonymous'}"
    classes: dict[str, type] = dict(given or {})
    generated: list[str] = []
    # By-value dependencies first: a nested struct's default needs its class.
    for name in value_dependency_order(schema.structs):
        if name in classes:
            continue
        generated.append(name)
        struct = schema.structs[name]
        spec: list[tuple[str, Any, Any]] = []
        for f in struct.value_fields:
            spec.append((f.attr, Any, field_default(f.type, classes) if f.type is not None
                         else dataclasses.field(default=None)))
        if preserve_unknown:
            spec.append((UNKNOWN_ATTR, dict[int | str, bytes] | None, unknown_field()))
        cls = dataclasses.make_dataclass(
            python_name(name), spec, bases=(GeneratedRecord,), slots=True, eq=True, repr=True,
            namespace={"__doc__": _docstring(struct, package)},
        )
        cls.__module__ = module
        classes[name] = cls
    # Annotations need every class (recursive types refer to themselves).
    for name in generated:
        cls = classes[name]
        for f in schema.structs[name].value_fields:
            hint = annotation(f.type, classes, field_level=True) if f.type is not None else type(None)
            cls.__annotations__[f.attr] = hint
            cls.__dataclass_fields__[f.attr].type = hint  # type: ignore[attr-defined]
    return {name: classes[name] for name in schema.structs}
