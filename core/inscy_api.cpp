// inscy_api.cpp — the extern "C" entry points of the subspace clustering
// (gd_inscy.h): argument checks, then inscy::run under guarded(), so that
// nothing escapes to the C caller.
#include <cmath>
#include <cstdlib>

#include "api_guard.hpp"
#include "inscy.hpp"

namespace {

using namespace gd::api;

void check_inscy(const double* rows, int64_t n, int d, const gd_inscy_params* ip,
                 const gd_params* params, gd_inscy_result* out) {
  if (!out) invalid("out is NULL");
  if (!ip) invalid("inscy parameters are NULL");
  check_params(params);
  if (d < GD_INSCY_MIN_DIMS || d > GD_INSCY_MAX_DIMS)
    invalid("feature arrays must have %d to %d values, got %d", GD_INSCY_MIN_DIMS,
            GD_INSCY_MAX_DIMS, d);
  if (n < 0) invalid("n must be >= 0, got %lld", static_cast<long long>(n));
  if (n > kMaxPoints)
    invalid("%lld rows, at most %lld are supported", static_cast<long long>(n),
            static_cast<long long>(kMaxPoints));
  if (n > 0 && !rows) invalid("rows is NULL");
  if (!(ip->eps > 0) || !std::isfinite(ip->eps))
    invalid("eps must be a positive finite number, got %g", ip->eps);
  if (ip->mu < 1) invalid("mu must be at least 1, got %lld", static_cast<long long>(ip->mu));
  if (ip->min_size < 1)
    invalid("min_size must be at least 1, got %lld", static_cast<long long>(ip->min_size));
  if (!(ip->density_factor > 0) || !std::isfinite(ip->density_factor))
    invalid("density_factor must be a positive finite number, got %g", ip->density_factor);
  if (!(ip->redundancy > 0) || !std::isfinite(ip->redundancy))
    invalid("redundancy must be a positive finite number, got %g", ip->redundancy);
  for (int64_t i = 0; i < n * d; ++i)
    if (!std::isfinite(rows[i]))
      invalid("row %lld has a non-finite value %g in column %lld", static_cast<long long>(i / d + 1),
              rows[i], static_cast<long long>(i % d + 1));
}

}  // namespace

extern "C" {

gd_status gd_inscy(const double* rows, int64_t n, int d, const gd_inscy_params* ip,
                   const gd_params* params, gd_inscy_result* out, gd_run_stats* stats,
                   gd_error* err) {
  if (out) *out = gd_inscy_result{};
  return guarded(err, [&] {
    check_inscy(rows, n, d, ip, params, out);
    gd_run_stats local{};
    gd::CancelToken cancel(*params);
    gd::inscy::run(rows, static_cast<uint32_t>(n), d, *ip, *params, cancel, *out, local);
    if (stats) *stats = local;
  });
}

void gd_inscy_result_free(gd_inscy_result* result) {
  if (!result) return;
  std::free(result->clusters);
  std::free(result->members);
  *result = gd_inscy_result{};
}

}  // extern "C"
