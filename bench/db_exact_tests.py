#!/usr/bin/env python3
"""db_exact_tests.py -- PostGIS's exact tests of non-point geometry in parallel workers, side by side.

Python 3 standard library only; the connection comes from the PG* variables
(scripts/pg.sh env).  Tables are made in the current database (unlogged,
gd_exact_*, remade when their size differs); each query in a fresh session
consumes the whole window output through max(), best of --runs, with
gpu_dbscan.backend = cpu:

  heavy   16-segment buffers (65 vertices) and segmentized lines (45 vertices) in [0, 300]^2
          (each st_dwithin ~13 us), eps 1, minpoints 5
  light   2-point lines, 2-segment buffers and points in [0, 400]^2 (~0.35 us), eps 1, minpoints 5

and for each: ST_ClusterDBSCAN, then gpu_dbscan with gpu_dbscan.exact_test_workers 0 (the
backend alone), 1, and -1 (by the estimated work, up to --per-gather workers), printing
seconds, the exact tests' own time (gpu_dbscan_last_run().core_ms) and the ratios; the ids of
every setting compared (md5 of the ids in row order) with the backend alone's.

  python3 bench/db_exact_tests.py                         # 60,000 heavy, 150,000 light rows
  python3 bench/db_exact_tests.py --heavy 20000 --light 0 --per-gather 8 --runs 3
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from db_common import Session, made_once  # noqa: E402

TABLES = {
    "heavy": """CREATE UNLOGGED TABLE {t} AS SELECT i AS id,
                  CASE WHEN i % 2 = 0 THEN ST_Buffer(ST_MakePoint(x, y), 0.3, 16)
                       ELSE ST_Segmentize(ST_MakeLine(ST_MakePoint(x, y), ST_MakePoint(x + 2, y + 1)), 0.05) END AS geom
                FROM (SELECT i, (hashint4(i) & 65535) / 65536.0 * {side} AS x,
                             (hashint4(i + 7777777) & 65535) / 65536.0 * {side} AS y
                      FROM generate_series(1, {n}) i) s""",
    "light": """CREATE UNLOGGED TABLE {t} AS SELECT i AS id,
                  CASE WHEN i % 3 = 0 THEN ST_MakeLine(ST_MakePoint(x, y), ST_MakePoint(x + 0.7, y + 0.4))
                       WHEN i % 3 = 1 THEN ST_Buffer(ST_MakePoint(x, y), 0.2, 2)
                       ELSE ST_MakePoint(x, y) END AS geom
                FROM (SELECT i, (hashint4(i) & 65535) / 65536.0 * {side} AS x,
                             (hashint4(i + 7777777) & 65535) / 65536.0 * {side} AS y
                      FROM generate_series(1, {n}) i) s""",
}
# The side of the square: the sizes of the defaults keep the density of the first tables.
SIDE = {"heavy": lambda n: 300 * (n / 60000) ** 0.5, "light": lambda n: 400 * (n / 150000) ** 0.5}

WIN = "SELECT max(c) FROM (SELECT {f}(geom, 1, 5) OVER () c FROM {t}) s"
IDS = "SELECT md5(string_agg(coalesce(c::text, 'n'), ',' ORDER BY id)) FROM (SELECT id, gpu_dbscan(geom, 1, 5) OVER () c FROM {t}) s"


def ensure(kind, n):
    t = "gd_exact_%s_%d" % (kind, n)
    return made_once(t, TABLES[kind].format(t=t, n=n, side=SIDE[kind](n)))


def best(sql, settings, runs):
    """(seconds, core_ms of that run) of the best of runs fresh sessions."""
    out = None
    for _ in range(runs):
        with Session(settings) as s:
            s.run("SELECT gpu_dbscan(ST_MakePoint(1, 1), 1, 1) OVER ()")  # the module loaded
            _, sec = s.timed(sql)
            core = s.value("SELECT round(core_ms::numeric, 1) FROM gpu_dbscan_last_run()")
        if out is None or sec < out[0]:
            out = (sec, core)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--heavy", type=int, default=60000)
    ap.add_argument("--light", type=int, default=150000)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--per-gather", type=int, default=2,
                    help="max_parallel_workers_per_gather: the cap of -1")
    args = ap.parse_args()

    print("| table | rows | ST_ClusterDBSCAN s | workers 0 s (exact ms) | 1 worker s (exact ms) "
          "| -1 s (exact ms) | ST / -1 | 0 / -1 | ids |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for kind, n in (("heavy", args.heavy), ("light", args.light)):
        if n <= 0:
            continue
        t = ensure(kind, n)
        base = ["SET gpu_dbscan.backend = cpu",
                "SET max_parallel_workers_per_gather = %d" % args.per_gather]
        st, _ = best(WIN.format(f="ST_ClusterDBSCAN", t=t), base, 1)
        times, ids = {}, {}
        for w in (0, 1, -1):
            settings = base + ["SET gpu_dbscan.exact_test_workers = %d" % w]
            times[w] = best(WIN.format(f="gpu_dbscan", t=t), settings, args.runs)
            with Session(settings) as s:
                ids[w] = s.value(IDS.format(t=t))
        same = "identical" if ids[1] == ids[0] and ids[-1] == ids[0] else "DIFFER"
        print("| %s | %d | %.3f | %.3f (%s) | %.3f (%s) | %.3f (%s) | %.2fx | %.2fx | %s |" % (
            kind, n, st, times[0][0], times[0][1], times[1][0], times[1][1], times[-1][0],
            times[-1][1], st / times[-1][0], times[0][0] / times[-1][0], same))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
