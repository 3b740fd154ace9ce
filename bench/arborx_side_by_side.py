#!/usr/bin/env python3
"""ArborX 2.1 and gpu_dbscan side by side, from one GPU run's reports.

Reads gd_bench's report (its first table: GPU and GPU resident seconds) and
arborx_bench's report (best seconds per implementation and precision, and the
label differences against the first variant), both made on the same points in
the same device call (test/gpu/run, stage arborx), and prints one table per
case: our times, ArborX's, and ArborX's best over ours as a ratio (> 1: ours
is faster).  Usage: arborx_side_by_side.py GD_BENCH.md ARBORX_BENCH.md
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
    ours = {}
    for c in table_rows(sys.argv[1], "data set | points | eps | CPU s"):
        ours[(c[0], c[1], c[2])] = (seconds(c[5]), seconds(c[4]))
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
    print("\nours: gd_bench (float64, exact); resident = points already on the device, as ArborX is timed; "
          "ArborX: arborx_bench on the same points (fingerprint checked), best of its runs after a warm-up; "
          "its labels against ours row by row: compare_gd.md of the same run.")


if __name__ == "__main__":
    main()
