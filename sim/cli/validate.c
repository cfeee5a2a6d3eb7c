/* validate.c: `archsim validate`, each file checked as what it is: a config (its machine is
 * built and its inputs opened, nothing simulated), a sweep file (the machine of every point,
 * the expansion `archsim sweep` runs), or an include-only part (its sections on their own).
 */
#include "validate.h"

#include <string.h>

#include "../error.h"
#include "sweep.h"
#include "../system.h"

static bool is_seed_key(const char *key)
{
    return strcmp(key, "seed") == 0 || strcmp(key, "sim.seed") == 0;
}

/* The node of the sweep: block that holds value idx of axis a. */
static const CfgNode *axis_value_node(const CfgNode *block, const SweepAxis *a, guint idx)
{
    const CfgNode *lists = cfg_map_get(block, a->zip ? "zip" : "grid");
    const CfgNode *v = lists ? cfg_map_get(lists, a->key) : NULL;
    if (v && v->kind == CFG_SEQ && idx < v->items->len)
        return g_ptr_array_index(v->items, idx);
    return v;
}

/* A point's swept values are --set assignments, resolved as `archsim sweep`'s points resolve
 * them (a relative path from the current directory); an error at one of them names the value's
 * place in the sweep: block instead of "--set KEY=VALUE". */
static void place_set_error(GError *e, const char *assignment, const CfgNode *at)
{
    char *from = g_strdup_printf("--set %s: ", assignment);
    if (g_str_has_prefix(e->message, from)) {
        char *where = cfg_node_where(at);
        char *msg = g_strdup_printf("%s: %s", where, e->message + strlen(from));
        g_free(e->message);
        e->message = msg;
        g_free(where);
    }
    g_free(from);
}

/* Builds point i: base with the point's swept values; false with *error (the point named). */
static bool check_point(const Sweep *s, const CfgNode *block, const CfgNode *base, guint i,
                        GError **error)
{
    guint n = sweep_n_points(s);
    guint *idx = g_new0(guint, s->axes->len ? s->axes->len : 1);
    sweep_point_index(s, i, idx);
    CfgNode *root = cfg_node_copy(base);
    GString *label = g_string_new(NULL);
    GPtrArray *assigns = g_ptr_array_new_with_free_func(g_free);
    bool ok = true;
    for (guint k = 0; k < s->axes->len; k++) {
        const SweepAxis *a = g_ptr_array_index(s->axes, k);
        g_string_append_printf(label, "%s%s=%s", label->len ? ", " : "", a->key,
                               (const char *)g_ptr_array_index(a->values, idx[k]));
        char *assign = g_strdup_printf("%s=%s", a->key,
                                       (const char *)g_ptr_array_index(a->args, idx[k]));
        g_ptr_array_add(assigns, assign);
        /* a swept seed is the point's seed (its values were checked with the block) */
        if (ok && !is_seed_key(a->key))
            ok = cfg_apply_set(root, assign, error);
    }
    if (ok) {
        SystemRun *run = system_build(root, -1, NULL, NULL, error);
        root = NULL;            /* system_build owns it */
        ok = run != NULL;
        system_free(run);
    }
    if (!ok) {
        for (guint k = 0; k < s->axes->len; k++) {
            const CfgNode *at = axis_value_node(block, g_ptr_array_index(s->axes, k), idx[k]);
            if (at)
                place_set_error(*error, g_ptr_array_index(assigns, k), at);
        }
        char *msg = g_strdup_printf("%s (sweep point %u of %u: %s)", (*error)->message, i, n,
                                    label->str);
        g_free((*error)->message);
        (*error)->message = msg;
    }
    g_ptr_array_free(assigns, TRUE);
    if (root)
        cfg_node_free(root);
    g_string_free(label, TRUE);
    g_free(idx);
    return ok;
}

static bool validate_sweep(CfgNode *root, char *const *sets, GString *summary, GPtrArray *errors)
{
    CfgNode *block = cfg_node_copy(cfg_map_get(root, "sweep"));
    cfg_map_remove(root, "sweep");
    Sweep *s = sweep_new();
    GError *e = NULL;
    bool ok = sweep_add_yaml(s, block, &e);
    for (char *const *p = sets; ok && p && *p; p++)
        ok = cfg_apply_set(root, *p, &e);
    if (ok && s->axes->len == 0) {
        /* a block with only stats: the axes come from `archsim sweep --grid`; the base is
         * what every point builds on */
        SystemRun *run = system_build(root, -1, NULL, NULL, &e);
        root = NULL;
        ok = run != NULL;
        system_free(run);
        if (ok)
            g_string_append(summary, "ok (sweep with no grid or zip: its base config built; "
                                     "the axes come from the command line)");
        else
            g_ptr_array_add(errors, e);
        sweep_free(s);
        cfg_node_free(block);
        return ok;
    }
    if (ok)     /* the base seed, as `archsim sweep` takes it without --seed */
        ok = sweep_config_seed(root, &s->base_seed, &e);
    if (ok && !sweep_check(s, root, &e)) {
        GError *at = sweep_block_error(block, e->message);
        g_error_free(e);
        e = at;
        ok = false;
    }
    if (!ok) {
        g_ptr_array_add(errors, e);
    } else {
        guint n = sweep_n_points(s), failed = 0;
        for (guint i = 0; i < n; i++) {
            if (check_point(s, block, root, i, &e))
                continue;
            if (++failed <= VALIDATE_MAX_POINT_ERRORS)
                g_ptr_array_add(errors, e);
            else
                g_error_free(e);
            e = NULL;
        }
        if (failed > VALIDATE_MAX_POINT_ERRORS) {
            const GError *first = g_ptr_array_index(errors, 0);
            g_ptr_array_add(errors, g_error_new(first->domain, first->code,
                                                "%u more of the %u points fail (%u in all)",
                                                failed - VALIDATE_MAX_POINT_ERRORS, n, failed));
        }
        ok = failed == 0;
        if (ok)
            g_string_append_printf(summary, "ok (sweep: %u point%s, each built as a config)", n,
                                   n == 1 ? "" : "s");
    }
    sweep_free(s);
    cfg_node_free(block);
    cfg_node_free(root);
    return ok;
}

bool validate_file(const char *path, char *const *sets, GString *summary, GPtrArray *errors)
{
    GError *e = NULL;
    CfgNode *root = cfg_load_file(path, NULL, &e);
    if (!root) {
        g_ptr_array_add(errors, e);
        return false;
    }
    if (cfg_map_get(root, "sweep"))
        return validate_sweep(root, sets, summary, errors);
    bool part = system_is_part(root);
    bool ok = true;
    for (char *const *p = sets; ok && p && *p; p++)
        ok = cfg_apply_set(root, *p, &e);
    if (ok && part) {
        GString *what = g_string_new(NULL);
        ok = system_check_part(root, what, &e);
        if (ok)
            g_string_append_printf(summary, "ok (%s)", what->str);
        g_string_free(what, TRUE);
    } else if (ok) {
        SystemRun *run = system_build(root, -1, NULL, NULL, &e);
        root = NULL;
        ok = run != NULL;
        if (ok)
            g_string_append_printf(summary, "ok (config: system %s, %u component%s built)",
                                   run->sys->name, run->sim.components->len,
                                   run->sim.components->len == 1 ? "" : "s");
        system_free(run);
    }
    if (root)
        cfg_node_free(root);
    if (!ok)
        g_ptr_array_add(errors, e);
    return ok;
}
