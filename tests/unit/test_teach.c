/* test_teach.c: the coherence teaching views. The script-core language (good items, and every
 * bad one with its exact message); the three configs/teach/ scenarios run as `archsim run` would
 * and give the textbook differences between MSI, MESI and MOESI in the stats and in the --teach
 * table; the table's rules on a hand-made event stream; enum names in the text dump, the VCD
 * translate filter and .gtkw, and Perfetto's line-state tracks of a real run. */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "../../models/cpu/script.h"
#include "../../sim/error.h"
#include "../../sim/system.h"
#include "../../sim/cli/teach.h"

static char *tmpdir;

static const char *const protocols[] = { "msi", "mesi", "moesi" };

/* ---- helpers ---- */

static char *slurp(const char *path)
{
    char *text = NULL;
    return g_file_get_contents(path, &text, NULL, NULL) ? text : NULL;
}

/* Builds and runs a config file (with --set style overrides) into an optional dump. */
static SystemRun *run_config(const char *path, const char *set, TraceDump *td)
{
    GError *e = NULL;
    CfgNode *root = cfg_load_file(path, NULL, &e);
    if (root != NULL && set != NULL && !cfg_apply_set(root, set, &e))
        g_clear_pointer(&root, cfg_node_free);
    SystemRun *r = root ? system_build(root, -1, td, td ? trace_options(td) : NULL, &e) : NULL;
    if (r != NULL && !system_run(r, &e))
        g_clear_pointer(&r, system_free);
    if (e != NULL)
        fprintf(stderr, "\n%s: %s\n", path, e->message);
    g_clear_error(&e);
    return r;
}

static uint64_t stat_u(SystemRun *r, const char *name)
{
    StatSet s;
    stats_init(&s);
    system_collect_stats(r, &s);
    const StatEntry *e = stats_find(&s, name);
    uint64_t v = e ? (e->is_int ? e->u : (uint64_t)(e->d + 0.5)) : UINT64_MAX;
    stats_clear(&s);
    return v;
}

static TraceDump *open_dump(TraceFormat f, const char *name, char **path_out)
{
    char *path = g_build_filename(tmpdir, name, NULL);
    TraceOptions o = { .format = f, .path = path, .end = UINT64_MAX,
                       .sink = f == TRACE_FMT_TEACH ? &teach_consumer : NULL };
    GError *e = NULL;
    TraceDump *td = trace_open(&o, &e);
    if (e != NULL)
        fprintf(stderr, "\n%s\n", e->message);
    g_clear_error(&e);
    *path_out = path;
    return td;
}

/* Runs configs/teach/PROTO.yaml with the teaching table written to a file; returns the table. */
static char *teach_table(const char *proto, const char *set, SystemRun **run_out)
{
    char *cfg = g_strdup_printf("configs/teach/%s.yaml", proto);
    char *name = g_strdup_printf("%s.teach", proto), *path = NULL;
    TraceDump *td = open_dump(TRACE_FMT_TEACH, name, &path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    SystemRun *r = run_config(cfg, set, td);
    CU_ASSERT_PTR_NOT_NULL(r);
    CU_ASSERT_TRUE(trace_close(td, NULL));
    char *text = slurp(path);
    if (run_out != NULL)
        *run_out = r;
    else
        system_free(r);
    g_free(cfg);
    g_free(name);
    g_free(path);
    return text;
}

/* The table's rows (lines not starting with '#'), each split into cells at runs of two or more
 * spaces (no cell holds two spaces in a row). Row 0 is the header. */
static GPtrArray *table_rows(const char *text)
{
    GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
    GRegex *gap = g_regex_new("  +", 0, 0, NULL);
    char **lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l != NULL; l++) {
        if (**l == '#' || **l == '\0')
            continue;
        g_ptr_array_add(rows, g_regex_split(gap, g_strstrip(*l), 0));
    }
    g_strfreev(lines);
    g_regex_unref(gap);
    return rows;
}

/* Cell of row r (1 = first access) in the column headed `col`; "" if absent. */
static const char *cell(GPtrArray *rows, guint r, const char *col)
{
    char **head = g_ptr_array_index(rows, 0);
    for (guint c = 0; head[c] != NULL; c++)
        if (strcmp(head[c], col) == 0) {
            char **row = r < rows->len ? g_ptr_array_index(rows, r) : NULL;
            return row != NULL && c < g_strv_length(row) ? row[c] : "";
        }
    return "";
}

/* ---- the script language ---- */

static void test_script_good(void)
{
    GArray *items = g_array_new(FALSE, FALSE, sizeof(ScriptItem));
    GError *e = NULL;
    CU_ASSERT_TRUE_FATAL(script_parse(" c0@0:L:0x40, 200:S:0x40=7\n c2@1_000:s:64=0x10,", 8, 3,
                                      items, &e));
    CU_ASSERT_PTR_NULL(e);
    CU_ASSERT_EQUAL_FATAL(items->len, 3);
    ScriptItem *a = &g_array_index(items, ScriptItem, 0), *b = &g_array_index(items, ScriptItem, 1),
               *c = &g_array_index(items, ScriptItem, 2);
    CU_ASSERT_TRUE(a->core == 0 && a->item == 1 && a->cycle == 0 && a->addr == 0x40 && !a->store
                   && !a->has_value);
    CU_ASSERT_TRUE(b->core == -1 && b->item == 2 && b->cycle == 200 && b->store && b->has_value
                   && b->value == 7);
    CU_ASSERT_TRUE(c->core == 2 && c->item == 3 && c->cycle == 1000 && c->addr == 64 && c->store
                   && c->value == 0x10);
    /* 1-byte accesses: any address, values up to 255 */
    g_array_set_size(items, 0);
    CU_ASSERT_TRUE(script_parse("0:S:0x41=255", 1, 1, items, NULL));
    g_array_unref(items);
}

static void test_script_bad(void)
{
    static const struct { const char *script; uint64_t size; const char *msg; } cases[] = {
        { "0:L", 8, "script item 1 '0:L': expected CYCLE:L:ADDR or CYCLE:S:ADDR[=VALUE], "
                    "optionally after cN@" },
        { "0:L:0x40:7", 8, "script item 1 '0:L:0x40:7': expected CYCLE:L:ADDR or "
                           "CYCLE:S:ADDR[=VALUE], optionally after cN@" },
        { "x:L:0x40", 8, "script item 1 'x:L:0x40': cycle 'x' is not a decimal number" },
        { "0x10:L:0x40", 8, "script item 1 '0x10:L:0x40': cycle '0x10' is not a decimal number" },
        { "0:L:0x40 5:Q:0x40", 8, "script item 2 '5:Q:0x40': 'Q' is not L (load) or S (store)" },
        { "0:L:zz", 8, "script item 1 '0:L:zz': address 'zz' is not a number (0x... hex or "
                       "decimal)" },
        { "0:L:0x44", 8, "script item 1 '0:L:0x44': address 0x44 is not a multiple of the access "
                         "size (core.size = 8 B)" },
        { "0:L:0x40=3", 8, "script item 1 '0:L:0x40=3': a load takes no =VALUE" },
        { "0:S:0x40=q", 8, "script item 1 '0:S:0x40=q': value 'q' is not a number (0x... hex or "
                           "decimal)" },
        { "0:S:0x40=300", 1, "script item 1 '0:S:0x40=300': value 300 does not fit in 1 B "
                             "(core.size)" },
        { "c7@0:L:0x40", 8, "script item 1 'c7@0:L:0x40': there is no core 7 (cores 0 to 2)" },
        { "cx@0:L:0x40", 8, "script item 1 'cx@0:L:0x40': 'cx' is not a core prefix such as c0@" },
        { "@0:L:0x40", 8, "script item 1 '@0:L:0x40': '' is not a core prefix such as c0@" },
        { "c1@200:L:0x40 c1@100:L:0x40", 8,
          "script item 2 'c1@100:L:0x40': cycle 100 comes before core 1's previous item (1, cycle "
          "200); list each core's items in time order" },
        { "c0@200:L:0x40, 100:L:0x40", 8,   /* an item for every core is also core 0's */
          "script item 2 '100:L:0x40': cycle 100 comes before core 0's previous item (1, cycle "
          "200); list each core's items in time order" },
        { " , \n", 8, "script: no items; write e.g. \"c0@0:L:0x40, c1@100:S:0x40=7\"" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        GArray *items = g_array_new(FALSE, FALSE, sizeof(ScriptItem));
        GError *e = NULL;
        CU_ASSERT_FALSE(script_parse(cases[i].script, cases[i].size, 3, items, &e));
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT_TRUE(e->domain == ARCHSIM_CONFIG_ERROR && e->code == ARCHSIM_EXIT_CONFIG);
        if (strcmp(e->message, cases[i].msg) != 0)
            fprintf(stderr, "\n  got:      %s\n  expected: %s\n", e->message, cases[i].msg);
        CU_ASSERT_STRING_EQUAL(e->message, cases[i].msg);
        g_error_free(e);
        g_array_unref(items);
    }
}

/* A bad script stops the build at realize with exit code 78, naming the script's place (its
 * key's value, or the --set that gave it), the key and the item (issue 16 item 2: the place
 * once; the section's type: line before, which is not where the script is). */
static void test_script_config_error(void)
{
    GError *e = NULL;
    CfgNode *root = cfg_load_string("t.yaml", "system: {type: smp, cores: 2}\n"
                                    "core: {type: script-core, script: 'c0@0:L:0x40 c2@9:L:0x40'}\n",
                                    NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_PTR_NULL(system_build(root, -1, NULL, NULL, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(archsim_exit_code(e), 78);
    CU_ASSERT_STRING_EQUAL(e->message, "t.yaml:2:35: core.script: script item 2 'c2@9:L:0x40': "
                           "there is no core 2 (cores 0 to 1)");
    g_error_free(e);
}

/* Items play in order, each at its cycle or when the previous one completed; stores without a
 * value write (core+1)*100 + n; loads record what they read. */
static void test_script_core_runs(void)
{
    GError *e = NULL;
    CfgNode *root = cfg_load_string("t.yaml", "system: {type: smp, cores: 2}\n"
                                    "core:\n  type: script-core\n"
                                    "  script: c0@0:S:0x40 c0@1:S:0x80 c1@400:L:0x40 c1@400:L:0x80"
                                    " c1@900:S:0x40 c0@1000:S:0x80=77 c1@1500:L:0x80 5000:L:0x40\n",
                                    NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    SystemRun *r = system_build(root, -1, NULL, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_TRUE_FATAL(system_run(r, &e));
    Component *c0 = sim_component_find(&r->sim, "core0"), *c1 = sim_component_find(&r->sim, "core1");
    CU_ASSERT_EQUAL(script_core_items(c0), 4);
    CU_ASSERT_EQUAL(script_core_items(c1), 5);
    static const uint64_t want0[] = { 101, 102, 77, 201 }, want1[] = { 101, 102, 201, 77, 201 };
    for (size_t i = 0; i < 5; i++) {
        uint64_t v = 0;
        if (i < 4) {
            CU_ASSERT_TRUE(script_core_value(c0, i, &v));
            CU_ASSERT_EQUAL(v, want0[i]);
        }
        CU_ASSERT_TRUE(script_core_value(c1, i, &v));
        CU_ASSERT_EQUAL(v, want1[i]);
    }
    CU_ASSERT_FALSE(script_core_value(c0, 4, &(uint64_t){ 0 }));
    CU_ASSERT_EQUAL(stat_u(r, "core0.accesses"), 4);
    CU_ASSERT_EQUAL(stat_u(r, "core0.stores"), 3);
    CU_ASSERT_EQUAL(stat_u(r, "core0.loads"), 1);
    CU_ASSERT_EQUAL(stat_u(r, "core1.loads"), 4);
    /* the last item (for both cores) waits for cycle 5000: the run ends a few cycles later */
    CU_ASSERT_TRUE(stat_u(r, "core0.cycles") > 5000 && stat_u(r, "core0.cycles") < 5100);
    CU_ASSERT_TRUE(stat_u(r, "core1.cycles") > 5000 && stat_u(r, "core1.cycles") < 5100);
    CU_ASSERT_EQUAL(stat_u(r, "sim.cycles"), MAX(stat_u(r, "core0.cycles"),
                                                  stat_u(r, "core1.cycles")));
    system_free(r);
}

/* ---- the three teaching configs ---- */

/* The same script in all three, so that only the protocol differs. */
static void test_configs_share_the_script(void)
{
    char *first = NULL;
    for (size_t p = 0; p < G_N_ELEMENTS(protocols); p++) {
        char *path = g_strdup_printf("configs/teach/%s.yaml", protocols[p]);
        CfgNode *root = cfg_load_file(path, NULL, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(root);
        const CfgNode *s = cfg_map_get(cfg_map_get(root, "core"), "script");
        const CfgNode *proto = cfg_map_get(cfg_map_get(root, "l1d"), "protocol");
        CU_ASSERT_TRUE_FATAL(s != NULL && s->kind == CFG_SCALAR && proto != NULL);
        CU_ASSERT_STRING_EQUAL(proto->scalar, protocols[p]);
        if (first == NULL)
            first = g_strdup(s->scalar);
        else
            CU_ASSERT_STRING_EQUAL(s->scalar, first);
        cfg_node_free(root);
        g_free(path);
    }
    g_free(first);
}

/* The textbook differences, in the bus statistics. */
static void test_configs_stats(void)
{
    /* GetM, upgrades, cache_to_cache, memory_reads, writebacks, invalidations per protocol */
    static const uint64_t want[3][6] = {
        { 2, 2, 2, 4, 2, 2 },     /* MSI: S -> M needs a GetM even for a private line */
        { 1, 1, 2, 3, 2, 2 },     /* MESI: E -> M is silent */
        { 1, 1, 4, 1, 0, 2 },     /* MOESI: O supplies, memory is never written */
    };
    static const char *const names[] = { "bus.GetM", "bus.upgrades", "bus.cache_to_cache",
                                         "bus.memory_reads", "bus.writebacks",
                                         "bus.invalidations" };
    for (size_t p = 0; p < G_N_ELEMENTS(protocols); p++) {
        char *path = g_strdup_printf("configs/teach/%s.yaml", protocols[p]);
        SystemRun *r = run_config(path, NULL, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_EQUAL(stat_u(r, "bus.GetS"), 4);
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
            if (stat_u(r, names[i]) != want[p][i])
                fprintf(stderr, "\n  %s %s = %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT,
                        protocols[p], names[i], stat_u(r, names[i]), want[p][i]);
            CU_ASSERT_EQUAL(stat_u(r, names[i]), want[p][i]);
        }
        /* every core played its items: c0 three, c1 two, c2 one */
        CU_ASSERT_EQUAL(stat_u(r, "core0.accesses"), 3);
        CU_ASSERT_EQUAL(stat_u(r, "core1.accesses"), 2);
        CU_ASSERT_EQUAL(stat_u(r, "core2.accesses"), 1);
        uint64_t v = 0;
        CU_ASSERT_TRUE(script_core_value(sim_component_find(&r->sim, "core2"), 0, &v));
        CU_ASSERT_EQUAL(v, 101);     /* c2 reads what c0 wrote, from wherever it comes */
        system_free(r);
        g_free(path);
    }
}

/* The --teach rows of the six steps, as configs/teach/README.md shows them. */
static void test_configs_teach_rows(void)
{
    /* per protocol and step: bus, data from, l1d0 l1d1 l1d2, memory */
    static const char *const want[3][6][6] = {
        { { "GetS", "memory", "S", "I", "I", "fresh" },
          { "GetM", "memory", "M", "I", "I", "stale" },        /* the upgrade */
          { "GetS", "l1d0", "S", "S", "I", "fresh" },          /* M -> S writes back */
          { "GetS", "memory", "S", "S", "S", "fresh" },
          { "GetM", "memory", "I", "M", "I", "stale" },
          { "GetS", "l1d1", "S", "S", "I", "fresh" } },
        { { "GetS", "memory", "E", "I", "I", "fresh" },
          { "-", "own copy", "M", "I", "I", "stale" },         /* E -> M: no bus at all */
          { "GetS", "l1d0", "S", "S", "I", "fresh" },
          { "GetS", "memory", "S", "S", "S", "fresh" },
          { "GetM", "memory", "I", "M", "I", "stale" },
          { "GetS", "l1d1", "S", "S", "I", "fresh" } },
        { { "GetS", "memory", "E", "I", "I", "fresh" },
          { "-", "own copy", "M", "I", "I", "stale" },
          { "GetS", "l1d0", "O", "S", "I", "stale" },          /* M -> O, no write-back */
          { "GetS", "l1d0", "O", "S", "S", "stale" },          /* the owner supplies again */
          { "GetM", "l1d0", "I", "M", "I", "stale" },
          { "GetS", "l1d1", "S", "O", "I", "stale" } },
    };
    static const char *const access[6] = { "core0 load 0x40", "core0 store 0x40",
                                           "core1 load 0x40", "core2 load 0x40",
                                           "core1 store 0x40", "core0 load 0x40" };
    static const char *const value[6] = { "0", "101", "101", "101", "201", "201" };
    static const char *const cols[6] = { "bus", "data from", "l1d0", "l1d1", "l1d2", "memory" };
    for (size_t p = 0; p < G_N_ELEMENTS(protocols); p++) {
        char *text = teach_table(protocols[p], NULL, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        CU_ASSERT_TRUE(g_str_has_prefix(text, "# archsim --teach:"));
        GPtrArray *rows = table_rows(text);
        CU_ASSERT_EQUAL(rows->len, 7);
        char **head = g_ptr_array_index(rows, 0);
        CU_ASSERT_EQUAL(g_strv_length(head), 9);
        for (guint s = 1; s < rows->len && s <= 6; s++) {
            CU_ASSERT_STRING_EQUAL(cell(rows, s, "access"), access[s - 1]);
            CU_ASSERT_STRING_EQUAL(cell(rows, s, "value"), value[s - 1]);
            for (size_t c = 0; c < G_N_ELEMENTS(cols); c++) {
                if (strcmp(cell(rows, s, cols[c]), want[p][s - 1][c]) != 0)
                    fprintf(stderr, "\n  %s step %u %s: '%s', expected '%s'", protocols[p], s,
                            cols[c], cell(rows, s, cols[c]), want[p][s - 1][c]);
                CU_ASSERT_STRING_EQUAL(cell(rows, s, cols[c]), want[p][s - 1][c]);
            }
        }
        /* completion cycles increase; the table is aligned (the header's columns line up) */
        for (guint s = 2; s < rows->len; s++)
            CU_ASSERT_TRUE(g_ascii_strtoull(cell(rows, s, "cycle"), NULL, 10) >
                           g_ascii_strtoull(cell(rows, s - 1, "cycle"), NULL, 10));
        CU_ASSERT_PTR_NOT_NULL(strstr(text, "\ncycle  access"));
        g_ptr_array_unref(rows);
        g_free(text);
    }
}

/* The directory machine: hop counts, data sources, the home's state with owner and sharers. */
static void test_dir_teach_rows(void)
{
    static const char *const want[6][7] = {
        { "GetS 2-hop", "memory", "E", "I", "I", "E(l1d0)", "fresh" },
        { "-", "own copy", "M", "I", "I", "E(l1d0)", "stale" },     /* silent E -> M */
        { "GetS 3-hop", "l1d0", "S", "S", "I", "S_D{0,1}", "stale" }, /* forwarded to the owner */
        { "GetS 2-hop", "memory", "S", "S", "S", "S{0,1,2}", "fresh" },
        { "GetM 3-hop", "memory", "I", "M", "I", "M(l1d1)", "stale" }, /* waits for Inv-Acks */
        { "GetS 3-hop", "l1d1", "S", "S", "I", "S_D{0,1}", "stale" },
    };
    static const char *const cols[7] = { "request", "data from", "l1d0", "l1d1", "l1d2",
                                         "dir1", "memory" };
    char *text = teach_table("dir-mesi", NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    GPtrArray *rows = table_rows(text);
    CU_ASSERT_EQUAL(rows->len, 7);
    for (guint s = 1; s < rows->len && s <= 6; s++)
        for (size_t c = 0; c < G_N_ELEMENTS(cols); c++) {
            if (strcmp(cell(rows, s, cols[c]), want[s - 1][c]) != 0)
                fprintf(stderr, "\n  dir-mesi step %u %s: '%s', expected '%s'", s, cols[c],
                        cell(rows, s, cols[c]), want[s - 1][c]);
            CU_ASSERT_STRING_EQUAL(cell(rows, s, cols[c]), want[s - 1][c]);
        }
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "# dirN: the home directory's state"));
    g_ptr_array_unref(rows);
    g_free(text);
}

/* --trace-addr narrows the table too: another line's accesses leave no row. */
static void test_teach_addr_filter(void)
{
    char *path = g_build_filename(tmpdir, "narrow.teach", NULL);
    TraceOptions o = { .format = TRACE_FMT_TEACH, .sink = &teach_consumer, .path = path,
                       .end = UINT64_MAX, .addr_filter = true, .addr_lo = 0x80, .addr_hi = 0xbf };
    TraceDump *td = trace_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    SystemRun *r = run_config("configs/teach/mesi.yaml", NULL, td);
    CU_ASSERT_PTR_NOT_NULL(r);
    CU_ASSERT_TRUE(trace_close(td, NULL));
    char *text = slurp(path);
    CU_ASSERT_PTR_NOT_NULL(text != NULL ? strstr(text, "# no core access was traced") : NULL);
    system_free(r);
    g_free(text);
    g_free(path);
}

/* ---- the table's rules on a hand-made stream ---- */

/* What the hand-made components' events mean, as their classes would register it. */
static const TeachEvent core_events[] = { { "load", TEACH_LOAD }, { "store", TEACH_STORE },
                                          TEACH_EVENTS_END };
static const TeachEvent l1_events[] = { { "state", TEACH_STATE }, TEACH_EVENTS_END };
static const TeachEvent bus_events[] = { { "GetS", TEACH_BUS }, { "GetM", TEACH_BUS },
                                         { "PutM", TEACH_BUS }, { "supply", TEACH_SUPPLY },
                                         { "writeback", TEACH_WRITEBACK }, TEACH_EVENTS_END };

static void test_teach_rules(void)
{
    TraceTeach *t = teach_new();
    teach_register(t, 0, "core0", core_events);
    teach_register(t, 1, "l1d0", l1_events);
    teach_register(t, 2, "l1d1", l1_events);
    teach_register(t, 3, "bus", bus_events);
    TraceArg st1[] = { TARG_X("addr", 0x40), TARG_E("from", 0, "I"), TARG_E("to", 1, "IS") };
    TraceArg st2[] = { TARG_X("addr", 0x40), TARG_E("from", 3, "M"), TARG_E("to", 2, "S") };
    TraceArg st3[] = { TARG_X("addr", 0x40), TARG_E("from", 1, "IS"), TARG_E("to", 2, "S") };
    TraceArg putm[] = { TARG_X("addr", 0x1000), TARG_E("by", 0, "l1d0"),
                        TARG_E("supplier", 3, "-") };
    TraceArg supply[] = { TARG_X("addr", 0x40), TARG_E("cache", 1, "l1d1") };
    TraceArg gets[] = { TARG_X("addr", 0x40), TARG_E("by", 0, "l1d0"),
                        TARG_E("supplier", 1, "cache") };
    TraceArg load[] = { TARG_X("addr", 0x48), TARG_U("value", 7), TARG_S("cache", "l1d0") };
    TraceArg store[] = { TARG_X("addr", 0x48), TARG_X("value", 0xab), TARG_S("cache", "l1d0") };
    TraceArg wb[] = { TARG_X("addr", 0x40) };
    teach_event(t, 1, 2, "state", 0, st1, 3);
    teach_event(t, 3, 4, "PutM", 0, putm, 3);          /* eviction of another line */
    teach_event(t, 3, 5, "supply", 0, supply, 2);
    teach_event(t, 3, 5, "GetS", 0, gets, 3);
    teach_event(t, 2, 5, "state", 0, st2, 3);
    teach_event(t, 1, 11, "state", 0, st3, 3);
    teach_event(t, 0, 2, "load", 10, load, 3);         /* 0x48 lies in line 0x40 */
    teach_event(t, 0, 20, "store", 0, store, 3);       /* a hit: no bus, memory now stale */
    teach_event(t, 3, 30, "writeback", 0, wb, 1);
    teach_event(t, 0, 40, "load", 0, load, 3);
    CU_ASSERT_EQUAL(teach_rows(t), 3);
    GString *out = g_string_new(NULL);
    teach_write(t, out);
    GPtrArray *rows = table_rows(out->str);
    CU_ASSERT_EQUAL_FATAL(rows->len, 4);
    CU_ASSERT_STRING_EQUAL(cell(rows, 1, "cycle"), "12");
    CU_ASSERT_STRING_EQUAL(cell(rows, 1, "access"), "core0 load 0x48");
    CU_ASSERT_STRING_EQUAL(cell(rows, 1, "value"), "7");
    CU_ASSERT_STRING_EQUAL(cell(rows, 1, "bus"), "PutM 0x1000, GetS");
    CU_ASSERT_STRING_EQUAL(cell(rows, 1, "data from"), "l1d1");
    CU_ASSERT_STRING_EQUAL(cell(rows, 1, "l1d0"), "S");
    CU_ASSERT_STRING_EQUAL(cell(rows, 1, "l1d1"), "S");
    CU_ASSERT_STRING_EQUAL(cell(rows, 1, "memory"), "fresh");
    CU_ASSERT_STRING_EQUAL(cell(rows, 2, "value"), "0xab");
    CU_ASSERT_STRING_EQUAL(cell(rows, 2, "bus"), "-");
    CU_ASSERT_STRING_EQUAL(cell(rows, 2, "data from"), "own copy");
    CU_ASSERT_STRING_EQUAL(cell(rows, 2, "memory"), "stale");
    CU_ASSERT_STRING_EQUAL(cell(rows, 3, "memory"), "fresh");
    /* only components that changed state are columns; core0 and bus are not */
    CU_ASSERT_EQUAL(g_strv_length(g_ptr_array_index(rows, 0)), 8);
    g_ptr_array_unref(rows);
    g_string_free(out, TRUE);
    teach_free(t);
}

/* The view reads events only through the classes' registrations: another model's vocabulary
 * (a "rd"/"wr" core, a "line" state event, a "snoopGetS" transaction) gives the same table,
 * and the same names from a component that registered nothing are ignored. */
static void test_teach_registered_roles(void)
{
    static const TeachEvent my_core[] = { { "rd", TEACH_LOAD }, { "wr", TEACH_STORE },
                                          TEACH_EVENTS_END };
    static const TeachEvent my_l1[] = { { "line", TEACH_STATE }, TEACH_EVENTS_END };
    static const TeachEvent my_bus[] = { { "snoopGetS", TEACH_BUS }, TEACH_EVENTS_END };
    TraceTeach *t = teach_new();
    teach_register(t, 0, "cpu", my_core);
    teach_register(t, 1, "dc", my_l1);
    teach_register(t, 2, "ring", my_bus);
    teach_register(t, 3, "mute", NULL);
    TraceArg st[] = { TARG_X("addr", 0x40), TARG_E("from", 0, "I"), TARG_E("to", 2, "S") };
    TraceArg gets[] = { TARG_X("addr", 0x40), TARG_E("by", 1, "dc"),
                        TARG_E("supplier", 0, "memory") };
    TraceArg rd[] = { TARG_X("addr", 0x40), TARG_U("value", 3), TARG_S("cache", "dc") };
    teach_event(t, 2, 3, "snoopGetS", 0, gets, 3);
    teach_event(t, 1, 4, "line", 0, st, 3);
    teach_event(t, 0, 1, "rd", 5, rd, 3);
    teach_event(t, 3, 7, "load", 0, rd, 3);        /* not registered: no row */
    teach_event(t, 3, 7, "state", 0, st, 3);       /* not registered: no column */
    teach_event(t, 0, 8, "load", 0, rd, 3);        /* not in cpu's table: no row */
    teach_event(t, 0, 9, "wr", 0, rd, 3);
    CU_ASSERT_EQUAL(teach_rows(t), 2);
    GString *out = g_string_new(NULL);
    teach_write(t, out);
    GPtrArray *rows = table_rows(out->str);
    CU_ASSERT_EQUAL_FATAL(rows->len, 3);
    CU_ASSERT_STRING_EQUAL(cell(rows, 1, "access"), "cpu load 0x40");
    CU_ASSERT_STRING_EQUAL(cell(rows, 1, "bus"), "snoopGetS");
    CU_ASSERT_STRING_EQUAL(cell(rows, 1, "data from"), "memory");
    CU_ASSERT_STRING_EQUAL(cell(rows, 1, "dc"), "S");
    CU_ASSERT_STRING_EQUAL(cell(rows, 2, "access"), "cpu store 0x40");
    CU_ASSERT_STRING_EQUAL(cell(rows, 2, "memory"), "stale");
    CU_ASSERT_EQUAL(g_strv_length(g_ptr_array_index(rows, 0)), 7);   /* only dc is a column */
    g_ptr_array_unref(rows);
    g_string_free(out, TRUE);
    teach_free(t);
}

/* ---- the dumps of a real run show names ---- */

static void test_text_dump_names(void)
{
    char *path = NULL;
    TraceDump *td = open_dump(TRACE_FMT_TEXT, "msi.txt", &path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    SystemRun *r = run_config("configs/teach/msi.yaml", NULL, td);
    CU_ASSERT_TRUE(trace_close(td, NULL));
    char *text = slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    static const char *const lines[] = {
        "      0: l1d0: state addr=0x40 from=I to=IS_AD on=Load\n",
        "      3: bus: GetS addr=0x40 by=l1d0 shared=no supplier=memory\n",
        "    203: l1d0: state addr=0x40 from=SM_AD to=SM_D on=Own_GETM\n",
        "    403: l1d0: state addr=0x40 from=M to=S on=Other_GETS\n",
        "    403: bus: supply addr=0x40 cache=l1d0\n",
        "    403: bus: writeback addr=0x40\n",
        "    403: bus: GetS addr=0x40 by=l1d1 shared=yes supplier=cache\n",
        "    409: bus: data addr=0x40 to=l1d1 from=cache excl=no\n",
        "    400: core1: load addr=0x40 value=101 cache=l1d1 dur=10\n",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(lines); i++) {
        if (strstr(text, lines[i]) == NULL)
            fprintf(stderr, "\n  missing: %s", lines[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, lines[i]));
    }
    system_free(r);
    g_free(text);
    g_free(path);
}

/* VCD: the state wires hold codes, PATH.to.filter names them, PATH.gtkw attaches it. */
static void test_vcd_filters(void)
{
    char *path = NULL;
    TraceDump *td = open_dump(TRACE_FMT_VCD, "moesi.vcd", &path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    SystemRun *r = run_config("configs/teach/moesi.yaml", NULL, td);
    CU_ASSERT_TRUE(trace_close(td, NULL));
    char *to = g_strconcat(path, ".to.filter", NULL), *gtkw = g_strconcat(path, ".gtkw", NULL);
    char *on = g_strconcat(path, ".on.filter", NULL), *vcd = slurp(path);
    char *tf = slurp(to), *gf = slurp(gtkw), *of = slurp(on);
    CU_ASSERT_TRUE_FATAL(tf != NULL && gf != NULL && of != NULL && vcd != NULL);
    /* every stable MOESI state the scenario visits, by its protocol code */
    static const char *const states[] = { "\n0 I\n", " E\n", " M\n", " O\n", " S\n", " IS_AD\n" };
    for (size_t i = 0; i < G_N_ELEMENTS(states); i++)
        CU_ASSERT_PTR_NOT_NULL(strstr(tf, states[i]));
    CU_ASSERT_PTR_NOT_NULL(strstr(of, " Other_GETS\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(vcd, " to $end"));
    CU_ASSERT_PTR_NULL(strstr(vcd, "$var wire 64 / to $end"));   /* a narrow enum wire */
    CU_ASSERT_PTR_NOT_NULL(strstr(gf, "[dumpfile] \"moesi.vcd\"\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(gf, "[savefile] \"moesi.vcd.gtkw\"\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(gf, " moesi.vcd.to.filter\n@2024\n+{l1d0} l1d0.to["));
    CU_ASSERT_PTR_NOT_NULL(strstr(gf, "moesi.vcd.by.filter"));
    /* the bus's data source has its own names, so its `from` gets a second filter */
    char *from2 = g_strconcat(path, ".from.2.filter", NULL), *ff = slurp(from2);
    CU_ASSERT_PTR_NOT_NULL(ff != NULL ? strstr(ff, "\n0 memory\n") : NULL);
    system_free(r);
    g_free(ff);
    g_free(from2);
    g_free(vcd);
    g_free(tf);
    g_free(gf);
    g_free(of);
    g_free(to);
    g_free(on);
    g_free(gtkw);
    g_free(path);
}

/* Perfetto: one track per (cache, line) in the "line states" process, one slice per state. */
static void test_perfetto_states(void)
{
    char *path = NULL;
    TraceDump *td = open_dump(TRACE_FMT_PERFETTO, "moesi.json", &path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    SystemRun *r = run_config("configs/teach/moesi.yaml", NULL, td);
    CU_ASSERT_TRUE(trace_close(td, NULL));
    char *text = slurp(path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"pid\":2,\"args\":{\"name\":\"line states"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"args\":{\"name\":\"l1d0 0x40\"}"));
    /* l1d0 holds O from step 3 (cycle 403) until step 5's GetM (cycle 803) */
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "{\"name\":\"O\",\"cat\":\"state\",\"ph\":\"X\",\"ts\":403,"
                                        "\"dur\":400,\"pid\":2,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"from\":\"M\",\"to\":\"O\",\"on\":\"Other_GETS\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"state_tracks\":3"));
    char *py = g_find_program_in_path("python3");
    if (py != NULL) {
        /* the slices of each track follow each other without overlap (they must nest) */
        char *cmd = g_strdup_printf(
            "%s -c \"import json,sys\n"
            "d = json.load(open(sys.argv[1]))\n"
            "s = {}\n"
            "[s.setdefault(e['tid'], []).append((e['ts'], e['ts'] + e['dur'])) "
            "for e in d['traceEvents'] if e['ph'] == 'X' and e['pid'] == 2]\n"
            "assert len(s) == 3\n"
            "for v in s.values():\n"
            "    v.sort()\n"
            "    assert all(a[1] <= b[0] for a, b in zip(v, v[1:])), v\n\" '%s'", py, path);
        int status = 0;
        CU_ASSERT_TRUE(g_spawn_command_line_sync(cmd, NULL, NULL, &status, NULL));
        CU_ASSERT_TRUE(g_spawn_check_wait_status(status, NULL));
        g_free(cmd);
        g_free(py);
    }
    system_free(r);
    g_free(text);
    g_free(path);
}

/* pattern-core reports its accesses too: a migratory run gives one row per load and store. */
static void test_pattern_core_rows(void)
{
    GError *e = NULL;
    CfgNode *root = cfg_load_string("t.yaml", "system: {type: smp, cores: 3}\n"
                                    "core: {type: pattern-core, pattern: migratory, ops: 2, "
                                    "words: 1}\nl1d: {protocol: moesi}\n", NULL, &e);
    char *path = NULL;
    TraceDump *td = open_dump(TRACE_FMT_TEACH, "pattern.teach", &path);
    CU_ASSERT_TRUE_FATAL(root != NULL && td != NULL);
    SystemRun *r = system_build(root, -1, td, trace_options(td), &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_TRUE(system_run(r, &e));
    CU_ASSERT_TRUE(trace_close(td, NULL));
    char *text = slurp(path);
    GPtrArray *rows = table_rows(text);
    CU_ASSERT_EQUAL(rows->len, 1 + 3 * 2 * 2);      /* 3 cores x 2 read-modify-writes */
    bool from_cache = false;
    for (guint i = 1; i < rows->len; i++)
        from_cache = from_cache || g_str_has_prefix(cell(rows, i, "data from"), "l1d");
    CU_ASSERT_TRUE(from_cache);                     /* migratory data moves cache to cache */
    g_ptr_array_unref(rows);
    system_free(r);
    g_free(text);
    g_free(path);
}

int main(void)
{
    tmpdir = g_dir_make_tmp("archsim-teach-XXXXXX", NULL);
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("teach", NULL, NULL);
    CU_add_test(s, "script: good items", test_script_good);
    CU_add_test(s, "script: bad items, exact messages", test_script_bad);
    CU_add_test(s, "script: a bad script fails at realize with 78", test_script_config_error);
    CU_add_test(s, "script-core: order, default store tokens, loaded values",
                test_script_core_runs);
    CU_add_test(s, "configs/teach: one script, three protocols", test_configs_share_the_script);
    CU_add_test(s, "configs/teach: bus statistics per protocol", test_configs_stats);
    CU_add_test(s, "configs/teach: --teach rows per protocol", test_configs_teach_rows);
    CU_add_test(s, "--teach honours the address range", test_teach_addr_filter);
    CU_add_test(s, "configs/teach/dir-mesi.yaml: --teach rows", test_dir_teach_rows);
    CU_add_test(s, "teach table rules on a hand-made stream", test_teach_rules);
    CU_add_test(s, "teach: roles come from the classes' registrations",
                test_teach_registered_roles);
    CU_add_test(s, "text dump shows state and cache names", test_text_dump_names);
    CU_add_test(s, "vcd filters and gtkw name the states", test_vcd_filters);
    CU_add_test(s, "perfetto line-state tracks", test_perfetto_states);
    CU_add_test(s, "pattern-core rows", test_pattern_core_rows);
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
