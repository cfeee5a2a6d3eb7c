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
 * The memory message itself does not travel the network: it rides in an envelope, a message of
 * the "net" family whose payload is a NocRoute and a pointer to it (the memory payload keeps its
 * own fields; the noc reads and writes only the envelope's route). An envelope is charged the
 * bytes the memory message carries: none for a read request or a write's answer (a header-only
 * control message), the line for a read's answer, a write or a write-back. Requests travel on
 * vnet 0, answers on vnet 2 (nocmsg.h), so an answer never waits behind a request. The memory's
 * interface keeps the envelope of each request until the memory answers (a write-back has no
 * answer: its envelope goes back to the pool at once); envelopes come from the message pool,
 * so nothing is allocated per message. Each interface adds `latency` cycles of its own clock.
 */
#include "ni.h"

#include "../../sim/error.h"
#include "../mem/memmsg.h"
#include "noc.h"
#include "nocmsg.h"

/* the "net" family: an envelope that carries a memory message across a noc */
enum { NET_CARRY, NET_CMDS };
#define MSG_NET_CARRY MSG_CMD(MSG_FAM_NET, NET_CARRY)
typedef struct {
    NocRoute route;             /* first: what the noc reads (nocmsg.h) */
    Msg *inner;                 /* the memory message it carries */
} NetPayload;
MSG_PAYLOAD_FITS(NetPayload);
static inline NetPayload *net_msg(Msg *m)
{
    return (NetPayload *)SIM_MSG_PAYLOAD(m, MSG_FAM_BIT(MSG_FAM_NET));
}
static const char *const net_cmd_names[NET_CMDS] = { [NET_CARRY] = "carry" };
const MsgFamily net_msg_family = {
    .name = "net", .id = MSG_FAM_NET, .payload = sizeof(NetPayload),
    .cmds = net_cmd_names, .ncmds = NET_CMDS,
};

typedef struct {
    uint64_t memory, latency;
} NiParams;

typedef struct {
    Component base;
    NiParams p;
    Port *cpu, *mem, *net;
    GPtrArray *pending;         /* noc-mem-ni: envelopes of requests the memory has not answered */
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
static uint32_t ni_wire_bytes(const Msg *m)
{
    return m->cmd == MSG_READ_REQ || m->cmd == MSG_WRITE_RESP ? 0 : m->size;
}

/* Sends m (a memory message) to endpoint dst in envelope env (NULL: a new one). */
static void ni_inject(Ni *k, Msg *env, Msg *m, uint32_t dst, uint32_t vnet)
{
    if (!env)
        env = sim_msg_alloc(k->base.sim);
    env->cmd = MSG_NET_CARRY;
    env->issued = m->issued;
    env->size = ni_wire_bytes(m);
    net_msg(env)->inner = m;
    noc_msg_route(env, dst, vnet);
    k->bytes_out += env->size;
    sim_port_send(&k->base, k->net, env, k->p.latency);
}

static bool ni_realize(Component *c, GError **error)
{
    Ni *k = (Ni *)c;
    k->cpu = sim_port(c, "cpu_side", 0);
    k->mem = sim_port(c, "mem_side", 0);
    k->net = sim_port(c, "net", 0);
    k->pending = g_ptr_array_new();
    if (!k->net || !k->net->peer || k->net->peer->owner->cls != &noc_class)
        return sim_component_reject(c, "net", error, "net must be linked to a noc's node port%s%s",
                                    k->net && k->net->peer ? ", not to " : "",
                                    k->net && k->net->peer ? k->net->peer->owner->name : "");
    uint64_t vnets = 0;
    sim_component_param_u64(k->net->peer->owner, "vnets", &vnets);
    if (vnets < NOC_VNET_RESPONSE + 1)
        /* requests on vnet 0, answers on vnet 2 (a noc of fewer aborted when one was sent) */
        return sim_component_reject(k->net->peer->owner, "vnets", error,
                                    "%s sends answers on virtual network %d, so this noc needs "
                                    "at least %d virtual networks, not %" G_GUINT64_FORMAT
                                    "; hint: set vnets: 3", c->name, NOC_VNET_RESPONSE,
                                    NOC_VNET_RESPONSE + 1, vnets);
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
        ni_inject(k, NULL, m, (uint32_t)k->p.memory, NOC_VNET_REQUEST);
    } else {                    /* an answer's envelope */
        Msg *inner = net_msg(m)->inner;
        k->bytes_in += m->size;
        sim_msg_free(c->sim, m);
        k->responses++;
        sim_port_send(c, k->cpu, inner, k->p.latency);
    }
}

static void mem_recv(Component *c, Port *port, Msg *m)
{
    Ni *k = (Ni *)c;
    if (port == k->net) {       /* a request's envelope: keep it for the answer */
        Msg *inner = net_msg(m)->inner;
        k->bytes_in += m->size;
        k->requests++;
        if (inner->cmd == MSG_WRITEBACK)
            sim_msg_free(c->sim, m);    /* no answer comes */
        else
            g_ptr_array_add(k->pending, m);
        sim_port_send(c, k->mem, inner, k->p.latency);
        return;
    }
    /* the memory's answer: back to the endpoint that asked, in the request's envelope */
    for (guint i = 0; i < k->pending->len; i++) {
        Msg *env = g_ptr_array_index(k->pending, i);
        if (net_msg(env)->inner != m)
            continue;
        g_ptr_array_remove_index_fast(k->pending, i);
        k->responses++;
        ni_inject(k, env, m, noc_msg_src(env), NOC_VNET_RESPONSE);
        return;
    }
    GError *e = g_error_new(ARCHSIM_SIM_ERROR, ARCHSIM_EXIT_SOFTWARE,
                            "%s: an answer from %s to no request of this interface", c->name,
                            k->mem->peer->owner->name);
    sim_fail(c->sim, e);
    sim_msg_free(c->sim, m);
}

static void ni_finalize(Component *c)
{
    Ni *k = (Ni *)c;
    if (k->pending)
        g_ptr_array_free(k->pending, TRUE);
    k->pending = NULL;
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
    .finalize = ni_finalize,
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
    .finalize = ni_finalize,
};
