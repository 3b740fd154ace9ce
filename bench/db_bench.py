#!/usr/bin/env python3
"""db_bench.py -- gpu_dbscan inside PostgreSQL, side by side with its floors and ST_ClusterDBSCAN.

Python 3 standard library only; psql is driven through subprocess and the
connection comes from the usual PG* environment variables (PGHOST, PGPORT,
PGUSER, PGDATABASE).  Run it on the database server's host: backend memory is
read from /proc/<pid>/status of the backend serving each query.

For each table (seeded in SQL, unlogged: uniform points in [0,1000]^2, and 50
gaussian blobs with sigma in [10,30] plus 10% uniform noise) it times, each
query consuming the whole window output through max():

  row_number        SELECT max(rn) FROM (SELECT row_number() OVER () rn FROM t) s      once per table
  read floor        SELECT max(r) FROM (SELECT gpu_dbscan_read_floor(geom) OVER () r FROM t) s   once per table
  gpu_dbscan gpu    SELECT max(c) FROM (SELECT gpu_dbscan(geom, eps, mp) OVER () c FROM t) s
                    with gpu_dbscan.backend = gpu (n/a when no GPU is usable)
  gpu_dbscan cpu    the same with gpu_dbscan.backend = cpu
  ST_ClusterDBSCAN  SELECT max(c) FROM (SELECT ST_ClusterDBSCAN(geom, eps, mp) OVER () c FROM t) s,
                    once, on tables up to --postgis-max-size rows

and prints one table of seconds and ratios (gpu / read floor, ST / gpu, cpu /
gpu, ...), then the backend's memory and where gpu_dbscan's time goes.

Each run is a fresh session: settings, a tiny warm-up of the same function
(libraries loaded, CUDA context made), the peak-RSS counter reset through
/proc/<pid>/clear_refs, then the timed query (psql \\timing).  Best of --runs
(--runs-large above 1M rows; one run for ST_ClusterDBSCAN).  Memory is the
backend's peak RSS growth during the query; per row beyond row_number's is
(peak - row_number's peak) / rows.  --check also compares gpu_dbscan's
clusters with ST_ClusterDBSCAN's up to relabelling (same noise rows, a
one-to-one map of ids): it runs ST_ClusterDBSCAN a second time.

  python3 bench/db_bench.py                     # 1M, eps 1, minpoints 10
  python3 bench/db_bench.py --sizes 1M,10M --eps 1,2,5 --runs-large 2 --out db.md
  python3 bench/db_bench.py --crossover ...     # bench/db_crossover.py (gpu_min_rows)
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from db_common import (SESSION_SETTINGS, Budget, Session, SqlError, ensure_table, load_average, log,  # noqa: E402
                       machine_lines, parse_size, proc_status_kb, reset_peak, server_facts,
                       set_statements, size_label)

GD_WARMUP = ("SELECT count(DISTINCT c) FROM (SELECT gpu_dbscan(ST_MakePoint(g, g), 1.5, 2) OVER () c "
             "FROM generate_series(1, 100) g) s")
GD_MAX = "SELECT max(c) FROM (SELECT gpu_dbscan(geom, {eps}, {mp}) OVER () c FROM {t}) s"

# Measured once per table (they do not depend on eps).
TABLE_CONTENDERS = [
    {
        "key": "row_number",
        "label": "row_number",
        "query": "SELECT max(rn) FROM (SELECT row_number() OVER () rn FROM {t}) s",
        "warmup": "SELECT max(rn) FROM (SELECT row_number() OVER () rn FROM generate_series(1, 100) g) s",
    },
    {
        "key": "floor",
        "label": "read floor",
        "query": "SELECT max(r) FROM (SELECT gpu_dbscan_read_floor(geom) OVER () r FROM {t}) s",
        "warmup": "SELECT max(r) FROM (SELECT gpu_dbscan_read_floor(ST_MakePoint(g, g)) OVER () r "
                  "FROM generate_series(1, 100) g) s",
    },
]
# Measured for each eps.
EPS_CONTENDERS = [
    {"key": "gpu", "backend": "gpu", "label": "gpu_dbscan gpu",
     "settings": ["SET gpu_dbscan.backend = gpu"], "query": GD_MAX, "warmup": GD_WARMUP},
    {"key": "cpu", "backend": "cpu", "label": "gpu_dbscan cpu",
     "settings": ["SET gpu_dbscan.backend = cpu"], "query": GD_MAX, "warmup": GD_WARMUP},
    {
        "key": "postgis",
        "label": "ST_ClusterDBSCAN",
        "query": "SELECT max(c) FROM (SELECT ST_ClusterDBSCAN(geom, {eps}, {mp}) OVER () c FROM {t}) s",
        "warmup": "SELECT max(c) FROM (SELECT ST_ClusterDBSCAN(ST_MakePoint(g, g), 1.5, 2) OVER () c "
                  "FROM generate_series(1, 100) g) s",
    },
]

# The columns of gpu_dbscan_last_run() the report shows.
LAST_RUN_FIELDS = ["backend", "cells", "batches", "transfer_ms", "sort_ms", "core_ms", "union_ms",
                   "label_ms", "total_ms"]


def blank():
    return {"s": None, "result": None, "peak_kb": None, "error": None, "last_run": None, "skipped": None}


def measure(contender, table, eps, mp, runs, settings, budget):
    """Best of runs (fewer, but one at least, once the budget is spent):
    {'s': seconds, 'result': value, 'peak_kb': growth, 'error': text, 'last_run': dict}."""
    best = blank()
    peaks = []
    for i in range(runs):
        if i > 0 and budget.over():
            break
        try:
            with Session(SESSION_SETTINGS + settings + contender.get("settings", [])) as s:
                s.run(contender["warmup"])
                before = proc_status_kb(s.pid)
                if before is not None and not reset_peak(s.pid):
                    before = None
                result, sec = s.timed(contender["query"].format(t=table, eps=eps, mp=mp))
                after = proc_status_kb(s.pid) if before is not None else None
                last_run = None
                if contender.get("backend"):
                    try:
                        lr, _ = s.run("SELECT %s FROM gpu_dbscan_last_run()" % ", ".join(LAST_RUN_FIELDS))
                        last_run = dict(zip(LAST_RUN_FIELDS, lr[0])) if lr else None
                    except SqlError:
                        pass
        except SqlError as e:
            best["error"] = str(e)
            return best
        if after is not None:
            peaks.append(after["VmHWM"] - before["VmRSS"])
        if best["s"] is None or sec < best["s"]:
            best.update(s=sec, result=result, last_run=last_run)
    # The largest growth of the runs: memory is a ceiling, not a best case.
    best["peak_kb"] = max(peaks) if peaks else None
    return best


def gpu_usable(settings):
    """(True, "") when gpu_dbscan runs with backend = gpu; else (False, the error)."""
    try:
        with Session(SESSION_SETTINGS + settings + ["SET gpu_dbscan.backend = gpu"]) as s:
            s.run(GD_WARMUP)
        return True, ""
    except SqlError as e:
        return False, str(e)


def backends_of(arg, settings):
    """The back ends --backends names, and why the GPU is left out: auto is
    cpu, and gpu where gpu_dbscan runs with it."""
    if arg != "auto":
        return [b for b in arg.split(",") if b], ""
    ok_gpu, reason = gpu_usable(settings)
    log("GPU backend %s" % ("usable" if ok_gpu else "not usable: " + reason))
    return (["cpu", "gpu"] if ok_gpu else ["cpu"]), reason


def check_against_postgis(table, eps, mp, backends, settings):
    """gpu_dbscan vs ST_ClusterDBSCAN up to relabelling, for each backend; also noise fraction."""
    ref = "gd_bench_ref"
    out = {}
    with Session(SESSION_SETTINGS + settings) as s:
        s.run("SET client_min_messages = warning")
        s.run("DROP TABLE IF EXISTS %s" % ref)
        log("  reference ST_ClusterDBSCAN for the equality check ...")
        s.run("CREATE UNLOGGED TABLE %s AS SELECT id, ST_ClusterDBSCAN(geom, %s, %s) OVER () p FROM %s"
              % (ref, eps, mp, table))
        s.run("CREATE INDEX ON %s (id)" % ref)
        out["noise"] = float(s.value("SELECT avg((p IS NULL)::int) FROM %s" % ref))
        for b in backends:
            s.run("SET gpu_dbscan.backend = %s" % b)
            rows, _ = s.run(
                "SELECT count(*) FILTER (WHERE (g IS NULL) <> (p IS NULL)), "
                "count(DISTINCT g), count(DISTINCT p), count(DISTINCT (g, p)) FILTER (WHERE g IS NOT NULL) "
                "FROM (SELECT id, gpu_dbscan(geom, %s, %s) OVER () g FROM %s) a JOIN %s r USING (id)"
                % (eps, mp, table, ref))
            noise_diff, kg, kp, pairs = (int(v) for v in rows[0])
            if noise_diff == 0 and kg == kp == pairs:
                out[b] = "EQUAL (%d cluster%s)" % (kg, "" if kg == 1 else "s")
            else:
                out[b] = "DIFFERENT (%d noise rows differ; %d vs %d clusters, %d id pairs)" % (
                    noise_diff, kg, kp, pairs)
        s.run("DROP TABLE %s" % ref)
    return out


# ---- report ------------------------------------------------------------------------

def fmt_s(m, absent="—", row=None):
    if row is not None and row.get("skipped") and absent != "n/a":
        return "skipped"
    if m is None:
        return absent
    if m["skipped"]:
        return "skipped"
    if m["error"]:
        return "error"
    return "%.3f" % m["s"]


def ok(m):
    return m is not None and not m["error"] and not m["skipped"] and m["s"] is not None


def ratio(a, b, absent="—"):
    if a is None or b is None:
        return absent
    if not ok(a) or not ok(b) or b["s"] <= 0:
        return "—"
    return "%.2fx" % (a["s"] / b["s"])


def bytes_per_point(m, base, n):
    if not ok(m) or m["peak_kb"] is None:
        return "—"
    if not ok(base) or base["peak_kb"] is None:
        return "%.0f (total)" % (m["peak_kb"] * 1024.0 / n)
    return "%.1f" % ((m["peak_kb"] - base["peak_kb"]) * 1024.0 / n)


def clusters(m):
    """gpu_dbscan's ids are 0..k-1: max() + 1 clusters (0 when every row is noise)."""
    for k in ("gpu", "cpu"):
        if ok(m.get(k)):
            r = m[k]["result"]
            return str(int(r) + 1) if r not in (None, "") else "0"
    return "—"


def report(rows, machine, backends, gpu_reason, args, out):
    w = out.write
    gpu_absent = "n/a" if "gpu" not in backends else "—"
    cpu_absent = "n/a" if "cpu" not in backends else "—"
    w("## db_bench — in PostgreSQL\n\n")
    for line in machine:
        w("- %s\n" % line)
    if "gpu" not in backends:
        w("- gpu_dbscan backend=gpu: n/a (%s)\n" % (gpu_reason or "not asked for"))
    w("- minpoints %d; seconds from psql \\timing, best of %d (%d above 1M rows; ST_ClusterDBSCAN: 1 run, "
      "up to %s rows); row_number and the read floor once per table; every query consumes the whole window "
      "output through max()\n\n" % (args.minpoints, args.runs, args.runs_large or args.runs,
                                    size_label(args.postgis_max_size)))

    w("| data set | rows | eps | row_number s | read floor s | gpu_dbscan gpu s | gpu_dbscan cpu s "
      "| ST_ClusterDBSCAN s | gpu / read floor | cpu / read floor | ST / gpu | ST / cpu | cpu / gpu "
      "| gpu / row_number | clusters |\n")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    for r in rows:
        m = r["m"]
        w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
            r["dataset"], size_label(r["n"]), r["eps"],
            fmt_s(m.get("row_number"), row=r), fmt_s(m.get("floor"), row=r),
            fmt_s(m.get("gpu"), gpu_absent, r), fmt_s(m.get("cpu"), cpu_absent, r),
            fmt_s(m.get("postgis"), row=r if (not args.skip_postgis and r["n"] <= args.postgis_max_size) else None),
            ratio(m.get("gpu"), m.get("floor"), gpu_absent), ratio(m.get("cpu"), m.get("floor"), cpu_absent),
            ratio(m.get("postgis"), m.get("gpu"), gpu_absent), ratio(m.get("postgis"), m.get("cpu"), cpu_absent),
            ratio(m.get("cpu"), m.get("gpu"), gpu_absent), ratio(m.get("gpu"), m.get("row_number"), gpu_absent),
            clusters(m)))
    w("\nx / y is x's seconds over y's (ST / gpu: how many times faster gpu_dbscan on the GPU is than "
      "ST_ClusterDBSCAN; gpu / read floor: 1.00x would be clustering for free). row_number and read floor "
      "are the same table's figures repeated on each eps row.\n")

    w("\nBackend memory: peak RSS growth during the query (VmHWM after, reset through clear_refs "
      "after the warm-up), in bytes per row beyond row_number's (the largest of the runs):\n\n")
    w("| data set | rows | eps | row_number peak MiB | read floor B/row | gpu_dbscan gpu B/row "
      "| gpu_dbscan cpu B/row | ST_ClusterDBSCAN B/row |\n")
    w("|---|---:|---:|---:|---:|---:|---:|---:|\n")
    for r in rows:
        m, n = r["m"], r["n"]
        base = m.get("row_number")
        base_mib = "%.1f" % (base["peak_kb"] / 1024.0) if ok(base) and base["peak_kb"] is not None else "—"
        w("| %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
            r["dataset"], size_label(n), r["eps"], base_mib,
            bytes_per_point(m.get("floor"), base, n),
            bytes_per_point(m.get("gpu"), base, n) if "gpu" in m else gpu_absent,
            bytes_per_point(m.get("cpu"), base, n) if "cpu" in m else cpu_absent,
            bytes_per_point(m.get("postgis"), base, n)))

    checks = [r for r in rows if r.get("check")]
    if checks:
        w("\ngpu_dbscan against ST_ClusterDBSCAN, up to relabelling:\n\n")
        w("| data set | rows | eps | noise | %s |\n" % " | ".join("gpu_dbscan %s" % b for b in backends))
        w("|---|---:|---:|---:|%s\n" % ("---|" * len(backends)))
        for r in checks:
            c = r["check"]
            w("| %s | %s | %s | %.1f%% | %s |\n" % (
                r["dataset"], size_label(r["n"]), r["eps"], 100.0 * c["noise"],
                " | ".join(c.get(b, "—") for b in backends)))

    lasts = [(r, k) for r in rows for k in ("gpu", "cpu") if ok(r["m"].get(k)) and r["m"][k]["last_run"]]
    if lasts:
        w("\nWhere gpu_dbscan's time goes: gpu_dbscan_last_run() of the best run (ms), and the rest "
          "of the query beyond the read floor and the core (query - read floor - core total):\n\n")
        w("| data set | rows | eps | backend | grid cells | batches | transfer | sort | core | union "
          "| label | core total | query | read floor | rest |\n")
        w("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for r, k in lasts:
            lr = r["m"][k]["last_run"]
            floor = r["m"].get("floor")
            q_ms = r["m"][k]["s"] * 1000.0
            f_ms = floor["s"] * 1000.0 if ok(floor) else None

            def ms(v):
                try:
                    return "%.0f" % float(v)
                except (TypeError, ValueError):
                    return "—"
            try:
                rest = "%.0f" % (q_ms - f_ms - float(lr["total_ms"])) if f_ms is not None else "—"
            except (TypeError, ValueError):
                rest = "—"
            w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %s | %s |\n" % (
                r["dataset"], size_label(r["n"]), r["eps"], lr["backend"], lr["cells"], lr["batches"],
                ms(lr["transfer_ms"]), ms(lr["sort_ms"]), ms(lr["core_ms"]), ms(lr["union_ms"]),
                ms(lr["label_ms"]), ms(lr["total_ms"]), q_ms, ms(f_ms), rest))

    errors = [(r, k, v) for r in rows for k, v in r["m"].items() if v and (v["error"] or v["skipped"])]
    errors += [(r, "every query", {"error": None, "skipped": "time budget spent"}) for r in rows if r.get("skipped")]
    if errors:
        w("\nErrors and skipped measurements:\n\n")
        for r, k, v in errors:
            w("- %s %s eps %s %s: %s\n" % (r["dataset"], size_label(r["n"]), r["eps"], k,
                                           v["error"] or v["skipped"]))


def write_reports(rows, db, load_at_start, backends, gpu_reason, args):
    """The report to the --out file (rewritten after every table, so a run cut short keeps
    what it measured); to stdout at the end only."""
    if args.out:
        with open(args.out + ".tmp", "w") as f:
            report(rows, machine_lines(db, load_at_start), backends, gpu_reason, args, f)
        os.replace(args.out + ".tmp", args.out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1M", help="comma list of row counts, e.g. 1M,10M (default 1M)")
    ap.add_argument("--datasets", default="uniform,blobs")
    ap.add_argument("--eps", default="1", help="comma list (default 1; the full set is 1,2,5)")
    ap.add_argument("--minpoints", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3, help="runs per contender, best kept (default 3)")
    ap.add_argument("--runs-large", type=int, default=None,
                    help="runs per contender on tables above 1M rows (default: --runs)")
    ap.add_argument("--backends", default="auto",
                    help="gpu_dbscan backends to time: auto (cpu, and gpu when usable), cpu, gpu, cpu,gpu")
    ap.add_argument("--skip-postgis", "--skip-st", action="store_true", help="no ST_ClusterDBSCAN")
    ap.add_argument("--postgis-max-size", type=parse_size, default=1000000,
                    help="ST_ClusterDBSCAN only on tables up to this many rows (default 1M)")
    ap.add_argument("--check", action="store_true",
                    help="also check gpu_dbscan's clusters against ST_ClusterDBSCAN's (runs it once more)")
    ap.add_argument("--set", action="append", metavar="NAME=VALUE",
                    help="a setting for every measuring session, e.g. --set work_mem=256MB (repeatable)")
    ap.add_argument("--statement-timeout", default="0",
                    help="statement_timeout of the measuring sessions, e.g. 120s (default none): "
                         "a query over it is reported as an error")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds for the whole run: measurements not started by then are skipped "
                         "and the report is printed (default: no limit)")
    ap.add_argument("--seed", default="0.42", help="setseed() value in [-1,1] (default 0.42)")
    ap.add_argument("--regenerate", action="store_true", help="remake the tables even when present")
    ap.add_argument("--out", help="also write the Markdown report to this file (kept up to date as it goes)")
    args = ap.parse_args(argv)

    sizes = [parse_size(s) for s in args.sizes.split(",") if s]
    eps_list = [e.strip() for e in args.eps.split(",") if e.strip()]
    for e in eps_list:
        float(e)
    datasets = [d for d in args.datasets.split(",") if d]
    for d in datasets:
        if d not in ("uniform", "blobs"):
            ap.error("unknown data set %s (uniform, blobs)" % d)
    try:
        settings = set_statements(args.set) + ["SET statement_timeout = '%s'" % args.statement_timeout]
    except argparse.ArgumentTypeError as e:
        ap.error(str(e))
    budget = Budget(args.budget)

    load_at_start = load_average()
    db = server_facts(settings)

    backends, gpu_reason = backends_of(args.backends, settings)

    rows = []
    # Smaller tables first: the most wanted figures are in before a budget runs out.
    for n in sizes:
        runs = args.runs_large if (args.runs_large and n > 1000000) else args.runs
        for dataset in datasets:
            if budget.over():
                log("budget of %.0f s spent: %s %s not measured" % (args.budget, dataset, size_label(n)))
                for eps in eps_list:
                    rows.append({"dataset": dataset, "n": n, "eps": eps, "m": {}, "skipped": True})
                continue
            t = ensure_table("gd_bench_%s_%s" % (dataset, size_label(n).lower()), dataset, n, args.seed,
                             args.regenerate, side="1000", **({"sig_lo": "10", "sig_span": "20"}
                                                              if dataset == "blobs" else {}))
            with Session(SESSION_SETTINGS) as s:
                s.run("SELECT count(*) FROM %s" % t)  # bring it into cache
            per_table = {}
            for c in TABLE_CONTENDERS:
                per_table[c["key"]] = run_one(c, t, None, args.minpoints, runs, settings, budget)
            for eps in eps_list:
                row = {"dataset": dataset, "n": n, "eps": eps, "m": dict(per_table)}
                postgis = not args.skip_postgis and n <= args.postgis_max_size
                for c in EPS_CONTENDERS:
                    if c.get("backend") and c["backend"] not in backends:
                        continue
                    if c["key"] == "postgis" and not postgis:
                        continue
                    row["m"][c["key"]] = run_one(c, t, eps, args.minpoints,
                                                 1 if c["key"] == "postgis" else runs, settings, budget)
                if postgis and args.check and not budget.over():
                    try:
                        row["check"] = check_against_postgis(t, eps, args.minpoints, backends, settings)
                        log("  check: %s" % row["check"])
                    except SqlError as e:
                        row["check"] = {"noise": float("nan"), **{b: "error: " + str(e) for b in backends}}
                rows.append(row)
            write_reports(rows, db, load_at_start, backends, gpu_reason, args)

    write_reports(rows, db, load_at_start, backends, gpu_reason, args)
    report(rows, machine_lines(db, load_at_start), backends, gpu_reason, args, sys.stdout)
    sys.stdout.flush()
    log("db_bench: %.0f s" % budget.elapsed())


def run_one(c, table, eps, mp, runs, settings, budget):
    if budget.over():
        m = blank()
        m["skipped"] = "time budget spent"
        return m
    log("%s%s: %s x%d ..." % (table, "" if eps is None else " eps %s" % eps, c["label"], runs))
    m = measure(c, table, eps, mp, runs, settings, budget)
    log("  %s s%s" % (fmt_s(m), "  " + m["error"] if m["error"] else ""))
    return m


if __name__ == "__main__":
    if "--crossover" in sys.argv[1:]:
        import db_crossover
        db_crossover.main([a for a in sys.argv[1:] if a != "--crossover"])
    else:
        main()
