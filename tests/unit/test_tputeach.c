/* test_tputeach.c: the per-PE teaching dump of the systolic array (tputeach.c, tpu_teach_layer).
 * A 4 x 4 array runs a tiny conv layer (5x5x2 ifmap, 3x3 filters, 6 of them: M = 9, N = 6,
 * K = 18, partial folds both ways) in os, ws and is: exact cells on the wavefront; every MAC of
 * the GEMM exactly once; the operands entering and leaving the edge PEs equal, cycle by cycle,
 * the demand rows tpumodel.c feeds its memory model (and its SRAM start/stop cycles); a
 * well-formed VCD (also read by GTKWave's vcd2fst when installed); the 16 x 16 limit and the
 * other errors. */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "../../models/tpu/tpu.h"
#include "../../models/tpu/tpuint.h"
#include "../../sim/error.h"

static char *tmpdir;

static TpuArch arch(TpuDataflow df, uint64_t R, uint64_t C)
{
    return (TpuArch){ .run_name = "teach", .rows = R, .cols = C, .ifmap_kb = 64,
                      .filter_kb = 64, .ofmap_kb = 64, .ifmap_offset = 0,
                      .filter_offset = 10000000, .ofmap_offset = 20000000, .dataflow = df,
                      .bw_mode = TPU_BW_CALC, .bandwidth = 10, .file = "teach.cfg" };
}

static TpuLayer layer(void)
{
    return (TpuLayer){ .name = "conv", .ifmap_h = 5, .ifmap_w = 5, .filter_h = 3, .filter_w = 3,
                       .channels = 2, .filters = 6, .stride_h = 1, .stride_w = 1, .line = 2 };
}

/* The dump as a string; NULL (and *code) on an error. */
static char *teach(const TpuArch *a, bool compat, TpuTeachFormat fmt, uint64_t from, uint64_t to,
                   int *code)
{
    TpuLayer l = layer();
    char *path = g_build_filename(tmpdir, fmt == TPU_TEACH_VCD ? "t.vcd" : "t.txt", NULL);
    GError *e = NULL;
    char *text = NULL;
    if (tpu_teach_layer(a, &l, compat, fmt, from, to, path, true, &e)) {
        CU_ASSERT_TRUE(g_file_get_contents(path, &text, NULL, NULL));
    } else {
        if (code)
            *code = e->code;
        g_error_free(e);
    }
    g_free(path);
    return text;
}

/* ---- exact cells on the wavefront ---------------------------------------------------------- */

static void assert_lines(const char *text, const char *const *lines)
{
    for (; *lines; lines++) {
        bool found = text && strstr(text, *lines) != NULL;
        if (!found)
            fprintf(stderr, "\nmissing line: '%s'\n", *lines);
        CU_ASSERT_TRUE(found);
    }
}

static void test_cells_os(void)
{
    TpuArch a = arch(TPU_OS, 4, 4);
    char *t = teach(&a, false, TPU_TEACH_TEXT, 5, 5, NULL);
    static const char *const want[] = {
        "== cycle 5: os fold 0 (column fold 0, row fold 0), fold cycle 5, MACs 15 ==\n"
        "     n=0             n=1             n=2             n=3\n"
        "m=0  a0,5 w5,0 *     a0,4 w4,1 *     a0,3 w3,2 *     a0,2 w2,3 *\n"
        "m=1  a1,4 w4,0 *     a1,3 w3,1 *     a1,2 w2,2 *     a1,1 w1,3 *\n"
        "m=2  a2,3 w3,0 *     a2,2 w2,1 *     a2,1 w1,2 *     a2,0 w0,3 *\n"
        "m=3  a3,2 w2,0 *     a3,1 w1,1 *     a3,0 w0,2 *     .\n",
        NULL };
    assert_lines(t, want);
    CU_ASSERT_PTR_NULL(t ? strstr(t, "cycle 6") : NULL);    /* the window is one cycle */
    g_free(t);
    /* the drain (default model): T - 1 + R = 21 is column 0's first drain cycle; at 24 the
     * bottom PE of column 0 passes out o[0][0], the last of its column */
    t = teach(&a, false, TPU_TEACH_TEXT, 24, 24, NULL);
    static const char *const drain[] = {
        "m=2  .               o0,1 v          o1,2 v          o2,3 v\n"
        "m=3  o0,0 v          o1,1 v          o2,2 v          o3,3 v\n", NULL };
    assert_lines(t, drain);
    g_free(t);
    /* the last row fold uses one row (M = 9): w passes the unused rows */
    t = teach(&a, false, TPU_TEACH_TEXT, 2 * 28 + 1, 2 * 28 + 1, NULL);
    static const char *const part[] = {
        "m=8  a8,1 w1,0 *     a8,0 w0,1 *     .               .\n"
        "-    w0,0 v          .               .               .\n", NULL };
    assert_lines(t, part);
    g_free(t);
}

static void test_cells_ws_is(void)
{
    TpuArch a = arch(TPU_WS, 4, 4);
    char *t = teach(&a, false, TPU_TEACH_TEXT, 2, 5, NULL);
    static const char *const ws[] = {
        /* loading: row 3's weights entered first and are now in row 2 */
        "== cycle 2: ws fold 0 (column fold 0, row fold 0), fold cycle 2, MACs 0 ==\n"
        "     n=0             n=1             n=2             n=3\n"
        "k=0  w1,0 v          w1,1 v          w1,2 v          w1,3 v\n"
        "k=1  w2,0 v          w2,1 v          w2,2 v          w2,3 v\n"
        "k=2  w3,0 v          w3,1 v          w3,2 v          w3,3 v\n"
        "k=3  .               .               .               .\n",
        /* R + m + r + c: pixel 0 reaches PE (1,0) and (0,1) at 5, pixel 1 PE (0,0) */
        "== cycle 5: ws fold 0 (column fold 0, row fold 0), fold cycle 5, MACs 3 ==\n"
        "     n=0             n=1             n=2             n=3\n"
        "k=0  a1,0 w0,0 *     a0,0 w0,1 *     w0,2            w0,3\n"
        "k=1  a0,1 w1,0 *     w1,1            w1,2            w1,3\n"
        "k=2  w2,0            w2,1            w2,2            w2,3\n", NULL };
    assert_lines(t, ws);
    g_free(t);

    a = arch(TPU_IS, 4, 4);
    t = teach(&a, false, TPU_TEACH_TEXT, 5, 5, NULL);
    static const char *const is[] = {
        "== cycle 5: is fold 0 (column fold 0, row fold 0), fold cycle 5, MACs 3 ==\n"
        "     m=0             m=1             m=2             m=3\n"
        "k=0  a0,0 w0,1 *     a1,0 w0,0 *     a2,0            a3,0\n"
        "k=1  a0,1 w1,0 *     a1,1            a2,1            a3,1\n", NULL };
    assert_lines(t, is);
    g_free(t);

    /* 8 x 8 is compact (the streamed index only) and every line fits 80 columns */
    a = arch(TPU_WS, 8, 8);
    t = teach(&a, false, TPU_TEACH_TEXT, 12, 12, NULL);
    static const char *const ws8[] = {
        "     n=0  n=1  n=2  n=3  n=4  n=5  -    -\n"
        "k=0  m4*  m3*  m2*  m1*  m0*  -    .    .\n", NULL };
    assert_lines(t, ws8);
    char **lines = g_strsplit(t ? t : "", "\n", -1);
    for (char **l = lines; *l; l++)
        CU_ASSERT_TRUE(strlen(*l) <= 80);
    g_strfreev(lines);
    g_free(t);
    a = arch(TPU_OS, 16, 16);
    t = teach(&a, false, TPU_TEACH_TEXT, 20, 21, NULL);
    CU_ASSERT_PTR_NOT_NULL(t);
    lines = g_strsplit(t ? t : "", "\n", -1);
    for (char **l = lines; *l; l++)
        CU_ASSERT_TRUE(strlen(*l) <= 80);
    g_strfreev(lines);
    g_free(t);
}

/* ---- every MAC once; the edges equal the model's demand rows --------------------------------- */

static const TpuDataflow dfs[] = { TPU_OS, TPU_WS, TPU_IS };

static void test_macs(void)
{
    for (int d = 0; d < 3; d++)
        for (int compat = 0; compat < 2; compat++) {
            TpuArch a = arch(dfs[d], 4, 4);
            TpuLayer l = layer();
            TpuEdge *e = tpu_edge_new(&a, &l, compat, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(e);
            const TpuEdgeShape *sh = tpu_edge_shape(e);
            uint64_t total = sh->row_folds * sh->col_folds * sh->P, macs = 0, bad = 0;
            uint8_t *seen = g_new0(uint8_t, sh->M * sh->N * sh->K);
            for (uint64_t t = 0; t < total; t++)
                for (uint64_t r = 0; r < sh->R; r++)
                    for (uint64_t c = 0; c < sh->C; c++) {
                        TpuTeachPe p;
                        tpu_teach_pe(sh, compat, t, r, c, &p);
                        if (!p.mac)
                            continue;
                        macs++;
                        bad += p.am != p.om || p.wn != p.on || p.ak != p.wk || p.am < 0 ||
                               p.wn < 0 || p.ak < 0 || (uint64_t)p.am >= sh->M ||
                               (uint64_t)p.wn >= sh->N || (uint64_t)p.ak >= sh->K;
                        if (!bad)
                            bad += seen[((uint64_t)p.am * sh->N + (uint64_t)p.wn) * sh->K +
                                        (uint64_t)p.ak]++ != 0;
                    }
            CU_ASSERT_EQUAL(macs, 9 * 6 * 18);
            CU_ASSERT_EQUAL(bad, 0);
            g_free(seen);
            tpu_edge_free(e);
            /* the text dump's per-cycle counts add up to the same */
            char *txt = teach(&a, compat, TPU_TEACH_TEXT, 0, UINT64_MAX, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(txt);
            uint64_t sum = 0, blocks = 0;
            for (const char *s = strstr(txt, ", MACs "); s; s = strstr(s + 1, ", MACs ")) {
                sum += g_ascii_strtoull(s + 7, NULL, 10);
                blocks++;
            }
            CU_ASSERT_EQUAL(sum, 9 * 6 * 18);
            CU_ASSERT_EQUAL(blocks, total);
            g_free(txt);
        }
}

/* What the edge PEs take in (ifmap, filter) or give out (ofmap) at a cycle, as addresses in
 * port order: the teaching view of the model's demand row. */
static uint64_t edge_row(const TpuEdge *e, bool compat, TpuEdgeOp op, uint64_t cycle,
                         int64_t *out)
{
    const TpuEdgeShape *sh = tpu_edge_shape(e);
    uint64_t n = 0;
    TpuTeachPe p;
    bool left = (op == TPU_EDGE_IFMAP && sh->df != TPU_IS) ||
                (op == TPU_EDGE_FILTER && sh->df == TPU_IS);
    uint64_t ports = op == TPU_EDGE_OFMAP ? sh->C : left ? sh->R : sh->C;
    for (uint64_t i = 0; i < ports; i++) {
        if (op == TPU_EDGE_OFMAP) {
            tpu_teach_pe(sh, compat, cycle, sh->R - 1, i, &p);      /* the bottom row */
            if (p.om >= 0 && (sh->df != TPU_OS || p.moving))
                out[n++] = tpu_edge_addr(e, op, (uint64_t)p.om, (uint64_t)p.on);
            continue;
        }
        tpu_teach_pe(sh, compat, cycle, left ? i : 0, left ? 0 : i, &p);
        bool stationary_load = !left && sh->df != TPU_OS;           /* taken in from the top */
        if (stationary_load && !p.moving)
            continue;
        if (op == TPU_EDGE_IFMAP && p.am >= 0)
            out[n++] = tpu_edge_addr(e, op, (uint64_t)p.am, (uint64_t)p.ak);
        if (op == TPU_EDGE_FILTER && p.wk >= 0)
            out[n++] = tpu_edge_addr(e, op, (uint64_t)p.wk, (uint64_t)p.wn);
    }
    return n;
}

static void test_edges_match_model(void)
{
    for (int d = 0; d < 3; d++)
        for (int compat = 0; compat < 2; compat++) {
            TpuArch a = arch(dfs[d], 4, 4);
            TpuLayer l = layer();
            TpuEdge *e = tpu_edge_new(&a, &l, compat, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(e);
            const TpuEdgeShape *sh = tpu_edge_shape(e);
            int64_t model[16], mine[16];
            int64_t first[3] = { -1, -1, -1 }, last[3] = { -1, -1, -1 };
            uint64_t mismatches = 0, rows = 0;
            for (uint64_t fc = 0; fc < sh->col_folds; fc++)
                for (uint64_t fr = 0; fr < sh->row_folds; fr++) {
                    tpu_edge_fold(e, fc, fr);
                    uint64_t base = (fc * sh->row_folds + fr) * sh->P;
                    for (uint64_t i = 0; i < sh->P; i++)
                        for (int op = 0; op < 3; op++) {
                            /* SCALE-Sim's os writes outputs while they are still computed */
                            if (compat && sh->df == TPU_OS && op == TPU_EDGE_OFMAP)
                                continue;
                            uint64_t nm = tpu_edge_row(e, (TpuEdgeOp)op, i, model);
                            uint64_t nt = edge_row(e, compat, (TpuEdgeOp)op, base + i, mine);
                            rows += nm > 0;
                            bool same = nm == nt && memcmp(model, mine, nm * sizeof *mine) == 0;
                            if (!same && mismatches++ < 3)
                                fprintf(stderr, "\n%.2s%s fold %" G_GUINT64_FORMAT ",%"
                                        G_GUINT64_FORMAT " row %" G_GUINT64_FORMAT " op %d: "
                                        "model %" G_GUINT64_FORMAT " addresses, teaching %"
                                        G_GUINT64_FORMAT "\n", "osws is" + 2 * d,
                                        compat ? " compat" : "", fc, fr, i, op, nm, nt);
                            if (nt) {
                                if (first[op] < 0)
                                    first[op] = (int64_t)(base + i);
                                last[op] = (int64_t)(base + i);
                            }
                        }
                }
            CU_ASSERT_EQUAL(mismatches, 0);
            CU_ASSERT_TRUE(rows > 0);
            if (!compat) {
                /* the model's own SRAM start/stop cycles (reads answer a cycle later) */
                TpuLayerResult res;
                CU_ASSERT_TRUE_FATAL(tpu_run_layer(&a, &l, false, &res, NULL));
                CU_ASSERT_EQUAL(res.stall_cycles, 0);
                CU_ASSERT_EQUAL(res.total_cycles, sh->row_folds * sh->col_folds * sh->P);
                CU_ASSERT_EQUAL(res.sram_ifmap_start, first[0] + 1);
                CU_ASSERT_EQUAL(res.sram_ifmap_stop, last[0] + 1);
                CU_ASSERT_EQUAL(res.sram_filter_start, first[1] + 1);
                CU_ASSERT_EQUAL(res.sram_filter_stop, last[1] + 1);
                CU_ASSERT_EQUAL(res.sram_ofmap_start, first[2]);
                CU_ASSERT_EQUAL(res.sram_ofmap_stop, last[2]);
            }
            tpu_edge_free(e);
        }
}

/* ---- VCD ---------------------------------------------------------------------------------- */

/* Checks a VCD the way a reader needs it: header commands closed by $end, scopes balanced,
 * $enddefinitions, identifiers declared once, changes only to declared ones, strictly
 * increasing times; returns the sum over cycles of tpu.macs (the wire with id "#"), or -1. */
static int64_t vcd_check(const char *text, uint64_t *npe)
{
    GHashTable *ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    char **lines = g_strsplit(text, "\n", -1);
    int depth = 0;
    bool defs = true, ok = true, timescale = false;
    int64_t now = -1, macs = 0, sum = 0;
    *npe = 0;
    char **l = lines;
    for (; *l && ok; l++) {
        char *s = *l;
        if (!defs) {
            if (*s == '#') {
                int64_t t = (int64_t)g_ascii_strtoull(s + 1, NULL, 10);
                ok = t > now;
                if (now >= 0)
                    sum += macs * (t - now);
                now = t;
            } else if (*s == '0' || *s == '1') {
                ok = now >= 0 && g_hash_table_contains(ids, s + 1);
            } else if (*s == 'b') {
                char *sp = strchr(s, ' ');
                ok = now >= 0 && sp && g_hash_table_contains(ids, sp + 1) &&
                     strspn(s + 1, "01x") == (size_t)(sp - s - 1);
                if (ok && strcmp(sp + 1, "#") == 0)
                    macs = s[1] == 'x' ? 0 : (int64_t)g_ascii_strtoull(s + 1, NULL, 2);
            } else {
                ok = *s == '\0' || strcmp(s, "$dumpvars") == 0 || strcmp(s, "$end") == 0;
            }
            continue;
        }
        if (g_str_has_prefix(s, "$comment")) {
            while (*l && !strstr(*l, "$end"))
                l++;
            ok = *l != NULL;
            if (!ok)
                break;
        } else if (g_str_has_prefix(s, "$timescale")) {
            timescale = strstr(s, "1ns") && g_str_has_suffix(s, "$end");
        } else if (g_str_has_prefix(s, "$scope module ")) {
            depth++;
            *npe += g_str_has_prefix(s, "$scope module pe_");
            ok = g_str_has_suffix(s, " $end");
        } else if (strcmp(s, "$upscope $end") == 0) {
            ok = depth-- > 0;
        } else if (g_str_has_prefix(s, "$var ")) {
            char **f = g_strsplit(s, " ", -1);
            ok = g_strv_length(f) == 6 && strcmp(f[5], "$end") == 0 && depth > 0 &&
                 !g_hash_table_contains(ids, f[3]);
            if (ok)
                g_hash_table_add(ids, g_strdup(f[3]));
            g_strfreev(f);
        } else if (strcmp(s, "$enddefinitions $end") == 0) {
            defs = false;
            ok = depth == 0;
        } else {
            ok = g_str_has_prefix(s, "$version") && g_str_has_suffix(s, "$end");
        }
    }
    if (!ok)
        fprintf(stderr, "\nbad VCD line: '%s'\n", l[-1]);
    ok = ok && !defs && timescale && now > 0;
    g_strfreev(lines);
    g_hash_table_destroy(ids);
    return ok ? sum : -1;
}

static void test_vcd(void)
{
    for (int d = 0; d < 3; d++) {
        TpuArch a = arch(dfs[d], 4, 4);
        char *v = teach(&a, false, TPU_TEACH_VCD, 0, UINT64_MAX, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(v);
        uint64_t npe;
        CU_ASSERT_EQUAL(vcd_check(v, &npe), 9 * 6 * 18);
        CU_ASSERT_EQUAL(npe, 16);
        CU_ASSERT_PTR_NOT_NULL(strstr(v, "$comment"));
        g_free(v);
    }
    /* a window: starts with its own $dumpvars at FROM, ends at TO + 1 */
    TpuArch a = arch(TPU_OS, 4, 4);
    char *v = teach(&a, false, TPU_TEACH_VCD, 5, 9, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    uint64_t npe;
    CU_ASSERT_TRUE(vcd_check(v, &npe) > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(v, "$enddefinitions $end\n#5\n$dumpvars\n"));
    CU_ASSERT_TRUE(g_str_has_suffix(v, "#10\n"));
    g_free(v);
    /* GTKWave's own reader */
    char *vcd2fst = g_find_program_in_path("vcd2fst");
    if (vcd2fst) {
        a = arch(TPU_WS, 4, 4);
        g_free(teach(&a, false, TPU_TEACH_VCD, 0, UINT64_MAX, NULL));
        char *in = g_build_filename(tmpdir, "t.vcd", NULL), *out =
            g_build_filename(tmpdir, "t.fst", NULL);
        const char *argv[] = { vcd2fst, in, out, NULL };
        int status = -1;
        CU_ASSERT_TRUE(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL |
                                    G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL,
                                    &status, NULL) && g_spawn_check_wait_status(status, NULL));
        CU_ASSERT_TRUE(g_file_test(out, G_FILE_TEST_EXISTS));
        g_free(in);
        g_free(out);
        g_free(vcd2fst);
    }
}

/* ---- errors -------------------------------------------------------------------------------- */

static void test_errors(void)
{
    int code = 0;
    TpuArch a = arch(TPU_OS, 17, 4);
    TpuLayer l = layer();
    GError *e = NULL;
    char *path = g_build_filename(tmpdir, "big.txt", NULL);
    CU_ASSERT_FALSE(tpu_teach_layer(&a, &l, false, TPU_TEACH_TEXT, 0, UINT64_MAX, path, true, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->domain, ARCHSIM_CONFIG_ERROR);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "teach.cfg: the array is 17 x 4 PEs"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "up to 16 x 16"));
    CU_ASSERT_FALSE(g_file_test(path, G_FILE_TEST_EXISTS));
    g_clear_error(&e);
    g_free(path);
    a = arch(TPU_IS, 4, 17);
    CU_ASSERT_PTR_NULL(teach(&a, false, TPU_TEACH_VCD, 0, UINT64_MAX, &code));
    CU_ASSERT_EQUAL(code, ARCHSIM_EXIT_CONFIG);
    a = arch(TPU_IS, 16, 16);                    /* the largest is fine */
    char *t = teach(&a, false, TPU_TEACH_VCD, 0, UINT64_MAX, NULL);
    CU_ASSERT_PTR_NOT_NULL(t);
    g_free(t);

    /* a window past the layer's last cycle (os 4 x 4: 6 folds of 28 cycles) */
    a = arch(TPU_OS, 4, 4);
    code = 0;
    CU_ASSERT_PTR_NULL(teach(&a, false, TPU_TEACH_TEXT, 168, 200, &code));
    CU_ASSERT_EQUAL(code, ARCHSIM_EXIT_USAGE);
    t = teach(&a, false, TPU_TEACH_TEXT, 167, 1000, NULL);    /* clipped to the last cycle */
    CU_ASSERT_TRUE(t && strstr(t, "shown 167 to 167"));
    g_free(t);

    /* a file that cannot be written: exit 74, nothing left behind */
    path = g_build_filename(tmpdir, "no", "such", "dir.txt", NULL);
    CU_ASSERT_FALSE(tpu_teach_layer(&a, &l, false, TPU_TEACH_TEXT, 0, UINT64_MAX, path, true, &e));
    CU_ASSERT_TRUE(e && e->code == ARCHSIM_EXIT_IOERR && g_str_has_prefix(e->message, path));
    g_clear_error(&e);
    g_free(path);
}

int main(void)
{
    tmpdir = g_dir_make_tmp("tputeach-XXXXXX", NULL);
    if (!tmpdir || CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("tputeach", NULL, NULL);
    CU_add_test(s, "os cells on the wavefront, the drain, a part-used fold", test_cells_os);
    CU_add_test(s, "ws and is cells: loading, the skewed stream; 8x8 and 16x16 fit 80 columns",
                test_cells_ws_is);
    CU_add_test(s, "every MAC of the GEMM exactly once; the text's counts add up", test_macs);
    CU_add_test(s, "the edge PEs take in and give out the model's demand rows",
                test_edges_match_model);
    CU_add_test(s, "the VCD is well formed (and GTKWave reads it)", test_vcd);
    CU_add_test(s, "errors: over 16 x 16, an empty window, an unwritable file", test_errors);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures();
    CU_cleanup_registry();
    char *rm[] = { "rm", "-rf", tmpdir, NULL };
    g_spawn_sync(NULL, rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
    g_free(tmpdir);
    return f ? 1 : 0;
}
