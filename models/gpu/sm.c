/* sm.c: a streaming multiprocessor driven by SASS traces, after GPGPU-Sim's shader core as
 * Accel-Sim runs it (Khairy et al., ISCA 2020; docs/gpu.md, "The SM"): sub-cores, each with a
 * warp scheduler, per-warp instruction buffers filled by a fetch/decode stage, a scoreboard of
 * pending register writes, register-file banks read by an operand collector, and pipelines per
 * functional-unit class with a latency and an initiation interval. Thread blocks arrive from
 * the block scheduler (gpu-workload) and leave when their last warp has finished; BAR.SYNC holds
 * a block's warps until all that are still running arrive. Until the memory side exists, loads
 * and stores see fixed latencies by space (global/local, shared, constant).
 *
 *   per cycle:  writeback (pending writes due now clear the scoreboard)
 *               for each sub-core: pick the first ready warp in the scheduler's order and issue
 *               one instruction; refill one warp's instruction buffer
 *               classify every other resident warp's cycle (Nsight Compute's stall reasons)
 *
 * Warp w of the SM (its slot) belongs to sub-core w % subcores, as in GPGPU-Sim.
 */
#include "gpu.h"

#include <string.h>

#include "../../sim/component.h"
#include "../../sim/error.h"
#include "coalesce.h"
#include "gpumsg.h"
#include "occupancy.h"
#include "sm.h"

#define SM_RING 1024u                /* cycles of pending writebacks; latencies stay below */
#define SM_MAX_WARPS 64
#define SM_MAX_SUBCORES 8
#define SM_MAX_CTAS 32

typedef enum { SCHED_LRR, SCHED_GTO, SCHED_TWO_LEVEL } SchedKind;

typedef struct {
    uint64_t cc, subcores, ibuffer, scheduler, two_level_active, reg_banks;
    uint64_t lat[GPU_UNIT_COUNT], ii[GPU_UNIT_COUNT];
    uint64_t global_latency, shared_latency, const_latency;
} SmParams;

/* Registers a warp may wait on, as bit numbers: R0-R255 0..255, UR0-UR63 256..319, P0-P7
 * 320..327, UP0-UP7 328..335 (RZ, URZ, PT and UPT are never written). */
#define SB_WORDS 6
typedef struct {
    uint64_t w[SB_WORDS];
} RegSet;

typedef struct Cta Cta;

typedef struct {
    const SassInst *insts;
    uint32_t n, fetched, issued;  /* instructions, fetched into the buffer, issued */
    uint32_t inflight;            /* issued instructions whose result is not written yet */
    uint64_t age;                 /* launch order, for GTO */
    Cta *cta;
    uint8_t subcore;
    bool resident, at_bar, finished;
    bool demoted;                 /* two-level: in the pending set */
    /* a status that only a writeback, a barrier's release or the warp's own issue or fetch can
     * change (a scoreboard wait, the barrier, the drain) is kept until one of those happens */
    bool st_valid;
    uint8_t st_cache;
    RegSet pend, pend_long, pend_mio;   /* pending writes, and which come from memory / MIO */
} Warp;

struct Cta {
    GpuCta *g;
    uint64_t launched;            /* cycle it arrived (its slice in the dumps) */
    Port *from;                   /* the port it came in on (to answer) */
    uint32_t warps, live, at_bar; /* warps, warps not finished, warps waiting at the barrier */
    uint16_t slot[32];
    bool used;
};

typedef struct {
    uint16_t warp;
    uint8_t n;
    uint8_t kind;                 /* 0 fixed, 1 long (global/local), 2 MIO (shared, SFU, ...) */
    uint16_t bit[8];
} Release;

/* Pending writebacks: one list per cycle of the ring (FIFO), nodes from one pool per SM. */
#define REL_NONE UINT32_MAX
typedef struct {
    Release r;
    uint32_t next;
} RelNode;

typedef enum {
    ST_SELECTED, ST_NOT_SELECTED, ST_NO_INSTRUCTION, ST_BARRIER, ST_LONG_SB, ST_SHORT_SB,
    ST_WAIT, ST_MATH_THROTTLE, ST_LG_THROTTLE, ST_MIO_THROTTLE, ST_DRAIN, ST_COUNT
} StallReason;

static const char *const stall_names[ST_COUNT] = {
    "selected", "not_selected", "no_instruction", "barrier", "long_scoreboard",
    "short_scoreboard", "wait", "math_pipe_throttle", "lg_throttle", "mio_throttle", "drain",
};

typedef struct {
    Component base;
    SmParams p;
    const GpuCcLimits *lim;
    Warp warp[SM_MAX_WARPS];
    uint32_t max_warps;
    Cta cta[SM_MAX_CTAS];
    uint32_t ctas, resident_warps;
    uint64_t next_age;
    /* per sub-core: its warps in launch order, the scheduler's pointer, units */
    uint16_t sc_warps[SM_MAX_SUBCORES][SM_MAX_WARPS];
    uint32_t sc_n[SM_MAX_SUBCORES];
    uint32_t sc_last[SM_MAX_SUBCORES];    /* LRR: position last issued; GTO: warp last issued + 1 */
    uint32_t sc_fetch[SM_MAX_SUBCORES];   /* fetch round-robin position */
    uint64_t unit_free[SM_MAX_SUBCORES][GPU_UNIT_COUNT];  /* cycle the pipeline takes the next */
    uint32_t ring_head[SM_RING], ring_tail[SM_RING];
    RelNode *rel;
    uint32_t rel_n, rel_cap, rel_free;
    uint64_t pending_releases;
    /* idle cycles are skipped: when no warp can issue, fetch has nothing to do and every warp
     * waits on a write or a barrier, nothing changes before the next writeback (or a block's
     * arrival, which wakes the SM); the skipped cycles are counted at the next tick with the
     * reasons of the last one, so the statistics are those of ticking every cycle */
    uint64_t last_cycle;                  /* the last cycle ticked */
    bool frozen;                          /* the cycles after last_cycle repeat its reasons */
    uint32_t frozen_stall[ST_COUNT];
    uint32_t frozen_warps;
    /* per-cycle dumps (--trace): a track per warp slot, "smN.warp[W]" */
    int warp_track[SM_MAX_WARPS];
    /* stats */
    uint64_t warp_insts, thread_insts, ctas_done, active_cycles, warp_cycles, issue_slots;
    uint64_t stall[ST_COUNT], unit_insts[GPU_UNIT_COUNT], bank_conflicts, barriers;
    uint64_t gld_req, gld_sect, gst_req, gst_sect, smem_wave, smem_conflicts;
} Sm;

static const char *const sched_choices[] = { "lrr", "gto", "two_level", NULL };

#define UNIT_PARAMS(u, nm, dlat, dii)                                                           \
    { .name = nm "_latency", .type = PARAM_UINT, .def = dlat, .flags = PARAM_F_RANGE, .min = 1,   \
      .max = SM_RING - 64, .doc = "cycles from issue to result of a " nm " instruction",         \
      .offset = offsetof(SmParams, lat) + (u) * sizeof(uint64_t) },                            \
    { .name = nm "_interval", .type = PARAM_UINT, .def = dii, .flags = PARAM_F_RANGE, .min = 1,   \
      .max = 1024, .doc = "initiation interval: cycles before a sub-core's " nm " pipeline "    \
      "takes the next warp instruction", .offset = offsetof(SmParams, ii) + (u) * sizeof(uint64_t) }

static const ParamSpec sm_params[] = {
    { .name = "cc", .type = PARAM_UINT, .def = "80", .flags = PARAM_F_RANGE, .min = 70, .max = 90,
      .doc = "compute capability x 10 (70, 75, 80, 86, 89, 90): the SM's warp, block, register "
             "and shared-memory limits (docs/gpu.md, \"Occupancy\")",
      .offset = offsetof(SmParams, cc) },
    { .name = "subcores", .type = PARAM_UINT, .def = "4", .flags = PARAM_F_RANGE, .min = 1,
      .max = SM_MAX_SUBCORES, .doc = "processing blocks (sub-cores), each with a warp scheduler "
      "and its own pipelines", .offset = offsetof(SmParams, subcores) },
    { .name = "scheduler", .type = PARAM_ENUM, .def = "lrr", .choices = sched_choices,
      .doc = "warp scheduler: lrr (loose round robin), gto (greedy then oldest), two_level",
      .offset = offsetof(SmParams, scheduler) },
    { .name = "two_level_active", .type = PARAM_UINT, .def = "4", .flags = PARAM_F_RANGE, .min = 1,
      .max = SM_MAX_WARPS, .doc = "two_level: warps per scheduler in the active set",
      .offset = offsetof(SmParams, two_level_active) },
    { .name = "ibuffer", .type = PARAM_UINT, .def = "2", .flags = PARAM_F_RANGE, .min = 1,
      .max = 16, .doc = "decoded instructions buffered per warp (one warp per sub-core is "
      "refilled each cycle)", .offset = offsetof(SmParams, ibuffer) },
    { .name = "reg_banks", .type = PARAM_UINT, .def = "2", .flags = PARAM_F_RANGE, .min = 0,
      .max = 64, .doc = "register-file banks per sub-core read by the operand collector, one "
      "read per bank per cycle (register r of warp w in bank (r + w) mod banks); 0: no "
      "collector, operands are free", .offset = offsetof(SmParams, reg_banks) },
    UNIT_PARAMS(GPU_UNIT_INT, "int", "4", "2"),
    UNIT_PARAMS(GPU_UNIT_FP32, "fp32", "4", "2"),
    UNIT_PARAMS(GPU_UNIT_FP16, "fp16", "4", "2"),
    UNIT_PARAMS(GPU_UNIT_FP64, "fp64", "8", "4"),
    UNIT_PARAMS(GPU_UNIT_SFU, "sfu", "20", "8"),
    UNIT_PARAMS(GPU_UNIT_TENSOR, "tensor", "32", "8"),
    UNIT_PARAMS(GPU_UNIT_LDST, "ldst", "4", "1"),
    UNIT_PARAMS(GPU_UNIT_TEX, "tex", "200", "4"),
    UNIT_PARAMS(GPU_UNIT_BRANCH, "branch", "4", "2"),
    UNIT_PARAMS(GPU_UNIT_BARRIER, "barrier", "4", "2"),
    UNIT_PARAMS(GPU_UNIT_UNIFORM, "uniform", "2", "1"),
    { .name = "global_latency", .type = PARAM_UINT, .def = "400", .flags = PARAM_F_RANGE, .min = 1,
      .max = SM_RING - 64, .doc = "cycles a global or local load takes (the fixed-latency memory "
      "until the memory side exists)", .offset = offsetof(SmParams, global_latency) },
    { .name = "shared_latency", .type = PARAM_UINT, .def = "30", .flags = PARAM_F_RANGE, .min = 1,
      .max = SM_RING - 64, .doc = "cycles a shared-memory load takes",
      .offset = offsetof(SmParams, shared_latency) },
    { .name = "const_latency", .type = PARAM_UINT, .def = "20", .flags = PARAM_F_RANGE, .min = 1,
      .max = SM_RING - 64, .doc = "cycles a constant load (LDC, ULDC) takes",
      .offset = offsetof(SmParams, const_latency) },
    PARAM_END,
};

static const PortSpec sm_ports[] = {
    { .name = "ctrl", .role = PORT_RESPONDER, .required = true,
      .doc = "thread blocks from the block scheduler (gpu-workload), answered when done" },
    PORT_END,
};

#define S(x) ((const Sm *)(x))
static double f_ipc(const Component *c)
{
    return stats_ratio((double)S(c)->warp_insts, (double)S(c)->active_cycles);
}
static double f_occ(const Component *c)
{
    return stats_ratio((double)S(c)->warp_cycles, (double)S(c)->active_cycles * S(c)->max_warps);
}

#define STALL_STAT(i, n)                                                                        \
    { "stall_" n, STAT_COUNTER, "warp-cycle", "warp-cycles with this Nsight Compute reason "     \
      "(docs/gpu.md, \"Stall reasons\")", offsetof(Sm, stall) + (i) * sizeof(uint64_t), NULL }
#define UNIT_STAT(i, n)                                                                         \
    { "insts_" n, STAT_COUNTER, "count", "warp instructions issued to this unit class",         \
      offsetof(Sm, unit_insts) + (i) * sizeof(uint64_t), NULL }

static const StatSpec sm_stats[] = {
    { "warp_insts", STAT_COUNTER, "count", "warp instructions issued (mask 0 included)",
      offsetof(Sm, warp_insts), NULL },
    { "thread_insts", STAT_COUNTER, "count", "thread instructions (active lanes of each)",
      offsetof(Sm, thread_insts), NULL },
    { "ctas", STAT_COUNTER, "count", "thread blocks run to completion", offsetof(Sm, ctas_done),
      NULL },
    { "active_cycles", STAT_COUNTER, "cycle", "cycles with at least one resident warp",
      offsetof(Sm, active_cycles), NULL },
    { "warp_cycles", STAT_COUNTER, "warp-cycle", "resident warps summed over active cycles",
      offsetof(Sm, warp_cycles), NULL },
    { "issue_slots", STAT_COUNTER, "count", "scheduler issue slots while active (subcores per "
      "cycle)", offsetof(Sm, issue_slots), NULL },
    { "warp_ipc", STAT_FORMULA, "ratio", "warp_insts / active_cycles", 0, f_ipc },
    { "achieved_occupancy", STAT_FORMULA, "ratio", "warp_cycles / (active_cycles x max warps)", 0,
      f_occ },
    { "barriers", STAT_COUNTER, "count", "BAR.SYNC releases (a block's warps all arrived)",
      offsetof(Sm, barriers), NULL },
    { "reg_bank_conflicts", STAT_COUNTER, "cycle", "operand-collector cycles lost to two reads "
      "of one bank", offsetof(Sm, bank_conflicts), NULL },
    { "global_load_requests", STAT_COUNTER, "count", "128-byte lines global and local loads "
      "touched, one per line per instruction (the coalescer's requests)", offsetof(Sm, gld_req),
      NULL },
    { "global_load_sectors", STAT_COUNTER, "count", "32-byte sectors global and local loads "
      "touched", offsetof(Sm, gld_sect), NULL },
    { "global_store_requests", STAT_COUNTER, "count", "128-byte lines global and local stores "
      "and reductions touched", offsetof(Sm, gst_req), NULL },
    { "global_store_sectors", STAT_COUNTER, "count", "32-byte sectors they touched",
      offsetof(Sm, gst_sect), NULL },
    { "shared_wavefronts", STAT_COUNTER, "cycle", "shared-memory bank cycles: per instruction "
      "the most distinct 4-byte words one bank delivers", offsetof(Sm, smem_wave), NULL },
    { "shared_bank_conflicts", STAT_COUNTER, "cycle", "shared_wavefronts minus the ideal (distinct "
      "words / 32, rounded up) per instruction", offsetof(Sm, smem_conflicts), NULL },
    STALL_STAT(ST_SELECTED, "selected"), STALL_STAT(ST_NOT_SELECTED, "not_selected"),
    STALL_STAT(ST_NO_INSTRUCTION, "no_instruction"), STALL_STAT(ST_BARRIER, "barrier"),
    STALL_STAT(ST_LONG_SB, "long_scoreboard"), STALL_STAT(ST_SHORT_SB, "short_scoreboard"),
    STALL_STAT(ST_WAIT, "wait"), STALL_STAT(ST_MATH_THROTTLE, "math_pipe_throttle"),
    STALL_STAT(ST_LG_THROTTLE, "lg_throttle"), STALL_STAT(ST_MIO_THROTTLE, "mio_throttle"),
    STALL_STAT(ST_DRAIN, "drain"),
    UNIT_STAT(GPU_UNIT_INT, "int"), UNIT_STAT(GPU_UNIT_FP32, "fp32"),
    UNIT_STAT(GPU_UNIT_FP16, "fp16"), UNIT_STAT(GPU_UNIT_FP64, "fp64"),
    UNIT_STAT(GPU_UNIT_SFU, "sfu"), UNIT_STAT(GPU_UNIT_TENSOR, "tensor"),
    UNIT_STAT(GPU_UNIT_LDST, "ldst"), UNIT_STAT(GPU_UNIT_TEX, "tex"),
    UNIT_STAT(GPU_UNIT_BRANCH, "branch"), UNIT_STAT(GPU_UNIT_BARRIER, "barrier"),
    UNIT_STAT(GPU_UNIT_UNIFORM, "uniform"), UNIT_STAT(GPU_UNIT_UNKNOWN, "unknown"),
    STAT_END,
};

const char *sm_stall_name(unsigned i) { return i < ST_COUNT ? stall_names[i] : NULL; }
unsigned sm_stall_count(void) { return ST_COUNT; }

static bool sm_realize(Component *c, GError **error)
{
    Sm *k = (Sm *)c;
    k->lim = gpu_cc_limits((uint32_t)k->p.cc);
    if (!k->lim)
        return sim_component_reject(c, "cc", error, "cc %" G_GUINT64_FORMAT ": archsim knows "
                                    "70, 75, 80, 86, 89 and 90", k->p.cc);
    k->max_warps = k->lim->max_warps;
    for (uint32_t i = 0; i < SM_RING; i++)
        k->ring_head[i] = k->ring_tail[i] = REL_NONE;
    k->rel_free = REL_NONE;
    if (k->max_warps % k->p.subcores)
        return sim_component_reject(c, "subcores", error, "%u warps per SM do not divide among %"
                                    G_GUINT64_FORMAT " sub-cores", k->max_warps, k->p.subcores);
    return true;
}

/* With a dump open, every warp slot gets its own track: an event each cycle saying what the
 * warp did (issue, with the instruction) or why it did not (its stall reason). */
static void sm_start(Component *c)
{
    Sm *k = (Sm *)c;
    for (uint32_t i = 0; i < SM_MAX_WARPS; i++)
        k->warp_track[i] = -1;
    if (!c->sim->trace || c->trace_track < 0)
        return;
    for (uint32_t i = 0; i < k->max_warps; i++) {
        char *name = g_strdup_printf("%s.warp[%u]", c->name, i);
        k->warp_track[i] = trace_register(c->sim->trace, name);
        g_free(name);
    }
}

/* The oldest block still resident starts the earliest slice the SM may yet report. */
static void sm_hold(Sm *k)
{
    uint64_t oldest = UINT64_MAX;
    for (uint32_t i = 0; i < SM_MAX_CTAS; i++)
        if (k->cta[i].used && k->cta[i].launched < oldest)
            oldest = k->cta[i].launched;
    SIM_TRACE_HOLD(&k->base, oldest);
}

static void sm_finalize(Component *c)
{
    Sm *k = (Sm *)c;
    g_free(k->rel);
}

uint32_t sm_cc(const Component *c) { return (uint32_t)S(c)->p.cc; }

/* ---- registers ---- */

static inline int reg_bit(uint16_t r)
{
    unsigned kind = r >> 8, n = r & 0xff;
    switch (kind) {
    case SASS_REG_R:
        return n == 255 ? -1 : (int)n;
    case SASS_REG_UR:
        return n == 63 ? -1 : 256 + (int)n;
    case SASS_REG_P:
        return n == 7 ? -1 : 320 + (int)n;
    default:
        return n == 7 ? -1 : 328 + (int)n;
    }
}
static inline bool rs_has(const RegSet *s, int b) { return b >= 0 && (s->w[b >> 6] >> (b & 63) & 1); }
static inline void rs_set(RegSet *s, int b) { s->w[b >> 6] |= 1ull << (b & 63); }
static inline void rs_clear(RegSet *s, int b) { s->w[b >> 6] &= ~(1ull << (b & 63)); }

/* The registers an instruction writes: its listed destinations, the first widened to the 2 or
 * 4 registers that .WIDE and 64/128-bit loads write (the trace lists one). */
static uint32_t dst_bits(const Sm *k, const Warp *w, const SassInst *in, uint16_t out[8])
{
    (void)k;
    uint32_t n = 0;
    for (uint32_t i = 0; i < in->ndst && n < 8; i++) {
        int b = reg_bit(in->dst[i]);
        if (b < 0)
            continue;
        uint32_t span = 1;
        if (i == 0 && (in->dst[0] >> 8) == SASS_REG_R) {
            const GpuKernelCtx *kc = w->cta->g->kc;
            if (kc->op_flags[in->op] & GPU_OPF_WIDE)
                span = 2;
            else if (in->width >= 8 && in->unit == GPU_UNIT_LDST)
                span = in->width / 4;
        }
        for (uint32_t j = 0; j < span && n < 8 && b + (int)j < 255; j++)
            out[n++] = (uint16_t)(b + (int)j);
    }
    return n;
}

/* ---- issue ---- */

/* Why w cannot issue now (or ST_SELECTED if it can). */
static StallReason warp_status(const Sm *k, const Warp *w, uint64_t now)
{
    if (w->at_bar)
        return ST_BARRIER;
    if (w->issued == w->n)
        return ST_DRAIN;
    if (w->fetched == w->issued)
        return ST_NO_INSTRUCTION;
    const SassInst *in = &w->insts[w->issued];
    /* RAW on sources, WAW on destinations */
    StallReason dep = ST_SELECTED;
    for (uint32_t i = 0; i < in->nsrc + in->ndst; i++) {
        int b = reg_bit(i < in->nsrc ? in->src[i] : in->dst[i - in->nsrc]);
        if (!rs_has(&w->pend, b))
            continue;
        StallReason r = rs_has(&w->pend_long, b) ? ST_LONG_SB
                      : rs_has(&w->pend_mio, b) ? ST_SHORT_SB : ST_WAIT;
        if (dep == ST_SELECTED || r == ST_LONG_SB || (r == ST_SHORT_SB && dep == ST_WAIT))
            dep = r;
    }
    if (dep != ST_SELECTED)
        return dep;
    unsigned u = in->unit == GPU_UNIT_UNKNOWN ? GPU_UNIT_INT : in->unit;
    if (k->unit_free[w->subcore][u] > now) {
        if (u == GPU_UNIT_LDST)
            return in->space == SASS_SPACE_SHARED || in->space == SASS_SPACE_CONST
                       ? ST_MIO_THROTTLE : ST_LG_THROTTLE;
        return u == GPU_UNIT_SFU || u == GPU_UNIT_TEX ? ST_MIO_THROTTLE : ST_MATH_THROTTLE;
    }
    return ST_SELECTED;
}

static void ring_push(Sm *k, uint64_t at, const Release *r)
{
    uint32_t i = k->rel_free;
    if (i != REL_NONE) {
        k->rel_free = k->rel[i].next;
    } else {
        if (k->rel_n == k->rel_cap) {
            k->rel_cap = k->rel_cap ? k->rel_cap * 2 : 64;
            k->rel = g_renew(RelNode, k->rel, k->rel_cap);
        }
        i = k->rel_n++;
    }
    k->rel[i].r = *r;
    k->rel[i].next = REL_NONE;
    uint32_t b = (uint32_t)(at % SM_RING);
    if (k->ring_tail[b] == REL_NONE)
        k->ring_head[b] = i;
    else
        k->rel[k->ring_tail[b]].next = i;
    k->ring_tail[b] = i;
    k->pending_releases++;
}

static void cta_maybe_done(Sm *k, Cta *t);

/* BAR.SYNC: when every warp of t that has not finished waits at the barrier, all go on. */
static void barrier_check(Sm *k, Cta *t)
{
    if (t->at_bar == 0 || t->at_bar != t->live)
        return;
    for (uint32_t i = 0; i < t->warps; i++)
        k->warp[t->slot[i]].at_bar = k->warp[t->slot[i]].st_valid = false;
    t->at_bar = 0;
    k->barriers++;
}

static void warp_check_finished(Sm *k, uint32_t wi)
{
    Warp *w = &k->warp[wi];
    if (w->finished || w->issued < w->n || w->inflight > 0)
        return;
    w->finished = true;
    Cta *t = w->cta;
    t->live--;
    barrier_check(k, t);          /* a barrier the others wait at may now be complete */
    cta_maybe_done(k, t);
}

/* Operand-collector cycles for in's sources: one read per bank per cycle. */
static uint32_t operand_cycles(Sm *k, uint32_t wi, const SassInst *in)
{
    if (k->p.reg_banks == 0)
        return 0;
    uint8_t per_bank[64] = { 0 };
    uint32_t worst = 0;
    for (uint32_t i = 0; i < in->nsrc; i++) {
        uint16_t r = in->src[i];
        if ((r >> 8) != SASS_REG_R || (r & 0xff) == 255)
            continue;
        bool again = false;               /* a register named twice is read once */
        for (uint32_t j = 0; j < i; j++)
            again |= in->src[j] == r;
        if (again)
            continue;
        uint32_t bank = ((r & 0xff) + wi) % (uint32_t)k->p.reg_banks;
        if (++per_bank[bank] > worst)
            worst = per_bank[bank];
    }
    return worst > 1 ? worst - 1 : 0;
}

static void issue(Sm *k, uint32_t wi, uint64_t now)
{
    Warp *w = &k->warp[wi];
    w->st_valid = false;
    const SassInst *in = &w->insts[w->issued++];
    unsigned u = in->unit;
    k->unit_insts[u]++;
    if (u == GPU_UNIT_UNKNOWN)
        u = GPU_UNIT_INT;
    k->warp_insts++;
    k->thread_insts += (uint64_t)__builtin_popcount(in->mask);
    k->unit_free[w->subcore][u] = now + k->p.ii[u];
    uint32_t extra = operand_cycles(k, wi, in);
    k->bank_conflicts += extra;
    const GpuKernelCtx *kc = w->cta->g->kc;
    if ((kc->op_flags[in->op] & GPU_OPF_BAR_SYNC) && in->mask != 0) {
        Cta *t = w->cta;
        w->at_bar = true;
        t->at_bar++;
        barrier_check(k, t);
    }
    /* memory: the coalescer's sectors for global and local accesses; shared memory holds the
     * load/store pipeline one cycle per bank wavefront (replays) and adds them to the latency */
    uint32_t replay = 0;
    if (u == GPU_UNIT_LDST && in->width > 0 && in->mask != 0) {
        const uint64_t *a = w->cta->g->b.addrs + in->addr;
        uint32_t width = MIN((uint32_t)in->width, 16u);
        SassSpace sp = (SassSpace)in->space;
        if (sp == SASS_SPACE_GENERIC)
            sp = sass_generic_space(kc->k, a[0]);
        if (sp == SASS_SPACE_SHARED) {
            GpuSmemCost cost = gpu_smem_cost(a, in->mask, width);
            k->smem_wave += cost.wavefronts;
            k->smem_conflicts += cost.wavefronts - cost.ideal;
            replay = cost.wavefronts > 1 ? cost.wavefronts - 1 : 0;
            if (k->p.ii[u] < cost.wavefronts)
                k->unit_free[w->subcore][u] = now + cost.wavefronts;
        } else if (sp == SASS_SPACE_GLOBAL || sp == SASS_SPACE_LOCAL) {
            GpuLineAccess acc[64];
            uint32_t na = gpu_coalesce(a, in->mask, width, acc);
            if (in->ndst > 0) {
                k->gld_req += na;
                k->gld_sect += gpu_sectors(acc, na);
            } else {
                k->gst_req += na;
                k->gst_sect += gpu_sectors(acc, na);
            }
        }
    }
    uint16_t bits[8];
    uint32_t nb = in->mask ? dst_bits(k, w, in, bits) : 0;   /* predicated off: writes nothing */
    if (nb > 0) {
        uint64_t lat = k->p.lat[u];
        uint8_t kind = 0;
        if (u == GPU_UNIT_LDST && in->width > 0) {
            switch (in->space) {
            case SASS_SPACE_SHARED:
                lat = k->p.shared_latency, kind = 2;
                break;
            case SASS_SPACE_CONST:
                lat = k->p.const_latency, kind = 2;
                break;
            default:
                lat = k->p.global_latency, kind = 1;
                break;
            }
        } else if (u == GPU_UNIT_LDST && in->space == SASS_SPACE_CONST) {
            lat = k->p.const_latency, kind = 2;      /* LDC: no addresses in the trace */
        } else if (u == GPU_UNIT_SFU || u == GPU_UNIT_TEX) {
            kind = u == GPU_UNIT_TEX ? 1 : 2;
        }
        lat += extra + replay;         /* operand-collector and bank-conflict cycles */
        Release r = { .warp = (uint16_t)wi, .n = (uint8_t)nb, .kind = kind };
        for (uint32_t i = 0; i < nb; i++) {
            r.bit[i] = bits[i];
            rs_set(&w->pend, bits[i]);
            if (kind == 1)
                rs_set(&w->pend_long, bits[i]);
            else if (kind == 2)
                rs_set(&w->pend_mio, bits[i]);
        }
        w->inflight++;
        ring_push(k, now + lat, &r);
    }
    warp_check_finished(k, wi);
}

/* The scheduler of sub-core sc: the warp to issue, or -1. status[] holds each warp's state. */
static int pick(Sm *k, uint32_t sc, const StallReason *status)
{
    uint32_t n = k->sc_n[sc];
    const uint16_t *ws = k->sc_warps[sc];
    switch ((SchedKind)k->p.scheduler) {
    case SCHED_GTO: {
        uint32_t last = k->sc_last[sc];
        if (last > 0 && status[last - 1] == ST_SELECTED && k->warp[last - 1].resident &&
            k->warp[last - 1].subcore == sc)
            return (int)(last - 1);
        for (uint32_t i = 0; i < n; i++)        /* in launch order: oldest first */
            if (status[ws[i]] == ST_SELECTED)
                return ws[i];
        return -1;
    }
    case SCHED_TWO_LEVEL: {
        /* the active set: the first two_level_active warps (launch order) that are neither
         * demoted (waiting on a long-latency load) nor finished; loose round robin among them,
         * after the warp issued last */
        uint16_t act[SM_MAX_WARPS];
        uint32_t na = 0;
        for (uint32_t i = 0; i < n && na < k->p.two_level_active; i++) {
            const Warp *w = &k->warp[ws[i]];
            if (!w->demoted && !w->finished)
                act[na++] = ws[i];
        }
        uint32_t start = 0;
        for (uint32_t i = 0; i < na; i++)
            if (act[i] + 1u == k->sc_last[sc])
                start = i + 1;
        for (uint32_t j = 0; j < na; j++) {
            uint16_t wi = act[(start + j) % na];
            if (status[wi] == ST_SELECTED)
                return wi;
        }
        return -1;
    }
    case SCHED_LRR:
    default:
        for (uint32_t j = 0; j < n; j++) {
            uint32_t i = (k->sc_last[sc] + 1 + j) % n;
            if (status[ws[i]] == ST_SELECTED) {
                k->sc_last[sc] = i;
                return ws[i];
            }
        }
        return -1;
    }
}

/* Two-level: demote the active warps that wait on long-latency loads, promote others. */
static void two_level_update(Sm *k, uint32_t sc, const StallReason *status)
{
    for (uint32_t i = 0; i < k->sc_n[sc]; i++) {
        Warp *w = &k->warp[k->sc_warps[sc][i]];
        if (status[k->sc_warps[sc][i]] == ST_LONG_SB)
            w->demoted = true;
        else if (w->demoted && status[k->sc_warps[sc][i]] != ST_LONG_SB)
            w->demoted = false;
    }
}

static bool fetch(Sm *k, uint32_t sc)
{
    uint32_t n = k->sc_n[sc];
    for (uint32_t j = 0; j < n; j++) {
        uint32_t i = (k->sc_fetch[sc] + j) % n;
        Warp *w = &k->warp[k->sc_warps[sc][i]];
        if (w->fetched < w->n && w->fetched - w->issued < k->p.ibuffer) {
            w->fetched = (uint32_t)MIN((uint64_t)w->n, (uint64_t)w->issued + k->p.ibuffer);
            w->st_valid = false;
            k->sc_fetch[sc] = i + 1;
            return true;
        }
    }
    return false;
}

/* ---- blocks ---- */

static void sc_remove(Sm *k, uint32_t sc, uint32_t wi)
{
    uint32_t n = k->sc_n[sc];
    for (uint32_t i = 0; i < n; i++)
        if (k->sc_warps[sc][i] == wi) {
            memmove(&k->sc_warps[sc][i], &k->sc_warps[sc][i + 1], (n - i - 1) * sizeof(uint16_t));
            k->sc_n[sc]--;
            if (k->sc_last[sc] >= k->sc_n[sc] && (SchedKind)k->p.scheduler == SCHED_LRR)
                k->sc_last[sc] = k->sc_n[sc] ? k->sc_n[sc] - 1 : 0;
            if (k->sc_fetch[sc] > k->sc_n[sc])
                k->sc_fetch[sc] = 0;
            return;
        }
}

static void cta_maybe_done(Sm *k, Cta *t)
{
    if (t->live > 0)
        return;
    for (uint32_t i = 0; i < t->warps; i++) {
        Warp *w = &k->warp[t->slot[i]];
        sc_remove(k, w->subcore, t->slot[i]);
        w->resident = false;
        k->resident_warps--;
    }
    k->ctas_done++;
    uint64_t now = sim_component_cycle(&k->base);
    SIM_TRACE_AT(&k->base, t->launched, "cta", now - t->launched + 1,
                 TARG_U("kernel", t->g->kc->k->id), TARG_U("x", t->g->b.x), TARG_U("y", t->g->b.y),
                 TARG_U("z", t->g->b.z), TARG_U("warps", t->warps));
    Msg *m = sim_msg_alloc(k->base.sim);
    m->cmd = MSG_GPU_CTA_DONE;
    gpu_msg(m)->cta = t->g;
    Port *back = t->from;
    memset(t, 0, sizeof *t);
    k->ctas--;
    sm_hold(k);
    sim_port_send(&k->base, back, m, 0);
}

static void cta_launch(Sm *k, Port *port, GpuCta *g)
{
    const SassBlock *b = &g->b;
    const SassKernel *kern = g->kc->k;
    uint32_t nw = kern->warps_per_block;
    g_assert(k->ctas < SM_MAX_CTAS && k->resident_warps + nw <= k->max_warps);
    Cta *t = NULL;
    for (uint32_t i = 0; i < SM_MAX_CTAS; i++)
        if (!k->cta[i].used) {
            t = &k->cta[i];
            break;
        }
    g_assert(t);
    *t = (Cta){ .g = g, .from = port, .warps = nw, .live = nw, .used = true,
                .launched = sim_component_cycle(&k->base) };
    k->ctas++;
    sm_hold(k);
    /* warps the trace holds (a warp it lacks ran nothing: it finishes at once) */
    const SassWarp *tw[32] = { 0 };
    for (uint32_t i = 0; i < b->nwarps; i++)
        tw[b->warps[i].warp] = &b->warps[i];
    uint32_t slot = 0;
    for (uint32_t i = 0; i < nw; i++) {
        while (k->warp[slot].resident)
            slot++;
        g_assert(slot < k->max_warps);
        Warp *w = &k->warp[slot];
        memset(w, 0, sizeof *w);
        w->resident = true;
        w->cta = t;
        w->insts = tw[i] ? b->insts + tw[i]->first : NULL;
        w->n = tw[i] ? tw[i]->n : 0;
        w->age = k->next_age++;
        w->subcore = (uint8_t)(slot % k->p.subcores);
        t->slot[i] = (uint16_t)slot;
        k->sc_warps[w->subcore][k->sc_n[w->subcore]++] = (uint16_t)slot;
        k->resident_warps++;
    }
    for (uint32_t i = 0; i < nw; i++)
        warp_check_finished(k, t->slot[i]);
}

static void sm_recv(Component *c, Port *port, Msg *m)
{
    Sm *k = (Sm *)c;
    g_assert(m->cmd == MSG_GPU_CTA_LAUNCH);
    GpuCta *g = gpu_msg(m)->cta;
    sim_msg_free(c->sim, m);
    cta_launch(k, port, g);
    sim_component_wake(c);
}

/* The next cycle after now with writebacks due, or 0 if none is pending. */
static uint64_t next_release(const Sm *k, uint64_t now)
{
    if (k->pending_releases == 0)
        return 0;
    for (uint64_t t = now + 1; t < now + SM_RING; t++)
        if (k->ring_head[t % SM_RING] != REL_NONE)
            return t;
    return 0;
}

static uint64_t sm_tick(Component *c)
{
    Sm *k = (Sm *)c;
    uint64_t now = sim_component_cycle(c);
    if (k->frozen && now > k->last_cycle + 1) {
        uint64_t gap = now - k->last_cycle - 1;
        for (unsigned i = 0; i < ST_COUNT; i++)
            k->stall[i] += gap * k->frozen_stall[i];
        k->active_cycles += gap;
        k->warp_cycles += gap * k->frozen_warps;
        k->issue_slots += gap * k->p.subcores;
    }
    k->frozen = false;
    k->last_cycle = now;
    /* writeback */
    uint32_t b = (uint32_t)(now % SM_RING);
    for (uint32_t i = k->ring_head[b]; i != REL_NONE;) {
        const Release *r = &k->rel[i].r;
        Warp *w = &k->warp[r->warp];
        for (uint32_t j = 0; j < r->n; j++) {
            rs_clear(&w->pend, r->bit[j]);
            rs_clear(&w->pend_long, r->bit[j]);
            rs_clear(&w->pend_mio, r->bit[j]);
        }
        w->inflight--;
        w->st_valid = false;
        k->pending_releases--;
        uint32_t next = k->rel[i].next;
        uint16_t wi = r->warp;
        k->rel[i].next = k->rel_free;       /* back to the pool before anything pushes more */
        k->rel_free = i;
        warp_check_finished(k, wi);
        i = next;
    }
    k->ring_head[b] = k->ring_tail[b] = REL_NONE;
    if (k->resident_warps == 0) {
        uint64_t next = next_release(k, now);
        return next ? next - now : 0;
    }
    k->active_cycles++;
    k->warp_cycles += k->resident_warps;
    k->issue_slots += k->p.subcores;
    StallReason status[SM_MAX_WARPS];
    uint32_t counts[ST_COUNT] = { 0 };
    bool moved = false;
    for (uint32_t sc = 0; sc < k->p.subcores; sc++) {
        for (uint32_t i = 0; i < k->sc_n[sc]; i++) {
            uint32_t wi = k->sc_warps[sc][i];
            Warp *w = &k->warp[wi];
            if (w->finished) {
                status[wi] = ST_COUNT;
            } else if (w->st_valid) {
                status[wi] = (StallReason)w->st_cache;
            } else {
                StallReason st = warp_status(k, w, now);
                status[wi] = st;
                if (st == ST_LONG_SB || st == ST_SHORT_SB || st == ST_WAIT || st == ST_BARRIER ||
                    st == ST_DRAIN) {
                    w->st_cache = (uint8_t)st;
                    w->st_valid = true;
                }
            }
        }
        if ((SchedKind)k->p.scheduler == SCHED_TWO_LEVEL)
            two_level_update(k, sc, status);
        int pickw = pick(k, sc, status);
        for (uint32_t i = 0; i < k->sc_n[sc]; i++) {
            uint32_t wi = k->sc_warps[sc][i];
            StallReason s = status[wi];
            if (s == ST_COUNT)
                continue;
            if (s == ST_SELECTED && (int)wi != pickw)
                s = ST_NOT_SELECTED;
            k->stall[s]++;
            counts[s]++;
            if (G_UNLIKELY(k->warp_track[wi] >= 0) && (int)wi != pickw &&
                trace_window_has(c->sim->trace_opts, now)) {
                const TraceArg a[] = { TARG_X("pc", k->warp[wi].issued < k->warp[wi].n ?
                                                      k->warp[wi].insts[k->warp[wi].issued].pc : 0) };
                trace_emit(c->sim->trace, k->warp_track[wi], now, stall_names[s], 1, a, 1);
            }
        }
        if (pickw >= 0 && G_UNLIKELY(k->warp_track[pickw] >= 0) &&
            trace_window_has(c->sim->trace_opts, now)) {
            const Warp *w = &k->warp[pickw];
            const SassInst *in = &w->insts[w->issued];
            const TraceArg a[] = { TARG_X("pc", in->pc),
                                   TARG_S("op", sass_opcode_text(w->cta->g->kc, in->op)),
                                   TARG_X("mask", in->mask) };
            trace_emit(c->sim->trace, k->warp_track[pickw], now, "issue", 1, a, 3);
        }
        if (pickw >= 0) {
            if ((SchedKind)k->p.scheduler != SCHED_LRR)
                k->sc_last[sc] = (uint32_t)pickw + 1;
            issue(k, (uint32_t)pickw, now);
            moved = true;
        }
        moved |= fetch(k, sc);
    }
    if (moved || k->resident_warps == 0 || G_UNLIKELY(c->trace_track >= 0)) {
        if (k->resident_warps)
            return 1;
        uint64_t next = next_release(k, now);
        return next ? next - now : 0;
    }
    /* nothing moved: if every warp waits on a write, a barrier or its drain, nothing changes
     * before the next writeback */
    if (counts[ST_MATH_THROTTLE] || counts[ST_LG_THROTTLE] || counts[ST_MIO_THROTTLE] ||
        counts[ST_NOT_SELECTED] || counts[ST_SELECTED] || counts[ST_NO_INSTRUCTION])
        return 1;
    uint64_t next = next_release(k, now);
    if (next == 0)
        return 1;                       /* a barrier no write will release: the watchdog's */
    k->frozen = true;
    memcpy(k->frozen_stall, counts, sizeof counts);
    k->frozen_warps = k->resident_warps;
    return next - now;
}

static bool sm_busy(const Component *c) { return S(c)->ctas > 0; }

static void sm_dump(Component *c, GString *out)
{
    Sm *k = (Sm *)c;
    g_string_append_printf(out, "  %u blocks, %u warps resident, %" G_GUINT64_FORMAT
                           " writes pending\n", k->ctas, k->resident_warps, k->pending_releases);
    for (uint32_t i = 0; i < k->max_warps; i++) {
        Warp *w = &k->warp[i];
        if (w->resident && !w->finished)
            g_string_append_printf(out, "  warp %u (sub-core %u): %u of %u issued, %u fetched, %u "
                                   "in flight%s\n", i, w->subcore, w->issued, w->n, w->fetched,
                                   w->inflight, w->at_bar ? ", at the barrier" : "");
    }
}

const ComponentClass gpu_sm_class = {
    .name = "gpu-sm",
    .doc = "GPU streaming multiprocessor run from SASS traces: sub-core warp schedulers, "
           "scoreboard, operand collector, pipelines per unit class",
    .size = sizeof(Sm),
    .params_offset = offsetof(Sm, p),
    .params = sm_params,
    .ports = sm_ports,
    .stats = sm_stats,
    .realize = sm_realize,
    .start = sm_start,
    .tick = sm_tick,
    .recv = sm_recv,
    .dump = sm_dump,
    .busy = sm_busy,
    .finalize = sm_finalize,
};

uint32_t gpu_sm_max_warps(const Component *c) { return S(c)->max_warps; }
