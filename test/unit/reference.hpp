// reference.hpp — brute-force DBSCAN that implements the rules literally, in
// O(n^2), for checking the back ends (CPU here, GPU in test_gpu*.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gd_test {

// The neighbour predicate of gd_core.h, written out again on purpose (the
// tests are built with -ffp-contract=off like the core): |dx| <= eps,
// |dy| <= eps and sqrt(dx*dx + dy*dy) <= eps.
bool ref_within(double px, double py, double qx, double qy, double eps);

// Ids per row (GD_NOISE = -1), numbered 0..k-1 by each cluster's first row.
// kinds[i] is GD_ROW_POINT, GD_ROW_EMPTY or GD_ROW_NULL.
std::vector<int32_t> reference_dbscan(const std::vector<double>& x, const std::vector<double>& y,
                                      const std::vector<uint8_t>& kinds, double eps,
                                      int64_t minpoints);

// The same rules computed the way PostGIS's union_dbscan does: rows visited in
// order, neighbours of p are the hits of p's box grown by eps that pass the
// distance test, a core point unions with its neighbours that are core or
// not yet in a cluster and claims the latter.  Used to check reference_dbscan
// itself.
std::vector<int32_t> postgis_order_dbscan(const std::vector<double>& x,
                                          const std::vector<double>& y,
                                          const std::vector<uint8_t>& kinds, double eps,
                                          int64_t minpoints);

// DBSCAN from an explicit neighbour matrix (for the graph API).
std::vector<int32_t> reference_graph_dbscan(const std::vector<uint8_t>& kinds,
                                            const std::vector<std::vector<bool>>& neighbour,
                                            int64_t minpoints);

// Renumbers ids 0..k-1 by first appearance, keeping -1.
std::vector<int32_t> canonical_ids(const std::vector<int32_t>& ids);

// Checks the DBSCAN invariants of ids (any size; a sweep over x finds the
// neighbours): NULL rows and noise are -1, EMPTY rows follow minpoints, core
// points within eps share an id and each id's core points are connected,
// every border point has the id of its smallest-row core neighbour, noise
// has no core neighbour, ids are numbered by first row.  Returns "" when all
// hold, else what failed first.
std::string check_invariants(const std::vector<double>& x, const std::vector<double>& y,
                             const std::vector<uint8_t>& kinds, double eps, int64_t minpoints,
                             const std::vector<int32_t>& ids);

}  // namespace gd_test
