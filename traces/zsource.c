/* zsource.c: plain, gzip or xz bytes from a file (zsource.h). gzip through zlib's inflate with
 * the gzip wrapper (15 + 16), reset after each member as gzip(1) concatenates them; xz through
 * liblzma's stream decoder with LZMA_CONCATENATED, which also checks each stream's integrity
 * check. A stream that ends early is "truncated", not a clean end.
 */
#include "zsource.h"

#include <errno.h>
#include <lzma.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../sim/error.h"
#include "../sim/input.h"

#define ZSOURCE_INBUF ((size_t)128 << 10)

struct ZSource {
    int fd;
    ZSourceKind kind;
    char *path;
    GQuark domain;
    unsigned char *in;
    size_t in_len, in_pos;
    bool in_eof;
    bool done;          /* the decoder reported the end of the last stream */
    bool in_member;     /* gzip: inside a member (its end not seen yet) */
    bool failed;
    uint64_t consumed, file_size;
    z_stream zs;
    lzma_stream xs;
};

static bool zs_fill(ZSource *z, GError **error)
{
    if (z->in_pos < z->in_len || z->in_eof)
        return true;
    ssize_t k;
    do
        k = read(z->fd, z->in, ZSOURCE_INBUF);
    while (k < 0 && errno == EINTR);
    if (k < 0) {
        g_set_error(error, z->domain, ARCHSIM_EXIT_IOERR, "%s: read failed: %s", z->path,
                    g_strerror(errno));
        return false;
    }
    z->in_len = (size_t)k;
    z->in_pos = 0;
    z->in_eof = k == 0;
    z->consumed += (uint64_t)k;
    return true;
}

ZSource *zsource_open(const char *path, GQuark domain, GError **error)
{
    uint64_t size = 0;
    int fd = sim_open_regular(path, domain, &size, error);
    if (fd < 0)
        return NULL;
    ZSource *z = g_new0(ZSource, 1);
    z->fd = fd;
    z->path = g_strdup(path);
    z->domain = domain;
    z->file_size = size;
    z->in = g_malloc(ZSOURCE_INBUF);
    if (!zs_fill(z, error)) {
        zsource_close(z);
        return NULL;
    }
    static const unsigned char xz_magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
    if (z->in_len >= 2 && z->in[0] == 0x1f && z->in[1] == 0x8b) {
        z->kind = ZSOURCE_GZIP;
        if (inflateInit2(&z->zs, 15 + 16) != Z_OK) {
            g_set_error(error, domain, ARCHSIM_EXIT_SOFTWARE, "%s: zlib: out of memory", path);
            zsource_close(z);
            return NULL;
        }
    } else if (z->in_len >= 6 && memcmp(z->in, xz_magic, 6) == 0) {
        z->kind = ZSOURCE_XZ;
        z->xs = (lzma_stream)LZMA_STREAM_INIT;
        /* a memory limit on the decoder: an xz header asking for a huge dictionary is refused
         * instead of allocated (xz -9 needs 65 MiB) */
        if (lzma_stream_decoder(&z->xs, (uint64_t)256 << 20, LZMA_CONCATENATED) != LZMA_OK) {
            g_set_error(error, domain, ARCHSIM_EXIT_SOFTWARE, "%s: liblzma: cannot start the decoder",
                        path);
            zsource_close(z);
            return NULL;
        }
    }
    return z;
}

static ptrdiff_t zs_fail(ZSource *z, GError **error, int code, const char *what)
{
    z->failed = true;
    g_set_error(error, z->domain, code, "%s: %s", z->path, what);
    return -1;
}

static ptrdiff_t zs_read_gzip(ZSource *z, char *dst, size_t n, GError **error)
{
    z->zs.next_out = (Bytef *)dst;
    z->zs.avail_out = (uInt)MIN(n, (size_t)1 << 30);
    while (z->zs.avail_out > 0 && !z->done) {
        if (!zs_fill(z, error)) {
            z->failed = true;
            return -1;
        }
        if (z->in_pos == z->in_len) {       /* the end of the file */
            if (z->in_member)
                return zs_fail(z, error, ARCHSIM_EXIT_DATAERR, "truncated gzip stream");
            z->done = true;
            break;
        }
        z->in_member = true;
        z->zs.next_in = z->in + z->in_pos;
        z->zs.avail_in = (uInt)(z->in_len - z->in_pos);
        int r = inflate(&z->zs, Z_NO_FLUSH);
        z->in_pos = z->in_len - z->zs.avail_in;
        if (r == Z_STREAM_END) {
            inflateReset(&z->zs);       /* the next member, if any */
            z->in_member = false;
            if (!zs_fill(z, error)) {
                z->failed = true;
                return -1;
            }
            if (z->in_pos < z->in_len && (z->in_len - z->in_pos < 2 || z->in[z->in_pos] != 0x1f ||
                                          z->in[z->in_pos + 1] != 0x8b))
                return zs_fail(z, error, ARCHSIM_EXIT_DATAERR,
                               "bytes after the last gzip member that are not another member");
            continue;
        }
        if (r == Z_MEM_ERROR)
            return zs_fail(z, error, ARCHSIM_EXIT_SOFTWARE, "zlib: out of memory");
        if (r != Z_OK && r != Z_BUF_ERROR) {
            char *m = g_strdup_printf("corrupt gzip stream: %s", z->zs.msg ? z->zs.msg : "zlib error");
            ptrdiff_t ret = zs_fail(z, error, ARCHSIM_EXIT_DATAERR, m);
            g_free(m);
            return ret;
        }
    }
    return (ptrdiff_t)(MIN(n, (size_t)1 << 30) - z->zs.avail_out);
}

static ptrdiff_t zs_read_xz(ZSource *z, char *dst, size_t n, GError **error)
{
    z->xs.next_out = (uint8_t *)dst;
    z->xs.avail_out = n;
    while (z->xs.avail_out > 0 && !z->done) {
        if (!zs_fill(z, error)) {
            z->failed = true;
            return -1;
        }
        z->xs.next_in = z->in + z->in_pos;
        z->xs.avail_in = z->in_len - z->in_pos;
        lzma_ret r = lzma_code(&z->xs, z->in_eof ? LZMA_FINISH : LZMA_RUN);
        z->in_pos = z->in_len - z->xs.avail_in;
        if (r == LZMA_STREAM_END) {
            z->done = true;
            break;
        }
        if (r == LZMA_OK)
            continue;
        if (r == LZMA_BUF_ERROR && z->in_eof)
            return zs_fail(z, error, ARCHSIM_EXIT_DATAERR, "truncated xz stream");
        if (r == LZMA_MEM_ERROR)
            return zs_fail(z, error, ARCHSIM_EXIT_SOFTWARE, "liblzma: out of memory");
        if (r == LZMA_MEMLIMIT_ERROR)
            return zs_fail(z, error, ARCHSIM_EXIT_DATAERR,
                           "xz stream needs more than 256 MiB to decode (recompress with xz -6)");
        if (r == LZMA_FORMAT_ERROR || r == LZMA_DATA_ERROR || r == LZMA_OPTIONS_ERROR)
            return zs_fail(z, error, ARCHSIM_EXIT_DATAERR, "corrupt xz stream");
        return zs_fail(z, error, ARCHSIM_EXIT_DATAERR, "xz stream: integrity check failed");
    }
    return (ptrdiff_t)(n - z->xs.avail_out);
}

ptrdiff_t zsource_read(ZSource *z, char *dst, size_t n, GError **error)
{
    if (z->failed) {
        g_set_error(error, z->domain, ARCHSIM_EXIT_DATAERR, "%s: read after an error", z->path);
        return -1;
    }
    if (n == 0)
        return 0;
    switch (z->kind) {
    case ZSOURCE_GZIP:
        return zs_read_gzip(z, dst, n, error);
    case ZSOURCE_XZ:
        return zs_read_xz(z, dst, n, error);
    case ZSOURCE_PLAIN:
        break;
    }
    if (!zs_fill(z, error)) {
        z->failed = true;
        return -1;
    }
    size_t k = MIN(n, z->in_len - z->in_pos);
    memcpy(dst, z->in + z->in_pos, k);
    z->in_pos += k;
    return (ptrdiff_t)k;
}

ZSourceKind zsource_kind(const ZSource *z) { return z->kind; }
uint64_t zsource_consumed(const ZSource *z) { return z->consumed - (z->in_len - z->in_pos); }
uint64_t zsource_file_size(const ZSource *z) { return z->file_size; }

void zsource_close(ZSource *z)
{
    if (!z)
        return;
    if (z->kind == ZSOURCE_GZIP)
        inflateEnd(&z->zs);
    else if (z->kind == ZSOURCE_XZ)
        lzma_end(&z->xs);
    if (z->fd >= 0)
        close(z->fd);
    g_free(z->in);
    g_free(z->path);
    g_free(z);
}
