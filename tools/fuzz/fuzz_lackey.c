/* fuzz_lackey.c: AFL++ harness for the lackey trace reader (traces/lackey.c).
 *
 * Reads each file named in argv[1..] three times, with the default 4 MiB buffer and with 64- and
 * 16-byte buffers that put a refill boundary inside almost every line, and abort()s (a crash to
 * AFL) if the readers disagree or break an invariant: sizes 1..4096, known kinds, errors in the
 * trace domain with codes 65/66 and messages that start with the path. Every reference also goes
 * through cgsim, so odd addresses and sizes reach its straddle arithmetic, and then through cgsim
 * under five more geometries, one reference at a time and in batches, each against a plain
 * move-to-front model of cachegrind's rules written here (cgsim.h): all nine counters equal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/cache/cgsim.h"
#include "../../sim/error.h"
#include "../../traces/lackey.h"

typedef struct {
    GArray *refs;       /* MemRef */
    GError *error;
} FuzzResult;

static void fuzz_check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_lackey: invariant broken: %s\n", what);
        abort();
    }
}

/* Reads the whole trace; chunk varies the request size so partial batches get exercised. */
static FuzzResult fuzz_read(const char *path, size_t buffer_size, size_t chunk, CgSim *sim)
{
    FuzzResult res = { g_array_new(FALSE, FALSE, sizeof(MemRef)), NULL };
    LackeyReader *r = lackey_open_buffered(path, buffer_size, &res.error);
    if (r == NULL) {
        fuzz_check(res.error != NULL, "open failed without an error");
        return res;
    }
    MemRef buf[97];
    size_t n;
    while ((n = lackey_read(r, buf, chunk, &res.error)) > 0) {
        fuzz_check(res.error == NULL, "references returned together with an error");
        for (size_t i = 0; i < n; i++) {
            fuzz_check(buf[i].size >= 1 && buf[i].size <= 4096, "size out of range");
            fuzz_check(buf[i].kind <= MEMREF_MODIFY, "unknown kind");
        }
        if (sim != NULL)
            cgsim_access_batch(sim, buf, n);
        g_array_append_vals(res.refs, buf, (guint)n);
    }
    /* Errors are sticky: asking again gives the same error and no references. */
    GError *again = NULL;
    size_t n2 = lackey_read(r, buf, chunk, &again);
    fuzz_check(n2 == 0, "references after the end");
    fuzz_check((again == NULL) == (res.error == NULL), "error not sticky");
    if (again != NULL) {
        fuzz_check(strcmp(again->message, res.error->message) == 0, "sticky error changed");
        g_error_free(again);
    }
    lackey_close(r);
    return res;
}

static void fuzz_check_error(const GError *e, const char *path)
{
    if (e == NULL)
        return;
    fuzz_check(e->domain == ARCHSIM_TRACE_ERROR, "wrong error domain");
    fuzz_check(e->code == ARCHSIM_EXIT_DATAERR || e->code == ARCHSIM_EXIT_NOINPUT,
               "unexpected error code");
    fuzz_check(g_str_has_prefix(e->message, path), "message does not start with the path");
}

static bool fuzz_error_has(const GError *e, const char *text)
{
    return e != NULL && strstr(e->message, text) != NULL;
}

/* A small reader must agree with the big one, except that it may stop early with "line longer
 * than N bytes"; then its references must be a prefix of the big reader's. On a corrupt gzip
 * stream zlib drops what it had decoded when it reports the error, and how much that is depends
 * on the read size, so there the shorter result need only be a prefix of the longer. */
static void fuzz_compare(const FuzzResult *big, const FuzzResult *small)
{
    bool too_long = fuzz_error_has(small->error, ": line longer than ");
    bool corrupt = fuzz_error_has(big->error, ": corrupt gzip stream") ||
                   fuzz_error_has(small->error, ": corrupt gzip stream");
    if (corrupt) {
        fuzz_check(big->error != NULL || small->error != NULL, "corrupt without an error");
        if (small->refs->len > big->refs->len) {
            const FuzzResult *t = big;
            big = small;
            small = t;
        }
    } else if (too_long) {
        fuzz_check(small->refs->len <= big->refs->len, "small reader read more");
    } else {
        fuzz_check(small->refs->len == big->refs->len, "reference counts differ");
        fuzz_check((small->error == NULL) == (big->error == NULL), "one reader failed");
        if (small->error != NULL)
            fuzz_check(strcmp(small->error->message, big->error->message) == 0,
                       "error messages differ");
    }
    for (guint i = 0; i < small->refs->len; i++) {
        const MemRef *a = &g_array_index(big->refs, MemRef, i);
        const MemRef *b = &g_array_index(small->refs, MemRef, i);
        fuzz_check(a->addr == b->addr && a->size == b->size && a->kind == b->kind,
                   "references differ");
    }
}

static void fuzz_free(FuzzResult *r)
{
    g_array_free(r->refs, TRUE);
    g_clear_error(&r->error);
}

/* ---- cachegrind's rules, plainly (cgsim.h; valgrind's cg_sim.c): the differential oracle ---- */

/* One level: each set's block numbers most recently used first; every way starts as block 0
 * (cachegrind's cold tags), so block 0 hits cold in set 0. */
typedef struct {
    uint64_t *tags;
    uint64_t sets;
    uint32_t assoc, line_bits;
} RefLevel;

static RefLevel ref_level(const CgGeom *g)
{
    RefLevel c = { .assoc = g->assoc, .sets = g->size / ((uint64_t)g->assoc * g->line) };
    while ((1u << c.line_bits) < g->line)
        c.line_bits++;
    c.tags = g_new0(uint64_t, c.sets * c.assoc);
    return c;
}

static bool ref_block_miss(RefLevel *c, uint64_t block)
{
    uint64_t *set = c->tags + (block & (c->sets - 1)) * c->assoc;
    uint32_t i = 0;
    while (i < c->assoc && set[i] != block)
        i++;
    bool miss = i == c->assoc;
    if (miss)
        i = c->assoc - 1;                   /* the least recently used way goes */
    memmove(set + 1, set, i * sizeof *set);
    set[0] = block;
    return miss;
}

/* One access: both lines when it straddles two, a miss if either misses. */
static bool ref_access(RefLevel *c, uint64_t addr, uint32_t size)
{
    uint64_t b1 = addr >> c->line_bits, b2 = (addr + size - 1) >> c->line_bits;
    bool m = ref_block_miss(c, b1);
    if (b2 != b1)
        m = ref_block_miss(c, b2) || m;
    return m;
}

/* The nine counters of refs under geometry g[0..2] (I1, D1, LL), in summary-line order. */
static void ref_counts(const CgGeom g[3], const GArray *refs, uint64_t out[9])
{
    RefLevel i1 = ref_level(&g[0]), d1 = ref_level(&g[1]), ll = ref_level(&g[2]);
    uint32_t min_line = MIN(MIN(g[0].line, g[1].line), g[2].line);
    memset(out, 0, 9 * sizeof *out);
    for (guint i = 0; i < refs->len; i++) {
        const MemRef *r = &g_array_index(refs, MemRef, i);
        uint32_t size = MIN(r->size, min_line);      /* cachegrind's clamp */
        int k = r->kind == MEMREF_IFETCH ? 0 : r->kind == MEMREF_STORE ? 6 : 3;   /* M: a read */
        out[k]++;
        if (ref_access(k == 0 ? &i1 : &d1, r->addr, size)) {
            out[k + 1]++;
            if (ref_access(&ll, r->addr, size))
                out[k + 2]++;
        }
    }
    g_free(i1.tags);
    g_free(d1.tags);
    g_free(ll.tags);
}

/* cgsim under each geometry, fed one reference at a time and in batches of 1..61, against the
 * plain model: cold block 0, straddles, the size clamp with mixed line sizes, associativities
 * that are not powers of two, one-set caches, and block numbers past 32 bits (the tag store
 * widens) all reached by the fuzzer's addresses and sizes. */
static void fuzz_differential(const GArray *refs)
{
    static const CgGeom geoms[][3] = {
        { { 256, 1, 16 }, { 256, 2, 16 }, { 1024, 4, 32 } },
        { { 768, 3, 16 }, { 3072, 12, 64 }, { 6144, 6, 128 } },      /* assoc 3, 12, 6 */
        { { 512, 8, 64 }, { 1024, 16, 64 }, { 4096, 64, 64 } },      /* one set each */
        { { 2048, 2, 128 }, { 512, 1, 32 }, { 8192, 2, 16 } },       /* LL line smallest */
        { { 32768, 8, 64 }, { 32768, 8, 64 }, { 1048576, 16, 64 } }, /* cachegrind's default */
    };
    for (size_t gi = 0; gi < G_N_ELEMENTS(geoms); gi++) {
        uint64_t want[9];
        ref_counts(geoms[gi], refs, want);
        for (int batched = 0; batched < 2; batched++) {
            GError *e = NULL;
            CgSim *sim = cgsim_new(&geoms[gi][0], &geoms[gi][1], &geoms[gi][2], &e);
            fuzz_check(sim != NULL, "cgsim_new refused a geometry cachegrind takes");
            const MemRef *all = (const MemRef *)(const void *)refs->data;
            for (guint i = 0, chunk = 1; i < refs->len; i += chunk, chunk = chunk % 61 + 1) {
                guint n = MIN(chunk, refs->len - i);
                if (batched)
                    cgsim_access_batch(sim, all + i, n);
                else
                    for (guint j = 0; j < n; j++)
                        cgsim_access(sim, all + i + j);
            }
            CgCounts c = cgsim_counts(sim);
            uint64_t got[9] = { c.ir, c.i1mr, c.ilmr, c.dr, c.d1mr, c.dlmr, c.dw, c.d1mw, c.dlmw };
            for (int k = 0; k < 9; k++)
                if (got[k] != want[k]) {
                    fprintf(stderr, "fuzz_lackey: geometry %zu, %s: counter %d is %" G_GUINT64_FORMAT
                            ", the plain model says %" G_GUINT64_FORMAT "\n", gi,
                            batched ? "batches" : "one by one", k, got[k], want[k]);
                    fuzz_check(false, "cgsim differs from cachegrind's rules");
                }
            cgsim_free(sim);
        }
    }
}

/* One input: the three readings and cgsim; every failed oracle abort()s. */
static void fuzz_one(const char *path)
{
    CgGeom i1 = { 1024, 2, 32 }, d1 = { 512, 1, 32 }, ll = { 4096, 4, 64 };
    CgSim *sim = cgsim_new(&i1, &d1, &ll, NULL);
    fuzz_check(sim != NULL, "cgsim_new failed");

    FuzzResult big = fuzz_read(path, 4u << 20, 97, sim);
    FuzzResult mid = fuzz_read(path, 64, 5, NULL);
    FuzzResult tiny = fuzz_read(path, 16, 1, NULL);
    fuzz_check_error(big.error, path);
    fuzz_check_error(mid.error, path);
    fuzz_check_error(tiny.error, path);
    fuzz_compare(&big, &mid);
    fuzz_compare(&big, &tiny);

    CgCounts c = cgsim_counts(sim);
    fuzz_check(c.ir + c.dr + c.dw == big.refs->len, "cgsim lost references");
    fuzz_check(c.i1mr <= c.ir && c.ilmr <= c.i1mr && c.d1mr <= c.dr && c.dlmr <= c.d1mr &&
               c.d1mw <= c.dw && c.dlmw <= c.d1mw, "miss counts inconsistent");
    fuzz_differential(big.refs);
    fuzz_free(&big);
    fuzz_free(&mid);
    fuzz_free(&tiny);
    cgsim_free(sim);
}

/* The harness convention of tools/fuzz/README.md: each file named in argv[1..] is one input; a
 * trace the reader rejects (65/66) is a pass; exit 0 when every file passed. */
int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fuzz_lackey FILE...\n");
        return 64;
    }
    for (int i = 1; i < argc; i++)
        fuzz_one(argv[i]);
    return 0;
}
