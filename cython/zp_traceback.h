/* Tracebacks of errors raised deep in a nested value.
 *
 * An exception leaving N levels of the decoder's or encoder's recursion carries
 * one traceback entry per C function it passed: thousands for a hostile input
 * that reaches max_depth or the stack guard. CPython frees such a chain by
 * recursion (tb_dealloc calls itself once per entry, plus a tracer's frames when
 * tracemalloc has ever run), so the chain can overflow a small thread's stack
 * when it is freed, possibly much later by the garbage collector in some other
 * thread. The core's error exits keep the outermost and innermost entries (the
 * call into the core; where the error was raised, with any Python code it ran)
 * and free the middle here, one entry at a time. */
#ifndef ZP_TRACEBACK_H
#define ZP_TRACEBACK_H

#include <Python.h>

#define ZP_TB_KEEP_OUTER 8
#define ZP_TB_KEEP_INNER 24

/* Shortens the chain starting at tb (a traceback object, or NULL) in place. */
static void zp_traceback_shorten(PyObject *tb) {
    PyTracebackObject *head = (PyTracebackObject *)tb, *node, *cut, *tail, *next;
    Py_ssize_t n = 0, i;
    if (tb == NULL || !PyTraceBack_Check(tb))
        return;
    for (node = head; node != NULL; node = node->tb_next)
        n++;
    if (n <= ZP_TB_KEEP_OUTER + ZP_TB_KEEP_INNER)
        return;
    cut = head;                                   /* the last outer entry kept */
    for (i = 1; i < ZP_TB_KEEP_OUTER; i++)
        cut = cut->tb_next;
    tail = cut;                                   /* the first inner entry kept */
    for (i = ZP_TB_KEEP_OUTER; i < n - ZP_TB_KEEP_INNER + 1; i++)
        tail = tail->tb_next;
    node = cut->tb_next;                          /* cut's reference, now ours */
    Py_INCREF(tail);
    cut->tb_next = tail;
    while (node != tail) {
        next = node->tb_next;                     /* node's reference, now ours */
        node->tb_next = NULL;
        Py_DECREF(node);                          /* frees node alone: its chain is cut */
        node = next;
    }
    Py_DECREF(tail);                              /* the last dropped entry's reference */
}

/* The pending exception's traceback shortened (nothing pending: nothing done). */
static void zp_traceback_shorten_pending(void) {
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *exc = PyErr_GetRaisedException();
    if (exc == NULL)
        return;
    PyObject *tb = PyException_GetTraceback(exc);
    zp_traceback_shorten(tb);
    Py_XDECREF(tb);
    PyErr_SetRaisedException(exc);
#else
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    zp_traceback_shorten(tb);
    PyErr_Restore(type, value, tb);
#endif
}

#endif
