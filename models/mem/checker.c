/* checker.c: the memory system's reference checks as a component of a machine graph (what
 * system.check turns on for smp and dirsmp): a golden memory against which every performed load
 * is compared, and single-writer / multiple-reader asserted at every permission change
 * (models/mem/oracle.h; gem5's Ruby random tester and MemChecker do the same job). It has no
 * ports: the coherent caches of the machine report to it. One per machine.
 */
#include "checker.h"

#include "../../sim/error.h"
#include "memmsg.h"
#include "oracle.h"

typedef struct {
    uint64_t line;
    bool values;
} CheckerParams;

typedef struct {
    Component base;
    CheckerParams p;
} Checker;

static const ParamSpec checker_params[] = {
    { .name = "line", .type = PARAM_SIZE, .def = "64B", .flags = PARAM_F_RANGE | PARAM_F_POW2,
      .min = 4, .max = 4096, .doc = "coherence block size the permissions are tracked in (the "
      "caches' line)", .offset = offsetof(CheckerParams, line) },
    { .name = "values", .type = PARAM_BOOL, .def = "true",
      .doc = "compare every performed load with the golden memory (false: SWMR only)",
      .offset = offsetof(CheckerParams, values) },
    PARAM_END,
};

static bool checker_realize(Component *c, GError **error)
{
    Checker *k = (Checker *)c;
    MemShared *ms = mem_shared(c->sim);
    if (ms->oracle)
        return sim_component_reject(c, NULL, error, "a machine has one mem-checker (another "
                                    "component already checks this one)");
    ms->oracle = oracle_new((uint32_t)k->p.line, k->p.values);   /* freed with MemShared */
    return true;
}

static const PortSpec checker_ports[] = { PORT_END };
static const StatSpec checker_stats[] = { STAT_END };

const ComponentClass mem_checker_class = {
    .name = "mem-checker",
    .doc = "reference checks: every load's value against a golden memory, SWMR at every "
           "permission change (one per machine; no ports)",
    .size = sizeof(Checker),
    .params_offset = offsetof(Checker, p),
    .params = checker_params,
    .ports = checker_ports,
    .stats = checker_stats,
    .realize = checker_realize,
};
