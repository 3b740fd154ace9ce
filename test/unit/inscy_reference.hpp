// inscy_reference.hpp — the subspace clustering written straight from its
// definition (core/gd_inscy.h, docs/subspace.md), for the unit tests:
// every one of the 2^d - 1 subspaces, every pair of points, sqrt(sum) <= eps,
// no pruning.  Slow on purpose (d up to about 10, n up to about 1000).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gd_test {

struct SubspaceCluster {
  std::vector<int> dims;     // 0-based, ascending
  std::vector<int> members;  // 0-based rows, ascending
  bool operator==(const SubspaceCluster& o) const {
    return dims == o.dims && members == o.members;
  }
};

struct InscyParams {
  double eps;
  int64_t mu;
  int64_t min_size;
  double density_factor;
  double redundancy;
};

// Kept clusters in the output order: shorter dims first, then dims
// lexicographically, then first member.
std::vector<SubspaceCluster> reference_inscy(const std::vector<double>& rows, int n, int d,
                                             const InscyParams& p);

// A readable first difference of two results ("" when equal).
std::string first_difference(const std::vector<SubspaceCluster>& got,
                             const std::vector<SubspaceCluster>& want);

}  // namespace gd_test
