/* atrace.h: archsim's per-thread trace format for real parallel kernels (spec: FORMAT.md).
 *
 * One file per thread: a versioned header (magic "ATRACE01", version, flags, thread id, parent,
 * executable load base, front end, compiler and flags) followed by ONE zlib stream of varint
 * records (the "ST2" design, docs/references.md §7): each record names a site (PC) from a
 * per-thread site table and delta-encodes its address against the last address of that site, so
 * strided streams cost a few bits per access.
 *
 * The writer (atrace_write.c) is plain C11 + zlib, no GLib, so the recording runtime that is
 * linked into instrumented programs can use it. The reader (atrace_read.c) uses GLib and reports
 * every problem as "FILE: byte OFFSET, record N: problem" (ARCHSIM_TRACE_ERROR, exit 65).
 * `archsim trace info|dump` (atrace_cli.c) inspects traces.
 */
#ifndef ARCHSIM_ATRACE_H
#define ARCHSIM_ATRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ATRACE_MAGIC "ATRACE01"
#define ATRACE_VERSION 1

typedef enum {
    AT_LOAD = 0,      /* plain load */
    AT_STORE,         /* plain store */
    AT_ALOAD,         /* atomic load (memory order in mo) */
    AT_ASTORE,        /* atomic store */
    AT_RMW,           /* atomic read-modify-write: op, mo; AT_F_UNCHANGED if the value stayed */
    AT_CAS_OK,        /* compare-and-swap that succeeded: mo (success), mo_fail */
    AT_CAS_FAIL,      /* compare-and-swap that failed */
    AT_FENCE,         /* atomic_thread_fence(mo); no address */
    AT_RANGE_R,       /* memcpy/memmove source: addr, arg = length */
    AT_RANGE_W,       /* memcpy/memmove destination, memset: addr, arg = length */
    AT_LOCK_ACQ,      /* pthread_mutex_lock returned: addr = the mutex */
    AT_LOCK_REL,      /* pthread_mutex_unlock: addr = the mutex */
    AT_BARRIER,       /* pthread_barrier_wait returned: addr = the barrier, arg = its count */
    AT_CREATE,        /* pthread_create: arg = the child's thread id */
    AT_JOIN,          /* pthread_join returned: arg = the joined thread id */
    AT_ROI_BEGIN,     /* region of interest markers (archsim_roi_begin/end in the program) */
    AT_ROI_END,
    AT_TX_BEGIN,      /* transactional memory markers (for the HTM model) */
    AT_TX_END,
    AT_TX_ABORT,
    AT_COND_WAIT,     /* pthread_cond_wait returned: addr = the condition variable */
    AT_COND_SIGNAL,   /* pthread_cond_signal/broadcast: addr = the condition variable */
    AT_KINDS
} AtKind;

typedef enum { AT_MO_RELAXED = 0, AT_MO_CONSUME, AT_MO_ACQUIRE, AT_MO_RELEASE, AT_MO_ACQ_REL,
               AT_MO_SEQ_CST } AtOrder;
typedef enum { AT_OP_XCHG = 0, AT_OP_ADD, AT_OP_SUB, AT_OP_AND, AT_OP_OR, AT_OP_XOR,
               AT_OP_NAND, AT_OP_OTHER } AtRmwOp;

#define AT_F_UNCHANGED 0x1u   /* RMW / test-and-set left the value unchanged (failed TAS) */
#define AT_F_GAP 0x2u         /* gap is set */

typedef struct {
    uint8_t kind;       /* AtKind */
    uint8_t mo;         /* AtOrder (atomics, fences) */
    uint8_t mo_fail;    /* CAS failure order */
    uint8_t op;         /* AtRmwOp (RMW) */
    uint8_t flags;      /* AT_F_* */
    uint32_t size;      /* access size in bytes (1..16 for accesses; 0 for markers) */
    uint64_t addr;      /* address (object address for lock/barrier/cond markers) */
    uint64_t arg;       /* range length, barrier count, child or joined thread id */
    uint64_t pc;        /* site: the instruction (or call) address, absolute */
    uint64_t gap;       /* instructions retired since the previous record, this one included */
} AtRecord;

/* header flags */
#define AT_H_GAPS_EXACT 0x1u      /* gaps are exact instruction counts (else estimated) */
#define AT_H_HAS_GAPS 0x2u        /* records may carry gaps */
/* Site PCs are the instructions' own addresses (the QEMU front end). Without it they are the
 * hooks' return addresses (the TSan front end), so line look-ups use pc - 1 (tracing.md §7). */
#define AT_H_PC_EXACT 0x4u

typedef struct {
    uint32_t version;
    uint32_t flags;
    uint32_t tid;               /* 0 = main thread; others in creation order */
    int32_t parent;             /* creator's tid, -1 for the main thread */
    uint64_t load_base;         /* executable's load address (PIE), for addr2line: pc - base */
    char frontend[32];          /* "tsan-gcc", "tsan-clang", "qemu", "synthetic", ... */
    char compiler[64];          /* e.g. "gcc 12.2.0" */
    char cflags[128];           /* e.g. "-O2 -pthread" */
} AtHeader;

/* ---- encoding constants (FORMAT.md), shared by the writer and the reader ------------------
 *
 * Header: a fixed part of AT_HEADER_FIXED bytes, then tagged fields (tag u8, length u16 LE,
 * bytes) up to header_len. Record: byte0 = size code << 5 | kind, [atomic byte], [explicit size],
 * site word = index << 1 | G, [pc], [gap], [address delta], [arg]. Which kinds carry the atomic
 * byte, an address and an arg is fixed per kind by the masks below. */
#define AT_HEADER_FIXED 36u         /* magic, version, header_len, load_base, flags, tid, parent */
#define AT_HEADER_MAX 65536u        /* largest header_len a reader accepts */
#define AT_FIELD_FRONTEND 1u        /* header field tags */
#define AT_FIELD_COMPILER 2u
#define AT_FIELD_CFLAGS 3u

#define AT_KIND_BITS 5u             /* byte0 bits 0-4: kind; bits 5-7: size code */
#define AT_SZC_EXPLICIT 6u          /* size code 0..5: size 0, 1, 2, 4, 8, 16; 6: uvarint follows */
#define AT_AB_MO_MASK 0x07u         /* atomic byte: bits 0-2 mo */
#define AT_AB_OP_SHIFT 3u           /* bits 3-5: op (RMW) or mo_fail (CAS_OK, CAS_FAIL) */
#define AT_AB_UNCHANGED 0x40u       /* bit 6: AT_F_UNCHANGED (RMW only); bit 7 reserved, 0 */
#define AT_VARINT_MAX 10u           /* bytes in the longest 64-bit LEB128 varint */
/* Longest record: byte0, atomic byte, then size, site, pc, gap, addr and arg varints. */
#define AT_RECORD_MAX (2u + 6u * AT_VARINT_MAX)
/* Largest gap: 2^40 instructions (about six minutes of a 3 GHz core) between two records. No
 * recorded program computes that long without touching memory, and a replay of a larger one
 * would overflow simulated time (a gap costs gap x cpi cycles). */
#define AT_GAP_MAX ((uint64_t)1 << 40)

#define AT_KIND_BIT(k) (1u << (k))
#define AT_KINDS_ATOMIC (AT_KIND_BIT(AT_ALOAD) | AT_KIND_BIT(AT_ASTORE) | AT_KIND_BIT(AT_RMW) | \
                         AT_KIND_BIT(AT_CAS_OK) | AT_KIND_BIT(AT_CAS_FAIL) | AT_KIND_BIT(AT_FENCE))
#define AT_KINDS_ADDR (AT_KIND_BIT(AT_LOAD) | AT_KIND_BIT(AT_STORE) | AT_KIND_BIT(AT_ALOAD) | \
                       AT_KIND_BIT(AT_ASTORE) | AT_KIND_BIT(AT_RMW) | AT_KIND_BIT(AT_CAS_OK) | \
                       AT_KIND_BIT(AT_CAS_FAIL) | AT_KIND_BIT(AT_RANGE_R) | \
                       AT_KIND_BIT(AT_RANGE_W) | AT_KIND_BIT(AT_LOCK_ACQ) | \
                       AT_KIND_BIT(AT_LOCK_REL) | AT_KIND_BIT(AT_BARRIER) | \
                       AT_KIND_BIT(AT_COND_WAIT) | AT_KIND_BIT(AT_COND_SIGNAL))
#define AT_KINDS_ARG (AT_KIND_BIT(AT_RANGE_R) | AT_KIND_BIT(AT_RANGE_W) | \
                      AT_KIND_BIT(AT_BARRIER) | AT_KIND_BIT(AT_CREATE) | AT_KIND_BIT(AT_JOIN))
#define AT_KINDS_CAS (AT_KIND_BIT(AT_CAS_OK) | AT_KIND_BIT(AT_CAS_FAIL))

/* ---- writer (no GLib) -------------------------------------------------------------------- */
typedef struct AtWriter AtWriter;

/* Creates PATH (0644), writes the header; zlevel 0-9 (1 recommended). NULL + errno on failure. */
AtWriter *at_writer_open(const char *path, const AtHeader *h, int zlevel);
/* The same, but only where PATH does not exist (O_EXCL): for a caller that has just removed its
 * own file, so that a file another process put there meanwhile is left alone (NULL, EEXIST). */
AtWriter *at_writer_create(const char *path, const AtHeader *h, int zlevel);
/* The same into an open descriptor (a pipe to a live consumer: `archsim cachegrind -- PROG`),
 * which the writer owns from then on and closes with at_writer_close. On a descriptor the
 * records after the header are raw deflate (RFC 1951: no zlib header, no Adler-32, whose sum
 * cost both ends about 4% of such a run each): a stream between two archsim processes, not a
 * file; at_reader_open_fd reads it. */
AtWriter *at_writer_open_fd(int fd, const AtHeader *h, int zlevel);
/* Whether archsim may write over or remove path: absent, empty, a symbolic link (only the link
 * goes; at_writer_open refuses to write through one), or a regular file that starts as an
 * archsim trace does (ATRACE_MAGIC). Never another file: a user's T1.trace is not archsim's. */
bool at_file_is_ours(const char *path);
/* Appends one record; 0 on success, -1 (errno set) on an I/O error. Not thread safe: one writer
 * per thread.
 * A record whose fields do not fit its kind (FORMAT.md, "Record kinds": e.g. an address on a
 * FENCE, an op on a LOAD, mo > AT_MO_SEQ_CST, a gap without AT_F_GAP) is refused with -1 and
 * errno EINVAL; nothing is written and the writer stays usable (likewise ENOMEM when the site
 * table cannot grow). An I/O error is sticky: later calls fail with the same errno. */
int at_writer_put(AtWriter *w, const AtRecord *r);
/* Flushes and closes; 0 on success, -1 on error. Frees w in every case. */
int at_writer_close(AtWriter *w);
uint64_t at_writer_records(const AtWriter *w);

/* ---- reader (GLib) ----------------------------------------------------------------------- */
/* The recording runtime compiles atrace_write.c alone, without GLib's include path: it defines
 * ATRACE_WRITER_ONLY before including this header. */
#ifndef ATRACE_WRITER_ONLY
#include <glib.h>

typedef struct AtReader AtReader;

/* Opens and checks the header. Errors: missing file (ARCHSIM_EXIT_NOINPUT), bad magic, version,
 * truncated header (ARCHSIM_EXIT_DATAERR), all as "PATH: byte N: problem". */
AtReader *at_reader_open(const char *path, GError **error);
/* The same for an open descriptor (a pipe that a recording program writes into: `archsim
 * cachegrind -- PROG`; raw deflate after the header, as at_writer_open_fd writes it), named
 * `name` in messages; the reader owns fd and closes it. */
AtReader *at_reader_open_fd(int fd, const char *name, GError **error);
const AtHeader *at_reader_header(const AtReader *r);
/* Reads up to n records; returns the number read, 0 at the end; on error 0 with *error set
 * ("PATH: byte OFFSET, record INDEX: problem", OFFSET counted in the decompressed stream after
 * the header; a truncated zlib stream is an error, not an end).
 * Every good record before a problem is returned first; the error comes on the next call, with
 * no records, and stays (later calls return 0 and the same error). FORMAT.md §6 lists them. */
size_t at_reader_read(AtReader *r, AtRecord *out, size_t n, GError **error);
uint64_t at_reader_index(const AtReader *r);   /* records returned so far */
/* Fraction of the file consumed, for progress bars. */
double at_reader_progress(const AtReader *r);
void at_reader_close(AtReader *r);

/* Like at_reader_open with an in_size-byte buffer for the compressed file and an out_size-byte
 * buffer for the decompressed records (at_reader_open: 1 MiB and 256 KiB). For tests and
 * fuzzing, where tiny buffers put a refill boundary inside records. out_size >= AT_RECORD_MAX. */
AtReader *at_reader_open_buffered(const char *path, size_t in_size, size_t out_size,
                                  GError **error);
size_t at_reader_sites(const AtReader *r);           /* sites in the site table so far */
uint64_t at_reader_site_pc(const AtReader *r, size_t i);   /* site i's PC, i < at_reader_sites */
uint64_t at_reader_offset(const AtReader *r);        /* decompressed bytes decoded so far */
uint32_t at_reader_header_size(const AtReader *r);   /* header_len: where the zlib stream starts */

const char *at_kind_name(int kind);     /* "LOAD", "STORE", ... */
const char *at_order_name(int mo);      /* "relaxed", ..., "seq_cst" */
const char *at_op_name(int op);         /* "xchg", "add", ... */
#endif /* ATRACE_WRITER_ONLY */

#endif
