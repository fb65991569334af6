"""Schemas from the user's own dataclasses (``zebrapack.schema_from_dataclasses``).

Each dataclass is a struct named after the class; each field is a struct
field whose Go name is the attribute name (the name zebrapack gives the
attribute of a decoded instance, so the user's class is the schema's class).
Zids come from ``field(metadata={"zid": N})`` or ``Annotated[T, Zid(N)]``;
Go widths from the ``Annotated`` aliases of ``zebrapack.gotypes`` (``int32``, ...):

    ======================  ================  ===========================
    annotation              Go type           note
    ======================  ================  ===========================
    str, bytes, bool        string, []byte,
                            bool
    int, float, complex     int64, float64,   the widest Go types
                            complex128
    int8 ... uint64, byte,  the same          ``zebrapack.gotypes``
    uint, float32, ...
    datetime                time.Time         ``Optional[datetime]`` too: a
                                              time field's zero is None
    Any, zebrapack.Ext      interface{},
                            msgp.Extension
    a dataclass             the struct        nested, recursive, found
                                              through the fields
    list[T], dict[K, V]     []T, map[K]V      K: str, int, zebrapack.int32
    Optional[T]             *T
    zebrapack.Retired       struct{}          a retired field (Skip and
                                              deprecated), default None
    ======================  ================  ===========================
"""

from __future__ import annotations

import dataclasses
import datetime
import types
import typing
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Annotated, Any

from .._core import DEFAULT_MAX_DEPTH
from .._errors import SchemaError
from ..evolution.compat import check_zid_sequence
from ..gotypes import GoKind
from ..schema.document import schema_document
from ..schema.loader import Schema
from ..schema.model import UNKNOWN_ATTR, FieldDef, Kind, SchemaDef, StructDef, TypeRef, parse_schema
from ..values.ext import Ext


@dataclass(frozen=True)
class Zid:
    """A field's zid and flags, for ``Annotated[T, Zid(N)]``.

    ``field(metadata={"zid": N, "deprecated": ..., "tag": ..., "omitempty": ...})``
    says the same. ``tag`` is the name of the field in msgp mode (default: its name).
    """

    zid: int
    deprecated: bool = False
    tag: str | None = None
    omitempty: bool = False


@dataclass(frozen=True)
class _Retirement:
    """The mark of ``Retired``."""


#: The annotation of a retired field (Go ``struct{}``, deprecated): never
#: written or read, it keeps its zid from being used again
#: (``Age: zebrapack.Retired = field(default=None, metadata={"zid": 1})``).
Retired = Annotated[None, _Retirement()]


_PLAIN_KINDS: Mapping[Any, Kind] = MappingProxyType({
    str: Kind.STRING, bytes: Kind.BYTES, bool: Kind.BOOL, int: Kind.INT64, float: Kind.FLOAT64,
    complex: Kind.COMPLEX128, datetime.datetime: Kind.TIME, Any: Kind.INTF, Ext: Kind.EXT,
})
_GO_KIND_BASES = {int: range(Kind.UINT, Kind.INT64 + 1), float: (Kind.FLOAT32, Kind.FLOAT64),
                  complex: (Kind.COMPLEX64, Kind.COMPLEX128)}
#: The map keys the reference Go code can serialize.
_MAP_KEYS = frozenset({Kind.STRING, Kind.INT64, Kind.INT32})
_ZID_KEYS = frozenset({"zid", "deprecated", "tag", "omitempty"})


def schema_from_dataclasses(*classes: type, package: str, schema_id: int | None = None,
                            max_depth: int = DEFAULT_MAX_DEPTH, preserve_unknown: bool = False) -> Schema:
    """A schema built from dataclasses, whose classes are those dataclasses.

    ``classes``: the dataclasses (the ones their fields use are found and added).
    ``package``: the schema's package name (the Go package of code generated
    from it). ``schema_id``: its ``zebraSchemaId64``, if any. ``max_depth`` and
    ``preserve_unknown`` are ``zebrapack.load``'s (``preserve_unknown`` needs a
    ``zebrapack_unknown`` field on each class). ``schema.encode(instance)``
    encodes the user's instances; ``schema.dump(path)`` publishes the schema.
    Raises ``SchemaError`` naming the class and field of a missing or repeated
    zid, a gap in the zids, or an annotation with no schema type.
    """
    if not package.isidentifier():
        raise SchemaError(f"package must be an identifier, not {package!r}")
    builder = _Builder(classes)
    model = parse_schema(schema_document(SchemaDef(
        source_package=package, structs=MappingProxyType(builder.structs()), schema_id=schema_id)))
    for struct in model.structs.values():
        check_zid_sequence(struct)
    return Schema(model, builder.classes, max_depth=max_depth, preserve_unknown=preserve_unknown)


class _Builder:
    """Walks the dataclasses and the ones their annotations reach, one struct each."""

    def __init__(self, classes: tuple[type, ...]) -> None:
        self.classes: dict[str, type] = {}
        self.pending: deque[type] = deque()
        for cls in classes:
            if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
                raise SchemaError(f"{cls!r} is not a dataclass")
            self._struct_name(cls)

    def structs(self) -> dict[str, StructDef]:
        structs = {}
        while self.pending:
            cls = self.pending.popleft()
            structs[cls.__name__] = self._struct(cls)
        return structs

    def _struct_name(self, cls: type) -> str:
        """The struct name of a dataclass, queued the first time it is seen."""
        known = self.classes.get(cls.__name__)
        if known is None:
            self.classes[cls.__name__] = cls
            self.pending.append(cls)
        elif known is not cls:
            raise SchemaError(f"two dataclasses are named {cls.__name__} ({known.__module__} and {cls.__module__})",
                              cls.__name__)
        return cls.__name__

    def _struct(self, cls: type) -> StructDef:
        name = cls.__name__
        try:
            hints = typing.get_type_hints(cls, localns=dict(self.classes), include_extras=True)
        except (NameError, TypeError) as exc:
            raise SchemaError(f"cannot resolve the annotations of {cls.__qualname__}: {exc}", name) from exc
        return StructDef(name, tuple(self._field(name, f, hints[f.name])
                                     for f in dataclasses.fields(cls) if f.name != UNKNOWN_ATTR))

    def _field(self, struct: str, f: dataclasses.Field[Any], hint: Any) -> FieldDef:
        zid, annotation = _zid_of(struct, f, hint)
        if typing.get_origin(annotation) is Annotated and _Retirement() in typing.get_args(annotation)[1:]:
            return FieldDef(zid=zid.zid, go_name=f.name, tag_name=zid.tag or f.name, type=None,
                            skip=True, deprecated=True)
        try:
            type_ref = self._type_ref(annotation, field_level=True)
        except _Unsupported as exc:
            raise SchemaError(f"{exc} (in {hint!r})", struct, f.name) from None
        return FieldDef(zid=zid.zid, go_name=f.name, tag_name=zid.tag or f.name, type=type_ref,
                        type_str=type_ref.go, omit_empty=zid.omitempty, deprecated=zid.deprecated)

    def _type_ref(self, annotation: Any, field_level: bool = False) -> TypeRef:
        origin, args = typing.get_origin(annotation), typing.get_args(annotation)
        if origin is Annotated:
            return _go_kind(annotation, args)
        if origin in (typing.Union, types.UnionType):
            present = [arg for arg in args if arg is not type(None)]
            if len(present) != 1 or len(args) != 2:
                raise _Unsupported("a union other than Optional[T] has no schema type")
            if field_level and present[0] is datetime.datetime:
                return TypeRef(Kind.TIME)  # None is the zero time of a time field
            return TypeRef(Kind.POINTER, elem=self._type_ref(present[0]))
        if origin is list and len(args) == 1:
            return TypeRef(Kind.SLICE, elem=self._type_ref(args[0]))
        if origin is dict and len(args) == 2:
            key = self._type_ref(args[0])
            if key.kind not in _MAP_KEYS:
                raise _Unsupported(f"map key {key.go}: Go code serializes only str, int and int32 keys")
            return TypeRef(Kind.MAP, key=key, elem=self._type_ref(args[1]))
        if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
            return TypeRef(Kind.STRUCT, name=self._struct_name(annotation))
        kind = _PLAIN_KINDS.get(annotation) if _hashable(annotation) else None
        if kind is None:
            raise _Unsupported(f"{annotation!r} has no schema type")
        return TypeRef(kind)


class _Unsupported(Exception):
    """An annotation with no schema type (its message says which)."""


def _zid_of(struct: str, f: dataclasses.Field[Any], hint: Any) -> tuple[Zid, Any]:
    """The field's Zid (from metadata or Annotated) and its annotation without the Zid."""
    annotation, found = hint, []
    if typing.get_origin(hint) is Annotated:
        base, *extras = typing.get_args(hint)
        found = [extra for extra in extras if isinstance(extra, Zid)]
        rest = tuple(extra for extra in extras if not isinstance(extra, Zid))
        annotation = Annotated[(base, *rest)] if rest else base
    if "zid" in f.metadata:
        found.append(Zid(**{key: f.metadata[key] for key in _ZID_KEYS if key in f.metadata}))
    if not found:
        raise SchemaError('no zid: give it field(metadata={"zid": N}) or Annotated[..., zebrapack.Zid(N)]',
                          struct, f.name)
    if len(found) > 1:
        raise SchemaError("zid given twice (metadata and Annotated)", struct, f.name)
    return found[0], annotation


def _go_kind(annotation: Any, args: tuple[Any, ...]) -> TypeRef:
    base, *extras = args
    kinds = [extra.kind for extra in extras if isinstance(extra, GoKind)]
    if len(kinds) != 1 or kinds[0] not in _GO_KIND_BASES.get(base, ()):
        raise _Unsupported(f"{annotation!r}: an Annotated type needs one GoKind that fits its base type")
    return TypeRef(kinds[0])


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True
