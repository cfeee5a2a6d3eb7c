/* param.h: typed parameters declared in tables (ParamSpec), the only way a config key exists.
 *
 * Each component class (and each system section) declares a static const ParamSpec[] that gives
 * every key its type, unit, default, range and one line of documentation. The same table drives
 * parsing and checking (param_apply), the resolved config (param_emit_yaml), `archsim describe`
 * (param_describe) and docs. Values land in a plain C struct at each spec's offset.
 *
 * Units (strict; a hint is given for near misses; one table of suffixes per kind in param.c;
 * the user's rule is docs/config.md, "Values and units"):
 *   PARAM_SIZE   bytes    "64", "64B", "32KiB", "1MiB", "2GiB", also TiB; and gem5's spellings
 *                         "64kB", "1MB", "1GB", "1TB", which are binary too (kB = KiB, as gem5
 *                         reads memory sizes); "32KB" is rejected with a hint, as gem5 does
 *   PARAM_FREQ   Hz       "3GHz", "1.4GHz", "800MHz", "100kHz", "50Hz"; a bare number is an error
 *   PARAM_CYCLES cycles   "4", "4cycles", "4 cycles", "1cycle"; or a time ("4ns", "500ps",
 *                         "1.5us") converted by the reading component's clock, rounded up to
 *                         the next whole cycle (gem5's ticksToCycles); see param_apply_clocked
 *   PARAM_TIME   ps       "10ns", "1.5us", "500ps", "2ms", "1s"; a bare number is an error
 *   PARAM_BANDWIDTH B/s   "25GB/s", "800MB/s", "12.5GB/s" decimal (1 GB/s = 10^9 B/s, as
 *                         nccl-tests reports), "1GiB/s" binary; a bare number is an error
 *   PARAM_UINT / PARAM_INT / PARAM_DOUBLE plain numbers (UINT/INT accept 0x hex, and _ separators)
 *   PARAM_BOOL   true/false/yes/no/on/off (YAML 1.1 spellings)
 *   PARAM_ENUM   one of choices[]; stored as the int index
 *   PARAM_STRING any scalar; stored as a newly allocated char*
 *   PARAM_PATH   a file path; relative paths resolve against the directory of the file that
 *                set the key (the cwd for --set); stored canonical and absolute as a newly
 *                allocated char*; verbatim like a string (a quoted "a.gz " keeps its space);
 *                refused when the resolved path is not valid UTF-8 (YAML could not hold it)
 * Quantities (SIZE/FREQ/CYCLES/TIME) are exact: a decimal fraction is allowed when the result is
 * a whole number of base units ("1.5KiB" yes, "0.5B" no), spaces may separate number and unit,
 * units are case-sensitive, hex is not accepted (0x10B would be ambiguous). Integers reject
 * leading zeros ("010": YAML 1.1 would read octal). An empty value is an error except for
 * PARAM_STRING. Messages quote the value with surrounding spaces stripped; STRING and PATH values
 * themselves keep them.
 */
#ifndef ARCHSIM_PARAM_H
#define ARCHSIM_PARAM_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

typedef enum {
    PARAM_BOOL,     /* bool */
    PARAM_INT,      /* int64_t */
    PARAM_UINT,     /* uint64_t */
    PARAM_DOUBLE,   /* double */
    PARAM_STRING,   /* char* (owned) */
    PARAM_PATH,     /* char* (owned, resolved) */
    PARAM_ENUM,     /* int: index into choices */
    PARAM_SIZE,     /* uint64_t bytes */
    PARAM_FREQ,     /* uint64_t Hz */
    PARAM_CYCLES,   /* uint64_t cycles */
    PARAM_TIME,     /* uint64_t picoseconds */
    PARAM_BANDWIDTH,/* uint64_t bytes per second */
} ParamType;

#define PARAM_F_REQUIRED 0x1u  /* no default: the key must be given */
#define PARAM_F_RANGE 0x2u     /* min/max are checked (inclusive, in the base unit) */
#define PARAM_F_POW2 0x4u      /* the value must be a power of two */

typedef struct {
    const char *name;            /* key, lower_snake_case */
    ParamType type;
    const char *def;             /* default, written as a user would write it; NULL if required
                                    (NULL without PARAM_F_REQUIRED: the field is left as it is,
                                    e.g. a NULL char* for an optional path) */
    unsigned flags;              /* PARAM_F_* */
    double min, max;             /* with PARAM_F_RANGE, base units */
    const char *const *choices;  /* PARAM_ENUM: NULL-terminated */
    const char *doc;             /* one line */
    size_t offset;               /* where the value goes in the destination struct */
} ParamSpec;

/* Terminates every table. */
#define PARAM_END { .name = NULL }

/* Fills dst from the map `section` (may be NULL: all defaults) according to specs. `path` is the
 * dotted name of the section ("l1d", "sim") used in messages. Checks, with messages of the form
 * "FILE:LINE:COL: PROBLEM" (ARCHSIM_CONFIG_ERROR / ARCHSIM_EXIT_CONFIG):
 *   unknown key          "l1d.sise: unknown key; did you mean 'size'?"  (hint only when close)
 *   bad unit             "l1d.size: '32KB': unknown size unit 'KB'; did you mean 'KiB'?"
 *   wrong type           "l1d.assoc: 'eight': expected an unsigned integer"
 *   out of range         "l1d.assoc: 0 is out of range [1, 64]"
 *   not a power of two   "l1d.line: 48 is not a power of two"
 *   required key missing "FILE:LINE:COL: core.trace: required key is missing" (position of the
 *                         section, or of the file if the section is absent)
 *   a map or sequence where a scalar is expected, etc.
 * Keys listed in `ignore` (NULL-terminated, may be NULL) are skipped (e.g. "type").
 * With section == NULL the "required key is missing" message has no position; to get the file's
 * position pass an empty map placed at its start (cfg_node_new_map(root->file, 1, 1)).
 * An empty plain value ("l1d:" with nothing under it) counts as an empty section. Range and
 * power-of-two checks also apply to defaults (a default that fails is a table bug: g_error).
 * STRING/PATH fields of dst must be NULL or owned strings (old values are freed when replaced);
 * on failure they are all freed and set to NULL, other fields are unspecified. */
bool param_apply(const ParamSpec *specs, const CfgNode *section, const char *path,
                 const char *const *ignore, void *dst, GError **error);

/* param_apply with the clock of the component the section configures: a PARAM_CYCLES value
 * written as a time ("4ns") becomes ceil(time x clock_hz) cycles (exactly: 4ns at 3GHz is 12
 * cycles, 0.1ns is 1). clock_hz == 0 (what param_apply passes) means no clock is known there:
 * a time is then an error that says to write cycles. Range checks apply to the cycles, and
 * their message shows the conversion: "l1d.hit_latency: 0ns (0 cycles at 3GHz) is out of range
 * [1cycle, 1000cycles]". The resolved config records the cycles. */
bool param_apply_clocked(const ParamSpec *specs, const CfgNode *section, const char *path,
                         const char *const *ignore, uint64_t clock_hz, void *dst,
                         GError **error);

/* param_apply for an include-only part (`archsim validate`): the keys the section gives are
 * checked as above, times by clock_hz (known, type, unit, range); keys it leaves out are neither required nor
 * filled with their defaults. dst must be zeroed; release it with param_free. */
bool param_check_given(const ParamSpec *specs, const CfgNode *section, const char *path,
                       const char *const *ignore, uint64_t clock_hz, void *dst, GError **error);

/* Parses one value (used by param_apply and by the CLI). On failure returns false and sets
 * *problem to a newly allocated message without position ("'32KB': unknown size unit ...").
 * base_dir is for PARAM_PATH (NULL = cwd). The value is stored at (char *)dst + spec->offset,
 * so a lone variable works with offset 0; dst is untouched on failure. Range and power-of-two
 * checks are included ("0 is out of range [1, 64]"). */
bool param_parse_value(const ParamSpec *spec, const char *text, const char *base_dir, void *dst,
                       char **problem);
/* param_parse_value with a clock for PARAM_CYCLES values written as times (see
 * param_apply_clocked; clock_hz == 0: none known). */
bool param_parse_value_clocked(const ParamSpec *spec, const char *text, const char *base_dir,
                               uint64_t clock_hz, void *dst, char **problem);

/* Writes every parameter of the table with its current value from src as "key: value" lines at
 * the given indent, in a form param_parse_value accepts back (sizes as "32KiB" when exact,
 * frequencies as "3GHz", times as "10ns"...). Exact: sizes use the largest binary then decimal
 * unit that divides, else bytes; frequencies and times the largest unit with an exact decimal
 * fraction ("1.4GHz", "1.5us"); cycles as "4cycles"; doubles in the shortest form that reads
 * back identically. An unset STRING/PATH (NULL) is written as a comment "# key: (not set)". */
void param_emit_yaml(const ParamSpec *specs, const void *src, GString *out, int indent);

/* One row per parameter: name, type/unit, default, range or choices, doc. */
void param_describe(const ParamSpec *specs, GString *out, int indent);

/* Frees owned strings (PARAM_STRING/PARAM_PATH) in dst. */
void param_free(const ParamSpec *specs, void *dst);

/* Edit distance used for "did you mean" (exposed for tests and for other name lookups): optimal
 * string alignment, i.e. Levenshtein where swapping two adjacent characters also costs 1. */
unsigned param_edit_distance(const char *a, const char *b);
/* The closest candidate within distance max(1, strlen(word)/3), or NULL. Compared ignoring ASCII
 * case; ties go to the earliest candidate; NULL entries are skipped. */
const char *param_suggest(const char *word, const char *const *candidates, size_t n);

#endif
