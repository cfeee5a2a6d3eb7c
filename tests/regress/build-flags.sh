#!/bin/sh
# build-flags.sh BUILD: the Makefile tracks compile flags (issue 16 item 4): in a fresh build
# folder, `make WERROR=1` after `make` recompiles with -Werror, a second `make WERROR=1` does
# nothing, and a change of CFLAGS or CC is seen too. One object and one link keep it fast (the
# other objects share the rule and the stamp). BUILD is not used: this builds under /tmp.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
# the caller's make must not leak in: `make test WERROR=1` exports WERROR=1 to this script's
# environment, CI=true turns -Werror on; so every variable the test varies is set here (a later
# VAR=... on the same command line wins)
unset MAKEFLAGS MAKELEVEL MFLAGS
O=$T/b/sim/engine.o
mk() { make --no-print-directory BUILD="$T/b" CI= DEBUG= NO_MPI=1 WERROR= CFLAGS= LDFLAGS= CC=cc "$@"; }
uptodate() { mk -q "$@" "$O"; }

mk "$O" > "$T/log" 2>&1 && [ -f "$O" ] && ok || { bad "make $O"; cat "$T/log"; }
uptodate && ok || bad "a second make of the same object is not a no-op"
uptodate WERROR=1 && bad "make WERROR=1 after make: the object counts as up to date" || ok
mk WERROR=1 "$O" > "$T/log" 2>&1
grep -q -- "-Werror.* -c sim/engine.c" "$T/log" && ok || { bad "make WERROR=1 did not recompile with -Werror"; cat "$T/log"; }
mk WERROR=1 "$O" > "$T/log" 2>&1
grep -q -- "-c sim/engine.c" "$T/log" && bad "a second make WERROR=1 recompiled" || ok
uptodate WERROR=1 && ok || bad "make -q WERROR=1 after make WERROR=1: out of date"
uptodate WERROR=1 CFLAGS=-DX && bad "a changed CFLAGS is not seen" || ok
uptodate WERROR=1 CC=gcc-nonexistent && bad "a changed CC is not seen" || ok
# make -n and -q only report: the stamp still holds the WERROR=1 flags
mk -n "$O" > /dev/null 2>&1
uptodate WERROR=1 && ok || bad "make -n with other flags rewrote the flags stamp"
# tools/bench_mpi_window's MPI flags stay its own: the library's sweep_mpi.o, which archsim links
# without libmpi, is not built against MPI on its way (make -n: nothing is built)
make --no-print-directory -n BUILD="$T/m" CI= DEBUG= WERROR= CFLAGS= LDFLAGS= CC=cc \
    "$T/m/tools/bench_mpi_window" > "$T/mlog" 2>&1
if grep -q -- "-DARCHSIM_HAVE_MPI" "$T/mlog"; then            # a build with OpenMPI
    grep -q -- "-c sim/cli/sweep_mpi.c -o $T/m/sim/cli/sweep_mpi.o" "$T/mlog" || bad "make -n did not show the library's sweep_mpi.o"
    grep -- "-c sim/cli/sweep_mpi.c -o $T/m/sim/cli/sweep_mpi.o" "$T/mlog" | grep -q -- "-DARCHSIM_HAVE_MPI" &&
        bad "building tools/bench_mpi_window builds the library's sweep_mpi.o against MPI" || ok
fi
echo "build-flags: $pass passed, $fail failed"
[ $fail -eq 0 ]
