#!/usr/bin/env bash
# test/cron/run.sh — the README's pg_cron job, run by pg_cron itself.
#
# pg_cron must be in shared_preload_libraries, so this starts a second
# throwaway server (tmp_pg/cron-data, port GD_PGPORT + 100, the same socket
# folder, fsync off like the first) with
#   shared_preload_libraries = 'pg_cron', cron.database_name = 'gd_cron',
#   cron.use_background_workers = on
# loads the cities into database gd_cron, and runs the README's block that
# follows its doc-test skip line naming this script (README.md, "Scheduled
# clustering")
# with its nightly schedule '30 3 * * *' replaced by every minute
# ('* * * * *': pg_cron 1.4 has no seconds).  Then it waits (at most 90 s)
# for cron.job_run_details to show the job's run succeeded, checks that the
# ids written into cities.cid are those gpu_dbscan gives over the table, and
# unschedules the job and stops the server.
#
# Prints "ok - ..." / "not ok - ..." lines; exits nonzero on a failure; says
# "skip - ..." when pg_cron is not installed (Debian: postgresql-15-cron).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

failed=0
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; failed=1; }

if [[ ! -f $("$PG_CONFIG" --pkglibdir)/pg_cron.so && ! -f $("$GD_PGBIN/pg_config" --pkglibdir 2>/dev/null)/pg_cron.so ]]; then
	echo "skip - pg_cron is not installed (apt-get install postgresql-15-cron)"
	exit 0
fi

# The block to run: the first ```sql block after the line that names this script.
block=$(awk '/doc-test: skip.*test\/cron\/run\.sh/ { armed = 1 } armed && /^```sql/ { inb = 1; next }
	inb && /^```/ { exit } inb { print }' "$GD_ROOT/README.md")
if [[ -z $block || $block != *"cron.schedule("*"'30 3 * * *'"* ]]; then
	not_ok "README.md has no pg_cron block with cron.schedule(..., '30 3 * * *', ...) after a line naming test/cron/run.sh"
	exit 1
fi
block=${block//"'30 3 * * *'"/"'* * * * *'"}

export GD_PGPORT=$((GD_PGPORT + 100))
export PGPORT=$GD_PGPORT
export GD_PGDATA=$GD_PGDIR/cron-data GD_PGLOG=$GD_PGDIR/cron-server.log
export GD_PG_OPTS="-c shared_preload_libraries=pg_cron -c cron.database_name=gd_cron -c cron.use_background_workers=on -c max_worker_processes=16"
DB=gd_cron
stop() { gd_pg_stop; }
trap stop EXIT
gd_pg_start >/dev/null || { not_ok "the pg_cron server did not start ($GD_PGLOG)"; exit 1; }
gd_createdb "$DB" >/dev/null
gd_psql "$DB" -c 'CREATE EXTENSION IF NOT EXISTS postgis' -c 'DROP EXTENSION IF EXISTS gpu_dbscan CASCADE' \
	-c 'CREATE EXTENSION gpu_dbscan' >/dev/null || { not_ok "extensions"; exit 1; }
bash "$GD_ROOT/scripts/load-cities.sh" load "$DB" >/dev/null || { not_ok "loading the cities"; exit 1; }
# A clean slate: no cid column, no job of an earlier run.
gd_psql "$DB" >/dev/null <<'SQL'
ALTER TABLE cities DROP COLUMN IF EXISTS cid;
DROP PROCEDURE IF EXISTS recluster_cities();
DO $$ BEGIN
  IF to_regclass('cron.job') IS NOT NULL THEN
    PERFORM cron.unschedule(jobid) FROM cron.job;
    DELETE FROM cron.job_run_details;
  END IF;
END $$;
SQL

if echo "$block" | gd_psql "$DB" >/dev/null; then
	ok "the README's pg_cron block ran (schedule: every minute)"
else
	not_ok "the README's pg_cron block failed"
	exit 1
fi
jobs=$(gd_psql "$DB" -tAc "SELECT count(*) FROM cron.job WHERE command LIKE '%recluster_cities%'")
[[ $jobs == 1 ]] && ok "one job in cron.job" || not_ok "cron.job holds $jobs such jobs"
before=$(gd_psql "$DB" -tAc "SELECT count(cid) FROM cities")
[[ $before == 0 ]] && ok "no ids before the job ran" || not_ok "$before ids before the job ran"

status=
for ((i = 0; i < 90; i++)); do
	status=$(gd_psql "$DB" -tAc "SELECT status || ': ' || coalesce(return_message, '')
		FROM cron.job_run_details WHERE status IN ('succeeded', 'failed') ORDER BY start_time LIMIT 1")
	[[ -n $status ]] && break
	sleep 1
done
if [[ $status == succeeded* ]]; then
	ok "pg_cron ran the job: $status (after ${i} s)"
else
	not_ok "the job did not succeed within 90 s: '${status:-no run}'"
fi
diff=$(gd_psql "$DB" -tAc "
	SELECT count(*) FROM cities c
	JOIN (SELECT id, gpu_dbscan(geom, 0.05, 5) OVER (ORDER BY id) AS cid FROM cities) s USING (id)
	WHERE c.cid IS DISTINCT FROM s.cid")
written=$(gd_psql "$DB" -tAc "SELECT count(cid) FROM cities")
if [[ $diff == 0 && $written -gt 0 ]]; then
	ok "the job wrote every city's id ($written clustered, the rest noise) as gpu_dbscan gives them"
else
	not_ok "ids written by the job: $diff differ from gpu_dbscan's, $written written"
fi
gd_psql "$DB" -tAc "SELECT cron.unschedule('recluster-cities')" >/dev/null &&
	ok "cron.unschedule('recluster-cities')" || not_ok "cron.unschedule"
exit "$failed"
