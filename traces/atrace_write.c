/* atrace_write.c: writer of archsim's per-thread trace format (spec: traces/FORMAT.md).
 *
 * Plain C11 + zlib, no GLib: the recording runtime links it into instrumented programs. Records
 * are encoded into a fixed raw buffer that is deflated in chunks when nearly full, so a record
 * costs a few stores and no allocation; only the site table (PC -> index, open addressing) grows.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L     /* strnlen, O_CLOEXEC: the runtime may build with -std=c11 */
#endif
#define ATRACE_WRITER_ONLY
#include "atrace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* 256 KiB of raw records per deflate call: large enough that the per-call overhead vanishes,
 * small enough to stay in L2 while deflate reads it. */
#define AT_W_RAW ((size_t)256 << 10)
#define AT_W_ZOUT ((size_t)256 << 10)
#define AT_W_SLOTS0 256u                /* initial hash slots (a power of two) */
#define AT_W_DM 64u                     /* entries of the direct-mapped site cache */

typedef struct {
    uint64_t pc;
    uint64_t last;          /* last address recorded at this site (0 before the first) */
} AtWSite;

struct AtWriter {
    int fd;
    int err;                /* sticky errno of the first I/O failure, 0 if none */
    uint64_t records;
    z_stream zs;
    uint8_t *raw;           /* AT_W_RAW bytes of encoded records */
    size_t raw_len;
    uint8_t *zout;          /* AT_W_ZOUT bytes of compressed output */
    AtWSite *sites;
    uint32_t nsites, cap_sites;
    uint32_t *slots;        /* site index + 1 per slot, 0 = empty */
    uint32_t slot_mask;     /* slots - 1 */
    unsigned slot_bits;     /* log2(slots) */
    int z_ready;            /* deflateInit succeeded */
    uint32_t last_site;     /* one-entry cache: the site of the previous record */
    /* a direct-mapped cache of recent sites by PC (a loop's few sites alternate, which the
     * one-entry cache misses every time): pc, and its index + 1 (0: empty) */
    uint64_t dm_pc[AT_W_DM];
    uint32_t dm_idx[AT_W_DM];
};

/* Writes all of buf; -1 with errno on failure. */
static int at_w_write_all(int fd, const uint8_t *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static uint8_t *at_w_put_u16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return p + 2;
}

static uint8_t *at_w_put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + 4;
}

static uint8_t *at_w_put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + 8;
}

/* Appends one tagged string field; -1 if the string is not terminated inside its array. */
static int at_w_field(uint8_t **pp, unsigned tag, const char *s, size_t cap)
{
    size_t len = strnlen(s, cap);
    if (len == cap)
        return -1;
    uint8_t *p = *pp;
    *p++ = (uint8_t)tag;
    p = at_w_put_u16(p, (uint32_t)len);
    memcpy(p, s, len);
    *pp = p + len;
    return 0;
}

static inline uint8_t *at_w_uvarint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static uint64_t at_w_hash(uint64_t pc)
{
    return pc * UINT64_C(0x9e3779b97f4a7c15);   /* Fibonacci hashing: use the top bits */
}

static uint32_t at_w_slot_of(const AtWriter *w, uint64_t pc)
{
    return (uint32_t)(at_w_hash(pc) >> (64 - w->slot_bits));
}

/* Doubles the hash table; 0, or -1 on ENOMEM. */
static int at_w_rehash(AtWriter *w)
{
    uint32_t nslots = (w->slot_mask + 1) * 2;
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (slots == NULL)
        return -1;
    free(w->slots);
    w->slots = slots;
    w->slot_mask = nslots - 1;
    w->slot_bits++;
    for (uint32_t i = 0; i < w->nsites; i++) {
        uint32_t s = at_w_slot_of(w, w->sites[i].pc);
        while (slots[s] != 0)
            s = (s + 1) & w->slot_mask;
        slots[s] = i + 1;
    }
    return 0;
}

/* The site index of pc, *fresh = 1 when pc is new (then it is appended). -1 on ENOMEM. */
static int64_t at_w_site(AtWriter *w, uint64_t pc, int *fresh)
{
    *fresh = 0;
    if (w->last_site < w->nsites && w->sites[w->last_site].pc == pc)
        return w->last_site;
    uint32_t dm = (uint32_t)(pc ^ (pc >> 6)) & (AT_W_DM - 1);
    if (w->dm_idx[dm] != 0 && w->dm_pc[dm] == pc)
        return w->last_site = w->dm_idx[dm] - 1;
    uint32_t s = at_w_slot_of(w, pc);
    for (;;) {
        uint32_t v = w->slots[s];
        if (v == 0)
            break;
        if (w->sites[v - 1].pc == pc) {
            w->dm_pc[dm] = pc;
            w->dm_idx[dm] = v;
            return w->last_site = v - 1;
        }
        s = (s + 1) & w->slot_mask;
    }
    if (w->nsites == UINT32_MAX - 1) {
        errno = ENOMEM;
        return -1;
    }
    if (w->nsites == w->cap_sites) {
        uint32_t cap = w->cap_sites * 2;
        AtWSite *sites = realloc(w->sites, (size_t)cap * sizeof *sites);
        if (sites == NULL)
            return -1;
        w->sites = sites;
        w->cap_sites = cap;
    }
    uint32_t idx = w->nsites++;
    w->sites[idx].pc = pc;
    w->sites[idx].last = 0;
    w->slots[s] = idx + 1;
    if ((uint64_t)w->nsites * 2 > (uint64_t)w->slot_mask + 1 && at_w_rehash(w) != 0) {
        w->nsites--;            /* the slot still names it; drop both */
        w->slots[s] = 0;
        return -1;
    }
    *fresh = 1;
    w->dm_pc[dm] = pc;
    w->dm_idx[dm] = idx + 1;
    return w->last_site = idx;
}

/* Deflates everything in raw with the given flush mode and writes what comes out. */
static int at_w_deflate(AtWriter *w, int flush)
{
    w->zs.next_in = w->raw;
    w->zs.avail_in = (uInt)w->raw_len;
    for (;;) {
        w->zs.next_out = w->zout;
        w->zs.avail_out = (uInt)AT_W_ZOUT;
        int zr = deflate(&w->zs, flush);
        if (zr == Z_STREAM_ERROR) {
            errno = EIO;
            return -1;
        }
        size_t have = AT_W_ZOUT - w->zs.avail_out;
        if (have > 0 && at_w_write_all(w->fd, w->zout, have) != 0)
            return -1;
        if (flush == Z_FINISH ? zr == Z_STREAM_END : w->zs.avail_out != 0)
            break;
    }
    w->raw_len = 0;
    return 0;
}

/* Frees w and what it holds (not the file). */
static void at_w_free(AtWriter *w)
{
    if (w->z_ready)
        deflateEnd(&w->zs);
    free(w->raw);
    free(w->zout);
    free(w->sites);
    free(w->slots);
    free(w);
}

static AtWriter *at_writer_start(const char *path, int fd, const AtHeader *h, int zlevel, int raw,
                                  int excl);

bool at_file_is_ours(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT;
    if (S_ISLNK(st.st_mode))
        return true;
    if (!S_ISREG(st.st_mode))
        return false;
    if (st.st_size == 0)
        return true;                   /* a stream that never got its header */
    char magic[sizeof ATRACE_MAGIC - 1];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    bool ours = fd >= 0 && read(fd, magic, sizeof magic) == (ssize_t)sizeof magic &&
                memcmp(magic, ATRACE_MAGIC, sizeof magic) == 0;
    if (fd >= 0)
        close(fd);
    return ours;
}

AtWriter *at_writer_open(const char *path, const AtHeader *h, int zlevel)
{
    if (path == NULL) {
        errno = EINVAL;
        return NULL;
    }
    return at_writer_start(path, -1, h, zlevel, 0, 0);
}

AtWriter *at_writer_create(const char *path, const AtHeader *h, int zlevel)
{
    if (path == NULL) {
        errno = EINVAL;
        return NULL;
    }
    return at_writer_start(path, -1, h, zlevel, 0, 1);
}

AtWriter *at_writer_open_fd(int fd, const AtHeader *h, int zlevel)
{
    if (fd < 0) {
        errno = EINVAL;
        return NULL;
    }
    return at_writer_start(NULL, fd, h, zlevel, 1, 0);
}

/* Writes the header to PATH (created; excl: only if it does not exist yet) or to fd (path NULL;
 * the writer owns it from now on). raw: the records as raw deflate (the live pipe, atrace.h),
 * else as a zlib stream (a file). */
static AtWriter *at_writer_start(const char *path, int fd, const AtHeader *h, int zlevel, int raw,
                                 int excl)
{
    if (h == NULL || zlevel < 0 || zlevel > 9 ||
        (h->version != 0 && h->version != ATRACE_VERSION)) {
        errno = EINVAL;
        return NULL;
    }
    /* fixed part + three fields (tag, u16 length, at most the array size - 1 bytes) */
    uint8_t head[AT_HEADER_FIXED + 3 * 3 + sizeof h->frontend + sizeof h->compiler +
                 sizeof h->cflags];
    uint8_t *p = head;
    memcpy(p, ATRACE_MAGIC, 8);
    p = at_w_put_u32(p + 8, ATRACE_VERSION);
    uint8_t *len_at = p;
    p = at_w_put_u64(p + 4, h->load_base);
    p = at_w_put_u32(p, h->flags);
    p = at_w_put_u32(p, h->tid);
    p = at_w_put_u32(p, (uint32_t)h->parent);
    if (at_w_field(&p, AT_FIELD_FRONTEND, h->frontend, sizeof h->frontend) != 0 ||
        at_w_field(&p, AT_FIELD_COMPILER, h->compiler, sizeof h->compiler) != 0 ||
        at_w_field(&p, AT_FIELD_CFLAGS, h->cflags, sizeof h->cflags) != 0) {
        errno = EINVAL;
        return NULL;
    }
    at_w_put_u32(len_at, (uint32_t)(p - head));

    AtWriter *w = calloc(1, sizeof *w);
    if (w == NULL)
        return NULL;
    w->raw = malloc(AT_W_RAW);
    w->zout = malloc(AT_W_ZOUT);
    w->cap_sites = AT_W_SLOTS0 / 2;
    w->sites = malloc(w->cap_sites * sizeof *w->sites);
    w->slots = calloc(AT_W_SLOTS0, sizeof *w->slots);
    w->slot_mask = AT_W_SLOTS0 - 1;
    w->slot_bits = 0;
    while ((1u << w->slot_bits) < AT_W_SLOTS0)
        w->slot_bits++;
    w->last_site = UINT32_MAX;
    if (w->raw == NULL || w->zout == NULL || w->sites == NULL || w->slots == NULL ||
        deflateInit2(&w->zs, zlevel, Z_DEFLATED, raw ? -15 : 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        at_w_free(w);
        errno = ENOMEM;
        return NULL;
    }
    w->z_ready = 1;
    /* O_NOFOLLOW: a trace is never written through a symbolic link (docs/outputs.md) */
    w->fd = path ? open(path, O_WRONLY | O_CREAT | (excl ? O_EXCL : O_TRUNC) | O_CLOEXEC |
                        O_NOFOLLOW, 0644) : fd;
    if (w->fd < 0 || at_w_write_all(w->fd, head, (size_t)(p - head)) != 0) {
        int saved = errno;
        if (w->fd >= 0) {
            close(w->fd);
            if (path && excl)       /* made here (O_EXCL): no header-only file is left */
                unlink(path);
        }
        at_w_free(w);
        errno = saved;
        return NULL;
    }
    return w;
}

/* The size code of a size (FORMAT.md): 0..5 for 0, 1, 2, 4, 8, 16, else AT_SZC_EXPLICIT. */
static inline unsigned at_w_size_code(uint32_t size)
{
    switch (size) {
    case 0: return 0;
    case 1: return 1;
    case 2: return 2;
    case 4: return 3;
    case 8: return 4;
    case 16: return 5;
    default: return AT_SZC_EXPLICIT;
    }
}

/* True when r's fields fit its kind: absent fields are zero, orders and ops in range. */
static int at_w_valid(const AtRecord *r)
{
    if (r->kind >= AT_KINDS || (r->flags & ~(AT_F_UNCHANGED | AT_F_GAP)) != 0)
        return 0;
    uint32_t bit = AT_KIND_BIT(r->kind);
    if (!(r->flags & AT_F_GAP) && r->gap != 0)
        return 0;
    if (r->gap > AT_GAP_MAX)
        return 0;
    if (!(bit & AT_KINDS_ADDR) && r->addr != 0)
        return 0;
    if (!(bit & AT_KINDS_ARG) && r->arg != 0)
        return 0;
    if (!(bit & AT_KINDS_ATOMIC) && r->mo != 0)
        return 0;
    if (r->mo > AT_MO_SEQ_CST)
        return 0;
    if (r->kind == AT_RMW ? r->op > AT_OP_OTHER : r->op != 0)
        return 0;
    if ((bit & AT_KINDS_CAS) ? r->mo_fail > AT_MO_SEQ_CST : r->mo_fail != 0)
        return 0;
    if (r->kind != AT_RMW && (r->flags & AT_F_UNCHANGED))
        return 0;
    /* the bytes touched, [addr, addr + size) and a range's [addr, addr + arg), end at 2^64 */
    if ((bit & AT_KINDS_ADDR) && r->size > 0 && r->addr > UINT64_MAX - (r->size - 1))
        return 0;
    if ((r->kind == AT_RANGE_R || r->kind == AT_RANGE_W) && r->arg > 0 &&
        r->addr > UINT64_MAX - (r->arg - 1))
        return 0;
    return 1;
}

int at_writer_put(AtWriter *w, const AtRecord *r)
{
    if (w->err != 0) {
        errno = w->err;
        return -1;
    }
    if (!at_w_valid(r)) {
        errno = EINVAL;
        return -1;
    }
    if (AT_W_RAW - w->raw_len < AT_RECORD_MAX && at_w_deflate(w, Z_NO_FLUSH) != 0) {
        w->err = errno;
        return -1;
    }
    int fresh;
    int64_t site = at_w_site(w, r->pc, &fresh);
    if (site < 0)
        return -1;              /* ENOMEM: the record is refused, the writer stays usable */

    uint8_t *p = w->raw + w->raw_len;
    uint32_t bit = AT_KIND_BIT(r->kind);
    unsigned szc = at_w_size_code(r->size);
    *p++ = (uint8_t)(szc << AT_KIND_BITS | r->kind);
    if (bit & AT_KINDS_ATOMIC) {
        unsigned second = (bit & AT_KINDS_CAS) ? r->mo_fail : r->op;
        *p++ = (uint8_t)(r->mo | second << AT_AB_OP_SHIFT |
                         ((r->flags & AT_F_UNCHANGED) ? AT_AB_UNCHANGED : 0));
    }
    if (szc == AT_SZC_EXPLICIT)
        p = at_w_uvarint(p, r->size);
    unsigned g = (r->flags & AT_F_GAP) != 0;
    p = at_w_uvarint(p, (uint64_t)site << 1 | g);
    if (fresh)
        p = at_w_uvarint(p, r->pc);
    if (g)
        p = at_w_uvarint(p, r->gap);
    if (bit & AT_KINDS_ADDR) {
        AtWSite *s = &w->sites[site];
        /* zigzag of the two's-complement difference: small forward and backward strides both
         * take one byte, and any pair of 64-bit addresses round-trips (mod 2^64) */
        uint64_t d = r->addr - s->last;
        uint64_t zz = (d << 1) ^ (uint64_t)-(int64_t)(d >> 63);
        p = at_w_uvarint(p, zz);
        s->last = r->addr;
    }
    if (bit & AT_KINDS_ARG)
        p = at_w_uvarint(p, r->arg);
    w->raw_len = (size_t)(p - w->raw);
    w->records++;
    return 0;
}

int at_writer_close(AtWriter *w)
{
    if (w == NULL)
        return 0;
    int rc = 0, saved = 0;
    if (w->err != 0) {
        rc = -1;
        saved = w->err;
    } else if (at_w_deflate(w, Z_FINISH) != 0) {
        rc = -1;
        saved = errno;
    }
    if (close(w->fd) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    at_w_free(w);
    if (rc != 0)
        errno = saved;
    return rc;
}

uint64_t at_writer_records(const AtWriter *w)
{
    return w->records;
}
