/* Wire primitives: big-endian loads and stores of words, float bit patterns, byte
 * comparisons, msgp.Number's families and its load. The msgpack stores built on
 * them are in zp_write.h. Nothing here touches a Python object. */
#ifndef ZP_WIRE_H
#define ZP_WIRE_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <Python.h>     /* Py_ssize_t, PyMem_RawMalloc */

/* 1 where words are known to be stored little-endian: GCC and clang say so,
 * and every Windows target MSVC compiles for is. 0 takes the portable paths. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
#define ZP_LITTLE_ENDIAN (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#elif defined(_MSC_VER)
#define ZP_LITTLE_ENDIAN 1
#else
#define ZP_LITTLE_ENDIAN 0
#endif

/* Whether the n bytes at p are all below 0x80, eight at a time; the last (or only)
 * few in one overlapping load, without reading outside p[0..n). */
static inline int zp_is_ascii(const unsigned char *p, Py_ssize_t n) {
    uint64_t acc = 0, word;
    uint32_t head, tail;
    Py_ssize_t i = 0;
    if (n >= 8) {
        for (; i + 8 <= n; i += 8) {
            memcpy(&word, p + i, 8);
            acc |= word;
        }
        if (i < n) {
            memcpy(&word, p + n - 8, 8);
            acc |= word;
        }
    } else if (n >= 4) {
        memcpy(&head, p, 4);
        memcpy(&tail, p + n - 4, 4);
        acc = head | tail;
    } else {
        for (; i < n; i++)
            acc |= p[i];
    }
    return (acc & 0x8080808080808080ULL) == 0;
}

/* Whether the n bytes at a and b are equal: memcmp without its call for the short
 * strings the decoder compares (struct name entries, map keys). Reads only a[0..n)
 * and b[0..n). */
static inline int zp_same_bytes(const void *a, const void *b, Py_ssize_t n) {
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    uint64_t x, y, x2, y2;
    uint32_t u, v, u2, v2;
    Py_ssize_t i;
    if (n > 16)
        return memcmp(p, q, (size_t)n) == 0;
    if (n >= 8) {
        memcpy(&x, p, 8); memcpy(&y, q, 8);
        memcpy(&x2, p + n - 8, 8); memcpy(&y2, q + n - 8, 8);
        return ((x ^ y) | (x2 ^ y2)) == 0;
    }
    if (n >= 4) {
        memcpy(&u, p, 4); memcpy(&v, q, 4);
        memcpy(&u2, p + n - 4, 4); memcpy(&v2, q + n - 4, 4);
        return ((u ^ v) | (u2 ^ v2)) == 0;
    }
    for (i = 0; i < n; i++)
        if (p[i] != q[i])
            return 0;
    return 1;
}

/* The n <= 16 bytes at p, zero-padded to 16, as two words in memory order (equal
 * words and lengths: equal bytes). avail: the bytes readable from p (at least n);
 * with 16 of them the words are loaded whole and masked, with fewer only the n bytes
 * are read. */
static inline void zp_load_padded16(const unsigned char *p, Py_ssize_t n, Py_ssize_t avail,
                                    uint64_t *lo, uint64_t *hi) {
#if ZP_LITTLE_ENDIAN
    if (avail >= 16) {
        uint64_t a, b;
        memcpy(&a, p, 8);
        memcpy(&b, p + 8, 8);
        /* masks by selection, not branches (key lengths vary from key to key) */
        *lo = a & (n >= 8 ? ~0ULL : ~(~0ULL << (8 * (n & 7))));
        *hi = b & (n > 8 ? ~0ULL >> (8 * (16 - n)) : 0);
        return;
    }
    /* fewer than 16 bytes there (a key near the end of the input): the n bytes alone,
     * as overlapping loads that end at p + n */
    if (n >= 8) {
        uint64_t a, b = 0;
        memcpy(&a, p, 8);
        if (n > 8) {
            memcpy(&b, p + n - 8, 8);
            b >>= 8 * (16 - n);
        }
        *lo = a;
        *hi = b;
        return;
    }
    if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, p, 4);
        memcpy(&y, p + n - 4, 4);
        *lo = (uint64_t)x | ((uint64_t)y << (8 * (n - 4)));
        *hi = 0;
        return;
    }
    *lo = n ? (uint64_t)p[0] | ((uint64_t)p[n >> 1] << (8 * (n >> 1))) | ((uint64_t)p[n - 1] << (8 * (n - 1))) : 0;
    *hi = 0;
    return;
#else
    unsigned char buf[16];
    (void)avail;
    memset(buf, 0, 16);
    memcpy(buf, p, (size_t)n);
    memcpy(lo, buf, 8);
    memcpy(hi, buf + 8, 8);
#endif
}

/* A slot number for the key words of zp_load_padded16 (the high bits of a multiplicative hash). */
static inline size_t zp_key_slot(uint64_t lo, uint64_t hi, Py_ssize_t n) {
    uint64_t h = lo * 0x9E3779B97F4A7C15ULL + hi * 0xC2B2AE3D27D4EB4FULL + (uint64_t)n;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    return (size_t)(h >> 32);
}

/* Always inlined: for the small loads and stores called once per value in the hottest
 * loops (zp_write.h, zp_arrow_read.h), which the compiler otherwise keeps as calls in
 * the large ones. */
#if defined(__GNUC__) || defined(__clang__)
#define ZP_ALWAYS_INLINE static inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define ZP_ALWAYS_INLINE static __forceinline
#else
#define ZP_ALWAYS_INLINE static inline
#endif

ZP_ALWAYS_INLINE uint16_t zp_load_u16(const unsigned char *p) {
    return (uint16_t)(((uint16_t)p[0] << 8) | p[1]);
}

ZP_ALWAYS_INLINE uint32_t zp_load_u32(const unsigned char *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

ZP_ALWAYS_INLINE uint64_t zp_load_u64(const unsigned char *p) {
    return ((uint64_t)zp_load_u32(p) << 32) | (uint64_t)zp_load_u32(p + 4);
}

ZP_ALWAYS_INLINE int64_t zp_load_i64(const unsigned char *p) {
    uint64_t u = zp_load_u64(p);
    int64_t v;
    memcpy(&v, &u, 8);
    return v;
}

/* The payload of a fixed-size integer, lead byte 0xd0..0xd3 (int8..int64,
 * sign-extended) or 0xcc..0xcf (uint8..uint64), at p, when the 8 bytes at p can be
 * read (its 1 << (lead & 3) bytes and what follows them in the input): one 8-byte
 * load shifted down to the width. No branch on the width, which a mix of widths
 * (interface{} numbers, map keys) mispredicts. */
ZP_ALWAYS_INLINE int64_t zp_load_int_family8(unsigned char lead, const unsigned char *p) {
    return zp_load_i64(p) >> (64 - (8 << (lead & 3)));      /* arithmetic: sign-extended */
}

ZP_ALWAYS_INLINE uint64_t zp_load_uint_family8(unsigned char lead, const unsigned char *p) {
    return zp_load_u64(p) >> (64 - (8 << (lead & 3)));
}

/* The same with only its own bytes at p checked by the caller; left: the bytes that
 * can be read from p. Always in line: the readers of int fields and lists take it,
 * and the last integer of a small record is often within 8 bytes of the end. */
ZP_ALWAYS_INLINE int64_t zp_load_int_family(unsigned char lead, const unsigned char *p, int64_t left) {
    if (left >= 8)
        return zp_load_int_family8(lead, p);
    switch (lead & 3) {
    case 0: return (int8_t)p[0];
    case 1: return (int16_t)zp_load_u16(p);
    case 2: return (int32_t)zp_load_u32(p);
    default: return zp_load_i64(p);
    }
}

ZP_ALWAYS_INLINE uint64_t zp_load_uint_family(unsigned char lead, const unsigned char *p, int64_t left) {
    if (left >= 8)
        return zp_load_uint_family8(lead, p);
    switch (lead & 3) {
    case 0: return p[0];
    case 1: return zp_load_u16(p);
    case 2: return zp_load_u32(p);
    default: return zp_load_u64(p);
    }
}

/* Big-endian stores: one byte-swapped store where the compiler has the builtin (it
 * does not always merge the byte stores: a float64 took 28 instructions). */
#if ZP_LITTLE_ENDIAN && (defined(__GNUC__) || defined(__clang__))
static inline void zp_store_u16(unsigned char *p, uint16_t v) {
    v = __builtin_bswap16(v);
    memcpy(p, &v, 2);
}

static inline void zp_store_u32(unsigned char *p, uint32_t v) {
    v = __builtin_bswap32(v);
    memcpy(p, &v, 4);
}

static inline void zp_store_u64(unsigned char *p, uint64_t v) {
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
}
#else
static inline void zp_store_u16(unsigned char *p, uint16_t v) {
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}

static inline void zp_store_u32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static inline void zp_store_u64(unsigned char *p, uint64_t v) {
    zp_store_u32(p, (uint32_t)(v >> 32));
    zp_store_u32(p + 4, (uint32_t)v);
}
#endif

/* A test that is rarely true (a zero value left out): its branch laid out of line. */
#if defined(__GNUC__) || defined(__clang__)
#define ZP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define ZP_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define ZP_UNLIKELY(x) (x)
#define ZP_LIKELY(x) (x)
#endif

/* Labels as values (GCC, clang): the Arrow writer's clean rows and the reader's runs of
 * rows are threaded code, each step's code jumping to the next one's. Elsewhere (MSVC),
 * or built with -DZP_SWITCH_STEPS to test it (.ci/switch-steps), the same steps run as a
 * switch in a loop. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(ZP_SWITCH_STEPS)
#define ZP_LABELS_AS_VALUES 1
#endif

static inline double zp_double_from_bits(uint64_t bits) {
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

static inline uint64_t zp_double_bits(double d) {
    uint64_t bits;
    memcpy(&bits, &d, 8);
    return bits;
}

/* float32 bits -> double. NaNs are converted bit by bit so that their payload
 * (signalling bit included) survives; a hardware conversion would quieten them. */
static inline double zp_double_from_f32_bits(uint32_t bits) {
    if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0) {
        uint64_t d = ((uint64_t)(bits & 0x80000000u) << 32) | 0x7ff0000000000000ull
                     | ((uint64_t)(bits & 0x007fffffu) << 29);
        return zp_double_from_bits(d);
    }
    float f;
    memcpy(&f, &bits, 4);
    return (double)f;
}

/* Smallest double that rounds to +inf as a float32 (FLT_MAX + half an ulp). */
#define ZP_F32_OVERFLOW 3.4028235677973366e38

/* double -> float32 bits, rounding to nearest. Returns -1 when a finite value
 * overflows float32 (the conversion itself would be undefined in C). NaN
 * payloads map back bit by bit (the inverse of zp_double_from_f32_bits). */
static inline int zp_f32_bits_from_double(double d, uint32_t *out) {
    if (isnan(d)) {
        uint64_t b = zp_double_bits(d);
        uint32_t payload = (uint32_t)((b >> 29) & 0x007fffffu);
        if (payload == 0)
            payload = 0x00400000u; /* keep it a NaN: set the quiet bit */
        *out = (uint32_t)((b >> 32) & 0x80000000u) | 0x7f800000u | payload;
        return 0;
    }
    if (isfinite(d) && fabs(d) >= ZP_F32_OVERFLOW)
        return -1;
    float f = (float)d;
    memcpy(out, &f, 4);
    return 0;
}

/* Whether d converts to float32 and back unchanged (NaN payloads included). */
static inline int zp_double_fits_f32(double d) {
    uint32_t bits;
    if (zp_f32_bits_from_double(d, &bits) < 0)
        return 0;
    return zp_double_bits(zp_double_from_f32_bits(bits)) == zp_double_bits(d);
}

/* Whether the int64 / uint64 value is exactly a double. */
static inline int zp_i64_fits_double(int64_t v) {
    double d = (double)v;
    if (d >= 9223372036854775808.0 || d < -9223372036854775808.0)
        return 0;
    return (int64_t)d == v;
}

static inline int zp_u64_fits_double(uint64_t v) {
    double d = (double)v;
    if (d >= 18446744073709551616.0)
        return 0;
    return (uint64_t)d == v;
}

/* Long copies: the payloads of large str and bytes values, encoded and decoded.
 * glibc's memcpy moves 16 KiB to a few MiB with `rep movsb`, whose speed depends on the
 * processor and on how the destination is aligned; a value's bytes rarely are (a bytes
 * object's data starts 32 bytes in, then a 1-5 byte header). On the Zen 4 EPYC we
 * measure on, 32-byte loads and 64-byte aligned stores take 20% less time than memcpy
 * for 64-256 KiB and as long for 1 MiB; on another EPYC host this VM ran on, memcpy
 * was the faster, and the loop made a 100 KiB bytes decode 1.33x msgspec's, whose copy
 * is memcpy (docs/performance-log.md). So which one copies is measured once, at import
 * (zp_copy_init: the best of several 64 KiB copies each, interleaved), and the loop
 * is taken only where it is clearly faster. Past ZP_COPY_LONG_MAX memcpy keeps them:
 * it streams copies larger than the caches past them. The loop is built with gcc and
 * clang for x86-64 and run only where the machine has AVX2; elsewhere memcpy. */
#define ZP_COPY_LONG_MIN ((Py_ssize_t)16 << 10)
#define ZP_COPY_LONG_MAX ((Py_ssize_t)4 << 20)
#define ZP_COPY_MEMCPY 0        /* zp_copy_mode's values */
#define ZP_COPY_LOOP 1
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define ZP_COPY_AVX2 1
#include <immintrin.h>
#include <x86intrin.h>
static int zp_copy_avx2_ok;     /* the machine has AVX2 */
static int zp_copy_mode;        /* ZP_COPY_LOOP where long copies take the loop */

__attribute__((target("avx2"))) static void zp_copy_long_avx2(unsigned char *dst, const unsigned char *src, size_t n) {
    size_t head = (size_t)(-(uintptr_t)dst & 63);       /* up to dst's next 64-byte line */
    memcpy(dst, src, head);
    dst += head;
    src += head;
    n -= head;
    for (; n >= 128; n -= 128, src += 128, dst += 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)src);
        __m256i b = _mm256_loadu_si256((const __m256i *)(src + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(src + 64));
        __m256i d = _mm256_loadu_si256((const __m256i *)(src + 96));
        _mm256_store_si256((__m256i *)dst, a);
        _mm256_store_si256((__m256i *)(dst + 32), b);
        _mm256_store_si256((__m256i *)(dst + 64), c);
        _mm256_store_si256((__m256i *)(dst + 96), d);
    }
    memcpy(dst, src, n);
}

/* Time-stamp counter ticks for `copies` copies of n bytes by one way. noinline: the
 * measured call is the one zp_copy makes. */
__attribute__((noinline)) static uint64_t zp_copy_ticks(int loop, unsigned char *dst, const unsigned char *src,
                                                        size_t n, int copies) {
    uint64_t start = __rdtsc();
    for (int i = 0; i < copies; i++) {
        if (loop)
            zp_copy_long_avx2(dst, src, n);
        else
            memcpy(dst, src, n);
        __asm__ __volatile__("" : : "r"(dst) : "memory");     /* each copy is done */
    }
    return __rdtsc() - start;
}

/* Measures both ways on 64 KiB from a source 16 bytes past a 64-byte line to a
 * destination 37 past one (where a bytes object's payload starts after a 5-byte
 * header): seven rounds, interleaved, the best of each kept. The loop is chosen where
 * its best is at least 5% below memcpy's; level, memcpy (which follows the processor). */
static int zp_copy_measure(void) {
    const size_t n = (size_t)64 << 10;
    unsigned char *src = (unsigned char *)PyMem_RawMalloc(n + 128);
    unsigned char *dst = (unsigned char *)PyMem_RawMalloc(n + 128);
    int mode = ZP_COPY_MEMCPY;
    if (src != NULL && dst != NULL) {
        uint64_t best_memcpy = UINT64_MAX, best_loop = UINT64_MAX;
        unsigned char *s = src + ((-(uintptr_t)src & 63) + 16);
        unsigned char *d = dst + ((-(uintptr_t)dst & 63) + 37);
        memset(src, 0x5a, n + 128);
        memset(dst, 0, n + 128);
        for (int round = 0; round < 7; round++) {
            uint64_t t = zp_copy_ticks(0, d, s, n - 64, 3);
            if (t < best_memcpy)
                best_memcpy = t;
            t = zp_copy_ticks(1, d, s, n - 64, 3);
            if (t < best_loop)
                best_loop = t;
        }
        if (best_loop < best_memcpy - best_memcpy / 20)
            mode = ZP_COPY_LOOP;
    }
    PyMem_RawFree(src);
    PyMem_RawFree(dst);
    return mode;
}
#else
#define ZP_COPY_AVX2 0
#endif

/* Decides, once at import, whether long copies take the loop here (see above). */
static inline void zp_copy_init(void) {
#if ZP_COPY_AVX2
    __builtin_cpu_init();
    zp_copy_avx2_ok = __builtin_cpu_supports("avx2") != 0;
    zp_copy_mode = zp_copy_avx2_ok ? zp_copy_measure() : ZP_COPY_MEMCPY;
#endif
}

/* How long copies are made: ZP_COPY_LOOP or ZP_COPY_MEMCPY. */
static inline int zp_copy_get_mode(void) {
#if ZP_COPY_AVX2
    return zp_copy_mode;
#else
    return ZP_COPY_MEMCPY;
#endif
}

/* Sets how long copies are made (ZEBRAPACK_LONG_COPY, the tests); 0 where the loop is
 * asked for and this build or machine has none. */
static inline int zp_copy_set_mode(int mode) {
#if ZP_COPY_AVX2
    if (mode == ZP_COPY_LOOP && !zp_copy_avx2_ok)
        return 0;
    zp_copy_mode = mode;
    return 1;
#else
    return mode == ZP_COPY_MEMCPY;
#endif
}

/* Copy n bytes, a long copy (ZP_COPY_LONG_MIN..ZP_COPY_LONG_MAX) the way chosen above. */
static inline void zp_copy(unsigned char *dst, const void *src, Py_ssize_t n) {
#if ZP_COPY_AVX2
    if (n >= ZP_COPY_LONG_MIN && n <= ZP_COPY_LONG_MAX && zp_copy_mode == ZP_COPY_LOOP) {
        zp_copy_long_avx2(dst, (const unsigned char *)src, (size_t)n);
        return;
    }
#endif
    memcpy(dst, src, (size_t)n);
}

/* Copy n bytes; up to 16 without a call (two overlapping fixed-size copies,
 * which the compiler turns into loads and stores): map keys and short strings.
 * Always inlined: a call of its own costs more than the copy. */
ZP_ALWAYS_INLINE void zp_copy_short(unsigned char *dst, const void *src, Py_ssize_t n) {
    const unsigned char *s = (const unsigned char *)src;
    if (n >= 8 && n <= 16) {
        memcpy(dst, s, 8);
        memcpy(dst + n - 8, s + n - 8, 8);
    } else if (n >= 4 && n < 8) {
        memcpy(dst, s, 4);
        memcpy(dst + n - 4, s + n - 4, 4);
    } else if (n > 16) {
        zp_copy(dst, s, n);
    } else {
        for (Py_ssize_t i = 0; i < n; i++)
            dst[i] = s[i];
    }
}

/* The n bytes at src copied to dst as 8-byte words; returns dst + n. For the bytes
 * compiled into plans and columns (keys, struct names, constant fields), which are
 * kept padded with zeros to a multiple of 8 bytes: dst has 8 bytes of room past n (the
 * writer's slack). One word for a zid key, where memcpy of a variable size is a call. */
ZP_ALWAYS_INLINE unsigned char *zp_copy_words(unsigned char *dst, const unsigned char *src, Py_ssize_t n) {
    memcpy(dst, src, 8);
    for (Py_ssize_t k = 8; k < n; k += 8)
        memcpy(dst + k, src + k, 8);
    return dst + n;
}

/* msgp.Number: a number that keeps its wire family, as the reference runtime's
 * Number reads and writes it. bits: the int64 (two's complement) of ZP_NUMBER_INT,
 * the uint64 of ZP_NUMBER_UINT, the float32 bits of ZP_NUMBER_F32, the float64 bits
 * of ZP_NUMBER_F64. zp_load_number (zp_read.h) reads it, zp_store_number (zp_write.h)
 * writes it. */
enum { ZP_NUMBER_NONE = 0, ZP_NUMBER_INT = 1, ZP_NUMBER_UINT = 2, ZP_NUMBER_F32 = 3, ZP_NUMBER_F64 = 4 };

typedef struct {
    int family;
    uint64_t bits;
} zp_number;

#endif
