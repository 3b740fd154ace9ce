#!/usr/bin/env bash
# scripts/deb.sh — the Debian package postgresql-15-gpu-dbscan, in one command.
#
#   scripts/deb.sh            builds dist/postgresql-15-gpu-dbscan_<version>_<arch>.deb
#
# From the checkout, with debian/ (pg_buildext's conventions: debian/pgversions,
# debian/control from control.in, `pg_buildext loop` in debian/rules).  Needs
# debhelper, postgresql-server-dev-15 and cmake (dpkg-checkbuilddeps says what
# is missing; apt-get install debhelper).  The CUDA back end is built when nvcc
# is there (static CUDA runtime: the package needs no CUDA package), else the
# CPU path alone; WITH_CUDA=no forces the CPU path.  The clustering core's
# build folder is reused (GD_CORE_BUILD, default build/: a folder already built
# by make or scripts/setup.sh is not built again).
#
# Install it with: apt install ./dist/postgresql-15-gpu-dbscan_*.deb
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[[ ${1:-} == -h || ${1:-} == --help ]] && { sed -n '2,15p' "$0"; exit 0; }
cd "$GD_ROOT"
command -v dh >/dev/null || gd_die "debhelper is missing (apt-get install debhelper)"
dpkg-checkbuilddeps || gd_die "missing build dependencies (above)"
export GD_CORE_BUILD=${GD_CORE_BUILD:-$GD_ROOT/$GD_BUILD_DIR}
cuda=no
[[ ${WITH_CUDA:-} != no && -x ${CUDA_HOME:-/usr/local/cuda}/bin/nvcc ]] && cuda=yes
gd_say "building the package (CUDA back end: $cuda; core build folder $GD_CORE_BUILD)"
mkdir -p dist
rm -f dist/postgresql-*-gpu-dbscan_*.deb
# debian/rules binary: dh's sequence without a source package; the .deb goes
# to dist/ rather than the checkout's parent folder.
t0=$(gd_now)
gd_run_logged deb-build env DH_VERBOSE=1 DEB_BUILD_OPTIONS=nocheck \
	${WITH_CUDA:+WITH_CUDA=$WITH_CUDA} debian/rules binary
deb=$(ls dist/postgresql-*-gpu-dbscan_*.deb 2>/dev/null | head -n 1)
[[ -n $deb ]] || gd_die "no .deb was written (log/deb-build.log)"
# The package tree stays in debian/ for a look; the build stamps go.
rm -rf debian/.debhelper debian/debhelper-build-stamp debian/files debian/*.substvars debian/*.debhelper.log
gd_say "built $deb in $(gd_seconds_since "$t0") s ($(du -h "$deb" | cut -f1)); install: apt install ./$deb"
