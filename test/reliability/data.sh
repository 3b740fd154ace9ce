# test/reliability/data.sh — the data of the reliability scripts.  Sourced
# shellcheck shell=bash
# after lib.sh.
#
# rel_data_setup DB N: database DB with postgis and gpu_dbscan, table
# rel_points_N (N points uniform in a 100 x 100 square, ids 1..N, seeded)
# and rel_check (20,000 points in gaussian blobs), each made once.

rel_data_setup() {
	local db=$1 n=$2
	if [[ $(rel_psql postgres -c "SELECT count(*) FROM pg_database WHERE datname = '$db'") != 1 ]]; then
		rel_psql postgres -c "CREATE DATABASE \"$db\"" || return 1
	fi
	rel_psql "$db" -c "SET client_min_messages = warning" \
		-c "CREATE EXTENSION IF NOT EXISTS postgis" -c "CREATE EXTENSION IF NOT EXISTS gpu_dbscan" || return 1
	if [[ $(rel_psql "$db" -c "SELECT to_regclass('rel_points_$n') IS NOT NULL") != t ]]; then
		rel_psql "$db" -c "SELECT setseed(0.5)" \
			-c "CREATE TABLE rel_points_$n AS SELECT i AS id, ST_MakePoint(random() * 100, random() * 100) AS geom
				FROM generate_series(1, $n) i" \
			-c "ANALYZE rel_points_$n" >/dev/null || return 1
	fi
	if [[ $(rel_psql "$db" -c "SELECT to_regclass('rel_check') IS NOT NULL") != t ]]; then
		rel_psql "$db" -c "SELECT setseed(0.25)" \
			-c "CREATE TABLE rel_check AS
				SELECT i AS id, ST_MakePoint(cx + 0.02 * sqrt(-2 * ln(1 - u1)) * cos(2 * pi() * u2),
											 cy + 0.02 * sqrt(-2 * ln(1 - u1)) * sin(2 * pi() * u2)) AS geom
				FROM (SELECT i, random() AS u1, random() AS u2, floor(random() * 20) AS cx, floor(random() * 3) AS cy
					  FROM generate_series(1, 20000) i) s" >/dev/null || return 1
	fi
}

# The check query: the ids of a 20,000-point clustering, as an md5.
rel_check_query() {
	printf '%s' "SELECT md5(array_agg(c ORDER BY id)::text) FROM (SELECT id, gpu_dbscan(geom, 0.01, 5) OVER (ORDER BY id) AS c FROM rel_check) s;"
}

# rel_check_answer DB BACKEND: the check query's answer in a fresh session.
rel_check_answer() {
	rel_psql "$1" -c "SET gpu_dbscan.backend = '$2'" -c "$(rel_check_query)"
}
