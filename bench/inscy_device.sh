#!/usr/bin/env bash
# inscy_device.sh — the subspace clustering's run on a GPU machine: build
# (CUDA on), the inscy unit tests, the core benchmark (bench/inscy_bench.cpp)
# and, when pgkit's PostgreSQL is set up (. /opt/pgkit/pgkit.env), the SQL
# timing (bench/inscy_sql.sh).  Logs go to $OUT (default ./inscy_out).
#   GD_INSCY_DATA=<folder with the CSVs> bash bench/inscy_device.sh
set -uo pipefail
OUT=${OUT:-$PWD/inscy_out}
mkdir -p "$OUT"
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$OUT/summary.log"; }

nvidia-smi --query-gpu=name,memory.total --format=csv,noheader >"$OUT/summary.log" 2>&1
stamp "build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGD_WITH_CUDA=ON \
	-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -G Ninja >"$OUT/build.log" 2>&1 &&
	cmake --build build -j16 --target gd_core gd_unit_tests gd_inscy_bench >>"$OUT/build.log" 2>&1 ||
	{ stamp "build failed"; tail -40 "$OUT/build.log" >>"$OUT/summary.log"; exit 1; }
stamp "unit tests"
timeout 120 ./build/gd_unit_tests --gtest_filter='Inscy*' >"$OUT/unit.log" 2>&1
stamp "unit tests rc $?: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/unit.log" | tr '\n' ' ')"
stamp "bench"
timeout 60 ./build/gd_inscy_bench --sets glass,vowel,pendigits --reps 3 >"$OUT/bench.log" 2>&1
echo "# sky 0.5x0.5 (the first 7,253 rows; paper: GPU-INSCY 4.89 s)" >>"$OUT/bench.log"
timeout 60 ./build/gd_inscy_bench --sets sky_1x2 --rows 7253 --reps 3 >>"$OUT/bench.log" 2>&1
GD_INSCY_TRACE=1 timeout 120 ./build/gd_inscy_bench --sets sky_1x2 --reps 2 --cpu-max-n 10000 \
	>>"$OUT/bench.log" 2>&1
stamp "bench rc $?"
cat "$OUT/bench.log" >>"$OUT/summary.log"
if command -v pg_config >/dev/null && [[ -n ${PGHOST:-} ]]; then
	stamp "sql"
	{ make install CORE_BUILD=build WITH_CUDA=yes PG_CONFIG="$(command -v pg_config)" &&
		psql -X -q -c "DROP DATABASE IF EXISTS inscy" -c "CREATE DATABASE inscy" postgres &&
		psql -X -q -d inscy -c "CREATE EXTENSION postgis" -c "CREATE EXTENSION gpu_dbscan"; } \
		>"$OUT/sql.log" 2>&1 || { stamp "install failed"; tail -30 "$OUT/sql.log" >>"$OUT/summary.log"; exit 1; }
	PGOPTIONS="-c gpu_dbscan.backend=gpu" timeout 60 make installcheck CORE_BUILD=build WITH_CUDA=yes \
		REGRESS=inscy PG_CONFIG="$(command -v pg_config)" >"$OUT/regress.log" 2>&1
	stamp "pg_regress inscy with gpu_dbscan.backend = gpu: rc $?"
	cat regression.diffs >>"$OUT/regress.log" 2>/dev/null
	PGDATABASE=inscy REPS=3 BACKENDS="auto gpu cpu" timeout 100 bash bench/inscy_sql.sh glass vowel pendigits \
		>>"$OUT/sql.log" 2>&1
	PGDATABASE=inscy REPS=2 BACKENDS=auto timeout 150 bash bench/inscy_sql.sh sky_1x2 >>"$OUT/sql.log" 2>&1
	stamp "sql rc $?"
	grep -v '^make\|^/usr\|^g++\|^gcc\|^mkdir' "$OUT/sql.log" | tail -20 >>"$OUT/summary.log"
fi
stamp "done"
