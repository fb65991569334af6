# Record boundaries without a schema, for the sidecar index of a record file
# (zebrapack/streams/index.py). Records are self-delimiting msgpack maps, so
# stepping over them with skip_value finds where each one ends.

def skip_records(data, Py_ssize_t start, Py_ssize_t max_records, Py_ssize_t max_end,
                 Py_ssize_t max_depth=DEFAULT_MAX_DEPTH, bint partial=False):
    """Step over whole records of ``data`` from ``start``: (end offset, records stepped over).

    Stops after ``max_records`` records, after the first record that ends at or
    past ``max_end``, or at the end of ``data``. Each record must be a msgpack
    map nested at most ``max_depth`` deep; a record that is not, or that the
    input ends inside, is a ``DecodeError`` at its offset in ``data``
    (``partial=True``: the input ending inside a record stops before it instead,
    for data read in chunks).
    """
    cdef Reader r
    cdef Py_buffer view
    cdef Py_ssize_t count = 0, record_start
    cdef unsigned char b
    if max_depth < 1:
        raise ValueError(f"max_depth must be at least 1, not {max_depth}")
    PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
    r.buf = <const unsigned char *>view.buf
    r.end = view.len
    r.base = 0
    r.strict = False
    r.truncated = False
    r.plans = NULL
    trail_init(&r.trail, max_depth)
    try:
        if start < 0 or start > r.end:
            raise ValueError(f"start {start} is outside the input (0..{r.end})")
        r.pos = start
        r.values_left = r.end - start       # the records' headers claim no more than the bytes from start
        while count < max_records and r.pos < r.end:
            b = r.buf[r.pos]
            if not zp_is_map(b):
                reader_fail(&r, r.pos, f"a record is a struct map, not {wire_type_name(b)}")
            record_start = r.pos
            try:
                skip_value(&r)
            except _DecodeError:
                if partial and r.truncated:
                    r.pos = record_start
                    break
                raise
            count += 1
            if r.pos >= max_end:
                break
        return r.pos, count
    finally:
        trail_release(&r.trail)
        PyBuffer_Release(&view)


def record_ends(data, Py_ssize_t start, Py_ssize_t max_records, Py_ssize_t max_bytes,
                Py_ssize_t max_depth=DEFAULT_MAX_DEPTH):
    """Step over whole records of ``data`` from ``start`` without the GIL, to cut a record
    file into ranges that decode on their own (zebrapack.arrow's ``threads``): (end
    offset, records stepped over).

    Stops after ``max_records`` records, after the first record that ends at or past
    ``start + max_bytes``, or before the first one that is not a msgpack map stepped
    over whole (``data`` ends inside it, a malformed value, nesting deeper than
    ``max_depth``): the decoder reads that one and says what is wrong with it.
    """
    cdef Py_buffer view
    cdef zp_skip_level levels[ZP_SKIP_INLINE]
    cdef zp_skipper s
    cdef const unsigned char *buf
    cdef int64_t pos = start, end, count = 0, limit
    cdef int rc
    if max_depth < 1:
        raise ValueError(f"max_depth must be at least 1, not {max_depth}")
    if max_records < 0 or max_bytes < 1:
        raise ValueError(f"max_records must not be negative and max_bytes positive, not {max_records}, {max_bytes}")
    PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
    try:
        if start < 0 or start > view.len:
            raise ValueError(f"start {start} is outside the input (0..{view.len})")
        buf = <const unsigned char *>view.buf
        end = view.len
        limit = start + max_bytes if max_bytes < end - start else end
        with nogil:
            while count < max_records and pos < end:
                if (buf[pos] & 0xf0) != 0x80 and buf[pos] != 0xde and buf[pos] != 0xdf:
                    break
                zp_skip_init(&s, buf, pos, end, levels, ZP_SKIP_INLINE, max_depth, end - pos)
                rc = zp_skip(&s)
                zp_skip_release(&s)
                if rc != ZP_SKIP_DONE:
                    break
                pos = s.pos
                count += 1
                if pos >= limit:
                    break
        return pos, count
    finally:
        PyBuffer_Release(&view)
