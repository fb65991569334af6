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
- unexported struct and field names need ``unexported=True`` (the reference
  generator, and ``zebrapack schema``, need ``-unexported`` for them);
- each interface type of an interface field is declared with the msgp
  interfaces the generated code calls (add your own methods to it), and the
  field is tagged ``iface`` as the reference's examples do;
- imports are the ones the declarations use (``time``, the msgp package),
  not the schema's ``Imports``, which may name packages only functions used.
"""

from __future__ import annotations

from collections.abc import Iterator

from .._errors import SchemaError
from ..schema.model import PRIMITIVE_KINDS, FieldDef, Kind, SchemaDef, StructDef, TypeRef
from .compiler import MSGP_CONSTANTS
from .syntax import GO_KEYWORDS, GoType, parse_type_spelling

#: The package of the reference runtime (msgp.Extension, the interfaces of generated code).
MSGP_IMPORT = "github.com/glycerine/zebrapack/msgp"
_MSGP_INTERFACES = ("Decodable", "Encodable", "Marshaler", "Unmarshaler", "Sizer")
_TAG_NAME_FORBIDDEN = frozenset(',"`\\')


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
    declarations = [_struct_declaration(struct, unexported) for struct in model.structs.values()]
    interfaces = sorted({name for struct in model.structs.values() for f in struct.fields if f.type is not None
                         for name in _interface_names(f.type)})
    kinds = {kind for struct in model.structs.values() for f in struct.fields if f.type is not None
             for kind in _kinds(f.type)}
    lines = [f'// Go source of ZebraPack schema "{package}", written by "zebrapack go".']
    if model.source_path:
        lines.append(f"// The schema was compiled from {model.source_path}.")
    lines += ["", f"package {package}", ""]
    uses_msgp = Kind.EXT in kinds or bool(interfaces) or any(
        "msgp." in _spelling(f.type, parse_type_spelling(f.type_str))  # an array sized by a constant of msgp
        for struct in model.structs.values() for f in struct.fields if f.type is not None)
    lines += _imports(Kind.TIME in kinds, uses_msgp)
    if model.schema_id is not None:
        lines += [f"const zebraSchemaId64 int64 = {model.schema_id:#x}", ""]
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


def _struct_declaration(struct: StructDef, unexported: bool) -> list[str]:
    if not unexported and not _exported(struct.name):
        raise SchemaError("struct name is not exported in Go (the reference generator ignores it without "
                          "-unexported): pass unexported=True (zebrapack go --unexported)", struct.name)
    rows = [(f.go_name, "struct{}" if f.type is None else _spelling(f.type, parse_type_spelling(f.type_str)),
             _tag(struct, f, unexported)) for f in struct.fields]
    # gofmt aligns the columns of a struct: each padded to its widest cell plus one space.
    name_width = max((len(name) for name, _, _ in rows), default=0) + 1
    type_width = max((len(type_text) for _, type_text, _ in rows), default=0) + 1
    fields = [f"\t{name.ljust(name_width)}{type_text.ljust(type_width)}{tag}" for name, type_text, tag in rows]
    return [f"type {struct.name} struct {{", *fields, "}"]


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
    msg = ",".join([name, *options])
    if f.zid < 0:  # a Skip field without a zid: msg:"-" alone says so
        return f'`msg:"{msg}"`'
    return f'`zid:"{f.zid}" msg:"{msg}"`' if msg else f'`zid:"{f.zid}"`'


def _spelling(t: TypeRef, spelled: GoType | None) -> str:
    """The Go spelling of a type: ``t.go``, but with the array lengths and element
    spellings of ``spelled`` (the field's FieldTypeStr) where they mean the same."""
    def part(form: str, attr: str) -> GoType | None:
        return getattr(spelled, attr) if spelled is not None and spelled.form == form else None

    if t.kind in PRIMITIVE_KINDS or t.kind in (Kind.STRUCT, Kind.IDENT_IFACE):
        return t.go
    if t.kind == Kind.POINTER:
        return "*" + _spelling(t.elem_type, part("pointer", "elem"))
    if t.kind == Kind.SLICE:
        return "[]" + _spelling(t.elem_type, part("slice", "elem"))
    if t.kind == Kind.MAP:
        assert t.key is not None
        return f"map[{t.key.go}]{_spelling(t.elem_type, part('map', 'elem'))}"
    assert t.kind == Kind.ARRAY, t
    length = str(t.length)
    if spelled is not None and spelled.form == "array":
        qualifier, _, constant = spelled.length.rpartition(".")
        if qualifier == "msgp" and MSGP_CONSTANTS.get(constant) == t.length:
            length = spelled.length
    return f"[{length}]{_spelling(t.elem_type, part('array', 'elem'))}"


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
