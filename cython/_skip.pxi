# Stepping over msgpack values (zp_skip.h): the wire rules of skipping, shared by
# decode's skip_value and the columnar reader's dec_skip, which spell its failures
# as their messages and field paths.

cdef extern from "zp_skip.h":
    ctypedef struct zp_skip_level:
        int64_t left
        int64_t count
    ctypedef struct zp_skipper:
        const unsigned char *buf
        int64_t pos
        int64_t end
        int64_t values_left
        int64_t max_levels
        int64_t level
        zp_skip_level *levels
        int64_t cap
        int64_t at
        int64_t needed
    enum:
        ZP_SKIP_DONE
        ZP_SKIP_TRUNCATED
        ZP_SKIP_NEVER_USED
        ZP_SKIP_TOO_DEEP
        ZP_SKIP_TOO_MANY
        ZP_SKIP_NO_MEMORY
        ZP_SKIP_INLINE
    void zp_skip_init(zp_skipper *s, const unsigned char *buf, int64_t pos, int64_t end, zp_skip_level *levels,
                      int64_t cap, int64_t max_levels, int64_t values_left) noexcept nogil
    void zp_skip_release(zp_skipper *s) noexcept nogil
    int zp_skip_next(zp_skipper *s) noexcept nogil
    int zp_skip_one(zp_skipper *s) noexcept nogil
    int zp_skip(zp_skipper *s) noexcept nogil
    int zp_skip_resume(zp_skipper *s) noexcept nogil
    int64_t zp_skip_index(const zp_skipper *s, int64_t level) noexcept nogil
    bint zp_skip_is_map(const zp_skipper *s, int64_t level) noexcept nogil
    int64_t zp_skip_scalar_size(const unsigned char *p, int64_t left) noexcept nogil
