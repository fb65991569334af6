"""The model of a generated module: what ``emit`` writes, decided from the schema.

Annotations and zero values come from the rules that build ``schema.types``
at run time (``zebrapack.schema.classes``), applied to ``StructRef`` stand-ins for
the generated classes, so a generated module and the runtime classes agree.
Names are settled here too: a name the module itself uses cannot be a struct,
and a struct a class refers to while one of its fields carries the same name
(Go's ``Address Address``) is referred to through an alias, since in a class
body the field would shadow the class.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

import msgpack

from .._errors import SchemaError
from ..schema.classes import annotation, field_default
from ..schema.document import schema_document
from ..schema.model import FieldDef, Kind, SchemaDef, TypeRef, python_name, value_dependency_order

#: Names the classes' code refers to: builtins and imports (a field of that
#: name would hide them in a class body, a struct of that name everywhere).
CODE_NAMES = frozenset({"bool", "int", "float", "complex", "str", "bytes", "list", "dict", "range",
                        "typing", "dataclass", "field", "datetime", "timezone", "zebrapack"})
#: Names the generated module uses or binds besides its classes.
MODULE_NAMES = CODE_NAMES | {"annotations", "schema", "_SCHEMA"}


class StructRef:
    """Stands where a generated class goes in what ``annotation`` and ``field_default`` return."""

    struct_name: ClassVar[str]


@dataclass(frozen=True)
class FieldModel:
    """One dataclass field: ``annotation`` is a typing object (``StructRef``s for classes);
    ``default`` its immutable zero, or with ``is_factory`` what makes a fresh one."""

    attr: str
    zid: int
    go_type: str
    notes: tuple[str, ...]
    annotation: Any
    default: Any
    is_factory: bool


@dataclass(frozen=True)
class ClassModel:
    name: str
    struct_name: str
    skipped: tuple[FieldDef, ...]
    fields: tuple[FieldModel, ...]
    aliased: frozenset[str]     # struct names referred to through their alias in this class


@dataclass(frozen=True)
class ModuleModel:
    package: str
    schema_id: int | None
    schema_bytes: bytes
    classes: tuple[ClassModel, ...]    # in definition order: what a class holds by value comes first
    struct_classes: Mapping[str, str]  # struct name -> class name, by struct name


def alias_of(class_name: str) -> str:
    """What a class body calls a class whose name a field of its own hides: ``_`` before
    the name, or after a name that starts with one (``__A`` would be mangled there)."""
    return class_name + "_" if class_name.startswith("_") else "_" + class_name


def build_module(schema: SchemaDef) -> ModuleModel:
    """The module model of a schema; ``SchemaError`` when its names cannot be used."""
    # The reference compiler writes Structs as a Go map, in random order: sort
    # them, so that the module depends on the schema only.
    schema = dataclasses.replace(schema, structs=MappingProxyType(dict(sorted(schema.structs.items()))))
    refs: dict[str, type] = {
        name: type(python_name(name), (StructRef,), {"struct_name": name}) for name in schema.structs
    }
    class_names = {name: python_name(name) for name in schema.structs}
    aliases = {alias_of(class_name): class_name for class_name in class_names.values()}
    for name, class_name in class_names.items():
        if class_name in MODULE_NAMES:
            raise SchemaError(f"the generated module needs the name {class_name!r} for itself", name)
        if class_name in aliases:
            raise SchemaError(f"{class_name!r} is the alias the generated module gives {aliases[class_name]!r}",
                              name)
    classes = []
    for name in value_dependency_order(schema.structs):
        struct = schema.structs[name]
        fields = [_field_model(f, refs) for f in struct.value_fields]
        attrs = {f.attr for f in fields}
        for f in struct.value_fields:
            if f.attr in CODE_NAMES:
                raise SchemaError(f"the generated class needs the name {f.attr!r} in its body", name, f.go_name)
        referenced = set().union(*(_struct_names(f.type) for f in struct.wire_fields if f.type is not None))
        classes.append(ClassModel(
            name=class_names[name],
            struct_name=name,
            skipped=tuple(sorted((f for f in struct.fields if f.skip), key=lambda f: f.zid)),
            fields=tuple(fields),
            aliased=frozenset(ref for ref in referenced if class_names[ref] in attrs),
        ))
    return ModuleModel(
        package=schema.source_package,
        schema_id=schema.schema_id,
        schema_bytes=msgpack.packb(schema_document(schema), use_bin_type=True),
        classes=tuple(classes),
        struct_classes={name: class_names[name] for name in schema.structs},
    )


def _field_model(f: FieldDef, refs: Mapping[str, type]) -> FieldModel:
    if f.type is None:          # unusable: the attribute is there, always None
        return FieldModel(attr=f.attr, zid=f.zid, go_type=f.go_spelling,
                          notes=(f"unusable, always None: {f.unusable}",), annotation=type(None), default=None,
                          is_factory=False)
    notes = []
    if f.tag_name != f.go_name:
        notes.append(f'msgp key "{f.tag_name}"')
    if f.deprecated:
        notes.append("deprecated")
    if f.type.kind == Kind.TIME:
        notes.append("None is Go's zero time")
    default = field_default(f.type, refs)
    is_factory = default.default is dataclasses.MISSING
    return FieldModel(
        attr=f.attr,
        zid=f.zid,
        go_type=f.type.go,
        notes=tuple(notes),
        annotation=annotation(f.type, refs, field_level=True),
        default=default.default_factory if is_factory else default.default,
        is_factory=is_factory,
    )


def _struct_names(type_ref: TypeRef) -> set[str]:
    """The structs named anywhere in a type."""
    names = {type_ref.name} if type_ref.kind == Kind.STRUCT else set()
    for part in (type_ref.elem, type_ref.key):
        if part is not None:
            names |= _struct_names(part)
    return names

