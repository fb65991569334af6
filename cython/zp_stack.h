/* The C stack guard. The decoder and encoder recurse once per nesting level;
 * max_depth bounds the levels, and this bounds the bytes: a call stops before
 * its recursion reaches the last ZP_STACK_RESERVE bytes of the thread's stack,
 * whatever the thread's stack size, the compiler's frame sizes (sanitizer and
 * debug builds have much bigger ones) or a caller's max_depth. Code running on
 * a stack of its own (a fiber's, outside the thread's) is not checked.
 *
 * Where the thread's stack comes from: pthread_getattr_np (Linux: glibc and
 * musl), pthread_get_stackaddr_np (macOS), GetCurrentThreadStackLimits
 * (Windows 8 and later, which every supported Python needs). Elsewhere there is
 * no guard, and max_depth alone bounds the recursion. */
#ifndef ZP_STACK_H
#define ZP_STACK_H

#include <Python.h>     /* first: pyconfig.h defines _GNU_SOURCE, which pthread_getattr_np needs */
#include <stdint.h>

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#define ZP_STACK_GUARD 1
#elif (defined(__GNUC__) || defined(__clang__)) && (defined(__linux__) || defined(__APPLE__))
#include <pthread.h>
#define ZP_STACK_GUARD 1
#endif

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#define ZP_THREAD_LOCAL __declspec(thread)
#else
#define ZP_THREAD_LOCAL _Thread_local
#endif

/* glibc 2.32 and 2.34 moved pthread_getattr_np and pthread_attr_getstack from
 * libpthread into libc and gave them new symbol versions there; the old versions
 * stay in libc as aliases of the same code. A core compiled against a newer
 * glibc binds to the old versions, so that it loads on every glibc since 2.17
 * (manylinux2014: RHEL 7 and 8, Ubuntu 20.04, Amazon Linux 2), where they are
 * libpthread's, which every CPython process has loaded. The versions are each
 * architecture's first (the wheels' architectures; elsewhere the build's own). */
#if defined(__linux__) && defined(__GLIBC__) && defined(ZP_STACK_GUARD)
#if __GLIBC_PREREQ(2, 32)
#if defined(__x86_64__) && !defined(__ILP32__)
#define ZP_GLIBC_FIRST_VERSION "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define ZP_GLIBC_FIRST_VERSION "GLIBC_2.17"
#endif
#ifdef ZP_GLIBC_FIRST_VERSION
__asm__(".symver pthread_getattr_np, pthread_getattr_np@" ZP_GLIBC_FIRST_VERSION);
__asm__(".symver pthread_attr_getstack, pthread_attr_getstack@" ZP_GLIBC_FIRST_VERSION);
#endif
#endif
#endif

/* Kept free under the deepest level: room for the Python calls made there
 * (__post_init__, tzinfo methods, building the error). A quarter of the stack
 * when that is less. */
#define ZP_STACK_RESERVE (64 * 1024)

#ifdef ZP_STACK_GUARD

static inline uintptr_t zp_stack_here(void) {
#if defined(_MSC_VER) && !defined(__clang__)
    return (uintptr_t)_AddressOfReturnAddress();
#else
    return (uintptr_t)__builtin_frame_address(0);
#endif
}

/* The calling thread's stack: its lowest address, and the floor recursion stops
 * at (the lowest address plus the reserve). Both 0 when unknown. */
static void zp_stack_bounds_of_this_thread(uintptr_t *low, uintptr_t *floor) {
    size_t size;
    *low = *floor = 0;
#if defined(_WIN32)
    ULONG_PTR lowest, highest;
    GetCurrentThreadStackLimits(&lowest, &highest);     /* the whole reservation, guard pages too */
    *low = (uintptr_t)lowest;
    size = (size_t)(highest - lowest);
#elif defined(__linux__)
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
static ZP_THREAD_LOCAL int zp_stack_known = 0;
static ZP_THREAD_LOCAL uintptr_t zp_stack_low_cache, zp_stack_floor_cache;

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
