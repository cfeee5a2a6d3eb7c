/* main.c: the archsim command line. Subcommands dispatch on argv[1]; each parses its own
 * options with GOptionContext. Data goes to stdout, messages to stderr; exit codes are the
 * sysexits values of error.h (the GError code), documented in `archsim --help`.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "outfile.h"
#include "registry.h"
#include "sweep.h"
#include "system.h"

#ifndef ARCHSIM_VERSION
#define ARCHSIM_VERSION "0.1.0"
#endif
#ifndef ARCHSIM_GIT
#define ARCHSIM_GIT "unknown"
#endif

static const char *const usage_text =
    "Usage: archsim COMMAND [OPTIONS]\n"
    "\n"
    "archsim is a cycle-level, event-driven simulator of multiprocessors and accelerators.\n"
    "\n"
    "Commands:\n"
    "  run CONFIG [-o DIR] [--seed N] [--set KEY=VALUE]... [--force] [--quiet] [--trace FILE ...]\n"
    "                    simulate a YAML config; results go to a new run directory\n"
    "  sweep CONFIG --grid KEY=V1,V2,... [--zip KEY=V1,...]... [-j N] [-o DIR] [--stats GLOBS]\n"
    "        [--force | --resume] [--mpi]   run CONFIG at every point; one row each in sweep.csv\n"
    "  validate FILE...  check configs (keys, types, units, ranges, inputs) without running\n"
    "  describe [TYPE]   list systems and component classes, or one TYPE's parameters,\n"
    "                    ports and statistics\n"
    "%s"
    "  help              this text\n"
    "\n"
    "Options: --help (-h) and --version. `archsim COMMAND --help` shows a command's options.\n"
    "\n"
    "Examples:\n"
    "  archsim run configs/default.yaml\n"
    "  archsim run configs/default.yaml --set l1d.size=64KiB --seed 7 -o runs/l1d64k\n"
    "  archsim run configs/default.yaml --trace trace.txt --trace-window 1000:2000\n"
    "  archsim run configs/teach/msi.yaml --teach       (per access: bus, data source, states)\n"
    "  archsim sweep configs/coherence/false-sharing.yaml --grid core.spacing=8B,64B \\\n"
    "                --grid system.cores=1,2,4,8 -j 4 -o runs/fs-sweep\n"
    "  archsim cachegrind traces/samples/matmul64.lackey.gz\n"
    "\n"
    "Exit status:\n"
    "  0   success\n"
    "  3   the simulation ran but a checker failed (deadlock watchdog, invariant)\n"
    "  64  bad command line          65  bad input data (trace)\n"
    "  66  an input file is missing  70  internal error\n"
    "  73  output directory exists or cannot be created   74  I/O error\n"
    "  78  bad configuration         130 interrupted (SIGINT/SIGTERM/SIGHUP; nothing written)\n";

static void print_usage(FILE *f)
{
    GString *cmds = g_string_new(NULL);
    for (const CliCommand *c = archsim_model_commands; c->name; c++)
        g_string_append_printf(cmds, "  %-17s %s\n", c->name, c->summary);
    fprintf(f, usage_text, cmds->str);
    g_string_free(cmds, TRUE);
}

static int fail(GError *e)
{
    int code = archsim_exit_code(e);
    fprintf(stderr, "%s\n", e->message);
    g_error_free(e);
    return code;
}

static int usage_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "archsim %s: %s\nTry 'archsim %s --help'.\n", cmd, msg, cmd);
    return ARCHSIM_EXIT_USAGE;
}

/* ---- run ------------------------------------------------------------------------------- */

typedef struct {
    char *out;
    char *seed_text;
    gint64 seed;
    char **sets;
    gboolean force, quiet;
    char *trace, *trace_format, *trace_window, *trace_components, *trace_addr;
    gint64 trace_max;
    gboolean teach;
} RunOpts;

typedef struct {
    gint64 t0, last;
    bool tty, quiet;
    const ClockDomain *clk;
    Sim *sim;
} Heartbeat;

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

static void heartbeat(Engine *eng, void *ctx)
{
    Heartbeat *h = ctx;
    if (G_UNLIKELY(interrupted)) {
        /* stop cleanly so the staging directory is removed, not left half-written */
        sim_fail(h->sim, g_error_new(ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_INTERRUPTED,
                                     "archsim run: interrupted by signal %d at cycle %"
                                     G_GUINT64_FORMAT "; no results written",
                                     (int)interrupted, clock_cycle(h->clk, eng->now)));
        return;
    }
    if (h->quiet)
        return;
    gint64 now = g_get_monotonic_time();
    gint64 every = h->tty ? 200000 : 10000000;
    if (now - h->last < every)
        return;
    h->last = now;
    double secs = (double)(now - h->t0) / 1e6;
    uint64_t cyc = clock_cycle(h->clk, eng->now);
    double f = sim_progress_fraction(h->sim);
    if (h->tty) {
        char bar[31];
        int fill = f < 0 ? 0 : (int)(f * 30 + 0.5);
        for (int i = 0; i < 30; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[30] = '\0';
        if (f >= 0)
            fprintf(stderr, "\r\033[Karchsim: [%s] %3.0f%%  cycle %" G_GUINT64_FORMAT
                    "  %.2f Mcycles/s  %.1f s", bar, f * 100, cyc, (double)cyc / secs / 1e6, secs);
        else
            fprintf(stderr, "\r\033[Karchsim: cycle %" G_GUINT64_FORMAT "  %.2f Mcycles/s  %.1f s",
                    cyc, (double)cyc / secs / 1e6, secs);
    } else {
        fprintf(stderr, "archsim: heartbeat: cycle %" G_GUINT64_FORMAT ", %.2f Mcycles/s, %.0f s",
                cyc, (double)cyc / secs / 1e6, secs);
        if (f >= 0)
            fprintf(stderr, ", %.0f%% done", f * 100);
        fputc('\n', stderr);
    }
    fflush(stderr);
}

/* Removes a directory tree that archsim made (run directories are flat plus one level). */
static void remove_tree(const char *path)
{
    GDir *d = g_dir_open(path, 0, NULL);
    if (d) {
        const char *n;
        while ((n = g_dir_read_name(d))) {
            char *p = g_build_filename(path, n, NULL);
            if (g_file_test(p, G_FILE_TEST_IS_DIR) && !g_file_test(p, G_FILE_TEST_IS_SYMLINK))
                remove_tree(p);
            else
                g_unlink(p);
            g_free(p);
        }
        g_dir_close(d);
    }
    g_rmdir(path);
}

/* Removes the staging directories OUT.part-PID of processes that are gone (killed, crashed):
 * a directory of that name is archsim's by its name, and its process no longer writes it. */
static void remove_stale_stages(const char *out)
{
    char *parent = g_path_get_dirname(out), *base = g_path_get_basename(out);
    char *prefix = g_strconcat(base, ".part-", NULL);
    GDir *d = g_dir_open(parent, 0, NULL);
    const char *n;
    GPtrArray *dead = g_ptr_array_new_with_free_func(g_free);
    while (d && (n = g_dir_read_name(d))) {
        guint64 pid;
        if (g_str_has_prefix(n, prefix) &&
            g_ascii_string_to_unsigned(n + strlen(prefix), 10, 1, G_MAXINT, &pid, NULL) &&
            (pid_t)pid != getpid() && !outfile_process_alive((pid_t)pid, 0, NULL))
            g_ptr_array_add(dead, g_build_filename(parent, n, NULL));
    }
    if (d)
        g_dir_close(d);
    for (guint i = 0; i < dead->len; i++) {
        const char *p = g_ptr_array_index(dead, i);
        if (g_file_test(p, G_FILE_TEST_IS_DIR) && !g_file_test(p, G_FILE_TEST_IS_SYMLINK))
            remove_tree(p);
    }
    g_ptr_array_free(dead, TRUE);
    g_free(prefix);
    g_free(base);
    g_free(parent);
}

/* On a deadlock the dump is the best evidence: close it and move it beside the (absent) run
 * directory instead of deleting it with the staging directory. */
static void keep_deadlock_trace(TraceDump **td, const char *trace_path, const char *stage,
                                const char *out)
{
    TraceDump *t = *td;
    *td = NULL;
    GError *e = NULL;
    if (!trace_close(t, &e)) {
        fprintf(stderr, "%s\n", e->message);
        g_error_free(e);
        return;
    }
    if (trace_path == NULL || strcmp(trace_path, "-") == 0)
        return;                  /* --teach alone or --trace -: it went to stdout; no file */
    const char *kept = trace_path;
    char *moved = NULL;
    if (g_str_has_prefix(trace_path, stage)) {
        char *base = g_path_get_basename(trace_path);
        /* with the VCD's filters and .gtkw, whose references follow the new name; a name that
         * is taken gets this process's id (trace_rename never replaces a file) */
        for (int attempt = 0; attempt < 2 && kept == trace_path; attempt++) {
            g_free(moved);
            moved = attempt == 0 ? g_strdup_printf("%s.deadlock-%s", out, base)
                                 : g_strdup_printf("%s.deadlock-%d-%s", out, (int)getpid(), base);
            if (trace_rename(trace_path, moved, NULL))
                kept = moved;
        }
        g_free(base);
    }
    fprintf(stderr, "archsim run: the trace dump up to the deadlock is kept in %s\n", kept);
    g_free(moved);
}

static char *default_out_dir(const char *config)
{
    char *base = g_path_get_basename(config);
    char *dot = strrchr(base, '.');
    if (dot && dot != base)
        *dot = '\0';
    char *dir = NULL;
    for (int i = 1;; i++) {
        dir = g_strdup_printf("runs/%s-%d", base, i);
        if (!g_file_test(dir, G_FILE_TEST_EXISTS))
            break;
        g_free(dir);
    }
    g_free(base);
    return dir;
}

static void json_str(GString *o, const char *s)
{
    g_string_append_c(o, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            g_string_append_printf(o, "\\%c", *p);
        else if (*p < 0x20)
            g_string_append_printf(o, "\\u%04x", *p);
        else
            g_string_append_c(o, (char)*p);
    }
    g_string_append_c(o, '"');
}

/* The dump's size advice (docs/trace-dumps.md), named by the --trace the user gave. */
static void trace_warn(const char *message, void *ctx)
{
    fprintf(stderr, "archsim run: warning: --trace %s: %s\n", (const char *)ctx, message);
}

/* The run directory's own files: a relative --trace must not take one of their names. */
static const char *const run_files[] = {
    "config.resolved.yaml", "stats.txt", "stats.json", "stats.csv", "run.json",
    OUTFILE_RESERVATION, NULL,
};

/* A relative --trace names a file inside the run directory: it must stay inside (no "..")
 * and must not be one of the run's own files. */
static bool check_trace_path(const char *trace, bool teach, GError **error)
{
    if (strcmp(trace, "-") == 0) {
        if (teach) {
            g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE,
                        "archsim run: --trace - and --teach both write to stdout; give --trace "
                        "a FILE");
            return false;
        }
        return true;
    }
    if (g_path_is_absolute(trace))
        return true;
    char **parts = g_strsplit(trace, "/", -1);
    bool up = false;
    for (char **p = parts; *p; p++)
        up = up || strcmp(*p, "..") == 0;
    g_strfreev(parts);
    if (up || !*trace) {
        g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE,
                    "archsim run: --trace %s: a relative path lands inside the run directory and "
                    "must stay there (no '..'); give an absolute path to write elsewhere", trace);
        return false;
    }
    const char *name = trace;
    while (g_str_has_prefix(name, "./"))
        name += 2;
    for (int i = 0; run_files[i]; i++)
        if (strcmp(name, run_files[i]) == 0) {
            g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE,
                        "archsim run: --trace %s: that is the name of one of the run directory's "
                        "own files; choose another name", trace);
            return false;
        }
    return true;
}

static bool build_trace_options(const RunOpts *o, const char *stage, TraceOptions *to,
                                char **path_out, GError **error)
{
    memset(to, 0, sizeof *to);
    to->warn = trace_warn;
    to->warn_ctx = o->trace;
    to->end = UINT64_MAX;
    to->format = TRACE_FMT_TEXT;
    char *problem = NULL;
    /* without --trace (--teach alone) only the window and the address range are used */
    if (o->trace && !o->trace_format)
        trace_format_guess(o->trace, &to->format);   /* by suffix; text when unknown */
    else if (o->trace && !trace_format_parse(o->trace_format, &to->format)) {
        g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE,
                    "archsim run: --trace-format: '%s' is not one of text, jsonl, perfetto, vcd",
                    o->trace_format);
        return false;
    }
    const char *opt = "--trace-window";
    if (o->trace_window && !trace_window_parse(o->trace_window, &to->start, &to->end, &problem))
        goto bad;
    opt = "--trace-addr";
    if (o->trace_addr) {
        to->addr_filter = true;
        if (!trace_addr_range_parse(o->trace_addr, &to->addr_lo, &to->addr_hi, &problem))
            goto bad;
    }
    if (o->trace_components)
        to->components = g_strsplit(o->trace_components, ",", -1);
    to->max_events = o->trace_max > 0 ? (uint64_t)o->trace_max : 0;
    to->force = o->force;
    /* a relative dump path lands inside the run directory, so a run stays self-contained;
     * "-" is stdout */
    if (o->trace) {
        if (strcmp(o->trace, "-") == 0 || g_path_is_absolute(o->trace))
            *path_out = g_strdup(o->trace);
        else
            *path_out = g_build_filename(stage, o->trace, NULL);
        to->path = *path_out;
    }
    return true;
bad:
    g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE, "archsim run: %s: %s", opt, problem);
    g_free(problem);
    return false;
}

/* The summary goes to F: stdout, or stderr when the dump itself goes to stdout (--trace -).
 * TRACE is where --trace landed (NULL: no dump). */
static void print_summary(FILE *f, const char *config, const StatSet *st, uint64_t seed,
                          double host, const char *dir, const char *trace)
{
    const StatEntry *cyc = stats_find(st, "sim.cycles");
    fprintf(f, "archsim: %s (seed %" G_GUINT64_FORMAT "): %" G_GUINT64_FORMAT
            " cycles simulated in %.2f s host\n",
            config, seed, cyc ? cyc->u : 0, host);
    static const char *const keys[] = { ".insts", ".ipc", ".amat", ".miss_rate", NULL };
    for (guint i = 0; i < st->entries->len; i++) {
        const StatEntry *e = &g_array_index(st->entries, StatEntry, i);
        for (int k = 0; keys[k]; k++)
            if (g_str_has_suffix(e->name, keys[k]) && !g_str_has_prefix(e->name, "sim.")) {
                if (e->is_int)
                    fprintf(f, "  %-22s %" G_GUINT64_FORMAT "\n", e->name, e->u);
                else
                    fprintf(f, "  %-22s %.4f\n", e->name, e->d);
            }
    }
    fprintf(f, "results: %s/ (stats.txt, stats.json, stats.csv, config.resolved.yaml, run.json)",
            dir);
    if (trace && strcmp(trace, "-") == 0)
        fprintf(f, "; trace dump: stdout");
    else if (trace && g_path_is_absolute(trace))
        fprintf(f, "; trace dump: %s", trace);
    else if (trace) {
        const char *name = trace;
        while (g_str_has_prefix(name, "./"))
            name += 2;
        fprintf(f, "; trace dump: %s/%s", dir, name);
    }
    fputc('\n', f);
}

static int cmd_run(int argc, char **argv)
{
    RunOpts o = { .seed = -1 };
    GOptionEntry entries[] = {
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o.out,
          "run directory (default runs/CONFIGNAME-N, a new one each run)", "DIR" },
        { "seed", 0, 0, G_OPTION_ARG_STRING, &o.seed_text, "PRNG seed (overrides sim.seed)", "N" },
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &o.sets,
          "override a config value, e.g. --set l1d.size=64KiB (repeatable)", "KEY=VALUE" },
        { "force", 'f', 0, G_OPTION_ARG_NONE, &o.force,
          "replace an existing run directory (one holding run.json) and an existing archsim "
          "trace dump at an absolute --trace path", NULL },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet, "no progress bar or heartbeat", NULL },
        { "trace", 't', 0, G_OPTION_ARG_FILENAME, &o.trace,
          "per-cycle event dump; relative paths go inside the run directory; - is stdout; "
          ".gz compresses", "FILE" },
        { "trace-format", 0, 0, G_OPTION_ARG_STRING, &o.trace_format,
          "text, jsonl, perfetto or vcd (default: from the suffix: .txt .jsonl .json .vcd)", "FMT" },
        { "trace-window", 0, 0, G_OPTION_ARG_STRING, &o.trace_window,
          "only cycles A..B (either end may be empty)", "A:B" },
        { "trace-components", 0, 0, G_OPTION_ARG_STRING, &o.trace_components,
          "only these components (comma-separated globs on the names stats.txt shows, e.g. l1d,l2; a glob matching none is an error)", "GLOBS" },
        { "trace-addr", 0, 0, G_OPTION_ARG_STRING, &o.trace_addr,
          "only events whose address is in LO:HI (or one address)", "LO:HI" },
        { "trace-max-events", 0, 0, G_OPTION_ARG_INT64, &o.trace_max,
          "stop dumping after N events (the dump says it was cut)", "N" },
        { "teach", 0, 0, G_OPTION_ARG_NONE, &o.teach,
          "print a table to stdout: per core access the bus transaction, who supplied the data "
          "and every cache's state of the line (--trace-window and --trace-addr narrow it)",
          NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GOptionContext *ctx = g_option_context_new("CONFIG - simulate a YAML config");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_description(ctx,
        "Writes config.resolved.yaml, stats.txt, stats.json, stats.csv and run.json into a new\n"
        "run directory; an existing one is never replaced without --force. A failed run leaves\n"
        "no run directory behind; one left by a killed run (its process gone) is replaced, with\n"
        "a note. An existing --trace file is replaced only with --force and only when it is an\n"
        "archsim dump; devices, FIFOs and symbolic links are never written (--trace - writes\n"
        "the dump to stdout, and the summary then goes to stderr). SIGINT, SIGTERM and SIGHUP\n"
        "stop the run and remove what it wrote (exit 130).\n");
    GError *e = NULL;
    int rc = 0;
    char *stage = NULL, *trace_path = NULL, *out = NULL;
    TraceOptions to;
    memset(&to, 0, sizeof to);
    TraceDump *td = NULL;
    SystemRun *run = NULL;
    GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
    /* run.json records the whole command line, program name included */
    bool reserved = false;
    /* from here on, Ctrl-C stops the run cleanly (see heartbeat) */
    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    char **argv_copy = g_new0(char *, argc + 2);
    argv_copy[0] = g_strdup("archsim");
    for (int i = 0; i < argc; i++)
        argv_copy[i + 1] = g_strdup(argv[i]);
    if (!g_option_context_parse(ctx, &argc, &argv, &e)) {
        rc = usage_error("run", e->message);
        g_clear_error(&e);
        goto out;
    }
    if (argc != 2) {
        rc = usage_error("run", argc < 2 ? "missing CONFIG" : "exactly one CONFIG expected");
        goto out;
    }
    if (o.seed_text) {
        guint64 v;
        if (!g_ascii_string_to_unsigned(o.seed_text, 10, 0, G_MAXINT64, &v, NULL)) {
            rc = usage_error("run", "--seed: expected a non-negative integer");
            goto out;
        }
        o.seed = (gint64)v;
    }
    if (o.trace && !check_trace_path(o.trace, o.teach, &e)) {
        rc = fail(e);
        goto out;
    }
    const char *config = argv[1];
    CfgNode *root = cfg_load_file(config, files, &e);
    if (!root) {
        rc = fail(e);
        goto out;
    }
    for (char **s = o.sets; s && *s; s++) {
        if (!cfg_apply_set(root, *s, &e)) {
            cfg_node_free(root);
            rc = fail(e);
            goto out;
        }
    }
    out = o.out ? g_strdup(o.out) : default_out_dir(config);
    /* "runs/x/" and "runs/x/." name runs/x: the staging directory must sit beside it */
    for (size_t n = strlen(out); n > 1;) {
        if (out[n - 1] == '/')
            out[--n] = '\0';
        else if (n > 2 && out[n - 1] == '.' && out[n - 2] == '/')
            out[n -= 2] = '\0';
        else
            break;
    }
    if (g_file_test(out, G_FILE_TEST_IS_SYMLINK)) {
        cfg_node_free(root);
        fprintf(stderr, "%s: is a symbolic link; give the run directory itself\n", out);
        rc = ARCHSIM_EXIT_CANTCREAT;
        goto out;
    }
    pid_t stale_pid = 0;
    if (g_file_test(out, G_FILE_TEST_IS_DIR) && outfile_reservation_stale(out, &stale_pid)) {
        /* reserved by a run that was killed or crashed: nobody will finish it */
        fprintf(stderr, "archsim run: %s: replacing the reservation left by process %d, which "
                "is no longer running\n", out, (int)stale_pid);
        remove_stale_stages(out);
        outfile_unreserve(out);
    }
    pid_t owner = 0;
    if (g_file_test(out, G_FILE_TEST_IS_DIR) && outfile_reservation_pid(out, &owner)) {
        cfg_node_free(root);
        fprintf(stderr, "%s: reserved by a run still in progress (process %d); wait for it, or "
                "-o another\n", out, (int)owner);
        rc = ARCHSIM_EXIT_CANTCREAT;
        goto out;
    }
    if (g_file_test(out, G_FILE_TEST_EXISTS)) {
        char *marker = g_build_filename(out, "run.json", NULL);
        bool is_run = g_file_test(marker, G_FILE_TEST_EXISTS);
        g_free(marker);
        if (!o.force) {
            cfg_node_free(root);
            fprintf(stderr, "%s: run directory exists; use --force to replace it, or -o another\n",
                    out);
            rc = ARCHSIM_EXIT_CANTCREAT;
            goto out;
        }
        if (!is_run || !g_file_test(out, G_FILE_TEST_IS_DIR)) {
            cfg_node_free(root);
            fprintf(stderr, "%s: exists and is not an archsim run directory; not replacing it\n",
                    out);
            rc = ARCHSIM_EXIT_CANTCREAT;
            goto out;
        }
    }
    /* Everything is written into a staging directory renamed into place at the end, so a failed
     * run never leaves a directory that looks complete. */
    char *parent = g_path_get_dirname(out);
    if (g_mkdir_with_parents(parent, 0777) != 0) {
        fprintf(stderr, "%s: cannot create: %s\n", parent, g_strerror(errno));
        g_free(parent);
        cfg_node_free(root);
        rc = ARCHSIM_EXIT_CANTCREAT;
        goto out;
    }
    g_free(parent);
    /* Reserve the name now: a second run started meanwhile fails here instead of having its
     * results replaced at the end (mkdir is atomic). */
    if (!g_file_test(out, G_FILE_TEST_EXISTS)) {
        if (g_mkdir(out, 0777) != 0) {
            fprintf(stderr, "%s: %s\n", out,
                    errno == EEXIST ? "run directory exists; use --force to replace it, or -o another"
                                    : g_strerror(errno));
            cfg_node_free(root);
            rc = ARCHSIM_EXIT_CANTCREAT;
            goto out;
        }
        reserved = true;
        /* who reserved it, so that a reservation left by a killed run is recognised */
        if (!outfile_reserve(out, &e)) {
            cfg_node_free(root);
            rc = fail(e);
            goto out;
        }
    }
    remove_stale_stages(out);
    stage = g_strdup_printf("%s.part-%d", out, (int)getpid());
    if (g_mkdir(stage, 0777) != 0) {
        fprintf(stderr, "%s: cannot create: %s\n", stage, g_strerror(errno));
        g_clear_pointer(&stage, g_free);
        cfg_node_free(root);
        rc = ARCHSIM_EXIT_CANTCREAT;
        goto out;
    }
    if (o.trace || o.teach) {
        if (!build_trace_options(&o, stage, &to, &trace_path, &e) ||
            (o.trace && !(td = trace_open(&to, &e)))) {
            cfg_node_free(root);
            rc = fail(e);
            goto out;
        }
    }
    if (o.teach) {
        /* the teaching table reads the same stream, on stdout; it needs every component */
        TraceOptions tt = to;
        tt.format = TRACE_FMT_TEACH;
        tt.path = "-";
        tt.components = NULL;
        tt.max_events = 0;
        TraceDump *teach = trace_open(&tt, &e);
        if (!teach) {
            cfg_node_free(root);
            rc = fail(e);
            goto out;
        }
        td = td ? trace_tee(td, teach) : teach;
    }
    run = system_build(root, o.seed, td, &to, &e);
    if (!run) {
        rc = fail(e);
        goto out;
    }
    if (td && !trace_check_components(td, &e)) {    /* every component has registered now */
        g_prefix_error(&e, "archsim run: ");
        rc = fail(e);
        goto out;
    }
    if (interrupted) {
        fprintf(stderr, "archsim run: interrupted by signal %d; no results written\n",
                (int)interrupted);
        rc = ARCHSIM_EXIT_INTERRUPTED;
        goto out;
    }
    Heartbeat hb = { .t0 = g_get_monotonic_time(), .tty = isatty(STDERR_FILENO), .quiet = o.quiet,
                     .clk = &run->sim.sys_clk, .sim = &run->sim };
    hb.last = hb.t0;
    run->sim.eng.heartbeat = heartbeat;
    run->sim.eng.heartbeat_ctx = &hb;
    bool ok = system_run(run, &e);
    double host = (double)(g_get_monotonic_time() - hb.t0) / 1e6;
    if (hb.tty && !o.quiet)
        fprintf(stderr, "\r\033[K");
    if (!ok) {
        rc = fail(e);
        if (rc == ARCHSIM_EXIT_CHECK && td)
            keep_deadlock_trace(&td, trace_path, stage, out);
        goto out;
    }
    if (td) {
        TraceDump *t = td;
        td = NULL;
        if (!trace_close(t, &e)) {
            rc = fail(e);
            goto out;
        }
    }
    /* outputs */
    StatSet st;
    stats_init(&st);
    system_collect_stats(run, &st);
    GString *buf = g_string_new(NULL);
    g_string_append_printf(buf,
                           "# archsim %s (git %s): resolved configuration of %s\n"
                           "# every parameter with its value, defaults included; "
                           "`archsim run` accepts this file as it is\n",
                           ARCHSIM_VERSION, ARCHSIM_GIT, config);
    system_emit_resolved(run, buf);
    struct { const char *name; void (*fmt)(const StatSet *, GString *); } outs[] = {
        { "stats.txt", stats_format_txt }, { "stats.json", stats_format_json },
        { "stats.csv", stats_format_csv },
    };
    char *p = g_build_filename(stage, "config.resolved.yaml", NULL);
    ok = outfile_write(p, buf->str, buf->len, false, NULL, &e);
    g_free(p);
    for (size_t i = 0; ok && i < G_N_ELEMENTS(outs); i++) {
        g_string_truncate(buf, 0);
        outs[i].fmt(&st, buf);
        p = g_build_filename(stage, outs[i].name, NULL);
        ok = outfile_write(p, buf->str, buf->len, false, NULL, &e);
        g_free(p);
    }
    /* the models' own output files (e.g. the TPU's reports) */
    for (guint i = 0; ok && i < run->sim.components->len; i++) {
        Component *c = g_ptr_array_index(run->sim.components, i);
        if (c->cls->write_outputs)
            ok = c->cls->write_outputs(c, stage, &e);
    }
    if (ok) {
        const StatEntry *cyc = stats_find(&st, "sim.cycles");
        g_string_truncate(buf, 0);
        g_string_append(buf, "{\n  \"argv\": [");
        for (int i = 0; argv_copy[i]; i++) {
            if (i)
                g_string_append(buf, ", ");
            json_str(buf, argv_copy[i]);
        }
        g_string_append(buf, "],\n  \"version\": ");
        json_str(buf, ARCHSIM_VERSION);
        g_string_append(buf, ",\n  \"git\": ");
        json_str(buf, ARCHSIM_GIT);
        g_string_append(buf, ",\n  \"config\": ");
        json_str(buf, config);
        g_string_append(buf, ",\n  \"config_files\": [");
        for (guint i = 0; i < files->len; i++) {
            if (i)
                g_string_append(buf, ", ");
            json_str(buf, g_ptr_array_index(files, i));
        }
        g_string_append_printf(buf,
                               "],\n  \"seed\": %" G_GUINT64_FORMAT ",\n  \"host_seconds\": %.3f,\n"
                               "  \"sim_cycles\": %" G_GUINT64_FORMAT ",\n"
                               "  \"sim_cycles_per_host_second\": %.0f,\n"
                               "  \"events\": %" G_GUINT64_FORMAT ",\n"
                               "  \"events_per_host_second\": %.0f,\n  \"trace_dump\": ",
                               run->sim.seed, host, cyc->u, host > 0 ? (double)cyc->u / host : 0,
                               run->sim.eng.events,
                               host > 0 ? (double)run->sim.eng.events / host : 0);
        if (o.trace)
            json_str(buf, o.trace);
        else
            g_string_append(buf, "null");
        g_string_append(buf, "\n}\n");
        p = g_build_filename(stage, "run.json", NULL);
        ok = outfile_write(p, buf->str, buf->len, false, NULL, &e);
        g_free(p);
    }
    g_string_free(buf, TRUE);
    if (ok) {
        if (reserved)
            outfile_unreserve(out);   /* our own placeholder */
        else
            remove_tree(out);    /* only reached with --force on a run directory */
        reserved = false;
        if (!outfile_rename_noreplace(stage, out)) {
            g_set_error(&e, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT, "%s: cannot rename to %s: %s",
                        stage, out, g_strerror(errno));
            ok = false;
        } else {
            g_clear_pointer(&stage, g_free);
        }
    }
    if (!ok) {
        stats_clear(&st);
        rc = fail(e);
        goto out;
    }
    print_summary(o.trace && strcmp(o.trace, "-") == 0 ? stderr : stdout, config, &st,
                  run->sim.seed, host, out, o.trace);
    stats_clear(&st);
out:
    if (td)
        trace_abort(td);
    if (reserved)
        outfile_unreserve(out);  /* the placeholder of a run that failed */
    if (stage) {
        remove_tree(stage);
        g_free(stage);
    }
    system_free(run);
    g_strfreev(to.components);
    g_free(trace_path);
    g_free(out);
    g_ptr_array_free(files, TRUE);
    g_strfreev(argv_copy);
    g_free(o.out);
    g_free(o.seed_text);
    g_strfreev(o.sets);
    g_free(o.trace);
    g_free(o.trace_format);
    g_free(o.trace_window);
    g_free(o.trace_components);
    g_free(o.trace_addr);
    g_option_context_free(ctx);
    return rc;
}

/* ---- validate / describe ------------------------------------------------------------- */

static int cmd_validate(int argc, char **argv)
{
    gchar **sets = NULL;
    GOptionEntry entries[] = {
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "apply overrides before checking",
          "KEY=VALUE" },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GOptionContext *ctx = g_option_context_new("FILE... - check configs without running them");
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_description(ctx,
        "Checks every key, type, unit and range, builds the machine and opens its inputs.\n"
        "Prints 'FILE: ok' per good file; exits with the first failure's code.\n");
    GError *e = NULL;
    int rc = 0;
    if (!g_option_context_parse(ctx, &argc, &argv, &e)) {
        rc = usage_error("validate", e->message);
        g_clear_error(&e);
    } else if (argc < 2) {
        rc = usage_error("validate", "missing FILE");
    } else {
        for (int i = 1; i < argc; i++) {
            CfgNode *root = cfg_load_file(argv[i], NULL, &e);
            for (char **s = sets; root && s && *s; s++)
                if (!cfg_apply_set(root, *s, &e))
                    g_clear_pointer(&root, cfg_node_free);
            SystemRun *run = root ? system_build(root, -1, NULL, NULL, &e) : NULL;
            if (!run) {
                int code = fail(e);
                e = NULL;
                if (rc == 0)
                    rc = code;
                continue;
            }
            system_free(run);
            printf("%s: ok\n", argv[i]);
        }
    }
    g_strfreev(sets);
    g_option_context_free(ctx);
    return rc;
}

static int cmd_describe(int argc, char **argv)
{
    GOptionContext *ctx = g_option_context_new("[TYPE] - parameters, ports and stats of a class");
    GError *e = NULL;
    int rc = 0;
    if (!g_option_context_parse(ctx, &argc, &argv, &e)) {
        rc = usage_error("describe", e->message);
        g_clear_error(&e);
    } else if (argc > 2) {
        rc = usage_error("describe", "at most one TYPE");
    } else {
        GString *out = g_string_new(NULL);
        if (system_describe(argc == 2 ? argv[1] : NULL, out)) {
            fputs(out->str, stdout);
        } else {
            const char *names[128];
            size_t n = 0;
            names[n++] = "sim";
            for (int i = 0; archsim_system_classes[i] && n < 128; i++)
                names[n++] = archsim_system_classes[i]->name;
            for (int i = 0; archsim_component_classes[i] && n < 128; i++)
                names[n++] = archsim_component_classes[i]->name;
            const char *hint = param_suggest(argv[1], names, n);
            fprintf(stderr, "archsim describe: unknown type '%s'%s%s%s; `archsim describe` lists them\n",
                    argv[1], hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
            rc = ARCHSIM_EXIT_USAGE;
        }
        g_string_free(out, TRUE);
    }
    g_option_context_free(ctx);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return ARCHSIM_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        print_usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("archsim %s (git %s)\n", ARCHSIM_VERSION, ARCHSIM_GIT);
        return 0;
    }
    if (!strcmp(cmd, "run"))
        return cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "sweep"))
        return sweep_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "validate"))
        return cmd_validate(argc - 1, argv + 1);
    if (!strcmp(cmd, "describe"))
        return cmd_describe(argc - 1, argv + 1);
    for (const CliCommand *c = archsim_model_commands; c->name; c++)
        if (!strcmp(cmd, c->name))
            return c->main(argc - 1, argv + 1);
    const char *names[64] = { "run", "sweep", "validate", "describe", "help" };
    size_t n = 5;
    for (const CliCommand *c = archsim_model_commands; c->name && n < 64; c++)
        names[n++] = c->name;
    const char *hint = param_suggest(cmd, names, n);
    fprintf(stderr, "archsim: unknown command '%s'%s%s%s\nTry 'archsim --help'.\n", cmd,
            hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
    return ARCHSIM_EXIT_USAGE;
}
