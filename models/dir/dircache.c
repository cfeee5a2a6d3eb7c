/* dircache.c: the private L1 cache controller of the directory protocols: one generic controller
 * that interprets the CACHE table of any protocol of protocols/dirproto.h (the Primer, 2nd ed.,
 * ch. 8, Table 8.1) and talks to the directory slices over the on-chip network (dirmsg.h). The
 * directory twin of coherent.c: same core interface, real data, oracle checks, miss classes.
 *
 *   core --load/store--> [frame lookup; victim: Replacement] --Load/Store--> table row
 *        <--response---  HIT: after hit_latency   STALL: the op waits on its frame, in order
 *                        SEND_GETS/GETM: request to the home directory; the op waits
 *   noc ==Fwd-*, Inv, Put-Ack, Data, Inv-Ack==> [frame, or I without one] --event--> table row
 *        data installs first; DATA_TO_REQ/DIR, INV_ACK answer; COUNT_ACKS; HIT performs the
 *        waiting op (1 cycle)   STALL: the message waits in the frame's deferred FIFO
 *
 * Atomics (locked RMWs, LL/SC) and spin-wait watches work as in coherent.c (cohshared.h's
 * CohAtomics: told of every loss of read permission and every eviction).
 * After every state change of a frame its deferred messages are retried in arrival order (a
 * forward-network message never passes an earlier one: that network is ordered point to point),
 * then its waiting core ops. A (state, event) pair without a row is a protocol or simulator bug:
 * the run aborts naming the component, cycle, address, state and event.
 * Trace events: "state" (addr, from, to, on: as coherent.c's, for --teach and the line-state
 * tracks), "send" (addr, msg, dst, class, acks), "recv" (addr, msg, src, class), "defer" (addr,
 * msg, state) and "miss" (addr, req, hops, from, latency) when a miss's op performs.
 * The sets' tags and replacement are the one tag store's (tagstore.h), as in coherent.c; the
 * write-back buffer behind them is a short list with its own tags.
 */
#include "dircache.h"
#include "../mem/memmsg.h"
#include "../cache/htm.h"

#include <string.h>

#include "../../sim/error.h"
#include "../mem/oracle.h"
#include "../cache/cohshared.h"
#include "../cache/repl/repl.h"
#include "../cache/tagstore.h"
#include "dirmsg.h"

typedef struct {
    uint64_t size, assoc, line, hit_latency;
    int protocol, repl;
    bool classify;
    uint64_t caches, banks, wbuf;
} DcParams;

typedef struct {
    /* the hit path reads these: keep them together at the front */
    uint64_t block;          /* line-aligned address */
    Msg *head, *tail;        /* core ops waiting on this frame (first = the one being served) */
    uint8_t state;
    uint8_t hops;            /* critical path of the miss: 2 (requester, home) or 3 (the data
                                comes from the previous owner, or the home's data waits for
                                Inv-Acks from the sharers) */
    bool owner_data;         /* the data came from the previous owner */
    uint8_t req;             /* the request of the miss in flight (DM_GETS, DM_GETM) */
    uint16_t supplier;       /* endpoint that sent the miss's data */
    bool issued;             /* the head op has a request outstanding */
    bool coh_pending;        /* the miss in flight is a coherence miss, split at data */
    int32_t acks;            /* Inv-Acks still expected; negative when they overtook the data */
    Tick miss_start;         /* when the head op's request left (miss latency) */
    Msg *dhead, *dtail;      /* messages a STALL row deferred, in arrival order */
    uint64_t coh_since;      /* oracle sequence when the line was taken away */
} DcFrame;

typedef struct {
    Component base;
    DcParams p;
    const DirProtocol *proto;
    int16_t *cell;           /* state * DCE_COUNT + event -> row index, -1 none */
    int inv;                 /* the initial state (I) */
    uint32_t sets, line_shift, id;
    uint32_t lines, nframes;  /* frames [0, lines): the sets; [lines, nframes): write-back buffer */
    uint32_t wb_used;         /* write-back buffer entries holding a line on its way out */
    DcFrame *frames;         /* frame set x assoc + way holds the line of that way */
    TagStore ts;             /* the sets' tags (valid while the frame's state is not I) */
    uint64_t *wb_tag;        /* write-back buffer entry i: its block | DC_TAG_VALID, or DC_NO_TAG */
    uint8_t *data;           /* nframes * line */
    Port *cpu, *net;
    Msg *wait_head, *wait_tail;   /* ops that found no frame */
    uint32_t waiting, deferred;
    CohMissClass mc;
    CohAtomics at;           /* atomics counts, LL/SC reservation, spin-wait watch */
    uint64_t *trans;         /* nstates * DCE_COUNT transition counts */
    uint64_t events[DCE_COUNT];
    uint64_t sent[DM_COUNT], received[DM_COUNT];
    /* stats */
    uint64_t loads, stores, load_hits, store_hits, load_misses, store_misses, upgrade_misses;
    uint64_t stalls, msgs_stalled, replacements, supplied, invalidated, writebacks;
    uint64_t hop2, hop3, owner_misses;
    SimHist miss_lat;
} Dc;

static const char *const proto_choices[] = { "dir-msi", "dir-mesi", NULL };

static const ParamSpec dc_params[] = {
    { .name = "size", .type = PARAM_SIZE, .def = "32KiB", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 64, .max = 1ull << 32, .doc = "capacity", .offset = offsetof(DcParams, size) },
    { .name = "assoc", .type = PARAM_UINT, .def = "8", .flags = PARAM_F_RANGE, .min = 1,
      .max = 256, .doc = "ways per set", .offset = offsetof(DcParams, assoc) },
    { .name = "line", .type = PARAM_SIZE, .def = "64B", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 8, .max = 4096, .doc = "line (coherence block) size",
      .offset = offsetof(DcParams, line) },
    { .name = "hit_latency", .type = PARAM_CYCLES, .def = "2", .flags = PARAM_F_RANGE, .min = 1,
      .max = 1000, .doc = "a hit is answered this many cycles after arrival",
      .offset = offsetof(DcParams, hit_latency) },
    { .name = "protocol", .type = PARAM_ENUM, .def = "dir-mesi", .choices = proto_choices,
      .doc = "directory protocol table (protocols/dir_*.c); must match the directories'",
      .offset = offsetof(DcParams, protocol) },
    { .name = "repl", .type = PARAM_ENUM, .def = "lru", .choices = repl_names,
      .doc = "replacement policy among the ways that may be replaced (stable, nothing waiting "
      "or outstanding)", .offset = offsetof(DcParams, repl) },
    { .name = "classify_misses", .type = PARAM_BOOL, .def = "true",
      .doc = "classify misses as cold/capacity/conflict/true/false sharing (costs speed)",
      .offset = offsetof(DcParams, classify) },
    { .name = "writeback_buffer", .type = PARAM_UINT, .def = "4", .flags = PARAM_F_RANGE,
      .min = 0, .max = 64, .doc = "lines on their way out (Put sent, Put-Ack awaited) held "
      "aside, so their frame serves the next miss at once; 0: the frame waits for the Put-Ack",
      .offset = offsetof(DcParams, wbuf) },
    { .name = "caches", .type = PARAM_UINT, .def = "1", .flags = PARAM_F_RANGE, .min = 1,
      .max = 65535, .doc = "number of caches on the network (set by the system)",
      .offset = offsetof(DcParams, caches) },
    { .name = "banks", .type = PARAM_UINT, .def = "1", .flags = PARAM_F_RANGE, .min = 1,
      .max = 65535, .doc = "number of directory banks, endpoints caches.. (set by the system)",
      .offset = offsetof(DcParams, banks) },
    PARAM_END,
};

static const PortSpec dc_ports[] = {
    { .name = "cpu_side", .role = PORT_RESPONDER, .doc = "loads and stores from the core" },
    { .name = "net", .role = PORT_REQUESTER, .doc = "the on-chip network (endpoint = cache id)" },
    PORT_END,
};

#define K(x) ((const Dc *)(x))
static double f_accesses(const Component *c) { return (double)(K(c)->loads + K(c)->stores); }
static double f_misses(const Component *c)
{
    return (double)(K(c)->load_misses + K(c)->store_misses + K(c)->upgrade_misses);
}
static double f_miss_rate(const Component *c) { return stats_ratio(f_misses(c), f_accesses(c)); }
static double f_coherence(const Component *c)
{
    return (double)(K(c)->mc.true_sharing + K(c)->mc.false_sharing);
}
static double f_sent(const Component *c)
{
    double s = 0;
    for (int t = 0; t < DM_COUNT; t++)
        s += (double)K(c)->sent[t];
    return s;
}
static double f_received(const Component *c)
{
    double s = 0;
    for (int t = 0; t < DM_COUNT; t++)
        s += (double)K(c)->received[t];
    return s;
}

static const StatSpec dc_stats[] = {
    { "accesses", STAT_FORMULA_U64, "count", "loads + stores", 0, f_accesses },
    { "loads", STAT_COUNTER, "count", "loads from the core", offsetof(Dc, loads), NULL },
    { "stores", STAT_COUNTER, "count", "stores from the core", offsetof(Dc, stores), NULL },
    { "load_hits", STAT_COUNTER, "count", "loads that hit", offsetof(Dc, load_hits), NULL },
    { "store_hits", STAT_COUNTER, "count", "stores that hit with write permission",
      offsetof(Dc, store_hits), NULL },
    { "load_misses", STAT_COUNTER, "count", "loads that needed a GetS", offsetof(Dc, load_misses),
      NULL },
    { "store_misses", STAT_COUNTER, "count", "stores to an invalid line (GetM)",
      offsetof(Dc, store_misses), NULL },
    { "upgrade_misses", STAT_COUNTER, "count", "stores to a read-only copy (GetM as upgrade)",
      offsetof(Dc, upgrade_misses), NULL },
    { "misses", STAT_FORMULA_U64, "count", "load_misses + store_misses + upgrade_misses", 0,
      f_misses },
    { "miss_rate", STAT_FORMULA, "ratio", "misses / accesses", 0, f_miss_rate },
    { "misses_cold", STAT_COUNTER, "count", "first access to the block by this cache",
      offsetof(Dc, mc.cold), NULL },
    { "misses_capacity", STAT_COUNTER, "count", "would miss in a fully associative LRU cache too",
      offsetof(Dc, mc.capacity), NULL },
    { "misses_conflict", STAT_COUNTER, "count", "would hit in a fully associative LRU cache",
      offsetof(Dc, mc.conflict), NULL },
    { "misses_coherence", STAT_FORMULA_U64, "count", "misses_true_sharing + misses_false_sharing",
      0, f_coherence },
    { "misses_true_sharing", STAT_COUNTER, "count",
      "line lost to another cache's write, and that cache wrote the word accessed since",
      offsetof(Dc, mc.true_sharing), NULL },
    { "misses_false_sharing", STAT_COUNTER, "count",
      "line lost to another cache's write, but the word accessed was not written since",
      offsetof(Dc, mc.false_sharing), NULL },
    { "misses_2hop", STAT_COUNTER, "count",
      "misses served by the home alone (its data, no Inv-Acks to wait for)", offsetof(Dc, hop2),
      NULL },
    { "misses_3hop", STAT_COUNTER, "count",
      "misses whose data came from the previous owner, or that waited for sharers' Inv-Acks",
      offsetof(Dc, hop3), NULL },
    { "misses_owner_data", STAT_COUNTER, "count",
      "misses whose data came from the previous owner (forwarded by the home)",
      offsetof(Dc, owner_misses), NULL },
    { "stalls", STAT_COUNTER, "count", "core ops that waited on a line in a transient state",
      offsetof(Dc, stalls), NULL },
    { "msgs_stalled", STAT_COUNTER, "count",
      "network messages deferred by a stall row (retried after the line's next transition)",
      offsetof(Dc, msgs_stalled), NULL },
    { "replacements", STAT_COUNTER, "count", "valid lines evicted", offsetof(Dc, replacements),
      NULL },
    { "writebacks", STAT_COUNTER, "count", "PutM sent (dirty line evicted, with its data)",
      offsetof(Dc, writebacks), NULL },
    { "data_supplied", STAT_COUNTER, "count", "Data sent to a requesting cache (three-hop)",
      offsetof(Dc, supplied), NULL },
    { "invalidated", STAT_COUNTER, "count",
      "valid copies lost to another cache's GetM (Inv or Fwd-GetM)", offsetof(Dc, invalidated),
      NULL },
    { "msgs_sent", STAT_FORMULA_U64, "count", "network messages sent (msgs.<type> each)", 0,
      f_sent },
    { "msgs_received", STAT_FORMULA_U64, "count",
      "network messages received (msgs_received.<type> each)", 0, f_received },
    { "miss_latency", STAT_HIST, "cycle", "request issue until the op performs (data, last ack)",
      offsetof(Dc, miss_lat), NULL },
    { "atomics.tas", STAT_COUNTER, "count", "test-and-set requests (XCHG with 1; in stores)",
      offsetof(Dc, at.tas), NULL },
    { "atomics.xchg", STAT_COUNTER, "count",
      "exchange requests other than test-and-set (in stores)", offsetof(Dc, at.xchg), NULL },
    { "atomics.cas", STAT_COUNTER, "count", "compare-and-swap requests (in stores)",
      offsetof(Dc, at.cas), NULL },
    { "atomics.faa", STAT_COUNTER, "count", "fetch-and-add requests (in stores)",
      offsetof(Dc, at.faa), NULL },
    { "atomics.ll", STAT_COUNTER, "count", "load-linked requests (in loads)", offsetof(Dc, at.ll),
      NULL },
    { "atomics.sc_success", STAT_COUNTER, "count", "store-conditionals that wrote (in stores)",
      offsetof(Dc, at.sc_success), NULL },
    { "atomics.sc_fail", STAT_COUNTER, "count", "store-conditionals that failed (in stores unless "
      "the reservation was already gone as they arrived)", offsetof(Dc, at.sc_fail), NULL },
    { "spin_waits", STAT_COUNTER, "count", "spin-wait watches (a core sleeping on a cached line "
      "instead of re-reading it; not loads)", offsetof(Dc, at.watches), NULL },
    STAT_END,
};

/* ---- helpers ----------------------------------------------------------------------------- */
static inline uint8_t *frame_data(Dc *k, const DcFrame *f)
{
    return k->data + (size_t)(f - k->frames) * k->p.line;
}

/* A write-back buffer entry's tag is its block | DC_TAG_VALID (blocks are line aligned, so bit 0
 * is free), and 0 when it holds none. */
#define DC_NO_TAG 0u
#define DC_TAG_VALID 1u

/* The first frame of block's set. */
static inline size_t set_base(const Dc *k, uint64_t block)
{
    return tag_set_index(&k->ts, block >> k->line_shift) * k->p.assoc;
}

static DcFrame *frame_find(Dc *k, uint64_t block)
{
    TagSet s;
    int w = tag_find(&k->ts, block >> k->line_shift, &s);
    if (w >= 0)
        return &k->frames[set_base(k, block) + (uint32_t)w];
    for (uint32_t i = k->lines; k->wb_used && i < k->nframes; i++)
        if (k->wb_tag[i - k->lines] == (block | DC_TAG_VALID))
            return &k->frames[i];
    return NULL;
}

/* The tag store's set of frame f of the sets (its block set) and f's way in it. */
static inline uint32_t frame_way(Dc *k, const DcFrame *f, TagSet *s)
{
    return tag_frame_way(&k->ts, f->block >> k->line_shift, (size_t)(f - k->frames), s);
}

/* A victim whose replacement left it in a transient state (PutS/PutM/PutE sent) moves to a free
 * write-back buffer entry with its data, freeing its frame; false if the buffer is full. */
static bool wb_take(Dc *k, DcFrame *v)
{
    for (uint32_t i = k->lines; i < k->nframes; i++) {
        DcFrame *b = &k->frames[i];
        if (b->state != k->inv || b->head || b->dhead)
            continue;
        *b = *v;
        memcpy(frame_data(k, b), frame_data(k, v), k->p.line);
        k->wb_tag[i - k->lines] = v->block | DC_TAG_VALID;
        TagSet s;
        tag_drop(&s, frame_way(k, v, &s));
        v->state = (uint8_t)k->inv;
        v->issued = false;
        v->acks = 0;
        k->wb_used++;
        return true;
    }
    return false;
}

static inline uint32_t home_of(const Dc *k, uint64_t block)
{
    return dir_home(block, k->line_shift, (uint32_t)k->p.caches, (uint32_t)k->p.banks);
}

static inline const char *sname(const Dc *k, int s) { return k->proto->cstates[s].name; }

static void set_perm(Dc *k, uint64_t block, int old_state, int new_state)
{
    const ProtoState *s = k->proto->cstates;
    if (s[new_state].perm == PERM_NONE)
        coh_line_lost(&k->base, k->cpu, &k->at, block);
    if (!mem_oracle(k->base.sim) || s[old_state].perm == s[new_state].perm)
        return;
    char *msg = NULL;
    if (!oracle_perm(mem_oracle(k->base.sim), (int)k->id, block >> k->line_shift,
                     (int)s[new_state].perm, &msg))
        sim_fail(k->base.sim, g_error_new(ARCHSIM_SIM_ERROR, ARCHSIM_EXIT_CHECK,
                                          "cycle %" G_GUINT64_FORMAT ": %s: %s",
                                          sim_component_cycle(&k->base), k->base.name, msg)),
            g_free(msg);
}

/* A protocol or simulator bug: no way to go on. */
#define DC_BUG(k, block, state, ev, what)                                                      \
    g_error("%s: cycle %" G_GUINT64_FORMAT ": block 0x%" G_GINT64_MODIFIER                     \
            "x: protocol %s, state %s, event %s: %s", (k)->base.name,                          \
            sim_component_cycle(&(k)->base), (uint64_t)(block), (k)->proto->name,              \
            sname(k, state), dir_cache_event_names[ev], what)

/* The row for (state, event); aborts on a missing cell. Counts it when `count`. */
static const DirRow *row_for(Dc *k, int state, int event, uint64_t block, bool count)
{
    int r = k->cell[state * DCE_COUNT + event];
    if (G_UNLIKELY(r < 0))
        g_error("%s: cycle %" G_GUINT64_FORMAT ": block 0x%" G_GINT64_MODIFIER
                "x: protocol %s has no transition for state %s, event %s",
                k->base.name, sim_component_cycle(&k->base), block, k->proto->name,
                sname(k, state), dir_cache_event_names[event]);
    if (count) {
        k->trans[state * DCE_COUNT + event]++;
        k->events[event]++;
    }
    return &k->proto->crows[r];
}

/* The same "state" event as coherent.c's, so --teach and the line-state tracks read it. */
static void trace_transition(Dc *k, uint64_t block, int from, int to, int event)
{
    SIM_TRACE(&k->base, "state", 0, TARG_X("addr", block), TARG_E("from", from, sname(k, from)),
              TARG_E("to", to, sname(k, to)),
              TARG_E("on", event, dir_cache_event_names[event]));
}

/* A completed miss, for dumps and the --teach table: its request, hops, where the data came
 * from (memory: the home directory; else the previous owner, named like this cache: the system
 * names the caches <prefix><id>) and its latency. */
static void trace_miss(Dc *k, const DcFrame *f, uint64_t lat)
{
    char *from = NULL;
    if (f->owner_data) {
        size_t n = strlen(k->base.name);
        while (n > 0 && g_ascii_isdigit(k->base.name[n - 1]))
            n--;
        from = g_strdup_printf("%.*s%u", (int)n, k->base.name, f->supplier);
    }
    SIM_TRACE(&k->base, "miss", 0, TARG_X("addr", f->block), TARG_S("req", dir_msg_names[f->req]),
              TARG_U("hops", f->hops), TARG_S("from", from ? from : "memory"),
              TARG_U("latency", lat));
    g_free(from);
}

/* Sends one protocol message; `f` (may be NULL) supplies the line's bytes for Data and PutM. */
static void send_msg(Dc *k, int type, unsigned flags, uint32_t dst, int req, uint64_t block,
                     DcFrame *f, Tick issued)
{
    Msg *m = sim_msg_alloc(k->base.sim);
    m->cmd = MSG_DIR;
    dir_msg(m)->addr = block;
    dir_msg_set(m, type, flags, req, 0);
    noc_msg_route(m, dst, dir_msg_vnet[type]);
    m->issued = issued;
    if (f) {
        m->size = (uint32_t)k->p.line;
        dir_data_new(m, (uint32_t)k->p.line);
        memcpy(m->data, frame_data(k, f), k->p.line);
    }
    k->sent[type]++;
    SIM_TRACE(&k->base, "send", 0, TARG_X("addr", block), TARG_E("msg", type, dir_msg_names[type]),
              TARG_U("dst", dst), TARG_E("class", dir_msg_vnet[type],
                                         dir_vnet_names[dir_msg_vnet[type]]),
              TARG_I("acks", 0));
    sim_port_send(&k->base, k->net, m, 0);
}

/* The row's send actions. `in` is the message being handled (NULL for core events); `f` the
 * frame (NULL for a message to a block with no frame: the caller made sure no data is needed). */
static void do_sends(Dc *k, DcFrame *f, uint64_t block, uint32_t a, const Msg *in)
{
    Tick now = k->base.eng->now;
    int me = (int)k->id;
    if (a & (CA_SEND_GETS | CA_SEND_GETM | CA_SEND_PUTS | CA_SEND_PUTM | CA_SEND_PUTE)) {
        uint32_t home = home_of(k, block);
        if (a & CA_SEND_GETS)
            send_msg(k, DM_GETS, 0, home, me, block, NULL, now);
        if (a & CA_SEND_GETM)
            send_msg(k, DM_GETM, 0, home, me, block, NULL, now);
        if (f && (a & (CA_SEND_GETS | CA_SEND_GETM)))
            f->req = (a & CA_SEND_GETM) ? DM_GETM : DM_GETS;
        if (a & CA_SEND_PUTS)
            send_msg(k, DM_PUTS, 0, home, me, block, NULL, now);
        if (a & CA_SEND_PUTE)
            send_msg(k, DM_PUTE, 0, home, me, block, NULL, now);
        if (a & CA_SEND_PUTM) {
            k->writebacks++;
            send_msg(k, DM_PUTM, 0, home, me, block, f, now);
        }
    }
    if (!(a & (CA_DATA_TO_REQ | CA_DATA_TO_DIR | CA_INV_ACK)))
        return;
    int req = dir_msg_req(in);
    if (a & CA_DATA_TO_REQ) {
        k->supplied++;
        send_msg(k, DM_DATA, DMF_FROM_OWNER, (uint32_t)req, req, block, f, in->issued);
    }
    if (a & CA_DATA_TO_DIR)
        send_msg(k, DM_DATA, DMF_FROM_OWNER, home_of(k, block), req, block, f, in->issued);
    if (a & CA_INV_ACK)
        send_msg(k, DM_INV_ACK, 0, (uint32_t)req, req, block, NULL, in->issued);
}

/* Performs the core's op on the line: a load reads the value, a store writes it. */
static void perform(Dc *k, DcFrame *f, Msg *m, uint64_t delay)
{
    if ((uint32_t)(f - k->frames) < k->lines) {     /* not a write-back buffer entry */
        TagSet s;
        uint32_t w = frame_way(k, f, &s);
        tag_touch(&k->ts, &s, w);
    }
    coh_perform(&k->base, k->cpu, frame_data(k, f), f->block, m, delay, (int)k->id,
                sname(k, f->state), &k->at, k->proto->cstates[f->state].perm != PERM_NONE);
}

/* Moves a frame to a new state (the only place a frame's state changes once allocated): tag,
 * trace, oracle permission. */
static void change_state(Dc *k, DcFrame *f, int next, int ev)
{
    int old = f->state;
    f->state = (uint8_t)next;
    uint32_t idx = (uint32_t)(f - k->frames);
    if (idx >= k->lines) {
        k->wb_tag[idx - k->lines] = next == k->inv ? DC_NO_TAG : f->block | DC_TAG_VALID;
        if (next == k->inv && old != k->inv)
            k->wb_used--;                           /* a write-back buffer entry is free */
    } else if ((old == k->inv) != (next == k->inv)) {
        TagSet s;
        uint32_t w = frame_way(k, f, &s);
        if (next == k->inv)
            tag_drop(&s, w);
        else
            tag_fill(&k->ts, &s, w, f->block >> k->line_shift, 1, 0);
    }
    if (old != next)
        trace_transition(k, f->block, old, next, ev);
    set_perm(k, f->block, old, next);
}

/* ---- core events ----------------------------------------------------------------------- */
enum { CORE_STALLED, CORE_WAITING, CORE_PERFORMED };

/* Fires Load/Store for op m at the head of frame f (or about to be). */
static int fire_core_event(Dc *k, DcFrame *f, Msg *m, bool first_time)
{
    bool store = m->cmd == MSG_WRITE_REQ;
    int ev = store ? DCE_STORE : DCE_LOAD;
    int old = f->state;
    const DirRow *r = row_for(k, old, ev, f->block, true);
    uint32_t a = r->actions;
    if (a & CA_STALL) {
        if (first_time)
            k->stalls++;
        return CORE_STALLED;
    }
    const ProtoState *st = k->proto->cstates;
    if (a & CA_HIT) {
        if (store)
            k->store_hits++;
        else
            k->load_hits++;
        if (k->p.classify)
            coh_class_touch(&k->mc, f->block);
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
    if (G_UNLIKELY(a & (CA_DATA_TO_REQ | CA_DATA_TO_DIR | CA_INV_ACK | CA_COUNT_ACKS)))
        DC_BUG(k, f->block, old, ev, "a core event's row answers a message");
    do_sends(k, f, f->block, a, NULL);
    if (a & (CA_SEND_GETS | CA_SEND_GETM)) {
        f->issued = true;
        f->miss_start = k->base.eng->now;
        f->hops = 0;
    }
    change_state(k, f, r->next, ev);
    if (a & CA_HIT) {
        perform(k, f, m, k->p.hit_latency);
        return CORE_PERFORMED;
    }
    return r->next != old || f->issued ? CORE_WAITING : CORE_STALLED;
}

/* Serves the ops queued on a frame in order until one has to wait; true if anything fired. */
static bool drain_frame(Dc *k, DcFrame *f)
{
    bool progress = false;
    while (f->head && f->state != k->inv && !f->issued) {
        int r = fire_core_event(k, f, f->head, false);
        if (r == CORE_STALLED)
            break;
        progress = true;
        if (r != CORE_PERFORMED)
            break;
        coh_op_pop(&f->head, &f->tail);
    }
    return progress;
}

static bool try_access(Dc *k, Msg *m);

static void retry_waiters(Dc *k)
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

/* Finds or makes a frame for the op's block and fires its event; false if it must wait. */
static bool try_access(Dc *k, Msg *m)
{
    uint64_t block = mem_msg(m)->addr & ~(k->p.line - 1);
    DcFrame *f = frame_find(k, block);
    if (!f) {
        TagSet ts_set = tag_set_touch(&k->ts, block >> k->line_shift);
        DcFrame *set = &k->frames[set_base(k, block)];
        for (uint32_t w = 0; w < k->p.assoc && !f; w++)
            if (set[w].state == k->inv && !set[w].head)
                f = &set[w];
        if (!f) {
            uint8_t ok[256];                        /* the ways that may be replaced now */
            for (uint32_t w = 0; w < k->p.assoc; w++) {
                const DcFrame *c = &set[w];
                ok[w] = k->proto->cstates[c->state].stable && !c->head && !c->dhead && !c->issued;
            }
            uint32_t v = tag_victim_among(&k->ts, &ts_set, ok, &k->base.rng);
            if (v == k->p.assoc)
                return false;                       /* every way is busy: wait */
            DcFrame *victim = &set[v];
            const DirRow *r = row_for(k, victim->state, DCE_REPLACEMENT, victim->block, true);
            if (r->actions & CA_STALL)
                return false;
            if (G_UNLIKELY(r->actions & (CA_DATA_TO_REQ | CA_DATA_TO_DIR | CA_INV_ACK |
                                         CA_COUNT_ACKS | CA_HIT)))
                DC_BUG(k, victim->block, victim->state, DCE_REPLACEMENT,
                       "a replacement's row answers a message or hits");
            k->replacements++;
            coh_line_lost(&k->base, k->cpu, &k->at, victim->block);
            do_sends(k, victim, victim->block, r->actions, NULL);
            change_state(k, victim, r->next, DCE_REPLACEMENT);
            if (r->next != k->inv && !wb_take(k, victim))
                return false;                       /* frame busy until Put-Ack */
            f = victim;
        }
        f->block = block;
        f->state = (uint8_t)k->inv;
        f->issued = false;
        f->acks = 0;
    }
    if (f->head) {                                  /* others wait already: keep order */
        coh_op_push(&f->head, &f->tail, m);
        k->stalls++;
        return true;
    }
    if (fire_core_event(k, f, m, true) == CORE_PERFORMED)
        return true;
    coh_op_push(&f->head, &f->tail, m);             /* waits for data or for the stall */
    return true;
}

/* ---- network messages --------------------------------------------------------------------- */
static int msg_event(Dc *k, const DcFrame *f, const Msg *m)
{
    int acks = f ? f->acks : 0;
    switch (dir_msg_type(m)) {
    case DM_FWD_GETS: return DCE_FWD_GETS;
    case DM_FWD_GETM: return DCE_FWD_GETM;
    case DM_INV: return DCE_INV;
    case DM_PUT_ACK: return DCE_PUT_ACK;
    case DM_DATA: {
        unsigned fl = dir_msg_flags(m);
        if (fl & DMF_FROM_OWNER)
            return DCE_DATA_OWNER;
        if (fl & DMF_EXCL)
            return DCE_DATA_DIR_EXCL;
        return acks + dir_msg_acks(m) == 0 ? DCE_DATA_DIR_ACK0 : DCE_DATA_DIR_ACKS;
    }
    case DM_INV_ACK: return acks - 1 == 0 ? DCE_LAST_INV_ACK : DCE_INV_ACK;
    default:
        g_error("%s: cycle %" G_GUINT64_FORMAT ": block 0x%" G_GINT64_MODIFIER
                "x: a cache cannot receive %s", k->base.name, sim_component_cycle(&k->base),
                dir_msg_c(m)->addr,
                dir_msg_type(m) < DM_COUNT ? dir_msg_names[dir_msg_type(m)] : "?");
    }
}

/* Fires the row for message m on frame f (NULL: the block has no frame here, state I). Returns
 * false if the row stalls (m stays with the caller, unchanged). */
static bool fire_msg(Dc *k, DcFrame *f, Msg *m, bool first_time)
{
    int ev = msg_event(k, f, m);
    int type = dir_msg_type(m);
    int old = f ? f->state : k->inv;
    const DirRow *r = row_for(k, old, ev, dir_msg(m)->addr, false);
    uint32_t a = r->actions;
    if (first_time || !(a & CA_STALL)) {
        k->trans[old * DCE_COUNT + ev]++;
        k->events[ev]++;
    }
    if (a & CA_STALL) {
        if (G_UNLIKELY(!f))
            DC_BUG(k, dir_msg(m)->addr, old, ev,
                   "the row stalls, but the block has no frame to wait on");
        return false;
    }
    if (G_UNLIKELY(!f && (type == DM_DATA || r->next != k->inv ||
                          (a & (CA_HIT | CA_DATA_TO_REQ | CA_DATA_TO_DIR | CA_SEND_PUTM |
                                CA_COUNT_ACKS)))))
        DC_BUG(k, dir_msg(m)->addr, old, ev,
               "the row needs a line, but the block has no frame here");
    if (type == DM_DATA) {
        g_assert(m->data && m->size == k->p.line);
        memcpy(frame_data(k, f), m->data, k->p.line);
        f->owner_data = (dir_msg_flags(m) & DMF_FROM_OWNER) != 0;
        f->hops = f->owner_data || dir_msg_acks(m) > 0 ? 3 : 2;
        f->supplier = (uint16_t)noc_msg_src(m);
        if (f->coh_pending) {
            f->coh_pending = false;
            coh_class_sharing(&k->mc, mem_writes(k->base.sim), (int)k->id, f->head, f->coh_since);
        }
    }
    do_sends(k, f, dir_msg(m)->addr, a, m);
    if (!f)
        return true;
    if (a & CA_COUNT_ACKS)
        f->acks += type == DM_DATA ? dir_msg_acks(m) : type == DM_INV_ACK ? -1 : 0;
    const ProtoState *st = k->proto->cstates;
    if ((ev == DCE_INV || ev == DCE_FWD_GETM) && st[old].valid && !st[r->next].valid) {
        k->invalidated++;
        if (k->p.classify)
            coh_class_lost(&k->mc, f->block, oracle_seq(mem_writes(k->base.sim)));
    }
    change_state(k, f, r->next, ev);
    if (a & CA_HIT) {
        if (G_UNLIKELY(!f->head))
            DC_BUG(k, f->block, old, ev, "the row hits, but no core access waits on the line");
        Msg *op = coh_op_pop(&f->head, &f->tail);
        if (f->issued) {                            /* the miss completes */
            f->issued = false;
            uint64_t lat = clock_cycle(k->base.clk, k->base.eng->now - f->miss_start);
            sim_hist_add(&k->miss_lat, lat);
            if (f->owner_data)
                k->owner_misses++;
            if (f->hops == 3)
                k->hop3++;
            else if (f->hops == 2)
                k->hop2++;
            if (G_UNLIKELY(k->base.trace_track >= 0))
                trace_miss(k, f, lat);
        }
        if (k->p.classify)
            coh_class_touch(&k->mc, f->block);
        perform(k, f, op, 1);
    }
    if (st[r->next].stable) {
        if (G_UNLIKELY(f->acks != 0))
            DC_BUG(k, f->block, old, ev, "entered a stable state with Inv-Acks outstanding");
        f->issued = false;                          /* a transaction that ended without HIT */
    }
    return true;
}

static void consume(Dc *k, Msg *m)
{
    if (m->data)
        dir_data_free(m);
    sim_msg_free(k->base.sim, m);
}

static inline bool is_forward(const Msg *m)
{
    return dir_msg_vnet[dir_msg_type(m)] == DVN_FORWARD;
}

/* Retries the frame's deferred messages in arrival order (a forward message never passes an
 * earlier forward one); true if any fired. Stops once the frame is back in I. */
static bool retry_deferred(Dc *k, DcFrame *f)
{
    bool any = false;
restart:
    if (f->state == k->inv)
        return any;
    bool fwd_stalled = false;
    for (Msg *prev = NULL, *m = f->dhead; m; prev = m, m = m->next_free) {
        bool fwd = is_forward(m);
        if (fwd && fwd_stalled)
            continue;
        if (!fire_msg(k, f, m, false)) {
            fwd_stalled = fwd_stalled || fwd;
            continue;
        }
        if (prev)
            prev->next_free = m->next_free;
        else
            f->dhead = m->next_free;
        if (f->dtail == m)
            f->dtail = prev;
        k->deferred--;
        consume(k, m);
        any = true;
        goto restart;
    }
    return any;
}

/* The frame is back in I: messages still deferred fire as for a block with no frame; the ops
 * that waited for it go back to the cache's queue. */
static void frame_freed(Dc *k, DcFrame *f)
{
    Msg *d = f->dhead;
    f->dhead = f->dtail = NULL;
    while (d) {
        Msg *next = d->next_free;
        k->deferred--;
        fire_msg(k, NULL, d, false);
        consume(k, d);
        d = next;
    }
    Msg *list = f->head;
    f->head = f->tail = NULL;
    f->issued = false;
    f->acks = 0;
    while (list) {
        Msg *next = list->next_free;
        coh_op_push(&k->wait_head, &k->wait_tail, list);
        k->waiting++;
        list = next;
    }
    retry_waiters(k);
}

/* After a state change of f: deferred messages, then waiting ops, until nothing moves. */
static void settle(Dc *k, DcFrame *f)
{
    for (;;) {
        if (f->state == k->inv) {
            frame_freed(k, f);
            return;
        }
        bool progress = f->dhead && retry_deferred(k, f);
        if (f->state == k->inv)
            continue;
        progress = drain_frame(k, f) || progress;
        if (!progress)
            break;
    }
    if (k->wait_head && !f->head)
        retry_waiters(k);   /* the frame may now be a victim for a waiting op */
}

static void on_net(Dc *k, Msg *m)
{
    g_assert(m->cmd == MSG_DIR && dir_msg_type(m) < DM_COUNT);
    int type = dir_msg_type(m);
    k->received[type]++;
    SIM_TRACE(&k->base, "recv", 0, TARG_X("addr", dir_msg(m)->addr),
              TARG_E("msg", type, dir_msg_names[type]), TARG_U("src", noc_msg_src(m)),
              TARG_E("class", noc_msg_vnet(m), dir_vnet_names[noc_msg_vnet(m) % DVN_COUNT]));
    DcFrame *f = frame_find(k, dir_msg(m)->addr);
    bool behind = false;    /* an earlier forward message waits: keep point-to-point order */
    if (f && f->dhead && is_forward(m))
        for (Msg *d = f->dhead; d && !behind; d = d->next_free)
            behind = is_forward(d);
    if (!behind && fire_msg(k, f, m, true)) {
        consume(k, m);
        if (f)
            settle(k, f);
        return;
    }
    k->msgs_stalled++;
    k->deferred++;
    coh_op_push(&f->dhead, &f->dtail, m);
    SIM_TRACE(&k->base, "defer", 0, TARG_X("addr", dir_msg(m)->addr),
              TARG_E("msg", type, dir_msg_names[type]),
              TARG_E("state", f->state, sname(k, f->state)));
}

static void dc_recv(Component *c, Port *port, Msg *m)
{
    Dc *k = (Dc *)c;
    if (port == k->cpu) {
        if (G_UNLIKELY((m->cmd >= MSG_TX_BEGIN && m->cmd <= MSG_TX_ABORT) ||
                       (m->flags & MSG_F_TX))) {
            sim_fail(c->sim, g_error_new(ARCHSIM_SIM_ERROR, ARCHSIM_EXIT_CONFIG,
                                         "cycle %" G_GUINT64_FORMAT ": %s: hardware transactions "
                                         "need the snooping L1 (system.type: smp); the directory "
                                         "L1 has no R/W bits", sim_component_cycle(c), c->name));
            sim_msg_free(c->sim, m);
            return;
        }
        g_assert(m->cmd == MSG_READ_REQ || m->cmd == MSG_WRITE_REQ);
        g_assert((mem_msg(m)->addr & ~(k->p.line - 1)) ==
                 ((mem_msg(m)->addr + (m->size ? m->size : 1) - 1) & ~(k->p.line - 1)));
        if (G_UNLIKELY(m->flags & (MSG_F_RMW | MSG_F_LL | MSG_F_SC | MSG_F_WATCH))) {
            uint64_t block = mem_msg(m)->addr & ~(k->p.line - 1);
            DcFrame *f = frame_find(k, block);
            bool readable = f && k->proto->cstates[f->state].perm != PERM_NONE;
            if (coh_atomics_arrive(c, k->cpu, &k->at, m, block, readable ? frame_data(k, f) : NULL,
                                   k->p.hit_latency))
                return;
        }
        if (m->cmd == MSG_WRITE_REQ)
            k->stores++;
        else
            k->loads++;
        if (k->wait_head || !try_access(k, m)) {
            coh_op_push(&k->wait_head, &k->wait_tail, m);
            k->waiting++;
        }
        return;
    }
    on_net(k, m);
}

/* ---- life cycle ----------------------------------------------------------------------------- */
/* What realize allocates: a frame, a tag and the data of every line and write-back entry. */
static uint64_t dc_footprint(const Component *c, const char **key)
{
    const Dc *k = (const Dc *)c;
    *key = "size";
    TagGeom g = { .sets = 1 };
    return (k->p.size / k->p.line + k->p.wbuf) * (sizeof(DcFrame) + tag_way_bytes(&g) + k->p.line);
}

static bool dc_realize(Component *c, GError **error)
{
    Dc *k = (Dc *)c;
    const char *pname = proto_choices[k->p.protocol];
    k->proto = dir_proto_find(pname);
    if (!k->proto) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "protocol %s is not built into this archsim", pname);
        return false;
    }
    const DirProtocol *p = k->proto;
    int ns = p->ncstates;
    k->cell = g_new(int16_t, (size_t)ns * DCE_COUNT);
    for (int i = 0; i < ns * DCE_COUNT; i++)
        k->cell[i] = -1;
    for (int r = 0; r < p->ncrows; r++) {
        const DirRow *row = &p->crows[r];
        if (row->state >= ns || row->next >= ns || row->event >= DCE_COUNT ||
            k->cell[row->state * DCE_COUNT + row->event] >= 0) {
            g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                        "protocol %s: cache row %d is out of range or repeats a (state, event)",
                        p->name, r);
            return false;
        }
        k->cell[row->state * DCE_COUNT + row->event] = (int16_t)r;
    }
    k->inv = p->cinitial;
    uint64_t lines = k->p.size / k->p.line;
    if (lines < k->p.assoc || lines % k->p.assoc ||
        ((lines / k->p.assoc) & (lines / k->p.assoc - 1))) {
        return sim_component_reject(c, sim_component_first_set(c, "assoc", "size", "line", NULL),
                                    error, "size %" G_GUINT64_FORMAT " B / (assoc %"
                                    G_GUINT64_FORMAT " x line %" G_GUINT64_FORMAT " B) must give a "
                                    "power-of-two number of sets >= 1", k->p.size, k->p.assoc,
                                    k->p.line);
    }
    k->id = (uint32_t)(c->index >= 0 ? c->index : 0);
    if (k->id >= k->p.caches) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "cache id %u is not below caches (%" G_GUINT64_FORMAT "): the system sets "
                    "caches and banks", k->id, k->p.caches);
        return false;
    }
    k->sets = (uint32_t)(lines / k->p.assoc);
    k->line_shift = (uint32_t)__builtin_ctzll(k->p.line);
    TagGeom g = { .sets = k->sets, .assoc = (uint32_t)k->p.assoc, .line = (uint32_t)k->p.line,
                  .sectors = 1, .interleave = 1, .repl = k->p.repl };
    char *problem = NULL;
    if (!tag_geom_check(&g, &problem)) {
        bool r = sim_component_reject(c, "repl", error, "%s", problem);
        g_free(problem);
        return r;
    }
    k->lines = (uint32_t)lines;
    k->nframes = (uint32_t)(lines + k->p.wbuf);
    /* zero-filled: the states are written only if I is not state 0 */
    k->frames = g_new0(DcFrame, k->nframes);
    tag_init(&k->ts, &g, c);
    k->wb_tag = g_new0(uint64_t, k->p.wbuf + 1);
    for (uint32_t i = 0; k->inv != 0 && i < k->nframes; i++)
        k->frames[i].state = (uint8_t)k->inv;
    k->data = g_malloc0((size_t)k->nframes * k->p.line);
    k->trans = g_new0(uint64_t, (size_t)ns * DCE_COUNT);
    k->cpu = sim_port(c, "cpu_side", 0);
    k->net = sim_port(c, "net", 0);
    if (!k->cpu || !k->net) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "cpu_side and net must be connected");
        return false;
    }
    coh_class_init(&k->mc, lines);
    if (k->p.classify)
        mem_writes_enable(c->sim);
    return true;
}

static void dc_finalize(Component *c)
{
    Dc *k = (Dc *)c;
    if (k->frames) {
        for (uint32_t i = 0; i < k->nframes; i++)
            for (Msg *m = k->frames[i].dhead; m; m = m->next_free)
                dir_data_free(m);       /* the messages themselves go with the pool */
    }
    g_free(k->cell);
    g_free(k->frames);
    if (k->ts.pages)
        tag_free(&k->ts);
    g_free(k->wb_tag);
    g_free(k->data);
    g_free(k->trans);
    coh_class_free(&k->mc);
}

static void dc_dump(Component *c, GString *out)
{
    Dc *k = (Dc *)c;
    g_string_append_printf(out, "  protocol %s, cache %u, %u ops waiting for a frame, "
                           "%u messages deferred\n", k->proto->name, k->id, k->waiting,
                           k->deferred);
    coh_atomics_dump(&k->at, out);
    for (uint32_t i = 0; i < k->nframes; i++) {
        DcFrame *f = &k->frames[i];
        if (f->state == k->inv || (k->proto->cstates[f->state].stable && !f->head && !f->dhead))
            continue;
        int ops = 0;
        for (Msg *m = f->head; m; m = m->next_free)
            ops++;
        g_string_append_printf(out, "  line 0x%" G_GINT64_MODIFIER "x: %s, acks %d", f->block,
                               sname(k, f->state), f->acks);
        if (f->issued)
            g_string_append_printf(out, ", request outstanding since cycle %" G_GUINT64_FORMAT,
                                   clock_cycle(k->base.clk, f->miss_start));
        if (ops)
            g_string_append_printf(out, ", %d core op%s waiting", ops, ops > 1 ? "s" : "");
        for (Msg *m = f->dhead; m; m = m->next_free)
            g_string_append_printf(out, "%s%s from %u", m == f->dhead ? ", deferred: " : ", ",
                                   dir_msg_names[dir_msg_type(m)], noc_msg_src(m));
        g_string_append_c(out, '\n');
    }
}

static bool dc_busy(const Component *c)
{
    const Dc *k = (const Dc *)c;
    if (k->waiting || k->deferred)
        return true;
    for (uint32_t i = 0; i < k->nframes; i++)
        if (k->frames[i].head)
            return true;
    return false;
}

/* Per message type (only the types this protocol's cache rows send or receive), then gem5's
 * Ruby names: <Controller>.<Event> and <Controller>.<State>.<Event> for every row. */
/* A warm-up or ROI reset: the per-type message counts restart in place, as the msgs_sent and
 * msgs_received formulas sum them (the other counts of extra_stats are rebased by the stats
 * layer). Pure statistics: nothing reads them. */
static void dc_stats_reset(Component *c)
{
    Dc *k = (Dc *)c;
    memset(k->sent, 0, sizeof k->sent);
    memset(k->received, 0, sizeof k->received);
}

static void dc_extra_stats(const Component *c, StatSet *out)
{
    const Dc *k = (const Dc *)c;
    const DirProtocol *p = k->proto;
    bool sends[DM_COUNT] = { false }, gets[DM_COUNT] = { false }, used[DCE_COUNT] = { false };
    static const int ev_msg[DCE_COUNT] = {
        [DCE_LOAD] = -1, [DCE_STORE] = -1, [DCE_REPLACEMENT] = -1,
        [DCE_FWD_GETS] = DM_FWD_GETS, [DCE_FWD_GETM] = DM_FWD_GETM, [DCE_INV] = DM_INV,
        [DCE_PUT_ACK] = DM_PUT_ACK, [DCE_DATA_DIR_ACK0] = DM_DATA, [DCE_DATA_DIR_ACKS] = DM_DATA,
        [DCE_DATA_DIR_EXCL] = DM_DATA, [DCE_DATA_OWNER] = DM_DATA, [DCE_INV_ACK] = DM_INV_ACK,
        [DCE_LAST_INV_ACK] = DM_INV_ACK,
    };
    for (int r = 0; r < p->ncrows; r++) {
        uint32_t a = p->crows[r].actions;
        sends[DM_GETS] |= (a & CA_SEND_GETS) != 0;
        sends[DM_GETM] |= (a & CA_SEND_GETM) != 0;
        sends[DM_PUTS] |= (a & CA_SEND_PUTS) != 0;
        sends[DM_PUTM] |= (a & CA_SEND_PUTM) != 0;
        sends[DM_PUTE] |= (a & CA_SEND_PUTE) != 0;
        sends[DM_DATA] |= (a & (CA_DATA_TO_REQ | CA_DATA_TO_DIR)) != 0;
        sends[DM_INV_ACK] |= (a & CA_INV_ACK) != 0;
        int e = p->crows[r].event;
        used[e] = true;
        if (ev_msg[e] >= 0)
            gets[ev_msg[e]] = true;
    }
    for (int t = 0; t < DM_COUNT; t++) {
        if (!sends[t])
            continue;
        char *n = g_strdup_printf("%s.msgs.%s", c->name, dir_msg_names[t]);
        stats_add_u64(out, n, k->sent[t], "count", "messages of this type sent");
        g_free(n);
    }
    for (int t = 0; t < DM_COUNT; t++) {
        if (!gets[t])
            continue;
        char *n = g_strdup_printf("%s.msgs_received.%s", c->name, dir_msg_names[t]);
        stats_add_u64(out, n, k->received[t], "count", "messages of this type received");
        g_free(n);
    }
    for (int e = 0; e < DCE_COUNT; e++) {
        if (!used[e])
            continue;
        char *n = g_strdup_printf("%s.L1Cache_Controller.%s", c->name, dir_cache_event_names[e]);
        stats_add_u64(out, n, k->events[e], "count", "events of this kind");
        g_free(n);
    }
    for (int r = 0; r < p->ncrows; r++) {
        const DirRow *row = &p->crows[r];
        char *n = g_strdup_printf("%s.L1Cache_Controller.%s.%s", c->name,
                                  p->cstates[row->state].name, dir_cache_event_names[row->event]);
        char *d = g_strdup_printf("transitions %s -> %s%s", p->cstates[row->state].name,
                                  p->cstates[row->next].name,
                                  (row->actions & CA_STALL) ? " (stall)" : "");
        stats_add_u64(out, n, k->trans[row->state * DCE_COUNT + row->event], "count", d);
        g_free(n);
        g_free(d);
    }
}

/* What its trace events mean to the teaching view (`run --teach`). */
static const TeachEvent dc_teach_events[] = {
    { "state", TEACH_STATE }, { "miss", TEACH_MISS },
    TEACH_EVENTS_END,
};

const ComponentClass dir_cache_class = {
    .name = "dir-cache",
    .doc = "private L1 cache controller interpreting a directory protocol's cache table",
    .size = sizeof(Dc),
    .params_offset = offsetof(Dc, p),
    .params = dc_params,
    .ports = dc_ports,
    .stats = dc_stats,
    .realize = dc_realize,
    .footprint = dc_footprint,
    .recv = dc_recv,
    .dump = dc_dump,
    .busy = dc_busy,
    .finalize = dc_finalize,
    .extra_stats = dc_extra_stats,
    .stats_reset = dc_stats_reset,
    .teach_events = dc_teach_events,
};
