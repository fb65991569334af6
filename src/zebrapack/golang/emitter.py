"""A schema written as Go source (``zebrapack go``), like the reference's ``-schema-to-go``.

The output is a gofmt-formatted Go file declaring the schema's structs with
their ``zid`` and ``msg`` tags, from which the reference generator makes Go
code and from which ``zebrapack schema`` compiles the same schema again:

- a Skip field is written ``struct{}`` (its type is not in the schema), a Skip
  field without a zid (``Zid -2``) ``msg:"-"`` without a zid;
- a field's type is written as its ``FieldTypeStr`` spells it where that
  spelling means the same type: an array sized by a constant of the msgp
  runtime keeps the constant (``[msgp.ExtensionPrefixSize]float64``), and
  ``[]uint8`` stays ``[]uint8`` (an array of integers, not ``[]byte``);
- a name the spelling gives a type that is not a struct or interface of the
  schema (``UserID``, ``[]Role``, ``*Tags``) is declared as a named type of the
  schema's type (``type UserID uint64``), as the reference resolved it; a
  slice of bytes that is an array of integers (a slice of a named byte type to
  the reference) needs such a name, and gets one (``ByteElem``) when the
  spelling has none;
- unexported struct and field names need ``unexported=True`` (the reference
  generator, and ``zebrapack schema``, need ``-unexported`` for them);
- each interface type of an interface field is declared with the msgp
  interfaces the generated code calls (add your own methods to it), and the
  field is tagged ``iface`` as the reference's examples do;
- imports are the ones the declarations use (``time``, the msgp package),
  not the schema's ``Imports``, which may name packages only functions used;
- a field whose type zebrapack cannot represent (an anonymous struct) is
  written as a comment, with its spelling and why: the schema compiled back
  has no such field.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from .._errors import SchemaError
from ..schema.model import GO_PRIMITIVE_NAMES, SCALAR_KINDS, FieldDef, Kind, SchemaDef, StructDef, TypeRef
from ..schema.type_spelling import GO_KEYWORDS, GoType, parse_type_spelling
from ..sources.from_go import MSGP_CONSTANTS

#: The package of the reference runtime (msgp.Extension, the interfaces of generated code).
MSGP_IMPORT = "github.com/glycerine/zebrapack/msgp"
_MSGP_INTERFACES = ("Decodable", "Encodable", "Marshaler", "Unmarshaler", "Sizer")
_TAG_NAME_FORBIDDEN = frozenset(',"`\\')
#: The name given to the byte type of a slice of bytes that is an array of integers, when
#: the spelling names none (numbered when a struct or another type already has it).
BYTE_ELEM_NAME = "ByteElem"


def go_source(model: SchemaDef, *, package: str | None = None, unexported: bool = False) -> str:
    """The Go source declaring the schema's structs (``package`` overrides the schema's).

    Raises ``SchemaError`` for what Go code cannot declare: a struct or field
    name that is not exported (unless ``unexported``: the reference generator
    ignores those without ``-unexported``), a tag name a struct tag cannot hold,
    a package name that is not a Go identifier, a field holding a struct without
    fields (the reference compiler leaves such a struct out of the schema).
    """
    package = package or model.source_package
    if not package.isidentifier() or package in GO_KEYWORDS:
        raise SchemaError(f"package name {package!r} is not a Go identifier; give one")
    _check_struct_references(model)
    named = _named_types(model, unexported)
    declarations = [_struct_declaration(struct, unexported, named) for struct in model.structs.values()]
    interfaces = sorted({name for struct in model.structs.values() for f in struct.fields if f.type is not None
                         for name in _interface_names(f.type)})
    kinds = {kind for struct in model.structs.values() for f in struct.fields if f.type is not None
             for kind in _kinds(f.type)}
    lines = [f'// Go source of ZebraPack schema "{package}", written by "zebrapack go".']
    if model.source_path:
        lines.append(f"// The schema was compiled from {model.source_path}.")
    if any(struct.field_without_zid is not None for struct in model.structs.values()):
        lines.append("// Fields without a zid tag: a schema for -msgp only (zebrapack schema --msgp).")
    lines += ["", f"package {package}", ""]
    uses_msgp = bool(kinds & {Kind.EXT, Kind.RAW, Kind.NUMBER}) or bool(interfaces) or any(
        "msgp." in _spelling(f.type, parse_type_spelling(f.type_str), named)  # an array sized by a constant of msgp
        for struct in model.structs.values() for f in struct.fields if f.type is not None)
    lines += _imports(Kind.TIME in kinds, uses_msgp)
    if model.schema_id is not None:
        lines += [f"const zebraSchemaId64 int64 = {model.schema_id:#x}", ""]
    for name, type_ref in named.items():
        lines += [f"type {name} {_spelling(type_ref, None, named, inner=True)}", ""]
    for declaration in declarations:
        lines += declaration + [""]
    for name in interfaces:
        lines += [f"// {name} types interface fields: the concrete struct is named on the wire.",
                  f"type {name} interface {{", *(f"\tmsgp.{method}" for method in _MSGP_INTERFACES), "}", ""]
    return "\n".join(lines[:-1]) + "\n"


def _imports(uses_time: bool, uses_msgp: bool) -> list[str]:
    if uses_time and uses_msgp:  # gofmt style: the standard library first, in its own group
        return ["import (", '\t"time"', "", f'\t"{MSGP_IMPORT}"', ")", ""]
    if uses_time:
        return ['import "time"', ""]
    if uses_msgp:
        return [f'import "{MSGP_IMPORT}"', ""]
    return []


def _check_struct_references(model: SchemaDef) -> None:
    for struct in model.structs.values():
        for f in struct.fields:
            empty = [node.name for node in _walk(f.type) if node.kind == Kind.STRUCT
                     and not model.structs[node.name].fields] if f.type is not None else []
            if empty:
                raise SchemaError(f"struct {empty[0]} has no fields: the reference compiler leaves it out of "
                                  "the schema, so no field can hold it", struct.name, f.go_name)


def _named_types(model: SchemaDef, unexported: bool) -> dict[str, TypeRef]:
    """The named types the fields' spellings give (``UserID`` -> uint64), each declared
    once; a name that two types would take, or that Go cannot declare here, is not used.
    Then the byte type that slices of bytes written as arrays of integers need."""
    taken = set(model.structs) | {name for s in model.structs.values() for f in s.fields if f.type is not None
                                  for name in _interface_names(f.type)}
    found: dict[str, TypeRef | None] = {}
    for struct in model.structs.values():
        for f in struct.fields:
            if f.type is not None:
                _collect_names(f.type, parse_type_spelling(f.type_str), found)
    named = {name: type_ref for name, type_ref in found.items()
             if type_ref is not None and name not in taken and name not in GO_KEYWORDS and name.isidentifier()
             and (unexported or _exported(name))}
    if any(node.kind == Kind.SLICE and node.elem_type.kind == Kind.BYTE and not _byte_names(named)
           for s in model.structs.values() for f in s.fields if f.type is not None for node in _walk(f.type)):
        name, number = BYTE_ELEM_NAME, 1
        while name in taken or name in named:
            number += 1
            name = f"{BYTE_ELEM_NAME}{number}"
        named[name] = TypeRef(Kind.BYTE)
    return named


def _collect_names(t: TypeRef, spelled: GoType | None, found: dict[str, TypeRef | None]) -> None:
    """Record each name the spelling gives a part of t (None for a name given two types)."""
    if spelled is None:
        return
    if spelled.form == "ident":
        if "." not in spelled.name and spelled.name not in _GO_NAMES and t.kind not in (Kind.STRUCT,
                                                                                         Kind.IDENT_IFACE):
            found[spelled.name] = t if found.get(spelled.name, t) == t else None
        return
    if t.kind == Kind.POINTER and spelled.form == "pointer" or t.kind == Kind.SLICE and spelled.form == "slice" \
            or t.kind == Kind.ARRAY and spelled.form == "array" or t.kind == Kind.BYTES and spelled.form == "slice":
        if t.kind != Kind.BYTES:
            _collect_names(t.elem_type, spelled.elem, found)
    elif t.kind == Kind.MAP and spelled.form == "map":
        _collect_names(t.elem_type, spelled.elem, found)


#: The names of Go's own types a spelling may hold (not named types of the schema).
_GO_NAMES = frozenset(GO_PRIMITIVE_NAMES.values()) | {"any", "rune", "uintptr"}


def _byte_names(named: Mapping[str, TypeRef]) -> list[str]:
    return [name for name, type_ref in named.items() if type_ref.kind == Kind.BYTE]


def _struct_declaration(struct: StructDef, unexported: bool, named: Mapping[str, TypeRef]) -> list[str]:
    if not unexported and not _exported(struct.name):
        raise SchemaError("struct name is not exported in Go (the reference generator ignores it without "
                          "-unexported): pass unexported=True (zebrapack go --unexported)", struct.name)
    rows: list[tuple[str, ...]] = []
    for f in struct.fields:
        tag = _tag(struct, f, unexported)
        if f.unusable:      # Go would declare it, zebrapack cannot: the line is kept as a comment
            rows.append((f"// {f.go_name} {f.go_spelling} {tag}: zebrapack cannot represent this type "
                         f"({f.unusable})".replace("  ", " "),))
        else:
            rows.append((f.go_name, _field_type(f, named), tag) if tag else (f.go_name, _field_type(f, named)))
    return [f"type {struct.name} struct {{", *("\t" + line for line in _gofmt_aligned(rows)), "}"]


def _gofmt_aligned(rows: list[tuple[str, ...]]) -> list[str]:
    """The cells of each line aligned as gofmt's tabwriter aligns a struct's fields: a cell
    that is not its line's last is padded to the widest such cell of its column among the
    consecutive lines that have one there, plus a space (a shorter line ends that block)."""
    widths = [[0] * len(row) for row in rows]
    for column in range(max((len(row) for row in rows), default=0)):
        start = 0
        while start < len(rows):
            end = start
            while end < len(rows) and len(rows[end]) > column + 1:
                end += 1
            if end > start:
                width = max(len(rows[k][column]) for k in range(start, end)) + 1
                for k in range(start, end):
                    widths[k][column] = width
            start = end + 1
    return ["".join(cell.ljust(width) for cell, width in zip(row, widths[k])) for k, row in enumerate(rows)]


def _field_type(f: FieldDef, named: Mapping[str, TypeRef]) -> str:
    """A field's type as declared: struct{} for a Skip field."""
    if f.type is None:
        return "struct{}"
    extension = _extension_spelling(f)
    return extension or _spelling(f.type, parse_type_spelling(f.type_str), named)


def _extension_spelling(f: FieldDef) -> str | None:
    """An extension field spelled with a named type (``msgp.RawExtension``, ``*MyExt``): the
    spelling, which msg:"name,extension" makes an extension again (exactly two tag parts,
    as the reference tests them), when the field has no other tag option."""
    spelled = parse_type_spelling(f.type_str)
    if f.type is None or spelled is None or f.omit_empty or f.deprecated or f.show_zero:
        return None
    if f.type.kind == Kind.POINTER and spelled.form == "pointer" and spelled.elem is not None:
        ext, spelled = f.type.elem_type, spelled.elem
    else:
        ext = f.type
    if ext.kind != Kind.EXT or spelled.form != "ident" or spelled.name == GO_PRIMITIVE_NAMES[Kind.EXT]:
        return None
    return f.type_str


def _tag(struct: StructDef, f: FieldDef, unexported: bool) -> str:
    if not unexported and not _exported(f.go_name):
        raise SchemaError("field name is not exported in Go (the reference generator ignores it without "
                          "-unexported): name it with a capital letter, or pass unexported=True "
                          "(zebrapack go --unexported)", struct.name, f.go_name)
    if _TAG_NAME_FORBIDDEN & set(f.tag_name) or not f.tag_name.isprintable():
        raise SchemaError(f"tag name {f.tag_name!r} cannot be written in a msg struct tag", struct.name, f.go_name)
    name = f.tag_name if f.tag_name != f.go_name else ""
    iface = f.type is not None and bool(_interface_names(f.type))
    options = [option for option, on in (("omitempty", f.omit_empty), ("deprecated", f.deprecated),
                                         ("showzero", f.show_zero), ("iface", iface)) if on]
    if _extension_spelling(f):
        options.append("extension")
        name = f.tag_name      # msg:"name,extension": the name written even when it is the Go name
    msg = ",".join([name, *options])
    if f.zid < 0:  # a Skip field without a zid (msg:"-" says so), or a -msgp schema's field without one
        return f'`msg:"{msg}"`' if msg else ""
    return f'`zid:"{f.zid}" msg:"{msg}"`' if msg else f'`zid:"{f.zid}"`'


def _spelling(t: TypeRef, spelled: GoType | None, named: Mapping[str, TypeRef], inner: bool = False) -> str:
    """The Go spelling of a type: ``t.go``, but with the array lengths, element spellings
    and names of ``spelled`` (the field's FieldTypeStr) where they mean the same. ``inner``:
    the declaration of a named type, which is spelled by its own type, not its name."""
    def part(form: str, attr: str) -> GoType | None:
        return getattr(spelled, attr) if spelled is not None and spelled.form == form else None

    if not inner and spelled is not None and spelled.form == "ident" and named.get(spelled.name) == t:
        return spelled.name
    if t.kind in SCALAR_KINDS or t.kind in (Kind.STRUCT, Kind.IDENT_IFACE):
        return t.go
    if t.kind == Kind.POINTER:
        return "*" + _spelling(t.elem_type, part("pointer", "elem"), named)
    if t.kind == Kind.SLICE:
        if t.elem_type.kind == Kind.BYTE and not (spelled is not None and spelled.form == "slice"
                                                  and spelled.elem is not None and spelled.elem.form == "ident"
                                                  and named.get(spelled.elem.name) == t.elem_type):
            return "[]" + _byte_names(named)[-1]      # []byte would be bin: an array of integers needs a name
        return "[]" + _spelling(t.elem_type, part("slice", "elem"), named)
    if t.kind == Kind.MAP:
        assert t.key is not None
        return f"map[{t.key.go}]{_spelling(t.elem_type, part('map', 'elem'), named)}"
    assert t.kind == Kind.ARRAY, t
    length = str(t.length)
    if spelled is not None and spelled.form == "array":
        qualifier, _, constant = spelled.length.rpartition(".")
        if qualifier == "msgp" and MSGP_CONSTANTS.get(constant) == t.length:
            length = spelled.length
    return f"[{length}]{_spelling(t.elem_type, part('array', 'elem'), named)}"


def _exported(name: str) -> bool:
    return name[:1].isupper()


def _walk(t: TypeRef) -> Iterator[TypeRef]:
    """The nodes of a type tree."""
    yield t
    for child in (t.key, t.elem):
        if child is not None:
            yield from _walk(child)


def _kinds(t: TypeRef) -> set[Kind]:
    return {node.kind for node in _walk(t)}


def _interface_names(t: TypeRef) -> set[str]:
    return {node.name for node in _walk(t) if node.kind == Kind.IDENT_IFACE}
