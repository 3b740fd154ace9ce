#!/usr/bin/env bash
# inscy_sql.sh — gpu_inscy end to end in SQL on the GPU-INSCY paper's real data
# sets, at the paper's parameters (eps 0.01, mu 8, F 1, r 1, min_size
# floor(0.05 n)): each CSV of $GD_INSCY_DATA (default ../shared/data/inscy beside the checkout)
# is loaded into a table (the class column of glass and pendigits dropped),
# then the aggregate is timed by psql's \timing, best of $REPS runs after a
# warm-up, on each back end named in $BACKENDS (default "gpu cpu").
#
#   PGDATABASE=... bash bench/inscy_sql.sh [set ...]     (default: all four)
#
# Connection from the usual PG* variables; the database needs the
# gpu_dbscan extension.  $CPU_MAX_N (default 10000): the CPU back end is only
# timed on sets of at most that many rows.
set -euo pipefail

DATA=${GD_INSCY_DATA:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/../shared/data/inscy}
REPS=${REPS:-3}
BACKENDS=${BACKENDS:-gpu cpu}
CPU_MAX_N=${CPU_MAX_N:-10000}
sets=("$@")
[[ ${#sets[@]} -gt 0 ]] || sets=(glass vowel pendigits sky_1x2)

psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

features() {  # the clustered columns of a set
	case $1 in
		glass) echo 9 ;; vowel) echo 10 ;; pendigits) echo 16 ;; sky_1x2) echo 17 ;;
		*) echo "unknown set $1" >&2; exit 2 ;;
	esac
}

printf '%-10s %7s %3s %8s %10s %8s %10s\n' set n d backend clusters subspaces best_s
for set in "${sets[@]}"; do
	file=$DATA/$set.csv
	header=$(head -1 "$file")
	ncols=$(awk -F, '{print NF; exit}' <<<"$header")
	d=$(features "$set")
	cols=$(seq 1 "$ncols" | sed 's/^/c/' | paste -sd,)
	coldefs=$(seq 1 "$ncols" | sed 's/^\(.*\)$/c\1 float8/' | paste -sd,)
	arr=$(seq 1 "$d" | sed 's/^/c/' | paste -sd,)
	psql_q -c "DROP TABLE IF EXISTS inscy_$set" \
		-c "CREATE TABLE inscy_$set ($coldefs)"
	tail -n +2 "$file" | psql_q -c "\\copy inscy_$set ($cols) FROM STDIN WITH (FORMAT csv)"
	psql_q -c "ALTER TABLE inscy_$set ADD COLUMN id bigserial" -c "ANALYZE inscy_$set"
	n=$(psql_q -tAc "SELECT count(*) FROM inscy_$set")
	q="SELECT gpu_inscy(ARRAY[$arr], 0.01, 8, floor(0.05 * $n)::int, 1.0, 1.0 ORDER BY id) FROM inscy_$set"
	for be in $BACKENDS; do
		if [[ $be == cpu && $n -gt $CPU_MAX_N ]]; then
			printf '%-10s %7s %3s %8s %10s %8s %10s\n' "$set" "$n" "$d" "$be" - - skipped
			continue
		fi
		out=$(psql_q -At <<-SQL
			SET gpu_dbscan.backend = $be;
			SELECT cardinality(r), (SELECT count(DISTINCT c.dims) FROM unnest(r) c)
			FROM ($q) s(r);
			\\timing on
			$(for _ in $(seq "$REPS"); do echo "SELECT cardinality(($q));"; done)
		SQL
		)
		summary=$(sed -n 1p <<<"$out")
		best=$(grep -o 'Time: [0-9.]* ms' <<<"$out" | awk '{print $2}' | sort -g | head -1)
		printf '%-10s %7s %3s %8s %10s %8s %10.4f\n' "$set" "$n" "$d" "$be" \
			"${summary%%|*}" "${summary##*|}" "$(awk -v m="$best" 'BEGIN{print m/1000}')"
	done
done
