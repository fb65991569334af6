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
#include "zp_write.h"

/* The records written so far: data[0..pos), cap bytes of room (a bytes object's,
 * which _arrow_write.pxi grows and hands over). */
typedef struct {
    unsigned char *data;
    Py_ssize_t pos;
    Py_ssize_t cap;
} zp_out;

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

/* Whether bits offset..offset+length of a validity bitmap are all set (no null). */
static int zp_all_valid(const uint8_t *bitmap, int64_t offset, int64_t length) {
    int64_t i = offset, end = offset + length;
    for (; i < end && (i & 7); i++)
        if (!((bitmap[i >> 3] >> (i & 7)) & 1))
            return 0;
    for (; i + 64 <= end; i += 64) {
        uint64_t w;
        memcpy(&w, bitmap + (i >> 3), 8);
        if (w != ~(uint64_t)0)
            return 0;
    }
    for (; i < end; i++)
        if (!((bitmap[i >> 3] >> (i & 7)) & 1))
            return 0;
    return 1;
}

/* The lanes of a struct's fields: what zp_lanes_write needs of a column to write its
 * values without a call per value. The first member of each column (_arrow_write.pxi's
 * WCol), set when the columns are built (op, key, room) and bound (buffers); utf8_ok
 * moves as the column's UTF-8 is checked (aw_utf8_check). */
enum {
    ZP_LANE_ESCAPE = 0,     /* written by the caller (aw_struct_value): every other case */
    ZP_LANE_CONST,          /* a field without a column: its compiled bytes */
    ZP_LANE_STR,            /* string from utf8, large_utf8 */
    ZP_LANE_BIN,            /* []byte from binary, large_binary */
    ZP_LANE_I64,            /* a signed integer from int64 */
    ZP_LANE_F64,            /* float64 from float64 */
    ZP_LANE_BOOL,
    ZP_LANE_TIME            /* time.Time from a timestamp */
};

typedef struct {
    int op;                         /* ZP_LANE_* */
    int escape;                     /* a struct's field the caller writes (no lane, or deprecated) */
    int omit;                       /* a struct's field: a zero value is left out with its key */
    int large;                      /* STR, BIN: 64-bit offsets */
    const unsigned char *key;       /* the key's bytes, padded (zp_copy_words) */
    Py_ssize_t key_len;             /* CONST: the compiled bytes' */
    Py_ssize_t room_after;          /* the struct's fixed part after this field, slack included */
    const uint8_t *validity;        /* bound per batch */
    const unsigned char *data1;
    const unsigned char *data2;
    int64_t off;
    int64_t first, last;            /* STR, BIN: the data buffer's extent */
    int64_t utf8_ok;                /* STR: data2[first:utf8_ok] is checked UTF-8 */
    int64_t imin, imax;             /* I64: the field's range */
    int64_t per_second;             /* TIME */
} zp_lane;

/* Value j (physical index) of a lane's column, not null, at p (room for a bounded value
 * made; a string's or binary's bytes must fit before limit, room_after kept beyond).
 * Returns its size, 0 when omit leaves a zero value out (positive zero of a float, Go's
 * zero time), -1 when it is not the lane's to
 * write (a string that needs more room or whose UTF-8 is not checked yet, anything to
 * refuse): the caller's general path writes it or refuses it with its message. */
ZP_ALWAYS_INLINE Py_ssize_t zp_lane_value(const zp_lane *f, int64_t j, int omit, unsigned char *p,
                                          const unsigned char *limit) {
    int64_t v, start, stop, seconds;
    uint64_t bits;
    uint32_t nanos;
    const unsigned char *d;
    switch (f->op) {
    case ZP_LANE_STR:
    case ZP_LANE_BIN:
        if (f->large) {
            start = ((const int64_t *)f->data1)[j];
            stop = ((const int64_t *)f->data1)[j + 1];
        } else {
            start = ((const int32_t *)f->data1)[j];
            stop = ((const int32_t *)f->data1)[j + 1];
        }
        if (start < 0 || stop < start || stop > f->last)
            return -1;
        if (stop == start) {
            if (omit)
                return 0;
        } else if (f->op == ZP_LANE_STR) {
            /* inside the checked part, between two characters: valid */
            d = f->data2;
            if (!(start >= f->first && stop < f->utf8_ok && (d[start] & 0xc0) != 0x80 && (d[stop] & 0xc0) != 0x80))
                return -1;
        }
        if (stop - start > limit - p - 5 - f->room_after || stop - start > ZP_MAX_LENGTH32)
            return -1;
        if (f->op == ZP_LANE_STR)
            return zp_store_str(p, f->data2 + start, stop - start);
        v = zp_store_header(p, ZP_BIN, stop - start);
        zp_copy_short(p + v, f->data2 + start, stop - start);
        return v + stop - start;
    case ZP_LANE_I64:
        v = ((const int64_t *)f->data1)[j];
        if (v == 0 && omit)
            return 0;
        if (v < f->imin || v > f->imax)
            return -1;
        return zp_store_signed(p, v);
    case ZP_LANE_F64:
        bits = ((const uint64_t *)f->data1)[j];     /* float64 to float64: the bits as they are */
        if (bits == 0 && omit)                   /* (positive zero) */
            return 0;
        return zp_store_f64_bits(p, bits);
    case ZP_LANE_BOOL:
        if ((f->data1[j >> 3] >> (j & 7)) & 1) {
            *p = ZP_TRUE;
            return 1;
        }
        if (omit)
            return 0;
        *p = ZP_FALSE;
        return 1;
    case ZP_LANE_TIME:
        zp_split_timestamp(((const int64_t *)f->data1)[j], f->per_second, &seconds, &nanos);
        if (omit && seconds == ZP_GO_ZERO_SECONDS && nanos == 0)
            return 0;
        return zp_store_time(p, seconds, nanos);
    default:
        return -1;
    }
}

/* Fields k.. of a struct (fields[k..n), their values at index at of the columns) written
 * from *pp, within limit (the output's end; room for the struct's fixed part was made:
 * each field's key and bounded value, and room_after beyond), counted in *count, while
 * each is one the lanes write (zp_lane_value). Returns the index of the first field left
 * to the caller (one it escapes, a null, a value zp_lane_value leaves: the caller writes
 * it, or refuses it with its message, and calls again from the next one); n when all
 * are written. */
static Py_ssize_t zp_lanes_write(zp_lane *const *fields, Py_ssize_t k, Py_ssize_t n, int64_t at,
                                 unsigned char **pp, const unsigned char *limit, Py_ssize_t *count) {
    unsigned char *p = *pp, *value;
    Py_ssize_t written = *count, size;
    for (; k < n; k++) {
        const zp_lane *f = fields[k];
        int64_t j = at + f->off;
        if (f->escape)              /* (ZP_LANE_ESCAPE included) */
            break;
        if (f->op == ZP_LANE_CONST) {
            if (f->key_len) {
                p = zp_copy_words(p, f->key, f->key_len);
                written++;
            }
            continue;
        }
        /* (a bitmap without a null is dropped when the batch is bound) */
        if (f->validity != NULL && !((f->validity[j >> 3] >> (j & 7)) & 1))
            break;
        value = zp_copy_words(p, f->key, f->key_len);
        size = zp_lane_value(f, j, f->omit, value, limit);
        if (size < 0)
            break;              /* (the key is written again by the caller) */
        if (size > 0) {         /* (0: the value and its key left out) */
            p = value + size;
            written++;
        }
    }
    *pp = p;
    *count = written;
    return k;
}

/* Rows r.. (to stop) of a root struct whose n fields all have lanes, each a map of at
 * most 15 entries (a fixmap: its header one byte), with_name: the struct's name entry
 * first (name, name_len, padded); validity, off: the root's; room: the struct's fixed
 * part's bound. Written into out until the output holds chunk_bytes (*full set) or a
 * row is one the lanes leave (a null row, a field left, no room for the fixed part, no
 * room for its end in ends): that row is left whole to the caller. ends (NULL when
 * not wanted): each record's end, *n_ends of ends_cap. Returns the first row not
 * written. */
static int64_t zp_rows_write(zp_lane *const *fields, Py_ssize_t n, const unsigned char *name, Py_ssize_t name_len,
                             int with_name, Py_ssize_t room, const uint8_t *validity, int64_t off, int64_t r,
                             int64_t stop, zp_out *out, Py_ssize_t chunk_bytes, int64_t *ends, Py_ssize_t ends_cap,
                             Py_ssize_t *n_ends, int *full) {
    unsigned char *base = out->data, *p = base + out->pos, *head;
    const unsigned char *limit = base + out->cap;
    Py_ssize_t count;
    *full = 0;
    for (; r < stop; r++) {
        int64_t at = r + off;
        if ((validity != NULL && !((validity[at >> 3] >> (at & 7)) & 1)) || limit - p < room
                || (ends != NULL && *n_ends == ends_cap))
            break;
        head = p++;
        count = 0;
        if (with_name) {
            p = zp_copy_words(p, name, name_len);
            count = 1;
        }
        if (zp_lanes_write(fields, 0, n, at, &p, limit, &count) < n) {
            p = head;
            break;
        }
        zp_store_header(head, ZP_MAP, count);      /* (count <= 15: one byte) */
        if (ends != NULL)
            ends[(*n_ends)++] = p - base;
        if (p - base >= chunk_bytes) {
            r++;
            *full = 1;
            break;
        }
    }
    out->pos = p - base;
    return r;
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
