/* graph.c: the dataflow graph's YAML (graph.h): tensors, nodes and loops read with their
 * positions, each op's arity and shape rule checked, loop bodies resolved, and the top level put
 * in run order. A cycle of data edges is legal only inside one loop's body (carried to the next
 * iteration); anywhere else it is an error, as in Spatial, where a loop-carried dependence needs
 * a controller to carry it.
 */
#include "graph.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../sim/error.h"
#include "../../sim/param.h"

const char *const rdu_op_names[RDU_OP_COUNT] = {
    [RDU_OP_FIXED] = "fixed", [RDU_OP_MAP] = "map", [RDU_OP_ZIP] = "zip",
    [RDU_OP_REDUCE] = "reduce", [RDU_OP_FOLD] = "fold", [RDU_OP_SCAN] = "scan",
    [RDU_OP_GEMM] = "gemm", [RDU_OP_SOFTMAX] = "softmax", [RDU_OP_RMSNORM] = "rmsnorm",
    [RDU_OP_LAYERNORM] = "layernorm", [RDU_OP_ROPE] = "rope", [RDU_OP_SILU] = "silu",
    [RDU_OP_KV_READ] = "kv_read", [RDU_OP_KV_WRITE] = "kv_write", [RDU_OP_GATHER] = "gather",
    [RDU_OP_RESHAPE] = "reshape",
};
const char *const rdu_dtype_names[RDU_DTYPES] = { [RDU_BF16] = "bf16", [RDU_FP32] = "fp32",
                                                  [RDU_INT8] = "int8" };
const char *const rdu_ctrl_names[] = { [RDU_CTRL_PIPE] = "pipe",
                                       [RDU_CTRL_SEQUENTIAL] = "sequential",
                                       [RDU_CTRL_STREAM] = "stream", NULL };
const char *const rdu_tier_names[] = { [RDU_TIER_CHIP] = "chip", [RDU_TIER_HBM] = "hbm",
                                       [RDU_TIER_DDR] = "ddr", [RDU_TIER_SRAM] = "sram", NULL };

/* the largest tensor: 2^40 elements (a TiB of bf16 and more than any tier holds) */
#define RDU_MAX_ELEMS (1ull << 40)

uint64_t rdu_tensor_elems(const RduTensor *t)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < t->rank; i++)
        n *= t->dim[i];
    return n;
}

uint64_t rdu_tensor_bytes(const RduTensor *t) { return rdu_tensor_elems(t) * rdu_dtype_bytes(t->dtype); }

static G_GNUC_PRINTF(3, 4) bool gerr(GError **error, const CfgNode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cfg_set_error_va(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, n, fmt, ap);
    va_end(ap);
    return false;
}

static G_GNUC_PRINTF(5, 6) bool gerr_at(GError **error, const char *file, int line, int col,
                                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *m = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s:%d:%d: %s", file, line, col, m);
    g_free(m);
    return false;
}

static bool known_keys(const CfgNode *map, const char *const *keys, const char *what, GError **error)
{
    for (guint i = 0; i < map->keys->len; i++) {
        const CfgNode *k = g_ptr_array_index(map->keys, i);
        bool known = false;
        size_t n = 0;
        for (; keys[n]; n++)
            known |= strcmp(k->scalar, keys[n]) == 0;
        if (!known) {
            const char *hint = param_suggest(k->scalar, keys, n);
            GString *list = g_string_new(NULL);
            for (size_t j = 0; keys[j]; j++)
                g_string_append_printf(list, "%s%s", j ? ", " : "", keys[j]);
            if (hint)
                gerr(error, k, "unknown key '%s' in %s; did you mean '%s'? (keys: %s)", k->scalar,
                     what, hint, list->str);
            else
                gerr(error, k, "unknown key '%s' in %s (keys: %s)", k->scalar, what, list->str);
            g_string_free(list, TRUE);
            return false;
        }
    }
    return true;
}

static bool scalar_u64(const CfgNode *n, uint64_t min, uint64_t max, uint64_t *v, const char *what,
                       GError **error)
{
    if (!n || n->kind != CFG_SCALAR)
        return gerr(error, n, "%s: expected a whole number", what);
    const char *s = n->scalar;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (end == s || *end || errno || s[0] == '-' || s[0] == '+' || x < min || x > max)
        return gerr(error, n, "%s: expected a whole number from %" G_GUINT64_FORMAT " to %"
                    G_GUINT64_FORMAT ", got '%s'", what, min, max, s);
    *v = x;
    return true;
}

static bool scalar_enum(const CfgNode *n, const char *const *names, size_t count, int *out,
                        const char *what, GError **error)
{
    if (!n || n->kind != CFG_SCALAR)
        return gerr(error, n, "%s: expected a name", what);
    char *low = g_ascii_strdown(n->scalar, -1);
    for (size_t i = 0; i < count; i++)
        if (names[i] && !strcmp(low, names[i])) {
            *out = (int)i;
            g_free(low);
            return true;
        }
    const char *hint = param_suggest(low, names, count);
    GString *list = g_string_new(NULL);
    for (size_t i = 0; i < count; i++)
        if (names[i])
            g_string_append_printf(list, "%s%s", list->len ? ", " : "", names[i]);
    if (hint)
        gerr(error, n, "%s: unknown '%s'; did you mean '%s'? (one of %s)", what, n->scalar, hint,
             list->str);
    else
        gerr(error, n, "%s: unknown '%s' (one of %s)", what, n->scalar, list->str);
    g_string_free(list, TRUE);
    g_free(low);
    return false;
}

static void shape_text(const RduTensor *t, GString *s)
{
    g_string_append_c(s, '[');
    for (uint32_t i = 0; i < t->rank; i++)
        g_string_append_printf(s, "%s%" G_GUINT64_FORMAT, i ? ", " : "", t->dim[i]);
    g_string_append_c(s, ']');
}

/* ---- building ---- */

typedef struct {
    RduGraph *g;
    GHashTable *tensor_ix;      /* name -> index + 1 */
    GHashTable *name_ix;        /* node/loop name -> (index + 1) | loop flag << 30 */
    const CfgNode **node_pos;   /* each node's map (positions) */
    const CfgNode **in_pos;     /* [node * RDU_MAX_IN + i]: the in: entry */
    const CfgNode **out_pos;
} Build;

#define IS_LOOP_FLAG (1u << 30)

static bool parse_tensor(Build *b, const CfgNode *k, const CfgNode *v, GError **error)
{
    static const char *const keys[] = { "shape", "dtype", "tier", NULL };
    RduGraph *g = b->g;
    if (v->kind != CFG_MAP)
        return gerr(error, v, "tensor '%s': expected a map (shape, dtype, tier)", k->scalar);
    if (!known_keys(v, keys, "a tensor", error))
        return false;
    RduTensor *t = &g->tensors[g->ntensors];
    t->name = g_strdup(k->scalar);
    t->file = g->file;
    t->line = k->line;
    t->col = k->col;
    t->producer = -1;
    const CfgNode *sh = cfg_map_get(v, "shape");
    if (!sh)
        return gerr(error, k, "tensor '%s': missing shape (a list of 1 to %d sizes, e.g. [64, "
                    "4096])", k->scalar, RDU_MAX_RANK);
    if (sh->kind == CFG_SCALAR) {
        uint64_t d;
        if (!scalar_u64(sh, 1, RDU_MAX_ELEMS, &d, "shape", error))
            return false;
        t->rank = 1;
        t->dim[0] = d;
    } else if (sh->kind != CFG_SEQ || sh->items->len < 1 || sh->items->len > RDU_MAX_RANK) {
        return gerr(error, sh, "shape: expected a list of 1 to %d sizes, e.g. [64, 4096]",
                    RDU_MAX_RANK);
    } else {
        t->rank = sh->items->len;
        uint64_t n = 1;
        for (guint i = 0; i < sh->items->len; i++) {
            const CfgNode *it = g_ptr_array_index(sh->items, i);
            if (!scalar_u64(it, 1, RDU_MAX_ELEMS, &t->dim[i], "shape", error))
                return false;
            if (n > RDU_MAX_ELEMS / t->dim[i])
                return gerr(error, it, "tensor '%s': more than 2^40 elements", k->scalar);
            n *= t->dim[i];
        }
    }
    const CfgNode *dt = cfg_map_get(v, "dtype");
    int e = RDU_BF16;
    if (!dt)
        return gerr(error, k, "tensor '%s': missing dtype (bf16, fp32 or int8)", k->scalar);
    if (!scalar_enum(dt, rdu_dtype_names, RDU_DTYPES, &e, "dtype", error))
        return false;
    t->dtype = (RduDtype)e;
    const CfgNode *tr = cfg_map_get(v, "tier");
    t->tier = RDU_TIER_CHIP;
    if (tr) {
        static const char *const tiers[] = { "hbm", "ddr", "sram" };
        if (!scalar_enum(tr, tiers, 3, &e, "tier", error))
            return false;
        t->tier = (RduTier)(e + 1);
    }
    g_hash_table_insert(b->tensor_ix, t->name, GUINT_TO_POINTER(g->ntensors + 1));
    g->ntensors++;
    return true;
}

static int tensor_ref(Build *b, const CfgNode *n, const char *what, GError **error)
{
    if (!n || n->kind != CFG_SCALAR) {
        gerr(error, n, "%s: expected a tensor name", what);
        return -1;
    }
    gpointer p = g_hash_table_lookup(b->tensor_ix, n->scalar);
    if (p)
        return (int)GPOINTER_TO_UINT(p) - 1;
    const char **names = g_new(const char *, b->g->ntensors + 1);
    for (uint32_t i = 0; i < b->g->ntensors; i++)
        names[i] = b->g->tensors[i].name;
    const char *hint = param_suggest(n->scalar, names, b->g->ntensors);
    if (hint)
        gerr(error, n, "%s: unknown tensor '%s'; did you mean '%s'?", what, n->scalar, hint);
    else
        gerr(error, n, "%s: unknown tensor '%s' (declare it under graph.tensors with its shape "
             "and dtype)", what, n->scalar);
    g_free(names);
    return -1;
}

/* A node's or loop's name names its stage's stats (rdu.stage.LOOP.STAGE.*, fused stages
 * joined by '+'): letters, digits, _ and -, starting with a letter or _, as a machine's
 * component names. */
static bool name_check(const CfgNode *k, const char *what, GError **error)
{
    const char *s = k->scalar;
    bool ok = g_ascii_isalpha(s[0]) || s[0] == '_';
    for (size_t i = 1; ok && s[i]; i++)
        ok = g_ascii_isalnum(s[i]) || s[i] == '_' || s[i] == '-';
    if (ok)
        return true;
    char *shown = g_strescape(s, NULL);
    gerr(error, k, "%s '%s': not a name (letters, digits, _ and -, starting with a letter or _; "
         "it names the stage's stats)", what, shown);
    g_free(shown);
    return false;
}

static bool parse_node(Build *b, const CfgNode *k, const CfgNode *v, GError **error)
{
    static const char *const keys[] = { "op", "cycles", "in", "out", "tier", NULL };
    RduGraph *g = b->g;
    uint32_t ni = g->nnodes;
    RduNode *nd = &g->nodes[ni];
    if (v->kind != CFG_MAP)
        return gerr(error, v, "node '%s': expected a map (op, in, out, ...)", k->scalar);
    if (!known_keys(v, keys, "a node", error) || !name_check(k, "node", error))
        return false;
    if (g_hash_table_contains(b->name_ix, k->scalar))
        return gerr(error, k, "node '%s': the name is taken", k->scalar);
    nd->name = g_strdup(k->scalar);
    nd->line = k->line;
    nd->col = k->col;
    nd->out = -1;
    nd->loop = -1;
    nd->tier = RDU_TIER_HBM;
    b->node_pos[ni] = k;
    const CfgNode *op = cfg_map_get(v, "op");
    if (!op)
        return gerr(error, k, "node '%s': missing op (one of fixed, map, zip, reduce, fold, scan, "
                    "gemm, softmax, rmsnorm, layernorm, rope, silu, kv_read, kv_write, gather, "
                    "reshape)", k->scalar);
    int e;
    if (!scalar_enum(op, rdu_op_names, RDU_OP_COUNT, &e, "op", error))
        return false;
    nd->op = (RduOp)e;
    const CfgNode *cy = cfg_map_get(v, "cycles");
    if (nd->op == RDU_OP_FIXED) {
        if (!cy)
            return gerr(error, k, "node '%s': op fixed needs cycles (per iteration, on one unit)",
                        k->scalar);
        if (!scalar_u64(cy, 1, 1ull << 40, &nd->cycles, "cycles", error))
            return false;
    } else if (cy) {
        return gerr(error, cy, "cycles: only op fixed takes a cycle count; %s's time comes from "
                    "its tensors and the machine", rdu_op_names[nd->op]);
    }
    const CfgNode *tr = cfg_map_get(v, "tier");
    if (tr) {
        if (nd->op != RDU_OP_KV_READ && nd->op != RDU_OP_KV_WRITE)
            return gerr(error, tr, "tier: only kv_read and kv_write take a tier (a tensor's own "
                        "tier says where it lives)");
        static const char *const tiers[] = { "hbm", "ddr" };
        if (!scalar_enum(tr, tiers, 2, &e, "tier", error))
            return false;
        nd->tier = (RduTier)(e + 1);
    }
    const CfgNode *in = cfg_map_get(v, "in");
    if (in) {
        if (in->kind == CFG_SCALAR) {
            if ((nd->in[0] = tensor_ref(b, in, "in", error)) < 0)
                return false;
            b->in_pos[ni * RDU_MAX_IN] = in;
            nd->nin = 1;
        } else if (in->kind == CFG_SEQ && in->items->len <= RDU_MAX_IN) {
            for (guint i = 0; i < in->items->len; i++) {
                const CfgNode *it = g_ptr_array_index(in->items, i);
                if ((nd->in[i] = tensor_ref(b, it, "in", error)) < 0)
                    return false;
                b->in_pos[ni * RDU_MAX_IN + i] = it;
            }
            nd->nin = in->items->len;
        } else {
            return gerr(error, in, "in: expected a tensor name or a list of up to %d", RDU_MAX_IN);
        }
    }
    const CfgNode *out = cfg_map_get(v, "out");
    if (out) {
        if ((nd->out = tensor_ref(b, out, "out", error)) < 0)
            return false;
        RduTensor *t = &g->tensors[nd->out];
        if (t->producer >= 0)
            return gerr(error, out, "out: tensor '%s' is already made by node '%s' (a tensor has "
                        "one producer)", t->name, g->nodes[t->producer].name);
        if (t->tier == RDU_TIER_SRAM)
            return gerr(error, out, "out: tensor '%s' is resident (tier sram): a node cannot "
                        "write it", t->name);
        t->producer = (int)ni;
        b->out_pos[ni] = out;
    }
    g_hash_table_insert(b->name_ix, nd->name, GUINT_TO_POINTER(ni + 1));
    g->nnodes++;
    return true;
}

static bool same_dims(const RduTensor *a, const RduTensor *c)
{
    if (a->rank != c->rank)
        return false;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->dim[i] != c->dim[i])
            return false;
    return true;
}

/* The op's arity and shape rule (docs/rdu.md, "Ops"). */
static bool check_node(Build *b, uint32_t ni, GError **error)
{
    const RduGraph *g = b->g;
    const RduNode *nd = &g->nodes[ni];
    const CfgNode *at = b->out_pos[ni] ? b->out_pos[ni] : b->node_pos[ni];
    const char *op = rdu_op_names[nd->op];
    const RduTensor *in0 = nd->nin > 0 ? &g->tensors[nd->in[0]] : NULL;
    const RduTensor *in1 = nd->nin > 1 ? &g->tensors[nd->in[1]] : NULL;
    const RduTensor *out = nd->out >= 0 ? &g->tensors[nd->out] : NULL;
    uint32_t min_in = 1, max_in = 1;
    bool needs_out = true;
    switch (nd->op) {
    case RDU_OP_FIXED: min_in = 0; max_in = RDU_MAX_IN; needs_out = false; break;
    case RDU_OP_ZIP: case RDU_OP_GEMM: case RDU_OP_GATHER: min_in = max_in = 2; break;
    case RDU_OP_FOLD: case RDU_OP_RMSNORM: case RDU_OP_LAYERNORM: case RDU_OP_ROPE: max_in = 2; break;
    case RDU_OP_KV_READ: min_in = 0; max_in = 1; break;
    case RDU_OP_KV_WRITE: min_in = 1; max_in = 2; needs_out = false; break;
    default: break;
    }
    if (nd->nin < min_in || nd->nin > max_in) {
        if (min_in == max_in)
            return gerr(error, b->node_pos[ni], "node '%s': %s takes %u input%s, it has %u",
                        nd->name, op, min_in, min_in == 1 ? "" : "s", nd->nin);
        return gerr(error, b->node_pos[ni], "node '%s': %s takes %u to %u inputs, it has %u",
                    nd->name, op, min_in, max_in, nd->nin);
    }
    if (needs_out && !out)
        return gerr(error, b->node_pos[ni], "node '%s': %s needs out: (the tensor it makes)",
                    nd->name, op);
    if (nd->op == RDU_OP_KV_WRITE && out)
        return gerr(error, b->out_pos[ni], "node '%s': kv_write makes no tensor (it writes its "
                    "input to its tier)", nd->name);
    GString *s = g_string_new(NULL);
    bool ok = true;
#define MISMATCH(...) do { g_string_printf(s, __VA_ARGS__); ok = false; } while (0)
    switch (nd->op) {
    case RDU_OP_MAP: case RDU_OP_SILU: case RDU_OP_SCAN: case RDU_OP_SOFTMAX:
        if (!same_dims(in0, out))
            MISMATCH("%s keeps its input's shape", op);
        break;
    case RDU_OP_ROPE: case RDU_OP_RMSNORM: case RDU_OP_LAYERNORM:
        if (!same_dims(in0, out))
            MISMATCH("%s keeps its input's shape", op);
        else if (in1 && nd->op != RDU_OP_ROPE &&
                 (in1->rank != 1 || in1->dim[0] != in0->dim[in0->rank - 1]))
            MISMATCH("the weight of %s is one value per element of the last axis ([%"
                     G_GUINT64_FORMAT "])", op, in0->dim[in0->rank - 1]);
        break;
    case RDU_OP_ZIP:
        if (!same_dims(in0, in1))
            MISMATCH("zip's two inputs have one shape");
        else if (!same_dims(in0, out))
            MISMATCH("zip keeps its inputs' shape");
        break;
    case RDU_OP_REDUCE: case RDU_OP_FOLD: {
        /* the last axis reduced: out is in without it, or with it 1 ([8, 64] -> [8] or [8, 1]) */
        bool fit = false;
        if (in0->rank == 1)
            fit = out->rank == 1 && out->dim[0] == 1;
        else if (out->rank == in0->rank - 1 || out->rank == in0->rank) {
            fit = true;
            for (uint32_t i = 0; i + 1 < in0->rank; i++)
                fit &= out->dim[i] == in0->dim[i];
            if (out->rank == in0->rank)
                fit &= out->dim[out->rank - 1] == 1;
        }
        if (!fit)
            MISMATCH("%s reduces the last axis: out is the input without it (or with it 1)", op);
        else if (in1 && !same_dims(in1, out))
            MISMATCH("fold's initial value (input 2) has out's shape");
        break;
    }
    case RDU_OP_GEMM: {
        /* [.., M, K] x [K, N] or [.., K, N] -> [.., M, N] */
        if (in0->rank < 2 || in1->rank < 2) {
            MISMATCH("gemm's inputs are matrices (rank 2 or more)");
            break;
        }
        uint64_t K = in0->dim[in0->rank - 1], M = in0->dim[in0->rank - 2];
        uint64_t K2 = in1->dim[in1->rank - 2], N = in1->dim[in1->rank - 1];
        bool fit = K == K2 && out->rank == in0->rank && out->dim[out->rank - 1] == N &&
                   out->dim[out->rank - 2] == M;
        for (uint32_t i = 0; fit && i + 2 < in0->rank; i++)
            fit = out->dim[i] == in0->dim[i];
        if (fit && in1->rank > 2) {
            fit = in1->rank == in0->rank;
            for (uint32_t i = 0; fit && i + 2 < in1->rank; i++)
                fit = in1->dim[i] == in0->dim[i];
        }
        if (!fit)
            MISMATCH("gemm multiplies [.., M, K] by [K, N] into [.., M, N]");
        break;
    }
    case RDU_OP_RESHAPE:
        if (rdu_tensor_elems(in0) != rdu_tensor_elems(out))
            MISMATCH("reshape keeps the number of elements");
        break;
    case RDU_OP_GATHER: {
        /* rows of table [R, ...] at indices [...]: out is indices' shape + the row's shape */
        bool fit = out->rank == in1->rank + in0->rank - 1;
        for (uint32_t i = 0; fit && i < in1->rank; i++)
            fit = out->dim[i] == in1->dim[i];
        for (uint32_t i = 1; fit && i < in0->rank; i++)
            fit = out->dim[in1->rank + i - 1] == in0->dim[i];
        if (!fit)
            MISMATCH("gather's out is the indices' shape followed by a row of the table");
        break;
    }
    default:
        break;
    }
#undef MISMATCH
    if (!ok) {
        GString *m = g_string_new(NULL);
        for (uint32_t i = 0; i < nd->nin; i++) {
            g_string_append_printf(m, "%s%s ", i ? ", " : "", g->tensors[nd->in[i]].name);
            shape_text(&g->tensors[nd->in[i]], m);
        }
        if (out) {
            g_string_append_printf(m, " -> %s ", out->name);
            shape_text(out, m);
        }
        gerr(error, at, "node '%s': shape mismatch: %s (%s)", nd->name, s->str, m->str);
        g_string_free(m, TRUE);
    }
    g_string_free(s, TRUE);
    return ok;
}

static bool parse_loop(Build *b, const CfgNode *v, GError **error)
{
    static const char *const keys[] = { "name", "trips", "controller", "body", "depth", NULL };
    RduGraph *g = b->g;
    RduLoop *l = &g->loops[g->nloops];
    if (v->kind != CFG_MAP)
        return gerr(error, v, "a loop: expected a map (name, trips, controller, body)");
    if (!known_keys(v, keys, "a loop", error))
        return false;
    l->line = v->line;
    l->col = v->col;
    l->parent = -1;
    const CfgNode *nm = cfg_map_get(v, "name");
    if (!nm || nm->kind != CFG_SCALAR || !*nm->scalar)
        return gerr(error, nm ? nm : v, "a loop: missing name");
    if (!name_check(nm, "loop", error))
        return false;
    if (g_hash_table_contains(b->name_ix, nm->scalar))
        return gerr(error, nm, "loop '%s': the name is taken", nm->scalar);
    l->name = g_strdup(nm->scalar);
    const CfgNode *tr = cfg_map_get(v, "trips");
    if (!tr)
        return gerr(error, nm, "loop '%s': missing trips (its iteration count)", l->name);
    if (!scalar_u64(tr, 1, 1ull << 32, &l->trips, "trips", error))
        return false;
    const CfgNode *ct = cfg_map_get(v, "controller");
    int e = RDU_CTRL_PIPE;
    if (ct && !scalar_enum(ct, rdu_ctrl_names, 3, &e, "controller", error))
        return false;
    l->ctrl = (RduCtrl)e;
    const CfgNode *dp = cfg_map_get(v, "depth");
    if (dp) {
        uint64_t d;
        if (!scalar_u64(dp, 1, 64, &d, "depth", error))
            return false;
        l->depth = (uint32_t)d;
    }
    g_hash_table_insert(b->name_ix, l->name, GUINT_TO_POINTER((g->nloops + 1) | IS_LOOP_FLAG));
    g->nloops++;
    return true;
}

/* Second pass over the loops: their bodies, once every name is known. */
static bool resolve_body(Build *b, uint32_t li, const CfgNode *v, GError **error)
{
    RduGraph *g = b->g;
    RduLoop *l = &g->loops[li];
    const CfgNode *body = cfg_map_get(v, "body");
    if (!body || body->kind != CFG_SEQ || body->items->len == 0)
        return gerr(error, body ? body : v, "loop '%s': body: expected a list of node and loop "
                    "names (each one stage)", l->name);
    if (body->items->len > RDU_MAX_NODES)
        return gerr(error, body, "loop '%s': more than %d stages", l->name, RDU_MAX_NODES);
    l->body = g_new0(RduEntry, body->items->len);
    for (guint i = 0; i < body->items->len; i++) {
        const CfgNode *it = g_ptr_array_index(body->items, i);
        if (it->kind != CFG_SCALAR)
            return gerr(error, it, "body: expected a node or loop name");
        gpointer p = g_hash_table_lookup(b->name_ix, it->scalar);
        if (!p) {
            GPtrArray *names = g_ptr_array_new();
            for (uint32_t j = 0; j < g->nnodes; j++)
                g_ptr_array_add(names, g->nodes[j].name);
            for (uint32_t j = 0; j < g->nloops; j++)
                g_ptr_array_add(names, g->loops[j].name);
            const char *hint = param_suggest(it->scalar, (const char *const *)names->pdata,
                                             names->len);
            if (hint)
                gerr(error, it, "body: unknown node or loop '%s'; did you mean '%s'?", it->scalar,
                     hint);
            else
                gerr(error, it, "body: unknown node or loop '%s'", it->scalar);
            g_ptr_array_free(names, TRUE);
            return false;
        }
        unsigned u = GPOINTER_TO_UINT(p);
        RduEntry e = { .is_loop = (u & IS_LOOP_FLAG) != 0, .index = (int)(u & ~IS_LOOP_FLAG) - 1 };
        if (e.is_loop) {
            if ((uint32_t)e.index == li)
                return gerr(error, it, "body: loop '%s' lists itself", l->name);
            RduLoop *c = &g->loops[e.index];
            if (c->parent >= 0)
                return gerr(error, it, "body: loop '%s' is already in loop '%s' (a loop is in "
                            "one body)", c->name, g->loops[c->parent].name);
            c->parent = (int)li;
        } else {
            RduNode *n = &g->nodes[e.index];
            if (n->loop >= 0)
                return gerr(error, it, "body: node '%s' is already in loop '%s' (a node is one "
                            "stage of one loop)", n->name, g->loops[n->loop].name);
            n->loop = (int)li;
        }
        l->body[l->nbody++] = e;
    }
    return true;
}

/* The chain of loops from l up: its depth, or -1 when it loops back on itself. */
static int loop_depth(const RduGraph *g, int l)
{
    int d = 0;
    for (int x = l; x >= 0; x = g->loops[x].parent)
        if (++d > (int)g->nloops)
            return -1;
    return d;
}

RduEntry rdu_graph_entry_in(const RduGraph *g, int n, int scope)
{
    RduEntry e = { false, n };
    int l = g->nodes[n].loop;
    while (l != scope) {
        e = (RduEntry){ true, l };
        l = g->loops[l].parent;
    }
    return e;
}

static int scope_depth(const RduGraph *g, int l) { return l < 0 ? 0 : loop_depth(g, l); }

int rdu_graph_common_scope(const RduGraph *g, int a, int b)
{
    int la = g->nodes[a].loop, lb = g->nodes[b].loop;
    int da = scope_depth(g, la), db = scope_depth(g, lb);
    while (da > db) { la = g->loops[la].parent; da--; }
    while (db > da) { lb = g->loops[lb].parent; db--; }
    while (la != lb) { la = g->loops[la].parent; lb = g->loops[lb].parent; }
    return la;
}

/* The first node (in file order) an item holds: its place in the file order. */
static int first_node(const RduGraph *g, RduEntry e)
{
    if (!e.is_loop)
        return e.index;
    int best = INT32_MAX;
    const RduLoop *l = &g->loops[e.index];
    for (uint32_t i = 0; i < l->nbody; i++) {
        int f = first_node(g, l->body[i]);
        best = MIN(best, f);
    }
    return best;
}

static const char *entry_name(const RduGraph *g, RduEntry e)
{
    return e.is_loop ? g->loops[e.index].name : g->nodes[e.index].name;
}

/* Top-level items in data order (Kahn), ties by file order; a cycle among them is an error. */
static bool order_top(Build *b, GError **error)
{
    RduGraph *g = b->g;
    GArray *items = g_array_new(FALSE, FALSE, sizeof(RduEntry));
    for (uint32_t i = 0; i < g->nnodes; i++)
        if (g->nodes[i].loop < 0)
            g_array_append_val(items, ((RduEntry){ false, (int)i }));
    for (uint32_t i = 0; i < g->nloops; i++)
        if (g->loops[i].parent < 0)
            g_array_append_val(items, ((RduEntry){ true, (int)i }));
    uint32_t n = items->len;
    RduEntry *it = (RduEntry *)(void *)items->data;
    int *key = g_new(int, n), *indeg = g_new0(int, n);
    bool *adj = g_new0(bool, (size_t)n * n), *done = g_new0(bool, n);
    for (uint32_t i = 0; i < n; i++)
        key[i] = first_node(g, it[i]);
    /* item of scope -1 holding each node */
    int *of = g_new(int, g->nnodes);
    for (uint32_t v = 0; v < g->nnodes; v++) {
        RduEntry e = rdu_graph_entry_in(g, (int)v, -1);
        of[v] = -1;
        for (uint32_t i = 0; i < n; i++)
            if (it[i].is_loop == e.is_loop && it[i].index == e.index)
                of[v] = (int)i;
    }
    for (uint32_t v = 0; v < g->nnodes; v++) {
        const RduNode *nd = &g->nodes[v];
        for (uint32_t k = 0; k < nd->nin; k++) {
            int p = g->tensors[nd->in[k]].producer;
            if (p < 0 || of[p] == of[v])
                continue;
            if (!adj[(size_t)of[p] * n + (uint32_t)of[v]]) {
                adj[(size_t)of[p] * n + (uint32_t)of[v]] = true;
                indeg[of[v]]++;
            }
        }
    }
    g->top = g_new0(RduEntry, n ? n : 1);
    bool ok = true;
    for (uint32_t step = 0; step < n; step++) {
        int pick = -1;
        for (uint32_t i = 0; i < n; i++)
            if (!done[i] && indeg[i] == 0 && (pick < 0 || key[i] < key[pick]))
                pick = (int)i;
        if (pick < 0) {
            /* a cycle: walk back along edges among the rest until an item repeats (each item
             * left has a predecessor left, its in-degree counting only those; an item left may
             * have no successor, an item downstream of the cycle) */
            int start = -1;
            for (uint32_t i = 0; i < n && start < 0; i++)
                if (!done[i])
                    start = (int)i;
            int *seen = g_new0(int, n);
            int x = start, len = 0;
            int *path = g_new(int, n + 1);
            while (!seen[x]) {
                seen[x] = ++len;
                path[len - 1] = x;
                int px = -1;
                for (uint32_t j = 0; j < n && px < 0; j++)
                    if (!done[j] && adj[(size_t)j * n + (uint32_t)x])
                        px = (int)j;
                g_assert(px >= 0);
                x = px;
            }
            /* path[seen[x] - 1] is x; each later item is the one before it in the data order */
            GString *s = g_string_new(NULL);
            g_string_append_printf(s, "%s -> ", entry_name(g, it[x]));
            for (int j = len - 1; j >= seen[x]; j--)
                g_string_append_printf(s, "%s -> ", entry_name(g, it[path[j]]));
            g_string_append(s, entry_name(g, it[x]));
            RduEntry ex = it[x];
            int line = ex.is_loop ? g->loops[ex.index].line : g->nodes[ex.index].line;
            int col = ex.is_loop ? g->loops[ex.index].col : g->nodes[ex.index].col;
            gerr_at(error, g->file, line, col, "a cycle without a loop: %s; hint: list them in "
                    "one loop's body, where an edge to an earlier stage is carried to the next "
                    "iteration", s->str);
            g_string_free(s, TRUE);
            g_free(seen);
            g_free(path);
            ok = false;
            break;
        }
        done[pick] = true;
        g->top[g->ntop++] = it[pick];
        for (uint32_t j = 0; j < n; j++)
            if (adj[(size_t)pick * n + j])
                indeg[j]--;
    }
    g_free(of);
    g_free(key);
    g_free(indeg);
    g_free(adj);
    g_free(done);
    g_array_free(items, TRUE);
    return ok;
}

void rdu_graph_free(RduGraph *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; i < g->nnodes; i++)
        g_free(g->nodes[i].name);
    for (uint32_t i = 0; i < g->ntensors; i++)
        g_free(g->tensors[i].name);
    for (uint32_t i = 0; i < g->nloops; i++) {
        g_free(g->loops[i].name);
        g_free(g->loops[i].body);
    }
    g_free(g->nodes);
    g_free(g->tensors);
    g_free(g->loops);
    g_free(g->top);
    g_free(g->path);
    g_free(g);
}

RduGraph *rdu_graph_from_tree(const CfgNode *root, const char *path, GError **error)
{
    static const char *const top_keys[] = { "graph", "description", NULL };
    static const char *const graph_keys[] = { "nodes", "tensors", "loops", NULL };
    const char *file = g_intern_string(path);
    if (!root || root->kind != CFG_MAP) {
        gerr_at(error, file, 1, 1, "expected a map with graph:");
        return NULL;
    }
    if (!known_keys(root, top_keys, "a graph file", error))
        return NULL;
    const CfgNode *gn = cfg_map_get(root, "graph");
    if (!gn || gn->kind != CFG_MAP) {
        gerr(error, gn ? gn : root, "graph: expected a map (nodes, tensors, loops)");
        return NULL;
    }
    if (!known_keys(gn, graph_keys, "graph", error))
        return NULL;
    const CfgNode *nodes = cfg_map_get(gn, "nodes"), *tensors = cfg_map_get(gn, "tensors");
    const CfgNode *loops = cfg_map_get(gn, "loops");
    if (!nodes || nodes->kind != CFG_MAP || nodes->keys->len == 0) {
        gerr(error, nodes ? nodes : gn, "graph.nodes: expected a map of node name -> {op, ...}");
        return NULL;
    }
    if (tensors && tensors->kind != CFG_MAP) {
        gerr(error, tensors, "graph.tensors: expected a map of tensor name -> {shape, dtype}");
        return NULL;
    }
    if (loops && loops->kind != CFG_SEQ) {
        gerr(error, loops, "graph.loops: expected a list of loops");
        return NULL;
    }
    uint32_t nn = nodes->keys->len, nt = tensors ? tensors->keys->len : 0;
    uint32_t nl = loops ? loops->items->len : 0;
    if (nn > RDU_MAX_NODES || nt > RDU_MAX_TENSORS || nl > RDU_MAX_LOOPS) {
        gerr(error, gn, "graph: more than %d nodes, %d tensors or %d loops", RDU_MAX_NODES,
             RDU_MAX_TENSORS, RDU_MAX_LOOPS);
        return NULL;
    }
    RduGraph *g = g_new0(RduGraph, 1);
    g->path = g_strdup(path);
    g->file = file;
    g->nodes = g_new0(RduNode, nn);
    g->tensors = g_new0(RduTensor, nt ? nt : 1);
    g->loops = g_new0(RduLoop, nl ? nl : 1);
    Build b = {
        .g = g,
        .tensor_ix = g_hash_table_new(g_str_hash, g_str_equal),
        .name_ix = g_hash_table_new(g_str_hash, g_str_equal),
        .node_pos = g_new0(const CfgNode *, nn),
        .in_pos = g_new0(const CfgNode *, (size_t)nn * RDU_MAX_IN),
        .out_pos = g_new0(const CfgNode *, nn),
    };
    bool ok = true;
    for (uint32_t i = 0; ok && i < nt; i++)
        ok = parse_tensor(&b, g_ptr_array_index(tensors->keys, i),
                          g_ptr_array_index(tensors->items, i), error);
    for (uint32_t i = 0; ok && i < nn; i++)
        ok = parse_node(&b, g_ptr_array_index(nodes->keys, i), g_ptr_array_index(nodes->items, i),
                        error);
    for (uint32_t i = 0; ok && i < nn; i++)
        ok = check_node(&b, i, error);
    for (uint32_t i = 0; ok && i < nl; i++)
        ok = parse_loop(&b, g_ptr_array_index(loops->items, i), error);
    for (uint32_t i = 0; ok && i < nl; i++)
        ok = resolve_body(&b, i, g_ptr_array_index(loops->items, i), error);
    for (uint32_t i = 0; ok && i < nl; i++) {
        int d = loop_depth(g, (int)i);
        if (d < 0)
            ok = gerr_at(error, file, g->loops[i].line, g->loops[i].col, "loop '%s' is inside "
                         "itself (a loop's bodies list each other)", g->loops[i].name);
        else if (d > RDU_MAX_DEPTH)
            ok = gerr_at(error, file, g->loops[i].line, g->loops[i].col, "loop '%s': nested "
                         "more than %d deep", g->loops[i].name, RDU_MAX_DEPTH);
    }
    /* a node that reads what it writes is an accumulator: legal in a loop, where it reads the
     * previous iteration's value */
    for (uint32_t v = 0; ok && v < nn; v++)
        for (uint32_t i = 0; ok && i < g->nodes[v].nin; i++)
            if (g->nodes[v].out >= 0 && g->nodes[v].in[i] == g->nodes[v].out && g->nodes[v].loop < 0)
                ok = gerr(error, b.in_pos[v * RDU_MAX_IN + i], "in: node '%s' reads the tensor it "
                          "writes, outside any loop; hint: an accumulator goes in a loop's body, "
                          "where it reads the previous iteration's value", g->nodes[v].name);
    for (uint32_t i = 0; ok && i < nt; i++) {
        const RduTensor *t = &g->tensors[i];
        if (t->producer < 0 && t->tier == RDU_TIER_CHIP) {
            /* read but made by no node: it must live somewhere */
            bool read = false;
            for (uint32_t v = 0; v < nn && !read; v++)
                for (uint32_t k = 0; k < g->nodes[v].nin; k++)
                    read |= g->nodes[v].in[k] == (int)i;
            if (read)
                ok = gerr_at(error, file, t->line, t->col, "tensor '%s' is read but no node "
                             "makes it; hint: give it a tier (hbm, ddr or sram) where it lives",
                             t->name);
        }
    }
    if (ok)
        ok = order_top(&b, error);
    g_hash_table_destroy(b.tensor_ix);
    g_hash_table_destroy(b.name_ix);
    g_free(b.node_pos);
    g_free(b.in_pos);
    g_free(b.out_pos);
    if (!ok) {
        /* the entry a parse step failed in holds its name, not yet counted */
        if (g->nnodes < nn)
            g_free(g->nodes[g->nnodes].name);
        if (g->ntensors < nt)
            g_free(g->tensors[g->ntensors].name);
        if (g->nloops < nl)
            g_free(g->loops[g->nloops].name);
        rdu_graph_free(g);
        return NULL;
    }
    return g;
}

RduGraph *rdu_graph_load(const char *path, GError **error)
{
    CfgNode *root = cfg_load_file(path, NULL, error);
    if (!root)
        return NULL;
    RduGraph *g = rdu_graph_from_tree(root, path, error);
    cfg_node_free(root);
    return g;
}
