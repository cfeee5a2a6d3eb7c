/* test_stats.c: the three stats formats (gem5 text layout, flat JSON, CSV with quoting),
 * histograms and safe ratios. */
#include <CUnit/Basic.h>
#include <string.h>

#include "../../sim/stats.h"

static void fill(StatSet *s)
{
    stats_init(s);
    stats_add_u64(s, "sim.cycles", 1234, "cycle", "Simulated cycles");
    stats_add_double(s, "l1d.miss_rate", 0.125, "ratio", "misses / accesses");
    stats_add_u64(s, "odd", 7, "count", "has, a comma and \"quotes\"");
}

static void test_txt(void)
{
    StatSet s;
    fill(&s);
    GString *o = g_string_new(NULL);
    stats_format_txt(&s, o);
    CU_ASSERT_PTR_NOT_NULL(strstr(o->str, "---------- Begin Simulation Statistics ----------\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o->str, "---------- End Simulation Statistics"));
    char line[256];
    g_snprintf(line, sizeof line, "%-48s %20s # %s (%s)\n", "sim.cycles", "1234",
               "Simulated cycles", "cycle");
    CU_ASSERT_PTR_NOT_NULL(strstr(o->str, line));
    g_snprintf(line, sizeof line, "%-48s %20s # %s (%s)\n", "l1d.miss_rate", "0.125000",
               "misses / accesses", "ratio");
    CU_ASSERT_PTR_NOT_NULL(strstr(o->str, line));
    g_string_free(o, TRUE);
    stats_clear(&s);
}

static void test_json(void)
{
    StatSet s;
    fill(&s);
    GString *o = g_string_new(NULL);
    stats_format_json(&s, o);
    CU_ASSERT_STRING_EQUAL(o->str, "{\n  \"sim.cycles\": 1234,\n  \"l1d.miss_rate\": 0.125,\n"
                                   "  \"odd\": 7\n}\n");
    g_string_free(o, TRUE);
    stats_clear(&s);
}

static void test_csv(void)
{
    StatSet s;
    fill(&s);
    GString *o = g_string_new(NULL);
    stats_format_csv(&s, o);
    CU_ASSERT_STRING_EQUAL(o->str, "name,value,unit,description\n"
                                   "sim.cycles,1234,cycle,Simulated cycles\n"
                                   "l1d.miss_rate,0.125000,ratio,misses / accesses\n"
                                   "odd,7,count,\"has, a comma and \"\"quotes\"\"\"\n");
    g_string_free(o, TRUE);
    stats_clear(&s);
}

static void test_hist(void)
{
    SimHist h = { 0 };
    uint64_t v[] = { 0, 1, 2, 3, 4, 100, 1000 };
    for (size_t i = 0; i < G_N_ELEMENTS(v); i++)
        sim_hist_add(&h, v[i]);
    CU_ASSERT_EQUAL(h.samples, 7);
    CU_ASSERT_EQUAL(h.min, 0);
    CU_ASSERT_EQUAL(h.max, 1000);
    CU_ASSERT_EQUAL(h.bucket[0], 1);   /* 0 */
    CU_ASSERT_EQUAL(h.bucket[1], 1);   /* 1 */
    CU_ASSERT_EQUAL(h.bucket[2], 2);   /* 2-3 */
    CU_ASSERT_EQUAL(h.bucket[3], 1);   /* 4-7 */
    CU_ASSERT_EQUAL(h.bucket[7], 1);   /* 64-127 */
    CU_ASSERT_EQUAL(h.bucket[10], 1);  /* 512-1023 */
    StatSet s;
    stats_init(&s);
    stats_add_hist(&s, "lat", &h, "cycle", "latency");
    const StatEntry *e = stats_find(&s, "lat::mean");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_DOUBLE_EQUAL(e->d, 1110.0 / 7, 1e-12);
    CU_ASSERT_PTR_NOT_NULL(stats_find(&s, "lat::2-3"));
    CU_ASSERT_PTR_NOT_NULL(stats_find(&s, "lat::512-1023"));
    CU_ASSERT_PTR_NULL(stats_find(&s, "lat::8-15"));   /* empty buckets are not printed */
    CU_ASSERT_EQUAL(stats_find(&s, "lat::samples")->u, 7);
    stats_clear(&s);
    CU_ASSERT_EQUAL(stats_ratio(1, 0), 0.0);
}

static void test_write_error(void)
{
    GString *c = g_string_new("x");
    GError *e = NULL;
    CU_ASSERT_FALSE(stats_write_file("/nonexistent-dir/stats.txt", c, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, 74);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "/nonexistent-dir/stats.txt: cannot write"));
    g_error_free(e);
    g_string_free(c, TRUE);
}

/* issue 16 item 6: components whose every stat is 0 are named on one '# idle' line of stats.txt,
 * index runs compressed; stats.json keeps them */
static void test_txt_idle(void)
{
    StatSet s;
    stats_init(&s);
    stats_add_u64(&s, "sim.cycles", 10, "cycle", "cycles");
    const char *zero[] = { "core1", "core2", "core3", "core5", "core07", "l1d", "bus2" };
    stats_add_u64(&s, "core0.insts", 4, "count", "insts");
    for (size_t i = 0; i < G_N_ELEMENTS(zero); i++) {
        char *n = g_strdup_printf("%s.insts", zero[i]);
        stats_add_u64(&s, n, 0, "count", "insts");
        g_free(n);
        n = g_strdup_printf("%s.ipc", zero[i]);
        stats_add_double(&s, n, 0.0, "ratio", "ipc");
        g_free(n);
    }
    stats_add_u64(&s, "core4.insts", 0, "count", "insts");      /* one non-zero stat: active */
    stats_add_double(&s, "core4.ipc", 0.5, "ratio", "ipc");
    stats_add_u64(&s, "nodot", 0, "count", "a name without a component");
    GString *o = g_string_new(NULL);
    stats_format_txt(&s, o);
    CU_ASSERT_PTR_NOT_NULL(strstr(o->str, "Statistics ----------\n# idle (no events: every stat 0, "
                                  "each still in stats.json and stats.csv): core1..core3, core5, "
                                  "core07, l1d, bus2 (7 components, 14 stats)\n"));
    CU_ASSERT_PTR_NULL(strstr(o->str, "\ncore1."));
    CU_ASSERT_PTR_NULL(strstr(o->str, "\nl1d."));
    CU_ASSERT_PTR_NOT_NULL(strstr(o->str, "\ncore4.insts "));   /* kept whole, zeros too */
    CU_ASSERT_PTR_NOT_NULL(strstr(o->str, "\ncore0.insts "));
    CU_ASSERT_PTR_NOT_NULL(strstr(o->str, "\nnodot "));
    g_string_truncate(o, 0);
    stats_format_json(&s, o);
    CU_ASSERT_PTR_NOT_NULL(strstr(o->str, "\"core1.insts\": 0,"));
    g_string_free(o, TRUE);
    stats_clear(&s);
    /* nothing idle: no line */
    fill(&s);
    o = g_string_new(NULL);
    stats_format_txt(&s, o);
    CU_ASSERT_PTR_NULL(strstr(o->str, "# idle"));
    g_string_free(o, TRUE);
    stats_clear(&s);
}

/* siblings (one stem, an index) whose every stat, value, description and unit equal an earlier
 * sibling's are listed once, the rest named on a '# same stats as' line; a different value, a
 * different stem or no index keeps a component listed */
static void test_txt_same(void)
{
    StatSet s;
    stats_init(&s);
    const char *names[] = { "l1d0", "l1d1", "l1d2", "l1d3", "l1d4", "l2", "l3", "dir", "dirx" };
    const uint64_t hits[] = { 5, 7, 7, 7, 8, 7, 7, 7, 7 };
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
        char *n = g_strdup_printf("%s.hits", names[i]);
        stats_add_u64(&s, n, hits[i], "count", "hits");
        g_free(n);
        n = g_strdup_printf("%s.snoops", names[i]);
        stats_add_u64(&s, n, 3, "count", "snoops");
        g_free(n);
    }
    stats_add_u64(&s, "l1d5.hits", 7, "count", "other description");   /* desc differs */
    stats_add_u64(&s, "l1d5.snoops", 3, "count", "snoops");
    GString *o = g_string_new(NULL);
    stats_format_txt(&s, o);
    CU_ASSERT_PTR_NOT_NULL(strstr(o->str, "\n# same stats as l1d1 (every stat equal, each still in "
                                  "stats.json and stats.csv): l1d2..l1d3 (2 components, 4 stats)\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o->str, "\n# same stats as l2 (every stat equal, each still in "
                                  "stats.json and stats.csv): l3 (1 component, 2 stats)\n"));
    CU_ASSERT_PTR_NULL(strstr(o->str, "\nl1d2."));
    CU_ASSERT_PTR_NULL(strstr(o->str, "\nl1d3."));
    CU_ASSERT_PTR_NULL(strstr(o->str, "\nl3."));
    const char *kept[] = { "\nl1d0.hits ", "\nl1d1.hits ", "\nl1d4.hits ", "\nl1d5.hits ",
                           "\nl2.hits ", "\ndir.hits ", "\ndirx.hits " };
    for (size_t i = 0; i < G_N_ELEMENTS(kept); i++)
        CU_ASSERT_PTR_NOT_NULL(strstr(o->str, kept[i]));
    g_string_truncate(o, 0);
    stats_format_json(&s, o);
    CU_ASSERT_PTR_NOT_NULL(strstr(o->str, "\"l1d3.hits\": 7,"));
    g_string_free(o, TRUE);
    stats_clear(&s);
}

/* issue 17 item 2: system-level stats from one generic aggregation over STEMn instances */
static void test_instances(void)
{
    StatSet s;
    stats_init(&s);
    stats_add_u64(&s, "l1d0.misses", 3, "count", "misses");
    stats_add_u64(&s, "l1d0.L1Cache_Controller.I.Load", 2, "count", "I x Load");
    stats_add_u64(&s, "l1d0.accesses", 10, "count", "accesses");
    stats_add_u64(&s, "l1d12.misses", 4, "count", "misses of 12");
    stats_add_u64(&s, "l1d12.accesses", 20, "count", "accesses");
    stats_add_u64(&s, "l1d12.L1Cache_Controller.I.Load", 5, "count", "I x Load");
    stats_add_double(&s, "l1d0.miss_rate", 0.3, "ratio", "not an integer: not summed");
    stats_add_u64(&s, "l1d.misses_seen", 99, "count", "no index: not an instance");
    stats_add_u64(&s, "l1dx.misses", 99, "count", "not the stem and an index");
    stats_add_u64(&s, "l1d3x.misses", 99, "count", "index then not a dot");
    SimHist h0 = { 0 }, h1 = { 0 };
    sim_hist_add(&h0, 10);
    sim_hist_add(&h0, 20);                                      /* mean 15, 2 samples */
    sim_hist_add(&h1, 30);                                      /* mean 30, 1 sample */
    stats_add_hist(&s, "l1d0.miss_latency", &h0, "cycle", "latency");
    stats_add_hist(&s, "l1d12.miss_latency", &h1, "cycle", "latency");
    static const char *const top[] = { "L1Cache_Controller.", NULL };
    guint n0 = s.entries->len;
    CU_ASSERT_EQUAL(stats_sum_instances(&s, "l1d", top, "sum over all L1s"), 3);
    CU_ASSERT_EQUAL(s.entries->len, n0 + 3);
    const StatEntry *e = stats_find(&s, "l1d.misses");
    CU_ASSERT(e && e->u == 7 && strcmp(e->desc, "misses (sum over all L1s)") == 0);
    e = stats_find(&s, "L1Cache_Controller.I.Load");
    CU_ASSERT(e && e->u == 7);
    e = stats_find(&s, "l1d.accesses");
    CU_ASSERT(e && e->u == 30);
    /* first-appearance order: misses, controller, accesses */
    CU_ASSERT_STRING_EQUAL(g_array_index(s.entries, StatEntry, n0).name, "l1d.misses");
    CU_ASSERT_STRING_EQUAL(g_array_index(s.entries, StatEntry, n0 + 1).name,
                           "L1Cache_Controller.I.Load");
    CU_ASSERT_PTR_NULL(stats_find(&s, "l1d.miss_rate"));
    CU_ASSERT_PTR_NULL(stats_find(&s, "l1d.miss_latency::samples"));
    CU_ASSERT_EQUAL(stats_count_instances(&s, "l1d", "accesses"), 2);
    CU_ASSERT_EQUAL(stats_count_instances(&s, "l1d", "nosuch"), 0);
    CU_ASSERT_DOUBLE_EQUAL(stats_instances_mean(&s, "l1d", "miss_latency"), 20.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(stats_instances_mean(&s, "core", "miss_latency"), 0.0, 0);
    stats_clear(&s);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("stats", NULL, NULL);
    CU_add_test(s, "stats.txt gem5 layout", test_txt);
    CU_add_test(s, "stats.json flat object", test_json);
    CU_add_test(s, "stats.csv quoting", test_csv);
    CU_add_test(s, "histograms", test_hist);
    CU_add_test(s, "write error", test_write_error);
    CU_add_test(s, "stats.txt: idle components on one line", test_txt_idle);
    CU_add_test(s, "stats.txt: equal siblings listed once", test_txt_same);
    CU_add_test(s, "system-level stats over instances", test_instances);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
