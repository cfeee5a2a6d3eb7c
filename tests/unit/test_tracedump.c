/* test_tracedump.c: CUnit tests of the per-cycle trace dump (sim/tracedump.h) in all four formats,
 * with enum arguments (names in text/JSON/Perfetto, codes plus translate filters in VCD), the
 * line-state tracks, the tee, and renaming a dump with its side files.
 *
 * Every output is read back and checked against its format's rules with checkers written here
 * (a strict RFC 8259 JSON parser, a VCD reader), plus python3's json and GTKWave's vcd2fst and
 * fst2vcd as independent readers when they are installed. `test_tracedump --bench` prints events/s.
 */
#include <CUnit/Basic.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../sim/error.h"
#include "../../sim/tracedump.h"
#include "../../sim/cli/teach.h"

static char *tmpdir;

/* ---- helpers ---- */

static void rm_tree(const char *path)
{
    if (g_file_test(path, G_FILE_TEST_IS_DIR) && !g_file_test(path, G_FILE_TEST_IS_SYMLINK)) {
        GDir *d = g_dir_open(path, 0, NULL);
        const char *name;
        while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
            char *kid = g_build_filename(path, name, NULL);
            rm_tree(kid);
            g_free(kid);
        }
        if (d != NULL)
            g_dir_close(d);
        g_rmdir(path);
    } else {
        g_unlink(path);
    }
}

/* A fresh, empty directory per test, so listings show exactly what the test produced. */
static char *test_dir(const char *name)
{
    char *dir = g_build_filename(tmpdir, name, NULL);
    rm_tree(dir);
    g_mkdir_with_parents(dir, 0700);
    return dir;
}

static char *slurp(const char *path, size_t *len)
{
    char *text = NULL;
    gsize n = 0;
    if (!g_file_get_contents(path, &text, &n, NULL))
        return NULL;
    if (len != NULL)
        *len = n;
    return text;
}

/* Decompresses with zlib, as a user's zcat would. */
static char *slurp_gz(const char *path, size_t *len)
{
    gzFile gz = gzopen(path, "rb");
    if (gz == NULL)
        return NULL;
    GString *s = g_string_new(NULL);
    char buf[65536];
    int n;
    while ((n = gzread(gz, buf, sizeof buf)) > 0)
        g_string_append_len(s, buf, n);
    gzclose(gz);
    if (n < 0) {
        g_string_free(s, TRUE);
        return NULL;
    }
    *len = s->len;
    return g_string_free(s, FALSE);
}

static guint dir_entries(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    guint n = 0;
    while (d != NULL && g_dir_read_name(d) != NULL)
        n++;
    if (d != NULL)
        g_dir_close(d);
    return n;
}

static TraceOptions opts_for(TraceFormat f, const char *path)
{
    /* force: several tests write one path again (an archsim dump may then be replaced) */
    return (TraceOptions){ .format = f, .path = path, .start = 0, .end = UINT64_MAX,
                           .force = true };
}

/* Whether DIR holds a temporary file "NAME.part-XXXXXX" (sim/outfile.h). */
static bool part_exists(const char *path)
{
    char *dir = g_path_get_dirname(path), *base = g_path_get_basename(path);
    char *prefix = g_strconcat(base, ".part-", NULL);
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *n;
    bool found = false;
    while (d && (n = g_dir_read_name(d)))
        found = found || g_str_has_prefix(n, prefix);
    if (d)
        g_dir_close(d);
    g_free(prefix);
    g_free(base);
    g_free(dir);
    return found;
}

/* Runs a program; true when it exits 0. */
static bool run_ok(const char *const *argv, char **out)
{
    int status = -1;
    GError *err = NULL;
    if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                      NULL, NULL, out, NULL, &status, &err)) {
        g_error_free(err);
        return false;
    }
    return g_spawn_check_wait_status(status, NULL);
}

/* ---- a strict JSON parser (RFC 8259) with a small tree, enough to inspect dumps ---- */

typedef enum { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ } JvType;

typedef struct Jv {
    JvType t;
    bool b;
    char *s;          /* JV_STR: decoded UTF-8; JV_NUM: the number as written */
    GPtrArray *keys;  /* JV_OBJ: char* */
    GPtrArray *vals;  /* JV_ARR, JV_OBJ: Jv* */
} Jv;

typedef struct {
    const char *p, *end;
    bool bad;
} JParse;

static void jv_free(gpointer data)
{
    Jv *v = data;
    if (v == NULL)
        return;
    g_free(v->s);
    if (v->keys != NULL)
        g_ptr_array_unref(v->keys);
    if (v->vals != NULL)
        g_ptr_array_unref(v->vals);
    g_free(v);
}

static void jp_ws(JParse *jp)
{
    while (jp->p < jp->end && (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' || *jp->p == '\r'))
        jp->p++;
}

static bool jp_lit(JParse *jp, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(jp->end - jp->p) < n || memcmp(jp->p, word, n) != 0)
        return false;
    jp->p += n;
    return true;
}

static int jp_hex4(JParse *jp)
{
    if (jp->end - jp->p < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int d = g_ascii_xdigit_value(jp->p[i]);
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    jp->p += 4;
    return v;
}

static char *jp_string(JParse *jp)
{
    if (jp->p >= jp->end || *jp->p != '"')
        return NULL;
    jp->p++;
    GString *out = g_string_new(NULL);
    while (jp->p < jp->end) {
        unsigned char c = (unsigned char)*jp->p++;
        if (c == '"')
            return g_string_free(out, FALSE);
        if (c < 0x20)
            break;                                  /* raw control characters are invalid */
        if (c != '\\') {
            g_string_append_c(out, (char)c);
            continue;
        }
        if (jp->p >= jp->end)
            break;
        char e = *jp->p++;
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e != '\0' && simple != NULL) {
            g_string_append_c(out, "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"]);
            continue;
        }
        if (e != 'u')
            break;
        int u = jp_hex4(jp);
        if (u < 0 || (u >= 0xdc00 && u <= 0xdfff))
            break;
        if (u >= 0xd800 && u <= 0xdbff) {
            if (!jp_lit(jp, "\\u"))
                break;
            int lo = jp_hex4(jp);
            if (lo < 0xdc00 || lo > 0xdfff)
                break;
            u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
        }
        g_string_append_unichar(out, (gunichar)u);
    }
    g_string_free(out, TRUE);
    return NULL;
}

static Jv *jp_value(JParse *jp, int depth);

static Jv *jp_number(JParse *jp)
{
    const char *start = jp->p;
    if (jp->p < jp->end && *jp->p == '-')
        jp->p++;
    if (jp->p >= jp->end || !g_ascii_isdigit(*jp->p))
        return NULL;
    if (*jp->p == '0')
        jp->p++;
    else
        while (jp->p < jp->end && g_ascii_isdigit(*jp->p))
            jp->p++;
    if (jp->p < jp->end && *jp->p == '.') {
        jp->p++;
        if (jp->p >= jp->end || !g_ascii_isdigit(*jp->p))
            return NULL;
        while (jp->p < jp->end && g_ascii_isdigit(*jp->p))
            jp->p++;
    }
    if (jp->p < jp->end && (*jp->p == 'e' || *jp->p == 'E')) {
        jp->p++;
        if (jp->p < jp->end && (*jp->p == '+' || *jp->p == '-'))
            jp->p++;
        if (jp->p >= jp->end || !g_ascii_isdigit(*jp->p))
            return NULL;
        while (jp->p < jp->end && g_ascii_isdigit(*jp->p))
            jp->p++;
    }
    Jv *v = g_new0(Jv, 1);
    v->t = JV_NUM;
    v->s = g_strndup(start, (gsize)(jp->p - start));
    return v;
}

static Jv *jp_container(JParse *jp, int depth, bool obj)
{
    Jv *v = g_new0(Jv, 1);
    v->t = obj ? JV_OBJ : JV_ARR;
    v->vals = g_ptr_array_new_with_free_func(jv_free);
    if (obj)
        v->keys = g_ptr_array_new_with_free_func(g_free);
    jp->p++;
    jp_ws(jp);
    if (jp->p < jp->end && *jp->p == (obj ? '}' : ']')) {
        jp->p++;
        return v;
    }
    for (;;) {
        jp_ws(jp);
        if (obj) {
            char *key = jp_string(jp);
            if (key == NULL)
                goto bad;
            g_ptr_array_add(v->keys, key);
            jp_ws(jp);
            if (!jp_lit(jp, ":"))
                goto bad;
        }
        Jv *item = jp_value(jp, depth + 1);
        if (item == NULL)
            goto bad;
        g_ptr_array_add(v->vals, item);
        jp_ws(jp);
        if (jp_lit(jp, ","))
            continue;
        if (jp_lit(jp, obj ? "}" : "]"))
            return v;
        goto bad;
    }
bad:
    jv_free(v);
    return NULL;
}

static Jv *jp_value(JParse *jp, int depth)
{
    jp_ws(jp);
    if (jp->p >= jp->end || depth > 64)
        return NULL;
    Jv *v;
    switch (*jp->p) {
    case '{': return jp_container(jp, depth, true);
    case '[': return jp_container(jp, depth, false);
    case '"': {
        char *s = jp_string(jp);
        if (s == NULL)
            return NULL;
        v = g_new0(Jv, 1);
        v->t = JV_STR;
        v->s = s;
        return v;
    }
    case 't':
    case 'f':
    case 'n':
        v = g_new0(Jv, 1);
        if (jp_lit(jp, "true")) {
            v->t = JV_BOOL;
            v->b = true;
        } else if (jp_lit(jp, "false")) {
            v->t = JV_BOOL;
        } else if (jp_lit(jp, "null")) {
            v->t = JV_NULL;
        } else {
            g_free(v);
            return NULL;
        }
        return v;
    default:
        return jp_number(jp);
    }
}

/* The whole text must be exactly one JSON value (whitespace around it allowed), in UTF-8. */
static Jv *json_parse(const char *text, size_t len)
{
    if (!g_utf8_validate(text, (gssize)len, NULL))
        return NULL;
    JParse jp = { .p = text, .end = text + len };
    Jv *v = jp_value(&jp, 0);
    jp_ws(&jp);
    if (v != NULL && jp.p != jp.end) {
        jv_free(v);
        return NULL;
    }
    return v;
}

static Jv *jv_get(const Jv *obj, const char *key)
{
    if (obj == NULL || obj->t != JV_OBJ)
        return NULL;
    for (guint i = 0; i < obj->keys->len; i++)
        if (strcmp(g_ptr_array_index(obj->keys, i), key) == 0)
            return g_ptr_array_index(obj->vals, i);
    return NULL;
}

static const char *jv_str(const Jv *obj, const char *key)
{
    Jv *v = jv_get(obj, key);
    return v != NULL && v->t == JV_STR ? v->s : NULL;
}

static bool jv_u64(const Jv *obj, const char *key, uint64_t *out)
{
    Jv *v = jv_get(obj, key);
    if (v == NULL || v->t != JV_NUM)
        return false;
    return g_ascii_string_to_unsigned(v->s, 10, 0, UINT64_MAX, out, NULL);
}

static void test_json_checker_catches_bad_json(void)
{
    /* The checker must be able to fail, or the tests built on it prove nothing. */
    static const char *const bad[] = {
        "{\"a\":1,}", "{\"a\" 1}", "[1 2]", "\"a\x01\"", "\"\\x\"", "01", "1.", "{\"a\":tru}",
        "\"\\ud800\"", "[1]]", "\"\xff\"", "",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        Jv *v = json_parse(bad[i], strlen(bad[i]));
        CU_ASSERT_PTR_NULL(v);
        jv_free(v);
    }
    const char *good = "{\"a\":[1,-2.5e3,true,false,null,\"\\u00e9\\ud83d\\ude00\\\"\"],\"b\":{}}";
    Jv *v = json_parse(good, strlen(good));
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    Jv *a = jv_get(v, "a");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(a->vals->len, 6);
    CU_ASSERT_STRING_EQUAL(((Jv *)g_ptr_array_index(a->vals, 5))->s, "\xc3\xa9\xf0\x9f\x98\x80\"");
    jv_free(v);
}

/* ---- option parsers ---- */

static void test_parsers(void)
{
    TraceFormat f;
    CU_ASSERT_TRUE(trace_format_parse("text", &f) && f == TRACE_FMT_TEXT);
    CU_ASSERT_TRUE(trace_format_parse("jsonl", &f) && f == TRACE_FMT_JSONL);
    CU_ASSERT_TRUE(trace_format_parse("perfetto", &f) && f == TRACE_FMT_PERFETTO);
    CU_ASSERT_TRUE(trace_format_parse("vcd", &f) && f == TRACE_FMT_VCD);
    CU_ASSERT_FALSE(trace_format_parse("json", &f));
    CU_ASSERT_FALSE(trace_format_parse("", &f));
    CU_ASSERT_STRING_EQUAL(trace_format_name(TRACE_FMT_PERFETTO), "perfetto");
    CU_ASSERT_TRUE(trace_format_guess("run/t.json.gz", &f) && f == TRACE_FMT_PERFETTO);
    CU_ASSERT_TRUE(trace_format_guess("t.jsonl", &f) && f == TRACE_FMT_JSONL);
    CU_ASSERT_TRUE(trace_format_guess("t.VCD", &f) && f == TRACE_FMT_VCD);
    CU_ASSERT_TRUE(trace_format_guess("t.txt.gz", &f) && f == TRACE_FMT_TEXT);
    CU_ASSERT_FALSE(trace_format_guess("t.gz", &f));

    uint64_t a = 7, b = 7;
    char *problem = NULL;
    CU_ASSERT_TRUE(trace_window_parse("10:20", &a, &b, &problem) && a == 10 && b == 20);
    CU_ASSERT_TRUE(trace_window_parse("10:", &a, &b, &problem) && a == 10 && b == UINT64_MAX);
    CU_ASSERT_TRUE(trace_window_parse(":20", &a, &b, &problem) && a == 0 && b == 20);
    CU_ASSERT_TRUE(trace_window_parse("1_000:2_000", &a, &b, &problem) && a == 1000 && b == 2000);
    CU_ASSERT_TRUE(trace_window_parse("5:5", &a, &b, &problem) && a == 5 && b == 5);
    CU_ASSERT_PTR_NULL(problem);
    static const char *const bad_windows[] = {
        "20:10", "10-20", "abc", "", "0x10:20", "-1:5", "10:20:30", "99999999999999999999:",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad_windows); i++) {
        problem = NULL;
        CU_ASSERT_FALSE(trace_window_parse(bad_windows[i], &a, &b, &problem));
        CU_ASSERT_PTR_NOT_NULL(problem);
        CU_ASSERT_PTR_NOT_NULL(problem != NULL ? strstr(problem, bad_windows[i]) : NULL);
        g_free(problem);
    }
    CU_ASSERT_FALSE(trace_window_parse("x", &a, &b, NULL));   /* NULL problem is allowed */

    problem = NULL;
    CU_ASSERT_TRUE(trace_addr_range_parse("0x1000:0x1fff", &a, &b, &problem)
                   && a == 0x1000 && b == 0x1fff);
    CU_ASSERT_TRUE(trace_addr_range_parse("0x1040", &a, &b, &problem) && a == 0x1040 && b == 0x1040);
    CU_ASSERT_TRUE(trace_addr_range_parse("4096:8191", &a, &b, &problem) && a == 4096 && b == 8191);
    CU_ASSERT_TRUE(trace_addr_range_parse("0X10:", &a, &b, &problem) && a == 16 && b == UINT64_MAX);
    CU_ASSERT_PTR_NULL(problem);
    static const char *const bad_addrs[] = { "0x2000:0x1000", "0xZZ", "0x", "lo:hi", "" };
    for (size_t i = 0; i < G_N_ELEMENTS(bad_addrs); i++) {
        problem = NULL;
        CU_ASSERT_FALSE(trace_addr_range_parse(bad_addrs[i], &a, &b, &problem));
        CU_ASSERT_PTR_NOT_NULL(problem);
        g_free(problem);
    }
}

/* ---- text ---- */

static void test_text_exact(void)
{
    char *dir = test_dir("text");
    char *path = g_build_filename(dir, "t.txt", NULL);
    TraceOptions o = opts_for(TRACE_FMT_TEXT, path);
    GError *err = NULL;
    TraceDump *td = trace_open(&o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    int l1d = trace_register(td, "system.l1d");
    int core = trace_register(td, "system.core0");
    CU_ASSERT_EQUAL(l1d, 0);
    CU_ASSERT_EQUAL(core, 1);
    CU_ASSERT_EQUAL(trace_register(td, "system.l1d"), l1d);   /* same path, same track */

    TraceArg miss[] = { TARG_X("addr", 0x1040), TARG_S("kind", "load") };
    trace_emit(td, l1d, 5, "miss", 0, miss, 2);
    TraceArg hit[] = { TARG_U("lat", 3), TARG_I("delta", -4), TARG_X("pc", 0) };
    trace_emit(td, core, 12, "hit", 0, hit, 3);
    trace_emit(td, l1d, 1234567890, "evict", 10, NULL, 0);
    TraceArg odd[] = { TARG_S("msg", "a\nb\tc"), TARG_I("min", INT64_MIN),
                       TARG_U("max", UINT64_MAX), TARG_X("x", UINT64_MAX) };
    trace_emit(td, core, 0, "odd\r", 0, odd, 4);
    CU_ASSERT_EQUAL(trace_count(td), 4);

    /* The dump is only PATH.part-XXXXXX until trace_close succeeds. */
    CU_ASSERT_TRUE(part_exists(path));
    CU_ASSERT_FALSE(g_file_test(path, G_FILE_TEST_EXISTS));
    CU_ASSERT_TRUE(trace_close(td, &err));
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_FALSE(part_exists(path));

    char *text = slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_STRING_EQUAL(text,
        "      5: system.l1d: miss addr=0x1040 kind=load\n"
        "     12: system.core0: hit lat=3 delta=-4 pc=0x0\n"
        "1234567890: system.l1d: evict dur=10\n"
        "      0: system.core0: odd? msg=a?b?c min=-9223372036854775808 "
        "max=18446744073709551615 x=0xffffffffffffffff\n"
        /* emitted after a later cycle with no trace_hold: written as it came, and counted */
        "# archsim: 1 events out of cycle order (reported later than the reorder buffer waits)\n");
    g_free(text);
    g_free(path);
    g_free(dir);
}

/* issue 15 item 10: a core access is reported when it completes but stamped with its start.
 * With the core's hold (trace_hold from the issue on) every format is written in cycle order,
 * the held event's strings survive the caller's buffer, and nothing is counted out of order. */
static void issue15_item10_emit(TraceDump *td, int core, int l1d)
{
    char name[16];
    trace_hold(td, core, 10);                      /* core issues a load at cycle 10 */
    TraceArg miss[] = { TARG_X("addr", 0x40), TARG_S("op", "read") };
    trace_emit(td, l1d, 11, "miss", 0, miss, 2);
    trace_emit(td, l1d, 20, "fill", 0, miss, 2);
    trace_hold(td, l1d, 25);                      /* a second holder, released first */
    trace_emit(td, core, 26, "fetch", 0, NULL, 0);
    trace_hold(td, l1d, UINT64_MAX);
    g_strlcpy(name, "load", sizeof name);         /* a name in the caller's buffer */
    TraceArg ld[] = { TARG_X("addr", 0x40), TARG_S("cache", "l1d"), TARG_E("to", 5, "S"),
                      TARG_U("a", 1), TARG_U("b", 2), TARG_U("c", 3), TARG_U("d", 4) };
    trace_emit(td, core, 10, name, 17, ld, 7);    /* reported at 27, stamped at its start */
    memset(name, 'x', sizeof name - 1);
    trace_hold(td, core, UINT64_MAX);
    trace_emit(td, core, 30, "fetch", 0, NULL, 0);
}

static void test_issue15_item10_time_order(void)
{
    static const TraceFormat fmts[] = { TRACE_FMT_TEXT, TRACE_FMT_JSONL, TRACE_FMT_PERFETTO,
                                        TRACE_FMT_VCD };
    static const char *const names[] = { "t.txt", "t.jsonl", "t.json", "t.vcd" };
    for (size_t f = 0; f < G_N_ELEMENTS(fmts); f++) {
        char *dir = test_dir("order");
        char *path = g_build_filename(dir, names[f], NULL);
        TraceOptions o = opts_for(fmts[f], path);
        GError *err = NULL;
        TraceDump *td = trace_open(&o, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(td);
        int core = trace_register(td, "system.core0");
        int l1d = trace_register(td, "system.l1d");
        issue15_item10_emit(td, core, l1d);
        CU_ASSERT_EQUAL(trace_count(td), 5);
        CU_ASSERT_TRUE(trace_close(td, &err));
        char *text = slurp(path, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        if (fmts[f] == TRACE_FMT_TEXT) {
            CU_ASSERT_STRING_EQUAL(text,
                "     10: system.core0: load addr=0x40 cache=l1d to=S a=1 b=2 c=3 d=4 dur=17\n"
                "     11: system.l1d: miss addr=0x40 op=read\n"
                "     20: system.l1d: fill addr=0x40 op=read\n"
                "     26: system.core0: fetch\n"
                "     30: system.core0: fetch\n");
        } else if (fmts[f] == TRACE_FMT_JSONL) {
            const char *a = strstr(text, "\"cycle\":10,"), *b = strstr(text, "\"cycle\":11,");
            const char *c = strstr(text, "\"cycle\":26,");
            CU_ASSERT_TRUE(a != NULL && b != NULL && c != NULL && a < b && b < c);
            CU_ASSERT_PTR_NULL(strstr(text, "out_of_order"));
        } else if (fmts[f] == TRACE_FMT_PERFETTO) {
            const char *a = strstr(text, "\"ts\":10,"), *b = strstr(text, "\"ts\":11,");
            const char *c = strstr(text, "\"ts\":26,");
            CU_ASSERT_TRUE(a != NULL && b != NULL && c != NULL && a < b && b < c);
            CU_ASSERT_PTR_NULL(strstr(text, "out_of_order"));
            CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"name\":\"load\""));
        } else {
            CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n#10\n"));
            CU_ASSERT_PTR_NULL(strstr(text, "cycles late and are shown"));
        }
        g_free(text);
        g_free(path);
        g_free(dir);
    }
}

/* issue 15 item 10: a hold that is never released cannot grow the buffer without bound: past
 * 65,536 waiting events the oldest are written, and what is reported behind them is counted. */
static void test_issue15_item10_bounded(void)
{
    char *dir = test_dir("order-bound");
    char *path = g_build_filename(dir, "t.txt", NULL);
    TraceOptions o = opts_for(TRACE_FMT_TEXT, path);
    GError *err = NULL;
    TraceDump *td = trace_open(&o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    int core = trace_register(td, "core");
    trace_hold(td, core, 0);
    for (uint64_t c = 1; c <= 200000; c++)
        trace_emit(td, core, c, "tick", 0, NULL, 0);
    trace_emit(td, core, 0, "late", 0, NULL, 0);
    CU_ASSERT_TRUE(trace_count(td) > 100000);      /* written while the hold lasts */
    CU_ASSERT_TRUE(trace_close(td, &err));
    gsize len = 0;
    char *text = slurp(path, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "# archsim: 1 events out of cycle order"));
    g_free(text);
    g_free(path);
    g_free(dir);
}

/* issue 15 item 10: past 200 MB a Perfetto dump calls TraceOptions.warn once, naming its size
 * and a --trace-window that fits (from the events per cycle so far). */
static void count_warn(const char *message, void *ctx)
{
    GPtrArray *seen = ctx;
    g_ptr_array_add(seen, g_strdup(message));
}

static void test_issue15_item10_perfetto_size_warning(void)
{
    char *dir = test_dir("pf-size");
    char *path = g_build_filename(dir, "t.json", NULL);
    TraceOptions o = opts_for(TRACE_FMT_PERFETTO, path);
    GPtrArray *seen = g_ptr_array_new_with_free_func(g_free);
    o.warn = count_warn;
    o.warn_ctx = seen;
    GError *err = NULL;
    TraceDump *td = trace_open(&o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    int l1d = trace_register(td, "system.l1d");
    TraceArg a[] = { TARG_X("addr", 0x1fff000d40), TARG_S("op", "read"), TARG_U("mshr", 3) };
    uint64_t c = 0;
    while (trace_count(td) < 1200000 && seen->len == 0) {   /* ~105 B per event: 2 M events */
        trace_emit(td, l1d, c, "miss", 0, a, 3);
        trace_emit(td, l1d, c, "hit", 0, a, 3);
        c++;
    }
    CU_ASSERT_EQUAL(seen->len, 0);                   /* not yet at 200 MB */
    for (int i = 0; i < 2000000 && seen->len == 0; i++, c++) {
        trace_emit(td, l1d, c, "miss", 0, a, 3);
        trace_emit(td, l1d, c, "hit", 0, a, 3);
    }
    for (int i = 0; i < 1000; i++, c++)
        trace_emit(td, l1d, c, "miss", 0, a, 3);
    CU_ASSERT_EQUAL_FATAL(seen->len, 1);             /* once */
    const char *msg = g_ptr_array_index(seen, 0);
    CU_ASSERT_TRUE(g_str_has_prefix(msg, "the Perfetto dump has passed 200 MB"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "2.00 events per cycle"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "--trace-window 0:"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "--trace-components"));
    trace_abort(td);
    g_ptr_array_unref(seen);
    g_free(path);
    g_free(dir);
}

/* One event much larger than the output buffer still comes out whole. */
static void test_text_big_event(void)
{
    char *dir = test_dir("text-big");
    char *path = g_build_filename(dir, "big.txt", NULL);
    TraceOptions o = opts_for(TRACE_FMT_TEXT, path);
    TraceDump *td = trace_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    int t = trace_register(td, "c");
    size_t n = 3u * 1024u * 1024u;
    char *big = g_malloc(n + 1);
    memset(big, 'z', n);
    big[n] = '\0';
    for (int i = 0; i < 3; i++) {
        TraceArg a[] = { TARG_S("s", big) };
        trace_emit(td, t, (uint64_t)i, "e", 0, a, 1);
    }
    CU_ASSERT_TRUE(trace_close(td, NULL));
    size_t len = 0;
    char *text = slurp(path, &len);
    CU_ASSERT_EQUAL(len, 3 * (strlen("      0: c: e s=") + n + 1));
    CU_ASSERT_TRUE(text != NULL && strncmp(text, "      0: c: e s=zzz", 19) == 0);
    g_free(text);
    g_free(big);
    g_free(path);
    g_free(dir);
}

/* ---- JSON Lines ---- */

static void test_jsonl_valid_and_escaped(void)
{
    char *dir = test_dir("jsonl");
    char *path = g_build_filename(dir, "t.jsonl", NULL);
    TraceOptions o = opts_for(TRACE_FMT_JSONL, path);
    TraceDump *td = trace_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    int t = trace_register(td, "sys\"tem.l1\\d");
    static const char *const nasty[] = {
        "quote\"back\\slash", "ctl\x01\x1f\x7f", "nl\nret\rtab\tbs\bff\f", "caf\xc3\xa9 \xe2\x82\xac",
        "bad\xff utf8 \xc3", "",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(nasty); i++) {
        TraceArg a[] = { TARG_S("s", nasty[i]), TARG_X("addr", 0x1040 + i), TARG_U("n", i),
                         TARG_I("neg", -(int64_t)i), TARG_S("k\"ey", "v") };
        trace_emit(td, t, 100 + i, nasty[i], i, a, 5);
    }
    trace_emit(td, t, 200, "noargs", 0, NULL, 0);
    CU_ASSERT_TRUE(trace_close(td, NULL));

    char *text = slurp(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    char **lines = g_strsplit(text, "\n", -1);
    guint nlines = g_strv_length(lines);
    CU_ASSERT_EQUAL(nlines, G_N_ELEMENTS(nasty) + 2);          /* + noargs + "" after the last \n */
    CU_ASSERT_STRING_EQUAL(lines[nlines - 1], "");
    for (guint i = 0; i + 1 < nlines; i++) {
        Jv *v = json_parse(lines[i], strlen(lines[i]));
        CU_ASSERT_PTR_NOT_NULL(v);
        if (v == NULL) {
            fprintf(stderr, "\ninvalid JSON line %u: %s\n", i + 1, lines[i]);
            continue;
        }
        uint64_t cycle = 0, dur = 99;
        CU_ASSERT_TRUE(jv_u64(v, "cycle", &cycle));
        CU_ASSERT_TRUE(jv_u64(v, "dur", &dur));
        CU_ASSERT_STRING_EQUAL(jv_str(v, "comp"), "sys\"tem.l1\\d");
        Jv *args = jv_get(v, "args");
        CU_ASSERT_TRUE(args != NULL && args->t == JV_OBJ);
        if (i < G_N_ELEMENTS(nasty)) {
            CU_ASSERT_EQUAL(cycle, 100 + i);
            CU_ASSERT_EQUAL(dur, i);
            const char *want = nasty[i];
            if (i == 4)
                want = "bad\xef\xbf\xbd utf8 \xef\xbf\xbd";   /* invalid bytes become U+FFFD */
            CU_ASSERT_STRING_EQUAL(jv_str(v, "event"), want);
            CU_ASSERT_STRING_EQUAL(jv_str(args, "s"), want);
            char *hex = g_strdup_printf("0x%x", 0x1040 + i);
            CU_ASSERT_STRING_EQUAL(jv_str(args, "addr"), hex);
            g_free(hex);
            uint64_t n = 99;
            CU_ASSERT_TRUE(jv_u64(args, "n", &n) && n == i);
            Jv *neg = jv_get(args, "neg");
            CU_ASSERT_TRUE(neg != NULL && neg->t == JV_NUM && g_ascii_strtoll(neg->s, NULL, 10)
                                                                   == -(gint64)i);
            CU_ASSERT_STRING_EQUAL(jv_str(args, "k\"ey"), "v");
        } else {
            CU_ASSERT_STRING_EQUAL(jv_str(v, "event"), "noargs");
            CU_ASSERT_EQUAL(args != NULL ? args->keys->len : 99, 0);
        }
        jv_free(v);
    }
    /* A second, independent reader when the machine has one. */
    char *py = g_find_program_in_path("python3");
    if (py != NULL) {
        const char *argv[] = { py, "-c",
                               "import json,sys\n"
                               "for l in open(sys.argv[1], encoding='utf-8'): json.loads(l)\n",
                               path, NULL };
        CU_ASSERT_TRUE(run_ok(argv, NULL));
        g_free(py);
    }
    g_strfreev(lines);
    g_free(text);
    g_free(path);
    g_free(dir);
}

/* ---- Perfetto ---- */

typedef struct {
    uint64_t tid, ts, end;
} Slice;

static gint slice_order(gconstpointer pa, gconstpointer pb)
{
    const Slice *a = pa, *b = pb;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;    /* parent before child */
    return 0;
}

/* True when the X slices of every tid nest (no partial overlap), as a thread track needs. */
static bool slices_nest(GArray *slices)
{
    g_array_sort(slices, slice_order);
    GArray *stack = g_array_new(FALSE, FALSE, sizeof(Slice));
    bool ok = true;
    for (guint i = 0; i < slices->len && ok; i++) {
        Slice s = g_array_index(slices, Slice, i);
        while (stack->len > 0) {
            Slice top = g_array_index(stack, Slice, stack->len - 1);
            if (top.tid == s.tid && top.end > s.ts)
                break;
            g_array_set_size(stack, stack->len - 1);
        }
        if (stack->len > 0 && g_array_index(stack, Slice, stack->len - 1).end < s.end)
            ok = false;
        g_array_append_val(stack, s);
    }
    g_array_unref(stack);
    return ok;
}

typedef struct {
    Jv *root;
    GHashTable *tid_names;   /* tid -> thread name */
    GArray *slices;
    guint n_x, n_i, n_m;
} Perfetto;

/* Parses a Perfetto JSON dump and checks each event against the importer's rules. */
static bool perfetto_load(const char *text, size_t len, Perfetto *pf)
{
    memset(pf, 0, sizeof *pf);
    pf->root = json_parse(text, len);
    CU_ASSERT_PTR_NOT_NULL(pf->root);
    Jv *events = jv_get(pf->root, "traceEvents");
    CU_ASSERT_TRUE(events != NULL && events->t == JV_ARR);
    if (events == NULL || events->t != JV_ARR)
        return false;
    pf->tid_names = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    pf->slices = g_array_new(FALSE, FALSE, sizeof(Slice));
    for (guint i = 0; i < events->vals->len; i++) {
        Jv *e = g_ptr_array_index(events->vals, i);
        const char *ph = jv_str(e, "ph");
        uint64_t ts = 0, dur = 0, tid = 0, pid = 0;
        CU_ASSERT_PTR_NOT_NULL(ph);
        CU_ASSERT_PTR_NOT_NULL(jv_str(e, "name"));
        CU_ASSERT_TRUE(jv_u64(e, "pid", &pid));
        if (ph == NULL)
            continue;
        if (strcmp(ph, "X") == 0) {
            pf->n_x++;
            CU_ASSERT_TRUE(jv_u64(e, "ts", &ts));
            CU_ASSERT_TRUE(jv_u64(e, "dur", &dur));     /* an X without dur is dropped */
            CU_ASSERT_TRUE(jv_u64(e, "tid", &tid));
            Slice s = { tid, ts, ts + dur };
            g_array_append_val(pf->slices, s);
        } else if (strcmp(ph, "i") == 0) {
            pf->n_i++;
            const char *scope = jv_str(e, "s");
            CU_ASSERT_TRUE(jv_u64(e, "ts", &ts));
            CU_ASSERT_PTR_NOT_NULL(scope);
            if (scope != NULL && strcmp(scope, "t") == 0)
                CU_ASSERT_TRUE(jv_u64(e, "tid", &tid));  /* thread instants need a tid */
        } else if (strcmp(ph, "M") == 0) {
            pf->n_m++;
            const char *name = jv_str(e, "name");
            const char *label = jv_str(jv_get(e, "args"), "name");
            CU_ASSERT_PTR_NOT_NULL(label);
            if (name != NULL && strcmp(name, "thread_name") == 0 && label != NULL) {
                CU_ASSERT_TRUE(jv_u64(e, "tid", &tid));
                gint64 *key = g_new(gint64, 1);
                *key = (gint64)tid;
                CU_ASSERT_PTR_NULL(g_hash_table_lookup(pf->tid_names, key));  /* named once */
                g_hash_table_insert(pf->tid_names, key, (gpointer)label);
            }
        } else {
            CU_FAIL("unexpected ph");
        }
    }
    return true;
}

static void perfetto_free(Perfetto *pf)
{
    if (pf->tid_names != NULL)
        g_hash_table_unref(pf->tid_names);
    if (pf->slices != NULL)
        g_array_unref(pf->slices);
    jv_free(pf->root);
}

static const char *perfetto_track_of(Perfetto *pf, uint64_t tid)
{
    gint64 key = (gint64)tid;
    return g_hash_table_lookup(pf->tid_names, &key);
}

/* The thread name of the X slice with this start and duration. */
static const char *perfetto_slice_track(Perfetto *pf, uint64_t ts, uint64_t dur)
{
    for (guint i = 0; i < pf->slices->len; i++) {
        Slice *s = &g_array_index(pf->slices, Slice, i);
        if (s->ts == ts && s->end == ts + dur)
            return perfetto_track_of(pf, s->tid);
    }
    return NULL;
}

static void test_perfetto(void)
{
    char *dir = test_dir("perfetto");
    char *path = g_build_filename(dir, "t.json", NULL);
    TraceOptions o = opts_for(TRACE_FMT_PERFETTO, path);
    TraceDump *td = trace_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    int l1d = trace_register(td, "system.l1d");
    int core = trace_register(td, "system.core0");
    TraceArg a[] = { TARG_X("addr", 0x1040), TARG_S("why", "cold \"miss\"") };
    trace_emit(td, core, 3, "fetch", 0, NULL, 0);
    trace_emit(td, l1d, 10, "miss A", 10, a, 2);     /* [10,20) */
    trace_emit(td, l1d, 12, "tag", 2, NULL, 0);      /* [12,14) nests in A */
    trace_emit(td, l1d, 15, "miss B", 10, a, 1);     /* [15,25) crosses A: overflow track */
    trace_emit(td, l1d, 16, "hit", 0, a, 1);         /* instant */
    trace_emit(td, l1d, 16, "probe", 2, NULL, 0);    /* [16,18) nests in A again */
    trace_emit(td, l1d, 17, "miss C", 10, NULL, 0);  /* [17,27) crosses A and B: third track */
    trace_emit(td, l1d, 30, "miss D", 5, NULL, 0);   /* [30,35) all closed: own track */
    trace_emit(td, l1d, 30, "miss E", 6, NULL, 0);   /* [30,36) same start, longer: overflow */
    CU_ASSERT_TRUE(trace_close(td, NULL));

    size_t len = 0;
    char *text = slurp(path, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    Perfetto pf;
    CU_ASSERT_TRUE_FATAL(perfetto_load(text, len, &pf));
    CU_ASSERT_EQUAL(pf.n_x, 7);
    CU_ASSERT_EQUAL(pf.n_i, 2);
    CU_ASSERT_TRUE(slices_nest(pf.slices));
    CU_ASSERT_STRING_EQUAL(perfetto_slice_track(&pf, 10, 10), "system.l1d");
    CU_ASSERT_STRING_EQUAL(perfetto_slice_track(&pf, 12, 2), "system.l1d");
    CU_ASSERT_STRING_EQUAL(perfetto_slice_track(&pf, 15, 10), "system.l1d #2");
    CU_ASSERT_STRING_EQUAL(perfetto_slice_track(&pf, 16, 2), "system.l1d");
    CU_ASSERT_STRING_EQUAL(perfetto_slice_track(&pf, 17, 10), "system.l1d #3");
    CU_ASSERT_STRING_EQUAL(perfetto_slice_track(&pf, 30, 5), "system.l1d");
    CU_ASSERT_STRING_EQUAL(perfetto_slice_track(&pf, 30, 6), "system.l1d #2");
    CU_ASSERT_EQUAL(g_hash_table_size(pf.tid_names), 4);   /* l1d, #2, #3, core0 */

    /* The time unit is stated in the metadata and in the process (track group) name. */
    Jv *other = jv_get(pf.root, "otherData");
    CU_ASSERT_STRING_EQUAL(jv_str(other, "time_unit"), "1 ts = 1 cycle");
    CU_ASSERT_STRING_EQUAL(jv_str(pf.root, "displayTimeUnit"), "ns");
    Jv *trunc = jv_get(other, "truncated");
    CU_ASSERT_TRUE(trunc != NULL && trunc->t == JV_BOOL && !trunc->b);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"process_name\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "= 1 cycle)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"args\":{\"addr\":\"0x1040\",\"why\":\"cold \\\"miss\\\"\"}"));

    char *py = g_find_program_in_path("python3");
    if (py != NULL) {
        const char *argv[] = { py, "-c",
                               "import json,sys\n"
                               "d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
                               "assert all('dur' in e for e in d['traceEvents'] if e['ph'] == 'X')\n",
                               path, NULL };
        CU_ASSERT_TRUE(run_ok(argv, NULL));
        g_free(py);
    }
    perfetto_free(&pf);
    g_free(text);
    g_free(path);
    g_free(dir);
}

/* The nesting checker itself must reject a crossing pair. */
static void test_slice_checker_catches_overlap(void)
{
    GArray *s = g_array_new(FALSE, FALSE, sizeof(Slice));
    Slice a = { 1, 10, 20 }, b = { 1, 15, 25 }, c = { 2, 15, 25 };
    g_array_append_val(s, a);
    g_array_append_val(s, c);
    CU_ASSERT_TRUE(slices_nest(s));
    g_array_append_val(s, b);
    CU_ASSERT_FALSE(slices_nest(s));
    g_array_unref(s);
}

static void test_perfetto_truncated(void)
{
    char *dir = test_dir("perfetto-trunc");
    char *path = g_build_filename(dir, "t.json", NULL);
    TraceOptions o = opts_for(TRACE_FMT_PERFETTO, path);
    o.max_events = 3;
    TraceDump *td = trace_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    int t = trace_register(td, "c");
    for (uint64_t i = 0; i < 10; i++)
        trace_emit(td, t, i * 10, "e", 5, NULL, 0);
    CU_ASSERT_EQUAL(trace_count(td), 3);
    CU_ASSERT_TRUE(trace_close(td, NULL));
    size_t len = 0;
    char *text = slurp(path, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    Perfetto pf;
    CU_ASSERT_TRUE_FATAL(perfetto_load(text, len, &pf));
    CU_ASSERT_EQUAL(pf.n_x, 3);
    Jv *other = jv_get(pf.root, "otherData");
    Jv *trunc = jv_get(other, "truncated");
    uint64_t max = 0, first = 0, events = 0;
    CU_ASSERT_TRUE(trunc != NULL && trunc->t == JV_BOOL && trunc->b);
    CU_ASSERT_TRUE(jv_u64(other, "max_events", &max) && max == 3);
    CU_ASSERT_TRUE(jv_u64(other, "first_dropped_cycle", &first) && first == 30);
    CU_ASSERT_TRUE(jv_u64(other, "events", &events) && events == 3);
    perfetto_free(&pf);
    g_free(text);
    g_free(path);
    g_free(dir);
}

/* ---- VCD ---- */

static bool vcd_verbose = true;   /* off while feeding the reader bad files on purpose */

typedef struct {
    uint64_t time;
    char *id, *value;
} VcdChange;

typedef struct {
    GHashTable *by_path;     /* "system.l1d.event" -> id */
    GHashTable *width;       /* id -> GUINT_TO_POINTER(width) */
    GArray *changes;         /* VcdChange in file order */
    char *timescale, *comment;
    bool has_date, has_version, has_dumpvars;
    uint64_t last_time;
} Vcd;

static void vcd_free(Vcd *v)
{
    if (v->by_path != NULL)
        g_hash_table_unref(v->by_path);
    if (v->width != NULL)
        g_hash_table_unref(v->width);
    for (guint i = 0; v->changes != NULL && i < v->changes->len; i++) {
        g_free(g_array_index(v->changes, VcdChange, i).id);
        g_free(g_array_index(v->changes, VcdChange, i).value);
    }
    if (v->changes != NULL)
        g_array_unref(v->changes);
    g_free(v->timescale);
    g_free(v->comment);
}

/* Reads a VCD and checks it: header commands closed by $end, $scope/$upscope balanced, every
 * change names a declared id with no more bits than declared, and #times strictly increase. */
static bool vcd_load(const char *text, Vcd *v)
{
    memset(v, 0, sizeof *v);
    v->by_path = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    v->width = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    v->changes = g_array_new(FALSE, FALSE, sizeof(VcdChange));
    const char *body = strstr(text, "$enddefinitions");
    if (body == NULL)
        return false;
    char *head = g_strndup(text, (gsize)(body - text));
    char **tok = g_strsplit_set(head, " \t\r\n", -1);
    GPtrArray *scopes = g_ptr_array_new();
    bool ok = true;
    for (char **t = tok; *t != NULL && ok; t++) {
        if (**t == '\0')
            continue;
        if (strcmp(*t, "$scope") == 0 && t[1] && t[2] && t[3] && strcmp(t[3], "$end") == 0) {
            g_ptr_array_add(scopes, t[2]);
            t += 3;
        } else if (strcmp(*t, "$upscope") == 0 && t[1] && strcmp(t[1], "$end") == 0) {
            ok = scopes->len > 0;
            if (ok)
                g_ptr_array_set_size(scopes, scopes->len - 1);
            t += 1;
        } else if (strcmp(*t, "$var") == 0) {
            char **f = t + 1;
            guint n = 0;
            while (f[n] != NULL && strcmp(f[n], "$end") != 0)
                n++;
            ok = f[n] != NULL && n == 4 && strcmp(f[0], "wire") == 0;
            if (!ok)
                break;
            GString *full = g_string_new(NULL);
            for (guint i = 0; i < scopes->len; i++)
                g_string_append_printf(full, "%s.", (char *)g_ptr_array_index(scopes, i));
            g_string_append(full, f[3]);
            ok = g_hash_table_lookup(v->width, f[2]) == NULL;   /* ids are unique */
            g_hash_table_insert(v->width, g_strdup(f[2]),
                                GUINT_TO_POINTER((guint)g_ascii_strtoull(f[1], NULL, 10)));
            g_hash_table_insert(v->by_path, g_string_free(full, FALSE), g_strdup(f[2]));
            t += n + 1;
        } else if (strcmp(*t, "$date") == 0 || strcmp(*t, "$version") == 0
                   || strcmp(*t, "$timescale") == 0 || strcmp(*t, "$comment") == 0) {
            GString *val = g_string_new(NULL);
            const char *cmd = *t;
            for (t++; *t != NULL && strcmp(*t, "$end") != 0; t++)
                if (**t != '\0')
                    g_string_append_printf(val, "%s%s", val->len ? " " : "", *t);
            ok = *t != NULL;
            if (strcmp(cmd, "$date") == 0)
                v->has_date = true;
            else if (strcmp(cmd, "$version") == 0)
                v->has_version = true;
            if (strcmp(cmd, "$timescale") == 0)
                v->timescale = g_string_free(val, FALSE);
            else if (strcmp(cmd, "$comment") == 0)
                v->comment = g_string_free(val, FALSE);
            else
                g_string_free(val, TRUE);
            if (*t == NULL)
                break;
        } else {
            ok = false;
        }
    }
    ok = ok && scopes->len == 0;
    g_ptr_array_unref(scopes);
    g_strfreev(tok);
    g_free(head);

    ok = ok && g_str_has_prefix(body, "$enddefinitions $end\n");
    if (!ok)
        return false;
    char **lines = g_strsplit(body + strlen("$enddefinitions $end\n"), "\n", -1);
    bool have_time = false, in_dumpvars = false;
    for (char **l = lines; *l != NULL && ok; l++) {
        const char *s = *l;
        if (*s == '\0')
            continue;
        if (*s == '#') {
            uint64_t t = 0;
            ok = g_ascii_string_to_unsigned(s + 1, 10, 0, UINT64_MAX, &t, NULL)
                 && (!have_time || t > v->last_time);
            have_time = true;
            v->last_time = t;
        } else if (strcmp(s, "$dumpvars") == 0) {
            v->has_dumpvars = true;
            in_dumpvars = true;
        } else if (strcmp(s, "$end") == 0) {
            ok = in_dumpvars;
            in_dumpvars = false;
        } else if (*s == 'b') {
            const char *sp = strchr(s, ' ');
            ok = have_time && sp != NULL && sp > s + 1;
            if (!ok)
                break;
            for (const char *p = s + 1; p < sp && ok; p++)
                ok = strchr("01xz", *p) != NULL;
            gpointer w = g_hash_table_lookup(v->width, sp + 1);
            ok = ok && w != NULL && (guint)(sp - s - 1) <= GPOINTER_TO_UINT(w);
            VcdChange ch = { v->last_time, g_strdup(sp + 1), g_strndup(s + 1, (gsize)(sp - s - 1)) };
            g_array_append_val(v->changes, ch);
        } else if (strchr("01xz", *s) != NULL && s[1] != '\0') {
            /* scalar change "1!" (fst2vcd writes 1-bit wires this way) */
            gpointer w = g_hash_table_lookup(v->width, s + 1);
            ok = have_time && w != NULL && GPOINTER_TO_UINT(w) == 1;
            VcdChange ch = { v->last_time, g_strdup(s + 1), g_strndup(s, 1) };
            g_array_append_val(v->changes, ch);
        } else {
            ok = false;
        }
        if (!ok && vcd_verbose)
            fprintf(stderr, "\nbad VCD body line: '%s'\n", s);
    }
    g_strfreev(lines);
    return ok;
}

/* Value of a wire (by dotted path) at a time, as a number; UINT64_MAX - 1 for x, or if absent. */
static uint64_t vcd_at(const Vcd *v, const char *path, uint64_t time)
{
    const char *id = g_hash_table_lookup(v->by_path, path);
    if (id == NULL)
        return UINT64_MAX - 1;
    const char *val = NULL;
    for (guint i = 0; i < v->changes->len; i++) {
        VcdChange *c = &g_array_index(v->changes, VcdChange, i);
        if (c->time <= time && strcmp(c->id, id) == 0)
            val = c->value;
    }
    if (val == NULL || strchr(val, 'x') != NULL)
        return UINT64_MAX - 1;
    return g_ascii_strtoull(val, NULL, 2);
}

/* The code a .filter file gives a name, or -1. */
static int filter_code(const char *filter, const char *name)
{
    char **lines = g_strsplit(filter, "\n", -1);
    int code = -1;
    for (char **l = lines; *l != NULL && code < 0; l++) {
        const char *sp = strchr(*l, ' ');
        if (sp != NULL && strcmp(sp + 1, name) == 0)
            code = atoi(*l);
    }
    g_strfreev(lines);
    return code;
}

static void emit_vcd_scenario(TraceDump *td)
{
    int l1d = trace_register(td, "system.l1d");
    int core = trace_register(td, "system.core0");
    int mem = trace_register(td, "mem");
    TraceArg pc[] = { TARG_X("pc", 0x400) };
    TraceArg miss[] = { TARG_X("addr", 0x1040), TARG_S("kind", "load") };
    TraceArg hit[] = { TARG_X("addr", 0x1080) };
    TraceArg neg[] = { TARG_I("delta", -2) };
    trace_emit(td, core, 0, "fetch", 0, pc, 1);
    trace_emit(td, l1d, 5, "miss", 0, miss, 2);
    trace_emit(td, l1d, 5, "hit", 0, hit, 1);       /* same wire, same cycle: the last one shows */
    trace_emit(td, l1d, 7, "fill", 3, miss, 1);      /* held for 3 cycles */
    trace_emit(td, core, 8, "stall", 0, neg, 1);
    trace_emit(td, mem, 6, "late", 0, NULL, 0);      /* out of order, within the slack */
    trace_emit(td, l1d, 3000, "evict", 0, NULL, 0);  /* releases the changes before 3000-1024 */
    trace_emit(td, mem, 4, "very late", 0, NULL, 0); /* too late: shown at the first free time */
}

static void check_vcd_scenario(const Vcd *v, const char *filter)
{
    int c_fetch = filter_code(filter, "fetch"), c_hit = filter_code(filter, "hit");
    int c_fill = filter_code(filter, "fill"), c_late = filter_code(filter, "late");
    int c_evict = filter_code(filter, "evict"), c_stall = filter_code(filter, "stall");
    CU_ASSERT_TRUE(c_fetch > 0 && c_hit > 0 && c_fill > 0 && c_late > 0 && c_evict > 0);
    CU_ASSERT_TRUE(filter_code(filter, "miss") > 0 && filter_code(filter, "very late") > 0);
    CU_ASSERT_EQUAL(filter_code(filter, "-"), 0);
    CU_ASSERT_EQUAL(vcd_at(v, "system.core0.event", 0), (uint64_t)c_fetch);
    CU_ASSERT_EQUAL(vcd_at(v, "system.core0.event", 1), 0);
    CU_ASSERT_EQUAL(vcd_at(v, "system.core0.pc", 0), 0x400);
    CU_ASSERT_EQUAL(vcd_at(v, "system.l1d.addr", 4), UINT64_MAX - 1);   /* x before first use */
    CU_ASSERT_EQUAL(vcd_at(v, "system.l1d.event", 4), 0);
    CU_ASSERT_EQUAL(vcd_at(v, "system.l1d.event", 5), (uint64_t)c_hit);
    CU_ASSERT_EQUAL(vcd_at(v, "system.l1d.addr", 5), 0x1080);
    CU_ASSERT_EQUAL(vcd_at(v, "system.l1d.event", 6), 0);
    CU_ASSERT_EQUAL(vcd_at(v, "system.l1d.event", 7), (uint64_t)c_fill);
    CU_ASSERT_EQUAL(vcd_at(v, "system.l1d.event", 9), (uint64_t)c_fill);
    CU_ASSERT_EQUAL(vcd_at(v, "system.l1d.addr", 9), 0x1040);
    CU_ASSERT_EQUAL(vcd_at(v, "system.l1d.event", 10), 0);
    CU_ASSERT_EQUAL(vcd_at(v, "system.core0.event", 8), (uint64_t)c_stall);
    CU_ASSERT_EQUAL(vcd_at(v, "system.core0.delta", 8), (uint64_t)-2);  /* two's complement */
    CU_ASSERT_EQUAL(vcd_at(v, "mem.event", 6), (uint64_t)c_late);
    CU_ASSERT_EQUAL(vcd_at(v, "mem.event", 7), 0);
    CU_ASSERT_EQUAL(vcd_at(v, "system.l1d.event", 3000), (uint64_t)c_evict);
    CU_ASSERT_EQUAL(vcd_at(v, "system.l1d.event", 3001), 0);
    CU_ASSERT_PTR_NULL(g_hash_table_lookup(v->by_path, "system.l1d.kind"));  /* strings: no wire */
}

static void test_vcd(void)
{
    char *dir = test_dir("vcd");
    char *path = g_build_filename(dir, "t.vcd", NULL);
    char *fpath = g_strconcat(path, ".filter", NULL);
    TraceOptions o = opts_for(TRACE_FMT_VCD, path);
    TraceDump *td = trace_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    emit_vcd_scenario(td);
    CU_ASSERT_EQUAL(dir_entries(dir), 1);   /* t.vcd.part-XXXXXX only: the body file is unlinked */
    CU_ASSERT_TRUE(trace_close(td, NULL));
    CU_ASSERT_EQUAL(dir_entries(dir), 3);   /* t.vcd, t.vcd.filter and t.vcd.gtkw */

    char *text = slurp(path, NULL), *filter = slurp(fpath, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(filter);
    CU_ASSERT_TRUE(g_str_has_prefix(filter, "0 -\n"));
    Vcd v;
    CU_ASSERT_TRUE(vcd_load(text, &v));
    CU_ASSERT_TRUE(v.has_date && v.has_version && v.has_dumpvars);
    CU_ASSERT_STRING_EQUAL(v.timescale, "1ns");
    CU_ASSERT_PTR_NOT_NULL(v.comment != NULL ? strstr(v.comment, "1 ns = 1 cycle") : NULL);
    CU_ASSERT_PTR_NOT_NULL(v.comment != NULL ? strstr(v.comment, "t.vcd.filter") : NULL);
    CU_ASSERT_PTR_NOT_NULL(v.comment != NULL ? strstr(v.comment, "1 events arrived") : NULL);
    CU_ASSERT_EQUAL(v.last_time, 3001 + 1);
    check_vcd_scenario(&v, filter);
    CU_ASSERT_EQUAL(GPOINTER_TO_UINT(g_hash_table_lookup(v.width,
                        g_hash_table_lookup(v.by_path, "system.l1d.addr"))), 64);

    /* GTKWave's own reader: vcd2fst must accept it, and fst2vcd must give the same waves. */
    char *vcd2fst = g_find_program_in_path("vcd2fst"), *fst2vcd = g_find_program_in_path("fst2vcd");
    if (vcd2fst != NULL) {
        char *fst = g_build_filename(dir, "t.fst", NULL);
        const char *argv[] = { vcd2fst, path, fst, NULL };
        CU_ASSERT_TRUE(run_ok(argv, NULL));
        CU_ASSERT_TRUE(g_file_test(fst, G_FILE_TEST_IS_REGULAR));
        char *back = NULL;
        const char *argv2[] = { fst2vcd ? fst2vcd : "fst2vcd", fst, NULL };
        if (fst2vcd != NULL && run_ok(argv2, &back) && back != NULL) {
            Vcd v2;
            CU_ASSERT_TRUE(vcd_load(back, &v2));
            check_vcd_scenario(&v2, filter);
            vcd_free(&v2);
        } else {
            CU_FAIL("fst2vcd could not read back the FST");
        }
        g_free(back);
        g_free(fst);
    } else {
        fprintf(stderr, "\n  (vcd2fst not installed: GTKWave cross-check skipped) ");
    }
    g_free(vcd2fst);
    g_free(fst2vcd);
    vcd_free(&v);
    g_free(text);
    g_free(filter);
    g_free(fpath);
    g_free(path);
    g_free(dir);
}

/* The translate filter a .gtkw attaches to a signal, read as GTKWave does: the file of the last
 * "^N FILE" line above it, if the flags in force ("@hex") include "translated by a filter file"
 * (0x2000). NULL if none, or if the signal is absent. */
static char *gtkw_filter_of(const char *gtkw, const char *signal)
{
    char **lines = g_strsplit(gtkw, "\n", -1);
    char *filter = NULL, *found = NULL;
    uint64_t flags = 0;
    for (char **l = lines; *l != NULL && found == NULL; l++) {
        if ((*l)[0] == '^') {
            g_free(filter);
            filter = g_strdup(strchr(*l, ' ') != NULL ? strchr(*l, ' ') + 1 : "");
        } else if ((*l)[0] == '@') {
            flags = g_ascii_strtoull(*l + 1, NULL, 16);
        } else if (strcmp(*l, signal) == 0 || (g_str_has_suffix(*l, signal) && (*l)[0] == '+')) {
            found = filter != NULL && (flags & 0x2000) ? g_strdup(filter) : NULL;
            break;
        }
    }
    g_free(filter);
    g_strfreev(lines);
    return found;
}

/* State changes as enums: a line of two caches, and a bus whose `to` names caches instead. */
/* What the scenario's events mean to the teaching view, as a cache and a core class say. */
static const TeachEvent l1_teach[] = { { "state", TEACH_STATE }, TEACH_EVENTS_END };
static const TeachEvent core_teach[] = { { "load", TEACH_LOAD }, TEACH_EVENTS_END };

static void emit_enum_scenario(TraceDump *td)
{
    int l1 = trace_register_as(td, "sys.l1d0", l1_teach);
    int l2 = trace_register_as(td, "sys.l1d1", l1_teach);
    int bus = trace_register(td, "sys.bus");
    TraceArg a[] = { TARG_X("addr", 0x40), TARG_E("from", 0, "I"), TARG_E("to", 5, "S"),
                     TARG_E("on", 0, "Load") };
    TraceArg b[] = { TARG_X("addr", 0x40), TARG_E("from", 5, "S"), TARG_E("to", 3, "M"),
                     TARG_E("on", 1, "Store") };
    TraceArg c[] = { TARG_X("addr", 0x80), TARG_E("from", 0, "I"), TARG_E("to", 5, "S"),
                     TARG_E("on", 0, "Load") };
    TraceArg d[] = { TARG_X("addr", 0x40), TARG_E("to", 0, "l1d0"), TARG_E("n", 1, "one") };
    TraceArg e[] = { TARG_X("addr", 0x40), TARG_U("n", 77) };   /* a number too: no filter */
    trace_emit(td, l1, 5, "state", 0, a, 4);
    trace_emit(td, l2, 6, "state", 0, c, 4);
    trace_emit(td, bus, 7, "data", 0, d, 3);
    trace_emit(td, bus, 8, "data", 0, e, 2);
    trace_emit(td, l1, 9, "state", 0, b, 4);
}

static void test_enum_args(void)
{
    char *dir = test_dir("enum");
    static const TraceFormat formats[] = { TRACE_FMT_TEXT, TRACE_FMT_JSONL, TRACE_FMT_PERFETTO,
                                           TRACE_FMT_VCD };
    static const char *const names[] = { "t.txt", "t.jsonl", "t.json", "t.vcd" };
    char *text[4] = { NULL };
    size_t len[4] = { 0 };
    for (size_t i = 0; i < 4; i++) {
        char *path = g_build_filename(dir, names[i], NULL);
        TraceOptions o = opts_for(formats[i], path);
        TraceDump *td = trace_open(&o, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(td);
        emit_enum_scenario(td);
        CU_ASSERT_TRUE(trace_close(td, NULL));
        text[i] = slurp(path, &len[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text[i]);
        g_free(path);
    }
    /* text and JSON Lines print the names */
    CU_ASSERT_PTR_NOT_NULL(strstr(text[0], "      5: sys.l1d0: state addr=0x40 from=I to=S on=Load\n"
                                           "      6: sys.l1d1: state addr=0x80 from=I to=S on=Load\n"
                                           "      7: sys.bus: data addr=0x40 to=l1d0 n=one\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text[1], "\"args\":{\"addr\":\"0x40\",\"from\":\"S\",\"to\":\"M\","
                                           "\"on\":\"Store\"}"));
    /* Perfetto: the instants keep their names, and each (component, addr) with a "to" gets a
     * track in process 2 with one slice per state, the last one ending with the dump */
    Perfetto pf;
    CU_ASSERT_TRUE_FATAL(perfetto_load(text[2], len[2], &pf));
    CU_ASSERT_TRUE(slices_nest(pf.slices));
    CU_ASSERT_STRING_EQUAL(perfetto_slice_track(&pf, 5, 4), "sys.l1d0 0x40");   /* S, 5..9 */
    CU_ASSERT_STRING_EQUAL(perfetto_slice_track(&pf, 9, 1), "sys.l1d0 0x40");   /* M, 9..10 */
    CU_ASSERT_STRING_EQUAL(perfetto_slice_track(&pf, 6, 4), "sys.l1d1 0x80");
    CU_ASSERT_STRING_EQUAL(perfetto_slice_track(&pf, 7, 3), "sys.bus 0x40");    /* its own */
    CU_ASSERT_EQUAL(pf.n_x, 4);
    CU_ASSERT_EQUAL(pf.n_i, 5);
    CU_ASSERT_PTR_NOT_NULL(strstr(text[2], "{\"name\":\"S\",\"cat\":\"state\",\"ph\":\"X\",\"ts\":5,"
                                           "\"dur\":4,\"pid\":2,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text[2], "\"state_tracks\":3"));
    perfetto_free(&pf);

    /* VCD: codes in narrow wires; names in one filter per key, split when two wires disagree */
    Vcd v;
    CU_ASSERT_TRUE_FATAL(vcd_load(text[3], &v));
    CU_ASSERT_EQUAL(vcd_at(&v, "sys.l1d0.to", 5), 5);
    CU_ASSERT_EQUAL(vcd_at(&v, "sys.l1d0.to", 9), 3);
    CU_ASSERT_EQUAL(vcd_at(&v, "sys.bus.n", 8), 77);
    static const struct { const char *wire; guint width; } widths[] = {
        { "sys.l1d0.to", 3 }, { "sys.l1d0.on", 2 }, { "sys.bus.to", 2 }, { "sys.bus.n", 64 },
        { "sys.l1d0.addr", 64 },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(widths); i++)
        CU_ASSERT_EQUAL(GPOINTER_TO_UINT(g_hash_table_lookup(v.width,
                            g_hash_table_lookup(v.by_path, widths[i].wire))), widths[i].width);
    vcd_free(&v);
    char *p = g_build_filename(dir, "t.vcd", NULL);
    char *to = g_strconcat(p, ".to.filter", NULL), *to2 = g_strconcat(p, ".to.2.filter", NULL);
    char *n = g_strconcat(p, ".n.filter", NULL), *gtkw_path = g_strconcat(p, ".gtkw", NULL);
    char *tf = slurp(to, NULL), *tf2 = slurp(to2, NULL), *gtkw = slurp(gtkw_path, NULL);
    CU_ASSERT_TRUE_FATAL(tf != NULL && tf2 != NULL && gtkw != NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(tf, "\n3 M\n5 S\n"));   /* sys.l1d0.to and sys.l1d1.to */
    CU_ASSERT_PTR_NULL(strstr(tf, "l1d0"));
    CU_ASSERT_TRUE(g_str_has_suffix(tf2, ")\n0 l1d0\n"));   /* sys.bus.to names other things */
    CU_ASSERT_FALSE(g_file_test(n, G_FILE_TEST_EXISTS));   /* a mixed wire is a plain number */
    /* four dumps; the VCD's .filter, from, to, to.2, on filters and .gtkw */
    CU_ASSERT_EQUAL(dir_entries(dir), 4 + 6);
    /* the .gtkw loads the dump and puts each filter on its wires, names shown in decimal */
    CU_ASSERT_PTR_NOT_NULL(strstr(gtkw, "[dumpfile] \"t.vcd\"\n[savefile] \"t.vcd.gtkw\"\n"));
    static const struct { const char *signal, *filter; } attach[] = {
        { "sys.l1d0.to[2:0]", "t.vcd.to.filter" }, { "sys.l1d1.to[2:0]", "t.vcd.to.filter" },
        { "sys.bus.to[1:0]", "t.vcd.to.2.filter" }, { "sys.l1d0.on[1:0]", "t.vcd.on.filter" },
        { "sys.bus.event[1:0]", "t.vcd.filter" }, { "+{sys.l1d0} sys.l1d0.to[2:0]", "t.vcd.to.filter" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(attach); i++) {
        char *f = gtkw_filter_of(gtkw, attach[i].signal);
        CU_ASSERT_STRING_EQUAL(f != NULL ? f : "(none)", attach[i].filter);
        g_free(f);
    }
    CU_ASSERT_PTR_NULL(gtkw_filter_of(gtkw, "sys.bus.n[63:0]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(gtkw, "\n@2024\n"));   /* decimal + translated by file */
    CU_ASSERT_PTR_NOT_NULL(strstr(gtkw, "\n@22\nsys.l1d0.addr[63:0]\n"));   /* addresses in hex */
    char *vcd2fst = g_find_program_in_path("vcd2fst");
    if (vcd2fst != NULL) {
        char *fst = g_build_filename(dir, "t.fst", NULL);
        const char *argv[] = { vcd2fst, p, fst, NULL };
        CU_ASSERT_TRUE(run_ok(argv, NULL));
        g_unlink(fst);
        g_free(fst);
        g_free(vcd2fst);
    }
    for (size_t i = 0; i < 4; i++)
        g_free(text[i]);
    g_free(tf);
    g_free(tf2);
    g_free(gtkw);
    g_free(to);
    g_free(to2);
    g_free(n);
    g_free(gtkw_path);
    g_free(p);
    g_free(dir);
}

/* A tee feeds two dumps, each with its own filters; the teaching table ignores the component
 * filter; close closes both. */
static void test_tee(void)
{
    char *dir = test_dir("tee");
    char *tp = g_build_filename(dir, "t.txt", NULL), *kp = g_build_filename(dir, "t.teach", NULL);
    char *comps[] = { "sys.l1d*", NULL };
    TraceOptions a = opts_for(TRACE_FMT_TEXT, tp), b = opts_for(TRACE_FMT_TEACH, kp);
    b.sink = &teach_consumer;
    a.components = comps;
    b.components = comps;
    TraceDump *td = trace_tee(trace_open(&a, NULL), trace_open(&b, NULL));
    int core = trace_register_as(td, "sys.core0", core_teach);
    CU_ASSERT_TRUE(core >= 0);                   /* kept for the table */
    emit_enum_scenario(td);
    TraceArg load[] = { TARG_X("addr", 0x40), TARG_U("value", 3), TARG_S("cache", "sys.l1d0") };
    trace_emit(td, core, 1, "load", 10, load, 3);
    CU_ASSERT_EQUAL(trace_count(td), 6);
    CU_ASSERT_TRUE(trace_close(td, NULL));
    char *t = slurp(tp, NULL), *k = slurp(kp, NULL);
    CU_ASSERT_TRUE_FATAL(t != NULL && k != NULL);
    CU_ASSERT_PTR_NULL(strstr(t, "sys.bus") != NULL ? t : strstr(t, "core0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "sys.l1d1: state"));
    CU_ASSERT_PTR_NOT_NULL(strstr(k, "\n   11  sys.core0 load 0x40"));
    CU_ASSERT_EQUAL(dir_entries(dir), 2);
    CU_ASSERT_FALSE(trace_format_parse("teach", &a.format));   /* --teach, not --trace-format */
    CU_ASSERT_STRING_EQUAL(trace_format_name(TRACE_FMT_TEACH), "teach");
    g_free(t);
    g_free(k);
    g_free(tp);
    g_free(kp);
    g_free(dir);
}

/* issue 16 item 2: a --trace-components glob that matches no registered component is an
 * EX_USAGE error naming the glob and the components there are (with the closest as a hint), for
 * a plain dump and through a tee; every glob matching something passes, however many share a
 * component; no filter passes. */
static void test_issue16_item2_unmatched_glob(void)
{
    char *dir = test_dir("unmatched");
    char *path = g_build_filename(dir, "u.txt", NULL);
    const char *names[] = { "core", "l1i", "l1d", "l2", "dram" };

    char *ok[] = { "l1*", "l1d", "*", NULL };
    TraceOptions o = opts_for(TRACE_FMT_TEXT, path);
    o.components = ok;
    TraceDump *td = trace_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
        trace_register(td, names[i]);
    GError *e = NULL;
    CU_ASSERT_TRUE(trace_check_components(td, &e));
    CU_ASSERT_PTR_NULL(e);
    trace_abort(td);

    char *bad[] = { "l2", "system.l1*", "l1dd", NULL };
    o.components = bad;
    td = trace_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
        trace_register(td, names[i]);
    trace_register(td, "l1d");                  /* a second registration is not listed twice */
    CU_ASSERT_FALSE(trace_check_components(td, &e));
    CU_ASSERT_TRUE_FATAL(e != NULL);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_USAGE);
    CU_ASSERT_STRING_EQUAL(e->message, "--trace-components: 'system.l1*' matches no component; "
                                       "components: core, l1i, l1d, l2, dram");
    g_clear_error(&e);
    trace_abort(td);

    char *typo[] = { "l1dd", NULL };
    o.components = typo;
    TraceOptions k = opts_for(TRACE_FMT_TEACH, "-");
    k.sink = &teach_consumer;
    td = trace_tee(trace_open(&o, NULL), trace_open(&k, NULL));
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
        trace_register(td, names[i]);
    CU_ASSERT_FALSE(trace_check_components(td, &e));
    CU_ASSERT_TRUE_FATAL(e != NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "'l1dd' matches no component; components: core, "
                                              "l1i, l1d, l2, dram; did you mean 'l1d'?"));
    g_clear_error(&e);
    trace_abort(td);

    o.components = NULL;                         /* no filter: nothing to check */
    td = trace_open(&o, NULL);
    trace_register(td, "core");
    CU_ASSERT_TRUE(trace_check_components(td, NULL));
    trace_abort(td);
    CU_ASSERT_EQUAL(dir_entries(dir), 0);
    g_free(path);
    g_free(dir);
}

/* trace_rename moves the dump, its filters and its .gtkw, whose references follow. */
static void test_rename_with_side_files(void)
{
    char *dir = test_dir("rename");
    char *path = g_build_filename(dir, "t.vcd", NULL);
    char *sub = g_build_filename(dir, "kept", NULL);
    g_mkdir(sub, 0700);
    char *moved = g_build_filename(sub, "x-t.vcd", NULL);
    TraceOptions o = opts_for(TRACE_FMT_VCD, path);
    TraceDump *td = trace_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    emit_enum_scenario(td);
    CU_ASSERT_TRUE(trace_close(td, NULL));
    guint n = dir_entries(dir);
    CU_ASSERT_TRUE(trace_rename(path, moved, NULL));
    CU_ASSERT_EQUAL(dir_entries(dir), 1);        /* only kept/ */
    CU_ASSERT_EQUAL(dir_entries(sub), n - 1);
    char *gp = g_strconcat(moved, ".gtkw", NULL), *g = slurp(gp, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_PTR_NOT_NULL(strstr(g, "[dumpfile] \"x-t.vcd\"\n[savefile] \"x-t.vcd.gtkw\"\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(g, " x-t.vcd.to.2.filter\n"));
    CU_ASSERT_PTR_NULL(strstr(g, " t.vcd."));
    char *f2 = g_strconcat(moved, ".to.2.filter", NULL);
    CU_ASSERT_TRUE(g_file_test(f2, G_FILE_TEST_IS_REGULAR));
    GError *e = NULL;
    CU_ASSERT_FALSE(trace_rename(path, moved, &e));   /* gone already */
    CU_ASSERT_TRUE(e != NULL && e->code == ARCHSIM_EXIT_IOERR);
    g_clear_error(&e);
    g_free(f2);
    g_free(g);
    g_free(gp);
    g_free(moved);
    g_free(sub);
    g_free(path);
    g_free(dir);
}

/* The VCD reader must reject what it is there to catch. */
static void test_vcd_checker_catches_errors(void)
{
    static const char *const bad[] = {
        "$timescale 1ns $end\n$enddefinitions $end\n#0\nb1 !\n",                    /* undeclared */
        "$scope module a $end\n$var wire 1 ! e $end\n$upscope $end\n"
        "$enddefinitions $end\n#5\nb1 !\n#5\nb0 !\n",                               /* time */
        "$scope module a $end\n$var wire 1 ! e $end\n$upscope $end\n"
        "$enddefinitions $end\n#5\nb10 !\n",                                        /* too wide */
        "$scope module a $end\n$var wire 1 ! e $end\n$enddefinitions $end\n#0\n",   /* no upscope */
    };
    vcd_verbose = false;
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        Vcd v;
        CU_ASSERT_FALSE(vcd_load(bad[i], &v));
        vcd_free(&v);
    }
    vcd_verbose = true;
    const char *good = "$timescale 1ns $end\n$scope module a $end\n$var wire 2 ! e $end\n"
                       "$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\nb0 !\n$end\n#3\nb10 !\n";
    Vcd v;
    CU_ASSERT_TRUE(vcd_load(good, &v));
    CU_ASSERT_EQUAL(vcd_at(&v, "a.e", 2), 0);
    CU_ASSERT_EQUAL(vcd_at(&v, "a.e", 3), 2);
    vcd_free(&v);
}

/* ---- window and filters ---- */

static char *run_text(TraceOptions *o, int *tracks, const char *const *comps, int ncomps,
                      void (*emit)(TraceDump *, const int *), uint64_t *count)
{
    TraceDump *td = trace_open(o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    for (int i = 0; i < ncomps; i++)
        tracks[i] = trace_register(td, comps[i]);
    emit(td, tracks);
    *count = trace_count(td);
    CU_ASSERT_TRUE(trace_close(td, NULL));
    return slurp(o->path, NULL);
}

static void emit_window(TraceDump *td, const int *t)
{
    static const uint64_t cycles[] = { 5, 9, 10, 15, 20, 21, 1000 };
    CU_ASSERT_FALSE(trace_window_has(trace_options(td), 9));
    CU_ASSERT_TRUE(trace_window_has(trace_options(td), 10));
    CU_ASSERT_TRUE(trace_window_has(trace_options(td), 20));
    CU_ASSERT_FALSE(trace_window_has(trace_options(td), 21));
    for (size_t i = 0; i < G_N_ELEMENTS(cycles); i++)
        trace_emit(td, t[0], cycles[i], "e", 0, NULL, 0);
}

static void emit_components(TraceDump *td, const int *t)
{
    for (int i = 0; i < 4; i++)
        trace_emit(td, t[i], 1, "e", 0, NULL, 0);   /* t[i] == -1 must be a no-op */
}

static void emit_addrs(TraceDump *td, const int *t)
{
    static const uint64_t addrs[] = { 0xfff, 0x1000, 0x1040, 0x1fff, 0x2000 };
    for (size_t i = 0; i < G_N_ELEMENTS(addrs); i++) {
        TraceArg a[] = { TARG_U("n", i), TARG_X("addr", addrs[i]) };
        trace_emit(td, t[0], i, "acc", 0, a, 2);
    }
    TraceArg none[] = { TARG_U("n", 9) };
    trace_emit(td, t[0], 9, "noaddr", 0, none, 1);
    TraceArg str[] = { TARG_S("addr", "somewhere") };
    trace_emit(td, t[0], 10, "straddr", 0, str, 1);
}

static void test_window_and_filters(void)
{
    char *dir = test_dir("filters");
    char *path = g_build_filename(dir, "w.txt", NULL);
    int t[4];
    uint64_t count = 0;

    TraceOptions o = opts_for(TRACE_FMT_TEXT, path);
    o.start = 10;
    o.end = 20;
    const char *one[] = { "c" };
    char *text = run_text(&o, t, one, 1, emit_window, &count);
    CU_ASSERT_STRING_EQUAL(text, "     10: c: e\n     15: c: e\n     20: c: e\n");
    CU_ASSERT_EQUAL(count, 3);
    g_free(text);

    char *globs[] = { "system.l1*", "mem", NULL };
    o = opts_for(TRACE_FMT_TEXT, path);
    o.components = globs;
    const char *comps[] = { "system.l1d", "system.core0", "system.l1i", "mem.ctrl" };
    text = run_text(&o, t, comps, 4, emit_components, &count);
    CU_ASSERT_TRUE(t[0] >= 0 && t[1] == -1 && t[2] >= 0 && t[3] == -1);
    CU_ASSERT_STRING_EQUAL(text, "      1: system.l1d: e\n      1: system.l1i: e\n");
    CU_ASSERT_EQUAL(count, 2);
    g_free(text);

    char *no_globs[] = { NULL };              /* an empty list filters nothing */
    o.components = no_globs;
    text = run_text(&o, t, comps, 4, emit_components, &count);
    CU_ASSERT_EQUAL(count, 4);
    g_free(text);

    o = opts_for(TRACE_FMT_TEXT, path);
    o.addr_filter = true;
    o.addr_lo = 0x1000;
    o.addr_hi = 0x1fff;
    text = run_text(&o, t, one, 1, emit_addrs, &count);
    CU_ASSERT_STRING_EQUAL(text,
        "      1: c: acc n=1 addr=0x1000\n"
        "      2: c: acc n=2 addr=0x1040\n"
        "      3: c: acc n=3 addr=0x1fff\n"
        "      9: c: noaddr n=9\n"
        "     10: c: straddr addr=somewhere\n");
    g_free(text);

    GError *err = NULL;
    o = opts_for(TRACE_FMT_TEXT, path);
    o.start = 20;
    o.end = 10;
    CU_ASSERT_PTR_NULL(trace_open(&o, &err));
    CU_ASSERT_TRUE(err != NULL && err->domain == ARCHSIM_RUN_ERROR
                   && err->code == ARCHSIM_EXIT_USAGE);
    g_clear_error(&err);
    g_free(path);
    g_free(dir);
}

static void emit_many(TraceDump *td, const int *t)
{
    for (uint64_t i = 0; i < 5; i++)
        trace_emit(td, t[0], i, "e", 0, NULL, 0);
}

static void test_max_events(void)
{
    char *dir = test_dir("max");
    char *path = g_build_filename(dir, "m.txt", NULL);
    int t[1];
    uint64_t count = 0;
    const char *one[] = { "c" };
    TraceOptions o = opts_for(TRACE_FMT_TEXT, path);
    o.max_events = 2;
    char *text = run_text(&o, t, one, 1, emit_many, &count);
    CU_ASSERT_EQUAL(count, 2);
    CU_ASSERT_STRING_EQUAL(text, "      0: c: e\n      1: c: e\n"
                                 "# archsim: trace truncated at max_events=2; first dropped event "
                                 "at cycle 2\n");
    g_free(text);
    g_free(path);

    path = g_build_filename(dir, "m.jsonl", NULL);
    o = opts_for(TRACE_FMT_JSONL, path);
    o.max_events = 2;
    text = run_text(&o, t, one, 1, emit_many, &count);
    char **lines = g_strsplit(text, "\n", -1);
    CU_ASSERT_EQUAL_FATAL(g_strv_length(lines), 4);
    Jv *last = json_parse(lines[2], strlen(lines[2]));
    Jv *trunc = jv_get(last, "truncated");
    uint64_t max = 0;
    CU_ASSERT_TRUE(trunc != NULL && trunc->t == JV_BOOL && trunc->b);
    CU_ASSERT_TRUE(jv_u64(last, "max_events", &max) && max == 2);
    jv_free(last);
    g_strfreev(lines);
    g_free(text);

    /* max_events = 0 means no limit, and no note. */
    o.max_events = 0;
    text = run_text(&o, t, one, 1, emit_many, &count);
    CU_ASSERT_EQUAL(count, 5);
    CU_ASSERT_PTR_NULL(strstr(text, "truncated"));
    g_free(text);
    g_free(path);
    g_free(dir);
}

/* ---- gzip, abort, errors ---- */

static void emit_mixed(TraceDump *td)
{
    int a = trace_register(td, "system.l1d"), b = trace_register(td, "system.core0");
    for (uint64_t i = 0; i < 20000; i++) {
        TraceArg args[] = { TARG_X("addr", 0x1000 + 64 * (i % 97)), TARG_U("way", i % 8),
                            TARG_S("kind", i % 3 ? "load" : "store") };
        trace_emit(td, (i & 1) ? a : b, i / 2, i % 5 ? "miss" : "hit", i % 7, args, 3);
    }
}

static void test_gzip_matches_plain(void)
{
    char *dir = test_dir("gzip");
    static const TraceFormat formats[] = { TRACE_FMT_TEXT, TRACE_FMT_JSONL, TRACE_FMT_PERFETTO,
                                           TRACE_FMT_VCD };
    g_setenv("SOURCE_DATE_EPOCH", "1767225600", TRUE);   /* identical $date in both VCDs */
    for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
        char *plain = g_strdup_printf("%s/d%zu.out", dir, i);
        char *gz = g_strdup_printf("%s/d%zu.out.gz", dir, i);
        for (int pass = 0; pass < 2; pass++) {
            TraceOptions o = opts_for(formats[i], pass ? gz : plain);
            TraceDump *td = trace_open(&o, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(td);
            emit_mixed(td);
            CU_ASSERT_TRUE(trace_close(td, NULL));
        }
        size_t n1 = 0, n2 = 0, n3 = 0;
        char *a = slurp(plain, &n1), *b = slurp_gz(gz, &n2), *raw = slurp(gz, &n3);
        if (formats[i] == TRACE_FMT_VCD && b != NULL) {
            /* The VCD's $comment names its own filter file, the one thing allowed to differ. */
            GString *fix = g_string_new_len(b, (gssize)n2);
            CU_ASSERT_EQUAL(g_string_replace(fix, ".out.gz.filter", ".out.filter", 1), 1);
            n2 = fix->len;
            g_free(b);
            b = g_string_free(fix, FALSE);
        }
        CU_ASSERT_TRUE(a != NULL && b != NULL && raw != NULL);
        CU_ASSERT_TRUE(n1 > 100000 && n1 == n2 && a != NULL && b != NULL && memcmp(a, b, n1) == 0);
        CU_ASSERT_TRUE(n3 > 2 && (unsigned char)raw[0] == 0x1f && (unsigned char)raw[1] == 0x8b);
        CU_ASSERT_TRUE(n3 < n1 / 3);
        g_free(a);
        g_free(b);
        g_free(raw);
        g_free(plain);
        g_free(gz);
    }
    g_unsetenv("SOURCE_DATE_EPOCH");
    g_free(dir);
}

static void test_abort_leaves_nothing(void)
{
    char *dir = test_dir("abort");
    static const TraceFormat formats[] = { TRACE_FMT_TEXT, TRACE_FMT_JSONL, TRACE_FMT_PERFETTO,
                                           TRACE_FMT_VCD };
    static const char *const names[] = { "a.txt", "a.jsonl.gz", "a.json", "a.vcd.gz" };
    for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
        char *path = g_build_filename(dir, names[i], NULL);
        TraceOptions o = opts_for(formats[i], path);
        TraceDump *td = trace_open(&o, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(td);
        emit_mixed(td);
        CU_ASSERT_TRUE(dir_entries(dir) >= 1);
        trace_abort(td);
        CU_ASSERT_EQUAL(dir_entries(dir), 0);
        g_free(path);
    }
    trace_abort(NULL);
    g_free(dir);
}

static void test_missing_directory(void)
{
    char *path = g_build_filename(tmpdir, "no-such-dir", "t.txt", NULL);
    TraceOptions o = opts_for(TRACE_FMT_TEXT, path);
    GError *err = NULL;
    CU_ASSERT_PTR_NULL(trace_open(&o, &err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    CU_ASSERT_TRUE(err->domain == ARCHSIM_RUN_ERROR);
    CU_ASSERT_EQUAL(err->code, ARCHSIM_EXIT_CANTCREAT);
    CU_ASSERT_EQUAL(archsim_exit_code(err), 73);
    CU_ASSERT_TRUE(g_str_has_prefix(err->message, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(err->message, "No such file or directory"));
    g_error_free(err);
    g_free(path);
}

/* When the final rename fails (a directory appeared at PATH while the dump was written), close
 * reports EX_IOERR and cleans up; a directory there before is refused at open (exit 73). */
static void test_close_failure_is_ioerr(void)
{
    char *dir = test_dir("ioerr");
    char *path = g_build_filename(dir, "t.vcd", NULL);
    char *inside = g_build_filename(path, "keep", NULL);
    TraceOptions o = opts_for(TRACE_FMT_VCD, path);
    TraceDump *td = trace_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(td);
    g_mkdir(path, 0700);
    g_file_set_contents(inside, "x", 1, NULL);
    GError *open_err = NULL;
    CU_ASSERT_PTR_NULL(trace_open(&o, &open_err));
    CU_ASSERT_TRUE(open_err != NULL && open_err->code == ARCHSIM_EXIT_CANTCREAT &&
                   strstr(open_err->message, "is a directory") != NULL);
    g_clear_error(&open_err);
    emit_mixed(td);
    GError *err = NULL;
    CU_ASSERT_FALSE(trace_close(td, &err));
    CU_ASSERT_TRUE(err != NULL && err->domain == ARCHSIM_RUN_ERROR
                   && err->code == ARCHSIM_EXIT_IOERR);
    CU_ASSERT_TRUE(err != NULL && g_str_has_prefix(err->message, path));
    CU_ASSERT_EQUAL(dir_entries(dir), 1);      /* only the directory in the way */
    g_clear_error(&err);
    g_free(inside);
    g_free(path);
    g_free(dir);
}

/* ---- micro-benchmark: test_tracedump --bench [FORMAT]; TMPDIR picks the disk ----
 * 4 M events on 8 components, two arguments each (hex addr, string kind), every other one a
 * 20-cycle slice; the time includes open, close and the final write-out. */

static void bench(const char *only)
{
    static const TraceFormat formats[] = { TRACE_FMT_TEXT, TRACE_FMT_JSONL, TRACE_FMT_PERFETTO,
                                           TRACE_FMT_VCD };
    static const char *const comps[] = { "system.core0", "system.core1", "system.l1d0",
                                         "system.l1d1", "system.l2", "system.bus", "system.mem",
                                         "system.dir" };
    const uint64_t n = 4000000;
    for (size_t f = 0; f < G_N_ELEMENTS(formats); f++) {
        if (only != NULL && strcmp(only, trace_format_name(formats[f])) != 0)
            continue;
        for (int gz = 0; gz < 2; gz++) {
            char *path = g_strdup_printf("%s/bench%s", tmpdir, gz ? ".gz" : "");
            TraceOptions o = opts_for(formats[f], path);
            gint64 t0 = g_get_monotonic_time();
            TraceDump *td = trace_open(&o, NULL);
            int t[8];
            for (int i = 0; i < 8; i++)
                t[i] = trace_register(td, comps[i]);
            for (uint64_t i = 0; i < n; i++) {
                TraceArg a[] = { TARG_X("addr", 0x10000 + 64 * (i * 2654435761u % 4096)),
                                 TARG_S("kind", (i & 3) ? "load" : "store") };
                trace_emit(td, t[i & 7], i / 3, (i & 1) ? "miss" : "hit", (i & 1) ? 20 : 0, a, 2);
            }
            trace_close(td, NULL);
            double s = (double)(g_get_monotonic_time() - t0) / 1e6;
            GStatBuf st = { 0 };
            g_stat(path, &st);
            printf("%-9s%-4s %8.2f M events/s  %6.1f B/event\n", trace_format_name(formats[f]),
                   gz ? ".gz" : "", (double)n / s / 1e6, (double)st.st_size / (double)n);
            g_unlink(path);
            char *filter = g_strconcat(path, ".filter", NULL);
            g_unlink(filter);
            g_free(filter);
            g_free(path);
        }
    }
}

static int suite_init(void)
{
    tmpdir = g_dir_make_tmp("test_tracedump-XXXXXX", NULL);
    return tmpdir != NULL ? 0 : 1;
}

static int suite_clean(void)
{
    rm_tree(tmpdir);
    g_free(tmpdir);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--bench") == 0) {
        if (suite_init() != 0)
            return 1;
        bench(argc > 2 ? argv[2] : NULL);
        return suite_clean();
    }
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("tracedump", suite_init, suite_clean);
    static const struct { const char *name; CU_TestFunc fn; } tests[] = {
        { "json checker catches bad JSON", test_json_checker_catches_bad_json },
        { "slice checker catches overlap", test_slice_checker_catches_overlap },
        { "format, window and address parsers", test_parsers },
        { "text lines exact, .part until close", test_text_exact },
        { "text event larger than the buffer", test_text_big_event },
        { "jsonl lines valid and escaped", test_jsonl_valid_and_escaped },
        { "perfetto rules and overflow tracks", test_perfetto },
        { "issue15_item10: every format in time order with holds", test_issue15_item10_time_order },
        { "issue15_item10: reorder buffer bounded, overflow counted", test_issue15_item10_bounded },
        { "issue15_item10: perfetto size warning, once, with a window",
          test_issue15_item10_perfetto_size_warning },
        { "perfetto truncation metadata", test_perfetto_truncated },
        { "vcd checker catches bad VCD", test_vcd_checker_catches_errors },
        { "vcd header, times, ids, filter, values", test_vcd },
        { "window, component and address filters", test_window_and_filters },
        { "max_events note in text and jsonl", test_max_events },
        { "gzip output decompresses to plain", test_gzip_matches_plain },
        { "abort leaves no file", test_abort_leaves_nothing },
        { "missing directory is EX_CANTCREAT", test_missing_directory },
        { "failed rename is EX_IOERR", test_close_failure_is_ioerr },
        { "enum arguments: names, state tracks, filters, gtkw", test_enum_args },
        { "tee feeds a file and the teaching table", test_tee },
        { "issue16_item2: a glob matching no component is an error",
          test_issue16_item2_unmatched_glob },
        { "rename moves the filters and rewrites the gtkw", test_rename_with_side_files },
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
    return failures != 0 || CU_get_error() != CUE_SUCCESS ? 1 : 0;
}
