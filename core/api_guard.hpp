// api_guard.hpp — what every extern "C" entry point of the core uses (api.cpp,
// nd_api.cpp): guarded() runs a body and turns any exception into a
// gd_error, invalid() throws GD_ERR_INVALID with a formatted message, and
// the checks of the common arguments.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <string>

#include "backend.hpp"
#include "pair_collect.hpp"

namespace gd {
namespace api {

inline void set_error(gd_error* err, gd_status status, const char* message) {
  if (!err) return;
  err->status = status;
  std::snprintf(err->message, sizeof err->message, "%s", message);
}

// Runs body() and reports how it ended.
template <class Body>
gd_status guarded(gd_error* err, Body&& body) {
  try {
    body();
    if (err) {  // no formatting on the way out of a call that went well
      err->status = GD_OK;
      err->message[0] = '\0';
    }
    return GD_OK;
  } catch (const Error& e) {
    set_error(err, e.status(), e.what());
    return e.status();
  } catch (const std::bad_alloc&) {
    set_error(err, GD_ERR_NOMEM, "out of memory");
    return GD_ERR_NOMEM;
  } catch (const std::exception& e) {
    set_error(err, GD_ERR_INTERNAL, e.what());
    return GD_ERR_INTERNAL;
  } catch (...) {
    set_error(err, GD_ERR_INTERNAL, "unknown exception in the clustering core");
    return GD_ERR_INTERNAL;
  }
}

[[noreturn]] inline void invalid(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline void invalid(const char* fmt, ...) {
  char buf[400];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  throw Error(GD_ERR_INVALID, buf);
}

inline void check_eps(double eps) {
  if (std::isnan(eps) || eps < 0) invalid("eps must be a non-negative number, got %g", eps);
}

inline void check_minpoints(int64_t minpoints) {
  if (minpoints < 0)
    invalid("minpoints must be a non-negative number, got %lld", static_cast<long long>(minpoints));
}

inline void check_params(const gd_params* params) {
  if (!params) invalid("params is NULL");
  check_eps(params->eps);
  check_minpoints(params->minpoints);
  // Read as an integer: a C caller can store any int in the enum.
  int backend;
  static_assert(sizeof backend == sizeof params->backend, "gd_backend is an int");
  std::memcpy(&backend, &params->backend, sizeof backend);
  if (backend != GD_BACKEND_CPU && backend != GD_BACKEND_GPU) invalid("unknown backend %d", backend);
  if (params->threads < 0) invalid("threads must be >= 0, got %d", params->threads);
  if (params->min_items_per_thread < 0)
    invalid("min_items_per_thread must be >= 0, got %lld",
            static_cast<long long>(params->min_items_per_thread));
  if (params->ndevices != GD_DEVICES_ALL &&
      (params->ndevices < 0 || params->ndevices > GD_MAX_DEVICES))
    invalid("ndevices must be 0..%d or GD_DEVICES_ALL, got %d", GD_MAX_DEVICES, params->ndevices);
  if (params->ndevices > 0 && !params->devices) invalid("devices is NULL");
  for (int k = 0; k < params->ndevices; ++k)
    if (params->devices[k] < 0 || params->devices[k] > GD_MAX_DEVICE_ORDINAL)
      invalid("device ordinals must be 0..%d, got %d", GD_MAX_DEVICE_ORDINAL, params->devices[k]);
  if (params->split_min_points < 0)
    invalid("split_min_points must be >= 0, got %lld",
            static_cast<long long>(params->split_min_points));
}

constexpr int64_t kMaxPoints = std::numeric_limits<int32_t>::max();

// The common arguments of a pair search (gd_candidate_pairs,
// gd_neighbour_pairs_nd): out emptied first, eps, nrows, and params
// (*defaults, filled here, when NULL).  Returns the params to use.
inline const gd_params* check_pair_search(gd_pair_list* out, double eps, int64_t nrows,
                                          const gd_params* params, gd_params* defaults) {
  if (!out) invalid("out is NULL");
  out->pairs = nullptr;
  out->count = 0;
  out->charged = 0;
  check_eps(eps);
  gd_params_init(defaults);
  if (!params) params = defaults;
  if (params->threads < 0) invalid("threads must be >= 0, got %d", params->threads);
  if (params->min_items_per_thread < 0)
    invalid("min_items_per_thread must be >= 0, got %lld",
            static_cast<long long>(params->min_items_per_thread));
  if (nrows < 0) invalid("nrows must be >= 0, got %lld", static_cast<long long>(nrows));
  if (nrows > kMaxPoints)
    invalid("%lld rows in one partition, at most %lld are supported",
            static_cast<long long>(nrows), static_cast<long long>(kMaxPoints));
  if (params->max_pairs < 0)
    invalid("max_pairs must be >= 0, got %lld", static_cast<long long>(params->max_pairs));
  return params;
}

// The most pairs a search of params may list (gd_params.max_pairs).
inline int64_t max_pairs_of(const gd_params& params) {
  const int64_t memory = gd::default_max_pairs();
  return params.max_pairs > 0 && params.max_pairs < memory ? params.max_pairs : memory;
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace api
}  // namespace gd
