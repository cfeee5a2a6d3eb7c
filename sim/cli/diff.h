/* diff.h: `archsim diff RUN_A RUN_B`, the stats that differ between two runs (docs/outputs.md
 * "Comparing runs"). Exit status like diff(1) and cmp(1): 0 the compared stats are identical,
 * 1 some differ, 64 bad command line, 65 a stats.json that does not parse, 66 a missing input.
 */
#ifndef ARCHSIM_DIFF_H
#define ARCHSIM_DIFF_H

/* argv[0] is "diff". */
int diff_main(int argc, char **argv);

#endif
