// cpu_small.hpp — the CPU back end for partitions of a few points
// (cpu_small.cpp): all pairs tested, nothing allocated, no threads, no clock.
#pragma once

#include <cstdint>

#include "backend.hpp"

namespace gd {

// Partitions of at most this many points take cpu_cluster_small when they
// run on the CPU: below it, testing every pair costs less than setting up
// the grid (about 0.1 us against 0.6 us for 3 points, 1.4 us against 2 us
// for 16 points that are all neighbours, the worst case).
constexpr uint32_t kSmallPoints = 16;

// The clusters of cpu_cluster for pts.n <= kSmallPoints points: rep[p] is
// the rank of p's cluster in point order (0 for the cluster of the first
// clustered point, and so on; kNoise for noise), which assign_ids numbers
// as they are; core[p] (when given) 1 for a core point, else 0.
void cpu_cluster_small(const PointsView& pts, double eps, int64_t minpoints, uint32_t* rep,
                       uint8_t* core = nullptr);

}  // namespace gd
