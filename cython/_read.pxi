# Reading msgpack values (zp_read.h): the wire rules of the readers, shared by the
# decoder (_unpacker.pxi), which wraps each in a raise, and the columnar reader
# (_arrow_read.pxi), which calls them without the GIL.

cdef extern from "zp_read.h":
    enum:
        ZP_READ_OK
        ZP_READ_OTHER
        ZP_READ_SHORT
        ZP_TIME_STRICT
        ZP_TIME_NANOS
        ZP_TIME_EXT
        ZP_COMPLEX64_STRICT
        ZP_COMPLEX128_STRICT
        ZP_COMPLEX128_INEXACT
        ZP_COMPLEX_OTHER
        ZP_NAME_NOT_STR
        ZP_NAME_OTHER
        ZP_KEY_OTHER
        ZP_INT_FAMILY
        ZP_INT_OVERFLOW
        ZP_FLOAT64_STRICT
        ZP_FLOAT64_INEXACT
        ZP_INT_INEXACT
        ZP_ANY_KEY
        ZP_ANY_EXT
        ZP_KEY_ZID
        ZP_KEY_NAME
        ZP_KEY_TAG
    ctypedef struct zp_head:
        int64_t header
        int64_t n
        int8_t code
        int64_t value
        int64_t at
        int64_t needed
    ctypedef struct zp_name:
        const char *text
        int64_t len
    const char *zp_lead_name(unsigned char b) noexcept nogil
    int zp_read_str(const unsigned char *p, int64_t left, zp_head *h) noexcept nogil
    int zp_read_bin(const unsigned char *p, int64_t left, zp_head *h) noexcept nogil
    int zp_read_ext(const unsigned char *p, int64_t left, zp_head *h) noexcept nogil
    int zp_read_array(const unsigned char *p, int64_t left, zp_head *h) noexcept nogil
    int zp_read_map(const unsigned char *p, int64_t left, zp_head *h) noexcept nogil
    bint zp_is_map(unsigned char b) noexcept nogil
    bint zp_is_array(unsigned char b) noexcept nogil
    bint zp_is_container(unsigned char b) noexcept nogil
    int64_t zp_load_integer(const unsigned char *p, int64_t left, zp_number *out) noexcept nogil
    int64_t zp_load_number(const unsigned char *p, int64_t left, zp_number *out) noexcept nogil
    int64_t zp_read_int_fast(const unsigned char *p, int64_t left, int is_signed, int64_t imin, int64_t imax,
                             uint64_t umax, uint64_t *v) noexcept nogil
    int zp_check_integer(const unsigned char *p, const zp_number *num, int is_signed, int64_t imin, int64_t imax,
                         uint64_t umax, int strict, zp_head *h) noexcept nogil
    int zp_read_float(const unsigned char *p, int64_t left, int want32, int strict, zp_head *h,
                      double *d) noexcept nogil
    int zp_read_time(const unsigned char *p, int64_t left, int strict, zp_head *h, int64_t *seconds,
                     int64_t *nanos) noexcept nogil
    int zp_read_complex(const unsigned char *p, int64_t left, int want64, int strict, zp_head *h, int *is64,
                        uint64_t *re, uint64_t *im) noexcept nogil
    bint zp_any_key_ok(unsigned char b) noexcept nogil
    bint zp_any_ext_ok(unsigned char b, int8_t code, int64_t n) noexcept nogil
    int zp_read_struct_name(const unsigned char *p, int64_t left, const char *name, int64_t len,
                            zp_head *h) noexcept nogil
    int zp_peek_struct_name(const unsigned char *p, int64_t left, zp_head *h) noexcept nogil
    int zp_read_struct_key(const unsigned char *p, int64_t left, zp_head *h, uint64_t *wide) noexcept nogil
    int64_t zp_find_name(const zp_name *names, size_t stride, int64_t count, const unsigned char *text, int64_t n,
                         int64_t hint) noexcept nogil
    int64_t zp_copy_ascii(unsigned char *out, const unsigned char *s, int64_t n) noexcept nogil
    int64_t zp_utf8_measure(const unsigned char *s, int64_t n, uint32_t *maxchar) noexcept nogil
    bint zp_utf8_init() noexcept nogil
    int zp_utf8_decode(const unsigned char *s, int64_t n, void *out, int64_t chars, uint32_t maxchar) noexcept nogil
    int zp_utf8_decode_after_ascii(const unsigned char *s, int64_t n, int64_t k, void *out, int64_t chars,
                                   uint32_t maxchar) noexcept nogil
    void zp_skip_message(char *out, size_t size, int rc, const zp_skipper *s, int64_t end, int64_t max_depth,
                         int64_t depth) noexcept nogil
    void zp_short_message(char *out, size_t size, int64_t needed, int64_t left) noexcept nogil
    void zp_read_message(char *out, size_t size, int status, const unsigned char *p, int64_t left,
                         const zp_head *h, const char *go, const char *name) noexcept nogil

cdef enum:
    READ_MESSAGE_SIZE = 512         # zp_read_message's longest: a struct name of 200 bytes, a Go type


cdef str wire_type_name(unsigned char b):
    """The msgpack name of a lead byte, for messages."""
    return zp_lead_name(b).decode("ascii")
