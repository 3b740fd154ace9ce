#!/usr/bin/env python3
"""db_scan_bench.py -- issue 9's fast path of gpu_dbscan() OVER (...) beside its floors.

Python 3 standard library only (bench/db_common.py); the connection comes from
the PG* environment variables.  For each size it makes (or reuses) two
unlogged tables of bench/db_common.py: uniform points in [0,1000]^2
(gd_scan_uniform_<size>) and the same law in 100 partitions
(gd_scan_parts_<size>, column part), and times in fresh sessions, each query
consuming the whole window output through max():

  count(*) serial / parallel       SELECT count(*) FROM t
  sum(ST_X) serial / parallel      SELECT sum(ST_X(geom)) FROM t
  window, fast path off            SELECT max(c) FROM (SELECT gpu_dbscan(geom,eps,mp) OVER () c FROM t) s
                                   with gpu_dbscan.fast_path = off (today's WindowAgg)
  fast path OVER ()                the same, fast path on (custom scan GpuDbscanWindow; with
                                   workers the partial path under a Gather: each participant
                                   returns a share of the rows to a partial max())
  ..., no Gather                   the node's own workers read, the leader returns every row
  fast path OVER (ORDER BY id)     ... OVER (ORDER BY id)
  parts: fast path off / on        ... OVER (PARTITION BY part) on the partitioned table
  ST_ClusterDBSCAN                 once, up to --postgis-max-size rows

With --input array, the same queries over float8[] points of --dims
coordinates (column p: the first two uniform in [0,1000], the others in
[0,1)), gpu_dbscan(p, ...), gpu_dbscan_agg(p, ...) and sum(p[1]) for the
floors.  With --input geography, over geography points (column p) uniform in
longitude [0,10) and latitude [40,50), --eps in metres (1000 gives about the
uniform table's density at eps 1), and sum(ST_X(p::geometry)) for the floors.

With --queries aggregate (or window,aggregate), gpu_dbscan_agg's fast path
(custom scan GpuDbscanAgg) beside today's Agg, each query consuming the array
through cardinality():

  agg, fast path off, serial       SELECT cardinality(gpu_dbscan_agg(geom,eps,mp)) FROM t
  agg, fast path off, workers      the same as a parallel Agg (partial states combined)
  agg fast path, workers / alone   the same, fast path on
  parts GROUP BY: off / fast path  SELECT sum(cardinality(a)) FROM (SELECT part,
                                   gpu_dbscan_agg(geom,eps,mp) a FROM t GROUP BY part) s

"parallel" and the fast path use --workers workers (max_parallel_workers_per_gather
and gpu_dbscan.scan_workers; 0 runs the leader alone).  Ratios are to the serial
and the parallel sum(ST_X).  Memory: the backend's peak RSS growth per row
(shared memory the leader touches included).  --check compares the fast
path's ids with the fast path off, row by row (ORDER BY id, and the
partitions), and fails on a difference.

  python3 bench/db_scan_bench.py --sizes 2M --workers 2          # the CI target
  python3 bench/db_scan_bench.py --sizes 10M --workers 8 --check  # issue 9's figures
  python3 bench/db_scan_bench.py --sizes 2M --workers 2 --queries aggregate --check
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from db_common import (SESSION_SETTINGS, Budget, Session, SqlError, ensure_table, log,  # noqa: E402
                       parse_size, proc_status_kb, reset_peak, size_label)


WARM_UP = "SELECT gpu_dbscan(ST_MakePoint(0, 0), 1, 1) OVER ()"


def measure(settings, sql, runs):
    """Best seconds of runs fresh sessions, and the backend's peak RSS growth (kB).
    Each session first runs a one-row gpu_dbscan (the module loaded, as db_bench.py does)."""
    best, grow = None, None
    for _ in range(runs):
        with Session(SESSION_SETTINGS + settings) as s:
            s.run(WARM_UP)
            before = proc_status_kb(s.pid)
            have_peak = reset_peak(s.pid)
            _, sec = s.timed(sql)
            after = proc_status_kb(s.pid)
            if before and after and have_peak:
                g = after["VmHWM"] - before["VmRSS"]
                grow = g if grow is None else min(grow, g)
        best = sec if best is None else min(best, sec)
    return best, grow


def par(workers):
    return ["SET max_parallel_workers_per_gather = %d" % workers,
            "SET max_parallel_workers = %d" % max(workers, 8),
            "SET gpu_dbscan.scan_workers = %d" % workers]


def window_sql(table, eps, mp, over, col="geom"):
    return ("SELECT max(c) FROM (SELECT gpu_dbscan(%s, %s, %s) OVER (%s) c FROM %s) s"
            % (col, eps, mp, over, table))


def array_coords(dims):
    """The float8[] generators' point: two coordinates in [0,1000], the others in [0,1)."""
    return "ARRAY[%s]::float8[]" % ", ".join(["random() * 1000"] * 2 + ["random()"] * (dims - 2))


def geography_coords():
    """The geography generators' point: longitude in [0,10), latitude in [40,50), SRID 4326."""
    return "ST_SetSRID(ST_MakePoint(random() * 10, 40 + random() * 10), 4326)::geography"


def agg_sql(table, eps, mp, grouped, col="geom"):
    if grouped:
        return ("SELECT sum(cardinality(a)) FROM (SELECT part, gpu_dbscan_agg(%s, %s, %s) a "
                "FROM %s GROUP BY part) s" % (col, eps, mp, table))
    return "SELECT cardinality(gpu_dbscan_agg(%s, %s, %s)) FROM %s" % (col, eps, mp, table)


def check_agg_same(table, eps, mp, grouped, col="geom"):
    """Groups whose array differs between the fast path (2 workers) and the serial Agg (0 = identical)."""
    q = ("SELECT %s gpu_dbscan_agg(%s, %s, %s) a FROM %s %s"
         % ("part," if grouped else "0 AS part,", col, eps, mp, table, "GROUP BY part" if grouped else ""))
    with Session(SESSION_SETTINGS + ["SET gpu_dbscan.scan_workers = 2", "SET synchronize_seqscans = off",
                                     "SET enable_sort = off"]) as s:
        s.run("CREATE TEMP TABLE f AS " + q)
        s.run("SET gpu_dbscan.fast_path = off")
        s.run("SET max_parallel_workers_per_gather = 0")
        s.run("CREATE TEMP TABLE w AS " + q)
        return int(s.value("SELECT count(*) FROM f FULL JOIN w USING (part) WHERE f.a IS DISTINCT FROM w.a"))


def check_same(table, eps, mp, over, col="geom"):
    """Rows whose id differs between the fast path and the WindowAgg (0 = identical)."""
    q = "SELECT id, gpu_dbscan(%s, %s, %s) OVER (%s) c FROM %s" % (col, eps, mp, over, table)
    with Session(SESSION_SETTINGS + ["SET gpu_dbscan.scan_workers = 2"]) as s:
        s.run("CREATE TEMP TABLE f AS " + q)
        s.run("SET gpu_dbscan.fast_path = off")
        s.run("CREATE TEMP TABLE w AS " + q)
        return int(s.value("SELECT count(*) FROM f JOIN w USING (id) WHERE f.c IS DISTINCT FROM w.c")
                   ) + abs(int(s.value("SELECT count(*) FROM f")) - int(s.value("SELECT count(*) FROM w")))


def add_window(add, be, par, uni, parts, eps, mp, w, args, col):
    """The window function's queries (see the file comment)."""
    add("window OVER (), fast path off", be + ["SET gpu_dbscan.fast_path = off"],
        window_sql(uni, eps, mp, "", col))
    add("fast path OVER (), %d workers" % w, be + par(w), window_sql(uni, eps, mp, "", col))
    if w > 0:
        # the node's own workers read, one backend returns every row (no partial path)
        add("fast path OVER (), %d workers, no Gather" % w,
            be + par(w) + ["SET max_parallel_workers_per_gather = 0"], window_sql(uni, eps, mp, "", col))
    add("fast path OVER (), leader alone", be + par(0), window_sql(uni, eps, mp, "", col))
    add("fast path OVER (ORDER BY id), %d workers" % w, be + par(w),
        window_sql(uni, eps, mp, "ORDER BY id", col))
    add("%d partitions, fast path off" % args.partitions, be + ["SET gpu_dbscan.fast_path = off"],
        window_sql(parts, eps, mp, "PARTITION BY part", col))
    add("%d partitions, fast path, %d workers" % (args.partitions, w), be + par(w),
        window_sql(parts, eps, mp, "PARTITION BY part", col))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="2M")
    ap.add_argument("--eps", default="1")
    ap.add_argument("--minpoints", default="10")
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--partitions", type=int, default=100)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--backend", default="auto", help="gpu_dbscan.backend for the window queries")
    ap.add_argument("--postgis-max-size", default="200k")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--queries", default="window", help="window, aggregate, or both (comma-separated)")
    ap.add_argument("--input", default="geometry", choices=["geometry", "array", "geography"],
                    help="geometry points, float8[] points of --dims coordinates, or geography points")
    ap.add_argument("--dims", type=int, default=3, help="coordinates of --input array")
    ap.add_argument("--regenerate", action="store_true")
    ap.add_argument("--budget", type=float, default=None, help="seconds; later measurements are skipped")
    ap.add_argument("--prepare-only", action="store_true", help="make the tables, measure nothing")
    args = ap.parse_args()
    budget = Budget(args.budget)
    eps, mp, w = args.eps, args.minpoints, args.workers
    be = ["SET gpu_dbscan.backend = %s" % args.backend]
    failed = False

    with Session() as s:
        s.run("SET client_min_messages = warning")
        s.run("CREATE EXTENSION IF NOT EXISTS postgis")
        s.run("CREATE EXTENSION IF NOT EXISTS gpu_dbscan")
        log(s.value("SELECT 'server ' || current_setting('server_version') || ', cores ' || "
                    "current_setting('max_worker_processes') || ' worker processes'"))
    x = {"array": "p[1]", "geography": "ST_X(p::geometry)"}.get(args.input, "ST_X")
    print("| rows | query | seconds | / serial sum(%s) | / parallel sum(%s) | peak RSS B/row |" % (x, x))
    print("|---|---|---|---|---|---|")
    for size in args.sizes.split(","):
        n = parse_size(size)
        uni = "gd_scan_uniform_%s" % size_label(n).lower()
        parts = "gd_scan_parts_%s" % size_label(n).lower()
        m = max(1, n // args.partitions)
        if args.input == "array":
            uni, parts = uni + "_a%d" % args.dims, parts + "_a%d" % args.dims
            ensure_table(uni, "uniform_array", n, 0.42, args.regenerate, coords=array_coords(args.dims))
            ensure_table(parts, "parts_array", n, 0.42, args.regenerate, m=m,
                         coords=array_coords(args.dims))
        elif args.input == "geography":
            uni, parts = uni + "_geog", parts + "_geog"
            ensure_table(uni, "uniform_array", n, 0.42, args.regenerate, coords=geography_coords())
            ensure_table(parts, "parts_array", n, 0.42, args.regenerate, m=m, coords=geography_coords())
        else:
            ensure_table(uni, "uniform", n, 0.42, args.regenerate, side=1000)
            ensure_table(parts, "parts", n, 0.42, args.regenerate, side=1000, m=m)
        col, x = {"array": ("p", "p[1]"), "geography": ("p", "ST_X(p::geometry)")}.get(
            args.input, ("geom", "ST_X(geom)"))
        for t in (uni, parts):
            with Session(SESSION_SETTINGS) as s:
                s.run("VACUUM ANALYZE %s" % t)
        if args.prepare_only:
            continue
        rows = []

        def add(label, settings, sql, runs=args.runs):
            if budget.over():
                log("budget spent: skipping %s" % label)
                return None
            try:
                sec, grow = measure(settings, sql, runs)
            except SqlError as e:
                log("%s: %s" % (label, e))
                rows.append((label, None, None))
                return None
            rows.append((label, sec, grow))
            log("%s %s: %.3f s" % (size_label(n), label, sec))
            return sec

        add("count(*) serial", [], "SELECT count(*) FROM %s" % uni)
        add("count(*) %d workers" % w, par(w), "SELECT count(*) FROM %s" % uni)
        ser = add("sum(%s) serial" % x, [], "SELECT sum(%s) FROM %s" % (x, uni))
        psum = add("sum(%s) %d workers" % (x, w), par(w), "SELECT sum(%s) FROM %s" % (x, uni))
        queries = args.queries.split(",")
        if "aggregate" in queries:
            off = ["SET gpu_dbscan.fast_path = off"]
            add("gpu_dbscan_agg, fast path off, serial", be + off + par(0), agg_sql(uni, eps, mp, False, col))
            add("gpu_dbscan_agg, fast path off, %d workers" % w, be + off + par(w),
                agg_sql(uni, eps, mp, False, col))
            add("gpu_dbscan_agg fast path, %d workers" % w, be + par(w), agg_sql(uni, eps, mp, False, col))
            add("gpu_dbscan_agg fast path, leader alone", be + par(0), agg_sql(uni, eps, mp, False, col))
            add("GROUP BY part (%d groups), fast path off, %d workers" % (args.partitions, w),
                be + off + par(w), agg_sql(parts, eps, mp, True, col))
            add("GROUP BY part (%d groups), fast path, %d workers" % (args.partitions, w),
                be + par(w), agg_sql(parts, eps, mp, True, col))
        if "window" in queries:
            add_window(add, be, par, uni, parts, eps, mp, w, args, col)
        if n <= parse_size(args.postgis_max_size) and "window" in queries and args.input == "geometry":
            add("ST_ClusterDBSCAN OVER ()", [],
                "SELECT max(c) FROM (SELECT ST_ClusterDBSCAN(geom, %s, %s) OVER () c FROM %s) s"
                % (eps, mp, uni), runs=1)
        for label, sec, grow in rows:
            if sec is None:
                print("| %s | %s | failed | | | |" % (size_label(n), label))
                continue
            print("| %s | %s | %.3f | %s | %s | %s |" % (
                size_label(n), label, sec,
                "%.2f" % (sec / ser) if ser else "",
                "%.2f" % (sec / psum) if psum else "",
                "%.0f" % (grow * 1024.0 / n) if grow is not None else ""))
        if args.check and not budget.over() and "window" in queries:
            for t, over in ((uni, "ORDER BY id"), (parts, "PARTITION BY part ORDER BY id")):
                d = check_same(t, eps, mp, over, col)
                print("- check %s OVER (%s): %d rows differ" % (t, over, d))
                failed |= d != 0
        if args.check and not budget.over() and "aggregate" in queries:
            for t, grouped in ((uni, False), (parts, True)):
                d = check_agg_same(t, eps, mp, grouped, col)
                print("- check gpu_dbscan_agg over %s%s: %d groups differ"
                      % (t, " GROUP BY part" if grouped else "", d))
                failed |= d != 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
