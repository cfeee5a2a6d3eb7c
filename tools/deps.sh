#!/bin/sh
# deps.sh: make sure the Debian packages archsim needs are present.
#   deps.sh check    exit 1 with the exact apt-get line if something is missing
#   deps.sh install  as root: apt-get install what is missing; otherwise print the line and fail
PKGS="build-essential pkg-config libglib2.0-dev libyaml-dev zlib1g-dev libcunit1-dev python3 valgrind gnuplot-nox"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
line="apt-get install -y --no-install-recommends$missing"
if [ "$1" = install ] && [ "$(id -u)" = 0 ]; then
    echo "deps: installing$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2 && apt-get install -y -q --no-install-recommends $missing >&2 && exit 0
    echo "deps: apt-get failed; run: $line" >&2
    exit 1
fi
echo "deps: missing Debian packages:$missing" >&2
echo "deps: run as root:  $line" >&2
exit 1
