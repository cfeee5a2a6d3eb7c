/* test_snoopfilter.c: the snooping bus's filter (models/bus/snoopfilter.h) against a plain
 * reference (a bit per block and port): random takes and drops of blocks by up to 130 ports,
 * growth of the table, deletions in the middle of probe runs, and blocks that collide. */
#include <CUnit/Basic.h>
#include <glib.h>
#include <string.h>

#include "../../models/bus/snoopfilter.h"
#include "../../sim/rng.h"

#define NBLOCKS 3000

static void check_against_reference(uint32_t ports, uint64_t stride, uint64_t seed)
{
    SnoopFilter f;
    sf_init(&f, ports);
    uint32_t words = (ports + 63) / 64;
    CU_ASSERT_EQUAL(f.words, words);
    uint64_t *ref = g_new0(uint64_t, (size_t)NBLOCKS * words);
    SimRng r;
    sim_rng_seed(&r, seed, "sf");
    int bad = 0;
    uint64_t held = 0, out[8];
    for (int step = 0; step < 200000; step++) {
        uint64_t b = sim_rng_below(&r, NBLOCKS);
        uint32_t p = (uint32_t)sim_rng_below(&r, ports);
        uint64_t block = 0x40000 + b * stride;
        uint64_t *e = ref + b * words;
        uint64_t bit = 1ull << (p % 64);
        bool was = e[p / 64] & bit;
        bool empty_before = true;
        for (uint32_t w = 0; w < words; w++)
            empty_before = empty_before && e[w] == 0;
        /* mostly adds while filling up, then mostly drops: the table grows and shrinks */
        bool add = sim_rng_below(&r, 100) < (step < 100000 ? 70 : 30);
        if (add) {
            sf_add(&f, block, p);
            e[p / 64] |= bit;
            held += empty_before;
        } else {
            sf_remove(&f, block, p);
            e[p / 64] &= ~bit;
            bool empty_after = true;
            for (uint32_t w = 0; w < words; w++)
                empty_after = empty_after && e[w] == 0;
            held -= !empty_before && empty_after;
        }
        (void)was;
        if (step % 97 == 0 || step > 199000) {
            /* every block: holders and membership as the reference says */
            for (uint64_t i = 0; i < NBLOCKS; i += (step > 199000 ? 1 : 37)) {
                const uint64_t *x = ref + i * words;
                bool any = false;
                for (uint32_t w = 0; w < words; w++)
                    any = any || x[w] != 0;
                bool got = sf_holders(&f, 0x40000 + i * stride, out);
                bad += got != any;
                if (got && any)
                    bad += memcmp(out, x, words * sizeof(uint64_t)) != 0;
                uint32_t q = (uint32_t)sim_rng_below(&r, ports);
                bad += sf_has(&f, 0x40000 + i * stride, q) != ((x[q / 64] >> (q % 64)) & 1);
            }
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(f.used, held);
    CU_ASSERT_TRUE(f.cap >= 2 * f.used);
    sf_free(&f);
    g_free(ref);
}

static void test_sf_few_ports(void) { check_against_reference(8, 64, 1); }
static void test_sf_many_ports(void) { check_against_reference(130, 64, 2); }
/* blocks 2^20 apart: their line numbers differ only in high bits (the hash must spread them) */
static void test_sf_strided(void) { check_against_reference(64, 1ull << 20, 3); }

/* Probe runs that wrap around the table's end: blocks whose home is one of the last slots and
 * the first ones, taken and dropped in every order; each drop must leave every other block
 * findable (the backward shift across the wrap). */
static void test_sf_wrapping_runs(void)
{
    SnoopFilter f;
    sf_init(&f, 4);
    uint64_t cap = f.cap, picked[12];
    int n = 0;
    for (uint64_t b = 0x1000; n < 12; b += 64) {
        uint64_t h = sf_home_slot(&f, b);
        if (h >= cap - 3 || h <= 1)
            picked[n++] = b;
    }
    SimRng r;
    sim_rng_seed(&r, 9, "wrap");
    bool in[12] = { false };
    int bad = 0;
    for (int step = 0; step < 20000; step++) {
        int i = (int)sim_rng_below(&r, 12);
        if (in[i])
            sf_remove(&f, picked[i], 1);
        else
            sf_add(&f, picked[i], 1);
        in[i] = !in[i];
        for (int j = 0; j < 12; j++)
            bad += sf_has(&f, picked[j], 1) != in[j];
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(f.cap, cap);
    sf_free(&f);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("snoopfilter", NULL, NULL);
    CU_add_test(s, "8 ports against a reference", test_sf_few_ports);
    CU_add_test(s, "130 ports (three words of port bits)", test_sf_many_ports);
    CU_add_test(s, "blocks 1 MiB apart", test_sf_strided);
    CU_add_test(s, "probe runs across the table's end", test_sf_wrapping_runs);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned n = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return n ? 1 : 0;
}
