#!/bin/bash
# scalesim-jobs.sh DIR: the run list of tools/tpu-sweep.sh and tools/scalesim-compare.sh. Writes
# DIR/<cfg>_<df>.cfg, SCALE-Sim's shipped scale.cfg, google.cfg and eyeriss.cfg with Dataflow os,
# ws or is and run_name <cfg>_<df>, and DIR/jobs, one "cfg df topology" line per shipped v2
# topology (tests/tpu/shipped/v2/topologies, sorted), config and dataflow.
set -eu
D=${1:?usage: scalesim-jobs.sh DIR}
SH=tests/tpu/shipped/v2
for cfg in scale google eyeriss; do
    for df in os ws is; do
        sed -e "s/^Dataflow *: *[a-z]*/Dataflow : $df/" \
            -e "s/^run_name *=.*/run_name = ${cfg}_$df/" "$SH/configs/$cfg.cfg" > "$D/${cfg}_$df.cfg"
    done
done
(cd "$SH/topologies" && find . -name '*.csv' | sed 's|^\./||' | LC_ALL=C sort) |
    while read -r f; do
        for cfg in scale google eyeriss; do
            for df in os ws is; do echo "$cfg $df $f"; done
        done
    done > "$D/jobs"
