/* A NumPy data-memory handler (NEP 49) for cresize's large results.
 *
 * Linux backs a region with transparent huge pages only in whole 2 MiB-aligned
 * pieces, and a malloc'd (mmap'd) block starts 16 bytes past a page boundary: its
 * first and last partial 2 MiB regions fault 4 KiB at a time. This handler gives
 * allocations of at least CRESIZE_HUGE_MIN (32 MiB) bytes a 2 MiB-aligned start
 * (posix_memalign) and, when NumPy's own hugepage setting is on, madvises them
 * MADV_HUGEPAGE as NumPy does. Smaller sizes, realloc and free are plain libc (free
 * and glibc realloc take posix_memalign'd memory). NumPy traces every allocation
 * (tracemalloc) around the handler, so nothing here does.
 *
 * cresize_huge_handler() is the handler's capsule, or None off Linux (there
 * NumPy's default handler stays in use). _fast.new_result is its one user.
 */
#ifndef CRESIZE_HUGEALLOC_H
#define CRESIZE_HUGEALLOC_H

#include <Python.h>
#include <numpy/ndarraytypes.h>
#include <stdlib.h>
#include <string.h>

#define CRESIZE_HUGE_ALIGN ((size_t)2 << 20)
/* From glibc's largest dynamic mmap threshold (32 MiB on 64-bit) on, malloc always
 * maps fresh pages, which fault; below it a freed block is reused without faults,
 * which beats aligning it (measured: a 12 MiB result in a loop was 25% slower when
 * aligned, every call faulting its huge pages anew). */
#define CRESIZE_HUGE_MIN ((size_t)32 << 20)

#ifdef __linux__
#include <sys/mman.h>

static int cresize_huge_madvise = 0;

static void *cresize_huge_malloc(void *ctx, size_t size)
{
    void *p = NULL;
    (void)ctx;
    if (size < CRESIZE_HUGE_MIN)
        return malloc(size);
    if (posix_memalign(&p, CRESIZE_HUGE_ALIGN, size) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (cresize_huge_madvise)
        madvise(p, size & ~(CRESIZE_HUGE_ALIGN - 1), MADV_HUGEPAGE);
#endif
    return p;
}

static void *cresize_huge_calloc(void *ctx, size_t nelem, size_t elsize)
{
    void *p;
    size_t size;
    if (elsize != 0 && nelem > (size_t)-1 / elsize)
        return NULL;
    size = nelem * elsize;
    if (size < CRESIZE_HUGE_MIN)
        return calloc(nelem, elsize);
    p = cresize_huge_malloc(ctx, size);
    if (p != NULL)
        memset(p, 0, size);
    return p;
}

static void *cresize_huge_realloc(void *ctx, void *ptr, size_t new_size)
{
    (void)ctx;
    return realloc(ptr, new_size);
}

static void cresize_huge_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    free(ptr);
}

static PyDataMem_Handler cresize_huge_handler_struct = {
    "cresize_huge_pages",
    1,
    {
        NULL,
        cresize_huge_malloc,
        cresize_huge_calloc,
        cresize_huge_realloc,
        cresize_huge_free,
    },
};

/* The handler's capsule (a new reference); ``madvise``: NumPy's hugepage setting. */
static PyObject *cresize_huge_handler(int madvise_on)
{
    cresize_huge_madvise = madvise_on;
    return PyCapsule_New(&cresize_huge_handler_struct, "mem_handler", NULL);
}

#else

static PyObject *cresize_huge_handler(int madvise_on)
{
    (void)madvise_on;
    Py_RETURN_NONE;
}

#endif
#endif
