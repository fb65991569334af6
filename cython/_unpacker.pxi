# The decoder: walks a compiled plan over a raw byte buffer. Every length read
# from the wire is checked against the bytes remaining before it is used, and
# every container is pre-sized only after that check. Each element a header
# claims is a value of its own, one byte at least, so all the headers of an
# input together claim at most as many elements as it has bytes
# (Reader.values_left): nested headers cannot each claim the whole rest of the
# input, and the slots pre-sized in a call add up to at most the input's length.
# Zero values built for absent fields and nils (the values a fixed array or
# nested struct holds, TypePlan.zero_cost) draw first on the zero budget
# (Reader.zeros_left: the codec's zero_allowance once per call, plus each
# record's own struct zero cost, so that an empty record always decodes), then
# on the same budget as the headers. A call so builds at most 2 * input length
# + zero_allowance + the sum of its records' struct zero costs in values.

cdef struct Reader:
    const unsigned char *buf
    Py_ssize_t pos
    Py_ssize_t end
    Py_ssize_t base         # offset of buf[0] in the whole input (streams)
    bint strict             # reject the encodings the Go reader rejects
    bint truncated          # the input ended inside a value
    Py_ssize_t values_left  # elements the headers still to come may claim, in all
    Py_ssize_t zeros_left   # values zero values may hold before drawing on values_left
    PyObject *plans         # borrowed tuple of StructPlan: lookup by the -1 name
    Trail trail


cdef int reader_fail(Reader *r, Py_ssize_t at, str message) except -1:
    raise _DecodeError(message, trail_path(&r.trail), r.base + at)


cdef int reader_truncated(Reader *r, Py_ssize_t at, Py_ssize_t needed) except -1:
    cdef char message[READ_MESSAGE_SIZE]
    r.truncated = True
    zp_short_message(message, sizeof(message), needed, r.end - at)
    return reader_fail(r, at, message.decode("utf-8"))


cdef int reader_refused(Reader *r, int status, const zp_head *h, str go=None) except -1:
    """The DecodeError of a zp_read.h refusal of the value at r.pos, in its words."""
    cdef char message[READ_MESSAGE_SIZE]
    if status == ZP_READ_SHORT:
        return reader_truncated(r, r.pos + h.at, h.needed)
    go_utf8 = (go or "").encode("utf-8")
    zp_read_message(message, sizeof(message), status, r.buf + r.pos, r.end - r.pos, h, go_utf8, "")
    return reader_fail(r, r.pos, message.decode("utf-8", "replace"))


cdef inline int need(Reader *r, Py_ssize_t n) except -1:
    if n > r.end - r.pos:
        reader_truncated(r, r.pos, n)
    return 0


cdef int reader_type_error(Reader *r, str expected, unsigned char lead) except -1:
    return reader_fail(r, r.pos, f"expected {expected}, found {wire_type_name(lead)}")


cdef inline int reader_enter(Reader *r) except -1:
    if not trail_enter(&r.trail):
        reader_too_deep(r)
    return 0


cdef int reader_too_deep(Reader *r) except -1:
    # out of line: reader_enter, called for every container, stays small enough to inline
    return reader_fail(r, r.pos, trail_too_deep(&r.trail))


# -- headers (zp_read.h) ----------------------------------------------------------
# Each: the length or count of the value at r.pos, checked against the input;
# -1 (nothing read) when the value is of another type.

cdef inline Py_ssize_t str_length(Reader *r, Py_ssize_t *header) except -2:
    """Byte length of the str at r.pos; its header's size in header[0]."""
    cdef zp_head h
    return head_length(r, zp_read_str(r.buf + r.pos, r.end - r.pos, &h), &h, header)


cdef inline Py_ssize_t bin_length(Reader *r, Py_ssize_t *header) except -2:
    """Byte length of the bin at r.pos; its header's size in header[0]."""
    cdef zp_head h
    return head_length(r, zp_read_bin(r.buf + r.pos, r.end - r.pos, &h), &h, header)


cdef inline Py_ssize_t ext_length(Reader *r, Py_ssize_t *header) except -2:
    """Data length of the ext at r.pos (its type byte is at r.pos + header - 1)."""
    cdef zp_head h
    return head_length(r, zp_read_ext(r.buf + r.pos, r.end - r.pos, &h), &h, header)


cdef inline Py_ssize_t head_length(Reader *r, int rc, const zp_head *h, Py_ssize_t *header) except -2:
    """The length a zp_read.h reader found at r.pos (status rc, h), its header's size in header[0]."""
    if rc != ZP_READ_OK:
        return -1 if rc == ZP_READ_OTHER else reader_refused(r, rc, h)
    header[0] = h.header
    return h.n


cdef inline Py_ssize_t map_count(Reader *r) except -2:
    """Entry count of the map at r.pos, header consumed, its values claimed."""
    cdef zp_head h
    cdef int rc = zp_read_map(r.buf + r.pos, r.end - r.pos, &h)
    if rc != ZP_READ_OK:
        return -1 if rc == ZP_READ_OTHER else reader_refused(r, rc, &h)
    r.pos += h.header
    claim_values(r, 2 * h.n)
    return h.n


cdef inline Py_ssize_t array_count(Reader *r) except -2:
    """Element count of the array at r.pos, header consumed, its values claimed."""
    cdef zp_head h
    cdef int rc = zp_read_array(r.buf + r.pos, r.end - r.pos, &h)
    if rc != ZP_READ_OK:
        return -1 if rc == ZP_READ_OTHER else reader_refused(r, rc, &h)
    r.pos += h.header
    claim_values(r, h.n)
    return h.n


cdef inline int claim_values(Reader *r, Py_ssize_t n) except -1:
    if n > r.values_left:
        r.truncated = True
        reader_fail(r, r.pos, "the headers claim more values than the input has bytes")
    r.values_left -= n
    return 0


cdef inline int claim_zero(Reader *r, Py_ssize_t cost) except -1:
    """Pay for a zero value holding cost values (see the budget above)."""
    if cost <= r.zeros_left:
        r.zeros_left -= cost
        return 0
    if cost - r.zeros_left > r.values_left:
        r.truncated = True      # more input is more budget: streams read on, then fail at the end
        reader_fail(r, r.pos, f"zero values of absent or nil fields would hold more values ({cost}) than "
                              "the decode budget has left (see zero_allowance)")
    r.values_left -= cost - r.zeros_left
    r.zeros_left = 0
    return 0


# -- integers -----------------------------------------------------------------

cdef inline int read_wire_int(Reader *r, zp_number *number) except -1:
    """Read any msgpack integer at r.pos (zp_load_integer): its family, ZP_NUMBER_NONE
    (nothing read) when the value is no integer."""
    cdef Py_ssize_t size = zp_load_integer(r.buf + r.pos, r.end - r.pos, number)
    if size < 0:
        reader_truncated(r, r.pos, -size)
    r.pos += size
    return number.family


cdef extern from "zp_wire.h":
    int64_t zp_load_int_family(unsigned char lead, const unsigned char *p, int64_t left) noexcept nogil
    uint64_t zp_load_uint_family(unsigned char lead, const unsigned char *p, int64_t left) noexcept nogil


# In line always: read_struct's integer fields and read_value (map keys, pointers, the
# rest) take it without a call (gcc, weighing the whole module, otherwise moves it out of
# line on small changes). List items take zp_read_int_fast themselves.
cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    struct __pyx_t_9zebrapack_5_core_Reader;
    struct __pyx_obj_9zebrapack_5_core_TypePlan;
    static inline PyObject *__pyx_f_9zebrapack_5_core_read_integer(struct __pyx_t_9zebrapack_5_core_Reader *,
        struct __pyx_obj_9zebrapack_5_core_TypePlan *, unsigned char) __attribute__((always_inline));
    #endif
    """


cdef inline object read_integer(Reader *r, TypePlan t, unsigned char b):
    """An integer of kind t at r.pos (lead byte b). In line (zp_read_int_fast): the
    encodings of t's own family that fit its range, which strict reading takes too; the
    rest (the other family, truncation, overflow) in read_integer_slow."""
    cdef uint64_t v
    cdef int64_t size = zp_read_int_fast(r.buf + r.pos, r.end - r.pos, t.is_signed, t.imin, t.imax, t.umax, &v)
    if size == 0:
        return read_integer_slow(r, t, b)
    r.pos += size
    return int_object(v, t.is_signed)


cdef inline object int_object(uint64_t v, bint is_signed):
    """The int of an integer zp_read_int_fast read (two's complement when is_signed)."""
    if is_signed or v <= <uint64_t>INT64_MAX:
        return PyLong_FromLongLong(<int64_t>v)
    return PyLong_FromUnsignedLongLong(v)


cdef object read_integer_slow(Reader *r, TypePlan t, unsigned char b):
    """read_integer for every case its fast path leaves: other families, truncation, errors."""
    cdef zp_number number
    cdef zp_head h
    cdef int rc
    cdef Py_ssize_t start = r.pos
    if read_wire_int(r, &number) == ZP_NUMBER_NONE:
        reader_type_error(r, t.go, b)
    rc = zp_check_integer(r.buf + start, &number, t.is_signed, t.imin, t.imax, t.umax, r.strict, &h)
    if rc != ZP_READ_OK:
        r.pos = start
        reader_refused(r, rc, &h, t.go)
    if number.family == ZP_NUMBER_UINT:
        return PyLong_FromUnsignedLongLong(number.bits)
    return PyLong_FromLongLong(<int64_t>number.bits)


# -- floats, complex, bool ------------------------------------------------------

cdef object read_float(Reader *r, TypePlan t, unsigned char b):
    cdef double d = 0.0
    cdef zp_head h
    cdef int rc
    if b == 0xcb and t.kind == K_F64 and r.end - r.pos >= 9:      # in line: a float64 kind's own encoding
        r.pos += 9
        return PyFloat_FromDouble(zp_double_from_bits(zp_load_u64(r.buf + r.pos - 8)))
    rc = zp_read_float(r.buf + r.pos, r.end - r.pos, t.kind == K_F32, r.strict, &h, &d)
    if rc == ZP_READ_OTHER:
        reader_type_error(r, t.go, b)
    if rc == ZP_FLOAT64_INEXACT:        # Python's spelling of the float
        reader_fail(r, r.pos, f"float64 {d!r} is not exactly a float32")
    if rc != ZP_READ_OK:
        reader_refused(r, rc, &h, t.go)
    r.pos += h.header
    return PyFloat_FromDouble(d)


cdef object read_complex(Reader *r, TypePlan t, unsigned char b):
    cdef zp_head h
    cdef int is64 = 0
    cdef uint64_t re = 0, im = 0
    cdef int rc = zp_read_complex(r.buf + r.pos, r.end - r.pos, t.kind == K_C64, r.strict, &h, &is64, &re, &im)
    if rc != ZP_READ_OK:
        reader_refused(r, rc, &h, t.go)
    r.pos += h.header
    if is64:
        return PyComplex_FromDoubles(zp_double_from_f32_bits(<uint32_t>re), zp_double_from_f32_bits(<uint32_t>im))
    return PyComplex_FromDoubles(zp_double_from_bits(re), zp_double_from_bits(im))


cdef inline object read_bool(Reader *r, TypePlan t, unsigned char b):
    if b == 0xc3:
        r.pos += 1
        return True
    if b == 0xc2:
        r.pos += 1
        return False
    return reader_type_error(r, t.go, b)


# -- strings and bytes ----------------------------------------------------------

# Map keys repeat across the maps of a document and the records of a stream: short
# ASCII keys come from a small cache (as msgspec's), whose strings already carry
# their hash. Only touched with the GIL held; of the two slots a key may take, the
# older key is dropped when a third key hashes to them.
cdef enum:
    KEY_CACHE_SIZE = 512        # a power of two
    KEY_CACHE_MAX_LENGTH = 16

cdef struct KeyCacheEntry:
    PyObject *key               # the str (a strong reference), or NULL
    uint64_t lo                 # its bytes, zero-padded to 16 (zp_load_padded16)
    uint64_t hi
    Py_ssize_t n

cdef KeyCacheEntry _key_cache[KEY_CACHE_SIZE]

cdef extern from "zp_wire.h":
    void zp_load_padded16(const unsigned char *p, Py_ssize_t n, Py_ssize_t avail, uint64_t *lo, uint64_t *hi) noexcept nogil
    size_t zp_key_slot(uint64_t lo, uint64_t hi, Py_ssize_t n) noexcept nogil


cdef struct KeyProbe:
    # a fixstr key looked up in the cache and not found: its words and its slot pair
    KeyCacheEntry *entry        # NULL: not looked up (too long, too near the end)
    uint64_t lo
    uint64_t hi


cdef inline PyObject *cached_fixstr_key(Reader *r, KeyProbe *probe) noexcept:
    """The fixstr map key at r.pos from the key cache, borrowed, r.pos moved past it; or
    NULL, r.pos unmoved, and read_fixstr_key(r, probe) reads it (a miss looked up here is
    not looked up again). In line where maps are read: a hit, the common case, costs no
    call."""
    cdef Py_ssize_t n = r.buf[r.pos] & 0x1f
    cdef Py_ssize_t avail = r.end - r.pos - 1
    cdef KeyCacheEntry *entry
    probe.entry = NULL
    if n > KEY_CACHE_MAX_LENGTH:
        return NULL
    if avail >= 16:                 # the common case: whole words, masked
        zp_load_padded16(r.buf + r.pos + 1, n, 16, &probe.lo, &probe.hi)
    elif avail >= n:                # near the input's end: the key's bytes alone
        zp_load_padded16(r.buf + r.pos + 1, n, avail, &probe.lo, &probe.hi)
    else:
        return NULL
    entry = &_key_cache[zp_key_slot(probe.lo, probe.hi, n) & (KEY_CACHE_SIZE - 2)]
    if entry.key != NULL and entry.lo == probe.lo and entry.hi == probe.hi and entry.n == n:
        r.pos += 1 + n
        return entry.key
    if entry[1].key != NULL and entry[1].lo == probe.lo and entry[1].hi == probe.hi and entry[1].n == n:
        r.pos += 1 + n
        return entry[1].key
    probe.entry = entry
    return NULL


cdef object read_fixstr_key(Reader *r, const KeyProbe *probe):
    """The fixstr map key at r.pos (the caller saw its lead byte; checked against the
    input like any str), after cached_fixstr_key did not find it."""
    cdef Py_ssize_t n = r.buf[r.pos] & 0x1f
    cdef const unsigned char *p = r.buf + r.pos + 1
    cdef uint64_t lo, hi
    cdef KeyCacheEntry *entry
    cdef KeyCacheEntry *other
    cdef PyObject *old
    need(r, 1 + n)
    if n > KEY_CACHE_MAX_LENGTH:
        key = make_str(p, n)
        r.pos += 1 + n
        return key
    if probe.entry != NULL:         # looked up already: not there
        lo, hi, entry = probe.lo, probe.hi, probe.entry
    else:
        zp_load_padded16(p, n, r.end - r.pos - 1, &lo, &hi)
        # two slots per key (an even-odd pair): keys that hash alike do not evict each other
        entry = &_key_cache[zp_key_slot(lo, hi, n) & (KEY_CACHE_SIZE - 2)]
    if (lo | hi) & 0x8080808080808080ULL:
        key = _str_from_utf8(p, n)
        r.pos += 1 + n
        return key
    other = entry + 1
    if probe.entry == NULL:
        if entry.key != NULL and entry.lo == lo and entry.hi == hi and entry.n == n:
            r.pos += 1 + n
            return <object>entry.key
        if other.key != NULL and other.lo == lo and other.hi == hi and other.n == n:
            r.pos += 1 + n
            return <object>other.key
    key = PyUnicode_New(n, 127)
    memcpy(PyUnicode_DATA(key), p, n)
    hash(key)
    Py_INCREF(key)
    # the new key takes the first slot, whose key moves to the second, whose key is dropped
    old = other.key
    other[0] = entry[0]
    entry.key = <PyObject *>key
    entry.lo = lo
    entry.hi = hi
    entry.n = n
    Py_XDECREF(old)
    r.pos += 1 + n
    return key


cdef extern from "zp_wire.h":
    int zp_is_ascii(const unsigned char *p, Py_ssize_t n) noexcept nogil
    int zp_same_bytes(const void *a, const void *b, Py_ssize_t n) noexcept nogil

#: Up to this length an ASCII str is checked, then copied (two passes: short ones are
#: mostly ASCII, and a non-ASCII one costs no str allocated in vain); longer ones are
#: checked and copied in one pass (str_from_utf8).
cdef Py_ssize_t ASCII_DIRECT_MAX = 256
#: Where the core has no 16-byte Latin-1 steps (they need SSSE3: zp_utf8_init), over
#: this length a str whose first UTF8_PROBE bytes are Latin-1 text (no lead byte above
#: 0xc3) goes to Python's decoder: its branchy loop takes less time on such text than
#: the core's 8-byte steps (fewer instructions, more time: measured,
#: docs/performance.md, "Strings"). Every other str is decoded by the core.
cdef Py_ssize_t UTF8_DIRECT_MAX = 64
cdef bint LATIN1_STEPS = zp_utf8_init()
#: The bytes of a long str looked at first, to guess whether it is ASCII: a wrong guess
#: costs time (a prefix copied in vain), never correctness.
cdef enum:
    STR_PROBE = 32
    UTF8_PROBE = 64


# The one-character ASCII strs, CPython's own (chr's): a one-byte str is one of them, as
# Python's decoders give it, not a new object.
cdef PyObject *_ascii_chars[128]
cdef list _ascii_char_objects = [chr(code) for code in range(128)]     # (holds them)


cdef void _fill_ascii_chars() noexcept:
    cdef int code
    for code in range(128):
        _ascii_chars[code] = <PyObject *>_ascii_char_objects[code]


_fill_ascii_chars()


cdef inline object make_str(const unsigned char *p, Py_ssize_t n):
    """A str from UTF-8 bytes: one ASCII character CPython's own str of it, short ASCII
    copied straight into a new compact str, the rest built by str_from_utf8."""
    if n == 1 and p[0] < 0x80:
        return <object>_ascii_chars[p[0]]
    if n <= ASCII_DIRECT_MAX and zp_is_ascii(p, n):
        value = PyUnicode_New(n, 127)
        zp_copy_short(<unsigned char *>PyUnicode_DATA(value), p, n)     # up to 16 bytes without a call
        return value
    return _str_from_utf8(p, n)


cdef object str_from_utf8(const unsigned char *p, Py_ssize_t n):
    """A str from n bytes of UTF-8 (zp_read.h): a long one that starts as ASCII is tried
    as ASCII, checked and copied in one pass into a str of n characters; when it is not
    all ASCII, the ASCII prefix that pass found is not read again: the rest is measured
    (its code points and kind), the str allocated once at its final length and kind, the
    prefix put in (copied or widened) and only the rest decoded and checked after it
    (zp_utf8_decode_after_ascii). A long rest that starts as Latin-1 text goes to
    Python's decoder where the core has no 16-byte Latin-1 steps (UTF8_DIRECT_MAX). Bytes
    that are not strict UTF-8 go to Python's decoder, which refuses them saying where
    and why."""
    cdef int64_t chars, ascii = 0
    cdef uint32_t maxchar = 0x7f
    if n > ASCII_DIRECT_MAX and zp_is_ascii(p, STR_PROBE):
        value = PyUnicode_New(n, 127)
        ascii = zp_copy_ascii(<unsigned char *>PyUnicode_DATA(value), p, n)
        if ascii == n:
            return value
        value = None                    # (freed before the str of the final length is allocated)
    if n - ascii > UTF8_DIRECT_MAX and not LATIN1_STEPS:
        zp_utf8_measure(p + ascii, UTF8_PROBE, &maxchar)
        if maxchar <= 0xff:
            return PyUnicode_DecodeUTF8(<const char *>p, n, NULL)
    chars = ascii + zp_utf8_measure(p + ascii, n - ascii, &maxchar)
    value = PyUnicode_New(chars, maxchar)
    if zp_utf8_decode_after_ascii(p, n, ascii, PyUnicode_DATA(value), chars, maxchar) < 0:
        return PyUnicode_DecodeUTF8(<const char *>p, n, NULL)
    return value

# Called through a pointer: make_str, in line in every string reader, stays small.
cdef object (*_str_from_utf8)(const unsigned char *, Py_ssize_t)
_str_from_utf8 = str_from_utf8


cdef object read_str(Reader *r, TypePlan t, unsigned char b):
    cdef Py_ssize_t header = 0
    cdef Py_ssize_t n = str_length(r, &header)
    if n < 0:
        n = -1 if r.strict else bin_length(r, &header)
        if n < 0:
            reader_type_error(r, t.go, b)
    value = make_str(r.buf + r.pos + header, n)
    r.pos += header + n
    return value


cdef object read_bin(Reader *r, TypePlan t, unsigned char b):
    cdef Py_ssize_t header = 0
    cdef Py_ssize_t n = bin_length(r, &header)
    if n < 0:
        n = -1 if r.strict else str_length(r, &header)
        if n < 0:
            reader_type_error(r, t.go, b)
    if t.kind == K_BYTEARRAY and n != t.length:
        reader_fail(r, r.pos, f"expected {t.go} ({t.length} bytes), found {n} bytes")
    value = new_bytes(r.buf + r.pos + header, n)
    r.pos += header + n
    return value


# -- time -----------------------------------------------------------------------

cdef object read_time(Reader *r, bint field_level):
    """time.Time (zp_read_time): ext 5 (seconds, nanoseconds); the msgpack spec's ext -1
    too, unless strict.

    ``field_level``: a struct's own time field, where Go's zero instant is None.
    """
    cdef zp_head h
    cdef int64_t seconds = 0, nanos = 0
    cdef int rc
    need(r, 1)
    if r.buf[r.pos] == 0xc0:
        r.pos += 1
        return None if field_level else _GO_ZERO_TIME
    rc = zp_read_time(r.buf + r.pos, r.end - r.pos, r.strict, &h, &seconds, &nanos)
    if rc == ZP_READ_OTHER:
        reader_type_error(r, "time.Time (ext 5)", r.buf[r.pos])
    if rc != ZP_READ_OK:
        reader_refused(r, rc, &h)
    r.pos += h.header + h.n
    return make_time(seconds, nanos, field_level)


cdef object (*_read_time)(Reader *, bint)
_read_time = read_time


cdef extern from "zp_object.h":
    object zp_new_datetime(PyTypeObject *type, int year, int month, int day, int hour, int minute, int second,
                           int usecond, object tz)


@cython.cdivision(True)    # C division: second_of_day and nanos are never negative here
cdef object make_time(int64_t seconds, int64_t nanos, bint field_level):
    """A datetime (a Timestamp below the microsecond), or a GoTime outside the years 1-9999."""
    cdef int year, month, day, hour, minute, second, micros
    cdef uint64_t since_min, days, second_of_day
    if field_level and seconds == ZP_GO_ZERO_SECONDS and nanos == 0:
        return None
    if seconds < ZP_MIN_SECONDS or seconds > ZP_MAX_SECONDS:
        return _GoTime(seconds, nanos)
    # from year 1's first second (a whole day before 1970): unsigned divisions, no flooring
    since_min = <uint64_t>(seconds - ZP_MIN_SECONDS)
    days = since_min // 86400
    second_of_day = since_min - days * 86400
    zp_civil_from_days(<int64_t>days + ZP_MIN_SECONDS // 86400, &year, &month, &day)
    hour = <int>(second_of_day // 3600)
    second = <int>(second_of_day - <uint64_t>hour * 3600)
    minute = second // 60
    second -= minute * 60
    micros = <int>(nanos // 1000)
    if nanos == <int64_t>micros * 1000:
        return zp_new_datetime(PyDateTimeAPI.DateTimeType, year, month, day, hour, minute, second, micros, _UTC)
    return _Timestamp(year, month, day, hour, minute, second, micros, _UTC, nanosecond=nanos - <int64_t>micros * 1000)


# -- ext ------------------------------------------------------------------------

cdef object read_ext(Reader *r, TypePlan t, unsigned char b):
    cdef Py_ssize_t header = 0
    cdef Py_ssize_t n = ext_length(r, &header)
    if n < 0:
        reader_type_error(r, t.go, b)
    code = <int8_t>r.buf[r.pos + header - 1]
    data = new_bytes(r.buf + r.pos + header, n)
    r.pos += header + n
    return _Ext(code, data)


# -- containers -----------------------------------------------------------------

cdef enum:
    # read_list's runs: the item kinds it reads without read_value's dispatch
    READ_RUN_NONE = 0
    READ_RUN_INTEGER = 1
    READ_RUN_F64 = 2
    READ_RUN_STRING = 3
    READ_RUN_BYTES = 4
    READ_RUN_TIME = 5
    READ_RUN_STRUCT = 6
    READ_RUN_F32 = 7
    READ_RUN_BOOL = 8
    READ_RUN_ANY = 9
    READ_RUN_LIST = 10
    READ_RUN_MAP = 11


cdef object read_list(Reader *r, TypePlan t, unsigned char b):
    """A slice or array. The item kind is looked at once, not per item: integers,
    float64 and float32, bools, strings, []byte and [N]byte (or pointers to them) are
    read in line in their own encodings, times, structs, lists, maps and interface{}
    values by their readers without read_value's dispatch, and a nil item is the element's shared zero
    (None for a pointer) when it costs nothing; every other item, and every encoding a
    run does not take (the other family, lenient crossings, truncation and errors), goes
    to read_value."""
    cdef Py_ssize_t n = array_count(r)
    cdef Py_ssize_t i, left
    cdef TypePlan elem = t.elem
    cdef TypePlan item_type = elem.elem if elem.kind == K_POINTER else elem    # a non-nil item is read as
    cdef PyObject *nil_value = NULL
    cdef int run = READ_RUN_NONE
    cdef Py_ssize_t array_length = -1
    cdef int64_t size
    cdef uint64_t v
    cdef unsigned char c
    cdef zp_head h
    if n < 0:
        reader_type_error(r, t.go, b)
    if t.kind == K_ARRAY and n != t.length:
        reader_fail(r, r.pos, f"expected {t.go} ({t.length} elements), found an array of {n}")
    if n == 0:                          # its level still counted (max_depth), its item kind not asked
        reader_enter(r)
        trail_leave(&r.trail)
        return PyList_New(0)
    if elem.zero_shared and elem.zero_cost == 0 and elem.kind != K_NUMBER:     # read_value's nil, in line
        nil_value = <PyObject *>elem.zero
    cdef bint is_signed = item_type.is_signed      # the integer kind's, in registers
    cdef int64_t imin = item_type.imin, imax = item_type.imax
    cdef uint64_t umax = item_type.umax
    if K_UINT <= item_type.kind <= K_INT64:
        run = READ_RUN_INTEGER
    elif item_type.kind == K_F64:
        run = READ_RUN_F64
    elif item_type.kind == K_F32:
        run = READ_RUN_F32
    elif item_type.kind == K_STRING:
        run = READ_RUN_STRING
    elif item_type.kind == K_BYTES or item_type.kind == K_BYTEARRAY:
        run = READ_RUN_BYTES
        if item_type.kind == K_BYTEARRAY:
            array_length = item_type.length        # a bin of exactly that many bytes
    elif item_type.kind == K_TIME:
        run = READ_RUN_TIME
    elif item_type.kind == K_STRUCT:
        run = READ_RUN_STRUCT
    elif item_type.kind == K_BOOL:
        run = READ_RUN_BOOL
    elif item_type.kind == K_INTF:
        run = READ_RUN_ANY
    elif item_type.kind == K_SLICE or item_type.kind == K_ARRAY:
        run = READ_RUN_LIST
    elif item_type.kind == K_MAP:
        run = READ_RUN_MAP
    h.header = h.n = 0                  # (set by zp_read_str/_bin before use: gcc cannot tell)
    result = PyList_New(n)
    reader_enter(r)
    for i in range(n):
        trail_index(&r.trail, i)
        left = r.end - r.pos
        if left <= 0 or run == READ_RUN_NONE:
            item = read_value(r, elem)          # (reports a truncation)
        else:
            c = r.buf[r.pos]
            if c == 0xc0:
                if nil_value != NULL:
                    r.pos += 1
                    item = <object>nil_value
                else:
                    item = read_value(r, elem)
            elif run == READ_RUN_INTEGER:
                # zp_read_int_fast always in line
                size = zp_read_int_fast(r.buf + r.pos, left, is_signed, imin, imax, umax, &v)
                if size:
                    r.pos += size
                    item = int_object(v, is_signed)
                else:
                    item = read_integer_slow(r, item_type, c)
            elif run == READ_RUN_F64 and c == 0xcb and left >= 9:
                item = PyFloat_FromDouble(zp_double_from_bits(zp_load_u64(r.buf + r.pos + 1)))
                r.pos += 9
            elif (run == READ_RUN_F32 or run == READ_RUN_F64) and c == 0xca and left >= 5:
                # a float32 on the wire, which both float kinds take as it is (zp_read_float)
                item = PyFloat_FromDouble(zp_double_from_f32_bits(zp_load_u32(r.buf + r.pos + 1)))
                r.pos += 5
            elif run == READ_RUN_STRING and zp_read_str(r.buf + r.pos, left, &h) == ZP_READ_OK:
                item = make_str(r.buf + r.pos + h.header, h.n)
                r.pos += h.header + h.n
            elif run == READ_RUN_BYTES and zp_read_bin(r.buf + r.pos, left, &h) == ZP_READ_OK \
                    and (array_length < 0 or h.n == array_length):
                item = new_bytes(r.buf + r.pos + h.header, h.n)
                r.pos += h.header + h.n
            elif run == READ_RUN_TIME:
                item = read_time(r, False)
            elif run == READ_RUN_STRUCT:
                item = read_struct(r, item_type.struct_plan, c)
            elif run == READ_RUN_BOOL and (c == 0xc2 or c == 0xc3):
                item = c == 0xc3
                r.pos += 1
            elif run == READ_RUN_ANY:
                item = read_any(r)
            elif run == READ_RUN_LIST:
                item = read_list(r, item_type, c)
            elif run == READ_RUN_MAP:
                item = read_map(r, item_type, c)
            else:
                item = read_value(r, item_type)     # not nil: a pointer reads as its element
        Py_INCREF(item)
        PyList_SET_ITEM(result, i, item)
    trail_leave(&r.trail)
    return result


cdef object read_map(Reader *r, TypePlan t, unsigned char b):
    cdef Py_ssize_t n = map_count(r)
    cdef Py_ssize_t i
    cdef TypePlan elem = t.elem
    cdef int value_kind = elem.kind
    cdef PyObject *cached
    cdef KeyProbe probe
    cdef uint64_t v
    cdef int64_t size
    if n < 0:
        reader_type_error(r, t.go, b)
    result = _PyDict_NewPresized(n)       # n is bounded by the input's length
    reader_enter(r)
    for i in range(n):
        trail_key_reading(&r.trail)
        if t.key.kind == K_STRING and r.pos < r.end and (r.buf[r.pos] & 0xe0) == 0xa0:
            cached = cached_fixstr_key(r, &probe)
            key = <object>cached if cached != NULL else read_fixstr_key(r, &probe)
        else:
            key = read_value(r, t.key)
        trail_key(&r.trail, key)
        # interface{} values (nil too: its zero is None), integers, fixstrs, float64s, lists and
        # maps that are not nil, straight to their readers, as read_value (and read_struct
        # for a field) would call them
        if value_kind == K_INTF:
            value = read_any(r)
        elif value_kind >= K_UINT and value_kind <= K_INT64 and r.pos < r.end and (size := zp_read_int_fast(
                r.buf + r.pos, r.end - r.pos, elem.is_signed, elem.imin, elem.imax, elem.umax, &v)) != 0:
            # read_integer's in-line part (its other cases, and nil, through read_value;
            # a third call of read_integer itself would take it out of line)
            r.pos += size
            value = int_object(v, elem.is_signed)
        elif value_kind == K_STRING and r.pos < r.end and (r.buf[r.pos] & 0xe0) == 0xa0 \
                and (r.buf[r.pos] & 0x1f) < r.end - r.pos:
            value = make_str(r.buf + r.pos + 1, r.buf[r.pos] & 0x1f)
            r.pos += 1 + (r.buf[r.pos] & 0x1f)
        elif value_kind == K_F64 and r.pos < r.end and r.buf[r.pos] == 0xcb and r.end - r.pos >= 9:
            value = PyFloat_FromDouble(zp_double_from_bits(zp_load_u64(r.buf + r.pos + 1)))
            r.pos += 9
        elif (value_kind == K_SLICE or value_kind == K_ARRAY) and r.pos < r.end and r.buf[r.pos] != 0xc0:
            value = read_list(r, t.elem, r.buf[r.pos])
        elif value_kind == K_MAP and r.pos < r.end and r.buf[r.pos] != 0xc0:
            value = read_map(r, t.elem, r.buf[r.pos])
        else:
            value = read_value(r, t.elem)
        PyDict_SetItem(result, key, value)
    trail_map_done(&r.trail)
    return result


# -- structs ----------------------------------------------------------------------

cdef int check_struct_name(Reader *r, StructPlan sp) except -1:
    """At the value of a -1 key: it must name the struct being read (zp_read_struct_name)."""
    cdef zp_head h
    cdef int rc = zp_read_struct_name(r.buf + r.pos, r.end - r.pos, sp.name_utf8, len(sp.name_utf8), &h)
    if rc == ZP_NAME_OTHER:             # Python's spelling of the names
        name = new_bytes(r.buf + r.pos + h.header, h.n)
        reader_fail(r, r.pos, f"struct name {name.decode('utf-8', 'replace')!r} on the wire, expected {sp.name!r}")
    if rc != ZP_READ_OK:
        reader_refused(r, rc, &h)
    r.pos += h.header + h.n
    return 0


cdef inline FieldC *field_by_tag(StructPlan sp, const unsigned char *text, Py_ssize_t n, Py_ssize_t hint) noexcept:
    """The field whose FieldTagName is text (msgp mode keys); NULL when unknown."""
    cdef int64_t k = zp_find_name(&sp.cmsgp_fields[0].tag, sizeof(FieldC), sp.field_count, text, n, hint)
    return &sp.cmsgp_fields[k] if k >= 0 else NULL


cdef object read_struct(Reader *r, StructPlan sp, unsigned char b):
    cdef Py_ssize_t n = map_count(r)
    cdef Py_ssize_t i, klen = 0, value_start
    cdef zp_head h
    cdef int rc
    cdef Py_ssize_t filled = 0              # slots set for the first time
    cdef int64_t zid = 0
    cdef uint64_t uzid = 0
    cdef int32_t index
    cdef FieldC *fc
    cdef unsigned char k
    cdef bint slots = sp.build == BUILD_SLOTS
    cdef uint64_t seen = 0                  # the fields set by their place (BUILD_ATTRS: new_named_record)
    cdef bint holds_gc = False              # a value the collector knows was stored
    cdef int tracked = 1
    cdef const unsigned char *tag
    cdef dict unknown = None
    cdef bint wide
    if n < 0:
        reader_fail(r, r.pos, f"expected struct {sp.name} (a map), found {wire_type_name(b)}")
    reader_enter(r)
    if slots:
        obj = zp_alloc_record(sp.tp, sp.free_class, &tracked)
    else:
        obj = new_named_record(sp)
    for i in range(n):
        if r.pos >= r.end:                  # earlier entries took more than their two bytes
            reader_truncated(r, r.pos, 2 * (n - i))
        k = r.buf[r.pos]
        fc = NULL
        tag = NULL
        wide = False
        if k <= 0x7f:                       # the common case: a fixint zid
            r.pos += 1
            if k < sp.zid_limit:
                index = sp.zid_index[k]
                if index >= 0:
                    fc = &sp.cfields[index]
            elif sp.sparse_count:
                fc = field_c_by_zid(sp, k)
            zid = k
        elif k == 0xff:
            # the -1 entry: most often exactly this struct's name entry
            if sp.name_entry_len <= r.end - r.pos and zp_same_bytes(r.buf + r.pos, sp.name_entry_c, sp.name_entry_len):
                r.pos += sp.name_entry_len
            else:
                r.pos += 1
                check_struct_name(r, sp)
            continue
        else:
            uzid = 0
            rc = zp_read_struct_key(r.buf + r.pos, r.end - r.pos, &h, &uzid)
            if rc == ZP_KEY_TAG:            # msgp mode: the key is the FieldTagName
                tag = r.buf + r.pos + h.header
                klen = h.n
                fc = field_by_tag(sp, tag, klen, i)
                r.pos += h.header + klen
            elif rc == ZP_KEY_ZID:
                r.pos += h.header
                zid = h.value
                wide = uzid != 0            # beyond int32: no field has such a zid, kept as read
                fc = field_c_by_zid(sp, zid)
            elif rc == ZP_KEY_NAME:
                r.pos += h.header
                check_struct_name(r, sp)
                continue
            else:
                reader_refused(r, rc, &h)
        if fc == NULL:                      # unknown zid (newer schema), Skip field or tag
            trail_zid(&r.trail, zid)
            value_start = r.pos
            skip_value(r)
            if sp.preserve:
                if unknown is None:
                    unknown = {}
                if tag != NULL:
                    key = PyUnicode_DecodeUTF8(<const char *>tag, klen, NULL)
                else:
                    key = PyLong_FromUnsignedLongLong(uzid) if wide else zid
                unknown[key] = new_bytes(r.buf + value_start, r.pos - value_start)
            continue
        trail_field(&r.trail, fc.plan)
        if fc.kind >= K_UINT and fc.kind <= K_INT64 and r.pos < r.end and r.buf[r.pos] != 0xc0:
            value = read_integer(r, <TypePlan>fc.type, r.buf[r.pos])     # read_value's own path, one call less
        elif fc.time_field:
            value = _read_time(r, True)         # out of line: read_struct's frame stays small
            holds_gc = holds_gc or zp_is_gc(value)     # (a Timestamp or GoTime: a Python class)
        elif fc.kind == K_STRING and r.pos < r.end and (r.buf[r.pos] & 0xe0) == 0xa0 \
                and (r.buf[r.pos] & 0x1f) < r.end - r.pos:
            # a fixstr in the input: read_str's path without read_value's dispatch
            value = make_str(r.buf + r.pos + 1, r.buf[r.pos] & 0x1f)
            r.pos += 1 + (r.buf[r.pos] & 0x1f)
        elif fc.kind == K_BOOL and r.pos < r.end and (r.buf[r.pos] == 0xc2 or r.buf[r.pos] == 0xc3):
            value = r.buf[r.pos] == 0xc3
            r.pos += 1
        elif fc.kind == K_F64 and r.pos < r.end and r.buf[r.pos] == 0xcb and r.end - r.pos >= 9:
            value = PyFloat_FromDouble(zp_double_from_bits(zp_load_u64(r.buf + r.pos + 1)))
            r.pos += 9
        elif fc.kind == K_BYTES and r.pos < r.end and zp_read_bin(r.buf + r.pos, r.end - r.pos, &h) == ZP_READ_OK:
            # a bin in the input, whole: read_bin's path without read_value's dispatch
            value = new_bytes(r.buf + r.pos + h.header, h.n)
            r.pos += h.header + h.n
        elif (fc.kind == K_SLICE or fc.kind == K_ARRAY) and r.pos < r.end and r.buf[r.pos] != 0xc0:
            value = read_list(r, <TypePlan>fc.type, r.buf[r.pos])     # read_value's own path, one call less
            holds_gc = holds_gc or zp_is_gc(value)
        elif fc.kind == K_MAP and r.pos < r.end and r.buf[r.pos] != 0xc0:
            value = read_map(r, <TypePlan>fc.type, r.buf[r.pos])
            holds_gc = holds_gc or zp_is_gc(value)
        elif fc.elem != NULL and r.pos < r.end and r.buf[r.pos] != 0xc0:
            # a non-nil *T is read as T without the pointer's own C frame
            # (pointer fields are how structs recurse deeply)
            value = read_value(r, <TypePlan>fc.elem)
            holds_gc = holds_gc or zp_is_gc(value)
        else:
            value = read_value(r, <TypePlan>fc.type)
            holds_gc = holds_gc or zp_is_gc(value)
        # (the branches above that build an int, str, bool, float or bytes hold no such value)
        if slots:
            filled += zp_slot_store(obj, fc.offset, value)
        else:
            store_named(obj, (<FieldPlan>fc.plan).attr, value)
            seen |= (<uint64_t>1) << (fc.index & 63)        # (read only for at most 64 fields)
    trail_leave(&r.trail)
    if slots:
        return finish_slots_struct(r, sp, obj, unknown, filled == sp.field_count, holds_gc, tracked)
    return finish_struct(r, sp, obj, unknown, seen)


# read_struct's record when it has no slots, kept out of line (read_struct's own code,
# which the slots records run through, stays as small as it was):

cdef object new_named_record(StructPlan sp):
    """The record being read: a BUILD_ATTRS instance of at most 64 fields itself (its
    fields set as they are read), else a dict of its fields (finish_struct builds it)."""
    if sp.build == BUILD_ATTRS and sp.field_count <= 64:
        return zp_object_new(sp.tp)
    return {}


cdef int store_named(object obj, str attr, object value) except -1:
    """A field read into new_named_record's record: set on the instance as
    object.__setattr__ sets it, or put in the dict."""
    if PyDict_CheckExact(obj):
        PyDict_SetItem(obj, attr, value)
    else:
        PyObject_GenericSetAttr(obj, attr, <PyObject *>value)
    return 0


cdef extern from "zp_object.h":
    void zp_slot_set_borrowed "zp_slot_set"(object obj, Py_ssize_t offset, PyObject *value) noexcept


# Inlined always (gcc's choice for read_struct's one call follows the size of the whole
# module, which any change elsewhere moves): the end of every slots record's decode.
cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    struct __pyx_t_9zebrapack_5_core_Reader;
    struct __pyx_obj_9zebrapack_5_core_StructPlan;
    static inline PyObject *__pyx_f_9zebrapack_5_core_finish_slots_struct(struct __pyx_t_9zebrapack_5_core_Reader *,
        struct __pyx_obj_9zebrapack_5_core_StructPlan *, PyObject *, PyObject *, int, int, int)
        __attribute__((always_inline));
    #endif
    """


cdef inline object finish_slots_struct(Reader *r, StructPlan sp, object partial, dict unknown, bint complete,
                                bint holds_gc, bint tracked):
    """A BUILD_SLOTS instance: absent fields get their zero value (none when every field
    was read), unknown entries are attached, and a record that holds no value the
    collector knows is left off its lists (_record.pxi); every other one is on them
    before any Python code sees it. tracked: whether it is on them now."""
    cdef FieldC *fc
    cdef Py_ssize_t i
    if not complete:
        for i in range(sp.field_count):
            fc = &sp.cfields[i]
            if zp_slot_get(partial, fc.offset) == NULL:
                if fc.absent_zero != NULL:      # shared: no zero cost, not tracked by the collector
                    zp_slot_set_borrowed(partial, fc.offset, fc.absent_zero)
                    continue
                if (<FieldPlan>fc.plan).zero_cost:
                    claim_zero(r, (<FieldPlan>fc.plan).zero_cost)
                zero = None if fc.time_field else make_zero(<TypePlan>fc.type)
                zp_slot_set(partial, fc.offset, zero)
                holds_gc = holds_gc or zp_is_gc(zero)
    if sp.unknown_offset >= 0:
        zp_slot_set(partial, sp.unknown_offset, unknown)
    if sp.untrackable and not holds_gc:     # never with a __post_init__ (_plan.pxi)
        if tracked:
            PyObject_GC_UnTrack(<PyObject *>partial)
        return partial
    if not tracked:
        PyObject_GC_Track(<PyObject *>partial)
    if sp.post_init is not None:
        sp.post_init(partial)
    return partial


cdef object finish_struct(Reader *r, StructPlan sp, object record, dict unknown, uint64_t seen):
    """A record new_named_record began: a BUILD_ATTRS instance is finished by
    finish_attrs_struct; with a dict of the fields, absent fields get their zero value,
    then cls(**fields) and the unknown entries, or build_attrs_record."""
    cdef FieldPlan fp
    if not PyDict_CheckExact(record):
        return finish_attrs_struct(r, sp, record, unknown, seen)
    cdef dict partial = <dict>record
    if PyDict_GET_SIZE(partial) != len(sp.fields):
        for fp in sp.fields:
            if fp.attr not in partial:
                if fp.zero_cost:
                    claim_zero(r, fp.zero_cost)
                partial[fp.attr] = field_zero(fp)
    if sp.build == BUILD_ATTRS:
        return build_attrs_record(sp, partial, unknown)
    obj = sp.cls(**partial)
    if unknown is not None:
        object.__setattr__(obj, UNKNOWN_ATTR, unknown)
    return obj


cdef object finish_attrs_struct(Reader *r, StructPlan sp, object obj, dict unknown, uint64_t seen):
    """A BUILD_ATTRS instance built as it was read (at most 64 fields; `seen` the fields
    set, by their place): absent fields get their zero value, then the unknown entries
    when the schema keeps them and the class's __post_init__."""
    cdef Py_ssize_t i
    cdef FieldPlan fp
    if seen != (<uint64_t>-1 if sp.field_count == 64 else ((<uint64_t>1) << sp.field_count) - 1):
        for i in range(sp.field_count):
            if not (seen >> i) & 1:
                fp = <FieldPlan>sp.cfields[i].plan
                if fp.zero_cost:
                    claim_zero(r, fp.zero_cost)
                zero = field_zero(fp)
                PyObject_GenericSetAttr(obj, fp.attr, <PyObject *>zero)
    return attrs_record_done(sp, obj, unknown)


cdef object build_attrs_record(StructPlan sp, dict fields, dict unknown):
    """A BUILD_ATTRS instance of the fields (every one present): object.__new__(cls), each
    field set in the schema's order as object.__setattr__ sets it (as a dataclass's
    __init__ sets a frozen one's: the instances of a class share their dict's keys when
    set in one order), the unknown entries when the schema keeps them, then the class's
    __post_init__."""
    cdef FieldPlan fp
    obj = zp_object_new(<PyTypeObject *>sp.cls)
    for fp in sp.fields:
        PyObject_GenericSetAttr(obj, fp.attr, PyDict_GetItem(fields, fp.attr))
    return attrs_record_done(sp, obj, unknown)


cdef inline object attrs_record_done(StructPlan sp, object obj, dict unknown):
    """A BUILD_ATTRS instance whose fields are all set: the unknown entries when the schema
    keeps them, then the class's __post_init__."""
    if sp.preserve:
        PyObject_GenericSetAttr(obj, UNKNOWN_ATTR, <PyObject *>unknown)
    if sp.post_init is not None:
        sp.post_init(obj)
    return obj


cdef StructPlan find_plan(tuple plans, const unsigned char *name, Py_ssize_t n):
    """The struct plan called name (UTF-8 bytes), or None."""
    cdef StructPlan sp
    for item in plans:
        sp = <StructPlan>item
        if len(sp.name_utf8) == n and memcmp(<const char *>sp.name_utf8, name, n) == 0:
            return sp
    return None


cdef inline bint names_plan(Reader *r, PyObject *sp) noexcept:
    """Whether the map at r.pos (a fixmap whose first key byte, 0xff, is in the input)
    starts with the name entry of plan sp exactly as written."""
    cdef Py_ssize_t n = (<StructPlan>sp).name_entry_len
    # the str header byte (the name's length) first: most plans differ there
    return n <= r.end - r.pos - 1 and r.buf[r.pos + 2] == <unsigned char>(<StructPlan>sp).name_entry_c[1] \
        and zp_same_bytes(r.buf + r.pos + 1, (<StructPlan>sp).name_entry_c, n)


cdef int peek_struct_plan(Reader *r, PyObject **found) except -1:
    """found: the plan named by the -1 entry of the map at r.pos (borrowed from r.plans;
    nothing consumed), or NULL if absent or unknown (zp_peek_struct_name).

    Only the map header and the first entry are looked at: the entry count is
    checked by read_struct, once the struct (and so the error path's root) is known."""
    cdef zp_head h
    cdef int rc
    cdef PyObject *item
    cdef Py_ssize_t i
    cdef StructPlan sp
    found[0] = NULL
    if (r.buf[r.pos] & 0xf0) == 0x80 and r.buf[r.pos] != 0x80 and r.pos + 1 < r.end and r.buf[r.pos + 1] == 0xff:
        # the common case: a fixint -1 and a plan's name entry exactly as written
        for i in range(PyTuple_GET_SIZE(<tuple>r.plans)):
            item = PyTuple_GET_ITEM(<tuple>r.plans, i)
            if names_plan(r, item):
                found[0] = item
                return 0
    rc = zp_peek_struct_name(r.buf + r.pos, r.end - r.pos, &h)
    if rc == ZP_READ_SHORT:
        reader_refused(r, rc, &h)
    if rc == ZP_READ_OK:
        sp = find_plan(<tuple>r.plans, r.buf + r.pos + h.header, h.n)
        if sp is not None:
            found[0] = <PyObject *>sp
    return 0


cdef object read_iface(Reader *r, TypePlan t, unsigned char b):
    """An interface-typed field: the concrete struct is named by the -1 entry."""
    cdef PyObject *sp
    if not zp_is_map(b):
        reader_type_error(r, t.go, b)
    peek_struct_plan(r, &sp)
    if sp == NULL:
        fail_unnamed_iface(r, t)
    return read_struct(r, <StructPlan>sp, b)


cdef int fail_unnamed_iface(Reader *r, TypePlan t) except -1:
    """The map at r.pos names no struct of the schema: say why, at the byte that does."""
    cdef Py_ssize_t start = r.pos, header = 0, n
    cdef zp_number key
    if map_count(r) > 0:
        start = r.pos
        if read_wire_int(r, &key) != ZP_NUMBER_INT or <int64_t>key.bits != -1:
            return reader_fail(r, start, f"a {t.go} value must name a struct of the schema (key -1 first), "
                                         f"found {wire_type_name(r.buf[start])}")
        need(r, 1)
        n = str_length(r, &header)
        if n < 0:
            return reader_fail(r, r.pos, f"struct name (key -1) must be a str, found {wire_type_name(r.buf[r.pos])}")
        name = new_bytes(r.buf + r.pos + header, n)
        return reader_fail(r, r.pos, f"a {t.go} value must name a struct of the schema, "
                                     f"not {name.decode('utf-8', 'replace')!r}")
    return reader_fail(r, start, f"a {t.go} value must name a struct of the schema (key -1)")


# -- interface{}: dynamic values ------------------------------------------------

# In line always, in read_any and in its loops over elements and map values: gcc kept
# it out of line, a call for every scalar of an interface{} list or map.
cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    struct __pyx_t_9zebrapack_5_core_Reader;
    static inline PyObject *__pyx_f_9zebrapack_5_core_read_any_scalar(struct __pyx_t_9zebrapack_5_core_Reader *,
        unsigned char) __attribute__((always_inline));
    static inline PyObject *__pyx_f_9zebrapack_5_core_read_any_item(struct __pyx_t_9zebrapack_5_core_Reader *)
        __attribute__((always_inline));
    #endif
    """


cdef inline object read_any_scalar(Reader *r, unsigned char b):
    """The value at r.pos (first byte b, in the input) when it is neither an array nor a
    map: fixints and fixstrs by range, 0xc0..0xdb by a switch. The common ones whose bytes
    are all in the input are made here, the rest through pointers (below): no local of
    theirs in the frame of read_any, one a nesting level."""
    cdef Py_ssize_t n
    if b <= 0x7f or b >= 0xe0:          # positive and negative fixint
        r.pos += 1
        return PyLong_FromLongLong(<int8_t>b)
    if b >= 0xc0:
        if b == 0xc0:
            r.pos += 1
            return None
        elif b == 0xc2 or b == 0xc3:
            r.pos += 1
            return b == 0xc3
        elif b == 0xcb:
            if r.end - r.pos > 8:
                r.pos += 9
                return PyFloat_FromDouble(zp_double_from_bits(zp_load_u64(r.buf + r.pos - 8)))
            return _read_any_number(r)
        elif b == 0xd0 or b == 0xd1 or b == 0xd2 or b == 0xd3:
            n = 1 << (b & 3)
            if n < r.end - r.pos:
                r.pos += 1 + n
                return PyLong_FromLongLong(zp_load_int_family(b, r.buf + r.pos - n, r.end - r.pos + n))
            return _read_any_number(r)
        elif b == 0xca or b == 0xcc or b == 0xcd or b == 0xce or b == 0xcf:
            return _read_any_number(r)
        elif b == 0xd9 or b == 0xda or b == 0xdb:
            return _read_any_str(r)
        elif b == 0xc4 or b == 0xc5 or b == 0xc6:
            return _read_any_bin(r)
        elif b == 0xc7 or b == 0xc8 or b == 0xc9 or b == 0xd4 or b == 0xd5 or b == 0xd6 or b == 0xd7 or b == 0xd8:
            return _read_any_ext(r)
        return reader_fail(r, r.pos, "0xc1 is never used in msgpack")
    n = b & 0x1f                        # fixstr
    if n < r.end - r.pos:
        value = make_str(r.buf + r.pos + 1, n)
        r.pos += 1 + n
        return value
    return _read_any_str(r)


cdef inline object read_any_item(Reader *r):
    """An element of an array or a value of a map in read_any: a scalar in line, without
    a call per element; an array or a map (or the input's end) by read_any, one frame a level."""
    if r.pos < r.end and not zp_is_container(r.buf[r.pos]):
        return read_any_scalar(r, r.buf[r.pos])
    return read_any(r)


cdef object read_any(Reader *r):
    # Lists and maps are read here, not through read_list/read_map: the loop
    # recursing into read_any directly keeps each nesting level's C frames small.
    cdef unsigned char b
    cdef Py_ssize_t n, i
    cdef PyObject *sp
    cdef PyObject *cached
    cdef KeyProbe probe
    if r.pos >= r.end:
        reader_truncated(r, r.pos, 1)
    b = r.buf[r.pos]
    if not zp_is_container(b):
        return read_any_scalar(r, b)
    if zp_is_array(b):
        n = array_count(r)
        result = PyList_New(n)
        reader_enter(r)
        for i in range(n):
            trail_index(&r.trail, i)
            item = read_any_item(r)
            Py_INCREF(item)
            PyList_SET_ITEM(result, i, item)
        trail_leave(&r.trail)
        return result
    # a struct of the schema, named on the wire (not when the first key is a str)
    if not ((b & 0xf0) == 0x80 and (b == 0x80 or r.pos + 1 < r.end and (r.buf[r.pos + 1] & 0xe0) == 0xa0)):
        peek_struct_plan(r, &sp)
        if sp != NULL:
            return read_struct(r, <StructPlan>sp, b)
    n = map_count(r)
    result = {}
    reader_enter(r)
    for i in range(n):
        trail_key_reading(&r.trail)
        if r.pos < r.end and (r.buf[r.pos] & 0xe0) == 0xa0:
            cached = cached_fixstr_key(r, &probe)
            key = <object>cached if cached != NULL else read_fixstr_key(r, &probe)
        elif r.strict and not is_any_map_key(r):
            fail_any_map_key(r)
        elif r.pos < r.end and r.buf[r.pos] == 0xc0:
            r.pos += 1              # Go reads a nil key as "" (msgp's ReadMapKeyZC)
            key = ""
        else:
            key = read_any(r)
        trail_key(&r.trail, key)
        PyDict_SetItem(result, key, read_any_item(r))
    trail_map_done(&r.trail)
    return result


# Kept out of read_any, called through pointers that the C compiler cannot inline:
# each nesting level of interface{} values is a read_any frame, and building these
# objects there would make every frame bigger (see test_limits_depth).

cdef object go_uint64(uint64_t value):
    return zp_int_subtype_u64(<PyTypeObject *>_GoUint64, value)


cdef object go_float32(uint32_t bits):
    return zp_float_subtype(<PyTypeObject *>_GoFloat32, zp_double_from_f32_bits(bits))


cdef inline bint is_any_map_key(Reader *r) noexcept:
    """Go reads a map inside interface{} as map[string]interface{}: keys str, bin (or nil)."""
    return r.pos >= r.end or zp_any_key_ok(r.buf[r.pos])     # (read_any reports a truncation)


cdef int fail_any_map_key(Reader *r) except -1:
    cdef zp_head h
    memset(&h, 0, sizeof(h))
    return reader_refused(r, ZP_ANY_KEY, &h)


cdef object read_any_ext(Reader *r):
    """An ext inside interface{}, as Go's reader takes it by its type: 5 is time.Time
    (ext8, 12 bytes), 3 complex64 (fixext8), 4 complex128 (fixext16); any other type,
    the spec's timestamp -1 included, a raw extension (Ext). Ext 3, 4 or 5 of another
    shape is an error to Go: strict rejects it, lenient reading keeps it as an Ext."""
    cdef Py_ssize_t header = 0
    cdef Py_ssize_t n = ext_length(r, &header)
    cdef unsigned char b = r.buf[r.pos]
    cdef int8_t code = <int8_t>r.buf[r.pos + header - 1]
    cdef const unsigned char *data = r.buf + r.pos + header
    if code == 5 and b == 0xc7 and n == 12:
        return read_time(r, False)
    if code == 3 and b == 0xd7:
        r.pos += header + n
        return _complex_new(_GoComplex64, zp_double_from_f32_bits(zp_load_u32(data)),
                            zp_double_from_f32_bits(zp_load_u32(data + 4)))
    if code == 4 and b == 0xd8:
        r.pos += header + n
        return PyComplex_FromDoubles(zp_double_from_bits(zp_load_u64(data)),
                                     zp_double_from_bits(zp_load_u64(data + 8)))
    if r.strict and not zp_any_ext_ok(b, code, n):
        fail_any_ext(r, header, n)
    value = new_bytes(data, n)
    r.pos += header + n
    return _Ext(code, value)


cdef object read_any_number(Reader *r):
    """A number of read_any's general path, as Go reads numbers into interface{} (msgp.Number's
    families): float32, the uint family, or a float64 or int the input cuts short."""
    cdef zp_number number
    cdef int64_t n = zp_load_number(r.buf + r.pos, r.end - r.pos, &number)
    if n < 0:
        reader_truncated(r, r.pos, -n)
    r.pos += n
    return number_value(&number)


cdef object read_any_bin(Reader *r):
    """A bin8, bin16 or bin32 inside interface{}: bytes."""
    cdef Py_ssize_t header = 0
    cdef Py_ssize_t n = bin_length(r, &header)
    value = new_bytes(r.buf + r.pos + header, n)
    r.pos += header + n
    return value


cdef object read_any_str(Reader *r):
    """A str of read_any's general path: str8, str16, str32, or a fixstr the input cuts short."""
    cdef Py_ssize_t header = 0
    cdef Py_ssize_t n = str_length(r, &header)
    value = make_str(r.buf + r.pos + header, n)
    r.pos += header + n
    return value


cdef object (*_go_uint64)(uint64_t)
cdef object (*_go_float32)(uint32_t)
cdef object (*_read_any_bin)(Reader *)
cdef object (*_read_any_ext)(Reader *)
cdef object (*_read_any_number)(Reader *)
cdef object (*_read_any_str)(Reader *)
_go_uint64 = go_uint64
_go_float32 = go_float32
_read_any_bin = read_any_bin
_read_any_ext = read_any_ext
_read_any_number = read_any_number
_read_any_str = read_any_str

# Go's shapes of ext 3, 4 and 5 (the encoder's messages; zp_read_message spells the decoder's)
cdef tuple _GO_EXT_SHAPES = ("complex64 (fixext8)", "complex128 (fixext16)", "time.Time (ext8, 12 bytes)")


cdef int fail_any_ext(Reader *r, Py_ssize_t header, Py_ssize_t n) except -1:
    cdef zp_head h
    memset(&h, 0, sizeof(h))
    h.header = header
    h.n = n
    h.code = <int8_t>r.buf[r.pos + header - 1]
    return reader_refused(r, ZP_ANY_EXT, &h)


# -- msgp.Raw, msgp.Number -------------------------------------------------------

cdef object read_raw(Reader *r):
    """msgp.Raw: the next value's own bytes, stepped over as an unknown field's (a nil,
    read_value's zero, is b"")."""
    cdef Py_ssize_t start = r.pos
    skip_value(r)
    return new_bytes(r.buf + start, r.pos - start)


cdef object read_number(Reader *r, TypePlan t, unsigned char b):
    """msgp.Number: in its wire family (zp_load_number), as interface{} numbers are."""
    cdef zp_number number
    cdef Py_ssize_t size = zp_load_number(r.buf + r.pos, r.end - r.pos, &number)
    if size < 0:
        reader_truncated(r, r.pos, -size)
    if size == 0:
        reader_type_error(r, t.go + " (an integer or a float)", b)
    r.pos += size
    return number_value(&number)


cdef inline object number_value(const zp_number *number):
    """A number read by zp_load_number: an int, a GoUint64, a GoFloat32 or a float."""
    if number.family == ZP_NUMBER_INT:
        return PyLong_FromLongLong(<int64_t>number.bits)
    if number.family == ZP_NUMBER_UINT:         # Go reads the uint family as uint64
        return _go_uint64(number.bits)
    if number.family == ZP_NUMBER_F32:          # and float32 as float32
        return _go_float32(<uint32_t>number.bits)
    return PyFloat_FromDouble(zp_double_from_bits(number.bits))


cdef object read_unusable(Reader *r, TypePlan t):
    """A field whose type zebrapack cannot represent (a nil there, read_value's zero, is None)."""
    return reader_fail(r, r.pos, f"the record holds a value of {t.go}, which zebrapack cannot represent: {t.reason}")

# Called through pointers, out of read_value (whose size decides what the C compiler
# inlines into the readers of every kind), as read_any's helpers above.
cdef object (*_read_raw)(Reader *)
cdef object (*_read_number)(Reader *, TypePlan, unsigned char)
cdef object (*_read_unusable)(Reader *, TypePlan)
_read_raw = read_raw
_read_number = read_number
_read_unusable = read_unusable


# -- skipping ---------------------------------------------------------------------

cdef int skip_value(Reader *r) except -1:
    """Step over one value of any type (unknown fields), bounded as decoding is (zp_skip.h)."""
    cdef Py_ssize_t size
    if r.pos < r.end:
        size = zp_skip_scalar_size(r.buf + r.pos, r.end - r.pos)
        if size:
            r.pos += size
            return 0
    return _skip_nested(r)


cdef int skip_nested(Reader *r) except -1:
    cdef zp_skipper s
    cdef zp_skip_level levels[ZP_SKIP_INLINE]
    cdef int rc
    zp_skip_init(&s, r.buf, r.pos, r.end, levels, ZP_SKIP_INLINE, trail_levels_left(&r.trail), r.values_left)
    rc = zp_skip(&s)
    r.pos = s.pos
    r.values_left = s.values_left
    if rc != ZP_SKIP_DONE:
        skip_failed(r, &s, rc)
    zp_skip_release(&s)
    return 0

# Called through a pointer: kept out of line, skip_value's fast path stays small.
cdef int (*_skip_nested)(Reader *) except -1
_skip_nested = skip_nested


cdef int skip_failed(Reader *r, zp_skipper *s, int rc) except -1:
    """Raise the DecodeError of a failed skip, its path going through the skipped levels."""
    cdef char message[READ_MESSAGE_SIZE]
    cdef Py_ssize_t depth = r.trail.guard.depth
    zp_skip_message(message, sizeof(message), rc, s, r.end, r.trail.guard.max_depth, depth + s.level)
    if rc == ZP_SKIP_TRUNCATED or rc == ZP_SKIP_TOO_MANY:
        r.truncated = True
    if trail_reserve(&r.trail, depth + s.level):
        zp_steps_skipped(r.trail.entries + depth, s)
        r.trail.guard.depth += s.level
    zp_skip_release(s)
    raise _DecodeError(message.decode("utf-8"), trail_path(&r.trail), r.base + s.at)


# -- values -----------------------------------------------------------------------

cdef object read_value(Reader *r, TypePlan t):
    cdef unsigned char b
    cdef int kind = t.kind
    if r.pos >= r.end:
        reader_truncated(r, r.pos, 1)
    b = r.buf[r.pos]
    if b == 0xc0:                       # nil reads as the zero value
        if kind == K_NUMBER and r.strict:   # but for Go's msgp.Number, which reads numbers only
            reader_type_error(r, t.go + " (strict)", b)
        r.pos += 1
        if t.zero_cost:
            claim_zero(r, t.zero_cost)
        return make_zero(t)
    if kind == K_STRING:
        return read_str(r, t, b)
    if kind == K_INT or kind == K_INT8 or kind == K_INT16 or kind == K_INT32 or kind == K_INT64:
        return read_integer(r, t, b)
    if kind == K_UINT or kind == K_UINT8 or kind == K_UINT16 or kind == K_UINT32 or kind == K_UINT64 or kind == K_BYTE:
        return read_integer(r, t, b)
    if kind == K_F64 or kind == K_F32:
        return read_float(r, t, b)
    if kind == K_BOOL:
        return read_bool(r, t, b)
    if kind == K_STRUCT:
        return read_struct(r, t.struct_plan, b)
    if kind == K_SLICE or kind == K_ARRAY:
        return read_list(r, t, b)
    if kind == K_MAP:
        return read_map(r, t, b)
    if kind == K_POINTER:
        return read_value(r, t.elem)
    if kind == K_BYTES or kind == K_BYTEARRAY:
        return read_bin(r, t, b)
    if kind == K_TIME:
        return read_time(r, False)
    if kind == K_INTF:
        return read_any(r)
    if kind == K_IFACE:
        return read_iface(r, t, b)
    if kind == K_C64 or kind == K_C128:
        return read_complex(r, t, b)
    if kind == K_EXT:
        return read_ext(r, t, b)
    if kind == K_RAW:
        return _read_raw(r)
    if kind == K_NUMBER:
        return _read_number(r, t, b)
    if kind == K_UNUSABLE:
        return _read_unusable(r, t)
    raise AssertionError(f"unknown plan kind {kind}")
