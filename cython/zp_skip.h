/* Stepping over msgpack values: the wire rules of skipping, in one place for
 * decode (skip_value: unknown fields, whole records of a scan, preserved
 * values) and the columnar reader (dec_skip: unchosen fields, interface{}
 * values kept as bytes). No Python objects, so it runs without the GIL.
 *
 * Iterative: an explicit stack of levels (one per container entered) instead
 * of recursion, so the C stack does not grow with the nesting; max_levels
 * bounds the levels as max_depth bounds decoding. Every length read from the
 * wire is checked against the bytes left before it is used; each element a
 * header claims is one byte at least, so a header claiming more elements than
 * bytes are left is a value cut short, and values_left (decode's budget of
 * elements for a whole call) is drawn on as decode's claim_values does.
 *
 * On failure the skipper stops where it failed: its kind (ZP_SKIP_*), the
 * offset `at`, the bytes `needed` of a value cut short, and the levels entered
 * with the position of the value being read at each (zp_skip_index), from
 * which the callers spell their messages and field paths.
 *
 * A caller that checks values as it steps (the columnar reader's interface{}
 * values) drives it itself: zp_skip_next takes the next value, the caller may
 * look at it (and step over it itself, setting pos), then zp_skip_one reads it;
 * zp_skip does just that without looking. */
#ifndef ZP_SKIP_H
#define ZP_SKIP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "zp_wire.h"

typedef struct {
    int64_t left;       /* values still to step over at this level */
    int64_t count;      /* its values: an array's elements, or a map's keys and values (negative) */
} zp_skip_level;

enum {
    ZP_SKIP_DONE = 0,
    ZP_SKIP_TRUNCATED = 1,  /* the input ends inside the value: `needed` bytes from `at` */
    ZP_SKIP_NEVER_USED = 2, /* the lead byte 0xc1 at `at` */
    ZP_SKIP_TOO_DEEP = 3,   /* the container whose header ends at `at` would be level max_levels + 1 */
    ZP_SKIP_TOO_MANY = 4,   /* the header ending at `at` claims `needed` elements more than values_left */
    ZP_SKIP_NO_MEMORY = 5   /* no memory for the level of the container whose header ends at `at` */
};

/* The levels kept in the caller's array before the skipper allocates its own. */
#define ZP_SKIP_INLINE 16

typedef struct {
    const unsigned char *buf;
    int64_t pos;
    int64_t end;
    int64_t values_left;    /* elements headers may still claim */
    int64_t max_levels;     /* containers it may enter, one inside the other */
    int64_t level;          /* containers entered now: levels[1..level] */
    zp_skip_level *levels;  /* levels[0] is the value being stepped over */
    int64_t cap;            /* entries of levels */
    zp_skip_level *owned;   /* levels grown on the heap (zp_skip_release frees it), or NULL */
    int64_t at;             /* where it failed */
    int64_t needed;         /* ZP_SKIP_TRUNCATED: bytes needed from `at`; ZP_SKIP_TOO_MANY: elements over */
} zp_skipper;

/* Ready to step over the one value at pos. `levels` holds `cap` entries (one at
 * least); beyond them the skipper grows its own, up to max_levels + 1. */
static inline void zp_skip_init(zp_skipper *s, const unsigned char *buf, int64_t pos, int64_t end,
                                zp_skip_level *levels, int64_t cap, int64_t max_levels, int64_t values_left) {
    s->buf = buf;
    s->pos = pos;
    s->end = end;
    s->values_left = values_left;
    s->max_levels = max_levels;
    s->level = 0;
    s->levels = levels;
    s->cap = cap;
    s->owned = NULL;
    s->at = pos;
    s->needed = 0;
    levels[0].left = 1;
    levels[0].count = 1;
}

static inline void zp_skip_release(zp_skipper *s) {
    if (s->owned != NULL) {
        free(s->owned);
        s->owned = NULL;
    }
}

/* Take the next value (leaving the levels whose values are all done): 1, or 0
 * when the value is stepped over whole. */
static inline int zp_skip_next(zp_skipper *s) {
    while (s->levels[s->level].left == 0) {
        if (s->level == 0)
            return 0;
        s->level--;
    }
    s->levels[s->level].left--;
    return 1;
}

/* The position of the value being read at `level` (1..s->level) among its
 * level's values; in a map keys and values count apart (key i is 2i, its value 2i + 1). */
static inline int64_t zp_skip_index(const zp_skipper *s, int64_t level) {
    const zp_skip_level *l = &s->levels[level];
    return (l->count < 0 ? -l->count : l->count) - l->left - 1;
}

static inline int zp_skip_is_map(const zp_skipper *s, int64_t level) {
    return s->levels[level].count < 0;
}

static inline int zp_skip_truncated(zp_skipper *s, int64_t at, int64_t needed) {
    s->at = at;
    s->needed = needed;
    return ZP_SKIP_TRUNCATED;
}

static int zp_skip_grow(zp_skipper *s) {
    int64_t cap = s->cap * 4;
    zp_skip_level *levels;
    if (cap > s->max_levels + 1)
        cap = s->max_levels + 1;
    if (s->owned != NULL) {
        levels = (zp_skip_level *)realloc(s->owned, (size_t)cap * sizeof(zp_skip_level));
    } else {
        levels = (zp_skip_level *)malloc((size_t)cap * sizeof(zp_skip_level));
        if (levels != NULL)
            memcpy(levels, s->levels, (size_t)s->cap * sizeof(zp_skip_level));
    }
    if (levels == NULL)
        return -1;
    s->owned = s->levels = levels;
    s->cap = cap;
    return 0;
}

/* Enter a container of n values whose header ends at pos. */
static inline int zp_skip_enter(zp_skipper *s, int64_t n, int is_map) {
    if (n > s->values_left) {
        s->at = s->pos;
        s->needed = n - s->values_left;
        return ZP_SKIP_TOO_MANY;
    }
    s->values_left -= n;
    if (s->level >= s->max_levels) {
        s->at = s->pos;
        return ZP_SKIP_TOO_DEEP;
    }
    if (s->level + 1 >= s->cap && zp_skip_grow(s) < 0) {
        s->at = s->pos;
        return ZP_SKIP_NO_MEMORY;
    }
    s->level++;
    s->levels[s->level].left = n;
    s->levels[s->level].count = is_map ? -n : n;
    return ZP_SKIP_DONE;
}

/* The bytes the value at p takes when it is a scalar, str, bin or ext (left > 0
 * bytes readable there): its whole size, or while its length is cut short the
 * size of the header that holds it (more than `left`); 0 for a container or 0xc1.
 * The sizes decode's readers check for, in the same order (header, then all). */
static inline int64_t zp_value_size(const unsigned char *p, int64_t left) {
    unsigned char b = p[0];
    if (b <= 0x7f || b >= 0xe0)
        return 1;
    if ((b & 0xe0) == 0xa0)                     /* fixstr */
        return 1 + (b & 0x1f);
    switch (b) {
    case 0xc0: case 0xc2: case 0xc3: return 1;
    case 0xcc: case 0xd0: return 2;
    case 0xcd: case 0xd1: return 3;
    case 0xca: case 0xce: case 0xd2: return 5;
    case 0xcb: case 0xcf: case 0xd3: return 9;
    case 0xd4: return 3;                        /* fixext 1, 2, 4, 8, 16 */
    case 0xd5: return 4;
    case 0xd6: return 6;
    case 0xd7: return 10;
    case 0xd8: return 18;
    case 0xc4: case 0xd9: return left < 2 ? 2 : 2 + (int64_t)p[1];                  /* bin8, str8 */
    case 0xc5: case 0xda: return left < 3 ? 3 : 3 + (int64_t)zp_load_u16(p + 1);    /* bin16, str16 */
    case 0xc6: case 0xdb: return left < 5 ? 5 : 5 + (int64_t)zp_load_u32(p + 1);    /* bin32, str32 */
    case 0xc7: return left < 3 ? 3 : 3 + (int64_t)p[1];                             /* ext8, ext16, ext32 */
    case 0xc8: return left < 4 ? 4 : 4 + (int64_t)zp_load_u16(p + 1);
    case 0xc9: return left < 6 ? 6 : 6 + (int64_t)zp_load_u32(p + 1);
    default: return 0;
    }
}

/* Read the value at pos: a scalar, str, bin or ext is stepped over; a
 * container's header is consumed and its values are the next ones. */
static inline int zp_skip_one(zp_skipper *s) {
    int64_t left = s->end - s->pos, size, n;
    const unsigned char *p = s->buf + s->pos;
    unsigned char b;
    int is_map;
    if (left <= 0)
        return zp_skip_truncated(s, s->pos, 1);
    size = zp_value_size(p, left);
    if (size > 0) {
        if (size > left)
            return zp_skip_truncated(s, s->pos, size);
        s->pos += size;
        return ZP_SKIP_DONE;
    }
    b = p[0];
    if (b <= 0x9f) {                            /* fixmap, fixarray */
        is_map = b <= 0x8f;
        n = b & 0x0f;
        s->pos += 1;
    } else if (b == 0xdc || b == 0xde) {        /* array16, map16 */
        if (left < 3)
            return zp_skip_truncated(s, s->pos, 3);
        is_map = b == 0xde;
        n = zp_load_u16(p + 1);
        s->pos += 3;
    } else if (b == 0xdd || b == 0xdf) {        /* array32, map32 */
        if (left < 5)
            return zp_skip_truncated(s, s->pos, 5);
        is_map = b == 0xdf;
        n = zp_load_u32(p + 1);
        s->pos += 5;
    } else {                                    /* 0xc1 */
        s->at = s->pos;
        return ZP_SKIP_NEVER_USED;
    }
    left = s->end - s->pos;
    if (is_map) {
        if (n > left >> 1)                      /* every entry takes two bytes at least */
            return zp_skip_truncated(s, s->pos, 2 * n);
        return zp_skip_enter(s, 2 * n, 1);
    }
    if (n > left)                               /* every element takes a byte at least */
        return zp_skip_truncated(s, s->pos, n);
    return zp_skip_enter(s, n, 0);
}

/* Step over the value: ZP_SKIP_DONE, or why not (s->at, s->needed, the levels). */
static inline int zp_skip(zp_skipper *s) {
    int rc;
    while (zp_skip_next(s)) {
        rc = zp_skip_one(s);
        if (rc != ZP_SKIP_DONE)
            return rc;
    }
    return ZP_SKIP_DONE;
}

/* Step over as much of the value as the bytes up to s->end hold, resumably (the
 * push decoder finding where a record that arrives in pieces ends). On
 * ZP_SKIP_TRUNCATED, and on ZP_SKIP_TOO_MANY (headers claiming more elements than
 * the bytes so far, values_left, can hold), the skipper stands where the value
 * cut short starts, that value not taken yet, its level and every level above
 * kept: once more bytes are there (the caller sets buf and end again, pos and at
 * counting from the same start, and adds the new bytes to values_left) the next
 * call carries on with that value, and no value before it is stepped over twice,
 * so the cost is linear in the bytes however they come. */
static inline int zp_skip_resume(zp_skipper *s) {
    int rc;
    int64_t start;
    while (zp_skip_next(s)) {
        start = s->pos;
        rc = zp_skip_one(s);
        if (rc != ZP_SKIP_DONE) {
            if (rc == ZP_SKIP_TRUNCATED || rc == ZP_SKIP_TOO_MANY) {
                s->pos = start;             /* a container's header is read again */
                s->levels[s->level].left++;
            }
            return rc;
        }
    }
    return ZP_SKIP_DONE;
}

/* The size of the scalar, str, bin or ext at p when it lies whole in the `left`
 * bytes (left > 0), else 0 (containers, 0xc1, a value cut short): the common
 * case of an unknown field, stepped over without setting up a skipper. */
static inline int64_t zp_skip_scalar_size(const unsigned char *p, int64_t left) {
    int64_t size = zp_value_size(p, left);
    return size <= left ? size : 0;
}

#endif
