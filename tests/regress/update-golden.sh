#!/bin/sh
# update-golden.sh: regenerate the golden stats of configs/default.yaml after an intended
# model change. Review `git diff tests/regress/golden` and say why in the commit message.
set -eu
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
./archsim run configs/default.yaml -q --seed 1 -o "$T/run"
for f in stats.txt stats.json stats.csv; do cp "$T/run/$f" "tests/regress/golden/default.$f"; done
echo "updated tests/regress/golden/default.{stats.txt,stats.json,stats.csv}"
