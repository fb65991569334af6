"""Compiling a Go schema file into a schema, without Go (``zebrapack schema``, ``schema_from_go``).

The rules are the reference compiler's (``zebrapack -write-schema``, and with
``unexported=True`` its ``-unexported``):

- exported struct types with at least one field are the schema's structs (the
  reference leaves ``type S struct{}`` out), and so is a named type of one
  (``type FastAlias TestFast``: a struct of its own name with the same fields);
  with ``unexported``, unexported structs and fields are in the schema too,
  under their own names (what the reference does when it skips
  ``ast.FileExports``). Interface types declared in the file type interface
  fields (IDENTiface); functions, methods, variables and constants other than
  the schema id and array lengths are ignored;
- a named type of any other kind (``type UserID uint64``, ``type Tags []string``,
  ``type Block [32]byte``, named types of named types) is its underlying type in
  the schema, as the reference resolves it: ``FieldTypeStr`` keeps the name as
  spelled (``UserID``, ``*UserID``, ``[]Role``), the type tree is the underlying
  one. The generator tests element kinds, not names: a slice of a named byte
  type (``[]MyByte``) is an array of integers (only ``[]byte`` spelled so is
  ``bin``), an array of one (``[N]MyByte``) is ``bin``;
- ``//msgp:shim T as:P using:to/from`` makes every use of the named type ``T``
  (``*T``: of ``T`` under its pointer) the primitive ``P`` in the schema, as the
  reference's shim does; ``msgp.Raw`` and ``msgp.Number`` of the runtime are the
  kinds RAW and NUMBER; ``msgp.RawExtension`` tagged ``msg:",extension"`` (and
  ``*msgp.RawExtension``) is the Ext kind, as the reference's tag makes it;
- ``const zebraSchemaId64`` (an integer literal, hex allowed) is the schema id;
- the directive ``//msgp:ignore A B`` leaves the structs it names out of the
  schema; ``//msgp:tuple`` and ``//msgp:shim`` naming a struct of the schema are
  errors (the wire is then something the schema cannot describe);
- unexported fields are left out (without ``unexported``); every other field
  needs a ``zid:"N"`` tag, and a struct's zids run from 0 without gaps or repeats;
  with ``msgp`` (a schema for the reference's ``-msgp``, which keys fields by
  their tag names) a field may go without one: it gets ``Zid -3`` ("not
  given"), as the reference records it, and a line may declare several fields.
  A field tagged ``msg:"-"`` or ``zid:"-"`` without a zid is a Skip field
  with ``Zid -2`` ("no zid"), kept in the schema as the reference keeps it;
- ``msg:"name,omitempty,deprecated,showzero"`` sets the tag name and flags
  (``deprecated:"true"`` deprecates too; other options, like ``iface``, change
  nothing in the schema); ``msg:"-"`` and the type ``struct{}`` make a Skip field;
- only ``[]byte`` spelled so is ``bin``: ``[]uint8``, ``[N]uint8`` and
  ``[][]uint8`` are arrays of integers (element kind 8), and ``[N]byte`` a fixed
  ``bin`` (element kind 12), as the reference generator works on the spelling;
- an array length is an integer literal, a constant of the file, or a constant
  of the msgp runtime (``msgp.ExtensionPrefixSize`` and its neighbours);
  ``FieldTypeStr`` keeps the spelling (``[msgp.ExtensionPrefixSize]float64``);
- a map keyed by anything but string, int, int32 or int64 as spelled (a named
  key type included, ``map[OrgID]V``) cannot be serialized by the reference:
  the field is Skip (``UMap`` in the vectors);
- channels, functions, anonymous structs, interface literals with methods
  and types of other packages (but ``time.Time`` and the msgp runtime's) are
  errors, as are unknown type names: the reference makes some of these Skip
  fields silently, or writes code that calls a method the type lacks; a schema
  compiler that drops a field without a word would lose data, so we refuse
  them, saying what the reference does with them.

Errors are ``GoSourceError``s naming the file, the line, the struct and the field.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from types import MappingProxyType

from .._core import DEFAULT_MAX_DEPTH
from .._errors import SchemaError
from ..evolution.compat import check_zid_sequence
from ..schema.document import schema_document
from ..schema.loader import Schema
from ..schema.model import (
    GO_PRIMITIVE_NAMES,
    MAX_ARRAY_LENGTH,
    MSGP_RUNTIME_KINDS,
    FieldDef,
    Kind,
    SchemaDef,
    StructDef,
    TypeRef,
    parse_schema,
)
from ..schema.type_spelling import (
    GoDirective,
    GoField,
    GoFile,
    GoType,
    GoTypeDecl,
    GoTypeSyntaxError,
    parse_go_file,
    unquote_go_string,
)

#: The constant that holds the schema id.
SCHEMA_ID_CONST = "zebraSchemaId64"
#: The zid the reference records for a Skip field that has none (``msg:"-"`` without ``zid``).
NO_ZID = -2
#: The zid the reference records for a field without a zid tag ("not given": -msgp schemas).
ZID_NOT_GIVEN = -3

_NAMED_KINDS = {name: kind for kind, name in GO_PRIMITIVE_NAMES.items()
                if kind not in (Kind.BYTES, Kind.INTF)} | {"any": Kind.INTF}
#: The primitives a shim's ``as:`` may name (gen.Ident's table), by spelling.
_SHIM_KINDS = {name: kind for kind, name in GO_PRIMITIVE_NAMES.items()}
#: The map keys the reference can serialize; any other makes the field Skip.
_MAP_KEY_KINDS = {"string": Kind.STRING, "int": Kind.INT, "int32": Kind.INT32, "int64": Kind.INT64}
#: The exported integer constants of the reference runtime (package msgp: size.go,
#: extension.go) that a schema may use as array lengths, as the reference resolves them.
MSGP_CONSTANTS: Mapping[str, int] = MappingProxyType({
    "Int64Size": 9, "IntSize": 9, "UintSize": 9, "Int8Size": 2, "Int16Size": 3, "Int32Size": 5,
    "Uint8Size": 2, "ByteSize": 2, "Uint16Size": 3, "Uint32Size": 5, "Uint64Size": 9,
    "Float64Size": 9, "Float32Size": 5, "Complex64Size": 10, "Complex128Size": 18,
    "TimeSize": 15, "BoolSize": 1, "NilSize": 1, "MapHeaderSize": 5, "ArrayHeaderSize": 5,
    "BytesPrefixSize": 5, "StringPrefixSize": 5, "ExtensionPrefixSize": 6,
    "Complex64Extension": 3, "Complex128Extension": 4, "TimeExtension": 5,
})
_ZID = re.compile(r"\+?[0-9]+")
_LEGACY_OCTAL = re.compile(r"0[0-7_]+")
#: One ``key:"value"`` pair of a struct tag (reflect's syntax).
_TAG_PAIR = re.compile(r' *([^\x00- :"\x7f]+):("(?:[^"\\]|\\.)*")')
#: The reference generator inlines a type of the file into its users when its complexity is below this.
_MAX_COMPLEX = 5
_UNEXPORTED_HINT = "zebrapack schema --unexported, or unexported=True, includes unexported structs and fields"


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


def compile_go_schema(source: str, path: str = "schema.go", *, unexported: bool = False,
                      msgp: bool = False) -> SchemaDef:
    """The schema of Go source text; ``path`` is its ``SourcePath`` and the file errors name.
    ``unexported`` includes unexported structs and fields (the reference's ``-unexported``);
    ``msgp``: a schema for ``-msgp`` only, whose fields need no zid tags."""
    try:
        parsed = parse_go_file(source)
    except GoTypeSyntaxError as exc:
        raise GoSourceError(f"syntax error: {exc}", path, exc.line) from None
    return _Compiler(parsed, path, unexported, msgp).schema()


def read_go_schema(path: str | os.PathLike[str], *, unexported: bool = False, msgp: bool = False) -> SchemaDef:
    """The schema of a Go source file."""
    name = os.fspath(path)
    try:
        with open(name, encoding="utf-8") as handle:     # OSError (FileNotFoundError, ...) as for any file
            source = handle.read()
    except UnicodeDecodeError as exc:
        raise SchemaError(f"{name}: Go source is UTF-8: {exc}") from exc
    return compile_go_schema(source, name, unexported=unexported, msgp=msgp)


def schema_from_go(path: str | os.PathLike[str], *, unexported: bool = False, msgp: bool = False,
                   types: object = None, max_depth: int = DEFAULT_MAX_DEPTH,
                   preserve_unknown: bool = False) -> Schema:
    """Compile a Go schema file (struct types with ``zid`` tags) as the reference compiler
    does, and load the result like ``zebrapack.load`` (same options). ``unexported``
    includes unexported structs and fields, like the reference's ``-unexported``;
    ``msgp``: fields may go without zid tags (a schema for ``-msgp`` only)."""
    return Schema(read_go_schema(path, unexported=unexported, msgp=msgp), types, max_depth=max_depth,
                  preserve_unknown=preserve_unknown)


class _Unsupported(Exception):
    """A field type the schema cannot hold (its message says why)."""


class _Compiler:
    def __init__(self, source: GoFile, path: str, unexported: bool, msgp: bool = False) -> None:
        self.source = source
        self.path = path
        self.unexported = unexported
        self.msgp = msgp
        self.lines: dict[tuple[str | None, str | None], int] = {}
        self.declared: dict[str, GoTypeDecl] = {}
        for decl in source.types:
            if decl.name in self.declared:
                raise self.error(f"type {decl.name} declared twice", decl.line)
            self.declared[decl.name] = decl
        #: The schema's structs and the lines of their fields the reference sees: struct
        #: types, and named types of them (the reference copies the struct under the name).
        self.structs: dict[str, list[GoField]] = {}
        self.declared_structs: set[str] = set()
        for decl in source.types:
            struct_type = self._struct_behind(decl)
            if struct_type is None:
                continue
            self.declared_structs.add(decl.name)
            if self.visible(decl.name):
                fields = [f for f in struct_type.fields if self.visible_field(f)]
                if fields:  # the reference leaves a struct without fields out
                    self.structs[decl.name] = fields
        self.interfaces = {d.name for d in source.types if d.type.form == "interface"}
        self.ignored: set[str] = set()
        self.shims: dict[str, Kind] = {}
        self.resolving: list[str] = []     # named types being resolved (a cycle is an error)
        self.measured: dict[str, list[GoType]] = {}   # a struct's field types (Skip fields left out)
        for directive in source.directives:
            self._apply(directive)

    def _struct_behind(self, decl: GoTypeDecl) -> GoType | None:
        """The struct type a declaration names, through named types of it, or None."""
        seen = {decl.name}
        t = decl.type
        while t.form == "ident" and t.name in self.declared and t.name not in seen:
            seen.add(t.name)
            t = self.declared[t.name].type
        return t if t.form == "struct" else None

    def _apply(self, directive: GoDirective) -> None:
        """A ``//msgp:`` directive, as the reference applies it to the schema's structs."""
        words = [word.strip() for word in directive.text.split(" ")]
        names = [name for name in words[1:] if name in self.structs]
        if words[0] == "ignore":  # the reference deletes the types: they are not in the schema
            self.ignored.update(names)
            for name in names:
                del self.structs[name]
        elif words[0] == "shim" and not names:
            self._shim(words, directive.line)
        elif words[0] in ("tuple", "shim") and names:
            what = "encodes it as a msgpack array" if words[0] == "tuple" else "replaces it by another type"
            raise self.error(f"//msgp:{words[0]} {names[0]} {what}, which the schema cannot say: "
                             "zebrapack cannot read or write such a struct", directive.line, names[0])

    def _shim(self, words: list[str], line: int) -> None:
        """``//msgp:shim T as:P using:to/from``: every use of T is P in the schema (the
        reference's applyShim: a leading * is dropped, P is one of gen.Ident's primitives)."""
        if len(words) != 4:
            raise self.error(f"shim directive should have 3 arguments; found {len(words) - 1} (the reference "
                             "refuses it too)", line)
        name = words[1].removeprefix("*")
        base = words[2].removeprefix("as:")
        if base not in _SHIM_KINDS:
            raise self.error(f"//msgp:shim {words[1]} as:{base}: the reference shims to a primitive type "
                             f"({', '.join(sorted(_SHIM_KINDS))}); {base} would be a type it calls methods of",
                             line)
        self.shims[name] = _SHIM_KINDS[base]

    def visible(self, name: str) -> bool:
        """Whether the reference sees a declaration or field of this name."""
        return bool(name) and (self.unexported or _exported(name))

    def visible_field(self, go_field: GoField) -> bool:
        return any(self.visible(name) for name in go_field.names or (_embedded_name(go_field.type),))

    def error(self, message: str, line: int, struct: str | None = None, field: str | None = None) -> GoSourceError:
        return GoSourceError(message, self.path, line, struct, field)

    def schema(self) -> SchemaDef:
        structs = {}
        for decl in self.source.types:
            if decl.name not in self.structs:
                continue
            self.lines[decl.name, None] = decl.line
            fields = []
            for go_field in self.structs[decl.name]:
                for f in self._fields(decl.name, go_field):
                    fields.append(f)
                    if not f.skip:
                        self.measured.setdefault(decl.name, []).append(go_field.type)
            structs[decl.name] = StructDef(decl.name, tuple(fields))
        for name, struct in structs.items():
            structs[name] = dataclasses.replace(struct, fields=tuple(
                f if f.type is None else dataclasses.replace(f, type=self._inline(f.type, name))
                for f in struct.fields))
        model = SchemaDef(
            source_package=self.source.package,
            structs=MappingProxyType(structs),
            # a str of the document (UTF-8): a file name's undecodable bytes as backslash escapes
            source_path=self.path.encode("utf-8", "backslashreplace").decode("utf-8"),
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

    def _fields(self, struct: str, go_field: GoField) -> list[FieldDef]:
        """The schema fields of a line of a struct type (one per name the reference sees)."""
        names = [name for name in go_field.names or (_embedded_name(go_field.type),) if self.visible(name)]
        for name in names:
            self.lines[struct, name] = go_field.line
        try:
            tag = _struct_tag(unquote_go_string(go_field.tag) if go_field.tag else "")
        except GoTypeSyntaxError as exc:
            raise self.error(f"malformed struct tag: {exc}", go_field.line, struct, names[0]) from None
        msg = tag.get("msg", "").split(",")
        options = {option.strip() for option in msg[1:]}
        deprecated = "deprecated" in options or tag.get("deprecated") == "true"
        zid_text = tag.get("zid", "").strip(" \t")
        if msg[0] == "-" and not zid_text or zid_text.startswith("-"):
            # A Go-only field: the reference keeps it as a Skip field without a zid
            # (one per name of a multi-name line, each tagged with its own name).
            tag_name = msg[0] if len(names) == 1 and msg[0] else None
            return [FieldDef(zid=NO_ZID, go_name=name, tag_name=tag_name or name, type=None, skip=True,
                             omit_empty="omitempty" in options, deprecated=deprecated,
                             show_zero="showzero" in options) for name in names]
        if self.msgp and not zid_text:      # no zid: each name a field of its own, keyed by its name
            return [self._field(struct, name, go_field, ZID_NOT_GIVEN, msg[0] if len(names) == 1 else "", msg,
                                options, deprecated) for name in names]
        if len(names) > 1:
            raise self.error(f"fields {', '.join(names)} share one declaration: give each its own line and zid",
                             go_field.line, struct, names[0])
        name = names[0]
        if not zid_text:
            raise self.error('missing zid tag: give it zid:"N" (or msg:"-" to make it a Skip field without one; '
                             "a schema for -msgp only goes without zids: zebrapack schema --msgp)",
                             go_field.line, struct, name)
        if not _ZID.fullmatch(zid_text):
            raise self.error(f"bad zid tag {zid_text!r}: not a non-negative integer", go_field.line, struct, name)
        return [self._field(struct, name, go_field, int(zid_text), msg[0], msg, options, deprecated)]

    def _field(self, struct: str, name: str, go_field: GoField, zid: int, tag_name: str, msg: list[str],
               options: set[str], deprecated: bool) -> FieldDef:
        """One field of a struct line (its tag parsed)."""
        type_ref = None
        if msg[0] != "-":
            try:
                # msg:"name,extension" (exactly so, as the reference tests it) makes a type an extension
                type_ref = (self._extension(go_field.type) if len(msg) == 2 and msg[1] == "extension"
                            else self._type_ref(go_field.type))
            except _Unsupported as exc:
                raise self.error(str(exc), go_field.line, struct, name) from None
        return FieldDef(
            zid=zid, go_name=name, tag_name=tag_name or name, type=type_ref,
            type_str=str(go_field.type) if type_ref is not None else "",
            omit_empty="omitempty" in options, skip=type_ref is None, deprecated=deprecated,
            show_zero="showzero" in options,
        )

    def _type_ref(self, t: GoType) -> TypeRef | None:
        """The type of a field, or None when the reference would make the field Skip."""
        if t.form == "ident" and t.name in self.shims:
            return TypeRef(self.shims[t.name])
        if t.form == "ident":
            return self._named(t.name)
        if t.form == "struct":
            if t.fields:
                raise _Unsupported(f"anonymous struct type {t}: declare it as a named struct (the reference "
                                   "inlines it, with no name a schema could give its struct)")
            return None
        if t.form == "interface":
            if t.body:
                raise _Unsupported(f"interface literal {t}: declare it as a named interface type")
            return TypeRef(Kind.INTF)
        if t.form not in ("pointer", "slice", "array", "map"):
            raise _Unsupported(f"{t.form} type {t} cannot be serialized: the reference warns that the field is "
                               "unsupported and makes it a Skip field; say so with msg:\"-\"")
        assert t.elem is not None
        if t.form == "slice" and t.elem.form == "ident" and t.elem.name == "byte":
            return TypeRef(Kind.BYTES)  # the reference's one bin spelling: []uint8 is an array of integers
        elem = self._type_ref(t.elem)
        if elem is None:
            return None
        if t.form == "pointer":
            return TypeRef(Kind.POINTER, elem=elem)
        if t.form == "slice":
            return TypeRef(Kind.SLICE, elem=elem)
        if t.form == "array":
            return TypeRef(Kind.ARRAY, length=self._array_length(t.length), elem=elem)
        assert t.key is not None
        key_kind = _MAP_KEY_KINDS.get(t.key.name) if t.key.form == "ident" else None
        return TypeRef(Kind.MAP, key=TypeRef(key_kind), elem=elem) if key_kind is not None else None

    def _inline(self, ref: TypeRef, root: str) -> TypeRef:
        """A field type of struct ``root`` with the structs the reference generator
        inlines into it marked (its ``propInline``): every struct but ``root`` whose
        complexity is below 5."""
        if ref.kind == Kind.STRUCT:
            weight = 1 + sum(self._complexity(t) for t in self.measured.get(ref.name, ()))
            return dataclasses.replace(ref, inlined=ref.name != root and weight < _MAX_COMPLEX)
        if ref.elem is None:
            return ref
        return dataclasses.replace(ref, elem=self._inline(ref.elem, root))

    def _complexity(self, t: GoType) -> int:
        """gen's ``Complexity`` of a field type as declared: a struct counts 1 more than
        its fields (Skip fields left out), a name 1 (a shimmed one 2, its copy
        converting), ``[]byte`` 1, a pointer, slice or array 1 more than its element, a
        map 2 more than its value.

        The generator measures a type as it stands when Go's map order reaches it:
        with the types its fields name inlined into it already, or not yet (a named
        scalar inlined counts 2, a struct its own measure). A struct below 5 as
        declared but not once inlined into is inlined in some runs and not in others
        (def.go's ``OmitEmptyInside1`` was, its ``FileHandle`` was not); we measure
        as declared, what one counts reading the file."""
        if t.form == "ident":
            return 1 if t.name not in self.shims or "." in t.name else 2
        if t.elem is None or t.form == "slice" and t.elem.form == "ident" and t.elem.name == "byte":
            return 1
        return (2 if t.form == "map" else 1) + self._complexity(t.elem)

    @staticmethod
    def _extension(t: GoType) -> TypeRef:
        """A field tagged msg:",extension": its named type (or pointer to one) is an extension."""
        if t.form == "ident":
            return TypeRef(Kind.EXT)
        if t.form == "pointer" and t.elem is not None and t.elem.form == "ident":
            return TypeRef(Kind.POINTER, elem=TypeRef(Kind.EXT))
        raise _Unsupported(f"{t} tagged extension: the reference couldn't cast it to an extension (a named type "
                           "or a pointer to one) and leaves the field out")

    def _named(self, name: str) -> TypeRef:
        if name in _NAMED_KINDS:
            return TypeRef(_NAMED_KINDS[name])
        if name in self.structs:
            return TypeRef(Kind.STRUCT, name=name)
        if name in self.interfaces:
            return TypeRef(Kind.IDENT_IFACE, name=name)
        if name in self.declared_structs:
            if not self.visible(name):
                raise _Unsupported(f"struct type {name} is unexported: the reference compiler leaves it out; "
                                   f"{_UNEXPORTED_HINT}")
            if name in self.ignored:
                raise _Unsupported(f"struct type {name} is left out of the schema by //msgp:ignore")
            raise _Unsupported(f"struct type {name} has no fields: the reference compiler leaves it out")
        if name in self.declared:
            return self._underlying(self.declared[name])
        qualifier, _, short = name.rpartition(".")
        if qualifier:
            return self._runtime_type(qualifier, short, name)
        raise _Unsupported(f"unsupported type {name}: not a primitive, nor a type declared in this file "
                           "(the reference would write code calling its MarshalMsg)")

    def _underlying(self, decl: GoTypeDecl) -> TypeRef:
        """A named type of another kind than struct: its underlying type, as the reference
        resolves it (FieldTypeStr keeps the name)."""
        name = decl.name
        if not self.visible(name):
            raise _Unsupported(f"type {name} is unexported: the reference compiler leaves it out; {_UNEXPORTED_HINT}")
        if name in self.resolving:
            raise _Unsupported(f"type {name} is defined by itself ({' -> '.join([*self.resolving, name])}): "
                               "the reference cannot resolve it")
        if decl.type.form in ("func", "chan") or decl.type.form == "interface" and decl.type.body:
            raise _Unsupported(f"type {name} is a {decl.type.form} type ({decl.type}): the reference cannot "
                               "serialize it and writes code calling methods it lacks")
        self.resolving.append(name)
        try:
            resolved = self._type_ref(decl.type)
        finally:
            self.resolving.pop()
        if resolved is None:
            raise _Unsupported(f"type {name} ({decl.type}) cannot be serialized by the reference, and a field of "
                               "the named type is not made Skip as one of the type itself would be: the "
                               "generator leaves the type out and writes code calling methods it lacks")
        return resolved

    def _runtime_type(self, qualifier: str, short: str, name: str) -> TypeRef:
        """A type of another package: the msgp runtime's Raw, Number and Extension, else an error."""
        path = next((unquote_go_string(i.path) for i in self.source.imports
                     if (i.name or unquote_go_string(i.path).rpartition("/")[2]) == qualifier), None)
        if path is not None and path.rpartition("/")[2] == "msgp":
            if short in MSGP_RUNTIME_KINDS:
                return TypeRef(MSGP_RUNTIME_KINDS[short])
            if short == "Extension":
                return TypeRef(Kind.EXT)
            if short == "RawExtension":
                raise _Unsupported(f"{name} without msg:\"name,extension\": the reference makes a field an "
                                   "extension only when its msg tag is exactly a name and extension (no other "
                                   "option after them)")
        raise _Unsupported(f"type {name} of another package: the reference writes code calling its "
                           "MarshalMsg, which the schema cannot describe (known: time.Time, msgp.Raw, "
                           "msgp.Number, msgp.Extension, msgp.RawExtension with msg:\",extension\")")

    def _array_length(self, text: str) -> int:
        length = _go_int(text)
        qualifier, _, constant = text.rpartition(".")
        if length is None and qualifier:
            length = self._package_constant(qualifier, constant)
        elif length is None:
            const = next((c for c in self.source.consts if c.name == text), None)
            length = _go_int(const.value) if const is not None else None
        if length is None:
            raise _Unsupported(f"array length {text}: not an integer literal, a constant of this file "
                               "or of the msgp runtime")
        if not 0 <= length <= MAX_ARRAY_LENGTH:
            raise _Unsupported(f"array length {length} outside 0..{MAX_ARRAY_LENGTH}")
        return length

    def _package_constant(self, qualifier: str, constant: str) -> int | None:
        """The value of ``qualifier.constant`` when the qualifier names the imported msgp runtime."""
        for imported in self.source.imports:
            path = unquote_go_string(imported.path)
            if (imported.name or path.rpartition("/")[2]) == qualifier:
                if path.rpartition("/")[2] != "msgp":
                    raise _Unsupported(f"array length {qualifier}.{constant}: the constants of {path} are "
                                       "unknown (only the msgp runtime's are known without Go)")
                if constant not in MSGP_CONSTANTS:
                    raise _Unsupported(f"array length {qualifier}.{constant}: the msgp runtime has no such "
                                       f"integer constant (known: {', '.join(sorted(MSGP_CONSTANTS))})")
                return MSGP_CONSTANTS[constant]
        raise _Unsupported(f"array length {qualifier}.{constant}: no import named {qualifier}")


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
