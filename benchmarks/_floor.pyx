# cython: language_level=3
"""The floor of a record decode (``benchmarks.decode_floor``): the Python objects a decoded
record holds, built again from C values with the calls zebrapack's decoder makes for
them, and nothing else: no input is read, no key looked up, no field dispatched.

- the instance: its class's ``tp_alloc`` (``PyType_GenericAlloc``; the decoder takes a
  block from its record freelist where it can, ``zp_freelist.h``), the values stored
  into its member slots, and taken off the collector's lists when it holds no value the
  collector knows (as the decoder leaves such a record);
- ``str``: ``PyUnicode_New`` of the decoded length and kind, then one copy of the
  characters (``zp_copy_short``: the decoder copies ASCII so, and decodes other text into
  such a str);
- ``datetime``: ``zp_new_datetime`` (``cython/zp_object.h``, the decoder's);
- ``int``: ``PyLong_FromLongLong`` (``PyLong_FromUnsignedLongLong`` above int64);
  ``float``: ``PyFloat_FromDouble``; ``bytes``: ``PyBytes_FromStringAndSize``;
- a value the decoder does not build anew (the same object in two decodes of the
  record: ``None``, the bools, CPython's small ints, the shared zero value of an absent
  field): taken by reference.

A record of other values (containers, nested records, other classes) is refused: its
floor is not this one.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.datetime cimport PyDateTimeAPI, import_datetime
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF
from libc.stdint cimport int64_t, uint64_t

import datetime as _datetime

import_datetime()
cdef PyObject *_UTC = <PyObject *>_datetime.timezone.utc

cdef extern from "Python.h":
    # new references as plain pointers: each goes straight into its slot
    PyObject *PyLong_FromLongLong(long long v)
    PyObject *PyLong_FromUnsignedLongLong(unsigned long long v)
    PyObject *PyFloat_FromDouble(double d)
    PyObject *PyBytes_FromStringAndSize(const char *p, Py_ssize_t n)
    PyObject *PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    void *PyUnicode_DATA(PyObject *o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    int PyUnicode_KIND(object o)
    Py_UCS4 PyUnicode_MAX_CHAR_VALUE(object o)
    void PyObject_GC_UnTrack(PyObject *o)

cdef extern from *:
    """
    static PyObject *floor_alloc(PyTypeObject *tp) { return tp->tp_alloc(tp, 0); }
    """
    object floor_alloc(PyTypeObject *tp)

cdef extern from "zp_wire.h":
    void zp_copy_short(unsigned char *dst, const void *src, Py_ssize_t n)    # the decoder's copy of a short str

cdef extern from "zp_object.h":
    Py_ssize_t zp_member_offset(object descr, PyTypeObject *owner)
    PyObject *zp_new_datetime(PyTypeObject *type, int year, int month, int day, int hour, int minute, int second,
                              int usecond, PyObject *tz)

cdef enum:
    F_SHARED = 0     # the decoder's own object: a reference taken
    F_STR = 1
    F_DATETIME = 2
    F_INT = 3
    F_UINT = 4
    F_FLOAT = 5
    F_BYTES = 6

cdef struct Field:
    int what
    Py_ssize_t offset
    PyObject *value       # the decoded value (borrowed: Floor.values holds it)
    const void *data      # a str's characters, a bytes' data
    Py_ssize_t length     # a str's characters, a bytes' size
    Py_UCS4 maxchar
    int kind              # a str's character width
    int64_t i
    uint64_t u
    double d
    int date[7]           # a datetime's year, month, day, hour, minute, second, microsecond


cdef class Floor:
    """Builds, on each ``build()``, a new instance of ``type(record)`` holding objects equal
    to ``record``'s field values (a slots record of atoms): new ones, but for the values
    that are the very same objects in ``again`` (a second decode of the same input)."""
    cdef PyTypeObject *tp
    cdef Field *fields
    cdef Py_ssize_t count
    cdef list values
    cdef object cls

    def __init__(self, record, again):
        cls = type(record)
        names = [name for klass in cls.__mro__ for name in getattr(klass, "__slots__", ())]
        self.cls = cls
        self.tp = <PyTypeObject *>cls
        self.values = []
        self.fields = <Field *>PyMem_Malloc(max(len(names), 1) * sizeof(Field))
        if self.fields == NULL:
            raise MemoryError
        self.count = 0
        for name in names:
            offset = zp_member_offset(getattr(cls, name), self.tp)
            if offset < 0 or not hasattr(record, name):
                continue
            self.add(offset, getattr(record, name), getattr(again, name) is getattr(record, name))

    cdef add(self, Py_ssize_t offset, value, bint shared):
        cdef Field *f = &self.fields[self.count]
        f.offset = offset
        f.value = <PyObject *>value
        self.values.append(value)
        if shared:
            f.what = F_SHARED
        elif type(value) is str:
            f.what = F_STR
            f.length = PyUnicode_GET_LENGTH(value)
            f.maxchar = PyUnicode_MAX_CHAR_VALUE(value)
            f.kind = PyUnicode_KIND(value)
            f.data = PyUnicode_DATA(<PyObject *>value)
        elif type(value) is _datetime.datetime and value.tzinfo is _datetime.timezone.utc:
            f.what = F_DATETIME
            f.date = [value.year, value.month, value.day, value.hour, value.minute, value.second,
                      value.microsecond]
        elif type(value) is int:
            if -(1 << 63) <= value < (1 << 63):
                f.what, f.i = F_INT, value
            else:
                f.what, f.u = F_UINT, value
        elif type(value) is float:
            f.what, f.d = F_FLOAT, value
        elif type(value) is bytes:
            f.what = F_BYTES
            f.length = PyBytes_GET_SIZE(value)
            f.data = PyBytes_AS_STRING(value)
        else:
            raise TypeError(f"the floor builds atoms only, not {type(value).__name__}")
        self.count += 1

    def __dealloc__(self):
        PyMem_Free(self.fields)

    def build(self):
        obj = floor_alloc(self.tp)
        cdef PyObject *v
        cdef Field *f
        cdef Py_ssize_t k
        for k in range(self.count):
            f = &self.fields[k]
            if f.what == F_STR:
                v = PyUnicode_New(f.length, f.maxchar)
                if v != NULL:
                    zp_copy_short(<unsigned char *>PyUnicode_DATA(v), f.data, f.length * f.kind)
            elif f.what == F_DATETIME:
                v = zp_new_datetime(PyDateTimeAPI.DateTimeType, f.date[0], f.date[1], f.date[2], f.date[3],
                                    f.date[4], f.date[5], f.date[6], _UTC)
            elif f.what == F_INT:
                v = PyLong_FromLongLong(f.i)
            elif f.what == F_UINT:
                v = PyLong_FromUnsignedLongLong(f.u)
            elif f.what == F_FLOAT:
                v = PyFloat_FromDouble(f.d)
            elif f.what == F_BYTES:
                v = PyBytes_FromStringAndSize(<const char *>f.data, f.length)
            else:
                v = f.value
                Py_INCREF(<object>v)
            if v == NULL:
                raise MemoryError
            (<PyObject **>(<char *><PyObject *>obj + f.offset))[0] = v
        PyObject_GC_UnTrack(<PyObject *>obj)
        return obj

    def nothing(self):
        """The loop's own cost: the same call, no objects."""
        return None
