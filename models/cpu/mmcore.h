/* mmcore.h: mm-core, a core that runs one litmus thread (litprog.h) under a memory
 * model (memmodel.h) against its coherent L1, with randomized timing: the cycle-level side of
 * `archsim litmus` random mode (models/litmus/simrun.c drives it through this API). */
#ifndef ARCHSIM_MMCORE_H
#define ARCHSIM_MMCORE_H

#include "../../sim/component.h"
#include "litprog.h"
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
/* Staged timing for the next run of the program given last (random timing only; cleared by
 * mmcore_set_program): the core starts slot x its `stagger` cycles in, and its accesses go
 * within a few cycles of being allowed, except some that are held until a later slot: with
 * probability late_pct % each load or store that a later op of the thread may bypass under the
 * model (mm_may_bypass, forwarding), half of the time until after all nslots slots, and with
 * probability split_pct % any other access (which splits the thread around other threads'
 * slots). With a random slot per thread this samples the orders that a cycle of the test
 * needs far more often than independent delays do. */
void mmcore_set_stage(Component *c, int slot, int nslots, unsigned late_pct,
                      unsigned split_pct);
/* Starts the program given last (its first tick comes after the start delay). */
void mmcore_start(Component *c);
/* Every op performed: loads answered, stores drained (globally visible). */
bool mmcore_done(const Component *c);
/* The final value of the thread's register `reg` (an index into LitThread.regs): the result of
 * the last op in program order that writes it, else its initial value. Only once done. */
int64_t mmcore_reg(const Component *c, int reg);

#endif
