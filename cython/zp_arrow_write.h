/* The Arrow writer's own C (_arrow_write.pxi): its output buffer, word copies of the
 * bytes compiled into its columns, the split of a timestamp, and the check that a
 * map's keys are distinct. Plain C, callable without the GIL; the msgpack it writes
 * is stored by zp_write.h, into room made here. */
#ifndef ZP_ARROW_WRITE_H
#define ZP_ARROW_WRITE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <Python.h>     /* Py_ssize_t only */
#include "zp_civil.h"
#include "zp_wire.h"

/* The records written so far: data[0..pos), cap bytes of room (a bytes object's,
 * which _arrow_write.pxi grows and hands over). */
typedef struct {
    unsigned char *data;
    Py_ssize_t pos;
    Py_ssize_t cap;
} zp_out;

/* The n bytes at src copied to dst as 8-byte words; returns dst + n. For the bytes
 * compiled into the columns (keys, struct names, constant fields), which are kept
 * padded with zeros to a multiple of 8 bytes: dst has 8 bytes of room past n (the
 * writer's slack). One word for a zid key, where memcpy of a variable size is a call. */
ZP_ALWAYS_INLINE unsigned char *zp_copy_words(unsigned char *dst, const unsigned char *src, Py_ssize_t n) {
    memcpy(dst, src, 8);
    for (Py_ssize_t k = 8; k < n; k += 8)
        memcpy(dst + k, src + k, 8);
    return dst + n;
}

/* An Arrow timestamp of v units (per_second of them a second) as Go's time: Unix
 * seconds (floored) and nanoseconds. Each unit's division by a constant, which the
 * compiler turns into a multiplication. */
ZP_ALWAYS_INLINE void zp_split_timestamp(int64_t v, int64_t per_second, int64_t *seconds, uint32_t *nanos) {
    int64_t s;
    switch (per_second) {
    case 1000000000:
        s = zp_floor_div(v, 1000000000);
        *nanos = (uint32_t)(v - s * 1000000000);
        break;
    case 1000000:
        s = zp_floor_div(v, 1000000);
        *nanos = (uint32_t)((v - s * 1000000) * 1000);
        break;
    case 1000:
        s = zp_floor_div(v, 1000);
        *nanos = (uint32_t)((v - s * 1000) * 1000000);
        break;
    default:
        s = v;
        *nanos = 0;
    }
    *seconds = s;
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
