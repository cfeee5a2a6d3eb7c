/* fuzz_tracecore.c: AFL++ harness for the TIMING trace core (models/cpu/trace_core.c) on the
 * uniproc machine, fed a fuzzed lackey trace.
 *
 * fuzz_lackey.c checks the reader against itself; the wrap bug of issue 15 item 9 (a reference
 * past 2^64 read fine, then the timing core sent nothing for it) lived between the reader and the
 * core, so this harness runs the whole machine: for each file named on the command line it reads
 * the trace with traces/lackey.c (the oracle's view), builds a small uniproc machine from a fixed
 * config string (tiny caches, a two-entry store buffer, so misses, splits and stalls happen), runs
 * it, and abort()s (a crash to AFL++) when an oracle fails:
 *   - a trace the reader rejects fails the run with the same code (65/66) and the reader's
 *     message, which names the position (FILE:LINE:COL or FILE:LINE);
 *   - a trace without references fails with 65; any other trace runs to completion: no deadlock,
 *     no other error;
 *   - every reference was issued and completed: loads, stores, modifies and fetches counted as
 *     the reader read them, one load-latency sample per line a load or modify touches, one
 *     store-latency sample per line a store or modify touches, one fetch sample per I record,
 *     instructions as the core groups them, the split counter as the lines say;
 *   - stats are sane: cycles >= 1, cycles >= instructions * cpi (at most one instruction
 *     retires per cpi), the L1D saw every load and store part.
 * Bounded: a trace of more than FUZZ_MAX_REFS references is cut to its first FUZZ_MAX_REFS (the
 * harness writes them out as a plain lackey file and runs that), so one input takes a few
 * milliseconds. Deterministic: the machine has no randomness besides its fixed seed.
 *
 *   fuzz_tracecore FILE...    exit 0 when every file passed
 */
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../sim/error.h"
#include "../../sim/system.h"
#include "../../traces/lackey.h"

#define FUZZ_MAX_REFS 4096
#define FUZZ_LINE 64        /* core.line and every cache line below */
#define FUZZ_MAX_DATA 8     /* trace_core.c's MAX_DATA: data references per fetch-queue entry */

/* The machine: every knob small, so that a few thousand references reach misses, evictions,
 * MSHR merges, split references and a full store buffer. */
static const char fuzz_config[] =
    "sim:\n"
    "  seed: 1\n"
    "  watchdog: 200000\n"
    "system:\n"
    "  type: uniproc\n"
    "core:\n"
    "  trace: %s\n"
    "  cpi: 1.5\n"
    "  fetch_queue: 2\n"
    "  store_buffer: 2\n"
    "  line: 64B\n"
    "l1i: {size: 256B, assoc: 2, line: 64B, mshrs: 2}\n"
    "l1d: {size: 512B, assoc: 2, line: 64B, mshrs: 2, targets: 2}\n"
    "l2: {size: 2KiB, assoc: 4, line: 64B, mshrs: 4}\n";

static void fuzz_check(bool ok, const char *path, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_tracecore: %s: invariant broken: %s\n", path, what);
        abort();
    }
}

/* What the run must show, from the reader's references. */
typedef struct {
    uint64_t refs, ifetches, loads, stores, modifies;
    uint64_t load_parts, store_parts, splits, insts;
    bool cut;               /* more than FUZZ_MAX_REFS: the run gets the first ones only */
    GError *error;          /* the reader's error within the first FUZZ_MAX_REFS, if any */
    GArray *kept;           /* MemRef: the references the run will see */
} Expect;

static uint64_t fuzz_lines(const MemRef *r)
{
    /* the reader guarantees addr + size - 1 does not wrap; check it rather than trust it */
    if (r->size < 1 || r->addr > UINT64_MAX - (r->size - 1))
        return 0;
    return ((r->addr + r->size - 1) / FUZZ_LINE) - (r->addr / FUZZ_LINE) + 1;
}

/* Counts as trace_core.c groups them: data references before the first I record are one
 * instruction each; an I record and every data reference after it, up to the next I, are one
 * instruction (cut into fetch-queue entries of FUZZ_MAX_DATA, which do not count again). */
static void fuzz_expect(const char *path, Expect *x)
{
    memset(x, 0, sizeof *x);
    x->kept = g_array_new(FALSE, FALSE, sizeof(MemRef));
    LackeyReader *r = lackey_open(path, &x->error);
    if (r == NULL) {
        fuzz_check(x->error != NULL, path, "open failed without an error");
        return;
    }
    MemRef buf[256];
    size_t n;
    bool seen_fetch = false;
    while (!x->cut && (n = lackey_read(r, buf, G_N_ELEMENTS(buf), &x->error)) > 0) {
        fuzz_check(x->error == NULL, path, "references returned together with an error");
        for (size_t i = 0; i < n; i++) {
            if (x->refs == FUZZ_MAX_REFS) {
                x->cut = true;
                break;
            }
            const MemRef *m = &buf[i];
            uint64_t lines = fuzz_lines(m);
            fuzz_check(lines >= 1, path, "the reader handed out a reference that wraps past 2^64");
            fuzz_check(m->kind <= MEMREF_MODIFY, path, "unknown kind");
            x->refs++;
            g_array_append_val(x->kept, *m);
            uint64_t split = lines > 1;
            switch (m->kind) {
            case MEMREF_IFETCH:
                x->ifetches++;
                x->insts++;
                x->splits += split;
                seen_fetch = true;
                break;
            case MEMREF_LOAD:
                x->loads++;
                x->load_parts += lines;
                x->splits += split;
                break;
            case MEMREF_STORE:
                x->stores++;
                x->store_parts += lines;
                x->splits += split;
                break;
            default:
                x->modifies++;
                x->load_parts += lines;
                x->store_parts += lines;
                x->splits += split;         /* one reference: its two halves count once */
                break;
            }
            if (m->kind != MEMREF_IFETCH && !seen_fetch)
                x->insts++;
        }
    }
    if (x->cut)
        g_clear_error(&x->error);
    lackey_close(r);
}

/* The first FUZZ_MAX_REFS references as a plain lackey file. */
static char *fuzz_write_cut(const Expect *x, const char *dir)
{
    static const char *const fmt[] = { "I  %" G_GINT64_MODIFIER "x,%u\n",
                                       " L %" G_GINT64_MODIFIER "x,%u\n",
                                       " S %" G_GINT64_MODIFIER "x,%u\n",
                                       " M %" G_GINT64_MODIFIER "x,%u\n" };
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < x->kept->len; i++) {
        const MemRef *m = &g_array_index(x->kept, MemRef, i);
        g_string_append_printf(s, fmt[m->kind], m->addr, m->size);
    }
    char *path = g_build_filename(dir, "cut.lackey", NULL);
    if (!g_file_set_contents(path, s->str, (gssize)s->len, NULL)) {
        fprintf(stderr, "fuzz_tracecore: cannot write %s\n", path);
        exit(2);
    }
    g_string_free(s, TRUE);
    return path;
}

static uint64_t fuzz_stat(SystemRun *run, const char *name, const char *path)
{
    StatSet s;
    stats_init(&s);
    system_collect_stats(run, &s);
    const StatEntry *e = stats_find(&s, name);
    fuzz_check(e != NULL && e->is_int, path, name);
    uint64_t v = e->u;
    stats_clear(&s);
    return v;
}

static void fuzz_one(const char *input, const char *tmpdir)
{
    Expect x;
    fuzz_expect(input, &x);
    char *path = x.cut ? fuzz_write_cut(&x, tmpdir) : g_strdup(input);
    /* the trace path goes into YAML: quote it as a single-quoted scalar */
    GString *q = g_string_new("'");
    for (const char *p = path; *p; p++) {
        if (*p == '\'')
            g_string_append_c(q, '\'');
        g_string_append_c(q, *p);
    }
    g_string_append_c(q, '\'');
    char *yaml = g_strdup_printf(fuzz_config, q->str);
    g_string_free(q, TRUE);

    GError *e = NULL;
    CfgNode *root = cfg_load_string("fuzz.yaml", yaml, NULL, &e);
    if (root == NULL) {
        fprintf(stderr, "fuzz_tracecore: fixed config rejected: %s\n", e->message);
        abort();
    }
    SystemRun *run = system_build(root, -1, NULL, NULL, &e);
    bool ran = run != NULL && system_run(run, &e);

    if (x.error != NULL) {
        /* the reader rejected the trace: the run fails the same way, naming the position */
        fuzz_check(!ran && e != NULL, input, "a trace the reader rejects ran to the end");
        fuzz_check(e->domain == ARCHSIM_TRACE_ERROR, input, "wrong error domain");
        fuzz_check(e->code == x.error->code, input, "exit code differs from the reader's");
        fuzz_check(e->code == ARCHSIM_EXIT_DATAERR || e->code == ARCHSIM_EXIT_NOINPUT, input,
                   "a trace error that is neither 65 nor 66");
        fuzz_check(strstr(e->message, x.error->message) != NULL, input,
                   "the run's message is not the reader's");
        fuzz_check(g_str_has_prefix(x.error->message, path) &&
                       g_ascii_isdigit(x.error->message[strlen(path) + 1]) &&
                       x.error->message[strlen(path)] == ':',
                   input, "the reader's message names no line");
    } else if (x.refs == 0) {
        fuzz_check(!ran && e != NULL && e->code == ARCHSIM_EXIT_DATAERR &&
                       strstr(e->message, "holds no memory references") != NULL,
                   input, "an empty trace did not fail with 65");
    } else {
        if (!ran)
            fprintf(stderr, "fuzz_tracecore: %s: %s\n", input, e ? e->message : "?");
        fuzz_check(ran, input, "a good trace failed (deadlock or error)");
        uint64_t insts = fuzz_stat(run, "core.insts", input);
        uint64_t cycles = fuzz_stat(run, "core.cycles", input);
        fuzz_check(fuzz_stat(run, "core.ifetches", input) == x.ifetches, input, "ifetches");
        fuzz_check(fuzz_stat(run, "core.loads", input) == x.loads, input, "loads");
        fuzz_check(fuzz_stat(run, "core.stores", input) == x.stores, input, "stores (dropped?)");
        fuzz_check(fuzz_stat(run, "core.modifies", input) == x.modifies, input, "modifies");
        fuzz_check(insts == x.insts, input, "instructions");
        fuzz_check(fuzz_stat(run, "core.split_refs", input) == x.splits, input, "split_refs");
        /* one latency sample per reference once all its parts are back (the parts themselves:
         * the L1D's reads and writes below) */
        fuzz_check(fuzz_stat(run, "core.load_latency::samples", input) == x.loads + x.modifies,
                   input, "a load was issued but never completed");
        fuzz_check(fuzz_stat(run, "core.store_latency::samples", input) == x.stores + x.modifies,
                   input, "a store was issued but never acknowledged");
        fuzz_check(fuzz_stat(run, "core.ifetch_latency::samples", input) == x.ifetches, input,
                   "a fetch was issued but never completed");
        fuzz_check(fuzz_stat(run, "l1d.reads", input) == x.load_parts &&
                       fuzz_stat(run, "l1d.writes", input) == x.store_parts,
                   input, "the L1D did not see every part");
        fuzz_check(cycles >= 1 && (double)cycles >= (double)insts * 1.5 - 1.5, input,
                   "more than one instruction per cpi retired");
    }
    if (getenv("FUZZ_VERBOSE") != NULL)
        fprintf(stderr, "%s: %" G_GUINT64_FORMAT " references%s, %s\n", input, x.refs,
                x.cut ? " (cut)" : "", x.error ? x.error->message : e ? e->message : "ran");
    g_clear_error(&e);
    g_clear_error(&x.error);
    if (run != NULL)
        system_free(run);           /* system_build owns root, also when it fails */
    g_array_free(x.kept, TRUE);
    if (x.cut)
        g_unlink(path);
    g_free(path);
    g_free(yaml);
}

int main(int argc, char **argv)
{
    char *tmpdir = g_dir_make_tmp("fuzz-tracecore-XXXXXX", NULL);
    if (tmpdir == NULL) {
        fprintf(stderr, "fuzz_tracecore: cannot make a scratch directory\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        /* absolute, so that the run resolves the config's trace path to the same name */
        char *abs = g_canonicalize_filename(argv[i], NULL);
        fuzz_one(abs, tmpdir);
        g_free(abs);
    }
    g_rmdir(tmpdir);
    g_free(tmpdir);
    return 0;
}
