/* msgpack stores: every value the core writes, written here once for the encoder
 * (_packer.pxi, into a growing bytes object or bytearray, raising as it goes), the
 * Arrow writer (_arrow_write.pxi, into a malloc'd buffer without the GIL) and the
 * keys compiled into plans (_plan.pxi). Each store writes at p, where its caller has
 * reserved the room it names, and returns the bytes it wrote: the writers differ only
 * in their sink (how room is made) and in how they say an error (the limits are
 * theirs to check). Nothing here touches a Python object. */
#ifndef ZP_WRITE_H
#define ZP_WRITE_H

#include "zp_wire.h"

/* The one-byte values. */
enum { ZP_NIL = 0xc0, ZP_FALSE = 0xc2, ZP_TRUE = 0xc3 };

/* msgpack's largest length (str32, bin32, array32, map32, ext32). */
#define ZP_MAX_LENGTH32 ((Py_ssize_t)0xffffffffLL)

/* The smallest signed form of v at p (9 bytes of room): a fixint, then int8..int64;
 * never the uint family. Returns its size. */
ZP_ALWAYS_INLINE Py_ssize_t zp_store_signed(unsigned char *p, int64_t v) {
    if (v >= -32 && v <= 127) {
        p[0] = (unsigned char)(int8_t)v;
        return 1;
    }
    if (v >= -128 && v <= 127) {
        p[0] = 0xd0;
        p[1] = (unsigned char)(int8_t)v;
        return 2;
    }
    if (v >= -32768 && v <= 32767) {
        p[0] = 0xd1;
        zp_store_u16(p + 1, (uint16_t)(int16_t)v);
        return 3;
    }
    if (v >= -2147483648LL && v <= 2147483647LL) {
        p[0] = 0xd2;
        zp_store_u32(p + 1, (uint32_t)(int32_t)v);
        return 5;
    }
    p[0] = 0xd3;
    zp_store_u64(p + 1, (uint64_t)v);
    return 9;
}

/* The smallest unsigned form of v at p (9 bytes of room): a positive fixint, then
 * uint8..uint64. Returns its size. */
ZP_ALWAYS_INLINE Py_ssize_t zp_store_unsigned(unsigned char *p, uint64_t v) {
    if (v <= 127) {
        p[0] = (unsigned char)v;
        return 1;
    }
    if (v <= 0xff) {
        p[0] = 0xcc;
        p[1] = (unsigned char)v;
        return 2;
    }
    if (v <= 0xffff) {
        p[0] = 0xcd;
        zp_store_u16(p + 1, (uint16_t)v);
        return 3;
    }
    if (v <= 0xffffffffULL) {
        p[0] = 0xce;
        zp_store_u32(p + 1, (uint32_t)v);
        return 5;
    }
    p[0] = 0xcf;
    zp_store_u64(p + 1, v);
    return 9;
}

/* An integer of a signed type (bits: an int64's two's complement) or an unsigned one,
 * in its smallest form (9 bytes of room). Returns its size. */
ZP_ALWAYS_INLINE Py_ssize_t zp_store_int(unsigned char *p, int is_signed, uint64_t bits) {
    return is_signed ? zp_store_signed(p, (int64_t)bits) : zp_store_unsigned(p, bits);
}

/* A float64 given its bits (9 bytes) or its value, and a float32 given its bits (5
 * bytes; zp_f32_bits_from_double). */
static inline Py_ssize_t zp_store_f64_bits(unsigned char *p, uint64_t bits) {
    p[0] = 0xcb;
    zp_store_u64(p + 1, bits);
    return 9;
}

static inline Py_ssize_t zp_store_f64(unsigned char *p, double d) {
    return zp_store_f64_bits(p, zp_double_bits(d));
}

static inline Py_ssize_t zp_store_f32_bits(unsigned char *p, uint32_t bits) {
    p[0] = 0xca;
    zp_store_u32(p + 1, bits);
    return 5;
}

/* A float32 of d when it is within float32's range, rounded to the nearest (5 bytes of
 * room): its size; 0, nothing written, when it overflows (the writer's error). */
static inline Py_ssize_t zp_store_f32(unsigned char *p, double d) {
    uint32_t bits;
    if (zp_f32_bits_from_double(d, &bits) < 0)
        return 0;
    return zp_store_f32_bits(p, bits);
}

/* The families of length headers, for zp_store_header. */
enum { ZP_STR = 0, ZP_BIN = 1, ZP_ARRAY = 2, ZP_MAP = 3 };

/* A header for n <= ZP_MAX_LENGTH32 (5 bytes of room): the fix form up to fix_max
 * (fix_base | n; none when fix_max < 0), the 8-bit form when the family has one
 * (lead8 != 0), then 16 and 32 bits. Returns its size. */
ZP_ALWAYS_INLINE Py_ssize_t zp_store_length_header(unsigned char *p, Py_ssize_t n, unsigned char fix_base,
                                                   Py_ssize_t fix_max, unsigned char lead8,
                                                   unsigned char lead16, unsigned char lead32) {
    if (ZP_LIKELY(n <= fix_max)) {          /* (laid out in line: most strs and containers are short) */
        p[0] = (unsigned char)(fix_base | n);
        return 1;
    }
    if (lead8 != 0 && n <= 0xff) {
        p[0] = lead8;
        p[1] = (unsigned char)n;
        return 2;
    }
    if (n <= 0xffff) {
        p[0] = lead16;
        zp_store_u16(p + 1, (uint16_t)n);
        return 3;
    }
    p[0] = lead32;
    zp_store_u32(p + 1, (uint32_t)n);
    return 5;
}

/* The header of a str (fixstr, str8/16/32), bin (bin8/16/32), array (fixarray,
 * array16/32) or map (fixmap, map16/32) of n <= ZP_MAX_LENGTH32 bytes or elements at
 * p (5 bytes of room), in its smallest form. Returns its size. */
ZP_ALWAYS_INLINE Py_ssize_t zp_store_header(unsigned char *p, int family, Py_ssize_t n) {
    switch (family) {
    case ZP_STR: return zp_store_length_header(p, n, 0xa0, 31, 0xd9, 0xda, 0xdb);
    case ZP_BIN: return zp_store_length_header(p, n, 0x00, -1, 0xc4, 0xc5, 0xc6);
    case ZP_ARRAY: return zp_store_length_header(p, n, 0x90, 15, 0, 0xdc, 0xdd);
    default: return zp_store_length_header(p, n, 0x80, 15, 0, 0xde, 0xdf);
    }
}

/* A str (ZP_STR: n UTF-8 bytes) or bin (ZP_BIN) of n <= ZP_MAX_LENGTH32 bytes: its
 * header and its data (5 + n bytes of room; short data copied without a call).
 * Returns its size. */
ZP_ALWAYS_INLINE Py_ssize_t zp_store_blob(unsigned char *p, int family, const void *data, Py_ssize_t n) {
    unsigned char *q = p + zp_store_header(p, family, n);
    zp_copy_short(q, data, n);
    return (q + n) - p;
}

ZP_ALWAYS_INLINE Py_ssize_t zp_store_str(unsigned char *p, const void *text, Py_ssize_t n) {
    return zp_store_blob(p, ZP_STR, text, n);
}

/* A struct's map header is stored once its entries are written, when their count is
 * known (zero fields are left out): the writer takes zp_map_header_size(most entries)
 * bytes of room for it first, then zp_close_map. The size zp_store_header gives a map
 * of n entries: */
ZP_ALWAYS_INLINE Py_ssize_t zp_map_header_size(Py_ssize_t n) {
    return n <= 15 ? 1 : n <= 0xffff ? 3 : 5;
}

/* Closes a map whose header room (header_size bytes at data + header_pos) is followed
 * by its count entries up to data + end: the header in its smallest form, the entries
 * moved back over the room it does not take. Returns the new end. */
ZP_ALWAYS_INLINE Py_ssize_t zp_close_map(unsigned char *data, Py_ssize_t header_pos, Py_ssize_t header_size,
                                      Py_ssize_t end, Py_ssize_t count) {
    Py_ssize_t size = zp_map_header_size(count);
    unsigned char *p = data + header_pos;
    if (size < header_size) {
        memmove(p + size, p + header_size, (size_t)(end - header_pos - header_size));
        end -= header_size - size;
    }
    zp_store_header(p, ZP_MAP, count);
    return end;
}

/* Extension headers, as the reference runtime writes them: a payload of n bytes
 * (0..0xffffffff) of ext type code, the header at p (6 bytes of room); returns its
 * size. Its MarshalMsg path (msgp.AppendExtension, the default here) writes ext8
 * for every payload of 0..254 bytes: the switch over the fixext sizes falls through
 * to the length switch, which overwrites the lead byte. Its EncodeMsg path
 * (Writer.WriteExtension; fixext set) writes fixext1/2/4/8/16 for those sizes. Both
 * write ext8 only below 255 bytes and ext16 only below 65535, one less than the
 * msgpack spec allows. Complex and time values have their own fixed headers. */
static inline Py_ssize_t zp_store_ext_header(unsigned char *p, Py_ssize_t n, int8_t code, int fixext) {
    Py_ssize_t size;
    if (fixext && (n == 1 || n == 2 || n == 4 || n == 8 || n == 16)) {
        p[0] = (unsigned char)(n == 1 ? 0xd4 : n == 2 ? 0xd5 : n == 4 ? 0xd6 : n == 8 ? 0xd7 : 0xd8);
        size = 1;
    } else if (n < 0xff) {
        p[0] = 0xc7;
        p[1] = (unsigned char)n;
        size = 2;
    } else if (n < 0xffff) {
        p[0] = 0xc8;
        zp_store_u16(p + 1, (uint16_t)n);
        size = 3;
    } else {
        p[0] = 0xc9;
        zp_store_u32(p + 1, (uint32_t)n);
        size = 5;
    }
    p[size] = (unsigned char)code;
    return size + 1;
}

/* An extension: its header (zp_store_ext_header) and its n bytes of data (6 + n bytes
 * of room). Returns its size. */
static inline Py_ssize_t zp_store_ext(unsigned char *p, int8_t code, const void *data, Py_ssize_t n, int fixext) {
    Py_ssize_t size = zp_store_ext_header(p, n, code, fixext);
    if (n)
        zp_copy(p + size, data, n);
    return size + n;
}

/* time.Time as the reference writes it (15 bytes): ext8 of 12 bytes, type 5, int64
 * Unix seconds then uint32 nanoseconds. */
static inline Py_ssize_t zp_store_time(unsigned char *p, int64_t seconds, uint32_t nanos) {
    p[0] = 0xc7;
    p[1] = 12;
    p[2] = 5;
    zp_store_u64(p + 3, (uint64_t)seconds);
    zp_store_u32(p + 11, nanos);
    return 15;
}

/* complex64 (10 bytes): fixext8, type 3, the float32 bits of the real then the
 * imaginary part; complex128 (18 bytes): fixext16, type 4, their float64s. */
static inline Py_ssize_t zp_store_complex64(unsigned char *p, uint32_t real_bits, uint32_t imag_bits) {
    p[0] = 0xd7;
    p[1] = 3;
    zp_store_u32(p + 2, real_bits);
    zp_store_u32(p + 6, imag_bits);
    return 10;
}

static inline Py_ssize_t zp_store_complex128(unsigned char *p, double real, double imag) {
    p[0] = 0xd8;
    p[1] = 4;
    zp_store_u64(p + 2, zp_double_bits(real));
    zp_store_u64(p + 10, zp_double_bits(imag));
    return 18;
}

/* The number at p (9 bytes of room) as Number.MarshalMsg writes it (zp_number, in
 * zp_wire.h): INT in the smallest signed form, UINT in the smallest unsigned form (a
 * positive fixint below 128, which reads back as INT), F32 and F64 as float32 and
 * float64. Returns its size. */
static inline Py_ssize_t zp_store_number(unsigned char *p, const zp_number *n) {
    if (n->family == ZP_NUMBER_UINT)
        return zp_store_unsigned(p, n->bits);
    if (n->family == ZP_NUMBER_F32)
        return zp_store_f32_bits(p, (uint32_t)n->bits);
    if (n->family == ZP_NUMBER_F64)
        return zp_store_f64_bits(p, n->bits);
    return zp_store_signed(p, (int64_t)n->bits);
}

#endif
