/* tpucli.c: `archsim tpu`: runs a SCALE-Sim topology under a SCALE-Sim config on the systolic
 * array model and writes SCALE-Sim's three reports (tpu.h). The layers run on a tpu-array whose
 * mem port is linked to a tpu-memory (tpu_port_run, tpusys.c), as `archsim run` does. One layer
 * is simulated at a time and its result written at once: memory does not grow with the number
 * of layers. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <glib/gstdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "../../sim/cli/cli.h"
#include "../../sim/error.h"
#include "../../sim/input.h"
#include "tpu.h"

static const char tpu_cli_usage[] =
    "archsim tpu -c CFG -t TOPOLOGY.csv [-i conv|gemm] [--scalesim-compat] -o DIR [--force] [-q]\n"
    "                   [--exact | --sample-budget WORDS]\n"
    "                   [--sram-traces] [--dram-traces] [--trace-window FROM:TO]\n"
    "                   [--teach FILE [--teach-layer N] [--teach-window FROM:TO]]";

static const char tpu_cli_description[] =
    "Reads SCALE-Sim v2's inputs: the architecture .cfg (array size, SRAM sizes in KiB, offsets,\n"
    "dataflow os|ws|is, InterfaceBandwidth CALC or USER with Bandwidth) and a topology CSV (conv\n"
    "rows by default; -i gemm for `name, M, N, K` rows). Writes COMPUTE_REPORT.csv,\n"
    "BANDWIDTH_REPORT.csv and DETAILED_ACCESS_REPORT.csv into DIR with SCALE-Sim's columns, one\n"
    "row per layer, and archsim's ROOFLINE.csv. SCALE-Sim v3 options that would change the\n"
    "result (SparsitySupport = true, custom layouts, UseRamulatorTrace = True, an N:M sparsity\n"
    "column) are refused at their line; at their neutral values they load. Values and layers are\n"
    "bounded by archsim's limits (docs/tpu.md, \"Limits\"), checked before DIR is made.\n"
    "\n"
    "--scalesim-compat gives SCALE-Sim v2's numbers, quirks included (reported cycles one fewer\n"
    "than simulated, os folds R cycles short, os ofmap writes over-counted, ws/is compute\n"
    "utilization understated, every fold's partial sums written to DRAM, part-filled DRAM lines\n"
    "counted as full). Without it the model fixes each of these (docs/experiments/systolic.md).\n"
    "\n"
    "A huge layer (its ifmap and filter feed more than --sample-budget words, 2^28 by default,\n"
    "into the DRAM read estimator) is sampled in the default mode with CALC bandwidth: cycles,\n"
    "stalls, utilizations, SRAM traffic and DRAM writes stay exact, the ifmap and filter DRAM\n"
    "reads of the folds skipped are extrapolated from the sample (ROOFLINE.csv's last column\n"
    "gives the folds simulated; docs/tpu.md, \"Huge layers\").\n"
    "--exact simulates every fold; compat mode, USER bandwidth and traces always do.\n"
    "\n"
    "--sram-traces and --dram-traces write SCALE-Sim's per-cycle traces into DIR/layerN/:\n"
    "{IFMAP,FILTER,OFMAP}_SRAM_TRACE.csv (the demand rows FROM..TO of --trace-window) and\n"
    "{IFMAP,FILTER,OFMAP}_DRAM_TRACE.csv (the DRAM reads and writes whose cycle is in FROM..TO;\n"
    "FROM 0 also takes the first fill, at negative cycles). With --scalesim-compat and a window\n"
    "over the whole run both equal SCALE-Sim v2's files byte for byte.\n"
    "\n"
    "SIGINT, SIGTERM and SIGHUP stop the run at the next fold and remove what it wrote: no\n"
    "report, and no DIR when the run made it (exit 130); with --force into an existing DIR the\n"
    "traces of the layers already finished stay.\n"
    "\n"
    "Examples:\n"
    "  archsim tpu -c tests/tpu/shipped/v2/configs/scale.cfg \\\n"
    "              -t tests/tpu/shipped/v2/topologies/conv_nets/alexnet.csv -o runs/alexnet\n"
    "  archsim tpu -c tests/tpu/shipped/v2/configs/google.cfg \\\n"
    "              -t tests/tpu/shipped/v2/topologies/GEMM_mnk/NCF.csv -i gemm --scalesim-compat \\\n"
    "              -o runs/ncf\n"
    "  archsim tpu -c tests/tpu/scalesim/configs/trace4x4_os.cfg \\\n"
    "              -t tests/tpu/scalesim/topologies/trace_tiny.csv -o runs/t --teach - \\\n"
    "              --teach-window 0:12\n"
    "\n"
    "Exit status:\n"
    "  0   every layer ran and the reports are written\n"
    "  64  bad command line                    65  a topology line cannot be read, or a layer\n"
    "  66  an input file is missing or not a       is too large for the limits (file:line:col)\n"
    "      regular file                        73  DIR exists (use --force) or cannot be made\n"
    "  74  a report or trace could not be      78  bad .cfg, a value above the limits, a v3\n"
    "      written (none is left half-written)     option refused (file:line:col), or an array\n"
    "                                               larger than 16 x 16 for --teach\n"
    "  130 interrupted by SIGINT, SIGTERM or SIGHUP (no report written)\n"
    "\n"
    "Documentation: docs/tpu.md.\n";

static const CliHelp tpu_cli_help = {
    .cmd = "tpu",
    .usage = tpu_cli_usage,
    .summary = "Run a DNN topology on the systolic-array model; SCALE-Sim's reports.",
    .details = tpu_cli_description,
};

static int tpu_usage(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static int tpu_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    cli_usage_error("tpu", "%s", msg);
    g_free(msg);
    return ARCHSIM_EXIT_USAGE;
}

static void tpu_on_signal(int sig)
{
    tpu_stop_requested = sig;
}

/* After a signal: what this run wrote besides the reports (aborted by the caller). When the run
 * made DIR: the traces of layers 0 .. last under DIR/layerN/ (by their names only: nothing
 * else is touched), then DIR itself if empty now. An existing DIR (--force) keeps the finished
 * layers' traces; empty layerN/ directories go in both cases. */
static void tpu_remove_outputs(const char *dir, int last, bool traces, bool made_dir)
{
    static const char *const kinds[] = { "SRAM", "DRAM" };
    static const char *const ops[] = { "IFMAP", "FILTER", "OFMAP" };
    for (int i = 0; traces && i <= last; i++) {
        char *ld = g_strdup_printf("%s/layer%d", dir, i);
        for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++)
            for (size_t o = 0; o < G_N_ELEMENTS(ops); o++) {
                char *p = g_strdup_printf("%s/%s_%s_TRACE.csv", ld, ops[o], kinds[k]);
                if (made_dir)
                    g_unlink(p);
                g_free(p);
            }
        g_rmdir(ld);            /* only when empty: the last layer's, whose traces were aborted */
        g_free(ld);
    }
    if (made_dir)
        g_rmdir(dir);
}

/* The layers run on the TPU machine (tpu_port_run): the model with the traces asked for, then
 * each layer's report line and, unless quiet, its line on stdout. */
typedef struct {
    const TpuArch *arch;
    const TpuTopology *tp;
    bool compat, sram_traces, dram_traces, quiet;
    const char *outdir;
    uint64_t tw_from, tw_to;
    TpuReports *rep;
    int layer;                   /* the layer under way (the failed one, after a failure) */
    uint64_t total;              /* cycles of the layers done */
} CliRun;

static bool cli_layer_run(void *ctx, int i, TpuLayerResult *res, GError **err)
{
    CliRun *r = ctx;
    const char *outdir = r->outdir;
    r->layer = i;
    TpuTraces tr = { .from = r->tw_from, .to = r->tw_to };
    bool traced = false;
    bool ok = (!r->sram_traces || (traced = tpu_traces_open(outdir, i, &tr, err))) &&
              (!r->dram_traces ||
               (tr.dram = tpu_dram_traces_open(outdir, i, r->tw_from, r->tw_to, err)));
    if (ok && !tpu_run_layer_traced(r->arch, &r->tp->layers[i], r->compat,
                                    traced || tr.dram ? &tr : NULL, res, err))
        ok = false;
    if (tr.dram && ok)
        ok = tpu_dram_traces_close(tr.dram, err);
    else if (tr.dram)
        tpu_dram_traces_abort(tr.dram);        /* no DRAM trace that looks complete */
    if (traced && ok)
        ok = tpu_traces_close(&tr, err);
    else if (traced)
        tpu_traces_abort(&tr);          /* no SRAM trace that looks complete */
    if (ok && tpu_stop_requested)       /* the signal came after the layer's last fold */
        ok = !(*err = g_error_new(ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_INTERRUPTED,
                                  "interrupted by signal %d in layer %s",
                                  (int)tpu_stop_requested, r->tp->layers[i].name));
    return ok;
}

static void cli_layer_done(void *ctx, int i, const TpuLayerResult *res)
{
    CliRun *r = ctx;
    tpu_reports_add(r->rep, i, r->tp->layers[i].name, r->arch, res);
    r->total += res->total_cycles;
    if (!r->quiet)
        printf("layer %d %s: %" G_GUINT64_FORMAT " cycles, %" G_GUINT64_FORMAT " stalls, "
               "%.2f%% utilization%s\n", i, r->tp->layers[i].name, res->total_cycles,
               res->stall_cycles, res->overall_util,
               res->sampled_folds ? " (DRAM reads sampled)" : "");
}

/* A layer's error: the model's (ARCHSIM_TRACE_ERROR: the layer cannot be run) at the layer's row
 * of the topology, file:line:col; others (traces, reports) are archsim tpu's own. */
static int tpu_layer_fail(const TpuTopology *tp, int layer, const GError *err)
{
    if (err->domain == ARCHSIM_TRACE_ERROR)
        fprintf(stderr, "%s:%u:1: %s\n", tp->file, tp->layers[layer].line, err->message);
    else if (err->domain == ARCHSIM_CONFIG_ERROR)
        fprintf(stderr, "%s\n", err->message);
    else
        fprintf(stderr, "archsim tpu: %s\n", err->message);
    return err->code;
}

int tpu_main(int argc, char **argv)
{
    char *cfg = NULL, *topo = NULL, *input = NULL, *outdir = NULL;
    char *teach = NULL, *teach_layer = NULL, *teach_window = NULL, *trace_window = NULL;
    char *budget = NULL;
    gboolean sram_traces = FALSE, dram_traces = FALSE;
    gboolean compat = FALSE, force = FALSE, quiet = FALSE, help = FALSE, exact = FALSE;
    GOptionEntry entries[] = {
        { "config", 'c', 0, G_OPTION_ARG_FILENAME, &cfg, "SCALE-Sim architecture .cfg", "CFG" },
        { "topology", 't', 0, G_OPTION_ARG_FILENAME, &topo, "SCALE-Sim topology CSV", "CSV" },
        { "input-type", 'i', 0, G_OPTION_ARG_STRING, &input,
          "conv (default) or gemm: the topology's form", "conv|gemm" },
        { "scalesim-compat", 0, 0, G_OPTION_ARG_NONE, &compat,
          "SCALE-Sim v2's numbers, quirks included", NULL },
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &outdir, "directory for the reports", "DIR" },
        { "force", 'f', 0, G_OPTION_ARG_NONE, &force, "write into an existing DIR", NULL },
        { "exact", 0, 0, G_OPTION_ARG_NONE, &exact,
          "simulate every fold of huge layers (no sampling)", NULL },
        { "sample-budget", 0, 0, G_OPTION_ARG_STRING, &budget,
          "words a layer feeds the DRAM read estimator before it is sampled (default 2^28)",
          "WORDS" },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no per-layer lines on stdout", NULL },
        { "sram-traces", 0, 0, G_OPTION_ARG_NONE, &sram_traces,
          "write SCALE-Sim's per-cycle SRAM traces into DIR/layerN/", NULL },
        { "dram-traces", 0, 0, G_OPTION_ARG_NONE, &dram_traces,
          "write SCALE-Sim's DRAM traces (prefetches, drains) into DIR/layerN/", NULL },
        { "trace-window", 0, 0, G_OPTION_ARG_STRING, &trace_window,
          "SRAM traces: demand rows FROM:TO; DRAM traces: cycles FROM:TO, FROM 0 with the first "
          "fill (default 0:9999)", "FROM:TO" },
        { "teach", 0, 0, G_OPTION_ARG_FILENAME, &teach,
          "per-PE dump of one layer (arrays up to 16 x 16): FILE.vcd for VCD, else text; - for "
          "stdout", "FILE" },
        { "teach-layer", 0, 0, G_OPTION_ARG_STRING, &teach_layer,
          "the layer to dump (LayerID, default 0)", "N" },
        { "teach-window", 0, 0, G_OPTION_ARG_STRING, &teach_window,
          "cycles FROM:TO of the dump (FROM: to the end; default the whole layer)", "FROM:TO" },
        { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "Show this help and exit", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GOptionContext *ctx = g_option_context_new("");
    g_option_context_set_help_enabled(ctx, FALSE);
    g_option_context_add_main_entries(ctx, entries, NULL);
    char **args = g_new0(char *, (size_t)MAX(argc, 1) + 1);
    for (int i = 0; i < argc; i++)
        args[i] = g_strdup(argv[i]);
    if (argc == 0)
        args[0] = g_strdup("tpu");
    int rc = ARCHSIM_EXIT_OK;
    GError *err = NULL;
    static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction old_actions[G_N_ELEMENTS(stop_signals)];
    bool handlers = false;
    TpuArch arch = { 0 };
    TpuTopology tp = { 0 };
    bool have_arch = false, have_topo = false;
    if (!g_option_context_parse_strv(ctx, &args, &err)) {
        rc = tpu_usage("%s", err->message);
        goto out;
    }
    if (help) {
        cli_help_print(stdout, &tpu_cli_help, entries);
        if (fflush(stdout) != 0 || ferror(stdout))
            rc = ARCHSIM_EXIT_IOERR;
        goto out;
    }
    if (!cli_check_empty("tpu", entries)) {
        rc = ARCHSIM_EXIT_USAGE;
        goto out;
    }
    if (g_strv_length(args) > 1) {
        rc = tpu_usage("unexpected argument '%s'", args[1]);
        goto out;
    }
    if (!cfg || !topo || !outdir) {
        rc = tpu_usage("missing %s", !cfg ? "-c CFG" : !topo ? "-t TOPOLOGY" : "-o DIR");
        goto out;
    }
    if (!teach && (teach_layer || teach_window)) {
        /* they were ignored without a word */
        rc = tpu_usage("%s chooses what --teach dumps: give --teach FILE",
                       teach_layer ? "--teach-layer" : "--teach-window");
        goto out;
    }
    if (trace_window && !sram_traces && !dram_traces) {
        rc = tpu_usage("--trace-window bounds --sram-traces and --dram-traces: give one");
        goto out;
    }
    bool gemm = false;
    if (input && strcmp(input, "gemm") == 0)
        gemm = true;
    else if (input && strcmp(input, "conv") != 0) {
        rc = tpu_usage("-i '%s': expected conv or gemm", input);
        goto out;
    }
    if (g_file_test(outdir, G_FILE_TEST_EXISTS) && !force) {
        fprintf(stderr, "archsim tpu: %s exists; use --force to write into it\n", outdir);
        rc = ARCHSIM_EXIT_CANTCREAT;
        goto out;
    }
    /* the cwd first, then the data directory (sim/input.h) */
    char *named = cfg;
    cfg = sim_input_find(named);
    g_free(named);
    named = topo;
    topo = sim_input_find(named);
    g_free(named);
    if (!(have_arch = tpu_arch_load(cfg, &arch, &err)) ||
        !(have_topo = tpu_topology_load(topo, gemm, &tp, &err))) {
        fprintf(stderr, "%s\n", err->message);
        rc = err->code;
        goto out;
    }
    /* what the readers took in a way the user may not expect (title rows, unknown keys) */
    for (guint i = 0; arch.warnings != NULL && i < arch.warnings->len; i++)
        fprintf(stderr, "%s\n", (const char *)g_ptr_array_index(arch.warnings, i));
    for (guint i = 0; tp.warnings != NULL && i < tp.warnings->len; i++)
        fprintf(stderr, "%s\n", (const char *)g_ptr_array_index(tp.warnings, i));
    if (teach) {
        /* a signal stops the dump cleanly too (it ran before the handlers, leaving its .part) */
        struct sigaction ts = { .sa_handler = tpu_on_signal };
        sigemptyset(&ts.sa_mask);
        for (size_t i = 0; i < G_N_ELEMENTS(stop_signals); i++)
            sigaction(stop_signals[i], &ts, &old_actions[i]);
        handlers = true;
        guint64 layer = 0, from = 0, to = G_MAXUINT64;      /* the whole layer */
        if (teach_layer && (!g_ascii_string_to_unsigned(teach_layer, 10, 0, G_MAXINT, &layer, NULL)
                            || layer >= (guint64)tp.nlayers)) {
            rc = tpu_usage("--teach-layer '%s': expected a layer 0 .. %d", teach_layer,
                           tp.nlayers - 1);
            goto out;
        }
        if (teach_window) {
            char **ft = g_strsplit(teach_window, ":", 2);
            bool ok = ft[0] && ft[1] && g_ascii_string_to_unsigned(ft[0], 10, 0, G_MAXUINT64,
                                                                   &from, NULL) &&
                      (!*ft[1] || g_ascii_string_to_unsigned(ft[1], 10, 0, G_MAXUINT64, &to,
                                                             NULL)) &&
                      (!*ft[1] || to >= from);
            g_strfreev(ft);
            if (!ok) {
                rc = tpu_usage("--teach-window '%s': expected FROM:TO or FROM: (cycles, FROM <= "
                               "TO)", teach_window);
                goto out;
            }
        }
        TpuTeachFormat fmt = g_str_has_suffix(teach, ".vcd") ? TPU_TEACH_VCD : TPU_TEACH_TEXT;
        if (!tpu_teach_layer(&arch, &tp.layers[layer], compat, fmt, from, to, teach, force,
                             &err)) {
            rc = tpu_layer_fail(&tp, (int)layer, err);
            goto out;
        }
    }
    guint64 tw_from = 0, tw_to = 9999;
    if (trace_window) {
        char **ft = g_strsplit(trace_window, ":", 2);
        bool ok = ft[0] && ft[1] &&
                  g_ascii_string_to_unsigned(ft[0], 10, 0, G_MAXUINT64, &tw_from, NULL) &&
                  g_ascii_string_to_unsigned(ft[1], 10, 0, G_MAXUINT64, &tw_to, NULL) &&
                  tw_to >= tw_from;
        g_strfreev(ft);
        if (!ok) {
            rc = tpu_usage("--trace-window '%s': expected FROM:TO (rows or cycles, FROM <= TO)",
                           trace_window);
            goto out;
        }
    }
    /* every argument is checked before DIR is made */
    uint64_t sample_budget = exact ? 0 : TPU_SAMPLE_BUDGET;
    if (budget) {
        guint64 b;
        if (!g_ascii_string_to_unsigned(budget, 10, 1, G_MAXUINT64, &b, NULL)) {
            rc = tpu_usage("--sample-budget '%s': expected a number of words >= 1", budget);
            goto out;
        }
        if (!exact)
            sample_budget = b;
    }
    tpu_sample_budget = sample_budget;
    /* every layer the model would refuse (too large for its memory), before DIR is made */
    for (int i = 0; i < tp.nlayers; i++)
        if (!tpu_layer_check(&arch, &tp.layers[i], compat, sram_traces || dram_traces, &err)) {
            rc = tpu_layer_fail(&tp, i, err);
            goto out;
        }
    /* from here on a signal stops the run cleanly: no report (*.part) or half trace is left */
    bool made_dir = !g_file_test(outdir, G_FILE_TEST_EXISTS);
    struct sigaction sa = { .sa_handler = tpu_on_signal };
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; !handlers && i < G_N_ELEMENTS(stop_signals); i++)
        sigaction(stop_signals[i], &sa, &old_actions[i]);
    handlers = true;
    TpuReports *rep = tpu_reports_open(outdir, &err);
    if (!rep) {
        fprintf(stderr, "archsim tpu: %s\n", err->message);
        rc = err->code;
        goto out;
    }
    clock_t t0 = clock();
#ifdef __GLIBC__
    /* Each layer allocates its tables and frees them at its end (tpumodel.c); glibc hands freed
     * heap above 128 KiB back to the kernel, so the next layer would fault its pages in again
     * (ResNet-50 on 256 x 256: 22,000 to 32,000 page faults as the heap happens to lie, a tenth
     * of the run; 2,700 with this). Keep up to 256 MiB. */
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
    CliRun run = { .arch = &arch, .tp = &tp, .compat = compat, .outdir = outdir,
                   .sram_traces = sram_traces, .dram_traces = dram_traces, .tw_from = tw_from,
                   .tw_to = tw_to, .quiet = quiet, .rep = rep };
    if (!tpu_port_run(&arch, &tp, cli_layer_run, cli_layer_done, &run, &err)) {
        int i = run.layer;
        if (err->code == ARCHSIM_EXIT_INTERRUPTED) {
            tpu_reports_abort(rep);
            tpu_remove_outputs(outdir, i, sram_traces || dram_traces, made_dir);
            fprintf(stderr, "archsim tpu: %s (%d of %d layers done); no results written%s\n",
                    err->message,
                    i, tp.nlayers, made_dir || !(sram_traces || dram_traces) || i == 0 ? ""
                    : " (the traces of the layers before it stay in DIR)");
            rc = ARCHSIM_EXIT_INTERRUPTED;
            goto out;
        }
        rc = tpu_layer_fail(&tp, i, err);
        tpu_reports_abort(rep);         /* no report that looks complete */
        goto out;
    }
    uint64_t total = run.total;
    if (tpu_stop_requested) {
        tpu_reports_abort(rep);
        tpu_remove_outputs(outdir, tp.nlayers - 1, sram_traces || dram_traces, made_dir);
        fprintf(stderr, "archsim tpu: interrupted by signal %d; no results written\n",
                (int)tpu_stop_requested);
        rc = ARCHSIM_EXIT_INTERRUPTED;
        goto out;
    }
    if (!tpu_reports_close(rep, &err)) {
        fprintf(stderr, "archsim tpu: %s\n", err->message);
        rc = err->code;
        goto out;
    }
    if (!quiet)
        printf("%d layers, %" G_GUINT64_FORMAT " cycles in all (%.3f s); reports in %s\n",
               tp.nlayers, total, (double)(clock() - t0) / CLOCKS_PER_SEC, outdir);
out:
    for (size_t i = 0; handlers && i < G_N_ELEMENTS(stop_signals); i++)
        sigaction(stop_signals[i], &old_actions[i], NULL);
    if (have_arch)
        tpu_arch_clear(&arch);
    if (have_topo)
        tpu_topology_clear(&tp);
    g_clear_error(&err);
    g_option_context_free(ctx);
    g_strfreev(args);
    g_free(cfg);
    g_free(topo);
    g_free(input);
    g_free(outdir);
    g_free(teach);
    g_free(teach_layer);
    g_free(teach_window);
    g_free(trace_window);
    g_free(budget);
    return rc;
}
