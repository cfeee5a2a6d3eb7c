/* atrace_record.c: `archsim trace record`: run a program built with tools/archsim-cc under its
 * recording runtime (ARCHSIM_TRACE_OUT=DIR), then check what it wrote and summarise it.
 *
 * The runtime (tools/tracer/) does the recording inside the program; this command only prepares
 * DIR, runs the program with the variable set, and reads DIR/manifest.yaml back: thread count,
 * records and bytes, and one header check per stream (tid and parent as the manifest says).
 */
#include "atrace_record.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../sim/cli/cli.h"
#include "../sim/config.h"
#include "../sim/error.h"
#include "atrace.h"

/* record parses its own command line (everything after PROGRAM is PROGRAM's); this table is
 * only its --help */
static const GOptionEntry atrace_record_options[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, NULL,
      "where the traces go (created; must be empty or absent)", "DIR" },
    { "force", 0, 0, G_OPTION_ARG_NONE, NULL,
      "reuse a non-empty DIR: its traces (T*.trace) and manifest.yaml are removed", NULL },
    { "zlevel", 0, 0, G_OPTION_ARG_INT, NULL, "zlib level of the streams, 0-9 (default 1)", "N" },
    { "verify", 0, 0, G_OPTION_ARG_NONE, NULL,
      "also decode every record and compare counts with the manifest", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, NULL, "only the summary line", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
};

static const CliHelp atrace_record_help = {
    .cmd = "trace record",
    .usage = "archsim trace record -o DIR [--force] [--zlevel N] [--verify] [--quiet] -- PROGRAM "
             "[ARGS...]",
    .summary = "Record a program built with tools/archsim-cc: one trace per thread in DIR.",
    .details =
    "Runs PROGRAM (built with tools/archsim-cc) with ARCHSIM_TRACE_OUT=DIR: its recording\n"
    "runtime writes DIR/T<tid>.trace per thread (0 = main, then pthread_create order) and\n"
    "DIR/manifest.yaml. Then checks the manifest and every stream's header, and prints threads,\n"
    "records and bytes.\n"
    "\n"
    "Exit status: PROGRAM's own status when it fails (traces kept); otherwise 0, 64 bad command\n"
    "line, 65 bad manifest or traces, 66 PROGRAM cannot be run or wrote no manifest, 73 DIR not\n"
    "empty or not creatable.\n",
};

/* ---- reading a recording back ------------------------------------------------------------- */

void atrace_record_summary_clear(AtRecordSummary *s)
{
    g_free(s->compiler);
    g_free(s->frontend);
    g_free(s->cflags);
    memset(s, 0, sizeof *s);
}

static const char *ar_scalar(const CfgNode *map, const char *key)
{
    const CfgNode *n = cfg_map_get(map, key);
    return n != NULL && n->kind == CFG_SCALAR ? n->scalar : NULL;
}

/* An unsigned integer field; false (with error) if absent or not a number. */
static bool ar_uint(const CfgNode *map, const char *key, const char *where, uint64_t *out,
                    GError **error)
{
    const char *s = ar_scalar(map, key);
    guint64 v;
    if (s == NULL || !g_ascii_string_to_unsigned(s, 10, 0, G_MAXUINT64, &v, NULL)) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                    "%s: '%s' missing or not an unsigned integer", where, key);
        return false;
    }
    *out = v;
    return true;
}

/* Decodes a whole stream; its record count, or false with error. */
static bool ar_count(const char *path, uint64_t *records, GError **error)
{
    AtReader *r = at_reader_open(path, error);
    if (r == NULL)
        return false;
    AtRecord buf[4096];
    uint64_t n = 0;
    size_t got;
    while ((got = at_reader_read(r, buf, G_N_ELEMENTS(buf), error)) > 0)
        n += got;
    at_reader_close(r);
    if (error != NULL && *error != NULL)
        return false;
    *records = n;
    return true;
}

bool atrace_record_check(const char *dir, bool verify, AtRecordSummary *out, GError **error)
{
    memset(out, 0, sizeof *out);
    char *mpath = g_build_filename(dir, "manifest.yaml", NULL);
    bool ok = false;
    CfgNode *root = NULL;
    if (!g_file_test(mpath, G_FILE_TEST_EXISTS)) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT,
                    "%s: no manifest: was the program built with tools/archsim-cc, and did it "
                    "exit normally (not killed, not _exit)?", mpath);
        goto done;
    }
    root = cfg_load_file(mpath, NULL, error);
    if (root == NULL) {
        if (error != NULL && *error != NULL)
            (*error)->code = ARCHSIM_EXIT_DATAERR;
        goto done;
    }
    const CfgNode *threads = cfg_map_get(root, "threads");
    if (threads == NULL || threads->kind != CFG_SEQ) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                    "%s: 'threads' missing or not a list", mpath);
        goto done;
    }
    out->compiler = g_strdup(ar_scalar(root, "compiler") ? ar_scalar(root, "compiler") : "?");
    out->frontend = g_strdup(ar_scalar(root, "frontend") ? ar_scalar(root, "frontend") : "?");
    out->cflags = g_strdup(ar_scalar(root, "cflags") ? ar_scalar(root, "cflags") : "");
    const char *st = ar_scalar(root, "exit_status");
    out->exit_status = st != NULL ? atoi(st) : 0;
    for (guint i = 0; i < threads->items->len; i++) {
        const CfgNode *t = g_ptr_array_index(threads->items, i);
        char *where = g_strdup_printf("%s: thread %u", mpath, i);
        uint64_t tid = 0, records = 0;
        const char *complete = t->kind == CFG_MAP ? ar_scalar(t, "complete") : NULL;
        const char *parent_s = t->kind == CFG_MAP ? ar_scalar(t, "parent") : NULL;
        bool fine = t->kind == CFG_MAP && ar_uint(t, "tid", where, &tid, error);
        if (fine && tid != i) {
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                        "%s: tid %" G_GUINT64_FORMAT ", expected %u", where, tid, i);
            fine = false;
        }
        if (fine && (complete == NULL || strcmp(complete, "true") != 0)) {
            const char *note = ar_scalar(t, "note");
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                        "%s: stream incomplete (%s)", where, note ? note : "no reason given");
            fine = false;
        }
        fine = fine && ar_uint(t, "records", where, &records, error);
        g_free(where);
        if (!fine)
            goto done;
        char name[32];
        g_snprintf(name, sizeof name, "T%u.trace", i);
        char *tpath = g_build_filename(dir, name, NULL);
        AtReader *r = at_reader_open(tpath, error);
        if (r == NULL) {
            g_free(tpath);
            goto done;
        }
        const AtHeader *h = at_reader_header(r);
        long parent = parent_s != NULL ? strtol(parent_s, NULL, 10) : -2;
        if (h->tid != i || h->parent != parent) {
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                        "%s: header says tid %u parent %d, manifest tid %u parent %ld", tpath,
                        h->tid, h->parent, i, parent);
            at_reader_close(r);
            g_free(tpath);
            goto done;
        }
        at_reader_close(r);
        uint64_t decoded = 0;
        if (verify && !ar_count(tpath, &decoded, error)) {
            g_free(tpath);
            goto done;
        }
        if (verify && decoded != records) {
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                        "%s: %" G_GUINT64_FORMAT " records decoded, manifest says %"
                        G_GUINT64_FORMAT, tpath, decoded, records);
            g_free(tpath);
            goto done;
        }
        GStatBuf sb;
        if (g_stat(tpath, &sb) == 0)
            out->bytes += (uint64_t)sb.st_size;
        g_free(tpath);
        out->records += records;
        out->threads++;
    }
    ok = true;
done:
    if (root != NULL)
        cfg_node_free(root);
    g_free(mpath);
    if (!ok)
        atrace_record_summary_clear(out);
    return ok;
}

/* ---- the output directory ----------------------------------------------------------------- */

bool atrace_is_thread_file(const char *name)
{
    if (name[0] != 'T' || !g_ascii_isdigit(name[1]))
        return false;
    const char *p = name + 1;
    while (g_ascii_isdigit(*p))
        p++;
    return strcmp(p, ".trace") == 0;
}

/* True for the names the runtime writes: T<digits>.trace, manifest.yaml(.part). */
static bool ar_is_ours(const char *name)
{
    if (strcmp(name, "manifest.yaml") == 0 || strcmp(name, "manifest.yaml.part") == 0)
        return true;
    return atrace_is_thread_file(name);
}

/* Creates dir, or empties the runtime's files out of it with force. */
static bool ar_prepare_dir(const char *dir, bool force, GError **error)
{
    if (g_mkdir_with_parents(dir, 0777) != 0) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT, "%s: cannot create: %s", dir,
                    g_strerror(errno));
        return false;
    }
    GDir *d = g_dir_open(dir, 0, error);
    if (d == NULL) {
        if (error != NULL && *error != NULL)
            (*error)->code = ARCHSIM_EXIT_CANTCREAT;
        return false;
    }
    bool ok = true;
    const char *name;
    GPtrArray *doomed = g_ptr_array_new_with_free_func(g_free);
    while (ok && (name = g_dir_read_name(d)) != NULL) {
        if (!force) {
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT,
                        "%s: exists and is not empty (use --force to replace its traces)", dir);
            ok = false;
        } else if (ar_is_ours(name)) {
            char *p = g_build_filename(dir, name, NULL);
            if (atrace_is_thread_file(name) && !at_file_is_ours(p)) {
                g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT,
                            "%s: not an archsim trace; not removing it (--force replaces "
                            "archsim's traces only)", p);
                ok = false;
                g_free(p);
            } else {
                g_ptr_array_add(doomed, p);
            }
        }
    }
    g_dir_close(d);
    /* every file checked before any is removed: a refusal leaves the directory as it was */
    for (guint i = 0; ok && i < doomed->len; i++) {
        const char *p = g_ptr_array_index(doomed, i);
        if (g_unlink(p) != 0) {
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT, "%s: cannot remove: %s",
                        p, g_strerror(errno));
            ok = false;
        }
    }
    g_ptr_array_free(doomed, TRUE);
    return ok;
}

/* ---- running the program ------------------------------------------------------------------ */

bool atrace_child_start(char **argv, const char *dir, int zlevel, int stream_fd, AtChild *ch,
                        GError **error)
{
    int pipefd[2];                      /* carries errno of a failed exec back, CLOEXEC */
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_SOFTWARE, "pipe: %s", g_strerror(errno));
        if (stream_fd >= 0)
            close(stream_fd);
        return false;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_SOFTWARE, "fork: %s", g_strerror(errno));
        close(pipefd[0]);
        close(pipefd[1]);
        if (stream_fd >= 0)
            close(stream_fd);
        return false;
    }
    if (pid == 0) {
        close(pipefd[0]);
        setenv("ARCHSIM_TRACE_OUT", dir, 1);
        char z[4];
        snprintf(z, sizeof z, "%d", zlevel);
        setenv("ARCHSIM_TRACE_ZLEVEL", z, 1);
        if (stream_fd >= 0) {
            fcntl(stream_fd, F_SETFD, 0);           /* the program inherits it */
            char fdtext[16];
            snprintf(fdtext, sizeof fdtext, "%d", stream_fd);
            setenv("ARCHSIM_TRACE_FD", fdtext, 1);
        }
        execvp(argv[0], argv);
        int e = errno;
        if (write(pipefd[1], &e, sizeof e) < 0)
            _exit(127);
        _exit(127);
    }
    close(pipefd[1]);
    if (stream_fd >= 0)
        close(stream_fd);
    int child_errno = 0;
    ssize_t got = read(pipefd[0], &child_errno, sizeof child_errno);
    close(pipefd[0]);
    /* like time(1): an interrupt is the program's to handle */
    ch->pid = pid;
    ch->old_int = signal(SIGINT, SIG_IGN);
    ch->old_quit = signal(SIGQUIT, SIG_IGN);
    if (got == (ssize_t)sizeof child_errno) {
        atrace_child_wait(ch);
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: cannot run: %s", argv[0],
                    g_strerror(child_errno));
        return false;
    }
    return true;
}

int atrace_child_wait(AtChild *ch)
{
    int ws = 0;
    while (waitpid(ch->pid, &ws, 0) < 0 && errno == EINTR)
        ;
    signal(SIGINT, ch->old_int);
    signal(SIGQUIT, ch->old_quit);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 1;
}

/* Runs argv with ARCHSIM_TRACE_OUT (and ARCHSIM_TRACE_ZLEVEL) set; *status is its exit status,
 * or 128 + signal. False with error only when it could not be started. */
static bool ar_run(char **argv, const char *dir, int zlevel, int *status, GError **error)
{
    AtChild ch;
    if (!atrace_child_start(argv, dir, zlevel, -1, &ch, error))
        return false;
    *status = atrace_child_wait(&ch);
    return true;
}

static int ar_usage(const char *problem)
{
    fprintf(stderr, "archsim trace record: %s\nTry 'archsim trace record --help'.\n", problem);
    return ARCHSIM_EXIT_USAGE;
}

static void ar_group(char *buf, size_t cap, uint64_t v)
{
    char digits[32];
    int n = g_snprintf(digits, sizeof digits, "%" G_GUINT64_FORMAT, v);
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < cap; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
}

int atrace_record_main(int argc, char **argv)
{
    const char *dir = NULL;
    bool force = false, verify = false, quiet = false;
    int zlevel = 1;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            cli_help_print(stdout, &atrace_record_help, atrace_record_options);
            return fflush(stdout) == 0 && !ferror(stdout) ? ARCHSIM_EXIT_OK : ARCHSIM_EXIT_IOERR;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (++i >= argc)
                return ar_usage("-o needs a directory");
            dir = argv[i];
        } else if (g_str_has_prefix(a, "--output=")) {
            dir = a + strlen("--output=");
        } else if (strcmp(a, "--force") == 0) {
            force = true;
        } else if (strcmp(a, "--verify") == 0) {
            verify = true;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = true;
        } else if (strcmp(a, "--zlevel") == 0 || g_str_has_prefix(a, "--zlevel=")) {
            const char *v = a[8] == '=' ? a + 9 : (++i < argc ? argv[i] : NULL);
            guint64 z;
            if (v == NULL || !g_ascii_string_to_unsigned(v, 10, 0, 9, &z, NULL))
                return ar_usage("--zlevel needs a number from 0 to 9");
            zlevel = (int)z;
        } else {
            char *m = g_strdup_printf("unknown option '%s'", a);
            int rc = ar_usage(m);
            g_free(m);
            return rc;
        }
    }
    if (dir != NULL && *dir == '\0')
        return ar_usage("--output: empty DIR");
    if (dir == NULL)
        return ar_usage("missing -o DIR");
    if (i >= argc)
        return ar_usage("missing PROGRAM (after --)");

    GError *e = NULL;
    char *abs = g_canonicalize_filename(dir, NULL);   /* the program may chdir */
    int status = 0;
    AtRecordSummary s;
    memset(&s, 0, sizeof s);
    int rc = ARCHSIM_EXIT_OK;
    gint64 t0 = g_get_monotonic_time();
    if (!ar_prepare_dir(abs, force, &e) || !ar_run(argv + i, abs, zlevel, &status, &e)) {
        fprintf(stderr, "archsim trace record: %s\n", e->message);
        rc = archsim_exit_code(e);
        goto out;
    }
    double secs = (double)(g_get_monotonic_time() - t0) / 1e6;
    if (status != 0)
        fprintf(stderr, "archsim trace record: %s exited with status %d\n", argv[i], status);
    if (!atrace_record_check(abs, verify, &s, &e)) {
        fprintf(stderr, "archsim trace record: %s\n", e->message);
        rc = status != 0 ? status : archsim_exit_code(e);
        goto out;
    }
    char recs[40], bytes[40];
    ar_group(recs, sizeof recs, s.records);
    ar_group(bytes, sizeof bytes, s.bytes);
    printf("archsim trace record: %s: %u threads, %s records, %s bytes (%.3f B/record), "
           "%.2f s%s\n", dir, s.threads, recs, bytes,
           s.records ? (double)s.bytes / (double)s.records : 0.0, secs,
           verify ? ", verified" : "");
    if (!quiet)
        printf("  %s (%s) %s\n", s.compiler, s.frontend, s.cflags);
    rc = status;
out:
    if (e != NULL)
        g_error_free(e);
    atrace_record_summary_clear(&s);
    g_free(abs);
    return rc;
}
