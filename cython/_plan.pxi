# Plans: what the codec knows of each type, compiled once per schema at load
# time from the model (zebrapack.schema.model) and the classes values are built as.
# The decoder and encoder only read them, apart from one hint per struct
# (StructPlan.size_hint), read and written with relaxed atomics.

cdef extern from "zp_object.h":
    int zp_slot_store(object obj, Py_ssize_t offset, object value) noexcept


cdef enum:
    # Plan kinds: the numbers of schema.model.Kind (tests/package/test_core_constants.py
    # holds them equal); K_BYTEARRAY and K_UNUSABLE are the plans' own.
    K_BYTES = 1
    K_STRING = 2
    K_F32 = 3
    K_F64 = 4
    K_C64 = 5
    K_C128 = 6
    K_UINT = 7
    K_UINT8 = 8
    K_UINT16 = 9
    K_UINT32 = 10
    K_UINT64 = 11
    K_BYTE = 12
    K_INT = 13
    K_INT8 = 14
    K_INT16 = 15
    K_INT32 = 16
    K_INT64 = 17
    K_BOOL = 18
    K_INTF = 19
    K_TIME = 20
    K_EXT = 21
    K_MAP = 24
    K_STRUCT = 25
    K_SLICE = 26
    K_ARRAY = 27
    K_POINTER = 28
    K_IFACE = 29
    K_BYTEARRAY = 30    # [N]byte: a bin of exactly N bytes
    K_RAW = 31          # msgp.Raw (Kind.RAW): one msgpack value, its bytes written verbatim
    K_NUMBER = 32       # msgp.Number (Kind.NUMBER): a number in its wire family
    K_UNUSABLE = 33     # a field whose type zebrapack cannot represent: None, or an error

cdef enum:
    BUILD_SLOTS = 0     # tp_alloc (or a freelist block), fill the member slots, then __post_init__ if any
    BUILD_CALL = 1      # cls(**fields)
    BUILD_ATTRS = 2     # object.__new__(cls), each field set as object.__setattr__ sets it, then __post_init__

# Kinds whose schema number is their plan kind (schema.model.SCALAR_KINDS): the
# primitive Zkinds, msgp.Raw, msgp.Number.
cdef frozenset _SCALAR_KINDS = frozenset(range(K_BYTES, K_EXT + 1)) | {K_RAW, K_NUMBER}


@cython.final
cdef class TypePlan:
    """How one type is read and written."""
    cdef readonly int kind
    cdef readonly str go            # Go spelling, for messages
    cdef TypePlan elem              # slice/array/pointer element, map value
    cdef TypePlan key               # map key
    cdef StructPlan struct_plan
    cdef Py_ssize_t length          # fixed array length
    cdef bint is_signed
    cdef int64_t imin               # signed integer range
    cdef int64_t imax
    cdef uint64_t umax              # unsigned integer range
    cdef object zero                # the zero value, when it is immutable
    cdef bint zero_shared
    cdef Py_ssize_t zero_cost       # values the zero holds besides itself (decode budget)
    cdef bint inlined               # K_STRUCT: inlined by the reference generator, so that its -msgp
                                    # writer writes every field (TypeRef.inlined)
    cdef str reason                 # K_UNUSABLE: why zebrapack cannot represent the type
    cdef int number_family          # the encoder's run family of a value of this type (number_run_family)
    cdef int run_family             # of a []T's items or a map[string]T's values (container_run), or -1

    def __cinit__(self):
        self.number_family = -1     # (settle_runs sets both for a compiled type)
        self.run_family = -1


@cython.final
cdef class FieldPlan:
    """One field of a struct."""
    cdef readonly Py_ssize_t zid
    cdef readonly str name          # Go name: paths and messages use it
    cdef readonly str attr          # Python attribute
    cdef TypePlan type
    cdef bytes zid_key              # the zid as the reference writes it
    cdef bytes tag_key              # FieldTagName as a msgpack str (msgp mode key)
    cdef bytes zid_key_words        # zid_key and tag_key padded for zp_copy_words (FieldC.wkey)
    cdef bytes tag_key_words
    cdef bytes tag                  # FieldTagName, UTF-8
    cdef Py_ssize_t offset          # member slot offset in instances, or -1
    cdef bint time_field            # a time.Time value field: Go's zero instant <-> None
    cdef bint omitempty
    cdef bint deprecated
    cdef Py_ssize_t zero_cost       # of its zero value when absent (time fields: None, 0)
    cdef object encode_zero         # what FieldC.zero points to (held here: the pointer is borrowed)


cdef struct FieldC:
    # A field as the decoder's and encoder's loops read it: plain C, no reference
    # counting. The pointers are borrowed from the FieldPlan, which the StructPlan's
    # `fields` tuple keeps alive as long as this array.
    PyObject *plan                  # the FieldPlan (error paths, slow paths)
    PyObject *type                  # its TypePlan
    PyObject *elem                  # pointer fields: the element's TypePlan (a non-nil *T is read as T); else NULL
    Py_ssize_t zid
    Py_ssize_t index                # its place in the plan's `fields` (and `cfields`), in either array
    Py_ssize_t offset               # member slot offset, or -1
    int kind                        # the TypePlan's kind
    bint time_field
    bint omitempty
    bint deprecated
    PyObject *zero                  # a singleton that is this field's zero (0, False, None, ""), or NULL:
                                    # an omitted field is skipped on one pointer comparison
    const char *zid_key             # FieldPlan.zid_key's bytes
    Py_ssize_t zid_key_len
    const char *tag_key             # FieldPlan.tag_key's bytes (msgp mode)
    Py_ssize_t tag_key_len
    zp_name tag                     # FieldPlan.tag's bytes (msgp mode keys read)
    PyObject *absent_zero           # decode: the shared immutable value an absent field gets (None for
                                    # time fields, else the TypePlan's shared zero), or NULL (make_zero)
    # Encode only (write_struct):
    const char *wkey                # the key this array's mode writes: zid_key in cfields, tag_key in cmsgp_fields,
    Py_ssize_t wkey_len             # padded for zp_copy_words (FieldPlan.zid_key_words, tag_key_words)
    uint64_t wkey_word              # wkey's first 8 bytes (its padding's zeros past a shorter key): the
                                    # whole key when wkey_len <= 8, as every key of a flat plan is
    int inline_kind                 # INLINE_*: which exact built-in values write_struct writes inline
    int inline_room                 # the room an inline field takes at most, but a str's or []byte's
                                    # data: its key, its value's largest fixed form, a word's overrun
                                    # (an int: it fills the padding before imin)
    int64_t imin                    # integer fields: the TypePlan's range
    int64_t imax
    uint64_t umax
    PyObject *nested                # a struct field's StructPlan, or a pointer-to-struct field's; else NULL
    bint nested_inlined             # that struct's TypePlan.inlined
    int flat_kind                   # FLAT_*: how write_flat_record writes the field (set_flat_kind)
    int flat_inline_kind            # the inline_kind write_flat_record's loop goes by: inline_kind, or
                                    # INLINE_CONTAINER for a list, map or struct (store_flat_container)
    int list_run                    # FLAT_LIST, FLAT_MAP: the family of the items or values
                                    # (number_run_family's, or RUN_STR); else -1. imin..umax are then
                                    # their range
    bint list_nullable              # FLAT_LIST: the items are pointers (None: nil)
    int64_t key_imin                # FLAT_MAP of integer keys: their range
    int64_t key_imax
    uint64_t key_umax
    int any_levels                  # an interface{} field (INLINE_ANY) of a flat plan: the levels of
                                    # exact lists and dicts write_flat_record stores in it
                                    # (store_any_container); 0: none, write_struct writes them


@cython.final
cdef class StructPlan:
    """A struct: its fields by zid and how its instances are built and read."""
    cdef readonly str name
    cdef bytes name_utf8
    cdef bytes name_entry           # the whole -1 entry: key 0xff, then the name
    cdef readonly object cls
    cdef PyTypeObject *tp
    cdef int build
    cdef object post_init           # __post_init__ of BUILD_SLOTS classes, or None
    cdef bint slots_readable        # every field has a slot offset
    cdef bint untrackable           # records may leave the collector's lists (_record.pxi)
    cdef Py_ssize_t free_class      # the freelist its instances come from (zp_freelist.h), or -1
    cdef bint flat                  # every field written inline, or a list, map or struct that
                                    # write_flat_record writes (FieldC.flat_kind), under a key of one
                                    # word, read by its slot, nothing preserved, its levels within
                                    # max_depth: write_flat_record may write a record of it (settle_flat)
    cdef Py_ssize_t flat_levels     # the nesting levels a flat record takes (1: scalars only); 0 until
                                    # settle_flat
    cdef bint flat_by_value         # a flat record may leave write_flat_record by what its interface{}
                                    # fields hold (its own or a nested struct's): it backs off then
    cdef Py_ssize_t flat_backoff    # (write_flat_record_by_value: records to pass by after a miss,
    cdef Py_ssize_t flat_skip       # doubled at each miss; the records still to pass by)
    cdef str without_zid            # the first field that has no zid (msgp mode only), or None
    cdef bint prologue              # write_struct starts with struct_prologue: preserve, or without_zid
    cdef tuple fields               # FieldPlan in zid order
    cdef tuple msgp_fields          # FieldPlan in declaration order
    cdef Py_ssize_t zid_limit       # zid_index's size: proportional to the field count
    cdef Py_ssize_t *sparse_zids    # the zids from zid_limit on, in zid order, for a binary search
    cdef Py_ssize_t sparse_count
    cdef Py_ssize_t zero_cost       # values its zero holds besides itself, or -1 until computed
    cdef Py_ssize_t size_hint       # the last record's size, with a margin: the next buffer's capacity
    cdef bint preserve              # keep unknown entries (preserve_unknown)
    cdef Py_ssize_t unknown_offset  # slot of zebrapack_unknown, or -1: read by name
    # The same fields flattened for the codec's loops (FieldC above):
    cdef Py_ssize_t field_count
    cdef FieldC *cfields            # in zid order (as `fields`)
    cdef FieldC *cmsgp_fields       # in declaration order (as `msgp_fields`)
    cdef FieldC *cmsgp_every        # the same, none omitempty: the struct where the generator inlined it
    cdef int32_t *zid_index         # per zid below zid_limit: its index in cfields, or -1
    cdef const char *name_entry_c   # name_entry's bytes
    cdef Py_ssize_t name_entry_len
    cdef bytes name_entry_words     # name_entry padded for zp_copy_words,
    cdef const unsigned char *name_entry_w  # its bytes
    cdef Py_ssize_t flat_room       # a flat record's room at most, but its strs' and []bytes' data:
                                    # its map header, name entry and every field's inline_room
    cdef PyTypeObject *flat_tp      # tp when the plan is flat, else NULL: encode(obj)'s one test of both
    cdef FieldC *cfields_end        # cfields + field_count: where the flat loop ends
    cdef Py_ssize_t flat_header[2]  # a flat record's map header room (zp_map_header_size), by with_name

    def __dealloc__(self):
        PyMem_Free(self.sparse_zids)
        PyMem_Free(self.cfields)
        PyMem_Free(self.cmsgp_fields)
        PyMem_Free(self.cmsgp_every)
        PyMem_Free(self.zid_index)

    def __repr__(self):
        return f"<StructPlan {self.name} ({len(self.fields)} fields)>"


cdef extern from *:
    """
    /* The size hint is shared by the threads encoding one struct: relaxed atomic
       loads and stores (no ordering needed, only no torn or racy access). */
    #if defined(_MSC_VER) && !defined(__clang__)
    #define zp_hint_load(p) (*(volatile Py_ssize_t *)(p))
    #define zp_hint_store(p, v) (*(volatile Py_ssize_t *)(p) = (v))
    #else
    #define zp_hint_load(p) __atomic_load_n((p), __ATOMIC_RELAXED)
    #define zp_hint_store(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
    #endif
    """
    Py_ssize_t zp_hint_load(Py_ssize_t *p) noexcept nogil
    void zp_hint_store(Py_ssize_t *p, Py_ssize_t v) noexcept nogil


#: The smallest first buffer of an encode.
cdef Py_ssize_t MIN_SIZE_HINT = 64


cdef inline Py_ssize_t struct_size_hint(StructPlan sp) noexcept:
    return zp_hint_load(&sp.size_hint)


cdef inline void record_encoded_size(StructPlan sp, Py_ssize_t size) noexcept:
    """The next record of this struct likely has about the size of the last one.
    The hint follows a record that outgrows it, and one less than half of it
    (one large record does not stay the norm); records of a steady size keep it,
    so that the buffer is allocated once, at its final size."""
    cdef Py_ssize_t hint = zp_hint_load(&sp.size_hint)
    if size < MIN_SIZE_HINT:
        size = MIN_SIZE_HINT
    if size > hint or size < hint >> 1:
        zp_hint_store(&sp.size_hint, size)


# -- compiling ------------------------------------------------------------------

cdef bytes _stored_key(int64_t key):
    """A struct map key (a zid, or -1: the name entry's) as the reference writes it: its
    smallest signed form (zp_store_signed)."""
    cdef unsigned char stored[9]
    return PyBytes_FromStringAndSize(<const char *>stored, zp_store_signed(stored, key))


cdef bytes _stored_str(str text):
    """text as a msgpack str (zp_store_header)."""
    cdef unsigned char header[5]
    data = text.encode("utf-8")
    return PyBytes_FromStringAndSize(<const char *>header, zp_store_header(header, ZP_STR, len(data))) + data


cdef dict _INTEGER_RANGES = {
    K_UINT: (False, 0, 0, UINT64_MAX), K_UINT8: (False, 0, 0, 0xff),
    K_UINT16: (False, 0, 0, 0xffff), K_UINT32: (False, 0, 0, 0xffffffff),
    K_UINT64: (False, 0, 0, UINT64_MAX), K_BYTE: (False, 0, 0, 0xff),
    K_INT: (True, INT64_MIN, INT64_MAX, 0), K_INT8: (True, -0x80, 0x7f, 0),
    K_INT16: (True, -0x8000, 0x7fff, 0), K_INT32: (True, -0x80000000, 0x7fffffff, 0),
    K_INT64: (True, INT64_MIN, INT64_MAX, 0),
}

# The zeros every record shares: schema.model.IMMUTABLE_ZEROS by plan kind (the core
# imports nothing of the schema layer above it; tests/package/test_core_constants.py
# holds the two equal), and an unusable field's, None.
cdef dict _IMMUTABLE_ZEROS = {
    K_BYTES: b"", K_STRING: "", K_F32: 0.0, K_F64: 0.0, K_C64: 0j, K_C128: 0j,
    K_BOOL: False, K_INTF: None, K_TIME: _GO_ZERO_TIME, K_EXT: None, K_POINTER: None,
    K_IFACE: None, K_RAW: b"", K_NUMBER: 0, K_UNUSABLE: None,
}


cdef tuple _plan_key(object ref):
    """The memo key of a type: equal TypeRefs, and the same structs inlined in them
    (TypeRef.inlined is no part of a type's equality, but is of how it is written)."""
    marks = []
    node = ref
    stack = [ref]
    while stack:
        node = stack.pop()
        marks.append(node.inlined)
        if node.key is not None:
            stack.append(node.key)
        if node.elem is not None:
            stack.append(node.elem)
    return ref, tuple(marks)


cdef TypePlan compile_type(object ref, dict structs, dict memo):
    """The plan of a normalized TypeRef (shared between equal types)."""
    cdef tuple key = _plan_key(ref)
    cdef TypePlan plan = memo.get(key)
    if plan is not None:
        return plan
    plan = TypePlan()
    memo[key] = plan
    plan.go = ref.go
    cdef int kind = int(ref.kind)
    if kind in _SCALAR_KINDS:
        plan.kind = kind
    elif kind == K_STRUCT:
        plan.kind = K_STRUCT
        plan.struct_plan = structs[ref.name]
        plan.inlined = ref.inlined
    elif kind == K_IFACE:
        plan.kind = K_IFACE
    elif kind == K_SLICE or kind == K_POINTER:
        plan.kind = kind
        plan.elem = compile_type(ref.elem, structs, memo)
    elif kind == K_MAP:
        plan.kind = K_MAP
        plan.key = compile_type(ref.key, structs, memo)
        plan.elem = compile_type(ref.elem, structs, memo)
    elif kind == K_ARRAY:
        plan.length = ref.length
        plan.elem = compile_type(ref.elem, structs, memo)
        # [N]byte is bin; [N]uint8 an array of integers (the generator goes by spelling)
        plan.kind = K_BYTEARRAY if plan.elem.kind == K_BYTE else K_ARRAY
    else:
        raise AssertionError(f"unnormalized type {ref!r}")
    if plan.kind in _INTEGER_RANGES:
        plan.is_signed, plan.imin, plan.imax, plan.umax = _INTEGER_RANGES[plan.kind]
        plan.zero, plan.zero_shared = 0, True
    elif plan.kind in _IMMUTABLE_ZEROS:
        plan.zero, plan.zero_shared = _IMMUTABLE_ZEROS[plan.kind], True
    elif plan.kind == K_BYTEARRAY:
        plan.zero, plan.zero_shared = bytes(plan.length), True
    settle_runs(plan)
    return plan


cdef Py_ssize_t slot_offset(object cls, str attr):
    """The member-slot offset of attr in instances of cls, or -1."""
    for base in cls.__mro__:
        descr = base.__dict__.get(attr)
        if descr is not None:
            return zp_member_offset(descr, <PyTypeObject *>cls)
    return -1


cdef StructPlan new_struct_plan(object struct_def, object cls):
    cdef StructPlan plan = StructPlan()
    plan.name = struct_def.name
    plan.name_utf8 = plan.name.encode("utf-8")
    plan.name_entry = _stored_key(-1) + _stored_str(plan.name)
    plan.name_entry_c = PyBytes_AS_STRING(plan.name_entry)
    plan.name_entry_len = PyBytes_GET_SIZE(plan.name_entry)
    plan.name_entry_words = plan.name_entry + bytes(8)
    plan.name_entry_w = <const unsigned char *>PyBytes_AS_STRING(plan.name_entry_words)
    plan.cls = cls
    plan.tp = <PyTypeObject *>cls
    plan.size_hint = MIN_SIZE_HINT
    plan.zero_cost = -1
    plan.free_class = -1            # until compile_struct knows how instances are built
    return plan


#: The attribute that carries unknown entries (schema.model.UNKNOWN_ATTR; held equal
#: by tests/package/test_core_constants.py).
cdef str UNKNOWN_ATTR = "zebrapack_unknown"

#: A struct's zid table covers zids below this many per field (plus 16).
cdef Py_ssize_t DENSE_ZIDS_PER_FIELD = 4


cdef inline FieldC *field_c_by_zid(StructPlan sp, int64_t zid) noexcept:
    """The field of zid, or NULL (unknown, Skip): the one zid lookup, of the decoder and
    of the encoder's check of preserved entries."""
    cdef Py_ssize_t low, high, middle
    cdef int32_t index
    if 0 <= zid < sp.zid_limit:
        index = sp.zid_index[zid]
        return &sp.cfields[index] if index >= 0 else NULL
    if sp.sparse_count == 0 or zid < 0:
        return NULL
    low, high = 0, sp.sparse_count
    while low < high:
        middle = (low + high) >> 1
        if sp.sparse_zids[middle] < zid:
            low = middle + 1
        else:
            high = middle
    if low < sp.sparse_count and sp.sparse_zids[low] == zid:
        # the sparse fields are the last ones in zid order
        return &sp.cfields[sp.field_count - sp.sparse_count + low]
    return NULL


cdef TypePlan unusable_type(object f):
    """The plan of a field whose type zebrapack cannot represent (FieldDef.unusable)."""
    cdef TypePlan plan = TypePlan()
    plan.kind = K_UNUSABLE
    plan.go = f.go_spelling
    plan.reason = f.unusable
    plan.zero, plan.zero_shared = None, True
    return plan


cdef compile_struct(StructPlan plan, object struct_def, dict structs, dict memo, bint preserve):
    cdef FieldPlan fp
    cdef Py_ssize_t i
    cdef list by_declaration = []
    for f in struct_def.fields:
        if f.skip:
            continue
        fp = FieldPlan()
        fp.zid = f.zid
        fp.name = f.go_name
        fp.attr = f.attr
        fp.type = compile_type(f.type, structs, memo) if not f.unusable else unusable_type(f)
        if f.zid < 0 and plan.without_zid is None:
            plan.without_zid = f.go_name
        fp.zid_key = _stored_key(f.zid) if f.zid >= 0 else b""     # never written: see without_zid
        fp.tag = f.tag_name.encode("utf-8")
        fp.tag_key = _stored_str(f.tag_name)
        fp.zid_key_words = fp.zid_key + bytes(8)
        fp.tag_key_words = fp.tag_key + bytes(8)
        fp.offset = slot_offset(plan.cls, fp.attr)
        fp.time_field = fp.type.kind == K_TIME
        fp.omitempty = f.omit_empty
        fp.deprecated = f.deprecated
        fp.encode_zero = _field_encode_zero(fp, plan.cls)
        by_declaration.append(fp)
    plan.msgp_fields = tuple(by_declaration)
    plan.fields = tuple(sorted(by_declaration, key=lambda item: item.zid))
    # Zids below the limit index a table (the common, dense case); a schema's few
    # large zids are searched, so that memory follows the field count, not the zids.
    limit = min(max([fp.zid for fp in plan.fields] + [-1]) + 1, DENSE_ZIDS_PER_FIELD * len(plan.fields) + 16)
    plan.zid_limit = limit
    sparse_zids = [fp.zid for fp in plan.fields if fp.zid >= limit]
    plan.sparse_count = len(sparse_zids)
    plan.sparse_zids = <Py_ssize_t *>PyMem_Malloc(max(plan.sparse_count, 1) * sizeof(Py_ssize_t))
    if plan.sparse_zids == NULL:
        raise MemoryError()
    for i, zid in enumerate(sparse_zids):
        plan.sparse_zids[i] = zid
    flatten_fields(plan)
    plan.slots_readable = True
    for fp in plan.fields:
        if fp.offset < 0:
            plan.slots_readable = False
    plan.preserve = preserve
    plan.prologue = preserve or plan.without_zid is not None
    plan.unknown_offset = slot_offset(plan.cls, UNKNOWN_ATTR) if preserve else -1
    plan.build, plan.post_init = _build_mode(plan)
    # Only our own record classes re-track on assignment; a __post_init__ or a
    # __dict__ could store a container unseen.
    plan.untrackable = (plan.build == BUILD_SLOTS and plan.post_init is None and sp_is_record(plan.cls)
                        and plan.unknown_offset < 0)
    plan.free_class = (zp_free_class(plan.tp) if plan.build == BUILD_SLOTS and zp_frees_records(plan.tp)
                       else -1)
    plan.flat = False                       # (settle_flat, once every plan is compiled)
    plan.flat_levels = 0
    plan.flat_tp = NULL
    plan.cfields_end = plan.cfields + plan.field_count
    plan.flat_header[0] = zp_map_header_size(plan.field_count)
    plan.flat_header[1] = zp_map_header_size(plan.field_count + 1)


cdef void settle_flat(StructPlan plan, Py_ssize_t max_depth) noexcept:
    """Whether write_flat_record writes the plan's records (StructPlan.flat): read by their
    slots, nothing preserved, every field one it writes (FieldC.flat_kind; a struct field's
    plan flat too) under a key of one word (FieldC.wkey_word: every zid's is, MAX_ZID's
    takes 5 bytes; the test keeps the loop right should that change), within max_depth
    levels (write_struct refuses a record deeper) and the trail's first room (where the
    general path would not ask the thread's stack: TRAIL_INLINE). Its fixed room
    (flat_room): its map header, name entry and every field's inline_room (a list's or
    map's: its key and header; a struct's: its key, and the struct's flat_room added).
    The plans of struct fields first (Go structs hold one another by value acyclically)."""
    cdef Py_ssize_t i, levels = 1, any_levels
    cdef FieldC *fc
    cdef bint flat = plan.slots_readable and not plan.preserve and plan.without_zid is None
    cdef bint any_field = False, with_any
    if plan.flat_levels:                    # settled
        return
    plan.flat_room = zp_map_header_size(plan.field_count + 1) + plan.name_entry_len + 7
    plan.flat_by_value = False
    for i in range(plan.field_count):
        fc = &plan.cfields[i]
        plan.flat_room += fc.inline_room
        if fc.flat_kind == FLAT_NONE or fc.wkey_len > 8:
            flat = False
        elif fc.flat_kind == FLAT_STRUCT:
            settle_flat(<StructPlan>fc.nested, max_depth)
            flat = flat and (<StructPlan>fc.nested).flat
            plan.flat_by_value = plan.flat_by_value or (<StructPlan>fc.nested).flat_by_value
            levels = max(levels, 1 + (<StructPlan>fc.nested).flat_levels)
            plan.flat_room += (<StructPlan>fc.nested).flat_room
        elif fc.inline_kind == INLINE_ANY:
            plan.flat_by_value = True
            any_field = True
        elif fc.flat_kind != FLAT_INLINE:
            levels = max(levels, 2)
    # The lists and dicts of its interface{} fields, ANY_FLAT_LEVELS deep, where the record
    # stays within the limits with them (else write_struct writes them, as before)
    any_levels = max(levels, 1 + ANY_FLAT_LEVELS)
    with_any = any_field and flat and any_levels <= max_depth and any_levels < TRAIL_INLINE
    if with_any:
        levels = any_levels
    for i in range(plan.field_count):
        if plan.cfields[i].inline_kind == INLINE_ANY:
            plan.cfields[i].any_levels = ANY_FLAT_LEVELS if with_any else 0
    plan.flat_levels = levels
    plan.flat = flat and levels <= max_depth and levels < TRAIL_INLINE
    plan.flat_tp = plan.tp if plan.flat else NULL


# The zero values write_struct compares by identity first (held here, so that the
# borrowed pointers in FieldC stay valid whatever the interpreter caches).
cdef object _ZERO_INT = 0
cdef object _ZERO_STR = ""

# A field whose zero is no single object (containers, complex): _field_encode_zero
# gives _NO_ZERO, and FieldC.zero points to _NO_ZERO_ADDRESS, which no slot holds (it
# is no object), so that the identity test fails for every value.
cdef object _NO_ZERO = object()
cdef char _NO_ZERO_ADDRESS


cdef object _field_encode_zero(FieldPlan fp, object cls):
    """The object FieldC.zero points to: a value that is, by its identity alone, the
    field's zero as is_plain_zero tests it (0, False, None, "", b""); for floats, which
    have no singleton zero, the class's declared default when it is an exact +0.0 float
    (records built with defaults hold it), else the 0.0 decoding fills in. None when
    there is no such object (_NO_ZERO)."""
    cdef int kind = fp.type.kind
    if fp.time_field or kind == K_POINTER or kind == K_IFACE or kind == K_UNUSABLE:
        return None
    if kind == K_STRING:
        return _ZERO_STR
    if kind >= K_UINT and kind <= K_INT64:
        return _ZERO_INT
    if kind == K_BOOL:
        return False
    if kind == K_BYTES:
        return fp.type.zero
    if kind == K_F64 or kind == K_F32:
        declared = getattr(cls, "__dataclass_fields__", None)
        default = declared.get(fp.attr) if isinstance(declared, dict) else None
        default = getattr(default, "default", None)
        if type(default) is float and default == 0.0 and not signbit(<double>default):
            return default
        return fp.type.zero
    return _NO_ZERO


cdef enum:
    # FieldC.flat_kind: how write_flat_record writes the field
    FLAT_NONE = 0           # it does not: the plan is not flat
    FLAT_INLINE = 1         # store_inline_field (FieldC.inline_kind)
    FLAT_LIST = 2           # a []T of numbers, bools, times or strings (or pointers to them): store_list_field
    FLAT_MAP = 3            # a map[K]V of strings or integers to numbers, bools, times or strings: store_map_field
    FLAT_STRUCT = 4         # a struct (by value) of a flat plan: flat_fields, in its record's room


cdef enum:
    # FieldC.inline_kind: the exact built-in values write_struct writes itself (key and
    # value under one capacity check); any other value goes through write_value.
    INLINE_NONE = 0
    INLINE_SIGNED = 1       # exact int within imin..imax
    INLINE_UNSIGNED = 2     # exact int within 0..umax
    INLINE_F64 = 3          # exact float
    INLINE_STR = 4          # exact str (that has UTF-8: no surrogate)
    INLINE_BOOL = 5         # True / False
    INLINE_TIME = 6         # exact datetime whose tzinfo is timezone.utc
    INLINE_BYTES = 7        # exact bytes ([]byte)
    INLINE_F32 = 8          # exact float within float32's range
    INLINE_CONTAINER = 9    # write_flat_record's only: a list, map or struct (FieldC.flat_kind)
    INLINE_ANY = 10         # an interface{} field's str or scalar (store_any_field), never left out; in
                            # write_flat_record its lists and dicts too (FieldC.any_levels)
    INLINE_POINTER = 16     # added to the kind of a pointer's value: a non-nil *T of those
    # The levels of lists and dicts in an interface{} field write_flat_record stores
    # (store_any_container): a small JSON-like value, such as {"a": [1, 2], "b": {"c": "d"}}
    ANY_FLAT_LEVELS = 2


cdef void set_inline(FieldC *fc, int inline_kind) noexcept:
    """The field's inline kind and room (for its key, wkey_len, set before); a key too
    long for the room's int (no schema has one) leaves the field to write_value."""
    cdef Py_ssize_t room = fc.wkey_len + _inline_value_room(inline_kind) + 7
    fc.inline_kind = inline_kind if room <= INT32_MAX else INLINE_NONE
    fc.inline_room = <int>room if room <= INT32_MAX else 0


cdef Py_ssize_t _inline_value_room(int inline_kind) noexcept:
    """The bytes an inline value of the kind takes at most, a str's or []byte's data left
    out: an int or float64 9, a time 15, a str or []byte header 5, a float32 5, a bool 1,
    an interface{} scalar 9 (a str's header 5)."""
    if inline_kind > INLINE_POINTER:
        inline_kind -= INLINE_POINTER
    if inline_kind == INLINE_TIME:
        return 15
    if inline_kind == INLINE_BOOL:
        return 1
    if inline_kind == INLINE_STR or inline_kind == INLINE_BYTES or inline_kind == INLINE_F32:
        return 5
    return 9


cdef int _inline_kind(FieldPlan fp) except -1:
    cdef int kind
    if fp.deprecated:                       # a warning to give
        return INLINE_NONE
    if fp.type.kind == K_POINTER:
        kind = _inline_value_kind(fp.type.elem)
        return kind + INLINE_POINTER if kind != INLINE_NONE and kind != INLINE_ANY else INLINE_NONE
    return _inline_value_kind(fp.type)


# The inline kind of each plan kind that has one (the integers' by their sign). A time's
# None (Go's zero instant at field level) is left to write_time.
cdef dict _INLINE_KINDS = {K_F64: INLINE_F64, K_STRING: INLINE_STR, K_BOOL: INLINE_BOOL, K_TIME: INLINE_TIME,
                           K_BYTES: INLINE_BYTES, K_F32: INLINE_F32, K_INTF: INLINE_ANY}


cdef int _inline_value_kind(TypePlan t) except -1:
    if K_UINT <= t.kind <= K_INT64:
        return INLINE_SIGNED if t.is_signed else INLINE_UNSIGNED
    return _INLINE_KINDS.get(t.kind, INLINE_NONE)


cdef fill_field_c(FieldC *fc, FieldPlan fp):
    fc.plan = <PyObject *>fp
    fc.type = <PyObject *>fp.type
    fc.elem = <PyObject *>fp.type.elem if fp.type.kind == K_POINTER else NULL
    fc.zid = fp.zid
    fc.offset = fp.offset
    fc.kind = fp.type.kind
    fc.time_field = fp.time_field
    fc.omitempty = fp.omitempty
    fc.zero = <PyObject *>&_NO_ZERO_ADDRESS if fp.encode_zero is _NO_ZERO else <PyObject *>fp.encode_zero
    fc.deprecated = fp.deprecated
    fc.zid_key = PyBytes_AS_STRING(fp.zid_key)
    fc.zid_key_len = PyBytes_GET_SIZE(fp.zid_key)
    fc.tag_key = PyBytes_AS_STRING(fp.tag_key)
    fc.tag_key_len = PyBytes_GET_SIZE(fp.tag_key)
    fc.tag.text = PyBytes_AS_STRING(fp.tag)
    fc.tag.len = PyBytes_GET_SIZE(fp.tag)
    # shared zeros (scalars, "", b"", [N]byte) hold no other value: no zero cost, nothing the collector tracks
    fc.absent_zero = <PyObject *>None if fp.time_field else (<PyObject *>fp.type.zero if fp.type.zero_shared else NULL)
    set_key(fc, fp.zid_key_words, fc.zid_key_len)
    set_inline(fc, _inline_kind(fp))
    nested = fp.type.elem if fp.type.kind == K_POINTER else fp.type
    fc.imin = (<TypePlan>nested).imin       # a pointer's: its value's range
    fc.imax = (<TypePlan>nested).imax
    fc.umax = (<TypePlan>nested).umax
    fc.nested = <PyObject *>(<TypePlan>nested).struct_plan if (<TypePlan>nested).kind == K_STRUCT else NULL
    fc.nested_inlined = (<TypePlan>nested).kind == K_STRUCT and (<TypePlan>nested).inlined
    set_flat_kind(fc, fp)


cdef void set_key(FieldC *fc, bytes words, Py_ssize_t n) noexcept:
    """The key the field's array writes: n bytes, kept in words padded for zp_copy_words."""
    fc.wkey = PyBytes_AS_STRING(words)
    fc.wkey_len = n
    memcpy(&fc.wkey_word, fc.wkey, 8)


cdef flatten_fields(StructPlan plan):
    """The C arrays beside `fields` / `msgp_fields` (FieldC), and zid_index: a field
    without a zid has none to look up."""
    cdef Py_ssize_t i, count = len(plan.fields)
    plan.field_count = count
    plan.cfields = <FieldC *>PyMem_Malloc(max(count, 1) * sizeof(FieldC))
    plan.cmsgp_fields = <FieldC *>PyMem_Malloc(max(count, 1) * sizeof(FieldC))
    plan.cmsgp_every = <FieldC *>PyMem_Malloc(max(count, 1) * sizeof(FieldC))
    plan.zid_index = <int32_t *>PyMem_Malloc(max(plan.zid_limit, 1) * sizeof(int32_t))
    if plan.cfields == NULL or plan.cmsgp_fields == NULL or plan.cmsgp_every == NULL or plan.zid_index == NULL:
        raise MemoryError()
    for i in range(plan.zid_limit):
        plan.zid_index[i] = -1
    place = {id(fp): i for i, fp in enumerate(plan.fields)}
    for i in range(count):
        fill_field_c(&plan.cfields[i], <FieldPlan>plan.fields[i])
        fill_field_c(&plan.cmsgp_fields[i], <FieldPlan>plan.msgp_fields[i])
        plan.cfields[i].index = i
        plan.cmsgp_fields[i].index = place[id(plan.msgp_fields[i])]
        set_key(&plan.cmsgp_fields[i], (<FieldPlan>plan.msgp_fields[i]).tag_key_words,  # msgp mode
                plan.cmsgp_fields[i].tag_key_len)                                       # writes tags
        set_inline(&plan.cmsgp_fields[i], plan.cmsgp_fields[i].inline_kind)
        plan.cmsgp_every[i] = plan.cmsgp_fields[i]
        plan.cmsgp_every[i].omitempty = False
        if 0 <= plan.cfields[i].zid < plan.zid_limit:     # a field without a zid has none to look up
            plan.zid_index[plan.cfields[i].zid] = <int32_t>i


cdef bint sp_is_record(object cls):
    """A record class whose every store goes through its C base (_record.pxi)."""
    return record_class_untrackable(cls)


cdef tuple _build_mode(StructPlan plan):
    """How records of the plan's class are built: a dataclass whose fields are exactly
    the schema's is built as msgspec builds dataclasses, without its __init__ (which
    would take the fields as keyword arguments and set them one by one in Python):
    BUILD_SLOTS when every field is a member slot, else BUILD_ATTRS; then its
    __post_init__, if any. Any other class, and a dataclass whose __post_init__ takes
    init-only values (InitVar) or whose __new__ is its own: cls(**fields)."""
    import dataclasses
    import inspect
    cls = plan.cls
    if not dataclasses.is_dataclass(cls):
        return BUILD_CALL, None
    if cls.__new__ is not object.__new__ or (<PyTypeObject *>cls).tp_itemsize != 0:
        return BUILD_CALL, None
    declared = {f.name for f in dataclasses.fields(cls)}
    expected = {(<FieldPlan>fp).attr for fp in plan.fields}
    if plan.preserve:
        if plan.slots_readable and plan.unknown_offset < 0:
            return BUILD_CALL, None
        expected.add(UNKNOWN_ATTR)
    if declared != expected:
        return BUILD_CALL, None
    post_init = getattr(cls, "__post_init__", None)
    if post_init is not None:
        try:
            takes = len(inspect.signature(post_init).parameters) > 1     # self, then InitVars
        except (TypeError, ValueError):                                  # no signature to read
            takes = True
        if takes:
            return BUILD_CALL, None
    return (BUILD_SLOTS if plan.slots_readable else BUILD_ATTRS), post_init


# -- zero values --------------------------------------------------------------

#: Cap on a zero cost (only reachable with models not checked by parse_schema).
cdef Py_ssize_t ZERO_COST_CAP = <Py_ssize_t>1 << 40


cdef Py_ssize_t type_zero_cost(TypePlan t):
    """Values the zero of t holds besides itself: fixed arrays' elements, nested structs' fields."""
    cdef Py_ssize_t cost = 0
    if t.kind == K_STRUCT:
        cost = struct_zero_cost(t.struct_plan)
    elif t.kind == K_ARRAY:
        cost = min(t.length * (1 + type_zero_cost(t.elem)), ZERO_COST_CAP)
    t.zero_cost = cost
    return cost


cdef Py_ssize_t struct_zero_cost(StructPlan sp):
    """The fields of its zero value, recursively (structs hold one another by value acyclically)."""
    cdef FieldPlan fp
    cdef Py_ssize_t cost = 0
    if sp.zero_cost >= 0:
        return sp.zero_cost
    for fp in sp.fields:
        fp.zero_cost = 0 if fp.time_field else type_zero_cost(fp.type)
        cost = min(cost + 1 + fp.zero_cost, ZERO_COST_CAP)
    sp.zero_cost = cost
    return cost

cdef object make_zero(TypePlan t):
    """The zero value of a type: shared when immutable, fresh otherwise."""
    cdef Py_ssize_t i
    cdef list items
    if t.zero_shared:
        return t.zero
    if t.kind == K_SLICE:
        return []
    if t.kind == K_MAP:
        return {}
    if t.kind == K_STRUCT:
        return make_zero_struct(t.struct_plan)
    if t.kind == K_ARRAY:
        items = PyList_New(t.length)
        for i in range(t.length):
            item = make_zero(t.elem)
            Py_INCREF(item)
            PyList_SET_ITEM(items, i, item)
        return items
    raise AssertionError(f"no zero for kind {t.kind}")


cdef inline object field_zero(FieldPlan fp):
    return None if fp.time_field else make_zero(fp.type)


cdef object make_zero_struct(StructPlan sp):
    cdef FieldPlan fp
    cdef int tracked
    if sp.build == BUILD_SLOTS:
        obj = zp_alloc_record(sp.tp, sp.free_class, &tracked)
        if not tracked:
            PyObject_GC_Track(<PyObject *>obj)
        for fp in sp.fields:
            zp_slot_set(obj, fp.offset, field_zero(fp))
        if sp.unknown_offset >= 0:
            zp_slot_set(obj, sp.unknown_offset, None)
        if sp.post_init is not None:
            sp.post_init(obj)
        return obj
    kwargs = {}
    for fp in sp.fields:
        kwargs[fp.attr] = field_zero(fp)
    if sp.build == BUILD_ATTRS:
        return build_attrs_record(sp, kwargs, None)
    return sp.cls(**kwargs)
