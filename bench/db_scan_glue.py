#!/usr/bin/env python3
"""db_scan_glue.py -- where the fast path's time goes outside the core (issue 9).

Python 3 standard library only (bench/db_common.py); the connection comes from
the PG* environment variables; the tables are db_scan_bench.py's (run it once
first).  For each case, --runs fresh sessions (the module loaded by a one-row
gpu_dbscan first), the CPU back end (--backend), and EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) of

  over      SELECT max(c) FROM (SELECT gpu_dbscan(geom,eps,mp) OVER () c FROM gd_scan_uniform_<size>) s
  orderby   ... OVER (ORDER BY id) ...
  parts     ... OVER (PARTITION BY part) ... FROM gd_scan_parts_<size>
  sumx      SELECT sum(ST_X(geom)) FROM gd_scan_uniform_<size> (timed, the floor)

with the node's Read, Order and Cluster Time (EXPLAIN (ANALYZE, TIMING OFF): the
node times itself, so no per-row timing inflates the rest), the core's total_ms
(gpu_dbscan_last_run(); the last partition only for parts), and the medians of:
gap = Cluster Time - core (the glue around the core), emit = Execution Time -
Read - Order - Cluster (rows out and max()), glue = Execution Time - core, the
GPU worker's handoff when it served the query (w.in: the rows copied into the
request's shared memory, w.wait: the wait for its answer, of which w.core the
core's run, w.out: the ids copied out and the segment freed), and the
backend's peak RSS growth per row.  Compare
builds by installing each in turn and running this in the same minutes.

  python3 bench/db_scan_glue.py --size 2M --cases sumx:0,sumx:2,over:0,over:2,orderby:2 --runs 3
"""

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from db_common import (SESSION_SETTINGS, Session, parse_size, proc_status_kb, reset_peak,  # noqa: E402
                       size_label)

QUERIES = {
    "over": "SELECT max(c) FROM (SELECT gpu_dbscan(geom, {eps}, {mp}) OVER () c FROM gd_scan_uniform_{s}) s",
    "orderby": "SELECT max(c) FROM (SELECT gpu_dbscan(geom, {eps}, {mp}) OVER (ORDER BY id) c "
               "FROM gd_scan_uniform_{s}) s",
    "parts": "SELECT max(c) FROM (SELECT gpu_dbscan(geom, {eps}, {mp}) OVER (PARTITION BY part) c "
             "FROM gd_scan_parts_{s}) s",
    "sumx": "SELECT sum(ST_X(geom)) FROM gd_scan_uniform_{s}",
}
KEYS = ["total", "core", "read", "order", "cluster", "gap", "emit", "glue", "w.in", "w.wait", "w.core",
        "w.out", "B/row"]


def scan_node(plan):
    """The GpuDbscanWindow node of a plan (under a Gather when it is the partial path)."""
    if plan.get("Custom Plan Provider") == "GpuDbscanWindow":
        return plan
    for sub in plan.get("Plans", []):
        found = scan_node(sub)
        if found:
            return found
    return None


def one(sql, floor, workers, nrows, backend):
    settings = SESSION_SETTINGS + ["SET gpu_dbscan.backend = '%s'" % backend,
                                   "SET gpu_dbscan.scan_workers = %d" % workers,
                                   "SET max_parallel_workers_per_gather = %d" % workers]
    with Session(settings) as s:
        s.run("SELECT gpu_dbscan(ST_MakePoint(0, 0), 1, 1) OVER ()")
        before = proc_status_kb(s.pid)
        reset_peak(s.pid)
        if floor:
            _, ms = s.run(sql, timed=True)
            return {"total": ms}
        rows, _ = s.run("EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) " + sql)
        after = proc_status_kb(s.pid)
        plan = json.loads("\n".join("|".join(r) for r in rows))[0]
        node = scan_node(plan["Plan"])
        total = plan["Execution Time"]
        core = float(s.value("SELECT sum(total_ms) FROM gpu_dbscan_last_run()") or 0)
        m = {"total": total, "core": core, "read": node["Read Time"], "order": node["Order Time"],
             "cluster": node["Cluster Time"], "gap": node["Cluster Time"] - core, "glue": total - core,
             "emit": total - node["Read Time"] - node["Order Time"] - node["Cluster Time"]}
        if "GPU Worker Requests" in node:
            m.update({"w.in": node["GPU Worker Copy In Time"], "w.wait": node["GPU Worker Wait Time"],
                      "w.core": node["GPU Worker Core Time"], "w.out": node["GPU Worker Copy Out Time"]})
        if before and after:
            m["B/row"] = (after["VmHWM"] - before["VmRSS"]) * 1024.0 / nrows
        return m


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="2M")
    ap.add_argument("--eps", default="1")
    ap.add_argument("--minpoints", default="10")
    ap.add_argument("--cases", default="sumx:0,sumx:2,over:0,over:2,orderby:2,parts:2",
                    help="query:workers, comma-separated")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--backend", default="cpu", choices=["cpu", "gpu", "auto"],
                    help="gpu_dbscan.backend of the clustering queries (cpu: the core's time "
                         "moves less with the machine)")
    args = ap.parse_args()
    n = parse_size(args.size)
    label = size_label(n).lower()
    results = {}
    for _ in range(args.runs):
        for case in args.cases.split(","):
            q, w = case.split(":")
            sql = QUERIES[q].format(eps=args.eps, mp=args.minpoints, s=label)
            results.setdefault(case, []).append(one(sql, q == "sumx", int(w), n, args.backend))
    print("| query | workers | " + " | ".join(KEYS) + " |")
    print("|---|---|" + "---|" * len(KEYS))
    for case, ms in results.items():
        q, w = case.split(":")
        cells = []
        for k in KEYS:
            vals = [m[k] for m in ms if k in m]
            cells.append("" if not vals else ("%.1f" if k == "B/row" else "%.0f") % statistics.median(vals))
        print("| %s | %s | %s |" % (q, w, " | ".join(cells)))


if __name__ == "__main__":
    main()
