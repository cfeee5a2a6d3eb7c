/* component.h: component classes, instances, ports/links and messages.
 *
 * A class is one static const table (SST's ELI / QEMU's TypeInfo idea): its parameters
 * (ParamSpec), ports (PortSpec) and statistics (StatSpec) plus the ops realize, tick, recv, dump,
 * finalize. The engine knows no class by name: models list their classes in models/registry.c.
 *
 *   ComponentClass ---- ParamSpec[]  -> parsing, `describe`, config.resolved.yaml
 *        |          \-- PortSpec[]   -> wiring by a system builder
 *        |           \- StatSpec[]   -> stats.txt / stats.json / stats.csv
 *        v
 *   instance struct { Component base; <Params> p; counters...; state... }
 *
 * Ports are joined in pairs by links with a latency of at least one tick. A message sent on a
 * port is delivered to the peer's recv op at now + latency (+ any extra delay); from then on the
 * receiver owns it and must free or forward it. Messages come from a free list: no allocation per
 * message once the pool is warm.
 */
#ifndef ARCHSIM_COMPONENT_H
#define ARCHSIM_COMPONENT_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "engine.h"
#include "msg.h"
#include "param.h"
#include "rng.h"
#include "stats.h"
#include "tracedump.h"

typedef struct Component Component;
typedef struct Sim Sim;
typedef struct Port Port;

typedef enum { PORT_REQUESTER, PORT_RESPONDER } PortRole;

typedef struct {
    const char *name;
    PortRole role;
    bool vector;          /* may be connected several times (port[0], port[1], ...) */
    const char *doc;
    bool required;        /* a machine graph must link it (a vector port: at least once, with
                             no slot left out); checked after wiring (sim_check_links) */
} PortSpec;
#define PORT_END { .name = NULL }

struct Port {
    Component *owner;
    Port *peer;
    Tick latency;        /* link latency in ticks, >= 1 */
    int spec;            /* index into the class's PortSpec table */
    int slot;            /* connection number of a vector port */
    int index;           /* index in owner->ports */
};

/* The port a message was last sent from: links join two ports, so it is the destination's peer. */
static inline Port *sim_msg_src(const Msg *m)
{
    return m->dst != NULL ? m->dst->peer : NULL;
}

typedef struct {
    const char *name;            /* e.g. "cache" */
    const char *doc;
    size_t size;                 /* instance size; the instance starts with a Component */
    size_t params_offset;        /* where the params struct lives in the instance */
    const ParamSpec *params;
    const PortSpec *ports;
    const StatSpec *stats;
    /* realize: params are set; validate them and build state. May fail. */
    bool (*realize)(Component *c, GError **error);
    /* start: after all components are realized and wired; schedule first work. */
    void (*start)(Component *c);
    /* tick: one clock edge; returns the number of cycles until the next tick, 0 to sleep
     * (a message or sim_component_wake() wakes it again). */
    uint64_t (*tick)(Component *c);
    void (*recv)(Component *c, Port *port, Msg *msg);
    /* dump: human-readable state for the deadlock report. */
    void (*dump)(Component *c, GString *out);
    /* busy: work remains (used when the queue drains: busy + empty queue = deadlock). */
    bool (*busy)(const Component *c);
    /* progress: fraction of its work done in [0, 1], or NULL if it cannot tell (progress bar) */
    double (*progress)(const Component *c);
    void (*finalize)(Component *c);
    /* footprint: bytes of state realize will allocate from the parameters (tag stores, line
     * data), and in *key the parameter that sizes most of it; checked against
     * sim.memory_limit for the whole machine before any component is realized. NULL: small. */
    uint64_t (*footprint)(const Component *c, const char **key);
    /* stats: statistics whose names depend on the configuration (e.g. one counter per row of a
     * protocol table), appended after the StatSpec table's; names get the component prefix */
    void (*extra_stats)(const Component *c, StatSet *out);
    /* outputs: files of the model's own besides the stats (e.g. the TPU's SCALE-Sim reports),
     * written into the run directory after a successful run; false with *error on failure */
    bool (*write_outputs)(Component *c, const char *dir, GError **error);
    /* stats_reset: a warm-up or ROI reset (sim_stats_reset) is happening: zero the statistics
     * the StatSpec table does not cover and that are not plain counts reported by extra_stats
     * (those are rebased by the stats layer): histograms, sums behind means and ratios, per-link
     * busy times. Must not touch state the model's behaviour reads. NULL: nothing of the kind. */
    void (*stats_reset)(Component *c);
    /* check_link: the class checks one of its links once the machine is wired, before realize:
     * `mine` is c's port, `theirs` the peer's (theirs->owner the neighbour). It checks what must
     * agree across the link (line sizes, data widths, the neighbour's class) with
     * sim_component_param_u64 on the neighbour, and fails with sim_component_reject_pair (or a
     * message of its own) naming the keys to change. NULL: any peer will do. Called for both
     * ends of every link, requester side first. */
    bool (*check_link)(Component *c, Port *mine, Port *theirs, GError **error);
    /* teach_events: what its trace events mean to the teaching view (`run --teach`), ended by
     * TEACH_EVENTS_END (tracedump.h); the model's registration, so that the view decodes no
     * names of its own. NULL: none of its events is shown. */
    const TeachEvent *teach_events;
} ComponentClass;

struct Component {
    const ComponentClass *cls;
    char *name;                  /* dotted path, e.g. "l1d" */
    Sim *sim;
    Engine *eng;
    const ClockDomain *clk;
    SimEvent tick_ev;
    SimRng rng;                  /* seeded from the run seed and the component name */
    GPtrArray *ports;            /* Port* */
    GHashTable *port_slots;      /* (spec, slot) taken, and per spec the next free slot: a port
                                    added in O(1), not a scan of every port (65,536 cores on one
                                    vector port took 30 s); NULL until the first */
    int trace_track;             /* -1: not traced */
    int index;                   /* instance number in a replicated section (core3: 3), else -1 */
    CfgNode *section;            /* where its parameters came from, for messages: its section's
                                    keys with the positions of their values (a copy without the
                                    values, owned by the component), or NULL */
    bool placed;                 /* its realize error already names its position */
};

/* Warm-up and region of interest (docs/outputs.md, "Warm-up, ROI and epochs"): gem5's
 * m5.stats.reset() for the whole machine at one instant. The machine's state stays warm; the
 * stats describe only what follows. StatSpec counters are never written by the reset (models
 * read some of them, e.g. insts against max_insts): their values at the reset are kept in `base`
 * and subtracted whenever stats are read (sim_stats_view_begin); histograms are emptied in place;
 * classes zero what else they keep in their stats_reset op; extra stats that are counts are
 * rebased by name (extra_base). */
typedef struct {
    bool done;                   /* a reset happened */
    Tick at;                     /* its tick: the ROI is what happens after it */
    uint64_t events;             /* Engine.events then */
    uint64_t insts, refs;        /* retired by every core so far (sim_count_insts/_refs) */
    uint64_t insts_at, refs_at;  /* insts and refs at the reset */
    uint64_t warm_insts, warm_refs;  /* reset once insts/refs reach these; UINT64_MAX: off */
    SimEvent ev;                 /* the pending reset (SIM_PRI_STATS: an observer) */
    GArray *base;                /* uint64_t: every StatSpec counter at the reset, in order */
    GArray *saved;               /* the live values while a view is on */
    GHashTable *extra_base;      /* extra stats' counts at the reset: name -> uint64_t* */
    int view;                    /* nesting of sim_stats_view_begin */
    void (*on_reset)(Sim *sim, void *ctx);   /* the driver's hooks: epochs restart at a reset, */
    void (*on_end)(Sim *sim, void *ctx);     /* the stats freeze at the end of the ROI */
    void *on_reset_ctx;          /* (both get this) */
    bool markers;                /* sim.roi_markers: the cores act on ROI markers */
    bool begun, ended;           /* the region began (first begin) / ended (last end) */
    uint64_t open;               /* begins not yet matched by an end */
    SimEvent end_ev;
} SimStatsRoi;

/* Slots of Sim.ext: one per message family id (models/msgfam.h asserts they suffice). */
#define SIM_EXT_SLOTS 16

/* The simulation: engine + components + message pool + trace dump. */
struct Sim {
    Engine eng;
    GPtrArray *components;       /* Component*, in creation order */
    Msg *free_msgs;
    GPtrArray *msg_blocks;
    uint64_t seed;
    ClockDomain sys_clk;         /* the clock that sim.cycles counts */
    GPtrArray *clocks;           /* ClockDomain*: the other clocks components run on (sim_clock) */
    TraceDump *trace;
    const TraceOptions *trace_opts;
    GError *error;               /* first fatal error raised by a component (sim_fail) */
    bool strict;                 /* archsim run --strict: what a model would warn about and go
                                    on past (an opcode missing from a GPU trace's table) fails */
    void *ext[SIM_EXT_SLOTS];    /* state a model family shares across its components (the
                                    memory family's oracle and HTM count: models/mem/memmsg.h),
                                    keyed by the family's id; sim/ never looks inside */
    void (*ext_free[SIM_EXT_SLOTS])(void *);   /* set with it: sim_destroy frees it */
    uint64_t mem_limit;          /* bytes of model state the components may hold (sim.memory_limit) */
    uint64_t mem_used;           /* bytes reserved or charged so far, all components together */
    SimStatsRoi roi;             /* warm-up / ROI reset of the stats */
};

/* The default of sim.memory_limit: what a run may hold in model state (tag stores, line data,
 * network buffers) unless the config raises it; sized so that a sweep of several points fits
 * in a workstation's memory. */
#define SIM_MEM_LIMIT_DEFAULT (8ull << 30)

void sim_init(Sim *sim, uint64_t seed, uint64_t sys_freq_hz);
/* A family's shared state (NULL until set); set it once, with the function that frees it at
 * sim_destroy (may be NULL). */
static inline void *sim_ext(const Sim *sim, unsigned key)
{
    return key < SIM_EXT_SLOTS ? sim->ext[key] : NULL;
}
void sim_ext_set(Sim *sim, unsigned key, void *state, void (*free_fn)(void *));
/* A component hit bad input mid-run (e.g. a corrupt trace): keep the first error (takes
 * ownership) and stop the engine. The run then fails with the error's code. */
void sim_fail(Sim *sim, GError *error);
void sim_destroy(Sim *sim);

/* Creates an instance of cls named `name` with default parameters applied from the class table
 * and then `section` (may be NULL). */
Component *sim_component_new(Sim *sim, const ComponentClass *cls, const char *name,
                             const ClockDomain *clk, const CfgNode *section, GError **error);
static inline void *sim_component_params(Component *c)
{
    return (char *)c + c->cls->params_offset;
}
Component *sim_component_find(Sim *sim, const char *name);
/* Reads a numeric parameter (uint, size, freq, cycles, time) by name from the class table, so
 * builders can check how neighbours fit together without knowing their structs. */
bool sim_component_param_u64(Component *c, const char *name, uint64_t *out);
/* A counter or formula statistic of c (may be NULL) by its name in c's table (no prefix), so a
 * model can read its neighbours' traffic; false if c has no such counter or formula. */
bool sim_component_stat(Component *c, const char *name, double *out);
/* A string or path parameter by name (NULL if absent or unset). */
const char *sim_component_param_str(Component *c, const char *name);
/* Sets a parameter from text, exactly as if the config had said it (builders use it to hand a
 * shared setting to every instance). Fails with ARCHSIM_EXIT_CONFIG naming the component. */
bool sim_component_set_param(Component *c, const char *name, const char *text, GError **error);

/* The config section (or graph array) instance c came from, newly allocated: "l1d" for l1d3 of a
 * replicated section, "cluster0.core" for cluster0.core[2] of a graph array, else c's name. */
char *sim_component_section_name(const Component *c);

/* Where a parameter of c was set, for messages: "file:line:col" (or "--set a.b=v") of the key
 * if the config gives it, else of c's section, else NULL (all defaults). Newly allocated. */
char *sim_component_where(const Component *c, const char *key);
/* A bad parameter (or combination) found while building or realizing c: sets *error to
 * ARCHSIM_EXIT_CONFIG "WHERE: SECTION.KEY: TEXT" (key NULL: "WHERE: NAME: TEXT"; no WHERE when
 * everything is a default) and returns false. SECTION is c's config section (l1d for l1d3). */
bool sim_component_reject(Component *c, const char *key, GError **error, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);
/* An error about what parameter key names (a file that cannot be opened or read): prefixes
 * *error with "WHERE: SECTION.KEY: " as above, keeping its domain and code; returns false. */
bool sim_component_prefix_error(Component *c, const char *key, GError **error);
/* The first of the keys (NULL-ended) that c's config section sets, else the first: the key to
 * blame for a constraint among several parameters of c. */
const char *sim_component_first_set(const Component *c, const char *key, ...) G_GNUC_NULL_TERMINATED;
/* The same for a constraint between a.ka and b.kb (a.line <= b.line): blames the one the config
 * sets (a --set over a file, b when both or neither are set). */
bool sim_component_reject_pair(Component *a, const char *ka, Component *b, const char *kb,
                               GError **error, const char *fmt, ...) G_GNUC_PRINTF(6, 7);
/* State sized from parameters: sim_realize_all first sums every component's footprint op
 * and refuses a machine over sim.memory_limit (exit 78, naming the biggest part, its key, the
 * limit and the total). State allocated on first touch during the run (a page of a sparse tag
 * store) is charged with sim_mem_charge as it is allocated: that always succeeds (the caller
 * allocates), but once the total passes the limit the run fails (sim_fail, exit 78) with the
 * message, so that the engine stops after this event. */
void sim_mem_charge(Component *c, const char *key, const char *what, uint64_t bytes);
/* The same with the hint to give ("smaller caches, bus.snoop_filter: false") instead of "a
 * smaller SECTION.KEY", for state that grows with what other components hold. */
void sim_mem_charge_hint(Component *c, const char *key, const char *what, uint64_t bytes,
                         const char *hint);
/* "12 KiB", "1.5 GiB" ("more than 16 EiB" for UINT64_MAX, an overflowed product): a byte count
 * for messages. Newly allocated. */
char *sim_mem_format(uint64_t bytes);

/* The clock domain of freq_hz: the system clock when it has that frequency, else one domain per
 * frequency, created on first use and owned by sim (its pointer stays valid until sim_destroy).
 * Components on one domain share its edges; sim_port_send synchronizes messages that cross from
 * one domain to another. */
const ClockDomain *sim_clock(Sim *sim, uint64_t freq_hz);

/* Connects a.port_a (requester) to b.port_b (responder) with the given latency in ticks. */
bool sim_connect(Component *a, const char *port_a, Component *b, const char *port_b,
                 Tick latency, GError **error);
/* The same with explicit connection numbers of vector ports (-1: the next free one, as
 * sim_connect does). A slot already taken, or a slot on a scalar port, fails. Slots may be taken
 * out of order; sim_check_links then reports any slot left out below the highest. */
bool sim_connect_slots(Component *a, const char *port_a, int slot_a, Component *b,
                       const char *port_b, int slot_b, Tick latency, GError **error);
/* Index of a port name in cls's table, or -1. */
int sim_port_spec_index(const ComponentClass *cls, const char *name);
/* After wiring: every required port is linked and no vector port has a gap, then every class's
 * check_link op on both ends of every link. where(c, port, ctx) may name the config position to
 * blame (newly allocated, or NULL). */
bool sim_check_links(Sim *sim, char *(*where)(const Component *c, const char *port, void *ctx),
                     void *ctx, GError **error);
/* The n-th connection of a named port (vector ports), or NULL. */
Port *sim_port(Component *c, const char *name, int slot);

/* Realizes all components in creation order, registers trace tracks, calls start ops. */
bool sim_realize_all(Sim *sim, GError **error);

/* Wakes a sleeping component at its next clock edge (no-op if already scheduled sooner). */
void sim_component_wake(Component *c);
/* Schedules the component's next tick `cycles` cycles after the current edge. */
void sim_component_wake_in(Component *c, uint64_t cycles);
static inline uint64_t sim_component_cycle(const Component *c)
{
    return clock_div_now(c->clk, c->eng->now);
}

/* Messages come from a free list (inline: every send takes one); sim_msg_alloc zeroes the whole
 * message, payload included. */
void sim_msg_pool_grow(Sim *sim);
void sim_msg_deliver(SimEvent *ev);       /* a message's delivery event: the peer's recv op */
/* m as sim_msg_alloc gives it: all zero, its delivery event set up. */
static inline void sim_msg_clear(Msg *m)
{
#if defined(__SSE2__)
    /* cleared 16 bytes at a time, written out (a loop, or memset, becomes a `rep stos` here,
     * whose start-up costs more than the stores); the last store may overlap the one before */
    _Static_assert(sizeof(Msg) >= 16 && sizeof(Msg) <= 160, "sim_msg_alloc clears up to 160 bytes");
    __m128i z = _mm_setzero_si128();
    unsigned char *p = (unsigned char *)m;
#define SIM_MSG_CLEAR16(off)                                                                \
    if ((off) + 16 <= sizeof(Msg))                                                          \
        _mm_storeu_si128((__m128i *)(void *)(p + (off)), z)
    SIM_MSG_CLEAR16(0); SIM_MSG_CLEAR16(16); SIM_MSG_CLEAR16(32); SIM_MSG_CLEAR16(48);
    SIM_MSG_CLEAR16(64); SIM_MSG_CLEAR16(80); SIM_MSG_CLEAR16(96); SIM_MSG_CLEAR16(112);
    SIM_MSG_CLEAR16(128); SIM_MSG_CLEAR16(144);
#undef SIM_MSG_CLEAR16
    _mm_storeu_si128((__m128i *)(void *)(p + sizeof(Msg) - 16), z);
#else
    memset(m, 0, sizeof *m);
#endif
    m->ev.fn = sim_msg_deliver;
    m->ev.ctx = m;
    m->ev.heap_idx = -1;
    m->ev.prio = SIM_PRI_TICK;
}
static inline Msg *sim_msg_alloc(Sim *sim)
{
    if (G_UNLIKELY(sim->free_msgs == NULL))
        sim_msg_pool_grow(sim);
    Msg *m = sim->free_msgs;
    sim->free_msgs = m->next_free;
    sim_msg_clear(m);
    return m;
}
static inline void sim_msg_free(Sim *sim, Msg *m)
{
    g_assert(!sim_event_scheduled(&m->ev));
    g_assert(!(m->flags & MSG_F_OWNS_DATA) || m->data == NULL);   /* its owner freed the data */
    m->flags = 0;
    m->next_free = sim->free_msgs;
    sim->free_msgs = m;
}
/* A message received (not scheduled, its data freed by its owner) made new for a send of the
 * receiver's own: what sim_msg_free and then sim_msg_alloc would give (the same message: the
 * free list is last in, first out), without the trip through the list. */
static inline Msg *sim_msg_reuse(Msg *m)
{
    g_assert(!sim_event_scheduled(&m->ev));
    g_assert(!(m->flags & MSG_F_OWNS_DATA) || m->data == NULL);
    sim_msg_clear(m);
    return m;
}

/* Clock-domain crossing: a message for a component on another clock is seen at the receiver's
 * first clock edge at or after it arrives, as if it passed a synchronizer (gem5's clocked
 * objects likewise act on what reaches them at their next clockEdge()). Within one domain (or
 * two of the same period: every domain has an edge at tick 0, so their edges coincide) the
 * arrival stays as it is, which keeps single-clock machines exactly as they were. */
Tick sim_port_arrival_slow(const Component *c, const Port *p, Tick when);
static inline Tick sim_port_arrival(const Component *c, const Port *p, Tick when)
{
    return G_LIKELY(p->peer->owner->clk == c->clk) ? when : sim_port_arrival_slow(c, p, when);
}

/* Sends m on port p; it arrives at the peer after the link latency plus `delay` cycles of the
 * sender's clock, counted from the start of the sender's current cycle. When the peer runs on
 * another clock (a different period), it is seen at the peer's first clock edge at or after
 * that arrival (clock-domain crossing; docs/config.md, "Clocks"). (Forcing it inline in every
 * caller saved 4 % of the snooping bench's host instructions and cost litmus runs 10 % of their
 * time in instruction-cache misses: GCC's choice is kept.) */
static inline void sim_port_send(Component *c, Port *p, Msg *m, uint64_t delay_cycles)
{
    /* Delays count from the start of the sender's current cycle, so a message that arrived a
     * tick after an edge is answered on that edge's timeline, not one cycle late. */
    g_assert(p && p->owner == c && p->peer);
    Tick now = c->eng->now;
    Tick when = clock_div_now(c->clk, now) * c->clk->period + delay_cycles * c->clk->period +
                p->latency;     /* the edge at or before now, then delay_cycles on */
    if (when < now + p->latency)
        when = now + p->latency;
    m->dst = p->peer;
    sim_schedule(c->eng, &m->ev, sim_port_arrival(c, p, when), SIM_PRI_DELIVER);
}
/* Same with an extra delay in ticks (for components timed in ns, e.g. DRAM), from now; the
 * same crossing rule applies. */
static inline void sim_port_send_ticks(Component *c, Port *p, Msg *m, Tick delay_ticks)
{
    g_assert(p && p->owner == c && p->peer);
    m->dst = p->peer;
    sim_schedule(c->eng, &m->ev, sim_port_arrival(c, p, c->eng->now + p->latency + delay_ticks),
                 SIM_PRI_DELIVER);
}
/* Delivers m to the peer's recv at once, inside this call (gem5's "express snoop"): used where
 * the model's semantics are instantaneous, such as every cache snooping a request at the bus
 * ordering point. The sender keeps ownership: the receiver may write the message's result
 * fields and payload but must not free or forward it. No clock crossing: the receiver runs at
 * the caller's instant even on another clock (what it schedules itself is on its own clock). */
void sim_port_call(Component *c, Port *p, Msg *m);

/* Per-cycle trace events: one branch when tracing is off. */
#define SIM_TRACE(c, event, dur, ...)                                                      \
    do {                                                                                   \
        if (G_UNLIKELY((c)->trace_track >= 0)) {                                           \
            uint64_t cyc_ = sim_component_cycle(c);                                        \
            if (trace_window_has((c)->sim->trace_opts, cyc_)) {                            \
                const TraceArg args_[] = { __VA_ARGS__ };                                  \
                trace_emit((c)->sim->trace, (c)->trace_track, cyc_, (event), (dur), args_, \
                           (int)(sizeof args_ / sizeof args_[0]));                         \
            }                                                                              \
        }                                                                                  \
    } while (0)

/* The same for an event that started at an earlier cycle `start` and is reported when it ends,
 * `dur` cycles later (a core access, whose length is known only at its response). The component
 * holds `start` with SIM_TRACE_HOLD from the issue on, so that the dump stays in time order. */
#define SIM_TRACE_AT(c, start, event, dur, ...)                                            \
    do {                                                                                   \
        if (G_UNLIKELY((c)->trace_track >= 0)) {                                           \
            uint64_t at_ = (start);                                                        \
            if (trace_window_has((c)->sim->trace_opts, at_)) {                             \
                const TraceArg args_[] = { __VA_ARGS__ };                                  \
                trace_emit((c)->sim->trace, (c)->trace_track, at_, (event), (dur), args_,  \
                           (int)(sizeof args_ / sizeof args_[0]));                         \
            }                                                                              \
        }                                                                                  \
    } while (0)

/* A component that reports events late (SIM_TRACE_AT) states the earliest start it may still
 * report, `since` (UINT64_MAX: none), whenever that changes: at issue and at report. The dump
 * then writes every event in time order (trace_hold in tracedump.h). Costs one branch off. */
#define SIM_TRACE_HOLD(c, since)                                                           \
    do {                                                                                   \
        if (G_UNLIKELY((c)->trace_track >= 0))                                             \
            trace_hold((c)->sim->trace, (c)->trace_track, (since));                        \
    } while (0)

/* Collects every component's stats (class StatSpec tables) into a StatSet, prefixed by the
 * component name. After a reset, the values describe what followed it (a view, below). */
void sim_collect_stats(Sim *sim, StatSet *set);

/* Resets every statistic now (see SimStatsRoi); a second reset starts the ROI again. */
void sim_stats_reset(Sim *sim);
/* Schedules the reset at tick `when` (after every other event of that tick). */
void sim_stats_reset_at(Sim *sim, Tick when);
/* The region of interest, from a trace's markers (gem5's m5_work_begin/end: each thread may mark
 * its own work; PARSEC's hooks: one thread marks the whole region). The first begin resets the
 * stats (as a warm-up, at the end of this tick); each end matches a begin, and when every begin
 * is matched the driver's on_end hook freezes the stats at the end of that tick (the machine
 * runs on to its end). Markers after that change nothing; an end without a begin freezes. */
void sim_stats_roi_begin(Sim *sim);
void sim_stats_roi_end(Sim *sim);
/* While a view is on (nestable), each StatSpec counter of every component reads its value since
 * the reset, so that formulas compute over the ROI; the end restores the live values. Nothing
 * may run the simulation in between. */
void sim_stats_view_begin(Sim *sim);
void sim_stats_view_end(Sim *sim);
/* The cycle of c's clock at which the ROI began: 0 without a reset. */
uint64_t sim_stats_first_cycle(const Component *c);
/* Cycles of c's clock from the ROI's start (0, or the reset) to the current one, inclusive:
 * the denominator of utilizations and rates. */
static inline uint64_t sim_stats_cycles(const Component *c)
{
    uint64_t now = sim_component_cycle(c) + 1, first = sim_stats_first_cycle(c);
    return now > first ? now - first : 0;
}
/* Ticks from the ROI's start to now. */
static inline Tick sim_stats_ticks(const Sim *sim)
{
    Tick first = sim->roi.done ? sim->roi.at + 1 : 0;
    return sim->eng.now > first ? sim->eng.now - first : 0;
}
/* The cores count what they retire, for --warmup N:insts / N:refs: instructions, and memory
 * references (loads, stores, atomics, instruction fetches) as their front end delivers them.
 * Summed over every core (one reset for the machine); reaching the warm-up point schedules the
 * reset at the end of the current tick. */
void sim_stats_warm_reached(Sim *sim);
static inline void sim_count_insts(Component *c, uint64_t n)
{
    SimStatsRoi *r = &c->sim->roi;
    r->insts += n;
    if (G_UNLIKELY(r->insts >= r->warm_insts))
        sim_stats_warm_reached(c->sim);
}
static inline void sim_count_refs(Component *c, uint64_t n)
{
    SimStatsRoi *r = &c->sim->roi;
    r->refs += n;
    if (G_UNLIKELY(r->refs >= r->warm_refs))
        sim_stats_warm_reached(c->sim);
}

/* Writes every component's dump op output (deadlock report). */
void sim_dump_all(Sim *sim, GString *out);
bool sim_any_busy(Sim *sim);
/* The least progress reported by any component with a progress op, or -1 if none reports. */
double sim_progress_fraction(Sim *sim);

#endif
