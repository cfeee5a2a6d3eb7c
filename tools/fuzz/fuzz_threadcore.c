/* fuzz_threadcore.c: AFL++ harness for the atrace replay path: traces/atrace_read.c, the
 * workload's directory checks and synchronization (models/sync/workload.c) and thread-core
 * (models/cpu/thread_core.c) on a small snooping multicore, fed a directory made from one
 * fuzzed file.
 *
 * The input is cut into a recording of 1-4 threads (below), written as DIR/T<i>.trace: a fixed
 * 36-byte header (tid i, parent -1 or 0) and the thread's bytes deflated into one zlib stream,
 * so the bytes are records in the clear and every mutation reaches the record decoder. Thread 0
 * starts with CREATE records for the other threads, so most inputs pass the directory checks.
 *
 *   byte 0        threads n = 1 + (b0 & 3); header flags = (b0 >> 2) & 7 (gaps, exact, pc)
 *   then n times  u16 little-endian length L, then L bytes of raw records (cut at the end)
 *
 * Oracles (abort() on a failure, a crash to AFL++):
 *   - a thread file the reader rejects fails the run with the reader's code (65/66) and
 *     message, which names the byte and record: the pre-scan reads T0, T1, ... in order, so it
 *     is the first such file's;
 *   - otherwise the run ends, or fails with 65/66/78 naming the directory (a directory check), or
 *     with the deadlock code 3 only when some thread holds a record that can wait (lock, barrier,
 *     join, condition, or an atomic that may be a spin-lock word): plain accesses, fences and
 *     markers never deadlock, however long their gaps (a gap past the watchdog, below); or with
 *     65 naming the core for a gap no tick can hold;
 *   - when the run ends (not cut by max_cycles), every core consumed every record of its file.
 * Bounded: at most FUZZ_MAX_BYTES raw bytes per thread, sim.max_cycles 200,000; one input
 * takes milliseconds.
 *
 *   fuzz_threadcore FILE...    exit 0 when every file passed
 */
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../sim/error.h"
#include "../../sim/system.h"
#include "../../traces/atrace.h"

#define FUZZ_NAME "fuzz_threadcore"
#include "fuzz.h"

#define FUZZ_THREADS 4
#define FUZZ_MAX_BYTES 8192
/* sim.watchdog below. A record whose gap x cpi reaches it computes that long without completing
 * anything; that is the trace's own quiet (sim_quiet_until), not a deadlock: such an input once
 * ended in a false exit 3, which this harness had to allow. A gap no tick can hold (near 2^64
 * ps) fails the run with 65, naming the core. */
#define FUZZ_WATCHDOG 100000

static const char fuzz_config[] =
    "sim:\n"
    "  seed: 1\n"
    "  watchdog: %d\n"
    "  max_cycles: 200000\n"
    "system:\n"
    "  type: smp\n"
    "  cores: %d\n"
    "  llc_banks: 1\n"
    "core:\n"
    "  type: thread-core\n"
    "l1d: {size: 512B, assoc: 2, protocol: mesi}\n"
    "llc: {size: 4KiB, assoc: 4}\n"
    "bus:\n"
    "  mode: split\n"
    "workload:\n"
    "  trace: '%s'\n";

static void fuzz_put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Writes DIR/T<tid>.trace: the fixed header, then raw deflated. */
static void fuzz_write_thread(const char *dir, int tid, uint32_t flags, const uint8_t *raw,
                              size_t len)
{
    uint8_t h[AT_HEADER_FIXED] = { 0 };
    memcpy(h, ATRACE_MAGIC, 8);
    fuzz_put_u32(h + 8, ATRACE_VERSION);
    fuzz_put_u32(h + 12, AT_HEADER_FIXED);
    fuzz_put_u32(h + 24, flags);
    fuzz_put_u32(h + 28, (uint32_t)tid);
    fuzz_put_u32(h + 32, tid == 0 ? UINT32_MAX : 0);    /* parent -1 or 0 */
    uLongf zlen = compressBound((uLong)len);
    GByteArray *f = g_byte_array_sized_new((guint)(sizeof h + zlen));
    g_byte_array_append(f, h, sizeof h);
    g_byte_array_set_size(f, (guint)(sizeof h + zlen));
    if (compress2(f->data + sizeof h, &zlen, raw, (uLong)len, 1) != Z_OK)
        abort();
    g_byte_array_set_size(f, (guint)(sizeof h + zlen));
    char *path = g_strdup_printf("%s/T%d.trace", dir, tid);
    if (!g_file_set_contents(path, (const char *)f->data, f->len, NULL)) {
        fprintf(stderr, "fuzz_threadcore: cannot write %s\n", path);
        exit(2);
    }
    g_free(path);
    g_byte_array_free(f, TRUE);
}

/* What the reader makes of one thread's file. */
typedef struct {
    uint64_t records;
    bool may_wait;          /* a record that can block in a correct replay */
    bool long_gap;          /* a gap of FUZZ_WATCHDOG instructions or more */
    GError *error;
} FuzzThread;

static void fuzz_read(const char *path, FuzzThread *t)
{
    memset(t, 0, sizeof *t);
    AtReader *r = at_reader_open(path, &t->error);
    if (r == NULL)
        return;
    AtRecord buf[256];
    size_t n;
    while ((n = at_reader_read(r, buf, G_N_ELEMENTS(buf), &t->error)) > 0) {
        t->records += n;
        for (size_t i = 0; i < n; i++) {
            unsigned k = buf[i].kind;
            if (k == AT_LOCK_ACQ || k == AT_BARRIER || k == AT_JOIN || k == AT_COND_WAIT ||
                k == AT_ALOAD || k == AT_RMW || k == AT_CAS_OK || k == AT_CAS_FAIL ||
                k == AT_TX_BEGIN)
                t->may_wait = true;
            if ((buf[i].flags & AT_F_GAP) && buf[i].gap >= FUZZ_WATCHDOG)
                t->long_gap = true;
        }
    }
    at_reader_close(r);
}

static void fuzz_rmtree(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    for (const char *n; d && (n = g_dir_read_name(d)) != NULL;) {
        char *p = g_build_filename(dir, n, NULL);
        g_unlink(p);
        g_free(p);
    }
    if (d)
        g_dir_close(d);
}

static void fuzz_one(const char *input, const char *dir)
{
    char *data = NULL;
    gsize len = 0;
    if (!g_file_get_contents(input, &data, &len, NULL) || len == 0) {
        g_free(data);
        return;                         /* nothing to make a recording of */
    }
    const uint8_t *p = (const uint8_t *)data, *end = p + len;
    int n = 1 + (p[0] & 3);
    uint32_t flags = (p[0] >> 2) & 7;
    p++;
    fuzz_rmtree(dir);
    for (int i = 0; i < n; i++) {
        size_t l = 0;
        if (end - p >= 2) {
            l = (size_t)p[0] | (size_t)p[1] << 8;
            p += 2;
        } else {
            p = end;
        }
        if (l > (size_t)(end - p))
            l = (size_t)(end - p);
        if (l > FUZZ_MAX_BYTES)
            l = FUZZ_MAX_BYTES;
        GByteArray *raw = g_byte_array_new();
        if (i == 0)
            for (int c = 1; c < n; c++) {
                /* CREATE (kind 13, size 0): site 0, new on the first (pc 0x10), arg = c */
                const uint8_t first[] = { 0x0d, 0x00, 0x10, (uint8_t)c };
                const uint8_t again[] = { 0x0d, 0x00, (uint8_t)c };
                if (c == 1)
                    g_byte_array_append(raw, first, sizeof first);
                else
                    g_byte_array_append(raw, again, sizeof again);
            }
        g_byte_array_append(raw, p, (guint)l);
        p += l;
        fuzz_write_thread(dir, i, flags, raw->data, raw->len);
        g_byte_array_free(raw, TRUE);
    }

    FuzzThread th[FUZZ_THREADS];
    const GError *first_error = NULL;
    bool may_wait = false, long_gap = false;
    for (int i = 0; i < n; i++) {
        char *path = g_strdup_printf("%s/T%d.trace", dir, i);
        fuzz_read(path, &th[i]);
        g_free(path);
        if (th[i].error != NULL && first_error == NULL)
            first_error = th[i].error;
        may_wait |= th[i].may_wait;
        long_gap |= th[i].long_gap;
    }

    char *yaml = g_strdup_printf(fuzz_config, FUZZ_WATCHDOG, n, dir);
    GError *e = NULL;
    CfgNode *root = cfg_load_string("fuzz.yaml", yaml, NULL, &e);
    if (root == NULL) {
        fprintf(stderr, "fuzz_threadcore: fixed config rejected: %s\n", e->message);
        abort();
    }
    SystemRun *run = system_build(root, -1, NULL, NULL, &e);
    bool ran = run != NULL && system_run(run, &e);
    if (getenv("FUZZ_VERBOSE") != NULL) {
        fprintf(stderr, "%s: %d threads, %s", input, n, e ? e->message : "ran");
        for (int i = 0; ran && i < n; i++) {
            char name[32];
            g_snprintf(name, sizeof name, "core%d.cycles", i);
            fprintf(stderr, ", %s %" G_GUINT64_FORMAT, name, system_stat_u64(run, name));
        }
        fprintf(stderr, "%s\n", ran && run->truncated ? " (max_cycles)" : "");
    }

    if (first_error != NULL) {
        fuzz_check(!ran && e != NULL, input, "a trace the reader rejects ran to the end");
        fuzz_check(e->code == first_error->code, input, "exit code differs from the reader's");
        fuzz_check(e->code == ARCHSIM_EXIT_DATAERR || e->code == ARCHSIM_EXIT_NOINPUT, input,
                   "a trace error that is neither 65 nor 66");
        if (strstr(e->message, first_error->message) == NULL)
            fprintf(stderr, "fuzz_threadcore: run: %s\n  reader: %s\n", e->message,
                    first_error->message);
        fuzz_check(strstr(e->message, first_error->message) != NULL, input,
                   "the run's message is not the reader's");
        fuzz_check(strstr(first_error->message, ": byte ") != NULL, input,
                   "the reader's message names no byte");
    } else if (!ran) {
        fuzz_check(e != NULL, input, "a failed run without an error");
        if (e->code == ARCHSIM_EXIT_CHECK) {
            if (!may_wait)
                fprintf(stderr, "fuzz_threadcore: %s\n", e->message);
            fuzz_check(may_wait, input, "a deadlock in a trace that has nothing to wait for");
        } else if (e->code == ARCHSIM_EXIT_DATAERR && strstr(e->message, "ends past the last tick")) {
            fuzz_check(long_gap, input, "a wait past the last tick without a long gap");
        } else {
            if (strstr(e->message, dir) == NULL)
                fprintf(stderr, "fuzz_threadcore: %s\n", e->message);
            fuzz_check((e->code == ARCHSIM_EXIT_DATAERR || e->code == ARCHSIM_EXIT_NOINPUT ||
                        e->code == ARCHSIM_EXIT_CONFIG) && strstr(e->message, dir) != NULL,
                       input, "a run error that is not a directory check naming its file");
        }
    } else if (!run->truncated) {
        for (int i = 0; i < n; i++) {
            char name[32];
            g_snprintf(name, sizeof name, "core%d.records", i);
            uint64_t got = system_stat_u64(run, name);
            if (got != th[i].records)
                fprintf(stderr, "fuzz_threadcore: %s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                        " records\n", name, got, th[i].records);
            fuzz_check(got == th[i].records, input, "a core did not consume its whole file");
        }
    }
    g_clear_error(&e);
    for (int i = 0; i < n; i++)
        g_clear_error(&th[i].error);
    if (run != NULL)
        system_free(run);           /* system_build owns root, also when it fails */
    g_free(yaml);
    g_free(data);
}

int main(int argc, char **argv)
{
    char *dir = g_dir_make_tmp("fuzz-threadcore-XXXXXX", NULL);
    if (dir == NULL) {
        fprintf(stderr, "fuzz_threadcore: cannot make a scratch directory\n");
        return 2;
    }
    for (int i = 1; i < argc; i++)
        fuzz_one(argv[i], dir);
    if (getenv("FUZZ_KEEP") != NULL) {      /* keep the last directory, for a look at it */
        fprintf(stderr, "fuzz_threadcore: kept %s\n", dir);
    } else {
        fuzz_rmtree(dir);
        g_rmdir(dir);
    }
    g_free(dir);
    return 0;
}
