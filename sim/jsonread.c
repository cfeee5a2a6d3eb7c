/* jsonread.c: strict JSON (RFC 8259) for stats.json and run.json, with FILE:LINE:COL errors.
 * A recursive-descent reader over the byte buffer; nesting is bounded (JSON_MAX_DEPTH) and every
 * error names the first offending character, the way a compiler would. It builds no tree: the
 * callers only want the top-level numbers, so everything else is validated and dropped.
 */
#include "jsonread.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

typedef struct {
    const char *file;
    const unsigned char *p, *start, *end;
    GError **error;
    bool failed;
    /* the last position computed: members come in file order, so each one's line and column
     * are counted on from the previous member's (linear, not quadratic, in the file size) */
    const unsigned char *pos_at;
    int pos_line, pos_col;
} JsonReader;

static void json_position(JsonReader *r, const unsigned char *at, int *line, int *col)
{
    if (!r->pos_at || at < r->pos_at) {
        r->pos_at = r->start;
        r->pos_line = 1;
        r->pos_col = 1;
    }
    for (const unsigned char *q = r->pos_at; q < at && q < r->end; q++) {
        if (*q == '\n') {
            r->pos_line++;
            r->pos_col = 1;
        } else if ((*q & 0xC0) != 0x80) {
            r->pos_col++;      /* count characters: UTF-8 continuation bytes add nothing */
        }
    }
    r->pos_at = at < r->end ? at : r->end;
    *line = r->pos_line;
    *col = r->pos_col;
}

G_GNUC_PRINTF(3, 4)
static bool json_fail_at(JsonReader *r, const unsigned char *at, const char *fmt, ...)
{
    if (r->failed)
        return false;
    r->failed = true;
    int line, col;
    json_position(r, at, &line, &col);
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(r->error, ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_DATAERR, "%s:%d:%d: %s", r->file, line,
                col, msg);
    g_free(msg);
    return false;
}

/* What is at p, for messages: "end of file", "'x'" or "byte 0xNN". */
static const char *json_what(const JsonReader *r, char *buf, size_t n)
{
    if (r->p >= r->end)
        return "end of file";
    unsigned char c = *r->p;
    if (c >= 0x20 && c < 0x7F)
        g_snprintf(buf, n, "'%c'", c);
    else
        g_snprintf(buf, n, "byte 0x%02X", c);
    return buf;
}

static bool json_unexpected(JsonReader *r, const char *expected)
{
    char buf[16];
    return json_fail_at(r, r->p, "expected %s, found %s", expected, json_what(r, buf, sizeof buf));
}

static void json_skip_ws(JsonReader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static int json_hex4(const unsigned char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        int c = p[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* A string at p (which is '"'); its decoded text goes to out when out is not NULL. */
static bool json_string(JsonReader *r, GString *out)
{
    const unsigned char *open = r->p++;
    for (;;) {
        if (r->p >= r->end)
            return json_fail_at(r, open, "string not closed before the end of the file");
        unsigned char c = *r->p;
        if (c == '"') {
            r->p++;
            return true;
        }
        if (c == '\n')
            return json_fail_at(r, open, "string not closed on its line (a '\"' missing?)");
        if (c < 0x20)
            return json_fail_at(r, r->p, "control character 0x%02X in a string (write it as "
                                "\\u%04X)", c, c);
        if (c == '\\') {
            const unsigned char *esc = r->p;
            if (r->p + 1 >= r->end)
                return json_fail_at(r, open, "string not closed before the end of the file");
            unsigned char e = r->p[1];
            r->p += 2;
            const char *simple = strchr("\"\\/bfnrt", e);
            if (e && simple) {
                static const char dec[] = "\"\\/\b\f\n\r\t";
                if (out)
                    g_string_append_c(out, dec[simple - "\"\\/bfnrt"]);
                continue;
            }
            if (e != 'u')
                return json_fail_at(r, esc, "unknown escape '\\%c' (JSON has \\\" \\\\ \\/ \\b "
                                    "\\f \\n \\r \\t \\uXXXX)", e >= 0x20 && e < 0x7F ? e : '?');
            int u = r->end - r->p >= 4 ? json_hex4(r->p) : -1;
            if (u < 0)
                return json_fail_at(r, esc, "\\u needs four hex digits");
            r->p += 4;
            gunichar ch = (gunichar)u;
            if (u >= 0xD800 && u <= 0xDBFF) {
                int lo = r->end - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u'
                             ? json_hex4(r->p + 2) : -1;
                if (lo < 0xDC00 || lo > 0xDFFF)
                    return json_fail_at(r, esc, "\\u%04X is a high surrogate without its low "
                                        "half", u);
                r->p += 6;
                ch = 0x10000 + (((gunichar)u - 0xD800) << 10) + ((gunichar)lo - 0xDC00);
            } else if (u >= 0xDC00 && u <= 0xDFFF) {
                return json_fail_at(r, esc, "\\u%04X is a low surrogate without its high half", u);
            } else if (u == 0) {
                return json_fail_at(r, esc, "\\u0000 (a NUL character) is not accepted in a name "
                                    "or string");
            }
            if (out)
                g_string_append_unichar(out, ch);
            continue;
        }
        if (c < 0x80) {
            if (out)
                g_string_append_c(out, (char)c);
            r->p++;
            continue;
        }
        /* a multi-byte UTF-8 sequence: g_utf8_get_char_validated refuses overlong forms,
         * surrogates and truncated sequences */
        gunichar ch = g_utf8_get_char_validated((const char *)r->p, r->end - r->p);
        if (ch == (gunichar)-1 || ch == (gunichar)-2)
            return json_fail_at(r, r->p, "invalid UTF-8 (byte 0x%02X) in a string", c);
        int n = g_unichar_to_utf8(ch, NULL);
        if (out)
            g_string_append_len(out, (const char *)r->p, n);
        r->p += n;
    }
}

static bool json_digits(JsonReader *r)
{
    if (r->p >= r->end || *r->p < '0' || *r->p > '9')
        return false;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
        r->p++;
    return true;
}

/* A number at p; fills num (text, value, exactness) when num is not NULL. */
static bool json_number(JsonReader *r, JsonNumber *num)
{
    const unsigned char *s = r->p;
    bool neg = false, is_int = true;
    if (*r->p == '-') {
        neg = true;
        r->p++;
    }
    const unsigned char *int_start = r->p;
    if (r->p < r->end && *r->p == '0') {
        r->p++;
        if (r->p < r->end && *r->p >= '0' && *r->p <= '9')
            return json_fail_at(r, int_start, "a number does not start with 0 (leading zeros "
                                "are not JSON)");
    } else if (!json_digits(r)) {
        return json_unexpected(r, "a digit");
    }
    const unsigned char *int_end = r->p;
    if (r->p < r->end && *r->p == '.') {
        is_int = false;
        r->p++;
        if (!json_digits(r))
            return json_unexpected(r, "a digit after '.'");
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        is_int = false;
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
            r->p++;
        if (!json_digits(r))
            return json_unexpected(r, "a digit in the exponent");
    }
    char *text = g_strndup((const char *)s, r->p - s);
    double d = g_ascii_strtod(text, NULL);
    if (d > 1.7976931348623157e308 || d < -1.7976931348623157e308) {
        g_free(text);
        return json_fail_at(r, s, "number out of the range of a double");
    }
    uint64_t mag = 0;
    if (is_int) {
        for (const unsigned char *q = int_start; q < int_end; q++) {
            unsigned dig = (unsigned)(*q - '0');
            if (mag > (UINT64_MAX - dig) / 10) {
                is_int = false;          /* beyond 64 bits: compared as a double */
                break;
            }
            mag = mag * 10 + dig;
        }
    }
    if (num) {
        num->text = text;
        num->d = d;
        num->is_int = is_int;
        num->neg = is_int && neg && mag != 0;   /* -0 is 0 */
        num->mag = is_int ? mag : 0;
    } else {
        g_free(text);
    }
    return true;
}

static bool json_literal(JsonReader *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) >= n && memcmp(r->p, word, n) == 0) {
        r->p += n;
        return true;
    }
    return json_unexpected(r, "a value (object, array, string, number, true, false or null)");
}

static bool json_value(JsonReader *r, int depth);

static bool json_container(JsonReader *r, int depth, char close)
{
    const unsigned char *open = r->p++;
    if (depth >= JSON_MAX_DEPTH)
        return json_fail_at(r, open, "nested deeper than %d levels", JSON_MAX_DEPTH);
    json_skip_ws(r);
    if (r->p < r->end && *r->p == close) {
        r->p++;
        return true;
    }
    for (;;) {
        json_skip_ws(r);
        if (r->p < r->end && *r->p == close)
            return json_fail_at(r, r->p, "'%c' after ',' (JSON has no trailing comma)", close);
        if (close == '}') {
            if (r->p >= r->end || *r->p != '"')
                return json_unexpected(r, "a member name in double quotes");
            if (!json_string(r, NULL))
                return false;
            json_skip_ws(r);
            if (r->p >= r->end || *r->p != ':')
                return json_unexpected(r, "':' after the member name");
            r->p++;
            json_skip_ws(r);
        }
        if (!json_value(r, depth + 1))
            return false;
        json_skip_ws(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            r->p++;
            return true;
        }
        return json_unexpected(r, close == '}' ? "',' or '}'" : "',' or ']'");
    }
}

static bool json_value(JsonReader *r, int depth)
{
    if (r->p >= r->end)
        return json_unexpected(r, "a value");
    switch (*r->p) {
    case '{':
        return json_container(r, depth, '}');
    case '[':
        return json_container(r, depth, ']');
    case '"':
        return json_string(r, NULL);
    case 't':
        return json_literal(r, "true");
    case 'f':
        return json_literal(r, "false");
    case 'n':
        return json_literal(r, "null");
    default:
        if (*r->p == '-' || (*r->p >= '0' && *r->p <= '9'))
            return json_number(r, NULL);
        return json_unexpected(r, "a value (object, array, string, number, true, false or null)");
    }
}

static void json_number_free(gpointer p)
{
    JsonNumber *n = p;
    g_free(n->name);
    g_free(n->text);
    g_free(n);
}

GPtrArray *json_read_numbers(const char *file, const char *text, gsize len, bool numbers_only,
                             GError **error)
{
    JsonReader r = { file, (const unsigned char *)text, (const unsigned char *)text,
                     (const unsigned char *)text + len, error, false, NULL, 0, 0 };
    GPtrArray *out = g_ptr_array_new_with_free_func(json_number_free);
    GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    json_skip_ws(&r);
    if (r.p >= r.end) {
        json_fail_at(&r, r.p, "empty file (expected a JSON object)");
        goto fail;
    }
    if (r.p >= r.end || *r.p != '{') {
        json_unexpected(&r, "'{' (the file is one JSON object)");
        goto fail;
    }
    r.p++;
    json_skip_ws(&r);
    if (r.p < r.end && *r.p == '}') {
        r.p++;
    } else {
        for (;;) {
            json_skip_ws(&r);
            if (r.p < r.end && *r.p == '}') {
                json_fail_at(&r, r.p, "'}' after ',' (JSON has no trailing comma)");
                goto fail;
            }
            if (r.p >= r.end || *r.p != '"') {
                json_unexpected(&r, "a member name in double quotes");
                goto fail;
            }
            const unsigned char *at = r.p;
            GString *name = g_string_new(NULL);
            if (!json_string(&r, name)) {
                g_string_free(name, TRUE);
                goto fail;
            }
            if (g_hash_table_contains(seen, name->str)) {
                json_fail_at(&r, at, "\"%s\" appears twice", name->str);
                g_string_free(name, TRUE);
                goto fail;
            }
            g_hash_table_add(seen, g_strdup(name->str));
            json_skip_ws(&r);
            if (r.p >= r.end || *r.p != ':') {
                json_unexpected(&r, "':' after the member name");
                g_string_free(name, TRUE);
                goto fail;
            }
            r.p++;
            json_skip_ws(&r);
            bool is_num = r.p < r.end && (*r.p == '-' || (*r.p >= '0' && *r.p <= '9'));
            if (is_num) {
                JsonNumber *n = g_new0(JsonNumber, 1);
                if (!json_number(&r, n)) {
                    g_free(n);
                    g_string_free(name, TRUE);
                    goto fail;
                }
                json_position(&r, at, &n->line, &n->col);
                n->name = g_string_free(name, FALSE);
                g_ptr_array_add(out, n);
            } else {
                bool ok;
                if (numbers_only)
                    ok = json_unexpected(&r, "a number (stats.json maps each stat to a number)");
                else
                    ok = json_value(&r, 1);
                g_string_free(name, TRUE);
                if (!ok)
                    goto fail;
            }
            json_skip_ws(&r);
            if (r.p < r.end && *r.p == ',') {
                r.p++;
                continue;
            }
            if (r.p < r.end && *r.p == '}') {
                r.p++;
                break;
            }
            json_unexpected(&r, "',' or '}'");
            goto fail;
        }
    }
    json_skip_ws(&r);
    if (r.p < r.end) {
        json_fail_at(&r, r.p, "text after the end of the object");
        goto fail;
    }
    g_hash_table_destroy(seen);
    return out;
fail:
    g_hash_table_destroy(seen);
    g_ptr_array_free(out, TRUE);
    return NULL;
}
