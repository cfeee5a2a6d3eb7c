/* tpumodel.c: one layer on the systolic array, cycle by cycle at the array's edge (tpu.h).
 *
 * The layer is the GEMM ofmap[M][N] = ifmap[M][K] x filter[K][N] (M ofmap pixels, N filters,
 * K = filter window x channels; im2col addresses as SCALE-Sim lays them out). A dataflow maps two
 * of M, N, K onto the R x C array (Sr rows, Sc columns, folded into ceil(Sr/R) x ceil(Sc/C)
 * folds, column folds outer) and streams the third over T cycles (Samajdar et al., arXiv
 * 1811.02883, sec. III):
 *
 *   os  Sr = M, Sc = N, T = K   outputs stay in the PEs; ifmap rows enter from the left, filter
 *                               columns from the top, both skewed one cycle per port
 *   ws  Sr = K, Sc = N, T = M   weights are loaded first (R cycles), ifmap streams, partial sums
 *                               leave at the bottom, skewed
 *   is  Sr = K, Sc = M, T = N   the same with the ifmap stationary and the filter streamed
 *
 * Each fold is P cycles (rows of "demand"): os T + R + C - 2 (SCALE-Sim's count; the paper and the
 * default model: 2R + C + T - 2, the outputs also drain over R rows), ws/is 2R + C + T - 2. For
 * every cycle the model produces the address each edge port reads or writes (one operand row of
 * up to R or C words) from closed forms, without building matrices, and feeds them to the memory
 * model, so memory is constant in the layer size:
 *
 *   ifmap / filter SRAM (double buffered)  CALC: never stall; DRAM traffic estimated the way
 *       SCALE-Sim's estimate mode does: unique addresses gathered into 100 sets per SRAM, a
 *       window of 50 sets active, each new half prefetched over the previous fill interval
 *   ofmap SRAM  a write buffer drained to DRAM at C words/cycle (CALC) in lines; the array stalls
 *       when the buffer is full while a drain is in flight
 *
 * A huge layer in the default mode (CALC) is sampled: after tpu_sample_budget words fed to the
 * read estimators, the folds before the last are counted in closed form and their ifmap and
 * filter DRAM reads extrapolated (tpu.h, docs/tpu.md).
 *
 * With DRAM traces (TpuTraces.dram) the three buffers also tell tpudram.c what they fetch and
 * drain (tpuint.h's hooks: the words each estimator set takes, each prefetch, refill and drain);
 * every hook sits behind a branch on that pointer, and the estimator's per-word loop has a
 * separate traced copy, so untraced runs do no trace work.
 *
 * compat = SCALE-Sim v2's numbers (scale-sim-v2 @22f88b1: systolic_compute_*.py,
 * single_layer_sim.py, memory/; docs/references.md §9), quirks included: reported
 * cycles are the index of the last cycle (one fewer than simulated), os folds are R cycles short,
 * os counts folds x (R + C) extra ofmap writes, ws/is compute utilization divides by one C too
 * many per fold, every fold's partial sums go to DRAM. The default mode fixes each one
 * (docs/experiments/systolic.md).
 */
#include <math.h>
#include <string.h>

#include "../../sim/component.h"
#include "../../sim/error.h"
#include "tpu.h"
#include "tpuint.h"

/* ---- the GEMM's operand addresses (SCALE-Sim's layout; -1: no element, e.g. past the edge) -- */
typedef struct {
    uint32_t row, col;           /* an ofmap pixel's window top-left, or a window element's */
    int64_t base;                /* offset in the window */
} Pos;

typedef struct {
    uint64_t H, W, fh, fw, ch, sh, sw, Eh, Ew;   /* ifmap, filter, strides, ofmap dims */
    uint64_t M, N, K;
    int64_t ioff, foff, ooff;
    /* im2col without divisions: per ofmap pixel m its window's top-left row and column and base
     * address, per window element k its row, column and offset in the window */
    Pos *pm, *pk;
    bool inside;                 /* every window lies inside the ifmap: no -1 */
} Gemm;

static inline int64_t ifmap_addr(const Gemm *g, uint64_t m, uint64_t k)
{
    const Pos *pm = &g->pm[m], *pk = &g->pk[k];
    if (!g->inside && (pk->row + pm->row >= g->H || pk->col + pm->col >= g->W))
        return -1;
    return pm->base + pk->base;
}

/* The tables of ifmap_addr (SCALE-Sim's im2col layout: row-major, channels innermost). */
static void gemm_tables(Gemm *g)
{
    g->pm = g_new(Pos, g->M);
    for (uint64_t m = 0; m < g->M; m++) {
        uint64_t irow = m / g->Ew * g->sh, icol = m % g->Ew * g->sw;
        g->pm[m] = (Pos){ (uint32_t)MIN(irow, UINT32_MAX / 2), (uint32_t)MIN(icol, UINT32_MAX / 2),
                          (int64_t)((irow * g->W + icol) * g->ch) + g->ioff };
    }
    g->pk = g_new(Pos, g->K);
    for (uint64_t k = 0; k < g->K; k++) {
        uint64_t crow = k / (g->fw * g->ch), kk = k % (g->fw * g->ch);
        uint64_t ccol = kk / g->ch, cch = kk % g->ch;
        g->pk[k] = (Pos){ (uint32_t)crow, (uint32_t)ccol,
                          (int64_t)((crow * g->W + ccol) * g->ch + cch) };
    }
    g->inside = (g->Eh - 1) * g->sh + g->fh <= g->H && (g->Ew - 1) * g->sw + g->fw <= g->W;
}

static void gemm_free(Gemm *g)
{
    g_free(g->pm);
    g_free(g->pk);
    g->pm = g->pk = NULL;
}

static inline int64_t filter_addr(const Gemm *g, uint64_t k, uint64_t n)
{
    return (int64_t)(n * g->fh * g->fw * g->ch + k) + g->foff;
}

static inline int64_t ofmap_addr(const Gemm *g, uint64_t m, uint64_t n)
{
    return (int64_t)(g->N * m + n) + g->ooff;
}

/* ---- demand rows --------------------------------------------------------------------------
 * One operand's edge traffic in a fold: a block of `prefix` idle rows, `body` rows of data, then
 * `suffix` idle rows, W ports wide; `skew` delays port c by c rows (the wavefront); `flip` sends
 * the body's rows last first (stationary operands are shifted in from the far edge). */
enum { OP_IFMAP, OP_FILTER, OP_OFMAP };
enum { EL_IF_MK, EL_IF_KM, EL_FI_TN, EL_FI_KN, EL_FI_KT, EL_OF_MN, EL_OF_TN, EL_OF_MT };

typedef struct {
    uint64_t W, prefix, body, suffix;
    bool skew, flip;
    int elem;                    /* how (body row b, port c) maps to an address */
} Demand;

typedef struct {
    const Gemm *g;
    TpuDataflow df;
    uint64_t R, C, Sr, Sc, T, row_folds, col_folds, P;
    Demand d[3];
    /* the current fold */
    uint64_t fr, fc, r0, c0, rows_used, cols_used;
} Sched;

/* The address at body row b, port c of operand op in the current fold, or -1. */
static inline int64_t body_elem(const Sched *s, const Demand *d, uint64_t b, uint64_t c)
{
    const Gemm *g = s->g;
    switch (d->elem) {
    case EL_IF_MK:   /* os ifmap: port c = ofmap pixel r0 + c, time b = window element */
        return c < s->rows_used ? ifmap_addr(g, s->r0 + c, b) : -1;
    case EL_IF_KM:   /* ws ifmap: time b = pixel, port c = window element r0 + c; is ifmap
                        (stationary): row b = window element r0 + b, port c = pixel c0 + c */
        if (s->df == TPU_WS)
            return c < s->rows_used ? ifmap_addr(g, b, s->r0 + c) : -1;
        return b < s->rows_used && c < s->cols_used ? ifmap_addr(g, s->c0 + c, s->r0 + b) : -1;
    case EL_FI_TN:   /* os filter: time b = window element, port c = filter c0 + c */
        return c < s->cols_used ? filter_addr(g, b, s->c0 + c) : -1;
    case EL_FI_KN:   /* ws filter (stationary): row b = window element r0 + b, port = filter */
        return b < s->rows_used && c < s->cols_used ? filter_addr(g, s->r0 + b, s->c0 + c) : -1;
    case EL_FI_KT:   /* is filter: time b = filter, port c = window element r0 + c */
        return c < s->rows_used ? filter_addr(g, s->r0 + c, b) : -1;
    case EL_OF_MN:   /* os ofmap: row b = pixel r0 + b, port c = filter c0 + c */
        return b < s->rows_used && c < s->cols_used ? ofmap_addr(g, s->r0 + b, s->c0 + c) : -1;
    case EL_OF_TN:   /* ws ofmap: time b = pixel, port c = filter c0 + c */
        return c < s->cols_used ? ofmap_addr(g, b, s->c0 + c) : -1;
    default:         /* EL_OF_MT, is ofmap: time b = filter, port c = pixel c0 + c */
        return c < s->cols_used ? ofmap_addr(g, s->c0 + c, b) : -1;
    }
}

/* Row i (0 .. P-1) of operand op in the current fold: the valid addresses, in port order, into
 * out; returns how many. Only the ports the wavefront reaches in this row are visited, with one
 * loop per operand mapping. With out NULL: the count alone, without the addresses (exact for
 * the filter and ofmap, which have no holes; the ifmap's holes past its edge are counted). */
static uint64_t demand_row(const Sched *s, int op, uint64_t i, int64_t *out)
{
    const Demand *d = &s->d[op];
    const Gemm *g = s->g;
    uint64_t lo, hi, top, n = 0;                 /* ports [lo, hi] may hold data */
    if (i < d->prefix)
        return 0;
    top = i - d->prefix;                         /* the body row (pre-skew, for port 0) */
    if (d->skew) {                               /* port c holds body row top - c */
        lo = top >= d->body ? top - d->body + 1 : 0;
        hi = MIN(top, d->W - 1);
    } else {
        if (top >= d->body)
            return 0;
        lo = 0;
        hi = d->W - 1;
    }
    uint64_t fb = d->body - 1 - top;             /* the flipped row (non-skewed operands) */
    switch (d->elem) {
    case EL_IF_MK:   /* os ifmap: port c = ofmap pixel r0 + c, time = window element */
        hi = MIN(hi, s->rows_used - 1);
        if (!out)
            break;
        for (uint64_t c = lo; c <= hi && lo <= hi; c++) {
            int64_t a = ifmap_addr(g, s->r0 + c, top - c);
            if (a >= 0)
                out[n++] = a;
        }
        return n;
    case EL_IF_KM:
        if (s->df == TPU_WS) {   /* ws ifmap: time = pixel, port c = window element r0 + c */
            hi = MIN(hi, s->rows_used - 1);
            if (!out)
                break;
            for (uint64_t c = lo; c <= hi && lo <= hi; c++) {
                int64_t a = ifmap_addr(g, top - c, s->r0 + c);
                if (a >= 0)
                    out[n++] = a;
            }
            return n;
        }
        /* is ifmap (stationary): row = window element r0 + row, port c = pixel c0 + c */
        if (fb >= s->rows_used)
            return 0;
        hi = MIN(hi, s->cols_used - 1);
        if (!out)
            break;
        for (uint64_t c = lo; c <= hi; c++) {
            int64_t a = ifmap_addr(g, s->c0 + c, s->r0 + fb);
            if (a >= 0)
                out[n++] = a;
        }
        return n;
    case EL_FI_TN:   /* os filter: time = window element, port c = filter c0 + c */
        hi = MIN(hi, s->cols_used - 1);
        if (out)
            for (uint64_t c = lo; c <= hi && lo <= hi; c++)
                out[n++] = filter_addr(g, top - c, s->c0 + c);
        break;
    case EL_FI_KN:   /* ws filter (stationary): row = window element r0 + row, port = filter */
        if (fb >= s->rows_used)
            return 0;
        hi = MIN(hi, s->cols_used - 1);
        if (out)
            for (uint64_t c = lo; c <= hi; c++)
                out[n++] = filter_addr(g, s->r0 + fb, s->c0 + c);
        break;
    case EL_FI_KT:   /* is filter: time = filter, port c = window element r0 + c */
        hi = MIN(hi, s->rows_used - 1);
        if (out)
            for (uint64_t c = lo; c <= hi && lo <= hi; c++)
                out[n++] = filter_addr(g, s->r0 + c, top - c);
        break;
    case EL_OF_MN: { /* os ofmap: row = pixel r0 + body - 1 - (top - c), port c = filter */
        uint64_t lim = s->rows_used + top + 1;  /* row < rows_used: c < lim - body */
        if (lim <= d->body)
            return 0;
        hi = MIN(MIN(hi, s->cols_used - 1), lim - d->body - 1);
        if (out)
            for (uint64_t c = lo; c <= hi && lo <= hi; c++)
                out[n++] = ofmap_addr(g, s->r0 + d->body - 1 - (top - c), s->c0 + c);
        break;
    }
    case EL_OF_TN:   /* ws ofmap: time = pixel, port c = filter c0 + c */
        hi = MIN(hi, s->cols_used - 1);
        if (out)
            for (uint64_t c = lo; c <= hi && lo <= hi; c++)
                out[n++] = ofmap_addr(g, top - c, s->c0 + c);
        break;
    default:         /* EL_OF_MT, is ofmap: time = filter, port c = pixel c0 + c */
        hi = MIN(hi, s->cols_used - 1);
        if (out)
            for (uint64_t c = lo; c <= hi && lo <= hi; c++)
                out[n++] = ofmap_addr(g, s->c0 + c, top - c);
        break;
    }
    return lo <= hi ? hi - lo + 1 : 0;
}

/* Port c's address in row i of operand d (-1: idle), for the traces. */
static int64_t port_addr(const Sched *s, const Demand *d, uint64_t i, uint64_t c)
{
    uint64_t pre = d->skew ? (i >= c ? i - c : UINT64_MAX) : i;     /* row before the skew */
    if (pre == UINT64_MAX || pre < d->prefix || pre >= d->prefix + d->body)
        return -1;
    uint64_t b = pre - d->prefix;
    return body_elem(s, d, d->flip ? d->body - 1 - b : b, c);
}

static void sched_fold(Sched *s, uint64_t fc, uint64_t fr)
{
    s->fc = fc;
    s->fr = fr;
    s->r0 = fr * s->R;
    s->c0 = fc * s->C;
    s->rows_used = MIN(s->R, s->Sr - s->r0);
    s->cols_used = MIN(s->C, s->Sc - s->c0);
}

/* Sets the mapping and each operand's demand shape. `drain_os`: the default model's os folds
 * also drain the outputs over R rows (2R + C + T - 2). */
static void sched_init(Sched *s, const Gemm *g, const TpuArch *a, bool drain_os)
{
    memset(s, 0, sizeof *s);
    s->g = g;
    s->df = a->dataflow;
    s->R = a->rows;
    s->C = a->cols;
    uint64_t R = s->R, C = s->C;
    switch (a->dataflow) {
    case TPU_OS:
        s->Sr = g->M, s->Sc = g->N, s->T = g->K;
        break;
    case TPU_WS:
        s->Sr = g->K, s->Sc = g->N, s->T = g->M;
        break;
    default:
        s->Sr = g->K, s->Sc = g->M, s->T = g->N;
        break;
    }
    uint64_t T = s->T;
    s->row_folds = (s->Sr + R - 1) / R;
    s->col_folds = (s->Sc + C - 1) / C;
    if (a->dataflow == TPU_OS) {
        uint64_t x = drain_os ? R : 0;
        s->d[OP_IFMAP] = (Demand){ R, 0, T, C - 1 + x, true, false, EL_IF_MK };
        s->d[OP_FILTER] = (Demand){ C, 0, T, R - 1 + x, true, false, EL_FI_TN };
        s->d[OP_OFMAP] = (Demand){ C, T - 1 + x, R, 0, true, true, EL_OF_MN };
        s->P = T + R + C - 2 + x;
    } else if (a->dataflow == TPU_WS) {
        s->d[OP_IFMAP] = (Demand){ R, R, T, C - 1, true, false, EL_IF_KM };
        s->d[OP_FILTER] = (Demand){ C, 0, R, R + C + T - 2, false, true, EL_FI_KN };
        s->d[OP_OFMAP] = (Demand){ C, 2 * R - 1, T, 0, true, false, EL_OF_TN };
        s->P = 2 * R + C + T - 2;
    } else {
        s->d[OP_IFMAP] = (Demand){ C, 0, R, R + C + T - 2, false, true, EL_IF_KM };
        s->d[OP_FILTER] = (Demand){ R, R, T, C - 1, true, false, EL_FI_KT };
        s->d[OP_OFMAP] = (Demand){ C, 2 * R - 1, T, 0, true, false, EL_OF_MT };
        s->P = 2 * R + C + T - 2;
    }
}

/* ---- address -> set, in pages ------------------------------------------------------------
 * The estimator's "last set this address joined", one int32 per word of the operand, kept in
 * pages of 2^pb words that are allocated when first touched. A page whose last write is older
 * than the active window holds only dead entries (every one reads as absent), so it is taken
 * back at the next window slide and handed, as it is, to the next page touched: memory follows
 * the words the SRAM window spans, not the operand, and the accesses keep the demand's
 * locality. */
typedef struct {
    unsigned pb;                 /* log2 words per page */
    uint64_t npages;
    int32_t **dir;               /* page number -> page, NULL: not mapped */
    int32_t *dset;               /* page number -> the last set written into it */
    GArray *mapped;              /* uint64_t page numbers now mapped */
    GPtrArray *spare;            /* pages taken back */
} Pages;

/* log2 words per page for an operand of `span` words: 4096 words, more for an operand of more
 * than 2^34 words, so that there are at most 4 M pages (the directory stays small) */
static unsigned pages_shift(uint64_t span)
{
    unsigned pb = 12;
    while ((span >> pb) >= (1u << 22))
        pb++;
    return pb;
}

static void pages_init(Pages *t, uint64_t span)
{
    t->pb = pages_shift(span);
    t->npages = (span >> t->pb) + 1;
    t->dir = g_new0(int32_t *, t->npages);
    t->dset = g_new0(int32_t, t->npages);
    t->mapped = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    t->spare = g_ptr_array_new_with_free_func(g_free);
}

static void pages_free(Pages *t)
{
    if (!t->dir)
        return;
    for (guint i = 0; i < t->mapped->len; i++)
        g_free(t->dir[g_array_index(t->mapped, uint64_t, i)]);
    g_free(t->dir);
    g_free(t->dset);
    g_array_free(t->mapped, TRUE);
    g_ptr_array_free(t->spare, TRUE);
    t->dir = NULL;
}

static __attribute__((noinline)) int32_t *pages_map(Pages *t, uint64_t p)
{
    int32_t *pg;
    if (t->spare->len)
        pg = g_ptr_array_steal_index_fast(t->spare, t->spare->len - 1);
    else {
        pg = g_new(int32_t, (size_t)1 << t->pb);
        memset(pg, 0xff, sizeof(int32_t) << t->pb);
    }
    t->dir[p] = pg;
    g_array_append_val(t->mapped, p);
    return pg;
}

/* Takes back the pages whose entries are all older than set `live_from`. */
static void pages_reclaim(Pages *t, int64_t live_from)
{
    guint keep = 0;
    for (guint i = 0; i < t->mapped->len; i++) {
        uint64_t p = g_array_index(t->mapped, uint64_t, i);
        if (t->dset[p] < live_from) {
            g_ptr_array_add(t->spare, t->dir[p]);
            t->dir[p] = NULL;
        } else {
            g_array_index(t->mapped, uint64_t, keep++) = p;
        }
    }
    g_array_set_size(t->mapped, keep);
}

/* ---- CALC read buffer: the DRAM traffic a stall-free run needs -----------------------------
 * Unique addresses are gathered, in demand order, into sets of size/100 words; the SRAM holds
 * 100 sets, 50 active and 50 being prefetched. When the active window's last set is complete the
 * next 50 are due: they are fetched over the previous fill interval at the bandwidth that takes
 * (the first fill: 10 words/cycle, ending one cycle before the first request plus the port
 * latency). An address found in the active window is a hit; one already in the set being filled
 * is not counted twice. */
typedef struct {
    int64_t base;                 /* the operand's lowest address */
    uint64_t span;
    Pages latest;                 /* address - base -> the last set it joined, -1 none */
    uint64_t items;               /* words per set */
    int64_t cur;                  /* the set being filled */
    uint64_t in_cur;
    int64_t read_start, read_end, pf_start, pf_end;
    int64_t last_start, last_end, first_cycle;
    bool first_seen, active_done;
    uint64_t sets_active, sets_prefetch;
    uint64_t bw;                  /* words/cycle of the current prefetch */
    uint64_t fed;                 /* words requested */
    /* window slides (sampling, tpumodel.c): words requested and inserted at the first slide
     * after `ep_from` words, and at the latest */
    uint64_t ep_from, ep1_fed, ep1_ins, ep2_fed, ep2_ins;
    /* set numbers are kept in the pages as int32 relative to `bias` (est_rebias): live32 is
     * read_start - bias, cur32 is cur - bias */
    int64_t bias;
    int32_t live32, cur32;
    bool follow;                  /* est_advance: the window's words move along with it */
    /* results */
    uint64_t accesses;
    bool any;
    int64_t dram_start, dram_stop;   /* response cycles of the first and last prefetch rows */
    uint64_t full_sets;              /* sets completed */
    TpuDramTraces *dram;             /* DRAM traces (tpudram.c), NULL: none */
    TpuEdgeOp op;
} EstBuf;

static void est_init(EstBuf *b, uint64_t kb, int64_t base, uint64_t span, TpuDramTraces *dram,
                     TpuEdgeOp op)
{
    memset(b, 0, sizeof *b);
    uint64_t elems = kb * 1024;
    b->items = elems / 100;
    if (b->items == 0)
        b->items = 1;
    b->sets_active = 50;
    b->sets_prefetch = 50;
    b->read_start = 0;
    b->read_end = (int64_t)b->sets_active - 1;
    b->last_start = -2;
    b->last_end = -1;
    b->bw = 10;
    b->base = base;
    b->span = span ? span : 1;
    pages_init(&b->latest, b->span);
    b->dram = dram;
    b->op = op;
}

/* One prefetch of `words` words over [last_start, last_end] at bw words/cycle; the port answers
 * a cycle later. */
static void est_prefetch(EstBuf *b, uint64_t words)
{
    if (G_UNLIKELY(b->dram))
        tpu_dram_est_prefetch(b->dram, b->op, b->items, b->last_start + 1,
                              (uint64_t)(b->last_end - b->last_start + 1), b->bw);
    b->accesses += words;
    if (!b->any) {
        b->dram_start = b->last_start + 1;
        b->any = true;
    }
    b->dram_stop = b->last_end + 1;
}

static uint64_t ceil_div_u(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

static void est_set_done(EstBuf *b, int64_t cycle);

/* One word requested at `cycle`; `traced`: a constant, true only in est_row's traced loop, so
 * the untraced loop carries no trace code. */
static inline __attribute__((always_inline)) void est_request(EstBuf *b, int64_t cycle,
                                                              int64_t addr, bool traced)
{
    uint64_t i = (uint64_t)(addr - b->base);
    if (G_LIKELY(i < b->span)) {
        Pages *t = &b->latest;
        uint64_t p = i >> t->pb;
        int32_t *pg = t->dir[p];
        int64_t l = pg ? pg[i & ((1u << t->pb) - 1)] : -1;
        /* in the active window (a hit) or already in the set being filled (no set is ever
         * later than cur) */
        if (l >= b->live32)
            return;
        if (!pg)
            pg = pages_map(t, p);
        pg[i & ((1u << t->pb) - 1)] = b->cur32;
        t->dset[p] = b->cur32;
    }
    if (traced)
        tpu_dram_est_word(b->dram, b->op, addr);
    if (G_LIKELY(++b->in_cur < b->items))
        return;
    est_set_done(b, cycle);
}

/* The pages hold set numbers as int32, relative to b->bias: every 2^30 sets the numbers are
 * moved down so that read_start is 0 (a layer of 2^31 sets, a tiny SRAM on a huge operand,
 * would otherwise wrap them and read every word as absent). Entries older than the window read
 * as absent (-1); pages taken back, whose entries are all dead, are dropped. */
int64_t tpu_est_rebias_at = 1 << 30;

static void est_relative(EstBuf *b)
{
    b->live32 = (int32_t)(b->read_start - b->bias);
    b->cur32 = (int32_t)(b->cur - b->bias);
}

static __attribute__((noinline)) void est_rebias(EstBuf *b)
{
    Pages *t = &b->latest;
    int64_t nb = b->read_start, live = b->read_start;
    for (guint i = 0; i < t->mapped->len; i++) {
        uint64_t p = g_array_index(t->mapped, uint64_t, i);
        int32_t *pg = t->dir[p];
        for (size_t w = 0; w < (size_t)1 << t->pb; w++)
            pg[w] = pg[w] >= 0 && pg[w] + b->bias >= live ? (int32_t)(pg[w] + b->bias - nb) : -1;
        t->dset[p] = t->dset[p] + b->bias >= live ? (int32_t)(t->dset[p] + b->bias - nb) : -1;
    }
    g_ptr_array_set_size(t->spare, 0);
    b->bias = nb;
    est_relative(b);
}

/* The set being filled is complete: when it closes the active window, the next window is due. */
static __attribute__((noinline)) void est_set_done(EstBuf *b, int64_t cycle)
{
    b->in_cur = 0;
    b->cur++;
    b->full_sets++;
    if (G_UNLIKELY(b->cur - b->bias >= tpu_est_rebias_at))
        est_rebias(b);
    b->cur32 = (int32_t)(b->cur - b->bias);
    if (b->cur != b->read_end + 1)
        return;
    if (!b->active_done) {                                  /* the first fill, before cycle 0 */
        b->bw = 10;
        b->last_end = b->first_cycle - 1 - 1;
        uint64_t cyc = ceil_div_u(b->sets_prefetch * b->items, b->bw);
        b->last_start = b->last_end - (int64_t)cyc + 1;
        est_prefetch(b, b->sets_active * b->items);
        b->pf_start = b->read_end + 1;
        b->pf_end = b->pf_start + (int64_t)b->sets_prefetch - 1;
        b->active_done = true;
    } else {
        uint64_t cyc = (uint64_t)(b->last_end - b->last_start + 1);
        b->bw = ceil_div_u(b->sets_prefetch * b->items, cyc);
        est_prefetch(b, (uint64_t)(b->pf_end - b->pf_start + 1) * b->items);
        b->pf_start += (int64_t)b->sets_prefetch;
        b->pf_end += (int64_t)b->sets_prefetch;
    }
    b->read_start += (int64_t)b->sets_prefetch;
    b->read_end += (int64_t)b->sets_prefetch;
    if (b->follow)
        b->bias += (int64_t)b->sets_prefetch;
    b->last_start = b->last_end + 1;
    b->last_end = cycle;
    est_relative(b);        /* cur - bias was checked above; a slide only raises bias */
    pages_reclaim(&b->latest, b->live32);
    if (b->ep_from && b->fed >= b->ep_from) {        /* a slide in the sample's second half */
        if (!b->ep1_fed)
            b->ep1_fed = b->fed, b->ep1_ins = b->full_sets * b->items;
        b->ep2_fed = b->fed, b->ep2_ins = b->full_sets * b->items;
    }
}

/* Sampling (tpu_run_layer_traced): `words` more words join sets as if requested evenly over the
 * cycles (c0, c1] of the folds not simulated, so the windows slide and prefetch through them as
 * in a full run (the DRAM start and stop cycles, the average bandwidths). Every word inserted is
 * fetched once (a slide's prefetch or est_finish), so the reads are the sample's rate times the
 * words skipped. The words the window held at the end of the sample stay in it, moved along with
 * it (their set numbers rise with the window: `follow`): the last fold finds the words of a fold
 * like its predecessors, as in a full run, not an empty window. Past two slides the rest are
 * counted in closed form. */
static void est_advance(EstBuf *b, uint64_t words, int64_t c0, int64_t c1)
{
    g_assert(b->dram == NULL);                  /* DRAM traces are never sampled */
    if (words == 0)
        return;
    if (!b->first_seen) {
        b->first_cycle = c0 + 1;
        b->first_seen = true;
    }
    uint64_t total = words, done = 0;
    uint64_t span = c1 > c0 ? (uint64_t)(c1 - c0) : 0;
    b->follow = true;
#define AT(d) (c0 + (int64_t)(((unsigned __int128)span * (d) + total - 1) / total))
    int slides = 0;
    while (words > 0) {
        /* the words that complete the set closing the active window */
        uint64_t need = (uint64_t)(b->read_end - b->cur) * b->items + (b->items - b->in_cur);
        uint64_t per = b->sets_prefetch * b->items;        /* a slide's words after that */
        if (slides >= 2 && words >= need + 3 * per) {
            /* m slides in closed form, leaving the last two (bw from the interval before) */
            uint64_t m = (words - need) / per - 2;
            uint64_t sets = m * b->sets_prefetch;
            b->cur += (int64_t)sets;
            b->full_sets += sets;
            b->accesses += m * per;
            b->pf_start += (int64_t)sets, b->pf_end += (int64_t)sets;
            b->read_start += (int64_t)sets, b->read_end += (int64_t)sets;
            done += m * per, words -= m * per;
            /* the slides before: the last at AT(done - per + need), its predecessor earlier */
            int64_t prev = AT(done - per + need - per), last = AT(done - per + need);
            b->dram_stop = prev + 1;
            b->last_start = prev + 1;
            b->last_end = last;
            b->bias += (int64_t)sets;
            est_relative(b);
            continue;
        }
        if (words < need) {
            uint64_t t = b->in_cur + words;
            b->cur += (int64_t)(t / b->items);
            b->full_sets += t / b->items;
            b->in_cur = t % b->items;
            est_relative(b);
            break;
        }
        /* the sets before the closing one, then the closing one (est_set_done slides) */
        b->full_sets += (uint64_t)(b->read_end - b->cur);
        b->cur = b->read_end;
        done += need, words -= need;
        est_set_done(b, AT(done));
        slides++;
    }
#undef AT
    b->follow = false;
}

static void est_row(EstBuf *b, int64_t cycle, const int64_t *addrs, uint64_t n)
{
    if (n && !b->first_seen) {
        b->first_cycle = cycle;
        b->first_seen = true;
    }
    if (G_UNLIKELY(b->dram)) {
        for (uint64_t c = 0; c < n; c++) {
            b->fed++;
            est_request(b, cycle, addrs[c], true);
        }
        return;
    }
    for (uint64_t c = 0; c < n; c++) {
        b->fed++;
        est_request(b, cycle, addrs[c], false);
    }
}

/* The end of the layer: fetch what the last (partial) sets hold. */
static void est_finish(EstBuf *b)
{
    uint64_t partial = b->in_cur;
    if (partial == 0)
        b->cur--;
    if (!b->active_done) {
        b->last_end = -1 - 1;
        uint64_t nsets = (uint64_t)(b->cur + 1);
        /* every set so far: the full ones and the partial one */
        uint64_t words = b->full_sets * b->items + partial;
        if (words > b->span) {
            /* only a sample's extrapolation (est_cap) and the last fold after it: before the
             * first slide each word of the operand is inserted once */
            words = b->span;
            nsets = ceil_div_u(b->span, b->items);
        }
        uint64_t cyc = ceil_div_u(nsets * b->items, b->bw ? b->bw : 10);
        b->last_start = b->last_end - (int64_t)cyc + 1;
        est_prefetch(b, words);
        b->active_done = true;
    } else {
        int64_t nsets = b->cur - b->pf_start + 1;
        uint64_t words = 0;
        if (nsets > 0)
            words = (uint64_t)(nsets - (partial ? 1 : 0)) * b->items + partial;
        /* the rate that fetches the sets, whole, in the previous fill interval (the traces) */
        b->bw = ceil_div_u((uint64_t)MAX(nsets, 0) * b->items,
                           (uint64_t)MAX(b->last_end - b->last_start + 1, 1));
        est_prefetch(b, words);
    }
    pages_free(&b->latest);
}

/* ---- USER read buffer: a fixed DRAM bandwidth, stalls when data is late -------------------
 * The SRAM's contents follow a fetch order (the operand's folds stacked, read along
 * anti-diagonals where the wavefront needs them so, else row by row). That order is cut into
 * sets of ceil(size/100) elements; a window of ceil(active half / set) sets is resident, the
 * next ceil(prefetch half / set) sets follow (both wrap around the whole order). Before cycle 0
 * the active half is fetched (ceil(active / bw) lines of bw words). A request for an address not
 * in the window slides it by the prefetch sets, which costs ceil(prefetch half / bw) lines, one
 * per cycle after the previous fetch ended; the request waits for it, and the array with it. */
#define USER_SPAN_MAX (1ull << 28)

typedef struct {
    uint64_t bw, active_size, pf_size, eps;
    uint64_t nsets, n_active, n_pf, fetch_lines;
    int64_t base;
    uint64_t span;
    uint32_t *off;               /* address - base -> first index into ids (span + 1 entries) */
    uint32_t *ids;               /* the sets holding each address, ascending */
    uint64_t a_start, a_end;
    double last_pf;
    uint64_t accesses;
    double dram_start, dram_stop;
    TpuDramTraces *dram;         /* DRAM traces (tpudram.c), NULL: none */
    TpuEdgeOp op;
} UserBuf;

/* The operand's fetch order: `blocks` blocks of `tb` rows x `wb` columns stacked, read along
 * anti-diagonals (diag) or row by row; elem gives the address (or -1) at (block, t, c). */
typedef struct {
    const Sched *s;
    int op;                      /* OP_IFMAP, OP_FILTER */
    uint64_t blocks, tb, wb;
    bool diag;
} Fetch;

static int64_t fetch_elem(const Fetch *f, uint64_t row, uint64_t c)
{
    const Sched *s = f->s;
    const Gemm *g = s->g;
    uint64_t blk = row / f->tb, t = row % f->tb;
    switch (s->df) {
    case TPU_OS:
        if (f->op == OP_IFMAP) {
            uint64_t m = blk * s->R + c;
            return m < g->M ? ifmap_addr(g, m, t) : -1;
        } else {
            uint64_t n = blk * s->C + c;
            return n < g->N ? filter_addr(g, t, n) : -1;
        }
    case TPU_WS:
        if (f->op == OP_IFMAP) {
            uint64_t k = blk * s->R + c;
            return k < g->K ? ifmap_addr(g, t, k) : -1;
        } else {
            uint64_t n = blk * s->C + c;
            return n < g->N ? filter_addr(g, t, n) : -1;
        }
    default:
        if (f->op == OP_IFMAP) {
            uint64_t m = blk * s->C + c;
            return m < g->M ? ifmap_addr(g, m, t) : -1;
        } else {
            uint64_t k = blk * s->R + c;
            return k < g->K ? filter_addr(g, k, t) : -1;
        }
    }
}

static Fetch fetch_of(const Sched *s, int op)
{
    Fetch f = { .s = s, .op = op };
    bool os = s->df == TPU_OS, ws = s->df == TPU_WS;
    if (op == OP_IFMAP) {
        f.blocks = os || ws ? s->row_folds : s->col_folds;
        f.tb = os ? s->g->K : ws ? s->g->M : s->g->K;
        f.wb = os || ws ? s->R : s->C;
        f.diag = os || ws;
    } else {
        f.blocks = os || ws ? s->col_folds : s->row_folds;
        f.tb = os || ws ? s->g->K : s->g->N;
        f.wb = os || ws ? s->C : s->R;
        f.diag = !ws;
    }
    return f;
}

/* Calls visit(ctx, address) for every element in fetch order (-1 included). */
static void fetch_walk(const Fetch *f, void (*visit)(void *, int64_t), void *ctx)
{
    uint64_t M = f->blocks * f->tb, N = f->wb;
    if (!f->diag) {
        for (uint64_t r = 0; r < M; r++)
            for (uint64_t c = 0; c < N; c++)
                visit(ctx, fetch_elem(f, r, c));
        return;
    }
    for (uint64_t d = 0; d < M + N; d++) {
        uint64_t hi = MIN(d, M - 1), lo = d >= N - 1 ? d - (N - 1) : 0;
        for (uint64_t r = hi + 1; r-- > lo;)
            visit(ctx, fetch_elem(f, r, d - r));
    }
}

typedef struct {
    UserBuf *u;
    uint64_t valid, n;           /* valid elements seen, all elements seen */
    bool fill;
    uint32_t *cursor;
} UbWalk;

/* The DRAM traces' copy of the fetch order (the lines SCALE-Sim's reads can reach). */
static void ub_visit_trace(void *p, int64_t a)
{
    UbWalk *w = p;
    tpu_dram_user_elem(w->u->dram, w->u->op, w->n++, a);
}

static void ub_visit(void *p, int64_t a)
{
    UbWalk *w = p;
    UserBuf *u = w->u;
    w->n++;
    if (a < 0)
        return;
    uint64_t set = w->valid++ / u->eps;
    uint64_t i = (uint64_t)(a - u->base);
    g_assert(i < u->span);
    if (!w->fill) {
        /* count a set once per address: sets arrive in order, so compare with the last */
        if (u->ids[i] != (uint32_t)set + 1) {
            u->ids[i] = (uint32_t)set + 1;
            u->off[i + 1]++;
        }
        return;
    }
    uint32_t *c = &w->cursor[i];
    if (*c > u->off[i] && u->ids[*c - 1] == (uint32_t)set)
        return;
    u->ids[(*c)++] = (uint32_t)set;
}

static void ub_init(UserBuf *u, const Sched *s, int op, uint64_t kb, uint64_t bw, int64_t base,
                    uint64_t span, TpuDramTraces *dram)
{
    memset(u, 0, sizeof *u);
    uint64_t total = kb * 1024;
    u->bw = bw ? bw : 1;
    u->active_size = (uint64_t)ceil((double)total * 0.5);
    u->pf_size = total - u->active_size;
    u->eps = ceil_div_u(total, 100);
    u->base = base;
    u->span = span ? span : 1;
    Fetch f = fetch_of(s, op);
    /* pass 1: sets per address (ids doubles as "last set seen + 1" scratch) */
    u->off = g_new0(uint32_t, u->span + 1);
    u->ids = g_new0(uint32_t, u->span);
    UbWalk w = { .u = u };
    fetch_walk(&f, ub_visit, &w);
    uint64_t nelems = w.n, nvalid = w.valid;
    for (uint64_t i = 0; i < u->span; i++)
        u->off[i + 1] += u->off[i];
    g_free(u->ids);
    u->ids = g_new(uint32_t, MAX(u->off[u->span], 1));
    uint32_t *cursor = g_new(uint32_t, u->span);
    memcpy(cursor, u->off, sizeof(uint32_t) * u->span);
    w = (UbWalk){ .u = u, .fill = true, .cursor = cursor };
    fetch_walk(&f, ub_visit, &w);
    g_free(cursor);
    u->nsets = nvalid / u->eps + 1;              /* the last (partial, maybe empty) set too */
    u->fetch_lines = ceil_div_u(nelems, u->bw);
    u->n_active = MIN(ceil_div_u(u->active_size, u->eps), u->nsets);
    u->n_pf = MIN(ceil_div_u(u->pf_size, u->eps), u->nsets - u->n_active);
    /* the active half, before cycle 0 */
    uint64_t lines = MIN(ceil_div_u(u->active_size, u->bw), u->fetch_lines);
    u->accesses = lines * u->bw;
    u->dram_start = -(double)lines;
    u->last_pf = -1;
    u->dram_stop = -1;
    u->a_start = 0;
    u->a_end = u->n_active;
    if (dram) {
        u->dram = dram;
        u->op = (TpuEdgeOp)op;
        tpu_dram_user_begin(dram, u->op, nelems, u->bw, u->active_size, u->pf_size);
        w = (UbWalk){ .u = u };
        fetch_walk(&f, ub_visit_trace, &w);
        tpu_dram_user_fill(dram, u->op);
    }
}

static void ub_free(UserBuf *u)
{
    g_free(u->off);
    g_free(u->ids);
    u->off = u->ids = NULL;
}

static bool ub_hit(const UserBuf *u, int64_t a)
{
    uint64_t i = (uint64_t)(a - u->base);
    if (i >= u->span)
        return false;
    const uint32_t *lo = u->ids + u->off[i], *hi = u->ids + u->off[i + 1];
    if (lo == hi)
        return false;
    uint64_t s0 = u->a_start, s1 = u->a_end;
    if (s0 < s1) {
        /* any id in [s0, s1): the first id >= s0 */
        const uint32_t *p = lo;
        uint64_t n = (uint64_t)(hi - lo);
        while (n > 0) {
            uint64_t h = n / 2;
            if (p[h] < s0)
                p += h + 1, n -= h + 1;
            else
                n = h;
        }
        return p < hi && *p < s1;
    }
    return hi[-1] >= s0 || lo[0] < s1;           /* [s0, nsets) or [0, s1) */
}

static void ub_slide(UserBuf *u)
{
    if (G_UNLIKELY(u->dram))
        tpu_dram_user_refill(u->dram, u->op, u->last_pf);
    u->a_start = (u->a_start + u->n_pf) % u->nsets;
    u->a_end = (u->a_start + u->n_active) % u->nsets;
    uint64_t lines = ceil_div_u(u->pf_size, u->bw);
    u->accesses += lines * u->bw;
    u->last_pf += (double)lines + 1;
    u->dram_stop = u->last_pf;
}

/* One row of requests at `cycle`: the cycle its data is there (cycle + 1 without stalls). */
static double ub_row(UserBuf *u, double cycle, const int64_t *addrs, uint64_t n)
{
    double offset = 1;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t guard = 0;
        while (!ub_hit(u, addrs[k])) {
            ub_slide(u);
            double late = u->last_pf - (cycle + offset);
            if (late > 0)
                offset += late;
            g_assert(++guard <= u->nsets + 1);   /* every address is in some set */
        }
    }
    return cycle + offset;
}

/* ---- the ofmap write buffer ---------------------------------------------------------------
 * Words are packed into lines of `bw` (the DRAM port's words per cycle) as they are written; a
 * drain sends ceil(drain half / bw) lines, one line per cycle. Lines only become drainable when
 * flushed from a 1024-line staging cache (or at a drain, which also closes a partial line). In
 * compat mode only the last drained line's empty slots are not counted as written (SCALE-Sim's
 * rule: a partial line closed mid-drain counts as full); the default counts the words. */
typedef struct {
    uint64_t bw, total, drain_size;
    int64_t free_space;
    GArray *lines;               /* uint32_t valid words per line (staged and flushed), from
                                    line number lbase on: lines already drained are dropped */
    uint64_t lbase;
    uint64_t flushed;            /* lines visible to a drain */
    uint64_t staged;             /* lines in the staging cache */
    uint64_t line_fill;
    uint64_t drain_start_line;
    double drain_end;            /* cycle the running drain ends */
    bool drained_any, flushed_any;
    bool exact;                  /* count the words drained (default), not SCALE-Sim's lines */
    uint64_t accesses;
    double dram_start, dram_stop;
    TpuDramTraces *dram;         /* DRAM traces (tpudram.c), NULL: none */
} WrBuf;

static void wb_init(WrBuf *w, uint64_t kb, uint64_t bw)
{
    memset(w, 0, sizeof *w);
    w->total = kb * 1024;
    uint64_t active = (uint64_t)ceil((double)w->total * 0.5);
    w->drain_size = w->total - active;
    w->free_space = (int64_t)w->total;
    w->bw = bw ? bw : 1;
    w->lines = g_array_new(FALSE, FALSE, sizeof(uint32_t));
}

static void wb_flush(WrBuf *w, bool force)
{
    if (force && w->line_fill) {
        uint32_t n = (uint32_t)w->line_fill;
        g_array_append_val(w->lines, n);
        w->staged++;
        w->line_fill = 0;
    }
    if (!w->staged)
        return;
    if (!w->flushed_any) {
        w->drain_start_line = 0;
        w->flushed_any = true;
    }
    w->flushed += w->staged;
    w->staged = 0;
}

static void wb_store(WrBuf *w)
{
    w->line_fill++;
    w->free_space--;
    if (w->line_fill < w->bw)
        return;
    uint32_t n = (uint32_t)w->line_fill;
    g_array_append_val(w->lines, n);
    w->staged++;
    w->line_fill = 0;
    if (w->staged >= 1024)
        wb_flush(w, false);
}

/* Drains the next lines from `start`; returns the cycle of the last one. */
static double wb_drain(WrBuf *w, double start)
{
    uint64_t nl = ceil_div_u(w->drain_size, w->bw);
    uint64_t end = MIN(w->drain_start_line + nl, w->flushed);
    uint64_t n = end - w->drain_start_line;
    if (n == 0)
        return start - 1;       /* nothing flushed (does not happen with a non-empty drain) */
    const uint32_t *line = &g_array_index(w->lines, uint32_t, 0) - w->lbase;
    if (G_UNLIKELY(w->dram))
        tpu_dram_of_drain(w->dram, start, &line[w->drain_start_line], n, w->bw);
    uint64_t words = n * w->bw - (w->bw - line[end - 1]);
    if (w->exact) {
        words = 0;
        for (uint64_t i = w->drain_start_line; i < end; i++)
            words += line[i];
    }
    w->accesses += words;
    if (!w->drained_any) {
        w->dram_start = start;
        w->drained_any = true;
    }
    w->dram_stop = start + (double)(n - 1);
    w->free_space += (int64_t)words;
    w->drain_start_line = end;
    if (end - w->lbase >= 65536) {               /* drop the drained lines */
        g_array_remove_range(w->lines, 0, (guint)(end - w->lbase));
        w->lbase = end;
    }
    return start + (double)(n - 1);
}

/* One row of ofmap writes arriving at `cycle`; returns the cycle the array may go on. Word by
 * word: the store, then (while a drain runs) a stall if the buffer is full, or (none running)
 * a drain once the active half is used up. Runs of words where none of that happens (no line
 * completes, no stall, no drain) are taken in one step. */
static double wb_row(WrBuf *w, double cycle, uint64_t nvalid, bool to_dram)
{
    double cur = cycle;
    int64_t active = (int64_t)(w->total - w->drain_size);
    uint64_t left = nvalid;
    while (left) {
        /* 1-based index of the next word where something happens */
        uint64_t ev = UINT64_MAX;
        if (to_dram)
            ev = w->bw - w->line_fill;          /* completes a line */
        int64_t f = w->free_space, lim = cur < w->drain_end ? 1 : active;
        /* the word after whose store free_space < lim */
        if (f < lim)
            ev = 1;
        else if (to_dram)
            ev = MIN(ev, (uint64_t)(f - lim) + 1);
        uint64_t quiet = MIN(ev - 1, left);
        if (quiet) {
            if (to_dram) {
                w->line_fill += quiet;
                w->free_space -= (int64_t)quiet;
            }
            left -= quiet;
            continue;
        }
        if (to_dram)
            wb_store(w);
        if (cur < w->drain_end) {
            if (w->free_space <= 0)
                cur = w->drain_end;
        } else if (w->free_space < active) {
            wb_flush(w, true);
            w->drain_end = wb_drain(w, cur);
        }
        left--;
    }
    return cur;
}

static void wb_finish(WrBuf *w, double cycle)
{
    wb_flush(w, true);
    if (w->flushed_any)
        while (w->drain_start_line < w->flushed) {
            w->drain_end = wb_drain(w, cycle);
            cycle = w->drain_end + 1;
        }
    g_array_free(w->lines, TRUE);
    w->lines = NULL;
}

/* ---- sampling huge layers (default mode, CALC) ------------------------------------------- */
uint64_t tpu_sample_budget = TPU_SAMPLE_BUDGET;
volatile sig_atomic_t tpu_stop_requested;

typedef struct {
    uint64_t fed, ins;           /* words fed to the estimator, words it inserted into sets */
    uint64_t mid_fed, mid_ins;   /* the same at half the budget */
    uint64_t ep_fed, ep_ins;     /* between the first and the last window slide after that */
} SampleOp;

typedef struct {
    SampleOp i, f;
    bool mid_set, stall_rate_set, advanced;
    int64_t c0;                        /* the cycle of the row that ended the sample */
    uint64_t skip_i, skip_f, skip_o;   /* words not fed (ifmap, filter), ofmap words to DRAM */
    uint64_t skipped, sampled_folds;   /* folds not simulated, folds simulated before them */
    double stall_rate;                 /* stall cycles per simulated fold */
} Sample;

static uint64_t est_inserted(const EstBuf *b) { return b->full_sets * b->items + b->in_cur; }

/* After a row: true when the estimator has had its budget (and records the sample's state). */
static bool sample_check(Sample *sm, EstBuf *ib, EstBuf *fb, uint64_t budget)
{
    uint64_t fi = ib->fed, ff = fb->fed;
    if (!sm->mid_set && fi + ff >= budget / 2) {
        sm->i.mid_fed = fi, sm->i.mid_ins = est_inserted(ib);
        sm->f.mid_fed = ff, sm->f.mid_ins = est_inserted(fb);
        ib->ep_from = MAX(fi, 1), fb->ep_from = MAX(ff, 1);
        sm->mid_set = true;
    }
    if (fi + ff < budget)
        return false;
    /* go on (up to four budgets) until each operand fed in earnest since the middle has seen
     * two window slides there: its rate is then taken over whole windows */
    bool whole = true;
    for (int k = 0; k < 2; k++) {
        const EstBuf *b = k ? fb : ib;
        uint64_t since = b->fed - (k ? sm->f.mid_fed : sm->i.mid_fed);
        if (since > budget / 8 && b->ep2_fed == b->ep1_fed)
            whole = false;
    }
    if (!whole && fi + ff < 4 * budget)
        return false;
    sm->i.fed = fi, sm->i.ins = est_inserted(ib);
    sm->f.fed = ff, sm->f.ins = est_inserted(fb);
    sm->i.ep_fed = ib->ep2_fed - ib->ep1_fed, sm->i.ep_ins = ib->ep2_ins - ib->ep1_ins;
    sm->f.ep_fed = fb->ep2_fed - fb->ep1_fed, sm->f.ep_ins = fb->ep2_ins - fb->ep1_ins;
    return true;
}

/* The words the estimator would have inserted for `skipped` more words. The estimator cuts the
 * stream into windows of 50 sets of distinct words, inserting each word at its first request in
 * a window: inserts come in bursts after each slide, so the rate is taken over whole windows (the
 * first to the last slide of the sample's second half), else over the second half, else over the
 * whole sample when the operand was not fed in the second half. */
static uint64_t sample_extra(const SampleOp *o, uint64_t skipped)
{
    double rate = 0;
    if (o->ep_fed)
        rate = (double)o->ep_ins / (double)o->ep_fed;
    else if (o->fed > o->mid_fed)
        rate = (double)(o->ins - o->mid_ins) / (double)(o->fed - o->mid_fed);
    else if (o->fed)
        rate = (double)o->ins / (double)o->fed;
    return (uint64_t)llround(rate * (double)skipped);
}

/* An operand whose every word fits in the first window never slides it: each word is inserted
 * once at most, so no more than the words not yet inserted can join (a sample of first touches
 * alone, extrapolated, counted an operand many times over). */
static uint64_t est_cap(const EstBuf *b, uint64_t extra)
{
    uint64_t ins = est_inserted(b);
    if (!b->active_done && b->span <= b->sets_active * b->items)
        return MIN(extra, b->span > ins ? b->span - ins : 0);
    return extra;
}

/* ---- the layer ----------------------------------------------------------------------------- */

/* The layer's GEMM and addresses; refuses a layer whose operands would overflow the tables. */
static bool gemm_init(Gemm *g, const TpuArch *a, const TpuLayer *l, GError **error)
{
    *g = (Gemm){ .H = l->ifmap_h, .W = l->ifmap_w, .fh = l->filter_h, .fw = l->filter_w,
                 .ch = l->channels, .sh = l->stride_h, .sw = l->stride_w,
                 .ioff = a->ifmap_offset, .foff = a->filter_offset, .ooff = a->ofmap_offset };
    /* SCALE-Sim's ceil((H - F + S) / S), without the sum (a stride past 2^63 wrapped it to a
     * layer of no pixels) */
    g->Eh = (l->ifmap_h - l->filter_h) / l->stride_h + 1 +
            ((l->ifmap_h - l->filter_h) % l->stride_h != 0);
    g->Ew = (l->ifmap_w - l->filter_w) / l->stride_w + 1 +
            ((l->ifmap_w - l->filter_w) % l->stride_w != 0);
    /* operands of 2^40 words or more, or more than 2^31 pixels or window elements, would
     * overflow the model's arithmetic and tables: refuse them rather than overflow */
    uint64_t isz, fsz, osz, k1, m1;
    bool big = __builtin_mul_overflow(l->ifmap_h, l->ifmap_w, &isz) ||
               __builtin_mul_overflow(isz, l->channels, &isz) ||
               __builtin_mul_overflow(l->filter_h, l->filter_w, &k1) ||
               __builtin_mul_overflow(k1, l->channels, &k1) ||
               __builtin_mul_overflow(k1, l->filters, &fsz) ||
               __builtin_mul_overflow(g->Eh, g->Ew, &m1) ||
               __builtin_mul_overflow(m1, l->filters, &osz) ||
               isz >= (1ull << 40) || fsz >= (1ull << 40) || osz >= (1ull << 40) ||
               m1 >= (1ull << 31) || k1 >= (1ull << 31) ||
               /* the im2col tables hold window rows and columns in 31 bits: past that the
                * edge test let windows hanging off the ifmap read past its end */
               l->ifmap_h >= (1ull << 31) || l->ifmap_w >= (1ull << 31) ||
               (uint64_t)a->ofmap_offset + osz >= (1ull << 62);
    if (big) {
        g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                    "layer %s is too large: an operand of 2^40 words or more, 2^31 ofmap "
                    "pixels or window elements, or an ifmap 2^31 rows or columns high or wide",
                    l->name);
        return false;
    }
    g->M = g->Eh * g->Ew;
    g->N = l->filters;
    g->K = l->filter_h * l->filter_w * l->channels;
    return true;
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }
static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* The bytes of one USER read buffer's fetch-order index (ub_init): off and cursor, 4 bytes per
 * word of the operand, and ids, 4 bytes per (word, set) pair, at most one per valid element of
 * the fetch order and one per set for each word. */
static uint64_t ub_memory(const Sched *s, int op, uint64_t kb, uint64_t span)
{
    Fetch f = fetch_of(s, op);
    uint64_t nelems = sat_mul(sat_mul(f.blocks, f.tb), f.wb);
    uint64_t eps = ceil_div_u(kb * 1024, 100);
    uint64_t pairs = MIN(nelems, sat_mul(span, nelems / eps + 1));
    return sat_add(sat_mul(8, span + 1), sat_mul(4, pairs));
}

/* What tpu_run_layer_traced holds for a layer, at most (tpu.h); 0 and *largest untouched when
 * gemm_init refuses the layer (its own error says why). */
/* The CALC estimator's pages for an operand of `span` words (pages_init): the directory, 12
 * bytes a page, and the pages live at once: those the SRAM window's words fill, plus one partly
 * filled per edge port and two, never more than the operand has (pages of 2^pages_shift words, 4
 * bytes each: 1 MiB for a 2^39-word operand, so 4,096 ports then take 4 GiB). */
static uint64_t est_memory(uint64_t span, uint64_t sram_words, uint64_t ports)
{
    unsigned pb = pages_shift(span);
    uint64_t npages = (span >> pb) + 1;
    uint64_t live = sat_add(sat_add((MIN(span, sram_words) >> pb) + 1, ports), 2);
    return sat_add(sat_mul(12, npages), sat_mul(4ull << pb, MIN(npages, live)));
}

static uint64_t layer_memory(const TpuArch *a, const Gemm *g, bool compat, bool traced,
                             const char **largest)
{
    Sched s;
    sched_init(&s, g, a, !compat);
    bool user = a->bw_mode == TPU_BW_USER;
    uint64_t ispan = g->H * g->W * g->ch, fspan = g->N * g->fh * g->fw * g->ch;
    uint64_t isram = a->ifmap_kb * 1024, fsram = a->filter_kb * 1024, osram = a->ofmap_kb * 1024;
    struct {
        const char *what;
        uint64_t bytes;
    } part[5] = {
        /* gemm_tables: a Pos per ofmap pixel and per window element */
        { "im2col tables, 16 bytes per ofmap pixel and per filter-window element",
          sat_mul(16, sat_add(g->M, g->K)) },
        /* the demand row, and the OFMAP buffer's line counts (one per word at worst) */
        { "the array's edge row and the OFMAP SRAM's lines, 4 bytes per OFMAP SRAM word",
          sat_add(sat_mul(8, MAX(a->rows, a->cols)),
                  sat_mul(4, MIN(osram, sat_mul(g->M, g->N)) + 65536 + 1024)) },
        { NULL, 0 },
        { NULL, 0 },
        { NULL, 0 },
    };
    if (user) {
        part[2].what = "the USER fetch-order index of the ifmap, 8 bytes per word and 4 per "
                       "(word, set) pair";
        part[2].bytes = ub_memory(&s, OP_IFMAP, a->ifmap_kb, ispan);
        part[3].what = "the USER fetch-order index of the filter, 8 bytes per word and 4 per "
                       "(word, set) pair";
        part[3].bytes = ub_memory(&s, OP_FILTER, a->filter_kb, fspan);
    } else {
        part[2].what = "the CALC estimator's index of the words the SRAMs hold, 4 bytes per "
                       "SRAM word in pages";
        part[2].bytes = sat_add(est_memory(ispan, isram, MAX(a->rows, a->cols)),
                                est_memory(fspan, fsram, MAX(a->rows, a->cols)));
    }
    if (traced) {
        /* tpudram.c: per operand, the words since the last prefetch, their order and the Python
         * set that orders them (CALC), or up to five line ranges of the fetch order (USER);
         * one line of `bandwidth` words */
        uint64_t bw = user ? a->bandwidth : MAX(a->cols, 10);
        part[4].what = "the DRAM traces' buffers, 48 bytes per SRAM word and 56 per word of "
                       "bandwidth";
        part[4].bytes = sat_add(sat_mul(48, sat_add(sat_add(isram, fsram), osram)),
                                sat_mul(3 * 56, bw));
    }
    uint64_t total = 0, top = 0;
    for (int i = 0; i < 5; i++) {
        total = sat_add(total, part[i].bytes);
        if (part[i].bytes > part[top].bytes)
            top = (uint64_t)i;
    }
    if (largest != NULL)
        *largest = part[top].what;
    return total;
}

static bool layer_memory_check(const TpuArch *a, const TpuLayer *l, const Gemm *g, bool compat,
                               bool traced, GError **error);

/* InterfaceBandwidth USER indexes every word of an operand: at most USER_SPAN_MAX of them. */
static bool user_span_check(const TpuArch *a, const TpuLayer *l, const Gemm *g, GError **error)
{
    uint64_t ispan = g->H * g->W * g->ch, fspan = g->N * g->fh * g->fw * g->ch;
    if (a->bw_mode != TPU_BW_USER || (ispan <= USER_SPAN_MAX && fspan <= USER_SPAN_MAX))
        return true;
    g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                "layer %s: InterfaceBandwidth USER indexes every word of an operand, and this "
                "layer's %s has %" G_GUINT64_FORMAT " words (at most %llu); use CALC", l->name,
                ispan > USER_SPAN_MAX ? "ifmap" : "filter", ispan > USER_SPAN_MAX ? ispan : fspan,
                USER_SPAN_MAX);
    return false;
}

bool tpu_layer_check(const TpuArch *a, const TpuLayer *l, bool compat, bool traced,
                     GError **error)
{
    /* every limit the run would meet, before DIR is made (a layer past USER's span was found
     * when it ran, after the layers before it had written their traces) */
    Gemm g;
    if (!gemm_init(&g, a, l, error))
        return false;
    bool ok = layer_memory_check(a, l, &g, compat, traced, error) &&
              user_span_check(a, l, &g, error);
    gemm_free(&g);
    return ok;
}

uint64_t tpu_layer_memory(const TpuArch *a, const TpuLayer *l, bool compat, bool traced,
                          const char **largest)
{
    Gemm g;
    GError *e = NULL;
    if (!gemm_init(&g, a, l, &e)) {
        g_error_free(e);
        return UINT64_MAX;
    }
    return layer_memory(a, &g, compat, traced, largest);
}

/* Refuses a layer whose model would hold more than TPU_MAX_LAYER_MEMORY (tpu.h), before any of
 * it is allocated. */
static bool layer_memory_check(const TpuArch *a, const TpuLayer *l, const Gemm *g, bool compat,
                               bool traced, GError **error)
{
    const char *largest = NULL;
    uint64_t need = layer_memory(a, g, compat, traced, &largest);
    if (need <= TPU_MAX_LAYER_MEMORY)
        return true;
    char *size = sim_mem_format(need);
    char *lim = sim_mem_format(TPU_MAX_LAYER_MEMORY);
    g_set_error(error, ARCHSIM_TRACE_ERROR, ARCHSIM_EXIT_DATAERR,
                "layer %s: the model would take %s of memory for it, above archsim's limit of %s "
                "per layer; most of it: %s",
                l->name, size, lim, largest);
    g_free(size);
    g_free(lim);
    return false;
}

/* One full demand row (every port, -1 idle) as a trace line. */
static void trace_row(FILE *f, const Sched *s, int op, uint64_t i, double served)
{
    const Demand *d = &s->d[op];
    fprintf(f, "%" G_GINT64_FORMAT, (int64_t)served);
    for (uint64_t c = 0; c < d->W; c++)
        fprintf(f, ",%" G_GINT64_FORMAT, port_addr(s, d, i, c));
    fputc('\n', f);
}

bool tpu_run_layer(const TpuArch *a, const TpuLayer *l, bool compat, TpuLayerResult *out,
                   GError **error)
{
    return tpu_run_layer_traced(a, l, compat, NULL, out, error);
}

bool tpu_run_layer_traced(const TpuArch *a, const TpuLayer *l, bool compat,
                          const TpuTraces *tr, TpuLayerResult *out, GError **error)
{
    memset(out, 0, sizeof *out);
    Gemm g;
    if (!gemm_init(&g, a, l, error) ||
        !layer_memory_check(a, l, &g, compat, tr != NULL, error))
        return false;
    gemm_tables(&g);
    Sched s;
    sched_init(&s, &g, a, !compat);
    out->M = g.M, out->N = g.N, out->K = g.K;
    out->Sr = s.Sr, out->Sc = s.Sc, out->T = s.T;
    out->row_folds = s.row_folds, out->col_folds = s.col_folds;
    out->macs = g.M * g.N * g.K;

    EstBuf ib, fb;
    UserBuf iu, fu;
    bool user = a->bw_mode == TPU_BW_USER;
    uint64_t ispan = g.H * g.W * g.ch, fspan = g.N * g.fh * g.fw * g.ch;
    if (!user_span_check(a, l, &g, error)) {
        gemm_free(&g);
        return false;
    }
    TpuDramTraces *dt = tr ? tr->dram : NULL;
    if (user) {
        ub_init(&iu, &s, OP_IFMAP, a->ifmap_kb, a->bandwidth, a->ifmap_offset, ispan, dt);
        ub_init(&fu, &s, OP_FILTER, a->filter_kb, a->bandwidth, a->filter_offset, fspan, dt);
    } else {
        est_init(&ib, a->ifmap_kb, a->ifmap_offset, ispan, dt, TPU_EDGE_IFMAP);
        est_init(&fb, a->filter_kb, a->filter_offset, fspan, dt, TPU_EDGE_FILTER);
    }
    WrBuf wb;
    wb_init(&wb, a->ofmap_kb, user ? a->bandwidth : a->cols);
    wb.exact = !compat;
    wb.dram = dt;

    uint64_t maxw = MAX(a->rows, a->cols);
    int64_t *row = g_new(int64_t, maxw);
    uint64_t stall = 0, rowi = 0;
    double last_out = 0;
    bool seen[3] = { false, false, false };
    double first[3] = { 0, 0, 0 }, last[3] = { 0, 0, 0 };
    double me_sum = 0, cu_sum = 0;
    uint64_t nfolds = 0, total_folds = s.row_folds * s.col_folds;
    /* Sampling (default mode, CALC, no traces): once the estimator has taken `budget` words,
     * it is fed no more; the folds between the one under way and the last are not simulated row
     * by row (their cycles, stalls and SRAM counts are closed forms or the sample's rate), and
     * the ifmap and filter DRAM reads of every word not fed are estimated from the words the
     * estimator inserted per word fed in the sample (sample_extra). The last fold, often a
     * partial one unlike the sample, is simulated and feeds the estimator again. */
    uint64_t budget = compat || user || tr ? 0 : tpu_sample_budget;
    bool sampling = false;                     /* the estimator is no longer fed */
    Sample sm = { 0 };
    bool stopped = false;
    for (uint64_t fc = 0; fc < s.col_folds && !stopped; fc++) {
        for (uint64_t fr = 0; fr < s.row_folds; fr++) {
            if (G_UNLIKELY(tpu_stop_requested)) {
                stopped = true;
                break;
            }
            sched_fold(&s, fc, fr);
            nfolds++;
            uint64_t sr_i = out->sram_ifmap_reads, sr_f = out->sram_filter_reads;
            uint64_t sw_o = out->sram_ofmap_writes;
            uint64_t used = s.rows_used * s.cols_used;
            me_sum += (double)used / (double)(s.R * s.C);
            /* the stationary or output operand's demand block: its rows + columns - 1 */
            uint64_t fold_cycles;
            if (compat) {
                const Demand *d = a->dataflow == TPU_OS ? &s.d[OP_OFMAP]
                                  : a->dataflow == TPU_WS ? &s.d[OP_FILTER] : &s.d[OP_IFMAP];
                fold_cycles = d->prefix + d->body + d->suffix + d->W - 1;
            } else {
                fold_cycles = s.P;
            }
            cu_sum += (double)(used * s.T) / (double)(s.R * s.C * fold_cycles);
            /* SRAM accesses, counted per fold as the demand blocks hold them */
            switch (a->dataflow) {
            case TPU_OS:
                out->sram_ifmap_reads += s.T * s.rows_used;
                out->sram_filter_reads += s.T * s.cols_used;
                out->sram_ofmap_writes += s.rows_used * s.cols_used + (compat ? s.R + s.C : 0);
                break;
            case TPU_WS:
                out->sram_ifmap_reads += s.T * s.rows_used;
                out->sram_filter_reads += s.rows_used * s.cols_used;
                out->sram_ofmap_writes += s.T * s.cols_used;
                break;
            default:
                out->sram_ifmap_reads += s.rows_used * s.cols_used;
                out->sram_filter_reads += s.T * s.rows_used;
                out->sram_ofmap_writes += s.T * s.cols_used;
                break;
            }
            /* partial sums of a fold that is not the last along K stay on chip (default) */
            bool to_dram = compat || a->dataflow == TPU_OS || fr == s.row_folds - 1;
            if (sampling && nfolds < total_folds) {     /* a fold between the sample and the last */
                sm.skip_i += out->sram_ifmap_reads - sr_i;
                sm.skip_f += out->sram_filter_reads - sr_f;
                sm.skip_o += to_dram ? out->sram_ofmap_writes - sw_o : 0;
                sm.skipped++;
                rowi += s.P;
                continue;
            }
            /* the last fold (often a partial one, unlike the sample) feeds the estimator again */
            bool feed = !sampling || nfolds == total_folds;
            if (sampling && sm.skipped)                 /* the skipped folds' stalls */
                stall += (uint64_t)llround(sm.stall_rate * (double)sm.skipped);
            if (sampling && !sm.advanced) {
                /* the words not fed so far join the estimator's sets over the cycles skipped
                 * (est_advance), before the last fold feeds it again */
                int64_t c1 = (int64_t)(rowi + stall);
                est_advance(&ib, est_cap(&ib, sample_extra(&sm.i, sm.skip_i)), sm.c0, c1);
                est_advance(&fb, est_cap(&fb, sample_extra(&sm.f, sm.skip_f)), sm.c0, c1);
                sm.skip_i = sm.skip_f = 0;
                sm.advanced = true;
            }
            for (uint64_t i = 0; i < s.P; i++, rowi++) {
                double cycle = (double)(rowi + stall);
                uint64_t n;
                double late = 0;
                n = demand_row(&s, OP_IFMAP, i, feed ? row : NULL);
                double io = cycle + 1;
                if (user)
                    io = ub_row(&iu, cycle, row, n);
                else if (!feed)
                    sm.skip_i += n;
                else if (n)
                    est_row(&ib, (int64_t)cycle, row, n);
                if (n) {
                    if (!seen[0])
                        first[0] = io, seen[0] = true;
                    last[0] = io;
                }
                late = MAX(late, io - cycle - 1);
                n = demand_row(&s, OP_FILTER, i, feed ? row : NULL);
                double fo = cycle + 1;
                if (user)
                    fo = ub_row(&fu, cycle, row, n);
                else if (!feed)
                    sm.skip_f += n;
                else if (n)
                    est_row(&fb, (int64_t)cycle, row, n);
                if (n) {
                    if (!seen[1])
                        first[1] = fo, seen[1] = true;
                    last[1] = fo;
                }
                late = MAX(late, fo - cycle - 1);
                bool of_words = G_UNLIKELY(dt) && to_dram;    /* the DRAM trace's words */
                n = demand_row(&s, OP_OFMAP, i, of_words ? row : NULL);
                if (of_words && n)
                    tpu_dram_of_words(dt, row, n);
                double o = n ? wb_row(&wb, cycle, n, to_dram) : cycle;
                if (n) {
                    if (!seen[2])
                        first[2] = o, seen[2] = true;
                    last[2] = o;
                }
                late = MAX(late, o - cycle);
                if (G_UNLIKELY(tr) && rowi >= tr->from && rowi <= tr->to) {
                    double served[3] = { io, fo, o };
                    for (int op = 0; op < 3; op++)
                        if (tr->f[op])
                            trace_row(tr->f[op], &s, op, i, served[op]);
                }
                last_out = o;
                stall += (uint64_t)late;
                if (budget && !sampling && (sampling = sample_check(&sm, &ib, &fb, budget))) {
                    feed = nfolds == total_folds;
                    sm.c0 = (int64_t)cycle;
                    sm.advanced = feed;          /* the last fold: nothing will be skipped */
                }
            }
            if (sampling && !sm.stall_rate_set) {       /* the stall rate of the simulated folds */
                sm.stall_rate = (double)stall / (double)nfolds;
                sm.stall_rate_set = true;
                sm.sampled_folds = nfolds;
            }
        }
    }
    g_free(row);
    if (user) {
        ub_free(&iu);
        ub_free(&fu);
    } else {
        est_finish(&ib);
        est_finish(&fb);
        if (sampling) {
            ib.accesses += est_cap(&ib, sample_extra(&sm.i, sm.skip_i));
            fb.accesses += est_cap(&fb, sample_extra(&sm.f, sm.skip_f));
            wb.accesses += sm.skip_o;
            out->sampled_folds = sm.sampled_folds;
        }
    }
    wb_finish(&wb, last_out);
    if (stopped) {
        gemm_free(&g);
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_INTERRUPTED,
                    "interrupted by signal %d in layer %s", (int)tpu_stop_requested, l->name);
        return false;
    }

    out->stall_cycles = stall;
    out->total_cycles = compat ? (uint64_t)last_out : (uint64_t)last_out + 1;
    uint64_t macs_arr = s.R * s.C;
    out->overall_util = (double)out->macs * 100.0 /        /* macs x 100 wrapped past 2^64 */
                        ((double)out->total_cycles * (double)macs_arr);
    out->mapping_eff = me_sum / (double)nfolds * 100;
    out->compute_util = cu_sum / (double)nfolds * 100;
    out->sram_ifmap_start = (int64_t)first[0], out->sram_ifmap_stop = (int64_t)last[0];
    out->sram_filter_start = (int64_t)first[1], out->sram_filter_stop = (int64_t)last[1];
    out->sram_ofmap_start = (int64_t)first[2], out->sram_ofmap_stop = (int64_t)last[2];
    if (user) {
        out->dram_ifmap_start = iu.dram_start, out->dram_ifmap_stop = iu.dram_stop;
        out->dram_filter_start = fu.dram_start, out->dram_filter_stop = fu.dram_stop;
        out->dram_ifmap_reads = iu.accesses;
        out->dram_filter_reads = fu.accesses;
    } else {
        out->dram_ifmap_start = (double)ib.dram_start, out->dram_ifmap_stop = (double)ib.dram_stop;
        out->dram_filter_start = (double)fb.dram_start, out->dram_filter_stop = (double)fb.dram_stop;
        out->dram_ifmap_reads = ib.accesses;
        out->dram_filter_reads = fb.accesses;
    }
    out->dram_ofmap_start = wb.dram_start, out->dram_ofmap_stop = wb.dram_stop;
    out->dram_ofmap_writes = wb.accesses;
    double tc = (double)out->total_cycles;
    out->bw_sram_ifmap = (double)out->sram_ifmap_reads / tc;
    out->bw_sram_filter = (double)out->sram_filter_reads / tc;
    out->bw_sram_ofmap = (double)out->sram_ofmap_writes / tc;
    out->bw_dram_ifmap = (double)out->dram_ifmap_reads /
                         (out->dram_ifmap_stop - out->dram_ifmap_start + 1);
    out->bw_dram_filter = (double)out->dram_filter_reads /
                          (out->dram_filter_stop - out->dram_filter_start + 1);
    out->bw_dram_ofmap = (double)out->dram_ofmap_writes /
                         (out->dram_ofmap_stop - out->dram_ofmap_start + 1);
    gemm_free(&g);
    return true;
}

/* ---- the schedule, opened for teaching and tests (tpuint.h) ------------------------------- */

G_STATIC_ASSERT((int)TPU_EDGE_IFMAP == OP_IFMAP && (int)TPU_EDGE_FILTER == OP_FILTER &&
                (int)TPU_EDGE_OFMAP == OP_OFMAP);

struct TpuEdge {
    Gemm g;
    Sched s;
    TpuEdgeShape shape;
};

TpuEdge *tpu_edge_new(const TpuArch *a, const TpuLayer *l, bool compat, GError **error)
{
    TpuEdge *e = g_new0(TpuEdge, 1);
    if (!gemm_init(&e->g, a, l, error) ||
        !layer_memory_check(a, l, &e->g, compat, false, error)) {
        g_free(e);
        return NULL;
    }
    gemm_tables(&e->g);
    sched_init(&e->s, &e->g, a, !compat);      /* s.g points into e: e is not moved */
    const Sched *s = &e->s;
    e->shape = (TpuEdgeShape){ .df = a->dataflow, .M = e->g.M, .N = e->g.N, .K = e->g.K,
                               .R = s->R, .C = s->C, .Sr = s->Sr, .Sc = s->Sc, .T = s->T,
                               .row_folds = s->row_folds, .col_folds = s->col_folds,
                               .P = s->P };
    sched_fold(&e->s, 0, 0);
    return e;
}

const TpuEdgeShape *tpu_edge_shape(const TpuEdge *e) { return &e->shape; }

void tpu_edge_fold(TpuEdge *e, uint64_t fc, uint64_t fr)
{
    g_assert(fc < e->s.col_folds && fr < e->s.row_folds);
    sched_fold(&e->s, fc, fr);
}

uint64_t tpu_edge_row(const TpuEdge *e, TpuEdgeOp op, uint64_t i, int64_t *out)
{
    g_assert(i < e->s.P);
    return demand_row(&e->s, (int)op, i, out);
}

int64_t tpu_edge_addr(const TpuEdge *e, TpuEdgeOp op, uint64_t i, uint64_t j)
{
    const Gemm *g = &e->g;
    switch (op) {
    case TPU_EDGE_IFMAP:
        return i < g->M && j < g->K ? ifmap_addr(g, i, j) : -1;
    case TPU_EDGE_FILTER:
        return i < g->K && j < g->N ? filter_addr(g, i, j) : -1;
    default:
        return i < g->M && j < g->N ? ofmap_addr(g, i, j) : -1;
    }
}

void tpu_edge_free(TpuEdge *e)
{
    gemm_free(&e->g);
    g_free(e);
}
