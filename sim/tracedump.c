/* tracedump.c: the per-cycle event dump of tracedump.h in four formats, through one buffered
 * zlib sink (plain files use zlib's transparent "wT" mode), written to a temporary file beside
 * PATH and renamed (sim/outfile.h); events reach the formats in time order through a reorder
 * heap bounded by trace_hold.
 * Layouts follow gem5's DPRINTF lines (src/base/trace.cc), the Chrome Trace Event Format as
 * Perfetto's JSON importer reads it, and IEEE 1364-2005 section 18 (VCD) with GTKWave translate
 * filter files. */
#include "tracedump.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "error.h"
#include "json.h"
#include "outfile.h"
#include "param.h"
#include "version.h"

/* Output buffer: big enough that a write(2) or a deflate call is amortized over thousands of
 * events; grown (never shrunk) only for an event larger than it. */
#define TRACE_BUF_SIZE (256u * 1024u)
/* Perfetto: a component gets at most this many tracks (tid = (component + 1) * this + lane). */
#define TRACE_LANES_MAX 1024u
/* VCD: changes wait this many cycles in a min-heap before they are written, so an event may be
 * emitted up to this late (e.g. a slice reported when it ends) and still land at its own cycle. */
#define TRACE_VCD_SLACK 1024u
/* Time order: events stamped before the newest hold (trace_hold) wait in a min-heap keyed by
 * (cycle, emission order) and are written once no hold is at or before them. At most this many
 * wait; past it the oldest are written anyway and a model's later report that lands behind them
 * is counted as out of order (noted in the dump). ~64 B plus the strings per waiting event. */
#define TRACE_REORDER_MAX (1u << 16)
/* Perfetto: past this many bytes of JSON (uncompressed) the dump warns once (TraceOptions.warn):
 * ui.perfetto.dev gets slow or fails to load JSON of a few hundred MB, chrome://tracing stops at
 * about 256 MB (docs/trace-dumps.md, "Size advice"). */
#define TRACE_PF_WARN_BYTES (200u * 1000u * 1000u)
/* gzip level: 1 is about 3x faster than zlib's default 6 and costs ~15 % more bytes; a dump is
 * written once per run and read a few times, and speed of the run matters more. */
#define TRACE_GZ_MODE "wb1"

/* ---- buffered sink: gzFile + our own buffer so the hot path is memcpy into memory ---- */

typedef struct {
    gzFile gz;
    char *buf;
    size_t len, cap;
    uint64_t flushed;   /* bytes handed to zlib so far (before compression) */
    char *error;        /* first failure as a phrase; later output is dropped */
} TraceSink;

static bool trace_sink_open(TraceSink *s, int fd, bool compress, char **problem)
{
    memset(s, 0, sizeof *s);
    s->gz = gzdopen(fd, compress ? TRACE_GZ_MODE : "wT");
    if (s->gz == NULL) {
        close(fd);
        *problem = g_strdup("out of memory opening a zlib stream");
        return false;
    }
    /* Larger than zlib's 8 KiB default so compressed writes deflate in big chunks. */
    gzbuffer(s->gz, 128u * 1024u);
    s->cap = TRACE_BUF_SIZE;
    s->buf = g_malloc(s->cap);
    return true;
}

static void trace_sink_flush(TraceSink *s)
{
    s->flushed += s->len;
    if (s->len > 0 && s->error == NULL) {
        int n = gzwrite(s->gz, s->buf, (unsigned)s->len);
        if (n <= 0 || (size_t)n != s->len) {
            int saved = errno, zerr = Z_OK;
            const char *msg = gzerror(s->gz, &zerr);
            s->error = g_strdup(zerr == Z_ERRNO ? g_strerror(saved) : msg);
        }
    }
    s->len = 0;
}

static void trace_sink_make_room(TraceSink *s, size_t n)
{
    trace_sink_flush(s);
    if (n > s->cap) {
        s->cap = n;
        s->buf = g_realloc(s->buf, s->cap);
    }
}

/* Returns room for n bytes at the end of the buffer; the caller adds what it wrote to s->len. */
static inline char *trace_sink_reserve(TraceSink *s, size_t n)
{
    if (G_UNLIKELY(s->cap - s->len < n))
        trace_sink_make_room(s, n);
    return s->buf + s->len;
}

/* Flushes and closes; returns the first failure (newly allocated) or NULL. */
static char *trace_sink_close(TraceSink *s)
{
    if (s->gz != NULL) {
        trace_sink_flush(s);
        int rc = gzclose(s->gz);
        int saved = errno;
        s->gz = NULL;
        if (s->error == NULL && rc != Z_OK)
            s->error = rc == Z_ERRNO ? g_strdup(g_strerror(saved))
                                     : g_strdup_printf("zlib error %d on close", rc);
    }
    g_free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
    char *e = s->error;
    s->error = NULL;
    return e;
}

static inline void trace_put(TraceSink *s, const void *p, size_t n)
{
    memcpy(trace_sink_reserve(s, n), p, n);
    s->len += n;
}

#define TRACE_PUT_LIT(s, lit) trace_put((s), (lit), sizeof(lit) - 1)

static inline void trace_put_char(TraceSink *s, char c)
{
    *trace_sink_reserve(s, 1) = c;
    s->len++;
}

/* ---- number and string formatting (no printf on the hot path: it costs ~5x more) ---- */

static inline size_t trace_fmt_u64(char *dst, uint64_t v)
{
    char tmp[20];
    char *p = tmp + sizeof tmp;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    size_t n = (size_t)(tmp + sizeof tmp - p);
    memcpy(dst, p, n);
    return n;
}

static inline size_t trace_fmt_i64(char *dst, int64_t v)
{
    if (v >= 0)
        return trace_fmt_u64(dst, (uint64_t)v);
    dst[0] = '-';
    return 1 + trace_fmt_u64(dst + 1, 0 - (uint64_t)v);  /* 0 - x: no overflow at INT64_MIN */
}

static inline size_t trace_fmt_hex(char *dst, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    int nib = 1;
    while (nib < 16 && (v >> (4 * nib)) != 0)
        nib++;
    dst[0] = '0';
    dst[1] = 'x';
    for (int i = 0; i < nib; i++)
        dst[2 + i] = digits[(v >> (4 * (nib - 1 - i))) & 0xf];
    return 2 + (size_t)nib;
}

static inline void trace_put_u64(TraceSink *s, uint64_t v)
{
    char *d = trace_sink_reserve(s, 20);
    s->len += trace_fmt_u64(d, v);
}

/* Text: bytes below 0x20 and DEL become '?', so one event stays one line. */
static size_t trace_text_clean(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    return n;
}

static inline void trace_put_text(TraceSink *s, const char *str)
{
    size_t n = strlen(str);
    char *d = trace_sink_reserve(s, n);
    s->len += trace_text_clean(d, str, n);
}

static void trace_put_json_str(TraceSink *s, const char *str)
{
    size_t n = strlen(str);
    char *d = trace_sink_reserve(s, JSON_ESCAPE_MAX * n + 2);
    d[0] = '"';
    size_t m = json_escape_buf(d + 1, str, n);
    d[1 + m] = '"';
    s->len += m + 2;
}

/* A JSON string (quotes included) appended to a GString. */
static void trace_gstring_json_str(GString *out, const char *str)
{
    json_append_string(out, str);
}

/* The arguments as one JSON object in a GString (for text kept past the emit call); the same
 * encoding as trace_put_json_args. */
static void trace_json_args_append(GString *out, const TraceArg *args, int nargs)
{
    g_string_append_c(out, '{');
    for (int i = 0; i < nargs; i++) {
        const TraceArg *a = &args[i];
        if (i > 0)
            g_string_append_c(out, ',');
        trace_gstring_json_str(out, a->key);
        g_string_append_c(out, ':');
        if (a->kind == TARG_STR)
            trace_gstring_json_str(out, a->v.s != NULL ? a->v.s : "");
        else if (a->kind == TARG_ENUM && a->name != NULL)
            trace_gstring_json_str(out, a->name);
        else if (a->kind == TARG_HEX)
            g_string_append_printf(out, "\"0x%" G_GINT64_MODIFIER "x\"", a->v.u);
        else if (a->kind == TARG_I64)
            g_string_append_printf(out, "%" G_GINT64_FORMAT, a->v.i);
        else
            g_string_append_printf(out, "%" G_GUINT64_FORMAT, a->v.u);
    }
    g_string_append_c(out, '}');
}

static char *trace_json_escape_dup(const char *str)
{
    size_t n = strlen(str);
    char *d = g_malloc(JSON_ESCAPE_MAX * n + 1);
    d[json_escape_buf(d, str, n)] = '\0';
    return d;
}

/* {"key":value,...}: HEX as a "0x..." string (jq and JavaScript hold numbers as doubles and
 * would round a 64-bit address), U64/I64 as numbers, STR as strings. */
static void trace_put_json_args(TraceSink *s, const TraceArg *args, int nargs)
{
    trace_put_char(s, '{');
    for (int i = 0; i < nargs; i++) {
        const TraceArg *a = &args[i];
        if (i > 0)
            trace_put_char(s, ',');
        trace_put_json_str(s, a->key);
        trace_put_char(s, ':');
        switch (a->kind) {
        case TARG_U64:
            trace_put_u64(s, a->v.u);
            break;
        case TARG_I64: {
            char *d = trace_sink_reserve(s, 21);
            s->len += trace_fmt_i64(d, a->v.i);
            break;
        }
        case TARG_HEX: {
            char *d = trace_sink_reserve(s, 20);
            d[0] = '"';
            size_t n = trace_fmt_hex(d + 1, a->v.u);
            d[1 + n] = '"';
            s->len += n + 2;
            break;
        }
        case TARG_STR:
            trace_put_json_str(s, a->v.s != NULL ? a->v.s : "");
            break;
        case TARG_ENUM:
            if (a->name != NULL)
                trace_put_json_str(s, a->name);
            else
                trace_put_u64(s, a->v.u);
            break;
        }
    }
    trace_put_char(s, '}');
}

/* ---- the dump ---- */

typedef struct {
    uint64_t last_start;     /* start of the newest slice placed here */
    GArray *ends;            /* uint64_t ends of open slices, outermost first (non-increasing) */
} TraceLane;

typedef struct {
    char *key;
    uint32_t var;
} TraceArgVar;

/* Perfetto line-state tracks (see trace_pf_state): one per (component, addr) that changed state. */
typedef struct {
    uint32_t comp;
    uint64_t addr;
} TracePfKey;

typedef struct {
    TracePfKey key;
    uint64_t tid;
    uint64_t since;          /* cycle the current state was entered */
    char *name;              /* current state */
    char *args;              /* JSON object: the arguments of the event that entered it */
} TracePfState;

typedef struct {
    char *path;
    size_t path_len;
    char *json;              /* path escaped for a JSON string, without quotes */
    GArray *lanes;           /* Perfetto: TraceLane; [0] is the component's own track */
    uint32_t event_var;      /* VCD: index of its `event` wire */
    GArray *arg_vars;        /* VCD: TraceArgVar, one per numeric argument key seen */
} TraceComp;

typedef struct {
    uint32_t comp;
    bool is_event;
    bool known;              /* false until a value was written: shown as x */
    bool dirty;              /* touched by the batch being flushed */
    uint8_t id_len;
    char id[7];              /* VCD identifier: base 94 over '!'..'~' */
    uint64_t cur;            /* value last written */
    uint64_t next;           /* value at the end of the batch being flushed */
    uint64_t set_seq;        /* event wire: seq of the event it shows; stale resets are skipped */
    char *name;
    GPtrArray *enum_names;   /* enum argument wire: code -> name (NULL: not seen), else NULL */
    uint64_t max_value;      /* enum wire: largest code, for the wire's width */
    bool numeric;            /* a plain number was dumped here too: 64 bits, no filter */
    uint32_t filter;         /* at close: 1 + index of its translate filter, 0 = none */
} TraceVar;

/* An event waiting for its turn (time order): its strings are copied into `strs`, which is kept
 * and reused with the slot, so a steady stream of waiting events allocates nothing. */
typedef struct {
    uint64_t cycle, seq, dur;
    int track, nargs;
    const char *event;       /* into strs */
    TraceArg inl[6];         /* the arguments when nargs <= 6 */
    TraceArg *big;           /* else g_malloc'd here */
    char *strs;
    size_t strs_cap;
} TraceHeld;

typedef struct {
    uint64_t cycle, seq;
    uint32_t slot;
} TraceHeapItem;

typedef struct {
    uint64_t time, seq;      /* heap order: time, then emission order */
    uint64_t value;
    uint64_t token;          /* reset: seq of the event it ends */
    uint32_t var;
    bool reset;
} TraceChange;

struct TraceDump {
    TraceOptions opts;       /* deep copy: path and components are owned */
    OutFile file;            /* the temporary file beside opts.path (sim/outfile.h); stdout: no
                                temporary */
    GPatternSpec **globs;    /* NULL-terminated; NULL = no component filter */
    bool *glob_hit;          /* per glob: some registered component matched it */
    GPtrArray *offered;      /* every path given to trace_register, matched or not, in order */
    TraceSink out;
    GArray *comps;           /* TraceComp, index = track id */
    GHashTable *comp_ids;    /* path -> GINT_TO_POINTER(track + 1) */
    uint64_t count;
    bool truncated;
    uint64_t first_dropped;
    /* time order (trace_hold): waiting events, and what each track may still report */
    GArray *held;            /* TraceHeld slots */
    GArray *held_free;       /* uint32_t free slot indices */
    GArray *rheap;           /* TraceHeapItem, binary min-heap by (cycle, seq) */
    uint64_t rseq;
    GArray *holds;           /* uint64_t per track: earliest cycle it may still report, or MAX */
    GArray *hold_tracks;     /* uint32_t tracks that hold now */
    uint64_t hold_min;       /* min of holds (UINT64_MAX: none) */
    bool any_written;
    uint64_t last_cycle;     /* cycle of the last event written */
    uint64_t out_of_order;   /* written after a later cycle */
    uint64_t first_cycle;    /* of the first event written (size advice) */
    bool size_warned;
    /* Perfetto */
    bool any_event;          /* a comma is needed before the next traceEvents entry */
    uint64_t overflow_tracks, unresolved_overlaps;
    GHashTable *pf_state_ids;   /* TracePfKey * -> GUINT_TO_POINTER(index + 1) in pf_states */
    GArray *pf_states;          /* TracePfState, in creation order (deterministic output) */
    uint64_t pf_state_dropped;
    uint64_t pf_end;            /* one past the last cycle any event covers: last states end here */
    /* VCD */
    int spool_fd;            /* unlinked temp file next to the dump holding the body */
    TraceSink spool;
    GArray *vars;            /* TraceVar */
    GArray *heap;            /* TraceChange, binary min-heap */
    GArray *dirty;           /* uint32_t var indices of the batch being flushed */
    GHashTable *codes;       /* event name -> GUINT_TO_POINTER(code), code >= 1 */
    GPtrArray *code_names;   /* [code - 1] -> name */
    uint64_t seq;
    bool vcd_started;
    uint64_t vcd_t0, vcd_last, vcd_floor, vcd_late;
    GPtrArray *side_files;   /* VCD: the filters and the .gtkw written at close (paths) */
    /* teach: the options' sink and its state */
    void *teach;
    /* tee (trace_tee): every call goes to both; then nothing above is used */
    TraceDump *kid[2];
    GArray *kid_tracks;      /* int[2] per track of the tee */
};

static const char *const trace_format_names[] = {
    [TRACE_FMT_TEXT] = "text",
    [TRACE_FMT_JSONL] = "jsonl",
    [TRACE_FMT_PERFETTO] = "perfetto",
    [TRACE_FMT_VCD] = "vcd",
    [TRACE_FMT_TEACH] = "teach",
};

bool trace_format_parse(const char *name, TraceFormat *out)
{
    for (size_t i = 0; i < G_N_ELEMENTS(trace_format_names); i++) {
        if (i == TRACE_FMT_TEACH)
            continue;                 /* a table, not a file format: `run --teach` */
        if (name != NULL && strcmp(name, trace_format_names[i]) == 0) {
            *out = (TraceFormat)i;
            return true;
        }
    }
    return false;
}

const char *trace_format_name(TraceFormat format)
{
    g_assert((size_t)format < G_N_ELEMENTS(trace_format_names));
    return trace_format_names[format];
}

bool trace_format_guess(const char *path, TraceFormat *out)
{
    static const struct { const char *suffix; TraceFormat format; } table[] = {
        { ".txt", TRACE_FMT_TEXT },      { ".log", TRACE_FMT_TEXT },
        { ".jsonl", TRACE_FMT_JSONL },   { ".json", TRACE_FMT_PERFETTO },
        { ".vcd", TRACE_FMT_VCD },
    };
    size_t n = strlen(path);
    if (g_str_has_suffix(path, ".gz"))
        n -= 3;
    for (size_t i = 0; i < G_N_ELEMENTS(table); i++) {
        size_t m = strlen(table[i].suffix);
        if (n >= m && g_ascii_strncasecmp(path + n - m, table[i].suffix, m) == 0) {
            *out = table[i].format;
            return true;
        }
    }
    return false;
}

/* Parses text[0..n) as a number: "0x" hex when hex_ok, else decimal; '_' between digits
 * allowed as in param.h. */
static bool trace_parse_u64(const char *text, size_t n, bool hex_ok, uint64_t *out)
{
    unsigned base = 10;
    if (hex_ok && n > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text += 2;
        n -= 2;
    }
    if (n == 0 || text[0] == '_' || text[n - 1] == '_')
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int d = g_ascii_xdigit_value(text[i]);
        if (text[i] == '_')
            continue;
        if (d < 0 || (unsigned)d >= base)
            return false;
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            return false;
        v = v * base + (uint64_t)d;
    }
    *out = v;
    return true;
}

static void trace_set_problem(char **problem, char *msg)
{
    if (problem != NULL)
        *problem = msg;
    else
        g_free(msg);
}

/* Shared by the window and address parsers: "A:B", "A:", ":B" (or a lone value if single_ok). */
static bool trace_range_parse(const char *text, bool hex_ok, bool single_ok, uint64_t *lo,
                              uint64_t *hi, char **problem, const char *what)
{
    const char *colon = strchr(text, ':');
    uint64_t a = 0, b = UINT64_MAX;
    if (colon == NULL) {
        if (single_ok && trace_parse_u64(text, strlen(text), hex_ok, &a)) {
            *lo = *hi = a;
            return true;
        }
        trace_set_problem(problem, g_strdup_printf("'%s': expected %s", text, what));
        return false;
    }
    size_t na = (size_t)(colon - text), nb = strlen(colon + 1);
    if ((na > 0 && !trace_parse_u64(text, na, hex_ok, &a))
        || (nb > 0 && !trace_parse_u64(colon + 1, nb, hex_ok, &b))) {
        trace_set_problem(problem, g_strdup_printf("'%s': expected %s", text, what));
        return false;
    }
    if (a > b) {
        trace_set_problem(problem, g_strdup_printf("'%s': the start is after the end (both are "
                                                   "inclusive)", text));
        return false;
    }
    *lo = a;
    *hi = b;
    return true;
}

bool trace_window_parse(const char *text, uint64_t *start, uint64_t *end, char **problem)
{
    return trace_range_parse(text, false, false, start, end, problem,
                             "START:END, START: or :END in cycles (decimal, inclusive)");
}

bool trace_addr_range_parse(const char *text, uint64_t *lo, uint64_t *hi, char **problem)
{
    return trace_range_parse(text, true, true, lo, hi, problem,
                             "LO:HI (inclusive) or one address, e.g. 0x1000:0x1fff or 0x1040");
}

const TraceOptions *trace_options(const TraceDump *td)
{
    return &td->opts;
}

uint64_t trace_count(const TraceDump *td)
{
    if (td->kid[0] != NULL)
        return MAX(trace_count(td->kid[0]), trace_count(td->kid[1]));
    return td->count;
}

/* ---- Perfetto ---- */

static void trace_pf_begin_entry(TraceDump *td)
{
    if (td->any_event)
        TRACE_PUT_LIT(&td->out, ",\n");
    td->any_event = true;
}

static void trace_pf_thread_name(TraceDump *td, uint32_t ci, uint32_t lane)
{
    TraceComp *c = &g_array_index(td->comps, TraceComp, ci);
    TraceSink *s = &td->out;
    trace_pf_begin_entry(td);
    TRACE_PUT_LIT(s, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":");
    trace_put_u64(s, (uint64_t)(ci + 1) * TRACE_LANES_MAX + lane);
    TRACE_PUT_LIT(s, ",\"args\":{\"name\":\"");
    trace_put(s, c->json, strlen(c->json));
    if (lane > 0) {
        /* Overflow tracks are named "<component> #2", "#3", ... next to the component's own. */
        TRACE_PUT_LIT(s, " #");
        trace_put_u64(s, lane + 1);
    }
    TRACE_PUT_LIT(s, "\"}}");
}

/* Picks the first track of the component where [start, end) nests with the open slices (slices
 * on one Perfetto thread track must nest; a partial overlap is out of spec). A lane whose newest
 * slice started later than `start` is skipped: with events out of order we cannot tell. */
static uint32_t trace_pf_place(TraceDump *td, uint32_t ci, uint64_t start, uint64_t end)
{
    TraceComp *c = &g_array_index(td->comps, TraceComp, ci);
    for (uint32_t k = 0; k < c->lanes->len; k++) {
        TraceLane *l = &g_array_index(c->lanes, TraceLane, k);
        if (start < l->last_start)
            continue;
        const uint64_t *ends = (const uint64_t *)(void *)l->ends->data;
        guint n = l->ends->len;
        while (n > 0 && ends[n - 1] <= start)      /* slices already closed */
            n--;
        if (n > 0 && ends[n - 1] < end)            /* would cross the innermost open slice */
            continue;
        g_array_set_size(l->ends, n);
        g_array_append_val(l->ends, end);
        l->last_start = start;
        return k;
    }
    if (c->lanes->len >= TRACE_LANES_MAX) {
        /* Pathological overlap depth: leave it to Perfetto's own overflow handling. */
        td->unresolved_overlaps++;
        return TRACE_LANES_MAX - 1;
    }
    TraceLane lane = { .last_start = start, .ends = g_array_new(FALSE, FALSE, sizeof(uint64_t)) };
    g_array_append_val(lane.ends, end);
    g_array_append_val(c->lanes, lane);
    td->overflow_tracks++;
    uint32_t k = c->lanes->len - 1;
    trace_pf_thread_name(td, ci, k);
    return k;
}

static void trace_pf_state(TraceDump *td, uint32_t ci, uint64_t cycle, const TraceArg *args,
                           int nargs);

static void trace_emit_perfetto(TraceDump *td, uint32_t ci, uint64_t cycle, const char *event,
                                uint64_t dur, const TraceArg *args, int nargs)
{
    TraceSink *s = &td->out;
    uint32_t lane = 0;
    if (dur > 0) {
        uint64_t end = cycle + dur < cycle ? UINT64_MAX : cycle + dur;
        lane = trace_pf_place(td, ci, cycle, end);
    }
    trace_pf_begin_entry(td);
    TRACE_PUT_LIT(s, "{\"name\":");
    trace_put_json_str(s, event);
    if (dur > 0) {
        TRACE_PUT_LIT(s, ",\"ph\":\"X\",\"ts\":");
        trace_put_u64(s, cycle);
        TRACE_PUT_LIT(s, ",\"dur\":");
        trace_put_u64(s, dur);
    } else {
        TRACE_PUT_LIT(s, ",\"ph\":\"i\",\"s\":\"t\",\"ts\":");
        trace_put_u64(s, cycle);
    }
    TRACE_PUT_LIT(s, ",\"pid\":1,\"tid\":");
    trace_put_u64(s, (uint64_t)(ci + 1) * TRACE_LANES_MAX + lane);
    if (nargs > 0) {
        TRACE_PUT_LIT(s, ",\"args\":");
        trace_put_json_args(s, args, nargs);
    }
    trace_put_char(s, '}');
    uint64_t end = cycle + (dur > 0 ? dur : 1) < cycle ? UINT64_MAX : cycle + (dur > 0 ? dur : 1);
    if (end > td->pf_end)
        td->pf_end = end;
    trace_pf_state(td, ci, cycle, args, nargs);
}

/* Line states as slices: a state change (an enum "to") of (component, addr) ends the slice of
 * the previous state on that pair's own track, named "<component> <addr>", and starts the next;
 * the last state's slice ends at close, where the dump's last event ends. The tracks form a
 * second process (pid 2, "line states") so that the components' own tracks stay as they are, and the
 * slices never overlap, so they nest by construction. */
#define TRACE_PF_STATE_TID0 (1ull << 28)  /* above every component track (ci * 1024 + lane) */
#define TRACE_PF_STATES_MAX 65536u        /* tracks; more are counted in otherData, not drawn */

static guint trace_pf_key_hash(gconstpointer p)
{
    const TracePfKey *k = p;
    return (guint)((k->addr * 0x9E3779B97F4A7C15ull) >> 32) ^ k->comp;
}

static gboolean trace_pf_key_equal(gconstpointer a, gconstpointer b)
{
    const TracePfKey *x = a, *y = b;
    return x->comp == y->comp && x->addr == y->addr;
}

static void trace_pf_state_slice(TraceDump *td, const TracePfState *st, uint64_t end)
{
    if (end <= st->since)
        return;                       /* held for no cycle: the instant on the component says it */
    TraceSink *s = &td->out;
    trace_pf_begin_entry(td);
    TRACE_PUT_LIT(s, "{\"name\":");
    trace_put_json_str(s, st->name);
    TRACE_PUT_LIT(s, ",\"cat\":\"state\",\"ph\":\"X\",\"ts\":");
    trace_put_u64(s, st->since);
    TRACE_PUT_LIT(s, ",\"dur\":");
    trace_put_u64(s, end - st->since);
    TRACE_PUT_LIT(s, ",\"pid\":2,\"tid\":");
    trace_put_u64(s, st->tid);
    TRACE_PUT_LIT(s, ",\"args\":");
    trace_put(s, st->args, strlen(st->args));
    trace_put_char(s, '}');
}

static void trace_pf_state(TraceDump *td, uint32_t ci, uint64_t cycle, const TraceArg *args,
                           int nargs)
{
    const TraceArg *to = NULL;
    uint64_t addr = 0;
    for (int i = 0; i < nargs; i++) {
        if (args[i].kind == TARG_ENUM && strcmp(args[i].key, "to") == 0)
            to = &args[i];
        else if (args[i].kind != TARG_STR && strcmp(args[i].key, "addr") == 0)
            addr = args[i].v.u;
    }
    if (to == NULL)
        return;
    TracePfKey key = { .comp = ci, .addr = addr };
    gpointer idx = g_hash_table_lookup(td->pf_state_ids, &key);
    TracePfState *st;
    if (idx == NULL) {
        if (td->pf_states->len >= TRACE_PF_STATES_MAX) {
            td->pf_state_dropped++;
            return;
        }
        TracePfState fresh = { .key = key, .tid = TRACE_PF_STATE_TID0 + td->pf_states->len };
        g_array_append_val(td->pf_states, fresh);
        g_hash_table_insert(td->pf_state_ids, g_memdup2(&key, sizeof key),
                            GUINT_TO_POINTER(td->pf_states->len));
        st = &g_array_index(td->pf_states, TracePfState, td->pf_states->len - 1);
        TraceSink *s = &td->out;
        if (td->pf_states->len == 1) {
            trace_pf_begin_entry(td);
            TRACE_PUT_LIT(s, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"args\":"
                             "{\"name\":\"line states (one slice per state, from change to "
                             "change)\"}}");
        }
        const TraceComp *c = &g_array_index(td->comps, TraceComp, ci);
        char hex[20];
        size_t n = trace_fmt_hex(hex, addr);
        trace_pf_begin_entry(td);
        TRACE_PUT_LIT(s, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":");
        trace_put_u64(s, st->tid);
        TRACE_PUT_LIT(s, ",\"args\":{\"name\":\"");
        trace_put(s, c->json, strlen(c->json));
        trace_put_char(s, ' ');
        trace_put(s, hex, n);
        TRACE_PUT_LIT(s, "\"}}");
    } else {
        st = &g_array_index(td->pf_states, TracePfState, GPOINTER_TO_UINT(idx) - 1);
        if (cycle < st->since)
            cycle = st->since;        /* out of order: keep the track's slices in sequence */
        trace_pf_state_slice(td, st, cycle);
        g_free(st->name);
        g_free(st->args);
    }
    st->since = cycle;
    st->name = to->name != NULL ? g_strdup(to->name)
                                : g_strdup_printf("%" G_GUINT64_FORMAT, to->v.u);
    GString *a = g_string_new(NULL);
    trace_json_args_append(a, args, nargs);
    st->args = g_string_free(a, FALSE);
}

static void trace_pf_footer(TraceDump *td)
{
    TraceSink *s = &td->out;
    for (guint i = 0; i < td->pf_states->len; i++)
        trace_pf_state_slice(td, &g_array_index(td->pf_states, TracePfState, i),
                             td->pf_end);
    if (td->truncated) {
        /* A global instant makes the cut visible on the timeline, not only in metadata. */
        trace_pf_begin_entry(td);
        TRACE_PUT_LIT(s, "{\"name\":\"trace truncated (max_events)\",\"ph\":\"i\",\"s\":\"g\","
                         "\"ts\":");
        trace_put_u64(s, td->first_dropped);
        TRACE_PUT_LIT(s, ",\"pid\":1}");
    }
    TRACE_PUT_LIT(s, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{"
                     "\"time_unit\":\"1 ts = 1 cycle\","
                     "\"note\":\"ts and dur count cycles; the UI labels them microseconds\","
                     "\"generator\":\"archsim " ARCHSIM_VERSION "\",\"window\":\"");
    trace_put_u64(s, td->opts.start);
    trace_put_char(s, ':');
    if (td->opts.end != UINT64_MAX)
        trace_put_u64(s, td->opts.end);
    TRACE_PUT_LIT(s, "\",\"events\":");
    trace_put_u64(s, td->count);
    TRACE_PUT_LIT(s, ",\"overflow_tracks\":");
    trace_put_u64(s, td->overflow_tracks);
    TRACE_PUT_LIT(s, ",\"state_tracks\":");
    trace_put_u64(s, td->pf_states->len);
    if (td->pf_state_dropped > 0) {
        TRACE_PUT_LIT(s, ",\"state_changes_not_drawn\":");
        trace_put_u64(s, td->pf_state_dropped);
    }
    if (td->unresolved_overlaps > 0) {
        TRACE_PUT_LIT(s, ",\"unresolved_overlaps\":");
        trace_put_u64(s, td->unresolved_overlaps);
    }
    if (td->out_of_order > 0) {
        TRACE_PUT_LIT(s, ",\"out_of_order_events\":");
        trace_put_u64(s, td->out_of_order);
    }
    if (td->truncated) {
        TRACE_PUT_LIT(s, ",\"truncated\":true,\"max_events\":");
        trace_put_u64(s, td->opts.max_events);
        TRACE_PUT_LIT(s, ",\"first_dropped_cycle\":");
        trace_put_u64(s, td->first_dropped);
    } else {
        TRACE_PUT_LIT(s, ",\"truncated\":false");
    }
    TRACE_PUT_LIT(s, "}}\n");
}

/* ---- VCD ---- */

static void trace_vcd_heap_push(TraceDump *td, TraceChange ch)
{
    g_array_append_val(td->heap, ch);
    TraceChange *h = (TraceChange *)(void *)td->heap->data;
    guint i = td->heap->len - 1;
    while (i > 0) {
        guint parent = (i - 1) / 2;
        if (h[parent].time < ch.time || (h[parent].time == ch.time && h[parent].seq < ch.seq))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = ch;
}

static TraceChange trace_vcd_heap_pop(TraceDump *td)
{
    TraceChange *h = (TraceChange *)(void *)td->heap->data;
    TraceChange top = h[0], last = h[td->heap->len - 1];
    guint n = td->heap->len - 1, i = 0;
    g_array_set_size(td->heap, n);
    if (n == 0)
        return top;
    for (;;) {
        guint kid = 2 * i + 1;
        if (kid >= n)
            break;
        if (kid + 1 < n && (h[kid + 1].time < h[kid].time
                            || (h[kid + 1].time == h[kid].time && h[kid + 1].seq < h[kid].seq)))
            kid++;
        if (last.time < h[kid].time || (last.time == h[kid].time && last.seq < h[kid].seq))
            break;
        h[i] = h[kid];
        i = kid;
    }
    h[i] = last;
    return top;
}

static uint32_t trace_vcd_new_var(TraceDump *td, uint32_t ci, bool is_event, const char *name)
{
    TraceVar v = { .comp = ci, .is_event = is_event, .known = is_event };
    uint32_t idx = td->vars->len;
    for (uint32_t x = idx;; x /= 94) {
        v.id[v.id_len++] = (char)('!' + x % 94);
        if (x < 94)
            break;
    }
    /* VCD reference names: letters, digits and '_' only ('[' would read as a bit range). */
    v.name = g_strdup(name[0] != '\0' ? name : "_");
    for (char *p = v.name; *p != '\0'; p++)
        if (!g_ascii_isalnum(*p) && *p != '_')
            *p = '_';
    g_array_append_val(td->vars, v);
    return idx;
}

static uint32_t trace_vcd_arg_var(TraceDump *td, uint32_t ci, const char *key)
{
    TraceComp *c = &g_array_index(td->comps, TraceComp, ci);
    for (guint i = 0; i < c->arg_vars->len; i++) {
        TraceArgVar *a = &g_array_index(c->arg_vars, TraceArgVar, i);
        if (strcmp(a->key, key) == 0)
            return a->var;
    }
    /* An argument called "event" must not hide the event wire. */
    uint32_t var = trace_vcd_new_var(td, ci, false, strcmp(key, "event") == 0 ? "event_arg" : key);
    TraceArgVar a = { .key = g_strdup(key), .var = var };
    c = &g_array_index(td->comps, TraceComp, ci);
    g_array_append_val(c->arg_vars, a);
    return var;
}

/* Enum arguments: the wire remembers each code's first name (for its translate filter) and the
 * largest code (for its width). A wire that also gets plain numbers stays a 64-bit number. */
#define TRACE_ENUM_CODES_MAX 4096u

static void trace_vcd_note_value(TraceDump *td, uint32_t var, const TraceArg *a)
{
    TraceVar *v = &g_array_index(td->vars, TraceVar, var);
    if (G_LIKELY(a->kind != TARG_ENUM) || a->v.u >= TRACE_ENUM_CODES_MAX) {
        v->numeric = true;
        return;
    }
    if (v->enum_names == NULL)
        v->enum_names = g_ptr_array_new_with_free_func(g_free);
    guint code = (guint)a->v.u;
    if (code >= v->enum_names->len)
        g_ptr_array_set_size(v->enum_names, (gint)code + 1);
    if (g_ptr_array_index(v->enum_names, code) == NULL)
        v->enum_names->pdata[code] = g_strdup(a->name != NULL ? a->name : "?");
    if (a->v.u > v->max_value)
        v->max_value = a->v.u;
}

/* Bits of the wire: 64 for numbers, just enough for the largest code of an enum but at least
 * 2, because GTKWave draws a 1-bit wire as a logic level and translates only vectors. */
static unsigned trace_vcd_width(const TraceVar *v)
{
    if (v->enum_names == NULL || v->numeric)
        return 64;
    return v->max_value < 4 ? 2 : 64 - (unsigned)__builtin_clzll(v->max_value);
}

/* The event wire is as wide as the largest code needs, at least 2 bits (as trace_vcd_width). */
static unsigned trace_vcd_event_width(const TraceDump *td)
{
    unsigned w = td->code_names->len == 0 ? 1 : 64 - (unsigned)__builtin_clzll(td->code_names->len);
    return w < 2 ? 2 : w;
}

static uint64_t trace_vcd_code(TraceDump *td, const char *event)
{
    gpointer code = g_hash_table_lookup(td->codes, event);
    if (code != NULL)
        return GPOINTER_TO_UINT(code);
    char *name = g_strdup(event);
    g_ptr_array_add(td->code_names, name);
    g_hash_table_insert(td->codes, name, GUINT_TO_POINTER(td->code_names->len));
    return td->code_names->len;
}

static void trace_vcd_put_value(TraceSink *s, const TraceVar *v, uint64_t x)
{
    char *d = trace_sink_reserve(s, 1 + 64 + 1 + sizeof v->id + 1), *d0 = d;
    *d++ = 'b';
    int bits = x == 0 ? 1 : 64 - __builtin_clzll(x);
    for (int i = bits - 1; i >= 0; i--)
        *d++ = (char)('0' + ((x >> i) & 1));
    *d++ = ' ';
    memcpy(d, v->id, v->id_len);
    d += v->id_len;
    *d++ = '\n';
    s->len += (size_t)(d - d0);
}

/* Applies every change at the earliest pending time, then writes "#t" and the wires whose value
 * differs from what was last written (one change per wire and time: the last one wins). */
static void trace_vcd_flush_batch(TraceDump *td)
{
    TraceChange *h = (TraceChange *)(void *)td->heap->data;
    uint64_t t = h[0].time;
    while (td->heap->len > 0 && ((TraceChange *)(void *)td->heap->data)[0].time == t) {
        TraceChange ch = trace_vcd_heap_pop(td);
        TraceVar *v = &g_array_index(td->vars, TraceVar, ch.var);
        if (ch.reset && v->set_seq != ch.token)
            continue;                  /* a later event took over the wire */
        if (!ch.reset && v->is_event)
            v->set_seq = ch.seq;
        v->next = ch.value;
        if (!v->dirty) {
            v->dirty = true;
            g_array_append_val(td->dirty, ch.var);
        }
    }
    bool stamped = false;
    for (guint i = 0; i < td->dirty->len; i++) {
        TraceVar *v = &g_array_index(td->vars, TraceVar, g_array_index(td->dirty, uint32_t, i));
        v->dirty = false;
        if (v->known && v->cur == v->next)
            continue;
        if (!stamped) {
            stamped = true;
            if (!td->vcd_started) {
                /* "#t0" and $dumpvars are written with the header at close. */
                td->vcd_started = true;
                td->vcd_t0 = t;
            } else {
                trace_put_char(&td->spool, '#');
                trace_put_u64(&td->spool, t);
                trace_put_char(&td->spool, '\n');
            }
            td->vcd_last = t;
        }
        trace_vcd_put_value(&td->spool, v, v->next);
        v->known = true;
        v->cur = v->next;
    }
    g_array_set_size(td->dirty, 0);
    td->vcd_floor = t == UINT64_MAX ? t : t + 1;
}

static void trace_emit_vcd(TraceDump *td, uint32_t ci, uint64_t cycle, const char *event,
                           uint64_t dur, const TraceArg *args, int nargs)
{
    if (cycle < td->vcd_floor) {
        td->vcd_late++;               /* too late for its cycle: shown at the first free time */
        cycle = td->vcd_floor;
    }
    TraceComp *c = &g_array_index(td->comps, TraceComp, ci);
    uint64_t hold = dur > 0 ? dur : 1;
    uint64_t seq = td->seq++;
    trace_vcd_heap_push(td, (TraceChange){ .time = cycle, .seq = seq, .var = c->event_var,
                                           .value = trace_vcd_code(td, event) });
    trace_vcd_heap_push(td, (TraceChange){ .time = cycle + hold < cycle ? UINT64_MAX : cycle + hold,
                                           .seq = td->seq++, .var = c->event_var, .value = 0,
                                           .token = seq, .reset = true });
    for (int i = 0; i < nargs; i++) {
        if (args[i].kind == TARG_STR)
            continue;                 /* strings are not dumped (see tracedump.h) */
        uint32_t var = trace_vcd_arg_var(td, ci, args[i].key);
        trace_vcd_note_value(td, var, &args[i]);
        trace_vcd_heap_push(td, (TraceChange){ .time = cycle, .seq = td->seq++, .value = args[i].v.u,
                                               .var = var });
    }
    while (td->heap->len > 0 && cycle > TRACE_VCD_SLACK
           && ((TraceChange *)(void *)td->heap->data)[0].time < cycle - TRACE_VCD_SLACK)
        trace_vcd_flush_batch(td);
}

typedef struct TraceScope {
    char *name;
    int comp;                 /* component declared here, or -1 for a pure path prefix */
    GPtrArray *kids;          /* TraceScope */
} TraceScope;

static void trace_scope_free(gpointer p)
{
    TraceScope *sc = p;
    g_free(sc->name);
    g_ptr_array_unref(sc->kids);
    g_free(sc);
}

static TraceScope *trace_scope_new(const char *name)
{
    TraceScope *sc = g_new0(TraceScope, 1);
    sc->name = g_strdup(name);
    sc->comp = -1;
    sc->kids = g_ptr_array_new_with_free_func(trace_scope_free);
    return sc;
}

static void trace_vcd_put_scope(TraceDump *td, const TraceScope *sc)
{
    TraceSink *s = &td->out;
    TRACE_PUT_LIT(s, "$scope module ");
    size_t n = strlen(sc->name);
    char *d = trace_sink_reserve(s, n);
    for (size_t i = 0; i < n; i++)
        d[i] = (g_ascii_isalnum(sc->name[i]) || sc->name[i] == '_') ? sc->name[i] : '_';
    s->len += n;
    TRACE_PUT_LIT(s, " $end\n");
    if (sc->comp >= 0) {
        TraceComp *c = &g_array_index(td->comps, TraceComp, sc->comp);
        unsigned width = trace_vcd_event_width(td);
        for (guint i = 0; i <= c->arg_vars->len; i++) {
            uint32_t vi = i == 0 ? c->event_var : g_array_index(c->arg_vars, TraceArgVar, i - 1).var;
            TraceVar *v = &g_array_index(td->vars, TraceVar, vi);
            TRACE_PUT_LIT(s, "$var wire ");
            trace_put_u64(s, i == 0 ? width : trace_vcd_width(v));
            trace_put_char(s, ' ');
            trace_put(s, v->id, v->id_len);
            trace_put_char(s, ' ');
            trace_put(s, v->name, strlen(v->name));
            TRACE_PUT_LIT(s, " $end\n");
        }
    }
    for (guint i = 0; i < sc->kids->len; i++)
        trace_vcd_put_scope(td, g_ptr_array_index(sc->kids, i));
    TRACE_PUT_LIT(s, "$upscope $end\n");
}

static char *trace_vcd_date(void)
{
    /* SOURCE_DATE_EPOCH (reproducible-builds.org) makes dumps byte-identical across runs. */
    const char *epoch = g_getenv("SOURCE_DATE_EPOCH");
    uint64_t secs;
    GDateTime *dt = epoch != NULL && trace_parse_u64(epoch, strlen(epoch), false, &secs)
                        ? g_date_time_new_from_unix_utc((gint64)secs)
                        : g_date_time_new_now_local();
    char *s = dt != NULL ? g_date_time_format(dt, "%Y-%m-%d %H:%M:%S") : g_strdup("unknown");
    if (dt != NULL)
        g_date_time_unref(dt);
    return s;
}

static void trace_vcd_header(TraceDump *td)
{
    TraceSink *s = &td->out;
    char *date = trace_vcd_date();
    char *base = g_path_get_basename(td->opts.path);
    GString *comment = g_string_new(NULL);
    g_string_append_printf(comment,
        "1 ns = 1 cycle (archsim counts cycles; the ns unit is only for the viewer). "
        "Scopes nest along the dots of component paths. Each component has an integer-coded "
        "wire `event` (the event that started last, held for its duration, at least 1 cycle; "
        "0 = none) whose names are in %s.filter: in GTKWave set Data Format > Decimal, then "
        "Data Format > Translate Filter File > Enable and Select (the .gtkw save file beside this "
        "dump does that for every wire). One 64-bit wire per numeric argument holds its last "
        "value; an enum argument's wire holds codes named in the .KEY.filter file of its key; "
        "string arguments are not dumped. Window %" G_GUINT64_FORMAT ":", base, td->opts.start);
    if (td->opts.end != UINT64_MAX)
        g_string_append_printf(comment, "%" G_GUINT64_FORMAT, td->opts.end);
    g_string_append_printf(comment, ", %" G_GUINT64_FORMAT " events.", td->count);
    if (td->truncated)
        g_string_append_printf(comment, " TRUNCATED: max_events=%" G_GUINT64_FORMAT " reached; "
                               "first dropped event at cycle %" G_GUINT64_FORMAT ".",
                               td->opts.max_events, td->first_dropped);
    if (td->vcd_late > 0)
        g_string_append_printf(comment, " %" G_GUINT64_FORMAT " events arrived more than %u "
                               "cycles late and are shown later than their cycle.",
                               td->vcd_late, TRACE_VCD_SLACK);
    /* "$end" inside the comment would end it early: file names are the only free text here. */
    for (char *p = strstr(comment->str, "$end"); p != NULL; p = strstr(p, "$end"))
        *p = '_';

    TRACE_PUT_LIT(s, "$date ");
    trace_put(s, date, strlen(date));
    TRACE_PUT_LIT(s, " $end\n$version archsim " ARCHSIM_VERSION " $end\n$timescale 1ns $end\n"
                     "$comment ");
    trace_put(s, comment->str, comment->len);
    TRACE_PUT_LIT(s, " $end\n");

    TraceScope *root = trace_scope_new("");
    for (guint ci = 0; ci < td->comps->len; ci++) {
        TraceComp *c = &g_array_index(td->comps, TraceComp, ci);
        char **parts = g_strsplit(c->path, ".", -1);
        TraceScope *at = root;
        for (char **p = parts; *p != NULL; p++) {
            const char *name = **p != '\0' ? *p : "_";
            TraceScope *next = NULL;
            for (guint k = 0; k < at->kids->len && next == NULL; k++) {
                TraceScope *kid = g_ptr_array_index(at->kids, k);
                if (strcmp(kid->name, name) == 0 && (p[1] != NULL || kid->comp < 0))
                    next = kid;
            }
            if (next == NULL) {
                next = trace_scope_new(name);
                g_ptr_array_add(at->kids, next);
            }
            at = next;
        }
        at->comp = (int)ci;
        g_strfreev(parts);
    }
    for (guint k = 0; k < root->kids->len; k++)
        trace_vcd_put_scope(td, g_ptr_array_index(root->kids, k));
    trace_scope_free(root);

    TRACE_PUT_LIT(s, "$enddefinitions $end\n#");
    trace_put_u64(s, td->vcd_started ? td->vcd_t0 : td->opts.start);
    TRACE_PUT_LIT(s, "\n$dumpvars\n");
    for (guint i = 0; i < td->vars->len; i++) {
        TraceVar *v = &g_array_index(td->vars, TraceVar, i);
        trace_put(s, v->is_event ? "b0 " : "bx ", 3);
        trace_put(s, v->id, v->id_len);
        trace_put_char(s, '\n');
    }
    TRACE_PUT_LIT(s, "$end\n");
    g_string_free(comment, TRUE);
    g_free(base);
    g_free(date);
}

/* Drains the changes, then writes header + spooled body into the dump. Failures land in
 * td->out.error, reported by trace_close. */
static void trace_vcd_finish(TraceDump *td)
{
    while (td->heap->len > 0)
        trace_vcd_flush_batch(td);
    /* A final time stamp one cycle after the last change gives the last values a width. */
    uint64_t last = td->vcd_started ? td->vcd_last : td->opts.start;
    if (last != UINT64_MAX) {           /* there is no stamp after the last cycle */
        trace_put_char(&td->spool, '#');
        trace_put_u64(&td->spool, last + 1);
        trace_put_char(&td->spool, '\n');
    }
    char *problem = trace_sink_close(&td->spool);

    trace_vcd_header(td);
    if (problem == NULL && lseek(td->spool_fd, 0, SEEK_SET) != 0)
        problem = g_strdup_printf("cannot rewind the temporary body file: %s", g_strerror(errno));
    if (problem == NULL) {
        int fd = dup(td->spool_fd);
        gzFile in = fd >= 0 ? gzdopen(fd, "rb") : NULL;
        if (in == NULL) {
            if (fd >= 0)
                close(fd);
            problem = g_strdup("cannot reopen the temporary body file");
        } else {
            gzbuffer(in, 128u * 1024u);
            for (;;) {
                char *d = trace_sink_reserve(&td->out, 64u * 1024u);
                int n = gzread(in, d, 64u * 1024u);
                if (n < 0) {
                    int zerr;
                    problem = g_strdup_printf("cannot read back the temporary body file: %s",
                                              gzerror(in, &zerr));
                    break;
                }
                if (n == 0)
                    break;
                td->out.len += (size_t)n;
            }
            gzclose(in);
        }
    }
    if (problem != NULL && td->out.error == NULL)
        td->out.error = problem;
    else
        g_free(problem);
}

/* Writes one file beside the dump and remembers it (removed again if the dump fails). */
static bool trace_side_file(TraceDump *td, const char *suffix, const GString *text, char **problem)
{
    char *path = g_strconcat(td->opts.path, suffix, NULL);
    GError *err = NULL;
    bool ok = outfile_write(path, text->str, text->len, td->opts.force, &outfile_vcd_side_file,
                            &err);
    if (ok) {
        g_ptr_array_add(td->side_files, path);
    } else {
        *problem = g_strdup(err->message);
        g_error_free(err);
        g_free(path);
    }
    return ok;
}

/* One name per line, "code name": GTKWave reads the first word as the value (as displayed,
 * hence decimal) and the rest of the line as its text; lines starting with '#' are comments. */
static void trace_filter_line(GString *f, uint64_t code, const char *name)
{
    g_string_append_printf(f, "%" G_GUINT64_FORMAT " ", code);
    for (const char *p = name; *p != '\0'; p++)
        g_string_append_c(f, (*p == '\n' || *p == '\r') ? ' ' : *p);
    g_string_append_c(f, '\n');
}

/* Two enum wires share a translate filter when they name some code alike and no code
 * differently (one naming seen in parts); wires with nothing in common keep their own. */
static bool trace_names_compatible(const GPtrArray *a, const GPtrArray *b)
{
    bool common = false;
    for (guint i = 0; i < a->len && i < b->len; i++) {
        const char *x = g_ptr_array_index(a, i), *y = g_ptr_array_index(b, i);
        if (x != NULL && y != NULL && strcmp(x, y) != 0)
            return false;
        common = common || (x != NULL && y != NULL);
    }
    return common;
}

typedef struct {
    const char *key;         /* wire name (sanitized argument key) */
    GPtrArray *names;        /* code -> name (borrowed from the wires) */
    char *suffix;            /* ".<key>.filter", ".<key>.2.filter", ... */
} TraceFilterGroup;

/* GTKWave trace flags (its analyzer.h), written in hex after '@' in a save file. */
#define GTKW_HEX 0x02u
#define GTKW_DEC 0x04u
#define GTKW_RJUSTIFY 0x20u
#define GTKW_BLANK 0x200u
#define GTKW_FTRANSLATED 0x2000u

/* The VCD's own name for a wire: scope names along the path's dots, a range when wider than 1. */
static void trace_gtkw_signal(GString *g, const TraceComp *c, const TraceVar *v, unsigned width)
{
    for (const char *p = c->path; *p != '\0'; p++)
        g_string_append_c(g, (g_ascii_isalnum(*p) || *p == '_' || *p == '.') ? *p : '_');
    g_string_append_printf(g, ".%s", v->name);
    if (width > 1)
        g_string_append_printf(g, "[%u:0]", width - 1);
    g_string_append_c(g, '\n');
}

/* PATH.gtkw: opens the dump in GTKWave with every wire shown, component by component, enum
 * wires and `event` translated by their filters (decimal first: a filter matches the value as
 * displayed). Paths are relative and [savefile] names the save file itself, so GTKWave finds the
 * dump and the filters next to the save file wherever the run directory is moved. */
static void trace_vcd_gtkw(TraceDump *td, const GPtrArray *suffixes, GString *g)
{
    char *base = g_path_get_basename(td->opts.path);
    uint64_t t0 = td->vcd_started ? td->vcd_t0 : td->opts.start;
    uint64_t t1 = td->vcd_started ? td->vcd_last + 1 : t0 + 1;
    /* GTKWave shows 200 * 2^-zoom time units per 1000 pixels (measured on 3.3.118): fit the
     * whole run into the ~800 pixels of wave area of a 1400-pixel window. */
    double zoom = -log2(200.0 * (double)(t1 > t0 ? t1 - t0 : 1) / 800.0);
    g_string_append_printf(g, "[*] archsim: `gtkwave %s.gtkw` opens %s with its names\n"
                              "[*] (state names from the translate filters %s.*filter)\n"
                              "[dumpfile] \"%s\"\n[savefile] \"%s.gtkw\"\n"
                              "[timestart] %" G_GUINT64_FORMAT "\n[size] 1400 800\n"
                              "*%.6f -1\n", base, base, base, base, base, t0, zoom);
    unsigned flags = 0;
    /* first the state wires (enum "to") of every component together, named by component: the
     * line states side by side, as in a protocol exercise's table */
    for (guint ci = 0; ci < td->comps->len; ci++) {
        const TraceComp *c = &g_array_index(td->comps, TraceComp, ci);
        for (guint i = 0; i < c->arg_vars->len; i++) {
            const TraceVar *v = &g_array_index(td->vars, TraceVar,
                                               g_array_index(c->arg_vars, TraceArgVar, i).var);
            if (v->filter == 0 || strcmp(v->name, "to") != 0)
                continue;
            if (flags == 0)
                g_string_append_printf(g, "@%x\n-states (to)\n", GTKW_BLANK);
            g_string_append_printf(g, "^%u %s%s\n", v->filter + 1, base,
                                   (const char *)g_ptr_array_index(suffixes, v->filter - 1));
            if (flags != (GTKW_DEC | GTKW_RJUSTIFY | GTKW_FTRANSLATED))
                g_string_append_printf(g, "@%x\n", GTKW_DEC | GTKW_RJUSTIFY | GTKW_FTRANSLATED);
            flags = GTKW_DEC | GTKW_RJUSTIFY | GTKW_FTRANSLATED;
            g_string_append_printf(g, "+{%s} ", c->path);
            trace_gtkw_signal(g, c, v, trace_vcd_width(v));
        }
    }
    for (guint ci = 0; ci < td->comps->len; ci++) {
        const TraceComp *c = &g_array_index(td->comps, TraceComp, ci);
        g_string_append_printf(g, "@%x\n-%s\n", GTKW_BLANK, c->path);
        flags = GTKW_BLANK;
        for (guint i = 0; i <= c->arg_vars->len; i++) {
            uint32_t vi = i == 0 ? c->event_var
                                 : g_array_index(c->arg_vars, TraceArgVar, i - 1).var;
            const TraceVar *v = &g_array_index(td->vars, TraceVar, vi);
            unsigned want, width;
            if (i == 0) {
                width = trace_vcd_event_width(td);
                g_string_append_printf(g, "^1 %s.filter\n", base);
                want = GTKW_DEC | GTKW_RJUSTIFY | GTKW_FTRANSLATED;
            } else if (v->filter > 0) {
                width = trace_vcd_width(v);
                g_string_append_printf(g, "^%u %s%s\n", v->filter + 1, base,
                                       (const char *)g_ptr_array_index(suffixes, v->filter - 1));
                want = GTKW_DEC | GTKW_RJUSTIFY | GTKW_FTRANSLATED;
            } else {
                width = trace_vcd_width(v);
                want = (strcmp(v->name, "addr") == 0 ? GTKW_HEX : GTKW_DEC) | GTKW_RJUSTIFY;
            }
            if (want != flags)
                g_string_append_printf(g, "@%x\n", want);
            flags = want;
            trace_gtkw_signal(g, c, v, width);
        }
    }
    g_free(base);
}

/* At close: PATH.filter (event codes), one translate filter per enum key (wires whose names
 * agree share one: PATH.<key>.filter, then PATH.<key>.2.filter, ...) and PATH.gtkw. Returns
 * the first failure (newly allocated) or NULL. */
static char *trace_vcd_write_side_files(TraceDump *td)
{
    char *problem = NULL;
    GString *f = g_string_new("0 -\n");
    for (guint i = 0; i < td->code_names->len; i++)
        trace_filter_line(f, i + 1, g_ptr_array_index(td->code_names, i));
    bool ok = trace_side_file(td, ".filter", f, &problem);

    GArray *groups = g_array_new(FALSE, TRUE, sizeof(TraceFilterGroup));
    GPtrArray *suffixes = g_ptr_array_new();
    for (guint vi = 0; vi < td->vars->len; vi++) {
        TraceVar *v = &g_array_index(td->vars, TraceVar, vi);
        if (v->enum_names == NULL || v->numeric)
            continue;
        guint gi = 0, same_key = 0;
        for (; gi < groups->len; gi++) {
            TraceFilterGroup *gr = &g_array_index(groups, TraceFilterGroup, gi);
            if (strcmp(gr->key, v->name) != 0)
                continue;
            same_key++;
            if (trace_names_compatible(gr->names, v->enum_names))
                break;
        }
        if (gi == groups->len) {
            TraceFilterGroup gr = { .key = v->name, .names = g_ptr_array_new() };
            gr.suffix = same_key == 0 ? g_strdup_printf(".%s.filter", v->name)
                                      : g_strdup_printf(".%s.%u.filter", v->name, same_key + 1);
            g_array_append_val(groups, gr);
            g_ptr_array_add(suffixes, gr.suffix);
        }
        TraceFilterGroup *gr = &g_array_index(groups, TraceFilterGroup, gi);
        if (gr->names->len < v->enum_names->len)
            g_ptr_array_set_size(gr->names, (gint)v->enum_names->len);
        for (guint k = 0; k < v->enum_names->len; k++)
            if (g_ptr_array_index(gr->names, k) == NULL)
                gr->names->pdata[k] = g_ptr_array_index(v->enum_names, k);
        v->filter = gi + 1;
    }
    for (guint gi = 0; ok && gi < groups->len; gi++) {
        TraceFilterGroup *gr = &g_array_index(groups, TraceFilterGroup, gi);
        g_string_printf(f, "# archsim: the names of the codes of wire `%s` (GTKWave translate "
                           "filter: set the wire to Decimal, then attach this file)\n", gr->key);
        for (guint k = 0; k < gr->names->len; k++)
            if (g_ptr_array_index(gr->names, k) != NULL)
                trace_filter_line(f, k, g_ptr_array_index(gr->names, k));
        ok = trace_side_file(td, gr->suffix, f, &problem);
    }
    if (ok) {
        g_string_truncate(f, 0);
        trace_vcd_gtkw(td, suffixes, f);
        trace_side_file(td, ".gtkw", f, &problem);
    }
    for (guint gi = 0; gi < groups->len; gi++) {
        TraceFilterGroup *gr = &g_array_index(groups, TraceFilterGroup, gi);
        g_ptr_array_unref(gr->names);
        g_free(gr->suffix);
    }
    g_array_unref(groups);
    g_ptr_array_unref(suffixes);
    g_string_free(f, TRUE);
    return problem;
}

/* ---- open, register, emit, close ---- */

static void trace_free(TraceDump *td)
{
    if (td->kid[0] != NULL) {         /* a tee owns nothing else */
        g_array_unref(td->kid_tracks);
        g_free(td);
        return;
    }
    g_free(trace_sink_close(&td->out));
    if (td->spool.gz != NULL || td->spool.buf != NULL)
        g_free(trace_sink_close(&td->spool));
    if (td->spool_fd >= 0)
        close(td->spool_fd);
    for (guint i = 0; i < td->comps->len; i++) {
        TraceComp *c = &g_array_index(td->comps, TraceComp, i);
        for (guint k = 0; k < c->lanes->len; k++)
            g_array_unref(g_array_index(c->lanes, TraceLane, k).ends);
        for (guint k = 0; k < c->arg_vars->len; k++)
            g_free(g_array_index(c->arg_vars, TraceArgVar, k).key);
        g_array_unref(c->lanes);
        g_array_unref(c->arg_vars);
        g_free(c->path);
        g_free(c->json);
    }
    for (guint i = 0; i < td->vars->len; i++) {
        TraceVar *v = &g_array_index(td->vars, TraceVar, i);
        g_free(v->name);
        if (v->enum_names != NULL)
            g_ptr_array_unref(v->enum_names);
    }
    g_array_unref(td->comps);
    g_hash_table_unref(td->comp_ids);
    g_array_unref(td->vars);
    g_array_unref(td->heap);
    g_array_unref(td->dirty);
    g_hash_table_unref(td->codes);
    g_ptr_array_unref(td->code_names);
    for (guint i = 0; i < td->pf_states->len; i++) {
        TracePfState *st = &g_array_index(td->pf_states, TracePfState, i);
        g_free(st->name);
        g_free(st->args);
    }
    g_array_unref(td->pf_states);
    g_hash_table_unref(td->pf_state_ids);
    g_ptr_array_unref(td->side_files);
    for (guint i = 0; i < td->held->len; i++) {
        TraceHeld *h = &g_array_index(td->held, TraceHeld, i);
        g_free(h->strs);
        g_free(h->big);
    }
    g_array_unref(td->held);
    g_array_unref(td->held_free);
    g_array_unref(td->rheap);
    g_array_unref(td->holds);
    g_array_unref(td->hold_tracks);
    if (td->teach != NULL)
        td->opts.sink->free(td->teach);
    if (td->globs != NULL) {
        for (GPatternSpec **g = td->globs; *g != NULL; g++)
            g_pattern_spec_free(*g);
        g_free(td->globs);
    }
    g_free(td->glob_hit);
    if (td->offered != NULL)
        g_ptr_array_unref(td->offered);
    g_strfreev(td->opts.components);
    g_free((char *)td->opts.path);
    outfile_abort(&td->file);    /* removes the temporary file unless it was committed */
    g_free(td);
}

static GPtrArray *trace_side_files(const char *dir, const char *base);

TraceDump *trace_open(const TraceOptions *opts, GError **error)
{
    g_assert(opts != NULL && opts->path != NULL);
    g_assert((size_t)opts->format < G_N_ELEMENTS(trace_format_names));
    if (opts->start > opts->end || (opts->addr_filter && opts->addr_lo > opts->addr_hi)) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_USAGE,
                    "%s: empty trace %s (start after end)", opts->path,
                    opts->start > opts->end ? "window" : "address range");
        return NULL;
    }
    bool to_stdout = strcmp(opts->path, "-") == 0;
    if (to_stdout && opts->format == TRACE_FMT_VCD) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_USAGE,
                    "-: a VCD dump needs a file (its filters and .gtkw go beside it)");
        return NULL;
    }
    TraceDump *td = g_new0(TraceDump, 1);
    td->opts = *opts;
    td->opts.path = g_strdup(opts->path);
    /* the teaching table needs every component, so it ignores the component filter */
    td->opts.components = opts->components != NULL && opts->components[0] != NULL
                          && opts->format != TRACE_FMT_TEACH
                              ? g_strdupv(opts->components) : NULL;
    if (td->opts.components != NULL) {
        guint n = g_strv_length(td->opts.components);
        td->globs = g_new0(GPatternSpec *, n + 1);
        td->glob_hit = g_new0(bool, n);
        for (guint i = 0; i < n; i++)
            td->globs[i] = g_pattern_spec_new(td->opts.components[i]);
        td->offered = g_ptr_array_new_with_free_func(g_free);
    }
    td->file.fd = -1;
    td->spool_fd = -1;
    td->comps = g_array_new(FALSE, TRUE, sizeof(TraceComp));
    td->comp_ids = g_hash_table_new(g_str_hash, g_str_equal);
    td->vars = g_array_new(FALSE, TRUE, sizeof(TraceVar));
    td->heap = g_array_new(FALSE, FALSE, sizeof(TraceChange));
    td->dirty = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    td->codes = g_hash_table_new(g_str_hash, g_str_equal);
    td->code_names = g_ptr_array_new_with_free_func(g_free);
    td->pf_states = g_array_new(FALSE, TRUE, sizeof(TracePfState));
    td->pf_state_ids = g_hash_table_new_full(trace_pf_key_hash, trace_pf_key_equal, g_free, NULL);
    td->side_files = g_ptr_array_new_with_free_func(g_free);
    td->held = g_array_new(FALSE, TRUE, sizeof(TraceHeld));
    td->held_free = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    td->rheap = g_array_new(FALSE, FALSE, sizeof(TraceHeapItem));
    td->holds = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    td->hold_tracks = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    td->hold_min = UINT64_MAX;
    if (opts->format == TRACE_FMT_TEACH) {
        g_assert(opts->sink != NULL);
        td->teach = opts->sink->open();
    }

    bool gz = g_str_has_suffix(opts->path, ".gz");
    char *problem = NULL;
    /* an existing file is replaced only when it is an archsim dump and --force says so; a
     * VCD's filter and GTKWave files beside it follow the same rule */
    bool side_replace = false;
    char *gtkw = opts->format == TRACE_FMT_VCD ? g_strconcat(opts->path, ".gtkw", NULL) : NULL;
    char *filter = opts->format == TRACE_FMT_VCD ? g_strconcat(opts->path, ".filter", NULL)
                                                 : NULL;
    bool can = !gtkw || (outfile_check(gtkw, opts->force, &outfile_vcd_side_file, &side_replace,
                                       error) &&
                         outfile_check(filter, opts->force, &outfile_vcd_side_file, &side_replace,
                                       error));
    g_free(gtkw);
    g_free(filter);
    if (can && opts->format == TRACE_FMT_VCD) {
        /* the per-key filters (PATH.KEY.filter) are named only at close, by the keys the run
         * meets: any that exists now is checked now, not after the run */
        char *dir = g_path_get_dirname(opts->path), *base = g_path_get_basename(opts->path);
        GPtrArray *side = trace_side_files(dir, base);
        for (guint i = 0; can && i < side->len; i++) {
            char *p = g_build_filename(dir, g_ptr_array_index(side, i), NULL);
            can = outfile_check(p, opts->force, &outfile_vcd_side_file, &side_replace, error);
            g_free(p);
        }
        g_ptr_array_unref(side);
        g_free(dir);
        g_free(base);
    }
    if (!can || !outfile_open(&td->file, opts->path, opts->force, &outfile_trace_dump, error)) {
        trace_free(td);
        return NULL;
    }
    int fd = td->file.fd;
    td->file.fd = -1;            /* the sink owns it from here */
    if (!trace_sink_open(&td->out, fd, gz, &problem))
        goto fail;
    if (opts->format == TRACE_FMT_VCD) {
        /* The body waits in a temp file next to the dump (same disk, unlinked at once so a crash
         * leaves nothing behind) because every $var must precede it and keys appear late. */
        char *tmpl = g_strconcat(opts->path, ".body-XXXXXX", NULL);
        td->spool_fd = g_mkstemp_full(tmpl, O_RDWR | O_CLOEXEC, 0600);
        int saved = errno;
        if (td->spool_fd >= 0)
            unlink(tmpl);
        g_free(tmpl);
        if (td->spool_fd < 0) {
            problem = g_strdup_printf("cannot create a temporary body file: %s", g_strerror(saved));
            goto fail;
        }
        int sfd = dup(td->spool_fd);
        if (sfd < 0) {
            problem = g_strdup_printf("dup: %s", g_strerror(errno));
            goto fail;
        }
        if (!trace_sink_open(&td->spool, sfd, gz, &problem))
            goto fail;
    }
    if (opts->format == TRACE_FMT_PERFETTO) {
        TRACE_PUT_LIT(&td->out, "{\"traceEvents\":[\n"
                                "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,"
                                "\"args\":{\"name\":\"archsim (1 us on the time axis = 1 cycle)\"}}");
        td->any_event = true;
    }
    return td;

fail:
    g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT,
                "%s: cannot create trace dump: %s", opts->path, problem);
    g_free(problem);
    trace_free(td);
    return NULL;
}

void *trace_sink_state(TraceDump *td)
{
    return td && td->opts.format == TRACE_FMT_TEACH ? td->teach : NULL;
}

TraceDump *trace_tee(TraceDump *a, TraceDump *b)
{
    g_assert(a != NULL && b != NULL);
    TraceDump *td = g_new0(TraceDump, 1);
    td->kid[0] = a;
    td->kid[1] = b;
    td->kid_tracks = g_array_new(FALSE, FALSE, 2 * sizeof(int));
    /* trace_options(tee): the window that lets through what either needs */
    td->opts = a->opts;
    td->opts.start = MIN(a->opts.start, b->opts.start);
    td->opts.end = MAX(a->opts.end, b->opts.end);
    td->opts.path = NULL;
    td->opts.components = NULL;
    return td;
}

int trace_register(TraceDump *td, const char *component)
{
    return trace_register_as(td, component, NULL);
}

int trace_register_as(TraceDump *td, const char *component, const TeachEvent *events)
{
    g_assert(td != NULL && component != NULL && component[0] != '\0');
    if (td->kid[0] != NULL) {
        int ids[2] = { trace_register_as(td->kid[0], component, events),
                       trace_register_as(td->kid[1], component, events) };
        if (ids[0] < 0 && ids[1] < 0)
            return -1;
        for (guint i = 0; i < td->kid_tracks->len; i++) {
            const int *k = &g_array_index(td->kid_tracks, int, 2 * i);
            if (k[0] == ids[0] && k[1] == ids[1])
                return (int)i;        /* registered before */
        }
        g_array_append_val(td->kid_tracks, ids);
        return (int)td->kid_tracks->len - 1;
    }
    gpointer known = g_hash_table_lookup(td->comp_ids, component);
    if (known != NULL)
        return GPOINTER_TO_INT(known) - 1;
    if (td->globs != NULL) {
        /* every glob is tried (not only up to the first hit) so that trace_check_components
         * knows which ones matched nothing */
        size_t n = strlen(component);
        bool hit = false;
        for (guint i = 0; td->globs[i] != NULL; i++)
            if (g_pattern_spec_match(td->globs[i], n, component, NULL))
                hit = td->glob_hit[i] = true;
        bool seen = false;
        for (guint i = 0; i < td->offered->len && !seen; i++)
            seen = strcmp(g_ptr_array_index(td->offered, i), component) == 0;
        if (!seen)
            g_ptr_array_add(td->offered, g_strdup(component));
        if (!hit)
            return -1;
    }
    TraceComp c = {
        .path = g_strdup(component),
        .path_len = strlen(component),
        .json = trace_json_escape_dup(component),
        .lanes = g_array_new(FALSE, FALSE, sizeof(TraceLane)),
        .arg_vars = g_array_new(FALSE, FALSE, sizeof(TraceArgVar)),
    };
    TraceLane own = { .last_start = 0, .ends = g_array_new(FALSE, FALSE, sizeof(uint64_t)) };
    g_array_append_val(c.lanes, own);
    uint32_t ci = td->comps->len;
    g_array_append_val(td->comps, c);
    g_hash_table_insert(td->comp_ids, c.path, GINT_TO_POINTER((int)ci + 1));
    uint64_t none = UINT64_MAX;
    g_array_append_val(td->holds, none);
    if (td->opts.format == TRACE_FMT_PERFETTO)
        trace_pf_thread_name(td, ci, 0);
    else if (td->opts.format == TRACE_FMT_VCD)
        g_array_index(td->comps, TraceComp, ci).event_var = trace_vcd_new_var(td, ci, true, "event");
    else if (td->opts.format == TRACE_FMT_TEACH)
        td->opts.sink->add(td->teach, ci, component, events);
    return (int)ci;
}

/* The list of component names in a "matches no component" message: all of them up to this many,
 * then a count (a 64-core machine has a few hundred). */
#define TRACE_NAMES_LISTED 24

bool trace_check_components(const TraceDump *td, GError **error)
{
    g_assert(td != NULL);
    if (td->kid[0] != NULL)
        return trace_check_components(td->kid[0], error) && trace_check_components(td->kid[1], error);
    if (td->globs == NULL)
        return true;
    for (guint i = 0; td->globs[i] != NULL; i++) {
        if (td->glob_hit[i])
            continue;
        const char *pat = td->opts.components[i];
        GString *list = g_string_new(NULL);
        guint n = td->offered->len;
        for (guint k = 0; k < n && k < TRACE_NAMES_LISTED; k++)
            g_string_append_printf(list, "%s%s", k ? ", " : "",
                                   (const char *)g_ptr_array_index(td->offered, k));
        if (n > TRACE_NAMES_LISTED)
            g_string_append_printf(list, ", ... (%u in all)", n);
        /* the closest name, for a misspelt one ('l1dd', 'core'): globs are compared as text */
        const char *hint = param_suggest(pat, (const char *const *)td->offered->pdata, n);
        char *tip = hint != NULL ? g_strdup_printf("; did you mean '%s'?", hint) : g_strdup("");
        g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE,
                    "--trace-components: '%s' matches no component; components: %s%s", pat,
                    n > 0 ? list->str : "(none)", tip);
        g_free(tip);
        g_string_free(list, TRUE);
        return false;
    }
    return true;
}

static bool trace_addr_pass(const TraceOptions *o, const TraceArg *args, int nargs)
{
    for (int i = 0; i < nargs; i++) {
        const char *k = args[i].key;
        if (args[i].kind != TARG_STR && k[0] == 'a' && strcmp(k, "addr") == 0)
            return args[i].v.u >= o->addr_lo && args[i].v.u <= o->addr_hi;
    }
    return true;
}

static void trace_emit_text(TraceDump *td, const TraceComp *c, uint64_t cycle, const char *event,
                            uint64_t dur, const TraceArg *args, int nargs)
{
    TraceSink *s = &td->out;
    size_t evlen = strlen(event);
    /* cycle (>= 7) + ": " + path + ": " + event; arguments reserve their own room */
    char *d = trace_sink_reserve(s, 20 + 2 + c->path_len + 2 + evlen), *d0 = d;
    char num[20];
    size_t n = trace_fmt_u64(num, cycle);
    for (size_t i = n; i < 7; i++)
        *d++ = ' ';
    memcpy(d, num, n);
    d += n;
    *d++ = ':';
    *d++ = ' ';
    memcpy(d, c->path, c->path_len);
    d += c->path_len;
    *d++ = ':';
    *d++ = ' ';
    d += trace_text_clean(d, event, evlen);
    s->len += (size_t)(d - d0);
    for (int i = 0; i < nargs; i++) {
        const TraceArg *a = &args[i];
        trace_put_char(s, ' ');
        trace_put_text(s, a->key);
        trace_put_char(s, '=');
        char *v = trace_sink_reserve(s, 21);
        switch (a->kind) {
        case TARG_U64: s->len += trace_fmt_u64(v, a->v.u); break;
        case TARG_I64: s->len += trace_fmt_i64(v, a->v.i); break;
        case TARG_HEX: s->len += trace_fmt_hex(v, a->v.u); break;
        case TARG_STR: trace_put_text(s, a->v.s != NULL ? a->v.s : ""); break;
        case TARG_ENUM:
            if (a->name != NULL)
                trace_put_text(s, a->name);
            else
                s->len += trace_fmt_u64(v, a->v.u);
            break;
        }
    }
    if (dur > 0) {
        TRACE_PUT_LIT(s, " dur=");
        trace_put_u64(s, dur);
    }
    trace_put_char(s, '\n');
}

static void trace_emit_jsonl(TraceDump *td, const TraceComp *c, uint64_t cycle, const char *event,
                             uint64_t dur, const TraceArg *args, int nargs)
{
    TraceSink *s = &td->out;
    TRACE_PUT_LIT(s, "{\"cycle\":");
    trace_put_u64(s, cycle);
    TRACE_PUT_LIT(s, ",\"comp\":\"");
    trace_put(s, c->json, strlen(c->json));
    TRACE_PUT_LIT(s, "\",\"event\":");
    trace_put_json_str(s, event);
    TRACE_PUT_LIT(s, ",\"dur\":");
    trace_put_u64(s, dur);
    TRACE_PUT_LIT(s, ",\"args\":");
    trace_put_json_args(s, args, nargs);
    TRACE_PUT_LIT(s, "}\n");
}

/* Size advice for Perfetto (docs/trace-dumps.md): once the JSON passes TRACE_PF_WARN_BYTES, say
 * how big it is so far and which window would fit, from this run's events per cycle. */
static void trace_pf_size_warn(TraceDump *td, uint64_t cycle)
{
    td->size_warned = true;
    if (td->opts.warn == NULL)
        return;
    uint64_t bytes = td->out.flushed + td->out.len;
    double per_event = (double)bytes / (double)td->count;
    double cycles = (double)(cycle - td->first_cycle + 1);
    double per_cycle = (double)td->count / cycles;
    /* half the limit leaves room for the rest of the file and for busier stretches */
    uint64_t fit = (uint64_t)((double)TRACE_PF_WARN_BYTES / 2.0 / per_event / per_cycle);
    if (fit == 0)
        fit = 1;
    uint64_t from = td->first_cycle, to = from + fit - 1 < from ? UINT64_MAX : from + fit - 1;
    char *msg = g_strdup_printf(
        "the Perfetto dump has passed %" G_GUINT64_FORMAT " MB (%" G_GUINT64_FORMAT
        " events up to cycle %" G_GUINT64_FORMAT "); ui.perfetto.dev may fail to load more than "
        "about %u MB. At %.2f events per cycle, about %" G_GUINT64_FORMAT " cycles fit in %u MB: "
        "narrow it with --trace-window FROM:TO (e.g. --trace-window %" G_GUINT64_FORMAT
        ":%" G_GUINT64_FORMAT ") and --trace-components GLOB, or open it with trace_processor",
        bytes / 1000000u, td->count, cycle, TRACE_PF_WARN_BYTES / 1000000u,
        per_cycle, fit, TRACE_PF_WARN_BYTES / 2000000u, from, to);
    td->opts.warn(msg, td->opts.warn_ctx);
    g_free(msg);
}

/* Writes one event that passed the filters, in time order (the caller sees to that). */
static void trace_write(TraceDump *td, int track, uint64_t cycle, const char *event, uint64_t dur,
                        const TraceArg *args, int nargs)
{
    if (td->opts.max_events != 0 && td->count >= td->opts.max_events) {
        if (!td->truncated || cycle < td->first_dropped)
            td->first_dropped = cycle;
        td->truncated = true;
        return;
    }
    if (!td->any_written) {
        td->any_written = true;
        td->first_cycle = td->last_cycle = cycle;
    } else if (cycle < td->last_cycle) {
        td->out_of_order++;
    } else {
        td->last_cycle = cycle;
    }
    td->count++;
    const TraceComp *c = &g_array_index(td->comps, TraceComp, track);
    switch (td->opts.format) {
    case TRACE_FMT_TEXT: trace_emit_text(td, c, cycle, event, dur, args, nargs); break;
    case TRACE_FMT_JSONL: trace_emit_jsonl(td, c, cycle, event, dur, args, nargs); break;
    case TRACE_FMT_PERFETTO:
        trace_emit_perfetto(td, (uint32_t)track, cycle, event, dur, args, nargs);
        if (G_UNLIKELY(td->out.flushed + td->out.len > TRACE_PF_WARN_BYTES) && !td->size_warned)
            trace_pf_size_warn(td, cycle);
        break;
    case TRACE_FMT_VCD: trace_emit_vcd(td, (uint32_t)track, cycle, event, dur, args, nargs); break;
    case TRACE_FMT_TEACH: break;      /* never buffered or written here */
    }
}

/* ---- time order: the reorder heap ---- */

static bool trace_heap_less(const TraceHeapItem *a, const TraceHeapItem *b)
{
    return a->cycle < b->cycle || (a->cycle == b->cycle && a->seq < b->seq);
}

static void trace_rheap_push(TraceDump *td, TraceHeapItem it)
{
    g_array_append_val(td->rheap, it);
    TraceHeapItem *h = (TraceHeapItem *)(void *)td->rheap->data;
    guint i = td->rheap->len - 1;
    while (i > 0 && trace_heap_less(&h[i], &h[(i - 1) / 2])) {
        TraceHeapItem t = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static TraceHeapItem trace_rheap_pop(TraceDump *td)
{
    TraceHeapItem *h = (TraceHeapItem *)(void *)td->rheap->data;
    TraceHeapItem top = h[0];
    guint n = td->rheap->len - 1;
    h[0] = h[n];
    g_array_set_size(td->rheap, n);
    guint i = 0;
    for (;;) {
        guint l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && trace_heap_less(&h[l], &h[m]))
            m = l;
        if (r < n && trace_heap_less(&h[r], &h[m]))
            m = r;
        if (m == i)
            break;
        TraceHeapItem t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
    return top;
}

/* Copies a string of n bytes (NUL included) to *dst and moves it on. */
static const char *trace_str_copy(char **dst, const char *str, size_t n)
{
    memcpy(*dst, str, n);
    const char *out = *dst;
    *dst += n;
    return out;
}

/* Copies an event into a free slot and queues it. Each string is measured once (this is the
 * hot path of a dump while any component holds). */
static void trace_held_push(TraceDump *td, int track, uint64_t cycle, const char *event,
                            uint64_t dur, const TraceArg *args, int nargs)
{
    size_t small[1 + 2 * 8], *len = small;
    if (nargs > 8)
        len = g_new(size_t, 1 + 2 * (size_t)nargs);
    len[0] = strlen(event) + 1;
    size_t need = len[0];
    for (int i = 0; i < nargs; i++) {
        const char *v = args[i].kind == TARG_STR ? (args[i].v.s != NULL ? args[i].v.s : "")
                        : args[i].kind == TARG_ENUM ? args[i].name : NULL;
        len[1 + 2 * i] = strlen(args[i].key) + 1;
        len[2 + 2 * i] = v != NULL ? strlen(v) + 1 : 0;
        need += len[1 + 2 * i] + len[2 + 2 * i];
    }
    uint32_t slot;
    if (td->held_free->len > 0) {
        slot = g_array_index(td->held_free, uint32_t, td->held_free->len - 1);
        g_array_set_size(td->held_free, td->held_free->len - 1);
    } else {
        slot = td->held->len;
        g_array_set_size(td->held, slot + 1);
    }
    TraceHeld *h = &g_array_index(td->held, TraceHeld, slot);
    if (h->strs_cap < need) {
        h->strs = g_realloc(h->strs, need);
        h->strs_cap = need;
    }
    char *p = h->strs;
    h->cycle = cycle;
    h->seq = td->rseq++;
    h->dur = dur;
    h->track = track;
    h->nargs = nargs;
    h->event = trace_str_copy(&p, event, len[0]);
    TraceArg *dst = h->inl;
    if (nargs > (int)G_N_ELEMENTS(h->inl)) {
        h->big = g_renew(TraceArg, h->big, nargs);
        dst = h->big;
    }
    for (int i = 0; i < nargs; i++) {
        dst[i] = args[i];
        dst[i].key = trace_str_copy(&p, args[i].key, len[1 + 2 * i]);
        if (args[i].kind == TARG_STR)
            dst[i].v.s = trace_str_copy(&p, args[i].v.s != NULL ? args[i].v.s : "",
                                        len[2 + 2 * i]);
        else if (args[i].kind == TARG_ENUM && args[i].name != NULL)
            dst[i].name = trace_str_copy(&p, args[i].name, len[2 + 2 * i]);
    }
    if (len != small)
        g_free(len);
    trace_rheap_push(td, (TraceHeapItem){ .cycle = cycle, .seq = h->seq, .slot = slot });
}

/* Writes the waiting events up to cycle `limit`, oldest first. */
static void trace_held_flush(TraceDump *td, uint64_t limit)
{
    while (td->rheap->len > 0 && g_array_index(td->rheap, TraceHeapItem, 0).cycle <= limit) {
        TraceHeapItem it = trace_rheap_pop(td);
        TraceHeld *h = &g_array_index(td->held, TraceHeld, it.slot);
        trace_write(td, h->track, h->cycle, h->event, h->dur,
                    h->nargs > (int)G_N_ELEMENTS(h->inl) ? h->big : h->inl, h->nargs);
        g_array_append_val(td->held_free, it.slot);
    }
}

void trace_hold(TraceDump *td, int track, uint64_t since)
{
    if (track < 0)
        return;
    if (td->kid[0] != NULL) {
        g_assert((guint)track < td->kid_tracks->len);
        const int *k = &g_array_index(td->kid_tracks, int, 2 * (guint)track);
        trace_hold(td->kid[0], k[0], since);
        trace_hold(td->kid[1], k[1], since);
        return;
    }
    if (td->teach != NULL)
        return;                       /* the teaching table reads events as they come */
    g_assert((guint)track < td->holds->len);
    uint64_t *slot = &g_array_index(td->holds, uint64_t, track);
    uint64_t old = *slot;
    if (old == since)
        return;
    *slot = since;
    if (old == UINT64_MAX) {
        uint32_t t = (uint32_t)track;
        g_array_append_val(td->hold_tracks, t);
    } else if (since == UINT64_MAX) {
        for (guint i = 0; i < td->hold_tracks->len; i++)
            if (g_array_index(td->hold_tracks, uint32_t, i) == (uint32_t)track) {
                g_array_remove_index_fast(td->hold_tracks, i);
                break;
            }
    }
    if (since <= td->hold_min) {
        td->hold_min = since;
        return;
    }
    if (old != td->hold_min)
        return;                       /* another track holds the minimum */
    uint64_t m = UINT64_MAX;
    for (guint i = 0; i < td->hold_tracks->len; i++) {
        uint64_t h = g_array_index(td->holds, uint64_t, g_array_index(td->hold_tracks, uint32_t, i));
        if (h < m)
            m = h;
    }
    td->hold_min = m;
    trace_held_flush(td, m);
}

void trace_emit(TraceDump *td, int track, uint64_t cycle, const char *event, uint64_t dur,
                const TraceArg *args, int nargs)
{
    if (track < 0)
        return;                       /* a component the filter dropped */
    if (td->kid[0] != NULL) {
        g_assert((guint)track < td->kid_tracks->len);
        const int *k = &g_array_index(td->kid_tracks, int, 2 * (guint)track);
        trace_emit(td->kid[0], k[0], cycle, event, dur, args, nargs);
        trace_emit(td->kid[1], k[1], cycle, event, dur, args, nargs);
        return;
    }
    g_assert(td != NULL && (guint)track < td->comps->len && event != NULL);
    g_assert(nargs >= 0 && (nargs == 0 || args != NULL));
    if (!trace_window_has(&td->opts, cycle))
        return;
    if (td->opts.addr_filter && !trace_addr_pass(&td->opts, args, nargs))
        return;
    if (td->teach != NULL) {          /* every event counts: no max_events */
        td->count++;
        td->opts.sink->event(td->teach, (uint32_t)track, cycle, event, dur, args, nargs);
        return;
    }
    if (td->truncated) {              /* max_events written: the rest is only noted */
        if (cycle < td->first_dropped)
            td->first_dropped = cycle;
        return;
    }
    /* Waiting events are all later than hold_min, so one at or before it goes out first. */
    if (cycle <= td->hold_min) {
        trace_write(td, track, cycle, event, dur, args, nargs);
        return;
    }
    trace_held_push(td, track, cycle, event, dur, args, nargs);
    if (G_UNLIKELY(td->rheap->len > TRACE_REORDER_MAX)) {
        /* a hold that lasts too long (a model that never reports): bound the memory, write the
         * older half; what is reported behind them later is counted as out of order */
        while (td->rheap->len > TRACE_REORDER_MAX / 2)
            trace_held_flush(td, g_array_index(td->rheap, TraceHeapItem, 0).cycle);
    }
}

bool trace_close(TraceDump *td, GError **error)
{
    g_assert(td != NULL);
    if (td->kid[0] != NULL) {         /* both are closed; the first failure is reported */
        GError *e2 = NULL;
        bool ok = trace_close(td->kid[0], error);
        ok = trace_close(td->kid[1], ok ? error : &e2) && ok;
        g_clear_error(&e2);
        trace_free(td);
        return ok;
    }
    trace_held_flush(td, UINT64_MAX);   /* what still waits for a hold (a run that stopped) */
    TraceSink *s = &td->out;
    switch (td->opts.format) {
    case TRACE_FMT_TEXT:
        if (td->out_of_order > 0) {
            TRACE_PUT_LIT(s, "# archsim: ");
            trace_put_u64(s, td->out_of_order);
            TRACE_PUT_LIT(s, " events out of cycle order (reported later than the reorder buffer "
                             "waits)\n");
        }
        if (td->truncated) {
            TRACE_PUT_LIT(s, "# archsim: trace truncated at max_events=");
            trace_put_u64(s, td->opts.max_events);
            TRACE_PUT_LIT(s, "; first dropped event at cycle ");
            trace_put_u64(s, td->first_dropped);
            trace_put_char(s, '\n');
        }
        if (td->count == 0)     /* said, so that an empty dump is not an empty file (which a
                                   second run could not tell for archsim's own) */
            TRACE_PUT_LIT(s, "# archsim: no events in the window and the filters\n");
        break;
    case TRACE_FMT_JSONL:
        if (td->out_of_order > 0) {
            TRACE_PUT_LIT(s, "{\"out_of_order_events\":");
            trace_put_u64(s, td->out_of_order);
            TRACE_PUT_LIT(s, "}\n");
        }
        if (td->truncated) {
            TRACE_PUT_LIT(s, "{\"truncated\":true,\"max_events\":");
            trace_put_u64(s, td->opts.max_events);
            TRACE_PUT_LIT(s, ",\"first_dropped_cycle\":");
            trace_put_u64(s, td->first_dropped);
            TRACE_PUT_LIT(s, "}\n");
        }
        if (td->count == 0)
            TRACE_PUT_LIT(s, "{\"events\":0}\n");
        break;
    case TRACE_FMT_PERFETTO:
        trace_pf_footer(td);
        break;
    case TRACE_FMT_VCD:
        trace_vcd_finish(td);
        break;
    case TRACE_FMT_TEACH: {
        GString *t = g_string_new(NULL);
        td->opts.sink->write(td->teach, t);
        trace_put(s, t->str, t->len);
        g_string_free(t, TRUE);
        break;
    }
    }
    char *problem = trace_sink_close(&td->out);
    if (problem == NULL && td->opts.format == TRACE_FMT_VCD)
        problem = trace_vcd_write_side_files(td);
    GError *e = NULL;
    if (problem == NULL && !outfile_commit(&td->file, &e)) {
        problem = g_strdup(e->message);
        g_error_free(e);
    }
    bool ok = problem == NULL;
    if (!ok) {
        for (guint i = 0; i < td->side_files->len; i++)
            unlink(g_ptr_array_index(td->side_files, i));
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_IOERR, "%s: cannot write trace dump: %s",
                    td->opts.path, problem);
        g_free(problem);
    }
    trace_free(td);              /* removes the temporary file of a dump that failed */
    return ok;
}

void trace_abort(TraceDump *td)
{
    if (td == NULL)
        return;
    if (td->kid[0] != NULL) {
        trace_abort(td->kid[0]);
        trace_abort(td->kid[1]);
        trace_free(td);
        return;
    }
    /* Nothing buffered is worth writing: drop it, close, then remove the partial file. */
    td->out.len = 0;
    td->spool.len = 0;
    trace_free(td);              /* closes, then removes the temporary file */
}

/* The .gtkw names the dump and the filters by their base names: rewrite them for the new one. */
static char *trace_gtkw_renamed(const char *text, const char *old_base, const char *new_base)
{
    GString *out = g_string_new(NULL);
    char **lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l != NULL; l++) {
        if (g_str_has_prefix(*l, "[dumpfile]") || g_str_has_prefix(*l, "[savefile]")
            || g_str_has_prefix(*l, "[*]") || (*l)[0] == '^') {
            char **parts = g_strsplit(*l, old_base, -1);
            char *line = g_strjoinv(new_base, parts);
            g_string_append(out, line);
            g_free(line);
            g_strfreev(parts);
        } else {
            g_string_append(out, *l);               /* signal names: never the file's name */
        }
        if (l[1] != NULL)
            g_string_append_c(out, '\n');
    }
    g_strfreev(lines);
    return g_string_free(out, FALSE);
}

/* The files a closed dump wrote beside PATH (PATH.filter, PATH.KEY.filter, PATH.gtkw). */
static GPtrArray *trace_side_files(const char *dir, const char *base)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    const char *n;
    while (d != NULL && (n = g_dir_read_name(d)) != NULL)
        if (g_str_has_prefix(n, base) && n[strlen(base)] == '.'
            && (g_str_has_suffix(n, ".filter") || strcmp(n + strlen(base), ".gtkw") == 0))
            g_ptr_array_add(names, g_strdup(n));
    if (d != NULL)
        g_dir_close(d);
    return names;
}

void trace_remove(const char *path)
{
    char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path);
    GPtrArray *names = trace_side_files(dir, base);
    for (guint i = 0; i < names->len; i++) {
        char *p = g_build_filename(dir, g_ptr_array_index(names, i), NULL);
        unlink(p);
        g_free(p);
    }
    unlink(path);
    g_ptr_array_unref(names);
    g_free(dir);
    g_free(base);
}

bool trace_rename(const char *path, const char *new_path, GError **error)
{
    char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path);
    char *new_dir = g_path_get_dirname(new_path), *new_base = g_path_get_basename(new_path);
    bool ok = outfile_rename_noreplace(path, new_path);    /* never over someone's file */
    if (!ok)
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_IOERR, "cannot rename %s to %s: %s",
                    path, new_path, g_strerror(errno));
    GPtrArray *names = ok ? trace_side_files(dir, base) : g_ptr_array_new();
    for (guint i = 0; i < names->len; i++) {
        const char *name = g_ptr_array_index(names, i);
        char *from = g_build_filename(dir, name, NULL);
        char *to_name = g_strconcat(new_base, name + strlen(base), NULL);
        char *to = g_build_filename(new_dir, to_name, NULL);
        char *text = NULL;
        if (g_str_has_suffix(name, ".gtkw") && g_file_get_contents(from, &text, NULL, NULL)) {
            char *fixed = trace_gtkw_renamed(text, base, new_base);
            if (outfile_write(to, fixed, strlen(fixed), false, NULL, NULL))
                unlink(from);
            g_free(fixed);
            g_free(text);
        } else {
            outfile_rename_noreplace(from, to);
        }
        g_free(from);
        g_free(to_name);
        g_free(to);
    }
    g_ptr_array_unref(names);
    g_free(dir);
    g_free(base);
    g_free(new_dir);
    g_free(new_base);
    return ok;
}
