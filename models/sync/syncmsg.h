/* syncmsg.h: messages between thread-replaying cores and the workload's synchronization manager
 * (models/sync/workload.c). Requests go core -> workload; MSG_SYNC_GO and MSG_SYNC_START answer. */
#ifndef ARCHSIM_SYNCMSG_H
#define ARCHSIM_SYNCMSG_H

#include "../../sim/component.h"

enum {
    MSG_SYNC_START = MSG_CMD_USER + 20,  /* workload -> core: the thread may run (it was created) */
    MSG_SYNC_CREATE,                     /* aux[0] = child thread id */
    MSG_SYNC_DONE,                       /* the thread finished */
    MSG_SYNC_JOIN,                       /* aux[0] = thread id to wait for */
    MSG_SYNC_BARRIER,                    /* addr = barrier, aux[0] = participants */
    MSG_SYNC_LOCK,                       /* addr = mutex */
    MSG_SYNC_UNLOCK,                     /* addr = mutex */
    MSG_SYNC_GO,                         /* workload -> core: the join/barrier/lock is granted */
};

#endif
