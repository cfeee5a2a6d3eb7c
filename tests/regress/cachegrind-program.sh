#!/bin/sh
# regress/cachegrind-program.sh BUILD: `archsim cachegrind -- PROGRAM` (issue 18 item 5,
# docs/cachegrind.md "From a program"): a program built with tools/archsim-cc is run and its data
# references simulated as it runs, with cachegrind's rules:
#  - tests/regress/data/cgknown.c, whose references are known exactly, gives exactly its counts
#    (Dr 2048, D1mr 2048, DLmr 0, Dw 8192, D1mw 1024, DLmw 1024), with "-" for the instruction
#    counters that compile-time instrumentation cannot see; other geometries change them as
#    predicted
#  - workloads/matmul/mm.c gives the same counters live and from its recording directory
#    (`archsim trace record`, then `archsim cachegrind DIR`)
#  - a multithreaded program (saxpy, 4 threads) is simulated thread by thread
#  - a recording with a thread file missing (66), counted otherwise by its manifest (65),
#    holding another thread's file or one of another recording (65), as `archsim run` refuses them
#  - a program not built with archsim-cc (exit 65, says so), a missing one (66), one that fails
#    (its status, after the counters), no PROGRAM after -- (64)
# Prints "cachegrind-program: N passed, N failed".
set -u
B=${1:-build}
A=./archsim
[ -x "$A" ] || A=$B/archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() {  # name cond
    if sh -c "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}
if ! command -v gcc > /dev/null 2>&1; then
    echo "cachegrind-program: gcc not found (tools/archsim-cc needs it)"; exit 1
fi
tools/archsim-cc -O2 tests/regress/data/cgknown.c -o "$T/cgknown" > "$T/cc.log" 2>&1
gcc -O2 tests/regress/data/cgknown.c -o "$T/cgknown-plain" > /dev/null 2>&1
$A cachegrind -q -- "$T/cgknown" > "$T/k.out" 2> "$T/k.err"
check "cgknown: the counters it must give, exactly" \
    "[ \"\$(tail -1 '$T/k.out')\" = '- - - 2048 2048 0 8192 1024 1024' ] && \
     [ \"\$(head -1 '$T/k.out')\" = 'Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw' ]"
# a 128 KiB D1 holds the whole array: the second pass hits, the stores miss once per line
$A cachegrind -q --D1=131072,8,64 -- "$T/cgknown" > "$T/k2.out" 2>&1
check "cgknown, D1 128 KiB: the array fits (D1mr 0, D1mw 1024)" \
    "[ \"\$(tail -1 '$T/k2.out')\" = '- - - 2048 0 0 8192 1024 1024' ]"
# a 32 KiB LL misses every line too
$A cachegrind -q --LL=32768,8,64 -- "$T/cgknown" > "$T/k3.out" 2>&1
check "cgknown, LL 32 KiB: every L1 miss misses LL" \
    "[ \"\$(tail -1 '$T/k3.out')\" = '- - - 2048 2048 2048 8192 1024 1024' ]"
$A cachegrind -- "$T/cgknown" > /dev/null 2> "$T/note.err"
check "without -q, a note on stderr says what the instrumentation does not see" \
    "grep -q 'no instruction fetches' '$T/note.err'"

# mm.c live and from its recording (archsim trace record, zlib files): the same stream, the
# same counts (address randomization off, so that both runs see the same addresses)
tools/archsim-cc -O2 -g workloads/matmul/mm.c -o "$T/mm" > /dev/null 2>&1
NOASLR=""
setarch -R true 2>/dev/null && NOASLR="setarch -R"
$NOASLR $A cachegrind -q -- "$T/mm" > "$T/mm.out" 2>/dev/null
$NOASLR $A trace record -q -o "$T/mmrec" -- "$T/mm" > /dev/null 2>&1
$A cachegrind "$T/mmrec" > "$T/mmrec.out" 2>/dev/null
check "mm.c: live from the program, and from its recording directory, the same counters" \
    "[ -n \"$NOASLR\" ] && [ \"\$(tail -1 '$T/mm.out')\" = \"\$(tail -1 '$T/mmrec.out')\" ] && \
     tail -1 '$T/mm.out' | awk '{exit !(\$4 > 500000 && \$7 > 10000)}'"
$A cachegrind "$T" > /dev/null 2> "$T/notrec.err"
rc=$?
check "a directory that is not a recording: exit 66" "[ $rc = 66 ] && grep -q 'not a recording' '$T/notrec.err'"

tools/archsim-cc -O2 -pthread -Iworkloads/common workloads/saxpy/saxpy.c -o "$T/saxpy" -lm > /dev/null 2>&1
$A cachegrind -q -- "$T/saxpy" 4 16384 2 > "$T/sx.out" 2>&1
check "saxpy, 4 threads: every thread's references (Dw >= 2 passes x 16384 stores)" \
    "tail -1 '$T/sx.out' | awk '{exit !(\$7 >= 32768 && \$4 >= 65536)}'"

# a recording missing a thread, or not one recording, is refused as `archsim run` refuses it
# (it printed the counters of the threads before the gap, exit 0)
$A trace record -q -o "$T/sxrec" -- "$T/saxpy" 4 4096 1 > /dev/null 2>&1
for c in gap count fewer tid base last odd; do rm -rf "$T/sx-$c"; cp -r "$T/sxrec" "$T/sx-$c"; done
cp "$T/sx-odd/T1.trace" "$T/sx-odd/T01.trace"          # a name no recording writes
$A cachegrind "$T/sx-odd" > /dev/null 2> "$T/odd.err"; rco=$?
rm "$T/sx-last/manifest.yaml" "$T/sx-last/T4.trace"     # as if it died before its manifest
$A cachegrind "$T/sx-last" > "$T/last.out" 2> "$T/last.err"; rcl=$?
rm "$T/sx-gap/T1.trace"
rm "$T/sx-count/T4.trace"
cp "$T/sxrec/T1.trace" "$T/sx-tid/T2.trace"
# another load base in T2's header (byte 16), as a file from another run of the program has
printf '\125' | dd of="$T/sx-base/T2.trace" bs=1 seek=16 conv=notrunc 2> /dev/null
$A cachegrind "$T/sx-base" > /dev/null 2> "$T/base.err"; rcb=$?
$A cachegrind "$T/sx-gap" > "$T/gap.out" 2> "$T/gap.err"; rcg=$?
$A cachegrind "$T/sx-count" > "$T/count.out" 2> "$T/count.err"; rcc=$?
sed -i 's/^thread_count: 5$/thread_count: 3/' "$T/sx-fewer/manifest.yaml"
$A cachegrind "$T/sx-fewer" > "$T/fewer.out" 2> "$T/fewer.err"; rcf=$?
$A cachegrind "$T/sx-tid" > "$T/tid.out" 2> "$T/tid.err"; rct=$?
check "a recording without T1.trace but with T2.trace: exit 66, no counters" \
    "[ $rcg = 66 ] && grep -q 'no T1.trace, but T4.trace is there' '$T/gap.err' && [ ! -s '$T/gap.out' ]"
check "a recording whose manifest counts a thread more than its files: exit 66, the file named" \
    "[ $rcc = 66 ] && grep -q 'manifest.yaml:[0-9]*:[0-9]*: thread_count is 5, but .* has no T4.trace' '$T/count.err' && [ ! -s '$T/count.out' ]"
check "a recording whose manifest counts fewer threads than its files: exit 65 at thread_count" \
    "[ $rcf = 65 ] && grep -q 'manifest.yaml:[0-9]*:[0-9]*: thread_count is 3, but .* holds 5 thread files' '$T/fewer.err'"
check "a thread file from another recording (its load base): exit 65 at byte 16" \
    "[ $rcb = 65 ] && grep -q 'T2.trace: byte 16: header load base differs from T0.trace' '$T/base.err'"
check "no manifest and the last created thread's file missing: exit 66, no counters" \
    "[ $rcl = 66 ] && grep -q 'no T4.trace, but a record creates thread 4' '$T/last.err' && [ ! -s '$T/last.out' ]"
check "a thread file named T01.trace: exit 65, named (it said no T5.trace)" \
    "[ $rco = 65 ] && grep -q 'T01.trace: not a name a recording gives' '$T/odd.err'"
check "a thread file from another thread: exit 65 at byte 28" \
    "[ $rct = 65 ] && grep -q 'T2.trace: byte 28: header says tid 1, but the file name says thread 2' '$T/tid.err'"

$A cachegrind -- "$T/cgknown-plain" > "$T/plain.out" 2> "$T/plain.err"
rc=$?
check "a program not built with archsim-cc: exit 65, and it says how to build it" \
    "[ $rc = 65 ] && grep -q 'build it with tools/archsim-cc' '$T/plain.err' && [ ! -s '$T/plain.out' ]"
# an archsim-cc program killed before its runtime wrote anything: its status, and a message
# that does not tell it to build with archsim-cc (it is built so)
printf '#include <signal.h>\nint x[100];\nint main(void)\n{\n    for (int i = 0; i < 100; i++)\n        x[i] = i;\n    raise(SIGSEGV);\n    return x[3];\n}\n' > "$T/sig.c"
tools/archsim-cc -O2 "$T/sig.c" -o "$T/sig" > /dev/null 2>&1
$A cachegrind -q -- "$T/sig" > /dev/null 2> "$T/sig.err"; rc=$?
check "a program killed by a signal: status 139, and the message says a signal may have lost it" \
    "[ $rc = 139 ] && grep -q 'killed by a signal loses' '$T/sig.err'"
$A cachegrind -- "$T/no-such-program" > /dev/null 2> "$T/miss.err"
rc=$?
check "a missing program: exit 66" "[ $rc = 66 ] && grep -q 'cannot run' '$T/miss.err'"
cat > "$T/fails.c" <<'C'
static volatile int v[64];
int main(void) { for (int i = 0; i < 64; i++) v[i] = i; return 3; }
C
tools/archsim-cc -O2 "$T/fails.c" -o "$T/fails" > /dev/null 2>&1
$A cachegrind -q -- "$T/fails" > "$T/fails.out" 2>&1
rc=$?
check "a program that fails: the counters, then its status (3)" \
    "[ $rc = 3 ] && grep -q '^- - - 0 0 0 64 ' '$T/fails.out'"
$A cachegrind -- > /dev/null 2>&1
rc=$?
check "-- without a program: exit 64" "[ $rc = 64 ]"
check "no scratch directory is left behind" "[ -z \"\$(ls -d \${TMPDIR:-/tmp}/archsim-cg.* 2>/dev/null)\" ]"

echo "cachegrind-program: $pass passed, $fail failed"
[ $fail -eq 0 ]
