/* The quick pair: a second thread for calls too short for an OpenMP team (Linux).
 *
 * With the passive wait policy (_waitpolicy.py) an OpenMP worker sleeps between calls
 * and each call wakes it. On the 2-vCPU VM this was measured on, that wake made a
 * 2-thread (224, 224, 3) -> 112x112 bilinear call take 23-72 us against 9-12 us on one
 * thread, so calls below _plan.MIN_WORK_PER_THREAD per thread run on one thread.
 * With libgomp spinning instead, two threads took 7-9 us, but a spinning team costs
 * milliseconds on busy cores (docs/limits.md).
 *
 * The quick pair keeps what the spin gains and bounds what it costs:
 *
 * - One helper thread (a plain pthread, started at the first quick call), shared by
 *   the process. After its last piece of work it spins for CRESIZE_QUICK_SPIN_NS
 *   (checking the clock every 64 pauses), then sleeps on a futex. A caller wakes it
 *   (one FUTEX_WAKE) only when it sleeps.
 * - A call's output rows (jobs) are cut into chunks; the calling thread claims chunks
 *   from the front, the helper from the back (one atomic word: the call's generation
 *   and the unclaimed chunks lo .. hi - 1), so in a run of calls each thread keeps
 *   reading the same half of the input. The caller never waits for the helper to
 *   arrive: a helper that is asleep, still waking or on a busy CPU claims nothing and
 *   the caller runs every chunk. It waits only for chunks the helper has claimed.
 * - The helper keeps off the calling thread's CPU (it would only take that thread's
 *   time): finding itself there as it waits, it takes that CPU out of its affinity, or
 *   sleeps when it cannot.
 * - It backs off (below): a wake that found nothing makes the next calls leave it
 *   asleep; a call that stalled on it (it lost its CPU) makes calls run alone a while.
 * - One call at a time: a second calling thread (another Python thread) that finds
 *   the pair in use runs its call alone.
 * - A call runs alone where the helper could only share the calling thread's CPU: the
 *   calling thread may run on one CPU only and the helper on that one too (`taskset -c 0`,
 *   or os.sched_setaffinity before the helper started). Each calling thread reads its
 *   mask again at most every CRESIZE_QUICK_MASK_NS (cresize_quick_shared).
 *
 * Which thread computes an output row never changes its bits (every kernel's row is
 * computed the same way on any thread). A forked child starts with no helper
 * (pthread_atfork); its first quick call starts one. Elsewhere (not Linux)
 * cresize_quick_run runs the whole call on the calling thread.
 */
#ifndef CRESIZE_QUICK_H
#define CRESIZE_QUICK_H

/* fn(call, tid, j0, j1, first): run jobs j0 .. j1 - 1 of `call` on thread tid (0: the
 * caller, 1: the helper); `first`: the thread's first chunk of this call. */
typedef void (*cresize_quick_fn)(void *call, int tid, Py_ssize_t j0, Py_ssize_t j1,
                                 int first);

/* 1: calls may use the helper (_kernels.set_quick_thread, CRESIZE_QUICK_THREAD). */
static int cresize_quick_on = 1;
/* Calls that found the pair free, and those in which the helper took a chunk (tests). */
static long cresize_quick_calls = 0;
static long cresize_quick_helped = 0;
static long cresize_quick_wakes = 0; /* calls that woke the helper (tests) */
static long cresize_quick_holds = 0; /* calls that waited long for the helper (tests) */

#if defined(__linux__)
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "_team.h" /* cresize_team_now, the clock */

/* How long the helper spins after its last chunk before it sleeps: a run of calls
 * (a loop over images or layers) finds it awake; an idle process costs at most this
 * much of one CPU after its last call. */
#define CRESIZE_QUICK_SPIN_NS 50000LL
#define CRESIZE_QUICK_MASK 0xffffffULL /* lo and hi: 24 bits each */

typedef struct {
    /* generation << 48 | lo << 24 | hi: chunks lo .. hi - 1 are unclaimed */
    unsigned long long state __attribute__((aligned(64)));
    long done __attribute__((aligned(64))); /* chunks the helper finished this call */
    int sleeping __attribute__((aligned(64))); /* the helper waits (or will) on `wake` */
    unsigned wake;      /* the futex word */
    int busy;           /* a caller holds the pair */
    int started;        /* 1: the helper runs; -1: it could not be started */
    int caller_cpu;     /* the calling thread's CPU when the call began */
    int hold;           /* the helper asks callers to leave it asleep this many calls */
    int skip;           /* calls left that find it asleep and leave it so */
    long long hold_until; /* a call stalled on it: calls run alone until then (0: none) */
    long long hold_ns;    /* that time away */
    long long stalled_at; /* when a call last stalled on it */
    unsigned long long call_no; /* calls published (the helper's `first`) */
    int cpus_read;      /* the helper has read its CPUs (cresize_quick_cpus) */
    cresize_quick_fn fn;
    void *call;
    Py_ssize_t jobs, chunk;
} cresize_quick_pair;

static cresize_quick_pair cresize_quick;
static cpu_set_t cresize_quick_cpus; /* the CPUs the helper may run on, from its start */
/* A helper woken for nothing (it came after the call was done: calls shorter than its
 * wake, far apart) asks the next call that finds it asleep to leave it so, then the
 * next 2, 4, ... up to CRESIZE_QUICK_MAX_SKIP calls, while it keeps finding nothing:
 * such calls pay a wake (a system call) one time in 65 at most. (A call long enough
 * for it to arrive in time finds work for it and ends the back-off.) */
#define CRESIZE_QUICK_MAX_SKIP 64
/* A helper that loses its CPU to another program in the middle of a chunk holds the
 * caller up for a time slice (measured: 4-8 ms stalls next to one busy process, many
 * times a short call; long calls 1.2x their one-thread time, where an OpenMP team, its
 * worker woken next to the caller, took its one-thread time). The caller sees it: it
 * waited for the helper's chunks more than CRESIZE_QUICK_STALL_NS plus twice the time
 * its own chunks took on average. It then leaves the helper asleep (and the helper goes
 * to sleep as soon as it is done) for CRESIZE_QUICK_HOLD_NS, or twice the last time
 * away when the last stall came less than four such times before (a program that
 * keeps that CPU busy), up to CRESIZE_QUICK_MAX_HOLD_NS: meanwhile calls run on the
 * calling thread alone and publish nothing (a helper still awake would take their
 * chunks; finding none, it sees the hold and sleeps). The helper losing its CPU while
 * it waits for work costs nothing and counts for nothing (another library's threads,
 * PyTorch's, take turns with it there). */
#define CRESIZE_QUICK_STALL_NS 100000LL
#define CRESIZE_QUICK_HOLD_NS 10000000LL
#define CRESIZE_QUICK_MAX_HOLD_NS 1280000000LL

/* A calling thread reads its CPU mask again after this long (a mask can change at any
 * time; a read costs about 0.8 us on the VM measured, where the shortest quick calls
 * take 5 us). */
#define CRESIZE_QUICK_MASK_NS 10000000LL
static __thread long long cresize_quick_masks_at; /* when this thread read it (0: never) */
static __thread int cresize_quick_alone;          /* what it found (cresize_quick_shared) */

/* Nothing in a build: tests/test_quick.py compiles this header into a program of its own
 * that makes each step of the helper's way to sleep (below) take long, so that callers
 * come between them (a wake lost there left the helper asleep for good). */
#ifndef CRESIZE_QUICK_TEST_WINDOW
#define CRESIZE_QUICK_TEST_WINDOW() ((void)0)
#endif

static inline void cresize_quick_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Chunk c's jobs. */
static inline void cresize_quick_chunk(const cresize_quick_pair *q, unsigned long long c,
                                       Py_ssize_t *j0, Py_ssize_t *j1)
{
    *j0 = (Py_ssize_t)c * q->chunk;
    *j1 = *j0 + q->chunk < q->jobs ? *j0 + q->chunk : q->jobs;
}

/* Keep the helper off the calling thread's CPU, where it would take that thread's time
 * (Linux wakes a thread next to its waker when both CPUs look busy): 1 when it is off
 * that CPU now. Its own CPUs only; none of the process's other threads'. */
static int cresize_quick_away(int *excluded)
{
    int caller = __atomic_load_n(&cresize_quick.caller_cpu, __ATOMIC_RELAXED);
    cpu_set_t m;
    if (sched_getcpu() != caller)
        return 1;
    if (caller == *excluded || caller < 0 || caller >= CPU_SETSIZE)
        return 0;
    m = cresize_quick_cpus;
    CPU_CLR(caller, &m);
    *excluded = caller;
    return CPU_COUNT(&m) > 0 && sched_setaffinity(0, sizeof m, &m) == 0;
}

/* 1 when the helper could only share the calling thread's CPU: that thread may run on one
 * CPU only, and the helper (its CPUs as it started, what cresize_quick_away keeps it to;
 * its mask now may lack one it left for an earlier caller) on that same one. Measured
 * with `taskset -c 0` (docs/kernels.md "The quick pair"), each call woke the helper on
 * the caller's CPU and took 1.09-1.15 times its one-thread time (640x640 images). `now`:
 * the call's clock; the caller's mask as read at most CRESIZE_QUICK_MASK_NS before it. */
static int cresize_quick_shared(long long now)
{
    cpu_set_t mine;
    if (cresize_quick_masks_at && now - cresize_quick_masks_at < CRESIZE_QUICK_MASK_NS)
        return cresize_quick_alone;
    if (!__atomic_load_n(&cresize_quick.cpus_read, __ATOMIC_ACQUIRE))
        return 1; /* the helper is still starting (it could not come in time): alone */
    cresize_quick_masks_at = now;
    cresize_quick_alone = sched_getaffinity(0, sizeof mine, &mine) == 0 &&
                          CPU_COUNT(&mine) == 1 && CPU_EQUAL(&mine, &cresize_quick_cpus);
    return cresize_quick_alone;
}

static void *cresize_quick_main(void *unused)
{
    cresize_quick_pair *q = &cresize_quick;
    unsigned long long joined = 0; /* the call_no of the call it last took a chunk of */
    long long idle_since = cresize_team_now();
    unsigned spins = 0;
    int excluded = -1; /* the CPU its affinity leaves out (-1: none) */
    int idle_hold = 0; /* calls to be left asleep for after wakes that found nothing */
    int took = 1;      /* it took a chunk since it last woke */
    (void)unused;
    if (sched_getaffinity(0, sizeof cresize_quick_cpus, &cresize_quick_cpus))
        CPU_ZERO(&cresize_quick_cpus);
    __atomic_store_n(&q->cpus_read, 1, __ATOMIC_RELEASE);
    cresize_quick_away(&excluded);
    for (;;) {
        unsigned long long s = __atomic_load_n(&q->state, __ATOMIC_ACQUIRE);
        unsigned long long lo = (s >> 24) & CRESIZE_QUICK_MASK, hi = s & CRESIZE_QUICK_MASK;
        if (lo < hi) {
            if (__atomic_compare_exchange_n(&q->state, &s, s - 1, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                /* claimed: the call stays published until its chunks are done (its
                 * caller waits for `done`), and its fields are read only now (after the
                 * acquire): a word met again once the 16-bit generation came round is
                 * the current call's, and so is the chunk it claims */
                Py_ssize_t j0, j1;
                unsigned long long no = q->call_no;
                cresize_quick_chunk(q, hi - 1, &j0, &j1);
                q->fn(q->call, 1, j0, j1, no != joined);
                joined = no;
                __atomic_add_fetch(&q->done, 1, __ATOMIC_RELEASE);
                idle_since = 0;
                took = 1;
            }
            continue;
        }
        cresize_quick_pause();
        if (++spins % 64)
            continue;
        if (idle_since == 0) {
            idle_since = cresize_team_now();
            continue;
        }
        long long now = cresize_team_now();
        int held = now < __atomic_load_n(&q->hold_until, __ATOMIC_RELAXED);
        if (!held && now - idle_since < CRESIZE_QUICK_SPIN_NS && cresize_quick_away(&excluded))
            continue;
        if (took)
            idle_hold = 0;
        else if (!held)
            idle_hold = idle_hold ? (2 * idle_hold < CRESIZE_QUICK_MAX_SKIP ? 2 * idle_hold
                                                                           : CRESIZE_QUICK_MAX_SKIP)
                                  : 1;
        /* stored when 0 too: a call that came in its way to sleep (it was not asleep,
         * so the call took no `hold`) and that it helped leaves no back-off behind */
        __atomic_store_n(&q->hold, idle_hold, __ATOMIC_SEQ_CST);
        took = 0;
        /* sleep: a caller that publishes after `sleeping` is set wakes it; one that
         * published before is seen by the load of `state` below. `wake` is read before
         * `sleeping` is set: a caller that takes this `sleeping` (exchanging it to 0)
         * adds to `wake` after, so the wait below returns at once or is woken. Read
         * after, it could see that caller's wake, then find its call done and sleep
         * with `sleeping` 0, where no caller would ever wake it again. */
        unsigned w = __atomic_load_n(&q->wake, __ATOMIC_SEQ_CST);
        CRESIZE_QUICK_TEST_WINDOW();
        __atomic_store_n(&q->sleeping, 1, __ATOMIC_SEQ_CST);
        CRESIZE_QUICK_TEST_WINDOW();
        s = __atomic_load_n(&q->state, __ATOMIC_SEQ_CST);
        if (((s >> 24) & CRESIZE_QUICK_MASK) >= (s & CRESIZE_QUICK_MASK))
            syscall(SYS_futex, &q->wake, FUTEX_WAIT_PRIVATE, w, NULL, NULL, 0);
        __atomic_store_n(&q->sleeping, 0, __ATOMIC_SEQ_CST);
        cresize_quick_away(&excluded);
        idle_since = cresize_team_now();
    }
    return NULL;
}

static void cresize_quick_forked(void)
{
    /* the helper was not forked with the process: the next quick call starts one; this
     * (the forking) thread reads its CPU mask again, to compare with that helper's CPUs */
    memset(&cresize_quick, 0, sizeof cresize_quick);
    cresize_quick_masks_at = 0;
}

/* Register cresize_quick_forked: 0, or -1 when it cannot be. Called as the kernels load
 * (before any call can hold the pair: a fork between a first call taking `busy` and this
 * registration left the child's `busy` set for good, so the child never had the pair),
 * and again by cresize_quick_start if that failed. */
static int cresize_quick_atfork = 0;
static int cresize_quick_init(void)
{
    if (!cresize_quick_atfork) {
        if (pthread_atfork(NULL, NULL, cresize_quick_forked))
            return -1;
        cresize_quick_atfork = 1;
    }
    return 0;
}

/* Start the helper (the first quick call, the pair held): 1, or -1 when it cannot be
 * started (then every call runs alone). Signals stay with the process's other threads. */
static int cresize_quick_start(void)
{
    pthread_t thread;
    pthread_attr_t attr;
    sigset_t all, old;
    int failed;
    if (cresize_quick_init())
        return -1;
    if (pthread_attr_init(&attr))
        return -1;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    failed = pthread_create(&thread, &attr, cresize_quick_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return failed ? -1 : 1;
}

/* Run `jobs` jobs of `call` in chunks of `chunk` on the calling thread and, where it
 * comes, the helper: 2 when the helper took some chunk, else 1. */
static int cresize_quick_run(cresize_quick_fn fn, void *call, Py_ssize_t jobs,
                             Py_ssize_t chunk)
{
    cresize_quick_pair *q = &cresize_quick;
    unsigned long long n = chunk > 0 ? (unsigned long long)((jobs + chunk - 1) / chunk) : 0;
    unsigned long long s, mine = 0, gen;
    unsigned spins = 0;
    int first = 1, stalled = 0;
    long long began, ended, until;
    if (!cresize_quick_on || n < 2 || n > CRESIZE_QUICK_MASK ||
        __atomic_exchange_n(&q->busy, 1, __ATOMIC_ACQUIRE)) {
        fn(call, 0, 0, jobs, 1);
        return 1;
    }
    if (q->started == 0)
        q->started = cresize_quick_start();
    if (q->started > 0)
        cresize_quick_calls++;
    began = cresize_team_now(); /* before the publish: a caller that loses its CPU right
                                  * after it, the helper taking every chunk, counts that */
    until = __atomic_load_n(&q->hold_until, __ATOMIC_RELAXED);
    if (until && began >= until) {
        __atomic_store_n(&q->hold_until, 0, __ATOMIC_RELAXED); /* over */
        until = 0;
    }
    if (q->started < 0 || until || cresize_quick_shared(began)) {
        /* no helper, held, or it could only share this thread's CPU: nothing is
         * published, so a helper still awake finds no work, sees the hold and sleeps
         * (published, a run of calls kept it busy through it) */
        __atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
        fn(call, 0, 0, jobs, 1);
        return 1;
    }
    q->fn = fn;
    q->call = call;
    q->jobs = jobs;
    q->chunk = chunk;
    q->call_no++;
    __atomic_store_n(&q->done, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&q->caller_cpu, sched_getcpu(), __ATOMIC_RELAXED);
    gen = ((__atomic_load_n(&q->state, __ATOMIC_RELAXED) >> 48) + 1) & 0xffff;
    __atomic_store_n(&q->state, gen << 48 | n, __ATOMIC_SEQ_CST); /* publish: lo 0, hi n */
    if (__atomic_load_n(&q->sleeping, __ATOMIC_SEQ_CST)) {
        /* wake it, unless the last wake gained nothing (backing off, up to
         * CRESIZE_QUICK_MAX_SKIP calls: isolated calls end before it arrives) */
        int hold = __atomic_exchange_n(&q->hold, 0, __ATOMIC_SEQ_CST);
        if (hold > q->skip)
            q->skip = hold;
        if (q->skip > 0) {
            q->skip--;
        } else if (__atomic_exchange_n(&q->sleeping, 0, __ATOMIC_SEQ_CST)) {
            cresize_quick_wakes++;
            __atomic_add_fetch(&q->wake, 1, __ATOMIC_SEQ_CST);
            syscall(SYS_futex, &q->wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        }
    }
    for (;;) {
        Py_ssize_t j0, j1;
        unsigned long long lo;
        s = __atomic_load_n(&q->state, __ATOMIC_ACQUIRE);
        lo = (s >> 24) & CRESIZE_QUICK_MASK;
        if (lo >= (s & CRESIZE_QUICK_MASK))
            break;
        if (!__atomic_compare_exchange_n(&q->state, &s, s + (1ULL << 24), 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            continue;
        cresize_quick_chunk(q, lo, &j0, &j1);
        fn(call, 0, j0, j1, first);
        first = 0;
        mine++;
    }
    ended = cresize_team_now();
    /* the helper's claimed chunks: short, unless its CPU was taken from it */
    while ((unsigned long long)__atomic_load_n(&q->done, __ATOMIC_ACQUIRE) < n - mine) {
        if (++spins < 4096)
            cresize_quick_pause();
        else
            sched_yield();
        /* `done` read again after the clock: a caller that lost its own CPU in this loop
         * while the helper finished has not waited for it */
        if (spins % 256 == 0 && !stalled) {
            long long bound = CRESIZE_QUICK_STALL_NS +
                              2 * (ended - began) / (long long)(mine ? mine : 1);
            stalled = cresize_team_now() - ended > bound &&
                      (unsigned long long)__atomic_load_n(&q->done, __ATOMIC_ACQUIRE) < n - mine;
        }
    }
    if (stalled) { /* leave the helper asleep a while (it sleeps when it sees this) */
        long long now = cresize_team_now();
        if (q->hold_ns && now - q->stalled_at < 4 * q->hold_ns)
            q->hold_ns = 2 * q->hold_ns < CRESIZE_QUICK_MAX_HOLD_NS ? 2 * q->hold_ns
                                                                     : CRESIZE_QUICK_MAX_HOLD_NS;
        else
            q->hold_ns = CRESIZE_QUICK_HOLD_NS;
        q->stalled_at = now;
        __atomic_store_n(&q->hold_until, now + q->hold_ns, __ATOMIC_RELAXED);
        cresize_quick_holds++;
    }
    if (mine < n) { /* it came in time: the back-off of wakes for nothing ends */
        cresize_quick_helped++;
        q->skip = 0;
    }
    __atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
    return mine < n ? 2 : 1;
}

#else /* not Linux: the calling thread alone */

static int cresize_quick_init(void)
{
    return 0;
}

static int cresize_quick_run(cresize_quick_fn fn, void *call, Py_ssize_t jobs,
                             Py_ssize_t chunk)
{
    (void)chunk;
    fn(call, 0, 0, jobs, 1);
    return 1;
}

#endif
#endif
