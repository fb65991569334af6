/* Unix seconds <-> proleptic Gregorian civil dates (Howard Hinnant's
 * days_from_civil / civil_from_days), valid far beyond Python's years 1-9999. */
#ifndef ZP_CIVIL_H
#define ZP_CIVIL_H

#include <stdint.h>

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

static inline int64_t zp_days_from_civil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const int64_t era = zp_floor_div(y, 400);
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static inline void zp_civil_from_days(int64_t z, int *year, int *month, int *day) {
    z += 719468;
    const int64_t era = zp_floor_div(z, 146097);
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t y = (int64_t)yoe + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned d = doy - (153 * mp + 2) / 5 + 1;
    const unsigned m = mp < 10 ? mp + 3 : mp - 9;
    *year = (int)(y + (m <= 2));
    *month = (int)m;
    *day = (int)d;
}

#endif
