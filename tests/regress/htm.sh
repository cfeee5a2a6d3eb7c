#!/bin/sh
# regress/htm.sh BUILD: the orderings of the HTM experiment (docs/experiments/htm.md) on small
# runs (configs/htm/*-experiment.yaml at 1, 2 and 8 workers; half the operations), and that its
# value checks catch a broken synchronization:
#  - hash table, low contention, 8 workers: HTM and fine-grained locks both above 2.5x the
#    coarse lock's throughput, HTM within 10% of fine-grained or above it; the coarse lock does
#    not scale (8 workers < 1.5x 2 workers)
#  - hash table, high contention, 8 workers: transactions commit and abort, aborts per begin
#    above 10x the low-contention rate, and some operations fall back to the lock
#  - sorted list, 128 keys: hand-over-hand locking is slower than the coarse lock on 1 worker (a
#    lock per node visited) and faster on 8; HTM's aborts per begin grow from 2 to 8 workers
#  - every run's values check (exit 0); the unsynchronized hash table, and transactions that do
#    not subscribe to the fallback lock (list and hash), lose updates and fail (exit 3), while
#    the subscribed kernel at the same point passes
# Prints "htm: N passed, N failed".
set -u
A=${1:-build}/archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }

for s in hash list; do
    $A sweep "configs/htm/$s-experiment.yaml" -j 2 -q -o "$T/$s" --grid system.cores=3,4,10 \
        --set core.iterations=100 > "$T/$s.out" 2>&1 || { cat "$T/$s.out"; ko "$s sweep"; }
done
n=$(cat "$T"/hash/sweep.csv "$T"/list/sweep.csv | grep -c ',ok,')
check "every run's values check ($n of 36 runs exit 0)" "[ '$n' = 36 ]"

# stat STRUCT SIZE SYNC WORKERS WHAT: one number of one point of the sweeps (WHAT: thr, the
# operations per 1,000 cycles from the starter's halt to the last worker's; aborts, aborts per
# begin; commits, begins, fallback, the share of operations run under the lock)
stat() {
    python3 - "$T/$1/sweep.csv" "$@" <<'PY'
import csv, sys
path, s, size, sync, w, what = sys.argv[1:]
w = int(w); n = w + 2; ops = w * 100
for r in csv.DictReader(open(path)):
    if (r["core.size"], r["core.kernel_file"], r["system.cores"]) != \
            (size, f"configs/htm/{s}-{sync}.k", str(n)) or r["status"] != "ok":
        continue
    num = lambda k: float(r[k] or 0)
    ab = sum(num(f"l1d.htm.aborts.{k}") for k in ("conflict", "capacity", "explicit"))
    end = max(num(f"core{i}.cycles") for i in range(w)) - num(f"core{n - 2}.cycles")
    print("%.3f" % {"thr": ops * 1000 / end, "aborts": ab / max(num("l1d.htm.begins"), 1),
           "commits": num("l1d.htm.commits"), "begins": num("l1d.htm.begins"),
           "fallback": (ops - num("l1d.htm.commits")) / ops}[what])
    break
else:
    print("nan")
PY
}
# fcmp EXPR: floating-point comparison
fcmp() { python3 -c "import sys; sys.exit(0 if $1 else 1)"; }

c=$(stat hash 64 coarse 8 thr); f=$(stat hash 64 fine 8 thr); h=$(stat hash 64 htm 8 thr)
check "hash, 64 buckets, 8 workers: HTM ($h) and fine ($f) > 2.5 x coarse ($c) ops/kcycle" \
    "fcmp '$h > 2.5 * $c and $f > 2.5 * $c > 0'"
check "hash, low contention, 8 workers: HTM ($h) >= 0.9 x fine-grained ($f)" "fcmp '$h >= 0.9 * $f'"
c2=$(stat hash 64 coarse 2 thr)
check "hash: the coarse lock does not scale (2 -> 8 workers: $c2 -> $c ops/kcycle, < 1.5x)" \
    "fcmp '0 < $c < 1.5 * $c2'"
hc=$(stat hash 2 htm 8 commits); hb=$(stat hash 2 htm 8 begins)
ha=$(stat hash 2 htm 8 aborts); la=$(stat hash 64 htm 8 aborts); hf=$(stat hash 2 htm 8 fallback)
check "hash, 2 buckets, 8 workers: transactions commit ($hc of $hb) and abort ($ha per begin)" \
    "fcmp '$hc > 0 and $ha > 0.1'"
check "hash, 8 workers: aborts per begin, 2 buckets ($ha) > 10 x 64 buckets ($la)" \
    "fcmp '$ha > 10 * $la'"
check "hash, high contention, 8 workers: some operations fall back to the lock ($hf)" \
    "fcmp '0 < $hf < 0.5'"
l1c=$(stat list 128 coarse 1 thr); l1f=$(stat list 128 fine 1 thr)
l8c=$(stat list 128 coarse 8 thr); l8f=$(stat list 128 fine 8 thr)
check "list, 1 worker: hand-over-hand ($l1f) < coarse ($l1c) ops/kcycle (a lock per node visited)" \
    "fcmp '0 < $l1f < $l1c'"
check "list, 8 workers: hand-over-hand ($l8f) > coarse ($l8c) ops/kcycle" "fcmp '$l8f > $l8c > 0'"
a2=$(stat list 128 htm 2 aborts); a8=$(stat list 128 htm 8 aborts)
check "list, 128 keys: HTM aborts per begin grow from 2 to 8 workers ($a2 -> $a8)" \
    "fcmp '$a8 > 2 * $a2 > 0'"

# broken synchronizations must fail their value checks (exit 3), and the correct kernel at the
# same point must not
run() {   # run EXPECTED-EXIT NAME CONFIG ARGS..
    want=$1; name=$2; shift 2
    $A run -q -o "$T/neg" -f "$@" > "$T/neg.out" 2>&1
    rc=$?
    why=$(grep -o -m1 -e 'check failed: [a-z]* = -*[0-9]*' -e 'deadlock' "$T/neg.out")
    if [ "$want" = 3 ]; then
        check "$name: caught (exit $rc: $why)" "[ $rc = 3 ] && [ -n '$why' ]"
    else
        check "$name: exit $rc" "[ $rc = 0 ]"
    fi
}
H="configs/htm/hash.yaml --set core.size=2"
run 3 "hash without synchronization, 8 workers, 2 buckets" $H --set system.cores=10 \
    --set core.kernel_file=configs/htm/hash-none.k
# (a lost node, or a cycle in the list that traps a traversal: the watchdog's deadlock, exit 3)
L="configs/htm/list.yaml --set system.cores=18 --set core.size=4 --set core.iterations=150"
L="$L --set sim.watchdog=200000"
run 3 "list, transactions without lock subscription, 16 workers, 4 keys" $L \
    --set core.kernel_file=configs/htm/list-htm-nosub.k
run 0 "list, the same point with the subscription" $L --set core.kernel_file=configs/htm/list-htm.k
H="$H --set system.cores=18 --set core.iterations=800 --set core.outside=0 --set core.jitter=0"
run 3 "hash, transactions without lock subscription, 16 workers, 2 buckets, no think time" $H \
    --set core.kernel_file=configs/htm/hash-htm-nosub.k
run 0 "hash, the same point with the subscription" $H --set core.kernel_file=configs/htm/hash-htm.k

echo "htm: $pass passed, $fail failed"
[ $fail -eq 0 ]
