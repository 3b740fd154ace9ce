#!/usr/bin/env bash
# test/docs/run.sh — every SQL example of the README runs.
#
#   test/docs/run.sh [FILE.md ...]      (default: README.md)
#
# Each ```sql block of the file runs in its own psql session against the demo
# database (the cities table of scripts/load-cities.sh, loaded if missing;
# the extension created afresh),
# inside a transaction that is rolled back, so examples that change tables
# leave the database as it was.  A block fails on its first error
# (ON_ERROR_STOP).  A block right after the line
#   <!-- doc-test: skip (why) -->
# is not run (the reason is printed); use it only for what cannot run here,
# and say where it is tested instead.  Result rows go to log/docs-*.out.
#
# Prints "ok - FILE:LINE ..." / "not ok - ..." per block; exits nonzero on a
# failure.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

files=("$@")
[[ ${#files[@]} -gt 0 ]] || files=("$GD_ROOT/README.md")
failed=0
gd_pg_running || gd_pg_start >/dev/null
gd_createdb "$GD_DEMO_DB"
# The extension as installed now (a database made before a change of the
# install script would lack what it added).
gd_psql "$GD_DEMO_DB" -c 'CREATE EXTENSION IF NOT EXISTS postgis' \
	-c 'DROP EXTENSION IF EXISTS gpu_dbscan CASCADE' -c 'CREATE EXTENSION gpu_dbscan' >/dev/null || exit 1
bash "$GD_ROOT/scripts/load-cities.sh" load "$GD_DEMO_DB" || { echo "not ok - loading the cities"; exit 1; }
mkdir -p "$GD_LOGDIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for f in "${files[@]}"; do
	name=${f#"$GD_ROOT"/}
	# Split the file into one file per ```sql block: tmp/N.sql, with its
	# first line number in tmp/N.line and a skip reason in tmp/N.skip.
	awk -v dir="$tmp" '
		/<!-- doc-test: skip/ { reason = $0; sub(/.*doc-test: skip */, "", reason); sub(/ *-->.*/, "", reason); pending = NR; next }
		!inblock && /^```sql[[:space:]]*$/ {
			inblock = 1; n++; out = dir "/" n ".sql"; printf "" > out
			print NR + 1 > (dir "/" n ".line")
			if (pending == NR - 1) print reason > (dir "/" n ".skip")
			next }
		inblock && /^```[[:space:]]*$/ { inblock = 0; close(out); next }
		inblock { print >> out }
		END { print n + 0 > (dir "/count") }' "$f"
	count=$(cat "$tmp/count")
	[[ $count -gt 0 ]] || { echo "not ok - $name has no \`\`\`sql block"; failed=1; continue; }
	for ((i = 1; i <= count; i++)); do
		line=$(cat "$tmp/$i.line")
		first=$(grep -vE '^\s*(--|$)' "$tmp/$i.sql" | head -n 1 | cut -c1-60)
		if [[ -f $tmp/$i.skip ]]; then
			echo "skip - $name:$line not run: $(cat "$tmp/$i.skip")"
			continue
		fi
		out=$GD_LOGDIR/docs-$(basename "$name" .md)-$line.out
		t0=$(gd_now)
		if { echo 'BEGIN;'; cat "$tmp/$i.sql"; echo; echo 'ROLLBACK;'; } |
			PGOPTIONS="-c client_min_messages=warning" "$GD_PGBIN/psql" -X -q -v ON_ERROR_STOP=1 \
				-d "$GD_DEMO_DB" >"$out" 2>&1; then
			echo "ok - $name:$line ($first ...) $(gd_seconds_since "$t0") s"
		else
			echo "not ok - $name:$line ($first ...):"
			grep -E 'ERROR|error' "$out" | head -n 5 | sed 's/^/#   /; s/^#   /    /'
			failed=1
		fi
	done
done
exit "$failed"
