// gpu_stub.cpp — the GPU back end of a build without CUDA (CMake leaves this
// file out when the CUDA back end is built).
#include "backend.hpp"
#include "graph.hpp"
#include "nd_points.hpp"
#include "sweep.hpp"

namespace gd {

void gpu_cluster(const PointsView&, const gd_params&, const CancelToken&, uint32_t*,
                 gd_run_stats&, uint8_t*) {
  throw Error(GD_ERR_NO_DEVICE, "gpu_dbscan was built without CUDA");
}

void gpu_sweep(const PointsView&, double, const std::vector<int64_t>&, const gd_params&,
               const CancelToken&, uint32_t* const*, const SweepEmit&, gd_run_stats&) {
  throw Error(GD_ERR_NO_DEVICE, "gpu_dbscan was built without CUDA");
}

void gpu_nd_cluster(const NdPointsView&, const gd_params&, const CancelToken&, uint32_t*,
                    gd_run_stats&, uint8_t*) {
  throw Error(GD_ERR_NO_DEVICE, "gpu_dbscan was built without CUDA");
}

void gpu_nd_sweep(const NdPointsView&, const gd_params&, const std::vector<int64_t>&,
                  const CancelToken&, const std::function<void(size_t, const uint32_t*)>&,
                  uint32_t* const*, gd_run_stats&) {
  throw Error(GD_ERR_NO_DEVICE, "gpu_dbscan was built without CUDA");
}

void gpu_nd_pairs(const NdPointsView&, const uint32_t*, double, const gd_params&,
                  const CancelToken&, gd_pair_list*, int64_t, double) {
  throw Error(GD_ERR_NO_DEVICE, "gpu_dbscan was built without CUDA");
}

void gpu_box_pairs(const BoxTree&, const uint32_t*, double, const gd_params&, const CancelToken&,
                   gd_pair_list*, int64_t) {
  throw Error(GD_ERR_NO_DEVICE, "gpu_dbscan was built without CUDA");
}

bool gpu_available(int, std::string* why) {
  if (why) *why = "gpu_dbscan was built without CUDA";
  return false;
}

int gpu_device_count() { return 0; }

}  // namespace gd
