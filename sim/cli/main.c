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

#include "cli.h"
#include "diff.h"
#include "../hostmem.h"
#include "../error.h"
#include "../graph.h"
#include "../input.h"
#include "../json.h"
#include "../outfile.h"
#include "../registry.h"
#include "sweep.h"
#include "teach.h"
#include "../system.h"
#include "validate.h"
#include "../version.h"

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
    "  validate FILE...  check configs, sweep files (every point) and parts without running\n"
    "  describe [TYPE]   list systems and component classes, or one TYPE's parameters,\n"
    "                    ports and statistics\n"
    "  diff A B [--stats GLOBS] [--threshold PCT] [--all] [--format text|csv|json]\n"
    "                    the stats that differ between two runs, largest relative change\n"
    "                    first; exit 0 identical, 1 they differ\n"
    "%s"
    "  help [COMMAND]    this text, or COMMAND's options (as archsim COMMAND --help)\n"
    "\n"
    "Options: --help (-h) and --version. `archsim COMMAND --help` (or `archsim help COMMAND`)\n"
    "shows a command's options.\n"
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
    "Input files: a relative CONFIG, trace or other input named on the command line is read\n"
    "from the current directory, else from the data directory (installed: PREFIX/share/archsim;\n"
    "$ARCHSIM_DATA overrides), so the examples run from anywhere. Run directories are made in\n"
    "the current directory; paths inside a config are relative to that config.\n"
    "\n"
    "Exit status:\n"
    "  0   success\n"
    "  1   archsim diff: the runs' stats differ (like diff(1) and cmp(1))\n"
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
    return cli_usage_error(cmd, "%s", msg);
}

/* ---- run ------------------------------------------------------------------------------- */

typedef struct {
    char *out;
    char *seed_text;
    char **sets;
    gboolean force, quiet;
    char *trace, *trace_format, *trace_window, *trace_components, *trace_addr;
    gint64 trace_max;
    gboolean teach;
    char *graph;
    char *warmup, *stats_every;
    gboolean roi;
    gboolean strict;
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

/* A signal that came between heartbeats (before the run, after its last event, while the dump
 * or the outputs were written): the dump this run already put in place outside its staging
 * directory (an absolute --trace FILE, committed by its close; NULL: none yet) is removed with
 * the rest, which the caller's cleanup removes. Returns 130. */
static int run_interrupted(const char *dump, const char *stage)
{
    if (dump && stage && strcmp(dump, "-") != 0 && !g_str_has_prefix(dump, stage))
        trace_remove(dump);
    fprintf(stderr, "archsim run: interrupted by signal %d; no results written\n",
            (int)interrupted);
    return ARCHSIM_EXIT_INTERRUPTED;
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
            outfile_remove_tree(p);
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
    /* beside the run directory, or (an absolute FILE) beside FILE as deadlock-FILE: a file
     * called FILE is always a complete run's (docs/trace-dumps.md) */
    bool staged = g_str_has_prefix(trace_path, stage);
    char *base = g_path_get_basename(trace_path), *dir = g_path_get_dirname(trace_path);
    /* with the VCD's filters and .gtkw, whose references follow the new name; a name that is
     * taken gets this process's id (trace_rename never replaces a file) */
    for (int attempt = 0; attempt < 2 && kept == trace_path; attempt++) {
        g_free(moved);
        char *pid = attempt ? g_strdup_printf("%d-", (int)getpid()) : g_strdup("");
        moved = staged ? g_strdup_printf("%s.deadlock-%s%s", out, pid, base)
                       : g_strdup_printf("%s/deadlock-%s%s", dir, pid, base);
        g_free(pid);
        if (trace_rename(trace_path, moved, NULL))
            kept = moved;
    }
    g_free(base);
    g_free(dir);
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

/* The dump's size advice (docs/trace-dumps.md), named by the --trace the user gave. */
static void trace_warn(const char *message, void *ctx)
{
    fprintf(stderr, "archsim run: warning: --trace %s: %s\n", (const char *)ctx, message);
}

/* The run directory's own files: a relative --trace must not take one of their names. */
static const char *const run_files[] = {
    "config.resolved.yaml", "stats.txt", "stats.json", "stats.csv", "run.json", "stats.jsonl",
    OUTFILE_RESERVATION, NULL,
};

/* A relative --trace as a path inside the run directory: "." and empty segments dropped
 * (".//stats.json" is stats.json); an absolute one as it is. */
static char *trace_run_name(const char *trace)
{
    if (g_path_is_absolute(trace))
        return g_strdup(trace);
    char **parts = g_strsplit(trace, "/", -1);
    GString *o = g_string_new(NULL);
    for (char **p = parts; *p; p++)
        if (**p && strcmp(*p, ".") != 0)
            g_string_append_printf(o, "%s%s", o->len ? "/" : "", *p);
    g_strfreev(parts);
    return g_string_free(o, FALSE);
}

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
    char *norm = trace_run_name(trace);
    bool own = false;
    for (int i = 0; run_files[i]; i++)
        own |= strcmp(norm, run_files[i]) == 0;
    g_free(norm);
    if (own) {
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
 * TRACE is where --trace landed (NULL: no dump); EPOCHS: stats.jsonl was written; GRAPH: the
 * --graph file in the run directory, or NULL. */
static void print_summary(FILE *f, const char *config, const StatSet *st, uint64_t seed,
                          double host, const char *dir, const char *trace, bool epochs,
                          const char *graph)
{
    const StatEntry *cyc = stats_find(st, "sim.cycles");
    fprintf(f, "archsim: %s (seed %" G_GUINT64_FORMAT "): %" G_GUINT64_FORMAT
            " cycles simulated in %.2f s host\n",
            config, seed, cyc ? cyc->u : 0, host);
    static const char *const keys[] = { ".insts", ".ipc", ".amat", ".miss_rate", ".gpu_sim_cycle",
                                        ".gpu_ipc", NULL };
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
    fprintf(f, "results: %s/ (stats.txt, stats.json, stats.csv, config.resolved.yaml, run.json%s%s%s)",
            dir, epochs ? ", stats.jsonl" : "", graph ? ", " : "", graph ? graph : "");
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

static const CliHelp run_help = {
    .cmd = "run",
    .usage = "archsim run CONFIG [OPTIONS]",
    .summary = "Simulate the machine and workload of a YAML config; the results go to a new run "
               "directory.",
    .details =
        "Writes config.resolved.yaml, stats.txt, stats.json, stats.csv and run.json into a new\n"
        "run directory (and stats.jsonl with --stats-every; --warmup, --roi and the epochs:\n"
        "docs/outputs.md); an existing one is never replaced without --force. A failed run leaves\n"
        "no run directory behind; one left by a killed run (its process gone) is replaced, with\n"
        "a note. An existing --trace file is replaced only with --force and only when it is an\n"
        "archsim dump; devices, FIFOs and symbolic links are never written (--trace - writes\n"
        "the dump to stdout, and the summary then goes to stderr). SIGINT, SIGTERM and SIGHUP\n"
        "stop the run and remove what it wrote (exit 130).\n"
        "\n"
        "Examples:\n"
        "  archsim run configs/default.yaml\n"
        "  archsim run configs/default.yaml --set l1d.size=64KiB --seed 7 -o runs/l1d64k\n"
        "  archsim run configs/default.yaml --trace trace.txt --trace-window 1000:2000\n"
        "  archsim run configs/teach/msi.yaml --teach\n"
        "\n"
        "Exit status: 0 success, 3 a checker failed (deadlock watchdog, invariant), 64 bad\n"
        "command line, 65 bad trace, 66 an input file is missing, 73 the run directory exists or\n"
        "cannot be made, 74 I/O error, 78 bad configuration, 130 interrupted; see archsim --help.\n",
};

static int cmd_run(int argc, char **argv)
{
    RunOpts o = { .trace_max = G_MININT64 };     /* G_MININT64: not given */
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
        { "warmup", 0, 0, G_OPTION_ARG_STRING, &o.warmup,
          "reset every statistic after N instructions (N or N:insts), N:refs memory references "
          "or N:cycles system cycles, all cores together; same as --set sim.warmup=N",
          "N[:UNIT]" },
        { "stats-every", 0, 0, G_OPTION_ARG_STRING, &o.stats_every,
          "append one line of per-epoch stat deltas to stats.jsonl every N system cycles; "
          "same as --set sim.stats_every=N", "N" },
        { "roi", 0, 0, G_OPTION_ARG_NONE, &o.roi,
          "a trace's ROI markers reset the stats (first begin) and freeze them (when every "
          "begin has its end); "
          "same as --set sim.roi_markers=true", NULL },
        { "strict", 0, 0, G_OPTION_ARG_NONE, &o.strict,
          "what a model would warn about and go on past is an error (exit 65): an opcode "
          "missing from a GPU trace's SASS table (as workload.strict: true)", NULL },
        { "graph", 0, 0, G_OPTION_ARG_FILENAME, &o.graph,
          "also write the machine as a Graphviz digraph NAME (a file name such as machine.dot) "
          "into the run directory; dot -Tsvg renders it", "NAME" },
        { "teach", 0, 0, G_OPTION_ARG_NONE, &o.teach,
          "print a table to stdout: per core access the bus transaction, who supplied the data "
          "and every cache's state of the line (--trace-window and --trace-addr narrow it)",
          NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GError *e = NULL;
    int rc = 0;
    char *stage = NULL, *trace_path = NULL, *out = NULL, *config = NULL;
    TraceOptions to;
    memset(&to, 0, sizeof to);
    TraceDump *td = NULL;
    TraceTeach *teach_state = NULL;     /* --teach: the table being built */
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
    /* a reader that goes away (`| head`) makes the next write fail with EPIPE, exit 74 with
     * the run directory removed, instead of killing the run half-written */
    signal(SIGPIPE, SIG_IGN);
    char **argv_copy = g_new0(char *, argc + 2);
    argv_copy[0] = g_strdup("archsim");
    for (int i = 0; i < argc; i++)
        argv_copy[i + 1] = g_strdup(argv[i]);
    rc = cli_parse(&run_help, entries, &argc, &argv);
    if (rc >= 0)
        goto out;
    rc = 0;
    if (argc != 2) {
        rc = usage_error("run", argc < 2 ? "missing CONFIG" : "exactly one CONFIG expected");
        goto out;
    }
    if (!*argv[1]) {
        rc = usage_error("run", "empty CONFIG");
        goto out;
    }
    uint64_t seed_value = 0;
    if (o.seed_text && !sim_parse_seed(o.seed_text, &seed_value)) {
        /* the values sim.seed takes (docs/config.md: --seed N is --set sim.seed=N) */
        rc = usage_error("run", "--seed: expected a non-negative integer");
        goto out;
    }
    if (o.trace && !check_trace_path(o.trace, o.teach, &e)) {
        rc = fail(e);
        goto out;
    }
    if (o.trace_max != G_MININT64 && o.trace_max < 1) {
        /* 0 and negatives meant "no limit", which leaving the option out already says */
        rc = usage_error("run", "--trace-max-events: expected a number of events from 1");
        goto out;
    }
    if (!o.trace && (o.trace_format || o.trace_components || o.trace_max != G_MININT64)) {
        /* they were ignored without a word (--teach reads every component, in full) */
        rc = usage_error("run", "--trace-format, --trace-components and --trace-max-events "
                         "shape a dump: give --trace FILE");
        goto out;
    }
    if (!o.trace && !o.teach && (o.trace_window || o.trace_addr)) {
        rc = usage_error("run", "--trace-window and --trace-addr choose what a dump or the "
                         "teaching table shows: give --trace FILE or --teach");
        goto out;
    }
    /* --warmup and --stats-every are --set sim.KEY=VALUE, checked here as usage */
    char *roi_sets[4] = { NULL, NULL, NULL, NULL };
    int nroi = 0;
    if (o.warmup) {
        uint64_t n;
        SimWarmUnit u;
        char *problem = NULL;
        if (!sim_warmup_parse(o.warmup, &n, &u, &problem)) {
            char *msg = g_strdup_printf("--warmup: %s", problem);
            rc = usage_error("run", msg);
            g_free(msg), g_free(problem);
            goto out;
        }
        roi_sets[nroi++] = g_strdup_printf("sim.warmup=%s", o.warmup);
    }
    if (o.graph) {
        bool own = false;
        for (int i = 0; run_files[i]; i++)
            own |= strcmp(o.graph, run_files[i]) == 0;
        /* the --trace file, or (a VCD) a file it writes beside it: FILE.gtkw, FILE*.filter */
        char *tname = o.trace ? trace_run_name(o.trace) : NULL;
        bool traced = tname && (!strcmp(o.graph, tname) ||
                                (g_str_has_prefix(o.graph, tname) && o.graph[strlen(tname)] == '.' &&
                                 (g_str_has_suffix(o.graph, ".filter") ||
                                  !strcmp(o.graph + strlen(tname), ".gtkw"))));
        g_free(tname);
        if (strchr(o.graph, '/') || !strcmp(o.graph, ".") || !strcmp(o.graph, "..") || own ||
            traced) {
            char *msg = g_strdup_printf("--graph '%s': expected a file name for the run "
                                        "directory (no '/'), not one of its own files nor the "
                                        "--trace file", o.graph);
            rc = usage_error("run", msg);
            g_free(msg);
            goto out;
        }
    }
    if (o.stats_every) {
        uint64_t n;
        char *problem = NULL;
        const ParamSpec *spec = NULL;
        for (const ParamSpec *p = sim_param_specs; p->name; p++)
            if (strcmp(p->name, "stats_every") == 0)
                spec = p;
        ParamSpec one = *spec;
        one.offset = 0;
        /* the syntax only: a time ("10us") becomes cycles by sim.clock when the config takes
         * it, so any clock that makes a positive time at least one cycle will do here */
        if (!param_parse_value_clocked(&one, o.stats_every, NULL, UINT64_C(1000000000000000),
                                       &n, &problem) || n == 0) {
            char *msg = g_strdup_printf("--stats-every: %s", problem ? problem :
                                        "expected a positive number of cycles");
            rc = usage_error("run", msg);
            g_free(msg), g_free(problem);
            g_free(roi_sets[0]);
            goto out;
        }
        roi_sets[nroi++] = g_strdup_printf("sim.stats_every=%s", o.stats_every);
    }
    if (o.roi)
        roi_sets[nroi++] = g_strdup("sim.roi_markers=true");
    /* the cwd first, then the data directory (sim/input.h) */
    config = sim_input_find(argv[1]);
    CfgNode *root = cfg_load_file(config, files, &e);
    if (!root) {
        g_free(roi_sets[0]), g_free(roi_sets[1]), g_free(roi_sets[2]);
        rc = fail(e);
        goto out;
    }
    for (char **s = o.sets; s && *s; s++) {
        if (!cfg_apply_set(root, *s, &e)) {
            cfg_node_free(root);
            g_free(roi_sets[0]), g_free(roi_sets[1]), g_free(roi_sets[2]);
            rc = fail(e);
            goto out;
        }
    }
    for (int i = 0; roi_sets[i]; i++) {
        bool set_ok = cfg_apply_set(root, roi_sets[i], &e);
        g_free(roi_sets[i]);
        roi_sets[i] = NULL;
        if (!set_ok) {
            for (int j = i + 1; roi_sets[j]; j++)
                g_free(roi_sets[j]);
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
    if (o.trace && g_path_is_absolute(o.trace)) {
        /* an absolute FILE inside the run directory would be put in place before the run
         * directory is, and then stop its rename: give it relative, which lands there */
        char *ct = g_canonicalize_filename(o.trace, NULL), *co = g_canonicalize_filename(out, NULL);
        bool inside = g_str_has_prefix(ct, co) && ct[strlen(co)] == '/';
        if (inside)
            fprintf(stderr, "archsim run: --trace %s is inside the run directory %s; give it "
                    "relative to the run directory (--trace %s), which lands there\n", o.trace,
                    out, ct + strlen(co) + 1);
        g_free(ct);
        g_free(co);
        if (inside) {
            cfg_node_free(root);
            rc = ARCHSIM_EXIT_USAGE;
            goto out;
        }
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
    if (outfile_names_dot(out)) {
        /* the current directory or a parent: it cannot be renamed into place (the old run was
         * removed and then the rename failed) */
        cfg_node_free(root);
        fprintf(stderr, "%s: name the run directory itself, not '.' or '..'\n", out);
        rc = ARCHSIM_EXIT_CANTCREAT;
        goto out;
    }
    if (g_file_test(out, G_FILE_TEST_EXISTS)) {
        /* archsim's own run.json, by its content: a file of that name is not enough */
        bool is_run = outfile_is_run_dir(out);
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
        tt.sink = &teach_consumer;
        tt.path = "-";
        tt.components = NULL;
        tt.max_events = 0;
        TraceDump *teach = trace_open(&tt, &e);
        if (!teach) {
            cfg_node_free(root);
            rc = fail(e);
            goto out;
        }
        teach_state = trace_sink_state(teach);
        td = td ? trace_tee(td, teach) : teach;
    }
    if (o.seed_text) {
        /* after every --set, as sim.seed's last word: the same as --set sim.seed=N */
        char *assign = g_strdup_printf("sim.seed=%" G_GUINT64_FORMAT, seed_value);
        bool set_ok = cfg_apply_set(root, assign, &e);
        g_free(assign);
        if (!set_ok) {
            cfg_node_free(root);
            rc = fail(e);
            goto out;
        }
    }
    run = system_build(root, -1, td, &to, &e);
    if (!run) {
        rc = fail(e);
        goto out;
    }
    for (guint i = 0; teach_state && i < run->sim.components->len; i++) {
        /* each cache's line, so that an access belongs to its own line even when the window
         * left out the state changes that named it */
        Component *c = g_ptr_array_index(run->sim.components, i);
        uint64_t line;
        if (sim_component_param_u64(c, "line", &line))
            teach_set_line(teach_state, c->name, line);
    }
    if (td && !trace_check_components(td, &e)) {    /* every component has registered now */
        g_prefix_error(&e, "archsim run: ");
        rc = fail(e);
        goto out;
    }
    if (interrupted) {
        rc = run_interrupted(NULL, NULL);
        goto out;
    }
    run->sim.strict = o.strict;
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
    if (interrupted) {          /* after the last heartbeat: nothing written yet */
        rc = run_interrupted(NULL, NULL);
        goto out;
    }
    if (td) {
        TraceDump *t = td;
        td = NULL;
        if (!trace_close(t, &e)) {
            rc = fail(e);
            goto out;
        }
        if (interrupted) {      /* while the dump closed (a large gzip takes seconds) */
            rc = run_interrupted(trace_path, stage);
            goto out;
        }
    }
    /* outputs */
    system_finish_epochs(run);
    StatSet st;
    stats_init(&st);
    system_collect_stats(run, &st);
    if (system_warmup_missed(run))
        fprintf(stderr, "archsim run: warning: sim.warmup %s was not reached: the run ended at "
                "cycle %" G_GUINT64_FORMAT " after %" G_GUINT64_FORMAT " instructions and %"
                G_GUINT64_FORMAT " memory references (all cores); the stats describe the whole "
                "run (sim.roi.reset 0)\n", run->sp.warmup, stats_find(&st, "sim.cycles")->u,
                run->sim.roi.insts, run->sim.roi.refs);
    GString *buf = g_string_new(NULL);
    g_string_append_printf(buf,
                           "# archsim %s (git %s): resolved configuration of %s\n%s",
                           ARCHSIM_VERSION, ARCHSIM_GIT, config,
                           system_resolved_is_graph(run)
                               ? "# the machine graph as given, its include: and file paths "
                                 "absolute; a parameter it leaves out has its default (`archsim "
                                 "describe CLASS`); `archsim run` accepts this file as it is\n"
                               : "# every parameter with its value, defaults included; "
                                 "`archsim run` accepts this file as it is\n");
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
    if (ok && o.graph) {         /* --graph NAME: the built machine (sim/graph.h) */
        g_string_truncate(buf, 0);
        sim_graph_dot(&run->sim, buf);
        p = g_build_filename(stage, o.graph, NULL);
        ok = outfile_write(p, buf->str, buf->len, false, NULL, &e);
        g_free(p);
    }
    if (ok && run->epochs) {
        p = g_build_filename(stage, "stats.jsonl", NULL);
        ok = outfile_write(p, run->epochs->str, run->epochs->len, false, NULL, &e);
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
            json_append_string(buf, argv_copy[i]);
        }
        g_string_append(buf, "],\n  \"version\": ");
        json_append_string(buf, ARCHSIM_VERSION);
        g_string_append(buf, ",\n  \"git\": ");
        json_append_string(buf, ARCHSIM_GIT);
        g_string_append(buf, ",\n  \"config\": ");
        json_append_string(buf, config);
        g_string_append(buf, ",\n  \"config_files\": [");
        for (guint i = 0; i < files->len; i++) {
            if (i)
                g_string_append(buf, ", ");
            json_append_string(buf, g_ptr_array_index(files, i));
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
            json_append_string(buf, o.trace);
        else
            g_string_append(buf, "null");
        /* a warm-up or ROI markers: where the stats begin and end (docs/outputs.md) */
        const StatEntry *roi = stats_find(&st, "sim.roi.reset");
        if (roi) {
            g_string_append(buf, ",\n  \"warmup\": ");
            json_append_string(buf, run->sp.warmup);
            g_string_append(buf, ",\n  \"roi\": {");
            static const char *const keys[] = { "reset", "reset_cycle", "reset_insts",
                                                "reset_refs", "frozen", "end_cycle", NULL };
            for (int i = 0; keys[i]; i++) {
                char *name = g_strdup_printf("sim.roi.%s", keys[i]);
                const StatEntry *k = stats_find(&st, name);
                g_string_append_printf(buf, "%s\"%s\": %" G_GUINT64_FORMAT, i ? ", " : "",
                                       keys[i], k ? k->u : 0);
                g_free(name);
            }
            g_string_append(buf, "}");
        }
        if (run->epochs)
            g_string_append_printf(buf, ",\n  \"stats_jsonl_epochs\": %" G_GUINT64_FORMAT,
                                   run->epoch);
        g_string_append(buf, "\n}\n");
        p = g_build_filename(stage, "run.json", NULL);
        ok = outfile_write(p, buf->str, buf->len, false, NULL, &e);
        g_free(p);
    }
    g_string_free(buf, TRUE);
    if (ok && interrupted) {    /* while the outputs were written: none is in place yet */
        stats_clear(&st);
        rc = run_interrupted(trace_path, stage);
        goto out;
    }
    if (ok) {
        bool placed;
        if (reserved) {
            outfile_unreserve(out);   /* our own placeholder */
            placed = outfile_rename_noreplace(stage, out);
        } else {
            /* only reached with --force on a run directory: the old one is moved aside, then
             * removed once the new one is in place (put back if that fails) */
            placed = outfile_replace_dir(stage, out);
        }
        reserved = false;
        if (!placed) {
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
                  run->sim.seed, host, out, o.trace, run->epochs != NULL, o.graph);
    stats_clear(&st);
out:
    if (td)
        trace_abort(td);
    if (reserved)
        outfile_unreserve(out);  /* the placeholder of a run that failed */
    if (stage) {
        outfile_remove_tree(stage);
        g_free(stage);
    }
    system_free(run);
    g_strfreev(to.components);
    g_free(trace_path);
    g_free(out);
    g_free(config);
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
    g_free(o.warmup);
    g_free(o.stats_every);
    g_free(o.graph);
    return rc;
}

/* ---- validate / describe ------------------------------------------------------------- */

static const CliHelp validate_help = {
    .cmd = "validate",
    .usage = "archsim validate FILE... [--set KEY=VALUE]...",
    .summary = "Check configs (keys, types, units, ranges, inputs) without running them.",
    .details =
        "Each FILE is checked as what it is (after its includes are merged):\n"
        "  sweep   a top-level sweep: key: the block, then every point's config built as\n"
        "          `archsim sweep` would run it; a failing point is named by its index and\n"
        "          swept values, at the value's FILE:LINE:COL in the block\n"
        "  part    `part: true`, or no system: and no sim: and only component sections: each\n"
        "          section's keys, types, units and ranges, against the class it configures;\n"
        "          required keys and the machine are left to the configs that include it\n"
        "  config  anything else: every key, type, unit and range; the machine is built and\n"
        "          its inputs are opened\n"
        "Prints 'FILE: ok (what it was checked as)' per good file and each bad file's error\n"
        "(file:line:col: problem); goes on with the next FILE and exits with the first\n"
        "failure's code. See docs/config.md \"Validate\".\n"
        "\n"
        "Examples:\n"
        "  archsim validate configs/default.yaml configs/small-l1d.yaml\n"
        "  archsim validate configs/default.yaml --set l1d.size=64KiB\n"
        "\n"
        "Exit status: 0 every FILE is good, 64 bad command line, 65 a bad input (trace),\n"
        "66 a file is missing, 78 bad configuration; see archsim --help.\n",
};

static int cmd_validate(int argc, char **argv)
{
    gchar **sets = NULL;
    GOptionEntry entries[] = {
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
          "apply an override before checking (repeatable)", "KEY=VALUE" },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    int rc = cli_parse(&validate_help, entries, &argc, &argv);
    if (rc >= 0) {
        /* help printed or usage error */
    } else if (argc < 2) {
        rc = usage_error("validate", "missing FILE");
    } else {
        rc = 0;
        bool empty = false;
        for (int i = 1; i < argc && !empty; i++)
            if (!*argv[i]) {
                rc = cli_usage_error("validate", "argument %d is empty (expected FILE)", i);
                empty = true;
            }
        /* the cwd first, then the data directory, globs included (sim/input.h) */
        char **ops = g_new0(char *, (size_t)argc);
        for (int i = 1; i < argc; i++)
            ops[i - 1] = argv[i];
        char **paths = empty ? g_new0(char *, 1) : sim_input_find_all(ops);
        g_free(ops);
        for (int i = 0; paths[i]; i++) {
            GString *ok = g_string_new(NULL);
            GPtrArray *errors = g_ptr_array_new();
            if (validate_file(paths[i], sets, ok, errors)) {
                printf("%s: %s\n", paths[i], ok->str);
            } else {
                for (guint j = 0; j < errors->len; j++) {
                    int code = fail(g_ptr_array_index(errors, j));
                    if (rc == 0)
                        rc = code;
                }
            }
            g_ptr_array_free(errors, TRUE);
            g_string_free(ok, TRUE);
        }
        g_strfreev(paths);
    }
    g_strfreev(sets);
    return rc;
}

static const CliHelp describe_help = {
    .cmd = "describe",
    .usage = "archsim describe [TYPE]\n"
             "archsim describe --machine CONFIG [--set KEY=VALUE]...",
    .summary = "List the systems and component classes, or one TYPE's parameters, ports and "
               "statistics, or the machine a config builds.",
    .details =
        "Without TYPE: every section, system (system.type) and component class; with TYPE (a\n"
        "system, a class, or sim) that one only: each parameter with its type, default, range\n"
        "and meaning, each port and each statistic, as configs and stats files name them.\n"
        "With --machine: the machine CONFIG builds, one line per component (name, class,\n"
        "clock) and under it each link from its requesting ports (port -> component.port,\n"
        "latency); `archsim run --graph FILE` writes the same as a Graphviz digraph.\n"
        "\n"
        "Examples:\n"
        "  archsim describe\n"
        "  archsim describe cache\n"
        "  archsim describe --machine configs/coherence/false-sharing.yaml\n"
        "\n"
        "Exit status: 0 success, 64 bad command line or unknown TYPE, 66 CONFIG missing, 78 a bad\n"
        "config; see archsim --help.\n",
};

/* `describe --machine CONFIG`: the built machine's components and links (sim/graph.h) */
static int describe_machine(const char *arg, char **sets)
{
    GError *e = NULL;
    char *path = sim_input_find(arg);
    CfgNode *root = cfg_load_file(path, NULL, &e);
    for (char **s = sets; root && s && *s; s++)
        if (!cfg_apply_set(root, *s, &e))
            g_clear_pointer(&root, cfg_node_free);
    SystemRun *run = root ? system_build(root, -1, NULL, NULL, &e) : NULL;
    if (!run) {
        g_free(path);
        return fail(e);
    }
    GString *out = g_string_new(NULL);
    g_string_append_printf(out, "machine of %s (system %s):\n", path, run->sys->name);
    sim_graph_text(&run->sim, out);
    fputs(out->str, stdout);
    g_string_free(out, TRUE);
    system_free(run);
    g_free(path);
    return 0;
}

static int cmd_describe(int argc, char **argv)
{
    char *machine = NULL;
    char **sets = NULL;
    GOptionEntry entries[] = {
        { "machine", 'm', 0, G_OPTION_ARG_FILENAME, &machine,
          "print the machine CONFIG builds: components and links", "CONFIG" },
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
          "with --machine: an override applied first (repeatable)", "KEY=VALUE" },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    int rc = cli_parse(&describe_help, entries, &argc, &argv);
    if (rc >= 0) {
        /* help printed or usage error */
    } else if (machine && argc > 1) {
        rc = usage_error("describe", "--machine CONFIG takes no TYPE");
    } else if (sets && !machine) {
        rc = usage_error("describe", "--set needs --machine CONFIG");
    } else if (machine) {
        rc = describe_machine(machine, sets);
    } else if (argc > 2) {
        rc = usage_error("describe", "at most one TYPE");
    } else if (argc == 2 && !*argv[1]) {
        rc = usage_error("describe", "empty TYPE");
    } else {
        rc = 0;
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
    g_free(machine);
    g_strfreev(sets);
    return rc;
}

/* Runs the subcommand NAME with argv[0] == NAME; false when there is none of that name. */
static const CliHelp gpu_run_help = {
    .cmd = "gpu run",
    .usage = "archsim gpu run LAUNCH.yaml --machine CONFIG [-o DIR] [RUN OPTIONS]",
    .summary = "Run a PTX kernel launch on a GPU config: with real values, and cycle by cycle on "
               "the config's SMs and memory side.",
    .details =
        "LAUNCH.yaml names the PTX file (nvcc -ptx output) and entry, the grid, block and dynamic\n"
        "shared memory, the device buffers and their initial values, the entry's parameters and\n"
        "the buffers to write out (docs/gpu-ptx.md). The kernel is run functionally a thread block\n"
        "at a time as the block scheduler hands blocks out, and its warp instructions (masks,\n"
        "registers, lane addresses) go through the config's SMs, L1s, L2 slices and DRAM. The run\n"
        "directory gets the stats of `archsim run`, kernels.csv and each output as NAME.bin (raw\n"
        "little-endian). It is `archsim run CONFIG --set workload.launch=LAUNCH.yaml`, and every\n"
        "option of `archsim run` applies (-o, --seed, --set, --trace, -q, --force, ...).\n"
        "\n"
        "Examples:\n"
        "  archsim gpu run workloads/gpu/saxpy/launch.yaml --machine configs/gpu/a100.yaml\n"
        "  archsim gpu run workloads/gpu/saxpy/launch.yaml --machine configs/gpu/teach.yaml \\\n"
        "      --trace dump.txt --trace-window 0:200 -o runs/saxpy-teach\n"
        "\n"
        "Exit status: 0 success, 3 a checker failed, 64 bad command line, 65 bad PTX or a fault\n"
        "in the kernel (file.ptx:line:col: problem), 66 an input file is missing, 73 the run\n"
        "directory exists, 74 I/O error, 78 bad configuration or launch YAML, 130 interrupted.\n",
};

static const CliHelp rdu_run_help = {
    .cmd = "rdu run",
    .usage = "archsim rdu run GRAPH.yaml --machine CONFIG [-o DIR] [RUN OPTIONS]",
    .summary = "Run a dataflow graph on an RDU config: mapped onto its PCUs and PMUs, run as "
               "metapipelined kernels cycle by cycle.",
    .details =
        "GRAPH.yaml holds the graph's tensors (shapes, dtypes, where they live), its nodes\n"
        "(parallel patterns and tensor ops) and its loops (trips and controller: pipe,\n"
        "sequential or stream; docs/rdu.md). The chip maps it (archsim rdu map prints the\n"
        "mapping), then each kernel's stages run as event-driven units that hand tiles to each\n"
        "other through N-buffered PMUs, wait when a buffer is full, and send their HBM and DDR\n"
        "traffic to the tiers. The run directory gets the stats of `archsim run`: rdu.cycles,\n"
        "rdu.kernel_calls, rdu.hbm_bytes and each stage's busy, starved and blocked cycles. It is\n"
        "`archsim run CONFIG --set workload.graph=GRAPH.yaml`, and every option of `archsim run`\n"
        "applies (-o, --set, --trace, -q, --force, ...).\n"
        "\n"
        "Examples:\n"
        "  archsim rdu run workloads/dataflow/metapipe.yaml --machine configs/rdu/teach-4x4.yaml\n"
        "  archsim rdu run workloads/dataflow/metapipe.yaml --machine configs/rdu/teach-4x4.yaml \\\n"
        "      --trace pipe.txt -o runs/metapipe\n"
        "\n"
        "Exit status: 0 success, 3 a checker failed, 64 bad command line, 66 an input file is\n"
        "missing, 73 the run directory exists, 74 I/O error, 78 bad configuration or graph\n"
        "(file:line:col: problem), 130 interrupted.\n",
};

/* `archsim gpu run LAUNCH --machine CONFIG [run options]` is `archsim run CONFIG --set
 * workload.launch=LAUNCH [run options]`; `archsim rdu run GRAPH ...` the same with
 * workload.graph. */
static int model_run_main(const CliHelp *help, const char *key, const char *input_name,
                          const char *what, int argc, char **argv)
{
    const char *input = NULL, *machine = NULL;
    GPtrArray *rest = g_ptr_array_new();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            cli_help_print(stdout, help, NULL);
            g_ptr_array_free(rest, TRUE);
            return fflush(stdout) == 0 && !ferror(stdout) ? 0 : ARCHSIM_EXIT_IOERR;
        }
        if (!strcmp(a, "--machine") || !strcmp(a, "-m")) {
            if (i + 1 >= argc) {
                g_ptr_array_free(rest, TRUE);
                return cli_usage_error(help->cmd, "--machine needs %s", what);
            }
            machine = argv[++i];
        } else if (g_str_has_prefix(a, "--machine=")) {
            machine = a + strlen("--machine=");
        } else if (i == 1 && a[0] != '-') {
            input = a;                  /* the launch or graph comes first */
        } else {
            g_ptr_array_add(rest, (gpointer)a);
        }
    }
    if (!input || !machine) {
        g_ptr_array_free(rest, TRUE);
        if (!input)
            return cli_usage_error(help->cmd, "missing %s (the first argument)", input_name);
        return cli_usage_error(help->cmd, "--machine CONFIG is required (%s)", what);
    }
    char *wkey = g_strconcat("workload.", key, NULL);
    char *set = cfg_set_literal(wkey, input);      /* `[a].yaml` stays a file name */
    g_free(wkey);
    GPtrArray *args = g_ptr_array_new();
    g_ptr_array_add(args, (gpointer)"run");
    g_ptr_array_add(args, (gpointer)machine);
    g_ptr_array_add(args, (gpointer)"--set");
    g_ptr_array_add(args, set);
    for (guint i = 0; i < rest->len; i++)
        g_ptr_array_add(args, g_ptr_array_index(rest, i));
    g_ptr_array_add(args, NULL);
    int rc = cmd_run((int)args->len - 1, (char **)args->pdata);
    g_ptr_array_free(args, TRUE);
    g_ptr_array_free(rest, TRUE);
    g_free(set);
    return rc;
}

static bool dispatch(const char *name, int argc, char **argv, int *rc)
{
    static const struct { const char *name; int (*main)(int, char **); } builtin[] = {
        { "run", cmd_run }, { "sweep", sweep_main }, { "validate", cmd_validate },
        { "describe", cmd_describe }, { "diff", diff_main },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(builtin); i++)
        if (!strcmp(name, builtin[i].name)) {
            *rc = builtin[i].main(argc, argv);
            return true;
        }
    if (!strcmp(name, "gpu") && argc > 1 && !strcmp(argv[1], "run")) {
        *rc = model_run_main(&gpu_run_help, "launch", "LAUNCH.yaml", "a GPU config, e.g. configs/gpu/a100.yaml",
                             argc - 1, argv + 1);
        return true;
    }
    if (!strcmp(name, "rdu") && argc > 1 && !strcmp(argv[1], "run")) {
        *rc = model_run_main(&rdu_run_help, "graph", "GRAPH.yaml", "an RDU config, e.g. configs/rdu/sn40l.yaml",
                             argc - 1, argv + 1);
        return true;
    }
    for (const CliCommand *c = archsim_model_commands; c->name; c++)
        if (!strcmp(name, c->name)) {
            *rc = c->main(argc, argv);
            return true;
        }
    return false;
}

static int unknown_command(const char *prefix, const char *cmd)
{
    const char *names[64] = { "run", "sweep", "validate", "describe", "diff", "help" };
    size_t n = 6;
    for (const CliCommand *c = archsim_model_commands; c->name && n < 64; c++)
        names[n++] = c->name;
    const char *hint = param_suggest(cmd, names, n);
    fprintf(stderr, "%s: unknown command '%s'%s%s%s\nTry 'archsim --help'.\n", prefix, cmd,
            hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
    return ARCHSIM_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    host_memory_tune();
    if (argc < 2) {
        print_usage(stderr);
        return ARCHSIM_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") && argc > 2) {
        /* `archsim help CMD [SUB]` is `archsim CMD [SUB] --help` */
        if (!strcmp(argv[2], "help")) {
            print_usage(stdout);
            return 0;
        }
        char **args = g_new0(char *, (size_t)argc);
        for (int i = 2; i < argc; i++)
            args[i - 2] = argv[i];
        args[argc - 2] = (char *)"--help";
        int rc;
        bool found = dispatch(argv[2], argc - 1, args, &rc);
        g_free(args);
        return found ? rc : unknown_command("archsim help", argv[2]);
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        print_usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("archsim %s (git %s)\n", ARCHSIM_VERSION, ARCHSIM_GIT);
        return 0;
    }
    int rc;
    if (dispatch(cmd, argc - 1, argv + 1, &rc))
        return rc;
    return unknown_command("archsim", cmd);
}
