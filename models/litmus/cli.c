/* cli.c: `archsim litmus`: runs herd7 X86 litmus tests under a memory model and prints herd7-like
 * results (litmus7's histogram with `*>` on the outcomes where the condition holds); with a
 * manifest of expected verdicts (test,file,condition,SC,TSO,PSO,WEAK: allowed|forbidden) it says
 * per test whether the model agrees and exits 3 on any disagreement.
 */
#include "litmus.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/cli/cli.h"
#include "../../sim/config.h"
#include "../../sim/error.h"
#include "../../sim/input.h"

#define LIT_DEFAULT_RUNS 10000
#define LIT_DEFAULT_MAX_STATES 10000000
#define LIT_DEFAULT_UNSEEN_STATES 200000   /* random mode: the not-yet-seen check's budget */

static const char lit_cli_description[] =
    "Runs each litmus FILE (herd7's X86 syntax) under the memory model and prints, per test, the\n"
    "outcomes with their counts (`*>` marks those where the condition's proposition holds), then\n"
    "`Observation NAME Never|Sometimes|Always POSITIVE NEGATIVE` as herd7 does.\n"
    "\n"
    "Random mode (default) runs each test --runs times on the simulated coherent machine (mm-core\n"
    "cores with store buffers, MESI snooping L1s) with seeded random timing (most runs staged:\n"
    "threads in a random order, ops the model lets others bypass held late); --config and --set\n"
    "change that machine. It then lists the outcomes the model allows that no run produced:\n"
    "`Unseen NAME K of N allowed outcomes` (enumerated up to --max-states, default 200000).\n"
    "--exhaustive instead explores every interleaving of an abstract machine with atomic memory\n"
    "that reorders exactly as the model's table allows: it finds every outcome the model allows,\n"
    "and only those.\n"
    "\n"
    "With --manifest, each test is looked up (by file name, else by test name) in a CSV with the\n"
    "columns test,file,condition,SC,TSO,PSO,WEAK (values allowed or forbidden) and gets a line\n"
    "`NAME: expected allowed, observed Sometimes: ok` (or MISMATCH); the last line is\n"
    "`N passed, N failed`.\n"
    "\n"
    "Examples:\n"
    "  archsim litmus --model tso tests/litmus/herd/SB.litmus\n"
    "  archsim litmus --model pso --exhaustive --manifest tests/litmus/herd/MANIFEST.csv \\\n"
    "                 tests/litmus/herd/*.litmus\n"
    "  archsim litmus --model weak --runs 100000 --seed 7 --set l1d.protocol=msi \\\n"
    "                 tests/litmus/herd/MP.litmus\n"
    "\n"
    "Exit status:\n"
    "  0   every test ran (and, with --manifest, agreed with it)\n"
    "  3   with --manifest: some test's verdict disagrees with the manifest; random mode: a\n"
    "      checker of the simulated machine failed (deadlock watchdog, reference memory)\n"
    "  64  bad command line (unknown model, bad --runs, --trace with several tests ...)\n"
    "  65  a litmus file or the manifest is malformed (file:line:col), a test has no row in\n"
    "      the manifest, or --exhaustive exceeds --max-states\n"
    "  66  a file is missing or unreadable\n"
    "  73  the --trace FILE exists (use --force for an archsim dump) or is not a regular file\n"
    "  74  the output could not be written       78  bad --config/--set for the machine\n"
    "  130 with --trace: interrupted by SIGINT, SIGTERM or SIGHUP (the dump is removed)\n"
    "\n"
    "Documentation: docs/litmus.md.\n";

static const CliHelp lit_cli_help = {
    .cmd = "litmus",
    .usage = "archsim litmus [--model sc|tso|pso|weak] [--exhaustive] [--runs N] [--seed S]\n"
             "                      [--manifest FILE] [--config FILE] [--set KEY=VALUE]...\n"
             "                      [--trace FILE [--force]] [-q] FILE...",
    .summary = "Run herd7 X86 litmus tests under a memory model.",
    .details = lit_cli_description,
};

static int lit_usage(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static int lit_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    fprintf(stderr, "archsim litmus: %s\nTry 'archsim litmus --help'.\n", msg);
    g_free(msg);
    return ARCHSIM_EXIT_USAGE;
}

static void lit_on_signal(int sig)
{
    litmus_stop_requested = sig;
}

static int lit_fail(GError *e)
{
    int code = archsim_exit_code(e);
    fprintf(stderr, "%s\n", e->message);
    g_error_free(e);
    return code;
}

/* ---- one test's report --------------------------------------------------------------------- */

static const char *lit_observation(uint64_t pos, uint64_t neg)
{
    return pos == 0 ? "Never" : neg == 0 ? "Always" : "Sometimes";
}

static void lit_print(const LitTest *t, const LitHist *h, double secs, GString *o)
{
    uint64_t pos, neg;
    litmus_hist_totals(h, &pos, &neg);
    bool ok = t->quant == LQ_EXISTS ? pos > 0 : t->quant == LQ_NOT_EXISTS ? pos == 0 : neg == 0;
    g_string_append_printf(o, "Test %s %s\n", t->name,
                           t->quant == LQ_EXISTS ? "Allowed"
                           : t->quant == LQ_NOT_EXISTS ? "Forbidden" : "Required");
    g_string_append_printf(o, "States %u\n", g_hash_table_size(h->counts));
    GPtrArray *keys = litmus_hist_sorted(h);
    int width = 1;
    for (guint k = 0; k < keys->len; k++) {
        uint64_t n = *(uint64_t *)g_hash_table_lookup(h->counts, keys->pdata[k]);
        int w = g_snprintf(NULL, 0, "%" G_GUINT64_FORMAT, n);
        width = MAX(width, w);
    }
    for (guint k = 0; k < keys->len; k++) {
        uint64_t n = *(uint64_t *)g_hash_table_lookup(h->counts, keys->pdata[k]);
        g_string_append_printf(o, "%*" G_GUINT64_FORMAT " %s %s\n", width, n,
                               g_hash_table_contains(h->holds, keys->pdata[k]) ? "*>" : ":>",
                               (const char *)keys->pdata[k]);
    }
    g_ptr_array_unref(keys);
    /* herd7 (top_herd.ml, check_wit) swaps the witnesses of ~exists, not its Observation */
    bool swap = t->quant == LQ_NOT_EXISTS;
    g_string_append_printf(o, "%s\nWitnesses\nPositive: %" G_GUINT64_FORMAT " Negative: %"
                           G_GUINT64_FORMAT "\n", ok ? "Ok" : "No", swap ? neg : pos,
                           swap ? pos : neg);
    g_string_append_printf(o, "Condition %s\n", t->cond_text);
    g_string_append_printf(o, "Observation %s %s %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n",
                           t->name, lit_observation(pos, neg), pos, neg);
    g_string_append_printf(o, "Time %s %.2f\n", t->name, secs);
}

/* Random mode: the outcomes the model allows (exhaustive mode, up to max_states states) that
 * the runs have not produced yet. Returns how many (-1 when exhaustive mode gave up, *why set)
 * and appends them, in print order, to `unseen` with their `*>`/`:>` marks. */
static int lit_unseen(const LitTest *t, const MemModel *m, const LitHist *h, uint64_t max_states,
                      int *allowed, GString *unseen, char **why)
{
    LitHist ex;
    litmus_hist_init(&ex);
    GError *e = NULL;
    int n = 0;
    *allowed = 0;
    if (!litmus_enumerate(t, m, max_states, &ex, &e)) {
        *why = g_strdup(e->message);
        g_error_free(e);
        litmus_hist_clear(&ex);
        return -1;
    }
    GPtrArray *keys = litmus_hist_sorted(&ex);
    *allowed = (int)keys->len;
    for (guint k = 0; k < keys->len; k++)
        if (!g_hash_table_contains(h->counts, keys->pdata[k])) {
            g_string_append_printf(unseen, "%s %s\n",
                                   g_hash_table_contains(ex.holds, keys->pdata[k]) ? "*>" : ":>",
                                   (const char *)keys->pdata[k]);
            n++;
        }
    g_ptr_array_unref(keys);
    litmus_hist_clear(&ex);
    return n;
}

/* The machine's config: --config (includes resolved) with every --set applied; NULL if neither
 * was given. Its nodes keep their positions (file:line:col, or --set) for error messages. */
static bool lit_machine_config(const char *config, char **sets, CfgNode **out, GError **error)
{
    *out = NULL;
    if (config == NULL && (sets == NULL || *sets == NULL))
        return true;
    CfgNode *root = config ? cfg_load_file(config, NULL, error)
                           : cfg_node_new_map("--set", 0, 0);
    if (root == NULL)
        return false;
    for (char **s = sets; s && *s; s++)
        if (!cfg_apply_set(root, *s, error)) {
            cfg_node_free(root);
            return false;
        }
    *out = root;
    return true;
}

int litmus_cli_main(int argc, char **argv)
{
    char *model_name = NULL, *runs_text = NULL, *seed_text = NULL, *manifest_path = NULL;
    char *config = NULL, *trace = NULL, *max_text = NULL;
    char **sets = NULL;
    gboolean exhaustive = FALSE, quiet = FALSE, help = FALSE, force = FALSE;
    GOptionEntry entries[] = {
        { "model", 'm', 0, G_OPTION_ARG_STRING, &model_name,
          "memory model: sc, tso, pso or weak (default tso)", "MODEL" },
        { "exhaustive", 'x', 0, G_OPTION_ARG_NONE, &exhaustive,
          "every outcome the model allows (abstract machine), instead of random runs", NULL },
        { "runs", 'n', 0, G_OPTION_ARG_STRING, &runs_text,
          "random mode: runs per test (default 10000)", "N" },
        { "seed", 0, 0, G_OPTION_ARG_STRING, &seed_text,
          "random mode: PRNG seed (default 1); each test starts from it", "S" },
        { "manifest", 0, 0, G_OPTION_ARG_FILENAME, &manifest_path,
          "CSV of expected verdicts: print ok/MISMATCH per test, exit 3 on a mismatch", "FILE" },
        { "config", 'c', 0, G_OPTION_ARG_FILENAME, &config,
          "random mode: YAML overriding the litmus machine (caches, protocol, timing)", "FILE" },
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
          "random mode: override one machine parameter (repeatable)", "KEY=VALUE" },
        { "trace", 0, 0, G_OPTION_ARG_FILENAME, &trace,
          "random mode, one test: per-cycle dump of the core pipelines to FILE (an existing file "
          "only with --force, and only an archsim dump)", "FILE" },
        { "force", 'f', 0, G_OPTION_ARG_NONE, &force,
          "let --trace replace an existing archsim dump", NULL },
        { "max-states", 0, 0, G_OPTION_ARG_STRING, &max_text,
          "exhaustive: give up past N states (default 10000000); random: the Unseen check's "
          "budget (200000)", "N" },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
          "only the Observation line per test (the verdict lines with --manifest), and Unseen "
          "when an allowed outcome was not seen or the check gave up", NULL },
        { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "Show this help and exit", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GOptionContext *ctx = g_option_context_new("FILE...");
    g_option_context_set_help_enabled(ctx, FALSE);
    g_option_context_add_main_entries(ctx, entries, NULL);
    char **args = g_new0(char *, (size_t)MAX(argc, 1) + 1);
    for (int i = 0; i < argc; i++)
        args[i] = g_strdup(argv[i]);
    if (argc == 0)
        args[0] = g_strdup("litmus");

    int rc = ARCHSIM_EXIT_OK;
    GError *err = NULL;
    static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction old_actions[G_N_ELEMENTS(stop_signals)];
    bool handlers = false;
    GPtrArray *tests = g_ptr_array_new_with_free_func((GDestroyNotify)litmus_free);
    LitManifest *manifest = NULL;
    CfgNode *machine = NULL;
    GString *o = g_string_new(NULL);
    if (!g_option_context_parse_strv(ctx, &args, &err)) {
        rc = lit_usage("%s", err->message);
        goto out;
    }
    if (help) {
        cli_help_print(stdout, &lit_cli_help, entries);
        if (fflush(stdout) != 0 || ferror(stdout))
            rc = ARCHSIM_EXIT_IOERR;
        goto out;
    }
    if (!cli_check_empty("litmus", entries)) {
        rc = ARCHSIM_EXIT_USAGE;
        goto out;
    }
    /* GLib leaves the "--" that ended the options where it was (before the files or among
     * them): it is not a file; what follows it is, even if it looks like an option */
    for (guint i = 1; args[i] != NULL; i++)
        if (strcmp(args[i], "--") == 0) {
            g_free(args[i]);
            memmove(&args[i], &args[i + 1], (g_strv_length(args + i + 1) + 1) * sizeof *args);
            break;
        }
    guint first = 1;
    guint nfiles = g_strv_length(args) - first;
    const MemModel *model = mem_model_find(model_name ? model_name : "tso");
    if (model == NULL) {
        rc = lit_usage("--model '%s': expected one of sc, tso, pso, weak", model_name);
        goto out;
    }
    if (nfiles == 0) {
        rc = lit_usage("missing FILE (a herd7 X86 .litmus test)");
        goto out;
    }
    for (guint i = first; args[i] != NULL; i++)
        if (!*args[i]) {
            rc = lit_usage("argument %u is empty (expected FILE)", i - first + 1);
            goto out;
        }
    guint64 runs = LIT_DEFAULT_RUNS, seed = 1, max_states = LIT_DEFAULT_MAX_STATES;
    if (runs_text && (!g_ascii_string_to_unsigned(runs_text, 10, 1, G_MAXUINT32, &runs, NULL))) {
        rc = lit_usage("--runs: expected a positive integer");
        goto out;
    }
    if (seed_text && !g_ascii_string_to_unsigned(seed_text, 10, 0, G_MAXINT64, &seed, NULL)) {
        rc = lit_usage("--seed: expected a non-negative integer");
        goto out;
    }
    if (max_text && !g_ascii_string_to_unsigned(max_text, 10, 1, G_MAXUINT32 - 2, &max_states,
                                                NULL)) {
        rc = lit_usage("--max-states: expected a positive integer");
        goto out;
    }
    if (exhaustive) {
        const char *opt = runs_text ? "--runs" : seed_text ? "--seed" : config ? "--config"
                          : sets ? "--set" : trace ? "--trace" : NULL;
        if (opt != NULL) {
            rc = lit_usage("%s applies to random mode (the simulated machine); --exhaustive "
                           "explores the abstract machine", opt);
            goto out;
        }
    } else if (!max_text) {
        max_states = LIT_DEFAULT_UNSEEN_STATES;
    }
    if (trace && nfiles > 1) {
        rc = lit_usage("--trace takes one test FILE (got %u)", nfiles);
        goto out;
    }
    /* --config and --manifest: the cwd first, then the data directory (sim/input.h) */
    char **named_opts[] = { &config, &manifest_path };
    for (size_t i = 0; i < G_N_ELEMENTS(named_opts); i++)
        if (*named_opts[i] != NULL) {
            char *given = *named_opts[i];
            *named_opts[i] = sim_input_find(given);
            g_free(given);
        }
    if (!lit_machine_config(config, sets, &machine, &err)) {
        rc = lit_fail(err);
        err = NULL;
        goto out;
    }
    if (trace) {
        /* the one output file: a signal stops the runs and removes the dump being written */
        struct sigaction sa = { .sa_handler = lit_on_signal };
        sigemptyset(&sa.sa_mask);
        for (size_t i = 0; i < G_N_ELEMENTS(stop_signals); i++)
            sigaction(stop_signals[i], &sa, &old_actions[i]);
        handlers = true;
    }
    /* read everything first: a bad file or manifest stops before any long run */
    /* the cwd first, then the data directory, globs included (sim/input.h) */
    char **named = sim_input_find_all(args + first);
    if (trace && g_strv_length(named) > 1) {
        /* a quoted glob: one argument, several tests (each run replaced the last one's dump) */
        rc = lit_usage("--trace takes one test FILE (got %u)", g_strv_length(named));
        g_strfreev(named);
        goto out;
    }
    for (guint k = 0; named[k]; k++) {
        LitTest *t = litmus_parse_file(named[k], &err);
        if (t == NULL) {
            g_strfreev(named);
            rc = lit_fail(err);
            err = NULL;
            goto out;
        }
        g_ptr_array_add(tests, t);
    }
    g_strfreev(named);
    if (manifest_path) {
        manifest = litmus_manifest_load(manifest_path, model, &err);
        if (manifest == NULL) {
            rc = lit_fail(err);
            err = NULL;
            goto out;
        }
        for (guint k = 0; k < tests->len; k++) {
            const LitTest *t = tests->pdata[k];
            const LitRow *r = litmus_manifest_find(manifest, t);
            if (r == NULL) {
                fprintf(stderr, "%s: test %s has no row in the manifest %s (rows are matched "
                        "by file name, then by test name)\n", t->file, t->name, manifest_path);
                rc = ARCHSIM_EXIT_DATAERR;
                goto out;
            }
            if (*r->cond) {
                char *where = g_strdup_printf("%s:%d", manifest_path, r->line);
                GError *ce = NULL;
                char *norm = litmus_cond_normalise(t, where, r->cond, &ce);
                if (norm == NULL)
                    fprintf(stderr, "archsim litmus: warning: %s (the manifest's condition, "
                            "compared with the test's %s)\n", ce->message, t->cond_text);
                else if (strcmp(norm, t->cond_text) != 0)
                    fprintf(stderr, "archsim litmus: warning: %s: the condition '%s' differs "
                            "from the test's: %s\n", where, r->cond, t->cond_text);
                g_clear_error(&ce);
                g_free(norm);
                g_free(where);
            }
        }
    }
    if (!quiet)
        g_string_append_printf(o, exhaustive ? "# archsim litmus --model %s --exhaustive: every "
                               "outcome of the abstract machine\n"
                               : "# archsim litmus --model %s: %" G_GUINT64_FORMAT " runs per "
                               "test on the simulated machine, seed %" G_GUINT64_FORMAT "\n",
                               model->name, runs, seed);
    int passed = 0, failed = 0;
    for (guint k = 0; k < tests->len; k++) {
        const LitTest *t = tests->pdata[k];
        LitHist h;
        litmus_hist_init(&h);
        gint64 t0 = g_get_monotonic_time();
        bool ran;
        if (exhaustive) {
            ran = litmus_enumerate(t, model, max_states, &h, &err);
        } else {
            LitSimOptions so = { .model = model, .runs = runs, .seed = seed,
                                 .config = machine, .trace_path = trace,
                                 .trace_force = force };
            ran = litmus_simulate(t, &so, &h, &err);
        }
        double secs = (double)(g_get_monotonic_time() - t0) / 1e6;
        if (!ran) {
            if (k > 0)                  /* the tests before it are complete: keep them */
                fputs(o->str, stdout);
            g_string_truncate(o, 0);
            litmus_hist_clear(&h);
            rc = lit_fail(err);
            err = NULL;
            goto out;
        }
        uint64_t pos, neg;
        litmus_hist_totals(&h, &pos, &neg);
        GString *unseen = g_string_new(NULL);
        int allowed = 0, nunseen = 0;
        char *why = NULL;
        if (!exhaustive)
            nunseen = lit_unseen(t, model, &h, max_states, &allowed, unseen, &why);
        if (!quiet) {
            if (k > 0)
                g_string_append_c(o, '\n');
            lit_print(t, &h, secs, o);
            if (nunseen < 0)
                g_string_append_printf(o, "Unseen %s ? (not computed: %s)\n", t->name, why);
            else if (!exhaustive)
                g_string_append_printf(o, "Unseen %s %d of %d allowed outcomes%s\n%s", t->name,
                                       nunseen, allowed, nunseen ? " (by --exhaustive), not "
                                       "produced in these runs:" : "", unseen->str);
        } else if (manifest == NULL) {
            g_string_append_printf(o, "Observation %s %s %" G_GUINT64_FORMAT " %"
                                   G_GUINT64_FORMAT "\n", t->name, lit_observation(pos, neg),
                                   pos, neg);
        }
        if (quiet && nunseen > 0)
            g_string_append_printf(o, "Unseen %s %d of %d allowed outcomes\n", t->name, nunseen,
                                   allowed);
        else if (quiet && nunseen < 0)      /* not known to be complete: said, as without -q */
            g_string_append_printf(o, "Unseen %s ? (not computed: %s)\n", t->name, why);
        g_string_free(unseen, TRUE);
        g_free(why);
        if (manifest) {
            const LitRow *r = litmus_manifest_find(manifest, t);
            bool good = r->allowed ? pos > 0 : pos == 0;
            g_string_append_printf(o, "%s: expected %s, observed %s: %s\n", t->name,
                                   r->allowed ? "allowed" : "forbidden",
                                   lit_observation(pos, neg), good ? "ok" : "MISMATCH");
            if (good)
                passed++;
            else
                failed++;
        }
        litmus_hist_clear(&h);
        fputs(o->str, stdout);      /* test by test, so a long run shows progress */
        fflush(stdout);
        g_string_truncate(o, 0);
    }
    if (manifest) {
        g_string_append_printf(o, "%s%d passed, %d failed\n", quiet ? "" : "\n", passed, failed);
        if (failed > 0)
            rc = ARCHSIM_EXIT_CHECK;
    }
    fputs(o->str, stdout);
    g_string_truncate(o, 0);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "archsim litmus: cannot write the output\n");
        rc = ARCHSIM_EXIT_IOERR;
    } else if (rc == ARCHSIM_EXIT_CHECK) {
        fprintf(stderr, "archsim litmus: %d test%s disagree%s with %s under %s\n", failed,
                failed == 1 ? "" : "s", failed == 1 ? "s" : "", manifest_path, model->name);
    }
out:
    for (size_t i = 0; handlers && i < G_N_ELEMENTS(stop_signals); i++)
        sigaction(stop_signals[i], &old_actions[i], NULL);
    fputs(o->str, stdout);
    g_string_free(o, TRUE);
    g_clear_error(&err);
    litmus_manifest_free(manifest);
    g_ptr_array_unref(tests);
    cfg_node_free(machine);
    g_strfreev(args);
    g_strfreev(sets);
    g_free(model_name);
    g_free(runs_text);
    g_free(seed_text);
    g_free(manifest_path);
    g_free(config);
    g_free(trace);
    g_free(max_text);
    g_option_context_free(ctx);
    return rc;
}
