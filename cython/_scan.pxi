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
