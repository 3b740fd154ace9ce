#!/usr/bin/env python3
"""bench/citus_scale.py -- the tiling of gpu_dbscan_distributed, simulated.

Plans the tiles exactly as the procedure does (gpu_dbscan--0.2.sql: a base
grid of about tile_points points per cell, a dense cell split into 4^d
sub-tiles, no side below 4 margins, margin = 2 eps) and assigns owners and
ghost copies as gpu_dbscan_tiles (src/dist_tiles.c) does, on a data set:

  citus_scale.py sim cities PATH EPS TILE_POINTS     GeoNames TSV (id, name, lat, lon)
  citus_scale.py sim uniform N EPS TILE_POINTS       N points uniform in 1000 x 1000
  citus_scale.py sim skewed N EPS TILE_POINTS        blobs with Zipf weights (see skewed())
  citus_scale.py model                               the extrapolation table of docs/scale.md

"sim" prints the tile count, the ghost copies (and their share), the
largest tile (owned + ghosts), the distinct cross-tile pairs; its counts
for the cities are checked against the loopback run (docs/scale.md).
Pure Python (no numpy): about 10 s per million points.
"""
import math
import random
import sys

MAX_DEPTH = 12
DBL_EPSILON = 2.220446049250313e-16


def plan(xs, ys, eps, tile_points, workers=2):
    """The procedure's tiling: x0, y0, side, nx, ny, depth[], offset[], ntiles."""
    n = len(xs)
    margin = 2 * eps
    xmin, xmax, ymin, ymax = min(xs), max(xs), min(ys), max(ys)
    target = tile_points or max(20000, min(5000000, n // max(16 * workers, 1)))
    side = max(math.sqrt(max((xmax - xmin) * (ymax - ymin), 0) * target / max(n, 1)),
               (xmax - xmin) * target / max(n, 1) / 1e6, (ymax - ymin) * target / max(n, 1) / 1e6,
               4 * margin)
    while True:
        nx = int(min(math.floor((xmax - xmin) / side) + 1, 2e9))
        ny = int(min(math.floor((ymax - ymin) / side) + 1, 2e9))
        if nx * ny <= 65536:
            break
        side *= 2
    max_depth = max(0, min(12, math.floor(math.log2(side / (4 * margin)))))
    counts = [0] * (nx * ny)
    for x, y in zip(xs, ys):
        i = min(max(math.floor((x - xmin) / side), 0), nx - 1)
        j = min(max(math.floor((y - ymin) / side), 0), ny - 1)
        counts[i * ny + j] += 1
    depth = [0 if c <= target else min(max_depth, math.ceil(math.log(c / target) / math.log(4)))
             for c in counts]
    offset, total = [], 0
    for d in depth:
        offset.append(total)
        total += 1 << (2 * d)
    return dict(x0=xmin, y0=ymin, side=side, nx=nx, ny=ny, depth=depth, offset=offset,
                ntiles=total, margin=margin, target=target)


def clamp(v, lo, hi):
    if not v >= lo:
        return lo
    return hi if v >= hi else int(v)


def tiles_of(t, x, y):
    """gpu_dbscan_tiles: the owner tile first, then the ghost tiles."""
    s, nx, ny = t['side'], t['nx'], t['ny']
    gx, gy = (x - t['x0']) / s, (y - t['y0']) / s
    slack = 1e-9 + 8 * DBL_EPSILON * (abs(x) + abs(t['x0']) + abs(y) + abs(t['y0'])) / s
    m = t['margin'] / s + slack

    def sub(g0, g1, c, d):
        last = (1 << d) - 1
        return clamp(math.floor((g0 - c) * (1 << d)), 0, last), clamp(math.floor((g1 - c) * (1 << d)), 0, last)

    def number(i, j, a, b):
        return t['offset'][i * ny + j] + (a << t['depth'][i * ny + j]) + b

    i, j = clamp(math.floor(gx), 0, nx - 1), clamp(math.floor(gy), 0, ny - 1)
    d = t['depth'][i * ny + j]
    owner = number(i, j, sub(gx, gx, i, d)[0], sub(gy, gy, j, d)[0])
    out = [owner]
    for ci in range(clamp(math.floor(gx - m), 0, nx - 1), clamp(math.floor(gx + m), 0, nx - 1) + 1):
        for cj in range(clamp(math.floor(gy - m), 0, ny - 1), clamp(math.floor(gy + m), 0, ny - 1) + 1):
            d = t['depth'][ci * ny + cj]
            a0, a1 = sub(gx - m, gx + m, ci, d)
            b0, b1 = sub(gy - m, gy + m, cj, d)
            for a in range(a0, a1 + 1):
                for b in range(b0, b1 + 1):
                    k = number(ci, cj, a, b)
                    if k != owner:
                        out.append(k)
    return out


def simulate(xs, ys, eps, tile_points):
    t = plan(xs, ys, eps, tile_points)
    load = {}
    copies = 0
    for x, y in zip(xs, ys):
        ts = tiles_of(t, x, y)
        copies += len(ts)
        for k in ts:
            load[k] = load.get(k, 0) + 1
    n = len(xs)
    split = sum(1 for d in t['depth'] if d > 0)
    return dict(points=n, tiles=t['ntiles'], nonempty=len(load), base=f"{t['nx']} x {t['ny']}",
                side=round(t['side'], 4), split_cells=split, ghosts=copies - n,
                ghost_pct=round(100.0 * (copies - n) / max(n, 1), 2),
                largest_tile=max(load.values()) if load else 0, target=t['target'])


def cities(path):
    xs, ys = [], []
    with open(path, encoding='utf-8') as f:
        for line in f:
            p = line.rstrip('\n').split('\t')
            ys.append(float(p[2]))
            xs.append(float(p[3]))
    return xs, ys


def uniform(n, seed=1):
    r = random.Random(seed)
    return [r.random() * 1000 for _ in range(n)], [r.random() * 1000 for _ in range(n)]


def skewed(n, seed=2, blobs=200, noise=0.1):
    """blobs Gaussian blobs (sigma 1..20) with Zipf(1) weights, plus uniform noise, in 1000 x 1000."""
    r = random.Random(seed)
    centres = [(r.random() * 1000, r.random() * 1000, 1 + r.random() * 19) for _ in range(blobs)]
    weights = [1.0 / (k + 1) for k in range(blobs)]
    total = sum(weights)
    xs, ys = [], []
    for _ in range(n):
        if r.random() < noise:
            xs.append(r.random() * 1000)
            ys.append(r.random() * 1000)
            continue
        u, k = r.random() * total, 0
        while u > weights[k]:
            u -= weights[k]
            k += 1
        cx, cy, s = centres[k]
        xs.append(min(max(r.gauss(cx, s), 0), 1000))
        ys.append(min(max(r.gauss(cy, s), 0), 1000))
    return xs, ys


# Per-stage costs measured on the loopback cluster (docs/scale.md: the
# cities, 199,568 points, 230,349 rows with ghosts, report => true), in
# microseconds of wall time per row with the whole cluster on 2 cores, so
# times 2 for core-microseconds (an upper bound: the machine was shared).
LOOPBACK_US = dict(extent=4.4, tiles=13.1, one_sided=1.05, local=4.7, result=3.9)
MERGE_US_PER_EDGE = 30.7          # ghost rows that are core, gathered and joined on the coordinator
ARRAY_LIMIT = 134_000_000         # 1 GB bigint arrays: the merge as built gathers the edges in one
H100_US_PER_ROW = 0.7             # gpu_dbscan in the database on one H100, one backend (BENCHMARKS.md)
ROW_BYTES = 60                    # a tile row: tile, id, ghost, copies, point geometry
NET_GBIT = 25                     # per worker


def ghost_share(points_per_tile, k=10):
    """Uniform data, eps set for k neighbours a point: 8 eps / side = 8 sqrt(k / (pi P))."""
    return min(1.25, 8 * math.sqrt(k / (math.pi * points_per_tile)))


def model():
    """Seconds per stage on W workers of C cores and G GPUs (docs/scale.md)."""
    print('| points | W x C cores x G GPUs | tiles | ghost share | scans per worker s | tile shuffle s | local, CPU s | local, GPU s '
          '| merge edges | merge as built s | merge, edges deduplicated on the workers s | total (GPU, dedup) s |')
    print('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    for n in (1e10, 1e11):
        for w, c, g in ((64, 32, 4), (256, 32, 8), (1024, 64, 8)):
            p = min(5e6, n / (4 * w * g))              # at most one GPU run of ~0.5 GB; 4 tiles a GPU at least
            tiles = n / p
            gs = ghost_share(p)
            rows = n * (1 + gs)
            cores = w * c
            core_s = lambda us, r: r * us * 2e-6 / cores
            scans = core_s(LOOPBACK_US['extent'], n) + core_s(LOOPBACK_US['one_sided'], rows) \
                + core_s(LOOPBACK_US['result'], n)
            shuffle = max(core_s(LOOPBACK_US['tiles'], rows), rows * ROW_BYTES * 8 / (NET_GBIT * 1e9) / w)
            local_cpu = core_s(LOOPBACK_US['local'], rows)
            local_gpu = rows * H100_US_PER_ROW * 1e-6 / min(w * g, tiles)
            edges = n * gs * 0.8                      # ghosts that are core (0.8 of the points, say)
            merge_built = edges * MERGE_US_PER_EDGE * 1e-6
            over = ' (over the array limit)' if edges > ARRAY_LIMIT else ''
            dedup_edges = tiles * 4 * 50              # about 50 clusters cross each of a tile's 4 edges
            merge_dedup = core_s(2.0, n * gs) + dedup_edges * MERGE_US_PER_EDGE * 1e-6
            total = scans + shuffle + local_gpu + merge_dedup
            print(f'| {n:.0e} | {w} x {c} x {g} | {tiles:,.0f} | {gs:.2%} | {scans:,.0f} | {shuffle:,.0f} | {local_cpu:,.0f} | '
                  f'{local_gpu:,.0f} | {edges:.1e} | {merge_built:,.0f}{over} | {merge_dedup:,.0f} | {total:,.0f} |')


def main(argv):
    if len(argv) >= 2 and argv[1] == 'model':
        model()
        return 0
    if len(argv) < 6 or argv[1] != 'sim':
        print(__doc__)
        return 2
    kind = argv[2]
    if kind == 'cities':
        xs, ys = cities(argv[3])
    elif kind == 'uniform':
        xs, ys = uniform(int(float(argv[3])))
    elif kind == 'skewed':
        xs, ys = skewed(int(float(argv[3])))
    else:
        print(__doc__)
        return 2
    res = simulate(xs, ys, float(argv[4]), int(float(argv[5])))
    print(' '.join(f'{k}={v}' for k, v in res.items()))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
