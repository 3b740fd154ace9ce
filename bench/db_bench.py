#!/usr/bin/env python3
"""db_bench.py -- gpu_dbscan inside PostgreSQL, side by side with its floors and ST_ClusterDBSCAN.

Python 3 standard library only; psql is driven through subprocess and the
connection comes from the usual PG* environment variables (PGHOST, PGPORT,
PGUSER, PGDATABASE).  Run it on the database server's host: backend memory is
read from /proc/<pid>/status of the backend serving each query.

For each table (seeded in SQL: uniform points in [0,1000]^2, and 50 gaussian
blobs with sigma in [10,30] plus 10% uniform noise) it times, each query
consuming the whole window output:

  row_number        SELECT max(rn) FROM (SELECT row_number() OVER () rn FROM t) s
  read floor        SELECT max(r) FROM (SELECT gpu_dbscan_read_floor(geom) OVER () r FROM t) s
  gpu_dbscan cpu    SELECT max(c) FROM (SELECT gpu_dbscan(geom, eps, mp) OVER () c FROM t) s
                    and SELECT count(DISTINCT c) FROM (... the same ...) s
                    with gpu_dbscan.backend = cpu
  gpu_dbscan gpu    both with gpu_dbscan.backend = gpu (when a GPU is usable)
  ST_ClusterDBSCAN  SELECT count(DISTINCT c) FROM (SELECT ST_ClusterDBSCAN(geom, eps, mp) OVER () c
                    FROM t) s, on tables up to --postgis-max-size rows

Ratios compare queries with the same outer aggregate: gpu_dbscan / read floor
and / row_number the max() ones, ST_ClusterDBSCAN / gpu_dbscan the
count(DISTINCT) ones (count(DISTINCT) sorts every row, which at 10M rows costs
as much as a third of the read floor).

Each run is a fresh session: settings, a tiny warm-up of the same function
(libraries loaded, CUDA context made), the peak-RSS counter reset through
/proc/<pid>/clear_refs, then the timed query (psql \\timing).  Best of --runs
(one run for ST_ClusterDBSCAN).  Memory is the backend's peak RSS growth during
the query; per point beyond row_number's is (peak - row_number's peak) / rows.
Where ST_ClusterDBSCAN runs, gpu_dbscan's clusters are checked equal to it up
to relabelling (same noise rows, and a one-to-one map between the ids).

  python3 bench/db_bench.py                     # 1M, eps 1, minpoints 10
  python3 bench/db_bench.py --sizes 1M,10M --eps 1,2,5 --out results.md
"""

import argparse
import datetime
import os
import platform
import re
import select
import shutil
import subprocess
import sys
import time

MARK = "@@gd_bench_done@@"
# Bump when the SQL generators change: tables with another comment are remade.
GENERATOR_VERSION = "gd_bench tables v1"

UNIFORM_SQL = """
SELECT setseed({seed});
CREATE TABLE {table} AS
  SELECT i AS id, ST_MakePoint(random() * 1000, random() * 1000) AS geom
  FROM generate_series(0, {n} - 1) AS i;
"""

# 50 blob centres and sigmas first, then the rows: every 10th row uniform
# noise, the others a Box-Muller draw around a blob picked at random.
# OFFSET 0 keeps the three random() calls of a row in one subquery level.
BLOBS_SQL = """
SELECT setseed({seed});
CREATE TEMP TABLE gd_bench_blob_centres AS
  SELECT b, random() * 1000 AS cx, random() * 1000 AS cy, 10 + 20 * random() AS sigma
  FROM generate_series(0, 49) AS b;
CREATE TABLE {table} AS
  WITH c AS (
    SELECT array_agg(cx ORDER BY b) AS cx, array_agg(cy ORDER BY b) AS cy,
           array_agg(sigma ORDER BY b) AS sigma
    FROM gd_bench_blob_centres)
  SELECT g.i AS id,
         CASE WHEN g.i % 10 = 0
              THEN ST_MakePoint(g.u1 * 1000, g.u2 * 1000)
              ELSE ST_MakePoint(
                c.cx[g.bi + 1] + c.sigma[g.bi + 1] * sqrt(-2 * ln(1 - g.u1)) * cos(2 * pi() * g.u2),
                c.cy[g.bi + 1] + c.sigma[g.bi + 1] * sqrt(-2 * ln(1 - g.u1)) * sin(2 * pi() * g.u2))
         END AS geom
  FROM (SELECT i, random() AS u1, random() AS u2, floor(random() * 50)::int AS bi
        FROM generate_series(0, {n} - 1) AS i OFFSET 0) AS g
  CROSS JOIN c
  ORDER BY g.i;
DROP TABLE gd_bench_blob_centres;
"""

GENERATORS = {"uniform": UNIFORM_SQL, "blobs": BLOBS_SQL}

# Settings of every session: a deterministic serial scan from block 0, no JIT.
SESSION_SETTINGS = [
    "SET max_parallel_workers_per_gather = 0",
    "SET synchronize_seqscans = off",
    "SET jit = off",
]

# One contender: its query, its warm-up, its settings.  The floors and
# gpu_dbscan are consumed by max() (the same outer aggregate, so their ratios
# compare the window functions alone); gpu_dbscan is timed also as
# count(DISTINCT c), the shape of the ST_ClusterDBSCAN query it is compared with
# (count(DISTINCT) sorts every row: about 0.7 s more at 10M rows, work_mem 4MB).
GD_WARMUP = ("SELECT count(DISTINCT c) FROM (SELECT gpu_dbscan(ST_MakePoint(g, g), 1.5, 2) OVER () c "
             "FROM generate_series(1, 100) g) s")
GD_MAX = "SELECT max(c) FROM (SELECT gpu_dbscan(geom, {eps}, {mp}) OVER () c FROM {t}) s"
GD_DISTINCT = "SELECT count(DISTINCT c) FROM (SELECT gpu_dbscan(geom, {eps}, {mp}) OVER () c FROM {t}) s"
CONTENDERS = [
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
    {"key": "cpu", "backend": "cpu", "label": "gpu_dbscan cpu, max()",
     "settings": ["SET gpu_dbscan.backend = cpu"], "query": GD_MAX, "warmup": GD_WARMUP},
    {"key": "cpu_d", "backend": "cpu", "label": "gpu_dbscan cpu, count(DISTINCT)",
     "settings": ["SET gpu_dbscan.backend = cpu"], "query": GD_DISTINCT, "warmup": GD_WARMUP},
    {"key": "gpu", "backend": "gpu", "label": "gpu_dbscan gpu, max()",
     "settings": ["SET gpu_dbscan.backend = gpu"], "query": GD_MAX, "warmup": GD_WARMUP},
    {"key": "gpu_d", "backend": "gpu", "label": "gpu_dbscan gpu, count(DISTINCT)",
     "settings": ["SET gpu_dbscan.backend = gpu"], "query": GD_DISTINCT, "warmup": GD_WARMUP},
    {
        "key": "postgis",
        "label": "ST_ClusterDBSCAN",
        "query": "SELECT count(DISTINCT c) FROM (SELECT ST_ClusterDBSCAN(geom, {eps}, {mp}) OVER () c FROM {t}) s",
        "warmup": "SELECT count(DISTINCT c) FROM (SELECT ST_ClusterDBSCAN(ST_MakePoint(g, g), 1.5, 2) OVER () c "
                  "FROM generate_series(1, 100) g) s",
    },
]


# The columns of gpu_dbscan_last_run() the report shows.
LAST_RUN_FIELDS = ["backend", "cells", "batches", "transfer_ms", "sort_ms", "core_ms", "union_ms",
                   "label_ms", "total_ms"]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class SqlError(Exception):
    pass


class Session:
    """One psql process, hence one backend; statements go in through a pipe."""

    def __init__(self, extra_args=()):
        self.proc = subprocess.Popen(
            ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=0", *extra_args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, bufsize=1)
        self.pid = int(self.value("SELECT pg_backend_pid()"))

    def run(self, sql, timed=False):
        """Runs sql (one or more statements); returns (result lines, milliseconds or None)."""
        script = ""
        if timed:
            script += "\\timing on\n"
        script += sql.rstrip().rstrip(";") + ";\n"
        if timed:
            script += "\\timing off\n"
        script += "\\echo " + MARK + "\n"
        try:
            self.proc.stdin.write(script)
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise SqlError("psql exited")
        lines, errors, ms = [], [], None
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                raise SqlError("psql exited: " + " ".join(errors or lines[-5:]))
            line = line.rstrip("\n")
            if line == MARK:
                break
            m = re.match(r"^Time: ([0-9.]+) ms", line)
            if m:
                ms = float(m.group(1))
            elif "ERROR:" in line or "FATAL:" in line:
                errors.append(line)
            elif errors and line.startswith(("DETAIL:", "HINT:", "CONTEXT:", "LINE ")):
                errors.append(line)
            elif line:
                lines.append(line)
        if errors:
            raise SqlError(" ".join(errors))
        return [l.split("|") for l in lines], ms

    def value(self, sql):
        rows, _ = self.run(sql)
        return rows[-1][0] if rows else None

    def close(self):
        try:
            self.proc.stdin.write("\\q\n")
            self.proc.stdin.flush()
            self.proc.stdin.close()
        except (BrokenPipeError, ValueError):
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---- the backend's memory ----------------------------------------------------

def proc_status_kb(pid):
    """VmRSS and VmHWM of a local process in kB, or None when /proc can't tell."""
    try:
        with open("/proc/%d/status" % pid) as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        return {k: int(fields[k].split()[0]) for k in ("VmRSS", "VmHWM")}
    except (OSError, KeyError, ValueError):
        return None


def reset_peak(pid):
    """Resets VmHWM to the current RSS (Linux clear_refs 5); False when not allowed."""
    try:
        with open("/proc/%d/clear_refs" % pid, "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


# ---- machine and versions -----------------------------------------------------

def load_average():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def machine_lines(db, load_at_start):
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = "unknown"
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal"):
                    mem = "%.0f GiB" % (int(line.split()[1]) / 1048576)
    except OSError:
        pass
    gpu = "none found (nvidia-smi)"
    if shutil.which("nvidia-smi"):
        try:
            out = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version",
                                  "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
            if out.returncode == 0 and out.stdout.strip():
                gpu = out.stdout.strip().splitlines()[0]
        except (OSError, subprocess.SubprocessError):
            pass
    return [
        "date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "host: %s, Linux %s" % (platform.node(), platform.release()),
        "CPU: %s, %d hardware threads; memory %s" % (model, os.cpu_count() or 0, mem),
        "GPU: %s" % gpu,
        "load average (1, 5, 15 min) at start: %s; at the end: %s" % (load_at_start, load_average()),
        "server: %s" % db["version"],
        "PostGIS %s; gpu_dbscan %s" % (db["postgis"], db["gpu_dbscan"]),
        "settings: shared_buffers %s, work_mem %s; sessions run with jit off, "
        "max_parallel_workers_per_gather 0, synchronize_seqscans off" % (db["shared_buffers"], db["work_mem"]),
    ]


# ---- tables --------------------------------------------------------------------

def parse_size(s):
    m = re.fullmatch(r"([0-9.]+)([kKmM]?)", s.strip())
    if not m:
        raise argparse.ArgumentTypeError("bad size: " + s)
    mult = {"": 1, "k": 1000, "K": 1000, "m": 1000000, "M": 1000000}[m.group(2)]
    return int(float(m.group(1)) * mult)


def size_label(n):
    if n % 1000000 == 0:
        return "%dM" % (n // 1000000)
    if n % 1000 == 0:
        return "%dk" % (n // 1000)
    return str(n)


def table_name(dataset, n):
    return "gd_bench_%s_%s" % (dataset, size_label(n).lower())


def ensure_table(dataset, n, seed, regenerate):
    """Creates the table unless it is there with the same generator and size."""
    t = table_name(dataset, n)
    want = "%s %s n=%d seed=%s" % (GENERATOR_VERSION, dataset, n, seed)
    with Session() as s:
        s.run(";\n".join(SESSION_SETTINGS))
        have = s.value("SELECT obj_description(to_regclass('%s'), 'pg_class')" % t)
        if have == want and not regenerate:
            log("table %s is there" % t)
            return t
        log("generating %s (%d rows) ..." % (t, n))
        t0 = time.time()
        s.run("DROP TABLE IF EXISTS %s" % t)
        s.run(GENERATORS[dataset].format(table=t, n=n, seed=seed))
        s.run("VACUUM (FREEZE, ANALYZE) %s" % t)
        s.run("COMMENT ON TABLE %s IS '%s'" % (t, want))
        log("  %.0f s" % (time.time() - t0))
    return t


# ---- measurements ----------------------------------------------------------------

def measure(contender, table, eps, mp, runs):
    """Best of runs: {'s': seconds, 'result': value, 'peak_kb': growth, 'error': text, 'last_run': text}."""
    best = {"s": None, "result": None, "peak_kb": None, "error": None, "last_run": None}
    peaks = []
    for _ in range(runs):
        try:
            with Session() as s:
                s.run(";\n".join(SESSION_SETTINGS + contender.get("settings", [])))
                s.run(contender["warmup"])
                before = proc_status_kb(s.pid)
                if before is not None and not reset_peak(s.pid):
                    before = None
                rows, ms = s.run(contender["query"].format(t=table, eps=eps, mp=mp), timed=True)
                after = proc_status_kb(s.pid) if before is not None else None
                last_run = None
                if contender["key"] in ("cpu", "gpu"):  # the max() runs
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
        sec = ms / 1000.0
        if best["s"] is None or sec < best["s"]:
            best.update(s=sec, result=rows[0][0] if rows else None, last_run=last_run)
    # The largest growth of the runs: memory is a ceiling, not a best case.
    best["peak_kb"] = max(peaks) if peaks else None
    return best


def gpu_usable():
    """True when gpu_dbscan runs with backend = gpu; else False and the reason."""
    c = next(c for c in CONTENDERS if c["key"] == "gpu")
    try:
        with Session() as s:
            s.run(";\n".join(SESSION_SETTINGS + c["settings"]))
            s.run(c["warmup"])
        return True, ""
    except SqlError as e:
        return False, str(e)


def check_against_postgis(table, eps, mp, backends):
    """gpu_dbscan vs ST_ClusterDBSCAN up to relabelling, for each backend; also noise fraction."""
    ref = "gd_bench_ref"
    out = {}
    with Session() as s:
        s.run(";\n".join(SESSION_SETTINGS))
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

def fmt_s(m):
    if m is None:
        return "—"
    if m["error"]:
        return "error"
    return "%.3f" % m["s"]


def ratio(a, b):
    if not a or not b or a["error"] or b["error"] or a["s"] is None or b["s"] is None or b["s"] <= 0:
        return "—"
    return "%.2fx" % (a["s"] / b["s"])


def bytes_per_point(m, base, n):
    if m is None or m["error"] or m["peak_kb"] is None:
        return "—"
    if base is None or base["peak_kb"] is None:
        return "%.0f (total)" % (m["peak_kb"] * 1024.0 / n)
    return "%.1f" % ((m["peak_kb"] - base["peak_kb"]) * 1024.0 / n)


def report(rows, machine, backends, gpu_reason, mp, runs, out):
    w = out.write
    w("## db_bench — in PostgreSQL\n\n")
    for line in machine:
        w("- %s\n" % line)
    if "gpu" not in backends:
        w("- gpu_dbscan backend=gpu: not run (%s)\n" % (gpu_reason or "not asked for"))
    w("- minpoints %d; seconds from psql \\timing, best of %d (ST_ClusterDBSCAN: 1 run); "
      "every query consumes the whole window output\n\n" % (mp, runs))

    w("Seconds:\n\n")
    w("| data set | rows | eps | row_number | read floor | gpu_dbscan cpu | gpu_dbscan gpu "
      "| gpu_dbscan cpu, count(DISTINCT) | gpu_dbscan gpu, count(DISTINCT) | ST_ClusterDBSCAN, count(DISTINCT) "
      "| clusters |\n")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    for r in rows:
        m = r["m"]
        clusters = next((m[k]["result"] for k in ("cpu_d", "gpu_d", "postgis")
                         if m.get(k) and not m[k]["error"]), "—")
        w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
            r["dataset"], size_label(r["n"]), r["eps"],
            fmt_s(m.get("row_number")), fmt_s(m.get("floor")), fmt_s(m.get("cpu")), fmt_s(m.get("gpu")),
            fmt_s(m.get("cpu_d")), fmt_s(m.get("gpu_d")), fmt_s(m.get("postgis")), clusters))

    w("\nRatios (each between queries with the same outer aggregate):\n\n")
    w("| data set | rows | eps | cpu / read floor | gpu / read floor | ST / cpu | ST / gpu "
      "| cpu / row_number | gpu / row_number | cpu / gpu |\n")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    for r in rows:
        m = r["m"]
        w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
            r["dataset"], size_label(r["n"]), r["eps"],
            ratio(m.get("cpu"), m.get("floor")), ratio(m.get("gpu"), m.get("floor")),
            ratio(m.get("postgis"), m.get("cpu_d")), ratio(m.get("postgis"), m.get("gpu_d")),
            ratio(m.get("cpu"), m.get("row_number")), ratio(m.get("gpu"), m.get("row_number")),
            ratio(m.get("cpu"), m.get("gpu"))))
    w("\nrow_number, read floor and gpu_dbscan are consumed by max(); ST_ClusterDBSCAN and the "
      "count(DISTINCT) columns by count(DISTINCT c), which also sorts every row. ST / cpu and ST / gpu "
      "compare the count(DISTINCT) queries; the other ratios the max() queries.\n")

    w("\nBackend memory: peak RSS growth during the query (VmHWM after, reset through clear_refs "
      "after the warm-up), in bytes per row beyond row_number's (the largest of the runs; "
      "max() queries but ST_ClusterDBSCAN's):\n\n")
    w("| data set | rows | eps | row_number peak MiB | read floor B/row | gpu_dbscan cpu B/row "
      "| gpu_dbscan gpu B/row | ST_ClusterDBSCAN B/row (count(DISTINCT)) |\n")
    w("|---|---:|---:|---:|---:|---:|---:|---:|\n")
    for r in rows:
        m, n = r["m"], r["n"]
        base = m.get("row_number")
        base_mib = "%.1f" % (base["peak_kb"] / 1024.0) if base and base["peak_kb"] is not None else "—"
        w("| %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
            r["dataset"], size_label(n), r["eps"], base_mib,
            bytes_per_point(m.get("floor"), base, n), bytes_per_point(m.get("cpu"), base, n),
            bytes_per_point(m.get("gpu"), base, n), bytes_per_point(m.get("postgis"), base, n)))

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

    lasts = [(r, k) for r in rows for k in backends if r["m"].get(k) and r["m"][k]["last_run"]]
    if lasts:
        w("\nWhere gpu_dbscan's time goes: gpu_dbscan_last_run() of the best max() run (ms), and the rest "
          "of the query beyond the read floor and the core (query - read floor - core total):\n\n")
        w("| data set | rows | eps | backend | grid cells | batches | transfer | sort | core | union "
          "| label | core total | query | read floor | rest |\n")
        w("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for r, k in lasts:
            lr = r["m"][k]["last_run"]
            floor = r["m"].get("floor")
            q_ms = r["m"][k]["s"] * 1000.0
            f_ms = floor["s"] * 1000.0 if floor and not floor["error"] else None

            def ms(v):
                try:
                    return "%.0f" % float(v)
                except (TypeError, ValueError):
                    return "—"
            rest = "%.0f" % (q_ms - f_ms - float(lr["total_ms"])) if f_ms is not None else "—"
            w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %s | %s |\n" % (
                r["dataset"], size_label(r["n"]), r["eps"], lr["backend"], lr["cells"], lr["batches"],
                ms(lr["transfer_ms"]), ms(lr["sort_ms"]), ms(lr["core_ms"]), ms(lr["union_ms"]),
                ms(lr["label_ms"]), ms(lr["total_ms"]), q_ms, ms(f_ms), rest))

    errors = [(r, k, v["error"]) for r in rows for k, v in r["m"].items() if v and v["error"]]
    if errors:
        w("\nErrors:\n\n")
        for r, k, e in errors:
            w("- %s %s eps %s %s: %s\n" % (r["dataset"], size_label(r["n"]), r["eps"], k, e))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1M", help="comma list of row counts, e.g. 1M,10M (default 1M)")
    ap.add_argument("--datasets", default="uniform,blobs")
    ap.add_argument("--eps", default="1", help="comma list (default 1; the full set is 1,2,5)")
    ap.add_argument("--minpoints", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3, help="runs per contender, best kept (default 3)")
    ap.add_argument("--backends", default="auto",
                    help="gpu_dbscan backends to time: auto (cpu, and gpu when usable), cpu, gpu, cpu,gpu")
    ap.add_argument("--skip-postgis", action="store_true", help="no ST_ClusterDBSCAN and no equality check")
    ap.add_argument("--postgis-max-size", type=parse_size, default=1000000,
                    help="ST_ClusterDBSCAN only on tables up to this many rows (default 1M)")
    ap.add_argument("--no-check", action="store_true", help="time ST_ClusterDBSCAN but skip the equality check")
    ap.add_argument("--seed", default="0.42", help="setseed() value in [-1,1] (default 0.42)")
    ap.add_argument("--regenerate", action="store_true", help="remake the tables even when present")
    ap.add_argument("--out", help="also write the Markdown report to this file")
    args = ap.parse_args()

    sizes = [parse_size(s) for s in args.sizes.split(",") if s]
    eps_list = [e.strip() for e in args.eps.split(",") if e.strip()]
    for e in eps_list:
        float(e)
    datasets = [d for d in args.datasets.split(",") if d]
    for d in datasets:
        if d not in GENERATORS:
            ap.error("unknown data set %s (uniform, blobs)" % d)

    load_at_start = load_average()
    with Session() as s:
        s.run("CREATE EXTENSION IF NOT EXISTS postgis")
        try:
            s.run("CREATE EXTENSION IF NOT EXISTS gpu_dbscan")
        except SqlError as e:
            log("gpu_dbscan is not installed: %s" % e)
        db = {
            "version": s.value("SELECT version()"),
            "postgis": s.value("SELECT postgis_lib_version()"),
            "gpu_dbscan": s.value("SELECT extversion FROM pg_extension WHERE extname = 'gpu_dbscan'"),
            "shared_buffers": s.value("SHOW shared_buffers"),
            "work_mem": s.value("SHOW work_mem"),
        }

    gpu_reason = ""
    if args.backends == "auto":
        ok, gpu_reason = gpu_usable()
        backends = ["cpu", "gpu"] if ok else ["cpu"]
        log("GPU backend %s" % ("usable" if ok else "not usable: " + gpu_reason))
    else:
        backends = [b for b in args.backends.split(",") if b]

    rows = []
    for dataset in datasets:
        for n in sizes:
            t = ensure_table(dataset, n, args.seed, args.regenerate)
            with Session() as s:
                s.run(";\n".join(SESSION_SETTINGS))
                s.run("SELECT count(*) FROM %s" % t)  # bring it into cache
            for eps in eps_list:
                row = {"dataset": dataset, "n": n, "eps": eps, "m": {}}
                postgis = not args.skip_postgis and n <= args.postgis_max_size
                for c in CONTENDERS:
                    k = c["key"]
                    if c.get("backend") and c["backend"] not in backends:
                        continue
                    if k == "postgis" and not postgis:
                        continue
                    runs = 1 if k == "postgis" else args.runs
                    log("%s eps %s: %s x%d ..." % (t, eps, c["label"], runs))
                    row["m"][k] = measure(c, t, eps, args.minpoints, runs)
                    m = row["m"][k]
                    log("  %s s%s" % (fmt_s(m), "  " + m["error"] if m["error"] else ""))
                if postgis and not args.no_check:
                    try:
                        row["check"] = check_against_postgis(t, eps, args.minpoints, backends)
                        log("  check: %s" % row["check"])
                    except SqlError as e:
                        row["check"] = {"noise": float("nan"), **{b: "error: " + str(e) for b in backends}}
                rows.append(row)

    outputs = [sys.stdout]
    if args.out:
        outputs.append(open(args.out, "w"))
    for o in outputs:
        report(rows, machine_lines(db, load_at_start), backends, gpu_reason, args.minpoints, args.runs, o)
        o.flush()
    if args.out:
        outputs[1].close()


if __name__ == "__main__":
    main()
