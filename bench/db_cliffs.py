#!/usr/bin/env python3
"""db_cliffs.py -- the quadratic cliffs of issue 11, gpu_dbscan beside what it must not be slower than.

Python 3 standard library only; the connection comes from the PG* variables
(scripts/pg.sh env).  Tables are made in the current database (unlogged,
gd_cliff_*, remade when their size differs), each query in a fresh session
consumes the whole window output through max(), best of --runs.

  lines       N parallel horizontal lines ST_MakeLine((0, 10 i), (1e7, 10 i)), eps 1, minpoints 2:
              gpu_dbscan against ST_ClusterDBSCAN (issue 11 item 2: 50.4 s against 3.2 s at 300,000)
  lines+polys N/2 such lines and N/2 small squares scattered between them
  diagonals   N diagonal lines of length 100 at random places in [0, 1e5]^2 (boxes larger than eps)
  nested      --nested square rings around one centre, 10 apart: every box contains the
              next, so every pair is a candidate for both (a box index cannot help), eps 1
  dense sweep M points in [0, 0.5]^2, eps 1, minpoints {2, M + 1}: gpu_dbscan_sweep and
              gpu_dbscan_params against two plain gpu_dbscan calls (issue 11 item 3: 26.9 s and
              20.3 s against 0.57 + 0.39 s at 100,000)

  python3 bench/db_cliffs.py                       # 300,000 lines, 100,000 dense points
  python3 bench/db_cliffs.py --lines 100000 --mixes 0 --nested 0 --dense 500000 --runs 1
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from db_common import Session, made_once  # noqa: E402

TABLES = {
    "lines": """CREATE UNLOGGED TABLE {t} AS SELECT i AS id,
                  ST_MakeLine(ST_MakePoint(0, i * 10), ST_MakePoint(1e7, i * 10)) AS geom
                FROM generate_series(1, {n}) i""",
    "mix": """SELECT setseed(0.11);
              CREATE UNLOGGED TABLE {t} AS SELECT i AS id,
                CASE WHEN i % 2 = 0 THEN ST_MakeLine(ST_MakePoint(0, i * 10), ST_MakePoint(1e7, i * 10))
                     ELSE ST_Expand(ST_MakePoint(random() * 1e7, random() * {n} * 10), 2) END AS geom
              FROM generate_series(1, {n}) i""",
    "diagonals": """SELECT setseed(0.12);
              CREATE UNLOGGED TABLE {t} AS SELECT i AS id, ST_MakeLine(ST_MakePoint(x, y), ST_MakePoint(x + 70, y + 70)) AS geom
              FROM (SELECT i, random() * 1e5 AS x, random() * 1e5 AS y FROM generate_series(1, {n}) i) s""",
    "nested": """CREATE UNLOGGED TABLE {t} AS SELECT i AS id,
                ST_ExteriorRing(ST_Expand(ST_MakePoint(0, 0), i * 10)::geometry) AS geom
              FROM generate_series(1, {n}) i""",
    "dense": """SELECT setseed(0.13);
              CREATE UNLOGGED TABLE {t} AS SELECT i AS id, ST_MakePoint(random() * 0.5, random() * 0.5) AS geom
              FROM generate_series(1, {n}) i""",
}

WIN = "SELECT max(c) FROM (SELECT {f}(geom, {eps}, {mp}) OVER () c FROM {t}) s"
SWEEP = "SELECT max(c[1]) FROM (SELECT gpu_dbscan_sweep(geom, {eps}, '{{2,{top}}}') OVER () c FROM {t}) s"
PARAMS = "SELECT array_length(gpu_dbscan_params(geom, '{{{eps}}}', '{{2,{top}}}'), 1) FROM {t}"


def ensure(kind, n):
    t = "gd_cliff_%s_%d" % (kind, n)
    return made_once(t, TABLES[kind].format(t=t, n=n))


def best(sql, runs, settings=("SET gpu_dbscan.backend = cpu",)):
    times = []
    for _ in range(runs):
        with Session(settings) as s:
            s.run("SELECT gpu_dbscan(ST_MakePoint(1, 1), 1, 2) OVER ()")  # library loaded
            times.append(s.timed(sql)[1])
    return min(times)


def row(label, ours, theirs, their_label):
    print("| %-34s | %9.2f | %9.2f | %-26s | %5.2f |" % (label, ours, theirs, their_label, ours / theirs))
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=300000, help="rows of the line cases (default 300000)")
    ap.add_argument("--mixes", type=int, default=100000, help="rows of the other shape mixes (0: skip)")
    ap.add_argument("--nested", type=int, default=5000, help="rings of the nested case (0: skip)")
    ap.add_argument("--dense", type=int, default=100000, help="points of the dense sweep (0: skip)")
    ap.add_argument("--runs", type=int, default=2)
    a = ap.parse_args()

    print("| case | gpu_dbscan s | other s | other | ratio |")
    print("|---|---:|---:|---|---:|")
    cases = [("lines", a.lines, 1, 2)]
    if a.mixes:
        cases += [("mix", a.mixes, 1, 2), ("diagonals", a.mixes, 1, 2)]
    cases += [("nested", a.nested, 1, 2)]
    for kind, n, eps, mp in cases:
        if n <= 0:
            continue
        t = ensure(kind, n)
        ours = best(WIN.format(f="gpu_dbscan", eps=eps, mp=mp, t=t), a.runs)
        theirs = best(WIN.format(f="ST_ClusterDBSCAN", eps=eps, mp=mp, t=t), 1)
        row("%s %d, eps %g, minpoints %d" % (kind, n, eps, mp), ours, theirs, "ST_ClusterDBSCAN")
    if a.dense > 0:
        n = a.dense
        t = ensure("dense", n)
        plain = (best(WIN.format(f="gpu_dbscan", eps=1, mp=2, t=t), a.runs) +
                 best(WIN.format(f="gpu_dbscan", eps=1, mp=n + 1, t=t), a.runs))
        for label, sql in (("gpu_dbscan_sweep", SWEEP), ("gpu_dbscan_params", PARAMS)):
            ours = best(sql.format(eps=1, top=n + 1, t=t), a.runs)
            row("%s dense %d, {2,%d}" % (label, n, n + 1), ours, plain, "gpu_dbscan 2 + gpu_dbscan %d" % (n + 1))


if __name__ == "__main__":
    main()
