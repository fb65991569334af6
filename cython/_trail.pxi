# The trail: where the decoder or encoder is in the value tree. One entry per
# container level, updated with a store or two per element, so that an error
# anywhere can name its field path (Compound.Inners[2].X) without any work on
# the success path. It also enforces the nesting limits: max_depth levels, and
# the thread's C stack (zp_stack.h), whichever comes first.

cdef extern from "zp_traceback.h":
    void zp_traceback_shorten(object tb) noexcept
    void zp_traceback_shorten_pending() noexcept

cdef enum:
    P_NONE = 0      # entered, no element yet
    P_FIELD = 1     # ref: the FieldPlan (owned by the codec)
    P_INDEX = 2     # index: the list position
    P_KEY = 3       # ref: a strong reference to the map key (NULL while it is read)
    P_ZID = 4       # index: an unknown zid whose value is skipped

cdef enum:
    TRAIL_INLINE = 32

cdef struct PathEntry:
    int kind
    PyObject *ref
    Py_ssize_t index

cdef struct Trail:
    Py_ssize_t depth
    Py_ssize_t max_depth
    uintptr_t stack_low             # the thread's stack: its lowest address,
    uintptr_t stack_floor           # and the lowest frame address recursion may reach
    Py_ssize_t cap
    PyObject *root                  # the root struct's name (borrowed), or NULL
    PathEntry *entries
    PathEntry inline_entries[TRAIL_INLINE]


cdef inline void trail_init(Trail *t, Py_ssize_t max_depth) noexcept:
    t.depth = 0
    t.max_depth = max_depth
    t.stack_low = 0                 # set by trail_grow: shallow values never need the check
    t.stack_floor = 0
    t.cap = TRAIL_INLINE if max_depth + 1 > TRAIL_INLINE else max_depth + 1
    t.root = NULL
    t.entries = t.inline_entries
    t.entries[0].kind = P_NONE
    t.entries[0].ref = NULL


cdef inline bint trail_enter(Trail *t) noexcept:
    """Go one level deeper; False when that passes a limit (or memory ran out)."""
    cdef uintptr_t here = zp_stack_here()
    t.depth += 1
    if t.depth >= t.cap and not trail_grow(t) or here < t.stack_floor and here >= t.stack_low:
        t.depth -= 1
        return False
    t.entries[t.depth].kind = P_NONE
    t.entries[t.depth].ref = NULL
    return True


cdef bint trail_grow(Trail *t) noexcept:
    cdef Py_ssize_t cap
    cdef PathEntry *entries
    if t.depth > t.max_depth:
        return False
    cap = t.cap * 4
    if cap > t.max_depth + 1:
        cap = t.max_depth + 1
    if t.entries == t.inline_entries:
        zp_stack_bounds(&t.stack_low, &t.stack_floor)
        entries = <PathEntry *>PyMem_Malloc(cap * sizeof(PathEntry))
        if entries != NULL:
            memcpy(entries, t.inline_entries, t.cap * sizeof(PathEntry))
    else:
        entries = <PathEntry *>PyMem_Realloc(t.entries, cap * sizeof(PathEntry))
    if entries == NULL:
        return False
    t.entries = entries
    t.cap = cap
    return True


cdef str trail_too_deep(Trail *t):
    """Why trail_enter refused to go deeper."""
    if t.depth >= t.max_depth:
        return f"nesting deeper than max_depth={t.max_depth}"
    if t.depth + 1 >= t.cap:        # trail_grow could not allocate
        return f"out of memory for the field path at {t.depth} levels"
    return f"nesting deeper than this thread's C stack allows ({t.depth} levels)"


cdef inline void trail_leave(Trail *t) noexcept:
    t.depth -= 1


cdef inline void trail_field(Trail *t, PyObject *fp) noexcept:
    """At the field whose FieldPlan is fp (borrowed: the codec owns it)."""
    t.entries[t.depth].kind = P_FIELD
    t.entries[t.depth].ref = fp


cdef inline void trail_index(Trail *t, Py_ssize_t index) noexcept:
    t.entries[t.depth].kind = P_INDEX
    t.entries[t.depth].index = index


cdef inline void trail_zid(Trail *t, Py_ssize_t zid) noexcept:
    t.entries[t.depth].kind = P_ZID
    t.entries[t.depth].index = zid


cdef inline void trail_key_reading(Trail *t) noexcept:
    """Before a map key is read: drop the previous key."""
    cdef PathEntry *entry = &t.entries[t.depth]
    cdef PyObject *old = entry.ref if entry.kind == P_KEY else NULL
    entry.kind = P_KEY
    entry.ref = NULL
    Py_XDECREF(old)


cdef inline void trail_key(Trail *t, object key) noexcept:
    """The map key whose value comes next (a strong reference until replaced)."""
    Py_INCREF(key)
    t.entries[t.depth].ref = <PyObject *>key


cdef inline void trail_map_done(Trail *t) noexcept:
    """A map level ends normally: release its key, then leave."""
    trail_key_reading(t)
    t.depth -= 1


cdef void trail_release(Trail *t) noexcept:
    """End of a call: release keys left by an error, free the heap entries."""
    cdef Py_ssize_t d
    for d in range(1, t.depth + 1):
        if t.entries[d].kind == P_KEY:
            Py_XDECREF(t.entries[d].ref)
            t.entries[d].ref = NULL
    t.depth = 0
    if t.entries != t.inline_entries:
        PyMem_Free(t.entries)
        t.entries = t.inline_entries


cdef str trail_path(Trail *t):
    """The field path, e.g. Compound.Inners[2].X or $[3] when no struct is known."""
    cdef Py_ssize_t d
    cdef PathEntry *entry
    parts = [<object>t.root if t.root != NULL else "$"]
    for d in range(1, t.depth + 1):
        entry = &t.entries[d]
        if entry.kind == P_FIELD:
            parts.append("." + (<FieldPlan>entry.ref).name)
        elif entry.kind == P_INDEX:
            parts.append(f"[{entry.index}]")
        elif entry.kind == P_KEY:
            parts.append("[<key>]" if entry.ref == NULL else f"[{_short_repr(<object>entry.ref)}]")
        elif entry.kind == P_ZID:
            parts.append(f".<zid {entry.index}>")
        else:
            break
    return "".join(parts)


cdef str _short_repr(object value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
