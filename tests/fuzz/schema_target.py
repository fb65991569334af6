"""The schema targets shared by the atheris fuzzer (``run_atheris.py --target=load``
or ``--target=stream``) and the replay of committed inputs.

A schema is untrusted input too (``open_stream`` reads it from the stream), so:

- ``check_load``: the input is the bytes of a ``.z`` (raw), or, when its first
  byte is below 0x80 (a msgpack int, not a schema), the recipe of a schema
  document built field by field from a ``FuzzedDataProvider`` (names Python
  cannot take as they are, sparse and huge zids, odd array lengths, nested and
  unknown kinds), loaded as a dict and as msgpack. Only ``SchemaError`` may escape; a schema that loads must work:
  each struct's zero instance encodes and decodes back to itself, and the
  module ``zebrapack gen`` writes for it compiles and runs.
- ``check_stream``: the input is a stream (``open_stream``), raw, or with a first
  byte below 0x80 a built schema document followed by the rest of the input as
  records. Only ``SchemaError`` and ``DecodeError`` may escape.
"""

from __future__ import annotations

import sys
import types
import warnings
from pathlib import Path
from typing import Any

import atheris
import msgpack

TESTS = Path(__file__).resolve().parent.parent
for folder in (TESTS, TESTS / "fuzz"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from decode_target import FUZZ_MAX_DEPTH, check_error, check_round_trip  # noqa: E402

import zebrapack  # noqa: E402
from zebrapack import DecodeError, SchemaError  # noqa: E402
from zebrapack.codegen import generate_module  # noqa: E402

#: Names a built schema picks from: ordinary ones, and every kind Python cannot take as given.
NAMES = ("A", "B", "Inner", "X", "Y", "s", "\u017f", "class", "class_", "None", "None_", "__slots__", "__dict__",
         "__new__", "__x", "__del__", "__module__", "__weakref__", "__qualname__", "__dataclass_fields__",
         "zebrapack_unknown", "_", "self", "dataclass", "field", "datetime", "zebrapack", "schema", "_A",
         "\uff21", "fi", "\ufb01", "int", "typing", "annotations", "_SCHEMA", "1x", "", "a b")
#: Kinds a built type picks from (22: a struct of the schema by name, or an interface).
KINDS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 24, 25, 26, 27, 28, 29, 0, 99)
#: What an array's Domain Str may say.
LENGTHS = ("0", "1", "3", "16", "\u00b2", "1" * 5000, "-1", "N", "", "1048576", "1048577", "0x10")
#: FieldTypeStr spellings.
TYPE_STRS = ("", "int", "[]" * 1000 + "int", "*A", "[3]B", "map[string]Inner", "struct{}", "[", "pkg.A",
             "struct{ A int }", "msgp.Raw", "[]msgp.Number", "*Inner")
#: Largest fixed array a built schema declares (zero instances are built and compared).
SMALL_LENGTH = 64


def check_load(data: bytes) -> None:
    if data and data[0] < 0x80:
        document = build_document(atheris.FuzzedDataProvider(data[1:]))
        for source in (document, pack(document)):
            try_load(source, bool(data[-1] & 1))
    else:
        try_load(data, bool(data) and bool(data[-1] & 1))


def check_stream(data: bytes) -> None:
    if data and data[0] < 0x80:
        provider = atheris.FuzzedDataProvider(data[1:])
        document = build_document(provider)
        stream = pack(document) + provider.ConsumeBytes(provider.remaining_bytes())
    else:
        stream = data
    try:
        with zebrapack.open_stream(stream, max_depth=FUZZ_MAX_DEPTH) as opened:
            for record in opened:
                check_round_trip(opened.schema, None, record)
    except DecodeError as error:
        check_error(error, len(stream))
    except SchemaError:
        pass


def pack(document: Any) -> bytes:
    return msgpack.packb(document, use_bin_type=True)


def try_load(source: Any, preserve_unknown: bool) -> None:
    try:
        schema = zebrapack.load(source, max_depth=FUZZ_MAX_DEPTH, preserve_unknown=preserve_unknown)
    except SchemaError:
        return
    check_loaded(schema)


def check_loaded(schema: zebrapack.Schema) -> None:
    """A schema that loads works: zero instances round-trip (in msgp mode when a struct
    holds a field without a zid, which zebrapack mode cannot key), the generated module
    runs."""
    mode = encode_mode(schema.model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for name, cls in schema.types.items():
            instance = cls()
            assert schema.decode(schema.encode(instance, mode=mode), name) == instance
    try:
        source = generate_module(schema.model)
    except SchemaError:
        return                      # names the generated module keeps for itself
    module = types.ModuleType("zebrapack_fuzz_generated")
    sys.modules[module.__name__] = module      # dataclasses look their module up
    try:
        exec(compile(source, "<generated>", "exec"), module.__dict__)    # noqa: S102 - our own generated code
    finally:
        del sys.modules[module.__name__]
    generated = module.schema
    with warnings.catch_warnings():     # a deprecated field's zero array is written, with a warning
        warnings.simplefilter("ignore", DeprecationWarning)
        for name in generated.structs:
            instance = generated.types[name]()
            assert generated.decode(generated.encode(instance, mode=mode), name) == instance


def encode_mode(model: zebrapack.SchemaDef) -> str:
    """msgp when a struct of the schema has a field without a zid, else zebrapack."""
    return "msgp" if any(struct.field_without_zid is not None for struct in model.structs.values()) else "zebrapack"


def build_document(provider: atheris.FuzzedDataProvider) -> dict[str, Any]:
    """A schema document chosen by the provider's bytes (structure first, values second)."""
    struct_names = [pick(provider, NAMES) for _ in range(provider.ConsumeIntInRange(1, 4))]
    structs: dict[str, Any] = {}
    for name in struct_names:
        fields = []
        for index in range(provider.ConsumeIntInRange(0, 5)):
            go_name = pick(provider, NAMES)
            fields.append({
                "Zid": pick_zid(provider, index),
                "FieldGoName": go_name,
                "FieldTagName": pick(provider, ("", go_name, "t", "class")),
                "FieldTypeStr": pick(provider, TYPE_STRS),
                "FieldFullType": build_type(provider, struct_names, 0),
                **({"OmitEmpty": True} if provider.ConsumeBool() else {}),
                **({"Deprecated": True} if provider.ConsumeBool() else {}),
                **({"Skip": True} if provider.ConsumeIntInRange(0, 7) == 0 else {}),
            })
        structs[name] = {"StructName": name, "Fields": fields}
    return {"SourcePackage": "fuzz", "Structs": structs}


def pick(provider: atheris.FuzzedDataProvider, choices: tuple[Any, ...]) -> Any:
    return choices[provider.ConsumeIntInRange(0, len(choices) - 1)]


def pick_zid(provider: atheris.FuzzedDataProvider, index: int) -> Any:
    choice = provider.ConsumeIntInRange(0, 5)
    if choice == 0:
        return provider.ConsumeIntInRange(0, 65535)
    if choice == 1:
        return pick(provider, (65535, 65536, -1, 2**31, 2**63, "0", True, 127, 128))
    return index


def build_type(provider: atheris.FuzzedDataProvider, struct_names: list[str], depth: int) -> Any:
    kind = pick(provider, KINDS) if depth < 6 else provider.ConsumeIntInRange(1, 21)
    ztype: dict[str, Any] = {"Kind": kind, "Str": ""}
    if kind in (22, 25, 29):
        ztype["Str"] = pick(provider, (*struct_names, "Other", "", "x.Y", "msgp.Raw", "msgp.Number", "Struct"))
    elif kind in (24, 26, 27, 28):
        if kind == 27:
            text = pick(provider, LENGTHS)
            ztype["Domain"] = {"Kind": provider.ConsumeIntInRange(0, SMALL_LENGTH), "Str": text}
            if text.isascii() and text.isdigit() and len(text) < 8 and int(text) > SMALL_LENGTH:
                ztype["Domain"]["Str"] = str(SMALL_LENGTH)   # huge zero values are the decode target's business
        else:
            ztype["Domain"] = build_type(provider, struct_names, depth + 1)
        if kind in (24, 27):
            ztype["Range"] = build_type(provider, struct_names, depth + 1)
    return ztype
