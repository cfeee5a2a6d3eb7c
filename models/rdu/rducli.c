/* rducli.c: `archsim rdu map GRAPH --machine CONFIG`: how the mapper places a dataflow graph on
 * an RDU config (stages, PCUs, buffers, SRAM, the predicted initiation interval, the kernels it
 * split into and why). `archsim rdu run` is `archsim run CONFIG --set workload.graph=GRAPH`
 * (sim/cli/main.c). */
#include <stdio.h>
#include <string.h>

#include "../../sim/cli/cli.h"
#include "../../sim/config.h"
#include "../../sim/error.h"
#include "../../sim/system.h"
#include "rdu.h"
#include "rdusys.h"

static const char rdu_usage[] =
    "Usage: archsim rdu run GRAPH.yaml --machine CONFIG [-o DIR] [RUN OPTIONS]\n"
    "       archsim rdu map GRAPH.yaml --machine CONFIG [--set KEY=VALUE ...]\n"
    "\n"
    "The dataflow RDU's tools: map a parallel-pattern graph onto PCUs and PMUs, run it (docs/rdu.md).\n"
    "\n"
    "Options:\n"
    "  -h, --help  Show this help and exit\n"
    "\n"
    "Subcommands:\n"
    "  run  simulate the graph on the config's chip, cycle by cycle; stats in a run directory\n"
    "  map  print the mapping: kernels, stages with their PCUs and places, buffers with their\n"
    "       versions and PMUs, SRAM used, the predicted initiation interval\n"
    "\n"
    "`archsim rdu SUBCOMMAND --help` shows a subcommand's options.\n"
    "\n"
    "Exit status: 0 success, 64 bad command line, 66 a file is missing, 78 bad config or graph\n"
    "(file:line:col: problem).\n";

static const CliHelp map_help = {
    .cmd = "rdu map",
    .usage = "archsim rdu map GRAPH.yaml --machine CONFIG [--set KEY=VALUE ...]",
    .summary = "Print how a dataflow graph maps onto an RDU config, without running it.",
    .details =
        "The mapper makes each loop-body entry a stage (consecutive element-wise ops fused into\n"
        "the stage before them), gives the slowest stages more PCUs until the chip's are spent,\n"
        "holds each tensor between stages a and b of a pipelined loop in b - a + 1 buffer\n"
        "versions in PMUs, tiles loops whose buffers do not fit, places the stages on the grid\n"
        "and splits a graph too big for the chip into several kernels, saying why (docs/rdu.md,\n"
        "\"The mapper\"). The report lists each kernel's PCUs, PMUs and SRAM, each loop's\n"
        "predicted initiation interval and cycles, each stage's PCUs, place (row, column) and\n"
        "cycles per iteration, and each buffer's size, versions and PMUs.\n"
        "\n"
        "Examples:\n"
        "  archsim rdu map workloads/dataflow/metapipe.yaml --machine configs/rdu/teach-4x4.yaml\n"
        "  archsim rdu map workloads/dataflow/mlp.yaml --machine configs/rdu/sn40l.yaml\n"
        "\n"
        "Exit status: 0 success, 64 bad command line, 66 a file is missing, 78 bad config or\n"
        "graph (file:line:col: problem).\n",
};

static int map_main(int argc, char **argv)
{
    gchar *machine = NULL;
    gchar **sets = NULL;
    GOptionEntry entries[] = {
        { "machine", 'm', 0, G_OPTION_ARG_FILENAME, &machine, "an RDU config (configs/rdu/*.yaml)",
          "CONFIG" },
        { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a config key (repeatable)",
          "KEY=VALUE" },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    int rc = cli_parse(&map_help, entries, &argc, &argv);
    if (rc >= 0)
        goto out;
    if (argc != 2 || !machine) {
        rc = cli_usage_error("rdu map", argc < 2 ? "missing GRAPH.yaml (the first argument)"
                             : argc > 2 ? "unexpected argument '%s'"
                             : "--machine CONFIG is required (an RDU config, e.g. "
                               "configs/rdu/sn40l.yaml)", argc > 2 ? argv[2] : "");
        goto out;
    }
    GError *e = NULL;
    CfgNode *root = cfg_load_file(machine, NULL, &e);
    bool ok = root != NULL;
    for (int i = 0; ok && sets && sets[i]; i++)
        ok = cfg_apply_set(root, sets[i], &e);
    if (ok) {
        char *g = cfg_set_literal("workload.graph", argv[1]);
        ok = cfg_apply_set(root, g, &e);
        g_free(g);
    }
    if (ok) {
        const CfgNode *sys = cfg_map_get(root, "system");
        const CfgNode *type = sys ? cfg_map_get(sys, "type") : NULL;
        if (!type || type->kind != CFG_SCALAR || strcmp(type->scalar, "rdu") != 0) {
            g_set_error(&e, ARCHSIM_CONFIG_ERROR, ARCHSIM_EXIT_CONFIG, "%s: not an RDU config "
                        "(system.type is not rdu); hint: configs/rdu/*.yaml", machine);
            ok = false;
        }
    }
    SystemRun *run = NULL;
    if (ok) {
        run = system_build(root, -1, NULL, NULL, &e);     /* takes root */
        root = NULL;
        ok = run != NULL;
    }
    if (ok) {
        Component *c = sim_component_find(&run->sim, "rdu");
        g_assert(c != NULL);
        GString *out = g_string_new(NULL);
        rdu_chip_report(c, out);
        fputs(out->str, stdout);
        g_string_free(out, TRUE);
        rc = fflush(stdout) == 0 && !ferror(stdout) ? 0 : ARCHSIM_EXIT_IOERR;
    } else {
        fprintf(stderr, "archsim rdu map: %s\n", e->message);
        rc = e->code;
        g_error_free(e);
    }
    if (run)
        system_free(run);
    if (root)
        cfg_node_free(root);
out:
    g_free(machine);
    g_strfreev(sets);
    return rc;
}

int rdu_cli_main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(rdu_usage, stderr);
        return ARCHSIM_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(rdu_usage, stdout);
        return fflush(stdout) == 0 && !ferror(stdout) ? 0 : ARCHSIM_EXIT_IOERR;
    }
    if (!strcmp(argv[1], "map"))
        return map_main(argc - 1, argv + 1);
    return cli_usage_error("rdu", "unknown command '%s' (run, map)", argv[1]);
}
