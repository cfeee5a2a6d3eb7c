/* rt.c: the recording runtime's state: start-up from ARCHSIM_TRACE_OUT, the thread registry
 * (ids in pthread_create order, parents, one AtWriter per thread), stream closing at thread and
 * process exit, and DIR/manifest.yaml. Plain C11 + zlib (through traces/atrace_write.c), no
 * GLib, no libtsan: this file is linked into instrumented programs (docs/references.md §4).
 *
 * Nothing here is on the per-access path except rt_adopt(), which each thread reaches once.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"

enum { RT_UNINIT = 0, RT_OFF, RT_ON };

_Thread_local RtThread *rt_self __attribute__((tls_model("initial-exec")));

/* Shared read-only sentinel: guard never 0, never live. Threads that must not record point here. */
static RtThread rt_off = { .guard = 1, .parent = -1 };

static _Atomic int rt_state = RT_UNINIT;
static char rt_dir[4096];
static int rt_zlevel = 1;
static int rt_fd = -1;           /* ARCHSIM_TRACE_FD: thread 0's stream, else T0.trace */
static uint64_t rt_load_base;
static pthread_key_t rt_key;
static struct timespec rt_t0;

/* What the compiler wrapper (tools/archsim-cc) generated for this link; absent when the runtime
 * was linked by hand, hence weak references rather than definitions. */
extern const char archsim_trace_frontend[] __attribute__((weak));
extern const char archsim_trace_compiler[] __attribute__((weak));
extern const char archsim_trace_cflags[] __attribute__((weak));
extern const char archsim_trace_instrument[] __attribute__((weak));

/* Registry: a spinlock, not a pthread mutex, because pthread_mutex_lock is --wrap'ped. Taken only
 * at thread create/start/join and barrier init/wait. */
static atomic_flag rt_lock_flag = ATOMIC_FLAG_INIT;
static RtThread **rt_threads;
static uint32_t rt_nthreads, rt_cap;
typedef struct { uint64_t addr; uint32_t count; } RtBarrier;
static RtBarrier *rt_barriers;
static size_t rt_nbarriers, rt_barrier_cap;

static void rt_lock(void)
{
    while (atomic_flag_test_and_set_explicit(&rt_lock_flag, memory_order_acquire))
        sched_yield();
}

static void rt_unlock(void)
{
    atomic_flag_clear_explicit(&rt_lock_flag, memory_order_release);
}

static const char *rt_str(const char *weak_ref, const char *fallback)
{
    return weak_ref != NULL ? weak_ref : fallback;
}

static void rt_copy(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int rt_phdr_first(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(uint64_t *)data = (uint64_t)info->dlpi_addr;   /* the first object is the executable */
    return 1;
}

/* ---- threads ------------------------------------------------------------------------------ */

RtThread *rt_thread_new(int32_t parent)
{
    if (atomic_load_explicit(&rt_state, memory_order_acquire) != RT_ON)
        return NULL;
    RtThread *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->guard = 1;
    t->parent = parent;
    rt_lock();
    if (rt_nthreads == rt_cap) {
        uint32_t cap = rt_cap ? 2 * rt_cap : 64;
        RtThread **a = realloc(rt_threads, cap * sizeof *a);
        if (a == NULL) {
            rt_unlock();
            free(t);
            return NULL;
        }
        rt_threads = a;
        rt_cap = cap;
    }
    t->tid = rt_nthreads;
    rt_threads[rt_nthreads++] = t;
    rt_unlock();
    return t;
}

void rt_thread_discard(RtThread *t)
{
    /* The id stays taken (a later thread may already have the next one); the manifest lists it
     * with no stream. */
    rt_lock();
    t->failed = true;
    rt_unlock();
}

void rt_thread_start(RtThread *t)
{
    rt_self = &rt_off;                 /* the writer's own calls must not adopt this thread */
    rt_lock();
    t->handle = (uint64_t)pthread_self();
    rt_unlock();
    AtHeader h;
    memset(&h, 0, sizeof h);
    h.version = ATRACE_VERSION;
    h.flags = 0;                       /* no gaps recorded; not AT_H_GAPS_EXACT */
    h.tid = t->tid;
    h.parent = t->parent;
    h.load_base = rt_load_base;
    rt_copy(h.frontend, sizeof h.frontend, rt_str(archsim_trace_frontend, "tsan"));
    rt_copy(h.compiler, sizeof h.compiler, rt_str(archsim_trace_compiler, "unknown"));
    rt_copy(h.cflags, sizeof h.cflags, rt_str(archsim_trace_cflags, ""));
    char path[4200];
    snprintf(path, sizeof path, "%s/T%" PRIu32 ".trace", rt_dir, t->tid);
    if (t->tid == 0 && rt_fd >= 0) {
        /* ARCHSIM_TRACE_FD: the main thread's stream goes to a consumer that reads it live */
        t->w = at_writer_open_fd(rt_fd, &h, rt_zlevel);
        snprintf(path, sizeof path, "ARCHSIM_TRACE_FD=%d", rt_fd);
    } else if (!at_file_is_ours(path)) {
        /* archsim writes over its own traces (a rerun into the same directory), never over
         * another file (docs/tracing.md) */
        fprintf(stderr, "archsim tracer: %s exists and is not an archsim trace; not writing over "
                "it (this thread is not recorded)\n", path);
        t->failed = true;
        return;
    } else {
        /* an earlier trace of that name is removed, not truncated: a hard link to it (another
         * recording's copy) keeps its bytes; and the new one is created only where nothing is
         * (O_EXCL), so a file another process puts there after the check is not written over */
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
            unlink(path);
        t->w = at_writer_create(path, &h, rt_zlevel);
    }
    if (t->w == NULL) {
        fprintf(stderr, "archsim tracer: %s: cannot create: %s\n", path, strerror(errno));
        t->failed = true;
        return;
    }
    t->live = true;
    pthread_setspecific(rt_key, t);
    t->guard = 0;
    rt_self = t;
}

void rt_thread_finish(RtThread *t)
{
    if (t == NULL || !t->live)
        return;
    t->guard++;
    t->records = at_writer_records(t->w);
    int rc = at_writer_close(t->w);
    if (rc != 0 && !(t->tid == 0 && rt_fd >= 0))
        fprintf(stderr, "archsim tracer: %s/T%" PRIu32 ".trace: close failed: %s\n", rt_dir,
                t->tid, strerror(errno));
    else if (rc != 0)
        fprintf(stderr, "archsim tracer: ARCHSIM_TRACE_FD=%d: close failed: %s\n", rt_fd,
                strerror(errno));
    t->w = NULL;
    t->live = false;
    t->complete = rc == 0 && !t->failed;
    if (rt_self == t) {
        rt_self = &rt_off;
        pthread_setspecific(rt_key, NULL);
    }
}

void rt_put_failed(RtThread *t)
{
    if (!t->failed)
        fprintf(stderr, "archsim tracer: %s/T%" PRIu32 ".trace: write failed: %s; this thread's"
                " stream stops here\n", rt_dir, t->tid, strerror(errno));
    t->failed = true;
    t->guard++;                        /* stays > 0: nothing more is recorded for t */
}

RtThread *rt_adopt(void)
{
    int s = atomic_load_explicit(&rt_state, memory_order_acquire);
    if (s == RT_UNINIT)
        return &rt_off;                /* before __tsan_init: drop, decide later */
    rt_self = &rt_off;
    if (s == RT_OFF)
        return &rt_off;
    /* A thread the pthread_create wrapper did not see (created inside a library): it gets the
     * next id and no parent. */
    RtThread *t = rt_thread_new(-1);
    if (t == NULL)
        return &rt_off;
    rt_thread_start(t);
    return rt_self;
}

int64_t rt_thread_joined(uint64_t handle)
{
    int64_t tid = -1;
    rt_lock();
    for (uint32_t i = rt_nthreads; i-- > 0;)
        if (rt_threads[i]->handle == handle && !rt_threads[i]->joined) {
            rt_threads[i]->joined = true;
            tid = i;
            break;
        }
    rt_unlock();
    return tid;
}

void rt_barrier_set(uint64_t addr, uint32_t count)
{
    rt_lock();
    size_t i = 0;
    while (i < rt_nbarriers && rt_barriers[i].addr != addr)
        i++;
    if (i == rt_nbarriers) {
        if (rt_nbarriers == rt_barrier_cap) {
            size_t cap = rt_barrier_cap ? 2 * rt_barrier_cap : 16;
            RtBarrier *a = realloc(rt_barriers, cap * sizeof *a);
            if (a == NULL) {
                rt_unlock();
                return;
            }
            rt_barriers = a;
            rt_barrier_cap = cap;
        }
        rt_nbarriers++;
    }
    rt_barriers[i].addr = addr;
    rt_barriers[i].count = count;
    rt_unlock();
}

uint32_t rt_barrier_count(uint64_t addr)
{
    uint32_t count = 0;
    rt_lock();
    for (size_t i = 0; i < rt_nbarriers; i++)
        if (rt_barriers[i].addr == addr)
            count = rt_barriers[i].count;
    rt_unlock();
    return count;
}

/* ---- manifest ----------------------------------------------------------------------------- */

/* at_kind_name() lives in the (GLib) reader; the manifest needs the same names. */
static const char *const rt_kind_names[AT_KINDS] = {
    [AT_LOAD] = "LOAD", [AT_STORE] = "STORE", [AT_ALOAD] = "ALOAD", [AT_ASTORE] = "ASTORE",
    [AT_RMW] = "RMW", [AT_CAS_OK] = "CAS_OK", [AT_CAS_FAIL] = "CAS_FAIL", [AT_FENCE] = "FENCE",
    [AT_RANGE_R] = "RANGE_R", [AT_RANGE_W] = "RANGE_W", [AT_LOCK_ACQ] = "LOCK_ACQ",
    [AT_LOCK_REL] = "LOCK_REL", [AT_BARRIER] = "BARRIER", [AT_CREATE] = "CREATE",
    [AT_JOIN] = "JOIN", [AT_ROI_BEGIN] = "ROI_BEGIN", [AT_ROI_END] = "ROI_END",
    [AT_TX_BEGIN] = "TX_BEGIN", [AT_TX_END] = "TX_END", [AT_TX_ABORT] = "TX_ABORT",
    [AT_COND_WAIT] = "COND_WAIT", [AT_COND_SIGNAL] = "COND_SIGNAL",
};
_Static_assert(AT_KINDS == 22, "a new AtKind needs its name in rt_kind_names");

/* YAML double-quoted scalar. */
static void rt_yaml_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* argv of this process from /proc/self/cmdline, as a YAML flow sequence. */
static void rt_yaml_argv(FILE *f)
{
    fputc('[', f);
    FILE *c = fopen("/proc/self/cmdline", "r");
    if (c != NULL) {
        char arg[4096];
        size_t n = 0;
        bool first = true;
        int ch;
        while ((ch = fgetc(c)) != EOF) {
            if (ch != '\0') {
                if (n < sizeof arg - 1)
                    arg[n++] = (char)ch;
                continue;
            }
            arg[n] = '\0';
            if (!first)
                fputs(", ", f);
            rt_yaml_str(f, arg);
            first = false;
            n = 0;
        }
        fclose(c);
    }
    fputc(']', f);
}

static void rt_manifest_write(int status)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/manifest.yaml", rt_dir);
    snprintf(tmp, sizeof tmp, "%s.part", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        fprintf(stderr, "archsim tracer: %s: cannot create: %s\n", tmp, strerror(errno));
        return;
    }
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - rt_t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - rt_t0.tv_nsec);
    time_t now = time(NULL);
    struct tm tm;
    char date[32];
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);

    fputs("# manifest.yaml: written by archsim's recording runtime (tools/tracer/) at process exit.\n"
          "# One T<tid>.trace per thread (traces/atrace.h); tids in pthread_create order, 0 = main.\n",
          f);
    fprintf(f, "format: atrace\nversion: %d\n", ATRACE_VERSION);
    fputs("frontend: ", f);
    rt_yaml_str(f, rt_str(archsim_trace_frontend, "tsan"));
    fputs("\ncompiler: ", f);
    rt_yaml_str(f, rt_str(archsim_trace_compiler, "unknown"));
    fputs("\ncflags: ", f);
    rt_yaml_str(f, rt_str(archsim_trace_cflags, ""));
    fputs("\ninstrument: ", f);
    rt_yaml_str(f, rt_str(archsim_trace_instrument, ""));
    fputs("\nargv: ", f);
    rt_yaml_argv(f);
    fprintf(f, "\ndate: \"%s\"\n", date);
    fprintf(f, "exit_status: %d\n", status);
    fprintf(f, "wall_seconds: %.3f\n", wall);
    fprintf(f, "load_base: 0x%" PRIx64 "\n", rt_load_base);
    fputs("gaps: none          # no compute gaps recorded (header flags 0: not exact)\n", f);
    fprintf(f, "zlevel: %d\n", rt_zlevel);

    uint64_t total_records = 0, total_bytes = 0;
    rt_lock();
    fprintf(f, "thread_count: %" PRIu32 "\nthreads:\n", rt_nthreads);
    for (uint32_t i = 0; i < rt_nthreads; i++) {
        const RtThread *t = rt_threads[i];
        char file[4200];
        snprintf(file, sizeof file, "%s/T%" PRIu32 ".trace", rt_dir, t->tid);
        struct stat st;
        uint64_t bytes = stat(file, &st) == 0 ? (uint64_t)st.st_size : 0;
        fprintf(f, "  - tid: %" PRIu32 "\n    parent: %" PRId32 "\n", t->tid, t->parent);
        if (t->tid == 0 && rt_fd >= 0)
            fprintf(f, "    stream: %d    # ARCHSIM_TRACE_FD: read live, not a file\n", rt_fd);
        else
            fprintf(f, "    file: T%" PRIu32 ".trace\n", t->tid);
        fprintf(f, "    complete: %s\n", t->complete ? "true" : "false");
        if (!t->complete) {
            fputs(t->live ? "    note: still running at exit; stream not flushed\n"
                          : "    note: no stream, or an I/O error ended it\n", f);
            fprintf(f, "    bytes: %" PRIu64 "\n", bytes);
            continue;
        }
        fprintf(f, "    records: %" PRIu64 "\n    bytes: %" PRIu64 "\n", t->records, bytes);
        fputs("    kinds: {", f);
        bool first = true;
        for (int k = 0; k < AT_KINDS; k++)
            if (t->counts[k]) {
                fprintf(f, "%s%s: %" PRIu64, first ? "" : ", ", rt_kind_names[k], t->counts[k]);
                first = false;
            }
        fputs("}\n", f);
        total_records += t->records;
        total_bytes += bytes;
    }
    rt_unlock();
    fprintf(f, "records: %" PRIu64 "\nbytes: %" PRIu64 "\n", total_records, total_bytes);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        fprintf(stderr, "archsim tracer: %s: cannot write: %s\n", path, strerror(errno));
}

/* ---- start-up and exit -------------------------------------------------------------------- */

static void rt_key_destructor(void *p)
{
    rt_thread_finish(p);
}

static void rt_on_exit(int status, void *arg)
{
    (void)arg;
    if (atomic_load_explicit(&rt_state, memory_order_acquire) != RT_ON)
        return;
    RtThread *self = rt_self;
    if (self != NULL && self->live)
        rt_thread_finish(self);
    rt_manifest_write(status);
}

/* A forked child must not write into the parent's streams: it records nothing. */
static void rt_atfork_child(void)
{
    atomic_store_explicit(&rt_state, RT_OFF, memory_order_release);
    rt_self = &rt_off;
}

void rt_init(void)
{
    static atomic_flag once = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&once))
        return;
    const char *dir = getenv("ARCHSIM_TRACE_OUT");
    if (dir == NULL || *dir == '\0' || strlen(dir) >= sizeof rt_dir - 32) {
        if (dir != NULL && *dir != '\0')
            fprintf(stderr, "archsim tracer: ARCHSIM_TRACE_OUT too long; not recording\n");
        atomic_store(&rt_state, RT_OFF);
        return;
    }
    rt_copy(rt_dir, sizeof rt_dir, dir);
    if (mkdir(rt_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "archsim tracer: %s: cannot create: %s; not recording\n", rt_dir,
                strerror(errno));
        atomic_store(&rt_state, RT_OFF);
        return;
    }
    const char *z = getenv("ARCHSIM_TRACE_ZLEVEL");
    if (z != NULL && z[0] >= '0' && z[0] <= '9' && z[1] == '\0')
        rt_zlevel = z[0] - '0';
    const char *fd = getenv("ARCHSIM_TRACE_FD");
    if (fd != NULL && *fd != '\0') {
        char *end;
        long v = strtol(fd, &end, 10);
        if (*end != '\0' || v < 0 || v > 1 << 20 || fcntl((int)v, F_GETFD) < 0) {
            fprintf(stderr, "archsim tracer: ARCHSIM_TRACE_FD=%s is not an open descriptor; "
                    "not recording\n", fd);
            atomic_store(&rt_state, RT_OFF);
            return;
        }
        rt_fd = (int)v;
        fcntl(rt_fd, F_SETFD, FD_CLOEXEC);   /* not inherited by programs this one runs */
    }
    clock_gettime(CLOCK_MONOTONIC, &rt_t0);
    dl_iterate_phdr(rt_phdr_first, &rt_load_base);
    if (pthread_key_create(&rt_key, rt_key_destructor) != 0) {
        atomic_store(&rt_state, RT_OFF);
        return;
    }
    pthread_atfork(NULL, NULL, rt_atfork_child);
    on_exit(rt_on_exit, NULL);
    atomic_store_explicit(&rt_state, RT_ON, memory_order_release);
    RtThread *main_thread = rt_thread_new(-1);     /* tid 0 */
    if (main_thread != NULL)
        rt_thread_start(main_thread);
    if (main_thread == NULL || main_thread->failed) {
        /* without the main thread's stream the others would be orphans (parent -1): record
         * nothing rather than a recording that looks whole */
        fprintf(stderr, "archsim tracer: the main thread's trace could not be made; not "
                "recording\n");
        atomic_store(&rt_state, RT_OFF);
    }
}

/* Instrumented objects call __tsan_init from their constructors; this covers programs whose only
 * link to the runtime is a marker call. */
static void rt_ctor(void) __attribute__((constructor));
static void rt_ctor(void)
{
    rt_init();
}
