/* coherent.c: one generic private cache controller that interprets any snooping protocol table
 * of protocols/ (MSI, MESI, MOESI: the Primer's baseline snooping system, 2nd ed., ch. 7). It
 * holds real data, so every load returns a value the reference memory can check.
 *
 *   core --load/store--> [frame lookup; victim: Replacement event] --Load/Store event--> table
 *        <--response---  HIT: data now (after hit_latency)   STALL: wait on the frame
 *                        ISSUE_*: BUS_REQ to the bus; the op waits until Data
 *   bus ==snoop==> Own_/Other_ events at the ordering point (SEND_DATA, WRITEBACK, SHARED)
 *   bus --data--> Data / Data_Exclusive event; the waiting op performs
 * A locked read-modify-write (MSG_WRITE_REQ with MSG_F_RMW, component.h) is a Store event: it
 * performs, read and write in one step, when the line is held with write permission. So is a
 * store-conditional whose reservation is held as it arrives; the LL/SC reservation and spin-wait
 * watches are cohshared.h's (CohAtomics), told of every loss of read permission and eviction.
 *
 * Per (state, event) it counts transitions with gem5's names (L1Cache_Controller.I.Load). Misses
 * are classified as cold, capacity, conflict (a fully associative LRU shadow of equal size), or
 * coherence misses, split into true and false sharing by whether another cache wrote the word
 * accessed since this cache lost the line (Dubois et al., ISCA 1993).
 * A (state, event) pair without a row is a simulator bug: the run aborts naming the component,
 * cycle, address, state and event.
 * The bus's snoop filter (models/bus/snoopfilter.h) is told of every block that enters or
 * leaves the cache, so the bus snoops it only for blocks it holds; the snoops it is spared are
 * the I state's Other_* transitions, counted by the bus and reported here.
 * Tags and replacement are the one tag store's (tagstore.h): a frame's way holds its block while
 * its state is not I, a use (perform) is the policy's touch, and a victim is the policy's choice
 * among the ways in a stable state with no op waiting.
 */
#include "coherent.h"
#include "../mem/linkcheck.h"
#include "../mem/memmsg.h"

#include <string.h>

#include "../../protocols/protocol.h"
#include "../../sim/error.h"
#include "../mem/oracle.h"
#include "../bus/busmsg.h"
#include "cohshared.h"
#include "htm.h"
#include "repl/repl.h"
#include "tagstore.h"

typedef struct {
    uint64_t size, assoc, line, hit_latency;
    int protocol, repl;
    bool classify;
    int htm_conflict, htm_versioning;
    uint64_t htm_abort_latency, htm_undo_latency, htm_log_latency, htm_nack_backoff;
} CohParams;

typedef struct {
    uint64_t block;          /* line-aligned address */
    Msg *head, *tail;        /* core ops waiting on this frame (first = the one being served) */
    uint64_t coh_since;      /* oracle sequence when the line was taken away */
    Tick miss_start;         /* when its GetS/GetM left for the bus (miss latency) */
    uint8_t state;
    bool issued;             /* head op has a bus request outstanding */
    bool coh_pending;        /* the miss in flight is a coherence miss, classified at data */
    uint8_t txbits;          /* HTM_R / HTM_W of the running transaction (htm.h) */
    uint8_t req_kind;        /* the request on the bus (sent again when refused) */
    bool req_upgrade;
} Frame;                     /* 48 bytes */

typedef struct {
    Component base;
    CohParams p;
    const ProtoTable *proto;
    ProtoIndex ix;
    int inv;                 /* index of I */
    uint32_t sets, line_shift;
    Frame *frames;           /* frame set x assoc + way holds the line of that way */
    TagStore ts;             /* the tags (valid while the frame's state is not I), replacement */
    uint8_t *data;           /* sets * assoc * line */
    Port *cpu, *bus;
    Msg *wait_head, *wait_tail;   /* ops that found no frame */
    uint32_t waiting;
    int oid;                 /* this L1's number among the machine's coherent caches (the
                                oracle's cache id): index in creation order */
    CohMissClass mc;         /* miss classifier and its counters (cohshared.h) */
    CohAtomics at;           /* atomics counts, LL/SC reservation, spin-wait watch */
    Htm htm;                 /* the transaction, if any (htm.h) */
    uint64_t *trans;         /* nstates * EV_COUNT transition counts */
    uint64_t events[EV_COUNT];
    uint8_t *pure_hit;       /* [state * 2 + store]: the core's load (store) in that state only
                                hits: it stays, with permission, and nothing else happens */
    bool sf;                 /* the bus filters our snoops: tell it what we take and drop */
    Msg *sf_msg;             /* the express message for that */
    /* stats */
    uint64_t loads, stores, load_hits, store_hits, load_misses, store_misses, upgrade_misses;
    uint64_t stalls, replacements, supplied, invalidated, writebacks, rmws;
    SimHist miss_lat;
} Coh;

static const char *const proto_choices[] = { "msi", "mesi", "moesi", NULL };

static const ParamSpec coh_params[] = {
    { .name = "size", .type = PARAM_SIZE, .def = "32KiB", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 64, .max = 1ull << 32, .doc = "capacity", .offset = offsetof(CohParams, size) },
    { .name = "assoc", .type = PARAM_UINT, .def = "8", .flags = PARAM_F_RANGE, .min = 1,
      .max = 256, .doc = "ways per set", .offset = offsetof(CohParams, assoc) },
    { .name = "line", .type = PARAM_SIZE, .def = "64B", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 8, .max = 4096, .doc = "line (coherence block) size",
      .offset = offsetof(CohParams, line) },
    { .name = "hit_latency", .type = PARAM_CYCLES, .def = "2", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1000, .doc = "a hit is answered this many cycles after arrival",
      .offset = offsetof(CohParams, hit_latency) },
    { .name = "protocol", .type = PARAM_ENUM, .def = "mesi", .choices = proto_choices,
      .doc = "coherence protocol table (protocols/)", .offset = offsetof(CohParams, protocol) },
    { .name = "repl", .type = PARAM_ENUM, .def = "lru", .choices = repl_names,
      .doc = "replacement policy among the ways that may be replaced (stable, no op waiting)",
      .offset = offsetof(CohParams, repl) },
    { .name = "classify_misses", .type = PARAM_BOOL, .def = "true",
      .doc = "classify misses as cold/capacity/conflict/true/false sharing (costs speed)",
      .offset = offsetof(CohParams, classify) },
    { .name = "htm_conflict", .type = PARAM_ENUM, .def = "requester",
      .choices = htm_conflict_choices, .doc = "HTM conflict resolution: requester (the "
      "transaction whose line is requested aborts) or responder (it refuses the request, the "
      "requester retries and aborts if transactional); none: no detection, to show that the "
      "serializability check catches it (testing only)",
      .offset = offsetof(CohParams, htm_conflict) },
    { .name = "htm_versioning", .type = PARAM_ENUM, .def = "lazy",
      .choices = htm_versioning_choices, .doc = "HTM versioning: lazy (speculative writes "
      "held in the L1) or eager (written in place, undo log)",
      .offset = offsetof(CohParams, htm_versioning) },
    { .name = "htm_abort_latency", .type = PARAM_CYCLES, .def = "20", .flags = PARAM_F_RANGE,
      .min = 0, .max = 1e6, .doc = "cycles from an abort until the core runs its abort path",
      .offset = offsetof(CohParams, htm_abort_latency) },
    { .name = "htm_undo_latency", .type = PARAM_CYCLES, .def = "10", .flags = PARAM_F_RANGE,
      .min = 0, .max = 1e6, .doc = "eager: extra abort cycles per undo-log record (line) "
      "written back", .offset = offsetof(CohParams, htm_undo_latency) },
    { .name = "htm_log_latency", .type = PARAM_CYCLES, .def = "4", .flags = PARAM_F_RANGE,
      .min = 0, .max = 1e6, .doc = "eager: extra cycles of a transaction's first write to a "
      "line (the undo-log record)", .offset = offsetof(CohParams, htm_log_latency) },
    { .name = "htm_nack_backoff", .type = PARAM_CYCLES, .def = "16", .flags = PARAM_F_RANGE,
      .min = 1, .max = 1e6, .doc = "a refused request is sent again after 1 .. this many "
      "cycles (random)", .offset = offsetof(CohParams, htm_nack_backoff) },
    PARAM_END,
};

static const PortSpec coh_ports[] = {
    { .name = "cpu_side", .role = PORT_RESPONDER, .required = true, .doc = "loads and stores from the core" },
    { .name = "bus", .role = PORT_REQUESTER, .required = true, .doc = "the snooping bus" },
    PORT_END,
};

#define K(x) ((const Coh *)(x))
static double f_accesses(const Component *c) { return (double)(K(c)->loads + K(c)->stores); }
static double f_misses(const Component *c)
{
    return (double)(K(c)->load_misses + K(c)->store_misses + K(c)->upgrade_misses);
}
static double f_miss_rate(const Component *c)
{
    return stats_ratio(f_misses(c), f_accesses(c));
}
static double f_coherence(const Component *c)
{
    return (double)(K(c)->mc.true_sharing + K(c)->mc.false_sharing);
}

static const StatSpec coh_stats[] = {
    { "accesses", STAT_FORMULA_U64, "count", "loads + stores", 0, f_accesses },
    { "loads", STAT_COUNTER, "count", "loads from the core", offsetof(Coh, loads), NULL },
    { "stores", STAT_COUNTER, "count", "stores from the core", offsetof(Coh, stores), NULL },
    { "load_hits", STAT_COUNTER, "count", "loads that hit", offsetof(Coh, load_hits), NULL },
    { "store_hits", STAT_COUNTER, "count", "stores that hit with write permission",
      offsetof(Coh, store_hits), NULL },
    { "load_misses", STAT_COUNTER, "count", "loads that needed a GetS", offsetof(Coh, load_misses),
      NULL },
    { "store_misses", STAT_COUNTER, "count", "stores to an invalid line (GetM)",
      offsetof(Coh, store_misses), NULL },
    { "upgrade_misses", STAT_COUNTER, "count", "stores to a read-only copy (GetM as upgrade)",
      offsetof(Coh, upgrade_misses), NULL },
    { "misses", STAT_FORMULA_U64, "count", "load_misses + store_misses + upgrade_misses", 0,
      f_misses },
    { "miss_rate", STAT_FORMULA, "ratio", "misses / accesses", 0, f_miss_rate },
    { "misses_cold", STAT_COUNTER, "count", "first access to the block by this cache",
      offsetof(Coh, mc.cold), NULL },
    { "misses_capacity", STAT_COUNTER, "count", "would miss in a fully associative LRU cache too",
      offsetof(Coh, mc.capacity), NULL },
    { "misses_conflict", STAT_COUNTER, "count", "would hit in a fully associative LRU cache",
      offsetof(Coh, mc.conflict), NULL },
    { "misses_coherence", STAT_FORMULA_U64, "count", "misses_true_sharing + misses_false_sharing",
      0, f_coherence },
    { "misses_true_sharing", STAT_COUNTER, "count",
      "line lost to another cache's write, and that cache wrote the word accessed since",
      offsetof(Coh, mc.true_sharing), NULL },
    { "misses_false_sharing", STAT_COUNTER, "count",
      "line lost to another cache's write, but the word accessed was not written since",
      offsetof(Coh, mc.false_sharing), NULL },
    { "stalls", STAT_COUNTER, "count", "core ops that waited on a line in a transient state",
      offsetof(Coh, stalls), NULL },
    { "replacements", STAT_COUNTER, "count", "valid lines evicted", offsetof(Coh, replacements),
      NULL },
    { "writebacks", STAT_COUNTER, "count", "PutM issued (dirty or owned line evicted)",
      offsetof(Coh, writebacks), NULL },
    { "data_supplied", STAT_COUNTER, "count", "cache-to-cache transfers from this cache",
      offsetof(Coh, supplied), NULL },
    { "invalidated", STAT_COUNTER, "count", "valid copies lost to another cache's GetM",
      offsetof(Coh, invalidated), NULL },
    { "miss_latency", STAT_HIST, "cycle", "request sent to the bus to data (arbitration "
      "included)", offsetof(Coh, miss_lat), NULL },
    { "rmws", STAT_COUNTER, "count", "locked read-modify-writes (MSG_F_RMW; also counted in "
      "stores)", offsetof(Coh, rmws), NULL },
    { "atomics.tas", STAT_COUNTER, "count", "test-and-set requests (XCHG with 1; in rmws)",
      offsetof(Coh, at.tas), NULL },
    { "atomics.xchg", STAT_COUNTER, "count", "exchange requests other than test-and-set (in rmws)",
      offsetof(Coh, at.xchg), NULL },
    { "atomics.cas", STAT_COUNTER, "count", "compare-and-swap requests (in rmws)",
      offsetof(Coh, at.cas), NULL },
    { "atomics.faa", STAT_COUNTER, "count", "fetch-and-add requests (in rmws)",
      offsetof(Coh, at.faa), NULL },
    { "atomics.ll", STAT_COUNTER, "count", "load-linked requests (in loads)", offsetof(Coh, at.ll),
      NULL },
    { "atomics.sc_success", STAT_COUNTER, "count", "store-conditionals that wrote (in stores)",
      offsetof(Coh, at.sc_success), NULL },
    { "atomics.sc_fail", STAT_COUNTER, "count", "store-conditionals that failed (in stores unless "
      "the reservation was already gone as they arrived)", offsetof(Coh, at.sc_fail), NULL },
    { "spin_waits", STAT_COUNTER, "count", "spin-wait watches (a core sleeping on a cached line "
      "instead of re-reading it; not loads)", offsetof(Coh, at.watches), NULL },
    STAT_END,
};

/* ---- helpers ----------------------------------------------------------------------------- */
static inline uint8_t *frame_data(Coh *k, const Frame *f)
{
    return k->data + (size_t)(f - k->frames) * k->p.line;
}

static inline Frame *frame_find(Coh *k, uint64_t block)
{
    TagSet s;
    uint64_t set;
    int w = tag_find_in(&k->ts, block >> k->line_shift, &s, &set);
    return w < 0 ? NULL : &k->frames[set * k->p.assoc + (uint32_t)w];
}

/* frame_find that also hands back the frame's set and way (for a hit performed at once). */
static inline Frame *frame_find_way(Coh *k, uint64_t block, TagSet *s, uint32_t *way)
{
    uint64_t set;
    int w = tag_find_in(&k->ts, block >> k->line_shift, s, &set);
    if (w < 0)
        return NULL;
    *way = (uint32_t)w;
    return &k->frames[set * k->p.assoc + (uint32_t)w];
}

/* The tag store's set of frame f (whose block is set) and f's way in it. */
static inline uint32_t frame_way(Coh *k, const Frame *f, TagSet *s)
{
    return tag_frame_way(&k->ts, f->block >> k->line_shift, (size_t)(f - k->frames), s);
}

static int coh_id(const Coh *k) { return k->oid; }

static G_GNUC_NO_INLINE void set_perm_oracle(Coh *k, uint64_t block, int new_state);
static inline void set_perm(Coh *k, uint64_t block, int old_state, int new_state)
{
    const ProtoState *s = k->proto->states;
    if (s[new_state].perm == PERM_NONE)
        coh_line_lost(&k->base, k->cpu, &k->at, block);
    if (G_UNLIKELY(s[old_state].perm != s[new_state].perm) && mem_oracle(k->base.sim))
        set_perm_oracle(k, block, new_state);
}

/* The reference memory follows every change of a line's permission (SWMR is checked there). */
static void set_perm_oracle(Coh *k, uint64_t block, int new_state)
{
    const ProtoState *s = k->proto->states;
    char *msg = NULL;
    if (!oracle_perm(mem_oracle(k->base.sim), coh_id(k), block >> k->line_shift,
                     (int)s[new_state].perm, &msg))
        sim_fail(k->base.sim, g_error_new(ARCHSIM_SIM_ERROR, ARCHSIM_EXIT_CHECK,
                                          "cycle %" G_GUINT64_FORMAT ": %s: %s",
                                          sim_component_cycle(&k->base), k->base.name, msg)),
            g_free(msg);
}

static G_GNUC_NORETURN G_GNUC_NO_INLINE void row_missing(Coh *k, int state, int event,
                                                         uint64_t block)
{
    g_error("%s: cycle %" G_GUINT64_FORMAT ": block 0x%" G_GINT64_MODIFIER
            "x: protocol %s has no transition for state %s, event %s",
            k->base.name, sim_component_cycle(&k->base), block, k->proto->name,
            k->proto->states[state].name, proto_event_names[event]);
}

/* Looks up and counts a transition; aborts on a missing cell (a protocol or simulator bug). */
static inline const ProtoRow *row_for(Coh *k, int state, int event, uint64_t block)
{
    int r = proto_lookup(&k->ix, state, event);
    if (G_UNLIKELY(r < 0))
        row_missing(k, state, event, block);
    k->trans[state * EV_COUNT + event]++;
    k->events[event]++;
    return &k->proto->rows[r];
}

/* The bus's snoop filter follows which blocks this cache holds: a frame leaving I takes the
 * block, one entering I drops it (an express call, at the instant of the change). */
static void sf_tell(Coh *k, unsigned what, uint64_t block)
{
    Msg *m = k->sf_msg;
    m->cmd = MSG_BUS_FILTER;
    bus_msg(m)->kind = what;
    bus_msg(m)->addr = block;
    sim_port_call(&k->base, k->bus, m);
}

/* A frame's state went from old to now: a block that enters or leaves the cache (a state
 * other than I, or I) changes the frame's tag word and the bus's snoop filter. */
static inline void sf_note(Coh *k, const Frame *f, int old, int now)
{
    if ((old == k->inv) != (now == k->inv)) {
        TagSet s;
        uint32_t w = frame_way(k, f, &s);
        if (now == k->inv)
            tag_drop(&s, w);
        else
            tag_fill(&k->ts, &s, w, f->block >> k->line_shift, 1, 0);
        if (k->sf)
            sf_tell(k, now == k->inv ? BUS_SF_REMOVE : BUS_SF_ADD, f->block);
    }
}

/* States and events as enums: names in text, JSON and Perfetto, codes plus translate filters
 * in VCD; "to" makes this a state change of the line (line-state tracks, the --teach table). */
static void trace_transition(Coh *k, uint64_t block, int from, int to, int event)
{
    SIM_TRACE(&k->base, "state", 0, TARG_X("addr", block),
              TARG_E("from", from, k->proto->states[from].name),
              TARG_E("to", to, k->proto->states[to].name),
              TARG_E("on", event, proto_event_names[event]));
}

/* The age a request carries (busmsg.h): the transaction's, if `op` is its access. */
static uint64_t tx_age_of(const Coh *k, const Msg *op)
{
    const Htm *h = &k->htm;
    return h->active && op && (op->flags & MSG_F_TX) && mem_msg_c(op)->tag == h->id ? h->age : 0;
}

static void bus_request_in(Coh *k, Frame *f, int kind, bool upgrade, uint64_t delay,
                           uint64_t age)
{
    f->req_kind = (uint8_t)kind;
    f->req_upgrade = upgrade;
    Msg *m = sim_msg_alloc(k->base.sim);
    m->cmd = MSG_BUS_REQ;
    bus_msg(m)->addr = f->block;
    bus_msg(m)->kind = (uint64_t)kind;
    bus_msg(m)->who = age;                          /* the transaction's age (responder wins) */
    bus_msg(m)->tag = (uint64_t)(f - k->frames);
    m->flags = upgrade ? BUSF_UPGRADE : 0;
    m->issued = k->base.eng->now;
    sim_port_send(&k->base, k->bus, m, delay);
}

static void bus_request(Coh *k, Frame *f, int kind, bool upgrade)
{
    bus_request_in(k, f, kind, upgrade, 0, 0);
}

/* ---- hardware transactions (htm.h) ----------------------------------------------------------- */

static void htm_mark(Coh *k, Frame *f, uint8_t bits)
{
    if (!f->txbits) {
        uint32_t i = (uint32_t)(f - k->frames);
        g_array_append_val(k->htm.marked, i);
    }
    f->txbits |= bits;
}

/* Ends the transaction's hold on its lines: clears every R/W bit; counts the set sizes. */
static void htm_unmark(Coh *k, bool committed)
{
    Htm *h = &k->htm;
    uint64_t r = 0, w = 0;
    for (guint i = 0; i < h->marked->len; i++) {
        Frame *f = &k->frames[g_array_index(h->marked, uint32_t, i)];
        r += (f->txbits & HTM_R) != 0;
        w += (f->txbits & HTM_W) != 0;
        f->txbits = 0;
    }
    if (committed) {
        sim_hist_add(&h->rset, r);
        sim_hist_add(&h->wset, w);
    }
    if (h->conflict == HTM_RESPONDER_WINS)
        mem_shared(k->base.sim)->htm_nackers--;
}

static const char *const htm_reason_names[] = { "conflict", "capacity", "explicit" };

/* Aborts the running transaction: committed bytes back into its written lines, bits cleared,
 * the core told after the abort latency (+ the undo-log walk when eager). */
static void htm_abort(Coh *k, uint32_t status, int reason, uint64_t block)
{
    Htm *h = &k->htm;
    g_assert(h->active);
    uint32_t nsaved = h->saved_blocks->len;
    for (uint32_t i = 0; i < nsaved; i++) {
        Frame *f = frame_find(k, g_array_index(h->saved_blocks, uint64_t, i));
        g_assert(f || h->conflict == HTM_NO_DETECTION);  /* else never leaves while marked */
        if (f)
            memcpy(frame_data(k, f), h->saved->data + (size_t)i * k->p.line, k->p.line);
    }
    htm_unmark(k, false);
    h->aborts[reason]++;
    uint64_t cost = h->abort_latency + (h->versioning == HTM_EAGER ? h->undo_latency * nsaved : 0);
    SIM_TRACE(&k->base, "tx_abort", 0, TARG_U("tx", h->id),
              TARG_E("why", reason, htm_reason_names[reason]), TARG_X("addr", block),
              TARG_U("restored", nsaved));
    Msg *m = sim_msg_alloc(k->base.sim);
    m->cmd = MSG_TX_ABORTED;
    mem_msg(m)->tag = h->id;
    mem_msg(m)->value = status;
    m->issued = k->base.eng->now;
    sim_port_send(&k->base, k->cpu, m, cost ? cost : 1);
    htm_clear(h);
}

/* Does another cache's request of `kind` conflict with the line's bits? */
static bool htm_conflicts(const Coh *k, const Frame *f, int kind)
{
    return k->htm.conflict != HTM_NO_DETECTION && f->txbits && kind != BUS_PUTM && ((f->txbits & HTM_W) || kind == BUS_GETM);
}

/* TX_BEGIN / TX_END / TX_ABORT from the core. */
static void htm_command(Coh *k, Msg *m)
{
    Htm *h = &k->htm;
    bool mine = h->active && mem_msg(m)->tag == h->id;
    switch (m->cmd) {
    case MSG_TX_BEGIN:
        if (h->active) {
            sim_fail(k->base.sim, g_error_new(ARCHSIM_SIM_ERROR, ARCHSIM_EXIT_SOFTWARE,
                                              "%s: transaction %" G_GUINT64_FORMAT " begun inside "
                                              "transaction %" G_GUINT64_FORMAT, k->base.name,
                                              mem_msg(m)->tag, h->id));
            sim_msg_free(k->base.sim, m);
            return;
        }
        h->active = true;
        h->id = mem_msg(m)->tag;
        h->begin = sim_component_cycle(&k->base);
        if (!h->keep_age)
            h->age = 1 + (h->begin << 8) + ((uint64_t)coh_id(k) & 0xff);
        h->keep_age = true;
        h->begins++;
        if (h->conflict == HTM_RESPONDER_WINS)
            mem_shared(k->base.sim)->htm_nackers++;
        SIM_TRACE(&k->base, "tx_begin", 0, TARG_U("tx", h->id));
        sim_port_send(&k->base, k->cpu, m, 1);
        return;
    case MSG_TX_END:
        if (!mine) {
            m->flags |= MSG_F_TX_STALE;
            sim_port_send(&k->base, k->cpu, m, 1);
            return;
        }
        {
            char *problem = NULL;
            if (!htm_commit_check(h, &k->base, coh_id(k), &problem)) {
                sim_fail(k->base.sim, g_error_new(ARCHSIM_SIM_ERROR, ARCHSIM_EXIT_CHECK,
                                                  "cycle %" G_GUINT64_FORMAT ": %s: %s",
                                                  sim_component_cycle(&k->base), k->base.name,
                                                  problem));
                g_free(problem);
            }
        }
        htm_unmark(k, true);
        h->commits++;
        h->keep_age = false;
        SIM_TRACE(&k->base, "tx_commit", 0, TARG_U("tx", h->id),
                  TARG_U("reads", h->reads->len), TARG_U("writes", h->writes->len));
        htm_clear(h);
        mem_msg(m)->value = 1;
        sim_port_send(&k->base, k->cpu, m, 1);
        return;
    case MSG_TX_ABORT:
        if (!mine) {
            m->flags |= MSG_F_TX_STALE;
            sim_port_send(&k->base, k->cpu, m, 1);
            return;
        }
        uint32_t code = (uint32_t)(mem_msg(m)->value & 0xff);
        htm_abort(k, HTM_EXPLICIT | code << 24, HTM_AB_EXPLICIT, 0);
        sim_msg_free(k->base.sim, m);
        return;
    default:
        g_assert_not_reached();
    }
}

/* A transactional access performed on the line (the frame has the permission it needs). */
static void htm_perform(Coh *k, Frame *f, Msg *m, uint64_t delay)
{
    Htm *h = &k->htm;
    bool write = m->cmd == MSG_WRITE_REQ;
    m->cmd = write ? MSG_WRITE_RESP : MSG_READ_RESP;
    if (!h->active || mem_msg(m)->tag != h->id) {
        h->stale_ops++;
        m->flags |= MSG_F_TX_STALE;
        sim_port_send(&k->base, k->cpu, m, delay);
        return;
    }
    uint32_t n = m->size ? m->size : 1;
    g_assert(n <= 8);
    uint8_t *line = frame_data(k, f), *d = line + (mem_msg(m)->addr - f->block);
    uint64_t old = 0, mask = n < 8 ? (1ull << (8 * n)) - 1 : ~0ull;
    for (uint32_t i = 0; i < n; i++)
        old |= (uint64_t)d[i] << (8 * i);
    bool reads = !write || (m->flags & MSG_F_RMW);
    if (reads) {
        if (!htm_wrote(h, mem_msg(m)->addr, n)) {
            char *msg = NULL;
            Oracle *o = mem_oracle(k->base.sim);
            if (o && !oracle_check_load(o, coh_id(k), mem_msg(m)->addr, n, old, &msg)) {
                sim_fail(k->base.sim, g_error_new(ARCHSIM_SIM_ERROR, ARCHSIM_EXIT_CHECK,
                                                  "cycle %" G_GUINT64_FORMAT ": %s: %s "
                                                  "(transactional, state %s)",
                                                  sim_component_cycle(&k->base), k->base.name,
                                                  msg, k->proto->states[f->state].name));
                g_free(msg);
            }
            htm_log_read(h, mem_msg(m)->addr, n, old);
        }
        htm_mark(k, f, HTM_R);
    }
    if (write) {
        uint64_t nv = mem_msg(m)->value;
        bool done = true;
        if (m->flags & MSG_F_RMW) {
            if (MSG_RMW_OP(m->flags) == MSG_RMW_ADD)
                nv = old + mem_msg(m)->value;
            else if (MSG_RMW_OP(m->flags) == MSG_RMW_CMPXCHG) {
                done = old == (mem_msg(m)->arg & mask);
                nv = done ? mem_msg(m)->value : old;
            }
        }
        nv &= mask;
        if (!(f->txbits & HTM_W) && htm_save_line(h, f->block, line, (uint32_t)k->p.line)) {
            h->logged_lines++;
            if (h->versioning == HTM_EAGER)
                delay += h->log_latency;
        }
        for (uint32_t i = 0; i < n; i++)
            d[i] = (uint8_t)(nv >> (8 * i));
        htm_log_write(h, mem_msg(m)->addr, n, nv);
        htm_mark(k, f, HTM_W);
        h->tx_stores++;
        mem_msg(m)->value = old;
        mem_msg(m)->arg = done ? 1 : 0;
    } else {
        h->tx_loads++;
        mem_msg(m)->value = old;
    }
    sim_port_send(&k->base, k->cpu, m, delay);
}

/* Performs the core's op on the line of frame f, way w of set *s: a load reads the value, a
 * store writes it. */
static inline void perform_at(Coh *k, Frame *f, TagSet *s, uint32_t w, Msg *m, uint64_t delay)
{
    tag_touch(&k->ts, s, w);
    if (G_UNLIKELY(m->flags & MSG_F_TX)) {
        htm_perform(k, f, m, delay);
        return;
    }
    coh_perform(&k->base, k->cpu, frame_data(k, f), f->block, m, delay, coh_id(k),
                k->proto->states[f->state].name, &k->at,
                k->proto->states[f->state].perm != PERM_NONE);
}

/* The same for a frame whose set and way are not at hand. */
static void perform(Coh *k, Frame *f, Msg *m, uint64_t delay)
{
    TagSet s;
    uint32_t w = frame_way(k, f, &s);
    perform_at(k, f, &s, w, m, delay);
}

/* Fires Load/Store for the op at the head of the frame; returns true if it completed (HIT). */
static bool fire_core_event(Coh *k, Frame *f, Msg *m, bool first_time)
{
    bool store = m->cmd == MSG_WRITE_REQ;
    int ev = store ? EV_STORE : EV_LOAD;
    int old = f->state;
    const ProtoRow *r = row_for(k, old, ev, f->block);
    if (r->actions & ACT_STALL) {
        if (first_time)
            k->stalls++;
        return false;
    }
    const ProtoState *st = k->proto->states;
    if (first_time || !f->issued) {
        if (r->actions & ACT_HIT) {
            if (store)
                k->store_hits++;
            else
                k->load_hits++;
        } else if (st[old].valid) {
            k->upgrade_misses++;
        } else {
            if (store)
                k->store_misses++;
            else
                k->load_misses++;
            if (k->p.classify)
                f->coh_pending = coh_class_miss(&k->mc, f->block, &f->coh_since);
        }
    }
    if (k->p.classify && (r->actions & ACT_HIT))
        coh_class_touch(&k->mc, f->block);
    f->state = r->next;
    if (old != r->next)
        trace_transition(k, f->block, old, r->next, ev);
    sf_note(k, f, old, r->next);
    set_perm(k, f->block, old, r->next);
    if (r->actions & ACT_ISSUE_GETS) {
        bus_request_in(k, f, BUS_GETS, false, 0, tx_age_of(k, m));
        f->issued = true;
        f->miss_start = k->base.eng->now;
    }
    if (r->actions & ACT_ISSUE_GETM) {
        bus_request_in(k, f, BUS_GETM, st[old].valid, 0, tx_age_of(k, m));
        f->issued = true;
        f->miss_start = k->base.eng->now;
    }
    if (r->actions & ACT_HIT) {
        perform(k, f, m, k->p.hit_latency);
        return true;
    }
    return false;
}

static bool try_access(Coh *k, Msg *m);

/* Serves the ops queued on a frame in order until one has to wait. */
static void drain_frame(Coh *k, Frame *f)
{
    while (f->head && f->state != k->inv && !f->issued) {
        Msg *m = f->head;
        Msg *next = m->next_free;
        if (!fire_core_event(k, f, m, false))
            return;
        f->head = next;
        if (!next)
            f->tail = NULL;
    }
}

static void retry_waiters(Coh *k)
{
    Msg *list = k->wait_head;
    k->wait_head = k->wait_tail = NULL;
    k->waiting = 0;
    while (list) {
        Msg *next = list->next_free;
        if (!try_access(k, list)) {
            coh_op_push(&k->wait_head, &k->wait_tail, list);
            k->waiting++;
        }
        list = next;
    }
}

/* A frame just became free (state I): ops that waited for it go back to the cache's queue. */
static void frame_freed(Coh *k, Frame *f)
{
    Msg *list = f->head;
    f->head = f->tail = NULL;
    f->issued = false;
    while (list) {
        Msg *next = list->next_free;
        coh_op_push(&k->wait_head, &k->wait_tail, list);
        k->waiting++;
        list = next;
    }
    retry_waiters(k);
}

/* Finds or makes a frame for the op's block and fires its event; false if it must wait. */
static bool try_access(Coh *k, Msg *m)
{
    uint64_t block = mem_msg(m)->addr & ~(k->p.line - 1);
    Frame *f = frame_find(k, block);
    if (!f) {
        TagSet s = tag_set_touch(&k->ts, block >> k->line_shift);
        Frame *set = &k->frames[tag_set_index(&k->ts, block >> k->line_shift) * k->p.assoc];
        for (uint32_t w = 0; w < k->p.assoc && !f; w++)
            if (set[w].state == k->inv && !set[w].head)
                f = &set[w];
        if (!f) {
            uint8_t ok[256];                        /* the ways that may be replaced now */
            for (uint32_t w = 0; w < k->p.assoc; w++)
                ok[w] = k->proto->states[set[w].state].stable && !set[w].head;
            uint32_t v = tag_victim_among(&k->ts, &s, ok, &k->base.rng);
            if (v == k->p.assoc)
                return false;                       /* every way is busy: wait */
            Frame *victim = &set[v];
            int old = victim->state;
            if (G_UNLIKELY(victim->txbits))     /* a line of the transaction must go */
                htm_abort(k, HTM_CAPACITY, HTM_AB_CAPACITY, victim->block);
            const ProtoRow *r = row_for(k, old, EV_REPLACEMENT, victim->block);
            k->replacements++;
            coh_line_lost(&k->base, k->cpu, &k->at, victim->block);
            victim->state = r->next;
            trace_transition(k, victim->block, old, r->next, EV_REPLACEMENT);
            sf_note(k, victim, old, r->next);
            set_perm(k, victim->block, old, r->next);
            if (r->actions & ACT_ISSUE_PUTM) {
                k->writebacks++;
                bus_request(k, victim, BUS_PUTM, false);
                return false;                       /* frame busy until Own_PUTM */
            }
            if (r->next != k->inv)
                return false;
            f = victim;
        }
        f->block = block;
        f->state = (uint8_t)k->inv;
        f->issued = false;
    }
    if (f->head) {                                  /* others wait already: keep order */
        coh_op_push(&f->head, &f->tail, m);
        k->stalls++;
        return true;
    }
    if (fire_core_event(k, f, m, true))
        return true;
    coh_op_push(&f->head, &f->tail, m);                 /* waits for data or for the stall */
    return true;
}

static void on_snoop(Coh *k, Msg *s)
{
    bool own = s->flags & SNOOP_OWN;
    int kind = (int)bus_msg(s)->kind;
    int ev = (own ? EV_OWN_GETS : EV_OTHER_GETS) + kind;
    Frame *f = frame_find(k, bus_msg(s)->addr);
    if (G_UNLIKELY(s->flags & SNOOP_PROBE)) {       /* the bus asks: would we refuse it? */
        if (f && k->htm.conflict == HTM_RESPONDER_WINS && htm_conflicts(k, f, kind) &&
            (bus_msg(s)->tag == 0 || k->htm.age < bus_msg(s)->tag)) {
            /* refuse plain accesses and younger transactions */
            s->flags |= SNOOP_NACK;
            k->htm.nacks_sent++;
        }
        return;
    }
    if (G_UNLIKELY(f && !own && htm_conflicts(k, f, kind)))   /* requester wins */
        htm_abort(k, HTM_CONFLICT | HTM_RETRY, HTM_AB_CONFLICT, f->block);
    int old = f ? f->state : k->inv;
    g_assert(f || !own);
    const ProtoRow *r = row_for(k, old, ev, bus_msg(s)->addr);
    const ProtoState *st = k->proto->states;
    if (own && st[old].owner && kind != BUS_PUTM) {
        memcpy(s->data, frame_data(k, f), k->p.line);
        s->flags |= SNOOP_REQ_OWNER;
    }
    if (own && kind == BUS_GETM && st[old].valid)
        s->flags |= SNOOP_UPGRADE;
    if (r->actions & (ACT_SEND_DATA | ACT_WRITEBACK)) {
        g_assert(f);
        memcpy(s->data, frame_data(k, f), k->p.line);
        if (r->actions & ACT_SEND_DATA) {
            s->flags |= SNOOP_SUPPLY;
            k->supplied++;
        }
        if (r->actions & ACT_WRITEBACK)
            s->flags |= SNOOP_WRITEBACK;
    }
    if (own && kind == BUS_PUTM && !(r->actions & ACT_WRITEBACK))
        s->flags |= SNOOP_NODATA;
    if (r->actions & ACT_SHARED)
        s->flags |= SNOOP_SHARED;
    if (!f)
        return;
    if (!own && st[old].valid && !st[r->next].valid) {
        s->flags |= SNOOP_INVALIDATED;
        if (kind == BUS_GETM) {
            k->invalidated++;
            if (k->p.classify)
                coh_class_lost(&k->mc, f->block, oracle_seq(mem_writes(k->base.sim)));
        }
    }
    f->state = r->next;
    if (old != r->next)
        trace_transition(k, f->block, old, r->next, ev);
    sf_note(k, f, old, r->next);
    set_perm(k, f->block, old, r->next);
    /* a line read by the transaction while its eviction was under way has now left */
    if (G_UNLIKELY(f->txbits) && st[r->next].perm == PERM_NONE)
        htm_abort(k, HTM_CAPACITY, HTM_AB_CAPACITY, f->block);
    if (r->next == k->inv) {
        frame_freed(k, f);
    } else {
        drain_frame(k, f);
        if (k->wait_head && !f->head)
            retry_waiters(k);   /* the frame may now be a victim for a waiting op */
    }
}

static void on_data(Coh *k, Msg *m)
{
    Frame *f = &k->frames[bus_msg(m)->tag];
    g_assert(f->issued && f->block == bus_msg(m)->addr);
    if (G_UNLIKELY(bus_msg(m)->who == BUS_NACKED)) {      /* refused by a transaction: ask again */
        Htm *h = &k->htm;
        h->nacks_got++;
        if (h->active && f->head && (f->head->flags & MSG_F_TX) && mem_msg(f->head)->tag == h->id)
            htm_abort(k, HTM_CONFLICT | HTM_RETRY, HTM_AB_CONFLICT, f->block);
        /* the request carries the transaction's age if any op it serves is the
         * transaction's (the head may be a void access of an aborted one) */
        uint64_t age = 0;
        for (Msg *o = f->head; o && !age; o = o->next_free)
            age = tx_age_of(k, o);
        bus_request_in(k, f, f->req_kind, f->req_upgrade,
                       1 + sim_rng_below(&k->base.rng, h->nack_backoff), age);
        return;
    }
    int ev = bus_msg(m)->kind ? EV_DATA_EXCL : EV_DATA;
    int old = f->state;
    const ProtoRow *r = row_for(k, old, ev, f->block);
    memcpy(frame_data(k, f), m->data, k->p.line);
    sim_hist_add(&k->miss_lat, clock_cycle(k->base.clk, k->base.eng->now - f->miss_start));
    f->state = r->next;
    f->issued = false;
    trace_transition(k, f->block, old, r->next, ev);
    sf_note(k, f, old, r->next);
    set_perm(k, f->block, old, r->next);
    if (f->coh_pending) {
        f->coh_pending = false;
        coh_class_sharing(&k->mc, mem_writes(k->base.sim), coh_id(k), f->head, f->coh_since);
    }
    if ((r->actions & ACT_HIT) && f->head) {
        Msg *op = f->head;
        f->head = op->next_free;
        if (!f->head)
            f->tail = NULL;
        if (k->p.classify)
            coh_class_touch(&k->mc, f->block);
        perform(k, f, op, 1);
    }
    drain_frame(k, f);
    if (k->wait_head && !f->head)
        retry_waiters(k);
}

/* The filter may spare this cache a snoop only if its I state takes every other cache's
 * request with no action and stays I (every table of protocols/ does; a table that did not
 * would be snooped always). */
static bool sf_exact(const Coh *k)
{
    for (int ev = EV_OTHER_GETS; ev <= EV_OTHER_PUTM; ev++) {
        int r = proto_lookup(&k->ix, k->inv, ev);
        if (r < 0 || k->proto->rows[r].next != k->inv || k->proto->rows[r].actions)
            return false;
    }
    return true;
}

/* The counts of a core's hit that changes nothing but the data (what try_access and
 * fire_core_event would count for it); the access itself (loads, stores) is counted by the
 * caller. */
static inline void count_pure_hit(Coh *k, const Frame *f, bool store)
{
    int ev = store ? EV_STORE : EV_LOAD;
    k->trans[f->state * EV_COUNT + ev]++;
    k->events[ev]++;
    if (store)
        k->store_hits++;
    else
        k->load_hits++;
    if (k->p.classify)
        coh_class_touch(&k->mc, f->block);
}

static G_GNUC_NO_INLINE void coh_recv_other(Component *c, Port *port, Msg *m);

/* A core's plain load or store (no transaction, atomic, reservation or watch) that hits with
 * nothing to change but the data, done here in a small function; everything else, and any hit
 * that needs more, in coh_recv_other. The same counts, data and answer as that path, which
 * counts the access itself when it gets it (so nothing is counted twice). */
static void coh_recv(Component *c, Port *port, Msg *m)
{
    Coh *k = (Coh *)c;
    if (G_LIKELY(port == k->cpu && !k->wait_head &&
                 (m->cmd == MSG_READ_REQ || m->cmd == MSG_WRITE_REQ) &&
                 !(m->flags & (MSG_F_TX | MSG_F_RMW | MSG_F_LL | MSG_F_SC | MSG_F_WATCH)))) {
        bool store = m->cmd == MSG_WRITE_REQ;
        uint64_t block = mem_msg(m)->addr & ~(k->p.line - 1);
        uint32_t n = m->size ? m->size : 1;
        g_assert(block == ((mem_msg(m)->addr + n - 1) & ~(k->p.line - 1)));
        TagSet ts;
        uint32_t way = 0;
        Frame *f = frame_find_way(k, block, &ts, &way);
        if (f && !f->head && k->pure_hit[f->state * 2 + store]) {
            if (store)
                k->stores++;
            else
                k->loads++;
            count_pure_hit(k, f, store);
            /* the slow path checks loads (the oracle) and records stores (the oracle, or the
             * miss classes' write record): a load with only the record stays on the fast one */
            if (G_UNLIKELY(n > 8 || mem_oracle(c->sim) != NULL ||
                           (store && mem_writes(c->sim) != NULL))) {
                perform_at(k, f, &ts, way, m, k->p.hit_latency);
                return;
            }
            tag_touch(&k->ts, &ts, way);
            coh_plain_access(frame_data(k, f) + (mem_msg(m)->addr - block), m, n);
            sim_port_send(c, k->cpu, m, k->p.hit_latency);
            return;
        }
    }
    coh_recv_other(c, port, m);
}

static G_GNUC_NO_INLINE void coh_recv_other(Component *c, Port *port, Msg *m)
{
    Coh *k = (Coh *)c;
    if (port == k->cpu) {
        if (G_UNLIKELY(m->cmd >= MSG_TX_BEGIN && m->cmd <= MSG_TX_ABORT)) {
            htm_command(k, m);
            return;
        }
        if (G_UNLIKELY((m->flags & MSG_F_TX) && (!k->htm.active || mem_msg(m)->tag != k->htm.id))) {
            k->htm.stale_ops++;                     /* its transaction already aborted */
            m->cmd = m->cmd == MSG_WRITE_REQ ? MSG_WRITE_RESP : MSG_READ_RESP;
            m->flags |= MSG_F_TX_STALE;
            sim_port_send(c, k->cpu, m, 1);
            return;
        }
        g_assert(m->cmd == MSG_READ_REQ || m->cmd == MSG_WRITE_REQ);
        g_assert((mem_msg(m)->addr & ~(k->p.line - 1)) ==
                 ((mem_msg(m)->addr + (m->size ? m->size : 1) - 1) & ~(k->p.line - 1)));
        if (G_UNLIKELY(m->flags & (MSG_F_RMW | MSG_F_LL | MSG_F_SC | MSG_F_WATCH))) {
            uint64_t block = mem_msg(m)->addr & ~(k->p.line - 1);
            Frame *f = frame_find(k, block);
            bool readable = f && k->proto->states[f->state].perm != PERM_NONE;
            if (coh_atomics_arrive(c, k->cpu, &k->at, m, block, readable ? frame_data(k, f) : NULL,
                                   k->p.hit_latency))
                return;
        }
        bool store = m->cmd == MSG_WRITE_REQ;
        if (store) {
            k->stores++;
            k->rmws += (m->flags & MSG_F_RMW) != 0;
        } else
            k->loads++;
        if (G_LIKELY(!k->wait_head)) {
            /* a hit that changes nothing but the data: what try_access and fire_core_event
             * would do for it, without their other cases */
            TagSet ts;
            uint32_t way = 0;
            Frame *f = frame_find_way(k, mem_msg(m)->addr & ~(k->p.line - 1), &ts, &way);
            if (f && !f->head && k->pure_hit[f->state * 2 + store]) {
                count_pure_hit(k, f, store);
                perform_at(k, f, &ts, way, m, k->p.hit_latency);
                return;
            }
        }
        if (k->wait_head || !try_access(k, m)) {
            coh_op_push(&k->wait_head, &k->wait_tail, m);
            k->waiting++;
        }
        return;
    }
    if (m->cmd == MSG_BUS_SNOOP) {
        on_snoop(k, m);
        return;
    }
    if (m->cmd == MSG_BUS_FILTER) {          /* the bus offers its snoop filter */
        g_assert(bus_msg(m)->kind == BUS_SF_OFFER);
        if (sf_exact(k)) {
            k->sf = true;
            if (!k->sf_msg)
                k->sf_msg = sim_msg_alloc(c->sim);
            m->flags |= BUSF_SF_ACCEPT;
            /* what we hold already (nothing, at the start) */
            uint64_t lines = k->p.size / k->p.line;
            for (uint64_t i = 0; i < lines; i++)
                if (k->frames[i].state != k->inv)
                    sf_tell(k, BUS_SF_ADD, k->frames[i].block);
        }
        return;
    }
    g_assert(m->cmd == MSG_BUS_DATA);
    on_data(k, m);
    sim_msg_free(c->sim, m);
}

/* What realize allocates: a frame and the data of every line. */
static uint64_t coh_footprint(const Component *c, const char **key)
{
    const Coh *k = (const Coh *)c;
    *key = "size";
    TagGeom g = { .sets = 1 };
    return k->p.size / k->p.line * (sizeof(Frame) + tag_way_bytes(&g) + k->p.line);
}

static bool coh_realize(Component *c, GError **error)
{
    Coh *k = (Coh *)c;
    /* unique across the machine (two clusters each have an l1d[0]); l1d0.. in today's systems */
    k->oid = 0;
    for (guint i = 0; i < c->sim->components->len && g_ptr_array_index(c->sim->components, i) != c; i++)
        k->oid += ((Component *)g_ptr_array_index(c->sim->components, i))->cls == c->cls;
    k->proto = proto_find(proto_choices[k->p.protocol]);
    g_assert(k->proto);
    char *problem = NULL;
    if (!proto_index_build(k->proto, &k->ix, &problem)) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "protocol %s: %s",
                    k->proto->name, problem);
        g_free(problem);
        return false;
    }
    k->inv = k->proto->initial;
    k->pure_hit = g_new0(uint8_t, (size_t)k->proto->nstates * 2);
    for (int st = 0; st < k->proto->nstates; st++)
        for (int store = 0; store < 2; store++) {
            int r = proto_lookup(&k->ix, st, store ? EV_STORE : EV_LOAD);
            k->pure_hit[st * 2 + store] = r >= 0 && k->proto->rows[r].next == st &&
                                          k->proto->rows[r].actions == ACT_HIT &&
                                          k->proto->states[st].perm != PERM_NONE;
        }
    uint64_t lines = k->p.size / k->p.line;
    if (lines < k->p.assoc || lines % k->p.assoc || ((lines / k->p.assoc) & (lines / k->p.assoc - 1))) {
        return sim_component_reject(c, sim_component_first_set(c, "assoc", "size", "line", NULL),
                                    error, "size %" G_GUINT64_FORMAT " B / (assoc %"
                                    G_GUINT64_FORMAT " x line %" G_GUINT64_FORMAT " B) must give a "
                                    "power-of-two number of sets >= 1", k->p.size, k->p.assoc,
                                    k->p.line);
    }
    k->sets = (uint32_t)(lines / k->p.assoc);
    k->line_shift = (uint32_t)__builtin_ctzll(k->p.line);
    TagGeom g = { .sets = k->sets, .assoc = (uint32_t)k->p.assoc, .line = (uint32_t)k->p.line,
                  .sectors = 1, .interleave = 1, .repl = k->p.repl };
    problem = NULL;
    if (!tag_geom_check(&g, &problem)) {
        bool r = sim_component_reject(c, "repl", error, "%s", problem);
        g_free(problem);
        return r;
    }
    /* zero-filled, and I is state 0 in every table: the loop writes nothing then, so the host
     * maps the frames' pages only as lines arrive (memory follows what the cache holds) */
    k->frames = g_new0(Frame, lines);
    tag_init(&k->ts, &g, c);
    for (uint64_t i = 0; k->inv != 0 && i < lines; i++)
        k->frames[i].state = (uint8_t)k->inv;
    k->data = g_malloc0(lines * k->p.line);
    k->trans = g_new0(uint64_t, (size_t)k->proto->nstates * EV_COUNT);
    k->cpu = sim_port(c, "cpu_side", 0);
    k->bus = sim_port(c, "bus", 0);
    if (!k->cpu || !k->bus) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "cpu_side and bus must be connected");
        return false;
    }
    coh_class_init(&k->mc, lines);
    if (k->p.classify)
        mem_writes_enable(c->sim);
    htm_init(&k->htm);
    k->htm.conflict = k->p.htm_conflict;
    k->htm.versioning = k->p.htm_versioning;
    k->htm.abort_latency = k->p.htm_abort_latency;
    k->htm.undo_latency = k->p.htm_undo_latency;
    k->htm.log_latency = k->p.htm_log_latency;
    k->htm.nack_backoff = k->p.htm_nack_backoff;
    return true;
}

static void coh_finalize(Component *c)
{
    Coh *k = (Coh *)c;
    if (k->proto)
        proto_index_free(&k->ix);
    g_free(k->frames);
    tag_free(&k->ts);
    g_free(k->data);
    g_free(k->trans);
    g_free(k->pure_hit);
    coh_class_free(&k->mc);
    htm_free(&k->htm);
}

static void coh_dump(Component *c, GString *out)
{
    Coh *k = (Coh *)c;
    g_string_append_printf(out, "  protocol %s, %u ops waiting for a frame\n", k->proto->name,
                           k->waiting);
    coh_atomics_dump(&k->at, out);
    htm_dump(&k->htm, out);
    uint64_t lines = k->p.size / k->p.line;
    for (uint64_t i = 0; i < lines; i++) {
        Frame *f = &k->frames[i];
        if (f->state != k->inv && (!k->proto->states[f->state].stable || f->head))
            g_string_append_printf(out, "  line 0x%" G_GINT64_MODIFIER "x: %s%s%s\n", f->block,
                                   k->proto->states[f->state].name,
                                   f->issued ? ", request on the bus" : "",
                                   f->head ? ", core op waiting" : "");
    }
}

static bool coh_busy(const Component *c)
{
    const Coh *k = (const Coh *)c;
    if (k->waiting)
        return true;
    uint64_t lines = k->p.size / k->p.line;
    for (uint64_t i = 0; i < lines; i++)
        if (k->frames[i].head)
            return true;
    return false;
}

/* gem5's Ruby names: <Controller>.<Event> and <Controller>.<State>.<Event> for every row. */
/* A warm-up or ROI reset: the transactions' read- and write-set histograms restart (the HTM
 * and controller counts of extra_stats are rebased by the stats layer). */
static void coh_stats_reset(Component *c)
{
    Coh *k = (Coh *)c;
    memset(&k->htm.rset, 0, sizeof k->htm.rset);
    memset(&k->htm.wset, 0, sizeof k->htm.wset);
}

/* Snoops of `kind` the bus's filter spared this cache (it held nothing of those blocks): each
 * would have been an I.Other_* transition (asked of the bus, an express call that only reads). */
static uint64_t sf_skipped(const Coh *k, unsigned kind)
{
    if (!k->sf)
        return 0;
    Msg *m = k->sf_msg;
    m->cmd = MSG_BUS_FILTER;
    bus_msg(m)->kind = BUS_SF_SKIPPED;
    bus_msg(m)->tag = kind;
    bus_msg(m)->who = 0;
    sim_port_call((Component *)&k->base, k->bus, m);
    return bus_msg(m)->who;
}

static void coh_extra_stats(const Component *c, StatSet *out)
{
    const Coh *k = (const Coh *)c;
    const ProtoTable *t = k->proto;
    if (k->htm.begins || k->htm.nacks_got)  /* only in runs with transactions */
        htm_stats(&k->htm, c->name, out);
    uint64_t skipped[EV_COUNT] = { 0 };
    for (int e = EV_OTHER_GETS; e <= EV_OTHER_PUTM; e++)
        skipped[e] = sf_skipped(k, (unsigned)(BUS_GETS + (e - EV_OTHER_GETS)));
    for (int e = 0; e < EV_COUNT; e++) {
        bool used = false;
        for (int r = 0; r < t->nrows; r++)
            used = used || t->rows[r].event == e;
        if (!used)
            continue;
        char *n = g_strdup_printf("%s.L1Cache_Controller.%s", c->name, proto_event_names[e]);
        stats_add_u64(out, n, k->events[e] + skipped[e], "count", "events of this kind");
        g_free(n);
    }
    for (int r = 0; r < t->nrows; r++) {
        const ProtoRow *row = &t->rows[r];
        char *n = g_strdup_printf("%s.L1Cache_Controller.%s.%s", c->name, t->states[row->state].name,
                                  proto_event_names[row->event]);
        char *d = g_strdup_printf("transitions %s -> %s", t->states[row->state].name,
                                  t->states[row->next].name);
        stats_add_u64(out, n, k->trans[row->state * EV_COUNT + row->event] +
                      (row->state == k->inv ? skipped[row->event] : 0), "count", d);
        g_free(n);
        g_free(d);
    }
}

/* What its trace events mean to the teaching view (`run --teach`). */
static const TeachEvent coh_teach_events[] = {
    { "state", TEACH_STATE },
    TEACH_EVENTS_END,
};

const ComponentClass coherent_cache_class = {
    .name = "coherent-cache",
    .doc = "private cache controller interpreting a snooping protocol table (MSI/MESI/MOESI)",
    .size = sizeof(Coh),
    .params_offset = offsetof(Coh, p),
    .params = coh_params,
    .ports = coh_ports,
    .stats = coh_stats,
    .realize = coh_realize,
    .footprint = coh_footprint,
    .recv = coh_recv,
    .dump = coh_dump,
    .busy = coh_busy,
    .finalize = coh_finalize,
    .extra_stats = coh_extra_stats,
    .stats_reset = coh_stats_reset,
    .check_link = mem_link_line_equal,
    .teach_events = coh_teach_events,
};
