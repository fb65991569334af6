/* The C stack guard. The decoder and encoder recurse once per nesting level;
 * max_depth bounds the levels, and this bounds the bytes: a call stops before
 * its recursion reaches the last ZP_STACK_RESERVE bytes of the thread's stack,
 * whatever the thread's stack size, the compiler's frame sizes (sanitizer and
 * debug builds have much bigger ones) or a caller's max_depth. Code running on
 * a stack of its own (a fiber's, outside the thread's) is not checked. */
#ifndef ZP_STACK_H
#define ZP_STACK_H

#include <Python.h>     /* first: pyconfig.h defines _GNU_SOURCE, which pthread_getattr_np needs */
#include <stdint.h>

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__linux__) || defined(__APPLE__))
#include <pthread.h>
#define ZP_STACK_GUARD 1
#endif

/* Kept free under the deepest level: room for the Python calls made there
 * (__post_init__, tzinfo methods, building the error). A quarter of the stack
 * when that is less. */
#define ZP_STACK_RESERVE (64 * 1024)

#ifdef ZP_STACK_GUARD

static inline uintptr_t zp_stack_here(void) {
    return (uintptr_t)__builtin_frame_address(0);
}

/* The calling thread's stack: its lowest address, and the floor recursion stops
 * at (the lowest address plus the reserve). Both 0 when unknown. */
static void zp_stack_bounds_of_this_thread(uintptr_t *low, uintptr_t *floor) {
    size_t size;
    *low = *floor = 0;
#if defined(__linux__)
    pthread_attr_t attr;
    void *addr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return;
    int rc = pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        return;
    *low = (uintptr_t)addr;
#else
    size = pthread_get_stacksize_np(pthread_self());
    *low = (uintptr_t)pthread_get_stackaddr_np(pthread_self()) - size;
#endif
    *floor = *low + (size / 4 < ZP_STACK_RESERVE ? size / 4 : ZP_STACK_RESERVE);
}

/* Thread-local: pthread_getattr_np reads /proc for the main thread, so it is
 * asked once per thread, not once per call. */
static _Thread_local int zp_stack_known = 0;
static _Thread_local uintptr_t zp_stack_low_cache, zp_stack_floor_cache;

static inline void zp_stack_bounds(uintptr_t *low, uintptr_t *floor) {
    if (!zp_stack_known) {
        zp_stack_bounds_of_this_thread(&zp_stack_low_cache, &zp_stack_floor_cache);
        zp_stack_known = 1;
    }
    *low = zp_stack_low_cache;
    *floor = zp_stack_floor_cache;
}

#else  /* no guard on this platform: max_depth alone bounds the recursion */

static inline uintptr_t zp_stack_here(void) { return UINTPTR_MAX; }
static inline void zp_stack_bounds(uintptr_t *low, uintptr_t *floor) { *low = *floor = 0; }

#endif

#endif
