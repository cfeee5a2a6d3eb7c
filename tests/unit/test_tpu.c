/* test_tpu.c: the systolic-array model against SCALE-Sim v2's own reports.
 * tests/tpu/scalesim/ holds SCALE-Sim's outputs (ref/CONFIG/TOPOLOGY/ .csv files, made by
 * tests/tpu/scalesim/regen.sh from the configs and topologies beside them). For every run
 * there (CALC and USER bandwidth), `--scalesim-compat` must write the same three reports byte for byte: every number,
 * every float digit. Also: the default mode's corrections, one layer at a time in constant
 * memory, Python float formatting, and that a failed run leaves no report. */
#include <CUnit/Basic.h>
#include <math.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "../../models/tpu/tpu.h"
#include "../../models/tpu/tpuint.h"
#include "../../sim/error.h"

#define REF "tests/tpu/scalesim"

static char *slurp(const char *path)
{
    char *s = NULL;
    if (!g_file_get_contents(path, &s, NULL, NULL))
        return NULL;
    return s;
}

/* Runs config `cfg` on topology `topo` (gemm form if gemm) into dir; false on a load error. */
static bool run_all(const char *cfg, const char *topo, bool gemm, bool compat, const char *dir,
                    GError **e)
{
    TpuArch a;
    TpuTopology t;
    if (!tpu_arch_load(cfg, &a, e))
        return false;
    if (!tpu_topology_load(topo, gemm, &t, e)) {
        tpu_arch_clear(&a);
        return false;
    }
    TpuReports *r = tpu_reports_open(dir, e);
    bool ok = r != NULL;
    for (int i = 0; ok && i < t.nlayers; i++) {
        TpuLayerResult res;
        ok = tpu_run_layer(&a, &t.layers[i], compat, &res, e);
        if (ok)
            tpu_reports_add(r, i, t.layers[i].name, &a, &res);
    }
    if (r && ok)
        ok = tpu_reports_close(r, e);
    else if (r)
        tpu_reports_abort(r);
    tpu_topology_clear(&t);
    tpu_arch_clear(&a);
    return ok;
}

static const char *const reports[] = { "COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv",
                                       "DETAILED_ACCESS_REPORT.csv" };

static void test_runs_equal_scalesim(void)
{
    GDir *d = g_dir_open(REF "/ref", 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    int compared = 0, differ = 0;
    const char *run;
    char *tmp = g_dir_make_tmp("tputest-XXXXXX", NULL);
    while ((run = g_dir_read_name(d))) {
        char *cfg = g_strdup_printf(REF "/configs/%s.cfg", run);
        if (!g_file_test(cfg, G_FILE_TEST_EXISTS)) {     /* trace-only runs */
            g_free(cfg);
            continue;
        }
        char *rdir = g_strdup_printf(REF "/ref/%s", run);
        GDir *td = g_dir_open(rdir, 0, NULL);
        const char *topo;
        while (td && (topo = g_dir_read_name(td))) {
            if (strcmp(topo, "trace_head") == 0)            /* per-cycle traces, not reports */
                continue;
            char *tcsv = g_strdup_printf(REF "/topologies/%s.csv", topo);
            char *out = g_build_filename(tmp, run, topo, NULL);
            GError *e = NULL;
            bool ok = run_all(cfg, tcsv, strcmp(topo, "gemm") == 0, true, out, &e);
            if (!ok)
                fprintf(stderr, "\n%s %s: %s\n", run, topo, e->message);
            CU_ASSERT_TRUE(ok);
            g_clear_error(&e);
            for (int k = 0; ok && k < 3; k++) {
                char *want_p = g_build_filename(rdir, topo, reports[k], NULL);
                char *got_p = g_build_filename(out, reports[k], NULL);
                char *want = slurp(want_p), *got = slurp(got_p);
                CU_ASSERT_PTR_NOT_NULL(want);
                CU_ASSERT_PTR_NOT_NULL(got);
                if (want && got && strcmp(want, got) != 0) {
                    differ++;
                    fprintf(stderr, "\n%s differs from SCALE-Sim's %s\n", got_p, want_p);
                }
                compared++;
                g_unlink(got_p);
                g_free(want);
                g_free(got);
                g_free(want_p);
                g_free(got_p);
            }
            g_rmdir(out);
            char *rd = g_build_filename(tmp, run, NULL);
            g_rmdir(rd);
            g_free(rd);
            g_free(out);
            g_free(tcsv);
        }
        if (td)
            g_dir_close(td);
        g_free(cfg);
        g_free(rdir);
    }
    g_dir_close(d);
    g_rmdir(tmp);
    g_free(tmp);
    CU_ASSERT_EQUAL(differ, 0);
    CU_ASSERT_TRUE(compared >= 30);
}

/* The SRAM traces equal SCALE-Sim's for the first 40 rows of a 4 x 4 layer, each dataflow. */
static void test_sram_traces_equal_scalesim(void)
{
    static const char *const df[] = { "os", "ws", "is" };
    static const char *const names[] = { "IFMAP_SRAM_TRACE.csv", "FILTER_SRAM_TRACE.csv",
                                         "OFMAP_SRAM_TRACE.csv" };
    char *tmp = g_dir_make_tmp("tputrace-XXXXXX", NULL);
    for (int d = 0; d < 3; d++) {
        char *cfg = g_strdup_printf(REF "/configs/trace4x4_%s.cfg", df[d]);
        TpuArch a;
        TpuTopology t;
        GError *e = NULL;
        CU_ASSERT_TRUE_FATAL(tpu_arch_load(cfg, &a, &e));
        CU_ASSERT_TRUE_FATAL(tpu_topology_load(REF "/topologies/trace_tiny.csv", false, &t, &e));
        TpuSramTraces tr = { .from = 0, .to = 39 };
        CU_ASSERT_TRUE_FATAL(tpu_traces_open(tmp, d, &tr, &e));
        TpuLayerResult res;
        CU_ASSERT_TRUE(tpu_run_layer_traced(&a, &t.layers[0], true, &tr, &res, &e));
        CU_ASSERT_TRUE(tpu_traces_close(&tr, &e));
        for (int k = 0; k < 3; k++) {
            char *got_p = g_strdup_printf("%s/layer%d/%s", tmp, d, names[k]);
            char *want_p = g_strdup_printf(REF "/ref/trace4x4_%s/trace_head/%s", df[d], names[k]);
            char *got = slurp(got_p), *want = slurp(want_p);
            CU_ASSERT_PTR_NOT_NULL(got);
            CU_ASSERT_PTR_NOT_NULL(want);
            if (got && want && strcmp(got, want) != 0)
                fprintf(stderr, "\n%s differs from %s\n", got_p, want_p);
            CU_ASSERT_TRUE(got && want && strcmp(got, want) == 0);
            g_unlink(got_p);
            g_free(got);
            g_free(want);
            g_free(got_p);
            g_free(want_p);
        }
        char *ld = g_strdup_printf("%s/layer%d", tmp, d);
        g_rmdir(ld);
        g_free(ld);
        tpu_topology_clear(&t);
        tpu_arch_clear(&a);
        g_free(cfg);
    }
    g_rmdir(tmp);
    g_free(tmp);
}

/* Python's str(float). */
static void test_py_float(void)
{
    static const struct {
        double v;
        const char *s;
    } cases[] = {
        { 1.0, "1.0" }, { -131.0, "-131.0" }, { 0.1, "0.1" }, { 32.0, "32.0" },
        { 6.646905144694534, "6.646905144694534" }, { 1e16, "1e+16" }, { 1e15, "1000000000000000.0" },
        { 0.0001, "0.0001" }, { 0.00001, "1e-05" }, { 123456789.125, "123456789.125" },
        { 2.44140625, "2.44140625" }, { 1.0 / 3, "0.3333333333333333" }, { 0.0, "0.0" },
        { 1.5e-7, "1.5e-07" }, { 1.2345678901234567e+20, "1.2345678901234567e+20" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GString *s = g_string_new(NULL);
        tpu_py_float(s, cases[i].v);
        if (strcmp(s->str, cases[i].s) != 0)
            fprintf(stderr, "\n%.17g: got %s want %s\n", cases[i].v, s->str, cases[i].s);
        CU_ASSERT_STRING_EQUAL(s->str, cases[i].s);
        g_string_free(s, TRUE);
    }
}

/* The default mode: cycles count every simulated cycle (SCALE-Sim's + 1, and + R per os fold),
 * the os ofmap writes are M x N, compute utilization uses the simulated fold length, and ws/is
 * partial sums stay on chip (DRAM ofmap writes M x N). */
static void test_default_mode(void)
{
    TpuArch a = { .run_name = "t", .rows = 8, .cols = 8, .ifmap_kb = 64, .filter_kb = 64,
                  .ofmap_kb = 64, .filter_offset = 10000000, .ofmap_offset = 20000000,
                  .bw_mode = TPU_BW_CALC, .file = "t" };
    TpuLayer l = { "L", 10, 10, 3, 3, 4, 20, 1, 1, 2 };    /* M 64, N 20, K 36 */
    for (int df = 0; df < 3; df++) {
        a.dataflow = (TpuDataflow)df;
        TpuLayerResult c, d;
        GError *e = NULL;
        CU_ASSERT_TRUE_FATAL(tpu_run_layer(&a, &l, true, &c, &e));
        CU_ASSERT_TRUE_FATAL(tpu_run_layer(&a, &l, false, &d, &e));
        uint64_t folds = c.row_folds * c.col_folds, R = 8, C = 8;
        uint64_t per = 2 * R + C + c.T - 2;
        CU_ASSERT_EQUAL(d.total_cycles, folds * per);
        CU_ASSERT_EQUAL(c.total_cycles, folds * (df == TPU_OS ? per - R : per) - 1);
        if (df == TPU_OS) {
            CU_ASSERT_EQUAL(d.sram_ofmap_writes, 64 * 20);
            CU_ASSERT_EQUAL(c.sram_ofmap_writes, 64 * 20 + folds * (R + C));
        } else {
            CU_ASSERT_EQUAL(d.dram_ofmap_writes, 64 * 20);
            CU_ASSERT_TRUE(c.dram_ofmap_writes > d.dram_ofmap_writes);   /* psums of each fold */
            CU_ASSERT_TRUE(d.compute_util > c.compute_util);             /* one C fewer */
        }
        CU_ASSERT_EQUAL(d.macs, 64 * 20 * 36);
    }
}

/* The reference layer of docs/experiments/systolic.md (ResNet-18 Conv2_1 on scale.cfg): the
 * numbers of its table, in both modes, so the page stays true. */
static void test_reference_layer(void)
{
    static const struct {
        TpuDataflow df;
        uint64_t cycles[2], sram_of[2], dram_of[2];    /* [compat, default] */
    } want[] = {
        { TPU_OS, { 117391, 123280 }, { 198400, 186624 }, { 186655, 186624 } },
        { TPU_WS, { 108359, 108360 }, { 3359232, 3359232 }, { 3359263, 186624 } },
        { TPU_IS, { 261647, 261648 }, { 3359232, 3359232 }, { 3359263, 186624 } },
    };
    TpuArch a = { .run_name = "scale", .rows = 32, .cols = 32, .ifmap_kb = 64, .filter_kb = 64,
                  .ofmap_kb = 64, .filter_offset = 10000000, .ofmap_offset = 20000000,
                  .bw_mode = TPU_BW_CALC, .bandwidth = 10, .file = "scale.cfg" };
    TpuLayer l = { "Conv2_1", 56, 56, 3, 3, 64, 64, 1, 1, 2 };
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        a.dataflow = want[i].df;
        for (int m = 0; m < 2; m++) {
            TpuLayerResult r;
            GError *e = NULL;
            CU_ASSERT_TRUE_FATAL(tpu_run_layer(&a, &l, m == 0, &r, &e));
            CU_ASSERT_EQUAL(r.total_cycles, want[i].cycles[m]);
            CU_ASSERT_EQUAL(r.sram_ofmap_writes, want[i].sram_of[m]);
            CU_ASSERT_EQUAL(r.dram_ofmap_writes, want[i].dram_of[m]);
            CU_ASSERT_EQUAL(r.stall_cycles, 0);
        }
    }
}

/* Sampling (tpu.h): with a budget far below the layer's words, the default mode simulates some
 * folds and extrapolates the ifmap and filter DRAM reads of the rest; everything else stays
 * exact. Compat mode never samples. The DRAM reads must stay near the exact run's. */
static void test_sampling(void)
{
    TpuArch a = { .run_name = "scale", .rows = 32, .cols = 32, .ifmap_kb = 64, .filter_kb = 64,
                  .ofmap_kb = 64, .filter_offset = 10000000, .ofmap_offset = 20000000,
                  .bw_mode = TPU_BW_CALC, .bandwidth = 10, .file = "scale.cfg" };
    TpuLayer l = { "Conv2_1", 56, 56, 3, 3, 64, 64, 1, 1, 2 };
    uint64_t saved = tpu_sample_budget;
    for (int df = 0; df < 3; df++) {
        a.dataflow = (TpuDataflow)df;
        TpuLayerResult x, sm, c0, c1;
        GError *e = NULL;
        tpu_sample_budget = 0;
        CU_ASSERT_TRUE_FATAL(tpu_run_layer(&a, &l, false, &x, &e));
        CU_ASSERT_TRUE_FATAL(tpu_run_layer(&a, &l, true, &c0, &e));
        tpu_sample_budget = 1u << 19;
        CU_ASSERT_TRUE_FATAL(tpu_run_layer(&a, &l, false, &sm, &e));
        CU_ASSERT_TRUE_FATAL(tpu_run_layer(&a, &l, true, &c1, &e));
        CU_ASSERT_EQUAL(x.sampled_folds, 0);
        CU_ASSERT_EQUAL(c1.sampled_folds, 0);
        CU_ASSERT_EQUAL(c1.dram_ifmap_reads, c0.dram_ifmap_reads);
        CU_ASSERT_EQUAL(c1.dram_filter_reads, c0.dram_filter_reads);
        CU_ASSERT_TRUE(sm.sampled_folds > 0 && sm.sampled_folds < x.row_folds * x.col_folds);
        CU_ASSERT_EQUAL(sm.total_cycles, x.total_cycles);
        CU_ASSERT_EQUAL(sm.stall_cycles, x.stall_cycles);
        CU_ASSERT_EQUAL(sm.overall_util, x.overall_util);
        CU_ASSERT_EQUAL(sm.compute_util, x.compute_util);
        CU_ASSERT_EQUAL(sm.sram_ifmap_reads, x.sram_ifmap_reads);
        CU_ASSERT_EQUAL(sm.sram_filter_reads, x.sram_filter_reads);
        CU_ASSERT_EQUAL(sm.sram_ofmap_writes, x.sram_ofmap_writes);
        CU_ASSERT_EQUAL(sm.sram_ofmap_stop, x.sram_ofmap_stop);
        CU_ASSERT_EQUAL(sm.dram_ofmap_writes, x.dram_ofmap_writes);
        /* the last drains: the skipped folds' words were counted, not buffered */
        CU_ASSERT_TRUE(fabs(sm.dram_ofmap_stop - x.dram_ofmap_stop) <= 64 * 1024 / 32);
        double ei = fabs((double)sm.dram_ifmap_reads / (double)x.dram_ifmap_reads - 1);
        double ef = fabs((double)sm.dram_filter_reads / (double)x.dram_filter_reads - 1);
        if (g_getenv("TPU_SAMPLE_VERBOSE"))
            printf("\n%d: folds %lu/%lu ifmap %lu vs %lu (%.3f) filter %lu vs %lu (%.3f)\n", df,
                   (unsigned long)sm.sampled_folds, (unsigned long)(x.row_folds * x.col_folds),
                   (unsigned long)sm.dram_ifmap_reads, (unsigned long)x.dram_ifmap_reads, ei,
                   (unsigned long)sm.dram_filter_reads, (unsigned long)x.dram_filter_reads, ef);
        /* the sample is a third of the layer or less. os's filter is the hard case: two column
         * folds, each a block the window keeps, so the sample sees no steady state (28 %;
         * docs/tpu.md gives the errors measured on shipped topologies) */
        CU_ASSERT_TRUE(ei < 0.05);
        CU_ASSERT_TRUE(ef < 0.35);
        /* the windows go on sliding through the folds not simulated: the DRAM reads start with
         * the same first fill and stop in the layer's last part, as in the full run (they
         * stopped at the end of the sample: an average bandwidth many times too high) */
        for (int k = 0; k < 2; k++) {
            double xs = k ? x.dram_filter_start : x.dram_ifmap_start;
            double xe = k ? x.dram_filter_stop : x.dram_ifmap_stop;
            double ss = k ? sm.dram_filter_start : sm.dram_ifmap_start;
            double se = k ? sm.dram_filter_stop : sm.dram_ifmap_stop;
            double xb = k ? x.bw_dram_filter : x.bw_dram_ifmap;
            double sb = k ? sm.bw_dram_filter : sm.bw_dram_ifmap;
            if (g_getenv("TPU_SAMPLE_VERBOSE"))
                printf("%d/%d: start %.0f/%.0f stop %.0f/%.0f bw %.3f/%.3f of %lu\n", df, k, ss,
                       xs, se, xe, sb, xb, (unsigned long)x.total_cycles);
            CU_ASSERT_EQUAL(ss, xs);
            CU_ASSERT_TRUE(se > (double)x.total_cycles / 2 || xe < (double)x.total_cycles / 2);
            CU_ASSERT_TRUE(sb < 3 * xb && sb > xb / 3);    /* os's filter: 0.29 against 0.78 */
        }
    }
    /* an operand that fits in the first window (ifmap 200,704 words, 1 MiB SRAM) is fetched
     * once, before cycle 0, whatever the sample's rate of first touches (it was 16 times) */
    a.dataflow = TPU_WS;
    a.ifmap_kb = 1024;
    TpuLayerResult x, sm;
    GError *e = NULL;
    tpu_sample_budget = 0;
    CU_ASSERT_TRUE_FATAL(tpu_run_layer(&a, &l, false, &x, &e));
    tpu_sample_budget = 1u << 14;
    CU_ASSERT_TRUE_FATAL(tpu_run_layer(&a, &l, false, &sm, &e));
    CU_ASSERT_TRUE(sm.sampled_folds > 0);
    if (g_getenv("TPU_SAMPLE_VERBOSE"))
        printf("big: start %.0f/%.0f stop %.0f/%.0f bw %.3f/%.3f reads %lu/%lu of %lu\n",
               sm.dram_ifmap_start, x.dram_ifmap_start, sm.dram_ifmap_stop, x.dram_ifmap_stop,
               sm.bw_dram_ifmap, x.bw_dram_ifmap, (unsigned long)sm.dram_ifmap_reads,
               (unsigned long)x.dram_ifmap_reads, (unsigned long)x.total_cycles);
    CU_ASSERT_EQUAL(sm.dram_ifmap_start, x.dram_ifmap_start);
    CU_ASSERT_EQUAL(sm.dram_ifmap_stop, x.dram_ifmap_stop);
    CU_ASSERT_EQUAL(sm.dram_ifmap_reads, x.dram_ifmap_reads);   /* every word once */
    tpu_sample_budget = saved;
}

/* The estimator's set numbers are int32 moved down every tpu_est_rebias_at sets (2^31 sets, a
 * tiny SRAM on a huge operand, would wrap them): moving them every few sets changes nothing,
 * full or sampled. */
static void test_set_rebias(void)
{
    TpuArch a = { .run_name = "tiny", .rows = 8, .cols = 8, .ifmap_kb = 1, .filter_kb = 1,
                  .ofmap_kb = 1, .filter_offset = 10000000, .ofmap_offset = 20000000,
                  .bw_mode = TPU_BW_CALC, .bandwidth = 10, .file = "tiny.cfg" };
    TpuLayer l = { "Conv", 20, 20, 3, 3, 16, 24, 1, 1, 2 };
    uint64_t saved = tpu_sample_budget;
    int64_t at = tpu_est_rebias_at;
    for (int df = 0; df < 3; df++) {
        a.dataflow = (TpuDataflow)df;
        for (int smp = 0; smp < 2; smp++) {
            TpuLayerResult r0, r1;
            GError *e = NULL;
            tpu_sample_budget = smp ? 4096 : 0;
            tpu_est_rebias_at = at;
            CU_ASSERT_TRUE_FATAL(tpu_run_layer(&a, &l, false, &r0, &e));
            tpu_est_rebias_at = 3;
            CU_ASSERT_TRUE_FATAL(tpu_run_layer(&a, &l, false, &r1, &e));
            CU_ASSERT_EQUAL(smp ? r0.sampled_folds > 0 : r0.sampled_folds == 0, 1);
            CU_ASSERT_EQUAL(r1.dram_ifmap_reads, r0.dram_ifmap_reads);
            CU_ASSERT_EQUAL(r1.dram_filter_reads, r0.dram_filter_reads);
            CU_ASSERT_EQUAL(memcmp(&r0, &r1, sizeof r0), 0);
        }
    }
    tpu_est_rebias_at = at;
    tpu_sample_budget = saved;
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("tpu", NULL, NULL);
    CU_add_test(s, "Python float formatting", test_py_float);
    CU_add_test(s, "CALC and USER runs equal SCALE-Sim's reports byte for byte",
                test_runs_equal_scalesim);
    CU_add_test(s, "the default mode's corrections", test_default_mode);
    CU_add_test(s, "SRAM traces equal SCALE-Sim's", test_sram_traces_equal_scalesim);
    CU_add_test(s, "the reference layer of systolic.md", test_reference_layer);
    CU_add_test(s, "huge layers are sampled in the default mode only", test_sampling);
    CU_add_test(s, "the estimator's set numbers move without changing a result", test_set_rebias);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
