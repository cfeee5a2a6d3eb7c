/* msg.h: the generic message header that every model family's messages share, and the inline
 * payload area each family lays its own payload struct over (docs/models.md, "Messages: header
 * and payloads"). The engine knows the header only; what a payload means is the family's
 * (models/mem/memmsg.h for loads, stores, RMW, LL/SC, watches; models/bus/busmsg.h, ...).
 *
 *   +---------------- header (sim/) -----------------+----- payload (the family's) -----+
 *   | ev | dst | next_free | issued | size cmd flags | data | MemPayload / BusPayload / ... |
 *   +------------------------------------------------+----------------------------------+
 *     88 bytes                                          MSG_PAYLOAD_BYTES (32), inline
 *
 * A command id is (family << 8) | command: each family numbers its commands from 0 in its own
 * enum and its family id comes from its place in one list (models/msgfam.h), so no offset is
 * kept by hand and every id is still a compile-time constant (a `switch` works). The payload is
 * inline, fixed at build: a family asserts at compile time that its struct fits
 * (MSG_PAYLOAD_FITS), so a send never allocates (the header comes from the pool, component.h).
 */
#ifndef ARCHSIM_MSG_H
#define ARCHSIM_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"

typedef struct Msg Msg;
typedef struct Port Port;

/* Bytes of payload every message carries inline: the largest family payload (the memory
 * family's four words). Raise it only with a measurement (make bench): every message pays. */
#define MSG_PAYLOAD_BYTES 32

/* Command ids: family in the high byte, the family's own command number in the low byte. */
#define MSG_CMD(family, n) ((uint16_t)(((unsigned)(family) << 8) | (unsigned)(n)))
#define MSG_CMD_FAMILY(cmd) ((unsigned)(cmd) >> 8)
#define MSG_CMD_NUMBER(cmd) ((unsigned)(cmd) & 0xffu)

/* Header flags: bits 0-14 are the family's (defined in its header), bit 15 the engine's. */
#define MSG_F_OWNS_DATA 0x8000u  /* data is a g_malloc'd buffer owned by the message: freed with
                                    it by its receiver, or by sim teardown if still in flight */

struct Msg {
    SimEvent ev;         /* delivery event (embedded: no allocation per send) */
    Port *dst;           /* destination port; the source is dst->peer (sim_msg_src) */
    Msg *next_free;
    Tick issued;         /* when the original request was created (latency stats) */
    uint32_t size;       /* bytes the message carries (what a link's bandwidth is charged) */
    uint16_t cmd;        /* MSG_CMD(family, command); 0 while unset */
    uint16_t flags;      /* the family's flags, plus MSG_F_OWNS_DATA */
    uint8_t *data;       /* bytes travelling with the message (a line): owned by the sender's
                            transaction buffer unless MSG_F_OWNS_DATA; the receiver copies */
    _Alignas(8) unsigned char payload[MSG_PAYLOAD_BYTES];   /* the family's struct, zeroed by
                                                               sim_msg_alloc */
};

/* A family's payload type T fits the inline area (put it next to T's definition). */
#define MSG_PAYLOAD_FITS(T)                                                               \
    _Static_assert(sizeof(T) <= MSG_PAYLOAD_BYTES && _Alignof(T) <= 8,                   \
                   #T " does not fit Msg.payload: raise MSG_PAYLOAD_BYTES (sim/msg.h)")

/* The payload area, for a family's typed accessor (mem_msg(m), bus_msg(m), ...). Builds with
 * -DARCHSIM_MSG_CHECK assert that the message's command belongs to one of the families that use
 * that payload type (cmd 0: not set yet, while the sender fills it in). */
void sim_msg_check_family(const Msg *m, unsigned fam_mask);
#ifdef ARCHSIM_MSG_CHECK
#define SIM_MSG_PAYLOAD(m, fam_mask) (sim_msg_check_family((m), (fam_mask)), (void *)(m)->payload)
#else
#define SIM_MSG_PAYLOAD(m, fam_mask) ((void)(fam_mask), (void *)(m)->payload)
#endif

/* A family as the registry knows it (models/registry.c lists them in family-id order): the
 * names of its commands for dumps and messages, and the size of its payload type. */
typedef struct {
    const char *name;              /* "mem", "bus", ... */
    unsigned id;                   /* its MSG_FAM_* (models/msgfam.h) */
    size_t payload;                /* sizeof its payload struct (<= MSG_PAYLOAD_BYTES) */
    const char *const *cmds;       /* command names, by command number */
    unsigned ncmds;
} MsgFamily;

#endif
