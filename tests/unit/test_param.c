/* test_param.c: CUnit tests for sim/param.c: strict unit parsing (sizes, frequencies, cycles,
 * times, latencies written as times at a clock, bandwidths), every checking error with its exact "file:line:col: key: problem" message, --set
 * positions, defaults and required keys, PATH resolution, emit -> parse round trips for every
 * type, describe, edit distance and "did you mean" hints.
 */
#include <CUnit/Basic.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/config.h"
#include "../../sim/error.h"
#include "../../sim/param.h"

typedef struct {
    uint64_t size, line, assoc, freq, latency, timeout;
    int64_t offset;
    double ratio;
    bool enabled;
    int policy;
    char *name, *trace;
} TestCache;

static const char *const test_policies[] = {"lru", "fifo", "random", NULL};

static const ParamSpec test_cache_specs[] = {
    {"size", PARAM_SIZE, "32KiB", PARAM_F_RANGE | PARAM_F_POW2, 1024, 64.0 * 1024 * 1024, NULL,
     "total capacity", offsetof(TestCache, size)},
    {"line", PARAM_UINT, "64", PARAM_F_POW2, 0, 0, NULL, "line size in bytes",
     offsetof(TestCache, line)},
    {"assoc", PARAM_UINT, "8", PARAM_F_RANGE, 1, 64, NULL, "ways per set",
     offsetof(TestCache, assoc)},
    {"freq", PARAM_FREQ, "3GHz", 0, 0, 0, NULL, "clock", offsetof(TestCache, freq)},
    {"latency", PARAM_CYCLES, "4cycles", 0, 0, 0, NULL, "hit latency",
     offsetof(TestCache, latency)},
    {"timeout", PARAM_TIME, "10ns", 0, 0, 0, NULL, "timeout", offsetof(TestCache, timeout)},
    {"offset", PARAM_INT, "-3", PARAM_F_RANGE, -100, 100, NULL, "offset",
     offsetof(TestCache, offset)},
    {"ratio", PARAM_DOUBLE, "0.5", PARAM_F_RANGE, 0, 1, NULL, "ratio", offsetof(TestCache, ratio)},
    {"enabled", PARAM_BOOL, "true", 0, 0, 0, NULL, "on?", offsetof(TestCache, enabled)},
    {"policy", PARAM_ENUM, "lru", 0, 0, 0, test_policies, "replacement policy",
     offsetof(TestCache, policy)},
    {"name", PARAM_STRING, "l1", 0, 0, 0, NULL, "name", offsetof(TestCache, name)},
    {"trace", PARAM_PATH, NULL, PARAM_F_REQUIRED, 0, 0, NULL, "input trace",
     offsetof(TestCache, trace)},
    PARAM_END,
};

/* The same fields without ranges or required keys, for round trips of extreme values. */
static const ParamSpec test_rt_specs[] = {
    {"size", PARAM_SIZE, "0", 0, 0, 0, NULL, "", offsetof(TestCache, size)},
    {"line", PARAM_UINT, "0", 0, 0, 0, NULL, "", offsetof(TestCache, line)},
    {"freq", PARAM_FREQ, "1Hz", 0, 0, 0, NULL, "", offsetof(TestCache, freq)},
    {"latency", PARAM_CYCLES, "0", 0, 0, 0, NULL, "", offsetof(TestCache, latency)},
    {"timeout", PARAM_TIME, "0ps", 0, 0, 0, NULL, "", offsetof(TestCache, timeout)},
    {"offset", PARAM_INT, "0", 0, 0, 0, NULL, "", offsetof(TestCache, offset)},
    {"ratio", PARAM_DOUBLE, "0", 0, 0, 0, NULL, "", offsetof(TestCache, ratio)},
    {"enabled", PARAM_BOOL, "no", 0, 0, 0, NULL, "", offsetof(TestCache, enabled)},
    {"policy", PARAM_ENUM, "lru", 0, 0, 0, test_policies, "", offsetof(TestCache, policy)},
    {"name", PARAM_STRING, "", 0, 0, 0, NULL, "", offsetof(TestCache, name)},
    {"trace", PARAM_PATH, NULL, 0, 0, 0, NULL, "", offsetof(TestCache, trace)},
    PARAM_END,
};

static const char *const test_ignore[] = {"type", NULL};

#define EXPECT_STR(got, want) test_expect_str((got), (want), __LINE__)
/* Paths are stored absolute and canonical: compare with the cwd-based form of `rel`. */
#define EXPECT_PATH(got, rel)                                  \
    do {                                                       \
        char *want_ = g_canonicalize_filename((rel), NULL);    \
        test_expect_str((got), want_, __LINE__);               \
        g_free(want_);                                         \
    } while (0)
static void test_expect_str(const char *got, const char *want, int line)
{
    bool ok = got != NULL && want != NULL ? strcmp(got, want) == 0 : got == want;
    char *what = g_strdup_printf("expected \"%s\", got \"%s\"", want ? want : "(null)",
                                 got ? got : "(null)");
    if (!ok)
        fprintf(stderr, "\n  line %d: %s\n", line, what);
    CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, (unsigned)line, what, __FILE__, "", CU_FALSE);
    g_free(what);
}

/* Loads text as t.yaml, applies the cache table to section "l1d", expects exactly msg. */
#define EXPECT_APPLY_ERROR(text, msg) test_expect_apply_error((text), (msg), __LINE__)
static void test_expect_apply_error(const char *text, const char *msg, int line)
{
    GError *err = NULL;
    CfgNode *root = cfg_load_string("t.yaml", text, NULL, &err);
    if (root == NULL) {
        test_expect_str(err->message, "(loads)", line);
        g_clear_error(&err);
        return;
    }
    TestCache c = {0};
    bool ok = param_apply(test_cache_specs, cfg_map_get(root, "l1d"), "l1d", test_ignore, &c,
                          &err);
    CU_assertImplementation(!ok ? CU_TRUE : CU_FALSE, (unsigned)line, "param_apply fails",
                            __FILE__, "", CU_FALSE);
    CU_assertImplementation(err != NULL && err->domain == ARCHSIM_CONFIG_ERROR &&
                                    err->code == ARCHSIM_EXIT_CONFIG
                                ? CU_TRUE
                                : CU_FALSE,
                            (unsigned)line, "config error 78", __FILE__, "", CU_FALSE);
    test_expect_str(err != NULL ? err->message : NULL, msg, line);
    /* On failure owned strings are released. */
    CU_assertImplementation(c.name == NULL && c.trace == NULL ? CU_TRUE : CU_FALSE,
                            (unsigned)line, "strings freed on failure", __FILE__, "", CU_FALSE);
    g_clear_error(&err);
    cfg_node_free(root);
}

/* Parses text as one value of the given type into a uint64_t (or other scalar) at offset 0. */
static bool test_parse(ParamType type, const char *text, void *out, char **problem)
{
    ParamSpec spec = {.name = "k", .type = type, .def = "0", .choices = test_policies};
    return param_parse_value(&spec, text, NULL, out, problem);
}

#define EXPECT_U64(type, text, want) test_expect_u64((type), (text), (want), __LINE__)
static void test_expect_u64(ParamType type, const char *text, uint64_t want, int line)
{
    uint64_t got = 0;
    char *problem = NULL;
    bool ok = test_parse(type, text, &got, &problem);
    char *what = g_strdup_printf("'%s' -> %" PRIu64 ", got %s %" PRIu64 " %s", text, want,
                                 ok ? "value" : "error", got, problem ? problem : "");
    if (!ok || got != want)
        fprintf(stderr, "\n  line %d: %s\n", line, what);
    CU_assertImplementation(ok && got == want ? CU_TRUE : CU_FALSE, (unsigned)line, what,
                            __FILE__, "", CU_FALSE);
    g_free(what);
    g_free(problem);
}

#define EXPECT_PROBLEM(type, text, want) test_expect_problem((type), (text), (want), __LINE__)
static void test_expect_problem(ParamType type, const char *text, const char *want, int line)
{
    uint64_t got = 12345;  /* must stay untouched on failure */
    char *problem = NULL;
    bool ok = test_parse(type, text, &got, &problem);
    CU_assertImplementation(!ok && got == 12345 ? CU_TRUE : CU_FALSE, (unsigned)line,
                            "parse fails and leaves dst alone", __FILE__, "", CU_FALSE);
    test_expect_str(problem, want, line);
    g_free(problem);
}

/* ------------------------------------------------------------------------------------------ */

static void test_sizes(void)
{
    EXPECT_U64(PARAM_SIZE, "64", 64);
    EXPECT_U64(PARAM_SIZE, "64B", 64);
    EXPECT_U64(PARAM_SIZE, "32KiB", 32768);
    EXPECT_U64(PARAM_SIZE, "32 KiB", 32768);
    EXPECT_U64(PARAM_SIZE, "1MiB", 1048576);
    EXPECT_U64(PARAM_SIZE, "2GiB", UINT64_C(2147483648));
    EXPECT_U64(PARAM_SIZE, "1TiB", UINT64_C(1099511627776));
    /* issue 16 item 5: gem5's spellings are binary, as gem5 reads memory sizes (kB = KiB). */
    EXPECT_U64(PARAM_SIZE, "1kB", 1024);
    EXPECT_U64(PARAM_SIZE, "64kB", 65536);
    EXPECT_U64(PARAM_SIZE, "64 kB", 65536);
    EXPECT_U64(PARAM_SIZE, "1.5kB", 1536);
    EXPECT_U64(PARAM_SIZE, "1MB", 1048576);
    EXPECT_U64(PARAM_SIZE, "8MB", 8388608);
    EXPECT_U64(PARAM_SIZE, "1GB", UINT64_C(1073741824));
    EXPECT_U64(PARAM_SIZE, "0.5GB", UINT64_C(536870912));
    EXPECT_U64(PARAM_SIZE, "2TB", UINT64_C(2199023255552));
    EXPECT_U64(PARAM_SIZE, "1000B", 1000);    /* the way to say a decimal size */
    EXPECT_U64(PARAM_SIZE, "1.5KiB", 1536);
    EXPECT_U64(PARAM_SIZE, "0.5MiB", 524288);
    EXPECT_U64(PARAM_SIZE, "1_024B", 1024);
    EXPECT_U64(PARAM_SIZE, "0", 0);
    EXPECT_U64(PARAM_SIZE, "  8KiB  ", 8192);
    EXPECT_U64(PARAM_SIZE, "16777215TiB", UINT64_C(18446742974197923840));

    EXPECT_PROBLEM(PARAM_SIZE, "32KB", "'32KB': unknown size unit 'KB'; did you mean 'KiB'?");
    EXPECT_PROBLEM(PARAM_SIZE, "32K", "'32K': unknown size unit 'K'; did you mean 'KiB'?");
    EXPECT_PROBLEM(PARAM_SIZE, "32kib", "'32kib': unknown size unit 'kib'; did you mean 'KiB'?");
    EXPECT_PROBLEM(PARAM_SIZE, "4 MIB", "'4 MIB': unknown size unit 'MIB'; did you mean 'MiB'?");
    EXPECT_PROBLEM(PARAM_SIZE, "64 bytes", "'64 bytes': unknown size unit 'bytes'; did you mean "
                                           "'B'?");
    EXPECT_PROBLEM(PARAM_SIZE, "4xyz", "'4xyz': unknown size unit 'xyz' (expected one of: B, "
                                       "KiB, MiB, GiB, TiB, kB, MB, GB, TB)");
    EXPECT_PROBLEM(PARAM_SIZE, "32Kb", "'32Kb': unknown size unit 'Kb'; did you mean 'KiB'?");
    EXPECT_PROBLEM(PARAM_SIZE, "4mb", "'4mb': unknown size unit 'mb'; did you mean 'MB'?");
    EXPECT_PROBLEM(PARAM_SIZE, "0.1kB", "'0.1kB': not a whole number of bytes"); /* 102.4 */
    EXPECT_PROBLEM(PARAM_SIZE, "0.5B", "'0.5B': not a whole number of bytes");
    EXPECT_PROBLEM(PARAM_SIZE, "-4KiB", "'-4KiB': a size cannot be negative");
    EXPECT_PROBLEM(PARAM_SIZE, "big", "'big': expected a size such as 32KiB");
    EXPECT_PROBLEM(PARAM_SIZE, "16777216TiB", "'16777216TiB': too large");
    EXPECT_PROBLEM(PARAM_SIZE, "032KiB", "'032KiB': number leading zeros are not allowed "
                                         "(octal is not supported)");
    EXPECT_PROBLEM(PARAM_SIZE, "0x10B", "'0x10B': number is hex; quantities are written in "
                                        "decimal with a unit");
    EXPECT_PROBLEM(PARAM_SIZE, "", "no value given (expected a size)");
    EXPECT_PROBLEM(PARAM_SIZE, "1.KiB", "'1.KiB': unknown size unit '.KiB'; did you mean 'KiB'?");
    /* zeros after the point cost the mantissa nothing, so their count has no bound of its own:
     * 10^frac wrapped past 2^128 (to 0 from 128 digits on: a division by zero, found by the
     * config fuzzer) and gave wrong answers from 39 */
    char zeros[200];
    for (int n = 30; n <= 140; n += 1) {
        char text[220], want[300];
        memset(zeros, '0', (size_t)n);
        zeros[n] = '\0';
        g_snprintf(text, sizeof text, "0.%s1KiB", zeros);
        g_snprintf(want, sizeof want, "'%s': not a whole number of bytes", text);
        EXPECT_PROBLEM(PARAM_SIZE, text, want);
        g_snprintf(text, sizeof text, "0.%s KiB", zeros);
        EXPECT_U64(PARAM_SIZE, text, 0);
        g_snprintf(text, sizeof text, "2.%s", zeros);
        EXPECT_U64(PARAM_SIZE, text, 2);
    }
}

static void test_frequencies(void)
{
    EXPECT_U64(PARAM_FREQ, "1.4GHz", UINT64_C(1400000000));
    EXPECT_U64(PARAM_FREQ, "3GHz", UINT64_C(3000000000));
    EXPECT_U64(PARAM_FREQ, "800MHz", 800000000);
    EXPECT_U64(PARAM_FREQ, "100kHz", 100000);
    EXPECT_U64(PARAM_FREQ, "50Hz", 50);
    EXPECT_U64(PARAM_FREQ, "2.125 GHz", UINT64_C(2125000000));
    EXPECT_U64(PARAM_FREQ, "1.000000001GHz", UINT64_C(1000000001));
    EXPECT_U64(PARAM_FREQ, "1.50000000000000000000GHz", UINT64_C(1500000000));

    EXPECT_PROBLEM(PARAM_FREQ, "3", "'3': missing frequency unit (Hz, kHz, MHz, GHz)");
    EXPECT_PROBLEM(PARAM_FREQ, "3Ghz", "'3Ghz': unknown frequency unit 'Ghz'; did you mean "
                                       "'GHz'?");
    EXPECT_PROBLEM(PARAM_FREQ, "3G", "'3G': unknown frequency unit 'G'; did you mean 'GHz'?");
    EXPECT_PROBLEM(PARAM_FREQ, "100KHz", "'100KHz': unknown frequency unit 'KHz'; did you mean "
                                         "'kHz'?");
    EXPECT_PROBLEM(PARAM_FREQ, "1.5Hz", "'1.5Hz': not a whole number of Hz");
    EXPECT_PROBLEM(PARAM_FREQ, "fast", "'fast': expected a frequency such as 3GHz");
}

static void test_cycles_and_times(void)
{
    EXPECT_U64(PARAM_CYCLES, "4", 4);
    EXPECT_U64(PARAM_CYCLES, "4cycles", 4);
    EXPECT_U64(PARAM_CYCLES, "4 cycles", 4);
    EXPECT_U64(PARAM_CYCLES, "1cycle", 1);
    EXPECT_PROBLEM(PARAM_CYCLES, "1.5cycles", "'1.5cycles': not a whole number of cycles");
    EXPECT_PROBLEM(PARAM_CYCLES, "4cyc", "'4cyc': unknown cycle unit 'cyc'; did you mean "
                                         "'cycles'?");
    EXPECT_PROBLEM(PARAM_CYCLES, "4cylces", "'4cylces': unknown cycle unit 'cylces'; did you "
                                            "mean 'cycles'?");
    EXPECT_PROBLEM(PARAM_CYCLES, "4xyz", "'4xyz': unknown cycle unit 'xyz' (expected one of: "
                                         "cycles, cycle, ps, ns, us, ms, s)");
    EXPECT_PROBLEM(PARAM_CYCLES, "4nsec", "'4nsec': unknown cycle unit 'nsec'; did you mean "
                                          "'ns'?");
    EXPECT_PROBLEM(PARAM_CYCLES, "4NS", "'4NS': unknown cycle unit 'NS'; did you mean 'ns'?");
    /* A time where no clock is known (param_parse_value) is refused, never guessed. */
    EXPECT_PROBLEM(PARAM_CYCLES, "4ns", "'4ns': a time here needs the clock of a component to "
                                        "become cycles, and none is known; write cycles "
                                        "(4cycles)");

    EXPECT_U64(PARAM_TIME, "10ns", 10000);
    EXPECT_U64(PARAM_TIME, "1.5us", 1500000);
    EXPECT_U64(PARAM_TIME, "500ps", 500);
    EXPECT_U64(PARAM_TIME, "2ms", UINT64_C(2000000000));
    EXPECT_U64(PARAM_TIME, "1s", UINT64_C(1000000000000));
    EXPECT_U64(PARAM_TIME, "0.001ns", 1);
    EXPECT_PROBLEM(PARAM_TIME, "10", "'10': missing time unit (ps, ns, us, ms, s)");
    EXPECT_PROBLEM(PARAM_TIME, "0.1ps", "'0.1ps': not a whole number of picoseconds");
    EXPECT_PROBLEM(PARAM_TIME, "1\xc2\xb5s", "'1\xc2\xb5s': unknown time unit '\xc2\xb5s'; did "
                                             "you mean 'us'?");
    EXPECT_PROBLEM(PARAM_TIME, "3sec", "'3sec': unknown time unit 'sec'; did you mean 's'?");
    EXPECT_PROBLEM(PARAM_TIME, "3NS", "'3NS': unknown time unit 'NS'; did you mean 'ns'?");
}

/* A latency written as a time, read at a clock: cycles, or the problem. */
#define EXPECT_CLOCKED(text, hz, want, problem)                                                \
    test_expect_clocked((text), (hz), (want), (problem), __LINE__)
static void test_expect_clocked(const char *text, uint64_t hz, uint64_t want, const char *want_p,
                                int line)
{
    const ParamSpec spec = {.name = "lat", .type = PARAM_CYCLES, .def = "1",
                            .flags = PARAM_F_RANGE, .min = 1, .max = 1000};
    uint64_t got = 12345;
    char *problem = NULL;
    bool ok = param_parse_value_clocked(&spec, text, NULL, hz, &got, &problem);
    char *what = g_strdup_printf("'%s' at %" PRIu64 " Hz -> %" PRIu64 ", got %s %" PRIu64 " %s",
                                 text, hz, want, ok ? "value" : "error", got,
                                 problem ? problem : "");
    bool good = want_p == NULL ? ok && got == want : !ok && got == 12345;
    if (!good)
        fprintf(stderr, "\n  line %d: %s\n", line, what);
    CU_assertImplementation(good ? CU_TRUE : CU_FALSE, (unsigned)line, what, __FILE__, "",
                            CU_FALSE);
    if (want_p != NULL)
        test_expect_str(problem, want_p, line);
    g_free(what);
    g_free(problem);
}

/* issue 16 item 5: latencies in time units, converted by the reading component's clock and
 * rounded up to the next whole cycle (gem5's ticksToCycles), exactly (no period rounding). */
static void test_latency_times(void)
{
    const uint64_t ghz3 = UINT64_C(3000000000), ghz1 = UINT64_C(1000000000);
    EXPECT_CLOCKED("4ns", ghz3, 12, NULL);          /* exact: 12 cycles of 333.3 ps */
    EXPECT_CLOCKED("4 ns", ghz3, 12, NULL);
    EXPECT_CLOCKED("4ns", ghz1, 4, NULL);           /* the same text, another clock */
    EXPECT_CLOCKED("4ns", UINT64_C(1400000000), 6, NULL);   /* 5.6 -> 6 */
    EXPECT_CLOCKED("1us", ghz1, 1000, NULL);
    EXPECT_CLOCKED("500ps", ghz1, 1, NULL);         /* half a cycle rounds up */
    EXPECT_CLOCKED("1ps", ghz3, 1, NULL);           /* any time > 0 is at least 1 cycle */
    EXPECT_CLOCKED("333ps", ghz3, 1, NULL);         /* 0.999 -> 1 */
    EXPECT_CLOCKED("334ps", ghz3, 2, NULL);         /* 1.002 -> 2 */
    EXPECT_CLOCKED("1001ps", ghz1, 2, NULL);
    EXPECT_CLOCKED("1000ps", ghz1, 1, NULL);        /* whole: no rounding */
    EXPECT_CLOCKED("7", ghz3, 7, NULL);             /* cycles stay cycles at any clock */
    EXPECT_CLOCKED("7cycles", ghz1, 7, NULL);
    EXPECT_CLOCKED("0ns", ghz3, 0, "0ns (0 cycles at 3GHz) is out of range [1cycle, 1000cycles]");
    EXPECT_CLOCKED("1.5us", ghz3, 0, "1.5us (4500 cycles at 3GHz) is out of range [1cycle, "
                                     "1000cycles]");
    EXPECT_CLOCKED("0.5ps", ghz3, 0, "'0.5ps': not a whole number of picoseconds");
    EXPECT_CLOCKED("-4ns", ghz3, 0, "'-4ns': a time cannot be negative");
    EXPECT_CLOCKED("4ns", 0, 0, "'4ns': a time here needs the clock of a component to become "
                                "cycles, and none is known; write cycles (4cycles)");
    EXPECT_CLOCKED("4GHz", ghz3, 0, "'4GHz': unknown cycle unit 'GHz' (expected one of: cycles, "
                                    "cycle, ps, ns, us, ms, s)");

    /* Overflow of ps x Hz is caught, not wrapped. */
    const ParamSpec wide = {.name = "w", .type = PARAM_CYCLES, .def = "0"};
    uint64_t got = 0;
    char *problem = NULL;
    CU_ASSERT_TRUE(param_parse_value_clocked(&wide, "18446744s", NULL, UINT64_C(1000000),
                                             &got, &problem));
    CU_ASSERT_EQUAL(got, UINT64_C(18446744000000));
    CU_ASSERT_FALSE(param_parse_value_clocked(&wide, "18446744s", NULL, UINT64_C(2000000000000),
                                              &got, &problem));  /* 2 THz: 3.7e19 cycles */
    EXPECT_STR(problem, "'18446744s': too large");
    g_free(problem);

    /* param_apply_clocked: the message keeps file:line:col, the resolved value is cycles. */
    GError *err = NULL;
    CfgNode *root = cfg_load_string("t.yaml", "l1d:\n  trace: t.lt\n  latency: 4ns\n", NULL,
                                    &err);
    g_assert(root != NULL);
    TestCache c = {0};
    CU_ASSERT_TRUE(param_apply_clocked(test_cache_specs, cfg_map_get(root, "l1d"), "l1d",
                                       test_ignore, UINT64_C(2000000000), &c, &err));
    CU_ASSERT_EQUAL(c.latency, 8);
    GString *out = g_string_new(NULL);
    param_emit_yaml(test_cache_specs, &c, out, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out->str, "\nlatency: 8cycles\n"));
    g_string_free(out, TRUE);
    param_free(test_cache_specs, &c);
    /* without a clock (param_apply) the same text is an error at its position */
    CU_ASSERT_FALSE(param_apply(test_cache_specs, cfg_map_get(root, "l1d"), "l1d", test_ignore,
                                &c, &err));
    EXPECT_STR(err ? err->message : NULL,
               "t.yaml:3:12: l1d.latency: '4ns': a time here needs the clock of a component to "
               "become cycles, and none is known; write cycles (4cycles)");
    g_clear_error(&err);
    cfg_node_free(root);
    root = cfg_load_string("t.yaml", "l1d:\n  trace: t.lt\n  latency: 0ps\n", NULL, &err);
    g_assert(root != NULL);
    const ParamSpec ranged[] = {
        {"latency", PARAM_CYCLES, "4", PARAM_F_RANGE, 1, 64, NULL, "", offsetof(TestCache,
                                                                                latency)},
        PARAM_END,
    };
    CU_ASSERT_FALSE(param_apply_clocked(ranged, cfg_map_get(root, "l1d"), "l1d",
                                        (const char *const[]){"trace", NULL}, UINT64_C(3000000000),
                                        &c, &err));
    EXPECT_STR(err ? err->message : NULL, "t.yaml:3:12: l1d.latency: 0ps (0 cycles at 3GHz) is "
                                          "out of range [1cycle, 64cycles]");
    g_clear_error(&err);
    cfg_node_free(root);
}

/* Bandwidths are decimal (nccl-tests' GB/s = 10^9 B/s); the IEC names are binary. */
static void test_bandwidths(void)
{
    EXPECT_U64(PARAM_BANDWIDTH, "25GB/s", UINT64_C(25000000000));
    EXPECT_U64(PARAM_BANDWIDTH, "12.5GB/s", UINT64_C(12500000000));
    EXPECT_U64(PARAM_BANDWIDTH, "800MB/s", 800000000);
    EXPECT_U64(PARAM_BANDWIDTH, "1kB/s", 1000);
    EXPECT_U64(PARAM_BANDWIDTH, "3TB/s", UINT64_C(3000000000000));
    EXPECT_U64(PARAM_BANDWIDTH, "1 B/s", 1);
    EXPECT_U64(PARAM_BANDWIDTH, "1GiB/s", UINT64_C(1073741824));
    EXPECT_U64(PARAM_BANDWIDTH, "1KiB/s", 1024);
    EXPECT_PROBLEM(PARAM_BANDWIDTH, "25", "'25': missing bandwidth unit (B/s, kB/s, MB/s, GB/s, "
                                          "TB/s, KiB/s, MiB/s, GiB/s, TiB/s)");
    EXPECT_PROBLEM(PARAM_BANDWIDTH, "25GBps", "'25GBps': unknown bandwidth unit 'GBps'; did you "
                                              "mean 'GB/s'?");
    EXPECT_PROBLEM(PARAM_BANDWIDTH, "25KB/s", "'25KB/s': unknown bandwidth unit 'KB/s'; did you "
                                              "mean 'kB/s'?");
    EXPECT_PROBLEM(PARAM_BANDWIDTH, "0.5B/s", "'0.5B/s': not a whole number of bytes per second");

    /* written back in the largest decimal unit with an exact fraction */
    const ParamSpec bw[] = {{"bw", PARAM_BANDWIDTH, "1B/s", 0, 0, 0, NULL, "", 0}, PARAM_END};
    const struct {
        uint64_t v;
        const char *text;
    } rt[] = {{UINT64_C(25000000000), "bw: 25GB/s\n"}, {UINT64_C(12500000000), "bw: 12.5GB/s\n"},
              {UINT64_C(1073741824), "bw: 1.073741824GB/s\n"}, {999, "bw: 999B/s\n"},
              {0, "bw: 0B/s\n"}};
    for (size_t i = 0; i < G_N_ELEMENTS(rt); i++) {
        GString *out = g_string_new(NULL);
        uint64_t v = rt[i].v, back = 1;
        param_emit_yaml(bw, &v, out, 0);
        EXPECT_STR(out->str, rt[i].text);
        char *problem = NULL;
        CU_ASSERT_TRUE(param_parse_value(&bw[0], out->str + 4, NULL, &back, &problem));
        CU_ASSERT_EQUAL(back, v);
        g_free(problem);
        g_string_free(out, TRUE);
    }
}

static void test_numbers_bools_enums(void)
{
    EXPECT_U64(PARAM_UINT, "42", 42);
    EXPECT_U64(PARAM_UINT, "+42", 42);
    EXPECT_U64(PARAM_UINT, "0x1F", 31);
    EXPECT_U64(PARAM_UINT, "0XfF", 255);
    EXPECT_U64(PARAM_UINT, "1_000_000", 1000000);
    EXPECT_U64(PARAM_UINT, "18446744073709551615", UINT64_MAX);
    EXPECT_PROBLEM(PARAM_UINT, "eight", "'eight': expected an unsigned integer");
    EXPECT_PROBLEM(PARAM_UINT, "-1", "'-1': expected an unsigned integer");
    EXPECT_PROBLEM(PARAM_UINT, "1.5", "'1.5': expected an unsigned integer");
    EXPECT_PROBLEM(PARAM_UINT, "1_", "'1_': expected an unsigned integer");
    EXPECT_PROBLEM(PARAM_UINT, "4KiB", "'4KiB': expected an unsigned integer");
    EXPECT_PROBLEM(PARAM_UINT, "0x", "'0x': expected an unsigned integer");
    EXPECT_PROBLEM(PARAM_UINT, "0x_1", "'0x_1': expected an unsigned integer");
    EXPECT_PROBLEM(PARAM_UINT, "010", "'010': number leading zeros are not allowed (octal is "
                                      "not supported)");
    EXPECT_PROBLEM(PARAM_UINT, "18446744073709551616", "'18446744073709551616': number too "
                                                       "large");

    int64_t i = 0;
    char *problem = NULL;
    CU_ASSERT_TRUE(test_parse(PARAM_INT, "-3", &i, &problem) && i == -3);
    CU_ASSERT_TRUE(test_parse(PARAM_INT, "-0x10", &i, &problem) && i == -16);
    CU_ASSERT_TRUE(test_parse(PARAM_INT, "9223372036854775807", &i, &problem) && i == INT64_MAX);
    CU_ASSERT_TRUE(test_parse(PARAM_INT, "-9223372036854775808", &i, &problem) && i == INT64_MIN);
    CU_ASSERT_FALSE(test_parse(PARAM_INT, "9223372036854775808", &i, &problem));
    EXPECT_STR(problem, "'9223372036854775808': too large for a 64-bit integer");
    g_free(problem);
    CU_ASSERT_FALSE(test_parse(PARAM_INT, "three", &i, &problem));
    EXPECT_STR(problem, "'three': expected an integer");
    g_free(problem);

    double d = 0;
    CU_ASSERT_TRUE(test_parse(PARAM_DOUBLE, "0.5", &d, &problem) && d == 0.5);
    CU_ASSERT_TRUE(test_parse(PARAM_DOUBLE, "-2e3", &d, &problem) && d == -2000.0);
    CU_ASSERT_FALSE(test_parse(PARAM_DOUBLE, "1.5x", &d, &problem));
    EXPECT_STR(problem, "'1.5x': expected a number");
    g_free(problem);
    CU_ASSERT_FALSE(test_parse(PARAM_DOUBLE, "inf", &d, &problem));
    EXPECT_STR(problem, "'inf': expected a number");
    g_free(problem);
    CU_ASSERT_FALSE(test_parse(PARAM_DOUBLE, "nan", &d, &problem));
    g_free(problem);

    const char *yes[] = {"true", "True", "TRUE", "yes", "Yes", "on", "ON"};
    const char *no[] = {"false", "False", "no", "NO", "off", "Off"};
    for (size_t k = 0; k < G_N_ELEMENTS(yes); k++) {
        bool b = false;
        CU_ASSERT_TRUE(test_parse(PARAM_BOOL, yes[k], &b, &problem) && b);
    }
    for (size_t k = 0; k < G_N_ELEMENTS(no); k++) {
        bool b = true;
        CU_ASSERT_TRUE(test_parse(PARAM_BOOL, no[k], &b, &problem) && !b);
    }
    bool b = false;
    CU_ASSERT_FALSE(test_parse(PARAM_BOOL, "maybe", &b, &problem));
    EXPECT_STR(problem, "'maybe': expected a boolean (true/false, yes/no, on/off)");
    g_free(problem);
    CU_ASSERT_FALSE(test_parse(PARAM_BOOL, "1", &b, &problem));
    g_free(problem);

    int e = -1;
    CU_ASSERT_TRUE(test_parse(PARAM_ENUM, "fifo", &e, &problem) && e == 1);
    CU_ASSERT_FALSE(test_parse(PARAM_ENUM, "LRU", &e, &problem));
    EXPECT_STR(problem, "'LRU': expected one of: lru, fifo, random; did you mean 'lru'?");
    g_free(problem);
    CU_ASSERT_FALSE(test_parse(PARAM_ENUM, "xyz", &e, &problem));
    EXPECT_STR(problem, "'xyz': expected one of: lru, fifo, random");
    g_free(problem);
    CU_ASSERT_EQUAL(e, 1);
}

static void test_strings_and_paths(void)
{
    ParamSpec s = {.name = "s", .type = PARAM_STRING, .def = ""};
    ParamSpec p = {.name = "p", .type = PARAM_PATH, .def = "x"};
    char *v = NULL, *problem = NULL;
    CU_ASSERT_TRUE(param_parse_value(&s, " a b ", NULL, &v, &problem));
    EXPECT_STR(v, " a b ");  /* strings are verbatim */
    CU_ASSERT_TRUE(param_parse_value(&s, "", NULL, &v, &problem));  /* frees the old value */
    EXPECT_STR(v, "");
    CU_ASSERT_TRUE(param_parse_value(&p, "traces/a.lt", "configs/sys", &v, &problem));
    EXPECT_PATH(v, "configs/sys/traces/a.lt");
    CU_ASSERT_TRUE(param_parse_value(&p, "/abs/a.lt", "configs", &v, &problem));
    EXPECT_STR(v, "/abs/a.lt");
    CU_ASSERT_TRUE(param_parse_value(&p, "../x/./a.lt", "configs/sys", &v, &problem));
    EXPECT_PATH(v, "configs/x/a.lt");
    CU_ASSERT_TRUE(param_parse_value(&p, "a.lt", NULL, &v, &problem));
    EXPECT_PATH(v, "a.lt");
    CU_ASSERT_FALSE(param_parse_value(&p, "", NULL, &v, &problem));
    EXPECT_STR(problem, "no value given (expected a file path)");
    EXPECT_PATH(v, "a.lt");
    g_free(problem);
    g_free(v);
}

static void test_apply_errors(void)
{
    const char *head = "l1d:\n  trace: t.lt\n";
    const struct {
        const char *line, *msg;
    } cases[] = {
        {"  sise: 1KiB\n", "t.yaml:3:3: l1d.sise: unknown key; did you mean 'size'?"},
        {"  szie: 1KiB\n", "t.yaml:3:3: l1d.szie: unknown key; did you mean 'size'?"},
        {"  Assoc: 4\n", "t.yaml:3:3: l1d.Assoc: unknown key; did you mean 'assoc'?"},
        {"  zzzzzz: 1\n", "t.yaml:3:3: l1d.zzzzzz: unknown key"},
        {"  size: 32KB\n",
         "t.yaml:3:9: l1d.size: '32KB': unknown size unit 'KB'; did you mean 'KiB'?"},
        {"  assoc: eight\n", "t.yaml:3:10: l1d.assoc: 'eight': expected an unsigned integer"},
        {"  assoc: 0\n", "t.yaml:3:10: l1d.assoc: 0 is out of range [1, 64]"},
        {"  assoc: 65\n", "t.yaml:3:10: l1d.assoc: 65 is out of range [1, 64]"},
        {"  line: 48\n", "t.yaml:3:9: l1d.line: 48 is not a power of two"},
        {"  line: 0\n", "t.yaml:3:9: l1d.line: 0 is not a power of two"},
        {"  size: 128MiB\n", "t.yaml:3:9: l1d.size: 128MiB is out of range [1KiB, 64MiB]"},
        {"  size: 512B\n", "t.yaml:3:9: l1d.size: 512B is out of range [1KiB, 64MiB]"},
        {"  size: 48KiB\n", "t.yaml:3:9: l1d.size: 48KiB is not a power of two"},
        {"  size: {a: 1}\n", "t.yaml:3:9: l1d.size: expected a size, got a map"},
        {"  ratio: [1]\n", "t.yaml:3:10: l1d.ratio: expected a number, got a sequence"},
        {"  ratio: 1.5\n", "t.yaml:3:10: l1d.ratio: 1.5 is out of range [0, 1]"},
        {"  offset: -101\n", "t.yaml:3:11: l1d.offset: -101 is out of range [-100, 100]"},
        {"  policy: LRU\n", "t.yaml:3:11: l1d.policy: 'LRU': expected one of: lru, fifo, random; "
                            "did you mean 'lru'?"},
        {"  enabled: maybe\n",
         "t.yaml:3:12: l1d.enabled: 'maybe': expected a boolean (true/false, yes/no, on/off)"},
        {"  freq: 3\n", "t.yaml:3:9: l1d.freq: '3': missing frequency unit (Hz, kHz, MHz, GHz)"},
        {"  freq: 1.4Ghz\n",
         "t.yaml:3:9: l1d.freq: '1.4Ghz': unknown frequency unit 'Ghz'; did you mean 'GHz'?"},
        {"  timeout: 10\n", "t.yaml:3:12: l1d.timeout: '10': missing time unit (ps, ns, us, ms, "
                            "s)"},
        {"  latency: 'four'\n", "t.yaml:3:12: l1d.latency: 'four': expected a cycle count such "
                                "as 4cycles"},
        {"  size:\n", "t.yaml:3:8: l1d.size: no value given (expected a size)"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *text = g_strconcat(head, cases[i].line, NULL);
        test_expect_apply_error(text, cases[i].msg, __LINE__);
        g_free(text);
    }
    /* Errors come in file order: the first bad key wins. */
    EXPECT_APPLY_ERROR("l1d:\n  assoc: 0\n  sise: 1\n  trace: x\n",
                       "t.yaml:2:10: l1d.assoc: 0 is out of range [1, 64]");
    /* Required keys: at the section, or without position when the section is absent. */
    EXPECT_APPLY_ERROR("l1d:\n  size: 1KiB\n", "t.yaml:2:3: l1d.trace: required key is missing");
    EXPECT_APPLY_ERROR("l2:\n  size: 1KiB\n", "l1d.trace: required key is missing");
    EXPECT_APPLY_ERROR("l1d:\n", "t.yaml:1:5: l1d.trace: required key is missing");
    EXPECT_APPLY_ERROR("l1d: 5\n", "t.yaml:1:6: l1d: expected a map of parameters, got a scalar");
    EXPECT_APPLY_ERROR("l1d: [1]\n",
                       "t.yaml:1:6: l1d: expected a map of parameters, got a sequence");

    /* The file position of an absent section, as param.h suggests. */
    GError *err = NULL;
    CfgNode *root = cfg_load_string("t.yaml", "\n\nx: 1\n", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CfgNode *here = cfg_node_new_map(root->file, 1, 1);
    TestCache c = {0};
    CU_ASSERT_FALSE(param_apply(test_cache_specs, here, "core", NULL, &c, &err));
    EXPECT_STR(err->message, "t.yaml:1:1: core.trace: required key is missing");
    g_clear_error(&err);
    /* The top level of a file: no path prefix. */
    CU_ASSERT_FALSE(param_apply(test_cache_specs, root, "", NULL, &c, &err));
    EXPECT_STR(err->message, "t.yaml:3:1: x: unknown key");
    g_clear_error(&err);
    cfg_node_free(here);
    cfg_node_free(root);
}

static void test_apply_values_and_defaults(void)
{
    GError *err = NULL;
    CfgNode *root = cfg_load_string("configs/sys/t.yaml",
                                    "l1d:\n  type: cache\n  size: 64KiB\n  freq: 1.4GHz\n"
                                    "  timeout: 1.5us\n  policy: random\n  trace: traces/a.lt\n"
                                    "  name: 'x y'\n  enabled: off\n",
                                    NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    TestCache c = {0};
    CU_ASSERT_TRUE_FATAL(param_apply(test_cache_specs, cfg_map_get(root, "l1d"), "l1d",
                                     test_ignore, &c, &err));
    CU_ASSERT_EQUAL(c.size, 65536);
    CU_ASSERT_EQUAL(c.freq, UINT64_C(1400000000));
    CU_ASSERT_EQUAL(c.timeout, 1500000);
    CU_ASSERT_EQUAL(c.policy, 2);
    CU_ASSERT_FALSE(c.enabled);
    EXPECT_STR(c.name, "x y");
    EXPECT_PATH(c.trace, "configs/sys/traces/a.lt");  /* relative to the file that set it */
    /* Defaults for the rest. */
    CU_ASSERT_EQUAL(c.line, 64);
    CU_ASSERT_EQUAL(c.assoc, 8);
    CU_ASSERT_EQUAL(c.latency, 4);
    CU_ASSERT_EQUAL(c.offset, -3);
    CU_ASSERT_DOUBLE_EQUAL(c.ratio, 0.5, 0);

    /* Applying again replaces (and frees) the old strings; --set paths stay cwd-relative. */
    CU_ASSERT_TRUE(cfg_apply_set(root, "l1d.trace=x.lt", &err));
    CU_ASSERT_TRUE(cfg_apply_set(root, "l1d.name=n", &err));
    CU_ASSERT_TRUE(param_apply(test_cache_specs, cfg_map_get(root, "l1d"), "l1d", test_ignore,
                               &c, &err));
    EXPECT_PATH(c.trace, "x.lt");
    EXPECT_STR(c.name, "n");
    param_free(test_cache_specs, &c);
    CU_ASSERT_PTR_NULL(c.trace);
    CU_ASSERT_PTR_NULL(c.name);

    /* An optional key without default is left alone. */
    TestCache r = {0};
    CU_ASSERT_TRUE(param_apply(test_rt_specs, NULL, "x", NULL, &r, &err));
    CU_ASSERT_PTR_NULL(r.trace);
    EXPECT_STR(r.name, "");
    CU_ASSERT_EQUAL(r.freq, 1);
    param_free(test_rt_specs, &r);
    cfg_node_free(root);
}

static void test_set_messages(void)
{
    GError *err = NULL;
    CfgNode *root = cfg_load_string("t.yaml", "l1d:\n  trace: t.lt\n", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    const struct {
        const char *set, *msg;
    } cases[] = {
        {"l1d.size=32KB",
         "--set l1d.size=32KB: l1d.size: '32KB': unknown size unit 'KB'; did you mean 'KiB'?"},
        {"l1d.sise=1KiB", "--set l1d.sise=1KiB: l1d.sise: unknown key; did you mean 'size'?"},
        {"l1d.assoc=0", "--set l1d.assoc=0: l1d.assoc: 0 is out of range [1, 64]"},
        {"l1d.size=[1]", "--set l1d.size=[1]: l1d.size: expected a size, got a sequence"},
        {"l1d=", "--set l1d=: l1d.trace: required key is missing"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        CfgNode *copy = cfg_node_copy(root);
        CU_ASSERT_TRUE(cfg_apply_set(copy, cases[i].set, &err));
        TestCache c = {0};
        CU_ASSERT_FALSE(param_apply(test_cache_specs, cfg_map_get(copy, "l1d"), "l1d", NULL, &c,
                                    &err));
        EXPECT_STR(err != NULL ? err->message : NULL, cases[i].msg);
        g_clear_error(&err);
        cfg_node_free(copy);
    }
    cfg_node_free(root);
}

static void test_emit(void)
{
    TestCache c = {0};
    GError *err = NULL;
    CfgNode *root = cfg_load_string("t.yaml", "trace: t.lt\n", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_TRUE_FATAL(param_apply(test_cache_specs, root, "", NULL, &c, &err));
    GString *out = g_string_new(NULL);
    param_emit_yaml(test_cache_specs, &c, out, 2);
    char *abs_t = g_canonicalize_filename("t.lt", NULL);
    char *want = g_strdup_printf("  size: 32KiB\n  line: 64\n  assoc: 8\n  freq: 3GHz\n"
                                 "  latency: 4cycles\n  timeout: 10ns\n  offset: -3\n"
                                 "  ratio: 0.5\n  enabled: true\n  policy: lru\n  name: l1\n"
                                 "  trace: %s\n", abs_t);
    EXPECT_STR(out->str, want);   /* paths are emitted absolute */
    g_free(want);
    g_free(abs_t);
    param_free(test_cache_specs, &c);
    cfg_node_free(root);

    /* Extreme and awkward values of every type read back identically. */
    const struct {
        uint64_t size, freq, latency, timeout;
        int64_t offset;
        double ratio;
        const char *name, *trace, *text;
    } rt[] = {
        {1536, UINT64_C(1400000000), 1, 1500000, INT64_MIN, 0.1, "yes: #x", NULL,
         "size: 1536B\nline: 7\nfreq: 1.4GHz\nlatency: 1cycle\ntimeout: 1.5us\n"
         "offset: -9223372036854775808\nratio: 0.1\nenabled: true\npolicy: fifo\n"
         "name: \"yes: #x\"\n# trace: (not set)\n"},
        {3000, 1, 0, 1, INT64_MAX, 1e300, "", "a b/c.lt",
         "size: 3000B\nline: 7\nfreq: 1Hz\nlatency: 0cycles\ntimeout: 1ps\n"
         "offset: 9223372036854775807\nratio: 1e+300\nenabled: true\npolicy: fifo\nname: \"\"\n"
         "trace: a b/c.lt\n"},
        {0, UINT64_C(1234567891), UINT64_MAX, UINT64_MAX, 0, 1.0 / 3, "- x", "#x",
         "size: 0B\nline: 7\nfreq: 1.234567891GHz\nlatency: 18446744073709551615cycles\n"
         "timeout: 18446744.073709551615s\noffset: 0\nratio: 0.3333333333333333\n"
         "enabled: true\npolicy: fifo\nname: \"- x\"\ntrace: \"#x\"\n"},
        {UINT64_MAX, UINT64_C(3000000000), 2, UINT64_C(1000000000000), -1, -0.0, "caf\xc3\xa9",
         "x", "size: 18446744073709551615B\nline: 7\nfreq: 3GHz\nlatency: 2cycles\ntimeout: 1s\n"
              "offset: -1\nratio: -0\nenabled: true\npolicy: fifo\nname: caf\xc3\xa9\ntrace: x\n"},
        {UINT64_C(5) << 40, 999, 3, 999, 5, 5e-324, "\t", NULL,
         "size: 5TiB\nline: 7\nfreq: 999Hz\nlatency: 3cycles\ntimeout: 999ps\noffset: 5\n"
         "ratio: 5e-324\nenabled: true\npolicy: fifo\nname: \"\\t\"\n# trace: (not set)\n"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(rt); i++) {
        TestCache a = {.size = rt[i].size, .line = 7, .freq = rt[i].freq,
                       .latency = rt[i].latency, .timeout = rt[i].timeout,
                       .offset = rt[i].offset, .ratio = rt[i].ratio, .enabled = true,
                       .policy = 1, .name = g_strdup(rt[i].name), .trace = g_strdup(rt[i].trace)};
        g_string_truncate(out, 0);
        param_emit_yaml(test_rt_specs, &a, out, 0);
        EXPECT_STR(out->str, rt[i].text);
        CfgNode *back = cfg_load_string("back.yaml", out->str, NULL, &err);
        TestCache b = {0};
        if (back == NULL || !param_apply(test_rt_specs, back, "", NULL, &b, &err)) {
            fprintf(stderr, "\n  round trip %zu: %s\n", i, err->message);
            CU_FAIL("emitted params read back");
            g_clear_error(&err);
        } else {
            CU_ASSERT_EQUAL(b.size, a.size);
            CU_ASSERT_EQUAL(b.line, a.line);
            CU_ASSERT_EQUAL(b.freq, a.freq);
            CU_ASSERT_EQUAL(b.latency, a.latency);
            CU_ASSERT_EQUAL(b.timeout, a.timeout);
            CU_ASSERT_EQUAL(b.offset, a.offset);
            CU_ASSERT_TRUE(b.ratio == a.ratio && signbit(b.ratio) == signbit(a.ratio));
            CU_ASSERT_EQUAL(b.enabled, a.enabled);
            CU_ASSERT_EQUAL(b.policy, a.policy);
            EXPECT_STR(b.name, a.name);
            if (a.trace)
                EXPECT_PATH(b.trace, a.trace);   /* read back absolute */
            else
                EXPECT_STR(b.trace, a.trace);
        }
        param_free(test_rt_specs, &a);
        param_free(test_rt_specs, &b);
        cfg_node_free(back);
    }
    g_string_free(out, TRUE);
}

static void test_describe(void)
{
    const ParamSpec specs[] = {
        {"size", PARAM_SIZE, "32KiB", PARAM_F_RANGE | PARAM_F_POW2, 1024, 1048576, NULL,
         "total capacity", 0},
        {"policy", PARAM_ENUM, "lru", 0, 0, 0, test_policies, "replacement policy", 0},
        {"trace", PARAM_PATH, NULL, PARAM_F_REQUIRED, 0, 0, NULL, "input trace", 0},
        {"hit", PARAM_CYCLES, "2", PARAM_F_RANGE, 1, 64, NULL, "hit latency", 0},
        PARAM_END,
    };
    GString *out = g_string_new(NULL);
    param_describe(specs, out, 2);
    /* a latency in cycles says that it takes a time too */
    EXPECT_STR(out->str,
               "  size    size         32KiB       [1KiB, 1MiB], power of two  total capacity\n"
               "  policy  enum         lru         lru|fifo|random             replacement "
               "policy\n"
               "  trace   path         (required)                              input trace\n"
               "  hit     cycles|time  2           [1cycle, 64cycles]          hit latency\n"
               "  unit cycles|time: cycles (4, 4cycles) or a time (4ns, 1.5us), converted by the "
               "component's clock and rounded up\n"
               "  unit size: bytes; kB, MB, GB are binary like KiB, MiB, GiB (as gem5 reads sizes)\n");
    g_string_free(out, TRUE);
}

static void test_edit_distance_and_suggest(void)
{
    CU_ASSERT_EQUAL(param_edit_distance("size", "size"), 0);
    CU_ASSERT_EQUAL(param_edit_distance("sise", "size"), 1);
    CU_ASSERT_EQUAL(param_edit_distance("szie", "size"), 1);  /* transposition */
    CU_ASSERT_EQUAL(param_edit_distance("", "abc"), 3);
    CU_ASSERT_EQUAL(param_edit_distance("abc", ""), 3);
    CU_ASSERT_EQUAL(param_edit_distance("kitten", "sitting"), 3);
    CU_ASSERT_EQUAL(param_edit_distance("ca", "abc"), 3);      /* OSA, not full Damerau */
    CU_ASSERT_EQUAL(param_edit_distance("Size", "size"), 1);   /* exact: case matters */

    const char *const names[] = {"size", "assoc", NULL, "line", "latency"};
    EXPECT_STR(param_suggest("sise", names, 5), "size");
    EXPECT_STR(param_suggest("SIZE", names, 5), "size");
    EXPECT_STR(param_suggest("asoc", names, 5), "assoc");
    EXPECT_STR(param_suggest("latnecy", names, 5), "latency");
    EXPECT_STR(param_suggest("lin", names, 5), "line");
    CU_ASSERT_PTR_NULL(param_suggest("zzzz", names, 5));
    CU_ASSERT_PTR_NULL(param_suggest("xy", names, 5));
    /* Threshold max(1, len/3): "abcdef" allows 2 edits, "abcxyz" needs 3. */
    const char *const six[] = {"abcxyz", "abcdxy"};
    EXPECT_STR(param_suggest("abcdef", six, 2), "abcdxy");
    CU_ASSERT_PTR_NULL(param_suggest("abcdef", six, 1));
    /* Ties go to the first candidate. */
    const char *const tie[] = {"bat", "cat"};
    EXPECT_STR(param_suggest("at", tie, 2), "bat");
    CU_ASSERT_PTR_NULL(param_suggest("x", names, 0));
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("param", NULL, NULL);
    const struct {
        const char *name;
        CU_TestFunc fn;
    } tests[] = {
        {"sizes", test_sizes},
        {"frequencies", test_frequencies},
        {"cycles and times", test_cycles_and_times},
        {"latencies as times", test_latency_times},
        {"bandwidths", test_bandwidths},
        {"numbers, bools, enums", test_numbers_bools_enums},
        {"strings and paths", test_strings_and_paths},
        {"apply errors", test_apply_errors},
        {"apply values and defaults", test_apply_values_and_defaults},
        {"--set messages", test_set_messages},
        {"emit", test_emit},
        {"describe", test_describe},
        {"edit distance and suggest", test_edit_distance_and_suggest},
    };
    for (size_t i = 0; s != NULL && i < G_N_ELEMENTS(tests); i++)
        if (CU_add_test(s, tests[i].name, tests[i].fn) == NULL)
            s = NULL;
    if (s == NULL) {
        CU_cleanup_registry();
        return 1;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failures != 0 ? 1 : 0;
}
