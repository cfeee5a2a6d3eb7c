/* ni.c: network interfaces for plain memory traffic on a noc (the role of gem5's Garnet network
 * interfaces for a non-coherent memory side; Dally & Towles, "Principles and Practices of
 * Interconnection Networks", ch. 20, network interfaces). A noc-req-ni takes the requests of the
 * cache linked to its cpu_side (reads, writes, write-backs) and sends each, as the same message,
 * to the noc endpoint of a noc-mem-ni (param memory); that one hands it to the memory linked to
 * its mem_side and routes the memory's answer back to the endpoint that asked (the network tells
 * the receiver the source of every message, nocmsg.h).
 *
 *   l2.mem_side -> ni.cpu_side   ni.net -> ring.node[0]  ...  mni.net -> ring.node[2]
 *   mni.mem_side -> dram.port
 *
 * Serialization: a message without data (a read request, a write's answer) crosses the network
 * as a control message (its size is 0 on the wire: header only; the interfaces keep the real
 * size in the routing word's note and put it back on the far side); reads' answers, writes and
 * write-backs carry their bytes. Requests travel on vnet 0, answers on vnet 2 (nocmsg.h), so an
 * answer never waits behind a request. Each interface adds `latency` cycles of its own clock.
 */
#include "ni.h"

#include "../../sim/error.h"
#include "nocmsg.h"

typedef struct {
    uint64_t memory, latency;
} NiParams;

typedef struct {
    Component base;
    NiParams p;
    Port *cpu, *mem, *net;
    uint64_t requests, responses, bytes_out, bytes_in;
} Ni;

static const ParamSpec req_params[] = {
    { .name = "memory", .type = PARAM_UINT, .def = NULL, .flags = PARAM_F_REQUIRED,
      .doc = "noc endpoint of the noc-mem-ni that serves every request (the slot of the noc's "
      "node port it is linked to)", .offset = offsetof(NiParams, memory) },
    { .name = "latency", .type = PARAM_CYCLES, .def = "1", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1000000, .doc = "cycles the interface adds each way", .offset = offsetof(NiParams, latency) },
    PARAM_END,
};
static const ParamSpec mem_params[] = {
    { .name = "latency", .type = PARAM_CYCLES, .def = "1", .flags = PARAM_F_RANGE, .min = 0,
      .max = 1000000, .doc = "cycles the interface adds each way", .offset = offsetof(NiParams, latency) },
    PARAM_END,
};

static const PortSpec req_ports[] = {
    { .name = "cpu_side", .role = PORT_RESPONDER, .required = true,
      .doc = "requests from a cache's mem_side (or a core)" },
    { .name = "net", .role = PORT_REQUESTER, .required = true, .doc = "to a noc's node port" },
    PORT_END,
};
static const PortSpec mem_ports[] = {
    { .name = "net", .role = PORT_REQUESTER, .required = true, .doc = "to a noc's node port" },
    { .name = "mem_side", .role = PORT_REQUESTER, .required = true,
      .doc = "to the memory (a dram's port, a cache's cpu_side)" },
    PORT_END,
};

static const StatSpec ni_stats[] = {
    { "requests", STAT_COUNTER, "count", "requests sent into the network (req) or to the memory "
      "(mem)", offsetof(Ni, requests), NULL },
    { "responses", STAT_COUNTER, "count", "answers handed back", offsetof(Ni, responses), NULL },
    { "bytes_out", STAT_COUNTER, "byte", "payload bytes injected into the network (header "
      "excluded)", offsetof(Ni, bytes_out), NULL },
    { "bytes_in", STAT_COUNTER, "byte", "payload bytes received from the network",
      offsetof(Ni, bytes_in), NULL },
    STAT_END,
};

/* no data travels with a read request or a write's answer: it crosses as a control message */
static bool ni_dataless(const Msg *m)
{
    return m->cmd == MSG_READ_REQ || m->cmd == MSG_WRITE_RESP;
}

static void ni_inject(Ni *k, Msg *m, uint32_t dst, uint32_t vnet)
{
    uint32_t size = m->size;
    noc_msg_route(m, dst, vnet);
    if (ni_dataless(m)) {
        noc_msg_set_note(m, size);
        m->size = 0;
    }
    k->bytes_out += m->size;
    sim_port_send(&k->base, k->net, m, k->p.latency);
}

static void ni_eject(Ni *k, Msg *m)
{
    k->bytes_in += m->size;
    if (ni_dataless(m))
        m->size = noc_msg_note(m);
}

static bool ni_realize(Component *c, GError **error)
{
    Ni *k = (Ni *)c;
    k->cpu = sim_port(c, "cpu_side", 0);
    k->mem = sim_port(c, "mem_side", 0);
    k->net = sim_port(c, "net", 0);
    if (c->cls == &noc_req_ni_class) {
        /* the endpoint named by memory must be a memory interface on the same network */
        Component *noc = k->net->peer->owner;
        Port *at = sim_port(noc, k->net->peer->owner->cls->ports[k->net->peer->spec].name,
                            (int)k->p.memory);
        if (k->p.memory > 0xffff || !at || !at->peer || at->peer->owner->cls != &noc_mem_ni_class)
            return sim_component_reject(c, "memory", error, "endpoint %" G_GUINT64_FORMAT " of %s "
                                        "is %s%s%s, not a noc-mem-ni: set memory to the slot of "
                                        "%s's node port that the memory's interface is linked to",
                                        k->p.memory, noc->name, at && at->peer ? "" : "not linked",
                                        at && at->peer ? at->peer->owner->name : "",
                                        at && at->peer ? "" : "", noc->name);
    }
    return true;
}

static void req_recv(Component *c, Port *port, Msg *m)
{
    Ni *k = (Ni *)c;
    if (port == k->cpu) {
        k->requests++;
        ni_inject(k, m, (uint32_t)k->p.memory, NOC_VNET_REQUEST);
    } else {
        ni_eject(k, m);
        k->responses++;
        sim_port_send(c, k->cpu, m, k->p.latency);
    }
}

static void mem_recv(Component *c, Port *port, Msg *m)
{
    Ni *k = (Ni *)c;
    if (port == k->net) {
        ni_eject(k, m);
        k->requests++;
        sim_port_send(c, k->mem, m, k->p.latency);   /* the routing word rides along */
    } else {
        k->responses++;
        ni_inject(k, m, noc_msg_src(m), NOC_VNET_RESPONSE);
    }
}

const ComponentClass noc_req_ni_class = {
    .name = "noc-req-ni",
    .doc = "network interface of a requester: sends the memory requests of the cache on its "
           "cpu_side across a noc to a noc-mem-ni and returns the answers",
    .size = sizeof(Ni),
    .params_offset = offsetof(Ni, p),
    .params = req_params,
    .ports = req_ports,
    .stats = ni_stats,
    .realize = ni_realize,
    .recv = req_recv,
};

const ComponentClass noc_mem_ni_class = {
    .name = "noc-mem-ni",
    .doc = "network interface of a memory: hands requests from a noc to the memory on its "
           "mem_side and routes each answer back to the endpoint that asked",
    .size = sizeof(Ni),
    .params_offset = offsetof(Ni, p),
    .params = mem_params,
    .ports = mem_ports,
    .stats = ni_stats,
    .realize = ni_realize,
    .recv = mem_recv,
};
