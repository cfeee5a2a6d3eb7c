#!/bin/sh
# regress/bus-stats.sh BUILD: the snooping bus's counts agree with the L1s' and with the data bus
# (docs/coherence.md, "Statistics"), on the random tester under MSI, MESI and MOESI in both bus
# modes (replacements racing requests):
#  - bus.invalidations = the L1s' invalidated (copies lost to a GetM; a copy given up on a GetS
#    while its PutM waited was counted too);
#  - bus.upgrades = the L1s' SM_AD/OM_AD Own_GETM transitions (a GetM whose cache had lost its
#    copy by the time the bus ordered it was counted as an upgrade);
#  - bus.data_bytes / line x 2 cycles a line = bus.data_busy_cycles (an owner's upgrade and a
#    write-back riding a cache-to-cache transfer were billed a line each).
# Prints "bus-stats: N passed, N failed".
B=${1:-build}
A=$B/archsim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
for p in msi mesi moesi; do
    for mode in split atomic; do
        "$A" run configs/coherence/random-tester.yaml -q -o "$T/r" --force --set l1d.protocol=$p \
            --set bus.mode=$mode > /dev/null 2>&1 || { fail=$((fail + 1)); echo "FAIL $p $mode: run"; continue; }
        if python3 - "$T/r/stats.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
g = lambda k: s.get(k, 0)
up = g('L1Cache_Controller.SM_AD.Own_GETM') + g('L1Cache_Controller.OM_AD.Own_GETM')
ok = (g('bus.upgrades') == up and g('bus.invalidations') == g('l1d.invalidated') and
      g('bus.data_bytes') // 64 * 2 == g('bus.data_busy_cycles') and g('bus.data_bytes') > 0)
print(f"upgrades {g('bus.upgrades')} / L1s {up}, invalidations {g('bus.invalidations')} / L1s "
      f"{g('l1d.invalidated')}, data bytes {g('bus.data_bytes')} / busy {g('bus.data_busy_cycles')}")
sys.exit(0 if ok else 1)
PY
        then pass=$((pass + 1)); echo "ok   $p $mode"
        else fail=$((fail + 1)); echo "FAIL $p $mode"; fi
    done
done
echo "bus-stats: $pass passed, $fail failed"
[ $fail -eq 0 ]
