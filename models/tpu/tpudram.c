/* tpudram.c: SCALE-Sim's DRAM traces, DIR/layerN/{IFMAP,FILTER,OFMAP}_DRAM_TRACE.csv: which words
 * every prefetch reads and every drain writes, one row per DRAM cycle (tpu.h, docs/tpu.md).
 *
 * The behaviour follows SCALE-Sim v2 (Samajdar et al., arXiv 1811.02883; scale-sim-v2 commit
 * 22f88b1: scalesim/memory/read_buffer_estimate_bw.py for CALC, read_buffer.py for USER,
 * write_buffer.py for the OFMAP drains, read_port.py and write_port.py for the port latencies, 1
 * and 0 cycles) and, for the order of the words in a CALC prefetch, CPython 3.11's set table
 * (Objects/setobject.c), since SCALE-Sim lists each set of words by iterating a Python set.
 * tpumodel.c's buffers (EstBuf, UserBuf, WrBuf) call the hooks of tpuint.h; this file turns them
 * into rows. Nothing here runs unless traces are asked for.
 */
#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../sim/error.h"
#include "tpu.h"
#include "tpuint.h"

/* ---- CPython 3.11's set of ints ------------------------------------------------------------
 * An open-addressed table of 2^k slots (8 at first). A key goes to slot hash & mask; when that
 * is taken, the next 9 slots are tried too (only while they lie inside the table), then the
 * probe jumps: perturb >>= 5, i = (i * 5 + 1 + perturb) & mask, and again the 10 slots from i.
 * When the slots ever filled reach 3/5 of the mask (fill * 5 >= mask * 3) the table grows to the
 * smallest power of two above 4 x the keys (2 x above 50000 keys), the keys moved over in the
 * old table's slot order. Iteration reads the slots in order, so a set's list() order depends
 * on the keys, the order they came in and when the table grew. hash(n) = n mod (2^61 - 1) for
 * n >= 0 (CPython's integer hash; numpy's int64 and integral float64, which SCALE-Sim's sets
 * may hold, hash the same). */
#define PYSET_LINEAR 9
#define PYSET_SHIFT 5

typedef struct {
    uint64_t mask, fill;
    int64_t *key;
    uint64_t *hash;
    uint8_t *full;
} PySet;

static uint64_t pyset_hash(int64_t v)
{
    const uint64_t P = (1ull << 61) - 1;
    if (v >= 0)
        return (uint64_t)v % P;
    uint64_t m = ((uint64_t)(-(v + 1)) + 1) % P;          /* |v| mod P, no overflow */
    int64_t h = -(int64_t)m;
    return (uint64_t)(h == -1 ? -2 : h);                  /* -1 is CPython's error value */
}

static void pyset_alloc(PySet *s, uint64_t slots)
{
    s->mask = slots - 1;
    s->fill = 0;
    s->key = g_new(int64_t, slots);
    s->hash = g_new(uint64_t, slots);
    s->full = g_new0(uint8_t, slots);
}

static void pyset_free(PySet *s)
{
    g_free(s->key);
    g_free(s->hash);
    g_free(s->full);
}

static void pyset_put(PySet *s, uint64_t j, int64_t key, uint64_t h)
{
    s->full[j] = 1;
    s->key[j] = key;
    s->hash[j] = h;
    s->fill++;
}

/* Moves a key into the grown table (it is absent there, and nothing was ever deleted). */
static void pyset_place(PySet *s, int64_t key, uint64_t h)
{
    uint64_t i = h & s->mask, perturb = h;
    for (;;) {
        if (!s->full[i]) {
            pyset_put(s, i, key, h);
            return;
        }
        if (i + PYSET_LINEAR <= s->mask)
            for (uint64_t j = i + 1; j <= i + PYSET_LINEAR; j++)
                if (!s->full[j]) {
                    pyset_put(s, j, key, h);
                    return;
                }
        perturb >>= PYSET_SHIFT;
        i = (i * 5 + 1 + perturb) & s->mask;
    }
}

static void pyset_resize(PySet *s, uint64_t minused)
{
    uint64_t slots = 8;
    while (slots <= minused)
        slots <<= 1;
    PySet old = *s;
    pyset_alloc(s, slots);
    for (uint64_t j = 0; j <= old.mask; j++)
        if (old.full[j])
            pyset_place(s, old.key[j], old.hash[j]);
    pyset_free(&old);
}

static void pyset_add(PySet *s, int64_t key)
{
    uint64_t h = pyset_hash(key), i = h & s->mask, perturb = h, j;
    for (;;) {
        uint64_t probes = i + PYSET_LINEAR <= s->mask ? PYSET_LINEAR : 0;
        for (j = i; j <= i + probes; j++) {
            if (!s->full[j])
                goto found;
            if (s->hash[j] == h && s->key[j] == key)
                return;                                   /* already there */
        }
        perturb >>= PYSET_SHIFT;
        i = (i * 5 + 1 + perturb) & s->mask;
    }
found:
    pyset_put(s, j, key, h);
    if (s->fill * 5 < s->mask * 3)
        return;
    pyset_resize(s, s->fill > 50000 ? s->fill * 2 : s->fill * 4);   /* fill == used: no deletes */
}

size_t tpu_pyset_order(const int64_t *keys, size_t n, int64_t *out)
{
    PySet s;
    pyset_alloc(&s, 8);
    for (size_t k = 0; k < n; k++)
        pyset_add(&s, keys[k]);
    size_t m = 0;
    for (uint64_t j = 0; j <= s.mask; j++)
        if (s.full[j])
            out[m++] = s.key[j];
    pyset_free(&s);
    return m;
}

/* ---- one trace file ------------------------------------------------------------------------
 * SCALE-Sim builds each trace as one float matrix and prints it at the end of the layer; when a
 * CALC prefetch is wider than the rows before it, those rows get columns of 1.0 (and a narrower
 * one gets them at once), so the final width is known only at the end. Rows therefore go,
 * unpadded, to NAME.rows.part; the close pads them to the widest row seen (in the window or
 * not) into NAME.part and renames it to NAME (or renames NAME.rows.part directly when no row
 * needs padding). A failed layer leaves neither. */
typedef struct {
    char *path, *rows_path, *part_path;   /* temporary files beside path (sim/outfile.h) */
    bool placed;                          /* path is this run's own file now */
    FILE *rows;
    uint64_t width;              /* the widest row of the layer, columns including the cycle */
    uint64_t narrowest;          /* the narrowest row written (UINT64_MAX: none) */
    GString *line;
} DramFile;

/* USER (read_buffer.py): the operand's fetch order cut into lines of bw words is the "fetch
 * matrix". The first fill reads its first `na` lines; every refill reads `npf` lines from a start
 * line that SCALE-Sim sets from the refill's own size (not from where the last one ended), so
 * after the first refill every refill reads the same lines. Both blank (-1) the words of their
 * last line past the active half's size modulo bw when they read more words than the active
 * half, and a refill also blanks the first `next_col` words of its first line; when the lines do
 * not wrap around the end of the matrix, these blanks are written into the fetch matrix itself
 * and stay for later refills (numpy slices are views). Only the lines these reads can reach are
 * kept (`rng`), with the blanks made so far (`blank`). */
#define USER_RANGES 5
#define USER_BLANKS 8

typedef struct {
    uint64_t nelems, nrows, bw, active, pf;
    uint64_t na, npf, next_col, next_line;
    struct {
        uint64_t lo, hi;         /* lines [lo, hi) */
        int64_t *a;              /* their words, (hi - lo) x bw */
    } rng[USER_RANGES];
    int nrng;
    struct {
        uint64_t row, lo, hi;    /* words [lo, hi) of line row read as -1 */
    } blank[USER_BLANKS];
    int nblank;
    int64_t *buf;                /* one read's words */
} UserTrace;

struct TpuDramTraces {
    DramFile f[3];
    uint64_t from, to;
    GArray *log[2];              /* CALC: words added to the estimator's sets since its last
                                    prefetch, in order (int64_t), per read operand */
    GArray *order;               /* scratch: one prefetch's words in SCALE-Sim's order */
    UserTrace user[2];
    GArray *ofq;                 /* OFMAP words written to the buffer, not yet drained */
    guint ofq_head;
};

static const char *const dram_names[3] = {
    "IFMAP_DRAM_TRACE.csv", "FILTER_DRAM_TRACE.csv", "OFMAP_DRAM_TRACE.csv",
};

/* A DRAM row is in the window when its cycle is in [from, to]; from = 0 also takes the first
 * fill, which SCALE-Sim places before cycle 0. */
static bool dram_in_window(const TpuDramTraces *d, double cycle)
{
    return cycle <= (double)d->to && (d->from == 0 || cycle >= (double)d->from);
}

/* SCALE-Sim's matrices are float64 printed with '%s': Python's repr of each value. */
static void dram_value(GString *s, double v)
{
    if (v == floor(v) && fabs(v) < 1e16) {
        char buf[32];
        int n = snprintf(buf, sizeof buf, "%lld.0", (long long)v);
        if (v == 0 && signbit(v))
            n = snprintf(buf, sizeof buf, "-0.0");
        g_string_append_len(s, buf, n);
    } else {
        tpu_py_float(s, v);
    }
}

/* Accounts a row of `width` columns (cycle included) and writes it when in the window: the
 * cycle, then n values, then -1 up to the width. */
static void dram_row(TpuDramTraces *d, int op, double cycle, const int64_t *v, uint64_t n,
                     uint64_t width)
{
    DramFile *f = &d->f[op];
    f->width = MAX(f->width, width);
    if (!dram_in_window(d, cycle))
        return;
    f->narrowest = MIN(f->narrowest, width);
    GString *s = f->line;
    g_string_truncate(s, 0);
    dram_value(s, cycle);
    for (uint64_t k = 1; k < width; k++) {
        g_string_append_c(s, ',');
        if (k - 1 < n)
            dram_value(s, (double)v[k - 1]);
        else
            g_string_append(s, "-1.0");
    }
    g_string_append_c(s, '\n');
    fwrite(s->str, 1, s->len, f->rows);
}

TpuDramTraces *tpu_dram_traces_open(const char *dir, int layer, uint64_t from, uint64_t to,
                                    GError **error)
{
    char *ld = g_strdup_printf("%s/layer%d", dir, layer);
    if (g_mkdir_with_parents(ld, 0777) != 0) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT, "%s: %s", ld,
                    g_strerror(errno));
        g_free(ld);
        return NULL;
    }
    TpuDramTraces *d = g_new0(TpuDramTraces, 1);
    d->from = from;
    d->to = to;
    bool ok = true;
    for (int i = 0; i < 3; i++) {
        DramFile *f = &d->f[i];
        f->path = g_build_filename(ld, dram_names[i], NULL);
        f->narrowest = UINT64_MAX;
        f->line = g_string_new(NULL);
        /* an existing trace of that name is replaced (tpu wrote into DIR under --force); any
         * other file, a link or a device is refused */
        bool replace;
        int fd = -1;
        if (ok && (!outfile_check(f->path, true, &tpu_trace_file, &replace, error) ||
                   (fd = outfile_create_temp(f->path, &f->rows_path, error)) < 0))
            ok = false;
        if (ok && !(f->rows = fdopen(fd, "w"))) {
            close(fd);
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT, "%s: %s", f->rows_path,
                        g_strerror(errno));
            ok = false;
        }
    }
    for (int i = 0; i < 2; i++)
        d->log[i] = g_array_new(FALSE, FALSE, sizeof(int64_t));
    d->order = g_array_new(FALSE, FALSE, sizeof(int64_t));
    d->ofq = g_array_new(FALSE, FALSE, sizeof(int64_t));
    g_free(ld);
    if (!ok) {
        tpu_dram_traces_abort(d);
        return NULL;
    }
    return d;
}

static void dram_free(TpuDramTraces *d)
{
    for (int i = 0; i < 3; i++) {
        DramFile *f = &d->f[i];
        g_free(f->path);
        g_free(f->rows_path);
        g_free(f->part_path);
        g_string_free(f->line, TRUE);
    }
    for (int i = 0; i < 2; i++) {
        g_array_free(d->log[i], TRUE);
        UserTrace *u = &d->user[i];
        for (int r = 0; r < u->nrng; r++)
            g_free(u->rng[r].a);
        g_free(u->buf);
    }
    g_array_free(d->order, TRUE);
    g_array_free(d->ofq, TRUE);
    g_free(d);
}

void tpu_dram_traces_abort(TpuDramTraces *d)
{
    if (!d)
        return;
    for (int i = 0; i < 3; i++) {
        DramFile *f = &d->f[i];
        if (f->rows)
            fclose(f->rows);
        f->rows = NULL;
        if (f->rows_path)
            g_unlink(f->rows_path);
        if (f->part_path)
            g_unlink(f->part_path);
    }
    dram_free(d);
}

/* Pads every row of the rows file to f->width with 1.0 columns, into the .part file. */
static bool dram_pad(DramFile *f, GError **error)
{
    FILE *in = fopen(f->rows_path, "r"), *out = NULL;
    int fd = in ? outfile_create_temp(f->path, &f->part_path, NULL) : -1;
    if (fd >= 0 && !(out = fdopen(fd, "w")))
        close(fd);
    const char *bad = !in ? f->rows_path : f->part_path ? f->part_path : f->path;
    bool ok = in && out;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while (ok && (len = getline(&line, &cap, in)) > 0) {
        uint64_t cols = 1;
        for (ssize_t k = 0; k < len; k++)
            cols += line[k] == ',';
        if (line[len - 1] == '\n')
            line[--len] = 0;
        fwrite(line, 1, (size_t)len, out);
        for (; cols < f->width; cols++)
            fputs(",1.0", out);
        fputc('\n', out);
    }
    if (ok && ferror(in)) {
        ok = false;
        bad = f->rows_path;
    }
    free(line);
    if (in)
        fclose(in);
    if (out && (ferror(out) | (fclose(out) != 0)))
        ok = false;
    if (!ok)
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_IOERR, "%s: %s", bad,
                    g_strerror(errno ? errno : EIO));
    return ok;
}

bool tpu_dram_traces_close(TpuDramTraces *d, GError **error)
{
    bool ok = true;
    for (int i = 0; i < 3; i++) {
        DramFile *f = &d->f[i];
        errno = 0;
        bool bad = ferror(f->rows) != 0;
        if ((fclose(f->rows) != 0 || bad) && ok) {
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_IOERR, "%s: %s", f->rows_path,
                        g_strerror(errno ? errno : EIO));
            ok = false;
        }
        f->rows = NULL;
    }
    for (int i = 0; ok && i < 3; i++) {
        DramFile *f = &d->f[i];
        const char *from = f->rows_path;
        if (f->narrowest != UINT64_MAX && f->narrowest < f->width) {
            if (!(ok = dram_pad(f, error)))
                break;
            from = f->part_path;
        }
        GError *e = NULL;
        if (outfile_place(from, f->path, true, &tpu_trace_file, &e)) {
            f->placed = true;
        } else {
            /* the name was taken meanwhile: a write error of this trace */
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_IOERR, "%s", e->message);
            g_error_free(e);
            ok = false;
        }
        g_unlink(f->rows_path);
    }
    if (!ok)
        for (int i = 0; i < 3; i++) {
            if (d->f[i].rows_path)
                g_unlink(d->f[i].rows_path);
            if (d->f[i].part_path)
                g_unlink(d->f[i].part_path);
            if (d->f[i].placed)
                g_unlink(d->f[i].path);        /* a layer is written whole or not at all */
        }
    dram_free(d);
    return ok;
}

/* ---- CALC: read_buffer_estimate_bw.py ------------------------------------------------------
 * Every prefetch lists the sets it fetches, each set's words in its Python set's order, and
 * reshapes them into rows of `bw` words (-1 past the last word), one row per cycle of the
 * prefetch, answered one cycle later by the read port. The words of the sets since the last
 * prefetch are exactly the ones the estimator added, set after set, in `log`. */
void tpu_dram_est_word(TpuDramTraces *d, TpuEdgeOp op, int64_t addr)
{
    g_array_append_val(d->log[op], addr);
}

void tpu_dram_est_prefetch(TpuDramTraces *d, TpuEdgeOp op, uint64_t items, int64_t first_cycle,
                           uint64_t cycles, uint64_t bw)
{
    GArray *log = d->log[op];
    uint64_t words = log->len;
    g_assert(words <= cycles * bw);
    double c0 = (double)first_cycle, c1 = c0 + (double)cycles - 1;
    if (!cycles || c0 > (double)d->to || (d->from && c1 < (double)d->from)) {   /* only its width */
        d->f[op].width = MAX(d->f[op].width, bw + 1);
        g_array_set_size(log, 0);
        return;
    }
    g_array_set_size(d->order, words);
    const int64_t *in = &g_array_index(log, int64_t, 0);
    int64_t *out = &g_array_index(d->order, int64_t, 0);
    uint64_t done = 0;
    for (uint64_t k = 0; k < words; k += items)
        done += tpu_pyset_order(in + k, MIN(items, words - k), out + done);
    g_assert(done == words);                   /* the estimator adds each word to a set once */
    for (uint64_t r = 0; r < cycles; r++) {
        uint64_t lo = MIN(r * bw, words);
        dram_row(d, op, (double)(first_cycle + (int64_t)r), out + lo, MIN(bw, words - lo), bw + 1);
    }
    g_array_set_size(log, 0);
}

/* ---- USER: read_buffer.py ------------------------------------------------------------------ */

static void user_need(UserTrace *u, uint64_t lo, uint64_t hi)
{
    if (lo >= hi)
        return;
    g_assert(u->nrng < USER_RANGES);
    u->rng[u->nrng].lo = lo;
    u->rng[u->nrng].hi = hi;
    u->rng[u->nrng].a = g_new(int64_t, (hi - lo) * u->bw);
    for (uint64_t k = 0; k < (hi - lo) * u->bw; k++)
        u->rng[u->nrng].a[k] = -1;             /* past the operand's last word */
    u->nrng++;
}

/* The lines a refill from `start` reads: to the end of the matrix, then from its start. */
static void user_need_refill(UserTrace *u, uint64_t start)
{
    uint64_t end = start + u->npf;
    if (end > u->nrows) {
        user_need(u, start, u->nrows);
        user_need(u, 0, MIN(end - u->nrows, start));
    } else {
        user_need(u, start, end);
    }
}

static uint64_t user_next_line(const UserTrace *u, uint64_t lines)
{
    return (lines * u->bw > u->active ? lines : lines + 1) % u->nrows;
}

void tpu_dram_user_begin(TpuDramTraces *d, TpuEdgeOp op, uint64_t nelems, uint64_t bw,
                         uint64_t active, uint64_t pf)
{
    UserTrace *u = &d->user[op];
    *u = (UserTrace){ .nelems = nelems, .bw = bw, .active = active, .pf = pf };
    u->nrows = (nelems + bw - 1) / bw;
    u->na = MIN((active + bw - 1) / bw, u->nrows);
    u->npf = (pf + bw - 1) / bw;
    u->next_col = u->na * bw > active ? active % bw : 0;
    u->buf = g_new(int64_t, bw);
    uint64_t s1 = user_next_line(u, u->na), s2 = user_next_line(u, u->npf);
    user_need(u, 0, u->na);
    user_need_refill(u, s1);
    if (s2 != s1)
        user_need_refill(u, s2);
    u->next_line = s1;
}

void tpu_dram_user_elem(TpuDramTraces *d, TpuEdgeOp op, uint64_t index, int64_t addr)
{
    UserTrace *u = &d->user[op];
    for (int r = 0; r < u->nrng; r++)
        if (index >= u->rng[r].lo * u->bw && index < u->rng[r].hi * u->bw)
            u->rng[r].a[index - u->rng[r].lo * u->bw] = addr;
}

/* Word c of fetch-matrix line `row` as it is now. */
static int64_t user_word(const UserTrace *u, uint64_t row, uint64_t c)
{
    for (int b = 0; b < u->nblank; b++)
        if (u->blank[b].row == row && c >= u->blank[b].lo && c < u->blank[b].hi)
            return -1;
    for (int r = 0; r < u->nrng; r++)
        if (row >= u->rng[r].lo && row < u->rng[r].hi)
            return u->rng[r].a[(row - u->rng[r].lo) * u->bw + c];
    g_assert_not_reached();
}

static void user_blank(UserTrace *u, uint64_t row, uint64_t lo, uint64_t hi)
{
    if (lo >= hi)
        return;
    for (int b = 0; b < u->nblank; b++)
        if (u->blank[b].row == row && u->blank[b].lo == lo && u->blank[b].hi == hi)
            return;
    g_assert(u->nblank < USER_BLANKS);
    u->blank[u->nblank].row = row;
    u->blank[u->nblank].lo = lo;
    u->blank[u->nblank].hi = hi;
    u->nblank++;
}

/* One read of `n` lines (lines[k], k < n) answered from cycle `first`: `head` words of its first
 * line and the words of its last line from `tail` on read as -1; `view`: those blanks stay in
 * the fetch matrix. */
static void user_read(TpuDramTraces *d, TpuEdgeOp op, const uint64_t *lines, uint64_t n,
                      double first, uint64_t head, uint64_t tail, bool view)
{
    UserTrace *u = &d->user[op];
    for (uint64_t k = 0; k < n; k++) {
        for (uint64_t c = 0; c < u->bw; c++) {
            bool blank = (k == 0 && c < head) || (k == n - 1 && c >= tail);
            u->buf[c] = blank ? -1 : user_word(u, lines[k], c);
        }
        dram_row(d, op, first + (double)k, u->buf, u->bw, u->bw + 1);
    }
    if (view && n) {
        user_blank(u, lines[0], 0, head);
        user_blank(u, lines[n - 1], tail, u->bw);
    }
}

void tpu_dram_user_fill(TpuDramTraces *d, TpuEdgeOp op)
{
    UserTrace *u = &d->user[op];
    uint64_t *lines = g_new(uint64_t, MAX(u->na, 1));
    for (uint64_t k = 0; k < u->na; k++)
        lines[k] = k;
    uint64_t tail = u->na * u->bw > u->active ? u->active % u->bw : u->bw;
    user_read(d, op, lines, u->na, -(double)u->na, 0, tail, true);
    g_free(lines);
}

void tpu_dram_user_refill(TpuDramTraces *d, TpuEdgeOp op, double last_response)
{
    UserTrace *u = &d->user[op];
    uint64_t start = u->next_line, end = start + u->npf, n = 0;
    uint64_t *lines = g_new(uint64_t, MAX(u->npf, 1));
    bool view = end <= u->nrows;
    for (uint64_t r = start; r < MIN(end, u->nrows); r++)
        lines[n++] = r;
    if (!view)                                 /* wraps around: numpy copies */
        for (uint64_t r = 0; r < MIN(end - u->nrows, start); r++)
            lines[n++] = r;
    uint64_t tail = u->npf * u->bw > u->active ? u->active % u->bw : u->bw;
    /* requested at last_response + 1 + k, answered a cycle later */
    user_read(d, op, lines, n, last_response + 2, u->next_col, tail, view);
    g_free(lines);
    u->next_line = user_next_line(u, u->npf);
}

/* ---- OFMAP: write_buffer.py ---------------------------------------------------------------
 * Words are packed into lines of bw as the array writes them; a drain sends its lines one per
 * cycle (the write port adds no latency), a part-filled line padded with -1. */
void tpu_dram_of_words(TpuDramTraces *d, const int64_t *addrs, uint64_t n)
{
    if (d->ofq_head > 4096 && d->ofq_head * 2 > d->ofq->len) {     /* drop the drained words */
        g_array_remove_range(d->ofq, 0, d->ofq_head);
        d->ofq_head = 0;
    }
    g_array_append_vals(d->ofq, addrs, (guint)n);
}

void tpu_dram_of_drain(TpuDramTraces *d, double start, const uint32_t *words, uint64_t nlines,
                       uint64_t bw)
{
    for (uint64_t k = 0; k < nlines; k++) {
        g_assert(d->ofq_head + words[k] <= d->ofq->len);
        const int64_t *w = &g_array_index(d->ofq, int64_t, d->ofq_head);
        dram_row(d, TPU_EDGE_OFMAP, start + (double)k, w, words[k], bw + 1);
        d->ofq_head += words[k];
    }
}
