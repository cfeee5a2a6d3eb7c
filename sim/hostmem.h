/* hostmem.h: how archsim asks the host for memory.
 *
 * A run allocates its model state once, at start-up and as components first see work (the
 * GPU's SMs, L1s and trace blocks), and most of it is touched at once: on Linux each fresh 4 KiB
 * page then costs a fault, a quarter of a short GPU run's time. host_memory_tune() keeps blocks
 * up to 32 MiB in the heap (freed ones are reused, not unmapped and faulted in again) and asks
 * for the heap's first 256 MiB in transparent huge pages (madvise; a no-op where THP is off):
 * what gem5 gets from linking tcmalloc. ARCHSIM_MALLOC=system leaves malloc as it is.
 * Only the host's speed depends on it, never a result. */
#ifndef ARCHSIM_HOSTMEM_H
#define ARCHSIM_HOSTMEM_H

void host_memory_tune(void);

#endif
