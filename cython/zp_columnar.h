/* C helpers of the Arrow side: growable column buffers and bitmaps (the columnar
 * reader, _arrow_read.pxi), UTF-8 validation (the reader and the writer,
 * _arrow_write.pxi), 64-bit fseek, CRC32 of index entries and the one-consumer
 * guard (its sources and C stream, _arrow_stream.pxi), bit counting. Nothing here
 * touches a Python object, so all of it runs without the GIL, on any thread. */
#ifndef ZP_COLUMNAR_H
#define ZP_COLUMNAR_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#define ZP_MSVC 1
#else
#define ZP_MSVC 0
#endif

/* The set bits of a word, by halves, nibbles and bytes summed (no POPCNT, which not
 * every x86-64 processor has: compilers call a library routine a byte for
 * __builtin_popcount without it). */
static inline int zp_popcount64(uint64_t v) {
    v = v - ((v >> 1) & 0x5555555555555555ULL);
    v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
    v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((v * 0x0101010101010101ULL) >> 56);
}

/* The index of the lowest set bit of bits (not 0). */
static inline int zp_lowest_bit(uint64_t bits) {
#if ZP_MSVC
    unsigned long index;
    _BitScanForward64(&index, bits);
    return (int)index;
#else
    return __builtin_ctzll(bits);
#endif
}

/* fseek to a 64-bit offset (files larger than 2 GiB on every platform). */
static inline int zp_fseek64(FILE *f, int64_t offset) {
#if defined(_WIN32)
    return _fseeki64(f, offset, SEEK_SET);
#else
    return fseeko(f, (off_t)offset, SEEK_SET);
#endif
}

/* A growable buffer of one column. `held` points at the reader's count of
 * bytes allocated by all its buffers (batch_bytes). */
typedef struct {
    uint8_t *ptr;
    int64_t len;
    int64_t cap;
} zp_buf;

/* Make room for `extra` more bytes (at least doubling); `zero`: new bytes are
 * zeroed (validity and bool bitmaps rely on it). -1 when memory runs out. */
static inline int zp_buf_grow_to(zp_buf *b, int64_t extra, int64_t *held, int zero) {
    int64_t need = b->len + extra, cap = b->cap ? b->cap : 64;
    uint8_t *p;
    if (extra < 0 || need < 0 || need > ((int64_t)1 << 46))
        return -1;
    while (cap < need)
        cap *= 2;
    p = (uint8_t *)realloc(b->ptr, (size_t)cap);
    if (p == NULL)
        return -1;
    if (zero)
        memset(p + b->cap, 0, (size_t)(cap - b->cap));
    *held += cap - b->cap;
    b->ptr = p;
    b->cap = cap;
    return 0;
}

static inline int zp_buf_grow(zp_buf *b, int64_t extra, int64_t *held) {
    return zp_buf_grow_to(b, extra, held, 0);
}

static inline int zp_buf_reserve(zp_buf *b, int64_t extra, int64_t *held) {
    if (b->cap - b->len >= extra)
        return 0;
    return zp_buf_grow_to(b, extra, held, 0);
}

/* Bitmaps: room for bit `index`, which is then set (or left 0). */
static inline int zp_bits_reserve(zp_buf *b, int64_t index, int64_t *held) {
    int64_t bytes = (index >> 3) + 1;
    if (bytes > b->len) {
        if (b->cap < bytes && zp_buf_grow_to(b, bytes - b->len, held, 1) < 0)
            return -1;
        b->len = bytes;
    }
    return 0;
}

static inline void zp_bit_set(uint8_t *bits, int64_t index) {
    bits[index >> 3] |= (uint8_t)(1u << (index & 7));
}

static inline void zp_bit_clear(uint8_t *bits, int64_t index) {
    bits[index >> 3] &= (uint8_t)~(1u << (index & 7));
}

/* Set bits from..to-1 (room made for them). */
static inline void zp_bits_set_range(uint8_t *bits, int64_t from, int64_t to) {
    for (; from < to && (from & 7); from++)
        zp_bit_set(bits, from);
    if (to - from >= 8) {
        memset(bits + (from >> 3), 0xff, (size_t)((to - from) >> 3));
        from += (to - from) & ~(int64_t)7;
    }
    for (; from < to; from++)
        zp_bit_set(bits, from);
}

/* Clear the bits from `from` on (a column truncated back). */
static inline void zp_bits_truncate(zp_buf *b, int64_t from) {
    int64_t byte = from >> 3;
    if (byte >= b->len)
        return;
    b->ptr[byte] &= (uint8_t)((1u << (from & 7)) - 1);
    if (byte + 1 < b->len)
        memset(b->ptr + byte + 1, 0, (size_t)(b->len - byte - 1));
    b->len = (from + 7) >> 3;
}

static inline int64_t zp_count_set_bits(const uint8_t *bits, int64_t length) {
    int64_t i, count = 0, whole = length >> 3;
    uint64_t word;
    if (bits == NULL)
        return length;
    for (i = 0; i + 8 <= whole; i += 8) {       /* eight bytes a step */
        memcpy(&word, bits + i, 8);
        count += zp_popcount64(word);
    }
    for (; i < whole; i++)
        count += zp_popcount64(bits[i]);
    if (length & 7)
        count += zp_popcount64(bits[whole] & ((1u << (length & 7)) - 1));
    return count;
}

/* Strict UTF-8 as Python's decoder takes it: no overlong forms, no surrogates,
 * nothing above U+10FFFF. Returns the offset of the first bad byte, or -1. */
static inline int64_t zp_utf8_invalid_at(const uint8_t *s, int64_t n) {
    int64_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            /* ASCII runs, 8 bytes at a time */
            while (i + 8 <= n) {
                uint64_t w;
                memcpy(&w, s + i, 8);
                if (w & 0x8080808080808080ull)
                    break;
                i += 8;
            }
            while (i < n && s[i] < 0x80)
                i++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf) {
            if (i + 1 >= n || (s[i + 1] & 0xc0) != 0x80)
                return i;
            i += 2;
        } else if (c >= 0xe0 && c <= 0xef) {
            uint8_t lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
            if (i + 2 >= n || s[i + 1] < lo || s[i + 1] > hi || (s[i + 2] & 0xc0) != 0x80)
                return i;
            i += 3;
        } else if (c >= 0xf0 && c <= 0xf4) {
            uint8_t lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
            if (i + 3 >= n || s[i + 1] < lo || s[i + 1] > hi || (s[i + 2] & 0xc0) != 0x80
                || (s[i + 3] & 0xc0) != 0x80)
                return i;
            i += 4;
        } else {
            return i;
        }
    }
    return -1;
}

/* CRC-32 (zlib's), for the index entries of a split, which are checked before their
 * records are read: where the machine has PCLMULQDQ (x86-64, gcc and clang: asked once
 * at import), 64 bytes a step by carry-less multiplication (the folding of Gopal, Ozturk
 * et al., "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ Instruction",
 * Intel 2009, with its bit-reflected constants for this polynomial), 13 GB/s here;
 * elsewhere and for the last bytes, eight bytes a step (slicing by eight: table k holds a
 * byte's CRC pushed k bytes further). A byte a step, a chain of dependent loads, took 6x
 * the time of decoding the records it checked. */
static uint32_t zp_crc_table[8][256];

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define ZP_CRC_CLMUL 1
#include <immintrin.h>
static int zp_crc_clmul_ok;

/* The running (inverted) CRC of crc then len bytes at buf: len at least 64, a multiple of 16. */
__attribute__((target("pclmul,sse4.1")))
static uint32_t zp_crc32_clmul(uint32_t crc, const uint8_t *buf, size_t len) {
    const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596LL, 0x0154442bd4LL);
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009eLL, 0x01751997d0LL);
    const __m128i k5k0 = _mm_set_epi64x(0, 0x0163cd6124LL);
    const __m128i poly = _mm_set_epi64x(0x01f7011641LL, 0x01db710641LL);
    __m128i x0, x1, x2, x3, x4, x5, x6, x7, x8, y5, y6, y7, y8;
    x1 = _mm_loadu_si128((const __m128i *)(buf + 0x00));
    x2 = _mm_loadu_si128((const __m128i *)(buf + 0x10));
    x3 = _mm_loadu_si128((const __m128i *)(buf + 0x20));
    x4 = _mm_loadu_si128((const __m128i *)(buf + 0x30));
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
    x0 = k1k2;
    buf += 64; len -= 64;
    while (len >= 64) {
        x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x6 = _mm_clmulepi64_si128(x2, x0, 0x00);
        x7 = _mm_clmulepi64_si128(x3, x0, 0x00);
        x8 = _mm_clmulepi64_si128(x4, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x2 = _mm_clmulepi64_si128(x2, x0, 0x11);
        x3 = _mm_clmulepi64_si128(x3, x0, 0x11);
        x4 = _mm_clmulepi64_si128(x4, x0, 0x11);
        y5 = _mm_loadu_si128((const __m128i *)(buf + 0x00));
        y6 = _mm_loadu_si128((const __m128i *)(buf + 0x10));
        y7 = _mm_loadu_si128((const __m128i *)(buf + 0x20));
        y8 = _mm_loadu_si128((const __m128i *)(buf + 0x30));
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), y5);
        x2 = _mm_xor_si128(_mm_xor_si128(x2, x6), y6);
        x3 = _mm_xor_si128(_mm_xor_si128(x3, x7), y7);
        x4 = _mm_xor_si128(_mm_xor_si128(x4, x8), y8);
        buf += 64; len -= 64;
    }
    x0 = k3k4;
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x3), x5);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x4), x5);
    while (len >= 16) {
        x2 = _mm_loadu_si128((const __m128i *)buf);
        x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
        buf += 16; len -= 16;
    }
    x2 = _mm_clmulepi64_si128(x1, x0, 0x10);
    x3 = _mm_setr_epi32(~0, 0, ~0, 0);
    x1 = _mm_srli_si128(x1, 8);
    x1 = _mm_xor_si128(x1, x2);
    x0 = k5k0;
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_and_si128(x1, x3);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    x0 = poly;
    x2 = _mm_and_si128(x1, x3);
    x2 = _mm_clmulepi64_si128(x2, x0, 0x10);
    x2 = _mm_and_si128(x2, x3);
    x2 = _mm_clmulepi64_si128(x2, x0, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}
#else
#define ZP_CRC_CLMUL 0
#endif

static inline void zp_crc32_init(void) {
    uint32_t i, j, c;
    for (i = 0; i < 256; i++) {
        c = i;
        for (j = 0; j < 8; j++)
            c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        zp_crc_table[0][i] = c;
    }
    for (i = 0; i < 256; i++)
        for (j = 1; j < 8; j++)
            zp_crc_table[j][i] = (zp_crc_table[j - 1][i] >> 8) ^ zp_crc_table[0][zp_crc_table[j - 1][i] & 0xff];
#if ZP_CRC_CLMUL
    __builtin_cpu_init();
    zp_crc_clmul_ok = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
#endif
}

static inline uint32_t zp_crc32(uint32_t crc, const uint8_t *p, int64_t n) {
    uint32_t lo, hi;
    crc = ~crc;
#if ZP_CRC_CLMUL
    if (n >= 64 && zp_crc_clmul_ok) {
        int64_t whole = n & ~(int64_t)15;
        crc = zp_crc32_clmul(crc, p, (size_t)whole);
        p += whole;
        n -= whole;
    }
#endif
    for (; n >= 8; n -= 8, p += 8) {
        lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        crc = zp_crc_table[7][lo & 0xff] ^ zp_crc_table[6][(lo >> 8) & 0xff] ^
              zp_crc_table[5][(lo >> 16) & 0xff] ^ zp_crc_table[4][lo >> 24] ^
              zp_crc_table[3][hi & 0xff] ^ zp_crc_table[2][(hi >> 8) & 0xff] ^
              zp_crc_table[1][(hi >> 16) & 0xff] ^ zp_crc_table[0][hi >> 24];
    }
    while (n-- > 0)
        crc = zp_crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

/* a * b + c without overflow; returns -1 when it does not fit int64. */
static inline int zp_mul_add_i64(int64_t a, int64_t b, int64_t c, int64_t *out) {
#if ZP_MSVC
    /* b > 0 here (a unit's multiplier), c in [0, b) */
    if (a > (INT64_MAX - c) / b || a < INT64_MIN / b)
        return -1;
    *out = a * b + c;
    return 0;
#else
    int64_t product;
    if (__builtin_mul_overflow(a, b, &product))
        return -1;
    if (__builtin_add_overflow(product, c, out))
        return -1;
    return 0;
#endif
}

/* One consumer at a time per reader: a stream pulled from two threads at once
 * gets an error instead of a data race. */
static inline int zp_try_enter(int *busy) {
#if ZP_MSVC
    return _InterlockedExchange((volatile long *)busy, 1) == 0;
#else
    return __atomic_exchange_n(busy, 1, __ATOMIC_ACQUIRE) == 0;
#endif
}

static inline void zp_leave(int *busy) {
#if ZP_MSVC
    _InterlockedExchange((volatile long *)busy, 0);
#else
    __atomic_store_n(busy, 0, __ATOMIC_RELEASE);
#endif
}

#endif
