/* tracedump.h: one internal per-cycle event stream, exported as text, JSON Lines, Perfetto
 * (Chrome trace JSON) or VCD, bounded by a cycle window and component/address filters, or
 * turned into the per-access teaching table of `archsim run --teach`.
 *
 * Models emit events through SIM_TRACE (component.h), which costs one predictable branch when
 * tracing is off. Each event: cycle, component path, event name, optional duration in cycles,
 * and a few typed key=value arguments. Formats:
 *   text     "%7llu: component: event key=value ..."         (gem5 DPRINTF layout, cycles)
 *   jsonl    {"cycle":N,"comp":"...","event":"...","dur":D,"args":{...}} one per line
 *   perfetto {"traceEvents":[...],"displayTimeUnit":"ns","otherData":{"time_unit":"1 ts = 1 cycle",
 *            ...}}: one thread track per component (thread_name metadata), "X" slices for
 *            events with dur > 0 (overlaps on a track are moved to extra tracks so slices nest),
 *            "i" instants (s:"t") for dur == 0; state changes (below) also as one slice per state
 *            on a track per (component, addr) in a second process, "line states"
 *   vcd      $timescale 1ns (1 ns = 1 cycle, said in $comment); per component a scope with an
 *            integer-coded `event` wire (codes written to PATH.filter, a GTKWave translate
 *            filter) and one wire per numeric argument key; strings are not dumped; enum
 *            arguments get PATH.<key>.filter, and PATH.gtkw opens the dump with every filter on
 *   teach    (the CLI's --teach, usually to stdout "-") one row per completed core access: bus
 *            transactions, data source, every cache's state of the line, memory fresh or stale;
 *            the vocabulary it reads is listed at TRACE_FMT_TEACH below
 * A path ending in ".gz" is written through zlib. Files are written to PATH.part-XXXXXX and
 * renamed on a successful trace_close, so a failed run never leaves a dump that looks complete;
 * an existing PATH is replaced only under opts.force and only when it is an archsim dump.
 *
 * Enum arguments (TARG_E) carry a small code and its name, e.g. a cache line state (code 5,
 * "S"): text, JSON Lines and Perfetto print the name, VCD dumps the code in a wire just wide
 * enough for the largest code and writes the names seen per wire into translate filters. An
 * event with an enum argument "to" is a STATE CHANGE of the object named by its "addr" argument
 * (0 when absent) in that component: Perfetto draws it as slices, the teaching table as a
 * column. One key of one component should keep one naming (the first name seen for a code wins).
 */
#ifndef ARCHSIM_TRACEDUMP_H
#define ARCHSIM_TRACEDUMP_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* What an event means to the teaching view (TRACE_FMT_TEACH). The engine knows no memory
 * semantics: each class lists what its events mean (ComponentClass.teach_events, a table of
 * TeachEvent ended by TEACH_EVENTS_END), and the view reads an event only through that role and
 * the arguments the role names. An event a class does not list is ignored by the view. */
typedef enum {
    TEACH_IGNORE = 0,
    TEACH_LOAD,        /* a core access that ends at cycle + dur, one table row: addr, optional
                          value, optional "cache" (the name of the component that served it) */
    TEACH_STORE,       /* the same for a store */
    TEACH_STATE,       /* with an enum "to" and addr: the component's state of that line (a
                          column); "from" is the state before, an optional "view" replaces "to"
                          in the table (a directory's owner or sharers: S{0,2}, M(l1d1)) */
    TEACH_BUS,         /* with "by" (the requesting component's name) and addr: a transaction
                          named by the event (GetS, GetM, PutM), shown on the requester's next
                          access row; its "supplier" (memory, cache, self) says where the data
                          comes from */
    TEACH_SUPPLY,      /* with addr and "cache": that cache supplies the line this cycle */
    TEACH_WRITEBACK,   /* with addr: memory holds the line's newest value again */
    TEACH_MISS,        /* a directory cache's completed miss: addr, "req" (GetS ...), "hops",
                          "from" (who sent the data) */
} TeachRole;

typedef struct {
    const char *event;         /* the name the class passes to SIM_TRACE */
    TeachRole role;
} TeachEvent;
#define TEACH_EVENTS_END { .event = NULL, .role = TEACH_IGNORE }

/* TRACE_FMT_TEACH ignores the component filter and max_events (it needs every component to be
 * correct); the window and the address range apply. Rows are kept and written as one aligned
 * table at close, by the TraceConsumer the options name (the CLI's teach_consumer in
 * sim/cli/teach.h). */
typedef enum {
    TRACE_FMT_TEXT,
    TRACE_FMT_JSONL,
    TRACE_FMT_PERFETTO,
    TRACE_FMT_VCD,
    TRACE_FMT_TEACH,           /* not accepted by trace_format_parse: the CLI's --teach */
} TraceFormat;

typedef struct TraceArg TraceArg;

/* A consumer of the event stream that is not a file format (the teaching table): the dump
 * hands it every component with its class's TeachEvent table and every event that passes the
 * window and address filters, and asks it for its text at close. */
typedef struct {
    void *(*open)(void);
    void (*add)(void *sink, uint32_t id, const char *path, const TeachEvent *events);
    void (*event)(void *sink, uint32_t id, uint64_t cycle, const char *event, uint64_t dur,
                  const TraceArg *args, int nargs);
    void (*write)(const void *sink, GString *out);
    void (*free)(void *sink);
} TraceConsumer;

typedef struct {
    TraceFormat format;
    const TraceConsumer *sink; /* TRACE_FMT_TEACH: who builds the table (required there) */
    const char *path;          /* output file; ".gz" suffix = gzip; "-" = stdout (written at
                                  close, no temporary file) */
    uint64_t start, end;       /* cycle window [start, end]; end == UINT64_MAX: open */
    char **components;         /* NULL or NULL-terminated glob patterns (g_pattern_match_simple)
                                  on the component path, e.g. "l1*", "system.core0" */
    bool addr_filter;          /* if set, events with an "addr" argument outside
                                  [addr_lo, addr_hi] are dropped (events without addr are kept) */
    uint64_t addr_lo, addr_hi;
    uint64_t max_events;       /* 0 = unlimited; else stop after this many (noted in the file) */
    bool force;                /* may replace an existing archsim dump at path (sim/outfile.h);
                                  any other existing file is refused */
    /* Size advice: called at most once per dump, with a sentence giving its size so far and a
     * --trace-window that would fit (the caller names the dump), when a Perfetto dump passes 200 MB of JSON (what
     * ui.perfetto.dev still loads). NULL: no advice. The CLI prints it on stderr. */
    void (*warn)(const char *message, void *ctx);
    void *warn_ctx;
} TraceOptions;

typedef enum { TARG_U64, TARG_I64, TARG_HEX, TARG_STR, TARG_ENUM } TraceArgKind;

struct TraceArg {
    const char *key;
    TraceArgKind kind;
    union { uint64_t u; int64_t i; const char *s; } v;   /* TARG_ENUM: the code in v.u */
    const char *name;          /* TARG_ENUM: the code's name (e.g. "S"); NULL otherwise */
};

#define TARG_U(k, x) ((TraceArg){ .key = (k), .kind = TARG_U64, .v.u = (uint64_t)(x) })
#define TARG_I(k, x) ((TraceArg){ .key = (k), .kind = TARG_I64, .v.i = (int64_t)(x) })
#define TARG_X(k, x) ((TraceArg){ .key = (k), .kind = TARG_HEX, .v.u = (uint64_t)(x) })
#define TARG_S(k, x) ((TraceArg){ .key = (k), .kind = TARG_STR, .v.s = (x) })
/* An enum: a small code (VCD wire width follows the largest) and its name (printed). */
#define TARG_E(k, code, nm) \
    ((TraceArg){ .key = (k), .kind = TARG_ENUM, .v.u = (uint64_t)(code), .name = (nm) })

typedef struct TraceDump TraceDump;

/* Parses "text|jsonl|perfetto|vcd"; false if unknown ("teach" too: it is --teach). */
bool trace_format_parse(const char *name, TraceFormat *out);
/* The name trace_format_parse accepts for a format. */
const char *trace_format_name(TraceFormat format);
/* Guesses the format from the file name (.txt/.log, .jsonl, .json, .vcd, each optionally + .gz);
 * false if the suffix says nothing (the CLI then asks for --trace-format). */
bool trace_format_guess(const char *path, TraceFormat *out);
/* The two parsers below return false on bad input and then set *problem (when problem is not
 * NULL) to a newly allocated message without position, e.g. "'10-20': expected START:END, ...";
 * the caller g_free()s it. Bounds are inclusive; '_' may separate digits ("1_000_000:"). */
/* Parses "A:B", "A:" or ":B" (cycles, decimal) into start/end. */
bool trace_window_parse(const char *text, uint64_t *start, uint64_t *end, char **problem);
/* Parses "0x1000:0x2000" or a single "0x1040" (one address) into lo/hi. Numbers with 0x are
 * hex, without it decimal; "LO:" and ":HI" leave the other end open. */
bool trace_addr_range_parse(const char *text, uint64_t *lo, uint64_t *hi, char **problem);

/* Opens the dump (ARCHSIM_RUN_ERROR / ARCHSIM_EXIT_CANTCREAT if the file cannot be created; the
 * message starts with opts->path). opts is copied. An empty components list acts like NULL. A
 * window or address range with start > end is ARCHSIM_EXIT_USAGE. */
TraceDump *trace_open(const TraceOptions *opts, GError **error);

/* Registers a component path; returns its track id (>= 0) if the component filter lets it
 * through, -1 otherwise. Call once per component before emitting (a second call with the same
 * path returns the same id). */
int trace_register(TraceDump *td, const char *component);
/* The same with what the component's events mean to the teaching view (NULL: nothing). */
int trace_register_as(TraceDump *td, const char *component, const TeachEvent *events);

/* After every component has registered: an ARCHSIM_EXIT_USAGE error for the first
 * --trace-components glob that matched none of them, naming it and the components that exist
 * (with the closest one as a hint), so that a filter with a typo does not give an empty dump. */
bool trace_check_components(const TraceDump *td, GError **error);

/* True when an event at this cycle would be written (window check; cheap, inline-able). */
static inline bool trace_window_has(const TraceOptions *o, uint64_t cycle)
{
    return cycle >= o->start && cycle <= o->end;
}
const TraceOptions *trace_options(const TraceDump *td);

/* Emits one event on a registered track. Args are copied out before return. track == -1 (what
 * trace_register returns for a filtered component) is accepted and ignored. `cycle` is never
 * later than the current cycle: an event is stamped when it happens, or, for one that lasts, at
 * its start and reported at its end (a core access); the dump writes every format in time order
 * (nondecreasing cycle; one cycle in emission order) as long as each component that reports
 * late says so with trace_hold. An event stamped before one already written (no hold, or a
 * hold kept so long that the reorder buffer overflowed) is written at once and counted: text
 * and JSON Lines note the count at their end, Perfetto in otherData.out_of_order_events; VCD
 * places up to 1024 cycles of lateness right and counts the rest in its $comment. */
void trace_emit(TraceDump *td, int track, uint64_t cycle, const char *event, uint64_t dur,
                const TraceArg *args, int nargs);

/* Time order: the component of `track` may still report an event stamped at cycle `since` (the
 * start of its oldest access in flight); UINT64_MAX: nothing pending. Events later than the
 * smallest hold of all tracks wait in a reorder buffer (at most 65,536 events) until the holds
 * move past them. Set it when an access is issued and again (or UINT64_MAX) when it is
 * reported; track == -1 is ignored. The teaching table ignores holds (it reads emission order). */
void trace_hold(TraceDump *td, int track, uint64_t since);

/* Number of events written so far. */
uint64_t trace_count(const TraceDump *td);

/* Flushes, writes the footer (Perfetto closing brackets, VCD final time; the teaching table),
 * renames the temporary file to PATH; frees td in every case. */
bool trace_close(TraceDump *td, GError **error);
/* Frees td and removes the partial file (failed run). */
void trace_abort(TraceDump *td);

/* One stream into two dumps (e.g. a VCD file and the --teach table): registers and emits go to
 * both, each applying its own filters; close and abort act on both. Takes ownership of a and b.
 * The caller's window check (SIM_TRACE) must let through what either needs. */
TraceDump *trace_tee(TraceDump *a, TraceDump *b);
/* The consumer's own state of a TRACE_FMT_TEACH dump (what its open() returned); NULL for a
 * file format. */
void *trace_sink_state(TraceDump *td);

/* Renames a closed dump and the files written beside it (PATH.filter, PATH.<key>.filter,
 * PATH.gtkw, whose references are rewritten) to NEW; e.g. a dump kept after a deadlock. */
bool trace_rename(const char *path, const char *new_path, GError **error);
/* Removes a closed dump and the files written beside it (a run interrupted as it closed). */
void trace_remove(const char *path);

#endif
