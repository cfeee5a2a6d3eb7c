/* test_cgsim.c: CUnit tests for the cachegrind-exact cache model (models/cache/cgsim.c).
 *
 * Golden: the committed matmul trace through every geometry in workloads/matmul/cachegrind.summary
 * must give cachegrind 3.19's nine counters exactly. Rules: tiny hand traces for straddles, "M",
 * LL-only-on-L1-miss, LRU order, cold block 0 and the size clamp. Also geometry parsing and the
 * `archsim cachegrind` command line. Run from the repo root.
 */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../models/cache/cgsim.h"
#include "../../sim/error.h"
#include "../../traces/lackey.h"

#define SUMMARY "workloads/matmul/cachegrind.summary"
#define SAMPLE "traces/samples/matmul64.lackey.gz"

/* ---- helpers ---- */

static CgGeom tc_geom(const char *text)
{
    CgGeom g;
    char *problem = NULL;
    if (!cg_geom_parse(text, &g, &problem))
        g_error("bad geometry %s in a test: %s", text, problem);
    return g;
}

static CgSim *tc_new(const char *i1, const char *d1, const char *ll)
{
    CgGeom gi = tc_geom(i1), gd = tc_geom(d1), gl = tc_geom(ll);
    GError *err = NULL;
    CgSim *s = cgsim_new(&gi, &gd, &gl, &err);
    if (s == NULL)
        g_error("cgsim_new: %s", err->message);
    return s;
}

static void tc_ref(CgSim *s, MemRefKind kind, uint64_t addr, uint32_t size)
{
    MemRef r = { .addr = addr, .size = size, .kind = kind };
    cgsim_access(s, &r);
}

/* ---- geometry ---- */

static void test_geom_parse(void)
{
    CgGeom g;
    char *problem = NULL;
    CU_ASSERT_TRUE(cg_geom_parse("32768,8,64", &g, &problem));
    CU_ASSERT_EQUAL(g.size, 32768);
    CU_ASSERT_EQUAL(g.assoc, 8);
    CU_ASSERT_EQUAL(g.line, 64);
    CU_ASSERT_TRUE(cg_geom_parse("49152,12,64", &g, NULL));     /* 64 sets of 12 ways */
    CU_ASSERT_TRUE(cg_geom_parse("1024,16,64", &g, NULL));      /* one set: fully associative */

    static const struct {
        const char *text, *problem;
    } bad[] = {
        { "32768,8", "expected SIZE,ASSOC,LINE in bytes, e.g. 32768,8,64" },
        { "32768,8,64,", "expected SIZE,ASSOC,LINE in bytes, e.g. 32768,8,64" },
        { " 32768,8,64", "expected SIZE,ASSOC,LINE in bytes, e.g. 32768,8,64" },
        { "32k,8,64", "expected SIZE,ASSOC,LINE in bytes, e.g. 32768,8,64" },
        { "-1,8,64", "expected SIZE,ASSOC,LINE in bytes, e.g. 32768,8,64" },
        { "0,8,64", "size, associativity and line size must all be >= 1" },
        { "32768,8,48", "line size 48 is not a power of two" },
        { "32768,8,8", "line size 8 is below the minimum of 16" },
        { "64,1,64", "cache size 64 must be larger than the line size 64" },
        { "1024,32,64", "associativity 32 exceeds size / line = 16" },
        { "32768,7,64", "size 32768 is not a multiple of assoc * line = 448" },
        { "24576,8,64", "set count 48 (size / (assoc * line)) is not a power of two" },
        { "4294967296,8,64", "values must be at most 2147483647" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        problem = NULL;
        CU_ASSERT_FALSE(cg_geom_parse(bad[i].text, &g, &problem));
        CU_ASSERT_PTR_NOT_NULL(problem);
        if (problem != NULL) {
            if (strcmp(problem, bad[i].problem) != 0)
                fprintf(stderr, "\n  %s: want \"%s\", got \"%s\"\n", bad[i].text,
                        bad[i].problem, problem);
            CU_ASSERT_STRING_EQUAL(problem, bad[i].problem);
        }
        g_free(problem);
    }
}

static void test_new_rejects_bad_geometry(void)
{
    CgGeom ok = { 32768, 8, 64 }, bad = { 24576, 8, 64 };
    GError *err = NULL;
    CU_ASSERT_PTR_NULL(cgsim_new(&ok, &ok, &bad, &err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    CU_ASSERT_EQUAL(err->domain, ARCHSIM_CONFIG_ERROR);
    CU_ASSERT_EQUAL(err->code, ARCHSIM_EXIT_CONFIG);
    CU_ASSERT_STRING_EQUAL(err->message,
                           "LL: set count 48 (size / (assoc * line)) is not a power of two");
    g_clear_error(&err);
}

/* ---- rules on hand traces ---- */

/* A reference over a line boundary looks up both lines but is one access and at most one miss. */
static void test_straddle_is_one_access(void)
{
    CgSim *s = tc_new("32768,8,64", "32768,8,64", "1048576,16,64");
    tc_ref(s, MEMREF_LOAD, 0x1000 + 60, 8);     /* lines 0x1000 and 0x1040, both cold */
    CgCounts c = cgsim_counts(s);
    CU_ASSERT_EQUAL(c.dr, 1);
    CU_ASSERT_EQUAL(c.d1mr, 1);
    CU_ASSERT_EQUAL(c.dlmr, 1);
    tc_ref(s, MEMREF_LOAD, 0x1040, 8);          /* both lines were filled */
    tc_ref(s, MEMREF_LOAD, 0x1000, 8);
    c = cgsim_counts(s);
    CU_ASSERT_EQUAL(c.dr, 3);
    CU_ASSERT_EQUAL(c.d1mr, 1);
    tc_ref(s, MEMREF_STORE, 0x1070, 32);        /* 0x1040 hit, 0x1080 miss: one write miss */
    c = cgsim_counts(s);
    CU_ASSERT_EQUAL(c.dw, 1);
    CU_ASSERT_EQUAL(c.d1mw, 1);
    CU_ASSERT_EQUAL(c.dlmw, 1);
    tc_ref(s, MEMREF_IFETCH, 0x4000 + 62, 5);   /* instruction over a line boundary */
    c = cgsim_counts(s);
    CU_ASSERT_EQUAL(c.ir, 1);
    CU_ASSERT_EQUAL(c.i1mr, 1);
    CU_ASSERT_EQUAL(c.ilmr, 1);
    cgsim_free(s);
}

/* "M" (load and store of one address by one instruction) is one read, simulated once. */
static void test_modify_is_one_read(void)
{
    CgSim *s = tc_new("32768,8,64", "32768,8,64", "1048576,16,64");
    tc_ref(s, MEMREF_MODIFY, 0x2000, 8);
    tc_ref(s, MEMREF_MODIFY, 0x2000, 8);
    CgCounts c = cgsim_counts(s);
    CU_ASSERT_EQUAL(c.dr, 2);
    CU_ASSERT_EQUAL(c.d1mr, 1);
    CU_ASSERT_EQUAL(c.dlmr, 1);
    CU_ASSERT_EQUAL(c.dw, 0);
    CU_ASSERT_EQUAL(c.d1mw, 0);
    cgsim_free(s);
}

/* LL is looked up only on an L1 miss: an L1 hit must not refresh LL's LRU order. LL here is one
 * set of two ways, so the order decides which block the next LL miss evicts. */
static void test_ll_only_on_l1_miss(void)
{
    CgSim *s = tc_new("32768,8,64", "128,2,64", "128,2,64");
    const uint64_t a = 0x10000, b = 0x20000, c = 0x30000;
    tc_ref(s, MEMREF_LOAD, a, 8);   /* D1 miss, LL miss: LL [a] */
    tc_ref(s, MEMREF_LOAD, b, 8);   /* D1 miss, LL miss: LL [b a] */
    tc_ref(s, MEMREF_LOAD, a, 8);   /* D1 hit: LL untouched, still [b a] */
    tc_ref(s, MEMREF_LOAD, c, 8);   /* D1 miss, LL miss evicts a: LL [c b] */
    tc_ref(s, MEMREF_IFETCH, a, 4); /* I1 miss; LL miss because a was evicted */
    CgCounts n = cgsim_counts(s);
    CU_ASSERT_EQUAL(n.dr, 4);
    CU_ASSERT_EQUAL(n.d1mr, 3);
    CU_ASSERT_EQUAL(n.dlmr, 3);
    CU_ASSERT_EQUAL(n.i1mr, 1);
    CU_ASSERT_EQUAL(n.ilmr, 1);     /* 0 if the D1 hit had touched LL */
    tc_ref(s, MEMREF_IFETCH, c + 8, 4);   /* I1 miss, LL hit: LL is [a c] */
    n = cgsim_counts(s);
    CU_ASSERT_EQUAL(n.i1mr, 2);
    CU_ASSERT_EQUAL(n.ilmr, 1);
    cgsim_free(s);
}

/* LRU by move-to-front in a 2-way set: a hit protects the block, the least recent one goes. */
static void test_lru_order(void)
{
    CgSim *s = tc_new("32768,8,64", "128,2,64", "1048576,16,64");
    const uint64_t a = 0x10000, b = 0x20000, c = 0x30000;
    const struct {
        uint64_t addr;
        bool miss;
    } steps[] = {
        { a, true }, { b, true }, { a, false },   /* order [a b] */
        { c, true },                              /* evicts b (LRU), not a (FIFO would) */
        { a, false }, { b, true },                /* b evicts c: [b a] */
        { c, true }, { a, true },
    };
    uint64_t misses = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(steps); i++) {
        tc_ref(s, MEMREF_LOAD, steps[i].addr, 8);
        CgCounts n = cgsim_counts(s);
        CU_ASSERT_EQUAL(n.d1mr, misses + steps[i].miss);
        misses = n.d1mr;
    }
    cgsim_free(s);
}

/* Writes allocate and are simulated like reads; I and D are separate L1s sharing LL. */
static void test_write_allocate_and_split_l1(void)
{
    CgSim *s = tc_new("32768,8,64", "32768,8,64", "1048576,16,64");
    tc_ref(s, MEMREF_STORE, 0x5000, 8);     /* write miss allocates */
    tc_ref(s, MEMREF_LOAD, 0x5008, 8);      /* read hit in the same line */
    tc_ref(s, MEMREF_IFETCH, 0x5010, 4);    /* I1 miss, LL hit (line came in through D1) */
    CgCounts c = cgsim_counts(s);
    CU_ASSERT_EQUAL(c.dw, 1);
    CU_ASSERT_EQUAL(c.d1mw, 1);
    CU_ASSERT_EQUAL(c.dlmw, 1);
    CU_ASSERT_EQUAL(c.dr, 1);
    CU_ASSERT_EQUAL(c.d1mr, 0);
    CU_ASSERT_EQUAL(c.i1mr, 1);
    CU_ASSERT_EQUAL(c.ilmr, 0);
    cgsim_free(s);
}

/* Tags start at 0 as in cachegrind, so block 0 "hits" in a cold cache. */
static void test_block_zero_hits_cold(void)
{
    CgSim *s = tc_new("32768,8,64", "32768,8,64", "1048576,16,64");
    tc_ref(s, MEMREF_LOAD, 0x10, 8);
    tc_ref(s, MEMREF_IFETCH, 0x20, 4);
    CgCounts c = cgsim_counts(s);
    CU_ASSERT_EQUAL(c.d1mr, 0);
    CU_ASSERT_EQUAL(c.i1mr, 0);
    cgsim_free(s);
}

/* Sizes above the smallest line size are clamped to it (cachegrind clamps helper-call sizes),
 * so a 512-byte lackey record touches one 64-byte line here, not eight. */
static void test_size_clamp(void)
{
    CgSim *s = tc_new("32768,8,64", "32768,8,64", "1048576,16,64");
    tc_ref(s, MEMREF_STORE, 0x8000, 512);
    tc_ref(s, MEMREF_LOAD, 0x8000 + 63, 1);     /* inside the clamped range: hit */
    tc_ref(s, MEMREF_LOAD, 0x8040, 8);          /* beyond it: miss */
    CgCounts c = cgsim_counts(s);
    CU_ASSERT_EQUAL(c.d1mw, 1);
    CU_ASSERT_EQUAL(c.d1mr, 1);
    cgsim_free(s);

    s = tc_new("32768,8,64", "32768,8,32", "1048576,16,64");  /* smallest line 32 */
    tc_ref(s, MEMREF_LOAD, 0x8010, 512);        /* 0x8010..0x802f: lines 0x8000 and 0x8020 */
    tc_ref(s, MEMREF_LOAD, 0x8020, 8);
    tc_ref(s, MEMREF_LOAD, 0x8040, 8);
    c = cgsim_counts(s);
    CU_ASSERT_EQUAL(c.d1mr, 2);
    cgsim_free(s);
}

/* ---- golden: cachegrind's own counts on the committed matmul trace ---- */

typedef struct {
    char *i1, *d1, *ll;
    CgCounts want;
} TcGolden;

static void tc_golden_clear(TcGolden *g)
{
    g_free(g->i1);
    g_free(g->d1);
    g_free(g->ll);
}

/* Reads "--I1=S,A,L --D1=S,A,L --LL=S,A,L summary: n n n n n n n n n" lines. */
static GArray *tc_read_summary(void)
{
    char *text = NULL;
    GError *err = NULL;
    if (!g_file_get_contents(SUMMARY, &text, NULL, &err))
        g_error("%s", err->message);
    GArray *rows = g_array_new(FALSE, TRUE, sizeof(TcGolden));
    char **lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l != NULL; l++) {
        if (**l == '#' || **l == '\0')
            continue;
        char **tok = g_strsplit_set(*l, " ", -1);
        TcGolden g = { 0 };
        bool ok = g_strv_length(tok) == 13 && g_str_has_prefix(tok[0], "--I1=") &&
                  g_str_has_prefix(tok[1], "--D1=") && g_str_has_prefix(tok[2], "--LL=") &&
                  strcmp(tok[3], "summary:") == 0;
        uint64_t v[9];
        for (int i = 0; ok && i < 9; i++) {
            char *end = NULL;
            v[i] = g_ascii_strtoull(tok[4 + i], &end, 10);
            ok = end != tok[4 + i] && *end == '\0';
        }
        if (!ok)
            g_error("%s: cannot parse line: %s", SUMMARY, *l);
        g.i1 = g_strdup(tok[0] + 5);
        g.d1 = g_strdup(tok[1] + 5);
        g.ll = g_strdup(tok[2] + 5);
        g.want = (CgCounts){ v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8] };
        g_array_append_val(rows, g);
        g_strfreev(tok);
    }
    g_strfreev(lines);
    g_free(text);
    return rows;
}

static void test_golden_matmul(void)
{
    GArray *rows = tc_read_summary();
    CU_ASSERT_FATAL(rows->len >= 3);    /* the default geometry and at least two more */
    bool saw_default = false;
    for (guint i = 0; i < rows->len; i++) {
        TcGolden *g = &g_array_index(rows, TcGolden, i);
        saw_default |= strcmp(g->i1, "32768,8,64") == 0 && strcmp(g->d1, "32768,8,64") == 0 &&
                       strcmp(g->ll, "1048576,16,64") == 0;
        CgSim *s = tc_new(g->i1, g->d1, g->ll);
        GError *err = NULL;
        LackeyReader *r = lackey_open(SAMPLE, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        MemRef buf[4096];
        size_t n;
        while ((n = lackey_read(r, buf, G_N_ELEMENTS(buf), &err)) > 0)
            cgsim_access_batch(s, buf, n);
        CU_ASSERT_PTR_NULL(err);
        lackey_close(r);
        CgCounts got = cgsim_counts(s);
        const uint64_t *pg = &got.ir, *pw = &g->want.ir;
        static const char *names[9] = { "Ir", "I1mr", "ILmr", "Dr", "D1mr",
                                        "DLmr", "Dw", "D1mw", "DLmw" };
        for (int k = 0; k < 9; k++) {
            if (pg[k] != pw[k])
                fprintf(stderr, "\n  --I1=%s --D1=%s --LL=%s: %s cachegrind %" G_GUINT64_FORMAT
                        ", archsim %" G_GUINT64_FORMAT "\n", g->i1, g->d1, g->ll, names[k],
                        pw[k], pg[k]);
            CU_ASSERT_EQUAL(pg[k], pw[k]);
        }
        cgsim_free(s);
        tc_golden_clear(g);
    }
    CU_ASSERT_TRUE(saw_default);
    g_array_free(rows, TRUE);
}

/* ---- command line ---- */

/* Runs cgsim_cli_main with stdout and stderr captured; returns the exit code. */
static int tc_cli(char **out, char **err, int argc, const char *const *argv)
{
    char *out_path = NULL, *err_path = NULL;
    int ofd = g_file_open_tmp("test_cgsim_out.XXXXXX", &out_path, NULL);
    int efd = g_file_open_tmp("test_cgsim_err.XXXXXX", &err_path, NULL);
    g_assert(ofd >= 0 && efd >= 0);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    dup2(ofd, 1);
    dup2(efd, 2);
    int rc = cgsim_cli_main(argc, (char **)argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    close(ofd);
    close(efd);
    g_file_get_contents(out_path, out, NULL, NULL);
    g_file_get_contents(err_path, err, NULL, NULL);
    g_unlink(out_path);
    g_unlink(err_path);
    g_free(out_path);
    g_free(err_path);
    return rc;
}

static void test_cli(void)
{
    char *out = NULL, *err = NULL;
    const char *help[] = { "cachegrind", "--help" };
    CU_ASSERT_EQUAL(tc_cli(&out, &err, 2, help), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "archsim cachegrind [--I1=S,A,L]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "--I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw"));
    CU_ASSERT_STRING_EQUAL(err, "");
    g_free(out);
    g_free(err);

    /* The defaults, spelled out in one option, must print cachegrind's default-geometry row. */
    GArray *rows = tc_read_summary();
    char *want = NULL;
    for (guint i = 0; i < rows->len; i++) {
        TcGolden *g = &g_array_index(rows, TcGolden, i);
        if (want == NULL && strcmp(g->i1, "32768,8,64") == 0 &&
            strcmp(g->d1, "32768,8,64") == 0 && strcmp(g->ll, "1048576,16,64") == 0) {
            const CgCounts *w = &g->want;
            want = g_strdup_printf("Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw\n"
                                   "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                                   " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                                   " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                                   "\n", w->ir, w->i1mr, w->ilmr, w->dr, w->d1mr, w->dlmr, w->dw,
                                   w->d1mw, w->dlmw);
        }
        tc_golden_clear(g);
    }
    g_array_free(rows, TRUE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(want);
    const char *run[] = { "cachegrind", "--LL=1048576,16,64", SAMPLE };
    CU_ASSERT_EQUAL(tc_cli(&out, &err, 3, run), 0);
    CU_ASSERT_STRING_EQUAL(out, want);
    CU_ASSERT_STRING_EQUAL(err, "");
    g_free(want);
    g_free(out);
    g_free(err);

    static const struct {
        int argc;
        const char *argv[4];
        int rc;
        const char *err;        /* exact stderr, or a prefix when it ends in "..." */
    } bad[] = {
        { 1, { "cachegrind" }, 64,
          "archsim cachegrind: missing TRACE\nTry 'archsim cachegrind --help'.\n" },
        { 2, { "cachegrind", "" }, 64,
          "archsim cachegrind: empty TRACE\nTry 'archsim cachegrind --help'.\n" },
        { 3, { "cachegrind", "--LL=", SAMPLE }, 64,
          "archsim cachegrind: --LL: empty S,A,L\nTry 'archsim cachegrind --help'.\n" },
        { 3, { "cachegrind", "a", "b" }, 64,
          "archsim cachegrind: unexpected argument 'b' (one TRACE only)\n"
          "Try 'archsim cachegrind --help'.\n" },
        { 3, { "cachegrind", "--I1=32768,8,48", SAMPLE }, 64,
          "archsim cachegrind: --I1=32768,8,48: line size 48 is not a power of two\n"
          "Try 'archsim cachegrind --help'.\n" },
        { 3, { "cachegrind", "--L2=1,1,1", SAMPLE }, 64,
          "archsim cachegrind: Unknown option --L2=1,1,1\nTry 'archsim cachegrind --help'.\n" },
        { 2, { "cachegrind", "no/such/trace" }, 66,
          "no/such/trace: cannot open: No such file or directory\n" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        CU_ASSERT_EQUAL(tc_cli(&out, &err, bad[i].argc, bad[i].argv), bad[i].rc);
        if (strcmp(err, bad[i].err) != 0)
            fprintf(stderr, "\n  want: %s  got:  %s", bad[i].err, err);
        CU_ASSERT_STRING_EQUAL(err, bad[i].err);
        CU_ASSERT_STRING_EQUAL(out, "");
        g_free(out);
        g_free(err);
    }

    /* A malformed trace: the reader's message and its exit code. */
    char *path = NULL;
    int fd = g_file_open_tmp("test_cgsim_bad.XXXXXX", &path, NULL);
    g_assert(fd >= 0);
    g_assert(write(fd, "I  10,1\n L zz,8\n", 16) == 16);
    close(fd);
    const char *malformed[] = { "cachegrind", path };
    CU_ASSERT_EQUAL(tc_cli(&out, &err, 2, malformed), 65);
    want = g_strdup_printf("%s:2:4: expected hex address\n", path);
    CU_ASSERT_STRING_EQUAL(err, want);
    CU_ASSERT_STRING_EQUAL(out, "");
    g_free(want);
    g_free(out);
    g_free(err);
    g_unlink(path);
    g_free(path);
}

/* An empty trace, one with lackey's ==pid== header only and one with a comment only: as in
 * archsim run, a trace without a single reference is bad input (65), not nine zeros (issue 16). */
static void test_cli_no_references(void)
{
    static const char *const bodies[] = {
        "", "==4242== Lackey, an example Valgrind tool\n==4242== Command: ./a.out\n", "# c\n",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bodies); i++) {
        char *path = NULL, *out = NULL, *err = NULL;
        int fd = g_file_open_tmp("test_cgsim_empty.XXXXXX", &path, NULL);
        g_assert(fd >= 0);
        g_assert(write(fd, bodies[i], strlen(bodies[i])) == (ssize_t)strlen(bodies[i]));
        close(fd);
        const char *argv[] = { "cachegrind", path };
        CU_ASSERT_EQUAL(tc_cli(&out, &err, 2, argv), 65);
        char *want = i < 2 ? g_strdup_printf("%s: the trace holds no memory references\n", path)
                           : g_strdup_printf("%s:1:1: unknown record '#' (expected I, L, S or M)\n",
                                             path);
        CU_ASSERT_STRING_EQUAL(err, want);
        CU_ASSERT_STRING_EQUAL(out, "");
        g_free(want);
        g_free(out);
        g_free(err);
        g_unlink(path);
        g_free(path);
    }
}

/* ---- the tag store's width ---- */

/* A plain 64-bit move-to-front model of one cache level (the rules of cgsim.h), to hold the
 * 32-bit tag store and its widening against. */
typedef struct {
    uint64_t *tags;
    uint64_t sets;
    uint32_t assoc, line_bits;
} RefLevel;

static bool ref_level_miss(RefLevel *c, uint64_t block)
{
    uint64_t *set = c->tags + (block % c->sets) * c->assoc;
    for (uint32_t i = 0; i < c->assoc; i++)
        if (set[i] == block) {
            memmove(set + 1, set, i * sizeof *set);
            set[0] = block;
            return false;
        }
    memmove(set + 1, set, (c->assoc - 1) * sizeof *set);
    set[0] = block;
    return true;
}

static bool ref_level_ref(RefLevel *c, uint64_t addr, uint32_t size)
{
    uint64_t b1 = addr >> c->line_bits, b2 = (addr + size - 1) >> c->line_bits;
    bool m = ref_level_miss(c, b1);
    if (b2 != b1)
        m = ref_level_miss(c, b2) || m;
    return m;
}

/* Addresses below 2^38 (32-bit tags) until, a third of the way in, the first ones far above
 * it (the store widens, every tag kept), then both mixed: the nine counts equal the 64-bit
 * model's, whether the references come one at a time or in batches. */
static void test_tag_widening(void)
{
    for (int batched = 0; batched < 2; batched++) {
        CgSim *s = tc_new("4096,4,64", "8192,8,64", "65536,16,64");
        RefLevel i1 = { g_new0(uint64_t, 16 * 4), 16, 4, 6 };
        RefLevel d1 = { g_new0(uint64_t, 16 * 8), 16, 8, 6 };
        RefLevel ll = { g_new0(uint64_t, 64 * 16), 64, 16, 6 };
        uint64_t ref[9] = { 0 };
        uint64_t x = 0x9E3779B97F4A7C15ull;
        MemRef batch[64];
        int nb = 0;
        for (int i = 0; i < 60000; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint64_t base = i < 20000 || (x & 1) ? 0x10000000ull : 0x7ff0000000000ull;
            MemRef r = { .addr = base + ((x >> 8) % 40000) * 4, .size = 1u << ((x >> 40) % 4),
                         .kind = (uint32_t)((x >> 50) % 4) };
            if (batched) {
                batch[nb++] = r;
                if (nb == 64) {
                    cgsim_access_batch(s, batch, (size_t)nb);
                    nb = 0;
                }
            } else {
                cgsim_access(s, &r);
            }
            RefLevel *l1 = r.kind == MEMREF_IFETCH ? &i1 : &d1;
            int k = r.kind == MEMREF_IFETCH ? 0 : r.kind == MEMREF_STORE ? 6 : 3;
            ref[k]++;
            if (ref_level_ref(l1, r.addr, r.size)) {
                ref[k + 1]++;
                if (ref_level_ref(&ll, r.addr, r.size))
                    ref[k + 2]++;
            }
        }
        cgsim_access_batch(s, batch, (size_t)nb);
        CgCounts c = cgsim_counts(s);
        uint64_t got[9] = { c.ir, c.i1mr, c.ilmr, c.dr, c.d1mr, c.dlmr, c.dw, c.d1mw, c.dlmw };
        for (int k = 0; k < 9; k++)
            CU_ASSERT_EQUAL(got[k], ref[k]);
        CU_ASSERT_TRUE(ref[5] > 100 && ref[1] > 100);
        g_free(i1.tags);
        g_free(d1.tags);
        g_free(ll.tags);
        cgsim_free(s);
    }
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("cgsim", NULL, NULL);
    if (s == NULL || !CU_add_test(s, "geometry parsing", test_geom_parse) ||
        !CU_add_test(s, "cgsim_new rejects bad geometry", test_new_rejects_bad_geometry) ||
        !CU_add_test(s, "straddle is one access", test_straddle_is_one_access) ||
        !CU_add_test(s, "M is one read", test_modify_is_one_read) ||
        !CU_add_test(s, "LL only on L1 miss", test_ll_only_on_l1_miss) ||
        !CU_add_test(s, "LRU order", test_lru_order) ||
        !CU_add_test(s, "write-allocate, split L1", test_write_allocate_and_split_l1) ||
        !CU_add_test(s, "block 0 hits cold", test_block_zero_hits_cold) ||
        !CU_add_test(s, "size clamp", test_size_clamp) ||
        !CU_add_test(s, "32-bit tags widen to 64 exactly", test_tag_widening) ||
        !CU_add_test(s, "golden: cachegrind on matmul64", test_golden_matmul) ||
        !CU_add_test(s, "command line", test_cli) ||
        !CU_add_test(s, "a trace without references is bad input", test_cli_no_references)) {
        CU_cleanup_registry();
        return 1;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures();
    unsigned errors = CU_get_error() != CUE_SUCCESS;
    CU_cleanup_registry();
    return failures != 0 || errors != 0;
}
