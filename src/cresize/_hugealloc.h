/* A NumPy data-memory handler (NEP 49) for cresize's large results.
 *
 * Linux backs a region with transparent huge pages only in whole 2 MiB-aligned
 * pieces, and a malloc'd (mmap'd) block starts 16 bytes past a page boundary: its
 * first and last partial 2 MiB regions fault 4 KiB at a time. This handler gives
 * allocations of at least CRESIZE_HUGE_MIN (32 MiB) bytes a 2 MiB-aligned start
 * (posix_memalign) and, when NumPy's own hugepage setting is on, madvises them
 * MADV_HUGEPAGE as NumPy does. Smaller sizes are plain libc (free and glibc realloc
 * take posix_memalign'd memory). NumPy traces every allocation (tracemalloc) around
 * the handler, so nothing here does.
 *
 * The result pool. glibc maps a block of 32 MiB or more afresh on every malloc, so
 * each new result pays the kernel's page faults and zeroing for all of it. Freed
 * blocks of at least CRESIZE_HUGE_MIN (2 MiB-aligned: ours) are kept instead, up to
 * cresize_pool_limit bytes (capacities) in at most CRESIZE_POOL_SLOTS blocks, the
 * oldest evicted first; a block larger than the bound is freed. A request of ``size``
 * takes the smallest kept block whose capacity is in [size, 2 * size] (so results of
 * slightly different shapes, a folder of photos, share blocks). A block lent with a
 * capacity above the size asked is recorded in a side table (cresize_pool_lent; no
 * header, which would break the alignment) because NumPy's free passes the size
 * asked; when that table is full the block is not lent (a miss). realloc forgets the
 * record (the block then has at least the new size). Kept blocks are madvised
 * MADV_FREE (cresize_pool_madv_free): reused soon they cost no page fault; under
 * memory pressure the kernel may take their pages back (they are then zero pages
 * again on the next write). One mutex guards the pool (no system call and no libc
 * allocation is made while it is held); pthread_atfork takes it around fork, so a
 * child never inherits it locked. When a new block cannot be had (memory or address
 * space, ulimit -v), the kept ones are given back and it is asked for once more
 * (_fast.new_result does the same for a smaller result, plain NumPy memory).
 * cresize_pool_set / cresize_pool_info are _fast's pool_limit, pool_clear and
 * pool_info.
 *
 * cresize_huge_handler() is the handler's capsule, or None off Linux (there
 * NumPy's default handler stays in use and the pool holds nothing). _fast.new_result
 * is its one user.
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
/* The pool: its default bound (bytes), its most blocks, its side table's entries. */
#define CRESIZE_POOL_DEFAULT ((size_t)256 << 20)
#define CRESIZE_POOL_SLOTS 16
#define CRESIZE_POOL_LENT 64

/* The pool's bound (bytes; 0: nothing is kept) and whether kept blocks are madvised
 * MADV_FREE (an A/B switch: _fast.pool_madv_free). */
static size_t cresize_pool_limit = CRESIZE_POOL_DEFAULT;
static int cresize_pool_madv_free = 1;
/* Whether the pool is used at all (an A/B switch: _fast.pool_use; off, the blocks it
 * holds stay). */
static int cresize_pool_on = 1;

#ifdef __linux__
#include <sys/mman.h>

#include <pthread.h>
#include <stdint.h>

static int cresize_huge_madvise = 0;

typedef struct {
    void *p;     /* NULL: an empty slot */
    size_t cap;  /* the block's capacity (bytes) */
    unsigned long long age;
} cresize_pool_block;

static pthread_mutex_t cresize_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static cresize_pool_block cresize_pool[CRESIZE_POOL_SLOTS];
static cresize_pool_block cresize_pool_lent[CRESIZE_POOL_LENT];
static size_t cresize_pool_bytes = 0, cresize_pool_blocks = 0, cresize_pool_nlent = 0;
static unsigned long long cresize_pool_age = 0, cresize_pool_hits = 0, cresize_pool_misses = 0;

static void cresize_pool_fork_lock(void) { pthread_mutex_lock(&cresize_pool_lock); }
static void cresize_pool_fork_unlock(void) { pthread_mutex_unlock(&cresize_pool_lock); }
static void cresize_pool_fork_child(void) { pthread_mutex_init(&cresize_pool_lock, NULL); }

/* Under the lock: take slot i's block out of the pool. */
static void *cresize_pool_take(size_t i)
{
    void *p = cresize_pool[i].p;
    cresize_pool_bytes -= cresize_pool[i].cap;
    cresize_pool_blocks--;
    cresize_pool[i].p = NULL;
    return p;
}

/* Under the lock: evict the oldest blocks until ``need`` more bytes and one more
 * block fit; the evicted go to ``out`` (freed by the caller, after unlocking).
 * Returns how many. */
static size_t cresize_pool_evict(size_t need, size_t slots, void **out)
{
    size_t i, n = 0, oldest;
    while (cresize_pool_blocks > 0
           && (cresize_pool_bytes + need > cresize_pool_limit
               || cresize_pool_blocks + slots > CRESIZE_POOL_SLOTS)) {
        oldest = CRESIZE_POOL_SLOTS;
        for (i = 0; i < CRESIZE_POOL_SLOTS; i++)
            if (cresize_pool[i].p != NULL
                && (oldest == CRESIZE_POOL_SLOTS || cresize_pool[i].age < cresize_pool[oldest].age))
                oldest = i;
        out[n++] = cresize_pool_take(oldest);
    }
    return n;
}

/* Under the lock: forget ``ptr``'s side-table record; its capacity, or ``size``. */
static size_t cresize_pool_forget(void *ptr, size_t size)
{
    size_t i;
    if (cresize_pool_nlent == 0)
        return size;
    for (i = 0; i < CRESIZE_POOL_LENT; i++)
        if (cresize_pool_lent[i].p == ptr) {
            cresize_pool_lent[i].p = NULL;
            cresize_pool_nlent--;
            return cresize_pool_lent[i].cap;
        }
    return size;
}

/* A kept block of capacity in [size, 2 * size] (the smallest), or NULL. */
static void *cresize_pool_get(size_t size)
{
    size_t i, best = CRESIZE_POOL_SLOTS, cap;
    void *p = NULL;
    pthread_mutex_lock(&cresize_pool_lock);
    for (i = 0; i < CRESIZE_POOL_SLOTS; i++) {
        cap = cresize_pool[i].cap;
        if (cresize_pool[i].p != NULL && cap >= size && cap - size <= size
            && (best == CRESIZE_POOL_SLOTS || cap < cresize_pool[best].cap))
            best = i;
    }
    if (best < CRESIZE_POOL_SLOTS && cresize_pool[best].cap != size) {
        for (i = 0; i < CRESIZE_POOL_LENT && cresize_pool_lent[i].p != NULL; i++)
            ;
        if (i < CRESIZE_POOL_LENT) {
            cresize_pool_lent[i].cap = cresize_pool[best].cap;
            cresize_pool_lent[i].p = cresize_pool[best].p;
            cresize_pool_nlent++;
        } else {
            best = CRESIZE_POOL_SLOTS;  /* nowhere to record its capacity */
        }
    }
    if (best < CRESIZE_POOL_SLOTS) {
        p = cresize_pool_take(best);
        cresize_pool_hits++;
    } else {
        cresize_pool_misses++;
    }
    pthread_mutex_unlock(&cresize_pool_lock);
    return p;
}

/* Free every kept block; how many there were. */
static size_t cresize_pool_give_back(void)
{
    void *out[CRESIZE_POOL_SLOTS];
    size_t i, n = 0;
    pthread_mutex_lock(&cresize_pool_lock);
    for (i = 0; i < CRESIZE_POOL_SLOTS; i++)
        if (cresize_pool[i].p != NULL)
            out[n++] = cresize_pool_take(i);
    pthread_mutex_unlock(&cresize_pool_lock);
    for (i = 0; i < n; i++)
        free(out[i]);
    return n;
}

static void *cresize_huge_malloc(void *ctx, size_t size)
{
    void *p = NULL;
    (void)ctx;
    if (size < CRESIZE_HUGE_MIN)
        return malloc(size);
    p = cresize_pool_on ? cresize_pool_get(size) : NULL;
    if (p != NULL)
        return p;
    if (posix_memalign(&p, CRESIZE_HUGE_ALIGN, size) != 0) {
        /* Out of memory or address space (ulimit -v): give the kept blocks back and
         * try once more. */
        if (cresize_pool_give_back() == 0
            || posix_memalign(&p, CRESIZE_HUGE_ALIGN, size) != 0)
            return NULL;
    }
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
        memset(p, 0, size);  /* a kept block holds an old result */
    return p;
}

static void *cresize_huge_realloc(void *ctx, void *ptr, size_t new_size)
{
    (void)ctx;
    if (ptr != NULL) {
        pthread_mutex_lock(&cresize_pool_lock);
        cresize_pool_forget(ptr, 0);
        pthread_mutex_unlock(&cresize_pool_lock);
    }
    return realloc(ptr, new_size);
}

static void cresize_huge_free(void *ctx, void *ptr, size_t size)
{
    void *out[CRESIZE_POOL_SLOTS + 1];
    size_t cap, i, n = 0;
    int keep;
    (void)ctx;
    if (ptr == NULL)
        return;
    pthread_mutex_lock(&cresize_pool_lock);
    cap = cresize_pool_forget(ptr, size);
    keep = cresize_pool_on && cap >= CRESIZE_HUGE_MIN && cap <= cresize_pool_limit
           && ((uintptr_t)ptr & (CRESIZE_HUGE_ALIGN - 1)) == 0;
    pthread_mutex_unlock(&cresize_pool_lock);
    if (!keep) {
        free(ptr);
        return;
    }
#ifdef MADV_FREE
    if (cresize_pool_madv_free)
        madvise(ptr, cap & ~(CRESIZE_HUGE_ALIGN - 1), MADV_FREE);
#endif
    pthread_mutex_lock(&cresize_pool_lock);
    if (cap > cresize_pool_limit) {  /* the bound changed meanwhile */
        out[n++] = ptr;
    } else {
        n = cresize_pool_evict(cap, 1, out);
        for (i = 0; cresize_pool[i].p != NULL; i++)
            ;
        cresize_pool[i].p = ptr;
        cresize_pool[i].cap = cap;
        cresize_pool[i].age = ++cresize_pool_age;
        cresize_pool_bytes += cap;
        cresize_pool_blocks++;
    }
    pthread_mutex_unlock(&cresize_pool_lock);
    for (i = 0; i < n; i++)
        free(out[i]);
}

/* Bound the pool to ``nbytes`` (evicting the oldest); ``clear``: instead drop every
 * block and zero the counts (the bound stays). */
static void cresize_pool_set(size_t nbytes, int clear)
{
    void *out[CRESIZE_POOL_SLOTS];
    size_t i, n;
    if (clear) {
        pthread_mutex_lock(&cresize_pool_lock);
        cresize_pool_hits = cresize_pool_misses = 0;
        pthread_mutex_unlock(&cresize_pool_lock);
        cresize_pool_give_back();
        return;
    }
    pthread_mutex_lock(&cresize_pool_lock);
    cresize_pool_limit = nbytes;
    n = cresize_pool_evict(0, 0, out);
    pthread_mutex_unlock(&cresize_pool_lock);
    for (i = 0; i < n; i++)
        free(out[i]);
}

/* limit, bytes held, blocks held, hits, misses. */
static void cresize_pool_info(unsigned long long *out)
{
    pthread_mutex_lock(&cresize_pool_lock);
    out[0] = cresize_pool_limit;
    out[1] = cresize_pool_bytes;
    out[2] = cresize_pool_blocks;
    out[3] = cresize_pool_hits;
    out[4] = cresize_pool_misses;
    pthread_mutex_unlock(&cresize_pool_lock);
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
    static int forks = 0;
    cresize_huge_madvise = madvise_on;
    if (!forks)
        forks = pthread_atfork(cresize_pool_fork_lock, cresize_pool_fork_unlock,
                               cresize_pool_fork_child) == 0;
    return PyCapsule_New(&cresize_huge_handler_struct, "mem_handler", NULL);
}

#else

static PyObject *cresize_huge_handler(int madvise_on)
{
    (void)madvise_on;
    Py_RETURN_NONE;
}

static void cresize_pool_set(size_t nbytes, int clear)
{
    if (!clear)
        cresize_pool_limit = nbytes;
}

static void cresize_pool_info(unsigned long long *out)
{
    out[0] = cresize_pool_limit;
    out[1] = out[2] = out[3] = out[4] = 0;
}

static size_t cresize_pool_give_back(void) { return 0; }

#endif
#endif
