#!/bin/sh
# regress/dirsnoop.sh BUILD: the qualitative shape of the snooping vs directory experiment
# (docs/experiments/directory-vs-snooping.md) at small scale, in a few seconds:
#  - the two machines (configs/coherence/dirsnoop-{bus,dir}.yaml) have equal cores, L1s, LLC, DRAM
#  - migratory, 2 vs 16 cores: every other cache snoops each bus transaction (snoops per miss =
#    transactions per miss x (cores - 1), so they grow 15-fold) while the directory's messages
#    per miss and Inv/Fwd per miss stay nearly flat
#  - at 16 cores the bus is busier than the mesh's average link
#  - the directory serves migratory misses three-hop, private ones two-hop
#  - the experiment's yardsticks: both machines' L1 miss latency spans the same part of a clean
#    miss (shared_ro: what the core waits beyond it is equal), and at 64 cores the LLC holds
#    every core's private data (the LLC misses only once per line)
# Prints "dirsnoop: N passed, N failed".
set -u
A=./archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else ko "$1"; fi; }
BUS=configs/coherence/dirsnoop-bus.yaml
DIR=configs/coherence/dirsnoop-dir.yaml

# run NAME CONFIG CORES ARGS...: a run with checks on; the bus machine gets one LLC bank per core
run() {
    name=$1 cfg=$2 n=$3
    shift 3
    banks=
    [ "$cfg" = "$BUS" ] && banks="--set system.llc_banks=$n"
    $A run "$cfg" -q -o "$T/$name" --set system.cores="$n" --set system.check=true $banks "$@" \
        > "$T/$name.out" 2>&1 || { cat "$T/$name.out"; ko "run $name"; }
}
run bus2 $BUS 2 --set core.ops=500
run bus16 $BUS 16 --set core.ops=500
run dir2 $DIR 2 --set core.ops=500
run dir16 $DIR 16 --set core.ops=500
run dirpriv $DIR 4 --set core.pattern=private --set core.words=576 --set core.ops=1200
SRO="--set core.pattern=shared_ro --set core.words=4608 --set core.ops=9216"
run bussro $BUS 4 $SRO
run dirsro $DIR 4 $SRO
PRIV="--set core.pattern=private --set core.words=576 --set core.ops=1152 --set core.write_ratio=0.3"
run buspriv64 $BUS 64 $PRIV
run dirpriv64 $DIR 64 $PRIV

# stat RUN NAME: one value of RUN's stats.json
stat() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$T/$1/stats.json" "$2"; }
# dirfwd RUN: Inv + Fwd-GetS + Fwd-GetM sent by all directories, per L1 miss
dirfwd() {
    python3 -c 'import json,re,sys; d=json.load(open(sys.argv[1]))
print(sum(v for k, v in d.items() if re.fullmatch(r"dir\d+\.(invs|fwd_gets|fwd_getm)", k)) / d["l1d.misses"])' "$T/$1/stats.json"
}
# corewait RUN: what the cores wait per miss (their access latencies less the hits) minus the
# L1s' mean miss latency: the part of a miss the L1 stat leaves out
corewait() {
    python3 -c 'import json,re,sys; d=json.load(open(sys.argv[1]))
pc=lambda s: [v for k, v in d.items() if re.fullmatch(r"core\d+\." + re.escape(s), k)]
m=d["l1d.misses"]; hit=min(pc("latency::min"))
tot=sum(a * n for a, n in zip(pc("latency::mean"), pc("latency::samples")))
print((tot - (d["l1d.accesses"] - m) * hit) / m - d["system.avg_miss_latency"])' "$T/$1/stats.json"
}
# llcmisses RUN: read misses of all LLC banks
llcmisses() {
    python3 -c 'import json,re,sys; d=json.load(open(sys.argv[1]))
print(sum(v for k, v in d.items() if re.fullmatch(r"llc\d+\.read_misses", k)))' "$T/$1/stats.json"
}
# fcmp EXPR: floating-point comparison
fcmp() { python3 -c "import sys; sys.exit(0 if $1 else 1)"; }

# the two machines differ only in the interconnect: equal sections in the resolved configs
section() { awk -v s="$2:" '$0 == s {f=1; next} /^[a-z]/ {f=0} f' "$T/$1/config.resolved.yaml"; }
for s in core llc dram; do
    check "machines: equal $s sections" "[ \"\$(section bus16 $s)\" = \"\$(section dir16 $s)\" ] && [ -n \"\$(section bus16 $s)\" ]"
done
check "machines: equal L1 geometry (size, assoc, line, hit_latency) and MESI" \
    "[ \"\$(section bus16 l1d | grep -E '^  (size|assoc|line|hit_latency):')\" = \"\$(section dir16 l1d | grep -E '^  (size|assoc|line|hit_latency):')\" ] &&
     section bus16 l1d | grep -qx '  protocol: mesi' && section dir16 l1d | grep -qx '  protocol: dir-mesi'"

b2=$(stat bus2 system.snoops_per_miss); b16=$(stat bus16 system.snoops_per_miss)
t2=$(stat bus2 system.bus_transactions_per_miss); t16=$(stat bus16 system.bus_transactions_per_miss)
check "bus: snoops per miss = transactions per miss x (cores - 1) ($b2 at 2, $b16 at 16 cores)" \
    "fcmp 'abs($b2 - $t2 * 1) < 1e-9 and abs($b16 - $t16 * 15) < 1e-9'"
check "bus: snoops per miss grow with the cores ($b2 -> $b16, at least 7x)" "fcmp '$b16 >= 7 * $b2'"
m2=$(stat dir2 system.net_messages_per_miss); m16=$(stat dir16 system.net_messages_per_miss)
check "directory: messages per miss stay nearly flat ($m2 -> $m16, less than 2x)" \
    "fcmp '0 < $m2 and 0 < $m16 < 2 * $m2'"
f2=$(dirfwd dir2); f16=$(dirfwd dir16)
check "directory: Inv + Fwd per miss stay nearly flat and far below the bus's snoops ($f2 -> $f16)" \
    "fcmp '0 < $f16 < 2 * $f2 and $f16 < $b16 / 5'"
bu=$(stat bus16 bus.utilization); la=$(stat dir16 noc.link_utilization_avg)
lm=$(stat dir16 noc.link_utilization_max)
check "16 cores: bus utilization ($bu) above twice the mesh's mean link utilization ($la)" \
    "fcmp '0 < $la and $bu > 2 * $la and $la <= $lm <= 1'"
h3=$(stat dir16 system.three_hop_fraction); hp=$(stat dirpriv system.three_hop_fraction)
check "directory: migratory misses mostly three-hop ($h3), private ones two-hop ($hp)" \
    "fcmp '$h3 > 0.4 and $hp == 0' && [ \$(stat dirpriv l1d.misses_2hop) -gt 1000 ]"
wb=$(corewait bussro); wd=$(corewait dirsro)
check "miss latency: both L1s leave out the same part of a clean miss ($wb, $wd cycles)" \
    "fcmp 'abs($wb - $wd) < 0.05'"
lb=$(llcmisses buspriv64); ld=$(llcmisses dirpriv64)
check "64 cores: the LLC holds all private data, one miss per line ($lb, $ld; 36864 lines)" \
    "[ $lb -eq 36864 ] && [ $ld -eq 36864 ]"

echo "dirsnoop: $pass passed, $fail failed"
[ $fail -eq 0 ]
