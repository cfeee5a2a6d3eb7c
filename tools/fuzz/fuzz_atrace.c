/* fuzz_atrace.c: AFL++ harness for the trace format reader (traces/atrace_read.c).
 *
 *   fuzz_atrace FILE...        check each file; abort() (a crash to AFL) when an oracle fails
 *   fuzz_atrace --seeds DIR    write a seed corpus of valid traces (written by atrace_write.c)
 *
 * Each input is checked twice: as a trace file, and as a header followed by uncompressed records
 * (deflated by the harness, see fuzz_raw), so that mutations reach the record decoder.
 * Each file is read three times, with the default buffers and with tiny ones that put a refill
 * boundary inside nearly every record; the readers must agree on every record and on the error.
 * Every record handed out must be one the writer accepts, and writing them again (with the
 * header) and reading that back must give them again: the reader never invents a record the
 * format cannot express.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../../sim/error.h"
#include "../../traces/atrace.h"

/* A small file can inflate ~1000-fold; stop after this many records so one input stays fast. */
#define FUZZ_MAX_RECORDS 100000u

typedef struct {
    GArray *recs;       /* AtRecord */
    GError *error;
    AtHeader header;
    bool opened;
    bool capped;        /* stopped at FUZZ_MAX_RECORDS */
} FuzzResult;

static void fuzz_check(bool ok, const char *path, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_atrace: %s: invariant broken: %s\n", path, what);
        abort();
    }
}

static FuzzResult fuzz_read(const char *path, size_t in, size_t out, size_t batch)
{
    FuzzResult res = { g_array_new(FALSE, TRUE, sizeof(AtRecord)), NULL, { 0 }, false, false };
    AtReader *r = in ? at_reader_open_buffered(path, in, out, &res.error)
                     : at_reader_open(path, &res.error);
    if (r == NULL) {
        fuzz_check(res.error != NULL, path, "open failed without an error");
        return res;
    }
    res.opened = true;
    res.header = *at_reader_header(r);
    AtRecord buf[97];
    size_t n;
    while (res.recs->len < FUZZ_MAX_RECORDS &&
           (n = at_reader_read(r, buf, MIN(batch, FUZZ_MAX_RECORDS - res.recs->len),
                               &res.error)) > 0) {
        fuzz_check(res.error == NULL, path, "records returned together with an error");
        g_array_append_vals(res.recs, buf, (guint)n);
        double p = at_reader_progress(r);
        fuzz_check(p >= 0.0 && p <= 1.0, path, "progress out of [0, 1]");
    }
    fuzz_check(at_reader_index(r) == res.recs->len, path, "index differs from records read");
    if (res.recs->len == FUZZ_MAX_RECORDS && res.error == NULL) {
        res.capped = true;
    } else {
        /* the end and errors are sticky */
        GError *again = NULL;
        fuzz_check(at_reader_read(r, buf, batch, &again) == 0, path, "records after the end");
        fuzz_check((again == NULL) == (res.error == NULL), path, "error not sticky");
        if (again != NULL) {
            fuzz_check(strcmp(again->message, res.error->message) == 0, path,
                       "sticky error changed");
            g_error_free(again);
        }
    }
    at_reader_close(r);
    return res;
}

static bool fuzz_rec_equal(const AtRecord *a, const AtRecord *b)
{
    return a->kind == b->kind && a->mo == b->mo && a->mo_fail == b->mo_fail && a->op == b->op &&
           a->flags == b->flags && a->size == b->size && a->addr == b->addr &&
           a->arg == b->arg && a->pc == b->pc && a->gap == b->gap;
}

static bool fuzz_header_equal(const AtHeader *a, const AtHeader *b)
{
    return a->version == b->version && a->flags == b->flags && a->tid == b->tid &&
           a->parent == b->parent && a->load_base == b->load_base &&
           !strcmp(a->frontend, b->frontend) && !strcmp(a->compiler, b->compiler) &&
           !strcmp(a->cflags, b->cflags);
}

static void fuzz_compare(const char *path, const FuzzResult *a, const FuzzResult *b)
{
    fuzz_check(a->opened == b->opened, path, "one reader opened, the other did not");
    guint n = MIN(a->recs->len, b->recs->len);
    if (!a->capped && !b->capped) {
        fuzz_check(a->recs->len == b->recs->len, path, "record counts differ");
        fuzz_check((a->error == NULL) == (b->error == NULL), path, "one reader failed");
        if (a->error != NULL)
            fuzz_check(strcmp(a->error->message, b->error->message) == 0, path,
                       "error messages differ");
    }
    for (guint i = 0; i < n; i++)
        fuzz_check(fuzz_rec_equal(&g_array_index(a->recs, AtRecord, i),
                                  &g_array_index(b->recs, AtRecord, i)), path, "records differ");
    if (a->opened)
        fuzz_check(fuzz_header_equal(&a->header, &b->header), path, "headers differ");
}

static void fuzz_check_error(const char *path, const GError *e)
{
    if (e == NULL)
        return;
    fuzz_check(e->domain == ARCHSIM_TRACE_ERROR, path, "wrong error domain");
    fuzz_check(e->code == ARCHSIM_EXIT_DATAERR || e->code == ARCHSIM_EXIT_NOINPUT, path,
               "unexpected error code");
    fuzz_check(g_str_has_prefix(e->message, path) &&
               !strncmp(e->message + strlen(path), ": byte ", 7), path,
               "message does not start with \"PATH: byte \"");
}

static void fuzz_tmp_name(char *buf, size_t len, const char *what);

/* Writes the records again and reads them back: the writer accepts every one, and the copy
 * reads back identical. */
static void fuzz_rewrite(const char *path, const FuzzResult *res)
{
    char tmp[128];
    fuzz_tmp_name(tmp, sizeof tmp, "rewrite");
    AtWriter *w = at_writer_open(tmp, &res->header, 1);
    fuzz_check(w != NULL, path, "the writer refused the header the reader returned");
    for (guint i = 0; i < res->recs->len; i++)
        fuzz_check(at_writer_put(w, &g_array_index(res->recs, AtRecord, i)) == 0, path,
                   "the writer refused a record the reader returned");
    fuzz_check(at_writer_close(w) == 0, path, "at_writer_close failed");
    FuzzResult again = fuzz_read(tmp, 0, 0, 97);
    unlink(tmp);
    fuzz_check(again.error == NULL, path, "the rewritten trace does not read back");
    fuzz_check(again.recs->len == res->recs->len, path, "the rewritten trace lost records");
    for (guint i = 0; i < again.recs->len; i++)
        fuzz_check(fuzz_rec_equal(&g_array_index(again.recs, AtRecord, i),
                                  &g_array_index(res->recs, AtRecord, i)), path,
                   "the rewritten trace reads back different records");
    fuzz_check(fuzz_header_equal(&again.header, &res->header), path,
               "the rewritten trace reads back a different header");
    g_array_free(again.recs, TRUE);
}

static void fuzz_free(FuzzResult *r)
{
    g_array_free(r->recs, TRUE);
    g_clear_error(&r->error);
}

/* Checks one input; returns the exit code it would give (0, 65, 66). */
static int fuzz_one(const char *path)
{
    FuzzResult big = fuzz_read(path, 0, 0, 97);
    FuzzResult tiny = fuzz_read(path, 1, AT_RECORD_MAX, 1);
    FuzzResult mid = fuzz_read(path, 13, 100, 5);
    fuzz_check_error(path, big.error);
    fuzz_check_error(path, tiny.error);
    fuzz_check_error(path, mid.error);
    fuzz_compare(path, &big, &tiny);
    fuzz_compare(path, &big, &mid);
    if (big.opened)
        fuzz_rewrite(path, &big);
    int rc = big.error != NULL ? big.error->code : 0;
    fuzz_free(&big);
    fuzz_free(&tiny);
    fuzz_free(&mid);
    return rc;
}

/* A scratch file name for this process, in memory when /dev/shm is there. */
static void fuzz_tmp_name(char *buf, size_t len, const char *what)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : g_get_tmp_dir();
    g_snprintf(buf, len, "%s/fuzz_atrace.%s.%d", dir, what, (int)getpid());
}

/* The input read a second way: a header followed by *uncompressed* records, which are deflated
 * into a proper zlib stream and checked like any trace. Mutations of those records then reach
 * the record decoder with a valid checksum behind them, which the first way (where almost
 * every mutation breaks Adler-32 or deflate itself) rarely allows: streams that end inside a
 * record, long site tables, many records. Inputs whose header_len is not inside the file are
 * left to the first way. */
static int fuzz_raw(const char *path)
{
    char *data = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &data, &len, NULL) || len < 16) {
        g_free(data);
        return 0;
    }
    const uint8_t *b = (const uint8_t *)data;
    uint32_t hl = (uint32_t)b[12] | (uint32_t)b[13] << 8 | (uint32_t)b[14] << 16 |
                  (uint32_t)b[15] << 24;
    if (hl < AT_HEADER_FIXED || hl > len) {
        g_free(data);
        return 0;
    }
    uLongf zlen = compressBound((uLong)(len - hl));
    uint8_t *z = g_malloc(hl + zlen);
    memcpy(z, data, hl);
    fuzz_check(compress2(z + hl, &zlen, b + hl, (uLong)(len - hl), 1) == Z_OK, path,
               "compress2 failed");
    char tmp[128];
    fuzz_tmp_name(tmp, sizeof tmp, "raw");
    fuzz_check(g_file_set_contents(tmp, (const char *)z, (gssize)(hl + zlen), NULL), path,
               "cannot write the scratch file");
    g_free(z);
    g_free(data);
    int rc = fuzz_one(tmp);
    unlink(tmp);
    return rc;
}

/* ---- seeds --------------------------------------------------------------------------------- */

static uint64_t fuzz_rng = 0x9e3779b97f4a7c15u;

static uint64_t fuzz_rand(void)
{
    fuzz_rng ^= fuzz_rng << 13;
    fuzz_rng ^= fuzz_rng >> 7;
    fuzz_rng ^= fuzz_rng << 17;
    return fuzz_rng;
}

/* A valid record of the given kind, fields drawn from small ranges so seeds stay small. */
static AtRecord fuzz_seed_record(unsigned kind, uint64_t pc, uint64_t addr, bool gaps)
{
    AtRecord r = { 0 };
    uint32_t bit = AT_KIND_BIT(kind);
    static const uint32_t sizes[] = { 1, 2, 4, 8, 16, 3, 64 };
    r.kind = (uint8_t)kind;
    r.pc = pc;
    if (kind <= AT_CAS_FAIL)
        r.size = sizes[fuzz_rand() % G_N_ELEMENTS(sizes)];
    if (gaps) {
        r.flags |= AT_F_GAP;
        r.gap = fuzz_rand() % 300;
    }
    if (bit & AT_KINDS_ADDR)
        r.addr = addr;
    if (bit & AT_KINDS_ARG)
        r.arg = fuzz_rand() % 5000;
    if (bit & AT_KINDS_ATOMIC)
        r.mo = (uint8_t)(fuzz_rand() % (AT_MO_SEQ_CST + 1));
    if (kind == AT_RMW) {
        r.op = (uint8_t)(fuzz_rand() % (AT_OP_OTHER + 1));
        if (fuzz_rand() % 2)
            r.flags |= AT_F_UNCHANGED;
    }
    if (bit & AT_KINDS_CAS)
        r.mo_fail = (uint8_t)(fuzz_rand() % (AT_MO_SEQ_CST + 1));
    return r;
}

static int fuzz_write_seed(const char *dir, const char *name, int zlevel, unsigned nrecs,
                           unsigned nsites, bool gaps, bool all_kinds)
{
    char *path = g_build_filename(dir, name, NULL);
    AtHeader h = { .version = ATRACE_VERSION, .flags = gaps ? AT_H_HAS_GAPS : 0, .tid = 1,
                   .parent = 0, .load_base = 0x555555554000 };
    g_strlcpy(h.frontend, "synthetic", sizeof h.frontend);
    g_strlcpy(h.compiler, "gcc 12.2.0", sizeof h.compiler);
    g_strlcpy(h.cflags, "-O2", sizeof h.cflags);
    AtWriter *w = at_writer_open(path, &h, zlevel);
    if (w == NULL) {
        fprintf(stderr, "fuzz_atrace: %s: %s\n", path, g_strerror(errno));
        g_free(path);
        return 1;
    }
    for (unsigned i = 0; i < nrecs; i++) {
        unsigned kind = all_kinds ? (i < AT_KINDS ? i : (unsigned)(fuzz_rand() % AT_KINDS))
                                  : (i % 4 == 3 ? AT_STORE : AT_LOAD);
        unsigned s = (unsigned)(fuzz_rand() % nsites);
        uint64_t addr = all_kinds ? 0x7ffd0000 + (fuzz_rand() % 4096) * 8
                                  : 0x10000000 + (uint64_t)s * 0x100000 + i * 8;
        AtRecord r = fuzz_seed_record(kind, 0x555555555000 + s * 16, addr, gaps);
        if (at_writer_put(w, &r) != 0)
            abort();
    }
    int rc = at_writer_close(w) != 0;
    g_free(path);
    return rc;
}

/* Rewrites the trace dir/name as dir/raw-name: the same header, then its records inflated (the
 * form fuzz_raw reads). */
static int fuzz_write_raw(const char *dir, const char *name)
{
    char *path = g_build_filename(dir, name, NULL);
    char *raw_name = g_strconcat("raw-", name, NULL);
    char *raw_path = g_build_filename(dir, raw_name, NULL);
    char *data = NULL;
    gsize len = 0;
    int rc = 1;
    if (g_file_get_contents(path, &data, &len, NULL) && len >= AT_HEADER_FIXED) {
        const uint8_t *b = (const uint8_t *)data;
        uint32_t hl = (uint32_t)b[12] | (uint32_t)b[13] << 8 | (uint32_t)b[14] << 16 |
                      (uint32_t)b[15] << 24;
        uLongf cap = 1 << 20;
        uint8_t *out = g_malloc(hl + cap);
        memcpy(out, data, hl);
        if (hl <= len && uncompress(out + hl, &cap, b + hl, (uLong)(len - hl)) == Z_OK &&
            g_file_set_contents(raw_path, (const char *)out, (gssize)(hl + cap), NULL))
            rc = 0;
        g_free(out);
    }
    g_free(data);
    g_free(path);
    g_free(raw_name);
    g_free(raw_path);
    return rc;
}

static int fuzz_seeds(const char *dir)
{
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        fprintf(stderr, "fuzz_atrace: %s: %s\n", dir, g_strerror(errno));
        return 1;
    }
    /* level 0 (stored blocks) lets mutations reach the record bytes without breaking deflate */
    return fuzz_write_seed(dir, "empty.at", 1, 0, 1, false, false) |
           fuzz_write_seed(dir, "kinds-stored.at", 0, 40, 6, true, true) |
           fuzz_write_seed(dir, "kinds-nogap-stored.at", 0, 30, 3, false, true) |
           fuzz_write_seed(dir, "kinds-z1.at", 1, 60, 8, true, true) |
           fuzz_write_seed(dir, "strided-stored.at", 0, 24, 2, false, false) |
           fuzz_write_seed(dir, "strided-z6.at", 6, 2000, 3, true, false) |
           fuzz_write_seed(dir, "sites-stored.at", 0, 200, 90, false, false) |
           fuzz_write_raw(dir, "kinds-z1.at") | fuzz_write_raw(dir, "sites-stored.at") |
           fuzz_write_raw(dir, "strided-stored.at");
}

/* The harness convention of tools/fuzz/README.md: each file named in argv[1..] is one input; a
 * trace the reader rejects (65/66) is a pass; a failed oracle abort()s; exit 0 when every file
 * passed. */
int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--seeds"))
        return fuzz_seeds(argv[2]);
    if (argc < 2) {
        fprintf(stderr, "usage: fuzz_atrace FILE...\n       fuzz_atrace --seeds DIR\n");
        return 64;
    }
    for (int i = 1; i < argc; i++) {
        (void)fuzz_one(argv[i]);
        (void)fuzz_raw(argv[i]);
    }
    return 0;
}
