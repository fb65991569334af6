/* Files C opens itself (the Arrow reader's sources), by the name the OS takes:
 * on POSIX the bytes os.fsencode gives (any name, decodable or not: a str from
 * os.listdir or sys.argv carries undecodable bytes as surrogates), on Windows
 * the UTF-16 name _wfopen takes (fopen would take only the names the ANSI code
 * page can spell). Python's own open() does the same. */
#ifndef ZP_PATH_H
#define ZP_PATH_H

#include <Python.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#ifdef _WIN32
typedef wchar_t zp_path_char;
#else
typedef char zp_path_char;
#endif

/* A malloc'ed copy of a path (str, bytes or os.PathLike) in the OS's own form,
 * for free(); NULL with a Python error set (TypeError, ValueError for an
 * embedded NUL, MemoryError). */
static zp_path_char *zp_path_new(PyObject *path) {
    zp_path_char *copy;
    size_t size;
#ifdef _WIN32
    PyObject *text = NULL;
    wchar_t *wide;
    if (!PyUnicode_FSDecoder(path, &text))
        return NULL;
    wide = PyUnicode_AsWideCharString(text, NULL);     /* NULL size: an embedded NUL is a ValueError */
    Py_DECREF(text);
    if (wide == NULL)
        return NULL;
    size = (wcslen(wide) + 1) * sizeof(wchar_t);
    copy = (zp_path_char *)malloc(size);
    if (copy != NULL)
        memcpy(copy, wide, size);
    PyMem_Free(wide);
#else
    PyObject *encoded = NULL;
    if (!PyUnicode_FSConverter(path, &encoded))       /* checks for an embedded NUL too */
        return NULL;
    size = (size_t)PyBytes_GET_SIZE(encoded) + 1;
    copy = (zp_path_char *)malloc(size);
    if (copy != NULL)
        memcpy(copy, PyBytes_AS_STRING(encoded), size);
    Py_DECREF(encoded);
#endif
    if (copy == NULL)
        PyErr_NoMemory();
    return copy;
}

/* A malloc'ed UTF-8 copy of a path (str, bytes or os.PathLike), or of a text holding
 * one, as messages show it: os.fsdecode's str, its undecodable bytes (surrogates) as
 * backslash escapes. NULL with a Python error set. */
static char *zp_path_display(PyObject *path) {
    PyObject *text = NULL, *utf8;
    char *copy;
    size_t size;
    if (!PyUnicode_FSDecoder(path, &text))
        return NULL;
    utf8 = PyUnicode_AsEncodedString(text, "utf-8", "backslashreplace");
    Py_DECREF(text);
    if (utf8 == NULL)
        return NULL;
    size = (size_t)PyBytes_GET_SIZE(utf8) + 1;
    copy = (char *)malloc(size);
    if (copy != NULL)
        memcpy(copy, PyBytes_AS_STRING(utf8), size);
    Py_DECREF(utf8);
    if (copy == NULL)
        PyErr_NoMemory();
    return copy;
}

/* fopen(path, "rb") by the OS's own name. */
static inline FILE *zp_path_open_read(const zp_path_char *path) {
#ifdef _WIN32
    return _wfopen(path, L"rb");
#else
    return fopen(path, "rb");
#endif
}

#endif
