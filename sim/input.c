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
