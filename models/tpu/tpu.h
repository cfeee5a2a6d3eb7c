/* tpu.h: the systolic-array accelerator (TPU) model and its SCALE-Sim inputs.
 *
 * An R x C array of multiply-accumulate PEs runs one layer at a time as a GEMM
 * (M = ofmap pixels, N = filters, K = filter window), in one of three stationary dataflows, fed by
 * double-buffered IFMAP / filter SRAMs and drained into an OFMAP SRAM backed by DRAM (Samajdar et
 * al., "SCALE-Sim: Systolic CNN Accelerator Simulator", arXiv 1811.02883; Kung, "Why systolic
 * architectures?", IEEE Computer 1982; Jouppi et al., ISCA 2017 for the TPU). The inputs are
 * SCALE-Sim v2's: a `.cfg` file and a topology CSV (scale-sim-v2's README describes both; docs/
 * references.md §9; the shipped ones are copied in tests/tpu/shipped/).
 *
 *   scalein.c   reading .cfg and topology CSVs (conv and GEMM forms), with file:line:col errors
 *   tpumodel.c  per layer: folds, cycles, utilizations, SRAM and DRAM traffic, stalls
 *   tpureport.c COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv, DETAILED_ACCESS_REPORT.csv, SRAM traces
 *   tpudram.c   SCALE-Sim's DRAM traces (CALC and USER reads, OFMAP drains)
 *   tpusys.c    the `tpu-array` component (its mem port) and `system.type: tpu`
 *   tpumem.c    `tpu-memory`: SCALE-Sim's CALC/USER interface as a memory component
 *   tpucli.c    `archsim tpu -c CFG -t TOPOLOGY [-i conv|gemm] [--scalesim-compat] -o DIR`
 */
#ifndef ARCHSIM_TPU_H
#define ARCHSIM_TPU_H

#include <glib.h>
#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "../../sim/registry.h"
#include "../../sim/outfile.h"

typedef enum { TPU_OS = 0, TPU_WS, TPU_IS } TpuDataflow;
typedef enum { TPU_BW_CALC = 0, TPU_BW_USER } TpuBwMode;

/* The architecture: SCALE-Sim's [general], [architecture_presets] and [run_presets]. */
typedef struct {
    char *run_name;
    uint64_t rows, cols;                     /* ArrayHeight (R), ArrayWidth (C) */
    uint64_t ifmap_kb, filter_kb, ofmap_kb;  /* SRAM sizes in KiB (word = 1 byte) */
    int64_t ifmap_offset, filter_offset, ofmap_offset;   /* address spaces */
    TpuDataflow dataflow;
    TpuBwMode bw_mode;                       /* InterfaceBandwidth */
    uint64_t bandwidth;                      /* words/cycle, USER mode (first value of the list) */
    char *file;                              /* where it came from, for messages */
    GPtrArray *warnings;                     /* "FILE:LINE:COL: warning: ..." lines the CLI
                                                prints (keys that change nothing), or NULL */
} TpuArch;

/* One layer as SCALE-Sim holds it (a depthwise `DP` row is already expanded). */
typedef struct {
    char *name;
    uint64_t ifmap_h, ifmap_w, filter_h, filter_w, channels, filters, stride_h, stride_w;
    uint32_t line;                           /* its line in the topology file */
} TpuLayer;

typedef struct {
    char *file;
    TpuLayer *layers;
    int nlayers;
    GPtrArray *warnings;                     /* "FILE:LINE:COL: warning: ..." (title rows) */
} TpuTopology;

/* ---- limits -------------------------------------------------------------------------------
 * One table bounds everything the model sizes from its input, for the .cfg (scalein.c) and for
 * `system.type: tpu` (tpusys.c's parameter ranges use the same macros), so that no input makes
 * archsim ask for memory it cannot have: the value, its limit and what it would cost are named
 * in the message (docs/tpu.md, "Limits"). Per word of what a value sizes, the model holds:
 * 8 bytes per edge port (R or C: a demand row), 4 bytes per SRAM word (the estimator's index of
 * the words the SRAM window holds, and the OFMAP buffer's lines), 8 bytes per word of
 * bandwidth (a DRAM trace line). Offsets are not sizes: they keep every address >= 0 (-1 marks
 * an idle port, as in SCALE-Sim) and inside int64 once an operand of 2^40 words is added. */
#define TPU_MAX_ARRAY_DIM 65536ull              /* ArrayHeight, ArrayWidth; rows, cols */
#define TPU_MAX_SRAM_KB (1ull << 30)            /* each SRAM: 1 TiB */
#define TPU_MAX_BANDWIDTH 1000000000ull         /* Bandwidth, words per cycle */
#define TPU_MAX_OFFSET (1ull << 60)             /* IfmapOffset, FilterOffset, OfmapOffset */
#define TPU_MAX_LAYER_MEMORY (4ull << 30)       /* bytes the model may hold for one layer */
#define TPU_MAX_INPUT_BYTES (64u << 20)         /* a .cfg or topology file */
#define TPU_MAX_LAYERS (1u << 16)               /* layers of a topology, DP rows expanded */
typedef enum {
    TPU_LIM_ROWS = 0, TPU_LIM_COLS, TPU_LIM_IFMAP_SRAM, TPU_LIM_FILTER_SRAM, TPU_LIM_OFMAP_SRAM,
    TPU_LIM_IFMAP_OFFSET, TPU_LIM_FILTER_OFFSET, TPU_LIM_OFMAP_OFFSET, TPU_LIM_BANDWIDTH,
    TPU_LIM_N
} TpuLimitId;
typedef struct {
    const char *cfg_key;         /* SCALE-Sim's .cfg key */
    const char *param;           /* tpu-array's parameter */
    uint64_t min, max;           /* in the .cfg's unit */
    uint64_t bytes_per;          /* bytes the model holds per unit (0: not a size) */
    const char *what;            /* what those bytes are, for the message */
} TpuLimit;
extern const TpuLimit tpu_limits[TPU_LIM_N];
/* "N: above archsim's limit of MAX (it would take SIZE: WHAT)", or NULL when v is within. */
char *tpu_limit_check(TpuLimitId id, uint64_t v);
/* The bytes tpu_run_layer would hold for layer l at most (its tables, the SRAM windows' index,
 * the USER fetch-order index, the OFMAP buffer, the traces' buffers when traced); and the part
 * that dominates, for the message. UINT64_MAX when the sizes overflow. */
uint64_t tpu_layer_memory(const TpuArch *a, const TpuLayer *l, bool compat, bool traced,
                          const char **largest);
/* The checks tpu_run_layer makes before it allocates (the operand sizes, tpu_layer_memory
 * against TPU_MAX_LAYER_MEMORY), so that a run can refuse a layer before it starts. Errors:
 * ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR, "layer NAME: ...". */
bool tpu_layer_check(const TpuArch *a, const TpuLayer *l, bool compat, bool traced,
                     GError **error);

/* ---- scalein.c ---------------------------------------------------------------------------- */
/* Reads a SCALE-Sim .cfg (INI as Python's configparser reads it: `key = value` or `key: value`,
 * case-insensitive keys, # and ; comments). Errors (ARCHSIM_CONFIG_ERROR domain, code ARCHSIM_EXIT_CONFIG, exit 78; a missing
 * file ARCHSIM_EXIT_NOINPUT):
 * "FILE:LINE:COL: problem" with a hint where one helps, "FILE: [section] Key is missing" for an
 * absent key. */
bool tpu_arch_load(const char *path, TpuArch *out, GError **error);
void tpu_arch_clear(TpuArch *a);
/* Reads a topology CSV: conv rows `name, ifmap_h, ifmap_w, filter_h, filter_w, channels,
 * filters, stride[, stride_w],` or, with gemm, `name, M, N, K,` (turned into ifmap M x K, filter
 * 1 x K, 1 channel, N filters, stride 1). Reads the evident meaning where SCALE-Sim chokes: the
 * trailing comma optional, tabs or spaces around fields, extra empty columns; a name containing
 * "DP" expands into `channels` one-channel layers named NAME"Channel_"i. Errors (ARCHSIM_TRACE_ERROR
 * domain, code ARCHSIM_EXIT_DATAERR, exit 65): "FILE:LINE:COL: problem" (a non-number, a zero, a filter larger than the ifmap, too
 * few fields, an empty file). */
bool tpu_topology_load(const char *path, bool gemm, TpuTopology *out, GError **error);
void tpu_topology_clear(TpuTopology *t);

/* ---- tpumodel.c --------------------------------------------------------------------------- */
/* Per-layer results with SCALE-Sim's meanings (its report columns). Cycles that SCALE-Sim prints
 * as floats (DRAM start/stop) are kept as doubles so the reports can print them the same way. */
typedef struct {
    uint64_t total_cycles, stall_cycles;
    double overall_util, mapping_eff, compute_util;          /* percent */
    uint64_t sram_ifmap_reads, sram_filter_reads, sram_ofmap_writes;
    int64_t sram_ifmap_start, sram_ifmap_stop, sram_filter_start, sram_filter_stop;
    int64_t sram_ofmap_start, sram_ofmap_stop;
    double dram_ifmap_start, dram_ifmap_stop, dram_filter_start, dram_filter_stop;
    double dram_ofmap_start, dram_ofmap_stop;
    uint64_t dram_ifmap_reads, dram_filter_reads, dram_ofmap_writes;
    double bw_sram_ifmap, bw_sram_filter, bw_sram_ofmap;     /* words/cycle */
    double bw_dram_ifmap, bw_dram_filter, bw_dram_ofmap;
    /* the GEMM and its mapping */
    uint64_t M, N, K, Sr, Sc, T, row_folds, col_folds;
    uint64_t macs;
    /* 0: every fold simulated; else the layer was sampled (tpu_run_layer): this many folds
     * simulated row by row, the ifmap and filter DRAM reads of the rest estimated */
    uint64_t sampled_folds;
} TpuLayerResult;

/* Simulates one layer. compat: SCALE-Sim v2's numbers, quirks included (docs/experiments/
 * systolic.md); otherwise the corrected model. A huge layer in the default mode with CALC
 * bandwidth is sampled: once the DRAM read estimator has taken tpu_sample_budget words (0: never
 * sample), the folds before the last are no longer simulated row by row; cycles, stalls (the
 * sample's rate; none in CALC), SRAM traffic, utilizations and ofmap DRAM writes stay exact or
 * closed forms, the ifmap and filter DRAM reads of the rest are extrapolated (docs/tpu.md).
 * Compat mode, USER bandwidth and runs with traces always simulate every fold. */
#define TPU_SAMPLE_BUDGET (1ull << 28)
extern uint64_t tpu_sample_budget;
/* Set (to the signal number) by `archsim tpu`'s SIGINT/SIGTERM/SIGHUP handler: the layer under
 * way stops at its next fold with ARCHSIM_EXIT_INTERRUPTED, so that a long layer does not hold
 * the process for seconds after a signal. */
extern volatile sig_atomic_t tpu_stop_requested;
bool tpu_run_layer(const TpuArch *a, const TpuLayer *l, bool compat, TpuLayerResult *out,
                   GError **error);

/* Per-cycle traces in SCALE-Sim's formats. SRAM (IFMAP_SRAM_TRACE.csv, FILTER_SRAM_TRACE.csv,
 * OFMAP_SRAM_TRACE.csv: the cycle the row is served, then one address per edge port, -1 idle)
 * for the demand rows whose cycle (before stalls) is in [from, to]. DRAM (tpudram.c:
 * IFMAP_DRAM_TRACE.csv, FILTER_DRAM_TRACE.csv, OFMAP_DRAM_TRACE.csv: the cycle the DRAM port
 * answers, then the words of that cycle's read or write, -1 empty, 1.0 SCALE-Sim's padding of a
 * row narrower than the widest) for the rows whose cycle is in [from, to] (from = 0: the first
 * fill before cycle 0 too). A run with traces is never sampled. */
typedef struct TpuDramTraces TpuDramTraces;
typedef struct {
    FILE *f[3];                  /* SRAM: ifmap, filter, ofmap; NULL: not written */
    char *path[3], *tmp[3];      /* each file and its temporary name (sim/outfile.h) */
    uint64_t from, to;
    TpuDramTraces *dram;         /* DRAM traces (tpu_dram_traces_open); NULL: not written */
} TpuTraces;
typedef TpuTraces TpuSramTraces;             /* its name before the DRAM traces */
bool tpu_run_layer_traced(const TpuArch *a, const TpuLayer *l, bool compat,
                          const TpuTraces *tr, TpuLayerResult *out, GError **error);
/* Opens DIR/layerN/{IFMAP,FILTER,OFMAP}_SRAM_TRACE.csv (tpureport.c), written beside them and
 * renamed by tpu_traces_close; tpu_traces_abort removes them (the layer failed). An existing
 * file of that name is replaced only when it is a SCALE-Sim trace (tpu_trace_file). */
bool tpu_traces_open(const char *dir, int layer, TpuTraces *tr, GError **error);
bool tpu_traces_close(TpuTraces *tr, GError **error);
void tpu_traces_abort(TpuTraces *tr);
/* "archsim's own" (sim/outfile.h) for the TPU's files: a report whose first line is that
 * report's header; a trace whose lines are comma-separated numbers. */
extern const OutfileKind tpu_report_file, tpu_trace_file;

/* ---- tpudram.c ---------------------------------------------------------------------------- */
/* Starts layer `layer`'s DRAM traces in DIR/layerN/ (made if missing) for the rows whose cycle
 * is in [from, to]. Rows go to NAME.rows.part; tpu_dram_traces_close pads them as SCALE-Sim does
 * and renames the files to their names, or on a write error (ARCHSIM_EXIT_IOERR) removes them:
 * a layer's DRAM traces exist whole or not at all. tpu_dram_traces_abort removes them (the layer
 * failed). Both free d. Errors of open: ARCHSIM_EXIT_CANTCREAT. */
TpuDramTraces *tpu_dram_traces_open(const char *dir, int layer, uint64_t from, uint64_t to,
                                    GError **error);
bool tpu_dram_traces_close(TpuDramTraces *d, GError **error);
void tpu_dram_traces_abort(TpuDramTraces *d);

/* ---- tpureport.c -------------------------------------------------------------------------- */
/* Formats a double as Python's str() / repr() does (shortest round trip; "1.0", "1e-05",
 * "12345678901234567.0" -> "1.2345678901234568e+16"). */
void tpu_py_float(GString *out, double v);
/* Opens the report files in dir (created), writes their headers: SCALE-Sim's three, and
 * archsim's ROOFLINE.csv (per layer: operations (2 per MAC), DRAM bytes, operations per DRAM
 * byte, achieved operations per cycle counting the first fill, the compute roof 2 R C and,
 * with a USER bandwidth B per operand interface, the bandwidth roof 3 B x intensity). */
typedef struct TpuReports TpuReports;
TpuReports *tpu_reports_open(const char *dir, GError **error);
void tpu_reports_add(TpuReports *r, int layer_id, const char *name, const TpuArch *a,
                     const TpuLayerResult *res);
bool tpu_reports_close(TpuReports *r, GError **error);
/* Discards the partial reports (a layer failed). */
void tpu_reports_abort(TpuReports *r);

/* ---- tputeach.c -------------------------------------------------------------------------- */
typedef enum { TPU_TEACH_TEXT = 0, TPU_TEACH_VCD } TpuTeachFormat;
/* The per-PE view of one layer for teaching (arrays up to 16 x 16): for each cycle in
 * [from, to] (0, 0: the whole layer), which operands every PE holds and whether it computes,
 * showing the skewed wavefront of the dataflow; text or VCD to `path`. Errors: the array is
 * larger than 16 x 16 (ARCHSIM_CONFIG_ERROR, exit 78), the file cannot be written (exit 74), an
 * existing path that is not an archsim teaching dump, or one without force (exit 73;
 * sim/outfile.h). */
/* Cycles from .. to of the layer, both included; to = UINT64_MAX: to its end. */
bool tpu_teach_layer(const TpuArch *a, const TpuLayer *l, bool compat, TpuTeachFormat fmt,
                     uint64_t from, uint64_t to, const char *path, bool force, GError **error);

/* ---- tpusys.c: `system.type: tpu` for `archsim run` -------------------------------------- */
extern const ComponentClass tpu_array_class;
/* tpumem.c: SCALE-Sim's CALC/USER interface as the memory a tpu-array's mem port leads to */
extern const ComponentClass tpu_memory_class;
extern const SystemClass tpu_system;

/* `archsim tpu` runs its layers on the same machine as `archsim run`: a tpu-array on the
 * architecture a and topology t (borrowed), its mem port linked to a tpu-memory. run(ctx, i,
 * out, error) computes layer i (the CLI's model run, with its traces); once the layer has
 * played out on the port, done(ctx, i, res) gets its report line (its cycles with the port's
 * stalls: none with tpu-memory). False with *error (run's error, unchanged) when a layer
 * failed; the layers before it have been done. */
typedef bool (*TpuLayerRunFn)(void *ctx, int layer, TpuLayerResult *out, GError **error);
typedef void (*TpuLayerDoneFn)(void *ctx, int layer, const TpuLayerResult *res);
bool tpu_port_run(const TpuArch *a, const TpuTopology *t, TpuLayerRunFn run, TpuLayerDoneFn done,
                  void *ctx, GError **error);

/* ---- tpucli.c ----------------------------------------------------------------------------- */
int tpu_main(int argc, char **argv);

#endif
