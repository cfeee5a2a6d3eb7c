/* graph.h: a parallel-pattern dataflow graph in YAML (docs/rdu.md, "The graph"): nodes of
 * parallel patterns (map, zip, reduce, fold, scan) and tensor ops (gemm, softmax, rmsnorm, ...),
 * tensors with shapes and dtypes as the edges between them, and loops with a trip count and a
 * controller kind (pipe = metapipelined, sequential, stream), as Spatial defines its controllers
 * (Koeplinger et al., PLDI 2018; Prabhakar et al., Plasticine, ISCA 2017). Every error is
 * "file:line:col: problem" with ARCHSIM_EXIT_CONFIG (78).
 */
#ifndef ARCHSIM_RDU_GRAPH_H
#define ARCHSIM_RDU_GRAPH_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../sim/config.h"

typedef enum {
    RDU_OP_FIXED,       /* synthetic: `cycles` per iteration on one unit, no data */
    RDU_OP_MAP,         /* element-wise, one input */
    RDU_OP_ZIP,         /* element-wise, two inputs of one shape */
    RDU_OP_REDUCE,      /* the last axis reduced */
    RDU_OP_FOLD,        /* a reduce with an initial value (an optional second input) */
    RDU_OP_SCAN,        /* prefix over the last axis */
    RDU_OP_GEMM,        /* [.., M, K] x [K, N] -> [.., M, N] */
    RDU_OP_SOFTMAX,     /* over the last axis: max, exp-sum, scale (three passes) */
    RDU_OP_RMSNORM,     /* over the last axis (two passes), optional weight [D] */
    RDU_OP_LAYERNORM,   /* over the last axis (three passes), optional weight [D] */
    RDU_OP_ROPE,        /* rotary position embedding, element-wise with a table */
    RDU_OP_SILU,        /* x * sigmoid(x), element-wise */
    RDU_OP_KV_READ,     /* reads its output from a memory tier (the KV cache) */
    RDU_OP_KV_WRITE,    /* writes its input to a memory tier */
    RDU_OP_GATHER,      /* rows of a table (input 0) at indices (input 1) */
    RDU_OP_RESHAPE,     /* the same elements in another shape: a view, no work */
    RDU_OP_COUNT
} RduOp;

typedef enum { RDU_BF16, RDU_FP32, RDU_INT8, RDU_DTYPES } RduDtype;

/* Where a tensor lives when no node of the graph makes it: read from HBM or DDR at every
 * iteration that uses it, or resident in on-chip SRAM (PMUs, loaded once, not counted). A
 * tensor a node makes is on chip, in a buffer between stages, unless it is given a tier too:
 * then the node writes it there. */
typedef enum { RDU_TIER_CHIP, RDU_TIER_HBM, RDU_TIER_DDR, RDU_TIER_SRAM } RduTier;

#define RDU_MAX_RANK 4
#define RDU_MAX_IN 3
#define RDU_MAX_NODES 4096
#define RDU_MAX_TENSORS 8192
#define RDU_MAX_LOOPS 1024
#define RDU_MAX_DEPTH 16        /* loop nesting */

typedef struct {
    char *name;
    uint32_t rank;
    uint64_t dim[RDU_MAX_RANK];
    RduDtype dtype;
    RduTier tier;
    int producer;             /* node index, or -1 */
    const char *file;
    int line, col;
} RduTensor;

typedef struct {
    char *name;
    RduOp op;
    uint64_t cycles;          /* fixed: per iteration */
    int in[RDU_MAX_IN];       /* tensor indices */
    uint32_t nin;
    int out;                  /* tensor index, or -1 */
    RduTier tier;             /* kv_read / kv_write: the tier they use (hbm unless given) */
    int loop;                 /* the loop whose body lists it, or -1 (top level) */
    int line, col;
} RduNode;

typedef enum { RDU_CTRL_PIPE, RDU_CTRL_SEQUENTIAL, RDU_CTRL_STREAM } RduCtrl;

typedef struct {
    bool is_loop;
    int index;                /* node or loop index */
} RduEntry;

typedef struct {
    char *name;
    uint64_t trips;
    RduCtrl ctrl;
    uint32_t depth;           /* buffer versions between stages; 0: the mapper's rule */
    RduEntry *body;
    uint32_t nbody;
    int parent;               /* the loop whose body lists it, or -1 (top level) */
    int line, col;
} RduLoop;

typedef struct {
    char *path;
    const char *file;         /* interned, for messages */
    RduNode *nodes;
    uint32_t nnodes;
    RduTensor *tensors;
    uint32_t ntensors;
    RduLoop *loops;
    uint32_t nloops;
    RduEntry *top;            /* top-level items in run order (data order, then file order) */
    uint32_t ntop;
} RduGraph;

extern const char *const rdu_op_names[RDU_OP_COUNT];
extern const char *const rdu_dtype_names[RDU_DTYPES];
extern const char *const rdu_ctrl_names[];
extern const char *const rdu_tier_names[];
static inline uint32_t rdu_dtype_bytes(RduDtype d) { return d == RDU_FP32 ? 4 : d == RDU_BF16 ? 2 : 1; }
uint64_t rdu_tensor_elems(const RduTensor *t);
uint64_t rdu_tensor_bytes(const RduTensor *t);

/* Reads a graph file (the top-level key `graph:`). NULL with ARCHSIM_EXIT_NOINPUT when the file
 * cannot be read, ARCHSIM_EXIT_CONFIG "file:line:col: problem" for every fault in it. */
RduGraph *rdu_graph_load(const char *path, GError **error);
/* The same from a parsed tree (root must hold `graph:`); path names the file in messages. */
RduGraph *rdu_graph_from_tree(const CfgNode *root, const char *path, GError **error);
void rdu_graph_free(RduGraph *g);
/* The item of scope `scope` (a loop index, or -1 for the top level) that holds node n. */
RduEntry rdu_graph_entry_in(const RduGraph *g, int n, int scope);
/* The innermost loop (or -1, the top level) whose body holds both nodes, at any depth. */
int rdu_graph_common_scope(const RduGraph *g, int a, int b);

#endif
