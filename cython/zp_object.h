/* Direct access to the member slots of __slots__ classes (dataclass(slots=True)).
 * The offsets come from the class's own member descriptors, read once when a
 * schema is compiled; instances come from tp_alloc, as object.__new__ would
 * (or from zp_freelist.h's blocks, made as tp_alloc makes them). */
#ifndef ZP_OBJECT_H
#define ZP_OBJECT_H

#include <Python.h>
#include <structmember.h>
#include <datetime.h>
#include "zp_wire.h"

#ifndef T_OBJECT_EX
#define T_OBJECT_EX Py_T_OBJECT_EX
#endif

/* The slot offset a member descriptor describes, or -1 when it is not an
 * object slot (T_OBJECT_EX) of the given type. */
static inline Py_ssize_t zp_member_offset(PyObject *descr, PyTypeObject *owner) {
    if (Py_TYPE(descr) != &PyMemberDescr_Type)
        return -1;
    PyMemberDescrObject *m = (PyMemberDescrObject *)descr;
    if (!PyType_IsSubtype(owner, m->d_common.d_type))
        return -1;
    if (m->d_member->type != T_OBJECT_EX || (m->d_member->flags & READONLY))
        return -1;
    return m->d_member->offset;
}

static inline PyObject **zp_slot(PyObject *obj, Py_ssize_t offset) {
    return (PyObject **)((char *)obj + offset);
}

/* Store value (a new reference is taken) in the slot, releasing what was there. */
static inline void zp_slot_set(PyObject *obj, Py_ssize_t offset, PyObject *value) {
    PyObject **slot = zp_slot(obj, offset);
    PyObject *old = *slot;
    Py_INCREF(value);
    *slot = value;
    Py_XDECREF(old);
}

/* Store value (a new reference is taken); 1 when the slot was empty before. */
static inline int zp_slot_store(PyObject *obj, Py_ssize_t offset, PyObject *value) {
    PyObject **slot = zp_slot(obj, offset);
    PyObject *old = *slot;
    Py_INCREF(value);
    *slot = value;
    if (old == NULL)
        return 1;
    Py_DECREF(old);
    return 0;
}

/* PyObject_IS_GC without its call: the type's GC flag, and the type's tp_is_gc
 * where it has one (type objects), as CPython's own inline test reads them. */
static inline int zp_is_gc(PyObject *o) {
    PyTypeObject *tp = Py_TYPE(o);
    return PyType_IS_GC(tp) && (tp->tp_is_gc == NULL || tp->tp_is_gc(o));
}

/* A borrowed reference to the slot's value, or NULL when it is unset. */
static inline PyObject *zp_slot_get(PyObject *obj, Py_ssize_t offset) {
    return *zp_slot(obj, offset);
}

/* The value of an exact int of at most two digits (|v| < 2**60 with 30-bit
 * digits) read inline; 0 when it is larger (the caller asks the C API). */
ZP_ALWAYS_INLINE int zp_small_long(PyObject *o, long long *out) {
#if PY_VERSION_HEX >= 0x030C0000
    if (_PyLong_IsCompact((PyLongObject *)o)) {
        *out = (long long)_PyLong_CompactValue((PyLongObject *)o);
        return 1;
    }
    return 0;
#else
    /* Tests, not a switch: its jump table costs an indirect jump per value. Size -1, 0
     * or 1 is size * digit[0], as CPython's own medium_value() reads it (3.11 allocates
     * a digit even for zero). */
    const digit *d = ((PyLongObject *)o)->ob_digit;
    Py_ssize_t size = Py_SIZE(o);
    long long magnitude;
    if ((size_t)(size + 1) < 3) {
        *out = (long long)size * (long long)d[0];
        return 1;
    }
    if ((size_t)(size + 2) < 5) {
        magnitude = (long long)d[0] | ((long long)d[1] << PyLong_SHIFT);
        *out = size < 0 ? -magnitude : magnitude;
        return 1;
    }
    return 0;
#endif
}

/* The magnitude of an int (any PyLong, its subclasses too) read from its digits, as
 * CPython lays them out: 1 with *negative and *magnitude set when it fits 64 bits, 0
 * when it needs more. Out of line: zp_long_i64 and zp_long_u64 take the small ints
 * themselves. */
static int zp_long_magnitude(PyObject *o, int *negative, uint64_t *magnitude) {
#if PY_VERSION_HEX >= 0x030C0000
    uintptr_t tag = ((PyLongObject *)o)->long_value.lv_tag;
    const digit *d = ((PyLongObject *)o)->long_value.ob_digit;
    Py_ssize_t i = (Py_ssize_t)(tag >> _PyLong_NON_SIZE_BITS);
    *negative = (tag & _PyLong_SIGN_MASK) == 2;
#else
    const digit *d = ((PyLongObject *)o)->ob_digit;
    Py_ssize_t i = Py_SIZE(o);
    *negative = i < 0;
    if (i < 0)
        i = -i;
#endif
    uint64_t x = 0, before;
    while (--i >= 0) {
        before = x;
        x = (x << PyLong_SHIFT) | d[i];
        if ((x >> PyLong_SHIFT) != before)
            return 0;
    }
    *magnitude = x;
    return 1;
}

/* object.__new__(tp): an instance of no field set, for a class whose __new__ is object's. */
static PyObject *zp_object_new(PyTypeObject *tp) {
    PyObject *args = PyTuple_New(0), *self;
    if (args == NULL)
        return NULL;
    self = PyBaseObject_Type.tp_new(tp, args, NULL);
    Py_DECREF(args);
    return self;
}

/* An int's value when it is an int64 (1), else 0: PyLong_AsLongLongAndOverflow without
 * its call for the small ints, nor an error to clear for the others. */
ZP_ALWAYS_INLINE int zp_long_i64(PyObject *o, int64_t *out) {
    long long small;
    int negative;
    uint64_t magnitude;
    if (zp_small_long(o, &small)) {
        *out = (int64_t)small;
        return 1;
    }
    if (!zp_long_magnitude(o, &negative, &magnitude))
        return 0;
    if (negative) {
        if (magnitude > (uint64_t)INT64_MAX + 1)
            return 0;
        *out = (int64_t)(0 - magnitude);        /* two's complement: -2**63 too */
    } else {
        if (magnitude > (uint64_t)INT64_MAX)
            return 0;
        *out = (int64_t)magnitude;
    }
    return 1;
}

/* An int's value when it is a uint64 (1), else 0 (negative, or 2**64 and more). */
ZP_ALWAYS_INLINE int zp_long_u64(PyObject *o, uint64_t *out) {
    long long small;
    int negative;
    if (zp_small_long(o, &small)) {
        *out = (uint64_t)small;
        return small >= 0;
    }
    return zp_long_magnitude(o, &negative, out) && !negative;
}

/* PyUnicode_IS_COMPACT_ASCII in one test of the str's state word, where CPython's macro
 * tests its two bits one at a time: the mask is built from the bitfield itself, so that
 * it follows CPython's layout (the compiler folds it to a constant). */
ZP_ALWAYS_INLINE int zp_is_compact_ascii(PyObject *o) {
    PyASCIIObject bits;
    uint32_t mask, state;
    if (sizeof(bits.state) != sizeof(uint32_t))
        return PyUnicode_IS_COMPACT_ASCII(o);
    memset(&bits.state, 0, sizeof(bits.state));
    bits.state.compact = 1;
    bits.state.ascii = 1;
    memcpy(&mask, &bits.state, sizeof(mask));
    memcpy(&state, &((PyASCIIObject *)o)->state, sizeof(state));
    return (state & mask) == mask;
}

/* The UTF-8 of an exact str that CPython already holds: a compact ASCII str's own
 * characters (right after its PyASCIIObject), or the UTF-8 a non-ASCII one caches once
 * it has been asked for it (PyUnicode_AsUTF8AndSize); NULL when it holds none yet. */
ZP_ALWAYS_INLINE const char *zp_str_utf8_held(PyObject *o, Py_ssize_t *n) {
    if (ZP_LIKELY(zp_is_compact_ascii(o))) {        /* (laid out in line: most strs are ASCII) */
        *n = PyUnicode_GET_LENGTH(o);
        return (const char *)((PyASCIIObject *)o + 1);
    }
#if PY_VERSION_HEX < 0x030E0000
    if (PyUnicode_IS_COMPACT(o) && ((PyCompactUnicodeObject *)o)->utf8 != NULL) {
        *n = ((PyCompactUnicodeObject *)o)->utf8_length;
        return ((PyCompactUnicodeObject *)o)->utf8;
    }
#endif
    return NULL;
}

/* A bytes object nothing else has seen yet cut to its first n bytes where it is, with
 * no realloc (as msgspec's encoder ends its output): the memory past them stays the
 * object's, freed with it. */
static inline void zp_bytes_shrink(PyObject *b, Py_ssize_t n) {
    Py_SET_SIZE(b, n);
    PyBytes_AS_STRING(b)[n] = '\0';
}

/* A datetime of type (the datetime module's DateTimeType) with these fields, tzinfo tz
 * (a reference taken) and fold 0, made as the module's own constructor (new_datetime_ex2)
 * makes it: the type's tp_alloc, then the fields in datetime.h's public layout (the year
 * big-endian in data[0..1], the microsecond in data[7..9], as the PyDateTime_GET_ macros
 * read them). Without that constructor's call through the C API capsule, its range
 * checks (the caller's fields are in range by construction: zp_civil.h) and its test of
 * tz's type. */
static PyObject *zp_new_datetime(PyTypeObject *type, int year, int month, int day, int hour, int minute,
                                 int second, int usecond, PyObject *tz) {
    PyDateTime_DateTime *self = (PyDateTime_DateTime *)type->tp_alloc(type, 1);
    if (self == NULL)
        return NULL;
    self->hashcode = -1;
    self->hastzinfo = 1;
    self->data[0] = (unsigned char)(year >> 8);
    self->data[1] = (unsigned char)year;
    self->data[2] = (unsigned char)month;
    self->data[3] = (unsigned char)day;
    self->data[4] = (unsigned char)hour;
    self->data[5] = (unsigned char)minute;
    self->data[6] = (unsigned char)second;
    self->data[7] = (unsigned char)(usecond >> 16);
    self->data[8] = (unsigned char)(usecond >> 8);
    self->data[9] = (unsigned char)usecond;
    self->fold = 0;
    Py_INCREF(tz);
    self->tzinfo = tz;
    return (PyObject *)self;
}

/* Whether an exact int is 0. */
static inline int zp_long_is_zero(PyObject *o) {
#if PY_VERSION_HEX >= 0x030C0000
    return _PyLong_IsCompact((PyLongObject *)o) && _PyLong_CompactValue((PyLongObject *)o) == 0;
#else
    return Py_SIZE(o) == 0;
#endif
}

#endif
