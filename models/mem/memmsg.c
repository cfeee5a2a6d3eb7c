/* memmsg.c: the memory family's table (command names for dumps and messages) and the state its
 * components share in a run (memmsg.h). */
#include "memmsg.h"

#include "oracle.h"

static const char *const mem_cmd_names[MEM_CMDS] = {
    [MEM_READ_REQ] = "read_req",   [MEM_WRITE_REQ] = "write_req", [MEM_READ_RESP] = "read_resp",
    [MEM_WRITE_RESP] = "write_resp", [MEM_WRITEBACK] = "writeback",
};

const MsgFamily mem_msg_family = {
    .name = "mem", .id = MSG_FAM_MEM, .payload = sizeof(MemPayload),
    .cmds = mem_cmd_names, .ncmds = MEM_CMDS,
};

static void mem_shared_free(void *p)
{
    MemShared *s = p;
    if (s->oracle != NULL)
        oracle_free(s->oracle);
    if (s->writes != NULL)
        oracle_free(s->writes);
    g_free(s);
}

void mem_writes_enable(Sim *sim)
{
    MemShared *s = mem_shared(sim);
    if (s->writes == NULL)
        s->writes = oracle_new(64, false);     /* stores and their order only: no checks */
}

MemShared *mem_shared_new(Sim *sim)
{
    MemShared *s = g_new0(MemShared, 1);
    sim_ext_set(sim, MSG_FAM_MEM, s, mem_shared_free);
    return s;
}
