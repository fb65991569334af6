"""Compiling a Go schema file into a schema, without Go (``zebrapack schema``, ``schema_from_go``).

The rules are the reference compiler's (``zebrapack -write-schema``, without
``-unexported``):

- exported struct types are the schema's structs; interface types declared
  in the file type interface fields (IDENTiface); other exported type
  declarations are refused, as the reference refuses them; functions,
  methods, variables and constants other than the schema id are ignored;
- ``const zebraSchemaId64`` (an integer literal, hex allowed) is the schema id;
- unexported fields are ignored; every other field needs a ``zid:"N"`` tag,
  and a struct's zids run from 0 without gaps or repeats. A field tagged
  ``zid:"-"``, or ``msg:"-"`` without a zid, is Go-only: it is left out;
- ``msg:"name,omitempty,deprecated,showzero"`` sets the tag name and flags
  (``deprecated:"true"`` deprecates too; other options, like ``iface``, change
  nothing in the schema); ``msg:"-"`` and the type ``struct{}`` make a Skip field;
- a map keyed by anything but string, int, int32 or int64 cannot be
  serialized by the reference: the field is Skip (``UMap`` in the vectors);
- channels, functions, anonymous structs, interface literals with methods
  and types of other packages (but ``time.Time`` and ``msgp.Extension``)
  are errors, as are unknown type names.

Errors are ``GoSourceError``s naming the file, the line, the struct and the field.
"""

from __future__ import annotations

import os
import re
from types import MappingProxyType

from .._core import DEFAULT_MAX_DEPTH
from .._errors import SchemaError
from ..evolution.compat import check_zid_sequence
from ..schema.document import schema_document
from ..schema.loader import Schema
from ..schema.model import (
    BYTE_KINDS,
    GO_PRIMITIVE_NAMES,
    MAX_ARRAY_LENGTH,
    FieldDef,
    Kind,
    SchemaDef,
    StructDef,
    TypeRef,
    parse_schema,
)
from .syntax import GoField, GoFile, GoType, GoTypeDecl, GoTypeSyntaxError, parse_go_file, unquote_go_string

#: The constant that holds the schema id.
SCHEMA_ID_CONST = "zebraSchemaId64"

_NAMED_KINDS = {name: kind for kind, name in GO_PRIMITIVE_NAMES.items()
                if kind not in (Kind.BYTES, Kind.INTF)} | {"any": Kind.INTF}
#: The map keys the reference can serialize; any other makes the field Skip.
_MAP_KEY_KINDS = {"string": Kind.STRING, "int": Kind.INT, "int32": Kind.INT32, "int64": Kind.INT64}
_ZID = re.compile(r"\+?[0-9]+")
_LEGACY_OCTAL = re.compile(r"0[0-7_]+")
#: One ``key:"value"`` pair of a struct tag (reflect's syntax).
_TAG_PAIR = re.compile(r' *([^\x00- :"\x7f]+):("(?:[^"\\]|\\.)*")')


class GoSourceError(SchemaError):
    """A Go schema file that does not compile; ``path`` and ``line`` say where."""

    def __init__(self, message: str, path: str, line: int, struct: str | None = None,
                 field: str | None = None) -> None:
        super().__init__(message, struct, field)
        self.path = path
        self.line = line
        self.args = (f"{path}:{line}: {self.args[0]}",)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.reason, self.path, self.line, self.struct, self.field))


def compile_go_schema(source: str, path: str = "schema.go") -> SchemaDef:
    """The schema of Go source text; ``path`` is its ``SourcePath`` and the file errors name."""
    try:
        parsed = parse_go_file(source)
    except GoTypeSyntaxError as exc:
        raise GoSourceError(f"syntax error: {exc}", path, exc.line) from None
    return _Compiler(parsed, path).schema()


def read_go_schema(path: str | os.PathLike[str]) -> SchemaDef:
    """The schema of a Go source file."""
    name = os.fspath(path)
    try:
        with open(name, encoding="utf-8") as handle:     # OSError (FileNotFoundError, ...) as for any file
            source = handle.read()
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{name}: Go source is UTF-8: {exc}") from exc
    return compile_go_schema(source, name)


def schema_from_go(path: str | os.PathLike[str], *, types: object = None, max_depth: int = DEFAULT_MAX_DEPTH,
                   preserve_unknown: bool = False) -> Schema:
    """Compile a Go schema file (struct types with ``zid`` tags) as the reference compiler
    does, and load the result like ``zebrapack.load`` (same options)."""
    return Schema(read_go_schema(path), types, max_depth=max_depth, preserve_unknown=preserve_unknown)


class _Unsupported(Exception):
    """A field type the schema cannot hold (its message says why)."""


class _Compiler:
    def __init__(self, source: GoFile, path: str) -> None:
        self.source = source
        self.path = path
        self.lines: dict[tuple[str | None, str | None], int] = {}
        declared: dict[str, GoTypeDecl] = {}
        for decl in source.types:
            if decl.name in declared:
                raise self.error(f"type {decl.name} declared twice", decl.line)
            declared[decl.name] = decl
            if _exported(decl.name) and decl.type.form not in ("struct", "interface", "func", "chan"):
                raise self.error(f"type {decl.name} {decl.type}: only struct and interface types can be "
                                 f"declared in a schema (the reference compiler refuses it too)", decl.line)
        self.structs = [d for d in source.types if d.type.form == "struct" and _exported(d.name)]
        self.struct_names = {d.name for d in self.structs}
        self.interfaces = {d.name for d in source.types if d.type.form == "interface"}

    def error(self, message: str, line: int, struct: str | None = None, field: str | None = None) -> GoSourceError:
        return GoSourceError(message, self.path, line, struct, field)

    def schema(self) -> SchemaDef:
        structs = {}
        for decl in self.structs:
            self.lines[decl.name, None] = decl.line
            fields = (self._field(decl.name, go_field) for go_field in decl.type.fields)
            structs[decl.name] = StructDef(decl.name, tuple(f for f in fields if f is not None))
        model = SchemaDef(
            source_package=self.source.package,
            structs=MappingProxyType(structs),
            source_path=self.path,
            schema_id=self._schema_id(),
            imports=tuple(f"{i.name} {i.path}" if i.name else i.path for i in self.source.imports),
        )
        try:  # what the loader checks (zid range, repeated zids and names, structs holding themselves), then gaps
            parse_schema(schema_document(model))
            for struct in structs.values():
                check_zid_sequence(struct)
        except SchemaError as exc:
            line = self.lines.get((exc.struct, exc.field)) or self.lines.get((exc.struct, None), 0)
            raise self.error(exc.reason, line, exc.struct, exc.field) from None
        return model

    def _schema_id(self) -> int | None:
        const = next((c for c in self.source.consts if c.name == SCHEMA_ID_CONST), None)
        if const is None:
            return None
        value = _go_int(const.value)
        if value is None or not -(1 << 63) <= value < 1 << 63:
            raise self.error(f"{SCHEMA_ID_CONST} must be an int64 literal, not {const.value!r}", const.line)
        return value or None  # the reference writes no id for 0

    def _field(self, struct: str, go_field: GoField) -> FieldDef | None:
        """The schema field of a line of a struct type; None for a field the schema leaves out."""
        names = [name for name in go_field.names or (_embedded_name(go_field.type),) if _exported(name)]
        if not names:
            return None
        if len(names) > 1:
            raise self.error(f"fields {', '.join(names)} share one declaration: give each its own line and zid",
                             go_field.line, struct, names[0])
        name = names[0]
        self.lines[struct, name] = go_field.line
        try:
            tag = _struct_tag(unquote_go_string(go_field.tag) if go_field.tag else "")
        except GoTypeSyntaxError as exc:
            raise self.error(f"malformed struct tag: {exc}", go_field.line, struct, name) from None
        msg = tag.get("msg", "").split(",")
        options = {option.strip() for option in msg[1:]}
        skip = msg[0] == "-"
        zid_text = tag.get("zid", "")
        if not zid_text:
            if skip:
                return None
            raise self.error('missing zid tag: give it zid:"N" (or zid:"-" to leave it out of the schema)',
                             go_field.line, struct, name)
        if zid_text.strip().startswith("-"):
            return None
        if not _ZID.fullmatch(zid_text):
            raise self.error(f"bad zid tag {zid_text!r}: not a non-negative integer", go_field.line, struct, name)
        type_ref = None
        if not skip:
            try:
                type_ref = self._type_ref(go_field.type)
            except _Unsupported as exc:
                raise self.error(str(exc), go_field.line, struct, name) from None
        return FieldDef(
            zid=int(zid_text), go_name=name, tag_name=msg[0] or name, type=type_ref,
            type_str=type_ref.go if type_ref is not None else "",
            omit_empty="omitempty" in options, skip=type_ref is None,
            deprecated="deprecated" in options or tag.get("deprecated") == "true",
            show_zero="showzero" in options,
        )

    def _type_ref(self, t: GoType) -> TypeRef | None:
        """The type of a field, or None when the reference would make the field Skip."""
        if t.form == "ident":
            return self._named(t.name)
        if t.form == "struct":
            if t.fields:
                raise _Unsupported(f"anonymous struct type {t}: declare it as a named struct")
            return None
        if t.form == "interface":
            if t.body:
                raise _Unsupported(f"interface literal {t}: declare it as a named interface type")
            return TypeRef(Kind.INTF)
        if t.form not in ("pointer", "slice", "array", "map"):
            raise _Unsupported(f"{t.form} type {t} cannot be serialized")
        assert t.elem is not None
        elem = self._type_ref(t.elem)
        if elem is None:
            return None
        if t.form == "pointer":
            return TypeRef(Kind.POINTER, elem=elem)
        if t.form == "slice":
            return TypeRef(Kind.BYTES) if elem.kind in BYTE_KINDS else TypeRef(Kind.SLICE, elem=elem)
        if t.form == "array":
            return TypeRef(Kind.ARRAY, length=self._array_length(t.length), elem=elem)
        assert t.key is not None
        key_kind = _MAP_KEY_KINDS.get(t.key.name) if t.key.form == "ident" else None
        return TypeRef(Kind.MAP, key=TypeRef(key_kind), elem=elem) if key_kind is not None else None

    def _named(self, name: str) -> TypeRef:
        if name in _NAMED_KINDS:
            return TypeRef(_NAMED_KINDS[name])
        if name in self.struct_names:
            return TypeRef(Kind.STRUCT, name=name)
        if name in self.interfaces:
            return TypeRef(Kind.IDENT_IFACE, name=name)
        if any(d.name == name and d.type.form == "struct" for d in self.source.types):
            raise _Unsupported(f"struct type {name} is unexported: the reference compiler leaves it out")
        raise _Unsupported(f"unsupported type {name}: not a primitive, nor a struct or interface of this file")

    def _array_length(self, text: str) -> int:
        length = _go_int(text)
        if length is None:
            const = next((c for c in self.source.consts if c.name == text), None)
            length = _go_int(const.value) if const is not None else None
        if length is None:
            raise _Unsupported(f"array length {text}: not an integer literal or constant of this file")
        if not 0 <= length <= MAX_ARRAY_LENGTH:
            raise _Unsupported(f"array length {length} outside 0..{MAX_ARRAY_LENGTH}")
        return length


def _exported(name: str) -> bool:
    return name[:1].isupper()


def _embedded_name(t: GoType) -> str:
    """The field name of an embedded field (``*pkg.Name`` -> ``Name``)."""
    if t.form == "pointer" and t.elem is not None:
        t = t.elem
    return t.name.rpartition(".")[2] if t.form == "ident" else ""


def _go_int(text: str) -> int | None:
    """The value of a Go integer literal, or None."""
    try:
        return int(text, 8) if _LEGACY_OCTAL.fullmatch(text) else int(text, 0)
    except ValueError:
        return None


def _struct_tag(tag: str) -> dict[str, str]:
    """The ``key:"value"`` pairs of a struct tag, read as reflect.StructTag does
    (up to the first thing that is not a pair; the first of a repeated key counts)."""
    pairs: dict[str, str] = {}
    pos = 0
    while match := _TAG_PAIR.match(tag, pos):
        pairs.setdefault(match.group(1), unquote_go_string(match.group(2)))
        pos = match.end()
    return pairs
