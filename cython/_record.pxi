# The base of the generated record classes, and the decoder's untracking of
# records that hold no containers (done in _unpacker.pxi's finish_slots_struct).
#
# A decoded record whose every field value is an object the garbage collector
# does not know (str, bytes, int, float, bool, None, complex, datetime, the Go
# number types...) can never be part of a reference cycle, so the decoder takes
# it off the collector's lists (as msgspec does for its Structs): decode_all of a
# million records no longer makes every collection traverse them. It stays
# correct only while no container gets into such a record unseen, so the base
# class's tp_setattro tracks the instance again before any collector-managed
# value is stored in it. The ways around it are a member descriptor's __set__
# (type(record).field.__set__(record, value)) and, from Python 3.13, which no
# longer refuses it for a class with its own C-level __setattr__, object.__setattr__
# (docs/performance.md, "Untracked records").

cdef extern from "Python.h":
    bint PyObject_IS_GC(object o) noexcept
    bint PyObject_GC_IsTracked(object o) noexcept
    void PyObject_GC_Track(void *o) noexcept
    void PyObject_GC_UnTrack(void *o) noexcept
    int PyObject_GenericSetAttr(object o, object name, PyObject *value) except -1


cdef inline bint may_join_cycle(object value) noexcept:
    """Whether the collector could ever see value in a cycle (an untracked exact
    tuple stays untracked: its items are atomic and it cannot change)."""
    return PyObject_IS_GC(value) and (PyObject_GC_IsTracked(value) or not PyTuple_CheckExact(value))


@cython.auto_pickle(False)
cdef class RecordBase:
    """The C base of the generated record classes (under ``GeneratedRecord``):
    assigning an attribute tracks an untracked instance again when the value is
    a container, before storing it."""

    def __setattr__(self, name, value):
        if not PyObject_GC_IsTracked(self) and PyObject_IS_GC(self) and may_join_cycle(value):
            PyObject_GC_Track(<PyObject *>self)
        PyObject_GenericSetAttr(self, name, <PyObject *>value)


cdef extern from *:
    """
    /* Instances of the record classes are made by object.__new__ as those of any
       slots dataclass (object.__new__(cls) stays allowed): the base adds no C state. */
    static int zp_use_object_new(PyTypeObject *tp) {
        tp->tp_new = PyBaseObject_Type.tp_new;
        if (PyDict_DelItemString(tp->tp_dict, "__new__") < 0)
            return -1;
        PyType_Modified(tp);
        return 0;
    }
    """
    int zp_use_object_new(PyTypeObject *tp) except -1

zp_use_object_new(<PyTypeObject *>RecordBase)
