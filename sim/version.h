/* version.h: archsim's one version string. It lives in the file VERSION at the top of the tree;
 * the Makefile passes it to every object as -DARCHSIM_VERSION (so --version, run.json,
 * sweep.json, the resolved config, the trace dumps' headers and the man page agree) and the
 * commit as -DARCHSIM_GIT (`git describe --always --dirty`) to the objects that print it.
 */
#ifndef ARCHSIM_VERSION_H
#define ARCHSIM_VERSION_H

#ifndef ARCHSIM_VERSION
#error "ARCHSIM_VERSION comes from the file VERSION through the Makefile (-DARCHSIM_VERSION)"
#endif
#ifndef ARCHSIM_GIT
#define ARCHSIM_GIT "unknown"      /* a build outside git, or an object that does not print it */
#endif

#endif
