# The encoder: writes by the declared type, straight into a growing buffer
# (a private bytes object, or the caller's bytearray for encode_into), and
# refuses every value the Go reader would reject.

cdef struct Writer:
    unsigned char *data
    Py_ssize_t pos
    Py_ssize_t cap
    PyObject *out_bytes         # owned bytes object being filled (encode), or NULL while
                                # encode fills its stack buffer
    PyObject *out_array         # borrowed bytearray target (encode_into)
    Py_buffer view              # export held on out_array so that nothing else resizes it
    bint has_view
    bint msgp                   # msgp mode: string keys, no -1 names, only omitempty omitted
    bint structnames
    bint fixext                 # ext headers as the reference's EncodeMsg writes them (zp_store_ext_header)
    PyObject *by_class          # borrowed dict: class -> StructPlan
    Trail trail


cdef extern from "zp_wire.h":
    void zp_copy_short(unsigned char *dst, const void *src, Py_ssize_t n) noexcept
    unsigned char *zp_copy_words(unsigned char *dst, const unsigned char *src, Py_ssize_t n) noexcept nogil


cdef int writer_fail(Writer *w, str message) except -1:
    raise _EncodeError(message, trail_path(&w.trail), w.pos)


cdef int writer_type_error(Writer *w, TypePlan t, object value, str detail=None) except -1:
    text = f"expected {t.go}, got {type(value).__name__} {_short_repr(value)}"
    if detail:
        text += f" ({detail})"
    return writer_fail(w, text)


cdef inline int writer_enter(Writer *w) except -1:
    if not trail_enter(&w.trail):
        writer_too_deep(w)
    return 0


cdef int writer_too_deep(Writer *w) except -1:
    # out of line: writer_enter, called for every container, stays small enough to inline
    return writer_fail(w, trail_too_deep(&w.trail) + " (does a value contain itself?)")


# -- the buffer ---------------------------------------------------------------

cdef enum:
    SMALL_RECORD = 512      # encode writes records up to this size on the C stack first
    SIZE_SLACK = 16         # room a buffer sized for a record has past it: the writers reserve
                            # a value's largest form before writing it (at most 12 bytes more
                            # than it takes: a map entry's str8 key and int, reserved as a str32
                            # and an int64), so that a record of the size expected does not
                            # grow its buffer near the end


cdef inline Py_ssize_t record_slack(StructPlan sp) noexcept:
    """The room a buffer sized for the struct's last record has past it: SIZE_SLACK, and
    for a flat plan its fixed room (StructPlan.flat_room), which write_flat_record checks
    before it stores the fields without a test each: a record of the size expected then
    takes that loop rather than write_struct's."""
    return SIZE_SLACK + sp.flat_room if sp.flat else SIZE_SLACK


cdef int writer_grow(Writer *w, Py_ssize_t n) except -1:
    """Room for n more bytes: the capacity at least doubled, and half again what is
    needed now (a large value reserved for is followed by more fields), so that a
    record of any size is moved a bounded number of times. Only the bytes written are
    moved: a bytes object's realloc would copy its whole capacity when it moves."""
    cdef Py_ssize_t needed = w.pos + n
    cdef Py_ssize_t cap = w.cap * 2
    if cap < needed + (needed >> 1):
        cap = needed + (needed >> 1)
    if w.out_array == NULL and (w.out_bytes == NULL or w.pos < w.cap >> 1):
        # encode's stack buffer, or a bytes object mostly empty (a large value came
        # early): its bytes into a new one
        out = PyBytes_FromStringAndSize(NULL, cap)
        memcpy(PyBytes_AS_STRING(out), w.data, w.pos)
        Py_XDECREF(w.out_bytes)
        Py_INCREF(out)
        w.out_bytes = <PyObject *>out
        del out
        w.data = <unsigned char *>PyBytes_AS_STRING(<object>w.out_bytes)
    elif w.out_array == NULL:
        _PyBytes_Resize(&w.out_bytes, cap)
        w.data = <unsigned char *>PyBytes_AS_STRING(<object>w.out_bytes)
    else:
        # Our own resize: drop the export, resize, take it again. No Python
        # code runs in between.
        PyBuffer_Release(&w.view)
        w.has_view = False
        PyByteArray_Resize(<object>w.out_array, cap)
        PyObject_GetBuffer(<object>w.out_array, &w.view, PyBUF_SIMPLE)
        w.has_view = True
        w.data = <unsigned char *>w.view.buf
    w.cap = cap
    return 0


cdef inline int ensure(Writer *w, Py_ssize_t n) except -1:
    if n > w.cap - w.pos:
        writer_grow(w, n)
    return 0


cdef inline int put_byte(Writer *w, unsigned char b) except -1:
    if w.pos >= w.cap:
        writer_grow(w, 1)
    w.data[w.pos] = b
    w.pos += 1
    return 0


cdef inline int put_raw(Writer *w, const void *p, Py_ssize_t n) except -1:
    ensure(w, n)
    zp_copy(w.data + w.pos, p, n)
    w.pos += n
    return 0


cdef inline int put_bytes_object(Writer *w, bytes data) except -1:
    return put_raw(w, PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data))


cdef int put_signed(Writer *w, int64_t v) except -1:
    ensure(w, 9)
    w.pos += zp_store_signed(w.data + w.pos, v)
    return 0


cdef int put_unsigned(Writer *w, uint64_t v) except -1:
    ensure(w, 9)
    w.pos += zp_store_unsigned(w.data + w.pos, v)
    return 0


cdef int put_header(Writer *w, int family, Py_ssize_t n) except -1:
    """A str, bin, array or map header (zp_store_header), within msgpack's limit."""
    if n > ZP_MAX_LENGTH32:
        return writer_fail(w, f"{n} elements or bytes exceed msgpack's 2**32-1 limit")
    ensure(w, 5)
    w.pos += zp_store_header(w.data + w.pos, family, n)
    return 0


cdef inline int put_blob(Writer *w, int family, const void *data, Py_ssize_t n) except -1:
    """A str (ZP_STR, n UTF-8 bytes) or bin (ZP_BIN): header and data under one capacity check."""
    if n > ZP_MAX_LENGTH32:                 # put_header raises msgpack's limit
        return put_header(w, family, n)
    if n + 5 > w.cap - w.pos:
        writer_grow(w, n + 5)
    w.pos += zp_store_blob(w.data + w.pos, family, data, n)
    return 0


cdef inline int put_str(Writer *w, const void *text, Py_ssize_t n) except -1:
    return put_blob(w, ZP_STR, text, n)


cdef inline int put_array_header(Writer *w, Py_ssize_t n) except -1:
    if n <= 15 and w.pos < w.cap:           # the fix form in line: most containers are short
        w.pos += zp_store_header(w.data + w.pos, ZP_ARRAY, n)
        return 0
    return put_header(w, ZP_ARRAY, n)


cdef inline int put_map_header(Writer *w, Py_ssize_t n) except -1:
    if n <= 15 and w.pos < w.cap:
        w.pos += zp_store_header(w.data + w.pos, ZP_MAP, n)
        return 0
    return put_header(w, ZP_MAP, n)


cdef inline int put_f64(Writer *w, double d) except -1:
    ensure(w, 9)
    w.pos += zp_store_f64(w.data + w.pos, d)
    return 0


cdef int put_f32(Writer *w, TypePlan t, double d, object value) except -1:
    cdef uint32_t bits = 0
    if zp_f32_bits_from_double(d, &bits) < 0:
        writer_fail(w, f"{_short_repr(value)} overflows {t.go}")
    ensure(w, 5)
    w.pos += zp_store_f32_bits(w.data + w.pos, bits)
    return 0


cdef int put_time(Writer *w, int64_t seconds, uint32_t nanos) except -1:
    ensure(w, 15)
    w.pos += zp_store_time(w.data + w.pos, seconds, nanos)
    return 0


# -- exact values, read without a call --------------------------------------------
# The fast paths (list runs, inline fields, interface{} atoms) take a value of exactly
# a built-in type through these; each says False / NULL for a value it does not take,
# and the general path (write_value) then writes it or raises, with its path.

cdef extern from *:
    """
    /* A str's UTF-8 as PyUnicode_AsUTF8AndSize gives it (and caches in the str), or
       NULL with no error set: the caller's general path asks again and raises. */
    static const char *zp_str_utf8_or_null(PyObject *o, Py_ssize_t *n) {
        const char *text = PyUnicode_AsUTF8AndSize(o, n);
        if (text == NULL)
            PyErr_Clear();
        return text;
    }

    /* An exact datetime whose tzinfo is utc (datetime.timezone.utc) as Unix seconds and
       nanoseconds, as datetime_to_unix computes them: 1; 0 for any other value. Its fields
       read from datetime.h's public layout (as zp_new_datetime writes them: the year
       big-endian in data[0..1], the second in data[6] and the microsecond big-endian in
       data[7..9], read with it as one word). */
    ZP_ALWAYS_INLINE int zp_utc_datetime_unix(PyObject *o, PyObject *utc, int64_t *seconds, uint32_t *nanos) {
        const unsigned char *data;
        uint32_t second_micro;
        if (Py_TYPE(o) != PyDateTimeAPI->DateTimeType || ZP_UNLIKELY(!((PyDateTime_DateTime *)o)->hastzinfo)
            || ((PyDateTime_DateTime *)o)->tzinfo != utc)
            return 0;
        data = ((PyDateTime_DateTime *)o)->data;
        second_micro = zp_load_u32(data + 6);
        *seconds = zp_days_from_civil(zp_load_u16(data), data[2], data[3]) * 86400
                   + (int64_t)(data[4] * 3600u + data[5] * 60u + (second_micro >> 24));
        *nanos = (second_micro & 0xffffffu) * 1000u;
        return 1;
    }
    """
    const char *zp_str_utf8_or_null(object o, Py_ssize_t *n) noexcept
    bint zp_utc_datetime_unix(PyObject *o, PyObject *utc, int64_t *seconds, uint32_t *nanos) noexcept


cdef inline const char *exact_str_utf8(object s, Py_ssize_t *n) noexcept:
    """The UTF-8 of an exact str: what CPython holds (zp_str_utf8_held: an ASCII str's
    own characters, a non-ASCII one's cached UTF-8), else encoded by CPython, which
    caches it in the str as msgspec's encoder has it do; NULL for a str that has no
    UTF-8 (a surrogate: write_str raises that)."""
    cdef Py_ssize_t encoded
    cdef const char *text = zp_str_utf8_held(s, n)
    if text != NULL:
        return text
    # through a local of its own: n, never given to a call, stays in a register
    text = zp_str_utf8_or_null(s, &encoded)
    n[0] = encoded
    return text


cdef inline bint int_fits(object value, bint is_signed, int64_t imin, int64_t imax, uint64_t umax,
                          uint64_t *bits) noexcept:
    """Whether an int (any PyLong) is within an integer type's range (imin..imax for a
    signed one, 0..umax for an unsigned one), read from its digits; its value then in
    bits, an int64's two's complement for a signed type (zp_store_int)."""
    cdef int64_t sv
    cdef uint64_t uv
    if is_signed:
        if not zp_long_i64(value, &sv) or sv < imin or sv > imax:
            return False
        bits[0] = <uint64_t>sv
        return True
    if not zp_long_u64(value, &uv) or uv > umax:
        return False
    bits[0] = uv
    return True


# -- scalars ----------------------------------------------------------------------
# Each returns 1 when it wrote the value, 0 when the value is the zero of its
# type and `omit` asks for zero values to be left out (the caller then drops the key).

cdef object as_integer(Writer *w, TypePlan t, object value):
    """The int of an integer-like value; bool, float and the rest are refused."""
    if PyBool_Check(value):
        writer_type_error(w, t, value, "bool is not an integer here")
    if value is None:
        writer_type_error(w, t, value, "None is only allowed for pointers and interfaces")
    if PyFloat_Check(value) or PyUnicode_Check(value) or not hasattr(type(value), "__index__"):
        writer_type_error(w, t, value)
    return value.__index__()


cdef int write_integer(Writer *w, TypePlan t, object value, bint omit) except -1:
    cdef uint64_t bits
    if not PyLong_Check(value) or PyBool_Check(value):
        value = as_integer(w, t, value)
    if not int_fits(value, t.is_signed, t.imin, t.imax, t.umax, &bits):
        return _integer_range_error(w, t, value)
    if bits == 0 and omit:
        return 0
    ensure(w, 9)
    w.pos += zp_store_int(w.data + w.pos, t.is_signed, bits)
    return 1


cdef int _integer_range_error(Writer *w, TypePlan t, object value) except -1:
    if t.is_signed:
        bounds = f"{t.imin}..{t.imax}"
    else:
        bounds = f"0..{t.umax}"
    return writer_fail(w, f"{_short_repr(value)} is outside the range of {t.go} ({bounds})")


cdef double as_double(Writer *w, TypePlan t, object value) except? -1.0:
    """A float field's value: a float, or an int that is exactly a float."""
    cdef int overflow = 0
    cdef long long sv
    if PyFloat_Check(value):
        return PyFloat_AS_DOUBLE(value)
    if PyLong_Check(value) and not PyBool_Check(value):
        sv = PyLong_AsLongLongAndOverflow(value, &overflow)
        if overflow == 0 and zp_i64_fits_double(sv):
            return <double>sv
        if overflow != 0 and value.bit_length() <= 1024 and float(value) == value:
            return float(value)
        writer_fail(w, f"{_short_repr(value)} is not exactly a {t.go}")
    if PyBool_Check(value):
        writer_type_error(w, t, value, "bool is not a number here")
    writer_type_error(w, t, value)
    return 0.0


cdef int write_float(Writer *w, TypePlan t, object value, bint omit) except -1:
    cdef double d = as_double(w, t, value)
    if omit and d == 0.0 and not signbit(d):    # -0.0 is written: only +0.0 is empty
        return 0
    if t.kind == K_F64:
        put_f64(w, d)
    else:
        if not PyFloat_Check(value) and not zp_double_fits_f32(d):
            writer_fail(w, f"{_short_repr(value)} is not exactly a float32")
        put_f32(w, t, d, value)
    return 1


cdef int write_complex(Writer *w, TypePlan t, object value, bint omit) except -1:
    cdef double re, im
    cdef uint32_t real_bits = 0, imag_bits = 0
    if PyComplex_Check(value):
        re = PyComplex_RealAsDouble(value)
        im = PyComplex_ImagAsDouble(value)
    elif PyFloat_Check(value) or (PyLong_Check(value) and not PyBool_Check(value)):
        re = as_double(w, t, value)
        im = 0.0
    else:
        return writer_type_error(w, t, value)
    if omit and re == 0.0 and im == 0.0 and not signbit(re) and not signbit(im):
        return 0
    if t.kind == K_C128:
        ensure(w, 18)
        w.pos += zp_store_complex128(w.data + w.pos, re, im)
        return 1
    if zp_f32_bits_from_double(re, &real_bits) < 0:
        writer_fail(w, f"real part of {value!r} overflows float32")
    if zp_f32_bits_from_double(im, &imag_bits) < 0:
        writer_fail(w, f"imaginary part of {value!r} overflows float32")
    ensure(w, 10)
    w.pos += zp_store_complex64(w.data + w.pos, real_bits, imag_bits)
    return 1


cdef int write_str(Writer *w, TypePlan t, object value, bint omit) except -1:
    cdef Py_ssize_t n
    cdef const char *text
    if not PyUnicode_Check(value):
        if PyBytes_Check(value) or PyByteArray_Check(value):
            return writer_type_error(w, t, value, "bytes where a string is declared")
        return writer_type_error(w, t, value)
    text = zp_str_utf8_held(value, &n)
    if text == NULL:
        text = PyUnicode_AsUTF8AndSize(value, &n)
    if n == 0 and omit:
        return 0
    put_str(w, text, n)
    return 1


cdef int write_bin(Writer *w, TypePlan t, object value, bint omit) except -1:
    cdef Py_buffer view
    cdef Py_ssize_t n
    if PyBytes_Check(value):
        n = PyBytes_GET_SIZE(value)
        if t.kind == K_BYTEARRAY and n != t.length:
            return writer_fail(w, f"expected {t.go}: {t.length} bytes, got {n}")
        if n == 0 and omit:
            return 0
        put_blob(w, ZP_BIN, PyBytes_AS_STRING(value), n)
        return 1
    if PyUnicode_Check(value):
        return writer_type_error(w, t, value, "a string where bytes are declared")
    if not (PyByteArray_Check(value) or isinstance(value, memoryview)):
        return writer_type_error(w, t, value)
    PyObject_GetBuffer(value, &view, PyBUF_SIMPLE)
    try:
        n = view.len
        if t.kind == K_BYTEARRAY and n != t.length:
            return writer_fail(w, f"expected {t.go}: {t.length} bytes, got {n}")
        if n == 0 and omit:
            return 0
        put_blob(w, ZP_BIN, view.buf, n)
        return 1
    finally:
        PyBuffer_Release(&view)


cdef int write_bool(Writer *w, TypePlan t, object value, bint omit) except -1:
    if value is True:
        return put_byte(w, ZP_TRUE) + 1
    if value is False:
        if omit:
            return 0
        return put_byte(w, ZP_FALSE) + 1
    return writer_type_error(w, t, value)


cdef int datetime_to_unix(Writer *w, object value, int64_t *seconds, uint32_t *nanos) except -1:
    """An aware datetime (or Timestamp) as Unix seconds and nanoseconds."""
    cdef int64_t s
    cdef int64_t micro
    tz = datetime_tzinfo(value)
    if tz is None:
        writer_fail(w, f"naive datetime {value!r} is ambiguous: give it a tzinfo (e.g. timezone.utc)")
    s = (zp_days_from_civil(datetime_year(value), datetime_month(value), datetime_day(value)) * 86400
         + datetime_hour(value) * 3600 + datetime_minute(value) * 60 + datetime_second(value))
    micro = datetime_microsecond(value)
    if tz is not _UTC:
        offset = value.utcoffset()
        if offset is None:
            writer_fail(w, f"datetime {value!r} has a tzinfo without an offset: it is ambiguous")
        s -= timedelta_days(offset) * 86400 + timedelta_seconds(offset)
        micro -= timedelta_microseconds(offset)
        if micro < 0:
            micro += 1000000
            s -= 1
    seconds[0] = s
    nanos[0] = <uint32_t>(micro * 1000)
    if Py_TYPE(value) != PyDateTimeAPI.DateTimeType and PyObject_TypeCheck(value, <PyTypeObject *>_Timestamp):
        nanos[0] += <uint32_t>value.nanosecond
    return 0


cdef int write_time(Writer *w, TypePlan t, object value, bint omit, bint field_level) except -1:
    """time.Time. At field level None is Go's zero instant (left out, or written in msgp mode)."""
    cdef int64_t seconds
    cdef uint32_t nanos
    if zp_utc_datetime_unix(<PyObject *>value, <PyObject *>_UTC, &seconds, &nanos):
        if omit and seconds == ZP_GO_ZERO_SECONDS and nanos == 0:
            return 0
        return put_time(w, seconds, nanos) + 1
    if value is None and field_level:
        if omit:
            return 0
        return put_time(w, ZP_GO_ZERO_SECONDS, 0) + 1
    if not PyDateTime_Check(value):
        if type(value) is _GoTime:
            return put_time(w, value.seconds, value.nanoseconds) + 1    # never Go's zero (a datetime)
        detail = "None is only allowed for a time field itself" if value is None else None
        return writer_type_error(w, t, value, detail)
    datetime_to_unix(w, value, &seconds, &nanos)
    if omit and seconds == ZP_GO_ZERO_SECONDS and nanos == 0:
        return 0
    return put_time(w, seconds, nanos) + 1


cdef int write_ext(Writer *w, TypePlan t, object value, bint omit) except -1:
    if value is None:           # never "empty" to the reference generator: nil is written
        return put_byte(w, ZP_NIL) + 1
    if not isinstance(value, _ExtTypes):
        return writer_type_error(w, t, value)
    put_ext_value(w, value, w.fixext)
    return 1


cdef int put_ext_value(Writer *w, object value, bint fixext) except -1:
    """An Ext (zp_store_ext; ``fixext``: the EncodeMsg header forms)."""
    cdef Py_ssize_t n
    code, data = value
    if not isinstance(code, int) or not -128 <= code <= 127:
        writer_fail(w, f"ext code {code!r} is not in -128..127")
    if not isinstance(data, bytes):
        writer_fail(w, f"ext data must be bytes, not {type(data).__name__}")
    n = PyBytes_GET_SIZE(data)
    if n > ZP_MAX_LENGTH32:
        writer_fail(w, f"ext of {n} bytes exceeds msgpack's 2**32-1 limit")
    ensure(w, 6 + n)
    w.pos += zp_store_ext(w.data + w.pos, code, PyBytes_AS_STRING(data), n, fixext)
    return 0


# -- msgp.Raw, msgp.Number ----------------------------------------------------------

cdef int write_raw(Writer *w, TypePlan t, object value) except -1:
    """msgp.Raw: bytes holding one msgpack value, written verbatim once checked to be
    exactly one value (raw_problem); empty bytes write nil, as the reference's
    Raw does. Never empty to the reference generator: always written."""
    cdef Py_buffer view
    if PyUnicode_Check(value):
        return writer_type_error(w, t, value, "a string where msgpack bytes are declared")
    if not (PyBytes_Check(value) or PyByteArray_Check(value) or isinstance(value, memoryview)):
        return writer_type_error(w, t, value, "the bytes of one msgpack value")
    PyObject_GetBuffer(value, &view, PyBUF_SIMPLE)
    try:
        if view.len == 0:
            return put_byte(w, ZP_NIL) + 1
        problem = raw_problem(<const unsigned char *>view.buf, view.len, trail_levels_left(&w.trail))
        if problem is not None:
            return writer_fail(w, f"{t.go} must hold exactly one msgpack value: {problem}")
        put_raw(w, view.buf, view.len)
        return 1
    finally:
        PyBuffer_Release(&view)


cdef str raw_problem(const unsigned char *p, Py_ssize_t n, Py_ssize_t max_levels):
    """Why the n bytes at p are not exactly one msgpack value nested at most max_levels
    deep, as decode's own skip_value reads it (a msgp.Raw or preserved bytes, written
    verbatim, must read back), or None."""
    cdef Reader r
    reader_over(&r, p, n, max_levels, None)
    try:
        read_back(&r, None)
    except _DecodeError as exc:
        inside = "" if exc.path == "$" else f", in {exc.path[1:]}"
        return f"{exc.reason} (at byte {exc.offset}{inside})"
    finally:
        trail_release(&r.trail)
    return None


cdef void reader_over(Reader *r, const unsigned char *p, Py_ssize_t n, Py_ssize_t max_levels,
                      Codec codec) noexcept:
    """r set up to read back the n bytes at p, nested at most max_levels deep (error
    offsets count from p): with the codec's plans and zero allowance when one is given."""
    r.buf = p
    r.pos = 0
    r.end = n
    r.base = 0
    r.strict = False
    r.truncated = False
    r.values_left = n
    r.zeros_left = codec.zero_allowance if codec is not None else 0
    r.plans = <PyObject *>codec._plans if codec is not None else NULL
    trail_init(&r.trail, max(max_levels, 1))


cdef int read_back(Reader *r, TypePlan t) except -1:
    """Reads r's bytes (reader_over) as exactly one value, as decode reads one of t where t
    is a named interface or a struct, else as it skips an unknown field's; raises the
    DecodeError decode would."""
    if t is not None and t.kind == K_IFACE:
        read_iface(r, t, r.buf[0])
    elif t is not None and t.kind == K_STRUCT:
        read_struct(r, t.struct_plan, r.buf[0])
    else:
        skip_value(r)
    if r.pos != r.end:
        reader_fail(r, r.pos, f"{r.end - r.pos} bytes after the value")
    return 0


cdef int write_number(Writer *w, TypePlan t, object value) except -1:
    """msgp.Number: an int, GoUint64, GoFloat32 or float, in the family its type says
    (put_go_number). Never empty to the reference generator: always written."""
    if PyBool_Check(value) or not (PyLong_Check(value) or PyFloat_Check(value)):
        return writer_type_error(w, t, value, "an int, GoUint64, GoFloat32 or float")
    return put_go_number(w, value) + 1


cdef int write_unusable(Writer *w, TypePlan t, object value) except -1:
    """A field whose type zebrapack cannot represent: left out when None, else an error."""
    if value is None:
        return 0
    return writer_fail(w, f"{t.go} cannot be represented by zebrapack ({t.reason}): the field must be "
                          f"None, not {type(value).__name__} {_short_repr(value)}")

# Called through pointers, out of write_value (whose size decides what the C compiler
# inlines into the writers of every kind).
cdef int (*_write_raw)(Writer *, TypePlan, object) except -1
cdef int (*_write_number)(Writer *, TypePlan, object) except -1
cdef int (*_write_unusable)(Writer *, TypePlan, object) except -1
_write_raw = write_raw
_write_number = write_number
_write_unusable = write_unusable


# -- containers and structs -------------------------------------------------------

# GCC inlines within one budget for the whole module (its inline-unit-growth), spent in
# an order that any change elsewhere reshuffles; the element writer of the hottest loops
# (write_sequence, write_map) and the pieces of the fast paths are inlined always,
# whatever the rest of the module became.
cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    struct __pyx_t_9zebrapack_5_core_Writer;
    struct __pyx_obj_9zebrapack_5_core_TypePlan;
    struct __pyx_t_9zebrapack_5_core_FieldC;
    static inline int __pyx_f_9zebrapack_5_core_write_exact_scalar(
        struct __pyx_t_9zebrapack_5_core_Writer *, struct __pyx_obj_9zebrapack_5_core_TypePlan *, PyObject *)
        __attribute__((always_inline));
    /* and the pieces of every fast path: the field writer of write_struct and
       write_flat_record, an int's range test, a str's UTF-8, a str or bin store */
    static inline unsigned char *__pyx_f_9zebrapack_5_core_store_inline_field(unsigned char *, unsigned char *,
        struct __pyx_t_9zebrapack_5_core_FieldC *, int, PyObject *, int, int, Py_ssize_t *, Py_ssize_t *, int)
        __attribute__((always_inline));
    static inline int __pyx_f_9zebrapack_5_core_write_inline_field(
        struct __pyx_t_9zebrapack_5_core_Writer *, struct __pyx_t_9zebrapack_5_core_FieldC *, PyObject *, int)
        __attribute__((always_inline));
    static inline int __pyx_f_9zebrapack_5_core_int_fits(PyObject *, int, int64_t, int64_t, uint64_t, uint64_t *)
        __attribute__((always_inline));
    static inline char const *__pyx_f_9zebrapack_5_core_exact_str_utf8(PyObject *, Py_ssize_t *)
        __attribute__((always_inline));
    static inline int __pyx_f_9zebrapack_5_core_put_str(struct __pyx_t_9zebrapack_5_core_Writer *, void const *,
                                                         Py_ssize_t) __attribute__((always_inline));
    static inline int __pyx_f_9zebrapack_5_core_writer_enter(struct __pyx_t_9zebrapack_5_core_Writer *)
        __attribute__((always_inline));
    struct __pyx_obj_9zebrapack_5_core_StructPlan;
    static inline Py_ssize_t __pyx_f_9zebrapack_5_core_flat_fields(unsigned char *, Py_ssize_t, Py_ssize_t,
        struct __pyx_obj_9zebrapack_5_core_StructPlan *, PyObject *, int, int, Py_ssize_t *)
        __attribute__((always_inline));
    static inline Py_ssize_t __pyx_f_9zebrapack_5_core_write_flat_record(unsigned char *, Py_ssize_t, Py_ssize_t,
        struct __pyx_obj_9zebrapack_5_core_StructPlan *, PyObject *, int) __attribute__((always_inline));
    static inline unsigned char *__pyx_f_9zebrapack_5_core_store_time_field(unsigned char *,
        struct __pyx_t_9zebrapack_5_core_FieldC *, PyObject *, int, Py_ssize_t *) __attribute__((always_inline));
    static inline int __pyx_f_9zebrapack_5_core_data_room(unsigned char *, unsigned char *,
        struct __pyx_t_9zebrapack_5_core_FieldC *, Py_ssize_t, int, Py_ssize_t *) __attribute__((always_inline));
    static inline unsigned char *__pyx_f_9zebrapack_5_core_store_field_key(unsigned char *,
        struct __pyx_t_9zebrapack_5_core_FieldC *) __attribute__((always_inline));
    static inline unsigned char *__pyx_f_9zebrapack_5_core_store_counted_key(unsigned char *,
        struct __pyx_t_9zebrapack_5_core_FieldC *, Py_ssize_t *) __attribute__((always_inline));
    static inline int __pyx_f_9zebrapack_5_core_put_blob(struct __pyx_t_9zebrapack_5_core_Writer *, int,
                                                          void const *, Py_ssize_t) __attribute__((always_inline));
    /* a list's or map's container of runs, in the loops of write_sequence and write_map */
    static inline int __pyx_f_9zebrapack_5_core_write_run_container(struct __pyx_t_9zebrapack_5_core_Writer *,
        struct __pyx_obj_9zebrapack_5_core_TypePlan *, struct __pyx_obj_9zebrapack_5_core_TypePlan *, int,
        PyObject *) __attribute__((always_inline));
    static inline int __pyx_f_9zebrapack_5_core_write_run_items(struct __pyx_t_9zebrapack_5_core_Writer *,
        struct __pyx_obj_9zebrapack_5_core_TypePlan *, struct __pyx_obj_9zebrapack_5_core_TypePlan *, int,
        PyObject *) __attribute__((always_inline));
    static inline unsigned char *__pyx_f_9zebrapack_5_core_store_run_items(unsigned char *, unsigned char *,
        PyObject **, Py_ssize_t, int, int, int64_t, int64_t, uint64_t) __attribute__((always_inline));
    /* a map's entries of runs: their families constants where store_run_entries gives them */
    static inline unsigned char *__pyx_f_9zebrapack_5_core_store_run_item(unsigned char *, unsigned char *,
        PyObject *, int, int64_t, int64_t, uint64_t, Py_ssize_t *) __attribute__((always_inline));
    static inline unsigned char *__pyx_f_9zebrapack_5_core_store_run_entry(unsigned char *, unsigned char *,
        PyObject *, PyObject *, int, int, int, int64_t, int64_t, uint64_t, int64_t, int64_t, uint64_t, Py_ssize_t *)
        __attribute__((always_inline));
    static inline unsigned char *__pyx_f_9zebrapack_5_core_run_entries(unsigned char *, unsigned char *,
        PyObject *, int, int, int, int64_t, int64_t, uint64_t, int64_t, int64_t, uint64_t)
        __attribute__((always_inline));
    /* the room test of every write (its growth out of line, writer_grow) */
    static inline int __pyx_f_9zebrapack_5_core_ensure(struct __pyx_t_9zebrapack_5_core_Writer *, Py_ssize_t)
        __attribute__((always_inline));
    #endif
    """


cdef inline int write_exact_scalar(Writer *w, TypePlan t, PyObject *item) except -1:
    """The common element of a slice or map: an exact int, float, str, bool or bytes (of
    its [N]byte's length), or a datetime in UTC, that fits its declared type, written
    without the generic dispatch (no Python code runs, so the container cannot change
    under it). 1 when it wrote the item; 0 leaves it to write_value, which also raises
    every error. The declared kind is tested first (the same for every item of a loop,
    and a container's kind ends it at once), then the one type that kind takes."""
    cdef int kind = t.kind
    cdef PyTypeObject *tp = Py_TYPE(<object>item)
    cdef uint64_t bits
    cdef Py_ssize_t n
    cdef const char *text
    cdef int64_t seconds
    cdef uint32_t nanos
    if kind == K_STRING:
        if tp != &PyUnicode_Type:
            return 0
        text = exact_str_utf8(<object>item, &n)
        if text == NULL or n > ZP_MAX_LENGTH32:
            return 0
        put_str(w, text, n)
        return 1
    if K_UINT <= kind <= K_INT64:
        if tp != &PyLong_Type or not int_fits(<object>item, t.is_signed, t.imin, t.imax, t.umax, &bits):
            return 0
        ensure(w, 9)
        w.pos += zp_store_int(w.data + w.pos, t.is_signed, bits)
        return 1
    if kind == K_F64:
        if tp != &PyFloat_Type:
            return 0
        put_f64(w, PyFloat_AS_DOUBLE(<object>item))
        return 1
    if kind == K_F32:
        if tp != &PyFloat_Type:
            return 0
        ensure(w, 5)
        n = zp_store_f32(w.data + w.pos, PyFloat_AS_DOUBLE(<object>item))
        w.pos += n
        return n != 0                       # 0: it overflows float32 (write_float raises)
    if kind == K_BOOL:
        if tp != &PyBool_Type:
            return 0
        put_byte(w, ZP_TRUE if <object>item is True else ZP_FALSE)
        return 1
    if kind == K_BYTES or kind == K_BYTEARRAY:
        if tp != &PyBytes_Type:
            return 0
        n = PyBytes_GET_SIZE(<object>item)
        if kind == K_BYTEARRAY and n != t.length or n > ZP_MAX_LENGTH32:
            return 0
        put_blob(w, ZP_BIN, PyBytes_AS_STRING(<object>item), n)
        return 1
    if kind == K_TIME and zp_utc_datetime_unix(item, <PyObject *>_UTC, &seconds, &nanos):
        put_time(w, seconds, nanos)
        return 1
    return 0


# write_number_run is its own function (its loops get registers of their own, not what
# is left of write_sequence's); number_items is inlined in it once per family, its
# family a constant there.
cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    struct __pyx_t_9zebrapack_5_core_Writer;
    struct __pyx_obj_9zebrapack_5_core_TypePlan;
    static inline Py_ssize_t __pyx_f_9zebrapack_5_core_number_items(unsigned char **, PyObject **, Py_ssize_t,
        Py_ssize_t, int, int, int64_t, int64_t, uint64_t) __attribute__((always_inline));
    static Py_ssize_t __pyx_f_9zebrapack_5_core_write_str_run(struct __pyx_t_9zebrapack_5_core_Writer *,
        struct __pyx_obj_9zebrapack_5_core_TypePlan *, PyObject *, Py_ssize_t) __attribute__((noinline));
    struct __pyx_t_9zebrapack_5_core_FieldC;
    static unsigned char *__pyx_f_9zebrapack_5_core_store_struct_field(unsigned char *, unsigned char *,
        struct __pyx_t_9zebrapack_5_core_FieldC *, PyObject *, int, int, Py_ssize_t *) __attribute__((noinline));
    static unsigned char *__pyx_f_9zebrapack_5_core_store_flat_container(unsigned char *, unsigned char *,
        struct __pyx_t_9zebrapack_5_core_FieldC *, PyObject *, int, int, Py_ssize_t *) __attribute__((noinline));
    static int __pyx_f_9zebrapack_5_core_write_container_item(struct __pyx_t_9zebrapack_5_core_Writer *,
        struct __pyx_obj_9zebrapack_5_core_TypePlan *, PyObject *) __attribute__((noinline));
    #endif
    """


cdef enum:
    NUMBER_BLOCK = 1024     # items write_number_run grows the buffer for at a time
    # the families of write_number_run
    RUN_F64 = 0
    RUN_SIGNED = 1
    RUN_UNSIGNED = 2
    RUN_F32 = 3
    RUN_BOOL = 4
    RUN_STR = 5             # not write_number_run's: write_str_run's items (FieldC.list_run)
    RUN_TIME = 6            # datetimes in UTC (zp_utc_datetime_unix)
    # a map's run family (container_run): its values' family (the bits of MAP_VALUES),
    # and its keys' (strs, or one of these)
    MAP_VALUES = 7
    MAP_SIGNED_KEYS = 8     # integers within the key type's range, signed
    MAP_UNSIGNED_KEYS = 16  # or unsigned
    MAP_KEYS = 24
    MAP_NULLABLE_VALUES = 32    # the values are pointers (None: nil)


cdef inline Py_ssize_t number_items(unsigned char **at, PyObject **objects, Py_ssize_t i, Py_ssize_t end,
                                    int family, bint nullable, int64_t imin, int64_t imax, uint64_t umax) noexcept:
    """objects[i:end] stored at at[0] (run_width(family) bytes of room each) while each
    is a value of the family (RUN_*: an exact float, an exact int in range, a bool, a
    datetime in UTC) or a pointer's None; at[0] moved past them. Returns the index of the
    first item not stored."""
    cdef unsigned char *p = at[0]
    cdef PyObject *item
    cdef uint64_t bits
    cdef Py_ssize_t size
    cdef int64_t seconds
    cdef uint32_t nanos
    while i < end:
        item = objects[i]
        if family == RUN_F64 and Py_TYPE(<object>item) == &PyFloat_Type:
            p += zp_store_f64(p, PyFloat_AS_DOUBLE(<object>item))
        elif family == RUN_F32 and Py_TYPE(<object>item) == &PyFloat_Type:
            size = zp_store_f32(p, PyFloat_AS_DOUBLE(<object>item))
            if size == 0:                   # out of float32's range: write_float raises
                break
            p += size
        elif (family == RUN_SIGNED or family == RUN_UNSIGNED) and Py_TYPE(<object>item) == &PyLong_Type:
            if not int_fits(<object>item, family == RUN_SIGNED, imin, imax, umax, &bits):
                break
            p += zp_store_int(p, family == RUN_SIGNED, bits)
        elif family == RUN_BOOL and Py_TYPE(<object>item) == &PyBool_Type:
            p[0] = ZP_TRUE if <object>item is True else ZP_FALSE
            p += 1
        elif family == RUN_TIME and zp_utc_datetime_unix(item, <PyObject *>_UTC, &seconds, &nanos):
            p += zp_store_time(p, seconds, nanos)
        elif nullable and <object>item is None:
            p[0] = ZP_NIL
            p += 1
        else:
            break
        i += 1
    at[0] = p
    return i


cdef inline Py_ssize_t run_width(int family) noexcept:
    """The most bytes an item of a write_number_run family takes."""
    return 1 if family == RUN_BOOL else 15 if family == RUN_TIME else 9


cdef int number_run_family(TypePlan t) noexcept:
    """The write_number_run family (RUN_*) of items of type t: a float64, float32,
    integer, bool or time; -1 for any other type."""
    cdef int kind = t.kind
    if kind == K_F64:
        return RUN_F64
    if kind == K_F32:
        return RUN_F32
    if K_UINT <= kind <= K_INT64:
        return RUN_SIGNED if t.is_signed else RUN_UNSIGNED
    if kind == K_BOOL:
        return RUN_BOOL
    if kind == K_TIME:
        return RUN_TIME
    return -1


cdef inline TypePlan run_item(TypePlan t):
    """The type of a container_run container's items or values (a pointer's target): the
    range they are written in (imin..umax)."""
    return t.elem.elem if t.elem.kind == K_POINTER else t.elem


cdef inline int container_run(TypePlan t) noexcept:
    """The family of the items of a []T whose items take runs (T a number, bool or string
    or a pointer to one: number_run_family's, or RUN_STR), or of the entries of a map[K]V
    whose entries do (K a string or an integer, V a number, bool, time or string or a
    pointer to one: V's family, with MAP_SIGNED_KEYS or MAP_UNSIGNED_KEYS for integer keys
    and MAP_NULLABLE_VALUES for pointers); -1 for any other type. Such a container is
    stored whole by store_run_items or store_run_entries: a field of a flat record
    (store_list_field, store_map_field), a map's value or a list's item
    (write_run_container)."""
    cdef TypePlan item = run_item(t) if t.kind == K_SLICE or t.kind == K_MAP else None
    cdef int family
    if item is None:
        return -1
    family = RUN_STR if item.kind == K_STRING else number_run_family(item)
    if t.kind == K_SLICE or family < 0:
        return family
    if t.elem.kind == K_POINTER:
        family |= MAP_NULLABLE_VALUES
    if t.key.kind == K_STRING:
        return family
    if K_UINT <= t.key.kind <= K_INT64:
        return family | (MAP_SIGNED_KEYS if t.key.is_signed else MAP_UNSIGNED_KEYS)
    return -1


cdef void settle_runs(TypePlan t) noexcept:
    """The run families of a compiled type (TypePlan.number_family, run_family), asked
    once here rather than by each container the encoder writes (its elem and key are
    compiled first)."""
    t.number_family = number_run_family(t)
    t.run_family = container_run(t)


cdef void set_flat_kind(FieldC *fc, FieldPlan fp) noexcept:
    """How write_flat_record writes the field, if it does (FieldC.flat_kind): an inline
    field; a []T or map[K]V whose items or entries take runs (list_run: their family,
    container_run's; list_nullable: the items are pointers); a struct (flat if its plan is:
    settle_flat). The items' or values' range in imin..umax, a map's keys' in key_imin..key_umax."""
    cdef TypePlan t = fp.type
    cdef TypePlan item
    cdef int family
    fc.flat_kind = FLAT_NONE
    fc.flat_inline_kind = fc.inline_kind
    fc.list_run = -1
    fc.list_nullable = False
    fc.any_levels = 0                       # (settle_flat)
    if fc.inline_kind != INLINE_NONE:
        fc.flat_kind = FLAT_INLINE
        return
    if fp.deprecated:                       # a warning to give
        return
    family = container_run(t)
    if family >= 0:
        fc.flat_kind = FLAT_LIST if t.kind == K_SLICE else FLAT_MAP
        fc.list_nullable = t.kind == K_SLICE and t.elem.kind == K_POINTER
        fc.list_run = family
        item = run_item(t)
        fc.imin = item.imin
        fc.imax = item.imax
        fc.umax = item.umax
        if t.kind == K_MAP:
            fc.key_imin = t.key.imin
            fc.key_imax = t.key.imax
            fc.key_umax = t.key.umax
    elif t.kind == K_STRUCT:
        fc.flat_kind = FLAT_STRUCT
    if fc.flat_kind != FLAT_NONE:
        fc.flat_inline_kind = INLINE_CONTAINER


cdef Py_ssize_t number_run_items(unsigned char **at, PyObject **objects, Py_ssize_t i, Py_ssize_t end, int family,
                                 bint nullable, int64_t imin, int64_t imax, uint64_t umax) noexcept:
    """number_items with its family a constant in each of its loops (room made for them:
    run_width bytes an item): write_number_run's runs, write_flat_record's lists."""
    if family == RUN_F64:
        return number_items(at, objects, i, end, RUN_F64, nullable, 0, 0, 0)
    if family == RUN_SIGNED:
        return number_items(at, objects, i, end, RUN_SIGNED, nullable, imin, imax, 0)
    if family == RUN_UNSIGNED:
        return number_items(at, objects, i, end, RUN_UNSIGNED, nullable, 0, 0, umax)
    if family == RUN_F32:
        return number_items(at, objects, i, end, RUN_F32, nullable, 0, 0, 0)
    if family == RUN_TIME:
        return number_items(at, objects, i, end, RUN_TIME, nullable, 0, 0, 0)
    return number_items(at, objects, i, end, RUN_BOOL, nullable, 0, 0, 0)


@cython.cdivision(True)      # a positive count of items of a positive width
cdef Py_ssize_t write_number_run(Writer *w, TypePlan elem, object items, Py_ssize_t n) except -1:
    """The leading items of a list or tuple of integers, float64s, float32s, bools or
    times (or of pointers to them) that are exact ints in range, exact floats (within
    float32's range), bools, datetimes in UTC or None for a pointer: written with one capacity check per run of
    items, and no dispatch or reference counting (no Python code runs, so a list cannot
    change). Returns the index of the first item left to the general loop (n when all
    were written)."""
    cdef Py_ssize_t i = 0, run_end, stop, width
    cdef PyObject **objects = PySequence_Fast_ITEMS(items)
    cdef unsigned char *p
    cdef bint nullable = elem.kind == K_POINTER
    cdef TypePlan t = elem.elem if nullable else elem
    cdef int family = t.number_family
    if family < 0:
        return 0
    width = run_width(family)
    while i < n:
        # the items that surely fit (width bytes each at most); a buffer sized for the
        # record takes them in a few runs without growing
        run_end = (w.cap - w.pos) // width
        if run_end == 0:
            ensure(w, width * min(n - i, NUMBER_BLOCK))
            run_end = (w.cap - w.pos) // width
        run_end = i + min(n - i, run_end)
        p = w.data + w.pos
        stop = number_run_items(&p, objects, i, run_end, family, nullable, t.imin, t.imax, t.umax)
        w.pos = p - w.data
        i = stop
        if i < run_end:
            break
    return i


cdef inline const char *str_item_utf8(PyObject *item, Py_ssize_t *size) noexcept:
    """The UTF-8 of a []string item that write_str_run and write_flat_record write
    themselves: an exact str whose UTF-8 the str already holds (ASCII, or cached), within
    msgpack's limit. NULL for anything else, which the general loop writes or refuses."""
    cdef const char *text
    if Py_TYPE(<object>item) != &PyUnicode_Type:
        return NULL
    text = zp_str_utf8_held(<object>item, size)
    if text == NULL or size[0] > ZP_MAX_LENGTH32:
        return NULL
    return text


cdef Py_ssize_t write_str_run(Writer *w, TypePlan elem, object items, Py_ssize_t n) except -1:
    """The leading items of a []string (or []*string) list or tuple that are exact strs whose UTF-8
    the str already holds (ASCII, or cached), or None for a pointer: written with no
    dispatch and no trail step (nothing here runs Python code or allocates but the
    buffer, so the list cannot change). Returns the index of the first item left to the
    general loop (n when all were written), which says what is wrong with it."""
    cdef Py_ssize_t i = 0, size
    cdef PyObject **objects = PySequence_Fast_ITEMS(items)
    cdef PyObject *item
    cdef const char *text
    cdef bint nullable = elem.kind == K_POINTER
    if (elem.elem.kind if nullable else elem.kind) != K_STRING:
        return 0
    while i < n:
        item = objects[i]
        if nullable and <object>item is None:
            put_byte(w, ZP_NIL)
        else:
            text = str_item_utf8(item, &size)
            if text == NULL:
                break
            if size + 5 > w.cap - w.pos:
                writer_grow(w, size + 5)
            w.pos += zp_store_str(w.data + w.pos, text, size)
        i += 1
    return i


cdef inline int write_run_container(Writer *w, TypePlan t, TypePlan item, int family, PyObject *value) except -1:
    """A map's value or a list's item of type t, a []T or map[K]V whose items or
    values take runs (family: t.run_family; item: run_item(t), asked once by the
    caller for all its values or items): when it is exactly a list or tuple, or a
    dict, of such items or entries, stored whole as write_flat_record stores such a field
    (store_run_items, store_run_entries), with no dispatch and no trail step (nothing there
    runs Python code or fails) and no level entered: the caller has seen that its level,
    one below the caller's, may be (trail_levels_fit), and nothing in it goes deeper. 1
    when written; 0, nothing written, for anything else, or when the buffer has no room
    left for it (a list of numbers: room is made; the rest goes by the buffer's room),
    and write_value writes it or says what is wrong. An empty list or dict is written
    here, in line (lists of many short lists); the rest by write_run_items."""
    if t.kind == K_SLICE:
        if Py_TYPE(<object>value) == &PyList_Type and PyList_GET_SIZE(<object>value) == 0:
            put_byte(w, 0x90)
            return 1
    elif Py_TYPE(<object>value) == &PyDict_Type and PyDict_GET_SIZE(<object>value) == 0:
        put_byte(w, 0x80)
        return 1
    return write_run_items(w, t, item, family, value)


cdef inline int write_run_items(Writer *w, TypePlan t, TypePlan item, int family, PyObject *value) except -1:
    """write_run_container's containers but for an empty list or dict."""
    cdef Py_ssize_t n
    cdef unsigned char *p
    cdef bint nullable = t.elem.kind == K_POINTER
    if t.kind == K_SLICE:
        if Py_TYPE(<object>value) == &PyList_Type:
            n = PyList_GET_SIZE(<object>value)
        elif PyTuple_CheckExact(<object>value):
            n = PyTuple_GET_SIZE(<object>value)
        else:
            return 0
        if n > NUMBER_BLOCK:                # (a long one: write_sequence's runs, a block at a time)
            return 0
        ensure(w, 5 + n * (run_width(family) if family != RUN_STR else 0))
    elif Py_TYPE(<object>value) == &PyDict_Type:
        n = PyDict_GET_SIZE(<object>value)
        if n > ZP_MAX_LENGTH32:
            return 0
        ensure(w, 5)
    else:
        return 0
    p = w.data + w.pos
    if n == 0:                              # (ensure made room for the header)
        put_byte(w, 0x90 if t.kind == K_SLICE else 0x80)
        return 1
    if t.kind == K_SLICE:
        p += zp_store_header(p, ZP_ARRAY, n)
        if family != RUN_STR:               # (room made for every item)
            if number_run_items(&p, PySequence_Fast_ITEMS(<object>value), 0, n, family, nullable, item.imin,
                                item.imax, item.umax) != n:
                return 0
        else:
            p = store_run_items(p, w.data + w.cap, PySequence_Fast_ITEMS(<object>value), n, family, nullable, 0, 0,
                                0)
    else:
        p += zp_store_header(p, ZP_MAP, n)
        p = store_run_entries(p, w.data + w.cap, value, family, item.imin, item.imax, item.umax, t.key.imin,
                              t.key.imax, t.key.umax)
    if p == NULL:
        return 0
    w.pos = p - w.data
    return 1


cdef int write_container_item(Writer *w, TypePlan t, PyObject *item) except -1:
    """write_sequence's item that is a []T or map[K]V not of runs (t, a pointer's target):
    an empty list in one byte where its level needs no asking (lists of empty lists of
    records), else straight to its writer, which write_value would call (no scalar to try
    first); it refuses anything else. Out of line (noinline): write_sequence's loop over
    records stays as it was."""
    if t.kind == K_SLICE and Py_TYPE(<object>item) == &PyList_Type and PyList_GET_SIZE(<object>item) == 0 \
            and trail_levels_fit(&w.trail, 1):
        return put_byte(w, 0x90)
    held = <object>item
    if t.kind == K_MAP:
        return write_map(w, t, held, False)
    return write_sequence(w, t, held, False)


cdef int write_sequence(Writer *w, TypePlan t, object value, bint omit) except -1:
    """A slice or fixed array from a list or tuple."""
    cdef Py_ssize_t n, i, start
    cdef PyObject *item
    cdef TypePlan elem, target
    cdef bint nullable, flat_items
    cdef PyTypeObject *struct_tp
    cdef int item_run
    cdef TypePlan run_items = None
    cdef bint is_list = PyList_Check(value)
    if not is_list and not PyTuple_Check(value):
        detail = "None is only allowed for pointers and interfaces" if value is None else None
        return writer_type_error(w, t, value, detail)
    n = PyList_GET_SIZE(value) if is_list else PyTuple_GET_SIZE(value)
    if t.kind == K_ARRAY and n != t.length:
        return writer_fail(w, f"expected {t.go}: {t.length} elements, got {n}")
    if n == 0:                  # (before the plans below are taken: lists of many empty lists)
        if omit:                # a [0]T array too: the reference's emptiness test is len() == 0
            return 0
        put_byte(w, 0x90)
        writer_enter(w)         # (its level counts, as a list's with items)
        trail_leave(&w.trail)
        return 1
    elem = t.elem
    nullable = elem.kind == K_POINTER
    target = elem.elem if nullable else elem        # what a non-nil item is written as
    struct_tp = target.struct_plan.tp if target.kind == K_STRUCT else NULL
    item_run = target.run_family                    # items that are lists or maps of runs
    # items of a flat plan's class may take write_flat_record (tested once, not per item)
    flat_items = struct_tp != NULL and target.struct_plan.flat and not w.msgp \
        and flat_items_fit(&w.trail, target.struct_plan)
    put_array_header(w, n)
    writer_enter(w)
    if item_run >= 0:                      # stored whole where their level needs no asking (write_run_container)
        if trail_levels_fit(&w.trail, 1):
            run_items = run_item(target)
        else:
            item_run = -1
    # the run of the items' kind: strings, numbers or bools (their number family: no call
    # for items of other kinds, lists of lists or of structs)
    if target.kind == K_STRING:
        start = write_str_run(w, elem, value, n)
    elif target.number_family >= 0:
        start = write_number_run(w, elem, value, n)
    else:
        start = 0
    for i in range(start, n):
        trail_index(&w.trail, i)
        if is_list:
            if PyList_GET_SIZE(value) != n:
                writer_fail(w, "list changed size while it was encoded")
            item = PyList_GET_ITEM(value, i)
        else:
            item = PyTuple_GET_ITEM(value, i)
        if item_run >= 0 and write_run_container(w, target, run_items, item_run, item):
            pass                            # (first: lists of many short lists or maps)
        elif nullable and <object>item is None:
            put_byte(w, ZP_NIL)
        elif Py_TYPE(<object>item) == struct_tp:
            # a record of exactly the element's struct: written as write_value writes it,
            # without its dispatch
            if not (flat_items and write_flat_nested(w, target.struct_plan, <object>item, w.structnames)):
                held = <object>item     # a strong reference: write_struct may run Python code
                write_struct(w, target.struct_plan, held, w.structnames and not w.msgp, target.inlined)
        elif target.kind == K_INTF:        # []interface{}: as write_any_list writes an item
            if not any_atom(w, item):
                write_any_item(w, item)
        elif target.kind == K_MAP or target.kind == K_SLICE:
            write_container_item(w, target, item)
        elif not write_exact_scalar(w, target, item):
            held = <object>item     # a strong reference: write_value may run Python code
            write_value(w, elem, held, False)
    trail_leave(&w.trail)
    return 1


cdef inline unsigned char *store_run_item(unsigned char *p, unsigned char *data_end, PyObject *item, int family,
                                         int64_t imin, int64_t imax, uint64_t umax, Py_ssize_t *need) noexcept:
    """One item of a run of the family (RUN_STR: an exact str that has UTF-8, within
    msgpack's limit; else number_items' values: an exact int within imin..imax or 0..umax,
    an exact float, a float32's within its range, a bool, a datetime in UTC) stored at p:
    the position after it. NULL for anything else, which the general path writes or
    refuses; NO_ROOM when the bytes it takes at most (need) pass data_end, nothing stored."""
    cdef Py_ssize_t n
    cdef const char *text
    if family == RUN_STR:
        if Py_TYPE(<object>item) != &PyUnicode_Type:
            return NULL
        text = exact_str_utf8(<object>item, &n)
        if text == NULL or n > ZP_MAX_LENGTH32:
            return NULL
        need[0] = n + 5
        if need[0] > data_end - p:
            return NO_ROOM
        return p + zp_store_str(p, text, n)
    need[0] = run_width(family)
    if need[0] > data_end - p:
        return NO_ROOM
    if number_items(&p, &item, 0, 1, family, False, imin, imax, umax) != 1:
        return NULL
    return p


cdef inline unsigned char *store_run_entry(unsigned char *p, unsigned char *data_end, PyObject *key, PyObject *value,
                                          int values, int keys, bint nullable, int64_t imin, int64_t imax,
                                          uint64_t umax, int64_t key_min, int64_t key_max, uint64_t key_umax,
                                          Py_ssize_t *need) noexcept:
    """A map entry written without dispatch (container_run's family for a map, in three:
    values, its MAP_VALUES bits, keys, its MAP_KEYS bits, and nullable, its
    MAP_NULLABLE_VALUES bit), its key and its value each a run's item (store_run_item):
    the key an exact str, or an exact int within key_min..key_max (0..key_umax); the value
    of the values' family within imin..umax, or None where the values are pointers (nil).
    The position after it; NULL for anything else; NO_ROOM when it does not fit before
    data_end (need: the room it asks from p). No Python code runs. Always in line: where
    values is a constant, only its own tests are left."""
    cdef unsigned char *q
    cdef unsigned char *end
    cdef int key_family = RUN_STR if keys == 0 else RUN_SIGNED if keys == MAP_SIGNED_KEYS else RUN_UNSIGNED
    q = store_run_item(p, data_end, key, key_family, key_min, key_max, key_umax, need)
    if q == NULL or q == NO_ROOM:
        return q
    end = store_run_item(q, data_end, value, values, imin, imax, umax, need)
    if end == NULL and nullable and <object>value is None:     # (tested after: no cost to other values)
        need[0] = 1
        end = q + 1 if q < data_end else NO_ROOM
        if end != NO_ROOM:
            q[0] = ZP_NIL
    if end == NO_ROOM:
        need[0] += q - p                    # (the key before it)
    return end


cdef inline int write_run_entry(Writer *w, TypePlan elem, TypePlan key_plan, int family, PyObject *key,
                                 PyObject *value) except -1:
    """A map entry of store_run_entry's (elem, key_plan: the map's value type, a pointer's
    target, and key type), the buffer grown for it when it does not fit. 0 for anything else (write_map's
    general path)."""
    cdef Py_ssize_t need = 0
    cdef unsigned char *end
    cdef int values = family & MAP_VALUES, keys = family & MAP_KEYS
    cdef bint nullable = family & MAP_NULLABLE_VALUES
    while True:
        end = store_run_entry(w.data + w.pos, w.data + w.cap, key, value, values, keys, nullable, elem.imin,
                              elem.imax, elem.umax, key_plan.imin, key_plan.imax, key_plan.umax, &need)
        if end == NULL:
            return 0
        if end != NO_ROOM:
            w.pos = end - w.data
            return 1
        writer_grow(w, need)                # (at most twice: the key's room, then the value's)


cdef int write_map(Writer *w, TypePlan t, object value, bint omit) except -1:
    cdef Py_ssize_t n, written = 0, position = 0
    cdef TypePlan key_plan, elem, run_values, target
    cdef PyObject *key_ref
    cdef PyObject *value_ref
    cdef int family = t.run_family                # entries of scalars: their family (container_run)
    cdef bint run_entries = family >= 0
    cdef int value_run
    cdef bint nullable
    if not PyDict_Check(value):
        return writer_type_error(w, t, value)
    n = PyDict_GET_SIZE(value)
    if n == 0:                              # (before the plans below are taken: lists of many small maps)
        if omit:
            return 0
        put_byte(w, 0x80)
        writer_enter(w)                     # (its level counts, as a map's with entries)
        trail_leave(&w.trail)
        return 1
    key_plan = t.key
    elem = t.elem
    value_run = elem.run_family             # values that are lists or maps of runs
    run_values = None
    nullable = elem.kind == K_POINTER
    target = elem.elem if nullable else elem    # what a non-nil value is written as
    put_map_header(w, n)
    writer_enter(w)
    if value_run >= 0:                      # stored whole where their level needs no asking (write_run_container)
        if trail_levels_fit(&w.trail, 1):
            run_values = run_item(elem)
        else:
            value_run = -1
    trail_key_reading(&w.trail)
    while PyDict_Next(value, &position, &key_ref, &value_ref):
        # The key goes into the trail only for the entries write_value writes: the
        # exact-scalar paths raise nothing but running out of memory.
        if run_entries and write_run_entry(w, target, key_plan, family, key_ref, value_ref):
            written += 1
            continue
        if not write_exact_scalar(w, key_plan, key_ref):
            trail_key(&w.trail, <object>key_ref)
            write_value(w, key_plan, <object>key_ref, False)
            trail_key_reading(&w.trail)
        written += 1
        if target.kind == K_INTF:          # map[K]interface{}: as write_any_map writes a value
            if Py_TYPE(<object>value_ref) != &PyDict_Type and Py_TYPE(<object>value_ref) != &PyList_Type \
                    and any_atom(w, value_ref):
                continue
            trail_key(&w.trail, <object>key_ref)
            write_any_item(w, value_ref)
            trail_key_reading(&w.trail)
            continue
        if nullable and <object>value_ref is None:
            put_byte(w, ZP_NIL)
            continue
        # (a run container first: its type is no scalar's, write_exact_scalar would only test it)
        if not (value_run >= 0 and write_run_container(w, elem, run_values, value_run, value_ref)) and \
                not write_exact_scalar(w, target, value_ref):
            trail_key(&w.trail, <object>key_ref)
            held = <object>value_ref    # a strong reference: write_value may run Python code
            write_value(w, elem, held, False)
            trail_key_reading(&w.trail)
    trail_map_done(&w.trail)
    if written != n or PyDict_GET_SIZE(value) != n:
        writer_fail(w, "dict changed size while it was encoded")
    return 1


cdef inline bint is_plain_zero(FieldC *fc, PyObject *value) noexcept:
    """Whether value is, with its exact built-in type, the zero of the field's type: an
    omitted field is then skipped before its key is written. Anything else (wrong
    types, subclasses) goes through write_value, which decides and raises."""
    cdef PyTypeObject *tp = Py_TYPE(<object>value)
    cdef int kind = fc.kind
    cdef double d
    if fc.time_field or kind == K_POINTER or kind == K_IFACE:
        return <object>value is None
    if kind == K_STRING:
        return tp == &PyUnicode_Type and PyUnicode_GET_LENGTH(<object>value) == 0
    if kind >= K_UINT and kind <= K_INT64:
        return tp == &PyLong_Type and zp_long_is_zero(<object>value)
    if kind == K_F64 or kind == K_F32:
        if tp != &PyFloat_Type:
            return False
        d = PyFloat_AS_DOUBLE(<object>value)
        return d == 0.0 and not signbit(d)
    if kind == K_BOOL:
        return <object>value is False
    if kind == K_SLICE:
        return tp == &PyList_Type and PyList_GET_SIZE(<object>value) == 0
    if kind == K_MAP:
        return tp == &PyDict_Type and PyDict_GET_SIZE(<object>value) == 0
    if kind == K_BYTES:
        return PyBytes_CheckExact(<object>value) and PyBytes_GET_SIZE(<object>value) == 0
    return False


cdef enum:
    FIELD_OMITTED = 0
    FIELD_WRITTEN = 1
    FIELD_GENERAL = 2       # not an exact built-in value of the field's type: write_value decides


cdef extern from *:
    """
    /* store_inline_field's answer for a field that does not fit (checked): no position */
    #define ZP_NO_ROOM ((unsigned char *)1)
    """
    unsigned char *NO_ROOM "ZP_NO_ROOM"


cdef inline unsigned char *store_field_key(unsigned char *p, FieldC *fc) noexcept:
    """The field's key at p, as words (its room includes their overrun: inline_room);
    returns the position after it."""
    return zp_copy_words(p, <const unsigned char *>fc.wkey, fc.wkey_len)


cdef inline unsigned char *store_counted_key(unsigned char *p, FieldC *fc, Py_ssize_t *count) noexcept:
    """store_field_key for store_inline_field's fields. count not NULL (write_flat_record's
    loop): one more entry in it, the map header's count without a test per field of
    whether it was stored, and the key stored as its one word (FieldC.wkey_word: a flat
    plan's keys are one word each, settle_flat), with no load of it through wkey nor a
    test of its length. NULL (write_struct): the key as words, whatever its length."""
    if count == NULL:
        return store_field_key(p, fc)
    count[0] += 1
    memcpy(p, &fc.wkey_word, 8)             # one store (its room includes the word's overrun)
    return p + fc.wkey_len


cdef inline unsigned char *store_inline_field(unsigned char *p, unsigned char *limit, FieldC *fc, int inline_kind,
                                              PyObject *slot, bint omit, bint checked, Py_ssize_t *room,
                                              Py_ssize_t *count, bint with_name) noexcept:
    """A field whose value is an exact built-in of its type (inline_kind, the field's
    FieldC.inline_kind): its key and value stored at p; returns the position after
    them, or p itself when the value is the zero and omit asks it left out (the same
    zeros as is_plain_zero and write_time: 0, +0.0 but not -0.0 or NaN, "", b"", False,
    Go's zero instant); count, when not NULL, gets one more for a field stored. No Python
    code runs and nothing can fail. NULL, nothing stored, for anything else (write_value
    decides), or when it does not fit:

    ``checked``: the field is stored when its room (FieldC.inline_room, and a str's or
    []byte's data) fits below limit; else NO_ROOM (inline_field_room says how much it
    needs). Not checked (write_flat_record, once the record's fixed room is known to
    fit): room is the budget left for strs' and []bytes' data, which each takes from;
    NULL when it runs out. The write position is the caller's local, not the Writer's: the compiler keeps
    it in a register across fields, where each byte stored through the Writer's data
    could alias its fields and make it reload them."""
    cdef PyTypeObject *tp = Py_TYPE(<object>slot)
    cdef uint64_t bits
    cdef double d
    cdef Py_ssize_t n
    cdef const char *text
    cdef unsigned char byte
    cdef unsigned char *q
    cdef Py_ssize_t rare_room, rare_count   # (set where used: stores at every field otherwise)
    # A range test and tests in the order of how common the kinds are, the rarer kinds
    # out of line: a chain of tests costs the common kinds less than a jump table.
    if inline_kind <= INLINE_UNSIGNED:
        if tp != &PyLong_Type or not int_fits(<object>slot, inline_kind == INLINE_SIGNED, fc.imin, fc.imax,
                                              fc.umax, &bits):
            return NULL
        if bits == 0 and omit:
            return p
        if checked and fc.inline_room > limit - p:
            return NO_ROOM
        p = store_counted_key(p, fc, count)
        return p + zp_store_int(p, inline_kind == INLINE_SIGNED, bits)
    if inline_kind == INLINE_F64:
        if tp != &PyFloat_Type:
            return NULL
        d = PyFloat_AS_DOUBLE(<object>slot)
        if omit and d == 0.0 and not signbit(d):    # -0.0 is written: only +0.0 is empty
            return p
        if checked and fc.inline_room > limit - p:
            return NO_ROOM
        p = store_counted_key(p, fc, count)
        return p + zp_store_f64(p, d)
    if inline_kind == INLINE_STR:
        if tp != &PyUnicode_Type:
            return NULL
        text = exact_str_utf8(<object>slot, &n)
        # longer than msgpack allows: write_str raises (not checked, data_room refuses it:
        # its budget is never more than that)
        if text == NULL or (checked and n > ZP_MAX_LENGTH32):
            return NULL
        if n == 0 and omit:
            return p
        if not data_room(p, limit, fc, n, checked, room):
            return NO_ROOM if checked else NULL
        p = store_counted_key(p, fc, count)
        return p + zp_store_str(p, text, n)
    if inline_kind == INLINE_BOOL:
        if <object>slot is True:
            byte = ZP_TRUE
        elif <object>slot is False:
            if omit:
                return p
            byte = ZP_FALSE
        else:
            return NULL
        if checked and fc.inline_room > limit - p:
            return NO_ROOM
        p = store_counted_key(p, fc, count)
        p[0] = byte
        return p + 1
    if inline_kind == INLINE_TIME:
        if checked and fc.inline_room > limit - p:
            return NO_ROOM
        return store_time_field(p, fc, slot, omit, count)
    if count == NULL:                       # write_struct's (room NULL too): nothing to keep
        return store_inline_rare_field(p, limit, fc, inline_kind, slot, omit, checked, NULL, NULL)
    # the rare kinds' budget and count through locals of their own: those of the caller
    # (write_flat_record's loop) never have their address taken, and stay in registers
    rare_room = room[0]
    if inline_kind == INLINE_CONTAINER:     # write_flat_record's lists, maps and structs (with_name: its own)
        q = store_flat_container(p, limit, fc, slot, with_name, checked, &rare_room)
        if q != NULL and q != p:
            count[0] += 1
    else:
        rare_count = 0
        q = store_inline_rare_field(p, limit, fc, inline_kind, slot, omit, checked, &rare_room, &rare_count)
        count[0] += rare_count
    room[0] = rare_room
    return q


cdef inline unsigned char *store_time_field(unsigned char *p, FieldC *fc, PyObject *slot, bint omit,
                                            Py_ssize_t *count) noexcept:
    """store_inline_field's time (its room made): a datetime in UTC (zp_utc_datetime_unix)."""
    cdef int64_t seconds
    cdef uint32_t nanos
    if not zp_utc_datetime_unix(slot, <PyObject *>_UTC, &seconds, &nanos):
        return NULL
    if omit and seconds == ZP_GO_ZERO_SECONDS and nanos == 0:
        return p
    p = store_counted_key(p, fc, count)
    return p + zp_store_time(p, seconds, nanos)


cdef inline bint data_room(unsigned char *p, unsigned char *limit, FieldC *fc, Py_ssize_t n, bint checked,
                           Py_ssize_t *room) noexcept:
    """Whether a str's or []byte's n bytes of data fit (store_inline_field's room). Not
    checked, the budget is at most ZP_MAX_LENGTH32 (flat_fields): data longer than
    msgpack allows never fits."""
    if checked:
        return fc.inline_room + n <= limit - p
    if n > room[0]:
        return False
    room[0] -= n
    return True


cdef unsigned char *store_inline_rare_field(unsigned char *p, unsigned char *limit, FieldC *fc, int inline_kind,
                                            PyObject *slot, bint omit, bint checked, Py_ssize_t *room,
                                            Py_ssize_t *count) noexcept:
    """store_inline_field's other kinds: bytes, a float32, and a non-nil pointer (its nil
    is the field's zero, left out before), whose value is written whatever it is."""
    cdef Py_ssize_t n
    if inline_kind > INLINE_POINTER:
        if checked:
            return store_inline_field(p, limit, fc, inline_kind - INLINE_POINTER, slot, False, True, room, count,
                                      False)
        return store_inline_field(p, limit, fc, inline_kind - INLINE_POINTER, slot, False, False, room, count,
                                  False)
    if inline_kind == INLINE_ANY:
        return store_any_field(p, limit, fc, slot, checked, room, count)
    if inline_kind == INLINE_BYTES:
        if Py_TYPE(<object>slot) != &PyBytes_Type:
            return NULL
        n = PyBytes_GET_SIZE(<object>slot)
        if n == 0 and omit:
            return p
        if checked and n > ZP_MAX_LENGTH32:     # write_bin raises (not checked: data_room refuses it)
            return NULL
        if not data_room(p, limit, fc, n, checked, room):
            return NO_ROOM if checked else NULL
        p = store_counted_key(p, fc, count)
        return p + zp_store_blob(p, ZP_BIN, PyBytes_AS_STRING(<object>slot), n)
    if inline_kind == INLINE_F32:
        if Py_TYPE(<object>slot) != &PyFloat_Type:
            return NULL
        if omit and PyFloat_AS_DOUBLE(<object>slot) == 0.0 and not signbit(PyFloat_AS_DOUBLE(<object>slot)):
            return p
        if checked and fc.inline_room > limit - p:
            return NO_ROOM
        n = zp_store_f32(store_counted_key(p, fc, count), PyFloat_AS_DOUBLE(<object>slot))
        if n == 0:                          # out of float32's range: write_float raises
            return NULL
        return p + fc.wkey_len + n
    return NULL


cdef inline unsigned char *store_any_field(unsigned char *p, unsigned char *limit, FieldC *fc, PyObject *slot,
                                           bint checked, Py_ssize_t *room, Py_ssize_t *count) noexcept:
    """store_inline_rare_field's interface{} field (INLINE_ANY), never left out (the
    reference writes a nil one as nil): a str that has UTF-8, or one of
    store_any_scalar's values, as any_atom writes them; in write_flat_record (count not
    NULL), an exact list or dict too (store_any_container_field). NULL for anything else,
    which write_value's write_any writes or refuses (bytes, a time, out of range)."""
    cdef PyTypeObject *tp = Py_TYPE(<object>slot)
    if tp == &PyUnicode_Type:               # as a string field's, "" written too
        return store_inline_field(p, limit, fc, INLINE_STR, slot, False, checked, room, count, False)
    if tp == &PyDict_Type or tp == &PyList_Type:
        if count == NULL or fc.any_levels == 0:
            return NULL                     # write_struct's, or a plan too deep for them: write_any
        return store_any_container_field(p, limit, fc, slot, checked, room, count)
    if checked and fc.inline_room > limit - p:
        return NO_ROOM
    return store_any_scalar(store_counted_key(p, fc, count), slot)


cdef unsigned char *store_any_container_field(unsigned char *p, unsigned char *limit, FieldC *fc, PyObject *slot,
                                              bint checked, Py_ssize_t *room, Py_ssize_t *count) noexcept:
    """store_any_field's exact list or dict in write_flat_record, stored under its key as
    store_list_field stores a list (its key in the field's inline_room, the rest data):
    store_any_container's, fc.any_levels deep. NULL when it does not take it or it does
    not fit: write_struct writes the record (a miss: write_flat_record_by_value's)."""
    cdef unsigned char *data
    if checked and fc.inline_room > limit - p:
        return NULL
    p = store_counted_key(p, fc, count)
    data = p
    p = store_any_container(p, container_data_end(p, limit, checked, room), slot, fc.any_levels)
    if p != NULL and not checked:
        room[0] -= p - data
    return p


cdef unsigned char *store_any_container(unsigned char *p, unsigned char *end, PyObject *obj, int levels) noexcept:
    """An exact list or dict inside interface{} stored at p as write_any_list and
    write_any_map write it (the same bytes), none of it past end: when every item, key
    and value is one store_any_value takes within ``levels`` (this one the first of
    them). The position after it; NULL, for write_any, otherwise.
    No Python code runs: exact types, a str's UTF-8 cached by CPython without the
    collector (zp_str_utf8_or_null), so the list or dict cannot change."""
    cdef Py_ssize_t n, i, position = 0, size
    cdef PyObject *key
    cdef PyObject *item
    cdef const char *text
    if Py_TYPE(<object>obj) == &PyList_Type:
        n = PyList_GET_SIZE(<object>obj)
        if n > ZP_MAX_LENGTH32 or end - p < 5:
            return NULL
        p += zp_store_header(p, ZP_ARRAY, n)
        for i in range(n):
            p = store_any_value(p, end, PyList_GET_ITEM(<object>obj, i), levels)
            if p == NULL:
                return NULL
        return p
    n = PyDict_GET_SIZE(<object>obj)
    if n > ZP_MAX_LENGTH32 or end - p < 5:
        return NULL
    p += zp_store_header(p, ZP_MAP, n)
    while PyDict_Next(<object>obj, &position, &key, &item):
        if Py_TYPE(<object>key) != &PyUnicode_Type:     # write_any_odd_entry's: written or refused
            return NULL
        text = exact_str_utf8(<object>key, &size)
        if text == NULL or size > ZP_MAX_LENGTH32 or size + 5 > end - p:
            return NULL
        p = store_any_value(p + zp_store_str(p, text, size), end, item, levels)
        if p == NULL:
            return NULL
    return p


cdef inline unsigned char *store_any_value(unsigned char *p, unsigned char *end, PyObject *item,
                                           int levels) noexcept:
    """A list's item or a dict's value of store_any_container: an atom (store_any_atom,
    in line), else a list or dict one level down (store_any_inner, out of line)."""
    cdef unsigned char *q = store_any_atom(p, end, item)
    return q if q != NULL else store_any_inner(p, end, item, levels)


cdef unsigned char *store_any_inner(unsigned char *p, unsigned char *end, PyObject *item, int levels) noexcept:
    """store_any_value's item that is no atom: an exact list or dict one level down, when
    ``levels`` leaves one; NULL for anything else."""
    if levels > 1 and (Py_TYPE(<object>item) == &PyList_Type or Py_TYPE(<object>item) == &PyDict_Type):
        return store_any_container(p, end, item, levels - 1)
    return NULL


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    static inline unsigned char *__pyx_f_9zebrapack_5_core_store_any_atom(unsigned char *, unsigned char *,
                                                                          PyObject *) __attribute__((always_inline));
    static inline unsigned char *__pyx_f_9zebrapack_5_core_store_any_value(unsigned char *, unsigned char *,
                                                                           PyObject *, int)
        __attribute__((always_inline));
    #endif
    """


cdef inline unsigned char *store_any_atom(unsigned char *p, unsigned char *end, PyObject *item) noexcept:
    """What any_atom writes (a str that has UTF-8, store_any_scalar's values, bytes, a
    datetime in UTC) stored at p, none of it past end: the position after it; NULL for
    anything else (a list, a dict) or when it does not fit."""
    cdef PyTypeObject *tp = Py_TYPE(<object>item)
    cdef Py_ssize_t n
    cdef const char *text
    cdef unsigned char *q
    cdef int64_t seconds
    cdef uint32_t nanos
    if tp == &PyUnicode_Type:
        text = exact_str_utf8(<object>item, &n)
        if text == NULL or n > ZP_MAX_LENGTH32 or n + 5 > end - p:
            return NULL
        return p + zp_store_str(p, text, n)
    if end - p < 15:                        # a scalar's 9 bytes, a time's 15
        return NULL
    q = store_any_scalar(p, item)
    if q != NULL:
        return q
    if tp == &PyBytes_Type:
        n = PyBytes_GET_SIZE(<object>item)
        if n > ZP_MAX_LENGTH32 or n + 5 > end - p:
            return NULL
        return p + zp_store_blob(p, ZP_BIN, PyBytes_AS_STRING(<object>item), n)
    if zp_utc_datetime_unix(item, <PyObject *>_UTC, &seconds, &nanos):
        return p + zp_store_time(p, seconds, nanos)
    return NULL


cdef Py_ssize_t inline_field_room(FieldC *fc, PyObject *slot) noexcept:
    """The room a field store_inline_field found NO_ROOM for needs: its inline_room, and
    a str's or []byte's data."""
    cdef Py_ssize_t n = 0
    if Py_TYPE(<object>slot) == &PyUnicode_Type:
        exact_str_utf8(<object>slot, &n)    # held by the str since store_inline_field asked
    elif Py_TYPE(<object>slot) == &PyBytes_Type:
        n = PyBytes_GET_SIZE(<object>slot)
    return fc.inline_room + n


cdef inline int inline_field_written(Writer *w, unsigned char *p, unsigned char *end) noexcept:
    """write_inline_field's answer for what store_inline_field stored at p (w.pos), ended at end."""
    if end == NULL:
        return FIELD_GENERAL
    if end == p:
        return FIELD_OMITTED
    w.pos = end - w.data
    return FIELD_WRITTEN


cdef inline int write_inline_field(Writer *w, FieldC *fc, PyObject *slot, bint omit) except -1:
    """store_inline_field at w.pos, for write_struct: FIELD_WRITTEN, FIELD_OMITTED or
    FIELD_GENERAL, the buffer grown when the field does not fit (the one thing of an
    inline field that can fail: the field goes into the trail only then, for the
    error's path)."""
    cdef int kind = fc.inline_kind
    cdef unsigned char *p = w.data + w.pos
    cdef unsigned char *end
    if kind > INLINE_POINTER:
        # a non-nil pointer (its nil, the field's zero, was left out before): its value,
        # written whatever it is, through the kinds in line here rather than by a call
        # to store_inline_rare_field, which would take them the same way
        kind -= INLINE_POINTER
        omit = False
    end = store_inline_field(p, w.data + w.cap, fc, kind, slot, omit, True, NULL, NULL, False)
    if end == NO_ROOM:                      # (a time's room is tested before its value)
        return write_inline_field_grown(w, fc, kind, slot, omit)
    return inline_field_written(w, p, end)


cdef int write_inline_field_grown(Writer *w, FieldC *fc, int kind, PyObject *slot, bint omit) except -1:
    """write_inline_field's field that did not fit: the buffer grown, then stored."""
    trail_field(&w.trail, fc.plan)
    writer_grow(w, inline_field_room(fc, slot))
    cdef unsigned char *p = w.data + w.pos
    return inline_field_written(w, p, store_inline_field(p, w.data + w.cap, fc, kind, slot, omit, True, NULL, NULL,
                                                         False))


cdef bint store_run_field(Writer *w, FieldC *fc, PyObject *slot) noexcept:
    """write_struct's []T or map[K]V field whose items or entries take runs (FLAT_LIST,
    FLAT_MAP), as write_flat_record stores it (store_list_field, store_map_field: the
    bytes write_sequence and write_map write), at w.pos when its level needs no asking
    (trail_levels_fit) and it fits the buffer (sized by the plan's last record): True when
    stored. False, nothing kept, for write_sequence or write_map (an empty one too, which
    they write or leave out; an item they refuse; a buffer to grow)."""
    cdef unsigned char *p = w.data + w.pos
    cdef unsigned char *end
    cdef Py_ssize_t room = 0                # (only the unchecked form charges it)
    if not trail_levels_fit(&w.trail, 1):
        return False
    if fc.flat_kind == FLAT_LIST:
        end = store_list_field(p, w.data + w.cap, fc, slot, True, &room)
    else:
        end = store_map_field(p, w.data + w.cap, fc, slot, True, &room)
    if end == NULL or end == p:
        return False
    w.pos = end - w.data
    return True


cdef inline FieldC *skip_zero_slots(FieldC *fc, FieldC *end, object obj) noexcept:
    """The first field from fc whose slot does not hold the field's zero by identity (end
    when none does). For a record read by its slots with zero fields omitted: a run of
    zero fields, the bulk of a sparse record, costs a load and a compare per field."""
    while fc < end and zp_slot_get(obj, fc.offset) == fc.zero:
        fc += 1
    return fc


cdef inline Py_ssize_t open_struct_map(Writer *w, StructPlan sp, Py_ssize_t header_size, bint with_name) noexcept:
    """Room for the map header left at w.pos (room for it and the name entry ensured;
    zp_close_map stores it), then the -1 name entry if with_name; returns the entries
    written (0 or 1)."""
    w.pos += header_size
    if not with_name:
        return 0
    zp_copy_short(w.data + w.pos, sp.name_entry_c, sp.name_entry_len)   # short: no libc call
    w.pos += sp.name_entry_len
    return 1


cdef int write_struct(Writer *w, StructPlan sp, object obj, bint with_name, bint inlined) except -1:
    """Fields in zid order (declaration order in msgp mode) under a map header
    sized for the fields actually written, as the reference writes it. ``inlined``:
    the reference generator inlined the struct here (TypePlan.inlined), so that in
    msgp mode every field is written, omitempty or not."""
    cdef FieldC *fields = (sp.cmsgp_every if inlined else sp.cmsgp_fields) if w.msgp else sp.cfields
    cdef FieldC *fc
    cdef FieldC *next_field = fields       # walked by pointer: no multiply by FieldC's size a field
    cdef FieldC *end = fields + sp.field_count
    cdef Py_ssize_t count, key_pos, header_pos, header_size
    cdef Py_ssize_t next_unknown = 0, unknown_count = 0
    cdef PyObject *slot
    cdef bint direct = sp.slots_readable and Py_TYPE(obj) == sp.tp
    cdef bint omit, omit_zeros = not w.msgp    # msgp mode omits only omitempty fields
    cdef int written
    cdef list unknown = None
    if sp.prologue:
        unknown = _struct_prologue(w, sp, obj)
        unknown_count = len(unknown)
    header_size = zp_map_header_size(sp.field_count + with_name + unknown_count)
    ensure(w, header_size + sp.name_entry_len)
    header_pos = w.pos
    count = open_struct_map(w, sp, header_size, with_name)
    writer_enter(w)
    while next_field < end:
        fc = next_field
        next_field += 1
        if unknown_count and not w.msgp:    # unknown zids go back in zid order
            while next_unknown < unknown_count and _entry_before(unknown[next_unknown], fc.zid):
                count += put_unknown_entry(w, unknown[next_unknown])
                next_unknown += 1
        if direct:
            slot = zp_slot_get(obj, fc.offset)
        else:
            trail_field(&w.trail, fc.plan)
            value = getattr(obj, (<FieldPlan>fc.plan).attr)
            slot = <PyObject *>value
        # slot is borrowed from obj (or held by value) until Python code may run
        omit = omit_zeros | fc.omitempty
        if slot == fc.zero and omit:        # fc.zero is never NULL: an unset slot is not skipped
            if direct and omit_zeros and unknown_count == 0:   # and the zeros after it, in a tight loop
                next_field = skip_zero_slots(next_field, end, obj)
            continue                        # nothing can fail here: no trail entry needed
        if slot == NULL:
            trail_field(&w.trail, fc.plan)
            writer_fail(w, f"field {(<FieldPlan>fc.plan).name} is not set")
        if fc.inline_kind != INLINE_NONE:
            written = write_inline_field(w, fc, slot, omit)
            if written == FIELD_WRITTEN:
                count += 1
                continue
            if written == FIELD_OMITTED:
                continue
        if omit and is_plain_zero(fc, slot):
            continue                        # nothing can fail here: no trail entry needed
        if (fc.flat_kind == FLAT_LIST or fc.flat_kind == FLAT_MAP) and store_run_field(w, fc, slot):
            count += 1
            continue
        trail_field(&w.trail, fc.plan)
        key_pos = w.pos
        ensure(w, fc.wkey_len + 7)          # the key as words (store_field_key): no memcpy call
        w.pos = store_field_key(w.data + w.pos, fc) - w.data
        held = <object>slot                 # a strong reference: what follows may run Python code
        if fc.time_field:
            written = write_time(w, <TypePlan>fc.type, held, omit, True)
        elif fc.nested != NULL and held is not None and PyObject_TypeCheck(held, (<StructPlan>fc.nested).tp):
            # a struct or a non-nil *struct: written here, without write_value's C frame
            # (pointer fields are how structs recurse deeply)
            written = write_struct(w, <StructPlan>fc.nested, held, w.structnames and not w.msgp, fc.nested_inlined)
        elif fc.elem != NULL and held is not None:
            # a non-nil *T is written as T without the pointer's own C frame
            written = write_value(w, <TypePlan>fc.elem, held, False)
        elif fc.kind == K_SLICE or fc.kind == K_ARRAY:     # write_value's own calls, without its dispatch
            written = write_sequence(w, <TypePlan>fc.type, held, omit)
        elif fc.kind == K_MAP:
            written = write_map(w, <TypePlan>fc.type, held, omit)
        else:
            written = write_value(w, <TypePlan>fc.type, held, omit)
        if written:
            count += 1
            if fc.deprecated:               # the warnings registry gives it once per call site
                warn_deprecated(sp, <FieldPlan>fc.plan)
        else:
            w.pos = key_pos
    while next_unknown < unknown_count:
        count += put_unknown_entry(w, unknown[next_unknown])
        next_unknown += 1
    trail_leave(&w.trail)
    w.pos = zp_close_map(w.data, header_pos, header_size, w.pos, count)
    return 1


cdef list struct_prologue(Writer *w, StructPlan sp, object obj):
    """What write_struct checks and gathers first for some structs (StructPlan.prologue):
    a field without a zid is an error in zebrapack mode; the preserved unknown entries."""
    if sp.without_zid is not None and not w.msgp:
        writer_fail(w, f"{sp.name}.{sp.without_zid} has no zid (the schema was made for -msgp): "
                       f"zebrapack mode keys fields by zid; encode it with mode='msgp'")
    return unknown_entries(w, sp, obj) if sp.preserve else []

# Called through a pointer: out of write_struct, which the C compiler then keeps small
# enough to take write_inline_field in line.
cdef list (*_struct_prologue)(Writer *, StructPlan, object)
_struct_prologue = struct_prologue


cdef inline unsigned char *store_list_field(unsigned char *p, unsigned char *limit, FieldC *fc, PyObject *slot,
                                            bint checked, Py_ssize_t *room) noexcept:
    """write_flat_record's []T field (FLAT_LIST): an exact list or tuple whose items are
    all of those write_number_run or write_str_run write (each written as they write it),
    stored under its key at p; returns the position after it, or p itself when it is
    empty (left out: a flat record omits zeros). NULL, nothing to keep, for anything else
    or when it does not fit (``checked`` and ``room`` as store_inline_field's: its key and
    header are in the field's inline_room; its items are data, each tested for its
    largest form and counted at what it took, up to data_end: container_data_end)."""
    cdef Py_ssize_t n
    cdef unsigned char *items
    if Py_TYPE(<object>slot) == &PyList_Type:
        n = PyList_GET_SIZE(<object>slot)
    elif PyTuple_CheckExact(<object>slot):
        n = PyTuple_GET_SIZE(<object>slot)
    else:
        return NULL
    if n == 0:
        return p
    if n > ZP_MAX_LENGTH32 or (checked and fc.inline_room > limit - p):     # (write_sequence raises)
        return NULL
    p = store_field_key(p, fc)
    p += zp_store_header(p, ZP_ARRAY, n)
    items = p
    p = store_run_items(p, container_data_end(p, limit, checked, room), PySequence_Fast_ITEMS(<object>slot), n,
                        fc.list_run, fc.list_nullable, fc.imin, fc.imax, fc.umax)
    if p != NULL and not checked:
        room[0] -= p - items
    return p


@cython.cdivision(True)      # a positive room over a positive width
cdef inline unsigned char *store_run_items(unsigned char *p, unsigned char *data_end, PyObject **objects,
                                           Py_ssize_t n, int family, bint nullable, int64_t imin, int64_t imax,
                                           uint64_t umax) noexcept:
    """The n items at objects stored at p as write_number_run or write_str_run write them
    (family: container_run's; nullable: None is nil), none past data_end: the position
    after them, or NULL for an item they do not write or when they do not fit."""
    cdef Py_ssize_t i = 0, stop, size, width
    cdef PyObject *item
    cdef const char *text
    if family != RUN_STR:
        width = run_width(family)
        while i < n:                        # in runs of the items that surely fit (write_number_run's)
            stop = i + min(n - i, <Py_ssize_t>(data_end - p) // width)
            if stop == i or number_run_items(&p, objects, i, stop, family, nullable, imin, imax, umax) != stop:
                return NULL
            i = stop
        return p
    for i in range(n):
        item = objects[i]
        if nullable and <object>item is None:
            if p >= data_end:
                return NULL
            p[0] = ZP_NIL
            p += 1
        else:
            text = str_item_utf8(item, &size)
            if text == NULL or size + 5 > data_end - p:
                return NULL
            p += zp_store_str(p, text, size)
    return p


cdef inline unsigned char *container_data_end(unsigned char *p, unsigned char *limit, bint checked,
                                              Py_ssize_t *room) noexcept:
    """Where a list's items or a map's entries, stored from p, may reach: the buffer's end
    when each field is checked; else the record's budget for data (its fixed room is kept
    for the fields after it), which the caller then charges with what they took."""
    return limit if checked else p + room[0]


cdef inline unsigned char *store_map_field(unsigned char *p, unsigned char *limit, FieldC *fc, PyObject *slot,
                                           bint checked, Py_ssize_t *room) noexcept:
    """write_flat_record's map[K]V field (FLAT_MAP): an exact dict whose entries are all
    store_run_entry's, as store_list_field (each entry tested for the room it takes). No Python
    code runs: the dict cannot change."""
    cdef Py_ssize_t n
    cdef unsigned char *entries
    if Py_TYPE(<object>slot) != &PyDict_Type:
        return NULL
    n = PyDict_GET_SIZE(<object>slot)
    if n == 0:
        return p
    if n > ZP_MAX_LENGTH32 or (checked and fc.inline_room > limit - p):
        return NULL
    p = store_field_key(p, fc)
    p += zp_store_header(p, ZP_MAP, n)
    entries = p
    p = store_run_entries(p, container_data_end(p, limit, checked, room), slot, fc.list_run, fc.imin, fc.imax,
                          fc.umax, fc.key_imin, fc.key_imax, fc.key_umax)
    if p != NULL and not checked:
        room[0] -= p - entries
    return p


cdef unsigned char *store_run_entries(unsigned char *p, unsigned char *data_end, PyObject *d, int family,
                                      int64_t imin, int64_t imax, uint64_t umax, int64_t key_min, int64_t key_max,
                                      uint64_t key_umax) noexcept:
    """The entries of the dict d stored at p, each store_run_entry's (family: container_run's;
    imin..umax the values' range, key_min..key_umax the keys'), none past data_end: the
    position after them, or NULL for an entry it does not write or when they do not fit.
    run_entries' loop with the values' family a constant in each."""
    cdef int keys = family & MAP_KEYS
    cdef int values = family & MAP_VALUES
    cdef bint nullable = family & MAP_NULLABLE_VALUES
    if values == RUN_SIGNED:
        return run_entries(p, data_end, d, RUN_SIGNED, keys, nullable, imin, imax, 0, key_min, key_max, key_umax)
    if values == RUN_UNSIGNED:
        return run_entries(p, data_end, d, RUN_UNSIGNED, keys, nullable, 0, 0, umax, key_min, key_max, key_umax)
    if values == RUN_F64:
        return run_entries(p, data_end, d, RUN_F64, keys, nullable, 0, 0, 0, key_min, key_max, key_umax)
    if values == RUN_F32:
        return run_entries(p, data_end, d, RUN_F32, keys, nullable, 0, 0, 0, key_min, key_max, key_umax)
    if values == RUN_BOOL:
        return run_entries(p, data_end, d, RUN_BOOL, keys, nullable, 0, 0, 0, key_min, key_max, key_umax)
    if values == RUN_TIME:
        return run_entries(p, data_end, d, RUN_TIME, keys, nullable, 0, 0, 0, key_min, key_max, key_umax)
    return run_entries(p, data_end, d, RUN_STR, keys, nullable, 0, 0, 0, key_min, key_max, key_umax)


cdef inline unsigned char *run_entries(unsigned char *p, unsigned char *data_end, PyObject *d, int values, int keys,
                                       bint nullable, int64_t imin, int64_t imax, uint64_t umax, int64_t key_min,
                                       int64_t key_max, uint64_t key_umax) noexcept:
    """store_run_entries' loop (values and keys as store_run_entry's)."""
    cdef Py_ssize_t position = 0, need
    cdef PyObject *key
    cdef PyObject *value
    while PyDict_Next(<object>d, &position, &key, &value):
        p = store_run_entry(p, data_end, key, value, values, keys, nullable, imin, imax, umax, key_min, key_max,
                            key_umax, &need)
        if p == NULL or p == NO_ROOM:
            return NULL
    return p


cdef unsigned char *store_flat_container(unsigned char *p, unsigned char *limit, FieldC *fc, PyObject *slot,
                                         bint with_name, bint checked, Py_ssize_t *room) noexcept:
    """write_flat_record's fields that are not inline (FieldC.flat_kind): a list, a map, or
    a struct of a flat plan, exactly its class, written by flat_fields (with_name as its
    record's). As store_inline_field: the position after it, p itself when left out,
    NULL for anything else or when it does not fit. Out of line: the loop stays small,
    and a struct in a struct recurses here."""
    if fc.flat_kind == FLAT_LIST:
        return store_list_field(p, limit, fc, slot, checked, room)
    if fc.flat_kind == FLAT_MAP:
        return store_map_field(p, limit, fc, slot, checked, room)
    return store_struct_field(p, limit, fc, slot, with_name, checked, room)


cdef unsigned char *store_struct_field(unsigned char *p, unsigned char *limit, FieldC *fc, PyObject *slot,
                                       bint with_name, bint checked, Py_ssize_t *room) noexcept:
    """store_flat_container's struct (FLAT_STRUCT): a record of exactly the field's flat
    plan, by flat_fields in its record's budget. A function of its own (never inlined):
    the lists' and maps' store_flat_container stays small."""
    cdef Py_ssize_t end
    if Py_TYPE(<object>slot) != (<StructPlan>fc.nested).tp or (checked and fc.inline_room > limit - p):
        return NULL
    p = store_field_key(p, fc)
    if checked:
        end = flat_fields(p, 0, limit - p, <StructPlan>fc.nested, <object>slot, with_name, True, room)
    else:
        end = flat_fields(p, 0, limit - p, <StructPlan>fc.nested, <object>slot, with_name, False, room)
    return NULL if end < 0 else p + end


cdef inline int write_flat_root(Writer *w, StructPlan sp, object obj) noexcept:
    """A root record (encode's, encode_into's) through write_flat_record when it may take
    it: a flat plan, zebrapack mode, exactly the plan's class. 1 when written; 0 and
    nothing written otherwise, for write_struct."""
    cdef Py_ssize_t end
    if sp.flat and not w.msgp and Py_TYPE(obj) == sp.tp:
        end = write_flat_record(w.data, w.pos, w.cap, sp, obj, w.structnames)
        if end >= 0:
            w.pos = end
            return 1
    return 0


cdef inline Py_ssize_t flat_fields(unsigned char *data, Py_ssize_t pos, Py_ssize_t cap, StructPlan sp,
                                   object obj, bint with_name, bint checked, Py_ssize_t *budget) noexcept:
    """write_flat_record's loop; ``checked``: each field's room tested (store_inline_field),
    else the record's fixed room known to fit. ``budget``: NULL for a root record; a
    struct in a record (store_flat_container) takes its data from its record's budget,
    its fixed room in its record's."""
    cdef unsigned char *start = data + pos
    cdef unsigned char *limit = data + cap
    cdef Py_ssize_t header_size = sp.flat_header[with_name]
    cdef unsigned char *p = start + header_size
    cdef unsigned char *q
    cdef Py_ssize_t count = 0
    # not checked: the budget for data, never more than msgpack's longest str or bin
    # (capped before the fixed room is taken: encode's stack buffer's room is a constant)
    cdef Py_ssize_t room = budget[0] if budget != NULL else min(cap - pos, ZP_MAX_LENGTH32) - sp.flat_room
    cdef FieldC *fc = sp.cfields
    cdef FieldC *end = sp.cfields_end
    cdef PyObject *slot
    if checked and header_size + sp.name_entry_len + 7 > limit - start:
        return -1
    if with_name:
        p = zp_copy_words(p, sp.name_entry_w, sp.name_entry_len)
        count = 1
    while fc < end:
        slot = zp_slot_get(obj, fc.offset)
        if slot != fc.zero:
            if slot == NULL:
                return -1
            # (lists, maps and structs: the rare kinds' INLINE_CONTAINER)
            q = store_inline_field(p, limit, fc, fc.flat_inline_kind, slot, True, checked, &room, &count, with_name)
            if q == NULL or (checked and q == NO_ROOM):     # not a value it takes, or no room
                return -1                   # (not checked, there is no NO_ROOM: no test for it)
            p = q                           # (p itself: a zero left out)
        fc += 1
    if budget != NULL:
        budget[0] = room
    return zp_close_map(data, pos, header_size, p - data, count)


cdef inline Py_ssize_t write_flat_record(unsigned char *data, Py_ssize_t pos, Py_ssize_t cap, StructPlan sp,
                                         object obj, bint with_name) noexcept:
    """A root record of a flat plan (StructPlan.flat), in zebrapack mode and of exactly
    the plan's class, at data + pos (cap bytes of room in data): one loop over its
    slots, zero fields left out; returns the position after it. Nothing in it can fail:
    a value store_inline_field does not write itself (another type, out of range, a str
    with a surrogate, an unset slot) or a buffer too short returns -1, and write_struct
    writes the record (growing the buffer, raising what it raises). A root record needs
    no trail level: depth 1 is within every max_depth. When the record's fixed room
    and its last size fit (flat_room_fits), its fields are stored without a room test each."""
    if sp.flat_by_value:
        return write_flat_record_by_value(data, pos, cap, sp, obj, with_name)
    if flat_room_fits(sp, cap - pos):
        return flat_fields(data, pos, cap, sp, obj, with_name, False, NULL)
    return flat_fields(data, pos, cap, sp, obj, with_name, True, NULL)


cdef inline bint flat_room_fits(StructPlan sp, Py_ssize_t room) noexcept:
    """Whether write_flat_record stores a record of sp in room bytes without a test per
    field: its fixed room (StructPlan.flat_room) and, past it, the size of the plan's last
    record (its size hint) for its data. Else each field is tested against the buffer's
    end: a record that nearly fills its buffer (encode's stack buffer) is written there,
    not refused for the budget its fixed room's largest forms leave its data."""
    return sp.flat_room + zp_hint_load(&sp.size_hint) <= room


cdef Py_ssize_t write_flat_record_by_value(unsigned char *data, Py_ssize_t pos, Py_ssize_t cap, StructPlan sp,
                                          object obj, bint with_name) noexcept:
    """write_flat_record for a plan whose records may leave it by their values
    (StructPlan.flat_by_value: an interface{} field holding a container, which only
    write_struct writes): after a record that left it, the next records of the plan pass
    it by, one, then three, seven... up to 1023 after as many misses in a row, so that a
    stream of such records is written by write_struct alone, not twice begun; a record
    it writes ends the backing off. (The counts are hints: relaxed atomics, as size_hint.)"""
    cdef Py_ssize_t end, backoff
    cdef Py_ssize_t skip = zp_hint_load(&sp.flat_skip)
    if skip:
        zp_hint_store(&sp.flat_skip, skip - 1)
        return -1
    if flat_room_fits(sp, cap - pos):
        end = flat_fields(data, pos, cap, sp, obj, with_name, False, NULL)
    else:
        end = flat_fields(data, pos, cap, sp, obj, with_name, True, NULL)
    backoff = zp_hint_load(&sp.flat_backoff)
    if end < 0:
        backoff = min(2 * backoff + 1, 1023)
        zp_hint_store(&sp.flat_backoff, backoff)
        zp_hint_store(&sp.flat_skip, backoff)
    elif backoff:
        zp_hint_store(&sp.flat_backoff, 0)
    return end


cdef inline bint flat_items_fit(Trail *t, StructPlan sp) noexcept:
    """Whether a list here (one level below the trail's depth) may have its items of the
    flat plan sp written by write_flat_nested: a plan of scalars (its one level
    write_flat_nested enters itself), or one whose levels below the item (lists, maps,
    structs) the general path would all enter without growing the trail or asking the
    thread's stack (a shallow list; a trail grown later only has more room, and a stack
    that let the items before go deeper lets these go as deep)."""
    return sp.flat_levels == 1 or trail_levels_fit(t, 1 + sp.flat_levels)


cdef int write_flat_nested(Writer *w, StructPlan sp, object obj, bint with_name) noexcept:
    """A list item of exactly a flat plan's class, in zebrapack mode (write_sequence's)
    through write_flat_record, one trail level entered for it as write_struct enters it
    (a limit it passes: 0, and write_struct raises); write_sequence has seen that the
    levels below it fit (flat_items_fit). 1 when written; 0 and nothing written otherwise
    (write_struct writes it)."""
    cdef Py_ssize_t end
    if not trail_enter(&w.trail):
        return 0
    end = write_flat_record(w.data, w.pos, w.cap, sp, obj, with_name)
    trail_leave(&w.trail)
    if end < 0:
        return 0
    w.pos = end
    return 1


# write_struct called without Cython's check of its result, by the entry points, which
# test it themselves: their success path then needs no try (see Codec._encode_failed).
ctypedef int (*unchecked_struct_writer)(Writer *, StructPlan, object, bint, bint) noexcept
cdef unchecked_struct_writer _write_struct_unchecked = <unchecked_struct_writer>write_struct


cdef int _raise_pending() except -1:
    """Hands the exception already set (by a call made unchecked) to Cython's handling,
    its traceback cut to the ends when the error left a deep value (zp_traceback.h)."""
    zp_traceback_shorten_pending()
    return -1


cdef list unknown_entries(Writer *w, StructPlan sp, object obj):
    """The preserved unknown entries of obj as (zid or tag, raw value), zids first in order.

    An entry whose zid or tag is a field of this schema yields to the field (an
    instance read by an older schema, written by a newer one that knows it)."""
    cdef PyObject *slot
    cdef list kept = []
    if sp.unknown_offset >= 0 and Py_TYPE(obj) == sp.tp:
        slot = zp_slot_get(obj, sp.unknown_offset)
        entries = <object>slot if slot != NULL else None
    else:
        entries = getattr(obj, UNKNOWN_ATTR, None)
    if not entries:
        return []
    if not isinstance(entries, dict):
        writer_fail(w, f"{UNKNOWN_ATTR} must be a dict of zid or tag -> raw msgpack bytes")
    for key, raw in entries.items():
        if not isinstance(raw, bytes) or not (isinstance(key, str) or isinstance(key, int) and not isinstance(key, bool)):
            writer_fail(w, f"{UNKNOWN_ATTR} must map a zid (int) or tag (str) to raw msgpack bytes, not {key!r}: {raw!r}")
        if not _is_field_key(sp, key):
            kept.append((key, raw))
    return sorted(kept, key=_unknown_order)


cdef bint _is_field_key(StructPlan sp, object key):
    if isinstance(key, int):
        return 0 <= key <= INT64_MAX and field_c_by_zid(sp, key) != NULL
    encoded = (<str>key).encode("utf-8", "surrogatepass")
    for item in sp.msgp_fields:
        if (<FieldPlan>item).tag == encoded:
            return True
    return False


def _unknown_order(entry):
    key = entry[0]
    return (0, key, "") if isinstance(key, int) else (1, 0, key)


cdef inline bint _entry_before(tuple entry, Py_ssize_t zid):
    key = entry[0]
    return isinstance(key, int) and key < zid


cdef int put_unknown_entry(Writer *w, tuple entry) except -1:
    """Write one preserved entry back: its key, then its raw value as it was read."""
    key, raw = entry
    check_raw_value(w, key, raw)
    if isinstance(key, int):
        if key == -1:
            writer_fail(w, f"{UNKNOWN_ATTR} key -1 would be read as the struct's name")
        if 0x7fffffff < key <= UINT64_MAX:  # no zid: a key read from the uint family
            put_unsigned(w, key)
        elif INT64_MIN <= key:
            put_signed(w, key)
        else:
            writer_fail(w, f"{UNKNOWN_ATTR} key {key} is neither an int64 nor a uint64")
    else:
        encoded = (<str>key).encode("utf-8")
        put_header(w, ZP_STR, len(encoded))
        put_bytes_object(w, encoded)
    put_bytes_object(w, raw)
    return 1


cdef int check_raw_value(Writer *w, object key, bytes raw) except -1:
    """A preserved value must be one msgpack value that decoding reads back (nested
    no deeper than the codec allows from here), or the record written is unreadable."""
    problem = raw_problem(<const unsigned char *>PyBytes_AS_STRING(raw), PyBytes_GET_SIZE(raw),
                          trail_levels_left(&w.trail))
    if problem is not None:
        writer_fail(w, f"{UNKNOWN_ATTR}[{key!r}] is not one msgpack value: {problem}")
    return 0


cdef int warn_deprecated(StructPlan sp, FieldPlan fp) except -1:
    message = f"{sp.name}.{fp.name} (zid {fp.zid}) is deprecated in the schema but was written".encode("utf-8")
    return PyErr_WarnEx(DeprecationWarning, message, 1)


cdef StructPlan plan_of_instance(dict by_class, object value):
    """The struct plan of a schema instance (its class or a base of it), or None."""
    plan = by_class.get(type(value))
    if plan is None:
        for base in type(value).__mro__[1:]:
            plan = by_class.get(base)
            if plan is not None:
                break
    return plan


cdef int write_named_struct(Writer *w, TypePlan t, object value, bint omit) except -1:
    """An interface-typed field: any struct of the schema, always with its -1 name."""
    if value is None:           # empty, as a nil pointer (golden/headerplus): written only where kept
        if omit:
            return 0
        return put_byte(w, ZP_NIL) + 1
    plan = plan_of_instance(<dict>w.by_class, value)
    if plan is None:
        return writer_type_error(w, t, value, "not an instance of a struct of this schema")
    return write_struct(w, <StructPlan>plan, value, True, False)


cdef int write_value(Writer *w, TypePlan t, object value, bint omit) except -1:
    cdef int kind = t.kind
    if kind == K_STRING:
        return write_str(w, t, value, omit)
    if kind >= K_UINT and kind <= K_INT64:
        return write_integer(w, t, value, omit)
    if kind == K_F64 or kind == K_F32:
        return write_float(w, t, value, omit)
    if kind == K_BOOL:
        return write_bool(w, t, value, omit)
    if kind == K_STRUCT:
        if not PyObject_TypeCheck(value, t.struct_plan.tp):
            return writer_type_error(w, t, value)
        return write_struct(w, t.struct_plan, value, w.structnames and not w.msgp, t.inlined)
    if kind == K_SLICE or kind == K_ARRAY:
        return write_sequence(w, t, value, omit)
    if kind == K_MAP:
        return write_map(w, t, value, omit)
    if kind == K_POINTER:
        if value is None:
            if omit:
                return 0
            return put_byte(w, ZP_NIL) + 1
        return write_value(w, t.elem, value, False)
    if kind == K_BYTES or kind == K_BYTEARRAY:
        return write_bin(w, t, value, omit)
    if kind == K_TIME:
        return write_time(w, t, value, omit, False)
    if kind == K_INTF:
        # The reference generator treats interface{} fields as never empty
        # (gen/omitempty.go): a nil one is written as nil, as zpn/Prims_max shows.
        if value is None:
            return put_byte(w, ZP_NIL) + 1
        return write_any(w, value)
    if kind == K_IFACE:
        return write_named_struct(w, t, value, omit)
    if kind == K_C64 or kind == K_C128:
        return write_complex(w, t, value, omit)
    if kind == K_EXT:
        return write_ext(w, t, value, omit)
    if kind == K_RAW:
        return _write_raw(w, t, value)
    if kind == K_NUMBER:
        return _write_number(w, t, value)
    if kind == K_UNUSABLE:
        return _write_unusable(w, t, value)
    raise AssertionError(f"unknown plan kind {kind}")


# -- interface{}: dynamic values ------------------------------------------------

cdef int write_any(Writer *w, object value) except -1:
    """interface{}: the msgpack type follows the Python type. An exact dict or list goes
    to write_any_map / write_any_list, which write the containers inside it themselves
    (their nesting costs a C frame a level, not write_any's); an exact built-in scalar to
    write_any_atom; anything else is tested here."""
    cdef int64_t seconds
    cdef uint32_t nanos
    cdef Py_ssize_t n, i
    cdef Py_ssize_t length
    cdef const char *text
    # The exact types of JSON-like documents first: each failing subtype or
    # isinstance test of the chain below walks the MRO.
    cdef PyTypeObject *tp = Py_TYPE(value)
    if tp == &PyDict_Type:
        return write_any_map(w, value)
    if tp == &PyList_Type:
        return write_any_list(w, value)
    if _write_any_atom(w, <PyObject *>value):
        return 1
    if PyLong_Check(value) or PyFloat_Check(value):     # subclasses (GoUint64, GoFloat32), large ints
        return put_go_number(w, value) + 1
    if PyUnicode_Check(value):                          # a subclass, or a str with a surrogate (raised here)
        text = PyUnicode_AsUTF8AndSize(value, &length)
        return put_str(w, text, length) + 1
    if PyBytes_Check(value) or PyByteArray_Check(value) or isinstance(value, memoryview):
        return write_bin(w, _BYTES_PLAN, value, False)
    if PyDateTime_Check(value):
        datetime_to_unix(w, value, &seconds, &nanos)
        return put_time(w, seconds, nanos) + 1
    if PyComplex_Check(value):
        if Py_TYPE(value) == <PyTypeObject *>_GoComplex64:
            return write_complex(w, _COMPLEX64_PLAN, value, False)
        return write_complex(w, _COMPLEX128_PLAN, value, False)
    if type(value) is _GoTime:
        return put_time(w, value.seconds, value.nanoseconds) + 1
    if isinstance(value, _ExtTypes):
        # an ext 3 or 4 that Go reads is a complex64 / complex128: their fixext header
        return put_ext_value(w, value, w.fixext or check_any_ext(w, value)) + 1
    if PyList_Check(value) or PyTuple_Check(value):
        n = len(value)
        put_array_header(w, n)
        writer_enter(w)
        for i in range(n):
            trail_index(&w.trail, i)
            if PyList_Check(value) and PyList_GET_SIZE(value) != n:
                writer_fail(w, "list changed size while it was encoded")
            write_any(w, value[i])
        trail_leave(&w.trail)
        return 1
    if PyDict_Check(value):
        return write_any_map(w, value)
    plan = plan_of_instance(<dict>w.by_class, value)
    if plan is not None:
        return write_struct(w, <StructPlan>plan, value, not w.msgp, False)
    return writer_fail(w, f"{type(value).__name__} {_short_repr(value)} cannot be written as interface{{}}")


cdef inline int write_any_item(Writer *w, PyObject *item) except -1:
    """A value inside an interface{} map or list that is not an atom (any_atom), its step
    in the trail: an exact dict or list by write_any_map or write_any_list straight away,
    anything else by write_any. Held by a strong reference while it is written: Python
    code may run then (a struct's attributes, a tzinfo) and drop it from its container."""
    held = <object>item
    cdef PyTypeObject *tp = Py_TYPE(held)
    if tp == &PyDict_Type:
        return write_any_map(w, held)
    if tp == &PyList_Type:
        return write_any_list(w, held)
    return write_any(w, held)


cdef int write_any_list(Writer *w, list items) except -1:
    """An exact list inside interface{}: its atoms (any_atom) need no trail step (nothing
    can fail there but memory, and no Python code runs, so the list cannot change); any
    other item gets its index in the trail (write_any_item), and after it the list is
    checked for its size."""
    cdef Py_ssize_t n = PyList_GET_SIZE(items)
    cdef Py_ssize_t i
    cdef PyObject *item
    put_array_header(w, n)
    writer_enter(w)
    for i in range(n):
        item = PyList_GET_ITEM(items, i)
        if any_atom(w, item):
            continue
        trail_index(&w.trail, i)
        write_any_item(w, item)
        if i + 1 < n and PyList_GET_SIZE(items) != n:
            trail_index(&w.trail, i + 1)
            writer_fail(w, "list changed size while it was encoded")
    trail_leave(&w.trail)
    return 1


cdef int write_any_map(Writer *w, object d) except -1:
    """A dict inside interface{} (PyDict_Next: a subclass's own entries too). An entry of
    an exact str key (that has UTF-8) and an atomic value (any_atom) needs no key in the
    trail (nothing can fail there but memory); any other value is written with its key in
    the trail (write_any_item), and any other key by write_any_odd_entry."""
    cdef Py_ssize_t n = PyDict_GET_SIZE(d)
    cdef Py_ssize_t position = 0, seen = 0, length
    cdef PyObject *key
    cdef PyObject *item
    cdef const char *text
    put_map_header(w, n)
    writer_enter(w)
    trail_key_reading(&w.trail)
    while PyDict_Next(d, &position, &key, &item):
        seen += 1
        text = NULL
        if Py_TYPE(<object>key) == &PyUnicode_Type:
            text = exact_str_utf8(<object>key, &length)
        if text == NULL or length > ZP_MAX_LENGTH32:    # write_any_odd_entry writes or raises
            _write_any_odd_entry(w, key, item)
            trail_key_reading(&w.trail)
            continue
        put_str(w, text, length)
        if Py_TYPE(<object>item) != &PyDict_Type and Py_TYPE(<object>item) != &PyList_Type and any_atom(w, item):
            continue                        # (a map's value is often a container: tested first, no atom tests)
        trail_key(&w.trail, <object>key)
        write_any_item(w, item)
        trail_key_reading(&w.trail)
    trail_leave(&w.trail)                   # (no key held: trail_key_reading released each)
    if seen != n or PyDict_GET_SIZE(d) != n:
        writer_fail(w, "dict changed size while it was encoded")
    return 1


cdef int write_any_odd_entry(Writer *w, PyObject *key, PyObject *item) except -1:
    """write_any_map's entry whose key is not an exact str that has UTF-8: the key in the
    trail, then refused, or written by write_any (a str subclass, bytes; a surrogate
    raises there), then the value."""
    held_key = <object>key
    held_item = <object>item
    trail_key(&w.trail, held_key)
    if not (PyUnicode_Check(held_key) or PyBytes_Check(held_key)):
        writer_fail(w, f"a map inside interface{{}} is a map[string]interface{{}} to Go: its keys "
                       f"must be str (or bytes), not {type(held_key).__name__} {_short_repr(held_key)}")
    write_any(w, held_key)
    return write_any(w, held_item)

# Called through a pointer: out of write_any_map's frame, which each level repeats.
cdef int (*_write_any_odd_entry)(Writer *, PyObject *, PyObject *) except -1
_write_any_odd_entry = write_any_odd_entry


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    struct __pyx_t_9zebrapack_5_core_Writer;
    static inline int __pyx_f_9zebrapack_5_core_any_atom(struct __pyx_t_9zebrapack_5_core_Writer *, PyObject *)
        __attribute__((always_inline));
    #endif
    """


cdef inline unsigned char *store_any_scalar(unsigned char *p, PyObject *item) noexcept:
    """An interface{} value of at most 9 bytes stored at p (9 bytes of room), as
    any_atom writes it: a float, an int of int64 (beyond it, up to 2**64-1, a uint64), a
    bool, None, a GoFloat32 or GoUint64 in range. The position after it; NULL, nothing
    stored, for anything else."""
    cdef PyTypeObject *tp = Py_TYPE(<object>item)
    cdef long long small
    cdef uint64_t uv
    cdef int negative
    cdef Py_ssize_t n
    if tp == &PyFloat_Type:
        return p + zp_store_f64(p, PyFloat_AS_DOUBLE(<object>item))
    if tp == &PyLong_Type:
        if zp_small_long(<object>item, &small):
            return p + zp_store_signed(p, small)
        if not zp_long_magnitude(<object>item, &negative, &uv):
            return NULL
        if not negative:                    # beyond int64: a uint64 (put_go_number)
            return p + (zp_store_unsigned(p, uv) if uv > <uint64_t>INT64_MAX else zp_store_signed(p, <int64_t>uv))
        if uv > <uint64_t>INT64_MAX + 1:
            return NULL
        return p + zp_store_signed(p, <int64_t>(0 - uv))      # two's complement: -2**63 too
    if tp == &PyBool_Type:
        p[0] = ZP_TRUE if <object>item is True else ZP_FALSE
        return p + 1
    if <object>item is None:
        p[0] = ZP_NIL
        return p + 1
    # Go's number types as the decoder gives them (put_go_number's forms); out of range,
    # put_go_number raises
    if tp == <PyTypeObject *>_GoFloat32:
        n = zp_store_f32(p, PyFloat_AS_DOUBLE(<object>item))
        return p + n if n != 0 else NULL
    if tp == <PyTypeObject *>_GoUint64:
        if not zp_long_magnitude(<object>item, &negative, &uv) or negative:
            return NULL
        return p + zp_store_unsigned(p, uv)
    return NULL


cdef inline int any_atom(Writer *w, PyObject *item) except -1:
    """An interface{} value of exactly a built-in scalar type, written as write_any writes
    it: a str (that has UTF-8), store_any_scalar's values, bytes, a datetime in UTC. 1
    when written; 0 for anything else (write_any_item or write_any decides)."""
    cdef PyTypeObject *tp = Py_TYPE(<object>item)
    cdef Py_ssize_t n
    cdef const char *text
    cdef unsigned char *end
    cdef int64_t seconds
    cdef uint32_t nanos
    if tp == &PyUnicode_Type:
        text = exact_str_utf8(<object>item, &n)
        if text == NULL or n > ZP_MAX_LENGTH32:
            return 0
        put_str(w, text, n)
        return 1
    ensure(w, 9)
    end = store_any_scalar(w.data + w.pos, item)
    if end != NULL:
        w.pos = end - w.data
        return 1
    if tp == &PyBytes_Type:
        n = PyBytes_GET_SIZE(<object>item)
        if n > ZP_MAX_LENGTH32:
            return 0
        put_blob(w, ZP_BIN, PyBytes_AS_STRING(<object>item), n)
        return 1
    if zp_utc_datetime_unix(item, <PyObject *>_UTC, &seconds, &nanos):
        put_time(w, seconds, nanos)
        return 1
    return 0


cdef int write_any_atom(Writer *w, PyObject *item) except -1:
    """any_atom out of line: write_any's frame, which each nesting level of interface{}
    values repeats, stays small."""
    return any_atom(w, item)

cdef int (*_write_any_atom)(Writer *, PyObject *) except -1
_write_any_atom = write_any_atom


cdef TypePlan _standalone_plan(int kind, str go):
    cdef TypePlan plan = TypePlan()
    plan.kind = kind
    plan.go = go
    return plan

cdef TypePlan _BYTES_PLAN = _standalone_plan(K_BYTES, "[]byte")
cdef TypePlan _COMPLEX128_PLAN = _standalone_plan(K_C128, "complex128")
cdef TypePlan _COMPLEX64_PLAN = _standalone_plan(K_C64, "complex64")


cdef int put_go_number(Writer *w, object value) except -1:
    """A number (an int or a float, not a bool) in the family of its Go type, as an
    interface{} or msgp.Number holds it (zp_store_number): an int is an int64 (beyond
    it, up to 2**64-1, a uint64), a GoUint64 a uint64, a GoFloat32 a float32, a float
    a float64."""
    cdef zp_number number
    cdef int negative = 0
    number.bits = 0
    cdef uint32_t bits = 0
    if PyFloat_Check(value):
        if Py_TYPE(value) == <PyTypeObject *>_GoFloat32:
            if zp_f32_bits_from_double(PyFloat_AS_DOUBLE(value), &bits) < 0:
                writer_fail(w, f"{_short_repr(value)} overflows float32")
            number.family = ZP_NUMBER_F32
            number.bits = bits
        else:
            number.family = ZP_NUMBER_F64
            number.bits = zp_double_bits(PyFloat_AS_DOUBLE(value))
    else:
        # an int64, else (up to 2**64-1) a uint64; a GoUint64 a uint64 whatever its value
        if not zp_long_magnitude(value, &negative, &number.bits) or (negative and number.bits > <uint64_t>INT64_MAX + 1):
            if Py_TYPE(value) == <PyTypeObject *>_GoUint64:
                writer_fail(w, f"{_short_repr(value)} is outside the range of uint64 (0..{UINT64_MAX})")
            writer_fail(w, f"int {_short_repr(value)} does not fit int64 or uint64")
        if Py_TYPE(value) == <PyTypeObject *>_GoUint64:
            if negative:
                writer_fail(w, f"{_short_repr(value)} is outside the range of uint64 (0..{UINT64_MAX})")
            number.family = ZP_NUMBER_UINT
        elif negative:
            number.family = ZP_NUMBER_INT
            number.bits = 0 - number.bits
        else:
            number.family = ZP_NUMBER_INT if number.bits <= <uint64_t>INT64_MAX else ZP_NUMBER_UINT
    ensure(w, 9)
    w.pos += zp_store_number(w.data + w.pos, &number)
    return 0


cdef int check_any_ext(Writer *w, object value) except -1:
    """Go reads ext 3, 4 and 5 inside interface{} as complex64, complex128 and time.Time:
    an Ext of one of those types must have the size (and so the header) Go reads. 1 when
    it is a complex (fixext8 or fixext16, whatever the other exts get), else 0."""
    code, data = value
    if isinstance(code, int) and 3 <= code <= 5 and isinstance(data, bytes):
        if PyBytes_GET_SIZE(data) != _GO_EXT_SIZES[code - 3]:
            writer_fail(w, f"ext {code} of {PyBytes_GET_SIZE(data)} bytes inside interface{{}}: Go reads ext "
                           f"{code} as {_GO_EXT_SHAPES[code - 3]} and rejects it")
        return code != 5
    return 0

cdef tuple _GO_EXT_SIZES = (8, 16, 12)
