/* test_config.c: CUnit tests for sim/config.c: YAML -> CfgNode with positions, every error
 * message, include: (deep merge order, nesting, cycles, missing files), --set, merge, copy,
 * emit -> parse round trips, and the fuzz regression inputs in tests/fuzz/config/.
 * Run from the repository root, or set ARCHSIM_TEST_DATA to tests/unit/data/config.
 */
#include <CUnit/Basic.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/config.h"
#include "../../sim/error.h"
#include "../../sim/param.h"

/* The fuzz harness's checker, so regression inputs are run exactly as the fuzzer ran them. */
#define FUZZ_CONFIG_NO_MAIN
#include "../../tools/fuzz/fuzz_config.c"

static const char *test_dir;  /* tests/unit/data/config */

/* Checks that err is ARCHSIM_CONFIG_ERROR with this code and exactly this message; the failure
 * report shows both messages. Clears err. */
#define EXPECT_ERROR(err, code, msg) test_expect_error(&(err), (code), (msg), __LINE__)
static void test_expect_error(GError **err, int code, const char *msg, int line)
{
    bool ok = *err != NULL && (*err)->domain == ARCHSIM_CONFIG_ERROR && (*err)->code == code &&
              strcmp((*err)->message, msg) == 0;
    char *what = g_strdup_printf("expected error %d \"%s\", got %d \"%s\"", code, msg,
                                 *err != NULL ? (*err)->code : 0,
                                 *err != NULL ? (*err)->message : "(no error)");
    if (!ok)
        fprintf(stderr, "\n  line %d: %s\n", line, what);
    CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, (unsigned)line, what, __FILE__, "", CU_FALSE);
    g_free(what);
    g_clear_error(err);
}

#define EXPECT_STR(got, want) test_expect_str((got), (want), __LINE__)
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

/* Loads text that must parse. */
static CfgNode *test_load(const char *text)
{
    GError *err = NULL;
    CfgNode *root = cfg_load_string("t.yaml", text, NULL, &err);
    if (root == NULL)
        fprintf(stderr, "\n  unexpected error: %s\n", err->message);
    CU_ASSERT_PTR_NOT_NULL(root);
    g_clear_error(&err);
    return root;
}

/* Loads text that must fail, and checks the message. */
#define EXPECT_LOAD_ERROR(text, code, msg) test_expect_load_error((text), (code), (msg), __LINE__)
static void test_expect_load_error(const char *text, int code, const char *msg, int line)
{
    GError *err = NULL;
    CfgNode *root = cfg_load_string("t.yaml", text, NULL, &err);
    CU_assertImplementation(root == NULL ? CU_TRUE : CU_FALSE, (unsigned)line, "load fails",
                            __FILE__, "", CU_FALSE);
    cfg_node_free(root);
    test_expect_error(&err, code, msg, line);
}

/* The node at a dotted path ("l1d.size"); sequence items by number ("list.1"). */
static const CfgNode *test_at(const CfgNode *root, const char *dotted)
{
    char **parts = g_strsplit(dotted, ".", -1);
    const CfgNode *n = root;
    for (int i = 0; parts[i] != NULL && n != NULL; i++) {
        if (n->kind == CFG_SEQ) {
            guint idx = (guint)atoi(parts[i]);
            n = idx < n->items->len ? g_ptr_array_index(n->items, idx) : NULL;
        } else {
            n = cfg_map_get(n, parts[i]);
        }
    }
    g_strfreev(parts);
    return n;
}

static const char *test_scalar(const CfgNode *root, const char *dotted)
{
    const CfgNode *n = test_at(root, dotted);
    return n != NULL && n->kind == CFG_SCALAR ? n->scalar : NULL;
}

static char *test_emit(const CfgNode *n)
{
    GString *s = g_string_new(NULL);
    cfg_node_emit_yaml(n, s, 0);
    return g_string_free(s, FALSE);
}

static char *test_path(const char *rel)
{
    return g_strdup_printf("%s/%s", test_dir, rel);
}

/* Checks that node's position is DIR/REL (REL = "file:line:col"). */
#define EXPECT_WHERE(node, dir, rel) test_expect_where((node), (dir), (rel), __LINE__)
static void test_expect_where(const CfgNode *node, const char *dir, const char *rel, int line)
{
    char *where = cfg_node_where(node), *want = g_strdup_printf("%s/%s", dir, rel);
    test_expect_str(where, want, line);
    g_free(where);
    g_free(want);
}

/* ------------------------------------------------------------------------------------------ */

static void test_positions(void)
{
    CfgNode *root = test_load("a: 1\nb:\n  c: [x, 'y']\n  d: \"q\"\n");
    if (root == NULL)
        return;
    CU_ASSERT_EQUAL(root->kind, CFG_MAP);
    CU_ASSERT_PTR_EQUAL(root->file, g_intern_string("t.yaml"));
    CU_ASSERT_EQUAL(root->keys->len, 2);
    const CfgNode *ka = g_ptr_array_index(root->keys, 0);
    EXPECT_STR(ka->scalar, "a");
    CU_ASSERT_EQUAL(ka->line, 1);
    CU_ASSERT_EQUAL(ka->col, 1);
    const CfgNode *a = test_at(root, "a");
    CU_ASSERT_EQUAL(a->line, 1);
    CU_ASSERT_EQUAL(a->col, 4);
    CU_ASSERT_FALSE(a->quoted);
    const CfgNode *b = test_at(root, "b");
    CU_ASSERT_EQUAL(b->kind, CFG_MAP);
    CU_ASSERT_EQUAL(b->line, 3);
    CU_ASSERT_EQUAL(b->col, 3);
    const CfgNode *c = test_at(root, "b.c");
    CU_ASSERT_EQUAL(c->kind, CFG_SEQ);
    CU_ASSERT_EQUAL(c->line, 3);
    CU_ASSERT_EQUAL(c->col, 6);
    const CfgNode *y = test_at(root, "b.c.1");
    EXPECT_STR(y->scalar, "y");
    CU_ASSERT_TRUE(y->quoted);
    CU_ASSERT_EQUAL(y->line, 3);
    CU_ASSERT_EQUAL(y->col, 10);
    CU_ASSERT_TRUE(test_at(root, "b.d")->quoted);
    CU_ASSERT_PTR_NULL(test_at(root, "b.c")->set_text);
    char *where = cfg_node_where(y);
    EXPECT_STR(where, "t.yaml:3:10");
    g_free(where);
    cfg_node_free(root);
}

static void test_empty_documents(void)
{
    const char *empties[] = {"", "# only a comment\n", "---\n", "---\n# c\n...\n", "\n\n"};
    for (size_t i = 0; i < G_N_ELEMENTS(empties); i++) {
        CfgNode *root = test_load(empties[i]);
        if (root == NULL)
            continue;
        CU_ASSERT_EQUAL(root->kind, CFG_MAP);
        CU_ASSERT_EQUAL(root->keys->len, 0);
        CU_ASSERT_EQUAL(root->line, 1);
        cfg_node_free(root);
    }
    /* A key with no value is an empty plain scalar. */
    CfgNode *root = test_load("a:\n");
    if (root != NULL) {
        EXPECT_STR(test_scalar(root, "a"), "");
        CU_ASSERT_FALSE(test_at(root, "a")->quoted);
        cfg_node_free(root);
    }
}

static void test_top_level_must_be_map(void)
{
    EXPECT_LOAD_ERROR("- a\n- b\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:1:1: the top level must be a map of 'key: value' lines, not a "
                      "sequence");
    EXPECT_LOAD_ERROR("hello\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:1:1: the top level must be a map of 'key: value' lines, not a "
                      "scalar");
    EXPECT_LOAD_ERROR("\n\n  ''\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:3:3: the top level must be a map of 'key: value' lines, not a "
                      "scalar");
}

static void test_syntax_errors(void)
{
    /* libyaml's problem and context, at problem_mark converted to 1-based. */
    EXPECT_LOAD_ERROR("a:\n  b: 1\n c: 2\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:3:2: did not find expected key (while parsing a block mapping)");
    EXPECT_LOAD_ERROR("a: [1, 2\nb: 3\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:2:2: did not find expected ',' or ']' (while parsing a flow "
                      "sequence)");
    EXPECT_LOAD_ERROR("a:\n\tb: 1\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:2:1: found character that cannot start any token (while scanning "
                      "for the next token)");
    EXPECT_LOAD_ERROR("a: 'open\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:2:1: found unexpected end of stream (while scanning a quoted "
                      "scalar)");
    /* At the end of a text whose last line has no line break, libyaml's mark is on a line past
     * it: the error is at the text's end instead (it said 2:1, 2:1 and 3:1 for these) */
    EXPECT_LOAD_ERROR("a: {d", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:1:6: did not find expected ',' or '}' (while parsing a flow "
                      "mapping)");
    EXPECT_LOAD_ERROR("x: \xc3\xa9{\r\nb: [1", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:2:6: did not find expected ',' or ']' (while parsing a flow "
                      "sequence)");
    EXPECT_LOAD_ERROR("a: 1\nb: 2\nc", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:3:2: could not find expected ':' (while scanning a simple key)");
    /* Reader errors have only a byte offset; line and column are counted from the text. */
    EXPECT_LOAD_ERROR("x: 1\na: \xff\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:2:4: invalid leading UTF-8 octet (#xFF)");
    EXPECT_LOAD_ERROR("\n\na: \"\x01\"", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:3:5: control characters are not allowed (#x1)");

    /* The same through a file, and through an include of that file. */
    char *path = test_path("errors/syntax.yaml");
    char *msg = g_strdup_printf("%s:3:2: did not find expected key (while parsing a block "
                                "mapping)", path);
    GError *err = NULL;
    CU_ASSERT_PTR_NULL(cfg_load_file(path, NULL, &err));
    EXPECT_ERROR(err, ARCHSIM_EXIT_CONFIG, msg);
    char *inc = test_path("errors/include_syntax.yaml");
    CU_ASSERT_PTR_NULL(cfg_load_file(inc, NULL, &err));
    EXPECT_ERROR(err, ARCHSIM_EXIT_CONFIG, msg);
    g_free(inc);
    g_free(msg);
    g_free(path);
}

static void test_unsupported_yaml(void)
{
    EXPECT_LOAD_ERROR("a: &x 1\nb: *x\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:1:4: anchor '&x' is not supported (write the value out, or share "
                      "it with include:)");
    EXPECT_LOAD_ERROR("a: 1\nb: *x\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:2:4: alias '*x' is not supported (write the value out, or share "
                      "it with include:)");
    EXPECT_LOAD_ERROR("base: &b\n  x: 1\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:1:7: anchor '&b' is not supported (write the value out, or share "
                      "it with include:)");
    EXPECT_LOAD_ERROR("a: !!str 1\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:1:4: tag 'tag:yaml.org,2002:str' is not supported");
    EXPECT_LOAD_ERROR("a: !custom [1]\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:1:4: tag '!custom' is not supported");
    EXPECT_LOAD_ERROR("a: 1\n---\nb: 2\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:2:1: only one YAML document per file is supported");
    EXPECT_LOAD_ERROR("a: \"x\\0y\"\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:1:4: NUL characters are not supported in values");
    EXPECT_LOAD_ERROR("? [a]\n: 1\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:1:3: map keys must be scalars, not a sequence");
    EXPECT_LOAD_ERROR("{a: 1}: 2\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:1:1: map keys must be scalars, not a map");
}

static void test_duplicate_keys(void)
{
    EXPECT_LOAD_ERROR("l1d:\n  size: 1\n  assoc: 2\n  size: 2\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:4:3: l1d.size: duplicate key; first defined at 2:3");
    EXPECT_LOAD_ERROR("a: 1\nb: 2\na: 3\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:3:1: a: duplicate key; first defined at 1:1");
    EXPECT_LOAD_ERROR("s:\n  - {x: 1, x: 2}\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:2:12: s[0].x: duplicate key; first defined at 2:6");
    /* Quoted and plain spellings of a key are the same key. */
    EXPECT_LOAD_ERROR("a: 1\n'a': 2\n", ARCHSIM_EXIT_CONFIG,
                      "t.yaml:2:1: a: duplicate key; first defined at 1:1");
    /* The same key in different maps is fine. */
    CfgNode *root = test_load("x:\n  a: 1\ny:\n  a: 2\n");
    cfg_node_free(root);
}

static void test_nesting_limit(void)
{
    GString *deep = g_string_new("a: ");
    for (int i = 0; i < 63; i++)
        g_string_append_c(deep, '[');
    for (int i = 0; i < 63; i++)
        g_string_append_c(deep, ']');
    CfgNode *root = test_load(deep->str);  /* the top map + 63 sequences = 64 levels */
    cfg_node_free(root);
    g_string_assign(deep, "a: ");
    for (int i = 0; i < 64; i++)
        g_string_append_c(deep, '[');
    EXPECT_LOAD_ERROR(deep->str, ARCHSIM_EXIT_CONFIG,
                      "t.yaml:1:67: nesting deeper than 64 levels is not supported");
    g_string_free(deep, TRUE);
}

static void test_missing_file(void)
{
    GError *err = NULL;
    char *path = test_path("no/such/file.yaml");
    CU_ASSERT_PTR_NULL(cfg_load_file(path, NULL, &err));
    CU_ASSERT_EQUAL(archsim_exit_code(err), 66);
    char *msg = g_strdup_printf("%s: cannot open: No such file or directory", path);
    EXPECT_ERROR(err, ARCHSIM_EXIT_NOINPUT, msg);
    g_free(msg);
    g_free(path);

    /* A directory is refused before it is opened (issue 15 item 3). */
    CU_ASSERT_PTR_NULL(cfg_load_file(test_dir, NULL, &err));
    msg = g_strdup_printf("%s: not a regular file (a directory)", test_dir);
    EXPECT_ERROR(err, ARCHSIM_EXIT_NOINPUT, msg);
    g_free(msg);
}

static void test_include_merge_order(void)
{
    char *path = test_path("include/main.yaml");
    GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
    GError *err = NULL;
    CfgNode *root = cfg_load_file(path, files, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_PTR_NULL(cfg_map_get(root, "include"));
    /* base.yaml, then sub/deep.yaml, then sub/over.yaml, then main.yaml: later wins. */
    EXPECT_STR(test_scalar(root, "l1d.size"), "64KiB");    /* over beats base */
    EXPECT_STR(test_scalar(root, "l1d.assoc"), "16");      /* main beats base */
    EXPECT_STR(test_scalar(root, "l1d.line"), "128B");     /* deep (via over) beats base */
    EXPECT_STR(test_scalar(root, "l1d.policy"), "lru");    /* only in deep */
    EXPECT_STR(test_scalar(root, "core.count"), "2");      /* only in base */
    EXPECT_STR(test_scalar(root, "core.trace"), "main.lt");
    EXPECT_STR(test_scalar(root, "name"), "deep");
    /* Sequences are replaced, not concatenated. */
    const CfgNode *list = test_at(root, "core.list");
    CU_ASSERT_EQUAL(list->items->len, 1);
    EXPECT_STR(test_scalar(root, "core.list.0"), "c");
    /* Positions point at the file that gave the winning value. */
    EXPECT_WHERE(test_at(root, "l1d.size"), test_dir, "include/sub/over.yaml:4:9");
    EXPECT_WHERE(test_at(root, "l1d.assoc"), test_dir, "include/main.yaml:4:10");
    /* Key order: first appearance along the merge order. */
    char *emitted = test_emit(root);
    EXPECT_STR(emitted, "l1d:\n  size: 64KiB\n  assoc: 16\n  line: 128B\n  policy: lru\n"
                        "core:\n  count: 2\n  list:\n    - c\n  trace: main.lt\nname: deep\n");
    g_free(emitted);
    /* files_read: each file once, after the files it includes. */
    CU_ASSERT_EQUAL_FATAL(files->len, 4);
    const char *order[] = {"include/base.yaml", "include/sub/deep.yaml", "include/sub/over.yaml",
                           "include/main.yaml"};
    for (guint i = 0; i < 4; i++) {
        char *p = test_path(order[i]);
        EXPECT_STR(g_ptr_array_index(files, i), p);
        g_free(p);
    }
    cfg_node_free(root);
    g_ptr_array_unref(files);
    g_free(path);
}

static void test_include_twice_and_nested_key(void)
{
    char *path = test_path("include/twice.yaml");
    GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
    GError *err = NULL;
    CfgNode *root = cfg_load_file(path, files, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    EXPECT_STR(test_scalar(root, "name"), "twice");
    EXPECT_STR(test_scalar(root, "l1d.size"), "32KiB");
    CU_ASSERT_EQUAL(files->len, 2);
    cfg_node_free(root);
    g_ptr_array_unref(files);
    g_free(path);

    /* include: below the top level is data, not an include. */
    path = test_path("include/nested_key.yaml");
    root = cfg_load_file(path, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    EXPECT_STR(test_scalar(root, "trace.include.1"), "l2");
    cfg_node_free(root);
    g_free(path);
}

static void test_include_errors(void)
{
    GError *err = NULL;
    char *a = test_path("cycle/a.yaml"), *b = test_path("cycle/b.yaml");
    char *msg = g_strdup_printf("%s:2:11: include cycle: %s -> %s -> %s", b, a, b, a);
    CU_ASSERT_PTR_NULL(cfg_load_file(a, NULL, &err));
    EXPECT_ERROR(err, ARCHSIM_EXIT_CONFIG, msg);
    g_free(msg);
    g_free(a);
    g_free(b);

    char *self = test_path("cycle/self.yaml");
    msg = g_strdup_printf("%s:1:10: include cycle: %s -> %s", self, self, self);
    CU_ASSERT_PTR_NULL(cfg_load_file(self, NULL, &err));
    EXPECT_ERROR(err, ARCHSIM_EXIT_CONFIG, msg);
    g_free(msg);
    g_free(self);

    /* A missing included file is a missing input (66), at the include entry. */
    char *missing = test_path("include/missing.yaml");
    char *nope = test_path("include/nope.yaml");
    msg = g_strdup_printf("%s:1:10: include: %s: cannot open: No such file or directory",
                          missing, nope);
    CU_ASSERT_PTR_NULL(cfg_load_file(missing, NULL, &err));
    EXPECT_ERROR(err, ARCHSIM_EXIT_NOINPUT, msg);
    g_free(msg);
    g_free(nope);
    g_free(missing);

    /* Bad include values, through cfg_load_string with a base directory. */
    char *dir = test_path("include");
    const struct {
        const char *text, *msg;
    } bad[] = {
        {"include: {a: 1}\n", "t.yaml:1:10: include: expected a file name or a list of file names"},
        {"include: [base.yaml, [x]]\n",
         "t.yaml:1:22: include: expected a file name or a list of file names"},
        {"include: ['']\n", "t.yaml:1:11: include: expected a file name or a list of file names"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        CU_ASSERT_PTR_NULL(cfg_load_string("t.yaml", bad[i].text, dir, &err));
        EXPECT_ERROR(err, ARCHSIM_EXIT_CONFIG, bad[i].msg);
    }
    g_free(dir);
}

static void test_load_string_includes(void)
{
    char *dir = test_path("include");
    GError *err = NULL;
    CfgNode *root = cfg_load_string("mem", "include: base.yaml\nname: mem\n", dir, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    EXPECT_STR(test_scalar(root, "name"), "mem");
    EXPECT_STR(test_scalar(root, "l1d.assoc"), "4");
    CU_ASSERT_PTR_NULL(cfg_map_get(root, "include"));
    CU_ASSERT_PTR_EQUAL(root->file, g_intern_string("mem"));
    cfg_node_free(root);
    /* An empty include: is no include. */
    root = cfg_load_string("mem", "include:\nname: x\n", dir, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_EQUAL(root->keys->len, 1);
    cfg_node_free(root);
    g_free(dir);
    /* Without a base directory include: stays as data. */
    root = test_load("include: base.yaml\n");
    if (root != NULL) {
        EXPECT_STR(test_scalar(root, "include"), "base.yaml");
        cfg_node_free(root);
    }
}

static void test_set_creates_and_overrides(void)
{
    CfgNode *root = test_load("l1d:\n  size: 32KiB\n  ways: [1, 2]\nempty:\n");
    if (root == NULL)
        return;
    GError *err = NULL;
    CU_ASSERT_TRUE(cfg_apply_set(root, "l1d.size=64KiB", &err));
    CU_ASSERT_TRUE(cfg_apply_set(root, "l2.bank.count=4", &err));  /* creates l2 and l2.bank */
    CU_ASSERT_TRUE(cfg_apply_set(root, "l1d.ways=[4, 8, 16]", &err));
    CU_ASSERT_TRUE(cfg_apply_set(root, "core={count: 2}", &err));
    CU_ASSERT_TRUE(cfg_apply_set(root, "name='a b'", &err));
    CU_ASSERT_TRUE(cfg_apply_set(root, "note=a: b #c", &err));     /* literal */
    CU_ASSERT_TRUE(cfg_apply_set(root, "empty.x=1", &err));         /* null value -> map */
    CU_ASSERT_TRUE(cfg_apply_set(root, "blank=", &err));
    CU_ASSERT_PTR_NULL(err);

    EXPECT_STR(test_scalar(root, "l1d.size"), "64KiB");
    EXPECT_STR(test_scalar(root, "l2.bank.count"), "4");
    EXPECT_STR(test_scalar(root, "l1d.ways.2"), "16");
    EXPECT_STR(test_scalar(root, "core.count"), "2");
    EXPECT_STR(test_scalar(root, "name"), "a b");
    CU_ASSERT_TRUE(test_at(root, "name")->quoted);
    EXPECT_STR(test_scalar(root, "note"), "a: b #c");
    CU_ASSERT_FALSE(test_at(root, "note")->quoted);
    EXPECT_STR(test_scalar(root, "empty.x"), "1");
    EXPECT_STR(test_scalar(root, "blank"), "");

    /* Positions: file "--set", line 0, column in the assignment; where() gives the assignment. */
    const CfgNode *v = test_at(root, "l1d.size");
    EXPECT_STR(v->file, "--set");
    CU_ASSERT_EQUAL(v->line, 0);
    CU_ASSERT_EQUAL(v->col, 10);
    char *where = cfg_node_where(v);
    EXPECT_STR(where, "--set l1d.size=64KiB");
    g_free(where);
    const CfgNode *bank = test_at(root, "l2.bank");
    CU_ASSERT_EQUAL(bank->col, 4);
    const CfgNode *count = test_at(root, "l2.bank.count");
    CU_ASSERT_EQUAL(count->col, 15);
    const CfgNode *k = g_ptr_array_index(bank->keys, 0);
    CU_ASSERT_EQUAL(k->col, 9);
    where = cfg_node_where(k);
    EXPECT_STR(where, "--set l2.bank.count=4");
    g_free(where);
    const CfgNode *w = test_at(root, "l1d.ways.1");
    CU_ASSERT_EQUAL(w->col, 14);
    EXPECT_STR(w->set_text, "l1d.ways=[4, 8, 16]");
    /* The overridden key keeps its file position; the value has the --set one. */
    const CfgNode *l1d = test_at(root, "l1d");
    const CfgNode *size_key = g_ptr_array_index(l1d->keys, 0);
    CU_ASSERT_EQUAL(size_key->line, 2);
    /* A key set again is replaced whole (maps are not merged by --set). */
    CU_ASSERT_TRUE(cfg_apply_set(root, "core={threads: 4}", &err));
    CU_ASSERT_PTR_NULL(test_at(root, "core.count"));
    EXPECT_STR(test_scalar(root, "core.threads"), "4");
    cfg_node_free(root);
}

static void test_set_errors(void)
{
    CfgNode *root = test_load("l1d:\n  size: 32KiB\n  ways: [1]\n");
    if (root == NULL)
        return;
    char *before = test_emit(root);
    const struct {
        const char *arg, *msg;
    } bad[] = {
        {"l1d.size", "--set l1d.size: expected KEY=VALUE, e.g. l1d.size=32KiB"},
        {"=4", "--set =4: empty key component at column 1"},
        {"l1d..size=4", "--set l1d..size=4: empty key component at column 5"},
        {".size=4", "--set .size=4: empty key component at column 1"},
        {"l1d.=4", "--set l1d.=4: empty key component at column 5"},
        {"l1d. size=4", "--set l1d. size=4: key component ' size' contains a space"},
        {"l1d.size.x=1", "--set l1d.size.x=1: l1d.size is a scalar (at t.yaml:2:9); cannot set "
                         "a key inside it"},
        {"l1d.ways.x.y=1", "--set l1d.ways.x.y=1: l1d.ways is a sequence (at t.yaml:3:9); cannot "
                           "set a key inside it"},
        {"l1d.ways=[1, 2", "--set l1d.ways=[1, 2: column 15: did not find expected ',' or ']' "
                           "(while parsing a flow sequence)"},
        {"a={x: 1, x: 2}", "--set a={x: 1, x: 2}: column 10: x: duplicate key; first defined at "
                           "column 4"},
        {"a=[&x 1]", "--set a=[&x 1]: column 4: anchor '&x' is not supported (write the value "
                     "out, or share it with include:)"},
        {"a='x' y", "--set a='x' y: column 7: did not find expected <document start>"},
        {"a=\"q\": 1", "--set a=\"q\": 1: expected a single value after '='"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        GError *err = NULL;
        CU_ASSERT_FALSE(cfg_apply_set(root, bad[i].arg, &err));
        EXPECT_ERROR(err, ARCHSIM_EXIT_USAGE, bad[i].msg);
    }
    GError *err = NULL;
    CU_ASSERT_FALSE(cfg_apply_set(root, "a=\xff", &err));
    EXPECT_ERROR(err, ARCHSIM_EXIT_USAGE, "--set: the assignment is not valid UTF-8");
    /* A failed --set changes nothing, even when its path would have created maps. */
    CU_ASSERT_FALSE(cfg_apply_set(root, "new.path=[", &err));
    g_clear_error(&err);
    char *after = test_emit(root);
    EXPECT_STR(after, before);
    g_free(before);
    g_free(after);
    cfg_node_free(root);
}

static void test_merge(void)
{
    CfgNode *dst = test_load("a: 1\nm:\n  x: 1\n  y: [1, 2]\ns: [a]\n");
    CfgNode *src = test_load("m:\n  y: [3]\n  z: 3\ns: {k: v}\nb: 2\na: [9]\n");
    if (dst == NULL || src == NULL)
        return;
    cfg_merge(dst, src);  /* consumes src */
    char *out = test_emit(dst);
    EXPECT_STR(out, "a:\n  - 9\nm:\n  x: 1\n  y:\n    - 3\n  z: 3\ns:\n  k: v\nb: 2\n");
    g_free(out);
    /* Non-maps: src replaces dst in place (the pointer stays valid). */
    CfgNode *scalar = cfg_node_new_scalar("old", "f", 1, 1);
    CfgNode *map = cfg_node_new_map("g", 2, 3);
    cfg_map_set(map, "k", cfg_node_new_scalar("v", "g", 2, 6));
    cfg_merge(scalar, map);
    CU_ASSERT_EQUAL(scalar->kind, CFG_MAP);
    EXPECT_STR(scalar->file, "g");
    EXPECT_STR(test_scalar(scalar, "k"), "v");
    cfg_node_free(scalar);
    cfg_node_free(dst);
}

static void test_node_helpers(void)
{
    CfgNode *map = cfg_node_new_map("f.yaml", 1, 1);
    cfg_map_set(map, "a", cfg_node_new_scalar("1", "f.yaml", 1, 4));
    cfg_map_set(map, "b", cfg_node_new_scalar(NULL, "f.yaml", 2, 4));
    cfg_map_set(map, "a", cfg_node_new_scalar("2", "f.yaml", 3, 4));  /* replaces */
    CU_ASSERT_EQUAL(map->keys->len, 2);
    EXPECT_STR(test_scalar(map, "a"), "2");
    EXPECT_STR(test_scalar(map, "b"), "");
    CU_ASSERT_PTR_NULL(cfg_map_get(map, "c"));
    CU_ASSERT_PTR_NULL(cfg_map_get(NULL, "a"));
    CU_ASSERT_PTR_NULL(cfg_map_get(test_at(map, "a"), "a"));  /* not a map */

    CfgNode *copy = cfg_node_copy(map);
    CU_ASSERT_TRUE(cfg_map_remove(map, "a"));
    CU_ASSERT_FALSE(cfg_map_remove(map, "a"));
    CU_ASSERT_EQUAL(map->keys->len, 1);
    CU_ASSERT_EQUAL(copy->keys->len, 2);  /* the copy is deep */
    EXPECT_STR(test_scalar(copy, "a"), "2");
    CU_ASSERT_EQUAL(test_at(copy, "a")->line, 3);

    CfgNode *lineless = cfg_node_new_map("nofile", 0, 0);  /* made in code: no position */
    char *w = cfg_node_where(lineless);
    EXPECT_STR(w, "nofile");
    g_free(w);
    cfg_node_free(lineless);
    cfg_node_free(map);
    cfg_node_free(copy);
}

/* Builds a map whose values are awkward scalars; emit then parse must give them back. */
static void test_emit_round_trip(void)
{
    const char *texts[] = {
        "plain", "", "yes", "- x", "-5", "a: b", "a:", "#c", "x #c", "a#b", " lead", "trail ",
        "multi\nline", "tab\there", "caf\xc3\xa9", "\xe2\x80\xa8", ("\xef\xbb\xbf" "bom"),
        "---",
        "...x", "--", "@x", "%x", "`x", "!x", "&x", "*x", "|x", ">x", "[x", "]x", "{x", ",x",
        "?x", "? x", ":x", "'q'", "\"q\"", "back\\slash", "\x7f", "\r", "\xc2\x85nel",
        "~", "null", "[1, 2]", "1e3", "0x1F", "\xf0\x9f\x98\x80",
    };
    CfgNode *root = cfg_node_new_map("t", 1, 1);
    for (size_t i = 0; i < G_N_ELEMENTS(texts); i++) {
        char key[16];
        g_snprintf(key, sizeof key, "k%zu", i);
        cfg_map_set(root, key, cfg_node_new_scalar(texts[i], "t", 1, 1));
        /* Also as keys, and quoted, and as sequence items. */
        char *k2 = g_strdup_printf("%s!", texts[i]);
        CfgNode *q = cfg_node_new_scalar(texts[i], "t", 1, 1);
        q->quoted = true;
        cfg_map_set(root, k2, q);
        g_free(k2);
    }
    /* Containers: empty ones, sequences of maps and of sequences, a very long key. */
    GError *err = NULL;
    CU_ASSERT_TRUE(cfg_apply_set(root, "nest=[{a: 1, b: [x, [y, {}]]}, [], {}, [[]]]", &err));
    CU_ASSERT_TRUE(cfg_apply_set(root, "m={}", &err));
    char *longkey = g_strnfill(1500, 'k');
    cfg_map_set(root, longkey, cfg_node_new_scalar("v", "t", 1, 1));
    cfg_map_set(root, "", cfg_node_new_scalar("empty key", "t", 1, 1));
    g_free(longkey);

    char *out = test_emit(root);
    CfgNode *back = cfg_load_string("back.yaml", out, NULL, &err);
    if (back == NULL)
        fprintf(stderr, "\n  emitted text does not parse: %s\n%s\n", err->message, out);
    CU_ASSERT_PTR_NOT_NULL(back);
    g_clear_error(&err);
    if (back != NULL) {
        CU_ASSERT_TRUE(fuzz_tree_equal(root, back));
        for (size_t i = 0; i < G_N_ELEMENTS(texts); i++) {
            char key[16];
            g_snprintf(key, sizeof key, "k%zu", i);
            EXPECT_STR(test_scalar(back, key), texts[i]);
        }
        /* Emitting again gives the same text. */
        char *again = test_emit(back);
        EXPECT_STR(again, out);
        g_free(again);
    }
    /* Spot checks of the chosen forms. */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "k0: plain\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "k1:\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "k3: \"- x\"\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "k4: -5\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "k12: \"multi\\nline\"\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "k14: caf\xc3\xa9\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "k15: \"\\u2028\"\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"\": empty key\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "? kkk"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "nest:\n  - a: 1\n    b:\n      - x\n      - - y\n"
                                       "        - {}\n  - []\n  - {}\n  - - []\nm: {}\n"));
    g_free(out);
    cfg_node_free(back);
    cfg_node_free(root);

    /* A parsed file emits in block style with keys in order. */
    root = test_load("a: 1\nb: {c: [x, 'y z'], d: {}}\n");
    if (root != NULL) {
        out = test_emit(root);
        EXPECT_STR(out, "a: 1\nb:\n  c:\n    - x\n    - \"y z\"\n  d: {}\n");
        g_free(out);
        GString *ind = g_string_new(NULL);
        cfg_node_emit_yaml(test_at(root, "b"), ind, 4);
        EXPECT_STR(ind->str, "    c:\n      - x\n      - \"y z\"\n    d: {}\n");
        g_string_free(ind, TRUE);
        cfg_node_free(root);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Issue 15 item 3: includes are loaded once, inputs are bounded, only regular files are read. */

static void test_write(const char *dir, const char *name, const char *text)
{
    char *p = g_build_filename(dir, name, NULL);
    CU_ASSERT_TRUE(g_file_set_contents(p, text, -1, NULL));
    g_free(p);
}

static char *test_tmpdir(void)
{
    char *d = g_dir_make_tmp("test_config-XXXXXX", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    return d;
}

static void test_rmdir(char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
        char *p = g_build_filename(dir, name, NULL);
        g_remove(p);
        g_free(p);
    }
    if (d != NULL)
        g_dir_close(d);
    g_rmdir(dir);
    g_free(dir);
}

/* PREFIX0.yaml ... PREFIX31.yaml, each including the next (twice, or once) and holding kI: I;
 * the last holds leaf. */
static void test_write_chain(const char *dir, const char *prefix, bool twice, const char *leaf)
{
    for (int i = 0; i < 32; i++) {
        char *name = g_strdup_printf("%s%d.yaml", prefix, i), *text;
        if (i == 31)
            text = g_strdup(leaf);
        else if (twice)
            text = g_strdup_printf("include: [%s%d.yaml, %s%d.yaml]\nk%d: %d\n", prefix, i + 1,
                                   prefix, i + 1, i, i);
        else
            text = g_strdup_printf("include: %s%d.yaml\nk%d: %d\n", prefix, i + 1, i, i);
        test_write(dir, name, text);
        g_free(text);
        g_free(name);
    }
}

/* 32 files, each including the next twice: 2^31 loads without the cache (depth 25 still ran
 * after 60 s), 32 with it. */
static void test_issue15_item3_include_twice_per_level(void)
{
    char *dir = test_tmpdir();
    test_write_chain(dir, "f", true, "leaf: yes\n");
    char *top = g_build_filename(dir, "f0.yaml", NULL);
    GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
    GError *err = NULL;
    gint64 t0 = g_get_monotonic_time();
    CfgNode *root = cfg_load_file(top, files, &err);
    double secs = (double)(g_get_monotonic_time() - t0) / 1e6;
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_TRUE(secs < 5.0);
    /* The merge is what it always was: the leaf first, then k30 ... k0, each file once. */
    CU_ASSERT_EQUAL(root->keys->len, 32);
    EXPECT_STR(((CfgNode *)g_ptr_array_index(root->keys, 0))->scalar, "leaf");
    EXPECT_STR(((CfgNode *)g_ptr_array_index(root->keys, 31))->scalar, "k0");
    EXPECT_STR(test_scalar(root, "k17"), "17");
    EXPECT_WHERE(test_at(root, "k17"), dir, "f17.yaml:2:6");
    CU_ASSERT_EQUAL(files->len, 32);
    char *last = g_build_filename(dir, "f31.yaml", NULL);
    EXPECT_STR(files->len > 0 ? g_ptr_array_index(files, 0) : NULL, last);
    g_free(last);
    cfg_node_free(root);
    g_ptr_array_unref(files);
    g_free(top);
    test_rmdir(dir);
}

/* A diamond, one side naming the shared file by another spelling: the same merge, positions
 * and relative-path base (the spelling) as when each include read its file again. */
static void test_issue15_item3_diamond(void)
{
    char *dir = test_tmpdir();
    char *sub = g_build_filename(dir, "sub", NULL);
    CU_ASSERT_EQUAL(g_mkdir(sub, 0755), 0);
    test_write(dir, "top.yaml", "include: [a.yaml, a.yaml, b.yaml]\ntop: 0\n");
    test_write(dir, "a.yaml", "include: c.yaml\na: 1\nshared: a\n");
    test_write(dir, "b.yaml", "include: sub/../c.yaml\nb: 2\n");
    test_write(dir, "c.yaml", "c: 3\nshared: c\n");
    char *top = g_build_filename(dir, "top.yaml", NULL);
    GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
    GError *err = NULL;
    CfgNode *root = cfg_load_file(top, files, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    char *out = test_emit(root);
    EXPECT_STR(out, "c: 3\nshared: c\na: 1\nb: 2\ntop: 0\n");
    g_free(out);
    /* c's values last came from b's side, which spells it sub/../c.yaml. */
    EXPECT_WHERE(test_at(root, "c"), dir, "sub/../c.yaml:1:4");
    EXPECT_WHERE(test_at(root, "shared"), dir, "sub/../c.yaml:2:9");
    /* Each spelling listed once, after what it includes. */
    const char *order[] = {"c.yaml", "a.yaml", "sub/../c.yaml", "b.yaml", "top.yaml"};
    CU_ASSERT_EQUAL_FATAL(files->len, G_N_ELEMENTS(order));
    for (guint i = 0; i < G_N_ELEMENTS(order); i++) {
        char *p = g_build_filename(dir, order[i], NULL);
        EXPECT_STR(g_ptr_array_index(files, i), p);
        g_free(p);
    }
    cfg_node_free(root);
    g_ptr_array_unref(files);
    g_free(top);
    g_rmdir(sub);
    g_free(sub);
    test_rmdir(dir);
}

/* A file loaded once near the top and again deeper down, where its includes pass the nesting
 * limit: the error is the one a load without the cache gives (checked against the old code). */
static void test_issue15_item3_depth_after_cache(void)
{
    char *dir = test_tmpdir();
    test_write_chain(dir, "c", false, "leaf: 1\n");
    test_write(dir, "top.yaml", "include: [c10.yaml, c0.yaml]\n");
    char *top = g_build_filename(dir, "top.yaml", NULL);
    GError *err = NULL;
    CU_ASSERT_PTR_NULL(cfg_load_file(top, NULL, &err));
    char *msg = g_strdup_printf("%s/c30.yaml:1:10: includes nested deeper than 32 files", dir);
    EXPECT_ERROR(err, ARCHSIM_EXIT_CONFIG, msg);
    g_free(msg);
    g_free(top);
    test_rmdir(dir);
}

/* FIFOs, devices and directories are refused without blocking or reading (exit 66), at the
 * position of the include entry. */
static void test_issue15_item3_not_regular(void)
{
    GError *err = NULL;
    CU_ASSERT_PTR_NULL(cfg_load_file("/dev/zero", NULL, &err));
    EXPECT_ERROR(err, ARCHSIM_EXIT_NOINPUT, "/dev/zero: not a regular file (a character device)");
    char *dir = test_tmpdir();
    char *fifo = g_build_filename(dir, "fifo.yaml", NULL);
    CU_ASSERT_EQUAL(mkfifo(fifo, 0600), 0);
    CU_ASSERT_PTR_NULL(cfg_load_file(fifo, NULL, &err));  /* would block in open() before */
    char *msg = g_strdup_printf("%s: not a regular file (a FIFO)", fifo);
    EXPECT_ERROR(err, ARCHSIM_EXIT_NOINPUT, msg);
    g_free(msg);
    CU_ASSERT_PTR_NULL(cfg_load_string("t.yaml", "a: 1\ninclude: [/dev/zero]\n", dir, &err));
    EXPECT_ERROR(err, ARCHSIM_EXIT_NOINPUT,
                 "t.yaml:2:11: include: /dev/zero: not a regular file (a character device)");
    CU_ASSERT_PTR_NULL(cfg_load_string("t.yaml", "include: fifo.yaml\n", dir, &err));
    msg = g_strdup_printf("t.yaml:1:10: include: %s: not a regular file (a FIFO)", fifo);
    EXPECT_ERROR(err, ARCHSIM_EXIT_NOINPUT, msg);
    g_free(msg);
    CU_ASSERT_PTR_NULL(cfg_load_string("t.yaml", "include: .\n", dir, &err));
    msg = g_strdup_printf("t.yaml:1:10: include: %s/.: not a regular file (a directory)", dir);
    EXPECT_ERROR(err, ARCHSIM_EXIT_NOINPUT, msg);
    g_free(msg);
    g_free(fifo);
    test_rmdir(dir);
}

/* The documented limits: 4 MiB of text (a file included twice counts twice), 1000 include:
 * entries; each message names the limit. */
static void test_issue15_item3_limits(void)
{
    char *dir = test_tmpdir();
    /* One file over 4 MiB. */
    GString *big = g_string_new("k: ");
    while (big->len <= (4u << 20))
        g_string_append(big, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    g_string_append_c(big, '\n');
    test_write(dir, "big.yaml", big->str);
    g_string_free(big, TRUE);
    GError *err = NULL;
    CU_ASSERT_PTR_NULL(cfg_load_string("t.yaml", "include: big.yaml\n", dir, &err));
    char *msg = g_strdup_printf("t.yaml:1:10: include: %s/big.yaml: larger than the limit of "
                                "4194304 bytes (4 MiB)", dir);
    EXPECT_ERROR(err, ARCHSIM_EXIT_CONFIG, msg);
    g_free(msg);
    /* 600 KB included eight times: only read once, but 4.8 MB of config text. */
    GString *mid = g_string_new(NULL);
    for (int i = 0; mid->len < 600000; i++)
        g_string_append_printf(mid, "key%d: a value of some length to fill the file\n", i);
    test_write(dir, "mid.yaml", mid->str);
    g_string_free(mid, TRUE);
    CU_ASSERT_PTR_NULL(cfg_load_string("t.yaml", "include: [mid.yaml, mid.yaml, mid.yaml, "
                                       "mid.yaml, mid.yaml, mid.yaml, mid.yaml, mid.yaml]\n",
                                       dir, &err));
    msg = g_strdup_printf("t.yaml:1:71: include: %s/mid.yaml: the config and its includes come to "
                          "more than 4194304 bytes (4 MiB; a file included twice counts twice)",
                          dir);
    EXPECT_ERROR(err, ARCHSIM_EXIT_CONFIG, msg);
    g_free(msg);
    /* 1001 include: entries of one small file. */
    test_write(dir, "small.yaml", "x: 1\n");
    GString *many = g_string_new("include:\n");
    for (int i = 0; i < 1001; i++)
        g_string_append(many, "  - small.yaml\n");
    CU_ASSERT_PTR_NULL(cfg_load_string("t.yaml", many->str, dir, &err));
    EXPECT_ERROR(err, ARCHSIM_EXIT_CONFIG,
                 "t.yaml:1002:5: include: more than 1000 include: entries in one config (the "
                 "limit; a file included twice counts twice)");
    /* 1000 are fine. */
    g_string_truncate(many, many->len - strlen("  - small.yaml\n"));
    CfgNode *root = cfg_load_string("t.yaml", many->str, dir, &err);
    CU_ASSERT_PTR_NOT_NULL(root);
    g_clear_error(&err);
    cfg_node_free(root);
    g_string_free(many, TRUE);
    test_rmdir(dir);
}

/* Merging an included file of 200k keys into the tree was quadratic in the keys (an index of
 * dst's keys makes it linear). */
static void test_issue15_item3_wide_include(void)
{
    char *dir = test_tmpdir();
    GString *wide = g_string_new(NULL);
    for (int i = 0; i < 200000; i++)
        g_string_append_printf(wide, "k%d: %d\n", i, i);
    test_write(dir, "wide.yaml", wide->str);
    g_string_free(wide, TRUE);
    GError *err = NULL;
    gint64 t0 = g_get_monotonic_time();
    CfgNode *root = cfg_load_string("t.yaml", "include: wide.yaml\nk7: x\n", dir, &err);
    double secs = (double)(g_get_monotonic_time() - t0) / 1e6;
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    CU_ASSERT_TRUE(secs < 10.0);
    CU_ASSERT_EQUAL(root->keys->len, 200000);
    EXPECT_STR(test_scalar(root, "k7"), "x");
    EXPECT_STR(test_scalar(root, "k199999"), "199999");
    cfg_node_free(root);
    test_rmdir(dir);
}

/* Issue 15 item 9: a path (or string) written quoted with spaces, '#', ': ' or quotes is kept
 * verbatim, written so that it reads back identical, and a path that YAML cannot hold (bytes
 * that are not UTF-8) is refused instead of naming another file when read back. */
static void test_issue15_item9_resolved_path_round_trip(void)
{
    char *dir = test_tmpdir();
    test_write(dir, "t.yaml", "trace: \"m.gz \"\nname: \" a #b: 'c' \"\n");
    char *path = g_build_filename(dir, "t.yaml", NULL);
    GError *err = NULL;
    CfgNode *root = cfg_load_file(path, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    FuzzTop top = {0}, back = {0};
    CU_ASSERT_TRUE_FATAL(param_apply(fuzz_top_specs, root, "", NULL, &top, &err));
    char *want = g_build_filename(dir, "m.gz ", NULL);
    EXPECT_STR(top.trace, want);
    EXPECT_STR(top.name, " a #b: 'c' ");
    GString *out = g_string_new(NULL);
    param_emit_yaml(fuzz_top_specs, &top, out, 0);
    char *line = g_strdup_printf("trace: \"%s\"\n", want);
    CU_ASSERT_PTR_NOT_NULL(strstr(out->str, line));
    CfgNode *again = cfg_load_string("config.resolved.yaml", out->str, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(again);
    CU_ASSERT_TRUE(param_apply(fuzz_top_specs, again, "", NULL, &back, &err));
    EXPECT_STR(back.trace, want);
    EXPECT_STR(back.name, top.name);
    param_free(fuzz_top_specs, &top);
    param_free(fuzz_top_specs, &back);
    cfg_node_free(again);
    cfg_node_free(root);
    g_string_free(out, TRUE);
    g_free(line);
    g_free(want);
    g_free(path);
    test_rmdir(dir);

    const ParamSpec p = {"p", PARAM_PATH, NULL, 0, 0, 0, NULL, "", 0};
    char *v = NULL, *problem = NULL;
    CU_ASSERT_FALSE(param_parse_value(&p, "a.gz", "/tmp/caf\xe9", &v, &problem));
    EXPECT_STR(problem, "'a.gz': the path is not valid UTF-8 once resolved "
                        "(\"/tmp/caf\\351/a.gz\"); config.resolved.yaml could not name it");
    CU_ASSERT_PTR_NULL(v);
    g_free(problem);
}

/* Every file in tests/fuzz/config/ (inputs that once crashed or broke an oracle) must now load
 * or fail cleanly, with every oracle of the fuzz harness holding. */
static void test_fuzz_regressions(void)
{
    /* the kept fuzz corpus, next to the other harnesses' (tests/fuzz/NAME/) */
    const char *env = g_getenv("ARCHSIM_TEST_DATA");
    char *dir = env != NULL ? g_build_filename(env, "..", "..", "..", "fuzz", "config", NULL)
                             : g_strdup("tests/fuzz/config");
    GDir *d = g_dir_open(dir, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    const char *name;
    int n = 0;
    while ((name = g_dir_read_name(d)) != NULL) {
        if (g_str_has_suffix(name, ".md"))
            continue;
        char *path = g_build_filename(dir, name, NULL);
        gchar *data = NULL;
        gsize len = 0;
        CU_ASSERT_TRUE(g_file_get_contents(path, &data, &len, NULL));
        int bad = data != NULL ? fuzz_config_one(data, len) : 1;
        if (bad)
            fprintf(stderr, "\n  fuzz regression failed: %s\n", path);
        CU_ASSERT_EQUAL(bad, 0);
        g_free(data);
        g_free(path);
        n++;
    }
    g_dir_close(d);
    g_free(dir);
    CU_ASSERT_TRUE(n > 0);
}

int main(void)
{
    test_dir = g_getenv("ARCHSIM_TEST_DATA");
    if (test_dir == NULL)
        test_dir = "tests/unit/data/config";
    if (!g_file_test(test_dir, G_FILE_TEST_IS_DIR)) {
        fprintf(stderr, "test_config: %s not found; run from the repository root or set "
                        "ARCHSIM_TEST_DATA\n", test_dir);
        return 1;
    }
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("config", NULL, NULL);
    const struct {
        const char *name;
        CU_TestFunc fn;
    } tests[] = {
        {"positions", test_positions},
        {"empty documents", test_empty_documents},
        {"top level must be a map", test_top_level_must_be_map},
        {"syntax errors", test_syntax_errors},
        {"unsupported YAML", test_unsupported_yaml},
        {"duplicate keys", test_duplicate_keys},
        {"nesting limit", test_nesting_limit},
        {"missing file", test_missing_file},
        {"include merge order", test_include_merge_order},
        {"include twice, nested include key", test_include_twice_and_nested_key},
        {"include errors", test_include_errors},
        {"load_string includes", test_load_string_includes},
        {"--set creates and overrides", test_set_creates_and_overrides},
        {"--set errors", test_set_errors},
        {"merge", test_merge},
        {"node helpers", test_node_helpers},
        {"emit round trip", test_emit_round_trip},
        {"fuzz regressions", test_fuzz_regressions},
        {"issue15_item3_include_twice_per_level", test_issue15_item3_include_twice_per_level},
        {"issue15_item3_diamond", test_issue15_item3_diamond},
        {"issue15_item3_depth_after_cache", test_issue15_item3_depth_after_cache},
        {"issue15_item3_not_regular", test_issue15_item3_not_regular},
        {"issue15_item3_limits", test_issue15_item3_limits},
        {"issue15_item3_wide_include", test_issue15_item3_wide_include},
        {"issue15_item9_resolved_path_round_trip", test_issue15_item9_resolved_path_round_trip},
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
