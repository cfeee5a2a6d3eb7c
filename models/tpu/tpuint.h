/* tpuint.h: the systolic-array model's edge traffic, opened for the teaching dump and the tests
 * (not part of tpu.h's contract). tputeach.c derives what every PE holds from the same mapping
 * (tpumodel.c's Sched: Sr, Sc, T, folds, fold length P); test_tputeach.c checks that what enters
 * and leaves the edge PEs, cycle by cycle, is exactly what these demand rows hold. Also the
 * hooks by which tpumodel.c's memory model feeds the DRAM traces (tpudram.c).
 */
#ifndef ARCHSIM_TPUINT_H
#define ARCHSIM_TPUINT_H

#include "tpu.h"

/* The three edge operands, in tpumodel.c's order (its OP_IFMAP, OP_FILTER, OP_OFMAP). */
typedef enum { TPU_EDGE_IFMAP = 0, TPU_EDGE_FILTER, TPU_EDGE_OFMAP } TpuEdgeOp;

/* A layer's mapping as the model schedules it: the GEMM o[M][N] = a[M][K] x w[K][N], Sr x Sc
 * mapped onto R x C (row_folds x col_folds folds, column folds outer), T streamed, P cycles per
 * fold (stalls aside). */
typedef struct {
    TpuDataflow df;
    uint64_t M, N, K, R, C, Sr, Sc, T, row_folds, col_folds, P;
} TpuEdgeShape;

typedef struct TpuEdge TpuEdge;

/* The DRAM read estimator keeps set numbers as int32 relative to a base it moves every
 * tpu_est_rebias_at sets (default 2^30; the tests lower it to check the move changes nothing). */
extern int64_t tpu_est_rebias_at;

/* The model's schedule of layer l (compat as tpu_run_layer's); NULL and the model's error for a
 * layer it refuses. */
TpuEdge *tpu_edge_new(const TpuArch *a, const TpuLayer *l, bool compat, GError **error);
const TpuEdgeShape *tpu_edge_shape(const TpuEdge *e);
/* Selects fold (column fold fc, row fold fr). */
void tpu_edge_fold(TpuEdge *e, uint64_t fc, uint64_t fr);
/* Row i (0 .. P-1) of the current fold: the valid addresses operand op's edge ports read
 * (ifmap, filter) or write (ofmap), in port order, into out (max(R, C) entries); returns how
 * many. The very rows tpu_run_layer feeds to its memory model. */
uint64_t tpu_edge_row(const TpuEdge *e, TpuEdgeOp op, uint64_t i, int64_t *out);
/* SCALE-Sim's address of a[i][j] (ifmap), w[i][j] (filter) or o[i][j] (ofmap); -1 if none. */
int64_t tpu_edge_addr(const TpuEdge *e, TpuEdgeOp op, uint64_t i, uint64_t j);
void tpu_edge_free(TpuEdge *e);

/* ---- tputeach.c: one PE in one cycle ----------------------------------------------------- */
/* GEMM indices (o[M][N] = a[M][K] x w[K][N]) of what the PE holds; -1: none. */
typedef struct {
    bool mac;                    /* o[om][on] += a[am][ak] * w[wk][wn] this cycle */
    bool moving;                 /* the value held is in transit: a stationary operand being
                                    loaded, an output draining, an operand or partial sum passing
                                    a PE that has no work for it */
    int64_t am, ak, wk, wn, om, on;
} TpuTeachPe;

/* PE (r, c) at cycle `cycle` of the layer (0 .. folds x P - 1; memory stalls not counted). */
void tpu_teach_pe(const TpuEdgeShape *sh, bool compat, uint64_t cycle, uint64_t r, uint64_t c,
                  TpuTeachPe *out);

/* ---- tpudram.c: SCALE-Sim's DRAM traces, fed by tpumodel.c's buffers ------------------------
 * Called only when the layer has DRAM traces (TpuTraces.dram); op is TPU_EDGE_IFMAP or
 * TPU_EDGE_FILTER for the read buffers. */
/* CALC (EstBuf): a word joins the estimator's set being filled. */
void tpu_dram_est_word(TpuDramTraces *d, TpuEdgeOp op, int64_t addr);
/* CALC: a prefetch of every word added since the last one (sets of `items` words), requested
 * over `cycles` cycles at `bw` words per cycle, the first answered at `first_cycle`. */
void tpu_dram_est_prefetch(TpuDramTraces *d, TpuEdgeOp op, uint64_t items, int64_t first_cycle,
                           uint64_t cycles, uint64_t bw);
/* USER (UserBuf): the fetch order has `nelems` elements (-1 included), read in lines of `bw`;
 * the SRAM's halves hold `active` and `pf` words. Then tpu_dram_user_elem for every element in
 * fetch order (index from 0), then tpu_dram_user_fill for the fill before cycle 0. */
void tpu_dram_user_begin(TpuDramTraces *d, TpuEdgeOp op, uint64_t nelems, uint64_t bw,
                         uint64_t active, uint64_t pf);
void tpu_dram_user_elem(TpuDramTraces *d, TpuEdgeOp op, uint64_t index, int64_t addr);
void tpu_dram_user_fill(TpuDramTraces *d, TpuEdgeOp op);
/* USER: a refill (a window slide); the previous read's last line was answered at
 * `last_response`. */
void tpu_dram_user_refill(TpuDramTraces *d, TpuEdgeOp op, double last_response);
/* OFMAP (WrBuf): n words written towards DRAM, in order; a drain of `nlines` lines holding
 * words[k] words each, lines of `bw` words, the first sent at cycle `start`. */
void tpu_dram_of_words(TpuDramTraces *d, const int64_t *addrs, uint64_t n);
void tpu_dram_of_drain(TpuDramTraces *d, double start, const uint32_t *words, uint64_t nlines,
                       uint64_t bw);
/* CPython 3.11's list(s) for s = set() and s.add(keys[k]) for k = 0 .. n-1: writes the distinct
 * keys to out in that order, returns how many. */
size_t tpu_pyset_order(const int64_t *keys, size_t n, int64_t *out);

#endif
