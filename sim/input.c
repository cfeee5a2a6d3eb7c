/* input.c: opening input files by path: regular files only, never blocking, bounded reads.
 *
 * stat(2) first, so a FIFO is refused without being opened (open() on a FIFO waits for a
 * writer), then open(2) with O_NONBLOCK and fstat(2) on the descriptor, so a path swapped in
 * between is still checked. The size limit is checked from fstat and again while reading,
 * because a regular file can grow (a log being written) and /proc files report size 0.
 */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

const char *sim_file_kind(unsigned mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG:
        return "a regular file";
    case S_IFDIR:
        return "a directory";
    case S_IFIFO:
        return "a FIFO";
    case S_IFCHR:
        return "a character device";
    case S_IFBLK:
        return "a block device";
    case S_IFSOCK:
        return "a socket";
    default:
        return "not a file";
    }
}

static int sim_refuse_kind(const char *path, unsigned mode, GQuark domain, GError **error)
{
    g_set_error(error, domain, ARCHSIM_EXIT_NOINPUT, "%s: not a regular file (%s)", path,
                sim_file_kind(mode));
    return -1;
}

int sim_open_regular(const char *path, GQuark domain, uint64_t *size, GError **error)
{
    g_return_val_if_fail(path != NULL, -1);
    struct stat st;
    if (stat(path, &st) != 0) {
        int e = errno;
        g_set_error(error, domain, ARCHSIM_EXIT_NOINPUT, "%s: cannot open: %s", path,
                    g_strerror(e));
        if (e == ENOENT)
            sim_input_note_missing(path, error);
        return -1;
    }
    if (!S_ISREG(st.st_mode))
        return sim_refuse_kind(path, st.st_mode, domain, error);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        g_set_error(error, domain, ARCHSIM_EXIT_NOINPUT, "%s: cannot open: %s", path,
                    g_strerror(e));
        return -1;
    }
    int rc = fstat(fd, &st), e = errno;
    if (rc != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        if (rc == 0)
            return sim_refuse_kind(path, st.st_mode, domain, error);
        g_set_error(error, domain, ARCHSIM_EXIT_NOINPUT, "%s: cannot open: %s", path,
                    g_strerror(e));
        return -1;
    }
    /* Blocking again: readers expect read(2) to wait for data rather than fail with EAGAIN. */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if (size != NULL)
        *size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
    return fd;
}

FILE *sim_fopen_regular(const char *path, GQuark domain, GError **error)
{
    int fd = sim_open_regular(path, domain, NULL, error);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "rb");
    if (f == NULL) {
        int e = errno;
        close(fd);
        g_set_error(error, domain, ARCHSIM_EXIT_NOINPUT, "%s: cannot open: %s", path,
                    g_strerror(e));
    }
    return f;
}

static void sim_too_big(const char *path, uint64_t max_bytes, GQuark domain, int code,
                        GError **error)
{
    /* Not g_format_size(): it puts a no-break space before the unit. */
    char human[32];
    if (max_bytes >= (1u << 20) && max_bytes % (1u << 20) == 0)
        g_snprintf(human, sizeof human, " (%" G_GUINT64_FORMAT " MiB)", max_bytes >> 20);
    else if (max_bytes >= 1024 && max_bytes % 1024 == 0)
        g_snprintf(human, sizeof human, " (%" G_GUINT64_FORMAT " KiB)", max_bytes >> 10);
    else
        human[0] = '\0';
    g_set_error(error, domain, code, "%s: larger than the limit of %" G_GUINT64_FORMAT
                " bytes%s", path, max_bytes, human);
}

bool sim_read_regular(const char *path, uint64_t max_bytes, GQuark domain, int too_big_code,
                      GString *out, GError **error)
{
    g_return_val_if_fail(path != NULL && out != NULL, false);
    uint64_t size = 0;
    int fd = sim_open_regular(path, domain, &size, error);
    if (fd < 0)
        return false;
    if (size > max_bytes) {
        close(fd);
        sim_too_big(path, max_bytes, domain, too_big_code, error);
        return false;
    }
    gsize keep = out->len;
    uint64_t total = 0;
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            g_string_truncate(out, keep);
            g_set_error(error, domain, ARCHSIM_EXIT_NOINPUT, "%s: cannot read: %s", path,
                        g_strerror(e));
            return false;
        }
        if (n == 0)
            break;
        total += (uint64_t)n;
        if (total > max_bytes) {
            close(fd);
            g_string_truncate(out, keep);
            sim_too_big(path, max_bytes, domain, too_big_code, error);
            return false;
        }
        g_string_append_len(out, buf, n);
    }
    close(fd);
    return true;
}

/* ---- user-named inputs: the current directory first, then the data directory ------------- */

/* The relative paths that sim_input_find() found in neither place, so that the open that then
 * fails can say where it looked (sim_input_note_missing). A handful per process. */
G_LOCK_DEFINE_STATIC(sim_input_lock);
static GPtrArray *sim_input_missing;
static char *sim_input_data;
static bool sim_input_data_known;

/* DIR when DIR/configs/default.yaml is there: the one file every installed tree holds. */
static bool sim_input_is_data_dir(const char *dir)
{
    char *probe = g_build_filename(dir, "configs", "default.yaml", NULL);
    bool ok = g_file_test(probe, G_FILE_TEST_IS_REGULAR);
    g_free(probe);
    return ok;
}

static char *sim_input_locate_data_dir(void)
{
    const char *env = g_getenv("ARCHSIM_DATA");
    if (env != NULL && *env != '\0')
        return g_canonicalize_filename(env, NULL);
    char *exe = g_file_read_link("/proc/self/exe", NULL);
    if (exe == NULL)
        return NULL;
    char *bindir = g_path_get_dirname(exe);
    g_free(exe);
    /* installed: PREFIX/bin/archsim reads PREFIX/share/archsim; built in a clone:
     * CLONE/build/archsim (or build-debug/) reads CLONE itself */
    char *cand[] = { g_build_filename(bindir, "..", "share", "archsim", NULL),
                     g_build_filename(bindir, "..", NULL) };
    char *found = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(cand); i++) {
        if (found == NULL && sim_input_is_data_dir(cand[i]))
            found = g_canonicalize_filename(cand[i], NULL);
        g_free(cand[i]);
    }
    g_free(bindir);
    return found;
}

const char *sim_data_dir(void)
{
    G_LOCK(sim_input_lock);
    if (!sim_input_data_known) {
        sim_input_data = sim_input_locate_data_dir();
        sim_input_data_known = true;
    }
    const char *d = sim_input_data;
    G_UNLOCK(sim_input_lock);
    return d;
}

char *sim_input_find(const char *path)
{
    g_return_val_if_fail(path != NULL, NULL);
    struct stat st;
    if (*path == '\0' || strcmp(path, "-") == 0 || g_path_is_absolute(path) ||
        lstat(path, &st) == 0 || errno != ENOENT)
        return g_strdup(path);
    const char *data = sim_data_dir();
    if (data != NULL) {
        char *there = g_build_filename(data, path, NULL);
        if (stat(there, &st) == 0)
            return there;
        g_free(there);
    }
    G_LOCK(sim_input_lock);
    if (sim_input_missing == NULL)
        sim_input_missing = g_ptr_array_new_with_free_func(g_free);
    if (sim_input_missing->len < 64)
        g_ptr_array_add(sim_input_missing, g_strdup(path));
    G_UNLOCK(sim_input_lock);
    return g_strdup(path);
}

char **sim_input_find_all(char *const *paths)
{
    GPtrArray *out = g_ptr_array_new();
    for (char *const *p = paths; p != NULL && *p != NULL; p++) {
        struct stat st;
        const char *data = NULL;
        /* `archsim validate configs/NAME*.yaml` elsewhere: the shell left the glob as it was */
        if (strpbrk(*p, "*?[") != NULL && !g_path_is_absolute(*p) && lstat(*p, &st) != 0 &&
            (data = sim_data_dir()) != NULL) {
            char *pattern = g_build_filename(data, *p, NULL);
            glob_t g;
            if (glob(pattern, 0, NULL, &g) == 0) {
                for (size_t i = 0; i < g.gl_pathc; i++)      /* sorted by glob(3) */
                    g_ptr_array_add(out, g_strdup(g.gl_pathv[i]));
                globfree(&g);
                g_free(pattern);
                continue;
            }
            g_free(pattern);
        }
        g_ptr_array_add(out, sim_input_find(*p));
    }
    g_ptr_array_add(out, NULL);
    return (char **)g_ptr_array_free(out, FALSE);
}

void sim_input_note_missing(const char *path, GError **error)
{
    if (error == NULL || *error == NULL || path == NULL)
        return;
    bool looked = false;
    G_LOCK(sim_input_lock);
    for (guint i = 0; sim_input_missing != NULL && i < sim_input_missing->len && !looked; i++) {
        const char *m = g_ptr_array_index(sim_input_missing, i);
        size_t n = strlen(m);
        /* the name itself, or a file inside it (a trace directory's T0.trace) */
        looked = strncmp(path, m, n) == 0 && (path[n] == '\0' || path[n] == '/');
    }
    G_UNLOCK(sim_input_lock);
    const char *data = sim_data_dir();
    if (!looked || data == NULL)    /* no data directory: the cwd was the only place */
        return;
    char *old = (*error)->message;
    (*error)->message = g_strdup_printf("%s (looked in the current directory, then in %s; "
                                        "ARCHSIM_DATA sets that directory)", old, data);
    g_free(old);
}
