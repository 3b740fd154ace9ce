// reference.hpp — brute-force DBSCAN that implements the rules literally, in
// O(n^2), for checking the back ends (CPU here, GPU in test_gpu*.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gd_test {

// The neighbour relation of backend.hpp, written out again on purpose (the
// tests are built with -ffp-contract=off like the core): p searching, q is
// found when it lies in p's box [px - eps, px + eps] x [py - eps, py + eps]
// (bounds rounded in double, inclusive) and sqrt(dx*dx + dy*dy) <= eps.
// Not symmetric at the last bit, nor where dx*dx underflows.
bool ref_within(double px, double py, double qx, double qy, double eps);

// Ids per row (GD_NOISE = -1), numbered 0..k-1 by each cluster's first row,
// from the exact rules over the relation, in O(n^2): core p when
// #{q : within(p, q)} >= minpoints; the first claimer of x is the smallest
// core r with within(r, x); minpoints >= 2: core q < p join when
// within(p, q), every point joins its first claimer, a point with no claimer
// that is not core is noise; minpoints <= 1: p and q join when either sees
// the other.  kinds[i] is GD_ROW_POINT, GD_ROW_EMPTY or GD_ROW_NULL.
std::vector<int32_t> reference_dbscan(const std::vector<double>& x, const std::vector<double>& y,
                                      const std::vector<uint8_t>& kinds, double eps,
                                      int64_t minpoints);

// PostGIS 3.3.2's union_dbscan emulated statement by statement: rows visited
// in order, the hits of p's box grown by eps that pass the distance test,
// union_dbscan_minpoints_1 for minpoints <= 1, union_dbscan_general with its
// shortcuts and union_if_available otherwise.  The oracle that
// reference_dbscan's rules (and the core) are checked against.
std::vector<int32_t> postgis_order_dbscan(const std::vector<double>& x,
                                          const std::vector<double>& y,
                                          const std::vector<uint8_t>& kinds, double eps,
                                          int64_t minpoints);

// DBSCAN from an explicit neighbour matrix (for the graph API).
std::vector<int32_t> reference_graph_dbscan(const std::vector<uint8_t>& kinds,
                                            const std::vector<std::vector<bool>>& neighbour,
                                            int64_t minpoints);

// PostGIS 3.3.2's union_dbscan (as postgis_order_dbscan) over a directed
// relation given as a matrix: sees[p][q] when q is a hit of p's query that
// passes the distance test (p searching; the diagonal is ignored, every
// row finds itself).  kinds[i] is GD_ROW_POINT, GD_ROW_OTHER, GD_ROW_EMPTY
// or GD_ROW_NULL.  The oracle for gd_cluster_graph_directed.
std::vector<int32_t> postgis_order_graph_dbscan(const std::vector<uint8_t>& kinds,
                                                const std::vector<std::vector<bool>>& sees,
                                                int64_t minpoints);

// Renumbers ids 0..k-1 by first appearance, keeping -1.
std::vector<int32_t> canonical_ids(const std::vector<int32_t>& ids);

// Checks the DBSCAN invariants of ids under the rules of reference_dbscan
// (any size; a sweep over x finds the neighbours): NULL rows and noise are
// -1, EMPTY rows follow minpoints, core points joined by a rule share an id
// and each id's core points are connected, every border point has the id of
// its first claimer, noise has no claimer, ids are numbered by first row.
// Returns "" when all hold, else what failed first.
std::string check_invariants(const std::vector<double>& x, const std::vector<double>& y,
                             const std::vector<uint8_t>& kinds, double eps, int64_t minpoints,
                             const std::vector<int32_t>& ids);

}  // namespace gd_test
