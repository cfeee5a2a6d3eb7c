/* fuzz_tpu.c: fuzz harness for `archsim tpu`: SCALE-Sim's .cfg and topology readers
 * (models/tpu/scalein.c) driven together with the systolic-array model and its reports
 * (tpumodel.c, tpureport.c).
 *
 * Input: a .cfg, a line "--- conv" or "--- gemm", then a topology CSV (tests/fuzz/tpu/README.md).
 * Each file named in argv[1..] is split there, both parts are loaded, and every layer small
 * enough to run in well under a second is simulated in the default mode (with a tiny sampling
 * budget, so that the sampling path runs too) and in SCALE-Sim compat mode; abort() when an
 * oracle fails (AFL++ records a crash). Oracles: a rejected input has the documented domain and
 * code (.cfg 78, topology 65) and a message that starts with its file and, for a problem in the
 * text, line:col; a refused layer has the model's domain and 65; an accepted layer's numbers
 * are consistent (cycles = folds x fold length + stalls, MACs = M N K, utilizations in range),
 * and the reports written for the layers hold one row per layer with the same cycle totals.
 */
#include <glib/gstdio.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/tpu/tpu.h"
#include "../../models/tpu/tpuint.h"
#include "../../sim/error.h"

/* edge words a layer may move before it is skipped, and layers per input: ~0.1 s at most */
#define FUZZ_MAX_WORK 2000000ull
#define FUZZ_MAX_LAYERS 16

static char *fuzz_dir;

static void fuzz_check(bool ok, const char *input, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_tpu: %s: invariant broken: %s\n", input, what);
        abort();
    }
}

static char *fuzz_write(const char *name, const char *data, size_t len)
{
    char *path = g_build_filename(fuzz_dir, name, NULL);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "fuzz_tpu: cannot write %s\n", path);
        exit(2);
    }
    return path;
}

/* "PATH:LINE:COL: " or "PATH: " (a key missing, a limit on the file) at the start of msg. */
static bool fuzz_has_position(const char *msg, const char *path)
{
    size_t n = strlen(path);
    if (strncmp(msg, path, n) != 0 || msg[n] != ':')
        return false;
    const char *p = msg + n + 1;
    if (*p == ' ')
        return true;
    int digits = 0;
    for (int part = 0; part < 2; part++) {
        for (digits = 0; g_ascii_isdigit(*p); p++)
            digits++;
        if (digits == 0 || *p != ':')
            return false;
        p++;
    }
    return *p == ' ';
}

/* A reader's refusal: an error of the documented domain and code whose message starts with the
 * file and, for a problem in the text, line:col. Frees err. */
static void fuzz_check_error(const char *input, GError *err, GQuark domain, int code,
                             const char *path)
{
    fuzz_check(err != NULL, input, "refused without an error");
    fuzz_check(err->domain == domain && err->code == code, input,
               "error of the wrong domain or code (.cfg: 78, topology: 65)");
    fuzz_check(fuzz_has_position(err->message, path), input,
               "error does not start with FILE:LINE:COL: or FILE: ");
    g_error_free(err);
}

/* The sum of column `col` of a report, and its data rows. */
static double fuzz_report_sum(const char *dir, const char *name, int col, int *rows)
{
    char *path = g_build_filename(dir, name, NULL);
    char *text = NULL;
    bool ok = g_file_get_contents(path, &text, NULL, NULL);
    g_free(path);
    if (!ok)
        return -1;
    double sum = 0;
    *rows = 0;
    char **lines = g_strsplit(text, "\n", -1);
    for (int i = 1; lines[i] != NULL; i++) {
        if (lines[i][0] == '\0')
            continue;
        char **f = g_strsplit(lines[i], ",", -1);
        if (g_strv_length(f) > (guint)col)
            sum += g_ascii_strtod(f[col], NULL);
        g_strfreev(f);
        (*rows)++;
    }
    g_strfreev(lines);
    g_free(text);
    return sum;
}

static void fuzz_layer_checks(const char *input, const TpuArch *a, const TpuLayerResult *r,
                              const TpuEdgeShape *sh, bool compat)
{
    uint64_t folds = sh->row_folds * sh->col_folds;
    uint64_t simulated = folds * sh->P + r->stall_cycles;
    fuzz_check(r->total_cycles == (compat ? simulated - 1 : simulated), input,
               "Total Cycles is not folds x fold length + stalls (- 1 in compat mode)");
    fuzz_check(r->M == sh->M && r->N == sh->N && r->K == sh->K, input, "GEMM shape differs");
    fuzz_check(r->macs == r->M * r->N * r->K, input, "MACs differ from M x N x K");
    fuzz_check(r->row_folds == sh->row_folds && r->col_folds == sh->col_folds, input,
               "folds differ from the schedule");
    fuzz_check(r->overall_util >= 0 && r->overall_util <= 100.0 + 1e-9, input,
               "Overall Util outside [0, 100]");
    fuzz_check(r->mapping_eff > 0 && r->mapping_eff <= 100.0 + 1e-9, input,
               "Mapping Efficiency outside (0, 100]");
    fuzz_check(r->compute_util >= 0 && r->compute_util <= 100.0 + 1e-9, input,
               "Compute Util outside [0, 100]");
    fuzz_check(r->sram_ofmap_writes >= r->M * r->N, input, "fewer OFMAP writes than outputs");
    fuzz_check(a->bw_mode == TPU_BW_USER || compat || r->stall_cycles == 0 ||
                   r->dram_ofmap_writes > 0,
               input, "stalls without OFMAP traffic in CALC mode");
    fuzz_check(r->sampled_folds <= folds, input, "more folds sampled than the layer has");
}

static void fuzz_one(const char *input)
{
    char *data = NULL;
    gsize len = 0;
    if (!g_file_get_contents(input, &data, &len, NULL)) {
        fprintf(stderr, "fuzz_tpu: cannot read %s\n", input);
        exit(2);
    }
    /* split at the first line "--- conv" or "--- gemm" (no marker: all .cfg, empty topology) */
    const char *topo = NULL;
    bool gemm = false;
    size_t cfg_len = len;
    for (const char *p = data; p < data + len;) {
        const char *e = memchr(p, '\n', (size_t)(data + len - p));
        size_t n = e ? (size_t)(e - p) : (size_t)(data + len - p);
        if (n >= 8 && (memcmp(p, "--- conv", 8) == 0 || memcmp(p, "--- gemm", 8) == 0)) {
            gemm = p[4] == 'g';
            cfg_len = (size_t)(p - data);
            topo = e ? e + 1 : data + len;
            break;
        }
        p = e ? e + 1 : data + len;
    }
    char *cfg_path = fuzz_write("f.cfg", data, cfg_len);
    char *topo_path = fuzz_write("f.csv", topo ? topo : "", topo ? (size_t)(data + len - topo) : 0);
    g_free(data);

    TpuArch a;
    TpuTopology t;
    GError *err = NULL;
    if (!tpu_arch_load(cfg_path, &a, &err)) {
        fuzz_check_error(input, err, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, cfg_path);
        goto out;
    }
    fuzz_check(a.rows >= 1 && a.rows <= TPU_MAX_ARRAY_DIM && a.cols >= 1 &&
                   a.cols <= TPU_MAX_ARRAY_DIM,
               input, "array outside the limits");
    fuzz_check(a.ifmap_kb >= 1 && a.ifmap_kb <= TPU_MAX_SRAM_KB && a.ofmap_kb <= TPU_MAX_SRAM_KB &&
                   a.filter_kb <= TPU_MAX_SRAM_KB,
               input, "SRAM outside the limits");
    for (guint i = 0; a.warnings != NULL && i < a.warnings->len; i++)
        fuzz_check(fuzz_has_position(g_ptr_array_index(a.warnings, i), cfg_path), input,
                   ".cfg warning without a position");
    if (!tpu_topology_load(topo_path, gemm, &t, &err)) {
        fuzz_check_error(input, err, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, topo_path);
        tpu_arch_clear(&a);
        goto out;
    }
    fuzz_check(t.nlayers >= 1 && t.nlayers <= (int)TPU_MAX_LAYERS, input, "layer count");
    for (guint i = 0; t.warnings != NULL && i < t.warnings->len; i++)
        fuzz_check(fuzz_has_position(g_ptr_array_index(t.warnings, i), topo_path), input,
                   "topology warning without a position");

    for (int compat = 0; compat < 2; compat++) {
        char *rdir = g_build_filename(fuzz_dir, compat ? "rc" : "rd", NULL);
        TpuReports *rep = tpu_reports_open(rdir, &err);
        fuzz_check(rep != NULL, input, "reports cannot be opened");
        double cycles = 0;
        int ran = 0;
        tpu_sample_budget = compat ? 0 : 512;
        for (int i = 0; i < t.nlayers && i < FUZZ_MAX_LAYERS; i++) {
            const TpuLayer *l = &t.layers[i];
            TpuEdge *e = tpu_edge_new(&a, l, compat, &err);
            if (e == NULL) {
                fuzz_check(err != NULL && err->domain == ARCHSIM_TRACE_ERROR &&
                               err->code == ARCHSIM_EXIT_DATAERR,
                           input, "refused layer: not ARCHSIM_TRACE_ERROR / 65");
                g_clear_error(&err);
                continue;
            }
            TpuEdgeShape sh = *tpu_edge_shape(e);
            tpu_edge_free(e);
            /* the work: each fold's P rows walk R + C ports; USER also indexes the operands */
            uint64_t folds = sh.row_folds * sh.col_folds, work;
            if (__builtin_mul_overflow(folds, sh.P, &work) ||
                __builtin_mul_overflow(work, sh.R + sh.C, &work) || work > FUZZ_MAX_WORK ||
                sh.M * sh.K > FUZZ_MAX_WORK || sh.K * sh.N > FUZZ_MAX_WORK ||
                sh.M * sh.N > FUZZ_MAX_WORK ||
                l->ifmap_h * l->ifmap_w * l->channels > FUZZ_MAX_WORK)
                continue;
            TpuLayerResult r;
            if (!tpu_run_layer(&a, l, compat, &r, &err)) {
                fuzz_check(err != NULL && err->domain == ARCHSIM_TRACE_ERROR &&
                               err->code == ARCHSIM_EXIT_DATAERR,
                           input, "refused run: not ARCHSIM_TRACE_ERROR / 65");
                g_clear_error(&err);
                continue;
            }
            fuzz_layer_checks(input, &a, &r, &sh, compat);
            tpu_reports_add(rep, ran, l->name, &a, &r);
            cycles += (double)r.total_cycles;
            ran++;
        }
        if (g_getenv("FUZZ_TPU_VERBOSE") != NULL)
            fprintf(stderr, "%s: %s mode: %d of %d layers run, %.0f cycles\n", input,
                    compat ? "compat" : "default", ran, t.nlayers, cycles);
        fuzz_check(tpu_reports_close(rep, &err), input, "reports cannot be closed");
        int rows = 0;
        double sum = fuzz_report_sum(rdir, "COMPUTE_REPORT.csv", 1, &rows);
        fuzz_check(rows == ran, input, "COMPUTE_REPORT.csv rows differ from the layers run");
        fuzz_check(sum >= 0 && (ran == 0 || sum == cycles || (sum > 0 && cycles / sum < 1.0000001 &&
                                                              sum / cycles < 1.0000001)),
                   input, "COMPUTE_REPORT.csv cycles differ from the layers' Total Cycles");
        g_free(rdir);
    }
    tpu_topology_clear(&t);
    tpu_arch_clear(&a);
out:
    g_free(cfg_path);
    g_free(topo_path);
}

static void fuzz_rm_tree(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    if (d == NULL)
        return;
    const char *name;
    while ((name = g_dir_read_name(d)) != NULL) {
        char *p = g_build_filename(dir, name, NULL);
        if (g_file_test(p, G_FILE_TEST_IS_DIR))
            fuzz_rm_tree(p);
        else
            g_unlink(p);
        g_free(p);
    }
    g_dir_close(d);
    g_rmdir(dir);
}

int main(int argc, char **argv)
{
    fuzz_dir = g_dir_make_tmp("fuzz_tpu-XXXXXX", NULL);
    if (fuzz_dir == NULL) {
        fprintf(stderr, "fuzz_tpu: cannot make a scratch directory\n");
        return 2;
    }
    for (int i = 1; i < argc; i++)
        fuzz_one(argv[i]);
    fuzz_rm_tree(fuzz_dir);
    g_free(fuzz_dir);
    return 0;
}
