/* json.h: the one JSON string escaper (RFC 8259 section 7) of every file archsim writes: trace
 * dumps, stats.json, run.json and sweep.json. Valid UTF-8 is copied, '"' and '\\' are escaped,
 * \n \r \t \b \f take their short forms and the other control characters \u00XX; each byte of
 * invalid UTF-8 (a stray continuation byte, an overlong form, a surrogate, a code point above
 * U+10FFFF, a truncated sequence, 0xC0, 0xC1, 0xF5..0xFF) becomes \ufffd, so that any strict
 * decoder reads the file. */
#ifndef ARCHSIM_JSON_H
#define ARCHSIM_JSON_H

#include <stddef.h>

#include <glib.h>

/* The most bytes json_escape_buf writes per input byte ("\u00XX", "\ufffd"). */
#define JSON_ESCAPE_MAX 6

/* Writes the escaped body of the N bytes at SRC (no quotes, no NUL) to DST, which has room for
 * JSON_ESCAPE_MAX * N bytes; returns the bytes written. For hot paths that write into their
 * own buffer (tracedump's sink). */
size_t json_escape_buf(char *dst, const char *src, size_t n);

/* Appends the escaped body of the N bytes at SRC to OUT (no quotes). */
void json_escape(GString *out, const char *src, size_t n);

/* Appends the NUL-terminated S as a JSON string, quotes included. */
void json_append_string(GString *out, const char *s);

#endif
