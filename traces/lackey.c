/* lackey.c: fast reader for valgrind lackey --trace-mem=yes text, plain or gzip (see lackey.h).
 *
 * Line forms follow what valgrind 3.19 lackey prints: "I  %08lx,%lu" for an instruction fetch and
 * " %c %08lx,%lu" (L, S, M) for data; address in hex, size in decimal. A file that starts with
 * the gzip magic (1f 8b, RFC 1952) is inflated here with zlib's inflate(), member after member as
 * gzip(1) does; anything after the last member that is not another member is an error, which
 * gzread would have skipped in silence. Other files are read as they are.
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
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "../sim/error.h"
#include "../sim/input.h"

/* 4 MiB: big enough that the per-refill cost (a memmove of one partial line and one read call)
 * vanishes, small enough to stay in L2/L3 while it is parsed. */
#define LACKEY_BUF_DEFAULT ((size_t)256 << 10)
#define LACKEY_BUF_MAX ((size_t)1 << 30)      /* inflate takes an unsigned int count */
/* Bytes after the buffer that a 16-byte load at the start of its last 14-byte line may read
 * (lackey_line14): allocated and zeroed, never parsed. */
#define LACKEY_SLACK 16
#define LACKEY_ZBUF ((size_t)128 << 10)       /* compressed bytes read at a time (gzip files) */
/* Lackey caps its own data events at 512 bytes; anything far beyond is not a lackey trace, and a
 * bound keeps the simulators' "addr + size - 1" arithmetic meaningful. */
#define LACKEY_MAX_SIZE 4096u
#define LACKEY_MAX_HEX 16                     /* 64-bit addresses */

struct LackeyReader {
    int fd;
    bool gzip;          /* the file starts with the gzip magic: inflate it */
    z_stream zs;        /* gzip: the member being inflated */
    bool zs_ready;      /* inflateInit2 succeeded */
    unsigned char *zin; /* gzip: compressed bytes, LACKEY_ZBUF */
    bool in_eof;        /* read(2) returned 0 */
    uint64_t file_off;  /* bytes read from the file so far */
    uint64_t garbage_at, garbage_n;  /* trailing bytes after the last gzip member */
    char *path;
    char *buf;          /* cap + 1 bytes: room for a '\n' after a last line that lacks one */
    size_t cap;
    size_t len;         /* bytes held in buf */
    size_t pos;         /* first byte not yet parsed */
    size_t lim;         /* end of the complete lines in buf: just after a '\n', or 0 */
    uint64_t line;      /* last line consumed */
    bool eof;           /* the stream is exhausted (or broken); buf holds what is left */
    int zerr;           /* zlib error that ended the stream early, Z_OK if none; Z_NEED_DICT
                           stands for trailing garbage (zlib never returns it for gzip) */
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
    else if (r->zerr == Z_NEED_DICT)
        lackey_fail(r, ARCHSIM_EXIT_DATAERR,
                    "%s:%" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " byte%s of trailing garbage "
                    "after the gzip stream (file byte %" G_GUINT64_FORMAT ")", r->path, line,
                    r->garbage_n, r->garbage_n == 1 ? "" : "s", r->garbage_at);
    else if (r->zerr == Z_MEM_ERROR)
        lackey_fail(r, ARCHSIM_EXIT_SOFTWARE, "%s:%" G_GUINT64_FORMAT ": zlib: out of memory",
                    r->path, line);
    else
        lackey_fail(r, ARCHSIM_EXIT_DATAERR, "%s:%" G_GUINT64_FORMAT ": corrupt gzip stream: %s",
                    r->path, line, r->zmsg ? r->zmsg : "unknown zlib error");
}

/* read(2) of up to n bytes, retried on EINTR; counts the file offset and notes the end. */
static ssize_t lackey_read_fd(LackeyReader *r, unsigned char *dst, size_t n)
{
    ssize_t k;
    do
        k = read(r->fd, dst, n);
    while (k < 0 && errno == EINTR);
    if (k == 0)
        r->in_eof = true;
    if (k > 0)
        r->file_off += (uint64_t)k;
    return k;
}

/* Notes what ended the stream early (zerr: a zlib code, or Z_NEED_DICT for trailing garbage). */
static void lackey_stream_broke(LackeyReader *r, int zerr, int err, const char *msg)
{
    r->zerr = zerr;
    r->zerrno = err;
    r->zmsg = g_strdup(msg != NULL ? msg : "unknown zlib error");
}

/* At the end of a gzip member: another member follows (true, the stream goes on), the file
 * ends (false, clean), or anything else follows: trailing garbage (false, r->zerr set). */
static bool lackey_next_member(LackeyReader *r)
{
    if (r->zs.avail_in < 2 && !r->in_eof) {
        /* bring the first two bytes of what follows into zin */
        memmove(r->zin, r->zs.next_in, r->zs.avail_in);
        size_t have = r->zs.avail_in;
        while (have < 2 && !r->in_eof) {
            ssize_t k = lackey_read_fd(r, r->zin + have, LACKEY_ZBUF - have);
            if (k < 0) {
                lackey_stream_broke(r, Z_ERRNO, errno, NULL);
                return false;
            }
            have += (size_t)k;
        }
        r->zs.next_in = r->zin;
        r->zs.avail_in = (uInt)have;
    }
    if (r->zs.avail_in == 0)
        return false;
    if (r->zs.avail_in >= 2 && r->zs.next_in[0] == 0x1f && r->zs.next_in[1] == 0x8b) {
        inflateReset(&r->zs);
        return true;
    }
    r->garbage_at = r->file_off - r->zs.avail_in;
    r->garbage_n = r->file_size > r->garbage_at ? r->file_size - r->garbage_at : r->zs.avail_in;
    lackey_stream_broke(r, Z_NEED_DICT, 0, NULL);
    return false;
}

/* Up to n bytes of the trace's text into dst. Returns the bytes given (> 0), 0 at the end of
 * the trace, -1 once the stream broke (r->zerr says how). Decoded bytes always come out first:
 * a broken stream gives -1 only when nothing decoded is left. */
static int lackey_source_read(LackeyReader *r, char *dst, size_t n)
{
    if (r->zerr != Z_OK)
        return -1;
    if (!r->gzip) {
        if (r->zs.avail_in > 0) {       /* the bytes read at open */
            size_t k = r->zs.avail_in < n ? r->zs.avail_in : n;
            memcpy(dst, r->zs.next_in, k);
            r->zs.next_in += k;
            r->zs.avail_in -= (uInt)k;
            return (int)k;
        }
        if (r->in_eof)
            return 0;
        ssize_t k = lackey_read_fd(r, (unsigned char *)dst, n);
        if (k < 0) {
            lackey_stream_broke(r, Z_ERRNO, errno, NULL);
            return -1;
        }
        return (int)k;
    }
    r->zs.next_out = (unsigned char *)dst;
    r->zs.avail_out = (uInt)n;
    while (r->zs.avail_out == n) {
        if (r->zs.avail_in == 0 && !r->in_eof) {
            ssize_t k = lackey_read_fd(r, r->zin, LACKEY_ZBUF);
            if (k < 0) {
                lackey_stream_broke(r, Z_ERRNO, errno, NULL);
                break;
            }
            r->zs.next_in = r->zin;
            r->zs.avail_in = (uInt)k;
        }
        int zr = inflate(&r->zs, Z_NO_FLUSH);
        if (zr == Z_STREAM_END) {
            if (!lackey_next_member(r))
                break;                   /* the end, or garbage (r->zerr) */
        } else if (zr == Z_BUF_ERROR || (zr == Z_OK && r->zs.avail_in == 0 && r->in_eof)) {
            if (r->zs.avail_in == 0 && r->in_eof) {
                if (r->zs.avail_out == n)
                    lackey_stream_broke(r, Z_BUF_ERROR, 0, NULL);   /* cut inside a member */
                break;
            }
        } else if (zr != Z_OK) {
            lackey_stream_broke(r, zr == Z_NEED_DICT ? Z_DATA_ERROR : zr, 0,
                                zr == Z_NEED_DICT ? "preset dictionary required" : r->zs.msg);
            break;
        }
    }
    size_t got = n - r->zs.avail_out;
    if (got > 0)
        return (int)got;
    return r->zerr != Z_OK ? -1 : 0;
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
    LackeyReader *r = g_new0(LackeyReader, 1);
    r->file_size = file_size;
    r->fd = fd;
    r->path = g_strdup(path);
    r->cap = buffer_size;
    r->buf = g_malloc0(buffer_size + 1 + LACKEY_SLACK);
    r->zerr = Z_OK;
    r->zin = g_malloc(LACKEY_ZBUF);
    /* The first bytes decide: gzip magic, or plain text handed on as it is. */
    ssize_t k = lackey_read_fd(r, r->zin, LACKEY_ZBUF);
    if (k < 0) {
        int e = errno;
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: cannot read: %s", path,
                    g_strerror(e));
        lackey_close(r);
        return NULL;
    }
    r->zs.next_in = r->zin;
    r->zs.avail_in = (uInt)k;
    if (k >= 2 && r->zin[0] == 0x1f && r->zin[1] == 0x8b) {
        r->gzip = true;
        if (inflateInit2(&r->zs, 15 + 16) != Z_OK) {     /* 15 + 16: gzip wrapper only */
            g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_SOFTWARE,
                        "%s: zlib: out of memory", path);
            lackey_close(r);
            return NULL;
        }
        r->zs_ready = true;
    }
    return r;
}

LackeyReader *lackey_open(const char *path, GError **error)
{
    return lackey_open_buffered(path, LACKEY_BUF_DEFAULT, error);
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
        int got = lackey_source_read(r, r->buf + old, r->cap - old);
        bool broken = got < 0;
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

/* Eight hex digits at p followed by ',' (lackey's %08lx for every address below 2^32), eight
 * bytes at a time: true and the value in *v when p holds exactly that. Reads p[0..8]: the
 * caller makes sure those nine bytes are in the buffer. The byte-range test is Bit Twiddling
 * Hacks' hasbetween, exact per ASCII byte. */
#define LK_ONES 0x0101010101010101ull
#define LK_HIGH 0x8080808080808080ull
static inline uint64_t lackey_bytes_between(uint64_t x, uint64_t m, uint64_t n)
{
    /* bit 7 of each byte b of x set iff m < b < n (m <= 127, n <= 128) */
    uint64_t low = x & (LK_ONES * 127);
    return ((LK_ONES * (127 + n) - low) & ~x & (low + LK_ONES * (127 - m))) & LK_HIGH;
}
#if defined(__SSE2__)
/* Each byte of x that is a hex digit: the mask of its bytes in *hex, and of those that are
 * letters ('a'..'f', 'A'..'F') in *let; each byte range is one pair of compares. */
static inline __attribute__((always_inline)) void lackey_hex_classes(__m128i x, __m128i *hex,
                                                                     __m128i *let)
{
    __m128i lower = _mm_or_si128(x, _mm_set1_epi8(0x20));
    __m128i dig = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
                                _mm_cmpgt_epi8(_mm_set1_epi8('9' + 1), x));
    *let = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
                         _mm_cmpgt_epi8(_mm_set1_epi8('f' + 1), lower));
    *hex = _mm_or_si128(dig, *let);
}

/* The value of the eight hex digits that start `shift` bytes into x (let: their letter mask,
 * lackey_hex_classes): each byte's digit value ('a'..'f' and 'A'..'F' have 1..6 in their low
 * nibble), moved down to bytes 0..7, paired into 16-bit lanes (first << 4 | second) and packed
 * by the vector unit; the first pair is then the top byte. */
#define LACKEY_HEX_VALUE8(x, let, shift)                                                    \
    __builtin_bswap32((uint32_t)_mm_cvtsi128_si32(lackey_pack_pairs(_mm_srli_si128(           \
        _mm_add_epi8(_mm_and_si128((x), _mm_set1_epi8(0x0f)),                                \
                     _mm_and_si128((let), _mm_set1_epi8(9))), (shift)))))
static inline __attribute__((always_inline)) __m128i lackey_pack_pairs(__m128i nib)
{
    __m128i pair = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(nib, _mm_set1_epi16(0x00ff)), 4),
                                _mm_srli_epi16(nib, 8));
    return _mm_packus_epi16(pair, pair);
}
#endif

static inline bool lackey_hex8(const char *p, uint64_t *v)
{
#if defined(__SSE2__)
    /* The same with SSE2 (every x86-64): each byte range is one pair of compares, and the
     * nibbles are paired and packed by the vector unit. */
    if (p[8] != ',')
        return false;
    __m128i x = _mm_loadl_epi64((const __m128i *)(const void *)p), hex, let;
    lackey_hex_classes(x, &hex, &let);
    if ((_mm_movemask_epi8(hex) & 0xff) != 0xff)
        return false;
    *v = LACKEY_HEX_VALUE8(x, let, 0);
    return true;
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (p[8] != ',')
        return false;
    uint64_t x;
    memcpy(&x, p, 8);
    uint64_t hex = lackey_bytes_between(x, '0' - 1, '9' + 1) |
                   lackey_bytes_between(x | 0x2020202020202020ull, 'a' - 1, 'f' + 1);
    if (hex != LK_HIGH)
        return false;
    uint64_t t = (x & (LK_ONES * 0x0f)) + 9 * ((x >> 6) & LK_ONES);   /* each byte: 0..15 */
    t = __builtin_bswap64(t);                                          /* first digit on top */
    t = (t | (t >> 4)) & 0x00ff00ff00ff00ffull;
    t = (t | (t >> 8)) & 0x0000ffff0000ffffull;
    *v = (t | (t >> 16)) & 0xffffffffull;
    return true;
#else
    (void)p, (void)v;
    return false;
#endif
}

#if defined(__SSE2__)
/* The line lackey writes for nearly every access below 2^32, " K XXXXXXXX,D\n" (K one of L, S,
 * M) or "I  XXXXXXXX,D\n", with a one-digit size of 1 to 9, checked and read from one 16-byte
 * load (the two bytes after the line are loaded, never looked at: the buffer has LACKEY_SLACK
 * bytes after its end). True with the reference in *ref when p holds exactly that; every such
 * line passes every check of the general path (hex digits, ',', the size, no wrap below 2^32,
 * the end of the line), and any other line is left to it. */
static inline __attribute__((always_inline)) bool lackey_line14(const char *p, MemRef *ref)
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    /* p[2] == ' ', p[11] == ',', p[13] == '\n' (the template's zero bytes are not looked at) */
    const __m128i tmpl = _mm_setr_epi8(0, 0, ' ', 0, 0, 0, 0, 0, 0, 0, 0, ',', 0, '\n', 0, 0);
    uint32_t fixed = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, tmpl));
    __m128i hexv, let;
    lackey_hex_classes(x, &hexv, &let);
    uint32_t hex = (uint32_t)_mm_movemask_epi8(hexv);
    uint32_t size = (uint32_t)(unsigned char)p[12] - '0';
    unsigned k;
    if (p[0] == ' ')
        k = lackey_kind_of[(unsigned char)p[1]];
    else
        k = p[0] == 'I' && p[1] == ' ' ? MEMREF_IFETCH + 1 : 0;
    if ((fixed & 0x2804) != 0x2804 || (hex & 0x07f8) != 0x07f8 || size - 1 >= 9 || k == 0)
        return false;
    ref->addr = LACKEY_HEX_VALUE8(x, let, 3);         /* the digits are bytes 3..10 */
    ref->size = size;
    ref->kind = k - 1;
    return true;
}
#endif

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
    uint64_t addr;

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
        /* The line lackey writes for nearly every access below 2^32 (lackey_line14), read in
         * one go; any other line takes the general path below, which gives every error its
         * column. */
#if defined(__SSE2__)
        if (G_LIKELY(lim - p >= 14 && lackey_line14(p, &out[got]))) {
            got++;
            p += 14;
            continue;
        }
#else
        if (G_LIKELY(lim - p >= 14 && p[11] == ',' && p[13] == '\n' &&
                     (unsigned char)(p[12] - '1') < 9)) {
            if (p[0] == 'I' && p[1] == ' ' && p[2] == ' ')
                k = MEMREF_IFETCH + 1;
            else if (p[0] == ' ' && p[2] == ' ')
                k = lackey_kind_of[(unsigned char)p[1]];
            else
                k = 0;
            if (k != 0 && lackey_hex8(p + 3, &addr)) {
                out[got].addr = addr;
                out[got].size = (uint32_t)(p[12] - '0');
                out[got].kind = k - 1;
                got++;
                p += 14;
                continue;
            }
        }
#endif
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
        addr = 0;
        unsigned d;
        /* nine bytes read at once: only where the buffer holds them (a short last line may
         * end right before lim) */
        if (G_LIKELY(lim - p >= 9 && lackey_hex8(p, &addr))) {
            p += 8;
        } else {
            while ((d = lackey_hex_of[(unsigned char)*p]) != 0) {
                addr = (addr << 4) | (d - 1);
                p++;
            }
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
        /* the last byte, addr + size - 1, must not wrap past 2^64: every consumer computes
         * it (lines touched, straddles), and a wrapped range touches no line at all */
        if (G_UNLIKELY(addr > UINT64_MAX - (size - 1))) {
            char msg[160];
            g_snprintf(msg, sizeof msg,
                       "reference 0x%" G_GINT64_MODIFIER "x,%u wraps past 2^64 (its last byte "
                       "would lie beyond 0xffffffffffffffff)", addr, size);
            lackey_fail_at(r, line, 4, msg);
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
    /* the position in the file itself (compressed bytes for gzip), so this works for both
     * forms; read-ahead buffering makes it run slightly early. */
    if (r->eof || r->file_size == 0)
        return 1.0;
    double f = (double)(r->file_off - r->zs.avail_in) / (double)r->file_size;
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
    if (r->zs_ready)
        inflateEnd(&r->zs);
    if (r->fd >= 0)
        close(r->fd);
    g_free(r->zin);
    g_free(r->buf);
    g_free(r->path);
    g_free(r->zmsg);
    if (r->failure != NULL)
        g_error_free(r->failure);
    g_free(r);
}
