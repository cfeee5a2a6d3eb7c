/* tpumem.c: `tpu-memory`, SCALE-Sim's DRAM interface as a memory component: what a tpu-array's
 * mem port leads to when the run is to give SCALE-Sim's numbers (Samajdar et al., arXiv
 * 1811.02883, §III: CALC reports the bandwidth a stall-free run needs, USER stalls the array
 * on a bandwidth of B words per cycle per operand). That timing, quirks included, is the
 * array's own model (tpumodel.c computes it from tpu.interface and tpu.bandwidth, with the
 * layer's cycles); so this memory answers every fill and drain at once (the link's tick each
 * way, within the cycle) and never adds a stall. A timed memory (dram) on the port instead
 * answers in its own time, and the array waits for it (tpusys.c).
 */
#include <string.h>

#include "../../sim/error.h"
#include "../mem/memmsg.h"
#include "tpu.h"

typedef struct {
    int unused;
} TmParams;

typedef struct {
    Component base;
    TmParams p;
} TpuMem;

static const ParamSpec tm_params[] = { PARAM_END };

static const PortSpec tm_ports[] = {
    { .name = "port", .role = PORT_RESPONDER, .required = true,
      .doc = "a tpu-array's mem port: its SRAM fills (reads) and drains (writes)" },
    PORT_END,
};

/* Nothing of its own to count: its traffic is the array's dram_reads and dram_writes, and
 * stats.txt of a SCALE-Sim run stays as it was before the array had a port. */
static const StatSpec tm_stats[] = { STAT_END };

static void tm_recv(Component *c, Port *port, Msg *m)
{
    switch (m->cmd) {
    case MSG_READ_REQ:
        m->cmd = MSG_READ_RESP;
        break;
    case MSG_WRITE_REQ:
        m->cmd = MSG_WRITE_RESP;
        break;
    default:
        g_error("%s: unexpected message cmd %u", c->name, m->cmd);
    }
    sim_port_send(c, port, m, 0);
}

/* Its timing is the model of the array that sends to it: a tpu-array, nothing else. */
static bool tm_check_link(Component *c, Port *mine, Port *theirs, GError **error)
{
    (void)mine;
    Component *o = theirs->owner;
    if (o->cls == &tpu_array_class)
        return true;
    return sim_component_reject(c, NULL, error,
                                "tpu-memory answers only a tpu-array's mem port (its timing is "
                                "the array's SCALE-Sim interface model), not %s (class %s): "
                                "link %s to a dram instead", o->name, o->cls->name, o->name);
}

const ComponentClass tpu_memory_class = {
    .name = "tpu-memory",
    .doc = "SCALE-Sim's CALC/USER DRAM interface for one tpu-array: answers its fills and drains "
           "at once, the array's model timing them (docs/tpu.md)",
    .size = sizeof(TpuMem),
    .params_offset = offsetof(TpuMem, p),
    .params = tm_params,
    .ports = tm_ports,
    .stats = tm_stats,
    .recv = tm_recv,
    .check_link = tm_check_link,
};
