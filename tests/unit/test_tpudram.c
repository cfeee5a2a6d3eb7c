/* test_tpudram.c: SCALE-Sim's DRAM traces (models/tpu/tpudram.c) against SCALE-Sim v2's own.
 * tests/tpu/scalesim/ref/<run>/<topology>/dram/ holds SCALE-Sim's IFMAP/FILTER/OFMAP_DRAM_TRACE.csv
 * (whole files, or their first and last 20 lines, and a manifest with every file's lines, bytes
 * and SHA-256; regen.sh makes them): `--scalesim-compat --dram-traces` over the whole run must
 * write the same bytes. Also: the window, the default mode's traces against its reports, a write
 * error, and CPython 3.11's set order (tests/tpu/scalesim/pyset_orders.py). */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../models/tpu/tpu.h"
#include "../../models/tpu/tpuint.h"
#include "../../sim/error.h"

#define REF "tests/tpu/scalesim"

static const char *const dnames[3] = { "IFMAP_DRAM_TRACE.csv", "FILTER_DRAM_TRACE.csv",
                                       "OFMAP_DRAM_TRACE.csv" };

static char *slurp(const char *path)
{
    char *s = NULL;
    if (!g_file_get_contents(path, &s, NULL, NULL))
        return NULL;
    return s;
}

static void rm_tree(const char *path)
{
    GDir *d = g_dir_open(path, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name(d))) {
        char *p = g_build_filename(path, name, NULL);
        if (g_file_test(p, G_FILE_TEST_IS_DIR) && !g_file_test(p, G_FILE_TEST_IS_SYMLINK))
            rm_tree(p);
        else
            g_unlink(p);
        g_free(p);
    }
    if (d)
        g_dir_close(d);
    g_rmdir(path);
}

/* `archsim tpu` with these arguments (NULL-terminated); its exit status. */
static int run_cli(const char *first, ...)
{
    GPtrArray *av = g_ptr_array_new();
    g_ptr_array_add(av, (gpointer) "tpu");
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a; a = va_arg(ap, const char *))
        g_ptr_array_add(av, (gpointer)a);
    va_end(ap);
    int rc = tpu_main((int)av->len, (char **)av->pdata);
    g_ptr_array_free(av, TRUE);
    return rc;
}

/* The first n lines of s (n > 0), or the last -n; a new string. */
static char *lines_of(const char *s, int n)
{
    char **l = g_strsplit(s, "\n", -1);
    guint len = g_strv_length(l);
    if (len && !*l[len - 1])                       /* the empty piece after the last newline */
        len--;
    guint lo = n > 0 ? 0 : (guint)MAX((int)len + n, 0), hi = n > 0 ? MIN((guint)n, len) : len;
    GString *out = g_string_new(NULL);
    for (guint i = lo; i < hi; i++)
        g_string_append_printf(out, "%s\n", l[i]);
    g_strfreev(l);
    return g_string_free(out, FALSE);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Compares archsim's traces in got/ with the references in ref/ (manifest.txt, whole files,
 * .head and .tail); returns the number of files that differ. */
static int compare_manifest(const char *ref, const char *got, int *files)
{
    char *mpath = g_build_filename(ref, "manifest.txt", NULL);
    char *manifest = slurp(mpath);
    CU_ASSERT_PTR_NOT_NULL_FATAL(manifest);
    int differ = 0;
    char **lines = g_strsplit(manifest, "\n", -1);
    for (char **l = lines; *l && **l; l++) {
        char name[256], sha[65];
        long nlines, nbytes;
        CU_ASSERT_EQUAL_FATAL(sscanf(*l, "%255s %ld %ld %64s", name, &nlines, &nbytes, sha), 4);
        char *gp = g_build_filename(got, name, NULL);
        char *g = slurp(gp);
        bool ok = g != NULL;
        if (ok) {
            char *h = g_compute_checksum_for_string(G_CHECKSUM_SHA256, g, -1);
            ok = (long)strlen(g) == nbytes && count_lines(g) == nlines && strcmp(h, sha) == 0;
            g_free(h);
        }
        char *whole_p = g_build_filename(ref, name, NULL);
        char *whole = slurp(whole_p);
        if (ok && whole)
            ok = strcmp(whole, g) == 0;
        for (int end = 0; ok && !whole && end < 2; end++) {    /* the stored head and tail */
            char *pp = g_strconcat(whole_p, end ? ".tail" : ".head", NULL);
            char *part = slurp(pp);
            CU_ASSERT_PTR_NOT_NULL(part);
            if (part) {
                char *mine = lines_of(g, end ? -count_lines(part) : count_lines(part));
                ok = strcmp(mine, part) == 0;
                g_free(mine);
            }
            g_free(part);
            g_free(pp);
        }
        if (!ok) {
            differ++;
            fprintf(stderr, "\n%s differs from SCALE-Sim's (%s)\n", gp, ref);
        }
        (*files)++;
        g_free(whole);
        g_free(whole_p);
        g_free(g);
        g_free(gp);
    }
    g_strfreev(lines);
    g_free(manifest);
    g_free(mpath);
    return differ;
}

/* Every ref/<run>/<topology>/dram/ equals archsim's compat traces over the whole run. */
static void test_dram_traces_equal_scalesim(void)
{
    GDir *d = g_dir_open(REF "/ref", 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    char *tmp = g_dir_make_tmp("tpudram-XXXXXX", NULL);
    int runs = 0, files = 0, differ = 0;
    const char *run;
    while ((run = g_dir_read_name(d))) {
        char *rdir = g_build_filename(REF "/ref", run, NULL);
        GDir *td = g_dir_open(rdir, 0, NULL);
        const char *topo;
        while (td && (topo = g_dir_read_name(td))) {
            char *ref = g_build_filename(rdir, topo, "dram", NULL);
            if (!g_file_test(ref, G_FILE_TEST_IS_DIR)) {
                g_free(ref);
                continue;
            }
            char *cfg = g_strdup_printf(REF "/configs/%s.cfg", run);
            char *csv = g_strdup_printf(REF "/topologies/%s.csv", topo);
            char *out = g_build_filename(tmp, "out", NULL);
            int rc = run_cli("-c", cfg, "-t", csv, "-i", strcmp(topo, "gemm") ? "conv" : "gemm",
                             "--scalesim-compat", "--dram-traces", "--trace-window",
                             "0:18446744073709551615", "-q", "-o", out, NULL);
            CU_ASSERT_EQUAL(rc, 0);
            if (rc == 0)
                differ += compare_manifest(ref, out, &files);
            runs++;
            rm_tree(out);
            g_free(out);
            g_free(cfg);
            g_free(csv);
            g_free(ref);
        }
        if (td)
            g_dir_close(td);
        g_free(rdir);
    }
    g_dir_close(d);
    rm_tree(tmp);
    g_free(tmp);
    CU_ASSERT_EQUAL(differ, 0);
    CU_ASSERT_TRUE(runs >= 15);
    CU_ASSERT_TRUE(files >= 90);
}

/* The first 40 lines of trace4x4_*'s DRAM traces (stored with the SRAM traces). */
static void test_trace4x4_heads(void)
{
    static const char *const df[] = { "os", "ws", "is" };
    char *tmp = g_dir_make_tmp("tpudram-XXXXXX", NULL);
    for (int k = 0; k < 3; k++) {
        char *cfg = g_strdup_printf(REF "/configs/trace4x4_%s.cfg", df[k]);
        char *out = g_build_filename(tmp, df[k], NULL);
        CU_ASSERT_EQUAL(run_cli("-c", cfg, "-t", REF "/topologies/trace_tiny.csv",
                                "--scalesim-compat", "--dram-traces", "--trace-window",
                                "0:100000", "-q", "-o", out, NULL), 0);
        for (int t = 0; t < 3; t++) {
            char *wp = g_strdup_printf(REF "/ref/trace4x4_%s/trace_head/%s", df[k], dnames[t]);
            char *gp = g_build_filename(out, "layer0", dnames[t], NULL);
            char *want = slurp(wp), *got = slurp(gp);
            CU_ASSERT_PTR_NOT_NULL(want);
            CU_ASSERT_PTR_NOT_NULL(got);
            if (want && got) {
                char *head = lines_of(got, 40);
                CU_ASSERT_STRING_EQUAL(head, want);
                g_free(head);
            }
            g_free(want);
            g_free(got);
            g_free(wp);
            g_free(gp);
        }
        g_free(cfg);
        g_free(out);
    }
    rm_tree(tmp);
    g_free(tmp);
}

/* The cycle of a trace line. */
static double line_cycle(const char *line) { return g_ascii_strtod(line, NULL); }

/* --trace-window FROM:TO writes exactly the rows of the whole trace whose cycle is in [FROM, TO]
 * (FROM 0: the first fill before cycle 0 too), padded to the whole trace's width; SRAM traces
 * beside them keep their own window (demand rows). */
static void test_window(void)
{
    static const struct {
        const char *from, *to;
    } win[] = { { "0", "150" }, { "1", "150" }, { "90", "400" }, { "1000000", "2000000" } };
    char *tmp = g_dir_make_tmp("tpudram-XXXXXX", NULL);
    char *full = g_build_filename(tmp, "full", NULL);
    /* 16x16: a filter prefetch wider than the first, so the first rows are padded */
    const char *cfg = REF "/configs/dram16x16_os_calc.cfg", *csv = REF "/topologies/dram_small.csv";
    CU_ASSERT_EQUAL_FATAL(run_cli("-c", cfg, "-t", csv, "--scalesim-compat", "--dram-traces",
                                  "--trace-window", "0:100000000", "-q", "-o", full, NULL), 0);
    for (size_t w = 0; w < G_N_ELEMENTS(win); w++) {
        char *out = g_build_filename(tmp, "w", NULL);
        char *spec = g_strdup_printf("%s:%s", win[w].from, win[w].to);
        double from = atof(win[w].from), to = atof(win[w].to);
        CU_ASSERT_EQUAL(run_cli("-c", cfg, "-t", csv, "--scalesim-compat", "--dram-traces",
                                "--sram-traces", "--trace-window", spec, "-q", "-o", out, NULL),
                        0);
        for (int layer = 0; layer < 2; layer++)
            for (int t = 0; t < 3; t++) {
                char *fp = g_strdup_printf("%s/layer%d/%s", full, layer, dnames[t]);
                char *wp = g_strdup_printf("%s/layer%d/%s", out, layer, dnames[t]);
                char *f = slurp(fp), *g = slurp(wp);
                CU_ASSERT_PTR_NOT_NULL_FATAL(f);
                CU_ASSERT_PTR_NOT_NULL_FATAL(g);
                GString *want = g_string_new(NULL);
                char **fl = g_strsplit(f, "\n", -1);
                for (char **l = fl; *l && **l; l++) {
                    double c = line_cycle(*l);
                    if (c <= to && (c >= from || from == 0))
                        g_string_append_printf(want, "%s\n", *l);
                }
                CU_ASSERT_STRING_EQUAL(g, want->str);
                g_strfreev(fl);
                g_string_free(want, TRUE);
                g_free(f);
                g_free(g);
                g_free(fp);
                g_free(wp);
            }
        /* the SRAM traces: demand rows FROM..TO */
        char *sp = g_strdup_printf("%s/layer1/IFMAP_SRAM_TRACE.csv", out);
        char *s = slurp(sp);
        CU_ASSERT_PTR_NOT_NULL(s);
        if (s && to < 1000) {
            CU_ASSERT_EQUAL(count_lines(s), (int)(to - from + 1));
        }
        g_free(s);
        g_free(sp);
        rm_tree(out);
        g_free(out);
        g_free(spec);
    }
    /* the first fill is in the window from 0, not from 1 */
    char *p = g_strdup_printf("%s/layer0/IFMAP_DRAM_TRACE.csv", full);
    char *f = slurp(p);
    CU_ASSERT_TRUE(f && f[0] == '-');
    g_free(f);
    g_free(p);
    rm_tree(tmp);
    g_free(tmp);
    g_free(full);
}

/* A parsed trace: rows x cols values (cycle first). */
typedef struct {
    int rows, cols;
    double *v;
} Trace;

static bool trace_load(const char *path, Trace *t)
{
    char *s = slurp(path);
    if (!s)
        return false;
    char **l = g_strsplit(s, "\n", -1);
    t->rows = t->cols = 0;
    t->v = NULL;
    bool ok = true;
    GArray *v = g_array_new(FALSE, FALSE, sizeof(double));
    for (char **p = l; *p && **p; p++) {
        char **f = g_strsplit(*p, ",", -1);
        int n = (int)g_strv_length(f);
        if (t->rows == 0)
            t->cols = n;
        ok = ok && n == t->cols;                   /* every row as wide */
        for (int k = 0; k < n; k++) {
            char *end;
            double x = g_ascii_strtod(f[k], &end);
            ok = ok && *end == 0 && end != f[k] && strchr(f[k], '.');   /* floats as Python's */
            g_array_append_val(v, x);
        }
        g_strfreev(f);
        t->rows++;
    }
    t->v = (double *)(void *)g_array_free(v, FALSE);
    g_strfreev(l);
    g_free(s);
    return ok;
}

/* The default mode writes the same format from its own DRAM behaviour: well formed, read cycles
 * rising, the first and last rows at the reports' DRAM start and stop cycles, and the words in
 * them the reports' DRAM reads and writes (CALC: every listed word; USER: whole lines, as the
 * reports count them; OFMAP: the words written, which the default mode counts exactly). */
static void test_default_mode_counts(void)
{
    TpuArch a = { .run_name = "t", .rows = 8, .cols = 8, .ifmap_kb = 2, .filter_kb = 2,
                  .ofmap_kb = 1, .ifmap_offset = 5000000, .filter_offset = 10000000,
                  .ofmap_offset = 20000000, .bandwidth = 4, .file = "t" };
    TpuLayer l = { "L", 16, 16, 3, 3, 8, 16, 1, 1, 2 };
    char *tmp = g_dir_make_tmp("tpudram-XXXXXX", NULL);
    int n = 0;
    for (int bw = 0; bw < 2; bw++)
        for (int df = 0; df < 3; df++)
            for (int compat = 0; compat < 2; compat++) {
                a.bw_mode = bw ? TPU_BW_USER : TPU_BW_CALC;
                a.dataflow = (TpuDataflow)df;
                GError *e = NULL;
                TpuTraces tr = { .from = 0, .to = UINT64_MAX };
                tr.dram = tpu_dram_traces_open(tmp, n, 0, UINT64_MAX, &e);
                CU_ASSERT_PTR_NOT_NULL_FATAL(tr.dram);
                TpuLayerResult res, plain;
                CU_ASSERT_TRUE_FATAL(tpu_run_layer_traced(&a, &l, compat, &tr, &res, &e));
                CU_ASSERT_TRUE_FATAL(tpu_dram_traces_close(tr.dram, &e));
                /* traces change nothing */
                CU_ASSERT_TRUE_FATAL(tpu_run_layer(&a, &l, compat, &plain, &e));
                CU_ASSERT_EQUAL(memcmp(&res, &plain, sizeof res), 0);
                const double start[3] = { res.dram_ifmap_start, res.dram_filter_start,
                                          res.dram_ofmap_start };
                const double stop[3] = { res.dram_ifmap_stop, res.dram_filter_stop,
                                         res.dram_ofmap_stop };
                const uint64_t words[3] = { res.dram_ifmap_reads, res.dram_filter_reads,
                                            res.dram_ofmap_writes };
                for (int t = 0; t < 3; t++) {
                    char *p = g_strdup_printf("%s/layer%d/%s", tmp, n, dnames[t]);
                    Trace x = { 0 };
                    CU_ASSERT_TRUE(trace_load(p, &x));
                    CU_ASSERT_TRUE_FATAL(x.rows > 0);
                    uint64_t count = 0;
                    bool rising = true;
                    for (int r = 0; r < x.rows; r++) {
                        const double *row = x.v + (size_t)r * (size_t)x.cols;
                        rising = rising && (r == 0 || row[0] >= row[-x.cols]);
                        for (int c = 1; c < x.cols; c++)
                            count += row[c] != -1 && row[c] != 1;   /* 1.0: padding */
                    }
                    /* reads rise; a drain can start before the one under way ends (SCALE-Sim
                       drains the rest at the array's last cycle, and a staged line may wait) */
                    if (!rising && t < 2)
                        fprintf(stderr, "\n%s: cycles fall\n", p);
                    CU_ASSERT_TRUE(rising || t == 2);
                    CU_ASSERT_EQUAL(x.v[0], start[t]);
                    CU_ASSERT_EQUAL(x.v[(size_t)(x.rows - 1) * (size_t)x.cols], stop[t]);
                    if (t < 2 && bw)                   /* USER: whole lines of `bandwidth` */
                        count = (uint64_t)x.rows * a.bandwidth;
                    if (!compat || t < 2) {
                        if (count != words[t])
                            fprintf(stderr, "\n%s: %lu words, the report %lu\n", p,
                                    (unsigned long)count, (unsigned long)words[t]);
                        CU_ASSERT_EQUAL(count, words[t]);
                    }
                    g_free(x.v);
                    g_free(p);
                }
                n++;
            }
    rm_tree(tmp);
    g_free(tmp);
}

/* A trace that cannot be written: no trace or report that looks complete, and (issue 15 item 4)
 * nothing written through a link or over a file that is not archsim's. */
static void test_write_error(void)
{
    char *tmp = g_dir_make_tmp("tpudram-XXXXXX", NULL);
    const char *cfg = REF "/configs/dram8x8_ws_calc.cfg", *csv = REF "/topologies/dram_small.csv";
    char *l1 = g_build_filename(tmp, "layer1", NULL);
    g_mkdir(l1, 0777);
    /* (1) issue 15 item 4: layer 1's OFMAP trace name is a link to a device: refused (73),
     * the device untouched; the layer before is whole */
    if (g_file_test("/dev/full", G_FILE_TEST_EXISTS)) {
        char *link = g_build_filename(l1, "OFMAP_DRAM_TRACE.csv", NULL);
        CU_ASSERT_EQUAL_FATAL(symlink("/dev/full", link), 0);
        CU_ASSERT_EQUAL(run_cli("-c", cfg, "-t", csv, "--dram-traces", "--force", "-q", "-o", tmp,
                                NULL), ARCHSIM_EXIT_CANTCREAT);
        CU_ASSERT_TRUE(g_file_test(link, G_FILE_TEST_IS_SYMLINK));
        g_unlink(link);
        g_free(link);
        for (int t = 0; t < 3; t++) {
            char *p = g_build_filename(l1, dnames[t], NULL);
            CU_ASSERT_FALSE(g_file_test(p, G_FILE_TEST_EXISTS));
            g_free(p);
        }
        char *rep = g_build_filename(tmp, "COMPUTE_REPORT.csv", NULL);
        CU_ASSERT_FALSE(g_file_test(rep, G_FILE_TEST_EXISTS));
        g_free(rep);
        char *l0 = g_build_filename(tmp, "layer0", dnames[2], NULL);
        CU_ASSERT_TRUE(g_file_test(l0, G_FILE_TEST_EXISTS));    /* the layer before: whole */
        g_free(l0);
    }
    /* (2) the FILTER trace cannot take its name (a directory holds it): refused (73) */
    char *blocker = g_build_filename(l1, dnames[1], NULL);
    char *inside = g_build_filename(blocker, "x", NULL);
    g_mkdir(blocker, 0777);
    g_file_set_contents(inside, "x", 1, NULL);
    CU_ASSERT_EQUAL(run_cli("-c", cfg, "-t", csv, "--dram-traces", "--force", "-q", "-o", tmp,
                            NULL), ARCHSIM_EXIT_CANTCREAT);
    CU_ASSERT_TRUE(g_file_test(inside, G_FILE_TEST_IS_REGULAR));
    for (int t = 0; t < 3; t += 2) {
        char *p = g_build_filename(l1, dnames[t], NULL);
        CU_ASSERT_FALSE(g_file_test(p, G_FILE_TEST_EXISTS));
        g_free(p);
    }
    GDir *d = g_dir_open(l1, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name(d)))
        CU_ASSERT_PTR_NULL(strstr(name, ".part"));
    if (d)
        g_dir_close(d);
    g_free(inside);
    g_free(blocker);
    g_free(l1);
    rm_tree(tmp);
    g_free(tmp);
}

/* ---- CPython 3.11's set order --------------------------------------------------------------
 * Expected values from `/usr/bin/python3 tests/tpu/scalesim/pyset_orders.py` (Python 3.11.2):
 * the order itself for short cases, else the distinct count and sum((k + 1) * v_k) mod 2^64. */
static GArray *lcg(uint64_t seed, size_t n, uint64_t span, int64_t base)
{
    GArray *a = g_array_new(FALSE, FALSE, sizeof(int64_t));
    uint64_t x = seed;
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int64_t v = base + (int64_t)((x >> 33) % span);
        g_array_append_val(a, v);
    }
    return a;
}

static void check_order(const char *name, GArray *keys, size_t want_n, uint64_t want_sum,
                        const int64_t *want)
{
    int64_t *out = g_new(int64_t, keys->len + 1);
    size_t m = tpu_pyset_order(&g_array_index(keys, int64_t, 0), keys->len, out);
    uint64_t sum = 0;
    for (size_t k = 0; k < m; k++)
        sum += (uint64_t)(k + 1) * (uint64_t)out[k];
    if (m != want_n || (want && memcmp(out, want, m * sizeof *out) != 0) ||
        (!want && sum != want_sum))
        fprintf(stderr, "\n%s: %zu keys, checksum %" G_GUINT64_FORMAT "\n", name, m, sum);
    CU_ASSERT_EQUAL(m, want_n);
    if (want) {
        CU_ASSERT_EQUAL(memcmp(out, want, m * sizeof *out), 0);
    } else {
        CU_ASSERT_EQUAL(sum, want_sum);
    }
    g_free(out);
    g_array_free(keys, TRUE);
}

static void test_pyset_order(void)
{
    GArray *k = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (int64_t i = 0; i < 40; i++) {
        int64_t v = 10000000 + 8 * i;
        g_array_append_val(k, v);
    }
    static const int64_t stride8[] = {
        10000000, 10000128, 10000256, 10000008, 10000136, 10000264, 10000016, 10000144,
        10000272, 10000248, 10000024, 10000152, 10000280, 10000032, 10000160, 10000288,
        10000040, 10000168, 10000296, 10000048, 10000176, 10000304, 10000056, 10000184,
        10000312, 10000064, 10000192, 10000072, 10000200, 10000080, 10000208, 10000088,
        10000216, 10000096, 10000224, 10000104, 10000232, 10000112, 10000240, 10000120,
    };
    check_order("stride8", k, 40, 0, stride8);
    static const int64_t lcg1[] = {
        444812,  3721357, 1684890, 9567130, 8670495, 858400,  7939872, 6775968, 6356004, 3298089,
        2817328, 6429365, 3087034, 6146746, 1492669, 2341196, 1799121, 7093332, 8834774, 3944153,
        8211034, 584926,  4893410, 2192870, 9467627, 530802,  4839795, 486902,  1520123, 2947452,
    };
    check_order("lcg1", lcg(1, 30, 10000000, 0), 30, 0, lcg1);
    /* negative keys and keys of equal hash (2^61 - 1 and 0: hash(n) = n mod 2^61 - 1) */
    static const int64_t sin[] = {
        -1, -2, -3, 5, -(INT64_C(1) << 61) + 1, -(INT64_C(1) << 61), INT64_MIN / 2, 7, 0,
        (INT64_C(1) << 61) - 1, INT64_C(1) << 61, (INT64_C(1) << 62) + 977,
    };
    static const int64_t sout[] = {
        -INT64_C(2305843009213693951), 0, INT64_C(2305843009213693951),
        INT64_C(2305843009213693952), 5, 7, INT64_C(4611686018427388881), -2,
        -INT64_C(2305843009213693952), -INT64_C(4611686018427387904), -3, -1,
    };
    k = g_array_new(FALSE, FALSE, sizeof(int64_t));
    g_array_append_vals(k, sin, G_N_ELEMENTS(sin));
    check_order("signed", k, 12, 0, sout);
    check_order("dups", lcg(2, 200, 200, 0), 118, 922815, NULL);
    check_order("filter", lcg(3, 655, 36864, 10000000), 646, 2093698795477ull, NULL);
    check_order("wide", lcg(4, 5000, 1ull << 40, 0), 5000, 13413617591528880ull, NULL);
    check_order("big", lcg(5, 120000, 1000000000, 0), 119988, 3398003097932845143ull, NULL);
    k = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (int64_t i = 0; i < 70000; i++) {
        int64_t v = 32 * i;
        g_array_append_val(k, v);
    }
    check_order("stride32", k, 70000, 2779900235121152ull, NULL);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("tpudram", NULL, NULL);
    CU_add_test(s, "CPython 3.11 set order", test_pyset_order);
    CU_add_test(s, "DRAM traces equal SCALE-Sim's byte for byte", test_dram_traces_equal_scalesim);
    CU_add_test(s, "trace4x4 DRAM trace heads", test_trace4x4_heads);
    CU_add_test(s, "the trace window bounds the DRAM rows", test_window);
    CU_add_test(s, "default mode: traces agree with the reports", test_default_mode_counts);
    CU_add_test(s, "a write error leaves no complete-looking trace", test_write_error);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
