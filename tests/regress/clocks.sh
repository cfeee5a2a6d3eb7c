#!/bin/sh
# regress/clocks.sh BUILD: a clock per component (issue 17 item 3; docs/config.md "Clocks"):
#  - tests/regress/data/clocks.yaml (3 GHz core and L1s, 1 GHz L2, 1.6 GHz DRAM) gives exactly
#    the latencies derived by hand below, in each component's own cycles, and the trace dump
#    shows the issue and fill cycles of the derivation
#  - --set l2.clock=1GHz --set dram.clock=1.6GHz on the same machine without clock: keys gives
#    byte-identical stats; with every clock at 3 GHz the latencies differ (the test can fail)
#  - a time in a clocked section converts by that section's clock (l2.hit_latency: 10ns is 10
#    cycles at 1 GHz), in run and in validate (also for an include-only part)
#  - config.resolved.yaml writes clock: only in the sections that set one, loads back and gives
#    the same stats; a config without clocks resolves with no section clock:
#  - describe lists the key
# Prints "clocks: N passed, N failed".
#
# The derivation. 1 tick = 1 ps; a clock's period is 1e12 / f rounded: 3 GHz 333 ps, 1 GHz
# 1000 ps, 1.6 GHz 625 ps; all clocks have an edge at tick 0. Links cost 1 tick (uniproc.c).
# sim_port_send(delay d) arrives at (start of the sender's cycle) + d periods + 1; a message for
# another clock is seen at the receiver's first edge at or after that (the crossing rule);
# within one clock it arrives as computed. A latency stat is floor(ticks / own period).
# The core issues each load at one of its edges, T; L1D (3 GHz) hit_latency 4, response 1;
# L2 (1 GHz) hit 10, response 2; DRAM: ctrl 5 ns, tRCD = tCAS = 13.75 ns, a 64 B burst on
# 8 B x 3200 MT/s = 2.5 ns.
#
# load 1, A cold: T = 333 (core cycle 1, the first after the fetch at cycle 0)
#   l1d sees it at 334 (same clock); miss: 333 + 4 x 333 + 1 = 1666 -> L2 edge 2000 (cycle 2)
#   l2 miss: 2000 + 10 x 1000 + 1 = 12001 -> DRAM edge ceil(12001/625) = 20: 12500 (cycle 20)
#   dram row miss: 12500 + 5000 + 13750 + 13750 + 2500 = 47500; dram.latency
#     floor(35000 / 625) = 56; answer 12500 + 1 + 35000 = 47501 -> L2 edge 48000
#   l2 fill at 48000: l2.miss_latency (48000 - 2000) / 1000 = 46
#   l2 answers 48000 + 2 x 1000 + 1 = 50001 -> L1D edge ceil(50001/333) = 151: 50283
#   l1d fill: floor((50283 - 334) / 333) = 149; answers 50283 + 333 + 1 = 50617 (same clock)
#   core: floor((50617 - 333) / 333) = 151
# load 2, A hit: the core wakes at its edge ceil(50617/333) = 153: T = 50949
#   l1d hit: 50949 + 4 x 333 + 1 = 52282; core: floor(1333 / 333) = 4
# load 3, B = A + 64: T = edge ceil(52282/333) = 158: 52614; l1d sees 52615
#   l1d miss: 52614 + 1332 + 1 = 53947 -> L2 edge 54000 (cycle 54)
#   l2 miss: 54000 + 10000 + 1 = 64001 -> DRAM edge ceil(64001/625) = 103: 64375
#   dram row hit: 64375 + 5000 + 13750 = 83125 (bank and bus long free) + 2500 = 85625;
#     dram.latency floor(21250 / 625) = 34; answer 64375 + 1 + 21250 = 85626 -> L2 edge 86000
#   l2.miss_latency (86000 - 54000) / 1000 = 32; answers 86000 + 2000 + 1 = 88001
#     -> L1D edge ceil(88001/333) = 265: 88245
#   l1d fill: floor((88245 - 52615) / 333) = 106 (the fill evicts A: one line, clean)
#   answers 88245 + 333 + 1 = 88579; core: floor((88579 - 52614) / 333) = 108
# load 4, A from the L2: T = edge ceil(88579/333) = 267: 88911; l1d sees 88912
#   l1d miss: 88911 + 1332 + 1 = 90244 -> L2 edge 91000 (cycle 91)
#   l2 hit: 91000 + 10 x 1000 + 1 = 101001 -> L1D edge ceil(101001/333) = 304: 101232
#   l1d fill: floor((101232 - 88912) / 333) = 36; answers 101232 + 333 + 1 = 101566
#   core: floor((101566 - 88911) / 333) = 38
# end: the core retires at its edge ceil(101566/333) = 306: 101898 = sim.ticks; sim.cycles
#   (system clock, the last cycle counted) 307
# So: core.load_latency {151, 4, 108, 38}: mean 301/4 = 75.25; l1d.miss_latency {149, 106, 36}:
# mean 97; l2.miss_latency {46, 32}: mean 39; dram.latency {56, 34}: mean 45.
set -u
B=${1:-build}
A=./archsim
[ -x "$A" ] || A=$B/archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
check() {  # name cond (evaluated here: it may call the functions below)
    if eval "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}
CFG=tests/regress/data/clocks.yaml
# stat RUN NAME: the value of one stat in $T/RUN/stats.txt
stat() { awk -v n="$2" '$1 == n { print $2 }' "$T/$1/stats.txt"; }
# has RUN NAME=VALUE...: every stat has exactly that value
has() {
    r=$1
    shift
    for nv in "$@"; do
        got=$(stat "$r" "${nv%%=*}")
        [ "$got" = "${nv#*=}" ] || { echo "     $r: ${nv%%=*} is '$got', expected ${nv#*=}" >&2; return 1; }
    done
}
# same A B: the stats files of two runs are byte-identical (host time aside)
same() {
    for f in stats.txt stats.json stats.csv; do
        grep -v host "$T/$1/$f" > "$T/a" && grep -v host "$T/$2/$f" > "$T/b" && cmp -s "$T/a" "$T/b" ||
            { diff "$T/a" "$T/b" | head -6; return 1; }
    done
}

$A run $CFG -q -o "$T/clk" --trace "$T/clk.trace.txt" > "$T/clk.out" 2>&1 || cat "$T/clk.out"
check "3 GHz core: load latencies 4, 38, 108, 151 (mean 75.25)" \
    "has clk core.load_latency::samples=4 core.load_latency::min=4 core.load_latency::max=151 \
        core.load_latency::mean=75.250000 core.load_latency::4-7=1 core.load_latency::32-63=1 \
        core.load_latency::64-127=1 core.load_latency::128-255=1"
check "3 GHz L1D: miss latencies 149, 106, 36" \
    "has clk l1d.miss_latency::samples=3 l1d.miss_latency::min=36 l1d.miss_latency::max=149 \
        l1d.miss_latency::mean=97.000000 l1d.read_hits=1 l1d.read_misses=3"
check "1 GHz L2: miss latencies 46, 32 in its own cycles; one hit" \
    "has clk l2.miss_latency::samples=2 l2.miss_latency::min=32 l2.miss_latency::max=46 \
        l2.miss_latency::mean=39.000000 l2.read_hits=1"
check "1.6 GHz DRAM: latencies 56 (row miss), 34 (row hit) in its own cycles" \
    "has clk dram.latency::samples=2 dram.latency::min=34 dram.latency::max=56 \
        dram.latency::mean=45.000000 dram.row_misses=1 dram.row_hits=1"
check "sim.ticks 101898 (global), sim.cycles 307 (system clock)" \
    "has clk sim.ticks=101898 sim.cycles=307 sim.clock=3000000000"
# the dump gives each component's own cycles: the issue cycles and fill lengths above
grep -E '^ *[0-9]+: (core: load|l1d: fill|l2: fill|l2: hit|l2: miss|dram: read)' "$T/clk.trace.txt" |
    sed -e 's/  *addr=[^ ]*//' -e 's/ op=[^ ]*//' -e 's/ mshr=[^ ]*//' -e 's/ size=[^ ]*//' \
        -e 's/ targets=[^ ]*//' -e 's/^ *//' > "$T/dump.txt"
cat > "$T/dump.want" <<'TXT'
1: core: load
1: l1d: fill dur=149
2: l2: miss
2: l2: fill dur=46
20: dram: read row=row_miss dur=56
153: core: load
158: core: load
54: l2: miss
54: l2: fill dur=32
103: dram: read row=row_hit dur=34
158: l1d: fill dur=106
267: core: load
91: l2: hit
267: l1d: fill dur=36
TXT
check "trace dump: issue cycles 1, 153, 158, 267; L2 at 2, 54, 91; DRAM at 20, 103" \
    "diff '$T/dump.txt' '$T/dump.want'"

# the same machine with its clocks given by --set
grep -v -e 'clock: 1GHz' -e 'clock: 1.6GHz' -e '^ *# the grid' $CFG |
    sed -e "s#clocks.lackey#$(pwd)/tests/regress/data/clocks.lackey#" -e 's/hit_latency: 10ns/hit_latency: 10cycles/' \
    > "$T/noclk.yaml"
$A run "$T/noclk.yaml" -q -o "$T/set" --set l2.clock=1GHz --set dram.clock=1.6GHz > "$T/set.out" 2>&1 ||
    cat "$T/set.out"
check "--set l2.clock=1GHz --set dram.clock=1.6GHz: the same stats" "same clk set"
$A run "$T/noclk.yaml" -q -o "$T/one" > "$T/one.out" 2>&1 || cat "$T/one.out"
check "one clock (3 GHz everywhere): other latencies (the test can fail)" \
    '! same clk one > /dev/null && [ "$(stat one core.load_latency::max)" != 151 ]'
$A run "$T/noclk.yaml" -q -o "$T/ns" --set l2.hit_latency=10ns > /dev/null 2>&1
check "l2 on the 3 GHz system clock: 10ns is 30 cycles, not 10" '! same one ns > /dev/null'

# resolved configs: clock: only where set, loads back, the same stats
# "SECTION clock" for every clock: line of a resolved config
clocks_of() { awk '/^[a-z]/ { s = $1 } /^  clock:/ { print s, $2 }' "$1" | tr '\n' ' '; }
check "resolved: clock: under sim, l2 and dram only" \
    '[ "$(clocks_of "$T/clk/config.resolved.yaml")" = "sim: 3GHz l2: 1GHz dram: 1.6GHz " ]'
check "resolved: l2.hit_latency 10ns recorded as 10cycles" \
    "awk '/^l2:/ { s = 1 } /^[a-z]/ && !/^l2:/ { s = 0 } s && /hit_latency/' '$T/clk/config.resolved.yaml' | grep -q 'hit_latency: 10cycles'"
$A run "$T/clk/config.resolved.yaml" -q -o "$T/back" > "$T/back.out" 2>&1 || cat "$T/back.out"
check "resolved config loads back: the same stats" "same clk back"
$A run configs/default.yaml -q -o "$T/def" --set sim.max_cycles=2000 > /dev/null 2>&1
check "a config without clocks: no section clock: in its resolved config" \
    '[ "$(clocks_of "$T/def/config.resolved.yaml")" = "sim: 3GHz " ]'

# validate converts by the section's clock, for a machine and for an include-only part
check "validate: l2.clock with a time in l2" \
    "$A validate $CFG > /dev/null 2>&1"
printf 'l2:\n  clock: 1GHz\n  hit_latency: 2ms\n' > "$T/part-bad.yaml"
printf 'l2:\n  clock: 1GHz\n  hit_latency: 500us\n' > "$T/part-ok.yaml"
check "validate part: 500us at the part's l2.clock 1GHz is 500000 cycles (at 3GHz it is out of range)" \
    "$A validate '$T/part-ok.yaml' > /dev/null 2>&1 && printf 'l2:\n  hit_latency: 500us\n' > '$T/p3.yaml' && ! $A validate '$T/p3.yaml' > /dev/null 2>&1"
check "validate part: 2ms at 1GHz is refused with the conversion" \
    "$A validate '$T/part-bad.yaml' 2>&1 | grep -qF 'l2.hit_latency: 2ms (2000000 cycles at 1GHz) is out of range [1cycle, 1000000cycles]'"

check "describe uniproc: every section takes clock" \
    "$A describe uniproc | grep -A1 'every section also takes' | grep -q '^ *clock  *frequency'"

echo "clocks: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
