/* fuzz_kernel.c: fuzz harness for the kernel language (models/cpu/kernel_lang.c: lock kernels and
 * programs of one's own, docs/locks.md) and kernel-core (kernel_core.c) running it on a small
 * coherent multicore with the reference-memory checks on.
 *
 * Input: a program's text (tests/fuzz/kernel/README.md). Each file named in argv[1..] is parsed,
 * and an accepted program runs on 2 or 3 cores under one of the four memory models (both picked
 * from the text, so a file always runs the same); abort() when an oracle fails (the fuzzer's
 * crash). Oracles:
 *  - a refused program has ARCHSIM_CONFIG_ERROR 78 and a message "FILE:LINE:COL: problem", FILE
 *    the input (LINE inside it) or the lock harness the parser appends ("<harness>");
 *  - an accepted one starts at an op it has, lays every symbol out from the base, in order,
 *    aligned (a line each unless packed) and inside the data, and every `= VALUE` word and
 *    `.expect` address falls inside a symbol;
 *  - its run ends, or stops at sim.max_cycles, or fails with the program's own errors: 78 or 65
 *    naming the op (FILE:LINE:COL), or 3 from its own checks (mutual exclusion, `.expect`, a
 *    core halting inside the lock), the watchdog (nothing completes: a program that spins
 *    without memory) or every core left asleep on a spin-wait watch (spinning on a word no one
 *    writes); never a coherence violation (SWMR, a load's value) nor a lost message (the event
 *    queue empty while a core waits for anything else);
 *  - a run that ends runs again to the same cycles and the same counts (same config and seed,
 *    same stats).
 * Bounded: the program is at most FUZZ_MAX_BYTES (the fuzzer's inputs are far smaller), a run
 * at most 100,000 cycles, the watchdog 20,000.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/cpu/kernel.h"
#include "../../sim/error.h"
#include "../../sim/system.h"

#define FUZZ_NAME "fuzz_kernel"
#include "fuzz.h"

#define FUZZ_MAX_BYTES (1024 * 1024)
#define FUZZ_BASE 0x100000u
#define FUZZ_LINE 64u

static const char fuzz_config[] =
    "sim:\n"
    "  seed: 1\n"
    "  watchdog: 20000\n"
    "  max_cycles: 100000\n"
    "system:\n"
    "  type: smp\n"
    "  cores: %d\n"
    "  llc_banks: 1\n"
    "  check: true\n"
    "core:\n"
    "  type: kernel-core\n"
    "  kernel_file: '%s'\n"
    "  model: %s\n"
    "  iterations: 2\n"
    "  cs: 3cycles\n"
    "  outside: 5cycles\n"
    "  jitter: 2cycles\n"
    "  backoff_min: 1cycles\n"
    "  backoff_max: 8cycles\n"
    "  size: 4\n"
    "l1d: {size: 1KiB, assoc: 2, protocol: mesi}\n"
    "llc: {size: 8KiB, assoc: 4}\n";

/* The parse below uses the values the run's cores are built with (kernel_core.c). */
static void fuzz_env(int cores, int64_t env[KN_COUNT])
{
    memset(env, 0, KN_COUNT * sizeof *env);
    env[KN_N] = cores;
    env[KN_ITERATIONS] = 2;
    env[KN_CS] = 3;
    env[KN_OUTSIDE] = 5;
    env[KN_JITTER] = 2;
    env[KN_BACKOFF_MIN] = 1;
    env[KN_BACKOFF_MAX] = 8;
    env[KN_SIZE] = 4;
}

/* The symbol holding addr, or -1. */
static int fuzz_sym_of(const Kernel *k, uint64_t addr)
{
    for (int i = 0; i < k->nsyms; i++) {
        const KernelSym *s = &k->syms[i];
        if (addr >= s->addr && (addr - s->addr) / s->stride < s->count &&
            (addr - s->addr) % s->stride < s->elem)
            return i;
    }
    return -1;
}

static void fuzz_program(const char *input, const Kernel *k)
{
    fuzz_check(k->nops >= 1 && k->entry >= 0 && k->entry < k->nops, input,
               "the entry is not an op of the program");
    uint64_t at = FUZZ_BASE;
    for (int i = 0; i < k->nsyms; i++) {
        const KernelSym *s = &k->syms[i];
        fuzz_check(s->count >= 1 && s->elem >= 8 && s->elem % 8 == 0 && s->elem <= FUZZ_LINE,
                   input, "a symbol's element size");
        fuzz_check(s->addr >= at && s->addr % (s->packed ? 8 : FUZZ_LINE) == 0, input,
                   "a symbol before the previous one's end, or misaligned");
        fuzz_check(s->stride >= s->elem && (s->packed || s->stride % FUZZ_LINE == 0), input,
                   "a symbol's stride");
        at = s->addr + s->count * s->stride;
    }
    fuzz_check(at - FUZZ_BASE == k->bytes, input, "the data's size is not the symbols' extent");
    for (guint i = 0; i < k->inits->len; i++) {
        const KernelInit *x = &g_array_index(k->inits, KernelInit, i);
        fuzz_check(x->addr % 8 == 0 && fuzz_sym_of(k, x->addr) >= 0, input,
                   "an initial word outside every symbol");
    }
    for (guint i = 0; i < k->expects->len; i++) {
        const KernelExpect *x = &g_array_index(k->expects, KernelExpect, i);
        fuzz_check(x->addr % 8 == 0 && fuzz_sym_of(k, x->addr) >= 0, input,
                   "a .expect word outside every symbol");
    }
    for (int i = 0; i < k->nops; i++) {
        char *where = kernel_op_where(k, i);
        fuzz_check(g_str_has_prefix(where, input) || g_str_has_prefix(where, "<harness>:"), input,
                   "an op from neither the input nor the harness");
        g_free(where);
    }
}

/* A deadlock report with the event queue empty (sim/system.c) is the program's own when every
 * kernel-core that is not done sleeps on a spin-wait watch: each spins on a word no one will
 * write (an elided spin waits for the line to change, so no event is left). Anything else
 * waiting there (a core waiting for its L1, a cache, the bus) waits for a message that was
 * lost. The report gives each component's dump: "== core0 (kernel-core) [asleep]" then
 * "  STATE, iteration ...". */
static bool fuzz_all_spinning(const char *report)
{
    bool any = false;
    char **lines = g_strsplit(report, "\n", -1);
    for (int i = 0; lines[i]; i++) {
        if (!g_str_has_prefix(lines[i], "== "))
            continue;
        if (!strstr(lines[i], "(kernel-core)"))
            continue;           /* caches, bus, memory: a request of theirs has a core waiting */
        const char *st = lines[i + 1] ? lines[i + 1] + strspn(lines[i + 1], " ") : "";
        if (g_str_has_prefix(st, "sleeping on a spin-wait watch,"))
            any = true;
        else if (!g_str_has_prefix(st, "halted,") && !g_str_has_prefix(st, "idle,")) {
            g_strfreev(lines);
            return false;
        }
    }
    g_strfreev(lines);
    return any;
}

/* Builds and runs the machine; the run (NULL if it did not build), whether it ended, its error. */
static SystemRun *fuzz_run(const char *yaml, bool *ended, GError **e)
{
    GError *le = NULL;
    CfgNode *root = cfg_load_string("fuzz.yaml", yaml, NULL, &le);
    if (root == NULL) {
        fprintf(stderr, "fuzz_kernel: fixed config rejected: %s\n", le->message);
        abort();
    }
    SystemRun *run = system_build(root, -1, NULL, NULL, e);
    *ended = run != NULL && system_run(run, e);
    return run;
}

static void fuzz_one(const char *input)
{
    char *text = NULL;
    gsize len = 0;
    if (!g_file_get_contents(input, &text, &len, NULL)) {
        fprintf(stderr, "fuzz_kernel: cannot read %s\n", input);
        exit(2);
    }
    if (len > FUZZ_MAX_BYTES || memchr(text, '\0', len) != NULL) {
        g_free(text);                  /* kernel_core reads the file; the parser takes C text */
        return;
    }
    long lines = 1;
    for (gsize i = 0; i < len; i++)
        lines += text[i] == '\n';
    guint h = g_str_hash(text);
    int cores = 2 + (int)(h % 2);
    static const char *const models[] = { "sc", "tso", "pso", "weak" };
    const char *model = models[(h / 2) % 4];

    int64_t env[KN_COUNT];
    fuzz_env(cores, env);
    KernelSource src = { input, text };
    GError *e = NULL;
    Kernel *k = kernel_parse(&src, 1, env, FUZZ_BASE, FUZZ_LINE, &e);
    if (!k) {
        fuzz_check(e != NULL && e->domain == ARCHSIM_CONFIG_ERROR &&
                   e->code == ARCHSIM_EXIT_CONFIG, input, "refused without error 78");
        bool pos = fuzz_has_position(e->message, input, lines) ||
                   fuzz_has_position(e->message, "<harness>", 0);
        if (!pos)
            fprintf(stderr, "fuzz_kernel: %s: %s\n", input, e->message);
        fuzz_check(pos, input, "error does not start with FILE:LINE:COL: inside the file");
        g_error_free(e);
        g_free(text);
        return;
    }
    fuzz_program(input, k);
    kernel_free(k);

    char *yaml = g_strdup_printf(fuzz_config, cores, input, model);
    bool ended = false;
    SystemRun *run = fuzz_run(yaml, &ended, &e);
    if (getenv("FUZZ_VERBOSE") != NULL)
        fprintf(stderr, "%s: %d cores, %s: %s\n", input, cores, model,
                e ? e->message : run->truncated ? "max_cycles" : "ended");
    if (!ended) {
        fuzz_check(e != NULL, input, "a failed run without an error");
        const char *m = e->message;
        fuzz_check(!strstr(m, "SWMR violation") && !strstr(m, "data-value violation"), input,
                   "a coherence violation");
        if (strstr(m, "the event queue is empty"))
            fuzz_check(fuzz_all_spinning(m), input, "a lost message (the queue empty while a "
                       "core waits for something other than a spin-wait watch)");
        fuzz_check(run != NULL, input, "a program the parser accepted did not build");
        if (e->code == ARCHSIM_EXIT_CONFIG || e->code == ARCHSIM_EXIT_DATAERR) {
            if (!strstr(m, input) && !strstr(m, "<harness>:"))
                fprintf(stderr, "fuzz_kernel: %s: %s\n", input, m);
            fuzz_check(strstr(m, input) || strstr(m, "<harness>:"), input,
                       "a run-time error of the program that names no op");
        } else {
            if (e->code != ARCHSIM_EXIT_CHECK)
                fprintf(stderr, "fuzz_kernel: %s: %s\n", input, m);
            fuzz_check(e->code == ARCHSIM_EXIT_CHECK, input, "a run error that is not 3, 65 or 78");
        }
        g_error_free(e);
    } else if (!run->truncated) {
        uint64_t cycles = system_stat_u64(run, "sim.cycles"), events = system_stat_u64(run, "sim.events");
        uint64_t misses = system_stat_u64(run, "l1d0.misses");
        GError *e2 = NULL;
        bool ended2 = false;
        SystemRun *again = fuzz_run(yaml, &ended2, &e2);
        fuzz_check(ended2 && !again->truncated, input, "the same run again did not end");
        fuzz_check(system_stat_u64(again, "sim.cycles") == cycles &&
                   system_stat_u64(again, "sim.events") == events &&
                   system_stat_u64(again, "l1d0.misses") == misses, input,
                   "the same config and seed gave other counts");
        system_free(again);
    }
    if (run)
        system_free(run);
    g_free(yaml);
    g_free(text);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        fuzz_one(argv[i]);
    return 0;
}
