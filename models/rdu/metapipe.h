/* metapipe.h: a mapped kernel (mapper.h) run event by event: each stage a unit that starts its
 * next iteration when its inputs are published and its output buffers have a free version, as
 * Spatial's controllers define it (Koeplinger et al., PLDI 2018): `pipe` overlaps stages across
 * iterations (a buffer version is released when its consumer finishes it), `stream` releases a
 * FIFO entry when its consumer starts it, `sequential` starts iteration i + 1 only when the
 * whole body has finished i. A nested loop is a stage whose iteration is a whole run of its
 * controller. Memory traffic goes out through a hook (the chip sends it to its tiers).
 * For stages of T_1..T_k cycles over N iterations this gives sum T + (N - 1) max T pipelined and
 * N sum T sequential (docs/rdu.md, "Metapipelining").
 */
#ifndef ARCHSIM_RDU_METAPIPE_H
#define ARCHSIM_RDU_METAPIPE_H

#include "../../sim/engine.h"
#include "../../sim/tracedump.h"
#include "mapper.h"

typedef struct MpRun MpRun;
typedef struct MpStage MpStage;

typedef struct {
    /* a transfer of `bytes` to or from tier (RDU_TIER_HBM or _DDR) for stage st: the owner
     * calls mp_mem_done(run, st) when it completes */
    void (*mem)(void *ctx, MpStage *st, RduTier tier, bool write, uint64_t bytes);
    /* the kernel's every stage has finished its last iteration */
    void (*done)(void *ctx);
    /* a tile of `bytes` handed over edge d now: the owner sends it across its network and
     * calls mp_tile_arrived(run, tile, gen) when it lands. NULL: it lands the edge's
     * xfer_cycles after now, every hand-off on its own. */
    void (*net)(void *ctx, void *tile, uint32_t gen, const RduDep *d, uint64_t bytes);
    /* stage `stage` would end `cycles` on, past the last tick the engine holds: the owner
     * fails the run (the stage stays busy, so nothing else follows it); NULL: it ends at the
     * last tick */
    void (*fail)(void *ctx, const char *stage, uint64_t cycles);
    void *ctx;
} MpHooks;

/* Per leaf stage, in the order mp_stage_stats lists them. Cycles of the chip clock. */
typedef struct {
    const char *name;          /* loop.stage */
    uint64_t iterations;       /* iterations run (over every run of its loop) */
    uint64_t busy;             /* cycles working */
    uint64_t starved;          /* cycles idle with work left, an input not yet published */
    uint64_t blocked;          /* cycles idle with its inputs ready, an output buffer full */
} MpStageStats;

/* A run of kernel k on eng; `period` ticks per chip cycle. Stage tracks are registered in td
 * (may be NULL) under `prefix`.LOOP.STAGE. */
MpRun *mp_new(Engine *eng, Tick period, const RduKernel *k, const MpHooks *hooks, TraceDump *td,
              const char *prefix);
void mp_free(MpRun *r);
/* Starts the kernel now (the current tick must be a chip clock edge). */
void mp_start(MpRun *r);
void mp_mem_done(MpRun *r, MpStage *st);
/* A tile sent through hooks.net has landed; one of a loop run that has ended (gen differs) is
 * dropped. */
void mp_tile_arrived(MpRun *r, void *tile, uint32_t gen);
bool mp_done(const MpRun *r);
/* The leaf stages' counters (valid until mp_free). */
uint32_t mp_stage_count(const MpRun *r);
const MpStageStats *mp_stage_stats(MpRun *r, uint32_t i);
/* Start tick and end tick of the kernel. */
Tick mp_started(const MpRun *r);
Tick mp_finished(const MpRun *r);
/* What each stage is doing, for the deadlock report. */
void mp_dump(const MpRun *r, GString *out);

#endif
