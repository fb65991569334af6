"""A schema written as Go source (``zebrapack go``), like the reference's ``-schema-to-go``.

The output is a gofmt-formatted Go file declaring the schema's structs with
their ``zid`` and ``msg`` tags, from which the reference generator makes Go
code and from which ``zebrapack schema`` compiles the same schema again:

- a Skip field is written ``struct{}`` (its type is not in the schema);
- each interface type of an interface field is declared with the msgp
  interfaces the generated code calls (add your own methods to it), and the
  field is tagged ``iface`` as the reference's examples do;
- imports are the ones the declarations use (``time``, the msgp package),
  not the schema's ``Imports``, which may name packages only functions used.
"""

from __future__ import annotations

from collections.abc import Iterator

from .._errors import SchemaError
from ..schema.model import FieldDef, Kind, SchemaDef, StructDef, TypeRef
from .syntax import GO_KEYWORDS

#: The package of the reference runtime (msgp.Extension, the interfaces of generated code).
MSGP_IMPORT = "github.com/glycerine/zebrapack/msgp"
_MSGP_INTERFACES = ("Decodable", "Encodable", "Marshaler", "Unmarshaler", "Sizer")
_TAG_NAME_FORBIDDEN = frozenset(',"`\\')


def go_source(model: SchemaDef, *, package: str | None = None) -> str:
    """The Go source declaring the schema's structs (``package`` overrides the schema's).

    Raises ``SchemaError`` for what Go code cannot declare: a struct or field
    name that is not exported (the reference generator ignores those), a tag
    name a struct tag cannot hold, a package name that is not a Go identifier.
    """
    package = package or model.source_package
    if not package.isidentifier() or package in GO_KEYWORDS:
        raise SchemaError(f"package name {package!r} is not a Go identifier; give one")
    interfaces = sorted({name for struct in model.structs.values() for f in struct.fields if f.type is not None
                         for name in _interface_names(f.type)})
    kinds = {kind for struct in model.structs.values() for f in struct.fields if f.type is not None
             for kind in _kinds(f.type)}
    lines = [f'// Go source of ZebraPack schema "{package}", written by "zebrapack go".']
    if model.source_path:
        lines.append(f"// The schema was compiled from {model.source_path}.")
    lines += ["", f"package {package}", ""]
    lines += _imports(Kind.TIME in kinds, Kind.EXT in kinds or bool(interfaces))
    if model.schema_id is not None:
        lines += [f"const zebraSchemaId64 int64 = {model.schema_id:#x}", ""]
    for struct in model.structs.values():
        lines += _struct_declaration(struct) + [""]
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


def _struct_declaration(struct: StructDef) -> list[str]:
    if not _exported(struct.name):
        raise SchemaError("struct name is not exported in Go (the reference generator ignores it)", struct.name)
    rows = [(f.go_name, "struct{}" if f.type is None else f.type.go, _tag(struct, f)) for f in struct.fields]
    # gofmt aligns the columns of a struct: each padded to its widest cell plus one space.
    name_width = max((len(name) for name, _, _ in rows), default=0) + 1
    type_width = max((len(type_text) for _, type_text, _ in rows), default=0) + 1
    fields = [f"\t{name.ljust(name_width)}{type_text.ljust(type_width)}{tag}" for name, type_text, tag in rows]
    return [f"type {struct.name} struct {{", *fields, "}"]


def _tag(struct: StructDef, f: FieldDef) -> str:
    if not _exported(f.go_name):
        raise SchemaError("field name is not exported in Go (the reference generator ignores it): "
                          "name it with a capital letter", struct.name, f.go_name)
    if _TAG_NAME_FORBIDDEN & set(f.tag_name) or not f.tag_name.isprintable():
        raise SchemaError(f"tag name {f.tag_name!r} cannot be written in a msg struct tag", struct.name, f.go_name)
    name = f.tag_name if f.tag_name != f.go_name else ""
    iface = f.type is not None and bool(_interface_names(f.type))
    options = [option for option, on in (("omitempty", f.omit_empty), ("deprecated", f.deprecated),
                                         ("showzero", f.show_zero), ("iface", iface)) if on]
    msg = ",".join([name, *options])
    return f'`zid:"{f.zid}" msg:"{msg}"`' if msg else f'`zid:"{f.zid}"`'


def _exported(name: str) -> bool:
    return name[:1].isupper()


def _walk(t: TypeRef) -> Iterator[TypeRef]:
    yield t
    for child in (t.key, t.elem):
        if child is not None:
            yield from _walk(child)


def _kinds(t: TypeRef) -> set[Kind]:
    return {node.kind for node in _walk(t)}


def _interface_names(t: TypeRef) -> set[str]:
    return {node.name for node in _walk(t) if node.kind == Kind.IDENT_IFACE}
