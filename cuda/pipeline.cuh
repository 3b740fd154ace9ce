// pipeline.cuh — the device pipeline once the points are on the device
// (gpu_dbscan.cu), shared by the whole-set run and the strip driver
// (strips.cu).
#pragma once

#include <cstdint>
#include <vector>

#include "gd_cuda.hpp"
#include "grid.cuh"

namespace gd {
namespace cuda {

// What a strip run (strips.cu) adds to the pipeline: the role of each point
// (in the order the points were given) and where the core flags go.  With it
// the union stage joins only pairs of trusted points (kStripTrusted or
// kStripOwned), and the representatives are left as original indexes (no
// ranks): the strip driver merges them across strips.
enum : uint8_t { kStripHalo = 0, kStripTrusted = 1, kStripOwned = 2 };

struct StripRoles {
  const uint8_t* role;  // device, n, in the given order
  uint8_t* core_out;    // device, n: 1 for a core point, in the given order
};

// Clusters n device-resident points with the given bounds.  x, y are
// released once the grid has gathered them (when the run owns them: own_x,
// own_y).  The representatives go to d_rep, or, when d_rep is null, into a
// buffer of the run that is returned: cluster ranks, or original indexes of
// each cluster's root when strip is given; kNoise for noise.  core_out (or
// strip->core_out), when given, takes the core flags in the given order.
device_buffer<uint32_t> cluster_on_device(RunContext& ctx, const double* dx, const double* dy,
                                          uint32_t n, const Bounds& bounds,
                                          const gd_params& params, const Options& opts,
                                          gd_run_stats& stats, Stopwatch& sw,
                                          device_buffer<double>* own_x,
                                          device_buffer<double>* own_y, uint32_t* d_rep,
                                          RunInfo* info, const StripRoles* strip = nullptr,
                                          uint8_t* core_out = nullptr);

// The stages after the core flags (core: sorted order): each cell's
// smallest core, the union of core pairs into parent[] (g.n entries), then
// (minpoints > 1) every border point's first claimer in its parent[] entry
// (kNone: noise); final_labels reads the result.  trusted and step: as for
// union_core_pairs (null: all).
void join_and_claim(RunContext& ctx, const GridView& g, const uint8_t* core,
                    const uint8_t* trusted, int64_t minpoints, uint32_t nb, gd_run_stats& stats,
                    Stopwatch& sw, uint32_t* parent, const UnionStep& step = UnionStep());

// A sweep's core flags at minpoints m from each point's neighbour count
// (capped at the largest value): 2 where the point is core at m but not at
// the previous, larger value `above` (a new core point), 1 where core at
// both, 0 where not core; m <= 1: every point 1 (sweep.cu).
void core_marks(RunContext& ctx, const uint32_t* counts, uint32_t n, int64_t m, int64_t above,
                uint8_t* core);

// After an entry point's run failed with e: a device error resets this
// process's context (gpu_dbscan.cu), so that the next run works.
void reset_after(const Error& e) noexcept;

// How a run copies points up and representatives down (Options::transfer_mode).
TransferPlan transfer_plan(const Options& opts, const gd_params& params);

// Device memory that the run's sort stage needs for n points (a lower bound
// of its peak, known before anything is allocated).
size_t gather_stage_bytes(uint32_t n);

// strips.cu: clusters host points that do not fit the budget in one piece,
// strip by strip (see there), writing cluster ranks to rep like cluster_host.
// max_points: the most points one strip may load (0: from the budget).
// core (host, pts.n), when given, takes every point's core flag.
void cluster_in_strips(RunContext& ctx, const PointsView& pts, const gd_params& params,
                       uint32_t* rep, gd_run_stats& stats, const Options& opts, RunInfo* info,
                       uint64_t max_points, uint8_t* core = nullptr);

// Plans the batches of a neighbour stage from the grid's work estimate.
uint32_t plan_batches(uint64_t work, uint32_t n, const Options& opts);

// The same with the strips spread over several logical devices (one context
// each, one host thread each, the strips handed out on demand) and merged by
// the same host union-find: the same ids.  max_points as above; 0 sizes the
// strips so that every device gets a few (and none exceeds its budget).
void cluster_in_strips_on(const std::vector<RunContext*>& ctxs, const PointsView& pts,
                          const gd_params& params, uint32_t* rep, gd_run_stats& stats,
                          const Options& opts, RunInfo* info, uint64_t max_points,
                          uint8_t* core = nullptr);

// strips.cu: role of each sorted point -> trusted flag (sorted order), and
// core flags (sorted order) -> core_out (given order).
void gather_trusted(RunContext& ctx, const GridView& g, const uint8_t* role, uint8_t* trusted);
void scatter_core(RunContext& ctx, const GridView& g, const uint8_t* core, uint8_t* core_out);

}  // namespace cuda
}  // namespace gd
