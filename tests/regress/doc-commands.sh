#!/bin/sh
# doc-commands.sh BUILD: every command of README.md and docs/**/*.md, and every example of
# `archsim --help` and `archsim COMMAND --help`, runs as written (issue 16 item 2), and every
# relative link of the repository's *.md files names a file that exists. The rule for what
# is a command, the annotations (`<!-- doc-test: exit N | timeout S | skip: WHY | long: WHY -->`)
# and how commands run (a scratch copy of the clone per doc, `archsim` on PATH, never writing
# into the tree) are in tests/regress/doccmd.py and docs/testing.md "Doc commands".
# DOC_TEST_LONG=1 also runs the blocks marked long (the experiments' figures: minutes).
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0

# The checker must catch what it is for: a fixture doc with a failing command, a command whose
# promised exit status is wrong, an unknown annotation and a broken link (inside the repository,
# under BUILD, so that its links resolve the way a doc's do).
F="$B/tests/doc-fixture"
rm -rf "$F"; mkdir -p "$F"
cat > "$F/bad.md" <<'EOF_MD'
# fixture

```sh
archsim run configs/nope.yaml
archsim validate configs/default.yaml      # exit 3
```

<!-- doc-test: exit 64 -->
```console
$ archsim run --no-such-option
archsim run: ...
```

<!-- doc-test: wrong -->
```sh
true
```

[a file](../../../docs/config.md), [no file](nope.md), [a page](https://example.org/x.md)
EOF_MD
python3 tests/regress/doccmd.py run "$B" "$F/bad.md" > "$T/fixture.log" 2>&1
if [ $? -eq 0 ]; then fail=1; echo "FAIL the doc test passed a doc with failing commands"; fi
for want in "bad.md:4: exit 66, expected 0" "bad.md:5: exit 0, expected 3" \
            "unknown doc-test annotation 'wrong'" "1 ran as written, 3 failed"; do
    grep -qF "$want" "$T/fixture.log" || { fail=1; echo "FAIL fixture: no line with: $want"; }
done
python3 tests/regress/doccmd.py links "$F/bad.md" > "$T/links.log" 2>&1
if [ $? -eq 0 ]; then fail=1; echo "FAIL the link test passed a broken link"; fi
grep -qF "bad.md:19: link 'nope.md': no such file" "$T/links.log" &&
    grep -qF "doc links: 1 resolve, 1 broken" "$T/links.log" ||
    { fail=1; echo "FAIL link fixture:"; cat "$T/links.log"; }
rm -rf "$F"

# The real docs.
python3 tests/regress/doccmd.py links || fail=1
python3 tests/regress/doccmd.py run "$B" || fail=1
[ $fail -eq 0 ] && echo "doc commands and links: ok"
[ $fail -eq 0 ]
