"""db_common.py -- what db_bench.py and db_crossover.py share: psql sessions,
the backend's memory, the machine's description, sizes, the SQL-seeded tables
and a time budget.  Python 3 standard library only."""

import argparse
import datetime
import os
import platform
import re
import shutil
import subprocess
import sys
import time

MARK = "@@gd_bench_done@@"
# Bump when the SQL generators change: tables with another comment are remade.
# v2: unlogged tables (no WAL while loading), side and sigma as parameters.
GENERATOR_VERSION = "gd_bench tables v2"

# Points uniform in [0,side]^2.
UNIFORM_SQL = """
SELECT setseed({seed});
CREATE UNLOGGED TABLE {table} AS
  SELECT i AS id, ST_MakePoint(random() * {side}, random() * {side}) AS geom
  FROM generate_series(0, {n} - 1) AS i;
"""

# 50 blob centres and sigmas first, then the rows: every 10th row uniform
# noise, the others a Box-Muller draw around a blob picked at random.
# OFFSET 0 keeps the three random() calls of a row in one subquery level.
# side 1000 with sigma 10 + 20 * random() is the benchmark's data set; the
# crossover scales all three by the same factor (same law, fewer points).
BLOBS_SQL = """
SELECT setseed({seed});
CREATE TEMP TABLE gd_bench_blob_centres AS
  SELECT b, random() * {side} AS cx, random() * {side} AS cy, {sig_lo} + {sig_span} * random() AS sigma
  FROM generate_series(0, 49) AS b;
CREATE UNLOGGED TABLE {table} AS
  WITH c AS (
    SELECT array_agg(cx ORDER BY b) AS cx, array_agg(cy ORDER BY b) AS cy,
           array_agg(sigma ORDER BY b) AS sigma
    FROM gd_bench_blob_centres)
  SELECT g.i AS id,
         CASE WHEN g.i % 10 = 0
              THEN ST_MakePoint(g.u1 * {side}, g.u2 * {side})
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

# {n} rows in partitions of {m}: each partition uniform in [0,side]^2, rows
# stored partition after partition.
PARTS_SQL = """
SELECT setseed({seed});
CREATE UNLOGGED TABLE {table} AS
  SELECT i AS id, i / {m} AS part, ST_MakePoint(random() * {side}, random() * {side}) AS geom
  FROM generate_series(0, {n} - 1) AS i;
"""

# float8[] (or geography) points (column p): {coords} is the value's
# expression, e.g. ARRAY[random() * 1000, random() * 1000, random()]::float8[];
# in partitions of {m} rows (column part) for parts_array.
UNIFORM_ARRAY_SQL = """
SELECT setseed({seed});
CREATE UNLOGGED TABLE {table} AS
  SELECT i AS id, {coords} AS p
  FROM generate_series(0, {n} - 1) AS i;
"""
PARTS_ARRAY_SQL = """
SELECT setseed({seed});
CREATE UNLOGGED TABLE {table} AS
  SELECT i AS id, i / {m} AS part, {coords} AS p
  FROM generate_series(0, {n} - 1) AS i;
"""

GENERATORS = {"uniform": UNIFORM_SQL, "blobs": BLOBS_SQL, "parts": PARTS_SQL,
              "uniform_array": UNIFORM_ARRAY_SQL, "parts_array": PARTS_ARRAY_SQL}

# Settings of every session: a deterministic serial scan from block 0, no JIT.
SESSION_SETTINGS = [
    "SET max_parallel_workers_per_gather = 0",
    "SET synchronize_seqscans = off",
    "SET jit = off",
]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class SqlError(Exception):
    pass


class Session:
    """One psql process, hence one backend; statements go in through a pipe."""

    def __init__(self, settings=()):
        self.proc = subprocess.Popen(
            ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, bufsize=1)
        try:
            self.pid = int(self.value("SELECT pg_backend_pid()"))
            if settings:
                self.run(";\n".join(settings))
        except (SqlError, TypeError, ValueError):
            self.close()
            raise

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
        except (BrokenPipeError, ValueError):
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

    def timed(self, sql):
        """(first column of the last row, seconds) of one timed statement."""
        rows, ms = self.run(sql, timed=True)
        if ms is None:
            raise SqlError("no timing from psql")
        return (rows[-1][0] if rows else None), ms / 1000.0

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


class Budget:
    """Wall-clock budget of a whole run: what does not start before it ends is skipped,
    so that a bounded machine still gets the report of what was measured."""

    def __init__(self, seconds):
        self.t0 = time.time()
        self.seconds = seconds

    def elapsed(self):
        return time.time() - self.t0

    def over(self):
        return self.seconds is not None and self.elapsed() > self.seconds


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


def server_facts(extra_settings):
    """Versions and the settings the measuring sessions run with; creates the extensions."""
    with Session() as s:
        s.run("SET client_min_messages = warning")
        s.run("CREATE EXTENSION IF NOT EXISTS postgis")
        try:
            s.run("CREATE EXTENSION IF NOT EXISTS gpu_dbscan")
        except SqlError as e:
            log("gpu_dbscan is not installed: %s" % e)
        s.run(";\n".join(SESSION_SETTINGS + extra_settings))
        try:  # loads the library, which defines the gpu_dbscan.* settings
            s.run("SELECT gpu_dbscan_read_floor(ST_MakePoint(1, 1)) OVER ()")
        except SqlError:
            pass
        return {
            "version": s.value("SELECT version()"),
            "postgis": s.value("SELECT postgis_lib_version()"),
            "gpu_dbscan": s.value("SELECT extversion FROM pg_extension WHERE extname = 'gpu_dbscan'"),
            "shared_buffers": s.value("SHOW shared_buffers"),
            "work_mem": s.value("SHOW work_mem"),
            "gpu_min_rows": s.value("SELECT current_setting('gpu_dbscan.gpu_min_rows', true)"),
            "threads": s.value("SELECT current_setting('gpu_dbscan.threads', true)"),
        }


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
        "PostGIS %s; gpu_dbscan %s (gpu_dbscan.threads %s, gpu_min_rows %s)" % (
            db["postgis"], db["gpu_dbscan"], db["threads"], db["gpu_min_rows"]),
        "settings: shared_buffers %s, work_mem %s; sessions run with jit off, "
        "max_parallel_workers_per_gather 0, synchronize_seqscans off" % (db["shared_buffers"], db["work_mem"]),
    ]


def set_statements(pairs):
    """SET statements from NAME=VALUE strings (--set)."""
    out = []
    for p in pairs or []:
        if "=" not in p:
            raise argparse.ArgumentTypeError("--set wants NAME=VALUE: " + p)
        name, value = p.split("=", 1)
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name):
            raise argparse.ArgumentTypeError("bad setting name: " + name)
        out.append("SET %s = '%s'" % (name, value.replace("'", "''")))
    return out


# ---- sizes and tables --------------------------------------------------------------

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


def made_once(table, create_sql):
    """table, made by create_sql (which names it) unless it is there already, then analyzed."""
    with Session() as s:
        if s.value("SELECT to_regclass('%s') IS NOT NULL" % table) == "t":
            return table
        log("making %s" % table)
        s.run(create_sql)
        s.run("ANALYZE " + table)
    return table


def ensure_table(table, generator, n, seed, regenerate, **params):
    """Creates table unless it is there with the same generator, parameters and row count.

    The tables are unlogged (loading writes no WAL), so a crash empties them:
    the row count is checked as well as the comment."""
    sql = GENERATORS[generator].format(table=table, n=n, seed=seed, **params)
    want = "%s %s n=%d seed=%s %s" % (GENERATOR_VERSION, generator, n, seed,
                                      " ".join("%s=%s" % kv for kv in sorted(params.items())))
    with Session(SESSION_SETTINGS) as s:
        s.run("SET client_min_messages = warning")
        have = s.value("SELECT obj_description(to_regclass('%s'), 'pg_class')" % table)
        if have == want and not regenerate and int(s.value("SELECT count(*) FROM %s" % table)) == n:
            log("table %s is there" % table)
            return table
        log("generating %s (%d rows) ..." % (table, n))
        t0 = time.time()
        s.run("DROP TABLE IF EXISTS %s" % table)
        s.run(sql)
        s.run("VACUUM (FREEZE, ANALYZE) %s" % table)
        s.run("COMMENT ON TABLE %s IS '%s'" % (table, want))
        log("  %.1f s" % (time.time() - t0))
    return table
