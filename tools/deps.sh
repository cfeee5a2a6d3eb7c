#!/bin/sh
# deps.sh: make sure the Debian packages archsim needs are present.
#   deps.sh check    exit 1 with the exact apt-get line if something is missing
#   deps.sh install  as root: apt-get install what is missing; otherwise print the line and fail
# OPT_PKGS (OpenMPI, for `archsim sweep --mpi` and its test) are installed by `install` like the
# others, but `check` (every plain `make`) does not require them: without them archsim builds
# without MPI, and `archsim sweep --mpi` says how to enable it.
PKGS="build-essential pkg-config libglib2.0-dev libyaml-dev zlib1g-dev liblzma-dev xz-utils libcunit1-dev python3 valgrind gnuplot-nox"
OPT_PKGS="openmpi-bin libopenmpi-dev"
missing=""
optional=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
for p in $OPT_PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || optional="$optional $p"
done
[ "$1" = install ] || optional=""
[ -z "$missing$optional" ] && exit 0
line="apt-get install -y --no-install-recommends$missing$optional"
if [ "$1" = install ] && [ "$(id -u)" = 0 ]; then
    echo "deps: installing$missing$optional" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2 && apt-get install -y -q --no-install-recommends $missing$optional >&2 && exit 0
    echo "deps: apt-get failed; run: $line" >&2
    exit 1
fi
if [ -z "$missing" ]; then
    echo "deps: optional packages missing (archsim sweep --mpi):$optional" >&2
    echo "deps: run as root:  $line" >&2
    exit 0
fi
echo "deps: missing Debian packages:$missing" >&2
echo "deps: run as root:  $line" >&2
exit 1
