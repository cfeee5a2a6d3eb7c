/* mmcore.h: mm-core, a core that runs one litmus thread (models/litmus/litmus.h) under a memory
 * model (memmodel.h) against its coherent L1, with randomized timing: the cycle-level side of
 * `archsim litmus` random mode (models/litmus/simrun.c drives it through this API). */
#ifndef ARCHSIM_MMCORE_H
#define ARCHSIM_MMCORE_H

#include "../../sim/component.h"
#include "../litmus/litmus.h"
#include "memmodel.h"

extern const ComponentClass mm_core_class;

/* Gives the core its next program: thread th (kept by pointer: it must outlive the run) whose
 * location i lives at loc_addr[i] and is called loc_names[i] in traces (both kept; names may be
 * NULL: addresses are shown), run under model m. With `random_timing` the core
 * waits a random start delay and jitters every send (its start_delay, jitter and drain params);
 * without, every op is sent as soon as the model allows (setup and read-out programs). Clears
 * the previous program's registers and results; the core must be idle (mmcore_done). */
void mmcore_set_program(Component *c, const LitThread *th, const char *const *loc_names,
                        const uint64_t *loc_addr, const MemModel *m, bool random_timing);
/* Starts the program given last (its first tick comes after the start delay). */
void mmcore_start(Component *c);
/* Every op performed: loads answered, stores drained (globally visible). */
bool mmcore_done(const Component *c);
/* The final value of the thread's register `reg` (an index into LitThread.regs): the result of
 * the last op in program order that writes it, else its initial value. Only once done. */
int64_t mmcore_reg(const Component *c, int reg);

#endif
