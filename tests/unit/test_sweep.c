/* test_sweep.c: `archsim sweep` pieces: grid x zip expansion order and seeds, the sweep: block
 * and command-line lists together, KEY=V1,V2 parsing errors with their exact messages, the
 * child's argv, sweep.csv formatting (quoting, column order, failed rows), stats.json reading,
 * and the result of a point whose child dies by a signal or exits 3. */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "../../sim/cli/sweep.h"

static char *tmpdir;

static Sweep *sweep_of(const char *const *grids, const char *const *zips)
{
    Sweep *s = sweep_new();
    GError *e = NULL;
    for (int pass = 0; pass < 2; pass++)
        for (const char *const *g = pass ? zips : grids; g && *g; g++) {
            SweepAxis *a = sweep_axis_parse(pass ? "--zip" : "--grid", *g, &e);
            CU_ASSERT_PTR_NOT_NULL_FATAL(a);
            CU_ASSERT_TRUE_FATAL(sweep_add_axis(s, a, true, &e));
        }
    CU_ASSERT_TRUE_FATAL(sweep_check(s, NULL, &e));
    s->stats = g_strsplit(SWEEP_DEFAULT_STATS, ",", -1);
    return s;
}

/* "v1 v2 ..." of point i */
static char *point_text(const Sweep *s, guint i)
{
    GString *o = g_string_new(NULL);
    for (guint k = 0; k < s->axes->len; k++)
        g_string_append_printf(o, "%s%s", k ? " " : "", sweep_point_value(s, i, k));
    return g_string_free(o, FALSE);
}

static void test_order(void)
{
    /* zip given first still comes last; the last axis varies fastest */
    const char *grids[] = { "a=1,2", "b=x,y,z", NULL };
    const char *zips[] = { "c=p,q", "d=r,s", NULL };
    Sweep *s = sweep_of(grids, zips);
    CU_ASSERT_EQUAL(sweep_n_points(s), 12);
    static const char *const want[] = {
        "1 x p r", "1 x q s", "1 y p r", "1 y q s", "1 z p r", "1 z q s",
        "2 x p r", "2 x q s", "2 y p r", "2 y q s", "2 z p r", "2 z q s",
    };
    for (guint i = 0; i < 12; i++) {
        char *t = point_text(s, i);
        CU_ASSERT_STRING_EQUAL(t, want[i]);
        g_free(t);
        /* issue 16 item 5: common random numbers by default: every point gets the base seed */
        CU_ASSERT_EQUAL(sweep_point_seed(s, i), 1);
    }
    const SweepAxis *first = g_ptr_array_index(s->axes, 0);
    CU_ASSERT_STRING_EQUAL(first->key, "a");
    CU_ASSERT_EQUAL(s->seeds, SWEEP_SEEDS_COMMON);
    /* --seeds per-point: point i gets base + i, the rule before issue 16 */
    s->seeds = SWEEP_SEEDS_PER_POINT;
    for (guint i = 0; i < 12; i++)
        CU_ASSERT_EQUAL(sweep_point_seed(s, i), 1 + i);
    sweep_free(s);

    SweepSeeds m = SWEEP_SEEDS_COMMON;
    CU_ASSERT_TRUE(sweep_seeds_parse("per-point", &m) && m == SWEEP_SEEDS_PER_POINT);
    CU_ASSERT_TRUE(sweep_seeds_parse("common", &m) && m == SWEEP_SEEDS_COMMON);
    CU_ASSERT_FALSE(sweep_seeds_parse("per_point", &m));
    CU_ASSERT_FALSE(sweep_seeds_parse("", &m));
    CU_ASSERT_STRING_EQUAL(sweep_seeds_name(SWEEP_SEEDS_PER_POINT), "per-point");
    CU_ASSERT_STRING_EQUAL(sweep_seeds_name(SWEEP_SEEDS_COMMON), "common");

    /* zip alone; base seed */
    const char *zips2[] = { "l1d.size=32KiB,64KiB,1MiB", "l1d.assoc=4,8,16", NULL };
    s = sweep_of(NULL, zips2);
    s->base_seed = 100;
    CU_ASSERT_EQUAL(sweep_n_points(s), 3);
    char *t = point_text(s, 2);
    CU_ASSERT_STRING_EQUAL(t, "1MiB 16");
    g_free(t);
    CU_ASSERT_EQUAL(sweep_point_seed(s, 2), 100);
    s->seeds = SWEEP_SEEDS_PER_POINT;
    CU_ASSERT_EQUAL(sweep_point_seed(s, 2), 102);
    sweep_free(s);

    /* a swept seed replaces the rule, common or per-point */
    const char *grids3[] = { "seed=7,9", "system.cores=1,2", NULL };
    s = sweep_of(grids3, NULL);
    for (int mode = 0; mode < 2; mode++) {
        s->seeds = mode ? SWEEP_SEEDS_PER_POINT : SWEEP_SEEDS_COMMON;
        CU_ASSERT_EQUAL(sweep_point_seed(s, 0), 7);
        CU_ASSERT_EQUAL(sweep_point_seed(s, 1), 7);
        CU_ASSERT_EQUAL(sweep_point_seed(s, 2), 9);
    }
    sweep_free(s);
}

static void test_values_split(void)
{
    GError *e = NULL;
    SweepAxis *a = sweep_axis_parse("--grid", "k= [1,2], {a: 1, b: 2} ,'x,y',\"q\\\",r\",8B", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(a->values->len, 5);
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(a->values, 0), "[1,2]");
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(a->values, 1), "{a: 1, b: 2}");
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(a->values, 2), "'x,y'");
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(a->values, 3), "\"q\\\",r\"");
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(a->values, 4), "8B");
    CU_ASSERT_FALSE(a->zip);
    sweep_axis_free(a);
}

static void expect_parse_error(const char *opt, const char *text, const char *msg)
{
    GError *e = NULL;
    SweepAxis *a = sweep_axis_parse(opt, text, &e);
    CU_ASSERT_PTR_NULL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_USAGE);
    if (strcmp(e->message, msg) != 0)
        fprintf(stderr, "\n  got:      %s\n  expected: %s\n", e->message, msg);
    CU_ASSERT_STRING_EQUAL(e->message, msg);
    g_error_free(e);
    sweep_axis_free(a);
}

static void test_parse_errors(void)
{
    expect_parse_error("--grid", "system.cores",
                       "archsim sweep: --grid system.cores: expected KEY=V1,V2,...");
    expect_parse_error("--grid", "=1,2", "archsim sweep: --grid =1,2: empty KEY");
    expect_parse_error("--zip", "system.cores=1,,4",
                       "archsim sweep: --zip system.cores=1,,4: empty value (item 2)");
    expect_parse_error("--grid", "system.cores=",
                       "archsim sweep: --grid system.cores=: empty value (item 1)");
    expect_parse_error("--grid", "l1d.size=[1,2",
                       "archsim sweep: --grid l1d.size=[1,2: unbalanced brackets or quotes");
    expect_parse_error("--grid", "l1d.size='1,2",
                       "archsim sweep: --grid l1d.size='1,2: unbalanced brackets or quotes");
    expect_parse_error("--grid", "seed=1,x",
                       "archsim sweep: --grid seed=1,x: seed: 'x' is not a non-negative integer");
}

static void expect_check_error(const char *const *grids, const char *const *zips, const char *msg)
{
    Sweep *s = sweep_new();
    GError *e = NULL;
    bool ok = true;
    for (int pass = 0; pass < 2 && ok; pass++)
        for (const char *const *g = pass ? zips : grids; g && *g && ok; g++) {
            SweepAxis *a = sweep_axis_parse(pass ? "--zip" : "--grid", *g, &e);
            ok = a && sweep_add_axis(s, a, true, &e);
        }
    if (ok) {
        CfgNode *root = cfg_load_string("t.yaml", "system: {cores: 2}\n", NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(root);
        ok = sweep_check(s, root, &e);
        cfg_node_free(root);
    }
    CU_ASSERT_FALSE(ok);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_USAGE);
    if (strcmp(e->message, msg) != 0)
        fprintf(stderr, "\n  got:      %s\n  expected: %s\n", e->message, msg);
    CU_ASSERT_STRING_EQUAL(e->message, msg);
    g_error_free(e);
    sweep_free(s);
}

static void test_check_errors(void)
{
    const char *twice[] = { "system.cores=1,2", "system.cores=4", NULL };
    expect_check_error(twice, NULL, "archsim sweep: system.cores is swept twice");
    const char *seeds[] = { "seed=1,2", NULL };
    const char *simseed[] = { "sim.seed=3", NULL };
    expect_check_error(seeds, simseed, "archsim sweep: sim.seed is swept twice");
    const char *zips[] = { "l1d.size=1KiB,2KiB,4KiB", "l1d.assoc=1,2", NULL };
    expect_check_error(NULL, zips, "archsim sweep: --zip lists differ in length: "
                                   "l1d.size has 3 values, l1d.assoc has 2");
    expect_check_error(NULL, NULL,
                       "archsim sweep: nothing to sweep; give --grid, --zip or a sweep: block");
    /* the number of points is bounded before it is used: 2048 x 2048 x 1024 is 2^32 points,
     * which a 32-bit count wrapped to a sweep of none (exit 0, an empty sweep.csv) */
    GString *v2048 = g_string_new(NULL), *v1024 = g_string_new(NULL);
    for (int i = 1; i <= 2048; i++) {
        g_string_append_printf(v2048, "%s%d", i > 1 ? "," : "", i);
        if (i <= 1024)
            g_string_append_printf(v1024, "%s%d", i > 1 ? "," : "", i);
    }
    char *ga = g_strconcat("core.ops=", v2048->str, NULL);
    char *gb = g_strconcat("core.words=", v2048->str, NULL);
    char *gc = g_strconcat("system.cores=", v1024->str, NULL);
    const char *wrap[] = { ga, gb, gc, NULL };
    expect_check_error(wrap, NULL, "archsim sweep: 2048 x 2048 x 1024 points, more than a sweep "
                                   "may have (at most 1000000); split it into several sweeps");
    const char *zip_wrap[] = { gb, gc, NULL };
    const char *zip_big[] = { ga, NULL };
    expect_check_error(zip_wrap, zip_big, "archsim sweep: 2048 x 1024 x 2048 (--zip) points, more "
                       "than a sweep may have (at most 1000000); split it into several sweeps");
    /* at the limit itself: 1000 x 1000 points are a sweep */
    GString *v1000 = g_string_new(NULL);
    for (int i = 1; i <= 1000; i++)
        g_string_append_printf(v1000, "%s%d", i > 1 ? "," : "", i);
    char *ka = g_strconcat("core.ops=", v1000->str, NULL);
    char *kb = g_strconcat("core.words=", v1000->str, NULL);
    Sweep *s = sweep_new();
    GError *e = NULL;
    SweepAxis *a = sweep_axis_parse("--grid", ka, &e);
    CU_ASSERT_TRUE(a && sweep_add_axis(s, a, true, &e));
    a = sweep_axis_parse("--grid", kb, &e);
    CU_ASSERT_TRUE(a && sweep_add_axis(s, a, true, &e));
    CU_ASSERT_TRUE(sweep_check(s, NULL, &e));
    CU_ASSERT_EQUAL(sweep_n_points(s), 1000000);
    g_clear_error(&e);
    sweep_free(s);
    g_free(ka);
    g_free(kb);
    g_string_free(v1000, TRUE);
    /* per-point seeds stay seeds `archsim run --seed` takes: base + 2 past 2^63 - 1 is refused,
     * base + 1 at it is not, and a swept seed needs no room */
    for (int k = 0; k < 3; k++) {
        s = sweep_new();
        s->seeds = SWEEP_SEEDS_PER_POINT;
        s->base_seed = (uint64_t)G_MAXINT64 - (k == 1 ? 2 : 1);
        a = sweep_axis_parse("--grid", k == 2 ? "seed=1,2,3" : "system.cores=1,2,3", &e);
        CU_ASSERT_TRUE(a && sweep_add_axis(s, a, true, &e));
        bool ok = sweep_check(s, NULL, &e);
        CU_ASSERT_EQUAL(ok, k != 0);
        if (k == 0)
            CU_ASSERT_TRUE(e && !strcmp(e->message, "archsim sweep: per-point seeds: the last of "
                                        "3 points would run with seed 9223372036854775806 + 2, "
                                        "past the largest seed (9223372036854775807)"));
        g_clear_error(&e);
        sweep_free(s);
    }
    g_free(ga);
    g_free(gb);
    g_free(gc);
    g_string_free(v2048, TRUE);
    g_string_free(v1024, TRUE);
}

static void test_yaml_block(void)
{
    GError *e = NULL;
    CfgNode *root = cfg_load_string("s.yaml",
        "system: {cores: 2}\n"
        "sweep:\n"
        "  grid: {system.cores: [1, 2, 4], core.spacing: [8B, 64B]}\n"
        "  zip: {l1d.size: [1KiB, '2KiB'], l1d.assoc: [1, 2]}\n"
        "  stats: [sim.cycles, '*.ipc']\n"
        "  seeds: per-point\n", NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    Sweep *s = sweep_new();
    CU_ASSERT_TRUE_FATAL(sweep_add_yaml(s, cfg_map_get(root, "sweep"), &e));
    CU_ASSERT_EQUAL(s->seeds, SWEEP_SEEDS_PER_POINT);   /* the block's seeds: key */
    /* the command line replaces a block's list in place and adds new keys after it */
    SweepAxis *a = sweep_axis_parse("--grid", "system.cores=8,16", &e);
    CU_ASSERT_TRUE_FATAL(sweep_add_axis(s, a, true, &e));
    a = sweep_axis_parse("--grid", "l1d.protocol=msi,mesi", &e);
    CU_ASSERT_TRUE_FATAL(sweep_add_axis(s, a, true, &e));
    CU_ASSERT_TRUE_FATAL(sweep_check(s, root, &e));
    CU_ASSERT_EQUAL(sweep_n_points(s), 2 * 2 * 2 * 2);
    const char *keys[] = { "system.cores", "core.spacing", "l1d.protocol", "l1d.size", "l1d.assoc" };
    for (guint k = 0; k < 5; k++)
        CU_ASSERT_STRING_EQUAL(((SweepAxis *)g_ptr_array_index(s->axes, k))->key, keys[k]);
    char *t = point_text(s, 1);
    CU_ASSERT_STRING_EQUAL(t, "8 8B msi 2KiB 2");
    g_free(t);
    CU_ASSERT_STRING_EQUAL(s->stats[1], "*.ipc");
    /* a quoted YAML value stays quoted for --set */
    s->dir = g_strdup("out");
    s->exe = g_strdup("/bin/archsim");
    s->config = g_strdup("c.yaml");
    g_ptr_array_add(s->sets, g_strdup("core.ops=10"));
    char **argv = sweep_point_argv(s, 1);
    char *joined = g_strjoinv(" ", argv);
    CU_ASSERT_STRING_EQUAL(joined, "/bin/archsim run c.yaml -q -o out/point-0001 --seed 2 "
                                   "--set core.ops=10 --set system.cores=8 --set core.spacing=8B "
                                   "--set l1d.protocol=msi --set l1d.size=\"2KiB\" "
                                   "--set l1d.assoc=2");
    g_free(joined);
    g_strfreev(argv);
    sweep_free(s);

    /* errors name the place */
    static const struct { const char *yaml, *msg; } bad[] = {
        { "sweep: {grid: {a: []}}\n", "b.yaml:1:19: sweep.grid.a: empty list" },
        { "sweep: {gird: {a: [1]}}\n",
          "b.yaml:1:9: sweep.gird: unknown key; expected grid, zip, stats or seeds" },
        { "sweep: {grid: {a: [1]}, seeds: random}\n",
          "b.yaml:1:32: sweep.seeds: expected common (every point gets the base seed) or "
          "per-point (point i gets base + i)" },
        { "sweep: {grid: [a]}\n", "b.yaml:1:15: sweep.grid: expected a map of KEY: [V1, V2, ...]" },
        { "sweep: {grid: {a: [[1]]}}\n", "b.yaml:1:20: sweep.grid.a: expected a list of values" },
        { "sweep: {grid: {seed: [1, x]}}\n",
          "b.yaml:1:22: seed: 'x' is not a non-negative integer" },
        /* the point's --set KEY=VALUE would split at the '=' and set l1d.size to "4KiB=1" */
        { "sweep: {grid: {\"l1d.size=4KiB\": [1]}}\n",
          "b.yaml:1:16: sweep.grid: 'l1d.size=4KiB': a key to sweep cannot hold '='" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        CfgNode *r = cfg_load_string("b.yaml", bad[i].yaml, NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        s = sweep_new();
        CU_ASSERT_FALSE(sweep_add_yaml(s, cfg_map_get(r, "sweep"), &e));
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CONFIG);
        if (strcmp(e->message, bad[i].msg) != 0)
            fprintf(stderr, "\n  got:      %s\n  expected: %s\n", e->message, bad[i].msg);
        CU_ASSERT_STRING_EQUAL(e->message, bad[i].msg);
        g_clear_error(&e);
        sweep_free(s);
        cfg_node_free(r);
    }
    cfg_node_free(root);

    /* a quoted value reaches the point as it is written, whatever it holds: a raw line break
     * in the double-quoted --set value folded to a space ("a\nb" ran as "a b") */
    root = cfg_load_string("q.yaml",
        "sweep: {grid: {core.name: [\"a\\nb\", \"c\\td\\\\e\", \"f\\x01\\\"g\", '']}}\n",
        NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    s = sweep_new();
    CU_ASSERT_TRUE_FATAL(sweep_add_yaml(s, cfg_map_get(root, "sweep"), &e));
    cfg_map_remove(root, "sweep");
    CU_ASSERT_TRUE_FATAL(sweep_check(s, root, &e));
    s->dir = g_strdup("out");
    s->config = g_strdup("q.yaml");
    const char *want[] = { "a\nb", "c\td\\e", "f\x01\"g", "" };
    CU_ASSERT_EQUAL_FATAL(sweep_n_points(s), 4);
    for (guint i = 0; i < 4; i++) {
        CU_ASSERT_STRING_EQUAL(sweep_point_value(s, i, 0), want[i]);
        argv = sweep_point_argv(s, i);
        guint n = g_strv_length(argv);
        CfgNode *c = cfg_node_copy(root);
        CU_ASSERT_TRUE(cfg_apply_set(c, argv[n - 1], &e));
        const CfgNode *v = cfg_map_get(cfg_map_get(c, "core"), "name");
        CU_ASSERT_TRUE(v && v->quoted && !strcmp(v->scalar, want[i]));
        cfg_node_free(c);
        g_strfreev(argv);
    }
    sweep_free(s);
    cfg_node_free(root);
}

static void fake_result(SweepResult *r, int code, const char *msg, const char *const *nv)
{
    memset(r, 0, sizeof *r);
    r->exit_code = code;
    r->message = g_strdup(msg);
    r->names = g_ptr_array_new_with_free_func(g_free);
    r->values = g_ptr_array_new_with_free_func(g_free);
    for (; nv && *nv; nv += 2) {
        g_ptr_array_add(r->names, g_strdup(nv[0]));
        g_ptr_array_add(r->values, g_strdup(nv[1]));
    }
}

static void test_csv(void)
{
    GString *o = g_string_new(NULL);
    sweep_csv_field(o, "plain");
    g_string_append_c(o, '|');
    sweep_csv_field(o, "a,b");
    g_string_append_c(o, '|');
    sweep_csv_field(o, "say \"hi\"");
    g_string_append_c(o, '|');
    sweep_csv_field(o, "");
    CU_ASSERT_STRING_EQUAL(o->str, "plain|\"a,b\"|\"say \"\"hi\"\"\"|");

    const char *grids[] = { "system.cores=2,4", "core.spacing=8B,'a,b'", NULL };
    Sweep *s = sweep_of(grids, NULL);
    s->seeds = SWEEP_SEEDS_PER_POINT;   /* the seed column holds each point's own seed */
    SweepResult r[4];
    const char *two[] = { "sim.cycles", "36108", "core0.ipc", "0.5", "core1.ipc",
                          "0.25000000000000001", "l1d0.miss_rate", "0", NULL };
    const char *four[] = { "sim.cycles", "93126", "core0.ipc", "1", "core1.ipc", "2",
                           "core2.ipc", "3", "core3.ipc", "3.1010626000000002e-05",
                           "l1d0.miss_rate", "0.5", "bus.transactions", "12003", NULL };
    fake_result(&r[0], 0, "", two);
    fake_result(&r[1], 78, "--set x: bad, \"very\"", NULL);
    fake_result(&r[2], 0, "", four);
    fake_result(&r[3], 0, "", four);
    r[3].exit_code = -1;
    r[3].signal = 11;
    g_free(r[3].message);
    r[3].message = g_strdup("killed by signal 11 (Segmentation fault)");
    GPtrArray *cols = sweep_csv_columns(s, r);
    g_string_truncate(o, 0);
    sweep_csv_header(s, cols, o);
    for (guint i = 0; i < 4; i++)
        sweep_csv_row(s, i, &r[i], cols, o);
    CU_ASSERT_STRING_EQUAL(o->str,
        "system.cores,core.spacing,seed,status,message,sim.cycles,core0.ipc,core1.ipc,core2.ipc,"
        "core3.ipc,l1d0.miss_rate,bus.transactions\n"
        "2,8B,1,ok,,36108,0.5,0.25000000000000001,,,0,\n"
        "2,\"'a,b'\",2,exit 78,\"--set x: bad, \"\"very\"\"\",,,,,,,\n"
        "4,8B,3,ok,,93126,1,2,3,3.1010626000000002e-05,0.5,12003\n"
        "4,\"'a,b'\",4,signal 11,killed by signal 11 (Segmentation fault),,,,,,,\n");
    if (strstr(o->str, "signal 11,killed") == NULL)
        fprintf(stderr, "\n%s", o->str);
    g_ptr_array_free(cols, TRUE);
    for (guint i = 0; i < 4; i++)
        sweep_result_clear(&r[i]);
    /* a swept seed is the seed column, not a key column */
    sweep_free(s);
    const char *grids2[] = { "seed=5,6", NULL };
    s = sweep_of(grids2, NULL);
    fake_result(&r[0], 0, "", two);
    cols = sweep_csv_columns(s, r);
    g_string_truncate(o, 0);
    sweep_csv_header(s, cols, o);
    sweep_csv_row(s, 0, &r[0], cols, o);
    CU_ASSERT_STRING_EQUAL(o->str, "seed,status,message,sim.cycles,core0.ipc,core1.ipc,"
                                   "l1d0.miss_rate\n5,ok,,36108,0.5,0.25000000000000001,0\n");
    sweep_result_clear(&r[0]);
    g_ptr_array_free(cols, TRUE);
    sweep_free(s);
    g_string_free(o, TRUE);
}

static void test_stats_json(void)
{
    GPtrArray *n = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *v = g_ptr_array_new_with_free_func(g_free);
    CU_ASSERT_TRUE(sweep_parse_stats_json("{\n  \"sim.cycles\": 93126,\n  \"sim.seconds\": "
                                          "3.1010626000000002e-05,\n  \"a::0-0\": 0\n}\n", n, v));
    CU_ASSERT_EQUAL_FATAL(n->len, 3);
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(n, 1), "sim.seconds");
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(v, 1), "3.1010626000000002e-05");
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(n, 2), "a::0-0");
    CU_ASSERT_TRUE(sweep_parse_stats_json("{}", n, v));
    CU_ASSERT_FALSE(sweep_parse_stats_json("{\"a\": 1,", n, v));
    CU_ASSERT_FALSE(sweep_parse_stats_json("[1]", n, v));
    CU_ASSERT_FALSE(sweep_parse_stats_json("{\"a\" 1}", n, v));
    g_ptr_array_free(n, TRUE);
    g_ptr_array_free(v, TRUE);
}

/* a stand-in for archsim: a script that writes to stderr and dies as told */
static Sweep *fake_exe_sweep(const char *body)
{
    char *exe = g_build_filename(tmpdir, "fake.sh", NULL);
    char *text = g_strdup_printf("#!/bin/sh\n%s\n", body);
    CU_ASSERT_TRUE(g_file_set_contents(exe, text, -1, NULL));
    g_chmod(exe, 0755);
    g_free(text);
    const char *grids[] = { "system.cores=1,2", NULL };
    Sweep *s = sweep_of(grids, NULL);
    s->exe = exe;
    s->config = g_strdup("c.yaml");
    s->dir = g_build_filename(tmpdir, "sw", NULL);
    g_mkdir_with_parents(s->dir, 0777);
    return s;
}

static void test_point_failures(void)
{
    SweepResult r;
    Sweep *s = fake_exe_sweep("echo 'first line' >&2; echo second >&2; kill -SEGV $$");
    sweep_run_point(s, 1, &r);
    CU_ASSERT_EQUAL(r.signal, 11);
    CU_ASSERT_EQUAL(r.exit_code, -1);
    CU_ASSERT_STRING_EQUAL(r.message, "first line");
    char *st = sweep_status_text(&r);
    CU_ASSERT_STRING_EQUAL(st, "signal 11");
    g_free(st);
    char *kept = g_build_filename(s->dir, "point-0001.stderr", NULL);
    CU_ASSERT_TRUE(g_file_test(kept, G_FILE_TEST_EXISTS));   /* a failure's stderr is kept */
    g_free(kept);
    sweep_result_clear(&r);
    sweep_free(s);

    s = fake_exe_sweep("kill -KILL $$");
    sweep_run_point(s, 0, &r);
    CU_ASSERT_EQUAL(r.signal, 9);
    CU_ASSERT_STRING_EQUAL(r.message, "killed by signal 9 (Killed)");
    sweep_result_clear(&r);
    sweep_free(s);

    s = fake_exe_sweep("echo 'deadlock: nothing completed' >&2; exit 3");
    sweep_run_point(s, 0, &r);
    CU_ASSERT_EQUAL(r.exit_code, 3);
    CU_ASSERT_EQUAL(r.signal, 0);
    CU_ASSERT_STRING_EQUAL(r.message, "deadlock: nothing completed");
    st = sweep_status_text(&r);
    CU_ASSERT_STRING_EQUAL(st, "exit 3");
    g_free(st);
    sweep_result_clear(&r);
    /* not done: no run.json */
    CU_ASSERT_FALSE(sweep_point_done(s, 0, &r));
    sweep_free(s);

    /* exit 0 and a stats.json: ok with its numbers; stderr file removed when empty */
    s = fake_exe_sweep("mkdir -p \"$5\" && printf '{\\n  \"sim.cycles\": 42\\n}\\n' > \"$5/stats.json\""
                       " && echo '{}' > \"$5/run.json\"");
    sweep_run_point(s, 1, &r);
    CU_ASSERT_EQUAL(r.exit_code, 0);
    CU_ASSERT_STRING_EQUAL(r.message, "");
    CU_ASSERT_EQUAL_FATAL(r.values->len, 1);
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(r.values, 0), "42");
    sweep_result_clear(&r);
    char *errp = g_build_filename(s->dir, "point-0001.stderr", NULL);
    CU_ASSERT_FALSE(g_file_test(errp, G_FILE_TEST_EXISTS));
    g_free(errp);
    CU_ASSERT_TRUE(sweep_point_done(s, 1, &r));
    CU_ASSERT_TRUE(r.resumed);
    sweep_result_clear(&r);
    sweep_free(s);
}

static void test_key_path_error(void)
{
    Sweep *s = sweep_new();
    GError *e = NULL;
    SweepAxis *a = sweep_axis_parse("--grid", "system.cores.x=1,2", &e);
    CU_ASSERT_TRUE_FATAL(sweep_add_axis(s, a, true, &e));
    CfgNode *root = cfg_load_string("t.yaml", "system: {cores: 2}\n", NULL, &e);
    CU_ASSERT_FALSE(sweep_check(s, root, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_USAGE);
    CU_ASSERT_TRUE(g_str_has_prefix(e->message, "archsim sweep: system.cores.x: --set "));
    g_error_free(e);
    cfg_node_free(root);
    sweep_free(s);
}

int main(void)
{
    tmpdir = g_dir_make_tmp("archsim-sweep-XXXXXX", NULL);
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("sweep", NULL, NULL);
    CU_add_test(s, "grid x zip order, seeds", test_order);
    CU_add_test(s, "values split on top-level commas", test_values_split);
    CU_add_test(s, "KEY=V1,V2 errors, exact messages", test_parse_errors);
    CU_add_test(s, "sweep checks, exact messages", test_check_errors);
    CU_add_test(s, "a key --set cannot take", test_key_path_error);
    CU_add_test(s, "sweep: block, command line on top, child argv", test_yaml_block);
    CU_add_test(s, "sweep.csv: quoting, columns, failed rows", test_csv);
    CU_add_test(s, "stats.json reading", test_stats_json);
    CU_add_test(s, "points that crash, fail or succeed", test_point_failures);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    char *cmd = g_strdup_printf("rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    g_free(cmd);
    g_free(tmpdir);
    return f ? 1 : 0;
}
