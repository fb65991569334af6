"""The schema model written back as a ``zebra.Schema`` document (the ``.z`` shape).

Struct references are written as named IDENTs (Kind 22), but where the reference
generator inlined the struct (``TypeRef.inlined``: its ``-msgp`` writer writes
every field there), as it does: an unnamed Kind 25, the name in ``FieldTypeStr``.
``msgp.Raw`` and ``msgp.Number`` are IDENTs of the runtime's names; a field
zebrapack cannot represent keeps the type its document gave it.
"""

from __future__ import annotations

import json
from typing import Any

from .model import GO_PRIMITIVE_NAMES, GO_RUNTIME_NAMES, PRIMITIVE_KINDS, FieldDef, Kind, SchemaDef, TypeRef
from .type_spelling import GoType, parse_type_spelling

# The Ztype "Str" the reference compiler writes for each primitive kind.
_PRIMITIVE_STR = {**{kind: name for kind, name in GO_PRIMITIVE_NAMES.items()},
                  Kind.BYTES: "bytes", Kind.INTF: "Intf", Kind.TIME: "Time", Kind.EXT: "Ext"}


def type_document(type_ref: TypeRef, spelled: GoType | None = None) -> dict[str, Any]:
    """The Ztype of a type; ``spelled`` (the field's FieldTypeStr, parsed) gives the
    array lengths as written, as the reference records them (``msgp.ExtensionPrefixSize``)."""
    def part(form: str, attr: str) -> GoType | None:
        return getattr(spelled, attr) if spelled is not None and spelled.form == form else None

    kind = type_ref.kind
    if kind in PRIMITIVE_KINDS:
        return {"Kind": int(kind), "Str": _PRIMITIVE_STR[kind]}
    if kind in GO_RUNTIME_NAMES:
        return {"Kind": int(Kind.IDENT), "Str": GO_RUNTIME_NAMES[kind]}
    if kind == Kind.STRUCT and type_ref.inlined:
        return {"Kind": int(Kind.STRUCT), "Str": "Struct"}
    if kind in (Kind.STRUCT, Kind.IDENT_IFACE):
        return {"Kind": int(Kind.IDENT), "Str": type_ref.name}
    if kind == Kind.SLICE:
        return {"Kind": int(kind), "Str": "Slice", "Domain": type_document(type_ref.elem_type, part("slice", "elem"))}
    if kind == Kind.POINTER:
        return {"Kind": int(kind), "Str": "Pointer",
                "Domain": type_document(type_ref.elem_type, part("pointer", "elem"))}
    if kind == Kind.MAP:
        assert type_ref.key is not None
        return {"Kind": int(kind), "Str": "Map", "Domain": type_document(type_ref.key),
                "Range": type_document(type_ref.elem_type, part("map", "elem"))}
    if kind == Kind.ARRAY:
        length = spelled.length if spelled is not None and spelled.form == "array" else ""
        named = length if length.replace(".", "").isidentifier() else None  # a constant's name, not a literal
        return {"Kind": int(kind), "Str": "Array",
                "Domain": {"Kind": type_ref.length, "Str": named or str(type_ref.length)},
                "Range": type_document(type_ref.elem_type, part("array", "elem"))}
    raise AssertionError(f"cannot write type {type_ref!r}")


def _category(type_ref: TypeRef) -> tuple[int, int]:
    """(FieldCategory, FieldPrimitive) as the reference compiler sets them."""
    if type_ref.kind in PRIMITIVE_KINDS:
        return int(Kind.BASE_ELEM), int(type_ref.kind)
    # a struct named by an IDENT is category 23, primitive 22, as the reference writes it; inlined, 25
    if type_ref.kind in (Kind.IDENT_IFACE, *GO_RUNTIME_NAMES) or type_ref.kind == Kind.STRUCT and not type_ref.inlined:
        return int(Kind.BASE_ELEM), int(Kind.IDENT)
    return int(type_ref.kind), 0


def field_document(f: FieldDef) -> dict[str, Any]:
    doc: dict[str, Any] = {"Zid": f.zid, "FieldGoName": f.go_name, "FieldTagName": f.tag_name}
    if f.type is not None and not f.skip:
        category, primitive = _category(f.type)
        doc["FieldTypeStr"] = f.type_str or f.type.go
        doc["FieldCategory"] = category
        if primitive:
            doc["FieldPrimitive"] = primitive
        doc["FieldFullType"] = type_document(f.type, parse_type_spelling(f.type_str))
    elif f.unusable:
        if f.type_str:
            doc["FieldTypeStr"] = f.type_str
        doc.update(json.loads(f.foreign_type) if f.foreign_type else {})
    for key, flag in (("OmitEmpty", f.omit_empty), ("Skip", f.skip),
                      ("Deprecated", f.deprecated), ("ShowZero", f.show_zero)):
        if flag:
            doc[key] = True
    return doc


def schema_document(model: SchemaDef) -> dict[str, Any]:
    """The model as a zebra.Schema document, zero-valued entries left out."""
    doc: dict[str, Any] = {}
    if model.source_path:
        doc["SourcePath"] = model.source_path
    if model.source_package:
        doc["SourcePackage"] = model.source_package
    if model.schema_id is not None:
        doc["ZebraSchemaId"] = model.schema_id
    doc["Structs"] = {
        name: {"StructName": name, "Fields": [field_document(f) for f in struct.fields]}
        for name, struct in model.structs.items()
    }
    if model.imports:
        doc["Imports"] = list(model.imports)
    return doc
