/* param.c: typed parameters from ParamSpec tables: strict unit parsing, checks, emit, describe.
 *
 * Quantities are parsed exactly (decimal mantissa times unit, in 128-bit integers) rather than
 * through doubles, so "1.4GHz" is 1400000000 Hz and "1.5us" is 1500000 ps, and a value that is
 * not a whole number of base units is an error rather than a silent rounding. Unit confusion is
 * a recurring source of wrong results in simulators, hence no guessing: near misses get a hint.
 */
#include "param.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "error.h"
#include "input.h"

/* One parsed value, before it is stored at spec->offset. */
typedef union {
    bool b;
    int64_t i;
    uint64_t u;
    double d;
    int e;
    char *s;
} ParamValue;

/* ------------------------------------------------------------------------------------------ */
/* Units */

typedef struct {
    const char *name;
    uint64_t mult;  /* base units per unit */
} ParamUnit;

typedef struct {
    const char *typo;
    const char *unit;
} ParamUnitAlias;

typedef struct {
    const char *noun;        /* "size", for "unknown size unit" */
    const char *a_noun;      /* "a size", for "expected a size such as 32KiB" */
    const char *example;     /* "32KiB" */
    const char *base;        /* "bytes", for "not a whole number of bytes" */
    bool bare_ok;            /* a number without a unit is in base units */
    const ParamUnit *units;  /* NULL-terminated */
    const ParamUnitAlias *aliases;  /* common mistakes -> the unit meant; NULL-terminated */
} ParamUnitKind;

#define PARAM_KI UINT64_C(1024)
/* Memory sizes are binary whatever the spelling, as in gem5 (src/python/m5/util/convert.py,
 * toMemorySize: its binary_prefixes map k, M, G, T to 2^10, 2^20, 2^30, 2^40, and it warns that
 * a "base 10" size is cast to base 2): "64kB" is 64 KiB. The IEC names come first: they are the
 * ones written back (param_emit_yaml). */
static const ParamUnit param_size_units[] = {
    {"B", 1},
    {"KiB", PARAM_KI},
    {"MiB", PARAM_KI * PARAM_KI},
    {"GiB", PARAM_KI * PARAM_KI * PARAM_KI},
    {"TiB", PARAM_KI * PARAM_KI * PARAM_KI * PARAM_KI},
    {"kB", PARAM_KI},
    {"MB", PARAM_KI * PARAM_KI},
    {"GB", PARAM_KI * PARAM_KI * PARAM_KI},
    {"TB", PARAM_KI * PARAM_KI * PARAM_KI * PARAM_KI},
    {NULL, 0},
};
/* gem5 rejects "KB" (no 'K' prefix) and so does archsim: one spelling per unit, and a config
 * that reads here reads the same in gem5. Bare prefixes ("64K") are rejected too. */
static const ParamUnitAlias param_size_aliases[] = {
    {"KB", "KiB"}, {"K", "KiB"}, {"k", "KiB"}, {"Kb", "KiB"}, {"kb", "KiB"}, {"Ki", "KiB"},
    {"M", "MiB"},  {"m", "MiB"}, {"Mi", "MiB"}, {"G", "GiB"}, {"g", "GiB"},  {"Gi", "GiB"},
    {"T", "TiB"},  {"t", "TiB"}, {"b", "B"},    {"byte", "B"}, {"bytes", "B"}, {NULL, NULL},
};

static const ParamUnit param_freq_units[] = {
    {"Hz", 1},
    {"kHz", UINT64_C(1000)},
    {"MHz", UINT64_C(1000000)},
    {"GHz", UINT64_C(1000000000)},
    {NULL, 0},
};
static const ParamUnitAlias param_freq_aliases[] = {
    {"G", "GHz"}, {"g", "GHz"}, {"M", "MHz"}, {"K", "kHz"}, {"k", "kHz"}, {"KHz", "kHz"},
    {NULL, NULL},
};

static const ParamUnit param_time_units[] = {
    {"ps", 1},
    {"ns", UINT64_C(1000)},
    {"us", UINT64_C(1000000)},
    {"ms", UINT64_C(1000000000)},
    {"s", UINT64_C(1000000000000)},
    {NULL, 0},
};
static const ParamUnitAlias param_time_aliases[] = {
    {"\xC2\xB5s", "us"}, {"\xCE\xBCs", "us"}, {"usec", "us"}, {"nsec", "ns"}, {"msec", "ms"},
    {"psec", "ps"},      {"sec", "s"},        {"secs", "s"},  {NULL, NULL},
};

/* A cycle count may also be written as a time: the time units come after the cycle units, and
 * param_parse_latency converts them by the clock of the component being read (see there). */
static const ParamUnit param_cycle_units[] = {
    {"cycles", 1},
    {"cycle", 1},
    {"ps", 1},
    {"ns", UINT64_C(1000)},
    {"us", UINT64_C(1000000)},
    {"ms", UINT64_C(1000000000)},
    {"s", UINT64_C(1000000000000)},
    {NULL, 0},
};
static const ParamUnitAlias param_cycle_aliases[] = {
    {"c", "cycles"},     {"cyc", "cycles"},   {"clk", "cycles"}, {"clks", "cycles"},
    {"clocks", "cycles"}, {"\xC2\xB5s", "us"}, {"\xCE\xBCs", "us"}, {"usec", "us"},
    {"nsec", "ns"},      {"msec", "ms"},      {"psec", "ps"},    {"sec", "s"},
    {"secs", "s"},       {NULL, NULL},
};

/* Bandwidths (bytes per second) are decimal, as nccl-tests reports them (its algbw and busbw
 * columns are bytes / 1.0E9 / seconds, in "GB/s": src/all_reduce.cu and doc/PERFORMANCE.md);
 * the IEC spellings say binary explicitly. Unlike gem5, whose toMemoryBandwidth reads "GB/s"
 * as GiB/s: a link's GB/s here is the number a vendor's datasheet and nccl-tests print. The
 * decimal names come first: they are the ones written back. */
static const ParamUnit param_bandwidth_units[] = {
    {"B/s", 1},
    {"kB/s", UINT64_C(1000)},
    {"MB/s", UINT64_C(1000000)},
    {"GB/s", UINT64_C(1000000000)},
    {"TB/s", UINT64_C(1000000000000)},
    {"KiB/s", PARAM_KI},
    {"MiB/s", PARAM_KI * PARAM_KI},
    {"GiB/s", PARAM_KI * PARAM_KI * PARAM_KI},
    {"TiB/s", PARAM_KI * PARAM_KI * PARAM_KI * PARAM_KI},
    {NULL, 0},
};
/* Bits per second ("Gb/s", "Gbps") are not accepted: a factor of 8 is too easy to lose. */
static const ParamUnitAlias param_bandwidth_aliases[] = {
    {"GBps", "GB/s"}, {"MBps", "MB/s"}, {"kBps", "kB/s"}, {"KB/s", "kB/s"}, {"GB/sec", "GB/s"},
    {"MB/sec", "MB/s"}, {"G/s", "GB/s"}, {"M/s", "MB/s"}, {"Bps", "B/s"}, {NULL, NULL},
};

static const ParamUnitKind param_kind_size = {"size", "a size", "32KiB", "bytes", true,
                                              param_size_units, param_size_aliases};
static const ParamUnitKind param_kind_freq = {"frequency", "a frequency", "3GHz", "Hz", false,
                                              param_freq_units, param_freq_aliases};
static const ParamUnitKind param_kind_time = {"time", "a time", "10ns", "picoseconds", false,
                                              param_time_units, param_time_aliases};
static const ParamUnitKind param_kind_cycles = {"cycle", "a cycle count", "4cycles", "cycles",
                                                true, param_cycle_units, param_cycle_aliases};
static const ParamUnitKind param_kind_bandwidth = {"bandwidth", "a bandwidth", "25GB/s",
                                                   "bytes per second", false,
                                                   param_bandwidth_units,
                                                   param_bandwidth_aliases};

static const ParamUnitKind *param_unit_kind(ParamType t)
{
    switch (t) {
    case PARAM_SIZE:
        return &param_kind_size;
    case PARAM_FREQ:
        return &param_kind_freq;
    case PARAM_TIME:
        return &param_kind_time;
    case PARAM_CYCLES:
        return &param_kind_cycles;
    case PARAM_BANDWIDTH:
        return &param_kind_bandwidth;
    default:
        return NULL;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Edit distance and suggestions */

unsigned param_edit_distance(const char *a, const char *b)
{
    /* Optimal string alignment: Levenshtein plus adjacent transposition ("szie" -> "size" is 1),
     * the commonest typing slip. Three rolling rows, O(len(a) * len(b)) time. */
    size_t n = strlen(a), m = strlen(b);
    unsigned *r2 = g_new0(unsigned, m + 1), *r1 = g_new0(unsigned, m + 1),
             *r0 = g_new0(unsigned, m + 1);
    for (size_t j = 0; j <= m; j++)
        r1[j] = (unsigned)j;
    for (size_t i = 1; i <= n; i++) {
        r0[0] = (unsigned)i;
        for (size_t j = 1; j <= m; j++) {
            unsigned cost = a[i - 1] != b[j - 1];
            unsigned v = MIN(r1[j] + 1, r0[j - 1] + 1);
            v = MIN(v, r1[j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                v = MIN(v, r2[j - 2] + 1);
            r0[j] = v;
        }
        unsigned *t = r2;
        r2 = r1;
        r1 = r0;
        r0 = t;
    }
    unsigned d = r1[m];
    g_free(r0);
    g_free(r1);
    g_free(r2);
    return d;
}

const char *param_suggest(const char *word, const char *const *candidates, size_t n)
{
    /* Compared ignoring ASCII case, so "Size" finds "size". */
    size_t wlen = strlen(word);
    unsigned max = MAX(1u, (unsigned)(wlen / 3));
    char *w = g_ascii_strdown(word, -1);
    const char *best = NULL;
    unsigned best_d = max + 1;
    for (size_t i = 0; i < n; i++) {
        if (candidates[i] == NULL)
            continue;
        size_t clen = strlen(candidates[i]);
        if ((clen > wlen ? clen - wlen : wlen - clen) > max)
            continue;  /* the distance is at least the length difference */
        char *c = g_ascii_strdown(candidates[i], -1);
        unsigned d = param_edit_distance(w, c);
        g_free(c);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    g_free(w);
    return best;
}

/* The unit a mistaken unit text most likely meant, or NULL. */
static const char *param_unit_hint(const ParamUnitKind *k, const char *unit)
{
    for (const ParamUnitAlias *a = k->aliases; a->typo != NULL; a++)
        if (strcmp(a->typo, unit) == 0)
            return a->unit;
    size_t n = 0;
    const char *names[16];
    for (const ParamUnit *u = k->units; u->name != NULL && n < G_N_ELEMENTS(names); u++) {
        if (g_ascii_strcasecmp(u->name, unit) == 0)
            return u->name;
        names[n++] = u->name;
    }
    return param_suggest(unit, names, n);
}

/* ------------------------------------------------------------------------------------------ */
/* Numbers */

/* A decimal or hex number as scanned: value = mant / 10^frac, sign apart. */
typedef struct {
    uint64_t mant;
    unsigned frac;  /* digits after the point, trailing zeros dropped */
    bool neg;
} ParamNum;

static bool param_is_digit(char c, bool hex)
{
    return hex ? g_ascii_isxdigit(c) : g_ascii_isdigit(c);
}

static bool param_mul_add(uint64_t *acc, unsigned base, unsigned digit)
{
    if (*acc > (UINT64_MAX - digit) / base)
        return false;
    *acc = *acc * base + digit;
    return true;
}

/* Scans [+-] then 0xHEX or DIGITS, with '_' allowed between two digits; for quantities (which
 * have units) a .FRACTION is allowed and hex is not. Returns the end of the number; NULL with
 * *why == NULL when text does not start with a number, or NULL with *why set for a bad one. */
static const char *param_scan_number(const char *s, bool quantity, ParamNum *num,
                                     const char **why)
{
    const char *p = s;
    *why = NULL;
    memset(num, 0, sizeof *num);
    if (*p == '+' || *p == '-')
        num->neg = *p++ == '-';
    bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    if (hex && quantity) {
        /* "0x10B" would be ambiguous (hex digit B or the unit B?), so quantities are decimal. */
        *why = "is hex; quantities are written in decimal with a unit";
        return NULL;
    }
    if (hex) {
        p += 2;
        if (!g_ascii_isxdigit(*p))
            return NULL;
    }
    if (!param_is_digit(*p, hex))
        return NULL;
    unsigned base = hex ? 16 : 10, ndig = 0;
    const char *first = p;
    for (;;) {
        if (param_is_digit(*p, hex)) {
            if (!param_mul_add(&num->mant, base, (unsigned)g_ascii_xdigit_value(*p))) {
                *why = "too large";
                return NULL;
            }
            ndig++;
            p++;
        } else if (*p == '_' && ndig > 0 && param_is_digit(p[1], hex)) {
            p++;
        } else {
            break;
        }
    }
    if (!hex && first[0] == '0' && ndig > 1) {
        *why = "leading zeros are not allowed (octal is not supported)";
        return NULL;
    }
    if (!hex && quantity && p[0] == '.' && g_ascii_isdigit(p[1])) {
        unsigned zeros = 0;
        bool any = false;
        p++;
        for (;;) {
            if (g_ascii_isdigit(*p)) {
                if (*p == '0') {
                    zeros++;  /* held back: trailing zeros do not change the value */
                } else {
                    for (unsigned z = 0; z < zeros; z++)
                        if (!param_mul_add(&num->mant, 10, 0)) {
                            *why = "has too many digits";
                            return NULL;
                        }
                    if (!param_mul_add(&num->mant, 10, (unsigned)(*p - '0'))) {
                        *why = "has too many digits";
                        return NULL;
                    }
                    num->frac += zeros + 1;
                    zeros = 0;
                }
                any = true;
                p++;
            } else if (*p == '_' && any && g_ascii_isdigit(p[1])) {
                p++;
            } else {
                break;
            }
        }
    }
    return p;
}

/* mant / 10^frac * mult as an exact whole number of base units. frac has no bound of its own:
 * the zeros right after the point ("0.000...01") cost mant nothing. */
static bool param_scale(const ParamNum *num, uint64_t mult, uint64_t *out, bool *whole)
{
    __extension__ typedef unsigned __int128 ParamU128;
    ParamU128 prod = (ParamU128)num->mant * mult, div = 1;
    if (num->frac > 38) {
        /* 10^frac > 2^128 > prod (both factors are below 2^64): less than one base unit, a
         * whole number only when it is 0 (10^frac itself would not fit: 10^128 is 0 mod 2^128) */
        *whole = prod == 0;
        *out = 0;
        return true;
    }
    for (unsigned i = 0; i < num->frac; i++)
        div *= 10;  /* frac <= 38, so 10^frac < 2^127 */
    *whole = prod % div == 0;
    prod /= div;
    if (prod > UINT64_MAX)
        return false;
    *out = (uint64_t)prod;
    return true;
}

/* Parses an exact quantity with a unit into base units. */
static bool param_parse_quantity(const ParamUnitKind *k, const char *t, uint64_t *out,
                                 char **problem)
{
    ParamNum num;
    const char *why;
    const char *end = param_scan_number(t, true, &num, &why);
    if (end == NULL) {
        *problem = why != NULL ? g_strdup_printf("'%s': number %s", t, why)
                               : g_strdup_printf("'%s': expected %s such as %s", t, k->a_noun,
                                                 k->example);
        return false;
    }
    while (*end == ' ' || *end == '\t')
        end++;
    uint64_t mult = 0;
    if (*end == '\0') {
        if (!k->bare_ok) {
            GString *list = g_string_new(NULL);
            for (const ParamUnit *u = k->units; u->name != NULL; u++)
                g_string_append_printf(list, "%s%s", list->len ? ", " : "", u->name);
            *problem = g_strdup_printf("'%s': missing %s unit (%s)", t, k->noun, list->str);
            g_string_free(list, TRUE);
            return false;
        }
        mult = 1;
    } else {
        for (const ParamUnit *u = k->units; u->name != NULL && mult == 0; u++)
            if (strcmp(u->name, end) == 0)
                mult = u->mult;
        if (mult == 0) {
            const char *hint = param_unit_hint(k, end);
            if (hint != NULL) {
                *problem = g_strdup_printf("'%s': unknown %s unit '%s'; did you mean '%s'?", t,
                                           k->noun, end, hint);
            } else {
                GString *list = g_string_new(NULL);
                for (const ParamUnit *u = k->units; u->name != NULL; u++)
                    g_string_append_printf(list, "%s%s", list->len ? ", " : "", u->name);
                *problem = g_strdup_printf("'%s': unknown %s unit '%s' (expected one of: %s)",
                                           t, k->noun, end, list->str);
                g_string_free(list, TRUE);
            }
            return false;
        }
    }
    if (num.neg && num.mant != 0) {
        *problem = g_strdup_printf("'%s': %s cannot be negative", t, k->a_noun);
        return false;
    }
    bool whole;
    if (!param_scale(&num, mult, out, &whole)) {
        *problem = g_strdup_printf("'%s': too large", t);
        return false;
    }
    if (!whole) {
        *problem = g_strdup_printf("'%s': not a whole number of %s", t, k->base);
        return false;
    }
    return true;
}

/* A cycle count, or a time converted to cycles by the clock that will count them (clock_hz;
 * 0 when the caller knows none: a time is then an error). The rule is gem5's: a time becomes
 * ticks, and ClockedObject::ticksToCycles (src/sim/clocked_object.hh) takes divCeil(ticks,
 * clockPeriod()), the next clock edge, so a latency is never shortened. Here the ceiling is
 * exact, of ps x Hz / 10^12, rather than of ticks over a period rounded to whole ticks (gem5 at
 * 3 GHz has a 333 ps period and makes 4ns 13 cycles; archsim makes it 12). *from_time tells
 * the caller that a conversion was made, for its messages. */
static bool param_parse_latency(const char *t, uint64_t clock_hz, uint64_t *out, bool *from_time,
                                char **problem)
{
    ParamNum num;
    const char *why;
    const char *end = param_scan_number(t, true, &num, &why);
    bool is_time = false;
    if (end != NULL) {
        while (*end == ' ' || *end == '\t')
            end++;
        for (const ParamUnit *u = param_time_units; u->name != NULL && !is_time; u++)
            is_time = strcmp(u->name, end) == 0;
    }
    *from_time = is_time;
    if (!is_time)
        return param_parse_quantity(&param_kind_cycles, t, out, problem);
    uint64_t ps;
    if (!param_parse_quantity(&param_kind_time, t, &ps, problem))
        return false;
    if (clock_hz == 0) {
        *problem = g_strdup_printf("'%s': a time here needs the clock of a component to become "
                                   "cycles, and none is known; write cycles (4cycles)", t);
        return false;
    }
    __extension__ typedef unsigned __int128 ParamU128;
    const ParamU128 ps_per_s = (ParamU128)UINT64_C(1000000000000);
    ParamU128 cycles = ((ParamU128)ps * clock_hz + ps_per_s - 1) / ps_per_s;
    if (cycles > UINT64_MAX) {
        *problem = g_strdup_printf("'%s': too large", t);
        return false;
    }
    *out = (uint64_t)cycles;
    return true;
}

static bool param_parse_integer(const char *t, bool is_signed, ParamValue *v, char **problem)
{
    ParamNum num;
    const char *why;
    const char *end = param_scan_number(t, false, &num, &why);
    const char *expected = is_signed ? "an integer" : "an unsigned integer";
    if (end == NULL && why != NULL) {
        *problem = g_strdup_printf("'%s': number %s", t, why);
        return false;
    }
    if (end == NULL || *end != '\0' || (!is_signed && num.neg && num.mant != 0)) {
        *problem = g_strdup_printf("'%s': expected %s", t, expected);
        return false;
    }
    if (!is_signed) {
        v->u = num.mant;
        return true;
    }
    uint64_t lim = num.neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (num.mant > lim) {
        *problem = g_strdup_printf("'%s': too large for a 64-bit integer", t);
        return false;
    }
    v->i = num.neg ? (num.mant == lim ? INT64_MIN : -(int64_t)num.mant) : (int64_t)num.mant;
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Formatting values */

static bool param_is_pow10(uint64_t m)
{
    while (m % 10 == 0)
        m /= 10;
    return m == 1;
}

/* v / mult as an exact decimal ("1.4"), mult a power of ten. */
static void param_append_decimal(GString *out, uint64_t v, uint64_t mult)
{
    g_string_append_printf(out, "%" PRIu64, v / mult);
    uint64_t rem = v % mult;
    if (rem == 0)
        return;
    int width = 0;
    for (uint64_t m = mult; m > 1; m /= 10)
        width++;
    char digits[32];
    g_snprintf(digits, sizeof digits, "%0*" PRIu64, width, rem);
    for (int i = width - 1; i > 0 && digits[i] == '0'; i--)
        digits[i] = '\0';
    g_string_append_printf(out, ".%s", digits);
}

static char *param_format_quantity(ParamType t, uint64_t v)
{
    GString *out = g_string_new(NULL);
    if (t == PARAM_CYCLES) {
        g_string_append_printf(out, "%" PRIu64 "%s", v, v == 1 ? "cycle" : "cycles");
    } else if (t == PARAM_SIZE) {
        /* Largest unit that divides exactly, else bytes: always integral. Strictly larger, so
         * of two names for one multiplier the first (IEC) one is written. */
        const char *unit = "B";
        uint64_t div = 1;
        for (const ParamUnit *u = param_size_units + 1; v != 0 && u->name != NULL; u++)
            if (v % u->mult == 0 && u->mult > div) {
                div = u->mult;
                unit = u->name;
            }
        g_string_append_printf(out, "%" PRIu64 "%s", v / div, unit);
    } else {
        /* Frequencies, times and bandwidths: the largest decimal unit not above the value,
         * with an exact decimal fraction ("1.4GHz", "1.5us", "12.5GB/s"), which parses back to
         * the same integer. The decimal units lead each table; the first binary one ends them. */
        const ParamUnit *units = param_unit_kind(t)->units;
        const ParamUnit *best = &units[0];
        for (const ParamUnit *u = units; u->name != NULL && param_is_pow10(u->mult); u++)
            if (v >= u->mult)
                best = u;
        param_append_decimal(out, v, best->mult);
        g_string_append(out, best->name);
    }
    return g_string_free(out, FALSE);
}

/* The shortest decimal that reads back as exactly d. */
static char *param_format_double(double d)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    for (int prec = 1; prec <= 17; prec++) {
        char fmt[8];
        g_snprintf(fmt, sizeof fmt, "%%.%dg", prec);
        g_ascii_formatd(buf, sizeof buf, fmt, d);
        if (g_ascii_strtod(buf, NULL) == d)
            break;
    }
    return g_strdup(buf);
}

static char *param_format_value(const ParamSpec *spec, const ParamValue *v)
{
    switch (spec->type) {
    case PARAM_BOOL:
        return g_strdup(v->b ? "true" : "false");
    case PARAM_INT:
        return g_strdup_printf("%" PRId64, v->i);
    case PARAM_UINT:
        return g_strdup_printf("%" PRIu64, v->u);
    case PARAM_DOUBLE:
        return param_format_double(v->d);
    case PARAM_STRING:
    case PARAM_PATH:
        return g_strdup(v->s != NULL ? v->s : "");
    case PARAM_ENUM:
        g_assert(spec->choices != NULL);
        for (int i = 0; spec->choices[i] != NULL; i++)
            if (i == v->e)
                return g_strdup(spec->choices[i]);
        g_assert_not_reached();
    case PARAM_SIZE:
    case PARAM_FREQ:
    case PARAM_CYCLES:
    case PARAM_TIME:
    case PARAM_BANDWIDTH:
        return param_format_quantity(spec->type, v->u);
    }
    g_assert_not_reached();
}

/* A range bound (a double in base units) as a user would write it. */
static char *param_format_bound(const ParamSpec *spec, double b)
{
    bool integral = b == floor(b);
    switch (spec->type) {
    case PARAM_INT:
        if (integral && fabs(b) < 9.2e18)
            return g_strdup_printf("%" PRId64, (int64_t)b);
        break;
    case PARAM_UINT:
    case PARAM_SIZE:
    case PARAM_FREQ:
    case PARAM_CYCLES:
    case PARAM_TIME:
    case PARAM_BANDWIDTH:
        if (integral && b >= 0 && b < 18446744073709551616.0) {
            if (spec->type == PARAM_UINT)
                return g_strdup_printf("%" PRIu64, (uint64_t)b);
            return param_format_quantity(spec->type, (uint64_t)b);
        }
        break;
    default:
        break;
    }
    return param_format_double(b);
}

/* ------------------------------------------------------------------------------------------ */
/* Parsing one value */

static const char *param_type_noun(const ParamSpec *spec)
{
    switch (spec->type) {
    case PARAM_BOOL:
        return "a boolean";
    case PARAM_INT:
        return "an integer";
    case PARAM_UINT:
        return "an unsigned integer";
    case PARAM_DOUBLE:
        return "a number";
    case PARAM_STRING:
        return "a string";
    case PARAM_PATH:
        return "a file path";
    case PARAM_ENUM:
        return "one of the choices";
    default:
        return param_unit_kind(spec->type)->a_noun;
    }
}

static bool param_parse_bool(const char *t, bool *out)
{
    /* YAML 1.1 spellings, each in lower, Capitalized and UPPER case as YAML 1.1 allows. */
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On",
                                      "ON", NULL};
    static const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off",
                                     "OFF", NULL};
    for (int i = 0; yes[i] != NULL; i++) {
        if (strcmp(t, yes[i]) == 0) {
            *out = true;
            return true;
        }
        if (strcmp(t, no[i]) == 0) {
            *out = false;
            return true;
        }
    }
    return false;
}

static bool param_parse_typed(const ParamSpec *spec, const char *raw, const char *t,
                              const char *base_dir, uint64_t clock_hz, ParamValue *v,
                              bool *from_time, char **problem)
{
    *from_time = false;
    if (spec->type != PARAM_STRING && t[0] == '\0') {
        *problem = g_strdup_printf("no value given (expected %s)", param_type_noun(spec));
        return false;
    }
    switch (spec->type) {
    case PARAM_BOOL:
        if (param_parse_bool(t, &v->b))
            return true;
        *problem = g_strdup_printf("'%s': expected a boolean (true/false, yes/no, on/off)", t);
        return false;
    case PARAM_INT:
        return param_parse_integer(t, true, v, problem);
    case PARAM_UINT:
        return param_parse_integer(t, false, v, problem);
    case PARAM_DOUBLE: {
        char *end = NULL;
        v->d = g_ascii_strtod(t, &end);
        if (end == t || *end != '\0' || !isfinite(v->d)) {
            *problem = g_strdup_printf("'%s': expected a number", t);
            return false;
        }
        return true;
    }
    case PARAM_STRING:
        v->s = g_strdup(raw);  /* verbatim: a quoted " x " keeps its spaces */
        return true;
    case PARAM_PATH: {
        /* Absolute and canonical, so config.resolved.yaml names the same file wherever it is
         * read from, and messages show one spelling of each file. Verbatim like a string: a
         * quoted "a.trace " names a file whose name ends in a space (a plain YAML scalar has
         * no surrounding spaces to lose). */
        char *base = base_dir ? g_canonicalize_filename(base_dir, NULL) : NULL;
        /* no base: a --set value, named on the command line: the cwd, then the data directory */
        char *named = base ? g_strdup(raw) : sim_input_find(raw);
        v->s = g_canonicalize_filename(named, base);
        g_free(named);
        g_free(base);
        if (g_utf8_validate(v->s, -1, NULL))
            return true;
        /* A directory name in bytes that are not UTF-8 (the current one, or the config's):
         * YAML cannot hold them, so the resolved config would name another file. */
        char *shown = g_strescape(v->s, NULL);
        *problem = g_strdup_printf("'%s': the path is not valid UTF-8 once resolved (\"%s\"); "
                                   "config.resolved.yaml could not name it", t, shown);
        g_free(shown);
        g_free(v->s);
        v->s = NULL;
        return false;
    }
    case PARAM_ENUM: {
        g_assert(spec->choices != NULL);
        size_t n = 0;
        for (; spec->choices[n] != NULL; n++)
            if (strcmp(spec->choices[n], t) == 0) {
                v->e = (int)n;
                return true;
            }
        GString *list = g_string_new(NULL);
        for (size_t i = 0; i < n; i++)
            g_string_append_printf(list, "%s%s", i ? ", " : "", spec->choices[i]);
        const char *hint = param_suggest(t, (const char *const *)spec->choices, n);
        if (hint != NULL)
            *problem = g_strdup_printf("'%s': expected one of: %s; did you mean '%s'?", t,
                                       list->str, hint);
        else
            *problem = g_strdup_printf("'%s': expected one of: %s", t, list->str);
        g_string_free(list, TRUE);
        return false;
    }
    case PARAM_CYCLES:
        return param_parse_latency(t, clock_hz, &v->u, from_time, problem);
    case PARAM_SIZE:
    case PARAM_FREQ:
    case PARAM_TIME:
    case PARAM_BANDWIDTH:
        return param_parse_quantity(param_unit_kind(spec->type), t, &v->u, problem);
    }
    g_assert_not_reached();
}

/* Range and power-of-two checks, in base units. Messages echo the value as written (t) and give
 * the bounds in the form a user would write them. */
static bool param_check_value(const ParamSpec *spec, const char *t, const ParamValue *v,
                              char **problem)
{
    bool is_uint = spec->type == PARAM_UINT || param_unit_kind(spec->type) != NULL;
    if (spec->flags & PARAM_F_RANGE) {
        g_assert(is_uint || spec->type == PARAM_INT || spec->type == PARAM_DOUBLE);
        double x = is_uint ? (double)v->u : spec->type == PARAM_INT ? (double)v->i : v->d;
        if (x < spec->min || x > spec->max) {
            char *lo = param_format_bound(spec, spec->min);
            char *hi = param_format_bound(spec, spec->max);
            if (isinf(spec->max))
                *problem = g_strdup_printf("%s is out of range (minimum %s)", t, lo);
            else if (isinf(spec->min))
                *problem = g_strdup_printf("%s is out of range (maximum %s)", t, hi);
            else
                *problem = g_strdup_printf("%s is out of range [%s, %s]", t, lo, hi);
            g_free(lo);
            g_free(hi);
            return false;
        }
    }
    if (spec->flags & PARAM_F_POW2) {
        g_assert(is_uint || spec->type == PARAM_INT);
        uint64_t u = is_uint ? v->u : (v->i > 0 ? (uint64_t)v->i : 0);
        if (u == 0 || (u & (u - 1)) != 0) {
            *problem = g_strdup_printf("%s is not a power of two", t);
            return false;
        }
    }
    return true;
}

static void param_store(const ParamSpec *spec, void *dst, const ParamValue *v)
{
    char *field = (char *)dst + spec->offset;
    switch (spec->type) {
    case PARAM_BOOL:
        *(bool *)field = v->b;
        break;
    case PARAM_INT:
        *(int64_t *)field = v->i;
        break;
    case PARAM_DOUBLE:
        *(double *)field = v->d;
        break;
    case PARAM_ENUM:
        *(int *)field = v->e;
        break;
    case PARAM_STRING:
    case PARAM_PATH:
        g_free(*(char **)field);
        *(char **)field = v->s;
        break;
    case PARAM_UINT:
    case PARAM_SIZE:
    case PARAM_FREQ:
    case PARAM_CYCLES:
    case PARAM_TIME:
    case PARAM_BANDWIDTH:
        *(uint64_t *)field = v->u;
        break;
    }
}

static void param_load(const ParamSpec *spec, const void *src, ParamValue *v)
{
    const char *field = (const char *)src + spec->offset;
    memset(v, 0, sizeof *v);
    switch (spec->type) {
    case PARAM_BOOL:
        v->b = *(const bool *)field;
        break;
    case PARAM_INT:
        v->i = *(const int64_t *)field;
        break;
    case PARAM_DOUBLE:
        v->d = *(const double *)field;
        break;
    case PARAM_ENUM:
        v->e = *(const int *)field;
        break;
    case PARAM_STRING:
    case PARAM_PATH:
        v->s = *(char *const *)field;
        break;
    case PARAM_UINT:
    case PARAM_SIZE:
    case PARAM_FREQ:
    case PARAM_CYCLES:
    case PARAM_TIME:
    case PARAM_BANDWIDTH:
        v->u = *(const uint64_t *)field;
        break;
    }
}

bool param_parse_value_clocked(const ParamSpec *spec, const char *text, const char *base_dir,
                               uint64_t clock_hz, void *dst, char **problem)
{
    g_return_val_if_fail(spec != NULL && text != NULL && dst != NULL && problem != NULL, false);
    *problem = NULL;
    char *t = g_strstrip(g_strdup(text));
    ParamValue v;
    memset(&v, 0, sizeof v);
    bool from_time = false;
    bool ok = param_parse_typed(spec, text, t, base_dir, clock_hz, &v, &from_time, problem);
    if (ok) {
        /* A range error on a converted time shows what it became: "0ns (0 cycles at 3GHz)". */
        char *shown = t;
        if (from_time) {
            char *hz = param_format_quantity(PARAM_FREQ, clock_hz);
            shown = g_strdup_printf("%s (%" PRIu64 " %s at %s)", t, v.u,
                                    v.u == 1 ? "cycle" : "cycles", hz);
            g_free(hz);
        }
        ok = param_check_value(spec, shown, &v, problem);
        if (shown != t)
            g_free(shown);
    }
    if (ok)
        param_store(spec, dst, &v);
    else if (spec->type == PARAM_STRING || spec->type == PARAM_PATH)
        g_free(v.s);
    g_free(t);
    return ok;
}

bool param_parse_value(const ParamSpec *spec, const char *text, const char *base_dir, void *dst,
                       char **problem)
{
    return param_parse_value_clocked(spec, text, base_dir, 0, dst, problem);
}

/* ------------------------------------------------------------------------------------------ */
/* Tables */

static size_t param_count(const ParamSpec *specs)
{
    size_t n = 0;
    while (specs[n].name != NULL)
        n++;
    return n;
}

static bool param_is_required(const ParamSpec *spec)
{
    return (spec->flags & PARAM_F_REQUIRED) != 0;
}

/* "l1d.size" from path "l1d" and key "size"; just the key at the top. */
static char *param_full_name(const char *path, const char *key)
{
    if (path == NULL || path[0] == '\0')
        return g_strdup(key);
    return g_strdup_printf("%s.%s", path, key);
}

/* Sets "WHERE: message", or just "message" when there is no node to point at. */
G_GNUC_PRINTF(3, 4)
static bool param_fail(GError **error, const CfgNode *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (at != NULL) {
        char *where = cfg_node_where(at);
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s: %s", where, msg);
        g_free(where);
    } else {
        g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s", msg);
    }
    g_free(msg);
    return false;
}

static bool param_ignored(const char *const *ignore, const char *key)
{
    for (size_t i = 0; ignore != NULL && ignore[i] != NULL; i++)
        if (strcmp(ignore[i], key) == 0)
            return true;
    return false;
}

/* Directory that relative PARAM_PATH values in node resolve against; NULL = cwd. */
static char *param_node_dir(const CfgNode *node)
{
    if (node->set_text != NULL || node->file == NULL || strcmp(node->file, "--set") == 0 ||
        node->file[0] == '\0')
        return NULL;
    return g_path_get_dirname(node->file);
}

/* Defaults are written by programmers; one that does not parse is a bug in the table. */
static void param_apply_default(const ParamSpec *spec, void *dst)
{
    char *problem = NULL;
    if (!param_parse_value(spec, spec->def, NULL, dst, &problem))
        g_error("param: bad default for '%s': %s", spec->name, problem);
}

static bool param_apply_mode(const ParamSpec *specs, const CfgNode *section, const char *path,
                             const char *const *ignore, uint64_t clock_hz, void *dst,
                             bool partial, GError **error);

bool param_apply(const ParamSpec *specs, const CfgNode *section, const char *path,
                 const char *const *ignore, void *dst, GError **error)
{
    return param_apply_mode(specs, section, path, ignore, 0, dst, false, error);
}

bool param_apply_clocked(const ParamSpec *specs, const CfgNode *section, const char *path,
                         const char *const *ignore, uint64_t clock_hz, void *dst,
                         GError **error)
{
    return param_apply_mode(specs, section, path, ignore, clock_hz, dst, false, error);
}

bool param_check_given(const ParamSpec *specs, const CfgNode *section, const char *path,
                       const char *const *ignore, uint64_t clock_hz, void *dst, GError **error)
{
    return param_apply_mode(specs, section, path, ignore, clock_hz, dst, true, error);
}

static bool param_apply_mode(const ParamSpec *specs, const CfgNode *section, const char *path,
                             const char *const *ignore, uint64_t clock_hz, void *dst,
                             bool partial, GError **error)
{
    g_return_val_if_fail(specs != NULL && dst != NULL, false);
    size_t n = param_count(specs);
    const CfgNode *at = section;  /* where "required key is missing" points */
    if (section != NULL && section->kind == CFG_SCALAR && !section->quoted &&
        section->scalar[0] == '\0')
        section = NULL;  /* "l1d:" with nothing under it: every key takes its default */
    if (section != NULL && section->kind != CFG_MAP) {
        const char *got = section->kind == CFG_SEQ ? "a sequence" : "a scalar";
        if (path != NULL && path[0] != '\0')
            return param_fail(error, section, "%s: expected a map of parameters, got %s", path,
                              got);
        return param_fail(error, section, "expected a map of parameters, got %s", got);
    }

    const char **names = g_new0(const char *, n + 1);
    bool *given = g_new0(bool, n + 1);
    for (size_t i = 0; i < n; i++)
        names[i] = specs[i].name;
    bool ok = true;
    for (guint i = 0; ok && section != NULL && i < section->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(section->keys, i);
        const CfgNode *v = g_ptr_array_index(section->items, i);
        if (param_ignored(ignore, k->scalar))
            continue;
        size_t s = 0;
        while (s < n && strcmp(specs[s].name, k->scalar) != 0)
            s++;
        char *full = param_full_name(path, k->scalar);
        if (s == n) {
            const char *hint = param_suggest(k->scalar, names, n);
            if (hint != NULL)
                ok = param_fail(error, k, "%s: unknown key; did you mean '%s'?", full, hint);
            else
                ok = param_fail(error, k, "%s: unknown key", full);
        } else if (v->kind != CFG_SCALAR) {
            ok = param_fail(error, v, "%s: expected %s, got a %s", full,
                            param_type_noun(&specs[s]), v->kind == CFG_MAP ? "map" : "sequence");
        } else {
            char *dir = param_node_dir(v), *problem = NULL;
            if (!param_parse_value_clocked(&specs[s], v->scalar, dir, clock_hz, dst, &problem))
                ok = param_fail(error, v, "%s: %s", full, problem);
            given[s] = true;
            g_free(problem);
            g_free(dir);
        }
        g_free(full);
    }
    for (size_t s = 0; ok && s < n; s++) {
        if (given[s])
            continue;
        if (partial) {
            continue;   /* a part: what it leaves out, the including config gives */
        } else if (param_is_required(&specs[s])) {
            char *full = param_full_name(path, specs[s].name);
            ok = param_fail(error, at, "%s: required key is missing", full);
            g_free(full);
        } else if (specs[s].def != NULL) {
            param_apply_default(&specs[s], dst);
        }
    }
    g_free(names);
    g_free(given);
    if (!ok)
        param_free(specs, dst);
    return ok;
}

void param_emit_yaml(const ParamSpec *specs, const void *src, GString *out, int indent)
{
    g_return_if_fail(specs != NULL && src != NULL && out != NULL);
    for (const ParamSpec *spec = specs; spec->name != NULL; spec++) {
        ParamValue v;
        param_load(spec, src, &v);
        bool stringish = spec->type == PARAM_STRING || spec->type == PARAM_PATH;
        if (stringish && v.s == NULL) {
            /* Unset and without default: absent again when read back. */
            g_string_append_printf(out, "%*s# %s: (not set)\n", MAX(indent, 0), "", spec->name);
            continue;
        }
        /* A one-entry map lets config.c decide the quoting, so the text reads back the same. */
        char *text = param_format_value(spec, &v);
        CfgNode *map = cfg_node_new_map("", 0, 0);
        CfgNode *value = cfg_node_new_scalar(text, "", 0, 0);
        value->quoted = stringish && text[0] == '\0';
        cfg_map_set(map, spec->name, value);
        cfg_node_emit_yaml(map, out, indent);
        cfg_node_free(map);
        g_free(text);
    }
}

static const char *param_type_name(ParamType t)
{
    static const char *const names[] = {
        [PARAM_BOOL] = "bool",     [PARAM_INT] = "int",       [PARAM_UINT] = "uint",
        [PARAM_DOUBLE] = "double", [PARAM_STRING] = "string", [PARAM_PATH] = "path",
        [PARAM_ENUM] = "enum",     [PARAM_SIZE] = "size",     [PARAM_FREQ] = "frequency",
        [PARAM_CYCLES] = "cycles|time", [PARAM_TIME] = "time",
        [PARAM_BANDWIDTH] = "bandwidth",
    };
    return (size_t)t < G_N_ELEMENTS(names) && names[t] != NULL ? names[t] : "?";
}

void param_describe(const ParamSpec *specs, GString *out, int indent)
{
    g_return_if_fail(specs != NULL && out != NULL);
    size_t n = param_count(specs);
    /* Columns: name, type, default, constraint, doc; widths from the widest entry. */
    char **cells = g_new0(char *, 4 * n + 1);
    int width[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        const ParamSpec *s = &specs[i];
        GString *c = g_string_new(NULL);
        if (s->type == PARAM_ENUM && s->choices != NULL)
            for (size_t j = 0; s->choices[j] != NULL; j++)
                g_string_append_printf(c, "%s%s", j ? "|" : "", s->choices[j]);
        if (s->flags & PARAM_F_RANGE) {
            char *lo = param_format_bound(s, s->min), *hi = param_format_bound(s, s->max);
            g_string_append_printf(c, "[%s, %s]", lo, hi);
            g_free(lo);
            g_free(hi);
        }
        if (s->flags & PARAM_F_POW2)
            g_string_append_printf(c, "%spower of two", c->len ? ", " : "");
        cells[4 * i + 0] = g_strdup(s->name);
        cells[4 * i + 1] = g_strdup(param_type_name(s->type));
        cells[4 * i + 2] = param_is_required(s) ? g_strdup("(required)")
                           : s->def != NULL     ? g_strdup(s->def)
                                                : g_strdup("(none)");
        cells[4 * i + 3] = g_string_free(c, FALSE);
        for (int j = 0; j < 4; j++)
            width[j] = MAX(width[j], (int)strlen(cells[4 * i + j]));
    }
    for (size_t i = 0; i < n; i++) {
        GString *line = g_string_new(NULL);
        g_string_append_printf(line, "%*s", MAX(indent, 0), "");
        for (int j = 0; j < 4; j++)
            g_string_append_printf(line, "%-*s  ", width[j], cells[4 * i + j]);
        g_string_append(line, specs[i].doc != NULL ? specs[i].doc : "");
        while (line->len > 0 && line->str[line->len - 1] == ' ')
            g_string_truncate(line, line->len - 1);
        g_string_append_c(line, '\n');
        g_string_append(out, line->str);
        g_string_free(line, TRUE);
    }
    g_strfreev(cells);
    /* What the unit types accept that their names do not say (docs/config.md "Units"). */
    bool has[PARAM_BANDWIDTH + 1] = {false};
    for (size_t i = 0; i < n; i++)
        has[specs[i].type] = true;
    int in = MAX(indent, 0);
    if (has[PARAM_CYCLES])
        g_string_append_printf(out, "%*sunit cycles|time: cycles (4, 4cycles) or a time (4ns, "
                               "1.5us), converted by the component's clock and rounded up\n",
                               in, "");
    if (has[PARAM_SIZE])
        g_string_append_printf(out, "%*sunit size: bytes; kB, MB, GB are binary like KiB, MiB, "
                               "GiB (as gem5 reads sizes)\n", in, "");
    if (has[PARAM_BANDWIDTH])
        g_string_append_printf(out, "%*sunit bandwidth: bytes per second, decimal (1 GB/s = "
                               "10^9 B/s, as nccl-tests reports)\n", in, "");
}

void param_free(const ParamSpec *specs, void *dst)
{
    g_return_if_fail(specs != NULL && dst != NULL);
    for (const ParamSpec *spec = specs; spec->name != NULL; spec++) {
        if (spec->type != PARAM_STRING && spec->type != PARAM_PATH)
            continue;
        char **slot = (char **)((char *)dst + spec->offset);
        g_free(*slot);
        *slot = NULL;
    }
}
