// devices.cpp — the device list of gd_params (gpu_dbscan.devices): its
// syntax, checked without touching CUDA (the PostgreSQL glue calls this from
// a GUC check hook, in processes that must not start a CUDA context).
#include <cctype>
#include <cstdio>
#include <string>

#include "api_guard.hpp"

namespace {

std::string trimmed(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool is_all(const std::string& s) {
  if (s.size() != 3) return false;
  for (size_t i = 0; i < 3; ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != "all"[i]) return false;
  return true;
}

}  // namespace

extern "C" gd_status gd_parse_devices(const char* text, int* ordinals, int* count,
                                      gd_error* err) {
  return gd::api::guarded(err, [&] {
    using gd::api::invalid;
    if (!text || !ordinals || !count) invalid("text, ordinals or count is NULL");
    *count = 0;
    std::string all = trimmed(text);
    if (all.empty()) return;
    if (is_all(all)) {
      *count = GD_DEVICES_ALL;
      return;
    }
    int n = 0;
    size_t start = 0;
    for (;;) {
      size_t comma = all.find(',', start);
      std::string item = trimmed(all.substr(start, comma == std::string::npos ? std::string::npos
                                                                              : comma - start));
      if (item.empty())
        invalid("an empty item in the device list \"%s\": write ordinals separated by commas, "
                "or all", text);
      long v = 0;
      for (char c : item) {
        if (!std::isdigit(static_cast<unsigned char>(c)))
          invalid("\"%s\" is not a device ordinal: write ordinals (0, 1, ...) separated by "
                  "commas, or all", item.c_str());
        v = v * 10 + (c - '0');
        if (v > GD_MAX_DEVICE_ORDINAL)
          invalid("device ordinal %s is out of range (0..%d)", item.c_str(),
                  GD_MAX_DEVICE_ORDINAL);
      }
      if (n == GD_MAX_DEVICES) invalid("more than %d devices in the list", GD_MAX_DEVICES);
      ordinals[n++] = static_cast<int>(v);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    *count = n;
  });
}
