/* GoFloat32 and GoUint64: Go's float32 and uint64 inside interface{} values, a float and an
 * int that say their Go type (zebrapack.GoFloat32(1.5), zebrapack.GoUint64(403)).
 *
 * Why in C: the decoder makes one for every float32 or unsigned number of an interface{}
 * value. As classes written in Python they were instances of a heap type with the
 * collector's header: each took a GC allocation and subtype_dealloc's walk, twice the time
 * of a plain float or int (500 in a list decoded 2.4x msgspec's time, which gives plain
 * numbers). Made here from a spec without Py_TPFLAGS_HAVE_GC, they are allocated and freed
 * as a float subclass's bare memory is: no header, nothing for the collector to count.
 * They hold no references, so they can be in no cycle.
 *
 * What they do is what the Python classes did: the constructor takes what float() / int()
 * take, GoFloat32 rounds to the nearest float32 (a NaN keeps its sign and payload bits, as
 * the codec converts it) and refuses a finite value beyond float32's range, GoUint64
 * refuses a value outside 0..2**64-1 (ValueError); arithmetic gives plain numbers; equality,
 * hashing and str are the number's; repr names the type; subclasses and pickles work (the
 * type's name is zebrapack.GoFloat32, as the package exports it). */
#ifndef ZP_GONUMBERS_H
#define ZP_GONUMBERS_H

#include "Python.h"
#include "zp_wire.h"

/* An instance of `type`, a subclass of int that adds no fields (GoUint64), of the value v:
 * what int.__new__(type, v) makes (CPython's long_subtype_new: the subclass's allocation
 * holding the int's size word and digits), its digits written from v here: no argument
 * tuple, no lookups, no int made to be copied. The size word as CPython lays it out:
 * the digit count (3.11), or the count above the sign bits, the sign 1 for zero (3.12
 * on, as zp_long_magnitude reads it). */
static PyObject *zp_int_subtype_u64(PyTypeObject *type, uint64_t v) {
    Py_ssize_t ndigits = 0, i;
    uint64_t rest;
    digit *digits;
    PyObject *self;
    for (rest = v; rest; rest >>= PyLong_SHIFT)
        ndigits++;
    if (!PyType_IS_GC(type) && type->tp_basicsize == PyLong_Type.tp_basicsize && type->tp_alloc == PyType_GenericAlloc) {
        /* GoUint64 itself: allocated as CPython's _PyLong_New allocates (one digit at least) */
        self = (PyObject *)PyObject_Malloc((size_t)PyLong_Type.tp_basicsize + (size_t)(ndigits ? ndigits : 1) * sizeof(digit));
        if (self == NULL)
            return PyErr_NoMemory();
        PyObject_Init(self, type);      /* a heap type: its reference taken */
    } else if ((self = type->tp_alloc(type, ndigits ? ndigits : 1)) == NULL)
        return NULL;
#if PY_VERSION_HEX >= 0x030C0000
    ((PyLongObject *)self)->long_value.lv_tag = ((uintptr_t)ndigits << _PyLong_NON_SIZE_BITS) | (v == 0);
    digits = ((PyLongObject *)self)->long_value.ob_digit;
#else
    Py_SET_SIZE(self, ndigits);
    digits = ((PyLongObject *)self)->ob_digit;
#endif
    digits[0] = 0;          /* 0's digit */
    for (i = 0; i < ndigits; i++, v >>= PyLong_SHIFT)
        digits[i] = (digit)(v & PyLong_MASK);
    return self;
}

/* An instance of `type`, a subclass of float that adds no fields (GoFloat32), of the value
 * x: what float.__new__(type, x) makes (float_subtype_new), without the call. GoFloat32
 * itself (no collector header, a float's size) is allocated as CPython allocates a float
 * when its free list is empty, without tp_alloc's zeroing of what is written here. */
static PyObject *zp_float_subtype(PyTypeObject *type, double x) {
    PyObject *self;
    if (!PyType_IS_GC(type) && type->tp_basicsize == sizeof(PyFloatObject) && type->tp_alloc == PyType_GenericAlloc) {
        self = (PyObject *)PyObject_Malloc(sizeof(PyFloatObject));
        if (self == NULL)
            return PyErr_NoMemory();
        PyObject_Init(self, type);      /* a heap type: its reference taken */
    } else if ((self = type->tp_alloc(type, 0)) == NULL)
        return NULL;
    ((PyFloatObject *)self)->ob_fval = x;
    return self;
}

/* The instance's memory back to its type's allocator, the type's reference dropped (each
 * instance of a heap type holds one). A subclass's subtype_dealloc calls this last. */
static void zp_gonumber_dealloc(PyObject *self) {
    PyTypeObject *type = Py_TYPE(self);
    type->tp_free(self);
    Py_DECREF(type);
}

static PyObject *zp_gofloat32_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *keywords[] = {"value", NULL};
    PyObject *value = NULL, *number;
    uint32_t bits;
    double x;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:GoFloat32", keywords, &value))
        return NULL;
    if (value == NULL)
        x = 0.0;
    else {
        number = PyObject_CallOneArg((PyObject *)&PyFloat_Type, value);     /* what float() takes */
        if (number == NULL)
            return NULL;
        x = PyFloat_AS_DOUBLE(number);
        if (zp_f32_bits_from_double(x, &bits) < 0) {
            PyErr_Format(PyExc_ValueError, "%R overflows float32", number);
            Py_DECREF(number);
            return NULL;
        }
        Py_DECREF(number);
        x = zp_double_from_f32_bits(bits);
    }
    return zp_float_subtype(type, x);
}

static PyObject *zp_gouint64_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *keywords[] = {"value", "base", NULL};
    PyObject *value = NULL, *base = NULL, *number;
    unsigned long long v;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO:GoUint64", keywords, &value, &base))
        return NULL;
    if (value == NULL && (base == NULL || base == Py_None))
        return zp_int_subtype_u64(type, 0);
    /* what int() takes (a base without a value: int(0, base), which refuses it) */
    if (base == NULL || base == Py_None)
        number = PyObject_CallOneArg((PyObject *)&PyLong_Type, value);
    else {
        PyObject *zero = value == NULL ? PyLong_FromLong(0) : NULL;
        if (value == NULL && zero == NULL)
            return NULL;
        number = PyObject_CallFunctionObjArgs((PyObject *)&PyLong_Type, value ? value : zero, base, NULL);
        Py_XDECREF(zero);
    }
    if (number == NULL)
        return NULL;
    v = PyLong_AsUnsignedLongLong(number);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%S is outside the range of uint64 (0..18446744073709551615)", number);
        Py_DECREF(number);
        return NULL;
    }
    Py_DECREF(number);
    return zp_int_subtype_u64(type, (uint64_t)v);
}

/* str: the number's (float's or int's repr, as str(1.5) and str(3) are). */
static PyObject *zp_gonumber_str(PyObject *self) {
    return PyFloat_Check(self) ? PyFloat_Type.tp_repr(self) : PyLong_Type.tp_repr(self);
}

/* repr: the number's, named by its Go type (zebrapack.GoFloat32(1.5)). */
static PyObject *zp_gonumber_repr(PyObject *self) {
    PyObject *number = zp_gonumber_str(self), *text;
    if (number == NULL)
        return NULL;
    text = PyUnicode_FromFormat(PyFloat_Check(self) ? "zebrapack.GoFloat32(%U)" : "zebrapack.GoUint64(%U)", number);
    Py_DECREF(number);
    return text;
}

/* Pickle protocols 0 and 1 (copyreg._reduce_ex) refuse a type whose __new__ is C code:
 * there, (type, (the plain number,), state), the state a subclass's instance holds
 * (object.__getstate__: its __dict__ and slots, or None); protocols 2 on as for any
 * object (__getnewargs__). */
static PyObject *zp_gonumber_reduce_ex(PyObject *self, PyObject *protocol) {
    long proto = PyLong_AsLong(protocol);
    PyObject *number, *state;
    if (proto == -1 && PyErr_Occurred())
        return NULL;
    if (proto >= 2)
        return PyObject_CallMethod((PyObject *)&PyBaseObject_Type, "__reduce_ex__", "OO", self, protocol);
    number = PyFloat_Check(self) ? PyFloat_FromDouble(PyFloat_AS_DOUBLE(self)) : PyNumber_Long(self);
    if (number == NULL)
        return NULL;
    state = PyObject_CallMethod(self, "__getstate__", NULL);
    if (state == NULL) {
        Py_DECREF(number);
        return NULL;
    }
    return Py_BuildValue("(O(N)N)", (PyObject *)Py_TYPE(self), number, state);
}

static PyMethodDef zp_gonumber_methods[] = {
    {"__reduce_ex__", (PyCFunction)zp_gonumber_reduce_ex, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot zp_gofloat32_slots[] = {
    {Py_tp_doc, (void *)
        "GoFloat32(value=0.0)\n--\n\n"
        "A Go ``float32`` in an ``interface{}`` value (written as msgpack float32, ``0xca``).\n\n"
        "Built from any real number, rounded to the nearest float32 (as a float32\n"
        "field rounds); a finite value beyond float32's range is a ``ValueError``."},
    {Py_tp_new, (void *)zp_gofloat32_new},
    {Py_tp_repr, (void *)zp_gonumber_repr},
    {Py_tp_str, (void *)zp_gonumber_str},
    {Py_tp_dealloc, (void *)zp_gonumber_dealloc},
    {Py_tp_methods, (void *)zp_gonumber_methods},
    {0, NULL},
};

static PyType_Slot zp_gouint64_slots[] = {
    {Py_tp_doc, (void *)
        "GoUint64(value=0, base=None)\n--\n\n"
        "A Go ``uint64`` in an ``interface{}`` value (written in the smallest unsigned form,\n"
        "a positive fixint below 128, then ``0xcc-0xcf``). ``ValueError`` outside 0..2**64-1."},
    {Py_tp_new, (void *)zp_gouint64_new},
    {Py_tp_repr, (void *)zp_gonumber_repr},
    {Py_tp_str, (void *)zp_gonumber_str},
    {Py_tp_dealloc, (void *)zp_gonumber_dealloc},
    {Py_tp_methods, (void *)zp_gonumber_methods},
    {0, NULL},
};

/* basicsize and itemsize 0: the base's (a float's; an int's size word and digits). */
static PyType_Spec zp_gofloat32_spec = {
    "zebrapack.GoFloat32", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, zp_gofloat32_slots,
};

static PyType_Spec zp_gouint64_spec = {
    "zebrapack.GoUint64", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, zp_gouint64_slots,
};

static PyObject *zp_make_gofloat32_type(void) {
    return PyType_FromSpecWithBases(&zp_gofloat32_spec, (PyObject *)&PyFloat_Type);
}

static PyObject *zp_make_gouint64_type(void) {
    return PyType_FromSpecWithBases(&zp_gouint64_spec, (PyObject *)&PyLong_Type);
}

#endif
