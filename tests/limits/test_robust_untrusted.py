"""Untrusted schemas and streams (issue 10): only our errors, memory bounded by
the input, nothing read from disk, nothing lost, warnings through ``warnings``.
The inputs are the issue's own."""

from __future__ import annotations

import re
import sys
import threading
import tracemalloc
import types
import warnings
from pathlib import Path
from typing import Any

import msgpack
import pytest

import zebrapack
from zebrapack import DecodeError, EncodeError, SchemaError
from zebrapack.codegen import generate_module
from zebrapack.sources.from_dataclasses import schema_from_dataclasses

INT64 = {"Kind": 17, "Str": "int64"}


def field(zid: int, name: str, full_type: Any = INT64, type_str: str = "") -> dict[str, Any]:
    return {"Zid": zid, "FieldGoName": name, "FieldTypeStr": type_str, "FieldFullType": full_type}


def schema_of(**structs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"Structs": {name: {"StructName": name, "Fields": fields} for name, fields in structs.items()}}


def array(length: int | str, element: Any) -> dict[str, Any]:
    return {"Kind": 27, "Str": "Array", "Domain": {"Kind": 2, "Str": str(length)}, "Range": element}


def peak_allocation(action: Any) -> int:
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# -- 1. stream content is never a path -------------------------------------------------

@pytest.mark.parametrize("stream", ["a92f6465762f7a65726f", "0a", "c0", "90"])
def test_open_stream_whose_first_object_is_not_a_map_is_a_decode_error(stream: str) -> None:
    with pytest.raises(DecodeError, match="does not start with a schema"):
        zebrapack.open_stream(bytes.fromhex(stream))


def test_open_stream_never_opens_a_file_named_in_the_stream(tmp_path: Path) -> None:
    schema_file = tmp_path / "s.z"
    schema_file.write_bytes(msgpack.packb(schema_of(A=[field(0, "X")])))
    with pytest.raises(DecodeError):
        zebrapack.open_stream(msgpack.packb(str(schema_file)))


def test_load_of_bytes_naming_a_path_is_a_schema_error(tmp_path: Path) -> None:
    schema_file = tmp_path / "s.z"
    schema_file.write_bytes(msgpack.packb(schema_of(A=[field(0, "X")])))
    with pytest.raises(SchemaError, match="a schema is a map"):
        zebrapack.load(msgpack.packb(str(schema_file)))


# -- 1. names Python cannot take as given ------------------------------------------------

REFUSED_FIELD_NAMES = [
    ["class", "class_"], ["\u017f", "s"], ["__slots__"], ["__dict__"], ["__qualname__"], ["__dataclass_fields__"],
    ["__new__"], ["__module__"], ["__weakref__"], ["__x"], ["__del__"], ["zebrapack_unknown"],
]


@pytest.mark.parametrize("names", REFUSED_FIELD_NAMES, ids="+".join)
@pytest.mark.parametrize("preserve_unknown", [False, True])
@pytest.mark.parametrize("as_bytes", [False, True])
def test_field_names_that_cannot_be_attributes_are_schema_errors_naming_struct_and_field(
        names: list[str], preserve_unknown: bool, as_bytes: bool) -> None:
    document = schema_of(Rec=[field(zid, name) for zid, name in enumerate(names)])
    source = msgpack.packb(document) if as_bytes else document
    with pytest.raises(SchemaError) as caught:
        zebrapack.load(source, preserve_unknown=preserve_unknown)
    assert caught.value.struct == "Rec"
    assert caught.value.field == names[-1]


@pytest.mark.parametrize(("go_name", "attr"), [("class", "class_"), ("None", "None_"), ("\u017f", "s"),
                                               ("\uff21bc", "Abc"), ("\ufb01le", "file")])
def test_a_go_name_gets_its_documented_attribute_and_keeps_its_name_on_the_wire(go_name: str, attr: str) -> None:
    schema = zebrapack.load(schema_of(Rec=[field(0, go_name), field(1, "Other")]))
    instance = schema.types.Rec(**{attr: 5})
    data = schema.encode(instance, mode="msgp")
    assert msgpack.packb(go_name) in data                        # the Go name is the msgp key
    assert schema.decode(data, "Rec") == instance
    assert schema.decode(schema.encode(instance)) == instance


def test_an_attribute_error_at_decode_names_the_go_field() -> None:
    schema = zebrapack.load(schema_of(Rec=[field(0, "\u017f")]))
    with pytest.raises(DecodeError) as caught:
        schema.decode(b"\x82\xff\xa3Rec\x00\xa1x")
    assert caught.value.path == "Rec.\u017f"


@pytest.mark.parametrize("struct_name", ["__slots__", "__init__", "__x"])
def test_struct_names_that_cannot_be_class_names_are_schema_errors(struct_name: str) -> None:
    with pytest.raises(SchemaError) as caught:
        zebrapack.load(schema_of(**{struct_name: [field(0, "X")]}))
    assert caught.value.struct == struct_name


def test_struct_classes_are_attributes_of_types_by_their_python_names() -> None:
    schema = zebrapack.load(schema_of(**{"class": [field(0, "X")], "\u017fpan": [field(0, "Y")]}))
    assert schema.types.class_ is schema.types["class"]
    assert schema.types.span is schema.types["\u017fpan"]      # what Python reads types.ſpan as
    assert {"class_", "span"} <= set(dir(schema.types))


def test_struct_names_equal_in_python_are_a_schema_error() -> None:
    with pytest.raises(SchemaError, match="both 's' in Python"):
        zebrapack.load(schema_of(**{"\u017f": [field(0, "X")], "s": [field(0, "Y")]}))


def test_generated_modules_use_the_same_attribute_names() -> None:
    schema = zebrapack.load(schema_of(Rec=[field(0, "class"), field(1, "\u017f")], **{"\u017fpan": []}))
    source = generate_module(schema.model)
    assert "class_: int = 0" in source and "    s: int = 0" in source
    module = types.ModuleType("zebrapack_test_generated_names")
    sys.modules[module.__name__] = module
    try:
        exec(compile(source, "<generated>", "exec"), module.__dict__)    # noqa: S102
    finally:
        del sys.modules[module.__name__]
    namespace = module.__dict__
    generated = namespace["schema"]
    record = namespace["Rec"](class_=1, s=2)
    assert generated.encode(record) == schema.encode(schema.types.Rec(class_=1, s=2))
    assert namespace["span"] is generated.types["\u017fpan"]


def test_schema_from_dataclasses_round_trips_keyword_attributes() -> None:
    from dataclasses import dataclass
    from dataclasses import field as dataclass_field

    @dataclass(slots=True)
    class Rec:
        class_: int = dataclass_field(default=0, metadata={"zid": 0})

    schema = schema_from_dataclasses(Rec, package="p")
    assert schema.decode(schema.encode(Rec(class_=3))) == Rec(class_=3)


@pytest.mark.parametrize("length", ["\u00b2", "1" * 5000])
def test_array_lengths_that_are_not_small_ascii_numbers_are_schema_errors(length: str) -> None:
    with pytest.raises(SchemaError, match="array length"):
        zebrapack.load(schema_of(Rec=[field(0, "X", array(length, INT64))]))


def test_a_field_type_str_nested_1000_deep_is_a_schema_error() -> None:
    with pytest.raises(SchemaError, match="FieldTypeStr nests"):
        zebrapack.load(schema_of(Rec=[field(0, "X", INT64, "[]" * 1000 + "int")]))


# -- 2. memory bounded by the input ------------------------------------------------------

def test_schema_memory_follows_the_field_count_not_the_largest_zid() -> None:
    document = schema_of(**{f"S{i}": [field(65535, "X")] for i in range(300)})
    data = msgpack.packb(document)
    assert len(data) < 30_000
    peak = peak_allocation(lambda: zebrapack.load(data))
    assert peak < 16 * 1024 * 1024            # was 152 MiB: one 512 KiB table per struct
    schema = zebrapack.load(data)
    record = schema.types.S7(X=-9)
    assert schema.encode(record) == b"\x82\xff\xa2S7\xd2\x00\x00\xff\xff\xf7"
    assert schema.decode(schema.encode(record)) == record


def test_a_stream_carrying_a_schema_of_sparse_zids_opens_in_memory_proportional_to_it() -> None:
    document = schema_of(**{f"S{i}": [field(65535, "X")] for i in range(300)})
    stream = msgpack.packb(document) + b"\x82\xff\xa2S7\xd2\x00\x00\xff\xff\x05"

    def read() -> None:
        with zebrapack.open_stream(stream) as opened:
            assert [record.X for record in opened] == [5]

    assert peak_allocation(read) < 16 * 1024 * 1024     # was 300 tables of 512 KiB


def test_sparse_zids_are_found_among_dense_ones() -> None:
    fields = [field(zid, f"F{zid}") for zid in (0, 1, 2, 300, 4000, 65535)]
    schema = zebrapack.load(schema_of(Rec=fields))
    record = schema.types.Rec(F0=1, F1=2, F2=3, F300=4, F4000=5, F65535=6)
    assert schema.decode(schema.encode(record)) == record
    # an unknown zid between the sparse ones is skipped
    data = schema.encode(record)
    assert schema.decode(data[:1].replace(b"\x87", b"\x88") + data[1:] + b"\xd1\x07\xd0\x01") == record


ZERO_ESCAPE_SCHEMA = schema_of(Root=[field(0, "L", {"Kind": 26, "Str": "Slice", "Domain": {"Kind": 22, "Str": "Elem"}})],
                               Elem=[field(0, "A", array(1048568, INT64))])


def test_zero_values_of_absent_fixed_arrays_count_in_the_decode_budget() -> None:
    schema = zebrapack.load(ZERO_ESCAPE_SCHEMA)
    data = bytes.fromhex("8100988080808080808080")
    peak = peak_allocation(lambda: pytest.raises(DecodeError, schema.decode, data, "Root"))
    assert peak < 1024 * 1024                 # was 64 MiB
    with pytest.raises(DecodeError, match="zero values") as caught:
        schema.decode(data, "Root")
    assert caught.value.path == "Root.L[0]"


def test_305_bytes_of_absent_fixed_arrays_are_refused_in_bounded_memory() -> None:
    schema = zebrapack.load(ZERO_ESCAPE_SCHEMA)
    data = b"\x81\x00\xdc\x01\x2c" + b"\x80" * 300
    assert len(data) == 305
    assert peak_allocation(lambda: pytest.raises(DecodeError, schema.decode, data, "Root")) < 1024 * 1024


def test_a_small_record_with_an_absent_fixed_array_still_decodes() -> None:
    schema = zebrapack.load(schema_of(Rec=[field(0, "X"), field(1, "Big", array(1000, INT64))],
                                      Outer=[field(0, "Inner", {"Kind": 22, "Str": "Rec"}),
                                             field(1, "Many", {"Kind": 26, "Str": "Slice",
                                                               "Domain": {"Kind": 22, "Str": "Rec"}})]))
    assert schema.decode(b"\x81\x00\x05", "Rec").Big == [0] * 1000
    assert schema.decode(b"\x81\x01\xc0", "Rec").Big == [0] * 1000            # nil too
    assert schema.decode(b"\x80", "Outer").Inner.Big == [0] * 1000
    assert len(schema.decode(b"\x81\x01\x93\x80\x80\x80", "Outer").Many) == 3
    assert len(schema.decode_all(b"\x80" * 50, "Rec")) == 50


def test_zero_allowance_bounds_and_raises_the_zero_values_a_record_may_build() -> None:
    document = schema_of(Rec=[field(0, "X")], Outer=[field(0, "Many", {
        "Kind": 26, "Str": "Slice", "Domain": {"Kind": 27, "Str": "Array", "Domain": {"Kind": 2, "Str": "1000"},
                                               "Range": INT64}})])
    data = b"\x81\x00\x93\xc0\xc0\xc0"        # three nil [1000]int64: 3000 values from 6 bytes
    with pytest.raises(DecodeError, match="zero_allowance"):
        zebrapack.load(document, zero_allowance=1000).decode(data, "Outer")
    assert len(zebrapack.load(document, zero_allowance=3000).decode(data, "Outer").Many) == 3
    assert zebrapack.load(document).zero_allowance == zebrapack.DEFAULT_ZERO_ALLOWANCE == 1 << 16


# -- 3. nothing lost ---------------------------------------------------------------------

def test_preserve_unknown_keeps_unknown_keys_of_every_width() -> None:
    schema = zebrapack.load(schema_of(A=[field(0, "x", {"Kind": 2, "Str": "string"})]), preserve_unknown=True)
    data = bytes.fromhex("84ffa14100a178ce8000000001ceffffffff02")
    record = schema.decode(data)
    assert record.zebrapack_unknown == {0x80000000: b"\x01", 0xFFFFFFFF: b"\x02"}
    assert schema.encode(record) == data      # was 83ffa141fe0200a178: an entry lost


@pytest.mark.parametrize("key", ["cfffffffffffffffff", "d38000000000000000", "d300000001ffffffff", "d1fffe", "d0fe"])
def test_preserve_unknown_keeps_int64_and_uint64_keys(key: str) -> None:
    schema = zebrapack.load(schema_of(A=[]), preserve_unknown=True)
    record = schema.decode(bytes.fromhex("82ffa141" + key + "07"))
    assert list(record.zebrapack_unknown.values()) == [b"\x07"]
    again = schema.decode(schema.encode(record))
    assert again.zebrapack_unknown == record.zebrapack_unknown


@pytest.mark.parametrize("raw", [b"", b"\xc1", b"\x01\x02", b"\x92\x01", b"\xa5abc", b"\x91" * 2000 + b"\x01"])
def test_encode_refuses_preserved_bytes_its_decode_would_reject(raw: bytes) -> None:
    schema = zebrapack.load(schema_of(A=[field(0, "X")]), preserve_unknown=True)
    record = schema.types.A(X=1)
    record.zebrapack_unknown = {7: raw}
    with pytest.raises(EncodeError, match="not one msgpack value"):
        schema.encode(record)


def test_encode_refuses_an_unknown_key_read_as_the_struct_name() -> None:
    schema = zebrapack.load(schema_of(A=[field(0, "X")]), preserve_unknown=True)
    record = schema.types.A(X=1)
    record.zebrapack_unknown = {-1: b"\xa1B"}
    with pytest.raises(EncodeError, match="key -1"):
        schema.encode(record)


INTERFACE_SCHEMA = schema_of(A=[field(0, "X", {"Kind": 19, "Str": "Intf"}), field(1, "S", {"Kind": 2, "Str": "string"})])


@pytest.mark.parametrize("value", [{(1, 2): 3}, {-1: "A", 1: [1]}, {-1: "A", 1: "x"}, {zebrapack.Ext(0, b"1"): 1}])
def test_encode_refuses_interface_maps_its_decode_would_not_read_back(value: Any) -> None:
    # a tuple key would read back as a list (unhashable), a first key -1 naming a
    # struct as that struct: interface{} maps are Go's map[string]interface{}
    schema = zebrapack.load(INTERFACE_SCHEMA)
    with pytest.raises(EncodeError, match="keys must be str"):
        schema.encode(schema.types.A(X=value))


# -- 4. the size hint ----------------------------------------------------------------------

def test_one_large_record_does_not_make_every_later_encode_allocate_its_size() -> None:
    schema = zebrapack.load(schema_of(A=[field(0, "B", {"Kind": 1, "Str": "bytes"})]))
    small = schema.types.A(B=b"x")
    schema.encode(schema.types.A(B=bytes(32 << 20)))
    schema.encode(small)                      # the hint follows the record being written
    assert peak_allocation(lambda: schema.encode(small)) < 64 * 1024


def test_appending_records_to_one_buffer_is_linear() -> None:
    schema = zebrapack.load(schema_of(A=[field(0, "X")]))
    record = schema.types.A(X=1)
    record_size = len(schema.encode(record))
    buffer = bytearray()
    for _ in range(20000):
        schema.encode_into(record, buffer, -1)
    assert len(buffer) == 20000 * record_size
    # the hint is the record's size, not the buffer's position: one more append allocates little
    assert peak_allocation(lambda: schema.encode_into(record, buffer, -1)) < len(buffer) // 4


# -- 6. warnings and threads ---------------------------------------------------------------

DEPRECATED = schema_of(A=[{**field(0, "Old"), "Deprecated": True}])


def test_deprecation_warnings_follow_the_filters() -> None:
    schema = zebrapack.load(DEPRECATED)
    for _ in range(2):
        with pytest.warns(DeprecationWarning, match=r"A\.Old \(zid 0\) is deprecated"):
            schema.encode(schema.types.A(Old=1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DeprecationWarning):
            schema.encode(schema.types.A(Old=1))


def test_encoding_from_many_threads_keeps_sizes_and_warnings_consistent() -> None:
    schema = zebrapack.load(schema_of(A=[field(0, "B", {"Kind": 1, "Str": "bytes"})]))
    records = [schema.types.A(B=bytes(size)) for size in (1, 1000, 100_000)]
    expected = [schema.encode(record) for record in records]
    failures: list[str] = []

    def work() -> None:
        for _ in range(200):
            for record, data in zip(records, expected):
                if schema.encode(record) != data:
                    failures.append("encode")
                buffer = bytearray(b"x")
                schema.encode_into(record, buffer, -1)
                if bytes(buffer[1:]) != data:
                    failures.append("encode_into")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures


# -- 7. findings of the schema fuzzers -----------------------------------------------------

def test_an_interface_type_with_the_name_of_a_struct_is_a_schema_error() -> None:
    # found by the load target: written back (zebrapack gen's embedded schema) the
    # interface read as the struct itself, by value: the generated module failed to load
    document = schema_of(self=[field(8224, "\u017f", {"Kind": 29, "Str": "self"}, "pkg.A")])
    with pytest.raises(SchemaError, match="has the name of a struct") as caught:
        zebrapack.load(document)
    assert (caught.value.struct, caught.value.field) == ("self", "\u017f")


@pytest.mark.parametrize("text", ["E\x01\x00il", "x\nimport os  # injected", 'q"""\nraise SystemExit\n"""',
                                  "back\\N{slash", "sep\u2028arator", "tab\tand\rreturn"])
def test_schema_text_in_generated_comments_and_docstrings_stays_inert(text: str) -> None:
    # found by the load target: a tag name with a NUL made `zebrapack gen` write a module
    # that does not compile; a newline would have let a schema write code into it
    document = {"SourcePackage": text, **schema_of(Rec=[{**field(0, "X"), "FieldTagName": text}])}
    schema = zebrapack.load(document)
    source = generate_module(schema.model)
    module = types.ModuleType("zebrapack_test_generated_inert")
    sys.modules[module.__name__] = module
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            exec(compile(source, "<generated>", "exec"), module.__dict__)    # noqa: S102
    finally:
        del sys.modules[module.__name__]
    assert set(vars(module)) >= {"Rec", "schema"} and "os" not in vars(module)
    assert module.Rec.__module__ == module.__name__
    assert module.schema.decode(module.schema.encode(module.Rec(X=4))) == module.Rec(X=4)
    # escaped in the source, itself in the docstring (where Python 3.13 expands tabs to spaces)
    assert re.sub(r"[ \t]+", " ", text) in re.sub(r"[ \t]+", " ", module.__doc__)
