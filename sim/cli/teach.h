/* teach.h: the per-access teaching table (`archsim run --teach`), built from the trace event
 * stream. What an event means comes from the emitting class's TeachEvent table (tracedump.h,
 * TeachRole): the models register their vocabulary, the table decodes no event names. The CLI
 * hands teach_consumer to the dump (TraceOptions.sink); tests may drive it directly.
 *
 *   cycle  access           value  bus   data from  l1d0  l1d1  l1d2  memory
 *     113  core0 load  0x40     0  GetS  memory     E     I     I     fresh
 *
 * The layout of the course exercises on snooping protocols (Culler & Singh ch. 5; the Vivio
 * animations): the access, the bus transaction it caused, who supplied the data, every cache's
 * state of the line afterwards, and whether memory still holds the newest value.
 */
#ifndef ARCHSIM_TEACH_H
#define ARCHSIM_TEACH_H

#include <glib.h>
#include <stdint.h>

#include "../tracedump.h"

typedef struct TraceTeach TraceTeach;

/* Rows past this many are counted, not kept: the table is for small, hand-made scenarios. */
#define TEACH_MAX_ROWS 100000u

TraceTeach *teach_new(void);
/* Component `id` (ids are dense, from 0, in registration order) is called `path`; its events
 * mean what `events` says (NULL: it has none the table reads). */
void teach_register(TraceTeach *t, uint32_t id, const char *path, const TeachEvent *events);
/* One event of component `id` (see TRACE_FMT_TEACH for what is used; the rest is ignored). */
void teach_event(TraceTeach *t, uint32_t id, uint64_t cycle, const char *event, uint64_t dur,
                 const TraceArg *args, int nargs);
/* The table so far, aligned, with a title line and a legend (lines starting with '#'). */
void teach_write(const TraceTeach *t, GString *out);
uint64_t teach_rows(const TraceTeach *t);
/* Component `path` (registered) holds lines of `line` bytes (a power of two): its accesses
 * belong to the line their address is in. Without it an access belongs to the greatest line
 * address below it that a state change named, which a --trace-window can have left out. */
void teach_set_line(TraceTeach *t, const char *path, uint64_t line);
void teach_free(TraceTeach *t);

/* The table as a TraceConsumer, for TraceOptions.sink with TRACE_FMT_TEACH. */
extern const TraceConsumer teach_consumer;

#endif
