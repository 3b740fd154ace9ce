#!/usr/bin/env bash
# nd_sql.sh — points of three and more dimensions on the GPU, in the
# database (issue 10 item 4); run by test/gpu/run, stage "ndsql", on a server
# where gpu_dbscan is installed (PG* variables set).
#
# Tables of POINT Z rows and float8[] rows (uniform, and gaussian blobs with
# noise, NULL and EMPTY rows), then for each: gpu_dbscan_3d /
# gpu_dbscan(float8[]) and gpu_dbscan_point_type_3d / (float8[]) with
# gpu_dbscan.backend = gpu and = cpu, the answers compared row by row (ok /
# not ok lines), gpu_dbscan_last_run()'s back end, and each query's time.
# Then the forms whose neighbour pairs are searched on the device and decided
# by PostGIS (issue 10 item 4): geography points (chords on the unit sphere)
# and non-point geometry (boxes), GD_PAIR_ROWS rows each, the same way, with
# the last run's pair search, exact test and graph times (sort, core and
# label ms of gpu_dbscan_last_run()).
set -uo pipefail
DB=${GD_ND_DB:-gd_nd}
ROWS=${GD_ND_ROWS:-1000000}
PAIR_ROWS=${GD_PAIR_ROWS:-500000}
# GD_ND_GATHER: max_parallel_workers_per_gather of every query (default 8)
psql -XAtc "SELECT 1 FROM pg_database WHERE datname = '$DB'" | grep -q 1 || createdb "$DB"
psql -X -q -d "$DB" -v ON_ERROR_STOP=1 <<SQL >/dev/null || { echo "not ok - tables"; exit 1; }
CREATE EXTENSION IF NOT EXISTS postgis;
DROP EXTENSION IF EXISTS gpu_dbscan CASCADE;
CREATE EXTENSION gpu_dbscan;
SELECT setseed(0.7);
DROP TABLE IF EXISTS nd_uniform, nd_blobs;
CREATE UNLOGGED TABLE nd_uniform AS
  SELECT i AS id, ST_MakePoint(random() * 100, random() * 100, random() * 100) AS geom,
         ARRAY[random() * 20, random() * 20, random() * 20, random() * 20] AS arr
  FROM generate_series(1, $ROWS) AS i;
CREATE UNLOGGED TABLE nd_blobs AS
  WITH c AS (SELECT b, random() * 100 AS x, random() * 100 AS y, random() * 100 AS z,
                    1 + 2 * random() AS s FROM generate_series(0, 49) AS b)
  SELECT i AS id,
         CASE WHEN i % 997 = 0 THEN NULL
              WHEN i % 991 = 0 THEN 'POINT Z EMPTY'::geometry
              WHEN i % 10 = 0 THEN ST_MakePoint(random() * 100, random() * 100, random() * 100)
              ELSE ST_MakePoint(c.x + c.s * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()),
                                c.y + c.s * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()),
                                c.z + c.s * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))
         END AS geom,
         CASE WHEN i % 997 = 0 THEN NULL
              ELSE ARRAY[c.x + random(), c.y + random(), c.z + random(), random(), random(), random()]
         END AS arr
  FROM generate_series(1, $ROWS) AS i JOIN c ON c.b = i % 50;
VACUUM ANALYZE nd_uniform, nd_blobs;
DROP TABLE IF EXISTS pair_geo, pair_shapes;
-- 200 clumps of about 1 degree, NULL rows among them
CREATE UNLOGGED TABLE pair_geo AS
  WITH c AS (SELECT b, random() * 340 - 170 AS lon, random() * 140 - 70 AS lat
             FROM generate_series(0, 199) AS b)
  SELECT i AS id,
         CASE WHEN i % 997 = 0 THEN NULL
              ELSE ST_SetSRID(ST_MakePoint(c.lon + random(), c.lat + random()), 4326)::geography
         END AS geog
  FROM generate_series(1, $PAIR_ROWS) AS i JOIN c ON c.b = i % 200;
-- lines, small polygons and points in [0, 1000]^2
CREATE UNLOGGED TABLE pair_shapes AS
  SELECT i AS id,
         CASE WHEN i % 3 = 0 THEN ST_Buffer(ST_MakePoint(x, y), random() * 0.5, 2)
              WHEN i % 3 = 1 THEN ST_MakeLine(ST_MakePoint(x, y), ST_MakePoint(x + random() * 3, y + random()))
              ELSE ST_MakePoint(x, y) END AS geom
  FROM (SELECT i, random() * 1000 AS x, random() * 1000 AS y
        FROM generate_series(1, $PAIR_ROWS) AS i OFFSET 0) s;
VACUUM ANALYZE pair_geo, pair_shapes;
SQL

run() {  # run BACKEND SQL: the query's answer digest and time
	psql -X -d "$DB" -At -v ON_ERROR_STOP=1 <<SQL 2>&1
SET jit = off;
SET work_mem = '1GB';
-- up to 8 parallel workers, for PostGIS's exact tests of the non-point rows among others
SET max_parallel_workers_per_gather = ${GD_ND_GATHER:-8};
SET gpu_dbscan.backend = $1;
\\timing on
$2;
SELECT 'backend ' || backend || ', points ' || points || ', core ms ' || round(total_ms::numeric, 1)
       || ' (sort ' || round(sort_ms::numeric, 1) || ', core ' || round(core_ms::numeric, 1)
       || ', label ' || round(label_ms::numeric, 1) || ')' FROM gpu_dbscan_last_run();
SQL
}

check() {  # check TABLE EXPRESSION LABEL [RUNS]: RUNS times in one session (the later ones warm)
	local q="SELECT md5(string_agg(coalesce(c::text, 'n'), ',' ORDER BY id)) FROM (SELECT id, $2 OVER (ORDER BY id) AS c FROM $1) s"
	local k one=$q
	for ((k = 1; k < ${4:-1}; k++)); do q="$q; $one"; done
	local gpu cpu
	gpu=$(run gpu "$q")
	cpu=$(run cpu "$q")
	local g c
	g=$(echo "$gpu" | grep -E '^[0-9a-f]{32}$' | sort -u)
	c=$(echo "$cpu" | grep -E '^[0-9a-f]{32}$' | sort -u)
	echo "# $3 on $1, gpu: $(echo "$gpu" | grep -E '^Time|^backend' | tr '\n' ' ')"
	echo "# $3 on $1, cpu: $(echo "$cpu" | grep -E '^Time|^backend' | tr '\n' ' ')"
	if [[ -n $g && $g == "$c" ]] && echo "$gpu" | grep -q '^backend gpu'; then
		echo "ok - $3 on $1: GPU answer = CPU answer, run on the GPU"
	else
		echo "not ok - $3 on $1: gpu [$gpu] cpu [$cpu]"
	fi
}

for t in nd_uniform nd_blobs; do
	for eps in 0.5 1 2; do
		check $t "gpu_dbscan_3d(geom, $eps, 10)" "gpu_dbscan_3d eps $eps"
		check $t "gpu_dbscan_point_type_3d(geom, $eps, 10)" "gpu_dbscan_point_type_3d eps $eps"
	done
	check $t "gpu_dbscan(arr, 1, 5)" "gpu_dbscan(float8[]) eps 1"
	check $t "gpu_dbscan_point_type(arr, 1, 5)" "gpu_dbscan_point_type(float8[]) eps 1"
done

# pairs searched on the device (sort ms: the search; core ms: PostGIS's exact
# tests; label ms: the graph), twice in a session: the second run is timed
# without the session's CUDA start-up
check pair_geo "gpu_dbscan(geog, 3000, 10)" "gpu_dbscan(geography) eps 3000 m" 2
check pair_geo "gpu_dbscan_point_type(geog, 3000, 10)" "gpu_dbscan_point_type(geography) eps 3000 m" 2
check pair_shapes "gpu_dbscan(geom, 0.5, 4)" "gpu_dbscan(non-point geometry) eps 0.5" 2
