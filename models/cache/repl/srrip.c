/* srrip.c: static re-reference interval prediction with 2-bit RRPVs and hit priority (Jaleel,
 * Theobald, Steely & Emer, "High Performance Cache Replacement Using Re-Reference Interval
 * Prediction (RRIP)", ISCA 2010, SRRIP-HP): a fill predicts a long re-reference interval (RRPV
 * 2), a hit a near-immediate one (0); the victim is the first way (lowest index) predicted
 * distant (3), after ageing every way by one as often as needed to find one. */
#include <glib.h>

#include "repl.h"

#define RRPV_MAX 3u

static void srrip_touch(uint64_t *st, uint32_t w, uint32_t ways, uint64_t now)
{
    (void)ways, (void)now;
    st[w] = 0;
}

static void srrip_insert(uint64_t *st, uint32_t w, uint32_t ways, uint64_t now)
{
    (void)ways, (void)now;
    st[w] = RRPV_MAX - 1;
}

static uint32_t srrip_victim(uint64_t *st, uint32_t ways, const uint8_t *ok, SimRng *rng)
{
    (void)rng;
    uint64_t oldest = 0;
    bool any = false;
    for (uint32_t w = 0; w < ways; w++)
        if (!ok || ok[w]) {
            any = true;
            if (st[w] > oldest)
                oldest = st[w];
        }
    if (!any)
        return ways;
    /* ageing until some way that may go reaches RRPV_MAX adds the same to every way (capped) */
    uint64_t add = oldest < RRPV_MAX ? RRPV_MAX - oldest : 0;
    uint32_t v = ways;
    for (uint32_t w = 0; w < ways; w++) {
        st[w] = MIN(st[w] + add, (uint64_t)RRPV_MAX);
        if (v == ways && st[w] >= RRPV_MAX && (!ok || ok[w]))
            v = w;
    }
    return v;
}

const ReplPolicy repl_srrip = {
    .name = "srrip",
    .doc = "static RRIP, 2-bit, hit priority (Jaleel et al., ISCA 2010)",
    .touch = srrip_touch,
    .insert = srrip_insert,
    .victim = srrip_victim,
};
