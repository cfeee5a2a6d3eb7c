#!/bin/sh
# regress/units.sh BUILD: issue 16 item 5, units and sweep seeds (docs/config.md "Units",
# docs/sweeps.md "Seeds"):
#  - gem5's size spellings are binary: --set l1d.size=64kB gives byte-identical stats to 64KiB
#    (and l2.size=1MB to 1MiB), while 64KiB differs from the default 32KiB (the test can fail)
#  - a latency written as a time equals the cycles it converts to at the configured clock:
#    l1d.hit_latency=4ns is 12cycles at 3GHz and 8cycles at 2GHz; 1.9ns at 3GHz (5.7) rounds up
#    to 6cycles; each differs from the default 4cycles; the resolved config records the cycles;
#    sim.max_cycles=1us stops the run after 3000 cycles
#  - describe shows latencies as cycles|time
#  - sweep seeds: one seed for every point by default (common random numbers), base + i with
#    --seeds per-point or the sweep: block's seeds: per-point; sweep.json records the rule; a
#    point equals `archsim run` with that seed; --resume of a directory seeded by the other rule
#    (or of an old sweep.json that records none, i.e. base + i) is refused with exit 65
# Prints "units: N passed, N failed".
set -u
A=./archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }

CFG=configs/default.yaml
# run NAME ARGS...: one bounded run of the default config into $T/NAME
run() {
    name=$1
    shift
    $A run $CFG -q --seed 1 -o "$T/$name" --set sim.max_cycles=300000 "$@" > "$T/$name.out" 2>&1 ||
        { cat "$T/$name.out"; ko "run $name $*"; }
}
# same A B: stats.txt, stats.json and stats.csv of runs A and B are byte-identical (quiet)
same() {
    for f in stats.txt stats.json stats.csv; do
        cmp -s "$T/$1/$f" "$T/$2/$f" || return 1
    done
}
# is_same A B: same, and the first lines of the difference when not
is_same() { same "$1" "$2" || { diff "$T/$1/stats.txt" "$T/$2/stats.txt" | head -6; false; }; }

run base
run kB --set l1d.size=64kB
run KiB --set l1d.size=64KiB
run MB --set l2.size=1MB
run MiB --set l2.size=1MiB
check "sizes: --set l1d.size=64kB gives byte-identical stats to 64KiB (gem5: kB = KiB)" "is_same kB KiB"
check "sizes: --set l2.size=1MB gives byte-identical stats to 1MiB" "is_same MB MiB"
check "sizes: 64KiB differs from the default 32KiB (the comparison can fail)" "! same KiB base"
check "sizes: the resolved config writes 64kB as 64KiB" \
    "grep -A3 '^l1d:' '$T/kB/config.resolved.yaml' | grep -q '^  size: 64KiB$'"

run ns4 --set l1d.hit_latency=4ns
run c12 --set l1d.hit_latency=12cycles
run ns4at2 --set sim.clock=2GHz --set l1d.hit_latency=4ns
run c8at2 --set sim.clock=2GHz --set l1d.hit_latency=8cycles
run ns19 --set l1d.hit_latency=1.9ns
run c6 --set l1d.hit_latency=6cycles
run c4 --set l1d.hit_latency=4cycles
check "latencies: l1d.hit_latency=4ns equals 12cycles at 3GHz (byte-identical stats)" "is_same ns4 c12"
check "latencies: l1d.hit_latency=4ns equals 8cycles at sim.clock=2GHz" "is_same ns4at2 c8at2"
check "latencies: 1.9ns at 3GHz (5.7 cycles) rounds up to 6cycles" "is_same ns19 c6"
check "latencies: 12cycles and 6cycles differ from the default 4cycles (the comparison can fail)" \
    "same c4 base && ! same c12 c4 && ! same c6 c4"
check "latencies: the resolved config records the cycles (hit_latency: 12cycles)" \
    "grep -A8 '^l1d:' '$T/ns4/config.resolved.yaml' | grep -q '^  hit_latency: 12cycles$'"
$A run $CFG -q --seed 1 -o "$T/us" --set sim.max_cycles=1us > "$T/us.out" 2>&1 || cat "$T/us.out"
check "latencies: sim.max_cycles=1us stops after 3000 cycles of the 3GHz system clock" \
    "grep -q '^sim.cycles  *3000 ' '$T/us/stats.txt' && grep -q '^  max_cycles: 3000cycles$' '$T/us/config.resolved.yaml'"
check "describe cache: hit_latency is cycles|time" \
    "$A describe cache | grep -q '^ *hit_latency  *cycles|time '"

# sweep seeds
FS=configs/coherence/false-sharing.yaml
SW="--grid system.cores=2,4 --grid core.spacing=8B,64B -q"
$A sweep $FS $SW -o "$T/common" > "$T/common.out" 2>&1 || { cat "$T/common.out"; ko "sweep"; }
$A sweep $FS $SW --seeds per-point -o "$T/pp" > "$T/pp.out" 2>&1 || { cat "$T/pp.out"; ko "sweep --seeds per-point"; }
$A sweep $FS $SW --seed 7 -o "$T/c7" > "$T/c7.out" 2>&1 || { cat "$T/c7.out"; ko "sweep --seed 7"; }
seeds() { cut -d, -f3 "$T/$1/sweep.csv" | tail -n +2 | tr '\n' ' '; }
check "sweep: every point gets the base seed by default (seed column 1 1 1 1)" "[ \"\$(seeds common)\" = '1 1 1 1 ' ]"
check "sweep: --seed 7 gives every point seed 7" "[ \"\$(seeds c7)\" = '7 7 7 7 ' ]"
check "sweep: --seeds per-point gives point i seed 1 + i" "[ \"\$(seeds pp)\" = '1 2 3 4 ' ]"
check "sweep: sweep.json records the rule" \
    "grep -q '\"seeds\": \"common\"' '$T/common/sweep.json' && grep -q '\"seeds\": \"per-point\"' '$T/pp/sweep.json'"
$A run $FS -q --seed 1 --set system.cores=4 --set core.spacing=64B -o "$T/ref" > /dev/null 2>&1
check "sweep: a common-seed point equals archsim run with the base seed" \
    "cmp -s '$T/ref/stats.json' '$T/common/point-0003/stats.json'"
check "sweep: point 3 runs with seed 1 under common seeds and 4 under per-point (run.json)" \
    "grep -q '\"seed\": 1' '$T/common/point-0003/run.json' && grep -q '\"seed\": 4' '$T/pp/point-0003/run.json'"
printf 'include: %s\nsweep:\n  grid: {system.cores: [2, 4]}\n  seeds: per-point\n' \
    "$PWD/$FS" > "$T/block.yaml"
$A sweep "$T/block.yaml" -n > "$T/block.out" 2>&1
$A sweep "$T/block.yaml" -n --seeds common > "$T/block2.out" 2>&1
check "sweep: the sweep: block's seeds: per-point, and --seeds common overriding it" \
    "grep -q 'point-0001 seed=2 ' '$T/block.out' && grep -q 'point-0001 seed=1 ' '$T/block2.out'"
$A sweep $FS $SW -o "$T/pp" --resume > "$T/res.out" 2>&1; rc=$?
check "sweep --resume: a per-point directory resumed with common seeds is refused (65)" \
    "[ $rc -eq 65 ] && grep -q 'seeded with --seeds per-point, this sweep asks for --seeds common' '$T/res.out'"
$A sweep $FS $SW -o "$T/pp" --resume --seeds per-point > "$T/res2.out" 2>&1; rc=$?
check "sweep --resume --seeds per-point resumes it (0, 4 resumed)" \
    "[ $rc -eq 0 ] && grep -q '4 points (4 resumed, 0 failed)' '$T/res2.out'"
# a sweep.json from before the choice has no "seeds" and was seeded base + i
grep -v '"seeds": ' "$T/pp/sweep.json" > "$T/old.json" && cp "$T/old.json" "$T/pp/sweep.json"
$A sweep $FS $SW -o "$T/pp" --resume > "$T/res3.out" 2>&1; rc=$?
check "sweep --resume: an old sweep.json (no seeds recorded: base + i) is refused with common seeds (65)" \
    "[ $rc -eq 65 ] && grep -q 'seeded with --seeds per-point' '$T/res3.out'"

echo "units: $pass passed, $fail failed"
[ $fail -eq 0 ]
