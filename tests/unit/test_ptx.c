/* test_ptx.c: CUnit tests for the PTX front end: the parser (models/gpu/ptx.c) on every construct
 * nvcc writes and every error with its exact position; functional execution (ptxexec.c) on
 * nested divergence, loops with an early exit and a thread that returns inside the loop (values
 * and the recorded masks: paths reconverge at the immediate post-dominator), each atomic and the
 * order they take effect in, barriers (with and without), shuffles and votes; the launch YAML.
 * Run from the repo root.
 */
#include <CUnit/Basic.h>
#include <fenv.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../models/gpu/ptxlaunch.h"
#include "../../sim/error.h"
#include "tmpdir.h"

static char *tdir;
static uint64_t max_insts;          /* a run's bound on warp instructions per block (0: default) */

#define HEAD ".version 8.0\n.target sm_80\n.address_size 64\n"

static PtxModule *parse(const char *text, GError **e)
{
    return ptx_parse("t.ptx", text, strlen(text), e);
}

/* ---- the parser ---- */

static void test_parse_constructs(void)
{
    const char *src = HEAD
        "// a comment\n/* a block\n comment */\n"
        ".extern .shared .align 16 .b8 dyn[];\n"
        ".global .align 4 .b8 gvar[64];\n"
        "\t// .globl\tk\n"
        ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .f32 k_param_1,\n"
        "\t.param .align 8 .b8 k_param_2[16]\n)\n.maxntid 256, 1, 1\n{\n"
        "\t.reg .pred \t%p<3>;\n\t.reg .b16 %rs<2>;\n\t.reg .f32 \t%f<5>;\n\t.reg .b32 \t%r<9>;\n"
        "\t.reg .b64 \t%rd<6>;\n\t.shared .align 4 .b8 tile[1024];\n"
        "\t.local .align 8 .b8 __local_depot0[32];\n"
        "\tld.param.u64 \t%rd1, [k_param_0];\n"
        "\tld.param.f32 \t%f1, [k_param_1];\n"
        "\tmov.u32 \t%r1, %tid.x;\n\tmov.u32 %r2, %ctaid.y;\n\tmov.u32 %r3, tile;\n"
        "\tmov.f32 \t%f2, 0f3F800000;\n\tmov.b64 %rd2, 0d3FF0000000000000;\n"
        "\tsetp.lt.and.s32 %p1, %r1, 16, %p2;\n"
        "\t@%p1 bra \t$L__BB0_2;\n"
        "\t@!%p1 bra.uni $L__BB0_2;\n"
        "\tld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1+16];\n"
        "\tst.shared.v2.f32 [%r3+-8], {%f1, %f2};\n"
        "\tshfl.sync.down.b32 %r4|%p2, %r1, 1, 31, -1;\n"
        "\tatom.global.cas.b32 %r5, [%rd1], %r1, %r2;\n"
        "\tred.shared.add.u32 [%r3], 1;\n"
        "\tcvt.rzi.s32.f32 %r6, %f1;\n\tcvt.u16.u32 %rs1, %r1;\n"
        "$L__BB0_2:\n"
        "\tbar.sync \t0;\n"
        "\tvote.sync.ballot.b32 %r7, %p1, -1;\n"
        "\tret;\n"
        "}\n";
    GError *e = NULL;
    PtxModule *m = parse(src, &e);
    if (!m)
        fprintf(stderr, "\n%s\n", e->message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    CU_ASSERT_EQUAL(m->version_major, 8);
    CU_ASSERT_EQUAL(m->target, 80);
    PtxEntry *k = ptx_entry(m, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    CU_ASSERT_STRING_EQUAL(k->name, "k");
    CU_ASSERT_EQUAL(k->params->len, 3);
    CU_ASSERT_EQUAL(k->param_bytes, 32);       /* 8, 4, then 16 aligned to 8 */
    CU_ASSERT_EQUAL(k->regs->len, 3 + 2 + 5 + 9 + 6);
    CU_ASSERT_EQUAL(k->insts->len, 20);
    CU_ASSERT_EQUAL(k->shared_bytes, 1024);
    CU_ASSERT_EQUAL(k->local_bytes, 0);            /* the depot is declared, never named */
    const PtxInst *in = (const PtxInst *)(void *)k->insts->data;
    CU_ASSERT_EQUAL(in[0].op, PTX_OP_LD);
    CU_ASSERT_EQUAL(in[0].space, PTX_SPACE_PARAM);
    CU_ASSERT_EQUAL(in[0].line, 24);
    CU_ASSERT_EQUAL(in[0].col, 2);
    CU_ASSERT_EQUAL(in[2].a[1].kind, PTX_A_SREG);
    CU_ASSERT_EQUAL(in[2].a[1].reg, PTX_SR_TID_X);
    CU_ASSERT_EQUAL(in[3].a[1].reg, PTX_SR_CTAID_Y);
    CU_ASSERT_EQUAL(in[4].a[1].kind, PTX_A_SYM);
    CU_ASSERT_EQUAL(in[5].a[1].imm, 0x3F800000);
    CU_ASSERT_EQUAL((uint64_t)in[6].a[1].imm, 0x3FF0000000000000ull);
    CU_ASSERT_EQUAL(in[7].cmp, PTX_CMP_LT);
    CU_ASSERT_EQUAL(in[7].boolop, PTX_BOOL_AND);
    CU_ASSERT_EQUAL(in[7].nargs, 4);
    CU_ASSERT_EQUAL(in[8].guard, 1);                /* %p1: %p0 is register 0 */
    CU_ASSERT_FALSE(in[8].guard_neg);
    CU_ASSERT_TRUE(in[9].guard_neg);
    CU_ASSERT(in[9].mods & PTX_M_UNI);
    CU_ASSERT_EQUAL(in[8].a[0].imm, 17);            /* the label's instruction */
    CU_ASSERT_EQUAL(in[10].vec, 4);
    CU_ASSERT_EQUAL(in[10].a[0].kind, PTX_A_VEC);
    CU_ASSERT_EQUAL(in[10].a[1].imm, 16);
    CU_ASSERT_EQUAL(in[11].a[0].imm, -8);
    CU_ASSERT_EQUAL(in[12].op, PTX_OP_SHFL);
    CU_ASSERT_EQUAL(in[12].sub, PTX_SHFL_DOWN);
    CU_ASSERT_TRUE(in[12].a[1].pair);
    CU_ASSERT_EQUAL(in[12].nargs, 6);
    CU_ASSERT_EQUAL(in[13].sub, PTX_ATOM_CAS);
    CU_ASSERT_EQUAL(in[14].op, PTX_OP_RED);
    CU_ASSERT_EQUAL(in[15].type, PTX_T_S32);
    CU_ASSERT_EQUAL(in[15].type2, PTX_T_F32);
    CU_ASSERT(in[15].mods & PTX_M_RZI);
    CU_ASSERT_EQUAL(in[17].op, PTX_OP_BAR);
    CU_ASSERT_EQUAL(in[18].sub, PTX_VOTE_BALLOT);
    CU_ASSERT_STRING_EQUAL(g_ptr_array_index(m->texts, in[10].text), "ld.global.nc.v4.f32");
    ptx_module_free(m);
}

typedef struct {
    const char *body;       /* inside an entry with %p<3>, %r<5>, %rd<3>, %f<3> declared */
    const char *msg;        /* the whole message */
} BadCase;

static void test_parse_errors(void)
{
    /* whole-file cases */
    static const BadCase files[] = {
        { ".version 5.0\n", "t.ptx:1:1: .version 5.0: archsim reads PTX ISA 6.x to 9.x (nvcc 10 to 13)" },
        { ".version 8.0\n.target sm_80\n.address_size 32\n",
          "t.ptx:3:1: .address_size 32: archsim runs 64-bit PTX only" },
        { HEAD ".func f()\n{\nret;\n}\n", "t.ptx:8:1: no .entry in the file" },
        { HEAD ".func f()\n{\nret;\n}\n.func f()\n{\nret;\n}\n", "t.ptx:8:1: function f is defined twice" },
        { HEAD ".func (.reg .b32 r) f()\n{\nret;\n}\n", "t.ptx:4:8: a .reg parameter (an old "
          "calling convention) is not in archsim's PTX subset: .param ones are" },
        { HEAD ".func f()\n{\nret;\n", "t.ptx:7:1: the file ends inside function f (no closing '}')" },
        { HEAD, "t.ptx:4:1: no .entry in the file" },
        { ".entry k() { ret; }\n", "t.ptx:1:1: an entry before the .version and .target lines" },
        { HEAD ".visible .entry k()\n{\n\tret;\n", "t.ptx:7:1: the file ends inside entry k (no closing '}')" },
        { HEAD "/* open\n", "t.ptx:4:1: a comment that is never closed (no */)" },
        { HEAD ".shared .b8 s[];\n", "t.ptx:4:16: an array without a size (only `.extern .shared` may "
          "have one: the launch's dynamic shared memory)" },
        { HEAD ".global .u32 g[2] = {1, 2, 3};\n", "t.ptx:4:28: more values than the 2 elements of the array" },
        { HEAD ".global .u32 g[2] = {{1}, {2}};\n", "t.ptx:4:22: nested { } initialisers (arrays of "
          "arrays) are not in archsim's PTX subset" },
        { HEAD ".global .u64 g[2] = {g, 0};\n", "t.ptx:4:22: an initialiser that is not a number (a "
          "variable's address, generic(...)) is not in archsim's PTX subset" },
        { HEAD ".global .u32 g[2] = {0d3FF0000000000000};\n", "t.ptx:4:22: an initial value of the "
          "wrong type for a .u32 element (ptxas: 0f or 0d for .f32, .f64 and the bit types, "
          "integers for the integer types; none for 16-bit floats)" },
        { HEAD ".global .f32 g[2] = {1, 2};\n", "t.ptx:4:22: an initial value of the wrong type for a "
          ".f32 element (ptxas: 0f or 0d for .f32, .f64 and the bit types, integers for the integer "
          "types; none for 16-bit floats)" },
        { HEAD ".global .u32 g = {1};\n", "t.ptx:4:18: a scalar's initialiser is a value, not a list "
          "in braces" },
        { HEAD ".func f()\n{\nbra L;\nret;\n}\n.visible .entry k()\n{\ncall f;\nret;\n}\n",
          "t.ptx:6:5: label L is not defined in k" },
        { HEAD ".global .u32 g[2] = 7;\n", "t.ptx:4:22: an array's initialiser is a list in braces: "
          "{v, v, ...}" },
        { HEAD ".shared .u32 s[2] = {1, 2};\n", "t.ptx:4:19: only .global and .const variables take "
          "an initialiser" },
        { HEAD ".texref t;\n", "t.ptx:4:1: '.texref' is not in archsim's PTX subset at module level "
          "(expected .version, .target, .address_size, .entry or a .shared/.global/.const variable)" },
        { HEAD ".visible .entry k(.param .u32 a, .param .u32 a)\n{\nret;\n}\n",
          "t.ptx:4:46: 'a' is declared twice" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        GError *e = NULL;
        PtxModule *m = parse(files[i].body, &e);
        CU_ASSERT_PTR_NULL(m);
        if (!e) {
            fprintf(stderr, "\nno error for case %zu\n", i);
            ptx_module_free(m);
            continue;
        }
        CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_DATAERR);
        if (strcmp(e->message, files[i].msg))
            fprintf(stderr, "\ncase %zu:\n got: %s\nwant: %s\n", i, e->message, files[i].msg);
        CU_ASSERT_STRING_EQUAL(e->message, files[i].msg);
        g_error_free(e);
    }
    /* instruction cases: the body starts on line 6, column 1 */
    static const BadCase insts[] = {
        { "tex.2d.v4.f32.f32 {%f1, %f2, %f0, %f0}, [t, {%f1, %f2}];",
          "t.ptx:6:1: instruction 'tex.2d.v4.f32.f32' is not in archsim's PTX subset (docs/gpu-ptx.md "
          "lists it and says how to add one)" },
        { "add.u32 %r1, %r2, %r9;", "t.ptx:6:19: register %r9 is not declared (a .reg line declares it)" },
        { "add.u32 %r1, %r2;", "t.ptx:6:1: 'add.u32' takes 3 operands, got 2" },
        /* ptxas refuses these; they were read as 0 */
        { "add.u32 %r1, {%r2, %r2}, 1;",
          "t.ptx:6:1: 'add.u32': operand 2 is a vector {...}, which only ld, st and mov take" },
        { "L1: add.u32 %r1, L1, 1;", "t.ptx:6:5: 'add.u32': operand 2 is a label, not a value" },
        { "setp.lt.s32 %p1|%p2, %r1;",
          "t.ptx:6:1: 'setp.lt.s32' compares two values: setp.CMP.TYPE p[|q], a, b[, c]" },
        { "add.cc.f32 %f1, %f2, %f2;", "t.ptx:6:1: 'add.cc.f32': carry arithmetic is add.cc, addc, "
          "sub.cc, subc, mad.lo.cc, mad.hi.cc and madc on 32- and 64-bit integers" },
        { "madc.cc.u32 %r1, %r2, %r3, %r4;", "t.ptx:6:1: 'madc.cc.u32': carry arithmetic is add.cc, "
          "addc, sub.cc, subc, mad.lo.cc, mad.hi.cc and madc on 32- and 64-bit integers" },
        { "call g;", "t.ptx:6:6: function g is not declared in this file" },
        { "div.rn.bf16 %rs1, %rs1, %rs1;", "t.ptx:6:1: 'div.rn.bf16': .bf16/.bf16x2 is in archsim's "
          "PTX subset on fma, add, sub, mul, min, max, neg, abs, set, setp and cvt to or from f32 "
          "(move and load them as .b16/.b32)" },
        { "ld.global.bf16 %rs1, [%rd1];", "t.ptx:6:1: 'ld.global.bf16': .bf16/.bf16x2 is in "
          "archsim's PTX subset on fma, add, sub, mul, min, max, neg, abs, set, setp and cvt to or "
          "from f32 (move and load them as .b16/.b32)" },
        { "mov.f16x2 %r1, %r2;", "t.ptx:6:1: 'mov.f16x2': move and load 16-bit floats and pairs of "
          "them as .b16 or .b32" },
        { "mov.f16 %rs1, %rs2;", "t.ptx:6:1: 'mov.f16': move and load 16-bit floats and pairs of "
          "them as .b16 or .b32" },
        { "fma.rn.sat.bf16x2 %r1, %r2, %r3, %r4;", "t.ptx:6:1: 'fma.rn.sat.bf16x2': bfloat16 "
          "arithmetic has no .sat or .ftz" },
        { "add.bf16x2 %r1, %r2, %r3;", "t.ptx:6:1: 'add.bf16x2' needs .target sm_90 or higher (sm_80 "
          "has fma, min, max, neg, abs and cvt on bfloat16)" },
        { "fma.rn.sat.relu.f16 %rs1, %rs1, %rs1, %rs1;", "t.ptx:6:1: 'fma.rn.sat.relu.f16': .relu and "
          ".sat do not go together" },
        { "set.eq.u16.f32 %rs1, %f1, %f2;", "t.ptx:6:1: 'set.eq.u16.f32': set takes "
          "set.CMP.DTYPE.STYPE, DTYPE .u32, .s32, .f32 or .f16 (from .f16 or .bf16: .u32, .s32, "
          ".u16, .s16 or the same; from .f16x2 or .bf16x2: .u32, .s32 or the same)" },
        { "fma.f16x2 %r1, %r2, %r3, %r4;", "t.ptx:6:1: 'fma.f16x2' needs its rounding, .rn" },
        { "cvt.rn.sat.f16x2.f32 %r1, %f1, %f2;", "t.ptx:6:1: 'cvt.rn.sat.f16x2.f32': a conversion to "
          "two halves or a bfloat16 takes only its rounding (.rn, .rz, .rm, .rp)" },
        { "add.f16x2 %r1, %r2, 0x3c003c00;", "t.ptx:6:1: 'add.f16x2': operand 3: a 16-bit float or "
          "pair comes in a register, not as a constant" },
        { "fma.rn.relu.f32 %f1, %f1, %f1, %f1;", "t.ptx:6:1: 'fma.rn.relu.f32': .relu is on 16-bit "
          "float fma only" },
        { "add.u32 %r1, {%r2, 0}, 1;", "t.ptx:6:1: 'add.u32': operand 2 is a vector {...}, which "
          "only ld, st and mov take" },
        { "mov.b32 {%r1, 0}, %rd1;", "t.ptx:6:1: 'mov.b32': its destination must be a register" },
        { "mov.b64 %rd1, {%r1, 5};", "t.ptx:6:21: a vector element is a register, '_' or 0" },
        { "add.u32 %rd1, %r1, %r2;", "t.ptx:6:1: 'add.u32': operand 1, %rd1, is a .b64 register; "
          "the instruction takes .u32 values" },
        { "add.u32 %r1, %f1, %r2;", "t.ptx:6:1: 'add.u32': operand 2, %f1, is a .f32 register; the "
          "instruction takes .u32 values" },
        { "add.u32 %r1, %p1, 1;", "t.ptx:6:1: 'add.u32': operand 2, %p1, is a .pred register; the "
          "instruction takes .u32 values" },
        { "redux.sync.cas.b32 %r1, %r2, -1;", "t.ptx:6:1: 'redux.sync.cas.b32': redux.sync takes "
          ".add, .min, .max with .u32 or .s32, and .and, .or, .xor with .b32" },
        { "redux.sync.add.b32 %r1, %r2, -1;", "t.ptx:6:1: 'redux.sync.add.b32': redux.sync takes "
          ".add, .min, .max with .u32 or .s32, and .and, .or, .xor with .b32" },
        { "bfind.b32 %r1, %r2;", "t.ptx:6:1: 'bfind.b32': bfind takes .u32, .s32, .u64 or .s64" },
        { "and.cc.b32 %r1, %r2, %r3;", "t.ptx:6:1: 'and.cc.b32': carry arithmetic is add.cc, addc, "
          "sub.cc, subc, mad.lo.cc, mad.hi.cc and madc on 32- and 64-bit integers" },
        { "div.rn.f16x2 %r1, %r2, %r3;", "t.ptx:6:1: 'div.rn.f16x2': .f16x2 is in archsim's PTX "
          "subset on add, sub, mul, fma, min, max, neg, abs, setp, set, mov, ld, st and "
          "cvt.f16x2.f32" },
        { "set.lt.f16x2.f32 %r1, %f1, %f2;", "t.ptx:6:1: 'set.lt.f16x2.f32': set takes "
          "set.CMP.DTYPE.STYPE, DTYPE .u32, .s32, .f32 or .f16 (from .f16 or .bf16: .u32, .s32, "
          ".u16, .s16 or the same; from .f16x2 or .bf16x2: .u32, .s32 or the same)" },
        { "@%p1 call g;", "t.ptx:6:6: a call under a guard (@p call) is not in archsim's PTX subset "
          "(branch around it)" },
        { "call %rd1, (x);", "t.ptx:6:6: an indirect call (through a register) is not in archsim's "
          "PTX subset" },
        { "call.tail g;", "t.ptx:6:5: call.tail is not in archsim's PTX subset (call and call.uni are)" },
        { "call g, (%r1);", "t.ptx:6:10: '%r1': a call's arguments are .param variables declared "
          "before it (immediates and registers are not in archsim's PTX subset)" },
        { "{ .param .b32 a; .param .b32 a; }", "t.ptx:6:18: 'a' is declared twice" },
        { "{ .param .b64 a; mov.u64 %rd1, a; }", "t.ptx:6:18: 'mov.u64': a call's parameter is read "
          "with ld.param and written with st.param only" },
        { "mul.lo.zz.u32 %r1, %r2, %r3;", "t.ptx:6:7: 'mul.lo.zz.u32': modifier .zz is not in archsim's PTX subset" },
        { "add.u32 %r1, %r2, %r3", "t.ptx:7:1: expected the ';' that ends the instruction (';'), got '}'" },
        { "bra NOWHERE;", "t.ptx:6:5: label NOWHERE is not defined in k" },
        { "@%r1 bra L;\nL: ret;", "t.ptx:6:1: the guard %r1 is not a .pred register" },
        { "mov.f32 %f1, 1.5;", "t.ptx:6:14: a decimal floating-point literal: write it as 0f (f32) or 0d "
          "(f64) and its hex bits, as nvcc does" },
        { "mov.f32 %f1, 0f3F80;", "t.ptx:6:14: a float literal needs exactly 8 hex digits after 0f" },
        { "setp.u32 %p1, %r1, %r2;", "t.ptx:6:1: setp needs a comparison (.lt, .eq, ...)" },
        { "cvt.u32 %r1, %f1;", "t.ptx:6:1: cvt needs two types (cvt.DEST.SOURCE)" },
        { "ld.global.u32 %r1, %rd1;", "t.ptx:6:1: 'ld.global.u32' needs an address in brackets ([%rd1], [name+8])" },
        { "ld.global.v4.u32 {%r1, %r2}, [%rd1];", "t.ptx:6:1: 'ld.global.v4.u32': the vector has 2 elements" },
        { "atom.global.u32 %r1, [%rd1], 1;", "t.ptx:6:1: 'atom.global.u32' needs its operation (.add, .min, "
          ".max, .cas, .exch, ...)" },
        { "L: ret;\nL: ret;", "t.ptx:7:1: label L is defined twice" },
        { "ld.global.u32 %r1, [nosuch];", "t.ptx:6:21: 'nosuch' is not a declared variable or parameter" },
        { "mov.u32 %r1, 0x11112222333344445;", "t.ptx:6:14: a hex number of more than 16 digits" },
        { ".maxnreg 32;", "t.ptx:6:1: directive .maxnreg is not in archsim's PTX subset inside an entry" },
        { "add.u32 %r1, %r2, 12ab;", "t.ptx:6:19: '12ab' is not a number" },
        { "mov.u32 %tid.x, 5;", "t.ptx:6:1: 'mov.u32': its destination must be a register" },
        { "min.rz.f32 %f1, %f1, %f2;", "t.ptx:6:1: 'min.rz.f32': rounding toward zero or an "
          "infinity (.rz, .rm, .rp) is in archsim's PTX subset only on f32 and f64 add, sub, mul, "
          "fma, mad, div, rcp, sqrt and cvt to them, and cvt from them to f16 and bf16" },
        { "add.rz.s32 %r1, %r1, %r2;", "t.ptx:6:1: 'add.rz.s32': rounding toward zero or an "
          "infinity (.rz, .rm, .rp) is in archsim's PTX subset only on f32 and f64 add, sub, mul, "
          "fma, mad, div, rcp, sqrt and cvt to them, and cvt from them to f16 and bf16" },
        { "add.rz.rm.f32 %f1, %f1, %f2;", "t.ptx:6:1: 'add.rz.rm.f32': rounding toward zero or an "
          "infinity (.rz, .rm, .rp) is in archsim's PTX subset only on f32 and f64 add, sub, mul, "
          "fma, mad, div, rcp, sqrt and cvt to them, and cvt from them to f16 and bf16" },
        { "copysign.f16 %f1, %f1, %f2;", "t.ptx:6:1: 'copysign.f16': the type must be .f32 or .f64" },
        { "mul.lo.sat.s32 %r1, %r1, %r2;", "t.ptx:6:1: 'mul.lo.sat.s32': .sat on this integer "
          "instruction is not in archsim's PTX subset (add.sat.s32, sub.sat.s32, mad.hi.sat.s32, "
          "cvt.sat and vabsdiff's are)" },
        { "st.param.u32 [%rd1], %r1;", "t.ptx:6:1: 'st.param.u32': writing the parameter space "
          "is not allowed" },
        { "setp.lt.a.s32 %p1, %r1, %r2, %p2;", "t.ptx:6:8: 'setp.lt.a.s32': modifier .a is not "
          "in archsim's PTX subset" },
        { "shf.l.b32 %r1, %r2, %r3, %r4;", "t.ptx:6:1: 'shf.l.b32' needs a direction and a mode: "
          "shf.l or shf.r, then .wrap or .clamp" },
        { "shf.l.wrap.b64 %rd1, %rd2, %rd2, %r4;", "t.ptx:6:1: 'shf.l.wrap.b64': the type must be .b32" },
        { "prmt.b32.f4e.b4e %r1, %r2, %r3, %r4;", "t.ptx:6:13: 'prmt.b32.f4e.b4e': modifier .b4e "
          "is not in archsim's PTX subset" },
        { "prmt.u32 %r1, %r2, %r3, %r4;", "t.ptx:6:1: 'prmt.u32': the type must be .b32" },
        { "bfi.u32 %r1, %r2, %r3, 0, 8;", "t.ptx:6:1: 'bfi.u32': the type must be .b32 or .b64" },
        { "bfi.b32 %r1, %r2, %r3, 0;", "t.ptx:6:1: 'bfi.b32' takes 5 operands, got 4" },
        { "lop3.b32 %r1, %r2, %r3, %r4, %r1;", "t.ptx:6:1: 'lop3.b32': the lookup table (operand 5) "
          "must be a constant from 0 to 255" },
        { "lop3.b32 %r1, %r2, %r3, %r4, 256;", "t.ptx:6:1: 'lop3.b32': the lookup table (operand 5) "
          "must be a constant from 0 to 255" },
        { "lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0x80, %p2;", "t.ptx:6:5: 'lop3.or.b32': modifier .or "
          "is not in archsim's PTX subset" },
#define R8 "{%r1, %r1, %r1, %r1, %r1, %r1, %r1, %r1}"
        { "wmma.load.a.aligned.row.m16n16k16.f16 " R8 ", [%rd1];",
          "t.ptx:6:1: 'wmma.load.a.aligned.row.m16n16k16.f16': wmma needs .sync and .aligned" },
        { "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%r1, %r1, %r1, %r1}, [%rd1];",
          "t.ptx:6:1: 'wmma.load.a.sync.aligned.row.m16n16k16.f16': operand 1 is the a fragment: a "
          "vector of 8 registers" },
        { "wmma.load.c.sync.aligned.row.m16n16k16.f32 {%rd1, %rd1, %rd1, %rd1, %rd1, %rd1, %rd1, "
          "%rd1}, [%rd1];", "t.ptx:6:1: 'wmma.load.c.sync.aligned.row.m16n16k16.f32': operand 1: "
          "%rd1 is a .b64 register; the fragment's are .b32 or .f32" },
        { "wmma.load.a.sync.aligned.row.m16n16k16.f16 {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1}, "
          "[%rd1];", "t.ptx:6:1: 'wmma.load.a.sync.aligned.row.m16n16k16.f16': operand 1: %f1 is a "
          ".f32 register; the fragment's are .b32 or .f16x2" },
        { "wmma.store.d.sync.aligned.row.m16n16k16.f32 [%rd1], {%f1, %f1, %f1, _, %f1, %f1, %f1, "
          "%f1};", "t.ptx:6:1: 'wmma.store.d.sync.aligned.row.m16n16k16.f32': operand 2: every "
          "element of a fragment read is a register" },
        { "wmma.load.a.sync.aligned.row.m16n16k16.global.shared.f16 " R8 ", [%rd1];",
          "t.ptx:6:46: 'wmma.load.a.sync.aligned.row.m16n16k16.global.shared.f16': two state "
          "spaces" },
        { "wmma.load.a.sync.aligned.row.m16n16k16.m16n16k16.f16 " R8 ", [%rd1];",
          "t.ptx:6:39: 'wmma.load.a.sync.aligned.row.m16n16k16.m16n16k16.f16': two shapes" },
        { "wmma.load.a.sync.aligned.row.m16n8k16.f16 " R8 ", [%rd1];",
          "t.ptx:6:29: 'wmma.load.a.sync.aligned.row.m16n8k16.f16': .m16n8k16 is not in archsim's "
          "PTX subset (wmma takes the shapes m16n16k16, m32n8k16 and m8n32k16 on .f16 and .bf16 "
          "inputs)" },
        { "wmma.load.a.sync.aligned.row.col.m16n16k16.f16 " R8 ", [%rd1];",
          "t.ptx:6:29: 'wmma.load.a.sync.aligned.row.col.m16n16k16.f16': too many layouts (.row, "
          ".col)" },
        { "wmma.load.a.sync.aligned.row.m16n16k16.s8 " R8 ", [%rd1];",
          "t.ptx:6:1: 'wmma.load.a.sync.aligned.row.m16n16k16.s8': the type of A and B is .f16 or "
          ".bf16" },
        { "wmma.load.d.sync.aligned.row.m16n16k16.f32 " R8 ", [%rd1];",
          "t.ptx:6:10: 'wmma.load.d.sync.aligned.row.m16n16k16.f32': wmma.load names its matrix: .a, "
          ".b or .c" },
        { "wmma.store.c.sync.aligned.row.m16n16k16.f32 [%rd1], " R8 ";",
          "t.ptx:6:11: 'wmma.store.c.sync.aligned.row.m16n16k16.f32': wmma.store stores .d" },
        { "wmma.load.a.sync.aligned.row.m16n16k16.f16 " R8 ", [%rd1], %rd1;",
          "t.ptx:6:1: 'wmma.load.a.sync.aligned.row.m16n16k16.f16': the stride (operand 3) is a "
          "32-bit integer register or a constant" },
        { "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32.satfinite {%f1, %f1, %f1, %f1, %f1, "
          "%f1, %f1, %f1}, " R8 ", " R8 ", {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};",
          "t.ptx:6:48: 'wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32.satfinite': .satfinite is "
          "not in archsim's PTX subset" },
        { "wmma.mma.sync.aligned.row.col.m16n16k16.f32 {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1}, "
          R8 ", " R8 ", {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};",
          "t.ptx:6:1: 'wmma.mma.sync.aligned.row.col.m16n16k16.f32': wmma.mma takes .DTYPE.CTYPE "
          "(each .f16 or .f32) on .f16 inputs, or .f32.bf16.bf16.f32" },
        { "wmma.mma.sync.aligned.row.m16n16k16.f32.f32 {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1}, "
          R8 ", " R8 ", {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};",
          "t.ptx:6:1: 'wmma.mma.sync.aligned.row.m16n16k16.f32.f32' needs the layouts of A and B "
          "(.row or .col, twice)" },
        { "wmma.mma.sync.aligned.row.col.m16n16k16.f16.f32 {%r1, %r1, %r1, %r1}, " R8 ", " R8
          ", {%f1, %f1, %f1, %f1};", "t.ptx:6:1: 'wmma.mma.sync.aligned.row.col.m16n16k16.f16.f32': "
          "operand 4 is the c fragment: a vector of 8 registers" },
        { "ld.global.v4.u32 {%r1, %r1, %r1, %r1, %r1}, [%rd1];", "t.ptx:6:1: 'ld.global.v4.u32': "
          "operand 1: a vector of more than 4 elements (only wmma's fragments have more)" },
#undef R8
        { "cp.async.ca.shared.global [%rd1], [%rd2], 12;", "t.ptx:6:1: 'cp.async.ca.shared.global': "
          "cp-size is 4, 8 or 16 (.cg: 16)" },
        { "cp.async.cg.shared.global [%rd1], [%rd2], 8;", "t.ptx:6:1: 'cp.async.cg.shared.global': "
          "cp-size is 4, 8 or 16 (.cg: 16)" },
        { "cp.async.ca.shared.global [%rd1], [%rd2], 8, 9;", "t.ptx:6:1: 'cp.async.ca.shared.global': "
          "operand 4 is the bytes to read (a constant up to cp-size or a 32-bit register) or a "
          "predicate (ignore-src)" },
        { "cp.async.ca.shared.global [%rd1], %rd2, 8;", "t.ptx:6:1: 'cp.async.ca.shared.global': the "
          "destination and the source are addresses in brackets" },
        { "cp.async.ca.global.shared [%rd1], [%rd2], 8;", "t.ptx:6:12: 'cp.async.ca.global.shared': "
          "modifier .global is not in archsim's PTX subset" },
        { "cp.async.ca.shared.global.L2::cache_hint [%rd1], [%rd2], 16, %r1;", "t.ptx:6:1: "
          "'cp.async.ca.shared.global.L2::cache_hint': the cache policy is a 64-bit register" },
        { "cp.async.wait_group %r1;", "t.ptx:6:1: 'cp.async.wait_group' takes one operand: the "
          "number of groups that may stay pending, a constant (cp.async.wait_group 0)" },
        { "cp.async.commit_group 1;", "t.ptx:6:1: 'cp.async.commit_group' takes no operands" },
        { "cp.async.mbarrier.arrive.b64 [%rd1];", "t.ptx:6:9: 'cp.async.mbarrier.arrive.b64': "
          ".mbarrier is not in archsim's PTX subset (cp.async.ca, .cg, .commit_group, .wait_group "
          "and .wait_all are)" },
        { "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 16;",
          "t.ptx:6:3: 'cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32': cp.async is in "
          "archsim's PTX subset; .reduce is not" },
        { "trap %r1;", "t.ptx:6:1: 'trap' takes 0 operands, got 1" },
        { "match.any.sync.b32 %r1|%p1, %r2, 0xffffffff;", "t.ptx:6:1: 'match.any.sync.b32': only "
          "match.all has a predicate (d|p)" },
        { "match.any.sync.u32 %r1, %r2, 0xffffffff;", "t.ptx:6:1: 'match.any.sync.u32': match "
          "takes match.any.sync or match.all.sync, then .b32 or .b64" },
        { "match.any.b32 %r1, %r2, 0xffffffff;", "t.ptx:6:1: 'match.any.b32': match takes "
          "match.any.sync or match.all.sync, then .b32 or .b64" },
        { "match.any.sync.b32 %r1, %r2, %r3, %r4;", "t.ptx:6:1: 'match.any.sync.b32' takes d, a, "
          "membermask" },
        { "match.any.sync.b32 %r1, %rd1, %r3;", "t.ptx:6:1: 'match.any.sync.b32': d and membermask "
          "are 32-bit registers (the mask or a constant), a one of the type's size" },
        { "nanosleep.u32 %rd1;", "t.ptx:6:1: 'nanosleep.u32': the time is a 32-bit integer register "
          "or a constant" },
        /* a constant of the other kind, as ptxas refuses it (it was read as the other's bits) */
        { "add.f32 %f1, %f2, 1;", "t.ptx:6:1: 'add.f32': operand 3: an integer constant where the "
          "instruction takes .f32 values (write it as 0f (f32) or 0d (f64) and its hex bits)" },
        { "add.s32 %r1, %r2, 0f3F800000;", "t.ptx:6:1: 'add.s32': operand 3: a float constant where "
          "the instruction takes .s32 values (write it as an integer, or use a .b type)" },
        { "setp.eq.f32 %p1, %f2, 0;", "t.ptx:6:1: 'setp.eq.f32': operand 3: an integer constant "
          "where the instruction takes .f32 values (write it as 0f (f32) or 0d (f64) and its hex "
          "bits)" },
        { "mov.u32 %r1, 0f3F800000;", "t.ptx:6:1: 'mov.u32': operand 2: a float constant where the "
          "instruction takes .u32 values (write it as an integer, or use a .b type)" },
        { "st.global.f32 [%rd1], 1;", "t.ptx:6:1: 'st.global.f32': operand 2: an integer constant "
          "where the instruction takes .f32 values (write it as 0f (f32) or 0d (f64) and its hex "
          "bits)" },
        { "cvt.rn.f32.s32 %f1, 0f3F800000;", "t.ptx:6:1: 'cvt.rn.f32.s32': operand 2: a float "
          "constant where the instruction takes .s32 values (write it as an integer, or use a .b "
          "type)" },
        { "selp.f32 %f1, 1, %f2, %p1;", "t.ptx:6:1: 'selp.f32': operand 2: an integer constant "
          "where the instruction takes .f32 values (write it as 0f (f32) or 0d (f64) and its hex "
          "bits)" },
        { "mov.b32 %r1, 0d3FF0000000000000;", "t.ptx:6:1: 'mov.b32': operand 2: a float constant "
          "where the instruction takes .b32 values (an integer, 0f for .b32, 0d for .b64)" },
        { "mov.b16 %rs1, 0f3F800000;", "t.ptx:6:1: 'mov.b16': operand 2: a float constant where "
          "the instruction takes .b16 values (an integer, 0f for .b32, 0d for .b64)" },
        { "selp.u32 %r1, %r2, %r3, 0f3F800000;", "t.ptx:6:1: 'selp.u32': operand 4: a float "
          "constant where the instruction takes .pred values (write it as an integer, or use a .b "
          "type)" },
        { "setp.eq.and.f32 %p1, %f1, %f2, 0f3F800000;", "t.ptx:6:1: 'setp.eq.and.f32': operand 4: "
          "a float constant where the instruction takes .pred values (write it as an integer, or "
          "use a .b type)" },
        { "cvt.f32.f16 %f1, 0f3F800000;", "t.ptx:6:1: 'cvt.f32.f16': operand 2: a constant as a "
          ".f16 source (ptxas takes none: move it into a register)" },
        { "vabsdiff4.u32.u32.u32 %r1, %r2, %r3, 0;", "t.ptx:6:1: 'vabsdiff4.u32.u32.u32': operand "
          "4: vabsdiff's sources are registers (ptxas takes no constant there)" },
        { "atom.global.add.f16 %rs1, [%rd1], %rs2;", "t.ptx:6:1: 'atom.global.add.f16': an atomic add "
          "of 16-bit floats is .noftz (atom.add.noftz.f16)" },
        { "atom.global.add.noftz.f32 %f1, [%rd1], %f2;", "t.ptx:6:1: 'atom.global.add.noftz.f32': "
          ".noftz is on atomic adds of 16-bit floats only" },
        { "vabsdiff4.u32.u32 %r1, %r2, %r3, %r4;", "t.ptx:6:1: 'vabsdiff4.u32.u32': vabsdiff4 "
          "takes .DTYPE.ATYPE.BTYPE, each .u32 or .s32" },
        { "vabsdiff2.u32.u32.f32 %r1, %r2, %r3, %r4;", "t.ptx:6:1: 'vabsdiff2.u32.u32.f32': "
          "vabsdiff2 takes .DTYPE.ATYPE.BTYPE, each .u32 or .s32" },
        { "vabsdiff4.u32.u32.u32.sat.add %r1, %r2, %r3, %r4;", "t.ptx:6:1: "
          "'vabsdiff4.u32.u32.u32.sat.add': .sat cannot go with .add (the PTX ISA)" },
        { "vabsdiff4.u32.u32.u32 %r1, %r2, %r3;", "t.ptx:6:1: 'vabsdiff4.u32.u32.u32' takes 4 "
          "operands, got 3" },
        { "vabsdiff4.u32.u32.u32.u32 %r1, %r2, %r3, %r4;", "t.ptx:6:22: "
          "'vabsdiff4.u32.u32.u32.u32': more than three types" },
        { "dp2a.lo.hi.s32.s32 %r1, %r2, %r3, %r4;", "t.ptx:6:1: 'dp2a.lo.hi.s32.s32': dp2a takes "
          "dp2a.lo or .hi, then .ATYPE.BTYPE, each .u32 or .s32" },
        { "dp2a.lo.s32.s32 %rd1, %r2, %r3, %r4;", "t.ptx:6:1: 'dp2a.lo.s32.s32': operand 1, %rd1, "
          "is a .b64 register; the instruction takes .s32 values" },
        { "atom.global.min.f16 %rs1, [%rd1], %rs2;", "t.ptx:6:1: 'atom.global.min.f16': an atomic "
          "on 16-bit floats is an add (atom.add.noftz) in archsim's PTX subset" },
        { "dp2a.s32.s32 %r1, %r2, %r3, %r4;", "t.ptx:6:1: 'dp2a.s32.s32': dp2a takes dp2a.lo or "
          ".hi, then .ATYPE.BTYPE, each .u32 or .s32" },
        { "atom.global.add.noftz.bf16 %rs1, [%rd1], %rs2;", "t.ptx:6:1: 'atom.global.add.noftz.bf16' "
          "needs .target sm_90 or higher" },
        { "mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32 {%f1, %f1, %f1, %f1}, {%r1, %r1, "
          "%r1, %r1}, {%r1, %r1}, {%f1, %f1, %f1, %f1};", "t.ptx:6:26: 'mma.sync.aligned.m16n8k16"
          ".col.row.f32.f16.f16.f32': .col is not in archsim's PTX subset (mma.sync.aligned.m16n8k16 "
          "or .m16n8k8, .row.col, on .f16 or .bf16 inputs)" },
        { "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f1, %f1, %f1}, {%r1, %r1}, "
          "{%r1, %r1}, {%f1, %f1, %f1, %f1};", "t.ptx:6:1: 'mma.sync.aligned.m16n8k16.row.col.f32."
          "f16.f16.f32': operand 2 (a) is a vector of 4 registers" },
        { "mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f32 {%r1, %r1}, {%r1, %r1, %r1, %r1}, "
          "{%r1, %r1}, {%f1, %f1, %f1, %f1};", "t.ptx:6:1: 'mma.sync.aligned.m16n8k16.row.col.f16."
          "bf16.bf16.f32': mma takes .f16.f16.f16.f16, .f32.f16.f16.f32 or .f32.bf16.bf16.f32" },
        { "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f16 {%f1, %f1, %f1, %f1}, {%r1, %r1, %r1, "
          "%r1}, {%r1, %r1}, {%r1, %r1};", "t.ptx:6:1: 'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16"
          ".f16': mma takes .f16.f16.f16.f16, .f32.f16.f16.f32 or .f32.bf16.bf16.f32" },
        { "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%f1, %f1}, {%r1, %r1, %r1, %r1}, "
          "{%r1, %r1}, {%r1, %r1};", "t.ptx:6:1: 'mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"
          "': operand 1: %f1 is a .f32 register; these are .b32 or .f16x2" },
        { "mma.sync.aligned.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r1, %r1}, {%r1, %r1, %r1, "
          "%r1}, {%r1, %r1}, {%r1, %r1};", "t.ptx:6:17: 'mma.sync.aligned.aligned.m16n8k16.row.col."
          "f16.f16.f16.f16': .aligned twice (mma.sync.aligned.m16n8k16 or .m16n8k8, .row.col, on "
          ".f16 or .bf16 inputs)" },
        { "cp.async.ca.shared.global.L2::128B.L2::64B [%rd1], [%rd2], 16;", "t.ptx:6:35: "
          "'cp.async.ca.shared.global.L2::128B.L2::64B': a second .L2::64B (one prefetch size and "
          "one cache hint at most)" },
        { "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1}, {%r1}, {%r1}, {%f1};",
          "t.ptx:6:17: 'mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32': .m8n8k4 is not in "
          "archsim's PTX subset (mma.sync.aligned.m16n8k16 or .m16n8k8, .row.col, on .f16 or .bf16 "
          "inputs)" },
        { "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%rd1, %f1, %f1, %f1}, {%r1, %r1}, "
          "{%r1}, {%f1, %f1, %f1, %f1};", "t.ptx:6:1: 'mma.sync.aligned.m16n8k8.row.col.f32.f16.f16"
          ".f32': operand 1: %rd1 is a .b64 register; these are .b32 or .f32" },
        { "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r1}, [%r1];", "t.ptx:6:1: "
          "'ldmatrix.sync.aligned.m8n8.x4.shared.b16' takes a vector of 4 registers ({...}) and an "
          "address in brackets" },
        { "ldmatrix.sync.aligned.m8n8.x2.shared.b32 {%r1, %r1}, [%r1];", "t.ptx:6:1: "
          "'ldmatrix.sync.aligned.m8n8.x2.shared.b32': ldmatrix is ldmatrix.sync.aligned.m8n8.x1/.x2"
          "/.x4{.trans}{.shared}.b16" },
        { "ldmatrix.sync.aligned.m8n8.x1.b16 %r1, [%r1];", "t.ptx:6:1: 'ldmatrix.sync.aligned.m8n8"
          ".x1.b16' takes a vector of 1 register ({...}) and an address in brackets" },
        { "ldmatrix.sync.aligned.m8n8.x1.b16 {%rd1}, [%r1];", "t.ptx:6:1: 'ldmatrix.sync.aligned."
          "m8n8.x1.b16': its destinations are .b32 registers" },
        { "ldmatrix.sync.aligned.m8n8.x2.trans.trans.b16 {%r1, %r1}, [%r1];", "t.ptx:6:36: "
          "'ldmatrix.sync.aligned.m8n8.x2.trans.trans.b16': .trans twice (ldmatrix.sync.aligned.m8n8"
          ".x1/.x2/.x4{.trans}{.shared}.b16)" },
        { "wmma.mma.sync.aligned.row.col.m16n16k16 {%f1}, {%r1}, {%r1}, {%f1};", "t.ptx:6:1: "
          "'wmma.mma.sync.aligned.row.col.m16n16k16': wmma.mma takes .DTYPE.CTYPE (each .f16 or "
          ".f32) on .f16 inputs, or .f32.bf16.bf16.f32" },
        { "ldmatrix.aligned.m8n8.x1.b16 %r1, [%r1];", "t.ptx:6:1: 'ldmatrix.aligned.m8n8.x1.b16' "
          "needs .sync and .aligned" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(insts); i++) {
        char *src = g_strdup_printf(HEAD ".visible .entry k()\n{\n%s\n}\n", insts[i].body);
        /* declarations first on the same line as the brace keep the body on line 6 */
        char *full = g_strdup_printf(HEAD ".visible .entry k() { .reg .pred %%p<3>; .reg .b32 "
                                     "%%r<5>; .reg .b64 %%rd<3>; .reg .f32 %%f<3>; .reg .b16 "
                                     "%%rs<3>;\n\n%s\n}\n", insts[i].body);
        (void)src;
        GError *e = NULL;
        PtxModule *m = parse(full, &e);
        CU_ASSERT_PTR_NULL(m);
        if (!e) {
            fprintf(stderr, "\nno error for instruction case %zu\n", i);
            ptx_module_free(m);
        } else {
            if (strcmp(e->message, insts[i].msg))
                fprintf(stderr, "\ninstruction case %zu:\n got: %s\nwant: %s\n", i, e->message,
                        insts[i].msg);
            CU_ASSERT_STRING_EQUAL(e->message, insts[i].msg);
            CU_ASSERT_EQUAL(e->code, ARCHSIM_EXIT_DATAERR);
            g_error_free(e);
        }
        g_free(src);
        g_free(full);
    }
    /* and the constants ptxas takes: either kind on .b types, floats where cvt's source is a
     * float, integers where it is an integer */
    static const char *const good[] = {
        "mov.b32 %r1, 0f3F800000;", "and.b32 %r1, %r2, 0f3F800000;", "mov.b32 %f1, 1;",
        "cvt.rzi.s32.f32 %r1, 0f3F800000;", "cvt.rn.f32.s32 %f1, 1;",
        "st.global.b32 [%rd1], 0f3F800000;", "mov.f32 %f1, 0f3F800000;", "mov.s32 %r1, -1;",
        "setp.ne.s32 %p1, %r1, 0;", "selp.f32 %f1, 0f3F800000, %f2, %p1;",
        "setp.eq.and.f32 %p1, %f1, %f2, 1;", "setp.lt.or.f32 %p1|%p2, %f1, %f2, 0;",
        "mov.b64 %rd1, 0d3FF0000000000000;", "selp.u32 %r1, %r2, %r3, 1;",
        "setp.eq.and.f16 %p1, %rs1, %rs2, 1;",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
        char *full = g_strdup_printf(HEAD ".visible .entry k() { .reg .pred %%p<3>; .reg .b32 "
                                     "%%r<5>; .reg .b64 %%rd<3>; .reg .f32 %%f<3>; .reg .b16 "
                                     "%%rs<3>;\n%s\nret;\n}\n",
                                     good[i]);
        GError *e = NULL;
        PtxModule *m = parse(full, &e);
        if (!m)
            fprintf(stderr, "\ngood case %zu: %s\n", i, e->message);
        CU_ASSERT_PTR_NOT_NULL(m);
        ptx_module_free(m);
        if (e)
            g_error_free(e);
        g_free(full);
    }
}

/* ---- running kernels ---- */

typedef struct {
    PtxModule *m;
    PtxLaunch l;
    PtxRun *r;
    GPtrArray *blocks;          /* SassBlock *, as run */
} Run;

/* Runs kernel text on grid x block threads with buffers (name, dtype, count, fill) and
 * parameters = the buffers' addresses in order, then a u32 n if n >= 0. */
static bool run_kernel(Run *R, const char *text, uint32_t grid, uint32_t block, int64_t n,
                       PtxBuffer **bufs, int nbufs, uint64_t order_seed, char **err)
{
    memset(R, 0, sizeof *R);
    GError *e = NULL;
    R->m = parse(text, &e);
    if (!R->m) {
        *err = g_strdup(e->message);
        g_error_free(e);
        return false;
    }
    R->l.m = R->m;
    R->l.e = ptx_entry(R->m, NULL, &e);
    R->l.grid[0] = grid, R->l.grid[1] = R->l.grid[2] = 1;
    R->l.block[0] = block, R->l.block[1] = R->l.block[2] = 1;
    R->l.buffers = g_ptr_array_new_with_free_func((GDestroyNotify)ptx_buffer_free);
    for (int i = 0; i < nbufs; i++)
        g_ptr_array_add(R->l.buffers, bufs[i]);
    ptx_place_buffers(R->l.buffers);
    R->l.params = g_malloc0(MAX(R->l.e->param_bytes, 8));
    uint64_t off = 0;
    for (int i = 0; i < nbufs; i++, off += 8)
        memcpy(R->l.params + off, &bufs[i]->addr, 8);
    if (n >= 0) {
        uint32_t v = (uint32_t)n;
        memcpy(R->l.params + off, &v, 4);
    }
    R->l.order_seed = order_seed;
    R->l.max_warp_insts = max_insts;
    R->r = ptx_run_new(&R->l, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(R->r);
    R->blocks = g_ptr_array_new();
    for (;;) {
        SassBlock *b = g_new0(SassBlock, 1);
        int got = ptx_run_next_block(R->r, b, &e);
        if (got <= 0) {
            sass_block_clear(b);
            g_free(b);
            if (got < 0) {
                *err = g_strdup(e->message);
                g_error_free(e);
                return false;
            }
            break;
        }
        g_ptr_array_add(R->blocks, b);
    }
    *err = NULL;
    return true;
}

static void run_free(Run *R)
{
    for (guint i = 0; R->blocks && i < R->blocks->len; i++) {
        sass_block_clear(g_ptr_array_index(R->blocks, i));
        g_free(g_ptr_array_index(R->blocks, i));
    }
    if (R->blocks)
        g_ptr_array_free(R->blocks, TRUE);
    ptx_run_free(R->r);
    if (R->l.buffers)
        g_ptr_array_free(R->l.buffers, TRUE);
    g_free(R->l.params);
    ptx_module_free(R->m);
}

static const uint32_t *U32(const PtxBuffer *b) { return (const uint32_t *)(const void *)b->data; }

/* the recorded instructions of block bi, warp wi, at pc (instruction index) */
static uint32_t count_at(const Run *R, guint bi, uint32_t wi, uint32_t idx, uint32_t *mask)
{
    const SassBlock *b = g_ptr_array_index(R->blocks, bi);
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->warps[wi].n; i++) {
        const SassInst *in = &sass_warp_insts(b, wi)[i];
        if (in->pc == idx * 16) {
            n++;
            *mask = in->mask;
        }
    }
    return n;
}

/* ---- reconvergence points ---- */

/* ipdom of every branch against post-dominator sets computed the slow, obvious way (per
 * instruction, bit sets, iterated to a fixed point) on 3,000 random control-flow graphs:
 * forward and backward branches, guarded and not, returns in the middle, endless loops that
 * never reach the exit (their branches reconverge at the exit, ninsts). */
static void test_ipdom_random(void)
{
    GRand *r = g_rand_new_with_seed(18);
    for (int t = 0; t < 3000; t++) {
        int n = g_rand_int_range(r, 1, 48);        /* instructions before the final ret */
        int nl = g_rand_int_range(r, 1, 8);
        int at[8];
        for (int l = 0; l < nl; l++)
            at[l] = g_rand_int_range(r, 0, n + 1);  /* the label before instruction at[l] */
        GString *src = g_string_new(HEAD ".visible .entry k()\n{\n.reg .pred %p<2>;\n"
                                    ".reg .b32 %r<2>;\n");
        for (int i = 0; i <= n; i++) {
            for (int l = 0; l < nl; l++)
                if (at[l] == i)
                    g_string_append_printf(src, "L%d:\n", l);
            if (i == n)
                break;
            int kind = g_rand_int_range(r, 0, 10);
            int tl = g_rand_int_range(r, 0, nl);
            if (kind < 3)
                g_string_append_printf(src, "@%%p1 bra L%d;\n", tl);
            else if (kind < 5)
                g_string_append_printf(src, "bra L%d;\n", tl);
            else if (kind == 5)
                g_string_append(src, "@%p1 ret;\n");
            else if (kind == 6)
                g_string_append(src, "ret;\n");
            else
                g_string_append(src, "add.s32 %r1, %r1, 1;\n");
        }
        g_string_append(src, "ret;\n}\n");
        GError *e = NULL;
        PtxModule *m = parse(src->str, &e);
        if (!m)
            fprintf(stderr, "\n%s\n%s\n", e->message, src->str);
        CU_ASSERT_PTR_NOT_NULL_FATAL(m);
        PtxEntry *k = ptx_entry(m, NULL, &e);
        CU_ASSERT_PTR_NOT_NULL_FATAL(k);
        const PtxInst *in = (const PtxInst *)(void *)k->insts->data;
        uint32_t ni = k->insts->len;                 /* node ni: the exit */
        CU_ASSERT_FATAL(ni < 64);
        uint64_t all = (ni + 1 == 64) ? ~0ull : (1ull << (ni + 1)) - 1, pd[64];
        for (uint32_t i = 0; i < ni; i++)
            pd[i] = all;
        pd[ni] = 1ull << ni;
        bool reach[64] = { false };                      /* reaches the exit */
        reach[ni] = true;
        for (bool changed = true; changed;) {
            changed = false;
            for (uint32_t i = ni; i-- > 0;) {
                uint32_t s[2], ns = 0, next = i + 1;    /* next == ni: falls off into the exit */
                if (in[i].op == PTX_OP_BRA) {
                    s[ns++] = (uint32_t)in[i].a[0].imm;
                    if (in[i].guard >= 0)
                        s[ns++] = next;
                } else if (in[i].op == PTX_OP_RET || in[i].op == PTX_OP_EXIT) {
                    s[ns++] = ni;
                    if (in[i].guard >= 0)
                        s[ns++] = next;
                } else {
                    s[ns++] = next;
                }
                uint64_t v = all;
                bool rv = false;
                for (uint32_t j = 0; j < ns; j++) {
                    v &= pd[s[j]];
                    rv = rv || reach[s[j]];
                }
                v |= 1ull << i;
                if (v != pd[i] || rv != reach[i]) {
                    pd[i] = v;
                    reach[i] = rv;
                    changed = true;
                }
            }
        }
        for (uint32_t i = 0; i < ni; i++) {
            if (in[i].op != PTX_OP_BRA)
                continue;
            uint32_t want = ni;                          /* never reaches the exit: ni */
            if (reach[i]) {
                uint64_t strict = pd[i] & ~(1ull << i);
                for (uint32_t j = 0; j <= ni; j++)       /* the nearest: its set is the rest */
                    if ((strict >> j & 1) && pd[j] == strict)
                        want = j;
            }
            if (k->ipdom[i] != want)
                fprintf(stderr, "\nbranch %u: ipdom %u, want %u\n%s\n", i, k->ipdom[i], want,
                        src->str);
            CU_ASSERT_EQUAL_FATAL(k->ipdom[i], want);
        }
        ptx_module_free(m);
        g_string_free(src, TRUE);
    }
    g_rand_free(r);
}

/* A ladder of 200,000 backward branches (each block loops to its own head from below the
 * others): an iterative dominator algorithm walks the whole chain for every branch (minutes at
 * 490,000); every branch reconverges after itself, at the next one. */
static void test_ipdom_ladder(void)
{
    enum { N = 200000 };
    GString *src = g_string_new(HEAD ".visible .entry k()\n{\n.reg .pred %p<2>;\n.reg .b32 %r<2>;\n");
    for (int i = 0; i < N; i++)
        g_string_append_printf(src, "B%d:\nadd.s32 %%r1, %%r1, 1;\n", i);
    for (int i = 0; i < N; i++)
        g_string_append_printf(src, "@%%p1 bra B%d;\n", i);
    g_string_append(src, "ret;\n}\n");
    GError *e = NULL;
    PtxModule *m = parse(src->str, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    PtxEntry *k = ptx_entry(m, NULL, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    CU_ASSERT_EQUAL(k->insts->len, 2 * N + 1);
    bool ok = true;
    for (uint32_t i = N; i < 2 * N; i++)
        ok = ok && k->ipdom[i] == i + 1;
    CU_ASSERT(ok);
    ptx_module_free(m);
    g_string_free(src, TRUE);
}

/* Each word of an output against what it should be, the first ones that differ named. */
static void check_words(const uint32_t *o, const uint32_t *want, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (o[i] != want[i])
            fprintf(stderr, "\nword %u: %08x, want %08x\n", i, o[i], want[i]);
        CU_ASSERT_EQUAL(o[i], want[i]);
    }
}

#define OUT_PARAM ".visible .entry k(.param .u64 out, .param .u32 n)\n"

static void test_divergence_nested(void)
{
    const char *src = HEAD OUT_PARAM "{\n"
        ".reg .pred %p<3>; .reg .b32 %r<6>; .reg .b64 %rd<4>;\n"
        "ld.param.u64 %rd1, [out];\n"                       /* 0 */
        "mov.u32 %r1, %tid.x;\n"                            /* 1 */
        "mov.u32 %r2, 0;\n"                                 /* 2 */
        "and.b32 %r3, %r1, 1;\n"                            /* 3 */
        "setp.eq.u32 %p1, %r3, 0;\n"                        /* 4 */
        "@%p1 bra EVEN;\n"                                  /* 5 */
        "and.b32 %r4, %r1, 2;\n"                            /* 6 */
        "setp.eq.u32 %p2, %r4, 0;\n"                        /* 7 */
        "@%p2 bra ODD_A;\n"                                 /* 8 */
        "add.u32 %r2, %r2, 30;\n"                           /* 9 */
        "bra ODD_JOIN;\n"                                   /* 10 */
        "ODD_A: add.u32 %r2, %r2, 20;\n"                    /* 11 */
        "ODD_JOIN: add.u32 %r2, %r2, 1;\n"                  /* 12 */
        "bra JOIN;\n"                                       /* 13 */
        "EVEN: add.u32 %r2, %r2, 10;\n"                     /* 14 */
        "JOIN: add.u32 %r2, %r2, 100;\n"                    /* 15 */
        "mul.wide.u32 %rd2, %r1, 4;\n"                      /* 16 */
        "add.s64 %rd3, %rd1, %rd2;\n"                       /* 17 */
        "st.global.u32 [%rd3], %r2;\n"                      /* 18 */
        "ret;\n}\n";
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_U32, 64);
    Run R;
    char *err;
    CU_ASSERT_FATAL(run_kernel(&R, src, 1, 64, 64, &out, 1, 0, &err));
    for (uint32_t t = 0; t < 64; t++)
        CU_ASSERT_EQUAL(U32(out)[t], t % 2 == 0 ? 110u : (t & 2) ? 131u : 121u);
    /* reconvergence: the odd lanes' join once with the odd mask, the final join once with all */
    uint32_t mask = 0;
    CU_ASSERT_EQUAL(count_at(&R, 0, 0, 12, &mask), 1);
    CU_ASSERT_EQUAL(mask, 0xaaaaaaaau);
    CU_ASSERT_EQUAL(count_at(&R, 0, 1, 15, &mask), 1);
    CU_ASSERT_EQUAL(mask, 0xffffffffu);
    CU_ASSERT_EQUAL(count_at(&R, 0, 0, 9, &mask), 1);
    CU_ASSERT_EQUAL(mask, 0x88888888u);             /* odd with bit 1 */
    CU_ASSERT_EQUAL(count_at(&R, 0, 0, 11, &mask), 1);
    CU_ASSERT_EQUAL(mask, 0x22222222u);
    /* the guarded branch is recorded with the lanes whose guard holds */
    CU_ASSERT_EQUAL(count_at(&R, 0, 0, 5, &mask), 1);
    CU_ASSERT_EQUAL(mask, 0x55555555u);
    run_free(&R);
}

static void test_loop_early_exit(void)
{
    /* count up to min(tid, 5); thread 20 returns inside the loop and writes nothing */
    const char *src = HEAD OUT_PARAM "{\n"
        ".reg .pred %p<4>; .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
        "ld.param.u64 %rd1, [out];\n"                       /* 0 */
        "mov.u32 %r1, %tid.x;\n"                            /* 1 */
        "mov.u32 %r2, 0;\n"                                 /* 2 */
        "LOOP: setp.ge.u32 %p1, %r2, %r1;\n"                /* 3 */
        "@%p1 bra DONE;\n"                                  /* 4 */
        "setp.eq.u32 %p2, %r2, 5;\n"                        /* 5 */
        "@%p2 bra DONE;\n"                                  /* 6 */
        "setp.eq.u32 %p3, %r1, 20;\n"                       /* 7 */
        "@%p3 ret;\n"                                       /* 8 */
        "add.u32 %r2, %r2, 1;\n"                            /* 9 */
        "bra LOOP;\n"                                       /* 10 */
        "DONE: mul.wide.u32 %rd2, %r1, 4;\n"                /* 11 */
        "add.s64 %rd3, %rd1, %rd2;\n"                       /* 12 */
        "st.global.u32 [%rd3], %r2;\n"                      /* 13 */
        "ret;\n}\n";
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_U32, 32);
    memset(out->data, 0xee, out->bytes);
    Run R;
    char *err;
    CU_ASSERT_FATAL(run_kernel(&R, src, 1, 32, 32, &out, 1, 0, &err));
    for (uint32_t t = 0; t < 32; t++)
        CU_ASSERT_EQUAL(U32(out)[t], t == 20 ? 0xeeeeeeeeu : MIN(t, 5u));
    /* the return inside the loop makes the exit the loop's post-dominator: the lanes leave
     * in groups and store in groups, each lane once, lane 20 never */
    const SassBlock *b = g_ptr_array_index(R.blocks, 0);
    uint32_t stored = 0, groups = 0, body = 0;
    for (uint32_t i = 0; i < b->warps[0].n; i++) {
        const SassInst *in = &sass_warp_insts(b, 0)[i];
        if (in->pc == 13 * 16) {
            CU_ASSERT_EQUAL(stored & in->mask, 0);
            stored |= in->mask;
            groups++;
        }
        body += in->pc == 9 * 16;
    }
    CU_ASSERT_EQUAL(stored, 0xffffffffu & ~(1u << 20));
    CU_ASSERT(groups > 1);
    CU_ASSERT_EQUAL(body, 5);                                /* five trips of the body */
    run_free(&R);
}

/* nvcc's { } blocks: a temporary declared again in another block, an inner name hiding an
 * outer one until its block closes, registers named without '%' (cuda_fp16's __$temp) */
static void test_scoped_registers(void)
{
    const char *src = HEAD OUT_PARAM "{\n"
        ".reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.u32 %r1, %tid.x;\n"
        "mul.wide.u32 %rd2, %r1, 12;\n"
        "add.s64 %rd3, %rd1, %rd2;\n"
        "{ .reg .b32 %tmp; add.u32 %tmp, %r1, 100; st.global.u32 [%rd3], %tmp; }\n"
        "{ .reg .b32 %tmp; .reg .b32 %r1; mov.u32 %r1, 7; add.u32 %tmp, %r1, 1;\n"
        "  st.global.u32 [%rd3+4], %tmp; }\n"
        "{ .reg .pred __$temp3; setp.lt.u32 __$temp3, %r1, 4;\n"   /* the outer %r1 again */
        "  selp.u32 %r2, 1, 0, __$temp3; @!__$temp3 add.u32 %r2, %r2, 10; }\n"
        "st.global.u32 [%rd3+8], %r2;\n"
        "ret;\n}\n";
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_U32, 32 * 3);
    Run R;
    char *err = NULL;
    bool ok = run_kernel(&R, src, 1, 32, 32, &out, 1, 0, &err);
    if (!ok)
        fprintf(stderr, "\n%s\n", err);
    CU_ASSERT_FATAL(ok);
    for (uint32_t t = 0; t < 32; t++) {
        CU_ASSERT_EQUAL(U32(out)[3 * t], t + 100);
        CU_ASSERT_EQUAL(U32(out)[3 * t + 1], 8);
        CU_ASSERT_EQUAL(U32(out)[3 * t + 2], t < 4 ? 1 : 10);
    }
    run_free(&R);
    /* the same name twice in one block is still an error */
    const char *twice = HEAD OUT_PARAM "{\n{ .reg .b32 %tmp; .reg .b32 %tmp; }\nret;\n}\n";
    ok = run_kernel(&R, twice, 1, 32, 32, &out, 1, 0, &err);
    CU_ASSERT_FALSE(ok);
    CU_ASSERT(err && strstr(err, "register %tmp is declared twice"));
    g_free(err);
    if (ok)
        run_free(&R);
}

static void test_atomics(void)
{
    /* out[0] add 1 (the old values say the order), [1] min, [2] max, [3] exch, [4] cas chain,
     * [5] inc wrapping at 7, [6] and, [7] or, [8] xor; f[0] f32 add */
    const char *src = HEAD ".visible .entry k(.param .u64 out, .param .u64 f, .param .u64 old, "
        ".param .u32 n)\n{\n"
        ".reg .b32 %r<12>; .reg .b64 %rd<8>; .reg .f32 %f<3>;\n"
        "ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [f]; ld.param.u64 %rd3, [old];\n"
        "mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;\n"
        "mad.lo.s32 %r4, %r2, %r3, %r1;\n"
        "atom.global.add.u32 %r5, [%rd1], 1;\n"
        "mul.wide.u32 %rd4, %r4, 4; add.s64 %rd5, %rd3, %rd4; st.global.u32 [%rd5], %r5;\n"
        "xor.b32 %r6, %r4, 21;\n"
        "atom.global.min.u32 %r7, [%rd1+4], %r6;\n"
        "atom.global.max.s32 %r7, [%rd1+8], %r6;\n"
        "atom.global.exch.b32 %r7, [%rd1+12], %r4;\n"
        "add.u32 %r8, %r4, 1;\n"
        "atom.global.cas.b32 %r7, [%rd1+16], %r4, %r8;\n"
        "atom.global.inc.u32 %r7, [%rd1+20], 7;\n"
        "shl.b32 %r9, 1, %r1;\n"
        "atom.global.and.b32 %r7, [%rd1+24], %r6;\n"
        "atom.global.or.b32 %r7, [%rd1+28], %r9;\n"
        "atom.global.xor.b32 %r7, [%rd1+32], %r9;\n"
        "mov.f32 %f1, 0f3F000000;\n"
        "red.global.add.f32 [%rd2], %f1;\n"
        "ret;\n}\n";
    PtxBuffer *b[3] = { ptx_buffer_new("out", PTX_D_U32, 9), ptx_buffer_new("f", PTX_D_F32, 1),
                        ptx_buffer_new("old", PTX_D_U32, 128) };
    uint32_t *o = (uint32_t *)(void *)b[0]->data;
    o[1] = UINT32_MAX;
    o[6] = UINT32_MAX;
    Run R;
    char *err;
    CU_ASSERT_FATAL(run_kernel(&R, src, 2, 64, 128, b, 3, 0, &err));
    const uint32_t *old = U32(b[2]);
    for (uint32_t t = 0; t < 128; t++)
        CU_ASSERT_EQUAL(old[t], t);                 /* blocks in order, warps, lanes ascending */
    uint32_t mn = UINT32_MAX, mx = 0, an = UINT32_MAX;
    for (uint32_t t = 0; t < 128; t++) {
        mn = MIN(mn, t ^ 21u);
        mx = MAX(mx, t ^ 21u);
        an &= t ^ 21u;
    }
    CU_ASSERT_EQUAL(o[0], 128);
    CU_ASSERT_EQUAL(o[1], mn);
    CU_ASSERT_EQUAL(o[2], mx);
    CU_ASSERT_EQUAL(o[3], 127);                     /* the last to exchange */
    CU_ASSERT_EQUAL(o[4], 128);                     /* each cas found its own tid: in order */
    CU_ASSERT_EQUAL(o[5], 128 % 8);                 /* inc wraps after 7 */
    CU_ASSERT_EQUAL(o[6], an);
    CU_ASSERT_EQUAL(o[7], 0xffffffffu);             /* every bit of the 32 lanes */
    CU_ASSERT_EQUAL(o[8], 0);                       /* each bit four times */
    float fs;
    memcpy(&fs, b[1]->data, 4);
    CU_ASSERT_EQUAL(fs, 64.0f);
    run_free(&R);
    /* a shuffled block order: the same sums, the order of the old values changes */
    PtxBuffer *c[3] = { ptx_buffer_new("out", PTX_D_U32, 9), ptx_buffer_new("f", PTX_D_F32, 1),
                        ptx_buffer_new("old", PTX_D_U32, 512) };
    CU_ASSERT_FATAL(run_kernel(&R, src, 8, 64, 512, c, 3, 5, &err));
    CU_ASSERT_EQUAL(U32(c[0])[0], 512);
    bool inorder = true;
    for (uint32_t t = 0; t < 512; t++)
        inorder &= U32(c[2])[t] == t;
    CU_ASSERT_FALSE(inorder);
    run_free(&R);
}

static const char *bar_src(bool with_barrier)
{
    static char buf[2][1024];
    snprintf(buf[with_barrier], sizeof buf[0], HEAD OUT_PARAM "{\n"
             ".reg .b32 %%r<8>; .reg .b64 %%rd<4>; .shared .align 4 .b8 s[512];\n"
             "ld.param.u64 %%rd1, [out];\n"
             "mov.u32 %%r1, %%tid.x; mov.u32 %%r2, s;\n"
             "shl.b32 %%r3, %%r1, 2; add.s32 %%r4, %%r2, %%r3;\n"
             "add.u32 %%r5, %%r1, 1000; st.shared.u32 [%%r4], %%r5;\n"
             "%s\n"
             "add.u32 %%r6, %%r1, 1; and.b32 %%r6, %%r6, 127;\n"
             "shl.b32 %%r6, %%r6, 2; add.s32 %%r6, %%r2, %%r6; ld.shared.u32 %%r7, [%%r6];\n"
             "mul.wide.u32 %%rd2, %%r1, 4; add.s64 %%rd3, %%rd1, %%rd2; st.global.u32 [%%rd3], %%r7;\n"
             "ret;\n}\n", with_barrier ? "bar.sync 0;" : "");
    return buf[with_barrier];
}

static void test_barriers(void)
{
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_U32, 128);
    Run R;
    char *err;
    CU_ASSERT_FATAL(run_kernel(&R, bar_src(true), 1, 128, 128, &out, 1, 0, &err));
    for (uint32_t t = 0; t < 128; t++)
        CU_ASSERT_EQUAL(U32(out)[t], 1000 + (t + 1) % 128);
    run_free(&R);
    /* without the barrier the last lane of each warp reads the next warp's slot before that
     * warp has run: the output check catches it */
    out = ptx_buffer_new("out", PTX_D_U32, 128);
    CU_ASSERT_FATAL(run_kernel(&R, bar_src(false), 1, 128, 128, &out, 1, 0, &err));
    uint32_t wrong = 0;
    for (uint32_t t = 0; t < 128; t++)
        wrong += U32(out)[t] != 1000 + (t + 1) % 128;
    CU_ASSERT_EQUAL(wrong, 3);                      /* lanes 31, 63, 95 (127 wraps to warp 0) */
    run_free(&R);
}

static void test_shuffle_vote(void)
{
    /* out[4 t + 0..3]: shfl down 3, up 2, bfly 5, idx 7 of (lane * 10); out2[t]: ballot of
     * odd lanes, all(lane < 40), any(lane == 3) */
    const char *src = HEAD ".visible .entry k(.param .u64 out, .param .u64 out2, .param .u32 n)\n{\n"
        ".reg .pred %p<6>; .reg .b32 %r<16>; .reg .b64 %rd<6>;\n"
        "ld.param.u64 %rd1, [out]; ld.param.u64 %rd4, [out2];\n"
        "mov.u32 %r1, %laneid; mov.u32 %r15, %tid.x; mul.lo.s32 %r2, %r1, 10;\n"
        "shfl.sync.down.b32 %r3|%p1, %r2, 3, 31, -1;\n"
        "shfl.sync.up.b32 %r4|%p2, %r2, 2, 0, -1;\n"
        "shfl.sync.bfly.b32 %r5, %r2, 5, 31, -1;\n"
        "shfl.sync.idx.b32 %r6, %r2, 7, 31, -1;\n"
        "mul.wide.u32 %rd2, %r15, 16; add.s64 %rd3, %rd1, %rd2;\n"
        "st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};\n"
        "and.b32 %r7, %r1, 1; setp.ne.u32 %p3, %r7, 0;\n"
        "vote.sync.ballot.b32 %r8, %p3, -1;\n"
        "setp.lt.u32 %p4, %r1, 40; vote.sync.all.pred %p5, %p4, -1; selp.u32 %r9, 1, 0, %p5;\n"
        "setp.eq.u32 %p4, %r1, 3; vote.sync.any.pred %p5, %p4, -1; selp.u32 %r10, 1, 0, %p5;\n"
        "selp.u32 %r11, 1, 0, %p1; selp.u32 %r12, 1, 0, %p2;\n"
        "mul.wide.u32 %rd2, %r15, 24; add.s64 %rd5, %rd4, %rd2;\n"
        "st.global.u32 [%rd5], %r8; st.global.u32 [%rd5+4], %r9; st.global.u32 [%rd5+8], %r10;\n"
        "st.global.u32 [%rd5+12], %r11; st.global.u32 [%rd5+16], %r12;\n"
        "ret;\n}\n";
    PtxBuffer *b[2] = { ptx_buffer_new("out", PTX_D_U32, 4 * 32), ptx_buffer_new("out2", PTX_D_U32, 6 * 32) };
    Run R;
    char *err;
    if (!run_kernel(&R, src, 1, 32, 32, b, 2, 0, &err))
        fprintf(stderr, "\n%s\n", err);
    const uint32_t *o = U32(b[0]), *v = U32(b[1]);
    for (uint32_t l = 0; l < 32; l++) {
        CU_ASSERT_EQUAL(o[4 * l + 0], (l + 3 <= 31 ? l + 3 : l) * 10);
        CU_ASSERT_EQUAL(o[4 * l + 1], (l >= 2 ? l - 2 : l) * 10);
        CU_ASSERT_EQUAL(o[4 * l + 2], (l ^ 5) * 10);
        CU_ASSERT_EQUAL(o[4 * l + 3], 70);
        CU_ASSERT_EQUAL(v[6 * l / 6 * 6 + 0], 0xaaaaaaaau);
    }
    for (uint32_t l = 0; l < 32; l++) {
        const uint32_t *row = v + 6 * l;
        CU_ASSERT_EQUAL(row[0], 0xaaaaaaaau);
        CU_ASSERT_EQUAL(row[1], 1);
        CU_ASSERT_EQUAL(row[2], 1);
        CU_ASSERT_EQUAL(row[3], l + 3 <= 31);        /* down: in range */
        CU_ASSERT_EQUAL(row[4], l >= 2);             /* up: in range */
    }
    run_free(&R);
}

static void test_faults(void)
{
    /* a store past the end of its buffer names the line, the block and the thread */
    const char *src = HEAD OUT_PARAM "{\n"
        ".reg .b32 %r<3>; .reg .b64 %rd<4>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.u32 %r1, %tid.x;\n"
        "mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n"
        "st.global.u32 [%rd3], %r1;\n"
        "ret;\n}\n";
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_U32, 40);
    Run R;
    char *err;
    CU_ASSERT_FALSE(run_kernel(&R, src, 1, 64, 64, &out, 1, 0, &err));
    CU_ASSERT_STRING_EQUAL(err, "t.ptx:10:1: global access of 4 bytes at 0x2000000a0 is outside "
                           "every buffer (0 bytes past the end of out, 160 bytes at 0x200000000) "
                           "(block (0,0,0), thread (40,0,0))");
    g_free(err);
    run_free(&R);
    /* an endless loop is stopped */
    const char *spin = HEAD OUT_PARAM "{\nL: bra L;\n}\n";
    out = ptx_buffer_new("out", PTX_D_U32, 1);
    max_insts = 100000;
    CU_ASSERT_FALSE(run_kernel(&R, spin, 1, 32, 1, &out, 1, 0, &err));
    max_insts = 0;
    CU_ASSERT_STRING_EQUAL(err, "t.ptx:6:4: the block ran more than 100000 warp instructions (an "
                           "endless loop?) (block (0,0,0), thread (0,0,0))");
    g_free(err);
    run_free(&R);
}

/* the ISA's corner cases: bfe's sign fill, saturating conversions at 2^63 and 2^64, an
 * integer converted to f32 rounded once, saturating subtraction, .ftz, a guarded bar.sync that
 * no lane takes */
static void test_alu_corners(void)
{
    const char *src = HEAD ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .pred %p<2>; .reg .b32 %r<14>; .reg .b64 %rd<12>; .reg .f64 %fd<3>; .reg .f32 %f<4>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.u32 %r1, 0x80000000;\n"
        "bfe.s32 %r2, %r1, 31, 4;\n"                    /* 0xffffffff */
        "bfe.s32 %r3, %r1, 16, 32;\n"                   /* 0xffff8000 */
        "bfe.u32 %r4, %r1, 28, 8;\n"                    /* 0x8 */
        "mov.u32 %r5, 0x12345678;\n"
        "bfe.s32 %r6, %r5, 4, 8;\n"                     /* 0x67 */
        "mov.f64 %fd1, 0d43E0000000000000;\n"           /* 2^63 */
        "cvt.rzi.s64.f64 %rd2, %fd1;\n"                 /* INT64_MAX */
        "mov.f64 %fd2, 0d43F0000000000000;\n"           /* 2^64 */
        "cvt.rzi.u64.f64 %rd3, %fd2;\n"                 /* UINT64_MAX */
        "mov.u64 %rd4, 0x1000001000000001;\n"
        "cvt.rn.f32.u64 %f1, %rd4;\n"                   /* 0x5d800001 */
        "mov.b32 %r7, %f1;\n"
        "mov.u32 %r8, 0x80000000;\n"
        "sub.sat.s32 %r9, %r8, 1;\n"                    /* 0x80000000 */
        "mov.b32 %f2, 0x00000001;\n"                    /* the smallest subnormal */
        "add.ftz.f32 %f3, %f2, %f2;\n"                  /* 0 */
        "mov.b32 %r10, %f3;\n"
        "setp.ne.u32 %p1, %r1, %r1;\n"
        "@%p1 bar.sync 0;\n"                            /* no lane: no barrier */
        "mov.u32 %r11, 010;\n"                          /* octal, as ptxas reads it: 8 */
        "mov.u64 %rd5, 0x8000000000000000;\n"
        "abs.s64 %rd6, %rd5;\n"                         /* INT64_MIN (no UB on the way) */
        "add.u32 %r11, %r11, 0b101;\n"                  /* binary: 8 + 5 */
        "mov.f32 %f3, 0f00000000;\n"
        "setp.eq.ftz.f32 %p1, %f2, %f3;\n"              /* subnormal == 0 under .ftz */
        "selp.u32 %r12, 1, 0, %p1;\n"
        "cvt.ftz.f64.f32 %fd2, %f2;\n"                  /* 0.0, not 1.4e-45 */
        "st.global.u32 [%rd1], %r2; st.global.u32 [%rd1+4], %r3; st.global.u32 [%rd1+8], %r4;\n"
        "st.global.u32 [%rd1+12], %r6; st.global.u64 [%rd1+16], %rd2; st.global.u64 [%rd1+24], %rd3;\n"
        "st.global.u32 [%rd1+32], %r7; st.global.u32 [%rd1+36], %r9; st.global.u32 [%rd1+40], %r10;\n"
        "st.global.u32 [%rd1+44], %r11; st.global.u64 [%rd1+48], %rd6;\n"
        "st.global.u32 [%rd1+56], %r12; st.global.f64 [%rd1+64], %fd2;\n"
        "ret;\n}\n";
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_U32, 18);
    Run R;
    char *err = NULL;
    if (!run_kernel(&R, src, 1, 32, -1, &out, 1, 0, &err))
        fprintf(stderr, "\n%s\n", err);
    const uint32_t *o = U32(out);
    uint64_t s64, u64;
    memcpy(&s64, o + 4, 8);
    memcpy(&u64, o + 6, 8);
    CU_ASSERT_EQUAL(o[0], 0xffffffffu);
    CU_ASSERT_EQUAL(o[1], 0xffff8000u);
    CU_ASSERT_EQUAL(o[2], 0x8u);
    CU_ASSERT_EQUAL(o[3], 0x67u);
    CU_ASSERT_EQUAL(s64, (uint64_t)INT64_MAX);
    CU_ASSERT_EQUAL(u64, UINT64_MAX);
    CU_ASSERT_EQUAL(o[8], 0x5d800001u);
    CU_ASSERT_EQUAL(o[9], 0x80000000u);
    CU_ASSERT_EQUAL(o[10], 0);
    CU_ASSERT_EQUAL(o[11], 13);
    uint64_t ab;
    memcpy(&ab, o + 12, 8);
    CU_ASSERT_EQUAL(ab, 0x8000000000000000ull);
    CU_ASSERT_EQUAL(o[14], 1);                                /* setp.eq.ftz */
    memcpy(&ab, o + 16, 8);
    CU_ASSERT_EQUAL(ab, 0);                                   /* cvt.ftz.f64.f32: +0.0 */
    run_free(&R);
}

/* prmt, shf, bfi and lop3 at their edges, values worked by hand from the PTX ISA: cub's PRMT
 * example (0x03020100, 0x07060504, selector 0x7531: 0x07050301), a selector's sign bit, shifts
 * of 0 and 32 and past them, fields that run past the msb, bfi.b64, lop3 tables. */
static void test_bit_ops(void)
{
    const char *src = HEAD ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .b32 %r<24>; .reg .b64 %rd<6>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.u32 %r1, 0x03020100; mov.u32 %r2, 0x07060504;\n"
        "prmt.b32 %r3, %r1, %r2, 0x7531;\n"             /* 0x07050301 */
        "mov.u32 %r4, 0x80417f00;\n"
        "prmt.b32 %r5, %r4, %r4, 0x8b9a;\n"             /* signs of bytes 2, 1, 3, 0: 0x00ff0000 */
        "prmt.b32.f4e %r6, %r1, %r2, 3;\n"              /* 6543: 0x06050403 */
        "prmt.b32.b4e %r7, %r1, %r2, 1;\n"              /* 6701: 0x06070001 */
        "prmt.b32.ecl %r8, %r1, %r2, 2;\n"              /* 3222: 0x03020202 */
        "prmt.b32.ecr %r9, %r1, %r2, 5;\n"              /* c[1:0] = 1, 1110: 0x01010100 */
        "prmt.b32.rc16 %r10, %r1, %r2, 1;\n"            /* 3232: 0x03020302 */
        "mov.u32 %r11, 0x89abcdef; mov.u32 %r12, 0x01234567;\n"
        "shf.l.wrap.b32 %r13, %r11, %r12, 36;\n"        /* n = 4: 0x12345678 */
        "shf.l.clamp.b32 %r14, %r11, %r12, 40;\n"       /* n = 32: a = 0x89abcdef */
        "shf.r.wrap.b32 %r15, %r11, %r12, 0;\n"         /* n = 0: a */
        "shf.r.clamp.b32 %r16, %r11, %r12, 33;\n"       /* n = 32: b = 0x01234567 */
        "bfi.b32 %r17, 0xff, 0x0, 28, 8;\n"             /* only 4 bits fit: 0xf0000000 */
        "bfi.b32 %r18, 0xff, 0x12345678, 40, 8;\n"      /* pos past the msb: b */
        "bfi.b32 %r19, 0xa5, 0xffffffff, 4, 0;\n"       /* len 0: b */
        "mov.u64 %rd2, 0x1111111111111111;\n"
        "bfi.b64 %rd3, 0xabc, %rd2, 58, 12;\n"          /* 6 bits fit: 0xf111111111111111 */
        "lop3.b32 %r20, %r11, %r12, %r1, 0x96;\n"       /* a ^ b ^ c */
        "lop3.b32 %r21, %r11, %r12, %r1, 0xF0;\n"       /* a */
        "lop3.b32 %r22, %r11, %r12, %r1, 0;\n"          /* 0 */
        "add.cc.u32 %r23, 0xffffffff, 1;\n"              /* sets the carry flag */
        "popc.b32 %r23, %r11;\n"                        /* 0x89abcdef: 20 bits, no carry in */
        "st.global.u32 [%rd1], %r3; st.global.u32 [%rd1+4], %r5; st.global.u32 [%rd1+8], %r6;\n"
        "st.global.u32 [%rd1+12], %r7; st.global.u32 [%rd1+16], %r8; st.global.u32 [%rd1+20], %r9;\n"
        "st.global.u32 [%rd1+24], %r10; st.global.u32 [%rd1+28], %r13; st.global.u32 [%rd1+32], %r14;\n"
        "st.global.u32 [%rd1+36], %r15; st.global.u32 [%rd1+40], %r16; st.global.u32 [%rd1+44], %r17;\n"
        "st.global.u32 [%rd1+48], %r18; st.global.u32 [%rd1+52], %r19; st.global.u64 [%rd1+56], %rd3;\n"
        "st.global.u32 [%rd1+64], %r20; st.global.u32 [%rd1+68], %r21; st.global.u32 [%rd1+72], %r22;\n"
        "st.global.u32 [%rd1+76], %r23;\n"
        "ret;\n}\n";
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_U32, 20);
    Run R;
    char *err = NULL;
    if (!run_kernel(&R, src, 1, 32, -1, &out, 1, 0, &err))
        fprintf(stderr, "\n%s\n", err);
    const uint32_t *o = U32(out);
    CU_ASSERT_EQUAL(o[0], 0x07050301u);
    /* selector nibbles from byte 0: 0xa (byte 2 = 0x41, sign 0: 0x00), 0x9 (byte 1 = 0x7f,
     * sign 0: 0x00), 0xb (byte 3 = 0x80, sign 1: 0xff), 0x8 (byte 0 = 0x00, sign 0: 0x00) */
    CU_ASSERT_EQUAL(o[1], 0x00ff0000u);
    CU_ASSERT_EQUAL(o[2], 0x06050403u);
    CU_ASSERT_EQUAL(o[3], 0x06070001u);
    CU_ASSERT_EQUAL(o[4], 0x03020202u);
    CU_ASSERT_EQUAL(o[5], 0x01010100u);
    CU_ASSERT_EQUAL(o[6], 0x03020302u);
    CU_ASSERT_EQUAL(o[7], 0x12345678u);
    CU_ASSERT_EQUAL(o[8], 0x89abcdefu);
    CU_ASSERT_EQUAL(o[9], 0x89abcdefu);
    CU_ASSERT_EQUAL(o[10], 0x01234567u);
    CU_ASSERT_EQUAL(o[11], 0xf0000000u);
    CU_ASSERT_EQUAL(o[12], 0x12345678u);
    CU_ASSERT_EQUAL(o[13], 0xffffffffu);
    uint64_t b64;
    memcpy(&b64, o + 14, 8);
    CU_ASSERT_EQUAL(b64, 0xf111111111111111ull);
    CU_ASSERT_EQUAL(o[16], 0x89abcdefu ^ 0x01234567u ^ 0x03020100u);
    CU_ASSERT_EQUAL(o[17], 0x89abcdefu);
    CU_ASSERT_EQUAL(o[18], 0);
    CU_ASSERT_EQUAL(o[19], 20);                            /* popc is not addc */
    run_free(&R);
}

/* .rz/.rm/.rp on f32 and f64 arithmetic and conversions (values worked from IEEE 754: 1/3 in
 * f32 is 0x3eaaaaab to nearest, 0x3eaaaaaa toward zero or down), copysign, and initialised
 * .global/.const variables, a `[]` array sized by its list. */
static void test_rounding_init(void)
{
    const char *src = HEAD
        ".global .align 4 .u32 tab[] = {7, 0x10, 010, -1};\n"
        ".const .align 8 .f64 dk[2] = {0d3FF8000000000000};\n"
        ".global .align 8 .f64 raw = 0f3FC00000;\n"           /* ptxas: the bits, not 1.5 */
        ".global .align 4 .f32 one = 0d3FF0000000000000;\n"      /* 1.0 as a float */
        ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .b32 %r<30>; .reg .b64 %rd<6>; .reg .f32 %f<20>; .reg .f64 %fd<6>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.f32 %f1, 0f3F800000; mov.f32 %f2, 0f30800000; mov.f32 %f3, 0f40400000;\n"
        "add.rz.f32 %f4, %f1, %f2;\n"                   /* 1 + 2^-30: 0x3f800000 */
        "add.rp.f32 %f5, %f1, %f2;\n"                   /* 0x3f800001 */
        "sub.rm.f32 %f6, %f1, %f2;\n"                   /* 0x3f7fffff */
        "div.rz.f32 %f7, %f1, %f3;\n"                   /* 1/3: 0x3eaaaaaa */
        "div.rn.f32 %f8, %f1, %f3;\n"                   /* 0x3eaaaaab */
        "sqrt.rp.f32 %f9, %f3;\n"                       /* 0x3fddb3d8 */
        "fma.rm.f32 %f10, %f2, %f2, %f1;\n"             /* 1 + 2^-60 down: 0x3f800000 */
        "fma.rp.f32 %f11, %f2, %f2, %f1;\n"             /* up: 0x3f800001 */
        "mov.f64 %fd1, 0d3FF0000000000000; mov.f64 %fd2, 0d4008000000000000;\n"
        "div.rz.f64 %fd3, %fd1, %fd2;\n"                /* 0x3fd5555555555555 */
        "div.rp.f64 %fd4, %fd1, %fd2;\n"                /* 0x3fd5555555555556 */
        "cvt.rz.f32.f64 %f12, %fd3;\n"                  /* 0x3eaaaaaa */
        "cvt.rp.f32.f64 %f13, %fd3;\n"                  /* 0x3eaaaaab */
        "mov.u32 %r1, 16777217;\n"
        "cvt.rm.f32.s32 %f14, %r1;\n"                   /* 2^24: 0x4b800000 */
        "cvt.rp.f32.s32 %f15, %r1;\n"                   /* 2^24 + 2: 0x4b800001 */
        "mov.f32 %f16, 0fBF000000;\n"
        "copysign.f32 %f17, %f16, %f3;\n"               /* -3: 0xc0400000 */
        "copysign.f64 %fd5, %fd1, %fd2;\n"              /* +3 */
        "ld.global.u32 %r2, [tab]; ld.global.u32 %r3, [tab+4]; ld.global.u32 %r4, [tab+8];\n"
        "ld.global.u32 %r5, [tab+12]; ld.const.f64 %fd1, [dk]; ld.const.f64 %fd2, [dk+8];\n"
        "ld.global.f32 %f18, [one]; ld.global.b64 %rd4, [raw];\n"
        "st.global.f32 [%rd1], %f4; st.global.f32 [%rd1+4], %f5; st.global.f32 [%rd1+8], %f6;\n"
        "st.global.f32 [%rd1+12], %f7; st.global.f32 [%rd1+16], %f8; st.global.f32 [%rd1+20], %f9;\n"
        "st.global.f32 [%rd1+24], %f10; st.global.f32 [%rd1+28], %f11; st.global.f64 [%rd1+32], %fd3;\n"
        "st.global.f64 [%rd1+40], %fd4; st.global.f32 [%rd1+48], %f12; st.global.f32 [%rd1+52], %f13;\n"
        "st.global.f32 [%rd1+56], %f14; st.global.f32 [%rd1+60], %f15; st.global.f32 [%rd1+64], %f17;\n"
        "st.global.f64 [%rd1+72], %fd5; st.global.u32 [%rd1+80], %r2; st.global.u32 [%rd1+84], %r3;\n"
        "st.global.u32 [%rd1+88], %r4; st.global.u32 [%rd1+92], %r5; st.global.f64 [%rd1+96], %fd1;\n"
        "st.global.f64 [%rd1+104], %fd2; st.global.f32 [%rd1+112], %f18; st.global.b64 [%rd1+120], %rd4;\n"
        "ret;\n}\n";
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_U32, 32);
    Run R;
    char *err = NULL;
    if (!run_kernel(&R, src, 1, 32, -1, &out, 1, 0, &err))
        fprintf(stderr, "\n%s\n", err);
    const uint32_t *o = U32(out);
    static const uint32_t want32[] = { 0x3f800000u, 0x3f800001u, 0x3f7fffffu, 0x3eaaaaaau,
                                       0x3eaaaaabu, 0x3fddb3d8u, 0x3f800000u, 0x3f800001u };
    check_words(o, want32, G_N_ELEMENTS(want32));
    uint64_t d;
    memcpy(&d, o + 8, 8);
    CU_ASSERT_EQUAL(d, 0x3fd5555555555555ull);
    memcpy(&d, o + 10, 8);
    CU_ASSERT_EQUAL(d, 0x3fd5555555555556ull);
    CU_ASSERT_EQUAL(o[12], 0x3eaaaaaau);
    CU_ASSERT_EQUAL(o[13], 0x3eaaaaabu);
    CU_ASSERT_EQUAL(o[14], 0x4b800000u);
    CU_ASSERT_EQUAL(o[15], 0x4b800001u);
    CU_ASSERT_EQUAL(o[16], 0xc0400000u);
    memcpy(&d, o + 18, 8);
    CU_ASSERT_EQUAL(d, 0x4008000000000000ull);
    CU_ASSERT_EQUAL(o[20], 7);
    CU_ASSERT_EQUAL(o[21], 16);
    CU_ASSERT_EQUAL(o[22], 8);
    CU_ASSERT_EQUAL(o[23], 0xffffffffu);
    memcpy(&d, o + 24, 8);
    CU_ASSERT_EQUAL(d, 0x3ff8000000000000ull);
    memcpy(&d, o + 26, 8);
    CU_ASSERT_EQUAL(d, 0);                                 /* the rest of dk: zero */
    CU_ASSERT_EQUAL(o[28], 0x3f800000u);
    memcpy(&d, o + 30, 8);
    CU_ASSERT_EQUAL(d, 0x3fc00000ull);
    CU_ASSERT_EQUAL(fegetround(), FE_TONEAREST);           /* the host's mode is put back */
    run_free(&R);
}

/* A .func copied into its caller at each call: its formals stand for the caller's .param
 * variables (scoped: two callseqs both declare param0), a ret taken by some lanes only, a label
 * and a .local array of its own in each copy, a call nested in another. Then carry chains:
 * 64-bit arithmetic on 32-bit halves (add.cc/addc, sub.cc/subc borrowing), mad.lo.cc/madc.hi,
 * add.cc.u64; values worked by hand. */
static void test_calls_carry(void)
{
    const char *src = HEAD
        ".func (.param .b32 r) add1(.param .b32 a);\n"          /* declared first, as nvcc does */
        ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .b32 %r<30>; .reg .b64 %rd<8>; .reg .pred %p<2>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.u32 %r1, %tid.x;\n"
        "mul.wide.u32 %rd2, %r1, 8;\n"
        "add.u64 %rd3, %rd1, %rd2;\n"
        "{ .param .b32 param0; .param .b32 retval0;\n"
        "  st.param.b32 [param0], %r1;\n"
        "  call.uni (retval0), add1, (param0);\n"
        "  ld.param.b32 %r2, [retval0]; }\n"
        "add.u32 %r3, %r1, 8;\n"
        "{ .param .b32 param0; .param .b32 retval0;\n"
        "  st.param.b32 [param0], %r3;\n"
        "  call.uni (retval0), twice1, (param0);\n"
        "  ld.param.b32 %r4, [retval0]; }\n"
        "st.global.u32 [%rd3], %r2; st.global.u32 [%rd3+4], %r4;\n"
        "setp.ne.u32 %p1, %r1, 0;\n"
        "@%p1 bra DONE;\n"
        "add.cc.u32 %r10, 0xffffffff, 1;\n"             /* 0x1_ffffffff + 1 = 0x2_00000000 */
        "addc.u32 %r11, 1, 0;\n"
        "sub.cc.u32 %r12, %r10, 1;\n"                   /* - 1 = 0x1_ffffffff (a borrow) */
        "subc.u32 %r13, %r11, 0;\n"
        "mad.lo.cc.u32 %r14, 0xffffffff, 2, 3;\n"       /* 0x1_fffffffe + 3: lo 1, carry */
        "madc.hi.u32 %r15, 0xffffffff, 2, 0;\n"         /* hi 1 + 0 + carry = 2 */
        "add.cc.u64 %rd4, 0xffffffffffffffff, 2;\n"     /* 1, carry */
        "addc.cc.u64 %rd5, 0, 0;\n"                     /* 1, no carry */
        "addc.u64 %rd6, 0, 0;\n"                        /* 0 */
        "st.global.u32 [%rd1+256], %r10; st.global.u32 [%rd1+260], %r11;\n"
        "st.global.u32 [%rd1+264], %r12; st.global.u32 [%rd1+268], %r13;\n"
        "st.global.u32 [%rd1+272], %r14; st.global.u32 [%rd1+276], %r15;\n"
        "st.global.u64 [%rd1+280], %rd4; st.global.u64 [%rd1+288], %rd5; st.global.u64 [%rd1+296], %rd6;\n"
        "DONE:\n"
        "ret;\n}\n"
        ".func (.param .b32 r) add1(.param .b32 a)\n{\n"
        ".reg .b32 %r<3>; .reg .pred %p<2>;\n"
        "ld.param.b32 %r1, [a];\n"
        "setp.gt.u32 %p1, %r1, 10;\n"
        "@%p1 bra BIG;\n"
        "add.u32 %r2, %r1, 1;\n"
        "st.param.b32 [r], %r2;\n"
        "ret;\n"
        "BIG:\n"
        ".local .align 4 .b8 buf[8];\n"
        "st.local.u32 [buf+4], %r1; ld.local.u32 %r2, [buf+4];\n"
        "add.u32 %r2, %r2, 100;\n"
        "st.param.b32 [r], %r2;\n"
        "ret;\n}\n"
        ".func (.param .b32 r) twice1(.param .b32 a)\n{\n"
        ".reg .b32 %r<3>;\n"
        "ld.param.b32 %r1, [a];\n"
        "{ .param .b32 param0; .param .b32 retval0;\n"
        "  st.param.b32 [param0], %r1;\n"
        "  call (retval0), add1, (param0);\n"
        "  ld.param.b32 %r2, [retval0]; }\n"
        "shl.b32 %r2, %r2, 1;\n"
        "st.param.b32 [r], %r2;\n"
        "ret;\n}\n";
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_U32, 76);
    Run R;
    char *err = NULL;
    if (!run_kernel(&R, src, 1, 32, -1, &out, 1, 0, &err))
        fprintf(stderr, "\n%s\n", err);
    const uint32_t *o = U32(out);
    bool ok = true;
    for (uint32_t t = 0; t < 32; t++) {
        uint32_t a = t > 10 ? t + 100 : t + 1, u = t + 8, b = 2 * (u > 10 ? u + 100 : u + 1);
        if (o[2 * t] != a || o[2 * t + 1] != b) {
            fprintf(stderr, "\nthread %u: %u %u, want %u %u\n", t, o[2 * t], o[2 * t + 1], a, b);
            ok = false;
        }
    }
    CU_ASSERT(ok);
    CU_ASSERT_EQUAL(o[64], 0);
    CU_ASSERT_EQUAL(o[65], 2);
    CU_ASSERT_EQUAL(o[66], 0xffffffffu);
    CU_ASSERT_EQUAL(o[67], 1);
    CU_ASSERT_EQUAL(o[68], 1);
    CU_ASSERT_EQUAL(o[69], 2);
    uint64_t q;
    memcpy(&q, o + 70, 8);
    CU_ASSERT_EQUAL(q, 1);
    memcpy(&q, o + 72, 8);
    CU_ASSERT_EQUAL(q, 1);
    memcpy(&q, o + 74, 8);
    CU_ASSERT_EQUAL(q, 0);
    run_free(&R);
    /* a .shared variable declared in a function is one object: two calls count 1, 2; a
     * declaration marked .noreturn reads */
    const char *cnt = HEAD
        ".func (.param .b32 r) never(.param .b32 a) .noreturn;\n"
        ".func (.param .b32 r) cnt()\n"
        "{ .reg .b32 %r<3>; .shared .align 4 .u32 c;\n"
        "  ld.shared.u32 %r1, [c]; add.u32 %r2, %r1, 1; st.shared.u32 [c], %r2;\n"
        "  st.param.b32 [r], %r2; ret; }\n"
        ".visible .entry k(.param .u64 out)\n"
        "{ .reg .b32 %r<3>; .reg .b64 %rd1; ld.param.u64 %rd1, [out];\n"
        "  { .param .b32 q; call (q), cnt, (); ld.param.b32 %r1, [q]; }\n"
        "  { .param .b32 q; call (q), cnt, (); ld.param.b32 %r2, [q]; }\n"
        "  st.global.u32 [%rd1], %r1; st.global.u32 [%rd1+4], %r2; ret; }\n";
    PtxBuffer *two = ptx_buffer_new("out", PTX_D_U32, 2);
    if (!run_kernel(&R, cnt, 1, 1, -1, &two, 1, 0, &err))
        fprintf(stderr, "\n%s\n", err);
    CU_ASSERT_EQUAL(U32(two)[0], 1);
    CU_ASSERT_EQUAL(U32(two)[1], 2);
    run_free(&R);
    /* a function that calls itself, directly or not, and a call of an undefined one */
    static const BadCase bad[] = {
        { ".func f()\n{\ncall f;\nret;\n}\n.visible .entry k()\n{\ncall f;\nret;\n}\n",
          "t.ptx:6:6: function f calls itself (recursion is not in archsim's PTX subset)" },
        { ".extern .func (.param .b32 r) vprintg(.param .b64 a, .param .b64 b);\n"
          ".visible .entry k()\n{\n{ .param .b64 a; .param .b64 b; .param .b32 r;\n"
          "call (r), vprintg, (a, b); }\nret;\n}\n",
          "t.ptx:8:11: function vprintg is declared but not defined in this file (external "
          "functions other than vprintf and __assertfail are not in archsim's PTX subset)" },
        { ".extern .func (.param .b32 r) vprintf(.param .b64 a);\n"
          ".visible .entry k()\n{\n{ .param .b64 a; .param .b32 r;\n"
          "call (r), vprintf, (a); }\nret;\n}\n",
          "t.ptx:8:11: call of vprintf with 1 arguments and 1 results: CUDA's takes 2 and returns 1" },
        { ".extern .func (.param .b32 r) vprintf(.param .b64 a, .param .b32 b);\n"
          ".visible .entry k()\n{\n{ .param .b64 a; .param .b32 b; .param .b32 r;\n"
          "call (r), vprintf, (a, b); }\nret;\n}\n",
          "t.ptx:8:11: call of vprintf: argument 2 is not a .param of 8 bytes or more" },
        { ".func g(.param .b32 a)\n{\nret;\n}\n.visible .entry k()\n{\ncall g;\nret;\n}\n",
          "t.ptx:10:1: call of g with 0 arguments and 0 results: it takes 1 and returns 0" },
        { ".func g(.param .b64 a)\n{\nret;\n}\n.visible .entry k()\n{\n{ .param .b32 x;\n"
          "call g, (x); }\nret;\n}\n",
          "t.ptx:11:1: call of g: argument 1 has 4 bytes, the function's 8" },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        char *full = g_strconcat(HEAD, bad[i].body, NULL);
        GError *e = NULL;
        PtxModule *m = parse(full, &e);
        CU_ASSERT_PTR_NULL(m);
        if (!e) {
            fprintf(stderr, "\nno error for call case %zu\n", i);
            ptx_module_free(m);
        } else {
            if (strcmp(e->message, bad[i].msg))
                fprintf(stderr, "\ncall case %zu:\n got: %s\nwant: %s\n", i, e->message, bad[i].msg);
            CU_ASSERT_STRING_EQUAL(e->message, bad[i].msg);
            g_error_free(e);
        }
        g_free(full);
    }
}

/* .f16x2: each half on its own (low half first), setp's p|q per half, set's results by its
 * destination type, cvt.rn.f16x2.f32 packing a into the high half. Halves: 1.5 0x3e00, 2.25
 * 0x4080, -1 0xbc00, 3.75 0x4380, 0.5 0x3800. */
static void test_half2(void)
{
    const char *src2 = HEAD ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .pred %p<5>; .reg .b32 %r<28>; .reg .f32 %f<4>; .reg .b64 %rd<3>; .reg .b16 %rs<3>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.b32 %r1, 0x40803e00;\n"
        "mov.b32 %r2, 0x3800bc00;\n"
        "add.f16x2 %r3, %r1, %r2;\n"
        "mul.f16x2 %r4, %r1, %r2;\n"
        "fma.rn.f16x2 %r5, %r1, %r2, %r1;\n"
        "neg.f16x2 %r6, %r2;\n"
        "max.f16x2 %r7, %r1, %r6;\n"
        "setp.lt.f16x2 %p1|%p2, %r2, %r1;\n"
        "setp.gt.f16x2 %p3|%p4, %r2, %r1;\n"
        "selp.u32 %r8, 1, 0, %p1; selp.u32 %r9, 2, 0, %p2; selp.u32 %r10, 4, 0, %p3;\n"
        "selp.u32 %r11, 8, 0, %p4;\n"
        "add.u32 %r8, %r8, %r9; add.u32 %r8, %r8, %r10; add.u32 %r8, %r8, %r11;\n"
        "set.gt.f16x2.f16x2 %r12, %r1, %r6;\n"
        "mov.f32 %f1, 0f3F800000; mov.f32 %f2, 0f40700000;\n"   /* 1, 3.75 */
        "set.lt.u32.f32 %r13, %f1, %f2;\n"              /* 0xffffffff */
        "set.lt.f32.f32 %r14, %f2, %f1;\n"              /* 0 */
        "cvt.rn.f16x2.f32 %r15, %f2, %f1;\n"            /* {1, 3.75}: 0x43803c00 */
        "mov.b32 %r9, 0x80010001; mov.b32 %r10, 0;\n"    /* {+subnormal, -subnormal} */
        "add.ftz.f16x2 %r9, %r9, %r10;\n"               /* flushed: -0 + 0 is +0: 0 */
        "mov.b32 %r16, 0x00008000; mov.b32 %r17, 0x80000000;\n"   /* {-0, +0}, {+0, -0} */
        "min.f16x2 %r18, %r16, %r17;\n"                 /* -0 below +0: 0x80008000 */
        "max.bf16x2 %r19, %r16, %r17;\n"                /* 0 */
        "mov.b32 %r20, 0x7e01fe01; mov.b32 %r21, 0xfe013c00;\n"
        "min.f16x2 %r22, %r20, %r21;\n"                 /* {NaN,1}: 1; {NaN,NaN}: 0x7fff */
        "max.NaN.f16x2 %r23, %r20, %r21;\n"             /* both 0x7fff */
        "mov.b32 %r24, 0xbc003c00;\n"                   /* {1, -1} */
        "fma.rn.relu.f16x2 %r25, %r24, %r24, %r24;\n"   /* {1*1+1, -1*-1-1 = 0}: 0x00004000 */
        "set.lt.u32.f16x2 %r26, %r2, %r1;\n"            /* both halves true: 0xffffffff */
        "mov.f32 %f3, 0f7F7FFFFF;\n"                    /* FLT_MAX */
        "cvt.rz.bf16.f32 %rs1, %f3;\n"                  /* the largest bf16, not inf: 0x7f7f */
        "cvt.rn.bf16.f32 %rs2, %f3;\n"                  /* inf: 0x7f80 */
        "mov.b32 %r27, {%rs1, %rs2};\n"
        "st.global.u32 [%rd1], %r3; st.global.u32 [%rd1+4], %r4; st.global.u32 [%rd1+8], %r5;\n"
        "st.global.u32 [%rd1+12], %r6; st.global.u32 [%rd1+16], %r7; st.global.u32 [%rd1+20], %r8;\n"
        "st.global.u32 [%rd1+24], %r12; st.global.u32 [%rd1+28], %r13; st.global.u32 [%rd1+32], %r14;\n"
        "st.global.u32 [%rd1+36], %r15; st.global.u32 [%rd1+40], %r9; st.global.u32 [%rd1+44], %r18;\n"
        "st.global.u32 [%rd1+48], %r19; st.global.u32 [%rd1+52], %r22; st.global.u32 [%rd1+56], %r23;\n"
        "st.global.u32 [%rd1+60], %r25; st.global.u32 [%rd1+64], %r26; st.global.u32 [%rd1+68], %r27;\n"
        "ret;\n}\n";
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_U32, 18);
    Run R;
    char *err = NULL;
    if (!run_kernel(&R, src2, 1, 32, -1, &out, 1, 0, &err))
        fprintf(stderr, "\n%s\n", err);
    const uint32_t *o = U32(out);
    static const uint32_t want[] = { 0x41803800u, 0x3c80be00u, 0x42c00000u, 0xb8003c00u,
                                     0x40803e00u, 3, 0x3c003c00u, 0xffffffffu, 0, 0x43803c00u,
                                     0, 0x80008000u, 0, 0x7fff3c00u, 0x7fff7fffu, 0x00004000u,
                                     0xffffffffu, 0x7f807f7fu };
    check_words(o, want, G_N_ELEMENTS(want));
    run_free(&R);
}

/* bfloat16: 1.0625 x 1.0625 = 1.12890625 is the tie between 1.125 and 1.1328125, and 2^-80
 * more must round it up (a double first would make it a tie, to even: down); -2^-80 down; cvt
 * both ways; bf16x2 halves; the zero packed below a bfloat16 to widen it. */
static void test_bf16(void)
{
    const char *src = HEAD ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .b16 %rs<12>; .reg .b32 %r<8>; .reg .f32 %f<4>; .reg .b64 %rd<3>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.b16 %rs1, 0x3f88; mov.b16 %rs2, 0x1780; mov.b16 %rs3, 0x9780;\n"
        "fma.rn.bf16 %rs4, %rs1, %rs1, %rs2;\n"         /* up: 0x3f91 */
        "fma.rn.bf16 %rs5, %rs1, %rs1, %rs3;\n"         /* down: 0x3f90 */
        "mov.f32 %f1, 0f3F808000;\n"                    /* 1 + 2^-8: a tie, to even 1.0 */
        "cvt.rn.bf16.f32 %rs6, %f1;\n"                  /* 0x3f80 */
        "mov.f32 %f2, 0f3F818001;\n"                    /* just above the tie: 0x3f82 */
        "cvt.rn.bf16.f32 %rs7, %f2;\n"
        "cvt.f32.bf16 %f3, %rs4;\n"                     /* 0x3f910000 */
        "mov.b32 %r1, {0, %rs5};\n"                     /* 0x3f900000 */
        "mov.b32 %r2, 0x40003f80;\n"                    /* {1, 2} */
        "fma.rn.bf16x2 %r3, %r2, %r2, %r2;\n"           /* {2, 6}: 0x40c04000 */
        "cvt.rn.bf16x2.f32 %r4, %f1, %f2;\n"            /* a high: {0x3f82, 0x3f80} */
        "mov.b32 %r5, {%rs4, %rs5};\n"
        "mov.b32 %r6, {%rs6, %rs7};\n"
        "st.global.u32 [%rd1], %r5; st.global.u32 [%rd1+4], %r6; st.global.f32 [%rd1+8], %f3;\n"
        "st.global.u32 [%rd1+12], %r1; st.global.u32 [%rd1+16], %r3; st.global.u32 [%rd1+20], %r4;\n"
        "ret;\n}\n";
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_U32, 6);
    Run R;
    char *err = NULL;
    if (!run_kernel(&R, src, 1, 32, -1, &out, 1, 0, &err))
        fprintf(stderr, "\n%s\n", err);
    const uint32_t *o = U32(out);
    static const uint32_t want[] = { 0x3f903f91u, 0x3f823f80u, 0x3f910000u, 0x3f900000u,
                                     0x40c04000u, 0x3f803f82u };
    check_words(o, want, G_N_ELEMENTS(want));
    run_free(&R);
}

/* bfind (the ISA's examples: the top 1 of unsigned, the top bit unlike the sign of signed,
 * 0xffffffff for none, .shiftamt counting from the msb), redux.sync over the whole warp and
 * over the half of it that took a branch (lane i holds i), sad and dp4a worked by hand. */
static void test_bfind_redux(void)
{
    const char *src = HEAD ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .pred %p<2>; .reg .b32 %r<24>; .reg .b64 %rd<6>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.u32 %r1, %tid.x;\n"
        "bfind.u32 %r2, 0x00010000;\n"                  /* 16 */
        "bfind.u32 %r3, 0;\n"                           /* 0xffffffff */
        "bfind.s32 %r4, -1;\n"                          /* 0xffffffff */
        "bfind.s32 %r5, -2;\n"                          /* 0 */
        "bfind.s32 %r6, 0x40000000;\n"                  /* 30 */
        "bfind.shiftamt.u32 %r7, 1;\n"                  /* 31 */
        "mov.u64 %rd2, 0x10000000000;\n"
        "bfind.u64 %r8, %rd2;\n"                        /* 40 */
        "redux.sync.add.u32 %r9, %r1, 0xffffffff;\n"    /* 496 */
        "sub.s32 %r10, %r1, 16;\n"
        "redux.sync.min.s32 %r11, %r10, 0xffffffff;\n"  /* -16 */
        "redux.sync.max.u32 %r12, %r1, 0xffffffff;\n"   /* 31 */
        "or.b32 %r13, %r1, 0x100;\n"
        "redux.sync.and.b32 %r14, %r13, 0xffffffff;\n"  /* 0x100 */
        "redux.sync.or.b32 %r15, %r13, 0xffffffff;\n"   /* 0x11f */
        "redux.sync.xor.b32 %r16, %r1, 0xffffffff;\n"   /* 0 */
        "mov.u32 %r17, 0;\n"
        "setp.lt.u32 %p1, %r1, 16;\n"
        "@!%p1 bra SKIP;\n"
        "redux.sync.add.u32 %r17, %r1, 0xffff;\n"       /* lanes 0-15: 120 */
        "SKIP:\n"
        "redux.sync.max.u32 %r18, %r17, 0xffffffff;\n"  /* 120 */
        "sad.s32 %r19, -5, 7, 1;\n"                     /* 13 */
        "sad.u32 %r20, 3, 10, 100;\n"                   /* 107 */
        "dp4a.s32.u32 %r21, 0x01ff02fe, 0x03040506, 10;\n"   /* 10 + 6*-2 + 5*2 + 4*-1 + 3*1 = 7 */
        "dp4a.u32.u32 %r22, 0xffffffff, 0x01010101, 0;\n"    /* 4 * 255 = 1020 */
        "setp.eq.u32 %p1, %r1, 0;\n"
        "@!%p1 bra DONE;\n"
        "st.global.u32 [%rd1], %r2; st.global.u32 [%rd1+4], %r3; st.global.u32 [%rd1+8], %r4;\n"
        "st.global.u32 [%rd1+12], %r5; st.global.u32 [%rd1+16], %r6; st.global.u32 [%rd1+20], %r7;\n"
        "st.global.u32 [%rd1+24], %r8; st.global.u32 [%rd1+28], %r9; st.global.u32 [%rd1+32], %r11;\n"
        "st.global.u32 [%rd1+36], %r12; st.global.u32 [%rd1+40], %r14; st.global.u32 [%rd1+44], %r15;\n"
        "st.global.u32 [%rd1+48], %r16; st.global.u32 [%rd1+52], %r18; st.global.u32 [%rd1+56], %r19;\n"
        "st.global.u32 [%rd1+60], %r20; st.global.u32 [%rd1+64], %r21; st.global.u32 [%rd1+68], %r22;\n"
        "DONE:\n"
        "ret;\n}\n";
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_U32, 18);
    Run R;
    char *err = NULL;
    if (!run_kernel(&R, src, 1, 32, -1, &out, 1, 0, &err))
        fprintf(stderr, "\n%s\n", err);
    const uint32_t *o = U32(out);
    static const uint32_t want[] = { 16, 0xffffffffu, 0xffffffffu, 0, 30, 31, 40, 496,
                                     (uint32_t)-16, 31, 0x100, 0x11f, 0, 120, 13, 107, 7, 1020 };
    check_words(o, want, G_N_ELEMENTS(want));
    run_free(&R);
}

/* wmma on one warp: A (16x16, row-major) times B (column-major, a permutation matrix with a
 * shift, so that a transposed B shows) plus 0.5, stored row-major: D[i][j] = A[i][j] + 2
 * A[i][(j+3) % 16] + 0.5 exactly; what the SM sees (one 16-byte load of A a lane, two tensor
 * instructions, two 16-byte stores a lane); and the run-time errors: fewer than 32 lanes, a
 * misaligned matrix, lanes that disagree on the address; and bfloat16 under sm_75. */
static void test_wmma(void)
{
    const char *src = HEAD OUT_PARAM "{\n"
        ".reg .b32 %r<20>; .reg .f32 %f<12>; .reg .b64 %rd<6>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];\n"
        "add.s64 %rd2, %rd1, 512;\n"
        "wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, [%rd2], 16;\n"
        "mov.f32 %f1, 0f3F000000;\n"
        "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9}, "
        "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, "
        "{%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};\n"
        "add.s64 %rd3, %rd1, 1024;\n"
        "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd3], {%f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9}, 16;\n"
        "ret;\n}\n";
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_U32, 512);
    uint16_t *h = (uint16_t *)(void *)out->data;
    static const uint16_t small[7] = { 0xc200, 0xc000, 0xbc00, 0, 0x3c00, 0x4000, 0x4200 }; /* -3..3 */
    for (int i = 0; i < 16; i++)
        for (int k = 0; k < 16; k++) {
            h[i * 16 + k] = small[(i * 16 + k) % 7];                     /* A[i][k] */
            h[256 + k * 16 + i] = (uint16_t)((k == i ? 0x3c00 : 0) |     /* B[i][k] at k*16+i */
                                             (i == (k + 3) % 16 ? 0x4000 : 0));
        }
    Run R;
    char *err = NULL;
    if (!run_kernel(&R, src, 1, 32, 0, &out, 1, 0, &err))
        fprintf(stderr, "\n%s\n", err);
    CU_ASSERT_PTR_NULL(err);
    const float *d = (const float *)(const void *)(out->data + 1024);
    int bad = 0;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++)
            bad += d[i * 16 + j] != (float)((i * 16 + j) % 7 - 3) +
                                    2.0f * (float)((i * 16 + (j + 3) % 16) % 7 - 3) + 0.5f;
    CU_ASSERT_EQUAL(bad, 0);
    uint32_t mask = 0;
    CU_ASSERT_EQUAL(count_at(&R, 0, 0, 1, &mask), 2);           /* A: 16 bytes a lane, in two
                                                                   records of four registers */
    CU_ASSERT_EQUAL(count_at(&R, 0, 0, 5, &mask), 2);           /* two HMMA */
    CU_ASSERT_EQUAL(count_at(&R, 0, 0, 7, &mask), 2);           /* D: 32 bytes a lane */
    const SassBlock *b = g_ptr_array_index(R.blocks, 0);
    const SassInst *ins = sass_warp_insts(b, 0);
    uint32_t named = 0;
    for (uint32_t i = 0; i < b->warps[0].n; i++) {
        if (ins[i].pc == 1 * 16) {
            CU_ASSERT_EQUAL(ins[i].width, 8);
            CU_ASSERT_EQUAL(b->warps[0].addrs[ins[i].addr + 1] - b->warps[0].addrs[ins[i].addr], 16);
            named += ins[i].ndst;
        }
        if (ins[i].pc == 5 * 16)
            CU_ASSERT_EQUAL(ins[i].unit, GPU_UNIT_TENSOR);
    }
    CU_ASSERT_EQUAL(named, 8);                                  /* every register A fills */
    uint8_t first[2048];                                        /* A and B, then D */
    memcpy(first, out->data, 2048);
    run_free(&R);
    /* the same with A's second copies of its elements sunk ('_') and a scalar load written as a
     * one-register vector, as ptxas takes both: the same D */
    char *sink = g_strdup(src);
    const char *full8 = "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];";
    memcpy(strstr(sink, full8), "{%r1, %r2, %r3, %r4, _,   _,   _,   _  }, [%rd1];", strlen(full8));
    char *sink2 = g_strconcat(HEAD OUT_PARAM "{\n.reg .b32 %r<20>; .reg .f32 %f<12>; "
                              ".reg .b64 %rd<6>;\nld.param.u64 %rd1, [out];\n"
                              "ld.global.u32 {%r19}, [%rd1];\n",
                              strstr(sink, "wmma.load.a"), NULL);
    PtxBuffer *out2 = ptx_buffer_new("out", PTX_D_U32, 512);
    memcpy(out2->data, first, 1024);
    if (!run_kernel(&R, sink2, 1, 32, 0, &out2, 1, 0, &err))
        fprintf(stderr, "\n%s\n", err);
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_EQUAL(memcmp(out2->data + 1024, first + 1024, 1024), 0);
    run_free(&R);
    g_free(sink);
    g_free(sink2);
    /* half a warp */
    out = ptx_buffer_new("out", PTX_D_U32, 512);
    CU_ASSERT_FALSE(run_kernel(&R, src, 1, 16, 0, &out, 1, 0, &err));
    CU_ASSERT_STRING_EQUAL(err, "t.ptx:8:1: wmma runs on the whole warp: all 32 lanes, converged "
                           "(lanes 0x0000ffff run it) (block (0,0,0), thread (0,0,0))");
    g_free(err);
    run_free(&R);
    /* a matrix 16 bytes off its 32-byte alignment; lanes with their own addresses */
    char *mis = g_strdup(src);
    memcpy(strstr(mis, "add.s64 %rd2, %rd1, 512"), "add.s64 %rd2, %rd1, 528", 23);
    out = ptx_buffer_new("out", PTX_D_U32, 512);
    CU_ASSERT_FALSE(run_kernel(&R, mis, 1, 32, 0, &out, 1, 0, &err));
    CU_ASSERT_STRING_EQUAL(err, "t.ptx:10:1: wmma: the matrix at 0x200000210 with a stride of 16 "
                           "elements: the address must be a multiple of 32 bytes and the stride of "
                           "16 bytes (8 elements) (block (0,0,0), thread (0,0,0))");
    g_free(err);
    run_free(&R);
    g_free(mis);
    const char *own = HEAD OUT_PARAM "{\n"
        ".reg .b32 %r<10>; .reg .b64 %rd<6>;\n"
        "ld.param.u64 %rd1, [out]; mov.u32 %r9, %laneid; mul.wide.u32 %rd2, %r9, 32;\n"
        "add.s64 %rd3, %rd1, %rd2;\n"
        "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd3];\n"
        "ret;\n}\n";
    out = ptx_buffer_new("out", PTX_D_U32, 512);
    CU_ASSERT_FALSE(run_kernel(&R, own, 1, 32, 0, &out, 1, 0, &err));
    CU_ASSERT_STRING_EQUAL(err, "t.ptx:9:1: wmma: every lane gives the same address and stride "
                           "(lane 0: 0x200000000, 16; lane 1: 0x200000020, 16) (block (0,0,0), "
                           "thread (1,0,0))");
    g_free(err);
    run_free(&R);
    GError *e = NULL;
    PtxModule *m = parse(".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n"
                         ".reg .b32 %r<5>; .reg .b64 %rd<2>;\n"
                         "wmma.load.a.sync.aligned.row.m16n16k16.bf16 {%r1, %r2, %r3, %r4}, [%rd1];\n"
                         "ret;\n}\n", &e);
    CU_ASSERT_PTR_NULL(m);
    CU_ASSERT_STRING_EQUAL(e ? e->message : "", "t.ptx:7:1: 'wmma.load.a.sync.aligned.row.m16n16k16"
                           ".bf16' needs .target sm_80 or higher");
    if (e)
        g_error_free(e);
}

/* cp.async: 16-, 8- and 4-byte copies into shared memory with src-size (the rest zero) and
 * ignore-src, read back after the wait; the records the SM sees (a global load of cp-size bytes
 * a lane; the wait's group count); a source past its buffer's end by its src-size; trap. */
static void test_cp_async(void)
{
    const char *src = HEAD ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n"
        ".reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<8>; .shared .align 16 .b8 s[1024];\n"
        "ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [in];\n"
        "mov.u32 %r1, %tid.x; shl.b32 %r2, %r1, 4; mov.u32 %r3, s; add.s32 %r4, %r3, %r2;\n"
        "mul.wide.u32 %rd3, %r1, 16; add.s64 %rd4, %rd2, %rd3;\n"
        "and.b32 %r5, %r1, 7;\n"                          /* src-size 0..14, even */
        "shl.b32 %r6, %r5, 1;\n"
        "cp.async.cg.shared.global [%r4], [%rd4], 16, %r6;\n"
        "setp.eq.u32 %p1, %r5, 3;\n"
        "add.s32 %r7, %r4, 512;\n"
        "cp.async.ca.shared.global.L2::128B [%r7], [%rd4], 8, %p1;\n"    /* ignore-src on lane 3 */
        "add.s32 %r8, %r4, 520;\n"
        "cp.async.ca.shared.global [%r8], [%rd4+8], 4;\n"
        "cp.async.commit_group;\n"
        "cp.async.wait_group 0;\n"
        "cp.async.wait_all;\n"
        "bar.sync 0;\n"
        "mul.wide.u32 %rd5, %r1, 4; add.s64 %rd6, %rd1, %rd5;\n"
        "ld.shared.u32 %r9, [s+0]; ld.shared.u32 %r10, [%r4+4]; ld.shared.u32 %r11, [%r7];\n"
        "mul.wide.u32 %rd7, %r1, 12; add.s64 %rd6, %rd1, %rd7;\n"
        "st.global.u32 [%rd6], %r10; st.global.u32 [%rd6+4], %r11;\n"
        "ld.shared.u32 %r11, [%r8]; st.global.u32 [%rd6+8], %r11;\n"
        "ret;\n}\n";
    PtxBuffer *bufs[2] = { ptx_buffer_new("out", PTX_D_U32, 96), ptx_buffer_new("in", PTX_D_U32, 128) };
    for (uint32_t i = 0; i < 128; i++)
        ((uint32_t *)(void *)bufs[1]->data)[i] = 0x1000u + i;
    Run R;
    char *err = NULL;
    if (!run_kernel(&R, src, 1, 32, -1, bufs, 2, 0, &err))
        fprintf(stderr, "\n%s\n", err);
    CU_ASSERT_PTR_NULL(err);
    const uint32_t *o = U32(bufs[0]);
    int bad = 0;
    for (uint32_t t = 0; t < 32; t++) {
        uint32_t ss = (t % 8) * 2;                     /* bytes read of 16 */
        uint32_t w1 = 0x1000u + 4 * t + 1;              /* word 1 of the lane's 16 bytes */
        uint32_t want1 = ss >= 8 ? w1 : ss == 6 ? (w1 & 0xffff) : 0;
        bad += o[3 * t] != want1;
        bad += o[3 * t + 1] != (t % 8 == 3 ? 0u : 0x1000u + 4 * t);       /* ignore-src */
        bad += o[3 * t + 2] != 0x1000u + 4 * t + 2;
    }
    CU_ASSERT_EQUAL(bad, 0);
    const SassBlock *b = g_ptr_array_index(R.blocks, 0);
    const SassInst *ins = sass_warp_insts(b, 0);
    int copies = 0, waits = 0;
    for (uint32_t i = 0; i < b->warps[0].n; i++) {
        uint32_t pc = ins[i].pc / 16;                  /* the three cp.async: 10, 13, 15 */
        if (pc == 10 || pc == 13 || pc == 15) {
            copies++;
            CU_ASSERT_EQUAL(ins[i].width, pc == 10 ? 16 : pc == 13 ? 8 : 4);
            CU_ASSERT_EQUAL(ins[i].space, SASS_SPACE_GLOBAL);
            CU_ASSERT_EQUAL(ins[i].ndst, 0);
            const uint64_t *ad = &b->warps[0].addrs[ins[i].addr];
            CU_ASSERT_EQUAL(ad[2] - ad[1], 16);
            /* lane 0 reads nothing at 10 (src-size 0): it takes lane 1's address, no traffic */
            CU_ASSERT(pc == 10 ? ad[0] == ad[1] : ad[1] - ad[0] == 16);
        }
        if (pc == 17 || pc == 18) {                     /* wait_group 0, wait_all */
            CU_ASSERT(ins[i].has_imm);
            CU_ASSERT_EQUAL(ins[i].imm, pc == 17 ? 0 : -1);
            waits++;
        }
    }
    CU_ASSERT_EQUAL(copies, 3);
    CU_ASSERT_EQUAL(waits, 2);
    run_free(&R);
    /* 8 bytes read at the last 4 of the buffer */
    const char *past = HEAD ".visible .entry k(.param .u64 in)\n{\n"
        ".reg .b64 %rd<3>; .shared .align 16 .b8 s[64];\n"
        "ld.param.u64 %rd1, [in];\n"
        "cp.async.ca.shared.global [s], [%rd1+504], 8, 8;\n"
        "cp.async.ca.shared.global [s+8], [%rd1+504], 8;\n"
        "ret;\n}\n";
    PtxBuffer *in = ptx_buffer_new("in", PTX_D_U32, 127);
    CU_ASSERT_FALSE(run_kernel(&R, past, 1, 32, -1, &in, 1, 0, &err));
    CU_ASSERT_STRING_EQUAL(err, "t.ptx:8:1: global access of 1 bytes at 0x2000001ff is outside "
                           "every buffer (3 bytes past the end of in, 508 bytes at 0x200000000) "
                           "(block (0,0,0), thread (0,0,0))");
    g_free(err);
    run_free(&R);
    char *four = g_strdup(past);
    memcpy(strstr(four, "8, 8;"), "8, 4;", 5);                 /* 4 bytes of 8: in bounds */
    *strstr(four, "cp.async.ca.shared.global [s+8]") = '\0';
    char *whole = g_strconcat(four, "ret;\n}\n", NULL);
    in = ptx_buffer_new("in", PTX_D_U32, 127);
    CU_ASSERT_TRUE(run_kernel(&R, whole, 1, 32, -1, &in, 1, 0, &err));
    run_free(&R);
    g_free(four);
    g_free(whole);
    const char *trap = HEAD OUT_PARAM "{\n.reg .pred %p<2>; .reg .b32 %r<2>;\n"
        "mov.u32 %r1, %tid.x; setp.eq.u32 %p1, %r1, 5;\n@%p1 trap;\nret;\n}\n";
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_U32, 1);
    CU_ASSERT_FALSE(run_kernel(&R, trap, 1, 32, 0, &out, 1, 0, &err));
    CU_ASSERT_STRING_EQUAL(err, "t.ptx:8:6: the kernel executed trap (an abort: __trap() or a "
                           "failed assertion) (block (0,0,0), thread (5,0,0))");
    g_free(err);
    run_free(&R);
}

/* mma.sync and ldmatrix on one warp, against hand-worked values: A (16 x 16) with A[i][k] =
 * i - k in halves, B the identity plus 2 on the diagonal below (B[k][n] = [k == n] + 2 [k == n +
 * 1]), so D[i][n] = A[i][n] + 2 A[i][n+1] + C (C = 1): 3i - 3n - 3; B read from k-major rows
 * with ldmatrix.trans. Then the run-time errors: half a warp, an ldmatrix row in global memory. */
static void test_mma(void)
{
    const char *src = HEAD ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .b32 %r<16>; .reg .f32 %f<8>; .reg .b64 %rd<6>;\n"
        ".shared .align 16 .b8 sa[512]; .shared .align 16 .b8 sb[256];\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.u32 %r1, %laneid;\n"
        /* lane l: A's row l % 16, half l / 16 (8 elements); B's row l % 16 */
        "and.b32 %r2, %r1, 15; shl.b32 %r3, %r2, 5; shr.u32 %r4, %r1, 4; shl.b32 %r5, %r4, 4;\n"
        "add.s32 %r6, %r3, %r5; mov.u32 %r7, sa; add.s32 %r8, %r7, %r6;\n"
        "shl.b32 %r9, %r2, 4; mov.u32 %r10, sb; add.s32 %r11, %r10, %r9;\n"
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r12, %r13, %r14, %r15}, [%r8];\n"
        "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r2, %r3}, [%r11];\n"
        "mov.f32 %f1, 0f3F800000;\n"
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f2, %f3, %f4, %f5}, "
        "{%r12, %r13, %r14, %r15}, {%r2, %r3}, {%f1, %f1, %f1, %f1};\n"
        "mul.wide.u32 %rd2, %r1, 16; add.s64 %rd3, %rd1, %rd2;\n"
        "st.global.v4.f32 [%rd3], {%f2, %f3, %f4, %f5};\n"
        "ret;\n}\n";
    Run R;
    /* A and B are written into shared memory by stores put before the first ldmatrix */
    GString *full = g_string_new(NULL);
    const char *body = strstr(src, "ldmatrix");
    g_string_append_len(full, src, body - src);
    for (int i = 0; i < 16; i++)
        for (int k = 0; k < 16; k++) {
            uint16_t h = ptx_half_of_double((double)(i - k));
            g_string_append_printf(full, "st.shared.u16 [sa+%d], %u;\n", 2 * (i * 16 + k), h);
        }
    for (int k = 0; k < 16; k++)
        for (int n = 0; n < 8; n++) {
            double v = (k == n) + 2.0 * (k == n + 1);
            g_string_append_printf(full, "st.shared.u16 [sb+%d], %u;\n", 2 * (k * 8 + n),
                                   ptx_half_of_double(v));
        }
    g_string_append(full, "bar.warp.sync 0xffffffff;\n");
    g_string_append(full, body);
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_F32, 128);
    char *err = NULL;
    if (!run_kernel(&R, full->str, 1, 32, -1, &out, 1, 0, &err))
        fprintf(stderr, "\n%s\n", err);
    CU_ASSERT_PTR_NULL(err);
    const float *o = (const float *)(const void *)out->data;
    int bad = 0;
    for (int l = 0; l < 32; l++)
        for (int i = 0; i < 4; i++) {
            int row = l / 4 + 8 * (i / 2), col = 2 * (l % 4) + i % 2;
            double want = (row - col) + 2.0 * (row - col - 1) + 1.0;
            bad += o[4 * l + i] != (float)want;
        }
    CU_ASSERT_EQUAL(bad, 0);
    const SassBlock *b = g_ptr_array_index(R.blocks, 0);
    const SassInst *ins = sass_warp_insts(b, 0);
    int tensor = 0, ldsm = 0;
    for (uint32_t i = 0; i < b->warps[0].n; i++) {
        tensor += ins[i].unit == GPU_UNIT_TENSOR;
        if (ins[i].unit == GPU_UNIT_LDST && ins[i].width == 16 && ins[i].space == SASS_SPACE_SHARED)
            ldsm++;
    }
    CU_ASSERT_EQUAL(tensor, 1);
    CU_ASSERT_EQUAL(ldsm, 2);
    run_free(&R);
    out = ptx_buffer_new("out", PTX_D_F32, 128);
    CU_ASSERT_FALSE(run_kernel(&R, full->str, 1, 16, -1, &out, 1, 0, &err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err ? err : "", "ldmatrix runs on the whole warp: all 32 lanes, "
                                  "converged (lanes 0x0000ffff run it)"));
    g_free(err);
    run_free(&R);
    g_string_free(full, TRUE);
    const char *glob = HEAD ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .b32 %r<2>; .reg .b64 %rd<2>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "ldmatrix.sync.aligned.m8n8.x1.b16 {%r1}, [%rd1];\n"
        "ret;\n}\n";
    out = ptx_buffer_new("out", PTX_D_F32, 128);
    CU_ASSERT_FALSE(run_kernel(&R, glob, 1, 32, -1, &out, 1, 0, &err));
    CU_ASSERT_STRING_EQUAL(err, "t.ptx:8:1: ldmatrix reads shared memory; 0x200000000 is global "
                           "(block (0,0,0), thread (0,0,0))");
    g_free(err);
    run_free(&R);
}

/* match.any/.all.sync (values and the .all predicate), nanosleep and %globaltimer (they run),
 * dp2a.lo/.hi with each signedness, and atomic adds of a half and a pair of halves from 32
 * lanes (atomicAdd on __half, __half2) */
static void test_match_half_atomics(void)
{
    const char *src = HEAD ".visible .entry k(.param .u64 out)\n{\n"
        ".reg .pred %p<3>; .reg .b32 %r<22>; .reg .b64 %rd<6>; .reg .b16 %rs<3>;\n"
        "ld.param.u64 %rd1, [out];\n"
        "mov.u32 %r1, %laneid; and.b32 %r2, %r1, 3;\n"
        "match.any.sync.b32 %r3, %r2, 0xffffffff;\n"
        "mov.u32 %r4, 7;\n"
        "match.all.sync.b32 %r5|%p1, %r4, 0xffffffff;\n"
        "match.all.sync.b32 %r6|%p2, %r2, 0xffffffff;\n"
        "selp.u32 %r7, 1, 0, %p1; selp.u32 %r8, 1, 0, %p2;\n"
        "nanosleep.u32 100;\n"
        "mov.u64 %rd2, %globaltimer;\n"
        "add.s64 %rd3, %rd1, 32; mov.b16 %rs1, 0x3C00;\n"
        "atom.global.add.noftz.f16 %rs2, [%rd3], %rs1;\n"
        "add.s64 %rd4, %rd1, 36; mov.b32 %r9, 0x40003800;\n"
        "red.global.add.noftz.f16x2 [%rd4], %r9;\n"
        "setp.ne.u32 %p1, %r1, 5;\n"
        "@%p1 bra DONE;\n"
        "st.global.u32 [%rd1], %r3; st.global.u32 [%rd1+4], %r5; st.global.u32 [%rd1+8], %r6;\n"
        "st.global.u32 [%rd1+12], %r7; st.global.u32 [%rd1+16], %r8;\n"
        "dp2a.lo.s32.u32 %r10, 0xfffe0003, 0x0000ff02, 5;\n"     /* 5 + 3 x 2 - 2 x 255 */
        "dp2a.hi.u32.s32 %r11, 0x00020001, 0x80ff0000, 0;\n"     /* 1 x -1 + 2 x -128 */
        "st.global.u32 [%rd1+20], %r10; st.global.u32 [%rd1+24], %r11;\n"
        /* bytes (lane 0 first) a: 1, 127, -1 / 255, -128 / 128; b: 127, -128 / 128, 1, 127 */
        "mov.b32 %r16, 0x80ff7f01; mov.b32 %r17, 0x7f01807f; mov.b32 %r18, 0;\n"
        "mov.b32 %r19, 0x8000ffff; mov.b32 %r20, 0x7fff0001; mov.b32 %r21, 10;\n"
        "vabsdiff4.u32.s32.s32 %r12, %r16, %r17, %r18;\n"
        "vabsdiff4.s32.s32.s32.sat %r13, %r16, %r17, %r18;\n"
        "vabsdiff4.u32.u32.u32 %r14, %r16, %r17, %r18;\n"
        "vabsdiff2.s32.s32.s32.add %r15, %r19, %r20, %r21;\n"
        "st.global.u32 [%rd1+40], %r12; st.global.u32 [%rd1+44], %r13;\n"
        "st.global.u32 [%rd1+48], %r14; st.global.u32 [%rd1+52], %r15;\n"
        "DONE:\n"
        "ret;\n}\n";
    PtxBuffer *out = ptx_buffer_new("out", PTX_D_U32, 14);
    Run R;
    char *err = NULL;
    if (!run_kernel(&R, src, 1, 32, -1, &out, 1, 0, &err))
        fprintf(stderr, "\n%s\n", err);
    CU_ASSERT_PTR_NULL(err);
    const uint32_t *o = U32(out);
    /* lane 5: the lanes with lane % 4 == 1; all 32 agree on 7; they do not on lane % 4; 32 x 1.0
     * = 32.0 (0x5000); 32 x (0.5, 2.0) = (16.0, 64.0) */
    static const uint32_t want[] = { 0x22222222u, 0xffffffffu, 0, 1, 0, (uint32_t)-499,
                                     (uint32_t)-257, 0, 0x5000u, 0x54004c00u,
                                     /* vabsdiff4: |1-127| 126, |127+128| 255, |-1-1| 2,
                                      * |-128-127| 255; .sat to a signed byte: 127; unsigned
                                      * lanes: 126, 1, 254, 1; vabsdiff2.add: 10 + |-1-1| +
                                      * |-32768-32767| = 65547 */
                                     0xff02ff7eu, 0x7f027f7eu, 0x01fe017eu, 65547u };
    check_words(o, want, G_N_ELEMENTS(want));
    run_free(&R);
}

/* A double to a half, rounded once to nearest even with subnormals kept: the references are
 * Python's struct.pack('<e', x) (PyFloat_Pack2 rounds from the double; overflow to infinity).
 * Through float first, 1 + 2^-11 + 2^-40 rounded twice to 0x3c00; f16 initial data flushed
 * 1e-5 to 0. */
static void test_half_rounding(void)
{
    static const struct {
        double d;
        uint16_t h;
    } v[] = {
    { 1.0004882812509095, 0x3c01 },
    { 1e-05, 0x00a8 },
    { -1e-05, 0x80a8 },
    { 65504.0, 0x7bff },
    { 65519.99, 0x7bff },
    { 65520.0, 0x7c00 },
    { 6e-08, 0x0001 },
    { 2.9e-08, 0x0000 },
    { 3e-08, 0x0001 },
    { 6.103515625e-05, 0x0400 },
    { 6.1035e-05, 0x0400 },
    { 1.00048828125, 0x3c00 },
    { 1.00146484375, 0x3c02 },
    { 0.1, 0x2e66 },
    { -2.5, 0xc100 },
    { 1e-30, 0x0000 },
    { 3.14159265358979, 0x4248 },
    { -24.663412923357267, 0xce2a },
    { -14724.710500755711, 0xf331 },
    { -59858.91986654401, 0xfb4f },
    { -18803.551632238028, 0xf497 },
    { 57.35856884003432, 0x532b },
    { -0.0006475060781812212, 0x914e },
    { -11.455898808093677, 0xc9ba },
    { -0.0005730017813185889, 0x90b2 },
    { -61724.52914894152, 0xfb89 },
    { 62642.958099048235, 0x7ba6 },
    { 0.00010794412806449807, 0x0713 },
    { -63.057496125431996, 0xd3e2 },
    { -63.47842471351412, 0xd3ef },
    { -29.454699913565324, 0xcf5d },
    { 0.005696023974499941, 0x1dd5 },
    { 8.436018781793784, 0x4838 },
    { -55.57220025789721, 0xd2f2 },
    { -17864.344018397627, 0xf45d },
    { 9.011561038674133, 0x4881 },
    { -5.019706841111474e-06, 0x8054 },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(v); i++) {
        uint16_t h = ptx_half_of_double(v[i].d);
        CU_ASSERT_EQUAL(h, v[i].h);
        if (h != v[i].h)
            fprintf(stderr, "\n%.17g: 0x%04x, want 0x%04x\n", v[i].d, h, v[i].h);
    }
    CU_ASSERT_EQUAL(ptx_half_of_double(NAN) & 0x7c00, 0x7c00);
    CU_ASSERT_EQUAL(ptx_half_of_double(-0.0), 0x8000);
    CU_ASSERT_EQUAL(ptx_half_of_double(-INFINITY), 0xfc00);
}

/* ---- the launch YAML ---- */

static void test_launch_yaml(void)
{
    char *ptx = g_build_filename(tdir, "k.ptx", NULL);
    CU_ASSERT_FATAL(g_file_set_contents(ptx, HEAD ".visible .entry k(.param .u32 n, .param .f32 a, "
                                        ".param .u64 x)\n{\nret;\n}\n", -1, NULL));
    struct { const char *yaml, *msg; } cases[] = {
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nbuffers:\n  x: {dtype: f32, count: 4, init: iota}\n"
          "params: [4, 2.5, x]\n", NULL },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nparams: [4, 2.5]\n",
          "@/l.yaml:4:9: params: k takes 3 parameters, the launch gives 2" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [2048]\nparams: [1, 1, 1]\n",
          "@/l.yaml:3:9: block: expected a whole number from 0 to 1024, got '2048'" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nbuffers:\n  x: {dtype: f33, count: 4}\nparams: [1, 1, x]\n",
          "@/l.yaml:5:14: buffer x: dtype: expected f32, f64, f16, bf16, s32, u32, s64, u64 or u8" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nbuffers:\n  x: {dtype: f32, count: 4, init: rand}\n"
          "params: [1, 1, x]\n",
          "@/l.yaml:5:35: init: 'rand': expected zero, iota, const:V, random:SEED[:LO:HI] or "
          "file:PATH" },
        /* random:SEED:LO:HI, its range wrong or on an integer buffer; a negative seed (strtoull
         * took it, wrapped) */
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nbuffers:\n  x: {dtype: f32, count: 4, init: random:1:2}\n"
          "params: [1, 1, x]\n",
          "@/l.yaml:5:35: init: random:SEED:LO:HI needs two numbers after the seed, got '2'" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nbuffers:\n  x: {dtype: f32, count: 4, init: random:1:a:b}\n"
          "params: [1, 1, x]\n",
          "@/l.yaml:5:35: init: random:SEED:LO:HI needs two numbers after the seed, got 'a:b'" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nbuffers:\n  x: {dtype: f32, count: 4, init: random:1:0:1:2}\n"
          "params: [1, 1, x]\n",
          "@/l.yaml:5:35: init: random:SEED:LO:HI needs two numbers after the seed, got '0:1:2'" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nbuffers:\n  x: {dtype: f32, count: 4, init: random:1:1:-1}\n"
          "params: [1, 1, x]\n", "@/l.yaml:5:35: init: random:SEED:LO:HI needs LO < HI, got 1 and -1" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nbuffers:\n  x: {dtype: s32, count: 4, init: random:1:0:9}\n"
          "params: [1, 1, x]\n", "@/l.yaml:5:35: init: random:SEED:LO:HI is for float buffers; x is s32 "
          "(random:SEED gives its whole range)" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nbuffers:\n  x: {dtype: f32, count: 4, init: random:-3}\n"
          "params: [1, 1, x]\n", "@/l.yaml:5:35: init: random:SEED needs a whole number, got '-3'" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nbuffers:\n  x: {dtype: f32, count: 4, init: \"random: -1\"}\n"
          "params: [1, 1, x]\n", "@/l.yaml:5:35: init: random:SEED needs a whole number, got ' -1'" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nbuffers:\n  x: {dtype: f64, count: 4, init: random:1:-1e308:1e308}\n"
          "params: [1, 1, x]\n", "@/l.yaml:5:35: init: random:SEED:LO:HI: the range from -1e+308 to "
          "1e+308 is wider than a double holds" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nparams: [4294967296, 1, 1]\n",
          "@/l.yaml:4:10: params: k_n (4 bytes) cannot hold 4294967296" },
        /* a kernel file that cannot be read: at the launch's kernel: line (it had no place) */
        { "kernel: kd\ngrid: [1]\nblock: [32]\nparams: [1, 1, 1]\n",
          "@/l.yaml:1:9: kernel: @/kd: not a regular file (a directory)" },
        /* a missing grid or count at the place that lacks it (they said "?: grid: missing") */
        { "kernel: k.ptx\nblock: [32]\nparams: [1, 1, 1]\n", "@/l.yaml:1:1: grid: missing" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nbuffers:\n  x: {dtype: f32}\nparams: [1, 1, x]\n",
          "@/l.yaml:5:6: buffer x: count: missing" },
        /* a file:PATH of another size, larger (it said "larger than the limit of 4 bytes") */
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nbuffers:\n  x: {dtype: f32, count: 1, init: file:d.bin}\n"
          "params: [1, 1, x]\n", "@/l.yaml:5:35: init: @/d.bin holds 7 bytes; x is 1 x f32 = 4 bytes" },
        /* below a 4-byte two's complement: was taken, its low 32 bits passed */
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nparams: [-2147483649, 1, 1]\n",
          "@/l.yaml:4:10: params: k_n (4 bytes) cannot hold -2147483649" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nparams: [-99999999999, 1, 1]\n",
          "@/l.yaml:4:10: params: k_n (4 bytes) cannot hold -99999999999" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nparams: [1, 1, 1]\noutputs: [y]\n",
          "@/l.yaml:5:11: outputs: 'y' is not a buffer of this launch" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nbuffers:\n  ../x: {dtype: u8, count: 1}\n"
          "params: [1, 1, 1]\n", "@/l.yaml:5:3: buffer '../x': a name is letters, digits and '_' "
          "(not first), at most 64 (it names the output file NAME.bin)" },
        { "kernel: k.ptx\ngrid: [1]\nblock: [32]\nparams: [1, 1, 1]\nthreads: 3\n",
          "@/l.yaml:5:1: unknown key 'threads' in a launch (kernel, entry, grid, block, shared, "
          "buffers, params, outputs, registers, block_order, launches)" },
    };
    (void)cases;
    char *kd = g_build_filename(tdir, "kd", NULL);
    g_mkdir(kd, 0700);
    g_free(kd);
    char *dbin = g_build_filename(tdir, "d.bin", NULL);
    CU_ASSERT_FATAL(g_file_set_contents(dbin, "1234567", 7, NULL));
    g_free(dbin);
    /* params are named after the PTX: rename them in the expectation */
    char *yaml = g_build_filename(tdir, "l.yaml", NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        CU_ASSERT_FATAL(g_file_set_contents(yaml, cases[i].yaml, -1, NULL));
        GError *e = NULL;
        GpuLaunchSpec *s = gpu_launch_load(yaml, &e);
        if (!cases[i].msg) {
            if (!s)
                fprintf(stderr, "\nlaunch case %zu: %s\n", i, e->message);
            CU_ASSERT_PTR_NOT_NULL(s);
            if (s) {
                float v[4];
                memcpy(v, gpu_launch_buffer(s, "x")->data, 16);
                CU_ASSERT_EQUAL(v[3], 3.0f);
                float a;
                memcpy(&a, s->l[0].params + 4, 4);
                CU_ASSERT_EQUAL(a, 2.5f);
                uint64_t p;
                memcpy(&p, s->l[0].params + 8, 8);
                CU_ASSERT_EQUAL(p, PTX_GLOBAL_BASE);
            }
            gpu_launch_free(s);
            continue;
        }
        CU_ASSERT_PTR_NULL(s);
        GString *wa = g_string_new(cases[i].msg);       /* every "@/" is the test's folder */
        char *dir_slash = g_strconcat(tdir, "/", NULL);
        g_string_replace(wa, "@/", dir_slash, 0);
        g_free(dir_slash);
        char *want = g_string_free(wa, FALSE);
        char *want2 = g_strdup(want);
        if (e && strstr(want, "k_n")) {     /* the parameter is named n in this PTX */
            g_free(want2);
            GString *w = g_string_new(want);
            g_string_replace(w, "k_n", "n", 1);
            want2 = g_string_free(w, FALSE);
        }
        if (e && strcmp(e->message, want2))
            fprintf(stderr, "\nlaunch case %zu:\n got: %s\nwant: %s\n", i, e->message, want2);
        CU_ASSERT(e && strcmp(e->message, want2) == 0);
        if (e)
            g_error_free(e);
        g_free(want);
        g_free(want2);
    }
    g_free(yaml);
    g_free(ptx);
}

/* bf16 buffers and random:SEED:LO:HI: the values worked out here from the documented generator
 * (splitmix64 from SEED, (z >> 40) / 2^24 scaled to [LO, HI), rounded once to the dtype) */
static uint64_t sm64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void test_launch_bf16_ranges(void)
{
    char *ptx = g_build_filename(tdir, "k.ptx", NULL);
    CU_ASSERT_FATAL(g_file_set_contents(ptx, HEAD ".visible .entry k(.param .u32 n, .param .f32 a, "
                                        ".param .u64 x)\n{\nret;\n}\n", -1, NULL));
    char *yaml = g_build_filename(tdir, "r.yaml", NULL);
    CU_ASSERT_FATAL(g_file_set_contents(yaml, "kernel: k.ptx\ngrid: [1]\nblock: [32]\nbuffers:\n"
        "  x: {dtype: bf16, count: 64, init: random:7:-0.5:0.25}\n"
        "  y: {dtype: f32, count: 64, init: random:7:-0.5:0.25}\n"
        "  z: {dtype: bf16, count: 3, init: const:1.00390625}\n"
        "  w: {dtype: bf16, count: 3, init: iota}\n"
        "  v: {dtype: f32, count: 4, init: random:7}\n"
        "params: [1, 1, x]\n", -1, NULL));
    GError *e = NULL;
    GpuLaunchSpec *s = gpu_launch_load(yaml, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    const uint16_t *x = (const uint16_t *)(const void *)gpu_launch_buffer(s, "x")->data;
    const float *y = (const float *)(const void *)gpu_launch_buffer(s, "y")->data;
    const float *v = (const float *)(const void *)gpu_launch_buffer(s, "v")->data;
    CU_ASSERT_EQUAL(gpu_launch_buffer(s, "x")->bytes, 128);
    uint64_t st = 7;
    int bad = 0;
    for (int i = 0; i < 64; i++) {
        double u = (double)(sm64(&st) >> 40) / 16777216.0, want = -0.5 + 0.75 * u;
        /* f32: rounded once; bf16: the nearest of the two bfloat16 around it, ties to even */
        float wf = (float)want;
        uint32_t b;
        memcpy(&b, &wf, 4);
        uint32_t lo = b & 0xffff0000u, hi = lo + 0x10000u;
        float flo, fhi;
        memcpy(&flo, &lo, 4);
        memcpy(&fhi, &hi, 4);
        double dl = fabs(want - flo), dh = fabs(want - fhi);
        uint16_t wb = (uint16_t)((dl < dh || (dl == dh && !(lo & 0x10000u)) ? lo : hi) >> 16);
        bad += y[i] != wf || x[i] != wb || !(y[i] >= -0.5f && y[i] < 0.25f);
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* without a range: [0, 1) as before */
    st = 7;
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(v[i], (float)((double)(sm64(&st) >> 40) / 16777216.0));
    /* 1 + 2^-8 is a tie between 1 and 1 + 2^-7: to the even 1.0 (0x3f80); iota exact */
    const uint16_t *z = (const uint16_t *)(const void *)gpu_launch_buffer(s, "z")->data;
    const uint16_t *w = (const uint16_t *)(const void *)gpu_launch_buffer(s, "w")->data;
    CU_ASSERT_EQUAL(z[2], 0x3f80);
    CU_ASSERT(w[0] == 0x0000 && w[1] == 0x3f80 && w[2] == 0x4000);
    gpu_launch_free(s);
    g_free(yaml);
    g_free(ptx);
}

int main(void)
{
    tdir = tmpdir_new("test_ptx.XXXXXX");
    if (CU_initialize_registry() != CUE_SUCCESS)
        return CU_get_error();
    CU_pSuite s = CU_add_suite("ptx", NULL, NULL);
    if (s == NULL || !CU_add_test(s, "parser: every construct nvcc writes", test_parse_constructs) ||
        !CU_add_test(s, "a double to a half, rounded once", test_half_rounding) ||
        !CU_add_test(s, "parser: nvcc's scoped and %-less registers", test_scoped_registers) ||
        !CU_add_test(s, "parser: errors at their line and column", test_parse_errors) ||
        !CU_add_test(s, "reconvergence points against post-dominator sets", test_ipdom_random) ||
        !CU_add_test(s, "reconvergence points of a ladder of 200,000 loops", test_ipdom_ladder) ||
        !CU_add_test(s, "SIMT: nested divergence reconverges", test_divergence_nested) ||
        !CU_add_test(s, "SIMT: a loop with early exits and a return inside", test_loop_early_exit) ||
        !CU_add_test(s, "atomics: each operation, in a defined order", test_atomics) ||
        !CU_add_test(s, "barriers: with and without bar.sync", test_barriers) ||
        !CU_add_test(s, "shuffles and votes", test_shuffle_vote) ||
        !CU_add_test(s, "faults: out of bounds, endless loops", test_faults) ||
        !CU_add_test(s, "the ISA's corner cases", test_alu_corners) ||
        !CU_add_test(s, "prmt, shf, bfi and lop3 at their edges", test_bit_ops) ||
        !CU_add_test(s, ".rz/.rm/.rp, copysign, initialised variables", test_rounding_init) ||
        !CU_add_test(s, "device functions inlined at their calls; carry chains", test_calls_carry) ||
        !CU_add_test(s, ".f16x2 arithmetic, setp p|q, set, cvt packing", test_half2) ||
        !CU_add_test(s, "bfloat16: one rounding of fma, cvt, bf16x2", test_bf16) ||
        !CU_add_test(s, "bfind, redux.sync, sad and dp4a", test_bfind_redux) ||
        !CU_add_test(s, "wmma: values, records, run-time errors", test_wmma) ||
        !CU_add_test(s, "cp.async: zero fill, ignore-src, records, bounds; trap", test_cp_async) ||
        !CU_add_test(s, "mma.sync and ldmatrix: ISA layouts, records, errors", test_mma) ||
        !CU_add_test(s, "match.sync, nanosleep, %globaltimer, dp2a, vabsdiff, half atomics",
                     test_match_half_atomics) ||
        !CU_add_test(s, "launch YAML: values and errors", test_launch_yaml) ||
        !CU_add_test(s, "launch YAML: bf16 buffers, random ranges", test_launch_bf16_ranges)) {
        CU_cleanup_registry();
        return CU_get_error();
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    tmpdir_remove(&tdir);
    return failed ? 1 : 0;
}
