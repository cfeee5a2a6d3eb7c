/* tpureport.c: the three per-layer reports, with SCALE-Sim's column names, order and number
 * formatting (integers as integers, floats as Python prints them: the shortest decimal that reads
 * back to the same double), so files from the two tools compare with diff (tpu.h). Files are
 * written beside their names and renamed when complete (sim/outfile.h): a failed run never
 * leaves a report that looks whole, and only a TPU report or trace is ever replaced. */
#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../sim/error.h"
#include "tpu.h"

void tpu_py_float(GString *out, double v)
{
    if (v != v) {
        g_string_append(out, "nan");
        return;
    }
    if (v == 1.0 / 0.0 || v == -1.0 / 0.0) {
        g_string_append(out, v > 0 ? "inf" : "-inf");
        return;
    }
    if (v == 0) {
        g_string_append(out, signbit(v) ? "-0.0" : "0.0");
        return;
    }
    char buf[64];
    int p;
    for (p = 1; p <= 17; p++) {                     /* the shortest round trip */
        snprintf(buf, sizeof buf, "%.*e", p - 1, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    /* buf = [-]d[.ddd]e±XX: digits and exponent */
    bool neg = buf[0] == '-';
    const char *s = buf + neg;
    char digits[32];
    int nd = 0;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            digits[nd++] = *s;
    digits[nd] = 0;
    while (nd > 1 && digits[nd - 1] == '0')
        digits[--nd] = 0;
    int exp = atoi(s + 1);
    if (neg)
        g_string_append_c(out, '-');
    if (exp >= -5 + 1 && exp < 16) {                /* Python: fixed for 1e-4 <= |v| < 1e16 */
        if (exp < 0) {
            g_string_append(out, "0.");
            for (int i = 0; i < -exp - 1; i++)
                g_string_append_c(out, '0');
            g_string_append(out, digits);
        } else {
            for (int i = 0; i <= exp; i++)
                g_string_append_c(out, i < nd ? digits[i] : '0');
            g_string_append_c(out, '.');
            if (nd > exp + 1)
                g_string_append(out, digits + exp + 1);
            else
                g_string_append_c(out, '0');
        }
    } else {
        g_string_append_c(out, digits[0]);
        if (nd > 1) {
            g_string_append_c(out, '.');
            g_string_append(out, digits + 1);
        }
        g_string_append_printf(out, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    }
}

struct TpuReports {
    char *dir;
    char *path[4], *part[4];
    FILE *f[4];
};

#define NREP 4
static const char *const report_names[NREP] = {
    "COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv", "DETAILED_ACCESS_REPORT.csv", "ROOFLINE.csv",
};
static const char *const report_headers[NREP] = {
    "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,\n",
    "LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, Avg IFMAP DRAM BW, "
    "Avg FILTER DRAM BW, Avg OFMAP DRAM BW,\n",
    "LayerID, SRAM IFMAP Start Cycle, SRAM IFMAP Stop Cycle, SRAM IFMAP Reads, "
    "SRAM Filter Start Cycle, SRAM Filter Stop Cycle, SRAM Filter Reads, "
    "SRAM OFMAP Start Cycle, SRAM OFMAP Stop Cycle, SRAM OFMAP Writes, "
    "DRAM IFMAP Start Cycle, DRAM IFMAP Stop Cycle, DRAM IFMAP Reads, "
    "DRAM Filter Start Cycle, DRAM Filter Stop Cycle, DRAM Filter Reads, "
    "DRAM OFMAP Start Cycle, DRAM OFMAP Stop Cycle, DRAM OFMAP Writes,\n",
    "LayerID,Layer,Ops,DRAM Bytes,Ops per DRAM Byte,Cycles incl. first fill,Ops per Cycle,"
    "Compute Roof,"
    "Bandwidth Roof,Sampled Folds\n",
};

/* A TPU report: its first line is the header of the report of that name. */
static bool tpu_is_report(const char *path)
{
    char *base = g_path_get_basename(path), *text = NULL;
    bool own = false;
    for (int i = 0; i < NREP && !own; i++)
        if (strcmp(base, report_names[i]) == 0 && g_file_get_contents(path, &text, NULL, NULL)) {
            own = g_str_has_prefix(text, report_headers[i]);
            g_clear_pointer(&text, g_free);
        }
    g_free(base);
    return own;
}

/* One line of a SCALE-Sim trace: numbers separated by commas (and spaces). */
static bool tpu_trace_line(const char *l)
{
    bool digit = false;
    for (; *l; l++) {
        if (g_ascii_isdigit(*l))
            digit = true;
        else if (!strchr(" ,.-+eE\r", *l))
            return false;
    }
    return digit;
}

static bool tpu_is_trace(const char *path)
{
    return outfile_lines_match(path, tpu_trace_line);
}

const OutfileKind tpu_report_file = { "tpu report", tpu_is_report };
const OutfileKind tpu_trace_file = { "SCALE-Sim trace", tpu_is_trace };

static void reports_free(TpuReports *r)
{
    for (int i = 0; i < NREP; i++) {
        if (r->f[i])
            fclose(r->f[i]);
        if (r->part[i])
            g_unlink(r->part[i]);
        g_free(r->path[i]);
        g_free(r->part[i]);
    }
    g_free(r->dir);
    g_free(r);
}

void tpu_reports_abort(TpuReports *r)
{
    reports_free(r);
}

TpuReports *tpu_reports_open(const char *dir, GError **error)
{
    if (g_mkdir_with_parents(dir, 0777) != 0) {
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT, "%s: cannot create the "
                    "output directory: %s", dir, g_strerror(errno));
        return NULL;
    }
    TpuReports *r = g_new0(TpuReports, 1);
    r->dir = g_strdup(dir);
    for (int i = 0; i < NREP; i++) {
        r->path[i] = g_build_filename(dir, report_names[i], NULL);
        bool replace;
        int fd = -1;
        if (!outfile_check(r->path[i], true, &tpu_report_file, &replace, error) ||
            (fd = outfile_create_temp(r->path[i], &r->part[i], error)) < 0) {
            reports_free(r);
            return NULL;
        }
        r->f[i] = fdopen(fd, "w");
        if (!r->f[i]) {
            close(fd);
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT, "%s: %s", r->part[i],
                        g_strerror(errno));
            reports_free(r);
            return NULL;
        }
        fputs(report_headers[i], r->f[i]);
    }
    return r;
}

static void add_u(GString *s, uint64_t v) { g_string_append_printf(s, ", %" G_GUINT64_FORMAT, v); }
static void add_f(GString *s, double v)
{
    g_string_append(s, ", ");
    tpu_py_float(s, v);
}

void tpu_reports_add(TpuReports *r, int id, const char *name, const TpuArch *a,
                     const TpuLayerResult *x)
{
    GString *s = g_string_new(NULL);
    g_string_printf(s, "%d", id);
    add_u(s, x->total_cycles);
    add_u(s, x->stall_cycles);
    add_f(s, x->overall_util);
    add_f(s, x->mapping_eff);
    add_f(s, x->compute_util);
    g_string_append(s, ",\n");
    fputs(s->str, r->f[0]);

    g_string_printf(s, "%d", id);
    add_f(s, x->bw_sram_ifmap);
    add_f(s, x->bw_sram_filter);
    add_f(s, x->bw_sram_ofmap);
    add_f(s, x->bw_dram_ifmap);
    add_f(s, x->bw_dram_filter);
    add_f(s, x->bw_dram_ofmap);
    g_string_append(s, ",\n");
    fputs(s->str, r->f[1]);

    g_string_printf(s, "%d", id);
    add_f(s, (double)x->sram_ifmap_start);
    add_f(s, (double)x->sram_ifmap_stop);
    add_u(s, x->sram_ifmap_reads);
    add_f(s, (double)x->sram_filter_start);
    add_f(s, (double)x->sram_filter_stop);
    add_u(s, x->sram_filter_reads);
    add_f(s, (double)x->sram_ofmap_start);
    add_f(s, (double)x->sram_ofmap_stop);
    add_u(s, x->sram_ofmap_writes);
    add_f(s, x->dram_ifmap_start);
    add_f(s, x->dram_ifmap_stop);
    add_u(s, x->dram_ifmap_reads);
    add_f(s, x->dram_filter_start);
    add_f(s, x->dram_filter_stop);
    add_u(s, x->dram_filter_reads);
    add_f(s, x->dram_ofmap_start);
    add_f(s, x->dram_ofmap_stop);
    add_u(s, x->dram_ofmap_writes);
    g_string_append(s, ",\n");
    fputs(s->str, r->f[2]);

    /* the roofline (Williams, Waterman & Patterson, CACM 2009): one-byte words; the IFMAP,
     * filter and OFMAP interfaces each move `bandwidth` words per cycle (SCALE-Sim's USER
     * model), so the bandwidth roof is 3 x bandwidth x intensity */
    double ops = 2.0 * (double)x->macs;
    double bytes = (double)(x->dram_ifmap_reads + x->dram_filter_reads + x->dram_ofmap_writes);
    /* the layer's time includes the first fill of its SRAMs, which SCALE-Sim's cycles leave
     * out (it happens at negative cycles) */
    double first = MIN(x->dram_ifmap_start, x->dram_filter_start);
    double cyc = (double)x->total_cycles + (first < 0 ? -first : 0);
    if (cyc < 1)
        cyc = 1;
    g_string_printf(s, "%d,%s,%.0f,%.0f,%.6g,%.0f,%.6g,%" G_GUINT64_FORMAT ",", id, name, ops,
                    bytes, bytes > 0 ? ops / bytes : 0.0, cyc, ops / cyc, 2 * a->rows * a->cols);
    if (a->bw_mode == TPU_BW_USER && bytes > 0)
        g_string_append_printf(s, "%.6g", MIN((double)(2 * a->rows * a->cols),
                                              3.0 * (double)a->bandwidth * ops / bytes));
    /* 0: every fold simulated; else the folds simulated before the DRAM reads were sampled */
    g_string_append_printf(s, ",%" G_GUINT64_FORMAT "\n", x->sampled_folds);
    fputs(s->str, r->f[3]);
    g_string_free(s, TRUE);
}

bool tpu_reports_close(TpuReports *r, GError **error)
{
    bool ok = true;
    for (int i = 0; i < NREP; i++) {
        if (fclose(r->f[i]) != 0 && ok) {
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_IOERR, "%s: %s", r->part[i],
                        g_strerror(errno));
            ok = false;
        }
        r->f[i] = NULL;
    }
    /* --force let tpu write into DIR; a file there is replaced only when it is a TPU report */
    for (int i = 0; ok && i < NREP; i++)
        if (outfile_place(r->part[i], r->path[i], true, &tpu_report_file, error))
            g_clear_pointer(&r->part[i], g_free);
        else
            ok = false;
    if (!ok)
        for (int i = 0; i < NREP; i++)
            if (r->part[i])
                g_unlink(r->part[i]);
    for (int i = 0; i < NREP; i++) {
        g_free(r->path[i]);
        g_free(r->part[i]);
    }
    g_free(r->dir);
    g_free(r);
    return ok;
}

/* ---- SCALE-Sim's per-cycle SRAM traces ----------------------------------------------------- */

static const char *const trace_names[3] = {
    "IFMAP_SRAM_TRACE.csv", "FILTER_SRAM_TRACE.csv", "OFMAP_SRAM_TRACE.csv",
};

bool tpu_traces_open(const char *dir, int layer, TpuTraces *tr, GError **error)
{
    char *ld = g_strdup_printf("%s/layer%d", dir, layer);
    bool ok = g_mkdir_with_parents(ld, 0777) == 0;
    if (!ok)
        g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT, "%s: %s", ld,
                    g_strerror(errno));
    for (int i = 0; ok && i < 3; i++) {
        tr->path[i] = g_build_filename(ld, trace_names[i], NULL);
        bool replace;
        int fd = -1;
        ok = outfile_check(tr->path[i], true, &tpu_trace_file, &replace, error) &&
             (fd = outfile_create_temp(tr->path[i], &tr->tmp[i], error)) >= 0;
        if (ok && !(tr->f[i] = fdopen(fd, "w"))) {
            close(fd);
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_CANTCREAT, "%s: %s", tr->tmp[i],
                        g_strerror(errno));
            ok = false;
        }
    }
    if (!ok)
        tpu_traces_abort(tr);
    g_free(ld);
    return ok;
}

static void traces_free(TpuTraces *tr)
{
    for (int i = 0; i < 3; i++) {
        if (tr->f[i])
            fclose(tr->f[i]);
        tr->f[i] = NULL;
        if (tr->tmp[i])
            g_unlink(tr->tmp[i]);
        g_clear_pointer(&tr->tmp[i], g_free);
        g_clear_pointer(&tr->path[i], g_free);
    }
}

bool tpu_traces_close(TpuTraces *tr, GError **error)
{
    bool ok = true;
    for (int i = 0; i < 3; i++) {
        if (tr->f[i] && fclose(tr->f[i]) != 0 && ok) {
            ok = false;
            g_set_error(error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_IOERR, "%s: %s", tr->path[i],
                        g_strerror(errno));
        }
        tr->f[i] = NULL;
    }
    for (int i = 0; ok && i < 3; i++)
        if (tr->tmp[i] && outfile_place(tr->tmp[i], tr->path[i], true, &tpu_trace_file, error))
            g_clear_pointer(&tr->tmp[i], g_free);
        else if (tr->tmp[i])
            ok = false;
    traces_free(tr);             /* removes what was not placed */
    return ok;
}

void tpu_traces_abort(TpuTraces *tr)
{
    traces_free(tr);
}
