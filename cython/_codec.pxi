# Codec: compiled plans for every struct of a schema, and the entry points of
# the decoder and encoder. The Python Schema class derives from it; all call
# state lives on the C stack of each call, so one Codec serves many threads.

cdef object _wrap_exception(object error_class, object exc, str path, Py_ssize_t offset):
    """A foreign exception raised mid-call, as a DecodeError / EncodeError."""
    if isinstance(exc, UnicodeDecodeError):
        reason = f"invalid UTF-8 in a str: {exc}"
    elif isinstance(exc, UnicodeEncodeError):
        reason = f"string cannot be encoded as UTF-8: {exc}"
    elif isinstance(exc, TypeError) and "unhashable" in str(exc):
        reason = f"map key cannot be a Python dict key: {exc}"
    else:
        reason = f"{type(exc).__name__}: {exc}"
    return error_class(reason, path, offset)


# Inlined always: decode(data) runs in three C frames (_decode_fastcall, decode_body,
# read_struct) rather than five. Each frame is a prologue and epilogue and its own
# lines of code; gcc left both calls out of line (decode_record has four callers,
# _run_decode five). About 80 instructions fewer a record (docs/performance-log.md,
# the sixteenth round).
cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    struct __pyx_t_9zebrapack_5_core_Reader;
    struct __pyx_obj_9zebrapack_5_core_StructPlan;
    struct __pyx_obj_9zebrapack_5_core_Codec;
    static inline PyObject *__pyx_f_9zebrapack_5_core_decode_record(struct __pyx_t_9zebrapack_5_core_Reader *,
        struct __pyx_obj_9zebrapack_5_core_StructPlan *, PyObject **) __attribute__((always_inline));
    static inline PyObject *__pyx_f_9zebrapack_5_core_5Codec__run_decode(struct __pyx_obj_9zebrapack_5_core_Codec *,
        PyObject *, PyObject *, int, Py_ssize_t, Py_ssize_t, Py_ssize_t, int) __attribute__((always_inline));
    #endif
    """


cdef inline object decode_record(Reader *r, StructPlan plan, PyObject **last_named):
    """One record at r.pos: a struct map named by its -1 entry, or by plan (not None).
    last_named: the codec's plan a record named last, tried first (see Codec). In line
    in decode_body's one whole record; decode_next_record for the others."""
    cdef unsigned char b
    cdef PyObject *named = last_named[0]
    if r.pos >= r.end:
        reader_truncated(r, r.pos, 1)
    b = r.buf[r.pos]
    if not zp_is_map(b):
        what = plan.name if plan is not None else "a struct"
        reader_fail(r, r.pos, f"a record is a struct map; expected {what}, found {wire_type_name(b)}")
    if plan is not None:
        return read_root_struct(r, plan, b)
    if not (named != NULL and (b & 0xf0) == 0x80 and b != 0x80 and r.pos + 1 < r.end and r.buf[r.pos + 1] == 0xff
            and names_plan(r, named)):
        peek_struct_plan(r, &named)
        if named == NULL:
            reader_fail(r, r.pos, "the record names no struct of this schema (key -1): its type must be given")
        last_named[0] = named
    return read_root_struct(r, <StructPlan>named, b)


cdef inline object read_root_struct(Reader *r, StructPlan plan, unsigned char b):
    r.trail.root = <PyObject *>plan.name
    # each record may build its own struct's zero value: an empty record decodes
    r.zeros_left = min(r.zeros_left + plan.zero_cost, ZERO_COST_CAP * 64)
    return read_struct(r, plan, b)


cdef object decode_next_record(Reader *r, StructPlan plan, PyObject **last_named):
    """decode_record out of line: a record of many (decode_all, streams)."""
    return decode_record(r, plan, last_named)


cdef object decode_body(Reader *r, StructPlan plan, int how, PyObject **last_named):
    """_run_decode's work once the input is set up (see there for how)."""
    if how == 0:
        result = decode_record(r, plan, last_named)
        if r.pos != r.end:
            reader_fail(r, r.pos, f"{r.end - r.pos} trailing bytes after the record"
                        " (a stream of records? read it with decode_all or iter_decode)")
        return result
    if how == 1:
        results = []
        while r.pos < r.end:
            r.trail.root = NULL
            results.append(decode_next_record(r, plan, last_named))
        return results
    if how == 4:
        return decode_next_record(r, plan, last_named)
    try:
        result = decode_next_record(r, plan, last_named)
    except _DecodeError:
        if how == 3 and r.truncated:
            return None, -1
        raise
    return result, r.pos

# decode_body as C sees it: its result, or NULL with the exception set
ctypedef PyObject *(*decode_body_raw)(Reader *, StructPlan, int, PyObject **) noexcept


cdef int reraise_wrapped(Reader *r) except -1:
    """The pending exception of a failed decode: DecodeError as it is, any other
    Exception (from Python's own calls: UTF-8, __post_init__, memory) as a DecodeError
    naming the path and offset."""
    try:
        _raise_pending()
    except _DecodeError:
        raise
    except Exception as exc:
        raise _wrap_exception(_DecodeError, exc, trail_path(&r.trail), r.base + r.pos) from exc


cdef inline void decode_done(Reader *r, Py_buffer *view, bint has_view) noexcept:
    if r.trail.guard.depth or r.trail.entries != r.trail.inline_entries:     # an error, or a deep record
        trail_release(&r.trail)
    if has_view:
        PyBuffer_Release(view)


cdef str _ZEBRAPACK_MODE = "zebrapack"     # the default argument's object: tested by identity first


cdef inline int _mode_is_msgp(str mode) except -1:
    if mode is _ZEBRAPACK_MODE:
        return 0
    return _mode_is_msgp_by_value(mode)


cdef int _mode_is_msgp_by_value(str mode) except -1:
    if mode == "zebrapack":
        return 0
    if mode == "msgp":
        return 1
    raise ValueError(f"mode must be 'zebrapack' or 'msgp', not {mode!r}")


cdef class Codec:
    """Compiled plans for every struct of a schema; decode and encode.

    Built by ``zebrapack.load`` (through ``Schema``), not directly.
    """

    cdef dict _by_name          # struct name -> StructPlan
    cdef dict _by_class         # class -> StructPlan
    cdef tuple _plans
    cdef PyObject *_last_plan   # the plan _plan_of found last (borrowed from _plans), or NULL
    cdef PyObject *_last_named  # the plan a decoded record named last (borrowed from _plans), or NULL:
                                # records of one struct usually come in a row (read and written whole,
                                # with the GIL held)
    cdef readonly Py_ssize_t max_depth
    cdef readonly Py_ssize_t zero_allowance

    def __init__(self, model, classes, *, Py_ssize_t max_depth=DEFAULT_MAX_DEPTH, bint preserve_unknown=False,
                 Py_ssize_t zero_allowance=DEFAULT_ZERO_ALLOWANCE):
        cdef StructPlan plan
        if max_depth < 1:
            raise ValueError(f"max_depth must be at least 1, not {max_depth}")
        if not 0 <= zero_allowance <= ZERO_COST_CAP:
            raise ValueError(f"zero_allowance must be in 0..{ZERO_COST_CAP}, not {zero_allowance}")
        self.max_depth = max_depth
        self.zero_allowance = zero_allowance
        self._by_name = {}
        for name, struct_def in model.structs.items():
            self._by_name[name] = new_struct_plan(struct_def, classes[name])
        memo = {}
        for name, struct_def in model.structs.items():
            compile_struct(self._by_name[name], struct_def, self._by_name, memo, preserve_unknown)
        self._plans = tuple(self._by_name.values())
        for plan in self._plans:
            struct_zero_cost(plan)
            settle_flat(plan, max_depth)
        for type_plan in memo.values():
            type_zero_cost(type_plan)
        self._by_class = {}
        for plan in self._plans:
            self._by_class[plan.cls] = plan

    cdef StructPlan _plan_for_type(self, object type):
        if type is None:
            return None
        plan = self._by_name.get(type) if isinstance(type, str) else self._by_class.get(type)
        if plan is None:
            raise ValueError(f"{type!r} is not a struct of this schema")
        return <StructPlan>plan

    # -- decoding -------------------------------------------------------------

    @cython.final
    cdef inline object _run_decode(self, object data, object type, bint strict, Py_ssize_t start,
                            Py_ssize_t stop, Py_ssize_t base, int how):
        """Decode from data[start:stop]. how: 0 one whole record, 1 all records,
        2 one record and its end offset, 3 the same but (None, -1) when the
        input ends inside the record (streams read more and try again); 4 (the
        push decoder's, through _decode_span) one record, its end left in r.pos."""
        cdef Reader r
        cdef Py_buffer view
        cdef bint has_view = False
        cdef StructPlan plan = None if type is None else self._plan_for_type(type)
        cdef const unsigned char *buf
        cdef Py_ssize_t size
        if PyBytes_CheckExact(data):
            buf = <const unsigned char *>PyBytes_AS_STRING(data)
            size = PyBytes_GET_SIZE(data)
        else:
            PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
            has_view = True
            buf = <const unsigned char *>view.buf
            size = view.len
        if stop < 0 or stop > size:
            stop = size
        if start < 0 or start > stop:
            if has_view:
                PyBuffer_Release(&view)
            raise ValueError(f"start {start} is outside the input (0..{stop})")
        return self._decode_span(&r, buf, start, stop, base, plan, strict, how, &view, has_view)

    @cython.final
    cdef inline object _decode_span(self, Reader *r, const unsigned char *buf, Py_ssize_t start, Py_ssize_t stop,
                                    Py_ssize_t base, StructPlan plan, bint strict, int how, Py_buffer *view,
                                    bint has_view):
        """Decode buf[start:stop] (see _run_decode for how), releasing view when has_view.
        r is the caller's: after an error, r.truncated says whether the input ended inside a value."""
        cdef PyObject *raw
        self._start_decode(r, buf, start, stop, base, strict)
        # The body's C result is read before Cython sees it: the exception handling
        # (wrapping foreign errors) costs nothing when the call succeeds.
        raw = (<decode_body_raw>decode_body)(r, plan, how, &self._last_named)
        if raw == NULL:
            self._decode_failed(r, view, has_view)
        decode_done(r, view, has_view)
        result = <object>raw
        Py_DECREF(result)       # the body's own reference, now held by result
        return result

    @cython.final
    cdef inline void _start_decode(self, Reader *r, const unsigned char *buf, Py_ssize_t start, Py_ssize_t stop,
                                   Py_ssize_t base, bint strict) noexcept:
        """r set up to decode buf[start:stop] (error offsets adding base)."""
        r.buf = buf
        r.pos = start
        r.end = stop
        r.base = base
        r.strict = strict
        r.truncated = False
        r.values_left = stop - start
        r.zeros_left = self.zero_allowance
        r.plans = <PyObject *>self._plans
        trail_init(&r.trail, self.max_depth)

    @cython.final
    cdef int _decode_failed(self, Reader *r, Py_buffer *view, bint has_view) except -1:
        """decode_body returned NULL: raise its error (wrapped, see reraise_wrapped), done with r."""
        try:
            reraise_wrapped(r)
        finally:
            decode_done(r, view, has_view)
        return -1

    # binding(False) and "clinic": as encode below (a plain method descriptor whose
    # docstring keeps the signature for inspect.signature).
    @cython.binding(False)
    @cython.embedsignature.format("clinic")
    def decode(self, data, type=None, *, bint strict=False):
        """Decode exactly one record from ``data`` (bytes, bytearray, memoryview; not copied).

        The struct comes from the record's -1 name, or from ``type`` (a struct
        name or one of ``types``); both present and different is an error.
        ``strict=True`` rejects what the Go reader rejects (e.g. a uint
        encoding in a signed field). Raises ``DecodeError``.
        """
        return self._run_decode(data, type, strict, 0, -1, 0, 0)     # decode(data): _decode_fastcall below

    @cython.binding(False)
    @cython.embedsignature.format("clinic")
    def decode_all(self, data, type=None, *, bint strict=False):
        """Decode every record of a stream of concatenated records into a list."""
        return self._run_decode(data, type, strict, 0, -1, 0, 1)

    def _decode_at(self, data, Py_ssize_t start, type=None, bint strict=False, Py_ssize_t base=0,
                   Py_ssize_t stop=-1, bint partial=False):
        """(record, end offset) of the record at data[start:stop]. ``partial``: (None, -1)
        instead of an error when the input ends inside the record. Error offsets add ``base``."""
        return self._run_decode(data, type, strict, start, stop, base, 3 if partial else 2)

    # -- encoding -------------------------------------------------------------

    @cython.final
    cdef inline PyObject *_plan_of(self, object obj) except NULL:
        """obj's plan, borrowed: the codec's _plans hold every plan for its lifetime."""
        # Records of one class usually come in a row: the last plan found is tried
        # first. One pointer, read and written whole with the GIL held.
        cdef PyObject *last = self._last_plan
        if last != NULL and Py_TYPE(obj) == (<StructPlan>last).tp:
            return last
        return self._plan_of_class(obj)

    @cython.final
    cdef PyObject *_plan_of_class(self, object obj) except NULL:
        plan = plan_of_instance(self._by_class, obj)
        if plan is None:
            raise _EncodeError(f"{type(obj).__name__} is not a struct type of this schema", "$", None)
        if Py_TYPE(obj) == (<StructPlan>plan).tp:
            self._last_plan = <PyObject *>plan
        return <PyObject *>plan     # borrowed: held by _by_class and _plans

    @cython.final
    cdef inline void _start_encode(self, Writer *w, StructPlan plan, bint structnames, bint msgp,
                                   bint fixext) noexcept:
        """The writer's mode and trail for one record of plan."""
        trail_init(&w.trail, self.max_depth)
        w.trail.root = <PyObject *>plan.name
        w.msgp = msgp
        w.structnames = structnames and not msgp
        w.fixext = fixext
        w.by_class = <PyObject *>self._by_class

    cdef int _encode_failed(self, Writer *w) except -1:
        """write_struct raised: an EncodeError or a warning goes on as it is, anything
        else becomes an EncodeError naming the field path. Out of the success path,
        which has no try."""
        try:
            _raise_pending()
        except (_EncodeError, Warning):
            raise
        except Exception as exc:
            raise _wrap_exception(_EncodeError, exc, trail_path(&w.trail), w.pos) from exc
        finally:
            trail_release(&w.trail)

    cdef int _run_encode(self, Writer *w, StructPlan plan, object obj) except -1:
        """The record at w.pos, once _start_encode has set the writer up."""
        cdef Py_ssize_t start = w.pos
        if not write_flat_root(w, plan, obj) and _write_struct_unchecked(w, plan, obj, w.structnames, False) < 0:
            self._encode_failed(w)
        trail_release(&w.trail)
        record_encoded_size(plan, w.pos - start)
        return 0

    # binding(False): a plain method descriptor, whose calls skip the cyfunction's
    # wrapping (about 150 instructions per call); "clinic": its docstring carries the
    # text signature, so that inspect.signature still reads it. The call encode(obj)
    # does not come here but goes straight to _encode (_encode_fastcall below).
    @cython.binding(False)
    @cython.embedsignature.format("clinic")
    def encode(self, obj, *, bint structnames=True, str mode="zebrapack", bint fixext=False):
        """Encode one instance of a schema struct, by the declared types; returns bytes.

        ``structnames=False`` leaves out the -1 entries (the reference's
        ``-no-structnames-onwire``); ``mode="msgp"`` writes string keys as the
        reference's ``-msgp`` flag. Extensions of 1, 2, 4, 8 or 16 bytes get an
        ext8 header as the reference's ``MarshalMsg`` writes them; ``fixext=True``
        writes the fixext headers of its ``EncodeMsg`` instead (Go reads both).
        Raises ``EncodeError`` for any value the Go reader would reject.
        """
        return self._encode(<PyObject *>obj, structnames, _mode_is_msgp(mode), fixext)

    @cython.final
    cdef object _encode(self, PyObject *obj, bint structnames, bint msgp, bint fixext):
        """encode's work, its arguments known (obj borrowed from the caller)."""
        cdef Writer w
        cdef unsigned char small[SMALL_RECORD]
        cdef StructPlan plan = <StructPlan>self._plan_of(<object>obj)
        cdef Py_ssize_t hint = struct_size_hint(plan)
        cdef Py_ssize_t slack = record_slack(plan)
        self._start_encode(&w, plan, structnames, msgp, fixext)
        w.out_array = NULL
        w.has_view = False
        w.pos = 0
        w.out_bytes = NULL
        if hint + SIZE_SLACK <= SMALL_RECORD:
            # a small record is written on the C stack and copied once into its bytes:
            # no allocation sized by guess, no resize (writer_grow moves it to the heap)
            w.data = small
            w.cap = SMALL_RECORD
        else:
            w.cap = hint + slack
            out = PyBytes_FromStringAndSize(NULL, w.cap)
            Py_INCREF(out)
            w.out_bytes = <PyObject *>out
            del out
            w.data = <unsigned char *>PyBytes_AS_STRING(<object>w.out_bytes)
        if not write_flat_root(&w, plan, <object>obj) \
                and _write_struct_unchecked(&w, plan, <object>obj, w.structnames, False) < 0:
            Py_XDECREF(w.out_bytes)
            self._encode_failed(&w)
        if w.trail.entries != w.trail.inline_entries:     # a deep record (depth is 0 again)
            trail_release(&w.trail)
        record_encoded_size(plan, w.pos)
        if w.out_bytes == NULL:
            return PyBytes_FromStringAndSize(<const char *>w.data, w.pos)
        if w.cap - w.pos <= slack + (w.pos >> 4):
            # Cut to its size where it is: what it leaves of its memory is the slack and
            # at most a sixteenth (freed with it), against a realloc, whose split of
            # the block costs the next encode's malloc more than the copy it saves.
            zp_bytes_shrink(w.out_bytes, w.pos)
            result = <object>w.out_bytes
            Py_DECREF(result)               # the writer's own reference
            return result
        try:
            _PyBytes_Resize(&w.out_bytes, w.pos)
            result = <object>w.out_bytes
        finally:
            Py_XDECREF(w.out_bytes)
        return result

    @cython.binding(False)
    @cython.embedsignature.format("clinic")
    def encode_into(self, obj, bytearray buffer, Py_ssize_t offset=0, *, bint structnames=True,
                    str mode="zebrapack", bint fixext=False):
        """Encode into ``buffer`` from ``offset`` (-1: its end), leaving it exactly
        offset + the record long. On error the buffer is cut back to ``offset``."""
        cdef Writer w
        cdef StructPlan plan = <StructPlan>self._plan_of(obj)
        cdef Py_ssize_t size = PyByteArray_GET_SIZE(buffer)
        if offset == -1:
            offset = size
        if offset < 0 or offset > size:
            raise ValueError(f"offset {offset} is outside the buffer (0..{size}, or -1)")
        if struct_size_hint(plan) + SIZE_SLACK <= SMALL_RECORD:
            return self._encode_small_into(plan, obj, buffer, offset, structnames, mode, fixext)
        w.out_bytes = NULL
        w.out_array = <PyObject *>buffer
        w.has_view = False
        w.pos = offset
        w.cap = offset + struct_size_hint(plan) + record_slack(plan)
        PyByteArray_Resize(buffer, w.cap)
        PyObject_GetBuffer(buffer, &w.view, PyBUF_SIMPLE)
        w.has_view = True
        w.data = <unsigned char *>w.view.buf
        try:
            self._start_encode(&w, plan, structnames, _mode_is_msgp(mode), fixext)    # a bad mode cuts back too
            self._run_encode(&w, plan, obj)
        except BaseException:
            w.pos = offset
            raise
        finally:
            if w.has_view:
                PyBuffer_Release(&w.view)
            PyByteArray_Resize(buffer, w.pos)

    @cython.final
    cdef object _encode_small_into(self, StructPlan plan, object obj, bytearray buffer, Py_ssize_t offset,
                                   bint structnames, str mode, bint fixext):
        """encode_into for a record whose size hint fits SMALL_RECORD: written on the C
        stack, as encode writes it, then copied to the buffer in one resize. Growing the
        buffer by the hint and cutting it back after made CPython realloc it twice a call
        (a bytearray cut below half its allocation is reallocated); a buffer reused for
        records of about one size is now not reallocated at all."""
        cdef Writer w
        cdef unsigned char small[SMALL_RECORD]
        cdef Py_buffer held                 # the buffer exported while Python code may run in
        cdef Py_ssize_t size
        cdef int msgp
        try:
            msgp = _mode_is_msgp(mode)
        except BaseException:
            PyByteArray_Resize(buffer, offset)          # a bad mode cuts back too
            raise
        if not msgp and not fixext and Py_TYPE(obj) == plan.flat_tp:
            # as encode(obj)'s fast call: no writer, no Python code run (write_flat_record)
            size = write_flat_record(small, 0, SMALL_RECORD, plan, obj, structnames)
            if size >= 0:
                PyByteArray_Resize(buffer, offset + size)
                memcpy(PyByteArray_AS_STRING(buffer) + offset, small, size)
                return None
        w.out_bytes = NULL                  # the encoding: resizing it there is a BufferError,
        w.out_array = NULL                  # as when the record is written into it
        w.has_view = False
        w.pos = 0
        w.data = small
        w.cap = SMALL_RECORD
        PyObject_GetBuffer(buffer, &held, PyBUF_SIMPLE)
        try:
            try:
                self._start_encode(&w, plan, structnames, msgp, fixext)
                self._run_encode(&w, plan, obj)
            finally:
                PyBuffer_Release(&held)
            PyByteArray_Resize(buffer, offset + w.pos)
            memcpy(PyByteArray_AS_STRING(buffer) + offset, w.data, w.pos)
        except BaseException:
            PyByteArray_Resize(buffer, offset)
            raise
        finally:
            Py_XDECREF(w.out_bytes)     # a record that outgrew the stack (writer_grow)


cdef extern from *:
    """
    /* A method of a type (Codec.encode, Codec.decode) replaced by a METH_FASTCALL |
       METH_KEYWORDS C function of our own, its name and docstring kept. The method
       table entries live as long as the type. */
    static PyMethodDef zp_fast_methods[2];

    static int zp_install_fastcall(PyTypeObject *tp, int index, const char *name, void *function, const char *doc) {
        PyObject *descr;
        PyMethodDef *method = &zp_fast_methods[index];
        method->ml_name = name;
        method->ml_meth = (PyCFunction)(void (*)(void))function;
        method->ml_flags = METH_FASTCALL | METH_KEYWORDS;
        method->ml_doc = doc;
        descr = PyDescr_NewMethod(tp, method);
        if (descr == NULL)
            return -1;
        if (PyDict_SetItemString(tp->tp_dict, name, descr) < 0) {
            Py_DECREF(descr);
            return -1;
        }
        Py_DECREF(descr);
        PyType_Modified(tp);
        return 0;
    }
    """
    int zp_install_fastcall(PyTypeObject *tp, int index, const char *name, void *function, const char *doc) except -1
    object PyObject_Vectorcall(object callable, PyObject **args, size_t nargsf, PyObject *kwnames)


cdef tuple _ENCODE_KEYWORDS = ("structnames", "mode", "fixext")
cdef tuple _DECODE_KEYWORDS = ("type", "strict")


cdef bint known_keywords(PyObject **values, PyObject *kwnames, tuple names, PyObject **found) except -1:
    """The keyword arguments of a vectorcall (kwnames, their values from ``values``) put in
    ``found`` by their place in ``names`` (NULL: not given): True when every one is one of
    ``names``. False for any other name: the def's own parsing then says what is wrong."""
    cdef Py_ssize_t i, j, count = PyTuple_GET_SIZE(names)
    cdef PyObject *name
    for j in range(count):
        found[j] = NULL
    if kwnames == NULL:
        return True
    for i in range(PyTuple_GET_SIZE(<object>kwnames)):
        name = PyTuple_GET_ITEM(<object>kwnames, i)
        for j in range(count):
            # the names of a call are interned as the constants are: found by identity
            if name == PyTuple_GET_ITEM(names, j) or <object>name == <object>PyTuple_GET_ITEM(names, j):
                found[j] = values[i]
                break
        else:
            return False
    return True


# Codec.encode as CPython calls it. encode(obj), the call of every loop, goes straight
# to the work without argument parsing (about 50 instructions of a 700-instruction
# small record), and so does a call with its keywords (known_keywords: the def's
# parsing, through a bound method made for the call, cost about 150 ns); any other call
# (another keyword, a wrong count, a mode that is not a str) goes through the def's own
# parsing, whose errors stay Python's.
cdef object _encode_parsing = Codec.__dict__["encode"]

cdef object _encode_fastcall(object self, PyObject **args, Py_ssize_t nargs, PyObject *kwnames):
    cdef unsigned char small[SMALL_RECORD]
    cdef PyObject *plan
    cdef PyObject *obj
    cdef Py_ssize_t size
    if kwnames == NULL and nargs == 1:
        obj = args[0]                       # a plain pointer: <object>args[0] would take a reference
        # A small record of the last plan's class, a flat plan: written on the C stack
        # by write_flat_record and copied once into its bytes, with no other set-up (no
        # Writer: nothing in it can fail, so no trail, mode or class table; and no size
        # hint to keep, as a record that fits the stack leaves it small). Anything else,
        # and a record write_flat_record leaves, by _encode.
        plan = (<Codec>self)._last_plan
        # (<StructPlan>plan): read in place, no reference taken (the codec holds the plan);
        # flat_tp is NULL for a plan that is not flat
        if plan != NULL and Py_TYPE(<object>obj) == (<StructPlan>plan).flat_tp \
                and struct_size_hint(<StructPlan>plan) <= SMALL_RECORD - SIZE_SLACK:
            size = write_flat_record(small, 0, SMALL_RECORD, <StructPlan>plan, <object>obj, True)
            if size >= 0:
                return PyBytes_FromStringAndSize(<const char *>small, size)
        return (<Codec>self)._encode(obj, True, False, False)
    cdef PyObject *keywords[3]            # structnames, mode, fixext as given, or NULL
    cdef int structnames = 1, fixext = 0
    if nargs == 1 and known_keywords(args + 1, kwnames, _ENCODE_KEYWORDS, keywords) \
            and (keywords[1] == NULL or Py_TYPE(<object>keywords[1]) == &PyUnicode_Type):
        if keywords[0] != NULL:
            structnames = PyObject_IsTrue(<object>keywords[0])
        if keywords[2] != NULL:
            fixext = PyObject_IsTrue(<object>keywords[2])
        return (<Codec>self)._encode(args[0], structnames, 0 if keywords[1] == NULL else
                                     _mode_is_msgp(<str>keywords[1]), fixext)
    return PyObject_Vectorcall(_encode_parsing.__get__(self, Codec), args, nargs, kwnames)


# its docstring with the text signature first, as the def's (kept alive here)
cdef bytes _ENCODE_DOC = (f"encode{_encode_parsing.__text_signature__}\n--\n\n"
                          f"{_encode_parsing.__doc__}").encode("utf-8")
zp_install_fastcall(<PyTypeObject *>Codec, 0, "encode", <void *>_encode_fastcall, _ENCODE_DOC)


# Codec.decode as CPython calls it: decode(data), decode(data, type) and their keywords
# go straight to _run_decode without argument parsing (as encode's above); any other
# call through the def's own parsing, its errors Python's.
cdef object _decode_parsing = Codec.__dict__["decode"]

cdef object _decode_fastcall(object self, PyObject **args, Py_ssize_t nargs, PyObject *kwnames):
    cdef PyObject *keywords[2]            # type, strict as given, or NULL
    cdef int strict = 0
    if kwnames == NULL and nargs == 1:
        return (<Codec>self)._run_decode(<object>args[0], None, False, 0, -1, 0, 0)
    if (nargs == 1 or nargs == 2) and known_keywords(args + nargs, kwnames, _DECODE_KEYWORDS, keywords) \
            and not (nargs == 2 and keywords[0] != NULL):
        if nargs == 2:
            keywords[0] = args[1]
        if keywords[1] != NULL:
            strict = PyObject_IsTrue(<object>keywords[1])
        return (<Codec>self)._run_decode(<object>args[0], None if keywords[0] == NULL else <object>keywords[0],
                                         strict, 0, -1, 0, 0)
    return PyObject_Vectorcall(_decode_parsing.__get__(self, Codec), args, nargs, kwnames)


cdef bytes _DECODE_DOC = (f"decode{_decode_parsing.__text_signature__}\n--\n\n"
                          f"{_decode_parsing.__doc__}").encode("utf-8")
zp_install_fastcall(<PyTypeObject *>Codec, 1, "decode", <void *>_decode_fastcall, _DECODE_DOC)
