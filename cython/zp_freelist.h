/* A freelist for the memory of record instances: the instances of slots classes
 * whose C base is RecordBase or FrozenRecordBase (_record.pxi), which is where
 * the decoder's records come from and go back to. A record that is decoded,
 * used and dropped (a request, a message, a row) leaves its memory here, and the
 * next record of the same slot count takes it back without pymalloc and the
 * collector's allocation bookkeeping: CPython keeps its floats, tuples and dicts
 * the same way, and msgspec kept its Structs so.
 *
 * Only memory whose layout is known exactly goes in: the instances of a GC type
 * of 1 to ZP_FREE_CLASSES object slots and nothing else (no items, no __dict__
 * or weakref pre-header), allocated by PyType_GenericAlloc and freed by
 * PyObject_GC_Del. Such a block is PyObject_Malloc'ed memory of exactly
 * ZP_GC_HEAD + tp_basicsize bytes, the collector's header first. A block
 * is taken back zeroed and initialized as PyType_GenericAlloc would (one
 * reference, a new reference to its type), but left untracked: the decoder
 * tracks a record once it knows it holds a container.
 *
 * The collector's count of young objects is not decremented when a block goes
 * in, nor incremented when it comes back out: a block in the list counts as
 * one allocated object, which can bring the next young collection forward by
 * at most the list's length, once.
 *
 * Off (every class -1) where the layout is not the one above: free-threaded
 * builds, Python versions this was not written and tested for, and until
 * zp_freelist_init has checked the collector's header size. All calls
 * hold the GIL. zp_free_records() empties the lists (a full collection does,
 * through the gc callback _record.pxi registers). */
#ifndef ZP_FREELIST_H
#define ZP_FREELIST_H

#include <Python.h>
#include <string.h>

#if !defined(Py_GIL_DISABLED) && PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030E0000
#define ZP_FREELIST 1
#else
#define ZP_FREELIST 0
#endif

#define ZP_FREE_CLASSES 64      /* records of 1 to 64 slots */
#define ZP_FREE_BYTES 65536     /* kept per slot count: 4 MiB at the very most in all */

#ifdef Py_TPFLAGS_MANAGED_WEAKREF
#define ZP_PREHEADER_FLAGS (Py_TPFLAGS_MANAGED_DICT | Py_TPFLAGS_MANAGED_WEAKREF)
#else
#define ZP_PREHEADER_FLAGS Py_TPFLAGS_MANAGED_DICT
#endif

/* The collector's header before every GC object (PyGC_Head, internal since 3.11:
 * two words on every version above). zp_freelist_init checks it. */
#define ZP_GC_HEAD (2 * sizeof(uintptr_t))

static int zp_freelist_on;
static PyObject *zp_free_head[ZP_FREE_CLASSES];    /* linked through ob_type */
static int zp_free_len[ZP_FREE_CLASSES];
static int zp_free_cap[ZP_FREE_CLASSES];            /* ZP_FREE_BYTES in blocks of that size */

/* On when this Python has the layout above; gc_head: what sys.getsizeof adds to
 * a GC object's own size (its pre-header). */
static inline void zp_freelist_init(Py_ssize_t gc_head) {
    int k;
    for (k = 0; k < ZP_FREE_CLASSES; k++)
        zp_free_cap[k] = (int)(ZP_FREE_BYTES / (ZP_GC_HEAD + sizeof(PyObject) + (size_t)(k + 1) * sizeof(PyObject *)));
    zp_freelist_on = ZP_FREELIST && gc_head == (Py_ssize_t)ZP_GC_HEAD;
}

static inline int zp_freelist_enabled(void) {
    return zp_freelist_on;
}

/* The list tp's instances may use: their slot count - 1, or -1 when their memory
 * does not have the layout described above. */
static inline Py_ssize_t zp_free_class(PyTypeObject *tp) {
#if ZP_FREELIST
    Py_ssize_t n = ((Py_ssize_t)tp->tp_basicsize - (Py_ssize_t)sizeof(PyObject)) / (Py_ssize_t)sizeof(PyObject *);
    if (!zp_freelist_on || !PyType_IS_GC(tp) || tp->tp_itemsize != 0 || (tp->tp_flags & ZP_PREHEADER_FLAGS)
        || n < 1 || n > ZP_FREE_CLASSES
        || (Py_ssize_t)tp->tp_basicsize != (Py_ssize_t)sizeof(PyObject) + n * (Py_ssize_t)sizeof(PyObject *)
        || tp->tp_alloc != PyType_GenericAlloc || tp->tp_free != PyObject_GC_Del)
        return -1;
    return n - 1;
#else
    (void)tp;
    return -1;
#endif
}

/* tp_dealloc of RecordBase and FrozenRecordBase. subtype_dealloc calls it last,
 * once the instance's finalizer ran, its weak references and slots were cleared
 * and it left the collector's lists: only the memory is left. */
static void zp_record_dealloc(PyObject *o) {
    PyTypeObject *tp = Py_TYPE(o);
    Py_ssize_t k = zp_free_class(tp);
    if (k >= 0 && zp_free_len[k] < zp_free_cap[k]) {
        PyObject_GC_UnTrack(o);     /* a no-op when untracked, as it is from subtype_dealloc */
        Py_SET_TYPE(o, (PyTypeObject *)zp_free_head[k]);
        zp_free_head[k] = o;
        zp_free_len[k]++;
        return;
    }
    tp->tp_free(o);
}

/* Whether instances of tp are freed by zp_record_dealloc: the first tp_dealloc on
 * its chain of bases that is not its own heap class's (subtype_dealloc) is it. */
static inline int zp_frees_records(PyTypeObject *tp) {
    destructor subtype = (tp->tp_flags & Py_TPFLAGS_HEAPTYPE) ? tp->tp_dealloc : NULL;
    PyTypeObject *base = tp;
    while (subtype != NULL && base != NULL && base->tp_dealloc == subtype)
        base = base->tp_base;
    return base != NULL && base->tp_dealloc == zp_record_dealloc;
}

/* Instances of tp (a static type of this module) are freed by zp_record_dealloc. */
static inline void zp_use_record_dealloc(PyTypeObject *tp) {
    tp->tp_dealloc = zp_record_dealloc;
}

/* A new instance of tp, as tp->tp_alloc(tp, 0) makes it; k: zp_free_class(tp) for
 * a class freed by zp_record_dealloc, else -1. *tracked: whether the collector
 * tracks it (tp_alloc's instances) or not (the freelist's). */
static inline PyObject *zp_alloc_record(PyTypeObject *tp, Py_ssize_t k, int *tracked) {
    PyObject *o;
    if (k >= 0 && (o = zp_free_head[k]) != NULL) {
        zp_free_head[k] = (PyObject *)Py_TYPE(o);
        zp_free_len[k]--;
        memset((char *)o - ZP_GC_HEAD, 0, ZP_GC_HEAD + (size_t)tp->tp_basicsize);
        PyObject_Init(o, tp);
        *tracked = 0;
        return o;
    }
    *tracked = 1;
    return tp->tp_alloc(tp, 0);
}

/* Give every block back to pymalloc; returns how many there were. */
static Py_ssize_t zp_free_records(void) {
    Py_ssize_t freed = 0;
    int k;
    PyObject *o;
    for (k = 0; k < ZP_FREE_CLASSES; k++) {
        while ((o = zp_free_head[k]) != NULL) {
            zp_free_head[k] = (PyObject *)Py_TYPE(o);
            PyObject_Free((char *)o - ZP_GC_HEAD);
            freed++;
        }
        zp_free_len[k] = 0;
    }
    return freed;
}

#endif
