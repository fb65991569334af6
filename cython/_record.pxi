# The bases of the record classes, and the decoder's untracking of records that
# hold no containers (done in _unpacker.pxi's finish_slots_struct).
#
# A decoded record whose every field value is an object the garbage collector
# does not know (str, bytes, int, float, bool, None, complex, datetime, the Go
# number types...) can never be part of a reference cycle, so the decoder takes
# it off the collector's lists (as msgspec does for its Structs): decode_all of a
# million records no longer makes every collection traverse them. It stays
# correct only while no container gets into such a record unseen:
# - RecordBase (the generated classes, zebrapack.Record) tracks the instance again
#   in its C-level __setattr__ before any collector-managed value is stored in it;
# - FrozenRecordBase (zebrapack.FrozenRecord) is for frozen dataclasses, which
#   refuse every assignment; it has no __setattr__ of its own, because CPython 3.11
#   and 3.12 refuse object.__setattr__ (how a frozen dataclass's __init__ sets its
#   fields) past a C-level __setattr__.
# The ways around both are a member descriptor's __set__
# (type(record).field.__set__(record, value)) and object.__setattr__ (for
# RecordBase from Python 3.13, which no longer refuses it there). Which classes the
# decoder untracks: record_class_untrackable below; docs/performance.md, "Untracked
# records" and "Done on the record-base branch".

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
    """The C base of the generated record classes (under ``GeneratedRecord``) and of
    ``zebrapack.Record``: assigning an attribute tracks an untracked instance again
    when the value is a container, before storing it."""

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

    static int zp_same_setattro(PyTypeObject *a, PyTypeObject *b) {
        return a->tp_setattro == b->tp_setattro;
    }
    """
    int zp_use_object_new(PyTypeObject *tp) except -1
    bint zp_same_setattro(PyTypeObject *a, PyTypeObject *b) noexcept

zp_use_object_new(<PyTypeObject *>RecordBase)


@cython.auto_pickle(False)
cdef class FrozenRecordBase:
    """The C base of ``zebrapack.FrozenRecord``: frozen dataclasses, which refuse every
    assignment, so that it needs no ``__setattr__`` of its own."""


zp_use_object_new(<PyTypeObject *>FrozenRecordBase)

# The memory of their instances goes to zp_freelist.h, for the decoder's next records,
# once the collector's header is known to be the size it assumes.
zp_freelist_init(_sys_module.getsizeof([]) - [].__sizeof__())
zp_use_record_dealloc(<PyTypeObject *>RecordBase)
zp_use_record_dealloc(<PyTypeObject *>FrozenRecordBase)

#: Whether dropped records leave their memory for the next (zp_freelist.h): on for the
#: Python versions it was written for (3.11 to 3.13, with the GIL).
RECORD_FREELIST = zp_freelist_enabled()


def _free_records():
    """Give the memory kept for the next records (zp_freelist.h) back to Python's
    allocator; returns how many blocks there were. A full collection does it too."""
    return zp_free_records()


def _after_collection(phase, info):
    # as CPython clears its own freelists: at the end of every full collection
    if phase == "stop" and info["generation"] == 2:
        zp_free_records()


_gc_module.callbacks.append(_after_collection)


cdef bint record_class_untrackable(object cls) except -1:
    """Whether the decoder may untrack instances of cls that hold no containers: they
    have no __dict__, and every assignment either goes through RecordBase's
    __setattr__ (the class and its bases define none of their own, which could store
    around it) or is refused (a frozen dataclass on FrozenRecordBase)."""
    if cls.__dictoffset__ != 0:
        return False
    if issubclass(cls, RecordBase):
        return (not issubclass(cls, FrozenRecordBase)
                and zp_same_setattro(<PyTypeObject *>cls, <PyTypeObject *>RecordBase))
    if issubclass(cls, FrozenRecordBase):
        params = cls.__dict__.get("__dataclass_params__")    # its own: a frozen dataclass itself
        return params is not None and params.frozen
    return False
