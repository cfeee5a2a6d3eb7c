/* tpuint.h: the systolic-array model's edge traffic, opened for the teaching dump and the tests
 * (not part of tpu.h's contract). tputeach.c derives what every PE holds from the same mapping
 * (tpumodel.c's Sched: Sr, Sc, T, folds, fold length P); test_tputeach.c checks that what enters
 * and leaves the edge PEs, cycle by cycle, is exactly what these demand rows hold.
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

#endif
