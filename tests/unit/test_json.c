/* test_json.c: CUnit tests for the one JSON string escaper (sim/json.c, issue 16 item 4: the
 * four copies in main.c, sweep.c, stats.c and tracedump.c disagreed on bad UTF-8).
 *
 * Exact outputs for ASCII, each control character form, quotes and backslash, valid 2-, 3- and
 * 4-byte UTF-8 (copied), and every kind of invalid UTF-8 (a \ufffd per byte): stray
 * continuation bytes, overlong forms, UTF-16 surrogates, code points above U+10FFFF, truncated
 * sequences at the end and in the middle, 0xC0/0xC1/0xF5..0xFF. Then a seeded random sweep:
 * the output always fits JSON_ESCAPE_MAX bytes per input byte, is valid UTF-8 and holds no raw
 * control character, quote or lone backslash, and ASCII text without specials is unchanged.
 */
#include <CUnit/Basic.h>
#include <stdbool.h>
#include <string.h>

#include "../../sim/json.h"

/* escapes the N bytes at IN by both entry points and checks they agree with WANT */
static void tj_check(const char *in, size_t n, const char *want)
{
    GString *g = g_string_new("<");
    json_escape(g, in, n);
    if (strcmp(g->str + 1, want) != 0)
        fprintf(stderr, "\n  escaping %zu bytes: want '%s', got '%s'\n", n, want, g->str + 1);
    CU_ASSERT_STRING_EQUAL(g->str + 1, want);
    CU_ASSERT_EQUAL(g->str[0], '<');       /* appends; what was there stays */
    char *buf = g_malloc(JSON_ESCAPE_MAX * n + 1);
    size_t m = json_escape_buf(buf, in, n);
    CU_ASSERT(m <= JSON_ESCAPE_MAX * n);
    CU_ASSERT_EQUAL(m, strlen(want));
    CU_ASSERT_EQUAL(memcmp(buf, want, MIN(m, strlen(want))), 0);
    g_free(buf);
    g_string_free(g, TRUE);
}

#define TJ(in, want) tj_check(in, sizeof(in) - 1, want)

static void test_ascii(void)
{
    TJ("", "");
    TJ("l1d.miss_rate", "l1d.miss_rate");
    TJ("a b ~ / { } [ ] : ,", "a b ~ / { } [ ] : ,");
    TJ("\x7f", "\x7f");                    /* DEL is no control character for JSON */
}

static void test_controls(void)
{
    TJ("\n\r\t\b\f", "\\n\\r\\t\\b\\f");
    TJ("\x01\x1f\x0b\x1b", "\\u0001\\u001f\\u000b\\u001b");
    tj_check("a\0b", 3, "a\\u0000b");      /* a NUL inside the N bytes */
}

static void test_quotes_backslash(void)
{
    TJ("\"", "\\\"");
    TJ("\\", "\\\\");
    TJ("C:\\dir \"x\"", "C:\\\\dir \\\"x\\\"");
}

static void test_valid_utf8(void)
{
    TJ("\xc3\xa9", "\xc3\xa9");                          /* U+00E9, 2 bytes */
    TJ("\xc2\x80", "\xc2\x80");                          /* U+0080, the smallest 2-byte */
    TJ("\xe2\x82\xac", "\xe2\x82\xac");                  /* U+20AC, 3 bytes */
    TJ("\xef\xbf\xbd", "\xef\xbf\xbd");                  /* U+FFFD itself */
    TJ("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");          /* U+1F600, 4 bytes */
    TJ("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");          /* U+10FFFF, the largest */
    TJ("x=\xc3\xa9\n", "x=\xc3\xa9\\n");
}

static void test_invalid_utf8(void)
{
    TJ("\x80", "\\ufffd");                               /* a stray continuation byte */
    TJ("a\xbf" "b", "a\\ufffdb");
    TJ("\xc0\xaf", "\\ufffd\\ufffd");                    /* overlong '/' */
    TJ("\xc1\xbf", "\\ufffd\\ufffd");
    TJ("\xe0\x80\xaf", "\\ufffd\\ufffd\\ufffd");         /* overlong, 3 bytes */
    TJ("\xf0\x80\x80\xaf", "\\ufffd\\ufffd\\ufffd\\ufffd");  /* overlong, 4 bytes */
    TJ("\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd");         /* U+D800, a surrogate */
    TJ("\xed\xbf\xbf", "\\ufffd\\ufffd\\ufffd");         /* U+DFFF */
    TJ("\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd");  /* U+110000 */
    TJ("\xf5\x80\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd");
    TJ("\xff", "\\ufffd");
    TJ("\xfe\xff", "\\ufffd\\ufffd");
    TJ("\xe2\x82", "\\ufffd\\ufffd");                    /* truncated at the end */
    TJ("\xf0\x9f\x98", "\\ufffd\\ufffd\\ufffd");
    TJ("\xe2\x82" "A", "\\ufffd\\ufffdA");               /* truncated before ASCII */
    TJ("\xc3" "\xc3\xa9", "\\ufffd\xc3\xa9");            /* then a valid one */
    /* a valid sequence cut by N: the bytes past N are not read */
    tj_check("\xe2\x82\xac", 2, "\\ufffd\\ufffd");
}

static void test_append_string(void)
{
    GString *g = g_string_new(NULL);
    json_append_string(g, "seed \"7\"\x01\xff");
    CU_ASSERT_STRING_EQUAL(g->str, "\"seed \\\"7\\\"\\u0001\\ufffd\"");
    g_string_truncate(g, 0);
    json_append_string(g, "");
    CU_ASSERT_STRING_EQUAL(g->str, "\"\"");
    g_string_free(g, TRUE);
}

static void test_random(void)
{
    GRand *r = g_rand_new_with_seed(16);
    for (int iter = 0; iter < 20000; iter++) {
        size_t n = (size_t)g_rand_int_range(r, 0, 24);
        char in[24];
        for (size_t i = 0; i < n; i++)
            in[i] = (char)g_rand_int_range(r, 0, 256);
        char out[24 * JSON_ESCAPE_MAX + 1];
        size_t m = json_escape_buf(out, in, n);
        CU_ASSERT_FATAL(m <= JSON_ESCAPE_MAX * n);
        out[m] = '\0';
        CU_ASSERT(g_utf8_validate(out, (gssize)m, NULL));
        bool esc = false, bad = false;
        for (size_t i = 0; i < m; i++) {
            unsigned char c = (unsigned char)out[i];
            if (esc) {
                bad |= strchr("\"\\nrtbfu", c) == NULL;
                esc = false;
            } else if (c == '\\') {
                esc = true;
            } else {
                bad |= c < 0x20 || c == '"';
            }
        }
        CU_ASSERT(!bad && !esc);
        /* printable ASCII without specials comes out unchanged */
        for (size_t i = 0; i < n; i++)
            in[i] = (char)g_rand_int_range(r, 0x20, 0x7f);
        for (size_t i = 0; i < n; i++)
            if (in[i] == '"' || in[i] == '\\')
                in[i] = '_';
        m = json_escape_buf(out, in, n);
        CU_ASSERT(m == n && memcmp(out, in, n) == 0);
    }
    g_rand_free(r);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("json", NULL, NULL);
    if (s == NULL || !CU_add_test(s, "ASCII", test_ascii) ||
        !CU_add_test(s, "control characters", test_controls) ||
        !CU_add_test(s, "quotes and backslash", test_quotes_backslash) ||
        !CU_add_test(s, "valid UTF-8 is copied", test_valid_utf8) ||
        !CU_add_test(s, "invalid UTF-8: one U+FFFD per byte", test_invalid_utf8) ||
        !CU_add_test(s, "json_append_string", test_append_string) ||
        !CU_add_test(s, "random bytes: bounded, valid UTF-8, no raw specials", test_random)) {
        CU_cleanup_registry();
        return 1;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failures = CU_get_number_of_failures();
    unsigned errors = CU_get_error() != CUE_SUCCESS;
    CU_cleanup_registry();
    return failures != 0 || errors != 0;
}
