#!/usr/bin/env bash
# Builds the peer simulators and their drivers into OUT (a folder of the build tree): qsim, qulacs and QuEST from
# their public sources, at the tags below. Nothing of theirs enters the Spyglass repository.
#
#   bench/peers/build_peers.sh OUT
#
# Where the sources come from (a URL or a local git repository, e.g. a mirror on a machine without internet):
#   QSIM_SOURCE   (default https://github.com/quantumlib/qsim)     QSIM_REF   (default v0.22.0)
#   QULACS_SOURCE (default https://github.com/qulacs/qulacs)       QULACS_REF (default v0.6.13)
#   QUEST_SOURCE  (default https://github.com/QuEST-Kit/QuEST)     QUEST_REF  (default v4.1.0)
# qulacs needs the Eigen 3 and Boost headers (Debian: libeigen3-dev libboost-dev). A peer that cannot be fetched
# or built is reported and left out; the others still build. PEERS_JOBS sets the build parallelism (default 2).
set -uo pipefail
out=${1:?usage: build_peers.sh OUT}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/src"
out=$(cd "$out" && pwd)
jobs=${PEERS_JOBS:-2}

checkout() {   # name source ref -> prints the checkout's path, or nothing when it fails
    local name=$1 src=$2 ref=$3 dir=$out/src/$1
    if [ ! -d "$dir/.git" ]; then
        rm -rf "$dir"
        git clone --quiet --no-checkout "$src" "$dir" >&2 || { echo "build_peers: cannot clone $name from $src" >&2; return 1; }
    fi
    git -C "$dir" -c advice.detachedHead=false checkout --quiet --force "$ref" >&2 ||
        { echo "build_peers: $name has no $ref in $src" >&2; return 1; }
    echo "$dir"
}

qsim=$(checkout qsim "${QSIM_SOURCE:-https://github.com/quantumlib/qsim}" "${QSIM_REF:-v0.22.0}")
qulacs=$(checkout qulacs "${QULACS_SOURCE:-https://github.com/qulacs/qulacs}" "${QULACS_REF:-v0.6.13}")
quest=$(checkout quest "${QUEST_SOURCE:-https://github.com/QuEST-Kit/QuEST}" "${QUEST_REF:-v4.1.0}")
if [ -n "$qulacs" ] && { [ ! -f /usr/include/eigen3/Eigen/Core ] || [ ! -d /usr/include/boost ]; }; then
    echo "build_peers: qulacs needs the Eigen 3 and Boost headers (apt-get install libeigen3-dev libboost-dev); left out" >&2
    qulacs=
fi

cmake -S "$here/drivers" -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSPYGLASS_SOURCE_DIR="$here/../.." \
    -DQSIM_DIR="$qsim" -DQULACS_DIR="$qulacs" -DQUEST_DIR="$quest" > "$out/configure.log" 2>&1 ||
    { echo "build_peers: configuring the drivers failed, see $out/configure.log" >&2; exit 1; }
for t in qsim_driver quest_driver qulacs_driver; do
    case $t in qsim_driver) [ -n "$qsim" ] || continue ;; quest_driver) [ -n "$quest" ] || continue ;; qulacs_driver) [ -n "$qulacs" ] || continue ;; esac
    if cmake --build "$out/build" -j "$jobs" --target $t > "$out/$t.log" 2>&1; then
        echo "build_peers: $out/build/$t"
    else
        echo "build_peers: $t failed to build, see $out/$t.log" >&2
    fi
done
# A peer that failed is left out of the run (run_peers.sh says which); only a failed configuration stops it.
exit 0
