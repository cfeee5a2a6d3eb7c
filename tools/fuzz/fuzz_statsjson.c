/* fuzz_statsjson.c: AFL++ harness for the strict JSON reader of `archsim diff` (sim/jsonread.c).
 *
 * Reads each file named in argv[1..] as stats.json (numbers only) and as run.json (any values),
 * and abort()s when an oracle fails: errors are ARCHSIM_RUN_ERROR 65 "PATH:LINE:COL: ..." with
 * LINE within the file; a file accepted as stats.json is accepted as run.json with the same
 * numbers; accepted names are UTF-8 and unique, numbers finite, integers exact; writing the
 * numbers back as JSON reads back to the same list; cutting the last character off an accepted
 * file makes it fail; and the sweep's lax reader (sweep_parse_stats_json) agrees on every file
 * without backslashes that the strict reader accepts as stats.json.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/error.h"
#include "../../sim/jsonread.h"
#include "../../sim/cli/sweep.h"

static void fuzz_check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_statsjson: invariant broken: %s\n", what);
        abort();
    }
}

static void fuzz_check_error(const GError *e, const char *path, const char *text, gsize len)
{
    fuzz_check(e != NULL, "failure without an error");
    fuzz_check(e->domain == ARCHSIM_RUN_ERROR && e->code == ARCHSIM_EXIT_DATAERR,
               "error not RUN_ERROR/65");
    size_t n = strlen(path);
    fuzz_check(strncmp(e->message, path, n) == 0 && e->message[n] == ':', "no PATH: prefix");
    char *end = NULL;
    long line = strtol(e->message + n + 1, &end, 10);
    fuzz_check(end && *end == ':', "no LINE:");
    long col = strtol(end + 1, &end, 10);
    fuzz_check(end && *end == ':' && end[1] == ' ', "no COL: ");
    long lines = 1;
    for (gsize i = 0; i < len; i++)
        lines += text[i] == '\n';
    fuzz_check(line >= 1 && line <= lines && col >= 1, "position outside the file");
}

static bool fuzz_same(const GPtrArray *a, const GPtrArray *b)
{
    if (a->len != b->len)
        return false;
    for (guint i = 0; i < a->len; i++) {
        const JsonNumber *x = g_ptr_array_index(a, i), *y = g_ptr_array_index(b, i);
        if (strcmp(x->name, y->name) || strcmp(x->text, y->text) || x->is_int != y->is_int ||
            x->neg != y->neg || x->mag != y->mag || memcmp(&x->d, &y->d, sizeof x->d))
            return false;
    }
    return true;
}

static void fuzz_check_numbers(const GPtrArray *nums)
{
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < nums->len; i++) {
        const JsonNumber *n = g_ptr_array_index(nums, i);
        fuzz_check(g_utf8_validate(n->name, -1, NULL), "name not UTF-8");
        fuzz_check(!g_hash_table_contains(seen, n->name), "duplicate name accepted");
        g_hash_table_add(seen, n->name);
        fuzz_check(isfinite(n->d), "number not finite");
        fuzz_check(n->line >= 1 && n->col >= 1, "bad member position");
        if (n->is_int) {
            fuzz_check(!strpbrk(n->text, ".eE"), "integer with fraction or exponent");
            const char *digits = n->text + (n->text[0] == '-');
            fuzz_check(g_ascii_strtoull(digits, NULL, 10) == n->mag, "integer magnitude wrong");
            fuzz_check(n->neg == (n->text[0] == '-' && n->mag != 0), "integer sign wrong");
        }
    }
    g_hash_table_destroy(seen);
}

static void fuzz_emit_name(GString *out, const char *s)
{
    g_string_append_c(out, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            g_string_append_printf(out, "\\%c", *p);
        else if (*p < 0x20)
            g_string_append_printf(out, "\\u%04x", *p);
        else
            g_string_append_c(out, (char)*p);
    }
    g_string_append_c(out, '"');
}

static void fuzz_one(const char *path, const char *text, gsize len)
{
    GError *e1 = NULL, *e2 = NULL;
    GPtrArray *strict = json_read_numbers(path, text, len, true, &e1);
    GPtrArray *any = json_read_numbers(path, text, len, false, &e2);
    if (!strict)
        fuzz_check_error(e1, path, text, len);
    if (!any)
        fuzz_check_error(e2, path, text, len);
    if (strict) {
        fuzz_check(e1 == NULL, "success with an error");
        fuzz_check(any != NULL, "stats.json accepted but not as run.json");
        fuzz_check(fuzz_same(strict, any), "the two readings disagree");
        fuzz_check_numbers(strict);
        /* written back, it reads back the same */
        GString *o = g_string_new("{");
        for (guint i = 0; i < strict->len; i++) {
            const JsonNumber *n = g_ptr_array_index(strict, i);
            g_string_append(o, i ? ",\n" : "\n");
            fuzz_emit_name(o, n->name);
            g_string_append_printf(o, ": %s", n->text);
        }
        g_string_append(o, "\n}\n");
        GError *e3 = NULL;
        GPtrArray *again = json_read_numbers("again", o->str, o->len, true, &e3);
        fuzz_check(again != NULL, "written back, it does not read");
        for (guint i = 0; i < strict->len; i++) {
            JsonNumber *a = g_ptr_array_index(again, i), *s = g_ptr_array_index(strict, i);
            a->line = s->line;        /* positions differ, the rest may not */
            a->col = s->col;
        }
        fuzz_check(fuzz_same(strict, again), "written back, it reads differently");
        g_ptr_array_free(again, TRUE);
        g_string_free(o, TRUE);
        /* the last non-blank character (the closing brace) cut off: must fail */
        gsize cut = len;
        while (cut > 0 && strchr(" \t\r\n", text[cut - 1]))
            cut--;
        fuzz_check(cut > 0, "accepted a blank file");
        GPtrArray *cutr = json_read_numbers(path, text, cut - 1, true, &e3);
        fuzz_check(cutr == NULL, "accepted without its closing brace");
        fuzz_check_error(e3, path, text, cut - 1);
        g_clear_error(&e3);
        /* the sweep's reader takes what the strict one takes (escapes aside) */
        if (!memchr(text, '\\', len)) {
            char *z = g_strndup(text, len);
            GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
            GPtrArray *values = g_ptr_array_new_with_free_func(g_free);
            fuzz_check(sweep_parse_stats_json(z, names, values), "sweep reader refuses it");
            fuzz_check(names->len == strict->len, "sweep reader: another count");
            for (guint i = 0; i < strict->len; i++) {
                const JsonNumber *n = g_ptr_array_index(strict, i);
                fuzz_check(!strcmp(g_ptr_array_index(names, i), n->name), "sweep: another name");
                fuzz_check(!strcmp(g_ptr_array_index(values, i), n->text), "sweep: another value");
            }
            g_ptr_array_free(names, TRUE);
            g_ptr_array_free(values, TRUE);
            g_free(z);
        }
    }
    if (any)
        fuzz_check_numbers(any);
    if (strict)
        g_ptr_array_free(strict, TRUE);
    if (any)
        g_ptr_array_free(any, TRUE);
    g_clear_error(&e1);
    g_clear_error(&e2);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        char *text = NULL;
        gsize len = 0;
        if (!g_file_get_contents(argv[i], &text, &len, NULL))
            continue;      /* unreadable: nothing to test */
        fuzz_one(argv[i], text, len);
        g_free(text);
    }
    return 0;
}
