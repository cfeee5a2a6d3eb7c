/* jsonread.h: a strict JSON reader (RFC 8259) for the files archsim writes and reads back:
 * stats.json (one flat object, name -> number) and run.json (its numeric members). It validates
 * the whole text (strings, escapes, UTF-8, number grammar, nesting) and reports the first error
 * as FILE:LINE:COL; GLib has no JSON parser and the sweep's reader (sweep_parse_stats_json) only
 * takes what archsim itself wrote.
 */
#ifndef ARCHSIM_JSONREAD_H
#define ARCHSIM_JSONREAD_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* One top-level member whose value is a number. */
typedef struct {
    char *name;          /* decoded UTF-8 (a \u0000 escape is refused, so it is a C string) */
    char *text;          /* the number exactly as written */
    double d;            /* its value (finite: a number beyond the double range is refused) */
    bool is_int;         /* no fraction or exponent and |value| < 2^64: exact in neg/mag */
    bool neg;
    uint64_t mag;
    int line, col;       /* where the name starts (1-based; col counts characters) */
} JsonNumber;

/* Deepest nesting accepted (run.json has 2); deeper input is an error, never a stack overflow. */
#define JSON_MAX_DEPTH 64

/* Reads TEXT (LEN bytes; a NUL byte is an error like any stray byte) holding one JSON object and returns its top-level
 * members whose values are numbers, in file order (JsonNumber *, freed with the array). With
 * numbers_only (stats.json) any other value is an error; otherwise it is validated and skipped.
 * A name given twice is an error. Errors: ARCHSIM_RUN_ERROR, ARCHSIM_EXIT_DATAERR,
 * "FILE:LINE:COL: problem". */
GPtrArray *json_read_numbers(const char *file, const char *text, gsize len, bool numbers_only,
                             GError **error);

#endif
