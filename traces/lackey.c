/* lackey.c: fast reader for valgrind lackey --trace-mem=yes text, plain or gzip (see lackey.h).
 *
 * Line forms follow what valgrind 3.19 lackey prints: "I  %08lx,%lu" for an instruction fetch and
 * " %c %08lx,%lu" (L, S, M) for data; address in hex, size in decimal. zlib's gzread passes
 * uncompressed files through unchanged, so one code path reads both.
 */
#include "lackey.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../sim/error.h"
#include "../sim/input.h"

/* 4 MiB: big enough that the per-refill cost (a memmove of one partial line and one read call)
 * vanishes, small enough to stay in L2/L3 while it is parsed. */
#define LACKEY_BUF_DEFAULT ((size_t)4 << 20)
#define LACKEY_BUF_MAX ((size_t)1 << 30)      /* gzread takes an unsigned int count */
#define LACKEY_ZBUF ((unsigned)128 << 10)     /* zlib's own input buffer for gzip files */
/* Lackey caps its own data events at 512 bytes; anything far beyond is not a lackey trace, and a
 * bound keeps the simulators' "addr + size - 1" arithmetic meaningful. */
#define LACKEY_MAX_SIZE 4096u
#define LACKEY_MAX_HEX 16                     /* 64-bit addresses */

struct LackeyReader {
    gzFile gz;
    char *path;
    char *buf;          /* cap + 1 bytes: room for a '\n' after a last line that lacks one */
    size_t cap;
    size_t len;         /* bytes held in buf */
    size_t pos;         /* first byte not yet parsed */
    size_t lim;         /* end of the complete lines in buf: just after a '\n', or 0 */
    uint64_t line;      /* last line consumed */
    bool eof;           /* the stream is exhausted (or broken); buf holds what is left */
    int zerr;           /* zlib error that ended the stream early, Z_OK if none */
    int zerrno;         /* errno that came with Z_ERRNO */
    char *zmsg;         /* zlib's text for zerr */
    GError *failure;    /* sticky; reported once the references before it are handed out */
    uint64_t file_size; /* bytes on disk, for progress reports */
};

/* Record letters after the leading space, stored as kind + 1 so that 0 means "not a record". */
static const uint8_t lackey_kind_of[256] = {
    ['L'] = MEMREF_LOAD + 1,
    ['S'] = MEMREF_STORE + 1,
    ['M'] = MEMREF_MODIFY + 1,
};

/* Hex digit values + 1; 0 means "not a hex digit". A table lookup per digit beats the compare
 * chains of strtoull and needs no terminator: every line in the buffer ends with '\n'. */
static const uint8_t lackey_hex_of[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
    ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
    ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* Quotes one byte for a message: 'x' when printable, '\xNN' otherwise. */
static void lackey_quote_char(char out[8], unsigned char c)
{
    if (c >= 0x20 && c < 0x7f)
        g_snprintf(out, 8, "'%c'", c);
    else
        g_snprintf(out, 8, "'\\x%02x'", c);
}

static void lackey_fail(LackeyReader *r, int code, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

static void lackey_fail(LackeyReader *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_assert(r->failure == NULL);
    r->failure = g_error_new_literal(ARCHSIM_TRACE_ERROR, code, msg);
    g_free(msg);
}

/* A parse error at column col (1-based) of line. */
static void lackey_fail_at(LackeyReader *r, uint64_t line, size_t col, const char *problem)
{
    lackey_fail(r, ARCHSIM_EXIT_DATAERR, "%s:%" G_GUINT64_FORMAT ":%zu: %s", r->path, line, col,
                problem);
}

/* The stream broke (truncated, corrupt, unreadable) before line. */
static void lackey_fail_stream(LackeyReader *r, uint64_t line)
{
    if (r->zerr == Z_BUF_ERROR)
        lackey_fail(r, ARCHSIM_EXIT_DATAERR,
                    "%s:%" G_GUINT64_FORMAT ": truncated gzip stream (unexpected end of file)",
                    r->path, line);
    else if (r->zerr == Z_ERRNO)
        lackey_fail(r, ARCHSIM_EXIT_NOINPUT, "%s:%" G_GUINT64_FORMAT ": cannot read: %s",
                    r->path, line, g_strerror(r->zerrno));
    else if (r->zerr == Z_MEM_ERROR)
        lackey_fail(r, ARCHSIM_EXIT_SOFTWARE, "%s:%" G_GUINT64_FORMAT ": zlib: out of memory",
                    r->path, line);
    else
        lackey_fail(r, ARCHSIM_EXIT_DATAERR, "%s:%" G_GUINT64_FORMAT ": corrupt gzip stream: %s",
                    r->path, line, r->zmsg ? r->zmsg : "unknown zlib error");
}

LackeyReader *lackey_open_buffered(const char *path, size_t buffer_size, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_return_val_if_fail(buffer_size >= 1 && buffer_size <= LACKEY_BUF_MAX, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);

    /* A regular file only: a FIFO would block open(), a device never ends (sim/input.h). */
    uint64_t file_size = 0;
    int fd = sim_open_regular(path, ARCHSIM_TRACE_ERROR, &file_size, error);
    if (fd < 0)
        return NULL;
    gzFile gz = gzdopen(fd, "rb");
    if (gz == NULL) {
        close(fd);
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: cannot open: %s", path,
                    g_strerror(ENOMEM));
        return NULL;
    }
    gzbuffer(gz, LACKEY_ZBUF);

    LackeyReader *r = g_new0(LackeyReader, 1);
    r->file_size = file_size;
    r->gz = gz;
    r->path = g_strdup(path);
    r->cap = buffer_size;
    r->buf = g_malloc(buffer_size + 1);
    r->zerr = Z_OK;
    return r;
}

LackeyReader *lackey_open(const char *path, GError **error)
{
    return lackey_open_buffered(path, LACKEY_BUF_DEFAULT, error);
}

/* Notes a zlib error after a read of got bytes; true if the stream is broken. zlib flags a
 * truncated gzip file (Z_BUF_ERROR) as soon as its input runs dry, while it still holds decoded
 * bytes for us, so truncation counts only once gzread has nothing more to give. Other errors
 * make gzread return -1 and drop what it had decoded, so for them the line in the message is
 * the first line not handed out, which can be a little before the damage. */
static bool lackey_check_stream(LackeyReader *r, int got)
{
    int zerr = Z_OK;
    int saved_errno = errno;
    const char *msg = gzerror(r->gz, &zerr);
    if (got > 0 && (zerr == Z_OK || zerr == Z_BUF_ERROR))
        return false;
    if (got == 0 && zerr == Z_OK)
        return false;           /* a clean end of file */
    if (zerr == Z_OK)           /* -1 without a recorded error: treat as a read failure */
        zerr = Z_ERRNO;
    r->zerr = zerr;
    r->zerrno = saved_errno;
    /* zlib writes "<name>: <problem>" and its name for a gzdopen'ed file is "<fd:N>"; keep the
     * problem only, the message names the file itself. */
    const char *sep = msg != NULL ? strstr(msg, ": ") : NULL;
    r->zmsg = g_strdup(sep != NULL ? sep + 2 : msg);
    return true;
}

/* Makes more complete lines available at buf[pos, lim). Called only when pos == lim. Returns
 * false at the end of the trace or on failure (r->failure set). */
static bool lackey_refill(LackeyReader *r)
{
    if (r->eof) {
        if (r->zerr != Z_OK && r->failure == NULL)
            lackey_fail_stream(r, r->line + 1);
        return false;
    }
    /* Keep the partial last line: it is at most one line long, so this copy is cheap. */
    size_t rest = r->len - r->pos;
    memmove(r->buf, r->buf + r->pos, rest);
    r->len = rest;
    r->pos = 0;
    r->lim = 0;
    for (;;) {
        if (r->len == r->cap) {
            lackey_fail(r, ARCHSIM_EXIT_DATAERR,
                        "%s:%" G_GUINT64_FORMAT ":1: line longer than %zu bytes", r->path,
                        r->line + 1, r->cap);
            return false;
        }
        size_t old = r->len;
        errno = 0;
        int got = gzread(r->gz, r->buf + old, (unsigned)(r->cap - old));
        bool broken = lackey_check_stream(r, got);
        if (got < 0)
            got = 0;
        r->len += (size_t)got;
        if (broken || got == 0) {
            r->eof = true;
            if (!broken && r->len > 0 && r->buf[r->len - 1] != '\n')
                r->buf[r->len++] = '\n';   /* the +1 byte of buf: a last line without '\n' */
            /* A broken stream hands out only its complete lines; the cut one is the error. */
            const char *nl = r->len ? memrchr(r->buf, '\n', r->len) : NULL;
            r->lim = nl ? (size_t)(nl - r->buf) + 1 : 0;
            if (r->lim > 0)
                return true;
            if (broken)
                lackey_fail_stream(r, r->line + 1);
            return false;
        }
        const char *nl = memrchr(r->buf + old, '\n', (size_t)got);
        if (nl != NULL) {
            r->lim = (size_t)(nl - r->buf) + 1;
            return true;
        }
    }
}

/* Valgrind's own lines: "==PID==", "--PID--" or "**PID**" followed by anything. */
static bool lackey_is_valgrind_line(const char *p)
{
    char c = p[0];
    if ((c != '=' && c != '-' && c != '*') || p[1] != c || !g_ascii_isdigit(p[2]))
        return false;
    const char *q = p + 2;
    while (g_ascii_isdigit(*q))
        q++;
    return q[0] == c && q[1] == c;
}

/* The slow path for a line that is not "I  " or " L|S|M ": blank lines and valgrind's message
 * lines are skipped (returns the start of the next line); anything else fails with the column
 * of the first wrong byte (returns NULL). */
static const char *lackey_odd_line(LackeyReader *r, const char *p, uint64_t line)
{
    const char *eol = memchr(p, '\n', (size_t)(r->buf + r->lim - p));
    g_assert(eol != NULL);
    if (lackey_is_valgrind_line(p))
        return eol + 1;
    const char *q = p;
    while (*q == ' ' || *q == '\t' || *q == '\r')
        q++;
    if (q == eol)
        return eol + 1;

    char ch[8];
    char *msg;
    size_t col;
    unsigned char c0 = (unsigned char)p[0], c1 = (unsigned char)p[1];
    if (c0 == 'I') {
        col = p[1] != ' ' ? 2 : 3;
        msg = g_strdup("expected two spaces after 'I'");
    } else if (lackey_kind_of[c0] != 0) {
        col = 1;
        msg = g_strdup_printf("'%c' record must start with a space", c0);
    } else if (c0 == ' ' && lackey_kind_of[c1] != 0) {
        col = 3;
        msg = g_strdup_printf("expected a space after '%c'", c1);
    } else if (c0 == ' ' && c1 == 'I') {
        col = 2;
        msg = g_strdup("'I' record must start in column 1");
    } else if (c0 == ' ') {
        col = 2;
        lackey_quote_char(ch, c1);
        msg = g_strdup_printf("unknown record %s (expected I, L, S or M)", ch);
    } else if ((c0 == '=' || c0 == '-' || c0 == '*') && c1 == c0) {
        col = 1;
        msg = g_strdup_printf("malformed valgrind message line (expected %c%cPID%c%c)", c0, c0,
                              c0, c0);
    } else {
        col = 1;
        lackey_quote_char(ch, c0);
        msg = g_strdup_printf("unknown record %s (expected I, L, S or M)", ch);
    }
    lackey_fail_at(r, line, col, msg);
    g_free(msg);
    return NULL;
}

size_t lackey_read(LackeyReader *r, MemRef *out, size_t n, GError **error)
{
    g_return_val_if_fail(r != NULL, 0);
    g_return_val_if_fail(out != NULL || n == 0, 0);
    g_return_val_if_fail(error == NULL || *error == NULL, 0);

    size_t got = 0;
    const char *p = r->buf + r->pos;
    const char *lim = r->buf + r->lim;
    uint64_t line = r->line;
    const char *problem = NULL;     /* set with `at` and `start` on a parse error */
    const char *at = NULL, *start = NULL;

    while (got < n && r->failure == NULL) {
        if (G_UNLIKELY(p == lim)) {
            r->pos = (size_t)(p - r->buf);
            r->line = line;
            bool more = lackey_refill(r);
            p = r->buf + r->pos;        /* the refill moved the buffer's contents */
            lim = r->buf + r->lim;
            if (!more)
                break;
            continue;
        }
        line++;
        start = p;
        uint32_t kind;
        unsigned k;
        /* Every line in [p, lim) ends with '\n', and each test below fails on '\n', so the
         * look-ahead never leaves the line. */
        if (p[0] == 'I' && p[1] == ' ' && p[2] == ' ') {
            kind = MEMREF_IFETCH;
        } else if (p[0] == ' ' && (k = lackey_kind_of[(unsigned char)p[1]]) != 0 && p[2] == ' ') {
            kind = k - 1;
        } else {
            p = lackey_odd_line(r, p, line);
            if (p == NULL)
                break;
            continue;
        }

        p += 3;
        const char *digits = p;
        uint64_t addr = 0;
        unsigned d;
        while ((d = lackey_hex_of[(unsigned char)*p]) != 0) {
            addr = (addr << 4) | (d - 1);
            p++;
        }
        if (G_UNLIKELY(p == digits || p - digits > LACKEY_MAX_HEX || *p != ',')) {
            if (p == digits) {
                at = p, problem = "expected hex address";
            } else if (p - digits > LACKEY_MAX_HEX) {
                at = digits, problem = "address longer than 16 hex digits";
            } else {
                at = p, problem = "expected ',' after the address";
            }
            break;
        }
        p++;

        digits = p;
        uint32_t size = 0;
        while ((d = (unsigned char)*p - '0') < 10) {
            if (size <= LACKEY_MAX_SIZE)    /* saturate: stops overflow on absurd lengths */
                size = size * 10 + d;
            p++;
        }
        if (G_UNLIKELY(p == digits || size == 0 || size > LACKEY_MAX_SIZE)) {
            at = digits;
            problem = p == digits ? "expected decimal size"
                    : size == 0 ? "size must be >= 1"
                    : "size too large (at most 4096 bytes)";
            break;
        }
        if (G_UNLIKELY(*p != '\n')) {
            /* Tolerate trailing blanks and a CR from a file that went through Windows. */
            while (*p == ' ' || *p == '\t' || *p == '\r')
                p++;
            if (*p != '\n') {
                char ch[8], msg[48];
                lackey_quote_char(ch, (unsigned char)*p);
                g_snprintf(msg, sizeof msg, "unexpected %s after the size", ch);
                lackey_fail_at(r, line, (size_t)(p - start) + 1, msg);
                break;
            }
        }
        p++;
        out[got].addr = addr;
        out[got].size = size;
        out[got].kind = kind;
        got++;
    }

    if (problem != NULL)
        lackey_fail_at(r, line, (size_t)(at - start) + 1, problem);
    if (r->failure == NULL)
        r->pos = (size_t)(p - r->buf);
    r->line = line;
    if (got == 0 && r->failure != NULL && error != NULL)
        *error = g_error_copy(r->failure);
    return got;
}

double lackey_progress(const LackeyReader *r)
{
    /* gzoffset is the position in the file itself (compressed bytes for gzip), so this works
     * for both forms; read-ahead buffering makes it run slightly early. */
    z_off_t off = gzoffset(r->gz);
    if (r->eof || r->file_size == 0)
        return 1.0;
    double f = off < 0 ? 0.0 : (double)off / (double)r->file_size;
    return f > 1.0 ? 1.0 : f;
}

uint64_t lackey_line(const LackeyReader *r)
{
    g_return_val_if_fail(r != NULL, 0);
    return r->line;
}

void lackey_close(LackeyReader *r)
{
    if (r == NULL)
        return;
    gzclose_r(r->gz);
    g_free(r->buf);
    g_free(r->path);
    g_free(r->zmsg);
    if (r->failure != NULL)
        g_error_free(r->failure);
    g_free(r);
}
