/* tputeach.c: the systolic array PE by PE, cycle by cycle, for teaching (tpu.h, docs/tpu.md
 * "Teaching: the wavefront cycle by cycle"): which operands each PE holds, whether it
 * multiplies-accumulates, as a text grid per cycle or a VCD with one scope per PE.
 * Follows Kung, "Why systolic architectures?" (IEEE Computer 1982) and the mapping of Samajdar et
 * al., arXiv 1811.02883 sec. III, as tpumodel.c schedules it: the shape (Sr, Sc, T, folds, fold
 * length P) comes from the model itself (tpuint.h), and test_tputeach.c checks that what the edge
 * PEs take in and give out each cycle is exactly the model's demand rows.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/outfile.h"
#include "../../sim/error.h"
#include "../../sim/version.h"
#include "tpu.h"
#include "tpuint.h"

enum { TEACH_MAX_DIM = 16, TEACH_TEXT_WIDTH = 80 };
/* Past this many cycle blocks the text dump stops and says how many it left out (a whole large
 * layer would be gigabytes; a window is the way to look at it). */
#define TEACH_MAX_TEXT_CYCLES 100000u

typedef struct {
    TpuEdgeShape sh;
    bool drain;                  /* os outputs drain down the columns over R cycles (default) */
    uint64_t r0, c0, ru, cu;     /* the current fold: first mapped row/column, rows/columns used */
} Teach;

static void teach_fold(Teach *x, uint64_t fc, uint64_t fr)
{
    x->r0 = fr * x->sh.R;
    x->c0 = fc * x->sh.C;
    x->ru = MIN(x->sh.R, x->sh.Sr - x->r0);
    x->cu = MIN(x->sh.C, x->sh.Sc - x->c0);
}

/* PE (r, c) at fold cycle t. The closed forms are tpumodel.c's demand rows seen from inside:
 *   os  a[r0+r][k] enters row r at cycle k + r, w[k][c0+c] column c at k + c: they meet in PE
 *       (r,c) at t = k + r + c; the default model then shifts the outputs down, PE (r,c)'s
 *       leaving the bottom at T - 1 + R + c + (R - 1 - r)
 *   ws  cycles 0 .. R-1 shift the weights in from the top (row R-1's first); ifmap pixel m enters
 *       row r at R + m + r and meets w[k0+r][n0+c] at t = R + m + r + c; the partial sum
 *       o[m][n0+c] moves down, leaving the bottom at 2R - 1 + m + c
 *   is  the same with a[m0+c][k0+r] stationary and filter n streamed: t = R + n + r + c */
static void teach_pe(const Teach *x, uint64_t t, uint64_t r, uint64_t c, TpuTeachPe *p)
{
    *p = (TpuTeachPe){ false, false, -1, -1, -1, -1, -1, -1 };
    const uint64_t R = x->sh.R, T = x->sh.T;
    const bool rin = r < x->ru, cin = c < x->cu;
    if (x->sh.df == TPU_OS) {
        uint64_t D = T - 1 + R;                  /* the drain's first cycle at column 0 */
        if (x->drain && cin && t >= D + c) {
            uint64_t j = t - D - c;               /* rows shifted down so far */
            if (j <= r && r - j < x->ru) {
                p->om = (int64_t)(x->r0 + r - j), p->on = (int64_t)(x->c0 + c);
                p->moving = true;
            }
            return;
        }
        if (t < r + c)
            return;
        uint64_t k = t - r - c;
        if (k < T) {
            if (rin)
                p->am = (int64_t)(x->r0 + r), p->ak = (int64_t)k;
            if (cin)
                p->wk = (int64_t)k, p->wn = (int64_t)(x->c0 + c);
            if (rin && cin) {
                p->mac = true;
                p->om = p->am, p->on = p->wn;
            } else if (rin || cin) {
                p->moving = true;                 /* passing an unused row or column */
            }
        } else if (rin && cin) {
            p->om = (int64_t)(x->r0 + r), p->on = (int64_t)(x->c0 + c);   /* finished */
        }
        return;
    }
    /* ws and is: the stationary operand first, shifted in from the top, last row first */
    const bool ws = x->sh.df == TPU_WS;
    if (t < R) {
        if (r > t)
            return;
        uint64_t j = R - 1 - t + r;               /* the row of the value now in row r */
        if (j < x->ru && cin) {
            if (ws)
                p->wk = (int64_t)(x->r0 + j), p->wn = (int64_t)(x->c0 + c);
            else
                p->am = (int64_t)(x->c0 + c), p->ak = (int64_t)(x->r0 + j);
            p->moving = true;
        }
        return;
    }
    if (rin && cin) {
        if (ws)
            p->wk = (int64_t)(x->r0 + r), p->wn = (int64_t)(x->c0 + c);
        else
            p->am = (int64_t)(x->c0 + c), p->ak = (int64_t)(x->r0 + r);
    }
    if (t < R + r + c)
        return;
    uint64_t s = t - R - r - c;                   /* the streamed index: pixel (ws), filter (is) */
    if (s >= T)
        return;
    if (ws) {
        if (cin)
            p->om = (int64_t)s, p->on = (int64_t)(x->c0 + c);
        if (rin)
            p->am = (int64_t)s, p->ak = (int64_t)(x->r0 + r);
    } else {
        if (cin)
            p->om = (int64_t)(x->c0 + c), p->on = (int64_t)s;
        if (rin)
            p->wk = (int64_t)(x->r0 + r), p->wn = (int64_t)s;
    }
    if (rin && cin)
        p->mac = true;
    else
        p->moving = true;                         /* passing an unused row or column */
}

void tpu_teach_pe(const TpuEdgeShape *sh, bool compat, uint64_t cycle, uint64_t r, uint64_t c,
                  TpuTeachPe *out)
{
    g_assert(r < sh->R && c < sh->C && cycle < sh->row_folds * sh->col_folds * sh->P);
    Teach x = { .sh = *sh, .drain = !compat };
    uint64_t fold = cycle / sh->P;
    teach_fold(&x, fold / sh->row_folds, fold % sh->row_folds);
    teach_pe(&x, cycle % sh->P, r, c, out);
}

/* ---- text ---------------------------------------------------------------------------------- */

static const char *const df_name[] = {
    [TPU_OS] = "os (output stationary)",
    [TPU_WS] = "ws (weight stationary)",
    [TPU_IS] = "is (input stationary)",
};

static int digits(uint64_t v)
{
    int d = 1;
    while (v >= 10)
        v /= 10, d++;
    return d;
}

/* The streamed index of a PE's MAC (k in os, m in ws, n in is) and its letter. */
static int64_t streamed(const Teach *x, const TpuTeachPe *p)
{
    return x->sh.df == TPU_OS ? p->ak : x->sh.df == TPU_WS ? p->am : p->wn;
}

static void cell_full(GString *s, const TpuTeachPe *p)
{
    if (p->mac) {
        g_string_append_printf(s, "a%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT " w%" G_GINT64_FORMAT
                               ",%" G_GINT64_FORMAT " *", p->am, p->ak, p->wk, p->wn);
        return;
    }
    size_t len = s->len;
    if (p->am >= 0)
        g_string_append_printf(s, "a%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT " ", p->am, p->ak);
    if (p->wk >= 0)
        g_string_append_printf(s, "w%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT " ", p->wk, p->wn);
    if (p->om >= 0)
        g_string_append_printf(s, "o%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT " ", p->om, p->on);
    if (s->len == len)
        g_string_append_c(s, '.');
    else if (p->moving)
        g_string_append_c(s, 'v');
    else
        g_string_truncate(s, s->len - 1);
}

static void cell_compact(GString *s, const Teach *x, const TpuTeachPe *p, bool letters)
{
    if (p->mac && letters)
        g_string_append_printf(s, "%c%" G_GINT64_FORMAT "*", "kmn"[x->sh.df], streamed(x, p));
    else if (p->mac)
        g_string_append_printf(s, "%" G_GINT64_FORMAT "*", streamed(x, p));
    else if (p->am < 0 && p->wk < 0 && p->om < 0)
        g_string_append_c(s, '.');
    else
        g_string_append_c(s, p->moving ? 'v' : '-');
}

typedef struct {
    FILE *f;
    bool compact;
    bool letters;                /* compact: name the index in each cell and column label */
    int cellw, labelw;
    GString *line;
} TextOut;

/* Row and column labels: the GEMM index each array row / column is mapped to in this fold. */
static void text_label(GString *s, const Teach *x, bool row, uint64_t i)
{
    char v = row ? (x->sh.df == TPU_OS ? 'm' : 'k') : (x->sh.df == TPU_IS ? 'm' : 'n');
    if (i < (row ? x->ru : x->cu))
        g_string_append_printf(s, "%c=%" G_GUINT64_FORMAT, v, (row ? x->r0 : x->c0) + i);
    else
        g_string_append(s, "-");
}

static void text_pad(GString *s, size_t from, int width)
{
    while ((int)(s->len - from) < width)
        g_string_append_c(s, ' ');
}

static void text_header(TextOut *o, const Teach *x, const TpuLayer *l, bool compat,
                        uint64_t from, uint64_t to, uint64_t total)
{
    const TpuEdgeShape *sh = &x->sh;
    FILE *f = o->f;
    fprintf(f, "# archsim tpu teach: layer %s, %s, %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT
            " PEs,\n#   %s\n", l->name, df_name[sh->df], sh->R, sh->C,
            !compat ? "default model"
            : sh->df == TPU_OS ? "SCALE-Sim's schedule (--scalesim-compat: no output drain)"
                               : "SCALE-Sim's schedule (--scalesim-compat)");
    fprintf(f, "# GEMM o[m][n] = sum over k of a[m][k] * w[k][n]: M = %" G_GUINT64_FORMAT
            " ofmap pixels,\n#   N = %" G_GUINT64_FORMAT " filters, K = %" G_GUINT64_FORMAT
            " (filter window x channels)\n", sh->M, sh->N, sh->K);
    switch (sh->df) {
    case TPU_OS:
        fprintf(f, "# os: row r = pixel m, column c = filter n. a[m][k] enters from the left,\n"
                   "#   w[k][n] from the top, each row/column one cycle later than the one\n"
                   "#   before: they meet in PE (r,c) at fold cycle k + r + c. o[m][n] stays\n"
                   "#   in the PE%s.\n",
                x->drain ? ", then drains down the column (bottom row first)" : "");
        break;
    case TPU_WS:
        fprintf(f, "# ws: row r = window element k, column c = filter n. w[k][n] is shifted in\n"
                   "#   from the top in the first R cycles (last row first) and stays. a[m][k]\n"
                   "#   enters row r from the left at fold cycle R + m + r and meets w[k][n] in\n"
                   "#   PE (r,c) at R + m + r + c; the partial sum o[m][n] moves down a row per\n"
                   "#   cycle and leaves the bottom at 2R - 1 + m + c.\n");
        break;
    default:
        fprintf(f, "# is: row r = window element k, column c = pixel m. a[m][k] is shifted in\n"
                   "#   from the top in the first R cycles (last row first) and stays. w[k][n]\n"
                   "#   enters row r from the left at fold cycle R + n + r and meets a[m][k] in\n"
                   "#   PE (r,c) at R + n + r + c; the partial sum o[m][n] moves down a row per\n"
                   "#   cycle and leaves the bottom at 2R - 1 + n + c.\n");
        break;
    }
    uint64_t nf = sh->row_folds * sh->col_folds;
    fprintf(f, "# %" G_GUINT64_FORMAT " fold%s (%" G_GUINT64_FORMAT " column x %" G_GUINT64_FORMAT
            " row, column folds outer) of %" G_GUINT64_FORMAT " cycles: cycles\n#   0 to %"
            G_GUINT64_FORMAT ", shown %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
            " (memory stalls not counted)\n", nf, nf == 1 ? "" : "s", sh->col_folds,
            sh->row_folds, sh->P, total - 1, from, to);
    if (o->compact)
        fprintf(f, "# cell: %.*s5* = multiply-accumulate with %s = 5 this cycle;\n"
                   "#   the row labels and the column labels%s give the other indices;\n"
                   "#   - holds a value; v holds a value in transit; . idle\n",
                o->letters ? 1 : 0, "kmn" + sh->df,
                sh->df == TPU_OS ? "window element k" : sh->df == TPU_WS ? "pixel m" : "filter n",
                o->letters ? "" : sh->df == TPU_IS ? " (m)" : " (n)");
    else
        fprintf(f, "# cell: a3,7 w7,2 * = o[3][2] += a[3][7] * w[7][2] this cycle; a cell\n"
                   "#   without * lists what the PE holds (o: an output or partial sum);\n"
                   "#   v = in transit; . idle\n");
}

static void text_cycle(TextOut *o, const Teach *x, uint64_t fold, uint64_t fc, uint64_t fr,
                       uint64_t cycle, uint64_t t)
{
    GString *s = o->line;
    const TpuEdgeShape *sh = &x->sh;
    TpuTeachPe p;
    uint64_t macs = 0;
    for (uint64_t r = 0; r < sh->R; r++)
        for (uint64_t c = 0; c < sh->C; c++) {
            teach_pe(x, t, r, c, &p);
            macs += p.mac;
        }
    g_string_printf(s, "\n== cycle %" G_GUINT64_FORMAT ": %.2s fold %" G_GUINT64_FORMAT
                    " (column fold %" G_GUINT64_FORMAT ", row fold %" G_GUINT64_FORMAT
                    "), fold cycle %" G_GUINT64_FORMAT ", MACs %" G_GUINT64_FORMAT " ==\n",
                    cycle, df_name[sh->df], fold, fc, fr, t, macs);
    size_t start = s->len;
    text_pad(s, start, o->labelw);
    for (uint64_t c = 0; c < sh->C; c++) {
        g_string_append_c(s, ' ');
        size_t cs = s->len;
        if (o->letters || c >= x->cu)
            text_label(s, x, false, c);
        else
            g_string_append_printf(s, "%" G_GUINT64_FORMAT, x->c0 + c);
        if (c + 1 < sh->C)
            text_pad(s, cs, o->cellw);
    }
    g_string_append_c(s, '\n');
    for (uint64_t r = 0; r < sh->R; r++) {
        size_t rs = s->len;
        text_label(s, x, true, r);
        text_pad(s, rs, o->labelw);
        for (uint64_t c = 0; c < sh->C; c++) {
            teach_pe(x, t, r, c, &p);
            g_string_append_c(s, ' ');
            size_t cs = s->len;
            if (o->compact)
                cell_compact(s, x, &p, o->letters);
            else
                cell_full(s, &p);
            if (c + 1 < sh->C)
                text_pad(s, cs, o->cellw);
        }
        g_string_append_c(s, '\n');
    }
    fwrite(s->str, 1, s->len, o->f);
}

/* Full cells when the widest one fits R x C in 80 columns, else the compact form (the streamed
 * index only), else the compact form without index letters (16 columns with indices up to 99). */
static void text_layout(TextOut *o, const Teach *x)
{
    const TpuEdgeShape *sh = &x->sh;
    int d = digits(MAX(MAX(sh->M, sh->N), sh->K));
    int C = (int)sh->C;
    o->labelw = 2 + d;                           /* "m=123" */
    o->compact = false;
    o->letters = true;
    o->cellw = MAX(4 * d + 7, o->labelw);        /* "a12,34 w34,56 *" */
    if (o->labelw + C * (o->cellw + 1) <= TEACH_TEXT_WIDTH)
        return;
    o->compact = true;
    int t = digits(sh->T ? sh->T - 1 : 0);
    o->cellw = MAX(2 + t, o->labelw);           /* "k12*", "n=12" */
    if (o->labelw + C * (o->cellw + 1) <= TEACH_TEXT_WIDTH)
        return;
    o->letters = false;
    o->cellw = MAX(1 + t, d);                   /* "12*", "12" */
}

/* ---- VCD ----------------------------------------------------------------------------------- */

enum { VW_BUSY, VW_MOVING, VW_AM, VW_AK, VW_WK, VW_WN, VW_OM, VW_ON, VW_PER_PE };
static const char *const vcd_wire[VW_PER_PE] = { "busy", "moving", "a_m", "a_k", "w_k", "w_n",
                                                  "o_m", "o_n" };
enum { VG_FOLD, VG_FOLD_CYCLE, VG_MACS, VG_N };  /* the array's own wires */

typedef struct {
    FILE *f;
    uint64_t nsig;
    int64_t *prev;               /* last value written per signal; INT64_MIN: none yet */
    GString *buf;
} VcdOut;

/* VCD identifiers: printable ASCII 33..126, base 94. */
static void vcd_id(GString *s, uint64_t i)
{
    do {
        g_string_append_c(s, (char)(33 + i % 94));
        i /= 94;
    } while (i);
}

static void vcd_value(VcdOut *v, uint64_t sig, bool bit, int64_t val)
{
    if (v->prev[sig] == val)
        return;
    v->prev[sig] = val;
    GString *s = v->buf;
    if (bit) {
        g_string_append_c(s, val ? '1' : '0');
    } else if (val < 0) {
        g_string_append(s, "bx ");
    } else {
        g_string_append_c(s, 'b');
        int top = 63;
        while (top > 0 && !((uint64_t)val >> top & 1))
            top--;
        for (int b = top; b >= 0; b--)
            g_string_append_c(s, ((uint64_t)val >> b & 1) ? '1' : '0');
        g_string_append_c(s, ' ');
    }
    vcd_id(s, sig);
    g_string_append_c(s, '\n');
}

static void vcd_header(VcdOut *v, const Teach *x, const TpuLayer *l, bool compat,
                       uint64_t from, uint64_t to)
{
    const TpuEdgeShape *sh = &x->sh;
    GString *s = v->buf;
    g_string_append_printf(s,
        "$comment\n  archsim tpu teach: layer %s, %s, %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT
        " PEs, %s; cycles %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT " (memory stalls not "
        "counted). Time: 1 ns = 1 cycle.\n"
        "  GEMM o[m][n] = sum over k of a[m][k] * w[k][n] (M = %" G_GUINT64_FORMAT
        ", N = %" G_GUINT64_FORMAT ", K = %" G_GUINT64_FORMAT ").\n"
        "  tpu.fold, tpu.fold_cycle: the fold (column folds outer) and the cycle within it;"
        " tpu.macs: PEs computing this cycle.\n"
        "  One scope per PE, pe_R_C (row R, column C): busy = 1 when it multiplies-accumulates"
        " o[o_m][o_n] += a[a_m][a_k] * w[w_k][w_n] this cycle;\n"
        "  a_m, a_k / w_k, w_n / o_m, o_n: the ifmap element, filter element and output or"
        " partial sum it holds (x: none);\n"
        "  moving = 1: the value held is in transit (a stationary operand being loaded, an"
        " output draining, a value passing an unused PE).\n$end\n"
        "$version archsim " ARCHSIM_VERSION " tpu teach $end\n$timescale 1ns $end\n"
        "$scope module tpu $end\n",
        l->name, df_name[sh->df], sh->R, sh->C,
        compat ? "SCALE-Sim's schedule" : "default model", from, to, sh->M, sh->N, sh->K);
    static const char *const gname[VG_N] = { "fold", "fold_cycle", "macs" };
    for (uint64_t i = 0; i < VG_N; i++) {
        g_string_append_printf(s, "$var integer 32 ");
        vcd_id(s, i);
        g_string_append_printf(s, " %s $end\n", gname[i]);
    }
    for (uint64_t r = 0; r < sh->R; r++)
        for (uint64_t c = 0; c < sh->C; c++) {
            g_string_append_printf(s, "$scope module pe_%" G_GUINT64_FORMAT "_%" G_GUINT64_FORMAT
                                   " $end\n", r, c);
            for (int w = 0; w < VW_PER_PE; w++) {
                g_string_append_printf(s, w <= VW_MOVING ? "$var wire 1 " : "$var integer 32 ");
                vcd_id(s, VG_N + (r * sh->C + c) * VW_PER_PE + (uint64_t)w);
                g_string_append_printf(s, " %s $end\n", vcd_wire[w]);
            }
            g_string_append(s, "$upscope $end\n");
        }
    g_string_append(s, "$upscope $end\n$enddefinitions $end\n");
}

static void vcd_cycle(VcdOut *v, const Teach *x, uint64_t fold, uint64_t cycle, uint64_t t,
                      bool first)
{
    const TpuEdgeShape *sh = &x->sh;
    uint64_t macs = 0;
    TpuTeachPe p;
    for (uint64_t r = 0; r < sh->R; r++)
        for (uint64_t c = 0; c < sh->C; c++) {
            teach_pe(x, t, r, c, &p);
            macs += p.mac;
            uint64_t b = VG_N + (r * sh->C + c) * VW_PER_PE;
            const int64_t val[VW_PER_PE] = { p.mac, p.moving, p.am, p.ak, p.wk, p.wn, p.om, p.on };
            for (int w = 0; w < VW_PER_PE; w++)
                vcd_value(v, b + (uint64_t)w, w <= VW_MOVING, val[w]);
        }
    vcd_value(v, VG_FOLD, false, (int64_t)fold);
    vcd_value(v, VG_FOLD_CYCLE, false, (int64_t)t);
    vcd_value(v, VG_MACS, false, (int64_t)macs);
    if (v->buf->len == 0)                        /* nothing changed: no time stamp either */
        return;
    fprintf(v->f, "#%" G_GUINT64_FORMAT "\n%s", cycle, first ? "$dumpvars\n" : "");
    fwrite(v->buf->str, 1, v->buf->len, v->f);
    if (first)
        fputs("$end\n", v->f);
    g_string_truncate(v->buf, 0);
}

/* ---- the dump ------------------------------------------------------------------------------ */

bool tpu_teach_layer(const TpuArch *a, const TpuLayer *l, bool compat, TpuTeachFormat fmt,
                     uint64_t from, uint64_t to, const char *path, bool force, GError **error)
{
    if (a->rows > TEACH_MAX_DIM || a->cols > TEACH_MAX_DIM) {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG,
                    "%s: the array is %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT
                    " PEs; the teaching dump shows arrays up to %d x %d (set ArrayHeight and "
                    "ArrayWidth to 16 or less)", a->file ? a->file : "architecture", a->rows,
                    a->cols, TEACH_MAX_DIM, TEACH_MAX_DIM);
        return false;
    }
    TpuEdge *e = tpu_edge_new(a, l, compat, error);
    if (!e)
        return false;
    Teach x = { .sh = *tpu_edge_shape(e), .drain = !compat };
    tpu_edge_free(e);
    const TpuEdgeShape *sh = &x.sh;
    uint64_t nfolds = sh->row_folds * sh->col_folds, total = nfolds * sh->P;
    if (to >= total)
        to = total - 1;          /* UINT64_MAX: FROM: (open end), or past the last cycle; 0:0 is
                                    cycle 0 (it was the whole layer) */
    if (from > to) {
        g_set_error(error, ARCHSIM_CLI_ERROR, ARCHSIM_EXIT_USAGE,
                    "teaching window %" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT " is empty: layer "
                    "%s runs cycles 0 to %" G_GUINT64_FORMAT, from, to, l->name, total - 1);
        return false;
    }

    bool to_stdout = strcmp(path, "-") == 0;
    /* written beside PATH and renamed; an existing PATH only when it is an archsim teaching
     * dump and force says so (sim/outfile.h) */
    OutFile of = { .fd = -1 };
    bool replace = false;
    if (!to_stdout && !outfile_check(path, force, &outfile_tpu_teach, &replace, error))
        return false;
    FILE *f = stdout;
    if (!to_stdout) {
        GError *oe = NULL;
        if (!outfile_open(&of, path, force, &outfile_tpu_teach, &oe) ||
            !(f = fdopen(of.fd, "w"))) {
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_IOERR, "%s: cannot write: %s", path,
                        oe ? oe->message : g_strerror(errno));
            g_clear_error(&oe);
            outfile_abort(&of);
            return false;
        }
        of.fd = -1;              /* f owns it */
    }

    TextOut to_text = { .f = f, .line = g_string_new(NULL) };
    VcdOut to_vcd = { .f = f, .nsig = VG_N + sh->R * sh->C * VW_PER_PE, .buf = g_string_new(NULL) };
    to_vcd.prev = g_new(int64_t, to_vcd.nsig);
    for (uint64_t i = 0; i < to_vcd.nsig; i++)
        to_vcd.prev[i] = INT64_MIN;
    if (fmt == TPU_TEACH_TEXT) {
        text_layout(&to_text, &x);
        text_header(&to_text, &x, l, compat, from, to, total);
    } else {
        vcd_header(&to_vcd, &x, l, compat, from, to);
        fwrite(to_vcd.buf->str, 1, to_vcd.buf->len, f);
        g_string_truncate(to_vcd.buf, 0);
    }
    uint64_t shown = 0, cur = UINT64_MAX, end = to;
    for (uint64_t cycle = from; cycle <= to; cycle++) {
        uint64_t fold = cycle / sh->P, t = cycle % sh->P;
        uint64_t fc = fold / sh->row_folds, fr = fold % sh->row_folds;
        if (fold != cur) {
            teach_fold(&x, fc, fr);
            cur = fold;
        }
        if (tpu_stop_requested) {       /* SIGINT/TERM/HUP: no dump that looks complete */
            if (!to_stdout) {
                fclose(f);
                outfile_abort(&of);
            }
            g_string_free(to_text.line, TRUE);
            g_string_free(to_vcd.buf, TRUE);
            g_free(to_vcd.prev);
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_INTERRUPTED, "interrupted by "
                        "signal %d in the teaching dump", (int)tpu_stop_requested);
            return false;
        }
        if (shown++ >= TEACH_MAX_TEXT_CYCLES) {
            /* a whole large layer would be gigabytes, in either format (the VCD had no cap) */
            if (fmt == TPU_TEACH_VCD)
                fprintf(f, "$comment %" G_GUINT64_FORMAT " more cycles left out (at most %u are "
                           "shown): narrow the window $end\n", to - cycle + 1,
                        TEACH_MAX_TEXT_CYCLES);
            else
                fprintf(f, "\n# ... %" G_GUINT64_FORMAT " more cycles left out (at most %u are "
                           "shown): narrow the window\n", to - cycle + 1, TEACH_MAX_TEXT_CYCLES);
            end = cycle - 1;
            break;
        }
        if (fmt == TPU_TEACH_VCD)
            vcd_cycle(&to_vcd, &x, fold, cycle, t, cycle == from);
        else
            text_cycle(&to_text, &x, fold, fc, fr, cycle, t);
    }
    if (fmt == TPU_TEACH_VCD)
        fprintf(f, "#%" G_GUINT64_FORMAT "\n", end + 1);
    g_string_free(to_text.line, TRUE);
    g_string_free(to_vcd.buf, TRUE);
    g_free(to_vcd.prev);

    bool ok = !ferror(f);
    if (to_stdout)
        ok = fflush(f) == 0 && ok;
    else
        ok = fclose(f) == 0 && ok;
    if (!ok) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_IOERR, "%s: cannot write: %s", path,
                    g_strerror(errno));
        outfile_abort(&of);
        return false;
    }
    return to_stdout || outfile_commit(&of, error);
}
