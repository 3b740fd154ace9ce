#!/usr/bin/env python3
"""db_crossover.py -- where the GPU starts to pay, in PostgreSQL: data for gpu_dbscan.gpu_min_rows.

Also run as `db_bench.py --crossover`.  Same connection and standard-library
rules as db_bench.py.  Three measurements:

  first call     a fresh session's first gpu_dbscan call (100 rows) with backend
                 = cpu and = gpu, then its second: the first GPU call pays the
                 CUDA context (the first cpu call the library load only), so
                 gpu first - cpu first is the per-process GPU start-up cost.
  one partition  SELECT max(c) FROM (SELECT gpu_dbscan(geom, eps, 10) OVER () c FROM t) s
                 on single partitions of --sizes rows, backend = cpu and = gpu,
                 in warm sessions (context made), runs interleaved, best of
                 --runs.  uniform: density 1 point per unit^2 (side sqrt(n)),
                 eps 2.5, about 19.6 neighbours a point at every size; blobs:
                 db_bench's 50 blobs + 10% noise with lengths scaled by
                 s = sqrt(n / 1M) (side 1000 s, sigma 10-30 s: the same
                 density everywhere) and eps 1, so each size is the 1M blobs
                 eps 1 case in small, with the same neighbour counts.
  partitions     the same OVER (PARTITION BY part) on tables of --parts
                 (PxM: P partitions of M rows, each uniform at density 1,
                 eps 2.5), backend = cpu, gpu and auto (the session's
                 gpu_min_rows decides per partition), with the read floor.

It prints the cpu / gpu ratio for each size and the suggested crossover: the
size, interpolated in log-log between the measured sizes, above which the GPU
was faster at every larger measured size.

  python3 bench/db_bench.py --crossover                  # all sizes, 5 runs
  python3 bench/db_bench.py --crossover --sizes 1k,10k,100k --parts 10x10k --runs 3
"""

import argparse
import math
import os
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from db_common import (SESSION_SETTINGS, Budget, Session, SqlError, ensure_table, load_average, log,  # noqa: E402
                       machine_lines, parse_size, server_facts, set_statements, size_label)

WARMUP = ("SELECT count(DISTINCT c) FROM (SELECT gpu_dbscan(ST_MakePoint(g, g), 1.5, 2) OVER () c "
          "FROM generate_series(1, 100) g) s")
ONE = "SELECT max(c) FROM (SELECT gpu_dbscan(geom, {eps}, {mp}) OVER () c FROM {t}) s"
PARTS = "SELECT max(c) FROM (SELECT gpu_dbscan(geom, {eps}, {mp}) OVER (PARTITION BY part) c FROM {t}) s"
PARTS_FLOOR = ("SELECT max(c) FROM (SELECT gpu_dbscan_read_floor(geom) OVER (PARTITION BY part) c "
               "FROM {t}) s")
UNIFORM_EPS = 2.5   # pi * 2.5^2 = 19.6 neighbours at density 1
BLOBS_EPS = 1.0     # at every size: lengths scale, density stays


def parse_parts(s):
    p, _, m = s.lower().partition("x")
    if not m:
        raise argparse.ArgumentTypeError("--parts wants PxM, e.g. 100x10k: " + s)
    return int(parse_size(p)), parse_size(m)


def fmt_ms(v):
    if v is None:
        return "n/a"
    if isinstance(v, str):
        return v
    return "%.1f" % (v * 1000.0) if v < 10 else "%.0f" % (v * 1000.0)


def fmt_ratio(a, b):
    if not isinstance(a, float) or not isinstance(b, float) or b <= 0:
        return "—"
    return "%.2fx" % (a / b)


def open_session(backend, settings):
    """A warm session for one backend (the GPU's context made), or (None, error)."""
    s = None
    try:
        s = Session(SESSION_SETTINGS + settings)
        # auto sends small partitions to the CPU: make the context with gpu
        # first, so that no timed query pays it.
        s.run("SET gpu_dbscan.backend = %s" % ("gpu" if backend in ("gpu", "auto") else backend))
        try:
            s.run(WARMUP)
        except SqlError as e:
            if backend != "auto":
                raise
            log("auto session: no GPU warm-up (%s)" % e)
        s.run("SET gpu_dbscan.backend = %s" % backend)
        s.run(WARMUP)
        return s, None
    except SqlError as e:
        if s is not None:
            s.close()
        return None, str(e)


def first_calls(settings, sessions_per_backend):
    """{backend: ([first-call seconds], [second-call seconds]) or error text}."""
    out = {}
    for backend in ("cpu", "gpu"):
        firsts, seconds = [], []
        try:
            for _ in range(sessions_per_backend):
                with Session(SESSION_SETTINGS + settings + ["SET gpu_dbscan.backend = %s" % backend]) as s:
                    firsts.append(s.timed(WARMUP)[1])
                    seconds.append(s.timed(WARMUP)[1])
            out[backend] = (firsts, seconds)
        except SqlError as e:
            out[backend] = str(e)
    return out


def best_of(sessions, query, runs, budget, results=None):
    """{backend: best seconds, or an error text}; the backends' runs interleaved.
    results, when given, gets each backend's query result."""
    best = {b: None for b in sessions}
    ran = set()
    for _ in range(runs):
        if budget.over():
            break
        for b, (s, _) in sessions.items():
            if s is None or isinstance(best[b], str):
                continue
            try:
                value, sec = s.timed(query)
                if results is not None:
                    results[b] = value
            except SqlError as e:
                best[b] = "error: " + str(e)
                continue
            ran.add(b)
            if best[b] is None or sec < best[b]:
                best[b] = sec
    for b, (s, _) in sessions.items():
        if s is not None and b not in ran and best[b] is None:
            best[b] = "skipped"
    return best


def clusters_text(results):
    """Clusters from max(id) + 1 (ids are 0..k-1), and whether the backends agree."""
    k = {b: (int(v) + 1 if v not in (None, "") else 0) for b, v in results.items()}
    if len(set(k.values())) > 1:
        return " / ".join("%s %d" % kv for kv in sorted(k.items())) + " (DIFFERENT)"
    return str(next(iter(k.values()))) if k else "—"


def crossover(points):
    """points: [(n, cpu s, gpu s)] by n.  The size above which the GPU is faster at every
    larger measured size, log-log interpolated; (text, n or None)."""
    pts = [(n, c / g) for n, c, g in points if isinstance(c, float) and isinstance(g, float) and g > 0]
    if not pts:
        return "n/a (no GPU figures)", None
    i = len(pts)
    while i > 0 and pts[i - 1][1] > 1.0:
        i -= 1
    if i == len(pts):
        return "GPU never faster (up to %s rows)" % size_label(pts[-1][0]), None
    if i == 0:
        return "GPU faster at every size measured (from %s rows)" % size_label(pts[0][0]), pts[0][0]
    (n0, r0), (n1, r1) = pts[i - 1], pts[i]
    t = (0.0 - math.log(r0)) / (math.log(r1) - math.log(r0)) if r1 != r0 else 0.5
    n = math.exp(math.log(n0) + t * (math.log(n1) - math.log(n0)))
    return "about %s rows (between %s and %s)" % (nice(n), size_label(n0), size_label(n1)), n


def nice(n):
    """n rounded to two significant digits, as 12k / 120k / 1.2M."""
    if n <= 0:
        return "0"
    e = 10 ** max(0, int(math.floor(math.log10(n))) - 1)
    v = int(round(n / e) * e)
    if v >= 1000000:
        return ("%.1fM" % (v / 1e6)).replace(".0M", "M")
    if v >= 1000:
        return ("%.1fk" % (v / 1e3)).replace(".0k", "k")
    return str(v)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1k,3k,10k,30k,100k,300k,1M",
                    help="single-partition sizes (default 1k,3k,10k,30k,100k,300k,1M)")
    ap.add_argument("--datasets", default="uniform,blobs")
    ap.add_argument("--parts", default="100x10k,10x100k",
                    help="PARTITION BY tables as PxM, comma list (default 100x10k,10x100k; '' for none)")
    ap.add_argument("--minpoints", type=int, default=10)
    ap.add_argument("--runs", type=int, default=5, help="runs per size and backend, best kept (default 5)")
    ap.add_argument("--first-sessions", type=int, default=3,
                    help="fresh sessions per backend for the first-call cost (default 3)")
    ap.add_argument("--set", action="append", metavar="NAME=VALUE",
                    help="a setting for every measuring session (repeatable)")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds for the whole run: what is not started by then is skipped")
    ap.add_argument("--seed", default="0.42")
    ap.add_argument("--regenerate", action="store_true")
    ap.add_argument("--out", help="also write the Markdown report to this file")
    args = ap.parse_args(argv)
    sizes = [parse_size(s) for s in args.sizes.split(",") if s]
    parts = [parse_parts(s) for s in args.parts.split(",") if s]
    datasets = [d for d in args.datasets.split(",") if d]
    for d in datasets:
        if d not in ("uniform", "blobs"):
            ap.error("unknown data set %s (uniform, blobs)" % d)
    try:
        settings = set_statements(args.set)
    except argparse.ArgumentTypeError as e:
        ap.error(str(e))
    budget = Budget(args.budget)
    load_at_start = load_average()
    db = server_facts(settings)

    log("first calls ...")
    firsts = first_calls(settings, args.first_sessions)

    # Tables first (generation is not timed), then the warm sessions.
    tables = []
    for d in datasets:
        for n in sizes:
            s = math.sqrt(n / 1e6)
            if d == "uniform":
                t = ensure_table("gd_xover_uniform_%s" % size_label(n).lower(), "uniform", n, args.seed,
                                 args.regenerate, side=repr(math.sqrt(n)))
                eps = UNIFORM_EPS
            else:
                t = ensure_table("gd_xover_blobs_%s" % size_label(n).lower(), "blobs", n, args.seed,
                                 args.regenerate, side=repr(1000 * s), sig_lo=repr(10 * s),
                                 sig_span=repr(20 * s))
                eps = BLOBS_EPS
            tables.append((d, n, t, "%.6g" % eps))
    part_tables = []
    for p, m in parts:
        t = ensure_table("gd_xover_parts_%dx%s" % (p, size_label(m).lower()), "parts", p * m, args.seed,
                         args.regenerate, m=str(m), side=repr(math.sqrt(m)))
        part_tables.append((p, m, t))

    sessions = {b: open_session(b, settings) for b in ("cpu", "gpu")}
    for b, (s, e) in sessions.items():
        if s is None:
            log("backend %s: n/a (%s)" % (b, e))

    single = []
    for d, n, t, eps in tables:
        log("%s eps %s: cpu and gpu x%d ..." % (t, eps, args.runs))
        with Session(SESSION_SETTINGS) as s:
            s.run("SELECT count(*) FROM %s" % t)
        results = {}
        best = best_of(sessions, ONE.format(t=t, eps=eps, mp=args.minpoints), args.runs, budget, results)
        log("  cpu %s ms, gpu %s ms" % (fmt_ms(best["cpu"]), fmt_ms(best["gpu"])))
        single.append((d, n, eps, best, clusters_text(results)))

    multi = []
    if part_tables:
        auto, auto_err = open_session("auto", settings)
        floor_s, _ = open_session("cpu", settings)
        all_sessions = dict(sessions)
        all_sessions["auto"] = (auto, auto_err)
        all_sessions["floor"] = (floor_s, None if floor_s else "no session")
        for p, m, t in part_tables:
            log("%s: floor, cpu, gpu, auto x%d ..." % (t, args.runs))
            q = PARTS.format(t=t, eps=UNIFORM_EPS, mp=args.minpoints)
            best = best_of({k: v for k, v in all_sessions.items() if k != "floor"}, q, args.runs, budget)
            best.update(best_of({"floor": all_sessions["floor"]}, PARTS_FLOOR.format(t=t), args.runs, budget))
            picked = "—"
            if auto is not None:
                try:
                    picked = auto.value("SELECT backend FROM gpu_dbscan_last_run()") or "—"
                except SqlError:
                    pass
            log("  " + ", ".join("%s %s ms" % (k, fmt_ms(v)) for k, v in best.items()))
            multi.append((p, m, best, picked))
        for s in (auto, floor_s):
            if s is not None:
                s.close()
    for s, _ in sessions.values():
        if s is not None:
            s.close()

    outputs = [sys.stdout]
    if args.out:
        outputs.append(open(args.out, "w"))
    for o in outputs:
        report(o, machine_lines(db, load_at_start), db, args, firsts, single, multi, sessions)
        o.flush()
    if args.out:
        outputs[1].close()
    log("db_crossover: %.0f s" % budget.elapsed())


def report(out, machine, db, args, firsts, single, multi, sessions):
    w = out.write
    w("## db_bench --crossover — gpu_dbscan backend=cpu against backend=gpu by partition size\n\n")
    for line in machine:
        w("- %s\n" % line)
    for b, (s, e) in sessions.items():
        if s is None:
            w("- backend=%s: n/a (%s)\n" % (b, e))
    w("- minpoints %d; milliseconds from psql \\timing, best of %d in a warm session (context made, "
      "runs of the two backends interleaved)\n\n" % (args.minpoints, args.runs))

    w("First gpu_dbscan call of a fresh session (100 rows), ms, over %d sessions each:\n\n" % args.first_sessions)
    w("| backend | first call, min | first call, median | second call, min |\n|---|---:|---:|---:|\n")
    med = {}
    for b in ("cpu", "gpu"):
        f = firsts.get(b)
        if isinstance(f, tuple) and f[0]:
            med[b] = statistics.median(f[0])
            w("| %s | %s | %s | %s |\n" % (b, fmt_ms(min(f[0])), fmt_ms(med[b]), fmt_ms(min(f[1]))))
        else:
            w("| %s | n/a | n/a | n/a |\n" % b)
    if "cpu" in med and "gpu" in med:
        w("\nGPU start-up cost of a backend process (medians, gpu first call - cpu first call): %s ms; "
          "it is paid once per session, by its first GPU call.\n" % fmt_ms(med["gpu"] - med["cpu"]))
    else:
        w("\nGPU start-up cost: n/a (%s)\n" % (firsts.get("gpu") if isinstance(firsts.get("gpu"), str) else "—"))

    w("\nOne partition (OVER ()), ms:\n\n")
    w("| data set | rows | eps | cpu | gpu | cpu / gpu | faster | clusters |\n"
      "|---|---:|---:|---:|---:|---:|---|---:|\n")
    for d, n, eps, best, k in single:
        c, g = best["cpu"], best["gpu"]
        faster = "—"
        if isinstance(c, float) and isinstance(g, float):
            faster = "gpu" if g < c else "cpu"
        w("| %s | %s | %s | %s | %s | %s | %s | %s |\n" % (d, size_label(n), eps, fmt_ms(c), fmt_ms(g),
                                                           fmt_ratio(c, g), faster, k))
    w("\nSuggested crossover (smallest partition from which the GPU was faster at every larger size "
      "measured; gpu_dbscan.gpu_min_rows is now %s):\n\n" % db["gpu_min_rows"])
    found = []
    for d in dict.fromkeys(x[0] for x in single):
        text, n = crossover([(n, b["cpu"], b["gpu"]) for dd, n, _, b, _ in single if dd == d])
        w("- %s: %s\n" % (d, text))
        if n is not None:
            found.append(n)
    if found:
        w("- both: gpu_min_rows about %s (the larger of the two)\n" % nice(max(found)))

    if multi:
        w("\nPARTITION BY part (each partition uniform at density 1, eps %s), ms; auto uses the "
          "session's gpu_min_rows (%s):\n\n" % (UNIFORM_EPS, db["gpu_min_rows"]))
        w("| partitions x rows | read floor | cpu | gpu | auto | auto ran | cpu / gpu | auto / best |\n"
          "|---|---:|---:|---:|---:|---|---:|---:|\n")
        for p, m, best, picked in multi:
            c, g, a = best["cpu"], best["gpu"], best["auto"]
            bests = [v for v in (c, g) if isinstance(v, float)]
            w("| %d x %s | %s | %s | %s | %s | %s | %s | %s |\n" % (
                p, size_label(m), fmt_ms(best["floor"]), fmt_ms(c), fmt_ms(g), fmt_ms(a), picked,
                fmt_ratio(c, g), fmt_ratio(a, min(bests)) if bests else "—"))
        w("\nauto ran: the backend gpu_dbscan_last_run() names after the auto query (its last partition).\n")


if __name__ == "__main__":
    main()
