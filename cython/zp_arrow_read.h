/* The columnar reader's column builders (_arrow_read.pxi) and their fast appenders.
 *
 * A zp_col is one Arrow field being built: its buffers, what the wire type is, and
 * for a struct how its map's keys find its children. _arrow_read.pxi builds the tree
 * from the Arrow mapping and reads records into it; what is here is the part of every
 * value: zp_col_read_fast appends the common encodings of the common kinds (a
 * string's fixstr or str8, an integer, a float64, a bool, Go's time ext) with no call,
 * the column's buffers having room reserved in bulk (zp_col_make_room). Anything
 * else, and anything wrong, it leaves to the general reader, which says what is
 * wrong. Nothing here touches a Python object. */
#ifndef ZP_ARROW_READ_H
#define ZP_ARROW_READ_H

#include <stdint.h>
#include <string.h>
#include "zp_wire.h"
#include "zp_civil.h"
#include "zp_read.h"
#include "zp_columnar.h"
#include "zp_skip.h"

/* Column builder kinds. */
enum {
    ZP_COL_BOOL = 1,
    ZP_COL_INT = 2,             /* signed, width 1/2/4/8 */
    ZP_COL_UINT = 3,
    ZP_COL_F32 = 4,
    ZP_COL_F64 = 5,
    ZP_COL_STRING = 6,
    ZP_COL_BINARY = 7,
    ZP_COL_FIXED_BINARY = 8,
    ZP_COL_TIME = 9,
    ZP_COL_COMPLEX = 10,        /* struct<real, imag> */
    ZP_COL_EXT = 11,            /* struct<code, data> */
    ZP_COL_RAW = 12,            /* binary: the value's own msgpack bytes */
    ZP_COL_STRUCT = 13,
    ZP_COL_LIST = 14,
    ZP_COL_FIXED_LIST = 15,
    ZP_COL_MAP = 16,
    ZP_COL_ENTRIES = 17,        /* a map's entries: struct<key, value> */
    ZP_COL_NUMBER = 18          /* msgp.Number: struct<int, uint, float32, float64> */
};

/* The fast appender of a column (zp_col_read_fast), chosen when it is built. */
enum {
    ZP_FAST_NONE = 0,
    ZP_FAST_STRING = 1,
    ZP_FAST_BINARY = 2,
    ZP_FAST_INT = 3,            /* any width, signed or not */
    ZP_FAST_F32 = 4,
    ZP_FAST_F64 = 5,
    ZP_FAST_BOOL = 6,
    ZP_FAST_TIME = 7
};

/* A struct's plan step's own operations (beside the ZP_FAST_* of its column). */
enum {
    ZP_PLAN_NAME = 8,           /* the -1 entry naming the struct */
    ZP_PLAN_SKIP = 9            /* a field no column takes: its scalar value stepped over */
};

struct zp_col;

/* One step of a struct's key plan: the entry expected next in a row, as the row
 * before gave it (Go writes a struct's fields in the same order every time). */
typedef struct {
    struct zp_col *col;         /* the child (the struct itself: name; NULL: skip) */
    uint64_t bit;               /* the child's bit in a row's seen fields (0: name or skip) */
    uint64_t before;            /* the bits of the plan's steps before this one (their children differ) */
    int32_t child;              /* its index in children; -1: name or skip */
    uint8_t key;                /* the fixint zid; 0xff: the struct's name entry */
    uint8_t op;                 /* ZP_FAST_* (ZP_FAST_NONE: the general reader's), ZP_PLAN_NAME, ZP_PLAN_SKIP */
} zp_plan_step;

typedef struct zp_col {
    int kind;
    int fast;                   /* ZP_FAST_* */
    int wire_kind;              /* plan kind (K_*) of the wire type, pointers removed */
    int width;                  /* bytes per value of fixed-width data */
    int nullable;
    int time_field;             /* a struct's own time.Time: Go's zero time is null */
    int time_us;                /* a timestamp[us] column (else ns) */
    int is_signed;
    int64_t imin;
    int64_t imax;
    uint64_t umax;
    int64_t fixed;              /* N of [N]byte and [N]T */
    int raw_kind;
    int64_t raw_struct;         /* RAW_STRUCT: the struct's index in Dec.struct_names */
    char *go;                   /* Go spelling, for messages */
    char *name;                 /* Go field name, for paths */
    int64_t length;
    int64_t room;               /* rows for which validity, offsets and fixed-width data have room */
    int64_t kids_room;          /* a struct's rows for which its children have room (zp_struct_make_room) */
    zp_buf validity;
    zp_buf offsets;
    zp_buf data;
    int64_t hint_validity;      /* the last batch's capacities: the next one starts there */
    int64_t hint_offsets;
    int64_t hint_data;
    struct zp_col **children;
    int64_t n_children;
    /* structs */
    int32_t *by_zid;            /* child index per zid, -1: unknown or not chosen */
    int64_t zid_limit;
    zp_name *tags;              /* each child's FieldTagName (msgp-mode keys) */
    char *struct_name;
    int64_t struct_name_len;
    uint64_t name_word;         /* the name as a fixstr, in one word (zp_struct_name_setup) */
    uint64_t name_mask;
    int64_t name_size;          /* its bytes, 0: a name longer than 7 bytes */
    uint64_t visit;
    uint64_t *seen;             /* visit number at which each child (from the 65th) was read */
    /* a struct's fields whose type zebrapack cannot represent: an error where a record holds one */
    int64_t n_unusable;
    int64_t *unusable_zids;     /* -1 and below: none (msgp mode keys them by tag only) */
    char **unusable_tags;
    int64_t *unusable_tag_lens;
    char **unusable_names;
    char **unusable_messages;
    /* a struct's key plan (zp_struct_read_plan): the steps of the last row that left it */
    zp_plan_step *plan;         /* plan_len steps and an end (its before: all the plan's bits) */
    int64_t plan_len;
    int plan_full;              /* the plan gives every child (at most 64) */
    int plan_flat;              /* every step of the plan has an appender of its own (zp_struct_read_rows) */
    int64_t run_skip;           /* rows read one by one before zp_struct_read_rows is tried again */
    int64_t run_misses;         /* runs in a row stopped at their first row */
    int64_t plan_misses;        /* rows in a row that left the plan (read_struct_into) */
    zp_plan_step *learn;        /* the steps of the row being read once it left the plan */
    int64_t plan_cap;           /* room in plan and learn */
} zp_col;

/* Room for as many rows again as c holds (64 at least) in its validity bitmap,
 * offsets and fixed-width data (bitmaps zeroed), so that values are appended
 * without checking each buffer: c->room is the rows there is room for. -1 out of
 * memory (nothing reported: the general reader then tries and says so). */
static int zp_col_make_room(zp_col *c, int64_t *held) {
    int64_t rows = c->length + (c->length > 64 ? c->length : 64), need;
    if (c->nullable) {
        need = (rows + 7) >> 3;
        if (c->validity.cap < need && zp_buf_grow_to(&c->validity, need - c->validity.len, held, 1) < 0)
            return -1;
    }
    if (c->kind == ZP_COL_BOOL) {
        need = (rows + 7) >> 3;
        if (c->data.cap < need && zp_buf_grow_to(&c->data, need - c->data.len, held, 1) < 0)
            return -1;
    } else if (c->width) {
        need = rows * c->width;
        if (c->data.cap < need && zp_buf_grow_to(&c->data, need - c->data.len, held, 0) < 0)
            return -1;
    }
    if (c->kind == ZP_COL_STRING || c->kind == ZP_COL_BINARY || c->kind == ZP_COL_RAW || c->kind == ZP_COL_LIST
            || c->kind == ZP_COL_MAP) {
        need = 4 * (rows + 1);
        if (c->offsets.cap < need && zp_buf_grow_to(&c->offsets, need - c->offsets.len, held, 0) < 0)
            return -1;
    }
    c->room = rows;
    return 0;
}

/* Room for the next row of struct c in each of its children with a fast appender
 * (their rows are c's rows): c->kids_room is the rows of c there is room for. */
static int zp_struct_make_room(zp_col *c, int64_t *held) {
    int64_t i, rows = INT64_MAX;
    zp_col *child;
    for (i = 0; i < c->n_children; i++) {
        child = c->children[i];
        if (child->fast == ZP_FAST_NONE)
            continue;
        if (child->length >= child->room && zp_col_make_room(child, held) < 0)
            return -1;
        if (child->room - child->length < rows)
            rows = child->room - child->length;
    }
    c->kids_room = c->length + rows;
    return 0;
}

/* Row c->length marked valid (nullable columns) and counted; room was made. */
ZP_ALWAYS_INLINE void zp_col_row_done(zp_col *c) {
    int64_t row = c->length;
    if (c->nullable) {
        zp_bit_set(c->validity.ptr, row);
        c->validity.len = (row >> 3) + 1;
    }
    c->length = row + 1;
}

/* A string (check: valid UTF-8) or binary value of n bytes at src appended: data,
 * offset, and the row closed unless in_run (room made). in_run: a value of a run of
 * rows (zp_struct_read_rows), whose rows are closed with the run, and a string of
 * 8-16 bytes is copied in line (only there: in the other callers' loops the code
 * cost more than it saved). 0 when it cannot be here (the data would pass 2 GiB, no
 * memory, invalid UTF-8): nothing appended, the general reader says why. */
ZP_ALWAYS_INLINE int zp_col_put_bytes(zp_col *c, const uint8_t *src, int64_t n, int check, int64_t *used,
                                      int64_t *held, int in_run) {
    uint8_t *dst;
    int64_t copied = 0;
    int32_t offset;
    uint64_t head, tail;
    if (c->data.len + n > 0x7fffffff)
        return 0;
    if (n) {                            /* (an empty buffer has no pointer to copy to) */
        if (c->data.cap - c->data.len < n && zp_buf_grow(&c->data, n, held) < 0)
            return 0;
        dst = c->data.ptr + c->data.len;
        if (check) {
            if (in_run && n >= 8 && n <= 16) {  /* two overlapping words */
                memcpy(&head, src, 8);
                memcpy(&tail, src + n - 8, 8);
                copied = (head | tail) & ZP_HIGH_BITS ? 0 : n;
                if (copied) {
                    memcpy(dst, &head, 8);
                    memcpy(dst + n - 8, &tail, 8);
                }
            }
            if (!copied)
                copied = zp_copy_ascii(dst, src, n);   /* zp_read.h */
            if (copied < n) {
                if (zp_utf8_invalid_at(src + copied, n - copied) >= 0)
                    return 0;
                memcpy(dst + copied, src + copied, (size_t)(n - copied));
            }
        } else {
            memcpy(dst, src, (size_t)n);
        }
        c->data.len += n;
    }
    offset = (int32_t)c->data.len;
    memcpy(c->offsets.ptr + c->offsets.len, &offset, 4);
    c->offsets.len += 4;
    *used += n + 4;
    if (!in_run)
        zp_col_row_done(c);
    return 1;
}

/* The size of the value at p (left bytes) of a -1 entry when it is struct c's
 * name as a fixstr, as Go writes it; 0 when not (the general reader checks it). */
ZP_ALWAYS_INLINE int64_t zp_struct_name_value(const zp_col *c, const uint8_t *p, int64_t left) {
    int64_t n = c->struct_name_len;
    uint64_t word;
    if (c->name_size && left >= 8) {    /* a name of up to 7 bytes: one masked word */
        memcpy(&word, p, 8);
        return ((word ^ c->name_word) & c->name_mask) ? 0 : c->name_size;
    }
    if (n < 32 && left >= 1 + n && p[0] == (0xa0 | n) && zp_same_bytes(p + 1, c->struct_name, n))
        return 1 + n;
    return 0;
}

/* c's name as zp_struct_name_value compares it in one word (names of up to 7 bytes). */
static inline void zp_struct_name_setup(zp_col *c) {
    uint8_t value[8] = {0}, mask[8] = {0};
    int64_t n = c->struct_name_len;
    c->name_size = 0;
    if (n > 7)
        return;
    value[0] = (uint8_t)(0xa0 | n);
    memcpy(value + 1, c->struct_name, (size_t)n);
    memset(mask, 0xff, (size_t)(n + 1));
    memcpy(&c->name_word, value, 8);
    memcpy(&c->name_mask, mask, 8);
    c->name_size = n + 1;
}

/* The size of the -1 entry at p (left bytes: the key 0xff, then the value) when
 * its value is c's struct name (zp_struct_name_value); 0 when not. */
ZP_ALWAYS_INLINE int64_t zp_struct_name_entry(const zp_col *c, const uint8_t *p, int64_t left) {
    int64_t size;
    if (left < 2 || p[0] != 0xff)
        return 0;
    size = zp_struct_name_value(c, p + 1, left - 1);
    return size ? 1 + size : 0;
}

/* The value at p (left >= 1 bytes) appended to c when it is one of the common
 * encodings of c's kind (fast: its appender, c->fast): returns the bytes it took,
 * or 0 when it is not (nothing consumed, nothing appended). A plan step's own
 * operations too: ZP_PLAN_NAME (c the struct: its name, nothing appended) and
 * ZP_PLAN_SKIP (a scalar stepped over). Every length is checked against left
 * first. used: the batch's bytes of values; held: its bytes allocated. Room was
 * made for the row, which is c's row `row`: c->length, closed by the appender,
 * or one of a run of rows whose lengths are set after it (in_run:
 * zp_struct_close_rows). Nothing it takes reads otherwise under strict reading. */
ZP_ALWAYS_INLINE int64_t zp_col_append_fast(zp_col *c, int fast, const uint8_t *p, int64_t left, int64_t *used,
                                            int64_t *held, int64_t row, int in_run) {
    uint8_t b = p[0];
    uint8_t *dst;
    int64_t n, size, seconds, nanos, value;
    uint32_t bits32;
    uint16_t bits16;
    uint64_t bits;
    double f64;
    switch (fast) {
    case ZP_FAST_STRING:
        if ((b & 0xe0) == 0xa0) {
            n = b & 0x1f;
            size = 1 + n;
        } else if (b == 0xd9 && left >= 2) {
            n = p[1];
            size = 2 + n;
        } else {
            return 0;
        }
        if (size > left || !zp_col_put_bytes(c, p + size - n, n, 1, used, held, in_run))
            return 0;
        return size;
    case ZP_FAST_BINARY:
        if (b != 0xc4 || left < 2)
            return 0;
        n = p[1];
        size = 2 + n;
        if (size > left || !zp_col_put_bytes(c, p + 2, n, 0, used, held, in_run))
            return 0;
        return size;
    case ZP_FAST_INT:
        /* fixints: a positive one every integer kind holds, a negative one every
         * signed kind; then the encodings of the column's own family (int8-int64 for
         * signed kinds, uint8-uint64 for unsigned ones: what strict reading takes)
         * within its range. The rest are the general reader's (read_int_into). */
        if (b <= 0x7f || (b >= 0xe0 && c->is_signed)) {
            value = (int8_t)b;
            size = 1;
        } else if (c->is_signed ? (b >= 0xd0 && b <= 0xd3) : (b >= 0xcc && b <= 0xcf)) {
            if (left <= 8)          /* (zp_load_int_family8) */
                return 0;
            size = 1 + ((int64_t)1 << (b & 3));
            if (c->is_signed) {
                value = zp_load_int_family8(b, p + 1);
                if (value < c->imin || value > c->imax)
                    return 0;
            } else {
                bits = zp_load_uint_family8(b, p + 1);
                if (bits > c->umax)
                    return 0;
                value = (int64_t)bits;
            }
        } else {
            return 0;
        }
        dst = c->data.ptr + c->data.len;
        switch (c->width) {
        case 8: memcpy(dst, &value, 8); break;
        case 4: bits32 = (uint32_t)value; memcpy(dst, &bits32, 4); break;
        case 2: bits16 = (uint16_t)value; memcpy(dst, &bits16, 2); break;
        default: *dst = (uint8_t)value; break;
        }
        break;
    case ZP_FAST_F64:
        if (b == 0xcb && left >= 9) {
            bits = zp_load_u64(p + 1);
            size = 9;
        } else if (b == 0xca && left >= 5) {    /* float64 kinds take float32 too, as in Go */
            f64 = zp_double_from_f32_bits(zp_load_u32(p + 1));
            memcpy(&bits, &f64, 8);
            size = 5;
        } else {
            return 0;
        }
        memcpy(c->data.ptr + c->data.len, &bits, 8);
        break;
    case ZP_FAST_F32:
        if (b != 0xca || left < 5)
            return 0;
        bits32 = zp_load_u32(p + 1);
        memcpy(c->data.ptr + c->data.len, &bits32, 4);
        size = 5;
        break;
    case ZP_FAST_BOOL:
        if (b != 0xc2 && b != 0xc3)
            return 0;
        if (!in_run)            /* (row is c->length: read where it is used) */
            row = c->length;
        if (b == 0xc3)
            zp_bit_set(c->data.ptr, row);
        c->data.len = (row >> 3) + 1;
        if (!in_run)
            zp_col_row_done(c);
        return 1;
    case ZP_FAST_TIME:
        /* Go's ext 5 as Go writes it: 8-byte seconds, 4-byte nanoseconds; Go's zero
         * time in a struct's own field (null) is the general reader's */
        if (b != 0xc7 || left < 15 || p[1] != 12 || p[2] != 5)
            return 0;
        seconds = zp_load_i64(p + 3);
        nanos = (int32_t)zp_load_u32(p + 11);
        if (nanos < 0 || nanos >= 1000000000 || (c->time_field && seconds == ZP_GO_ZERO_SECONDS))
            return 0;
        if (c->time_us) {
            if (nanos % 1000 != 0 || zp_mul_add_i64(seconds, 1000000, nanos / 1000, &value) < 0)
                return 0;
        } else if (zp_mul_add_i64(seconds, 1000000000, nanos, &value) < 0) {
            return 0;
        }
        memcpy(c->data.ptr + c->data.len, &value, 8);
        size = 15;
        break;
    case ZP_PLAN_NAME:
        return zp_struct_name_value(c, p, left);
    case ZP_PLAN_SKIP:
        return zp_skip_scalar_size(p, left);
    default:
        return 0;
    }
    /* the fixed-width kinds */
    c->data.len += c->width;
    *used += c->width;
    if (!in_run)
        zp_col_row_done(c);
    return size;
}

/* zp_col_append_fast by c's own appender, room made first unless has_room (the
 * caller made it for the row: zp_struct_make_room). */
ZP_ALWAYS_INLINE int64_t zp_col_read_fast(zp_col *c, const uint8_t *p, int64_t left, int64_t *used,
                                          int64_t *held, int has_room) {
    if (!has_room && (c->fast == ZP_FAST_NONE || (c->length >= c->room && zp_col_make_room(c, held) < 0)))
        return 0;
    return zp_col_append_fast(c, c->fast, p, left, used, held, c->length, 0);
}

/* The entries of struct c's map at *pos (count at most) read while each is its
 * struct name (zp_struct_name_entry) or has a fixint zid of one of the first 64
 * children, not given before in this row (*seen: their bits), whose value
 * zp_col_read_fast takes; stops before the first that is not, which the general
 * reader reads. Room was made for the row (zp_struct_make_room). Returns the
 * entries read; *pos is after them, *last the child read last (-1: none). */
ZP_ALWAYS_INLINE int64_t zp_struct_read_fast(zp_col *c, const uint8_t *buf, int64_t *pos, int64_t end,
                                            int64_t count, uint64_t *seen_io, int64_t *last, int64_t *used_io,
                                            int64_t *held) {
    const uint8_t *p = buf + *pos, *stop = buf + end;
    zp_col **children = c->children;
    const int32_t *by_zid = c->by_zid;
    uint64_t seen = *seen_io;
    int64_t left = count, child, size, used = 0, read_last = -1;
    while (left > 0 && stop - p >= 2) {
        if (p[0] > 0x7f) {
            size = zp_struct_name_entry(c, p, stop - p);
            if (!size)
                break;
            p += size;
            left--;
            continue;
        }
        child = by_zid[p[0]];
        if ((uint64_t)child >= 64 || ((seen >> child) & 1))    /* not chosen, unknown, past the bitmask, twice */
            break;
        size = zp_col_read_fast(children[child], p + 1, stop - p - 1, &used, held, 1);
        if (!size)
            break;
        seen |= (uint64_t)1 << child;
        read_last = child;
        p += 1 + size;
        left--;
    }
    *pos = p - buf;
    *seen_io = seen;
    *used_io += used;
    *last = read_last;
    return count - left;
}

/* The entries of struct c's map at *pos (count at most) read while each is the one
 * its plan expects next (from step *step_io on): the same key, and a value its
 * step takes (the struct's name as Go writes it, a scalar stepped over, a value
 * the child's fast appender takes). Stops before the first entry that is not,
 * which the general reader reads (and the plan follows when its key is the
 * step's). Room was made for the row (zp_struct_make_room). Returns the entries
 * read; *pos and *step_io are after them, their fields' bits added to *seen_io;
 * *last is the last field or skipped entry read (the path's step; unchanged when
 * none). The values are the children's row `row`, closed unless in_run
 * (zp_col_append_fast). */
ZP_ALWAYS_INLINE int64_t zp_struct_read_plan_at(zp_col *c, const uint8_t *buf, int64_t *pos, int64_t end,
                                               int64_t count, int64_t *step_io, uint64_t *seen_io,
                                               const zp_plan_step **last, int64_t *used_io, int64_t *held,
                                               int64_t row, int in_run) {
    const zp_plan_step *first = c->plan + *step_io, *st = first, *stop_step, *back;
    const uint8_t *p = buf + *pos, *stop = buf + end;
    int64_t size, used = 0, avail = c->plan_len - *step_io;
    stop_step = first + (count < avail ? count : avail);
    for (; st < stop_step; st++) {
        if (stop - p < 2 || p[0] != st->key)
            break;
        size = zp_col_append_fast(st->col, st->op, p + 1, stop - p - 1, &used, held, row, in_run);
        if (!size)
            break;
        p += 1 + size;
    }
    for (back = st; back > first;) {
        if ((--back)->op != ZP_PLAN_NAME) {
            *last = back;
            break;
        }
    }
    *pos = p - buf;
    *seen_io |= st->before ^ first->before;
    *step_io += st - first;
    *used_io += used;
    return st - first;
}

/* zp_struct_read_plan_at of a row of c's children read one by one (c->length's). */
ZP_ALWAYS_INLINE int64_t zp_struct_read_plan(zp_col *c, const uint8_t *buf, int64_t *pos, int64_t end, int64_t count,
                                            int64_t *step_io, uint64_t *seen_io, const zp_plan_step **last,
                                            int64_t *used_io, int64_t *held) {
    return zp_struct_read_plan_at(c, buf, pos, end, count, step_io, seen_io, last, used_io, held, c->length, 0);
}

/* Rows from..to-1 of struct c's children, appended by a run without closing them
 * (zp_struct_read_rows: c's plan is full and flat, so each child took one value a
 * row): counted, and marked valid in nullable columns. */
static inline void zp_struct_close_rows(zp_col *c, int64_t from, int64_t to) {
    int64_t i;
    zp_col *child;
    if (from >= to)
        return;
    for (i = 0; i < c->n_children; i++) {
        child = c->children[i];
        if (child->nullable) {
            zp_bits_set_range(child->validity.ptr, from, to);
            child->validity.len = (to + 7) >> 3;
        }
        child->length = to;
    }
}

/* With labels as values (zp_wire.h) a run's rows are read by threaded steps: each step
 * of the plan ends in a jump to the next one's code (ZP_RUN_PLAN_MAX steps at most), an
 * indirect jump a field predicted from where it stands, without the loop test and the
 * switch of zp_struct_read_plan_at, which reads each row elsewhere. */
#define ZP_RUN_PLAN_MAX 72

/* Rows of struct c (a record's root) read one after another while each is a map
 * of exactly its plan's entries that its plan reads whole (a full and flat plan:
 * every child, each by its appender), at most `most` and while *used_io <
 * used_limit: a record's own work (its header, room for its row, the row closed)
 * without leaving this loop, and the children's rows closed once for a run of
 * rows (zp_struct_close_rows) rather than per value. Stops before the first row
 * that is not, which the general reader reads; *partial: that row appended to
 * some of c's children before it stopped (the caller cuts them back to c's
 * length). Returns the rows read; *pos_io is after them, *used_io counts their
 * values. */
static int64_t zp_struct_read_rows(zp_col *c, const uint8_t *buf, int64_t *pos_io, int64_t end, int64_t most,
                                   int64_t *used_io, int64_t used_limit, int64_t *held, int *partial) {
    int64_t pos = *pos_io, used = *used_io, rows = 0, n = c->plan_len, at, step, row_used, open = c->length;
    uint64_t seen;
    const zp_plan_step *last;
    zp_head h;
#ifdef ZP_LABELS_AS_VALUES
    static const void *const codes[] = {
        [ZP_FAST_NONE] = NULL, [ZP_FAST_STRING] = &&run_string, [ZP_FAST_BINARY] = &&run_binary,
        [ZP_FAST_INT] = &&run_int, [ZP_FAST_F32] = &&run_f32, [ZP_FAST_F64] = &&run_f64,
        [ZP_FAST_BOOL] = &&run_bool, [ZP_FAST_TIME] = &&run_time, [ZP_PLAN_NAME] = &&run_name,
        [ZP_PLAN_SKIP] = &&run_skip};
    const void *labels[ZP_RUN_PLAN_MAX + 1];    /* each step's code, then the row's end */
    const void *const *label;
    const zp_plan_step *st;
    const uint8_t *p, *stop = buf + end;
    int64_t size, row;
    int threaded = n <= ZP_RUN_PLAN_MAX;
    for (step = 0; threaded && step < n; step++) {
        uint8_t op = c->plan[step].op;
        threaded = op < sizeof codes / sizeof codes[0] && codes[op] != NULL;
        labels[step] = threaded ? codes[op] : NULL;
    }
    if (threaded)
        labels[n] = &&run_row_end;
#endif
    *partial = 0;
    while (rows < most && used < used_limit && pos < end) {
        if (c->length >= c->kids_room) {
            /* (the children's lengths are current before their room is looked at) */
            zp_struct_close_rows(c, open, c->length);
            open = c->length;
            if (zp_struct_make_room(c, held) < 0)
                break;
        }
        if (c->length >= c->room && zp_col_make_room(c, held) < 0)
            break;
        if (zp_read_map(buf + pos, end - pos, &h) != ZP_READ_OK || h.n != n)
            break;
        at = pos + h.header;
        row_used = used;
#ifdef ZP_LABELS_AS_VALUES
        if (threaded) {
            p = buf + at;
            st = c->plan;
            label = labels;
            row = c->length;
            goto **label;
            /* a step: its entry's key, then a value its appender takes; else the row stops */
#define ZP_RUN_STEP(name, op) \
        name: \
            if (stop - p < 2 || p[0] != st->key) \
                goto run_row_stopped; \
            size = zp_col_append_fast(st->col, op, p + 1, stop - p - 1, &row_used, held, row, 1); \
            if (!size) \
                goto run_row_stopped; \
            p += 1 + size; \
            st++; \
            goto **++label;
            ZP_RUN_STEP(run_string, ZP_FAST_STRING)
            ZP_RUN_STEP(run_binary, ZP_FAST_BINARY)
            ZP_RUN_STEP(run_int, ZP_FAST_INT)
            ZP_RUN_STEP(run_f32, ZP_FAST_F32)
            ZP_RUN_STEP(run_f64, ZP_FAST_F64)
            ZP_RUN_STEP(run_bool, ZP_FAST_BOOL)
            ZP_RUN_STEP(run_time, ZP_FAST_TIME)
            ZP_RUN_STEP(run_name, ZP_PLAN_NAME)
            ZP_RUN_STEP(run_skip, ZP_PLAN_SKIP)
#undef ZP_RUN_STEP
        run_row_stopped:
            *partial = st > c->plan;
            break;
        run_row_end:
            at = p - buf;
        } else
#endif
        {
            step = 0;
            seen = 0;
            last = NULL;
            if (zp_struct_read_plan_at(c, buf, &at, end, n, &step, &seen, &last, &row_used, held, c->length, 1) < n) {
                *partial = step > 0;
                break;
            }
        }
        zp_col_row_done(c);
        pos = at;
        used = row_used;
        rows++;
    }
    zp_struct_close_rows(c, open, c->length);
    *pos_io = pos;
    *used_io = used;
    return rows;
}

#undef ZP_RUN_PLAN_MAX

#endif
