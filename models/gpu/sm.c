/* sm.c: a streaming multiprocessor driven by SASS traces, after GPGPU-Sim's shader core as
 * Accel-Sim runs it (Khairy et al., ISCA 2020; docs/gpu.md, "The SM"): sub-cores, each with a
 * warp scheduler, per-warp instruction buffers filled by a fetch/decode stage, a scoreboard of
 * pending register writes, register-file banks read by an operand collector, and pipelines per
 * functional-unit class with a latency and an initiation interval. Thread blocks arrive from
 * the block scheduler (gpu-workload) and leave when their last warp has finished; BAR.SYNC holds
 * a block's warps until all that are still running arrive.
 *
 * Memory: with the `mem` port linked to the crossbar (system.type gpu), global and local
 * accesses go through the SM's L1 data cache, sectored and write-through, one 128-byte line per
 * cycle, its missed sectors sent to the L2 slice the line hashes to (l2.c); atomics and
 * reductions go to the L2 as they are (performed at its ROP). The L1's capacity is what the
 * unified L1/shared array leaves after the kernel's shared-memory carve-out, chosen per kernel
 * (the smallest step that holds the resident blocks' shared memory, as the driver picks it).
 * Shared memory is banked (coalesce.h); constant loads (LDC, ULDC: no addresses in the trace)
 * are constant-cache hits of const_latency. Without the port, global accesses take
 * global_latency.
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
#include "../cache/tagstore.h"
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
    uint64_t l1_unified, l1_sets, l1_latency, l1_mshrs;
    uint64_t l2_slices, l2_base;
    int l1_repl, l2_hash, memory;
} SmParams;

/* Registers a warp may wait on, as bit numbers: R0-R255 0..255, UR0-UR63 256..319, P0-P7
 * 320..327, UP0-UP7 328..335 (RZ, URZ, PT and UPT are never written). */
#define SB_WORDS 6
typedef struct {
    uint64_t w[SB_WORDS];
} RegSet;

typedef struct Cta Cta;

#define SM_ACOPY_GROUPS 16      /* a warp's cp.async groups, committed and open, in flight at
                                   once (a commit that would need one more waits) */

typedef struct {
    const SassInst *insts;
    const uint64_t *addrs;        /* the lane addresses its instructions index */
    uint32_t n, fetched, issued;  /* instructions, fetched into the buffer, issued */
    uint32_t inflight;            /* issued instructions whose result is not written yet */
    uint64_t age;                 /* launch order, for GTO */
    Cta *cta;
    uint8_t subcore;
    bool resident, at_bar, finished;
    bool demoted;                 /* two-level: in the pending set */
    bool deps_clear;              /* the next instruction's registers have no write pending */
    RegSet pend, pend_long, pend_mio;   /* pending writes, and which come from memory / MIO */
    /* cp.async groups (PTX ISA 9.7.9.25), numbered from 0 as commit_group closes them: the one
     * new copies join, the oldest that may still be pending, and the copies in flight of each
     * (group g at g % SM_ACOPY_GROUPS) */
    uint32_t ac_open, ac_old;
    uint16_t ac_left[SM_ACOPY_GROUPS];
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
    uint8_t acopy;                /* a cp.async: its group's slot + 1 (0: none) */
    uint16_t bit[8];
} Release;

/* A global load or atomic in flight through the memory side: its writeback, held until every
 * line it waits for has come back (left = 0), and the cycle its L1 hits are ready. */
#define REC_NONE UINT32_MAX
#define REC_ATOM 0x80000000u      /* an id with this bit: an atomic's answer for record id */
typedef struct {
    Release r;
    uint32_t left;
    uint64_t ready;
    uint32_t next;                /* free list */
} LoadRec;

/* A load waiting on an L1 MSHR (a list per MSHR through next). */
typedef struct {
    uint32_t rec, next;
} Target;

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
#define ST_UNKNOWN 0xff

static const char *const stall_names[ST_COUNT] = {
    "selected", "not_selected", "no_instruction", "barrier", "long_scoreboard",
    "short_scoreboard", "wait", "math_pipe_throttle", "lg_throttle", "mio_throttle", "drain",
};

typedef struct {
    Component base;
    SmParams p;
    const GpuCcLimits *lim;
    Warp *warp;                           /* max_warps slots, made with the first block */
    uint32_t max_warps;
    Cta cta[SM_MAX_CTAS];
    uint32_t ctas, resident_warps;
    uint64_t next_age;
    /* per sub-core: its warps in launch order, the scheduler's pointer, units */
    uint16_t sc_warps[SM_MAX_SUBCORES][SM_MAX_WARPS];
    uint32_t sc_n[SM_MAX_SUBCORES];
    uint32_t sc_last[SM_MAX_SUBCORES];    /* LRR: position last issued; GTO: warp last issued + 1 */
    uint32_t sc_fetch[SM_MAX_SUBCORES];   /* fetch round-robin position */
    bool sc_fetch_any[SM_MAX_SUBCORES];   /* a warp may have room in its buffer (false after a
                                             fetch found none, until an issue or a launch) */
    uint64_t unit_free[SM_MAX_SUBCORES][GPU_UNIT_COUNT];  /* cycle the pipeline takes the next */
    uint32_t *ring_head, *ring_tail;      /* SM_RING each, made with the first block */
    uint64_t ring_busy[SM_RING / 64];     /* bit t: slot t holds writebacks (next_release) */
    RelNode *rel;
    uint32_t rel_n, rel_cap, rel_free;
    uint64_t pending_releases;
    /* idle cycles are skipped: when no warp can issue, fetch has nothing to do and every warp
     * waits on a write or a barrier, nothing changes before the next writeback (or a block's
     * arrival, which wakes the SM); the skipped cycles are counted at the next tick with the
     * reasons of the last one, so the statistics are those of ticking every cycle */
    uint64_t last_cycle;                  /* the last cycle ticked */
    uint64_t throttle_at;                 /* this cycle: the first cycle a pipeline (or the L1)
                                             a throttled warp waits for frees */
    bool frozen;                          /* the cycles after last_cycle repeat its reasons */
    uint32_t frozen_stall[ST_COUNT];
    uint32_t frozen_warps;
    /* each warp slot's status as the tick last saw it, when only a writeback, a barrier's
     * release or the warp's own issue or fetch can change it (a scoreboard wait, the barrier,
     * the drain; ST_COUNT once finished), else ST_UNKNOWN: worked out again each cycle */
    uint8_t wst[SM_MAX_WARPS];
    /* per-cycle dumps (--trace): a track per warp slot, "smN.warp[W]" */
    int warp_track[SM_MAX_WARPS];
    bool tracking;                        /* warp_track is set */
    /* stats */
    uint64_t warp_insts, thread_insts, ctas_done, active_cycles, warp_cycles, issue_slots;
    uint64_t stall[ST_COUNT], unit_insts[GPU_UNIT_COUNT], bank_conflicts, barriers;
    uint64_t flops;
    uint64_t gld_req, gld_sect, gst_req, gst_sect, smem_wave, smem_conflicts;
    /* the memory side (mem linked) */
    Port *mem;
    TagGeom l1g;
    TagStore l1;
    MshrTable l1m;                /* sectors: asked of the L2; aux: requests out; first: targets */
    uint32_t l1_assoc;            /* ways allocated (the largest L1 the carve-out leaves) */
    uint64_t l1_free;             /* cycle the L1 takes the next line */
    uint32_t l1_kernel;           /* launch number + 1 of the kernel the L1 is set up for */
    LoadRec *rec;
    uint32_t rec_n, rec_cap, rec_free;
    Target *tgt;
    uint32_t tgt_n, tgt_cap, tgt_free;
    uint64_t mem_pending;         /* records waiting on the memory side */
    uint64_t l1_sect, l1_sect_hit, l1_lines, l2_req, atom_req, red_req, l1_carveout;
} Sm;

static const char *const sched_choices[] = { "lrr", "gto", "two_level", NULL };
static const char *const l2_hash_choices[] = { "linear", "xor", NULL };
static const char *const memory_choices[] = { "hierarchy", "fixed", NULL };

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
    { .name = "memory", .type = PARAM_ENUM, .def = "hierarchy", .choices = memory_choices,
      .doc = "hierarchy: global and local accesses go through the L1, the crossbar, the L2 and "
      "DRAM (when the mem port is linked); fixed: every global load takes global_latency (for "
      "teaching latency hiding, and for exact pipeline tests)",
      .offset = offsetof(SmParams, memory) },
    { .name = "global_latency", .type = PARAM_UINT, .def = "400", .flags = PARAM_F_RANGE, .min = 1,
      .max = SM_RING - 64, .doc = "cycles a global or local load takes with memory: fixed (or "
      "without a memory side)", .offset = offsetof(SmParams, global_latency) },
    { .name = "shared_latency", .type = PARAM_UINT, .def = "30", .flags = PARAM_F_RANGE, .min = 1,
      .max = SM_RING - 64, .doc = "cycles a shared-memory load takes",
      .offset = offsetof(SmParams, shared_latency) },
    { .name = "const_latency", .type = PARAM_UINT, .def = "20", .flags = PARAM_F_RANGE, .min = 1,
      .max = SM_RING - 64, .doc = "cycles a constant load (LDC, ULDC) takes",
      .offset = offsetof(SmParams, const_latency) },
    { .name = "l1_unified", .type = PARAM_SIZE, .def = "192KiB", .flags = PARAM_F_RANGE,
      .min = 4096, .max = 1 << 20, .doc = "the unified L1 data cache and shared memory array: the "
      "L1 gets what the kernel's shared-memory carve-out leaves",
      .offset = offsetof(SmParams, l1_unified) },
    { .name = "l1_sets", .type = PARAM_UINT, .def = "32", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 1, .max = 1024, .doc = "sets of the L1 (128-byte lines, 4 sectors); the ways follow "
      "from the capacity", .offset = offsetof(SmParams, l1_sets) },
    { .name = "l1_latency", .type = PARAM_UINT, .def = "33", .flags = PARAM_F_RANGE, .min = 1,
      .max = SM_RING - 128, .doc = "cycles from issue to the data of an L1 hit",
      .offset = offsetof(SmParams, l1_latency) },
    { .name = "l1_mshrs", .type = PARAM_UINT, .def = "512", .flags = PARAM_F_RANGE, .min = 64,
      .max = 65536, .doc = "L1 miss status holding registers (missed lines in flight); none "
      "free: the load waits (lg_throttle)", .offset = offsetof(SmParams, l1_mshrs) },
    { .name = "l1_repl", .type = PARAM_ENUM, .def = "lru", .choices = repl_names,
      .doc = "L1 replacement policy", .offset = offsetof(SmParams, l1_repl) },
    { .name = "l2_slices", .type = PARAM_UINT, .def = "1", .flags = PARAM_F_RANGE, .min = 1,
      .max = 65536, .doc = "L2 slices behind the crossbar (set by system.type gpu)",
      .offset = offsetof(SmParams, l2_slices) },
    { .name = "l2_base", .type = PARAM_UINT, .def = "0", .flags = PARAM_F_RANGE, .max = 65535,
      .doc = "the crossbar endpoint of slice 0 (set by system.type gpu)",
      .offset = offsetof(SmParams, l2_base) },
    { .name = "l2_hash", .type = PARAM_ENUM, .def = "xor", .choices = l2_hash_choices,
      .doc = "line-to-slice hash (set by system.type gpu from l2.hash)",
      .offset = offsetof(SmParams, l2_hash) },
    PARAM_END,
};

static const PortSpec sm_ports[] = {
    { .name = "ctrl", .role = PORT_RESPONDER, .required = true,
      .doc = "thread blocks from the block scheduler (gpu-workload), answered when done" },
    { .name = "mem", .role = PORT_REQUESTER,
      .doc = "to the crossbar (a noc's node port): the L1's misses, stores and atomics to the L2 "
             "slices; unlinked, global accesses take global_latency" },
    PORT_END,
};

#define S(x) ((const Sm *)(x))
static double f_ipc(const Component *c)
{
    return stats_ratio((double)S(c)->warp_insts, (double)S(c)->active_cycles);
}
static double f_l1_hit(const Component *c)
{
    return stats_ratio((double)S(c)->l1_sect_hit, (double)S(c)->l1_sect);
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
    { "flops", STAT_COUNTER, "count", "floating-point operations: adds and multiplies one per "
      "active lane, fused multiply-adds two (HFMA2 four), any precision (Nsight Compute's "
      "flop_count_sp + dp + hp)", offsetof(Sm, flops), NULL },
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
    { "l1_sectors", STAT_COUNTER, "count", "sectors global and local loads looked up in the L1",
      offsetof(Sm, l1_sect), NULL },
    { "l1_sector_hits", STAT_COUNTER, "count", "of those, valid in the L1",
      offsetof(Sm, l1_sect_hit), NULL },
    { "l1_hit_rate", STAT_FORMULA, "ratio", "l1_sector_hits / l1_sectors (Nsight Compute's "
      "l1tex__t_sector_hit_rate for global loads)", 0, f_l1_hit },
    { "l1_lines", STAT_COUNTER, "cycle", "L1 cycles: one per line a global access touches",
      offsetof(Sm, l1_lines), NULL },
    { "l2_requests", STAT_COUNTER, "count", "requests sent to the L2 slices (missed sectors of a "
      "line, stores, atomics)", offsetof(Sm, l2_req), NULL },
    { "atomic_requests", STAT_COUNTER, "count", "lines of global atomics (ATOM) sent to the L2",
      offsetof(Sm, atom_req), NULL },
    { "reduction_requests", STAT_COUNTER, "count", "lines of global reductions (RED) sent to "
      "the L2", offsetof(Sm, red_req), NULL },
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
    k->rel_free = REL_NONE;
    k->rec_free = k->tgt_free = REC_NONE;
    if (k->max_warps % k->p.subcores)
        return sim_component_reject(c, "subcores", error, "%u warps per SM do not divide among %"
                                    G_GUINT64_FORMAT " sub-cores", k->max_warps, k->p.subcores);
    k->mem = k->p.memory == 0 ? sim_port(c, "mem", 0) : NULL;
    if (k->mem) {
        uint64_t set_bytes = k->p.l1_sets * GPU_LINE;
        if (k->p.l1_unified % set_bytes || k->p.l1_unified / set_bytes > 4096)
            return sim_component_reject(c, sim_component_first_set(c, "l1_unified", "l1_sets",
                                                                   NULL), error,
                                        "l1_unified %" G_GUINT64_FORMAT " B is not a whole number "
                                        "of ways of %" G_GUINT64_FORMAT " sets x 128 B (at most "
                                        "4096 ways)", k->p.l1_unified, k->p.l1_sets);
        k->l1_assoc = (uint32_t)(k->p.l1_unified / set_bytes);
        TagGeom g = { .sets = k->p.l1_sets, .assoc = k->l1_assoc, .line = GPU_LINE,
                      .sectors = GPU_LINE / GPU_SECTOR, .interleave = 1, .repl = k->p.l1_repl };
        char *problem = NULL;
        if (!tag_geom_check(&g, &problem)) {
            bool r = sim_component_reject(c, "l1_repl", error, "%s", problem);
            g_free(problem);
            return r;
        }
        k->l1g = g;               /* allocated with the first block (most SMs of a small
                                     kernel never get one) */
    }
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
    k->tracking = true;
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
    g_free(k->warp);
    g_free(k->ring_head);
    g_free(k->rel);
    g_free(k->rec);
    g_free(k->tgt);
    if (k->l1.pages) {
        tag_free(&k->l1);
        mshr_free(&k->l1m);
    }
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
        if (i == 0 && (in->dst[0] >> 8) == SASS_REG_R &&
            !(w->cta->g->kc->op_flags[in->op] & GPU_OPF_EXACT)) {
            const GpuKernelCtx *kc = w->cta->g->kc;
            if (kc->op_flags[in->op] & GPU_OPF_WIDE)
                span = 2;
            else if (in->width >= 8 && in->unit == GPU_UNIT_LDST)
                span = in->width / 4;
        }
        /* widening stops before RZ (R255); UR, P and UP (bits 256 and up) are never widened,
         * and are written like any register (they were dropped: a read never waited) */
        for (uint32_t j = 0; j < span && n < 8 && (j == 0 || b + (int)j < 255); j++)
            out[n++] = (uint16_t)(b + (int)j);
    }
    return n;
}

/* ---- issue ---- */

static StallReason l1_status(Sm *k, const Warp *w, const SassInst *in, uint64_t now);

/* Whether cp.async.commit_group or .wait_group (in) must wait: a commit while every group
 * slot holds a pending group, a wait while a group older than the N most recent committed ones
 * (wait_all: any group, the open one too) has copies in flight. */
static bool acopy_blocked(Warp *w, const SassInst *in)
{
    while (w->ac_old < w->ac_open && w->ac_left[w->ac_old % SM_ACOPY_GROUPS] == 0)
        w->ac_old++;
    if (!(w->cta->g->kc->op_flags[in->op] & GPU_OPF_AWAIT))
        return w->ac_open + 1 - w->ac_old >= SM_ACOPY_GROUPS;
    if (in->imm < 0)
        return w->ac_left[w->ac_old % SM_ACOPY_GROUPS] > 0;
    return (int64_t)w->ac_old < (int64_t)w->ac_open - in->imm;
}

/* Why w cannot issue now (or ST_SELECTED if it can). */
static StallReason warp_status(Sm *k, Warp *w, uint64_t now)
{
    if (w->at_bar)
        return ST_BARRIER;
    if (w->issued == w->n)
        return ST_DRAIN;
    if (w->fetched == w->issued)
        return ST_NO_INSTRUCTION;
    const SassInst *in = &w->insts[w->issued];
    /* cp.async.commit_group (an ldst instruction without an access) and .wait_group (a barrier
     * unit one), both with an immediate (ptxexec.c): those tests first keep the opcode's flags
     * out of every other instruction's way */
    if (G_UNLIKELY(in->has_imm && (in->unit == GPU_UNIT_BARRIER ||
                                   (in->unit == GPU_UNIT_LDST && in->width == 0))) &&
        (w->cta->g->kc->op_flags[in->op] & (GPU_OPF_ACOMMIT | GPU_OPF_AWAIT)) &&
        in->mask != 0 && acopy_blocked(w, in))   /* (guarded off: it does nothing) */
        return ST_LONG_SB;              /* waiting on L1TEX operations, as Nsight counts it */
    /* RAW on sources, WAW on destinations; once clear they stay clear until the warp issues
     * (only its own issue adds pending writes) */
    if (!w->deps_clear) {
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
        w->deps_clear = true;
    }
    unsigned u = in->unit == GPU_UNIT_UNKNOWN ? GPU_UNIT_INT : in->unit;
    if (u == GPU_UNIT_LDST && k->mem && in->width > 0 && in->mask != 0 &&
        k->unit_free[w->subcore][u] <= now) {
        SassSpace sp = (SassSpace)in->space;
        if (sp == SASS_SPACE_GENERIC)
            sp = sass_generic_space(w->cta->g->kc->k, w->addrs[in->addr]);
        if ((sp == SASS_SPACE_GLOBAL || sp == SASS_SPACE_LOCAL) &&
            l1_status(k, w, in, now) != ST_SELECTED) {
            if (k->l1_free > now)           /* else it waits for an MSHR: an answer wakes it */
                k->throttle_at = MIN(k->throttle_at, k->l1_free);
            return ST_LG_THROTTLE;
        }
    }
    if (k->unit_free[w->subcore][u] > now) {
        k->throttle_at = MIN(k->throttle_at, k->unit_free[w->subcore][u]);
        if (u == GPU_UNIT_LDST) {
            SassSpace sp = (SassSpace)in->space;
            if (sp == SASS_SPACE_GENERIC && in->width > 0 && in->mask != 0)
                sp = sass_generic_space(w->cta->g->kc->k, w->addrs[in->addr]);
            return sp == SASS_SPACE_SHARED || sp == SASS_SPACE_CONST ? ST_MIO_THROTTLE
                                                                     : ST_LG_THROTTLE;
        }
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
    k->ring_busy[b / 64] |= 1ull << (b % 64);
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
    for (uint32_t i = 0; i < t->warps; i++) {
        k->warp[t->slot[i]].at_bar = false;
        if (!k->warp[t->slot[i]].finished)
            k->wst[t->slot[i]] = ST_UNKNOWN;
    }
    t->at_bar = 0;
    k->barriers++;
}

static void warp_check_finished(Sm *k, uint32_t wi)
{
    Warp *w = &k->warp[wi];
    if (w->finished || w->issued < w->n || w->inflight > 0)
        return;
    w->finished = true;
    k->wst[wi] = ST_COUNT;
    Cta *t = w->cta;
    t->live--;
    if (w->at_bar) {
        /* a warp whose last instruction was the barrier has left it: it no longer counts as
         * arrived, or the barrier would open before the warps still on their way */
        w->at_bar = false;
        t->at_bar--;
    }
    barrier_check(k, t);          /* a barrier the others wait at may now be complete */
    cta_maybe_done(k, t);
}

/* ---- the memory side: the L1 data cache and requests to the L2 ---- */

static uint32_t rec_new(Sm *k, const Release *r)
{
    uint32_t i = k->rec_free;
    if (i != REC_NONE) {
        k->rec_free = k->rec[i].next;
    } else {
        if (k->rec_n == k->rec_cap) {
            k->rec_cap = k->rec_cap ? k->rec_cap * 2 : 64;
            k->rec = g_renew(LoadRec, k->rec, k->rec_cap);
        }
        i = k->rec_n++;
    }
    k->rec[i] = (LoadRec){ .r = *r, .left = 0, .ready = 0, .next = REC_NONE };
    return i;
}

/* One line of record i came back (or the last hit was counted): when none is left, the
 * writeback goes into the ring at the later of its hits' ready cycle and the next cycle. */
static void rec_line_done(Sm *k, uint32_t i, uint64_t now)
{
    LoadRec *lr = &k->rec[i];
    g_assert(lr->left > 0);
    if (--lr->left > 0)
        return;
    ring_push(k, MAX(lr->ready, now + 1), &lr->r);
    k->mem_pending--;
    lr->next = k->rec_free;
    k->rec_free = i;
}

static void tgt_add(Sm *k, MshrEntry *ms, uint32_t rec)
{
    uint32_t i = k->tgt_free;
    if (i != REC_NONE) {
        k->tgt_free = k->tgt[i].next;
    } else {
        if (k->tgt_n == k->tgt_cap) {
            k->tgt_cap = k->tgt_cap ? k->tgt_cap * 2 : 64;
            k->tgt = g_renew(Target, k->tgt, k->tgt_cap);
        }
        i = k->tgt_n++;
    }
    k->tgt[i] = (Target){ .rec = rec, .next = REC_NONE };
    if (ms->ntargets++ == 0)
        ms->first = i;
    else
        k->tgt[ms->last].next = i;
    ms->last = i;
    k->rec[rec].left++;
}

/* Sends a request for `sectors` of line (an address) to its L2 slice, `delay` cycles from now. */
static void l2_send(Sm *k, uint8_t op, uint64_t line, uint8_t sectors, uint32_t lanes, uint32_t id,
                    uint64_t delay)
{
    Msg *m = sim_msg_alloc(k->base.sim);
    m->cmd = MSG_GPU_MEM_REQ;
    m->issued = k->base.eng->now;
    GpuPayload *g = gpu_msg(m);
    g->op = op;
    g->sectors = sectors;
    g->lanes = (uint8_t)MIN(lanes, 255u);
    g->id = id;
    g->line = line;
    /* a load or an atomic's request is a header; a store or reduction carries its sectors */
    m->size = op == GPU_MEM_LOAD || op == GPU_MEM_ATOM ? 0
              : (uint32_t)__builtin_popcount(sectors) * GPU_SECTOR;
    uint32_t slice = gpu_l2_slice(line / GPU_LINE, (uint32_t)k->p.l2_slices, k->p.l2_hash);
    noc_msg_route(m, (uint32_t)k->p.l2_base + slice, NOC_VNET_REQUEST);
    k->l2_req++;
    sim_port_send(&k->base, k->mem, m, delay);
}

/* MSHRs a load of these lines would newly take (lines neither valid in full nor in flight). */
static uint32_t l1_mshrs_needed(Sm *k, const GpuLineAccess *acc, uint32_t na)
{
    uint32_t need = 0;
    for (uint32_t i = 0; i < na; i++) {
        TagSet s;
        uint64_t block = acc[i].line / GPU_LINE;
        int w = tag_find(&k->l1, block, &s);
        if ((w < 0 || (acc[i].sectors & ~s.valid[w])) && !mshr_find(&k->l1m, block)) {
            bool dup = false;     /* a line the same instruction touched before */
            for (uint32_t j = 0; j < i; j++)
                dup |= acc[j].line == acc[i].line;
            need += !dup;
        }
    }
    return need;
}

/* Why a global access of w cannot enter the L1 now (ST_LG_THROTTLE), or ST_SELECTED. */
static StallReason l1_status(Sm *k, const Warp *w, const SassInst *in, uint64_t now)
{
    if (k->l1_free > now)
        return ST_LG_THROTTLE;             /* the L1 is still taking an earlier access's lines */
    /* a store needs no MSHR; a load without a register (LDGSTS, cp.async) does */
    if ((in->ndst == 0 && !(w->cta->g->kc->op_flags[in->op] & GPU_OPF_LOAD)) ||
        k->l1m.n - k->l1m.used >= 64 || in->mask == 0 || in->width == 0)
        return ST_SELECTED;
    const GpuKernelCtx *kc = w->cta->g->kc;
    if (kc->op_flags[in->op] & (GPU_OPF_ATOM | GPU_OPF_RED))
        return ST_SELECTED;
    GpuLineAccess acc[64];
    uint32_t na = gpu_coalesce(w->addrs + in->addr, in->mask,
                               MIN((uint32_t)in->width, 16u), acc);
    return l1_mshrs_needed(k, acc, na) > k->l1m.n - k->l1m.used ? ST_LG_THROTTLE : ST_SELECTED;
}

/* A global or local access of na lines issued now: the L1 takes one line per cycle from the
 * first free one. A load (rec != REC_NONE) hits or waits on an MSHR line by line; a store
 * writes through (updating the sectors it holds); atomics and reductions go to the L2. */
static void l1_access(Sm *k, const GpuLineAccess *acc, uint32_t na, uint8_t kind, uint32_t rec,
                      uint64_t now)
{
    uint64_t t = MAX(now, k->l1_free);
    k->l1_free = t + na;
    k->l1_lines += na;
    for (uint32_t i = 0; i < na; i++) {
        uint64_t ti = t + i, block = acc[i].line / GPU_LINE;
        uint8_t want = acc[i].sectors;
        uint32_t lanes = (uint32_t)__builtin_popcount(acc[i].lanes);
        TagSet s = { 0 };
        int w = tag_find(&k->l1, block, &s);
        if (kind != GPU_MEM_LOAD) {
            if (kind == GPU_MEM_ATOM)
                k->atom_req++;
            else if (kind == GPU_MEM_RED)
                k->red_req++;
            if (kind != GPU_MEM_STORE && w >= 0)
                tag_drop(&s, (uint32_t)w);     /* the L2 changes the line: the copy is stale */
            else if (w >= 0)
                tag_touch(&k->l1, &s, (uint32_t)w);
            if (kind == GPU_MEM_ATOM)
                k->rec[rec].left++;
            l2_send(k, kind, acc[i].line, want, lanes, kind == GPU_MEM_ATOM ? REC_ATOM | rec : 0,
                    ti - now);
            continue;
        }
        uint8_t have = w >= 0 ? s.valid[w] : 0;
        k->l1_sect += (uint32_t)__builtin_popcount(want);
        k->l1_sect_hit += (uint32_t)__builtin_popcount(want & have);
        uint8_t missing = want & ~have;
        if (!missing) {
            tag_touch(&k->l1, &s, (uint32_t)w);
            k->rec[rec].ready = MAX(k->rec[rec].ready, ti + k->p.l1_latency);
            continue;
        }
        MshrEntry *ms = mshr_find(&k->l1m, block);
        if (!ms) {
            ms = mshr_alloc(&k->l1m, block, ti);
            g_assert(ms);                    /* l1_status made sure */
            ms->sectors = 0;
            ms->aux = 0;
        }
        tgt_add(k, ms, rec);
        uint8_t more = missing & ~ms->sectors;
        if (more) {
            ms->sectors |= more;
            ms->aux++;
            l2_send(k, GPU_MEM_LOAD, acc[i].line, more, lanes, mshr_index(&k->l1m, ms), ti - now);
        }
    }
}

/* An answer from the L2: an atomic's, or sectors for an L1 MSHR (filled into the L1). */
static void l1_answer(Sm *k, Msg *m, uint64_t now)
{
    GpuPayload *g = gpu_msg(m);
    if (g->id & REC_ATOM) {
        rec_line_done(k, g->id & ~REC_ATOM, now);
        return;
    }
    g_assert(g->id < k->l1m.n);
    MshrEntry *ms = &k->l1m.e[g->id];
    g_assert(ms->valid && ms->aux > 0);
    TagSet s;
    int w = tag_find(&k->l1, ms->block, &s);
    if (w < 0) {
        s = tag_set_touch(&k->l1, ms->block);
        bool evict;
        w = (int)tag_victim(&k->l1, &s, &k->base.rng, &evict);   /* write-through: just drop */
        tag_fill(&k->l1, &s, (uint32_t)w, ms->block, 0, 0);
    }
    s.valid[w] |= g->sectors;
    if (--ms->aux > 0)
        return;
    for (uint32_t i = ms->first, n = ms->ntargets; n > 0; n--) {
        uint32_t next = k->tgt[i].next;
        rec_line_done(k, k->tgt[i].rec, now);
        k->tgt[i].next = k->tgt_free;
        k->tgt_free = i;
        i = next;
    }
    mshr_release(&k->l1m, ms);
}

/* A new kernel's first block on an idle SM: the L1 is invalidated (GPGPU-Sim flushes it between
 * kernels) and gets what the kernel's shared-memory carve-out leaves of the unified array. */
static void l1_kernel_setup(Sm *k, const GpuCta *g)
{
    const SassKernel *kern = g->kc->k;
    GpuOccInput in = { kern->block[0] * kern->block[1] * kern->block[2], kern->nregs, kern->shmem,
                       -1 };
    GpuOccResult r;
    gpu_occupancy(k->lim, &in, &r);
    uint64_t need = (uint64_t)r.active_blocks * r.smem_per_block, carve = 0;
    for (uint32_t i = 0; i < k->lim->ncarveouts; i++) {
        carve = (uint64_t)k->lim->carveout_kib[i] << 10;
        if (carve >= need)
            break;
    }
    uint64_t set_bytes = k->p.l1_sets * GPU_LINE;
    uint64_t l1 = k->p.l1_unified > carve ? k->p.l1_unified - carve : 0;
    uint32_t ways = (uint32_t)CLAMP(l1 / set_bytes, 1u, (uint64_t)k->l1_assoc);
    if (!k->l1.pages) {
        tag_init(&k->l1, &k->l1g, &k->base);
        mshr_init(&k->l1m, (uint32_t)k->p.l1_mshrs);
    }
    tag_clear(&k->l1);
    tag_set_ways(&k->l1, ways);
    k->l1_carveout = carve;
    k->l1_kernel = g->kc->index + 1;
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
    w->deps_clear = false;
    k->wst[wi] = ST_UNKNOWN;
    k->sc_fetch_any[w->subcore] = true;
    const SassInst *in = &w->insts[w->issued++];
    unsigned u = in->unit;
    k->unit_insts[u]++;
    if (u == GPU_UNIT_UNKNOWN)
        u = GPU_UNIT_INT;
    k->warp_insts++;
    k->thread_insts += (uint64_t)__builtin_popcount(in->mask);
    uint16_t ff = w->cta->g->kc->op_flags[in->op] & (GPU_OPF_FLOP | GPU_OPF_FMA);
    if (ff)
        k->flops += (uint64_t)__builtin_popcount(in->mask) *
                    (ff == (GPU_OPF_FLOP | GPU_OPF_FMA) ? 4 : ff == GPU_OPF_FMA ? 2 : 1);
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
    GpuLineAccess acc[64];
    uint32_t na = 0;
    int mkind = -1;                   /* GPU_MEM_*: a global access for the memory side */
    SassSpace sp = (SassSpace)in->space;  /* a generic access: where its address is */
    if (u == GPU_UNIT_LDST && in->width > 0 && in->mask != 0) {
        const uint64_t *a = w->addrs + in->addr;
        uint32_t width = MIN((uint32_t)in->width, 16u);
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
            na = gpu_coalesce(a, in->mask, width, acc);
            uint16_t f = kc->op_flags[in->op];
            bool load = (in->ndst > 0 || (f & GPU_OPF_LOAD)) && !(f & GPU_OPF_RED);
            if (load) {
                k->gld_req += na;
                k->gld_sect += gpu_sectors(acc, na);
            } else {
                k->gst_req += na;
                k->gst_sect += gpu_sectors(acc, na);
            }
            if (k->mem)
                mkind = f & GPU_OPF_ATOM ? GPU_MEM_ATOM : f & GPU_OPF_RED ? GPU_MEM_RED
                        : load ? GPU_MEM_LOAD : GPU_MEM_STORE;
        }
    }
    uint16_t bits[8];
    uint32_t nb = in->mask ? dst_bits(k, w, in, bits) : 0;   /* predicated off: writes nothing */
    bool acopy = false;
    if (G_UNLIKELY((u == GPU_UNIT_LDST || u == GPU_UNIT_BARRIER) &&
                   (kc->op_flags[in->op] & (GPU_OPF_ACOPY | GPU_OPF_ACOMMIT | GPU_OPF_AWAIT)) &&
                   in->mask != 0)) {
        uint16_t af = kc->op_flags[in->op];
        acopy = (af & GPU_OPF_ACOPY) && in->width > 0;
        if (af & GPU_OPF_ACOMMIT || (af & GPU_OPF_AWAIT && in->imm < 0))
            w->ac_open++;               /* wait_all commits the open group first */
    }
    /* a load with no register listed (LDGSTS writes shared memory) still goes to memory and is
     * in flight until its lines are back, releasing nothing; a cp.async is counted in its group
     * until then (with the fixed memory, for global_latency) */
    if (nb > 0 || mkind == GPU_MEM_LOAD || acopy) {
        uint64_t lat = k->p.lat[u];
        uint8_t kind = 0;
        if (u == GPU_UNIT_LDST && in->width > 0) {
            switch (sp) {
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
        if (acopy) {
            uint32_t slot = w->ac_open % SM_ACOPY_GROUPS;
            r.acopy = (uint8_t)(slot + 1);
            w->ac_left[slot]++;
        }
        for (uint32_t i = 0; i < nb; i++) {
            r.bit[i] = bits[i];
            rs_set(&w->pend, bits[i]);
            if (kind == 1)
                rs_set(&w->pend_long, bits[i]);
            else if (kind == 2)
                rs_set(&w->pend_mio, bits[i]);
        }
        w->inflight++;
        if (mkind == GPU_MEM_LOAD || mkind == GPU_MEM_ATOM) {
            /* through the memory side: written back when its last line is back */
            uint32_t rec = rec_new(k, &r);
            k->rec[rec].left = 1;          /* held until every line has been sent */
            k->mem_pending++;
            l1_access(k, acc, na, (uint8_t)mkind, rec, now);
            rec_line_done(k, rec, now);
            mkind = -1;
        } else {
            ring_push(k, now + lat, &r);
        }
    }
    if (mkind == GPU_MEM_ATOM)         /* an atomic whose result goes nowhere: a reduction */
        mkind = GPU_MEM_RED;
    if (mkind == GPU_MEM_STORE || mkind == GPU_MEM_RED)
        l1_access(k, acc, na, (uint8_t)mkind, REC_NONE, now);
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
    default: {
        uint32_t first = k->sc_last[sc] + 1;
        if (first >= n)
            first = n ? first % n : 0;
        for (uint32_t j = 0, i = first; j < n; j++, i = i + 1 == n ? 0 : i + 1) {
            if (status[ws[i]] == ST_SELECTED) {
                k->sc_last[sc] = i;
                return ws[i];
            }
        }
        return -1;
    }
    }
}

/* Two-level scheduling (Narasiman et al., MICRO 2011): a warp waiting on a long-latency load
 * leaves the active set, and so does one waiting at a barrier (else warps at bar.sync could fill
 * the set while the warps they wait for, outside it, never issue: a deadlock); each comes back
 * when it no longer waits. */
static void two_level_update(Sm *k, uint32_t sc, const StallReason *status)
{
    for (uint32_t i = 0; i < k->sc_n[sc]; i++) {
        Warp *w = &k->warp[k->sc_warps[sc][i]];
        StallReason st = status[k->sc_warps[sc][i]];
        w->demoted = st == ST_LONG_SB || st == ST_BARRIER;
    }
}

static bool fetch(Sm *k, uint32_t sc)
{
    if (!k->sc_fetch_any[sc])
        return false;
    uint32_t n = k->sc_n[sc];
    for (uint32_t j = 0, i = n ? k->sc_fetch[sc] % n : 0; j < n; j++, i = i + 1 == n ? 0 : i + 1) {
        Warp *w = &k->warp[k->sc_warps[sc][i]];
        if (w->fetched < w->n && w->fetched - w->issued < k->p.ibuffer) {
            w->fetched = (uint32_t)MIN((uint64_t)w->n, (uint64_t)w->issued + k->p.ibuffer);
            k->wst[k->sc_warps[sc][i]] = ST_UNKNOWN;
            k->sc_fetch[sc] = i + 1;
            return true;
        }
    }
    k->sc_fetch_any[sc] = false;
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

/* The warp slots and the writeback ring, made when the first block arrives: the SMs of a big
 * GPU that a small kernel never uses cost no memory for them. */
static void sm_alloc(Sm *k)
{
    k->warp = g_new0(Warp, k->max_warps);
    k->ring_head = g_new(uint32_t, 2 * SM_RING);
    k->ring_tail = k->ring_head + SM_RING;
    memset(k->ring_head, 0xff, 2 * SM_RING * sizeof(uint32_t));     /* REL_NONE */
}

static void cta_launch(Sm *k, Port *port, GpuCta *g)
{
    const SassBlock *b = &g->b;
    const SassKernel *kern = g->kc->k;
    uint32_t nw = kern->warps_per_block;
    g_assert(k->ctas < SM_MAX_CTAS && k->resident_warps + nw <= k->max_warps);
    if (G_UNLIKELY(!k->warp))
        sm_alloc(k);
    Cta *t = NULL;
    for (uint32_t i = 0; i < SM_MAX_CTAS; i++)
        if (!k->cta[i].used) {
            t = &k->cta[i];
            break;
        }
    g_assert(t);
    if (k->mem && k->ctas == 0 && g->kc->index + 1 != k->l1_kernel)
        l1_kernel_setup(k, g);
    *t = (Cta){ .g = g, .from = port, .warps = nw, .live = nw, .used = true,
                .launched = sim_component_cycle(&k->base) };
    k->ctas++;
    sm_hold(k);
    /* warps the trace holds (a warp it lacks ran nothing: it finishes at once) */
    int32_t tw[32];
    for (uint32_t i = 0; i < 32; i++)
        tw[i] = -1;
    for (uint32_t i = 0; i < b->nwarps; i++)
        tw[b->warps[i].warp] = (int32_t)i;
    uint32_t slot = 0;
    for (uint32_t i = 0; i < nw; i++) {
        while (k->warp[slot].resident)
            slot++;
        g_assert(slot < k->max_warps);
        Warp *w = &k->warp[slot];
        memset(w, 0, sizeof *w);
        w->resident = true;
        k->wst[slot] = ST_UNKNOWN;
        w->cta = t;
        w->insts = tw[i] >= 0 ? sass_warp_insts(b, (uint32_t)tw[i]) : NULL;
        w->addrs = tw[i] >= 0 ? sass_warp_addrs(b, (uint32_t)tw[i]) : NULL;
        w->n = tw[i] >= 0 ? b->warps[tw[i]].n : 0;
        w->age = k->next_age++;
        w->subcore = (uint8_t)(slot % k->p.subcores);
        t->slot[i] = (uint16_t)slot;
        k->sc_warps[w->subcore][k->sc_n[w->subcore]++] = (uint16_t)slot;
        k->sc_fetch_any[w->subcore] = true;
        k->resident_warps++;
    }
    for (uint32_t i = 0; i < nw; i++)
        warp_check_finished(k, t->slot[i]);
}

static void sm_recv(Component *c, Port *port, Msg *m)
{
    Sm *k = (Sm *)c;
    if (m->cmd == MSG_GPU_MEM_RESP) {
        uint64_t now = sim_component_cycle(c);
        l1_answer(k, m, now);
        sim_msg_free(c->sim, m);
        /* the writebacks it released are due from the next cycle on; an SM that has ticked
         * this cycle already (asleep since or not) ticks next at the next one */
        if (k->last_cycle == now)
            sim_component_wake_in(c, 1);
        else
            sim_component_wake(c);
        return;
    }
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
    /* the first busy slot after now's, going round the ring a word of slots at a time: slots
     * now + 1 .. now + SM_RING - 1 (now's own was emptied by this tick's writeback) */
    uint32_t pos = (uint32_t)((now + 1) % SM_RING);
    for (uint32_t scanned = 0; scanned < SM_RING;) {
        uint32_t bit = pos % 64;
        uint64_t w = k->ring_busy[pos / 64] >> bit;
        if (w) {
            uint32_t off = scanned + (uint32_t)__builtin_ctzll(w);
            return off < SM_RING - 1 ? now + 1 + off : 0;
        }
        scanned += 64 - bit;
        pos = (pos + 64 - bit) % SM_RING;
    }
    return 0;
}

static uint64_t sm_tick(Component *c)
{
    Sm *k = (Sm *)c;
    if (G_UNLIKELY(!k->warp))
        return 0;                       /* no block has come yet */
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
        if (r->acopy)
            w->ac_left[r->acopy - 1]--;
        w->inflight--;
        k->wst[r->warp] = ST_UNKNOWN;
        k->pending_releases--;
        uint32_t next = k->rel[i].next;
        uint16_t wi = r->warp;
        k->rel[i].next = k->rel_free;       /* back to the pool before anything pushes more */
        k->rel_free = i;
        warp_check_finished(k, wi);
        i = next;
    }
    k->ring_head[b] = k->ring_tail[b] = REL_NONE;
    k->ring_busy[b / 64] &= ~(1ull << (b % 64));
    if (k->resident_warps == 0) {
        uint64_t next = next_release(k, now);
        return next ? next - now : 0;
    }
    k->active_cycles++;
    k->warp_cycles += k->resident_warps;
    k->issue_slots += k->p.subcores;
    StallReason status[SM_MAX_WARPS];
    uint32_t counts[ST_COUNT + 1] = { 0 };     /* [ST_COUNT]: finished warps, not counted */
    k->throttle_at = UINT64_MAX;
    bool moved = false;
    for (uint32_t sc = 0; sc < k->p.subcores; sc++) {
        const uint16_t *ws = k->sc_warps[sc];
        uint32_t n = k->sc_n[sc], ready = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t wi = ws[i];
            StallReason st = (StallReason)k->wst[wi];
            if (st == (StallReason)ST_UNKNOWN) {
                st = warp_status(k, &k->warp[wi], now);
                if (st == ST_LONG_SB || st == ST_SHORT_SB || st == ST_WAIT || st == ST_BARRIER ||
                    st == ST_DRAIN)
                    k->wst[wi] = (uint8_t)st;
            }
            status[wi] = st;
            counts[st]++;
            ready += st == ST_SELECTED;
        }
        if ((SchedKind)k->p.scheduler == SCHED_TWO_LEVEL)
            two_level_update(k, sc, status);
        int pickw = ready ? pick(k, sc, status) : -1;
        /* the ready warps not picked lose the cycle to the one that was */
        if (ready > (pickw >= 0)) {
            counts[ST_SELECTED] -= ready - (pickw >= 0);
            counts[ST_NOT_SELECTED] += ready - (pickw >= 0);
        }
        if (G_UNLIKELY(k->tracking) && trace_window_has(c->sim->trace_opts, now)) {
            for (uint32_t i = 0; i < n; i++) {
                uint32_t wi = ws[i];
                StallReason st = status[wi];
                if (st == ST_COUNT || (int)wi == pickw || k->warp_track[wi] < 0)
                    continue;
                if (st == ST_SELECTED)
                    st = ST_NOT_SELECTED;
                const TraceArg a[] = { TARG_X("pc", k->warp[wi].issued < k->warp[wi].n ?
                                                      k->warp[wi].insts[k->warp[wi].issued].pc : 0) };
                trace_emit(c->sim->trace, k->warp_track[wi], now, stall_names[st], 1, a, 1);
            }
            if (pickw >= 0 && k->warp_track[pickw] >= 0) {
                const Warp *w = &k->warp[pickw];
                const SassInst *in = &w->insts[w->issued];
                /* the source line (PTX runs, traces with lineinfo) after the mask */
                const TraceArg a[] = { TARG_X("pc", in->pc),
                                       TARG_S("op", sass_opcode_text(w->cta->g->kc, in->op)),
                                       TARG_X("mask", in->mask), TARG_U("line", in->src_line) };
                trace_emit(c->sim->trace, k->warp_track[pickw], now, "issue", 1, a,
                           w->cta->g->kc->k->lineinfo ? 4 : 3);
            }
        }
        if (pickw >= 0) {
            if ((SchedKind)k->p.scheduler != SCHED_LRR)
                k->sc_last[sc] = (uint32_t)pickw + 1;
            issue(k, (uint32_t)pickw, now);
            moved = true;
        }
        moved |= fetch(k, sc);
    }
    for (unsigned i = 0; i < ST_COUNT; i++)
        k->stall[i] += counts[i];
    if (moved || k->resident_warps == 0 || G_UNLIKELY(c->trace_track >= 0)) {
        if (k->resident_warps)
            return 1;
        uint64_t next = next_release(k, now);
        return next ? next - now : 0;
    }
    /* nothing moved: if every warp waits on a write, a barrier, its drain or a busy pipeline,
     * nothing changes before the next writeback, the first pipeline (or the L1) that frees, or
     * an answer from the memory side (which wakes the SM) */
    if (counts[ST_NOT_SELECTED] || counts[ST_SELECTED] || counts[ST_NO_INSTRUCTION])
        return 1;
    uint64_t next = next_release(k, now);
    if (counts[ST_MATH_THROTTLE] || counts[ST_LG_THROTTLE] || counts[ST_MIO_THROTTLE]) {
        uint64_t free_at = k->throttle_at;
        if (free_at != UINT64_MAX && (next == 0 || free_at < next))
            next = free_at;
        if (next == 0 && k->mem_pending == 0)
            return 1;
    }
    if (next == 0 && k->mem_pending == 0)
        return 1;                       /* a barrier no write will release: the watchdog's */
    k->frozen = true;
    memcpy(k->frozen_stall, counts, sizeof k->frozen_stall);
    k->frozen_warps = k->resident_warps;
    return next ? next - now : 0;       /* 0: asleep until the memory side answers */
}

static bool sm_busy(const Component *c) { return S(c)->ctas > 0; }

static void sm_dump(Component *c, GString *out)
{
    Sm *k = (Sm *)c;
    g_string_append_printf(out, "  %u blocks, %u warps resident, %" G_GUINT64_FORMAT
                           " writes pending\n", k->ctas, k->resident_warps, k->pending_releases);
    for (uint32_t i = 0; k->warp && i < k->max_warps; i++) {
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
