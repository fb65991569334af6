"""The schema model: what a compiled ZebraPack schema (``zebra.Schema``) says.

``parse_schema`` turns the decoded ``.z`` / ``.z.json`` document into
``SchemaDef`` and resolves the reference compiler's quirks (FORMAT.md
section 4) so that the rest of the package sees one normalized type tree:

- an unnamed inlined struct (Kind 25) gets its name from ``FieldTypeStr``;
- an IDENT (22) naming a struct of the schema is that struct, any other
  IDENT is an interface (as is IDENTiface, 29);
- an array's length comes from its ``Domain``, its element from ``Range``;
- ``[]byte`` (kind 1) is ``BYTES`` and ``[N]byte`` a byte array (``bin``),
  but ``[]uint8`` / ``[N]uint8`` (element kind 8) are arrays of integers, as
  the reference generator writes them; so is a slice of kind 12 (``[]B`` with
  ``type B byte``: the generator's slice writer writes every element, only the
  spelling ``[]byte`` is ``bin``), while an array of kind 12 is ``bin``;
- a struct-valued field spelled with category 25 or with category 23 and
  primitive 22 is the same type;
- Skip fields carry no type and are ignored whatever their zid (a ``msg:"-"``
  field without a zid tag has ``Zid: -2``) or category;
- a field without a zid tag has a negative zid (``-3``, or ``-1`` in older
  schemas): msgp mode keys it by its tag name, zebrapack mode cannot write it;
- the IDENTs ``msgp.Raw`` and ``msgp.Number`` (types of the reference runtime)
  are the kinds RAW and NUMBER; an unnamed inlined struct (Kind 25) keeps that
  fact (``TypeRef.inlined``): msgp mode writes such a struct with every field;
- a field whose type zebrapack cannot represent (an anonymous struct, a type of
  another package) is *unusable*: the rest of the schema loads, and the field
  is an error only where a record holds it or a value sets it
  (``FieldDef.unusable`` says why).
"""

from __future__ import annotations

import enum
import keyword
import unicodedata
from collections.abc import Mapping
import json
import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .._errors import SchemaError
from ..values.gotime import GO_ZERO_TIME
from .type_spelling import GoType, GoTypeSyntaxError, parse_go_type

#: Largest zid accepted (Cap'n Proto's ordinal limit); zids index dense tables.
MAX_ZID = 65535
#: Smallest "no zid" accepted (the reference writes -3, -2 and -1).
MIN_NO_ZID = -(1 << 31)
#: Largest fixed-array length accepted; a zero value allocates this many elements.
MAX_ARRAY_LENGTH = 1 << 20
#: Most values a struct's zero value may hold (fixed arrays nested in arrays and in
#: struct values multiply), and how deep it may nest: a record that leaves its fields
#: out builds their zero values, recursively.
MAX_ZERO_VALUE_SIZE = 1 << 20
MAX_ZERO_VALUE_DEPTH = 100
#: Most brackets, stars and braces in a FieldTypeStr (Go spellings nest as deep as types do).
MAX_TYPE_STR_NESTING = 100
#: The attribute that carries unknown entries (``preserve_unknown``): no field may take it.
UNKNOWN_ATTR = "zebrapack_unknown"


class Kind(enum.IntEnum):
    """Zkind: the type kinds of a compiled schema (numbering from zebra.go)."""

    INVALID = 0
    BYTES = 1
    STRING = 2
    FLOAT32 = 3
    FLOAT64 = 4
    COMPLEX64 = 5
    COMPLEX128 = 6
    UINT = 7
    UINT8 = 8
    UINT16 = 9
    UINT32 = 10
    UINT64 = 11
    BYTE = 12
    INT = 13
    INT8 = 14
    INT16 = 15
    INT32 = 16
    INT64 = 17
    BOOL = 18
    INTF = 19
    TIME = 20
    EXT = 21
    IDENT = 22
    BASE_ELEM = 23
    MAP = 24
    STRUCT = 25
    SLICE = 26
    ARRAY = 27
    POINTER = 28
    IDENT_IFACE = 29
    # Not Zkinds: types of the reference runtime that a schema names by IDENT (22).
    RAW = 31            # msgp.Raw: one msgpack value, kept as its bytes
    NUMBER = 32         # msgp.Number: an int64, uint64, float32 or float64 that keeps its wire family


#: The largest Kind a schema document may hold (RAW and NUMBER are spelled as IDENTs).
MAX_ZKIND = Kind.IDENT_IFACE
PRIMITIVE_KINDS = frozenset(Kind(k) for k in range(1, 22))
INTEGER_KINDS = frozenset(Kind(k) for k in range(7, 18))
#: Element kinds that make a fixed array ``bin``: only ``byte`` (kind 12). The generator
#: works on spelling, so ``[N]uint8`` (kind 8) is an array of integers; a slice is ``bin``
#: only as ``[]byte`` spelled so (kind 1), never as a slice of kind 12.
BYTE_KINDS = frozenset({Kind.BYTE})

#: Go spelling of each primitive kind.
GO_PRIMITIVE_NAMES: Mapping[Kind, str] = MappingProxyType({
    Kind.BYTES: "[]byte", Kind.STRING: "string", Kind.FLOAT32: "float32",
    Kind.FLOAT64: "float64", Kind.COMPLEX64: "complex64", Kind.COMPLEX128: "complex128",
    Kind.UINT: "uint", Kind.UINT8: "uint8", Kind.UINT16: "uint16", Kind.UINT32: "uint32",
    Kind.UINT64: "uint64", Kind.BYTE: "byte", Kind.INT: "int", Kind.INT8: "int8",
    Kind.INT16: "int16", Kind.INT32: "int32", Kind.INT64: "int64", Kind.BOOL: "bool",
    Kind.INTF: "interface{}", Kind.TIME: "time.Time", Kind.EXT: "msgp.Extension",
})
#: The runtime types of the msgp package a schema names (IDENT ``msgp.Raw``), by type name.
MSGP_RUNTIME_KINDS: Mapping[str, Kind] = MappingProxyType({"Raw": Kind.RAW, "Number": Kind.NUMBER})
#: Their Go spelling, qualified by the package's usual name.
GO_RUNTIME_NAMES: Mapping[Kind, str] = MappingProxyType({kind: f"msgp.{name}" for name, kind in MSGP_RUNTIME_KINDS.items()})
#: The kinds a value of which is one msgpack value with no inner schema type.
SCALAR_KINDS = PRIMITIVE_KINDS | frozenset(GO_RUNTIME_NAMES)
#: The zero of each kind whose zero is one immutable value (integers' is 0), which
#: every record shares: the generated classes' defaults and what the compiled core gives
#: a field a record leaves out.
IMMUTABLE_ZEROS: Mapping[Kind, object] = MappingProxyType({
    Kind.BYTES: b"", Kind.STRING: "", Kind.FLOAT32: 0.0, Kind.FLOAT64: 0.0,
    Kind.COMPLEX64: 0j, Kind.COMPLEX128: 0j, Kind.BOOL: False, Kind.TIME: GO_ZERO_TIME,
    Kind.INTF: None, Kind.EXT: None, Kind.IDENT_IFACE: None, Kind.POINTER: None,
    Kind.RAW: b"", Kind.NUMBER: 0,
})


@dataclass(frozen=True)
class TypeRef:
    """A normalized type.

    ``kind`` is a primitive kind, ``STRUCT`` (``name``), ``IDENT_IFACE`` (an
    interface type resolved by the struct name on the wire; ``name``), ``SLICE``
    (``elem``), ``ARRAY`` (``length``, ``elem``), ``MAP`` (``key``, ``elem``) or
    ``POINTER`` (``elem``), or ``RAW`` / ``NUMBER``. Equal types compare equal
    whatever quirk spelled them. ``inlined``: a struct the reference generator
    inlined into its parent (an unnamed Kind 25 in the schema), which its ``-msgp``
    writer writes with every field, ``omitempty`` or not; not part of the type's
    identity (the generator inlines as Go's map order falls).
    """

    kind: Kind
    name: str = ""
    elem: TypeRef | None = None
    key: TypeRef | None = None
    length: int = 0
    inlined: bool = field(default=False, compare=False)

    @property
    def go(self) -> str:
        """The Go spelling of the type."""
        if self.kind in PRIMITIVE_KINDS:
            return GO_PRIMITIVE_NAMES[self.kind]
        if self.kind in GO_RUNTIME_NAMES:
            return GO_RUNTIME_NAMES[self.kind]
        if self.kind in (Kind.STRUCT, Kind.IDENT_IFACE):
            return self.name
        if self.kind == Kind.SLICE:
            return f"[]{self.elem_type.go}"
        if self.kind == Kind.ARRAY:
            return f"[{self.length}]{self.elem_type.go}"
        if self.kind == Kind.POINTER:
            return f"*{self.elem_type.go}"
        if self.kind == Kind.MAP:
            assert self.key is not None
            return f"map[{self.key.go}]{self.elem_type.go}"
        return self.kind.name

    @property
    def elem_type(self) -> TypeRef:
        assert self.elem is not None, self
        return self.elem

    def __str__(self) -> str:
        return self.go


@dataclass(frozen=True)
class FieldDef:
    """One field of a struct. ``type`` is None exactly for Skip fields and unusable ones.

    A negative ``zid`` means the field has none (only msgp mode, which keys fields
    by ``tag_name``, can write it). ``unusable``: why zebrapack cannot represent
    the field's type ("" for every other field); such a field keeps its attribute
    (None), its type as the document spells it (``foreign_type``, JSON text of
    FieldCategory, FieldPrimitive and FieldFullType), and is an error where a
    record holds it or a value sets it.
    """

    zid: int
    go_name: str
    tag_name: str
    type: TypeRef | None
    type_str: str = ""
    omit_empty: bool = False
    skip: bool = False
    deprecated: bool = False
    show_zero: bool = False
    unusable: str = ""
    foreign_type: str = ""

    @property
    def attr(self) -> str:
        """The Python attribute name: the Go name, with ``_`` appended to a Python keyword."""
        return python_name(self.go_name)

    @property
    def go_spelling(self) -> str:
        """The field's Go type as its FieldTypeStr spells it, on one line (messages)."""
        return " ".join(self.type_str.split()) or (self.type.go if self.type is not None else "its type")

    @property
    def has_zid(self) -> bool:
        """Whether zebrapack mode can key the field (a zid of 0..MAX_ZID)."""
        return self.zid >= 0


@dataclass(frozen=True)
class StructDef:
    """A struct: its fields in declaration order (Skip fields included)."""

    name: str
    fields: tuple[FieldDef, ...]

    @property
    def wire_fields(self) -> tuple[FieldDef, ...]:
        """The fields that are read and written (not Skip, not unusable), in zid order
        (fields without a zid first, in declaration order)."""
        return tuple(sorted((f for f in self.fields if not f.skip and not f.unusable), key=lambda f: f.zid))

    @property
    def value_fields(self) -> tuple[FieldDef, ...]:
        """The fields a value of the struct has an attribute for: the wire fields and the
        unusable ones (always None), in zid order."""
        return tuple(sorted((f for f in self.fields if not f.skip), key=lambda f: f.zid))

    @property
    def unusable_fields(self) -> tuple[FieldDef, ...]:
        """The fields whose type zebrapack cannot represent (``FieldDef.unusable``)."""
        return tuple(f for f in self.fields if f.unusable)

    @property
    def field_without_zid(self) -> FieldDef | None:
        """The first field (not Skip) that has no zid: the struct is msgp mode's only."""
        return next((f for f in self.fields if not f.skip and not f.has_zid), None)

    def field_by_zid(self, zid: int) -> FieldDef | None:
        for candidate in self.fields:
            if candidate.zid == zid:
                return candidate
        return None


@dataclass(frozen=True)
class SchemaDef:
    """A whole compiled schema."""

    source_package: str
    structs: Mapping[str, StructDef]
    source_path: str = ""
    schema_id: int | None = None
    imports: tuple[str, ...] = field(default=())


def python_name(go_name: str) -> str:
    """The Python identifier for a Go name: its NFKC form (what Python itself reads
    an identifier as: ``ſ`` is ``s``), with ``_`` appended to a Python keyword
    (Go allows ``None``, ``True``, ``class``). ``check_names`` refuses the names
    that still cannot be attributes and any two that end up the same."""
    name = unicodedata.normalize("NFKC", go_name)
    return name + "_" if keyword.iskeyword(name) else name


def _name_problem(python: str) -> str | None:
    """Why a Python name cannot be a class or attribute name of ours, or None."""
    if not python.isidentifier():
        return "is not an identifier"
    if python.startswith("__"):
        # dunders are Python's machinery (__slots__, __dict__, __new__, __del__, ...);
        # other __x names are mangled inside class bodies
        return "starts with '__' (Python reserves or mangles such names)"
    if python == UNKNOWN_ATTR:
        return f"is {UNKNOWN_ATTR!r}, the attribute of preserved unknown entries"
    return None


def check_names(structs: Mapping[str, StructDef]) -> None:
    """Every struct and field gets a Python name no other takes (see ``python_name``);
    ``SchemaError`` naming the struct and field otherwise."""
    class_names: dict[str, str] = {}
    for name, struct in structs.items():
        python = python_name(name)
        problem = _name_problem(python)
        if problem is not None:
            raise SchemaError(f"struct name {name!r} (Python name {python!r}) {problem}", name)
        if python in class_names:
            raise SchemaError(f"struct names {class_names[python]!r} and {name!r} are both {python!r} in Python",
                              name)
        class_names[python] = name
        attrs: dict[str, str] = {}
        for f in struct.fields:
            if f.skip:
                continue
            attr = f.attr
            problem = _name_problem(attr)
            if problem is not None:
                raise SchemaError(f"field name {f.go_name!r} (attribute {attr!r}) {problem}", name, f.go_name)
            if attr in attrs:
                raise SchemaError(f"fields {attrs[attr]!r} and {f.go_name!r} both have the attribute {attr!r}",
                                  name, f.go_name)
            attrs[attr] = f.go_name


# -- parsing ------------------------------------------------------------------


def parse_schema(document: object) -> SchemaDef:
    """Validate a decoded schema document and build the normalized model."""
    if not isinstance(document, Mapping):
        raise SchemaError(f"a schema is a map, not {type(document).__name__}")
    odd_keys = [key for key in document if not isinstance(key, str)]
    if odd_keys:
        raise SchemaError(f"a schema's keys are field names (str), not {odd_keys[0]!r}: is this data, not a schema?")
    if "Structs" not in document:
        raise SchemaError("a schema needs Structs")
    package = _optional(document, "SourcePackage", str, "", None, None)
    source_path = _optional(document, "SourcePath", str, "", None, None)
    schema_id = _optional(document, "ZebraSchemaId", int, None, None, None)
    imports = _optional(document, "Imports", list, [], None, None)
    if not all(isinstance(item, str) for item in imports):
        raise SchemaError("Imports must be a list of strings")
    raw_structs = _raw_structs(document.get("Structs", {}))
    names = {name for name, _ in raw_structs}
    runtime = _msgp_qualifiers(imports)
    structs = {name: _parse_struct(name, raw, names, runtime) for name, raw in raw_structs}
    check_names(structs)
    try:
        _check_value_cycles(structs)
    except RecursionError:
        raise SchemaError("structs hold one another by value too deeply") from None
    _check_zero_values(structs)
    return SchemaDef(
        source_package=package,
        structs=MappingProxyType(structs),
        source_path=source_path,
        schema_id=schema_id,
        imports=tuple(imports),
    )


def _raw_structs(value: object) -> list[tuple[str, Mapping[str, Any]]]:
    """Structs as (name, document) pairs; a map by name, or a list (older schemas)."""
    if isinstance(value, Mapping):
        items = list(value.items())
    elif isinstance(value, list):
        items = [(raw.get("StructName") if isinstance(raw, Mapping) else None, raw) for raw in value]
    else:
        raise SchemaError(f"Structs must be a map or a list, not {type(value).__name__}")
    result: list[tuple[str, Mapping[str, Any]]] = []
    seen: set[str] = set()
    for key, raw in items:
        if not isinstance(raw, Mapping):
            raise SchemaError(f"a struct is a map, not {type(raw).__name__}", str(key))
        name = raw.get("StructName", key)
        if not isinstance(name, str) or not name.isidentifier():
            raise SchemaError(f"struct name must be an identifier, not {name!r}", str(key))
        if isinstance(key, str) and key != name:
            raise SchemaError(f"listed under {key!r} but named {name!r}", name)
        if name in seen:
            raise SchemaError("struct defined twice", name)
        seen.add(name)
        result.append((name, raw))
    return result


#: The import path of the reference runtime, whose last element names the package.
_MSGP_PACKAGE = "msgp"


def _msgp_qualifiers(imports: list[str]) -> frozenset[str]:
    """The names the schema's source gives the msgp runtime package (``msgp``, or the
    alias of its import): ``msgp.Raw`` is the runtime's Raw only through them."""
    qualifiers = {_MSGP_PACKAGE}
    for item in imports:
        alias, _, path = item.strip().rpartition(" ")
        if path.strip('"').rpartition("/")[2] == _MSGP_PACKAGE and alias.strip() not in ("", "_", "."):
            qualifiers.add(alias.strip())
    return frozenset(qualifiers)


def _optional(doc: Mapping[str, Any], key: str, kind: type, default: Any,
              struct: str | None, fieldname: str | None) -> Any:
    value = doc.get(key, default)
    if value is default:
        return value
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise SchemaError(f"{key} must be {kind.__name__}, not {type(value).__name__}", struct, fieldname)
    return value


def _parse_struct(name: str, raw: Mapping[str, Any], struct_names: set[str], runtime: frozenset[str]) -> StructDef:
    raw_fields = raw.get("Fields", [])
    if not isinstance(raw_fields, list):
        raise SchemaError("Fields must be a list", name)
    fields = tuple(_parse_field(name, index, item, struct_names, runtime) for index, item in enumerate(raw_fields))
    seen_zids: dict[int, str] = {}
    seen_names: set[str] = set()
    seen_tags: set[str] = set()
    for f in fields:
        if f.has_zid:   # fields may have none (Zid -2 for Skip, -3 or -1 in msgp mode)
            if f.zid in seen_zids:
                raise SchemaError(f"zid {f.zid} used twice (also by {seen_zids[f.zid]})", name, f.go_name)
            seen_zids[f.zid] = f.go_name
        if f.go_name in seen_names:
            raise SchemaError("field name used twice", name, f.go_name)
        seen_names.add(f.go_name)
        if not f.skip:
            if f.tag_name in seen_tags:
                raise SchemaError(f"tag name {f.tag_name!r} used twice", name, f.go_name)
            seen_tags.add(f.tag_name)
    return StructDef(name=name, fields=fields)


def _parse_field(struct: str, index: int, raw: object, struct_names: set[str], runtime: frozenset[str]) -> FieldDef:
    if not isinstance(raw, Mapping):
        raise SchemaError(f"field #{index} is not a map", struct)
    go_name = raw.get("FieldGoName")
    if not isinstance(go_name, str) or not go_name.isidentifier():
        raise SchemaError(f"field #{index} has no valid FieldGoName ({go_name!r})", struct)
    zid = raw.get("Zid", 0)
    if not isinstance(zid, int) or isinstance(zid, bool):
        raise SchemaError(f"Zid must be int, not {type(zid).__name__}", struct, go_name)
    skip = _optional(raw, "Skip", bool, False, struct, go_name)
    # A Skip field's zid is never on the wire; a negative one: no zid (msgp mode keys the field by its tag).
    if not skip and not MIN_NO_ZID <= zid <= MAX_ZID:
        raise SchemaError(f"zid {zid} outside 0..{MAX_ZID} (or a negative 'no zid')", struct, go_name)
    tag_name = _optional(raw, "FieldTagName", str, go_name, struct, go_name) or go_name
    type_str = _optional(raw, "FieldTypeStr", str, "", struct, go_name)
    flags = {key: _optional(raw, key, bool, False, struct, go_name)
             for key in ("OmitEmpty", "Deprecated", "ShowZero")}
    flags["Skip"] = skip
    category = _optional(raw, "FieldCategory", int, 0, struct, go_name)
    primitive = _optional(raw, "FieldPrimitive", int, 0, struct, go_name)
    full_type = raw.get("FieldFullType")
    type_ref: TypeRef | None = None
    unusable = foreign = ""
    if not flags["Skip"]:
        resolver = _TypeResolver(struct, go_name, struct_names, runtime)
        try:
            if full_type is not None:
                type_ref = resolver.resolve(full_type, resolver.parse(type_str))
            elif category == Kind.BASE_ELEM and primitive:
                type_ref = resolver.resolve({"Kind": primitive, "Str": type_str}, resolver.parse(type_str))
            elif category in (Kind.STRUCT, Kind.IDENT, Kind.IDENT_IFACE):
                type_ref = resolver.resolve({"Kind": category, "Str": type_str}, resolver.parse(type_str))
            else:
                raise SchemaError("field has no type (FieldFullType) and is not Skip", struct, go_name)
        except _Unrepresentable as exc:
            unusable = exc.reason
            kept = {key: raw[key] for key in ("FieldCategory", "FieldPrimitive", "FieldFullType") if key in raw}
            if not _plain_data(kept):       # (written back as it came: JSON that says it exactly)
                raise SchemaError("field type (FieldFullType) holds keys that are not strings or values "
                                  "that are not numbers, strings, lists or maps", struct, go_name) from None
            foreign = json.dumps(kept, sort_keys=True)
    return FieldDef(
        zid=zid, go_name=go_name, tag_name=tag_name, type=type_ref, type_str=type_str,
        omit_empty=flags["OmitEmpty"], skip=flags["Skip"],
        deprecated=flags["Deprecated"], show_zero=flags["ShowZero"],
        unusable=unusable, foreign_type=foreign,
    )


def _plain_data(value: Any) -> bool:
    """Whether value is what JSON writes and reads back unchanged: str-keyed maps, lists,
    strings, finite numbers, booleans and None."""
    if isinstance(value, dict):
        return all(isinstance(key, str) and _plain_data(item) for key, item in value.items())
    if isinstance(value, list):
        return all(_plain_data(item) for item in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, (str, int, bool))


class _Unrepresentable(SchemaError):
    """A well-formed type that zebrapack cannot represent: only its field is unusable."""


class _TypeResolver:
    """Turns one field's Ztype tree into a TypeRef, with its Go spelling alongside."""

    def __init__(self, struct: str, field_name: str, struct_names: set[str], runtime: frozenset[str]) -> None:
        self.struct = struct
        self.field = field_name
        self.struct_names = struct_names
        self.runtime = runtime

    def error(self, message: str) -> SchemaError:
        return SchemaError(message, self.struct, self.field)

    def unrepresentable(self, message: str) -> _Unrepresentable:
        return _Unrepresentable(message, self.struct, self.field)

    def parse(self, type_str: str) -> GoType | None:
        if not type_str:
            return None
        if sum(map(type_str.count, "[*({")) > MAX_TYPE_STR_NESTING:
            raise self.error(f"FieldTypeStr nests more than {MAX_TYPE_STR_NESTING} levels deep")
        try:
            return parse_go_type(type_str)
        except (GoTypeSyntaxError, RecursionError):
            return None  # only needed for inlined structs; resolve() says so if it is

    def resolve(self, ztype: object, spelled: GoType | None, depth: int = 0) -> TypeRef:
        if depth > 100:
            raise self.error("type nested more than 100 levels deep")
        if not isinstance(ztype, Mapping):
            raise self.error(f"a type is a map, not {type(ztype).__name__}")
        kind_value = ztype.get("Kind")
        if not isinstance(kind_value, int) or isinstance(kind_value, bool):
            raise self.error(f"type Kind must be int, not {kind_value!r}")
        if not 0 <= kind_value <= MAX_ZKIND:
            raise self.error(f"unknown type kind {kind_value}")
        kind = Kind(kind_value)
        name = ztype.get("Str", "")
        if not isinstance(name, str):
            raise self.error(f"type Str must be str, not {type(name).__name__}")

        def child(key: str, spelled_child: GoType | None) -> TypeRef:
            if key not in ztype:
                raise self.error(f"{kind.name} type without {key}")
            return self.resolve(ztype[key], spelled_child, depth + 1)

        def part(form: str, attr: str) -> GoType | None:
            if spelled is not None and spelled.form == form:
                child_spelling: GoType | None = getattr(spelled, attr)
                return child_spelling
            return None

        if kind in PRIMITIVE_KINDS:
            return TypeRef(kind)
        if kind == Kind.IDENT:
            if name in self.struct_names:
                return TypeRef(Kind.STRUCT, name=name)
            qualifier, _, short = name.rpartition(".")
            if qualifier in self.runtime and short in MSGP_RUNTIME_KINDS:
                return TypeRef(MSGP_RUNTIME_KINDS[short])
            if qualifier and qualifier.isidentifier() and short.isidentifier():
                raise self.unrepresentable(f"type {name} of another package: its own code writes it, and "
                                           "the schema does not say how (zebrapack knows msgp.Raw and "
                                           "msgp.Number of the runtime)")
            if not name.isidentifier():
                raise self.error(f"IDENT type names {name!r}")
            return TypeRef(Kind.IDENT_IFACE, name=name)
        if kind == Kind.IDENT_IFACE:
            if not name.isidentifier():
                raise self.error(f"interface type names {name!r}")
            if name in self.struct_names:   # one Go namespace: written back, it would read as the struct
                raise self.error(f"interface type {name!r} has the name of a struct of the schema")
            return TypeRef(Kind.IDENT_IFACE, name=name)
        if kind == Kind.STRUCT:
            return TypeRef(Kind.STRUCT, name=self._struct_name(name, spelled), inlined=name not in self.struct_names)
        if kind == Kind.SLICE:
            return TypeRef(Kind.SLICE, elem=child("Domain", part("slice", "elem")))
        if kind == Kind.POINTER:
            return TypeRef(Kind.POINTER, elem=child("Domain", part("pointer", "elem")))
        if kind == Kind.MAP:
            key = child("Domain", part("map", "key"))
            return TypeRef(Kind.MAP, key=key, elem=child("Range", part("map", "elem")))
        if kind == Kind.ARRAY:
            return TypeRef(Kind.ARRAY, length=self._array_length(ztype.get("Domain")),
                           elem=child("Range", part("array", "elem")))
        raise self.error(f"type kind {kind.name} cannot appear in a type tree")

    def _struct_name(self, name: str, spelled: GoType | None) -> str:
        if name in self.struct_names:
            return name
        if spelled is not None and spelled.form == "ident":
            candidate = spelled.name.rpartition(".")[2]
            if candidate in self.struct_names:
                return candidate
            raise self.unrepresentable(f"inlined struct {spelled.name!r} is not a struct of the schema")
        if spelled is not None and spelled.form == "struct":
            raise self.unrepresentable("an anonymous struct type: the schema has no struct, and so no "
                                       "class, for it (declare it as a named struct type in Go)")
        raise self.unrepresentable("unnamed inlined struct whose FieldTypeStr does not name it")

    def _array_length(self, domain: object) -> int:
        if not isinstance(domain, Mapping):
            raise self.error("array type without a Domain giving its length")
        text = domain.get("Str")
        # ASCII digits only ("²" is a digit to str.isdigit), and few enough to mean a length
        if isinstance(text, str) and text.isdigit() and not text.isascii():
            raise self.error(f"array length {text!r} is not written in ASCII digits")
        if isinstance(text, str) and text.isascii() and text.isdigit():
            if len(text) > 9:
                raise self.error(f"array length {text[:20]}... ({len(text)} digits) outside 0..{MAX_ARRAY_LENGTH}")
            length: object = int(text)
        else:
            length = domain.get("Kind")
        if not isinstance(length, int) or isinstance(length, bool) or not 0 <= length <= MAX_ARRAY_LENGTH:
            raise self.error(f"array length {length!r} outside 0..{MAX_ARRAY_LENGTH}")
        return length


def _value_dependencies(type_ref: TypeRef) -> set[str]:
    """Structs a type holds by value (directly or in fixed arrays): they must be acyclic."""
    if type_ref.kind == Kind.STRUCT:
        return {type_ref.name}
    if type_ref.kind == Kind.ARRAY:     # [0]T too: Go calls that an invalid recursive type
        return _value_dependencies(type_ref.elem_type)
    return set()


def value_dependency_order(structs: Mapping[str, StructDef]) -> list[str]:
    """Struct names ordered so that a struct comes after those it holds by value."""
    order: list[str] = []
    state: dict[str, int] = {}  # 1 = visiting, 2 = done

    def visit(name: str, chain: list[str]) -> None:
        state[name] = 1
        for f in structs[name].fields:
            if f.type is None:
                continue
            for dependency in sorted(_value_dependencies(f.type)):
                if state.get(dependency) == 1:
                    path = chain + [name]
                    cycle = " -> ".join(path[path.index(dependency):] + [dependency])
                    raise SchemaError(f"struct contains itself by value ({cycle}); "
                                      "use a pointer, slice or map", name, f.go_name)
                if dependency not in state:
                    visit(dependency, chain + [name])
        state[name] = 2
        order.append(name)

    for name in structs:
        if name not in state:
            visit(name, [])
    return order


def _check_value_cycles(structs: Mapping[str, StructDef]) -> None:
    value_dependency_order(structs)


def _zero_value_shape(type_ref: TypeRef, structs: Mapping[str, tuple[int, int]]) -> tuple[int, int]:
    """How many values the zero value of a type holds (a [N]byte is one), and how deep it nests."""
    if type_ref.kind == Kind.STRUCT:
        return structs[type_ref.name]
    if type_ref.kind == Kind.ARRAY and type_ref.elem_type.kind not in BYTE_KINDS:
        size, depth = _zero_value_shape(type_ref.elem_type, structs)
        return 1 + type_ref.length * size, depth + 1
    return 1, 0


def _check_zero_values(structs: Mapping[str, StructDef]) -> None:
    shapes: dict[str, tuple[int, int]] = {}
    for name in value_dependency_order(structs):      # a struct after those it holds by value
        size, depth = 1, 1
        for f in structs[name].fields:
            if f.type is not None:
                field_size, field_depth = _zero_value_shape(f.type, shapes)
                size, depth = size + field_size, max(depth, field_depth + 1)
            if size > MAX_ZERO_VALUE_SIZE:
                raise SchemaError(f"the zero value holds more than {MAX_ZERO_VALUE_SIZE} values "
                                  "(fixed arrays too large)", name, f.go_name)
            if depth > MAX_ZERO_VALUE_DEPTH:
                raise SchemaError(f"the zero value nests more than {MAX_ZERO_VALUE_DEPTH} levels "
                                  "(struct values and fixed arrays)", name, f.go_name)
        shapes[name] = size, depth
