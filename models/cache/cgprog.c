/* cgprog.c: `archsim cachegrind [--I1..] [--D1..] [--LL..] -- PROGRAM [ARGS]`: runs a program
 * built with tools/archsim-cc and simulates its data references with cachegrind's rules as it
 * runs (cgsim.h), instead of going through valgrind lackey's text trace.
 *
 *   PROGRAM (recording runtime) --ARCHSIM_TRACE_FD: atrace stream, zlib level 0--> pipe
 *      --> archsim: decode (atrace_read.c) --> MemRef batches --> I1/D1/LL (cgsim)
 *
 * The main thread's stream is read live; the runtime writes any other thread's to a file in a
 * scratch directory, simulated after the program exits, thread by thread (cachegrind runs the
 * threads of a program one at a time too, in an order of its own). Compile-time instrumentation
 * sees the program's own loads and stores and its memcpy/memset calls, not instruction fetches,
 * register spills, libc or the loader (docs/cachegrind.md measures the difference): Ir, I1mr
 * and ILmr are printed as "-".
 */
#include "cgsim.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../sim/config.h"
#include "../../sim/error.h"
#include "../../traces/atrace.h"
#include "../../traces/atrace_record.h"

#define CGP_BATCH 4096
/* memcpy/memmove/memset ranges become accesses of this many bytes (an SSE copy loop's; the
 * libc routine cachegrind sees picks its own width at run time) */
#define CGP_RANGE_STEP 16u

/* A batch of references on its way to the caches. */
typedef struct {
    CgSim *s;
    MemRef buf[CGP_BATCH];
    size_t n;
    uint64_t refs;
    uint64_t created;   /* 1 + the highest thread id a CREATE record names (0: none) */
} CgpOut;

static inline void cgp_put(CgpOut *o, uint64_t addr, uint32_t size, MemRefKind kind)
{
    o->buf[o->n++] = (MemRef){ addr, size ? size : 1, kind };
    if (o->n == CGP_BATCH) {
        cgsim_access_batch(o->s, o->buf, o->n);
        o->refs += o->n;
        o->n = 0;
    }
}

/* One record's references: plain and atomic loads and stores as themselves, a locked
 * read-modify-write (RMW, CAS) as cachegrind's "modify" (one read), a memcpy/memmove/memset range
 * as CGP_RANGE_STEP-byte reads or writes; fences, locks, barriers and markers as nothing. */
static inline void cgp_record(CgpOut *o, const AtRecord *r)
{
    switch (r->kind) {
    case AT_LOAD:
    case AT_ALOAD:
        cgp_put(o, r->addr, r->size, MEMREF_LOAD);
        break;
    case AT_STORE:
    case AT_ASTORE:
        cgp_put(o, r->addr, r->size, MEMREF_STORE);
        break;
    case AT_RMW:
    case AT_CAS_OK:
    case AT_CAS_FAIL:
        cgp_put(o, r->addr, r->size, MEMREF_MODIFY);
        break;
    case AT_RANGE_R:
    case AT_RANGE_W:
        for (uint64_t off = 0; off < r->arg; off += CGP_RANGE_STEP) {
            if (r->addr + off < r->addr)        /* past 2^64: the rest is not addressable */
                break;
            uint64_t left = r->arg - off;
            cgp_put(o, r->addr + off, (uint32_t)(left < CGP_RANGE_STEP ? left : CGP_RANGE_STEP),
                    r->kind == AT_RANGE_R ? MEMREF_LOAD : MEMREF_STORE);
        }
        break;
    case AT_CREATE:
        if (r->arg < UINT64_MAX && r->arg + 1 > o->created)
            o->created = r->arg + 1;
        break;
    default:
        break;
    }
}

/* Simulates every record of one stream; *created: raised to 1 + the highest thread id one of
 * its CREATE records names. */
static bool cgp_stream(CgSim *s, AtReader *r, uint64_t *refs, uint64_t *created, GError **error)
{
    AtRecord *rec = g_new(AtRecord, CGP_BATCH);
    CgpOut *o = g_new(CgpOut, 1);
    o->s = s;
    o->n = 0;
    o->refs = 0;
    o->created = *created;
    size_t n;
    GError *err = NULL;
    while ((n = at_reader_read(r, rec, CGP_BATCH, &err)) > 0)
        for (size_t i = 0; i < n; i++)
            cgp_record(o, &rec[i]);
    cgsim_access_batch(s, o->buf, o->n);
    *refs += o->refs + o->n;
    *created = o->created;
    g_free(o);
    g_free(rec);
    if (err) {
        g_propagate_error(error, err);
        return false;
    }
    return true;
}

/* The thread files of a recording, as `archsim run` checks them before a replay
 * (docs/tracing.md): T0.trace .. T<n-1>.trace without a gap (a missing one is 66), and as many
 * as its manifest's thread_count when it has a manifest (65). *n: the count. */
static bool cgp_check_dir(const char *dir, uint32_t *n, GError **error)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    uint32_t files = 0;
    uint64_t highest = 0;
    char *odd = NULL;               /* a thread file's name as no recording writes it (T01) */
    for (const char *name; d && (name = g_dir_read_name(d)) != NULL;)
        if (atrace_is_thread_file(name)) {
            uint64_t t = g_ascii_strtoull(name + 1, NULL, 10);
            char canon[40];
            g_snprintf(canon, sizeof canon, "T%" G_GUINT64_FORMAT ".trace", t);
            if (strcmp(canon, name) != 0 && odd == NULL)
                odd = g_strdup(name);
            files++;
            highest = MAX(highest, t);
        }
    if (d)
        g_dir_close(d);
    if (odd != NULL) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%s/%s: not a name a "
                    "recording gives a thread's trace (T0.trace, T1.trace, ...)", dir, odd);
        g_free(odd);
        return false;
    }
    for (uint32_t tid = 0; tid <= files; tid++) {
        char *path = g_strdup_printf("%s/T%u.trace", dir, tid);
        bool there = g_file_test(path, G_FILE_TEST_EXISTS);
        g_free(path);
        if (there)
            continue;
        if (tid == 0)
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: no T0.trace: "
                        "not a recording (archsim trace record -o DIR -- PROGRAM)", dir);
        else if (tid < files || highest >= files)
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: no T%u.trace, "
                        "but T%" G_GUINT64_FORMAT ".trace is there: a recording's threads are "
                        "T0.trace, T1.trace, ... without a gap", dir, tid, highest);
        else
            break;
        return false;
    }
    *n = files;
    char *mpath = g_build_filename(dir, "manifest.yaml", NULL);
    bool ok = true;
    if (g_file_test(mpath, G_FILE_TEST_EXISTS)) {
        GError *e = NULL;
        CfgNode *root = cfg_load_file(mpath, NULL, &e);
        const CfgNode *tc = root ? cfg_map_get(root, "thread_count") : NULL;
        guint64 count = 0;
        if (!root) {
            g_set_error(error, ARCHSIM_TRACE_ERROR, e->code == ARCHSIM_EXIT_NOINPUT ?
                        ARCHSIM_EXIT_NOINPUT : ARCHSIM_EXIT_DATAERR, "%s", e->message);
            g_error_free(e);
            ok = false;
        } else if (tc && tc->kind == CFG_SCALAR &&
                   g_ascii_string_to_unsigned(tc->scalar, 10, 0, UINT32_MAX, &count, NULL) &&
                   count > files) {
            /* T0.trace ... without a gap (checked above), the last ones missing: a missing
             * input (66), as a replay says it */
            char *where = cfg_node_where(tc);
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: thread_count is "
                        "%s, but %s has no T%u.trace (a thread's trace is missing)", where,
                        tc->scalar, dir, files);
            g_free(where);
            ok = false;
        } else if (!tc || tc->kind != CFG_SCALAR ||
                   !g_ascii_string_to_unsigned(tc->scalar, 10, 0, UINT32_MAX, &count, NULL) ||
                   count != files) {
            char *where = cfg_node_where(tc ? tc : root);
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%s: thread_count %s%s, "
                        "but %s holds %u thread file%s", where, tc ? "is " : "missing",
                        tc && tc->kind == CFG_SCALAR ? tc->scalar : "", dir, files,
                        files == 1 ? "" : "s");
            g_free(where);
            ok = false;
        }
        cfg_node_free(root);
    }
    g_free(mpath);
    return ok;
}

/* Every thread a CREATE record names has its file: n files, threads 0 .. created - 1 (a
 * recording of a program that died before its manifest was written lacks one unnoticed). */
static bool cgp_all_created(const char *dir, uint32_t n, uint64_t created, GError **error)
{
    if (created <= n)
        return true;
    g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: no T%" G_GUINT64_FORMAT
                ".trace, but a record creates thread %" G_GUINT64_FORMAT " (a thread's trace is "
                "missing)", dir, (uint64_t)n, created - 1);
    return false;
}

bool cgsim_run_recording(CgSim *s, const char *dir, uint64_t *refs, GError **error)
{
    *refs = 0;
    uint32_t n = 0;
    if (!cgp_check_dir(dir, &n, error))
        return false;
    AtHeader h0;
    uint64_t created = 0;
    for (uint32_t tid = 0; tid < n; tid++) {
        char *path = g_strdup_printf("%s/T%u.trace", dir, tid);
        AtReader *r = at_reader_open(path, error);
        bool ok = r != NULL;
        const AtHeader *h = ok ? at_reader_header(r) : NULL;
        if (ok && h->tid != tid) {
            /* byte 28: the header's tid field (traces/FORMAT.md 2) */
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%s: byte 28: header "
                        "says tid %u, but the file name says thread %u", path, h->tid, tid);
            ok = false;
        } else if (ok && tid == 0) {
            h0 = *h;
        } else if (ok && (h->load_base != h0.load_base || h->flags != h0.flags ||
                          strcmp(h->frontend, h0.frontend) != 0 ||
                          strcmp(h->compiler, h0.compiler) != 0 ||
                          strcmp(h->cflags, h0.cflags) != 0)) {
            /* what one recording run sets once for all its threads, as a replay checks it */
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%s: byte %d: header "
                        "%s differs from T0.trace's (not one recording)", path,
                        h->load_base != h0.load_base ? 16 : h->flags != h0.flags ? 24
                                                                               : AT_HEADER_FIXED,
                        h->load_base != h0.load_base ? "load base"
                        : h->flags != h0.flags ? "flags" : "front end, compiler or flags");
            ok = false;
        }
        ok = ok && cgp_stream(s, r, refs, &created, error);
        if (r)
            at_reader_close(r);
        g_free(path);
        if (!ok)
            return false;
    }
    return cgp_all_created(dir, n, created, error);
}

/* Removes the scratch directory and what the runtime wrote into it. */
static void cgp_cleanup(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    if (d) {
        const char *name;
        while ((name = g_dir_read_name(d)) != NULL) {
            if ((g_str_has_prefix(name, "T") && g_str_has_suffix(name, ".trace")) ||
                strcmp(name, "manifest.yaml") == 0 || strcmp(name, "manifest.yaml.part") == 0) {
                char *p = g_build_filename(dir, name, NULL);
                g_unlink(p);
                g_free(p);
            }
        }
        g_dir_close(d);
    }
    g_rmdir(dir);
}

bool cgsim_cli_program(CgSim *s, char **argv, bool quiet, CgCounts *counts, int *prog_status,
                      GError **error)
{
    *prog_status = 0;
    const char *tmpbase = g_get_tmp_dir();
    char *dir = g_build_filename(tmpbase, "archsim-cg.XXXXXX", NULL);
    if (g_mkdtemp(dir) == NULL) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT, "%s: cannot create: %s",
                    dir, g_strerror(errno));
        g_free(dir);
        return false;
    }
    int trace[2];
    if (pipe2(trace, O_CLOEXEC) != 0) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_SOFTWARE, "pipe: %s",
                    g_strerror(errno));
        cgp_cleanup(dir);
        g_free(dir);
        return false;
    }
    /* a larger pipe: the program writes 256 KiB chunks, and fewer of them wait for the reader */
    (void)fcntl(trace[0], F_SETPIPE_SZ, 1 << 20);
    /* the program's runtime writes the main thread's stream into trace[1], uncompressed: a pipe
     * needs no time spent compressing */
    AtChild ch;
    if (!atrace_child_start(argv, dir, 0, trace[1], &ch, error)) {
        close(trace[0]);
        cgp_cleanup(dir);
        g_free(dir);
        return false;
    }
    uint64_t refs = 0;
    GError *err = NULL;
    char *name = g_strdup_printf("%s (main thread, live)", argv[0]);
    AtReader *live = at_reader_open_fd(trace[0], name, &err);
    g_free(name);
    uint64_t created = 0;
    uint32_t files = 1;
    bool ok = live != NULL && cgp_stream(s, live, &refs, &created, &err);
    if (live != NULL)
        at_reader_close(live);
    *prog_status = atrace_child_wait(&ch);
    char *manifest = g_build_filename(dir, "manifest.yaml", NULL);
    bool runtime = g_file_test(manifest, G_FILE_TEST_EXISTS);
    g_free(manifest);
    if (!ok && refs == 0 && !runtime) {
        /* nothing came down the pipe and no manifest appeared: no recording runtime in it */
        g_clear_error(&err);
        if (*prog_status > 128 && *prog_status < 128 + 65)
            /* killed (status 128 + signal): its runtime may be there but never wrote */
            g_set_error(&err, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                        "%s recorded nothing and ended with status %d (signal %d?): a program "
                        "killed by a signal loses what its recording runtime had not written "
                        "yet; one not built with tools/archsim-cc records nothing", argv[0],
                        *prog_status, *prog_status - 128);
        else
            g_set_error(&err, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                        "%s recorded nothing (exit status %d): build it with tools/archsim-cc "
                        "(archsim-cc -O2 prog.c -o prog) so that it records its references",
                        argv[0], *prog_status);
    }
    /* the other threads' streams, in thread order */
    for (uint32_t tid = 1; ok; tid++) {
        char *path = g_strdup_printf("%s/T%u.trace", dir, tid);
        if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
            g_free(path);
            break;
        }
        AtReader *r = at_reader_open(path, &err);
        ok = r != NULL && cgp_stream(s, r, &refs, &created, &err);
        if (r)
            at_reader_close(r);
        g_free(path);
        files++;
    }
    ok = ok && cgp_all_created(dir, files, created, &err);
    cgp_cleanup(dir);
    g_free(dir);
    if (!ok) {
        g_propagate_error(error, err);
        return false;
    }
    if (refs == 0) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                    "%s: the program made no memory reference that archsim-cc's "
                    "instrumentation sees", argv[0]);
        return false;
    }
    if (!quiet)
        fprintf(stderr, "archsim cachegrind: %s: %" G_GUINT64_FORMAT " data references from "
                "compile-time instrumentation: no instruction fetches (Ir, I1mr, ILmr: -), no "
                "libc or loader code, no register spills (docs/cachegrind.md)\n", argv[0], refs);
    *counts = cgsim_counts(s);
    return true;
}
