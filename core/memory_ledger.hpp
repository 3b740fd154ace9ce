// memory_ledger.hpp — the host memory a backend's queries hold through
// gpu_dbscan, counted in one place against the administrator's limits
// (gpu_dbscan.max_query_memory for one backend's query,
// gpu_dbscan.max_total_memory for all backends together; src/memory_budget.c
// sets them and shares the total).
//
// Every large allocation of the core (pair lists, grids, union-finds, sweep
// levels, box trees) and of the glue (a sweep's rows x values ids) is
// charged here before it is made and refunded when it is freed; a charge
// past a limit throws GD_ERR_NOMEM naming the setting, so the query ends
// with a clean error before the memory is taken, never with the OOM killer.
// Charges may come from worker threads: the counters are atomics, and the
// shared total lives in memory every backend maps (a plain int64_t updated
// with atomic builtins).
#pragma once

#include <cstdint>

#include "backend.hpp"

namespace gd {

// Charges bytes for `what`; throws GD_ERR_NOMEM past a limit (nothing charged then).
void memory_charge(int64_t bytes, const char* what);
// Gives back bytes charged before.
void memory_refund(int64_t bytes);
// Bytes this backend holds now.
int64_t memory_held();

// A charge for the life of a scope (or until released to another owner).
class MemoryCharge {
 public:
  MemoryCharge() = default;
  MemoryCharge(int64_t bytes, const char* what) : bytes_(bytes) { memory_charge(bytes, what); }
  MemoryCharge(const MemoryCharge&) = delete;
  MemoryCharge& operator=(const MemoryCharge&) = delete;
  MemoryCharge(MemoryCharge&& o) noexcept : bytes_(o.bytes_) { o.bytes_ = 0; }
  MemoryCharge& operator=(MemoryCharge&& o) noexcept {
    if (this != &o) {
      memory_refund(bytes_);
      bytes_ = o.bytes_;
      o.bytes_ = 0;
    }
    return *this;
  }
  ~MemoryCharge() { memory_refund(bytes_); }
  // Grows the charge by more bytes.
  void add(int64_t more, const char* what) {
    memory_charge(more, what);
    bytes_ += more;
  }
  // Makes the charge `total` bytes: charges the growth, refunds a shrink.
  void set(int64_t total, const char* what) {
    if (total > bytes_) {
      add(total - bytes_, what);
    } else {
      memory_refund(bytes_ - total);
      bytes_ = total;
    }
  }
  // The owner of the memory takes the charge over (it refunds it itself).
  void release() { bytes_ = 0; }

 private:
  int64_t bytes_ = 0;
};

}  // namespace gd
