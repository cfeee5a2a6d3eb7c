/* test_tpuin.c: CUnit tests for models/tpu/scalein.c, the SCALE-Sim .cfg and topology CSV readers.
 *
 * Every shipped config and topology (tests/tpu/shipped, or $ARCHSIM_SCALESIM_DIR) loads with
 * exact layer counts or fails with its exact message; the five conv_nets files SCALE-Sim cannot
 * read load with their evident meaning; malformed inputs give exact "FILE:LINE:COL: problem"
 * messages and exit codes; a seeded mutation fuzz never crashes and always says where. Run from
 * the repo root.
 */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/tpu/tpu.h"
#include "../../sim/error.h"
#include "tmpdir.h"

static char *ti_dir;  /* scratch directory for this run */

/* Where SCALE-Sim's inputs are: $ARCHSIM_SCALESIM_DIR or the copy in tests/tpu/shipped. */
static const char *ti_scalesim_dir(void)
{
    static const char *const dirs[] = {"tests/tpu/shipped", NULL};
    const char *env = g_getenv("ARCHSIM_SCALESIM_DIR");
    if (env != NULL && g_file_test(env, G_FILE_TEST_IS_DIR))
        return env;
    for (int i = 0; dirs[i] != NULL; i++) {
        char *probe = g_build_filename(dirs[i], "v2", "configs", "scale.cfg", NULL);
        bool there = g_file_test(probe, G_FILE_TEST_EXISTS);
        g_free(probe);
        if (there)
            return dirs[i];
    }
    return NULL;
}

/* A shipped file's path, or NULL (with a note, once) when tests/tpu/shipped is not there. */
static char *ti_shipped(const char *rel)
{
    static bool noted;
    const char *d = ti_scalesim_dir();
    if (d == NULL) {
        if (!noted)
            fprintf(stderr, "\n  note: tests/tpu/shipped not found; shipped-file tests skipped\n");
        noted = true;
        return NULL;
    }
    return g_build_filename(d, rel, NULL);
}

/* Plain stdio, not g_file_set_contents: that fsyncs, which makes the fuzz loop disk-bound. */
static void ti_put(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(data, 1, len, f), len);
    CU_ASSERT_EQUAL(fclose(f), 0);
}

static char *ti_write(const char *name, const char *data, size_t len)
{
    char *path = g_build_filename(ti_dir, name, NULL);
    ti_put(path, data, len);
    return path;
}

/* "FILE" in a template -> path */
static char *ti_expand(const char *tmpl, const char *path)
{
    GString *s = g_string_new(NULL);
    for (const char *p = tmpl; *p != '\0'; p++) {
        if (strncmp(p, "FILE", 4) == 0) {
            g_string_append(s, path);
            p += 3;
        } else {
            g_string_append_c(s, *p);
        }
    }
    return g_string_free(s, FALSE);
}

/* ------------------------------------------------------------------------------------------ */
/* Shipped configs */

typedef struct {
    const char *rel, *run_name;
    uint64_t rows, cols, ifmap_kb, filter_kb, ofmap_kb;
    int64_t ifmap_off, filter_off, ofmap_off;
    TpuDataflow df;
    TpuBwMode mode;
    uint64_t bw;
} TiCfg;

static const TiCfg ti_cfgs[] = {
    {"v2/configs/scale.cfg", "scale_example_run_32x32_os", 32, 32, 64, 64, 64, 0, 10000000,
     20000000, TPU_OS, TPU_BW_CALC, 0},
    {"v2/configs/google.cfg", "GoogleTPU_v1_ws", 256, 256, 6144, 6144, 2048, 0, 10000000,
     20000000, TPU_WS, TPU_BW_CALC, 0},
    {"v2/configs/eyeriss.cfg", "eyeriss", 12, 14, 36, 36, 36, 0, 10000000, 20000000, TPU_WS,
     TPU_BW_CALC, 0},
    {"v3/configs/eyeriss.cfg", "eyeriss", 12, 14, 36, 36, 36, 0, 10000000, 20000000, TPU_WS,
     TPU_BW_CALC, 0},
    {"v3/configs/google.cfg", "GoogleTPU_v1_os", 256, 256, 6144, 6144, 2048, 0, 10000000,
     20000000, TPU_OS, TPU_BW_USER, 10},
    {"v3/configs/scale.cfg", "scale_example_run_32x32_ws", 32, 32, 64, 64, 64, 0, 10000000,
     20000000, TPU_WS, TPU_BW_CALC, 0},
};

/* the shipped v3 configs that set an option archsim refuses (issue15_item11_v3_options) */
#define TI_V3_REFUSED 10

static void test_shipped_configs(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(ti_cfgs); i++) {
        const TiCfg *c = &ti_cfgs[i];
        char *path = ti_shipped(c->rel);
        if (path == NULL)
            return;
        TpuArch a;
        GError *err = NULL;
        bool ok = tpu_arch_load(path, &a, &err);
        if (!ok)
            fprintf(stderr, "\n%s: %s\n", c->rel, err->message);
        CU_ASSERT_TRUE_FATAL(ok);
        CU_ASSERT_STRING_EQUAL(a.run_name, c->run_name);
        CU_ASSERT_STRING_EQUAL(a.file, path);
        CU_ASSERT_EQUAL(a.rows, c->rows);
        CU_ASSERT_EQUAL(a.cols, c->cols);
        CU_ASSERT_EQUAL(a.ifmap_kb, c->ifmap_kb);
        CU_ASSERT_EQUAL(a.filter_kb, c->filter_kb);
        CU_ASSERT_EQUAL(a.ofmap_kb, c->ofmap_kb);
        CU_ASSERT_EQUAL(a.ifmap_offset, c->ifmap_off);
        CU_ASSERT_EQUAL(a.filter_offset, c->filter_off);
        CU_ASSERT_EQUAL(a.ofmap_offset, c->ofmap_off);
        CU_ASSERT_EQUAL(a.dataflow, c->df);
        CU_ASSERT_EQUAL(a.bw_mode, c->mode);
        CU_ASSERT_EQUAL(a.bandwidth, c->bw);
        tpu_arch_clear(&a);
        g_free(path);
    }
    /* and nothing else is shipped that this table misses */
    char *dirs[2] = {ti_shipped("v2/configs"), ti_shipped("v3/configs")};
    size_t n = 0;
    for (int d = 0; d < 2; d++) {
        GDir *dir = g_dir_open(dirs[d], 0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
        const char *name;
        while ((name = g_dir_read_name(dir)) != NULL)
            n += g_str_has_suffix(name, ".cfg");
        g_dir_close(dir);
        g_free(dirs[d]);
    }
    CU_ASSERT_EQUAL(n, G_N_ELEMENTS(ti_cfgs) + TI_V3_REFUSED);  /* issue15_item11_v3_options */
}

/* ------------------------------------------------------------------------------------------ */
/* Shipped topologies: all of them, conv or gemm by folder and header */

typedef struct {
    const char *rel;
    bool gemm;
    int nlayers;       /* when it loads */
    const char *err;   /* otherwise: the message after the path */
} TiTopo;

static const TiTopo ti_topos[] = {
#include "data/tpu/shipped_topologies.inc"
};

static size_t ti_count_csv(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    size_t n = 0;
    const char *name;
    while ((name = g_dir_read_name(d)) != NULL) {
        char *p = g_build_filename(dir, name, NULL);
        if (g_file_test(p, G_FILE_TEST_IS_DIR))
            n += ti_count_csv(p);
        else
            n += g_str_has_suffix(name, ".csv");
        g_free(p);
    }
    g_dir_close(d);
    return n;
}

static void test_shipped_topologies(void)
{
    if (ti_scalesim_dir() == NULL) {
        (void)ti_shipped("");
        return;
    }
    size_t loaded = 0, failed = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(ti_topos); i++) {
        const TiTopo *x = &ti_topos[i];
        char *path = ti_shipped(x->rel);
        TpuTopology t;
        GError *err = NULL;
        bool ok = tpu_topology_load(path, x->gemm, &t, &err);
        if (ok != (x->err == NULL))
            fprintf(stderr, "\n%s: %s\n", x->rel, ok ? "loads" : err->message);
        CU_ASSERT_EQUAL(ok, x->err == NULL);
        if (ok) {
            loaded++;
            CU_ASSERT_EQUAL(t.nlayers, x->nlayers);
            CU_ASSERT_STRING_EQUAL(t.file, path);
            for (int k = 0; k < t.nlayers; k++) {
                const TpuLayer *l = &t.layers[k];
                CU_ASSERT(l->ifmap_h >= l->filter_h && l->ifmap_w >= l->filter_w);
                CU_ASSERT(l->channels >= 1 && l->filters >= 1 && l->stride_h >= 1 &&
                          l->stride_w >= 1 && l->filter_h >= 1);
                CU_ASSERT(l->line >= 2);
            }
            tpu_topology_clear(&t);
        } else if (err != NULL) {
            failed++;
            char *want = g_strconcat(path, x->err, NULL);
            if (strcmp(err->message, want) != 0)
                fprintf(stderr, "\n got: %s\nwant: %s\n", err->message, want);
            CU_ASSERT_STRING_EQUAL(err->message, want);
            CU_ASSERT_EQUAL(err->domain, ARCHSIM_TRACE_ERROR);
            CU_ASSERT_EQUAL(err->code, ARCHSIM_EXIT_DATAERR);
            g_free(want);
            g_error_free(err);
        }
        g_free(path);
    }
    /* the 8 that fail hold symbols for sizes (two LSTM templates), a row typed ", ,1 2," (two
     * MLPERF.csv, Sentimental_seqLSTM.csv) or a v3 sparsity column of ratios (three) */
    CU_ASSERT_EQUAL(loaded, 124);
    CU_ASSERT_EQUAL(failed, 8);
    /* and the table misses no shipped topology */
    const char *roots[] = {"v2/topologies", "v3/topologies"};
    size_t n = 0;
    for (int r = 0; r < 2; r++) {
        char *root = ti_shipped(roots[r]);
        n += ti_count_csv(root);
        g_free(root);
    }
    CU_ASSERT_EQUAL(n, G_N_ELEMENTS(ti_topos));
}

/* Resnet18: the first layer and the last, exactly, with their source lines. */
static void test_resnet18(void)
{
    char *path = ti_shipped("v2/topologies/conv_nets/Resnet18.csv");
    if (path == NULL)
        return;
    TpuTopology t;
    CU_ASSERT_TRUE_FATAL(tpu_topology_load(path, false, &t, NULL));
    CU_ASSERT_EQUAL_FATAL(t.nlayers, 21);
    const TpuLayer *l = &t.layers[0];
    CU_ASSERT_STRING_EQUAL(l->name, "Conv1");
    CU_ASSERT(l->ifmap_h == 224 && l->ifmap_w == 224 && l->filter_h == 7 && l->filter_w == 7 &&
              l->channels == 3 && l->filters == 64 && l->stride_h == 2 && l->stride_w == 2);
    CU_ASSERT_EQUAL(l->line, 2);
    l = &t.layers[6];
    CU_ASSERT_STRING_EQUAL(l->name, "Conv3_1b");
    CU_ASSERT(l->ifmap_h == 28 && l->filter_h == 3 && l->channels == 128 && l->filters == 128 &&
              l->stride_h == 1);
    CU_ASSERT_EQUAL(l->line, 8);
    tpu_topology_clear(&t);
    g_free(path);
}

/* The five conv_nets files SCALE-Sim v2 cannot read (docs/references.md §9). */
static void test_scalesim_chokes(void)
{
    TpuTopology t;
    GError *err = NULL;
    char *path;

    /* Resnet50.csv: a row of bare commas after the header, 13 columns, some annotated */
    if ((path = ti_shipped("v2/topologies/conv_nets/Resnet50.csv")) == NULL)
        return;
    CU_ASSERT_TRUE_FATAL(tpu_topology_load(path, false, &t, &err));
    CU_ASSERT_EQUAL(t.nlayers, 54);
    CU_ASSERT_STRING_EQUAL(t.layers[0].name, "Conv1");
    CU_ASSERT_EQUAL(t.layers[0].line, 3);
    CU_ASSERT_EQUAL(t.layers[0].stride_h, 2);
    CU_ASSERT_EQUAL(t.layers[0].stride_w, 2);  /* column 9 empty: the same as Strides */
    CU_ASSERT_EQUAL(t.layers[0].filters, 64);
    CU_ASSERT_STRING_EQUAL(t.layers[53].name, "FC6");
    CU_ASSERT_EQUAL(t.layers[53].channels, 2048);
    CU_ASSERT_EQUAL(t.layers[53].line, 56);
    tpu_topology_clear(&t);
    g_free(path);

    /* MobileNet_4k_non_dw.csv line 7 lacks its trailing comma: its stride is kept */
    path = ti_shipped("v2/topologies/conv_nets/MobileNet_4k_non_dw.csv");
    CU_ASSERT_TRUE_FATAL(tpu_topology_load(path, false, &t, &err));
    CU_ASSERT_EQUAL(t.nlayers, 15);
    CU_ASSERT_STRING_EQUAL(t.layers[5].name, "Conv11");
    CU_ASSERT_EQUAL(t.layers[5].line, 7);
    CU_ASSERT_EQUAL(t.layers[5].filters, 256);
    CU_ASSERT_EQUAL(t.layers[5].stride_h, 1);
    CU_ASSERT_EQUAL(t.layers[5].stride_w, 1);
    tpu_topology_clear(&t);
    g_free(path);

    /* mobilnet_4k.csv: ",#dw" comments and a row without the trailing comma (line 13) */
    path = ti_shipped("v2/topologies/conv_nets/mobilnet_4k.csv");
    CU_ASSERT_TRUE_FATAL(tpu_topology_load(path, false, &t, &err));
    CU_ASSERT_EQUAL(t.nlayers, 28);
    CU_ASSERT_STRING_EQUAL(t.layers[1].name, "Conv2_dw");
    CU_ASSERT_EQUAL(t.layers[1].stride_w, 1);
    bool seen13 = false;
    for (int i = 0; i < t.nlayers; i++)
        if (t.layers[i].line == 13) {
            seen13 = true;
            CU_ASSERT(t.layers[i].stride_h >= 1);
        }
    CU_ASSERT_TRUE(seen13);
    tpu_topology_clear(&t);
    g_free(path);

    path = ti_shipped("v2/topologies/conv_nets/mobilnet_reduce_run.csv");
    CU_ASSERT_TRUE_FATAL(tpu_topology_load(path, false, &t, &err));
    CU_ASSERT_EQUAL(t.nlayers, 11);
    tpu_topology_clear(&t);
    g_free(path);

    /* UNet_maestro.csv: tab separated, a trailing tab */
    path = ti_shipped("v2/topologies/conv_nets/UNet_maestro.csv");
    CU_ASSERT_TRUE_FATAL(tpu_topology_load(path, false, &t, &err));
    CU_ASSERT_EQUAL(t.nlayers, 23);
    const TpuLayer *l = &t.layers[0];
    CU_ASSERT_STRING_EQUAL(l->name, "Conv1_1");
    CU_ASSERT(l->ifmap_h == 572 && l->ifmap_w == 572 && l->filter_h == 3 && l->filter_w == 3 &&
              l->channels == 1 && l->filters == 64 && l->stride_h == 1 && l->stride_w == 1);
    tpu_topology_clear(&t);
    g_free(path);
    CU_ASSERT_PTR_NULL(err);
}

/* ------------------------------------------------------------------------------------------ */
/* Topology forms, from strings */

static bool ti_load_topo(const char *text, bool gemm, TpuTopology *t, GError **err)
{
    char *path = ti_write("t.csv", text, strlen(text));
    bool ok = tpu_topology_load(path, gemm, t, err);
    g_free(path);
    return ok;
}

/* A name with DP is depthwise: one 1-channel layer per channel, named NAME"Channel_"i. */
static void test_dp_expansion(void)
{
    static const char text[] =
        "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num "
        "Filter, Strides,\n"
        "Conv1,  224, 224,    3, 3,      3,      32,     2,\n"
        "Conv2_DP,  112, 112,    3, 3,      4,      1,     1,\n"
        "Conv3,  112, 112,    1, 1,      32,     64,     1,\n";
    TpuTopology t;
    GError *err = NULL;
    CU_ASSERT_TRUE_FATAL(ti_load_topo(text, false, &t, &err));
    CU_ASSERT_EQUAL_FATAL(t.nlayers, 6);
    for (int i = 0; i < 4; i++) {
        char *want = g_strdup_printf("Conv2_DPChannel_%d", i);
        CU_ASSERT_STRING_EQUAL(t.layers[1 + i].name, want);
        g_free(want);
        CU_ASSERT_EQUAL(t.layers[1 + i].channels, 1);
        CU_ASSERT_EQUAL(t.layers[1 + i].filters, 1);
        CU_ASSERT_EQUAL(t.layers[1 + i].ifmap_h, 112);
        CU_ASSERT_EQUAL(t.layers[1 + i].line, 3);
    }
    CU_ASSERT_STRING_EQUAL(t.layers[5].name, "Conv3");
    CU_ASSERT_EQUAL(t.layers[5].channels, 32);
    tpu_topology_clear(&t);
    /* "dp" in lower case is not depthwise (SCALE-Sim's test is case-sensitive) */
    CU_ASSERT_TRUE_FATAL(ti_load_topo("h\nconv_dp,4,4,1,1,3,1,1,\n", false, &t, &err));
    CU_ASSERT_EQUAL(t.nlayers, 1);
    CU_ASSERT_EQUAL(t.layers[0].channels, 3);
    tpu_topology_clear(&t);
}

static void test_gemm_form(void)
{
    TpuTopology t;
    GError *err = NULL;
    CU_ASSERT_TRUE_FATAL(ti_load_topo("Layer, M, N, K,\nQKT, 1024, 64, 512,\n\nPV,8,16,32\n",
                                      true, &t, &err));
    CU_ASSERT_EQUAL_FATAL(t.nlayers, 2);
    const TpuLayer *l = &t.layers[0];
    CU_ASSERT_STRING_EQUAL(l->name, "QKT");
    /* ifmap M x K, filter 1 x K, 1 channel, N filters, strides 1 */
    CU_ASSERT(l->ifmap_h == 1024 && l->ifmap_w == 512 && l->filter_h == 1 && l->filter_w == 512 &&
              l->channels == 1 && l->filters == 64 && l->stride_h == 1 && l->stride_w == 1);
    CU_ASSERT_EQUAL(l->line, 2);
    CU_ASSERT_EQUAL(t.layers[1].line, 4);  /* no trailing comma: K is kept */
    CU_ASSERT_EQUAL(t.layers[1].ifmap_w, 32);
    tpu_topology_clear(&t);
}

#define TI_HDR "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, " \
               "Num Filter, Strides,\n"

/* issue 15 item 9: rows without commas were skipped as title rows without a word. A row holding
 * only a name is still a title (SCALE-Sim's mlperf files title their networks so), now with a
 * warning at its line; a row whose fields are separated by spaces is refused (bad_inputs.inc);
 * v3's dense sparsity column (1:1, 4:4) loads. */
static void issue15_item9_title_rows_warn(void)
{
    TpuTopology t;
    GError *err = NULL;
    CU_ASSERT_TRUE_FATAL(ti_load_topo(TI_HDR "AlphaGoZero,\nConv1,8,8,3,3,1,4,1,\n"
                                      "Neural Collaborative Filtering\nConv2,8,8,3,3,1,4,1,1:1,\n",
                                      false, &t, &err));
    CU_ASSERT_EQUAL(t.nlayers, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t.warnings);
    CU_ASSERT_EQUAL_FATAL(t.warnings->len, 2);
    CU_ASSERT_TRUE(g_str_has_suffix(g_ptr_array_index(t.warnings, 0),
                                    ":2:1: warning: 'AlphaGoZero' holds only a name: read as a "
                                    "title row, not a layer"));
    CU_ASSERT_TRUE(g_str_has_suffix(g_ptr_array_index(t.warnings, 1),
                                    ":4:1: warning: 'Neural Collaborative Filtering' holds only a "
                                    "name: read as a title row, not a layer"));
    CU_ASSERT_EQUAL(t.layers[1].stride_w, 1);
    tpu_topology_clear(&t);
    CU_ASSERT_TRUE_FATAL(ti_load_topo("Layer, M, N, K, Sparsity,\nG,3,5,16,4:4,\n", true, &t,
                                      &err));
    CU_ASSERT_EQUAL(t.nlayers, 1);
    CU_ASSERT_PTR_NULL(t.warnings);
    tpu_topology_clear(&t);
    /* columns that are not read are said, once per file */
    CU_ASSERT_TRUE_FATAL(ti_load_topo(TI_HDR "C1,8,8,3,3,1,4,1,,,6,6,\nC2,8,8,3,3,1,4,1,1,x,\n",
                                      false, &t, &err));
    CU_ASSERT_EQUAL(t.nlayers, 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t.warnings);
    CU_ASSERT_EQUAL_FATAL(t.warnings->len, 1);
    CU_ASSERT_TRUE(g_str_has_suffix(g_ptr_array_index(t.warnings, 0),
                                    ":2:20: warning: '6': the columns after Stride Width are not "
                                    "read (SCALE-Sim ignores them too); said for the first such "
                                    "value only"));
    tpu_topology_clear(&t);
    CU_ASSERT_TRUE_FATAL(ti_load_topo("Layer, M, N, K,\nG,3,5,16,note,\n", true, &t, &err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(t.warnings);
    CU_ASSERT_TRUE(g_str_has_suffix(g_ptr_array_index(t.warnings, 0),
                                    ":2:10: warning: 'note': the columns after K are not read "
                                    "(SCALE-Sim ignores them too); said for the first such value "
                                    "only"));
    tpu_topology_clear(&t);
    /* the shipped MLPERF.csv: its 8 network titles, each said */
    char *path = ti_shipped("v2/topologies/mlperf/MLPERF.csv");
    if (path != NULL && tpu_topology_load(path, false, &t, &err)) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(t.warnings);
        CU_ASSERT_EQUAL(t.warnings->len, 8);
        tpu_topology_clear(&t);
    }
    g_clear_error(&err);
    g_free(path);
}

/* The forms accepted beyond SCALE-Sim's well-formed rows, and odd but harmless text. */
static void test_conv_forms(void)
{
    TpuTopology t;
    GError *err = NULL;
    /* BOM, CRLF, a lone CR, stride_w, comments, a row of commas, spaces, extra columns */
    static const char text[] =
        "\xEF\xBB\xBFLayer name, ..., Strides,\r\n"
        ",,,,,,,,\r\n"
        "# a comment line\r\n"
        "A, 10, 12, 3, 5, 2, 8, 1, 2,\r"
        "  B ,10,12,3,5,2,8,3,,7,x,\n"
        "C\t10\t12\t3\t5\t2\t8\t1\t\n"
        "D,10,12,3,5,2,8,1 # no trailing comma\n"
        "E,+10,1_2,3,5,2,8,1,\n"
        "\n";
    CU_ASSERT_TRUE_FATAL(ti_load_topo(text, false, &t, &err));
    CU_ASSERT_EQUAL_FATAL(t.nlayers, 5);
    CU_ASSERT_STRING_EQUAL(t.layers[0].name, "A");
    CU_ASSERT_EQUAL(t.layers[0].line, 4);
    CU_ASSERT(t.layers[0].ifmap_h == 10 && t.layers[0].ifmap_w == 12 &&
              t.layers[0].filter_h == 3 && t.layers[0].filter_w == 5 &&
              t.layers[0].channels == 2 && t.layers[0].filters == 8 &&
              t.layers[0].stride_h == 1 && t.layers[0].stride_w == 2);
    CU_ASSERT_STRING_EQUAL(t.layers[1].name, "B");
    CU_ASSERT_EQUAL(t.layers[1].line, 5);
    CU_ASSERT(t.layers[1].stride_h == 3 && t.layers[1].stride_w == 3);
    CU_ASSERT_STRING_EQUAL(t.layers[2].name, "C");
    CU_ASSERT_EQUAL(t.layers[2].filters, 8);
    CU_ASSERT_EQUAL(t.layers[3].stride_h, 1);
    CU_ASSERT_EQUAL(t.layers[3].line, 7);
    CU_ASSERT(t.layers[4].ifmap_h == 10 && t.layers[4].ifmap_w == 12);
    tpu_topology_clear(&t);
    CU_ASSERT_PTR_NULL(err);
}

/* ------------------------------------------------------------------------------------------ */
/* Configs, from strings */

static const char ti_good_cfg[] =
    "[general]\n"
    "run_name = t\n"
    "\n"
    "[architecture_presets]\n"
    "ArrayHeight: 4\n"
    "ArrayWidth: 8\n"
    "IfmapSramSzkB: 1\n"
    "FilterSramSzkB: 2\n"
    "OfmapSramSzkB: 3\n"
    "IfmapOffset: 0\n"
    "FilterOffset: 10000000\n"
    "OfmapOffset: 20000000\n"
    "Dataflow: ws\n"
    "Bandwidth: 10\n"
    "MemoryBanks: 1\n"
    "\n"
    "[run_presets]\n"
    "InterfaceBandwidth: CALC\n";

/* ti_good_cfg with the first `from` replaced by `to` */
static char *ti_cfg_with(const char *from, const char *to)
{
    const char *at = strstr(ti_good_cfg, from);
    g_assert(at != NULL);
    return g_strdup_printf("%.*s%s%s", (int)(at - ti_good_cfg), ti_good_cfg, to,
                           at + strlen(from));
}

static bool ti_load_cfg(const char *text, TpuArch *a, GError **err)
{
    char *path = ti_write("t.cfg", text, strlen(text));
    bool ok = tpu_arch_load(path, a, err);
    g_free(path);
    return ok;
}

static void test_cfg_forms(void)
{
    TpuArch a;
    GError *err = NULL;
    CU_ASSERT_TRUE_FATAL(ti_load_cfg(ti_good_cfg, &a, &err));
    CU_ASSERT(a.rows == 4 && a.cols == 8 && a.ifmap_kb == 1 && a.filter_kb == 2 &&
              a.ofmap_kb == 3 && a.dataflow == TPU_WS && a.bw_mode == TPU_BW_CALC);
    tpu_arch_clear(&a);
    /* '=' and ':' separators, any case of key, ; and # comment lines, a BOM, CRLF, [DEFAULT],
     * %-interpolation, unknown sections and keys, USER mode with a bandwidth list, offsets
     * up to the limit, Python int() spellings */
    static const char text[] =
        "\xEF\xBB\xBF; SCALE-Sim config\r\n"
        "[DEFAULT]\r\n"
        "side = 16\r\n"
        "[general]\r\n"
        "run_name = run_%(side)sx%(side)s_100%%\r\n"
        "[architecture_presets]\r\n"
        "  # indented comment\r\n"
        "ARRAYHEIGHT = %(side)s\r\n"
        "arraywidth=+32\r\n"
        "IfmapSramSzkB :1_024\r\n"
        "FilterSramSzkB:   64   \r\n"
        "OfmapSramSzkB: 64\r\n"
        "IfmapOffset: +5\r\n"
        "FilterOffset: 1_152_921_504_606_846_976\r\n"
        "OfmapOffset: 0\r\n"
        "Dataflow = is\r\n"
        "Bandwidth = 20, 30\r\n"
        "ReadRequestBuffer: 32\r\n"
        "[layout]\r\n"
        "IfmapCustomLayout: False\r\n"
        "[run_presets]\r\n"
        "InterfaceBandwidth: USER\r\n";
    CU_ASSERT_TRUE_FATAL(ti_load_cfg(text, &a, &err));
    CU_ASSERT_STRING_EQUAL(a.run_name, "run_16x16_100%");
    CU_ASSERT_EQUAL(a.rows, 16);
    CU_ASSERT_EQUAL(a.cols, 32);
    CU_ASSERT_EQUAL(a.ifmap_kb, 1024);
    CU_ASSERT_EQUAL(a.filter_kb, 64);
    CU_ASSERT_EQUAL(a.ifmap_offset, 5);
    CU_ASSERT_EQUAL(a.filter_offset, (int64_t)TPU_MAX_OFFSET);
    CU_ASSERT_EQUAL(a.ofmap_offset, 0);
    CU_ASSERT_EQUAL(a.dataflow, TPU_IS);
    CU_ASSERT_EQUAL(a.bw_mode, TPU_BW_USER);
    CU_ASSERT_EQUAL(a.bandwidth, 20);
    tpu_arch_clear(&a);
    /* CALC mode never reads Bandwidth, so a bad one is fine (SCALE-Sim) */
    char *t = ti_cfg_with("Bandwidth: 10", "Bandwidth: lots");
    CU_ASSERT_TRUE(ti_load_cfg(t, &a, &err));
    tpu_arch_clear(&a);
    g_free(t);
    CU_ASSERT_PTR_NULL(err);
}

/* ------------------------------------------------------------------------------------------ */
/* Malformed inputs: exact messages and codes */

typedef enum { TI_CFG, TI_CONV, TI_GEMM } TiKind;

typedef struct {
    TiKind kind;
    const char *from, *to;  /* TI_CFG: an edit of ti_good_cfg (from NULL: `to` is the file) */
    int code;
    const char *msg;        /* FILE stands for the path */
} TiBad;


static const TiBad ti_bad[] = {
#include "data/tpu/bad_inputs.inc"
};

static void test_malformed(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(ti_bad); i++) {
        const TiBad *b = &ti_bad[i];
        char *text = b->kind == TI_CFG && b->from != NULL ? ti_cfg_with(b->from, b->to)
                                                          : g_strdup(b->to);
        size_t len = strlen(text);
        /* "\\0" in a case stands for a NUL byte */
        char *nul = strstr(text, "\\0");
        if (nul != NULL) {
            memmove(nul + 1, nul + 2, strlen(nul + 2) + 1);
            *nul = '\0';
            len--;
        }
        char *path = ti_write(b->kind == TI_CFG ? "bad.cfg" : "bad.csv", text, len);
        GError *err = NULL;
        bool ok;
        if (b->kind == TI_CFG) {
            TpuArch a;
            ok = tpu_arch_load(path, &a, &err);
            if (ok)
                tpu_arch_clear(&a);
        } else {
            TpuTopology t;
            ok = tpu_topology_load(path, b->kind == TI_GEMM, &t, &err);
            if (ok)
                tpu_topology_clear(&t);
        }
        char *want = ti_expand(b->msg, path);
        if (ok || strcmp(err->message, want) != 0)
            fprintf(stderr, "\ncase %zu\n got: %s\nwant: %s\n", i, ok ? "(loads)" : err->message,
                    want);
        CU_ASSERT_FALSE(ok);
        if (!ok) {
            CU_ASSERT_STRING_EQUAL(err->message, want);
            CU_ASSERT_EQUAL(err->code, b->code);
            CU_ASSERT_EQUAL(err->domain,
                            b->kind == TI_CFG ? ARCHSIM_CONFIG_ERROR : ARCHSIM_TRACE_ERROR);
            g_error_free(err);
        }
        g_free(want);
        g_free(path);
        g_free(text);
    }
}

/* Loads `text` as a .cfg: msg NULL, it must load; else it must fail with exactly msg (FILE: its
 * path) and exit 78. `i` names the case in a failure. */
static void ti_expect_cfg(const char *text, const char *msg, size_t i)
{
    char *path = ti_write("case.cfg", text, strlen(text));
    TpuArch a;
    GError *err = NULL;
    bool ok = tpu_arch_load(path, &a, &err);
    char *want = msg != NULL ? ti_expand(msg, path) : NULL;
    if (ok != (msg == NULL) || (!ok && strcmp(err->message, want) != 0))
        fprintf(stderr, "\ncase %zu\n got: %s\nwant: %s\n", i, ok ? "(loads)" : err->message,
                want != NULL ? want : "(loads)");
    CU_ASSERT_EQUAL(ok, msg == NULL);
    if (ok) {
        tpu_arch_clear(&a);
    } else if (want != NULL) {
        CU_ASSERT_STRING_EQUAL(err->message, want);
        CU_ASSERT_EQUAL(err->code, ARCHSIM_EXIT_CONFIG);
    }
    g_clear_error(&err);
    g_free(want);
    g_free(path);
}

/* issue 15 item 2: every allocation sized from input is bounded first. `archsim tpu` with
 * ArrayHeight 10^12 in a .cfg asked GLib for 8 TB (exit 133): the .cfg path had no limit where
 * `system.type: tpu` had 65,536. Now one table (tpu.h) bounds both; the message names the value,
 * the limit and the memory it would take, at file:line:col; a layer whose model would exceed
 * TPU_MAX_LAYER_MEMORY is refused before anything is allocated. */
static void issue15_item2_cfg_and_layer_limits(void)
{
    static const struct {
        const char *from, *to, *msg;
    } cfg[] = {
        {"ArrayHeight: 4", "ArrayHeight: 1000000000000",
         "FILE:5:14: ArrayHeight: 1000000000000 is above archsim's limit of 65536 (it would take "
         "7.3 TiB of memory, 8 bytes per port of the array's edge; the limit takes 512.0 KiB)"},
        {"ArrayWidth: 8", "ArrayWidth: 65537",
         "FILE:6:13: ArrayWidth: 65537 is above archsim's limit of 65536 (it would take 512.0 KiB "
         "of memory, 8 bytes per port of the array's edge; the limit takes 512.0 KiB)"},
        {"IfmapSramSzkB: 1", "IfmapSramSzkB: 1073741825",
         "FILE:7:16: IfmapSramSzkB: 1073741825 is above archsim's limit of 1073741824 (it would "
         "take 4.0 TiB of memory, 4 bytes per SRAM word for the index of the words it holds; the "
         "limit takes 4.0 TiB)"},
        {"OfmapSramSzkB: 3", "OfmapSramSzkB: 18446744073709551615",
         "FILE:9:16: OfmapSramSzkB: 18446744073709551615 is above archsim's limit of 1073741824 "
         "(it would take more than 16 EiB of memory, 4 bytes per SRAM word for the lines it "
         "buffers; the limit takes 4.0 TiB)"},
        {"FilterOffset: 10000000", "FilterOffset: 9223372036854775807",
         "FILE:11:15: FilterOffset: 9223372036854775807 is above archsim's limit of "
         "1152921504606846976 (every address must stay below 2^61)"},
        {"IfmapOffset: 0", "IfmapOffset: -5",
         "FILE:10:14: IfmapOffset: '-5': must not be negative (an address below 0 would read as "
         "-1, the mark of an idle port)"},
        {"Bandwidth: 10\nMemoryBanks: 1\n\n[run_presets]\nInterfaceBandwidth: CALC",
         "Bandwidth: 2000000000\n\n[run_presets]\nInterfaceBandwidth: USER",
         "FILE:14:12: Bandwidth: 2000000000 is above archsim's limit of 1000000000 (it would "
         "take 14.9 GiB of memory, 8 bytes per word of a DRAM line; the limit takes 7.5 GiB)"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cfg); i++) {
        char *text = ti_cfg_with(cfg[i].from, cfg[i].to);
        ti_expect_cfg(text, cfg[i].msg, i);
        g_free(text);
    }
    /* the largest values allowed load */
    char *t1 = ti_cfg_with("ArrayHeight: 4", "ArrayHeight: 65536");
    char *t2 = g_strdup_printf("%s", t1);
    TpuArch a;
    GError *err = NULL;
    CU_ASSERT_TRUE(ti_load_cfg(t2, &a, &err));
    CU_ASSERT_EQUAL(a.rows, TPU_MAX_ARRAY_DIM);
    tpu_arch_clear(&a);
    g_free(t1);
    g_free(t2);
    g_clear_error(&err);
    /* a layer whose im2col tables alone would take 4.5 GiB: refused before allocation, with the
     * memory and what takes it; a model that asks GLib for it aborts the process instead */
    TpuArch arch = {.run_name = (char *)"t", .rows = 32, .cols = 32, .ifmap_kb = 64,
                    .filter_kb = 64, .ofmap_kb = 64, .dataflow = TPU_OS, .bw_mode = TPU_BW_CALC};
    TpuLayer big = {.name = (char *)"big", .ifmap_h = 300000000, .ifmap_w = 64, .filter_h = 1,
                    .filter_w = 64, .channels = 1, .filters = 64, .stride_h = 1, .stride_w = 1};
    const char *largest = NULL;
    uint64_t need = tpu_layer_memory(&arch, &big, false, false, &largest);
    CU_ASSERT(need > TPU_MAX_LAYER_MEMORY && need < 2 * TPU_MAX_LAYER_MEMORY);
    CU_ASSERT_PTR_NOT_NULL(largest);
    TpuLayerResult r;
    CU_ASSERT_FALSE(tpu_run_layer(&arch, &big, false, &r, &err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    CU_ASSERT_EQUAL(err->code, ARCHSIM_EXIT_DATAERR);
    CU_ASSERT_STRING_EQUAL(err->message,
                           "layer big: the model would take 4.5 GiB of memory for it, above "
                           "archsim's limit of 4.0 GiB per layer; most of it: im2col tables, 16 "
                           "bytes per ofmap pixel and per filter-window element");
    g_clear_error(&err);
    /* USER: the fetch-order index of an ifmap of 2^28 words that a 3 x 3 window reads nine
     * times over (2.4 x 10^9 elements) */
    arch.bw_mode = TPU_BW_USER;
    arch.bandwidth = 10;
    TpuLayer wide = {.name = (char *)"wide", .ifmap_h = 8192, .ifmap_w = 8192, .filter_h = 3,
                     .filter_w = 3, .channels = 4, .filters = 8, .stride_h = 1, .stride_w = 1};
    CU_ASSERT_FALSE(tpu_run_layer(&arch, &wide, false, &r, &err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    CU_ASSERT_EQUAL(err->code, ARCHSIM_EXIT_DATAERR);
    CU_ASSERT_PTR_NOT_NULL(strstr(err->message, "USER fetch-order index of the ifmap"));
    g_clear_error(&err);
    /* every shipped-size layer is far below: ResNet-50's largest on google.cfg's array */
    arch.bw_mode = TPU_BW_CALC;
    arch.rows = arch.cols = 256;
    TpuLayer conv1 = {.name = (char *)"Conv1", .ifmap_h = 230, .ifmap_w = 230, .filter_h = 7,
                      .filter_w = 7, .channels = 3, .filters = 64, .stride_h = 2, .stride_w = 2};
    CU_ASSERT(tpu_layer_memory(&arch, &conv1, false, true, NULL) < (256u << 20));
    /* the CALC estimator's pages grow with the operand (1 MiB each for 2^39 words): 4,096 edge
     * ports on such an operand hold 4 GiB (it took 4.25 GB, counted as 0.26), while a small
     * layer on a 65536 x 65536 array is counted by the pages its operands have (it was refused,
     * 4,096 words a page for each of the 131,074 ports of both edges) */
    arch.rows = 4096, arch.cols = 1;
    TpuLayer deep = {.name = (char *)"deep", .ifmap_h = 1u << 20, .ifmap_w = 1u << 19,
                     .filter_h = 1, .filter_w = 1u << 19, .channels = 1, .filters = 1,
                     .stride_h = 1, .stride_w = 1};
    largest = NULL;
    CU_ASSERT(tpu_layer_memory(&arch, &deep, false, false, &largest) > TPU_MAX_LAYER_MEMORY);
    CU_ASSERT(largest && strstr(largest, "CALC estimator"));
    arch.rows = arch.cols = TPU_MAX_ARRAY_DIM;
    CU_ASSERT(tpu_layer_memory(&arch, &conv1, false, false, NULL) < (64u << 20));
    /* a device is not read (it has no end): not a regular file, exit 66 */
    TpuTopology t;
    CU_ASSERT_FALSE(tpu_topology_load("/dev/zero", false, &t, &err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    CU_ASSERT(g_str_has_prefix(err->message, "/dev/zero: not a regular file"));
    CU_ASSERT_EQUAL(err->code, ARCHSIM_EXIT_NOINPUT);
    g_clear_error(&err);
    CU_ASSERT_FALSE(tpu_arch_load("/dev/zero", &a, &err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    CU_ASSERT_EQUAL(err->code, ARCHSIM_EXIT_NOINPUT);
    g_clear_error(&err);
}

/* issue 15 item 11: SCALE-Sim v3's options ([sparsity] SparsitySupport = true, custom layouts,
 * the Ramulator pass, per-operand bank bandwidths) were silently ignored, giving reports identical
 * to the dense run. Each is refused at its file:line:col (exit 78) unless set to its neutral
 * value; every shipped v3 config that sets one is refused so, the others load; a key neither
 * version knows is a warning. */
static void issue15_item11_v3_options(void)
{
    static const struct {
        const char *rel, *where, *option;
    } refused[TI_V3_REFUSED] = {
        {"v3/configs/google_ramulator.cfg", ":37:1: ", "'UseRamulatorTrace = True'"},
        {"v3/configs/rebuttal_test_is.cfg", ":17:1: ", "'IfmapCustomLayout = True'"},
        {"v3/configs/rebuttal_test_is_high_bw.cfg", ":17:1: ", "'IfmapCustomLayout = True'"},
        {"v3/configs/rebuttal_test_os.cfg", ":17:1: ", "'IfmapCustomLayout = True'"},
        {"v3/configs/rebuttal_test_os_high_bw.cfg", ":17:1: ", "'IfmapCustomLayout = True'"},
        {"v3/configs/rebuttal_test_ws.cfg", ":17:1: ", "'IfmapCustomLayout = True'"},
        {"v3/configs/rebuttal_test_ws_high_bw.cfg", ":17:1: ", "'IfmapCustomLayout = True'"},
        {"v3/configs/scale_layout.cfg", ":22:1: ", "'FilterSRAMBankBandwidth = 640'"},
        {"v3/configs/sparsity.cfg", ":20:1: ", "'SparsitySupport = true'"},
        {"v3/configs/tpuv5e_downscale.cfg", ":17:1: ", "'IfmapCustomLayout = True'"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(refused); i++) {
        char *path = ti_shipped(refused[i].rel);
        if (path == NULL)
            break;
        TpuArch a;
        GError *err = NULL;
        bool ok = tpu_arch_load(path, &a, &err);
        CU_ASSERT_FALSE(ok);
        if (ok) {
            fprintf(stderr, "\n%s loads\n", refused[i].rel);
            tpu_arch_clear(&a);
        } else {
            char *want = g_strdup_printf("%s%sSCALE-Sim v3 option %s is not supported by archsim;",
                                         path, refused[i].where, refused[i].option);
            if (!g_str_has_prefix(err->message, want))
                fprintf(stderr, "\n got: %s\nwant: %s...\n", err->message, want);
            CU_ASSERT_TRUE(g_str_has_prefix(err->message, want));
            CU_ASSERT_EQUAL(err->code, ARCHSIM_EXIT_CONFIG);
            g_free(want);
            g_error_free(err);
        }
        g_free(path);
    }
    /* edits of a v3-style config: each option on, off, misspelt */
    static const char v3[] =
        "[general]\nrun_name = t\n"
        "[architecture_presets]\nArrayHeight: 4\nArrayWidth: 8\nIfmapSramSzkB: 1\n"
        "FilterSramSzkB: 2\nOfmapSramSzkB: 3\nIfmapOffset: 0\nFilterOffset: 10000000\n"
        "OfmapOffset: 20000000\nDataflow: ws\nBandwidth: 10\nReadRequestBuffer: 32\n"
        "WriteRequestBuffer: 32\n"
        "[layout]\nIfmapCustomLayout: False\nIfmapSRAMBankBandwidth: 10\nIfmapSRAMBankNum: 10\n"
        "IfmapSRAMBankPort: 2\nFilterCustomLayout: no\nFilterSRAMBankBandwidth: 10\n"
        "FilterSRAMBankNum: 10\nFilterSRAMBankPort: 2\n"
        "[sparsity]\nSparsitySupport : false\nSparseRep : ellpack_block\n"
        "OptimizedMapping : false\nBlockSize : 8\nRandomNumberGeneratorSeed : 40\n"
        "[run_presets]\nInterfaceBandwidth: USER\nUseRamulatorTrace: False\n";
    static const struct {
        const char *from, *to, *msg; /* msg NULL: loads */
    } edit[] = {
        {NULL, NULL, NULL},
        {"SparsitySupport : false", "SparsitySupport : FALSE", NULL},
        {"SparsitySupport : false", "SparsitySupport : True",
         "FILE:26:1: SCALE-Sim v3 option 'SparsitySupport = True' is not supported by archsim; "
         "archsim models dense layers only (no N:M sparse filter, no compressed representation "
         "or its reports); set it to false (docs/tpu.md, \"SCALE-Sim v3 options\")"},
        {"SparsitySupport : false", "SparsitySupport : maybe",
         "FILE:26:19: SparsitySupport: 'maybe': expected true or false"},
        {"IfmapCustomLayout: False", "IfmapCustomLayout: on",
         "FILE:17:1: SCALE-Sim v3 option 'IfmapCustomLayout = on' is not supported by archsim; "
         "archsim does not model custom SRAM data layouts (a layout file and bank conflicts); set "
         "it to False (docs/tpu.md, \"SCALE-Sim v3 options\")"},
        {"FilterCustomLayout: no", "FilterCustomLayout: nope",
         "FILE:21:21: FilterCustomLayout: 'nope': expected a boolean (true/false, yes/no, on/off, "
         "1/0)"},
        {"UseRamulatorTrace: False", "UseRamulatorTrace: True",
         "FILE:33:1: SCALE-Sim v3 option 'UseRamulatorTrace = True' is not supported by archsim; "
         "archsim has no Ramulator pass (its USER interface is a fixed bandwidth); set it to "
         "False (docs/tpu.md, \"SCALE-Sim v3 options\")"},
        {"UseRamulatorTrace: False", "UseRamulatorTrace: true",
         "FILE:33:20: UseRamulatorTrace: 'true': expected True or False (SCALE-Sim v3 turns it on "
         "for exactly 'True')"},
        {"IfmapSRAMBankBandwidth: 10", "IfmapSRAMBankBandwidth: 20",
         "FILE:18:1: SCALE-Sim v3 option 'IfmapSRAMBankBandwidth = 20' is not supported by "
         "archsim; in USER mode v3 takes it as the ifmap operand's DRAM bandwidth, and archsim "
         "uses Bandwidth (10) for all three operands; set it to 10 (docs/tpu.md, \"SCALE-Sim v3 "
         "options\")"},
        /* in CALC mode v3 does not use the bank bandwidth */
        {"InterfaceBandwidth: USER", "InterfaceBandwidth: CALC\n[layout2]", NULL},
        {"IfmapSRAMBankNum: 10", "IfmapSRAMBankNum: 0",
         "FILE:19:19: IfmapSRAMBankNum: '0': expected an integer >= 1 (SCALE-Sim v3 reads it "
         "with int())"},
        {"ReadRequestBuffer: 32", "ReadRequestBuffer: lots",
         "FILE:14:20: ReadRequestBuffer: 'lots': expected an integer >= 1 (SCALE-Sim v3 reads it "
         "with int())"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(edit); i++) {
        char *text;
        if (edit[i].from == NULL) {
            text = g_strdup(v3);
        } else {
            const char *at = strstr(v3, edit[i].from);
            g_assert(at != NULL);
            text = g_strdup_printf("%.*s%s%s", (int)(at - v3), v3, edit[i].to,
                                   at + strlen(edit[i].from));
        }
        ti_expect_cfg(text, edit[i].msg, i);
        g_free(text);
    }
    /* unknown keys, and TopologyCsvLoc, load with a warning each */
    char *t = ti_cfg_with("MemoryBanks: 1", "MemoryBanks: 1\nColour: blue\nTopologyCsvLoc: x.csv");
    TpuArch a;
    GError *err = NULL;
    CU_ASSERT_TRUE_FATAL(ti_load_cfg(t, &a, &err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(a.warnings);
    CU_ASSERT_EQUAL(a.warnings->len, 2);
    CU_ASSERT_TRUE(g_str_has_suffix(g_ptr_array_index(a.warnings, 0),
                                    ":16:1: warning: [architecture_presets] Colour is not a key of "
                                    "SCALE-Sim v2 or v3; ignored"));
    CU_ASSERT_TRUE(g_str_has_suffix(g_ptr_array_index(a.warnings, 1),
                                    ":17:1: warning: TopologyCsvLoc is ignored: the topology is the "
                                    "file -t names"));
    tpu_arch_clear(&a);
    g_free(t);
    /* the v2 good config: no warning */
    CU_ASSERT_TRUE_FATAL(ti_load_cfg(ti_good_cfg, &a, &err));
    CU_ASSERT_PTR_NULL(a.warnings);
    tpu_arch_clear(&a);
}

static void test_missing_files(void)
{
    char *path = g_build_filename(ti_dir, "nope.cfg", NULL);
    GError *err = NULL;
    TpuArch a;
    CU_ASSERT_FALSE(tpu_arch_load(path, &a, &err));
    char *want = g_strconcat(path, ": cannot open: No such file or directory", NULL);
    CU_ASSERT_STRING_EQUAL(err->message, want);
    CU_ASSERT_EQUAL(err->domain, ARCHSIM_CONFIG_ERROR);
    CU_ASSERT_EQUAL(err->code, ARCHSIM_EXIT_NOINPUT);
    g_clear_error(&err);
    TpuTopology t;
    CU_ASSERT_FALSE(tpu_topology_load(path, false, &t, &err));
    CU_ASSERT_STRING_EQUAL(err->message, want);
    CU_ASSERT_EQUAL(err->domain, ARCHSIM_TRACE_ERROR);
    CU_ASSERT_EQUAL(err->code, ARCHSIM_EXIT_NOINPUT);
    CU_ASSERT_EQUAL(t.nlayers, 0);
    CU_ASSERT_PTR_NULL(t.layers);
    g_clear_error(&err);
    g_free(want);
    /* a directory is not a file */
    CU_ASSERT_FALSE(tpu_topology_load(ti_dir, false, &t, &err));
    CU_ASSERT_EQUAL(err->code, ARCHSIM_EXIT_NOINPUT);
    g_clear_error(&err);
    g_free(path);
}

/* ------------------------------------------------------------------------------------------ */
/* Mutation fuzz: shipped files (or the strings above without them), mutated a few bytes or lines
 * at a time. Every mutant loads or fails with "PATH:LINE:COL: " (or "PATH: [" for a missing key)
 * and the right code; none crashes (run it under make DEBUG=1 for ASan/UBSan). */

static const char *const ti_seed_cfgs[] = {
    "v2/configs/scale.cfg", "v2/configs/google.cfg", "v3/configs/google.cfg",
    "v3/configs/sparsity.cfg", "v3/configs/tpuv5e_downscale.cfg",
};
static const char *const ti_seed_csvs[] = {
    "v2/topologies/conv_nets/Resnet18.csv",    "v2/topologies/conv_nets/Resnet50.csv",
    "v2/topologies/conv_nets/UNet_maestro.csv", "v2/topologies/conv_nets/mobilnet_4k.csv",
    "v2/topologies/GEMM_mnk/gpt2.csv",          "v3/topologies/llama/llama3b.csv",
    "v2/topologies/mlperf/NCF_recommendation_short.csv",
};

static const char *const ti_tokens[] = {
    ",", "\n", "\r", "\t", " ", "#", ";", "[", "]", "=", ":", "%", "%(", ")s", "0", "-", "9",
    "DP", "\xff", "\\0", "99999999999999999999", "[general]", "ArrayHeight", "\n  ", ",,",
};

static GString *ti_mutate(GRand *r, const char *seed, size_t seed_len)
{
    GString *s = g_string_new_len(seed, (gssize)seed_len);
    int ops = g_rand_int_range(r, 1, 5);
    for (int k = 0; k < ops; k++) {
        size_t at = s->len ? (size_t)g_rand_int_range(r, 0, (gint32)s->len) : 0;
        switch (g_rand_int_range(r, 0, 6)) {
        case 0:  /* a byte, anything */
            if (s->len)
                s->str[at] = (char)g_rand_int_range(r, 0, 256);
            break;
        case 1: {  /* a token */
            const char *tok = ti_tokens[g_rand_int_range(r, 0, G_N_ELEMENTS(ti_tokens))];
            if (strcmp(tok, "\\0") == 0)
                g_string_insert_len(s, (gssize)at, "\0", 1);
            else
                g_string_insert(s, (gssize)at, tok);
            break;
        }
        case 2: {  /* delete a run */
            gssize n = g_rand_int_range(r, 1, 12);
            g_string_erase(s, (gssize)at, MIN((gssize)(s->len - at), n));
            break;
        }
        case 3: {  /* duplicate a line */
            const char *ls = s->str + at;
            while (ls > s->str && ls[-1] != '\n')
                ls--;
            const char *le = strchr(s->str + at, '\n');
            size_t n = le ? (size_t)(le - ls) + 1 : strlen(ls);
            char *dup = g_strndup(ls, n);
            g_string_insert_len(s, ls - s->str, dup, (gssize)n);
            g_free(dup);
            break;
        }
        case 4:  /* truncate */
            g_string_truncate(s, at);
            break;
        default:  /* a digit changed */
            if (s->len && g_ascii_isdigit(s->str[at]))
                s->str[at] = (char)('0' + g_rand_int_range(r, 0, 10));
            break;
        }
    }
    return s;
}

/* true when msg is "PATH:LINE:COL: ..." or "PATH: [" */
static bool ti_says_where(const char *msg, const char *path)
{
    size_t n = strlen(path);
    if (strncmp(msg, path, n) != 0)
        return false;
    const char *p = msg + n;
    if (strncmp(p, ": [", 3) == 0)
        return true;
    for (int part = 0; part < 2; part++) {
        if (*p++ != ':' || !g_ascii_isdigit(*p))
            return false;
        while (g_ascii_isdigit(*p))
            p++;
    }
    return strncmp(p, ": ", 2) == 0;
}

static void test_fuzz(void)
{
    GPtrArray *seeds = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
    GArray *is_cfg = g_array_new(FALSE, FALSE, sizeof(bool));
    for (int pass = 0; pass < 2; pass++) {
        const char *const *list = pass ? ti_seed_csvs : ti_seed_cfgs;
        size_t n = pass ? G_N_ELEMENTS(ti_seed_csvs) : G_N_ELEMENTS(ti_seed_cfgs);
        for (size_t i = 0; i < n; i++) {
            char *path = ti_shipped(list[i]);
            char *data;
            gsize len;
            if (path != NULL && g_file_get_contents(path, &data, &len, NULL)) {
                g_ptr_array_add(seeds, g_bytes_new_take(data, len));
                bool c = !pass;
                g_array_append_val(is_cfg, c);
            }
            g_free(path);
        }
    }
    /* the strings, always */
    g_ptr_array_add(seeds, g_bytes_new_static(ti_good_cfg, strlen(ti_good_cfg)));
    bool yes = true, no = false;
    g_array_append_val(is_cfg, yes);
    static const char csv[] = TI_HDR "Conv1,224,224,7,7,3,64,2,\nConv2_DP,56,56,3,3,4,64,1,2,\n"
                              "FC,1,1,1,1,512,1000,1\n";
    g_ptr_array_add(seeds, g_bytes_new_static(csv, strlen(csv)));
    g_array_append_val(is_cfg, no);

    GRand *r = g_rand_new_with_seed(20250521);
    char *path = g_build_filename(ti_dir, "fuzz.in", NULL);
    unsigned loaded = 0, failed = 0, bad_where = 0;
    /* ARCHSIM_FUZZ_ITERS=N for a soak run (as test_litmus) */
    const char *env = g_getenv("ARCHSIM_FUZZ_ITERS");
    const unsigned N = env != NULL && atoi(env) > 0 ? (unsigned)atoi(env) : 4000;
    for (unsigned i = 0; i < N; i++) {
        guint which = (guint)g_rand_int_range(r, 0, (gint32)seeds->len);
        gsize len;
        const char *seed = g_bytes_get_data(g_ptr_array_index(seeds, which), &len);
        GString *m = ti_mutate(r, seed, len);
        ti_put(path, m->str, m->len);
        GError *err = NULL;
        bool cfg = g_array_index(is_cfg, bool, which);
        bool ok;
        if (cfg) {
            TpuArch a;
            ok = tpu_arch_load(path, &a, &err);
            if (ok) {
                CU_ASSERT(a.rows >= 1 && a.cols >= 1 && a.run_name != NULL);
                tpu_arch_clear(&a);
            }
        } else {
            TpuTopology t;
            ok = tpu_topology_load(path, i % 3 == 0, &t, &err);
            if (ok) {
                CU_ASSERT(t.nlayers >= 1);
                for (int k = 0; k < t.nlayers; k++)
                    CU_ASSERT(t.layers[k].filter_h <= t.layers[k].ifmap_h &&
                              t.layers[k].stride_w >= 1 && t.layers[k].line >= 2);
                tpu_topology_clear(&t);
            }
        }
        if (ok) {
            loaded++;
        } else {
            failed++;
            int want = cfg ? ARCHSIM_EXIT_CONFIG : ARCHSIM_EXIT_DATAERR;
            if (!ti_says_where(err->message, path) || err->code != want) {
                if (bad_where++ < 5)
                    fprintf(stderr, "\nmutant %u: code %d: %s\n", i, err->code, err->message);
            }
            g_error_free(err);
        }
        g_string_free(m, TRUE);
    }
    CU_ASSERT_EQUAL(bad_where, 0);
    /* both outcomes happen, or the mutator is too gentle or too harsh to test anything */
    CU_ASSERT(loaded > N / 20 && failed > N / 20);
    g_unlink(path);
    g_free(path);
    g_rand_free(r);
    g_array_free(is_cfg, TRUE);
    g_ptr_array_free(seeds, TRUE);
}

/* ------------------------------------------------------------------------------------------ */

static int ti_suite_init(void)
{
    ti_dir = tmpdir_new("test_tpuin.XXXXXX");
    return ti_dir == NULL;
}

static int ti_suite_clean(void)
{
    tmpdir_remove(&ti_dir);
    return 0;
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("tpuin", ti_suite_init, ti_suite_clean);
    if (s == NULL || !CU_add_test(s, "shipped configs", test_shipped_configs) ||
        !CU_add_test(s, "shipped topologies", test_shipped_topologies) ||
        !CU_add_test(s, "Resnet18 layers", test_resnet18) ||
        !CU_add_test(s, "files SCALE-Sim cannot read", test_scalesim_chokes) ||
        !CU_add_test(s, "DP expansion", test_dp_expansion) ||
        !CU_add_test(s, "GEMM form", test_gemm_form) ||
        !CU_add_test(s, "issue15_item9_title_rows_warn", issue15_item9_title_rows_warn) ||
        !CU_add_test(s, "conv forms", test_conv_forms) ||
        !CU_add_test(s, "cfg forms", test_cfg_forms) ||
        !CU_add_test(s, "malformed inputs", test_malformed) ||
        !CU_add_test(s, "missing files", test_missing_files) ||
        !CU_add_test(s, "issue15_item2_cfg_and_layer_limits",
                     issue15_item2_cfg_and_layer_limits) ||
        !CU_add_test(s, "issue15_item11_v3_options", issue15_item11_v3_options) ||
        !CU_add_test(s, "mutation fuzz", test_fuzz)) {
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
