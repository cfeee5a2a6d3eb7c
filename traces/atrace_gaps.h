/* atrace_gaps.h: `archsim trace gaps DIR --binary PROGRAM [--force]`: estimated compute gaps for
 * traces recorded with the TSan front end (tools/archsim-cc); method and accuracy:
 * docs/references.md §6.
 *
 * Reads `objdump -d` of the instrumented PROGRAM, splits its functions into basic blocks and
 * gives each hook call site (the return address the runtime records as the site PC) two counts:
 * w, the instructions since the block start or the previous hook call in the block, and t, the
 * instructions after the call up to and including the block's branch. Argument-setup moves into
 * %rdi/%rsi/%rdx/%rcx/%r8/%r9 for a hook call (not read before the call), (%rsp) spill/reload moves, nops and
 * the calls of the plain-access hooks (__tsan_read*, __tsan_write*: the real access instruction
 * stays in the code) are not counted. Each record then gets gap = w(site) when the previous
 * record's site is earlier in the same block, else t(previous site) + w(site), at least 1.
 * The traces are rewritten in place (temp file + rename) with header flag AT_H_HAS_GAPS and
 * without AT_H_GAPS_EXACT: the gaps are estimates. manifest.yaml's gaps: and bytes: lines follow.
 */
#ifndef ARCHSIM_ATRACE_GAPS_H
#define ARCHSIM_ATRACE_GAPS_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

typedef struct {
    unsigned threads;           /* T<i>.trace files rewritten */
    uint64_t records;           /* records given a gap */
    uint64_t gap_sum;           /* sum of the estimated gaps */
    uint64_t unknown;           /* records whose site PC is no hook call of the binary (gap 1) */
    unsigned sites;             /* hook call sites found in the binary */
} AtGapsSummary;

/* Estimates gaps for every DIR/T<i>.trace from BINARY's disassembly. A trace that already has
 * gaps (AT_H_HAS_GAPS) is refused with ARCHSIM_EXIT_DATAERR unless force. Errors in
 * ARCHSIM_TRACE_ERROR (the code is the exit status): objdump missing or failing (70),
 * DIR or BINARY missing (66), bad traces (65), write failures (74). */
bool atrace_gaps_run(const char *dir, const char *binary, bool force, AtGapsSummary *out,
                     GError **error);

/* `archsim trace gaps`: argv[0] == "gaps". */
int atrace_gaps_main(int argc, char **argv);

#endif
