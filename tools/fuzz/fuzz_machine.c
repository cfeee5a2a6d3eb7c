/* fuzz_machine.c: AFL++ harness for the machine-graph loader (sim/machine.c): declarations,
 * arrays, clocks, overrides, link selectors and the classes' link checks, fed one YAML text per
 * input, optionally followed by NUL-separated --set assignments (as fuzz_config.c).
 *
 * Each input is parsed (sim/config.c), a components: key is forced so that the graph builder is
 * what runs, sim.max_cycles is capped, and system_build builds the machine; a machine that
 * builds is run for at most FUZZ_CYCLES cycles. Oracles (abort() on a failure, a crash to AFL++):
 *   - a rejected machine fails with exit code 78 (a bad config), 66 (a missing include or trace)
 *     or 65 (a bad trace), and its message begins with a position: "FILE:LINE:COL: ", or
 *     "--set " for an assignment, or a path for a missing file;
 *   - a machine that builds names every component once and links every port it made to a peer
 *     that links back;
 *   - its resolved config loads back and builds the same components.
 * Bounded: inputs over 64 KiB are skipped; arrays are limited by the loader itself.
 *
 *   fuzz_machine FILE...    exit 0 when every file passed
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/config.h"
#include "../../sim/error.h"
#include "../../sim/system.h"

#ifdef __AFL_FUZZ_TESTCASE_LEN
__AFL_FUZZ_INIT();
#endif

#define FUZZ_MAX_INPUT 65536
#define FUZZ_CYCLES "20000"

static int fuzz_violation(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_machine: %s: %s\n", what, detail ? detail : "");
    return 1;
}

static bool positioned(const char *msg)
{
    if (g_str_has_prefix(msg, "--set "))
        return true;
    const char *colon = strchr(msg, ':');
    if (!colon || colon == msg)
        return false;
    /* FILE:LINE:COL: or PATH: cannot open */
    int line = 0, col = 0;
    return sscanf(colon, ":%d:%d:", &line, &col) == 2 || strstr(msg, "cannot open") != NULL ||
           strstr(msg, "No such file") != NULL || strstr(msg, "cannot read") != NULL;
}

static int check_error(GError *e)
{
    int bad = 0;
    if (e->code != ARCHSIM_EXIT_CONFIG && e->code != ARCHSIM_EXIT_NOINPUT &&
        e->code != ARCHSIM_EXIT_DATAERR && e->code != ARCHSIM_EXIT_USAGE)
        bad = fuzz_violation("unexpected exit code", e->message);
    else if (!positioned(e->message))
        bad = fuzz_violation("message without a position", e->message);
    g_error_free(e);
    return bad;
}

static int check_machine(SystemRun *run)
{
    GHashTable *names = g_hash_table_new(g_str_hash, g_str_equal);
    int bad = 0;
    for (guint i = 0; !bad && i < run->sim.components->len; i++) {
        Component *c = g_ptr_array_index(run->sim.components, i);
        if (!g_hash_table_add(names, c->name))
            bad = fuzz_violation("two components share a name", c->name);
        for (guint k = 0; !bad && k < c->ports->len; k++) {
            Port *p = g_ptr_array_index(c->ports, k);
            if (!p->peer || p->peer->peer != p || p->latency < 1)
                bad = fuzz_violation("a port without a peer that links back", c->name);
        }
    }
    g_hash_table_destroy(names);
    return bad;
}

static int fuzz_machine_one(const char *data, size_t len)
{
    if (len > FUZZ_MAX_INPUT)
        return 0;
    size_t ylen = strnlen(data, len);
    char *yaml = g_strndup(data, ylen);
    GError *e = NULL;
    CfgNode *root = cfg_load_string("fuzz.yaml", yaml, NULL, &e);
    g_free(yaml);
    if (!root) {
        g_error_free(e);            /* the config layer's own harness checks its errors */
        return 0;
    }
    for (size_t at = ylen + 1; at < len;) {
        size_t n = strnlen(data + at, len - at);
        char *set = g_strndup(data + at, n);
        at += n + 1;
        if (!cfg_apply_set(root, set, &e)) {
            g_clear_error(&e);
            g_free(set);
            cfg_node_free(root);
            return 0;
        }
        g_free(set);
    }
    if (root->kind != CFG_MAP || !cfg_map_get(root, "components")) {
        cfg_node_free(root);
        return 0;
    }
    cfg_apply_set(root, "sim.max_cycles=" FUZZ_CYCLES, NULL);
    cfg_apply_set(root, "sim.memory_limit=256MiB", NULL);
    SystemRun *run = system_build(root, -1, NULL, NULL, &e);
    if (!run)
        return check_error(e);
    int bad = check_machine(run);
    guint ncomp = run->sim.components->len;
    GString *res = g_string_new(NULL);
    system_emit_resolved(run, res);
    if (!bad && !system_run(run, &e))
        g_clear_error(&e);          /* a deadlock or a check is the model's verdict */
    system_free(run);
    CfgNode *again = bad ? NULL : cfg_load_string("resolved.yaml", res->str, NULL, &e);
    if (!bad && !again)
        bad = fuzz_violation("resolved config does not load", e->message);
    g_clear_error(&e);
    if (again) {
        SystemRun *r2 = system_build(again, -1, NULL, NULL, &e);
        if (!r2)
            bad = fuzz_violation("resolved config does not build", e ? e->message : "");
        else if (r2->sim.components->len != ncomp)
            bad = fuzz_violation("resolved config builds another machine", res->str);
        g_clear_error(&e);
        system_free(r2);
    }
    g_string_free(res, TRUE);
    return bad;
}

static int fuzz_run_file(const char *path)
{
    gchar *data = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &data, &len, NULL)) {
        fprintf(stderr, "fuzz_machine: cannot read %s\n", path);
        return 66;
    }
    int bad = fuzz_machine_one(data, len);
    g_free(data);
    if (bad) {
        fprintf(stderr, "fuzz_machine: oracle failed on %s\n", path);
        abort();
    }
    return 0;
}

int main(int argc, char **argv)
{
#ifdef __AFL_FUZZ_TESTCASE_LEN
    if (argc < 2) {
        __AFL_INIT();
        const unsigned char *buf = __AFL_FUZZ_TESTCASE_BUF;
        while (__AFL_LOOP(1000)) {
            size_t len = (size_t)__AFL_FUZZ_TESTCASE_LEN;
            char *copy = g_malloc(len + 1);
            memcpy(copy, buf, len);
            copy[len] = '\0';
            if (fuzz_machine_one(copy, len) != 0)
                abort();
            g_free(copy);
        }
        return 0;
    }
#endif
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...\n", argv[0]);
        return 64;
    }
    int status = 0;
    for (int i = 1; i < argc; i++) {
        int r = fuzz_run_file(argv[i]);
        if (status == 0)
            status = r;
    }
    return status;
}
