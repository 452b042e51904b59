#include "allocation_counter.h"

#include <errno.h>
#include <stdlib.h>  // defines __GLIBC__ where the C library is glibc

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define NOTES_SANITIZED 1
#endif
#endif

// Under a sanitizer, whose runtime owns malloc and friends, nothing is interposed (and nothing counted):
// the `make asan` and `make tsan` builds run the benchmarks executable too (its report tests).
#if defined(__GLIBC__) && defined(__linux__) && !defined(NOTES_SANITIZED)

// glibc's own entry points, which these definitions forward to.
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

// Per thread, so that counting costs no atomic operation; a workload reads its own thread's count.
static _Thread_local long allocations;

long notes_allocations(void) { return allocations; }

void *malloc(size_t size) {
    allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    allocations++;
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    allocations++;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

void free(void *pointer) { __libc_free(pointer); }

#else

long notes_allocations(void) { return -1; }

#endif
