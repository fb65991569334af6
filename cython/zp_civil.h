/* Unix seconds <-> proleptic Gregorian civil dates (Neri and Schneider's algorithms),
 * valid far beyond Python's years 1-9999. */
#ifndef ZP_CIVIL_H
#define ZP_CIVIL_H

#include <stdint.h>
#include "zp_wire.h"      /* ZP_ALWAYS_INLINE */

/* Go's zero time.Time, 0001-01-01T00:00:00Z, in Unix seconds. */
#define ZP_GO_ZERO_SECONDS (-62135596800LL)
/* The range Python's datetime holds: 0001-01-01T00:00:00 .. 9999-12-31T23:59:59. */
#define ZP_MIN_SECONDS (-62135596800LL)
#define ZP_MAX_SECONDS (253402300799LL)

static inline int64_t zp_floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q -= 1;
    return q;
}

/* The days since 1970-01-01 of a civil date, for years -32000 to 2,700,000 (Python's
 * 1-9999 well inside): Neri and Schneider's days_from_civil (the paper below), the
 * year shifted 82 eras so that it is never negative and every division is by a
 * constant, a multiplication; checked against Hinnant's days_from_civil on every day
 * of years 1-9999 and every 7th year to the range's ends. In 32 bits (1461 times the
 * shifted year stays below 2**32 over the whole range), where a division by a constant
 * is one multiplication by an immediate; the days from March 1st to the month's first,
 * (979 * m - 2919) / 32 with January and February as months 13 and 14, from a table. */
ZP_ALWAYS_INLINE int64_t zp_days_from_civil(int64_t y, unsigned m, unsigned d) {
    static const uint16_t from_march[16] = {0, 306, 337, 0, 31, 61, 92, 122, 153, 184, 214, 245, 275, 0, 0, 0};
    const uint32_t y1 = (uint32_t)(y + 400 * 82) - (uint32_t)(m <= 2);     /* years from March 1st */
    const uint32_t century = y1 / 100;
    const uint32_t days = 1461 * y1 / 4 - century + century / 4 + from_march[m & 15] + d;
    return (int64_t)days - 719469 - 146097 * 82;
}

/* The civil date of day z (days since 1970-01-01) for the days of years -32000 to
 * 2,700,000 (Python's 1-9999 well inside): Neri and Schneider's Euclidean affine
 * functions ("Euclidean affine functions and their application to calendar
 * algorithms", 2022), a few multiplications where the classic algorithm divides;
 * checked against Hinnant's civil_from_days on every day of years 1-9999 and every
 * 997th to the range's end. */
static inline void zp_civil_from_days(int64_t z, int *year, int *month, int *day) {
    const uint32_t n = (uint32_t)(z + 719468 + 146097 * 82);     /* shifted 82 eras: never negative */
    const uint32_t n1 = 4 * n + 3;
    const uint32_t century = n1 / 146097;
    const uint32_t n2 = 4 * (n1 % 146097 / 4) + 3;
    const uint64_t p2 = (uint64_t)2939745 * n2;
    const uint32_t year_of_century = (uint32_t)(p2 >> 32);
    const uint32_t day_of_year = (uint32_t)p2 / 2939745 / 4;     /* from March 1st */
    const uint32_t n3 = 2141 * day_of_year + 197913;
    const uint32_t jan_feb = day_of_year >= 306;
    *year = (int)((int64_t)(100 * century + year_of_century) - 400 * 82 + jan_feb);
    *month = (int)(jan_feb ? (n3 >> 16) - 12 : n3 >> 16);
    *day = (int)((n3 & 0xffff) / 2141 + 1);
}

#endif
