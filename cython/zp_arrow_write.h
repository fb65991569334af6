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
#include "zp_columnar.h"    /* zp_utf8_invalid_at */
#include "zp_wire.h"
#include "zp_write.h"

/* A point the code never reaches (a switch's impossible default). */
#if defined(__GNUC__) || defined(__clang__)
#define ZP_UNREACHABLE() __builtin_unreachable()
#elif defined(_MSC_VER)
#define ZP_UNREACHABLE() __assume(0)
#else
#define ZP_UNREACHABLE() ((void)0)
#endif

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
    if (per_second == 1000000000) {     /* (the unit zebrapack.arrow reads into: tested first) */
        s = zp_floor_div(v, 1000000000);
        *seconds = s;
        *nanos = (uint32_t)(v - s * 1000000000);
        return;
    }
    switch (per_second) {
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
    uint64_t key_word;              /* the key's first 8 bytes (padded): all of it when key_len <= 8 */
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
 * refuse): the caller's general path writes it or refuses it with its message.
 * checked 0 (a constant: the checks compile away): the value is one of rows the caller
 * checked in bulk (zp_rows_clean: offsets, UTF-8, range, room), written without them.
 * op: f->op, or that op as a constant (zp_rows_run_clean: no second dispatch). */
ZP_ALWAYS_INLINE Py_ssize_t zp_lane_store_op(const zp_lane *f, int64_t j, int omit, unsigned char *p,
                                             const unsigned char *limit, const int checked, const int op) {
    int64_t v, start, stop, seconds;
    uint64_t bits;
    uint32_t nanos;
    const unsigned char *d;
    switch (op) {
    case ZP_LANE_STR:
    case ZP_LANE_BIN:
        if (f->large) {
            start = ((const int64_t *)f->data1)[j];
            stop = ((const int64_t *)f->data1)[j + 1];
        } else {
            start = ((const int32_t *)f->data1)[j];
            stop = ((const int32_t *)f->data1)[j + 1];
        }
        if (checked && (start < 0 || stop < start || stop > f->last))
            return -1;
        if (ZP_UNLIKELY(stop == start)) {
            if (omit)
                return 0;
        } else if (checked && op == ZP_LANE_STR) {
            /* inside the checked part, between two characters: valid */
            d = f->data2;
            if (!(start >= f->first && stop < f->utf8_ok && (d[start] & 0xc0) != 0x80 && (d[stop] & 0xc0) != 0x80))
                return -1;
        }
        if (checked && (stop - start > limit - p - 5 - f->room_after || stop - start > ZP_MAX_LENGTH32))
            return -1;
        if (op == ZP_LANE_STR)
            return zp_store_str(p, f->data2 + start, stop - start);
        v = zp_store_header(p, ZP_BIN, stop - start);
        zp_copy_short(p + v, f->data2 + start, stop - start);
        return v + stop - start;
    case ZP_LANE_I64:
        v = ((const int64_t *)f->data1)[j];
        if (ZP_UNLIKELY(v == 0) && omit)
            return 0;
        if (checked && (v < f->imin || v > f->imax))
            return -1;
        return zp_store_signed(p, v);
    case ZP_LANE_F64:
        bits = ((const uint64_t *)f->data1)[j];     /* float64 to float64: the bits as they are */
        if (ZP_UNLIKELY(bits == 0) && omit)      /* (positive zero) */
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

ZP_ALWAYS_INLINE Py_ssize_t zp_lane_store(const zp_lane *f, int64_t j, int omit, unsigned char *p,
                                          const unsigned char *limit, const int checked) {
    return zp_lane_store_op(f, j, omit, p, limit, checked, f->op);
}

ZP_ALWAYS_INLINE Py_ssize_t zp_lane_value(const zp_lane *f, int64_t j, int omit, unsigned char *p,
                                          const unsigned char *limit) {
    return zp_lane_store(f, j, omit, p, limit, 1);
}

/* The key of lane f at p (8 bytes of slack past it); returns where its value goes. A
 * key of at most 8 bytes (a zid's, most tags) is one store of its word. */
ZP_ALWAYS_INLINE unsigned char *zp_lane_key(unsigned char *p, const zp_lane *f) {
    if (f->key_len <= 8) {
        memcpy(p, &f->key_word, 8);
        return p + f->key_len;
    }
    return zp_copy_words(p, f->key, f->key_len);
}

/* Fields k.. of a struct (fields[k..n), their values at index at of the columns) written
 * from *pp, within limit (the output's end; room for the struct's fixed part was made:
 * each field's key and bounded value, and room_after beyond), counted in *count, while
 * each is one the lanes write (zp_lane_store). Returns the index of the first field left
 * to the caller (one it escapes, a null, a value zp_lane_store leaves: the caller writes
 * it, or refuses it with its message, and calls again from the next one); n when all
 * are written. checked: as zp_lane_store's (0: fields that all have lanes, at a row
 * checked in bulk, with its room made); nulls 0: no field's value is null here (their
 * bitmaps are not read). */
ZP_ALWAYS_INLINE Py_ssize_t zp_lanes_run(zp_lane *const *fields, Py_ssize_t k, Py_ssize_t n, int64_t at,
                                         unsigned char **pp, const unsigned char *limit, Py_ssize_t *count,
                                         const int checked, const int nulls) {
    unsigned char *p = *pp, *value;
    Py_ssize_t written = *count, size;
    for (; k < n; k++) {
        const zp_lane *f = fields[k];
        int64_t j = at + f->off;
        if (checked && f->escape)   /* (ZP_LANE_ESCAPE included) */
            break;
        if (f->op == ZP_LANE_CONST) {
            if (f->key_len) {
                p = zp_lane_key(p, f);
                written++;
            }
            continue;
        }
        /* (a bitmap without a null is dropped when the batch is bound) */
        if (nulls && f->validity != NULL && !((f->validity[j >> 3] >> (j & 7)) & 1))
            break;
        value = zp_lane_key(p, f);
        size = zp_lane_store(f, j, f->omit, value, limit, checked);
        if (checked && size < 0)
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

static Py_ssize_t zp_lanes_write(zp_lane *const *fields, Py_ssize_t k, Py_ssize_t n, int64_t at,
                                 unsigned char **pp, const unsigned char *limit, Py_ssize_t *count) {
    return zp_lanes_run(fields, k, n, at, pp, limit, count, 1, 1);
}

/* A row of a root struct written up to p: its map header at head (a fixmap: count <= 15
 * entries), its end in ends (NULL: not wanted). Whether the output holds chunk_bytes. */
ZP_ALWAYS_INLINE int zp_row_done(unsigned char *head, Py_ssize_t count, const unsigned char *p,
                                 const unsigned char *base, int64_t *ends, Py_ssize_t *n_ends,
                                 Py_ssize_t chunk_bytes) {
    *head = (unsigned char)(0x80 | count);
    if (ends != NULL)
        ends[(*n_ends)++] = p - base;
    return p - base >= chunk_bytes;
}

/* Rows r.. (to stop) of a root struct whose n fields all have lanes, each a map of at
 * most 15 entries (a fixmap: its header one byte), with_name: the struct's name entry
 * first (name, name_len, padded); validity, off: the root's; room: the struct's fixed
 * part's bound. Written into out until the output holds chunk_bytes (*full set) or a
 * row is one the lanes leave (a null row, a field left, no room for its end in ends;
 * checked: no room for the fixed part): that row is left whole to the caller. ends
 * (NULL when not wanted): each record's end, *n_ends of ends_cap. Returns the first row
 * not written. checked 0: rows r..stop were checked in bulk and their room made
 * (zp_rows_write); nulls 0: none of them is null, nor any of their values (rows both
 * clean and without a null go to zp_rows_run_clean when their keys allow it). */
ZP_ALWAYS_INLINE int64_t zp_rows_run(zp_lane *const *fields, Py_ssize_t n, const unsigned char *name,
                                     Py_ssize_t name_len, int with_name, Py_ssize_t room, const uint8_t *validity,
                                     int64_t off, int64_t r, int64_t stop, zp_out *out, Py_ssize_t chunk_bytes,
                                     int64_t *ends, Py_ssize_t ends_cap, Py_ssize_t *n_ends, int *full,
                                     const int checked, const int nulls) {
    unsigned char *base = out->data, *p = base + out->pos, *head;
    const unsigned char *limit = base + out->cap;
    Py_ssize_t count;
    for (; r < stop; r++) {
        int64_t at = r + off;
        if ((nulls && validity != NULL && !((validity[at >> 3] >> (at & 7)) & 1)) || (checked && limit - p < room)
                || (ends != NULL && *n_ends == ends_cap))
            break;
        head = p++;
        count = 0;
        if (with_name) {
            p = zp_copy_words(p, name, name_len);
            count = 1;
        }
        if (zp_lanes_run(fields, 0, n, at, &p, limit, &count, checked, nulls) < n) {
            p = head;
            break;
        }
        if (zp_row_done(head, count, p, base, ends, n_ends, chunk_bytes)) {
            r++;
            *full = 1;
            break;
        }
    }
    out->pos = p - base;
    return r;
}

/* A clean run's steps (zp_rows_run_clean): a field's lane with its column's buffers
 * moved to the root's row 0 (data1 by the field's offset and the root's; a bitmap by
 * whole bytes, the bit left in off), and where the step's code starts. */
typedef struct {
    zp_lane lane;
    const void *label;          /* threaded steps: the code of lane.op */
} zp_lane_step;

/* The steps of a run that are not lanes' (lane.op): bytes of at most 8 known in advance
 * (the struct's name entry, a CONST), stored as one word (key_word); the end of a row. */
enum { ZP_STEP_WORD = ZP_LANE_TIME + 1, ZP_STEP_END };

/* With labels as values (zp_wire.h) the steps are threaded: each one's code ends in a
 * jump to the next one's, an indirect jump a field predicted from where it stands, with
 * no loop test and no bounds test of a switch; elsewhere a switch in a loop runs the
 * same code. */
#ifdef ZP_LABELS_AS_VALUES
#define ZP_STEPS_BEGIN goto *s->label;
#define ZP_STEP(op) step_##op:
#define ZP_STEPS_NEXT do { s++; goto *s->label; } while (0)
#define ZP_STEPS_END step_ZP_STEP_END:;
#else
#define ZP_STEPS_BEGIN dispatch: switch (s->lane.op)
#define ZP_STEP(op) case op:
#define ZP_STEPS_NEXT do { s++; goto dispatch; } while (0)
#define ZP_STEPS_END case ZP_STEP_END: break; default: ZP_UNREACHABLE();
#endif

/* The value of a step of op (the field's key word stored first, its value after the
 * key: a value left out (0) leaves neither); j: the value's index in the moved buffers. */
#define ZP_VALUE_STEP(op, j) \
    ZP_STEP(op) \
        memcpy(p, &s->lane.key_word, 8); \
        size = zp_lane_store_op(&s->lane, (j), s->lane.omit, p + s->lane.key_len, NULL, 0, op); \
        if (size > 0) \
            p += s->lane.key_len + size; \
        else \
            count--; \
        ZP_STEPS_NEXT;

/* zp_rows_run's clean case: rows r..stop (root's physical index r + off) checked in
 * bulk and found clean, none of them or their values null, their room made, every key
 * but a CONST's of at most 8 bytes (zp_short_keys), the name and n fields 15 entries at
 * most (a fixmap). Its arguments and
 * result as zp_rows_run's. */
static int64_t zp_rows_run_clean(zp_lane *const *fields, Py_ssize_t n, const unsigned char *name,
                                 Py_ssize_t name_len, int with_name, int64_t off, int64_t r, int64_t stop,
                                 zp_out *out, Py_ssize_t chunk_bytes, int64_t *ends, Py_ssize_t ends_cap,
                                 Py_ssize_t *n_ends, int *full) {
    unsigned char *base = out->data, *p = base + out->pos, *head;
    zp_lane_step steps[16];     /* the name and the fields (15 entries at most), the end */
    const zp_lane_step *s;
    Py_ssize_t entries = 0, count, size, k, at;
#ifdef ZP_LABELS_AS_VALUES
    static const void *const labels[] = {
        [ZP_LANE_CONST] = &&step_ZP_LANE_CONST, [ZP_LANE_STR] = &&step_ZP_LANE_STR,
        [ZP_LANE_BIN] = &&step_ZP_LANE_BIN, [ZP_LANE_I64] = &&step_ZP_LANE_I64,
        [ZP_LANE_F64] = &&step_ZP_LANE_F64, [ZP_LANE_BOOL] = &&step_ZP_LANE_BOOL,
        [ZP_LANE_TIME] = &&step_ZP_LANE_TIME, [ZP_STEP_WORD] = &&step_ZP_STEP_WORD,
        [ZP_STEP_END] = &&step_ZP_STEP_END};
#endif
    memset(steps, 0, sizeof steps);
    k = 0;
    if (with_name) {
        steps[k].lane.op = name_len <= 8 ? ZP_STEP_WORD : ZP_LANE_CONST;
        steps[k].lane.key = name;
        steps[k].lane.key_len = name_len;
        memcpy(&steps[k].lane.key_word, name, 8);       /* (padded to a multiple of 8) */
        k++;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const zp_lane *f = fields[i];
        if (f->op == ZP_LANE_CONST && f->key_len == 0)
            continue;           /* (a field left out of every record) */
        steps[k].lane = *f;
        at = off + f->off;
        switch (f->op) {
        case ZP_LANE_CONST:
            if (f->key_len <= 8) {
                steps[k].lane.op = ZP_STEP_WORD;
                memcpy(&steps[k].lane.key_word, f->key, 8);
            }
            break;
        case ZP_LANE_STR:
        case ZP_LANE_BIN:
            steps[k].lane.data1 += at * (f->large ? 8 : 4);
            break;
        case ZP_LANE_I64:
        case ZP_LANE_F64:
        case ZP_LANE_TIME:
            steps[k].lane.data1 += at * 8;
            break;
        case ZP_LANE_BOOL:
            steps[k].lane.data1 += at >> 3;
            steps[k].lane.off = at & 7;
            break;
        default:
            break;
        }
        k++;
    }
    entries = k;
    steps[k++].lane.op = ZP_STEP_END;
#ifdef ZP_LABELS_AS_VALUES
    for (Py_ssize_t i = 0; i < k; i++)
        steps[i].label = labels[steps[i].lane.op];
#endif
    if (ends != NULL && stop - r > ends_cap - *n_ends)
        stop = r + (ends_cap - *n_ends);      /* (the rows whose ends there is room for) */
    for (; r < stop; r++) {
        head = p++;
        count = entries;
        s = steps;
        ZP_STEPS_BEGIN {
        ZP_STEP(ZP_LANE_CONST)     /* its bytes are its key */
            p = zp_copy_words(p, s->lane.key, s->lane.key_len);
            ZP_STEPS_NEXT;
        ZP_STEP(ZP_STEP_WORD)
            memcpy(p, &s->lane.key_word, 8);
            p += s->lane.key_len;
            ZP_STEPS_NEXT;
        ZP_VALUE_STEP(ZP_LANE_STR, r)
        ZP_VALUE_STEP(ZP_LANE_BIN, r)
        ZP_VALUE_STEP(ZP_LANE_I64, r)
        ZP_VALUE_STEP(ZP_LANE_F64, r)
        ZP_VALUE_STEP(ZP_LANE_BOOL, r + s->lane.off)
        ZP_VALUE_STEP(ZP_LANE_TIME, r)
        ZP_STEPS_END
        }
        if (zp_row_done(head, count, p, base, ends, n_ends, chunk_bytes)) {
            r++;
            *full = 1;
            break;
        }
    }
    out->pos = p - base;
    return r;
}

#undef ZP_VALUE_STEP
#undef ZP_STEPS_BEGIN
#undef ZP_STEP
#undef ZP_STEPS_NEXT
#undef ZP_STEPS_END

/* Whether every field's key but a CONST's is of at most 8 bytes (zp_rows_run_clean). */
static int zp_short_keys(zp_lane *const *fields, Py_ssize_t n) {
    for (Py_ssize_t k = 0; k < n; k++)
        if (fields[k]->op != ZP_LANE_CONST && fields[k]->key_len > 8)
            return 0;
    return 1;
}

/* Rows are checked in bulk in blocks of this many (zp_rows_clean), a block's buffers in
 * cache while its rows are written. */
#define ZP_CLEAN_ROWS 1024

/* Which rows of the bound batch were checked in bulk (zp_rows_write): rows from..to,
 * clean or not, with a null (the row's or a value's) or not. Reset (to = 0) when a
 * batch is bound. */
typedef struct {
    int64_t from, to;
    int clean, nulls, short_keys;
} zp_row_check;

/* Whether s[0..n) is all ASCII: the bytes ORed together a word at a time. */
static int zp_all_ascii(const unsigned char *s, int64_t n) {
    uint64_t acc = 0, w, w2, w3, w4;
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {     /* (four words a step: what the compiler vectorises best) */
        memcpy(&w, s + i, 8);
        memcpy(&w2, s + i + 8, 8);
        memcpy(&w3, s + i + 16, 8);
        memcpy(&w4, s + i + 24, 8);
        acc |= (w | w2) | (w3 | w4);
    }
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, s + i, 8);
        acc |= w;
    }
    for (; i < n; i++)
        acc |= s[i];
    return (acc & 0x8080808080808080ULL) == 0;
}

/* Offset k of a string or binary lane's column. */
ZP_ALWAYS_INLINE int64_t zp_lane_offset(const zp_lane *f, int64_t k) {
    return f->large ? ((const int64_t *)f->data1)[k] : ((const int32_t *)f->data1)[k];
}

/* Whether values j..j+rows of lane f (rows >= 1, none of them null but perhaps some)
 * may be written without zp_lane_store's checks, each taken as it would take it: a
 * string or binary column's offsets in order, inside its data buffer and within
 * msgpack's limit; a string column's bytes between them valid UTF-8 and each value
 * starting between two characters (so each value is valid); an int64 column's values
 * in the field's range. Each a pass over the block's buffers, without a branch per value. */
static int zp_lane_clean(const zp_lane *f, int64_t j, int64_t rows) {
    int64_t k, lo, hi, start, stop, bad = 0;
    const unsigned char *d;
    switch (f->op) {
    case ZP_LANE_STR:
    case ZP_LANE_BIN:
        if (f->large) {
            const int64_t *o = (const int64_t *)f->data1 + j;
            for (k = 0; k < rows; k++)
                bad |= o[k + 1] < o[k];
        } else {
            const int32_t *o = (const int32_t *)f->data1 + j;
            for (k = 0; k < rows; k++)
                bad |= o[k + 1] < o[k];
        }
        start = zp_lane_offset(f, j);
        stop = zp_lane_offset(f, j + rows);
        if (bad || start < 0 || stop > f->last || stop - start > ZP_MAX_LENGTH32)
            return 0;
        if (f->op == ZP_LANE_BIN || zp_all_ascii(f->data2 + start, stop - start))
            return 1;
        d = f->data2;
        if (zp_utf8_invalid_at(d + start, stop - start) >= 0)
            return 0;
        for (k = 1; k < rows; k++) {
            int64_t at = zp_lane_offset(f, j + k);
            if (at < stop && (d[at] & 0xc0) == 0x80)
                return 0;
        }
        return 1;
    case ZP_LANE_I64:
        if (f->imin == INT64_MIN && f->imax == INT64_MAX)
            return 1;
        lo = hi = ((const int64_t *)f->data1)[j];
        for (k = 1; k < rows; k++) {
            int64_t v = ((const int64_t *)f->data1)[j + k];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        return lo >= f->imin && hi <= f->imax;
    default:                    /* F64, BOOL, TIME, CONST: every value is taken */
        return 1;
    }
}

/* Whether rows at..at+rows (the root's physical indices) of fields that all have lanes
 * are clean (zp_lane_clean) in every field. */
static int zp_rows_clean(zp_lane *const *fields, Py_ssize_t n, int64_t at, int64_t rows) {
    for (Py_ssize_t k = 0; k < n; k++)
        if (!zp_lane_clean(fields[k], at + fields[k]->off, rows))
            return 0;
    return 1;
}

/* Whether rows at..at+rows (physical indices of the root, whose bitmap is validity) or
 * any of their values in fields may be null. */
static int zp_rows_nulls(zp_lane *const *fields, Py_ssize_t n, const uint8_t *validity, int64_t at, int64_t rows) {
    if (validity != NULL && !zp_all_valid(validity, at, rows))
        return 1;
    for (Py_ssize_t k = 0; k < n; k++)
        if (fields[k]->validity != NULL && !zp_all_valid(fields[k]->validity, at + fields[k]->off, rows))
            return 1;
    return 0;
}

/* The most bytes rows at..at+rows of clean rows take: room a row, and the bytes of
 * their strings and binaries. */
static int64_t zp_rows_bound(zp_lane *const *fields, Py_ssize_t n, Py_ssize_t room, int64_t at, int64_t rows) {
    int64_t bound = rows * room;
    for (Py_ssize_t k = 0; k < n; k++) {
        const zp_lane *f = fields[k];
        if (f->op == ZP_LANE_STR || f->op == ZP_LANE_BIN)
            bound += zp_lane_offset(f, at + f->off + rows) - zp_lane_offset(f, at + f->off);
    }
    return bound;
}

/* zp_rows_run over rows r..stop (its arguments and its result): in blocks of
 * ZP_CLEAN_ROWS checked in bulk first (*check: the block checked last), the rows of a
 * clean block that fit in the room left written without a check per value, the others
 * with them. */
static int64_t zp_rows_write(zp_lane *const *fields, Py_ssize_t n, const unsigned char *name, Py_ssize_t name_len,
                             int with_name, Py_ssize_t room, const uint8_t *validity, int64_t off, int64_t r,
                             int64_t stop, zp_out *out, Py_ssize_t chunk_bytes, int64_t *ends, Py_ssize_t ends_cap,
                             Py_ssize_t *n_ends, int *full, zp_row_check *check) {
    int64_t end, rows, done;
    *full = 0;
    while (r < stop) {
        if (r < check->from || r >= check->to) {
            check->from = r;
            check->to = stop - r > ZP_CLEAN_ROWS ? r + ZP_CLEAN_ROWS : stop;
            check->clean = zp_rows_clean(fields, n, r + off, check->to - r);
            check->nulls = check->clean && zp_rows_nulls(fields, n, validity, r + off, check->to - r);
            check->short_keys = zp_short_keys(fields, n);
        }
        end = check->to;
        if (check->clean) {
            for (rows = end - r; rows > 0; rows /= 2)
                if (zp_rows_bound(fields, n, room, r + off, rows) <= out->cap - out->pos)
                    break;
            if (rows > 0 && !check->nulls && check->short_keys && n + with_name <= 15)
                done = zp_rows_run_clean(fields, n, name, name_len, with_name, off, r, r + rows, out,
                                         chunk_bytes, ends, ends_cap, n_ends, full);
            else if (rows > 0)
                done = zp_rows_run(fields, n, name, name_len, with_name, room, validity, off, r, r + rows, out,
                                   chunk_bytes, ends, ends_cap, n_ends, full, 0, 1);
            if (rows > 0) {
                if (*full || done < r + rows)
                    return done;
                r = done;
                continue;
            }
        }
        done = zp_rows_run(fields, n, name, name_len, with_name, room, validity, off, r, end, out, chunk_bytes,
                           ends, ends_cap, n_ends, full, 1, 1);
        if (*full || done < end)
            return done;
        r = done;
    }
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
