/* json.c: the one JSON string escaper (json.h). It is the one tracedump had since issue 14:
 * GLib's g_utf8_get_char_validated decides what is valid UTF-8 (it refuses overlong forms,
 * surrogates and code points above U+10FFFF, as RFC 3629 does), and each invalid byte becomes
 * U+FFFD, the replacement that Unicode's "best practice" (chapter 3, U+FFFD substitution)
 * applies per maximal invalid subpart. */
#include <string.h>

#include "json.h"

size_t json_escape_buf(char *dst, const char *src, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)src, *end = p + n;
    char *d = dst;
    while (p < end) {
        unsigned char c = *p;
        if (G_LIKELY(c >= 0x20 && c < 0x80 && c != '"' && c != '\\')) {
            *d++ = (char)c;
            p++;
            continue;
        }
        if (c >= 0x80) {
            gunichar u = g_utf8_get_char_validated((const char *)p, (gssize)(end - p));
            if (u == (gunichar)-1 || u == (gunichar)-2) {
                memcpy(d, "\\ufffd", 6);
                d += 6;
                p++;
            } else {
                size_t len = (size_t)g_utf8_skip[c];
                memcpy(d, p, len);
                d += len;
                p += len;
            }
            continue;
        }
        *d++ = '\\';
        switch (c) {
        case '"': *d++ = '"'; break;
        case '\\': *d++ = '\\'; break;
        case '\n': *d++ = 'n'; break;
        case '\r': *d++ = 'r'; break;
        case '\t': *d++ = 't'; break;
        case '\b': *d++ = 'b'; break;
        case '\f': *d++ = 'f'; break;
        default:
            memcpy(d, "u00", 3);
            d[3] = hex[c >> 4];
            d[4] = hex[c & 0xf];
            d += 5;
            break;
        }
        p++;
    }
    return (size_t)(d - dst);
}

void json_escape(GString *out, const char *src, size_t n)
{
    size_t at = out->len;
    g_string_set_size(out, at + JSON_ESCAPE_MAX * n);
    size_t m = json_escape_buf(out->str + at, src, n);
    g_string_set_size(out, at + m);
}

void json_append_string(GString *out, const char *s)
{
    g_string_append_c(out, '"');
    json_escape(out, s, strlen(s));
    g_string_append_c(out, '"');
}
