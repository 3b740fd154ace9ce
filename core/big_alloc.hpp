// big_alloc.hpp — the core's large arrays (grids, sort buffers, flags,
// union-finds, representatives): fresh anonymous mappings advised to use
// transparent huge pages, and elements left uninitialised.
//
// A run touches ~60 bytes a point of fresh memory.  Where THP is in
// "madvise" mode (Debian's default), each first touch of a 4 KiB page is a
// fault; on a virtual machine those cost ~20 us, so 2M points spent ~0.4 s
// faulting against ~0.7 s of clustering (BENCHMARKS.md, "Fresh memory").
// One 2 MiB page faults once for 512 of them.  Small arrays come from
// operator new as usual.  BigVector's resize() and (n) constructor do not
// zero what they add: every user writes each element before reading it, or
// fills explicitly (assign, the (n, value) constructor).
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace gd {

// Arrays from this size up are mapped on their own: a 256 KiB array costs 64
// faults on small pages (~1.3 ms on a VM), one on a huge page (zeroing 2 MiB,
// ~0.1 ms); at most 2 MiB of each live array's mapping is slack.
constexpr size_t kBigArrayBytes = size_t{1} << 18;

// bytes >= kBigArrayBytes, rounded up to whole huge pages; throws
// std::bad_alloc when the mapping fails.
void* big_alloc(size_t bytes);
void big_free(void* p, size_t bytes) noexcept;

template <class T>
struct BigAllocator {
  using value_type = T;

  BigAllocator() noexcept = default;
  template <class U>
  BigAllocator(const BigAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    const size_t bytes = n * sizeof(T);
    if (bytes >= kBigArrayBytes) return static_cast<T*>(big_alloc(bytes));
    return static_cast<T*>(::operator new(bytes));
  }
  void deallocate(T* p, size_t n) noexcept {
    const size_t bytes = n * sizeof(T);
    if (bytes >= kBigArrayBytes)
      big_free(p, bytes);
    else
      ::operator delete(p);
  }

  // Value-initialisation (zeroing) only when asked for with arguments.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  template <class U>
  bool operator==(const BigAllocator<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const BigAllocator<U>&) const noexcept { return false; }
};

template <class T>
using BigVector = std::vector<T, BigAllocator<T>>;

}  // namespace gd
