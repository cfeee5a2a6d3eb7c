#!/bin/sh
# configs.sh BUILD: every config shipped under configs/ still validates (`archsim validate`),
# so a renamed parameter or a moved file cannot leave a broken example behind. Skipped, by
# design: sweep files (archsim sweep reads them) and the include-only machine parts
# (configs/parts/, machine*.yaml), which are not runs of their own.
B=${1:-build}
pass=0; fail=0
for c in $(find configs -name '*.yaml' | sort); do
    case $c in configs/parts/*|*/machine*.yaml) continue;; esac
    grep -q '^sweep:' "$c" && continue
    if out=$("$B/archsim" validate "$c" 2>&1 >/dev/null); then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL $c: $out"
    fi
done
echo "configs: $pass passed, $fail failed"
[ $fail -eq 0 ]
