/* fuzz_litmus.c: fuzz harness for the herd7 X86 litmus reader (models/litmus/parse.c), the
 * final-condition code (cond.c), the exhaustive enumerator (enumerate.c) and random mode on the
 * simulated multiprocessor (simrun.c).
 *
 * Input: a .litmus file (tests/fuzz/litmus/README.md). Each file named in argv[1..] is parsed;
 * abort() when an oracle fails (the fuzzer records a crash). Oracles:
 *  - a refused file has LITMUS_ERROR, code 65 (66 only when the file cannot be read), and a
 *    message "FILE:LINE:COL: problem" with LINE inside the file (or one past its last line);
 *  - an accepted test has 1..8 threads, at most 16 locations, a condition whose printed form
 *    parses back to itself, and parses again to the same test (same condition text);
 *  - the outcomes --exhaustive allows grow with the model: SC within TSO within PSO within WEAK
 *    (each relaxes a superset of the orders of the one before, memmodel.h), and every outcome
 *    says the same about the condition each time it is added;
 *  - random mode on the simulated machine (a few seeded runs under each model) sees only
 *    outcomes that model's enumeration allows, and its runs add up to the runs asked for.
 * Enumerations are capped at FUZZ_MAX_STATES states: a test past it is only checked for the
 * message (exit 65) that says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/litmus/litmus.h"
#include "../../sim/error.h"

#define FUZZ_NAME "fuzz_litmus"
#include "fuzz.h"

#define FUZZ_MAX_STATES 20000
#define FUZZ_RUNS 8

/* Every outcome of a within b (by text; both histograms of one test). */
static bool fuzz_within(const LitHist *a, const LitHist *b, const char **missing)
{
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, a->counts);
    while (g_hash_table_iter_next(&it, &k, &v))
        if (!g_hash_table_contains(b->counts, k)) {
            *missing = k;
            return false;
        }
    return true;
}

/* The two histograms agree on whether the condition holds for every outcome they share. */
static bool fuzz_same_holds(const LitHist *a, const LitHist *b)
{
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, a->counts);
    while (g_hash_table_iter_next(&it, &k, &v))
        if (g_hash_table_contains(b->counts, k) &&
            g_hash_table_contains(a->holds, k) != g_hash_table_contains(b->holds, k))
            return false;
    return true;
}

static void fuzz_test(const char *input, const char *text, LitTest *t)
{
    fuzz_check(t->nthreads >= 1 && t->nthreads <= LIT_MAX_THREADS, input, "thread count");
    fuzz_check(t->nlocs >= 0 && t->nlocs <= LIT_MAX_LOCS, input, "location count");
    fuzz_check(t->cond != NULL && t->cond_text != NULL, input, "an accepted test without a condition");
    GError *e = NULL;
    char *again = litmus_cond_normalise(t, "again", t->cond_text, &e);
    if (!again)
        fprintf(stderr, "fuzz_litmus: %s: '%s': %s\n", input, t->cond_text, e->message);
    fuzz_check(again != NULL, input, "the printed condition does not parse back");
    fuzz_check(strcmp(again, t->cond_text) == 0, input, "the printed condition changes when parsed again");
    g_free(again);
    LitTest *t2 = litmus_parse_string(input, text, &e);
    fuzz_check(t2 != NULL && strcmp(t2->cond_text, t->cond_text) == 0 &&
               t2->nthreads == t->nthreads && t2->nlocs == t->nlocs && t2->nobs == t->nobs,
               input, "a second parse of the same text differs");
    litmus_free(t2);

    LitHist h[MM_COUNT];
    bool ok[MM_COUNT];
    for (int m = 0; m < MM_COUNT; m++) {
        litmus_hist_init(&h[m]);
        ok[m] = litmus_enumerate(t, &mem_models[m], FUZZ_MAX_STATES, &h[m], &e);
        if (!ok[m]) {
            fuzz_check(e != NULL && e->code == ARCHSIM_EXIT_DATAERR, input,
                       "an enumeration failed without exit code 65");
            g_clear_error(&e);
            continue;
        }
        fuzz_check(g_hash_table_size(h[m].counts) >= 1, input, "an enumeration with no outcome");
        GPtrArray *keys = litmus_hist_sorted(&h[m]);
        fuzz_check(keys->len == g_hash_table_size(h[m].counts), input, "sorted outcomes lost one");
        g_ptr_array_unref(keys);
    }
    for (int m = 0; m + 1 < MM_COUNT; m++) {
        const char *missing = NULL;
        if (ok[m] && ok[m + 1] && !fuzz_within(&h[m], &h[m + 1], &missing)) {
            fprintf(stderr, "fuzz_litmus: %s: %s allows '%s', %s does not\n", input,
                    mem_models[m].name, missing, mem_models[m + 1].name);
            fuzz_check(false, input, "a stronger model allows an outcome a weaker one does not");
        }
        if (ok[m] && ok[m + 1])
            fuzz_check(fuzz_same_holds(&h[m], &h[m + 1]), input,
                       "one outcome, two answers to the condition");
    }

    /* random mode under every model the enumerator finished, seeded from the text (a file
     * always runs the same) */
    for (int m = 0; m < MM_COUNT; m++) {
        if (!ok[m])
            continue;
        LitHist s;
        litmus_hist_init(&s);
        LitSimOptions o = { .model = &mem_models[m], .runs = FUZZ_RUNS,
                            .seed = g_str_hash(text) + (unsigned)m };
        if (litmus_simulate(t, &o, &s, &e)) {
            fuzz_check(s.runs == FUZZ_RUNS, input, "random mode's runs do not add up");
            const char *missing = NULL;
            if (!fuzz_within(&s, &h[m], &missing)) {
                fprintf(stderr, "fuzz_litmus: %s: the simulated machine under %s gave '%s', "
                        "which the enumeration does not allow\n", input, mem_models[m].name,
                        missing);
                fuzz_check(false, input, "random mode outside the model");
            }
            fuzz_check(fuzz_same_holds(&s, &h[m]), input, "one outcome, two answers to the condition");
        } else {
            /* the machine refused or stopped the test: that must be said with a code */
            fuzz_check(e != NULL && e->code != 0, input, "random mode failed without an error");
            fprintf(stderr, "fuzz_litmus: %s: random mode: %s\n", input, e->message);
            fuzz_check(false, input, "random mode failed on a test the enumerator ran");
        }
        litmus_hist_clear(&s);
    }
    for (int k = 0; k < MM_COUNT; k++)
        litmus_hist_clear(&h[k]);
}

static void fuzz_one(const char *input)
{
    char *text = NULL;
    gsize len = 0;
    if (!g_file_get_contents(input, &text, &len, NULL)) {
        fprintf(stderr, "fuzz_litmus: cannot read %s\n", input);
        exit(2);
    }
    long lines = 1;
    for (gsize i = 0; i < len; i++)
        lines += text[i] == '\n';
    GError *e = NULL;
    LitTest *t = litmus_parse_file(input, &e);
    if (!t) {
        fuzz_check(e != NULL, input, "refused without an error");
        fuzz_check(e->domain == LITMUS_ERROR && e->code == ARCHSIM_EXIT_DATAERR, input,
                   "error of the wrong domain or code (65)");
        if (!fuzz_has_position(e->message, input, lines))
            fprintf(stderr, "fuzz_litmus: %s: %s\n", input, e->message);
        fuzz_check(fuzz_has_position(e->message, input, lines), input,
                   "error does not start with FILE:LINE:COL: inside the file");
        g_error_free(e);
        g_free(text);
        return;
    }
    /* an accepted file is text without NUL bytes: the string and the file parse alike */
    fuzz_check(strlen(text) == len, input, "a file with a NUL byte accepted");
    fuzz_test(input, text, t);
    litmus_free(t);
    g_free(text);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        fuzz_one(argv[i]);
    return 0;
}
