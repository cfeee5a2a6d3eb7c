/* test_atrace.c: CUnit tests for the trace format (traces/atrace_write.c, atrace_read.c,
 * atrace_cli.c; spec traces/FORMAT.md).
 *
 * Round trips of random records of every kind, the header, compression of a strided stream,
 * every malformed input with its exact "FILE: byte N[, record K]: problem", a trace cut at every
 * length, the CLI, and a replay of the fuzzing inputs in tests/fuzz/atrace/.
 */
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../../sim/error.h"
#include "../../traces/atrace.h"
#include "../../traces/atrace_cli.h"
#include "tmpdir.h"

#define FUZZ_DIR "tests/fuzz/atrace"

static char *ta_dir;    /* scratch directory for this run */

/* Everything one reader produced. */
typedef struct {
    GArray *recs;       /* AtRecord */
    GError *error;
    AtHeader header;
    bool opened;
    size_t sites;
} TaResult;

/* Buffer sizes (in, out; 0 = at_reader_open) and batch sizes every good trace is read with:
 * the tiny ones put a refill boundary inside nearly every record and varint. */
static const struct {
    size_t in, out, batch;
} ta_bufs[] = {
    { 0, 0, 4096 }, { 1, AT_RECORD_MAX, 1 }, { 7, 97, 3 }, { 4096, 1000, 1000 },
};

static char *ta_path(const char *name)
{
    return g_build_filename(ta_dir, name, NULL);
}

static char *ta_write_file(const char *name, const void *data, size_t len)
{
    char *path = ta_path(name);
    GError *err = NULL;
    if (!g_file_set_contents(path, data, (gssize)len, &err))
        g_error("cannot write %s: %s", path, err->message);
    return path;
}

static AtHeader ta_header(void)
{
    AtHeader h = { 0 };
    h.version = ATRACE_VERSION;
    h.flags = AT_H_HAS_GAPS;
    h.tid = 1;
    h.parent = 0;
    h.load_base = 0x555555554000;
    g_strlcpy(h.frontend, "synthetic", sizeof h.frontend);
    g_strlcpy(h.compiler, "gcc 12.2.0", sizeof h.compiler);
    g_strlcpy(h.cflags, "-O2 -pthread", sizeof h.cflags);
    return h;
}

/* Writes recs with the writer; asserts every put succeeds. */
static char *ta_write_trace(const char *name, const AtHeader *h, const AtRecord *recs, size_t n,
                            int zlevel)
{
    char *path = ta_path(name);
    AtWriter *w = at_writer_open(path, h, zlevel);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    for (size_t i = 0; i < n; i++)
        if (at_writer_put(w, &recs[i]) != 0) {
            fprintf(stderr, "\n  put %zu failed: %s\n", i, g_strerror(errno));
            CU_FAIL("at_writer_put");
            break;
        }
    CU_ASSERT_EQUAL(at_writer_records(w), n);
    CU_ASSERT_EQUAL(at_writer_close(w), 0);
    return path;
}

/* Reads a whole trace (in == 0: at_reader_open). */
static TaResult ta_read(const char *path, size_t in, size_t out, size_t batch)
{
    TaResult res = { g_array_new(FALSE, TRUE, sizeof(AtRecord)), NULL, { 0 }, false, 0 };
    AtReader *r = in ? at_reader_open_buffered(path, in, out, &res.error)
                     : at_reader_open(path, &res.error);
    if (r == NULL)
        return res;
    res.opened = true;
    res.header = *at_reader_header(r);
    AtRecord *buf = g_new0(AtRecord, batch);
    size_t n;
    while ((n = at_reader_read(r, buf, batch, &res.error)) > 0) {
        CU_ASSERT_PTR_NULL(res.error);
        g_array_append_vals(res.recs, buf, (guint)n);
    }
    CU_ASSERT_EQUAL(at_reader_index(r), res.recs->len);
    /* errors are sticky, the clean end too */
    GError *again = NULL;
    CU_ASSERT_EQUAL(at_reader_read(r, buf, batch, &again), 0);
    CU_ASSERT((again == NULL) == (res.error == NULL));
    if (again != NULL && res.error != NULL)
        CU_ASSERT_STRING_EQUAL(again->message, res.error->message);
    g_clear_error(&again);
    if (res.error == NULL)
        CU_ASSERT_DOUBLE_EQUAL(at_reader_progress(r), 1.0, 1e-9);
    res.sites = at_reader_sites(r);
    g_free(buf);
    at_reader_close(r);
    return res;
}

static void ta_free(TaResult *res)
{
    g_array_free(res->recs, TRUE);
    g_clear_error(&res->error);
}

static bool ta_rec_equal(const AtRecord *a, const AtRecord *b)
{
    return a->kind == b->kind && a->mo == b->mo && a->mo_fail == b->mo_fail && a->op == b->op &&
           a->flags == b->flags && a->size == b->size && a->addr == b->addr &&
           a->arg == b->arg && a->pc == b->pc && a->gap == b->gap;
}

/* Asserts that got holds want[0, n) exactly; prints the first difference. */
static void ta_assert_records(const GArray *got, const AtRecord *want, size_t n)
{
    CU_ASSERT_EQUAL_FATAL(got->len, n);
    for (size_t i = 0; i < n; i++) {
        const AtRecord *a = &g_array_index(got, AtRecord, i);
        if (!ta_rec_equal(a, &want[i])) {
            fprintf(stderr, "\n  record %zu differs: kind %u/%u size %u/%u addr %" PRIx64 "/%"
                    PRIx64 " pc %" PRIx64 "/%" PRIx64 "\n", i, a->kind, want[i].kind, a->size,
                    want[i].size, a->addr, want[i].addr, a->pc, want[i].pc);
            CU_FAIL("records differ");
            return;
        }
    }
}

static void ta_assert_header(const AtHeader *a, const AtHeader *b)
{
    CU_ASSERT_EQUAL(a->version, ATRACE_VERSION);
    CU_ASSERT_EQUAL(a->flags, b->flags);
    CU_ASSERT_EQUAL(a->tid, b->tid);
    CU_ASSERT_EQUAL(a->parent, b->parent);
    CU_ASSERT_EQUAL(a->load_base, b->load_base);
    CU_ASSERT_STRING_EQUAL(a->frontend, b->frontend);
    CU_ASSERT_STRING_EQUAL(a->compiler, b->compiler);
    CU_ASSERT_STRING_EQUAL(a->cflags, b->cflags);
}

/* Asserts the error message is exactly "<path>: <rest>". */
static void ta_assert_message(const GError *e, const char *path, const char *rest)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    char *want = g_strdup_printf("%s: %s", path, rest);
    if (strcmp(e->message, want) != 0)
        fprintf(stderr, "\n  want: %s\n  got:  %s\n", want, e->message);
    CU_ASSERT_STRING_EQUAL(e->message, want);
    g_free(want);
}

/* ---- random records ------------------------------------------------------------------------ */

/* (each draw in its own statement: the order of operands is unspecified, and the same seed
 * must give the same records whatever the compiler) */
static uint64_t ta_rand64(GRand *g)
{
    uint64_t hi = g_rand_int(g);
    return hi << 32 | g_rand_int(g);
}

/* A value that is small, huge or an extreme, each often enough to matter. */
static uint64_t ta_rand_value(GRand *g)
{
    static const uint64_t extremes[] = { 0, 1, 127, 128, 16383, 16384, UINT32_MAX,
                                         (uint64_t)UINT32_MAX + 1, INT64_MAX,
                                         (uint64_t)INT64_MAX + 1, UINT64_MAX - 1, UINT64_MAX };
    switch (g_rand_int_range(g, 0, 4)) {
    case 0: return (uint64_t)g_rand_int_range(g, 0, 200);
    case 1: return extremes[g_rand_int_range(g, 0, G_N_ELEMENTS(extremes))];
    case 2: {
        uint64_t v = ta_rand64(g);
        return v >> g_rand_int_range(g, 0, 64);
    }
    default: return ta_rand64(g);
    }
}

/* A random, valid record of the given kind at site pc whose last address was *last. */
static AtRecord ta_rand_record(GRand *g, unsigned kind, uint64_t pc, uint64_t *last)
{
    static const uint32_t sizes[] = { 1, 2, 4, 8, 16, 0, 3, 32, 64, 4096, UINT32_MAX };
    AtRecord r = { 0 };
    uint32_t bit = AT_KIND_BIT(kind);
    r.kind = (uint8_t)kind;
    r.pc = pc;
    r.size = kind <= AT_CAS_FAIL || g_rand_int_range(g, 0, 8) == 0
             ? sizes[g_rand_int_range(g, 0, G_N_ELEMENTS(sizes))] : 0;
    if (g_rand_boolean(g)) {
        r.flags |= AT_F_GAP;
        r.gap = ta_rand_value(g);
        if (r.gap > AT_GAP_MAX)
            r.gap = AT_GAP_MAX;         /* larger is an error (FORMAT.md) */
    }
    if (bit & AT_KINDS_ADDR) {
        switch (g_rand_int_range(g, 0, 5)) {
        case 0: r.addr = *last + (uint64_t)g_rand_int_range(g, 0, 64); break;      /* forward */
        case 1: r.addr = *last - (uint64_t)g_rand_int_range(g, 1, 64); break;      /* back */
        case 2: r.addr = *last - ta_rand_value(g); break;                          /* far back */
        case 3: r.addr = ta_rand_value(g); break;
        default: r.addr = ta_rand64(g); break;
        }
    }
    if (bit & AT_KINDS_ARG)
        r.arg = ta_rand_value(g);
    if (bit & AT_KINDS_ADDR) {
        /* the bytes a record touches end at 2^64 (FORMAT.md 3.2): pull a wrapping one back */
        uint64_t len = r.size;
        if ((kind == AT_RANGE_R || kind == AT_RANGE_W) && r.arg > len)
            len = r.arg;
        if (len > 0 && r.addr > UINT64_MAX - (len - 1))
            r.addr = UINT64_MAX - (len - 1);
        *last = r.addr;
    }
    if (bit & AT_KINDS_ATOMIC)
        r.mo = (uint8_t)g_rand_int_range(g, 0, AT_MO_SEQ_CST + 1);
    if (kind == AT_RMW) {
        r.op = (uint8_t)g_rand_int_range(g, 0, AT_OP_OTHER + 1);
        if (g_rand_boolean(g))
            r.flags |= AT_F_UNCHANGED;
    }
    if (bit & AT_KINDS_CAS)
        r.mo_fail = (uint8_t)g_rand_int_range(g, 0, AT_MO_SEQ_CST + 1);
    return r;
}

/* n random records over nsites sites (PCs include 0 and UINT64_MAX), every kind present. */
static AtRecord *ta_rand_records(GRand *g, size_t n, guint nsites)
{
    uint64_t *pcs = g_new(uint64_t, nsites);
    uint64_t *last = g_new0(uint64_t, nsites);
    for (guint i = 0; i < nsites; i++)
        pcs[i] = i == 0 ? 0 : i == 1 ? UINT64_MAX : i == 2 ? 0x555555555123 + 5
                 : 0x555555554000 + ta_rand64(g) % 0x100000;
    AtRecord *recs = g_new0(AtRecord, n);
    for (size_t i = 0; i < n; i++) {
        unsigned kind = i < AT_KINDS ? (unsigned)i : (unsigned)g_rand_int_range(g, 0, AT_KINDS);
        /* a skewed choice of sites, so some are hot (small deltas) and some cold */
        guint s = g_rand_boolean(g) ? (guint)g_rand_int_range(g, 0, MIN(nsites, 8))
                                    : (guint)g_rand_int_range(g, 0, (gint32)nsites);
        recs[i] = ta_rand_record(g, kind, pcs[s], &last[s]);
    }
    g_free(pcs);
    g_free(last);
    return recs;
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void test_names(void)
{
    static const char *const kinds[AT_KINDS] = {
        "LOAD", "STORE", "ALOAD", "ASTORE", "RMW", "CAS_OK", "CAS_FAIL", "FENCE", "RANGE_R",
        "RANGE_W", "LOCK_ACQ", "LOCK_REL", "BARRIER", "CREATE", "JOIN", "ROI_BEGIN", "ROI_END",
        "TX_BEGIN", "TX_END", "TX_ABORT", "COND_WAIT", "COND_SIGNAL",
    };
    for (int k = 0; k < AT_KINDS; k++)
        CU_ASSERT_STRING_EQUAL(at_kind_name(k), kinds[k]);
    CU_ASSERT_STRING_EQUAL(at_kind_name(AT_KINDS), "?");
    CU_ASSERT_STRING_EQUAL(at_kind_name(-1), "?");
    CU_ASSERT_STRING_EQUAL(at_order_name(AT_MO_RELAXED), "relaxed");
    CU_ASSERT_STRING_EQUAL(at_order_name(AT_MO_ACQ_REL), "acq_rel");
    CU_ASSERT_STRING_EQUAL(at_order_name(AT_MO_SEQ_CST), "seq_cst");
    CU_ASSERT_STRING_EQUAL(at_order_name(6), "?");
    CU_ASSERT_STRING_EQUAL(at_op_name(AT_OP_XCHG), "xchg");
    CU_ASSERT_STRING_EQUAL(at_op_name(AT_OP_NAND), "nand");
    CU_ASSERT_STRING_EQUAL(at_op_name(AT_OP_OTHER), "other");
    CU_ASSERT_STRING_EQUAL(at_op_name(8), "?");
}

/* Random records of every kind with random fields, thousands of sites, every zlib level class,
 * read back through every buffer geometry: identical records, header and site count. */
static void test_roundtrip_random(void)
{
    GRand *g = g_rand_new_with_seed(20261201);
    const size_t n = 60000;
    const guint nsites = 3000;
    AtRecord *recs = ta_rand_records(g, n, nsites);
    GHashTable *distinct = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (size_t i = 0; i < n; i++)
        g_hash_table_add(distinct, &recs[i].pc);
    AtHeader h = ta_header();
    int levels[] = { 0, 1, 9 };
    for (size_t l = 0; l < G_N_ELEMENTS(levels); l++) {
        char *path = ta_write_trace("random.at", &h, recs, n, levels[l]);
        for (size_t b = 0; b < G_N_ELEMENTS(ta_bufs); b++) {
            if (levels[l] != 1 && b == 1)
                continue;       /* byte-at-a-time is slow; once is enough */
            TaResult res = ta_read(path, ta_bufs[b].in, ta_bufs[b].out, ta_bufs[b].batch);
            CU_ASSERT_PTR_NULL(res.error);
            if (res.error)
                fprintf(stderr, "\n  %s\n", res.error->message);
            ta_assert_header(&res.header, &h);
            ta_assert_records(res.recs, recs, n);
            CU_ASSERT_EQUAL(res.sites, g_hash_table_size(distinct));
            ta_free(&res);
        }
        g_free(path);
    }
    g_hash_table_destroy(distinct);
    g_free(recs);
    g_rand_free(g);
}

/* Many more sites than the writer's first hash table, each visited in turn: the rehashes keep
 * every index, and delta chains stay per site. */
static void test_roundtrip_many_sites(void)
{
    const size_t nsites = 70000, n = 3 * nsites;
    AtRecord *recs = g_new0(AtRecord, n);
    for (size_t i = 0; i < n; i++) {
        size_t s = i % nsites;
        recs[i].kind = (i / nsites) % 2 ? AT_STORE : AT_LOAD;
        recs[i].size = 8;
        recs[i].pc = 0x400000 + s * 4;
        recs[i].addr = 0x10000000 + s * 4096 + (i / nsites) * 8 - (i / nsites == 2 ? 100 : 0);
    }
    AtHeader h = ta_header();
    char *path = ta_write_trace("sites.at", &h, recs, n, 1);
    TaResult res = ta_read(path, 0, 0, 1000);
    CU_ASSERT_PTR_NULL(res.error);
    ta_assert_records(res.recs, recs, n);
    CU_ASSERT_EQUAL(res.sites, nsites);
    ta_free(&res);
    g_free(path);
    g_free(recs);
}

/* Header fields at their limits; an empty trace is a valid trace. */
static void test_header_roundtrip(void)
{
    AtHeader h = { 0 };
    h.flags = 0xffffffffu;
    h.tid = UINT32_MAX;
    h.parent = -1;
    h.load_base = UINT64_MAX;
    memset(h.frontend, 'f', sizeof h.frontend - 1);
    memset(h.compiler, 'c', sizeof h.compiler - 1);
    memset(h.cflags, 'x', sizeof h.cflags - 1);
    char *path = ta_write_trace("hdr.at", &h, NULL, 0, 6);
    TaResult res = ta_read(path, 0, 0, 16);
    CU_ASSERT_PTR_NULL(res.error);
    CU_ASSERT_EQUAL(res.recs->len, 0);
    ta_assert_header(&res.header, &h);
    ta_free(&res);
    g_free(path);

    AtHeader empty = { 0 };
    path = ta_write_trace("hdr0.at", &empty, NULL, 0, 1);
    res = ta_read(path, 0, 0, 16);
    CU_ASSERT_PTR_NULL(res.error);
    ta_assert_header(&res.header, &empty);
    ta_free(&res);
    g_free(path);
}

/* The writer refuses records whose fields do not fit the kind (EINVAL), writes nothing for
 * them, and goes on; bad headers and levels fail at open. */
static void test_writer_rejects(void)
{
    AtRecord base = { .kind = AT_LOAD, .size = 8, .addr = 0x1000, .pc = 0x400 };
    AtRecord bad[20];
    int nb = 0;
    AtRecord r;
    r = base, r.kind = AT_KINDS, bad[nb++] = r;
    r = base, r.flags = 0x4, bad[nb++] = r;                     /* unknown flag */
    r = base, r.gap = 3, bad[nb++] = r;                         /* gap without AT_F_GAP */
    r = base, r.arg = 1, bad[nb++] = r;                         /* LOAD has no arg */
    r = base, r.mo = AT_MO_ACQUIRE, bad[nb++] = r;              /* LOAD has no order */
    r = base, r.op = AT_OP_ADD, bad[nb++] = r;
    r = base, r.mo_fail = 1, bad[nb++] = r;
    r = base, r.flags = AT_F_UNCHANGED, bad[nb++] = r;
    r = base, r.kind = AT_FENCE, bad[nb++] = r;                 /* FENCE has no address */
    r = base, r.kind = AT_ALOAD, r.mo = 6, bad[nb++] = r;
    r = base, r.kind = AT_ALOAD, r.op = 1, bad[nb++] = r;
    r = base, r.kind = AT_RMW, r.op = 8, bad[nb++] = r;
    r = base, r.kind = AT_RMW, r.mo_fail = 2, bad[nb++] = r;
    r = base, r.kind = AT_CAS_OK, r.mo_fail = 6, bad[nb++] = r;
    r = base, r.kind = AT_CAS_FAIL, r.flags = AT_F_UNCHANGED, bad[nb++] = r;
    r = base, r.kind = AT_CREATE, r.addr = 0, r.arg = 1, r.size = 0, r.mo = 1, bad[nb++] = r;
    r = base, r.kind = AT_JOIN, bad[nb++] = r;                  /* JOIN has no address */
    r = base, r.kind = AT_ROI_BEGIN, r.addr = 0, r.arg = 5, bad[nb++] = r;
    AtHeader h = ta_header();
    char *path = ta_path("rej.at");
    AtWriter *w = at_writer_open(path, &h, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(at_writer_put(w, &base), 0);
    for (int i = 0; i < nb; i++) {
        errno = 0;
        CU_ASSERT_EQUAL(at_writer_put(w, &bad[i]), -1);
        CU_ASSERT_EQUAL(errno, EINVAL);
    }
    AtRecord ok = base;
    ok.addr = 0x1008;
    CU_ASSERT_EQUAL(at_writer_put(w, &ok), 0);
    CU_ASSERT_EQUAL(at_writer_records(w), 2);
    CU_ASSERT_EQUAL(at_writer_close(w), 0);
    AtRecord want[] = { base, ok };
    TaResult res = ta_read(path, 0, 0, 16);
    CU_ASSERT_PTR_NULL(res.error);
    ta_assert_records(res.recs, want, 2);
    ta_free(&res);

    errno = 0;
    CU_ASSERT_PTR_NULL(at_writer_open(path, &h, 10));
    CU_ASSERT_EQUAL(errno, EINVAL);
    CU_ASSERT_PTR_NULL(at_writer_open(path, &h, -1));
    AtHeader h2 = h;
    h2.version = 2;
    errno = 0;
    CU_ASSERT_PTR_NULL(at_writer_open(path, &h2, 1));
    CU_ASSERT_EQUAL(errno, EINVAL);
    h2 = h;
    memset(h2.cflags, 'x', sizeof h2.cflags);   /* not terminated */
    errno = 0;
    CU_ASSERT_PTR_NULL(at_writer_open(path, &h2, 1));
    CU_ASSERT_EQUAL(errno, EINVAL);
    char *nodir = ta_path("no/such/dir.at");
    errno = 0;
    CU_ASSERT_PTR_NULL(at_writer_open(nodir, &h, 1));
    CU_ASSERT_EQUAL(errno, ENOENT);
    g_free(nodir);
    g_free(path);
}

/* at_writer_create (the tracer runtime's, after removing its own file): it creates where nothing
 * is, and leaves alone a file that is there, whoever put it (EEXIST, its bytes unchanged) */
static void test_writer_create_new_only(void)
{
    AtHeader h = ta_header();
    char *path = ta_path("create.at");
    g_unlink(path);
    AtWriter *w = at_writer_create(path, &h, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    AtRecord r = { .kind = AT_LOAD, .size = 8, .addr = 0x1000, .pc = 0x400000 };
    CU_ASSERT_EQUAL(at_writer_put(w, &r), 0);
    CU_ASSERT_EQUAL(at_writer_close(w), 0);
    TaResult res = ta_read(path, 0, 0, 4);
    CU_ASSERT_PTR_NULL(res.error);
    CU_ASSERT_EQUAL(res.recs->len, 1);
    ta_free(&res);
    /* another file there now: refused, untouched; so is an archsim trace (create means new) */
    CU_ASSERT_TRUE_FATAL(g_file_set_contents(path, "USERDATA\n", -1, NULL));
    errno = 0;
    CU_ASSERT_PTR_NULL(at_writer_create(path, &h, 1));
    CU_ASSERT_EQUAL(errno, EEXIST);
    char *text = NULL;
    CU_ASSERT(g_file_get_contents(path, &text, NULL, NULL) && strcmp(text, "USERDATA\n") == 0);
    g_free(text);
    errno = 0;
    CU_ASSERT_PTR_NULL(at_writer_create(NULL, &h, 1));
    CU_ASSERT_EQUAL(errno, EINVAL);
    g_unlink(path);
    g_free(path);
}

/* 1 M loads from one site with a constant stride: the site delta makes every record the same
 * three bytes, which zlib level 1 squeezes below 0.1 byte per record (bound asserted). */
static void test_compression(void)
{
    const size_t n = 1000000;
    AtHeader h = ta_header();
    char *path = ta_path("stride.at");
    AtWriter *w = at_writer_open(path, &h, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    AtRecord r = { .kind = AT_LOAD, .size = 8, .pc = 0x555555555123 };
    for (size_t i = 0; i < n; i++) {
        r.addr = 0x7f0000000000 + i * 64;
        CU_ASSERT_EQUAL_FATAL(at_writer_put(w, &r), 0);
    }
    CU_ASSERT_EQUAL(at_writer_close(w), 0);
    GStatBuf st;
    CU_ASSERT_EQUAL_FATAL(g_stat(path, &st), 0);
    AtReader *rd = at_reader_open(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rd);
    uint32_t hl = at_reader_header_size(rd);
    double per = (double)((uint64_t)st.st_size - hl) / (double)n;
    printf("\n    strided loads: %.4f bytes/record at zlib 1 ", per);
    CU_ASSERT(per < 0.1);
    AtRecord buf[1024];
    size_t got, total = 0;
    uint64_t expect = 0x7f0000000000;
    bool same = true;
    while ((got = at_reader_read(rd, buf, 1024, NULL)) > 0)
        for (size_t i = 0; i < got; i++, total++, expect += 64)
            same &= buf[i].addr == expect && buf[i].kind == AT_LOAD && buf[i].size == 8;
    CU_ASSERT_EQUAL(total, n);
    CU_ASSERT(same);
    /* 4 bytes a record (80 00 80 01: +64 is zigzag 128, two varint bytes), the first 16
     * (a 7-byte pc and a 7-byte address) */
    CU_ASSERT_EQUAL(at_reader_offset(rd), 4 * n + 12);
    at_reader_close(rd);
    g_free(path);
}

/* ---- hand-made files ----------------------------------------------------------------------- */

static void ta_put_u32(GByteArray *b, uint32_t v)
{
    uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    g_byte_array_append(b, x, 4);
}

static void ta_put_u64(GByteArray *b, uint64_t v)
{
    ta_put_u32(b, (uint32_t)v);
    ta_put_u32(b, (uint32_t)(v >> 32));
}

static void ta_put_field(GByteArray *b, unsigned tag, const void *data, size_t len)
{
    uint8_t x[3] = { (uint8_t)tag, (uint8_t)len, (uint8_t)(len >> 8) };
    g_byte_array_append(b, x, 3);
    g_byte_array_append(b, data, (guint)len);
}

/* A version-1 header: fixed part with the given header length (0: computed), then fields. */
static GByteArray *ta_raw_header(const void *fields, size_t flen, uint32_t hl)
{
    GByteArray *b = g_byte_array_new();
    g_byte_array_append(b, (const guint8 *)ATRACE_MAGIC, 8);
    ta_put_u32(b, ATRACE_VERSION);
    ta_put_u32(b, hl ? hl : AT_HEADER_FIXED + (uint32_t)flen);
    ta_put_u64(b, 0x400000);
    ta_put_u32(b, 0);
    ta_put_u32(b, 2);
    ta_put_u32(b, 0);
    g_byte_array_append(b, fields, (guint)flen);
    return b;
}

/* Header + raw (uncompressed) record bytes deflated at level 6. */
static char *ta_raw_trace(const char *name, const void *records, size_t len, size_t *header_len)
{
    GByteArray *b = ta_raw_header(NULL, 0, 0);
    if (header_len != NULL)
        *header_len = b->len;
    uLongf zlen = compressBound((uLong)len);
    uint8_t *z = g_malloc(zlen);
    g_assert(compress2(z, &zlen, records, (uLong)len, 6) == Z_OK);
    g_byte_array_append(b, z, (guint)zlen);
    char *path = ta_write_file(name, b->data, b->len);
    g_free(z);
    g_byte_array_free(b, TRUE);
    return path;
}

/* Malformed headers: each with its exact message, never a reader. */
static void test_bad_header(void)
{
    GByteArray *good = ta_raw_header(NULL, 0, 0);
    static const struct {
        const char *data;
        int len;                /* -1: strlen */
        const char *message;    /* after "PATH: " */
    } cases[] = {
        { "", 0, "byte 0: truncated header (36 bytes expected)" },
        { "ATRA", -1, "byte 4: truncated header (36 bytes expected)" },
        { "ATRACE01\x01\0\0\0\x24\0\0\0", 16, "byte 16: truncated header (36 bytes expected)" },
        { "ATRACE01\x01\0\0\0\x30\0\0\0\0\0\0\0", 20, "byte 20: truncated header (48 bytes expected)" },
        { "hello world, this is not a trace at all", -1,
          "byte 0: bad magic (expected \"ATRACE01\"; not an archsim trace)" },
        { "\x1f\x8b\x08", 3, "byte 0: bad magic (expected \"ATRACE01\"; not an archsim trace)" },
        { "ATRACE02", -1, "byte 0: bad magic (expected \"ATRACE01\"; not an archsim trace)" },
        { "ATRACE01\x02\0\0\0", 12, "byte 8: unsupported version 2 (this reader reads version 1)" },
        { "ATRACE01\0\0\0\0", 12, "byte 8: unsupported version 0 (this reader reads version 1)" },
        { "ATRACE01\x01\0\0\0\x23\0\0\0", 16, "byte 12: header length 35 out of range (36 to "
          "65536)" },
        { "ATRACE01\x01\0\0\0\x01\0\x01\0", 16, "byte 12: header length 65537 out of range (36 "
          "to 65536)" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        size_t len = cases[i].len < 0 ? strlen(cases[i].data) : (size_t)cases[i].len;
        char *path = ta_write_file("badhdr.at", cases[i].data, len);
        TaResult res = ta_read(path, 0, 0, 8);
        CU_ASSERT_FALSE(res.opened);
        CU_ASSERT_PTR_NOT_NULL(res.error);
        if (res.error) {
            CU_ASSERT_EQUAL(res.error->domain, ARCHSIM_TRACE_ERROR);
            CU_ASSERT_EQUAL(res.error->code, ARCHSIM_EXIT_DATAERR);
            ta_assert_message(res.error, path, cases[i].message);
        }
        ta_free(&res);
        g_free(path);
    }

    /* the fields */
    uint8_t f[400];
    GByteArray *fb = g_byte_array_new();
    struct {
        const char *what;
        const char *message;
    } fcases[] = {
        { "dup", "byte 47: duplicate frontend field" },
        { "long", "byte 36: frontend field too long (32 bytes, at most 31)" },
        { "nul", "byte 41: NUL byte in the compiler field" },
        { "tag0", "byte 36: header field tag 0 is reserved" },
        { "past", "byte 36: header field (tag 3, 10 bytes) runs past the header end (byte 45)" },
        { "stub", "byte 36: header field runs past the header end (byte 38)" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(fcases); i++) {
        g_byte_array_set_size(fb, 0);
        uint32_t hl = 0;
        const char *w = fcases[i].what;
        memset(f, 'a', sizeof f);
        if (!strcmp(w, "dup")) {
            ta_put_field(fb, AT_FIELD_FRONTEND, "qemu", 4);
            ta_put_field(fb, 9, "x", 1);                        /* unknown: skipped */
            ta_put_field(fb, AT_FIELD_FRONTEND, "tsan", 4);
        } else if (!strcmp(w, "long")) {
            ta_put_field(fb, AT_FIELD_FRONTEND, f, 32);
        } else if (!strcmp(w, "nul")) {
            ta_put_field(fb, AT_FIELD_COMPILER, "gc\0c", 4);
        } else if (!strcmp(w, "tag0")) {
            ta_put_field(fb, 0, "", 0);
        } else if (!strcmp(w, "past")) {
            ta_put_field(fb, AT_FIELD_CFLAGS, f, 10);
            hl = AT_HEADER_FIXED + 9;
        } else {
            ta_put_field(fb, AT_FIELD_CFLAGS, f, 0);
            hl = AT_HEADER_FIXED + 2;
        }
        GByteArray *b = ta_raw_header(fb->data, fb->len, hl);
        if (hl)
            g_byte_array_set_size(b, hl);
        char *path = ta_write_file("badfield.at", b->data, b->len);
        TaResult res = ta_read(path, 0, 0, 8);
        CU_ASSERT_FALSE(res.opened);
        if (res.error)
            CU_ASSERT_EQUAL(res.error->code, ARCHSIM_EXIT_DATAERR);
        ta_assert_message(res.error, path, fcases[i].message);
        ta_free(&res);
        g_free(path);
        g_byte_array_free(b, TRUE);
    }

    /* Fields of a later revision are skipped; absent fields are empty strings; a header longer
     * than the fields this reader knows is still read. */
    g_byte_array_set_size(fb, 0);
    ta_put_field(fb, 200, "future field", 12);
    ta_put_field(fb, AT_FIELD_CFLAGS, "-O3", 3);
    ta_put_field(fb, 4, f, 300);
    GByteArray *b = ta_raw_header(fb->data, fb->len, 0);
    uint8_t empty_stream[] = { 0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01 };
    g_byte_array_append(b, empty_stream, sizeof empty_stream);
    char *path = ta_write_file("future.at", b->data, b->len);
    TaResult res = ta_read(path, 0, 0, 8);
    CU_ASSERT_PTR_NULL(res.error);
    CU_ASSERT_STRING_EQUAL(res.header.cflags, "-O3");
    CU_ASSERT_STRING_EQUAL(res.header.frontend, "");
    CU_ASSERT_EQUAL(res.header.tid, 2);
    CU_ASSERT_EQUAL(res.header.load_base, 0x400000);
    ta_free(&res);
    g_free(path);
    g_byte_array_free(b, TRUE);
    g_byte_array_free(fb, TRUE);
    g_byte_array_free(good, TRUE);
}

/* Malformed records, in a stream that starts with two good records (a LOAD introducing site 0
 * at pc 0x40, then a STORE at the same site): each error names the byte in the decompressed
 * stream and the record, after the good records were handed out, with every buffer geometry. */
static void test_bad_records(void)
{
    /* 80 00 40 20: LOAD (size code 4: 8 bytes), new site 0, pc 0x40, address 0 + 16;
     * 21 00 01: STORE (size code 1), site 0, address 16 - 1 */
    static const uint8_t good[] = { 0x80, 0x00, 0x40, 0x20, 0x21, 0x00, 0x01 };
    static const struct {
        const char *bytes;
        int len;
        const char *message;    /* after "PATH: " */
    } cases[] = {
        { "\x16", 1, "byte 7, record 2: unknown record kind 22" },
        { "\x1f", 1, "byte 7, record 2: unknown record kind 31" },
        { "\xe0\x00\x00", 3, "byte 7, record 2: size code 7 does not exist" },
        { "\xc0\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01\x00\x00", 14,
          "byte 8, record 2: varint too long (size; more than 64 bits)" },
        { "\xc0\x80\x80\x80\x80\x10\x00\x00", 8,
          "byte 8, record 2: size 4294967296 too large (at most 4294967295)" },
        { "\x00\x80\x80\x80\x80\x80\x80\x80\x80\x80\x02\x00", 12,
          "byte 8, record 2: varint too long (site; more than 64 bits)" },
        { "\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12,
          "byte 8, record 2: varint too long (site; more than 64 bits)" },
        { "\x00\x04\x00", 3, "byte 8, record 2: site index 2 beyond the site table (1 sites)" },
        { "\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11,
          "byte 8, record 2: site index 9223372036854775807 beyond the site table (1 sites)" },
        { "\x00\x02\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", 13,
          "byte 9, record 2: varint too long (pc; more than 64 bits)" },
        { "\x00\x01\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", 13,
          "byte 9, record 2: varint too long (gap; more than 64 bits)" },
        { "\x00\x00\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", 13,
          "byte 9, record 2: varint too long (address; more than 64 bits)" },
        { "\x0c\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 13,
          "byte 10, record 2: varint too long (arg; more than 64 bits)" },
        { "\x02\x06\x00\x00", 4, "byte 8, record 2: unknown memory order 6" },
        { "\x07\x07\x00", 3, "byte 8, record 2: unknown memory order 7" },
        { "\x05\x35\x00\x00", 4, "byte 8, record 2: unknown failure order 6" },
        { "\x06\x3d\x00\x00", 4, "byte 8, record 2: unknown failure order 7" },
        { "\x02\x08\x00\x00", 4,
          "byte 8, record 2: reserved bits 0x08 set in the atomic byte (ALOAD)" },
        { "\x07\x45\x00", 3,
          "byte 8, record 2: reserved bits 0x40 set in the atomic byte (FENCE)" },
        { "\x05\x42\x00\x00", 4,
          "byte 8, record 2: reserved bits 0x40 set in the atomic byte (CAS_OK)" },
        { "\x04\x80\x00\x00", 4,
          "byte 8, record 2: reserved bits 0x80 set in the atomic byte (RMW)" },
        /* a good RMW (op and unchanged allowed) then a LOAD cut short by the stream's end */
        { "\x04\x75\x00\x00\x80\x00", 6,
          "byte 11, record 3: record cut short by the end of the zlib stream" },
        { "\x80", 1, "byte 7, record 2: record cut short by the end of the zlib stream" },
        { "\x0d\x00\x80", 3, "byte 7, record 2: record cut short by the end of the zlib stream" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GByteArray *raw = g_byte_array_new();
        g_byte_array_append(raw, good, sizeof good);
        g_byte_array_append(raw, (const guint8 *)cases[i].bytes, (guint)cases[i].len);
        char *path = ta_raw_trace("badrec.at", raw->data, raw->len, NULL);
        for (size_t b = 0; b < G_N_ELEMENTS(ta_bufs); b++) {
            TaResult res = ta_read(path, ta_bufs[b].in, ta_bufs[b].out, ta_bufs[b].batch);
            CU_ASSERT_TRUE(res.opened);
            CU_ASSERT(res.recs->len >= 2);
            if (res.recs->len >= 2) {
                const AtRecord *r0 = &g_array_index(res.recs, AtRecord, 0);
                const AtRecord *r1 = &g_array_index(res.recs, AtRecord, 1);
                CU_ASSERT(r0->kind == AT_LOAD && r0->size == 8 && r0->addr == 16 &&
                          r0->pc == 0x40);
                CU_ASSERT(r1->kind == AT_STORE && r1->size == 1 && r1->addr == 15 &&
                          r1->pc == 0x40);
            }
            if (res.error) {
                CU_ASSERT_EQUAL(res.error->domain, ARCHSIM_TRACE_ERROR);
                CU_ASSERT_EQUAL(res.error->code, ARCHSIM_EXIT_DATAERR);
            }
            ta_assert_message(res.error, path, cases[i].message);
            ta_free(&res);
        }
        g_free(path);
        g_byte_array_free(raw, TRUE);
    }
}

/* Stream-level damage: a truncated zlib stream, corrupt deflate data, a bad checksum and
 * trailing garbage are errors after every record before them, never a clean end. */
/* The writer refuses bad (EINVAL, nothing written) and writes good, which reads back as is. */
static void ta_writer_refuses(const AtRecord *bad, const AtRecord *good)
{
    AtHeader h = ta_header();
    char *path = ta_path("refuse.at");
    AtWriter *w = at_writer_open(path, &h, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    errno = 0;
    CU_ASSERT_EQUAL(at_writer_put(w, bad), -1);
    CU_ASSERT_EQUAL(errno, EINVAL);
    CU_ASSERT_EQUAL(at_writer_put(w, good), 0);
    CU_ASSERT_EQUAL(at_writer_close(w), 0);
    TaResult res = ta_read(path, 0, 0, 16);
    CU_ASSERT_PTR_NULL(res.error);
    ta_assert_records(res.recs, good, 1);
    ta_free(&res);
    g_free(path);
}

/* issue 15 item 9: a record whose bytes wrap past 2^64 (addr + size - 1, or a range's
 * addr + length - 1) touches no line, and thread-core waited for nothing (a false deadlock).
 * The reader refuses it at the address field; the writer refuses to write one; records that end
 * exactly at 2^64 - 1 are fine. */
static void issue15_item9_atrace_wrap_past_2_64(void)
{
    /* after the good LOAD and STORE of site 0 (last address 15): zigzag 0x25 = -19, so
     * 15 - 19 = 0xfffffffffffffffc */
    static const uint8_t good[] = { 0x80, 0x00, 0x40, 0x20, 0x21, 0x00, 0x01 };
    static const struct {
        const char *bytes;
        int len;
        const char *message;    /* after "PATH: "; NULL: accepted */
    } cases[] = {
        { "\x80\x00\x25", 3, "byte 9, record 2: LOAD of 8 bytes at 0xfffffffffffffffc wraps past 2^64" },
        { "\x81\x00\x25", 3, "byte 9, record 2: STORE of 8 bytes at 0xfffffffffffffffc wraps past 2^64" },
        { "\x09\x00\x25\x64", 4,
          "byte 9, record 2: RANGE_W of 100 bytes at 0xfffffffffffffffc wraps past 2^64" },
        { "\x60\x00\x25\x80\x00\x07", 6, NULL },   /* 4 bytes at ...fc, then 8 at ...ff8 */
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GByteArray *raw = g_byte_array_new();
        g_byte_array_append(raw, good, sizeof good);
        g_byte_array_append(raw, (const guint8 *)cases[i].bytes, (guint)cases[i].len);
        char *path = ta_raw_trace("wrap.at", raw->data, raw->len, NULL);
        for (size_t b = 0; b < G_N_ELEMENTS(ta_bufs); b++) {
            TaResult res = ta_read(path, ta_bufs[b].in, ta_bufs[b].out, ta_bufs[b].batch);
            if (cases[i].message == NULL) {
                CU_ASSERT_PTR_NULL(res.error);
                CU_ASSERT_EQUAL(res.recs->len, 4);
            } else {
                CU_ASSERT_EQUAL(res.recs->len, 2);
                CU_ASSERT(res.error != NULL && res.error->code == ARCHSIM_EXIT_DATAERR);
                ta_assert_message(res.error, path, cases[i].message);
            }
            ta_free(&res);
        }
        g_free(path);
        g_byte_array_free(raw, TRUE);
    }
    AtRecord ld = { .kind = AT_LOAD, .size = 8, .addr = UINT64_MAX - 6, .pc = 0x400 };
    AtRecord rg = { .kind = AT_RANGE_R, .addr = UINT64_MAX - 98, .arg = 100, .pc = 0x404 };
    AtRecord edge = { .kind = AT_LOAD, .size = 8, .addr = UINT64_MAX - 7, .pc = 0x400 };
    ta_writer_refuses(&ld, &edge);
    ta_writer_refuses(&rg, &edge);
}

/* issue 15 item 12 (found by fuzz_threadcore): a gap of 2^63 instructions was read, then
 * thread-core's gap x cpi overflowed and the record cost ~100 cycles. A gap over 2^40 is bad
 * input at the gap field; the writer refuses one; 2^40 itself is fine. */
static void issue15_item12_atrace_gap_bound(void)
{
    static const uint8_t good[] = { 0x80, 0x00, 0x40, 0x20, 0x21, 0x00, 0x01 };
    /* LOAD 8 B, site 0 + G, gap (uvarint), address +0 */
    static const uint8_t too_big[] = { 0x80, 0x01, 0x81, 0x80, 0x80, 0x80, 0x80, 0x20, 0x00 };
    static const uint8_t top[] = { 0x80, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x00 };
    for (int i = 0; i < 2; i++) {
        GByteArray *raw = g_byte_array_new();
        g_byte_array_append(raw, good, sizeof good);
        g_byte_array_append(raw, i == 0 ? too_big : top, sizeof too_big);
        char *path = ta_raw_trace("gap.at", raw->data, raw->len, NULL);
        TaResult res = ta_read(path, 0, 0, 16);
        if (i == 0) {
            CU_ASSERT_EQUAL(res.recs->len, 2);
            ta_assert_message(res.error, path, "byte 9, record 2: gap 1099511627777 too large "
                              "(at most 1099511627776 instructions)");
        } else {
            CU_ASSERT_PTR_NULL(res.error);
            CU_ASSERT_EQUAL_FATAL(res.recs->len, 3);
            CU_ASSERT_EQUAL(g_array_index(res.recs, AtRecord, 2).gap, AT_GAP_MAX);
        }
        ta_free(&res);
        g_free(path);
        g_byte_array_free(raw, TRUE);
    }
    AtRecord big = { .kind = AT_LOAD, .size = 8, .addr = 64, .pc = 0x400, .flags = AT_F_GAP,
                     .gap = AT_GAP_MAX + 1 };
    AtRecord at_max = big;
    at_max.gap = AT_GAP_MAX;
    ta_writer_refuses(&big, &at_max);
}

static void test_bad_stream(void)
{
    /* 200 LOADs at one site: 80 00 40 20, then 199 x 80 00 10 (stride 8) */
    GByteArray *raw = g_byte_array_new();
    static const uint8_t first[] = { 0x80, 0x00, 0x40, 0x20 }, next[] = { 0x80, 0x00, 0x10 };
    g_byte_array_append(raw, first, sizeof first);
    for (int i = 1; i < 200; i++)
        g_byte_array_append(raw, next, sizeof next);
    size_t hl = 0;
    char *path = ta_raw_trace("stream.at", raw->data, raw->len, &hl);
    char *data = NULL;
    gsize len = 0;
    g_assert(g_file_get_contents(path, &data, &len, NULL));
    TaResult res = ta_read(path, 0, 0, 64);
    CU_ASSERT_PTR_NULL(res.error);
    CU_ASSERT_EQUAL(res.recs->len, 200);
    ta_free(&res);

    /* header only: the stream is missing */
    char *cut = ta_write_file("cut.at", data, hl);
    char *want = g_strdup_printf("byte 0, record 0: truncated zlib stream (the file ends at "
                                 "byte %zu)", hl);
    res = ta_read(cut, 0, 0, 64);
    ta_assert_message(res.error, cut, want);
    ta_free(&res);
    g_free(want);
    g_free(cut);

    /* without the Adler-32 trailer: every record is there, the end is not */
    cut = ta_write_file("cut.at", data, len - 4);
    want = g_strdup_printf("byte 601, record 200: truncated zlib stream (the file ends at "
                           "byte %zu)", len - 4);
    for (size_t b = 0; b < G_N_ELEMENTS(ta_bufs); b++) {
        res = ta_read(cut, ta_bufs[b].in, ta_bufs[b].out, ta_bufs[b].batch);
        CU_ASSERT_EQUAL(res.recs->len, 200);
        if (res.error)
            CU_ASSERT_EQUAL(res.error->code, ARCHSIM_EXIT_DATAERR);
        ta_assert_message(res.error, cut, want);
        ta_free(&res);
    }
    g_free(want);
    g_free(cut);

    /* a wrong checksum */
    char *bad = g_memdup2(data, len);
    bad[len - 1] ^= 0x5a;
    char *crc = ta_write_file("crc.at", bad, len);
    want = g_strdup_printf("byte 601, record 200: corrupt zlib stream: incorrect data check "
                           "(near file byte %zu)", len);
    res = ta_read(crc, 0, 0, 64);
    CU_ASSERT_EQUAL(res.recs->len, 200);
    ta_assert_message(res.error, crc, want);
    ta_free(&res);
    g_free(want);

    /* a bad zlib header, and a deflate block of the reserved type 3 */
    memcpy(bad, data, len);
    bad[hl + 1] ^= 0x01;
    g_free(crc);
    crc = ta_write_file("zhdr.at", bad, len);
    want = g_strdup_printf("byte 0, record 0: corrupt zlib stream: incorrect header check "
                           "(near file byte %zu)", hl + 2);
    res = ta_read(crc, 0, 0, 64);
    ta_assert_message(res.error, crc, want);
    ta_free(&res);
    g_free(want);
    memcpy(bad, data, len);
    bad[hl + 2] = 0x07;     /* BFINAL=1, BTYPE=11 */
    g_free(crc);
    crc = ta_write_file("ztype.at", bad, len);
    want = g_strdup_printf("byte 0, record 0: corrupt zlib stream: invalid block type "
                           "(near file byte %zu)", hl + 3);
    res = ta_read(crc, 0, 0, 64);
    ta_assert_message(res.error, crc, want);
    ta_free(&res);
    g_free(want);
    g_free(crc);
    g_free(bad);

    /* trailing garbage: all the records, then the error */
    GByteArray *more = g_byte_array_new();
    g_byte_array_append(more, (const guint8 *)data, (guint)len);
    g_byte_array_append(more, (const guint8 *)"xyz", 3);
    char *tail = ta_write_file("tail.at", more->data, more->len);
    want = g_strdup_printf("byte 601, record 200: 3 bytes of trailing garbage after the zlib "
                           "stream (file byte %zu)", len);
    for (size_t b = 0; b < G_N_ELEMENTS(ta_bufs); b++) {
        res = ta_read(tail, ta_bufs[b].in, ta_bufs[b].out, ta_bufs[b].batch);
        CU_ASSERT_EQUAL(res.recs->len, 200);
        ta_assert_message(res.error, tail, want);
        ta_free(&res);
    }
    g_free(want);
    g_free(tail);
    /* a second zlib stream is garbage too */
    g_byte_array_set_size(more, (guint)len);
    g_byte_array_append(more, (const guint8 *)data + hl, (guint)(len - hl));
    tail = ta_write_file("tail2.at", more->data, more->len);
    want = g_strdup_printf("byte 601, record 200: %zu bytes of trailing garbage after the zlib "
                           "stream (file byte %zu)", len - hl, len);
    res = ta_read(tail, 0, 0, 64);
    ta_assert_message(res.error, tail, want);
    ta_free(&res);
    g_free(want);
    g_free(tail);
    g_byte_array_free(more, TRUE);

    g_free(data);
    g_free(path);
    g_byte_array_free(raw, TRUE);
}

/* Records before an error are handed out first; the error comes on the next call, alone. */
static void test_error_after_records(void)
{
    static const uint8_t raw[] = { 0x80, 0x00, 0x40, 0x20, 0x21, 0x00, 0x01, 0x16 };
    char *path = ta_raw_trace("late.at", raw, sizeof raw, NULL);
    GError *err = NULL;
    AtReader *r = at_reader_open(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    AtRecord buf[8];
    CU_ASSERT_EQUAL(at_reader_read(r, buf, 8, &err), 2);
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_EQUAL(at_reader_read(r, buf, 8, &err), 0);
    ta_assert_message(err, path, "byte 7, record 2: unknown record kind 22");
    g_clear_error(&err);
    CU_ASSERT_EQUAL(at_reader_read(r, buf, 8, NULL), 0);
    CU_ASSERT_EQUAL(at_reader_index(r), 2);
    at_reader_close(r);
    g_free(path);
}

static void test_missing_file(void)
{
    char *path = ta_path("does-not-exist.at");
    TaResult res = ta_read(path, 0, 0, 8);
    CU_ASSERT_FALSE(res.opened);
    CU_ASSERT_PTR_NOT_NULL_FATAL(res.error);
    CU_ASSERT_EQUAL(res.error->domain, ARCHSIM_TRACE_ERROR);
    CU_ASSERT_EQUAL(res.error->code, ARCHSIM_EXIT_NOINPUT);
    char *want = g_strdup_printf("cannot open: %s", g_strerror(ENOENT));
    ta_assert_message(res.error, path, want);
    g_free(want);
    ta_free(&res);
    g_free(path);

    res = ta_read(ta_dir, 0, 0, 8);
    CU_ASSERT_PTR_NOT_NULL_FATAL(res.error);
    CU_ASSERT_EQUAL(res.error->code, ARCHSIM_EXIT_NOINPUT);
    want = g_strdup("not a regular file (a directory)");
    ta_assert_message(res.error, ta_dir, want);
    g_free(want);
    ta_free(&res);
}

/* A small trace of every kind cut at every length: always an error in the trace domain (never a
 * crash, never a clean short read), and the records before the cut are exactly the originals. */
static void test_truncated_every_length(void)
{
    GRand *g = g_rand_new_with_seed(7);
    const size_t n = 120;
    AtRecord *recs = ta_rand_records(g, n, 12);
    AtHeader h = ta_header();
    char *path = ta_write_trace("small.at", &h, recs, n, 1);
    char *data = NULL;
    gsize len = 0;
    g_assert(g_file_get_contents(path, &data, &len, NULL));
    TaResult full = ta_read(path, 0, 0, 64);
    CU_ASSERT_PTR_NULL(full.error);
    ta_assert_records(full.recs, recs, n);
    ta_free(&full);
    int failures = 0;
    for (gsize cut = 0; cut < len && failures < 5; cut++) {
        char *p = ta_write_file("trunc.at", data, cut);
        for (size_t b = 0; b < 3; b += 2) {
            TaResult res = ta_read(p, ta_bufs[b].in, ta_bufs[b].out, ta_bufs[b].batch);
            bool ok = res.error != NULL && res.error->domain == ARCHSIM_TRACE_ERROR &&
                      res.error->code == ARCHSIM_EXIT_DATAERR &&
                      g_str_has_prefix(res.error->message, p) && res.recs->len <= n;
            for (guint i = 0; ok && i < res.recs->len; i++)
                ok = ta_rec_equal(&g_array_index(res.recs, AtRecord, i), &recs[i]);
            if (!ok) {
                fprintf(stderr, "\n  cut at %zu of %zu: %s\n", cut, len,
                        res.error ? res.error->message : "no error");
                failures++;
            }
            CU_ASSERT(ok);
            ta_free(&res);
        }
        g_free(p);
    }
    g_free(data);
    g_free(path);
    g_free(recs);
    g_rand_free(g);
}

/* ---- the CLI ------------------------------------------------------------------------------- */

typedef struct {
    int rc;
    char *out, *err;
} TaCli;

/* Runs atrace_cli_main with stdout and stderr redirected to files. */
static TaCli ta_cli(const char *const *args)
{
    int argc = 0;
    while (args[argc] != NULL)
        argc++;
    char **argv = g_new0(char *, (size_t)argc + 1);
    for (int i = 0; i < argc; i++)
        argv[i] = g_strdup(args[i]);
    char *out_path = ta_path("cli.out"), *err_path = ta_path("cli.err");
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    g_assert(saved_out >= 0 && saved_err >= 0 && fo >= 0 && fe >= 0);
    dup2(fo, 1);
    dup2(fe, 2);
    TaCli res = { atrace_cli_main(argc, argv), NULL, NULL };
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(fo);
    close(fe);
    close(saved_out);
    close(saved_err);
    g_assert(g_file_get_contents(out_path, &res.out, NULL, NULL));
    g_assert(g_file_get_contents(err_path, &res.err, NULL, NULL));
    g_free(out_path);
    g_free(err_path);
    g_strfreev(argv);
    return res;
}

static void ta_cli_free(TaCli *c)
{
    g_free(c->out);
    g_free(c->err);
}

static void ta_assert_contains(const char *text, const char *part)
{
    if (strstr(text, part) == NULL)
        fprintf(stderr, "\n  missing: %s\n  in: %s\n", part, text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, part));
}

/* A function whose address stands for a site in the --addr2line test. */
static __attribute__((noinline)) int ta_marker_site(int x)
{
    return x * 3 + 1;
}

static int ta_main_base(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(uint64_t *)data = info->dlpi_addr;    /* the first object is the executable */
    return 1;
}

static void test_cli(void)
{
    AtHeader h = ta_header();
    h.flags = AT_H_HAS_GAPS | AT_H_GAPS_EXACT;
    AtRecord recs[] = {
        { .kind = AT_LOAD, .size = 8, .addr = 0x1000, .pc = 0x555555555123, .flags = AT_F_GAP,
          .gap = 3 },
        { .kind = AT_RMW, .size = 4, .addr = 0x2000, .pc = 0x555555555200, .mo = AT_MO_ACQ_REL,
          .op = AT_OP_ADD, .flags = AT_F_UNCHANGED | AT_F_GAP, .gap = 2 },
        { .kind = AT_CAS_FAIL, .size = 8, .addr = 0x2000, .pc = 0x555555555300,
          .mo = AT_MO_SEQ_CST, .mo_fail = AT_MO_ACQUIRE },
        { .kind = AT_FENCE, .pc = 0x555555555400, .mo = AT_MO_SEQ_CST, .flags = AT_F_GAP,
          .gap = 1 },
        { .kind = AT_RANGE_W, .addr = 0x3000, .arg = 4096, .pc = 0x555555555500 },
        { .kind = AT_CREATE, .arg = 2, .pc = 0x555555555600, .flags = AT_F_GAP, .gap = 10 },
        { .kind = AT_LOAD, .size = 3, .addr = 0x1008, .pc = 0x555555555123 },
    };
    size_t n = G_N_ELEMENTS(recs);
    char *path = ta_write_trace("cli.at", &h, recs, n, 1);

    TaCli c = ta_cli((const char *const[]){ "trace", "info", path, NULL });
    CU_ASSERT_EQUAL(c.rc, 0);
    ta_assert_contains(c.out, "  version      1 (header 76 bytes)\n");
    ta_assert_contains(c.out, "  flags        0x3 (gaps-exact has-gaps)\n");
    ta_assert_contains(c.out, "  thread       tid 1, parent 0\n");
    ta_assert_contains(c.out, "  load base    0x555555554000\n");
    ta_assert_contains(c.out, "  frontend     synthetic\n");
    ta_assert_contains(c.out, "  compiler     gcc 12.2.0\n");
    ta_assert_contains(c.out, "  cflags       -O2 -pthread\n");
    ta_assert_contains(c.out, "  records      7\n    LOAD         2\n    RMW          1\n"
                              "    CAS_FAIL     1\n    FENCE        1\n    RANGE_W      1\n"
                              "    CREATE       1\n  sites        6\n");
    ta_assert_contains(c.out, "  gaps         4 records with a gap, 16 instructions; "
                              "first record: gap, last record: no gap\n");
    ta_cli_free(&c);

    c = ta_cli((const char *const[]){ "trace", "dump", path, NULL });
    CU_ASSERT_EQUAL(c.rc, 0);
    char *want = g_strdup_printf(
        "# %s: tid 1, parent 0, frontend synthetic, load base 0x555555554000\n"
        "# index kind size address order arg gap pc\n"
        "0 LOAD 8 0x1000 - - 3 0x555555555123\n"
        "1 RMW 4 0x2000 add/acq_rel/unchanged - 2 0x555555555200\n"
        "2 CAS_FAIL 8 0x2000 seq_cst/acquire - - 0x555555555300\n"
        "3 FENCE 0 - seq_cst - 1 0x555555555400\n"
        "4 RANGE_W 0 0x3000 - 4096 - 0x555555555500\n"
        "5 CREATE 0 - - 2 10 0x555555555600\n"
        "6 LOAD 3 0x1008 - - - 0x555555555123\n", path);
    CU_ASSERT_STRING_EQUAL(c.out, want);
    g_free(want);
    ta_cli_free(&c);

    c = ta_cli((const char *const[]){ "trace", "dump", "--limit", "2", path, NULL });
    CU_ASSERT_EQUAL(c.rc, 0);
    ta_assert_contains(c.out, "1 RMW 4 0x2000");
    CU_ASSERT_PTR_NULL(strstr(c.out, "2 CAS_FAIL"));
    ta_cli_free(&c);

    /* usage errors: 64 */
    const char *const *usage[] = {
        (const char *const[]){ "trace", NULL },
        (const char *const[]){ "trace", "frobnicate", NULL },
        (const char *const[]){ "trace", "info", NULL },
        (const char *const[]){ "trace", "info", "--bogus", path, NULL },
        (const char *const[]){ "trace", "dump", NULL },
        (const char *const[]){ "trace", "dump", path, path, NULL },
        (const char *const[]){ "trace", "dump", "--limit", "x", path, NULL },
        (const char *const[]){ "trace", "dump", "--limit", "-1", path, NULL },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(usage); i++) {
        c = ta_cli(usage[i]);
        CU_ASSERT_EQUAL(c.rc, ARCHSIM_EXIT_USAGE);
        ta_assert_contains(c.err, "archsim trace");
        ta_cli_free(&c);
    }
    c = ta_cli((const char *const[]){ "trace", "frobnicate", NULL });
    CU_ASSERT_STRING_EQUAL(c.err, "archsim trace: unknown subcommand 'frobnicate' (expected "
                                  "info, dump, record or gaps)\nTry 'archsim trace --help'.\n");
    ta_cli_free(&c);
    c = ta_cli((const char *const[]){ "trace", "--help", NULL });
    CU_ASSERT_EQUAL(c.rc, 0);
    ta_assert_contains(c.out, "  archsim trace dump FILE [--limit N] [--addr2line BINARY]\n");
    ta_cli_free(&c);
    c = ta_cli((const char *const[]){ "trace", "dump", "--help", NULL });
    CU_ASSERT_EQUAL(c.rc, 0);
    ta_cli_free(&c);

    /* input errors: the GError's code; info goes on with the next file */
    char *missing = ta_path("missing.at");
    char *junk = ta_write_file("junk.at", "junk", 4);
    c = ta_cli((const char *const[]){ "trace", "info", junk, path, missing, NULL });
    CU_ASSERT_EQUAL(c.rc, ARCHSIM_EXIT_DATAERR);
    ta_assert_contains(c.out, "  records      7\n");
    want = g_strdup_printf("%s: byte 0: bad magic", junk);
    ta_assert_contains(c.err, want);
    g_free(want);
    want = g_strdup_printf("%s: cannot open", missing);
    ta_assert_contains(c.err, want);
    g_free(want);
    ta_cli_free(&c);
    c = ta_cli((const char *const[]){ "trace", "dump", missing, NULL });
    CU_ASSERT_EQUAL(c.rc, ARCHSIM_EXIT_NOINPUT);
    ta_cli_free(&c);
    g_free(missing);
    g_free(junk);
    g_free(path);

    /* --addr2line on this very test binary: a site at ta_marker_site's return-address-like pc
     * (entry + 1, load base from the dynamic loader) maps back to the function and this file */
    if (!g_file_test("/usr/bin/addr2line", G_FILE_TEST_IS_EXECUTABLE))
        return;
    uint64_t base = 0;
    dl_iterate_phdr(ta_main_base, &base);
    CU_ASSERT_EQUAL(ta_marker_site(1), 4);
    AtRecord site = { .kind = AT_LOCK_ACQ, .addr = 0x4000,
                      .pc = (uint64_t)(uintptr_t)&ta_marker_site + 1 };
    AtHeader hb = ta_header();
    hb.load_base = base;
    path = ta_write_trace("a2l.at", &hb, &site, 1, 1);
    char *exe = g_file_read_link("/proc/self/exe", NULL);
    c = ta_cli((const char *const[]){ "trace", "dump", "--addr2line", exe, path, NULL });
    CU_ASSERT_EQUAL(c.rc, 0);
    ta_assert_contains(c.out, " ta_marker_site test_atrace.c:");
    ta_cli_free(&c);
    c = ta_cli((const char *const[]){ "trace", "dump", "--addr2line", ta_dir, path, NULL });
    CU_ASSERT_EQUAL(c.rc, ARCHSIM_EXIT_NOINPUT);
    ta_cli_free(&c);
    g_free(exe);
    g_free(path);
}

/* ---- fuzzing inputs ------------------------------------------------------------------------ */

/* Inputs kept from fuzzing (tests/fuzz/atrace/): each reads to a clean end or to an
 * error in the trace domain whose message starts with the path, with the same records and the
 * same message for every buffer geometry (run under ASan/UBSan too: make DEBUG=1). */
static void test_fuzz_corpus(void)
{
    GError *err = NULL;
    GDir *dir = g_dir_open(FUZZ_DIR, 0, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    int files = 0;
    const char *name;
    while ((name = g_dir_read_name(dir)) != NULL) {
        if (g_str_has_prefix(name, ".") || g_str_has_suffix(name, ".md"))
            continue;
        char *path = g_build_filename(FUZZ_DIR, name, NULL);
        TaResult ref = ta_read(path, 0, 0, 97);
        for (size_t b = 1; b < G_N_ELEMENTS(ta_bufs); b++) {
            TaResult res = ta_read(path, ta_bufs[b].in, ta_bufs[b].out, ta_bufs[b].batch);
            CU_ASSERT_EQUAL(res.recs->len, ref.recs->len);
            if (res.recs->len == ref.recs->len)
                ta_assert_records(res.recs, (const AtRecord *)(void *)ref.recs->data,
                                  ref.recs->len);
            CU_ASSERT((res.error == NULL) == (ref.error == NULL));
            if (res.error && ref.error)
                CU_ASSERT_STRING_EQUAL(res.error->message, ref.error->message);
            ta_free(&res);
        }
        if (ref.error) {
            CU_ASSERT_EQUAL(ref.error->domain, ARCHSIM_TRACE_ERROR);
            CU_ASSERT(ref.error->code == ARCHSIM_EXIT_DATAERR ||
                      ref.error->code == ARCHSIM_EXIT_NOINPUT);
            CU_ASSERT(g_str_has_prefix(ref.error->message, path));
        }
        ta_free(&ref);
        g_free(path);
        files++;
    }
    g_dir_close(dir);
    CU_ASSERT(files > 0);
}

static int ta_suite_init(void)
{
    ta_dir = tmpdir_new("test_atrace.XXXXXX");
    return ta_dir == NULL;
}

static int ta_suite_clean(void)
{
    tmpdir_remove(&ta_dir);
    return 0;
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("atrace", ta_suite_init, ta_suite_clean);
    if (s == NULL || !CU_add_test(s, "names", test_names) ||
        !CU_add_test(s, "round trip: random records", test_roundtrip_random) ||
        !CU_add_test(s, "round trip: many sites", test_roundtrip_many_sites) ||
        !CU_add_test(s, "round trip: header", test_header_roundtrip) ||
        !CU_add_test(s, "writer rejects bad records", test_writer_rejects) ||
        !CU_add_test(s, "compression of a strided stream", test_compression) ||
        !CU_add_test(s, "bad header", test_bad_header) ||
        !CU_add_test(s, "bad records", test_bad_records) ||
        !CU_add_test(s, "issue15_item9: wrap past 2^64", issue15_item9_atrace_wrap_past_2_64) ||
        !CU_add_test(s, "issue15_item12: gap over 2^40", issue15_item12_atrace_gap_bound) ||
        !CU_add_test(s, "bad zlib stream", test_bad_stream) ||
        !CU_add_test(s, "error after good records", test_error_after_records) ||
        !CU_add_test(s, "missing file", test_missing_file) ||
        !CU_add_test(s, "create refuses an existing file", test_writer_create_new_only) ||
        !CU_add_test(s, "truncated at every length", test_truncated_every_length) ||
        !CU_add_test(s, "cli", test_cli) ||
        !CU_add_test(s, "fuzz corpus", test_fuzz_corpus)) {
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
