/* mapper.h: from a dataflow graph to kernels on an RDU (docs/rdu.md, "The mapper"): each loop
 * body entry a stage (consecutive element-wise ops fused into the stage before them, up to a
 * PCU's pipeline stages; `fixed` nodes never fused), PCUs given to the slowest stages until
 * the chip's are spent, buffers of b - a + 1 versions between stages a and b of a metapipeline
 * in PMUs, loops tiled until their buffers fit, stages placed on the PCU grid in order, and the
 * graph split into several kernels when it does not fit one chip. Follows Plasticine's unit
 * model (Prabhakar et al., ISCA 2017) and Spatial's N-buffering (Koeplinger et al., PLDI 2018).
 */
#ifndef ARCHSIM_RDU_MAPPER_H
#define ARCHSIM_RDU_MAPPER_H

#include "graph.h"

/* The chip as the mapper sees it (the rdu-chip component's parameters). Rates per cycle of the
 * chip clock. */
typedef struct {
    uint32_t rows, cols;          /* the PCU grid; a PMU beside each PCU */
    uint32_t lanes, stages;       /* SIMD lanes and pipeline stages of a PCU */
    uint64_t macs[RDU_DTYPES];    /* MACs per cycle of one PCU, by dtype */
    uint64_t pmu_bytes;           /* one PMU's scratchpad */
    uint32_t pmu_banks;           /* its banks, each a 4-byte word a cycle */
    uint32_t hop_cycles;          /* the network: one hop (router pipeline + link) */
    uint32_t turn_cycles;         /* ... a tile to its own router (the router pipeline) */
    uint64_t link_bytes;          /* ... bytes per cycle on one link */
    uint64_t header_bytes;        /* ... added to every tile */
    double hbm_bpc, ddr_bpc;      /* tier bandwidth, bytes per chip cycle */
    uint64_t hbm_bytes, ddr_bytes;/* tier capacities */
    uint64_t hbm_lat, ddr_lat;    /* tier latency, chip cycles */
} RduChipSpec;

static inline uint32_t rdu_chip_units(const RduChipSpec *c) { return c->rows * c->cols; }
/* Where PCU slot `slot` sits: stages take slots along a snake through the grid (row 0 left to
 * right, row 1 right to left, ...). Its network endpoint is row x cols + col. */
static inline void rdu_slot_xy(const RduChipSpec *c, uint32_t slot, uint32_t *row, uint32_t *col)
{
    *row = slot / c->cols;
    uint32_t x = slot % c->cols;
    *col = (*row % 2 == 0) ? x : c->cols - 1 - x;
}

typedef enum { RDU_DEP_CONTROL, RDU_DEP_DATA } RduDepKind;

#define RDU_MAX_FUSED 64          /* rdu.stages' largest value */
#define RDU_MAX_TILE_BYTES 0xffffffffull    /* a hand-off tile: one network message */

/* An edge between two stages of one loop: the consumer's iteration i needs the producer's
 * iteration i (forward) or i - 1 (carried: a producer later in the body); the producer may run
 * `depth` iterations ahead of the consumer's release of them (back-pressure). */
typedef struct {
    uint32_t from, to;            /* stage indices within the loop */
    RduDepKind kind;
    bool carried;
    uint32_t depth;               /* buffer versions (1 for carried edges) */
    uint64_t bytes;               /* per iteration (0: a control token) */
    uint32_t pmus;                /* PMUs its buffer takes (bytes x depth) */
    uint32_t hops;                /* router-to-router hops from producer to consumer (XY) */
    uint32_t src_pcu, dst_pcu;    /* the producer's last PCU, the consumer's first (slots) */
    uint64_t xfer_cycles;         /* unloaded: 1 (into the router) + hops x hop_cycles
                                     (turn_cycles for 0 hops) + (header + bytes) / link_bytes */
    char *tensor;                 /* its tensor's name (NULL: control) */
} RduDep;

typedef struct {
    char *name;                   /* the node names, '+' between fused ones; or the loop's */
    int child;                    /* a nested loop: its index in RduKernel.loops; -1: a leaf */
    int nodes[RDU_MAX_FUSED];     /* graph nodes fused here (leaves), up to rdu.stages */
    uint32_t nnodes;
    bool fixed;
    uint64_t work_cycles;         /* compute per iteration on one PCU */
    uint32_t pcus;                /* PCUs given to it (leaves) */
    uint64_t compute_cycles;      /* per iteration, with its PCUs, pipeline fill included, at
                                     least pmu_cycles */
    uint64_t pmu_cycles;          /* per iteration, reading its on-chip inputs out of their
                                     PMUs' banks (4 bytes a bank a cycle) */
    uint64_t sram_rd;             /* bytes per iteration of resident (tier sram) inputs */
    uint64_t rd[4], wr[4];        /* bytes per iteration read from / written to each RduTier */
    uint64_t flops;               /* per iteration (2 per MAC) */
    uint32_t first_pcu;           /* placement: its first PCU in snake order */
    uint64_t tile;                /* its work per iteration is work_cycles / tile (tiling of
                                     its loop or of a loop around it) */
} RduStage;

typedef struct {
    char *name;
    uint64_t trips;               /* after tiling */
    RduCtrl ctrl;
    RduStage *st;
    uint32_t nst;
    RduDep *dep;
    uint32_t ndep;
    int parent;                   /* loop index in the kernel, -1: the kernel's root */
    uint64_t tile;                /* its trips = the graph's trips x tile */
    uint64_t split;               /* an iteration's hand-offs are bytes / split: its tile times
                                     the tiles of the loops around it (each halves the data of
                                     every iteration inside it) */
} RduMLoop;

typedef struct {
    RduMLoop *loops;              /* loops[0] is the root: trips 1, the top-level items */
    uint32_t nloops;
    uint32_t pcus;                /* used */
    uint64_t pmus;                /* used (buffers and resident tensors, each capped at 2^30) */
    uint64_t sram_bytes;          /* buffers x depth + resident tensors */
    double ii;                    /* predicted initiation interval of its busiest loop */
    uint64_t predicted_cycles;    /* one call: the metapipeline formula over its loops,
                                     memory-bound stages at their tier bandwidth (saturating) */
    uint64_t max_tile;            /* its largest hand-off tile, bytes */
} RduKernel;

/* Kernel calls kernels [first, first + count) in order, `repeats` times over: a loop whose
 * body splits into kernels with a carried edge between them runs one trip a call (the host
 * loops over the parts, as a GPU's per-layer kernels do); every other kernel runs once. */
typedef struct {
    uint32_t first, count;
    uint64_t repeats;
} RduCallGroup;

typedef struct {
    RduKernel *k;
    uint32_t nk;
    RduCallGroup *groups;         /* the host's calls, in order */
    uint32_t ngroups;
    GString *notes;               /* why it split, what was tiled (one line each) */
    uint64_t sram_resident;       /* tier sram tensors */
} RduProgram;

/* Maps g onto the chip. Fails (ARCHSIM_EXIT_CONFIG, naming the graph position) only when one
 * stage alone cannot fit the chip (a tensor bigger than the whole SRAM, more PMUs than there
 * are); a graph too big for one kernel is split and says why in notes. */
RduProgram *rdu_map(const RduGraph *g, const RduChipSpec *chip, GError **error);
void rdu_program_free(RduProgram *p);
/* The host's kernel calls in all, and (predicted, may be NULL) their predicted cycles summed;
 * both saturate at 2^64 - 1. */
uint64_t rdu_program_calls(const RduProgram *p, uint64_t *predicted);
/* `archsim rdu map`'s report: kernels, stages with their placement and PCUs, buffers with their
 * depths and sizes, SRAM used, the predicted initiation interval. */
void rdu_program_report(const RduProgram *p, const RduGraph *g, const RduChipSpec *chip,
                        GString *out);
/* A stage's time per iteration alone: its compute, or its tier traffic at the tier's
 * bandwidth after the tier's latency when that takes longer (a stage issues its transfers as
 * it starts and ends when they have landed; what the metapipeline's slowest stage is measured
 * in). */
double rdu_stage_time(const RduStage *s, const RduChipSpec *chip);

#endif
