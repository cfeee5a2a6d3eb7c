/* test_mmrandom.c: the random tester with memory models. Random litmus programs (2-3 threads of
 * stores with unique values, loads, MFENCE and XCHG over three locations) run on the simulated
 * coherent machine (mm-core store buffers, MSI/MESI/MOESI snooping L1s, the reference memory
 * checking every load and SWMR) under SC, TSO, PSO and WEAK, seeded; every outcome the machine
 * produces must be one the exhaustive enumeration of the same model allows. A coherence bug or a
 * core that reorders more than its model shows up as an outcome outside that set, a check
 * failure or a deadlock. 250 programs per model and protocol (3,000 in all), 200 runs each;
 * the programs come from a seeded generator, never from a list. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "../../models/litmus/litmus.h"

static const char *const locs[] = { "x", "y", "z" };
static const char *const regs[] = { "EAX", "EBX", "ECX", "EDX" };

/* A random herd7 X86 test; `seed` picks everything. */
static char *random_test(uint64_t seed, int *nthreads_out)
{
    GRand *r = g_rand_new_with_seed((guint32)(seed * 2654435761u + 1));
    int nthreads = 2 + g_rand_int_range(r, 0, 2);
    char *cells[3][6] = { { NULL } };
    int nrows = 0, value = 1;
    GString *obs = g_string_new("x; y; z;");
    for (int t = 0; t < nthreads; t++) {
        int nops = 1 + g_rand_int_range(r, 0, 4), nreg = 0, row = 0;
        for (int i = 0; i < nops && row < 5; i++) {
            int kind = g_rand_int_range(r, 0, 20), l = g_rand_int_range(r, 0, 3);
            if (kind < 8) {
                cells[t][row++] = g_strdup_printf("MOV [%s],$%d", locs[l], value++);
            } else if (kind < 16 && nreg < 4) {
                cells[t][row++] = g_strdup_printf("MOV %s,[%s]", regs[nreg++], locs[l]);
            } else if (kind < 18) {
                cells[t][row++] = g_strdup("MFENCE");
            } else if (nreg < 4 && row < 4) {
                cells[t][row++] = g_strdup_printf("MOV %s,$%d", regs[nreg], value++);
                cells[t][row++] = g_strdup_printf("XCHG [%s],%s", locs[l], regs[nreg++]);
            }
        }
        if (row == 0)
            cells[t][row++] = g_strdup_printf("MOV [x],$%d", value++);
        for (int i = 0; i < nreg; i++)
            g_string_append_printf(obs, " %d:%s;", t, regs[i]);
        nrows = MAX(nrows, row);
    }
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "X86 rand%" G_GUINT64_FORMAT "\n{ }\n", seed);
    for (int t = 0; t < nthreads; t++)
        g_string_append_printf(s, " P%d%*s%s", t, 14, "", t + 1 < nthreads ? "|" : ";\n");
    for (int row = 0; row < nrows; row++)
        for (int t = 0; t < nthreads; t++)
            g_string_append_printf(s, " %-16s%s", cells[t][row] ? cells[t][row] : "",
                                   t + 1 < nthreads ? "|" : ";\n");
    g_string_append_printf(s, "locations [%s]\nexists (true)\n", obs->str);
    g_string_free(obs, TRUE);
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < 6; i++)
            g_free(cells[t][i]);
    g_rand_free(r);
    *nthreads_out = nthreads;
    return g_string_free(s, FALSE);
}

/* Runs ntests random programs on the machine under `sim`, and counts the outcomes (and
 * failures) that the enumeration under `m` does not allow. */
static int check_models(const MemModel *m, const MemModel *sim, const char *protocol,
                        uint64_t first, int ntests, bool quiet)
{
    int bad = 0;
    for (uint64_t seed = first; seed < first + (uint64_t)ntests; seed++) {
        int n = 0;
        char *text = random_test(seed, &n);
        GError *e = NULL;
        LitTest *t = litmus_parse_string("random.litmus", text, &e);
        if (!t) {
            fprintf(stderr, "\ngenerated test does not parse: %s\n%s", e->message, text);
            g_clear_error(&e);
            g_free(text);
            bad++;
            continue;
        }
        LitHist allowed, seen;
        litmus_hist_init(&allowed);
        litmus_hist_init(&seen);
        char *yaml = g_strdup_printf("l1d: {protocol: %s}\n", protocol);
        LitSimOptions o = { .model = sim, .runs = 200, .seed = seed, .config_yaml = yaml };
        if (!litmus_enumerate(t, m, 1000000, &allowed, &e) ||
            !litmus_simulate(t, &o, &seen, &e)) {
            fprintf(stderr, "\n%s %s seed %" G_GUINT64_FORMAT ": %s\n%s", m->name, protocol,
                    seed, e ? e->message : "?", text);
            g_clear_error(&e);
            bad++;
        } else {
            GHashTableIter it;
            gpointer key;
            g_hash_table_iter_init(&it, seen.counts);
            while (g_hash_table_iter_next(&it, &key, NULL))
                if (!g_hash_table_contains(allowed.counts, key)) {
                    if (bad < 3 && !quiet)
                        fprintf(stderr, "\n%s %s: outcome '%s' is not allowed by the model:\n%s",
                                m->name, protocol, (const char *)key, text);
                    bad++;
                }
            CU_ASSERT_EQUAL(seen.runs, 200);
        }
        g_free(yaml);
        litmus_hist_clear(&allowed);
        litmus_hist_clear(&seen);
        litmus_free(t);
        g_free(text);
    }
    return bad;
}

static int check_model(const MemModel *m, const char *protocol, uint64_t first, int ntests)
{
    return check_models(m, m, protocol, first, ntests, false);
}

/* The tester catches a core that reorders more than its model: WEAK cores checked against SC. */
static void test_tester_catches_reordering(void)
{
    CU_ASSERT(check_models(&mem_models[MM_SC], &mem_models[MM_WEAK], "mesi", 1, 40, true) > 0);
    CU_ASSERT(check_models(&mem_models[MM_TSO], &mem_models[MM_PSO], "mesi", 1, 200, true) > 0);
}

static void run_model(MemModelId id)
{
    static const char *const protos[] = { "msi", "mesi", "moesi" };
    int bad = 0;
    for (int p = 0; p < 3; p++)
        bad += check_model(&mem_models[id], protos[p],
                           10000 * (uint64_t)(id + 1) + 1000 * (uint64_t)p, 250);
    CU_ASSERT_EQUAL(bad, 0);
}

static void test_sc(void) { run_model(MM_SC); }
static void test_tso(void) { run_model(MM_TSO); }
static void test_pso(void) { run_model(MM_PSO); }
static void test_weak(void) { run_model(MM_WEAK); }

/* The generator makes tests in which the models really differ: under WEAK some outcome appears
 * that SC forbids (else the tester could not catch a core that reorders too much). */
static void test_generator_discriminates(void)
{
    int differ = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        int n = 0;
        char *text = random_test(seed, &n);
        if (g_getenv("MMRANDOM_SHOW") && seed <= 2)
            fprintf(stderr, "\n%s", text);
        LitTest *t = litmus_parse_string("random.litmus", text, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        LitHist sc, weak;
        litmus_hist_init(&sc);
        litmus_hist_init(&weak);
        CU_ASSERT_TRUE(litmus_enumerate(t, &mem_models[MM_SC], 1000000, &sc, NULL));
        CU_ASSERT_TRUE(litmus_enumerate(t, &mem_models[MM_WEAK], 1000000, &weak, NULL));
        if (g_hash_table_size(weak.counts) > g_hash_table_size(sc.counts))
            differ++;
        litmus_hist_clear(&sc);
        litmus_hist_clear(&weak);
        litmus_free(t);
        g_free(text);
    }
    CU_ASSERT(differ >= 5);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("mmrandom", NULL, NULL);
    CU_add_test(s, "random programs differ between models", test_generator_discriminates);
    CU_add_test(s, "the tester catches a core that reorders too much",
                test_tester_catches_reordering);
    CU_add_test(s, "random programs: SC (MSI, MESI, MOESI)", test_sc);
    CU_add_test(s, "random programs: TSO (MSI, MESI, MOESI)", test_tso);
    CU_add_test(s, "random programs: PSO (MSI, MESI, MOESI)", test_pso);
    CU_add_test(s, "random programs: WEAK (MSI, MESI, MOESI)", test_weak);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
