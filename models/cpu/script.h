/* script.h: a core that plays an exact, hand-written access sequence (teaching scenarios). */
#ifndef ARCHSIM_SCRIPT_H
#define ARCHSIM_SCRIPT_H

#include "../../sim/component.h"

extern const ComponentClass script_core_class;

/* One item of a script: "[cN@]CYCLE:L:ADDR" or "[cN@]CYCLE:S:ADDR[=VALUE]". */
typedef struct {
    int core;                /* N of "cN@"; -1 without a prefix: every core plays it */
    unsigned item;           /* position in the script, from 1 (for messages) */
    uint64_t cycle, addr, value;
    bool store, has_value;
} ScriptItem;

/* Parses a whole script for `ncores` cores doing `size`-byte accesses into `items` (GArray of
 * ScriptItem). Items are separated by commas and/or white space. Fails with ARCHSIM_CONFIG_ERROR
 * / ARCHSIM_EXIT_CONFIG and a message naming the item, e.g.
 *   script item 2 '5:Q:0x40': 'Q' is not L (load) or S (store)
 * Checked: the syntax, numbers, the core number, alignment of ADDR to `size`, VALUE fitting in
 * `size` bytes, no VALUE on a load, and each core's items in nondecreasing cycle order. */
bool script_parse(const char *text, uint64_t size, int ncores, GArray *items, GError **error);

/* The items this core plays, and the value of its i-th one once completed (loaded by a load,
 * written by a store); false while it has not completed. */
size_t script_core_items(const Component *c);
bool script_core_value(const Component *c, size_t i, uint64_t *value);

#endif
