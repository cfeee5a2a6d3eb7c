/* test_jsonread.c: the strict JSON reader of `archsim diff` (sim/jsonread.c): numbers kept
 * verbatim and exact, escapes and UTF-8 decoded, non-number values of run.json skipped, and
 * FILE:LINE:COL positions (columns in characters) for every kind of error. */
#include <CUnit/Basic.h>
#include <string.h>

#include "../../sim/error.h"
#include "../../sim/jsonread.h"

static GPtrArray *rd(const char *text, bool numbers_only, GError **e)
{
    return json_read_numbers("f.json", text, strlen(text), numbers_only, e);
}

static const JsonNumber *at(GPtrArray *a, guint i)
{
    return g_ptr_array_index(a, i);
}

static void expect_error(const char *text, bool numbers_only, const char *msg)
{
    GError *e = NULL;
    GPtrArray *a = rd(text, numbers_only, &e);
    CU_ASSERT_PTR_NULL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_DATAERR);
    CU_ASSERT_TRUE(e->domain == ARCHSIM_RUN_ERROR);
    if (strcmp(e->message, msg))
        fprintf(stderr, "\n  got:      %s\n  expected: %s\n", e->message, msg);
    CU_ASSERT_STRING_EQUAL(e->message, msg);
    g_error_free(e);
    if (a)
        g_ptr_array_free(a, TRUE);
}

static void test_numbers(void)
{
    GError *e = NULL;
    GPtrArray *a = rd(" {\n  \"sim.cycles\": 93126,\n  \"x\": 0.40547519326049525, \"n\": -0,\n"
                      "\"big\": 18446744073709551615, \"huge\": 18446744073709551616, "
                      "\"neg\": -7, \"e\": 2E+3, \"one\": 1.0}\n\n", true, &e);
    CU_ASSERT_PTR_NULL(e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL_FATAL(a->len, 8);
    CU_ASSERT_STRING_EQUAL(at(a, 0)->name, "sim.cycles");
    CU_ASSERT_STRING_EQUAL(at(a, 0)->text, "93126");
    CU_ASSERT_TRUE(at(a, 0)->is_int && at(a, 0)->mag == 93126 && !at(a, 0)->neg);
    CU_ASSERT_EQUAL(at(a, 0)->line, 2);
    CU_ASSERT_EQUAL(at(a, 0)->col, 3);
    CU_ASSERT_STRING_EQUAL(at(a, 1)->text, "0.40547519326049525");   /* verbatim */
    CU_ASSERT_FALSE(at(a, 1)->is_int);
    CU_ASSERT_TRUE(at(a, 2)->is_int && at(a, 2)->mag == 0 && !at(a, 2)->neg);   /* -0 is 0 */
    CU_ASSERT_TRUE(at(a, 3)->is_int && at(a, 3)->mag == UINT64_MAX);
    CU_ASSERT_FALSE(at(a, 4)->is_int);                  /* past 64 bits: a double */
    CU_ASSERT_DOUBLE_EQUAL(at(a, 4)->d, 18446744073709551616.0, 1);
    CU_ASSERT_TRUE(at(a, 5)->is_int && at(a, 5)->neg && at(a, 5)->mag == 7);
    CU_ASSERT_FALSE(at(a, 6)->is_int);
    CU_ASSERT_DOUBLE_EQUAL(at(a, 6)->d, 2000, 0);
    CU_ASSERT_FALSE(at(a, 7)->is_int);
    g_ptr_array_free(a, TRUE);
    a = rd("{}", true, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(a->len, 0);
    g_ptr_array_free(a, TRUE);
}

static void test_strings(void)
{
    GError *e = NULL;
    GPtrArray *a = rd("{\"a\\u00e9\\ud83d\\ude00\\n\\\"\\/\": 1, \"\xc3\xa9t\xc3\xa9\": 2}", true, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_STRING_EQUAL(at(a, 0)->name, "a\xc3\xa9\xf0\x9f\x98\x80\n\"/");
    CU_ASSERT_STRING_EQUAL(at(a, 1)->name, "\xc3\xa9t\xc3\xa9");
    g_ptr_array_free(a, TRUE);
}

static void test_run_json(void)
{
    GError *e = NULL;
    const char *run = "{\n  \"argv\": [\"archsim\", \"run\"],\n  \"seed\": 1,\n  \"host_seconds\": "
                      "0.154,\n  \"o\": {\"k\": [true, false, null, {}, []]},\n  \"trace_dump\": "
                      "null\n}\n";
    GPtrArray *a = rd(run, false, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL_FATAL(a->len, 2);
    CU_ASSERT_STRING_EQUAL(at(a, 0)->name, "seed");
    CU_ASSERT_STRING_EQUAL(at(a, 1)->name, "host_seconds");
    g_ptr_array_free(a, TRUE);
    /* the same file as stats.json: the first non-number is the error */
    expect_error(run, true, "f.json:2:11: expected a number (stats.json maps each stat to a "
                 "number), found '['");
}

static void test_errors(void)
{
    expect_error("", true, "f.json:1:1: empty file (expected a JSON object)");
    expect_error("  \n ", true, "f.json:2:2: empty file (expected a JSON object)");
    expect_error("[1]", true, "f.json:1:1: expected '{' (the file is one JSON object), found '['");
    expect_error("{\"a\": 1", true, "f.json:1:8: expected ',' or '}', found end of file");
    expect_error("{\"a\": 1,}", true, "f.json:1:9: '}' after ',' (JSON has no trailing comma)");
    expect_error("{\"a\": [1,]}", false, "f.json:1:10: ']' after ',' (JSON has no trailing comma)");
    expect_error("{\"a\" 1}", true, "f.json:1:6: expected ':' after the member name, found '1'");
    expect_error("{a: 1}", true, "f.json:1:2: expected a member name in double quotes, found 'a'");
    expect_error("{\"a\": 1}\n}", true, "f.json:2:1: text after the end of the object");
    expect_error("{\n\"a\": 1,\n\"a\": 2}", true, "f.json:3:1: \"a\" appears twice");
    expect_error("{\"a\": 01}", true, "f.json:1:7: a number does not start with 0 (leading "
                 "zeros are not JSON)");
    expect_error("{\"a\": 1.}", true, "f.json:1:9: expected a digit after '.', found '}'");
    expect_error("{\"a\": 1e}", true, "f.json:1:9: expected a digit in the exponent, found '}'");
    expect_error("{\"a\": -}", true, "f.json:1:8: expected a digit, found '}'");
    expect_error("{\"a\": +1}", true, "f.json:1:7: expected a number (stats.json maps each stat "
                 "to a number), found '+'");
    expect_error("{\"a\": 1e400}", true, "f.json:1:7: number out of the range of a double");
    expect_error("{\"a\": tru}", false, "f.json:1:7: expected a value (object, array, string, "
                 "number, true, false or null), found 't'");
    /* columns count characters, not bytes: \xc3\xa9 is one */
    expect_error("{\"\xc3\xa9\": x}", true, "f.json:1:7: expected a number (stats.json maps each "
                 "stat to a number), found 'x'");
    expect_error("{\"a\xff\": 1}", true, "f.json:1:4: invalid UTF-8 (byte 0xFF) in a string");
    expect_error("{\"a\xc0\xaf\": 1}", true, "f.json:1:4: invalid UTF-8 (byte 0xC0) in a string");
    expect_error("{\"a\tb\": 1}", true, "f.json:1:4: control character 0x09 in a string (write it "
                 "as \\u0009)");
    expect_error("{\n \"a\n\": 1}", true, "f.json:2:2: string not closed on its line (a '\"' "
                 "missing?)");
    expect_error("{\"a", true, "f.json:1:2: string not closed before the end of the file");
    expect_error("{\"\\x\": 1}", true, "f.json:1:3: unknown escape '\\x' (JSON has \\\" \\\\ \\/ "
                 "\\b \\f \\n \\r \\t \\uXXXX)");
    expect_error("{\"\\u12\": 1}", true, "f.json:1:3: \\u needs four hex digits");
    expect_error("{\"\\ud800\": 1}", true, "f.json:1:3: \\uD800 is a high surrogate without its "
                 "low half");
    expect_error("{\"\\udc00\": 1}", true, "f.json:1:3: \\uDC00 is a low surrogate without its "
                 "high half");
    expect_error("{\"\\u0000\": 1}", true, "f.json:1:3: \\u0000 (a NUL character) is not "
                 "accepted in a name or string");
    GString *deep = g_string_new("{\"a\": ");
    for (int i = 0; i < 100; i++)
        g_string_append_c(deep, '[');
    expect_error(deep->str, false, "f.json:1:70: nested deeper than 64 levels");
    g_string_free(deep, TRUE);
    /* a NUL byte is a stray byte like any other */
    GError *e = NULL;
    CU_ASSERT_PTR_NULL(json_read_numbers("f.json", "{\"a\": 1}\0", 9, true, &e));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_STRING_EQUAL(e->message, "f.json:1:9: text after the end of the object");
    g_error_free(e);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    CU_pSuite s = CU_add_suite("jsonread", NULL, NULL);
    CU_add_test(s, "numbers: verbatim text, exact integers", test_numbers);
    CU_add_test(s, "strings: escapes, surrogate pairs, UTF-8", test_strings);
    CU_add_test(s, "run.json: other values skipped", test_run_json);
    CU_add_test(s, "errors: FILE:LINE:COL and the problem", test_errors);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
