"""The Arrow type of every schema kind: the one mapping the reader and the writer share.

``arrow_fields(schema, type, columns=..., time_unit=...)`` turns one struct of a
schema into a tree of ``ArrowField``: each node says both what Arrow sees (its
C Data Interface format string, nullability, children, field metadata) and what
zebrapack reads into it or writes from it (the schema type, the zid and tag of
a struct field, whether Go's zero time is null there). The core builds its
column decoders from this tree, and exports it as an ``ArrowSchema``.

The mapping (docs/arrow.md has the table):

- integers keep width and sign (``int`` -> int64, ``uint`` -> uint64, ``byte``
  -> uint8), floats are float32 / float64, ``string`` utf8, ``[]byte`` binary,
  ``[N]byte`` fixed_size_binary(N), ``bool`` bool;
- ``time.Time`` is ``timestamp[ns, UTC]`` (``time_unit="us"``: microseconds);
  a struct's own time field is nullable: Go's zero time is null there;
- ``complex64`` / ``complex128``: ``struct<real, imag>`` of float32 / float64,
  extension ``zebrapack.complex64`` / ``zebrapack.complex128``;
- ``msgp.Extension``: ``struct<code: int8, data: binary>``, extension
  ``zebrapack.ext``, nullable;
- ``interface{}``: binary holding the value's own msgpack bytes, extension
  ``zebrapack.msgpack`` (metadata empty), nullable; a named interface the same
  with the interface's name as extension metadata; ``msgp.Raw`` the same with
  metadata ``msgp.Raw``, not nullable (nil is empty bytes, as decode gives it);
- ``msgp.Number``: ``struct<int: int64, uint: uint64, float32, float64>``,
  extension ``zebrapack.number``: the part of the number's wire family holds
  it, the others are null (the zero: ``int`` 0);
- a field whose type zebrapack cannot represent has no column: a record that
  holds it is an error, as in decode;
- a struct reached again inside itself (``Tree.Kids []Tree``): Arrow types
  cannot recurse, so the inner occurrence is a ``zebrapack.msgpack`` binary
  too, whose metadata is the struct's name (the value's own bytes, verbatim);
- ``*T``: T's type, nullable (``**T`` likewise); a struct value ``struct<...>``
  with its fields in zid order; ``[]T`` ``list<item: T>``; ``[N]T``
  ``fixed_size_list<item: T>[N]``; ``map[K]V`` ``map<K, V>`` (entries
  ``key``/``value``, keys never null).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..schema.model import Kind, SchemaDef, StructDef, TypeRef
from .metadata_keys import EXTENSION_METADATA, EXTENSION_NAME

#: Extension names of the columns zebrapack tags.
MSGPACK_EXTENSION = "zebrapack.msgpack"
EXT_EXTENSION = "zebrapack.ext"
COMPLEX64_EXTENSION = "zebrapack.complex64"
COMPLEX128_EXTENSION = "zebrapack.complex128"
NUMBER_EXTENSION = "zebrapack.number"
#: The extension metadata of a msgp.Raw column.
RAW_METADATA = "msgp.Raw"
#: The parts of a msgp.Number column, by wire family, and their Arrow formats.
NUMBER_PARTS = (("int", "l", Kind.INT64), ("uint", "L", Kind.UINT64), ("float32", "f", Kind.FLOAT32),
                ("float64", "g", Kind.FLOAT64))

TIME_UNITS = ("ns", "us")

# C Data Interface format strings of the primitive kinds with a fixed format.
_FORMATS: Mapping[Kind, str] = {
    Kind.STRING: "u", Kind.BYTES: "z", Kind.BOOL: "b",
    Kind.INT8: "c", Kind.INT16: "s", Kind.INT32: "i", Kind.INT64: "l", Kind.INT: "l",
    Kind.UINT8: "C", Kind.BYTE: "C", Kind.UINT16: "S", Kind.UINT32: "I", Kind.UINT64: "L", Kind.UINT: "L",
    Kind.FLOAT32: "f", Kind.FLOAT64: "g",
}


@dataclass(frozen=True)
class ArrowField:
    """One Arrow field and what zebrapack reads into it.

    ``name``/``format``/``nullable``/``children``/``metadata`` are the Arrow
    side. ``type`` is the schema type the values have on the wire (``None``
    for the parts Arrow adds: a map's ``entries``, a complex's ``real``/``imag``,
    an ext's ``code``/``data``, and the top-level record struct, whose
    ``struct`` names it). ``zid``/``tag`` identify a struct field on the wire
    (zid, and FieldTagName for msgp-mode records); ``time_field``: a struct's
    own ``time.Time`` field, where Go's zero time is null. ``raw``: the values
    are kept as their own msgpack bytes (``interface{}``, named interfaces,
    recursive structs). ``struct``: the struct a ``+s`` node of the schema reads;
    ``unusable``: its fields whose type zebrapack cannot represent, as (zid, Go name,
    tag, message), which a record must not hold.
    """

    name: str
    format: str
    nullable: bool = False
    children: tuple[ArrowField, ...] = ()
    metadata: tuple[tuple[str, str], ...] = ()
    type: TypeRef | None = None
    zid: int = -1
    tag: str = ""
    time_field: bool = False
    raw: bool = False
    struct: str = ""
    unusable: tuple[tuple[int, str, str, str], ...] = ()

    @property
    def extension(self) -> str | None:
        """The extension name in the metadata, if any."""
        return dict(self.metadata).get(EXTENSION_NAME)


def resolve_struct(schema: Any, type: Any) -> StructDef:
    """The struct a reader or writer works on: a struct name, a generated class, or
    None for the schema's only struct (``ValueError`` naming the choices)."""
    model: SchemaDef = schema.model
    names = sorted(model.structs)
    if type is None:
        if len(names) == 1:
            return model.structs[names[0]]
        raise ValueError(f"the schema has {len(names)} structs: give type= one of {', '.join(names) or '(none)'}")
    if isinstance(type, str):
        if type in model.structs:
            return model.structs[type]
        raise ValueError(f"{type!r} is not a struct of this schema (its structs: {', '.join(names)})")
    for name, cls in schema.types.items():
        if cls is type:
            return model.structs[name]
    raise TypeError(f"type must be a struct name or one of schema.types, not {type!r} "
                    f"(the schema's structs: {', '.join(names)})")


def arrow_fields(schema: Any, type: Any = None, *, columns: Iterable[str] | None = None,
                 time_unit: str = "ns") -> ArrowField:
    """The record batch's struct field (``+s``, named "") of one struct of ``schema``.

    ``columns``: Go field names of the struct, or dotted paths into nested struct
    fields (``"Nested.X"``, through pointers too); the others are left out.
    Unknown names are a ``ValueError`` naming them.
    """
    if time_unit not in TIME_UNITS:
        raise ValueError(f"time_unit must be 'ns' or 'us', not {time_unit!r}")
    struct_def = resolve_struct(schema, type)
    builder = _Builder(schema.model, time_unit)
    selection = None
    if columns is not None:
        if isinstance(columns, str):
            raise TypeError("columns must be a list of field names, not a str")
        selection = _selection(struct_def, list(columns), schema.model)
    return builder.struct_field("", struct_def, False, selection, (struct_def.name,))


# A selection: None takes every field; else Go field name -> the selection inside it.
_Selection = dict[str, "_Selection | None"]


def _selection(struct_def: StructDef, columns: Sequence[str], model: SchemaDef) -> _Selection:
    selection: _Selection = {}
    unknown = []
    for column in columns:
        if not isinstance(column, str):
            raise TypeError(f"a column is a field name or a dotted path, not {column!r}")
        if not _select(selection, struct_def, column.split("."), model):
            unknown.append(column)
    if unknown:
        fields = ", ".join(f.go_name for f in struct_def.wire_fields)
        raise ValueError(f"no such column in {struct_def.name}: {', '.join(map(repr, unknown))} "
                         f"(its fields: {fields}; nested struct fields as 'Field.Sub')")
    return selection


def _select(selection: _Selection, struct_def: StructDef, parts: list[str], model: SchemaDef) -> bool:
    field = next((f for f in struct_def.wire_fields if f.go_name == parts[0]), None)
    if field is None:
        return False
    if len(parts) == 1:
        selection[parts[0]] = None          # the whole field
        return True
    assert field.type is not None
    inner = _struct_of(field.type, model)
    if inner is None:
        return False
    if parts[0] in selection and selection[parts[0]] is None:
        return _select({}, inner, parts[1:], model)    # already whole: check the path only
    sub = selection.setdefault(parts[0], {})
    assert sub is not None
    return _select(sub, inner, parts[1:], model)


def _struct_of(ref: TypeRef, model: SchemaDef) -> StructDef | None:
    """The struct a field holds (through pointers), for nested column paths."""
    while ref.kind == Kind.POINTER:
        ref = ref.elem_type
    return model.structs.get(ref.name) if ref.kind == Kind.STRUCT else None


def _extension(name: str, metadata: str = "") -> tuple[tuple[str, str], ...]:
    return ((EXTENSION_NAME, name), (EXTENSION_METADATA, metadata))


class _Builder:
    def __init__(self, model: SchemaDef, time_unit: str) -> None:
        self.model = model
        self.time_format = "tsn:UTC" if time_unit == "ns" else "tsu:UTC"

    def struct_field(self, name: str, struct_def: StructDef, nullable: bool, selection: _Selection | None,
                     path: tuple[str, ...], ref: TypeRef | None = None) -> ArrowField:
        children = []
        for f in struct_def.wire_fields:
            if selection is not None and f.go_name not in selection:
                continue
            assert f.type is not None
            inner = selection.get(f.go_name) if selection is not None else None
            node = self.field(f.go_name, f.type, path, inner)
            children.append(_replace(node, zid=f.zid, tag=f.tag_name,
                                     time_field=f.type.kind == Kind.TIME,
                                     nullable=node.nullable or f.type.kind == Kind.TIME))
        unusable = tuple((f.zid, f.go_name, f.tag_name, f"the record holds a value of {f.go_spelling}, "
                          f"which zebrapack cannot represent: {f.unusable}") for f in struct_def.unusable_fields)
        return ArrowField(name, "+s", nullable, tuple(children), type=ref, struct=struct_def.name, unusable=unusable)

    def field(self, name: str, ref: TypeRef, path: tuple[str, ...], selection: _Selection | None = None,
              nullable: bool = False) -> ArrowField:
        kind = ref.kind
        if kind == Kind.POINTER:
            node = self.field(name, ref.elem_type, path, selection, True)
            return _replace(node, type=ref)
        if kind in _FORMATS:
            return ArrowField(name, _FORMATS[kind], nullable, type=ref)
        if kind == Kind.TIME:
            return ArrowField(name, self.time_format, nullable, type=ref)
        if kind in (Kind.COMPLEX64, Kind.COMPLEX128):
            part = "f" if kind == Kind.COMPLEX64 else "g"
            extension = COMPLEX64_EXTENSION if kind == Kind.COMPLEX64 else COMPLEX128_EXTENSION
            return ArrowField(name, "+s", nullable, (ArrowField("real", part), ArrowField("imag", part)),
                              _extension(extension), type=ref)
        if kind == Kind.EXT:
            return ArrowField(name, "+s", True, (ArrowField("code", "c"), ArrowField("data", "z")),
                              _extension(EXT_EXTENSION), type=ref)
        if kind == Kind.INTF:
            return ArrowField(name, "z", True, metadata=_extension(MSGPACK_EXTENSION), type=ref, raw=True)
        if kind == Kind.IDENT_IFACE:
            return ArrowField(name, "z", True, metadata=_extension(MSGPACK_EXTENSION, ref.name), type=ref, raw=True)
        if kind == Kind.RAW:
            return ArrowField(name, "z", nullable, metadata=_extension(MSGPACK_EXTENSION, RAW_METADATA), type=ref,
                              raw=True)
        if kind == Kind.NUMBER:
            parts = tuple(ArrowField(part, fmt, True, type=TypeRef(part_kind)) for part, fmt, part_kind in NUMBER_PARTS)
            return ArrowField(name, "+s", nullable, parts, _extension(NUMBER_EXTENSION), type=ref)
        if kind == Kind.STRUCT:
            if ref.name in path:            # recursion: the value's own bytes
                return ArrowField(name, "z", nullable, metadata=_extension(MSGPACK_EXTENSION, ref.name),
                                  type=ref, raw=True)
            return self.struct_field(name, self.model.structs[ref.name], nullable, selection,
                                     path + (ref.name,), ref)
        if kind == Kind.ARRAY and ref.elem_type.kind == Kind.BYTE:
            return ArrowField(name, f"w:{ref.length}", nullable, type=ref)
        if kind == Kind.SLICE:
            return ArrowField(name, "+l", nullable, (self.field("item", ref.elem_type, path),), type=ref)
        if kind == Kind.ARRAY:
            return ArrowField(name, f"+w:{ref.length}", nullable, (self.field("item", ref.elem_type, path),),
                              type=ref)
        if kind == Kind.MAP:
            assert ref.key is not None
            key = _replace(self.field("key", ref.key, path), nullable=False)
            entries = ArrowField("entries", "+s", False, (key, self.field("value", ref.elem_type, path)))
            return ArrowField(name, "+m", nullable, (entries,), type=ref)
        raise AssertionError(f"unnormalized type {ref!r}")


def _replace(node: ArrowField, **changes: Any) -> ArrowField:
    values = {name: getattr(node, name) for name in ArrowField.__dataclass_fields__}
    values.update(changes)
    return ArrowField(**values)
