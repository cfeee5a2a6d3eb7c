/* fuzz_litmanifest.c: fuzz harness for `archsim litmus --manifest` files (models/litmus/
 * manifest.c): a CSV of expected verdicts per test and model.
 *
 * Input: a manifest (tests/fuzz/litmanifest/README.md). Each file named in argv[1..] is read once
 * per model (SC, TSO, PSO, WEAK: each reads its own column); abort() when an oracle fails (the
 * fuzzer records a crash). Oracles:
 *  - a refused file has LITMUS_ERROR, code 65, and a message "FILE:LINE:COL: problem" with LINE
 *    inside the file;
 *  - an accepted one has rows in file order, each on a line of the file and naming a test or a
 *    file; two models that both accept it read the same rows (only the verdict column differs);
 *  - every row is found again by litmus_manifest_find for a test of its name and file (that row,
 *    or an earlier one the same test would match).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/litmus/litmus.h"
#include "../../sim/error.h"

#define FUZZ_NAME "fuzz_litmanifest"
#include "fuzz.h"

static void fuzz_one(const char *input)
{
    char *text = NULL;
    gsize len = 0;
    if (!g_file_get_contents(input, &text, &len, NULL)) {
        fprintf(stderr, "fuzz_litmanifest: cannot read %s\n", input);
        exit(2);
    }
    long lines = 1;
    for (gsize i = 0; i < len; i++)
        lines += text[i] == '\n';
    g_free(text);
    LitManifest *m[MM_COUNT];
    for (int k = 0; k < MM_COUNT; k++) {
        GError *e = NULL;
        m[k] = litmus_manifest_load(input, &mem_models[k], &e);
        if (!m[k]) {
            fuzz_check(e != NULL, input, "refused without an error");
            fuzz_check(e->domain == LITMUS_ERROR && e->code == ARCHSIM_EXIT_DATAERR, input,
                       "error of the wrong domain or code (65)");
            if (!fuzz_has_position(e->message, input, lines))
                fprintf(stderr, "fuzz_litmanifest: %s: %s\n", input, e->message);
            fuzz_check(fuzz_has_position(e->message, input, lines), input,
                       "error does not start with FILE:LINE:COL: inside the file");
            g_error_free(e);
            continue;
        }
        int last = 0;
        for (guint r = 0; r < m[k]->rows->len; r++) {
            const LitRow *row = &g_array_index(m[k]->rows, LitRow, r);
            fuzz_check(row->line > last && row->line <= lines, input, "rows out of file order");
            last = row->line;
            fuzz_check(row->test && row->file && row->cond && (*row->test || *row->file), input,
                       "a row naming neither a test nor a file");
            /* a row without a file is found by its test's name: give that test a file name
             * no row can hold (fields never span lines) */
            LitTest t = { .name = row->test, .file = *row->file ? row->file : (char *)"\n" };
            const LitRow *hit = litmus_manifest_find(m[k], &t);
            fuzz_check(hit != NULL && hit->line <= row->line, input,
                       "a row its own test does not find");
        }
    }
    for (int k = 0; k + 1 < MM_COUNT; k++) {
        if (!m[k] || !m[k + 1])
            continue;
        fuzz_check(m[k]->rows->len == m[k + 1]->rows->len, input, "two models read different rows");
        for (guint r = 0; r < m[k]->rows->len; r++) {
            const LitRow *a = &g_array_index(m[k]->rows, LitRow, r);
            const LitRow *b = &g_array_index(m[k + 1]->rows, LitRow, r);
            fuzz_check(a->line == b->line && !strcmp(a->test, b->test) &&
                       !strcmp(a->file, b->file) && !strcmp(a->cond, b->cond), input,
                       "two models read a row differently");
        }
    }
    for (int k = 0; k < MM_COUNT; k++)
        litmus_manifest_free(m[k]);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        fuzz_one(argv[i]);
    return 0;
}
