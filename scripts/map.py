#!/usr/bin/python3
"""scripts/map.py: draws the DBSCAN clusters of a table of points to a PNG or SVG.

    scripts/map.py [--dsn DSN] [--table T] [--geom COL] [--order COL]
                   [--eps E] [--minpoints M] [--where COND] [--cid COL]
                   [--title TEXT] [--size WxH] [--out FILE]

Each row is drawn at its point (x, y of the geometry; the point on the surface
of a line or polygon); noise in grey, each cluster in its own colour (a fixed
colour per cluster id, from a 20-colour palette, so neighbouring clusters
usually differ).  The ids come from gpu_dbscan(geom, eps, minpoints) OVER
(ORDER BY order) run by this script, or, with --cid, from a column that holds
them already (NULL for noise), e.g. one a scheduled job writes.

The default is the demo: all 199,568 GeoNames cities of the demo database,
eps 0.1 degrees, minpoints 5 (docs/cities-clusters.png).  The database is the
one psql reaches with DSN (a connection string or a database name) and the
usual PG* environment; for the throwaway server of scripts/setup.sh:
    eval "$(scripts/pg.sh env)"; scripts/map.py --out clusters.png
Your own table:
    scripts/map.py --dsn mydb --table places --geom location --order place_id \\
                   --eps 500 --minpoints 10 --out places.svg
Needs psql and Debian's python3-matplotlib (apt-get install python3-matplotlib).
"""
import argparse
import csv
import io
import os
import subprocess
import sys

PALETTE = 20


def ident(name):
    """A SQL identifier, possibly schema-qualified, quoted part by part."""
    return ".".join('"' + p.replace('"', '""') + '"' for p in name.split("."))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dsn", default=os.environ.get("PGDATABASE", "gpu_dbscan_demo"),
                    help="database name or connection string for psql (default: the demo database)")
    ap.add_argument("--table", default="cities")
    ap.add_argument("--geom", default="geom", help="geometry column (default geom)")
    ap.add_argument("--order", default="id", help="column that orders the rows (default id)")
    ap.add_argument("--eps", type=float, default=0.1)
    ap.add_argument("--minpoints", type=int, default=5)
    ap.add_argument("--where", default=None, help="SQL condition on the rows")
    ap.add_argument("--cid", default=None, help="column holding cluster ids already (skips the clustering)")
    ap.add_argument("--title", default=None)
    ap.add_argument("--size", default="1200x620", help="image size in pixels (default 1200x620)")
    ap.add_argument("--out", default="clusters.png", help="output file, .png or .svg")
    ap.add_argument("--psql", default=os.environ.get("GD_PSQL", "psql"))
    a = ap.parse_args()

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("map.py: needs matplotlib (apt-get install python3-matplotlib, run with /usr/bin/python3)")

    g = ident(a.geom)
    pt = f"CASE WHEN GeometryType({g}) = 'POINT' THEN {g} ELSE ST_PointOnSurface({g}) END"
    cid = ident(a.cid) if a.cid else \
        f"gpu_dbscan({g}, {a.eps!r}, {a.minpoints}) OVER (ORDER BY {ident(a.order)})"
    where = f"WHERE {a.where}" if a.where else ""
    sql = (f"COPY (SELECT ST_X(p), ST_Y(p), cid FROM (SELECT {pt} AS p, {cid} AS cid "
           f"FROM {ident(a.table)} {where}) s WHERE p IS NOT NULL AND NOT ST_IsEmpty(p)) TO STDOUT WITH (FORMAT csv)")
    run = subprocess.run([a.psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", a.dsn, "-c", sql],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("map.py: psql failed: " + run.stderr.strip())

    xs, ys, cs, nx, ny = [], [], [], [], []
    for x, y, c in csv.reader(io.StringIO(run.stdout)):
        if c == "":
            nx.append(float(x)); ny.append(float(y))
        else:
            xs.append(float(x)); ys.append(float(y)); cs.append(int(c) % PALETTE)
    clusters = len(set(int(c) for _, _, c in csv.reader(io.StringIO(run.stdout)) if c != ""))
    n = len(xs) + len(nx)
    if n == 0:
        sys.exit("map.py: no rows with a geometry")

    w, h = (int(v) for v in a.size.lower().split("x"))
    dpi = 100
    fig = plt.figure(figsize=(w / dpi, h / dpi), dpi=dpi)
    ax = fig.add_axes([0.01, 0.01, 0.98, 0.92])
    ax.set_axis_off()
    dot = max(0.05, min(4.0, 40000.0 / n))
    ax.scatter(nx, ny, s=dot, c="#b8b8b8", linewidths=0, rasterized=True)
    ax.scatter(xs, ys, s=dot * 1.6, c=cs, cmap="tab20", vmin=0, vmax=PALETTE - 1, linewidths=0,
               rasterized=True)
    ax.set_aspect("equal", adjustable="datalim")
    title = a.title or (f"{a.table}: {n:,} rows, "
                        + (f"ids from {a.cid}" if a.cid else f"gpu_dbscan({a.geom}, {a.eps:g}, {a.minpoints})")
                        + f": {clusters:,} clusters, {len(nx):,} noise (grey)")
    fig.suptitle(title, fontsize=11)
    fig.savefig(a.out, dpi=dpi)
    print(f"map.py: {a.out}: {n:,} rows, {clusters:,} clusters, {len(nx):,} noise")


if __name__ == "__main__":
    main()
