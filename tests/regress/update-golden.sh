#!/bin/sh
# update-golden.sh: regenerate the golden stats of configs/default.yaml and of the machine graph
# configs/machines/two-clusters.yaml after an intended
# model change. Review `git diff tests/regress/golden` and say why in the commit message.
set -eu
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
./archsim run configs/default.yaml -q --seed 1 -o "$T/run"
for f in stats.txt stats.json stats.csv; do cp "$T/run/$f" "tests/regress/golden/default.$f"; done
./archsim run configs/machines/two-clusters.yaml -q --seed 1 -o "$T/two"
for f in stats.txt stats.json stats.csv; do cp "$T/two/$f" "tests/regress/golden/two-clusters.$f"; done
./archsim run configs/machines/tpu-and-core.yaml -q --seed 1 -o "$T/tpu"
cp "$T/tpu/stats.txt" tests/regress/golden/tpu-and-core.stats.txt
echo "updated tests/regress/golden/{default,two-clusters}.{stats.txt,stats.json,stats.csv}, tpu-and-core.stats.txt"
