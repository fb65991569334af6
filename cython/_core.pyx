# cython: language_level=3
"""zebrapack's compiled core.

One extension built from these parts (msgpack-python's layout), included in this
order:

- C headers, no Python objects built there: ``zp_wire.h`` (big-endian loads and
  stores of words, float bits), ``zp_write.h`` (every msgpack store: integers,
  lengths and headers, ext, time, complex, struct map headers; for the encoder and
  the Arrow writer alike), ``zp_read.h`` (every msgpack read: headers, integers by
  family and width, floats, times, complex numbers, struct names and keys,
  interface{} checks, lead-byte names, and the messages of its refusals; for the
  decoder and the columnar reader alike), ``zp_skip.h`` (stepping over a value, for
  the decoder, the stream and the columnar reader), ``zp_trail.h`` (the steps of a
  value tree, the one builder of every error's field path, the one nesting guard:
  max_depth and the thread's C stack), ``zp_civil.h`` (civil dates),
  ``zp_object.h`` (member-slot access, datetimes built in place), ``zp_stack.h`` (the thread's stack bounds),
  ``zp_freelist.h`` (the memory of dropped records, kept for the next).
- ``_skip.pxi``, ``_read.pxi``: ``zp_skip.h``'s skipper and ``zp_read.h``'s readers
  declared, for the decoder and the columnar reader, each with its own raise.
- ``_plan.pxi``: the plans compiled from a schema at load time (struct ->
  fields by zid, kinds, nested plans, slot offsets).
- ``_record.pxi``: the C bases of the record classes (``RecordBase``,
  ``FrozenRecordBase``).
- ``_trail.pxi``: ``zp_trail.h`` declared, and ``Trail``, where the decoder or
  encoder is in the value tree, for error paths and the nesting limits;
  ``zp_traceback.h``: the traceback of an error raised deep in a value, cut short.
- ``_unpacker.pxi``: the decoder, straight from a byte buffer.
- ``_packer.pxi``: the encoder, straight into a growing buffer.
- ``_codec.pxi``: ``Codec``, the public face the Python ``Schema`` builds on.
- ``_stream.pxi``: ``StreamDecoder``, the push decoder of records that arrive in
  pieces (``Schema.stream_decoder``), finding their ends with the resumable skipper.
- ``_scan.pxi``: ``skip_records``, record boundaries without a schema (the index).
- The columnar side: ``zp_arrow.h``, ``_arrow_abi.pxi`` (the Arrow C Data and C
  Stream Interface, a stable ABI); ``_arrow_schema.pxi`` (zebrapack.arrow's type
  mapping exported as an ``ArrowSchema``); ``zp_columnar.h`` (growable column
  buffers and bitmaps, UTF-8 checks, CRC32; the writer and the stream use it too),
  ``_arrow_read.pxi`` (the columnar reader: records straight into Arrow buffers,
  without the GIL, through ``zp_read.h`` and ``zp_trail.h``); ``zp_path.h``,
  ``_arrow_stream.pxi`` (its sources, files opened by C, batches and C stream);
  ``zp_arrow_write.h``, ``_arrow_write.pxi`` (the columnar writer: Arrow buffers to
  records, without the GIL, through ``zp_write.h``).
"""

cimport cython
from cpython.bool cimport PyBool_Check
from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_Check, PyByteArray_GET_SIZE, PyByteArray_Resize
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_Check, PyBytes_CheckExact, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.complex cimport PyComplex_Check, PyComplex_FromDoubles, PyComplex_ImagAsDouble, PyComplex_RealAsDouble
from cpython.datetime cimport (
    PyDateTimeAPI,
    PyDateTime_Check,
    datetime_day,
    datetime_hour,
    datetime_microsecond,
    datetime_minute,
    datetime_month,
    datetime_second,
    datetime_tzinfo,
    datetime_year,
    import_datetime,
    timedelta_days,
    timedelta_microseconds,
    timedelta_seconds,
)
from cpython.dict cimport PyDict_Check, PyDict_CheckExact, PyDict_GetItem, PyDict_Next
from cpython.exc cimport PyErr_Clear, PyErr_ExceptionMatches
from cpython.memoryview cimport PyMemoryView_Check

cdef extern from "Python.h":
    Py_ssize_t PyDict_GET_SIZE(object d) noexcept     # a macro: ma_used, for a dict or subclass
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_Check, PyFloat_FromDouble
from cpython.list cimport PyList_Check, PyList_GET_ITEM, PyList_GET_SIZE, PyList_New, PyList_SET_ITEM
from cpython.sequence cimport PySequence_Fast_ITEMS
from cpython.long cimport PyLong_AsLongLongAndOverflow, PyLong_Check, PyLong_FromLongLong, PyLong_FromUnsignedLongLong
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.object cimport Py_TYPE, PyObject, PyObject_IsTrue, PyObject_TypeCheck, PyTypeObject
from cpython.ref cimport Py_DECREF, Py_INCREF, Py_XDECREF
from cpython.tuple cimport PyTuple_Check, PyTuple_CheckExact, PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.unicode cimport PyUnicode_AsUTF8AndSize, PyUnicode_Check, PyUnicode_DecodeUTF8
from libc.math cimport signbit
from libc.stdint cimport INT32_MAX, INT64_MAX, INT64_MIN, UINT64_MAX, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t
from libc.string cimport memcmp, memcpy, memmove, memset

import datetime as _datetime_module
import gc as _gc_module
import os as _os
import sys as _sys_module
from types import GenericAlias as _GenericAlias

from msgpack import ExtType as _MsgpackExtType

from zebrapack._errors import DecodeError, EncodeError, TornTailError
from zebrapack.values.ext import Ext
from zebrapack.values.gonumbers import GoComplex64
from zebrapack.values import gotime as _gotime
from zebrapack.values.gotime import GoTime
from zebrapack.values.timestamp import Timestamp

import_datetime()


cdef extern from "zp_wire.h":
    uint16_t zp_load_u16(const unsigned char *p) noexcept nogil
    uint32_t zp_load_u32(const unsigned char *p) noexcept nogil
    uint64_t zp_load_u64(const unsigned char *p) noexcept nogil
    int64_t zp_load_i64(const unsigned char *p) noexcept nogil
    void zp_store_u16(unsigned char *p, uint16_t v) noexcept nogil
    void zp_store_u32(unsigned char *p, uint32_t v) noexcept nogil
    void zp_store_u64(unsigned char *p, uint64_t v) noexcept nogil
    double zp_double_from_bits(uint64_t bits) noexcept nogil
    uint64_t zp_double_bits(double d) noexcept nogil
    double zp_double_from_f32_bits(uint32_t bits) noexcept nogil
    int zp_f32_bits_from_double(double d, uint32_t *out) noexcept nogil
    int zp_double_fits_f32(double d) noexcept nogil
    int zp_i64_fits_double(int64_t v) noexcept nogil
    int zp_u64_fits_double(uint64_t v) noexcept nogil
    Py_ssize_t ZP_COPY_LONG_MIN
    void zp_copy_init() noexcept nogil
    int zp_copy_get_mode() noexcept nogil
    int zp_copy_set_mode(int mode) noexcept nogil
    enum:
        ZP_COPY_MEMCPY
        ZP_COPY_LOOP
    void zp_copy(unsigned char *dst, const void *src, Py_ssize_t n) noexcept nogil
    enum:
        ZP_NUMBER_NONE
        ZP_NUMBER_INT
        ZP_NUMBER_UINT
        ZP_NUMBER_F32
        ZP_NUMBER_F64
    ctypedef struct zp_number:
        int family
        uint64_t bits

# The msgpack stores of the encoder, the Arrow writer and the plans' keys.
cdef extern from "zp_write.h":
    enum:
        ZP_NIL
        ZP_FALSE
        ZP_TRUE
        ZP_STR
        ZP_BIN
        ZP_ARRAY
        ZP_MAP
    const Py_ssize_t ZP_MAX_LENGTH32     # 0xffffffff as a C constant: Cython compares that literal as a Python int
    Py_ssize_t zp_store_signed(unsigned char *p, int64_t v) noexcept nogil
    Py_ssize_t zp_store_unsigned(unsigned char *p, uint64_t v) noexcept nogil
    Py_ssize_t zp_store_int(unsigned char *p, bint is_signed, uint64_t bits) noexcept nogil
    Py_ssize_t zp_store_f32(unsigned char *p, double d) noexcept nogil
    Py_ssize_t zp_store_blob(unsigned char *p, int family, const void *data, Py_ssize_t n) noexcept nogil
    Py_ssize_t zp_store_f64(unsigned char *p, double d) noexcept nogil
    Py_ssize_t zp_store_f32_bits(unsigned char *p, uint32_t bits) noexcept nogil
    Py_ssize_t zp_store_header(unsigned char *p, int family, Py_ssize_t n) noexcept nogil
    Py_ssize_t zp_store_str(unsigned char *p, const void *text, Py_ssize_t n) noexcept nogil
    Py_ssize_t zp_map_header_size(Py_ssize_t n) noexcept nogil
    Py_ssize_t zp_close_map(unsigned char *data, Py_ssize_t header_pos, Py_ssize_t header_size, Py_ssize_t end,
                            Py_ssize_t count) noexcept nogil
    Py_ssize_t zp_store_ext(unsigned char *p, int8_t code, const void *data, Py_ssize_t n, int fixext) noexcept nogil
    Py_ssize_t zp_store_time(unsigned char *p, int64_t seconds, uint32_t nanos) noexcept nogil
    Py_ssize_t zp_store_complex64(unsigned char *p, uint32_t real_bits, uint32_t imag_bits) noexcept nogil
    Py_ssize_t zp_store_complex128(unsigned char *p, double real, double imag) noexcept nogil
    Py_ssize_t zp_store_number(unsigned char *p, const zp_number *n) noexcept nogil

cdef extern from "zp_civil.h":
    int64_t ZP_GO_ZERO_SECONDS
    int64_t ZP_MIN_SECONDS
    int64_t ZP_MAX_SECONDS
    int64_t zp_floor_div(int64_t a, int64_t b) noexcept nogil
    int64_t zp_days_from_civil(int64_t y, unsigned m, unsigned d) noexcept nogil
    void zp_civil_from_days(int64_t z, int *year, int *month, int *day) noexcept nogil

cdef extern from "zp_object.h":
    Py_ssize_t zp_member_offset(object descr, PyTypeObject *owner) noexcept
    void zp_slot_set(object obj, Py_ssize_t offset, object value) noexcept
    PyObject *zp_slot_get(object obj, Py_ssize_t offset) noexcept
    bint zp_is_gc(object o) noexcept
    bint zp_small_long(object o, long long *out) noexcept
    bint zp_long_is_zero(object o) noexcept
    bint zp_long_magnitude(object o, int *negative, uint64_t *magnitude) noexcept
    bint zp_long_i64(object o, int64_t *out) noexcept
    bint zp_long_u64(object o, uint64_t *out) noexcept
    object zp_object_new(PyTypeObject *tp)
    const char *zp_str_utf8_held(object o, Py_ssize_t *n) noexcept
    void zp_bytes_shrink(PyObject *b, Py_ssize_t n) noexcept

cdef extern from "zp_gonumbers.h":
    object zp_int_subtype_u64(PyTypeObject *type, uint64_t v)
    object zp_float_subtype(PyTypeObject *type, double x)
    object zp_make_gofloat32_type()
    object zp_make_gouint64_type()

cdef extern from "zp_freelist.h":
    Py_ssize_t zp_free_class(PyTypeObject *tp) noexcept
    bint zp_frees_records(PyTypeObject *tp) noexcept
    void zp_use_record_dealloc(PyTypeObject *tp) noexcept
    object zp_alloc_record(PyTypeObject *tp, Py_ssize_t k, int *tracked)
    Py_ssize_t zp_free_records() noexcept
    void zp_freelist_init(Py_ssize_t gc_head) noexcept
    bint zp_freelist_enabled() noexcept

cdef extern from "zp_stack.h":
    uintptr_t zp_stack_here() noexcept nogil
    void zp_stack_bounds(uintptr_t *low, uintptr_t *floor) noexcept nogil

cdef extern from "Python.h":
    PyTypeObject PyLong_Type
    PyTypeObject PyFloat_Type
    PyTypeObject PyUnicode_Type
    PyTypeObject PyBool_Type
    PyTypeObject PyDict_Type
    PyTypeObject PyList_Type
    PyTypeObject PyBytes_Type
    bint PyUnicode_IS_COMPACT_ASCII(object o) noexcept
    Py_ssize_t PyUnicode_GET_LENGTH(object o) noexcept
    void *PyUnicode_DATA(object o) noexcept
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    int _PyBytes_Resize(PyObject **bytes, Py_ssize_t newsize) except -1
    int PyDict_SetItem(object d, object key, object value) except -1
    dict _PyDict_NewPresized(Py_ssize_t minused)
    int PyErr_WarnEx(object category, const char *message, Py_ssize_t stacklevel) except -1
    unsigned long long PyLong_AsUnsignedLongLong(object pylong) except? -1
    PyObject *PyMemoryView_GET_BASE(object mview) noexcept     # a macro: the exporter (borrowed), or NULL

#: Default limit on nesting (containers inside containers, structs included).
DEFAULT_MAX_DEPTH = 1000
#: Default number of values the zero values of absent fields and nils may hold in one
#: decode call (one record of iter_decode), beyond each record's own struct zero value
#: and the input's bytes.
DEFAULT_ZERO_ALLOWANCE = 1 << 16

cdef extern from *:
    """
    #ifndef ZP_OPTIMIZED_BUILD
    #define ZP_OPTIMIZED_BUILD 0    /* setup.py defines it for the ordinary build */
    #endif
    """
    int ZP_OPTIMIZED_BUILD

#: The ordinary optimized core, not a ZEBRAPACK_DEBUG or ZEBRAPACK_SANITIZE build, whose
#: C frames are several times bigger: the stack guard lets them nest less deeply.
OPTIMIZED_BUILD = bool(ZP_OPTIMIZED_BUILD)

# Immutable constants shared by every call (no mutable module state).
cdef object _UTC = _datetime_module.timezone.utc
cdef object _GO_ZERO_TIME = _gotime.GO_ZERO_TIME
cdef object _Timestamp = Timestamp
cdef object _Ext = Ext
cdef object _GoTime = GoTime
#: Go's float32 and uint64 in interface{} values (zp_gonumbers.h: C types, which the
#: decoder makes in bulk; exported by ``zebrapack``).
GoFloat32 = zp_make_gofloat32_type()
GoUint64 = zp_make_gouint64_type()
# Go's dynamic number types in interface{} values: built without their
# validating constructors (the wire value is in range by construction).
cdef object _GoFloat32 = GoFloat32
cdef object _GoUint64 = GoUint64
cdef object _GoComplex64 = GoComplex64
cdef object _complex_new = complex.__new__
cdef object _ExtTypes = (Ext, _MsgpackExtType)
cdef object _DecodeError = DecodeError
cdef object _TornTailError = TornTailError
cdef object _EncodeError = EncodeError
_LONG_COPY_MODES = {"memcpy": ZP_COPY_MEMCPY, "loop": ZP_COPY_LOOP}


def _long_copy_mode():
    """How this process copies long str and bytes payloads (16 KiB to 4 MiB): "loop"
    (the core's AVX2 loop) or "memcpy" (zp_copy in zp_wire.h)."""
    return "loop" if zp_copy_get_mode() == ZP_COPY_LOOP else "memcpy"


def _set_long_copy_mode(str mode):
    """Sets how long payloads are copied ("loop" or "memcpy"); the tests take each."""
    if mode not in _LONG_COPY_MODES:
        raise ValueError(f"long copies are made by 'loop' or 'memcpy', not {mode!r}")
    if not zp_copy_set_mode(_LONG_COPY_MODES[mode]):
        raise ValueError(f"long copies cannot be made by {mode!r} here (no AVX2 in this build or machine)")


# Which way long payloads are copied is measured here, once (zp_wire.h: the processor
# decides); ZEBRAPACK_LONG_COPY=loop or memcpy fixes it (benchmarks that compare machines).
zp_copy_init()
if _long_copy_asked := _os.environ.get("ZEBRAPACK_LONG_COPY"):
    _set_long_copy_mode(_long_copy_asked)


cdef inline object new_bytes(const unsigned char *p, Py_ssize_t n):
    """A bytes object of the n bytes at p (a long one copied by zp_copy)."""
    if n < ZP_COPY_LONG_MIN:
        return PyBytes_FromStringAndSize(<const char *>p, n)
    value = PyBytes_FromStringAndSize(NULL, n)
    zp_copy(<unsigned char *>PyBytes_AS_STRING(value), p, n)
    return value

include "_skip.pxi"
include "_read.pxi"
include "_plan.pxi"
include "_record.pxi"
include "_trail.pxi"
include "_unpacker.pxi"
include "_packer.pxi"
include "_codec.pxi"
include "_stream.pxi"
include "_scan.pxi"
include "_arrow_abi.pxi"
include "_arrow_schema.pxi"
include "_arrow_read.pxi"
include "_arrow_stream.pxi"
include "_arrow_write.pxi"
