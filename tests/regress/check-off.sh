#!/bin/sh
# regress/check-off.sh BUILD: `system.check: false` turns the reference checks off and changes no
# statistic (docs/coherence.md, "Checking"): on the snooping and directory machines, with miss
# classification, HTM and locks, the stats of a run with checks on and one with them off are
# identical (`archsim diff` exit 0). The true/false sharing split of coherence misses used the
# checks' write record and fell back to conflict and capacity without it.
# Prints "check-off: N passed, N failed".
B=${1:-build}
A=$B/archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
for c in coherence/random-tester.yaml coherence/dir-random.yaml coherence/matmul-4core.yaml \
         htm/hash.yaml locks/clh.yaml; do
    if "$A" run "configs/$c" -q -o "$T/on" --force > /dev/null 2>&1 &&
       "$A" run "configs/$c" -q -o "$T/off" --force --set system.check=false > /dev/null 2>&1 &&
       "$A" diff "$T/on" "$T/off" > "$T/diff" 2>&1; then
        pass=$((pass + 1)); echo "ok   $c: $(cat "$T/diff")"
    else
        fail=$((fail + 1)); echo "FAIL $c: checks on and off differ"; head -8 "$T/diff"
    fi
done
echo "check-off: $pass passed, $fail failed"
[ $fail -eq 0 ]
