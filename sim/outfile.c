/* outfile.c: how archsim writes an output file without ever writing over someone else's
 * (docs/outputs.md, "Output files"): temporary file beside the target, O_EXCL, rename into
 * place (RENAME_NOREPLACE unless an own file is replaced under --force), content recognisers
 * for "archsim's own", and the reservation record of a run directory (pid, start time, boot id,
 * as /proc/PID/stat and /proc/sys/kernel/random/boot_id give them; see proc(5)).
 */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <glib/gstdio.h>

#include "error.h"

/* How much of a file the recognisers read (decompressed): enough for several lines. */
#define OUTFILE_SNIFF_BYTES 4096

/* ---- recognisers ----------------------------------------------------------------------------- */

/* The first bytes of PATH, decompressed when it is gzip (zlib reads plain files as they are);
 * NULL when it cannot be read. Never follows a link, never blocks on a FIFO. */
static char *outfile_head(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    gzFile gz = gzdopen(fd, "rb");
    if (gz == NULL) {
        close(fd);
        return NULL;
    }
    char *buf = g_malloc(OUTFILE_SNIFF_BYTES + 1);
    int n = gzread(gz, buf, OUTFILE_SNIFF_BYTES);
    gzclose(gz);
    if (n < 0) {
        g_free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

/* One line of a text dump: "%7u: COMPONENT: EVENT ..." or an archsim comment line. */
static bool text_dump_line(const char *l)
{
    if (g_str_has_prefix(l, "# archsim"))
        return true;
    while (*l == ' ')
        l++;
    if (!g_ascii_isdigit(*l))
        return false;
    while (g_ascii_isdigit(*l))
        l++;
    if (l[0] != ':' || l[1] != ' ')
        return false;
    l += 2;
    const char *c = l;
    while (*l && *l != ':' && *l != ' ')
        l++;
    return l > c && l[0] == ':' && l[1] == ' ';
}

/* Every complete line of HEAD satisfies LINE_OK (at least one line). */
static bool all_lines(const char *head, size_t len, bool (*line_ok)(const char *))
{
    char *copy = g_strndup(head, len);
    char *last_nl = strrchr(copy, '\n');
    bool ok = last_nl != NULL;
    if (ok) {
        *last_nl = '\0';
        char **lines = g_strsplit(copy, "\n", -1);
        for (char **l = lines; ok && *l; l++)
            ok = line_ok(*l);
        g_strfreev(lines);
    }
    g_free(copy);
    return ok;
}

bool outfile_lines_match(const char *path, bool (*line_ok)(const char *line))
{
    size_t len = 0;
    char *h = outfile_head(path, &len);
    bool ok = h != NULL && all_lines(h, len, line_ok);
    g_free(h);
    return ok;
}

static bool jsonl_dump_line(const char *l)
{
    return (g_str_has_prefix(l, "{\"cycle\":") && strstr(l, "\"comp\":") &&
            strstr(l, "\"event\":")) || g_str_has_prefix(l, "{\"truncated\":true") ||
           g_str_has_prefix(l, "{\"out_of_order_events\":") || strcmp(l, "{\"events\":0}") == 0;
}

/* Applies a recogniser to the head of PATH (false when it cannot be read). */
static bool head_is(const char *path, bool (*own)(const char *path, const char *h, size_t len))
{
    size_t len = 0;
    char *h = outfile_head(path, &len);
    bool yes = h != NULL && own(path, h, len);
    g_free(h);
    return yes;
}

/* A trace dump archsim wrote, by format: Perfetto JSON and VCD carry archsim's name in their
 * header; text and JSON Lines are recognised by their line grammar. */
static bool trace_dump_head(const char *path, const char *h, size_t len)
{
    (void)path;
    return (g_str_has_prefix(h, "{\"traceEvents\":[\n") && strstr(h, "\"archsim ")) ||
           (g_str_has_prefix(h, "$date") && strstr(h, "\n$version archsim ")) ||
           all_lines(h, len, text_dump_line) || all_lines(h, len, jsonl_dump_line);
}

static bool outfile_is_trace_dump(const char *path)
{
    return head_is(path, trace_dump_head);
}

static bool filter_line(const char *l)
{
    if (!g_ascii_isdigit(*l))
        return false;
    while (g_ascii_isdigit(*l))
        l++;
    return *l == ' ';
}

/* A GTKWave save file archsim wrote opens with "[*] archsim:"; a translate filter is lines
 * "CODE NAME". */
static bool vcd_side_head(const char *path, const char *h, size_t len)
{
    return g_str_has_prefix(h, "[*] archsim:") ||
           (g_str_has_suffix(path, ".filter") && all_lines(h, len, filter_line));
}

static bool outfile_is_vcd_side_file(const char *path)
{
    return head_is(path, vcd_side_head);
}

/* sweep.csv, sweep.json and sweep-base.yaml belong to the sweep directory holding them. */
static bool outfile_is_sweep_file(const char *path)
{
    char *dir = g_path_get_dirname(path);
    char *marker = g_build_filename(dir, "sweep.json", NULL);
    struct stat st;
    bool own = lstat(marker, &st) == 0 && S_ISREG(st.st_mode);
    g_free(marker);
    g_free(dir);
    return own;
}

/* archsim tpu --teach: its text opens with "# archsim tpu teach:", its VCD names it in $comment */
static bool tpu_teach_head(const char *path, const char *h, size_t len)
{
    (void)path;
    (void)len;
    return g_str_has_prefix(h, "# archsim tpu teach:") ||
           (h[0] == '$' && strstr(h, "archsim tpu teach:"));
}

static bool outfile_is_tpu_teach(const char *path)
{
    return head_is(path, tpu_teach_head);
}

const OutfileKind outfile_trace_dump = { "trace dump", outfile_is_trace_dump };
const OutfileKind outfile_vcd_side_file = { "VCD filter or GTKWave file", outfile_is_vcd_side_file };
const OutfileKind outfile_sweep_file = { "sweep file", outfile_is_sweep_file };
const OutfileKind outfile_tpu_teach = { "tpu teaching dump", outfile_is_tpu_teach };

/* ---- the rule --------------------------------------------------------------------------------- */

static const char *file_type_name(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" :
           S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a FIFO" :
           S_ISSOCK(m) ? "a socket" : "not a regular file";
}

bool outfile_check(const char *path, bool force, const OutfileKind *kind, bool *replace,
                   GError **error)
{
    struct stat st;
    *replace = false;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return true;
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT, "%s: cannot create: %s",
                    path, g_strerror(errno));
        return false;
    }
    const char *what = kind ? kind->what : "output";
    if (S_ISLNK(st.st_mode)) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT,
                    "%s: is a symbolic link; archsim does not write through links (give the "
                    "file's own path)", path);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT,
                    "%s: is %s; archsim writes a %s only as a new regular file%s", path,
                    file_type_name(st.st_mode), what,
                    kind == &outfile_trace_dump ? " ('-' writes it to stdout)" : "");
        return false;
    }
    bool own = kind && kind->is_own && kind->is_own(path);
    if (!force) {
        if (own)
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT,
                        "%s: exists; use --force to replace it (it is an archsim %s), or give "
                        "another path", path, what);
        else
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT,
                        "%s: exists and is not an archsim %s; archsim does not replace it (not "
                        "even with --force); give another path", path, what);
        return false;
    }
    if (!own) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT,
                    "%s: exists and is not an archsim %s; not replacing it, even with --force",
                    path, what);
        return false;
    }
    *replace = true;
    return true;
}

int outfile_create_temp(const char *path, char **tmp, GError **error)
{
    *tmp = g_strconcat(path, ".part-XXXXXX", NULL);
    int fd = g_mkstemp_full(*tmp, O_WRONLY | O_CLOEXEC, 0666);
    if (fd < 0) {
        int saved = errno;
        char *dir = g_path_get_dirname(path);
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT, "%s: cannot create: %s%s%s%s",
                    path, g_strerror(saved), saved == ENOENT ? " (does the directory '" : "",
                    saved == ENOENT ? dir : "", saved == ENOENT ? "' exist?)" : "");
        g_free(dir);
        g_clear_pointer(tmp, g_free);
        return -1;
    }
    /* g_mkstemp_full creates 0600 whatever it is told on some GLib versions; give the file the
     * mode an ordinary creat(2) would */
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    return fd;
}

bool outfile_open(OutFile *of, const char *path, bool force, const OutfileKind *kind,
                  GError **error)
{
    memset(of, 0, sizeof *of);
    of->fd = -1;
    of->kind = kind;
    if (strcmp(path, "-") == 0) {
        of->fd = dup(STDOUT_FILENO);
        if (of->fd < 0) {
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_IOERR, "-: stdout: %s",
                        g_strerror(errno));
            return false;
        }
        of->path = g_strdup(path);
        return true;
    }
    if (!outfile_check(path, force, kind, &of->replace, error))
        return false;
    of->fd = outfile_create_temp(path, &of->tmp, error);
    if (of->fd < 0)
        return false;
    of->path = g_strdup(path);
    return true;
}

/* The head of DIR/NAME (a regular file) starts with PREFIX. */
static bool dir_file_starts(const char *dir, const char *name, const char *prefix)
{
    char *p = g_build_filename(dir, name, NULL);
    bool ok = false;
    struct stat st;
    if (lstat(p, &st) == 0 && S_ISREG(st.st_mode)) {
        FILE *f = fopen(p, "rb");
        if (f) {
            char head[128];
            size_t n = fread(head, 1, sizeof head - 1, f);
            head[n] = '\0';
            ok = g_str_has_prefix(head, prefix);
            fclose(f);
        }
    }
    g_free(p);
    return ok;
}

bool outfile_is_run_dir(const char *dir)
{
    /* sim/cli/main.c writes run.json with argv first: ["archsim", "run", ...] */
    return g_file_test(dir, G_FILE_TEST_IS_DIR) && !g_file_test(dir, G_FILE_TEST_IS_SYMLINK) &&
           dir_file_starts(dir, "run.json", "{\n  \"argv\": [\"archsim\"");
}

bool outfile_is_sweep_dir(const char *dir)
{
    /* sim/cli/sweep.c writes sweep.json with the version first: {"archsim": "VERSION", ...} */
    return g_file_test(dir, G_FILE_TEST_IS_DIR) && !g_file_test(dir, G_FILE_TEST_IS_SYMLINK) &&
           dir_file_starts(dir, "sweep.json", "{\n  \"archsim\": \"");
}

bool outfile_names_dot(const char *path)
{
    char *b = g_path_get_basename(path);
    bool dot = strcmp(b, ".") == 0 || strcmp(b, "..") == 0;
    g_free(b);
    return dot;
}

void outfile_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        GDir *d = g_dir_open(path, 0, NULL);
        const char *n;
        while (d && (n = g_dir_read_name(d))) {
            char *p = g_build_filename(path, n, NULL);
            outfile_remove_tree(p);
            g_free(p);
        }
        if (d)
            g_dir_close(d);
        g_rmdir(path);
    } else {
        g_unlink(path);
    }
}

bool outfile_replace_dir(const char *stage, const char *dir)
{
    char *aside = g_strdup_printf("%s.old-%d", dir, (int)getpid());
    if (!outfile_rename_noreplace(dir, aside)) {
        g_free(aside);
        return false;
    }
    if (!outfile_rename_noreplace(stage, dir)) {
        int err = errno;
        if (rename(aside, dir) != 0)
            fprintf(stderr, "archsim: %s: could not be put back from %s: %s\n", dir, aside,
                    g_strerror(errno));
        g_free(aside);
        errno = err;
        return false;
    }
    outfile_remove_tree(aside);
    g_free(aside);
    return true;
}

bool outfile_rename_noreplace(const char *from, const char *to)
{
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
        return true;
    if (errno != EINVAL && errno != ENOSYS)
        return false;
    /* file systems without RENAME_NOREPLACE: link() fails on an existing target */
    struct stat st;
    if (lstat(from, &st) == 0 && !S_ISDIR(st.st_mode)) {
        if (link(from, to) != 0)
            return false;
        unlink(from);
        return true;
    }
    if (lstat(to, &st) == 0) {
        errno = EEXIST;
        return false;
    }
    return rename(from, to) == 0;
}

bool outfile_place(const char *tmp, const char *path, bool force, const OutfileKind *kind,
                   GError **error)
{
    bool replace = false;
    GError *e = NULL;
    bool ok = outfile_check(path, force, kind, &replace, &e);
    if (ok && !(replace ? rename(tmp, path) == 0 : outfile_rename_noreplace(tmp, path))) {
        g_set_error(&e, ARCHSIM_RUN_ERROR, errno == EEXIST ? ARCHSIM_EXIT_CANTCREAT
                                                           : ARCHSIM_EXIT_IOERR,
                    "%s: %s", path, errno == EEXIST
                        ? "appeared while archsim was writing it; not replacing it"
                        : g_strerror(errno));
        ok = false;
    }
    if (!ok) {
        unlink(tmp);
        g_propagate_error(error, e);
    }
    return ok;
}

bool outfile_commit(OutFile *of, GError **error)
{
    bool ok = true;
    if (of->fd >= 0 && close(of->fd) != 0) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_IOERR, "%s: cannot write: %s",
                    of->path, g_strerror(errno));
        ok = false;
    }
    of->fd = -1;
    if (ok && of->tmp) {
        /* the target may have changed since the check: outfile_place decides again */
        ok = outfile_place(of->tmp, of->path, of->replace, of->kind, error);
    }
    if (!ok && of->tmp)
        unlink(of->tmp);
    g_clear_pointer(&of->tmp, g_free);
    g_clear_pointer(&of->path, g_free);
    return ok;
}

void outfile_abort(OutFile *of)
{
    if (of->fd >= 0)
        close(of->fd);
    of->fd = -1;
    if (of->tmp)
        unlink(of->tmp);
    g_clear_pointer(&of->tmp, g_free);
    g_clear_pointer(&of->path, g_free);
}

bool outfile_write(const char *path, const char *data, size_t len, bool force,
                   const OutfileKind *kind, GError **error)
{
    OutFile of;
    if (!outfile_open(&of, path, force, kind, error))
        return false;
    for (size_t done = 0; done < len;) {
        ssize_t n = write(of.fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_IOERR, "%s: cannot write: %s",
                        path, n < 0 ? g_strerror(errno) : "short write");
            outfile_abort(&of);
            return false;
        }
        done += (size_t)n;
    }
    return outfile_commit(&of, error);
}

/* ---- run reservations ------------------------------------------------------------------------ */

static char *boot_id(void)
{
    char *text = NULL;
    if (!g_file_get_contents("/proc/sys/kernel/random/boot_id", &text, NULL, NULL))
        return g_strdup("unknown");
    return g_strstrip(text);
}

/* Field 22 of /proc/PID/stat: start time in clock ticks after boot; 0 when unknown. */
static guint64 process_start(pid_t pid)
{
    char path[64], *text = NULL;
    g_snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return 0;
    guint64 start = 0;
    const char *p = strrchr(text, ')');   /* the command name may hold spaces and parens */
    for (int field = 2; p && *p; p++) {
        if (*p != ' ')
            continue;
        if (++field == 22) {
            start = g_ascii_strtoull(p + 1, NULL, 10);
            break;
        }
    }
    g_free(text);
    return start;
}

bool outfile_process_alive(pid_t pid, guint64 start, const char *boot)
{
    if (pid <= 0)
        return false;
    if (boot) {
        char *now = boot_id();
        bool same = strcmp(now, boot) == 0;
        g_free(now);
        if (!same)
            return false;            /* reserved before a reboot: that process is gone */
    }
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return false;
    return start == 0 || process_start(pid) == start;
}

bool outfile_reserve(const char *dir, GError **error)
{
    char *boot = boot_id();
    char host[256] = "unknown";
    gethostname(host, sizeof host - 1);
    host[strcspn(host, " \n")] = '\0';
    char *text = g_strdup_printf("archsim reservation\npid %d\nstart %" G_GUINT64_FORMAT
                                 "\nboot %s\nhost %s\n", (int)getpid(), process_start(getpid()),
                                 boot, host);
    char *path = g_build_filename(dir, OUTFILE_RESERVATION, NULL);
    bool ok = outfile_write(path, text, strlen(text), false, NULL, error);
    g_free(path);
    g_free(text);
    g_free(boot);
    return ok;
}

void outfile_unreserve(const char *dir)
{
    char *path = g_build_filename(dir, OUTFILE_RESERVATION, NULL);
    g_unlink(path);
    g_free(path);
    g_rmdir(dir);
}

bool outfile_reservation_pid(const char *dir, pid_t *pid)
{
    char *path = g_build_filename(dir, OUTFILE_RESERVATION, NULL), *text = NULL;
    int p = 0;
    bool ok = g_file_get_contents(path, &text, NULL, NULL) &&
              sscanf(text, "archsim reservation\npid %d", &p) == 1 && p > 0;
    g_free(text);
    g_free(path);
    if (ok)
        *pid = (pid_t)p;
    return ok;
}

/* The pid of a stage directory name "BASE.part-PID" (0 when NAME is not one of BASE's). */
static pid_t stage_pid(const char *name, const char *base)
{
    size_t n = strlen(base);
    if (strncmp(name, base, n) != 0 || !g_str_has_prefix(name + n, ".part-"))
        return 0;
    guint64 v;
    if (!g_ascii_string_to_unsigned(name + n + 6, 10, 1, G_MAXINT, &v, NULL))
        return 0;
    return (pid_t)v;
}

bool outfile_reservation_stale(const char *dir, pid_t *pid)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    if (d == NULL)
        return false;
    bool only_reservation = true, has_reservation = false;
    const char *n;
    while ((n = g_dir_read_name(d))) {
        if (strcmp(n, OUTFILE_RESERVATION) == 0)
            has_reservation = true;
        else
            only_reservation = false;
    }
    g_dir_close(d);
    if (!only_reservation)
        return false;
    if (has_reservation) {
        char *path = g_build_filename(dir, OUTFILE_RESERVATION, NULL);
        char *text = NULL;
        bool read = g_file_get_contents(path, &text, NULL, NULL);
        g_free(path);
        if (!read)
            return false;
        int p = 0;
        guint64 start = 0;
        char boot[64] = "", host[256] = "", here[256] = "unknown";
        bool parsed = sscanf(text, "archsim reservation\npid %d\nstart %" G_GUINT64_FORMAT
                                   "\nboot %63s\nhost %255s", &p, &start, boot, host) == 4;
        g_free(text);
        gethostname(here, sizeof here - 1);
        here[strcspn(here, " \n")] = '\0';
        /* a reservation made on another host (shared file system) cannot be checked here */
        if (!parsed || strcmp(host, here) != 0 || outfile_process_alive((pid_t)p, start, boot))
            return false;
        *pid = (pid_t)p;
        return true;
    }
    /* an empty directory reserved by an archsim that recorded nothing: stale when a staging
     * directory DIR.part-PID of a process that is gone sits beside it */
    char *parent = g_path_get_dirname(dir), *base = g_path_get_basename(dir);
    bool stale = false;
    d = g_dir_open(parent, 0, NULL);
    while (d && (n = g_dir_read_name(d))) {
        pid_t p = stage_pid(n, base);
        if (p > 0 && !outfile_process_alive(p, 0, NULL)) {
            *pid = p;
            stale = true;
            break;
        }
    }
    if (d)
        g_dir_close(d);
    g_free(parent);
    g_free(base);
    return stale;
}
