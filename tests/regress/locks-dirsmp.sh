#!/bin/sh
# regress/locks-dirsmp.sh BUILD: the lock experiment on the directory machine
# (configs/locks/experiment-dirsmp.yaml, docs/experiments/locks.md "The directory machine") on
# shorter runs (200,000 cycles instead of 1,000,000), counting network messages per acquisition:
#  - at 16 tiles: tas > ttas > ttas-backoff > mcs
#  - mcs stays flat from 4 to 16 tiles (within 20%) in messages and invalidations per
#    acquisition, while the ticket lock's invalidations per acquisition grow with the waiters
#  - tas's messages per acquisition grow from 2 to 4 tiles (its tries chase the line around)
#  - where the mesh differs from the bus: ttas at 16 tiles is unfair (the tiles nearest the lock's
#    home win every release race; at least 10x between most and fewest), mcs is fair
# Prints "locks-dirsmp: N passed, N failed".
set -u
A=./archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }

$A sweep configs/locks/experiment-dirsmp.yaml -j 2 -q -o "$T/s" --set core.duration=200000 \
    --grid core.kernel=tas,ttas,ttas-backoff,ticket,mcs --grid system.cores=2,4,16 \
    > "$T/sweep.out" 2>&1 || { cat "$T/sweep.out"; ko "sweep"; }

# stat LOCK CORES NAME: one stat of one point, from sweep.csv
stat() {
    python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["core.kernel"] == sys.argv[2] and r["system.cores"] == sys.argv[3]:
        print(r[sys.argv[4]] if r["status"] == "ok" else "nan"); break
else: print("nan")' "$T/s/sweep.csv" "$1" "$2" "$3"
}
msg() { stat "$1" "$2" locks.net_messages_per_acquire; }
inv() { stat "$1" "$2" locks.invalidations_per_acquire; }
# fcmp EXPR: floating-point comparison
fcmp() { python3 -c "import sys; sys.exit(0 if $1 else 1)"; }

a=$(msg tas 16); b=$(msg ttas 16); c=$(msg ttas-backoff 16); d=$(msg mcs 16)
check "16 tiles: network messages per acquire tas ($a) > ttas ($b) > ttas-backoff ($c) > mcs ($d)" \
    "fcmp '$a > $b > $c > $d > 0'"
m4=$(msg mcs 4); m16=$(msg mcs 16); i4=$(inv mcs 4); i16=$(inv mcs 16)
check "mcs: messages per acquire flat from 4 to 16 tiles ($m4 -> $m16, within 20%)" \
    "fcmp '0 < $m4 and abs($m16 - $m4) <= 0.2 * $m4'"
check "mcs: invalidations per acquire flat from 4 to 16 tiles ($i4 -> $i16, within 20%)" \
    "fcmp '0 < $i4 and abs($i16 - $i4) <= 0.2 * $i4'"
t4=$(inv ticket 4); t16=$(inv ticket 16)
check "ticket: invalidations per acquire grow ($t4 -> $t16, at least 2.5x) past mcs's ($i16)" \
    "fcmp '$t16 >= 2.5 * $t4 > 0 and $t16 > 2 * $i16'"
p2=$(msg tas 2); p4=$(msg tas 4)
check "tas: messages per acquire grow from 2 to 4 tiles ($p2 -> $p4, at least 5x)" \
    "fcmp '$p4 >= 5 * $p2 > 0'"
x=$(stat ttas 16 locks.acquisitions_max); n=$(stat ttas 16 locks.acquisitions_min)
f=$(stat mcs 16 locks.fairness)
check "16 tiles: ttas unfair (most $x, fewest $n acquisitions of a core), mcs fair (max/min $f)" \
    "fcmp '$x >= 10 * $n and $x > 0 and 1 <= $f <= 1.25'"

echo "locks-dirsmp: $pass passed, $fail failed"
[ $fail -eq 0 ]
