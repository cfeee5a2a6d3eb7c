/* test_tagstore.c: the one tag store (models/cache/tagstore.h) and its replacement policies
 * against reference models written here another way (per-way arrays and loops, a PLRU tree of
 * booleans walked by range halving, SRRIP ageing one step at a time), on random access streams;
 * sector masks, ways given up to shared memory, paging of a large store, the MSHR table; and the
 * GPU's line-to-slice hashes (models/gpu/coalesce.h): each is a permutation of the slices for a
 * fixed slice-local index, and the xor hash spreads power-of-two strides over every slice. */
#include <CUnit/Basic.h>
#include <glib.h>
#include <string.h>

#include "../../models/cache/tagstore.h"
#include "../../models/gpu/coalesce.h"
#include "../../sim/rng.h"

enum { P_LRU, P_FIFO, P_RANDOM, P_PLRU, P_SRRIP };

/* ---- reference: one set ---- */
typedef struct {
    uint32_t assoc;
    uint64_t block[64];
    bool valid[64];
    uint64_t used[64], filled[64];   /* LRU, FIFO stamps */
    bool tree[63];                   /* PLRU: true = the victim is in the right half */
    int rrpv[64];
    uint64_t clock;
} RefSet;

static void plru_ref_touch(RefSet *r, uint32_t w)
{
    uint32_t lo = 0, hi = r->assoc, node = 0;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        bool right = w >= mid;
        r->tree[node] = !right;      /* point away from the way just used */
        node = right ? 2 * node + 2 : 2 * node + 1;
        if (right)
            lo = mid;
        else
            hi = mid;
    }
}

static uint32_t plru_ref_victim(const RefSet *r)
{
    uint32_t lo = 0, hi = r->assoc, node = 0;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (r->tree[node]) {
            lo = mid;
            node = 2 * node + 2;
        } else {
            hi = mid;
            node = 2 * node + 1;
        }
    }
    return lo;
}

/* An access to block: true on a hit; *evicted gets the replaced block (or UINT64_MAX). */
static bool ref_access(RefSet *r, int pol, uint64_t block, uint64_t *evicted)
{
    *evicted = UINT64_MAX;
    r->clock++;
    for (uint32_t w = 0; w < r->assoc; w++)
        if (r->valid[w] && r->block[w] == block) {
            r->used[w] = r->clock;
            if (pol == P_PLRU)
                plru_ref_touch(r, w);
            r->rrpv[w] = 0;
            return true;
        }
    uint32_t v = r->assoc;
    for (uint32_t w = 0; w < r->assoc && v == r->assoc; w++)
        if (!r->valid[w])
            v = w;
    if (v == r->assoc) {
        switch (pol) {
        case P_LRU:
        case P_FIFO: {
            const uint64_t *st = pol == P_LRU ? r->used : r->filled;
            v = 0;
            for (uint32_t w = 1; w < r->assoc; w++)
                if (st[w] < st[v])
                    v = w;
            break;
        }
        case P_PLRU:
            v = plru_ref_victim(r);
            break;
        case P_SRRIP:
            for (;;) {
                for (uint32_t w = 0; w < r->assoc && v == r->assoc; w++)
                    if (r->rrpv[w] == 3)
                        v = w;
                if (v < r->assoc)
                    break;
                for (uint32_t w = 0; w < r->assoc; w++)
                    r->rrpv[w]++;
            }
            break;
        }
        *evicted = r->block[v];
    }
    r->block[v] = block;
    r->valid[v] = true;
    r->used[v] = r->filled[v] = r->clock;
    r->rrpv[v] = 2;
    if (pol == P_PLRU)
        plru_ref_touch(r, v);
    return false;
}

/* The same access on the tag store. */
static bool ts_access(TagStore *ts, uint64_t block, uint64_t *evicted, SimRng *rng)
{
    TagSet s;
    *evicted = UINT64_MAX;
    int w = tag_find(ts, block, &s);
    if (w >= 0) {
        tag_touch(ts, &s, (uint32_t)w);
        return true;
    }
    s = tag_set_touch(ts, block);
    bool evict;
    uint32_t v = tag_victim(ts, &s, rng, &evict);
    if (evict)
        *evicted = tag_block(&s, v);
    tag_fill(ts, &s, v, block, 1, 0);
    return false;
}

static void against_reference(int pol, uint32_t sets, uint32_t assoc, uint64_t seed)
{
    TagGeom g = { .sets = sets, .assoc = assoc, .line = 64, .sectors = 1, .interleave = 1,
                  .repl = pol };
    CU_ASSERT_TRUE_FATAL(tag_geom_check(&g, NULL));
    TagStore ts;
    tag_init(&ts, &g, NULL);
    RefSet *ref = g_new0(RefSet, sets);
    for (uint32_t i = 0; i < sets; i++)
        ref[i].assoc = assoc;
    SimRng r;
    sim_rng_seed(&r, seed, "tagstore");
    int bad = 0;
    uint64_t hits = 0;
    for (int step = 0; step < 100000; step++) {
        /* a working set of about three times the ways per set, with a hot part */
        uint64_t block = sim_rng_below(&r, 4) == 0 ? sim_rng_below(&r, (uint64_t)sets * 2)
                                                   : sim_rng_below(&r, (uint64_t)sets * assoc * 3);
        uint64_t e1, e2;
        bool h1 = ts_access(&ts, block, &e1, NULL);
        bool h2 = ref_access(&ref[block % sets], pol, block, &e2);
        hits += h1;
        if (h1 != h2 || e1 != e2)
            bad++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_TRUE(hits > 1000 && hits < 99000);   /* the stream hits and misses */
    tag_free(&ts);
    g_free(ref);
}

/* The fill's way: the first way whose valid sector mask is 0 (masks of any bits: 0x80 and 0x01
 * are both valid), else an eviction; for 1..20 ways, so both the eight-at-a-time scan and the
 * ways after it are met. */
static void test_victim_first_invalid(void)
{
    SimRng r;
    sim_rng_seed(&r, 11, "victim");
    int bad = 0;
    for (uint32_t assoc = 1; assoc <= 20; assoc++) {
        TagGeom g = { .sets = 4, .assoc = assoc, .line = 64, .sectors = 8, .interleave = 1,
                      .repl = P_LRU };
        CU_ASSERT_TRUE_FATAL(tag_geom_check(&g, NULL));
        TagStore ts;
        tag_init(&ts, &g, NULL);
        for (int trial = 0; trial < 400; trial++) {
            TagSet s = tag_set_touch(&ts, (uint64_t)trial);
            uint32_t want = assoc;
            for (uint32_t w = 0; w < assoc; w++) {
                uint64_t pick = sim_rng_below(&r, 4);
                s.valid[w] = pick == 0 ? 0 : pick == 1 ? 0x80 : pick == 2 ? 0x01
                                                              : (uint8_t)(1 + sim_rng_below(&r, 255));
                s.dirty[w] = (uint8_t)sim_rng_below(&r, 256);   /* bytes beside valid: ignored */
                if (s.valid[w] == 0 && want == assoc)
                    want = w;
            }
            bool evict;
            uint32_t v = tag_victim(&ts, &s, NULL, &evict);
            if (want < assoc ? (evict || v != want) : (!evict || v >= assoc))
                bad++;
        }
        tag_free(&ts);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

static void test_lru(void) { against_reference(P_LRU, 16, 8, 1); against_reference(P_LRU, 1, 5, 2); }
static void test_fifo(void) { against_reference(P_FIFO, 16, 8, 3); against_reference(P_FIFO, 4, 3, 4); }
static void test_plru(void) { against_reference(P_PLRU, 16, 8, 5); against_reference(P_PLRU, 2, 64, 6); }
static void test_srrip(void) { against_reference(P_SRRIP, 16, 8, 7); against_reference(P_SRRIP, 8, 16, 8); }

/* A hand-worked tree-PLRU sequence on 4 ways: fills 0..3, a hit on 0, then the victims. */
/* The LRU stack (cgsim's layout) against a plain list per set, for every associativity from 1
 * to 17 (8 and 16 take the vector path), random blocks that hit at every depth, and a block past
 * 32 bits half way (the store widens): the same miss answers and the same tags in the same
 * order. */
static void test_lru_stack(void)
{
    GRand *r = g_rand_new_with_seed(42);
    for (uint32_t assoc = 1; assoc <= 17; assoc++) {
        const uint64_t sets = 4;
        TagStack t;
        CU_ASSERT_FATAL(tag_stack_init(&t, sets, assoc));
        uint64_t *ref = g_new0(uint64_t, sets * assoc);    /* zeroed, as the store starts */
        for (int i = 0; i < 20000; i++) {
            /* a small pool of blocks per set: hits at every depth, and misses */
            uint64_t block = (uint64_t)g_rand_int_range(r, 0, (gint32)(sets * (assoc + 3)));
            if (i == 10000)
                block = (1ull << 33) + 1;
            if (i > 10000 && g_rand_int_range(r, 0, 4) == 0)
                block += 1ull << 33;
            uint64_t *set = ref + (block & (sets - 1)) * assoc;
            uint32_t pos = assoc - 1;
            bool miss = true;
            for (uint32_t w = 0; w < assoc; w++)
                if (set[w] == block) {
                    pos = w;
                    miss = false;
                    break;
                }
            memmove(set + 1, set, pos * sizeof *set);
            set[0] = block;
            CU_ASSERT_EQUAL_FATAL(tag_stack_miss(&t, block), miss);
        }
        for (uint64_t k = 0; k < sets * assoc; k++)
            CU_ASSERT_EQUAL_FATAL(t.tags ? t.tags[k] : t.tags32[k], ref[k]);
        CU_ASSERT_PTR_NOT_NULL(t.tags);                    /* it did widen */
        tag_stack_free(&t);
        g_free(ref);
    }
    g_rand_free(r);
}

static void test_plru_by_hand(void)
{
    TagGeom g = { .sets = 1, .assoc = 4, .line = 64, .sectors = 1, .interleave = 1,
                  .repl = P_PLRU };
    TagStore ts;
    tag_init(&ts, &g, NULL);
    uint64_t e;
    for (uint64_t b = 10; b < 14; b++)
        ts_access(&ts, b, &e, NULL);        /* ways 0..3; after way 3: root -> left, node 1
                                               (ways 0, 1) -> way 0, node 2 (ways 2, 3) -> 2 */
    ts_access(&ts, 10, &e, NULL);           /* hit way 0: root -> right, node 1 -> way 1 */
    ts_access(&ts, 20, &e, NULL);           /* victim: right, node 2 -> way 2 (block 12) */
    CU_ASSERT_EQUAL(e, 12);
    ts_access(&ts, 21, &e, NULL);           /* way 2 used: root -> left, node 1 -> way 1 (11) */
    CU_ASSERT_EQUAL(e, 11);
    tag_free(&ts);
}

/* One of N interleaved banks indexes its sets by block / N: a shift for 1, 2, 4... banks, a
 * division for the others; both against the plain formula on random blocks, and a block found
 * after its fill in every such bank. */
static void test_interleave_index(void)
{
    static const uint64_t banks[] = { 1, 2, 3, 4, 5, 6, 8, 12, 64, 80, 4096 };
    GRand *r = g_rand_new_with_seed(18);
    for (size_t i = 0; i < G_N_ELEMENTS(banks); i++) {
        TagGeom g = { .sets = 64, .assoc = 4, .line = 64, .sectors = 1,
                      .interleave = banks[i], .repl = 0 };
        TagStore ts;
        tag_init(&ts, &g, NULL);
        int bad = 0;
        for (int k = 0; k < 2000; k++) {
            uint64_t block = ((uint64_t)g_rand_int(r) << 32 | g_rand_int(r)) >> (k % 40);
            bad += tag_set_index(&ts, block) != (block / banks[i]) % 64;
        }
        CU_ASSERT_EQUAL(bad, 0);
        uint64_t e;
        for (uint64_t b = 0; b < 256; b++)
            ts_access(&ts, b * banks[i] + 7 % banks[i], &e, NULL);
        TagSet set;
        CU_ASSERT(tag_find(&ts, 255 * banks[i] + 7 % banks[i], &set) >= 0);
        tag_free(&ts);
    }
    g_rand_free(r);
}

/* random: the victim comes from the caller's generator, so one seed gives one sequence */
static void test_random_reproducible(void)
{
    uint64_t out[2][200];
    for (int run = 0; run < 2; run++) {
        TagGeom g = { .sets = 4, .assoc = 4, .line = 64, .sectors = 1, .interleave = 1,
                      .repl = P_RANDOM };
        TagStore ts;
        tag_init(&ts, &g, NULL);
        SimRng r;
        sim_rng_seed(&r, 42, "victims");
        for (int i = 0; i < 200; i++)
            ts_access(&ts, (uint64_t)i * 4, &out[run][i], &r);   /* all in set 0 */
        tag_free(&ts);
    }
    CU_ASSERT_EQUAL(memcmp(out[0], out[1], sizeof out[0]), 0);
    int evictions = 0;
    for (int i = 0; i < 200; i++)
        evictions += out[0][i] != UINT64_MAX;
    CU_ASSERT_EQUAL(evictions, 196);
}

static void test_geometry_errors(void)
{
    char *p = NULL;
    TagGeom g = { .sets = 3, .assoc = 4, .line = 64, .sectors = 1, .interleave = 1, .repl = 0 };
    CU_ASSERT_FALSE(tag_geom_check(&g, &p));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "power of two"));
    g_free(p);
    g = (TagGeom){ .sets = 4, .assoc = 6, .line = 64, .sectors = 1, .interleave = 1,
                   .repl = P_PLRU };
    CU_ASSERT_FALSE(tag_geom_check(&g, &p));
    CU_ASSERT_PTR_NOT_NULL(strstr(p, "plru needs a power-of-two number of ways"));
    g_free(p);
    g = (TagGeom){ .sets = 4, .assoc = 4, .line = 128, .sectors = 3, .interleave = 1, .repl = 0 };
    CU_ASSERT_FALSE(tag_geom_check(&g, &p));
    g_free(p);
    g.sectors = 4;
    CU_ASSERT_TRUE(tag_geom_check(&g, NULL));
}

/* 128-byte lines of four 32-byte sectors: masks of byte ranges, fills of some sectors, a later
 * fill of others, and the way found again */
static void test_sectors(void)
{
    TagGeom g = { .sets = 4, .assoc = 2, .line = 128, .sectors = 4, .interleave = 1, .repl = 0 };
    TagStore ts;
    tag_init(&ts, &g, NULL);
    CU_ASSERT_EQUAL(tag_sector_mask(&ts, 0x1000, 4), 0x1);
    CU_ASSERT_EQUAL(tag_sector_mask(&ts, 0x101c, 8), 0x3);      /* straddles sectors 0 and 1 */
    CU_ASSERT_EQUAL(tag_sector_mask(&ts, 0x1060, 32), 0x8);
    CU_ASSERT_EQUAL(tag_sector_mask(&ts, 0x1000, 128), 0xf);
    uint64_t block = 0x1000 / 128;
    TagSet s = tag_set_touch(&ts, block);
    bool evict;
    uint32_t w = tag_victim(&ts, &s, NULL, &evict);
    CU_ASSERT_FALSE(evict);
    tag_fill(&ts, &s, w, block, 0x5, 0x4);
    TagSet s2 = { 0 };
    int f = tag_find(&ts, block, &s2);
    CU_ASSERT_EQUAL(f, (int)w);
    CU_ASSERT_EQUAL(s2.valid[f], 0x5);
    CU_ASSERT_EQUAL(s2.dirty[f], 0x4);
    s2.valid[f] |= 0x2;                                          /* a later sector fill */
    CU_ASSERT_EQUAL(s2.valid[f] & 0x7, 0x7);
    tag_free(&ts);
}

/* the GPU L1's carve-out: fewer ways in use drops the lines beyond them, and victims come only
 * from the ways in use */
static void test_ways_in_use(void)
{
    TagGeom g = { .sets = 1, .assoc = 8, .line = 128, .sectors = 4, .interleave = 1, .repl = 0 };
    TagStore ts;
    tag_init(&ts, &g, NULL);
    uint64_t e;
    for (uint64_t b = 0; b < 8; b++)
        ts_access(&ts, b, &e, NULL);
    tag_set_ways(&ts, 3);
    TagSet s;
    CU_ASSERT_TRUE(tag_find(&ts, 2, &s) == 2);
    CU_ASSERT_TRUE(tag_find(&ts, 3, &s) < 0);
    CU_ASSERT_TRUE(tag_find(&ts, 7, &s) < 0);
    ts_access(&ts, 100, &e, NULL);
    CU_ASSERT_EQUAL(e, 0);                    /* LRU among ways 0..2 */
    tag_clear(&ts);
    CU_ASSERT_TRUE(tag_find(&ts, 1, &s) < 0);
    tag_free(&ts);
}

/* a store of 2^20 sets is paged: the footprint is the page table, pages come on first touch */
static void test_paging(void)
{
    TagGeom g = { .sets = 1u << 20, .assoc = 4, .line = 64, .sectors = 1, .interleave = 1,
                  .repl = 0 };
    uint64_t fp = tag_footprint(&g);
    CU_ASSERT_TRUE(fp < (1u << 20));
    TagStore ts;
    tag_init(&ts, &g, NULL);
    CU_ASSERT_TRUE(ts.npages > 1);
    uint64_t e;
    CU_ASSERT_FALSE(ts_access(&ts, 12345, &e, NULL));
    CU_ASSERT_TRUE(ts_access(&ts, 12345, &e, NULL));
    CU_ASSERT_FALSE(ts_access(&ts, 12345 + (1u << 20), &e, NULL));   /* another block of the
                                                                          same set: a miss */
    uint64_t touched = 0;
    for (uint64_t i = 0; i < ts.npages; i++)
        touched += ts.pages[i] != NULL;
    CU_ASSERT_EQUAL(touched, 1);
    tag_free(&ts);
}

static void test_mshr_table(void)
{
    MshrTable t;
    mshr_init(&t, 3);
    MshrEntry *a = mshr_alloc(&t, 10, 5), *b = mshr_alloc(&t, 11, 6), *c = mshr_alloc(&t, 12, 7);
    CU_ASSERT_PTR_NOT_NULL(c);
    CU_ASSERT_PTR_NULL(mshr_alloc(&t, 13, 8));
    CU_ASSERT_PTR_EQUAL(mshr_find(&t, 11), b);
    mshr_release(&t, a);
    CU_ASSERT_PTR_NULL(mshr_find(&t, 10));
    MshrEntry *d = mshr_alloc(&t, 14, 9);
    CU_ASSERT_EQUAL(mshr_index(&t, d), 0);    /* the lowest free entry */
    CU_ASSERT_EQUAL(d->alloc, 9);
    CU_ASSERT_EQUAL(t.used, 3);
    mshr_free(&t);
}

/* for every slice-local index h, the lines h x S .. h x S + S - 1 fall on S different slices */
static void test_slice_hash_permutes(void)
{
    const uint32_t counts[] = { 1, 3, 4, 32, 80, 160 };
    for (int hash = GPU_HASH_LINEAR; hash <= GPU_HASH_XOR; hash++)
        for (size_t i = 0; i < G_N_ELEMENTS(counts); i++) {
            uint32_t S = counts[i];
            int bad = 0;
            bool *seen = g_new0(bool, S);
            for (uint64_t h = 0; h < 3000; h += 7) {
                memset(seen, 0, S);
                for (uint64_t r = 0; r < S; r++) {
                    uint32_t sl = gpu_l2_slice(h * S + r, S, hash);
                    bad += sl >= S || seen[sl];
                    if (sl < S)
                        seen[sl] = true;
                }
            }
            CU_ASSERT_EQUAL(bad, 0);
            g_free(seen);
        }
}

/* a stride of S lines: the linear hash sends every access to one slice, xor spreads them */
static void test_slice_hash_strides(void)
{
    for (uint32_t S = 16; S <= 64; S *= 2) {
        bool *lin = g_new0(bool, S), *x = g_new0(bool, S);
        uint32_t nl = 0, nx = 0;
        for (uint64_t k = 0; k < 4u * S; k++) {
            uint32_t a = gpu_l2_slice(k * S, S, GPU_HASH_LINEAR);
            uint32_t b = gpu_l2_slice(k * S, S, GPU_HASH_XOR);
            nl += !lin[a], lin[a] = true;
            nx += !x[b], x[b] = true;
        }
        CU_ASSERT_EQUAL(nl, 1);
        CU_ASSERT_EQUAL(nx, S);
        g_free(lin);
        g_free(x);
    }
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("tagstore", NULL, NULL);
    CU_add_test(s, "the fill takes the first way with no valid sector", test_victim_first_invalid);
    CU_add_test(s, "lru against a reference", test_lru);
    CU_add_test(s, "fifo against a reference", test_fifo);
    CU_add_test(s, "tree-PLRU against a reference", test_plru);
    CU_add_test(s, "SRRIP against a reference", test_srrip);
    CU_add_test(s, "tree-PLRU by hand", test_plru_by_hand);
    CU_add_test(s, "set index of one of N interleaved banks", test_interleave_index);
    CU_add_test(s, "LRU stack (cachegrind's layout) against a reference, 1 to 17 ways", test_lru_stack);
    CU_add_test(s, "random: one seed, one sequence", test_random_reproducible);
    CU_add_test(s, "geometry errors", test_geometry_errors);
    CU_add_test(s, "sector masks and fills", test_sectors);
    CU_add_test(s, "ways in use (the GPU carve-out)", test_ways_in_use);
    CU_add_test(s, "paging of a large store", test_paging);
    CU_add_test(s, "MSHR table", test_mshr_table);
    CU_add_test(s, "L2 slice hashes are permutations", test_slice_hash_permutes);
    CU_add_test(s, "xor hash spreads power-of-two strides", test_slice_hash_strides);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned n = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return n ? 1 : 0;
}
