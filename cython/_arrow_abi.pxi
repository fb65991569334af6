# The Arrow C Data Interface and C Stream Interface (zp_arrow.h), for the
# columnar reader and writer. PyCapsules carry these structs between libraries
# under the names "arrow_schema", "arrow_array" and "arrow_array_stream".

cdef extern from "zp_arrow.h":
    enum:
        ARROW_FLAG_DICTIONARY_ORDERED
        ARROW_FLAG_NULLABLE
        ARROW_FLAG_MAP_KEYS_SORTED

    struct ArrowSchema:
        const char *format
        const char *name
        const char *metadata
        int64_t flags
        int64_t n_children
        ArrowSchema **children
        ArrowSchema *dictionary
        void (*release)(ArrowSchema *) noexcept nogil
        void *private_data

    struct ArrowArray:
        int64_t length
        int64_t null_count
        int64_t offset
        int64_t n_buffers
        int64_t n_children
        const void **buffers
        ArrowArray **children
        ArrowArray *dictionary
        void (*release)(ArrowArray *) noexcept nogil
        void *private_data

    struct ArrowArrayStream:
        int (*get_schema)(ArrowArrayStream *, ArrowSchema *) noexcept nogil
        int (*get_next)(ArrowArrayStream *, ArrowArray *) noexcept nogil
        const char *(*get_last_error)(ArrowArrayStream *) noexcept nogil
        void (*release)(ArrowArrayStream *) noexcept nogil
        void *private_data
