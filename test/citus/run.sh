#!/usr/bin/env bash
# test/citus/run.sh — gpu_dbscan on a loopback Citus cluster: a coordinator
# and two workers on this machine (127.0.0.1 only, ports GD_CITUS_PORT,
# +1, +2; default 54340), in a temporary folder, stopped at the end (also
# on failure).
#
# Citus 13.2.2 comes from ../shared/citus/ beside the checkout (its README):
# the runtime build is unpacked into / when citus.so is missing (as root;
# libcurl4 with apt).  It was built against postgresql-server-dev-15
# 15.20's headers and needs a server of that version (15.18 lacks a symbol
# it links: scripts/setup.sh installs the server that matches the headers).
#
# Checks (TAP-like "ok N - ..." / "not ok N - ..." lines):
#   - pushed-down window and aggregate calls give the single node's ids;
#   - gpu_dbscan_distributed gives the single node's ids (gpu_dbscan ...
#     OVER (ORDER BY id) on a local copy) on seeded sets: uniform, skewed
#     (a dense blob split into sub-tiles), a lattice whose border points
#     are shared by clusters across tile edges, one-sided pairs at the last
#     bit (inside tiles, and at tile edges where the procedure clusters on
#     the coordinator), and the GeoNames cities (cache/, when there);
#   - the caller's gpu_dbscan.* settings reach the workers;
#   - clean errors for bad input, and without the citus extension;
#   - a worker stopped mid-run: a clean error and no result table.
# When Citus cannot be installed or started, one "skip - reason" line.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

SHARED=${GD_CITUS_SHARED:-$GD_ROOT/../shared/citus}
TARBALL=$SHARED/citus-13.2.2-pg15-debian12-amd64-runtime.tar.gz
BASE=${GD_CITUS_PORT:-54340}
PORTS=("$BASE" $((BASE + 1)) $((BASE + 2)))
DB=gd_citus

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $*"; failed=1; }
skip() { echo "skip - $*"; exit 0; }
section() { echo "# $(gd_seconds_since "$T0") s: $*"; }
check() { # check NAME EXPECTED ACTUAL
	if [[ $2 == "$3" ]]; then ok "$1"; else not_ok "$1 (expected '$2', got '$3')"; fi
}

# --- Citus installed? ------------------------------------------------------------
pkglib=$("$PG_CONFIG" --pkglibdir)
if [[ ! -f $pkglib/citus.so ]]; then
	[[ -f $TARBALL ]] || skip "Citus is not installed and $TARBALL is not there"
	gd_is_root || skip "Citus is not installed, and installing it needs root"
	if ! dpkg-query -W -f='${Status}' libcurl4 2>/dev/null | grep -q 'install ok installed'; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q libcurl4 >/dev/null 2>&1 ||
			skip "apt-get install libcurl4 failed (citus.so links libcurl)"
	fi
	tar -xzf "$TARBALL" -C / || skip "unpacking $TARBALL failed"
	echo "# installed Citus from $TARBALL"
fi

# --- the cluster ------------------------------------------------------------------
TMP=$(mktemp -d /tmp/gd-citus.XXXXXX)
chmod 755 "$TMP"
gd_is_root && chown postgres "$TMP"
psqlc() { psql -X -q -v ON_ERROR_STOP=1 -h "$TMP" -p "${PORTS[0]}" -U postgres "$@"; }
psqln() { local p=$1; shift; psql -X -q -v ON_ERROR_STOP=1 -h "$TMP" -p "$p" -U postgres "$@"; }
node_start() { # node_start K
	gd_as_pg "$GD_PGBIN/pg_ctl" -D "$TMP/n$1" -l "$TMP/n$1.log" -w -t 60 \
		-o "-p ${PORTS[$1]} -k $TMP -c listen_addresses=127.0.0.1" start >/dev/null 2>&1
}
stop_all() {
	for k in 0 1 2; do
		[[ -d $TMP/n$k ]] && gd_as_pg "$GD_PGBIN/pg_ctl" -D "$TMP/n$k" -m immediate -w stop >/dev/null 2>&1
	done
	rm -rf "$TMP"
}
# GD_CITUS_KEEP=1: leave the cluster running (its folder is printed), to look around.
if [[ ${GD_CITUS_KEEP:-0} == 1 ]]; then
	trap 'echo "# cluster kept in $TMP (ports ${PORTS[*]})"' EXIT
else
	trap stop_all EXIT
fi

T0=$(gd_now)
# One initdb, copied for the workers (initdb is most of a node's start-up).
gd_as_pg "$GD_PGBIN/initdb" -D "$TMP/n0" -U postgres -A trust -E UTF8 --locale=C >"$TMP/initdb.log" 2>&1 ||
	skip "initdb failed ($(tail -1 "$TMP/initdb.log"))"
cat >>"$TMP/n0/postgresql.conf" <<-EOF
	shared_preload_libraries = 'citus'
	fsync = off
	synchronous_commit = off
	full_page_writes = off
	shared_buffers = 64MB
	max_connections = 100
	max_prepared_transactions = 100
	citus.shard_count = 8
EOF
gd_as_pg cp -a "$TMP/n0" "$TMP/n1"
gd_as_pg cp -a "$TMP/n0" "$TMP/n2"
for k in 0 1 2; do
	if ! node_start "$k"; then
		why=$(grep -m1 -E 'FATAL|could not load' "$TMP/n$k.log")
		skip "the Citus node on port ${PORTS[$k]} did not start: ${why:-see $TMP/n$k.log} (server $("$GD_PGBIN/postgres" --version | awk '{print $3}'); Citus 13.2.2 was built against 15.20)"
	fi
done
echo "# $(gd_seconds_since "$T0") s: 3 nodes started"
for k in 0 1 2; do
	psqln "${PORTS[$k]}" -d postgres -c "CREATE DATABASE $DB" >/dev/null || skip "CREATE DATABASE on node $k failed"
	psqln "${PORTS[$k]}" -d "$DB" -c 'CREATE EXTENSION citus' >/dev/null 2>"$TMP/ext.err" ||
		skip "CREATE EXTENSION citus failed: $(head -1 "$TMP/ext.err")"
done
psqlc -d "$DB" >/dev/null <<-SQL || skip "the cluster could not be formed"
	SELECT citus_set_coordinator_host('127.0.0.1', ${PORTS[0]});
	SELECT citus_add_node('127.0.0.1', ${PORTS[1]});
	SELECT citus_add_node('127.0.0.1', ${PORTS[2]});
	CREATE EXTENSION postgis;
	CREATE EXTENSION gpu_dbscan;
SQL
section "citus, postgis, gpu_dbscan created"
ok "a coordinator and 2 workers of Citus $(psqlc -d "$DB" -tAc "SELECT extversion FROM pg_extension WHERE extname = 'citus'") on ports ${PORTS[*]}"

q() { psqlc -d "$DB" -tA "$@"; }
# Setup statements: their NOTICEs (Citus copying local data) to the log.
qs() { psqlc -d "$DB" -tA "$@" >>"$TMP/setup.log" 2>&1 || { echo "# setup failed: $(tail -3 "$TMP/setup.log")"; return 1; }; }

section "cluster up"
# --- pushdown ---------------------------------------------------------------------
qs <<'SQL'
CREATE TABLE grp_pts (id int, grp int, geom geometry);
INSERT INTO grp_pts SELECT i, i % 5, ST_MakePoint(random() * 10, random() * 10)
FROM (SELECT setseed(0.14)) s, generate_series(1, 20000) i;
CREATE TABLE grp_local AS SELECT * FROM grp_pts;
SELECT create_distributed_table('grp_pts', 'grp');
SQL
check "window OVER (PARTITION BY the distribution column) is pushed down and gives the single node's ids" 0 \
	"$(q -c "SELECT count(*) FROM (SELECT id, gpu_dbscan(geom, 0.1, 4) OVER (PARTITION BY grp ORDER BY id) c FROM grp_pts) d
	         FULL JOIN (SELECT id, gpu_dbscan(geom, 0.1, 4) OVER (PARTITION BY grp ORDER BY id) c FROM grp_local) l USING (id)
	         WHERE d.c IS DISTINCT FROM l.c OR d.id IS NULL OR l.id IS NULL")"
check "gpu_dbscan_agg grouped by the distribution column is pushed down and gives the single node's ids" 0 \
	"$(q -c "SELECT count(*) FROM (SELECT grp, gpu_dbscan_agg(geom, 0.1, 4 ORDER BY id) a FROM grp_pts GROUP BY grp) d
	         JOIN (SELECT grp, gpu_dbscan_agg(geom, 0.1, 4 ORDER BY id) a FROM grp_local GROUP BY grp) l USING (grp)
	         WHERE d.a IS DISTINCT FROM l.a")"
plan=$(q -c "EXPLAIN (COSTS OFF) SELECT gpu_dbscan(geom, 0.1, 4) OVER (PARTITION BY grp ORDER BY id) FROM grp_pts")
# On a worker the window is a WindowAgg, or the fast path's custom scan.
if grep -qE 'WindowAgg|Custom Scan \(GpuDbscanWindow\)' <<<"$(sed -n '/Distributed Subplan\|Task Count\|Tasks Shown/,$p' <<<"$plan")"; then
	ok "the window runs on the workers (EXPLAIN: WindowAgg or GpuDbscanWindow below the Citus tasks)"
else
	not_ok "the window runs on the workers (EXPLAIN: $plan)"
fi

section "pushdown"
# --- gpu_dbscan_distributed against the single node -------------------------------
# same_ids TABLE EPS MINPOINTS TILE_POINTS WHAT: the procedure's result table
# against gpu_dbscan OVER (ORDER BY id) on a local copy; the report line is kept.
same_ids() {
	local t=$1 eps=$2 mp=$3 tp=$4 what=$5 out diff
	RUNS=$((${RUNS:-0} + 1))
	local res=${t}_res$RUNS
	out=$(q -c "SET client_min_messages = notice" -c "CALL gpu_dbscan_distributed('$t', $eps, $mp, '$res', tile_points => $tp, report => true)" 2>&1) ||
		{ not_ok "$what: the procedure failed: $out"; return; }
	echo "# $t eps $eps minpoints $mp: $(grep -o 'gpu_dbscan_distributed:.*' <<<"$out" | tr '\n' ' ')"
	diff=$(q -c "SELECT count(*) FROM $res r FULL JOIN
	              (SELECT id, gpu_dbscan(geom, $eps, $mp) OVER (ORDER BY id) c FROM ${t}_local) l USING (id)
	              WHERE r.cluster_id IS DISTINCT FROM l.c OR r.id IS NULL OR l.id IS NULL")
	local k
	k=$(q -c "SELECT count(DISTINCT cluster_id) FROM $res")
	if [[ $diff == 0 && $k -gt 10 ]]; then
		ok "$what: the single node's ids ($k clusters)"
	else
		not_ok "$what: $diff rows differ from the single node's ids ($k clusters)"
	fi
	LAST_REPORT=$out
}
# distribute TABLE: a local copy TABLE_local, then TABLE distributed by id.
distribute() {
	qs -c "CREATE TABLE ${1}_local AS SELECT * FROM $1" -c "SELECT create_distributed_table('$1', 'id')" \
		-c "SELECT truncate_local_data_after_distributing_table('$1')"
}

qs <<'SQL'
CREATE TABLE uni (id bigint, geom geometry);
INSERT INTO uni SELECT i, ST_MakePoint(random() * 100, random() * 100)
FROM (SELECT setseed(0.21)) s, generate_series(1, 30000) i;
-- NULL and EMPTY geometries: noise (NULL) for minpoints > 1, as on one node.
INSERT INTO uni VALUES (30001, NULL), (30002, 'POINT EMPTY');
-- Skewed: 70% of the points in a blob of 2% of the area, the rest uniform.
CREATE TABLE skew (id bigint, geom geometry);
INSERT INTO skew SELECT i, CASE WHEN random() < 0.7
    THEN ST_MakePoint(20 + random() * 14, 60 + random() * 14) ELSE ST_MakePoint(random() * 100, random() * 100) END
FROM (SELECT setseed(0.22)) s, generate_series(1, 20000) i;
-- A lattice with eps 1 and minpoints 5: 2,738 core and 8,288 border points,
-- 888 of the borders next to core points of two clusters (the first claimer
-- decides), tiles of about 1,000 points; ids shuffled.
CREATE TABLE lattice (id bigint, geom geometry);
INSERT INTO lattice SELECT row_number() OVER (ORDER BY random()),
    ST_MakePoint(x + CASE WHEN (x / 3) % 2 = 0 THEN 0 ELSE 0.5 END, y)
FROM (SELECT setseed(0.23)) s, generate_series(0, 150) x, generate_series(0, 150) y
WHERE x % 3 <> 2 OR y % 4 = 0;
SQL
distribute uni
distribute skew
distribute lattice
same_ids uni 0.5 4 2000 "uniform, 30,000 points, eps 0.5 minpoints 4, 2,000 per tile"
same_ids skew 0.1 5 1000 "skewed (70% of 20,000 in 2% of the area), 1,000 per tile"
grep -q 'one-sided tiles 0' <<<"${LAST_REPORT:-}" && ok "skewed: no one-sided pair at a tile edge, clustered on the workers" ||
	not_ok "skewed: clustered on the workers (${LAST_REPORT:-})"
if [[ $(grep -o '[0-9]* tiles (base [0-9]* x [0-9]*' <<<"${LAST_REPORT:-}" | awk '{print ($1 > $4 * $6)}') == 1 ]]; then
	ok "skewed: dense base cells were split into sub-tiles"
else
	not_ok "skewed: dense base cells were split into sub-tiles (${LAST_REPORT:-})"
fi
same_ids lattice 1 5 1000 "lattice with borders shared across tile edges, 1,000 per tile"

# One-sided pairs: p sees q at eps 1 and q does not see p (x near 0 of both
# signs: p = -1e-20 sees q = 1), 400 points on 40 spots at the origin, ids
# shuffled, and shifted copies far away (symmetric there).  Tiles are 8 eps
# wide (4 margins, the least); one lone point sets the grid's origin: at
# x = -11.5 the edges at -3.5 and 4.5 leave the points 2.5 eps inside a tile
# (copies shifted by 48, six tiles), at x = -7.5 the edge at x = 0.5 cuts
# through them (ghosts: the procedure then clusters on the coordinator).
onesided_table() { # onesided_table NAME ORIGIN_X
	qs <<-SQL
		CREATE TABLE $1 (id bigint, geom geometry);
		INSERT INTO $1 SELECT row_number() OVER (ORDER BY random()),
		    ST_MakePoint((ARRAY[-1e-20, 1e-20, 0, 1, -1, 2, 0.5, 1.0000000000000002, 0.9999999999999999, -1e-17]::float8[])[1 + floor(random() * 10)::int],
		                 (ARRAY[0, 0, 1, -1e-20]::float8[])[1 + floor(random() * 4)::int])
		FROM (SELECT setseed(0.24)) s, generate_series(1, 400) k;
		INSERT INTO $1 SELECT id + 1000 * k, ST_Translate(geom, 48 * k, 0) FROM $1, generate_series(1, 20) k;
		INSERT INTO $1 VALUES (100000, ST_MakePoint($2, 0.5));
	SQL
	distribute "$1"
}
onesided_table onesided_in -11.5
onesided_table onesided_edge -7.5
check "the one-sided test data holds a pair seen one way only" t \
	"$(q -c "SELECT gpu_dbscan_one_sided(array_agg(ST_X(geom)), array_agg(ST_Y(geom)), array_agg(true), 1) FROM onesided_in_local WHERE ST_X(geom) BETWEEN -2 AND 3")"
same_ids onesided_in 1 3 50 "one-sided pairs at the last bit inside a tile"
grep -q 'one-sided tiles 0' <<<"${LAST_REPORT:-}" && ok "one-sided pairs inside a tile: clustered on the workers" ||
	not_ok "one-sided pairs inside a tile: clustered on the workers (${LAST_REPORT:-})"
same_ids onesided_edge 1 3 50 "one-sided pairs at the last bit at a tile edge"
grep -Eq 'one-sided tiles [1-9]' <<<"${LAST_REPORT:-}" && ok "one-sided pairs at a tile edge: found, clustered on the coordinator" ||
	not_ok "one-sided pairs at a tile edge: found (${LAST_REPORT:-})"
same_ids onesided_edge 1 1 50 "one-sided pairs at a tile edge, minpoints 1 (joined either way: on the workers)"

# The GeoNames cities (loaded by scripts/setup.sh into cache/).
if [[ -f $GD_CITIES_TSV ]]; then
	qs <<-SQL
		CREATE TABLE cities_raw (id bigint, name text, lat float8, lon float8);
		\copy cities_raw FROM '$GD_CITIES_TSV'
		CREATE TABLE cities AS SELECT id, ST_SetSRID(ST_MakePoint(lon, lat), 4326) AS geom FROM cities_raw;
		DROP TABLE cities_raw;
	SQL
	distribute cities
	same_ids cities 0.5 5 20000 "GeoNames cities ($(q -c 'SELECT count(*) FROM cities') rows), eps 0.5 degrees"
else
	echo "skip - the cities data set is not in $GD_CACHE (scripts/load-cities.sh fetch)"
fi

section "distributed procedure"
# --- settings reach the workers ------------------------------------------------------
# backend 'gpu' fails where no GPU is usable: the workers' error shows the
# setting reached them.
if psqlc -d "$DB" -tA -c "SET gpu_dbscan.backend = 'gpu'" -c "SELECT gpu_dbscan(ST_MakePoint(1, 1), 1, 1) OVER ()" >/dev/null 2>&1; then
	echo "skip - settings propagation is tested with backend 'gpu' failing where no GPU is usable (this machine has one)"
else
	gpu_err='ERROR:  gpu_dbscan.backend is "gpu" but no usable GPU'
	out=$(q -c "SET gpu_dbscan.backend = 'gpu'" -c "CALL gpu_dbscan_distributed('uni', 0.5, 4, 'uni_gpu')" 2>&1)
	if [[ $out == *"$gpu_err"*"while executing command on 127.0.0.1"* ]]; then
		ok "SET gpu_dbscan.backend = 'gpu' before CALL gpu_dbscan_distributed reaches the workers (their error)"
	else
		not_ok "SET gpu_dbscan.backend = 'gpu' before CALL reaches the workers: $out"
	fi
	out=$(q -c "SET gpu_dbscan.backend = 'gpu'" -c "SELECT count(c) FROM (SELECT gpu_dbscan(geom, 0.1, 4) OVER (PARTITION BY grp ORDER BY id) c FROM grp_pts) s" 2>&1)
	if [[ $out != *"$gpu_err"* ]]; then
		ok "a plain SET does not reach a pushed-down query (as README.md says)"
	else
		not_ok "a plain SET does not reach a pushed-down query: $out"
	fi
	out=$(q -c "BEGIN" -c "SET LOCAL citus.propagate_set_commands = 'local'" -c "SET LOCAL gpu_dbscan.backend = 'gpu'" \
		-c "SELECT count(c) FROM (SELECT gpu_dbscan(geom, 0.1, 4) OVER (PARTITION BY grp ORDER BY id) c FROM grp_pts) s" -c "COMMIT" 2>&1)
	if [[ $out == *"$gpu_err"*"while executing command on 127.0.0.1"* ]]; then
		ok "SET LOCAL with citus.propagate_set_commands = 'local' reaches a pushed-down query"
	else
		not_ok "SET LOCAL with citus.propagate_set_commands = 'local' reaches a pushed-down query: $out"
	fi
fi

section "settings"
# --- errors -------------------------------------------------------------------------
err() { # err WHAT EXPECTED-SUBSTRING SQL
	local out
	out=$(q -c "$3" 2>&1)
	if [[ $out == *ERROR*"$2"* ]]; then ok "error: $1"; else not_ok "error: $1 (got: $out)"; fi
}
err "not a distributed table" "is not a distributed table" "CALL gpu_dbscan_distributed('uni_local', 1, 4, 'x1')"
err "missing column" "has no column" "CALL gpu_dbscan_distributed('uni', 1, 4, 'x1', geom_column => 'nope')"
err "eps 0" "eps must be a finite number above 0" "CALL gpu_dbscan_distributed('uni', 0, 4, 'x1')"
err "negative minpoints" "minpoints must be 0 or more" "CALL gpu_dbscan_distributed('uni', 1, -1, 'x1')"
err "result exists" "already exists" "CALL gpu_dbscan_distributed('uni', 1, 4, 'uni_local')"
qs -c "CREATE TABLE lines (id int, geom geometry)" -c "SELECT create_distributed_table('lines', 'id')" \
	-c "INSERT INTO lines VALUES (1, 'LINESTRING(0 0, 1 1)'), (2, 'POINT(0 0)')"
err "a line" "clusters points only" "CALL gpu_dbscan_distributed('lines', 1, 4, 'x1')"
qs -c "CREATE DATABASE gd_nocitus"
psqlc -d gd_nocitus -q -c "CREATE EXTENSION postgis" -c "CREATE EXTENSION gpu_dbscan" -c "CREATE TABLE t (id int, geom geometry)" >/dev/null 2>&1
out=$(psqlc -d gd_nocitus -tA -c "CALL gpu_dbscan_distributed('t', 1, 4, 'x1')" 2>&1)
if [[ $out == *"needs the citus extension"* ]]; then ok "error: without the citus extension"; else not_ok "error: without citus (got: $out)"; fi
check "no result table after the errors" "" "$(q -c "SELECT to_regclass('x1')")"

section "errors"
# --- a worker stopped mid-run ---------------------------------------------------------
# Worker 2 is stopped (immediate) as soon as it works on the procedure's tile
# tables (its pg_stat_activity shows a query on gd_dist_...).
q -c "CALL gpu_dbscan_distributed('uni', 0.5, 4, 'uni_stopped')" >"$TMP/stop.out" 2>&1 &
pid=$!
seen=0
for _ in $(seq 1 400); do
	if [[ $(psqln "${PORTS[2]}" -d "$DB" -tA -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%gd\_dist\_%' AND pid <> pg_backend_pid()" 2>/dev/null) -gt 0 ]]; then
		seen=1
		break
	fi
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.02
done
gd_as_pg "$GD_PGBIN/pg_ctl" -D "$TMP/n2" -m immediate -w stop >/dev/null 2>&1
wait "$pid"
rc=$?
# The text depends on where the worker's connection breaks: at connect, in a
# query ("server closed the connection"), or under SSL ("SSL SYSCALL error: EOF
# detected"); each is Citus's clean error.
if [[ $seen == 1 && $rc -ne 0 ]] &&
	grep -Eq 'ERROR: .*(connection|terminat|server closed|could not|lost|SSL SYSCALL error|EOF detected)' "$TMP/stop.out"; then
	ok "a worker stopped mid-run: a clean error ($(grep -m1 -o 'ERROR:.*' "$TMP/stop.out" | cut -c1-100))"
else
	not_ok "a worker stopped mid-run: an error (worker seen busy: $seen, rc $rc: $(cat "$TMP/stop.out"))"
fi
node_start 2 || not_ok "the worker restarts"
check "no result table and no tile tables after the failure" "0" \
	"$(q -c "SELECT count(*) FROM pg_class WHERE relname = 'uni_stopped' OR relname LIKE 'gd_dist_%'")"
check "the coordinator answers after the failure" 1 "$(q -c "SELECT 1")"
check "no tile table shards left on the workers" 0 \
	"$(q -c "SELECT sum(result::int) FROM run_command_on_workers(\$\$SELECT count(*) FROM pg_class WHERE relname LIKE 'gd\\_dist\\_%'\$\$)")"

section "worker stopped"
echo "# $n checks"
exit $failed
