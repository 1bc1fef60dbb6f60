/* Where a parallel call's threads run (Linux).
 *
 * With the passive wait policy (_waitpolicy.py) a kernel's worker threads sleep
 * between calls, and each call wakes them. Linux wakes a thread on the CPU it last
 * ran on when that CPU and the waker's are the same, and when the caches' CPUs are
 * busy it does not look for an idle one (select_idle_sibling with SIS_UTIL): once the
 * calling thread has moved onto the CPU where a worker last ran, the worker is woken
 * next to it and the two halves of a 2-thread call run one after the other, while
 * the other CPU idles. Measured on 2 CPUs, 60 calls each (docs/limits.md): a
 * 2-thread uint8 1024² -> 2048² bilinear took 0.8 ms in some calls and 1.44 ms (its
 * one-thread time) in the others. Traced for the x2 nearest backward of a
 * (16, 64, 56, 56) feature map (docs/kernels.md "Where the threads run"), every slow
 * call ran the worker's half (0.01-0.57 ms) and then the caller's (0.57-1.17 ms) on
 * one CPU while the other idled.
 *
 * So each thread of a team records, as its share ends, the CPU it ran on and its
 * thread id (cresize_team_mark); before the next call's region the calling thread
 * (cresize_team_begin) keeps any worker that last ran on its own CPU off that CPU
 * (sched_setaffinity of that worker: its allowed CPUs less the caller's, when some
 * are left), so that the wake-up puts it on another CPU; after the region
 * (cresize_team_end) each such worker gets its allowed CPUs back exactly. Nothing
 * else is changed: the calling thread's own CPUs never, a worker's only between
 * begin and end, and only when it would share the caller's CPU. A failed system
 * call (a cpuset that forbids it, a seccomp filter) leaves things as they were.
 * Only when another CPU may be free (cresize_team_enabled, below: on a busy machine
 * the worker would wait for a time slice there). The user chooses the mode with
 * CRESIZE_THREAD_STEERING or cresize.set_thread_steering (_kernels.pyx).
 *
 * One record per calling thread (thread-local: libgomp gives each calling thread a
 * team of its own). A forked child starts with no record (pthread_atfork; the
 * parent's thread ids are not its threads). Elsewhere (not Linux) the three calls do
 * nothing.
 */
#ifndef CRESIZE_TEAM_H
#define CRESIZE_TEAM_H

#if defined(__linux__)
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Threads of a team that are followed (thread numbers 1 .. CRESIZE_TEAM_MAX - 1);
 * larger thread numbers are left where the system puts them. */
#define CRESIZE_TEAM_MAX 64

typedef struct {
    int cpu[CRESIZE_TEAM_MAX];          /* where thread t last ran, -1: unknown */
    pid_t tid[CRESIZE_TEAM_MAX];        /* its thread id, 0: unknown */
    pid_t steered[CRESIZE_TEAM_MAX];    /* a worker kept off the caller's CPU, 0: none */
    cpu_set_t allowed[CRESIZE_TEAM_MAX]; /* that worker's CPUs before */
    int any_steered;                    /* some steered[t] is set */
    int busy_skip;                      /* calls left that skip the check (busy) */
    int busy_run;                       /* busy readings in a row */
    long long begin_ns;                 /* when the steering call began */
    long long start_ns[CRESIZE_TEAM_MAX]; /* when a steered worker began its share */
    unsigned generation;                /* cresize_team_generation when recorded */
} cresize_team;

static __thread cresize_team cresize_team_record;
static __thread pid_t cresize_team_own_tid;
static unsigned cresize_team_generation = 1; /* changes in a forked child */
static long cresize_team_steers = 0;         /* workers kept off (for tests) */
static long cresize_team_loadavg_reads = 0;  /* cresize_team_running calls (for tests) */
static long cresize_team_late = 0;           /* steered workers that began late (tests) */
/* After the check said busy (or could not read), the calling thread's next calls that
 * would check again steer nothing without checking: on a busy machine nothing is
 * steered, so the worker is woken next to the caller again and every call would pay
 * the check (3 system calls, 3.6 us; +6.6 us on a 2-thread call of 0.17 ms,
 * benchmarks/RESULTS-team.md "Review13") for nothing. Not
 * steering is what mode 0 does, so skipping can only delay a gain, never cause a loss.
 * 1, 2, 4, 8, 16 and then CRESIZE_TEAM_BUSY_SKIP calls for busy readings in a row: a
 * reading that caught a passing thread on a quiet machine cost 32 calls' gain (the
 * default took what never steering takes, benchmarks/team.py). */
#define CRESIZE_TEAM_BUSY_SKIP 32
/* A steered worker that began its share more than cresize_team_late_ns after the call
 * began waited for its new CPU (another program ran there, which the check did not
 * see: a neighbour running in bursts, a container's own /proc/loadavg): the calling
 * thread's next CRESIZE_TEAM_LATE_SKIP calls that would steer do not (as busy_skip).
 * Waking a worker on a free CPU takes microseconds; a busy CPU's time slice, ms. */
static long long cresize_team_late_ns = 100000; /* settable for tests */
#define CRESIZE_TEAM_LATE_SKIP 64

static inline long long cresize_team_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
/* 0 ("off"): never; 1 ("auto", the default): only when another CPU may be free, i.e.
 * fewer threads of the whole system are runnable than there are CPUs to steer to,
 * the caller aside (cresize_team_running); 2 ("always"; tests, benchmarks/team.py).
 * With another program busy on the other CPU, a worker kept off the caller's CPU
 * would wait there for a time slice while the caller's CPU, where it would have run
 * at once, idles: benchmarks/team.py --busy, median 6.9-11 ms steering always
 * against 1.3-1.6 ms never (review12); the check leaves such a call alone (medians
 * 1.27 and 1.37 ms against 1.29 and 1.38 never, benchmarks/RESULTS-team.md). */
static int cresize_team_enabled = 1;

/* The calling thread's id (cached per thread; a forked child asks again). */
static inline pid_t cresize_team_tid(void)
{
    if (cresize_team_own_tid == 0)
        cresize_team_own_tid = (pid_t)syscall(SYS_gettid);
    return cresize_team_own_tid;
}

static void cresize_team_fork_child(void)
{
    cresize_team_generation++;
    cresize_team_own_tid = 0;
}

/* Registers the fork handler once (module initialisation, with the GIL). */
static void cresize_team_init(void)
{
    static int registered = 0;
    if (!registered)
        registered = pthread_atfork(NULL, NULL, cresize_team_fork_child) == 0;
}

/* The file read for the number of runnable threads (tests point it elsewhere). */
static const char *cresize_team_loadavg = "/proc/loadavg";

/* More runnable threads than this reads as "busy": never a count that overflowed
 * (nor one that wrapped round to a small number). */
#define CRESIZE_TEAM_RUNNING_MAX 1000000

/* The fourth field of a /proc/loadavg text ("0.65 0.41 0.55 1/65 1234": the 1, the
 * runnable threads; fields apart by one space or more), at most
 * CRESIZE_TEAM_RUNNING_MAX + 1; -1 when the text is not of that form (no three fields
 * before it, no digit, not followed by '/'). */
static int cresize_team_parse_running(const char *buf)
{
    const char *c;
    int fields = 0, running = 0;
    for (c = buf; *c && fields < 3; c++) /* skip the three load averages */
        if (*c == ' ' && c[1] != ' ')
            fields++;
    if (fields != 3 || *c < '0' || *c > '9')
        return -1;
    for (; *c >= '0' && *c <= '9'; c++)
        if (running <= CRESIZE_TEAM_RUNNING_MAX)
            running = running * 10 + (*c - '0');
    if (*c != '/')
        return -1;
    return running <= CRESIZE_TEAM_RUNNING_MAX ? running : CRESIZE_TEAM_RUNNING_MAX + 1;
}

/* How many threads are runnable on the whole system now, the caller included (the
 * fourth field of /proc/loadavg, "running/total"); -1 when it cannot be read. Three
 * system calls, a few microseconds: read only when a worker is about to be kept off. */
static int cresize_team_running(void)
{
    char buf[128];
    ssize_t got;
    int fd;
    __atomic_add_fetch(&cresize_team_loadavg_reads, 1, __ATOMIC_RELAXED);
    fd = open(cresize_team_loadavg, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0)
        return -1;
    buf[got] = 0;
    return cresize_team_parse_running(buf);
}

/* The calling thread's record, its workers that last ran on this CPU kept off it. */
static cresize_team *cresize_team_begin(int n)
{
    cresize_team *r = &cresize_team_record;
    int cpu, t, last = n < CRESIZE_TEAM_MAX ? n : CRESIZE_TEAM_MAX, running = -1;
    if (r->generation != cresize_team_generation) { /* first use, or a forked child */
        for (t = 0; t < CRESIZE_TEAM_MAX; t++) {
            r->cpu[t] = -1;
            r->tid[t] = 0;
            r->steered[t] = 0;
        }
        r->any_steered = 0;
        r->busy_skip = 0;
        r->busy_run = 0;
        r->generation = cresize_team_generation;
        return r;
    }
    if (n < 2 || !cresize_team_enabled)
        return r;
    cpu = sched_getcpu();
    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return r;
    for (t = 1; t < last; t++) {
        cpu_set_t allowed, others;
        /* never the calling thread itself (it would be a worker's record only if a
         * region's thread numbers were not omp_get_thread_num's) */
        if (r->cpu[t] != cpu || r->tid[t] == 0 || r->tid[t] == cresize_team_tid())
            continue;
        if (cresize_team_enabled == 1 && running < 0 && r->busy_skip > 0) {
            r->busy_skip--; /* busy a few calls ago: nothing steered, nothing checked */
            return r;
        }
        /* still a thread of this process (signal 0 sends nothing) */
        if (syscall(SYS_tgkill, (long)getpid(), (long)r->tid[t], 0L) != 0)
            continue;
        if (sched_getaffinity(r->tid[t], sizeof allowed, &allowed) != 0)
            continue;
        others = allowed;
        CPU_CLR(cpu, &others);
        if (CPU_COUNT(&others) == 0)
            continue;
        /* only when some other CPU may be free: with as many other threads running as
         * there are CPUs to steer to, the worker would wait there for a time slice
         * while the caller's CPU, where it would have run at once, idles */
        if (cresize_team_enabled == 1) {
            if (running < 0)
                running = cresize_team_running();
            /* a count of 0 is no real reading (the reader itself runs): a stub's
             * "0/0" (a sandbox's /proc) is as unreadable */
            if (running < 1 || running - 1 >= CPU_COUNT(&others)) {
                /* 1, 2, 4, ... CRESIZE_TEAM_BUSY_SKIP calls for busy readings in a row:
                 * one reading that caught a passing thread costs one call's gain */
                r->busy_skip = r->busy_run >= 5 ? CRESIZE_TEAM_BUSY_SKIP : 1 << r->busy_run;
                r->busy_run += r->busy_run < 5;
                return r;
            }
            r->busy_run = 0;
        }
        if (sched_setaffinity(r->tid[t], sizeof others, &others) != 0)
            continue;
        r->allowed[t] = allowed;
        r->steered[t] = r->tid[t];
        r->start_ns[t] = 0;
        if (!r->any_steered)
            r->begin_ns = cresize_team_now();
        r->any_steered = 1;
        __atomic_add_fetch(&cresize_team_steers, 1, __ATOMIC_RELAXED);
    }
    return r;
}

/* Thread t's share is done: where it ran (each thread writes its own entries). t is
 * the thread's number in the team (omp_get_thread_num, Cython's threadid()), never a
 * loop index: a team can have fewer threads than asked for (OMP_THREAD_LIMIT, a call
 * inside another parallel region, a serial build), and then the calling thread runs
 * the other indices' shares too. */
static inline void cresize_team_mark(cresize_team *r, int t)
{
    if (t <= 0 || t >= CRESIZE_TEAM_MAX)
        return;
    r->cpu[t] = sched_getcpu();
    r->tid[t] = cresize_team_tid();
}

/* Thread t begins its share: when, if it was steered (its first share of the call
 * only: a smaller team runs several). */
static inline void cresize_team_start(cresize_team *r, int t)
{
    if (t <= 0 || t >= CRESIZE_TEAM_MAX || !r->any_steered || !r->steered[t] ||
        r->start_ns[t] != 0)
        return;
    r->start_ns[t] = cresize_team_now();
}

/* After the region: the workers kept off get their CPUs back; one that began late
 * stops steering for the calling thread's next calls (cresize_team_late_ns). */
static void cresize_team_end(cresize_team *r)
{
    int t;
    if (!r->any_steered)
        return;
    for (t = 1; t < CRESIZE_TEAM_MAX; t++)
        if (r->steered[t]) {
            sched_setaffinity(r->steered[t], sizeof r->allowed[t], &r->allowed[t]);
            if (cresize_team_enabled == 1 && r->start_ns[t] != 0 &&
                r->start_ns[t] - r->begin_ns > cresize_team_late_ns) {
                r->busy_skip = CRESIZE_TEAM_LATE_SKIP;
                __atomic_add_fetch(&cresize_team_late, 1, __ATOMIC_RELAXED);
            }
            r->steered[t] = 0;
        }
    r->any_steered = 0;
}

#else

typedef struct {
    int unused;
} cresize_team;
static cresize_team cresize_team_record;
static long cresize_team_steers = 0;
static long cresize_team_loadavg_reads = 0;
static long cresize_team_late = 0;
static long long cresize_team_late_ns = 0;
static int cresize_team_enabled = 0;
static const char *cresize_team_loadavg = "";
static int cresize_team_parse_running(const char *buf)
{
    (void)buf;
    return -1;
}
static void cresize_team_init(void) {}
static cresize_team *cresize_team_begin(int n)
{
    (void)n;
    return &cresize_team_record;
}
static inline void cresize_team_mark(cresize_team *r, int t)
{
    (void)r;
    (void)t;
}
static inline void cresize_team_start(cresize_team *r, int t)
{
    (void)r;
    (void)t;
}
static void cresize_team_end(cresize_team *r) { (void)r; }

#endif
#endif
