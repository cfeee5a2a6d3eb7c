#!/bin/bash
# tpu-sampling.sh [BUILD [BUDGET...]]: how far the default mode's sampled DRAM reads (docs/tpu.md,
# "Huge layers") are from a full simulation. Runs ResNet-18 and AlexNet (SCALE-Sim's shipped
# topologies) under the three shipped configs and three dataflows once with --exact and once per
# BUDGET (words; default 1000000 4000000 16000000, far below the default 2^28 so that these
# layers are sampled) and compares, layer by layer, the IFMAP and filter DRAM reads (percent
# error) and the cycles and OFMAP DRAM writes (must not differ). Writes
# docs/experiments/tpu-sampling.csv (budget, config, dataflow, topology, layer, IFMAP error %,
# filter error %, cycle difference, OFMAP write difference, and where the IFMAP and filter DRAM
# reads stop: the difference in percent of the layer's cycles) and prints a summary per budget.
# About two minutes.
set -eu
B=${1:-build}
shift || true
BUDGETS=${*:-1000000 4000000 16000000}
SH=tests/tpu/shipped/v2
OUT=docs/experiments/tpu-sampling.csv
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "budget,config,dataflow,topology,layer,ifmap_err_pct,filter_err_pct,cycle_diff,ofmap_diff,ifmap_stop_diff_pct,filter_stop_diff_pct" > "$OUT"
for cfg in scale google eyeriss; do
    for df in os ws is; do
        sed "s/^Dataflow *: *[a-z]*/Dataflow : $df/" "$SH/configs/$cfg.cfg" > "$T/c.cfg"
        for topo in Resnet18 alexnet; do
            "$B/archsim" tpu -c "$T/c.cfg" -t "$SH/topologies/conv_nets/$topo.csv" -q --exact \
                -o "$T/x"
            for bud in $BUDGETS; do
                "$B/archsim" tpu -c "$T/c.cfg" -t "$SH/topologies/conv_nets/$topo.csv" -q \
                    --sample-budget "$bud" --force -o "$T/s"
                # DETAILED: DRAM IFMAP stop and reads fields 12-13, filter 15-16, OFMAP writes 19
                # (20 fields per file); ROOFLINE's last field: folds simulated; COMPUTE field 2:
                # cycles
                paste -d, "$T/x/DETAILED_ACCESS_REPORT.csv" "$T/s/DETAILED_ACCESS_REPORT.csv" \
                      "$T/s/ROOFLINE.csv" "$T/x/COMPUTE_REPORT.csv" "$T/s/COMPUTE_REPORT.csv" |
                    tail -n +2 |
                    awk -F', *' -v b="$bud" -v c="$cfg" -v d="$df" -v t="$topo" '$50 > 0 {
                        ei = ($33 - $13) / $13 * 100; ef = $16 ? ($36 - $16) / $16 * 100 : 0
                        si = ($32 - $12) / $52 * 100; sf = ($35 - $15) / $52 * 100
                        printf "%s,%s,%s,%s,%s,%.3f,%.3f,%d,%d,%.3f,%.3f\n", b, c, d, t, $1, ei,
                               ef, $59 - $52, $39 - $19, si, sf }' >> "$OUT"
            done
            rm -rf "$T/x"
        done
    done
done
awk -F, 'NR > 1 { b = $1; n[b]++; ai = $6 < 0 ? -$6 : $6; af = $7 < 0 ? -$7 : $7
                  si[b] += ai; sf[b] += af; if (ai > mi[b]) mi[b] = ai; if (af > mf[b]) mf[b] = af
                  pi = $10 < 0 ? -$10 : $10; pf = $11 < 0 ? -$11 : $11
                  st[b] += (pi + pf) / 2; if (pi > ms[b]) ms[b] = pi; if (pf > ms[b]) ms[b] = pf
                  if ($8 != 0 || $9 != 0) bad[b]++ }
         END { for (b in n) printf "budget %s: %d sampled layers; IFMAP reads mean |error| %.1f %% " \
                                   "(worst %.1f %%), filter %.1f %% (worst %.1f %%); DRAM read " \
                                   "stop cycles %.1f %% of the layer (worst %.1f %%); %d layers " \
                                   "with other differences\n", b, n[b], si[b] / n[b], mi[b],
                                   sf[b] / n[b], mf[b], st[b] / n[b], ms[b], bad[b] + 0 }' \
    "$OUT" | sort -n -k2
echo "wrote $OUT"
