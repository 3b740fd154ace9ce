// bench_args.hpp — how the benchmark programs spell their lists and sizes
// (gd_bench, bench/arborx_nd): "1M,10M", "100k", "2500000".
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace gd_bench {

// "a,b,,c" -> {"a", "b", "c"}.
inline std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// "1M", "10m", "500k", "1G" (or "1B"), "2500000"; -1 when malformed, not
// positive or above 2^32 - 1.
inline int64_t parse_size(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  double mult = 1.0;
  if (*end == 'k' || *end == 'K') mult = 1e3, end++;
  else if (*end == 'm' || *end == 'M') mult = 1e6, end++;
  else if (*end == 'g' || *end == 'G' || *end == 'b' || *end == 'B') mult = 1e9, end++;
  if (end == s.c_str() || *end != '\0' || !(v > 0) || v * mult > 4294967295.0) return -1;
  return static_cast<int64_t>(v * mult + 0.5);
}

inline std::string size_label(int64_t n) {
  if (n % 1000000 == 0) return std::to_string(n / 1000000) + "M";
  if (n % 1000 == 0) return std::to_string(n / 1000) + "k";
  return std::to_string(n);
}

inline std::string eps_label(double e) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", e);
  return buf;
}

}  // namespace gd_bench
