#!/usr/bin/env bash
# scripts/pg.sh — the throwaway PostgreSQL of this checkout (tmp_pg/).
#
#   scripts/pg.sh start | stop | status
#   scripts/pg.sh psql [DB] [psql args...]   (DB defaults to the demo database;
#                                            pg.sh psql -c '\dx' runs psql -c '\dx' there)
#   scripts/pg.sh env                          prints PGHOST/PGPORT/PGUSER exports
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case ${1:-} in
	start) gd_pg_start ;;
	stop) gd_pg_stop ;;
	status)
		if gd_pg_running; then
			echo "running: port $GD_PGPORT, socket $GD_PGSOCK, data $GD_PGDATA"
		else
			echo "not running"
			exit 3
		fi
		;;
	psql)
		shift
		# A first argument that is not an option names the database; the
		# rest (all of them, when the first is an option) go to psql.
		db=$GD_DEMO_DB
		if [[ $# -gt 0 && $1 != -* ]]; then
			db=$1
			shift
		fi
		exec "$GD_PGBIN/psql" -d "$db" "$@"
		;;
	env) printf 'export PGHOST=%q PGPORT=%q PGUSER=postgres\n' "$GD_PGSOCK" "$GD_PGPORT" ;;
	*) echo "usage: $0 start | stop | status | psql [DB] [args] | env" >&2; exit 2 ;;
esac
