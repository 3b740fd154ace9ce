// backend.hpp — the contract between the core's C API (api.cpp) and its two
// back ends, the multithreaded CPU path (cpu_*.cpp) and the CUDA path (cuda/).
//
// Both back ends receive only the non-empty points of a partition, compacted in
// row order (point index order == partition row order), and return for each
// point the representative of its cluster: the same value for every point of
// one cluster, kNoise for noise.  The rules that decide them are
// rules/dbscan_rules.hpp, the neighbour test rules/neighbour.hpp, the ids by
// first row rules/ids.hpp (labels.cpp applies them to the rows).
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gd_core.h"
#include "rules/dbscan_rules.hpp"
#include "rules/neighbour.hpp"

// The core is built without PostgreSQL: no header of the backend may reach it.
#ifdef POSTGRES_H
#error "the clustering core must not include postgres.h"
#endif

namespace gd {

// The one exception type of the core; api.cpp turns it into a gd_error.
class Error : public std::runtime_error {
 public:
  Error(gd_status status, const std::string& what)
      : std::runtime_error(what), status_(status) {}
  gd_status status() const { return status_; }

 private:
  gd_status status_;
};

// Polls the caller's cancel flag; cheap enough to call every few thousand items.
class CancelToken {
 public:
  explicit CancelToken(const gd_params& p) : fn_(p.should_cancel), arg_(p.cancel_arg) {}
  bool requested() const { return fn_ != nullptr && fn_(arg_) != 0; }
  void throw_if_requested() const {
    if (requested()) throw Error(GD_ERR_CANCELLED, "clustering cancelled");
  }

 private:
  int (*fn_)(void*);
  void* arg_;
};

// Non-empty points of one partition, in row order.
struct PointsView {
  const double* x;
  const double* y;
  uint32_t n;
};

// The neighbour relation every back end uses, and the box bounds over it:
// rules/neighbour.hpp.

// CPU back end (cpu_dbscan.cpp): fills rep[0..pts.n), and core[0..pts.n)
// (1 for a core point, else 0) when core is given.
void cpu_cluster(const PointsView& pts, const gd_params& params, const CancelToken& cancel,
                 uint32_t* rep, gd_run_stats& stats, uint8_t* core = nullptr);

// GPU back end (cuda/, or a stub that throws GD_ERR_NO_DEVICE when built
// without CUDA): fills rep[0..pts.n) with the same clusters as cpu_cluster,
// and core[0..pts.n) as cpu_cluster does when core is given.
void gpu_cluster(const PointsView& pts, const gd_params& params, const CancelToken& cancel,
                 uint32_t* rep, gd_run_stats& stats, uint8_t* core = nullptr);
bool gpu_available(int device, std::string* why);
// CUDA devices this process sees (0 without a driver, or a build without CUDA).
int gpu_device_count();

// labels.cpp: turns per-point representatives into per-row ids, numbered
// 0..k-1 by each cluster's first row; EMPTY rows are clusters of their own
// when minpoints <= 1.
void assign_ids(const uint8_t* row_kind, int64_t nrows, const uint32_t* rep, int64_t minpoints,
                int32_t* cluster_ids);

}  // namespace gd
