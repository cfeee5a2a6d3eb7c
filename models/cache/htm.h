/* htm.h: hardware transactional memory in the private L1 (best-effort HTM in the style of Intel
 * RTM and of Herlihy & Moss, ISCA 1993; versioning and conflict-resolution choices as laid out in
 * Harris, Larus & Rajwar, "Transactional Memory", 2nd ed., ch. 5, and LogTM, Moore et al.,
 * HPCA 2006). The core (kernel-core) checkpoints its registers at xbegin; the L1 does the rest:
 *
 *   core --TX_BEGIN(tag = tx number)--> L1: transaction on; every later access carries MSG_F_TX
 *   tx load   R bit on the line; its value is logged (the commit-time serializability check)
 *   tx store  W bit; the line's committed bytes are kept at the first write (lazy: the copy the
 *             L2 holds, the speculative bytes stay in the L1; eager: an undo-log record, written
 *             in place, costs htm_log_latency); RMWs inside a transaction are a load + a store
 *   conflict  another cache's GetM hits an R or W line, or its GetS hits a W line: requester wins
 *             (this transaction aborts at once); responder wins (htm_conflict: responder): the
 *             bus asks first and this L1 refuses (NACK) a non-transactional requester or a
 *             younger transaction, which aborts; the refused request is sent again after a
 *             backoff. An older requesting transaction wins as with requester wins. The age
 *             (first begin, kept across retries) makes the oldest transaction always progress:
 *             no livelock (the timestamp rule of LogTM, Moore et al., HPCA 2006)
 *   capacity  an R or W line chosen as a victim aborts the transaction before it leaves
 *   abort     committed bytes back into every W line, bits cleared, the core told
 *             (MSG_TX_ABORTED) after htm_abort_latency (+ htm_undo_latency per logged line when
 *             eager: the undo log is walked); explicit aborts answer TX_ABORT the same way
 *   commit    TX_END: bits cleared at once (flash clear); the reference memory checks that every
 *             value the transaction read is still the committed value (so the transaction is
 *             serializable at its commit point) and then takes all its writes
 * The status a core gets uses RTM's layout (Intel SDM vol. 1, ch. 16): bit 0 explicit, bit 1
 * may succeed on retry, bit 2 conflict, bit 3 capacity, bits 24-31 the xabort code.
 */
#ifndef ARCHSIM_HTM_H
#define ARCHSIM_HTM_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../sim/component.h"
#include "../mem/memmsg.h"

/* The HTM family's commands (MSG_FAM_HTM; payload: MemPayload, mem_msg()). */
typedef enum {
    HTM_TX_BEGIN,                       /* core -> L1, tag = transaction number; echoed back */
    HTM_TX_END,                         /* core -> L1: commit; echoed back (value = 1) */
    HTM_TX_ABORT,                       /* core -> L1: explicit abort, value = code */
    HTM_TX_ABORTED,                     /* L1 -> core: tag = number, value = status */
    HTM_CMDS
} HtmCmd;
#define MSG_TX_BEGIN MSG_CMD(MSG_FAM_HTM, HTM_TX_BEGIN)
#define MSG_TX_END MSG_CMD(MSG_FAM_HTM, HTM_TX_END)
#define MSG_TX_ABORT MSG_CMD(MSG_FAM_HTM, HTM_TX_ABORT)
#define MSG_TX_ABORTED MSG_CMD(MSG_FAM_HTM, HTM_TX_ABORTED)
extern const MsgFamily htm_msg_family;
#define MSG_F_TX 0x100u        /* a load / store / RMW inside transaction number `tag` */
#define MSG_F_TX_STALE 0x200u  /* in an answer: the transaction had already aborted, nothing was
                                  done (the core waits for MSG_TX_ABORTED) */

#define HTM_EXPLICIT 0x1u
#define HTM_RETRY 0x2u
#define HTM_CONFLICT 0x4u
#define HTM_CAPACITY 0x8u
#define HTM_NESTED 0x20u
#define HTM_CODE(status) (((status) >> 24) & 0xffu)

#define HTM_R 0x1u             /* per-line bits */
#define HTM_W 0x2u

enum { HTM_REQUESTER_WINS, HTM_RESPONDER_WINS, HTM_NO_DETECTION /* testing the checker */ };
enum { HTM_LAZY, HTM_EAGER };
enum { HTM_AB_CONFLICT, HTM_AB_CAPACITY, HTM_AB_EXPLICIT, HTM_AB_COUNT };

typedef struct {
    uint64_t addr;
    uint32_t size;
    uint64_t value;
} HtmWord;

typedef struct {
    int conflict, versioning;           /* HTM_REQUESTER_WINS.., HTM_LAZY.. (parameters) */
    uint64_t abort_latency, undo_latency, log_latency, nack_backoff;
    /* the running transaction */
    bool active;
    uint64_t id;                        /* the core's transaction number */
    uint64_t begin;                     /* cycle */
    uint64_t age;                       /* 1 + first begin cycle x 256 + cache index: kept
                                           across aborts until a commit (responder wins) */
    bool keep_age;
    GArray *marked;                     /* uint32_t frame indices with R/W bits */
    GArray *reads, *writes;             /* HtmWord: first reads (not of own writes); last writes */
    GArray *saved_blocks;               /* uint64_t: lines whose committed bytes are kept ... */
    GByteArray *saved;                  /* ... here, one line each, in that order */
    /* stats */
    uint64_t begins, commits, aborts[HTM_AB_COUNT], nacks_sent, nacks_got, logged_lines;
    uint64_t tx_loads, tx_stores, stale_ops;
    SimHist rset, wset;                 /* lines read / written per committed transaction */
} Htm;

extern const char *const htm_conflict_choices[];     /* "requester", "responder", "none" */
extern const char *const htm_versioning_choices[];   /* "lazy", "eager", NULL */

void htm_init(Htm *h);
void htm_free(Htm *h);

/* The line's committed bytes, kept at the first transactional write to it; returns true the
 * first time (the caller charges the eager log write). */
bool htm_save_line(Htm *h, uint64_t block, const uint8_t *line, uint32_t line_size);
/* Does any write of the transaction overlap [addr, addr+n)? */
bool htm_wrote(const Htm *h, uint64_t addr, uint32_t n);
void htm_log_read(Htm *h, uint64_t addr, uint32_t n, uint64_t v);
void htm_log_write(Htm *h, uint64_t addr, uint32_t n, uint64_t v);
/* Commit: checks every logged read against the reference memory (false, message in *problem,
 * if the transaction is not serializable at this point) and gives it the writes. */
bool htm_commit_check(Htm *h, Component *c, int who, char **problem);
/* Resets the per-transaction state (after the caller restored lines and cleared bits). */
void htm_clear(Htm *h);

void htm_dump(const Htm *h, GString *out);
/* Stats under the cache's name: htm.begins, htm.commits, htm.aborts.{conflict,capacity,explicit},
 * htm.nacks_sent, htm.nacks_received, htm.read_set / write_set histograms, ... */
void htm_stats(const Htm *h, const char *cache, StatSet *out);

#endif
