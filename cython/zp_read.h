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

/* An array or a map, fix, 16 or 32 (0x80..0x9f, 0xdc..0xdf). */
static inline int zp_is_container(unsigned char b) {
    return (b & 0xe0) == 0x80 || (unsigned char)(b - 0xdc) < 4;
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
        out->bits = zp_load_uint_family(b, p + 1, left - 1);
    } else {
        out->family = ZP_NUMBER_INT;
        out->bits = (uint64_t)zp_load_int_family(b, p + 1, left - 1);
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
                sv = zp_load_int_family(b, p + 1, left - 1);
                if (sv >= imin && sv <= imax) {
                    *v = (uint64_t)sv;
                    return 1 + size;
                }
            }
        }
    } else if (b >= 0xcc && b <= 0xcf) {
        size = (int64_t)1 << (b - 0xcc);
        if (size < left) {
            uv = zp_load_uint_family(b, p + 1, left - 1);
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
 * str kind that holds it exactly; then zp_utf8_decode (by kind: zp_utf8_decode_ucs1,
 * _ucs2, _ucs4) checks it and writes its code points into a str allocated once at its
 * final length and kind (CPython's decoder grows, widens and shrinks its buffer
 * instead); text of one- and two-byte characters goes 16 bytes a step where the
 * machine has SSSE3. Long ASCII is checked and copied in one pass (zp_copy_ascii); when
 * a non-ASCII byte stops it, the ASCII before it is not read again: only the rest is
 * measured and decoded, after that prefix (zp_utf8_decode_after_ascii).
 * Strict as Python's decoder: no
 * overlong forms, no surrogates, nothing above U+10FFFF; what a decoder refuses goes to
 * Python's decoder, which says where and why in its own words. */

#define ZP_HIGH_BITS 0x8080808080808080ULL
#define ZP_LOW_BYTES 0x0101010101010101ULL

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define ZP_SSE2 1
#else
#define ZP_SSE2 0
#endif

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

/* The 8 bytes at s as a little-endian word, whatever the machine's order. */
static inline uint64_t zp_load_le64(const unsigned char *s) {
#if ZP_LITTLE_ENDIAN
    uint64_t w;
    memcpy(&w, s, 8);
    return w;
#else
    uint64_t w = 0;
    int k;
    for (k = 7; k >= 0; k--)
        w = (w << 8) | s[k];
    return w;
#endif
}

/* The 8 bytes of the little-endian word w stored at out. */
static inline void zp_store_le64(unsigned char *out, uint64_t w) {
#if ZP_LITTLE_ENDIAN
    memcpy(out, &w, 8);
#else
    int k;
    for (k = 0; k < 8; k++)
        out[k] = (unsigned char)(w >> (8 * k));
#endif
}

/* The code points the n bytes at s hold if they are valid UTF-8 (one for each byte
 * that is no continuation byte 0x80-0xbf), and the str kind's bound in *maxchar, read
 * off the largest byte: below 0x80 ASCII (127); up to 0xc3, leads of U+0080-U+00FF
 * (255); up to 0xef, leads of at most U+FFFF (0xffff); else 0x10ffff. Exact for valid
 * UTF-8; the decoders below refuse the rest. */
static inline int64_t zp_utf8_measure(const unsigned char *s, int64_t n, uint32_t *maxchar) {
    int64_t i = 0, cont = 0, k, block;
    unsigned char top = 0, block_top;
    uint64_t w, high = 0, c4 = 0, f0 = 0;
#if ZP_SSE2
    /* 16 bytes a step: a continuation byte is below -64 as a signed byte; the count
     * kept in byte-wide sums for up to 255 steps, the largest byte by unsigned maxima */
    const __m128i below = _mm_set1_epi8(-64), zero = _mm_setzero_si128();
    __m128i sums, tops = zero, x;
    if (n >= 16) {
        while (n - i >= 16) {
            block = (n - i) >> 4;
            block = block < 255 ? block : 255;
            sums = zero;
            for (k = 0; k < block; k++, i += 16) {
                x = _mm_loadu_si128((const __m128i *)(s + i));
                sums = _mm_sub_epi8(sums, _mm_cmplt_epi8(x, below));
                tops = _mm_max_epu8(tops, x);
            }
            sums = _mm_sad_epu8(sums, zero);
            cont += _mm_cvtsi128_si32(sums) + _mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
        }
        tops = _mm_max_epu8(tops, _mm_srli_si128(tops, 8));
        tops = _mm_max_epu8(tops, _mm_srli_si128(tops, 4));
        tops = _mm_max_epu8(tops, _mm_srli_si128(tops, 2));
        tops = _mm_max_epu8(tops, _mm_srli_si128(tops, 1));
        top = (unsigned char)_mm_cvtsi128_si32(tops);
    }
#else
    /* blocks of byte-wide sums and maxima, which the compiler vectorizes */
    unsigned char block_cont;
    while (n - i >= 16) {
        block = (n - i) & ~(int64_t)15;
        block = block < 240 ? block : 240;     /* under 256 */
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
#endif
    /* the last 0-15 bytes a word at a time, the last word overlapping (its bytes
     * counted already shifted out): the continuations summed by a multiplication, and
     * whether a byte reaches 0x80, 0xc4 or 0xf0 (each byte's low seven bits plus 0x3c
     * or 0x10 carry into its high bit); under 8 bytes, a byte at a time */
    if (n >= 8) {
        while (i < n) {
            if (n - i >= 8) {
                w = zp_load_le64(s + i);
                i += 8;
            } else {
                w = zp_load_le64(s + n - 8) >> (8 * (8 - (n - i)));
                i = n;
            }
            cont += (int64_t)((((w & ~(w << 1) & ZP_HIGH_BITS) >> 7) * ZP_LOW_BYTES) >> 56);
            high |= w;
            c4 |= w & ((w & 0x7f7f7f7f7f7f7f7fULL) + 0x3c3c3c3c3c3c3c3cULL);
            f0 |= w & ((w & 0x7f7f7f7f7f7f7f7fULL) + 0x1010101010101010ULL);
        }
        block_top = (f0 & ZP_HIGH_BITS) ? 0xf0 : (c4 & ZP_HIGH_BITS) ? 0xc4 : (high & ZP_HIGH_BITS) ? 0x80 : 0;
        top = block_top > top ? block_top : top;
    } else {
        for (; i < n; i++) {
            cont += (s[i] & 0xc0) == 0x80;
            top = s[i] > top ? s[i] : top;
        }
    }
    *maxchar = top < 0x80 ? 0x7f : top < 0xc4 ? 0xff : top < 0xf0 ? 0xffff : 0x10ffff;
    return n - cont;
}

/* The 8 ASCII bytes at s widened into code units of 2 and 4 bytes at out. */
static inline void zp_widen8_ucs2(uint16_t *out, const unsigned char *s) {
#if ZP_SSE2
    _mm_storeu_si128((__m128i *)out, _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)s), _mm_setzero_si128()));
#else
    int k;
    for (k = 0; k < 8; k++)
        out[k] = s[k];
#endif
}

static inline void zp_widen8_ucs4(uint32_t *out, const unsigned char *s) {
#if ZP_SSE2
    const __m128i zero = _mm_setzero_si128();
    __m128i x = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)s), zero);
    _mm_storeu_si128((__m128i *)out, _mm_unpacklo_epi16(x, zero));
    _mm_storeu_si128((__m128i *)(out + 4), _mm_unpackhi_epi16(x, zero));
#else
    int k;
    for (k = 0; k < 8; k++)
        out[k] = s[k];
#endif
}

/* The bytes before the first non-ASCII one among the 8 of the little-endian word w:
 * 8 when all are ASCII. */
static inline int64_t zp_ascii_prefix8(uint64_t w) {
    int64_t k = 0;
    w &= ZP_HIGH_BITS;
    if (w == 0)
        return 8;
#if defined(__GNUC__) || defined(__clang__)
    k = __builtin_ctzll(w) >> 3;
#else
    while (!(w & 0x80)) {
        w >>= 8;
        k++;
    }
#endif
    return k;
}

/* The character at s (n >= 1 bytes there) if it is strict UTF-8: its code point in *v
 * and its length returned; 0 when it is not (an invalid or cut-short sequence, an
 * overlong form, a surrogate, above U+10FFFF). One branch per length: for the last
 * bytes of a str, after the decoders' loops. */
static inline int zp_utf8_char(const unsigned char *s, int64_t n, uint32_t *v) {
    uint32_t c = s[0];
    if (c < 0x80) {
        *v = c;
        return 1;
    }
    if (c < 0xc2 || c > 0xf4)
        return 0;
    if (c < 0xe0) {
        if (n < 2 || (s[1] & 0xc0) != 0x80)
            return 0;
        *v = ((c & 0x1f) << 6) | (s[1] & 0x3f);
        return 2;
    }
    if (c < 0xf0) {
        if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
            return 0;
        *v = ((c & 0x0f) << 12) | ((uint32_t)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
        return *v < 0x800 || *v - 0xd800 < 0x800 ? 0 : 3;
    }
    if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
        return 0;
    *v = ((c & 0x07) << 18) | ((uint32_t)(s[1] & 0x3f) << 12) | ((uint32_t)(s[2] & 0x3f) << 6) | (s[3] & 0x3f);
    return *v < 0x10000 || *v > 0x10ffff ? 0 : 4;
}

/* Each decoder writes the code points of the n bytes at s into out, which has room
 * for `chars` (as zp_utf8_measure counted: never more is written, whatever the bytes),
 * and returns 0 when the bytes are strict UTF-8 of exactly `chars` characters, none
 * above its kind's bound; else -1 (out then holds garbage). Its loop takes no branch
 * on validity: each step adds what it finds wrong to `err`, tested once at the end.
 * The loop reads up to 9 bytes from s + i and writes up to 8 code units from out (17
 * and 16 in the SSSE3 steps), so it stops where fewer are left of either; a step consumes at least as many bytes as
 * it moves out, so a bound on i keeps out inside too. The last bytes go one character
 * at a time (zp_utf8_char). */
#define ZP_UTF8_TAIL(T, bound)                                                                  \
    while (i < n) {                                                                             \
        uint32_t v_;                                                                            \
        int k_;                                                                                 \
        if (out == end)                                                                         \
            return -1;                                                                          \
        k_ = zp_utf8_char(s + i, n - i, &v_);                                                   \
        if (k_ == 0 || v_ > (bound))                                                            \
            return -1;                                                                          \
        *out++ = (T)v_;                                                                         \
        i += k_;                                                                                \
    }                                                                                           \
    return err == 0 && out == end ? 0 : -1;

/* The fast loop, run to `stop` while `reach` bytes are left to read and more than
 * `room` units of room, then again from there while that holds (a step that moved out
 * by less than it consumed left room for more). */
#define ZP_UTF8_LOOP(reach, room)                                                               \
    for (;;) {                                                                                  \
        stop = n - (reach) + 1;                                                                 \
        if (i + (end - out) - (room) < stop)                                                    \
            stop = i + (end - out) - (room);                                                    \
        if (i >= stop)                                                                          \
            break;                                                                              \
        while (i < stop) {
#define ZP_UTF8_LOOP_END }

/* An ASCII character at s[i] (c; word: the 8 bytes from there): when all 8 are ASCII,
 * all 8 stored widened (zp_widen8_ucs2, _ucs4); else the one. */
#define ZP_UTF8_ASCII(widen8)                                                                   \
    if (!(word & ZP_HIGH_BITS)) {                                                               \
        widen8(out, s + i);                                                                     \
        out += 8;                                                                               \
        i += 8;                                                                                 \
    } else {                                                                                    \
        *out++ = c;                                                                             \
        i++;                                                                                    \
    }

/* Two-byte characters U+0080-U+07FF at s[i] (lead c below 0xe0; word: the 8 bytes
 * from there): four at once where the 8 bytes are four of them, each code point
 * in its 16 bits of the word (a lead 0xc0 or 0xc1, an overlong form, refused); else
 * one, where a continuation byte, 0xc0 or 0xc1 as the lead is an error. */
#define ZP_UTF8_TWO(T)                                                                          \
    if ((word & 0xc0e0c0e0c0e0c0e0ULL) == 0x80c080c080c080c0ULL) {                              \
        uint64_t q_ = ((word & 0x001f001f001f001fULL) << 6) | ((word >> 8) & 0x003f003f003f003fULL); \
        uint64_t low_ = (((word & 0x001e001e001e001eULL) + 0x007f007f007f007fULL) & 0x0080008000800080ULL) \
                        ^ 0x0080008000800080ULL;                                                \
        err |= (uint32_t)(low_ | (low_ >> 32));                                                 \
        out[0] = (T)(uint16_t)q_;                                                               \
        out[1] = (T)(uint16_t)(q_ >> 16);                                                       \
        out[2] = (T)(uint16_t)(q_ >> 32);                                                       \
        out[3] = (T)(uint16_t)(q_ >> 48);                                                       \
        out += 4;                                                                               \
        i += 8;                                                                                 \
    } else {                                                                                    \
        err |= (((uint32_t)word & 0xc000) ^ 0x8000) | (uint32_t)(c < 0xc2);                     \
        *out++ = (T)(((c & 0x1f) << 6) | ((word >> 8) & 0x3f));                                 \
        i += 2;                                                                                 \
    }

/* Three-byte characters U+0800-U+FFFF (lead c, 0xe0-0xef; word: the 8 bytes from
 * there): two at once where the 8 bytes start with two of them, their code points put
 * together in one word (the second's 24 bits up); else one. An overlong form (below
 * U+0800) or a surrogate (U+D800-U+DFFF) is an error: bits 11-15 of the code point 0
 * or 0x1b. */
#define ZP_UTF8_THREE(T)                                                                        \
    if ((word & 0xc0c0f0c0c0f0ULL) == 0x8080e08080e0ULL) {                                      \
        uint64_t v_ = ((word & 0x0f00000fULL) << 12) | ((word >> 2) & 0xfc0000fc0ULL)            \
                      | ((word >> 16) & 0x3f00003fULL);                                         \
        uint64_t top_ = (v_ >> 11) & 0x1f00001fULL;                                             \
        top_ = (((top_ + 0x1f00001fULL) & ((top_ ^ 0x1b00001bULL) + 0x1f00001fULL)) & 0x20000020ULL) \
               ^ 0x20000020ULL;                                                                 \
        err |= (uint32_t)(top_ | (top_ >> 24));                                                 \
        out[0] = (T)(uint16_t)v_;                                                               \
        out[1] = (T)(uint16_t)(v_ >> 24);                                                       \
        out += 2;                                                                               \
        i += 6;                                                                                 \
    } else {                                                                                    \
        uint32_t v_ = ((c & 0x0f) << 12) | (((uint32_t)word >> 2) & 0x0fc0) | (((uint32_t)word >> 16) & 0x3f); \
        err |= (((uint32_t)word & 0xc0c000) ^ 0x808000) | ((0x08000001u >> (v_ >> 11)) & 1) | (c & 0x10); \
        *out++ = (T)v_;                                                                         \
        i += 3;                                                                                 \
    }

/* Latin-1 text 16 bytes a step needs SSSE3's byte shuffle, which x86-64's baseline
 * (SSE2) lacks: built for it beside the rest (gcc and clang) and run where the machine
 * has it, asked once at import (zp_utf8_init). Elsewhere, long Latin-1 text goes to
 * Python's decoder (str_from_utf8). */
#if ZP_SSE2 && (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define ZP_SSSE3 1
#include <tmmintrin.h>
#else
#define ZP_SSSE3 0
#endif

#if ZP_SSSE3
static int zp_ssse3;
/* For an 8-byte half whose continuations are the set bits of the index: the positions
 * of its other bytes, in order (0x80, which the shuffle turns into a zero byte, after
 * them), and how many those are. */
static uint64_t zp_latin1_squeeze[256];
static uint8_t zp_latin1_kept[256];
#endif

/* Whether long Latin-1 text is decoded by the core (the 16-byte steps run here); fills
 * their tables. Called once, at import. */
static inline int zp_utf8_init(void) {
#if ZP_SSSE3
    int mask, k, kept;
    __builtin_cpu_init();
    zp_ssse3 = __builtin_cpu_supports("ssse3") != 0;
    for (mask = 0; mask < 256; mask++) {
        uint64_t order = 0x8080808080808080ULL;
        for (k = 0, kept = 0; k < 8; k++) {
            if (mask & (1 << k))
                continue;
            order = (order & ~(0xffULL << (8 * kept))) | ((uint64_t)k << (8 * kept));
            kept++;
        }
        zp_latin1_squeeze[mask] = order;
        zp_latin1_kept[mask] = (uint8_t)kept;
    }
    return zp_ssse3;
#else
    return 0;
#endif
}

/* Latin-1 (U+0000-U+00FF): 8 bytes a step, without a branch per character. In the
 * word w, leads (0b11xxxxxx) and continuations (0b10xxxxxx) are flagged in each byte's
 * high bit; every continuation must follow a lead (the previous step's last lead
 * carried in) and every lead be 0xc2 or 0xc3. A lead's code point is its low two bits
 * and its continuation's six (the next byte: the word at s + i + 1). Each byte's code
 * unit goes to out at the count of the bytes before it that are no continuation, in
 * order, so that a continuation's is overwritten by the next byte's. From byte i on, a
 * character's first (out then at end minus the characters left), with what was found
 * wrong before in err. */
ZP_ALWAYS_INLINE int zp_utf8_decode_ucs1_from(const unsigned char *s, int64_t n, int64_t i, uint8_t *out,
                                           const uint8_t *end, uint64_t err) {
    int64_t stop;
    uint64_t carry = 0, w, next, leads, conts, bad, value, keep;
    int k;
    ZP_UTF8_LOOP(9, 15)
        w = zp_load_le64(s + i);
        if (!(w & ZP_HIGH_BITS)) {             /* ASCII: the run copied (8 bytes at least) */
            err |= carry;                       /* a lead's continuation missing */
            carry = 0;
            k = (int)zp_copy_ascii(out, s + i, n - i < end - out ? n - i : end - out);
            out += k;
            i += k;
            continue;
        }
        next = zp_load_le64(s + i + 1);
        leads = w & (w << 1) & ZP_HIGH_BITS;
        conts = w & ~(w << 1) & ZP_HIGH_BITS;
        err |= conts ^ ((leads << 8) | carry);
        bad = (w & 0x3e3e3e3e3e3e3e3eULL) ^ 0x0202020202020202ULL;     /* 0 for 0xc2, 0xc3 */
        err |= leads & ((bad + 0x7f7f7f7f7f7f7f7fULL) | bad);
        carry = leads >> 56;
        keep = (leads >> 7) * 0xff;
        value = (w & ~keep) | ((((w & 0x0303030303030303ULL) << 6) | (next & 0x3f3f3f3f3f3f3f3fULL)) & keep);
        if (conts && !(conts & (conts - 1))) { /* one continuation, at byte k: two stores */
            k = (int)zp_ascii_prefix8(conts);
            zp_store_le64(out, value);
            zp_store_le64(out + k, (value >> (8 * k)) >> 8);
            out += 7;
            i += 8;
            continue;
        }
        keep = (~conts & ZP_HIGH_BITS) >> 7;
        keep = (keep * ZP_LOW_BYTES) - keep;    /* byte k: the kept bytes before it (at most 7) */
        for (k = 0; k < 8; k++)
            out[(uint8_t)(keep >> (8 * k))] = (uint8_t)(value >> (8 * k));
        out += (uint8_t)(keep >> 56) + (uint8_t)(~conts >> 63);
        i += 8;
    }
    ZP_UTF8_LOOP_END
    if (carry) {                                /* the last lead's continuation, read with it */
        err |= (s[i] & 0xc0) ^ 0x80;
        i++;
    }
    while (i < n) {                             /* the last bytes: ASCII, or 0xc2/0xc3 and a continuation */
        if (out == end)
            return -1;
        if (s[i] < 0x80) {
            *out++ = s[i++];
            continue;
        }
        if ((s[i] & 0xfe) != 0xc2 || i + 1 >= n || (s[i + 1] & 0xc0) != 0x80)
            return -1;
        *out++ = (uint8_t)((s[i] << 6) | (s[i + 1] & 0x3f));
        i += 2;
    }
    return err == 0 && out == end ? 0 : -1;
}

#if ZP_SSSE3
/* A 16-byte step over characters of one and two bytes (U+0000-U+07FF) at x (the byte
 * after x readable): leads (0xc0-0xff) flagged in *leads, every continuation
 * (0x80-0xbf) checked to follow a lead, the last step's last lead carried in *carry
 * (its flag as byte 0) and this step's carried out. Returns the continuations as a
 * 16-bit mask, the bytes to drop; *order is the shuffle that squeezes each half's other
 * bytes together (zp_latin1_squeeze). The step always moves on by 16 bytes (a lead as
 * the 16th byte takes its continuation from the byte after x): no step waits for the
 * one before to know where it starts. */
__attribute__((target("ssse3")))
static inline unsigned zp_utf8_pairs(__m128i x, __m128i *carry, __m128i *leads, __m128i *err, __m128i *order) {
    __m128i conts = _mm_cmplt_epi8(x, _mm_set1_epi8(-64));
    unsigned drop = (unsigned)_mm_movemask_epi8(conts);
    *leads = _mm_andnot_si128(conts, _mm_cmplt_epi8(x, _mm_setzero_si128()));
    *err = _mm_or_si128(*err, _mm_xor_si128(conts, _mm_or_si128(_mm_slli_si128(*leads, 1), *carry)));
    *carry = _mm_srli_si128(*leads, 15);
    *order = _mm_add_epi8(_mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)&zp_latin1_squeeze[drop & 0xff]),
                                             _mm_loadl_epi64((const __m128i *)&zp_latin1_squeeze[drop >> 8])),
                          _mm_set_epi32(0x08080808, 0x08080808, 0, 0));
    return drop;
}

/* The low 8 bits of the code points of the pairs' characters at x (y: the bytes one
 * further): a lead's byte takes its low two bits and the next byte's six. */
__attribute__((target("ssse3")))
static inline __m128i zp_utf8_pairs_low(__m128i x, __m128i y, __m128i leads) {
    __m128i low = _mm_or_si128(_mm_and_si128(_mm_slli_epi16(x, 6), _mm_set1_epi8((char)0xc0)),
                               _mm_and_si128(y, _mm_set1_epi8(0x3f)));
    return _mm_or_si128(_mm_andnot_si128(leads, x), _mm_and_si128(leads, low));
}

/* Latin-1 (U+0000-U+00FF), 16 bytes a step (zp_utf8_pairs; every lead 0xc2 or 0xc3)
 * while 17 bytes are left to read and 16 units of room in out (ZP_UTF8_LOOP), each
 * half's bytes stored squeezed one after the other; then on as zp_utf8_decode_ucs1_from,
 * from the last lead if the last step ended with one (its character written again). */
__attribute__((target("ssse3")))
static int zp_utf8_decode_ucs1_ssse3(const unsigned char *s, int64_t n, uint8_t *out, int64_t chars) {
    const __m128i fe = _mm_set1_epi8((char)0xfe), c2 = _mm_set1_epi8((char)0xc2);
    const uint8_t *end = out + chars;
    __m128i x, y, leads, err = _mm_setzero_si128(), carry = err, order;
    int64_t i = 0, stop, back;
    unsigned drop, kept;
    ZP_UTF8_LOOP(17, 15)
        x = _mm_loadu_si128((const __m128i *)(s + i));
        if (_mm_movemask_epi8(x) == 0) {        /* ASCII */
            err = _mm_or_si128(err, carry);     /* a lead's continuation missing */
            carry = _mm_setzero_si128();
            _mm_storeu_si128((__m128i *)out, x);
            out += 16;
            i += 16;
            continue;
        }
        y = _mm_loadu_si128((const __m128i *)(s + i + 1));
        drop = zp_utf8_pairs(x, &carry, &leads, &err, &order);
        err = _mm_or_si128(err, _mm_andnot_si128(_mm_cmpeq_epi8(_mm_and_si128(x, fe), c2), leads));
        x = _mm_shuffle_epi8(zp_utf8_pairs_low(x, y, leads), order);
        kept = zp_latin1_kept[drop & 0xff];
        _mm_storeu_si128((__m128i *)out, x);
        _mm_storel_epi64((__m128i *)(out + kept), _mm_srli_si128(x, 8));
        out += kept + zp_latin1_kept[drop >> 8];
        i += 16;
    }
    ZP_UTF8_LOOP_END
    back = _mm_movemask_epi8(carry) & 1;
    return zp_utf8_decode_ucs1_from(s, n, i - back, out - back, end, (uint64_t)_mm_movemask_epi8(err));
}
#endif

/* U+0000-U+FFFF: one character a step, or two three-byte ones (CJK), or four two-byte
 * ones, or eight ASCII ones; three-byte ones tested first. From byte i on, a
 * character's first (out then at end minus the characters left), with what was found
 * wrong before in err. */
ZP_ALWAYS_INLINE int zp_utf8_decode_ucs2_from(const unsigned char *s, int64_t n, int64_t i, uint16_t *out,
                                           const uint16_t *end, uint32_t err) {
    int64_t stop;
    uint32_t c;
    uint64_t word;
    ZP_UTF8_LOOP(9, 8)
        word = zp_load_le64(s + i);
        c = (uint32_t)word & 0xff;
        if (c >= 0xe0) {
            ZP_UTF8_THREE(uint16_t)
        } else if (c < 0x80) {
            ZP_UTF8_ASCII(zp_widen8_ucs2)
        } else {
            ZP_UTF8_TWO(uint16_t)
        }
    }
    ZP_UTF8_LOOP_END
    ZP_UTF8_TAIL(uint16_t, 0xffff)
}

#if ZP_SSSE3
/* U+0000-U+FFFF, 16 bytes a step while 17 bytes are left to read and 16 units of room
 * in out (ZP_UTF8_LOOP): ASCII widened, or characters of one and two bytes
 * (zp_utf8_pairs; no lead 0xc0 or 0xc1: Latin-1, Greek, Cyrillic and the like), each
 * code point's low 8 bits and high 3 squeezed alike and interleaved. From the first
 * step that holds a lead of three or four bytes on (CJK), and for the last bytes, on as
 * zp_utf8_decode_ucs2_from (from the last lead if the last step ended with one). */
__attribute__((target("ssse3")))
static int zp_utf8_decode_ucs2_ssse3(const unsigned char *s, int64_t n, uint16_t *out, int64_t chars) {
    const __m128i fe = _mm_set1_epi8((char)0xfe), c0 = _mm_set1_epi8((char)0xc0), e0 = _mm_set1_epi8((char)0xe0);
    const __m128i zero = _mm_setzero_si128();
    const uint16_t *end = out + chars;
    __m128i x, y, leads, err = zero, carry = zero, order, low, high;
    int64_t i = 0, stop, back;
    unsigned drop;
    ZP_UTF8_LOOP(17, 15)
        x = _mm_loadu_si128((const __m128i *)(s + i));
        if (_mm_movemask_epi8(x) == 0) {        /* ASCII */
            err = _mm_or_si128(err, carry);     /* a lead's continuation missing */
            carry = zero;
            _mm_storeu_si128((__m128i *)out, _mm_unpacklo_epi8(x, zero));
            _mm_storeu_si128((__m128i *)(out + 8), _mm_unpackhi_epi8(x, zero));
            out += 16;
            i += 16;
            continue;
        }
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(x, e0), e0)) != 0)
            break;
        y = _mm_loadu_si128((const __m128i *)(s + i + 1));
        drop = zp_utf8_pairs(x, &carry, &leads, &err, &order);
        err = _mm_or_si128(err, _mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(x, fe), c0), leads));
        low = _mm_shuffle_epi8(zp_utf8_pairs_low(x, y, leads), order);
        high = _mm_shuffle_epi8(_mm_and_si128(_mm_and_si128(_mm_srli_epi16(x, 2), _mm_set1_epi8(7)), leads), order);
        _mm_storeu_si128((__m128i *)out, _mm_unpacklo_epi8(low, high));
        out += zp_latin1_kept[drop & 0xff];     /* the second half after the first's kept units */
        _mm_storeu_si128((__m128i *)out, _mm_unpackhi_epi8(low, high));
        out += zp_latin1_kept[drop >> 8];
        i += 16;
    }
    if (i < stop)                               /* left at a lead of three or four bytes */
        break;
    ZP_UTF8_LOOP_END
    back = _mm_movemask_epi8(carry) & 1;
    return zp_utf8_decode_ucs2_from(s, n, i - back, out - back, end, (uint32_t)_mm_movemask_epi8(err));
}
#endif

/* U+0000-U+10FFFF: as U+0000-U+FFFF, and four-byte characters (emoji), two at once
 * where the 8 bytes are two of them, one in each half of the word. A four-byte one's
 * lead keeps four bits, so that the range check refuses the leads 0xf5-0xff too. */
static inline int zp_utf8_decode_ucs4(const unsigned char *s, int64_t n, uint32_t *out, int64_t chars) {
    const uint32_t *end = out + chars;
    int64_t i = 0, stop;
    uint32_t err = 0, c, w, v;
    uint64_t word, pair, pair_top;
    ZP_UTF8_LOOP(9, 8)
        word = zp_load_le64(s + i);
        c = (uint32_t)word & 0xff;
        if (c < 0x80) {
            ZP_UTF8_ASCII(zp_widen8_ucs4)
        } else if (c >= 0xf0) {
            if ((word & 0xc0c0c0f8c0c0c0f8ULL) == 0x808080f0808080f0ULL) {
                pair = ((word & 0x0000000700000007ULL) << 18) | ((word & 0x00003f0000003f00ULL) << 4)
                       | ((word >> 10) & 0x00000fc000000fc0ULL) | ((word >> 24) & 0x0000003f0000003fULL);
                /* each 1-16 above its 16 bits: U+10000-U+10FFFF */
                pair_top = ((((pair >> 16) & 0x0000001f0000001fULL) + 0x0000000f0000000fULL)
                            & 0x0000003000000030ULL) ^ 0x0000001000000010ULL;
                err |= (uint32_t)(pair_top | (pair_top >> 32));
                out[0] = (uint32_t)pair;
                out[1] = (uint32_t)(pair >> 32);
                out += 2;
                i += 8;
            } else {
                w = (uint32_t)word;
                v = ((c & 0x0f) << 18) | ((w << 4) & 0x3f000) | ((w >> 10) & 0x0fc0) | ((w >> 24) & 0x3f);
                err |= ((w & 0xc0c0c000) ^ 0x80808000) | (uint32_t)(v - 0x10000 > 0xfffff);
                *out++ = v;
                i += 4;
            }
        } else if (c >= 0xe0) {
            ZP_UTF8_THREE(uint32_t)
        } else {
            ZP_UTF8_TWO(uint32_t)
        }
    }
    ZP_UTF8_LOOP_END
    ZP_UTF8_TAIL(uint32_t, 0x10ffff)
}

/* The code points of the n bytes at s into out, the data of a str of kind maxchar (as
 * zp_utf8_measure found it) with room for `chars`: 0 when they are strict UTF-8 of
 * exactly that many characters, none above maxchar; else -1. */
static inline int zp_utf8_decode(const unsigned char *s, int64_t n, void *out, int64_t chars, uint32_t maxchar) {
    if (maxchar == 0xff) {
#if ZP_SSSE3
        if (n >= 17 && zp_ssse3)
            return zp_utf8_decode_ucs1_ssse3(s, n, (uint8_t *)out, chars);
#endif
        return zp_utf8_decode_ucs1_from(s, n, 0, (uint8_t *)out, (uint8_t *)out + chars, 0);
    }
    if (maxchar == 0xffff) {
#if ZP_SSSE3
        if (n >= 17 && s[0] < 0xe0 && zp_ssse3)   /* not when it starts as CJK and the like */
            return zp_utf8_decode_ucs2_ssse3(s, n, (uint16_t *)out, chars);
#endif
        return zp_utf8_decode_ucs2_from(s, n, 0, (uint16_t *)out, (uint16_t *)out + chars, 0);
    }
    if (maxchar == 0x10ffff)
        return zp_utf8_decode_ucs4(s, n, (uint32_t *)out, chars);
    memcpy(out, s, (size_t)n);                  /* ASCII */
    return 0;
}

/* The k ASCII bytes at s as the first k code units of a str of kind maxchar at out:
 * copied for one byte a unit, else widened 8 at a time, then one by one. */
static inline void zp_widen_ascii(void *out, const unsigned char *s, int64_t k, uint32_t maxchar) {
    int64_t i = 0;
    if (maxchar <= 0xff) {
        memcpy(out, s, (size_t)k);
    } else if (maxchar <= 0xffff) {
        uint16_t *units = (uint16_t *)out;
        for (; i + 8 <= k; i += 8)
            zp_widen8_ucs2(units + i, s + i);
        for (; i < k; i++)
            units[i] = s[i];
    } else {
        uint32_t *units = (uint32_t *)out;
        for (; i + 8 <= k; i += 8)
            zp_widen8_ucs4(units + i, s + i);
        for (; i < k; i++)
            units[i] = s[i];
    }
}

/* As zp_utf8_decode, for n bytes at s whose first k are ASCII (zp_copy_ascii found
 * them; 0 <= k <= n, a character's boundary): those put in as they are (zp_widen_ascii),
 * only the rest decoded and checked, from its first byte on as a str of its own (a
 * continuation byte there is refused), into the units after them. maxchar and chars as
 * zp_utf8_measure found them for the rest, chars plus k. */
static inline int zp_utf8_decode_after_ascii(const unsigned char *s, int64_t n, int64_t k, void *out, int64_t chars,
                                             uint32_t maxchar) {
    if (k > 0) {                        /* (none: a str that does not start as ASCII) */
        zp_widen_ascii(out, s, k, maxchar);
        out = (unsigned char *)out + k * (maxchar <= 0xff ? 1 : maxchar <= 0xffff ? 2 : 4);
    }
    return zp_utf8_decode(s + k, n - k, out, chars - k, maxchar);
}

#undef ZP_UTF8_TAIL
#undef ZP_UTF8_LOOP
#undef ZP_UTF8_LOOP_END
#undef ZP_UTF8_ASCII
#undef ZP_UTF8_TWO
#undef ZP_UTF8_THREE

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
