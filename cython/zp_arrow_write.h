/* The Arrow writer's own C (_arrow_write.pxi): its output buffer and the check that a
 * map's keys are distinct. Plain C, callable without the GIL; the msgpack it writes
 * is stored by zp_write.h, into room made here. */
#ifndef ZP_ARROW_WRITE_H
#define ZP_ARROW_WRITE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <Python.h>     /* Py_ssize_t only */

/* The records written so far: data[0..pos), cap bytes allocated. */
typedef struct {
    unsigned char *data;
    Py_ssize_t pos;
    Py_ssize_t cap;
} zp_out;

static int zp_out_grow(zp_out *o, Py_ssize_t n) {
    Py_ssize_t cap = o->cap ? o->cap * 2 : 1 << 16;
    unsigned char *data;
    if (cap < o->pos + n)
        cap = o->pos + n;
    data = (unsigned char *)realloc(o->data, (size_t)cap);
    if (data == NULL)
        return -1;
    o->data = data;
    o->cap = cap;
    return 0;
}

/* Room for n more bytes at data + pos; -1 when memory runs out. */
static inline int zp_out_room(zp_out *o, Py_ssize_t n) {
    return n > o->cap - o->pos ? zp_out_grow(o, n) : 0;
}

/* The n bytes at p appended; -1 when memory runs out. */
static inline int zp_out_raw(zp_out *o, const void *p, Py_ssize_t n) {
    if (zp_out_room(o, n))
        return -1;
    if (n)
        memcpy(o->data + o->pos, p, (size_t)n);
    o->pos += n;
    return 0;
}

/* The first map entry whose key bytes repeat an earlier key's; -1 if none, -2 out of
 * memory. spans: (start, length) of each of the n keys in base. */
static Py_ssize_t zp_duplicate_key(const unsigned char *base, const Py_ssize_t *spans, Py_ssize_t n) {
    Py_ssize_t i, j, size = 16, *table;
    if (n <= 16) {
        for (i = 1; i < n; i++)
            for (j = 0; j < i; j++)
                if (spans[2 * i + 1] == spans[2 * j + 1]
                        && memcmp(base + spans[2 * i], base + spans[2 * j], (size_t)spans[2 * i + 1]) == 0)
                    return i;
        return -1;
    }
    while (size < 2 * n)
        size *= 2;
    table = (Py_ssize_t *)malloc((size_t)size * sizeof(Py_ssize_t));
    if (table == NULL)
        return -2;
    for (i = 0; i < size; i++)
        table[i] = -1;
    for (i = 0; i < n; i++) {
        const unsigned char *key = base + spans[2 * i];
        uint64_t hash = 1469598103934665603ULL;
        for (j = 0; j < spans[2 * i + 1]; j++)
            hash = (hash ^ key[j]) * 1099511628211ULL;
        for (j = (Py_ssize_t)(hash & (uint64_t)(size - 1)); table[j] >= 0; j = (j + 1) & (size - 1)) {
            Py_ssize_t k = table[j];
            if (spans[2 * k + 1] == spans[2 * i + 1]
                    && memcmp(base + spans[2 * k], key, (size_t)spans[2 * i + 1]) == 0) {
                free(table);
                return i;
            }
        }
        table[j] = i;
    }
    free(table);
    return -1;
}

#endif
