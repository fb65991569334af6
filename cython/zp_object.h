/* Direct access to the member slots of __slots__ classes (dataclass(slots=True)).
 * The offsets come from the class's own member descriptors, read once when a
 * schema is compiled; instances come from tp_alloc, as object.__new__ would
 * (or from zp_freelist.h's blocks, made as tp_alloc makes them). */
#ifndef ZP_OBJECT_H
#define ZP_OBJECT_H

#include <Python.h>
#include <structmember.h>

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
static inline int zp_small_long(PyObject *o, long long *out) {
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

/* Whether an exact int is 0. */
static inline int zp_long_is_zero(PyObject *o) {
#if PY_VERSION_HEX >= 0x030C0000
    return _PyLong_IsCompact((PyLongObject *)o) && _PyLong_CompactValue((PyLongObject *)o) == 0;
#else
    return Py_SIZE(o) == 0;
#endif
}

#endif
