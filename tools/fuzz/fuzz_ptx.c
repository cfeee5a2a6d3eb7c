/* fuzz_ptx.c: AFL++ harness for the PTX parser (models/gpu/ptx.c) and the functional executor
 * (ptxexec.c).
 *
 * Parses each file named in argv[1..]; an error must be in the trace domain with code 65 (66 for
 * a missing file) and start with the path. A module that parses must be consistent: every
 * branch targets an instruction of its entry, every reconvergence point is an instruction or
 * the end, every register index is declared. Each entry is then run on 2 blocks of 64 threads
 * with a 4 KiB buffer as every pointer parameter and 1 for every other, at most 20,000 warp
 * instructions a block: a run either finishes or fails with a file:line:col error in the trace
 * domain, never crashes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/gpu/ptxexec.h"
#include "../../sim/error.h"

static void fuzz_check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_ptx: invariant broken: %s\n", what);
        abort();
    }
}

static void fuzz_error(const GError *e, const char *path)
{
    fuzz_check(e != NULL, "failure without an error");
    fuzz_check(e->domain == ARCHSIM_TRACE_ERROR, "error outside the trace domain");
    fuzz_check(e->code == ARCHSIM_EXIT_DATAERR || e->code == ARCHSIM_EXIT_NOINPUT,
               "error code is not 65 or 66");
    fuzz_check(g_str_has_prefix(e->message, path), "message does not start with the path");
}

static void check_entry(const PtxModule *m, const PtxEntry *e)
{
    uint32_t n = e->insts->len;
    fuzz_check(n > 0, "an entry without instructions (a ret is added)");
    for (uint32_t i = 0; i < n; i++) {
        const PtxInst *in = &g_array_index(e->insts, PtxInst, i);
        fuzz_check(in->text < m->texts->len, "opcode text index");
        fuzz_check(in->guard < (int32_t)e->regs->len, "guard register");
        fuzz_check(e->ipdom[i] <= n, "reconvergence point");
        bool writes = !(in->op == PTX_OP_ST || in->op == PTX_OP_RED || in->op == PTX_OP_BRA ||
                        in->op == PTX_OP_RET || in->op == PTX_OP_EXIT || in->op == PTX_OP_BAR ||
                        in->op == PTX_OP_BAR_WARP || in->op == PTX_OP_MEMBAR ||
                        in->op == PTX_OP_WMMA_ST || in->op == PTX_OP_TRAP ||
                        in->op == PTX_OP_CP_ASYNC || in->op == PTX_OP_CP_COMMIT ||
                        in->op == PTX_OP_CP_WAIT || in->op == PTX_OP_HOSTCALL);
        if (writes)
            fuzz_check(in->a[0].kind == PTX_A_REG || in->a[0].kind == PTX_A_VEC,
                       "a destination that is not a register");
        for (uint32_t a = 0; a < in->nargs; a++) {
            const PtxArg *x = &in->a[a];
            if (x->kind == PTX_A_LABEL)
                fuzz_check(x->imm >= 0 && (uint64_t)x->imm < n, "branch target");
            if (x->kind == PTX_A_REG || (x->kind == PTX_A_ADDR && x->reg >= 0))
                fuzz_check(x->reg < (int32_t)e->regs->len, "register index");
            if (x->kind == PTX_A_VEC) {
                fuzz_check(x->n >= 1 && x->n <= PTX_MAX_VEC, "vector length");
                fuzz_check(x->n <= 4 || ptx_op_is_wmma(in->op), "a vector of more than 4 "
                           "outside wmma");
                for (uint32_t j = 0; j < x->n; j++)
                    fuzz_check(x->vec[j] < (int32_t)e->regs->len, "vector register index");
            }
            if (x->kind == PTX_A_SYM || (x->kind == PTX_A_ADDR && x->sym >= 0))
                fuzz_check((x->kind == PTX_A_SYM ? x->reg : x->sym) < (int32_t)m->syms->len,
                           "symbol index");
        }
    }
}

static void run_entry(const PtxModule *m, const PtxEntry *e)
{
    PtxLaunch l = { .m = m, .e = e, .grid = { 2, 1, 1 }, .block = { 64, 1, 1 },
                    .max_warp_insts = 20000 };
    l.buffers = g_ptr_array_new_with_free_func((GDestroyNotify)ptx_buffer_free);
    PtxBuffer *buf = ptx_buffer_new("buf", PTX_D_U8, 4096);
    fuzz_check(buf != NULL, "4 KiB of buffer");
    g_ptr_array_add(l.buffers, buf);
    ptx_place_buffers(l.buffers);
    l.params = g_malloc0(e->param_bytes + 8);
    uint64_t addr = ((PtxBuffer *)g_ptr_array_index(l.buffers, 0))->addr;
    for (guint i = 0; i < e->params->len; i++) {
        const PtxSym *s = &g_array_index(m->syms, PtxSym, g_array_index(e->params, uint32_t, i));
        if (s->size == 8)
            memcpy(l.params + s->offset, &addr, 8);
        else if (s->size >= 1)
            l.params[s->offset] = 1;
    }
    GError *err = NULL;
    PtxRun *r = ptx_run_new(&l, &err);
    if (!r) {
        fuzz_check(err != NULL, "a refused launch without an error");
        g_error_free(err);
    } else {
        SassBlock b = { 0 };
        int got;
        while ((got = ptx_run_next_block(r, &b, &err)) > 0) {
            uint64_t addrs = 0;
            for (uint32_t wi = 0; wi < b.nwarps; wi++) {
                uint64_t used = 0;
                for (uint32_t i = 0; i < b.warps[wi].n; i++) {
                    const SassInst *in = &sass_warp_insts(&b, wi)[i];
                    fuzz_check(in->op < ptx_run_nopcodes(r), "recorded opcode");
                    if (in->width > 0 && in->mask) {
                        fuzz_check(in->addr == used, "addresses not in order");
                        used += (uint64_t)__builtin_popcount(in->mask);
                    }
                }
                addrs += used;
            }
            fuzz_check(addrs == b.naddrs, "addresses do not add up");
        }
        if (got < 0) {
            fuzz_error(err, m->path);
            g_error_free(err);
        }
        sass_block_clear(&b);
        ptx_run_free(r);
    }
    g_ptr_array_free(l.buffers, TRUE);
    g_free(l.params);
}

static void fuzz_one(const char *path)
{
    GError *e = NULL;
    PtxModule *m = ptx_parse_file(path, &e);
    if (!m) {
        fuzz_error(e, path);
        g_error_free(e);
        return;
    }
    for (guint i = 0; i < m->entries->len; i++) {
        const PtxEntry *en = g_ptr_array_index(m->entries, i);
        check_entry(m, en);
        run_entry(m, en);
    }
    ptx_module_free(m);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        fuzz_one(argv[i]);
    return 0;
}
