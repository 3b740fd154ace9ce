#!/usr/bin/env python3
"""ArborX 2.1 and gpu_dbscan side by side, from one GPU run's reports.

Reads gd_bench's report (its first table: GPU and GPU resident seconds) and
arborx_bench's report (best seconds per implementation and precision, and the
label differences against the first variant), both made on the same points in
the same device call (test/gpu/run, stage arborx), and prints one table per
case: our times, ArborX's, and ArborX's best over ours as a ratio (> 1: ours
is faster).  Usage: arborx_side_by_side.py GD_BENCH.md ARBORX_BENCH.md

2-D: gd_bench's main table and the anchors' arborx_bench.  n-D: gd_bench
--dims D's table (its dims column) and bench/arborx_nd's arborx_bench_nd,
whose "- dims: D" line must match.
"""
import sys


def table_rows(path, first_header):
    """The rows (lists of cells) of the first markdown table whose header starts with first_header."""
    rows, inside = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not inside:
                inside = line.startswith("| " + first_header)
                continue
            if not line.startswith("|"):
                break
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not set(cells[0]) <= set("-:"):
                rows.append(cells)
    return rows


def arborx_dims(path):
    """The "- dims: D" line of arborx_bench_nd's report; 2 without one (the 2-D driver)."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("- dims: "):
                return int(line.split(":")[1])
    return 2


def seconds(cell):
    try:
        return float(cell)
    except ValueError:
        return None


def ms(v):
    return "—" if v is None else f"{v * 1e3:.1f}"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ours, dims = {}, 2
    for c in table_rows(sys.argv[1], "data set | points | eps | CPU s"):
        ours[(c[0], c[1], c[2])] = (seconds(c[5]), seconds(c[4]))
    if not ours:  # gd_bench --dims: | data set | dims | points | eps | CPU s | GPU s | GPU resident s | ...
        for c in table_rows(sys.argv[1], "data set | dims | points | eps | CPU s"):
            dims = int(c[1])
            ours[(c[0], c[2], c[3])] = (seconds(c[6]), seconds(c[5]))
    if ours and arborx_dims(sys.argv[2]) != dims:
        sys.exit(f"{sys.argv[1]} has {dims}-D points, {sys.argv[2]} {arborx_dims(sys.argv[2])}-D")
    if dims > 2:
        print(f"{dims}-D points (gd_bench --dims {dims}; ArborX: bench/arborx_nd's arborx_bench_nd)\n")
    theirs = {}
    for c in table_rows(sys.argv[2], "data set | points | eps | impl"):
        theirs.setdefault((c[0], c[1], c[2]), []).append(c)
    print("| data set | points | eps | ours resident ms | ours host-in/ids-out ms | ArborX FDBSCAN f32 / f64 ms "
          "| ArborX DenseBox f32 / f64 ms | ArborX best ms | ArborX best / ours resident |")
    print("|---|---:|---:|---:|---:|---|---|---:|---:|")
    for key, (res, host) in ours.items():
        variants = {(c[3], c[4]): c for c in theirs.get(key, [])}
        best = {k: seconds(c[5]) for k, c in variants.items()}

        def pair(impl):
            return " / ".join(ms(best.get((impl, p))) for p in ("float32", "float64"))

        found = [v for v in best.values() if v is not None]
        top = min(found) if found else None
        ratio = f"{top / res:.2f}x" if top and res else "—"
        print(f"| {key[0]} | {key[1]} | {key[2]} | {ms(res)} | {ms(host)} | {pair('FDBSCAN')} "
              f"| {pair('FDBSCAN-DenseBox')} | {ms(top)} | {ratio} |")
    driver, compare = ("arborx_bench", "compare_gd.md") if dims == 2 else ("arborx_bench_nd", "the end of arborx_nd.md")
    print("\nours: gd_bench (float64, exact); resident = points already on the device, as ArborX is timed; "
          f"ArborX: {driver} on the same points (fingerprint checked), best of its runs after a warm-up; "
          f"its labels against ours row by row: {compare} of the same run.")


if __name__ == "__main__":
    main()
