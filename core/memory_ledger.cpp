// memory_ledger.cpp — the charges and limits of memory_ledger.hpp, and the
// C entry points gd_memory_* of gd_core.h.
#include "memory_ledger.hpp"

#include <atomic>
#include <cinttypes>
#include <cstdio>

#include "api_guard.hpp"

namespace gd {

namespace {

// The limits, set by gd_memory_configure between core calls (never during
// one), read by the charges of the call's threads.
gd_memory_limits g_limits{};
std::atomic<int64_t> g_held{0};

int64_t mb(int64_t bytes) { return (bytes + (1 << 20) - 1) >> 20; }

[[noreturn]] void refuse(const char* what, int64_t bytes, const char* setting, int64_t limit,
                         int64_t would, const char* whose) {
  char msg[400];
  std::snprintf(msg, sizeof msg,
                "%s (%" PRId64 " MB) would take %s to %" PRId64 " MB, past %s (%" PRId64
                " MB); use a smaller eps, fewer values or more partitions, or ask the "
                "administrator to raise %s",
                what, mb(bytes), whose, mb(would), setting, mb(limit), setting);
  throw Error(GD_ERR_NOMEM, msg);
}

}  // namespace

void memory_charge(int64_t bytes, const char* what) {
  if (bytes <= 0) return;
  const int64_t held = g_held.fetch_add(bytes) + bytes;
  if (g_limits.query_limit > 0 && held > g_limits.query_limit) {
    g_held.fetch_sub(bytes);
    refuse(what, bytes, "gpu_dbscan.max_query_memory", g_limits.query_limit, held,
           "this query's memory");
  }
  if (g_limits.total_used) {
    const int64_t total = __atomic_add_fetch(g_limits.total_used, bytes, __ATOMIC_SEQ_CST);
    if (g_limits.total_limit > 0 && total > g_limits.total_limit) {
      __atomic_sub_fetch(g_limits.total_used, bytes, __ATOMIC_SEQ_CST);
      g_held.fetch_sub(bytes);
      refuse(what, bytes, "gpu_dbscan.max_total_memory", g_limits.total_limit, total,
             "the memory of all sessions");
    }
    if (g_limits.mine) __atomic_add_fetch(g_limits.mine, bytes, __ATOMIC_SEQ_CST);
  }
}

void memory_refund(int64_t bytes) {
  if (bytes <= 0) return;
  g_held.fetch_sub(bytes);
  if (g_limits.total_used) {
    __atomic_sub_fetch(g_limits.total_used, bytes, __ATOMIC_SEQ_CST);
    if (g_limits.mine) __atomic_sub_fetch(g_limits.mine, bytes, __ATOMIC_SEQ_CST);
  }
}

int64_t memory_held() { return g_held.load(); }

}  // namespace gd

extern "C" {

void gd_memory_configure(const gd_memory_limits* limits) {
  if (limits)
    gd::g_limits = *limits;
  else
    gd::g_limits = gd_memory_limits{};
}

gd_status gd_memory_charge(int64_t bytes, const char* what, gd_error* err) {
  return gd::api::guarded(err, [&] { gd::memory_charge(bytes, what ? what : "memory"); });
}

void gd_memory_refund(int64_t bytes) { gd::memory_refund(bytes); }

int64_t gd_memory_held(void) { return gd::memory_held(); }

}  // extern "C"
