/* test_kernel.c: the kernel language (models/cpu/kernel_lang.c), kernel-core (kernel_core.c),
 * the built-in lock kernels (locks.c) and the atomics they use at the coherent L1s
 * (models/cache/cohshared.c: locked RMWs, LL/SC, spin-wait watches).
 *  - parsing: layout, labels, spin-loop marking, the harness; every error with its exact
 *    FILE:LINE:COL message
 *  - atomics with exact values under contention on MSI, MESI, MOESI (bus) and dir-MSI, dir-MESI:
 *    test-and-set, exchange, fetch-and-add, compare-and-swap, LL/SC; the reservation lost on
 *    invalidation, on eviction and by another SC, failures counted per type in the L1 stats
 *  - every lock on 1, 2, 4, 8, 16 and 32 cores (mutual exclusion checked at every acquisition,
 *    the protected counter exact), on every protocol; a broken lock is caught (exit 3)
 *  - spin elision changes no timing of the queue locks; determinism; the lock statistics */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "../../models/cpu/kernel.h"
#include "../../sim/error.h"
#include "../../models/mem/oracle.h"
#include "../../models/mem/memmsg.h"
#include "../../sim/system.h"
#include "kernutil.h"
#include "sysutil.h"

/* ---- parsing -------------------------------------------------------------------------------- */

static const int64_t env4[KN_COUNT] = { [KN_N] = 4, [KN_ITERATIONS] = 10, [KN_CS] = 20,
                                        [KN_OUTSIDE] = 100, [KN_JITTER] = 0,
                                        [KN_BACKOFF_MIN] = 8, [KN_BACKOFF_MAX] = 64 };

static Kernel *parse(const char *text, GError **e)
{
    KernelSource s = { "p", text };
    return kernel_parse(&s, 1, env4, 0x1000, 64, e);
}

static void test_parse_program(void)
{
    GError *e = NULL;
    Kernel *k = parse("# a program\n"
                      ".var   a = 3\n"
                      ".var   b packed\n"
                      ".var   c packed\n"
                      ".array flags[n+1]\n"
                      ".array node[n] bytes 16 = 2\n"
                      ".init  flags[2] = n * 2\n"
                      ".expect a = 3\n"
                      "main:\n"
                      "    mov   r1, id          # comment\n"
                      "spin: load r2, flags[r1]\n"
                      "    beq   r2, 0, spin\n"
                      "    store node[r1]+8, -5\n"
                      "    cas   r3, a, 3, 0x10\n"
                      "    delay cs, jitter\n"
                      "    halt\n",
                      &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    CU_ASSERT_EQUAL(k->nops, 7);
    CU_ASSERT_EQUAL(k->entry, 0);
    CU_ASSERT_FALSE(k->harness);
    /* layout: a own line; b and c packed in the next; flags one per line; node 16 B per line */
    CU_ASSERT_EQUAL(k->nsyms, 5);
    CU_ASSERT_EQUAL(k->syms[0].addr, 0x1000);
    CU_ASSERT_EQUAL(k->syms[1].addr, 0x1040);
    CU_ASSERT_EQUAL(k->syms[2].addr, 0x1048);
    CU_ASSERT_EQUAL(k->syms[3].addr, 0x1080);
    CU_ASSERT_EQUAL(k->syms[3].count, 5);
    CU_ASSERT_EQUAL(k->syms[3].stride, 64);
    CU_ASSERT_EQUAL(k->syms[4].addr, 0x1080 + 5 * 64);
    CU_ASSERT_EQUAL(k->syms[4].elem, 16);
    CU_ASSERT_EQUAL(k->bytes, 0x80 + 5 * 64 + 4 * 64);
    /* initial data: a = 3; both words of each node = 2; flags[2] = 8 */
    CU_ASSERT_EQUAL(k->inits->len, 1 + 4 * 2 + 1);
    KernelInit last = g_array_index(k->inits, KernelInit, k->inits->len - 1);
    CU_ASSERT_EQUAL(last.addr, 0x1080 + 2 * 64);
    CU_ASSERT_EQUAL(last.value, 8);
    CU_ASSERT_EQUAL(k->expects->len, 1);
    /* operands */
    CU_ASSERT_TRUE(k->ops[1].spin);                  /* load r2 ; beq r2, 0, back */
    CU_ASSERT_EQUAL(k->ops[2].target, 1);
    CU_ASSERT_EQUAL(k->ops[3].addr.offset.imm, 8);
    CU_ASSERT_EQUAL(k->ops[3].v[0].imm, -5);
    CU_ASSERT_EQUAL(k->ops[4].v[1].imm, 16);
    CU_ASSERT_TRUE(k->ops[0].v[0].is_slot && k->ops[0].v[0].slot == KERNEL_NREGS + KN_ID);
    CU_ASSERT_EQUAL(k->ops[5].nvals, 2);
    char *where = kernel_op_where(k, 1);
    CU_ASSERT_STRING_EQUAL(where, "p:11:7");
    g_free(where);
    kernel_free(k);
}

/* A file may declare more than 32,767 symbols (1 MiB holds about 100,000 .var lines): an op's
 * symbol index was an int16 and symbol 32,768 read syms[-32768] (a crash, or a store elsewhere). */
static void test_parse_many_symbols(void)
{
    GString *t = g_string_new(NULL);
    for (int i = 0; i < 40000; i++)
        g_string_append_printf(t, ".var v%d packed\n", i);
    g_string_append(t, "main:\n    store v32768, 7\n    load r1, v39999\n    halt\n");
    GError *e = NULL;
    Kernel *k = parse(t->str, &e);
    g_string_free(t, TRUE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    CU_ASSERT_EQUAL(k->nsyms, 40000);
    CU_ASSERT_EQUAL(k->ops[0].addr.sym, 32768);
    CU_ASSERT_EQUAL(k->ops[1].addr.sym, 39999);
    kernel_free(k);
}

static void test_parse_lock_kernel(void)
{
    for (const KernelBuiltin *b = kernel_builtins; b->name; b++) {
        GError *e = NULL;
        Kernel *k = parse(b->text, &e);
        if (!k)
            fprintf(stderr, "\n%s: %s\n", b->name, e->message);
        CU_ASSERT_PTR_NOT_NULL_FATAL(k);
        CU_ASSERT_TRUE(k->harness);
        CU_ASSERT_TRUE(k->markers);
        CU_ASSERT_TRUE(kernel_find_sym(k, "counter") >= 0);
        CU_ASSERT_EQUAL(k->expects->len, 1);
        int ek = k->ops[k->entry].kind;             /* the harness: call init, or nop */
        CU_ASSERT_TRUE(ek == KOP_CALL || ek == KOP_NOP);
        /* the spinning loads are marked for elision, the atomic loops are not */
        int spins = 0;
        for (int i = 0; i < k->nops; i++)
            spins += k->ops[i].spin;
        CU_ASSERT_EQUAL(spins, strcmp(b->name, "tas") == 0 ? 0
                               : strcmp(b->name, "mcs") == 0 ? 2
                                                             : 1);
        kernel_free(k);
    }
    CU_ASSERT_PTR_NULL(kernel_builtin_find("spinlock"));
}

typedef struct {
    const char *text;
    const char *message;
} BadCase;

static const BadCase bad_cases[] = {
    { ".var x\nmain:\n    lod r1, x\n", "p:3:5: unknown operation 'lod'; did you mean 'load'?" },
    { ".var x\nspin: load r1, x\n    bne r1, 0, spn\n",
      "p:3:16: label 'spn' is not defined; did you mean 'spin'?" },
    { ".var x\n  load r16, x\n", "p:2:8: there is no register r16: registers are r0..r15" },
    { "  mov id, 3\n",
      "p:1:7: 'id' is read-only: the destination must be a register r0..r15 (mov rD, V)" },
    { ".var lock\n  load r1, lokc\n",
      "p:2:12: symbol 'lokc' is not declared (.var NAME or .array NAME[COUNT]); did you mean "
      "'lock'?" },
    { ".var x\n  store x\n", "p:2:10: expected ',' between operands, found 'end of line'" },
    { ".var x\n  load r1, x, 4\n",
      "p:2:13: unexpected ',' after the operands (load rD, ADDR)" },
    { "a: nop\na: halt\n", "p:2:1: label 'a' is defined twice (first at p:1:1)" },
    { ".var x\n.array x[2]\n", "p:2:8: symbol 'x' is declared twice (first at p:1:6)" },
    { ".array f[n]\n  load r1, f[4]\n", "p:2:14: index 4 is out of range: f has 4 elements" },
    { ".var x bytes 16\n  load r1, x+4\n",
      "p:2:14: offset 4 is not a word of x's 16-byte element (a multiple of 8 below 16)" },
    { ".vra x\n", "p:1:1: unknown directive '.vra'; did you mean '.var'? (directives: .var, "
                  ".array, .init, .expect)" },
    { ".var l\nacquire:\n  ret\n",
      "p:2:1: a lock kernel defines both 'acquire' and 'release' (it has only 'acquire'); a "
      "program of your own starts at 'main' or its first op" },
    { "# nothing\n.var x\n", "p:1:1: the program has no operations" },
    { ".array a[id]\n  halt\n",
      "p:1:10: 'id' differs from core to core: a declaration cannot use it" },
    { ".array a[2] bytes 12\n  halt\n",
      "p:1:19: an element is a whole number of 8-byte words up to a line (64 B): 12 is not" },
    { "  add r1, r2, foo\n",
      "p:1:15: 'foo' is not a register (r0..r15), a number or a read-only value (id, n, "
      "iterations, cs, outside, jitter, backoff_min, backoff_max) in add rD, A, B" },
    { "  jmp\n", "p:1:6: missing operand: jmp LABEL" },
    { ".var x\n.expect x = acquisition\n  halt\n",
      "p:2:13: 'acquisition' is not a number or a known value (n, iterations, cs, outside, "
      "jitter, backoff_min, backoff_max, acquisitions); did you mean 'acquisitions'?" },
    { "  beq r1, 0x, end\nend: halt\n", "p:1:11: expected a number" },
    { ".var x = 1 lined\n  halt\n",
      "p:1:12: unexpected 'lined': a declaration takes 'bytes N', '= VALUE' or 'packed'" },
    { "  jmp end\nend:\n",
      "p:1:7: label 'end' marks the end of the program: no operation follows it" },
    { ".array a[0]\n  halt\n", "p:1:10: an array needs at least one element (the count is 0)" },
    /* bounds on what the text may ask for (found by tools/fuzz/fuzz_kernel.c): before, the
     * first overflowed the stack, the second ran out of memory, the others wrapped silently */
    { ".array a[((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1)))))))))"
      ")))))))))))))))))))))))))))))))))))))))))))))))))))))))))]\n  halt\n",
      "p:1:74: parentheses nest deeper than 64" },
    { ".array a[1000000000000] = 5\n  halt\n",
      "p:1:8: 'a': '= VALUE' would set 1000000000000 words, and a program's declarations may set "
      "at most 1048576 (memory starts at 0: an array read before it is written needs no '= 0')" },
    { ".array a[1048576] bytes 16 = 1\n  halt\n",
      "p:1:8: 'a': '= VALUE' would set 2097152 words, and a program's declarations may set at "
      "most 1048576 (memory starts at 0: an array read before it is written needs no '= 0')" },
    { ".array a[1000000000000000000]\n  halt\n",
      "p:1:8: 'a': 1000000000000000000 elements of 64 B from 0x1000 end past the simulated "
      "address space (2^60 B)" },
    { ".array a[4611686018427387904 * 2]\n  halt\n",
      "p:1:30: the product is out of the 64-bit signed range" },
    { "main: xbegin r1, main\n  xabort 300\n  halt\n",
      "p:2:10: xabort code 300: expected 0 to 255 (xabort V)" },
    { ".var x = 9223372036854775807 + 1\n  halt\n",
      "p:1:30: the sum is out of the 64-bit signed range" },
    { ".var x = 0 - 9223372036854775807 - 2\n  halt\n",
      "p:1:34: the difference is out of the 64-bit signed range" },
};

static void test_parse_errors(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(bad_cases); i++) {
        GError *e = NULL;
        Kernel *k = parse(bad_cases[i].text, &e);
        CU_ASSERT_PTR_NULL(k);
        if (!e) {
            fprintf(stderr, "\ncase %zu parsed\n", i);
            CU_FAIL("no error");
            kernel_free(k);
            continue;
        }
        CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CONFIG);
        if (strcmp(e->message, bad_cases[i].message) != 0)
            fprintf(stderr, "\ncase %zu:\n  got  %s\n  want %s\n", i, e->message,
                    bad_cases[i].message);
        CU_ASSERT_STRING_EQUAL(e->message, bad_cases[i].message);
        g_error_free(e);
    }
}

/* ---- running systems ------------------------------------------------------------------------ */

/* "msi", "mesi", "moesi": the bus machine; "dir-msi", "dir-mesi": the directory machine. */
static char *machine_yaml(const char *proto, int cores, const char *core_keys, const char *extra)
{
    bool dir = g_str_has_prefix(proto, "dir-");
    return g_strdup_printf("system:\n  type: %s\n  cores: %d\n%s%s%s"
                           "core:\n  type: kernel-core\n%s%s",
                           dir ? "dirsmp" : "smp", cores, dir ? "  protocol: " : "",
                           dir ? proto : "", dir ? "\n" : "", core_keys, extra ? extra : "");
}

/* The program as a YAML block under core.program. */
static char *program_keys(const char *program, const char *more)
{
    GString *s = g_string_new("  program: |\n");
    char **lines = g_strsplit(program, "\n", -1);
    for (char **l = lines; *l; l++)
        if (**l)
            g_string_append_printf(s, "    %s\n", *l);
    g_strfreev(lines);
    if (more)
        g_string_append(s, more);
    return g_string_free(s, FALSE);
}

static char *l1_protocol(const char *proto)
{
    return g_str_has_prefix(proto, "dir-") ? g_strdup("")
                                           : g_strdup_printf("l1d:\n  protocol: %s\n", proto);
}

/* Builds and runs; NULL with *e set if either fails. */
static SystemRun *run_yaml(const char *yaml, int64_t seed, GError **e)
{
    CfgNode *root = cfg_load_string("t.yaml", yaml, NULL, e);
    if (!root)
        return NULL;
    SystemRun *r = system_build(root, seed, NULL, NULL, e);
    if (r && !system_run(r, e)) {
        system_free(r);
        return NULL;
    }
    return r;
}

static bool expect_failure;     /* quiet: the test wants the run to fail */

static SystemRun *run_program(const char *proto, int cores, const char *program,
                              const char *more_core, const char *extra, GError **e)
{
    char *keys = program_keys(program, more_core);
    char *l1 = l1_protocol(proto);
    char *all = g_strconcat(l1, extra ? extra : "", NULL);
    char *yaml = machine_yaml(proto, cores, keys, all);
    SystemRun *r = run_yaml(yaml, 1, e);
    if (!r && !expect_failure)
        fprintf(stderr, "\n%s, %d cores: %s\n", proto, cores, (*e)->message);
    g_free(keys);
    g_free(l1);
    g_free(all);
    g_free(yaml);
    return r;
}

static const char *const protos[] = { "msi", "mesi", "moesi", "dir-msi", "dir-mesi" };

/* ---- atomics -------------------------------------------------------------------------------- */

/* Every core test-and-sets the same word once, all at cycle 0: exactly one sees 0. */
static void test_tas_exact(void)
{
    for (size_t p = 0; p < G_N_ELEMENTS(protos); p++) {
        for (int n = 2; n <= 16; n *= 2) {
            GError *e = NULL;
            SystemRun *r = run_program(protos[p], n, ".var x\n.expect x = 1\n"
                                       "  tas r0, x\n  halt\n", "  jitter: 0\n", NULL, &e);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            int zeros = 0;
            for (int i = 0; i < n; i++)
                zeros += kernel_core_reg(core_of(r, i), 0) == 0;
            CU_ASSERT_EQUAL(zeros, 1);
            CU_ASSERT_EQUAL(stat_u(r, "l1d.atomics.tas"), (uint64_t)n);
            CU_ASSERT_EQUAL(stat_u(r, "l1d.atomics.xchg"), 0);
            system_free(r);
        }
    }
}

/* xchg id+1 from every core: the old values and the final word are 0..n, each once. */
static void test_xchg_exact(void)
{
    for (size_t p = 0; p < G_N_ELEMENTS(protos); p++) {
        int n = 8;
        GError *e = NULL;
        SystemRun *r = run_program(protos[p], n, ".var x\n  add r1, id, 1\n  xchg r0, x, r1\n"
                                   "  halt\n", "  jitter: 3\n", NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        uint64_t seen = 1ull << mem_word(r, "x", 0);
        for (int i = 0; i < n; i++)
            seen |= 1ull << kernel_core_reg(core_of(r, i), 0);
        CU_ASSERT_EQUAL(seen, (1ull << (n + 1)) - 1);
        CU_ASSERT_EQUAL(stat_u(r, "l1d.atomics.xchg"), (uint64_t)n);
        system_free(r);
    }
}

/* fetch-and-add tickets: each core marks the ticket it got; every ticket taken exactly once. */
static void test_faa_exact(void)
{
    for (size_t p = 0; p < G_N_ELEMENTS(protos); p++) {
        int n = 8;
        GError *e = NULL;
        SystemRun *r = run_program(protos[p], n,
                                   ".var next\n.array seen[n * iterations] packed\n"
                                   ".expect next = n * iterations\n"
                                   "again:\n  faa r1, next, 1\n  load r2, seen[r1]\n"
                                   "  add r2, r2, 1\n  store seen[r1], r2\n  loop again\n  halt\n",
                                   "  iterations: 25\n  jitter: 2\n", NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        int ok = 0;
        uint64_t a = kernel_core_addr(core_of(r, 0), "seen", 0);
        for (uint64_t t = 0; t < (uint64_t)n * 25; t++)
            ok += oracle_value(mem_oracle(&r->sim), a + 8 * t, 8) == 1;
        CU_ASSERT_EQUAL(ok, n * 25);
        CU_ASSERT_EQUAL(stat_u(r, "l1d.atomics.faa"), (uint64_t)n * 25);
        system_free(r);
    }
}

/* A compare-and-swap increment loop: exact, and contention makes some CAS fail. */
static void test_cas_exact(void)
{
    uint64_t failures = 0;
    for (size_t p = 0; p < G_N_ELEMENTS(protos); p++) {
        int n = 8;
        GError *e = NULL;
        SystemRun *r = run_program(protos[p], n,
                                   ".var x\n.expect x = n * iterations\n"
                                   "again:\n  load r1, x\nretry:\n  add r2, r1, 1\n"
                                   "  cas r3, x, r1, r2\n  beq r3, r1, done\n  mov r1, r3\n"
                                   "  jmp retry\ndone:\n  loop again\n  halt\n",
                                   "  iterations: 30\n  jitter: 0\n", NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        uint64_t f = 0;
        char name[64];
        for (int i = 0; i < n; i++) {
            g_snprintf(name, sizeof name, "core%d.cas_failures", i);
            f += stat_u(r, name);
        }
        CU_ASSERT_EQUAL(stat_u(r, "l1d.atomics.cas"), (uint64_t)n * 30 + f);
        failures += f;
        system_free(r);
    }
    CU_ASSERT_TRUE(failures > 0);
}

/* An LL/SC increment loop: exact, every SC counted as success or failure. Without backoff it
 * progresses on the bus; on the directories, where an upgrade takes ~100 cycles, every doomed
 * SC's GetM kills the next round's reservations: it needs backoff (docs/locks.md, livelock). */
static void test_llsc_exact(void)
{
    static const char *const loops[] = {
        "again:\n  ll r1, x\n  add r1, r1, 1\n  sc r2, x, r1\n  beq r2, 0, again\n",
        "again:\n  mov r4, 1\nretry:\n  ll r1, x\n  add r1, r1, 1\n  sc r2, x, r1\n"
        "  bne r2, 0, done\n  rand r3, r4\n  delay r3\n  shl r4, r4, 1\n  min r4, r4, 256\n"
        "  jmp retry\ndone:\n",
    };
    for (int b = 0; b < 2; b++) {
        for (size_t p = 0; p < G_N_ELEMENTS(protos); p++) {
            if (!b && g_str_has_prefix(protos[p], "dir-"))
                continue;
            int n = 8;
            char *prog = g_strconcat(".var x\n.expect x = n * iterations\n", loops[b],
                                     "  loop again\n  halt\n", NULL);
            GError *e = NULL;
            SystemRun *r = run_program(protos[p], n, prog, "  iterations: 30\n  jitter: 0\n",
                                       "sim:\n  watchdog: 200000\n", &e);
            g_free(prog);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            uint64_t ll = stat_u(r, "l1d.atomics.ll"), ok = stat_u(r, "l1d.atomics.sc_success");
            uint64_t fail = stat_u(r, "l1d.atomics.sc_fail");
            CU_ASSERT_EQUAL(ok, (uint64_t)n * 30);
            CU_ASSERT_EQUAL(ll, ok + fail);
            CU_ASSERT_TRUE(fail > 0);
            system_free(r);
        }
    }
}

/* Core 0 links x, waits, and stores conditionally; core 1 writes x (or y, the control) in
 * between: the write takes the line away and the SC must fail, leaving core 1's value. */
static void test_llsc_invalidation(void)
{
    for (size_t p = 0; p < G_N_ELEMENTS(protos); p++) {
        for (int other = 0; other < 2; other++) {
            char *prog = g_strdup_printf(
                ".var x\n.var y\n"
                "  beq id, 1, writer\n  ll r1, x\n  delay 2000\n  sc r2, x, 5\n  halt\n"
                "writer:\n  delay 1000\n  store %s, 7\n  halt\n", other ? "y" : "x");
            GError *e = NULL;
            SystemRun *r = run_program(protos[p], 2, prog, "  jitter: 0\n", NULL, &e);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            if (other) {
                CU_ASSERT_EQUAL(kernel_core_reg(core_of(r, 0), 2), 1);
                CU_ASSERT_EQUAL(mem_word(r, "x", 0), 5);
                CU_ASSERT_EQUAL(stat_u(r, "l1d0.atomics.sc_success"), 1);
            } else {
                CU_ASSERT_EQUAL(kernel_core_reg(core_of(r, 0), 2), 0);
                CU_ASSERT_EQUAL(mem_word(r, "x", 0), 7);
                CU_ASSERT_EQUAL(stat_u(r, "l1d0.atomics.sc_fail"), 1);
                CU_ASSERT_EQUAL(stat_u(r, "core0.sc_failures"), 1);
                /* it failed at once: no store reached the L1 array */
                CU_ASSERT_EQUAL(stat_u(r, "l1d0.stores"), 0);
            }
            system_free(r);
            g_free(prog);
        }
    }
}

/* One core, a 4-line direct-mapped L1: loading a line of the same set evicts x and loses the
 * reservation; a line of another set does not. */
static void test_llsc_eviction(void)
{
    static const char *const l1[] = { "l1d:\n  size: 256B\n  assoc: 1\n  protocol: mesi\n",
                                      "l1d:\n  size: 256B\n  assoc: 1\n" };
    for (int dir = 0; dir < 2; dir++) {
        for (int idx = 0; idx <= 3; idx += 3) {
            /* x is line 0; pad[i] is line 1 + i: pad[3] shares x's set */
            char *prog = g_strdup_printf(".var x\n.array pad[4]\n  ll r1, x\n"
                                         "  load r3, pad[%d]\n  sc r2, x, 9\n  halt\n", idx);
            char *keys = program_keys(prog, NULL);
            char *yaml = g_strdup_printf("system:\n  type: %s\n  cores: 1\n"
                                         "core:\n  type: kernel-core\n%s%s",
                                         dir ? "dirsmp" : "smp", keys, l1[dir]);
            GError *e = NULL;
            SystemRun *r = run_yaml(yaml, 1, &e);
            if (!r)
                fprintf(stderr, "\n%s\n", e->message);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            bool evicted = idx == 3;
            CU_ASSERT_EQUAL(kernel_core_reg(core_of(r, 0), 2), evicted ? 0 : 1);
            CU_ASSERT_EQUAL(mem_word(r, "x", 0), evicted ? 0 : 9);
            CU_ASSERT_EQUAL(stat_u(r, "l1d0.atomics.sc_fail"), evicted ? 1 : 0);
            CU_ASSERT_EQUAL(stat_u(r, "l1d0.replacements") > 0, evicted);
            system_free(r);
            g_free(yaml);
            g_free(keys);
            g_free(prog);
        }
    }
}

/* An SC with no LL fails; a second SC after a successful one fails (SC clears the
 * reservation); an LL to another line moves the reservation, and even a failed SC clears it. */
static void test_llsc_rules(void)
{
    for (size_t p = 0; p < G_N_ELEMENTS(protos); p++) {
        GError *e = NULL;
        SystemRun *r = run_program(protos[p], 1,
                                   ".var x\n.var y\n"
                                   "  sc r1, x, 1\n"
                                   "  ll r0, x\n  sc r2, x, 2\n  sc r3, x, 3\n"
                                   "  ll r0, x\n  ll r0, y\n  sc r4, x, 4\n  sc r5, y, 5\n"
                                   "  ll r0, y\n  sc r6, y, 6\n  halt\n",
                                   NULL, NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        Component *c = core_of(r, 0);
        CU_ASSERT_EQUAL(kernel_core_reg(c, 1), 0);
        CU_ASSERT_EQUAL(kernel_core_reg(c, 2), 1);
        CU_ASSERT_EQUAL(kernel_core_reg(c, 3), 0);
        CU_ASSERT_EQUAL(kernel_core_reg(c, 4), 0);
        CU_ASSERT_EQUAL(kernel_core_reg(c, 5), 0);
        CU_ASSERT_EQUAL(kernel_core_reg(c, 6), 1);
        CU_ASSERT_EQUAL(mem_word(r, "x", 0), 2);
        CU_ASSERT_EQUAL(mem_word(r, "y", 0), 6);
        CU_ASSERT_EQUAL(stat_u(r, "l1d0.atomics.sc_success"), 2);
        CU_ASSERT_EQUAL(stat_u(r, "l1d0.atomics.sc_fail"), 4);
        CU_ASSERT_EQUAL(stat_u(r, "l1d0.atomics.ll"), 4);
        system_free(r);
    }
}

/* ---- locks ---------------------------------------------------------------------------------- */

static SystemRun *run_lock(const char *proto, const char *lock, int cores, int iters,
                           const char *more, GError **e)
{
    char *keys = g_strdup_printf("  kernel: %s\n  iterations: %d\n  cs: 10\n  outside: 50\n%s",
                                 lock, iters, more ? more : "");
    char *l1 = l1_protocol(proto);
    char *yaml = machine_yaml(proto, cores, keys, l1);
    SystemRun *r = run_yaml(yaml, 1, e);
    if (!r)
        fprintf(stderr, "\n%s on %s, %d cores: %s\n", lock, proto, cores, (*e)->message);
    g_free(keys);
    g_free(l1);
    g_free(yaml);
    return r;
}

static void check_lock_run(SystemRun *r, int cores, int iters)
{
    uint64_t total = (uint64_t)cores * (uint64_t)iters;
    CU_ASSERT_EQUAL(stat_u(r, "locks.acquisitions"), total);
    CU_ASSERT_EQUAL((uint64_t)mem_word(r, "counter", 0), total);
    CU_ASSERT_EQUAL(stat_u(r, "locks.acquisitions_min"), (uint64_t)iters);
    CU_ASSERT_EQUAL(stat_u(r, "locks.acquisitions_max"), (uint64_t)iters);
    CU_ASSERT_TRUE(stat_u(r, "locks.handoffs") <= total);
}

/* Every lock on 1..32 cores on the MESI bus: mutual exclusion is checked at every acquisition
 * and the counter at the end (the run fails otherwise); here the totals too. */
static void test_every_lock_every_size(void)
{
    for (const KernelBuiltin *b = kernel_builtins; b->name; b++) {
        for (int n = 1; n <= 32; n *= 2) {
            int iters = n >= 16 ? 12 : 25;
            GError *e = NULL;
            SystemRun *r = run_lock("mesi", b->name, n, iters, NULL, &e);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            check_lock_run(r, n, iters);
            system_free(r);
        }
    }
}

/* ... and on every other protocol, with 8 cores and on 32-core directories. */
static void test_every_lock_every_protocol(void)
{
    for (const KernelBuiltin *b = kernel_builtins; b->name; b++) {
        for (size_t p = 0; p < G_N_ELEMENTS(protos); p++) {
            int n = g_str_has_prefix(protos[p], "dir-") ? 32 : 8, iters = n == 32 ? 6 : 20;
            GError *e = NULL;
            SystemRun *r = run_lock(protos[p], b->name, n, iters, NULL, &e);
            CU_ASSERT_PTR_NOT_NULL_FATAL(r);
            check_lock_run(r, n, iters);
            const char *traffic = g_str_has_prefix(protos[p], "dir-")
                                      ? "locks.net_messages_per_acquire"
                                      : "locks.bus_transactions_per_acquire";
            CU_ASSERT_TRUE(stat_u(r, traffic) > 0 && stat_u(r, traffic) != UINT64_MAX);
            system_free(r);
        }
    }
}

/* A "lock" whose test and set are separate accesses lets two cores in: exit 3, named. */
static void test_mutual_exclusion_checker(void)
{
    GError *e = NULL;
    char *keys = program_keys(".var lock\nacquire:\n  load r1, lock\n  bne r1, 0, acquire\n"
                              "  store lock, 1\n  ret\nrelease:\n  store lock, 0\n  ret\n",
                              "  iterations: 50\n");
    char *yaml = machine_yaml("mesi", 4, keys, NULL);
    SystemRun *r = run_yaml(yaml, 1, &e);
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CHECK);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, ": mutual exclusion violated: core"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, " acquired the lock while core"));
    CU_ASSERT_TRUE(g_str_has_prefix(e->message, "cycle "));
    g_clear_error(&e);
    g_free(yaml);
    g_free(keys);
    /* a release without the lock, and a wrong .expect, are caught too */
    static const char *const progs[] = { "  released\n  halt\n",
                                         ".var x\n.expect x = 2\n  store x, 1\n  halt\n" };
    static const char *const msgs[] = { "core0 released the lock, which no core holds",
                                        "core.program:2:13: check failed: x = 1, expected 2 "
                                        "(2)" };
    expect_failure = true;
    for (int i = 0; i < 2; i++) {
        r = run_program("mesi", 1, progs[i], NULL, NULL, &e);
        CU_ASSERT_PTR_NULL(r);
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_CHECK);
        CU_ASSERT_PTR_NOT_NULL(strstr(e->message, msgs[i]));
        g_clear_error(&e);
    }
    expect_failure = false;
}

/* The queue locks' spinning loads hit until the hand-over write: sleeping on the line instead
 * gives the very same run (cycle for cycle, message for message) in far fewer events. */
static void test_spin_elision_exact(void)
{
    static const char *const locks[] = { "ticket", "anderson", "mcs", "clh" };
    for (int d = 0; d < 2; d++) {
        for (size_t i = 0; i < G_N_ELEMENTS(locks); i++) {
            GError *e = NULL;
            const char *proto = d ? "dir-mesi" : "mesi";
            SystemRun *a = run_lock(proto, locks[i], 16, 10, "  spin_elision: true\n", &e);
            SystemRun *b = run_lock(proto, locks[i], 16, 10, "  spin_elision: false\n", &e);
            CU_ASSERT_PTR_NOT_NULL_FATAL(a);
            CU_ASSERT_PTR_NOT_NULL_FATAL(b);
            CU_ASSERT_EQUAL(stat_u(a, "locks.cycles"), stat_u(b, "locks.cycles"));
            CU_ASSERT_EQUAL(stat_u(a, "locks.handoffs"), stat_u(b, "locks.handoffs"));
            CU_ASSERT_EQUAL(stat_u(a, "l1d.misses"), stat_u(b, "l1d.misses"));
            CU_ASSERT_EQUAL(stat_u(a, "l1d.invalidated"), stat_u(b, "l1d.invalidated"));
            CU_ASSERT_TRUE(stat_u(a, "l1d.spin_waits") > 0);
            CU_ASSERT_EQUAL(stat_u(b, "l1d.spin_waits"), 0);
            /* the loads not sent are exactly those counted as elided */
            uint64_t elided = 0;
            char name[64];
            for (int c = 0; c < 16; c++) {
                g_snprintf(name, sizeof name, "core%d.spin_loads_elided", c);
                elided += stat_u(a, name);
            }
            CU_ASSERT_EQUAL(stat_u(a, "l1d.loads") + elided, stat_u(b, "l1d.loads"));
            CU_ASSERT_TRUE(stat_u(a, "sim.events") * 2 < stat_u(b, "sim.events"));
            system_free(a);
            system_free(b);
        }
    }
}

static char *stats_text(SystemRun *r)
{
    StatSet s;
    stats_init(&s);
    system_collect_stats(r, &s);
    GString *out = g_string_new(NULL);
    for (guint i = 0; i < s.entries->len; i++) {
        const StatEntry *x = &g_array_index(s.entries, StatEntry, i);
        if (x->is_int)
            g_string_append_printf(out, "%s %" G_GUINT64_FORMAT "\n", x->name, x->u);
        else
            g_string_append_printf(out, "%s %.9g\n", x->name, x->d);
    }
    stats_clear(&s);
    return g_string_free(out, FALSE);
}

static void test_deterministic(void)
{
    GError *e = NULL;
    SystemRun *a = run_lock("mesi", "ttas-backoff", 8, 20, "  jitter: 40\n", &e);
    SystemRun *b = run_lock("mesi", "ttas-backoff", 8, 20, "  jitter: 40\n", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    char *sa = stats_text(a), *sb = stats_text(b);
    CU_ASSERT_STRING_EQUAL(sa, sb);
    g_free(sa);
    g_free(sb);
    system_free(a);
    system_free(b);
    /* another seed moves the jittered timing */
    char *l1 = l1_protocol("mesi");
    char *yaml = machine_yaml("mesi", 8, "  kernel: ttas-backoff\n  iterations: 20\n  cs: 10\n"
                              "  outside: 50\n  jitter: 40\n", l1);
    CfgNode *root = cfg_load_string("t.yaml", yaml, NULL, &e);
    SystemRun *c = system_build(root, 2, NULL, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_TRUE(system_run(c, &e));
    a = run_lock("mesi", "ttas-backoff", 8, 20, "  jitter: 40\n", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(stat_u(c, "locks.acquisitions"), 160);
    CU_ASSERT_NOT_EQUAL(stat_u(c, "locks.cycles"), stat_u(a, "locks.cycles"));
    system_free(a);
    system_free(c);
    g_free(yaml);
    g_free(l1);
}

/* The figures of the lock experiment: time-bounded runs, fairness, traffic per acquisition. */
static void test_lock_stats(void)
{
    GError *e = NULL;
    /* duration: iterations unbounded, no iteration starts at or after cycle 20000 */
    SystemRun *r = run_lock("mesi", "tas", 8, 0, "  duration: 20000\n", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    uint64_t acq = stat_u(r, "locks.acquisitions");
    CU_ASSERT_TRUE(acq > 50);
    CU_ASSERT_EQUAL((uint64_t)mem_word(r, "counter", 0), acq);
    CU_ASSERT_TRUE(stat_u(r, "locks.acquisitions_max") >= stat_u(r, "locks.acquisitions_min"));
    system_free(r);
    /* the per-type counts add up: ticket = one faa per acquisition */
    r = run_lock("moesi", "ticket", 4, 30, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(stat_u(r, "l1d.atomics.faa"), 120);
    CU_ASSERT_EQUAL(stat_u(r, "l1d.rmws"), 120);
    CU_ASSERT_EQUAL(stat_u(r, "core0.acquisitions"), 30);
    CU_ASSERT_EQUAL(stat_u(r, "locks.fairness"), 1);
    system_free(r);
    /* traffic per acquisition: the ticket lock's release invalidates every waiter, MCS's one */
    double ticket[2], mcs[2];
    for (int i = 0; i < 2; i++) {
        int n = i ? 16 : 4;
        SystemRun *t = run_lock("mesi", "ticket", n, 20, NULL, &e);
        SystemRun *m = run_lock("mesi", "mcs", n, 20, NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        ticket[i] = (double)stat_u(t, "l1d.invalidated") / (double)(n * 20);
        mcs[i] = (double)stat_u(m, "l1d.invalidated") / (double)(n * 20);
        system_free(t);
        system_free(m);
    }
    CU_ASSERT_TRUE(ticket[1] > 1.8 * ticket[0]);
    CU_ASSERT_TRUE(mcs[1] < 1.25 * mcs[0]);
    CU_ASSERT_TRUE(mcs[1] < ticket[1]);
}

/* Config errors: no program, two programs, a file that is not there, a syntax error's position
 * inside core.program. */
static void test_config_errors(void)
{
    static const struct {
        const char *core;
        int code;
        const char *msg;
    } cases[] = {
        { "  iterations: 3\n", ARCHSIM_EXIT_CONFIG, "give exactly one of kernel" },
        { "  kernel: mcs\n  program: \"halt\"\n", ARCHSIM_EXIT_CONFIG,
          "give exactly one of kernel" },
        { "  kernel: mcss\n", ARCHSIM_EXIT_CONFIG, "did you mean 'mcs'?" },
        { "  kernel_file: /nonexistent/lock.k\n", ARCHSIM_EXIT_NOINPUT,
          "/nonexistent/lock.k: cannot read kernel_file" },
        { "  program: |\n    .var x\n    main:\n      loda r1, x\n", ARCHSIM_EXIT_CONFIG,
          "core.program:3:3: unknown operation 'loda'; did you mean 'load'?" },
        { "  kernel: mcs\n  iterations: 0\n", ARCHSIM_EXIT_CONFIG,
          "iterations and duration are both 0" },
        { "  kernel: ttas-backoff\n  backoff_min: 100\n  backoff_max: 10\n", ARCHSIM_EXIT_CONFIG,
          "backoff_min (100) is above backoff_max (10)" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *yaml = machine_yaml("mesi", 2, cases[i].core, NULL);
        GError *e = NULL;
        SystemRun *r = run_yaml(yaml, 1, &e);
        CU_ASSERT_PTR_NULL(r);
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT_EQUAL(e->code, cases[i].code);
        if (!strstr(e->message, cases[i].msg))
            fprintf(stderr, "\ncase %zu: %s\n", i, e->message);
        CU_ASSERT_PTR_NOT_NULL(strstr(e->message, cases[i].msg));
        g_clear_error(&e);
        g_free(yaml);
    }
    /* a run-time error names the op: an index out of range */
    GError *e = NULL;
    expect_failure = true;
    SystemRun *r = run_program("mesi", 2, ".array a[2]\n  mov r1, 5\n  load r2, a[r1]\n  halt\n",
                               NULL, NULL, &e);
    expect_failure = false;
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_DATAERR);
    CU_ASSERT_PTR_NOT_NULL(strstr(e->message, "core.program:3:3: index 5 is out of range: a has "
                                              "2 elements"));
    g_clear_error(&e);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("kernel", NULL, NULL);
    CU_add_test(s, "parse a program: layout, labels, spins", test_parse_program);
    CU_add_test(s, "more than 32,767 symbols", test_parse_many_symbols);
    CU_add_test(s, "every built-in lock parses with the harness", test_parse_lock_kernel);
    CU_add_test(s, "parse errors with FILE:LINE:COL", test_parse_errors);
    CU_add_test(s, "test-and-set: one winner", test_tas_exact);
    CU_add_test(s, "exchange: a permutation", test_xchg_exact);
    CU_add_test(s, "fetch-and-add: every ticket once", test_faa_exact);
    CU_add_test(s, "compare-and-swap: exact, failures counted", test_cas_exact);
    CU_add_test(s, "LL/SC: exact, failures counted", test_llsc_exact);
    CU_add_test(s, "LL/SC: reservation lost on invalidation", test_llsc_invalidation);
    CU_add_test(s, "LL/SC: reservation lost on eviction", test_llsc_eviction);
    CU_add_test(s, "LL/SC: SC clears, LL moves the reservation", test_llsc_rules);
    CU_add_test(s, "every lock on 1..32 cores", test_every_lock_every_size);
    CU_add_test(s, "every lock on every protocol", test_every_lock_every_protocol);
    CU_add_test(s, "the checkers catch a broken lock", test_mutual_exclusion_checker);
    CU_add_test(s, "spin elision is exact for queue locks", test_spin_elision_exact);
    CU_add_test(s, "same seed, same stats", test_deterministic);
    CU_add_test(s, "lock statistics", test_lock_stats);
    CU_add_test(s, "config and run-time errors", test_config_errors);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned f = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return f ? 1 : 0;
}
