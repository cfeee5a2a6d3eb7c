/* dirproto.c: the shared parts of the directory protocols of dirproto.h: message, network and
 * event names, the list of shipped directory protocols and lookup by name. The tables themselves
 * are in dir_msi.c and dir_mesi.c.
 */
#include "dirproto.h"

#include <glib.h>

const char *const dir_msg_names[DM_COUNT] = {
    [DM_GETS] = "GetS", [DM_GETM] = "GetM", [DM_PUTS] = "PutS", [DM_PUTM] = "PutM",
    [DM_PUTE] = "PutE", [DM_FWD_GETS] = "Fwd-GetS", [DM_FWD_GETM] = "Fwd-GetM", [DM_INV] = "Inv",
    [DM_PUT_ACK] = "Put-Ack", [DM_DATA] = "Data", [DM_INV_ACK] = "Inv-Ack",
};

const DirVnet dir_msg_vnet[DM_COUNT] = {
    [DM_GETS] = DVN_REQUEST, [DM_GETM] = DVN_REQUEST, [DM_PUTS] = DVN_REQUEST,
    [DM_PUTM] = DVN_REQUEST, [DM_PUTE] = DVN_REQUEST,
    [DM_FWD_GETS] = DVN_FORWARD, [DM_FWD_GETM] = DVN_FORWARD, [DM_INV] = DVN_FORWARD,
    [DM_PUT_ACK] = DVN_FORWARD,
    [DM_DATA] = DVN_RESPONSE, [DM_INV_ACK] = DVN_RESPONSE,
};

const char *const dir_vnet_names[DVN_COUNT] = {
    [DVN_REQUEST] = "request", [DVN_FORWARD] = "forward", [DVN_RESPONSE] = "response",
};

/* The Primer's column names (Tables 8.1-8.4). */
const char *const dir_cache_event_names[DCE_COUNT] = {
    [DCE_LOAD] = "Load",
    [DCE_STORE] = "Store",
    [DCE_REPLACEMENT] = "Replacement",
    [DCE_FWD_GETS] = "Fwd-GetS",
    [DCE_FWD_GETM] = "Fwd-GetM",
    [DCE_INV] = "Inv",
    [DCE_PUT_ACK] = "Put-Ack",
    [DCE_DATA_DIR_ACK0] = "Data-from-Dir(ack=0)",
    [DCE_DATA_DIR_ACKS] = "Data-from-Dir(ack>0)",
    [DCE_DATA_DIR_EXCL] = "Exclusive-Data-from-Dir",
    [DCE_DATA_OWNER] = "Data-from-Owner",
    [DCE_INV_ACK] = "Inv-Ack",
    [DCE_LAST_INV_ACK] = "Last-Inv-Ack",
};

const char *const dir_dir_event_names[DDE_COUNT] = {
    [DDE_GETS] = "GetS",
    [DDE_GETM] = "GetM",
    [DDE_PUTS_NOTLAST] = "PutS-NotLast",
    [DDE_PUTS_LAST] = "PutS-Last",
    [DDE_PUTM_OWNER] = "PutM+data-from-Owner",
    [DDE_PUTM_NONOWNER] = "PutM-from-NonOwner",
    [DDE_DATA] = "Data",
    [DDE_PUTE_OWNER] = "PutE-from-Owner",
    [DDE_PUTE_NONOWNER] = "PutE-from-NonOwner",
};

const DirProtocol *const dir_protocols[] = { &dir_proto_msi, &dir_proto_mesi, NULL };

const DirProtocol *dir_proto_find(const char *name)
{
    for (const DirProtocol *const *p = dir_protocols; *p != NULL; p++)
        if (g_ascii_strcasecmp((*p)->name, name) == 0)
            return *p;
    return NULL;
}
