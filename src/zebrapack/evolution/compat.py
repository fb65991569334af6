"""The compatibility checker: may schema NEW replace schema OLD? (``zebrapack check``)

The zid discipline of FORMAT.md section 4 (Cap'n Proto's): zids start at 0,
run without gaps, are never reused and never deleted; a field is retired by
marking it deprecated and changing its type to ``struct{}`` (a Skip field).
For every struct of OLD, each zid must keep its type, its Go name and its tag
name (the key in msgp mode), unless it is being retired. New fields, new
structs and newly deprecated fields are information, not conflicts.

Types are compared in the normalized model, so the reference compiler's
spellings (an unnamed inlined struct, an IDENT naming a struct) do not count
as changes; ``byte`` and ``uint8`` are one Go type.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Union

from .._errors import SchemaError
from ..schema.document import schema_document
from ..schema.loader import Schema, SchemaSource, read_schema_document
from ..schema.model import FieldDef, Kind, SchemaDef, StructDef, TypeRef, parse_schema

#: What ``check_compatible`` compares: a loaded schema, a model, a schema file
#: (``.z`` or ``.z.json``), ``.z`` bytes or a schema document.
SchemaLike = Union[Schema, SchemaDef, SchemaSource]


@dataclass(frozen=True)
class Finding:
    """One difference between two schema versions.

    ``kind`` names the rule (``type-changed``, ``field-removed``, ``new-field``, ...);
    ``zid`` and ``field`` are None for a finding about a whole struct.
    """

    conflict: bool
    kind: str
    struct: str
    zid: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        if self.zid is None:
            return f"{self.struct}: {self.message}"
        return f"{self.struct} zid {self.zid} ({self.field}): {self.message}"

    def as_dict(self) -> dict[str, Any]:
        """The finding as JSON-ready data (``zebrapack check --json``)."""
        return {"severity": "conflict" if self.conflict else "info", "kind": self.kind, "struct": self.struct,
                "zid": self.zid, "field": self.field, "message": self.message}


@dataclass(frozen=True)
class CompatibilityReport:
    """The findings of ``check_compatible``, in OLD's struct order then zid order."""

    findings: tuple[Finding, ...]

    @property
    def conflicts(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.conflict)

    @property
    def notes(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if not f.conflict)

    @property
    def compatible(self) -> bool:
        return not self.conflicts

    def __str__(self) -> str:
        return "\n".join(f"{'conflict' if f.conflict else 'info'}: {f}" for f in self.findings)


def check_compatible(old: SchemaLike, new: SchemaLike) -> CompatibilityReport:
    """Check that data written with either schema stays readable with the other.

    ``old`` and ``new``: ``Schema`` objects, models, schema files (``.z`` or
    ``.z.json``), ``.z`` bytes or schema documents (``schema_from_go`` reads Go source).
    Raises ``SchemaError`` when one of them is not a valid schema.
    """
    old_model, findings = _model_and_duplicates(old, "old")
    new_model, new_duplicates = _model_and_duplicates(new, "new")
    findings += new_duplicates
    for name, old_struct in old_model.structs.items():
        new_struct = new_model.structs.get(name)
        if new_struct is None:
            findings.append(Finding(True, "struct-removed", name, None, None,
                                    "struct removed (structs, like fields, are never deleted)"))
        else:
            findings += _compare_structs(old_struct, new_struct)
    for name, new_struct in new_model.structs.items():
        if name not in old_model.structs:
            findings.append(Finding(False, "new-struct", name, None, None, "new struct"))
            findings += _gaps(new_struct, set())
    return CompatibilityReport(tuple(findings))


def check_zid_sequence(struct: StructDef) -> None:
    """Raise ``SchemaError`` (naming the first field after a gap) unless the struct's
    zids run from 0 without gaps, as the reference compiler demands of a new schema."""
    missing = _missing_zids(struct)
    if missing:
        after = min((f for f in struct.fields if f.zid > missing[0]), key=lambda f: f.zid)
        raise SchemaError(f"zids must run from 0 without gaps: zid {_listed(missing)} unused",
                          struct.name, after.go_name)


def _missing_zids(struct: StructDef) -> list[int]:
    """The zids below the largest one that no field uses."""
    used = {f.zid for f in struct.fields}
    return [zid for zid in range(max(used, default=-1)) if zid not in used]


# -- fields -------------------------------------------------------------------


def _wire_numbered(struct: StructDef) -> list[FieldDef]:
    """The fields with a zid, in zid order: a Go-only Skip field without one (Zid -2) is never compared."""
    return sorted((f for f in struct.fields if f.zid >= 0), key=lambda f: f.zid)


def _compare_structs(old: StructDef, new: StructDef) -> list[Finding]:
    findings: list[Finding] = []
    for old_field in _wire_numbered(old):
        new_field = new.field_by_zid(old_field.zid)
        if new_field is None:
            findings.append(_finding(True, "field-removed", old, old_field,
                                     "field removed (retire it instead: deprecated, type struct{})"))
        else:
            findings += _compare_fields(old, old_field, new_field)
    old_zids = {f.zid for f in old.fields}
    for new_field in _wire_numbered(new):
        if new_field.zid not in old_zids:
            findings.append(_finding(False, "new-field", new, new_field, f"new field {_type_text(new_field)}"))
    return findings + _gaps(new, old_zids)


def _compare_fields(struct: StructDef, old: FieldDef, new: FieldDef) -> list[Finding]:
    findings: list[Finding] = []
    if old.go_name != new.go_name:
        findings.append(_finding(True, "name-changed", struct, old, f"Go name {old.go_name} -> {new.go_name}"))
    if old.tag_name != new.tag_name and not new.skip:
        findings.append(_finding(True, "tag-changed", struct, old, f"tag name {old.tag_name} -> {new.tag_name}"))
    change = f"{_type_text(old)} -> {_type_text(new)}"
    if new.skip and not old.skip:
        if new.deprecated:
            findings.append(_finding(False, "retired", struct, old, f"retired ({change}, deprecated)"))
        else:
            findings.append(_finding(True, "type-changed", struct, old,
                                     f"type {change} (a retired field must also be deprecated)"))
    elif old.skip and not new.skip:
        findings.append(_finding(True, "type-changed", struct, old, f"type {change} (a retired zid is never reused)"))
    elif not old.skip and not _same_type(old.type, new.type):
        findings.append(_finding(True, "type-changed", struct, old, f"type {change}"))
    elif new.deprecated and not old.deprecated:
        findings.append(_finding(False, "deprecated", struct, old, "newly deprecated"))
    elif old.deprecated and not new.deprecated:
        findings.append(_finding(False, "undeprecated", struct, old, "no longer deprecated"))
    return findings


def _gaps(struct: StructDef, old_zids: set[int]) -> list[Finding]:
    """A conflict for each new zid that leaves zids below it unused."""
    missing = _missing_zids(struct)
    findings = []
    for f in sorted(struct.fields, key=lambda f: f.zid):
        below = [zid for zid in missing if zid < f.zid]
        if f.zid not in old_zids and below:
            findings.append(_finding(True, "zid-gap", struct, f, f"new zid leaves a gap (zid {_listed(below)} unused)"))
    return findings


def _finding(conflict: bool, kind: str, struct: StructDef, f: FieldDef, message: str) -> Finding:
    return Finding(conflict, kind, struct.name, f.zid, f.go_name, message)


def _type_text(f: FieldDef) -> str:
    return "struct{}" if f.type is None else f.type.go


def _listed(zids: list[int]) -> str:
    return ", ".join(str(zid) for zid in zids)


def _same_type(a: TypeRef | None, b: TypeRef | None) -> bool:
    return a is not None and b is not None and _without_aliases(a) == _without_aliases(b)


def _without_aliases(t: TypeRef) -> TypeRef:
    """The type with Go's ``byte`` spelled ``uint8`` (one type in Go, one encoding on the
    wire), except as an array's element: ``[N]byte`` is bin, ``[N]uint8`` an array of ints."""
    byte_array = t.kind == Kind.ARRAY and t.elem is not None and t.elem.kind == Kind.BYTE
    return dataclasses.replace(
        t, kind=Kind.UINT8 if t.kind == Kind.BYTE else t.kind,
        elem=_without_aliases(t.elem) if t.elem is not None and not byte_array else t.elem,
        key=_without_aliases(t.key) if t.key is not None else None)


# -- inputs -------------------------------------------------------------------


def _model_and_duplicates(source: SchemaLike, which: str) -> tuple[SchemaDef, list[Finding]]:
    """The model of one side, and a conflict for each zid it uses twice.

    A schema with a duplicate zid does not load, so the later fields with that
    zid are set aside (and reported) and the rest is compared.
    """
    document = _document(source)
    label = os.fspath(source) if isinstance(source, (str, os.PathLike)) else f"the {which} schema"
    structs = document.get("Structs")
    findings: list[Finding] = []
    if isinstance(structs, (Mapping, list)):
        pairs = list(structs.items() if isinstance(structs, Mapping) else enumerate(structs))
        kept = [(key, _without_duplicates(raw, key, which, findings)) for key, raw in pairs]
        document = {**document, "Structs": dict(kept) if isinstance(structs, Mapping) else [v for _, v in kept]}
    try:
        return parse_schema(document), findings
    except SchemaError as exc:
        raise SchemaError(f"{label}: {exc}") from exc


def _without_duplicates(raw: object, key: object, which: str, findings: list[Finding]) -> object:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("Fields"), list):
        return raw
    name = str(raw.get("StructName", key))
    owners: dict[object, object] = {}
    fields = []
    for f in raw["Fields"]:
        zid = f.get("Zid", 0) if isinstance(f, Mapping) else None
        if isinstance(zid, int) and zid >= 0 and zid in owners:  # Skip fields without a zid share -2
            findings.append(Finding(True, "duplicate-zid", name, zid, str(f.get("FieldGoName")),
                                    f"zid used twice in the {which} schema (also by {owners[zid]})"))
            continue
        owners[zid] = f.get("FieldGoName") if isinstance(f, Mapping) else None
        fields.append(f)
    return {**raw, "Fields": fields}


def _document(source: SchemaLike) -> Mapping[str, Any]:
    if isinstance(source, Schema):
        return schema_document(source.model)
    if isinstance(source, SchemaDef):
        return schema_document(source)
    return read_schema_document(source)
