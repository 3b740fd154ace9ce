#!/usr/bin/env python3
"""db_sweep.py -- a minpoints sweep inside PostgreSQL against one clustering, side by side.

Python 3 standard library only, on the database server's host, PG* variables
naming a superuser connection (as bench/db_bench.py, whose tables, sessions
and timing it shares).  For each table (uniform points in [0,1000]^2, 50
gaussian blobs plus 10% noise), eps and back end it times, each query
consuming the whole window output through max():

  one call        SELECT max(c) FROM (SELECT gpu_dbscan(geom, eps, M) OVER () c FROM t) s
                  (M the largest value; the fast path, GpuDbscanWindow)
  sweep           SELECT max(c[1]) FROM (SELECT gpu_dbscan_sweep(geom, eps, '{m1,...,M}') OVER () c FROM t) s
                  (the fast path)
  sweep window    the same with gpu_dbscan.fast_path = off (the WindowAgg)
  one window      one call with gpu_dbscan.fast_path = off

and prints one table of seconds and ratios: sweep / one call (the issue's
"16 values within 2x one clustering", as a user runs them), the WindowAgg's
sweep against the fast path's.  Best of --runs, each run a fresh session
with a warm-up of the same function.

  python3 bench/db_sweep.py --sizes 1M,10M --eps 1,2 --backends cpu,gpu --out sweep.md
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from db_common import (SESSION_SETTINGS, Budget, Session, ensure_table, load_average, log,  # noqa: E402
                       machine_lines, parse_size, server_facts, set_statements, size_label)
from db_bench import backends_of, blank, fmt_s, measure, ratio  # noqa: E402

ONE = "SELECT max(c) FROM (SELECT gpu_dbscan(geom, {eps}, {mp}) OVER () c FROM {t}) s"
SWEEP = "SELECT max(c[1]) FROM (SELECT gpu_dbscan_sweep(geom, {eps}, '%s') OVER () c FROM {t}) s"
ONE_WARMUP = ("SELECT max(c) FROM (SELECT gpu_dbscan(ST_MakePoint(g, g), 1.5, 2) OVER () c "
              "FROM generate_series(1, 100) g) s")
SWEEP_WARMUP = ("SELECT max(c[1]) FROM (SELECT gpu_dbscan_sweep(ST_MakePoint(g, g), 1.5, '{2,3}') OVER () c "
                "FROM generate_series(1, 100) g) s")
SLOW = ["SET gpu_dbscan.fast_path = off"]


def contenders(values, backend):
    """The four queries of one back end; values: the sweep's minpoints."""
    sweep = SWEEP % ("{{%s}}" % ",".join(str(v) for v in values))  # str.format later
    on = ["SET gpu_dbscan.backend = %s" % backend]
    return [
        {"key": "one", "label": "one call " + backend, "backend": backend, "settings": on,
         "query": ONE, "warmup": ONE_WARMUP},
        {"key": "sweep", "label": "sweep " + backend, "backend": backend, "settings": on,
         "query": sweep, "warmup": SWEEP_WARMUP},
        {"key": "sweep_window", "label": "sweep window " + backend, "backend": backend,
         "settings": on + SLOW, "query": sweep, "warmup": SWEEP_WARMUP},
        {"key": "one_window", "label": "one call window " + backend, "backend": backend,
         "settings": on + SLOW, "query": ONE, "warmup": ONE_WARMUP},
    ]


def report(rows, machine, values, settings, out):
    w = out.write
    w("## db_sweep — a minpoints sweep in PostgreSQL\n\n")
    for line in machine:
        w("- %s\n" % line)
    if settings:
        w("- then every session: %s\n" % "; ".join(settings))
    w("- sweep over %d values: %s; one call at %d; best of the runs, each a fresh session\n\n"
      % (len(values), ",".join(str(v) for v in values), max(values)))
    w("| data set | rows | eps | backend | one call s | sweep s | **sweep / one** | sweep, WindowAgg s | "
      "WindowAgg / fast | one call, WindowAgg s |\n")
    w("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|\n")
    for r in rows:
        m = r["m"]
        w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
            r["dataset"], size_label(r["n"]), r["eps"], r["backend"], fmt_s(m.get("one")),
            fmt_s(m.get("sweep")), ratio(m.get("sweep"), m.get("one")), fmt_s(m.get("sweep_window")),
            ratio(m.get("sweep_window"), m.get("sweep")), fmt_s(m.get("one_window"))))
    w("\n")
    for r in rows:
        for k, m in r["m"].items():
            if m and m.get("error"):
                w("- %s %s eps %s %s %s: %s\n" % (r["dataset"], size_label(r["n"]), r["eps"], r["backend"],
                                                   k, m["error"]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1M", help="comma list of row counts (default 1M)")
    ap.add_argument("--datasets", default="uniform,blobs")
    ap.add_argument("--eps", default="1", help="comma list (default 1)")
    ap.add_argument("--values", default="2-17", help="the sweep's minpoints: a comma list or lo-hi (default 2-17)")
    ap.add_argument("--backends", default="auto", help="comma list of cpu, gpu; auto: both where the GPU is usable")
    ap.add_argument("--runs", type=int, default=3, help="runs per contender, best kept (default 3)")
    ap.add_argument("--no-window", action="store_true", help="skip the WindowAgg contenders")
    ap.add_argument("--set", action="append", metavar="NAME=VALUE", help="a setting for every session")
    ap.add_argument("--budget", type=float, default=None, help="seconds; later measurements are skipped past it")
    ap.add_argument("--seed", default="0.42", help="setseed() value in [-1,1] (default 0.42)")
    ap.add_argument("--out", help="also write the Markdown report to this file")
    args = ap.parse_args(argv)

    if "-" in args.values:
        lo, hi = (int(v) for v in args.values.split("-"))
        values = list(range(lo, hi + 1))
    else:
        values = [int(v) for v in args.values.split(",") if v]
    sizes = [parse_size(s) for s in args.sizes.split(",") if s]
    eps_list = [e.strip() for e in args.eps.split(",") if e.strip()]
    for e in eps_list:
        float(e)
    datasets = [d for d in args.datasets.split(",") if d]
    settings = set_statements(args.set)
    budget = Budget(args.budget)
    load_at_start = load_average()
    db = server_facts(settings)
    backends, _ = backends_of(args.backends, settings)

    rows = []
    for n in sizes:
        for dataset in datasets:
            t = ensure_table("gd_bench_%s_%s" % (dataset, size_label(n).lower()), dataset, n, args.seed, False,
                             side="1000", **({"sig_lo": "10", "sig_span": "20"} if dataset == "blobs" else {}))
            with Session(SESSION_SETTINGS) as s:
                s.run("SELECT count(*) FROM %s" % t)  # bring it into cache
            for eps in eps_list:
                for backend in backends:
                    row = {"dataset": dataset, "n": n, "eps": eps, "backend": backend, "m": {}}
                    for c in contenders(values, backend):
                        if args.no_window and c["key"].endswith("window"):
                            continue
                        if budget.over():
                            row["m"][c["key"]] = dict(blank(), skipped="time budget spent")
                            continue
                        log("%s eps %s: %s x%d ..." % (t, eps, c["label"], args.runs))
                        row["m"][c["key"]] = m = measure(c, t, eps, max(values), args.runs, settings, budget)
                        log("  %s s%s" % (fmt_s(m), "  " + m["error"] if m["error"] else ""))
                    rows.append(row)
                    if args.out:
                        with open(args.out, "w") as f:
                            report(rows, machine_lines(db, load_at_start), values, settings, f)
    report(rows, machine_lines(db, load_at_start), values, settings, sys.stdout)
    log("db_sweep: %.0f s" % budget.elapsed())


if __name__ == "__main__":
    main()
