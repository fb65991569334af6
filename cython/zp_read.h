/* Reading msgpack values: the wire rules of the readers, written once for
 * decode (_unpacker.pxi: Python objects, which raises) and the columnar reader
 * (_arrow_read.pxi: Arrow buffers, without the GIL), as zp_skip.h is for
 * stepping over values. No Python objects here, so all of it runs on any thread.
 *
 * Each reader looks at the value at p, `left` bytes readable there (one at
 * least: its lead byte), checks every length against `left` before using it,
 * and returns a status: ZP_READ_OK; ZP_READ_OTHER, another type (nothing is
 * read: the caller may read it another way, or refuse it as its own type);
 * ZP_READ_SHORT, the input ends inside the value (h->needed bytes from h->at);
 * or a refusal of the rule's own. zp_read_message spells every status but OK
 * and OTHER, so that both readers say the same thing; the caller adds the field
 * path and the offset: the value's (p), h->at after it for ZP_READ_SHORT. */
#ifndef ZP_READ_H
#define ZP_READ_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "zp_wire.h"
#include "zp_civil.h"
#include "zp_skip.h"

enum {
    ZP_READ_OK = 0,
    ZP_READ_OTHER = 1,          /* another type: nothing read */
    ZP_READ_SHORT = 2,          /* the input ends inside the value: h->needed bytes from h->at */
    ZP_TIME_STRICT = 3,         /* a time.Time (ext 5) in another header than ext8 (strict) */
    ZP_TIME_NANOS = 4,          /* the spec's timestamp with nanoseconds above 999999999 (h->value) */
    ZP_TIME_EXT = 5,            /* an ext of another type or size than a time's */
    ZP_COMPLEX64_STRICT = 6,    /* a complex64 where a complex128 is read (strict) */
    ZP_COMPLEX128_STRICT = 7,   /* a complex128 where a complex64 is read (strict) */
    ZP_COMPLEX128_INEXACT = 8,  /* a complex128 that no complex64 holds exactly */
    ZP_COMPLEX_OTHER = 9,       /* not the complex's ext (complex64: fixext8 ext 3, complex128: fixext16 ext 4) */
    ZP_NAME_NOT_STR = 10,       /* a struct's name (the value of key -1) that is no str */
    ZP_NAME_OTHER = 11,         /* a struct's name that is not the struct's being read */
    ZP_KEY_OTHER = 12,          /* a struct key that is neither an integer nor a str */
    ZP_INT_FAMILY = 13,         /* an integer of the other family than the kind's (strict) */
    ZP_INT_OVERFLOW = 14,       /* an integer outside the kind's range (h->value, h->code its family) */
    ZP_FLOAT64_STRICT = 15,     /* a float64 where a float32 is read (strict) */
    ZP_FLOAT64_INEXACT = 16,    /* a float64 that no float32 holds exactly (*d) */
    ZP_INT_INEXACT = 17,        /* an integer that the float kind does not hold exactly */
    ZP_ANY_KEY = 18,            /* a key of a map inside interface{} that is no str, bin or nil (strict) */
    ZP_ANY_EXT = 19             /* an ext 3, 4 or 5 inside interface{} not in the shape Go reads it (strict) */
};

/* What a reader found. */
typedef struct {
    int64_t header;     /* bytes of the header: str, bin and ext data (after an ext's type byte),
                           array elements and map entries follow it; the size of an integer key */
    int64_t n;          /* str, bin, ext: bytes of data; array: elements; map: entries */
    int8_t code;        /* ext: its type */
    int64_t value;      /* struct keys: the zid; ZP_TIME_NANOS: the nanoseconds */
    int64_t at;         /* ZP_READ_SHORT: where the bytes run short, from p (a refusal is at p) */
    int64_t needed;     /* ZP_READ_SHORT: the bytes needed from there */
} zp_head;

static inline int zp_read_short(zp_head *h, int64_t at, int64_t needed) {
    h->at = at;
    h->needed = needed;
    return ZP_READ_SHORT;
}

/* -- lead bytes ------------------------------------------------------------------ */

static const char *const zp_lead_names[32] = {
    "nil", "the never-used byte 0xc1", "bool", "bool", "bin8", "bin16", "bin32",
    "ext8", "ext16", "ext32", "float32", "float64", "uint8", "uint16", "uint32", "uint64",
    "int8", "int16", "int32", "int64", "fixext1", "fixext2", "fixext4", "fixext8",
    "fixext16", "str8", "str16", "str32", "array16", "array32", "map16", "map32",
};

/* The msgpack name of a lead byte, for messages. */
static inline const char *zp_lead_name(unsigned char b) {
    if (b <= 0x7f)
        return "positive fixint";
    if (b <= 0x8f)
        return "map";
    if (b <= 0x9f)
        return "array";
    if (b <= 0xbf)
        return "str";
    if (b >= 0xe0)
        return "negative fixint";
    return zp_lead_names[b - 0xc0];
}

/* -- headers --------------------------------------------------------------------- */

/* The length of a str8/16/32, bin8/16/32 or ext8/16/32 (`wide`: 0, 1, 2 for 8, 16,
 * 32 bits) whose header holds `extra` more bytes after the length (an ext's type),
 * then the data: all of it must be there. */
static inline int zp_read_length(const unsigned char *p, int64_t left, int wide, int extra, zp_head *h) {
    h->header = 1 + ((int64_t)1 << wide) + extra;
    if (h->header > left)
        return zp_read_short(h, 0, h->header);
    h->n = wide == 0 ? (int64_t)p[1] : wide == 1 ? (int64_t)zp_load_u16(p + 1) : (int64_t)zp_load_u32(p + 1);
    if (h->header + h->n > left)
        return zp_read_short(h, 0, h->header + h->n);
    return ZP_READ_OK;
}

/* A str: fixstr, str8, str16, str32. */
static inline int zp_read_str(const unsigned char *p, int64_t left, zp_head *h) {
    unsigned char b = p[0];
    if ((b & 0xe0) == 0xa0) {
        h->header = 1;
        h->n = b & 0x1f;
        if (1 + h->n > left)
            return zp_read_short(h, 0, 1 + h->n);
        return ZP_READ_OK;
    }
    if (b >= 0xd9 && b <= 0xdb)
        return zp_read_length(p, left, b - 0xd9, 0, h);
    return ZP_READ_OTHER;
}

/* A bin: bin8, bin16, bin32. */
static inline int zp_read_bin(const unsigned char *p, int64_t left, zp_head *h) {
    unsigned char b = p[0];
    if (b >= 0xc4 && b <= 0xc6)
        return zp_read_length(p, left, b - 0xc4, 0, h);
    return ZP_READ_OTHER;
}

/* An ext: fixext1..16, ext8, ext16, ext32; h->code its type. */
static inline int zp_read_ext(const unsigned char *p, int64_t left, zp_head *h) {
    unsigned char b = p[0];
    int rc;
    if (b >= 0xd4 && b <= 0xd8) {
        h->header = 2;
        h->n = (int64_t)1 << (b - 0xd4);
        if (2 + h->n > left)
            return zp_read_short(h, 0, 2 + h->n);
    } else if (b >= 0xc7 && b <= 0xc9) {
        rc = zp_read_length(p, left, b - 0xc7, 1, h);
        if (rc != ZP_READ_OK)
            return rc;
    } else {
        return ZP_READ_OTHER;
    }
    h->code = (int8_t)p[h->header - 1];
    return ZP_READ_OK;
}

/* The count of an array16/32 or map16/32 (`wide`: 0 or 1). */
static inline int zp_read_count(const unsigned char *p, int64_t left, int wide, zp_head *h) {
    h->header = wide ? 5 : 3;
    if (h->header > left)
        return zp_read_short(h, 0, h->header);
    h->n = wide ? (int64_t)zp_load_u32(p + 1) : (int64_t)zp_load_u16(p + 1);
    return ZP_READ_OK;
}

/* An array (fixarray, array16, array32: fix 0x90, wide 0xdc) or a map (fixmap, map16,
 * map32: fix 0x80, wide 0xde), `per` values an element: every value takes a byte at
 * least, so a count above the bytes after the header is a value cut short. Always in
 * line: with fix, wide and per constant it is as small as a reader of its own (the
 * decoder's list loop stays fast). */
ZP_ALWAYS_INLINE int zp_read_container(const unsigned char *p, int64_t left, unsigned char fix, unsigned char wide,
                                    int per, zp_head *h) {
    unsigned char b = p[0];
    if ((b & 0xf0) == fix) {
        h->header = 1;
        h->n = b & 0x0f;
    } else if (b == wide || b == wide + 1) {
        if (zp_read_count(p, left, b != wide, h) != ZP_READ_OK)
            return ZP_READ_SHORT;
    } else {
        return ZP_READ_OTHER;
    }
    if (h->n > (left - h->header) / per)
        return zp_read_short(h, h->header, per * h->n);
    return ZP_READ_OK;
}

static inline int zp_read_array(const unsigned char *p, int64_t left, zp_head *h) {
    return zp_read_container(p, left, 0x90, 0xdc, 1, h);
}

static inline int zp_read_map(const unsigned char *p, int64_t left, zp_head *h) {
    return zp_read_container(p, left, 0x80, 0xde, 2, h);
}

static inline int zp_is_map(unsigned char b) {
    return (b & 0xf0) == 0x80 || b == 0xde || b == 0xdf;
}

static inline int zp_is_array(unsigned char b) {
    return (b & 0xf0) == 0x90 || b == 0xdc || b == 0xdd;
}

/* -- numbers ---------------------------------------------------------------------- */

/* The integer at p: fixints (positive and negative) and int8..int64 are
 * ZP_NUMBER_INT (bits: the int64), uint8..uint64 ZP_NUMBER_UINT (bits: the uint64).
 * Returns its size; 0 (family NONE) when the value is no integer; minus the bytes
 * it needs when the input ends inside it. */
static inline int64_t zp_load_integer(const unsigned char *p, int64_t left, zp_number *out) {
    unsigned char b = p[0];
    int64_t size;
    out->family = ZP_NUMBER_NONE;
    out->bits = 0;
    if (b <= 0x7f || b >= 0xe0) {
        out->family = ZP_NUMBER_INT;
        out->bits = (uint64_t)(int64_t)(int8_t)b;
        return 1;
    }
    if (b < 0xcc || b > 0xd3)
        return 0;
    size = 1 + ((int64_t)1 << (b & 3));
    if (size > left)
        return -size;
    if (b <= 0xcf) {
        out->family = ZP_NUMBER_UINT;
        out->bits = zp_load_uint_family(b, p + 1);
    } else {
        out->family = ZP_NUMBER_INT;
        out->bits = (uint64_t)zp_load_int_family(b, p + 1);
    }
    return size;
}

/* The number at p, read as msgp's Number.UnmarshalMsg reads it (and as interface{}
 * values are read): an integer (zp_load_integer), or float32 (ZP_NUMBER_F32, bits:
 * its 32 bits) or float64 (ZP_NUMBER_F64). Returns its size; 0 when the value is no
 * number; minus the bytes it needs when the input ends inside it. */
static inline int64_t zp_load_number(const unsigned char *p, int64_t left, zp_number *out) {
    unsigned char b = p[0];
    if (b == 0xca) {
        if (left < 5)
            return -5;
        out->family = ZP_NUMBER_F32;
        out->bits = zp_load_u32(p + 1);
        return 5;
    }
    if (b == 0xcb) {
        if (left < 9)
            return -9;
        out->family = ZP_NUMBER_F64;
        out->bits = zp_load_u64(p + 1);
        return 9;
    }
    return zp_load_integer(p, left, out);
}

/* An integer of a Go integer kind (signed of range imin..imax, or unsigned up to
 * umax) in an encoding the kind's own reader takes at once, strict or not: a positive
 * fixint; for a signed kind a negative fixint or int8..int64 in range, for an unsigned
 * kind uint8..uint64 in range. Returns its size, the value in *v (two's complement for
 * a signed kind); 0 when the general reader must look (another family, out of range,
 * cut short, no integer). Always in line: the decoder's loops over integers take it
 * whatever else the compiler inlines. */
ZP_ALWAYS_INLINE int64_t zp_read_int_fast(const unsigned char *p, int64_t left, int is_signed, int64_t imin,
                                          int64_t imax, uint64_t umax, uint64_t *v) {
    unsigned char b = p[0];
    int64_t size, sv;
    uint64_t uv;
    if (b <= 0x7f) {
        *v = b;
        return 1;
    }
    if (is_signed) {
        if (b >= 0xe0) {
            *v = (uint64_t)(int64_t)(int8_t)b;
            return 1;
        }
        if (b >= 0xd0 && b <= 0xd3) {
            size = (int64_t)1 << (b - 0xd0);
            if (size < left) {
                sv = zp_load_int_family(b, p + 1);
                if (sv >= imin && sv <= imax) {
                    *v = (uint64_t)sv;
                    return 1 + size;
                }
            }
        }
    } else if (b >= 0xcc && b <= 0xcf) {
        size = (int64_t)1 << (b - 0xcc);
        if (size < left) {
            uv = zp_load_uint_family(b, p + 1);
            if (uv <= umax) {
                *v = uv;
                return 1 + size;
            }
        }
    }
    return 0;
}

/* Whether the integer read at p (zp_load_integer's *num) is one of a Go integer
 * kind: signed of range imin..imax, or unsigned up to umax. When strict, as Go's
 * reader, a signed kind takes the int family (and fixints) only, an unsigned kind
 * the uint family and positive fixints only (ZP_INT_FAMILY). */
static inline int zp_check_integer(const unsigned char *p, const zp_number *num, int is_signed, int64_t imin,
                                   int64_t imax, uint64_t umax, int strict, zp_head *h) {
    int is_uint = num->family == ZP_NUMBER_UINT;
    int64_t sv = (int64_t)num->bits;
    if (strict && p[0] > 0x7f && is_signed == is_uint)
        return ZP_INT_FAMILY;
    if (is_uint ? (is_signed ? num->bits > (uint64_t)imax : num->bits > umax)
                : (is_signed ? sv < imin || sv > imax : sv < 0 || (uint64_t)sv > umax)) {
        h->value = sv;
        h->code = (int8_t)is_uint;
        return ZP_INT_OVERFLOW;
    }
    return ZP_READ_OK;
}

/* A float as Go's reader takes it for a float32 (want32) or float64 kind: float64,
 * which a float32 takes when it holds it exactly (never when strict); float32; and
 * unless strict an integer that the kind holds exactly. *d: the value; the value
 * takes h->header bytes; h->code is 1 for a float32 on the wire (whose bits a
 * float32 column keeps as they are, NaN payloads too). */
static inline int zp_read_float(const unsigned char *p, int64_t left, int want32, int strict, zp_head *h,
                                double *d) {
    zp_number num;
    int64_t size;
    h->code = p[0] == 0xca;
    if (p[0] == 0xcb) {
        h->header = 9;
        if (left < 9)
            return zp_read_short(h, 0, 9);
        *d = zp_double_from_bits(zp_load_u64(p + 1));
        if (want32) {
            if (strict)
                return ZP_FLOAT64_STRICT;
            if (!zp_double_fits_f32(*d))
                return ZP_FLOAT64_INEXACT;
        }
        return ZP_READ_OK;
    }
    if (p[0] == 0xca) {                 /* float64 kinds take float32 too, as in Go */
        h->header = 5;
        if (left < 5)
            return zp_read_short(h, 0, 5);
        *d = zp_double_from_f32_bits(zp_load_u32(p + 1));
        return ZP_READ_OK;
    }
    if (strict)
        return ZP_READ_OTHER;
    size = zp_load_integer(p, left, &num);
    if (size < 0)
        return zp_read_short(h, 0, -size);
    if (size == 0)
        return ZP_READ_OTHER;
    h->header = size;
    if (num.family == ZP_NUMBER_INT ? !zp_i64_fits_double((int64_t)num.bits) : !zp_u64_fits_double(num.bits))
        return ZP_INT_INEXACT;
    *d = num.family == ZP_NUMBER_INT ? (double)(int64_t)num.bits : (double)num.bits;
    if (want32 && !zp_double_fits_f32(*d))
        return ZP_INT_INEXACT;
    return ZP_READ_OK;
}

/* -- time.Time and complex numbers ---------------------------------------------------- */

/* A time.Time as Go's reader takes it: ext 5 of 12 bytes (seconds, then nanoseconds
 * as an int32: outside 0..999999999 they carry into the seconds, as Go's time.Unix
 * does, its int64 seconds wrapping around), ext8 only when strict; unless strict,
 * the msgpack spec's timestamp too (ext -1 of 4, 8 or 12 bytes). h: the ext read
 * (the value takes h->header + h->n bytes). */
static int zp_read_time(const unsigned char *p, int64_t left, int strict, zp_head *h,
                               int64_t *seconds, int64_t *nanos) {
    int rc;
    const unsigned char *data;
    uint64_t packed;
    int64_t carry;
    if (left >= 15 && p[0] == 0xc7 && p[1] == 12 && p[2] == 5) {    /* as Go writes it: ext8, 12 bytes, ext 5 */
        h->header = 3;
        h->n = 12;
        h->code = 5;
    } else {
        rc = zp_read_ext(p, left, h);
        if (rc != ZP_READ_OK)
            return rc;
    }
    data = p + h->header;
    if (h->code == 5 && h->n == 12) {
        if (strict && p[0] != 0xc7)     /* Go's ReadTime takes the ext8 header only */
            return ZP_TIME_STRICT;
        *seconds = zp_load_i64(data);
        *nanos = (int32_t)zp_load_u32(data + 8);
        if (*nanos < 0 || *nanos >= 1000000000) {
            carry = zp_floor_div(*nanos, 1000000000);
            *seconds = (int64_t)((uint64_t)*seconds + (uint64_t)carry);
            *nanos -= carry * 1000000000;
        }
        return ZP_READ_OK;
    }
    if (h->code == -1 && !strict && (h->n == 4 || h->n == 8 || h->n == 12)) {
        if (h->n == 4) {
            *seconds = zp_load_u32(data);
            *nanos = 0;
        } else if (h->n == 8) {
            packed = zp_load_u64(data);
            *nanos = (int64_t)(packed >> 34);
            *seconds = (int64_t)(packed & 0x3ffffffffULL);
        } else {
            *nanos = zp_load_u32(data);
            *seconds = zp_load_i64(data + 4);
        }
        if (*nanos > 999999999) {
            h->value = *nanos;
            return ZP_TIME_NANOS;
        }
        return ZP_READ_OK;
    }
    return ZP_TIME_EXT;
}

/* A complex number as Go's reader takes it: complex64 is fixext8 of ext 3 (two
 * float32), complex128 fixext16 of ext 4 (two float64). `want64`: a complex64 is
 * read, which takes a complex128 whose parts are exactly float32 (not when strict);
 * a complex128 takes a complex64 (not when strict). *is64: what the wire holds, its
 * parts' bits in *re and *im (float32 bits of a complex64). The value takes
 * h->header bytes. */
static int zp_read_complex(const unsigned char *p, int64_t left, int want64, int strict, zp_head *h,
                                  int *is64, uint64_t *re, uint64_t *im) {
    unsigned char b = p[0];
    if (b == 0xd7 || b == 0xd8) {
        h->header = b == 0xd7 ? 10 : 18;
        if (h->header > left)
            return zp_read_short(h, 0, h->header);
        *is64 = b == 0xd7;
        if ((int8_t)p[1] == (*is64 ? 3 : 4)) {
            if (*is64) {
                *re = zp_load_u32(p + 2);
                *im = zp_load_u32(p + 6);
                return !want64 && strict ? ZP_COMPLEX64_STRICT : ZP_READ_OK;
            }
            *re = zp_load_u64(p + 2);
            *im = zp_load_u64(p + 10);
            if (want64) {
                if (strict)
                    return ZP_COMPLEX128_STRICT;
                if (!(zp_double_fits_f32(zp_double_from_bits(*re)) && zp_double_fits_f32(zp_double_from_bits(*im))))
                    return ZP_COMPLEX128_INEXACT;
            }
            return ZP_READ_OK;
        }
    }
    h->value = want64 ? 3 : 4;      /* the ext it takes, for the message */
    return ZP_COMPLEX_OTHER;
}

/* -- interface{} values ------------------------------------------------------------- */

/* Go reads a map inside interface{} as map[string]interface{}: keys str, bin (or nil). */
static inline int zp_any_key_ok(unsigned char b) {
    return (b & 0xe0) == 0xa0 || (b >= 0xd9 && b <= 0xdb) || (b >= 0xc4 && b <= 0xc6) || b == 0xc0;
}

/* Whether an ext inside interface{} (lead b, type code, n bytes) is one Go's reader
 * takes by its type: ext 5 as time.Time (ext8, 12 bytes), 3 as complex64 (fixext8),
 * 4 as complex128 (fixext16); any other type as a raw extension. */
static inline int zp_any_ext_ok(unsigned char b, int8_t code, int64_t n) {
    return code == 3 ? b == 0xd7 : code == 4 ? b == 0xd8 : code == 5 ? b == 0xc7 && n == 12 : 1;
}

/* -- UTF-8 -------------------------------------------------------------------------- */
/* A str is built from its UTF-8 in two passes: zp_utf8_measure counts its code points
 * and finds its largest byte (a loop the compiler vectorizes), which tells the compact
 * str kind that holds it exactly; then zp_utf8_decode_ucs1, _ucs2 or _ucs4 checks each
 * character and writes its code point into a str allocated once at its final length
 * and kind (CPython's decoder grows, widens and shrinks its buffer instead). Long ASCII
 * is checked and copied in one pass (zp_copy_ascii). Strict as Python's decoder: no
 * overlong forms, no surrogates, nothing above U+10FFFF; what a decoder refuses goes to
 * Python's decoder, which says where and why in its own words. */

#define ZP_HIGH_BITS 0x8080808080808080ULL

/* Copies the ASCII prefix of the n bytes at s to out, 32 then 8 bytes at a time (no
 * alignment asked of either; a tail of 1-7 bytes, and a string of 4-7, as two
 * overlapping words, every load and store inside the n bytes): returns n when all are
 * ASCII, else at most the offset of the first non-ASCII byte, and out holds that many
 * (the caller checks and copies the rest). For the decoder's strs and the columnar
 * reader's string columns alike. */
static inline int64_t zp_copy_ascii(unsigned char *out, const unsigned char *s, int64_t n) {
    int64_t i = 0;
    uint64_t a, b, c, d;
    uint32_t u, u2;
    if (n < 8) {
        if (n >= 4) {
            memcpy(&u, s, 4);
            memcpy(&u2, s + n - 4, 4);
            if ((u | u2) & 0x80808080u)
                return 0;
            memcpy(out, &u, 4);
            memcpy(out + n - 4, &u2, 4);
            return n;
        }
        for (; i < n; i++) {
            if (s[i] >= 0x80)
                return i;
            out[i] = s[i];
        }
        return n;
    }
    for (; i + 32 <= n; i += 32) {
        memcpy(&a, s + i, 8);
        memcpy(&b, s + i + 8, 8);
        memcpy(&c, s + i + 16, 8);
        memcpy(&d, s + i + 24, 8);
        if ((a | b | c | d) & ZP_HIGH_BITS)
            break;
        memcpy(out + i, &a, 8);
        memcpy(out + i + 8, &b, 8);
        memcpy(out + i + 16, &c, 8);
        memcpy(out + i + 24, &d, 8);
    }
    for (; i + 8 <= n; i += 8) {
        memcpy(&a, s + i, 8);
        if (a & ZP_HIGH_BITS)
            return i;
        memcpy(out + i, &a, 8);
    }
    if (i < n) {                        /* the tail: the last 8 bytes, overlapping */
        memcpy(&a, s + n - 8, 8);
        if (a & ZP_HIGH_BITS)
            return i;
        memcpy(out + n - 8, &a, 8);
    }
    return n;
}

/* The code points the n bytes at s hold if they are valid UTF-8 (one for each byte
 * that is no continuation byte 0x80-0xbf), and the str kind's bound in *maxchar, read
 * off the largest byte: below 0x80 ASCII (127); up to 0xc3, leads of U+0080-U+00FF
 * (255); up to 0xef, leads of at most U+FFFF (0xffff); else 0x10ffff. Exact for valid
 * UTF-8; the decoders below refuse the rest. */
static inline int64_t zp_utf8_measure(const unsigned char *s, int64_t n, uint32_t *maxchar) {
    int64_t i = 0, cont = 0, k, block;
    unsigned char top = 0, block_cont, block_top;
    /* blocks of byte-wide sums and maxima, which the compiler vectorizes */
    while (i < n) {
        block = n - i < 240 ? n - i : 240;     /* under 256, a multiple of the vector widths */
        block_cont = 0;
        block_top = 0;
        for (k = 0; k < block; k++) {
            block_cont += (unsigned char)((s[i + k] & 0xc0) == 0x80);
            block_top = s[i + k] > block_top ? s[i + k] : block_top;
        }
        cont += block_cont;
        top = block_top > top ? block_top : top;
        i += block;
    }
    *maxchar = top < 0x80 ? 0x7f : top < 0xc4 ? 0xff : top < 0xf0 ? 0xffff : 0x10ffff;
    return n - cont;
}

/* The bytes before the first non-ASCII one among the 8 at s (whose word is w): 8 when
 * all are ASCII. */
static inline int64_t zp_ascii_prefix8(uint64_t w, const unsigned char *s) {
    int64_t k = 0;
    w &= ZP_HIGH_BITS;
    if (w == 0)
        return 8;
#if ZP_LITTLE_ENDIAN && (defined(__GNUC__) || defined(__clang__))
    (void)s;
    k = __builtin_ctzll(w) >> 3;
#else
    while (s[k] < 0x80)
        k++;
#endif
    return k;
}

/* Each decoder writes the code points of the n bytes at s into out, which has room
 * for `chars` (as zp_utf8_measure counted: never more is written, whatever the bytes),
 * and returns 0, or -1 at the first character that is not strict UTF-8 of at most its
 * kind's bound (out then holds garbage). An ASCII run goes a word at a time: 8 bytes
 * loaded and stored, as many kept as are ASCII. */
#define ZP_UTF8_ASCII_RUN(T)                                                                    \
    if (c < 0x80) {                                                                             \
        if (i + 8 <= n && end - out >= 8) {                                                     \
            uint64_t w_;                                                                        \
            unsigned char b_[8];                                                                \
            int64_t k_;                                                                         \
            memcpy(&w_, s + i, 8);                                                              \
            memcpy(b_, &w_, 8);                                                                 \
            for (k_ = 0; k_ < 8; k_++)                                                          \
                out[k_] = (T)b_[k_];                                                            \
            k_ = zp_ascii_prefix8(w_, s + i);                                                   \
            out += k_;                                                                          \
            i += k_;                                                                            \
            continue;                                                                           \
        }                                                                                       \
        *out++ = (T)c;                                                                          \
        i++;                                                                                    \
        continue;                                                                               \
    }

/* Two-byte characters U+0080-U+07FF at s[i] (lead c). */
#define ZP_UTF8_TWO(T)                                                                          \
    if (c < 0xe0) {                                                                             \
        if (c < 0xc2 || i + 1 >= n || (s[i + 1] & 0xc0) != 0x80)                                \
            return -1;                                                                          \
        *out++ = (T)(((c & 0x1f) << 6) | (s[i + 1] & 0x3f));                                    \
        i += 2;                                                                                 \
        continue;                                                                               \
    }

/* Three-byte characters U+0800-U+FFFF but the surrogates U+D800-U+DFFF. */
#define ZP_UTF8_THREE(T)                                                                        \
    if (c < 0xf0) {                                                                             \
        uint32_t v_, b1_, b2_;                                                                  \
        if (i + 2 >= n)                                                                         \
            return -1;                                                                          \
        b1_ = s[i + 1];                                                                         \
        b2_ = s[i + 2];                                                                         \
        if (((b1_ & 0xc0) ^ 0x80) | ((b2_ & 0xc0) ^ 0x80))                                      \
            return -1;                                                                          \
        v_ = ((uint32_t)(c & 0x0f) << 12) | ((b1_ & 0x3f) << 6) | (b2_ & 0x3f);                  \
        if (v_ < 0x800 || v_ - 0xd800 < 0x800)                                                  \
            return -1;                                                                          \
        *out++ = (T)v_;                                                                         \
        i += 3;                                                                                 \
        continue;                                                                               \
    }

/* Four-byte characters U+10000-U+10FFFF. */
#define ZP_UTF8_FOUR(T)                                                                         \
    {                                                                                           \
        uint32_t v_;                                                                            \
        if (c > 0xf4 || i + 3 >= n || (s[i + 1] & 0xc0) != 0x80 || (s[i + 2] & 0xc0) != 0x80    \
            || (s[i + 3] & 0xc0) != 0x80)                                                       \
            return -1;                                                                          \
        v_ = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(s[i + 1] & 0x3f) << 12)                 \
             | ((uint32_t)(s[i + 2] & 0x3f) << 6) | (s[i + 3] & 0x3f);                          \
        if (v_ < 0x10000 || v_ > 0x10ffff)                                                      \
            return -1;                                                                          \
        *out++ = (T)v_;                                                                         \
        i += 4;                                                                                 \
    }

/* A decoder into code units T: each character read by the first of `steps` that takes
 * its lead byte c, the ASCII run first. */
#define ZP_UTF8_DECODER(name, T, steps)                                                         \
    static inline int name(const unsigned char *s, int64_t n, T *out, int64_t chars) {          \
        const T *end = out + chars;                                                             \
        int64_t i = 0;                                                                          \
        unsigned char c;                                                                        \
        while (i < n) {                                                                         \
            c = s[i];                                                                           \
            ZP_UTF8_ASCII_RUN(T)                                                                \
            steps                                                                               \
        }                                                                                       \
        return 0;                                                                               \
    }

ZP_UTF8_DECODER(zp_utf8_decode_ucs1, uint8_t, if (c > 0xc3) return -1; ZP_UTF8_TWO(uint8_t))
ZP_UTF8_DECODER(zp_utf8_decode_ucs2, uint16_t, ZP_UTF8_TWO(uint16_t) ZP_UTF8_THREE(uint16_t) return -1;)
ZP_UTF8_DECODER(zp_utf8_decode_ucs4, uint32_t, ZP_UTF8_TWO(uint32_t) ZP_UTF8_THREE(uint32_t) ZP_UTF8_FOUR(uint32_t))

#undef ZP_UTF8_ASCII_RUN
#undef ZP_UTF8_TWO
#undef ZP_UTF8_THREE
#undef ZP_UTF8_FOUR
#undef ZP_UTF8_DECODER

/* -- structs -------------------------------------------------------------------------- */

/* A name of a field or struct: UTF-8 bytes. */
typedef struct {
    const char *text;
    int64_t len;
} zp_name;

/* The value of a struct's key -1: a str that must be the struct's own name (len
 * bytes at name). The value takes h->header + h->n bytes. */
static int zp_read_struct_name(const unsigned char *p, int64_t left, const char *name, int64_t len,
                                      zp_head *h) {
    int rc;
    if (left < 1)
        return zp_read_short(h, 0, 1);
    rc = zp_read_str(p, left, h);
    if (rc == ZP_READ_OTHER)
        return ZP_NAME_NOT_STR;
    if (rc != ZP_READ_OK)
        return rc;
    if (h->n != len || !zp_same_bytes(p + h->header, name, h->n))
        return ZP_NAME_OTHER;
    return ZP_READ_OK;
}

/* Whether the map at p names its struct first (as Go writes it with its struct
 * names, and as interface values must): its first key is -1, in any signed
 * encoding, and that key's value a str. ZP_READ_OK: the name's bytes are h->n at
 * p + h->header; ZP_READ_OTHER: it does not; ZP_READ_SHORT: the input ends before
 * that is known. The entry count is not checked: reading the map does that. */
static int zp_peek_struct_name(const unsigned char *p, int64_t left, zp_head *h) {
    unsigned char b = p[0];
    zp_number key;
    zp_head name;
    int64_t at, n, size;
    int rc;
    if ((b & 0xf0) == 0x80) {
        at = 1;
        n = b & 0x0f;
    } else if (b == 0xde || b == 0xdf) {
        if (zp_read_count(p, left, b == 0xdf, h) != ZP_READ_OK)
            return ZP_READ_SHORT;
        at = h->header;
        n = h->n;
    } else {
        return ZP_READ_OTHER;
    }
    if (n == 0)
        return ZP_READ_OTHER;
    if (at >= left)
        return zp_read_short(h, at, 1);
    size = zp_load_integer(p + at, left - at, &key);
    if (size < 0)
        return zp_read_short(h, at, -size);
    if (size == 0 || key.family != ZP_NUMBER_INT || (int64_t)key.bits != -1)
        return ZP_READ_OTHER;
    at += size;
    if (at >= left)
        return zp_read_short(h, at, 1);
    rc = zp_read_str(p + at, left - at, &name);
    if (rc == ZP_READ_SHORT)
        return zp_read_short(h, at + name.at, name.needed);
    if (rc != ZP_READ_OK)
        return rc;
    h->header = at + name.header;
    h->n = name.n;
    return ZP_READ_OK;
}

enum {
    ZP_KEY_ZID = 100,   /* an integer key: h->value the zid (-2 for one beyond int32, which no field has) */
    ZP_KEY_NAME = 101,  /* -1, in any signed encoding: the struct's name follows */
    ZP_KEY_TAG = 102    /* a str (msgp mode): the field's tag, h->n bytes after h->header */
};

/* The key of a struct map's entry, but for a positive fixint (the callers' own fast
 * path) and 0xff, which the callers also take first: ZP_KEY_ZID (the key takes
 * h->header bytes; *wide: the uint as read when it is beyond int32), ZP_KEY_NAME
 * (likewise), ZP_KEY_TAG, ZP_READ_SHORT or ZP_KEY_OTHER. */
static int zp_read_struct_key(const unsigned char *p, int64_t left, zp_head *h, uint64_t *wide) {
    zp_number key;
    int64_t size;
    int rc = zp_read_str(p, left, h);
    if (rc == ZP_READ_OK)
        return ZP_KEY_TAG;
    if (rc != ZP_READ_OTHER)
        return rc;
    size = zp_load_integer(p, left, &key);
    if (size < 0)
        return zp_read_short(h, 0, -size);
    if (size == 0)
        return ZP_KEY_OTHER;
    h->header = size;
    h->value = (int64_t)key.bits;
    if (key.family == ZP_NUMBER_UINT && key.bits > 0x7fffffff) {
        *wide = key.bits;
        h->value = -2;
    }
    return h->value == -1 && key.family == ZP_NUMBER_INT ? ZP_KEY_NAME : ZP_KEY_ZID;
}

/* The position among `count` names of the one equal to the n bytes at text, trying
 * from `hint` on (keys mostly come in field order), or -1. Name i is the zp_name at
 * (const char *)names + i * stride: an array of zp_name, or of structs holding one
 * at the same place. */
static inline int64_t zp_find_name(const zp_name *names, size_t stride, int64_t count,
                                   const unsigned char *text, int64_t n, int64_t hint) {
    int64_t i, k;
    const zp_name *name;
    for (i = 0; i < count; i++) {
        k = (hint + i) % count;
        name = (const zp_name *)((const char *)names + (size_t)k * stride);
        if (name->len == n && zp_same_bytes(name->text, text, n))
            return k;
    }
    return -1;
}

/* -- messages ------------------------------------------------------------------------- */

/* The message of an input cut short: `needed` bytes from where `left` are. */
static inline void zp_short_message(char *out, size_t size, int64_t needed, int64_t left) {
    snprintf(out, size, "input ends inside a value: %lld bytes needed, %lld left", (long long)needed,
             (long long)left);
}

/* Why a skip failed (zp_skip.h: rc, the skipper s), in a reader of max_depth levels whose
 * input ends at end; depth: the levels of the path, the skipper's included. */
static void zp_skip_message(char *out, size_t size, int rc, const zp_skipper *s, int64_t end, int64_t max_depth,
                            int64_t depth) {
    switch (rc) {
    case ZP_SKIP_TRUNCATED:
        zp_short_message(out, size, s->needed, end - s->at);
        break;
    case ZP_SKIP_NEVER_USED:
        snprintf(out, size, "0xc1 is never used in msgpack");
        break;
    case ZP_SKIP_TOO_MANY:
        snprintf(out, size, "the headers claim more values than the input has bytes");
        break;
    case ZP_SKIP_TOO_DEEP:
        snprintf(out, size, "nesting deeper than max_depth=%lld", (long long)max_depth);
        break;
    default:
        snprintf(out, size, "out of memory for the field path at %lld levels", (long long)depth);
    }
}

/* Why a reader refused the value at p (`left` bytes readable there): the message of
 * `status` (any but OK and OTHER) with what it found in h. `go`: the Go type being
 * read (complex numbers), `name`: the struct's (its name's mismatch). */
static void zp_read_message(char *out, size_t size, int status, const unsigned char *p, int64_t left,
                                   const zp_head *h, const char *go, const char *name) {
    switch (status) {
    case ZP_READ_SHORT:
        zp_short_message(out, size, h->needed, left - h->at);
        break;
    case ZP_TIME_STRICT:
        snprintf(out, size, "expected time.Time (ext8, 12 bytes, ext 5), found %s (strict)", zp_lead_name(p[0]));
        break;
    case ZP_TIME_NANOS:
        snprintf(out, size, "timestamp nanoseconds %lld above 999999999", (long long)h->value);
        break;
    case ZP_TIME_EXT:
        snprintf(out, size, "expected time.Time (ext 5), found ext %d of %lld bytes", h->code, (long long)h->n);
        break;
    case ZP_COMPLEX64_STRICT:
        snprintf(out, size, "expected complex128 (ext 4), found complex64 (strict)");
        break;
    case ZP_COMPLEX128_STRICT:
        snprintf(out, size, "expected complex64 (ext 3), found complex128 (strict)");
        break;
    case ZP_COMPLEX128_INEXACT:
        snprintf(out, size, "complex128 value is not exactly a complex64");
        break;
    case ZP_COMPLEX_OTHER:
        snprintf(out, size, "expected %s (ext %d), found %s", go, (int)h->value, zp_lead_name(p[0]));
        break;
    case ZP_NAME_NOT_STR:
        snprintf(out, size, "struct name (key -1) must be a str, found %s", zp_lead_name(p[0]));
        break;
    case ZP_NAME_OTHER:
        snprintf(out, size, "struct name '%.*s' on the wire, expected '%s'", (int)(h->n < 200 ? h->n : 200),
                 (const char *)p + h->header, name);
        break;
    case ZP_INT_FAMILY:
        snprintf(out, size, "expected %s, found %s (strict: wrong integer family)", go, zp_lead_name(p[0]));
        break;
    case ZP_INT_OVERFLOW:
        if (h->code)
            snprintf(out, size, "%llu overflows %s", (unsigned long long)h->value, go);
        else
            snprintf(out, size, "%lld overflows %s", (long long)h->value, go);
        break;
    case ZP_FLOAT64_STRICT:
        snprintf(out, size, "expected float32, found float64 (strict)");
        break;
    case ZP_FLOAT64_INEXACT:
        snprintf(out, size, "float64 %.17g is not exactly a float32", zp_double_from_bits(zp_load_u64(p + 1)));
        break;
    case ZP_INT_INEXACT:
        snprintf(out, size, "integer is not exactly a %s", go);
        break;
    case ZP_ANY_KEY:
        snprintf(out, size, "a map inside interface{} is a map[string]interface{} to Go: its keys are str, "
                 "found %s (strict)", zp_lead_name(p[0]));
        break;
    case ZP_ANY_EXT:
        snprintf(out, size, "ext %d of %lld bytes in a %s: Go reads ext %d as %s only (strict)", h->code,
                 (long long)h->n, zp_lead_name(p[0]), h->code,
                 h->code == 3 ? "complex64 (fixext8)" : h->code == 4 ? "complex128 (fixext16)"
                                                       : "time.Time (ext8, 12 bytes)");
        break;
    case ZP_KEY_OTHER:
        snprintf(out, size, "struct key must be a zid (int) or a field name (str), found %s", zp_lead_name(p[0]));
        break;
    default:
        snprintf(out, size, "internal: read status %d", status);
    }
}

#endif
