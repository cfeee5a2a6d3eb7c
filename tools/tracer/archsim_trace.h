/* archsim_trace.h: markers a traced program may call (tools/tracer/README.md).
 *
 * In an ordinary build they are weak no-op functions defined here, so the program needs nothing
 * else; linked by tools/archsim-cc, the recording runtime's strong definitions override them and
 * record AT_ROI_BEGIN/END (the region a simulation should measure) and AT_TX_BEGIN/END/ABORT
 * (transaction boundaries for the HTM model). Each marker is also a compiler memory barrier.
 */
#ifndef ARCHSIM_TRACE_H
#define ARCHSIM_TRACE_H

void archsim_roi_begin(void);
void archsim_roi_end(void);
void archsim_tx_begin(void);
void archsim_tx_end(void);
void archsim_tx_abort(void);

#ifndef ARCHSIM_TRACE_RUNTIME
/* weak: several files may include this header, and the runtime's definitions win; a weak
 * function is never inlined, so the call (and its return address) stays in the program */
#define ARCHSIM_TRACE_MARKER(name)                                                                \
    __attribute__((weak, noinline)) void name(void)                                               \
    {                                                                                             \
        __asm__ __volatile__("" ::: "memory");                                                    \
    }
ARCHSIM_TRACE_MARKER(archsim_roi_begin)
ARCHSIM_TRACE_MARKER(archsim_roi_end)
ARCHSIM_TRACE_MARKER(archsim_tx_begin)
ARCHSIM_TRACE_MARKER(archsim_tx_end)
ARCHSIM_TRACE_MARKER(archsim_tx_abort)
#undef ARCHSIM_TRACE_MARKER
#endif

#endif
