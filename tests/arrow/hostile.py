"""Arrow data no producer should make, handed to zpa.write: arrays whose C structs
(the C Data Interface's ArrowArray, reached through ctypes on the capsules pyarrow
exports) are changed after pyarrow built and validated them, and arrays that pass
pyarrow's default validation while their offsets point outside their buffers.

``CASES`` maps a name to (how to make the data, the schema's struct, the error the
writer must raise). ``main()`` runs every case and prints one line per case before it
starts and one after it ends, so that a case that crashes the process is named by the
last line: test_write_hostile.py runs it in a child process.
"""

from __future__ import annotations

import ctypes
import io
import json
import re
import sys
from collections.abc import Callable
from typing import Any

import pyarrow as pa

import zebrapack
import zebrapack.examples
import zebrapack.arrow as zpa
from zebrapack import EncodeError

SCHEMA = zebrapack.load(zebrapack.examples.SCHEMA)


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)), ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)), ("release", ctypes.c_void_p), ("private_data", ctypes.c_void_p),
]

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class Crafted:
    """A RecordBatch's exported C structs, changed by ``change(root)`` before zpa.write
    imports them (pyarrow's release callback still frees what pyarrow made; memory the
    change points into is kept alive here)."""

    def __init__(self, batch: Any, change: Callable[[ArrowArray, list[Any]], None]) -> None:
        self.schema_capsule, self.array_capsule = batch.__arrow_c_array__()
        self.root = ArrowArray.from_address(_get_pointer(self.array_capsule, b"arrow_array"))
        self.keep: list[Any] = [batch]
        change(self.root, self.keep)

    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[object, object]:
        return self.schema_capsule, self.array_capsule


_RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))


@_RELEASE
def _release(array: Any) -> None:
    array.contents.release = None


_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class Handmade:
    """Arrow data whose ArrowArray is made here whole (for what an exported one cannot be
    changed into: pyarrow's own release walks its children): ``array_type`` gives the
    schema, ``fields`` the struct's own fields; its release only marks it released."""

    def __init__(self, array_type: Any, **fields: Any) -> None:
        self.array = ArrowArray(**fields, release=ctypes.cast(_release, ctypes.c_void_p).value)
        self.schema_capsule = array_type.__arrow_c_schema__()

    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[object, object]:
        return self.schema_capsule, _new_capsule(ctypes.addressof(self.array), b"arrow_array", None)


def column(root: ArrowArray, index: int = 0) -> ArrowArray:
    return root.children[index].contents


def buffer_of(values: list[int], ctype: Any, keep: list[Any]) -> int:
    """A C buffer holding values (kept alive by ``keep``): its address."""
    memory = (ctype * len(values))(*values)
    keep.append(memory)
    return ctypes.addressof(memory)


def set_offsets(array: ArrowArray, offsets: list[int], keep: list[Any], ctype: Any = ctypes.c_int32) -> None:
    array.buffers[1] = buffer_of(offsets, ctype, keep)


def names(values: list[str | None], **columns: Any) -> Any:
    return pa.record_batch({"Name": pa.array(values, pa.string()), **columns})


def from_buffers(type_: Any, length: int, offsets: list[int], data: bytes, width: str = "i") -> Any:
    """An array pyarrow builds from raw buffers (and checks with its default, cheap validation)."""
    import array
    array_ = pa.Array.from_buffers(type_, length, [None, pa.py_buffer(array.array(width, offsets)),
                                                   pa.py_buffer(data)])
    array_.validate()           # first and last offsets in range: accepted
    return array_


def _null_data(root: ArrowArray, keep: list[Any]) -> None:
    column(root).buffers[2] = None


def _length(value: int) -> Callable[[ArrowArray, list[Any]], None]:
    def change(root: ArrowArray, keep: list[Any]) -> None:
        root.length = value
    return change


def _nulls_without_bitmap(root: ArrowArray, keep: list[Any]) -> None:
    column(root).null_count = 1


def _bitmap_without_null_count(root: ArrowArray, keep: list[Any]) -> None:
    column(root).null_count = 0


def _column_offset(value: int) -> Callable[[ArrowArray, list[Any]], None]:
    def change(root: ArrowArray, keep: list[Any]) -> None:
        column(root).offset = value
    return change


def _released_column(root: ArrowArray, keep: list[Any]) -> None:
    column(root).release = None


def _no_dictionary(root: ArrowArray, keep: list[Any]) -> None:
    column(root).dictionary = None


def _huge_list_view(root: ArrowArray, keep: list[Any]) -> None:
    array = column(root)
    array.buffers[1] = buffer_of([1 << 62], ctypes.c_int64, keep)        # offsets
    array.buffers[2] = buffer_of([1 << 62], ctypes.c_int64, keep)        # sizes: start + size wraps


def _short_fixed_list_items(root: ArrowArray, keep: list[Any]) -> None:
    column(root).children[0].contents.length = 2


def _view_without_its_buffer(root: ArrowArray, keep: list[Any]) -> None:
    array = column(root)
    array.buffers[2] = None         # the one variadic buffer, its size still 40


def _middle_offset(value: int) -> Callable[[ArrowArray, list[Any]], None]:
    def change(root: ArrowArray, keep: list[Any]) -> None:
        set_offsets(column(root), [0, value, 5], keep)
    return change


def _null_count_beyond_length(root: ArrowArray, keep: list[Any]) -> None:
    column(root).null_count = 99


OFFSETS_PAST = "row 0, A.Name: offsets out of order or past the data buffer (invalid Arrow data)"

Case = tuple[Callable[[], Any], str, str]

CASES: dict[str, Case] = {
    # pyarrow's default validation passes these: only the first and last offsets are in range
    "string offsets [0, 4096, 5] over 5 bytes": (
        lambda: pa.table({"Name": from_buffers(pa.string(), 2, [0, 4096, 5], b"abcde")}), "A", OFFSETS_PAST),
    "string offsets [0, 0x7fffffff, 5] over 5 bytes": (
        lambda: pa.table({"Name": from_buffers(pa.string(), 2, [0, 0x7FFFFFFF, 5], b"abcde")}), "A",
        OFFSETS_PAST),
    "binary offsets [0, 0x7fffffff, 5] over 5 bytes": (
        lambda: pa.table({"Bin": from_buffers(pa.binary(), 2, [0, 0x7FFFFFFF, 5], b"abcde")}), "Prims",
        "row 0, Prims.Bin: offsets out of order or past the data buffer (invalid Arrow data)"),
    "large string offsets [0, 2**40, 5] over 5 bytes": (
        lambda: pa.table({"Name": from_buffers(pa.large_string(), 2, [0, 1 << 40, 5], b"abcde", "q")}), "A",
        OFFSETS_PAST),
    "string offsets [0, 9, 5] over 5 bytes, changed after pyarrow made them": (
        lambda: Crafted(names(["ab", "cde"]), _middle_offset(9)), "A", OFFSETS_PAST),
    "a negative string offset": (
        lambda: Crafted(names(["ab", "cde"]), _middle_offset(-3)), "A", OFFSETS_PAST),
    "a NULL string data buffer under offsets": (
        lambda: Crafted(names(["ab", "cde"]), _null_data), "A",
        "A.Name: a binary array of 5 bytes without its data buffer (invalid Arrow data)"),
    "a batch of length -1": (
        lambda: Crafted(names(["ab"]), _length(-1)), "A", "A: an array of length -1 at offset 0 (invalid Arrow data)"),
    "a batch longer than its columns": (
        lambda: Crafted(names(["ab"]), _length(1000)), "A",
        "A.Name: an array of 1 values where 1000 are needed (invalid Arrow data)"),
    "a column at a negative offset": (
        lambda: Crafted(names(["ab"]), _column_offset(-1)), "A",
        "A.Name: an array of length 1 at offset -1 (invalid Arrow data)"),
    "nulls without a validity bitmap": (
        lambda: Crafted(names(["ab", "cd"]), _nulls_without_bitmap), "A",
        "A.Name: an array of 1 nulls without a validity bitmap (invalid Arrow data)"),
    "a null count beyond the length": (
        lambda: Crafted(names(["ab", "cd"]), _null_count_beyond_length), "A",
        "A.Name: an array of 2 values with a null count of 99 (invalid Arrow data)"),
    "a validity bitmap with a null count of 0 is honoured": (
        lambda: Crafted(names(["ab", None]), _bitmap_without_null_count), "A",
        "row 1, A.Name: expected string, got null (None is only allowed for pointers and interfaces)"),
    "children missing": (
        lambda: Handmade(pa.struct([pa.field("Name", pa.string())]), length=1, n_buffers=1,
                         buffers=(ctypes.c_void_p * 1)(), n_children=1), "A",
        "A: an array without its buffers or children"),
    "buffers missing": (
        lambda: Handmade(pa.struct([pa.field("Name", pa.string())]), length=1, n_buffers=1), "A",
        "A: an array without its buffers"),
    "a released column": (
        lambda: Crafted(names(["ab"]), _released_column), "A", "A.Name: a released or missing array in the batch"),
    "a dictionary array without its dictionary": (
        lambda: Crafted(pa.record_batch({"Name": pa.array(["a", "b"]).dictionary_encode()}), _no_dictionary), "A",
        "A.Name: a dictionary-encoded array without its dictionary"),
    "a list view whose offset and size wrap around": (
        lambda: Crafted(pa.record_batch({"Ints": pa.array([[1, 2]], pa.large_list_view(pa.int64()))}),
                        _huge_list_view),
        "Compound", "row 0, Compound.Ints: list offsets outside the item column (invalid Arrow data)"),
    "a fixed-size list over too few items": (
        lambda: Crafted(pa.record_batch({"Arr": pa.array([[1.0, 2.0, 3.0]], pa.list_(pa.float64(), 3))}),
                        _short_fixed_list_items), "Compound",
        "Compound.Arr: a fixed-size list array of 1 lists of 3 over 2 items (invalid Arrow data)"),
    "a string view whose data buffer is NULL": (
        lambda: Crafted(pa.record_batch({"Name": pa.array(["x" * 40], pa.string_view())}), _view_without_its_buffer),
        "A", "A.Name: a binary view array whose data buffer 0 is missing or of 40 bytes (invalid Arrow data)"),
}


def run(name: str) -> str:
    """Write the case's data; the error the writer raised (a crash ends the process)."""
    make, struct, _ = CASES[name]
    out = io.BytesIO()
    try:
        zpa.write(make(), out, SCHEMA, struct)
    except EncodeError as error:
        if out.getvalue():
            return f"wrote {len(out.getvalue())} bytes before refusing: {error}"
        return str(error)
    return f"written: {out.getvalue()!r}"


def main() -> None:
    pattern = re.compile(sys.argv[1]) if len(sys.argv) > 1 else None
    for name in CASES:
        if pattern is not None and not pattern.search(name):
            continue
        print(json.dumps({"case": name}), flush=True)
        print(json.dumps({"case": name, "error": run(name)}), flush=True)


if __name__ == "__main__":
    main()
