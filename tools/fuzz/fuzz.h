/* fuzz.h: helpers the oracles of several harnesses share (tools/fuzz/README.md; a run's stat is
 * system_stat_u64 of sim/system.h). A harness defines FUZZ_NAME, its own name for messages
 * ("fuzz_litmus"), before it includes this. */
#ifndef ARCHSIM_FUZZ_H
#define ARCHSIM_FUZZ_H

#include <glib.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_NAME
#error "define FUZZ_NAME before including fuzz.h"
/* The lines of a YAML text as libyaml counts them (LF, CR, CR LF, NEL, LS and PS each end one),
 * counting one past the last break: the max_line of fuzz_has_position for a YAML input. */
static inline long fuzz_yaml_lines(const char *text, size_t len)
{
    long lines = 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n' || (c == '\r' && (i + 1 >= len || text[i + 1] != '\n')))
            lines++;
        else if (c == 0xC2 && i + 1 < len && (unsigned char)text[i + 1] == 0x85)
            lines++;
        else if (c == 0xE2 && i + 2 < len && (unsigned char)text[i + 1] == 0x80 &&
                 ((unsigned char)text[i + 2] == 0xA8 || (unsigned char)text[i + 2] == 0xA9))
            lines++;
    }
    return lines;
}

#endif

/* An oracle: abort() (the fuzzer's crash) naming the input and what broke. */
static inline void fuzz_check(bool ok, const char *input, const char *what)
{
    if (!ok) {
        fprintf(stderr, FUZZ_NAME ": %s: invariant broken: %s\n", input, what);
        abort();
    }
}

/* "PATH:LINE:COL: " at the start of msg, LINE and COL decimal digits at least 1, LINE at most
 * max_line when max_line > 0 (the lines of the file, counting one past its last newline). */
static inline bool fuzz_has_position(const char *msg, const char *path, long max_line)
{
    size_t n = strlen(path);
    if (strncmp(msg, path, n) != 0 || msg[n] != ':')
        return false;
    const char *p = msg + n + 1;
    for (int part = 0; part < 2; part++) {
        long v = 0;
        int digits = 0;
        for (; g_ascii_isdigit(*p); p++, digits++)
            v = v > 100000000 ? v : v * 10 + (*p - '0');
        if (digits == 0 || v < 1 || *p != ':')
            return false;
        if (part == 0 && max_line > 0 && v > max_line)
            return false;
        p++;
    }
    return *p == ' ';
}

/* The lines of a YAML text as libyaml counts them (LF, CR, CR LF, NEL, LS and PS each end one),
 * counting one past the last break: the max_line of fuzz_has_position for a YAML input. */
static inline long fuzz_yaml_lines(const char *text, size_t len)
{
    long lines = 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n' || (c == '\r' && (i + 1 >= len || text[i + 1] != '\n')))
            lines++;
        else if (c == 0xC2 && i + 1 < len && (unsigned char)text[i + 1] == 0x85)
            lines++;
        else if (c == 0xE2 && i + 2 < len && (unsigned char)text[i + 1] == 0x80 &&
                 ((unsigned char)text[i + 2] == 0xA8 || (unsigned char)text[i + 2] == 0xA9))
            lines++;
    }
    return lines;
}

#endif
