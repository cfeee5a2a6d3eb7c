/* cgsim.c: functional I1/D1/LL caches that reproduce cachegrind's miss counts (see cgsim.h).
 *
 * Rules are valgrind 3.19 cachegrind's (cg_sim.c, cg_main.c, cg_arch.c; the Cachegrind manual) as
 * written down in docs/references.md §1, validated there against cachegrind 3.19 on a matmul
 * trace, and tests/unit/test_cgsim.c re-checks all nine counters on several geometries.
 */
#include "cgsim.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/cli/cli.h"
#include "../../sim/error.h"
#include "../../sim/input.h"
#include "../../traces/lackey.h"
#include "tagstore.h"

/* One cache level: the one tag store's LRU-stack layout (tagstore.h), which keeps each set's
 * block numbers most recently used first, starts with block 0 in every way of set 0 as
 * cachegrind does, and compares 32-bit tags while every block number fits. */
typedef struct {
    TagStack st;
    uint32_t line_bits;
} CgCache;

struct CgSim {
    CgCache i1, d1, ll;
    /* Cachegrind clamps the size of memory-touching helper calls (fxsave and friends, which lackey
     * reports at full size) to the smallest line size and never sees a plain access wider than
     * that, so clamping every size to it is exact and bounds a reference to two lines. */
    uint32_t max_size;
    uint64_t acc[4], miss1[4], missll[4];   /* by MemRefKind: accesses, L1 and LL misses */
};

static bool cg_is_pow2(uint64_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

static uint32_t cg_log2(uint64_t x)
{
    uint32_t b = 0;
    while ((UINT64_C(1) << b) < x)
        b++;
    return b;
}

/* The geometry checks of cachegrind's option parser, each with its own message. Values are
 * limited to INT_MAX because cachegrind stores them in ints. */
static bool cg_geom_check(const CgGeom *g, char **problem)
{
    char *msg = NULL;
    if (g->size == 0 || g->assoc == 0 || g->line == 0)
        msg = g_strdup("size, associativity and line size must all be >= 1");
    else if (g->size > INT_MAX || g->assoc > INT_MAX || g->line > INT_MAX)
        msg = g_strdup_printf("values must be at most %d", INT_MAX);
    else if (!cg_is_pow2(g->line))
        msg = g_strdup_printf("line size %" G_GUINT32_FORMAT " is not a power of two", g->line);
    else if (g->line < 16)
        msg = g_strdup_printf("line size %" G_GUINT32_FORMAT " is below the minimum of 16",
                              g->line);
    else if (g->size <= g->line)
        msg = g_strdup_printf("cache size %" G_GUINT64_FORMAT " must be larger than the line "
                              "size %" G_GUINT32_FORMAT, g->size, g->line);
    else if (g->assoc > g->size / g->line)
        msg = g_strdup_printf("associativity %" G_GUINT32_FORMAT " exceeds size / line = %"
                              G_GUINT64_FORMAT, g->assoc, g->size / g->line);
    else if (g->size % ((uint64_t)g->assoc * g->line) != 0)
        msg = g_strdup_printf("size %" G_GUINT64_FORMAT " is not a multiple of assoc * line = %"
                              G_GUINT64_FORMAT, g->size, (uint64_t)g->assoc * g->line);
    else if (!cg_is_pow2(g->size / ((uint64_t)g->assoc * g->line)))
        msg = g_strdup_printf("set count %" G_GUINT64_FORMAT " (size / (assoc * line)) is not a "
                              "power of two", g->size / ((uint64_t)g->assoc * g->line));
    if (msg == NULL)
        return true;
    if (problem != NULL)
        *problem = msg;
    else
        g_free(msg);
    return false;
}

/* Reads a decimal number of at most 10 digits; returns the end or NULL. No sign, no spaces. */
static const char *cg_parse_uint(const char *p, uint64_t *out)
{
    uint64_t v = 0;
    int n = 0;
    while (*p >= '0' && *p <= '9' && n < 11) {
        v = v * 10 + (uint64_t)(*p - '0');
        p++;
        n++;
    }
    if (n == 0 || n > 10)
        return NULL;
    *out = v;
    return p;
}

bool cg_geom_parse(const char *text, CgGeom *out, char **problem)
{
    g_return_val_if_fail(text != NULL && out != NULL, false);
    uint64_t v[3];
    const char *p = text;
    for (int i = 0; i < 3; i++) {
        p = cg_parse_uint(p, &v[i]);
        if (p == NULL || *p != (i < 2 ? ',' : '\0')) {
            if (problem != NULL)
                *problem = g_strdup("expected SIZE,ASSOC,LINE in bytes, e.g. 32768,8,64");
            return false;
        }
        p++;
    }
    if (v[1] > UINT32_MAX || v[2] > UINT32_MAX) {
        if (problem != NULL)
            *problem = g_strdup_printf("values must be at most %d", INT_MAX);
        return false;
    }
    CgGeom g = { .size = v[0], .assoc = (uint32_t)v[1], .line = (uint32_t)v[2] };
    if (!cg_geom_check(&g, problem))
        return false;
    *out = g;
    return true;
}

static bool cg_cache_init(CgCache *c, const CgGeom *g, const char *name, GError **error)
{
    char *problem = NULL;
    if (!cg_geom_check(g, &problem)) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s: %s", name, problem);
        g_free(problem);
        return false;
    }
    uint64_t sets = g->size / ((uint64_t)g->assoc * g->line);
    if (!tag_stack_init(&c->st, sets, g->assoc)) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_SOFTWARE,
                    "%s: out of memory for %" G_GUINT64_FORMAT " tags", name, sets * g->assoc);
        return false;
    }
    c->line_bits = cg_log2(g->line);
    return true;
}

CgSim *cgsim_new(const CgGeom *i1, const CgGeom *d1, const CgGeom *ll, GError **error)
{
    g_return_val_if_fail(i1 != NULL && d1 != NULL && ll != NULL, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);
    CgSim *s = g_new0(CgSim, 1);
    if (!cg_cache_init(&s->i1, i1, "I1", error) || !cg_cache_init(&s->d1, d1, "D1", error) ||
        !cg_cache_init(&s->ll, ll, "LL", error)) {
        cgsim_free(s);
        return NULL;
    }
    s->max_size = MIN(MIN(i1->line, d1->line), ll->line);
    return s;
}

void cgsim_free(CgSim *s)
{
    if (s == NULL)
        return;
    tag_stack_free(&s->i1.st);
    tag_stack_free(&s->d1.st);
    tag_stack_free(&s->ll.st);
    g_free(s);
}

/* One access of size bytes (1 <= size <= the smallest line size). A reference that straddles two
 * lines updates both, but is one access that misses if either line missed. A: the cache's
 * associativity where the caller specializes for it, else 0 (tag_stack_miss_a). */
static inline __attribute__((always_inline)) bool cg_ref_is_miss(CgCache *c, uint64_t addr,
                                                                 uint32_t size, uint32_t A)
{
    uint64_t b1 = addr >> c->line_bits;
    uint64_t b2 = (addr + size - 1) >> c->line_bits;
    if (G_LIKELY(b1 == b2))
        return tag_stack_miss_a(&c->st, b1, A);
    bool m1 = tag_stack_miss_a(&c->st, b1, A);
    bool m2 = tag_stack_miss_a(&c->st, b2, A);
    return m1 || m2;
}

/* References in order: I1 or D1 first; LL only on an L1 miss, with the same address and size.
 * LL is never told about L1 evictions (no back-invalidation, no write-backs), as in cachegrind.
 * Counts go by MemRefKind (cgsim_counts folds M into the reads: a load and a store of one address
 * by one instruction is one read; a store is simulated exactly like a read: write-allocate, no
 * dirty state). The caches' geometry and the counts are in locals: the compiler keeps them in
 * registers (through s, every count written could alias a field).
 * L1A and LLA: the L1s' and the LL's associativity when the caller specializes for them (the
 * loop then indexes sets by shifts and picks the vector path at compile time), else 0. */
static inline __attribute__((always_inline)) void cg_batch(CgSim *s, const MemRef *refs, size_t n,
                                                           uint32_t L1A, uint32_t LLA)
{
    CgCache l1[2] = { s->i1, s->d1 }, ll = s->ll;
    uint64_t acc[4], miss1[4], missll[4];
    memcpy(acc, s->acc, sizeof acc);
    memcpy(miss1, s->miss1, sizeof miss1);
    memcpy(missll, s->missll, sizeof missll);
    uint32_t max_size = s->max_size;
    for (size_t i = 0; i < n; i++) {
        uint32_t size = refs[i].size, kind = refs[i].kind;
        g_assert(kind <= MEMREF_MODIFY);
        if (G_UNLIKELY(size - 1 >= max_size))          /* 0, or above the smallest line */
            size = size == 0 ? 1 : max_size;
        uint64_t addr = refs[i].addr;
        acc[kind]++;
        if (cg_ref_is_miss(&l1[kind != MEMREF_IFETCH], addr, size, L1A)) {
            miss1[kind]++;
            if (cg_ref_is_miss(&ll, addr, size, LLA))
                missll[kind]++;
        }
    }
    s->i1 = l1[0];
    s->d1 = l1[1];
    s->ll = ll;
    memcpy(s->acc, acc, sizeof acc);
    memcpy(s->miss1, miss1, sizeof miss1);
    memcpy(s->missll, missll, sizeof missll);
}

void cgsim_access(CgSim *s, const MemRef *ref)
{
    cg_batch(s, ref, 1, 0, 0);
}

void cgsim_access_batch(CgSim *s, const MemRef *refs, size_t n)
{
    /* cachegrind's default shape (8-way I1 and D1, 16-way LL) gets a loop of its own */
    if (s->i1.st.assoc == 8 && s->d1.st.assoc == 8 && s->ll.st.assoc == 16)
        cg_batch(s, refs, n, 8, 16);
    else
        cg_batch(s, refs, n, 0, 0);
}

CgCounts cgsim_counts(const CgSim *s)
{
    return (CgCounts){
        .ir = s->acc[MEMREF_IFETCH], .i1mr = s->miss1[MEMREF_IFETCH],
        .ilmr = s->missll[MEMREF_IFETCH],
        .dr = s->acc[MEMREF_LOAD] + s->acc[MEMREF_MODIFY],
        .d1mr = s->miss1[MEMREF_LOAD] + s->miss1[MEMREF_MODIFY],
        .dlmr = s->missll[MEMREF_LOAD] + s->missll[MEMREF_MODIFY],
        .dw = s->acc[MEMREF_STORE], .d1mw = s->miss1[MEMREF_STORE],
        .dlmw = s->missll[MEMREF_STORE],
    };
}

/* ---- `archsim cachegrind` ---- */

#define CG_DEFAULT_I1 "32768,8,64"
#define CG_DEFAULT_D1 "32768,8,64"
#define CG_DEFAULT_LL "1048576,16,64"
#define CG_BATCH 8192   /* references per lackey_read: 128 KiB of MemRef, stays in L2 */

static const CliHelp cg_cli_help = {
    .cmd = "cachegrind",
    .usage = "archsim cachegrind [--I1=S,A,L] [--D1=S,A,L] [--LL=S,A,L] [-q] TRACE|RECORDING\n"
             "       archsim cachegrind [--I1=S,A,L] [--D1=S,A,L] [--LL=S,A,L] [-q] -- PROGRAM [ARGS...]",
    .summary = "Print cachegrind's nine I1/D1/LL counters for a lackey trace or a program.",
    .details =
    "Runs a valgrind lackey trace (valgrind --tool=lackey --trace-mem=yes --log-file=TRACE, plain\n"
    "or gzip) through I1, D1 and LL caches with cachegrind's rules (valgrind 3.19) and prints\n"
    "cachegrind's nine counters.\n"
    "\n"
    "With -- PROGRAM [ARGS...], runs PROGRAM, built with tools/archsim-cc (compile-time\n"
    "instrumentation: archsim-cc -O2 prog.c -o prog), and simulates its data references as it\n"
    "runs, from the recording runtime's stream, much faster than lackey. It sees what the\n"
    "compiler instrumented: the program's own loads and stores (atomics as well: a locked\n"
    "read-modify-write is one read, as cachegrind counts it) and its memcpy/memset calls (in\n"
    "16-byte accesses), not instruction fetches (Ir, I1mr and ILmr print as -), register spills,\n"
    "libc or the loader; docs/cachegrind.md measures the difference. The main thread is simulated\n"
    "as it runs, other threads after the program ends, one after another. A lackey trace stays\n"
    "the exact path. PROGRAM's output goes where archsim's goes; -q drops the note on stderr.\n"
    "A RECORDING (a directory of `archsim trace record -o DIR -- PROGRAM`) is simulated the same\n"
    "way, from its files.\n"
    "\n"
    "Geometries are SIZE,ASSOC,LINE in bytes; the set count must be a power of two and LINE at\n"
    "least 16. Defaults: --I1=" CG_DEFAULT_I1 " --D1=" CG_DEFAULT_D1 " --LL=" CG_DEFAULT_LL ".\n"
    "Cachegrind picks its defaults from the host CPU, so give both tools the same three options.\n"
    "\n"
    "Output (stdout): a header line and a line of values, in the order of the \"summary:\" line\n"
    "of cachegrind's output file, for example (workloads/matmul, default geometry):\n"
    "  Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n"
    "  1239281 1363 1340 292538 24727 988 17166 3487 1885\n"
    "Ir: instruction fetches (lackey I); Dr: reads (L and M, one read each); Dw: writes (S);\n"
    "*1mr/*1mw: L1 misses; *Lmr/*Lmw: LL misses (LL sees only L1 misses).\n"
    "\n"
    "Example:\n"
    "  archsim cachegrind --D1=65536,8,64 traces/samples/matmul64.lackey.gz\n"
    "\n"
    "Exit status: 0 success, 64 bad command line, 65 malformed or truncated trace, or one\n"
    "without a single memory reference (as archsim run), or a PROGRAM that recorded nothing (not\n"
    "built with archsim-cc), 66 trace missing or unreadable, or PROGRAM cannot be run, 73 no\n"
    "scratch directory, 74 output could not be written; PROGRAM's own non-zero status when it\n"
    "fails (the counters are printed first).\n",
};

static int cg_cli_usage_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

static int cg_cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    cli_usage_error("cachegrind", "%s", msg);
    g_free(msg);
    return ARCHSIM_EXIT_USAGE;
}

/* Parses one --X1=S,A,L value (or its default) into g; prints the usage error itself. */
static bool cg_cli_geom(const char *option, const char *text, CgGeom *g)
{
    char *problem = NULL;
    if (cg_geom_parse(text, g, &problem))
        return true;
    cg_cli_usage_error("--%s=%s: %s", option, text, problem);
    g_free(problem);
    return false;
}

/* Simulates the whole trace at path into s. */
static bool cg_cli_run(CgSim *s, const char *path, GError **error)
{
    LackeyReader *r = lackey_open(path, error);
    if (r == NULL)
        return false;
    MemRef *buf = g_new(MemRef, CG_BATCH);
    size_t n;
    uint64_t refs = 0;
    GError *err = NULL;
    while ((n = lackey_read(r, buf, CG_BATCH, &err)) > 0) {
        cgsim_access_batch(s, buf, n);
        refs += n;
    }
    g_free(buf);
    lackey_close(r);
    if (err != NULL) {
        g_propagate_error(error, err);
        return false;
    }
    /* as archsim run (trace-core): a trace without a single reference (a crashed recording,
     * only ==pid== lines) is bad input, not nine zeros */
    if (refs == 0) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                    "%s: the trace holds no memory references", path);
        return false;
    }
    return true;
}

/* `archsim cachegrind [options] -- PROGRAM [ARGS]` once the options are parsed: args holds what
 * is left of them (only the command name may be). */
static int cg_cli_program_mode(int pargc, char **pargv, char **args, GOptionEntry *entries,
                               const char *i1_text, const char *d1_text, const char *ll_text,
                               bool quiet)
{
    if (args[1] != NULL)
        return cg_cli_usage_error("unexpected argument '%s' before -- (a TRACE, or -- PROGRAM)",
                                  args[1]);
    if (pargc < 1 || !*pargv[0])
        return cg_cli_usage_error("missing PROGRAM after --");
    if (!cli_check_empty("cachegrind", entries))
        return ARCHSIM_EXIT_USAGE;
    CgGeom i1, d1, ll;
    if (!cg_cli_geom("I1", i1_text ? i1_text : CG_DEFAULT_I1, &i1) ||
        !cg_cli_geom("D1", d1_text ? d1_text : CG_DEFAULT_D1, &d1) ||
        !cg_cli_geom("LL", ll_text ? ll_text : CG_DEFAULT_LL, &ll))
        return ARCHSIM_EXIT_USAGE;
    GError *err = NULL;
    CgSim *s = cgsim_new(&i1, &d1, &ll, &err);
    if (s == NULL) {
        fprintf(stderr, "%s\n", err->message);
        int rc = archsim_exit_code(err);
        g_error_free(err);
        return rc;
    }
    char **pv = g_new0(char *, (size_t)pargc + 1);
    memcpy(pv, pargv, sizeof(char *) * (size_t)pargc);
    CgCounts c;
    int status = 0, rc = ARCHSIM_EXIT_OK;
    if (!cgsim_cli_program(s, pv, quiet, &c, &status, &err)) {
        fprintf(stderr, "archsim cachegrind: %s\n", err->message);
        rc = archsim_exit_code(err);
        g_error_free(err);
        if (status != 0 && rc == ARCHSIM_EXIT_DATAERR)
            rc = status;                /* the program failed before recording anything */
    } else {
        printf("Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n");
        printf("- - - %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
               G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", c.dr, c.d1mr,
               c.dlmr, c.dw, c.d1mw, c.dlmw);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "archsim cachegrind: cannot write output: %s\n", g_strerror(errno));
            rc = ARCHSIM_EXIT_IOERR;
        } else if (status != 0) {
            fprintf(stderr, "archsim cachegrind: %s exited with status %d\n", pv[0], status);
            rc = status;
        }
    }
    g_free(pv);
    cgsim_free(s);
    return rc;
}

int cgsim_cli_main(int argc, char **argv)
{
    char *i1_text = NULL, *d1_text = NULL, *ll_text = NULL;
    gboolean help = FALSE, quiet = FALSE;
    GOptionEntry entries[] = {
        { "I1", 0, 0, G_OPTION_ARG_STRING, &i1_text,
          "L1 instruction cache (default " CG_DEFAULT_I1 ")", "S,A,L" },
        { "D1", 0, 0, G_OPTION_ARG_STRING, &d1_text,
          "L1 data cache (default " CG_DEFAULT_D1 ")", "S,A,L" },
        { "LL", 0, 0, G_OPTION_ARG_STRING, &ll_text,
          "last-level cache (default " CG_DEFAULT_LL ")", "S,A,L" },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
          "with -- PROGRAM: no note on stderr about what compile-time instrumentation sees",
          NULL },
        { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "Show this help and exit", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GOptionContext *ctx = g_option_context_new("TRACE");
    /* GLib's built-in --help calls exit(); ours returns, so the caller decides. */
    g_option_context_set_help_enabled(ctx, FALSE);
    g_option_context_add_main_entries(ctx, entries, NULL);

    /* "--" ends the options: what follows is a program and its arguments (program mode) */
    int dashdash = -1;
    for (int i = 1; i < argc && dashdash < 0; i++)
        if (strcmp(argv[i], "--") == 0)
            dashdash = i;
    int nopt = dashdash >= 0 ? dashdash : argc;
    /* parse_strv owns and edits its vector; give it a copy, not the caller's argv. */
    char **args = g_new0(char *, (size_t)MAX(nopt, 1) + 1);
    for (int i = 0; i < nopt; i++)
        args[i] = g_strdup(argv[i]);
    if (nopt == 0)
        args[0] = g_strdup("cachegrind");

    int rc = ARCHSIM_EXIT_OK;
    GError *err = NULL;
    CgSim *s = NULL;
    CgGeom i1, d1, ll;
    if (!g_option_context_parse_strv(ctx, &args, &err)) {
        rc = cg_cli_usage_error("%s", err->message);
        goto out;
    }
    if (help) {
        cli_help_print(stdout, &cg_cli_help, entries);
        if (fflush(stdout) != 0 || ferror(stdout))
            rc = ARCHSIM_EXIT_IOERR;
        goto out;
    }
    if (dashdash >= 0) {
        rc = cg_cli_program_mode(argc - dashdash - 1, argv + dashdash + 1, args, entries, i1_text,
                                 d1_text, ll_text, quiet);
        goto out;
    }
    guint first = 1;
    guint nargs = g_strv_length(args);
    if (nargs < 2) {
        rc = cg_cli_usage_error("missing TRACE");
        goto out;
    }
    if (nargs > 2) {
        rc = cg_cli_usage_error("unexpected argument '%s' (one TRACE only)", args[first + 1]);
        goto out;
    }
    if (!cli_check_empty("cachegrind", entries)) {
        rc = ARCHSIM_EXIT_USAGE;
        goto out;
    }
    if (!*args[first]) {
        rc = cg_cli_usage_error("empty TRACE");
        goto out;
    }
    if (!cg_cli_geom("I1", i1_text ? i1_text : CG_DEFAULT_I1, &i1) ||
        !cg_cli_geom("D1", d1_text ? d1_text : CG_DEFAULT_D1, &d1) ||
        !cg_cli_geom("LL", ll_text ? ll_text : CG_DEFAULT_LL, &ll)) {
        rc = ARCHSIM_EXIT_USAGE;
        goto out;
    }
    s = cgsim_new(&i1, &d1, &ll, &err);
    char *trace = sim_input_find(args[first]);      /* the cwd first, then the data directory */
    bool recording = g_file_test(trace, G_FILE_TEST_IS_DIR);
    uint64_t refs = 0;
    bool ran = s != NULL && (recording ? cgsim_run_recording(s, trace, &refs, &err)
                                       : cg_cli_run(s, trace, &err));
    if (ran && recording && refs == 0) {
        g_set_error(&err, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                    "%s: the recording holds no memory references", trace);
        ran = false;
    }
    g_free(trace);
    if (!ran) {
        fprintf(stderr, "%s\n", err->message);
        rc = archsim_exit_code(err);
        goto out;
    }
    CgCounts c = cgsim_counts(s);
    printf("Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n");
    if (recording)          /* a recording holds data references only, as -- PROGRAM does */
        printf("- - - %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
               G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", c.dr, c.d1mr,
               c.dlmr, c.dw, c.d1mw, c.dlmw);
    else
    printf("%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
           " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
           " %" G_GUINT64_FORMAT "\n", c.ir, c.i1mr, c.ilmr, c.dr, c.d1mr, c.dlmr, c.dw, c.d1mw,
           c.dlmw);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "archsim cachegrind: cannot write output: %s\n", g_strerror(errno));
        rc = ARCHSIM_EXIT_IOERR;
    }
out:
    cgsim_free(s);
    g_clear_error(&err);
    g_strfreev(args);
    g_free(i1_text);
    g_free(d1_text);
    g_free(ll_text);
    g_option_context_free(ctx);
    return rc;
}
