#!/usr/bin/env bash
# test/upgrade/run.sh — ALTER EXTENSION gpu_dbscan UPDATE keeps its users.
#
# In database gd_upgrade of the throwaway server (scripts/lib.sh): CREATE
# EXTENSION gpu_dbscan VERSION '0.1' (gpu_dbscan--0.1.sql, the 0.1 release's
# script, kept as it was), then objects that depend on it, as a user's
# would: views over every window function and aggregate, a materialized
# view, a SQL function; their answers are stored; ALTER EXTENSION gpu_dbscan UPDATE (to the control file's
# default_version through gpu_dbscan--0.1--<new>.sql) must keep every one of
# them, with the same answers.  Then the upgraded extension must hold the
# same objects, with the same definitions, as a fresh CREATE EXTENSION of the
# new version (database gd_upgrade_fresh): the upgrade script and the
# install script may not drift apart.  And META.json (PGXN) names the
# control file's version and its install script.
#
# Prints "ok - ..." / "not ok - ..." lines; exits nonzero on a failure.
# Needs the extension installed (make install) and the server running.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

DB=gd_upgrade
FRESH=gd_upgrade_fresh
failed=0
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; failed=1; }
check() {  # check NAME GOT WANT
	if [[ $2 == "$3" ]]; then ok "$1"; else not_ok "$1: got '$2', want '$3'"; fi
}
q() { gd_psql "$1" -tAc "$2"; }

gd_pg_running || gd_pg_start >/dev/null
new=$(sed -nE "s/^default_version *= *'([^']+)'.*/\1/p" "$GD_ROOT/gpu_dbscan.control")
[[ -n $new ]] || { not_ok "no default_version in gpu_dbscan.control"; exit 1; }

for db in "$DB" "$FRESH"; do
	gd_psql postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" || exit 1
	gd_psql "$db" -c 'CREATE EXTENSION postgis' || exit 1
done

# ---- 0.1 and its users ----------------------------------------------------------
if ! gd_psql "$DB" -c "CREATE EXTENSION gpu_dbscan VERSION '0.1'"; then
	not_ok "CREATE EXTENSION gpu_dbscan VERSION '0.1'"
	exit 1
fi
check "0.1 installed" "$(q "$DB" "SELECT extversion FROM pg_extension WHERE extname = 'gpu_dbscan'")" 0.1

gd_psql "$DB" <<'SQL' || { not_ok "users of 0.1 could not be created"; exit 1; }
SELECT setseed(0.13) AS seed \gset
CREATE TABLE pts (id int PRIMARY KEY, grp int, geom geometry(Point, 4326));
-- 40 blobs plus uniform noise, in 3 groups.
INSERT INTO pts
SELECT i, i % 3,
       ST_SetSRID(ST_MakePoint(CASE WHEN i % 10 = 0 THEN random() * 100 ELSE (i % 40) * 2.5 + random() END,
                               CASE WHEN i % 10 = 0 THEN random() * 100 ELSE (i % 40) * 2.0 + random() END), 4326)
FROM generate_series(1, 6000) i;

CREATE VIEW v_window AS
  SELECT id, gpu_dbscan(geom, 0.3, 5) OVER (ORDER BY id) AS cid FROM pts;
CREATE VIEW v_partitioned AS
  SELECT grp, id, gpu_dbscan(geom, 0.4, 4) OVER (PARTITION BY grp ORDER BY id) AS cid FROM pts;
CREATE VIEW v_types AS
  SELECT id, gpu_dbscan_point_type(geom, 0.3, 5) OVER (ORDER BY id) AS t FROM pts;
CREATE VIEW v_sweep AS
  SELECT id, gpu_dbscan_sweep(geom, 0.3, '{2,5,9}') OVER (ORDER BY id) AS cids FROM pts;
CREATE VIEW v_3d AS
  SELECT id, gpu_dbscan_3d(ST_Force3DZ(geom), 0.3, 5) OVER (ORDER BY id) AS cid FROM pts;
CREATE VIEW v_nd AS
  SELECT id, gpu_dbscan(ARRAY[ST_X(geom), ST_Y(geom), id % 2], 0.5, 5) OVER (ORDER BY id) AS cid FROM pts;
CREATE VIEW v_geog AS
  SELECT id, gpu_dbscan(geom::geography, 30000, 5) OVER (ORDER BY id) AS cid FROM pts;
CREATE VIEW v_agg AS
  SELECT grp, gpu_dbscan_agg(geom, 0.3, 5 ORDER BY id) AS cids FROM pts GROUP BY grp;
CREATE VIEW v_collect AS
  SELECT cardinality(gpu_dbscan_collect(geom, 0.3, 5 ORDER BY id)) AS n FROM pts;
CREATE VIEW v_params AS
  SELECT p.* FROM unnest((SELECT gpu_dbscan_params(geom, '{0.2,0.3}', '{3,5}') FROM pts)) AS p;
CREATE MATERIALIZED VIEW mv_clusters AS
  SELECT cid, count(*) AS n FROM v_window WHERE cid IS NOT NULL GROUP BY cid;
CREATE FUNCTION cluster_count(e float8, m int) RETURNS bigint LANGUAGE sql STABLE AS
  $$ SELECT count(DISTINCT cid) FROM (SELECT gpu_dbscan(geom, e, m) OVER (ORDER BY id) AS cid FROM pts) s $$;
CREATE VIEW v_function AS SELECT cluster_count(0.3, 5) AS n;

-- The answers of 0.1.
-- Every view's answers in one row each (a function of the user's too: it must survive the update).
CREATE FUNCTION answers() RETURNS TABLE (v text, h text) LANGUAGE sql AS $f$
SELECT 'v_window' AS v, md5(string_agg(format('%s:%s', id, cid), ',' ORDER BY id)) AS h FROM v_window
UNION ALL SELECT 'v_partitioned', md5(string_agg(format('%s:%s:%s', grp, id, cid), ',' ORDER BY id)) FROM v_partitioned
UNION ALL SELECT 'v_types', md5(string_agg(format('%s:%s', id, t), ',' ORDER BY id)) FROM v_types
UNION ALL SELECT 'v_sweep', md5(string_agg(format('%s:%s', id, cids), ',' ORDER BY id)) FROM v_sweep
UNION ALL SELECT 'v_3d', md5(string_agg(format('%s:%s', id, cid), ',' ORDER BY id)) FROM v_3d
UNION ALL SELECT 'v_nd', md5(string_agg(format('%s:%s', id, cid), ',' ORDER BY id)) FROM v_nd
UNION ALL SELECT 'v_geog', md5(string_agg(format('%s:%s', id, cid), ',' ORDER BY id)) FROM v_geog
UNION ALL SELECT 'v_agg', md5(string_agg(format('%s:%s', grp, cids), ',' ORDER BY grp)) FROM v_agg
UNION ALL SELECT 'v_collect', (SELECT n::text FROM v_collect)
UNION ALL SELECT 'v_params', md5(string_agg(format('%s', p), ',' ORDER BY p.eps, p.minpoints)) FROM v_params p
UNION ALL SELECT 'mv_clusters', md5(string_agg(format('%s:%s', cid, n), ',' ORDER BY cid)) FROM mv_clusters
UNION ALL SELECT 'v_function', (SELECT n::text FROM v_function);
$f$;
CREATE TABLE answers_before AS SELECT * FROM answers();
SQL

# Clusters are there at all (the answers are not all NULL or all one).
check "0.1: v_window has clusters and noise" \
	"$(q "$DB" "SELECT count(DISTINCT cid) > 10 AND count(*) FILTER (WHERE cid IS NULL) > 0 FROM v_window")" t

# ---- the update -----------------------------------------------------------------------
if gd_psql "$DB" -c "ALTER EXTENSION gpu_dbscan UPDATE"; then
	ok "ALTER EXTENSION gpu_dbscan UPDATE"
else
	not_ok "ALTER EXTENSION gpu_dbscan UPDATE"
	exit 1
fi
check "version after the update" "$(q "$DB" "SELECT extversion FROM pg_extension WHERE extname = 'gpu_dbscan'")" "$new"

# Same answers, view by view (a new session: the new objects are seen).
gd_psql "$DB" -c 'REFRESH MATERIALIZED VIEW mv_clusters' || not_ok "REFRESH MATERIALIZED VIEW after the update"
diffs=$(gd_psql "$DB" -tA <<'SQL'
CREATE TEMP TABLE answers_after AS SELECT * FROM answers();
SELECT coalesce(b.v, a.v) || ': ' || coalesce(b.h, 'missing') || ' -> ' || coalesce(a.h, 'missing')
FROM answers_before b FULL JOIN answers_after a USING (v)
WHERE b.h IS DISTINCT FROM a.h OR b.h IS NULL;
SELECT 'count ' || count(*) FROM answers_before;
SQL
) || not_ok "the views could not be read after the update"
n_views=$(sed -nE 's/^count ([0-9]+)$/\1/p' <<<"$diffs")
bad=$(grep -v '^count ' <<<"$diffs")
if [[ -z $bad && ${n_views:-0} -gt 0 ]]; then
	ok "the same answers after the update ($n_views: views, a materialized view, a function)"
else
	not_ok "answers changed by the update: $bad"
fi

# ---- upgraded = fresh ----------------------------------------------------------------
if ! gd_psql "$FRESH" -c "CREATE EXTENSION gpu_dbscan"; then
	not_ok "CREATE EXTENSION gpu_dbscan (fresh $new)"
	exit 1
fi
# Every member object of the extension with its definition.
members_sql="
SELECT pg_describe_object(classid, objid, 0) || ' | ' ||
       coalesce(CASE WHEN classid = 'pg_proc'::regclass AND p.prokind <> 'a'
                     THEN md5(pg_get_functiondef(objid)) END, '') || ' | ' ||
       coalesce(obj_description(objid, classid::regclass::text), '')
FROM pg_depend d LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'gpu_dbscan')
  AND d.deptype = 'e'
ORDER BY 1"
aggs_sql="
SELECT a.aggfnoid::regprocedure || ' ' || a.aggtransfn || ' ' || a.aggfinalfn || ' ' || a.aggcombinefn
       || ' ' || a.aggserialfn || ' ' || a.aggdeserialfn || ' ' || a.aggfinalmodify::text || ' '
       || p.proparallel::text
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE p.proname LIKE 'gpu_dbscan%' ORDER BY 1"
up=$(q "$DB" "$members_sql")
fresh=$(q "$FRESH" "$members_sql")
if [[ $up == "$fresh" ]]; then
	ok "the upgraded extension holds the objects of a fresh $new ($(wc -l <<<"$fresh") objects, same definitions and comments)"
else
	not_ok "upgraded and fresh $new differ (< upgraded, > fresh):"
	diff <(echo "$up") <(echo "$fresh") | head -n 20
fi
up=$(q "$DB" "$aggs_sql")
fresh=$(q "$FRESH" "$aggs_sql")
if [[ -n $fresh && $up == "$fresh" ]]; then
	ok "the aggregates as in a fresh $new ($(wc -l <<<"$fresh"): support functions, parallel safety)"
else
	not_ok "the aggregates differ from a fresh $new: '$up' against '$fresh'"
fi

# The PGXN description names this version and its install script.
meta=$(python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
p = m["provides"]["gpu_dbscan"]
print(m["version"], p["version"], p["file"])' "$GD_ROOT/META.json" 2>&1)
read -r meta_version meta_pversion meta_file <<<"$meta"
if [[ $meta_version == "$new.0" && $meta_pversion == "$new.0" && $meta_file == "gpu_dbscan--$new.sql" &&
	-f $GD_ROOT/$meta_file ]]; then
	ok "META.json describes version $meta_version with $meta_file"
else
	not_ok "META.json: '$meta' (want version $new.0 and gpu_dbscan--$new.sql)"
fi

gd_psql postgres -c "DROP DATABASE IF EXISTS $FRESH" >/dev/null
exit "$failed"
