#!/bin/sh
# no-shared-refs.sh [BUILD]: no file of the repository points at the workplace folder that sits
# beside a checkout (its notes, its SCALE-Sim and litmus copies): a clone does not have it, so
# docs, help texts and code cite docs/references.md or the public source instead (issue 16
# item 2). Every text file git knows (or would add) is searched, this script excepted.
cd "$(dirname "$0")/../.." || exit 1
pat='\.\./shared|shared/(notes|scalesim|litmus)'
hits=$(git ls-files -z -c -o --exclude-standard | xargs -0 grep -IlE "$pat" -- 2>/dev/null |
       grep -v '^tests/regress/no-shared-refs.sh$')
# the check must be able to fail: the pattern finds itself in this very file
grep -qE "$pat" tests/regress/no-shared-refs.sh || { echo "FAIL the pattern matches nothing"; exit 1; }
if [ -n "$hits" ]; then
    echo "FAIL files that point at ../shared, which a clone lacks:"
    printf '%s\n' "$hits" | while read -r f; do grep -nIE "$pat" "$f" | sed "s|^|  $f:|"; done
    exit 1
fi
echo "no-shared-refs: ok ($(git ls-files -c -o --exclude-standard | wc -l) files)"
