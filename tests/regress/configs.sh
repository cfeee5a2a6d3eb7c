#!/bin/sh
# configs.sh BUILD: every config shipped under configs/ still validates (`archsim validate`),
# so a renamed parameter or a moved file cannot leave a broken example behind: configs, sweep
# files (every point) and include-only parts (their sections on their own) alike; validate.sh
# checks that each is checked as what it is.
B=${1:-build}
pass=0; fail=0
for c in $(find configs -name '*.yaml' | sort); do
    if out=$("$B/archsim" validate "$c" 2>&1 >/dev/null); then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL $c: $out"
    fi
done
echo "configs: $pass passed, $fail failed"
[ $fail -eq 0 ]
