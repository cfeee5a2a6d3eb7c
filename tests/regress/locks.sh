#!/bin/sh
# regress/locks.sh BUILD: the qualitative shape of the lock experiment (docs/experiments/locks.md)
# on shorter runs (200,000 cycles instead of 1,000,000; configs/locks/experiment.yaml otherwise):
#  - at 16 cores, bus transactions per acquisition: tas > ttas > ttas-backoff > mcs
#  - mcs stays flat from 4 to 32 cores (within 20%) in transactions and invalidations per
#    acquisition, while the ticket lock's invalidations per acquisition grow with the waiters
#  - tas's transactions per acquisition grow from 2 to 4 cores (a spinner fills the bus)
#  - the ticket lock is fair (max/min acquisitions of a core near 1) in a time-bounded run, and
#    hands off in constant time
# Prints "locks: N passed, N failed".
set -u
A=./archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }

$A sweep configs/locks/experiment.yaml -j 2 -q -o "$T/s" --set core.duration=200000 \
    --grid core.kernel=tas,ttas,ttas-backoff,ticket,mcs --grid system.cores=2,4,16,32 \
    > "$T/sweep.out" 2>&1 || { cat "$T/sweep.out"; ko "sweep"; }

# stat LOCK CORES NAME: one stat of one point, from sweep.csv
stat() {
    python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["core.kernel"] == sys.argv[2] and r["system.cores"] == sys.argv[3]:
        print(r[sys.argv[4]] if r["status"] == "ok" else "nan"); break' "$T/s/sweep.csv" "$1" "$2" "$3"
}
tx() { stat "$1" "$2" locks.bus_transactions_per_acquire; }
inv() { stat "$1" "$2" locks.invalidations_per_acquire; }
# fcmp EXPR: floating-point comparison
fcmp() { python3 -c "import sys; sys.exit(0 if $1 else 1)"; }

a=$(tx tas 16); b=$(tx ttas 16); c=$(tx ttas-backoff 16); d=$(tx mcs 16)
check "16 cores: bus transactions per acquire tas ($a) > ttas ($b) > ttas-backoff ($c) > mcs ($d)" \
    "fcmp '$a > $b > $c > $d > 0'"
m4=$(tx mcs 4); m32=$(tx mcs 32)
check "mcs: bus transactions per acquire flat from 4 to 32 cores ($m4 -> $m32, within 20%)" \
    "fcmp '0 < $m4 and abs($m32 - $m4) <= 0.2 * $m4'"
i4=$(inv mcs 4); i32=$(inv mcs 32); t4=$(inv ticket 4); t32=$(inv ticket 32)
check "mcs: invalidations per acquire flat from 4 to 32 cores ($i4 -> $i32, within 20%)" \
    "fcmp '0 < $i4 and abs($i32 - $i4) <= 0.2 * $i4'"
check "ticket: invalidations per acquire grow with the cores ($t4 -> $t32, at least 4x) past mcs's ($i32)" \
    "fcmp '$t32 >= 4 * $t4 > 0 and $t32 > 3 * $i32'"
p2=$(tx tas 2); p4=$(tx tas 4)
check "tas: bus transactions per acquire grow from 2 to 4 cores ($p2 -> $p4, at least 5x)" \
    "fcmp '$p4 >= 5 * $p2 > 0'"
f=$(stat ticket 16 locks.fairness); n=$(stat ticket 16 locks.acquisitions_min)
check "ticket, 16 cores: fair in a time-bounded run (max/min $f, at least 5 each)" \
    "fcmp '1 <= $f <= 1.25 and $n >= 5'"
h4=$(stat ticket 4 locks.handoff_cycles); h32=$(stat ticket 32 locks.handoff_cycles)
th=$(stat ttas 32 locks.handoff_cycles)
check "hand-off: ticket constant from 4 to 32 cores ($h4 -> $h32), ttas at 32 cores slower ($th)" \
    "fcmp '0 < $h4 and abs($h32 - $h4) <= 0.2 * $h4 and $th > 2 * $h32'"

echo "locks: $pass passed, $fail failed"
[ $fail -eq 0 ]
