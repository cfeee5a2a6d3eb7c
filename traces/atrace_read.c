/* atrace_read.c: reader of archsim's per-thread trace format (spec: traces/FORMAT.md).
 *
 * The file is read in 1 MiB chunks, inflated into a 256 KiB record buffer and decoded in place:
 * no allocation per record, one bounds check per byte. Every malformed input is an error that
 * names the byte (file offset in the header, decompressed-stream offset after it) and the record
 * index; an error found after good records is held back until those records are handed out.
 */
#include "atrace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../sim/error.h"
#include "../sim/input.h"

#define AT_R_IN_DEFAULT ((size_t)1 << 20)
/* 256 KiB: inflate writes it and the decoder reads it back while it is still in L2. */
#define AT_R_OUT_DEFAULT ((size_t)256 << 10)
/* A bound on the site table (16 M sites, 256 MiB), so a small file that inflates to gigabytes
 * of new-site records cannot exhaust memory; real programs have thousands of sites. */
#define AT_R_SITES_MAX ((size_t)1 << 24)

typedef struct {
    uint64_t pc;
    uint64_t last;          /* last address recorded at this site (0 before the first) */
} AtRSite;

/* A stream-level problem seen by inflate; reported once the records before it are out. */
typedef enum {
    AT_P_NONE = 0,
    AT_P_TRUNCATED,         /* the file ended inside the zlib stream */
    AT_P_CORRUPT,           /* inflate: Z_DATA_ERROR, Z_NEED_DICT, ... */
    AT_P_GARBAGE,           /* bytes after the end of the zlib stream */
    AT_P_READ,              /* read(2) failed */
    AT_P_NOMEM,             /* inflate: Z_MEM_ERROR */
} AtProblem;

struct AtReader {
    int fd;
    char *path;
    uint64_t file_size;
    AtHeader h;
    uint32_t header_len;
    z_stream zs;
    bool z_ready;           /* inflateInit succeeded */
    uint8_t *in;            /* compressed bytes read from the file */
    size_t in_cap;
    uint8_t *out;           /* decompressed records; out[pos, len) not yet decoded */
    size_t out_cap, pos, len;
    uint64_t out_base;      /* stream offset of out[0] */
    uint64_t file_off;      /* file bytes read so far (header included) */
    bool in_eof;            /* read(2) returned 0 */
    bool z_done;            /* inflate will give nothing more (stream end or a problem) */
    bool z_end;             /* inflate reached the end of the zlib stream */
    AtProblem problem;
    uint64_t problem_at;    /* file offset for the problem's message */
    uint64_t problem_n;     /* AT_P_GARBAGE: byte count */
    int problem_errno;      /* AT_P_READ */
    char *problem_msg;      /* AT_P_CORRUPT: zlib's text */
    uint64_t index;         /* records handed out */
    AtRSite *sites;
    size_t nsites, cap_sites;
    GError *failure;        /* sticky */
};

static const char *const at_kind_names[AT_KINDS] = {
    [AT_LOAD] = "LOAD", [AT_STORE] = "STORE", [AT_ALOAD] = "ALOAD", [AT_ASTORE] = "ASTORE",
    [AT_RMW] = "RMW", [AT_CAS_OK] = "CAS_OK", [AT_CAS_FAIL] = "CAS_FAIL", [AT_FENCE] = "FENCE",
    [AT_RANGE_R] = "RANGE_R", [AT_RANGE_W] = "RANGE_W", [AT_LOCK_ACQ] = "LOCK_ACQ",
    [AT_LOCK_REL] = "LOCK_REL", [AT_BARRIER] = "BARRIER", [AT_CREATE] = "CREATE",
    [AT_JOIN] = "JOIN", [AT_ROI_BEGIN] = "ROI_BEGIN", [AT_ROI_END] = "ROI_END",
    [AT_TX_BEGIN] = "TX_BEGIN", [AT_TX_END] = "TX_END", [AT_TX_ABORT] = "TX_ABORT",
    [AT_COND_WAIT] = "COND_WAIT", [AT_COND_SIGNAL] = "COND_SIGNAL",
};

static const char *const at_order_names[] = {
    [AT_MO_RELAXED] = "relaxed", [AT_MO_CONSUME] = "consume", [AT_MO_ACQUIRE] = "acquire",
    [AT_MO_RELEASE] = "release", [AT_MO_ACQ_REL] = "acq_rel", [AT_MO_SEQ_CST] = "seq_cst",
};

static const char *const at_op_names[] = {
    [AT_OP_XCHG] = "xchg", [AT_OP_ADD] = "add", [AT_OP_SUB] = "sub", [AT_OP_AND] = "and",
    [AT_OP_OR] = "or", [AT_OP_XOR] = "xor", [AT_OP_NAND] = "nand", [AT_OP_OTHER] = "other",
};

/* Sizes of the size codes 0..5; code 6 is explicit, 7 does not exist. */
static const uint32_t at_size_of_code[6] = { 0, 1, 2, 4, 8, 16 };

const char *at_kind_name(int kind)
{
    return kind >= 0 && kind < AT_KINDS ? at_kind_names[kind] : "?";
}

const char *at_order_name(int mo)
{
    return mo >= 0 && mo <= AT_MO_SEQ_CST ? at_order_names[mo] : "?";
}

const char *at_op_name(int op)
{
    return op >= 0 && op <= AT_OP_OTHER ? at_op_names[op] : "?";
}

/* ---- header -------------------------------------------------------------------------------- */

static uint32_t at_r_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t at_r_u64(const uint8_t *p)
{
    return (uint64_t)at_r_u32(p) | (uint64_t)at_r_u32(p + 4) << 32;
}

/* Reads up to len bytes (fewer only at the end of the file); -1 with errno on failure. */
static ssize_t at_r_read_full(int fd, uint8_t *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

static void at_r_header_error(GError **error, const char *path, uint64_t at, const char *fmt,
                              ...) G_GNUC_PRINTF(4, 5);

static void at_r_header_error(GError **error, const char *path, uint64_t at, const char *fmt,
                              ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "%s: byte %" G_GUINT64_FORMAT
                ": %s", path, at, msg);
    g_free(msg);
}

/* Parses the tagged fields in b[AT_HEADER_FIXED, hl) into h. */
static bool at_r_fields(const uint8_t *b, uint32_t hl, AtHeader *h, const char *path,
                        GError **error)
{
    static const char *const names[] = { NULL, "frontend", "compiler", "cflags" };
    char *dest[] = { NULL, h->frontend, h->compiler, h->cflags };
    size_t caps[] = { 0, sizeof h->frontend, sizeof h->compiler, sizeof h->cflags };
    bool seen[4] = { false };
    uint32_t pos = AT_HEADER_FIXED;
    while (pos < hl) {
        if (hl - pos < 3) {
            at_r_header_error(error, path, pos, "header field runs past the header end "
                              "(byte %u)", hl);
            return false;
        }
        unsigned tag = b[pos];
        uint32_t len = (uint32_t)b[pos + 1] | (uint32_t)b[pos + 2] << 8;
        if (len > hl - pos - 3) {
            at_r_header_error(error, path, pos, "header field (tag %u, %u bytes) runs past the "
                              "header end (byte %u)", tag, len, hl);
            return false;
        }
        if (tag == 0) {
            at_r_header_error(error, path, pos, "header field tag 0 is reserved");
            return false;
        }
        if (tag < G_N_ELEMENTS(names)) {
            if (seen[tag]) {
                at_r_header_error(error, path, pos, "duplicate %s field", names[tag]);
                return false;
            }
            seen[tag] = true;
            if (len >= caps[tag]) {
                at_r_header_error(error, path, pos, "%s field too long (%u bytes, at most %zu)",
                                  names[tag], len, caps[tag] - 1);
                return false;
            }
            const uint8_t *nul = memchr(b + pos + 3, 0, len);
            if (nul != NULL) {
                at_r_header_error(error, path, (uint64_t)(nul - b), "NUL byte in the %s field",
                                  names[tag]);
                return false;
            }
            memcpy(dest[tag], b + pos + 3, len);
            dest[tag][len] = '\0';
        }
        /* other tags: fields of a later revision, skipped (FORMAT.md, "Versions") */
        pos += 3 + len;
    }
    return true;
}

/* Reads and checks the header of the open file; sets r->h and r->header_len. */
static bool at_r_header(AtReader *r, GError **error)
{
    uint8_t fixed[AT_HEADER_FIXED];
    ssize_t got = at_r_read_full(r->fd, fixed, sizeof fixed);
    if (got < 0) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: cannot read: %s",
                    r->path, g_strerror(errno));
        return false;
    }
    size_t n = (size_t)got;
    if (memcmp(fixed, ATRACE_MAGIC, MIN(n, (size_t)8)) != 0) {
        at_r_header_error(error, r->path, 0, "bad magic (expected \"%s\"; not an archsim trace)",
                          ATRACE_MAGIC);
        return false;
    }
    if (n >= 12 && at_r_u32(fixed + 8) != ATRACE_VERSION) {
        at_r_header_error(error, r->path, 8, "unsupported version %u (this reader reads version "
                          "%d)", at_r_u32(fixed + 8), ATRACE_VERSION);
        return false;
    }
    uint32_t hl = n >= 16 ? at_r_u32(fixed + 12) : AT_HEADER_FIXED;
    if (hl < AT_HEADER_FIXED || hl > AT_HEADER_MAX) {
        at_r_header_error(error, r->path, 12, "header length %u out of range (%u to %u)", hl,
                          AT_HEADER_FIXED, AT_HEADER_MAX);
        return false;
    }
    if (n < AT_HEADER_FIXED) {
        at_r_header_error(error, r->path, n, "truncated header (%u bytes expected)", hl);
        return false;
    }
    uint8_t *b = g_malloc(hl);
    memcpy(b, fixed, AT_HEADER_FIXED);
    got = at_r_read_full(r->fd, b + AT_HEADER_FIXED, hl - AT_HEADER_FIXED);
    bool ok = false;
    if (got < 0) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT, "%s: cannot read: %s",
                    r->path, g_strerror(errno));
    } else if ((size_t)got < hl - AT_HEADER_FIXED) {
        at_r_header_error(error, r->path, AT_HEADER_FIXED + (uint64_t)got,
                          "truncated header (%u bytes expected)", hl);
    } else {
        AtHeader *h = &r->h;
        memset(h, 0, sizeof *h);
        h->version = ATRACE_VERSION;
        h->load_base = at_r_u64(b + 16);
        h->flags = at_r_u32(b + 24);
        h->tid = at_r_u32(b + 28);
        h->parent = (int32_t)at_r_u32(b + 32);
        ok = at_r_fields(b, hl, h, r->path, error);
        r->header_len = hl;
        r->file_off = hl;
    }
    g_free(b);
    return ok;
}

static AtReader *at_r_start(int fd, const char *path, uint64_t file_size, size_t in_size,
                            size_t out_size, bool raw, GError **error);

AtReader *at_reader_open_buffered(const char *path, size_t in_size, size_t out_size,
                                  GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_return_val_if_fail(in_size >= 1 && in_size <= G_MAXUINT, NULL);
    g_return_val_if_fail(out_size >= AT_RECORD_MAX && out_size <= G_MAXUINT, NULL);
    g_return_val_if_fail(error == NULL || *error == NULL, NULL);

    /* A regular file only: a FIFO would block open(), a device never ends (sim/input.h). */
    uint64_t file_size = 0;
    int fd = sim_open_regular(path, ARCHSIM_TRACE_ERROR, &file_size, error);
    if (fd < 0)
        return NULL;
    return at_r_start(fd, path, file_size, in_size, out_size, false, error);
}

AtReader *at_reader_open_fd(int fd, const char *name, GError **error)
{
    g_return_val_if_fail(fd >= 0 && name != NULL, NULL);
    return at_r_start(fd, name, 0, AT_R_IN_DEFAULT, AT_R_OUT_DEFAULT, true, error);
}

/* The reader of an open descriptor (it owns it): reads and checks the header. raw: the records
 * are raw deflate (the live pipe, atrace.h), else a zlib stream (a file). */
static AtReader *at_r_start(int fd, const char *path, uint64_t file_size, size_t in_size,
                            size_t out_size, bool raw, GError **error)
{
    AtReader *r = g_new0(AtReader, 1);
    r->fd = fd;
    r->path = g_strdup(path);
    r->file_size = file_size;
    if (!at_r_header(r, error)) {
        at_reader_close(r);
        return NULL;
    }
    if (inflateInit2(&r->zs, raw ? -15 : 15) != Z_OK) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_SOFTWARE, "%s: zlib: out of memory",
                    path);
        at_reader_close(r);
        return NULL;
    }
    r->z_ready = true;
    r->in_cap = in_size;
    r->in = g_malloc(in_size);
    r->out_cap = out_size;
    r->out = g_malloc(out_size);
    r->cap_sites = 64;
    r->sites = g_new(AtRSite, r->cap_sites);
    return r;
}

AtReader *at_reader_open(const char *path, GError **error)
{
    return at_reader_open_buffered(path, AT_R_IN_DEFAULT, AT_R_OUT_DEFAULT, error);
}

const AtHeader *at_reader_header(const AtReader *r)
{
    return &r->h;
}

/* ---- the zlib stream ------------------------------------------------------------------------ */

static void at_r_problem(AtReader *r, AtProblem p, uint64_t at)
{
    r->problem = p;
    r->problem_at = at;
    r->z_done = true;
}

/* After Z_STREAM_END: anything left in the file is trailing garbage. */
static void at_r_check_trailer(AtReader *r)
{
    uint64_t start = r->file_off - r->zs.avail_in;
    if (r->zs.avail_in == 0 && !r->in_eof) {
        ssize_t k = at_r_read_full(r->fd, r->in, 1);
        if (k < 0) {
            r->problem_errno = errno;
            at_r_problem(r, AT_P_READ, r->file_off);
            return;
        }
        if (k == 0)
            r->in_eof = true;
        r->file_off += (uint64_t)k;
        r->zs.next_in = r->in;
        r->zs.avail_in = (uInt)k;
    }
    if (r->zs.avail_in > 0) {
        struct stat st;
        uint64_t size = fstat(r->fd, &st) == 0 ? (uint64_t)st.st_size : r->file_off;
        at_r_problem(r, AT_P_GARBAGE, start);
        r->problem_n = size > start ? size - start : r->zs.avail_in;
    }
}

/* Moves the undecoded bytes to the front of out and inflates more behind them. True if new
 * bytes came; false once the stream is exhausted (r->z_end) or broken (r->problem). */
static bool at_r_refill(AtReader *r)
{
    if (r->z_done)
        return false;
    size_t rest = r->len - r->pos;
    memmove(r->out, r->out + r->pos, rest);
    r->out_base += r->pos;
    r->pos = 0;
    r->len = rest;
    size_t before = rest;
    while (r->len < r->out_cap && !r->z_done) {
        if (r->zs.avail_in == 0 && !r->in_eof) {
            ssize_t k;
            do
                k = read(r->fd, r->in, r->in_cap);
            while (k < 0 && errno == EINTR);
            if (k < 0) {
                r->problem_errno = errno;
                at_r_problem(r, AT_P_READ, r->file_off);
                break;
            }
            if (k == 0)
                r->in_eof = true;
            r->zs.next_in = r->in;
            r->zs.avail_in = (uInt)k;
            r->file_off += (uint64_t)k;
        }
        r->zs.next_out = r->out + r->len;
        r->zs.avail_out = (uInt)(r->out_cap - r->len);
        int zr = inflate(&r->zs, Z_NO_FLUSH);
        r->len = r->out_cap - r->zs.avail_out;
        switch (zr) {
        case Z_OK:
            break;
        case Z_STREAM_END:
            r->z_end = true;
            r->z_done = true;
            at_r_check_trailer(r);
            break;
        case Z_BUF_ERROR:       /* no progress: more input needed */
            if (r->zs.avail_in == 0 && r->in_eof)
                at_r_problem(r, AT_P_TRUNCATED, r->file_off);
            break;
        case Z_MEM_ERROR:
            at_r_problem(r, AT_P_NOMEM, r->file_off);
            break;
        default:                /* Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR */
            r->problem_msg = g_strdup(zr == Z_NEED_DICT ? "preset dictionary required"
                                      : r->zs.msg != NULL ? r->zs.msg : "unknown zlib error");
            at_r_problem(r, AT_P_CORRUPT, r->file_off - r->zs.avail_in);
            break;
        }
    }
    return r->len > before;
}

/* ---- records -------------------------------------------------------------------------------- */

typedef enum { AT_D_OK, AT_D_MORE, AT_D_BAD } AtDec;

static AtDec at_r_bad(AtReader *r, const uint8_t *at, uint64_t index, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);

/* Records a malformed record: the byte at `at` (in out) of record `index`. */
static AtDec at_r_bad(AtReader *r, const uint8_t *at, uint64_t index, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_assert(r->failure == NULL);
    r->failure = g_error_new(ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                             "%s: byte %" G_GUINT64_FORMAT ", record %" G_GUINT64_FORMAT ": %s",
                             r->path, r->out_base + (uint64_t)(at - r->out), index, msg);
    g_free(msg);
    return AT_D_BAD;
}

/* LEB128: AT_D_MORE if the buffer ends inside it, AT_D_BAD if it is longer than 64 bits. */
static inline AtDec at_r_uvarint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    if (G_LIKELY(p < end && *p < 0x80)) {
        *v = *p;
        *pp = p + 1;
        return AT_D_OK;
    }
    uint64_t x = 0;
    for (unsigned i = 0, shift = 0; i < AT_VARINT_MAX; i++, shift += 7) {
        if (p == end)
            return AT_D_MORE;
        unsigned b = *p++;
        if (i == AT_VARINT_MAX - 1 && b > 1)
            return AT_D_BAD;    /* a tenth byte may only hold bit 63 */
        x |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            *v = x;
            *pp = p;
            return AT_D_OK;
        }
    }
    return AT_D_BAD;            /* not reached: the tenth byte either ends it or is > 1 */
}

#define AT_R_VARINT(var, what)                                                                 \
    do {                                                                                       \
        const uint8_t *at_ = p;                                                                \
        AtDec d_ = at_r_uvarint(&p, end, &(var));                                              \
        if (G_UNLIKELY(d_ != AT_D_OK))                                                         \
            return d_ == AT_D_MORE ? d_                                                        \
                 : at_r_bad(r, at_, index, "varint too long (%s; more than 64 bits)", what);   \
    } while (0)

/* Decodes the record at *pp (before end) into rec. Nothing changes (the site table included)
 * unless it returns AT_D_OK; then *pp is past the record. */
static inline AtDec at_r_record(AtReader *r, const uint8_t **pp, const uint8_t *end,
                                AtRecord *rec, uint64_t index)
{
    const uint8_t *p = *pp;
    if (p == end)
        return AT_D_MORE;
    const uint8_t *start = p;
    unsigned b0 = *p++;
    unsigned kind = b0 & ((1u << AT_KIND_BITS) - 1), szc = b0 >> AT_KIND_BITS;
    if (G_UNLIKELY(kind >= AT_KINDS))
        return at_r_bad(r, start, index, "unknown record kind %u", kind);
    if (G_UNLIKELY(szc > AT_SZC_EXPLICIT))
        return at_r_bad(r, start, index, "size code %u does not exist", szc);
    uint32_t bit = AT_KIND_BIT(kind);
    unsigned mo = 0, op = 0, mo_fail = 0, flags = 0;
    if (bit & AT_KINDS_ATOMIC) {
        if (p == end)
            return AT_D_MORE;
        unsigned ab = *p;
        unsigned x = (ab >> AT_AB_OP_SHIFT) & 7;
        mo = ab & AT_AB_MO_MASK;
        unsigned reserved = ab & 0x80u;
        if (kind != AT_RMW)
            reserved |= ab & AT_AB_UNCHANGED;
        if (bit & AT_KINDS_CAS)
            mo_fail = x;
        else if (kind == AT_RMW)
            op = x;
        else
            reserved |= ab & (7u << AT_AB_OP_SHIFT);
        if (G_UNLIKELY(mo > AT_MO_SEQ_CST))
            return at_r_bad(r, p, index, "unknown memory order %u", mo);
        if (G_UNLIKELY(mo_fail > AT_MO_SEQ_CST))
            return at_r_bad(r, p, index, "unknown failure order %u", mo_fail);
        if (G_UNLIKELY(reserved != 0))
            return at_r_bad(r, p, index, "reserved bits 0x%02x set in the atomic byte (%s)",
                            reserved, at_kind_names[kind]);
        if (ab & AT_AB_UNCHANGED)
            flags |= AT_F_UNCHANGED;
        p++;
    }
    uint32_t size;
    if (G_LIKELY(szc < AT_SZC_EXPLICIT)) {
        size = at_size_of_code[szc];
    } else {
        const uint8_t *at = p;
        uint64_t v;
        AT_R_VARINT(v, "size");
        if (G_UNLIKELY(v > UINT32_MAX))
            return at_r_bad(r, at, index, "size %" G_GUINT64_FORMAT " too large (at most %u)", v,
                            UINT32_MAX);
        size = (uint32_t)v;
    }
    const uint8_t *site_at = p;
    uint64_t word;
    AT_R_VARINT(word, "site");
    uint64_t site = word >> 1;
    uint64_t pc, last = 0;
    if (G_LIKELY(site < r->nsites)) {
        pc = r->sites[site].pc;
        last = r->sites[site].last;
    } else if (site == r->nsites) {
        if (G_UNLIKELY(r->nsites == AT_R_SITES_MAX))
            return at_r_bad(r, site_at, index, "more than %zu sites", AT_R_SITES_MAX);
        AT_R_VARINT(pc, "pc");
    } else {
        return at_r_bad(r, site_at, index, "site index %" G_GUINT64_FORMAT " beyond the site "
                        "table (%zu sites)", site, r->nsites);
    }
    uint64_t gap = 0;
    if (word & 1) {
        flags |= AT_F_GAP;
        const uint8_t *gap_at = p;
        AT_R_VARINT(gap, "gap");
        if (G_UNLIKELY(gap > AT_GAP_MAX))
            return at_r_bad(r, gap_at, index, "gap %" G_GUINT64_FORMAT " too large (at most %"
                            G_GUINT64_FORMAT " instructions)", gap, AT_GAP_MAX);
    }
    uint64_t addr = 0, arg = 0;
    const uint8_t *addr_at = p;
    if (bit & AT_KINDS_ADDR) {
        uint64_t zz;
        AT_R_VARINT(zz, "address");
        addr = last + ((zz >> 1) ^ (uint64_t)-(int64_t)(zz & 1));
    }
    if (bit & AT_KINDS_ARG)
        AT_R_VARINT(arg, "arg");
    /* The bytes a record touches end at 2^64: a wrapped range would touch no line at all, and
     * a core would wait for nothing (issue 15 item 9). */
    if ((bit & AT_KINDS_ADDR) && G_UNLIKELY(size > 0 && addr > UINT64_MAX - (size - 1)))
        return at_r_bad(r, addr_at, index, "%s of %u bytes at 0x%" G_GINT64_MODIFIER "x wraps "
                        "past 2^64", at_kind_names[kind], size, addr);
    if ((kind == AT_RANGE_R || kind == AT_RANGE_W) &&
        G_UNLIKELY(arg > 0 && addr > UINT64_MAX - (arg - 1)))
        return at_r_bad(r, addr_at, index, "%s of %" G_GUINT64_FORMAT " bytes at 0x%"
                        G_GINT64_MODIFIER "x wraps past 2^64", at_kind_names[kind], arg, addr);

    /* complete: commit the site table */
    if (site == r->nsites) {
        if (r->nsites == r->cap_sites) {
            r->cap_sites *= 2;
            r->sites = g_renew(AtRSite, r->sites, r->cap_sites);
        }
        r->sites[site].pc = pc;
        r->sites[site].last = addr;
        r->nsites++;
    } else if (bit & AT_KINDS_ADDR) {
        r->sites[site].last = addr;
    }
    rec->kind = (uint8_t)kind;
    rec->mo = (uint8_t)mo;
    rec->mo_fail = (uint8_t)mo_fail;
    rec->op = (uint8_t)op;
    rec->flags = (uint8_t)flags;
    rec->size = size;
    rec->addr = addr;
    rec->arg = arg;
    rec->pc = pc;
    rec->gap = gap;
    *pp = p;
    return AT_D_OK;
}

/* Turns the stream problem (or the clean end) into r->failure once every whole record before
 * it has been decoded. index: the first record not decoded. */
static void at_r_finish(AtReader *r, uint64_t index)
{
    uint64_t off = r->out_base + r->len;
    const char *path = r->path;
    if (r->z_end && r->pos < r->len) {
        r->failure = g_error_new(ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                                 "%s: byte %" G_GUINT64_FORMAT ", record %" G_GUINT64_FORMAT
                                 ": record cut short by the end of the zlib stream", path,
                                 r->out_base + r->pos, index);
        return;
    }
    switch (r->problem) {
    case AT_P_NONE:
        return;
    case AT_P_TRUNCATED:
        r->failure = g_error_new(ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                                 "%s: byte %" G_GUINT64_FORMAT ", record %" G_GUINT64_FORMAT
                                 ": truncated zlib stream (the file ends at byte %"
                                 G_GUINT64_FORMAT ")", path, off, index, r->problem_at);
        return;
    case AT_P_CORRUPT:
        r->failure = g_error_new(ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                                 "%s: byte %" G_GUINT64_FORMAT ", record %" G_GUINT64_FORMAT
                                 ": corrupt zlib stream: %s (near file byte %" G_GUINT64_FORMAT
                                 ")", path, off, index, r->problem_msg, r->problem_at);
        return;
    case AT_P_GARBAGE:
        r->failure = g_error_new(ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                                 "%s: byte %" G_GUINT64_FORMAT ", record %" G_GUINT64_FORMAT
                                 ": %" G_GUINT64_FORMAT " byte%s of trailing garbage after the "
                                 "zlib stream (file byte %" G_GUINT64_FORMAT ")", path, off,
                                 index, r->problem_n, r->problem_n == 1 ? "" : "s",
                                 r->problem_at);
        return;
    case AT_P_READ:
        r->failure = g_error_new(ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_NOINPUT,
                                 "%s: byte %" G_GUINT64_FORMAT ", record %" G_GUINT64_FORMAT
                                 ": cannot read: %s", path, off, index,
                                 g_strerror(r->problem_errno));
        return;
    case AT_P_NOMEM:
        r->failure = g_error_new(ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_SOFTWARE,
                                 "%s: byte %" G_GUINT64_FORMAT ", record %" G_GUINT64_FORMAT
                                 ": zlib: out of memory", path, off, index);
        return;
    }
}

size_t at_reader_read(AtReader *r, AtRecord *out, size_t n, GError **error)
{
    g_return_val_if_fail(r != NULL, 0);
    g_return_val_if_fail(out != NULL || n == 0, 0);
    g_return_val_if_fail(error == NULL || *error == NULL, 0);

    size_t got = 0;
    bool done = r->failure != NULL;
    while (got < n && !done) {
        const uint8_t *p = r->out + r->pos, *end = r->out + r->len;
        AtDec d = AT_D_OK;
        while (got < n) {
            d = at_r_record(r, &p, end, &out[got], r->index + got);
            if (G_UNLIKELY(d != AT_D_OK))
                break;
            got++;
        }
        r->pos = (size_t)(p - r->out);
        if (d == AT_D_BAD)
            break;
        if (d == AT_D_MORE && !at_r_refill(r)) {
            at_r_finish(r, r->index + got);
            done = true;
        }
    }
    r->index += got;
    if (got == 0 && r->failure != NULL && error != NULL)
        *error = g_error_copy(r->failure);
    return got;
}

uint64_t at_reader_index(const AtReader *r)
{
    return r->index;
}

size_t at_reader_sites(const AtReader *r)
{
    return r->nsites;
}

uint64_t at_reader_site_pc(const AtReader *r, size_t i)
{
    g_return_val_if_fail(i < r->nsites, 0);
    return r->sites[i].pc;
}

uint64_t at_reader_offset(const AtReader *r)
{
    return r->out_base + r->pos;
}

uint32_t at_reader_header_size(const AtReader *r)
{
    return r->header_len;
}

double at_reader_progress(const AtReader *r)
{
    if (r->file_size == 0 || (r->z_done && r->pos == r->len))
        return 1.0;
    double f = (double)(r->file_off - r->zs.avail_in) / (double)r->file_size;
    return f > 1.0 ? 1.0 : f;
}

void at_reader_close(AtReader *r)
{
    if (r == NULL)
        return;
    if (r->z_ready)
        inflateEnd(&r->zs);
    if (r->fd >= 0)
        close(r->fd);
    g_free(r->path);
    g_free(r->in);
    g_free(r->out);
    g_free(r->sites);
    g_free(r->problem_msg);
    if (r->failure != NULL)
        g_error_free(r->failure);
    g_free(r);
}
