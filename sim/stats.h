/* stats.h: declared statistics (counters, formulas, histograms) and their three outputs.
 *
 * A class declares its stats in a StatSpec table: counters and histograms live as plain fields
 * in the instance struct (a hot path only increments a field), formulas are evaluated once at the
 * end and carry their formula in the description (e.g. "misses / accesses"). Output follows gem5:
 * stats.txt "name value # description (unit)", plus stats.json (one flat object, dotted name ->
 * number) and stats.csv (name,value,unit,description). Formatting is fixed, so the same run gives
 * byte-identical files.
 */
#ifndef ARCHSIM_STATS_H
#define ARCHSIM_STATS_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Log2-bucketed histogram: bucket 0 holds value 0, bucket i (i >= 1) holds [2^(i-1), 2^i). */
#define SIM_HIST_BUCKETS 24
typedef struct {
    uint64_t samples, sum, min, max;
    uint64_t bucket[SIM_HIST_BUCKETS];
} SimHist;

static inline void sim_hist_add(SimHist *h, uint64_t v)
{
    unsigned b = v == 0 ? 0 : 64 - (unsigned)__builtin_clzll(v);
    if (b >= SIM_HIST_BUCKETS)
        b = SIM_HIST_BUCKETS - 1;
    h->bucket[b]++;
    if (h->samples == 0 || v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    h->samples++;
    h->sum += v;
}

/* STAT_FORMULA_U64: a formula whose value is a whole count (sums of counters), printed as one.
 * STAT_STAMP: a uint64_t field like a counter, but holding a cycle number of the component's
 * clock (e.g. "cycle of the last retirement"): after a warm-up or ROI reset it reads as cycles
 * since the reset (0 if it last moved before), and epoch lines leave it out (docs/outputs.md). */
typedef enum { STAT_COUNTER, STAT_FORMULA, STAT_FORMULA_U64, STAT_HIST, STAT_STAMP } StatKind;

struct Component;
typedef struct {
    const char *name;
    StatKind kind;
    const char *unit;       /* "count", "cycle", "ratio", "byte", ... */
    const char *desc;       /* one line; formulas give their formula */
    size_t offset;          /* STAT_COUNTER: uint64_t field; STAT_HIST: SimHist field */
    double (*formula)(const struct Component *c);  /* STAT_FORMULA */
} StatSpec;
#define STAT_END { .name = NULL }

/* A flat, ordered list of named values. Names and descriptions live in the set's string chunk
 * (one copy each, descriptions shared: 64 cores' "loads from the core" are one string), freed
 * with the set. */
typedef struct {
    const char *name;
    bool is_int;
    uint64_t u;
    double d;
    const char *unit;
    const char *desc;
    bool level;          /* a level (a min, a max, a time stamp, a setting), not a count: the
                            per-epoch deltas of stats.jsonl and the reset of extra stats leave
                            it alone */
} StatEntry;

typedef struct {
    GArray *entries;     /* StatEntry */
    GStringChunk *strings;   /* their names and descriptions */
    GHashTable *index;   /* name -> position + 1 of its first entry; made by the first
                            stats_find, kept by every append after it */
} StatSet;

void stats_init(StatSet *s);
void stats_clear(StatSet *s);
void stats_add_u64(StatSet *s, const char *name, uint64_t v, const char *unit, const char *desc);
/* The same for an integer that is a level (StatEntry.level), not a count. */
void stats_add_level(StatSet *s, const char *name, uint64_t v, const char *unit, const char *desc);
/* A table of uint64_t counters of a struct: each is added as PREFIX.NAME with the value at
 * base + off (for stats that only some runs have, e.g. under a model option). */
typedef struct {
    const char *name, *unit, *desc;
    size_t off;
} StatCounterDef;
void stats_add_counters(StatSet *s, const char *prefix, const void *base, const StatCounterDef *d,
                        size_t n);
void stats_add_double(StatSet *s, const char *name, double v, const char *unit, const char *desc);
/* Adds name::samples, ::mean, ::min, ::max and one ::LO-HI line per non-empty bucket. */
void stats_add_hist(StatSet *s, const char *name, const SimHist *h, const char *unit,
                    const char *desc);
const StatEntry *stats_find(const StatSet *s, const char *name);

/* System-level stats over the instances of a section (STEM0, STEM1, ...: the stem and a
 * decimal index, as system builders name them), without a model parsing names itself.
 *
 * stats_sum_instances: every integer stat STEMn.REST (histogram parts "::" aside) is summed
 * into STEM.REST, or into REST alone when REST starts with one of top_prefixes (NULL-terminated,
 * may be NULL: gem5's per-controller-type totals such as L1Cache_Controller.I.Load); the totals
 * are appended in the order their names first appear, each described as its first instance
 * plus " (DESC_SUFFIX)". Returns how many totals it added.
 * stats_count_instances: how many STEMn.REST stats there are for this REST (instances that have
 * it). stats_instances_mean: the mean of histogram HIST over every instance, weighted by
 * samples (STEMn.HIST::mean x STEMn.HIST::samples summed / samples summed; 0 without samples). */
guint stats_sum_instances(StatSet *s, const char *stem, const char *const *top_prefixes,
                          const char *desc_suffix);
/* The same for a machine graph's arrays (sim/machine.c): STEM[N].REST or STEMN.REST adds into
 * STEM.REST, counts only (levels and cycle stamps, such as a core's last cycle, are not summed). */
guint stats_sum_counts(StatSet *s, const char *stem, const char *desc_suffix);
/* The same over the instances named in `instances` (a set of component names) alone: what
 * the machine builder knows to be one array's, so that a standalone l13 beside a flat array
 * l1 (l10, l11) is not summed into l1. */
guint stats_sum_named(StatSet *s, const char *stem, GHashTable *instances,
                      const char *desc_suffix);
guint stats_count_instances(const StatSet *s, const char *stem, const char *rest);
double stats_instances_mean(const StatSet *s, const char *stem, const char *hist);
/* s as one CSV field (RFC 4180): quoted, quotes doubled, when it holds a comma, a quote or a
 * line break (a kernel named `void f<int, float>(int*)`). */
void stats_csv_field(GString *out, const char *s);
/* Safe division for formulas: 0 when the denominator is 0 (documented in docs/stats.md). */
static inline double stats_ratio(double num, double den) { return den == 0 ? 0.0 : num / den; }

/* Renders the three formats into out (exposed for tests). */
void stats_format_txt(const StatSet *s, GString *out);
void stats_format_json(const StatSet *s, GString *out);
void stats_format_csv(const StatSet *s, GString *out);

/* Writes a whole file or fails with ARCHSIM_RUN_ERROR / ARCHSIM_EXIT_IOERR. */
bool stats_write_file(const char *path, const GString *content, GError **error);

#endif
